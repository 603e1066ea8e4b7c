"""Red-team wave 34: the adversarial basics of the stdio tests, through the real plugin process over
TCP remote debugging (how a developer runs it against their Dify: ``INSTALL_METHOD=remote``) and
serverless (HTTP, where the runner supports the case).

What each transport's daemon takes (docs/architecture.md, "Transports"): over stdio and serverless
the daemon reads a line with a 5 MiB buffer (serverless: ``PLUGIN_RUNTIME_MAX_BUFFER_SIZE``, the
same default) and fails on a longer one; over TCP its codec buffers a line of any length. The
plugin keeps every line under 5 MiB on every transport, so each case checks that bound.
"""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from local_runner import Scenario, ScriptedBackend, ToolBox, default_toolbox, protocol, run_scenario
from local_runner.daemon import DEFAULT_PLUGIN_DIR
from local_runner.remote import RemoteDebugServer, RemotePlugin
from local_runner.serverless import ServerlessPlugin
from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.conftest import ScriptedRun
from tests.e2e.helpers import answer_turn, assert_clean_end, bytes_not_utf8_in_model_chunks, plugin_lines
from tests.e2e.pace import Pace, assert_not_held
from tests.e2e.test_red_team_wave30 import Paced, worst_gap

pytestmark = pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")

SECRET = "W34-canary-7d1c9e"
TRANSPORTS = ["remote", "serverless"]



def target(request, transport: str):
    return request.getfixturevalue(transport)


def secret_tool(responses: list[dict], name: str = "vault") -> ScriptedTool:
    return ScriptedTool(name=name, description="Reads the vault",
                        parameters=[ToolParam("q", description="query"),
                                    ToolParam("api_key", type="secret-input", form="form", description="key")],
                        runtime_parameters={"api_key": SECRET}, responses=responses)


def call(name: str = "vault") -> dict:
    return {"tool_calls": [{"id": "c1", "name": name, "arguments": {"q": "x"}}]}


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100  # utime + stime, in ticks of 10 ms


def assert_no_secret(plugin, result) -> None:
    for entry, _ in plugin_lines(plugin, result):
        text = json.dumps(entry.get("json")) if "json" in entry else str(entry.get("text", ""))
        assert SECRET not in text, f"the canary was written ({entry['dir']}): {text[:200]!r}"


# -- size -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_six_megabyte_answer_is_written_in_lines_that_fit(request, transport, longest_line):
    plugin = target(request, transport)
    run = ScriptedRun(plugin)
    answer = "word " * 1_200_000
    result = run([{"text": answer}], query="Write a lot.", timeout=120)
    assert_clean_end(result)
    assert result.text == answer
    assert plugin.alive
    assert 0 < longest_line[0] <= protocol.MAX_LINE_BYTES


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_five_megabyte_result_with_a_secret_leaks_nothing(request, transport, longest_line):
    plugin = target(request, transport)
    run = ScriptedRun(plugin)
    output = ("record " * 100_000 + SECRET) * 7  # some 5 MB, the key in it seven times
    result = run([call(), {"text": "Done."}], tools=[secret_tool([text_message(output)])], timeout=120)
    assert_clean_end(result)
    assert result.text == "Done."
    assert SECRET not in json.dumps(result.llm_requests[1])
    assert_no_secret(plugin, result)
    assert longest_line[0] <= protocol.MAX_LINE_BYTES


# -- the daemon's side --------------------------------------------------------------------------------


def test_a_request_sent_twice_over_tcp_runs_once(remote, monkeypatch):
    """Over stdio a session's second request is refused (``FirstRequests``); the TCP reader ran it
    again: the tool called twice, two answers on one stream."""
    original = RemotePlugin._send_request

    def twice(self, line):
        original(self, line)
        original(self, line)

    monkeypatch.setattr(RemotePlugin, "_send_request", twice)
    run = ScriptedRun(remote)
    result = run([call(), answer_turn("function_calling", "done")] * 2, tools=[secret_tool([text_message("ok")])])
    time.sleep(0.5)  # a second run would be under way by now
    assert_clean_end(result)
    assert result.text == "done"
    assert len(run.toolbox.calls) == 1, "the tool is called once, as the model asked"
    assert len(run.backend.requests) == 2


def test_a_request_posted_twice_to_serverless_runs_once(serverless, monkeypatch):
    """The daemon retries ``/invoke`` on a 502 from a gateway, which may come while the first
    invocation runs."""
    original = ServerlessPlugin._send_request

    def twice(self, line):
        original(self, line)
        time.sleep(0.2)
        original(self, line)

    monkeypatch.setattr(ServerlessPlugin, "_send_request", twice)
    run = ScriptedRun(serverless)
    before = len(serverless.transactions)
    result = run([call(), answer_turn("function_calling", "done")] * 2, tools=[secret_tool([text_message("ok")])])
    time.sleep(0.5)
    assert_clean_end(result)
    assert result.text == "done"
    assert len(run.toolbox.calls) == 1, "the tool is called once, as the model asked"
    ran = [t["type"] for t in serverless.transactions[before:] if t["session_id"] == result.session_id]
    assert ran == ["llm", "tool", "llm"], "one run: a second would have asked the model again"



def test_a_model_chunk_with_invalid_utf8_over_tcp_is_read(remote, tamper):
    tamper(bytes_not_utf8_in_model_chunks)
    run = ScriptedRun(remote)
    result = run([{"text": "the CAFE is open", "split": 4}])
    assert_clean_end(result)
    assert result.text == "the CA\ufffd\ufffdE is open"


def test_a_twenty_megabyte_line_over_tcp_costs_little_and_is_not_logged(remote, tamper):
    """A line of 20 MB that is not JSON, the canary at its end: the SDK's TCP reader logged a line
    it could not parse whole (20 MB on stderr, the key with it), and joined the pieces of a long
    line by copying all that came so far at each read."""
    stderr_before = len(remote.stderr_tail(10_000))
    before = cpu_seconds(remote.pid)

    def hook(kind, line, send, handle):
        if kind == "llm" and line["data"]["event"] == "response":
            with handle.process._write_lock:
                handle.process._write(b'{"session_id": "' + handle.session_id.encode() + b'", "x": "'
                                      + b"y" * 20_000_000 + SECRET.encode() + b"\n")
        send(line)

    tamper(hook)
    run = ScriptedRun(remote)
    result = run([{"text": "Still here."}], tools=[secret_tool([text_message("ok")])], timeout=60)
    assert_clean_end(result)
    assert result.text == "Still here."
    assert cpu_seconds(remote.pid) - before < 3.0
    written = remote.stderr_tail(10_000)[stderr_before:]
    assert sum(len(text) for text in written) < 20_000, "the line is not written to the log"
    assert_no_secret(remote, result)


# -- a neighbour --------------------------------------------------------------------------------------


def test_a_neighbour_over_tcp_streams_beside_a_five_megabyte_message(remote):
    """A tool's JSON message of 5 MB (many records) for one session while another streams: over
    stdio the reader parses such a line aside; the TCP reader parsed it in turn."""
    results = {}
    records = {"records": [{"id": n, "name": f"item {n}"} for n in range(150_000)]}
    tool = ScriptedTool(name="dump", description="Dumps", parameters=[ToolParam("q")],
                        responses=[{"type": "json", "message": {"json_object": records}, "meta": None}])

    def light() -> None:
        backend = Paced(ScriptedBackend([{"text": "w " * 400, "split": 2}]), 0.01)
        with pace:
            results["light"] = run_scenario(Scenario(query="hi"), backend, default_toolbox(), plugin=remote, timeout=60)

    pace = Pace()
    thread = threading.Thread(target=light)
    thread.start()
    time.sleep(0.5)
    heavy = ScriptedRun(remote)
    results["heavy"] = heavy([{"tool_calls": [{"id": "c1", "name": "dump", "arguments": {"q": "x"}}]},
                              {"text": "ok"}], tools=[tool], timeout=60)
    thread.join()
    assert_clean_end(results["light"])
    assert_clean_end(results["heavy"])
    assert_not_held(worst_gap(results["light"]), 0.75, pace)


# -- the connection dropped ---------------------------------------------------------------------------


def test_the_tcp_connection_dropped_mid_run_is_survived_without_spinning():
    """The daemon restarts or the network drops: the SDK reconnects (three attempts, 5 s apart);
    between and after them the plugin must not spin, and a run that was waiting for its model ends
    instead of waiting out the SDK's invocation limit (15 minutes here)."""
    with RemoteDebugServer() as endpoint:
        plugin = endpoint.launch(DEFAULT_PLUGIN_DIR)
        backend = ScriptedBackend([{"text": "The warranty", "hang": True}])
        toolbox = default_toolbox()
        handle = plugin.start_run(Scenario(query="hi").run_request(toolbox, plugin.plugin_dir, None), backend, toolbox)
        try:
            deadline = time.monotonic() + 30
            while not handle.result.text and time.monotonic() < deadline:
                time.sleep(0.05)
            pid, before = plugin.pid, cpu_seconds(plugin.pid)
            assert plugin._sock is not None
            plugin._sock.shutdown(socket.SHUT_RDWR)  # the daemon's side goes away; the process stays
            plugin._sock.close()
            again = endpoint.accept(timeout=20, into=RemotePlugin(DEFAULT_PLUGIN_DIR))
            assert again.registration[0] == "handshake"
            used = cpu_seconds(pid) - before
            assert used < 3.0, f"{used:.1f} s of CPU while disconnected"
            result = ScriptedRun(again)([{"text": "Back."}])
            assert_clean_end(result)
            assert result.text == "Back."
            # the old run's model call failed at its next poll (not after the 15 minutes of the SDK's
            # invocation limit) and the run ended; its last lines could not be written while the
            # connection was down, which the SDK notes on stderr with its own words
            assert any("the connection to the daemon at" in line for line in plugin.stderr_tail(200))
            assert any("Unexpected error occurred when executing request" in line
                       for line in plugin.stderr_tail(200)), "the old run still waits for a reply that cannot come"
        finally:
            backend.release()
            endpoint.close()
            plugin.close()


def test_a_plugin_whose_daemon_is_gone_exits_without_spinning():
    with RemoteDebugServer() as endpoint:
        plugin = endpoint.launch(DEFAULT_PLUGIN_DIR)
        pid, before = plugin.pid, cpu_seconds(plugin.pid)
        endpoint._listener.close()  # no daemon to reconnect to
        plugin._sock.shutdown(socket.SHUT_RDWR)
        plugin._sock.close()
        deadline = time.monotonic() + 30
        while plugin.returncode is None and time.monotonic() < deadline:
            time.sleep(0.2)
        used = cpu_seconds(pid) - before if plugin.returncode is None else 0.0
        try:
            assert plugin.returncode is not None, f"still running after 30 s ({used:.1f} s of CPU)"
            assert plugin.returncode == 1
            assert any("could not be made again" in line for line in plugin.stderr_tail(200))
        finally:
            plugin.close()


# -- the deadline ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_run_outliving_the_deadline_ends_with_a_clear_error_in_time(transport):
    env = {"PLUGIN_MAX_EXECUTION_TIMEOUT": "12"}
    backend = ScriptedBackend([{"text": "Thinking", "hang": True}])
    started = time.monotonic()
    if transport == "remote":
        endpoint = RemoteDebugServer()
        plugin = endpoint.launch(DEFAULT_PLUGIN_DIR, env=env)
    else:
        endpoint = None
        plugin = ServerlessPlugin(DEFAULT_PLUGIN_DIR, env=env).start()
    try:
        started = time.monotonic()
        result = run_scenario(Scenario(query="hi"), backend, ToolBox(), plugin=plugin, timeout=30)  # type: ignore[arg-type]
        took = time.monotonic() - started
        assert took < 12, f"{took:.1f} s: the daemon's timeout came first"
        assert result.unfinished_logs() == []
        # the reply still streaming at the deadline is cut there, with a notice (docs/architecture.md)
        assert result.ok, result.error_text
        assert result.text.startswith("Thinking") and len(result.text) > len("Thinking") + 20
    finally:
        backend.release()
        plugin.close()
        if endpoint is not None:
            endpoint.close()

