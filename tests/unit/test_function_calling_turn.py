"""The answer gate: prose streams at once; a reply that starts like a tool call written as text is held."""

import pytest

from agent_core.function_calling.turn import AnswerGate, read_function_calling_turn
from agent_core.model_call import ModelChunk
from agent_core.turn import FinalAnswer
from tests.unit.helpers import drain


def feed_all(pieces):
    gate = AnswerGate()
    streamed = "".join(gate.feed(piece) for piece in pieces)
    return streamed, gate.held


@pytest.mark.parametrize("text", ["Hello there", "Action movies are fun", "  The answer is 4", "Acting quickly"])
def test_prose_streams(text):
    streamed, held = feed_all([text[:3], text[3:]])
    assert streamed == text.lstrip() and held == ""


def test_the_answer_streams_without_the_whitespace_it_starts_with_and_keeps_the_rest():
    streamed, held = feed_all(["\n", "\n ", "\tThe answer", " is:\n\n  4 ", "\n"])
    assert streamed == "The answer is:\n\n  4 \n" and held == ""


@pytest.mark.parametrize(
    "text",
    ['{"name": "get_weather"}', "<tool_call>{}</tool_call>", "```json\n{}\n```", "Action:\n{}", "action :{}", "[{}]"],
)
def test_call_like_replies_are_held(text):
    streamed, held = feed_all(list(text))
    assert streamed == "" and held == text


def test_undecided_prefix_is_held_until_the_end():
    streamed, held = feed_all(["Act"])
    assert streamed == "" and held == "Act"


def answer_of(pieces, tools=("get_weather",)):
    """(streamed text, the turn) of a model call whose content arrives in ``pieces``."""
    chunks = [ModelChunk(text=piece) for piece in pieces] + [ModelChunk(finish_reason="stop")]
    return drain(read_function_calling_turn(iter(chunks), tools))


@pytest.mark.parametrize(
    "pieces",
    [
        ["<think>\n", "plan it", "\n</think>\n\n", "The answer", " is 4."],  # Anthropic's plugin
        ["<think>\nplan it\n</think>\n", "The answer is 4."],  # MiniMax's plugin
        ["\n\n", "The answer is 4."],
    ],
)
def test_a_final_answer_after_a_reasoning_block_starts_with_its_first_visible_character(pieces):
    streamed, turn = answer_of(pieces)
    assert streamed == "The answer is 4."
    assert turn.decision == FinalAnswer("The answer is 4.")
    assert turn.content == "".join(pieces)  # the model gets its own message back as sent


def test_a_held_reply_that_is_an_answer_after_all_is_released_without_its_leading_whitespace():
    streamed, turn = answer_of(["\n\n", "[1, 2] are ", "the numbers.\n\n  Done."], tools=("get_weather",))
    assert streamed == "[1, 2] are the numbers.\n\n  Done."
    assert turn.decision == FinalAnswer("[1, 2] are the numbers.\n\n  Done.")
    streamed, turn = answer_of([" \n", "Act"])  # still undecided at the end
    assert streamed == "Act" and turn.decision == FinalAnswer("Act")


@pytest.mark.parametrize("marker", ["<tool_call>", "<|tool_calls_section_begin|>", "[TOOL_CALLS]", "<minimax:tool_call>"])
def test_the_gate_streams_prose_and_holds_from_call_markup_on(marker):
    gate = AnswerGate()
    text = f"Let me check. {marker}rest of the call"
    streamed = "".join(gate.feed(text[i : i + 3]) for i in range(0, len(text), 3))
    assert streamed == "Let me check. "
    assert gate.held == f"{marker}rest of the call"
    assert gate.streamed


def test_the_gate_passes_on_a_tail_that_never_became_markup():
    gate = AnswerGate()
    assert gate.feed("a < b and [1, 2] I <too") == "a < b and [1, 2] I "  # "<too" may become "<tool_call>"
    assert gate.held == "<too"
    assert gate.feed("k it") == "<took it"
    assert gate.held == ""
