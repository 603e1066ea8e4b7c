"""Reply shapes that were known gaps of the parser-fixture table (docs/real-world-cases.md), and
the same markup where a user must see it as text.

The shapes: llama.cpp's ``<function name="NAME">{...}</function>`` (several in a row, text
around), granite's ``<function_call> {...}`` in a json fence that is the whole reply, xLAM's
json fence of calls after a sentence (Function Calling), and a reply whose template opened
``<think>`` in the prompt without its model's name saying so (Function Calling). Each runs
through both strategies' turn readers, whole and in pieces of 1 and 7 characters. The negative
cases (the markup quoted in prose, in a code fence the answer shows, naming a tool the node does
not have, or a text about the format) must stay the answer, streamed as written.
"""

import pytest

from agent_core.turn import FinalAnswer, ToolCalls
from tests.unit.test_real_world_2026 import Case, read, tool

SPECIAL = tool("special_function", "arg1")
WEATHER = tool("get_weather", "city")
SIZES = (None, 1, 7)

CALLS = {
    # llama.cpp tests/test-chat.cpp (Hermes 2 Pro parser): the name as an attribute
    "function-name-attribute-two-in-a-row-text-around": (
        'I will look both up.\n<function name="get_weather">{"city": "Paris"}</function>\n'
        '<function name="get_weather">\n{"city": "Rome"}\n</function>\nBack soon.',
        [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Rome"})],
        "I will look both up.",
    ),
    "function-name-attribute-single-quotes": (
        "<function name='get_weather'>{\"city\": \"Oslo\"}</function>",
        [("get_weather", {"city": "Oslo"})],
        "",
    ),
    # the same test file: a json fence around granite's <function_call>, the whole reply
    "json-fence-around-function-call": (
        '```json\n<function_call> {"name": "get_weather", "arguments": {"city": "Paris"}}\n</function_call>\n```',
        [("get_weather", {"city": "Paris"})],
        "",
    ),
}


@pytest.mark.parametrize("strategy", ["fc", "react"])
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", list(CALLS))
def test_the_shape_runs(name, strategy, size):
    text, calls, shown = CALLS[name]
    streamed, turn = read(strategy, Case((WEATHER,), text), size)
    assert isinstance(turn.decision, ToolCalls), turn.decision
    assert [(c.name, c.arguments) for c in turn.decision.calls] == calls
    assert streamed.strip() == (shown if strategy == "fc" else "")
    assert "<function" not in streamed


TEXTS = {
    "function-name-in-a-sentence": 'Write <function name="get_weather">{"city": "Paris"}</function> to call it.',
    "function-name-in-an-xml-fence": 'Like this:\n```xml\n<function name="get_weather">{"city": "Paris"}</function>\n```',
    "function-name-in-a-code-span": 'The form is `<function name="get_weather">{"city": "Paris"}</function>`.',
    "function-name-unknown-tool": '<function name="send_email">{"to": "a@b.c"}</function>',
    "function-name-unknown-tool-after-text": 'Done.\n<function name="send_email">{"to": "a@b.c"}</function>',
    "function-call-fence-after-text": 'Example:\n```json\n<function_call> {"name": "get_weather", "arguments": '
    '{"city": "Paris"}}\n</function_call>\n```',
    "html-function-element": "<function name=\"render\">\n  <p>Hello</p>\n</function>",
}


@pytest.mark.parametrize("strategy", ["fc", "react"])
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", list(TEXTS))
def test_the_markup_shown_as_text_stays_the_answer(name, strategy, size):
    text = TEXTS[name]
    streamed, turn = read(strategy, Case((WEATHER,), text), size)
    assert isinstance(turn.decision, FinalAnswer), turn.decision
    assert turn.decision.text.strip() == text.strip()
    assert streamed.strip() == text.strip()


XLAM = 'I\'ll help you with that.\n```json\n[{"name": "get_weather", "arguments": {"city": "Dallas"}}]\n```'
FENCES_SHOWN = {
    "an-example": 'For example:\n```json\n[{"name": "get_weather", "arguments": {"city": "Dallas"}}]\n```',
    "the-format": 'The format is:\n```json\n{"name": "get_weather", "arguments": {"city": "Dallas"}}\n```',
    "text-after-the-fence": XLAM + "\nThat is what I would send.",
    "unknown-tool": 'I\'ll help.\n```json\n[{"name": "send_email", "arguments": {"to": "a@b.c"}}]\n```',
    "one-unknown-tool-of-two": 'Sure.\n```json\n[{"name": "get_weather", "arguments": {"city": "A"}}, '
    '{"name": "send_email", "arguments": {}}]\n```',
    "two-code-blocks": 'Run:\n```bash\nls\n```\nthen:\n```json\n[{"name": "get_weather", "arguments": {"city": "A"}}]\n```',
    "not-an-envelope": 'Here is the data:\n```json\n[{"name": "get_weather", "city": "Dallas", "score": 3}]\n```',
}


@pytest.mark.parametrize("size", SIZES)
def test_function_calling_runs_a_json_fence_of_calls_after_a_sentence(size):
    """vLLM's xlam tool parser test: the sentence is shown, the fence is the call."""
    streamed, turn = read("fc", Case((WEATHER,), XLAM), size)
    assert isinstance(turn.decision, ToolCalls)
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [("get_weather", {"city": "Dallas"})]
    assert streamed.strip() == "I'll help you with that."


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", list(FENCES_SHOWN))
def test_function_calling_shows_a_json_fence_the_answer_presents(name, size):
    text = FENCES_SHOWN[name]
    streamed, turn = read("fc", Case((WEATHER,), text), size)
    assert isinstance(turn.decision, FinalAnswer), turn.decision
    assert turn.decision.text.strip() == text.strip()
    assert streamed.strip() == text.strip()


FORCED_OPEN = {
    # llama.cpp tests/test-chat.cpp, Hermes 2 Pro with thinking forced open (QwQ's template)
    "call": ('I\'m\nthinking</think>\n<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>',
             [("get_weather", {"city": "Paris"})], ""),
    "answer": ("The user greets me. I reply briefly.\n</think>\n\nHello! How can I help?", None, "Hello! How can I help?"),
}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", list(FORCED_OPEN))
def test_reasoning_before_a_bare_think_end_is_not_shown(name, size):
    """Any model (its name says nothing of a template that opens <think>): the reasoning goes to
    the log, the reply goes back to the model as it came."""
    text, calls, answer = FORCED_OPEN[name]
    streamed, turn = read("fc", Case((WEATHER,), text), size)
    reasoning = text.partition("</think>")[0]
    assert reasoning.strip() in turn.reasoning
    assert reasoning.strip() not in streamed
    assert turn.content == text  # as the model plugin sent it
    if calls is None:
        assert turn.decision == FinalAnswer(answer) and streamed.strip() == answer
    else:
        assert [(c.name, c.arguments) for c in turn.decision.calls] == calls and streamed == ""


NOT_REASONING = {
    "closing-tag-quoted": "Close it with `</think>` and go on.",
    "block-opened-in-the-reply": "Sure. <think>hm</think> It is 4.",
    "after-the-reply-start": "x" * 300 + "</think>tail",
    "no-tag": "A plain answer.\nOn two lines.",
}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", list(NOT_REASONING))
def test_text_before_a_late_or_quoted_think_end_is_shown(name, size):
    text = NOT_REASONING[name]
    streamed, turn = read("fc", Case((WEATHER,), text), size)
    assert isinstance(turn.decision, FinalAnswer)
    expected = {"block-opened-in-the-reply": "Sure.  It is 4.", "after-the-reply-start": "x" * 300 + "tail"}.get(name, text)
    assert streamed == turn.decision.text == expected
