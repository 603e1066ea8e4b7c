"""The SDK's work per line: µs to read one line from the daemon and to write one message to it,
the SDK's own code against the same code with ``agent_core/sdk_speedups.py`` applied.

In-process (the plugin process is not involved), because the difference (a few µs a line) is
below the noise of a whole round on a shared 2-core machine. ``agent_core/sdk_speedups.py`` is
loaded from the plugin folder being measured (``--plugin-dir``); what it does not offer is
measured as the SDK's own.

* **read**: one line as the daemon sends a streamed model chunk, parsed as the SDK's readers
  parse it (``TypeAdapter(dict[str, Any]).validate_json(line)``, a new adapter per line) against
  ``shared_type_adapter(dict[str, Any]).validate_json(line)``.
* **write**: one message the strategy yields, sent as the SDK sends it
  (``writer.session_message(session_id, writer.stream_object(message))``) through a writer that
  writes and flushes a file on ``/dev/null`` as the stdio writer does stdout, with the SDK's
  ``ResponseWriter.put`` against ``put_line_once``. Messages: a streamed text piece (Function
  Calling sends one per model chunk), a finished Thought log, a CALL log holding 100 KB of tool
  output.

Times are the best of ``runs`` batches of ``lines`` calls, the SDK's and ours interleaved.
"""

from __future__ import annotations

import importlib.util
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from dify_plugin.core.server.__base.response_writer import ResponseWriter
from dify_plugin.entities.agent import AgentInvokeMessage
from pydantic import TypeAdapter

from bench.harness import Plugin

NAME = "sdk_lines"
TITLE = "The SDK's work per line (µs to read a chunk line and to write a message; SDK against sdk_speedups)"


@dataclass(frozen=True)
class Params:
    lines: int = 2000
    """Calls per timed batch."""
    runs: int = 7


FULL = Params()
SMOKE = Params(lines=20, runs=1)

CHUNK_LINE = (
    b'{"session_id":"7d7f0b0e-5c1a-4f55-9d58-0f3c8c2b6a11","event":"response","data":{"type":"stream","data":'
    b'{"model":"gpt-4o-mini","prompt_messages":[],"system_fingerprint":null,"delta":{"index":3,"message":'
    b'{"role":"assistant","content":"The ","name":null,"tool_calls":[]},"usage":null,"finish_reason":null}}}}'
)
"""A streamed model chunk as the daemon writes it to the plugin (one text piece)."""


def _log(label: str, data: dict[str, Any]) -> AgentInvokeMessage:
    return AgentInvokeMessage(
        type=AgentInvokeMessage.MessageType.LOG,
        message=AgentInvokeMessage.LogMessage(
            id="4f1c", parent_id="9a2e", label=label, data=data,
            status=AgentInvokeMessage.LogMessage.LogStatus.SUCCESS,
            metadata={"started_at": 1.5, "finished_at": 2.25, "elapsed_time": 0.75, "provider": "openai",
                      "total_price": "0.000150", "currency": "USD", "total_tokens": 812},
        ),
    )


MESSAGES = {
    "text piece": AgentInvokeMessage(
        type=AgentInvokeMessage.MessageType.TEXT, message=AgentInvokeMessage.TextMessage(text="The ")),
    "Thought log": _log("gpt-4o-mini Thought", {
        "output": "I will look the order up first. " * 20,
        "tool_calls": [{"id": "call_1", "name": "lookup_order", "arguments": {"order_id": "A-1029"}}]}),
    "CALL log, 100 KB output": _log("CALL lookup_order", {
        "tool_name": "lookup_order", "tool_call_args": {"order_id": "A-1029"},
        "output": '{"line": 1, "sku": "X-77", "qty": 2}\n' * 2800}),
}


class _NullWriter(ResponseWriter):
    """Writes and flushes a file on /dev/null, as the stdio writer does stdout."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    def write(self, data: str) -> None:
        self.stream.write(data)
        self.stream.flush()

    def done(self) -> None:
        pass


def load_speedups(plugin_dir: Path) -> ModuleType | None:
    """``agent_core/sdk_speedups.py`` of ``plugin_dir`` under a name of its own, or ``None``."""
    path = Path(plugin_dir) / "agent_core" / "sdk_speedups.py"
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location(f"_bench_sdk_speedups_{abs(hash(str(path.resolve())))}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _best_us(sides: dict[str, tuple[Callable[[], Any], Callable[[], Any]]], params: Params) -> dict[str, float]:
    """Best µs per call of each side (``name -> (setup, call)``; ``setup`` runs before each
    batch), the sides' batches interleaved so that a slow spell of a shared machine falls on
    all of them."""
    best = dict.fromkeys(sides, float("inf"))
    for _ in range(params.runs):
        for name, (setup, call) in sides.items():
            setup()
            started = time.perf_counter()
            for _ in range(params.lines):
                call()
            best[name] = min(best[name], time.perf_counter() - started)
    return {name: seconds / params.lines * 1e6 for name, seconds in best.items()}


def _row(line: str, sdk_us: float, ours_us: float) -> dict[str, Any]:
    return {"line": line, "sdk_us": round(sdk_us, 2), "plugin_us": round(ours_us, 2),
            "ratio": round(ours_us / sdk_us, 3)}


def run(params: Params, plugin: Plugin) -> dict[str, Any]:
    speedups = load_speedups(Plugin.default_dir)
    sdk_put = ResponseWriter.__dict__["put"]
    if speedups is not None and sdk_put is getattr(speedups, "put_line_once", None):
        raise RuntimeError("ResponseWriter.put is already replaced in this process: the SDK's own is gone")

    shared = getattr(speedups, "shared_type_adapter", None) or TypeAdapter
    reads = _best_us({
        "sdk": (lambda: None, lambda: TypeAdapter(dict[str, Any]).validate_json(CHUNK_LINE)),
        "ours": (lambda: None, lambda: shared(dict[str, Any]).validate_json(CHUNK_LINE)),
    }, params)
    rows = [_row("read: a streamed model chunk", reads["sdk"], reads["ours"])]

    install = getattr(speedups, "write_lines_once", None)
    if install is not None:
        install()  # as main.py does; the SDK's own is put back below
    ours_put = ResponseWriter.__dict__["put"]

    def use(put: Callable[..., None]) -> Callable[[], None]:
        def setup() -> None:
            ResponseWriter.put = put  # type: ignore[method-assign]
        return setup

    try:
        with open(os.devnull, "w", encoding="utf-8") as devnull:
            writer = _NullWriter(devnull)
            for label, message in MESSAGES.items():
                def write(message: AgentInvokeMessage = message) -> None:
                    writer.session_message("7d7f0b0e", writer.stream_object(message))

                writes = _best_us({"sdk": (use(sdk_put), write), "ours": (use(ours_put), write)}, params)
                rows.append(_row(f"write: {label}", writes["sdk"], writes["ours"]))
    finally:
        ResponseWriter.put = sdk_put  # type: ignore[method-assign]
    return {"params": asdict(params), "rows": rows}


def table(result: dict[str, Any]) -> str:
    lines = ["| line | SDK µs | with sdk_speedups µs | **ratio** |", "|---|---:|---:|---:|"]
    for row in result["rows"]:
        lines.append(f"| {row['line']} | {row['sdk_us']} | {row['plugin_us']} | **{row['ratio']}** |")
    p = result["params"]
    lines.append(
        f"\nBest of {p['runs']} batches of {p['lines']} calls, in one process; writes go to /dev/null "
        "with a flush per write, as the stdio writer's."
    )
    return "\n".join(lines)
