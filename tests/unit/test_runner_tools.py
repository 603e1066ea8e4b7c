"""Local runner tools: declarations as Dify sends them, the real tools, scripted tools."""

from __future__ import annotations

import math
import threading
import time
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from dify_plugin.entities.tool import ToolInvokeMessage
from dify_plugin.interfaces.agent import ToolEntity
from hypothesis import given
from hypothesis import strategies as st

from local_runner.builtin_tools import convert, default_toolbox, evaluate, search
from local_runner.tools import (
    LOCAL_PROVIDER,
    LocalTool,
    ScriptedTool,
    ScriptedToolError,
    ToolBox,
    ToolInputError,
    ToolNotFoundError,
    ToolParam,
    json_message,
    text_message,
)


def call(toolbox: ToolBox, tool: str, provider: str = LOCAL_PROVIDER, **parameters: Any) -> list[dict[str, Any]]:
    request = {"tool_type": "builtin", "provider": provider, "tool": tool, "tool_parameters": parameters}
    return list(toolbox.invoke_tool(request))


def text_of(messages: list[dict[str, Any]]) -> str:
    return "".join(m["message"]["text"] for m in messages if m["type"] == "text")


def test_entities_validate_as_sdk_tool_entities() -> None:
    toolbox = default_toolbox()
    entities = toolbox.entities()
    assert [e["identity"]["name"] for e in entities] == ["calculator", "current_time", "unit_convert", "doc_search"]
    for entity in entities:
        parsed = ToolEntity(**entity)
        assert parsed.identity.provider == LOCAL_PROVIDER
        assert parsed.provider_type.value == "builtin"
        assert entity["description"]["llm"]
    time_tool = entities[1]
    assert time_tool["runtime_parameters"] == {"format": "%Y-%m-%d %H:%M:%S %Z"}
    assert [p["form"] for p in time_tool["parameters"]] == ["llm", "form"]
    assert toolbox.credentials(["calculator"]) == {LOCAL_PROVIDER: "cred-local-tools"}


def test_select_parameters_declare_their_options() -> None:
    entity = ToolParam("unit", type="select", options=("C", "F")).entity()
    assert [o["value"] for o in entity["options"]] == ["C", "F"]
    assert entity["label"]["en_US"] == "Unit"


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("2 + 3 * 4", 14),
        ("649 * (1 - 0.15) * 1.2", 661.98),
        ("2 ^ 10", 1024),
        ("sqrt(16) + abs(-2)", 6.0),
        ("7 // 2 + 7 % 2", 4),
        ("-pi", -math.pi),
    ],
)
def test_calculator_evaluates_arithmetic(expression: str, expected: float) -> None:
    assert evaluate(expression) == pytest.approx(expected)


@pytest.mark.parametrize(
    "expression",
    [
        "__import__('os').system('true')",
        "(1).__class__",
        "open('/etc/passwd')",
        "x + 1",
        "9 ** 9 ** 9",
        "1 / 0",
        "[1, 2]",
        "sqrt(x=4)",
        "2 +",
    ],
)
def test_calculator_refuses_anything_else(expression: str) -> None:
    with pytest.raises(ToolInputError):
        evaluate(expression)


def test_calculator_tool_answers_in_text() -> None:
    assert text_of(call(default_toolbox(), "calculator", expression="649 * 0.85 * 1.2")) == "649 * 0.85 * 1.2 = 661.98"


def test_current_time_uses_the_timezone_and_runtime_format() -> None:
    toolbox = default_toolbox()
    shown = text_of(call(toolbox, "current_time", timezone="Asia/Tokyo", format="%Y-%m-%d %Z"))
    assert shown == datetime.now(ZoneInfo("Asia/Tokyo")).strftime("%Y-%m-%d JST")
    with pytest.raises(ToolInputError, match="unknown timezone"):
        call(toolbox, "current_time", timezone="Mars/Olympus")


@pytest.mark.parametrize(
    ("value", "source", "target", "expected"),
    [
        (5, "km", "mi", 3.10686),
        (4.2, "kilograms", "lb", 9.25942),
        (100, "C", "F", 212),
        (0, "K", "celsius", -273.15),
        (12, "inches", "feet", 1),
    ],
)
def test_unit_convert(value: float, source: str, target: str, expected: float) -> None:
    assert convert(value, source, target) == pytest.approx(expected, rel=1e-5)


@given(st.floats(-1e6, 1e6), st.sampled_from(["m", "km", "mi", "ft", "C", "F", "K"]))
def test_unit_conversion_round_trips(value: float, unit: str) -> None:
    other = {"m": "ft", "km": "mi", "mi": "m", "ft": "in", "C": "F", "F": "K", "K": "C"}[unit]
    assert convert(convert(value, unit, other), other, unit) == pytest.approx(value, abs=1e-6)


def test_unit_convert_errors() -> None:
    toolbox = default_toolbox()
    with pytest.raises(ToolInputError, match="cannot convert km \\(length\\) to kg \\(mass\\)"):
        call(toolbox, "unit_convert", value=1, from_unit="km", to_unit="kg")
    with pytest.raises(ToolInputError, match="expected a number"):
        call(toolbox, "unit_convert", value="many", from_unit="km", to_unit="m")
    assert text_of(call(toolbox, "unit_convert", value="5", from_unit="km", to_unit="m")) == "5 km = 5000 m"


def test_doc_search_finds_the_right_sections() -> None:
    hits = search("battery warranty cycles")
    assert hits[0][1].source == "battery.md" and hits[0][1].heading == "Battery warranty and replacement"
    assert search("Rover R2 weight", top_k=1)[0][1].heading == "Dimensions and weight"
    assert search("zebra quantum") == []
    shown = text_of(call(default_toolbox(), "doc_search", query="standard shipping costs", top_k="1"))
    assert shown.startswith("[1] Shipping - Costs (shipping.md") and "free for orders above 200 EUR" in shown
    assert "No document matches" in text_of(call(default_toolbox(), "doc_search", query="zebra"))


def test_missing_required_parameter_is_an_error() -> None:
    with pytest.raises(ToolInputError, match="missing required parameter\\(s\\): expression"):
        call(default_toolbox(), "calculator")


def test_unknown_tool_or_provider_is_not_found_and_recorded() -> None:
    toolbox = default_toolbox()
    with pytest.raises(ToolNotFoundError, match="known: calculator"):
        call(toolbox, "weather")
    with pytest.raises(ToolNotFoundError, match="provided by"):
        call(toolbox, "calculator", provider="someone/else/else", expression="1")
    assert [record.error is not None for record in toolbox.calls] == [True, True]


def test_tool_outputs_validate_as_sdk_messages() -> None:
    toolbox = default_toolbox()
    for tool, params in [
        ("calculator", {"expression": "1+1"}),
        ("current_time", {}),
        ("doc_search", {"query": "firmware"}),
    ]:
        for message in call(toolbox, tool, **params):
            ToolInvokeMessage(**message)


def test_scripted_tool_replays_messages_with_latency_and_error() -> None:
    toolbox = ToolBox(
        [
            ScriptedTool(name="lookup", responses=[text_message("a"), json_message({"b": 1})], latency=0.1),
            ScriptedTool(name="broken", responses=[text_message("partial")], error="backend down"),
        ]
    )
    started = time.monotonic()
    assert call(toolbox, "lookup", anything="goes") == [text_message("a"), json_message({"b": 1})]
    assert time.monotonic() - started >= 0.1
    stream = toolbox.invoke_tool({"provider": LOCAL_PROVIDER, "tool": "broken", "tool_parameters": {}})
    assert next(stream) == text_message("partial")
    with pytest.raises(ScriptedToolError, match="backend down"):
        next(stream)
    assert toolbox.requests[0]["tool_parameters"] == {"anything": "goes"}
    assert toolbox.calls[1].error == "backend down" and toolbox.calls[1].finished is not None


def test_hanging_tool_blocks_until_released() -> None:
    toolbox = ToolBox([ScriptedTool(name="stuck", hang=True)])
    done = threading.Event()
    threading.Thread(target=lambda: (call(toolbox, "stuck"), done.set()), daemon=True).start()
    assert not done.wait(0.3)
    assert toolbox.calls[0].finished is None
    toolbox.release()
    assert done.wait(2)


def test_local_tool_gets_defaults_and_cast_values() -> None:
    seen = []
    tool = LocalTool(
        name="echo",
        parameters=[ToolParam("n", type="number"), ToolParam("flag", type="boolean", required=False, default=False)],
        handler=lambda params: seen.append(params) or [text_message("ok")],
    )
    call(ToolBox([tool]), "echo", n="2.5")
    call(ToolBox([tool]), "echo", n="3", flag="true")
    assert seen == [{"n": 2.5, "flag": False}, {"n": 3, "flag": True}]
