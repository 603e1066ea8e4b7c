"""A sixth set of real-world model outputs, quoted from inference servers' and runtimes' tool-parser
tests and from agents' recovery tests (2025-2026), through both strategies' turn readers (as
``test_real_world_2026f``: the text whole and in pieces of 1 and 7 characters). Sources the first
five passes did not use: Kimi K3's XTML call format (vLLM's ``kimi_k3`` parser and the runtimes that
recover it), vLLM's MiniMax-M3 and DeepSeek V4 parser tests, gpt-oss Harmony headers as servers'
parsers test them (the recipient before the channel, ``<|constrain|>json`` with and without a space, a
recipient outside the ``functions.`` namespace), and Ollama's Go parsers' tests (Cogito, Ministral 3,
Nemotron 3 Nano, GLM-4.7, OLMo 3, FunctionGemma).

Each case names its source beside it; docs/real-world-cases.md lists them by id. Outputs are
quoted as the source shows them; where a case is rebuilt from a format the source documents, its
comment says so.
"""


import pytest

from agent_core.turn import FinalAnswer
from tests.unit.test_real_world_2026 import (
    Case,
    assert_shown_or_runs_nothing,
    reply_test,
    tool,
)
from tests.unit.test_real_world_2026d import read

WEATHER = tool("get_weather", "city")
NS = "]<]minimax[>["
DS_CALLS, DS_END = "<｜DSML｜tool_calls>", "</｜DSML｜tool_calls>"
COGITO_CALL = (
    "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n"
    '{"location":"Paris"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
)


def _minimax_m3_invocation(user_id: int) -> str:
    """vLLM's ``build_order_invocation`` in tests/tool_parsers/test_minimax_m3_tool_parser.py."""
    return f'{NS}<invoke name="create_order">{NS}<user_id>{user_id}{NS}</user_id>{NS}</invoke>'


CASES = {
    # ---- Kimi K3 (XTML) -------------------------------------------------------------------------------
    # K3's call format as vLLM's kimi_k3 tool parser documents it (vllm/tool_parsers/
    # kimi_k3_tool_parser.py): a tools channel of calls, each argument typed; a runtime's test
    # (dlengine's kimi_k3 parser test) with reasoning, the response channel and a Chinese value, verbatim
    "dlengine-kimik3-think-response-tools": Case(
        (tool("weather", "city", "days"),),
        "<|open|>think<|sep|>reason<|close|>think<|sep|><|open|>response<|sep|>answer<|close|>response<|sep|>"
        '<|open|>tools<|sep|><|open|>call tool="weather" index="1"<|sep|>'
        '<|open|>argument key="city" type="string"<|sep|>北京<|close|>argument<|sep|>'
        '<|open|>argument key="days" type="integer"<|sep|>2<|close|>argument<|sep|>'
        "<|close|>call<|sep|><|close|>tools<|sep|>",
        calls=[("weather", {"city": "北京", "days": 2})],
        hidden=("<|open|>", "<|sep|>", "reason"),
    ),
    # an agent runtime's "kimi model runtime XTML recovery" test (pi-ai based): K3's markup leaked
    # into the text after a sentence, the response channel opened mid-reply, text after the block,
    # verbatim
    "pi-kimik3-leaked-xtml-between-sentences": Case(
        (tool("Echo", "value"),),
        "Checking the weather.<|close|>think<|sep|><|open|>response<|sep|>Sure, one moment.<|open|>tools<|sep|>"
        '<|open|>call tool="Echo" index="1"<|sep|>'
        '<|open|>argument key="value" type="string"<|sep|>hello<|close|>argument<|sep|>'
        "<|close|>call<|sep|><|close|>tools<|sep|>Done.",
        calls=[("Echo", {"value": "hello"})],
        hidden=("<|",),
    ),
    # a Dart runtime's (llamadart) Kimi K3 test: a string argument with spaces kept raw, a number,
    # the message-close marker, verbatim (its tool name's escaped "&amp;" left out)
    "llamadart-kimik3-raw-string-and-number": Case(
        (tool("weather", "city", "days"),),
        "<|open|>response<|sep|>On it.<|close|>response<|sep|><|open|>tools<|sep|>"
        '<|open|>call tool="weather" index="1"<|sep|>'
        '<|open|>argument key="city" type="string"<|sep|> New York <|close|>argument<|sep|>'
        '<|open|>argument key="days" type="number"<|sep|>2<|close|>argument<|sep|>'
        "<|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>",
        calls=[("weather", {"city": " New York ", "days": 2})],
        hidden=("<|open|>", "<|sep|>"),
    ),
    # a K3 server's test (required tool choice): the response channel opened by the prompt, closed
    # empty, then one call whose arguments come as one json block, verbatim
    "kimik3-required-json-block-call": Case(
        (WEATHER,),
        '<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|>'
        '<|open|>json type="object"<|sep|>{"city":"杭州"}<|close|>json<|sep|><|close|>call<|sep|>'
        "<|close|>tools<|sep|>",
        calls=[("get_weather", {"city": "杭州"})],
        hidden=("<|",),
    ),
    # vLLM's kimi_k3 parser (``_strip_response_content``): the response channel's opener is the
    # prompt's, so the reply is the body, its closer and the message's end (rebuilt from the docstring)
    "vllm-kimik3-consumed-response-prefix": Case(
        (WEATHER,),
        "It is sunny in Paris.<|close|>response<|sep|><|close|>message<|sep|>",
        answer="It is sunny in Paris.",
        hidden=("<|",),
    ),
    # the same parser: a whole response channel, then the message's end (rebuilt)
    "vllm-kimik3-whole-response-channel": Case(
        (WEATHER,),
        "<|open|>response<|sep|>It is sunny in Paris.<|close|>response<|sep|><|close|>message<|sep|>",
        answer="It is sunny in Paris.",
        hidden=("<|",),
    ),
    # ---- Kimi K2.5 -----------------------------------------------------------------------------------
    # Kimi K2.5's leaked call as an agent's kimi-tool-parser documents it: the call id's place
    # taken by the bare name and the arguments in a ```json fence, no argument token (rebuilt)
    "kimik25-leaked-call-json-fence": Case(
        (WEATHER,),
        "<|tool_calls_section_begin|>\n<|tool_call_begin|>functions.get_weather\n```json\n"
        '{"city": "Paris"}\n```\n<|tool_call_end|>\n<|tool_calls_section_end|>',
        calls=[("get_weather", {"city": "Paris"})],
        hidden=("<|tool_call",),
    ),
    # ---- MiniMax-M3 ----------------------------------------------------------------------------------
    # vllm-project/vllm tests/tool_parsers/test_minimax_m3_tool_parser.py: two invocations in one
    # block (``build_multiple_order_call``), verbatim
    "vllm-minimaxm3-two-invocations": Case(
        (tool("create_order", "user_id"),),
        f"{NS}<tool_call>\n{_minimax_m3_invocation(1)}\n{_minimax_m3_invocation(2)}\n{NS}</tool_call>",
        calls=[("create_order", {"user_id": "1"}), ("create_order", {"user_id": "2"})],
        hidden=("minimax", "<invoke"),
    ),
    # the same test: text, then a call of flat element arguments (the test's ``build_order_call``
    # cut to its flat arguments)
    "vllm-minimaxm3-call-after-text": Case(
        (tool("create_order", "user_id", "urgent", "note"),),
        f"I will create it.\n{NS}<tool_call>\n"
        f'{NS}<invoke name="create_order">{NS}<user_id>42{NS}</user_id>{NS}<urgent>true{NS}</urgent>'
        f"{NS}<note>Please leave at front desk.{NS}</note>{NS}</invoke>\n{NS}</tool_call>",
        calls=[("create_order", {"user_id": "42", "urgent": "true", "note": "Please leave at front desk."})],
        hidden=("minimax", "<invoke"),
    ),
    # ---- DeepSeek V4 ---------------------------------------------------------------------------------
    # vllm-project/vllm tests/tool_parsers/test_deepseekv4_tool_parser.py: text, then a call
    # (``build_tool_call`` written out), verbatim
    "vllm-dsv4-call-after-text": Case(
        (tool("get_weather", "location", "unit"),),
        "Let me check. " + DS_CALLS + '\n<｜DSML｜invoke name="get_weather">\n'
        '<｜DSML｜parameter name="location" string="true">Beijing</｜DSML｜parameter>\n'
        '<｜DSML｜parameter name="unit" string="true">celsius</｜DSML｜parameter>\n</｜DSML｜invoke>\n' + DS_END,
        calls=[("get_weather", {"location": "Beijing", "unit": "celsius"})],
        hidden=("DSML",),
    ),
    # the same test: V3.2's "function_calls" wrapper, which V4's parser refuses; the node reads it
    # (V3.2's own form), verbatim
    "vllm-dsv4-function-calls-wrapper": Case(
        (tool("search", "query"),),
        '<｜DSML｜function_calls>\n<｜DSML｜invoke name="search">\n'
        '<｜DSML｜parameter name="query" string="true">vllm</｜DSML｜parameter>\n</｜DSML｜invoke>\n'
        "</｜DSML｜function_calls>",
        calls=[("search", {"query": "vllm"})],
        hidden=("DSML",),
    ),
    # AgentFlocks/flocks PR #687: DeepSeek V4 wraps its calls in a "tool_use" element (rebuilt from
    # the pull request's description with V4's documented invoke)
    "flocks687-dsv4-tool-use-wrapper": Case(
        (WEATHER,),
        '<｜DSML｜tool_use>\n<｜DSML｜invoke name="get_weather">\n'
        '<｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>\n</｜DSML｜invoke>\n'
        "</｜DSML｜tool_use>",
        calls=[("get_weather", {"city": "Paris"})],
        hidden=("DSML",),
    ),
    # ---- gpt-oss Harmony -------------------------------------------------------------------------------
    # sgl-project's router, test_harmony_parser_basic: analysis, then a commentary call with
    # "<|constrain|>json" after a space, never closed by <|call|>, verbatim (its indent kept)
    "sglang-harmony-constrain-json-unclosed": Case(
        (tool("get_current_weather", "location", "unit"),),
        "\n        <|channel|>analysis<|message|>Need to use function get_current_weather.<|end|><|start|>assistant"
        "<|channel|>commentary to=functions.get_current_weather <|constrain|>json<|message|>"
        '{"location":"San Francisco", "unit":"fahrenheit"}',
        calls=[("get_current_weather", {"location": "San Francisco", "unit": "fahrenheit"})],
        hidden=("<|", "Need to use"),
    ),
    # vLLM's openai tool parser test (split deltas): the recipient in the role header and
    # "<|constrain|>json" glued to the channel, verbatim
    "vllm-harmony-recipient-in-header-constrain-nospace": Case(
        (tool("get_weather", "location"),),
        "<|channel|>analysis<|message|>Thinking<|end|><|start|>assistant to=functions.get_weather<|channel|>commentary"
        '<|constrain|>json<|message|>{"location": "Paris"}<|call|>',
        calls=[("get_weather", {"location": "Paris"})],
        hidden=("<|", "Thinking"),
    ),
    # llama.cpp's form as a C# Harmony splitter tests it: the prompt ends in "<|start|>assistant",
    # the reply opens with the recipient, "json" without <|constrain|>, verbatim
    "harmony-reply-opens-with-recipient": Case(
        (WEATHER,),
        ' to=functions.get_weather<|channel|>commentary json<|message|>{"city":"Rome"}<|call|>',
        calls=[("get_weather", {"city": "Rome"})],
        hidden=("to=functions", "<|"),
    ),
    # a Harmony evaluation suite's samples: a recipient outside the functions namespace
    # ("to=Weather"), the call ended by <|end|>, verbatim
    "harmony-recipient-without-namespace": Case(
        (tool("Weather", "location"),),
        "<|start|>assistant<|channel|>analysis<|message|>I need to know the weather in Paris.<|end|><|start|>assistant"
        '<|channel|>commentary to=Weather<|constrain|>json<|message|>{"location": "Paris"}<|end|>',
        calls=[("Weather", {"location": "Paris"})],
        hidden=("<|", "I need to know"),
    ),
    # a Harmony server test: the final channel after a call's result, ended by <|return|>, verbatim
    "harmony-final-channel-return": Case(
        (WEATHER,),
        "<|channel|>final<|message|>It is 18C.<|return|>",
        answer="It is 18C.",
        hidden=("<|",),
    ),
    # ---- Ollama's Go parsers ---------------------------------------------------------------------------
    # ollama/ollama model/parsers/cogito_test.go, tool_call_simple: DeepSeek V3's tokens with
    # "function" and the arguments in a ```json fence, verbatim
    "ollama-cogito-tool-call-simple": Case(
        (tool("get_weather", "location"),), COGITO_CALL,
        calls=[("get_weather", {"location": "Paris"})],
        hidden=("tool▁",),
    ),
    # the same test, thinking_with_tool_call: the reasoning closed by a bare </think>, verbatim
    "ollama-cogito-thinking-then-call": Case(
        (tool("get_weather", "location"),), "I need to check the weather.</think>" + COGITO_CALL,
        calls=[("get_weather", {"location": "Paris"})],
        hidden=("tool▁", "I need to check"),
    ),
    # the same test, multiple_tool_calls, verbatim
    "ollama-cogito-two-calls": Case(
        (tool("get_weather", "location"),),
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n"
        '{"location":"Paris"}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n'
        '```json\n{"location":"London"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
        calls=[("get_weather", {"location": "Paris"}), ("get_weather", {"location": "London"})],
        hidden=("tool▁",),
    ),
    # the same file's streaming test: reasoning, a sentence, then the call glued to it, verbatim
    "ollama-cogito-content-then-call": Case(
        (tool("test_tool", "arg"),),
        "This is thinking content.</think>This is content.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function"
        '<｜tool▁sep｜>test_tool\n```json\n{"arg":"value"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
        calls=[("test_tool", {"arg": "value"})],
        hidden=("tool▁", "thinking content"),
    ),
    # ollama/ollama model/parsers/ministral_test.go: Ministral 3's [TOOL_CALLS]NAME[ARGS]{...}, verbatim
    "ollama-ministral-simple-call": Case(
        (tool("get_weather", "location"),),
        '[TOOL_CALLS]get_weather[ARGS]{"location": "San Francisco"}',
        calls=[("get_weather", {"location": "San Francisco"})],
        hidden=("[ARGS]",),
    ),
    # the same test: braces inside a string value, verbatim
    "ollama-ministral-braces-in-string": Case(
        (tool("format", "template"),),
        '[TOOL_CALLS]format[ARGS]{"template": "Hello {name}!"}',
        calls=[("format", {"template": "Hello {name}!"})],
        hidden=("[ARGS]",),
    ),
    # the same test: a nested object argument, verbatim
    "ollama-ministral-nested-object": Case(
        (tool("update_config", "settings"),),
        '[TOOL_CALLS]update_config[ARGS]{"settings": {"user": {"profile": {"name": "John", "age": 30}}, "theme": "dark"}}',
        calls=[("update_config", {"settings": {"user": {"profile": {"name": "John", "age": 30}}, "theme": "dark"}})],
        hidden=("[ARGS]",),
    ),
    # the same test: an escaped backslash path, verbatim
    "ollama-ministral-backslash-path": Case(
        (tool("path", "dir"),),
        '[TOOL_CALLS]path[ARGS]{"dir": "C:\\\\Users\\\\test"}',
        calls=[("path", {"dir": "C:\\Users\\test"})],
        hidden=("[ARGS]",),
    ),
    # ollama/ollama model/parsers/nemotron3nano_test.go: reasoning closed by a bare </think>, a
    # sentence, then a Qwen3-Coder call, verbatim
    "ollama-nemotron3nano-thinking-content-call": Case(
        (tool("search", "query"),),
        "Let me think...</think>\nI'll check for you.\n<tool_call>\n<function=search>\n<parameter=query>\ntest\n"
        "</parameter>\n</function>\n</tool_call>",
        calls=[("search", {"query": "test"})],
        hidden=("<function=", "Let me think"),
    ),
    # the same test: a zero-argument call right after the reasoning, verbatim
    "ollama-nemotron3nano-zero-arg-after-think": Case(
        (tool("test"),),
        "Analyzing...</think>\n<tool_call>\n<function=test>\n</function>\n</tool_call>",
        calls=[("test", {})],
        hidden=("<function=", "Analyzing"),
    ),
    # the same test: thinking on, no </think>: the sentence before the call, verbatim
    "ollama-nemotron3nano-call-without-think-close": Case(
        (WEATHER,),
        "Let me analyze this.\n<tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n</function>\n"
        "</tool_call>",
        calls=[("get_weather", {"city": "Paris"})],
        hidden=("<function=",),
    ),
    # the same test: an empty reasoning block, then the answer, verbatim
    "ollama-nemotron3nano-empty-think-block": Case(
        (WEATHER,),
        "<think></think>\nHere is my answer.",
        answer="Here is my answer.",
        hidden=("think>",),
    ),
    # the same test: a bare </think> with only whitespace before the answer, verbatim
    "ollama-nemotron3nano-whitespace-after-think-close": Case(
        (WEATHER,),
        "My thoughts...</think>   \n\t\n   Content here.",
        answer="Content here.",
        hidden=("My thoughts", "think>"),
    ),
}


GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md
}


test_real_world_reply = reply_test(CASES, GAPS, read)




# ---- the same shapes as an answer's text: no call runs ------------------------------------------

XTML_CALL = (
    '<|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|><|open|>argument key="city" '
    'type="string"<|sep|>Paris<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>'
)
NOT_CALLS = {
    # Kimi K3's tools channel shown: in a code span, in a fence; naming no node tool
    # (in a code span ReAct's reader drops the ``<|word|>`` tokens, as it drops other special tokens
    # wherever they stand: the answer is shown without them, no call runs; exact text in Function
    # Calling only)
    "kimik3-xtml-in-a-code-span": (WEATHER, f"K3 writes `{XTML_CALL}` for a call.", ("fc",)),
    "kimik3-xtml-in-a-fence": (WEATHER, f"K3's call:\n\n```\n{XTML_CALL}\n```"),
    "kimik3-xtml-no-node-tool": (WEATHER, XTML_CALL.replace("get_weather", "get_time")),
    # K2.5's fenced form in a code block the answer shows
    "kimik25-fenced-call-in-a-fence": (
        WEATHER, "The leak:\n\n````\n<|tool_call_begin|>functions.get_weather\n```json\n{\"city\": \"Paris\"}\n```\n"
                 "<|tool_call_end|>\n````"),
    # DeepSeek V4's tool_use wrapper in a code span
    "dsv4-tool-use-in-a-code-span": (WEATHER, "V4 sometimes opens with `<｜DSML｜tool_use>` instead."),
    # the recipient before the channel inside a sentence, in a code span
    "harmony-recipient-before-channel-in-a-code-span": (
        WEATHER, "The reply starts ` to=functions.get_weather<|channel|>commentary json` after the prompt.", ("fc",)),
    "harmony-recipient-before-channel-in-a-sentence": (
        WEATHER, "It wrote to=functions.get_weather<|channel|> and stopped."),
}


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("strategy", ["react", "fc"])
@pytest.mark.parametrize("name", list(NOT_CALLS))
def test_the_shape_shown_as_text_runs_nothing(name, strategy, size):
    """No call of the node runs. The text is the answer as written, markup included, except call
    markup outside code that names no node tool: that is asked again, or in ReAct answered as a
    call of an unknown tool, with nothing shown."""
    declared, text, *only = NOT_CALLS[name]
    streamed, turn = read(strategy, Case((declared,), text), size)
    if only and strategy not in only[0]:
        assert isinstance(turn.decision, FinalAnswer)  # shown without its tokens; nothing runs
    else:
        assert_shown_or_runs_nothing(declared, text, streamed, turn)
