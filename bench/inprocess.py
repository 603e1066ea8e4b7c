"""``python -m bench.inprocess [BASELINE_DIR]``: the strategy's own CPU per round, with the
daemon's answers taken from memory.

Through the real plugin process (``bench.overhead``, ``bench.compare``) a round's cost is the
strategy's work plus the SDK's per-line reading, writing and waiting. This benchmark takes the
pipe and the waiting away, to show the strategy's share on its own:

1. one scripted run (``bench.overhead``'s turns: one tool call per round, an answer) is played
   through this project's plugin process and the runner's transcript is kept: the request line
   and every backwards response, grouped by call;
2. a child process per plugin folder imports that folder's ``main`` (the plugin exactly as the
   daemon starts it, with its SDK changes), replaces the SDK's backwards call with one that
   answers the n-th call with the n-th recorded group (the request is still built and
   serialized), and runs ``Plugin._execute_request`` ``reps`` times, every line written to a
   sink that only counts it;
3. printed per configuration: the fastest run's thread CPU per round (ms) of each folder, and
   this folder's over the baseline's. The folders' runs alternate, ``times`` times.

Replays of one run find what the plugin's caches kept from the run before (the token counts of
``agent_core.budget`` and ``agent_core.tokens`` outlive a run), which a real run does not: with
``--cold`` those caches are emptied before each replay, and the CPU of single rounds is printed
too (``--at``: rounds 10, 20, 40 by default; a round's time runs from its model call to the
next, so it holds the next request's build and measuring; the fastest replay of each round).

A baseline must make the same backwards calls in the same order (model, tool, model, ...): an
older checkout of this project, or a stripped-down strategy that shows the SDK's floor.

With ``--calls`` nothing is timed: after one warm-up replay, one replay runs under
``sys.setprofile`` and the calls it makes are counted and divided by the run's model turns
(``rounds`` + 1): Python-level calls (``call`` events, a generator's resumptions included) and
all calls (``call`` and ``c_call``), and the functions with the most Python calls (``--top``).
The counts do not depend on the machine's load, so they can be compared between checkouts
(and between days) where CPU time cannot.

    .venv/bin/python -m bench.inprocess ../before --chunks 1,10,1000
    .venv/bin/python -m bench.inprocess ../before --calls --chunks 1,10
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from bench.harness import STRATEGIES, Plugin, answer_turn, make_toolbox, tool_turn


@dataclass(frozen=True)
class Params:
    strategies: tuple[str, ...] = STRATEGIES
    chunk_counts: tuple[int, ...] = (1, 10, 1000)
    rounds: int = 40
    reps: int = 15
    """Runs in one child process (the fastest counts; the first warms up and is not timed)."""
    times: int = 2
    """Child processes per folder, alternating with the other folder's."""
    cold: bool = False
    """Empty the token-count caches before each replay (what a real run, not a replay, meets)."""
    at: tuple[int, ...] = (10, 20, 40)
    """Rounds whose own CPU is printed (µs)."""


SMOKE = Params(chunk_counts=(2,), rounds=2, reps=1, times=1)


def capture(plugin: Plugin, strategy: str, chunks: int, rounds: int) -> dict[str, Any]:
    """One scripted run's request line and backwards responses (``{"request", "groups"}``)."""
    toolbox = make_toolbox(1)
    turns = [tool_turn(strategy, chunks, "tool_000", r) for r in range(1, rounds + 1)]
    turns.append(answer_turn(strategy, chunks))
    result = plugin.run(strategy, turns, toolbox)
    sent = [entry["json"] for entry in result.transcript if entry["dir"] == "to_plugin" and "json" in entry]
    request = next(line for line in sent if line.get("event") == "request")
    groups: dict[str, list[dict[str, Any]]] = collections.OrderedDict()
    for line in sent:
        if line.get("event") == "backwards_response":
            data = line["data"]
            groups.setdefault(data["backwards_request_id"], []).append(data)
    return {"request": request, "groups": list(groups.values()), "rounds": rounds + 1}


_CHILD = r"""
import json, os, sys, time
capture_path, plugin_dir, reps, cold = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "cold"
top = int(sys.argv[5]) if len(sys.argv) > 5 else None
os.chdir(plugin_dir)
sys.path.insert(0, plugin_dir)
os.environ["INSTALL_METHOD"] = "local"
captured = json.load(open(capture_path))
import importlib
from dify_plugin.core.runtime import BackwardsInvocation
from dify_plugin.core.server.__base.response_writer import ResponseWriter
plugin = importlib.import_module("main").plugin
state = {"call": 0, "models": []}

def answer(self, type, data_type, data):
    if type.value.startswith("llm"):
        state["models"].append(time.thread_time())
    self.session.writer.session_message(
        session_id=self.session.session_id,
        data=self.session.writer.stream_invoke_object(
            data={"type": type.value, "backwards_request_id": "0" * 32, "request": data}),
    )
    group = captured["groups"][state["call"]]
    state["call"] += 1
    return (data_type(**item["data"]) for item in group if item["event"] != "end")

BackwardsInvocation._backwards_invoke = answer

class Sink(ResponseWriter):
    lines = 0
    errors = 0
    def write(self, data):
        self.lines += 1
        self.errors += '"type":"error"' in data
    def done(self):
        pass

def empty_caches():
    # the token-count caches a real run starts without (every lru_cache of the two modules)
    for name in ("agent_core.budget", "agent_core.tokens"):
        for value in vars(sys.modules[name]).values():
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()

request = captured["request"]
def once():
    state["call"] = 0
    state["models"] = []
    if cold:
        empty_caches()
    sink = Sink()
    started = time.thread_time()
    plugin._execute_request(request["session_id"], request["data"], None, sink, request.get("conversation_id"),
                            request.get("message_id"), request.get("app_id"), request.get("endpoint_id"),
                            request.get("context"))
    if sink.errors or state["call"] != len(captured["groups"]):
        raise SystemExit(f"the run did not go as recorded ({state['call']} calls, {sink.errors} errors)")
    marks = state["models"]
    return time.thread_time() - started, sink.lines, [b - a for a, b in zip(marks, marks[1:])]

once()  # warm-up: imports, caches
if top is not None:  # --calls: one replay counted, not timed
    import collections
    counts = {"call": 0, "c_call": 0}
    where = collections.Counter()
    def profile(frame, event, arg):
        if event == "call":
            counts["call"] += 1
            code = frame.f_code
            where[(code.co_filename, code.co_firstlineno, code.co_qualname)] += 1
        elif event == "c_call":
            counts["c_call"] += 1
    sys.setprofile(profile)
    once()
    sys.setprofile(None)
    base = os.path.abspath(plugin_dir) + os.sep
    named = [[f"{name.removeprefix(base)}:{line} {qualname}", n] for (name, line, qualname), n in where.most_common(top)]
    print(json.dumps({"calls": counts["call"], "all_calls": counts["call"] + counts["c_call"], "top": named}))
    raise SystemExit(0)
runs = [once() for _ in range(reps)]
rounds = [min(run[2][i] for run in runs) for i in range(len(runs[0][2]))]
print(json.dumps({"seconds": [run[0] for run in runs], "lines": runs[0][1], "round_seconds": rounds}))
"""


def measure(capture_path: Path, plugin_dir: Path, reps: int, cold: bool = False, top: int | None = None) -> dict[str, Any]:
    """Run the child in a process of its own; its JSON result (``seconds`` per run, ``lines``,
    ``round_seconds``: each round's fastest CPU over the runs, from its model call to the next);
    ``cold``: the token-count caches emptied before each run. With ``top`` (``--calls``) one warm
    replay is counted instead: ``calls`` (Python calls), ``all_calls`` (with C calls) and ``top``
    (``[function, calls]``, the ``top`` functions with the most Python calls)."""
    env = {**os.environ, "PYTHONPATH": ""}
    extra = [] if top is None else [str(top)]
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(capture_path), str(plugin_dir), str(reps), "cold" if cold else "warm", *extra],
        capture_output=True, text=True, env=env, timeout=1800, check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith(('{"seconds"', '{"calls"'))]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"in-process run in {plugin_dir} failed:\n{done.stderr[-3000:]}")
    return json.loads(lines[-1])


def _captures(params: Params, scratch: Path) -> dict[tuple[str, int], tuple[Path, int]]:
    """Per (strategy, chunks): the recorded run's file and its model turns."""
    captures = {}
    with Plugin() as plugin:
        for strategy in params.strategies:
            for chunks in params.chunk_counts:
                path = scratch / f"{strategy}-{chunks}.json"
                captured = capture(plugin, strategy, chunks, params.rounds)
                path.write_text(json.dumps(captured), encoding="utf-8")
                captures[(strategy, chunks)] = (path, captured["rounds"])
    return captures


def count_calls(params: Params, dirs: dict[str, Path], top: int = 25) -> dict[str, Any]:
    """Per configuration and folder: calls per model turn of one warm replay (``calls``: Python
    calls, ``all_calls``: with C calls) and the ``top`` functions by Python calls per turn."""
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for (strategy, chunks), (path, rounds) in _captures(params, Path(scratch)).items():
            row: dict[str, Any] = {"strategy": strategy, "chunks": chunks, "rounds": rounds}
            for label, folder in dirs.items():
                counted = measure(path, folder, 1, params.cold, top)
                row[label] = {"calls_per_round": round(counted["calls"] / rounds, 1),
                              "all_calls_per_round": round(counted["all_calls"] / rounds, 1),
                              "top": [[name, round(n / rounds, 1)] for name, n in counted["top"]]}
            rows.append(row)
    return {"params": asdict(params), "dirs": {label: str(folder) for label, folder in dirs.items()}, "rows": rows}


def calls_table(result: dict[str, Any]) -> str:
    """Markdown: Python calls and all calls per round of each folder."""
    labels = list(result["dirs"])
    head = " | ".join(f"{label} Python calls | {label} all calls" for label in labels)
    lines = [f"| strategy | chunks/turn | {head} |", "|---|---:|" + "---:|" * (2 * len(labels))]
    for row in result["rows"]:
        values = " | ".join(f"{row[label]['calls_per_round']:,} | {row[label]['all_calls_per_round']:,}" for label in labels)
        lines.append(f"| {row['strategy']} | {row['chunks']} | {values} |")
    return "\n".join(lines)


def run(params: Params, dirs: dict[str, Path]) -> dict[str, Any]:
    """Per configuration and folder: the fastest run's CPU per round (ms) and lines written."""
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        captures = _captures(params, Path(scratch))
        for (strategy, chunks), (path, rounds) in captures.items():  # the plugin process is closed by now
            best: dict[str, list[float]] = {label: [] for label in dirs}
            lines: dict[str, int] = {}
            single: dict[str, list[float]] = {}
            for _ in range(params.times):
                for label, folder in dirs.items():
                    measured = measure(path, folder, params.reps, params.cold)
                    best[label].append(min(measured["seconds"]))
                    lines[label] = measured["lines"]
                    got = measured["round_seconds"]
                    single[label] = [min(pair) for pair in zip(single.get(label, got), got, strict=True)]
            row: dict[str, Any] = {"strategy": strategy, "chunks": chunks, "rounds": rounds}
            for label in dirs:
                row[label] = {"cpu_ms_per_round": round(1000 * min(best[label]) / rounds, 3),
                              "median_ms_per_round": round(1000 * statistics.median(best[label]) / rounds, 3),
                              "lines": lines[label],
                              "round_us": {n: round(1e6 * single[label][n - 1], 1)
                                           for n in params.at if n <= len(single[label])}}
            rows.append(row)
    return {"params": asdict(params), "dirs": {label: str(folder) for label, folder in dirs.items()}, "rows": rows}


def table(result: dict[str, Any]) -> str:
    """Markdown: CPU per round of each folder, and the first folder's over the second's."""
    labels = list(result["dirs"])
    head = " | ".join(f"{label} ms/round" for label in labels)
    at = " | ".join(f"{label} µs at round {n}" for label in labels for n in result["params"]["at"])
    lines = [f"| strategy | chunks/turn | {head} | ratio | {at} |",
             "|---|---:|" + "---:|" * (len(labels) + 1 + len(labels) * len(result["params"]["at"]))]
    for row in result["rows"]:
        values = [row[label]["cpu_ms_per_round"] for label in labels]
        ratio = f"**{values[0] / values[1]:.2f}**" if len(values) > 1 and values[1] else ""
        rounds = [str(row[label]["round_us"].get(n, "")) for label in labels for n in result["params"]["at"]]
        lines.append(f"| {row['strategy']} | {row['chunks']} | " + " | ".join(str(v) for v in values)
                     + f" | {ratio} | " + " | ".join(rounds) + " |")
    return "\n".join(lines)


def _numbers(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(",") if part.strip())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.inprocess", description=__doc__.split("\n")[0])
    parser.add_argument("baseline", type=Path, nargs="?", help="another plugin folder to compare with")
    parser.add_argument("--plugin-dir", type=Path, default=Plugin.default_dir, help="this plugin's folder (default: .)")
    parser.add_argument("--strategies", default=",".join(STRATEGIES))
    parser.add_argument("--chunks", type=_numbers, default=Params.chunk_counts, help="chunks per model turn, e.g. 1,10")
    parser.add_argument("--rounds", type=int, default=Params.rounds)
    parser.add_argument("--reps", type=int, default=Params.reps)
    parser.add_argument("--times", type=int, default=Params.times)
    parser.add_argument("--cold", action="store_true", help="empty the token-count caches before each replay")
    parser.add_argument("--at", type=_numbers, default=Params.at, help="rounds whose own CPU is printed, e.g. 10,20,40")
    parser.add_argument("--smoke", action="store_true", help="minimal sizes, to check that it works")
    parser.add_argument("--calls", action="store_true",
                        help="count the calls of one warm replay per round (sys.setprofile) instead of timing")
    parser.add_argument("--top", type=int, default=0, help="with --calls: print the N functions with the most calls")
    args = parser.parse_args(argv)
    params = Params(tuple(args.strategies.split(",")), args.chunks, args.rounds, args.reps, args.times, args.cold, args.at)
    if args.smoke:
        params = replace(SMOKE, strategies=params.strategies, cold=params.cold, at=(1,))
    dirs = {"this": args.plugin_dir.resolve()}
    if args.baseline is not None:
        dirs["baseline"] = args.baseline.resolve()
    if args.calls:
        counted = count_calls(params, dirs, max(args.top, 1))
        print(json.dumps(counted["params"]))
        print(calls_table(counted))
        for row in counted["rows"] if args.top else ():
            for label in dirs:
                print(f"\n{label}, {row['strategy']}, {row['chunks']} chunks/turn: Python calls per round")
                print("\n".join(f"{n:8.1f}  {name}" for name, n in row[label]["top"][: args.top]))
        return 0
    result = run(params, dirs)
    print(json.dumps(result["params"]))
    print(table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
