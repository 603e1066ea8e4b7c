"""A nineteenth set of real-world model outputs: the raw text that inference servers' own
tool-call and reasoning parser tests feed their parsers (2026 additions and changes), through both
strategies' turn readers (as ``test_real_world_2026s``: the text whole and in pieces of 1 and 7
characters). That raw text is what reaches the plugin through an OpenAI-compatible endpoint when
the server runs without the family's parsers. Sources: the inputs of vLLM's Step-3.5, HY4,
Qwen 3.6 and MiniMax-M3 tool parser tests that earlier passes left out, and vLLM's reasoning parser
tests for PLaMo 3, MiniMax-M3, HY4 and Qwen3 (a call written inside the reasoning).

Each case names its source beside it; docs/real-world-cases.md lists them with the file and
commit. The text is the test's input verbatim (built with the test's own helpers where it has
them); the tests' tools are declared here with string parameters, so a value written as markup
text is expected as a string, and a JSON value as the JSON it holds.
"""

import pytest

from tests.unit.test_real_world_2026 import Case, check_answer_shown_whole, reply_test, tool
from tests.unit.test_real_world_2026g import read

CW = tool("get_current_weather", "city", "state", "unit")
AREA = tool("calculate_area", "shape", "dimensions", "precision")
STEP_TOOLS = (CW, AREA)
WEATHER = tool("get_weather", "city")
HY_TOOLS = (tool("get_weather", "city", "days"), tool("get_current_date"))
FINISH = tool("Finish", "answer")


def _step(*calls: tuple[str, list[tuple[str, str]]], sep: str = "") -> str:
    """Step-3.5's Qwen3-Coder-style calls, one parameter value a line, as vLLM's test writes them."""
    out = []
    for name, params in calls:
        body = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in params)
        out.append(f"<tool_call>\n<function={name}>\n{body}</function>\n</tool_call>")
    return sep.join(out)


DALLAS = ("get_current_weather", [("city", "Dallas"), ("state", "TX"), ("unit", "fahrenheit")])

# HY4's tags carry the checkpoint's suffix (vLLM's test_hy_v4_tool_parser.py: SUFFIX)
HY = ":opensource"


def _hy_arg(key: str, value: str) -> str:
    """vLLM's ``arg`` helper."""
    return f"<arg_key{HY}>{key}</arg_key{HY}><arg_value{HY}>{value}</arg_value{HY}>"


def _hy_call(name: str, args: str = "") -> str:
    """vLLM's ``call`` helper."""
    return f"<tool_call{HY}>{name}{args}</tool_call{HY}>"


def _hy_block(body: str) -> str:
    """vLLM's ``block`` helper."""
    return f"<tool_calls{HY}>{body}</tool_calls{HY}>"


# PLaMo 3's reasoning tags (vllm/reasoning/plamo3_reasoning_parser.py, as the test imports them)
P_THINK, P_THINK_END, P_EOT = "<|plamo:begin_think:plamo|>", "<|plamo:end_think:plamo|>", "<|plamo:tag|>"

# MiniMax-M3's token before every tag (vLLM's test_minimax_m3_tool_parser.py: NS)
NS = "]<]minimax[>["


def _order_call() -> str:
    """vLLM's ``build_order_call``: one MiniMax-M3 call with nested elements."""
    return (
        f"{NS}<tool_call>\n"
        f'{NS}<invoke name="create_order">'
        f"{NS}<user_id>42{NS}</user_id>"
        f"{NS}<urgent>true{NS}</urgent>"
        f"{NS}<note>Please leave at front desk.{NS}</note>"
        f"{NS}<shipping>"
        f"{NS}<city>Singapore{NS}</city>"
        f"{NS}<zip>018956{NS}</zip>"
        f"{NS}</shipping>"
        f"{NS}<items>"
        f"{NS}<item>{NS}<sku>book-001{NS}</sku>{NS}<qty>2{NS}</qty>{NS}</item>"
        f"{NS}<item>{NS}<sku>pen-007{NS}</sku>{NS}<qty>5{NS}</qty>{NS}</item>"
        f"{NS}</items>"
        f"{NS}<metadata>"
        f"{NS}<source>mobile{NS}</source>"
        f"{NS}<campaign>may-launch{NS}</campaign>"
        f"{NS}</metadata>"
        f"{NS}<duplicate_demo>"
        f"{NS}<tag>a{NS}</tag>"
        f"{NS}<tag>b{NS}</tag>"
        f"{NS}</duplicate_demo>"
        f"{NS}</invoke>\n"
        f"{NS}</tool_call>"
    )


# Qwen3's reasoning parser test (vLLM tests/reasoning/test_qwen3_tool_call_recovery.py): _TOOL_CALL_BLOCK
FINISH_BLOCK = "<tool_call>\n<function=Finish>\n<parameter=answer>\n204\n</parameter>\n</function>\n</tool_call>"

CASES = {
    # ---- Step-3.5 (vLLM tests/tool_parsers/test_step3p5_tool_parser.py) ------------------------------
    # one call, nothing around it
    "vllm-step3p5-single": Case(
        STEP_TOOLS, _step(DALLAS),
        calls=[("get_current_weather", {"city": "Dallas", "state": "TX", "unit": "fahrenheit"})], hidden=("<function=",),
    ),
    # a JSON object value over two lines
    "vllm-step3p5-multiline-json-value": Case(
        STEP_TOOLS, _step(("calculate_area", [("shape", "rectangle"), ("dimensions", '{"width": 10, \n "height": 20}'),
                                              ("precision", "2")])),
        calls=[("calculate_area", {"shape": "rectangle", "dimensions": {"width": 10, "height": 20}, "precision": "2"})],
    ),
    "vllm-step3p5-two-calls": Case(
        STEP_TOOLS, _step(DALLAS, ("get_current_weather", [("city", "Orlando"), ("state", "FL"), ("unit", "fahrenheit")]),
                          sep="\n"),
        calls=[("get_current_weather", {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}),
               ("get_current_weather", {"city": "Orlando", "state": "FL", "unit": "fahrenheit"})],
        hidden=("<function=",),
    ),
    "vllm-step3p5-sentence-glued-typed-values": Case(
        STEP_TOOLS, "Let me calculate that area for you." + _step(
            ("calculate_area", [("shape", "circle"), ("dimensions", '{"radius": 15.5}'), ("precision", "3")])),
        calls=[("calculate_area", {"shape": "circle", "dimensions": {"radius": 15.5}, "precision": "3"})],
        hidden=("<function=", "<parameter="),
    ),
    # the first parameter's </parameter> left out
    "vllm-step3p5-missing-parameter-close": Case(
        STEP_TOOLS, "Let me check the weather for you:\n<tool_call>\n<function=get_current_weather>\n<parameter=city>\n"
        "Dallas\n<parameter=state>\nTX\n</parameter>\n<parameter=unit>\nfahrenheit\n</parameter>\n</function>\n"
        "</tool_call>",
        calls=[("get_current_weather", {"city": "Dallas", "state": "TX", "unit": "fahrenheit"})],
        hidden=("<parameter=",),
    ),
    # a word, a call, a word, a call
    "vllm-step3p5-text-between-calls": Case(
        STEP_TOOLS, "hello" + _step(("get_current_weather", [("city", "Dallas"), ("state", "TX")])) + "hi" + _step(
            ("calculate_area", [("shape", "rectangle"), ("dimensions", '{"width": 10, "height": 5}')])),
        calls=[("get_current_weather", {"city": "Dallas", "state": "TX"}),
               ("calculate_area", {"shape": "rectangle", "dimensions": {"width": 10, "height": 5}})],
        hidden=("<function=",),
    ),
    # a Python-literal dict as an object value
    "vllm-step3p5-single-quoted-object": Case(
        (tool("test_types", "int_param", "float_param", "bool_param", "str_param", "obj_param"),),
        "<tool_call>\n<function=test_types>\n<parameter=obj_param>\n{'key': 'value'}\n</parameter>\n</function>\n"
        "</tool_call>",
        calls=[("test_types", {"obj_param": {"key": "value"}})],
    ),
    "vllm-step3p5-typed-values": Case(
        (tool("test_types", "int_param", "float_param", "bool_param", "str_param", "obj_param"),),
        "<tool_call>\n<function=test_types>\n<parameter=int_param>\n42\n</parameter>\n<parameter=float_param>\n3.14\n"
        "</parameter>\n<parameter=bool_param>\ntrue\n</parameter>\n<parameter=str_param>\nhello world\n</parameter>\n"
        '<parameter=obj_param>\n{"key": "value"}\n</parameter>\n</function>\n</tool_call>',
        calls=[("test_types", {"int_param": "42", "float_param": "3.14", "bool_param": "true", "str_param": "hello world",
                               "obj_param": {"key": "value"}})],
    ),
    "vllm-step3p5-call-without-unit": Case(
        STEP_TOOLS, "I'll check the weather." + _step(("get_current_weather", [("city", "Dallas"), ("state", "TX")])),
        calls=[("get_current_weather", {"city": "Dallas", "state": "TX"})], hidden=("<function=",),
    ),
    # ---- Qwen 3.6 (vLLM tests/tool_parsers/test_qwen36_bugs.py) -------------------------------------
    # an array value holding JSON's true
    "vllm-qwen36-array-with-json-true": Case(
        (tool("pick", "items"),),
        '<tool_call>\n<function=pick>\n<parameter=items>\n["a", "b", 1, true]\n</parameter>\n</function>\n</tool_call>',
        calls=[("pick", {"items": ["a", "b", 1, True]})],
    ),
    # ---- HY4 (vLLM tests/tool_parsers/test_hy_v4_tool_parser.py) -------------------------------------
    "vllm-hyv4-non-ascii-value": Case(
        HY_TOOLS, _hy_block(_hy_call("get_weather", _hy_arg("city", "北京"))),
        calls=[("get_weather", {"city": "北京"})], hidden=("opensource",),
    ),
    # a line break and spaces between the block's tag and the call
    "vllm-hyv4-white-space-inside-block": Case(
        HY_TOOLS, "hi" + _hy_block("\n  " + _hy_call("get_weather", _hy_arg("city", "Beijing"))),
        calls=[("get_weather", {"city": "Beijing"})], hidden=("opensource",),
    ),
    "vllm-hyv4-zero-arg-call-alone": Case(
        HY_TOOLS, _hy_block(_hy_call("get_current_date")), calls=[("get_current_date", {})], hidden=("opensource",),
    ),
    "vllm-hyv4-two-arguments-typed": Case(
        HY_TOOLS, _hy_block(_hy_call("get_weather", _hy_arg("city", "A") + _hy_arg("days", "7"))),
        calls=[("get_weather", {"city": "A", "days": "7"})], hidden=("opensource",),
    ),
    # ---- MiniMax-M3 (vLLM tests/tool_parsers/test_minimax_m3_tool_parser.py) -------------------------
    # nested elements: an object, a list of <item> objects, a repeated tag
    "vllm-minimaxm3-nested-order": Case(
        (tool("create_order", "user_id", "urgent", "note", "shipping", "items", "metadata", "duplicate_demo"),),
        "I will create it.\n" + _order_call(),
        calls=[("create_order", {
            "user_id": "42", "urgent": "true", "note": "Please leave at front desk.",
            "shipping": {"city": "Singapore", "zip": "018956"},
            "items": [{"sku": "book-001", "qty": "2"}, {"sku": "pen-007", "qty": "5"}],
            "metadata": {"source": "mobile", "campaign": "may-launch"},
            "duplicate_demo": {"tag": ["a", "b"]},
        })],
        hidden=("minimax", "<invoke"),
    ),
    # ---- PLaMo 3 reasoning (vLLM tests/reasoning/test_plamo3_reasoning_parser.py) --------------------
    "vllm-plamo3-reasoning-then-answer": Case(
        (WEATHER,), f"{P_THINK}reasoning{P_THINK_END}answer", answer="answer", hidden=("plamo", "reasoning"),
    ),
    "vllm-plamo3-reasoning-answer-end-of-turn": Case(
        (WEATHER,), f"{P_THINK}reasoning{P_THINK_END}answer{P_EOT}ignored", answer="answer",
        hidden=("plamo", "reasoning", "ignored"),
    ),
    # the block opened by the template: only its end in the reply
    "vllm-plamo3-template-opened-reasoning": Case(
        (WEATHER,), f"reasoning{P_THINK_END}answer", answer="answer", hidden=("plamo", "reasoning"),
    ),
    # reasoning, then a call (the reasoning test's tags around the tool parser test's request)
    "vllm-plamo3-reasoning-then-call": Case(
        (WEATHER,), f"{P_THINK}The user wants Tokyo's weather.{P_THINK_END}"
        "<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>"
        "get_weather<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json"
        '<|plamo:msg|>{"city": "Tokyo"}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>'
        f"<|plamo:end_tool_requests:plamo|>{P_EOT}",
        calls=[("get_weather", {"city": "Tokyo"})], hidden=("plamo", "Tokyo's"),
    ),
    # ---- MiniMax-M3 reasoning (vLLM tests/reasoning/test_minimax_m3_reasoning_parser.py) -------------
    "vllm-minimaxm3-reasoning-then-answer": Case(
        (WEATHER,), "<mm:think>plan</mm:think>answer", answer="answer", hidden=("mm:think", "plan"),
    ),
    # a leading end tag with nothing before it is dropped
    "vllm-minimaxm3-leading-end-tag": Case(
        (WEATHER,), "</mm:think>answer", answer="answer", hidden=("mm:think",),
    ),
    # thinking_mode "enabled": the template opened the block
    "vllm-minimaxm3-template-opened-reasoning": Case(
        (WEATHER,), "plan</mm:think>answer", answer="answer", hidden=("mm:think", "plan"),
    ),
    "vllm-minimaxm3-reasoning-over-pieces": Case(
        (WEATHER,), "<mm:think>Reasoning content</mm:think>content", answer="content",
        hidden=("mm:think", "Reasoning"),
    ),
    # ---- HY4 reasoning (vLLM tests/reasoning/test_hy_v4_reasoning_parser.py) ------------------------
    "vllm-hyv4-reasoning-then-answer": Case(
        (WEATHER,), "<think>abc</think>def", answer="def", hidden=("think", "abc"),
    ),
    # the start token's text skipped by the detokenizer
    "vllm-hyv4-start-marker-text-skipped": Case(
        (WEATHER,), "abc</think>def", answer="def", hidden=("think", "abc"),
    ),
    # ---- Qwen3 reasoning, a call inside it (vLLM tests/reasoning/test_qwen3_tool_call_recovery.py) ---
    "vllm-qwen3-call-inside-reasoning": Case(
        (FINISH,), "<think>The verification confirms my solution:\n- s = 2.5 km/h\n- t = 24 minutes\n"
        "- Total time at speed 3 km/h = 204 minutes\n\n" + FINISH_BLOCK + "\n</think>",
        calls=[("Finish", {"answer": "204"})], hidden=("verification",),
    ),
    "vllm-qwen3-call-inside-reasoning-then-text": Case(
        (FINISH,), "<think>verify result\n" + FINISH_BLOCK + "</think>Here is the answer.",
        calls=[("Finish", {"answer": "204"})], hidden=("verify result",),
    ),
    "vllm-qwen3-call-inside-reasoning-trailing-text": Case(
        (FINISH,), "<think>verify result\n" + FINISH_BLOCK + "</think>assistant trailing text",
        calls=[("Finish", {"answer": "204"})], hidden=("verify result",),
    ),
    # cut before </think>, the block opened by the template: the call is whole and runs
    "vllm-qwen3-call-in-template-opened-reasoning": Case(
        (FINISH,), "verify result\n" + FINISH_BLOCK, calls=[("Finish", {"answer": "204"})],
    ),
    "vllm-qwen3-reasoning-then-answer": Case(
        (FINISH,), "<think>Let me think about this carefully.\nThe answer is 42.</think>The answer is 42.",
        answer="The answer is 42.", hidden=("carefully",),
    ),
}


GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md
    **{(case, s): "a call inside the reasoning runs only when the reply shows no text after it: here the "
       "text after </think> is the answer (streamed as it came), and a call the model wrote while "
       "thinking, then answered instead of making, is not run on a guess"
       for case in ("vllm-qwen3-call-inside-reasoning-then-text", "vllm-qwen3-call-inside-reasoning-trailing-text")
       for s in ("react", "fc")},
}


test_real_world_reply = reply_test(CASES, GAPS, read)


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_hy4_block_vllm_refuses_runs_nothing(strategy):
    """vLLM's HY4 test refuses, in its strict mode, a block whose call holds text beside its
    argument pairs (``JUNK``) or a key with no value: no call of them runs here either."""
    for body in (f"<tool_call{HY}>get_weather" + _hy_arg("city", "X") + f"JUNK</tool_call{HY}>",
                 f"<tool_call{HY}>get_weather<arg_key{HY}>city</arg_key{HY}></tool_call{HY}>"):
        for size in (None, 1, 7):
            _, turn = read(strategy, Case(HY_TOOLS, _hy_block(body)), size)
            assert not getattr(turn.decision, "calls", None)


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_minimax_m3_repeated_element_keeps_every_value(strategy):
    """A key written twice in a MiniMax-M3 object value reaches the tool as the list of both
    values (vLLM's ``duplicate_demo``), never as the last one alone."""
    text = (f'{NS}<tool_call>\n{NS}<invoke name="tag_it">{NS}<labels>{NS}<tag>a{NS}</tag>{NS}<tag>b{NS}</tag>'
            f"{NS}<tag>c{NS}</tag>{NS}</labels>{NS}</invoke>\n{NS}</tool_call>")
    for size in (None, 1, 7):
        _, turn = read(strategy, Case((tool("tag_it", "labels"),), text), size)
        assert [(c.name, c.arguments) for c in turn.decision.calls] == [("tag_it", {"labels": {"tag": ["a", "b", "c"]}})]


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_plamo3_reasoning_tags_in_code_stay_as_written(strategy):
    """PLaMo 3's reasoning tags an answer shows in a code span are its text, not reasoning."""
    check_answer_shown_whole(strategy, f"PLaMo 3 opens its reasoning with `{P_THINK}` and ends it with `{P_THINK_END}`.", (WEATHER,), reader=read)
