"""Long-lived process: the plugin's memory over hundreds of sessions on one process.

Dify's daemon keeps one plugin process for every session of a plugin, for days. A process whose
memory grows with each session is one day killed by the kernel, ending every session on it. This
benchmark runs ``runs`` sessions of mixed kinds (``KINDS``: both strategies, tools returning
``result_chars`` characters, a memory holding a pasted document, files, failing tools and models, cut replies, parallel calls, and
sessions the daemon stops answering: a model or tool that never replies, ended by the run's time
limit) through one plugin process, ``concurrency`` at a time, and reads the process's resident
set (``VmRSS`` of ``/proc/<pid>/status``), its threads and open files after every ``every``
sessions, once the process is quiet. The growth ratio compares the last reading with the first
(taken after ``every`` sessions, once the process has met every kind, its caches warm).

``python -m bench long_lived`` (or ``python -m bench.long_lived [RUNS]``).
"""

from __future__ import annotations

import base64
import os
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

from bench.harness import Plugin, answer_turn, fc_tool_turn, memory_kb, react_tool_turn
from local_runner import ModelSettings, PluginProcess, RunResult, Scenario, ScriptedBackend, run_scenario
from local_runner.tools import ScriptedTool, ToolBox, ToolParam, text_message

NAME = "long_lived"
TITLE = "Long-lived process (the plugin's memory over many sessions)"


@dataclass(frozen=True)
class Params:
    runs: int = 600
    every: int = 100
    """Sessions between two readings."""
    concurrency: int = 4
    """Sessions running at once (besides the stuck ones, which run beside them)."""
    result_chars: int = 100_000
    """Characters of each tool result."""
    stuck_every: int = 25
    """One session in this many has a model or tool that never replies (0: none); it ends at the
    run's time limit (10 s, the shortest a node may set)."""


FULL = Params()
SMOKE = Params(runs=20, every=10, concurrency=2, result_chars=5_000, stuck_every=20)

STUCK_RUN_TIMEOUT = 10
"""Seconds: ``run_timeout`` of the sessions whose model or tool never replies."""


@dataclass(frozen=True)
class Session:
    """One session to play: ``strategy``, scripted ``turns``, its ``tools`` and node ``params``;
    ``answer``: whether it must end with an answer (else a clear error)."""

    strategy: str
    turns: list[dict[str, Any]]
    tools: list[ScriptedTool]
    params: dict[str, Any]
    answer: bool = True
    stuck: bool = False
    history: tuple[dict[str, Any], ...] = ()


def _tool(name: str, responses: list[dict[str, Any]], **kwargs: Any) -> ScriptedTool:
    return ScriptedTool(name=name, description=f"Looks up {name} records.",
                        parameters=[ToolParam("query", description="What to look up.")], responses=responses, **kwargs)


def _records(chars: int, n: int) -> str:
    line = f"record {n}: order shipped, invoice paid, status ok; "
    return (line * (chars // len(line) + 1))[:chars]


def _call(strategy: str, name: str, n: int) -> dict[str, Any]:
    if strategy == "ReAct":
        return react_tool_turn(8, name, {"query": f"case {n}"})
    return fc_tool_turn(4, [(name, {"query": f"case {n}"})])


def _big_result(strategy: str, n: int, p: Params) -> Session:
    tool = _tool("records", [text_message(_records(p.result_chars, n))])
    return Session(strategy, [_call(strategy, "records", n), answer_turn(strategy, 6, seed=n)], [tool], {})


def _file(strategy: str, n: int, p: Params) -> Session:
    data = _records(min(p.result_chars, 20_000), n).encode()
    blob = {"type": "blob", "message": {"blob": base64.b64encode(data).decode()},
            "meta": {"mime_type": "text/csv", "file_name": f"report-{n}.csv"}}
    tool = _tool("report", [blob, text_message(f"report {n} written")])
    return Session(strategy, [_call(strategy, "report", n), answer_turn(strategy, 6, seed=n)], [tool], {})


def _tool_error(strategy: str, n: int, p: Params) -> Session:
    tool = _tool("flaky", [text_message(_records(p.result_chars // 4, n))], error=f"backend {n} unavailable")
    return Session(strategy, [_call(strategy, "flaky", n), answer_turn(strategy, 6, seed=n)], [tool], {})


def _model_error(strategy: str, n: int, p: Params) -> Session:
    tool = _tool("records", [text_message(_records(p.result_chars, n))])
    turns = [_call(strategy, "records", n), {"chunks": [{"content": "The answer"}], "error": f"overloaded {n}"}]
    return Session(strategy, turns, [tool], {}, answer=False)


def _cut(strategy: str, n: int, p: Params) -> Session:
    lead = "Thought: I know.\nFinal Answer: " if strategy == "ReAct" else ""
    turns = [{"chunks": [{"content": lead + f"The records of case {n} show"}], "finish_reason": "length"},
             {"chunks": [{"content": " that every order shipped."}]}]
    return Session(strategy, turns, [], {})


def _parallel(strategy: str, n: int, p: Params) -> Session:
    tools = [_tool(f"source_{k}", [text_message(_records(p.result_chars // 3, n + k))]) for k in range(3)]
    if strategy == "ReAct":
        first = _call(strategy, "source_0", n)
    else:
        first = fc_tool_turn(4, [(f"source_{k}", {"query": f"case {n}"}) for k in range(3)])
    return Session(strategy, [first, answer_turn(strategy, 6, seed=n)], tools, {})


def _pasted_document(strategy: str, n: int, p: Params) -> Session:
    """A conversation whose memory holds a document the user pasted: one line of six tool
    results' length, its own in every session."""
    document = f"Document {n}: " + _records(6 * p.result_chars, n)
    history = ({"role": "user", "content": document}, {"role": "assistant", "content": f"Noted document {n}."})
    tool = _tool("records", [text_message(_records(p.result_chars // 10, n))])
    return Session(strategy, [_call(strategy, "records", n), answer_turn(strategy, 6, seed=n)], [tool], {},
                   history=history)


def _stuck_model(strategy: str, n: int, p: Params) -> Session:
    """The daemon stops answering mid-reply: a model that streams a little, then nothing."""
    turns = [{"chunks": [{"content": "Thought: let me" if strategy == "ReAct" else "Let me"}], "hang": True}]
    return Session(strategy, turns, [], {"run_timeout": STUCK_RUN_TIMEOUT}, answer=False, stuck=True)


def _stuck_tool(strategy: str, n: int, p: Params) -> Session:
    """A tool call the daemon never answers: the run answers without it at its time limit."""
    tool = _tool("records", [], hang=True)
    turns = [_call(strategy, "records", n), answer_turn(strategy, 6, seed=n)]
    return Session(strategy, turns, [tool], {"run_timeout": STUCK_RUN_TIMEOUT, "tool_timeout": 900},
                   answer=False, stuck=True)


KINDS: list[Callable[[str, int, Params], Session]] = [
    _big_result, _file, _tool_error, _model_error, _cut, _parallel, _pasted_document]
"""The kinds of finished sessions, played in turn with each strategy."""
STUCK_KINDS: list[Callable[[str, int, Params], Session]] = [_stuck_model, _stuck_tool]


def session(n: int, p: Params) -> Session:
    """Session number ``n`` (from 0) of a campaign: a stuck one every ``p.stuck_every``, else the
    kinds and strategies in turn."""
    strategy = ("function_calling", "ReAct")[n % 2]
    if p.stuck_every and n % p.stuck_every == p.stuck_every - 1:
        return STUCK_KINDS[(n // p.stuck_every) % len(STUCK_KINDS)](strategy, n, p)
    return KINDS[(n // 2) % len(KINDS)](strategy, n, p)


def play(process: PluginProcess, s: Session, n: int) -> str | None:
    """Play session ``s`` on ``process``; what went wrong, or None."""
    toolbox = ToolBox(s.tools)
    backend = ScriptedBackend(s.turns)
    scenario = Scenario(query=f"Summarize the records of case {n}.", strategy=s.strategy,
                        tools=[tool.name for tool in s.tools], params=s.params, model=ModelSettings(),
                        history=list(s.history))
    try:
        result = run_scenario(scenario, backend, toolbox, plugin=process, timeout=STUCK_RUN_TIMEOUT * 6)
    finally:
        backend.release()
        toolbox.release()
    return _problem(s, result)


def _problem(s: Session, result: RunResult) -> str | None:
    if result.unfinished_logs():
        return f"log left open: {[node.label for node in result.unfinished_logs()]}"
    if s.answer and not (result.ok and result.text.strip()):
        return f"no answer: {result.error_text}"
    if not result.ok and not (result.error and result.error.get("error_type") == "AgentRunError"):
        return f"unclear end: {result.error_text}"
    return None


def process_status(pid: int) -> dict[str, int]:
    """``VmRSS`` (kB), ``Threads`` and open file descriptors (``fds``) of process ``pid``."""
    values = {"rss_kb": memory_kb(pid)["VmRSS"]}
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("Threads:"):
                values["threads"] = int(line.split()[1])
    values["fds"] = len(os.listdir(f"/proc/{pid}/fd"))
    return values


def campaign(process: PluginProcess, p: Params, on_reading: Callable[[dict[str, Any]], None] | None = None
             ) -> dict[str, Any]:
    """Run ``p.runs`` sessions on ``process`` and read its status after every ``p.every`` (each
    reading: ``{"sessions", "rss_kb", "threads", "fds"}``, taken once no session runs).
    Returns ``{"readings", "problems", "growth"}``: the sessions that went wrong (number and
    what), and the last reading's RSS over the first's."""
    readings: list[dict[str, Any]] = []
    problems: list[tuple[int, str]] = []
    lock = threading.Lock()

    def one(n: int) -> None:
        try:
            problem = play(process, session(n, p), n)
        except Exception as exc:  # a runner failure is a problem of the campaign, reported
            problem = f"{type(exc).__name__}: {exc}"
        if problem:
            with lock:
                problems.append((n, problem))

    for start in range(0, p.runs, p.every):
        numbers = range(start, min(start + p.every, p.runs))
        stuck = [n for n in numbers if session(n, p).stuck]
        with ThreadPoolExecutor(p.concurrency) as pool, ThreadPoolExecutor(max(len(stuck), 1)) as beside:
            waiting = [beside.submit(one, n) for n in stuck]
            list(pool.map(one, [n for n in numbers if n not in stuck]))
            for future in waiting:
                future.result()
        process.transcript.clear()  # the runner's own record of every line: not the plugin's memory
        time.sleep(0.5)  # the plugin's last lines of the batch written, its greenlets ended
        reading = {"sessions": numbers.stop, **process_status(process.pid)}
        readings.append(reading)
        if on_reading is not None:
            on_reading(reading)
    first, last = readings[0]["rss_kb"], readings[-1]["rss_kb"]
    return {"readings": readings, "problems": problems, "growth": round(last / first, 3)}


def run(params: Params, plugin: Plugin) -> dict[str, Any]:
    """The campaign on a fresh process (``plugin``'s serves the other benchmarks: its memory says
    what they did); ``rows`` are its readings."""
    with PluginProcess(plugin.process.plugin_dir) as process:
        outcome = campaign(process, params)
    return {"params": asdict(params), "rows": outcome.pop("readings"), **outcome}


def table(result: dict[str, Any]) -> str:
    p = result["params"]
    rows = [f"| {r['sessions']} | {r['rss_kb'] / 1024:.1f} | {r['threads']} | {r['fds']} |" for r in result["rows"]]
    problems = result["problems"]
    return "\n".join([
        "| sessions | plugin RSS MB | threads | open files |",
        "|---:|---:|---:|---:|",
        *rows,
        f"\n**Growth {result['growth']}x** (last reading over the first). {p['runs']} sessions, "
        f"{p['concurrency']} at a time, tool results of {p['result_chars']:,} characters, one in "
        f"{p['stuck_every']} stuck (ended by its {STUCK_RUN_TIMEOUT} s run time limit); "
        f"{len(problems)} sessions went wrong" + (f": {problems[:3]}" if problems else "."),
    ])


if __name__ == "__main__":
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else FULL.runs
    with Plugin() as started:
        print(f"plugin pid {started.pid}: {process_status(started.pid)}", flush=True)
        began = time.monotonic()
        outcome = campaign(started.process, Params(runs=runs),
                           lambda r: print(f"{r} at {time.monotonic() - began:.0f} s", flush=True))
        print(table({"params": asdict(Params(runs=runs)), "rows": outcome.pop("readings"), **outcome}))
