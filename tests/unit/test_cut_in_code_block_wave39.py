"""Wave 39: an answer the output limit cut inside a code block that shows a ReAct trace. In
Function Calling an ``Action: lookup`` line in that block at the cut is the answer's code, not a
cut call (it was dropped from the answer, and the rest asked as a new reply); in ReAct the rest,
read in the block the cut answer left open (``answer_code``), keeps its ``Action Input:`` and
``Observation:`` lines as code (they ended the answer, and the rest was lost)."""

import pytest

from agent_core.fences import open_block
from agent_core.function_calling.turn import read_function_calling_turn
from agent_core.model_call import ModelChunk
from agent_core.react.parser import ReactStreamParser
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ParseFailure
from tests.unit.helpers import drain
from tests.unit.test_real_world_2026 import tool

TOOLS = [tool("lookup", "q")]
START = "A trace:\n\n```text\nThought: I should search.\nAction: lookup"
REST = '\nAction Input: {"q": "a"}\nObservation: lookup found a\n```\n\nThat is all.'


def fc_read(text: str):
    chunks = [ModelChunk(text=text), ModelChunk(finish_reason="length")]
    return drain(read_function_calling_turn(iter(chunks), ToolRegistry(list(TOOLS)).prompt_tools(), reasoning_probe=False))


def test_fc_an_action_line_in_an_open_code_block_at_the_cut_is_the_answers():
    shown, turn = fc_read(START)
    assert isinstance(turn.decision, FinalAnswer) and turn.cut, turn.decision
    assert (shown + "").endswith("Action: lookup") or turn.decision.text.endswith("Action: lookup"), (shown, turn)


@pytest.mark.parametrize("text", ["Let me check.\nAction: lookup", "Let me check.\nAction:", "Action: look"])
def test_fc_a_step_cut_at_its_label_outside_code_is_still_a_cut_call(text):
    _, turn = fc_read(text)
    assert isinstance(turn.decision, ParseFailure) and turn.cut, turn.decision


def _rest(text: str, opening) -> str:
    parser = ReactStreamParser(allow_multiple_actions=True, tool_names=("lookup",), continues_answer=True,
                               answer_code=opening)
    parser.feed(text)
    parser.finish()
    return parser.result().final_answer


def test_react_a_rest_in_the_block_the_cut_answer_left_open_keeps_its_labels_as_code():
    assert _rest(REST, open_block(START)) == REST.strip()


def test_react_a_rest_that_writes_the_format_again_still_restarts_it():
    assert _rest("Thought: I go on.\nFinal Answer: the rest", open_block(START)) == "the rest"


def test_react_without_an_open_block_an_action_line_still_ends_the_rest():
    """Outside code the rest's ``Action Input:`` line ends it: the text before it is the answer's
    rest, kept, and the label is not shown as answer text."""
    assert _rest("and so on." + REST, None) == "and so on."
    assert _rest(REST, None) is None  # nothing before the label: no answer text at all
