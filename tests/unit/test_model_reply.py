"""The model's message as its model plugin sent it: gathered from chunks, kept for replay,
and the reasoning cleaned for the log (docs/model-round-trip.md)."""

import re

import pytest
from dify_plugin.entities.model.message import AssistantPromptMessage, UserPromptMessage
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_core import model_call
from agent_core.messages import clean_history
from agent_core.model_call import AssistantReply, normalize_chunk
from agent_core.think import DEEPSEEK_REASONING_MARK, clean_reasoning, visible_text


def chunk(content="", opaque_body=None):
    message = {"role": "assistant", "content": content, "tool_calls": []}
    if opaque_body is not None:
        message["opaque_body"] = opaque_body
    return normalize_chunk({"delta": {"index": 0, "message": message}})


def gathered(*chunks):
    reply = AssistantReply()
    for item in chunks:
        reply.add(item)
    return reply


def test_text_is_kept_as_sent_reasoning_blocks_included():
    reply = gathered(chunk("<think>\nplan"), chunk("\n</think>"), chunk("Hello"))
    assert reply.content == "<think>\nplan\n</think>Hello"
    assert reply.opaque_body is None


def test_opaque_body_from_any_chunk_is_kept_and_dicts_merge_in_order():
    reply = gathered(chunk("a", {"reasoning_content": "r1", "id": 1}), chunk("b"), chunk("", {"id": 2}))
    assert reply.opaque_body == {"reasoning_content": "r1", "id": 2}


def test_a_non_dict_opaque_body_replaces_what_came_before():
    reply = gathered(chunk("", {"a": 1}), chunk("", [{"type": "thinking", "signature": "s"}]))
    assert reply.opaque_body == [{"type": "thinking", "signature": "s"}]


def test_content_parts_are_kept_with_their_own_opaque_body():
    part = {"type": "text", "data": "answer", "opaque_body": {"thought_signature": "sig"}}
    reply = gathered(chunk("lead "), chunk([part]))
    assert reply.content == [{"type": "text", "data": "lead "}, part]
    message = AssistantPromptMessage(content=reply.content)
    assert message.content[1].opaque_body == {"thought_signature": "sig"}


def test_text_parts_streamed_apart_go_back_as_one_so_a_reasoning_block_stays_whole():
    # Gemini's plugin streams "<think>", the thoughts and "</think>" as separate parts and strips
    # a block on the way back only when one part holds all of it.
    signed = {"type": "text", "data": "Paris.", "opaque_body": {"thought_signature": "sig"}}
    image = {"type": "image", "url": "https://x/y.png", "format": "png", "mime_type": "image/png"}
    reply = gathered(
        chunk([{"type": "text", "data": "<think>\n\n", "opaque_body": None}]),
        chunk([{"type": "text", "data": "plan"}]),
        chunk([{"type": "text", "data": "\n\n</think>"}]),
        chunk("It is "),
        chunk([signed]),
        chunk([image]),
        chunk([{"type": "text", "data": "done"}]),
    )
    assert reply.content == [
        {"type": "text", "data": "<think>\n\nplan\n\n</think>It is "},
        signed,
        image,
        {"type": "text", "data": "done"},
    ]


def test_deepseek_reasoning_is_shown_unescaped_without_its_marker():
    raw = f"\n{DEEPSEEK_REASONING_MARK}a &lt; b &amp;&amp; c\n"
    assert clean_reasoning(raw) == "a < b && c"
    assert clean_reasoning("x &lt; y") == "x &lt; y"  # not escaped by a plugin we know: left as is


def test_memory_loses_reasoning_blocks_and_opaque_body_of_earlier_turns():
    history = [
        UserPromptMessage(content="hi"),
        AssistantPromptMessage(content="<think>old plan</think>Hello!", opaque_body={"reasoning_content": "old"}),
    ]
    cleaned = clean_history(history)
    assert cleaned[1].content == "Hello!"
    assert cleaned[1].opaque_body is None
    assert history[1].content.startswith("<think>")  # input not mutated


def test_content_parts_the_sdk_cannot_rebuild_go_back_as_their_text():
    from agent_core.function_calling.prompt import _assistant_message
    from agent_core.run_state import Round
    from agent_core.turn import FinalAnswer, ModelTurn
    from agent_core.usage import empty_usage

    parts = [{"type": "text", "data": "visible"}, {"type": "image", "url": "u"}]  # an image part lacks its format
    turn = ModelTurn(thought="visible", decision=FinalAnswer("visible"), usage=empty_usage(), content=parts)
    message = _assistant_message(Round(index=1, turn=turn), ())
    assert message.content == "visible"


_values = st.none() | st.text(max_size=5) | st.integers() | st.lists(st.text(max_size=3), max_size=2)
_messages = st.fixed_dictionaries(
    {"role": st.just("assistant"), "content": st.text(max_size=8) | st.none()},
    optional={"tool_calls": st.just([]) | st.just([{"id": "c", "function": {"name": "f", "arguments": "{}"}}]),
              "name": st.text(max_size=3), "tool_call_id": st.text(max_size=3), "reasoning_content": _values,
              "opaque_body": st.none() | st.just({"k": 1})},
)
_deltas = st.fixed_dictionaries(
    {"index": st.integers(0, 2), "message": _messages | _values},
    optional={"usage": st.none() | st.just({"total_tokens": 3}), "finish_reason": _values, "reasoning_content": _values},
)


@settings(max_examples=300, deadline=None)
@given(delta=_deltas | _values, structured=st.none() | st.just({"a": 1}))
def test_the_fast_path_for_plain_text_chunks_reads_every_chunk_as_the_full_path_does(delta, structured):
    raw = {"model": "m", "delta": delta, "structured_output": structured}
    assert normalize_chunk(raw) == model_call._normalize_any(raw)


def test_a_finish_reason_printed_as_an_enum_member_is_its_value():
    # the Vertex AI and Gemini plugins send str(candidate.finish_reason): "FinishReason.MAX_TOKENS"
    def finish(value):
        message = {"role": "assistant", "content": "Sunny in Par", "tool_calls": []}
        return normalize_chunk({"delta": {"index": 0, "message": message, "finish_reason": value}}).finish_reason

    assert finish("FinishReason.MAX_TOKENS") == "MAX_TOKENS"
    assert finish("FinishReason.STOP") == "STOP"
    assert finish("length") == "length" and finish("content_filter") == "content_filter"


def _turn_content(*chunks):
    """The content a Function Calling turn sends back for ``chunks`` (normalized chunk dicts)."""
    from agent_core.function_calling.turn import read_function_calling_turn
    from tests.unit.helpers import drain

    _, turn = drain(read_function_calling_turn(iter(chunks), ["get_weather"]))
    return turn


CALL = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}


def call_chunk(content=""):
    return normalize_chunk({"delta": {"index": 0, "message": {"role": "assistant", "content": content, "tool_calls": [CALL]}}})


def test_a_reasoning_block_left_open_before_tool_calls_goes_back_closed():
    """Zhipu's, OpenRouter's and Ollama's streams leave the <think> open when a call follows
    the reasoning straight away; the plugins that strip reasoning find only a closed block."""
    turn = _turn_content(chunk("<think>\nplan the call"), call_chunk())
    assert turn.decision.calls and turn.content == "<think>\nplan the call\n</think>"
    assert visible_text(turn.content) == ""


def test_gemini_blocking_thoughts_before_a_function_call_go_back_closed_in_their_own_part():
    """Gemini's blocking reply of thoughts and a function call leaves "<think>" open; its plugin
    strips a block only when one text part holds all of it (``_build_text_parts``)."""
    parts = [{"type": "text", "data": "<think>\n\n"}, {"type": "text", "data": "plan"}]
    turn = _turn_content(call_chunk(parts))
    assert turn.content == [{"type": "text", "data": "<think>\n\nplan\n</think>"}]
    assert re.sub(r"^<think>.*?</think>\s*", "", turn.content[0]["data"], count=1, flags=re.DOTALL) == ""


@pytest.mark.parametrize(
    "pieces",
    [
        ("<think>\nplan</think>", "Calling."),  # closed by the model: as it came
        ("[THINK]plan",),  # a tag the plugins do not strip: as it came
        ("Plain text.",),
    ],
)
def test_content_that_did_not_end_inside_a_closable_block_goes_back_as_it_came(pieces):
    turn = _turn_content(*(chunk(piece) for piece in pieces), call_chunk())
    assert turn.content == "".join(pieces)


def test_a_final_answer_keeps_its_content_as_it_came():
    turn = _turn_content(chunk("<think>\nplan</think>"), chunk("Sunny."))
    assert turn.content == "<think>\nplan</think>Sunny."


def test_with_block_closed_leaves_parts_with_their_own_opaque_body():
    signed = [{"type": "text", "data": "<think>x", "opaque_body": {"thought_signature": "s"}}]
    assert model_call.with_block_closed(signed, "</think>") == signed
    assert model_call.with_block_closed("<think>x", None) == "<think>x"


def test_whitespace_around_a_finish_reason_is_dropped():
    def finish(value):
        message = {"role": "assistant", "content": "Sunny in Par", "tool_calls": []}
        return normalize_chunk({"delta": {"index": 0, "message": message, "finish_reason": value}}).finish_reason

    assert finish(" length\n") == "length" and finish("MAX_TOKENS ") == "MAX_TOKENS"
    assert finish(" \n") is None


def test_a_null_or_none_finish_reason_is_none_so_an_earlier_length_stands():
    """DashScope's native stream writes "null" (a string) while it generates; a plugin printing
    str() of a missing reason writes "None". Taken as reasons, either would replace the "length"
    an earlier chunk gave (the readers keep the last reason given), and the cut answer would be
    shown as complete."""
    def finish(value):
        message = {"role": "assistant", "content": "", "tool_calls": []}
        return normalize_chunk({"delta": {"index": 0, "message": message, "finish_reason": value}}).finish_reason

    assert finish("null") is None and finish("None") is None and finish(" NULL ") is None
    assert finish("nullable") == "nullable" and finish("length") == "length"


def test_with_block_closed_leaves_a_list_whose_text_ends_in_a_signed_part():
    """The block ends in a text part with its own opaque_body (not to be changed): a closing
    tag in a plain part before it would come before the block, or cut it short."""
    before = [{"type": "text", "data": "Hello "}, {"type": "text", "data": "<think>plan", "opaque_body": {"thought_signature": "s"}}]
    assert model_call.with_block_closed(before, "</think>") == before
    inside = [{"type": "text", "data": "<think>plan"}, {"type": "text", "data": " more", "opaque_body": {"sig": 1}}]
    assert model_call.with_block_closed(inside, "</think>") == inside
    image = [{"type": "text", "data": "<think>plan"}, {"type": "image", "data": "x"}]
    assert model_call.with_block_closed(image, "</think>") == [{"type": "text", "data": "<think>plan\n</think>"}, image[1]]
