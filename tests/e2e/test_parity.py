"""Settings shared with the official strategies (langgenius/agent), through the real plugin:
``allowed_tools`` and ``maximum_iterations`` up to 500; what Dify shows of the log as it does
for them (the tool's icon on a CALL entry)."""

import json

import pytest

from local_runner.tools import LOCAL_PROVIDER, ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end

TOOLS = ["calculator", "current_time", "unit_convert"]


def offered(request: dict, strategy: str) -> set[str]:
    """Names of the tools the model was offered in ``request``."""
    if strategy == "function_calling":
        return {tool["name"] for tool in request["tools"] or []}
    system = next(m["content"] for m in request["prompt_messages"] if m["role"] == "system")
    return {name for name in TOOLS if name in system}


def call_turn(strategy: str, name: str, arguments: dict) -> dict:
    if strategy == "ReAct":
        action = json.dumps({"action": name, "action_input": arguments})
        return {"text": f"Thought: use {name}.\nAction:\n```json\n{action}\n```"}
    return {"tool_calls": [{"id": "c1", "name": name, "arguments": arguments}]}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize(
    ("allowed", "expected"),
    [
        (["calculator", "unit_convert"], {"calculator", "unit_convert"}),
        ('["calculator"]', {"calculator"}),
        ("calculator, current_time", {"calculator", "current_time"}),
        ([], set(TOOLS)),
        ("", set(TOOLS)),
        (None, set(TOOLS)),
    ],
)
def test_only_allowed_tools_are_offered(run, strategy, allowed, expected):
    result = run([answer_turn(strategy, "Hi.")], tools=TOOLS, strategy=strategy, params={"allowed_tools": allowed})
    assert_clean_end(result)
    assert offered(result.llm_requests[0], strategy) == expected


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_tool_left_out_of_allowed_tools_does_not_run(run, strategy):
    turns = [call_turn(strategy, "current_time", {"timezone": "UTC"}), answer_turn(strategy, "I cannot tell the time.")]
    result = run(turns, tools=TOOLS, strategy=strategy, params={"allowed_tools": ["calculator"]})
    assert_clean_end(result)
    assert result.tool_requests == []
    assert result.text == "I cannot tell the time."
    assert "current_time" in json.dumps(result.llm_requests[1]["prompt_messages"])  # the model is told


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_five_hundred_iterations_are_accepted(run, strategy):
    turns = [call_turn(strategy, "calculator", {"expression": f"{n} + 1"}) for n in range(120)]
    turns.append(answer_turn(strategy, "Done."))
    result = run(turns, tools=["calculator"], strategy=strategy, maximum_iterations=500, timeout=240)
    assert_clean_end(result)
    assert result.text == "Done."
    assert len(result.tool_requests) == 120
    assert not [n for n in result.logs.values() if n.label == "ITERATION LIMIT"]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_call_entries_name_the_tool_provider_for_its_icon(run, strategy):
    """Dify's Agent node shows the icon of a log entry's ``metadata.provider``; the official
    strategies put the tool's provider on their CALL entries, so a tool's entry shows its icon.
    A call of a tool the node does not have names no provider."""
    turns = [
        call_turn(strategy, "calculator", {"expression": "1 + 1"}),
        call_turn(strategy, "no_such_tool", {}),
        answer_turn(strategy, "2."),
    ]
    result = run(turns, tools=["calculator"], strategy=strategy)
    assert_clean_end(result)
    sent = {}
    for entry in result.log_history:
        if entry["label"].startswith("CALL "):
            sent.setdefault(entry["label"], []).append((entry["status"], (entry.get("metadata") or {}).get("provider")))
    assert sent["CALL calculator"] == [("start", LOCAL_PROVIDER), ("success", LOCAL_PROVIDER)]
    assert sent["CALL no_such_tool"] == [("start", None), ("error", None)]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_call_entries_show_the_input_the_tool_got_with_secrets_redacted(run, strategy):
    """As the official strategies' CALL entries, the tool input logged includes the values the
    user fixed in the node (not only the model's arguments); a secret-input value is hidden."""
    tool = ScriptedTool(
        name="forecast",
        description="Forecast for a city",
        parameters=[
            ToolParam("city", description="City name"),
            ToolParam("units", form="form", description="Units"),
            ToolParam("api_key", type="secret-input", form="form", description="API key"),
        ],
        responses=[text_message("Sunny")],
        runtime_parameters={"units": "metric", "api_key": "sk-canary-4711"},
    )
    turns = [call_turn(strategy, "forecast", {"city": "Oslo"}), answer_turn(strategy, "Sunny.")]
    result = run(turns, tools=[tool], strategy=strategy)
    assert_clean_end(result)
    assert result.tool_requests[0]["tool_parameters"]["api_key"] == "sk-canary-4711"
    (node,) = [n for n in result.logs.values() if n.label == "CALL forecast"]
    logged = {"city": "Oslo", "units": "metric", "api_key": "[REDACTED]"}
    assert node.data["output"]["tool_call_input"] == logged
    (round_node,) = [n for n in result.logs.values() if n.label == "ROUND 1"]
    assert round_node.data["output"]["tool_responses"][0]["tool_call_input"] == logged
    assert "sk-canary-4711" not in json.dumps(result.log_history)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_log_of_an_answer_round_shows_the_answer(run, strategy):
    """The official ReAct strategy logs a final answer as its Thought entry's ``action_input``;
    a ReAct reply's thought is not its answer, so the Thought and ROUND entries carry the answer
    too (where the thought alone shows it, as a Function Calling answer, it is not repeated)."""
    turns = [
        call_turn(strategy, "calculator", {"expression": "1 + 1"}),
        {"text": "Thought: I have the sum.\nFinal Answer: It is 2."} if strategy == "ReAct" else {"text": "It is 2."},
    ]
    result = run(turns, tools=["calculator"], strategy=strategy)
    assert_clean_end(result)
    assert result.text == "It is 2."
    (thought,) = [n for n in result.logs.values() if n.label.endswith("Thought") and n.parent_id == _round(result, 2).id]
    (first,) = [n for n in result.logs.values() if n.label.endswith("Thought") and n.parent_id == _round(result, 1).id]
    assert "answer" not in first.data and "answer" not in _round(result, 1).data["output"]  # a tool round
    if strategy == "ReAct":
        assert thought.data["output"] == "I have the sum."
        assert thought.data["answer"] == "It is 2."
        assert _round(result, 2).data["output"]["answer"] == "It is 2."
    else:
        assert thought.data["output"] == "It is 2."
        assert "answer" not in thought.data and "answer" not in _round(result, 2).data["output"]


def _round(result, number: int):
    (node,) = [n for n in result.logs.values() if n.label == f"ROUND {number}"]
    return node
