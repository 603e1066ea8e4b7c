"""Blind pass, wave 38: the daemon protocol itself, driven as an independent harness would drive
the plugin, through the real plugin process.

Cases written from the protocol description alone (README, docs/transports.md,
docs/protocol-notes.md), before reading the existing tests; those the transport, session and
daemon tests already cover were dropped (a request sent twice, a line that is not UTF-8 or not
JSON, stdin closed mid-run, a reply for an unknown session over TCP, a wrong debug key, a
serverless client gone, a model never answering, 20 sessions with some failing, an error event
for an unknown backwards request, a 6 MB request line). What is left:

- request lines as a harness may write them: trailing spaces, CRLF, leading blanks, a UTF-8 BOM,
  blank lines between lines, unknown keys in the envelope, in ``data`` and in the parameters;
- a request the plugin cannot route (unknown strategy or provider, another type or action, no
  type, parameters or data that are no object): the session ends with an error saying why;
- session ids of non-ASCII text, on stdio and over TCP: every line of the session echoes the id;
- backwards replies late (after the session ended), twice (the whole stream again), with an
  ``end`` never coming, followed by an ``error`` or a chunk after ``end``, for an unknown request
  id or none, with an event the SDK does not know, or ``data: null``;
- daemon lines that are JSON but no request (an array, a number, an unknown event, no session
  id) on stdio and over TCP, beside a run;
- backwards replies whose ``data`` is no object; parallel tool replies arriving out of order;
- 20 sessions at once, half failing, on each transport; routing faults, replays and odd session
  ids over serverless too;
- heartbeats going on while a session waits for its model;
- stdin closed while two sessions run: the process exits without a traceback on stderr.

Faults found (fixed in ``agent_core``): a request line starting with a UTF-8 BOM was refused with
a session-less error and its session never ended; a request of another type or action, or whose
data is no object, ended with a bare ``end`` (an empty answer, no word why) or an
``AttributeError``; a request the SDK's model refused quoted its values in the error; a backwards
reply whose ``data`` is no object put a traceback on stderr per waiting call; an unreadable model
reply item was quoted (the model's text) instead of named.

Every run ends within a bound, with its answer or a clear error, no log node left in ``start``,
and the sessions beside it unaffected.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
import uuid

import pytest

from local_runner import PluginProcess, Scenario, ScriptedBackend, default_toolbox
from local_runner import daemon as daemon_module
from local_runner.daemon import DEFAULT_PLUGIN_DIR
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end, call_turn, observations

BOUND = 20.0
"""Seconds any run of this module may take: a case that hangs fails instead of waiting 60 s."""


def write_raw(connection, data: bytes) -> None:
    """Write ``data`` (one or more raw lines) to the plugin as the daemon's channel carries it."""
    with connection._write_lock:
        connection._record("to_plugin", data.decode("utf-8", "replace"))
        connection._write(data)


def session_lines(connection, session_id: str) -> list[dict]:
    """The JSON lines the plugin wrote naming ``session_id``."""
    return [
        entry["json"] for entry in connection.transcript
        if entry["dir"] == "from_plugin" and isinstance(entry.get("json"), dict)
        and entry["json"].get("session_id") == session_id
    ]


# --- request lines as a harness may write them ---------------------------------------------------

REQUEST_SHAPES = {
    "trailing spaces": lambda raw: raw[:-1] + b"   \t\n",
    "CRLF": lambda raw: raw[:-1] + b"\r\n",
    "leading blanks and blank lines before": lambda raw: b"\n  \n\r\n   " + raw,
    "UTF-8 BOM": lambda raw: b"\xef\xbb\xbf" + raw,
}


@pytest.mark.parametrize("shape", list(REQUEST_SHAPES))
@pytest.mark.parametrize("transport", ["stdio", "tcp"])
def test_a_request_line_written_loosely_runs(request, monkeypatch, transport, shape):
    """A harness (or a proxy in between) may end lines with CRLF, pad them, or write UTF-8 "with
    signature" (a BOM before the line): the request is still one JSON object and runs. With the
    BOM the request was refused with a session-less error, and the session waited for an ``end``
    that never came."""
    connection = request.getfixturevalue("plugin" if transport == "stdio" else "remote")
    reshape = REQUEST_SHAPES[shape]

    def send_request(self, line):
        write_raw(self, reshape(json.dumps(line).encode() + b"\n"))

    monkeypatch.setattr(type(connection), "_send_request", send_request)
    backend, toolbox = ScriptedBackend([{"text": "Hello there."}]), default_toolbox()
    result = connection.run(Scenario(query="hi").run_request(toolbox, connection.plugin_dir, None), backend, toolbox,
                            timeout=BOUND)
    assert_clean_end(result)
    assert result.text == "Hello there."


def test_unknown_keys_in_the_envelope_the_data_and_the_parameters_are_ignored(run, monkeypatch):
    """A newer daemon or Dify adds fields: the run goes on as before."""
    original = PluginProcess._send_request

    def send_request(self, line):
        line = dict(line, trace_id="t-1", extra={"nested": [1, 2]})
        line["data"] = dict(line["data"], new_daemon_field={"x": 1}, priority=5)
        line["data"]["agent_strategy_params"] = dict(line["data"]["agent_strategy_params"], unknown_param="v")
        original(self, line)

    monkeypatch.setattr(PluginProcess, "_send_request", send_request)
    result = run([call_turn("function_calling", "current_time", {}), {"text": "It is noon."}],
                 tools=["current_time"], timeout=BOUND)
    assert_clean_end(result)
    assert result.text == "It is noon."
    assert len(run.toolbox.calls) == 1


ROUTING_FAULTS = {
    "unknown strategy": (lambda line: line["data"].update(agent_strategy="no_such_strategy"), "no_such_strategy"),
    "unknown provider": (lambda line: line["data"].update(agent_strategy_provider="no_such_provider"),
                         "no_such_provider"),
    "parameters that are no object": (lambda line: line["data"].update(agent_strategy_params=["SECRET-MARK-1"]),
                                      "agent_strategy_params"),
    "a user id that is no text": (lambda line: line["data"].update(user_id={"token": "SECRET-MARK-2"}), "user_id"),
    "no parameters": (lambda line: line["data"].pop("agent_strategy_params"), "agent_strategy_params"),
    "an unknown action": (lambda line: line["data"].update(action="invoke_something_else"),
                          "invoke_something_else"),
    "another type": (lambda line: line["data"].update(type="tool"), "'tool'"),
    "no type": (lambda line: line["data"].pop("type"), "type None"),
    "data that is a list": (lambda line: line.update(data=["x"]), "array"),
}


@pytest.mark.parametrize("fault", list(ROUTING_FAULTS))
def test_a_request_the_plugin_cannot_route_still_ends_its_session_saying_why(run, monkeypatch, fault):
    """The daemon waits for a session's ``end``: a request that names no strategy of this plugin,
    another type or action, or carries no parameters ends with an error naming what is wrong, at
    once, and the process serves on. A request of another type or action (or no type) ended with
    ``end`` alone: the Agent node showed an empty answer and no word of why; one the SDK's request
    model refused quoted the request's values in the error (pydantic's ``input_value``)."""
    original = PluginProcess._send_request
    change, named = ROUTING_FAULTS[fault]

    def send_request(self, line):
        change(line)
        original(self, line)

    monkeypatch.setattr(PluginProcess, "_send_request", send_request)
    started = time.monotonic()
    result = run([{"text": "never asked"}], timeout=BOUND)
    assert time.monotonic() - started < 10, "the session ended at once"
    assert not result.ok
    assert result.error_text and named in result.error_text, result.error_text
    assert "Traceback" not in result.error_text
    assert "SECRET-MARK" not in result.error_text, "the request's values are not quoted"
    assert result.unfinished_logs() == []
    assert run.backend.requests == []
    monkeypatch.undo()
    after = run([{"text": "Still here."}], timeout=BOUND)
    assert_clean_end(after)


# --- session ids -----------------------------------------------------------------------------------

ODD_SESSION_IDS = ["sessión-日本語-🙂-", "  spaced id\t", "quote\"and\\backslash-"]


SESSION_ID_CASES = [(transport, prefix) for transport in ("stdio", "tcp") for prefix in ODD_SESSION_IDS] + [
    ("serverless", ODD_SESSION_IDS[2]),
]
"""Serverless backwards calls carry the session id in an HTTP header (``Dify-Plugin-Session-ID``),
which holds visible ASCII only: the daemon's ids are UUIDs, so only the ASCII case is played there
(a non-ASCII or padded id fails the model call there with a clear error, the header refused)."""


@pytest.mark.parametrize(("transport", "prefix"), SESSION_ID_CASES)
def test_a_session_id_of_any_text_is_echoed_exactly(request, monkeypatch, transport, prefix):
    """The plugin must answer on the session id it was given, byte for byte (the daemon routes
    by it), through a tool call and two model calls."""
    connection = request.getfixturevalue({"stdio": "plugin", "tcp": "remote", "serverless": "serverless"}[transport])
    session_id = prefix + uuid.uuid4().hex

    class Ids:
        @staticmethod
        def uuid4():
            return session_id

    monkeypatch.setattr(daemon_module, "uuid", Ids)
    backend = ScriptedBackend([call_turn("function_calling", "current_time", {}), {"text": "Done."}])
    toolbox = default_toolbox()
    scenario = Scenario(query="time?", tools=["current_time"])
    result = connection.run(scenario.run_request(toolbox, connection.plugin_dir, None), backend, toolbox,
                            timeout=BOUND)
    assert result.session_id == session_id
    assert_clean_end(result)
    assert result.text == "Done."
    lines = session_lines(connection, session_id)
    assert any(line["data"]["type"] == "end" for line in lines)
    assert len(toolbox.calls) == 1


# --- backwards replies late, twice, cut, odd -------------------------------------------------------

def test_a_model_reply_sent_again_after_its_session_ended_is_dropped_quietly(run, plugin):
    """A daemon retrying a delivery replays a finished session's model reply: nothing is written
    for that session again, and the next session runs as usual."""
    first = run([{"text": "First answer.", "split": 3}], timeout=BOUND)
    assert_clean_end(first)
    replies = [entry["json"] for entry in first.transcript
               if entry["dir"] == "to_plugin" and isinstance(entry.get("json"), dict)
               and entry["json"].get("event") == "backwards_response"]
    assert replies
    before = len(session_lines(plugin, first.session_id))
    errors_before = len(plugin.plugin_errors)
    for line in replies * 2:
        plugin.send(line)
    second = run([{"text": "Second answer."}], timeout=BOUND)
    assert_clean_end(second)
    assert second.text == "Second answer."
    assert len(session_lines(plugin, first.session_id)) == before, "nothing more for the ended session"
    assert len(plugin.plugin_errors) == errors_before


def replay_stream(kinds):
    """A ``tamper`` hook: each backwards reply stream of a kind in ``kinds`` is sent whole
    (every item, then ``end``), then whole again."""
    held: dict[str, list] = {}

    def hook(kind, line, send, handle):
        if kind not in kinds:
            send(line)
            return
        request_id = line["data"]["backwards_request_id"]
        held.setdefault(request_id, []).append(line)
        if line["data"]["event"] == "end":
            for repeat in held.pop(request_id) * 2:
                send(repeat)

    return hook


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_whole_reply_stream_delivered_twice_counts_once(run, tamper, strategy):
    """Model and tool replies each delivered twice over: the tool runs once, its result is read
    once, the answer is not doubled."""
    tamper(replay_stream({"llm", "tool"}))
    turns = [call_turn(strategy, "current_time", {}), answer_turn(strategy, "It is noon.")]
    result = run(turns, tools=["current_time"], strategy=strategy, timeout=BOUND)
    assert_clean_end(result)
    assert result.text == "It is noon."
    assert len(run.toolbox.calls) == 1
    assert len(run.backend.requests) == 2
    assert len(observations(run.backend.requests[1])) == 1


def after_end(kind_to_tamper, extra):
    """A ``tamper`` hook: after the ``end`` of each reply of ``kind_to_tamper``, the lines
    ``extra(line)`` (same session, same request id) follow."""

    def hook(kind, line, send, handle):
        send(line)
        if kind == kind_to_tamper and line["data"]["event"] == "end":
            time.sleep(0.05)
            for late in extra(line):
                send(late)

    return hook


def _with(line, **data):
    return dict(line, data=dict(line["data"], **data))


LATE_LINES = {
    "an error after end": lambda line: [_with(line, event="error", message="late failure")],
    "a chunk after end": lambda line: [_with(line, event="response", message="stream",
                                             data={"type": "text", "message": {"text": "LATE"}, "meta": None})],
    "end twice": lambda line: [line],
}


@pytest.mark.parametrize("late", list(LATE_LINES))
def test_lines_after_a_tool_replys_end_change_nothing(run, tamper, late):
    """The reply's ``end`` closed it: a later error, chunk or second ``end`` for the same request
    neither fails the run nor reaches the model."""
    tamper(after_end("tool", LATE_LINES[late]))
    turns = [call_turn("function_calling", "current_time", {}), {"text": "It is noon."}]
    result = run(turns, tools=["current_time"], timeout=BOUND)
    assert_clean_end(result)
    assert result.text == "It is noon."
    seen = json.dumps(run.backend.requests[1]["prompt_messages"])
    assert "LATE" not in seen and "late failure" not in seen


def before_reply(kind_to_tamper, extra):
    """A ``tamper`` hook: before the first line of each reply of ``kind_to_tamper``, the lines
    ``extra(line)``."""
    started: set[str] = set()

    def hook(kind, line, send, handle):
        request_id = line["data"]["backwards_request_id"]
        if kind == kind_to_tamper and request_id not in started:
            started.add(request_id)
            for stray in extra(line):
                send(stray)
        send(line)

    return hook


def _chunk(text):
    return {"model": "m", "prompt_messages": [], "system_fingerprint": "",
            "delta": {"index": 0, "message": {"role": "assistant", "content": text, "name": "", "tool_calls": [],
                                              "tool_call_id": ""}, "usage": None, "finish_reason": None}}


STRAY_LINES = {
    "an unknown request id": lambda line: [_with(line, backwards_request_id=uuid.uuid4().hex, event="response",
                                                 message="stream", data=_chunk("INJECTED"))],
    "no request id": lambda line: [dict(line, data={k: v for k, v in _with(
        line, event="response", message="stream", data=_chunk("INJECTED")
    )["data"].items() if k != "backwards_request_id"})],
    "another session's id": lambda line: [dict(_with(line, backwards_request_id=uuid.uuid4().hex, event="response",
                                                     message="stream", data=_chunk("INJECTED")),
                                               session_id=str(uuid.uuid4()))],
    "an end for an unknown request": lambda line: [_with(line, backwards_request_id=uuid.uuid4().hex,
                                                         event="end")],
}


@pytest.mark.parametrize("stray", list(STRAY_LINES))
def test_reply_lines_for_no_waiting_call_are_ignored(run, tamper, stray):
    """Replies nobody waits for (a stale id, none, another session's) reach no model call."""
    tamper(before_reply("llm", STRAY_LINES[stray]))
    result = run([{"text": "Clean answer.", "split": 4}], timeout=BOUND)
    assert_clean_end(result)
    assert result.text == "Clean answer."


ODD_ITEMS = {
    "an event the SDK does not know": lambda line: _with(line, event="progress", message="", data=None),
    "a response with data null": lambda line: _with(line, event="response", message="stream", data=None),
    "an item without its event": lambda line: dict(line, data={
        "backwards_request_id": line["data"]["backwards_request_id"], "message": "stream",
        "data": _chunk("ECHO-MARKER")}),
    "a response whose data is a list": lambda line: _with(line, event="response", message="stream",
                                                          data=["ECHO-MARKER"]),
}


@pytest.mark.parametrize("odd", list(ODD_ITEMS))
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_odd_item_in_the_middle_of_a_model_reply_ends_the_run_in_time_and_closes_its_logs(
        run, tamper, strategy, odd):
    """The model reply's second line is something the SDK does not read as a chunk: the run ends
    (an answer, or an error saying the reply could not be read) in time, its logs closed. The
    error quoted the item's first 200 characters (the model's text) and named no reason."""
    count: dict[str, int] = {}

    def hook(kind, line, send, handle):
        request_id = line["data"]["backwards_request_id"]
        count[request_id] = count.get(request_id, 0) + 1
        if kind == "llm" and count[request_id] == 2:
            send(ODD_ITEMS[odd](line))
        send(line)

    tamper(hook)
    started = time.monotonic()
    result = run([answer_turn(strategy, "The answer is four."), answer_turn(strategy, "Four.")] * 3,
                 strategy=strategy, timeout=BOUND)
    assert time.monotonic() - started < 15
    assert result.done
    assert result.unfinished_logs() == [], [n.label for n in result.unfinished_logs()]
    if not result.ok:
        assert "Traceback" not in result.error_text
        assert "could not be read" in result.error_text, result.error_text
        assert "ECHO-MARKER" not in result.error_text, "the item is named by its kind, not quoted"


def test_a_tool_reply_whose_end_never_comes_is_given_up_at_the_tool_time_limit(run, tamper):
    """The tool's text arrives but its ``end`` never does: at the node's tool time limit the call
    is given up, the model is told, and the run answers; no log left in ``start``."""

    def hook(kind, line, send, handle):
        if kind == "tool" and line["data"]["event"] == "end":
            return
        send(line)

    tamper(hook)
    turns = [call_turn("function_calling", "current_time", {}), {"text": "The clock did not answer."}]
    started = time.monotonic()
    result = run(turns, tools=["current_time"], params={"tool_timeout": 1}, timeout=BOUND)
    assert time.monotonic() - started < 12
    assert_clean_end(result)
    assert result.text == "The clock did not answer."
    assert len(run.backend.requests) == 2


# --- daemon lines that are JSON but no request --------------------------------------------------

STRAY_DAEMON_LINES = [
    b"[1, 2, 3]\n",
    b"42\n",
    b'"a string"\n',
    b"{}\n",
    b'{"event": "ping", "session_id": "s-ping", "data": {}}\n',
    b'{"event": "request", "data": {"type": "agent_strategy"}}\n',
    b'{"session_id": null, "event": "backwards_response", "data": null}\n',
    b"   \t  \n\n\r\n",
]


@pytest.mark.parametrize("transport", ["stdio", "tcp"])
def test_stray_daemon_lines_beside_a_run_leave_it_whole(request, transport):
    """Lines that parse as JSON but are no message of any session arrive while a model streams:
    each is refused with a session-less error that quotes none of it, and the run is untouched."""
    connection = request.getfixturevalue("plugin" if transport == "stdio" else "remote")
    backend = ScriptedBackend([{"text": "Steady answer.", "split": 2, "delay": 0.5}])
    toolbox = default_toolbox()
    errors_before = len(connection.plugin_errors)
    handle = connection.start_run(Scenario(query="hi").run_request(toolbox, connection.plugin_dir, None),
                                  backend, toolbox)
    for line in STRAY_DAEMON_LINES:
        write_raw(connection, line)
    result = handle.wait(BOUND)
    assert_clean_end(result)
    assert result.text == "Steady answer."
    new_errors = connection.plugin_errors[errors_before:]
    assert new_errors, "an unreadable line is answered with an error event"
    for error in new_errors:
        assert "a string" not in json.dumps(error) and "s-ping" not in json.dumps(error)
    assert connection.alive


# --- heartbeats and the end of stdin -------------------------------------------------------------

def test_heartbeats_go_on_while_a_session_waits_for_its_model():
    """The daemon marks a plugin dead after a heartbeat gap: with a heartbeat every 0.5 s, none is
    missed while a session waits 3 s for its model and another streams."""
    with PluginProcess(DEFAULT_PLUGIN_DIR, env={"HEARTBEAT_INTERVAL": "0.5"}, heartbeat_timeout=2.5) as plugin:
        slow = ScriptedBackend([{"text": "Slow answer.", "delay": 3}])
        busy = ScriptedBackend([{"text": "x" * 4000, "split": 1}])
        handles = []
        for backend in (slow, busy):
            toolbox = default_toolbox()
            handles.append(plugin.start_run(Scenario(query="hi").run_request(toolbox, plugin.plugin_dir, None),
                                            backend, toolbox))
        results = [handle.wait(BOUND) for handle in handles]
        for result in results:
            assert_clean_end(result)
        beats = [entry["t"] for entry in plugin.transcript
                 if entry["dir"] == "from_plugin" and (entry.get("json") or {}).get("event") == "heartbeat"]
        gaps = [b - a for a, b in itertools.pairwise(beats)]
        assert len(beats) >= 5 and max(gaps) < 2.0, gaps


def test_stdin_closed_while_two_sessions_run_exits_without_a_traceback():
    """The daemon goes away with two sessions open: both fail with a reason, the process exits with
    code 0 in a few seconds, and its stderr (the daemon's log) holds no traceback."""
    with PluginProcess(DEFAULT_PLUGIN_DIR) as plugin:
        backends = [ScriptedBackend([{"text": "Part", "hang": True}]),
                    ScriptedBackend([call_turn("function_calling", "current_time", {}), {"text": "x", "hang": True}])]
        handles = []
        for backend, tools in zip(backends, ([], ["current_time"]), strict=True):
            toolbox = default_toolbox()
            scenario = Scenario(query="hi", tools=tools)
            handles.append(plugin.start_run(scenario.run_request(toolbox, plugin.plugin_dir, None), backend, toolbox))
        try:
            deadline = time.monotonic() + BOUND
            while len(backends[1].requests) < 2 or not backends[0].requests:
                assert time.monotonic() < deadline, "both sessions reached their model"
                time.sleep(0.05)
            time.sleep(0.3)  # the model calls are on the wire
            plugin._proc.stdin.close()
            for _ in range(200):
                if plugin.returncode is not None:
                    break
                time.sleep(0.05)
            assert plugin.returncode == 0, plugin.stderr_tail()
            for handle in handles:
                result = handle.wait(5)
                assert not result.ok and result.error_text
                assert result.unfinished_logs() == []
            stderr = "\n".join(plugin.stderr_tail(200))
            assert "Traceback" not in stderr, stderr[-2000:]
        finally:
            for backend in backends:
                backend.release()
            threading.Thread(target=plugin.close, daemon=True).start()


@pytest.mark.parametrize("data", ["oops", ["x"], None, 5])
@pytest.mark.parametrize("transport", ["stdio", "tcp"])
def test_a_backwards_reply_whose_data_is_no_object_is_refused_without_a_traceback(request, transport, data):
    """A reply line of a session whose model call is waiting, its ``data`` no object: every
    waiting call's filter raised on it (``'str' object has no attribute 'get'``), a traceback on
    the plugin's stderr (the daemon's log) per waiting call and line. It is refused as a line that
    cannot be read, and the run goes on."""
    connection = request.getfixturevalue("plugin" if transport == "stdio" else "remote")
    backend, toolbox = ScriptedBackend([{"text": "Steady answer.", "split": 3, "delay": 0.6}]), default_toolbox()
    handle = connection.start_run(Scenario(query="hi").run_request(toolbox, connection.plugin_dir, None),
                                  backend, toolbox)
    deadline = time.monotonic() + BOUND
    while not backend.requests:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    errors_before, mark = len(connection.plugin_errors), len(connection.transcript)
    connection.send({"session_id": handle.session_id, "event": "backwards_response", "data": data})
    result = handle.wait(BOUND)
    assert_clean_end(result)
    assert result.text == "Steady answer."
    assert any("no JSON object" in str(error) for error in connection.plugin_errors[errors_before:])
    time.sleep(0.2)  # the stderr reader has caught up
    new_stderr = "\n".join(entry["text"] for entry in connection.transcript[mark:] if entry["dir"] == "stderr")
    assert "Traceback" not in new_stderr, new_stderr[-1500:]


# --- the same over serverless --------------------------------------------------------------------

@pytest.mark.parametrize("fault", ["an unknown action", "another type", "data that is a list"])
def test_a_serverless_request_no_route_takes_ends_saying_why(serverless, monkeypatch, fault):
    """Over ``/invoke`` too, a request of another type or action ends with the session's error."""
    original = type(serverless)._send_request
    change, named = ROUTING_FAULTS[fault]

    def send_request(self, line):
        change(line)
        original(self, line)

    monkeypatch.setattr(type(serverless), "_send_request", send_request)
    backend, toolbox = ScriptedBackend([{"text": "never asked"}]), default_toolbox()
    result = serverless.run(Scenario(query="hi").run_request(toolbox, serverless.plugin_dir, None), backend, toolbox,
                            timeout=BOUND)
    assert not result.ok
    assert result.error_text and named in result.error_text, result.error_text
    assert backend.requests == []


def test_serverless_replies_delivered_twice_in_their_transaction_count_once(serverless, tamper):
    """The daemon's transaction response carries each reply twice over (every item, ``end``,
    then all again): the tool runs once and the answer is not doubled."""
    tamper(replay_stream({"llm", "tool"}))
    backend, toolbox = ScriptedBackend([call_turn("function_calling", "current_time", {}),
                                        {"text": "It is noon."}]), default_toolbox()
    scenario = Scenario(query="time?", tools=["current_time"])
    result = serverless.run(scenario.run_request(toolbox, serverless.plugin_dir, None), backend, toolbox,
                            timeout=BOUND)
    assert_clean_end(result)
    assert result.text == "It is noon."
    assert len(toolbox.calls) == 1
    assert len(observations(backend.requests[1])) == 1


@pytest.mark.parametrize("transport", ["stdio", "tcp", "serverless"])
def test_twenty_sessions_at_once_half_failing_leave_the_other_half_whole(request, transport):
    """20 sessions start together on one process; the model of every other one fails after a
    first chunk. The ten others answer with their own words, the ten failing ones say the model
    call failed, and no session leaves a log node in ``start``."""
    connection = request.getfixturevalue({"stdio": "plugin", "tcp": "remote", "serverless": "serverless"}[transport])
    handles = []
    for n in range(20):
        turn = ({"text": f"Answer {n}.", "split": 3, "delay": 0.2} if n % 2 == 0
                else {"text": f"Half {n}", "error": f"rate limited {n}", "delay": 0.2})
        backend, toolbox = ScriptedBackend([turn] * 3), default_toolbox()
        handles.append((n, backend, connection.start_run(
            Scenario(query=f"q{n}").run_request(toolbox, connection.plugin_dir, None), backend, toolbox)))
    for n, backend, handle in handles:
        result = handle.wait(BOUND)
        backend.release()
        assert result.unfinished_logs() == [], (n, [node.label for node in result.unfinished_logs()])
        if n % 2 == 0:
            assert result.ok and result.text == f"Answer {n}.", (n, result.error_text)
        else:
            assert not result.ok and f"rate limited {n}" in (result.error_text or ""), (n, result.error_text)


def test_parallel_tool_replies_arriving_out_of_order_reach_their_own_calls(run):
    """Two calls of one round, the first one's tool slow: the second's reply comes whole before the
    first's. Each result reaches the model under its own call id, in the model's order."""
    from local_runner.tools import text_message
    from tests.e2e.helpers import tool_named

    alpha = tool_named("alpha", [text_message("from alpha")], latency=0.6)
    beta = tool_named("beta", [text_message("from beta")])
    turns = [{"tool_calls": [{"id": "call_a", "name": "alpha", "arguments": {}},
                             {"id": "call_b", "name": "beta", "arguments": {}}]},
             {"text": "Both done."}]
    result = run(turns, tools=[alpha, beta], timeout=BOUND)
    assert_clean_end(result)
    replies = [entry["json"]["data"] for entry in result.transcript
               if entry["dir"] == "to_plugin" and (entry.get("json") or {}).get("event") == "backwards_response"
               and "from " in json.dumps(entry["json"]["data"].get("data"))]
    assert [json.dumps(reply["data"]).count("from beta") for reply in replies] == [1, 0], "beta's came first"
    tool_messages = [(m.get("tool_call_id"), m["content"]) for m in run.backend.requests[1]["prompt_messages"]
                     if m["role"] == "tool"]
    assert tool_messages == [("call_a", "from alpha"), ("call_b", "from beta")]
