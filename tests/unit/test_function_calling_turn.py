"""The answer gate: prose streams at once; a reply that starts like a tool call written as text is held."""

import pytest

from agent_core import prompts
from agent_core.function_calling.turn import (
    AnswerGate,
    empty_label_tail,
    held_tail,
    partial_action_call,
    read_function_calling_turn,
)
from agent_core.model_call import ModelChunk
from agent_core.tool_calls import ToolCallDelta
from agent_core.turn import FinalAnswer, ParseFailure
from tests.unit.helpers import drain, failing, shown_before_failure


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
    # the last line break waits for the next text: an empty "Final Answer:" label may follow it
    assert streamed == "The answer is:\n\n  4 " and held == "\n"


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


@pytest.mark.parametrize(
    "text",
    [
        'functools[{"name": "get_weather", "arguments": {"city": "Paris"}}]',  # Phi-4-mini
        'get_weather:0{"city": "Paris"}',  # Kimi K2 with its tokens left out
        'get_weather({"city": "Paris"})',  # Mistral (openai/openai-agents-python#1196)
        'get_weather(city="Paris")',
        '{"name": "get_weather", "arguments": {"city": "Paris"}}\nI will check it now.',  # pyrate-llama/hermes-ui#6
    ],
)
def test_a_call_written_on_one_line_is_never_streamed_and_runs(text):
    for pieces in ([text], list(text)):
        streamed, turn = answer_of(pieces)
        assert streamed == ""
        assert [(c.name, c.arguments) for c in turn.decision.calls] == [("get_weather", {"city": "Paris"})]


def test_a_harmony_recipient_with_nothing_after_it_is_not_the_answer():
    # ggml-org/llama.cpp#15181: gpt-oss's call header alone, its tokens left out
    streamed, turn = answer_of([" to=functions.get_weather\u00a0\u200b", "\u200b\n\n"])
    assert streamed == "" and isinstance(turn.decision, ParseFailure)


@pytest.mark.parametrize("text", ["today is sunny", "function calling is fun", "get_weather is a tool I have"])
def test_prose_that_begins_like_a_call_word_still_streams(text):
    streamed, turn = answer_of(list(text))
    assert streamed == text and turn.decision == FinalAnswer(text)


def test_a_native_call_under_a_mangled_name_runs_the_tool():
    chunks = [
        ModelChunk(tool_calls=(ToolCallDelta(index=0, id="c1", name="functions.get_weather", arguments='{"city": "Paris"}'),)),
        ModelChunk(finish_reason="tool_calls"),
    ]
    _, turn = drain(read_function_calling_turn(iter(chunks), ["get_weather"]))
    assert [(c.id, c.name, c.arguments) for c in turn.decision.calls] == [("c1", "get_weather", {"city": "Paris"})]


def test_a_call_block_after_a_sentence_is_held_from_its_fence_on():
    # Gemma 3 (vllm-project/vllm#14734): a sentence, then the call in a ```tool_code block
    text = "I will look it up.\n```tool_code\n[get_weather(city='Paris')]\n```"
    for pieces in ([text], list(text)):
        streamed, turn = answer_of(pieces)
        assert streamed == "I will look it up.\n"
        assert [(c.name, c.arguments) for c in turn.decision.calls] == [("get_weather", {"city": "Paris"})]
    example = "An example:\n```tool_code\nprint('hi')\n```"  # no tool in it: the answer, whole
    streamed, turn = answer_of(list(example))
    assert streamed == example and turn.decision == FinalAnswer(example)


@pytest.mark.parametrize(
    "text",
    [
        'Thought: I need the weather.\nAction:\n```json\n{"action": "get_weather", "action_input": {"city": "Paris"}}\n```',
        'I will look it up.\n**Action:** {"action": "get_weather", "action_input": {"city": "Paris"}}',
        'Thought: weather.\r\nAction: ```json\r\n{"action": "get_weather", "action_input": {"city": "Paris"}}\r\n```',
    ],
)
def test_an_action_call_after_a_line_of_text_is_held_from_its_label_on_and_runs(text):
    """LangChain's structured-chat format written with native tools offered: the call was run
    and also shown to the user as the answer's text (the gate held only a reply that began
    with the label). A reply that opens with a ReAct-style ``Thought:`` is held whole (it may end
    with an empty ``Final Answer:`` label): its Thought is not shown beside the call."""
    head = "" if text.startswith("Thought:") else text[: text.index("Action") - (2 if "**" in text else 0)]
    for pieces in ([text], list(text), [text[i : i + 5] for i in range(0, len(text), 5)]):
        streamed, turn = answer_of(pieces)
        assert streamed == head
        assert [(c.name, c.arguments) for c in turn.decision.calls] == [("get_weather", {"city": "Paris"})]


@pytest.mark.parametrize(
    "text",
    [
        "Minutes:\nAction: John sends the notes.\nAction items: two.",  # an answer's own action items
        'Use this format:\nAction:\n```json\n{"name": "value"}\n```\nDone.',  # no tool in it
        'Here:\nAction: {"action": "make_coffee", "action_input": {}}',  # not a tool of the node
    ],
)
def test_an_answer_with_action_lines_that_are_no_call_is_shown_whole(text):
    for pieces in ([text], list(text)):
        streamed, turn = answer_of(pieces)
        assert streamed == text and turn.decision == FinalAnswer(text)


@pytest.mark.parametrize(
    "chunks",
    [
        # vllm-project/vllm#48748: DeepSeek V4 answered without thinking; the server's reasoning
        # parser took the whole reply, the end-of-sentence token inside, for reasoning
        [ModelChunk(text="<think>\nGood morning! How can I help?<｜end▁of▁sentence｜>\n</think>")],
        [ModelChunk(reasoning="Good morning! "), ModelChunk(reasoning="How can I help?<｜end▁of▁sentence｜>")],
    ],
)
def test_a_reply_that_never_left_its_reasoning_is_the_answer(chunks):
    streamed, turn = drain(read_function_calling_turn(iter([*chunks, ModelChunk(finish_reason="stop")]), ["get_weather"]))
    assert streamed == "Good morning! How can I help?" and turn.decision == FinalAnswer("Good morning! How can I help?")


def test_reasoning_that_did_not_end_the_turn_is_not_the_answer():
    chunks = [ModelChunk(reasoning="I should look it up first."), ModelChunk(finish_reason="stop")]
    streamed, turn = drain(read_function_calling_turn(iter(chunks), ["get_weather"]))
    assert streamed == "" and isinstance(turn.decision, ParseFailure)
    assert "reasoning but no answer" in turn.decision.problem


def test_a_reply_whose_template_opened_the_reasoning_streams_only_what_follows_its_bare_end():
    # QwQ / DeepSeek-R1 served without a reasoning parser: the reasoning, "</think>", the answer
    pieces = ["Okay, the user", " asks 2 + 2.\n</th", "ink>\n\nThe answer", " is 4."]
    chunks = [ModelChunk(text=piece) for piece in pieces] + [ModelChunk(finish_reason="stop")]
    streamed, turn = drain(read_function_calling_turn(iter(chunks), ["get_weather"], reasoning_opened=True))
    assert streamed == "The answer is 4." and turn.decision == FinalAnswer("The answer is 4.")
    assert turn.reasoning == "Okay, the user asks 2 + 2.\n" and turn.content == "".join(pieces)


def test_a_reply_held_as_maybe_reasoning_is_released_when_reasoning_comes_apart_or_at_its_end():
    apart = [ModelChunk(reasoning="Let me think."), ModelChunk(text="The answer"), ModelChunk(text=" is 4."),
             ModelChunk(finish_reason="stop")]
    streamed, turn = drain(read_function_calling_turn(iter(apart), ["get_weather"], reasoning_opened=True))
    assert streamed == "The answer is 4." and turn.reasoning == "Let me think."
    plain = [ModelChunk(text="The answer is 4."), ModelChunk(finish_reason="stop")]
    streamed, turn = drain(read_function_calling_turn(iter(plain), ["get_weather"], reasoning_opened=True))
    assert streamed == "The answer is 4." and turn.decision == FinalAnswer("The answer is 4.")


def test_a_reply_cut_before_the_bare_end_of_its_reasoning_shows_none_of_it():
    chunks = [ModelChunk(text="Okay, the user wants the weather. Let me think about what tool"),
              ModelChunk(finish_reason="length")]
    streamed, turn = drain(read_function_calling_turn(iter(chunks), ["get_weather"], reasoning_opened=True))
    assert streamed == "" and isinstance(turn.decision, ParseFailure) and "cut off" in turn.decision.problem
    assert turn.reasoning.startswith("Okay, the user wants")


def test_only_the_end_of_a_think_block_ends_reasoning_the_template_opened():
    chunks = [ModelChunk(text="I should not use </reasoning> here.</think>Real answer."), ModelChunk(finish_reason="stop")]
    streamed, turn = drain(read_function_calling_turn(iter(chunks), ["get_weather"], reasoning_opened=True))
    assert streamed == "Real answer." and "</reasoning>" in turn.reasoning


def test_the_answer_to_fall_back_on_is_only_the_block_the_reply_stopped_inside():
    # a closed block and reasoning sent apart stay reasoning (lobehub/lobehub#5672 is the case)
    for chunks in ([ModelChunk(text="<think>private plan</think><think>The answer is 42.")],
                   [ModelChunk(reasoning="private plan. "), ModelChunk(text="<think>The answer is 42.")]):
        _, turn = drain(read_function_calling_turn(iter([*chunks, ModelChunk(finish_reason="stop")]), ["get_weather"]))
        assert isinstance(turn.decision, ParseFailure) and turn.decision.fallback.strip() == "The answer is 42."


def test_reasoning_closed_in_a_chunk_before_reasoning_comes_apart_never_reaches_the_answer():
    """The template opened the block in the prompt; a chunk ends with its ``</think>`` and
    reasoning then comes apart from the content: what came before the tag stays reasoning."""
    chunks = [ModelChunk(text="Let me think.</think>"), ModelChunk(reasoning="More."), ModelChunk(text="The answer is 4."),
              ModelChunk(finish_reason="stop")]
    streamed, turn = drain(read_function_calling_turn(iter(chunks), ["get_weather"], reasoning_opened=True))
    assert streamed == "The answer is 4."
    assert turn.decision == FinalAnswer("The answer is 4.")


_WEATHER_CALL = '{"name": "get_weather", "arguments": {"city": "Paris"}}'


@pytest.mark.parametrize(
    "text",
    [
        # llama.cpp's Hermes 2 Pro parser (tests/test-chat.cpp): a call object in a wrapper tag, or
        # alone on the line after a sentence; Phi-4-mini's list after one (vLLM's phi4_mini_json)
        f"Let me check.\n<tool>\n  {_WEATHER_CALL}\n</tool>",
        f"Let me check.\n<response>\n{_WEATHER_CALL}\n</response>",
        f"Let me check.\n<JSON>{_WEATHER_CALL}</JSON>",
        f"Let me check.\n{_WEATHER_CALL}",
        f"Let me check.\nfunctools[{_WEATHER_CALL}]\nAnything else?",
    ],
)
def test_a_wrapped_or_bare_call_object_after_a_sentence_is_held_from_its_line_and_runs(text):
    for pieces in ([text], list(text), [text[i : i + 7] for i in range(0, len(text), 7)]):
        streamed, turn = answer_of(pieces)
        assert streamed == "Let me check.\n"
        assert [(c.name, c.arguments) for c in turn.decision.calls] == [("get_weather", {"city": "Paris"})]


@pytest.mark.parametrize(
    "text",
    [
        "Sure.\n<response>\nParis is sunny today.\n</response>",  # Granite 3.3's frame, prose in it
        'Here is the data:\n{"city": "Paris", "temp": 21}\nDone.',  # JSON that is no call
        'Sure.\n<response>\n{"name": "make_coffee", "arguments": {}}\n</response>',  # not a tool of the node
        'Phi:\nfunctools[{"name": "make_coffee", "arguments": {}}]',
        'An example:\n```json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```\nThat is all.',  # quoted
    ],
)
def test_text_that_only_looks_like_a_wrapped_call_is_the_answer_whole(text):
    for pieces in ([text], list(text)):
        streamed, turn = answer_of(pieces)
        assert streamed == text and turn.decision == FinalAnswer(text)


def test_a_line_that_turns_out_to_open_no_call_streams_as_soon_as_that_is_known():
    gate = AnswerGate(["get_weather"])
    assert gate.feed("Here is the data:\n") == "Here is the data:"  # the line break waits for what follows
    assert gate.feed('{"ci') == "\n"  # may still be {"name": "get_weather", ...
    assert gate.feed('ty": "Paris"') == '{"city": "Paris"'  # a key that names no tool: text
    assert gate.feed("\n<resp") == "\n"
    assert gate.feed("onse>\nParis is sunny.") == "<response>\nParis is sunny."
    assert gate.held == ""


def test_a_granite_response_frame_after_reasoning_is_still_the_answers_frame():
    text = "<think>The user wants a greeting.</think>\n<response>\nHello!\n</response>"
    for pieces in ([text], list(text)):
        streamed, turn = answer_of(pieces)
        assert streamed.strip() == "Hello!" and turn.decision == FinalAnswer("Hello!")


def _fc_answer(text: str):
    from dify_plugin.entities.model.message import PromptMessageTool

    from agent_core.function_calling.turn import read_function_calling_turn
    from agent_core.model_call import ModelChunk

    tools = [PromptMessageTool(name=n, description="d", parameters={"type": "object", "properties": {}}) for n in ("search", "answer")]
    reader, out = read_function_calling_turn(iter([ModelChunk(text=text), ModelChunk(finish_reason="stop")]), tools, 1), []
    while True:
        try:
            out.append(next(reader))
        except StopIteration as stop:
            return "".join(out), stop.value.decision


@pytest.mark.parametrize(
    "text",
    [
        'The tool doc:\n{"name": "search", "description": "Searches the web"}',
        'To call a tool, reply with:\n{"name": "search", "arguments": {"query": "..."}}\nThat is the format.',
        'Config:\n{"name": "answer", "text": "hello"}',
        'Use it so:\n    {"name": "search", "arguments": {"query": "x"}}\nend',
    ],
)
def test_json_naming_a_tool_after_a_sentence_that_is_no_call_stays_the_answer(text: str) -> None:
    from agent_core.turn import FinalAnswer

    streamed, decision = _fc_answer(text)
    assert isinstance(decision, FinalAnswer) and decision.text == text.strip()
    assert streamed == text


@pytest.mark.parametrize("size", [None, 1, 3])
def test_a_call_list_opened_with_a_line_break_after_its_bracket_is_held_like_one_on_its_line(size):
    """``text_calls`` reads ``[\\nget_time()]`` after a sentence as a call list (``\\s`` after the
    bracket); the gate held only ``[`` followed by spaces or tabs, so the list was shown to the
    user and then run."""
    text = "Hi [\nget_time()]"
    pieces = [text] if size is None else [text[i : i + size] for i in range(0, len(text), size)]
    chunks = [ModelChunk(text=piece) for piece in pieces] + [ModelChunk(finish_reason="stop")]
    streamed, turn = drain(read_function_calling_turn(iter(chunks), ["get_time"]))
    assert [call.name for call in turn.decision.calls] == ["get_time"]
    assert streamed.strip() == "Hi"


def test_a_probed_start_is_shown_when_the_stream_fails_within_it():
    """A self-served model's first 256 characters are held to look for a bare </think>: a stream
    failing within them lost the answer text it had written."""
    reader = read_function_calling_turn(failing(["The warranty ", "covers two years of"]), ["get_weather"])
    assert shown_before_failure(reader) == "The warranty covers two years of"


def test_a_reply_held_as_maybe_reasoning_or_a_call_is_not_shown_when_the_stream_fails():
    opened = read_function_calling_turn(failing(["Okay, the user wants", " the weather."]), ["get_weather"],
                                        reasoning_opened=True)
    assert shown_before_failure(opened) == "", "no </think> came: it may all be reasoning"
    probed_tag = read_function_calling_turn(failing(["I'm thinking.</think>", "\n"]), ["get_weather"])
    assert shown_before_failure(probed_tag) == ""
    call = read_function_calling_turn(failing(['{"name": "get_weather", "argu']), ["get_weather"])
    assert shown_before_failure(call) == ""
    line = read_function_calling_turn(failing(["Let me check.\n", '{"na']), ["get_weather"], reasoning_probe=False)
    assert shown_before_failure(line) == "Let me check.\n", "a line that may open a call stays held"


def test_a_tail_held_only_as_a_possible_label_is_shown_when_the_stream_fails():
    reader = read_function_calling_turn(failing(["It rains.\nAct"]), ["get_weather"], reasoning_probe=False)
    assert shown_before_failure(reader) == "It rains.\nAct"


_BROKEN = "<minimax:tool_call>\n<invoke nam='get_weather'>Oslo</invoke>\n</minimax:tool_call>"


@pytest.mark.parametrize(
    "text",
    [_BROKEN, "Let me check.\n" + _BROKEN, _BROKEN + "\n\nI will wait for the result.",
     "<think>Call it.</think>" + _BROKEN],
)
def test_a_broken_call_outside_quoted_text_has_no_answer_to_fall_back_on(text):
    """A call the model meant to make, written broken: asked again, and if it keeps doing so the
    run ends with an error, never with the broken markup as its answer."""
    for size in (1, 7, len(text)):
        chunks = [ModelChunk(text=text[at : at + size]) for at in range(0, len(text), size)]
        streamed, turn = drain(read_function_calling_turn(iter([*chunks, ModelChunk(finish_reason="stop")]), ["get_weather"]))
        assert isinstance(turn.decision, ParseFailure) and turn.decision.fallback == ""
        assert "minimax" not in streamed


@pytest.mark.parametrize(
    ("text", "streamed_part"),
    [
        ("Log:\n> " + _BROKEN.replace("\n", "\n> ") + "\n\nThat was the model's reply.", "Log:\n> "),
        ("<think>Show it.</think>It printed:\n\n> " + _BROKEN.replace("\n", "\n> "), "It printed:\n\n> "),
    ],
)
def test_broken_markup_in_a_blockquote_falls_back_to_the_rest_of_the_answer(text, streamed_part):
    """The answer quotes a broken call: the user read the text before it; the fallback is the
    rest, no reasoning in it, and goes on right after what was shown."""
    chunks = [ModelChunk(text=text), ModelChunk(finish_reason="stop")]
    streamed, turn = drain(read_function_calling_turn(iter(chunks), ["get_weather"]))
    assert streamed == streamed_part
    assert isinstance(turn.decision, ParseFailure) and turn.decision.continues
    answer = text.split("</think>")[-1]
    assert streamed + turn.decision.fallback == answer


def test_a_cut_reply_with_quoted_markup_has_no_answer_to_fall_back_on():
    """A reply the output limit cut is never an answer: asked again, shorter."""
    text = "It printed:\n\n> " + _BROKEN.replace("\n", "\n> ")
    _, turn = drain(read_function_calling_turn(iter([ModelChunk(text=text), ModelChunk(finish_reason="length")]), ["get_weather"]))
    assert isinstance(turn.decision, ParseFailure) and turn.decision.fallback == ""


# ---- a gpt-oss recipient leaked into the content (livekit/agents-js#1632) ---------------------

LEAKED_ARGS = '{"city": "Paris"}'


def _beside_native_call(pieces):
    """(streamed text, the turn) of content in ``pieces`` beside a native get_weather call."""
    native = ToolCallDelta(index=0, id="c1", name="get_weather", arguments=LEAKED_ARGS)
    chunks = [ModelChunk(text=piece) for piece in pieces]
    chunks += [ModelChunk(tool_calls=(native,)), ModelChunk(finish_reason="tool_calls")]
    return drain(read_function_calling_turn(iter(chunks), ["get_weather"]))


@pytest.mark.parametrize(
    "leak",
    [
        f"to=functions.get_weather json\n{LEAKED_ARGS}\n",
        f"to=functions.get_weather  天天json\n{LEAKED_ARGS}цҳауеит\n",  # garbage tokens glued to the brace
        f"to=functions.get_weatherjson{LEAKED_ARGS}<|call|>",  # a Harmony end token, text on the same line
        f"to=functions.get_weather json{LEAKED_ARGS}\n\nto=functions.get_weather json{LEAKED_ARGS}\n",  # two leaks
    ],
)
def test_the_sentence_after_a_leaked_recipient_streams_and_the_leak_does_not(leak):
    """The recipient and its arguments stay hidden; the sentence the model wrote after them is
    shown (it was dropped with the leak) and the native call runs."""
    sentence = "Paris it is. Anything else?"
    text = leak + sentence
    for pieces in ([text], list(text), [text[i : i + 5] for i in range(0, len(text), 5)]):
        streamed, turn = _beside_native_call(pieces)
        assert streamed == sentence
        assert [(c.id, c.name, c.arguments) for c in turn.decision.calls] == [("c1", "get_weather", {"city": "Paris"})]
        assert turn.content == text  # the reply goes back to the model as it came


def test_a_leaked_recipient_with_no_call_read_is_asked_again_and_never_shown():
    """No native call came and the leak with text after it reads as no call: asked again, as the
    whole reply was before; the leak never reaches the user nor becomes the answer."""
    text = f"to=functions.get_weather json\n{LEAKED_ARGS}\nLet me check."
    for pieces in ([text], list(text)):
        streamed, turn = answer_of(pieces)
        assert "to=functions" not in streamed and "Paris" not in streamed
        assert isinstance(turn.decision, ParseFailure) and turn.decision.fallback == ""


@pytest.mark.parametrize(
    "text",
    [
        f"to=functions.get_time json\n{LEAKED_ARGS}\nLet me check.",  # no node tool of that name
        'to=functions.get_weather json\n{"city": "Paris"\nLet me check.',  # arguments never closed
        "to=functions.get_weather json\n{'city': 'Paris'}\nLet me check.",  # not JSON
    ],
)
def test_a_leak_whose_end_cannot_be_told_is_held_whole(text):
    streamed, turn = _beside_native_call([text])
    assert streamed == ""
    assert [c.name for c in turn.decision.calls] == ["get_weather"]


def test_a_leak_streamed_in_pieces_is_looked_at_as_its_text_doubles(monkeypatch):
    """A leak the gate reads piece by piece (after a reasoning block, which the call markup reader
    does not hold) with long arguments of many lines: its end is looked for a number of times
    that grows with the log of its length, not once a line, and the sentence after it still
    streams."""
    import agent_core.function_calling.turn as turn_module

    calls = []
    real = turn_module.harmony_leak_end
    monkeypatch.setattr(turn_module, "harmony_leak_end", lambda *args: calls.append(1) or real(*args))
    rows = ",\n".join(f'  {{"row": {n}}}' for n in range(20_000))  # a line end after each closing brace
    text = f'to=functions.get_weather json\n{{"city": "Paris", "rows": [\n{rows}\n]}}\nParis it is.'
    gate = AnswerGate(["get_weather"])
    streamed = "".join(gate.feed(text[i : i + 4]) for i in range(0, len(text), 4)) + gate.finish()
    assert streamed == "Paris it is."
    assert len(calls) <= 30
    assert gate.leak == text[: -len("Paris it is.")]


@pytest.mark.parametrize("reason", ["length", "MAX_TOKENS", "max_tokens"])
def test_a_cut_reply_with_no_text_is_asked_again_as_cut_not_as_empty(reason):
    """Gemini sends MAX_TOKENS with no part when its hidden thinking took the whole output: the
    model must hear its reply was cut (write less), not that it was empty (write something)."""
    from agent_core import prompts

    streamed, turn = drain(read_function_calling_turn(iter([ModelChunk(text=""), ModelChunk(finish_reason=reason)]), ["get_weather"]))
    assert streamed == "" and turn.decision == ParseFailure(prompts.REPLY_CUT)


_TAIL_PIECES = ("\n", "\r\n", " ", "\t", "#", "*", "_", ">", "-", "Final", " Answer", ":", "：", "Action", "act", "A",
                "fin", "FINAL ANSWER", "`", "```", "~~", "json", "x", "💭 ", "✅ ", "1. ", "{", "答案")


@pytest.mark.parametrize("line_start", [True, False])
def test_the_held_tail_is_the_longer_of_a_call_start_and_an_empty_answer_label(line_start):
    """``held_tail`` (one search a chunk) holds what the two searches it replaced held: the longer
    of a tail that may still open an ``Action:`` call and an empty ``Final Answer`` label with
    the line breaks before it (texts made of the pieces both read, 40,000 of them)."""
    import random

    rng = random.Random(13)
    for _ in range(40_000):
        text = "".join(rng.choice(_TAIL_PIECES) for _ in range(rng.randint(0, 8)))
        expected = max(partial_action_call(text, line_start), empty_label_tail(text, line_start))
        assert held_tail(text, line_start) == expected, text
    assert held_tail("Done.\n\nFinal Answer:", line_start) == len("\n\nFinal Answer:")
    assert held_tail("See below.\nAction:\n```", line_start) == len("Action:\n```")


@pytest.mark.parametrize("size", [1, 7, None])
def test_a_list_of_call_objects_after_a_sentence_is_held_and_run_not_shown(size):
    """ollama/ollama#10981: Phi-4-mini's ``[{"name": ...}]`` on the line after a sentence is held
    as a possible call (``text_calls.call_head``) and run; the sentence streams. A markdown link
    or a list of numbers at a line start still streams as the answer."""
    text = 'I will check the clock.\n\n[{"name": "get_date_time", "arguments": {}}]'
    pieces = [text] if size is None else [text[i : i + size] for i in range(0, len(text), size)]
    streamed, turn = drain(read_function_calling_turn(iter([*map(lambda p: ModelChunk(text=p), pieces),
                                                           ModelChunk(finish_reason="stop")]), ["get_date_time"]))
    assert [(call.name, call.arguments) for call in turn.decision.calls] == [("get_date_time", {})]
    assert streamed.strip() == "I will check the clock."
    answer = "See:\n[the docs](https://example.com)\n[1, 2]"
    streamed, turn = drain(read_function_calling_turn(iter([ModelChunk(text=answer), ModelChunk(finish_reason="stop")]),
                                                      ["get_date_time"]))
    assert turn.decision == FinalAnswer(answer) and streamed == answer


def test_only_reasoning_ended_as_a_call_keeps_the_reasoning_as_its_fallback():
    """A reply of only reasoning that ends with ``tool_calls`` and brings no call (labring/FastGPT#7339)
    is asked again as a missing call; if the model keeps doing so, its reasoning is the answer."""
    chunks = [ModelChunk(reasoning="The forecast says 18 degrees."), ModelChunk(finish_reason="tool_calls")]
    streamed, turn = drain(read_function_calling_turn(iter(chunks), ["get_weather"]))
    assert streamed == ""
    assert turn.decision == ParseFailure(prompts.TOOL_CALL_MISSING, "The forecast says 18 degrees.")


def test_nothing_ended_as_a_call_has_no_fallback():
    chunks = [ModelChunk(text=""), ModelChunk(finish_reason="tool_calls")]
    _, turn = drain(read_function_calling_turn(iter(chunks), ["get_weather"]))
    assert turn.decision == ParseFailure(prompts.TOOL_CALL_MISSING)


@pytest.mark.parametrize(("text", "cut_call"), [
    ("Let me check.\nAction:", True),
    ("Let me check.\n**Action:**\n```json\n", True),
    ("Let me check.\nAction: get_wea", True),  # a start of a node tool's name
    ("Let me check.\nAction: functions.get_wea", True),  # the same after a namespace (wave 38b)
    ("Let me check.\nAction: default_api.get_weather", True),
    ("Let me check.\nAction: functions.", True),  # cut right after the namespace
    ("Let me check.\nAction: functions.none", False),  # no node tool's start: the answer's own
    ("Let me check.\nAction: none needed", False),  # another word: the answer's own line
    ("The plan.\nAct", False),  # a start of a word ("Actually") stays the answer's
])
def test_a_reply_cut_right_after_its_action_label_is_a_cut_call_never_shown(text, cut_call):
    """Wave 38: the held ``Action:`` of a cut reply was released as the answer's end, and the
    reply's rest asked for as an answer's."""
    streamed, turn = drain(read_function_calling_turn(
        iter([ModelChunk(text=text), ModelChunk(finish_reason="length")]), ["get_weather"]))
    assert streamed.startswith(text.split("\n")[0])
    if cut_call:
        assert isinstance(turn.decision, ParseFailure) and turn.decision.fallback == ""
        assert "Action" not in streamed
    else:
        assert isinstance(turn.decision, FinalAnswer) and streamed.rstrip() == text.rstrip()


@pytest.mark.parametrize("text", ["Thought: I need to look", "Thought: I know.\nFinal Answer:",
                                  "Let me think.\nFinal Answer:", "Final Answer:"])
def test_a_reply_cut_before_its_answer_text_is_asked_again_its_labels_never_shown(text):
    """Wave 38: a cut ReAct-style Thought, or an empty ``Final Answer`` label, was the answer's
    start ("Thought: I need to look Paris.")."""
    streamed, turn = drain(read_function_calling_turn(
        iter([ModelChunk(text=text), ModelChunk(finish_reason="length")]), ["get_weather"]))
    assert isinstance(turn.decision, ParseFailure) and turn.decision.fallback == ""
    assert "Thought" not in streamed and "Final Answer" not in streamed


def test_a_cut_reply_with_answer_text_after_its_label_is_still_a_cut_answer():
    streamed, turn = drain(read_function_calling_turn(
        iter([ModelChunk(text="Thought: I know.\nFinal Answer: Par"), ModelChunk(finish_reason="length")]), []))
    assert isinstance(turn.decision, FinalAnswer) and streamed == "Par"


def test_a_reply_cut_at_a_start_of_a_label_word_is_a_cut_answer_continued():
    """"Fin" may be the answer's "Finland": only a whole empty label is no answer yet."""
    streamed, turn = drain(read_function_calling_turn(
        iter([ModelChunk(text="The country is:\nFin"), ModelChunk(finish_reason="length")]), []))
    assert isinstance(turn.decision, FinalAnswer) and streamed == "The country is:\nFin"
