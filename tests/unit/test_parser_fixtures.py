"""Model outputs from the test fixtures of open-source inference servers' tool-call parsers,
through both strategies' turn readers.

vLLM, SGLang and llama.cpp each test, per model family, the raw text a model writes when it calls
a tool: exactly what reaches this plugin when the server runs without that family's parser (or
its parser misses). Each case quotes one such output as the fixture has it, names its source
(repository and path), and expects what the parser's test expects: the same calls (names and
arguments, in order) and, in Function Calling, the same text shown before them (clean, no special
token). ReAct shows no text for a reply that calls a tool (it is the step's thought, kept for the
log). Every text is also fed in pieces of 1 and 7 characters: the outcome must not depend on how
the stream was cut. docs/real-world-cases.md lists the families and what failed before.
"""

import json
from dataclasses import dataclass

import pytest

from agent_core.turn import FinalAnswer, ToolCalls
from tests.unit.test_real_world_2026 import Case, read, tool

VLLM = "vllm-project/vllm"
SPECIAL = ("<|", "|>", "[TOOL_CALLS]", "<function_call>", "<tool_call>", "functools[", "<start_function_call>",
           "<longcat_tool_call>", "<｜", "[ARGS]")
"""Markup the user must never see in the streamed text."""


@dataclass(frozen=True)
class Fixture:
    family: str
    source: str  # repository and path of the parser test that holds the output
    output: str  # the model's text, as the fixture has it
    calls: list | None = None  # (name, arguments) the parser's test expects, in order
    content: str = ""  # the text Function Calling shows (before the calls, or the answer)
    gaps: tuple[str, ...] = ()  # strategies that do not read it yet (known gaps, strict xfail)


def _weather(city: str, state: str, unit: str) -> tuple[str, dict]:
    return ("get_current_weather", {"city": city, "state": state, "unit": unit})


_GIGACHAT_CALL = json.dumps({"name": "manage_user_memory", "arguments": {"action": "create", "id": "preferences"}})
_MORE_TYPES = {
    "name": "John Doe", "age": 37, "address": {"city": "San Francisco", "state": "CA"}, "role": None,
    "passed_test": True, "aliases": ["John", "Johnny"],
}

FIXTURES = {
    # ---- Mistral ([TOOL_CALLS]) -------------------------------------------------------------
    "mistral-pre-v11-list": Fixture(
        "mistral (pre-v11 tokenizer)", f"{VLLM} tests/tool_parsers/test_mistral_tool_parser.py",
        '[TOOL_CALLS][{"name": "add", "arguments":{"a": 3.5, "b": 4}}]',
        [("add", {"a": 3.5, "b": 4})],
    ),
    "mistral-pre-v11-argument-before-name": Fixture(
        "mistral (pre-v11 tokenizer)", f"{VLLM} tests/tool_parsers/test_mistral_tool_parser.py",
        '[TOOL_CALLS] [{"arguments":{"name": "John Doe"}, "name": "get_age"}]',
        [("get_age", {"name": "John Doe"})],
    ),
    "mistral-pre-v11-content-before": Fixture(
        "mistral (pre-v11 tokenizer)", f"{VLLM} tests/tool_parsers/test_mistral_tool_parser.py",
        'Hello[TOOL_CALLS] [{"name": "add", "arguments":{"a": 1, "b": 2}}]',
        [("add", {"a": 1, "b": 2})], "Hello",
    ),
    "mistral-pre-v11-trailing-data": Fixture(
        "mistral (pre-v11 tokenizer)", f"{VLLM} tests/tool_parsers/test_mistral_tool_parser.py",
        '[TOOL_CALLS] [{"name": "get_current_weather", "arguments":{"city": "Dallas", "state": "TX", "unit": '
        '"fahrenheit"}}]\nextra trailing data',
        [_weather("Dallas", "TX", "fahrenheit")],
    ),
    "mistral-v11-name-then-object": Fixture(
        "mistral (v11, no [ARGS])", f"{VLLM} tests/tool_parsers/test_mistral_tool_parser.py",
        '[TOOL_CALLS]add_this_and_that{"a": 3.5, "b": 4}',
        [("add_this_and_that", {"a": 3.5, "b": 4})],
    ),
    "mistral-v11-two-calls-no-args-token": Fixture(
        "mistral (v11, no [ARGS])", f"{VLLM} tests/tool_parsers/test_mistral_tool_parser.py",
        '[TOOL_CALLS]add{"a": 3.5, "b": 4}[TOOL_CALLS]multiply{"a": 3, "b": 6}',
        [("add", {"a": 3.5, "b": 4}), ("multiply", {"a": 3, "b": 6})],
    ),
    # ---- xLAM -------------------------------------------------------------------------------
    "xlam-parallel-list": Fixture(
        "xlam", f"{VLLM} tests/tool_parsers/test_xlam_tool_parser.py",
        '[{"name": "get_current_weather", "arguments": {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}}, '
        '{"name": "get_current_weather", "arguments": {"city": "Orlando", "state": "FL", "unit": "fahrenheit"}}]',
        [_weather("Dallas", "TX", "fahrenheit"), _weather("Orlando", "FL", "fahrenheit")],
    ),
    "xlam-think-then-list": Fixture(
        "xlam", f"{VLLM} tests/tool_parsers/test_xlam_tool_parser.py",
        '<think>I\'ll help you with that.</think>[{"name": "get_current_weather", "arguments": {"city": "Dallas", '
        '"state": "TX", "unit": "fahrenheit"}}]',
        [_weather("Dallas", "TX", "fahrenheit")],
    ),
    "xlam-tool-calls-token-after-text": Fixture(
        "xlam", f"{VLLM} tests/tool_parsers/test_xlam_tool_parser.py",
        'I\'ll check the weather for you.[TOOL_CALLS][{"name": "get_current_weather", "arguments": {"city": "Dallas", '
        '"state": "TX", "unit": "fahrenheit"}}]',
        [_weather("Dallas", "TX", "fahrenheit")], "I'll check the weather for you.",
    ),
    "xlam-tool-call-tag-with-list": Fixture(
        "xlam", f"{VLLM} tests/tool_parsers/test_xlam_tool_parser.py",
        'I\'ll help you check the weather.<tool_call>[{"name": "get_current_weather", "arguments": {"city": "Dallas", '
        '"state": "TX", "unit": "fahrenheit"}}]</tool_call>',
        [_weather("Dallas", "TX", "fahrenheit")], "I'll help you check the weather.",
    ),
    "xlam-json-fence-after-text": Fixture(
        "xlam", f"{VLLM} tests/tool_parsers/test_xlam_tool_parser.py",
        'I\'ll help you with that.\n```json\n[{"name": "get_current_weather", "arguments": {"city": "Dallas", "state": '
        '"TX", "unit": "fahrenheit"}}]\n```',
        [_weather("Dallas", "TX", "fahrenheit")], "I'll help you with that.", gaps=("fc",),
    ),
    # ---- Granite ----------------------------------------------------------------------------
    "granite-token-list": Fixture(
        "granite 3.0 (<|tool_call|>)", f"{VLLM} tests/tool_parsers/test_granite_tool_parser.py",
        '<|tool_call|> [{"name": "get_weather", "arguments": {"city": "Tokyo"}}]',
        [("get_weather", {"city": "Tokyo"})],
    ),
    "granite-token-list-surrounded": Fixture(
        "granite 3.0 (<|tool_call|>)", f"{VLLM} tests/tool_parsers/test_granite_tool_parser.py",
        'Let me check the weather for you.\n<|tool_call|> [{"name": "get_weather", "arguments": {"city": "Tokyo"}}]\n'
        "I'll get that information.",
        [("get_weather", {"city": "Tokyo"})], "Let me check the weather for you.",
    ),
    "granite-arguments-before-name": Fixture(
        "granite 3.0 (<|tool_call|>)", f"{VLLM} tests/tool_parsers/test_granite_tool_parser.py",
        '<|tool_call|> [{"arguments": {"city": "Tokyo"}, "name": "get_weather"}, '
        '{"arguments": {"timezone": "Asia/Tokyo"}, "name": "get_time"}]',
        [("get_weather", {"city": "Tokyo"}), ("get_time", {"timezone": "Asia/Tokyo"})],
    ),
    "granite31-string-tag-list": Fixture(
        "granite 3.1 (<tool_call> list)", f"{VLLM} tests/tool_parsers/test_granite_tool_parser.py",
        '<tool_call> [{"name": "get_weather", "arguments": {"city": "Tokyo"}}]',
        [("get_weather", {"city": "Tokyo"})],
    ),
    "granite-20b-fc-parallel": Fixture(
        "granite-20b-fc (<function_call>)", f"{VLLM} tests/tool_parsers/test_granite_20b_fc_tool_parser.py",
        '<function_call> {"name": "get_weather", "arguments": {"city": "Tokyo"}}\n'
        '<function_call> {"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}',
        [("get_weather", {"city": "Tokyo"}), ("get_time", {"timezone": "Asia/Tokyo"})],
    ),
    "granite-20b-fc-after-text": Fixture(
        "granite-20b-fc (<function_call>)", f"{VLLM} tests/tool_parsers/test_granite_20b_fc_tool_parser.py",
        'Let me check the weather for you.\n<function_call> {"name": "get_weather", "arguments": {"city": "Tokyo"}}',
        [("get_weather", {"city": "Tokyo"})], "Let me check the weather for you.",
    ),
    "granite-20b-fc-empty-arguments": Fixture(
        "granite-20b-fc (<function_call>)", f"{VLLM} tests/tool_parsers/test_granite_20b_fc_tool_parser.py",
        '<function_call> {"name": "refresh", "arguments": {}}',
        [("refresh", {})],
    ),
    "granite4-calls-between-text": Fixture(
        "granite 4 (<tool_call>, string arguments)", f"{VLLM} tests/tool_parsers/test_granite4_tool_parser.py",
        "Here goes the bbox call: \n<tool_call> "
        + json.dumps({"name": "find_bbox", "arguments": json.dumps({"coordinates": [[23.54, 43.1]], "coordinate_type": "latlong"})})
        + " </tool_call> Now the stock price call: \n <tool_call> "
        + json.dumps({"name": "get_stock_price", "arguments": {"symbol": "AAPL"}})
        + " </tool_call> See? I'm a helpful assistant.",
        [("find_bbox", {"coordinates": [[23.54, 43.1]], "coordinate_type": "latlong"}), ("get_stock_price", {"symbol": "AAPL"})],
        "Here goes the bbox call:",
    ),
    # ---- Jamba, InternLM2, Phi-4-mini ---------------------------------------------------------
    "jamba-content-before-tool-calls": Fixture(
        "jamba (<tool_calls>)", f"{VLLM} tests/tool_parsers/test_jamba_tool_parser.py",
        ' Sure! let me call the tool for you.<tool_calls>[\n    {"name": "get_current_weather", "arguments": '
        '{"city": "Dallas", "state": "TX", "unit": "fahrenheit"}}\n]</tool_calls>',
        [_weather("Dallas", "TX", "fahrenheit")], "Sure! let me call the tool for you.",
    ),
    "jamba-parallel": Fixture(
        "jamba (<tool_calls>)", f"{VLLM} tests/tool_parsers/test_jamba_tool_parser.py",
        ' <tool_calls>[\n    {"name": "get_current_weather", "arguments": {"city": "Dallas", "state": "TX", "unit": '
        '"fahrenheit"}},\n    {"name": "get_current_weather", "arguments": {"city": "Orlando", "state": "FL", "unit": '
        '"fahrenheit"}}\n]</tool_calls>',
        [_weather("Dallas", "TX", "fahrenheit"), _weather("Orlando", "FL", "fahrenheit")],
    ),
    "internlm2-after-text": Fixture(
        "internlm2", f"{VLLM} tests/tool_parsers/test_internlm2_tool_parser.py",
        'Let me check the weather for you. <|action_start|><|plugin|>{"name": "get_weather", "parameters": '
        '{"city": "Tokyo"}}<|action_end|>',
        [("get_weather", {"city": "Tokyo"})], "Let me check the weather for you.",
    ),
    "phi4mini-parallel": Fixture(
        "phi4_mini_json (functools[...])", f"{VLLM} tests/tool_parsers/test_phi4mini_tool_parser.py",
        'functools[\n  {"name": "get_weather", "arguments": {"city": "Tokyo"}},\n  {"name": "get_time", "arguments": '
        '{"timezone": "Asia/Tokyo"}}\n]',
        [("get_weather", {"city": "Tokyo"}), ("get_time", {"timezone": "Asia/Tokyo"})],
    ),
    "phi4mini-surrounded": Fixture(
        "phi4_mini_json (functools[...])", f"{VLLM} tests/tool_parsers/test_phi4mini_tool_parser.py",
        'Let me check the weather for you.\nfunctools[{"name": "get_weather", "arguments": {"city": "Tokyo"}}]\n'
        "Would you like to know more?",
        [("get_weather", {"city": "Tokyo"})], "Let me check the weather for you.", gaps=("fc",),
    ),
    # ---- Llama 3 JSON, pythonic, OLMo 3 -------------------------------------------------------
    "llama3-json-semicolons": Fixture(
        "llama3_json", f"{VLLM} tests/tool_parsers/test_llama3_json_tool_parser.py",
        '{"name": "searchTool", "parameters": {"query": "test1"}}; {"name": "getOpenIncidentsTool", "parameters": {}}; '
        '{"name": "searchTool", "parameters": {"query": "test2"}}',
        [("searchTool", {"query": "test1"}), ("getOpenIncidentsTool", {}), ("searchTool", {"query": "test2"})],
    ),
    "llama3-json-brace-in-trailing-text": Fixture(
        "llama3_json", f"{VLLM} tests/tool_parsers/test_llama3_json_tool_parser.py",
        '{"name": "searchTool", "parameters": {"query": "test"}} I used {searchTool} for this.',
        [("searchTool", {"query": "test"})],
    ),
    "llama3-json-inside-a-sentence": Fixture(
        "llama3_json", f"{VLLM} tests/tool_parsers/test_llama3_json_tool_parser.py",
        'Here is the result: {"name": "getOpenIncidentsTool", "parameters": {}} Would you like to know more?',
        [("getOpenIncidentsTool", {})], "Here is the result:", gaps=("fc", "react"),
    ),
    "pythonic-parallel-more-types": Fixture(
        "pythonic (Llama 3.2 / 4)", f"{VLLM} tests/tool_parsers/test_pythonic_tool_parser.py",
        "[get_weather(city='San Francisco', metric='celsius'), register_user(name='John Doe', age=37, "
        "address={'city': 'San Francisco', 'state': 'CA'}, role=None, passed_test=True, aliases=['John', 'Johnny'])]",
        [("get_weather", {"city": "San Francisco", "metric": "celsius"}), ("register_user", _MORE_TYPES)],
    ),
    "pythonic-escaped-strings": Fixture(
        "pythonic (Llama 3.2 / 4)", f"{VLLM} tests/tool_parsers/test_pythonic_tool_parser.py",
        r"""[get_weather(city='Martha\'s Vineyard', metric='\"cool units\"')]""",
        [("get_weather", {"city": "Martha's Vineyard", "metric": '"cool units"'})],
    ),
    "olmo3-parallel-json-literals": Fixture(
        "olmo3 (<function_calls>)", f"{VLLM} tests/tool_parsers/test_olmo3_tool_parser.py",
        "<function_calls>get_weather(city='San Francisco', metric='celsius')\nregister_user(name='John Doe', age=37, "
        "address={'city': 'San Francisco', 'state': 'CA'}, role=null, passed_test=true, aliases=['John', 'Johnny'])"
        "</function_calls>",
        [("get_weather", {"city": "San Francisco", "metric": "celsius"}), ("register_user", _MORE_TYPES)],
    ),
    # ---- DeepSeek, ERNIE, LongCat, FunctionGemma -----------------------------------------------
    "deepseek-v31-text-around": Fixture(
        "deepseek v3.1", f"{VLLM} tests/tool_parsers/test_deepseekv31_tool_parser.py",
        'some prefix text<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>foo<｜tool▁sep｜>{"x":1}<｜tool▁call▁end｜>'
        '<｜tool▁call▁begin｜>bar<｜tool▁sep｜>{"y":2}<｜tool▁call▁end｜><｜tool▁calls▁end｜> some suffix text',
        [("foo", {"x": 1}), ("bar", {"y": 2})], "some prefix text",
    ),
    "ernie45-reasoning-end-then-calls": Fixture(
        "ernie 4.5 (thinking)", f"{VLLM} tests/tool_parsers/test_ernie45_moe_tool_parser.py",
        'I need to call two tools to handle these two issues separately.\n</think>\n\n<tool_call>\n{"name": '
        '"get_current_temperature", "arguments": {"location": "Beijing"}}\n</tool_call>\n<tool_call>\n{"name": '
        '"get_temperature_unit", "arguments": {"location": "Guangzhou", "unit": "c"}}\n</tool_call>\n',
        [("get_current_temperature", {"location": "Beijing"}),
         ("get_temperature_unit", {"location": "Guangzhou", "unit": "c"})],
        "I need to call two tools to handle these two issues separately.",
    ),
    "longcat-surrounded": Fixture(
        "longcat", f"{VLLM} tests/tool_parsers/test_longcat_tool_parser.py",
        'Let me check the weather for you.\n<longcat_tool_call>{"name": "get_weather", "arguments": {"city": "Tokyo"}}'
        "</longcat_tool_call>\nHere is the result.",
        [("get_weather", {"city": "Tokyo"})], "Let me check the weather for you.",
    ),
    "functiongemma-two-calls": Fixture(
        "functiongemma", f"{VLLM} tests/tool_parsers/test_functiongemma_tool_parser.py",
        "<start_function_call>call:get_weather{location:<escape>London<escape>}<end_function_call>"
        "<start_function_call>call:get_time{timezone:<escape>UTC<escape>}<end_function_call>",
        [("get_weather", {"location": "London"}), ("get_time", {"timezone": "UTC"})],
    ),
    "functiongemma-after-text": Fixture(
        "functiongemma", f"{VLLM} tests/tool_parsers/test_functiongemma_tool_parser.py",
        "Let me check the weather for you. <start_function_call>call:get_weather{location:<escape>Paris<escape>}"
        "<end_function_call>",
        [("get_weather", {"location": "Paris"})], "Let me check the weather for you.",
    ),
    # ---- Cohere Command R7B / A ---------------------------------------------------------------
    "cohere-command-thinking-then-two-actions": Fixture(
        "cohere command (3 / 4)", f"{VLLM} tests/tool_parsers/test_cohere_command_tool_parser.py",
        '<|START_THINKING|>first I think about foo<|END_THINKING|><|START_ACTION|>\n[\n    {"tool_call_id": "0", '
        '"tool_name": "foo", "parameters": {"query": "query1"}},\n    {"tool_call_id": "1", "tool_name": "bar", '
        '"parameters": {"x": 42}}\n]\n<|END_ACTION|>',
        [("foo", {"query": "query1"}), ("bar", {"x": 42})],
    ),
    "cohere-command-citations-in-response": Fixture(
        "cohere command (3 / 4)", f"{VLLM} tests/tool_parsers/test_cohere_command_tool_parser.py",
        "<|START_THINKING|>This is a rainbow <co>emoji: 🌈</co: 0:[1]><|END_THINKING|>\n"
        "<|START_RESPONSE|>foo <co>bar</co: 0:[1,2],1:[3,4]><|END_RESPONSE|>",
        None, "foo bar", gaps=("fc", "react"),
    ),
    # ---- GigaChat 3 / 3.1, Apertus ------------------------------------------------------------
    "gigachat3-function-call-role": Fixture(
        "gigachat3", f"{VLLM} tests/tool_parsers/test_gigachat3_tool_parser.py",
        "<|message_sep|>\n\nfunction call<|role_sep|>\n" + _GIGACHAT_CALL,
        [("manage_user_memory", {"action": "create", "id": "preferences"})],
    ),
    "gigachat3-mixed-with-eos": Fixture(
        "gigachat3", f"{VLLM} tests/tool_parsers/test_gigachat3_tool_parser.py",
        "I'll check that for you.<|message_sep|>\n\nfunction call<|role_sep|>\n" + _GIGACHAT_CALL + "</s>",
        [("manage_user_memory", {"action": "create", "id": "preferences"})], "I'll check that for you.",
    ),
    "gigachat31-mixed-with-eos": Fixture(
        "gigachat 3.1 (<|function_call|>)", f"{VLLM} tests/tool_parsers/test_gigachat3_tool_parser.py",
        "I'll check that for you.<|function_call|>" + _GIGACHAT_CALL + "</s>",
        [("manage_user_memory", {"action": "create", "id": "preferences"})], "I'll check that for you.",
    ),
    "apertus-two-calls": Fixture(
        "apertus", f"{VLLM} tests/tool_parsers/test_apertus_tool_parser.py",
        '<|tools_prefix|>[{"get_weather": {"location": "London"}}, {"get_time": {"location": "London"}}]<|tools_suffix|>',
        [("get_weather", {"location": "London"}), ("get_time", {"location": "London"})],
    ),
    "apertus-after-text": Fixture(
        "apertus", f"{VLLM} tests/tool_parsers/test_apertus_tool_parser.py",
        'Let me check the weather for you. <|tools_prefix|>[{"get_weather": {"location": "Paris"}}]<|tools_suffix|>',
        [("get_weather", {"location": "Paris"})], "Let me check the weather for you.",
    ),
    "apertus-missing-suffix": Fixture(
        "apertus", f"{VLLM} tests/tool_parsers/test_apertus_tool_parser.py",
        '<|tools_prefix|>[{"get_weather": {"location": "San Francisco", "unit": "celsius"}}]',
        [("get_weather", {"location": "San Francisco", "unit": "celsius"})],
    ),
}


def _case(fixture: Fixture) -> Case:
    """The fixture as a reply, offered tools named as its calls with their arguments' keys."""
    params: dict[str, set[str]] = {}
    for name, arguments in fixture.calls or [("search", {"q": ""})]:
        params.setdefault(name, set()).update(arguments)
    return Case(tuple(tool(name, *sorted(keys)) for name, keys in params.items()), fixture.output)


def _params():
    for name, fixture in FIXTURES.items():
        for strategy in ("fc", "react"):
            marks = [pytest.mark.xfail(strict=True, reason="known gap")] if strategy in fixture.gaps else []
            for size in (None, 1, 7):
                yield pytest.param(name, strategy, size, marks=marks, id=f"{name}-{strategy}-{size}")


@pytest.mark.parametrize(("name", "strategy", "size"), list(_params()))
def test_parser_fixture(name, strategy, size):
    fixture = FIXTURES[name]
    streamed, turn = read(strategy, _case(fixture), size)
    decision = turn.decision
    if fixture.calls is not None:
        assert isinstance(decision, ToolCalls), decision
        assert [(c.name, c.arguments) for c in decision.calls] == fixture.calls
        assert not decision.invalid
        assert streamed.strip() == (fixture.content if strategy == "fc" else "")
    else:
        assert decision == FinalAnswer(fixture.content)
        assert streamed.strip() == fixture.content
    assert not [marker for marker in SPECIAL if marker in streamed]


def test_breadth():
    """The table covers many families, not a few shapes of one."""
    assert len(FIXTURES) >= 30
    assert len({fixture.family.split(" (")[0] for fixture in FIXTURES.values()}) >= 15
