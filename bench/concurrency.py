"""Concurrency: one session chewing megabytes of tool output must not starve another session
streaming on the same plugin process (the SDK serves every session of a process on gevent).

Session A (Function Calling) calls ``tools`` tools at once, each returning ``output_chars``
characters, then answers. While its results are being read, session B streams an answer of
``chunks`` chunks sent ``interval`` seconds apart. Measured on B, from the runner's transcript
(the time each text line was read from the plugin's stdout): the worst gap between two text
messages, against the same stream with no other session (goal: under 100 ms). Also: A's wall
time. Medians over ``runs``.
"""

from __future__ import annotations

import itertools
import threading
import time
from dataclasses import asdict, dataclass
from typing import Any

from bench.harness import Plugin, answer_turn, fc_tool_turn, make_toolbox, median, ms, timeline
from bench.streaming import PacedBackend
from local_runner import ScriptedBackend

NAME = "concurrency"
TITLE = "Concurrency (another session's worst gap between streamed chunks)"


@dataclass(frozen=True)
class Params:
    tools: int = 6
    output_chars: int = 1_000_000
    chunks: int = 150
    interval: float = 0.01
    """Seconds between two chunks of session B's stream."""
    runs: int = 3


FULL = Params()
SMOKE = Params(tools=2, output_chars=50_000, chunks=12, interval=0.002, runs=1)


def _worst_gap(result) -> float:
    texts = [t for t, text in timeline(result).texts if text]
    return max((b - a for a, b in itertools.pairwise(texts)), default=0.0)


def _stream(plugin: Plugin, params: Params) -> Any:
    backend = PacedBackend(ScriptedBackend([answer_turn("function_calling", params.chunks)]), params.interval)
    return plugin.run("function_calling", [], make_toolbox(1), backend=backend)


def run(params: Params, plugin: Plugin) -> dict[str, Any]:
    alone, loaded, heavy_walls = [], [], []
    for _ in range(params.runs):
        alone.append(_worst_gap(_stream(plugin, params)))
        toolbox = make_toolbox(params.tools, outputs=lambda i: f"record {i}; " * (params.output_chars // 10))
        calls = [(name, {"query": "all"}) for name in toolbox.names]
        turns = [fc_tool_turn(2, calls), answer_turn("function_calling", 4)]
        heavy: dict[str, Any] = {}

        def chew(toolbox=toolbox, turns=turns, heavy=heavy) -> None:
            started = time.monotonic()
            heavy["result"] = plugin.run("function_calling", turns, toolbox)
            heavy["wall"] = time.monotonic() - started

        thread = threading.Thread(target=chew)
        thread.start()
        time.sleep(0.05)  # A's tool results are arriving when B starts streaming
        loaded.append(_worst_gap(_stream(plugin, params)))
        thread.join()
        heavy_walls.append(heavy["wall"])
    return {
        "params": asdict(params),
        "rows": [{
            "worst_gap_alone_ms": ms(median(alone), 1),
            "worst_gap_loaded_ms": ms(median(loaded), 1),
            "heavy_session_s": round(median(heavy_walls), 2),
            "runs": params.runs,
        }],
    }


def table(result: dict[str, Any]) -> str:
    p = result["params"]
    r = result["rows"][0]
    return "\n".join([
        "| other session | worst gap between streamed chunks ms | heavy session wall s |",
        "|---|---:|---:|",
        f"| alone | {r['worst_gap_alone_ms']} | |",
        f"| while another session reads {p['tools']} x {p['output_chars']:,} characters of tool output | "
        f"**{r['worst_gap_loaded_ms']}** | {r['heavy_session_s']} |",
        f"\nStream of {p['chunks']} chunks {ms(p['interval'], 0)} ms apart; goal: under 100 ms.",
    ])
