"""Wave 34's xfail sweep, through the real plugin process.

- A ReAct reply whose JSON list puts its "Final Answer" object before calls shows the answer and
  runs nothing, as before; the Thought node now names the calls it left (before, they were
  dropped without a word in the log).
"""

import json

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import assert_clean

ANSWER = {"action": "Final Answer", "action_input": "Paris is the capital."}


def search() -> ScriptedTool:
    return ScriptedTool(name="search", description="Searches the web", parameters=[ToolParam("query", description="q")],
                        responses=[text_message("unused")])


def _thought_nodes(result):
    return [node for node in result.logs.values() if node.label.endswith(" Thought")]


def test_calls_after_a_final_answer_object_in_a_json_list_are_logged_not_run(run):
    steps = [ANSWER, {"action": "search", "action_input": {"query": "a"}},
             {"action": "search", "action_input": {"query": "b"}}]
    reply = f"Thought: I know it.\nAction:\n```json\n{json.dumps(steps)}\n```"
    result = run([{"text": reply}], query="Capital of France?", tools=[search()], strategy="ReAct")
    assert_clean(result, run)
    assert result.text == "Paris is the capital."
    assert result.tool_requests == []
    (thought,) = _thought_nodes(result)
    assert thought.data["calls_not_run_after_answer"] == "2: search"


def test_a_final_answer_object_alone_in_a_list_logs_no_call(run):
    reply = f"Action:\n```json\n{json.dumps([ANSWER])}\n```"
    result = run([{"text": reply}], query="Capital of France?", tools=[search()], strategy="ReAct")
    assert_clean(result, run)
    assert result.text == "Paris is the capital."
    (thought,) = _thought_nodes(result)
    assert "calls_not_run_after_answer" not in thought.data
