"""Two readings of a Function Calling reply, whole and in pieces of 1 and 7 characters:

1. the words ``Final answer`` ending a reply are its words: only a ``Final Answer`` label with
   its colon, a heading or bold line holding it (the ReAct parser's label heading), or a line of
   it after a ReAct ``Thought:`` is a label left empty (``fallback.label_left``). vLLM's Seed-OSS
   and Solar Open 2 reasoning parser tests end their replies with the answer ``Final answer``:
   Function Calling took it for an empty label and asked again; ReAct showed it.
2. a ReAct step written as text that names a node tool, whose ``Action Input`` does not read
   without a guess, is a call written broken: the model is asked again
   (``prompts.TOOL_CALL_UNREADABLE``), the step never shown; before, the user saw the step as the
   answer. A step naming no tool stays the text it was.
"""

import pytest

from agent_core import prompts
from agent_core.fallback import label_left
from agent_core.model_call import ModelChunk
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ParseFailure, ToolCalls
from tests.unit.helpers import drain
from tests.unit.test_fc_react_step_calls import TOOLS, read
from tests.unit.test_real_world_2026 import Case, check_reply, chunks_of, reply_params, tool

WEATHER = (tool("get_weather", "city"),)
FC = ("fc",)

CASES = {
    # ---- 1. the words are the answer, in both strategies -----------------------------------------------
    "only-the-words": Case(WEATHER, "Final answer", answer="Final answer"),
    "the-words-in-a-sentence": Case(WEATHER, "The final answer", answer="The final answer"),
    "the-words-as-the-last-line": Case(WEATHER, "Step 1: analyze\nFinal answer", answer="Step 1: analyze\nFinal answer"),
    "the-words-after-reasoning-closed": Case(
        WEATHER, "<think>Weigh it.</think>Final answer", answer="Final answer", hidden=("Weigh",),
    ),
    "the-words-in-a-list-line": Case(WEATHER, "Paris.\n- Final answer", answer="Paris.\n- Final answer"),
    # ---- 1. a label left empty stays one ----------------------------------------------------------------
    "a-label-with-its-colon-alone": Case(WEATHER, "Final Answer:", fallback="", only=FC),
    "a-heading-label-alone": Case(WEATHER, "### Final Answer", fallback="", only=FC),
    "a-bold-label-alone": Case(WEATHER, "**Final Answer**", fallback="", only=FC),
    "a-heading-label-after-prose": Case(WEATHER, "Paris is sunny.\n## ✅ Final Answer", answer="Paris is sunny.",
                                        hidden=("Final Answer",), only=FC),
    "a-bold-label-with-colon-after-prose": Case(WEATHER, "Paris is sunny.\n**Final Answer:**", answer="Paris is sunny.",
                                                hidden=("Final Answer",), only=FC),
    "the-words-alone-after-a-thought": Case(WEATHER, "Thought: I know it.\nFinal Answer", fallback=""),
}


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize(("name", "strategy"), list(reply_params(CASES, {})))
def test_final_words(name, strategy, size):
    check_reply(CASES, name, strategy, size)


def test_label_left_reads_a_label_not_the_words():
    assert label_left("Final answer") is None
    assert label_left("Step 2: solve\nFinal answer") is None
    assert label_left("Paris.\n- ✅ Final Answer") is None
    assert label_left("Paris.\nFinal Answer:") == len("Paris.")
    assert label_left("Paris.\n### Final Answer") == len("Paris.")
    assert label_left("Paris.\n__Final Answer__  ") == len("Paris.")
    assert label_left("### Thought\nI know it.\nFinal Answer") == len("### Thought\nI know it.")


STEP_BROKEN = {
    "json-that-does-not-decode": 'Action: search\nAction Input: {"query": 37 * 91}',
    "json-never-closed": 'Thought: look it up.\nAction: search\nAction Input: {"query": "paris"',
    "text-for-two-parameters": "Action: get_weather\nAction Input: Paris in C",
    "bold-labels": '**Action:** search\n**Action Input:** {"query": 37 * 91}',
    "one-of-two-steps": 'Action: search\nAction Input: {"query": "paris"}\nThought: and the weather.\n'
                        "Action: get_weather\nAction Input: Paris in C",
}


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("name", list(STEP_BROKEN))
def test_a_step_whose_input_does_not_read_is_asked_again_unseen(name, size):
    streamed, turn = read("fc", Case(TOOLS, STEP_BROKEN[name]), size)
    assert turn.decision == ParseFailure(prompts.TOOL_CALL_UNREADABLE)
    assert streamed == ""
    assert turn.content == STEP_BROKEN[name]  # the reply goes back as written


@pytest.mark.parametrize("size", [None, 1, 7])
def test_prose_before_a_broken_step_stays_shown_and_the_step_never_streams(size):
    streamed, turn = read("fc", Case(TOOLS, "Let me check.\n" + STEP_BROKEN["text-for-two-parameters"]), size)
    assert streamed == "Let me check.\n"
    assert turn.decision == ParseFailure(prompts.TOOL_CALL_UNREADABLE)


@pytest.mark.parametrize("size", [None, 1, 7])
def test_a_broken_step_naming_no_tool_is_the_answer(size):
    text = "Action: lookup\nAction Input: Paris in C"
    streamed, turn = read("fc", Case(TOOLS, text), size)
    assert turn.decision == FinalAnswer(text)
    assert streamed == text


@pytest.mark.parametrize("size", [None, 1, 7])
def test_a_broken_step_the_output_limit_cut_is_asked_again_shorter(size):
    chunks = [*chunks_of(Case(TOOLS, 'Action: search\nAction Input: {"query": "par'), size)[:-1],
              ModelChunk(finish_reason="length")]
    streamed, turn = drain(read_fc(chunks))
    assert turn.decision == ParseFailure(prompts.REPLY_CUT)
    assert streamed == ""


def test_a_readable_step_still_runs():
    _, turn = read("fc", Case(TOOLS, 'Action: search\nAction Input: {"query": "paris"}'), None)
    assert isinstance(turn.decision, ToolCalls)
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [("search", {"query": "paris"})]


def read_fc(chunks):
    from agent_core.function_calling.turn import read_function_calling_turn

    return read_function_calling_turn(iter(chunks), ToolRegistry(list(TOOLS)).prompt_tools(), reasoning_probe=False)
