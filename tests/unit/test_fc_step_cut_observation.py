"""A Function Calling reply written as a ReAct step with an invented observation after it, cut by
the output limit inside that observation's label (``...Action Input： {"q": "x"}\\n**Ob``: the
wave-35 fuzz campaign). An invented ``Observation:`` after a step is dropped, but a start of one
was not read as a label: the step was no step, and its text (the call's argument with it) was the
answer to continue. A start of the label (or of the markdown or emoji before it) a cut reply ends
with is dropped as the whole label is: the step is never shown and, the reply being cut, its call
is not run (``ModelTurn.cut``: the loop asks again). Each reply is read whole, in pieces of 1, 2
and 7 characters, and in random pieces."""

import random

import pytest

from agent_core import prompts
from agent_core.function_calling.turn import read_function_calling_turn
from agent_core.model_call import ModelChunk
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ParseFailure, ToolCalls
from tests.unit.helpers import drain
from tests.unit.test_real_world_2026 import tool

TOOLS = [tool("lookup", "q"), tool("get_weather", "city")]
STEP = 'Thought: I should look.\nAction: lookup\nAction Input： {"q": "x"}\n'
CUT_LABELS = ["**Ob", "O", "Obs", "Observatio", "### ", "#", "👀", "👀 Obse", "**观", "観", "관"]


def chunkings(text: str) -> list[list[str]]:
    """``text`` whole, in pieces of 1, 2 and 7 characters, and in random pieces of 1 to 12 (seeded)."""
    out = [[text]] + [[text[i : i + size] for i in range(0, len(text), size)] for size in (1, 2, 7)]
    rnd = random.Random(len(text))
    for _ in range(5):
        pieces, at = [], 0
        while at < len(text):
            size = rnd.randint(1, 12)
            pieces.append(text[at : at + size])
            at += size
        out.append(pieces)
    return out


def read(pieces: list[str], finish_reason: str = "length"):
    chunks = [ModelChunk(text=piece) for piece in pieces] + [ModelChunk(finish_reason=finish_reason)]
    return drain(read_function_calling_turn(iter(chunks), ToolRegistry(list(TOOLS)).prompt_tools(), reasoning_probe=False))


@pytest.mark.parametrize("tail", CUT_LABELS)
def test_a_step_cut_inside_its_invented_observation_label_is_never_shown_nor_run(tail):
    for pieces in chunkings(STEP + tail):
        shown, turn = read(pieces)
        assert shown == "", pieces
        assert isinstance(turn.decision, ToolCalls), (pieces, turn.decision)
        assert [(c.name, c.arguments) for c in turn.decision.calls] == [("lookup", {"q": "x"})]
        assert turn.cut  # at the output limit: the loop runs none of its calls and asks again


@pytest.mark.parametrize("tail", ["**Ob", "###"])
def test_the_same_step_cut_inside_the_whole_label_reads_the_same(tail):
    whole = read([STEP + "**Observation:** made up"])[1].decision
    assert whole == read([STEP + tail])[1].decision


@pytest.mark.parametrize("size", [1, 7])
def test_prose_after_a_step_cut_by_the_limit_is_still_no_step(size):
    """Nothing of it runs. Since wave 38 a reply written as a step and cut before any answer
    text is asked again (``REPLY_CUT``), never shown as the answer's start; not cut, it is the
    answer as written."""
    text = STEP + "Obviously"
    shown, turn = read([text[i : i + size] for i in range(0, len(text), size)])
    assert isinstance(turn.decision, ParseFailure) and turn.decision.problem == prompts.REPLY_CUT
    assert shown == "" and turn.cut
    shown, turn = read([text[i : i + size] for i in range(0, len(text), size)], finish_reason="stop")
    assert isinstance(turn.decision, FinalAnswer) and turn.decision.text.startswith("Thought: I should look.")
