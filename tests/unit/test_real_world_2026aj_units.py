"""Focused tests of the thirty-fifth real-world pass's fixes, module by module: JSON arguments
with line comments or a line of prose after them (``json_args``), a ``Tool call`` label line
above a call written as code (``text_calls.without_call_label`` and Function Calling's answer
gate), and a call marker the output limit cut before its ``>`` (``call_markup.cut_opener``, read
by both strategies). The real-world replies behind them are in test_real_world_2026aj.py and
test_real_world_2026ai.py."""

import contextlib

import pytest

from agent_core.call_markup import cut_opener
from agent_core.function_calling.turn import read_function_calling_turn
from agent_core.json_args import ArgumentsError, loads_lenient
from agent_core.model_call import ModelChunk
from agent_core.react.turn import read_react_turn
from agent_core.text_calls import without_call_label
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ParseFailure, ToolCalls
from tests.unit.helpers import drain
from tests.unit.test_real_world_2026 import Case, tool
from tests.unit.test_real_world_2026d import read

# ---- json_args: line comments, prose after the value ---------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{\n  "city": "Beijing", # the user\'s city\n  "unit": "C" // metric\n}', {"city": "Beijing", "unit": "C"}),
        ('{"url": "http://x.com/a#b", // it\'s the page\n "n": 1}', {"url": "http://x.com/a#b", "n": 1}),
        ("{'a': 'x, # not a comment', 'b': 1, # a comment\n}", {"a": "x, # not a comment", "b": 1}),
        ('[1, # one\n 2]', [1, 2]),
    ],
)
def test_line_comments_outside_strings_are_no_part_of_the_value(text, value):
    assert loads_lenient(text) == value


def test_a_hash_or_slashes_inside_a_string_stay_the_strings_text():
    assert loads_lenient('{"tag": "#1", "path": "//srv/share", "n": 1,}') == {"tag": "#1", "path": "//srv/share", "n": 1}


def test_a_text_of_only_a_comment_is_still_refused():
    with pytest.raises(ArgumentsError):
        loads_lenient("# nothing here")


def test_a_line_of_prose_after_the_closing_line_is_left_out():
    text = ('{\n  "working_file": "",\n  "instructions": "do stuff",\n'
            '  "context": "some context {"key": "maybe there\'s a nested json here"}"\n}\n'
            "let's add some garbage in here too.")
    assert loads_lenient(text) == {
        "working_file": "", "instructions": "do stuff",
        "context": 'some context {"key": "maybe there\'s a nested json here"}'}


def test_text_after_the_closing_line_that_holds_a_bracket_or_a_quote_is_not_dropped():
    # a second object, or quoted text, after the value is not prose: never silently dropped
    with pytest.raises(ArgumentsError):
        loads_lenient('{\n  "a": "x "y" z"\n}\nthen {"b": 2')


# ---- text_calls / the answer gate: a "Tool call" label line --------------------------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('Tool call\n\nsearch({"q": "x"})', 'search({"q": "x"})'),
        ('Function call:\n\n  search({"q": "x"})', 'search({"q": "x"})'),
        ('TOOL CALL\n\nsearch({"q": "x"})', 'search({"q": "x"})'),
        ('Tool call\nsearch({"q": "x"})', 'Tool call\nsearch({"q": "x"})'),  # no blank line: as it is
        ('Tool calls\n\nsearch({"q": "x"})', 'Tool calls\n\nsearch({"q": "x"})'),
        ("Tool call", "Tool call"),
    ],
)
def test_without_call_label(body, expected):
    assert without_call_label(body) == expected


RAG = (tool("call_rag_server", "category", "query", "k"), tool("search", "query"))


@pytest.mark.parametrize("strategy", ["react", "fc"])
@pytest.mark.parametrize(
    "text",
    [
        "Tool call\n\nI could not reach the server, sorry.",  # prose below the label
        'Tool call\n\nrm_rf({"path": "/"})',  # a name no node tool has
        "Tool call\n\ncall_rag_server(query) is how you call it.",  # a sentence naming the tool
        "Tool calls are how an agent acts.",
        "To",
    ],
)
def test_a_tool_call_label_above_anything_but_a_node_tools_call_is_the_answer(strategy, text):
    for size in (None, 1, 7):
        streamed, turn = read(strategy, Case(RAG, text), size)
        assert turn.decision == FinalAnswer(text), turn.decision
        assert streamed.strip() == text


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_a_tool_call_label_above_a_node_tools_call_runs_it_and_shows_nothing(strategy):
    text = 'Tool call\n\nsearch({"query": "dogs"})'
    for size in (None, 1, 7):
        streamed, turn = read(strategy, Case(RAG, text), size)
        assert isinstance(turn.decision, ToolCalls)
        assert [(c.name, c.arguments) for c in turn.decision.calls] == [("search", {"query": "dogs"})]
        assert streamed == ""


# ---- call_markup.cut_opener: a call marker cut at the output limit -------------------------------


@pytest.mark.parametrize(
    ("text", "cut"),
    [
        ("It is sunny.\n<atem:function_calls", True),
        ("It is sunny.\n<tool_call", True),
        ("It is sunny.\n<tool_call  \n", True),
        ("It is sunny.\n<tool", True),
        ("It is sunny.\n<to", False),  # too short to tell from an answer's "<"
        ("It is sunny.\n<tool_call>", False),  # whole: a block, read as one
        ("a < b", False),
        ("It is sunny.", False),
    ],
)
def test_cut_opener(text, cut):
    assert cut_opener(text) is cut


WEATHER = tool("get_weather", "city")


def _cut_reply(strategy: str, text: str, finish: str):
    chunks = iter([ModelChunk(text=text), ModelChunk(finish_reason=finish)])
    if strategy == "react":
        return drain(read_react_turn(chunks, ToolRegistry([WEATHER]), 1))
    return drain(read_function_calling_turn(chunks, ["get_weather"]))


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_a_reply_the_limit_cut_at_a_call_opener_is_asked_again_without_the_fragment(strategy):
    streamed, turn = _cut_reply(strategy, "It is sunny.\n<tool_call", "length")
    assert isinstance(turn.decision, ParseFailure), turn.decision
    assert "<tool" not in streamed


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_a_reply_that_stopped_of_itself_at_such_a_start_keeps_it_as_its_text(strategy):
    # no output limit: the model ended there, so what it wrote is its answer (as before)
    streamed, turn = _cut_reply(strategy, "Use the tag <tool_call", "stop")
    assert turn.decision == FinalAnswer("Use the tag <tool_call")
    assert streamed.strip() == "Use the tag <tool_call"


def test_the_fixes_raise_nothing_but_arguments_error_on_odd_texts():
    for text in ("#", "//", "{#", "{//}", "[\n]\nword", "{\n}\n\"", "{'a': 1}\n}\nok"):
        with contextlib.suppress(ArgumentsError):  # a value, or this error: nothing else
            loads_lenient(text)
