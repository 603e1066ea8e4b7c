"""Generated adversarial runs of both strategies through one plugin process of their own, checked
against what keeps a real deployment alive: no line over the daemon's limit (the runner kills
the plugin, as the daemon does), a secret never leaves its tool call, a cut reply is never run
or passed off as complete, and every run ends with an answer or a clear error.

Each example mixes the classes an adversarial review found: megabyte and control-character tool
outputs, a tool that echoes its secret, parallel calls, answers in one huge chunk, replies cut
by the output limit (answers and calls), several ReAct actions in one turn, inputs that repeat
the tool's schema, invented observations, JSON nested deeper than the SDK parses or writes (in
a tool's result and in a call's arguments).
"""

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_core import prompts
from local_runner import PluginProcess
from local_runner.daemon import DEFAULT_PLUGIN_DIR
from local_runner.tools import ScriptedTool, ToolParam, json_message, text_message

EXAMPLES = 30  # per strategy: each example may move megabytes
SECRET = "SECRET-CANARY-93c1d7"


@pytest.fixture(scope="module")
def plugin():
    """A process of its own: if a line ever broke the limit, only this module's runs would fail."""
    with PluginProcess(DEFAULT_PLUGIN_DIR) as process:
        yield process


def _tool(name: str, output: str, **kwargs) -> ScriptedTool:
    return ScriptedTool(name=name, description=f"The {name} tool", parameters=[ToolParam("q", description="query")],
                        responses=[text_message(output)], **kwargs)


def _nested(levels: int) -> dict:
    """JSON nested deeper than pydantic-core (the SDK's parser and encoder) goes: about 254 levels."""
    value: dict = {"leaf": 1}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


TOOLS = {
    "small": lambda: _tool("small", "small-result"),
    "huge": lambda: _tool("huge", "x" * 1_200_000),
    "escapes": lambda: _tool("escapes", "\x01\x02\x1b" * 300_000),
    "deep": lambda: ScriptedTool(name="deep", description="The deep tool", parameters=[ToolParam("q", description="query")],
                                 responses=[json_message(_nested(300)), text_message("deep-done")]),
    "leaky": lambda: ScriptedTool(
        name="leaky", description="Echoes its key",
        parameters=[ToolParam("q", description="query"),
                    ToolParam("api_key", type="secret-input", form="form", description="key")],
        runtime_parameters={"api_key": SECRET}, responses=[text_message(f"used key {SECRET} for the query")]),
}


def _call(strategy: str, names: list[str], style: str) -> dict:
    if style == "deep":  # arguments nested past what the SDK can write
        deep = json.dumps({"q": _nested(300)})
        if strategy != "ReAct":
            return {"tool_calls": [{"id": "c0", "name": names[0], "arguments": deep}]}
        return {"text": f"Thought: x\nAction:\n```json\n{{\"action\": \"{names[0]}\", \"action_input\": {deep}}}\n```"}
    if strategy != "ReAct":
        return {"tool_calls": [{"id": f"c{n}", "name": name, "arguments": {"q": f"v{n}"}} for n, name in enumerate(names)]}
    if style == "echo":
        return {"text": f"Thought: x\nAction: {names[0]}\nAction Input: " + json.dumps({"q": {"type": "string", "description": "query"}})}
    blobs = "\n".join("Action:\n```json\n" + json.dumps({"action": name, "action_input": {"q": f"v{n}"}}) + "\n```"
                      for n, name in enumerate(names))
    invented = "\nObservation: made up\nFinal Answer: made up" if style == "invented" else ""
    return {"text": f"Thought: x\n{blobs}{invented}"}


def _answer(strategy: str, text: str) -> dict:
    return {"text": f"Thought: done\nFinal Answer: {text}" if strategy == "ReAct" else text}


@st.composite
def turns(draw, strategy: str) -> tuple[list[dict], list[str]]:
    offered = draw(st.lists(st.sampled_from(sorted(TOOLS)), min_size=1, max_size=4, unique=True))
    plan = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["call", "call", "cut_call", "cut_answer"]))
        names = draw(st.lists(st.sampled_from(offered), min_size=1, max_size=3))
        style = draw(st.sampled_from(["plain", "echo", "invented", "deep"]))
        if kind == "call":
            plan.append(_call(strategy, names, style))
        elif kind == "cut_call":
            text = _call("ReAct", names, "plain")["text"]
            plan.append({"text": text[: len(text) * 2 // 3], "finish_reason": "length"})
        else:
            plan.append({**_answer(strategy, "partial answer"), "finish_reason": "length"})
    size = draw(st.sampled_from([20, 5_000_000]))
    plan.append(_answer(strategy, "final " + "y" * size if size > 20 else "final answer"))
    plan += [_answer(strategy, "extra")] * 3  # continuation and retry rounds may need more turns
    return plan, offered


def check(result, plugin) -> None:
    assert plugin.alive, "the plugin was killed (a line over the daemon's limit?)"
    assert result.unfinished_logs() == []
    assert result.ok or result.error_text
    if result.error:  # a clear error of the strategy's own, not an exception that escaped (ours or the SDK's)
        assert result.error.get("error_type") == "AgentRunError", result.error_text
        assert not re.match(r"[A-Z]\w*(Error|Exception): ", result.error.get("message", "")), result.error_text
    if result.ok:
        assert result.text.strip()
    for entry in result.transcript:  # what the plugin wrote, but the tool call that needs the secret
        data = ((entry.get("json") or {}).get("data") or {}).get("data") or {}
        if entry["dir"] == "from_plugin" and data.get("type") != "tool":
            assert SECRET not in json.dumps(entry, ensure_ascii=False)
    assert SECRET not in "\n".join(plugin.stderr_tail(200))
    for request in result.llm_requests:
        assert SECRET not in json.dumps(request)


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(data=st.data())
def test_adversarial_runs_never_kill_leak_or_pass_off_a_cut_reply(run, plugin, strategy, data):
    plan, offered = data.draw(turns(strategy), label="turns")
    run.plugin = plugin
    result = run(plan, tools=[TOOLS[name]() for name in offered], strategy=strategy, timeout=120, maximum_iterations=6)
    check(result, plugin)
    cut_answer_only = [t for t in plan if t.get("finish_reason") == "length"]
    if result.ok and not cut_answer_only:
        assert prompts.ANSWER_CUT_OFF not in result.text
