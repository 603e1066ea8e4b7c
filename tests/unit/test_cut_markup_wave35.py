"""A Function Calling reply the output limit cut inside a call's own markup (the wave-35 fuzz
campaign): the markup reader held the open block, and at the end of the stream let it go as text,
so the cut call was the answer (and its continuation was glued to it). A cut call is never an
answer: the reply is asked again, shorter, whatever its chunking."""

import pytest

from agent_core import prompts
from agent_core.function_calling.turn import read_function_calling_turn
from agent_core.model_call import ModelChunk
from agent_core.turn import FinalAnswer, ParseFailure
from tests.unit.helpers import drain

CUT_CALLS = [
    'Let me see.\n<function name="get_weather"><param name="cit',  # MiniCPM5, the shrunk case
    "Checking.\n<get_weather>\n<city>Par",  # Cline's element named after the tool
    '<minimax:tool_call><invoke name="get_weather"><parameter name="city">Par',
]


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("reply", CUT_CALLS)
def test_a_reply_cut_inside_a_calls_markup_is_asked_again_not_answered(reply, size):
    pieces = [reply] if size is None else [reply[i : i + size] for i in range(0, len(reply), size)]
    chunks = [ModelChunk(text=piece) for piece in pieces] + [ModelChunk(finish_reason="length")]
    _, turn = drain(read_function_calling_turn(iter(chunks), ["lookup", "get_weather"]))
    assert turn.decision == ParseFailure(prompts.REPLY_CUT)


def test_an_answer_cut_after_html_stays_an_answer_to_continue():
    reply = "Paris is big and <b>bold</b> and wor"
    chunks = [ModelChunk(text=reply), ModelChunk(finish_reason="length")]
    _, turn = drain(read_function_calling_turn(iter(chunks), ["lookup", "get_weather"]))
    assert turn.decision == FinalAnswer(reply)
