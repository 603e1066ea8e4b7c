"""A reasoning block written inside a code span or a fenced code block of the answer is the
answer's text (an answer that explains how a model wraps its reasoning), in both strategies,
whole and in 1- and 7-character pieces; real reasoning blocks around it are still kept out.

Before, `` `<think>plan</think>` `` opened a block at ``<think>``: the user saw an empty code
span (`` `` ``) and "plan" went to the log.
"""

import pytest

from agent_core.think import ThinkSplitter, visible_text
from tests.unit.test_real_world_2026 import Case, check_answer_shown_whole, read, tool
from tests.unit.test_think import split_all

TOOLS = (tool("get_weather", "city"),)

IN_SPANS = {
    "think": "The model wraps its reasoning in `<think>plan</think>` before answering.",
    "seed-think": "Seed-OSS writes `<seed:think>check the units</seed:think>` first, then the answer.",
    "seed-budget": "Its budget note reads `<seed:cot_budget_reflect>Token usage: 45/1000</seed:cot_budget_reflect>`.",
    "ifm-think": "K2 Horizon opens with `<ifm|think>let me see</ifm|think>` at high effort.",
    "solar": "Solar Open 2 uses `<|think:start|>draft<|think:end|>` around its reasoning.",
    "plamo": "PLaMo 3 writes `<|plamo:begin_think:plamo|>idea<|plamo:end_think:plamo|>` before the answer.",
    "double-ticks": "With a backtick inside: ``<think>a`b</think>`` is one span.",
    "two-spans": "Open with `<think>` and close with `</think>`; the whole is `<think>x</think>`.",
}

IN_FENCES = {
    "think": "A template:\n```\n<think>plan</think>\nHello\n```\nThat is all.",
    "seed-think": "Seed-OSS:\n~~~text\n<seed:think>check</seed:think>\n~~~\nDone.",
}


@pytest.mark.parametrize("strategy", ["react", "fc"])
@pytest.mark.parametrize("name", list(IN_SPANS))
def test_block_in_a_code_span_is_the_answers_text(name, strategy):
    check_answer_shown_whole(strategy, IN_SPANS[name], TOOLS)


@pytest.mark.parametrize("strategy", ["react", "fc"])
@pytest.mark.parametrize("name", list(IN_FENCES))
def test_block_in_a_fenced_block_is_the_answers_text(name, strategy):
    check_answer_shown_whole(strategy, IN_FENCES[name], TOOLS)


def _answer(strategy: str, content: str, size: int | None) -> tuple[str, str]:
    if strategy == "react":
        content = content.replace("Hello", "Thought: greet.\nFinal Answer: Hello", 1)
    streamed, turn = read(strategy, Case(TOOLS, content), size)
    return streamed.strip(), turn.decision.text


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_real_reasoning_around_a_span_is_still_reasoning(strategy, size):
    """A reply that opens with ``<think>`` (and quotes the tags in a span after it) keeps its
    reasoning out; the span's text is shown."""
    content = "<think>they ask about tags</think>Hello: a model writes `<think>plan</think>` first."
    shown, text = _answer(strategy, content, size)
    assert shown == text == "Hello: a model writes `<think>plan</think>` first."
    assert "they ask" not in shown


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_bare_close_of_a_template_opened_block_still_ends_reasoning(strategy, size):
    shown, text = _answer(strategy, "I should greet.</think>Hello there.", size)
    assert shown == text == "Hello there."


@pytest.mark.parametrize("size", [None, 1, 7])
def test_block_glued_after_a_closed_span_is_reasoning(size):
    """A code span closed before the tag quotes nothing: the block glued after it is reasoning."""
    content = "Use `x`.<think>secret plan</think>Hello there."
    shown, text = _answer("fc", content, size)
    assert shown == text == "Use `x`.Hello there."


@pytest.mark.parametrize("size", [None, 1, 7])
def test_block_after_a_span_on_an_earlier_line_is_reasoning(size):
    """A code span ends with its line at the latest: a stray backtick does not quote the next one."""
    content = "A stray ` here\n<think>secret plan</think>Hello there."
    shown, text = _answer("fc", content, size)
    assert shown == text == "A stray ` here\nHello there."


def test_splitter_and_visible_text_keep_a_quoted_block():
    text = IN_SPANS["think"]
    assert visible_text(text) == text
    for splitter in (ThinkSplitter(), ThinkSplitter(probe=200)):
        pieces = [splitter.feed(ch) for ch in text] + [splitter.finish()]
        assert "".join(p.visible for p in pieces) == text
        assert "".join(p.reasoning for p in pieces) == ""


@pytest.mark.parametrize("size", [None, 1, 3])
@pytest.mark.parametrize("text, split", [
    ("Write `</think>` to end it. <think>plan</think>Done.", ("Write `</think>` to end it. Done.", "plan")),
    ("`</think>```<think></think>", ("`</think>```", "")),
])
def test_probed_start_with_a_quoted_end_then_its_own_block_keeps_the_answer(text, split, size):
    """A probed start (a self-served model's template may have opened the block) with a quoted
    ``</think>`` and then a block the reply opens itself: the bare ``</think>`` after it closes that
    block, not one the template opened, so the text before it stays the answer's; fed whole it
    was all hidden as reasoning, fed a character at a time it was not."""
    pieces = [text] if size is None else [text[at : at + size] for at in range(0, len(text), size)]
    assert split_all(pieces, probe=64) == split
