"""Local runner scenarios (what the Agent node sends), the CLI and the terminal rendering."""

from __future__ import annotations

import json
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from dify_plugin.entities.model import AIModelEntity
from dify_plugin.entities.model.message import ensure_prompt_message
from dify_plugin.interfaces.agent import AgentModelConfig, ToolEntity
from rich.console import Console

from local_runner import cli
from local_runner.backends import OpenAICompatibleBackend, ScriptedBackend, load_turns
from local_runner.builtin_tools import default_toolbox
from local_runner.files import FileServer, file_param
from local_runner.render import render_run, render_summary
from local_runner.result import RunResult
from local_runner.scenario import ModelSettings, Scenario, apply_declaration, history_message, strategy_declaration

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml"))
SCENARIO_FILES = [path for path in SCENARIOS if not path.name.endswith(".turns.yaml")]
pytestmark = pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=lambda p: p.stem)
def test_shipped_scenarios_are_consistent(path: Path) -> None:
    scenario = Scenario.load(path)
    toolbox = default_toolbox()
    assert set(scenario.tool_names()) <= set(toolbox.names)
    assert strategy_declaration(ROOT, scenario.strategy) is not None
    if scenario.script is None:  # a scenario for a real model (e.g. the local one): nothing to replay
        return
    turns, _ = load_turns(scenario.base_dir / str(scenario.script))
    called = {call["name"] for turn in turns for call in turn.get("tool_calls") or []}
    called |= {
        c["function"]["name"]
        for turn in turns
        for chunk in turn.get("chunks") or []
        for c in chunk.get("tool_calls") or []
        if c.get("function", {}).get("name")
    }
    assert called <= set(scenario.tool_names())


def test_agent_params_have_the_agent_node_shapes() -> None:
    scenario = Scenario(
        query="What is 2+2?",
        instruction="Be brief.",
        tools=[
            "calculator",
            {"name": "current_time", "runtime_parameters": {"format": "%H:%M"}, "description": "Clock."},
        ],
        history=[
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": "c1", "name": "calculator", "arguments": {"expression": "1+1"}}],
            },
            {"role": "tool", "content": "2", "tool_call_id": "c1"},
        ],
        params={"extra": [1, 2]},
    )
    params = scenario.agent_params(default_toolbox())
    model = params["model"]
    assert {k: model[k] for k in ("model_type", "mode", "type")} == {
        "model_type": "llm",
        "mode": "chat",
        "type": "model-selector",
    }
    config = AgentModelConfig(**model)
    assert config.entity is not None and config.entity.model_properties
    AIModelEntity(**model["entity"])
    assert [m.role.value for m in config.history_prompt_messages] == ["user", "assistant", "tool"]
    assert model["history_prompt_messages"][1]["tool_calls"][0]["function"] == {
        "name": "calculator",
        "arguments": '{"expression": "1+1"}',
    }
    tools = [ToolEntity(**entity) for entity in params["tools"]]
    assert tools[1].runtime_parameters == {"format": "%H:%M"} and tools[1].description.llm == "Clock."
    assert params["extra"] == [1, 2] and params["files"] is None and "tool_timeout" not in params


def test_declared_defaults_and_casts_are_applied_like_dify() -> None:
    declaration = strategy_declaration(ROOT, "function_calling")
    params = apply_declaration(
        {"query": "q", "instruction": None, "maximum_iterations": "3", "extra": None}, declaration
    )
    assert params["instruction"] == "" and params["maximum_iterations"] == 3
    assert params["tool_timeout"] == 120 and params["extra"] is None
    assert strategy_declaration(ROOT, "no_such_strategy") is None


def test_model_settings_entity_can_be_left_out() -> None:
    assert ModelSettings(entity=False).selector([])["entity"] is None
    with pytest.raises(ValueError, match="unknown model settings"):
        ModelSettings.from_dict({"modle": "x"})


def test_scenario_files_reject_typos(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text("query: hi\nmax_iterations: 3\n")
    with pytest.raises(ValueError, match="unknown scenario keys \\['max_iterations'\\]"):
        Scenario.load(tmp_path / "s.yaml")


def test_history_message_passes_complete_tool_calls_through() -> None:
    complete = {"id": "c", "type": "function", "function": {"name": "n", "arguments": "{}"}}
    message = history_message({"role": "assistant", "content": "x", "tool_calls": [complete]})
    assert message["tool_calls"] == [complete]
    ensure_prompt_message(message)


def test_files_are_completed_and_local_files_served(tmp_path: Path) -> None:
    assert file_param({"url": "https://x.test/a/photo.png?sig=1"}) == {
        "dify_model_identity": "__dify__file__",
        "mime_type": "image/png",
        "filename": "photo.png",
        "extension": ".png",
        "size": None,
        "type": "image",
        "url": "https://x.test/a/photo.png?sig=1",
    }
    (tmp_path / "notes.txt").write_text("hello file")
    scenario = Scenario(query="q", files=["notes.txt", {"url": "http://x.test/r.pdf"}], base_dir=tmp_path)
    with FileServer() as server:
        files = scenario.resolve_files(server)
        assert urllib.request.urlopen(files[0]["url"]).read() == b"hello file"
    assert files[0]["type"] == "document" and files[0]["size"] == 10 and files[1]["mime_type"] == "application/pdf"


# -- CLI --------------------------------------------------------------------------------------


def parse(*argv: str) -> Any:
    return cli.build_parser().parse_args(["run", *argv])


def test_cli_flags_override_the_scenario() -> None:
    args = parse(
        "--scenario",
        str(ROOT / "scenarios/calculator.yaml"),
        "--query",
        "Q?",
        "--tools",
        "calculator, doc_search",
        "--max-iterations",
        "2",
        "--model",
        "qwen",
        "--param",
        "tool_timeout=5",
        "--param",
        "extra=[a, b]",
    )
    scenario = cli.build_scenario(args)
    assert (scenario.query, scenario.tools, scenario.maximum_iterations) == ("Q?", ["calculator", "doc_search"], 2)
    assert scenario.model.model == "qwen" and scenario.params == {"tool_timeout": 5, "extra": ["a", "b"]}
    assert scenario.instruction.startswith("You are a shopping assistant")


def test_cli_backend_choice() -> None:
    scripted = parse("--scenario", str(ROOT / "scenarios/calculator.yaml"))
    assert isinstance(cli.choose_backend(scripted, cli.build_scenario(scripted)), ScriptedBackend)
    remote = parse("--scenario", str(ROOT / "scenarios/calculator.yaml"), "--base-url", "http://127.0.0.1:1/v1")
    assert isinstance(cli.choose_backend(remote, cli.build_scenario(remote)), OpenAICompatibleBackend)
    bare = parse("--query", "hi")  # neither script nor --base-url: the offline local model
    assert cli.default_backend_name(bare, cli.build_scenario(bare)) == "local"
    with pytest.raises(cli.UsageError, match="needs --base-url"):
        cli.choose_backend(parse("--query", "hi", "--backend", "openai"), cli.build_scenario(bare))
    with pytest.raises(cli.UsageError, match="NAME=VALUE"):
        cli.parse_params(["novalue"])


@pytest.fixture
def fake_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake plugin folder; it asks the model once and streams an answer."""
    (tmp_path / "main.py").write_text("from local_runner.fake_plugin import main\n\nmain()\n")
    (tmp_path / "manifest.yaml").write_text("plugins: {agent_strategies: []}\n")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    llm = {"type": "llm", "request": {"model": "m", "prompt_messages": [], "tools": None, "stop": None}}
    config = {"script": [{"invoke": llm}, {"stream": {"type": "text", "message": {"text": "42"}, "meta": None}}]}
    monkeypatch.setenv("FAKE_PLUGIN", json.dumps(config))
    (tmp_path / "turns.yaml").write_text("- text: forty-two\n  usage: {prompt_tokens: 5, completion_tokens: 2}\n")
    return tmp_path


def test_cli_json_run_and_transcript(fake_plugin: Path, capsys: pytest.CaptureFixture[str]) -> None:
    transcript = fake_plugin / "out" / "t.json"
    code = cli.main(
        [
            "run",
            "--query",
            "q",
            "--script",
            str(fake_plugin / "turns.yaml"),
            "--plugin-dir",
            str(fake_plugin),
            "--python",
            sys.executable,
            "--json",
            "--transcript",
            str(transcript),
        ]
    )
    output = json.loads(capsys.readouterr().out)
    assert code == 0 and output["ok"] and output["text"] == "42"
    assert output["llm_usages"][0]["total_tokens"] == 7
    lines = json.loads(transcript.read_text())["lines"]
    assert lines[0]["dir"] == "from_plugin" and "resource" in lines[0]["json"]
    assert any(line.get("json", {}).get("event") == "request" for line in lines)


def test_cli_exit_codes(fake_plugin: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = ["run", "--query", "q", "--plugin-dir", str(fake_plugin), "--python", sys.executable, "--json"]
    assert cli.main([*base, "--backend", "openai"]) == 2  # a usage error: openai needs --base-url
    monkeypatch.setenv("FAKE_PLUGIN", json.dumps({"script": [{"error": "boom"}]}))
    assert cli.main([*base, "--script", str(fake_plugin / "turns.yaml")]) == 1
    assert (
        cli.main(
            [*base[:-1], "--script", str(fake_plugin / "turns.yaml"), "--plugin-dir", str(fake_plugin / "missing")]
        )
        == 1
    )


def test_rendering_shows_logs_answer_files_usage_and_errors() -> None:
    result = RunResult("0123456789", "function_calling")
    log = {
        "id": "r1",
        "label": "ROUND 1",
        "parent_id": None,
        "error": None,
        "status": "success",
        "data": {},
        "metadata": {"total_tokens": 49, "elapsed_time": 0.42},
    }
    for message in [
        {"type": "log", "message": log, "meta": None},
        {
            "type": "log",
            "message": {
                **log,
                "id": "c1",
                "label": "CALL calc",
                "parent_id": "r1",
                "status": "error",
                "error": "tool failed",
                "metadata": {},
            },
            "meta": None,
        },
        {"type": "text", "message": {"text": "The answer."}, "meta": None},
        {"type": "link", "message": {"text": "https://example.test"}, "meta": None},
        {
            "type": "json",
            "message": {
                "json_object": {"execution_metadata": {"total_tokens": 49, "total_price": "0.0001", "currency": "USD"}}
            },
            "meta": None,
        },
    ]:
        result.add_message(message)
    result.set_error({"error_type": "ValueError", "message": "bad", "args": {"traceback": "Traceback: here"}})
    result.finish()
    console = Console(record=True, width=100)
    console.print(render_run(result))
    console.print(render_summary(result))
    shown = console.export_text()
    for expected in (
        "✔ ROUND 1",
        "0.42 s · 49 tok",
        "✘ CALL calc",
        "tool failed",
        "The answer.",
        "https://example.test",
        "total_tokens",
        "ValueError: bad",
        "Traceback: here",
    ):
        assert expected in shown


def test_cli_verbose_tree_and_svg(fake_plugin: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert parse("--query", "q").verbose is False and parse("--query", "q", "-v").verbose is True
    svg = fake_plugin / "out" / "run.svg"
    code = cli.main(
        [
            "run", "--query", "q", "--script", str(fake_plugin / "turns.yaml"), "--plugin-dir", str(fake_plugin),
            "--python", sys.executable, "--verbose", "--svg", str(svg),
        ]
    )
    shown = capsys.readouterr().out
    assert code == 0 and "42" in shown and "total_price" in shown
    assert svg.read_text(encoding="utf-8").startswith("<svg")
