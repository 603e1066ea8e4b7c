"""The runner's terminal rendering: the --verbose tree, the usage table's formatting, the SVG."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from local_runner.render import format_price, log_details, render_run, save_svg, usage_cell, usage_table
from local_runner.result import RunResult

CALL_OUTPUT = {
    "tool_call_id": "call_1",
    "tool_call_name": "calculator",
    "tool_call_input": {"expression": "6 * 7"},
    "tool_response": "6 * 7 = 42",
}


def _log(id_: str, label: str, parent: str | None, data: Any, **metadata: Any) -> dict[str, Any]:
    message = {"id": id_, "label": label, "parent_id": parent, "error": None, "status": "success",
               "data": data, "metadata": {"elapsed_time": 0.1, **metadata}}
    return {"type": "log", "message": message, "meta": None}


def _run() -> RunResult:
    """A finished run as the plugin reports it: one round with a thought and a call, a limit
    note, the final answer, and usage (floats from the plugin, decimal strings from the model)."""
    result = RunResult("0123456789", "function_calling")
    thought = {
        "output": "Let me compute.",
        "tool_name": "calculator",
        "tool_input": [{"name": "calculator", "args": {"expression": "6 * 7"}}],
        "finish_reason": "tool_calls",
    }
    for message in [
        _log("r1", "ROUND 1", None, {"output": {"llm_response": "Let me compute.", "tool_responses": [CALL_OUTPUT]}}),
        _log("t1", "gpt-4o-mini Thought", "r1", thought, total_tokens=49),
        _log("c1", "CALL calculator", "r1", {"output": CALL_OUTPUT}),
        _log("n1", "ITERATION LIMIT", None, {"output": "Answer the user now."}),
        _log("f1", "FINAL ANSWER", None, {"output": {"llm_response": "42", "tool_responses": []}}),
        _log("t2", "gpt-4o-mini Thought", "f1", {"output": "42", "finish_reason": "stop"}),
        {"type": "text", "message": {"text": "42"}, "meta": None},
        {
            "type": "json",
            "message": {"json_object": {"execution_metadata": {
                "prompt_tokens": 40, "completion_tokens": 9, "total_tokens": 49,
                "total_price": 1.049e-05, "currency": "USD", "latency": 0.5,
            }}},
            "meta": None,
        },
    ]:
        result.add_message(message)
    result.llm_usages.append({"prompt_tokens": 20, "completion_tokens": 4, "total_tokens": 24,
                              "total_price": "0.0000045", "currency": "USD", "latency": 0.25})
    result.llm_usages.append({"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25,
                              "total_price": "0.0000060", "currency": "USD", "latency": 0.25})
    result.finish()
    return result


def _text(renderable: Any, width: int = 120) -> str:
    console = Console(record=True, width=width)
    console.print(renderable)
    return console.export_text()


# --------------------------------------------------------------------------- prices


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (1.049e-05, "0.0000105"),  # a float as the plugin reports it: never scientific notation
        ("0.0000105", "0.0000105"),  # a decimal string as the backend reports it
        (Decimal("1.049E-5"), "0.0000105"),
        (0.1 + 0.2, "0.3000000"),  # float noise rounds away at Dify's 7 decimals
        (0, "0.0000000"),
        ("0E-7", "0.0000000"),
        (12.5, "12.5000000"),
        ("n/a", "n/a"),
        (float("nan"), "nan"),
    ],
)
def test_prices_print_alike_whatever_their_type(value: Any, shown: str) -> None:
    assert format_price(value) == shown


def test_the_usage_table_columns_agree_when_the_usage_agrees() -> None:
    """The plugin's float 1.049e-05 and the backend's sum of "0.0000045" + "0.0000060" are the
    same price: both columns print 0.0000105 (and the latency alike)."""
    table = _text(usage_table(_run()))
    price_row = next(line for line in table.splitlines() if "total_price" in line)
    assert price_row.count("0.0000105") == 2 and "e-05" not in table
    latency_row = next(line for line in table.splitlines() if "latency" in line)
    assert latency_row.count("0.500 s") == 2


def test_usage_cells() -> None:
    assert usage_cell("total_price", None) == "–"
    assert usage_cell("prompt_price", 6.35e-05) == "0.0000635"
    assert usage_cell("latency", "0.4") == "0.400 s"
    assert usage_cell("latency", "soon") == "soon"
    assert usage_cell("total_tokens", 49) == "49"


# --------------------------------------------------------------------------- the verbose tree


def test_the_plain_tree_shows_labels_only() -> None:
    shown = _text(render_run(_run()))
    for label in ("ROUND 1", "gpt-4o-mini Thought", "CALL calculator", "ITERATION LIMIT", "FINAL ANSWER"):
        assert label in shown
    assert "input:" not in shown and "6 * 7 = 42" not in shown


def test_the_verbose_tree_shows_each_calls_input_and_output() -> None:
    shown = _text(render_run(_run(), verbose=True))
    assert 'input: {"expression": "6 * 7"}' in shown
    assert "output: 6 * 7 = 42" in shown
    assert 'call: calculator {"expression": "6 * 7"}' in shown  # what the model asked for
    assert "output: Let me compute." in shown and "finish_reason: tool_calls" in shown
    assert "output: Answer the user now." in shown  # the limit note's text
    assert shown.count("output: 42") == 1, "entries with children (ROUND, FINAL ANSWER) repeat nothing"


def test_verbose_details_of_each_kind_of_entry() -> None:
    nodes = {node.label: node for node in _all_nodes(_run())}  # the second Thought replaces the first
    assert [line.plain for line in log_details(nodes["CALL calculator"])] == [
        'input: {"expression": "6 * 7"}',
        "output: 6 * 7 = 42",
    ]
    assert [line.plain for line in log_details(nodes["gpt-4o-mini Thought"])] == ["output: 42", "finish_reason: stop"]
    assert [line.plain for line in log_details(nodes["ITERATION LIMIT"])] == ["output: Answer the user now."]
    assert log_details(nodes["ROUND 1"], has_children=True) == []


def test_long_values_are_cut_with_a_pointer_to_json() -> None:
    call = next(n for n in _all_nodes(_run()) if n.label == "CALL calculator")
    call.data = {"output": {**CALL_OUTPUT, "tool_response": "x" * 5000}}
    (_, output) = log_details(call, limit=100)
    assert output.plain == "output: " + "x" * 100 + "… (+4900 chars; --json has all)"


def test_save_svg_writes_a_picture_of_the_final_view(tmp_path: Path) -> None:
    path = save_svg(_run(), tmp_path / "pictures" / "tree.svg")
    svg = path.read_text(encoding="utf-8")
    assert svg.startswith("<svg") and 'xml:space="preserve"' in svg  # rsvg-convert keeps the spacing
    assert "ROUND&#160;1" in svg and "FINAL&#160;ANSWER" in svg


def _all_nodes(result: RunResult) -> list[Any]:
    found, queue = [], list(result.root_logs())
    while queue:
        node = queue.pop(0)
        found.append(node)
        queue.extend(result.children(node))
    return found
