"""Blind pass, wave 39: the daemon protocol itself, driven sideways, through the real plugin process.

Cases written from the protocol description alone (README, docs/transports.md,
docs/protocol-notes.md), before reading the existing tests; those the transport, session and
daemon tests already cover were dropped (a daemon restarting mid-session over TCP, a whole reply
delivered twice, replies for stale or unknown request ids, data that is no object, heartbeats
while waiting, stdin closed, hundreds of sessions leaving the process no bigger, routing faults,
unknown envelope keys on the request line). What is left:

- the envelope as a newer daemon or an older Dify may write it: the conversation, app and
  message ids null or missing, an empty user id, every ``context`` variant, unknown keys on the
  backwards reply lines at every level;
- model chunks with unknown fields at every level, numbers written as strings, a null tool-call
  list, a usage missing fields;
- a backwards reply for the session written before the plugin asked for anything;
- tool replies of two parallel calls interleaved line by line with a third, unknown call's;
- a model call answered with ``error`` in every shape the daemon and Dify use (plain words, the
  SDK's error object, one nested in another, empty, data holding the object, no ``end`` after it);
  a tool call answered the same way;
- a session id used again after its session ended;
- 50 short sessions back to back on one process: the last as quick as the first;
- a request and replies written over TCP in pieces of a few bytes;
- serverless: a request body sent chunked, two requests on one keep-alive connection;
- SIGTERM during a run, and the daemon closing its end of stdout.

Faults found (fixed in ``agent_core/sdk_speedups.py``): a request whose ``context`` held
``"credentials": null`` (Dify's ``PluginInvokeContext.credentials`` is optional) or a null
``tool_credentials`` failed before any step with the SDK's ``ValidationError``, quoting the input; a
request under the id of a session that had ended was refused with a session-less error alone, and
the daemon's session waited for an ``end`` until its own time limit; stdout closed by the daemon
left the process running for ever, a traceback on stderr at every heartbeat.

Every run ends within a bound, with its answer or a clear error, no log node left in ``start``,
and the sessions beside it unaffected.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import time
import uuid

import pytest

from local_runner import PluginProcess, Scenario, ScriptedBackend, default_toolbox
from local_runner import daemon as daemon_module
from local_runner.daemon import DEFAULT_PLUGIN_DIR, plugin_command
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end, call_turn, observations, tool_named

BOUND = 20.0
"""Seconds any run of this module may take: a case that hangs fails instead of waiting 60 s."""


def patch_request(monkeypatch, connection_type, change):
    """Every request line the runner sends on ``connection_type`` goes through ``change(line)`` first."""
    original = connection_type._send_request

    def send_request(self, line):
        change(line)
        original(self, line)

    monkeypatch.setattr(connection_type, "_send_request", send_request)


def map_lines(kinds, change):
    """A ``tamper`` hook: each backwards reply line of an invocation of a kind in ``kinds`` is sent
    as ``change(line)`` (a new line, or None to drop it)."""

    def hook(kind, line, send, handle):
        if kind in kinds:
            line = change(json.loads(json.dumps(line)))
            if line is None:
                return
        send(line)

    return hook


# --- the envelope ----------------------------------------------------------------------------------

def _ids(value):
    def change(line):
        for key in ("conversation_id", "app_id", "message_id", "endpoint_id"):
            if value == "missing":
                line.pop(key, None)
            else:
                line[key] = value
    return change


ENVELOPES = {
    "ids null": _ids(None),
    "ids missing": _ids("missing"),
    "ids empty": _ids(""),
    "an empty user id": lambda line: line["data"].update(user_id=""),
}


@pytest.mark.parametrize("envelope", list(ENVELOPES))
def test_a_request_whose_ids_are_null_missing_or_empty_runs_its_tools(run, monkeypatch, tamper, envelope):
    """A run started outside a conversation (a workflow), by a service account, or by an older Dify
    carries no conversation, app or message id: the run still calls its tool and answers. The reply
    lines carry the same envelope."""
    change = ENVELOPES[envelope]
    patch_request(monkeypatch, PluginProcess, change)

    def reply_change(line):
        if envelope != "an empty user id":
            change(line)
        return line

    tamper(map_lines({"llm", "tool"}, reply_change))
    result = run([call_turn("function_calling", "current_time", {}), {"text": "It is noon."}],
                 tools=["current_time"], timeout=BOUND)
    assert_clean_end(result)
    assert result.text == "It is noon."
    assert len(run.toolbox.calls) == 1


CONTEXTS = {
    "empty": {},
    "null": None,
    "missing": "missing",
    "credentials null": {"credentials": None},
    "tool credentials null": {"credentials": {"tool_credentials": None}},
    "unknown keys": {"credentials": {"tool_credentials": {}, "other": 1}, "trace": {"id": "t"}, "locale": "en"},
}


@pytest.mark.parametrize("context", list(CONTEXTS))
def test_every_context_variant_lets_the_tool_call_through(run, monkeypatch, context):
    """The envelope's ``context`` (the tool credentials) as different daemons write it: the tool is
    still called, and the run answers."""
    value = CONTEXTS[context]

    def change(line):
        if value == "missing":
            line.pop("context", None)
        else:
            line["context"] = value

    patch_request(monkeypatch, PluginProcess, change)
    result = run([call_turn("function_calling", "current_time", {}), {"text": "It is noon."}],
                 tools=["current_time"], timeout=BOUND)
    assert_clean_end(result)
    assert result.text == "It is noon."
    assert len(run.toolbox.calls) == 1


@pytest.mark.parametrize("transport", ["tcp", "serverless"])
def test_a_context_of_null_credentials_runs_the_tool_over_tcp_and_serverless(request, monkeypatch, transport):
    """Dify's context of optional credentials sent as null, on the other two transports: the tool
    is called (with the node's own credential id for it) and the run answers."""
    connection = request.getfixturevalue({"tcp": "remote", "serverless": "serverless"}[transport])
    patch_request(monkeypatch, type(connection), lambda line: line.update(context={"credentials": None}))
    backend, toolbox = ScriptedBackend([call_turn("function_calling", "current_time", {}),
                                        {"text": "It is noon."}]), default_toolbox()
    scenario = Scenario(query="time?", tools=["current_time"])
    result = connection.run(scenario.run_request(toolbox, connection.plugin_dir, None), backend, toolbox,
                            timeout=BOUND)
    assert_clean_end(result)
    assert result.text == "It is noon."
    assert len(toolbox.calls) == 1


def _extra_keys_everywhere(line):
    line["trace_id"] = "t-9"
    line["data"]["sequence"] = 3
    line["data"]["extra"] = {"nested": [1]}
    chunk = line["data"].get("data")
    if isinstance(chunk, dict) and "delta" in chunk:
        chunk["id"] = "chatcmpl-1"
        chunk["created"] = 1
        chunk["delta"]["logprobs"] = None
        chunk["delta"]["message"]["refusal"] = None
        chunk["delta"]["message"]["annotations"] = []
        for call in chunk["delta"]["message"]["tool_calls"]:
            call["index"] = 0
            call["function"]["strict"] = True
        if chunk["delta"].get("usage"):
            chunk["delta"]["usage"]["cached_tokens"] = 5
            chunk["delta"]["usage"]["reasoning_tokens"] = 2
    elif isinstance(chunk, dict):
        chunk["extra"] = {"x": 1}
    return line


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_unknown_keys_at_every_level_of_the_reply_lines_change_nothing(run, tamper, strategy):
    """A newer daemon or model plugin adds fields to the reply lines, their items, the chunk, its
    delta, its message, its tool calls and its usage: the run is the same."""
    tamper(map_lines({"llm", "tool"}, _extra_keys_everywhere))
    result = run([call_turn(strategy, "current_time", {}), answer_turn(strategy, "It is noon.")],
                 tools=["current_time"], strategy=strategy, timeout=BOUND)
    assert_clean_end(result)
    assert result.text == "It is noon."
    assert len(run.toolbox.calls) == 1
    assert len(observations(run.backend.requests[1])) == 1


def _numbers_as_text(line):
    chunk = line["data"].get("data")
    if isinstance(chunk, dict) and "delta" in chunk:
        chunk["delta"]["index"] = str(chunk["delta"]["index"])
        usage = chunk["delta"].get("usage")
        if usage:
            for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
                usage[key] = str(usage[key])
            usage["latency"] = str(usage["latency"])
    return line


def test_numbers_written_as_text_in_a_model_reply_are_read(run, tamper):
    """Token counts, the chunk index and the latency as JSON strings (a proxy re-serialising the
    daemon's decimals): the answer and its usage reach the user."""
    tamper(map_lines({"llm"}, _numbers_as_text))
    result = run([{"text": "Forty-two.", "split": 3, "usage": {"prompt_tokens": 11, "completion_tokens": 4}}],
                 timeout=BOUND)
    assert_clean_end(result)
    assert result.text == "Forty-two."
    assert (result.execution_metadata or {}).get("total_tokens") == 15, result.execution_metadata


ODD_CHUNKS = {
    "tool calls null": lambda chunk: chunk["delta"]["message"].update(tool_calls=None),
    "no tool calls key": lambda chunk: chunk["delta"]["message"].pop("tool_calls"),
    "usage missing fields": lambda chunk: chunk["delta"].get("usage") and chunk["delta"].update(
        usage={"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}),
    "content null in the last chunk": lambda chunk: chunk["delta"]["message"]["content"] == "" and chunk[
        "delta"]["message"].update(content=None),
    "finish reason of another provider": lambda chunk: chunk["delta"].update(finish_reason="end_turn"),
    "role missing": lambda chunk: chunk["delta"]["message"].pop("role"),
    "role null": lambda chunk: chunk["delta"]["message"].update(role=None),
    "the prompt echoed": lambda chunk: chunk.update(prompt_messages=[{"role": "user", "content": "hi"}]),
    "no index, no model": lambda chunk: (chunk["delta"].pop("index"), chunk.pop("model")),
    "message struct": lambda chunk: None,
}


@pytest.mark.parametrize("odd", list(ODD_CHUNKS))
def test_a_model_reply_of_odd_chunks_ends_in_time_with_its_logs_closed(run, tamper, odd):
    """Chunks the SDK's model may or may not take (a null tool-call list from a daemon's nil
    slice, a usage of three fields): each is read, and the run ends in time with the answer, in
    one request, its logs closed."""

    def change(line):
        chunk = line["data"].get("data")
        if isinstance(chunk, dict) and "delta" in chunk:
            ODD_CHUNKS[odd](chunk)
        if odd == "message struct" and line["data"]["event"] == "response":
            line["data"]["message"] = "struct"
        return line

    tamper(map_lines({"llm"}, change))
    started = time.monotonic()
    result = run([{"text": "Plain answer.", "split": 4}] * 3, timeout=BOUND)
    assert time.monotonic() - started < 15
    assert result.done
    assert result.unfinished_logs() == [], [n.label for n in result.unfinished_logs()]
    assert result.ok, result.error_text
    assert result.text == "Plain answer.", result.text
    assert len(result.llm_requests) == 1


# --- replies before, between, beside ----------------------------------------------------------------

def test_a_reply_written_before_the_plugin_asked_anything_is_ignored(run, monkeypatch):
    """A daemon's replay (or a bug) writes model reply lines for the session right after its
    request, before any invocation: they reach no model call; the run's own reply is read alone."""
    original = PluginProcess._send_request

    def send_request(self, line):
        original(self, line)
        envelope = daemon_module.protocol.SessionEnvelope(session_id=line["session_id"])
        for request_id in (uuid.uuid4().hex, "", "0"):
            chunk = daemon_module.protocol.daemon_chunk(
                {"delta": {"message": {"content": "PRESENT-"}, "index": 0}})
            self.send(daemon_module.protocol.backwards_response(envelope, request_id, "response", message="stream",
                                                                data=chunk))
            self.send(daemon_module.protocol.backwards_response(envelope, request_id, "end"))

    monkeypatch.setattr(PluginProcess, "_send_request", send_request)
    result = run([{"delay": 0.3, "text": "Own answer."}], timeout=BOUND)
    assert_clean_end(result)
    assert result.text == "Own answer."


def test_two_parallel_tool_replies_interleaved_with_a_third_unknown_call(run, tamper):
    """Two tool calls of one round stream at once, line by line; between their lines come lines
    for a call id the plugin never made (text, an error, an end). Each call gets its own result,
    nothing of the third reaches the model."""
    def hook(kind, line, send, handle):
        if kind == "tool":
            stray = json.loads(json.dumps(line))
            stray["data"]["backwards_request_id"] = "f" * 32
            if stray["data"]["event"] == "response":
                stray["data"]["data"] = {"type": "text", "message": {"text": "THIRD-CALL"}, "meta": None}
            send(stray)
            if line["data"]["event"] == "end":
                send(dict(stray, data=dict(stray["data"], event="error", message="THIRD-FAILED")))
        send(line)

    tamper(hook)
    alpha = tool_named("alpha", [{"type": "text", "message": {"text": f"alpha {n} "}, "meta": None}
                                 for n in range(6)], latency=0.2)
    beta = tool_named("beta", [{"type": "text", "message": {"text": f"beta {n} "}, "meta": None}
                               for n in range(6)], latency=0.2)
    turns = [{"tool_calls": [{"id": "call_a", "name": "alpha", "arguments": {}},
                             {"id": "call_b", "name": "beta", "arguments": {}}]},
             {"text": "Both done."}]
    result = run(turns, tools=[alpha, beta], timeout=BOUND)
    assert_clean_end(result)
    messages = [(m.get("tool_call_id"), m["content"]) for m in run.backend.requests[1]["prompt_messages"]
                if m["role"] == "tool"]
    assert [call_id for call_id, _ in messages] == ["call_a", "call_b"]
    text = json.dumps(run.backend.requests[1]["prompt_messages"])
    assert "THIRD" not in text
    assert "alpha" in messages[0][1] and "beta" not in messages[0][1]
    assert "beta" in messages[1][1] and "alpha" not in messages[1][1]


# --- errors in every shape -------------------------------------------------------------------------

_OBJECT = {"error_type": "InvokeRateLimitError", "message": "rate limited by the provider",
           "args": {"description": "rate limited by the provider", "traceback": "Traceback (most recent call "
                    "last):\n  File \"/app/x.py\", line 1, in f\nInvokeRateLimitError: rate limited"}}

ERROR_SHAPES = {
    "plain words": ({"message": "invoke llm model failed: rate limited by the provider"},
                    "rate limited by the provider"),
    "the SDK's error object": ({"message": json.dumps(_OBJECT)}, "rate limited by the provider"),
    "an object inside the daemon's": ({"message": "invoke llm model failed: " + json.dumps(
        {"error_type": "PluginInvokeError", "message": json.dumps(_OBJECT), "args": {}})},
        "rate limited by the provider"),
    "empty message": ({"message": ""}, None),
    "message null": ({"message": None}, None),
    "object as data, empty message": ({"message": "", "data": _OBJECT}, None),
}


@pytest.mark.parametrize("with_end", [True, False], ids=["then end", "no end"])
@pytest.mark.parametrize("shape", list(ERROR_SHAPES))
def test_a_model_call_answered_with_an_error_of_any_shape_ends_the_run_clearly(run, tamper, shape, with_end):
    """The daemon answers the model call with ``error`` (its words, Dify's error object, a model
    plugin's inside Dify's, nothing at all), with or without an ``end`` after it: the run ends at
    once with an error the user can read (the provider's words when there are any, never a
    traceback or ``args``), its logs closed, and the process serves the next run."""
    fields, words = ERROR_SHAPES[shape]

    def change(line):
        if line["data"]["event"] == "response":
            return None
        if line["data"]["event"] == "end":
            if not with_end:
                return None
            return line
        return line

    tampering = [True]

    def hook(kind, line, send, handle):
        if not tampering[0]:
            send(line)
            return
        if kind == "llm" and line["data"]["event"] == "response":
            error = json.loads(json.dumps(line))
            error["data"].update(event="error", data=None, **fields)
            send(error)
            return
        changed = change(json.loads(json.dumps(line))) if kind == "llm" else line
        if changed is not None:
            send(changed)

    tamper(hook)
    started = time.monotonic()
    result = run([{"text": "never shown", "split": 100}], timeout=BOUND)
    assert time.monotonic() - started < 10
    assert not result.ok
    assert result.error_text
    assert "Traceback" not in result.error_text and '"args"' not in result.error_text, result.error_text
    if words:
        assert words in result.error_text, result.error_text
    assert result.unfinished_logs() == [], [n.label for n in result.unfinished_logs()]
    tampering[0] = False
    after = run([{"text": "Still here."}], timeout=BOUND)
    assert_clean_end(after)


@pytest.mark.parametrize("shape", list(ERROR_SHAPES))
def test_a_tool_call_answered_with_an_error_of_any_shape_is_an_observation(run, tamper, shape):
    """The tool call is answered with ``error`` in the same shapes: the model reads that the tool
    failed (in the provider's words when there are any), and the run answers."""
    fields, words = ERROR_SHAPES[shape]

    def hook(kind, line, send, handle):
        if kind == "tool" and line["data"]["event"] == "response":
            error = json.loads(json.dumps(line))
            error["data"].update(event="error", data=None, **fields)
            send(error)
            return
        send(line)

    tamper(hook)
    result = run([call_turn("function_calling", "current_time", {}), {"text": "The clock failed."}],
                 tools=["current_time"], timeout=BOUND)
    assert_clean_end(result)
    assert result.text == "The clock failed."
    seen = observations(run.backend.requests[1])
    assert len(seen) == 1
    assert "Traceback" not in seen[0] and '"args"' not in seen[0], seen[0]
    if words:
        assert words in seen[0], seen[0]


# --- sessions --------------------------------------------------------------------------------------

@pytest.mark.parametrize("transport", ["stdio", "tcp"])
def test_a_session_id_used_again_after_its_session_ended_is_refused_in_its_own_session(
        request, monkeypatch, transport):
    """A daemon that restarts its session counter (or a harness replaying a recording) sends a new
    request under the id of a session that already ended. The plugin runs each session's request
    once (a replay must not call the tools again), and refused this one with a session-less error
    alone: the daemon's session waited for an ``end`` until its own time limit. Now the session
    ends at once with an error saying why; no tool runs again, and the next run is unaffected."""
    connection = request.getfixturevalue("plugin" if transport == "stdio" else "remote")
    session_id = str(uuid.uuid4())

    class Ids:
        @staticmethod
        def uuid4():
            return session_id

    def play(text):
        backend = ScriptedBackend([call_turn("function_calling", "current_time", {}), {"text": text}])
        toolbox = default_toolbox()
        scenario = Scenario(query="time?", tools=["current_time"])
        result = connection.run(scenario.run_request(toolbox, connection.plugin_dir, None), backend, toolbox,
                                timeout=BOUND)
        return result, toolbox

    monkeypatch.setattr(daemon_module, "uuid", Ids)
    first, toolbox = play("First.")
    assert_clean_end(first)
    assert len(toolbox.calls) == 1
    started = time.monotonic()
    second, toolbox = play("Second.")
    assert time.monotonic() - started < 5, second.error_text
    assert not second.ok
    assert "second request for session" in second.error_text, second.error_text
    assert second.unfinished_logs() == []
    assert toolbox.calls == [], "the replay calls no tool"
    monkeypatch.undo()
    third, _ = play("Third.")
    assert_clean_end(third)
    assert third.text == "Third."


def test_fifty_short_sessions_back_to_back_keep_their_pace(run):
    """50 sessions (a tool call and an answer each) one after another on one process: the last ten
    take no longer than the first ten, give or take (nothing grows per session: no waiting
    greenlet, no list of finished sessions scanned per line)."""
    took = []
    for n in range(50):
        started = time.monotonic()
        result = run([call_turn("function_calling", "current_time", {}), {"text": f"Done {n}."}],
                     tools=["current_time"], timeout=BOUND)
        took.append(time.monotonic() - started)
        assert_clean_end(result)
        assert result.text == f"Done {n}."
    first, last = sorted(took[:10])[5], sorted(took[-10:])[5]
    assert last < first * 2 + 0.1, (first, last)


# --- TCP in pieces ---------------------------------------------------------------------------------

def test_lines_written_over_tcp_in_pieces_of_a_few_bytes_are_read_whole(remote, monkeypatch):
    """The daemon's writes reach the plugin in TCP segments of any size: a request and replies cut
    into 7-byte pieces, a pause between them, still make one line each."""
    original = type(remote)._write

    def write(self, data):
        for start in range(0, len(data), 7):
            original(self, data[start:start + 7])
            if start % 700 == 0:
                time.sleep(0.001)

    monkeypatch.setattr(type(remote), "_write", write)
    backend, toolbox = ScriptedBackend([call_turn("function_calling", "current_time", {}),
                                        {"text": "It is noon.", "split": 2}]), default_toolbox()
    scenario = Scenario(query="time?", tools=["current_time"])
    result = remote.run(scenario.run_request(toolbox, remote.plugin_dir, None), backend, toolbox, timeout=BOUND)
    assert_clean_end(result)
    assert result.text == "It is noon."
    assert len(toolbox.calls) == 1


# --- serverless HTTP -------------------------------------------------------------------------------

def _serverless_run(serverless, monkeypatch, post):
    """Run one session on ``serverless`` with ``post(connection, body) -> response`` doing the
    ``/invoke`` request; returns the result."""
    from local_runner import serverless as serverless_module

    def invoke(self, line):
        session_id = str(line["session_id"])
        connection = http.client.HTTPConnection(self.host, int(self.port), timeout=BOUND)
        try:
            response = post(connection, daemon_module.protocol.encode_line(line))
            assert response.status == 200, response.status
            for raw in iter(response.readline, b""):
                decoded = daemon_module.protocol.decode_line(raw)
                if isinstance(decoded, dict):
                    self._record("from_plugin", decoded)
                    self._dispatch(decoded)
        except (OSError, http.client.HTTPException, AssertionError) as exc:
            self._fail(session_id, f"POST /invoke failed: {exc!r}")
        finally:
            connection.close()

    monkeypatch.setattr(serverless_module.ServerlessPlugin, "_invoke", invoke)
    backend, toolbox = ScriptedBackend([call_turn("function_calling", "current_time", {}),
                                        {"text": "It is noon."}]), default_toolbox()
    scenario = Scenario(query="time?", tools=["current_time"])
    return serverless.run(scenario.run_request(toolbox, serverless.plugin_dir, None), backend, toolbox,
                          timeout=BOUND)


def test_a_serverless_request_body_sent_chunked_runs(serverless, monkeypatch):
    """A proxy in front of the function may forward the request body chunked (no
    ``Content-Length``): the plugin reads it whole and runs the session."""

    def post(connection, body):
        connection.putrequest("POST", "/invoke")
        connection.putheader("Content-Type", "application/json")
        connection.putheader("Transfer-Encoding", "chunked")
        connection.endheaders()
        for start in range(0, len(body), 100):
            piece = body[start:start + 100]
            connection.send(b"%x\r\n%s\r\n" % (len(piece), piece))
        connection.send(b"0\r\n\r\n")
        return connection.getresponse()

    result = _serverless_run(serverless, monkeypatch, post)
    assert_clean_end(result)
    assert result.text == "It is noon."


def test_two_serverless_requests_on_one_keep_alive_connection_both_run(serverless):
    """The daemon's HTTP client reuses connections: a second ``/invoke`` on the connection that
    carried the first (after its stream ended) runs as well. Both are requests the plugin routes
    (an unknown action ends at once with an error), so no model is needed."""
    connection = http.client.HTTPConnection(serverless.host, int(serverless.port), timeout=BOUND)
    try:
        for n in range(2):
            line = daemon_module.protocol.agent_request(
                daemon_module.protocol.SessionEnvelope(session_id=str(uuid.uuid4())),
                strategy="function_calling", params={})
            line["data"]["action"] = "invoke_something_else"
            connection.request("POST", "/invoke", body=daemon_module.protocol.encode_line(line),
                               headers={"Content-Type": "application/json"})
            response = connection.getresponse()
            assert response.status == 200, (n, response.status)
            lines = [json.loads(raw) for raw in response.read().splitlines() if raw.strip()]
            kinds = [item["data"]["type"] for item in lines if item.get("event") == "session"]
            assert kinds[-1] == "end", (n, kinds)
            assert "error" in kinds, (n, kinds)
    finally:
        connection.close()


# --- signals and a closed stdout ---------------------------------------------------------------------

def _started_plugin(**env):
    """The plugin started as the daemon starts it, our own pipes, its first heartbeat read."""
    process = subprocess.Popen(
        plugin_command(DEFAULT_PLUGIN_DIR), cwd=DEFAULT_PLUGIN_DIR, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env=daemon_module.plugin_env(os.environ, dict(env)))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        raw = process.stdout.readline()
        if not raw:
            break
        if b'"heartbeat"' in raw:
            return process
    process.kill()
    raise AssertionError("the plugin sent no heartbeat")


def _exited_within(process, seconds):
    try:
        process.wait(timeout=seconds)
        return True
    except subprocess.TimeoutExpired:
        return False


def test_sigterm_during_a_run_ends_the_process_promptly_without_a_traceback():
    """The daemon stops a plugin (an upgrade, a scale-down) with SIGTERM while a session waits for
    its model: the process is gone within seconds and writes no traceback to stderr."""
    process = _started_plugin()
    try:
        line = daemon_module.protocol.agent_request(
            daemon_module.protocol.SessionEnvelope(session_id=str(uuid.uuid4())),
            strategy="function_calling", params=Scenario(query="hi").agent_params(default_toolbox(), None))
        process.stdin.write(daemon_module.protocol.encode_line(line))
        process.stdin.flush()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            raw = process.stdout.readline()
            if b'"invoke"' in raw:
                break
        else:
            raise AssertionError("the model was never asked")
        process.send_signal(signal.SIGTERM)
        assert _exited_within(process, 5), "still running 5 s after SIGTERM"
        stderr = process.stderr.read().decode("utf-8", "replace")
        assert "Traceback" not in stderr, stderr[-2000:]
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_stdout_closed_by_the_daemon_ends_the_process_without_spinning():
    """The daemon's reader goes away (its end of the pipe closed) while stdin stays open: the
    plugin's next write (a heartbeat, every 0.5 s here) fails; the process must end, not write
    into a broken pipe forever nor spin."""
    process = _started_plugin(HEARTBEAT_INTERVAL="0.5")
    try:
        process.stdout.close()
        if not _exited_within(process, 10):
            with open(f"/proc/{process.pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            ticks = int(fields[11]) + int(fields[12])
            pytest.fail(f"still running 10 s after stdout closed ({ticks / os.sysconf('SC_CLK_TCK'):.1f} s CPU)")
        stderr = process.stderr.read().decode("utf-8", "replace")
        assert "Traceback" not in stderr, stderr[-2000:]
        assert "closed the plugin's stdout" in stderr, stderr[-2000:]
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()

