"""Fenced code blocks as CommonMark reads them (spec 0.31.2, "Fenced code blocks"), one rule for
every reader: a block opened by backticks or tildes is closed only by a line of the same
character, at least as long, indented at most three spaces, with nothing but spaces after it.
A ```` ```json ```` or ```` ```<|tool_call|> ```` line inside a block is the block's text, so what
follows it is still code the answer shows, not a call, a reasoning tag or a ReAct label."""

import pytest

from agent_core.call_markup import CodeQuote
from agent_core.fences import closing_fence, fence_lines, open_block
from agent_core.function_calling.turn import read_function_calling_turn
from agent_core.model_call import ModelChunk
from agent_core.react.parser import parse_react
from agent_core.turn import FinalAnswer
from tests.unit.helpers import drain
from tests.unit.test_think import split_all


def _cuts(text: str) -> list[list[str]]:
    """``text`` whole, a character at a time, and in pieces of 2, 3 and 7."""
    return [[text], list(text)] + [[text[i : i + n] for i in range(0, len(text), n)] for n in (2, 3, 7)]


IN_FENCE = [
    ("```\n```json\n", True),  # an info string: no closing fence
    ("```\n```json\nx\n```\n", False),
    ("```\n```<|tool_call|>", True),
    ("```\n``` x\n", True),
    ("```\n```   \n", False),  # spaces after a closing fence
    ("```\n```", True),  # the line may still go on: what comes next stands on it
    ("````\n```\n", True),  # shorter than the opening fence
    ("```\n````\nafter", False),  # longer closes
    ("```\n    ```\n", True),  # indented four spaces: a code line
    ("```\n   ```\n", False),
    ("~~~\n<x>", True),  # a tilde fence
    ("~~~ any `info`\n", True),  # a tilde fence's info string may hold backticks
    ("~~~\n```\n", True),  # a backtick line does not close a tilde fence
    ("```\n~~~\n", True),  # nor the other way round
    ("~~~~\n~~~\n", True),
    ("~~~\n~~~~\nafter", False),
    ("```js `x`\n", False),  # a backtick in a backtick fence's info string: code spans
    ("About ~5 minutes, ~/bin and ~~struck~~.", False),
    ("- item\n    ```\n    code\n", True),  # a fence in a list item
    ("- item\n    ```\n    code\n    ```\n", False),
]


@pytest.mark.parametrize(("text", "fenced"), IN_FENCE)
def test_code_quote_reads_fences_as_commonmark_however_the_text_is_cut(text, fenced):
    for pieces in _cuts(text):
        quote = CodeQuote()
        for piece in pieces:
            quote.feed(piece)
        assert quote.in_fence is fenced, pieces


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("```\n```json\nx\n```\n", [0, 14]),
        ("~~~\n```\n~~~\n```py\n", [0, 8, 12]),
        ("```js `x`\n```\n", [10]),
        ("no fence", []),
    ],
)
def test_fence_lines_are_the_lines_that_open_and_close_blocks(text, lines):
    assert fence_lines(text) == lines


NESTED = "A reply that opens with a fence:\n```\n```json\n<think>I should call it.</think>\n```\nThat is all."


def test_a_reasoning_tag_after_an_info_string_line_in_a_block_is_the_answers_text():
    # the ```json line does not close the block: the tag below it is part of the example
    for pieces in _cuts(NESTED):
        assert split_all(pieces) == (NESTED, "")


TILDE = "A template:\n~~~\n<think>plan</think>\nAnswer.\n~~~\nDone."


def test_a_reasoning_tag_in_a_tilde_fence_is_the_answers_text():
    for pieces in _cuts(TILDE):
        assert split_all(pieces) == (TILDE, "")


MINIMAX_IN_TILDES = (
    "MiniMax writes a call like this:\n\n~~~xml\n<minimax:tool_call>\n<invoke name=\"get_weather\">\n"
    '<parameter name="city">Paris</parameter>\n</invoke>\n</minimax:tool_call>\n~~~\n\nYour parser reads it.'
)


@pytest.mark.parametrize("size", [len(MINIMAX_IN_TILDES), 1, 7])
def test_call_markup_in_a_tilde_fence_is_an_example_not_a_call(size):
    pieces = [MINIMAX_IN_TILDES[i : i + size] for i in range(0, len(MINIMAX_IN_TILDES), size)]
    chunks = iter([*(ModelChunk(text=p) for p in pieces), ModelChunk(finish_reason="stop")])
    streamed, turn = drain(read_function_calling_turn(chunks, ["get_weather"]))
    assert isinstance(turn.decision, FinalAnswer) and turn.decision.text == MINIMAX_IN_TILDES
    assert streamed == MINIMAX_IN_TILDES


def test_a_react_label_after_an_info_string_line_in_the_answers_block_is_its_text():
    answer = "The format:\n```\n```json\nObservation: the tool's result\n```\nThen answer."
    turn = parse_react("Thought: I know.\nFinal Answer: " + answer)
    assert turn.final_answer == answer


@pytest.mark.parametrize(("text", "opening", "line_start", "left_open"), [
    ("Here:\n```python\ndef f():", None, True, ("`", 3, 3)),
    ("Here:\n```python\ndef f():\n```\nDone.", None, True, None),
    ("````\n```\nstill code", None, True, ("`", 4, 3)),  # a shorter run closes nothing
    ("~~~\ncode", None, True, ("~", 3, 3)),
    ("    return 1\n```", ("`", 3, 3), True, None),  # the rest of a block opened before it closes it
    ("```\nmore", ("`", 3, 3), False, ("`", 3, 3)),  # a run inside the line the text goes on: nothing
    ("``` and `x`", None, True, None),  # code spans, not a fence
    ("no fence at all", ("~", 3, 3), True, ("~", 3, 3)),
])
def test_the_block_a_text_leaves_open_is_read_as_commonmark_reads_it(text, opening, line_start, left_open):
    """Wave 38: a cut answer's notice went inside the block the answer left open."""
    assert open_block(text, opening, line_start=line_start) == left_open
    if left_open is not None:
        assert open_block(text + "\n" + closing_fence(left_open), opening, line_start=line_start) is None
