"""Blind faults, wave 35 (issue 13's promise: bad input gets a clear error and loses nothing),
through the real plugin process.

The cases were designed from issue 13, the READMEs, docs/architecture.md and
docs/protocol-notes.md alone, the plugin a black box driven by local_runner: the daemon's
replies to a backwards model call in odd shapes (each Dify error type, an error after chunks,
chunks missing parts or with values of the wrong type, no chunk at all), a tool's reply stream
in odd shapes (a blob without meta, a file without address, a variable named with a megabyte,
the tool's own log and citations), failures at the special points of a run (the forced answer
at the iteration limit or at the time limit, the round after a file was made, one of six
parallel calls) and a session failing beside another one's tool call. Those the earlier
red-team, blind, adversarial and fault files already try were then dropped (delta or message
null, an empty chunk, usage as text, a 6 MB model error with a traceback and the secret, a model
error while a cut answer is continued, unknown or null tool messages, a file sent before a
tool fails).

Every run is audited (``audit`` of the wave-35 sessions file): the plugin alive, every line it
wrote JSON and under the daemon's 5 MiB, no secret in any line nor on stderr, no traceback
shown, no log node left in ``start``, and a run that fails ends with ``AgentRunError`` and a
message.
"""

from __future__ import annotations

import base64
import json
import threading
import time

import pytest

from local_runner import PluginProcess, Scenario, ToolBox, run_scenario
from local_runner.daemon import DEFAULT_PLUGIN_DIR
from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.conftest import ScriptedRun
from tests.e2e.helpers import STRATEGIES, answer_turn, observations, own_plugin, prompt_text
from tests.e2e.test_blind_sessions_wave35 import audit, core, new_secret, together, vault

MB = 1024 * 1024

plugin = own_plugin()


def call(strategy: str, name: str, call_id: str = "c1", **arguments) -> dict:
    """A model turn calling ``name`` with ``arguments`` in the strategy's format."""
    if strategy == "ReAct":
        return {"text": f"Thought: use {name}.\nAction: {name}\nAction Input: {json.dumps(arguments)}"}
    return {"tool_calls": [{"id": call_id, "name": name, "arguments": arguments}]}


def calls(strategy: str, items: list[tuple[str, dict]]) -> dict:
    """One turn calling each ``(name, arguments)`` of ``items`` (ReAct: one action a block)."""
    if strategy == "ReAct":
        return {"text": "Thought: all at once.\n" + "\n".join(
            f"Action: {name}\nAction Input: {json.dumps(arguments)}" for name, arguments in items)}
    return {"tool_calls": [{"id": f"k{n}", "name": name, "arguments": arguments}
                           for n, (name, arguments) in enumerate(items)]}


def blob(data: bytes, filename: str, mime: str = "text/plain") -> dict:
    return {"type": "blob", "message": {"blob": base64.b64encode(data).decode()},
            "meta": {"filename": filename, "mime_type": mime}}


def tool(name: str, responses: list, **kwargs) -> ScriptedTool:
    return ScriptedTool(name=name, description=f"{name} tool", parameters=[ToolParam("q", description="q")],
                        responses=responses, **kwargs)


def relayed(error_type: str, message: str) -> str:
    """A model plugin's failure as Dify relays it to the daemon (the runner prefixes ``invoke llm
    model failed: ``): the SDK's error object inside Dify's ``PluginInvokeError``."""
    inner = json.dumps({"args": {"description": message}, "error_type": error_type, "message": message})
    return f"request failed: [openai] Error: req_id: 7f3a PluginInvokeError: {inner}"


def thought_nodes(result):
    return [n for n in result.logs.values() if n.label.endswith(" Thought")]


def labels(result) -> list[str]:
    return [n.label for n in result.logs.values()]


# --- 1. each Dify error type of a model call ---------------------------------------------------------------

ERROR_TYPES = {
    "InvokeRateLimitError": "[openai] Rate Limit Error, 429 too many requests, retry after 20s",
    "InvokeAuthorizationError": "[anthropic] Incorrect API key provided",
    "InvokeServerUnavailableError": "[tongyi] 503 the server is overloaded",
    "InvokeConnectionError": "[ollama] Connection refused: http://host.docker.internal:11434",
    "InvokeBadRequestError": "[deepseek] 400 This model's maximum context length is 65536 tokens",
    "Exception": "unexpected end of stream from the provider",
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("error_type", list(ERROR_TYPES))
def test_each_dify_error_type_of_the_first_model_call_is_named_with_its_message(run, plugin, strategy, error_type):
    result = run([{"error": relayed(error_type, ERROR_TYPES[error_type])}], strategy=strategy)
    audit(plugin, result, answer=False)
    assert error_type in result.error_text and ERROR_TYPES[error_type] in result.error_text
    (thought,) = thought_nodes(result)
    assert thought.status == "error" and ERROR_TYPES[error_type] in thought.error


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("message", ["", "   ", "null", "{}"], ids=["empty", "blank", "null", "empty-object"])
def test_a_model_error_event_with_no_message_still_says_the_model_call_failed(run, plugin, tamper, strategy, message):
    def hook(kind, line, send, handle):
        if kind == "llm" and line["data"]["event"] == "error":
            line["data"]["message"] = message
        send(line)

    tamper(hook)
    result = run([{"error": "x"}], strategy=strategy)
    audit(plugin, result, answer=False)
    assert "model" in result.error_text.lower() and "round 1" in result.error_text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_rate_limit_error_holding_the_tools_secret_after_a_tool_round_keeps_the_result(run, plugin, strategy):
    secret = new_secret("rl")
    turns = [call(strategy, "vault", q="x"), {"text": "Looking", "error": relayed(
        "InvokeRateLimitError", f"429 for key {secret} on request")}]
    result = run(turns, tools=[vault(secret, [text_message("vault says 42"), blob(b"1,2", "v.csv")])],
                 strategy=strategy)
    audit(plugin, result, [secret], answer=False, own={secret: "vault"})
    assert "InvokeRateLimitError" in result.error_text
    assert [f["meta"]["filename"] for f in result.files] == ["v.csv"]
    assert "vault says 42" in observations(result.llm_requests[1])[0]
    (node,) = [n for n in result.logs.values() if n.label == "CALL vault"]
    assert node.status == "success" and "vault says 42" in json.dumps(node.data)


# --- 2. odd chunk shapes, sent as they are (not re-serialised by the daemon) -----------------------------


@pytest.fixture(scope="module")
def raw_plugin():
    with PluginProcess(DEFAULT_PLUGIN_DIR, raw_llm_chunks=True) as process:
        yield process


class RawModel:
    """Each turn a list of chunks sent exactly as written; an ``Exception`` in the list is raised
    there (the daemon's ``error`` event)."""

    def __init__(self, turns: list[list]) -> None:
        self.turns, self.requests = list(turns), []

    def invoke_llm(self, request):
        self.requests.append(request)
        for item in self.turns.pop(0):
            if isinstance(item, Exception):
                raise item
            yield item

    def release(self) -> None:
        pass


def chunk(message=None, usage=None, finish_reason=None, index=0, **extra) -> dict:
    return {"model": "m", "prompt_messages": [], "system_fingerprint": "",
            "delta": {"index": index, "message": message, "usage": usage, "finish_reason": finish_reason, **extra}}


def msg(content=None, tool_calls=()) -> dict:
    return {"role": "assistant", "content": content, "name": None, "tool_calls": list(tool_calls),
            "tool_call_id": None}


def echo_tool() -> ScriptedTool:
    return tool("echo", [text_message("echoed")])


def raw_run(raw_plugin, turns, strategy="function_calling", tools=None, **fields):
    model = RawModel(turns)
    box = ToolBox(tools or [echo_tool()])
    scenario = Scenario(query="hi", tools=list(box.names), strategy=strategy, **fields)
    return run_scenario(scenario, model, box, plugin=raw_plugin, timeout=60), model


def answer_chunk(strategy, text="Done.", index=1):
    return chunk(msg(answer_turn(strategy, text)["text"]), finish_reason="stop", index=index)


USAGE = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15, "prompt_unit_price": "0",
         "prompt_price_unit": "0", "prompt_price": "0", "completion_unit_price": "0",
         "completion_price_unit": "0", "completion_price": "0", "total_price": "0", "currency": "USD",
         "latency": 0.1}

ODD_USAGE = {
    "token counts as strings": {**USAGE, "prompt_tokens": "10", "completion_tokens": "5", "total_tokens": "15"},
    "negative tokens": {**USAGE, "prompt_tokens": -10, "completion_tokens": -5, "total_tokens": -15},
    "token counts missing": {k: v for k, v in USAGE.items() if not k.endswith("tokens")},
    "token counts null": {**USAGE, "prompt_tokens": None, "completion_tokens": None, "total_tokens": None},
    "token counts as words": {**USAGE, "prompt_tokens": "ten", "completion_tokens": [5], "total_tokens": {}},
    "a list": [USAGE],
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", list(ODD_USAGE))
def test_odd_usage_keeps_the_answer(raw_plugin, strategy, kind):
    final = chunk(msg(answer_turn(strategy, "Done.")["text"]), usage=ODD_USAGE[kind], finish_reason="stop")
    result, _ = raw_run(raw_plugin, [[final]], strategy)
    audit(raw_plugin, result)
    assert result.text == "Done."
    metadata = result.execution_metadata or {}
    for field in ("prompt_tokens", "completion_tokens", "total_tokens"):
        assert isinstance(metadata.get(field, 0), int) and metadata.get(field, 0) >= 0, metadata
    if kind == "negative tokens":
        logged = json.dumps([n.data for n in result.logs.values()] + [n.metadata for n in result.logs.values()],
                            default=str)
        assert "'prompt_tokens' cannot be read" in logged


ODD_CALLS = {
    "function null": [{"id": "c1", "type": "function", "function": None}],
    "arguments an object": [{"id": "c1", "type": "function", "function": {"name": "echo", "arguments": {"q": "a"}}}],
    "arguments a number": [{"id": "c1", "type": "function", "function": {"name": "echo", "arguments": 42}}],
    "arguments a list": [{"id": "c1", "type": "function", "function": {"name": "echo", "arguments": ["q", "a"]}}],
    "arguments null": [{"id": "c1", "type": "function", "function": {"name": "echo", "arguments": None}}],
    "name null": [{"id": "c1", "type": "function", "function": {"name": None, "arguments": "{\"q\": \"a\"}"}}],
    "a call that is a string": ["echo({\"q\": \"a\"})"],
    "a call that is null": [None],
}


@pytest.mark.parametrize("kind", list(ODD_CALLS))
def test_odd_tool_call_deltas_run_the_call_or_answer_it_and_the_run_goes_on(raw_plugin, kind):
    first = chunk(msg(None, ODD_CALLS[kind]), finish_reason="tool_calls")
    result, model = raw_run(raw_plugin, [[first], [answer_chunk("function_calling")]])
    audit(raw_plugin, result)
    assert result.text == "Done."
    assert not model.turns, "the model was asked again after the odd call"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_same_text_chunk_twice_is_shown_as_sent_and_the_run_ends(raw_plugin, strategy):
    text = answer_turn(strategy, "Twice")["text"]
    same = chunk(msg(text))
    result, _ = raw_run(raw_plugin, [[same, same, chunk(msg(""), finish_reason="stop")]], strategy)
    audit(raw_plugin, result)
    assert "Twice" in result.text


def test_the_same_whole_call_chunk_twice_runs_it_once(raw_plugin):
    whole = chunk(msg(None, [{"id": "c1", "type": "function", "function": {"name": "echo", "arguments": "{\"q\": \"a\"}"}}]))
    result, _ = raw_run(raw_plugin, [[whole, whole, chunk(msg(""), finish_reason="tool_calls")],
                                     [answer_chunk("function_calling")]])
    audit(raw_plugin, result)
    assert result.text == "Done." and len(result.tool_requests) == 1


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_reply_that_ends_before_any_chunk_is_asked_again(raw_plugin, strategy):
    result, model = raw_run(raw_plugin, [[], [answer_chunk(strategy)]], strategy)
    audit(raw_plugin, result)
    assert result.text == "Done." and len(model.requests) == 2


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("data", ["a chunk as text", ["a", "list"], 7, True], ids=["str", "list", "int", "bool"])
def test_a_chunk_that_is_no_object_is_skipped_or_ends_clearly(raw_plugin, strategy, data):
    result, _ = raw_run(raw_plugin, [[data, answer_chunk(strategy)]], strategy)
    audit(raw_plugin, result, answer=False)
    assert result.text == "Done." or "model" in result.error_text.lower()


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_chunk_without_delta_then_the_answer(raw_plugin, strategy):
    bare = {"model": "m", "prompt_messages": [], "system_fingerprint": ""}
    result, _ = raw_run(raw_plugin, [[bare, answer_chunk(strategy)]], strategy)
    audit(raw_plugin, result)
    assert result.text == "Done."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_error_after_a_whole_call_chunk_runs_nothing_and_says_why(raw_plugin, strategy):
    if strategy == "ReAct":
        first = chunk(msg('Thought: x\nAction: echo\nAction Input: {"q": "a"}'))
    else:
        first = chunk(msg(None, [{"id": "c1", "type": "function",
                                  "function": {"name": "echo", "arguments": "{\"q\": \"a\"}"}}]))
    result, _ = raw_run(raw_plugin, [[first, RuntimeError(relayed("InvokeConnectionError", "reset by peer"))]],
                        strategy)
    audit(raw_plugin, result, answer=False)
    assert "InvokeConnectionError" in result.error_text and "reset by peer" in result.error_text
    assert result.tool_requests == []


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_model_silent_a_while_then_answering_is_waited_for(run, plugin, strategy):
    result = run([{"delay": 1.5, **answer_turn(strategy, "After a pause.")}], strategy=strategy)
    audit(plugin, result)
    assert result.text == "After a pause."


# --- 3. a tool's reply stream in odd shapes ---------------------------------------------------------------

TOOL_STREAMS = {
    "a blob without meta": [text_message("before"), {"type": "blob", "message": {
        "blob": base64.b64encode(b"raw bytes").decode()}, "meta": None}, text_message("after")],
    "a file message without url": [text_message("before"), {
        "type": "file", "message": {"file_marker": "file_marker"}, "meta": {"file": {"filename": "a.txt"}}},
        text_message("after")],
    "a file message without meta": [text_message("before"), {
        "type": "file", "message": {"file_marker": "file_marker"}, "meta": None}, text_message("after")],
    "a variable named with a megabyte": [text_message("before"), {
        "type": "variable", "message": {"variable_name": "v" * MB, "variable_value": "x", "stream": False},
        "meta": None}, text_message("after")],
    "the tool's own log left in start": [text_message("before"), {
        "type": "log", "message": {"id": "inner-1", "label": "inner step", "parent_id": None, "error": None,
                                   "status": "start", "data": {"k": "v"}, "metadata": None}, "meta": None},
        text_message("after")],
    "citations": [text_message("before"), {
        "type": "retriever_resources", "message": {"retriever_resources": [
            {"position": 1, "dataset_name": "kb", "document_name": "d.md", "content": "cited", "score": 0.9}],
            "context": "cited context"}, "meta": None}, text_message("after")],
    "a link without text": [text_message("before"), {"type": "link", "message": {"text": None}, "meta": None},
                            text_message("after")],
    "an image link to nothing": [text_message("before"), {"type": "image_link", "message": {"text": ""},
                                                          "meta": None}, text_message("after")],
    "json of a string": [text_message("before"), {"type": "json", "message": {"json_object": "just text"},
                                                  "meta": None}, text_message("after")],
    "a blob chunk never ended then text": [text_message("before"), {
        "type": "blob_chunk", "meta": {"filename": "p.txt", "mime_type": "text/plain"},
        "message": {"id": "f9", "sequence": 0, "total_length": 10, "blob": base64.b64encode(b"12345").decode(),
                    "end": False}}, text_message("after")],
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", list(TOOL_STREAMS))
def test_odd_tool_stream_items_keep_the_rest_and_every_log_ends(run, plugin, strategy, kind):
    result = run([call(strategy, "odd", q="a"), answer_turn(strategy, "Done.")],
                 tools=[tool("odd", TOOL_STREAMS[kind])], strategy=strategy)
    audit(plugin, result)
    assert result.text == "Done."
    seen = observations(result.llm_requests[1])[0]
    assert "before" in seen and "after" in seen
    assert "v" * 1000 not in seen
    (node,) = [n for n in result.logs.values() if n.label == "CALL odd"]
    assert node.status == "success"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_tool_error_after_two_files_and_text_keeps_all_three(run, plugin, strategy):
    sent = [text_message("part one"), blob(b"a", "a.txt"), blob(b"b", "b.txt")]
    result = run([call(strategy, "mk", q="a"), answer_turn(strategy, "Done.")],
                 tools=[tool("mk", sent, error="quota exceeded while writing c.txt")], strategy=strategy)
    audit(plugin, result)
    assert [f["meta"]["filename"] for f in result.files] == ["a.txt", "b.txt"]
    seen = observations(result.llm_requests[1])[0]
    assert "part one" in seen and "quota exceeded" in seen and "a.txt" in seen and "b.txt" in seen


# --- 4. failures at the special points of a run ---------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_forced_answer_at_the_iteration_limit_failing_keeps_the_result_and_says_why(run, plugin, strategy):
    turns = [call(strategy, "mk", q="a"), {"error": relayed("InvokeRateLimitError", "429 slow down")}]
    result = run(turns, tools=[tool("mk", [text_message("made it"), blob(b"x", "x.txt")])], strategy=strategy,
                 maximum_iterations=1)
    audit(plugin, result, answer=False)
    assert "InvokeRateLimitError" in result.error_text and "429 slow down" in result.error_text
    assert [f["meta"]["filename"] for f in result.files] == ["x.txt"]
    assert "ITERATION LIMIT" in labels(result)
    assert "made it" in prompt_text(result.llm_requests[1])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_time_limit_answer_failing_keeps_the_result_and_says_why(run, plugin, strategy):
    turns = [call(strategy, "slow", q="a"), {"error": relayed("InvokeServerUnavailableError", "503 overloaded")}]
    result = run(turns, tools=[tool("slow", [text_message("slow result"), blob(b"s", "s.txt")], latency=3.5)],
                 strategy=strategy, maximum_iterations=10, params={"run_timeout": 10})
    audit(plugin, result, answer=False)
    assert "InvokeServerUnavailableError" in result.error_text and "503 overloaded" in result.error_text
    assert [f["meta"]["filename"] for f in result.files] == ["s.txt"]
    assert "TIME LIMIT" in labels(result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_continuation_of_a_cut_answer_failing_with_a_rate_limit_keeps_the_start(run, plugin, strategy):
    start = answer_turn(strategy, "The first part of a long answer")["text"]
    turns = [{"text": start, "finish_reason": "length"}, {"error": relayed("InvokeRateLimitError", "429 later")}]
    result = run(turns, strategy=strategy)
    audit(plugin, result, answer=False)
    assert "The first part of a long answer" in result.text
    assert "InvokeRateLimitError" in (result.error_text or result.text) or "429" in (result.error_text or "")


# --- 5. six parallel calls, the fifth failing -------------------------------------------------------------


def six_tools(fifth: ScriptedTool) -> list[ScriptedTool]:
    tools = [tool(f"t{n}", [text_message(f"result {n}"), blob(f"f{n}".encode(), f"f{n}.txt")], latency=0.05 * n)
             for n in range(6) if n != 4]
    tools.insert(4, fifth)
    return tools


FIFTHS = {
    "raises": lambda: tool("t4", [], error="InvokeServerUnavailableError: backend down"),
    "raises after a file": lambda: tool("t4", [text_message("result 4"), blob(b"f4", "f4.txt")],
                                        error="ConnectionResetError: peer reset"),
    "raises with a traceback": lambda: tool("t4", [blob(b"f4", "f4.txt")], error=(
        "Traceback (most recent call last):\n  File \"/app/tool.py\", line 9, in _invoke\n"
        "    raise ValueError('bad')\nValueError: bad")),
    "raises a megabyte": lambda: tool("t4", [blob(b"f4", "f4.txt")], error="E" * MB),
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("fifth", list(FIFTHS))
def test_the_fifth_of_six_parallel_calls_failing_loses_none_of_the_others(run, plugin, strategy, fifth):
    tools = six_tools(FIFTHS[fifth]())
    turn = calls(strategy, [(t.name, {"q": str(n)}) for n, t in enumerate(tools)])
    result = run([turn, answer_turn(strategy, "Done.")], tools=tools, strategy=strategy)
    audit(plugin, result)
    made = [f["meta"]["filename"] for f in result.files]
    expected = [f"f{n}.txt" for n in range(6) if n != 4 or fifth != "raises"]
    assert made == expected
    seen = observations(result.llm_requests[1])
    joined = "\n".join(seen)
    for n in range(6):
        if n != 4:
            assert f"result {n}" in joined and f"f{n}.txt" in joined
    assert len(joined) < 200_000
    nodes = {n.label: n for n in result.logs.values() if n.label.startswith("CALL ")}
    assert nodes["CALL t4"].status == "error"
    assert all(nodes[f"CALL t{n}"].status == "success" for n in range(6) if n != 4)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_fifth_of_six_calls_to_an_unknown_tool_runs_the_five_others(run, plugin, strategy):
    tools = [tool(f"t{n}", [text_message(f"result {n}"), blob(f"f{n}".encode(), f"f{n}.txt")]) for n in range(5)]
    names = ["t0", "t1", "t2", "t3", "ghost", "t4"]
    turn = calls(strategy, [(name, {"q": name}) for name in names])
    result = run([turn, answer_turn(strategy, "Done.")], tools=tools, strategy=strategy)
    audit(plugin, result)
    assert [f["meta"]["filename"] for f in result.files] == [f"f{n}.txt" for n in range(5)]
    joined = "\n".join(observations(result.llm_requests[1]))
    assert "ghost" in joined and all(f"result {n}" in joined for n in range(5))


# --- 6. a session failing beside another one's tool call ------------------------------------------------


def test_a_model_error_landing_while_another_sessions_tool_runs_leaves_that_session_whole(plugin):
    secret = new_secret("nb")
    jobs = {}

    def slow_session():
        runner = ScriptedRun(plugin)
        jobs["slow"] = runner
        return runner([call("function_calling", "vault", q="a"), {"text": "slow done"}],
                      tools=[vault(secret, [text_message("vault ok"), blob(b"v", "v.txt")], latency=1.0)])

    def failing_session():
        time.sleep(0.4)
        runner = ScriptedRun(plugin)
        return runner([{"text": "par", "error": relayed("InvokeAuthorizationError", f"bad key {secret}")}],
                      tools=[vault(secret, [])], strategy="ReAct")

    results = together({"slow": slow_session, "failing": failing_session})
    audit(plugin, results["slow"], [secret], own={secret: "vault"})
    assert results["slow"].text == "slow done"
    assert [f["meta"]["filename"] for f in results["slow"].files] == ["v.txt"]
    audit(plugin, results["failing"], [secret], answer=False, own={secret: "vault"})
    assert "InvokeAuthorizationError" in results["failing"].error_text
    assert core(secret) not in results["failing"].error_text


def test_an_error_for_an_unknown_backwards_request_beside_a_run_is_ignored(plugin, tamper):
    stray = threading.Event()

    def hook(kind, line, send, handle):
        if kind == "tool" and not stray.is_set():
            stray.set()
            send({**line, "data": {**line["data"], "backwards_request_id": "no-such-request",
                                   "event": "error", "message": "stray failure"}})
        send(line)

    tamper(hook)
    runner = ScriptedRun(plugin)
    result = runner([call("function_calling", "mk", q="a"), {"text": "Done."}],
                    tools=[tool("mk", [text_message("made")])])
    audit(plugin, result)
    assert result.text == "Done." and "made" in observations(result.llm_requests[1])[0]
