"""Terminal rendering of a run with ``rich``: a live view while it runs, a summary after.

``verbose=True`` (the CLI's ``--verbose``) shows under each log entry what it holds: a
model turn's text and the calls it asked for, a tool call's input and output, a note's text
(long values are cut, ``--json`` has them whole). ``save_svg`` writes the final view as an
SVG image (how ``_assets/log-tree.png`` was made, see docs/packaging.md).
"""

from __future__ import annotations

import io
import json
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from local_runner.result import LogNode, RunResult

_STATUS = {"start": ("…", "yellow"), "success": ("✔", "green"), "error": ("✘", "red")}
_USAGE_ROWS = ("prompt_tokens", "completion_tokens", "total_tokens", "total_price", "latency")
PRICE_STEP = Decimal("0.0000001")
"""Prices are shown to 7 decimals: the precision Dify's model runtime rounds every price to
(``AIModel.get_price``), so the plugin's floats and the backend's decimal strings print alike."""
DETAIL_CHARS = 600
"""``--verbose``: characters of one value shown before it is cut (``--json`` has it whole)."""


class LiveView:
    """Context manager showing the run live; pass ``on_update`` to the runner as callback."""

    def __init__(self, console: Console, *, verbose: bool = False) -> None:
        self.result: RunResult | None = None
        self.verbose = verbose
        self._console = console
        self._live = Live(
            get_renderable=self._render, console=console, refresh_per_second=8, vertical_overflow="visible"
        )

    def __enter__(self) -> LiveView:
        self._live.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._live.stop()
        if not self._console.is_terminal:  # rich ends the last frame with a newline on terminals only
            self._console.line()

    def on_update(self, result: RunResult) -> None:
        """Runner callback: remember the result to draw (drawing happens on refresh)."""
        self.result = result

    def _render(self) -> RenderableType:
        if self.result is None:
            return Text("waiting for the plugin…", style="dim")
        return render_run(self.result, verbose=self.verbose)


def render_run(result: RunResult, *, verbose: bool = False) -> RenderableType:
    """The log tree (with each entry's input and output when ``verbose``), the answer so far
    and forwarded files."""
    with result.lock:
        parts: list[RenderableType] = [render_log_tree(result, verbose=verbose)]
        if result.text:
            parts.append(Panel(Text(result.text), title="answer", title_align="left", border_style="cyan"))
        if result.files:
            parts.append(render_files(result.files))
        return Group(*parts)


def render_log_tree(result: RunResult, *, verbose: bool = False) -> Tree:
    """Agent log entries as a tree: status icon, label, elapsed time, tokens, error; with
    ``verbose``, each entry's details (``log_details``) under its label."""
    tree = Tree(Text(f"{result.strategy}  ·  session {result.session_id[:8]}", style="bold"))
    for node in result.root_logs():
        _add_node(tree, result, node, verbose)
    return tree


def _add_node(parent: Tree, result: RunResult, node: LogNode, verbose: bool) -> None:
    children = result.children(node)
    label: RenderableType = log_label(node)
    details = log_details(node, has_children=bool(children)) if verbose else []
    if details:
        label = Group(label, *details)
    branch = parent.add(label)
    for child in children:
        _add_node(branch, result, child, verbose)


def log_details(node: LogNode, *, has_children: bool = False, limit: int = DETAIL_CHARS) -> list[Text]:
    """What a log entry holds, one ``name: value`` line each (values cut at ``limit`` chars).

    A tool call (``CALL x``): its ``input`` and ``output``. A model turn (``… Thought``): its text
    (``output``), one ``call`` line per tool call it asked for, its other fields (reasoning,
    finish reason). A note
    (``ITERATION LIMIT``, ``CONTEXT TRIMMED``, ...): what it says. An entry with children
    (``ROUND n``, ``FINAL ANSWER``) only repeats them: nothing.
    """
    data = node.data
    if has_children or data in (None, "", {}, []):
        return []
    output = data.get("output") if isinstance(data, dict) else None
    lines: list[tuple[str, Any]] = []
    if isinstance(output, dict) and ("tool_call_input" in output or "tool_response" in output):
        lines += [("input", output.get("tool_call_input")), ("output", output.get("tool_response"))]
        lines += [(k, v) for k, v in data.items() if k != "output"]
    elif isinstance(data, dict):
        lines.append(("output", output))
        calls = data.get("tool_input")
        for call in calls if isinstance(calls, list) else [calls]:
            if isinstance(call, dict) and "name" in call:
                args = json.dumps(call.get("args"), ensure_ascii=False, default=str)
                lines.append(("call", f"{call['name']} {args}"))
            else:
                lines.append(("call", call))
        # tool_name repeats the calls' names
        lines += [(k, v) for k, v in data.items() if k not in ("output", "tool_input", "tool_name")]
    else:
        lines.append(("data", data))
    return [_detail_line(name, value, limit) for name, value in lines if value not in (None, "", [], {})]


def _detail_line(name: str, value: Any, limit: int) -> Text:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    if len(text) > limit:
        text = f"{text[:limit]}… (+{len(text) - limit} chars; --json has all)"
    return Text.assemble((f"{name}: ", "cyan"), (text.rstrip(), "dim" if name != "output" else ""))


def log_label(node: LogNode) -> Text:
    """``✔ ROUND 1  0.42 s · 49 tok`` (plus the error text on a failed entry)."""
    icon, style = _STATUS.get(node.status, ("?", "magenta"))
    label = Text.assemble((icon + " ", style), (node.label, "bold" if node.parent_id is None else ""))
    details = [f"{node.elapsed:.2f} s"]
    if node.tokens:
        details.append(f"{node.tokens} tok")
    label.append("  " + " · ".join(details), style="dim")
    if node.error:
        label.append(f"\n{node.error}", style="red")
    return label


def render_files(files: list[dict[str, Any]]) -> Table:
    """Forwarded files and links: type and URL (or size for blobs)."""
    table = Table(title="files", title_justify="left", show_header=False, box=None)
    for entry in files:
        where = entry.get("text") or entry.get("url") or f"{entry.get('size', '?')} bytes"
        table.add_row(Text(entry["type"], style="cyan"), str(where))
    return table


def render_summary(result: RunResult) -> RenderableType:
    """After the run: the usage table (the plugin's ``execution_metadata`` next to the sum
    of what the backend reported), counts, and any error shown plainly."""
    parts: list[RenderableType] = [usage_table(result)]
    if result.error_text:
        parts.append(error_panel(result))
    return Group(*parts)


def usage_table(result: RunResult) -> Table:
    """Rows prompt/completion/total tokens, price, latency; columns plugin vs backend."""
    plugin = result.execution_metadata or {}
    backend = sum_usages(result.llm_usages)
    table = Table(title="usage", title_justify="left")
    table.add_column("")
    table.add_column("plugin (execution_metadata)", justify="right")
    table.add_column(f"backend (sum of {len(result.llm_usages)} LLM replies)", justify="right")
    for row in (*_USAGE_ROWS, "currency"):
        table.add_row(row, usage_cell(row, plugin.get(row)), usage_cell(row, backend.get(row)))
    table.caption = (
        f"LLM calls: {len(result.llm_requests)} · tool calls: {len(result.tool_requests)} · {result.duration:.2f} s"
    )
    return table


def sum_usages(usages: list[dict[str, Any]]) -> dict[str, Any]:
    """Token counts, ``total_price`` (exact decimal) and ``latency`` summed over ``usages``."""
    if not usages:
        return {}
    total: dict[str, Any] = {key: sum(int(u.get(key) or 0) for u in usages) for key in _USAGE_ROWS[:3]}
    total["total_price"] = sum((Decimal(str(u.get("total_price") or 0)) for u in usages), Decimal(0))
    total["latency"] = round(sum(float(u.get("latency") or 0) for u in usages), 3)
    total["currency"] = usages[-1].get("currency")
    return total


def usage_cell(row: str, value: Any) -> str:
    """One cell of the usage table, formatted by row so that both columns print a value alike:
    the plugin reports floats (``1.049e-05``), the backend decimal strings (``"0.0000105"``)."""
    if value is None:
        return "–"
    if row.endswith("price"):
        return format_price(value)
    if row == "latency":
        try:
            return f"{float(value):.3f} s"
        except (TypeError, ValueError):
            return str(value)
    return str(value)


def format_price(value: Any) -> str:
    """``1.049e-05`` / ``"0.00001049"`` / ``Decimal("1.049E-5")`` -> ``"0.0000105"``: fixed point,
    7 decimals (``PRICE_STEP``), never scientific notation; anything unreadable as it came."""
    try:
        number = Decimal(str(value))
    except (InvalidOperation, ValueError):
        return str(value)
    if not number.is_finite():
        return str(value)
    return f"{number.quantize(PRICE_STEP, rounding=ROUND_HALF_UP):f}"


def save_svg(result: RunResult, path: Path, *, verbose: bool = False, width: int = 92, title: str = "") -> Path:
    """Render the final view of ``result`` (tree, answer, files) to an SVG image at ``path``."""
    console = Console(record=True, width=width, file=io.StringIO())
    console.print(render_run(result, verbose=verbose))
    svg = console.export_svg(title=title or f"{result.strategy} · local runner")
    # rich writes runs of spaces as &#160; at the start of <text> elements; renderers without CSS
    # (rsvg-convert) drop them unless whitespace is preserved
    svg = svg.replace('<svg class="rich-terminal"', '<svg class="rich-terminal" xml:space="preserve"', 1)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(svg, encoding="utf-8")
    return path


def error_panel(result: RunResult) -> Panel:
    """What went wrong: the failure or session error, plugin error events, and the stderr
    tail (for failures, where it usually explains the crash)."""
    lines = [Text(result.error_text or "", style="bold red")]
    traceback = ((result.error or {}).get("args") or {}).get("traceback")
    if traceback:
        lines.append(Text(str(traceback).rstrip(), style="red"))
    for event in result.plugin_errors:
        lines.append(Text(f"plugin error event: {event.get('error', event)}", style="red"))
    if result.failure and result.stderr_tail:
        lines.append(Text("plugin stderr (tail):\n" + "\n".join(result.stderr_tail[-15:]), style="dim"))
    return Panel(Group(*lines), title="run failed", title_align="left", border_style="red")
