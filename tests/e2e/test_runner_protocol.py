"""The local runner against real plugin processes built on the real SDK.

Two plugins: the runner probe (local_runner/probe_plugin: one LLM call, parallel tool calls,
a report of what the SDK parsed), which pins the protocol down independently of the project's
strategies; and the project's plugin itself (the session ``plugin`` fixture), run end to end.
"""

from __future__ import annotations

import os
import shutil
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from local_runner import (
    OpenAICompatibleBackend,
    PluginError,
    PluginProcess,
    RunResult,
    Scenario,
    ScriptedBackend,
    ScriptedTool,
    ToolBox,
    ToolParam,
    default_toolbox,
    json_message,
    run_scenario,
    text_message,
)
from local_runner.daemon import DEFAULT_PLUGIN_DIR
from local_runner.fake_openai import FakeOpenAIServer, chat_event
from local_runner.tools import LOCAL_CREDENTIAL, LOCAL_PROVIDER

PROBE_DIR = Path(__file__).resolve().parents[2] / "local_runner" / "probe_plugin"
SCENARIOS = DEFAULT_PLUGIN_DIR / "scenarios"
pytestmark = pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")


@pytest.fixture(scope="module")
def probe() -> Iterator[PluginProcess]:
    with PluginProcess(PROBE_DIR) as process:
        yield process


def probe_run(
    probe: PluginProcess,
    turns: list[dict[str, Any]],
    tools: list[ScriptedTool] = (),  # type: ignore[assignment]
    **params: Any,
) -> tuple[RunResult, ScriptedBackend, ToolBox]:
    toolbox = ToolBox(tools)
    backend = ScriptedBackend(turns)
    scenario = Scenario(query="probe query", strategy="probe", tools=toolbox.names, params=params)
    result = run_scenario(scenario, backend, toolbox, plugin=probe, timeout=30)
    return result, backend, toolbox


def report(result: RunResult) -> dict[str, Any]:
    """What the probe strategy saw (its json message)."""
    return next(obj["probe"] for obj in result.json_messages if "probe" in obj)


def tool(name: str, *messages: dict[str, Any], latency: float = 0.0, **options: Any) -> ScriptedTool:
    return ScriptedTool(
        name=name,
        description=f"the {name} tool",
        parameters=[ToolParam("q")],
        responses=list(messages),
        latency=latency,
        **options,
    )


# -- the probe ----------------------------------------------------------------------------------


def test_probe_starts_like_under_the_daemon(probe: PluginProcess) -> None:
    assert probe.manifest is not None and probe.manifest["name"] == "runner_probe"
    assert probe.alive and probe.heartbeat_age() < 15
    assert any("agent" in str(log.get("message")) for log in probe.plugin_logs)


def test_streamed_text_and_usage_reach_the_sdk(probe: PluginProcess) -> None:
    turn = {"text": "Hello from the script", "split": 5, "usage": {"prompt_tokens": 40, "completion_tokens": 9}}
    result, backend, _ = probe_run(probe, [turn])
    assert result.ok, result.error_text
    assert result.text == "Hello from the script"
    assert [m["message"]["text"] for m in result.messages if m["type"] == "text"][:2] == ["Hello", " from"]
    seen = report(result)
    assert seen["usage"]["total_tokens"] == 49 and seen["usage"]["total_price"] == result.llm_usages[0]["total_price"]
    assert seen["finish_reason"] == "stop"
    assert result.log_tree_snapshot() == [{"label": "PROBE", "status": "success", "children": []}]
    request = backend.requests[0]
    assert (
        request["prompt_messages"][0]["content"] == "probe query"
        and request["stop"] == ["STOP"]
        and request["stream"] is True
    )
    assert request["model"] == "gpt-4o-mini" and request["mode"] == "chat"


def test_tool_call_fragments_arrive_as_the_go_daemon_sends_them(probe: PluginProcess) -> None:
    fragments = [
        {
            "tool_calls": [
                {"index": 0, "id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": ""}}
            ]
        },
        {"tool_calls": [{"index": 0, "function": {"arguments": '{"q": "x"}'}}]},
    ]
    result, _, toolbox = probe_run(probe, [{"chunks": fragments}], [tool("lookup", text_message("found"))])
    calls = report(result)["tool_calls"]
    assert calls == [
        {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": ""}},
        {"id": "", "type": "", "function": {"name": "", "arguments": '{"q": "x"}'}},
    ]
    assert result.ok, result.error_text
    assert [r.get("error") for r in report(result)["tool_results"]] == [
        None,
        "unknown tool ''",
    ]  # the probe does not merge
    assert toolbox.requests[0]["tool_parameters"] == {}


def test_parallel_tool_calls_run_concurrently_and_round_trip(probe: PluginProcess) -> None:
    messages = [
        text_message("plain"),
        json_message({"rows": [1, 2]}),
        {"type": "link", "message": {"text": "https://example.test"}, "meta": None},
    ]
    tools = [tool(f"t{n}", *messages, latency=1.0) for n in range(3)]
    calls = [{"id": f"c{n}", "name": f"t{n}", "arguments": {"q": str(n)}} for n in range(3)]
    started = time.monotonic()
    result, _, toolbox = probe_run(probe, [{"tool_calls": calls}], tools)
    assert result.ok, result.error_text
    assert time.monotonic() - started < 3.0  # one after another: 3 s of tools alone
    results = report(result)["tool_results"]
    assert [r["messages"] for r in results] == [messages] * 3
    # all three were running at once: each started before any finished (a loaded machine may
    # start them up to a second apart; 0.6 s calls against a 1.2 s window left it 0.6 s)
    assert max(r["started"] for r in results) < min(r["finished"] for r in results)
    request = toolbox.requests[0]
    assert request["provider"] == LOCAL_PROVIDER and request["tool_type"] == "builtin"
    assert request["credential_id"] == LOCAL_CREDENTIAL and request["app_id"] == "app-local"


def test_backend_errors_become_sdk_exceptions(probe: PluginProcess) -> None:
    result, _, _ = probe_run(probe, [{"error": "model overloaded"}])
    assert result.ended and result.error is not None
    assert result.error["message"] == "invoke llm model failed: model overloaded"
    assert result.log_tree_snapshot() == [{"label": "PROBE", "status": "start", "children": []}]
    assert [node.label for node in result.unfinished_logs()] == ["PROBE"]
    failing = tool("broken", text_message("partial"), error="disk full")
    result, _, _ = probe_run(probe, [{"tool_calls": [{"id": "c", "name": "broken", "arguments": {}}]}], [failing])
    assert report(result)["tool_results"][0]["error"] == "invoke tool failed: disk full"


def test_strategy_exception_is_a_session_error(probe: PluginProcess) -> None:
    result, backend, _ = probe_run(probe, [], fail="no luck")
    assert result.ended and not result.ok
    assert (result.error or {}).get("error_type") == "ValueError" and result.error["message"] == "no luck"
    assert backend.requests == []


def test_concurrent_sessions_share_one_process(probe: PluginProcess) -> None:
    toolbox = ToolBox([tool("slow", text_message("ok"), latency=1.0)])
    handles = []
    for n in range(3):
        backend = ScriptedBackend(
            [{"text": f"session {n} ", "tool_calls": [{"name": "slow", "arguments": {"q": "x"}}]}]
        )
        scenario = Scenario(query=f"q{n}", strategy="probe", tools=["slow"])
        handles.append(probe.start_run(scenario.run_request(toolbox, PROBE_DIR, None), backend, toolbox))
    started = time.monotonic()
    results = [handle.wait(30) for handle in handles]
    assert time.monotonic() - started < 3.0  # one session after another: 3 s of tools alone
    assert [r.text for r in results] == [f"session {n} " for n in range(3)]
    assert all(r.ok for r in results) and len(toolbox.requests) == 3


def test_unparsable_lines_come_back_as_error_events(probe: PluginProcess) -> None:
    before = len(probe.plugin_errors)
    probe.send({"not": "an envelope"})
    deadline = time.monotonic() + 5
    while len(probe.plugin_errors) == before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "session_id" in probe.plugin_errors[-1]["error"]


def test_permissions_follow_the_manifest(tmp_path: Path) -> None:
    folder = shutil.copytree(PROBE_DIR, tmp_path / "probe", ignore=shutil.ignore_patterns("__pycache__"))
    manifest = yaml.safe_load((folder / "manifest.yaml").read_text())
    manifest["resource"]["permission"]["model"]["llm"] = False
    (folder / "manifest.yaml").write_text(yaml.safe_dump(manifest))
    backend = ScriptedBackend([{"text": "never"}])
    result = run_scenario(Scenario(query="q", strategy="probe"), backend, ToolBox(), plugin_dir=folder, timeout=30)
    assert result.error is not None
    assert result.error["message"] == "permission denied, you need to enable llm access in plugin manifest"
    assert backend.requests == []


def test_a_plugin_that_cannot_start_is_reported_clearly(tmp_path: Path) -> None:
    with pytest.raises(PluginError, match="is not a plugin folder"):
        PluginProcess(tmp_path).start()
    folder = shutil.copytree(PROBE_DIR, tmp_path / "probe", ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "strategies" / "probe.py").unlink()
    with pytest.raises(PluginError, match=r"exited with code 1 before its first heartbeat(.|\n)*FileNotFoundError"):
        PluginProcess(folder).start()


def test_a_crash_mid_run_ends_the_run(tmp_path: Path) -> None:
    with PluginProcess(PROBE_DIR) as process:
        handle = process.start_run(
            Scenario(query="q", strategy="probe").run_request(ToolBox(), PROBE_DIR, None),
            ScriptedBackend([{"hang": True}]),
            ToolBox(),
        )
        while not handle.result.llm_requests:
            time.sleep(0.05)
        threading.Timer(0.1, os.kill, (process.pid, signal.SIGKILL)).start()
        result = handle.wait(20)
    assert result.failure == f"plugin process exited with code {-signal.SIGKILL}"
    assert not result.ended


# -- the project's plugin -----------------------------------------------------------------------


def test_real_plugin_answers_without_tools(run: Any) -> None:
    result = run([{"text": "Hello! I can help.", "split": 6}], query="hi")
    assert result.ok, result.error_text
    assert result.text == "Hello! I can help."
    run.backend.assert_complete()
    assert "hi" in str(run.backend.requests[0]["prompt_messages"])
    assert not result.unfinished_logs()


def test_real_plugin_calls_a_tool_and_answers(run: Any) -> None:
    turns = [
        {"tool_calls": [{"id": "call_1", "name": "calculator", "arguments": {"expression": "6 * 7"}}]},
        {"text": "It is 42."},
    ]
    result = run(turns, query="What is 6 times 7?", tools=["calculator"])
    assert result.ok, result.error_text
    assert result.text.endswith("It is 42.")
    assert [r["tool"] for r in run.toolbox.requests] == ["calculator"]
    assert "6 * 7 = 42" in str(run.backend.requests[1]["prompt_messages"])
    assert not result.unfinished_logs()


@pytest.mark.parametrize("name", ["calculator", "doc_search", "multi_tool"])
def test_shipped_scenarios_run_offline(plugin: PluginProcess, name: str) -> None:
    scenario = Scenario.load(SCENARIOS / f"{name}.yaml")
    backend = scenario.scripted_backend()
    toolbox = default_toolbox()
    result = run_scenario(scenario, backend, toolbox, plugin=plugin, timeout=60)
    assert result.ok, result.error_text
    backend.assert_complete()
    assert not result.unfinished_logs()
    assert all(call.error is None for call in toolbox.calls)
    assert result.execution_metadata is not None


def test_real_plugin_with_a_streaming_openai_server(plugin: PluginProcess) -> None:
    """A server that streams a tool call in fragments (by index, as real servers do)."""
    with FakeOpenAIServer() as server:
        backend = OpenAICompatibleBackend(server.base_url, model="served")
        server.replies = [
            [
                chat_event({"role": "assistant", "content": ""}),
                chat_event(
                    {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "call_9",
                                "type": "function",
                                "function": {"name": "calculator", "arguments": ""},
                            }
                        ]
                    }
                ),
                chat_event({"tool_calls": [{"index": 0, "function": {"arguments": '{"expression": '}}]}),
                chat_event({"tool_calls": [{"index": 0, "function": {"arguments": '"2 ** 10"}'}}]}),
                chat_event({}, finish="tool_calls"),
                chat_event(None, usage={"prompt_tokens": 50, "completion_tokens": 12, "total_tokens": 62}),
            ],
            [chat_event({"content": "It is 1024."}, finish="stop")],
        ]
        toolbox = default_toolbox()
        request = Scenario(query="2^10?", tools=["calculator"]).run_request(toolbox, DEFAULT_PLUGIN_DIR, None)
        result = plugin.run(request, backend, toolbox, timeout=60)
    assert result.ok, result.error_text
    assert [r["tool_parameters"] for r in toolbox.requests] == [{"expression": "2 ** 10"}]
    assert result.text.endswith("It is 1024.")
    second = server.requests[1][1]
    assert second["model"] == "served" and second["messages"][-1]["role"] == "tool"
    assert "2 ** 10 = 1024" in second["messages"][-1]["content"]
