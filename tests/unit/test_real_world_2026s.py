"""An eighteenth set of real-world model outputs: the raw text that inference servers' own
tool-call parser tests feed their parsers (2026 additions and changes), through both strategies'
turn readers (as ``test_real_world_2026r``: the text whole and in pieces of 1 and 7 characters).
That raw text is what reaches the plugin through an OpenAI-compatible endpoint when the server
runs without the family's parser. Sources no earlier pass used: vLLM's Hermes (its Granite 4
configuration too), Granite 4, HyperCLOVAX-SEED-Think, Poolside v1, PLaMo 3, iQuest Coder V2,
Intern-S1 and K2 Horizon parser tests.

Each case names its source beside it; docs/real-world-cases.md lists them with the file and
commit. The text is the test's input verbatim (built with the test's own helpers where it has
them); the tests' tools are declared here with string parameters, so a value written as markup
text is expected as a string, and a JSON value as the JSON it holds.
"""

import json

import pytest

from tests.unit.test_real_world_2026 import Case, check_answer_shown_whole, reply_test, tool
from tests.unit.test_real_world_2026g import read

CW = tool("get_current_weather", "location", "unit")
IQ = tool("get_current_weather", "city", "state", "days")
WEATHER = tool("get_weather", "city")
LOOKUP, PING = tool("lookup", "query", "limit", "enabled"), tool("ping")


def _hcx(*pairs: tuple[str, str]) -> str:
    """One HyperCLOVAX-SEED-Think call of ``get_current_weather`` as vLLM's test writes it."""
    body = "".join(f"<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>\n" for k, v in pairs)
    return f"<tool_call>get_current_weather\n{body}</tool_call>"


# PLaMo 3's tags (vllm/tool_parsers/plamo3_tool_parser.py), as the test imports them
P_REQS, P_REQS_END = "<|plamo:begin_tool_requests:plamo|>", "<|plamo:end_tool_requests:plamo|>"
P_REQ, P_REQ_END = "<|plamo:begin_tool_request:plamo|>", "<|plamo:end_tool_request:plamo|>"
P_NAME, P_NAME_END = "<|plamo:begin_tool_name:plamo|>", "<|plamo:end_tool_name:plamo|>"
P_ARGS = "<|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>"
P_ARGS_END, P_EOT = "<|plamo:end_tool_arguments:plamo|>", "<|plamo:tag|>"


def _plamo_call(name: str, arguments: str) -> str:
    """vLLM's ``_tool_call`` helper."""
    return f"{P_REQ}{P_NAME}{name}{P_NAME_END}{P_ARGS}{arguments}{P_ARGS_END}{P_REQ_END}"


def _plamo_requests(*calls: str) -> str:
    """vLLM's ``_tool_requests`` helper."""
    return f"{P_REQS}{''.join(calls)}{P_REQS_END}{P_EOT}"


def _iquest(name: str, *pairs: tuple[str, str]) -> str:
    """iQuest Coder V2's call (vLLM's ``_call`` helper)."""
    body = name + "".join(f"<arg_key>{k}</arg_key><arg_value>{v}</arg_value>" for k, v in pairs)
    return f"<iquestcoder_tool_call>{body}</iquestcoder_tool_call>"


def _ifm_group(*calls: str, prefix: str = "", suffix: str = "") -> str:
    """K2 Horizon's call group (vLLM's ``_group`` helper)."""
    return prefix + "<ifm|tool_calls>" + "\n".join(calls) + "</ifm|tool_calls>" + suffix


def _ifm_xml(name: str, arguments: list[tuple[str, str]], *, typed: bool = False) -> str:
    """K2 Horizon's XML call (vLLM's ``_xml_call`` helper)."""
    parts = [f"<ifm|tool_call>{name}"]
    for key, value in arguments:
        parts.append(f"<ifm|arg_key>{key}</ifm|arg_key>")
        if typed:
            parts.append(f"<ifm|arg_type>{'integer' if key == 'limit' else 'string'}</ifm|arg_type>")
        parts.append(f"<ifm|arg_value>{value}</ifm|arg_value>")
    return "".join([*parts, "</ifm|tool_call>"])


def _ifm_json(name: str, arguments: dict) -> str:
    """K2 Horizon's JSON call (vLLM's ``_json_call`` helper)."""
    return f"<ifm|tool_call>{json.dumps({'name': name, 'arguments': arguments})}</ifm|tool_call>"


CASES = {
    # ---- Hermes (vLLM tests/tool_parsers/test_hermes_tool_parser.py) ---------------------------------
    # Granite 4 writes its arguments as a JSON string; decoded once, they are the object
    "vllm-hermes-serialized-arguments": Case(
        (tool("get_db_config", "param"),),
        '<tool_call>\n{"name": "get_db_config", "arguments": "{\\"param\\": \\"max_connections\\"}"}\n</tool_call>',
        calls=[("get_db_config", {"param": "max_connections"})], hidden=("<tool_call>",),
    ),
    # no </tool_call> before the end of the reply
    "vllm-hermes-call-until-eos": Case(
        (tool("final_answer", "trigger"),), '<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}}',
        calls=[("final_answer", {"trigger": True})],
    ),
    "vllm-hermes-two-calls-back-to-back": Case(
        (tool("search", "q"),),
        '<tool_call>{"name": "search", "arguments": {"q": "cats"}}</tool_call>'
        '<tool_call>{"name": "search", "arguments": {"q": "dogs"}}</tool_call>',
        calls=[("search", {"q": "cats"}), ("search", {"q": "dogs"})],
    ),
    "vllm-hermes-sentence-glued": Case(
        (WEATHER,), 'Sure, let me check the weather.<tool_call>{"name": "get_weather", "arguments": {"city": "NYC"}}'
        "</tool_call>",
        calls=[("get_weather", {"city": "NYC"})], hidden=("<tool_call>",),
    ),
    "vllm-hermes-one-chunk": Case(
        (tool("f", "x"),), 'Hi!<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>',
        calls=[("f", {"x": 1})], hidden=("<tool_call>",),
    ),
    "vllm-hermes-temperature-over-lines": Case(
        (tool("get_current_temperature", "location", "unit"),),
        '<tool_call>{"name": "get_current_temperature","arguments": {"location":"San Francisco, California, United '
        'States", "unit": "celsius"}}</tool_call>',
        calls=[("get_current_temperature", {"location": "San Francisco, California, United States",
                                            "unit": "celsius"})],
    ),
    # ---- Granite 4 (vLLM tests/tool_parsers/test_granite4_tool_parser.py) ----------------------------
    # a sentence between two complete calls
    "vllm-granite4-explanation-between-calls": Case(
        (tool("find_bbox", "coordinates"), tool("get_stock_price", "symbol")),
        '<tool_call> {"name": "find_bbox", "arguments": {}} </tool_call>some explanation '
        '<tool_call> {"name": "get_stock_price", "arguments": {}} </tool_call>',
        calls=[("find_bbox", {}), ("get_stock_price", {})], hidden=("<tool_call>",),
    ),
    # ---- HyperCLOVAX-SEED-Think (vLLM tests/tool_parsers/test_hyperclovax_seed_think_tool_parser.py) -
    # each value written as a JSON string
    "vllm-hcx-json-string-values": Case(
        (CW,), _hcx(("location", '"Seoul"'), ("unit", '"celsius"')),
        calls=[("get_current_weather", {"location": "Seoul", "unit": "celsius"})], hidden=("<arg_",),
    ),
    "vllm-hcx-raw-string-value": Case(
        (CW,), _hcx(("location", "Seoul")), calls=[("get_current_weather", {"location": "Seoul"})],
    ),
    "vllm-hcx-sentence-glued": Case(
        (CW,), "I'll check that for you." + _hcx(("location", '"Seoul"')),
        calls=[("get_current_weather", {"location": "Seoul"})], hidden=("<tool_call>", "<arg_"),
    ),
    # reasoning opened by the template, closed by a bare </think>, then a sentence and the call
    "vllm-hcx-reasoning-then-call": Case(
        (CW,), "thinking aloud</think>\n\nokay, calling:" + _hcx(("location", '"Seoul"')),
        calls=[("get_current_weather", {"location": "Seoul"})], hidden=("thinking aloud", "<arg_"),
    ),
    "vllm-hcx-two-calls": Case(
        (CW,), _hcx(("location", '"Seoul"')) + "\n" + _hcx(("location", '"Busan"')),
        calls=[("get_current_weather", {"location": "Seoul"}), ("get_current_weather", {"location": "Busan"})],
    ),
    # the JSON list the template asks for under tool_choice=required
    "vllm-hcx-json-list": Case(
        (CW,), '[{"name": "get_current_weather", "parameters": {"location": "Seoul"}}]',
        calls=[("get_current_weather", {"location": "Seoul"})],
    ),
    "vllm-hcx-json-object": Case(
        (CW,), '{"name": "get_current_weather", "parameters": {"location": "Busan"}}',
        calls=[("get_current_weather", {"location": "Busan"})],
    ),
    "vllm-hcx-json-list-after-reasoning": Case(
        (CW,), 'thinking</think>\n\n[{"name": "get_current_weather", "parameters": {"location": "Seoul"}}]',
        calls=[("get_current_weather", {"location": "Seoul"})], hidden=("thinking",),
    ),
    "vllm-hcx-im-end-after-answer": Case((CW,), "answer<|im_end|>", answer="answer", hidden=("<|",)),
    # ---- Poolside v1 (vLLM tests/tool_parsers/test_poolside_v1_tool_parser.py) -----------------------
    # a string value's indentation and last line break kept
    "vllm-poolside-indented-code-value": Case(
        (tool("write_file", "content", "mode"),),
        "<tool_call>write_file\n<arg_key>content</arg_key>\n<arg_value>    def f():\n        return 1\n</arg_value>\n"
        "</tool_call>",
        calls=[("write_file", {"content": "    def f():\n        return 1\n"})],
    ),
    "vllm-poolside-two-space-indent": Case(
        (tool("write_file", "content", "mode"),),
        "<tool_call>write_file\n<arg_key>content</arg_key>\n<arg_value>  x = 1\n</arg_value>\n</tool_call>",
        calls=[("write_file", {"content": "  x = 1\n"})],
    ),
    "vllm-poolside-no-line-break-after-name": Case(
        (WEATHER,), "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>",
        calls=[("get_weather", {"city": "Paris"})],
    ),
    "vllm-poolside-line-breaks-between-tags": Case(
        (WEATHER,), "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>",
        calls=[("get_weather", {"city": "Paris"})],
    ),
    # ---- PLaMo 3 (vLLM tests/tool_parsers/test_plamo3_tool_parser.py) --------------------------------
    "vllm-plamo3-sentence-then-call": Case(
        (WEATHER,), "Checking the weather." + _plamo_requests(_plamo_call("get_weather", '{"city": "Tokyo"}')),
        calls=[("get_weather", {"city": "Tokyo"})], hidden=("plamo",),
    ),
    "vllm-plamo3-two-calls": Case(
        (tool("echo", "text"), tool("sum", "a", "b")),
        _plamo_requests(_plamo_call("echo", '{"text": "hi"}'), _plamo_call("sum", '{"a": 1, "b": 2}')),
        calls=[("echo", {"text": "hi"}), ("sum", {"a": 1, "b": 2})], hidden=("plamo",),
    ),
    "vllm-plamo3-sentence-then-two-calls": Case(
        (tool("echo", "text"), tool("sum", "a", "b")),
        "Before tools." + _plamo_requests(_plamo_call("echo", '{"text": "hi"}'), _plamo_call("sum", '{"a": 1, "b": 2}')),
        calls=[("echo", {"text": "hi"}), ("sum", {"a": 1, "b": 2})], hidden=("plamo",),
    ),
    # the end-of-turn tag: what follows it is not the model's answer
    "vllm-plamo3-text-after-end-of-turn": Case(
        (WEATHER,), f"Regular response{P_EOT}ignored", answer="Regular response", hidden=("plamo", "ignored"),
    ),
    # ---- iQuest Coder V2 (vLLM tests/tool_parsers/test_iquest_coder_v2_tool_parser.py) ---------------
    "vllm-iquest2-three-arguments": Case(
        (IQ,), _iquest("get_current_weather", ("city", "Dallas"), ("state", "TX"), ("days", "3")),
        calls=[("get_current_weather", {"city": "Dallas", "state": "TX", "days": "3"})], hidden=("iquest",),
    ),
    # a number-like value of a string parameter stays a string
    "vllm-iquest2-number-like-string": Case(
        (IQ,), _iquest("get_current_weather", ("city", "12345")), calls=[("get_current_weather", {"city": "12345"})],
    ),
    "vllm-iquest2-no-arguments": Case(
        (IQ,), "<iquestcoder_tool_call>get_current_weather</iquestcoder_tool_call>",
        calls=[("get_current_weather", {})], hidden=("iquest",),
    ),
    "vllm-iquest2-line-then-call": Case(
        (IQ,), "Let me look that up for you.\n" + _iquest("get_current_weather", ("city", "Dallas")),
        calls=[("get_current_weather", {"city": "Dallas"})], hidden=("iquest", "<arg_"),
    ),
    "vllm-iquest2-two-calls": Case(
        (IQ,), _iquest("get_current_weather", ("city", "Dallas")) + _iquest("get_current_weather", ("city", "Orlando")),
        calls=[("get_current_weather", {"city": "Dallas"}), ("get_current_weather", {"city": "Orlando"})],
    ),
    "vllm-iquest2-line-breaks-between-tags": Case(
        (IQ,), "<iquestcoder_tool_call>get_current_weather\n<arg_key>city</arg_key>\n<arg_value>Dallas</arg_value>\n"
        "</iquestcoder_tool_call>",
        calls=[("get_current_weather", {"city": "Dallas"})],
    ),
    # ---- Intern-S1 (vLLM tests/tool_parsers/test_intern_s1_tool_parser.py) ---------------------------
    "vllm-interns1-spaced-tokens": Case(
        (WEATHER, tool("get_time", "timezone")),
        '<|action_start|> <|plugin|>\n{"name": "get_weather", "parameters": {"city": "Tokyo"}}\n<|action_end|>',
        calls=[("get_weather", {"city": "Tokyo"})], hidden=("<|",),
    ),
    "vllm-interns1-two-blocks-then-answer": Case(
        (WEATHER, tool("get_time", "timezone")),
        '<|action_start|><|plugin|>{"name": "get_weather", "parameters": {"city": "Tokyo"}}<|action_end|>\n'
        '<|action_start|><|plugin|>{"name": "get_time", "parameters": {"timezone": "Asia/Tokyo"}}<|action_end|>\n'
        "Visible answer.",
        calls=[("get_weather", {"city": "Tokyo"}), ("get_time", {"timezone": "Asia/Tokyo"})], hidden=("<|",),
    ),
    # ---- K2 Horizon (vLLM tests/tool_parsers/test_k2_horizon_tool_parser.py) -------------------------
    "vllm-k2horizon-xml-two-calls-text-around": Case(
        (LOOKUP, PING), _ifm_group(_ifm_xml("lookup", [("query", "123"), ("limit", "3")]), _ifm_xml("ping", []),
                                   prefix="Before ", suffix=" after."),
        calls=[("lookup", {"query": "123", "limit": "3"}), ("ping", {})], hidden=("ifm|",),
    ),
    "vllm-k2horizon-json-call": Case(
        (LOOKUP, PING), _ifm_group(_ifm_json("lookup", {"limit": "2"})), calls=[("lookup", {"limit": "2"})],
        hidden=("ifm|",),
    ),
    "vllm-k2horizon-typed-xml-call": Case(
        (LOOKUP, PING), _ifm_group(_ifm_xml("lookup", [("query", "weather"), ("limit", "2")], typed=True)),
        calls=[("lookup", {"query": "weather", "limit": "2"})], hidden=("ifm|",),
    ),
    "vllm-k2horizon-glued-text-around": Case(
        (LOOKUP, PING), _ifm_group(_ifm_xml("lookup", [("limit", "2")]), prefix="Before", suffix="after"),
        calls=[("lookup", {"limit": "2"})], hidden=("ifm|",),
    ),
    "vllm-k2horizon-white-space-around": Case(
        (LOOKUP, PING), _ifm_group(_ifm_xml("ping", []), prefix=" \n", suffix="\t "), calls=[("ping", {})],
        hidden=("ifm|",),
    ),
}


GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md
    **{(case, s): "HyperCLOVAX-SEED-Think writes each <arg_value> as JSON (\"Seoul\"); GLM's template writes it "
       "as text, where quotes may be the value's (an exact-phrase query): the tool gets the quotes"
       for case in ("vllm-hcx-json-string-values", "vllm-hcx-sentence-glued", "vllm-hcx-reasoning-then-call",
                    "vllm-hcx-two-calls") for s in ("react", "fc")},
}


test_real_world_reply = reply_test(CASES, GAPS, read)


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_new_families_markup_an_answer_shows_in_code_stays_as_written(strategy):
    """K2 Horizon's, PLaMo 3's and iQuest Coder V2's call markup in a code span is the answer's
    text: nothing runs and the answer shows it whole."""
    markup = (_ifm_group(_ifm_xml("lookup", [("query", "x")])),
              _plamo_requests(_plamo_call("get_weather", '{"city": "Tokyo"}')).removesuffix(P_EOT),
              _iquest("get_weather", ("city", "Dallas")))
    for shown in markup:
        check_answer_shown_whole(strategy, f"The model writes `{shown}` for a call.", (WEATHER, LOOKUP), reader=read)


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_plamo3_request_section_left_open_runs_nothing(strategy):
    """vLLM's ``plamo3`` parser refuses a request section the reply never closed (its
    ``test_extract_tool_calls_rejects_incomplete_request``): no call of it runs here either."""
    for request in (P_REQ + P_NAME + "sum", _plamo_call("sum", '{"a": 1}')):
        for size in (None, 1, 7):
            _, turn = read(strategy, Case((tool("sum", "a"),), "Before tools." + P_REQS + request), size)
            assert not getattr(turn.decision, "calls", None)


@pytest.mark.parametrize("size", [None, 1, 7])
def test_react_final_answer_is_still_the_answer_beside_a_tool_named_final_answer(size):
    """A node tool named ``final_answer`` or ``finish`` is called by its own name (vLLM's Hermes
    test calls ``final_answer``); ReAct's ``Final Answer`` action, and ``finish`` when no node tool
    has that name, still end the run with the answer."""
    final = tool("final_answer", "trigger")
    text = 'Thought: done.\nAction: {"action": "Final Answer", "action_input": "It is 4."}'
    streamed, turn = read("react", Case((final,), text), size)
    assert turn.decision.text == "It is 4." and streamed.strip() == "It is 4."
    text = '{"name": "finish", "arguments": {"answer": "It is 4."}}'
    _, turn = read("react", Case((final,), text), size)
    assert turn.decision.text == "It is 4."
    _, turn = read("react", Case((tool("finish", "answer"),), text), size)
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [("finish", {"answer": "It is 4."})]


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_k2_horizon_value_over_lines_is_kept_whole(strategy):
    """A K2 Horizon value over two lines reaches the tool with its line break (the line breaks
    between calls are the markup's, the ones inside a value the value's)."""
    text = _ifm_group(_ifm_xml("lookup", [("query", "line one\nline two")]), _ifm_xml("ping", []))
    for size in (None, 1, 7):
        _, turn = read(strategy, Case((LOOKUP, PING), text), size)
        assert [(c.name, c.arguments) for c in turn.decision.calls] == [
            ("lookup", {"query": "line one\nline two"}), ("ping", {})]
