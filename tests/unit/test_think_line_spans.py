"""A reasoning tag met while a code span may be open is code only when the span closes on its
line (CommonMark opens a span only where a run as long closes it; the project ends a span with its
line at the latest), in both strategies, whole and in 1- and 7-character pieces.

Before, the splitter decided at the tag:
- a stray backtick earlier on the line ("it`s", PowerShell's `` `n ``) made a reasoning block glued
  after it (``text<think>plan</think>answer``) the answer's text: the user saw the reasoning;
- a reply held because its template opens the block (QwQ, DeepSeek-R1; in Function Calling any
  reply's start) ended its reasoning at a ``</think>`` inside a code span (`` `a </think> b` ``):
  the user saw the rest of the reasoning, and an answer such as "close it with `x </think>`" lost
  its start.
"""

import time

import pytest

from agent_core.think import SPAN_LOOK_LIMIT, ThinkSplitter, visible_text
from tests.unit.test_real_world_2026 import Case, read, tool

TOOLS = (tool("get_weather", "city"),)
SIZES = [None, 1, 7]


def _react(answer: str, lead: str = "") -> str:
    return f"{lead}Thought: greet.\nFinal Answer: {answer}"


def _read(strategy: str, content: str, size: int | None, *, opened: bool = False):
    """(streamed text, turn) of ``content`` as the strategy reads it (``opened``: the model's
    template opens its reasoning block in the prompt)."""
    if not opened:
        return read(strategy, Case(TOOLS, content), size)
    from agent_core.function_calling.turn import read_function_calling_turn
    from agent_core.react.turn import read_react_turn
    from agent_core.tool_schema import ToolRegistry
    from tests.unit.helpers import drain
    from tests.unit.test_real_world_2026 import chunks_of

    chunks = iter(chunks_of(Case(TOOLS, content), size))
    if strategy == "react":
        return drain(read_react_turn(chunks, ToolRegistry(list(TOOLS)), 1, reasoning_opened=True))
    return drain(read_function_calling_turn(chunks, ["get_weather"], reasoning_opened=True))


STRAY_TICK_GLUED = {
    # (answer with a glued block, what the user must see)
    "apostrophe": ("It`s done.<think>secret plan</think>Hello there.", "It`s done.Hello there."),
    "powershell-escape": ("Use \"a`nb\" for a line break.<think>secret plan</think> Done.",
                          "Use \"a`nb\" for a line break. Done."),
    "double-tick-stray": ("Two ``ticks here<think>secret plan</think>Hello.", "Two ``ticks hereHello."),
    "span-closes-on-next-line": ("It`s <think>secret\nplan` x</think>Hello.", "It`s Hello."),
    "reasoning-at-the-end": ("It`s done.<think>secret plan", "It`s done."),
}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("strategy", ["react", "fc"])
@pytest.mark.parametrize("name", list(STRAY_TICK_GLUED))
def test_a_block_glued_after_a_stray_backtick_is_reasoning(name, strategy, size):
    answer, shown = STRAY_TICK_GLUED[name]
    content = _react(answer) if strategy == "react" else answer
    streamed, turn = read(strategy, Case(TOOLS, content), size)
    assert streamed.strip() == turn.decision.text == shown
    assert "secret" not in streamed
    assert "secret" in turn.reasoning


IN_A_SPAN = {
    "closes-after-the-block": "Write `a <think>b</think> c` to show it.",
    "closes-after-many-tags": "Tags: `<think><think></think>x</think><thinking>` are text.",
    "double-ticks": "Quote ``a ` <think>b</think>`` like this.",
}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("strategy", ["react", "fc"])
@pytest.mark.parametrize("name", list(IN_A_SPAN))
def test_a_block_in_a_span_that_closes_on_its_line_is_the_answers_text(name, strategy, size):
    text = IN_A_SPAN[name]
    content = _react(text) if strategy == "react" else text
    streamed, turn = read(strategy, Case(TOOLS, content), size)
    assert streamed.strip() == turn.decision.text == text


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_a_close_in_a_span_of_template_opened_reasoning_does_not_end_it(strategy, size):
    reasoning = "They ask about tags. A block ends with `a </think> b` written so.\n"
    content = reasoning + "</think>" + (_react("Hello there.") if strategy == "react" else "Hello there.")
    streamed, turn = _read(strategy, content, size, opened=True)
    assert streamed.strip() == turn.decision.text == "Hello there."
    assert "`a </think> b`" in turn.reasoning
    assert "written so" not in streamed + turn.thought


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("strategy", ["react", "fc"])
@pytest.mark.parametrize("end", ["", "\n"], ids=["reply-end", "line-end"])
def test_a_close_after_a_stray_backtick_in_template_opened_reasoning_ends_it(strategy, size, end):
    """A backtick that no run closes on its line opens no span: the ``</think>`` after it is used."""
    content = "It`s a greeting</think>" + end + (_react("Hello there.") if strategy == "react" else "Hello there.")
    streamed, turn = _read(strategy, content, size, opened=True)
    assert streamed.strip() == turn.decision.text == "Hello there."
    assert "greeting" in turn.reasoning


@pytest.mark.parametrize("size", SIZES)
def test_any_reply_quoting_a_close_in_a_span_at_its_start_is_shown_whole(size):
    """Function Calling holds any reply's first characters for a bare ``</think>``: one inside a
    code span there is the answer's text (before, "Close it with `x " went to the log)."""
    answer = "Close it with `x </think>` and go on."
    streamed, turn = read("fc", Case(TOOLS, answer), size)
    assert streamed == turn.decision.text == answer
    assert turn.reasoning == ""


@pytest.mark.parametrize("size", [1, 7, 100])
def test_a_reply_that_ends_while_a_tag_waits_for_its_span_uses_the_tag(size):
    """The reply's end ends its last line: the span never closed, the tag is used."""
    assert visible_text("It`s <think>plan") == "It`s "
    assert visible_text("It`s done</think>Hi") == "Hi"  # a stray end: what came before it was reasoning
    splitter = ThinkSplitter()
    text = "It`s <think>plan"
    pieces = [splitter.feed(text[i : i + size]) for i in range(0, len(text), size)] + [splitter.finish()]
    assert "".join(p.visible for p in pieces) == "It`s "
    assert "".join(p.reasoning for p in pieces) == "plan"


def test_the_hold_is_bounded_and_streaming_goes_on_past_it():
    """A tag in a span that neither closes nor meets a line end within ``SPAN_LOOK_LIMIT``
    characters is read as before (the answer's text), and the text after it streams again."""
    text = "It`s <think>" + "x" * (SPAN_LOOK_LIMIT * 3)
    splitter = ThinkSplitter()
    shown = 0
    for i in range(0, len(text), 16):
        shown += len(splitter.feed(text[i : i + 16]).visible)
        if i > SPAN_LOOK_LIMIT * 2:
            assert shown > SPAN_LOOK_LIMIT
    assert shown + len(splitter.finish().visible) == len(text)


def _seconds(text: str, size: int, **kwargs) -> float:
    splitter = ThinkSplitter(**kwargs)
    start = time.process_time()  # CPU seconds: another process on the machine does not count
    for i in range(0, len(text), size):
        splitter.feed(text[i : i + size])
    splitter.finish()
    return time.process_time() - start


@pytest.mark.parametrize("kwargs", [{}, {"opened": True}, {"probe": 256}], ids=["answer", "opened", "probe"])
def test_long_lines_with_one_backtick_and_many_tags_are_read_in_linear_time(kwargs):
    """A line of a megabyte after a stray backtick and a tag, and a span holding thousands of tags:
    each character read a bounded number of times (no rescans from the tag at each piece)."""
    tag = "</think>" if kwargs else "<think>"
    line = "It`s " + tag + "a" * 1_000_000
    many = "`" + (tag + "word ") * 50_000 + "` end"
    small, large = _seconds(line[:100_000], 64, **kwargs), _seconds(line, 64, **kwargs)
    assert large < max(small, 0.01) * 30
    small, large = _seconds(many[:50_000] + "`", 64, **kwargs), _seconds(many, 64, **kwargs)
    assert large < max(small, 0.01) * 30
