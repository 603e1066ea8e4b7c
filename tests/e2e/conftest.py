"""End-to-end fixtures: the real plugin process (started once per test session) and ``run``,
which plays one scripted scenario on it.

    def test_answer(run):
        result = run([{"text": "Hello!"}], query="hi")
        assert result.ok and result.text == "Hello!"
        run.backend.assert_complete()
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import pytest

from local_runner import (
    ModelSettings,
    PluginProcess,
    RunResult,
    Scenario,
    ScriptedBackend,
    ToolBox,
    default_toolbox,
    protocol,
    run_scenario,
)
from local_runner.backends import Pricing
from local_runner.daemon import DEFAULT_PLUGIN_DIR, RunHandle
from local_runner.remote import RemoteDebugServer, RemotePlugin
from local_runner.serverless import ServerlessPlugin
from local_runner.tools import DeclaredTool


@pytest.fixture(scope="session")
def plugin() -> Iterator[PluginProcess]:
    """The project's plugin, started like Dify starts it, shared by the whole test session.
    At the end, no Python warning on its stderr (the daemon keeps stderr in its log)."""
    with PluginProcess(DEFAULT_PLUGIN_DIR) as process:
        yield process
    assert not process.warnings, "the plugin printed Python warnings:\n" + "\n".join(process.warnings)


class ScriptedRun:
    """Runs scenarios on a shared plugin with a ``ScriptedBackend``; after each call,
    ``backend`` and ``toolbox`` are the ones used (for asserts on requests and calls)."""

    def __init__(self, plugin: PluginProcess) -> None:
        self.plugin = plugin
        self.backend = ScriptedBackend([])
        self.toolbox = default_toolbox()

    def __call__(
        self,
        turns: list[dict[str, Any]],
        query: str = "What can you do?",
        tools: Iterable[str | dict[str, Any] | DeclaredTool] = (),
        *,
        toolbox: ToolBox | None = None,
        strategy: str = "function_calling",
        timeout: float = 60.0,
        **fields: Any,
    ) -> RunResult:
        """One run: ``turns`` are the scripted model turns (see ``ScriptedBackend``);
        ``tools`` are toolbox names, scenario tool settings (``{"name", "runtime_parameters"}``)
        or tool objects (added to the toolbox); ``fields`` are other ``Scenario`` fields
        (instruction, history, maximum_iterations, params, ...; ``model`` may be a dict of
        ``ModelSettings`` fields)."""
        if isinstance(fields.get("model"), dict):
            fields["model"] = ModelSettings.from_dict(fields["model"])
        self.toolbox = toolbox or default_toolbox()
        names: list[str | dict[str, Any]] = []
        for tool in tools:
            if isinstance(tool, DeclaredTool):
                self.toolbox.add(tool)
                names.append(tool.name)
            else:
                names.append(tool)
        scenario = Scenario(query=query, tools=names, strategy=strategy, **fields)
        self.backend = ScriptedBackend(turns, pricing=Pricing.from_dict(scenario.model.pricing))
        try:
            return run_scenario(scenario, self.backend, self.toolbox, plugin=self.plugin, timeout=timeout)
        finally:
            self.release()

    def release(self) -> None:
        """Let hanging scripted turns and tools finish (their answers go to a finished run)."""
        self.backend.release()
        self.toolbox.release()


@pytest.fixture(scope="module")
def server() -> Iterator[RemoteDebugServer]:
    """A remote-debugging endpoint (the daemon's TCP side) for a module's tests."""
    with RemoteDebugServer() as endpoint:
        yield endpoint


@pytest.fixture(scope="module")
def remote(server: RemoteDebugServer) -> RemotePlugin:
    """A plugin of the module's own over TCP: a failure there must not take another test's plugin down."""
    return server.launch(DEFAULT_PLUGIN_DIR)


@pytest.fixture(scope="module")
def serverless() -> Iterator[ServerlessPlugin]:
    """A plugin of the module's own served over HTTP, as the serverless runtime runs it."""
    with ServerlessPlugin(DEFAULT_PLUGIN_DIR) as plugin:
        yield plugin


@pytest.fixture
def run(plugin: PluginProcess) -> ScriptedRun:
    """Play scripted scenarios on the session's plugin: ``run(turns, query, tools, ...)``."""
    return ScriptedRun(plugin)


@pytest.fixture
def tamper(monkeypatch):
    """``tamper(hook)``: each backwards response line the runner sends goes through
    ``hook(kind, line, send, handle)`` instead (``kind``: the invocation's type)."""

    def install(hook):
        original = RunHandle._serve

        def serve(self, data, send):
            original(self, data, lambda line: hook(data.get("type"), line, send, self))

        monkeypatch.setattr(RunHandle, "_serve", serve)

    return install


@pytest.fixture
def longest_line(monkeypatch) -> list[int]:
    """``[n]``: bytes of the longest line the runner read from a plugin during the test (every
    transport's reader decodes each line with ``protocol.decode_line``)."""
    longest = [0]
    decode = protocol.decode_line

    def measured(raw):
        longest[0] = max(longest[0], len(raw.rstrip(b"\r\n")))
        return decode(raw)

    monkeypatch.setattr(protocol, "decode_line", measured)
    return longest
