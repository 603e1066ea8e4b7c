"""Function Calling reads a ReAct-style final step as the ReAct parser does, through both
strategies' turn readers, whole and in pieces of 1 and 7 characters (the real-world helpers):

1. heading labels without a colon: ``### Thought`` above the thought, ``### Final Answer`` above the
   answer (after an emoji or not, ``**bold**`` too, a ``Final Answer`` line alone after a Thought);
2. a bulleted label: ``- ✅ Final Answer:`` left empty at the end, ``- Final Answer: Paris``;
3. a step the model wrote on after its answer (``Action:`` and ``Action Input:``, an
   ``Observation:``, a next ``Thought:``): the answer alone, the step only in the Thought log,
   never run;
4. an empty label the reply ends with takes the line breaks before it along: the user's text does
   not end in a line break.

Prose with the same words stays the answer it is, streamed as written."""

import pytest

from agent_core.function_calling.turn import AnswerGate, react_final_step, read_function_calling_turn
from agent_core.model_call import ModelChunk
from agent_core.turn import FinalAnswer, ParseFailure
from tests.unit.helpers import drain
from tests.unit.test_real_world_2026 import Case, check_reply, read, reply_params, tool

FC = ("fc",)
SEARCH = tool("search", "query")
STEP_AFTER = 'Action: search\nAction Input: {"query": "x"}'

CASES = {
    # ---- 1. heading labels without a colon -----------------------------------------------------------
    "heading-thought-heading-final-answer": Case(
        (SEARCH,),
        "### Thought\nI know it now.\n### Final Answer\nParis is sunny today.",
        answer="Paris is sunny today.",
        hidden=("Thought", "###"),
    ),
    "bold-thought-bold-final-answer": Case(
        (SEARCH,),
        "**Thought**\nI know it now.\n**Final Answer**\nParis is sunny today.",
        answer="Paris is sunny today.",
        hidden=("Thought", "**"),
    ),
    "thought-label-then-heading-final-answer": Case(
        (SEARCH,),
        "Thought: I know it now.\n## 🎯 Final Answer\nParis is sunny today.",
        answer="Paris is sunny today.",
        hidden=("Thought", "🎯"),
    ),
    "heading-thought-then-final-answer-label": Case(
        (SEARCH,),
        "### 💭 Thought\nI know it now.\nFinal Answer: Paris is sunny today.",
        answer="Paris is sunny today.",
        hidden=("Thought", "💭"),
    ),
    "final-answer-line-alone-after-a-thought": Case(
        (SEARCH,),
        "Thought: I know it now.\nFinal Answer\nParis is sunny today.",
        answer="Paris is sunny today.",
        hidden=("Thought", "Final Answer"),
    ),
    "heading-answer-after-a-heading-thought": Case(
        (SEARCH,),
        "### Thought\nI know it now.\n### Answer\nParis is sunny today.",
        answer="Paris is sunny today.",
        hidden=("Thought",),
    ),
    "empty-heading-final-answer-after-a-heading-thought": Case(
        (SEARCH,),
        "### Thought\nI know the answer.\n### Final Answer\n",
        fallback="",
    ),
    "heading-thought-with-other-words-is-prose": Case(
        (SEARCH,),
        "### Thought experiments\nEinstein imagined riding a beam of light.",
        answer="### Thought experiments\nEinstein imagined riding a beam of light.",
    ),
    "heading-final-answer-in-an-answer-keeps-the-heading": Case(
        (SEARCH,),
        "### Thought\nI know it now.\n### Final Answer\nParis.\n### Answer\nIt is sunny.",
        answer="Paris.\n### Answer\nIt is sunny.",  # ReAct reads no heading inside an answer
    ),
    "heading-thought-alone-is-shown-whole": Case(
        (SEARCH,),
        "## Thought\nA thought is an idea.",
        answer="## Thought\nA thought is an idea.",
        only=FC,  # ReAct asks again for a step
    ),
    # ---- 2. a bulleted label ---------------------------------------------------------------------------
    "bulleted-empty-final-answer-after-a-thought": Case(
        (SEARCH,),
        "Thought: I know the answer.\n- ✅ Final Answer:",
        fallback="",
    ),
    "bulleted-empty-final-answer-after-prose": Case(
        (SEARCH,),
        "Paris is sunny today.\n- ✅ Final Answer:",
        answer="Paris is sunny today.",
        hidden=("Final Answer", "✅", "- "),
        only=FC,  # ReAct: an empty Final Answer, asked again
    ),
    "bulleted-plain-empty-final-answer-after-prose": Case(
        (SEARCH,),
        "Paris is sunny today.\n- Final Answer:",
        answer="Paris is sunny today.",
        hidden=("Final Answer",),
        only=FC,
    ),
    "bulleted-final-answer-after-a-thought": Case(
        (SEARCH,),
        "Thought: I know it now.\n- Final Answer: Paris is sunny today.",
        answer="Paris is sunny today.",
        hidden=("Thought", "Final Answer"),
    ),
    "bulleted-prose-with-the-words-streams": Case(
        (SEARCH,),
        "Checklist:\n- Final answers are due Friday.\n- Answer every e-mail.",
        answer="Checklist:\n- Final answers are due Friday.\n- Answer every e-mail.",
    ),
    # ---- 3. a step written on after the answer -----------------------------------------------------------
    "answer-then-a-step": Case(
        (SEARCH,),
        f"Thought: ok\nAnswer: 1\n{STEP_AFTER}",
        answer="1",
        hidden=("Action", "search", "Thought"),
    ),
    "final-answer-then-a-step": Case(
        (SEARCH,),
        f"Thought: ok\nFinal Answer: 1\n{STEP_AFTER}\nObservation: 2\nThought: done",
        answer="1",
        hidden=("Action", "search", "Observation"),
    ),
    "final-answer-then-an-invented-observation": Case(
        (SEARCH,),
        "Thought: I know it.\nFinal Answer: Paris.\nObservation: the user is happy.",
        answer="Paris.",
        hidden=("Observation", "happy"),
    ),
    "heading-final-answer-then-a-step": Case(
        (SEARCH,),
        f"### Thought\nI know it.\n### Final Answer\nParis.\n{STEP_AFTER}",
        answer="Paris.",
        hidden=("Action", "search"),
    ),
    "a-quiz-with-two-answers-stays-whole": Case(
        (SEARCH,),
        "Thought: ok\nAnswer: 1\nAnswer: 2",
        answer="Thought: ok\nAnswer: 1\nAnswer: 2",
        only=FC,  # ReAct shows "1\nAnswer: 2"
    ),
    # ---- 4. an empty label at the end takes its line breaks along ------------------------------------------
    "paragraph-break-before-an-empty-label": Case(
        (SEARCH,),
        "Paris is sunny today.\n\n**Final Answer:**",
        answer="Paris is sunny today.",
        hidden=("Final Answer",),
        only=FC,
    ),
    "line-breaks-after-an-empty-label": Case(
        (SEARCH,),
        "Paris is sunny today.\nFinal Answer:  \n\n",
        answer="Paris is sunny today.",
        hidden=("Final Answer",),
        only=FC,
    ),
    "a-label-with-its-answer-below-streams-as-written": Case(
        (SEARCH,),
        "Here is the summary.\nFinal Answer:\nParis is sunny today.",
        answer="Here is the summary.\nFinal Answer:\nParis is sunny today.",
        only=FC,  # ReAct reads the label: "Paris is sunny today."
    ),
}


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize(("name", "strategy"), list(reply_params(CASES, {})))
def test_a_final_step_is_read_as_react_reads_it(name, strategy, size):
    check_reply(CASES, name, strategy, size)


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("name", [name for name, case in CASES.items() if case.answer is not None and "fc" in case.only])
def test_function_calling_streams_exactly_the_answer(name, size):
    # check_reply compares the streamed text stripped: here it must not even end in a line break
    streamed, _ = read("fc", CASES[name], size)
    assert streamed == CASES[name].answer


@pytest.mark.parametrize("size", [None, 1, 7])
def test_a_step_after_the_answer_is_logged_and_not_run_as_in_react(size):
    case = CASES["final-answer-then-a-step"]
    fc_streamed, fc_turn = read("fc", case, size)
    react_streamed, react_turn = read("react", case, size)
    assert fc_streamed == react_streamed == "1"
    assert fc_turn.decision == react_turn.decision == FinalAnswer("1")
    assert fc_turn.after_answer == react_turn.after_answer
    assert fc_turn.after_answer.startswith("Action: search\nAction Input:") and fc_turn.after_answer.endswith("done")
    assert fc_turn.calls_after_answer == react_turn.calls_after_answer == ("search",)
    assert fc_turn.content == case.content  # the model gets its reply back as it wrote it


def test_an_answer_alone_notes_nothing_after_it():
    _, turn = read("fc", Case((SEARCH,), "### Thought\nok\n### Final Answer\nParis."), None)
    assert turn.decision == FinalAnswer("Paris.") and turn.after_answer == "" and turn.calls_after_answer == ()


def test_react_final_step_gives_the_answer_and_what_followed():
    assert react_final_step("### Thought\nok\n### Final Answer\nParis") == ("Paris", "")
    assert react_final_step("Thought: ok\nAnswer: 1\nThought: more") == ("1", "Thought: more")
    assert react_final_step("Thought: ok\nFinal Answer: 1\nAction: search") is None  # ReAct: its answer's own line
    assert react_final_step("### Thought\nok\n### Final Answer\n") is None  # a label left empty
    assert react_final_step("### Thought\nok\n### Action\nsearch") is None  # a step, not an answer
    assert react_final_step("Thought\nok\nFinal Answer: Paris") is None  # no heading marks: prose
    assert react_final_step("### Thoughts\nok\nFinal Answer: Paris") is None


def test_a_reply_ending_in_a_line_break_still_shows_it_at_its_end():
    # the gate holds the last line break until the next text; at the end it is the answer's
    chunks = [ModelChunk(text=piece) for piece in ("Paris is", " sunny.\n")] + [ModelChunk(finish_reason="stop")]
    streamed, turn = drain(read_function_calling_turn(iter(chunks), ["search"]))
    assert streamed == "Paris is sunny.\n" and turn.decision == FinalAnswer("Paris is sunny.")


@pytest.mark.parametrize("size", [1, 7])
def test_line_breaks_before_a_label_wait_and_stream_once_text_follows(size):
    text = "Paris is sunny.\n\nFinal Answer (short): sunny."
    gate = AnswerGate(["search"])
    streamed = "".join(gate.feed(text[i : i + size]) for i in range(0, len(text), size))
    assert streamed + gate.held == text and len(gate.held) < 24


@pytest.mark.parametrize("size", [1, 7])
def test_an_empty_bulleted_label_and_its_line_breaks_are_held(size):
    text = "Paris is sunny.\n\n- ✅ Final Answer:\n"
    gate = AnswerGate(["search"])
    streamed = "".join(gate.feed(text[i : i + size]) for i in range(0, len(text), size))
    assert streamed == "Paris is sunny." and gate.held == "\n\n- ✅ Final Answer:\n"


def test_a_long_line_of_dashes_after_held_line_breaks_is_held_as_one_line_start():
    # the held line start of markdown grows without the gate reading it all again per piece
    gate = AnswerGate(["search"])
    shown = [gate.feed("Paris.\n  \n")]
    shown += [gate.feed("-") for _ in range(5000)]
    assert "".join(shown) == "Paris." and len(gate.held) == 5004  # the blank line, then the dashes
    shown.append(gate.feed("x"))
    assert "".join(shown) + gate.held == "Paris.\n  \n" + "-" * 5000 + "x"


def test_a_thought_heading_reply_is_held_prose_under_a_heading_streams():
    assert AnswerGate(["search"]).feed("### 💭 Thought\nI think") == ""
    assert AnswerGate(["search"]).feed("**Thought**\nI think") == ""
    assert AnswerGate(["search"]).feed("### Thought process\nIt went well.") == "### Thought process\nIt went well."
    assert AnswerGate(["search"]).feed("Thought\nIt went well.") == "Thought\nIt went well."


def test_an_empty_label_after_a_thought_heading_is_no_answer():
    streamed, turn = read("fc", Case((SEARCH,), "### 💭 Thought\nI know it.\n### ✅ Final Answer:"), 1)
    assert streamed == "" and isinstance(turn.decision, ParseFailure) and turn.decision.fallback == ""
