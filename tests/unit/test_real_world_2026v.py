"""A twenty-first set of real-world model outputs: the raw text that inference servers' own
tool-call parser tests feed their parsers (2026 additions and changes), through both strategies'
turn readers (as ``test_real_world_2026u``: the text whole and in pieces of 1 and 7 characters).
That raw text is what reaches the plugin through an OpenAI-compatible endpoint when the server runs
without the family's parsers. Sources: SGLang's DeepSeek V3.1, MiniMax-M2 and K2 V3 (IFM) detector
tests, llama.cpp's per-family parser tests (Seed-OSS, Nemotron Nano v2) and its MiniCPM5 PEG parser
test (see docs/real-world-cases.md).

Each case names its source beside it; docs/real-world-cases.md lists them with the file and
commit. The text is the test's input verbatim (built with the test's own constants where it has
them); the tests' tools are declared here with string parameters, so a value written as markup
text is expected as a string, and a JSON value as the JSON it holds.
"""

import pytest

from tests.unit.test_real_world_2026 import Case, reply_test, tool
from tests.unit.test_real_world_2026g import read

WEATHER = tool("get_weather", "city")

# DeepSeek V3.1's tokens in SGLang's test (test/registered/function_call/test_deepseekv31_detector.py)
SECTION_BEGIN = "<｜tool▁calls▁begin｜>"
SECTION_END = "<｜tool▁calls▁end｜>"
CALL_BEGIN = "<｜tool▁call▁begin｜>"
CALL_END = "<｜tool▁call▁end｜>"
SEP = "<｜tool▁sep｜>"

# MiniMax-M2's tools in SGLang's test (test/registered/function_call/test_minimax_m2_detector.py)
THE_TOOL = tool("the_tool", "args")
CONTEXT_INFO = tool("context_info", "metadata_only")

# K2 V3 (IFM) calls in SGLang's test (test/registered/function_call/test_k2v3_tool_parser.py)
IFM_TOKYO = ("<ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key><ifm|arg_value>Tokyo</ifm|arg_value>"
             "</ifm|tool_call>")

# llama.cpp's Seed-OSS calls (tests/chat-parsers/test-seed-oss.cpp)
SPECIAL = tool("special_function", "arg1")
SEED_SPECIAL = ("<seed:tool_call>\n<function=special_function>\n<parameter=arg1>\n42\n</parameter>\n</function>\n"
                "</seed:tool_call>")
# llama.cpp's Nemotron Nano v2 call (tests/chat-parsers/test-nemotron-v2.cpp)
NEMOTRON_SPECIAL = '<TOOLCALL>[{"name": "special_function", "arguments": {"arg1": 1}}]</TOOLCALL>'

# llama.cpp's MiniCPM5 tools (tests/test-chat-peg-parser-minicpm5.cpp)
PYTHON = tool("python", "code")
TIMESTAMP = tool("get_current_timestamp")

CASES = {
    # ---- DeepSeek V3.1 (SGLang test/registered/function_call/test_deepseekv31_detector.py) --------------
    "sglang-dsv31-two-calls-one-section": Case(
        (WEATHER,), SECTION_BEGIN + CALL_BEGIN + "get_weather" + SEP + '{"city": "Tokyo"}' + CALL_END + CALL_BEGIN
        + "get_weather" + SEP + '{"city": "Paris"}' + CALL_END + SECTION_END,
        calls=[("get_weather", {"city": "Tokyo"}), ("get_weather", {"city": "Paris"})], hidden=("tool▁",),
    ),
    "sglang-dsv31-one-call": Case(
        (WEATHER,), SECTION_BEGIN + CALL_BEGIN + "get_weather" + SEP + '{"city": "Tokyo"}' + CALL_END + SECTION_END,
        calls=[("get_weather", {"city": "Tokyo"})], hidden=("tool▁",),
    ),
    # ---- MiniMax-M2 (SGLang test/registered/function_call/test_minimax_m2_detector.py) ------------------
    "sglang-minimaxm2-string-value-hi": Case(
        (THE_TOOL,), '<minimax:tool_call><invoke name="the_tool"><parameter name="args">hi</parameter></invoke>'
        "</minimax:tool_call>",
        calls=[("the_tool", {"args": "hi"})], hidden=("minimax:", "invoke"),
    ),
    # the section never closed after a closed invoke, text before it
    "sglang-minimaxm2-section-left-open": Case(
        (CONTEXT_INFO,), '[Pasted ~4 lines]<minimax:tool_call><invoke name="context_info"><parameter '
        'name="metadata_only">false</parameter></invoke>',
        calls=[("context_info", {"metadata_only": "false"})], hidden=("minimax:", "invoke", "<parameter"),
    ),
    "sglang-minimaxm2-text-glued-around": Case(
        (CONTEXT_INFO,), 'Here is some text.<minimax:tool_call><invoke name="context_info"><parameter '
        'name="metadata_only">true</parameter></invoke></minimax:tool_call>More text after.',
        calls=[("context_info", {"metadata_only": "true"})], hidden=("minimax:", "invoke"),
    ),
    "sglang-minimaxm2-streamed-text-around": Case(
        (CONTEXT_INFO,), 'Text before <minimax:tool_call><invoke name="context_info"><parameter '
        'name="metadata_only">true</parameter></invoke></minimax:tool_call> Text after',
        calls=[("context_info", {"metadata_only": "true"})], hidden=("minimax:", "invoke"),
    ),
    "sglang-minimaxm2-html-value": Case(
        (tool("process_html", "html"),), '<minimax:tool_call><invoke name="process_html"><parameter name="html">'
        "<div>Hello</div></parameter></invoke></minimax:tool_call>",
        calls=[("process_html", {"html": "<div>Hello</div>"})], hidden=("minimax:",),
    ),
    "sglang-minimaxm2-object-value": Case(
        (tool("complex_func", "data"),), '<minimax:tool_call><invoke name="complex_func"><parameter name="data">'
        '{"key": "value"}</parameter></invoke></minimax:tool_call>',
        calls=[("complex_func", {"data": {"key": "value"}})], hidden=("minimax:",),
    ),
    "sglang-minimaxm2-array-value": Case(
        (tool("array_func", "items"),), '<minimax:tool_call><invoke name="array_func"><parameter name="items">'
        '[1, 2, 3, "four"]</parameter></invoke></minimax:tool_call>',
        calls=[("array_func", {"items": [1, 2, 3, "four"]})], hidden=("minimax:",),
    ),
    # the value holds its own closing tag: SGLang's test expects the whole value when it reads a call
    "sglang-minimaxm2-closing-tag-in-value": Case(
        (tool("test_func", "content"),), '<minimax:tool_call><invoke name="test_func"><parameter name="content">'
        "This text contains </parameter> in it</parameter></invoke></minimax:tool_call>",
        calls=[("test_func", {"content": "This text contains </parameter> in it"})], hidden=("minimax:",),
    ),
    # ---- K2 V3 / IFM (SGLang test/registered/function_call/test_k2v3_tool_parser.py) ---------------------
    # a bare <ifm|tool_call>, no <ifm|tool_calls> group around it
    "sglang-k2v3-bare-xml-call": Case((WEATHER,), IFM_TOKYO, calls=[("get_weather", {"city": "Tokyo"})],
                                      hidden=("ifm|",)),
    "sglang-k2v3-bare-call-no-arguments": Case(
        (WEATHER,), "<ifm|tool_call>get_weather</ifm|tool_call>", calls=[("get_weather", {})], hidden=("ifm|",),
    ),
    "sglang-k2v3-typed-string-value": Case(
        (tool("study_args", "user_id"),), "<ifm|tool_call>study_args<ifm|arg_key>user_id</ifm|arg_key>"
        "<ifm|arg_type>string</ifm|arg_type><ifm|arg_value>12345</ifm|arg_value></ifm|tool_call>",
        calls=[("study_args", {"user_id": "12345"})], hidden=("ifm|",),
    ),
    "sglang-k2v3-reasoning-then-group": Case(
        (WEATHER,), "<ifm|think>need lookup</ifm|think>\n<ifm|tool_calls>\n" + IFM_TOKYO + "\n</ifm|tool_calls>",
        calls=[("get_weather", {"city": "Tokyo"})], hidden=("ifm|", "need lookup"),
    ),
    **{
        f"sglang-k2v3-{think.replace('_', '-')}-block-then-bare-call": Case(
            (WEATHER,), f"<ifm|{think}>reasoning</ifm|{think}>" + IFM_TOKYO,
            calls=[("get_weather", {"city": "Tokyo"})], hidden=("ifm|", "reasoning"),
        )
        for think in ("think", "think_fast", "think_faster")
    },
    # a <think> block (not IFM's) before the bare call: SGLang shows it; the plugin takes it as reasoning
    "sglang-k2v3-legacy-think-then-bare-call": Case(
        (WEATHER,), "<think>legacy reasoning</think>\n" + IFM_TOKYO, calls=[("get_weather", {"city": "Tokyo"})],
        hidden=("ifm|",),
    ),
    "sglang-k2v3-json-call": Case(
        (WEATHER,), '<ifm|tool_call>{"name": "get_weather", "arguments": {"city": "Tokyo"}}</ifm|tool_call>',
        calls=[("get_weather", {"city": "Tokyo"})], hidden=("ifm|",),
    ),
    "sglang-k2v3-json-arguments-as-string": Case(
        (WEATHER,), '<ifm|tool_call>{"name": "get_weather", "arguments": "{\\"city\\": \\"Tokyo\\"}"}</ifm|tool_call>',
        calls=[("get_weather", {"city": "Tokyo"})], hidden=("ifm|",),
    ),
    "sglang-k2v3-json-list-in-one-call": Case(
        (WEATHER,), '<ifm|tool_call>[{"name": "get_weather", "arguments": {"city": "Tokyo"}}, {"name": "get_weather", '
        '"arguments": {"city": "Osaka"}}]</ifm|tool_call>',
        calls=[("get_weather", {"city": "Tokyo"}), ("get_weather", {"city": "Osaka"})], hidden=("ifm|",),
    ),
    "sglang-k2v3-wire-output": Case(
        (WEATHER,), "<ifm|think>looking it up</ifm|think>" + IFM_TOKYO, calls=[("get_weather", {"city": "Tokyo"})],
        hidden=("ifm|", "looking it up"),
    ),
    # ---- Seed-OSS (llama.cpp tests/chat-parsers/test-seed-oss.cpp) ---------------------------------------
    # a budget reflection after the reasoning: llama.cpp keeps it in the content
    "llamacpp-seedoss-budget-reflect": Case(
        (SPECIAL,), "<seed:think>Token usage: 45/1000\nI should continue thinking to find the best solution.</seed:think>"
        "<seed:cot_budget_reflect>Token usage: 45/1000\nI should continue thinking to find the best solution."
        "</seed:cot_budget_reflect>I need to calculate this step by step.",
        answer="I need to calculate this step by step.", hidden=("seed:", "Token usage"),
    ),
    "llamacpp-seedoss-one-call": Case(
        (SPECIAL,), SEED_SPECIAL, calls=[("special_function", {"arg1": "42"})], hidden=("seed:", "<function"),
    ),
    "llamacpp-seedoss-two-parameters": Case(
        (tool("process_data", "input", "format"),), "<seed:tool_call>\n<function=process_data>\n<parameter=input>\n"
        "test\n</parameter>\n<parameter=format>\njson\n</parameter>\n</function>\n</seed:tool_call>",
        calls=[("process_data", {"input": "test", "format": "json"})], hidden=("seed:", "<function"),
    ),
    "llamacpp-seedoss-reasoning-then-call": Case(
        (SPECIAL,), "<seed:think>I need to call the special function</seed:think>" + SEED_SPECIAL,
        calls=[("special_function", {"arg1": "42"})], hidden=("seed:", "<function"),
    ),
    # the section never closed (the test's delta input, whole)
    "llamacpp-seedoss-section-left-open": Case(
        (SPECIAL,), SEED_SPECIAL.removesuffix("\n</seed:tool_call>"), calls=[("special_function", {"arg1": "42"})],
        hidden=("seed:", "<function"),
    ),
    # ---- Nemotron Nano v2 (llama.cpp tests/chat-parsers/test-nemotron-v2.cpp) ----------------------------
    "llamacpp-nemotronv2-call": Case(
        (SPECIAL,), NEMOTRON_SPECIAL, calls=[("special_function", {"arg1": 1})], hidden=("TOOLCALL",),
    ),
    "llamacpp-nemotronv2-think-then-call": Case(
        (SPECIAL,), "<think>I'm\nthinking</think>" + NEMOTRON_SPECIAL, calls=[("special_function", {"arg1": 1})],
        hidden=("TOOLCALL", "thinking"),
    ),
    # text after the call: llama.cpp reads the call and keeps the text as content
    "llamacpp-nemotronv2-call-then-text": Case(
        (SPECIAL,), NEMOTRON_SPECIAL + "Hello, world!\nWhat's up?", calls=[("special_function", {"arg1": 1})],
        hidden=("TOOLCALL",),
    ),
    "llamacpp-nemotronv2-think-call-then-text": Case(
        (SPECIAL,), "<think>I'm\nthinking</think>" + NEMOTRON_SPECIAL + "Hello, world!\nWhat's up?",
        calls=[("special_function", {"arg1": 1})], hidden=("TOOLCALL", "thinking"),
    ),
    "llamacpp-nemotronv2-think-then-answer": Case(
        (SPECIAL,), "<think>I'm\nthinking</think>Hello, world!\nWhat's up?", answer="Hello, world!\nWhat's up?",
        hidden=("think", "I'm"),
    ),
    # ---- MiniCPM5 (llama.cpp tests/test-chat-peg-parser-minicpm5.cpp; the generation prompt left out) ----
    "llamacpp-minicpm5-python-call": Case(
        (PYTHON, TIMESTAMP), "<function name=\"python\"><param name=\"code\">print('Hello, World!')</param></function>",
        calls=[("python", {"code": "print('Hello, World!')"})], hidden=("<function", "<param"),
    ),
    "llamacpp-minicpm5-no-arguments": Case(
        (PYTHON, TIMESTAMP), '<function name="get_current_timestamp"></function>', calls=[("get_current_timestamp", {})],
        hidden=("<function",),
    ),
}


GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md
}


test_real_world_reply = reply_test(CASES, GAPS, read)


def _calls(turn) -> list:
    return [(c.name, c.arguments) for c in getattr(turn.decision, "calls", ())]


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_bare_ifm_call_runs_only_when_closed_and_named(strategy):
    """A bare ``<ifm|tool_call>`` the reply never closed runs nothing (its value may be cut), nor
    does one naming no tool of the node (SGLang forwards it; the plugin never runs a name it was
    not given); two closed ones back to back both run, in order."""
    cut = "<ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key><ifm|arg_value>Tok"
    unknown = IFM_TOKYO.replace("get_weather", "not_registered")
    for size in (None, 1, 7):
        _, turn = read(strategy, Case((WEATHER,), cut), size)
        assert _calls(turn) == []
        _, turn = read(strategy, Case((WEATHER,), unknown), size)
        assert all(name != "not_registered" or strategy == "react" for name, _ in _calls(turn))
        assert ("get_weather", {"city": "Tokyo"}) not in _calls(turn)
        _, turn = read(strategy, Case((WEATHER,), IFM_TOKYO + IFM_TOKYO.replace("Tokyo", "Osaka")), size)
        assert _calls(turn) == [("get_weather", {"city": "Tokyo"}), ("get_weather", {"city": "Osaka"})]


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_minimax_parameter_close_in_value(strategy):
    """A MiniMax-M2 value runs past a ``</parameter>`` that text follows (the value quotes the
    tag), not past a doubled one; the next parameter stays its own."""
    edit = tool("edit", "old", "new")
    cases = {
        '<minimax:tool_call><invoke name="edit"><parameter name="old">a</parameter> b</parameter>\n'
        '<parameter name="new">c</parameter></invoke></minimax:tool_call>': {"old": "a</parameter> b", "new": "c"},
        '<minimax:tool_call><invoke name="edit"><parameter name="old">a</parameter></parameter>\n'
        '<parameter name="new">c</parameter></invoke></minimax:tool_call>': {"old": "a", "new": "c"},
    }
    for text, arguments in cases.items():
        for size in (None, 1, 7):
            _, turn = read(strategy, Case((edit,), text), size)
            assert _calls(turn) == [("edit", arguments)]


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_seed_budget_note_is_never_the_answer(strategy):
    """Seed-OSS's budget note, inside its reasoning or after it, is left out of the answer the
    user sees, as its reasoning is; the answer's own text around it stays."""
    note = "<seed:cot_budget_reflect>I have used 129 tokens, and there are 383 tokens remaining.</seed:cot_budget_reflect>"
    replies = {
        f"<seed:think>Let me think.{note}Keep going.</seed:think>The answer is 4.": "The answer is 4.",
        f"{note}The answer is 4.": "The answer is 4.",
    }
    for content, answer in replies.items():
        content = content if strategy == "fc" else content.replace("The answer", "Final Answer: The answer")
        for size in (None, 1, 7):
            streamed, turn = read(strategy, Case((WEATHER,), content), size)
            assert turn.decision.text == answer
            assert streamed.strip() == answer
