"""Reasoning sent apart (``reasoning_content``) and the rest of a template-opened block in the content.

A server may send part of a reply's reasoning in ``reasoning_content`` and the rest in the content,
up to a bare ``</think>`` (vLLM's reasoning parsers when a stop buffer holds the end token's text
back: vllm-project/vllm#51641, #39044). For a model whose template may open the block
(``reasoning_opened``), both strategies hold the content's first ``think.APART_HOLD`` characters
for that tag: the text before it is reasoning, never shown; a reply cut before it is a cut reply
(asked again), not a cut answer; with no tag at all, the held text is the answer.
"""

import pytest

from agent_core import prompts
from agent_core.function_calling.turn import read_function_calling_turn
from agent_core.model_call import ModelChunk
from agent_core.react.turn import read_react_turn
from agent_core.think import APART_HOLD, ThinkSplitter
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ParseFailure
from tests.unit.helpers import drain
from tests.unit.test_real_world_2026 import tool

APART = "The user asks for 2 + 2."
TAIL = "So it is four, simple arithmetic.\n</think>\n\n"


def chunkings(text: str) -> list[list[str]]:
    return [[text], list(text), [text[i : i + 7] for i in range(0, len(text), 7)]]


def chunks(pieces: list[str], finish: str = "stop") -> list[ModelChunk]:
    return [ModelChunk(reasoning=APART), *(ModelChunk(text=piece) for piece in pieces), ModelChunk(finish_reason=finish)]


def fc(pieces: list[str], finish: str = "stop", opened: bool = True):
    return drain(read_function_calling_turn(iter(chunks(pieces, finish)), ["get_weather"], reasoning_opened=opened))


def react(pieces: list[str], finish: str = "stop", opened: bool = True):
    registry = ToolRegistry([tool("get_weather", "city")])
    return drain(read_react_turn(iter(chunks(pieces, finish)), registry, 1, reasoning_opened=opened))


@pytest.mark.parametrize("pieces", chunkings(TAIL + "The answer is 4."))
def test_function_calling_shows_only_what_follows_the_bare_end_after_reasoning_apart(pieces):
    streamed, turn = fc(pieces)
    assert streamed == "The answer is 4." and turn.decision == FinalAnswer("The answer is 4.")
    assert APART in turn.reasoning and "simple arithmetic" in turn.reasoning
    assert turn.content == "".join(pieces)  # what goes back to the model plugin: as it came


@pytest.mark.parametrize("pieces", chunkings(TAIL + "Thought: I know it.\nFinal Answer: The answer is 4."))
def test_react_shows_only_what_follows_the_bare_end_after_reasoning_apart(pieces):
    streamed, turn = react(pieces)
    assert streamed == "The answer is 4." and turn.decision == FinalAnswer("The answer is 4.")
    assert "simple arithmetic" in turn.reasoning and "simple arithmetic" not in turn.thought
    assert turn.content == "".join(pieces)


@pytest.mark.parametrize("read", [fc, react])
@pytest.mark.parametrize("pieces", chunkings("So it is four, simple arith"))
def test_a_reply_cut_before_the_bare_end_is_a_cut_reply_not_a_cut_answer(read, pieces):
    streamed, turn = read(pieces, "length")
    assert streamed == ""
    assert isinstance(turn.decision, ParseFailure) and turn.decision.problem == prompts.REPLY_CUT
    assert "simple arith" in turn.reasoning


@pytest.mark.parametrize("pieces", chunkings("The answer is 4."))
def test_an_answer_with_no_bare_end_is_still_shown_at_the_end(pieces):
    streamed, turn = fc(pieces)
    assert streamed == "The answer is 4." and turn.decision == FinalAnswer("The answer is 4.")
    streamed, turn = react(["Thought: easy.\nFinal Answer: The answer is 4."])
    assert streamed == "The answer is 4." and turn.decision == FinalAnswer("The answer is 4.")


def test_a_long_answer_streams_once_the_held_characters_came_with_no_bare_end():
    answer = " ".join(["word"] * (APART_HOLD // 5 + 40))
    pieces = [answer[i : i + 10] for i in range(0, len(answer), 10)]
    reader = read_function_calling_turn(iter(chunks(pieces)), ["get_weather"], reasoning_opened=True)
    first = next(reader)  # text is shown before the reply ended (the last chunks not read yet)
    assert answer.startswith(first) and len(first) >= APART_HOLD - 10
    streamed, turn = drain(reader)
    assert first + streamed == answer and turn.decision == FinalAnswer(answer)


def test_a_bare_end_past_the_held_characters_is_read_as_in_any_reply():
    """Past ``APART_HOLD`` the held text streamed as the answer: a later ``</think>`` is the
    usual stray end (dropped), not a reason to take back what was shown."""
    splitter = ThinkSplitter(opened=True)
    splitter.note_reasoning_apart()
    long = "x" * (APART_HOLD + 10)
    shown = splitter.feed(long).visible + splitter.feed(" more</think>end").visible + splitter.finish().visible
    assert shown.startswith(long) and "</think>" not in shown and shown.endswith("end")


def test_stopped_while_held_after_reasoning_apart_shows_nothing():
    """The stream failed before the bare end: what was held may be reasoning, none of it shown."""
    splitter = ThinkSplitter(opened=True)
    splitter.note_reasoning_apart()
    assert splitter.feed("still thinking about it").visible == ""
    assert splitter.stopped().visible == ""


def test_a_model_not_known_to_open_its_block_streams_content_after_reasoning_apart():
    """No hold without ``reasoning_opened`` (a hosted API's reasoning model): its answer streams."""
    answer = " ".join(["word"] * (APART_HOLD // 5 + 40))
    pieces = [answer[i : i + 10] for i in range(0, len(answer), 10)]
    first = next(read_function_calling_turn(iter(chunks(pieces)), ["get_weather"]))
    assert answer.startswith(first) and len(first) < APART_HOLD - 10  # (the answer gate's own hold only)
