"""Red-team wave 33, the daemon's side of the protocol, through the real plugin process: a daemon
that sends a session's request twice, a line that is not UTF-8, and a pipe closed in the middle of
a run. Each run ends with an answer or a clear error, no log node is left in ``start``, and a tool
is called no more often than the model asked.
"""

import json
import threading
import time

import pytest

from local_runner import PluginProcess, Scenario, ScriptedBackend, default_toolbox
from local_runner.daemon import DEFAULT_PLUGIN_DIR
from tests.e2e.helpers import STRATEGIES, answer_turn, bytes_not_utf8_in_model_chunks


def call_turn(strategy: str, name: str) -> dict:
    if strategy == "ReAct":
        return {"text": f"Thought: use {name}.\nAction:\n```json\n" + json.dumps({"action": name, "action_input": {}})
                + "\n```"}
    return {"tool_calls": [{"id": "c1", "name": name, "arguments": {}}]}



def assert_no_open_logs(result) -> None:
    assert result.unfinished_logs() == [], [n.label for n in result.unfinished_logs()]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("when", ["at once", "while the first runs"])
def test_a_sessions_request_sent_again_is_not_run_twice(run, tamper, monkeypatch, strategy, when):
    """The daemon gives every request a session of its own. A request line sent again for a session
    ran the strategy twice in it: its tools called twice (a mail sent twice), and the second run's
    lines written after the first run's end (its log nodes left in ``start`` for the daemon)."""
    again: list[dict] = []
    original = type(run.plugin)._send_request

    def send_request(self, line):
        original(self, line)
        again.append(line)
        if when == "at once":
            original(self, line)

    monkeypatch.setattr(type(run.plugin), "_send_request", send_request)

    def hook(kind, line, send, handle):
        if when != "at once" and kind == "tool" and line["data"]["event"] == "end" and again:
            handle.process.send(again.pop())  # the same request, while the first run waits for its tool
            time.sleep(0.3)
        send(line)

    tamper(hook)
    turns = [call_turn(strategy, "current_time"), answer_turn(strategy, "done")] * 2
    result = run(turns, tools=["current_time"], strategy=strategy)
    assert result.ok and result.text == "done", result.error_text
    assert len(run.toolbox.calls) == 1, "the tool is called once, as the model asked"
    assert len(run.backend.requests) == 2
    assert_no_open_logs(result)
    assert any(result.session_id in str(error) and "not run" in str(error) for error in run.plugin.plugin_errors)


def test_a_model_chunk_with_bytes_that_are_not_utf8_is_read_not_dropped(run, tamper):
    """The plugin's reader refused the line and read on: the piece of the answer it held was lost
    without a word ("the CAFE is open" reached the user as "the s open"). It is read with U+FFFD,
    as the daemon's Go decoder reads such bytes."""

    tamper(bytes_not_utf8_in_model_chunks)
    result = run([{"text": "the CAFE is open", "split": 4}])  # "CAFE" is one chunk
    assert result.ok, result.error_text
    assert result.text == "the CA\ufffd\ufffdE is open"
    assert_no_open_logs(result)


def _cpu_ticks(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def test_stdin_closed_mid_run_ends_the_run_with_a_clear_error_and_the_plugin_exits():
    """With the daemon's pipe closed, the plugin's reader asked for more for ever (the SDK's at full
    speed), and a run waiting for its model waited for a reply that could never come. Now the
    waiting call fails at its next poll, the run ends with an error saying why, and the process
    exits with code 0, using almost no CPU meanwhile."""
    with PluginProcess(DEFAULT_PLUGIN_DIR) as plugin:
        backend, toolbox = ScriptedBackend([{"text": "The warranty", "hang": True}]), default_toolbox()
        handle = plugin.start_run(Scenario(query="hi").run_request(toolbox, plugin.plugin_dir, None), backend, toolbox)
        try:
            deadline = time.monotonic() + 30
            while not handle.result.text and time.monotonic() < deadline:
                time.sleep(0.05)
            assert handle.result.text == "The warranty"
            pid, before = plugin.pid, _cpu_ticks(plugin.pid)
            plugin._proc.stdin.close()
            ticks = 0
            for _ in range(200):
                if plugin.returncode is not None:
                    break
                ticks = _cpu_ticks(pid) - before
                time.sleep(0.05)
            assert plugin.returncode == 0, plugin.stderr_tail()
            assert ticks < 100, f"{ticks / 100:.2f} s of CPU while the pipe was closed"
            result = handle.wait(5)
            assert not result.ok
            assert "closed the plugin's input" in result.error_text
            assert result.text == "The warranty", "the text already streamed stays"
            assert_no_open_logs(result)
            assert any("closed the plugin's stdin" in line for line in plugin.stderr_tail())
        finally:
            backend.release()
            threading.Thread(target=plugin.close, daemon=True).start()
