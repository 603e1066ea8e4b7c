"""A special token the model writes as text inside a value (a user asking what ``<|im_end|>``
means, a chat template in a code snippet, a file's content) reaches the tool as written, in
native arguments, in a ReAct action input and in calls written as text; the same tokens leaked
around the value (after it, before it, in its fence) are still dropped."""

import pytest

from agent_core.call_markup import rewrite_markup
from agent_core.json_args import ArgumentsError, decode_arguments, strip_noise
from agent_core.react.parser import parse_react
from agent_core.text_calls import extract_calls_from_text
from agent_core.tool_calls import ToolCallAssembler, ToolCallDelta

QUERY = "what does <|im_end|> mean"
TOKENS = ["<|im_end|>", "<|eot_id|>", "<｜end▁of▁sentence｜>", "[TOOL_CALLS]", "<|python_tag|>"]


# ---- native arguments --------------------------------------------------------------------------


@pytest.mark.parametrize("token", TOKENS)
@pytest.mark.parametrize(
    "around",
    [
        "{value}",
        "{value}<|eot_id|>",
        "{value}\n<|im_end|>",
        "```json\n{value}\n```",
        "```json\n{value}\n```<|eot_id|>",
        "json\n{value}",
        "{value}\n</tool_call>",
        "<|python_tag|>{value}",
    ],
)
def test_native_arguments_keep_a_token_inside_a_string_and_drop_the_noise_around_it(token, around):
    query = f"what does {token} mean"
    value = '{"query": "' + query + '"}'
    assert decode_arguments(around.format(value=value)) == {"query": query}


@pytest.mark.parametrize("token", TOKENS)
def test_python_style_arguments_keep_a_token_inside_a_single_quoted_string(token):
    assert decode_arguments(f"{{'query': 'see {token} here'}}<|eot_id|>") == {"query": f"see {token} here"}


def test_a_file_written_by_the_model_keeps_its_chat_template_tokens():
    content = "{% for m in messages %}<|im_start|>{{ m.role }}\\n{{ m.content }}<|im_end|>\\n{% endfor %}"
    text = '{"path": "template.jinja", "content": "' + content + '"}<|im_end|>'
    decoded = decode_arguments(text)
    assert decoded["content"] == content.replace("\\n", "\n")


def test_a_token_between_values_is_still_noise():
    assert decode_arguments('{"a": "x"<|eot_id|>, "b": "<|eot_id|>"}') == {"a": "x", "b": "<|eot_id|>"}


def test_strip_noise_drops_tokens_outside_strings_only():
    assert strip_noise('<|python_tag|>{"q": "<|eot_id|>"}<|eot_id|>') == '{"q": "<|eot_id|>"}'
    assert strip_noise("[TOOL_CALLS][{'q': '[TOOL_CALLS]'}]") == "[{'q': '[TOOL_CALLS]'}]"
    # an apostrophe in a word opens no string: the token after it is still noise
    assert strip_noise("it's<|eot_id|>") == "it's"


def test_arguments_cut_inside_a_string_are_still_refused():
    with pytest.raises(ArgumentsError) as caught:
        decode_arguments('{"query": "what does <|im_end|>')
    assert caught.value.truncated


def test_unclosed_quotes_and_escapes_read_in_linear_time():
    import time

    def took(text: str) -> float:  # CPU seconds: another process on the machine does not count
        start = time.process_time()
        strip_noise(text)
        return time.process_time() - start

    small, large = '"' + '\\"' * 20_000 + "<|a|>", '"' + '\\"' * 320_000 + "<|a|>"
    assert took(large) < 0.5
    single = "{'" * 160_000 + "<|a|>"
    assert took(single) < 0.5
    assert took(small) < 0.05


def test_assembled_native_call_keeps_the_token_in_its_value():
    assembler = ToolCallAssembler()
    for piece in ['{"query": "what does ', "<|im_end|>", ' mean"}', "<|eot_id|>"]:
        assembler.add(ToolCallDelta.from_raw({"index": 0, "id": "c1", "function": {"name": "search", "arguments": piece}}))
    assembled = assembler.finish("tool_calls")
    assert [(call.name, call.arguments) for call in assembled.calls] == [("search", {"query": QUERY})]


# ---- ReAct action input ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        'Thought: look it up\nAction: search\nAction Input: {"query": "what does <|im_end|> mean"}',
        'Thought: look it up\nAction: search\nAction Input: {"query": "what does <|im_end|> mean"}<|eot_id|>',
        'Thought: look it up\nAction:\n```json\n{"action": "search", "action_input": {"query": "what does <|im_end|> mean"}}\n```<|im_end|>',
        'Thought: look it up\n<tool_call>{"name": "search", "arguments": {"query": "what does <|im_end|> mean"}}</tool_call><|im_end|>',
    ],
)
@pytest.mark.parametrize("split", [0, 1, 7])
def test_react_action_input_keeps_the_token(reply, split):
    turn = _parsed(reply, split)
    assert [(action.name, action.input) for action in turn.actions] == [("search", {"query": QUERY})]


@pytest.mark.parametrize("split", [0, 1, 7])
def test_react_text_input_keeps_the_token_written_as_a_word(split):
    turn = _parsed("Thought: look it up\nAction: search\nAction Input: what does <|im_end|> mean", split)
    assert [(action.name, action.input) for action in turn.actions] == [("search", QUERY)]


@pytest.mark.parametrize(
    "reply",
    [
        "Thought: done\nFinal Answer: Paris.<|im_end|>\n<|im_start|>user\nAnd Rome?",
        "Thought: done\nFinal Answer: Paris.<|eot_id|>assistant\n\nRome.",
        "Thought: done\nFinal Answer: Paris. <|im_end|>\nuser: And Rome?",
    ],
)
def test_a_leaked_turn_end_still_ends_the_reply(reply):
    assert _parsed(reply, 0).final_answer == "Paris."


def _parsed(reply: str, split: int):
    if not split:
        return parse_react(reply)
    from agent_core.react.parser import ReactStreamParser

    parser = ReactStreamParser()
    for start in range(0, len(reply), split):
        parser.feed(reply[start : start + split])
    parser.finish()
    return parser.result()


# ---- calls written as text ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        '<tool_call>{"name": "search", "arguments": {"query": "what does <|im_end|> mean"}}</tool_call>',
        '<tool_call>{"name": "search", "arguments": {"query": "what does <|im_end|> mean"}}</tool_call><|im_end|>',
        '<tool_call>\n{"name": "search", "arguments": {"query": "what does <|im_end|> mean"}}<|im_end|>',
        '{"name": "search", "arguments": {"query": "what does <|im_end|> mean"}}<|im_end|>',
        "<tool_call>\n<function=search>\n<parameter=query>\nwhat does <|im_end|> mean\n</parameter>\n</function>\n</tool_call>",
        "<function=search>\n<parameter=query>\nwhat does <|im_end|> mean\n</parameter>\n</function>",
        '<minimax:tool_call><invoke name="search"><parameter name="query">what does <|im_end|> mean</parameter></invoke></minimax:tool_call>',
        '[TOOL_CALLS]search[ARGS]{"query": "what does <|im_end|> mean"}',
    ],
)
def test_text_call_keeps_the_token_in_its_value(reply):
    calls, rest = extract_calls_from_text(rewrite_markup(reply, {"search": None}), ["search"])
    assert [(call.name, call.arguments) for call in calls] == [("search", {"query": QUERY})]
    assert "<|" not in rest


def test_text_call_block_with_a_leaked_token_after_its_name_still_reads():
    calls, _ = extract_calls_from_text('<tool_call>{"name": "search", "arguments": {"query": "x"}}<|eot_id|></tool_call>', ["search"])
    assert [(call.name, call.arguments) for call in calls] == [("search", {"query": "x"})]
