"""Scale: one long run, 50 rounds with 100 tools offered and 1 MiB of tool output in total.

Each of the 50 tool rounds calls a different tool that returns ``total_output // rounds``
characters (about 20 KiB) of JSON records (about 7,000 tokens: the plugin cuts each to its
4,000-token observation budget); the model's turns have 10 chunks and take no
time, tools take no time, so a round's wall time is the plugin's and the protocol's work.
Each run uses a fresh plugin process so that its peak resident memory (``VmHWM`` in
/proc/<pid>/status) belongs to that run. Reported: time and plugin CPU per round at round 1,
10, 25 and 50 (medians over runs), a straight-line fit of time per round against the round
number, the prompt size the plugin sent (its own token estimate) and when it trimmed the
context (``CONTEXT TRIMMED`` log entries), and memory.
"""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass
from typing import Any

from bench.harness import (
    STRATEGIES,
    CpuProbe,
    Plugin,
    answer_turn,
    json_records,
    make_toolbox,
    median,
    memory_kb,
    ms,
    request_tokens,
    timeline,
    tool_turn,
)

NAME = "scale"
TITLE = "Scale: 50 rounds, 100 tools, 1 MiB of tool output"


@dataclass(frozen=True)
class Params:
    strategies: tuple[str, ...] = STRATEGIES
    rounds: int = 50
    tools: int = 100
    total_output: int = 1 << 20
    """Characters of tool output over the whole run."""
    chunks: int = 10
    runs: int = 3


FULL = Params()
SMOKE = Params(rounds=3, tools=5, total_output=6000, runs=1)


def one_run(strategy: str, params: Params) -> dict[str, Any]:
    per_call = params.total_output // params.rounds
    toolbox = make_toolbox(params.tools, outputs=lambda i: json_records(per_call, seed=i))
    # a different tool every round, spread over the whole list
    names = [f"tool_{(r * 7) % params.tools:03d}" for r in range(params.rounds)]
    turns = [tool_turn(strategy, params.chunks, name, r) for r, name in enumerate(names, start=1)]
    turns.append(answer_turn(strategy, params.chunks))
    with Plugin() as plugin:
        before = memory_kb(plugin.pid)
        probe = CpuProbe(plugin.pid)
        result = plugin.run(strategy, turns, toolbox, probe=probe, timeout=600)
        after = memory_kb(plugin.pid)
    walls = timeline(result).round_walls()
    cpu = probe.round_deltas()
    trimmed = sorted(
        int(result.logs[node.parent_id].label.split()[-1])
        for node in result.logs.values()
        if node.label == "CONTEXT TRIMMED"
        and node.parent_id in result.logs
        and result.logs[node.parent_id].label.startswith("ROUND")
    )
    return {
        "walls": walls[: params.rounds],
        "cpu": cpu[: params.rounds],
        "tokens": [request_tokens(r)["total"] for r in result.llm_requests],
        "trimmed_rounds": trimmed,
        "hwm_start_kb": before["VmHWM"],
        "hwm_end_kb": after["VmHWM"],
        "rss_end_kb": after["VmRSS"],
        "output_chars": per_call * params.rounds,
        "duration": result.duration,
    }


def _fit(values: list[float]) -> tuple[float, float]:
    """Least-squares line through (round number, value): (intercept, slope)."""
    xs = list(range(1, len(values) + 1))
    slope, intercept = statistics.linear_regression(xs, values)
    return intercept, slope


def _phases(walls: list[float], tokens: list[int], trimmed_from: int | None) -> dict[str, Any]:
    """Slopes (per round) of time and prompt tokens before the context is full and after
    trimming started (the round where it starts is left out of both)."""

    def slope(values: list[float], first: int, last: int) -> float | None:
        if last - first < 2:
            return None
        return statistics.linear_regression(range(first, last + 1), values[first - 1 : last]).slope

    end = len(walls)
    cut = trimmed_from or end + 1
    before_time, after_time = slope(walls, 1, min(end, cut - 1)), slope(walls, cut + 1, end)
    before_tokens = slope([float(t) for t in tokens], 1, min(end, cut - 1))
    after_tokens = slope([float(t) for t in tokens], cut + 1, end)
    return {
        "slope_before_trim_ms_per_round": ms(before_time, 3),
        "slope_after_trim_ms_per_round": ms(after_time, 3),
        "token_slope_before_trim_per_round": None if before_tokens is None else round(before_tokens),
        "token_slope_after_trim_per_round": None if after_tokens is None else round(after_tokens),
    }


def _window(values: list[float], center: int, half: int = 2) -> float:
    """Median of the values of rounds ``center - half .. center + half`` (1-based, clipped)."""
    low, high = max(1, center - half), min(len(values), center + half)
    return statistics.median(values[low - 1 : high])


def run(params: Params, plugin: Plugin | None = None) -> dict[str, Any]:
    """``plugin`` is ignored: every run starts its own process."""
    rows = []
    for strategy in params.strategies:
        runs = [one_run(strategy, params) for _ in range(params.runs)]
        count = min(len(r["walls"]) for r in runs)
        walls = [statistics.median(r["walls"][k] for r in runs) for k in range(count)]
        cpu = [statistics.median(r["cpu"][k] for r in runs) for k in range(min(len(r["cpu"]) for r in runs))]
        picks = sorted({1, 10, params.rounds // 2, params.rounds} & set(range(1, count + 1)))
        intercept, slope = _fit(walls) if count >= 2 else (walls[0] if walls else 0.0, 0.0)
        trimmed = runs[0]["trimmed_rounds"]
        phases = _phases(walls, runs[0]["tokens"], trimmed[0] if trimmed else None)
        half = count // 2
        first_half = (walls[half - 1] - walls[0]) if half >= 2 else None
        second_half = (walls[-1] - walls[half - 1]) if half >= 2 else None
        tokens = runs[0]["tokens"]
        rows.append(
            {
                "strategy": strategy,
                "wall_ms_at": {k: ms(walls[k - 1], 2) for k in picks},
                "wall_ms_window_at": {k: ms(_window(walls, k), 2) for k in picks},
                "cpu_ms_at": {k: ms(cpu[k - 1], 2) for k in picks if k <= len(cpu)},
                "cpu_ms_window_at": {k: ms(_window(cpu, k), 2) for k in picks if k <= len(cpu)},
                "wall_ms_per_round": [ms(w, 2) for w in walls],
                "cpu_ms_per_round": [ms(c, 2) for c in cpu],
                "fit_intercept_ms": ms(intercept, 2),
                "fit_slope_ms_per_round": ms(slope, 3),
                **phases,
                "ratio_last_first_window": round(_window(walls, count) / _window(walls, 1), 2) if walls else None,
                "increment_first_half_ms": ms(first_half, 2),
                "increment_second_half_ms": ms(second_half, 2),
                "tokens_at": {k: tokens[k - 1] for k in picks},
                "trimmed_rounds": trimmed,
                "hwm_start_mb": round(median(r["hwm_start_kb"] for r in runs) / 1024, 1),
                "hwm_end_mb": round(median(r["hwm_end_kb"] for r in runs) / 1024, 1),
                "rss_end_mb": round(median(r["rss_end_kb"] for r in runs) / 1024, 1),
                "run_s": round(median(r["duration"] for r in runs), 2),
                "output_chars": runs[0]["output_chars"],
                "runs": len(runs),
            }
        )
    return {"params": asdict(params), "rows": rows}


def table(result: dict[str, Any]) -> str:
    rows = result["rows"]
    picks = list(rows[0]["wall_ms_at"]) if rows else []
    at = " / ".join(f"r{k}" for k in picks)
    lines = [
        f"| strategy | wall ms/round at {at} | plugin CPU ms/round at {at} | prompt tokens at {at} | "
        "trimming from round | slope ms/round before → after trimming | prompt tokens/round before → after | "
        "peak RSS MB (start → end) |",
        "|---|" + "---:|" * 7,
    ]
    for r in rows:
        wall = " / ".join(str(r["wall_ms_window_at"][k]) for k in picks)
        cpu = " / ".join(str(r["cpu_ms_window_at"].get(k)) for k in picks)
        tokens = " / ".join(str(r["tokens_at"][k]) for k in picks)
        trimmed = r["trimmed_rounds"][0] if r["trimmed_rounds"] else "never"
        lines.append(
            f"| {r['strategy']} | {wall} | {cpu} | {tokens} | {trimmed} | "
            f"{_show(r['slope_before_trim_ms_per_round'])} → **{_show(r['slope_after_trim_ms_per_round'])}** | "
            f"{_show(r['token_slope_before_trim_per_round'])} → {_show(r['token_slope_after_trim_per_round'])} | "
            f"{r['hwm_start_mb']} → **{r['hwm_end_mb']}** |"
        )
    lines.append(
        "\nPer-round times: medians over runs, each the median of the 5 rounds around it (the raw "
        "per-round series is in results.json). Peak RSS = VmHWM of the plugin process."
    )
    return "\n".join(lines)


def _show(value: Any) -> str:
    return "–" if value is None else str(value)
