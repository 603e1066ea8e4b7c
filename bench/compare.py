"""``python -m bench.compare BASELINE_DIR``: this plugin's cost per round against another
plugin's, run side by side on the same machine.

Both plugins are started once and play the same scripted runs of ``bench.overhead`` (one tool
call per round, every model turn and tool call answered after ``latency`` seconds), in turns:
one run of every configuration on this plugin, then on the baseline, ``reps`` times, so that a
noisy moment of the machine hits both alike. Printed per configuration: the median plugin CPU
per round (ms, schedstat) and overhead per round (ms of wall time beyond the scripted
latencies) of each, and this plugin's over the baseline's.

The baseline can be an older checkout of this project (before/after a change) or another
agent-strategy plugin that names its strategies ``function_calling`` and ``ReAct`` and reads
``query``, ``instruction``, ``model``, ``tools`` and ``maximum_iterations``, as Dify's official
``cot_agent`` plugin does (how to set it up: bench/README.md).

    .venv/bin/python -m bench.compare ../before --chunks 1,10 --rounds 40
    .venv/bin/python -m bench.compare ../cot_agent --completion-params '{}'

``--completion-params`` replaces the model's completion parameters in every run (default: the
runner's ``{"temperature": 0.2, "max_tokens": 1024}``). With ``max_tokens`` set, the official
strategies count the prompt's tokens with tiktoken's GPT-2 encoding each round, which tiktoken
downloads on first use: offline, pass ``'{}'`` (they then skip the count; this plugin does its
own count either way).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from bench import overhead
from bench.harness import STRATEGIES, Plugin
from local_runner import ModelSettings


@dataclass(frozen=True)
class Params:
    strategies: tuple[str, ...] = STRATEGIES
    tool_counts: tuple[int, ...] = (1,)
    chunk_counts: tuple[int, ...] = (1, 10, 1000)
    rounds: int = 40
    latency: float = 0.0
    """Seconds every model turn and tool call waits (0: an instant model and tools)."""
    reps: int = 5


SMOKE = Params(chunk_counts=(2,), rounds=2, reps=1)


def run(params: Params, plugins: dict[str, Plugin]) -> dict[str, Any]:
    """Interleaved runs on each of ``plugins`` (label -> started plugin); per configuration
    and label the median plugin CPU and overhead per round (ms) over ``params.reps`` runs."""
    one_each = overhead.Params(
        strategies=params.strategies,
        tool_counts=params.tool_counts,
        chunk_counts=params.chunk_counts,
        rounds=params.rounds,
        runs=1,
        latency=params.latency,
    )
    samples: dict[tuple[str, int, int], dict[str, list[tuple[float, float]]]] = {}
    for _ in range(params.reps):
        for label, plugin in plugins.items():
            for row in overhead.run(one_each, plugin)["rows"]:
                key = (row["strategy"], row["tools"], row["chunks"])
                samples.setdefault(key, {}).setdefault(label, []).append((row["plugin_cpu_ms"], row["overhead_ms"]))
    rows = []
    for (strategy, tools, chunks), by_label in samples.items():
        row: dict[str, Any] = {"strategy": strategy, "tools": tools, "chunks": chunks}
        for label, values in by_label.items():
            row[label] = {
                "plugin_cpu_ms": round(statistics.median(cpu for cpu, _ in values), 2),
                "overhead_ms": round(statistics.median(wall for _, wall in values), 2),
            }
        rows.append(row)
    return {"params": asdict(params), "labels": list(plugins), "rows": rows}


def _ratio(ours: float, theirs: float) -> str:
    return f"{ours / theirs:.2f}" if theirs > 0 else "n/a"


def table(result: dict[str, Any]) -> str:
    """Markdown: per configuration, each plugin's numbers and the first over the second."""
    first, second = result["labels"][:2]
    lines = [
        f"| strategy | tools | chunks/turn | CPU/round ms {first} | {second} | ratio | "
        f"overhead/round ms {first} | {second} | ratio |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in result["rows"]:
        a, b = row[first], row[second]
        lines.append(
            f"| {row['strategy']} | {row['tools']} | {row['chunks']} | {a['plugin_cpu_ms']} | {b['plugin_cpu_ms']} | "
            f"**{_ratio(a['plugin_cpu_ms'], b['plugin_cpu_ms'])}** | {a['overhead_ms']} | {b['overhead_ms']} | "
            f"{_ratio(a['overhead_ms'], b['overhead_ms'])} |"
        )
    return "\n".join(lines)


def _numbers(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(",") if part.strip())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.compare", description=__doc__.split("\n")[0])
    parser.add_argument("baseline", type=Path, help="the other plugin's folder")
    parser.add_argument("--plugin-dir", type=Path, default=Plugin.default_dir, help="this plugin's folder (default: .)")
    parser.add_argument("--strategies", default=",".join(STRATEGIES))
    parser.add_argument("--chunks", type=_numbers, default=Params.chunk_counts, help="chunks per model turn, e.g. 1,10")
    parser.add_argument("--tools", type=_numbers, default=Params.tool_counts, help="tools offered, e.g. 1,10")
    parser.add_argument("--rounds", type=int, default=Params.rounds)
    parser.add_argument("--latency", type=float, default=Params.latency, help="seconds per model turn and tool call")
    parser.add_argument("--reps", type=int, default=Params.reps)
    parser.add_argument("--completion-params", type=json.loads, default=None, help="JSON object, e.g. '{}'")
    parser.add_argument("--smoke", action="store_true", help="minimal sizes, to check that it works")
    args = parser.parse_args(argv)
    params = Params(
        strategies=tuple(args.strategies.split(",")),
        tool_counts=args.tools,
        chunk_counts=args.chunks,
        rounds=args.rounds,
        latency=args.latency,
        reps=args.reps,
    )
    if args.smoke:
        params = replace(SMOKE, strategies=params.strategies)
    model = ModelSettings() if args.completion_params is None else ModelSettings(completion_params=args.completion_params)
    dirs = {"this": args.plugin_dir.resolve(), "baseline": args.baseline.resolve()}
    with contextlib.ExitStack() as stack:
        plugins = {label: stack.enter_context(Plugin(folder, model=model)) for label, folder in dirs.items()}
        result = run(params, plugins)
    print(f"this: {dirs['this']}\nbaseline: {dirs['baseline']}\n{json.dumps(asdict(params))}\n")
    print(table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
