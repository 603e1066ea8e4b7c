"""A reply whose stream fails (or goes silent) while text is held: the answer text held back is
shown before the error, never call markup, a start of a call, a step label or reasoning.

A one-word answer streamed in small pieces ("Ye", "s") is held whole by the call-markup reader
(it may still be a name above JSON arguments) and by the answer gate (Gemini's
``WORD:default_api:NAME{`` may still follow it): a failing stream lost it, while "Paris is the
capital" (decided at its first space) showed.
"""

import pytest

from agent_core.call_markup import CallMarkup
from agent_core.function_calling.turn import AnswerGate, read_function_calling_turn
from agent_core.model_call import ModelChunk
from agent_core.react.turn import read_react_turn
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer
from tests.unit.helpers import drain, failing, shown_before_failure

TOOLS = ["get_weather"]


def pieces(text: str, size: int = 2) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def fc_shown(text: str, **options) -> str:
    return shown_before_failure(read_function_calling_turn(failing(pieces(text)), TOOLS, **options))


def react_shown(text: str) -> str:
    return shown_before_failure(read_react_turn(failing(pieces(text)), ToolRegistry(None), 1))


@pytest.mark.parametrize("probe", [True, False])
@pytest.mark.parametrize("text", ["Yes", "partial", "  Yes", "1", "こんにちは", "Yes\n"])
def test_a_short_answer_held_at_its_start_is_shown_when_the_stream_fails(text, probe):
    assert fc_shown(text, reasoning_probe=probe) == text.lstrip()


@pytest.mark.parametrize("text", ["Yes", "partial", "1"])
def test_react_shows_the_same_short_answer(text):
    assert react_shown(text) == text


@pytest.mark.parametrize("text", [
    "get_wea",  # a start of a tool's name: a name above its arguments may have been cut
    "get_weather",
    "Ye:defa",  # Gemini's WORD:default_api:NAME{ cut in its head
    "call:get",  # Gemma 4's bare call
    "to=fun",  # a Harmony recipient whose tokens the server left out
    '{"name": "get_weather", "argu',
    "<tool_call>{",
    "Yes\n{",
    "Thou",  # a ReAct-style Thought label, held whole as a step
    "Thought: I should look",
    "Thought: look.\nAction: get_weather",
    "Thought: ok.\nFinal Answer:",  # an empty label: no answer
])
def test_a_held_start_of_a_call_or_a_step_is_not_shown_when_the_stream_fails(text):
    assert fc_shown(text) == ""


@pytest.mark.parametrize("text", [
    "analysisWe need to find",  # gpt-oss Harmony's analysis channel, tokens left out
    "an",  # may still become it
    "Here is my thought process: the user asks",  # Granite 3.2's reasoning
    "He",
])
def test_a_held_start_that_may_be_reasoning_is_not_shown_in_either_strategy(text):
    assert fc_shown(text) == ""
    assert react_shown(text) == ""


def test_the_answer_of_a_step_held_whole_is_shown_as_react_shows_it():
    """A Function Calling reply written as a ReAct step is held whole; at its end its answer alone
    is shown. Stopped after "Final Answer: Ye", the user sees "Ye", as ReAct streams it."""
    text = "Thought: I know it.\nFinal Answer: Ye"
    assert fc_shown(text) == "Ye"
    assert react_shown(text) == "Ye"


@pytest.mark.parametrize("answer", ['{"name": "get_weather"', "<tool_call>{"])
def test_call_markup_in_a_held_answer_is_not_shown(answer):
    text = f"Thought: ok.\nFinal Answer: {answer}"
    assert fc_shown(text) == ""
    if answer.startswith("<"):  # ReAct streams a JSON answer as it comes; markup it holds to the end
        assert react_shown(text) == ""


def test_a_family_s_call_markup_held_at_a_stop_is_not_shown():
    text = "Checking.\n[TOOL_CALLS]get_weather[ARGS]{\"ci"
    assert fc_shown(text, reasoning_probe=False) == "Checking.\n"
    assert react_shown(text) == ""


def test_text_before_call_markup_held_at_a_stop_is_no_answer_in_react():
    """Unlabelled text is held to the end in ReAct; text before a call is its thought there, so a
    stream stopping inside the call shows nothing; Function Calling had streamed the sentence."""
    text = 'Let me check.\n<tool_call>{"name": "get_we'
    assert react_shown(text) == ""
    assert fc_shown(text, reasoning_probe=False) == "Let me check.\n"


def test_call_markup_reader_lets_go_only_a_plain_start():
    for start, shown in (("Yes", "Yes"), ("  partial", "  partial"), ("analysis", ""), ("Here is", ""),
                         (">>", ""), ("commentary", ""), ("", "")):
        markup = CallMarkup(tools={})
        assert markup.feed(start) == "" and markup.stopped() == shown, start
    markup = CallMarkup(tools={"get_weather": None})  # Mistral's call markup, held as a block
    assert markup.feed("Hi [TOOL_CALLS]get_weather[ARGS]{") == "Hi " and markup.holds_block
    assert markup.stopped() == ""


def test_the_gate_lets_go_a_held_start_once():
    gate = AnswerGate(TOOLS)
    assert gate.feed("Ye") == gate.feed("s") == ""
    assert gate.stopped() == "Yes" and gate.streamed
    assert gate.stopped() == ""


@pytest.mark.parametrize("size", [1, 2])
def test_a_short_answer_cut_by_the_output_limit_is_yielded_for_its_continuation(size):
    """A cut reply ends normally: the text held is the answer's start, shown, and continued."""
    chunks = [ModelChunk(text=piece) for piece in pieces("Ye", size)] + [ModelChunk(finish_reason="length")]
    streamed, turn = drain(read_function_calling_turn(iter(chunks), TOOLS))
    assert streamed == "Ye" and turn.decision == FinalAnswer("Ye") and turn.cut
    chunks = [ModelChunk(text=p) for p in pieces("Thought: ok.\nFinal Answer: Ye", size)] + [ModelChunk(finish_reason="length")]
    streamed, turn = drain(read_react_turn(iter(chunks), ToolRegistry(None), 1))
    assert streamed == "Ye" and turn.decision == FinalAnswer("Ye") and turn.cut
