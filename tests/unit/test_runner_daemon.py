"""Local runner daemon: framing, routing, backwards answers, failures - against a fake plugin
process (local_runner/fake_plugin.py) so every byte and every timing is under control."""

from __future__ import annotations

import gc
import json
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from local_runner.backends import ScriptedBackend
from local_runner.daemon import (
    FREEZE_EVERY,
    FairLock,
    PluginConnection,
    PluginError,
    PluginProcess,
    RunRequest,
    plugin_command,
    plugin_env,
)
from local_runner.fake_plugin import DEFAULT_MANIFEST
from local_runner.tools import LOCAL_PROVIDER, ScriptedTool, ToolBox, text_message

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")
TOOL_REQUEST = {"tool_type": "builtin", "provider": LOCAL_PROVIDER, "tool": "slow", "tool_parameters": {"q": "x"}}
LLM_REQUEST = {
    "provider": "p",
    "model": "m",
    "mode": "chat",
    "completion_params": {},
    "prompt_messages": [],
    "tools": None,
    "stop": None,
    "stream": True,
}
REQUEST = RunRequest("probe", {"query": "hi"}, tool_credentials={LOCAL_PROVIDER: "cred"})


@pytest.fixture(scope="module")
def fake_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("fake_plugin")
    (folder / "main.py").write_text("from local_runner.fake_plugin import main\n\nmain()\n")
    (folder / "manifest.yaml").write_text("meta:\n  runner:\n    entrypoint: main\n")
    return folder


def fake(fake_dir: Path, **config: Any) -> PluginProcess:
    """A PluginProcess on the fake plugin configured with ``config``."""
    options = {
        key: config.pop(key) for key in ("heartbeat_timeout", "ready_timeout", "raw_llm_chunks") if key in config
    }
    env = {"FAKE_PLUGIN": json.dumps(config), "PYTHONPATH": str(ROOT)}
    return PluginProcess(fake_dir, python=sys.executable, env=env, **options)


def toolbox(latency: float = 0.0) -> ToolBox:
    return ToolBox([ScriptedTool(name="slow", responses=[text_message("one"), text_message("two")], latency=latency)])


def invokes(result: Any, index: int = -1) -> list[dict[str, Any]]:
    """The fake plugin's report of its backwards invocations (the json message at ``index``)."""
    return [obj for obj in result.json_messages if "invokes" in obj][index]["invokes"]


def test_env_forces_local_mode_and_drops_remote_settings() -> None:
    env = plugin_env(
        {"PATH": "/bin", "REMOTE_INSTALL_URL": "x:5003", "REMOTE_INSTALL_KEY": "k", "INSTALL_METHOD": "remote"},
        {"A": "1"},
    )
    assert env == {"PATH": "/bin", "A": "1", "INSTALL_METHOD": "local"}


def test_command_uses_the_plugin_venv_and_manifest_entrypoint(tmp_path: Path) -> None:
    (tmp_path / "manifest.yaml").write_text("meta: {runner: {entrypoint: app}}\n")
    assert plugin_command(tmp_path, "/usr/bin/python3") == ["/usr/bin/python3", "-m", "app"]
    assert plugin_command(tmp_path)[0] == sys.executable
    assert plugin_command(ROOT)[1:] == ["-m", "main"]


def test_start_reads_manifest_skips_noise_and_sends_the_request(fake_dir: Path) -> None:
    with fake(fake_dir, noise=["stray print", ""], script=[{"echo_request": True}]) as plugin:
        assert plugin.manifest == DEFAULT_MANIFEST
        assert plugin.noise == ["stray print"]
        assert plugin.plugin_logs[0]["message"] == "fake plugin started"
        result = plugin.run(REQUEST, ScriptedBackend([]), toolbox(), timeout=10)
    assert result.ok and result.ended
    line = result.json_messages[0]["request"]
    uuid.UUID(line["session_id"])
    assert line["session_id"] == result.session_id
    assert line["context"] == {"credentials": {"tool_credentials": {LOCAL_PROVIDER: "cred"}}}
    assert line["data"]["agent_strategy"] == "probe" and line["data"]["agent_strategy_params"] == {"query": "hi"}
    assert line["data"]["type"] == "agent_strategy" and line["data"]["action"] == "invoke_agent_strategy"
    directions = [(entry["dir"], entry.get("json", {}).get("event")) for entry in result.transcript]
    assert directions[0] == ("to_plugin", "request") and ("from_plugin", "session") in directions


def test_llm_reply_is_one_response_per_chunk_then_end(fake_dir: Path) -> None:
    backend = ScriptedBackend([{"text": "Hi there", "split": 4, "usage": {"prompt_tokens": 3, "completion_tokens": 2}}])
    with fake(fake_dir, script=[{"invoke": {"type": "llm", "request": LLM_REQUEST}}]) as plugin:
        result = plugin.run(REQUEST, backend, toolbox(), timeout=10)
    events = invokes(result)[0]["events"]
    assert [(e["event"], e["message"]) for e in events] == [("response", "stream")] * 3 + [("end", "")]
    assert [e["data"]["delta"]["message"]["content"] for e in events[:3]] == ["Hi t", "here", ""]
    assert events[2]["data"]["delta"]["usage"]["total_tokens"] == 5 and events[-1]["data"] is None
    assert backend.requests == [LLM_REQUEST] and result.llm_requests == [LLM_REQUEST]
    assert result.llm_usages == [events[2]["data"]["delta"]["usage"]]


def test_llm_chunks_are_reserialized_like_the_go_daemon_unless_raw(fake_dir: Path) -> None:
    turn = {"chunks": [{"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}]}
    for raw, expected in [
        (False, {"id": "", "type": "", "function": {"name": "", "arguments": "{}"}}),
        (True, {"index": 0, "function": {"arguments": "{}"}}),
    ]:
        with fake(fake_dir, raw_llm_chunks=raw, script=[{"invoke": {"type": "llm", "request": LLM_REQUEST}}]) as plugin:
            result = plugin.run(REQUEST, ScriptedBackend([turn]), toolbox(), timeout=10)
        assert invokes(result)[0]["events"][0]["data"]["delta"]["message"]["tool_calls"] == [expected]


def test_parallel_tool_calls_are_served_concurrently(fake_dir: Path) -> None:
    tools = toolbox(latency=0.5)
    script = [{"parallel": [{"type": "tool", "request": TOOL_REQUEST}] * 3}]
    with fake(fake_dir, script=script) as plugin:
        result = plugin.run(REQUEST, ScriptedBackend([]), tools, timeout=10)
    reports = invokes(result)
    assert max(r["finished"] for r in reports) - min(r["started"] for r in reports) < 1.2
    for report in reports:
        assert [(e["event"], e["data"]) for e in report["events"]] == [
            ("response", text_message("one")),
            ("response", text_message("two")),
            ("end", None),
        ]
    assert len(tools.requests) == 3 and result.tool_requests == [TOOL_REQUEST] * 3


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        ({"type": "llm", "request": LLM_REQUEST}, "invoke llm model failed: rate limited"),
        (
            {"type": "tool", "request": {**TOOL_REQUEST, "tool": "nope"}},
            "invoke tool failed: tool 'nope' is not in the toolbox (known: slow)",
        ),
        ({"type": "storage", "request": {}}, "unsupported invoke type: storage (the local runner serves llm, llm_structured_output and tool)"),
    ],
)
def test_backend_failures_are_error_then_end(fake_dir: Path, call: dict[str, Any], expected: str) -> None:
    with fake(fake_dir, script=[{"invoke": call}]) as plugin:
        result = plugin.run(REQUEST, ScriptedBackend([{"error": "rate limited"}]), toolbox(), timeout=10)
    events = invokes(result)[0]["events"]
    assert [(e["event"], e["message"], e["data"]) for e in events] == [("error", expected, None), ("end", "", None)]


def test_permissions_are_checked_against_the_manifest(fake_dir: Path) -> None:
    manifest = {**DEFAULT_MANIFEST, "resource": {"memory": 1, "permission": {"model": {"enabled": True, "llm": False}}}}
    backend = ScriptedBackend([{"text": "never played"}])
    script = [{"parallel": [{"type": "llm", "request": LLM_REQUEST}, {"type": "tool", "request": TOOL_REQUEST}]}]
    with fake(fake_dir, manifest=manifest, script=script) as plugin:
        result = plugin.run(REQUEST, backend, toolbox(), timeout=10)
    messages = [[e["message"] for e in report["events"]] for report in invokes(result)]
    assert messages == [
        ["permission denied, you need to enable llm access in plugin manifest", ""],
        ["permission denied, you need to enable tool access in plugin manifest", ""],
    ]
    assert backend.requests == []


def test_session_error_is_recorded(fake_dir: Path) -> None:
    with fake(fake_dir, script=[{"stream": text_message("partial")}, {"error": "strategy blew up"}]) as plugin:
        result = plugin.run(REQUEST, ScriptedBackend([]), toolbox(), timeout=10)
    assert result.ended and not result.ok
    assert result.error == {"error_type": "FakeError", "message": "strategy blew up", "args": {}}
    assert result.text == "partial" and result.error_text == "FakeError: strategy blew up"


def test_concurrent_sessions_are_routed_by_session_id(fake_dir: Path) -> None:
    script = [{"sleep": 0.3}, {"invoke": {"type": "llm", "request": LLM_REQUEST}}]
    with fake(fake_dir, script=script) as plugin:
        handles = [plugin.start_run(REQUEST, ScriptedBackend([{"text": f"answer {n}"}]), toolbox()) for n in range(3)]
        started = time.monotonic()
        results = [handle.wait(10) for handle in handles]
        assert time.monotonic() - started < 1.5
    for n, result in enumerate(results):
        events = invokes(result)[0]["events"]
        assert events[0]["data"]["delta"]["message"]["content"] == f"answer {n}"
        assert all(entry.get("json", {}).get("session_id") in (None, result.session_id) for entry in result.transcript)
    assert len({result.session_id for result in results}) == 3


def test_a_plugin_crash_ends_the_run_with_a_clear_error(fake_dir: Path) -> None:
    with fake(fake_dir, script=[{"stream": text_message("bye")}, {"exit": 3}]) as plugin:
        started = time.monotonic()
        result = plugin.run(REQUEST, ScriptedBackend([]), toolbox(), timeout=30)
        assert time.monotonic() - started < 5
        with pytest.raises(PluginError, match=r"plugin is not running \(exit code 3\)"):
            plugin.start_run(REQUEST, ScriptedBackend([]), toolbox())
    assert result.failure == "plugin process exited with code 3" and not result.ended
    assert result.text == "bye"


def test_python_warnings_on_stderr_are_kept_apart(fake_dir: Path) -> None:
    warning = "/plugin/.venv/lib/pydantic/main.py:520: UserWarning: Pydantic serializer warnings:"
    script = [{"stderr": "an ordinary log line: Warning: not a Python one"}, {"stderr": warning},
              {"stderr": "  return self.__pydantic_serializer__.to_python("}, {"stream": text_message("ok")}]
    with fake(fake_dir, script=script) as plugin:
        result = plugin.run(REQUEST, ScriptedBackend([]), toolbox(), timeout=30)
        deadline = time.monotonic() + 5
        while not plugin.warnings and time.monotonic() < deadline:  # stderr is read by its own thread
            time.sleep(0.01)
    assert result.text == "ok"
    assert plugin.warnings == [warning]


def test_a_plugin_that_dies_at_start_is_reported_with_its_output(fake_dir: Path) -> None:
    with pytest.raises(PluginError, match=r"exited with code 4 before its first heartbeat(.|\n)*stray line"):
        fake(fake_dir, exit_at_start=4, noise=["stray line"]).start()


def test_missing_first_heartbeat_times_out(fake_dir: Path) -> None:
    plugin = fake(fake_dir, heartbeat=False, ready_timeout=0.5)
    with pytest.raises(PluginError, match=r"no heartbeat within 0\.5 s"):
        plugin.start()
    assert not plugin.alive


def test_lost_heartbeat_kills_the_plugin_and_fails_the_run(fake_dir: Path) -> None:
    script = [{"stop_heartbeat": True}, {"sleep": 10}]
    with fake(fake_dir, heartbeat_timeout=0.6, script=script) as plugin:
        result = plugin.run(REQUEST, ScriptedBackend([]), toolbox(), timeout=10)
        assert not plugin.alive
    assert result.failure is not None and result.failure.startswith("plugin sent no heartbeat for")


def test_run_timeout_fails_the_run_but_keeps_the_plugin(fake_dir: Path) -> None:
    with fake(fake_dir, script=[{"sleep": 1.0}]) as plugin:
        slow = plugin.run(REQUEST, ScriptedBackend([]), toolbox(), timeout=0.3)
        assert slow.failure == "run did not end within 0.3 s"
        assert plugin.run(REQUEST, ScriptedBackend([]), toolbox(), timeout=10).ok


def test_close_kills_the_process_and_fails_open_runs(fake_dir: Path) -> None:
    plugin = fake(fake_dir, script=[{"sleep": 10}]).start()
    handle = plugin.start_run(REQUEST, ScriptedBackend([]), toolbox())
    plugin.close()
    assert plugin.returncode is not None
    assert handle.wait(5).failure == "plugin process was closed by the runner"


def test_on_update_sees_every_event(fake_dir: Path) -> None:
    seen: list[int] = []
    script = [{"stream": text_message("a")}, {"stream": text_message("b")}]
    with fake(fake_dir, script=script) as plugin:
        result = plugin.run(
            REQUEST, ScriptedBackend([]), toolbox(), on_update=lambda r: seen.append(len(r.messages)), timeout=10
        )
    assert seen == [1, 2, 2] and result.ok


def test_stray_lines_mid_run_are_kept_for_diagnostics(fake_dir: Path) -> None:
    with fake(fake_dir, script=[{"print": "debug: x=1"}, {"stream": text_message("ok")}]) as plugin:
        result = plugin.run(REQUEST, ScriptedBackend([]), toolbox(), timeout=10)
        assert plugin.noise == ["debug: x=1"]
    assert result.ok and result.text == "ok"
    assert {"dir": "from_plugin", "text": "debug: x=1"}.items() <= next(
        e for e in result.transcript if "text" in e
    ).items()


class _PipeLike(PluginConnection):
    """A connection whose every write takes ``write_seconds`` (a pipe the plugin reads slowly),
    recording which session each line was for."""

    def __init__(self, write_seconds: float) -> None:
        super().__init__(heartbeat_timeout=None)
        self.write_seconds = write_seconds
        self.written: list[str] = []

    @property
    def alive(self) -> bool:
        return True

    def _write(self, data: bytes) -> None:
        time.sleep(self.write_seconds)
        self.written.append(json.loads(data)["session_id"])


def test_a_session_sending_a_burst_does_not_hold_back_another_sessions_line() -> None:
    """The daemon writes each session's lines in turn (Go's mutex hands itself to a waiter): a
    session's one line waits for at most a few lines of another session sending 400 in a row."""
    connection = _PipeLike(write_seconds=0.001)
    burst = threading.Thread(target=lambda: [connection.send({"session_id": "heavy", "n": n}) for n in range(400)])
    burst.start()
    while len(connection.written) < 20:
        time.sleep(0.001)
    sent_at = len(connection.written)
    connection.send({"session_id": "light"})
    burst.join()
    assert connection.written.count("light") == 1
    assert connection.written.index("light") - sent_at <= 3
    assert connection.written.count("heavy") == 400


def test_lines_sent_from_several_threads_are_each_written_whole_and_recorded_in_write_order() -> None:
    connection = _PipeLike(write_seconds=0.0)
    threads = [threading.Thread(target=lambda s=s: [connection.send({"session_id": s, "n": n}) for n in range(200)])
               for s in ("a", "b", "c")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    recorded = [entry["json"]["session_id"] for entry in connection.transcript if entry["dir"] == "to_plugin"]
    assert recorded == connection.written
    for session in ("a", "b", "c"):
        assert [entry["json"]["n"] for entry in connection.transcript if entry["json"]["session_id"] == session] \
            == list(range(200))


def test_fair_lock_is_handed_to_the_waiter_not_taken_back_by_the_releaser() -> None:
    lock = FairLock()
    order: list[str] = []
    lock.acquire()
    waiter = threading.Thread(target=lambda: (lock.acquire(), order.append("waiter"), lock.release()))
    waiter.start()
    while not lock._waiters:
        time.sleep(0.001)
    lock.release()
    with lock:  # the releaser asks again at once: it comes after the waiter
        order.append("releaser")
    waiter.join()
    assert order == ["waiter", "releaser"]
    with pytest.raises(RuntimeError):
        lock.release()


def test_the_transcript_is_moved_out_of_the_collectors_sight_as_it_grows() -> None:
    """Python's full collections walk every object with the GIL held, stalling every session the
    runner serves; transcript entries live as long as the connection, so they are frozen."""
    connection = _PipeLike(write_seconds=0.0)
    frozen = gc.get_freeze_count()
    try:
        for n in range(FREEZE_EVERY):
            connection.send({"session_id": "s", "data": {"n": n, "chunk": {"tool_calls": []}}})
        assert gc.get_freeze_count() - frozen >= FREEZE_EVERY
    finally:
        gc.unfreeze()
