"""Prompt size: tokens sent to the model in each round of a 10-round run, per strategy, with
1/10/50 tools, without and with a long conversation history.

Rounds 1..9 call one tool each (its output: ``output_chars`` characters of English-like text);
round 10 answers. Tokens are counted on the requests the runner recorded, with the plugin's
own estimate (``agent_core.tokens.estimate_tokens``, applied as ``agent_core.budget``
does: tool JSON + per message 4 + text + tool calls); the ScriptedBackend's cruder estimate
(characters / 4) is kept in the JSON as ``runner_estimate``. Token counts are deterministic:
one run per configuration.
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass
from typing import Any

from bench.harness import (
    STRATEGIES,
    Plugin,
    answer_turn,
    filler_text,
    history,
    make_toolbox,
    request_tokens,
    tool_turn,
)

NAME = "prompt_size"
TITLE = "Prompt size per round (10-round run)"


@dataclass(frozen=True)
class Params:
    strategies: tuple[str, ...] = STRATEGIES
    tool_counts: tuple[int, ...] = (1, 10, 50)
    history_turns: tuple[int, ...] = (0, 20)
    """Conversation memory: 0 (none) and N user/assistant pairs (~1,000 characters each pair)."""
    rounds: int = 10
    output_chars: int = 800
    chunks: int = 10


FULL = Params()
SMOKE = Params(tool_counts=(1,), history_turns=(0, 1), rounds=3, output_chars=100)


def run(params: Params, plugin: Plugin) -> dict[str, Any]:
    rows = []
    for strategy in params.strategies:
        for turns_of_history in params.history_turns:
            for tools in params.tool_counts:
                toolbox = make_toolbox(tools, outputs=lambda i: filler_text(params.output_chars, seed=i))
                turns = [
                    tool_turn(strategy, params.chunks, f"tool_{r % tools:03d}", r) for r in range(1, params.rounds)
                ]
                turns.append(answer_turn(strategy, params.chunks))
                result = plugin.run(strategy, turns, toolbox, history=history(turns_of_history))
                counts = [request_tokens(request) for request in result.llm_requests]
                per_round = [c["total"] for c in counts]
                steps = [b - a for a, b in itertools.pairwise(per_round)]
                rows.append(
                    {
                        "strategy": strategy,
                        "tools": tools,
                        "history_turns": turns_of_history,
                        "tokens_per_round": per_round,
                        "runner_estimate_per_round": [c["runner_estimate"] for c in counts],
                        "tool_declarations": counts[0]["tools"],
                        "system": counts[0]["system"],
                        "growth_per_round": round(sum(steps) / len(steps), 1) if steps else 0,
                        "growth_min_max": [min(steps), max(steps)] if steps else None,
                        "total_sent": sum(per_round),
                    }
                )
    return {"params": asdict(params), "rows": rows}


def table(result: dict[str, Any]) -> str:
    rounds = result["params"]["rounds"]
    picks = sorted({1, 2, rounds // 2, rounds} & set(range(1, rounds + 1)))
    head = " | ".join(f"round {k}" for k in picks)
    lines = [
        f"| strategy | tools | history | {head} | growth/round (min–max) | tool declarations | system msg | "
        "sent over the run |",
        "|---|---:|---:|" + "---:|" * len(picks) + "---:|---:|---:|---:|",
    ]
    for r in result["rows"]:
        values = " | ".join(str(r["tokens_per_round"][k - 1]) for k in picks)
        low, high = r["growth_min_max"] or (0, 0)
        history_label = f"{r['history_turns']} turns" if r["history_turns"] else "none"
        lines.append(
            f"| {r['strategy']} | {r['tools']} | {history_label} | {values} | {r['growth_per_round']} ({low}–{high}) "
            f"| {r['tool_declarations']} | {r['system']} | {r['total_sent']} |"
        )
    lines.append(
        f"\nTokens: the plugin's estimate (`agent_core.tokens.estimate_tokens`) over the recorded requests; "
        f'each tool call returns {result["params"]["output_chars"]} characters. "tool declarations" = the '
        "`tools` JSON (Function Calling); ReAct declares its tools in the system message."
    )
    return "\n".join(lines)
