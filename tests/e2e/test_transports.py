"""The real plugin over every transport Dify runs plugins with (protocol §1-§3).

* stdio (``PluginProcess``, the conftest ``plugin``): concurrent sessions whose backwards
  invocations interleave, both strategies, and no state kept between invocations;
* TCP remote debugging (``RemoteDebugServer``): the settings from the environment and from
  the ``.env`` a developer writes; registration checks; the heartbeat watch;
* serverless (``ServerlessPlugin``): ``/invoke`` plus backwards transactions.

The same scripted scenario must produce the same model requests on every transport.
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from local_runner import (
    PluginError,
    PluginProcess,
    RunResult,
    Scenario,
    ScriptedBackend,
    ToolBox,
    default_toolbox,
    run_scenario,
    serve_debug,
    text_message,
)
from local_runner.daemon import DEFAULT_PLUGIN_DIR, PluginConnection, plugin_env, plugin_python
from local_runner.remote import RemoteDebugServer, RemotePlugin
from local_runner.serverless import SESSION_HEADER, TRANSACTION_PATH, ServerlessPlugin, free_port
from local_runner.tools import LocalTool, ToolParam
from tests.e2e.helpers import STRATEGIES, assert_clean_end

pytestmark = pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")
PYTHON = plugin_python(DEFAULT_PLUGIN_DIR)  # the runner's choice: the project's .venv, else this interpreter
SCENARIO = DEFAULT_PLUGIN_DIR / "scenarios" / "calculator.yaml"
ASSETS = {path.name: path.read_bytes() for path in (DEFAULT_PLUGIN_DIR / "_assets").iterdir() if path.is_file()}
ASSET_CHUNKS = sum(-(-len(data) // 8192) for data in ASSETS.values())  # the SDK sends assets in 8 KiB chunks
CALCULATOR_TURNS = [
    {
        "text": "Let me compute. ",
        "tool_calls": [{"id": "call_1", "name": "calculator", "arguments": {"expression": "6 * 7"}}],
    },
    {"text": "It is 42."},
]


@pytest.fixture(scope="module")
def remote() -> Iterator[RemotePlugin]:
    """The plugin connected over TCP remote debugging, settings in its environment."""
    with RemoteDebugServer() as server:
        yield server.launch(DEFAULT_PLUGIN_DIR)


def calculator_run(plugin: PluginConnection, strategy: str = "function_calling") -> tuple[RunResult, ScriptedBackend]:
    """The calculator scenario with a tool call, on ``plugin``; checks that it went well."""
    backend, toolbox = ScriptedBackend(CALCULATOR_TURNS), default_toolbox()
    scenario = Scenario(query="What is 6 times 7?", tools=["calculator"], strategy=strategy)
    result = run_scenario(scenario, backend, toolbox, plugin=plugin, timeout=30)  # type: ignore[arg-type]
    assert_clean_end(result)
    assert result.text == "Let me compute. \n\nIt is 42."
    backend.assert_complete()
    assert [(r["tool"], r["tool_parameters"]) for r in toolbox.requests] == [("calculator", {"expression": "6 * 7"})]
    assert "6 * 7 = 42" in json.dumps(backend.requests[1]["prompt_messages"])
    return result, backend


def plugin_copy(tmp_path: Path) -> Path:
    """The plugin folder as a developer has it (no venv, tests or caches), in ``tmp_path``."""
    junk = shutil.ignore_patterns(
        ".venv", ".git", "tests", "bench", "__pycache__", ".pytest_cache", ".ruff_cache", ".env"
    )
    return shutil.copytree(DEFAULT_PLUGIN_DIR, tmp_path / "plugin", ignore=junk)


# -- TCP remote debugging -------------------------------------------------------------------------


def test_remote_debug_with_settings_in_the_environment(remote: RemotePlugin, plugin: PluginProcess) -> None:
    assert remote.registration[:3] == ["handshake", "manifest_declaration", "agent_strategy_declaration"]
    assert remote.registration[3:] == ["asset_chunk"] * ASSET_CHUNKS + ["end"]
    assert remote.assets == ASSETS
    assert remote.manifest is not None and remote.manifest["name"] == "robust_agent"
    (provider,) = remote.declarations["agent_strategy_declaration"]
    assert provider["identity"]["name"] == "agent"
    assert sorted(s["identity"]["name"] for s in provider["strategies"]) == sorted(STRATEGIES)
    assert remote.heartbeat_age() < 15 and remote.pid is not None
    # the stdout reader runs on its own thread: on a busy machine the log can trail registration
    deadline = time.monotonic() + 15
    while not any("Installed agent" in str(log.get("message")) for log in remote.plugin_logs):
        assert time.monotonic() < deadline, "logs stay on stdout"
        time.sleep(0.05)

    result, backend = calculator_run(remote)
    sent = [e["json"] for e in result.transcript if e["dir"] == "to_plugin"]
    assert sent[0]["event"] == "request" and sent[0]["session_id"] == result.session_id
    assert {e["data"]["event"] for e in sent[1:]} == {"response", "end"}
    _, baseline = calculator_run(plugin)
    assert backend.requests == baseline.requests, "the same model requests as over stdio"


def test_remote_debug_with_a_dotenv_file_like_a_developer(tmp_path: Path) -> None:
    folder = plugin_copy(tmp_path)
    with RemoteDebugServer() as server:
        server.write_dotenv(folder)
        assert (folder / ".env").read_text() == (
            f"INSTALL_METHOD=remote\nREMOTE_INSTALL_URL=127.0.0.1:{server.port}\nREMOTE_INSTALL_KEY={server.key}\n"
        )
        with pytest.raises(FileExistsError):
            server.write_dotenv(folder)
        hostile = {"INSTALL_METHOD": "local", "REMOTE_INSTALL_KEY": "not-the-key"}
        assert plugin_env(hostile, install_method=None) == {}, "nothing in the environment overrides the .env"
        plugin = server.launch(folder, python=PYTHON, settings_in_env=False)
        assert plugin.key == server.key and plugin.plugin_dir == folder.resolve()
        for strategy in STRATEGIES:
            turns = CALCULATOR_TURNS if strategy == "function_calling" else react_calculator_turns()
            backend, toolbox = ScriptedBackend(turns), default_toolbox()
            scenario = Scenario(query="What is 6 times 7?", tools=["calculator"], strategy=strategy)
            result = run_scenario(scenario, backend, toolbox, plugin=plugin, timeout=30)  # type: ignore[arg-type]
            assert_clean_end(result)
            assert result.text.endswith("It is 42.") and len(toolbox.requests) == 1
    assert not plugin.alive and plugin.returncode is not None, "closing the server ends the plugin it launched"


def react_calculator_turns() -> list[dict[str, Any]]:
    action = {"action": "calculator", "action_input": {"expression": "6 * 7"}}
    return [
        {"text": f"Thought: compute it.\nAction:\n```json\n{json.dumps(action)}\n```"},
        {"text": "Thought: done.\nFinal Answer: It is 42."},
    ]


def test_serve_debug_cli_waits_for_the_developers_plugin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``python -m local_runner.serve_debug --port P --key K`` + ``python -m main`` with a .env."""
    folder, port = plugin_copy(tmp_path), free_port()
    (folder / ".env").write_text(
        f"INSTALL_METHOD=remote\nREMOTE_INSTALL_URL=127.0.0.1:{port}\nREMOTE_INSTALL_KEY=dev-key\n"
    )
    argv = ["--port", str(port), "--key", "dev-key", "--wait", "30", "--scenario", str(SCENARIO), "--json"]
    codes: list[int] = []
    cli = threading.Thread(target=lambda: codes.append(serve_debug.main(argv)))
    cli.start()
    time.sleep(0.3)  # listening by now; if not, the SDK retries 5 s later
    developer = subprocess.Popen(
        [PYTHON, "-m", "main"],
        cwd=folder,
        env=plugin_env(os.environ, install_method=None),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        cli.join(40)
    finally:
        developer.kill()
        developer.wait(10)
    out, err = capsys.readouterr()
    assert codes == [0], err
    assert f"REMOTE_INSTALL_URL=127.0.0.1:{port}" in err and "plugin connected: handshake" in err
    output = json.loads(out)
    assert output["ok"] and "661.98 EUR" in output["text"]


def test_serve_debug_cli_can_launch_the_plugin(capsys: pytest.CaptureFixture[str]) -> None:
    code = serve_debug.main(["--launch", "--port", "0", "--scenario", str(SCENARIO), "--json"])
    output = json.loads(capsys.readouterr().out)
    assert code == 0 and output["ok"] and len(output["tool_requests"]) >= 1


def test_real_plugin_with_a_wrong_key_is_refused() -> None:
    with RemoteDebugServer() as server:
        with pytest.raises(PluginError, match=r"no plugin registered (.|\n)*handshake failed, invalid key"):
            # long enough for a start-up on a busy two-core machine (2 s was not, once)
            server.launch(DEFAULT_PLUGIN_DIR, env={"REMOTE_INSTALL_KEY": "wrong-key"}, ready_timeout=10)
        # the plugin retries until the launch gives up; a retry caught by that deadline is cut short
        assert "handshake failed, invalid key" in server.rejected
        assert set(server.rejected) <= {"handshake failed, invalid key", "no handshake in time"}


def _handshake(key: str) -> bytes:
    return json.dumps({"type": "handshake", "data": {"key": key}}).encode() + b"\n"


def _message(kind: str, data: Any) -> bytes:
    return json.dumps({"type": kind, "data": data}).encode() + b"\n\n"


MANIFEST = {"name": "p", "version": "0.0.1", "icon": "icon.svg"}
AGENTS = [{"identity": {"name": "agent"}, "strategies": [{"identity": {"name": "s"}}]}]
ICON = {"filename": "icon.svg", "data": base64.b64encode(b"<svg/>").decode(), "end": True}


@pytest.mark.parametrize(
    ("lines", "answer"),
    [
        ([_handshake("{key}x")], b"handshake failed, invalid key\n"),
        ([b"not json\n"], b"handshake failed, invalid handshake message\n"),
        ([_message("manifest_declaration", MANIFEST)], b"handshake failed, registration message before handshake\n"),
        ([_handshake("{key}"), _message("end", {})], b"no registration transferred, cannot initialize\n"),
        (
            [
                _handshake("{key}"),
                _message("manifest_declaration", MANIFEST),
                _message("agent_strategy_declaration", AGENTS),
                _message("end", {}),
            ],
            b"assets remap failed, invalid assets data, cannot remap: file not found: icon.svg\n",
        ),
        (
            [_handshake("{key}"), _message("agent_strategy_declaration", [{"identity": {}}])],
            b"agent strategies register failed, invalid agent strategies declaration: a provider without identity.name\n",
        ),
        ([_handshake("{key}"), _message("asset_chunk", {**ICON, "data": "!!"})], None),
        ([], b""),  # no handshake within the handshake timeout: closed without a word
    ],
)
def test_registration_is_checked_like_the_daemon(lines: list[bytes], answer: bytes | None) -> None:
    with RemoteDebugServer(handshake_timeout=0.2) as server:
        client = socket.create_connection(("127.0.0.1", server.port))
        client.sendall(b"".join(line.replace(b"{key}", server.key.encode()) for line in lines))
        with pytest.raises(PluginError, match="no plugin registered"):
            server.accept(timeout=0.4)
        client.settimeout(2)
        reply = b"".join(iter(lambda: client.recv(4096), b""))
        client.close()
    if answer is None:
        assert reply.startswith(b"assets decode failed, error: ")
    else:
        assert reply == answer
    assert server.rejected == [reply.decode().strip() or "no handshake in time"]


def test_a_registered_fake_connection_gets_the_session_protocol() -> None:
    """A minimal client (not the SDK) registers, sends a heartbeat and receives a request."""
    with RemoteDebugServer() as server:
        client = socket.create_connection(("127.0.0.1", server.port))
        registration = [
            _handshake(server.key),
            _message("manifest_declaration", MANIFEST),
            _message("agent_strategy_declaration", AGENTS),
            _message("asset_chunk", {**ICON, "data": base64.b64encode(b"<s").decode(), "end": False}),
            _message("asset_chunk", {**ICON, "data": base64.b64encode(b"vg/>").decode()}),
            _message("end", {}),
            b'{"event":"heartbeat","session_id":null,"data":{}}\n\n',
        ]
        client.sendall(b"".join(registration))
        plugin = server.accept(timeout=5)
        assert plugin.assets == {"icon.svg": b"<svg/>"} and plugin.registration[-1] == "end"
        request = Scenario(query="hi", strategy="s").run_request(ToolBox(), DEFAULT_PLUGIN_DIR, None)
        handle = plugin.start_run(request, ScriptedBackend([]), ToolBox())
        client.settimeout(5)
        line = json.loads(client.makefile("rb").readline())
        assert line["event"] == "request" and line["session_id"] == handle.session_id
        end = {"event": "session", "session_id": handle.session_id, "data": {"type": "end", "data": {}}}
        client.sendall(json.dumps(end).encode() + b"\n\n")
        assert handle.wait(5).ended
        open_run = plugin.start_run(request, ScriptedBackend([]), ToolBox())
        client.close()
        assert open_run.wait(5).failure == "plugin closed the connection"
        with pytest.raises(PluginError, match=r"plugin is not running \(disconnected\)"):
            plugin.start_run(request, ScriptedBackend([]), ToolBox())


def test_remote_heartbeat_watch_closes_a_silent_plugin() -> None:
    """The daemon drops a debugging plugin silent for 60 s; here the limit is 1 s and the
    plugin sends its first heartbeat only."""
    with RemoteDebugServer() as server:
        plugin = server.launch(DEFAULT_PLUGIN_DIR, env={"HEARTBEAT_INTERVAL": "3600"}, heartbeat_timeout=1.0)
        backend = ScriptedBackend([{"hang": True}])
        try:
            result = run_scenario(Scenario(query="hi"), backend, ToolBox(), plugin=plugin, timeout=20)  # type: ignore[arg-type]
        finally:
            backend.release()
    assert result.failure is not None
    assert result.failure.startswith("plugin sent no heartbeat for ") and result.failure.endswith(
        "closed the connection"
    )
    assert not plugin.connected


# -- serverless -------------------------------------------------------------------------------


def test_serverless_invoke_and_backwards_transactions(serverless: ServerlessPlugin, plugin: PluginProcess) -> None:
    assert serverless.healthy()
    before = len(serverless.transactions)
    result, backend = calculator_run(serverless)
    transactions = serverless.transactions[before:]
    assert [t["type"] for t in transactions] == ["llm", "tool", "llm"]
    assert {t["session_header"] for t in transactions} == {result.session_id}
    assert all(t["session_id"] == result.session_id for t in transactions)
    assert not any(e.get("json", {}).get("event") == "heartbeat" for e in result.transcript), "no heartbeats"
    _, baseline = calculator_run(plugin)
    assert backend.requests == baseline.requests, "the same model requests as over stdio"


def test_serverless_keepalives_while_the_model_thinks(serverless: ServerlessPlugin) -> None:
    serverless.keepalive_interval, before = 0.2, serverless.keepalives
    try:
        backend = ScriptedBackend([{"text": "Slow answer.", "delay": 0.7}])
        result = run_scenario(Scenario(query="hi"), backend, ToolBox(), plugin=serverless, timeout=20)  # type: ignore[arg-type]
    finally:
        serverless.keepalive_interval = 25.0
    assert_clean_end(result)
    assert result.text == "Slow answer." and serverless.keepalives > before


def test_serverless_transaction_for_an_unknown_session_is_refused(serverless: ServerlessPlugin) -> None:
    port = int(serverless.daemon_url.rsplit(":", 1)[1])
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    line = {"event": "session", "session_id": "nope", "data": {"type": "invoke", "data": {"type": "llm"}}}
    connection.request("POST", TRANSACTION_PATH, body=json.dumps(line), headers={SESSION_HEADER: "nope"})
    response = connection.getresponse()
    assert (response.status, response.read()) == (400, b"session not found")
    connection.close()


def test_serverless_crash_mid_run_fails_the_run() -> None:
    with ServerlessPlugin(DEFAULT_PLUGIN_DIR) as plugin:
        backend = ScriptedBackend([{"hang": True}])
        handle = plugin.start_run(
            Scenario(query="hi").run_request(ToolBox(), DEFAULT_PLUGIN_DIR, None), backend, ToolBox()
        )
        deadline = time.monotonic() + 10
        while not handle.result.llm_requests and time.monotonic() < deadline:
            time.sleep(0.05)
        assert plugin.pid is not None
        os.kill(plugin.pid, signal.SIGKILL)
        result = handle.wait(10)
        backend.release()
    assert result.failure == f"plugin process exited with code {-signal.SIGKILL}"


# -- concurrent sessions, interleaved backwards invocations ---------------------------------------


class Lockstep:
    """A backend whose calls wait for each other: every session's n-th model call is in
    flight at the same time as every other session's, so their invocations interleave."""

    def __init__(self, inner: ScriptedBackend, barrier: threading.Barrier) -> None:
        self.inner, self.barrier = inner, barrier

    def invoke_llm(self, request: dict[str, Any]) -> Iterator[dict[str, Any]]:
        self.barrier.wait(timeout=15)
        return self.inner.invoke_llm(request)


def lookup_tool(barrier: threading.Barrier) -> LocalTool:
    def handler(parameters: dict[str, Any]) -> list[dict[str, Any]]:
        barrier.wait(timeout=15)
        return [text_message(f"{parameters['q']} means {parameters['q'].upper()}")]

    return LocalTool(name="lookup", description="Look a word up", parameters=[ToolParam("q")], handler=handler)


def word_turns(strategy: str, word: str) -> list[dict[str, Any]]:
    if strategy == "ReAct":
        action = {"action": "lookup", "action_input": {"q": word}}
        return [
            {"text": f"Thought: look it up.\nAction:\n```json\n{json.dumps(action)}\n```"},
            {"text": f"Thought: done.\nFinal Answer: {word} is {word.upper()}."},
        ]
    return [
        {"tool_calls": [{"id": "call_1", "name": "lookup", "arguments": {"q": word}}]},
        {"text": f"{word} is {word.upper()}."},
    ]


SESSIONS = [(strategy, word) for strategy in STRATEGIES for word in ("alpha", "bravo")]


def run_sessions(plugin: PluginConnection, sessions: list[tuple[str, str]]) -> list[tuple[RunResult, ScriptedBackend]]:
    """Start every ``(strategy, word)`` session at once, in lockstep; wait for all."""
    llm_barrier, tool_barrier = threading.Barrier(len(sessions)), threading.Barrier(len(sessions))
    started = []
    for strategy, word in sessions:
        backend, toolbox = ScriptedBackend(word_turns(strategy, word)), ToolBox([lookup_tool(tool_barrier)])
        request = Scenario(query=f"What does {word} mean?", strategy=strategy, tools=["lookup"]).run_request(
            toolbox, plugin.plugin_dir, None
        )
        started.append((plugin.start_run(request, Lockstep(backend, llm_barrier), toolbox), backend))  # type: ignore[arg-type]
    return [(handle.wait(30), backend) for handle, backend in started]


@pytest.mark.parametrize("transport", ["stdio", "remote", "serverless"])
def test_concurrent_sessions_interleave_and_share_no_state(transport: str, request: pytest.FixtureRequest) -> None:
    target: PluginConnection = request.getfixturevalue({"stdio": "plugin"}.get(transport, transport))
    outcomes = run_sessions(target, SESSIONS)
    for (strategy, word), (result, backend) in zip(SESSIONS, outcomes, strict=True):
        assert_clean_end(result)
        assert result.text.endswith(f"{word} is {word.upper()}."), (strategy, result.text)
        other = "bravo" if word == "alpha" else "alpha"
        prompts = json.dumps([r["prompt_messages"] for r in backend.requests])
        assert f"{word} means {word.upper()}" in prompts and other not in prompts, "each session sees only its own"
    # same strategy, other word: the very same requests once the word is swapped
    by_session = dict(zip(SESSIONS, outcomes, strict=True))
    for strategy in STRATEGIES:
        alpha = json.dumps(by_session[strategy, "alpha"][1].requests)
        bravo = json.dumps(by_session[strategy, "bravo"][1].requests)
        assert bravo.replace("bravo", "alpha").replace("BRAVO", "ALPHA") == alpha
    # the invocations really interleaved: the sessions' calls arrived in rounds of four
    sessions = {result.session_id: n for n, (result, _) in enumerate(outcomes)}
    invokes = [
        (sessions[line["session_id"]], line["data"]["data"]["type"])
        for line in (entry.get("json") or {} for entry in target.transcript)
        if line.get("session_id") in sessions and (line.get("data") or {}).get("type") == "invoke"
    ]
    assert [kind for _, kind in invokes] == ["llm"] * 4 + ["tool"] * 4 + ["llm"] * 4
    assert all(sorted(n for n, _ in invokes[i : i + 4]) == [0, 1, 2, 3] for i in (0, 4, 8))
    # no state kept: one of them alone, afterwards, makes exactly the same requests
    ((alone, backend),) = run_sessions(target, [("ReAct", "alpha")])
    assert_clean_end(alone)
    assert backend.requests == by_session["ReAct", "alpha"][1].requests
