"""A reply's text cleaned for the readers (``agent_core.reply_text``) and the small reader rules
that a gateway's or a template's padding broke: ``\\r\\n`` line ends and a byte order mark
however the stream is cut, the model's message kept as sent, Qwen3-Coder's value after a padded
tag line, HyperCLOVAX's header after a blank line, a no-break space after ``Action:`` and
``Thought:``."""

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from agent_core.function_calling.turn import read_function_calling_turn
from agent_core.model_call import ModelChunk
from agent_core.react.parser import conversational_answer
from agent_core.react.turn import read_react_turn
from agent_core.reply_text import ReplyText, clean_text
from agent_core.text_calls import extract_calls_from_text
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ToolCalls
from tests.unit.helpers import drain
from tests.unit.test_real_world_2026 import tool


def cleaned(pieces: list[str]) -> str:
    text = ReplyText()
    return "".join(text.feed(piece) for piece in pieces)


def test_windows_line_ends_become_plain_however_the_stream_is_cut():
    reply = "Thought: look it up.\r\nAction: search\r\nAction Input: {\"q\": \"x\"}\r\n"
    want = "Thought: look it up.\nAction: search\nAction Input: {\"q\": \"x\"}\n"
    assert clean_text(reply) == want
    for size in (1, 2, 3, 7):
        assert cleaned([reply[i : i + size] for i in range(0, len(reply), size)]) == want


def test_a_carriage_return_ending_a_piece_waits_for_the_next():
    text = ReplyText()
    assert text.feed("a\r") == "a"
    assert text.feed("\nb") == "\nb"
    assert text.feed("c\r") == "c"
    assert text.feed("d") == "\rd"  # no line feed after it: a lone \r stays


def test_a_byte_order_mark_or_zero_width_space_at_the_start_is_left_out_only_there():
    assert clean_text("\ufeffHello") == "Hello"
    assert clean_text("\u200b\ufeffHello") == "Hello"
    assert cleaned(["\ufeff", "", "\u200b", "Hi \u200bthere\ufeff"]) == "Hi \u200bthere\ufeff"
    assert clean_text("a\u200b") == "a\u200b"


@given(st.text(alphabet="ab \r\n\ufeff\u200b", max_size=30), st.lists(st.integers(1, 5), max_size=30))
@example("\r\r\n", [])  # a \n converted to \r\n twice (found by a deep run: "\r\n" was left)
@example("a\r\r\r\nb", [2, 1])
def test_the_cleaned_text_does_not_depend_on_the_cuts(text, sizes):
    pieces, at = [], 0
    for size in sizes:
        pieces.append(text[at : at + size])
        at += size
    pieces.append(text[at:])
    assert cleaned(pieces) == clean_text(text)
    assert "\r\n" not in clean_text(text)


def test_a_line_end_converted_to_crlf_twice_is_one_line_end_however_the_stream_is_cut():
    """``\\r\\r\\n`` (a gateway's ``\\n`` -> ``\\r\\n`` applied to a text that had it already)
    reached the readers as ``\\r\\n``; a ``\\r`` run before another character stays."""
    reply = "Thought: look it up.\r\r\nAction: search\r\r\r\nAction Input: {\"q\": \"a\r\rb\"}\r\r\n"
    want = "Thought: look it up.\nAction: search\nAction Input: {\"q\": \"a\r\rb\"}\n"
    assert clean_text(reply) == want
    for size in (1, 2, 3, 7):
        assert cleaned([reply[i : i + size] for i in range(0, len(reply), size)]) == want
    assert cleaned(["a", *["\r"] * 5, "\nb"]) == "a\nb"
    assert cleaned(["a", *["\r"] * 5, "b"]) == "a\r\r\r\r\rb"


def test_a_long_carriage_return_run_is_cleaned_in_linear_time():
    """A run of 400,000 ``\\r`` (whole, or one a piece) is read in one pass, not once a position."""
    import time

    start = time.perf_counter()
    assert clean_text("\r" * 400_000 + "x\r\r\n") == "\r" * 400_000 + "x\n"
    assert cleaned(["\r"] * 100_000 + ["\ny"]) == "\ny"
    assert time.perf_counter() - start < 5.0  # some 0.05 s; once a position: hours


WEATHER = tool("get_weather", "city")
RAW = "\ufeffThought: I know.\r\nFinal Answer: Line one.\r\nLine two.\r\n"


@pytest.mark.parametrize("size", [None, 1, 7])
def test_react_answer_over_windows_line_ends_shows_plain_lines_and_the_message_goes_back_as_sent(size):
    pieces = [RAW] if size is None else [RAW[i : i + size] for i in range(0, len(RAW), size)]
    chunks = iter([*(ModelChunk(text=p) for p in pieces), ModelChunk(finish_reason="stop")])
    streamed, turn = drain(read_react_turn(chunks, ToolRegistry([WEATHER]), 1))
    assert turn.decision == FinalAnswer("Line one.\nLine two.")
    assert streamed.strip() == "Line one.\nLine two."
    assert turn.content == RAW  # the model's own message, for the round trip


@pytest.mark.parametrize("size", [None, 1, 7])
def test_fc_call_over_windows_line_ends_runs_with_its_value_and_the_message_goes_back_as_sent(size):
    raw = "\ufeff<tool_call>\r\n<function=get_weather>\r\n<parameter=city>\r\nParis\r\n</parameter>\r\n</function>\r\n</tool_call>"
    pieces = [raw] if size is None else [raw[i : i + size] for i in range(0, len(raw), size)]
    chunks = iter([*(ModelChunk(text=p) for p in pieces), ModelChunk(finish_reason="stop")])
    streamed, turn = drain(read_function_calling_turn(chunks, ["get_weather"]))
    assert isinstance(turn.decision, ToolCalls)
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [("get_weather", {"city": "Paris"})]
    assert streamed == ""
    assert turn.content == raw


def test_qwen3_coder_value_after_a_tag_line_padded_with_spaces_loses_only_the_markup_break():
    tools = ToolRegistry([tool("write_file", "path", "content")]).prompt_tools()
    text = (
        "<tool_call>\n<function=write_file>\n<parameter=path> \t\nnotes.txt\n</parameter>\n"
        "<parameter=content>  \n  indented\nlast\n</parameter>\n</function>\n</tool_call>"
    )
    calls, _ = extract_calls_from_text(text, tools)
    assert [(c.name, c.arguments) for c in calls] == [("write_file", {"path": "notes.txt", "content": "  indented\nlast"})]


def test_hyperclovax_header_after_a_blank_line_is_still_a_call():
    tools = ToolRegistry([WEATHER]).prompt_tools()
    calls, _ = extract_calls_from_text('\n -> tool/function_call\n[{"name": "get_weather", "arguments": {"city": "Seoul"}}]', tools)
    assert [(c.name, c.arguments) for c in calls] == [("get_weather", {"city": "Seoul"})]


def test_action_blob_after_a_no_break_space_is_a_call():
    tools = ToolRegistry([WEATHER]).prompt_tools()
    calls, _ = extract_calls_from_text('Action:\u00a0{"name": "get_weather", "args": {"city": "Paris"}}', tools)
    assert [(c.name, c.arguments) for c in calls] == [("get_weather", {"city": "Paris"})]


def test_conversational_step_with_a_no_break_space_after_its_labels():
    reply = "Thought:\u00a0Do I need to use a tool? No\nAI:\u00a0Hello! How can I help?"
    assert conversational_answer(reply) == "Hello! How can I help?"
