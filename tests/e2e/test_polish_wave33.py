"""Polish from red-team wave 33 (issue 13, "bad input gets a clear error and loses nothing"),
through the real plugin process: what the run drops or skips is named where a user looks for it.

- A ReAct reply that writes an ``Action:`` after its ``Final Answer:`` shows the answer and runs
  nothing; the Thought node shows the step it left unread and names its tool (redacted).
"""

import json

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import assert_clean

CANARY = "Cnry-5d1e77a0c3F9"


def vault() -> ScriptedTool:
    return ScriptedTool(
        name="vault", description="Reads the vault",
        parameters=[ToolParam("q", description="query"),
                    ToolParam("api_key", type="secret-input", form="form", description="key")],
        runtime_parameters={"api_key": CANARY}, responses=[text_message("vault says hi")])


def _thought_nodes(result):
    return [node for node in result.logs.values() if node.label.endswith(" Thought")]


def test_a_react_step_written_after_the_final_answer_is_shown_in_the_log_not_run(run):
    reply = (f"Thought: I know it.\nFinal Answer: Paris is the capital.\nAction: vault\n"
             f'Action Input: {{"q": "key {CANARY}"}}\nObservation: hi')
    result = run([{"text": reply}], query="Capital of France?", tools=[vault()], strategy="ReAct")
    assert_clean(result, run)
    assert result.text == "Paris is the capital."
    assert result.tool_requests == []
    (thought,) = _thought_nodes(result)
    assert thought.data["calls_not_run_after_answer"] == "1: vault"
    left = thought.data["not_read_after_answer"]
    assert left.startswith("Action: vault\nAction Input:") and "[REDACTED]" in left and left.endswith("Observation: hi")
    assert CANARY not in json.dumps(result.log_history)


def test_an_answer_alone_adds_nothing_to_the_thought_node(run):
    result = run([{"text": "Thought: I know it.\nFinal Answer: Paris."}], query="Capital?", tools=[vault()],
                 strategy="ReAct")
    assert_clean(result, run)
    (thought,) = _thought_nodes(result)
    assert "not_read_after_answer" not in thought.data and "calls_not_run_after_answer" not in thought.data
