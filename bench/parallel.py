"""Parallel tool calls: the wall time of a round's tool phase divided by its slowest call, for
1, 2, 4, 8 (and 16) calls of ``latency`` seconds each (Function Calling: one turn with all
the calls, then the answer). The plugin runs calls concurrently in gevent greenlets, at most
8 at once, so the ratio should stay near 1 up to 8 calls and double at 16. Target: under 1.3
for 4 calls.

Tool phase = from the runner writing the ``end`` of the model's tool-calling turn to the
plugin's next model request: it includes reading the turn's end, starting the calls, every
call, collecting the results, their log entries and building the next prompt. Also reported:
the narrower span from the first tool request to the last tool result written. Slowest call =
the longest runner-side call (request read -> ``end`` written), about ``latency``. First CALL
node: when the first call's log entry was read, as a share of the tool phase: near 0 when the
calls' entries stream as they run (with more calls than run at once, they were all held back
until the last call had started: about 0.5 at 16 calls).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from bench.harness import Plugin, answer_turn, fc_tool_turn, make_toolbox, median, ms, spread, timeline

NAME = "parallel"
TITLE = "Parallel tool calls (tool phase / slowest call)"


@dataclass(frozen=True)
class Params:
    call_counts: tuple[int, ...] = (1, 2, 4, 8, 16)
    latency: float = 0.5
    runs: int = 5


FULL = Params()
SMOKE = Params(call_counts=(1, 2), latency=0.05, runs=1)


def one_run(plugin: Plugin, calls: int, params: Params) -> dict[str, float]:
    toolbox = make_toolbox(calls, latency=params.latency)
    batch = [(f"tool_{n:03d}", {"query": f"part {n}", "limit": 5}) for n in range(calls)]
    turns = [fc_tool_turn(10, batch), answer_turn("function_calling", 10)]
    result = plugin.run("function_calling", turns, toolbox)
    line = timeline(result)
    first, second = line.llm[0], line.llm[1]
    tools = line.tools_of_round(0)
    if len(tools) != calls or first.end is None or any(t.end is None for t in tools):
        raise RuntimeError(f"expected {calls} finished tool calls, got {len(tools)}")
    slowest = max(t.end - t.invoked for t in tools)  # type: ignore[operator]
    phase = second.invoked - first.end
    span = max(t.end for t in tools) - min(t.invoked for t in tools)  # type: ignore[type-var]
    starts = [t.invoked for t in tools]
    first_node = min(at for at, label, _ in line.logs if label.startswith("CALL") and at >= first.end)
    return {
        "first_node_share": (first_node - first.end) / phase,
        "phase": phase,
        "span": span,
        "slowest": slowest,
        "ratio": phase / slowest,
        "span_ratio": span / slowest,
        "start_spread": max(starts) - min(starts),
    }


def run(params: Params, plugin: Plugin) -> dict[str, Any]:
    rows = []
    results: dict[int, list[dict[str, float]]] = {n: [] for n in params.call_counts}
    for _ in range(params.runs):  # interleaved, so that a noisy moment hits every count alike
        for calls in params.call_counts:
            results[calls].append(one_run(plugin, calls, params))
    for calls, runs in results.items():
        low_high = spread(r["ratio"] for r in runs)
        rows.append(
            {
                "calls": calls,
                "phase_ms": ms(median(r["phase"] for r in runs)),
                "span_ms": ms(median(r["span"] for r in runs)),
                "slowest_ms": ms(median(r["slowest"] for r in runs)),
                "ratio": round(median(r["ratio"] for r in runs), 3),
                "ratio_range": [round(low_high[0], 3), round(low_high[1], 3)] if low_high else None,
                "span_ratio": round(median(r["span_ratio"] for r in runs), 3),
                "start_spread_ms": ms(median(r["start_spread"] for r in runs), 2),
                "first_node_share": round(median(r["first_node_share"] for r in runs), 3),
                "runs": len(runs),
            }
        )
    return {"params": asdict(params), "rows": rows}


def table(result: dict[str, Any]) -> str:
    latency = ms(result["params"]["latency"], 0)
    lines = [
        "| calls | tool phase ms | slowest call ms | **phase / slowest** (min–max) | first request → last result ms "
        "| span / slowest | spread of call starts ms | first CALL node at (share of the phase) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in result["rows"]:
        low, high = r["ratio_range"] or (None, None)
        lines.append(
            f"| {r['calls']} | {r['phase_ms']} | {r['slowest_ms']} | **{r['ratio']}** ({low}–{high}) | "
            f"{r['span_ms']} | {r['span_ratio']} | {r['start_spread_ms']} | {r.get('first_node_share', '')} |"
        )
    lines.append(
        f"\nEvery call takes {latency} ms; Function Calling, all calls in one model turn; target: 4 calls < 1.3."
    )
    return "\n".join(lines)
