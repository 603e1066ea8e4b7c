"""Markup an answer shows in code is its text; the same markup outside code is still read.

A code span (`` `...` ``) is quoted text: a whole ``<tool_call>`` block in one, or one nested in a
``<tool_calls>`` wrapper there, is a call the answer names, never run, in either strategy, and a
special token in one is kept. Each case goes through the strategy's reader whole and in pieces of
1 and 7 characters (``tests.unit.test_real_world_2026.read``); the negative cases put a genuine
call beside the shown one and check it alone runs.
"""

import pytest

from agent_core.turn import FinalAnswer, ToolCalls
from tests.unit.test_real_world_2026 import Case, read, tool

TOOLS = (tool("search", "query"), tool("get_weather", "city"))
SIZES = [None, 1, 7]
CALL = '<tool_call>{"name": "search", "arguments": {"query": "x"}}</tool_call>'
GENUINE = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>'

SHOWN = {
    "whole-call-in-span": f"To call it, the model writes `{CALL}` in its reply.",
    "nested-in-wrapper-span": f"Several calls come as `<tool_calls>{CALL}</tool_calls>` in one reply.",
    "nested-spaced-in-span": f"The grouped form is `<tool_calls> {CALL} </tool_calls>` with spaces.",
    "double-backtick-span": f"Write ``{CALL}`` and the server reads it.",
    "span-then-prose-lines": f"Example: `{CALL}`.\n\nThat is all the server needs.",
}


def _calls(turn):
    assert isinstance(turn.decision, ToolCalls), turn.decision
    return [(call.name, call.arguments) for call in turn.decision.calls]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", list(SHOWN))
@pytest.mark.parametrize(("strategy", "label"), [("fc", ""), ("react", ""), ("react", "Final Answer: ")])
def test_a_call_shown_in_a_code_span_is_the_answer_as_written(strategy, label, name, size):
    text = SHOWN[name]
    streamed, turn = read(strategy, Case(TOOLS, label + text), size)
    assert turn.decision == FinalAnswer(text)
    assert streamed.strip() == text


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", list(SHOWN))
def test_a_genuine_call_after_a_shown_one_runs_alone_in_function_calling(name, size):
    _, turn = read("fc", Case(TOOLS, f"{SHOWN[name]}\n\n{GENUINE}"), size)
    assert _calls(turn) == [("get_weather", {"city": "Oslo"})]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", list(SHOWN))
def test_a_genuine_call_before_a_shown_one_runs_alone_in_function_calling(name, size):
    _, turn = read("fc", Case(TOOLS, f"{GENUINE}\n\n{SHOWN[name]}"), size)
    assert _calls(turn) == [("get_weather", {"city": "Oslo"})]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(
    ("strategy", "text"),
    [
        ("fc", f"Let me look that up.\n{GENUINE}"),
        ("fc", f"Let me look that up. {GENUINE}"),
        ("react", f"Let me look that up.\n{GENUINE}"),
        ("react", f"Final Answer: Let me look that up. {GENUINE}"),
        ("react", f"I use `search` for this.\n{GENUINE}"),
        ("fc", f"I use `search` for this.\n{GENUINE}"),
        ("fc", f"Shown in a block, as a genuine step often is:\n```\n{GENUINE}\n```"),
    ],
    ids=["fc-after-sentence", "fc-in-sentence", "react-after-sentence", "react-after-answer-text",
         "react-after-closed-span", "fc-after-closed-span", "fc-fenced"],
)
def test_a_call_outside_code_still_runs(strategy, text, size):
    _, turn = read(strategy, Case(TOOLS, text), size)
    assert _calls(turn) == [("get_weather", {"city": "Oslo"})]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("label", ["", "Thought: I know this.\nFinal Answer: "])
@pytest.mark.parametrize(
    "text",
    ["Kimi writes `a<|sep|>b` between its parts.", "Kimi writes `<|close|>message<|sep|>` between turns."],
)
def test_a_special_token_in_a_code_span_is_kept_in_react(label, text, size):
    streamed, turn = read("react", Case(TOOLS, label + text), size)
    assert turn.decision == FinalAnswer(text)
    assert streamed.strip() == text


# ---- tilde fences (CommonMark: a fence is three backticks or three tildes) --------------------

TILDE_ANSWERS = {
    "labels-in-tilde-block": "The format:\n~~~\nThought: I need the weather.\nAction: get_weather\n"
    'Action Input: {"city": "Paris"}\nObservation: 18°C\n~~~\nThe model stops at Observation.',
    "backtick-line-inside-tilde-block": "Nested:\n~~~markdown\n```\nObservation: shown\n```\n~~~\nDone.",
    "strikethrough-is-no-fence": "It costs ~~10~~ 8 euros.\nThat is the price.",
}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", list(TILDE_ANSWERS))
def test_labels_in_a_tilde_block_of_an_answer_are_its_text(name, size):
    text = TILDE_ANSWERS[name]
    streamed, turn = read("react", Case(TOOLS, f"Thought: I can answer.\nFinal Answer: {text}"), size)
    assert turn.decision == FinalAnswer(text)
    assert streamed.strip() == text


def test_a_label_after_a_closed_tilde_block_still_ends_the_answer():
    text = "Final Answer: Shown:\n~~~\nAction: x\n~~~\nIt is 18°C.\nObservation: invented"
    streamed, turn = read("react", Case(TOOLS, text), None)
    assert turn.decision == FinalAnswer("Shown:\n~~~\nAction: x\n~~~\nIt is 18°C.")
    assert "invented" not in streamed


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(
    "text",
    [
        'Thought: I search.\nAction:\n~~~json\n{"action": "search", "action_input": "x"}\n~~~',
        'Thought: I search.\nAction: search\nAction Input:\n~~~json\n{"query": "x"}\n~~~',
        'Thought: I search.\nAction: search\n~~~json\n{"query": "x"}\n~~~',
        'Thought: I search.\n~~~json\n{"action": "search", "action_input": "x"}\n~~~',
        'Thought: I search.\nAction:\n~~~~\n{"action": "search", "action_input": "x"}\n~~~~',
    ],
    ids=["blob-after-action", "input-after-label", "input-after-name", "unlabelled-blob", "four-tildes"],
)
def test_an_action_in_a_tilde_fence_is_read(text, size):
    _, turn = read("react", Case(TOOLS, text), size)
    assert _calls(turn) == [("search", {"query": "x"})]
    assert not turn.decision.invalid


# ---- a special token in prose that goes on is the answer's text ---------------------------------


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("label", ["", "Thought: I know this.\nFinal Answer: "])
@pytest.mark.parametrize(
    "text",
    [
        "Kimi ends a message with <|close|> and goes on after it.",
        "Its template puts <|sep|>\tbetween parts, and <|fim_middle|> in code infill.",
    ],
)
def test_a_special_token_inside_a_sentence_is_kept_in_react(label, text, size):
    streamed, turn = read("react", Case(TOOLS, label + text), size)
    assert turn.decision == FinalAnswer(text)
    assert streamed.strip() == text


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("Final Answer: It is 18°C in Paris. <|end_of_text|>", "It is 18°C in Paris."),
        ("Final Answer: It is 18°C in Paris. <|end_of_text|>\n", "It is 18°C in Paris."),
        ("Final Answer: It is 18°C. <|close|>\nNext line.", "It is 18°C. \nNext line."),
        ("Final Answer: It is 18°C.<|close|> Done.", "It is 18°C. Done."),
        ("It is 18°C in Paris. <|end_of_text|>", "It is 18°C in Paris."),
    ],
    ids=["ends-reply", "ends-reply-newline", "ends-line", "glued-to-word-before", "unlabelled-end"],
)
def test_a_special_token_that_ends_the_reply_or_its_line_is_dropped_in_react(text, answer, size):
    streamed, turn = read("react", Case(TOOLS, text), size)
    assert turn.decision == FinalAnswer(answer)
    assert "<|" not in streamed


@pytest.mark.parametrize("size", SIZES)
def test_a_python_tag_after_a_sentence_still_announces_a_call_in_react(size):
    text = 'Let me search.\n<|python_tag|>{"name": "search", "parameters": {"query": "x"}}'
    _, turn = read("react", Case(TOOLS, text), size)
    assert _calls(turn) == [("search", {"query": "x"})]
