"""Strategy overhead per round: wall time per round minus the scripted model and tool time, and
the plugin's CPU time per round, for both strategies, 1/10/50 tools, turns of 10/1,000 chunks.

A run is ``rounds`` tool rounds (one call each, to a different tool when there are several)
and a final answer, every model turn and every tool call taking a known ``latency``. A round
is timed by the runner, from the plugin's model request ``k`` to its model request ``k + 1``;
its overhead is that minus the model's and the tool's scripted latency: what is left is the
plugin's work (reading the chunks, parsing, logs, building the next prompt) plus the
daemon protocol (JSON lines both ways, the runner's own work). The plugin's CPU time is read
from /proc at each model request (see ``harness.CpuProbe``), so it is the plugin alone.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from bench.harness import (
    STRATEGIES,
    CpuProbe,
    Plugin,
    answer_turn,
    make_toolbox,
    median,
    ms,
    spread,
    timeline,
    tool_turn,
)

NAME = "overhead"
TITLE = "Strategy overhead per round"


@dataclass(frozen=True)
class Params:
    strategies: tuple[str, ...] = STRATEGIES
    tool_counts: tuple[int, ...] = (1, 10, 50)
    chunk_counts: tuple[int, ...] = (10, 1000)
    rounds: int = 10
    runs: int = 9
    latency: float = 0.01
    """Seconds every model turn waits before its first chunk and every tool call takes."""


FULL = Params()
SMOKE = Params(tool_counts=(1,), chunk_counts=(10,), rounds=2, runs=1)


def one_run(plugin: Plugin, strategy: str, tools: int, chunks: int, params: Params) -> dict[str, Any]:
    """One run; per-round numbers of its tool rounds (seconds)."""
    toolbox = make_toolbox(tools, latency=params.latency)
    turns = [
        tool_turn(strategy, chunks, f"tool_{r % tools:03d}", r, delay=params.latency)
        for r in range(1, params.rounds + 1)
    ]
    turns.append(answer_turn(strategy, chunks, delay=params.latency))
    probe = CpuProbe(plugin.pid)
    result = plugin.run(strategy, turns, toolbox, probe=probe)
    line = timeline(result)
    walls = line.round_walls()
    tool_rounds = walls[: params.rounds]
    cpu = probe.per_round(1, params.rounds + 1)
    return {
        "wall": median(tool_rounds),
        "overhead": median(w - 2 * params.latency for w in tool_rounds),
        "final_overhead": walls[-1] - params.latency,
        "setup": line.llm[0].invoked - line.request_sent if line.request_sent is not None else None,
        "plugin_cpu": cpu["plugin_thread_cpu"] if cpu["plugin_thread_cpu"] is not None else cpu["plugin_cpu"],
        "plugin_cpu_stat": cpu["plugin_cpu"],
        "runner_cpu": cpu["runner_cpu"],
        "rounds": cpu["rounds"],
    }


def run(params: Params, plugin: Plugin) -> dict[str, Any]:
    """Every configuration, ``params.runs`` runs each; medians over runs (ms)."""
    configs = [(s, t, c) for s in params.strategies for t in params.tool_counts for c in params.chunk_counts]
    results: dict[tuple[str, int, int], list[dict[str, Any]]] = {config: [] for config in configs}
    for _ in range(params.runs):  # interleaved, so that a noisy moment hits every configuration alike
        for config in configs:
            results[config].append(one_run(plugin, *config, params))
    rows = []
    for (strategy, tools, chunks), runs in results.items():
        stat_total = sum(r["plugin_cpu_stat"] * r["rounds"] for r in runs if r["plugin_cpu_stat"] is not None)
        rounds_total = sum(r["rounds"] for r in runs)
        low_high = spread(r["overhead"] for r in runs)
        rows.append(
            {
                "strategy": strategy,
                "tools": tools,
                "chunks": chunks,
                "wall_ms": ms(median(r["wall"] for r in runs)),
                "overhead_ms": ms(median(r["overhead"] for r in runs)),
                "overhead_range_ms": [ms(low_high[0]), ms(low_high[1])] if low_high else None,
                "final_round_overhead_ms": ms(median(r["final_overhead"] for r in runs)),
                "setup_ms": ms(median(r["setup"] for r in runs)),
                "plugin_cpu_ms": ms(median(r["plugin_cpu"] for r in runs), 2),
                "plugin_cpu_stat_pooled_ms": ms(stat_total / rounds_total, 2) if rounds_total else None,
                "runner_cpu_ms": ms(median(r["runner_cpu"] for r in runs), 2),
                "runs": len(runs),
                "rounds_per_run": params.rounds,
            }
        )
    return {"params": asdict(params), "rows": rows, "per_chunk": _per_chunk(rows)}


def _per_chunk(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Marginal cost of one streamed chunk (µs): the difference between the most and the fewest
    chunks per turn, per strategy and tool count."""
    out = []
    keyed = {(r["strategy"], r["tools"], r["chunks"]): r for r in rows}
    for (strategy, tools, chunks), row in keyed.items():
        fewest = min(c for (s, t, c) in keyed if (s, t) == (strategy, tools))
        if chunks == fewest:
            continue
        base = keyed[(strategy, tools, fewest)]
        extra = chunks - fewest
        out.append(
            {
                "strategy": strategy,
                "tools": tools,
                "overhead_us_per_chunk": _diff_us(row["overhead_ms"], base["overhead_ms"], extra),
                "plugin_cpu_us_per_chunk": _diff_us(row["plugin_cpu_ms"], base["plugin_cpu_ms"], extra),
                "runner_cpu_us_per_chunk": _diff_us(row["runner_cpu_ms"], base["runner_cpu_ms"], extra),
            }
        )
    return out


def _diff_us(high: float | None, low: float | None, count: int) -> float | None:
    if high is None or low is None or count <= 0:
        return None
    return round((high - low) * 1000 / count, 1)


def table(result: dict[str, Any]) -> str:
    """Markdown tables of the result."""
    lines = [
        "| strategy | tools | chunks/turn | wall/round ms | **overhead/round ms** (min–max of runs) | "
        "plugin CPU/round ms (schedstat · /proc/stat) | runner CPU/round ms | final round overhead ms | run setup ms |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in result["rows"]:
        low, high = r["overhead_range_ms"] or (None, None)
        lines.append(
            f"| {r['strategy']} | {r['tools']} | {r['chunks']} | {r['wall_ms']} | **{r['overhead_ms']}** "
            f"({low}–{high}) | {r['plugin_cpu_ms']} · {r['plugin_cpu_stat_pooled_ms']} | {r['runner_cpu_ms']} | {r['final_round_overhead_ms']} | "
            f"{r['setup_ms']} |"
        )
    if result.get("per_chunk"):
        lines += [
            "",
            "| strategy | tools | overhead µs/chunk | plugin CPU µs/chunk | runner CPU µs/chunk |",
            "|---|---:|---:|---:|---:|",
        ]
        for r in result["per_chunk"]:
            lines.append(
                f"| {r['strategy']} | {r['tools']} | {r['overhead_us_per_chunk']} | "
                f"{r['plugin_cpu_us_per_chunk']} | {r['runner_cpu_us_per_chunk']} |"
            )
    return "\n".join(lines)
