"""Polish from red-team wave 33 (issue 13, "bad input gets a clear error and loses nothing"),
through the real plugin process: what the run drops or skips is named where a user looks for it.

- A ReAct reply that writes an ``Action:`` after its ``Final Answer:`` shows the answer and runs
  nothing; the Thought node shows the step it left unread and names its tool (redacted).
- A tool message that cannot be read is named with the field at fault, for the model and in the
  CALL node, not only by its type.
- A json message whose ``json_object`` is a string, a number or a boolean reaches the model (a
  string as it is), not skipped as unreadable; only null is.
"""

import json

import pytest

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean, observations

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


def call_turn(strategy: str, name: str, arguments: dict) -> dict:
    if strategy == "ReAct":
        return {"text": f"Thought: look it up.\nAction: {name}\nAction Input: {json.dumps(arguments)}"}
    return {"tool_calls": [{"id": "c1", "name": name, "arguments": arguments}]}


def lookup(responses: list) -> ScriptedTool:
    return ScriptedTool(name="lookup", description="Looks a customer up",
                        parameters=[ToolParam("q", description="query")], responses=responses)


def logged_response(result, name: str = "lookup") -> str:
    (node,) = [n for n in result.logs.values() if n.label == f"CALL {name}"]
    return node.data["output"]["tool_response"]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_unreadable_tool_message_names_the_field_at_fault(run, strategy):
    responses = [
        text_message("Ada, plan Pro"),
        {"type": "variable", "message": {"variable_name": None, "variable_value": "x", "stream": False}, "meta": None},
        {"type": "blob", "message": {"blob": 42}, "meta": None},
    ]
    turns = [call_turn(strategy, "lookup", {"q": "Ada"}), answer_turn(strategy, "Ada is on Pro.")]
    result = run(turns, query="Ada's plan?", tools=[lookup(responses)], strategy=strategy)
    assert_clean(result, run)
    note = ("(the tool returned an invalid response: 2 unreadable message(s) skipped: "
            "blob message: blob is not bytes; variable message: variable_name is null)")
    (seen,) = observations(result.llm_requests[1])
    assert seen == "Ada, plan Pro\n" + note
    assert note in logged_response(result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_json_message_of_a_string_or_a_number_reaches_the_model(run, strategy):
    responses = [
        {"type": "json", "message": {"json_object": "Sunny, 21 C"}, "meta": None},
        {"type": "json", "message": {"json_object": 21}, "meta": None},
        {"type": "json", "message": {"json_object": None}, "meta": None},
    ]
    turns = [call_turn(strategy, "lookup", {"q": "Paris weather"}), answer_turn(strategy, "Sunny.")]
    result = run(turns, query="Weather in Paris?", tools=[lookup(responses)], strategy=strategy)
    assert_clean(result, run)
    (seen,) = observations(result.llm_requests[1])
    note = "(the tool returned an invalid response: 1 unreadable message(s) skipped: json message: json_object is null)"
    assert seen == "Sunny, 21 C\n21\n" + note
    assert logged_response(result) == seen
