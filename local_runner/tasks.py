"""``python -m local_runner tasks``: a task suite with known answers, run through the real plugin.

Each task (``local_runner/data/tasks.yaml``) is a question that needs zero, one or two calls of the
local tools (calculator, current_time, unit_convert, doc_search), with a checker: strings or a number
the final answer must contain, tools that must have been called. Every task runs as one agent session
of the real plugin process (started once for the suite), on the offline local model by default::

    python -m local_runner tasks                              # ReAct and function_calling, local model
    python -m local_runner tasks --strategy ReAct --only multiply,warranty
    python -m local_runner tasks --backend openai --base-url http://localhost:8080/v1 --model qwen2.5

The table shows per task: success, LLM calls (rounds), tool calls, tokens (exact for the local model:
counted by its tokenizer), seconds; per strategy: success rate, totals, wall time, and a fingerprint
of every answer and tool call (two runs of a deterministic model print the same fingerprint).
``current_time`` answers from the suite's fixed clock, so nothing in a run depends on the date.

Exit code: 0 when the suite ran (whatever the success rate), 1 if it could not run, 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml
from rich.console import Console
from rich.table import Table

from local_runner.backends import LLMBackend, OpenAICompatibleBackend
from local_runner.builtin_tools import default_toolbox, find_zone
from local_runner.daemon import DEFAULT_PLUGIN_DIR, READY_TIMEOUT, PluginError, PluginProcess
from local_runner.local_model import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_MODEL,
    DEFAULT_SEED,
    MODELS,
    LocalModelBackend,
    LocalModelError,
    rich_progress,
)
from local_runner.result import RunResult
from local_runner.scenario import DEFAULT_FEATURES, ModelSettings, Scenario, run_scenario
from local_runner.tools import LocalTool, ToolBox, text_message

TASKS_FILE = Path(__file__).parent / "data" / "tasks.yaml"
STRATEGIES = ("ReAct", "function_calling")
TASK_TIMEOUT = 300.0
_RAMBLE = re.compile(r"(?im)^\s*(?:question|thought|action|action input|observation|final answer)\s*:")
"""A ReAct label at a line start in the answer: the model went on writing a new question or step."""
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?|-?\.\d+")


# ---------------------------------------------------------------------------------------------
# Tasks and their checks


@dataclass(frozen=True)
class Check:
    """What a correct run looks like: ``answer_contains`` (all, case-insensitive), ``answer_number``
    (some number in the answer within ``tolerance`` of ``value``), ``tools_called`` (each called
    at least once without error). Always: the answer does not go on with invented ReAct lines
    (``Question:``, ``Thought:``, ...), which a base model writes when nothing stops it."""

    answer_contains: tuple[str, ...] = ()
    answer_number: float | None = None
    tolerance: float = 0.0
    tools_called: tuple[str, ...] = ()

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Check:
        unknown = set(data) - {"answer_contains", "answer_number", "tools_called"}
        if unknown:
            raise ValueError(f"unknown check keys {sorted(unknown)}")
        number = data.get("answer_number")
        return cls(
            answer_contains=tuple(str(s) for s in data.get("answer_contains") or ()),
            answer_number=float(number["value"]) if number else None,
            tolerance=float(number.get("tolerance", 0.0)) if number else 0.0,
            tools_called=tuple(data.get("tools_called") or ()),
        )

    def failures(self, answer: str, calls: list[ToolUse]) -> list[str]:
        """Why ``answer`` and ``calls`` fail this check ([] = success)."""
        problems = []
        lowered = answer.lower()
        problems += [f"answer lacks {text!r}" for text in self.answer_contains if text.lower() not in lowered]
        if self.answer_number is not None and not any(
            abs(number - self.answer_number) <= self.tolerance + 1e-9 for number in numbers_in(answer)
        ):
            problems.append(f"answer lacks the number {self.answer_number:g}")
        rambling = _RAMBLE.search(answer)
        if rambling:
            problems.append(f"answer goes on with {rambling.group(0).strip()!r} (invented dialogue)")
        used = {call.name for call in calls if call.ok}
        problems += [f"{name} not called" for name in self.tools_called if name not in used]
        return problems


def numbers_in(text: str) -> list[float]:
    """Every number written in ``text`` ("1,298.50" -> 1298.5; a trailing period is not a decimal)."""
    found = []
    for match in _NUMBER.findall(text):
        try:
            found.append(float(match.replace(",", "")))
        except ValueError:
            continue
    return found


@dataclass(frozen=True)
class Task:
    """One question of the suite (see ``tasks.yaml``)."""

    id: str
    query: str
    check: Check
    needs: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()
    maximum_iterations: int = 4
    instruction: str = ""

    def scenario(self, strategy: str, model: ModelSettings) -> Scenario:
        """The task as a scenario for ``strategy``, a strategy name or a variant such as
        ``ReAct:json_schema`` (ReAct with that ``step_format``)."""
        name, _, step_format = strategy.partition(":")
        return Scenario(
            query=self.query,
            strategy=name,
            instruction=self.instruction,
            tools=list(self.tools),
            model=model,
            maximum_iterations=self.maximum_iterations,
            name=self.id,
            params={"step_format": step_format} if step_format else {},
        )


@dataclass(frozen=True)
class Suite:
    tasks: tuple[Task, ...]
    clock: datetime

    @classmethod
    def load(cls, path: Path = TASKS_FILE) -> Suite:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        defaults = data.get("defaults") or {}
        tasks = []
        for entry in data["tasks"]:
            merged = {**defaults, **entry}
            tasks.append(
                Task(
                    id=str(merged["id"]),
                    query=str(merged["query"]),
                    check=Check.from_dict(merged.get("check") or {}),
                    needs=tuple(merged.get("needs") or ()),
                    tools=tuple(merged.get("tools") or ()),
                    maximum_iterations=int(merged.get("maximum_iterations", 4)),
                    instruction=str(merged.get("instruction") or ""),
                )
            )
        ids = [task.id for task in tasks]
        if len(set(ids)) != len(ids):
            raise ValueError(f"{path}: task ids must be unique")
        return cls(tuple(tasks), datetime.fromisoformat(str(data["clock"])))

    def with_tools(self, tools: Iterable[str]) -> Suite:
        """Every task offering ``tools`` (e.g. all four: choosing the tool becomes part of every task)."""
        return replace(self, tasks=tuple(replace(task, tools=tuple(tools)) for task in self.tasks))

    def select(self, ids: Iterable[str] | None) -> Suite:
        """The suite restricted to ``ids`` (in the suite's order); unknown ids are an error."""
        if not ids:
            return self
        wanted = list(ids)
        unknown = sorted(set(wanted) - {task.id for task in self.tasks})
        if unknown:
            raise ValueError(f"unknown task ids {unknown}; known: {', '.join(t.id for t in self.tasks)}")
        return replace(self, tasks=tuple(task for task in self.tasks if task.id in wanted))


def suite_toolbox(clock: datetime) -> ToolBox:
    """The built-in tools, with ``current_time`` reading ``clock`` instead of the system clock."""
    toolbox = default_toolbox()
    real = toolbox.get("current_time")
    assert isinstance(real, LocalTool)

    def frozen(params: dict[str, Any]) -> Iterator[dict[str, Any]]:
        zone = find_zone(str(params.get("timezone") or "UTC"))
        yield text_message(clock.astimezone(zone).strftime(str(params.get("format") or "%Y-%m-%d %H:%M:%S %Z")))

    return toolbox.add(replace(real, handler=frozen))


# ---------------------------------------------------------------------------------------------
# Running


@dataclass(frozen=True)
class ToolUse:
    name: str
    arguments: dict[str, Any]
    ok: bool


@dataclass
class TaskOutcome:
    """One task run by one strategy."""

    task: Task
    strategy: str
    ok: bool
    problems: list[str]
    answer: str
    calls: list[ToolUse]
    llm_calls: int
    tokens: int | None
    seconds: float
    error: str | None = None
    note: str = ""
    name_errors: int = 0  # calls of a tool the task does not offer (or of no tool)
    argument_errors: int = 0  # calls of an offered tool refused for their arguments
    model_outputs: list[str] = field(default_factory=list)  # what the model wrote, one entry per LLM call
    model_requests: list[dict[str, Any]] = field(default_factory=list)  # what the plugin asked, one per LLM call

    def fingerprint_data(self) -> list[Any]:
        """What must be identical between two runs of a deterministic model (no times)."""
        return [self.task.id, self.strategy, self.ok, self.answer, [(c.name, c.arguments, c.ok) for c in self.calls],
                self.llm_calls, self.tokens, self.error]  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        return {
            "task": self.task.id,
            "strategy": self.strategy,
            "ok": self.ok,
            "problems": self.problems,
            "answer": self.answer,
            "tool_calls": [{"name": c.name, "arguments": c.arguments, "ok": c.ok} for c in self.calls],
            "llm_calls": self.llm_calls,
            "tokens": self.tokens,
            "seconds": round(self.seconds, 2),
            "error": self.error,
            "note": self.note,
            "name_errors": self.name_errors,
            "argument_errors": self.argument_errors,
            "model_outputs": self.model_outputs,
            "model_requests": self.model_requests,
        }


def tool_uses(toolbox: ToolBox) -> list[ToolUse]:
    """The tool calls a run made (``toolbox`` served only that run), with whether each answered without error."""
    return [
        ToolUse(str(record.request.get("tool")), dict(record.request.get("tool_parameters") or {}), record.error is None)
        for record in toolbox.calls
    ]


def call_errors(result: RunResult, toolbox: ToolBox, offered: Iterable[str]) -> tuple[int, int]:
    """(tool-name errors, argument errors) of a run, from its ``CALL`` log nodes: calls of a tool
    not ``offered``, and failed calls of an offered tool beyond those the tool itself failed
    (the plugin refused their arguments before calling it)."""
    names = set(offered)
    calls = [node for node in result.logs.values() if node.label.startswith("CALL ")]
    name_errors = sum(1 for node in calls if node.label[5:] not in names)
    failed_offered = sum(1 for node in calls if node.label[5:] in names and node.status == "error")
    failed_in_tool = sum(1 for record in toolbox.calls if record.error is not None)
    return name_errors, max(0, failed_offered - failed_in_tool)


def judge(task: Task, strategy: str, result: RunResult, toolbox: ToolBox) -> TaskOutcome:
    """Check one finished run."""
    calls = tool_uses(toolbox)
    name_errors, argument_errors = call_errors(result, toolbox, task.tools or toolbox.names)
    answer = result.text.strip()
    problems = task.check.failures(answer, calls)
    if not result.ok:
        problems.insert(0, f"run failed: {result.error_text}")
    metadata = result.execution_metadata or {}
    tokens = metadata.get("total_tokens")
    note = "no native tool calling: ran the ReAct steps" if "USING ReAct" in {n.label for n in result.root_logs()} else ""
    return TaskOutcome(
        task=task,
        strategy=strategy,
        ok=not problems,
        problems=problems,
        answer=answer,
        calls=calls,
        llm_calls=len(result.llm_requests),
        tokens=int(tokens) if tokens is not None else None,
        seconds=result.duration,
        error=result.error_text,
        note=note,
        name_errors=name_errors,
        argument_errors=argument_errors,
    )


class RecordingBackend:
    """Passes every LLM call to ``backend`` and keeps, one entry per call, the request the plugin
    sent (``requests``: its prompt included) and the text the model wrote (``outputs``)."""

    def __init__(self, backend: LLMBackend) -> None:
        self.backend = backend
        self.outputs: list[str] = []
        self.requests: list[dict[str, Any]] = []

    def invoke_llm(self, request: dict[str, Any]) -> Iterator[dict[str, Any]]:
        index = len(self.outputs)
        self.outputs.append("")
        self.requests.append(request)
        for chunk in self.backend.invoke_llm(request):
            self.outputs[index] += str(chunk["delta"]["message"].get("content") or "")
            yield chunk


def run_task(
    task: Task,
    strategy: str,
    model: ModelSettings,
    backend: LLMBackend,
    plugin: PluginProcess,
    clock: datetime,
    *,
    timeout: float = TASK_TIMEOUT,
) -> TaskOutcome:
    """Run ``task`` once with ``strategy`` through the real plugin and check it."""
    toolbox = suite_toolbox(clock)
    recorder = RecordingBackend(backend)
    result = run_scenario(task.scenario(strategy, model), recorder, toolbox, plugin=plugin, timeout=timeout)
    outcome = judge(task, strategy, result, toolbox)
    outcome.model_outputs = recorder.outputs
    outcome.model_requests = recorder.requests
    return outcome


@dataclass
class SuiteReport:
    """Every outcome, with the suite's wall time per strategy."""

    outcomes: list[TaskOutcome] = field(default_factory=list)
    wall: dict[str, float] = field(default_factory=dict)
    model: str = ""
    backend: str = ""

    def of(self, strategy: str) -> list[TaskOutcome]:
        return [o for o in self.outcomes if o.strategy == strategy]

    def strategies(self) -> list[str]:
        return list(dict.fromkeys(o.strategy for o in self.outcomes))

    def fingerprint(self, strategy: str | None = None) -> str:
        """A short hash of every answer, tool call, LLM call count and token count (no times)."""
        data = [o.fingerprint_data() for o in self.outcomes if strategy in (None, o.strategy)]
        return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:12]

    def rate(self, strategy: str) -> tuple[int, int]:
        outcomes = self.of(strategy)
        return sum(o.ok for o in outcomes), len(outcomes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "backend": self.backend,
            "fingerprint": self.fingerprint(),
            "strategies": {
                s: {
                    "passed": self.rate(s)[0],
                    "total": self.rate(s)[1],
                    "wall_seconds": round(self.wall.get(s, 0.0), 1),
                    "fingerprint": self.fingerprint(s),
                }
                for s in self.strategies()
            },
            "outcomes": [o.to_dict() for o in self.outcomes],
        }


def run_suite(
    suite: Suite,
    strategies: Iterable[str],
    model: ModelSettings,
    backend: LLMBackend,
    plugin: PluginProcess,
    *,
    on_outcome: Callable[[TaskOutcome], None] | None = None,
    timeout: float = TASK_TIMEOUT,
) -> SuiteReport:
    """Every task of ``suite`` with every strategy, one after the other, on one plugin process."""
    report = SuiteReport(model=model.model)
    for strategy in strategies:
        started = time.monotonic()
        for task in suite.tasks:
            outcome = run_task(task, strategy, model, backend, plugin, suite.clock, timeout=timeout)
            report.outcomes.append(outcome)
            if on_outcome is not None:
                on_outcome(outcome)
        report.wall[strategy] = time.monotonic() - started
    return report


# ---------------------------------------------------------------------------------------------
# Rendering


def _short(text: str, width: int = 48) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def task_table(report: SuiteReport, strategy: str) -> Table:
    passed, total = report.rate(strategy)
    table = Table(title=f"{strategy} on {report.model}: {passed}/{total} passed", title_justify="left")
    table.add_column("task", no_wrap=True)
    table.add_column("needs")
    table.add_column("ok", justify="center")
    table.add_column("LLM calls", justify="right")
    table.add_column("tool calls")
    table.add_column("tokens", justify="right")
    table.add_column("s", justify="right")
    table.add_column("answer", overflow="fold")
    for o in report.of(strategy):
        calls = ", ".join(c.name + ("" if c.ok else " (error)") for c in o.calls) or "-"
        table.add_row(
            o.task.id,
            ", ".join(o.task.needs) or "-",
            "[green]✔[/]" if o.ok else "[red]✘[/]",
            str(o.llm_calls),
            calls,
            "-" if o.tokens is None else str(o.tokens),
            f"{o.seconds:.1f}",
            _short(o.answer, 40) or "-",
        )
    return table


def failure_lines(report: SuiteReport, strategy: str) -> list[str]:
    """One line per failed task: why it failed."""
    return [f"  {o.task.id}: {'; '.join(o.problems)}" for o in report.of(strategy) if not o.ok]


def summary_table(report: SuiteReport) -> Table:
    table = Table(title="summary", title_justify="left")
    columns = ("strategy", "passed", "rate", "LLM calls", "tool calls", "name errors", "argument errors", "tokens",
               "wall time", "fingerprint")  # fmt: skip
    for name in columns:
        table.add_column(name, justify="left" if name in ("strategy", "fingerprint") else "right", no_wrap=True)
    for strategy in report.strategies():
        outcomes = report.of(strategy)
        passed, total = report.rate(strategy)
        tokens = [o.tokens for o in outcomes if o.tokens is not None]
        table.add_row(
            strategy,
            f"{passed}/{total}",
            f"{100 * passed / total:.0f}%" if total else "-",
            str(sum(o.llm_calls for o in outcomes)),
            str(sum(len(o.calls) for o in outcomes)),
            str(sum(o.name_errors for o in outcomes)),
            str(sum(o.argument_errors for o in outcomes)),
            str(sum(tokens)) if tokens else "-",
            f"{report.wall.get(strategy, 0.0):.1f}s",
            report.fingerprint(strategy),
        )
    return table


# ---------------------------------------------------------------------------------------------
# Command line


def add_tasks_parser(commands: Any) -> argparse.ArgumentParser:
    """The ``tasks`` sub-command of ``python -m local_runner``."""
    parser = commands.add_parser(
        "tasks", help="run the task suite (known answers) through the plugin; print success per task and strategy"
    )
    parser.add_argument(
        "--strategy", default="all", help="ReAct, function_calling or all (default: %(default)s)"
    )
    parser.add_argument(
        "--step-format",
        choices=["auto", "text", "json_schema", "both"],
        default="auto",
        help="ReAct's step_format; 'both' runs text and json_schema side by side (default: %(default)s)",
    )
    parser.add_argument("--only", help="comma-separated task ids (default: every task)")
    parser.add_argument("--tasks-file", type=Path, default=TASKS_FILE, help="task suite YAML (default: the bundled one)")
    parser.add_argument(
        "--all-tools", action="store_true", help="offer all four local tools to every task (default: the task's own)"
    )
    model = parser.add_argument_group("model backend")
    model.add_argument("--backend", choices=["local", "openai"], default="local", help="default: %(default)s")
    model.add_argument("--local-model", default=DEFAULT_MODEL, help=f"local backend: one of {sorted(MODELS)} or a .gguf")
    model.add_argument("--base-url", help="openai backend: OpenAI-compatible server URL")
    model.add_argument("--api-key", default="not-needed", help="openai backend: API key")
    model.add_argument("--model", help="openai backend: model name")
    model.add_argument("--mode", choices=["chat", "completion"], help="model mode (local: completion; openai: chat)")
    model.add_argument(
        "--features",
        help="comma-separated model features declared to the plugin (local: none; openai: tool-call,...); "
        "'' for none",
    )
    model.add_argument("--max-tokens", type=int, default=DEFAULT_MAX_TOKENS, help="max_tokens per LLM call")
    plugin = parser.add_argument_group("plugin process")
    plugin.add_argument("--plugin-dir", type=Path, default=DEFAULT_PLUGIN_DIR, help="plugin folder")
    plugin.add_argument("--python", help="python for the plugin (default: <plugin>/.venv/bin/python if it exists, else this interpreter)")
    plugin.add_argument("--timeout", type=float, default=TASK_TIMEOUT, help="seconds one task may take")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also save every outcome (answers included) as JSON")
    return parser


def parse_strategies(value: str, step_format: str = "auto") -> list[str]:
    """The strategies to run: ``ReAct`` becomes ``ReAct:<step_format>`` unless it is ``auto``,
    and both ``ReAct:text`` and ``ReAct:json_schema`` for ``both``."""
    chosen = list(STRATEGIES) if value == "all" else [s.strip() for s in value.split(",") if s.strip()]
    unknown = [s for s in chosen if s not in STRATEGIES]
    if unknown or not chosen:
        raise ValueError(f"--strategy: expected ReAct, function_calling or all, got {value!r}")
    formats = {"auto": [], "both": ["text", "json_schema"]}.get(step_format, [step_format])
    variants = [f"ReAct:{fmt}" for fmt in formats] or ["ReAct"]
    return [variant for s in chosen for variant in (variants if s == "ReAct" else [s])]


def _features(value: str | None, default: list[str]) -> list[str]:
    if value is None:
        return list(default)
    return [f.strip() for f in value.split(",") if f.strip()]


def open_backend(args: argparse.Namespace, console: Console) -> tuple[LLMBackend, ModelSettings]:
    """The backend of ``args`` and the model settings the plugin gets (temperature 0, fixed seed)."""
    if args.backend == "local":
        backend = LocalModelBackend.start(
            args.local_model, progress=rich_progress(console), max_tokens=args.max_tokens, timeout=args.timeout
        )
        settings = backend.model_settings()
        settings["mode"] = args.mode or settings["mode"]
        settings["features"] = _features(args.features, settings["features"])
        return backend, ModelSettings(**settings)
    if not args.base_url or not args.model:
        raise ValueError("--backend openai needs --base-url and --model")
    backend = OpenAICompatibleBackend(args.base_url, args.api_key, args.model, timeout=args.timeout)
    model = ModelSettings(
        model=args.model,
        mode=args.mode or "chat",
        features=_features(args.features, DEFAULT_FEATURES),
        completion_params={"temperature": 0, "seed": DEFAULT_SEED, "max_tokens": args.max_tokens},
    )
    return backend, model


def print_report(report: SuiteReport, model: ModelSettings, console: Console) -> None:
    """Per strategy: the task table, why each failed task failed, notes; then the summary table."""
    for strategy in report.strategies():
        console.print(task_table(report, strategy))
        for line in failure_lines(report, strategy):
            console.print(line, highlight=False, markup=False)
        notes = {o.note for o in report.of(strategy) if o.note}
        for note in sorted(notes):
            console.print(f"[yellow]{strategy}: {note} (model features: {model.features or 'none'})[/]")
    console.print(summary_table(report))


def main_tasks(args: argparse.Namespace, console: Console) -> int:
    """``python -m local_runner tasks``; returns the exit code."""
    try:
        strategies = parse_strategies(args.strategy, args.step_format)
        suite = Suite.load(args.tasks_file).select(args.only.split(",") if args.only else None)
        if args.all_tools:
            suite = suite.with_tools(default_toolbox().names)
    except (ValueError, OSError, KeyError) as exc:
        console.print(f"[red]error:[/] {exc}")
        return 2
    if not console.is_terminal:
        console.width = max(console.width, 132)  # piped to a file or CI log: room for the table
    started = time.monotonic()
    backend: LLMBackend | None = None
    try:
        backend, model = open_backend(args, console)
        console.print(
            f"[dim]{len(suite.tasks)} tasks x {', '.join(strategies)} on {model.model} "
            f"(mode {model.mode}, features {model.features or 'none'}, {model.completion_params})[/]"
        )

        def progress(o: TaskOutcome) -> None:
            mark = "[green]✔[/]" if o.ok else "[red]✘[/]"
            console.print(f"  {mark} {o.strategy} {o.task.id} ({o.seconds:.1f}s)", highlight=False)

        with PluginProcess(args.plugin_dir, python=args.python, ready_timeout=READY_TIMEOUT) as plugin:
            report = run_suite(suite, strategies, model, backend, plugin, on_outcome=progress, timeout=args.timeout)
        report.backend = args.backend
    except ValueError as exc:
        console.print(f"[red]error:[/] {exc}")
        return 2
    except (PluginError, LocalModelError, OSError) as exc:
        console.print(f"[bold red]cannot run:[/] {exc}")
        return 1
    except KeyboardInterrupt:
        console.print("[yellow]interrupted[/]")
        return 130
    finally:
        close = getattr(backend, "close", None)
        if callable(close):
            close()
    print_report(report, model, console)
    console.print(f"[dim]total {time.monotonic() - started:.1f}s; suite fingerprint {report.fingerprint()}[/]")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report.to_dict(), ensure_ascii=False, indent=1), encoding="utf-8")
    return 0
