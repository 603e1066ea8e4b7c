"""Shared plumbing of the benchmarks: the plugin process, /proc readings, the run's timeline
(read back from the runner's transcript), synthetic tools and scripted model turns, tokens,
statistics.

Everything goes through ``local_runner`` and the real plugin process (``python -m main``);
nothing here imports plugin code except ``agent_core.tokens`` (pure: no SDK, no gevent).
"""

from __future__ import annotations

import itertools
import json
import math
import os
import random
import statistics
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from agent_core.tokens import estimate_tokens
from local_runner import ModelSettings, PluginProcess, RunResult, Scenario, ScriptedBackend, ToolBox, run_scenario
from local_runner.backends import estimate_prompt_tokens
from local_runner.daemon import DEFAULT_PLUGIN_DIR
from local_runner.tools import ScriptedTool, ToolParam, text_message

STRATEGIES = ("function_calling", "ReAct")
CLK_TCK = os.sysconf("SC_CLK_TCK")
CHARS_PER_CHUNK = 4
"""Characters of text per streamed chunk (about one token, as real providers stream)."""


# ---------------------------------------------------------------------------------------------
# /proc readings of the plugin process


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` (all its threads, dead ones included), from
    ``/proc/<pid>/stat`` fields 14 and 15. Resolution: one clock tick (``1/CLK_TCK`` s)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def thread_cpu_seconds(pid: int) -> float | None:
    """CPU time of ``pid``'s live threads from ``/proc/<pid>/task/*/schedstat`` (nanosecond
    resolution; misses threads that exited), or ``None`` when the kernel has no schedstat."""
    total = 0
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{task}/schedstat", encoding="ascii") as stat:
                    total += int(stat.read().split()[0])
            except FileNotFoundError:
                continue
    except FileNotFoundError:
        return None
    return total / 1e9


def memory_kb(pid: int) -> dict[str, int]:
    """``VmHWM`` (peak resident set), ``VmRSS`` and ``VmPeak`` of ``pid`` in kB, from
    ``/proc/<pid>/status``."""
    values: dict[str, int] = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            key, _, rest = line.partition(":")
            if key in ("VmHWM", "VmRSS", "VmPeak"):
                values[key] = int(rest.split()[0])
    return values


@dataclass
class CpuSample:
    """CPU readings taken when the plugin asked for model call number ``llm_calls``."""

    llm_calls: int
    at: float
    plugin_cpu: float
    plugin_thread_cpu: float | None
    runner_cpu: float


class CpuProbe:
    """An ``on_update`` callback that samples CPU each time the plugin makes a new model call.

    The plugin is waiting for the model at that moment (it just sent the request), so the
    samples split the run at quiet points: the difference between call ``k`` and ``k + 1`` is
    everything the plugin (and, in ``runner_cpu``, this process) did for round ``k``.
    """

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.samples: list[CpuSample] = []
        self._lock = threading.Lock()

    def sample(self, llm_calls: int) -> None:
        self.samples.append(
            CpuSample(
                llm_calls,
                time.monotonic(),
                cpu_seconds(self.pid),
                thread_cpu_seconds(self.pid),
                time.process_time(),
            )
        )

    def __call__(self, result: RunResult) -> None:
        calls = len(result.llm_requests)  # called from several runner threads at once
        with self._lock:
            if calls and (not self.samples or self.samples[-1].llm_calls < calls):
                self.sample(calls)

    def round_deltas(self) -> list[float]:
        """Plugin CPU seconds of each round between two sampled model calls (schedstat when
        available, else /proc/stat)."""
        samples = sorted({s.llm_calls: s for s in reversed(self.samples)}.values(), key=lambda s: s.llm_calls)
        out = []
        for a, b in itertools.pairwise(samples):
            if a.plugin_thread_cpu is not None and b.plugin_thread_cpu is not None:
                out.append((b.plugin_thread_cpu - a.plugin_thread_cpu) / (b.llm_calls - a.llm_calls))
            else:
                out.append((b.plugin_cpu - a.plugin_cpu) / (b.llm_calls - a.llm_calls))
        return out

    def per_round(self, first: int = 1, last: int | None = None) -> dict[str, float | None]:
        """Mean CPU seconds per round between model call ``first`` and ``last`` (default: the
        last sampled), for the plugin (``/proc/stat`` and schedstat) and the runner."""
        by_call = {s.llm_calls: s for s in self.samples}
        last = last or max(by_call)
        if first not in by_call or last not in by_call or last <= first:
            return {"plugin_cpu": None, "plugin_thread_cpu": None, "runner_cpu": None, "rounds": 0}
        a, b, rounds = by_call[first], by_call[last], last - first
        thread = None
        if a.plugin_thread_cpu is not None and b.plugin_thread_cpu is not None:
            thread = (b.plugin_thread_cpu - a.plugin_thread_cpu) / rounds
        return {
            "plugin_cpu": (b.plugin_cpu - a.plugin_cpu) / rounds,
            "plugin_thread_cpu": thread,
            "runner_cpu": (b.runner_cpu - a.runner_cpu) / rounds,
            "rounds": rounds,
        }


# ---------------------------------------------------------------------------------------------
# The run's timeline, read back from the transcript


@dataclass
class Backwards:
    """One backwards invocation (``llm`` or ``tool``) of the plugin, with runner-side times
    (transcript ``t``: seconds since the plugin started): ``invoked`` = the plugin's request
    line read, ``responses`` = each response line written (time, data), ``end`` = the ``end``
    line written."""

    kind: str
    request_id: str
    invoked: float
    request: dict[str, Any]
    responses: list[tuple[float, Any]] = field(default_factory=list)
    end: float | None = None


@dataclass
class Timeline:
    """A run as timed by the runner's transcript."""

    request_sent: float | None
    calls: list[Backwards]
    texts: list[tuple[float, str]]
    ended: float | None
    logs: list[tuple[float, str, str]] = field(default_factory=list)
    """Each log message read: (time, label, status)."""

    @property
    def llm(self) -> list[Backwards]:
        return [call for call in self.calls if call.kind == "llm"]

    @property
    def tools(self) -> list[Backwards]:
        return [call for call in self.calls if call.kind == "tool"]

    def round_walls(self) -> list[float]:
        """Seconds per round: model call ``k`` requested -> model call ``k + 1`` requested (the
        last round ends with the session's ``end``)."""
        starts = [call.invoked for call in self.llm]
        ends = [*starts[1:], self.ended]
        return [end - start for start, end in zip(starts, ends, strict=True) if end is not None]

    def tools_of_round(self, index: int) -> list[Backwards]:
        """Tool calls requested during round ``index`` (0-based)."""
        llm = self.llm
        start = llm[index].invoked
        stop = llm[index + 1].invoked if index + 1 < len(llm) else math.inf
        return [call for call in self.tools if start <= call.invoked < stop]


def timeline(result: RunResult) -> Timeline:
    """Parse ``result.transcript`` into a ``Timeline``."""
    line = Timeline(None, [], [], None)
    calls: dict[str, Backwards] = {}
    with result.lock:
        entries = list(result.transcript)
    for entry in entries:
        if isinstance(entry.get("json"), dict):
            if entry["dir"] == "to_plugin":
                _to_plugin(line, calls, entry["t"], entry["json"])
            elif entry["json"].get("event") == "session":
                _from_plugin(line, calls, entry["t"], entry["json"].get("data") or {})
    line.calls = sorted(calls.values(), key=lambda c: c.invoked)
    return line


def _to_plugin(line: Timeline, calls: dict[str, Backwards], t: float, message: dict[str, Any]) -> None:
    data = message.get("data") or {}
    if message.get("event") == "request":
        line.request_sent = t
    elif message.get("event") == "backwards_response":
        call = calls.get(str(data.get("backwards_request_id")))
        if call is None:
            return
        if data.get("event") == "response":
            call.responses.append((t, data.get("data")))
        elif data.get("event") in ("end", "error"):
            call.end = t


def _from_plugin(line: Timeline, calls: dict[str, Backwards], t: float, message: dict[str, Any]) -> None:
    body = message.get("data") or {}
    if message.get("type") == "invoke":
        request_id = str(body.get("backwards_request_id"))
        calls[request_id] = Backwards(str(body.get("type")), request_id, t, body.get("request") or {})
    elif message.get("type") == "stream" and body.get("type") == "text":
        line.texts.append((t, str((body.get("message") or {}).get("text", ""))))
    elif message.get("type") == "stream" and body.get("type") == "log":
        log = body.get("message") or {}
        line.logs.append((t, str(log.get("label", "")), str(log.get("status", ""))))
    elif message.get("type") == "end":
        line.ended = t


def chunk_text(chunk: Any) -> str:
    """The content text of an ``LLMResultChunk`` dict as sent to the plugin."""
    message = ((chunk or {}).get("delta") or {}).get("message") or {}
    content = message.get("content")
    return content if isinstance(content, str) else ""


# ---------------------------------------------------------------------------------------------
# Synthetic tools, text and model turns

_WORDS = (
    "order",
    "invoice",
    "customer",
    "shipping",
    "address",
    "warehouse",
    "battery",
    "firmware",
    "update",
    "status",
    "delivery",
    "account",
    "payment",
    "refund",
    "product",
    "catalog",
    "price",
    "discount",
    "region",
    "support",
    "ticket",
    "priority",
    "report",
    "summary",
    "total",
    "quantity",
    "item",
    "record",
    "device",
    "serial",
    "version",
    "release",
    "note",
    "error",
    "warning",
    "metric",
    "latency",
    "request",
    "response",
    "result",
    "value",
    "count",
    "average",
    "daily",
    "weekly",
    "monthly",
    "north",
    "south",
    "east",
    "west",
    "the",
    "a",
    "of",
    "to",
    "and",
    "in",
    "for",
    "with",
    "on",
    "is",
    "was",
    "are",
    "by",
    "from",
    "at",
    "as",
    "this",
    "that",
    "it",
    "be",
    "or",
    "not",
    "all",
    "new",
    "first",
)


def filler_text(chars: int, seed: int = 0) -> str:
    """Deterministic English-like text of exactly ``chars`` characters (words, numbers,
    punctuation and line breaks), so the token estimate behaves as on real tool output."""
    rng = random.Random(seed)
    parts: list[str] = []
    size = 0
    while size < chars:
        roll = rng.random()
        if roll < 0.08:
            piece = str(rng.randint(0, 99999))
        elif roll < 0.12:
            piece = rng.choice([",", ".", ":", ";"]) + (" " if rng.random() < 0.5 else "\n")
        else:
            piece = rng.choice(_WORDS)
        piece = piece if piece.endswith((" ", "\n")) else piece + " "
        parts.append(piece)
        size += len(piece)
    return "".join(parts)[:chars]


def json_records(chars: int, seed: int = 0) -> str:
    """Deterministic JSON-lines records (ids, amounts, dates, short words) of exactly ``chars``
    characters: what an API-backed tool typically returns (about 3 characters per token)."""
    rng = random.Random(seed)
    lines: list[str] = []
    size = 0
    while size < chars:
        record = {
            "id": rng.randint(10_000, 99_999),
            "status": rng.choice(("shipped", "pending", "returned", "delivered")),
            "customer": " ".join(rng.choice(_WORDS) for _ in range(2)),
            "amount": round(rng.uniform(1, 5000), 2),
            "date": f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
            "region": rng.choice(("north", "south", "east", "west")),
        }
        line = json.dumps(record)
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines)[:chars]


def make_tool(index: int, *, latency: float = 0.0, output: str | None = None) -> ScriptedTool:
    """Tool ``tool_<index>``: a one-sentence description, a required string ``query``, an
    optional number ``limit`` and, for every third tool, a ``region`` select of four options;
    each call waits ``latency`` s and returns ``output`` (default: a short line)."""
    params = [
        ToolParam("query", description="What to look up, in a few words."),
        ToolParam("limit", type="number", description="Maximum number of results.", required=False),
    ]
    if index % 3 == 0:
        params.append(
            ToolParam(
                "region",
                type="select",
                description="Sales region to search.",
                required=False,
                options=("north", "south", "east", "west"),
            )
        )
    return ScriptedTool(
        name=f"tool_{index:03d}",
        description=f"Looks up records of kind {index} (orders, invoices, shipments) and returns a short summary.",
        parameters=params,
        responses=[text_message(output if output is not None else f"tool_{index:03d}: 3 records found, status ok.")],
        latency=latency,
    )


def make_toolbox(count: int, *, latency: float = 0.0, outputs: Callable[[int], str] | None = None) -> ToolBox:
    """``count`` tools from ``make_tool`` (``outputs(i)`` gives tool ``i``'s output)."""
    return ToolBox(make_tool(i, latency=latency, output=outputs(i) if outputs else None) for i in range(count))


def split_even(text: str, pieces: int) -> list[str]:
    """``text`` cut into ``pieces`` consecutive non-empty parts of near-equal length."""
    pieces = max(1, min(pieces, len(text)))
    bounds = [round(i * len(text) / pieces) for i in range(pieces + 1)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


def _thought(chars: int, seed: int) -> str:
    return filler_text(max(chars, 12), seed).replace("\n", " ").strip() or "checking"


def _arguments(round_index: int) -> dict[str, Any]:
    return {"query": f"records for case {round_index}", "limit": 5}


def fc_tool_turn(
    chunks: int, calls: Sequence[tuple[str, dict[str, Any]]], *, round_index: int = 1, delay: float = 0.0
) -> dict[str, Any]:
    """A function-calling turn of exactly ``chunks`` chunks: ``chunks - 1`` pieces of thought
    text, then one chunk with every (complete) tool call ``(name, arguments)``."""
    text = _thought(CHARS_PER_CHUNK * max(chunks - 1, 1), seed=round_index)
    raw: list[dict[str, Any]] = [{"content": piece} for piece in split_even(text, chunks - 1)] if chunks > 1 else []
    raw.append(
        {
            "tool_calls": [
                {
                    "id": f"call_{round_index}_{n}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(arguments)},
                }
                for n, (name, arguments) in enumerate(calls, start=1)
            ]
        }
    )
    return _with_delay({"chunks": raw}, delay)


def react_tool_turn(
    chunks: int, name: str, arguments: dict[str, Any], *, round_index: int = 1, delay: float = 0.0
) -> dict[str, Any]:
    """A ReAct turn ``Thought: ... Action: {json}`` of exactly ``chunks`` chunks (text of about
    ``4 * chunks`` characters, or the shortest such text when that is longer)."""
    action = "\nAction:\n```json\n" + json.dumps({"action": name, "action_input": arguments}) + "\n```"
    thought = _thought(CHARS_PER_CHUNK * chunks - len(action) - len("Thought: "), seed=round_index)
    text = "Thought: " + thought + action
    return _with_delay({"chunks": [{"content": piece} for piece in split_even(text, chunks)]}, delay)


FINAL_ANSWER_LEAD = "Thought: I know the answer.\nFinal Answer: "


def answer_turn(strategy: str, chunks: int, *, seed: int = 99, delay: float = 0.0) -> dict[str, Any]:
    """A final answer of exactly ``chunks`` chunks (ReAct: ``Thought: ... Final Answer: ...``)."""
    lead = FINAL_ANSWER_LEAD if strategy == "ReAct" else ""
    answer = "The answer is " + _thought(CHARS_PER_CHUNK * chunks - len(lead) - 14, seed)
    return _with_delay({"chunks": [{"content": piece} for piece in split_even(lead + answer, chunks)]}, delay)


def tool_turn(strategy: str, chunks: int, name: str, round_index: int, *, delay: float = 0.0) -> dict[str, Any]:
    """One tool-calling turn of ``strategy`` calling ``name`` with arguments unique to the round."""
    arguments = _arguments(round_index)
    if strategy == "ReAct":
        return react_tool_turn(chunks, name, arguments, round_index=round_index, delay=delay)
    return fc_tool_turn(chunks, [(name, arguments)], round_index=round_index, delay=delay)


def _with_delay(turn: dict[str, Any], delay: float) -> dict[str, Any]:
    if delay:
        turn["delay"] = delay
    return turn


def history(turns: int, words_per_message: int = 120) -> list[dict[str, Any]]:
    """Conversation memory: ``turns`` user/assistant pairs of about ``words_per_message`` words."""
    messages = []
    for n in range(turns):
        messages.append({"role": "user", "content": f"Question {n}: " + filler_text(words_per_message * 2, 1000 + n)})
        messages.append({"role": "assistant", "content": filler_text(words_per_message * 6, 2000 + n)})
    return messages


# ---------------------------------------------------------------------------------------------
# Running


class Plugin:
    """A started plugin process for the benchmarks (``with Plugin() as plugin:``).

    ``run()`` plays one scripted scenario on it. The runner keeps every line of every run in
    ``PluginProcess.transcript``; benchmarks send hundreds of thousands of lines, so ``run()``
    empties that process-wide list after each run (each ``RunResult`` keeps its own copy).
    """

    observers: ClassVar[list[Any]] = []
    """Objects told ``started(plugin)`` / ``stopping(plugin)`` (``bench.profiling.PySpy``)."""

    default_dir: ClassVar[Path] = DEFAULT_PLUGIN_DIR
    """The plugin folder benchmarked (``python -m bench --plugin-dir``; default: this project)."""

    def __init__(self, plugin_dir: str | Path | None = None, *, model: ModelSettings | None = None) -> None:
        self.process = PluginProcess(plugin_dir or self.default_dir)
        self.model = model
        """The model every ``run()`` sends unless told otherwise (default: ``ModelSettings()``)."""

    def __enter__(self) -> Plugin:
        self.process.start()
        for observer in list(self.observers):
            observer.started(self)
        return self

    def __exit__(self, *exc_info: object) -> None:
        for observer in list(self.observers):
            observer.stopping(self)
        self.process.close()

    @property
    def pid(self) -> int:
        assert self.process.pid is not None
        return self.process.pid

    def run(
        self,
        strategy: str,
        turns: list[dict[str, Any]],
        toolbox: ToolBox,
        tools: Iterable[str] | None = None,
        *,
        probe: CpuProbe | None = None,
        backend: Any = None,
        timeout: float = 300.0,
        **fields: Any,
    ) -> RunResult:
        """Run ``strategy`` with the scripted ``turns`` offering ``tools`` (default: all of the
        toolbox); ``fields`` are other ``Scenario`` fields. Raises ``BenchError`` unless the
        run ended cleanly and played every turn."""
        names = list(toolbox.names if tools is None else tools)
        fields.setdefault("maximum_iterations", 99)
        fields.setdefault("model", self.model or ModelSettings())
        scenario = Scenario(query="Find the records and summarize them.", strategy=strategy, tools=names, **fields)
        backend = backend or ScriptedBackend(turns)
        try:
            result = run_scenario(scenario, backend, toolbox, plugin=self.process, on_update=probe, timeout=timeout)
        finally:
            self.process.transcript.clear()
        if not result.ok:
            raise BenchError(f"{strategy} run failed: {result.error_text}\n" + "\n".join(result.stderr_tail[-10:]))
        inner = getattr(backend, "inner", backend)
        if hasattr(inner, "remaining") and inner.remaining:
            raise BenchError(f"{strategy} run ended after {len(result.llm_requests)} model calls; turns were left over")
        return result


class BenchError(RuntimeError):
    """A benchmark run did not go as scripted (its numbers would be meaningless)."""


# ---------------------------------------------------------------------------------------------
# Tokens


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("data") or "") for part in content if part.get("type") == "text")
    return ""


MESSAGE_OVERHEAD = 4
"""Tokens per message for roles and separators (as ``agent_core.budget.MESSAGE_OVERHEAD``)."""


def request_tokens(request: dict[str, Any]) -> dict[str, int]:
    """Tokens of a recorded backwards ``llm`` request, counted with the plugin's own estimate
    (``agent_core.tokens.estimate_tokens``) the way ``agent_core.budget.request_tokens`` counts
    a request: each tool's JSON, and per message 4 + its text + its tool calls' name and
    arguments. Also ``runner_estimate``: the ScriptedBackend's estimate (characters / 4)."""
    tools = sum(estimate_tokens(json.dumps(tool, ensure_ascii=False)) for tool in request.get("tools") or [])
    messages = 0
    system = 0
    for message in request.get("prompt_messages") or []:
        size = MESSAGE_OVERHEAD + estimate_tokens(_content_text(message.get("content")))
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            size += estimate_tokens(function.get("name") or "") + estimate_tokens(function.get("arguments") or "")
        messages += size
        if message.get("role") == "system":
            system += size
    return {
        "total": tools + messages,
        "tools": tools,
        "messages": messages,
        "system": system,
        "runner_estimate": estimate_prompt_tokens(request),
    }


def system_prompt(request: dict[str, Any]) -> str:
    """The text of the request's system message ('' if none)."""
    for message in request.get("prompt_messages") or []:
        if message.get("role") == "system":
            return _content_text(message.get("content"))
    return ""


# ---------------------------------------------------------------------------------------------
# Statistics


def median(values: Iterable[float | None]) -> float | None:
    """Median of the values that are not None (None if there are none)."""
    kept = [v for v in values if v is not None]
    return statistics.median(kept) if kept else None


def spread(values: Iterable[float | None]) -> tuple[float, float] | None:
    """(min, max) of the values that are not None."""
    kept = [v for v in values if v is not None]
    return (min(kept), max(kept)) if kept else None


def quartiles(values: Sequence[float]) -> tuple[float, float]:
    """(25th, 75th) percentiles; for fewer than 2 values, the value twice."""
    if len(values) < 2:
        return (values[0], values[0]) if values else (math.nan, math.nan)
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], q[2]


def ms(seconds: float | None, digits: int = 1) -> float | None:
    """Seconds -> milliseconds, rounded (None stays None)."""
    return None if seconds is None else round(seconds * 1000, digits)
