"""Terminal rendering of a run with ``rich``: a live view while it runs, a summary after."""

from __future__ import annotations

from decimal import Decimal
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


class LiveView:
    """Context manager showing the run live; pass ``on_update`` to the runner as callback."""

    def __init__(self, console: Console) -> None:
        self.result: RunResult | None = None
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
        return render_run(self.result)


def render_run(result: RunResult) -> RenderableType:
    """The log tree, the answer so far and forwarded files."""
    with result.lock:
        parts: list[RenderableType] = [render_log_tree(result)]
        if result.text:
            parts.append(Panel(Text(result.text), title="answer", title_align="left", border_style="cyan"))
        if result.files:
            parts.append(render_files(result.files))
        return Group(*parts)


def render_log_tree(result: RunResult) -> Tree:
    """Agent log entries as a tree: status icon, label, elapsed time, tokens, error."""
    tree = Tree(Text(f"{result.strategy}  ·  session {result.session_id[:8]}", style="bold"))
    for node in result.root_logs():
        _add_node(tree, result, node)
    return tree


def _add_node(parent: Tree, result: RunResult, node: LogNode) -> None:
    branch = parent.add(log_label(node))
    for child in result.children(node):
        _add_node(branch, result, child)


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
    for row in _USAGE_ROWS:
        table.add_row(row, _cell(plugin.get(row)), _cell(backend.get(row)))
    table.add_row("currency", _cell(plugin.get("currency")), _cell(backend.get("currency")))
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


def _cell(value: Any) -> str:
    return "–" if value is None else str(value)


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
