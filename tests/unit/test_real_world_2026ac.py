"""A twenty-eighth set of real-world model outputs: the raw tool-call and reasoning text of the
newest open models as their serving projects' parsers and tests show it (vLLM's OpenPangu V2,
Nemotron JSON, HyperCLOVAX-SEED-Think-14B, CWM, RWKV, HY V4 and Spark3 parsers; SGLang's Inkling,
BerryLM, Trinity and GLM-5.3-Flash detectors), read through both strategies' turn readers (as
``test_real_world_2026w``: the text whole and in pieces of 1 and 7 characters).

Each case names its source beside it; docs/real-world-cases.md lists them with the commit read.
A text is quoted as the source's test or docstring writes it; where the source shows a format and
its values were filled in, the comment says "rebuilt". The tools are declared here with string
parameters, so a value written as markup text is expected as a string, and a JSON value as the
JSON it holds.
"""


import pytest

from agent_core.turn import FinalAnswer, ToolCalls
from tests.unit.test_real_world_2026 import Case, check_answer_shown_whole, reply_test, tool
from tests.unit.test_real_world_2026d import read

WEATHER = tool("get_weather", "city")
SEARCH = tool("search", "query")
GET_TIME = tool("get_time")

PANGU_OPEN, PANGU_CLOSE = "<|tool_call_start|>", "<|tool_call_end|>"
HCX_HEADER, IM_END = " -> tool/function_call\n", "<|im_end|>"
INK_MODEL, INK_JSON, INK_END = "<|message_model|>", "<|content_invoke_tool_json|>", "<|end_message|>"


def _inkling(header: str, name: str, args: str) -> str:
    """One Inkling call message: the header name, the JSON token, ``{"name", "args"}``, the end."""
    return f'{header}{INK_JSON}{{"name":"{name}","args":{args}}}{INK_END}'


def _rwkv(name: str, arguments: str) -> str:
    """One RWKV call as vLLM's ``rwkv`` parser test builds it: a bold label over a JSON fence."""
    return f'**Tool Call:**\n```json\n{{\n  "name": "{name}",\n  "arguments": {arguments}\n}}\n```'


CASES = {
    # ---- OpenPangu V2 (vLLM tests/tool_parsers/test_openpanguv2_tool_parser.py) -----------------
    # a JSON list of calls between LFM2-style tokens, a thought glued before it (verbatim)
    "vllm-openpangu2-thought-then-call": Case(
        (WEATHER,), "Thought: I need to check weather." + PANGU_OPEN
        + '[{"name": "get_weather", "arguments": {"city": "Beijing"}}]' + PANGU_CLOSE,
        calls=[("get_weather", {"city": "Beijing"})], hidden=("tool_call_start", '"arguments"'),
    ),
    "vllm-openpangu2-two-calls-in-one-list": Case(
        (WEATHER, SEARCH), "Let me help you." + PANGU_OPEN + '[{"name": "get_weather", "arguments": {"city": "Beijing"}}, '
        '{"name": "search", "arguments": {"query": "weather forecast"}}]' + PANGU_CLOSE,
        calls=[("get_weather", {"city": "Beijing"}), ("search", {"query": "weather forecast"})],
        hidden=("tool_call_start", '"arguments"'),
    ),
    # vLLM rejects a lone object (its format is a list); the tokens mark it a call, so it runs here
    "vllm-openpangu2-single-object": Case(
        (WEATHER,), PANGU_OPEN + '{"name": "get_weather", "arguments": {"city": "Beijing"}}' + PANGU_CLOSE,
        calls=[("get_weather", {"city": "Beijing"})], hidden=("tool_call_start",),
    ),
    # the streaming test's pieces joined: a call with empty arguments, a blank before "]"
    "vllm-openpangu2-empty-arguments": Case(
        (GET_TIME,), PANGU_OPEN + '[{"name": "get_time", "arguments": {}} ]' + PANGU_CLOSE,
        calls=[("get_time", {})], hidden=("tool_call_start",),
    ),
    # a double colon: no JSON, nothing runs, nothing shown (ReAct answers it as a call of the
    # unknown tool "error", which runs nothing either)
    "vllm-openpangu2-json-syntax-error": Case(
        (WEATHER,), PANGU_OPEN + '[{"name":: "error"}]' + PANGU_CLOSE, fallback="", hidden=("tool_call_start",),
        only=("fc",),
    ),
    # only the start token: the reply cut before the call's arguments (vLLM shows it as text)
    "vllm-openpangu2-cut-before-arguments": Case(
        (WEATHER,), PANGU_OPEN + '[{"name": "get_weather"', fallback="", hidden=("tool_call_start",),
    ),
    # ---- Nemotron JSON (vLLM tests/tool_parsers/test_nemotron_json_tool_parser.py) -------------
    "vllm-nemotron-json-think-then-toolcall": Case(
        (WEATHER,), "<think>\nI need the weather for Tokyo.\n</think>\n"
        '<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Tokyo"}}]</TOOLCALL>',
        calls=[("get_weather", {"city": "Tokyo"})], hidden=("TOOLCALL", "I need the weather"),
    ),
    "vllm-nemotron-json-arguments-as-a-string": Case(
        (tool("run_query", "sql"),), '<TOOLCALL>[{"name": "run_query", "arguments": "{\\"sql\\": \\"select 1\\"}"}]</TOOLCALL>',
        calls=[("run_query", {"sql": "select 1"})], hidden=("TOOLCALL",),
    ),
    "vllm-nemotron-json-single-object": Case(
        (tool("lookup", "query"),), '<TOOLCALL>{"name": "lookup", "arguments": {"query": "vllm"}}</TOOLCALL>',
        calls=[("lookup", {"query": "vllm"})], hidden=("TOOLCALL",),
    ),
    "vllm-nemotron-json-two-calls": Case(
        (WEATHER, tool("lookup_timezone", "city")), '<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Tokyo"}}, '
        '{"name": "lookup_timezone", "arguments": {"city": "Tokyo"}}]</TOOLCALL>',
        calls=[("get_weather", {"city": "Tokyo"}), ("lookup_timezone", {"city": "Tokyo"})], hidden=("TOOLCALL",),
    ),
    # the list never closed: nothing runs, nothing shown
    "vllm-nemotron-json-malformed": Case(
        (tool("broken"),), '<TOOLCALL>[{"name": "broken", "arguments": {}</TOOLCALL>', fallback="", hidden=("TOOLCALL",),
    ),
    # ---- HyperCLOVAX-SEED-Think-14B (vLLM tests/tool_parsers/test_hyperclovax_seed_think_14b_tool_parser.py)
    "vllm-hcx14b-header-then-list": Case(
        (WEATHER,), HCX_HEADER + '[{"name": "get_weather", "arguments": {"city": "Seoul"}}]' + IM_END,
        calls=[("get_weather", {"city": "Seoul"})], hidden=("tool/function_call", '"arguments"'),
    ),
    "vllm-hcx14b-parameters-alias": Case(
        (WEATHER,), HCX_HEADER + '[{"name": "get_weather", "parameters": {"city": "Seoul"}}]' + IM_END,
        calls=[("get_weather", {"city": "Seoul"})], hidden=("tool/function_call", '"parameters"'),
    ),
    "vllm-hcx14b-two-calls": Case(
        (tool("a", "x"), tool("b", "y")), HCX_HEADER + '[{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": {"y": 2}}]'
        + IM_END,
        calls=[("a", {"x": 1}), ("b", {"y": 2})], hidden=("tool/function_call",),
    ),
    # the list alone, as vLLM's reasoning parser hands it on once it has taken the header
    "vllm-hcx14b-bare-list": Case(
        (WEATHER,), '[{"name": "get_weather", "parameters": {"city": "Busan"}}]',
        calls=[("get_weather", {"city": "Busan"})], hidden=('"parameters"',),
    ),
    # the abbreviated form the model writes with tool_choice "auto": the tool's name in the
    # header and its arguments alone below it; vLLM shows it as text
    "vllm-hcx14b-abbreviated-form": Case(
        (tool("get_current_weather", "city"),), '-> tool/get_current_weather\n{"city": "Seoul"}', fallback="",
        hidden=("-> tool/",),
    ),
    # ---- CWM (vLLM tests/tool_parsers/test_csm_tool_parser.py, the cwm parser's tests) ----------
    "vllm-cwm-terminal-block": Case(
        (tool("terminal", "command"),), "<think>Let me search.</think>\n<tool: function>\n"
        'terminal find . -name "*.py" | xargs grep -n "def bulk_create"\n</tool>\n',
        calls=[("terminal", {"command": 'find . -name "*.py" | xargs grep -n "def bulk_create"'})],
        hidden=("<tool:", "Let me search"),
    ),
    "vllm-cwm-shorthand-label-as-name": Case(
        (tool("python", "command"),), 'prefix\n</think> <tool: python import os; print(os.listdir("_pytest")) </tool>\n',
        calls=[("python", {"command": 'import os; print(os.listdir("_pytest"))'})], hidden=("<tool:", "prefix"),
    ),
    # ---- RWKV (vLLM tests/tool_parsers/test_rwkv_tool_parser.py) --------------------------------
    "vllm-rwkv-labelled-json-fence": Case(
        (WEATHER,), _rwkv("get_weather", '{\n    "city": "Paris"\n  }'),
        calls=[("get_weather", {"city": "Paris"})], hidden=("```", '"arguments"'),
    ),
    "vllm-rwkv-two-labelled-fences": Case(
        (WEATHER, tool("get_forecast", "city")),
        _rwkv("get_weather", '{\n    "city": "Paris"\n  }') + "\n" + _rwkv("get_forecast", '{\n    "city": "Berlin"\n  }'),
        calls=[("get_weather", {"city": "Paris"}), ("get_forecast", {"city": "Berlin"})], hidden=("```", '"arguments"'),
    ),
    "vllm-rwkv-think-end-then-fence-string-arguments": Case(
        (WEATHER,), 'I should check the weather.</think>\n```json\n{\n  "name": "get_weather",\n'
        '  "arguments": "{\\"city\\": \\"Paris\\"}",\n  "id": "call_123"\n}\n```',
        calls=[("get_weather", {"city": "Paris"})], hidden=("```", "I should check"),
    ),
    # the legacy form: a Python dict after <tool_call>, never closed (the test's filePath renamed
    # path here: vLLM maps the key for its own agent's tool)
    "vllm-rwkv-legacy-python-dict": Case(
        (tool("read", "path"),), "Need to inspect the file.\n<tool_call>\n{'arguments': {'path': 'calculator.py'}, "
        "'name': 'read', 'type': 'tool_call'}\n",
        calls=[("read", {"path": "calculator.py"})], hidden=("<tool_call>", "'name'"),
    ),
    "vllm-rwkv-bash-fence-is-the-answer": Case(
        (tool("bash", "command"),), "You can run this command manually:\n```bash\n"
        "perl -0pi -e 's/return a - b/return a + b/' /tmp/calculator.py\n```\n",
        answer="You can run this command manually:\n```bash\nperl -0pi -e 's/return a - b/return a + b/' /tmp/calculator.py\n```",
    ),
    # ---- HY V4 (vLLM tests/tool_parsers/test_hy_v4_duplicate_arg_key.py) -----------------------
    # a key written twice in one call: the later value, as vLLM's parser reads it
    "vllm-hyv4-duplicate-arg-key": Case(
        (WEATHER, tool("get_days", "days")),
        "<tool_calls><tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value><arg_key>city</arg_key>"
        "<arg_value>Berlin</arg_value></tool_call><tool_call>get_days<arg_key>days</arg_key><arg_value>1</arg_value>"
        "<arg_key>days</arg_key><arg_value>2</arg_value></tool_call></tool_calls>",
        calls=[("get_weather", {"city": "Berlin"}), ("get_days", {"days": "2"})], hidden=("arg_key",),
    ),
    # ---- Spark3 (vLLM vllm/tool_parsers/spark3_tool_parser.py, rebuilt from its constants) -----
    "vllm-spark3-xml-kv-after-text": Case(
        (WEATHER,), "Checking.<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>",
        calls=[("get_weather", {"city": "Paris"})], hidden=("arg_key",),
    ),
    # ---- Inkling (SGLang python/sglang/srt/function_call/inkling_detector.py) -------------------
    # <|message_model|>NAME<|content_invoke_tool_json|>{"name": NAME, "args": {...}}<|end_message|>
    # (the detector's docstring; values rebuilt)
    "sglang-inkling-header-call": Case(
        (WEATHER, SEARCH), _inkling(INK_MODEL + "get_weather", "get_weather", '{"city":"Paris"}'),
        calls=[("get_weather", {"city": "Paris"})], hidden=("content_invoke", '"args"'),
    ),
    # the first call of a reply: the prompt opened its <|message_model|> (rebuilt)
    "sglang-inkling-call-after-the-prompts-header": Case(
        (WEATHER, SEARCH), _inkling("get_weather", "get_weather", '{"city":"Paris"}'),
        calls=[("get_weather", {"city": "Paris"})], hidden=("content_invoke", '"args"'),
    ),
    # the header names one tool, the payload another: SGLang drops the call; nothing runs here
    "sglang-inkling-header-payload-mismatch": Case(
        (WEATHER, SEARCH), _inkling(INK_MODEL + "search", "get_weather", '{"city":"Paris"}'),
        fallback="", hidden=("content_invoke", '"args"'),
    ),
    # a text message ended by its token (rebuilt)
    "sglang-inkling-answer-end-message": Case(
        (WEATHER,), "The weather is sunny." + INK_END, answer="The weather is sunny.", hidden=("<|",),
    ),
    # a text message, then a call message (rebuilt)
    "sglang-inkling-text-then-call": Case(
        (WEATHER,), "Let me check." + INK_END + _inkling(INK_MODEL + "get_weather", "get_weather", '{"city":"Paris"}'),
        calls=[("get_weather", {"city": "Paris"})], hidden=("content_invoke", '"args"'),
    ),
    # ---- BerryLM (SGLang function_call/berrylm_detector.py: its docstring's shape, values rebuilt)
    "sglang-berrylm-xml-call": Case(
        (WEATHER,), "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
        calls=[("get_weather", {"city": "Paris"})], hidden=("<function", "<parameter"),
    ),
    # ---- Trinity (SGLang function_call/trinity_detector.py): a Qwen call inside <think> (rebuilt)
    "sglang-trinity-call-inside-think": Case(
        (WEATHER,), '<think>I will check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n</think>',
        calls=[("get_weather", {"city": "Paris"})], hidden=("<tool_call>", "I will check"),
    ),
    # ---- GLM-5.3-Flash (SGLang function_call/glm53_flash_detector.py): "NAME>{json}" ---------------
    "sglang-glm53flash-name-then-json": Case(
        (WEATHER,), '<tool_call>get_weather>{"city": "Beijing"}</tool_call>',
        calls=[("get_weather", {"city": "Beijing"})], hidden=("<tool_call>",),
    ),
}


_CWM = ("CWM's '<tool: function>' block gives a tool's input as plain text after its name, and which parameter "
        "that text fills is not written (vLLM calls it 'command'); no reader maps it, so the block is shown as the "
        "answer")
_HCX_SHORT = ("the abbreviated '-> tool/NAME' above bare arguments is not the template's form (vLLM shows it as "
              "text); reading the object as NAME's arguments would be a guess, and the text is shown as the answer")
_CUT_NAME = ("a JSON call cut after its name, before its arguments, runs the tool with no arguments (as the "
             "Qwen 3.8 'truncated-call' case of the twenty-third pass)")
GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md
    **{(case, strategy): _CWM for case in ("vllm-cwm-terminal-block", "vllm-cwm-shorthand-label-as-name")
       for strategy in ("react", "fc")},
    **{("vllm-hcx14b-abbreviated-form", strategy): _HCX_SHORT for strategy in ("react", "fc")},
    **{("vllm-openpangu2-cut-before-arguments", strategy): _CUT_NAME for strategy in ("react", "fc")},
    ("vllm-rwkv-two-labelled-fences", "fc"): (
        "Function Calling reads a fence of call envelopes only where it ends the reply, so the first of two "
        "labelled fences is not read and both are shown as the answer (ReAct runs both)"),
}


test_real_world_reply = reply_test(CASES, GAPS, read)


# ---- the fixes' limits -------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_inkling_call_quoted_in_a_fence_stays_the_answer(strategy):
    """Inkling's call message shown in a code block is an example the answer gives: nothing runs,
    and the user sees it whole, its ``<|end_message|>`` included (a token in code is text)."""
    text = 'Inkling writes:\n```\n' + _inkling("get_weather", "get_weather", '{"city":"Paris"}') + "\n```"
    check_answer_shown_whole(strategy, text, (WEATHER,))


@pytest.mark.parametrize("strategy", ["fc"])
def test_inkling_payload_that_is_a_tools_own_arguments_is_read_only_with_the_token(strategy):
    """A tool whose parameters are ``name`` and ``args``, called as GLM-4 writes a call (its name
    above its arguments, no Inkling token), gets those arguments as written in Function Calling:
    only Inkling's token makes the object a payload to unwrap. (ReAct, before this pass too,
    reads such an object as a call envelope of the same tool.)"""
    alias = tool("make_alias", "name", "args")
    text = 'make_alias\n{"name": "make_alias", "args": {"x": "1"}}'
    for size in (None, 1, 7):
        _, turn = read(strategy, Case((alias,), text), size)
        assert [(c.name, c.arguments) for c in turn.decision.calls] == [("make_alias", {"name": "make_alias", "args": {"x": "1"}})]


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_inkling_two_call_messages_both_run(strategy):
    """Two Inkling call messages in a row (the second with its ``<|message_model|>``) both run."""
    text = _inkling("get_weather", "get_weather", '{"city":"Paris"}') + _inkling(INK_MODEL + "search", "search", '{"query":"news"}')
    for size in (None, 1, 7):
        streamed, turn = read(strategy, Case((WEATHER, SEARCH), text), size)
        assert [(c.name, c.arguments) for c in turn.decision.calls] == [
            ("get_weather", {"city": "Paris"}), ("search", {"query": "news"})]
        assert streamed.strip() == ""


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_hcx14b_header_with_text_after_the_list_runs_nothing_in_function_calling(strategy):
    """The header and its list read as calls only when nothing but special tokens follows the
    list in Function Calling (vLLM takes the whole message as the tool message); ReAct reads the
    list as its action wherever it stands, as before."""
    text = HCX_HEADER + '[{"name": "get_weather", "arguments": {"city": "Seoul"}}]\nDone.'
    for size in (None, 1, 7):
        streamed, turn = read(strategy, Case((WEATHER,), text), size)
        if strategy == "fc":
            assert not isinstance(turn.decision, ToolCalls) and "tool/function_call" not in streamed
        else:
            assert [(c.name, c.arguments) for c in turn.decision.calls] == [("get_weather", {"city": "Seoul"})]


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_name_angle_json_is_read_only_inside_tool_call(strategy):
    """GLM-5.3-Flash's ``NAME>{json}`` is read inside its ``<tool_call>`` only: the same text as a
    whole reply is the answer, as written."""
    text = 'get_weather>{"city": "Paris"}'
    for size in (None, 1, 7):
        streamed, turn = read(strategy, Case((WEATHER,), text), size)
        assert turn.decision == FinalAnswer(text)
        assert streamed.strip() == text
