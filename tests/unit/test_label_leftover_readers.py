"""Step labels the label readers missed after the emoji pass, through both strategies' turn readers,
whole and in pieces of 1 and 7 characters (the real-world helpers):

- a markdown heading or bold line holding a label alone after an emoji (``### 💭 Thought``, the
  thought on the lines below);
- ``Input:`` under the action and ``Question:`` inside an answer after an emoji (``📥 Input:``,
  ``❓ Question:``), as ``📥 Action Input:`` already was;
- Function Calling's ``Action:`` call, its held ``Final Answer`` label and the empty label a reply
  ends with, after an emoji (``🔧 Action: {...}``, ``✅ Final Answer:``);
- a closing fence that is the reply's last characters, no line break after it: an action input in
  the block ends at it;
- ``Answer:`` after a ``Thought:`` in Function Calling: the answer alone, as ReAct reads it.

Prose with the same words or emoji stays the answer it is."""

import pytest

from agent_core.fallback import label_left, no_answer
from agent_core.function_calling.turn import AnswerGate, react_final_answer
from agent_core.react.parser import parse_react
from tests.unit.test_real_world_2026 import Case, check_reply, reply_params, tool

REACT = ("react",)
FC = ("fc",)
SEARCH = tool("search", "query")

CASES = {
    # ---- 1. a heading or bold line holding the label alone, after an emoji ------------------------
    "heading-emoji-labels-action": Case(
        (SEARCH,),
        '### 💭 Thought\nI need to look it up.\n### 🔧 Action\nsearch\n### 📥 Action Input\n{"query": "Mate 70"}',
        calls=[("search", {"query": "Mate 70"})],
        only=REACT,
    ),
    "heading-emoji-labels-final-answer": Case(
        (SEARCH,),
        "### 💭 Thought\nI know it now.\n### ✅ Final Answer\nParis is sunny today.",
        answer="Paris is sunny today.",
        hidden=("Thought", "💭", "✅"),
    ),
    "bold-emoji-labels-final-answer": Case(
        (SEARCH,),
        "**💭 Thought**\nI know it now.\n**✅ Final Answer**\nParis is sunny today.",
        answer="Paris is sunny today.",
        hidden=("Thought", "💭"),
    ),
    "heading-emoji-with-other-words-is-prose": Case(
        (SEARCH,),
        "### 💭 Thoughts on the trip\nParis is lovely in May.",
        answer="### 💭 Thoughts on the trip\nParis is lovely in May.",
    ),
    "heading-emoji-action-items-is-prose": Case(
        (SEARCH,),
        "### ✅ Action items\n- call the supplier\n- send the notes",
        answer="### ✅ Action items\n- call the supplier\n- send the notes",
    ),
    # ---- 2. Input: and Question: after an emoji ----------------------------------------------------
    "emoji-input-under-the-action": Case(
        (SEARCH,),
        'Thought: look it up.\nAction: search\n📥 Input: {"query": "weather Paris"}',
        calls=[("search", {"query": "weather Paris"})],
        only=REACT,
    ),
    "emoji-parameters-under-an-emoji-action": Case(
        (SEARCH,),
        '💭 Thought: look it up.\n🔧 Action: search\n⚙️ Parameters: {"query": "weather Paris"}',
        calls=[("search", {"query": "weather Paris"})],
        only=REACT,
    ),
    "emoji-question-ends-the-answer": Case(
        (SEARCH,),
        "Thought: I know.\nFinal Answer: Paris.\n❓ Question: and Berlin?\nThought: look it up.\n"
        'Action: search\nAction Input: {"query": "Berlin"}',
        answer="Paris.",
        hidden=("Question", "Berlin"),
        only=REACT,
    ),
    "emoji-question-in-an-faq-answer-is-its-text": Case(
        (SEARCH,),
        "Thought: I know.\nFinal Answer: FAQ:\n❓ Question: Is it free?\nYes, it is.",
        answer="FAQ:\n❓ Question: Is it free?\nYes, it is.",
        only=REACT,
    ),
    # ---- 3. Function Calling's label readers after an emoji ------------------------------------------
    "emoji-action-call-after-a-sentence": Case(
        (SEARCH,),
        'I will look it up.\n🔧 Action: {"action": "search", "action_input": {"query": "Paris"}}',
        calls=[("search", {"query": "Paris"})],
        hidden=("Action", "{", "🔧"),
    ),
    "emoji-action-call-in-a-fence": Case(
        (SEARCH,),
        'Let me check.\n👉 **Action:**\n```json\n{"action": "search", "action_input": {"query": "Paris"}}\n```',
        calls=[("search", {"query": "Paris"})],
        hidden=("Action", "{", "```"),
    ),
    "emoji-action-call-inside-a-fence": Case(
        (SEARCH,),
        'Let me check.\n```\n🔧 Action: {"action": "search", "action_input": {"query": "Paris"}}\n```',
        calls=[("search", {"query": "Paris"})],
        hidden=("Action", "{", "```"),
    ),
    "fenced-block-opening-with-an-emoji-is-the-answer": Case(
        (SEARCH,),
        "Here is the banner:\n```\n🎉 Action: celebrate!\n```",
        answer="Here is the banner:\n```\n🎉 Action: celebrate!\n```",
        only=FC,  # ReAct reads a one-word Action: in a block as a step, with the emoji or without
    ),
    "emoji-empty-final-answer-after-a-thought": Case(
        (SEARCH,),
        "Thought: I know the answer.\n✅ Final Answer:",
        fallback="",
    ),
    "emoji-empty-final-answer-after-prose": Case(
        (SEARCH,),
        "Paris is sunny today.\n✅ Final Answer:",
        answer="Paris is sunny today.",
        hidden=("Final Answer", "✅"),
        only=FC,
    ),
    "emoji-final-answer-label-with-text-streams": Case(
        (SEARCH,),
        "Paris is sunny today.\n✅ Final Answer: sunny.",
        answer="Paris is sunny today.\n✅ Final Answer: sunny.",
        only=FC,
    ),
    # ---- 4. a closing fence as the reply's last characters ------------------------------------------
    "action-in-a-block-ends-at-its-last-fence": Case(
        (SEARCH,),
        "Thought: I will search.\n```\nAction: search\nAction Input: weather in Paris\n```",
        calls=[("search", {"query": "weather in Paris"})],
        only=REACT,
    ),
    "action-in-a-tilde-block-ends-at-its-last-fence": Case(
        (SEARCH,),
        "Thought: I will search.\n~~~\nAction: search\nAction Input: weather in Paris\n~~~",
        calls=[("search", {"query": "weather in Paris"})],
        only=REACT,
    ),
    "fenced-answer-ending-the-reply-is-shown-whole": Case(
        (SEARCH,),
        "Here it is:\n```python\nprint('Action: search')\n```",
        answer="Here it is:\n```python\nprint('Action: search')\n```",
    ),
    # ---- 5. Answer: after a Thought in Function Calling ---------------------------------------------
    "thought-then-answer-label": Case(
        (SEARCH,),
        "Thought: I know it.\nAnswer: Paris is the capital of France.",
        answer="Paris is the capital of France.",
        hidden=("Thought", "Answer:"),
    ),
    "emoji-thought-then-answer-label": Case(
        (SEARCH,),
        "💭 Thought: I know it.\n✅ Answer: Paris is the capital of France.",
        answer="Paris is the capital of France.",
        hidden=("Thought", "✅"),
    ),
}


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize(("name", "strategy"), list(reply_params(CASES, {})))
def test_a_leftover_label_is_read(name, strategy, size):
    check_reply(CASES, name, strategy, size)


def test_an_action_input_in_a_block_the_reply_ends_with_has_no_fence_and_is_not_cut():
    for closer in ("```", "~~~", "```  "):
        turn = parse_react(f"Thought: x\n{closer[:3]}\nAction: search\nAction Input: hello world\n{closer}")
        assert [(action.name, action.input) for action in turn.actions] == [("search", "hello world")]
        assert not turn.ended_inside  # the block closed: the input is whole, not cut by the output limit


def test_a_fence_the_reply_ends_with_is_read_only_once_the_reply_ended():
    # "```" so far may still become "```json": the input waits, then takes no fence once it ended
    from agent_core.react.parser import ActionFound, ReactStreamParser

    parser = ReactStreamParser()
    events = parser.feed("Thought: x\n```\nAction: search\nAction Input: hi\n```")
    assert not [event for event in events if isinstance(event, ActionFound)]
    events = parser.finish()
    assert [(e.name, e.input) for e in events if isinstance(e, ActionFound)] == [("search", "hi")]


def test_function_calling_reads_answer_alone_only_as_a_final_step():
    assert react_final_answer("Thought: ok\nAnswer: Paris") == "Paris"
    assert react_final_answer("🤔 **Thought:** ok\n👉 **Answer:** Paris") == "Paris"
    assert react_final_answer("Thought: ok\nAnswer:") is None  # a label left empty
    assert react_final_answer("Thought: ok\nAnswer: 1\nAnswer: 2") is None  # a quiz, not a step
    assert react_final_answer("Thought: ok\nAction: search\nAnswer: Paris") is None
    assert react_final_answer("Question: what?\nAnswer: Paris") is None  # no Thought first: prose


def test_an_empty_final_answer_label_after_an_emoji_is_left_and_no_answer():
    assert label_left("Thought: done.\n✅ Final Answer:") == len("Thought: done.")
    assert label_left("Thought: done.\n> 👉 **Final Answer:**  ") == len("Thought: done.")
    assert label_left("Thought: done.\n✅ Final Answer: Paris") is None
    assert no_answer("I checked it all.\n✅ Final Answer:", ["search"])


@pytest.mark.parametrize("size", [1, 7])
def test_the_gate_holds_an_emoji_labelled_final_answer_label_until_its_text(size):
    text = "Paris is sunny.\n✅ Final Answer:"
    gate = AnswerGate(["search"])
    streamed = "".join(gate.feed(text[i : i + size]) for i in range(0, len(text), size))
    assert streamed == "Paris is sunny."  # the line break before the label is held with it
    assert gate.held == "\n✅ Final Answer:"
