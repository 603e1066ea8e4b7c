"""A JSON step cut by the output limit inside its answer (``json_step.cut_answer`` and
``read_json_step_turn``): the answer read so far is the decision, shown at the cut, whatever
layout the step used; a step naming a tool, or no action yet, is asked again and never run."""

import json
import time

import pytest
from dify_plugin.entities.model.message import PromptMessageTool

from agent_core import prompts
from agent_core.model_call import ModelChunk
from agent_core.react.json_step import cut_answer, read_json_step_turn
from agent_core.turn import FinalAnswer, ParseFailure, ToolCalls
from tests.unit.test_json_step import drain

SEARCH = PromptMessageTool(
    name="search", description="Search", parameters={"type": "object", "properties": {"q": {"type": "string"}}}
)
NAMES = {"search"}


def read_cut(text, tools=(SEARCH,), size=7, **kwargs):
    pieces = [text[i : i + size] for i in range(0, len(text), size)]
    chunks = [ModelChunk(text=piece) for piece in pieces] + [ModelChunk(text="", finish_reason="length")]
    return drain(read_json_step_turn(iter(chunks), list(tools), 1, **kwargs))


@pytest.mark.parametrize(
    "text",
    [
        '{"action": "Final Answer", "action_input": "Paris is the capi',
        '{"action": "final_answer", "action_input": "Paris is the capi',
        '{"action":"final-answer","action_input":{"answer":"Paris is the capi',
        '{"thought": "I know \\"action\\": \\"search\\"", "action": "Final Answer", "action_input": "Paris is the capi',
        '```json\n{\n  "action": "Final Answer",\n  "action_input": {"note": {"a": [1, "}"]}, "answer": "Paris is the capi',
    ],
)
def test_a_cut_answer_is_read_as_far_as_it_goes_in_every_layout(text):
    assert cut_answer(text, NAMES) == ("Paris is the capi", False)
    texts, turn = read_cut(text)
    assert "".join(texts) == "Paris is the capi" and turn.decision == FinalAnswer("Paris is the capi")
    assert turn.cut, "its rest is asked for"


def test_escapes_are_decoded_and_one_cut_in_half_is_left_for_the_rest():
    assert cut_answer('{"action": "Final Answer", "action_input": "a\\nb \\u00e9 \\"q\\" \\u00', NAMES) == (
        'a\nb é "q" ',
        False,
    )


def test_an_answer_whose_string_closed_before_the_cut_is_whole():
    text = '{"action": "Final Answer", "action_input": "Paris is the capital."'
    assert cut_answer(text, NAMES) == ("Paris is the capital.", True)
    texts, turn = read_cut(text)
    assert "".join(texts) == "Paris is the capital." and not turn.cut, "nothing is asked for"
    _, turn = read_cut(json.dumps({"action": "final_answer", "action_input": {"answer": "Whole."}}))
    assert turn.decision == FinalAnswer("Whole.") and not turn.cut
    _, turn = read_cut('{"action": "final_answer", "action_input": {"answer": "Whole."}')
    assert turn.decision == FinalAnswer("Whole.") and not turn.cut


@pytest.mark.parametrize(
    "text",
    [
        '{"action": "search", "action_input": {"q": "Paris is the capi',
        '{"action": "search", "action_input": "Paris is the capi',
        '{"action_input": "Paris is the capi", "action": "sear',
        '{"action_input": "Paris is the capi',
        '{"action": "Final Ans',
        '{"action": "Final Answer", "action_input": {"text": "Paris',
        '{"action": "Final Answer", "action_input": {"answer": 12',
        '{"action": "Final Answer", "action_input": "   ',
        '[{"action": "Final Answer", "action_input": "Paris',
        'Here it is: {"action": "Final Answer", "action_input": "Paris',
        '{"thought": "\\"action\\": \\"final_answer\\", \\"action_input\\": \\"Paris',
    ],
)
def test_a_cut_step_that_is_no_answer_is_asked_again_and_runs_nothing(text):
    assert cut_answer(text, NAMES) is None
    texts, turn = read_cut(text)
    assert texts == [] and turn.decision == ParseFailure(prompts.REPLY_CUT)


def test_a_node_tool_named_final_answer_is_a_tool_step_not_run():
    tool = PromptMessageTool(name="Final Answer", description="Posts", parameters={"type": "object", "properties": {}})
    text = '{"action": "Final Answer", "action_input": "Paris'
    assert cut_answer(text, {"Final Answer"}) is None
    texts, turn = read_cut(text, tools=(tool,))
    assert texts == [] and turn.decision == ParseFailure(prompts.REPLY_CUT)


def test_a_whole_tool_step_at_the_limit_stays_cut():
    _, turn = read_cut(json.dumps({"action": "search", "action_input": {"q": "x"}}))
    assert isinstance(turn.decision, ToolCalls) and turn.cut, "the loop refuses to run a cut reply's calls"


def test_an_answer_in_the_users_schema_is_not_read_in_part():
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    texts, turn = read_cut('{"action": "Final Answer", "action_input": "Paris', answer_schema=schema)
    assert texts == [] and turn.decision == ParseFailure(prompts.REPLY_CUT)


def test_a_long_cut_answer_is_read_in_time_linear_in_its_length():
    answer = 'word \\"q\\" \\u00e9 ' * 200_000  # 3.6 MB of escapes and text
    text = '{"thought": "' + "t " * 200_000 + '", "action": "Final Answer", "action_input": {"answer": "' + answer
    started = time.process_time()
    read = cut_answer(text, NAMES)
    # CPU seconds (about 0.9; a loaded machine stretched the wall time past 2 s): a reading
    # quadratic in 3.6 MB would take hours
    assert time.process_time() - started < 5
    assert read is not None and read[0].startswith('word "q" é ') and not read[1]
