"""The answer gate: prose streams at once; a reply that starts like a tool call written as text is held."""

import pytest

from agent_core.function_calling.turn import AnswerGate


def feed_all(pieces):
    gate = AnswerGate()
    streamed = "".join(gate.feed(piece) for piece in pieces)
    return streamed, gate.held


@pytest.mark.parametrize("text", ["Hello there", "Action movies are fun", "  The answer is 4", "Acting quickly"])
def test_prose_streams(text):
    streamed, held = feed_all([text[:3], text[3:]])
    assert streamed == text and held == ""


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
