"""ReAct step labels after a mark nobody sees at the line start (``agent_core.emoji``
``INVISIBLE_MARKS``): a right-to-left or left-to-right mark (U+200F, U+200E) that a model writing
Arabic or Hebrew puts before a line, a bidi isolate, a zero-width space, or a space other than
`` `` and tab (no-break, ideographic, em). Before wave 39 such a
line's ``Action:`` was thought text (the tool never ran, the reply was asked again as "only a
thought") and its ``Final Answer:`` was no answer (asked again, the model's answer lost). Read
through both strategies' turn readers, whole and in pieces of 1 and 7 characters (Function
Calling's readers of ReAct-style steps and of LangChain's ``Action:`` call skip the same marks,
``agent_core.emoji.line_marks``); a line of prose opening with such a mark keeps it."""

import re

import pytest

from agent_core.emoji import line_marks
from agent_core.function_calling.turn import react_final_answer
from agent_core.react.parser import AnswerDelta, ReactStreamParser, ThoughtDelta, parse_react
from tests.unit.test_real_world_2026 import Case, check_reply, reply_params, tool

REACT = ("react",)
SEARCH = tool("search", "query")

CASES = {
    "rlm-before-action-and-input": Case(
        (SEARCH,),
        'Thought: أبحث عن الطقس.\n\u200fAction: search\n\u200fAction Input: {"query": "طقس الرياض"}',
        calls=[("search", {"query": "طقس الرياض"})],
        only=REACT,
    ),
    "lrm-before-action-and-input": Case(
        (SEARCH,),
        'Thought: search.\n\u200eAction: search\n\u200eAction Input: {"query": "x"}',
        calls=[("search", {"query": "x"})],
        only=REACT,
    ),
    "rlm-before-final-answer": Case(
        (SEARCH,),
        "Thought: I know it.\n\u200fFinal Answer: الطقس مشمس.",
        answer="الطقس مشمس.",
        hidden=("Thought", "Final Answer"),
    ),
    "rlm-before-a-langchain-action-after-text": Case(
        (SEARCH,),
        'Let me check.\n\u200fAction: {"action": "search", "action_input": {"query": "q"}}',
        calls=[("search", {"query": "q"})],
        hidden=("Action:",),
        only=("fc",),
    ),
    "rlm-before-a-react-step-opening-the-reply": Case(
        (SEARCH,),
        '\u200fThought: check.\n\u200fAction: search\n\u200fAction Input: {"query": "q"}',
        calls=[("search", {"query": "q"})],
        hidden=("Thought", "Action"),
    ),
    "isolate-before-every-label": Case(
        (SEARCH,),
        "\u2067Thought: done.\n\u2067Final Answer: 42",
        answer="42",
        hidden=("Thought",),
        only=REACT,
    ),
    "zero-width-space-before-action": Case(
        (SEARCH,),
        'Thought: a\n\u200bAction: search\nAction Input: {"query": "q"}',
        calls=[("search", {"query": "q"})],
        only=REACT,
    ),
    "rlm-before-action-json": Case(
        (SEARCH,),
        'Thought: a\n\u200f{"action": "search", "action_input": {"query": "q"}}',
        calls=[("search", {"query": "q"})],
        only=REACT,
    ),
    "ideographic-space-indent-before-labels": Case(
        (SEARCH,),
        "\u3000Thought: 我知道了。\n\u3000Final Answer: 今天下雨。",
        answer="今天下雨。",
        hidden=("Thought",),
        only=REACT,
    ),
    "no-break-spaces-before-action-and-input": Case(
        (SEARCH,),
        'Thought: a\n\u00a0\u00a0Action: search\n\u2003Action Input: {"query": "q"}',
        calls=[("search", {"query": "q"})],
        only=REACT,
    ),
    "ideographic-indented-prose-is-prose": Case(
        (SEARCH,),
        "今天下雨。\n\u3000\u3000请带伞。\n\u3000\u3000出门小心。",
        answer="今天下雨。\n\u3000\u3000请带伞。\n\u3000\u3000出门小心。",
    ),
    "rlm-opening-prose-lines-is-prose": Case(
        (SEARCH,),
        "\u200fمرحبا بك.\n\u200fكيف يمكنني المساعدة؟",
        answer="\u200fمرحبا بك.\n\u200fكيف يمكنني المساعدة؟",
    ),
}


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize(("name", "strategy"), list(reply_params(CASES, {})))
def test_label_after_an_invisible_mark(name, strategy, size):
    check_reply(CASES, name, strategy, size)


def test_a_line_of_only_a_mark_so_far_waits_for_what_follows():
    parser = ReactStreamParser()
    assert parser.feed("Thought: a\n\u200f") == [ThoughtDelta("a\n")]
    assert parser.feed("Final Answer: 42") == [AnswerDelta("42")]
    parser.finish()
    assert parser.result().final_answer == "42"


def test_a_mark_inside_a_thought_line_is_no_label():
    turn = parse_react('Thought: the rule \u200fAction: x is quoted.\nAction: search\nAction Input: {"query": 1}')
    assert [(action.name, action.input) for action in turn.actions] == [("search", {"query": 1})]


def test_function_calling_reads_a_final_step_after_a_mark():
    assert react_final_answer("Thought: ok\n\u200fFinal Answer: باريس") == "باريس"


@pytest.mark.parametrize("marks", [" \t#*_>-", " \t#*>", "-"])
def test_line_marks_take_the_invisible_marks_and_no_letter(marks):
    """``line_marks`` joins the invisible marks to the caller's markdown without making a range of
    them (a ``-`` ending the caller's marks stays a literal ``-``): a word is never a line's marks."""
    pattern = re.compile(line_marks(marks))
    assert pattern.fullmatch("\u200f\u2067") is not None
    for word in ("Hello", "A", "z", "Final", "é", "ب"):
        assert pattern.match(word).end() == 0, word


@pytest.mark.parametrize("reply", [
    'Thought: a\nAction\u00a0: search\nAction\u00a0Input\u00a0: {"query": "q"}',
    'Thought: a\nAction: search\nAction\u202fInput: {"query": "q"}',
])
def test_a_no_break_space_inside_a_label(reply):
    """French typography's no-break space before a label's colon or between its words (and the
    narrow one) keeps the label a label: the action runs (``react.parser.LABEL_SPACES``)."""
    turn = parse_react(reply)
    assert [(action.name, action.input) for action in turn.actions] == [("search", {"query": "q"})]
