"""``python -m local_runner``: run an agent strategy of the plugin with no Dify at all.

Examples::

    python -m local_runner run --scenario scenarios/local_convert.yaml      # the offline local model
    python -m local_runner run --scenario scenarios/calculator.yaml          # scripted, offline
    python -m local_runner run --scenario scenarios/calculator.yaml --verbose   # each call's input and output
    python -m local_runner run --scenario scenarios/doc_search.yaml --json
    python -m local_runner run --query "What is 17% of 2,340?" --tools calculator \\
        --base-url http://localhost:8080/v1 --model qwen2.5-7b-instruct          # a real model
    python -m local_runner tools                                              # list the tools
    python -m local_runner tasks --strategy all                               # the task suite (local model)

Exit code: 0 if the plugin ended the run without error, 1 otherwise, 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import contextlib
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml
from rich.console import Console

from local_runner.backends import LLMBackend, OpenAICompatibleBackend, Pricing, ScriptedBackend
from local_runner.builtin_tools import default_toolbox
from local_runner.daemon import DEFAULT_PLUGIN_DIR, READY_TIMEOUT, RUN_TIMEOUT, PluginError, PluginProcess
from local_runner.local_model import DEFAULT_MODEL, MODELS, LocalModelBackend, LocalModelError, rich_progress
from local_runner.render import LiveView, render_summary, save_svg
from local_runner.result import RunResult
from local_runner.scenario import Scenario, run_scenario
from local_runner.tools import ToolBox


class UsageError(Exception):
    """Bad or missing command-line input (exit code 2)."""


def _scripted(args: argparse.Namespace, scenario: Scenario) -> LLMBackend:
    if args.script:
        return ScriptedBackend.from_file(args.script, pricing=Pricing.from_dict(scenario.model.pricing))
    return scenario.scripted_backend()


def _openai(args: argparse.Namespace, scenario: Scenario) -> LLMBackend:
    if not args.base_url:
        raise UsageError("--backend openai needs --base-url (e.g. http://localhost:8080/v1)")
    return OpenAICompatibleBackend(
        args.base_url, args.api_key, args.model, pricing=Pricing.from_dict(scenario.model.pricing), timeout=args.timeout
    )


def _local(args: argparse.Namespace, scenario: Scenario) -> LLMBackend:
    """The offline local model (``local_runner/local_model.py``): a llama.cpp server on loopback,
    started here (a spinner on stderr while it loads) and stopped by ``close()`` at the end of the run."""
    return LocalModelBackend.start(
        getattr(args, "local_model", None) or DEFAULT_MODEL,
        progress=rich_progress(),
        timeout=getattr(args, "timeout", RUN_TIMEOUT),
    )


BACKENDS: dict[str, Callable[[argparse.Namespace, Scenario], LLMBackend]] = {
    "scripted": _scripted,
    "openai": _openai,
    "local": _local,
}
"""Backend name -> factory ``(args, scenario) -> LLMBackend``. Register new backends here.

A backend may also have ``close()`` (called when the run ends, error or not) and
``model_settings()`` (``ModelSettings`` fields it imposes on the scenario's model, see ``present_model``)."""


def default_backend_name(args: argparse.Namespace, scenario: Scenario) -> str:
    """The backend used without ``--backend``: scripted if there is a script, openai if
    there is a ``--base-url``, else the offline local model."""
    if args.script or (scenario.script is not None and not args.base_url):
        return "scripted"
    if args.base_url:
        return "openai"
    return "local"


def choose_backend(args: argparse.Namespace, scenario: Scenario) -> LLMBackend:
    """The LLM backend for this run, from ``--backend`` or inferred (``default_backend_name``)."""
    return BACKENDS[args.backend or default_backend_name(args, scenario)](args, scenario)


def present_model(backend: LLMBackend, scenario: Scenario) -> Scenario:
    """``scenario`` with the model as ``backend`` must present it (``backend.model_settings()``:
    e.g. the local model is a completion model without tool calling); unchanged for other backends."""
    settings = getattr(backend, "model_settings", None)
    if settings is None:
        return scenario
    return replace(scenario, model=replace(scenario.model, **settings()))


def closing_backend(backend: LLMBackend) -> contextlib.AbstractContextManager[Any]:
    """A context that calls ``backend.close()`` on exit if it has one (e.g. stops the local model server)."""
    return contextlib.closing(backend) if callable(getattr(backend, "close", None)) else contextlib.nullcontext()


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (sub-commands ``run``, ``tools`` and ``tasks``)."""
    parser = argparse.ArgumentParser(
        prog="python -m local_runner", description="Run the plugin's agent strategies locally."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("tools", help="list the local tools")
    from local_runner.tasks import add_tasks_parser

    add_tasks_parser(commands)
    run = commands.add_parser("run", help="run one agent session")
    what = run.add_argument_group("what to run (flags override the scenario file)")
    what.add_argument("--scenario", type=Path, help="scenario YAML file")
    what.add_argument("--strategy", help="strategy name (default: function_calling)")
    what.add_argument("--query", help="the user's query")
    what.add_argument("--instruction", help="the instruction (system prompt)")
    what.add_argument("--tools", help="comma-separated tool names (see `tools`)")
    what.add_argument("--max-iterations", type=int, help="maximum_iterations")
    what.add_argument("--tool-timeout", type=float, help="tool_timeout in seconds")
    what.add_argument("--mode", choices=["chat", "completion"], help="model mode")
    what.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="extra strategy parameter (YAML value); repeatable",
    )
    model = run.add_argument_group("model backend")
    model.add_argument(
        "--backend",
        choices=sorted(BACKENDS),
        help="default: scripted if a script is given, openai with --base-url, else local (the offline model)",
    )
    model.add_argument(
        "--local-model",
        default=DEFAULT_MODEL,
        help=f"model of the local backend: one of {sorted(MODELS)} or a .gguf path (default: %(default)s)",
    )
    model.add_argument("--script", type=Path, help="scripted model turns (YAML/JSON)")
    model.add_argument("--base-url", help="OpenAI-compatible server, e.g. http://localhost:8080/v1")
    model.add_argument("--api-key", default="not-needed", help="API key for --base-url")
    model.add_argument("--model", help="model name (sent to the plugin and the server)")
    plugin = run.add_argument_group("plugin process")
    plugin.add_argument(
        "--plugin-dir", type=Path, default=DEFAULT_PLUGIN_DIR, help="plugin folder (default: %(default)s)"
    )
    plugin.add_argument(
        "--python", help="python for the plugin (default: <plugin>/.venv/bin/python if it exists, else this Python)"
    )
    plugin.add_argument(
        "--ready-timeout", type=float, default=READY_TIMEOUT, help="seconds to wait for the first heartbeat"
    )
    plugin.add_argument("--timeout", type=float, default=RUN_TIMEOUT, help="seconds the whole run may take")
    output = run.add_argument_group("output")
    output.add_argument("--json", action="store_true", help="print the result as JSON instead of the live view")
    output.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="show each log entry's input and output in the tree (model text and calls, tool input and output)",
    )
    output.add_argument("--svg", type=Path, help="also save the final tree and answer as an SVG image to this file")
    output.add_argument("--transcript", type=Path, help="save every line in and out (JSON) to this file")
    return parser


def build_scenario(args: argparse.Namespace) -> Scenario:
    """The scenario file (if any) with the command-line overrides applied."""
    scenario = Scenario.load(args.scenario) if args.scenario else None
    if scenario is None:
        if not args.query:
            raise UsageError("give --scenario FILE or --query TEXT")
        scenario = Scenario(query=args.query)
    overrides: dict[str, Any] = {
        "strategy": args.strategy,
        "query": args.query,
        "instruction": args.instruction,
        "maximum_iterations": args.max_iterations,
        "tool_timeout": args.tool_timeout,
        "tools": [name.strip() for name in args.tools.split(",") if name.strip()] if args.tools is not None else None,
    }
    scenario = replace(scenario, **{key: value for key, value in overrides.items() if value is not None})
    model = replace(scenario.model, **{k: v for k, v in {"model": args.model, "mode": args.mode}.items() if v})
    return replace(scenario, model=model, params={**scenario.params, **parse_params(args.param)})


def parse_params(pairs: list[str]) -> dict[str, Any]:
    """``["a=1", "b=[x, y]"]`` -> ``{"a": 1, "b": ["x", "y"]}`` (values parsed as YAML)."""
    params = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise UsageError(f"--param expects NAME=VALUE, got {pair!r}")
        params[name.strip()] = yaml.safe_load(value)
    return params


def list_tools(console: Console, toolbox: ToolBox) -> None:
    """Print the tool names, parameters and descriptions."""
    for name in toolbox.names:
        tool = toolbox.get(name)
        params = ", ".join(f"{p.name}: {p.type}{'' if p.required else '?'}" for p in tool.parameters if p.form == "llm")
        console.print(f"[bold]{name}[/]({params})\n    {tool.description}")


def execute(args: argparse.Namespace, console: Console) -> RunResult:
    """Start the plugin, run the scenario (live view unless ``--json``), save the transcript."""
    scenario = build_scenario(args)
    backend = choose_backend(args, scenario)
    with closing_backend(backend):
        return _execute(args, console, present_model(backend, scenario), backend)


def _execute(args: argparse.Namespace, console: Console, scenario: Scenario, backend: LLMBackend) -> RunResult:
    toolbox = default_toolbox()
    with PluginProcess(args.plugin_dir, python=args.python, ready_timeout=args.ready_timeout) as plugin:
        try:
            if args.json:
                result = run_scenario(scenario, backend, toolbox, plugin=plugin, timeout=args.timeout)
            else:
                with LiveView(console, verbose=args.verbose) as view:
                    result = run_scenario(
                        scenario, backend, toolbox, plugin=plugin, on_update=view.on_update, timeout=args.timeout
                    )
        finally:
            if args.transcript:
                save_process_transcript(plugin, args.transcript)
    if args.svg:
        save_svg(result, args.svg, verbose=args.verbose)
    return result


def save_process_transcript(plugin: PluginProcess, path: Path) -> None:
    """Every line of the plugin process (start-up included): ``{"command", "plugin_dir",
    "lines": [{"t", "dir", "json" | "text"}]}``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    document = {"command": plugin.command, "plugin_dir": str(plugin.plugin_dir), "lines": plugin.transcript}
    path.write_text(json.dumps(document, ensure_ascii=False, indent=1, default=str), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """CLI entry point; returns the exit code."""
    args = build_parser().parse_args(argv)
    console = Console(stderr=bool(getattr(args, "json", False)))
    if args.command == "tools":
        list_tools(console, default_toolbox())
        return 0
    if args.command == "tasks":
        from local_runner.tasks import main_tasks

        return main_tasks(args, console)
    try:
        result = execute(args, console)
    except UsageError as exc:
        console.print(f"[red]error:[/] {exc}")
        return 2
    except (PluginError, LocalModelError, OSError, ValueError) as exc:
        console.print(f"[bold red]cannot run:[/] {exc}")
        return 1
    except KeyboardInterrupt:
        console.print("[yellow]interrupted[/]")
        return 130
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2, default=str))
    else:
        console.print(render_summary(result))
    return 0 if result.ok else 1
