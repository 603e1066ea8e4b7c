"""ReAct step labels written after an emoji (``💭 Thought:``, ``🔧 Action:``, ``✅ Final Answer:``),
as a model writes them when its prompt shows them so (juejin7623093 in docs/real-world-cases.md),
through both strategies' turn readers, whole and in pieces of 1 and 7 characters (the real-world
helpers): the step is read as without the emoji, the emoji goes with its label, and an emoji
inside prose, or opening a line of prose, leaves the prose as it is."""

import pytest

from agent_core.function_calling.turn import react_final_answer
from agent_core.react.parser import AnswerDelta, ReactStreamParser, ThoughtDelta, parse_react
from tests.unit.test_real_world_2026 import Case, check_reply, reply_params, tool

REACT = ("react",)
SEARCH = tool("search", "query")

CASES = {
    "emoji-thought-action-input": Case(
        (SEARCH,),
        '💭 Thought: I need the weather first.\n🔧 Action: search\n📥 Action Input: {"query": "weather Paris"}',
        calls=[("search", {"query": "weather Paris"})],
        only=REACT,
    ),
    "emoji-final-answer": Case(
        (SEARCH,),
        "💭 Thought: I know it now.\n✅ Final Answer: Paris is sunny today.",
        answer="Paris is sunny today.",
        hidden=("Thought", "💭", "✅"),
    ),
    "emoji-answer-label-alone": Case(
        (SEARCH,),
        "💭 Thought: I know it now.\n✅ Answer: Paris is sunny today.",
        answer="Paris is sunny today.",
        hidden=("Thought", "✅"),
        only=REACT,
    ),
    "emoji-before-bold-labels": Case(
        (SEARCH,),
        '🤔 **Thought:** look it up.\n👉 **Action:** search\n👉 **Action Input:** {"query": "Mate 70"}',
        calls=[("search", {"query": "Mate 70"})],
        only=REACT,
    ),
    "bullet-then-emoji-label": Case(
        (SEARCH,),
        "- 💭 Thought: done.\n- ✅ Final Answer: 42",
        answer="42",
        hidden=("Thought",),
        only=REACT,
    ),
    "variation-selector-and-skin-tone": Case(
        (SEARCH,),
        '✏️ Thought: search.\n👉🏽 Action: search\n⌨️ Action Input: {"query": "x"}',
        calls=[("search", {"query": "x"})],
        only=REACT,
    ),
    "zwj-sequences": Case(
        (SEARCH,),
        '👨‍💻 Thought: search.\n🧑‍🔧 Action: search\n🏳️‍🌈 Action Input: {"query": "pride"}',
        calls=[("search", {"query": "pride"})],
        only=REACT,
    ),
    "keycap-numbered-steps": Case(
        (SEARCH,),
        '1️⃣ Thought: search.\n2️⃣ Action: search\n3️⃣ Action Input: {"query": "keycap"}',
        calls=[("search", {"query": "keycap"})],
        only=REACT,
    ),
    "keycap-numbered-final-answer": Case(
        (SEARCH,),
        "1️⃣ Thought: I know.\n2️⃣ Final Answer: yes",
        answer="yes",
        hidden=("Thought", "1️⃣"),
    ),
    "emoji-inside-prose-is-prose": Case(
        (SEARCH,),
        "Great 👍 Action: taken, the order is on its way.",
        answer="Great 👍 Action: taken, the order is on its way.",
    ),
    "emoji-and-digits-opening-prose-lines": Case(
        (SEARCH,),
        "👍 Done, three steps:\n1. Open the app\n2024 was the year it shipped.\n🎉",
        answer="👍 Done, three steps:\n1. Open the app\n2024 was the year it shipped.\n🎉",
    ),
    "emoji-line-inside-an-answer": Case(
        (SEARCH,),
        "Thought: I know.\nFinal Answer: Sunny.\n☀️ Enjoy the day.",
        answer="Sunny.\n☀️ Enjoy the day.",
    ),
}


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize(("name", "strategy"), list(reply_params(CASES, {})))
def test_emoji_labelled_reply(name, strategy, size):
    check_reply(CASES, name, strategy, size)


def test_a_line_of_emoji_so_far_waits_for_what_follows():
    # "💭" alone could still become "💭 Thought:": not thought text yet, nor once the label came
    parser = ReactStreamParser()
    assert parser.feed("Thought: a\n💭") == [ThoughtDelta("a\n")]
    assert parser.feed(" ") == []
    assert parser.feed("Final Answer: 42") == [AnswerDelta("42")]
    parser.finish()
    assert parser.result().final_answer == "42"


def test_an_emoji_that_prose_follows_is_thought_text():
    turn = parse_react("Thought: a\n💭 Let me think.\n🔧 Action: search\nAction Input: {\"q\": 1}")
    assert turn.thought == "a\n💭 Let me think."
    assert [(action.name, action.input) for action in turn.actions] == [("search", {"q": 1})]


def test_function_calling_reads_an_emoji_labelled_final_step_and_not_prose():
    assert react_final_answer("💭 Thought: ok\n✅ Final Answer: Paris") == "Paris"
    assert react_final_answer("🤔 **Thought:** ok\n👉 **Final Answer:** Paris") == "Paris"
    assert react_final_answer("💭 Thought: ok\n🔧 Action: search\n✅ Final Answer: Paris") is None
    assert react_final_answer("Great 👍 Thought: ok\nFinal Answer: Paris") is None
