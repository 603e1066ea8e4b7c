"""Wave 32's reading fixes, through both strategies' turn readers (the text whole and in pieces of
1 and 7 characters, as ``test_real_world_2026``):

- a Function Calling reply that ends with an empty ReAct-style ``Final Answer:`` label is no
  answer (asked again as an empty reply), or, with prose before the label, that prose alone;
- a reply that is only an empty code block is an empty reply, never an empty box in the chat;
- ``{"name": X}`` of no node tool beside call objects is kept as a call, so the tool runner tells
  the model it was not run (unknown tool) rather than dropping it in silence;
- ReAct reads a call object joined on one line after an object that is no call;
- a Function Calling reply written as a ReAct final step (a ``Thought:``, then a ``Final Answer:``
  label with text, no step after it) shows the user the answer alone; the whole reply stays the
  assistant message the model gets back;
- ReAct takes the ``AI:`` line of LangChain's conversational answer step (``Thought: Do I need to
  use a tool? No``) as the answer; an ``AI:`` line anywhere else stays text.
"""

import pytest

from agent_core import prompts
from agent_core.fences import empty_code_block
from agent_core.function_calling.turn import read_function_calling_turn
from agent_core.model_call import ModelChunk
from agent_core.tool_runner import ToolRunner
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ParseFailure, ToolCalls
from tests.unit.helpers import drain
from tests.unit.test_real_world_2026 import Case, check_reply, read, reply_params, tool

SEARCH = tool("search", "q")
FILES = (tool("list_directory"), tool("read_file", "path"))
READ_README = ("read_file", {"path": "README.md"})

CASES = {
    # ---- 1. an empty Final Answer label in Function Calling ------------------------------------
    "fc-thought-then-empty-final-answer": Case(
        (SEARCH,), "Thought: done.\nFinal Answer: ", fallback="", only=("fc",), hidden=("Thought", "Final Answer")
    ),
    "fc-empty-final-answer-alone": Case((SEARCH,), "Final Answer:", fallback="", only=("fc",), hidden=("Final",)),
    "fc-bold-thought-then-empty-final-answer": Case(
        (SEARCH,), "**Thought:** I have it.\n**Final Answer:** ", fallback="", only=("fc",), hidden=("Thought",)
    ),
    "fc-prose-then-empty-final-answer": Case(
        (SEARCH,), "Paris is the capital of France.\nFinal Answer: ", answer="Paris is the capital of France.",
        only=("fc",), hidden=("Final Answer",),
    ),
    # ReAct asks again for the same replies, as before
    "react-thought-then-empty-final-answer": Case((SEARCH,), "Thought: done.\nFinal Answer: ", only=("react",),
                                                  fallback=""),
    # ---- 2. a reply that is only an empty code block -------------------------------------------
    "empty-backtick-block": Case((SEARCH,), "```\n```", fallback="", hidden=("`",)),
    "empty-json-block": Case((SEARCH,), "```json\n```", fallback="", hidden=("`",)),
    "empty-tilde-block": Case((SEARCH,), "~~~\n~~~", fallback="", hidden=("~",)),
    "empty-block-with-blank-lines": Case((SEARCH,), "\n```json\n\n   \n```\n", fallback="", hidden=("`",)),
    # a block with text in it is an answer, whole
    "tilde-block-with-code": Case((SEARCH,), "~~~\nprint(1)\n~~~", answer="~~~\nprint(1)\n~~~"),
    # ---- 3. {"name": X} of no node tool beside call objects ------------------------------------
    "name-of-no-node-tool-in-a-list": Case(
        FILES, '[{"name": "list_dir"}, {"name": "read_file", "arguments": {"path": "README.md"}}]',
        calls=[("list_dir", {}), READ_README],
    ),
    "name-of-no-node-tool-on-the-line-above": Case(
        FILES, '{"name": "list_dir"}\n{"name": "read_file", "arguments": {"path": "README.md"}}',
        calls=[("list_dir", {}), READ_README],
    ),
    "name-of-no-node-tool-joined-after": Case(
        FILES, '{"name": "read_file", "arguments": {"path": "README.md"}} {"name": "list_dir"}',
        calls=[READ_README, ("list_dir", {})],
    ),
    # alone, a name is a record an answer shows, as before
    "name-of-no-node-tool-alone": Case(FILES, '{"name": "list_dir"}', answer='{"name": "list_dir"}'),
    # ---- 4. ReAct: a call object after an object that is no call, on one line -----------------
    "react-call-after-a-note-object": Case(
        (SEARCH,), '{"note": 1} {"action": "search", "action_input": {"q": "x"}}', calls=[("search", {"q": "x"})],
        only=("react",),
    ),
    "react-call-after-a-note-object-after-a-thought": Case(
        (SEARCH,), 'Thought: I will search.\n{"note": 1} {"action": "search", "action_input": {"q": "x"}}',
        calls=[("search", {"q": "x"})], only=("react",),
    ),
    # objects that are no calls stay the answer, whole
    "react-two-records-on-a-line": Case((SEARCH,), '{"a": 1} {"b": 2}', answer='{"a": 1} {"b": 2}', only=("react",)),
    "react-records-and-prose": Case(
        (SEARCH,), '{"a": 1} then {"b": 2} done', answer='{"a": 1} then {"b": 2} done', only=("react",)
    ),
    # ---- 5. a ReAct final step in Function Calling: the answer alone ---------------------------
    "thought-then-final-answer": Case(
        (SEARCH,), "Thought: I know it.\nFinal Answer: Paris", answer="Paris", hidden=("Thought", "Final Answer")
    ),
    "bold-thought-then-final-answer": Case(
        (SEARCH,), "**Thought:** I have it.\n**Final Answer:** **Paris** is the capital.",
        answer="**Paris** is the capital.", hidden=("Thought", "Final Answer", "I have it"),
    ),
    "thought-then-final-answer-over-lines": Case(
        (SEARCH,), "Thought: two facts.\n\nFinal Answer: Paris.\n\n- It is in France.\n- It is big.",
        answer="Paris.\n\n- It is in France.\n- It is big.", hidden=("Thought", "Final Answer", "two facts"),
    ),
    # a step written on after the answer is left out of it, as ReAct leaves it (wave 33: logged, not run)
    "fc-final-answer-then-an-action": Case(
        (SEARCH,), "Thought: x\nFinal Answer: Paris\nAction: lookup\nAction Input: y",
        answer="Paris", hidden=("Action", "lookup"),
    ),
    # anything else is shown as before: an invented observation before the answer
    "fc-invented-step-before-the-final-answer": Case(
        (SEARCH,), "Thought: x\nObservation: 3\nThought: ok\nFinal Answer: 3",
        answer="Thought: x\nObservation: 3\nThought: ok\nFinal Answer: 3", only=("fc",),
    ),
    "fc-thought-without-final-answer": Case(
        (SEARCH,), "Thought: x\nParis", answer="Thought: x\nParis", only=("fc",)
    ),
    # ---- 6. ReAct: LangChain's conversational answer label ------------------------------------
    "react-conversational-ai-answer": Case(
        (SEARCH,), "Thought: Do I need to use a tool? No\nAI: Paris is the capital.\n\nIt is in France.",
        answer="Paris is the capital.\n\nIt is in France.", only=("react",), hidden=("AI:", "Do I need"),
    ),
    "react-conversational-ai-answer-bold": Case(
        (SEARCH,), "**Thought:** Do I need to use a tool? No.\n**AI:** Paris.", answer="Paris.", only=("react",),
    ),
    # an AI: line after any other Thought is a Thought's text, asked again as before
    "react-ai-line-in-a-thought": Case(
        (SEARCH,), "Thought: I will write a dialogue.\nAI: hello", fallback="", only=("react",), hidden=("hello",)
    ),
    # an invented Human: turn ends the answer (wave 35: as an invented Observation does); a second
    # step after the answer: asked again, nothing shown
    "react-conversational-answer-then-human-turn": Case(
        (SEARCH,), "Thought: Do I need to use a tool? No\nAI: Paris.\nHuman: and Spain?", answer="Paris.",
        only=("react",), hidden=("Spain", "Human"),
    ),
    "react-conversational-answer-then-another-thought": Case(
        (SEARCH,), "Thought: Do I need to use a tool? No\nAI: Paris.\nThought: Do I need to use a tool? No\nAI: x",
        fallback="", only=("react",), hidden=("Paris",),
    ),
    "react-conversational-empty-answer": Case(
        (SEARCH,), "Thought: Do I need to use a tool? No\nAI: ", fallback="", only=("react",)
    ),
}


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize(("name", "strategy"), list(reply_params(CASES, {})))
def test_wave32_reply(name, strategy, size):
    check_reply(CASES, name, strategy, size)


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("text", ["Thought: done.\nFinal Answer: ", "```\n```", "~~~\n\n~~~"])
def test_a_reply_that_says_nothing_is_asked_again_as_an_empty_reply(text, size):
    streamed, turn = read("fc", Case((SEARCH,), text), size)
    assert streamed == ""
    assert turn.decision == ParseFailure(prompts.EMPTY_REPLY)


@pytest.mark.parametrize("size", [None, 1, 7])
def test_an_empty_block_is_an_empty_reply_in_react_too(size):
    streamed, turn = read("react", Case((SEARCH,), "```json\n```"), size)
    assert streamed == "" and turn.decision == ParseFailure(prompts.EMPTY_REPLY)


@pytest.mark.parametrize("size", [None, 1, 7])
def test_a_filled_final_answer_label_still_streams_as_written(size):
    streamed, turn = read("fc", Case((SEARCH,), "Final Answer: Paris"), size)
    assert streamed == "Final Answer: Paris" and turn.decision == FinalAnswer("Final Answer: Paris")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("```\n```", True), ("```json\n\n```", True), ("~~~\n~~~\n", True), ("```\n````", True),
        ("```\nx\n```", False), ("```\n~~~", False), ("````\n```", False), ("```", False), ("```\n``` x", False),
    ],
)
def test_empty_code_block(text, expected):
    assert empty_code_block(text) is expected


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_the_model_is_told_a_name_of_no_node_tool_was_not_run(strategy):
    """The kept call reaches the tool runner, which answers it as an unknown tool's call."""
    _, turn = read(strategy, Case(FILES, '[{"name": "list_dir"}, {"name": "read_file", "arguments": {"path": "a"}}]'),
                   None)
    assert isinstance(turn.decision, ToolCalls)
    unknown = turn.decision.calls[0]
    runner = ToolRunner(None, ToolRegistry(list(FILES)), timeout=1.0, observation_tokens=100)
    problem, _ = runner._checked(unknown)
    assert problem == prompts.UNKNOWN_TOOL.format(name="list_dir", available="list_directory, read_file")


@pytest.mark.parametrize("size", [None, 1, 7])
def test_a_react_final_step_goes_back_to_the_model_whole(size):
    """Only the answer is shown; the assistant message the model gets back is the reply as its
    model plugin returned it, labels and Thought included."""
    text = "Thought: I know it.\nFinal Answer: Paris"
    streamed, turn = read("fc", Case((SEARCH,), text), size)
    assert streamed == "Paris" and turn.decision == FinalAnswer("Paris")
    assert turn.content == text and turn.raw == text


@pytest.mark.parametrize("size", [None, 1, 7])
def test_a_cut_react_final_step_shows_its_answer_without_its_labels(size):
    """A ReAct-style final step the output limit cut inside its answer: the answer so far is
    shown without the labels, and continued (wave 35: the user read "Thought: ... Final Answer:"
    before the rest); the model gets the reply back as it came."""
    text = "Thought: I know it.\nFinal Answer: Par"
    chunks = [ModelChunk(text=text[i : i + (size or len(text))]) for i in range(0, len(text), size or len(text))]
    streamed, turn = drain(read_function_calling_turn(iter([*chunks, ModelChunk(finish_reason="length")]), ["search"]))
    assert streamed == "Par" and turn.decision == FinalAnswer("Par") and turn.cut
    assert turn.content == text
