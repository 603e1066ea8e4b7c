"""The Function Calling answer gate and fences: a fence of call markup is held from its fence line,
whether its run is backticks or tildes (CommonMark's rule, ``agent_core.fences``) and whether it
stands bare or in a blockquote, so the user never reads a fence line above a call that then runs
or is asked again. Fences of anything else stream as they come."""

import pytest

from agent_core.function_calling.turn import fenced_markup_head, read_function_calling_turn
from agent_core.model_call import ModelChunk
from agent_core.turn import FinalAnswer, ParseFailure, ToolCalls
from tests.unit.helpers import drain

CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
ACTION = '{"action": "get_weather", "action_input": {"city": "Paris"}}'
PARIS = [("get_weather", {"city": "Paris"})]


def _pieces(text):
    """The text whole, a character at a time, and in pieces of 5."""
    return [[text], list(text), [text[i : i + 5] for i in range(0, len(text), 5)]]


def _read(pieces):
    chunks = [ModelChunk(text=piece) for piece in pieces] + [ModelChunk(finish_reason="stop")]
    return drain(read_function_calling_turn(iter(chunks), ["get_weather"]))


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("I will check.\n~~~xml\n" + CALL + "\n~~~", "I will check.\n"),
        ("I will check.\n~~~\n\n" + CALL + "\n~~~\nDone.", "I will check.\n"),
        ("I will check.\n  ~~~~ xml\n" + CALL + "\n  ~~~~", "I will check.\n"),
        ("~~~xml\n" + CALL + "\n~~~", ""),
        ("I will check.\nAction:\n~~~json\n" + ACTION + "\n~~~", "I will check.\n"),
        ("Action:\n~~~json\n" + ACTION + "\n~~~", ""),
    ],
)
def test_a_call_in_a_tilde_fence_runs_and_its_fence_line_is_never_shown(text, shown):
    """Before, the ``~~~`` line was streamed and the call ran (the user read an opened fence with
    nothing in it); an ``Action:`` call in a tilde fence was shown as the answer, or asked again."""
    for pieces in _pieces(text):
        streamed, turn = _read(pieces)
        assert streamed == shown
        assert isinstance(turn.decision, ToolCalls)
        assert [(c.name, c.arguments) for c in turn.decision.calls] == PARIS


QUOTED = "I will check.\n> ```xml\n> " + CALL.replace("\n", "\n> ") + "\n> ```"


def test_a_call_in_a_blockquoted_fence_is_held_from_its_fence_line():
    """The ``> ```xml`` line was streamed before the gate held at the ``<tool_call>`` under it:
    asked again, then shown as the answer, the user read that line twice. Now the reply is asked
    again with nothing of the block shown, and the fallback is the block, so the user reads the
    reply once, whole."""
    for pieces in _pieces(QUOTED):
        streamed, turn = _read(pieces)
        assert streamed == "I will check.\n"
        assert isinstance(turn.decision, ParseFailure)
        assert streamed + turn.decision.fallback == QUOTED


@pytest.mark.parametrize(
    "text",
    [
        "Run it:\n~~~python\nprint('hi')\n~~~\nDone.",  # a tilde fence of code
        "~~~\nplain\n~~~",
        "~5 minutes, then ~~strike~~ it.",  # tildes that open no fence
        "Quoted:\n> ```python\n> print('hi')\n> ```\nDone.",  # a blockquoted fence of code
        "Quoted:\n> He said:\n> > ```\n> > ls\n> > ```",
        "> Note: `<tool_call>` tags are how Hermes writes calls.\n> Second line.",
    ],
)
def test_fences_and_quotes_of_anything_else_stream_whole(text):
    for pieces in _pieces(text):
        streamed, turn = _read(pieces)
        assert streamed == text
        assert turn.decision == FinalAnswer(text)


@pytest.mark.parametrize(
    ("head", "verdict"),
    [
        ("~~", None),
        ("~~~xml", None),
        ("~~~xml\n<tool", None),
        ("~~~xml\n<tool_call>", True),
        ("~~~\nAction: {", True),
        ("~~~python\nprint(1)", False),
        (">", None),
        ("> ", None),
        ("> ``", None),
        ("> ```xml\n> <tool_call>", True),
        ("> > ~~~\n> > <tool_code>", True),
        ("> ```xml\n<tool_call>", False),  # the quote ended at the fence line: so did its fence
        ("> Hello", False),
        ("> ```xml\n> plain", False),
    ],
)
def test_fenced_markup_head_reads_tilde_and_blockquoted_fences(head, verdict):
    assert fenced_markup_head(head) is verdict
