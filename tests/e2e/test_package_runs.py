"""The built .difypkg, unpacked like the daemon unpacks it, runs both strategies end to end."""

import zipfile

import pytest

from local_runner import PluginProcess
from tests.e2e.helpers import assert_clean_end
from tools.package import build_package


@pytest.fixture(scope="module")
def packaged_plugin(tmp_path_factory):
    """The plugin process started from the unpacked package, with the runner's interpreter
    choice (an unpacked package has no .venv: this environment's Python, which holds what
    requirements.txt names, as the daemon's venv would)."""
    root = tmp_path_factory.mktemp("package")
    package = build_package(output=root / "robust_agent.difypkg")
    unpacked = root / "unpacked"
    with zipfile.ZipFile(package.path) as archive:
        archive.extractall(unpacked)
    with PluginProcess(unpacked) as process:
        yield process


@pytest.mark.parametrize("strategy, turns", [
    ("function_calling", [{"tool_calls": [{"id": "c1", "name": "calculator", "arguments": '{"expression": "6*7"}'}]},
                          {"text": "42"}]),
    ("ReAct", [{"text": 'Thought: compute\nAction: {"action": "calculator", "action_input": {"expression": "6*7"}}'},
               {"text": "Final Answer: 42"}]),
])
def test_unpacked_package_completes_a_tool_using_run(run, packaged_plugin, strategy, turns):
    run.plugin = packaged_plugin
    result = run(turns, query="6*7?", tools=["calculator"], strategy=strategy)
    assert_clean_end(result)
    assert result.text == "42"
    assert [r["tool"] for r in result.tool_requests] == ["calculator"]
