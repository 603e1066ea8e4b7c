"""ReAct prompt size: tokens of the ReAct system prompt (tool list + format rules) for 1, 10 and
50 tools, next to the Function Calling ``tools`` JSON for the same tools.

One answer-only run per strategy and tool count, no instruction, so the system message is the
plugin's own text; tokens by the plugin's estimate (``agent_core.tokens.estimate_tokens``).
Deterministic: one run each.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from agent_core.tokens import estimate_tokens
from bench.harness import Plugin, answer_turn, make_toolbox, request_tokens, system_prompt

NAME = "react_prompt"
TITLE = "ReAct system prompt size"


@dataclass(frozen=True)
class Params:
    tool_counts: tuple[int, ...] = (1, 10, 50)


FULL = Params()
SMOKE = Params(tool_counts=(1, 3))


def run(params: Params, plugin: Plugin) -> dict[str, Any]:
    rows = []
    for tools in params.tool_counts:
        toolbox = make_toolbox(tools)
        react = plugin.run("ReAct", [answer_turn("ReAct", 10)], toolbox)
        fc = plugin.run("function_calling", [answer_turn("function_calling", 10)], toolbox)
        text = system_prompt(react.llm_requests[0])
        rows.append(
            {
                "tools": tools,
                "react_system_tokens": estimate_tokens(text),
                "react_system_chars": len(text),
                "react_request_tokens": request_tokens(react.llm_requests[0])["total"],
                "fc_tools_json_tokens": request_tokens(fc.llm_requests[0])["tools"],
                "fc_request_tokens": request_tokens(fc.llm_requests[0])["total"],
            }
        )
    per_tool = None
    if len(rows) >= 2:
        a, b = rows[0], rows[-1]
        extra = b["tools"] - a["tools"]
        per_tool = {
            "react": round((b["react_system_tokens"] - a["react_system_tokens"]) / extra, 1),
            "function_calling": round((b["fc_tools_json_tokens"] - a["fc_tools_json_tokens"]) / extra, 1),
        }
    return {"params": asdict(params), "rows": rows, "tokens_per_tool": per_tool}


def table(result: dict[str, Any]) -> str:
    lines = [
        "| tools | **ReAct system prompt tokens** | characters | Function Calling `tools` JSON tokens |",
        "|---:|---:|---:|---:|",
    ]
    for r in result["rows"]:
        lines.append(
            f"| {r['tools']} | **{r['react_system_tokens']}** | {r['react_system_chars']} | {r['fc_tools_json_tokens']} |"
        )
    per_tool = result.get("tokens_per_tool")
    if per_tool:
        lines.append(
            f"\nEach extra tool: {per_tool['react']} tokens in the ReAct prompt, "
            f"{per_tool['function_calling']} in the Function Calling tools JSON."
        )
    return "\n".join(lines)
