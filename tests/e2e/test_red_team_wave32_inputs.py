"""Red-team wave 32 (issue 13, class 5), through the real plugin process: what Dify's Agent node
sends, in odd shapes, in both strategies. Bad input gets a clear error and loses nothing: a run
ends with an answer or an ``AgentRunError`` naming the problem, never a Python traceback; no log
is left in ``start``; a tool result or file already produced still reaches the model and the user.

Found here and fixed: a model plugin's failure reached the user with its Python traceback (Dify
relays it as ``PluginInvokeError: {"args": {"traceback": ...}, ...}``); a required tool
parameter with a declared default, left out by the model, got the call refused; completion
parameters sent as null ended the run. The rest of the module pins shapes that already passed
(node parameters, tool declarations, tool messages, model chunks) so they keep passing.
"""

from __future__ import annotations

import base64
import json

import pytest

from local_runner import PluginProcess
from local_runner.daemon import DEFAULT_PLUGIN_DIR
from local_runner.scenario import ModelSettings, Scenario, run_scenario
from local_runner.tools import ScriptedTool, ToolBox, ToolParam, text_message
from tests.e2e.helpers import STRATEGIES, answer_turn, observations

TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/app/storage/cwd/langgenius/openai-0.2.1/models/llm/llm.py", line 120, in _invoke\n'
    "    raise InvokeServerUnavailableError(str(ex))\n"
    "InvokeServerUnavailableError: [openai] Server Unavailable Error, 503 Service Unavailable"
)
PLUGIN_ERROR = json.dumps({
    "args": {"traceback": TRACEBACK},
    "error_type": "InvokeServerUnavailableError",
    "message": "[openai] Server Unavailable Error, 503 Service Unavailable",
})
RELAYED = f"request failed: [openai] Error: req_id: 4fb4e434ab PluginInvokeError: {PLUGIN_ERROR}"
"""A model plugin's failure as Dify relays it to the daemon, which prefixes ``invoke llm model failed``."""


# --- checks and building blocks --------------------------------------------------------------------


def assert_ends_clearly(result, *, answer: bool = True) -> None:
    """An answer (``answer``) or an ``AgentRunError`` with a message; no log left in ``start``; no
    traceback in the answer, the error or any log node's error."""
    assert result.unfinished_logs() == [], [n.label for n in result.unfinished_logs()]
    if answer:
        assert result.ok, result.error_text
    if result.ok:
        assert result.text.strip()
    else:
        assert result.error.get("error_type") == "AgentRunError" and result.error.get("message"), result.error_text
    shown = [result.text, (result.error or {}).get("message") or ""] + [n.error or "" for n in result.logs.values()]
    for text in shown:
        assert "Traceback (most recent" not in text and 'File "/' not in text, text[:400]


def call(strategy: str, name: str, call_id: str = "c1", **arguments) -> dict:
    if strategy == "ReAct":
        blob = json.dumps({"action": name, "action_input": arguments}, ensure_ascii=False)
        return {"text": f"Thought: use {name}.\nAction:\n```json\n{blob}\n```"}
    return {"tool_calls": [{"id": call_id, "name": name, "arguments": arguments}]}


def echo(name: str = "echo", output: str = "echoed", **kwargs) -> ScriptedTool:
    return ScriptedTool(name=name, description="Echoes q", parameters=[ToolParam("q", description="q")],
                        responses=[text_message(output)], **kwargs)


def declared(tool: ScriptedTool, change) -> ScriptedTool:
    """``tool`` whose declaration (the ``tools`` node parameter) ``change(entity)`` edits."""
    entity_of = tool.entity

    def entity():
        entity = entity_of()
        change(entity)
        return entity

    object.__setattr__(tool, "entity", entity)
    return tool


def selector(**changes) -> dict:
    """The ``model`` node parameter as Dify sends it, with ``changes``."""
    return {**ModelSettings().selector([]), **changes}


def blob(data: bytes, filename: str, mime: str) -> dict:
    return {"type": "blob", "message": {"blob": base64.b64encode(data).decode()},
            "meta": {"filename": filename, "mime_type": mime}}


# --- fixed: a model plugin's traceback, a required parameter's default, null completion params ------


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("error", [RELAYED, TRACEBACK], ids=["relayed-by-dify", "bare-traceback"])
def test_a_model_plugins_failure_names_its_error_without_the_traceback(run, strategy, error):
    result = run([{"error": error}], strategy=strategy)
    assert_ends_clearly(result, answer=False)
    assert not result.ok
    message = result.error["message"]
    assert message.startswith("The model call failed in round 1: invoke llm model failed: ")
    assert "InvokeServerUnavailableError: [openai] Server Unavailable Error, 503 Service Unavailable" in message
    (thought,) = [n for n in result.logs.values() if n.label.endswith(" Thought")]
    assert thought.status == "error" and "503 Service Unavailable" in thought.error


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_model_failing_after_a_tool_made_a_file_keeps_the_file_and_the_result(run, strategy):
    report = ScriptedTool(name="report", description="Makes a report", parameters=[ToolParam("q", description="q")],
                          responses=[text_message("report ready"), blob(b"a,b\n1,2\n", "report.csv", "text/csv")])
    result = run([call(strategy, "report", q="sales"), {"text": "Partial", "error": RELAYED}],
                 tools=[report], strategy=strategy)
    assert_ends_clearly(result, answer=False)
    assert not result.ok and "503 Service Unavailable" in result.error["message"]
    assert [f["meta"]["filename"] for f in result.files] == ["report.csv"]
    (call_node,) = [n for n in result.logs.values() if n.label == "CALL report"]
    assert call_node.status == "success" and "report ready" in json.dumps(call_node.data)
    assert "report ready" in observations(result.llm_requests[1])[0]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_required_parameter_the_model_leaves_out_takes_its_declared_default(run, strategy):
    forecast = ScriptedTool(name="forecast", description="Weather forecast",
                            parameters=[ToolParam("city", description="City"),
                                        ToolParam("days", type="number", description="Days ahead", default=3)],
                            responses=[text_message("Sunny for 3 days")])
    result = run([call(strategy, "forecast", city="Oslo"), answer_turn(strategy, "Sunny.")],
                 tools=[forecast], strategy=strategy)
    assert_ends_clearly(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Oslo", "days": 3}]
    assert "Sunny for 3 days" in observations(result.llm_requests[1])[0]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_completion_parameters_sent_as_null_are_no_settings_error(run, strategy):
    result = run([call(strategy, "echo", q="a"), answer_turn(strategy, "Done.")], tools=[echo()],
                 strategy=strategy, params={"model": selector(completion_params=None)})
    assert_ends_clearly(result)
    assert result.text == "Done." and len(result.tool_requests) == 1


# --- already passing: node parameters of odd shapes ---------------------------------------------------

FILE = {"dify_model_identity": "__dify__file__", "transfer_method": "remote_url", "filename": "a.png", "type": "image"}

ANSWERED = {  # node parameters that still give an answer (the run reads what it can)
    "max_iterations as text": {"maximum_iterations": "5"},
    "max_iterations 1e9": {"maximum_iterations": 1e9},
    "max_iterations -1": {"maximum_iterations": -1},
    "temperature 'hot'": {"model": selector(completion_params={"temperature": "hot"})},
    "stop as a string": {"model": selector(completion_params={"stop": "END"})},
    "stop of non-strings": {"model": selector(completion_params={"stop": [1, None, {"a": 1}]})},
    "max_tokens negative": {"model": selector(completion_params={"max_tokens": -5})},
    "max_tokens as text": {"model": selector(completion_params={"max_tokens": "lots"})},
    "entity null": {"model": selector(entity=None)},
    "entity as text": {"model": selector(entity="gpt")},
    "entity with odd features": {"model": selector(entity={**ModelSettings().entity_dict(),
                                                            "features": ["teleport", "tool-call"]})},
    "context size as text": {"model": selector(entity={**ModelSettings().entity_dict(),
                                                        "model_properties": {"context_size": "big", "mode": 3}})},
    "context size 0": {"model": selector(entity={**ModelSettings().entity_dict(),
                                                  "model_properties": {"context_size": 0, "mode": "chat"}})},
    "parameter rules junk": {"model": selector(entity={**ModelSettings().entity_dict(),
                                                        "parameter_rules": [{"name": "x"}, None, "y"]})},
    "query a list": {"query": ["a", "b"]},
    "query a dict": {"query": {"q": "x"}},
    "instruction a list": {"instruction": ["be", "brief"]},
    "context items without content": {"context": [{"title": "t", "metadata": {}}, {"content": None}]},
    "context scores as text": {"context": [{"content": "c", "metadata": {"score": "high", "position": "x"}}]},
    "context content a dict": {"context": [{"content": {"a": 1}, "title": ["x"], "metadata": "m"}]},
    "context a number": {"context": 42},
    "memory of unknown roles": {"model": selector(history_prompt_messages=[
        {"role": "wizard", "content": "x"}, {"role": "user", "content": "hi"}])},
    "memory of odd content parts": {"model": selector(history_prompt_messages=[
        {"role": "user", "content": [{"type": "text"}, {"type": "weird", "data": "x"}, "str", None, 5]},
        {"role": "assistant", "content": [{"type": "text", "data": None}]}])},
    "memory content a number": {"model": selector(history_prompt_messages=[
        {"role": "user", "content": 5}, {"role": "assistant", "content": 6.5}])},
    "memory calls of junk": {"model": selector(history_prompt_messages=[
        {"role": "user", "content": "u"},
        {"role": "assistant", "content": "a", "tool_calls": [None, "x", {"id": "c1"}, {"id": "c3", "function": None}]},
        {"role": "tool", "content": "r", "tool_call_id": "c3"}])},
    "file without url": {"files": [dict(FILE)]},
    "file of a bad transfer method": {"files": [{**FILE, "transfer_method": "pigeon", "url": "https://e.com/a.png"}]},
    "file of an unknown type": {"files": [{**FILE, "type": "hologram", "url": "https://e.com/a.x"}]},
    "file size as text": {"files": [{**FILE, "url": "https://e.com/a.png", "size": "big", "mime_type": 5}]},
    "files of junk": {"files": [None, 5, {"a": 1}, ["x"], "not a url", "ftp://x/y"]},
    "step_format unknown": {"step_format": "yaml"},
    # read as a chat model's (params._readable_mode): LM Studio's plugin sends no mode
    # (langgenius/dify-docs-archived#652); refused with "model.mode" before wave 38
    "model without mode": {"model": {k: v for k, v in selector().items() if k != "mode"}},
}

REFUSED = {  # node parameters that end the run with an error naming the setting
    "max_iterations a list": ({"maximum_iterations": [3]}, "maximum_iterations"),
    "completion_params a list": ({"model": selector(completion_params=[1, 2])}, "model.completion_params"),
    "model null": ({"model": None}, "model"),
    "model without provider": ({"model": {k: v for k, v in selector().items() if k != "provider"}}, "model.provider"),
    "allowed_tools a number": ({"allowed_tools": 5}, "allowed_tools"),
    "model_timeout a list": ({"model_timeout": [1]}, "model_timeout"),
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", list(ANSWERED))
def test_odd_node_parameters_still_answer(run, strategy, kind):
    turns = [call(strategy, "echo", q="a"), answer_turn(strategy, "Done."), answer_turn(strategy, "Done.")]
    result = run(turns, tools=[echo()], strategy=strategy, params=ANSWERED[kind])
    assert_ends_clearly(result)
    assert "Done." in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", list(REFUSED))
def test_node_parameters_that_cannot_be_read_end_with_an_error_naming_them(run, strategy, kind):
    params, setting = REFUSED[kind]
    result = run([answer_turn(strategy, "Done.")], tools=[echo()], strategy=strategy, params=params)
    assert_ends_clearly(result, answer=False)
    assert not result.ok and f"({setting}:" in result.error["message"]
    assert result.llm_requests == []


# --- already passing: tool declarations and tool messages of odd shapes --------------------------------


def _drop(path: str):
    def change(entity):
        *parents, last = path.split(".")
        node = entity
        for key in parents:
            node = node[key]
        del node[last]
    return change


DECLARATIONS = {  # (change to the declaration, whether the tool stays offered)
    "parameter of an unknown type": (lambda e: e["parameters"][0].update(type="hologram"), False),
    "select without options": (lambda e: e["parameters"][0].update(type="select", options=[]), True),
    "entity without provider": (_drop("identity.provider"), False),
    "parameters null": (lambda e: e.update(parameters=None), True),
    "description null": (lambda e: e.update(description=None), True),
    "a parameter null": (lambda e: e.update(parameters=[None, *e["parameters"]]), False),
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", list(DECLARATIONS))
def test_an_odd_tool_declaration_runs_or_is_named_as_dropped(run, strategy, kind):
    change, offered = DECLARATIONS[kind]
    turns = [call(strategy, "echo", q="a"), answer_turn(strategy, "Done.")]
    result = run(turns, tools=[declared(echo(), change), echo("other")], strategy=strategy)
    assert_ends_clearly(result)
    assert len(result.tool_requests) == (1 if offered else 0)
    dropped = [n for n in result.logs.values() if n.label == "TOOL DROPPED echo"]
    assert bool(dropped) == (not offered)
    seen = observations(result.llm_requests[1])[0]
    assert ("echoed" in seen) if offered else ("no tool named 'echo'" in seen)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_parameters_named_like_reserved_words_reach_the_tool(run, strategy):
    names = ["class", "from", "action", "action_input", "__proto__", "type", "properties", "required", "self"]
    tool = ScriptedTool(name="echo", description="e", responses=[text_message("ok")],
                        parameters=[ToolParam(n, description=n, required=False) for n in names])
    arguments = {"class": "a", "from": "b", "action": "c", "type": "d", "__proto__": "e"}
    result = run([call(strategy, "echo", **arguments), answer_turn(strategy, "Done.")], tools=[tool], strategy=strategy)
    assert_ends_clearly(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [arguments]


MESSAGES = {
    "of an unknown type": [text_message("a"), {"type": "hologram", "message": {"text": "z"}, "meta": None},
                           text_message("b")],
    "whose data is a list": [text_message("a"), {"type": "text", "message": ["x", "y"], "meta": None},
                             {"type": "json", "message": [1, 2], "meta": None}, text_message("b")],
    "none at all": [],
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", list(MESSAGES))
def test_odd_tool_messages_keep_the_rest_and_the_run(run, strategy, kind):
    tool = echo()
    object.__setattr__(tool, "responses", MESSAGES[kind])
    result = run([call(strategy, "echo", q="a"), answer_turn(strategy, "Done.")], tools=[tool], strategy=strategy)
    assert_ends_clearly(result)
    seen = observations(result.llm_requests[1])[0]
    assert seen.strip()
    if MESSAGES[kind]:
        assert "a" in seen and "b" in seen


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_tool_raising_a_megabyte_after_a_file_keeps_the_file_and_says_why_briefly(run, strategy):
    tool = ScriptedTool(name="export", description="Exports", parameters=[ToolParam("q", description="q")],
                        responses=[blob(b"x,y\n", "out.csv", "text/csv")], error="disk full " + "E" * 1_000_000)
    result = run([call(strategy, "export", q="a"), answer_turn(strategy, "Done.")], tools=[tool], strategy=strategy)
    assert_ends_clearly(result)
    assert [f["meta"]["filename"] for f in result.files] == ["out.csv"]
    seen = observations(result.llm_requests[1])[0]
    assert "disk full" in seen and "out.csv" in seen and len(seen) < 20_000


# --- already passing: model streams of odd shapes ----------------------------------------------------


@pytest.fixture(scope="module")
def raw_plugin():
    """A process of its own, sent the model's chunks as they are (not re-serialized as the Go
    daemon does): a model plugin's stream with nulls where the daemon would put values."""
    with PluginProcess(DEFAULT_PLUGIN_DIR, raw_llm_chunks=True) as process:
        yield process


class RawModel:
    """A model that sends each turn's chunks exactly as written."""

    def __init__(self, turns: list[list]) -> None:
        self.turns, self.requests = list(turns), []

    def invoke_llm(self, request):
        self.requests.append(request)
        yield from self.turns.pop(0)

    def release(self) -> None:
        pass


def chunk(delta) -> dict:
    return {"model": "m", "prompt_messages": [], "system_fingerprint": "", "delta": delta}


def message(content=None, tool_calls=()) -> dict:
    return {"role": "assistant", "content": content, "name": None, "tool_calls": list(tool_calls), "tool_call_id": None}


STREAMS = {
    "delta null": [chunk(None)],
    "message null": [chunk({"index": 0, "message": None, "usage": None, "finish_reason": None})],
    "empty chunk": [{}],
    "usage as text": [chunk({"index": 0, "message": message(), "usage": "lots", "finish_reason": None})],
    "finish reason a number": [chunk({"index": 0, "message": message(), "usage": None, "finish_reason": 5})],
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", list(STREAMS))
def test_model_chunks_with_nulls_are_skipped_and_the_answer_kept(raw_plugin, strategy, kind):
    answer = answer_turn(strategy, "Done.")["text"]
    final = chunk({"index": 1, "message": message(answer), "usage": None, "finish_reason": "stop"})
    model = RawModel([[*STREAMS[kind], final]])
    result = run_scenario(Scenario(query="hi", tools=["echo"], strategy=strategy), model, ToolBox([echo()]),
                          plugin=raw_plugin, timeout=60)
    assert_ends_clearly(result)
    assert result.text == "Done."
