"""Red-team wave 35: the other transports (TCP remote debugging, serverless) against issue 13's
classes 1-3, through the real plugin process: line limits in both directions, secrets in the
handshake key and in errors, a daemon that drops a connection or a line half-written, a reply for a
session nobody runs, a request of 6 MB, and a large line beside a streaming neighbour.

The cases ``test_transports_wave34.py`` already holds (a 6 MB answer, a 5 MB result with a secret, a
request sent twice, a 20 MB line that is not JSON, a dropped or vanished daemon, the deadline) are
not repeated here.
"""

from __future__ import annotations

import http.client
import itertools
import json
import socket
import threading
import time
from typing import Any

import pytest

from local_runner import PluginError, Scenario, ScriptedBackend, default_toolbox, protocol, run_scenario
from local_runner.daemon import DEFAULT_PLUGIN_DIR
from local_runner.remote import RemoteDebugServer, RemotePlugin
from local_runner.serverless import ServerlessPlugin
from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.conftest import ScriptedRun
from tests.e2e.helpers import assert_clean_end, plugin_lines
from tests.e2e.pace import Pace
from tests.e2e.test_red_team_wave30 import Paced

pytestmark = pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")

SECRET = "W35-canary-4b8e2f"
TRANSPORTS = ["remote", "serverless"]


def secret_tool(responses: list[dict[str, Any]], name: str = "vault") -> ScriptedTool:
    return ScriptedTool(name=name, description="Reads the vault",
                        parameters=[ToolParam("q", description="query"),
                                    ToolParam("api_key", type="secret-input", form="form", description="key")],
                        runtime_parameters={"api_key": SECRET}, responses=responses)


def call(name: str = "vault") -> dict[str, Any]:
    return {"tool_calls": [{"id": "c1", "name": name, "arguments": {"q": "x"}}]}


def written_text(plugin: Any, result: Any) -> str:
    """Everything the plugin wrote since ``result``'s run began (its lines and stderr), tools' own
    invocations aside (they carry the secret to the tool, as they must)."""
    return "\n".join(json.dumps(entry.get("json")) if "json" in entry else str(entry.get("text", ""))
                     for entry, _ in plugin_lines(plugin, result))


def recorded_requests(monkeypatch: pytest.MonkeyPatch, cls: type) -> list[dict[str, Any]]:
    """The request lines ``cls`` (a runner connection class) sends from now on, as sent."""
    sent: list[dict[str, Any]] = []
    original = cls._send_request

    def record(self: Any, line: dict[str, Any]) -> None:
        sent.append(json.loads(json.dumps(line)))
        original(self, line)

    monkeypatch.setattr(cls, "_send_request", record)
    return sent


def post(plugin: ServerlessPlugin, body: bytes, *, read: bool = True) -> tuple[int, bytes]:
    """``POST /invoke`` with ``body`` as it is: the status and the whole response body."""
    connection = http.client.HTTPConnection(plugin.host, int(plugin.port or 0), timeout=30)
    try:
        connection.request("POST", "/invoke", body=body, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, response.read() if read else b""
    finally:
        connection.close()


# -- line limits, both directions ---------------------------------------------------------------------


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_megabyte_of_control_characters_stays_in_lines_that_fit(request, transport, longest_line):
    """1 M control characters become 6 MB of JSON escapes (``\\u0001``): the result's log and the
    next model request are measured after encoding."""
    plugin = request.getfixturevalue(transport)
    run = ScriptedRun(plugin)
    result = run([call(), {"text": "Done."}], tools=[secret_tool([text_message("\x01" * 1_000_000)])], timeout=120)
    assert_clean_end(result)
    assert result.text == "Done."
    assert 0 < longest_line[0] <= protocol.MAX_LINE_BYTES
    assert plugin.alive


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_six_megabyte_query_ends_clearly_in_lines_that_fit(request, transport, longest_line):
    """The daemon sends a request line of 6 MB (a user pasted a document): the plugin reads it (no
    limit that way), and whatever it writes back, the model request included, fits a line."""
    plugin = request.getfixturevalue(transport)
    run = ScriptedRun(plugin)
    query = ("Summarize this. " + "lorem ipsum dolor sit amet " * 230_000)[:6_000_000]
    result = run([{"text": "A summary."}], query=query, timeout=120)
    assert result.unfinished_logs() == []
    assert result.ok or "too large" in (result.error_text or "") or "context" in (result.error_text or "")
    if result.ok:
        assert result.text == "A summary."
    assert 0 < longest_line[0] <= protocol.MAX_LINE_BYTES
    assert plugin.alive
    after = ScriptedRun(plugin)([{"text": "Fine."}])
    assert_clean_end(after)
    assert after.text == "Fine."


# -- secrets: the handshake key, errors -----------------------------------------------------------------


def test_the_debug_key_never_reaches_the_plugins_output(server, remote):
    """``REMOTE_INSTALL_KEY`` is a credential of the developer's Dify workspace: it goes in the
    handshake and nowhere else (not in the plugin's logs, its stderr or any line of a run)."""
    run = ScriptedRun(remote)
    result = run([call(), {"text": "Done."}], tools=[secret_tool([text_message("ok")])])
    assert_clean_end(result)
    assert server.key not in written_text(remote, result)
    assert not any(server.key in line for line in remote.stderr_tail(10_000))
    assert SECRET not in written_text(remote, result)


def test_a_refused_debug_key_is_not_written_to_the_plugins_stderr():
    """A key mistyped or revoked: the daemon refuses the handshake and the plugin tries again; what
    it logs about it names the daemon, never the key."""
    wrong = "W35-wrong-key-" + SECRET
    with RemoteDebugServer(key="the-right-key") as endpoint:
        with pytest.raises(PluginError, match="invalid key"):
            endpoint.launch(DEFAULT_PLUGIN_DIR, env={"REMOTE_INSTALL_KEY": wrong}, ready_timeout=10)
        plugin = endpoint.plugins[-1]
        stderr = plugin.stderr_tail(10_000)
        assert stderr, "the plugin said nothing about the refusal"
        assert not any(SECRET in line for line in stderr)


def test_a_half_written_request_then_a_dropped_connection_runs_nothing():
    """The daemon dies while writing a request (its secrets in it): the plugin connects again and
    the piece is neither run nor logged; the next session runs."""
    with RemoteDebugServer() as endpoint:
        plugin = endpoint.launch(DEFAULT_PLUGIN_DIR)
        try:
            first = ScriptedRun(plugin)([{"text": "One."}])
            assert_clean_end(first)
            line = next(entry["json"] for entry in first.transcript
                        if entry["dir"] == "to_plugin" and (entry.get("json") or {}).get("event") == "request")
            piece = json.dumps({**line, "session_id": "W35-half", "secret": SECRET}).encode()
            assert plugin._sock is not None
            plugin._sock.sendall(piece[: len(piece) // 2])
            time.sleep(0.3)
            plugin._sock.shutdown(socket.SHUT_RDWR)
            plugin._sock.close()
            again = endpoint.accept(timeout=20, into=RemotePlugin(DEFAULT_PLUGIN_DIR))
            result = ScriptedRun(again)([{"text": "Two."}])
            assert_clean_end(result)
            assert result.text == "Two."
            assert not any(entry.get("json", {}).get("session_id") == "W35-half" for entry in again.transcript)
            assert not any(SECRET in line for line in plugin.stderr_tail(10_000))
        finally:
            endpoint.close()
            plugin.close()


def test_a_reply_for_a_session_nobody_runs_is_dropped_quietly(remote, tamper):
    """A daemon line for an unknown session (a stale reply after a restart, a retried backwards
    call), its secret in it, between the model's chunks: the run goes on, nothing is run for it and
    the secret is written nowhere."""

    def hook(kind, line, send, handle):
        if kind == "llm" and line["data"]["event"] == "response":
            stray = {**line, "session_id": "W35-nobody", "data": {**line["data"], "data": {"text": SECRET}}}
            stale_request = {**line, "session_id": "W35-nobody-2", "event": "request",
                             "data": {"type": "agent_strategy", "secret": SECRET}}
            with handle.process._write_lock:
                handle.process._write(json.dumps(stray).encode() + b"\n" + json.dumps(stale_request).encode() + b"\n")
        send(line)

    tamper(hook)
    run = ScriptedRun(remote)
    result = run([{"text": "Still whole.", "split": 3}], tools=[secret_tool([text_message("ok")])])
    assert_clean_end(result)
    assert result.text == "Still whole."
    time.sleep(0.3)
    assert SECRET not in written_text(remote, result)
    assert not any(SECRET in line for line in remote.stderr_tail(10_000))
    assert remote.alive


# -- a neighbour beside a large line --------------------------------------------------------------------


def text_times(result: Any) -> list[float]:
    return [entry["t"] for entry in result.transcript
            if entry["dir"] == "from_plugin" and (entry.get("json") or {}).get("event") == "session"
            and ((entry["json"].get("data") or {}).get("data") or {}).get("type") == "text"]


def neighbour_gap(plugin: Any, records: int) -> tuple[float, float]:
    """The worst gap (seconds) between two streamed texts of a session streaming (chunks 10 ms
    apart) while another session gets a tool's JSON message of ``records`` records, and the
    machine's slowdown meanwhile (``tests/e2e/pace.py``)."""
    results: dict[str, Any] = {}
    data = {"records": [{"id": n, "name": f"item {n}", "v": "abc"} for n in range(records)]}
    tool = ScriptedTool(name="dump", description="Dumps", parameters=[ToolParam("q")],
                        responses=[{"type": "json", "message": {"json_object": data}, "meta": None}])

    def light() -> None:
        backend = Paced(ScriptedBackend([{"text": "w " * 300, "split": 2}]), 0.01)
        with pace:
            results["light"] = run_scenario(Scenario(query="hi"), backend, default_toolbox(), plugin=plugin, timeout=60)

    pace = Pace()
    thread = threading.Thread(target=light)
    thread.start()
    time.sleep(0.3)
    heavy = ScriptedRun(plugin)([call("dump"), {"text": "ok"}], tools=[tool], timeout=60)
    thread.join()
    assert_clean_end(results["light"])
    assert_clean_end(heavy)
    return max(b - a for a, b in itertools.pairwise(text_times(results["light"]))), pace.slowdown


def test_a_neighbour_over_tcp_is_not_held_while_a_five_megabyte_line_is_parsed(remote):
    """125,000 records (5.4 MB): parsed in turn by the TCP reader, the line held a session streaming
    beside it 240-330 ms on every run; parsed aside, as on stdio, 75-145 ms. The best of three runs
    is under 200 ms (a loaded machine may slow one) times the machine's slowdown meanwhile."""
    gaps = []
    for _ in range(3):
        gaps.append(neighbour_gap(remote, 125_000))
        if gaps[-1][0] < 0.2 * gaps[-1][1]:
            break
    assert any(gap < 0.2 * slowdown for gap, slowdown in gaps), (
        f"the neighbour waited {[round(g, 3) for g, _ in gaps]} s, the machine slowed {[round(s, 1) for _, s in gaps]} times")


# -- serverless: what the daemon sends, and how it goes away -------------------------------------------


def test_a_second_invoke_of_a_session_is_refused_in_words_the_daemon_shows(serverless, monkeypatch):
    """The daemon shows a refused invocation as "Plugin runtime request failed: " and the
    ``errorType`` of its JSON body (else the bare status): the user reads why, and nothing runs."""
    sent = recorded_requests(monkeypatch, ServerlessPlugin)
    run = ScriptedRun(serverless)
    result = run([call(), {"text": "done"}], tools=[secret_tool([text_message("ok")])])
    assert_clean_end(result)
    before = len(serverless.transactions)
    status, body = post(serverless, json.dumps(sent[0]).encode())
    assert status == 409
    refusal = json.loads(body)
    assert "second request" in refusal["errorType"] and result.session_id in refusal["errorType"]
    assert SECRET not in body.decode()
    time.sleep(0.3)
    assert len(serverless.transactions) == before, "nothing ran for it"


@pytest.mark.parametrize("body", [
    b'{"session_id": "W35-cut", "event": "request", "data": {"secret": "' + SECRET.encode(),
    b'{"event": "request", "data": {"secret": "' + SECRET.encode() + b'"}}',
    b'{"session_id": "W35-odd", "event": "teleport", "data": {"secret": "' + SECRET.encode() + b'"}}',
    b'["' + SECRET.encode() + b'"]',
    b"",
], ids=["cut", "no session", "unknown event", "not an object", "empty"])
def test_an_invoke_the_plugin_cannot_read_is_refused_without_echo(serverless, body):
    stderr_before = len(serverless.stderr_tail(10_000))
    status, answer = post(serverless, body)
    assert 400 <= status < 600
    assert SECRET not in answer.decode("utf-8", "replace")
    assert not any(SECRET in line for line in serverless.stderr_tail(10_000)[stderr_before:])
    assert serverless.healthy()
    after = ScriptedRun(serverless)([{"text": "Fine."}])
    assert_clean_end(after)


def test_an_invoke_the_daemon_drops_mid_stream_leaves_the_plugin_serving(serverless, monkeypatch):
    """The daemon reads the first line of a session and goes away (restarted, timed out): the run's
    backwards call is refused (the daemon knows the session no more) and ends; the plugin serves
    the next session."""
    sent = recorded_requests(monkeypatch, ServerlessPlugin)
    assert_clean_end(ScriptedRun(serverless)([{"text": "One."}]))
    line = {**sent[0], "session_id": "W35-dropped"}
    connection = http.client.HTTPConnection(serverless.host, int(serverless.port or 0), timeout=30)
    connection.request("POST", "/invoke", body=json.dumps(line).encode(), headers={"Content-Type": "application/json"})
    response = connection.getresponse()
    assert response.status == 200
    response.fp.readline()
    connection.close()
    time.sleep(1.0)
    assert serverless.healthy()
    result = ScriptedRun(serverless)([call(), {"text": "Two."}], tools=[secret_tool([text_message("ok")])])
    assert_clean_end(result)
    assert result.text == "Two."
    assert SECRET not in written_text(serverless, result)


def test_a_session_the_daemon_no_longer_knows_ends_with_a_clear_error(serverless, monkeypatch):
    """Its model call is refused by the daemon ("session not found"): the session ends with an
    error that says so, in time, not with a hang."""
    sent = recorded_requests(monkeypatch, ServerlessPlugin)
    assert_clean_end(ScriptedRun(serverless)([{"text": "One."}]))
    line = {**sent[0], "session_id": "W35-unknown"}
    started = time.monotonic()
    status, body = post(serverless, json.dumps(line).encode())
    assert status == 200
    assert time.monotonic() - started < 30
    events = [json.loads(raw) for raw in body.split(b"\n") if raw.strip()]
    errors = [event for event in events if event.get("event") == "error"
              or (event.get("data") or {}).get("type") == "error"]
    assert errors, f"no error for the session: {[e.get('event') for e in events]}"
    said = json.dumps(errors)
    assert "not a session message" in said and "no longer knows the session" in said
    assert "session not found" not in said, "the reply's text is not quoted (it may be a tool's data)"


def test_credentials_in_the_daemon_url_stay_out_of_errors():
    """A platform may put the daemon's credentials in ``DIFY_PLUGIN_DAEMON_URL``
    (``http://user:password@host``): when the daemon cannot be reached, the error the plugin writes
    and logs names no password."""

    class Unreachable(ServerlessPlugin):
        def settings(self) -> dict[str, str]:
            with socket.socket() as probe:
                probe.bind(("127.0.0.1", 0))
                closed = probe.getsockname()[1]
            return {**super().settings(), "DIFY_PLUGIN_DAEMON_URL": f"http://dify:{SECRET}@127.0.0.1:{closed}"}

    with Unreachable(DEFAULT_PLUGIN_DIR) as plugin, pytest.MonkeyPatch.context() as patch:
        sent = recorded_requests(patch, Unreachable)
        result = run_scenario(Scenario(query="hi"), ScriptedBackend([{"text": "never"}]), default_toolbox(),
                              plugin=plugin, timeout=60)
        assert not result.ok
        assert sent
        assert SECRET not in (result.error_text or "")
        assert not any(SECRET in line for line in plugin.stderr_tail(10_000))
        assert SECRET not in written_text(plugin, result)
