"""Streaming latency: from the model's first answer chunk leaving the runner to the plugin's
first text message, for both strategies.

The model answers directly (round 1, one tool offered), in ``chunks`` chunks of about four
characters sent ``interval`` seconds apart (a ``PacedBackend`` around the ``ScriptedBackend``;
real providers stream tokens tens of milliseconds apart). ReAct's answer comes after
``Thought: ...`` and ``Final Answer:``; the "first answer chunk" is the chunk that carries the
first character after that label (for Function Calling: the first chunk with text). Times are
the runner's transcript times: a chunk's line written to the plugin's stdin, the plugin's
text line read from its stdout. Also measured: the latency of every later piece of answer text
(median), and how many chunks the plugin held back before its first text.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any

from bench.harness import (
    FINAL_ANSWER_LEAD,
    STRATEGIES,
    Plugin,
    Timeline,
    answer_turn,
    chunk_text,
    make_toolbox,
    median,
    ms,
    spread,
    timeline,
)
from local_runner import ScriptedBackend

NAME = "streaming"
TITLE = "Streaming latency (first answer chunk -> first text message)"


@dataclass(frozen=True)
class Params:
    strategies: tuple[str, ...] = STRATEGIES
    chunks: int = 40
    interval: float = 0.02
    """Seconds between two chunks of the model's stream."""
    runs: int = 9


FULL = Params()
SMOKE = Params(chunks=12, interval=0.002, runs=1)


class PacedBackend:
    """A ``ScriptedBackend`` whose chunks leave ``interval`` seconds apart."""

    def __init__(self, inner: ScriptedBackend, interval: float) -> None:
        self.inner = inner
        self.interval = interval

    @property
    def remaining(self) -> int:
        return self.inner.remaining

    def invoke_llm(self, request: dict[str, Any]) -> Iterator[dict[str, Any]]:
        stream = self.inner.invoke_llm(request)

        def paced() -> Iterator[dict[str, Any]]:
            for number, chunk in enumerate(stream):
                if number:
                    time.sleep(self.interval)
                yield chunk

        return paced()


def measure(line: Timeline, answer_offset: int) -> dict[str, Any]:
    """Latencies of the last model call's answer text (seconds), ``answer_offset`` = characters
    of the turn before the answer text."""
    call = line.llm[-1]
    sent: list[tuple[float, int]] = []  # (time the chunk left, answer characters available after it)
    total = 0
    for t, chunk in call.responses:
        total += len(chunk_text(chunk))
        sent.append((t, max(0, total - answer_offset)))
    first_chunk = next(t for t, available in sent if available > 0)
    texts = [(t, text) for t, text in line.texts if t >= call.invoked and text]
    first_text = texts[0][0]
    # each text message: when the chunk completing the text it ends with had left
    piece_latencies = []
    shown = 0
    for t, text in texts:
        shown += len(text.lstrip("\n")) if not piece_latencies else len(text)
        ready = next((ts for ts, available in sent if available >= shown), sent[-1][0])
        piece_latencies.append(t - ready)
    return {
        "first_text": first_text - first_chunk,
        "from_turn_start": first_text - sent[0][0],
        "held_chunks": sum(1 for t, _ in sent if first_chunk < t < first_text),
        "piece_median": median(piece_latencies),
        "text_messages": len(texts),
    }


def run(params: Params, plugin: Plugin) -> dict[str, Any]:
    rows = []
    for strategy in params.strategies:
        offset = len(FINAL_ANSWER_LEAD) if strategy == "ReAct" else 0
        runs = []
        for _ in range(params.runs):
            backend = PacedBackend(ScriptedBackend([answer_turn(strategy, params.chunks)]), params.interval)
            result = plugin.run(strategy, [], make_toolbox(1), backend=backend)
            runs.append(measure(timeline(result), offset))
        low_high = spread(r["first_text"] for r in runs)
        rows.append(
            {
                "strategy": strategy,
                "first_text_ms": ms(median(r["first_text"] for r in runs), 2),
                "first_text_range_ms": [ms(low_high[0], 2), ms(low_high[1], 2)] if low_high else None,
                "from_turn_start_ms": ms(median(r["from_turn_start"] for r in runs), 1),
                "held_chunks": median(r["held_chunks"] for r in runs),
                "later_pieces_ms": ms(median(r["piece_median"] for r in runs), 2),
                "text_messages": median(r["text_messages"] for r in runs),
                "chunks": params.chunks,
                "runs": len(runs),
            }
        )
    return {"params": asdict(params), "rows": rows}


def table(result: dict[str, Any]) -> str:
    interval = ms(result["params"]["interval"], 0)
    lines = [
        f"| strategy | **first answer chunk -> first text ms** (min–max) | chunks held back | "
        f"later text pieces ms (median) | first chunk of turn -> first text ms | text messages / "
        f"{result['params']['chunks']} chunks |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in result["rows"]:
        low, high = r["first_text_range_ms"] or (None, None)
        lines.append(
            f"| {r['strategy']} | **{r['first_text_ms']}** ({low}–{high}) | {r['held_chunks']} | "
            f"{r['later_pieces_ms']} | {r['from_turn_start_ms']} | {r['text_messages']} |"
        )
    lines.append(f"\nChunks {interval} ms apart, ~4 characters each.")
    return "\n".join(lines)
