"""Tool calls in a model family's own markup: rewritten as ``<tool_call>`` blocks however the
text is chunked, read as calls by the content reader, and left alone when there is none."""

import json
import random
import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_core import prompts
from agent_core.call_markup import (
    CallMarkup,
    holds_call_markup,
    in_quoted_line,
    markup_all_quoted,
    markup_start,
    partial_markup,
    rewrite_markup,
)
from agent_core.function_calling.turn import read_function_calling_turn
from agent_core.model_call import ModelChunk
from agent_core.react.parser import ReactStreamParser
from agent_core.react.turn import read_react_turn
from agent_core.text_calls import extract_calls_from_text
from agent_core.think import visible_text
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ParseFailure, ToolCalls
from tests.unit.helpers import drain

TOOLS = ["get_weather", "get_time", "read_file"]
PARIS = [("get_weather", {"city": "Paris"})]

# (id: source, raw content, the calls it holds, the visible text left)
SHAPES = [
    (
        "deepseek-v3",  # google/adk-python#5654
        '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"city": "Paris"}\n```'
        "<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        PARIS,
        "",
    ),
    (
        "deepseek-v3.1",
        '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
        PARIS,
        "",
    ),
    (
        "deepseek-v3.2-dsml",  # vllm-project/vllm#48931
        '<｜DSML｜function_calls>\n<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name="city" string="true">Paris'
        "</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
        PARIS,
        "",
    ),
    (
        "deepseek-v4-dsml",  # sgl-project/sglang#35736: V4 renamed the wrapper
        '<｜DSML｜tool_calls>\n<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name="city" string="true">Paris'
        "</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>",
        PARIS,
        "",
    ),
    (
        "deepseek-v4-dsml-ascii-bars",  # cline/cline#13348
        '<|DSML|tool_calls>\n<|DSML|invoke name="get_weather">\n<|DSML|parameter name="city" string="true">Paris'
        "</|DSML|parameter>\n</|DSML|invoke>\n</|DSML|tool_calls>",
        PARIS,
        "",
    ),
    (
        "deepseek-v4-dsml-doubled-bars-json-values",  # AppsGanin/ai-free-vscode#17, left open
        '<｜｜DSML｜｜tool_calls> <｜｜DSML｜｜invoke name="read_file"> <｜｜DSML｜｜parameter name="path" string="true">a.js'
        '</｜｜DSML｜｜parameter> <｜｜DSML｜｜parameter name="line" string="false">20</｜｜DSML｜｜parameter> '
        '<｜｜DSML｜｜parameter name="raw" string="false">false</｜｜DSML｜｜parameter> </｜｜DSML｜｜invoke>',
        [("read_file", {"path": "a.js", "line": 20, "raw": False})],
        "",
    ),
    (
        "deepseek-v4-dsml-misspelt",  # osaurus-ai/osaurus#1242
        '<｜DSML｜tool_ccalls>\n<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name="city" string="true">Paris'
        "</｜DSML｜parameter>\n</｜DSML｜inv>",
        PARIS,
        "",
    ),
    (
        "deepseek-v4-toolcall-fence",  # vllm-project/vllm-ascend#13794: an invented result follows
        'I will look first.\n\n<｜DSML｜toolcall>get_weather\n\n```json\n{"city": "Paris"}\n``` \n\n```json\n{"temp": 3}\n```',
        PARIS,
        "I will look first.",
    ),
    (
        "lfm2-python-list",  # ml-explore/mlx-lm#864
        '<|tool_call_start|>[get_weather(city="Paris")]<|tool_call_end|>',
        PARIS,
        "",
    ),
    (
        "claude-bare-invoke",  # anthropics/claude-code#71952 (Opus 4.8)
        'I will check.\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n</invoke>',
        PARIS,
        "I will check.",
    ),
    (
        "kimi-k2-after-prose",  # vllm-project/vllm#31207
        "Let me check. <|tool_calls_section_begin|><|tool_call_begin|> functions.get_weather:0 "
        '<|tool_call_argument_begin|> {"city": "Paris"} <|tool_call_end|><|tool_call_begin|>functions.get_time:1'
        '<|tool_call_argument_begin|>{"tz": "CET"}<|tool_call_end|><|tool_calls_section_end|>',
        [*PARIS, ("get_time", {"tz": "CET"})],
        "Let me check.",
    ),
    (
        "minimax-m2",  # MiniMax-AI/MiniMax-M2.5#10
        '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n</invoke>\n'
        "</minimax:tool_call>",
        PARIS,
        "",
    ),
    (
        "function-calls-xml",
        'I\'ll check.\n\n<function_calls><invoke name="get_weather"><parameter name="city">Paris</parameter></invoke>'
        "</function_calls>",
        PARIS,
        "I'll check.",
    ),
    (
        "minimax-m1-json-lines",
        '<tool_calls>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_calls>',
        PARIS,
        "",
    ),
    (
        "qwen3-coder-no-opener",  # ollama/ollama#16686
        "I'll fetch it.\n\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
        PARIS,
        "I'll fetch it.",
    ),
    (
        "glm-arg-key",
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>",
        PARIS,
        "",
    ),
    ("glm-no-arguments", "<tool_call>get_time</tool_call>", [("get_time", {})], ""),
    (
        "mistral-v11",  # ml-explore/mlx-lm#1374
        '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]get_time[ARGS]{"tz": "CET"}</s>',
        [*PARIS, ("get_time", {"tz": "CET"})],
        "",
    ),
    (
        "gpt-oss-harmony-call",  # lablup/mlxcel#654
        "<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant<|channel|>commentary "
        'to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris"}<|call|>',
        PARIS,
        "",
    ),
    (
        "gpt-oss-recipient-in-start",
        '<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{"city":"Paris"}<|call|>',
        PARIS,
        "",
    ),
    (
        "llama-pythonic",
        '<|python_start|>[get_weather(city="Paris"), get_time(tz="CET")]<|python_end|>',
        [*PARIS, ("get_time", {"tz": "CET"})],
        "",
    ),
    ("gemini-tool-code", '```tool_code\nprint(default_api.get_weather(city="Paris"))\n```', PARIS, ""),
    (
        "gemma3-tool-code-after-prose",  # vllm-project/vllm#14734
        "The user asks for Paris.\n```tool_code\n[get_weather(city='Paris'), get_time(tz='CET')]\n```",
        [*PARIS, ("get_time", {"tz": "CET"})],
        "The user asks for Paris.",
    ),
    ("gemma4", '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|>', PARIS, ""),  # llama.cpp#22786
    (
        "gemma4-json-quotes-and-values",  # jundot/omlx#581
        'Reading it.<|tool_call>call:read_file{path:"/tmp/a.py",lines:[1,2],opts:{raw:true}}<tool_call|>',
        [("read_file", {"path": "/tmp/a.py", "lines": [1, 2], "opts": {"raw": True}})],
        "Reading it.",
    ),
    (
        "gemma4-thought-channel",  # NousResearch/hermes-agent#48412
        "<|channel>thought\nI need the weather.\n<channel|>"
        '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|>',
        PARIS,
        "",
    ),
    (
        "internlm2-plugin-after-prose",  # InternLM/InternLM chat/chat_format.md, and vLLM's internlm tool parser
        'Sure, I will search for the weather of Paris.<|action_start|><|plugin|>\n{"name": "get_weather", '
        '"parameters": {"city": "Paris"}}<|action_end|><|im_end|>',
        PARIS,
        "Sure, I will search for the weather of Paris.",
    ),
    (
        "function-gemma",
        "<start_function_call>call:get_weather{city:<escape>Paris<escape>}<end_function_call>",
        PARIS,
        "",
    ),
    (
        "nemotron-toolcall",  # vLLM's nemotron_json tool parser: a JSON list in <TOOLCALL>
        'Let me check.<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Paris"}}, '
        '{"name": "get_time", "arguments": {"tz": "CET"}}]</TOOLCALL>',
        [*PARIS, ("get_time", {"tz": "CET"})],
        "Let me check.",
    ),
    (
        "longcat-flash",  # vLLM's longcat tool parser: Hermes JSON in <longcat_tool_call>
        '<longcat_tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</longcat_tool_call>',
        PARIS,
        "",
    ),
    (
        "seed-oss",  # vLLM's seed_oss tool parser tests (ByteDance-Seed/Seed-OSS-36B-Instruct)
        "<seed:think>The user wants the weather.</seed:think>\n<seed:tool_call>\n<function=get_weather>\n"
        "<parameter=city>Paris</parameter>\n</function>\n</seed:tool_call>",
        PARIS,
        "",
    ),
    (
        "command-r7b-action",  # transformers' chat-schema parser tests (test_cohere_template), verbatim shape
        "<|START_THINKING|>I should call a tool.<|END_THINKING|><|START_ACTION|>[\n    "
        '{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}}\n]<|END_ACTION|>'
        "<|END_OF_TURN_TOKEN|>",
        PARIS,
        "",
    ),
    (
        "step3-steptml",  # vLLM's step3 tool parser: DeepSeek-like tokens around <steptml:invoke>
        "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"get_weather\">"
        '<steptml:parameter name="city">Paris</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>',
        PARIS,
        "",
    ),
    (
        "qwen-agent-fncall",  # QwenLM/Qwen-Agent's function-call prompt (Qwen2 / Qwen2.5), after prose
        "I'll get the weather for Paris.\n\n✿FUNCTION✿: get_weather\n✿ARGS✿: {\"city\": \"Paris\"}\n"
        '✿FUNCTION✿: get_time\n✿ARGS✿: {"tz": "CET"}\n✿RESULT✿: sunny',
        [*PARIS, ("get_time", {"tz": "CET"})],
        "I'll get the weather for Paris.",
    ),
    (
        "glimmer-atem-block-without-header",  # sgl-project/sglang PR #34577: no to=NAME<|message|> before it
        "I'll check the current weather.\n<atem:function_calls>\n<atem:invoke name=\"get_weather\">\n"
        '<atem:parameter name="city">Paris</atem:parameter>\n</atem:invoke>\n</atem:function_calls>',
        PARIS,
        "I'll check the current weather.",
    ),
    (
        "olmo3-calls-per-line",  # vLLM's olmo3 tool parser: calls as code, one a line, in <function_calls>
        '<function_calls>\nget_weather(city="Paris")\nget_time(tz=null)\n</function_calls>',
        [*PARIS, ("get_time", {"tz": None})],
        "",
    ),
]


def chunked(text: str, rng: random.Random) -> list[str]:
    cuts = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, rng.randint(1, 12))))
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]


def streamed(pieces: list[str]) -> str:
    markup = CallMarkup()
    return "".join(markup.feed(piece) for piece in pieces) + markup.finish()


@pytest.mark.parametrize(("raw", "calls", "rest"), [case[1:] for case in SHAPES], ids=[case[0] for case in SHAPES])
def test_a_familys_own_call_markup_is_read_as_its_calls(raw, calls, rest):
    found, left = extract_calls_from_text(visible_text(rewrite_markup(raw)), TOOLS)  # as Function Calling reads it
    assert [(call.name, call.arguments) for call in found] == calls
    assert left == rest


@pytest.mark.parametrize("raw", [case[1] for case in SHAPES], ids=[case[0] for case in SHAPES])
def test_any_chunking_rewrites_the_same(raw):
    rng = random.Random(raw)
    whole = rewrite_markup(raw)
    for _ in range(40):
        assert streamed(chunked(raw, rng)) == whole
    assert streamed(list(raw)) == whole


@pytest.mark.parametrize(
    ("raw", "action"),
    [
        (
            "<function=read_file>\n<parameter=path>\n/etc/hosts\n</parameter>\n</function>\n</tool_call>",
            ("read_file", {"path": "/etc/hosts"}),
        ),
        (
            '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"city":"Paris"}\n```'
            "<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
            ("get_weather", {"city": "Paris"}),
        ),
        (
            "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>",
            ("get_weather", {"city": "Paris"}),
        ),
        (
            "<|channel>thought\nI need the weather.\n<channel|>"
            '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|>',
            ("get_weather", {"city": "Paris"}),
        ),
        (
            "Thought: filter it\n```tool_code\n[get_weather(city='Paris')]\n```",
            ("get_weather", {"city": "Paris"}),
        ),
    ],
)
def test_the_react_parser_reads_the_same_markup_as_its_action(raw, action):
    parser = ReactStreamParser()
    for piece in chunked(raw, random.Random(1)):
        parser.feed(piece)
    parser.finish()
    turn = parser.result()
    assert [(a.name, a.input) for a in turn.actions] == [action]
    assert turn.final_answer is None


def test_harmony_reasoning_goes_to_the_log_and_the_final_channel_is_the_answer():
    raw = (
        "<|channel|>analysis<|message|>User says hi.<|end|><|start|>assistant<|channel|>final<|message|>Hello Armando!"
    )
    assert rewrite_markup(raw) == "<think>User says hi.</think>Hello Armando!"
    parser = ReactStreamParser()
    parser.feed(raw)
    parser.finish()
    assert parser.result().final_answer == "Hello Armando!"
    assert "User says hi." in parser.result().reasoning


@pytest.mark.parametrize(
    ("raw", "kept"),
    [
        ("Hey! What's up?<end_of_turn>\n<end_of_turn><eos>", "Hey! What's up?"),  # google/gemma.cpp#276
        ("Okay, I understand.\n</end_of_turn>", "Okay, I understand.\n"),  # ollama/ollama#11276
        ("Let's go!<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nIt seems I made a mistake.", "Let's go!"),
        ("Stress disturbs sleep.<|endoftext|>Human: I've been under pressure.", "Stress disturbs sleep."),
        ("Paris.<|im_end|>\n<|im_start|>user\nWhat about Germany?", "Paris."),
        ("北京今天晴。<｜end▁of▁sentence｜><｜User｜>谢谢", "北京今天晴。"),
        ("Hello!<|end|>\n<|user|>\nthanks<|end|>\n<|assistant|>\nYou're welcome.", "Hello!"),  # Phi-3
        ("Hi there!</s>[INST] thanks [/INST] You're welcome!", "Hi there!"),  # Mistral, Llama 2
        ("Hi there!</s>\n", "Hi there!"),
        ("Hello!<|END_OF_TURN_TOKEN|>", "Hello!"),  # Command R
        ("Hello![|endofturn|]\n[|user|]thanks", "Hello!"),  # EXAONE's template (llama.cpp exaone3)
        ("Old price: <s>$10</s> now $8.", "Old price: <s>$10</s> now $8."),  # HTML strikethrough is text
    ],
)
def test_the_reply_ends_at_a_turn_end_token_and_an_invented_next_turn_is_dropped(raw, kept):
    """ollama/ollama#3759, #6915: a server that does not stop on the token passes on a turn the
    model invented after it."""
    assert rewrite_markup(raw) == kept
    assert streamed(list(raw)) == kept


@pytest.mark.parametrize(
    "raw",
    [
        # Command R7B (transformers' chat-schema parser tests): its reply between response tokens
        "<|START_THINKING|>A greeting.<|END_THINKING|><|START_RESPONSE|>Hello there!<|END_RESPONSE|><|END_OF_TURN_TOKEN|>",
        # Command A (vLLM's cohere_command4 reasoning parser strips <|START_TEXT|>..<|END_TEXT|>)
        "<|START_THINKING|>A greeting.<|END_THINKING|><|START_TEXT|>Hello there!<|END_TEXT|><|END_OF_TURN_TOKEN|>",
        # the template opened the thinking block: only its end is written
        "A greeting.<|END_THINKING|><|START_RESPONSE|>Hello there!<|END_RESPONSE|>",
    ],
)
def test_coheres_thinking_and_response_tokens_frame_the_answer(raw):
    rng = random.Random(raw)
    for pieces in ([raw], chunked(raw, rng), list(raw)):
        chunks = [*(ModelChunk(text=p) for p in pieces), ModelChunk(finish_reason="stop")]
        _, turn = drain(read_function_calling_turn(iter(chunks), TOOLS))
        assert isinstance(turn.decision, FinalAnswer) and turn.decision.text.endswith("Hello there!")
        assert "<|" not in turn.decision.text
        _, turn = drain(read_react_turn(iter(chunks), ToolRegistry(None), 1))
        assert turn.decision == FinalAnswer("Hello there!")


@pytest.mark.parametrize(
    "raw",
    [
        # GLM-4.5V / GLM-4.6V (zai-org) frame the final answer in box tokens (Blaizzy/mlx-vlm#2225)
        "<think>The user greets me.</think><|begin_of_box|>Hello there!<|end_of_box|>",
        "<think>The user greets me.</think>\n<|begin_of_box|>Hello there!<|end_of_box|>\n",
    ],
)
def test_glm_vision_box_tokens_around_the_answer_are_dropped_however_they_are_chunked(raw):
    rng = random.Random(raw)
    for pieces in ([raw], chunked(raw, rng), list(raw)):
        chunks = [*(ModelChunk(text=p) for p in pieces), ModelChunk(finish_reason="stop")]
        shown, turn = drain(read_function_calling_turn(iter(chunks), TOOLS))
        assert isinstance(turn.decision, FinalAnswer) and turn.decision.text.strip() == "Hello there!", pieces
        assert "box" not in shown and shown.strip() == "Hello there!"
        assert turn.content == raw  # the message as the model plugin sent it goes back intact
        react = [*(ModelChunk(text=p.replace("Hello", "Final Answer: Hello")) for p in pieces), ModelChunk(finish_reason="stop")]
        shown, turn = drain(read_react_turn(iter(react), ToolRegistry(None), 1))
        assert turn.decision == FinalAnswer("Hello there!") and "box" not in shown


def test_box_tokens_an_answer_shows_as_code_are_its_text():
    text = "GLM-4.5V frames its answer in `<|begin_of_box|>` and `<|end_of_box|>`."
    assert rewrite_markup(text) == text
    assert streamed(list(text)) == text


def test_markup_that_cannot_be_read_is_passed_on_as_written_and_still_counts_as_a_call():
    raw = "<minimax:tool_call>\n<invoke nam='get_weather'>Paris</invoke>\n</minimax:tool_call>"
    assert rewrite_markup(raw) == raw
    assert holds_call_markup(raw)


def test_markers_are_found_whole_or_as_a_growing_tail():
    assert markup_start("Sure. <|tool_calls_section_begin|>") == 6
    assert markup_start("a < b and [1, 2]") is None
    assert partial_markup("Sure. <|tool_calls_sec") == len("<|tool_calls_sec")
    assert partial_markup("Sure. <b>") == 0


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                *'ab <>[]|｜/_=\n{}"',
                "<tool_call>",
                "</tool_call>",
                "[TOOL_CALLS]",
                "<|channel|>",
                "<|start|>",
                "<|message|>",
                "<|end|>",
                "<function=",
                "</function>",
                "<eos>",
                "[ARGS]",
                "<|tool_call_begin|>",
            ]
        )
    ).map("".join),
    st.randoms(),
)
def test_text_is_rewritten_the_same_whatever_the_chunking(text, rng):
    whole = rewrite_markup(text)
    pieces = chunked(text, rng) if len(text) > 1 else [text]
    assert streamed(pieces) == whole


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_characters="<[")))
def test_text_without_a_marker_passes_untouched(text):
    assert streamed([text]) == text


@pytest.mark.parametrize("opener", ["<tool_calls>", "<|channel|>analysis<|message|>", "<minimax:tool_call>", "[TOOL_CALLS]write[ARGS]"])
def test_a_long_block_streamed_in_many_pieces_reads_as_when_sent_whole(opener):
    """Blocks longer than a few KB are gathered piece by piece (linear time); the result is the same."""
    body = {
        "<tool_calls>": '{"name": "write", "arguments": {"text": "' + "x" * 20_000 + '"}}\n</tool_calls> after',
        "<|channel|>analysis<|message|>": "y" * 20_000 + "<|end|><|start|>assistant<|channel|>final<|message|>Done.",
        "<minimax:tool_call>": '<invoke name="write"><parameter name="text">' + "z" * 20_000 + "</parameter></invoke></minimax:tool_call>",
        "[TOOL_CALLS]write[ARGS]": '{"text": "' + "w" * 20_000 + '"}',
    }[opener]
    raw = opener + body
    whole = rewrite_markup(raw)
    assert whole != raw  # read as markup
    rng = random.Random(opener)
    pieces, start = [], 0
    while start < len(raw):
        end = start + rng.randint(1, 300)
        pieces.append(raw[start:end])
        start = end
    assert streamed(pieces) == whole


def test_a_block_the_text_ends_inside_is_left_open_and_a_cut_call_is_not_run():
    """A reply cut by the output limit inside a call block is not made to look closed, and a call
    whose arguments were cut is never run: the reply is asked again, shorter, as Function Calling
    asks it (it was read as a call refused for its JSON)."""
    raw = '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}'
    assert rewrite_markup(raw) == '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}'
    cut = '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Par'
    assert extract_calls_from_text(rewrite_markup(cut), TOOLS) == ((), rewrite_markup(cut))
    chunks = iter([ModelChunk(text=cut), ModelChunk(finish_reason="length")])
    _, turn = drain(read_react_turn(chunks, ToolRegistry(None), 1))
    assert turn.decision == ParseFailure(prompts.REPLY_CUT)


@pytest.mark.parametrize(
    ("raw", "rewritten"),
    [
        # oobabooga/text-generation-webui#7374: gpt-oss through a server that left out its tokens
        (
            'analysisUser says "Hello World!" Probably greeting.assistantfinalHello! How can I help you today?',
            '<think>User says "Hello World!" Probably greeting.</think>Hello! How can I help you today?',
        ),
        (
            'analysisWe need the weather.assistantcommentary to=functions.get_weather json{"city":"Paris"}',
            '<think>We need the weather.</think><tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>',
        ),
        ("analysisWe need to think, and were cut", "<think>We need to think, and were cut</think>"),
        ("analysis of the data shows growth", "analysis of the data shows growth"),  # a word of the answer
        ("Analysis: sales grew", "Analysis: sales grew"),
        ("analysis: sales grew", "analysis: sales grew"),
        ("analysis\nSales grew", "analysis\nSales grew"),
        ("an", "an"),
    ],
)
def test_harmony_with_its_tokens_left_out_is_read_as_harmony(raw, rewritten):
    assert rewrite_markup(raw) == rewritten
    assert streamed(list(raw)) == rewritten


@pytest.mark.parametrize(
    "text",
    [
        "Claude's format looks like this:\n\n```xml\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n</invoke>\n```\nThat is all.",
        "DeepSeek V4 writes calls as `<｜DSML｜tool_calls>` blocks, each holding `<｜DSML｜invoke name=\"f\">` elements.",
        "LFM2 writes `<|tool_call_start|>[get_weather(city=\"Paris\")]<|tool_call_end|>` around its calls.",
        'Claude writes calls like <invoke name="get_weather"><parameter name="city">Paris</parameter></invoke> in XML.',
        # a chat template's special tokens: a server passes a real one on where the turn ends,
        # not inside code; before, the first one cut the answer there
        "Qwen's template closes each turn with `<|im_end|>`, then opens the next with `<|im_start|>`.",
        "Command R ends a turn with `<|END_OF_TURN_TOKEN|>` and Gemma with `<end_of_turn>`.",
        "The template:\n```\n<start_of_turn>user\nhi<end_of_turn>\n[|user|]hi[|endofturn|]\n</s>[INST] x\n```\nThat is all.",
    ],
)
def test_markup_shown_as_code_in_an_answer_is_passed_on_as_written(text):
    """In a code span or block, or (Claude's bare <invoke>) inside a sentence."""
    rng = random.Random(text)
    for pieces in ([text], chunked(text, rng), list(text)):
        assert streamed(pieces) == text
    streamed_text, turn = drain(read_function_calling_turn(iter([ModelChunk(text=text), ModelChunk(finish_reason="stop")]), TOOLS))
    assert streamed_text == text and turn.decision == FinalAnswer(text)


GRANITE_32 = (  # ollama/ollama#8955: granite-3.2 8b (thinking preview) through Ollama, verbatim
    "Here is my thought process:\n\nThe task is straightforward - I need to count the number of letter 'r' "
    "in the word 'strawberry'. This involves simple string analysis and character counting.\n\n"
    "Here is my response:\n\nThere are **2** 'r's in the word 'strawberry'."
)


@pytest.mark.parametrize(
    "raw",
    [
        GRANITE_32,
        GRANITE_32.replace("Here is", "Here's"),  # granite-io and vLLM's granite parser read both
        "  here is my thought process: count them. HERE IS MY RESPONSE:\n\nThere are **2** 'r's in the word 'strawberry'.",
    ],
)
def test_granites_thought_process_phrases_are_its_reasoning_block(raw):
    """Granite 3.2's template: "write your thoughts after 'Here is my thought process:' and write
    your response after 'Here is my response:'" (also vLLM's granite reasoning parser)."""
    rng = random.Random(raw)
    for pieces in ([raw], chunked(raw, rng), list(raw)):
        rewritten = streamed(pieces)
        assert rewritten.lstrip().startswith("<think>")
        assert visible_text(rewritten).strip() == "There are **2** 'r's in the word 'strawberry'."
    _, turn = drain(read_function_calling_turn(iter([ModelChunk(text=raw), ModelChunk(finish_reason="stop")]), TOOLS))
    assert turn.decision == FinalAnswer("There are **2** 'r's in the word 'strawberry'.")
    parser = ReactStreamParser()
    for piece in chunked(raw, rng):
        parser.feed(piece)
    parser.finish()
    assert parser.result().final_answer == "There are **2** 'r's in the word 'strawberry'."
    assert "string analysis" in parser.result().reasoning or "count them" in parser.result().reasoning


@pytest.mark.parametrize(
    ("raw", "decision"),
    [
        (
            "Here are my reasoning steps:\nThe user greets. We'll comply.\n[BEGIN FINAL RESPONSE]\nHello there!\n"
            "[END FINAL RESPONSE]\n<|end|>",
            FinalAnswer("Hello there!"),
        ),
        (
            "Here are my reasoning steps:\nThe user wants the weather.\n[BEGIN FINAL RESPONSE]\n"
            '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_calls>',
            PARIS,
        ),
    ],
)
def test_apriels_reasoning_steps_and_final_response_markers_frame_the_reply(raw, decision):
    """ServiceNow's Apriel thinkers (their chat template; llama.cpp ends reasoning at
    ``[BEGIN FINAL RESPONSE]``): the steps are reasoning, the response the reply."""
    rng = random.Random(raw)
    for pieces in ([raw], chunked(raw, rng), list(raw)):
        chunks = [*(ModelChunk(text=p) for p in pieces), ModelChunk(finish_reason="stop")]
        _, turn = drain(read_function_calling_turn(iter(chunks), TOOLS))
        if isinstance(decision, FinalAnswer):
            assert turn.decision.text.strip() == decision.text and "We'll comply" in turn.reasoning
        else:
            assert [(c.name, c.arguments) for c in turn.decision.calls] == decision
        _, turn = drain(read_react_turn(iter(chunks), ToolRegistry(None), 1))
        if isinstance(decision, FinalAnswer):
            assert turn.decision == decision
        else:
            assert [(c.name, c.arguments) for c in turn.decision.calls] == decision


@pytest.mark.parametrize(
    "answer",
    [
        "Apriel ends its answer with [END FINAL RESPONSE] as a marker.",
        "It writes [BEGIN FINAL RESPONSE] before the reply and [END FINAL RESPONSE] after it.",
        "Here is my answer.\n[END FINAL RESPONSE]",
    ],
)
def test_an_answer_that_quotes_apriels_end_marker_keeps_it(answer):
    """``[END FINAL RESPONSE]`` is plain text, no special token: only a reply whose Apriel frame
    was read (its ``[BEGIN FINAL RESPONSE]`` ended the reasoning steps) loses it."""
    rng = random.Random(answer)
    for pieces in ([answer], chunked(answer, rng), list(answer)):
        chunks = [*(ModelChunk(text=p) for p in pieces), ModelChunk(finish_reason="stop")]
        streamed, turn = drain(read_function_calling_turn(iter(chunks), TOOLS))
        assert streamed == answer and turn.decision == FinalAnswer(answer)
        streamed, turn = drain(read_react_turn(iter(chunks), ToolRegistry(None), 1))
        assert streamed == answer and turn.decision == FinalAnswer(answer)


def test_granites_response_may_hold_the_react_step():
    raw = 'Here is my thought process:\nI need the weather.\nHere is my response:\nAction: get_weather\nAction Input: {"city": "Paris"}'
    parser = ReactStreamParser()
    for piece in list(raw):
        parser.feed(piece)
    parser.finish()
    assert [(a.name, a.input) for a in parser.result().actions] == PARIS


@pytest.mark.parametrize(
    "raw",
    [
        "Here is my thought process: cut off by the output limit",  # no response phrase: as written
        "Here is my answer: Paris.",
        "Here is my",
        "I said: Here is my thought process: x. Here is my response: y.",  # not where the reply opens
    ],
)
def test_text_without_granites_two_phrases_at_its_start_is_passed_on_as_written(raw):
    for pieces in ([raw], list(raw)):
        assert streamed(pieces) == raw


@pytest.mark.parametrize(
    ("raw", "calls", "answer"),
    [
        # llama.cpp's tests for meetkai-functionary-medium-v3.2.jinja: a recipient opens each part
        ('>>>get_weather\n{"city": "Paris"}', PARIS, None),
        (">>>all\nHello, world!\nWhat's up?", [], "Hello, world!\nWhat's up?"),
    ],
)
def test_functionarys_recipient_at_the_start_of_a_reply_is_read(raw, calls, answer):
    rng = random.Random(raw)
    for pieces in ([raw], chunked(raw, rng), list(raw)):
        _, turn = drain(read_function_calling_turn(iter([*(ModelChunk(text=p) for p in pieces), ModelChunk(finish_reason="stop")]), TOOLS))
        if calls:
            assert [(c.name, c.arguments) for c in turn.decision.calls] == calls
        else:
            assert turn.decision == FinalAnswer(answer)
        _, turn = drain(read_react_turn(iter([*(ModelChunk(text=p) for p in pieces), ModelChunk(finish_reason="stop")]), ToolRegistry(None), 1))
        assert turn.decision == (FinalAnswer(answer) if answer else turn.decision)


def streamed_as(pieces: list[str], **options) -> str:
    markup = CallMarkup(**options)
    return "".join(markup.feed(piece) for piece in pieces) + markup.finish()


@pytest.mark.parametrize(
    ("raw", "out"),
    [
        # the generation prompt ends with ">>>": a text part's recipient comes as "all\n" alone
        ("all\nIt is sunny in Paris.", "It is sunny in Paris."),
        ("all\n\nIt is sunny.\nAll good.", "It is sunny.\nAll good."),
        ('all\nLet me check.>>>get_weather\n{"city": "Paris"}', "Let me check." + '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'),
        # anything but the exact lowercase line "all" above text is the answer's own
        ("All\n- milk\n- eggs", "All\n- milk\n- eggs"),
        ("all of them are ready\nyes", "all of them are ready\nyes"),
        ("all\n", "all\n"),
        ("all \nthe rest", "all \nthe rest"),  # the template writes the name and "\n", nothing between
        ("Ready.\nall\nitems", "Ready.\nall\nitems"),
    ],
)
def test_a_functionary_models_bare_text_recipient_at_the_reply_start_is_dropped(raw, out):
    """Functionary v3.2's generation prompt ends with ``>>>`` (meetkai-functionary-medium-v3.2.jinja),
    so a text reply served without its tool parser starts with ``all\n``: dropped when the run
    knows it talks to a Functionary model, and never otherwise."""
    rng = random.Random(raw)
    for pieces in ([raw], chunked(raw, rng), list(raw)):
        assert streamed_as(pieces, recipient_in_prompt=True) == out
        if ">>>" not in raw:
            assert streamed(pieces) == raw  # a model not known as Functionary: as written


@pytest.mark.parametrize(
    "raw",
    [
        ">>> print(1)\n1",
        ">>>",
        ">>>Note\nthis is a nested quote",
        ">>>get_weather(city='Paris')",
        "a >>> b, x>y and <b>bold</b> >>>quote",
        '```\n>>>get_weather\n{"city": "Paris"}\n```',  # in code: an example
        '>>>get_weather\n{"city": "Par',  # cut short: no call to run
        'get_weather\n{"city": "Paris"}',  # a name line alone: left to text_calls, which knows the tools
        'Result\n{"a": 1}\nThat is all.',
    ],
)
def test_text_starting_like_a_recipient_is_passed_on_as_written(raw):
    for pieces in ([raw], list(raw)):
        assert streamed(pieces) == raw


TIME_UTC = ("get_time", {"tz": "UTC"})


@pytest.mark.parametrize(
    ("raw", "text", "calls"),
    [
        # Functionary v3.2 writes its parts one after the other, nothing between them: ">>>all\ntext
        # >>>fn1\n{...}>>>fn2\n{...}" (meetkai-functionary-medium-v3.2.jinja; llama.cpp's
        # functionary_v3_2 format and its PEG parser's comment)
        ('>>>all\nLet me check.>>>get_weather\n{"city": "Paris"}', "Let me check.", PARIS),
        ('>>>all\nLet me call a tool\n>>>get_weather\n{"city":"Paris"}', "Let me call a tool\n", PARIS),
        ('>>>get_weather\n{"city": "Paris"}>>>get_time\n{"tz": "UTC"}', "", [*PARIS, TIME_UTC]),
        ('>>>get_weather\n{"city": "Paris"}\n>>>get_time\n{"tz": "UTC"}\n', "", [*PARIS, TIME_UTC]),
        # the generation prompt ends with ">>>", so the first part may come without it
        ('get_weather\n{"city": "Paris"}>>>get_time\n{"tz": "UTC"}', "", [*PARIS, TIME_UTC]),
        # a ">>>" inside the arguments' strings is no next part (a JSON string holds no raw newline)
        ('>>>run\n{"code": ">>>x"}>>>get_time\n{"tz": "UTC"}', "", [("run", {"code": ">>>x"}), TIME_UTC]),
    ],
)
def test_functionarys_call_parts_after_text_and_each_other_are_read(raw, text, calls):
    rng = random.Random(raw)
    for pieces in ([raw], chunked(raw, rng), list(raw)):
        out = streamed(pieces)
        blocks = re.findall(r"<tool_call>(.*?)</tool_call>", out)
        assert [tuple(json.loads(b).values()) for b in blocks] == calls
        assert re.sub(r"<tool_call>.*?</tool_call>", "", out) == text


@pytest.mark.parametrize(
    ("raw", "out"),
    [
        ("Thought: x >>>all\nAction: search", "Thought: x \nAction: search"),
        ("- a >>>all\n  1. b", "- a \n  1. b"),
        ('>>>get_weather\n{"city": "Paris"}>>>all\nDone.', '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>\nDone.'),
    ],
)
def test_a_text_parts_recipient_after_the_start_drops_only_the_marker(raw, out):
    """``>>>all`` met after the reply's start is dropped, its line break kept: the lines before
    and after it stay apart (a ReAct label after it still opens its line)."""
    rng = random.Random(raw)
    for pieces in ([raw], chunked(raw, rng), list(raw)):
        assert streamed(pieces) == out


PARIS_BLOCK = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'


@pytest.mark.parametrize(
    ("raw", "out"),
    [
        # the template ends the turn with <|eot_id|>; a server that passes it on: the call, and
        # nothing of the turn the model invented after it
        ('>>>get_weather\n{"city": "Paris"}<|eot_id|>\nuser: thanks', PARIS_BLOCK),
        ('Let me check.\n>>>get_weather\n{"city": "Paris"}<|im_end|>junk', "Let me check.\n" + PARIS_BLOCK),
        ('>>>get_weather\n{"city": "Paris"}\n</s>', PARIS_BLOCK),
        # a part that is no call (text after its JSON) is text, and the text after its first line
        # is read as any text: a turn end ends it, another family's markup is read
        ('>>>get_weather\n{"city": "Paris"}\nok<|im_end|>junk', '>>>get_weather\n{"city": "Paris"}\nok'),
        ('get_weather\n{"city": "Paris"}\nok<|im_end|>junk', 'get_weather\n{"city": "Paris"}\nok'),
        (
            'x>>>get_weather\n{"city": "Paris"}\nso<function=get_weather>{"city": "Paris"}</function>',
            'x>>>get_weather\n{"city": "Paris"}\nso' + PARIS_BLOCK,
        ),
        (
            '>>>get_weather\n{"city": "Par\n<function=get_weather>{"city": "Paris"}</function>',
            '>>>get_weather\n{"city": "Par\n' + PARIS_BLOCK,
        ),
    ],
)
def test_what_follows_a_functionary_part_is_read_as_anywhere(raw, out):
    """A Functionary part is held until its end is known; a turn end or another family's markup
    held with it is acted on as it is anywhere else, never passed on as written."""
    rng = random.Random(raw)
    for pieces in ([raw], chunked(raw, rng), list(raw)):
        assert streamed(pieces) == out


@pytest.mark.parametrize(
    "answer",
    [
        "`<TOOLCALL>` and `</TOOLCALL>` wrap Nemotron's calls.",
        "`<|START_ACTION|>` opens Command R's call list.",
        "`<function_calls>` wraps Claude's calls.",
        "```\n<seed:tool_call><function=get_weather>\n</seed:tool_call>\n```\nThat is Seed-OSS's form.",
        "`✿FUNCTION✿` is how Qwen-Agent names a call.",
    ],
)
def test_an_answer_that_opens_with_a_familys_markup_in_code_is_the_answer(answer):
    """A reply that starts with code is held whole; markup inside a code span or block is an
    example (``CodeQuote``), never read as a call, so it is no unreadable call either."""
    rng = random.Random(answer)
    for pieces in ([answer], chunked(answer, rng), list(answer)):
        chunks = [*(ModelChunk(text=p) for p in pieces), ModelChunk(finish_reason="stop")]
        streamed, turn = drain(read_function_calling_turn(iter(chunks), TOOLS))
        assert streamed == answer and turn.decision == FinalAnswer(answer)


@pytest.mark.parametrize(
    ("text", "holds"),
    [
        ("`<TOOLCALL>` in code", False),
        ("<TOOLCALL>[broken", True),
        ("`code` then <TOOLCALL>[broken", True),
        ("```\n<function_calls>\n```\n<function_calls>x", True),  # the second one is outside the fence
        ("`<tool_call>{broken`", False),  # in a code span: a tag the answer names
        ("`<tool_call>` then <tool_call>{broken", True),  # outside one it is read wherever it stands
        ('```json\n{"name": "get_weather", "arguments": {"city": }\n```', True),  # an envelope naming a tool
    ],
)
def test_holds_call_markup_skips_a_familys_markup_inside_code(text, holds):
    assert holds_call_markup(text, TOOLS) is holds


@pytest.mark.parametrize("chunk", ["Let me think.</think>", "<think>", "text <b>", "</reasoning>"])
def test_a_tags_closing_bracket_at_a_chunks_end_is_passed_on_at_once(chunk):
    """Only a ``>`` that may begin Functionary's ``>>>`` is held; a tag's own ``>`` is not, so a
    ``</think>`` ending a chunk reaches the reasoning splitter whole with that chunk."""
    markup = CallMarkup()
    assert markup.feed(chunk) == chunk
    assert markup.feed(" Let me check.>") == " Let me check."  # this one may begin ">>>"
    assert markup.feed('>>get_weather\n{"city": "Paris"}') == ""
    assert markup.finish() == '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'


@pytest.mark.parametrize(
    ("raw", "out"),
    [
        ("<thinking>x</thinking>>>>all\nok", "<thinking>x</thinking>\nok"),
        ('<b>x</b>>>>get_weather\n{"city": "Paris"}', "<b>x</b>" + PARIS_BLOCK),
    ],
)
def test_a_recipient_right_after_a_tag_is_read_the_same_in_any_pieces(raw, out):
    """The tag's ``>`` is the tag's, whole or cut anywhere: the recipient begins after it."""
    rng = random.Random(raw)
    for pieces in ([raw], chunked(raw, rng), list(raw)):
        assert streamed(pieces) == out


@pytest.mark.parametrize("text", ["Done: " + "]" * 20_000, "see [1] and [2]] " * 2_000, "a]\n" * 10_000])
def test_a_closing_square_bracket_is_looked_at_only_where_minimax_m3s_token_may_begin(text, monkeypatch):
    """MiniMax-M3's ``]<]minimax[>[`` made ``]`` a marker's first character: every ``]`` of a
    reply was looked at as one may begin there, and a reply of megabytes of ``]`` (a model
    looping) was read 50 times slower than before. Only a ``]`` before ``<`` or at a piece's end
    (the token may go on in the next piece) is looked at; the text passes unchanged."""
    import agent_core.call_markup as call_markup

    looked = []
    real = call_markup._closes_tag
    monkeypatch.setattr(call_markup, "_closes_tag", lambda *args: looked.append(1) or real(*args))
    markup = CallMarkup()
    assert markup.feed(text) + markup.finish() == text
    pieces = -(-len(text) // call_markup._FEED_SLICE)  # a text sent whole is read in slices
    assert len(looked) <= text.count("[") + pieces + 1  # a "]" ending a piece once, the last once more at the end


@pytest.mark.parametrize("split", range(1, 14))
def test_minimax_m3s_token_cut_after_any_character_is_still_dropped(split):
    raw = ']<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name="get_weather">]<]minimax[>[<city>Paris]<]minimax[>[</city>]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>'
    markup = CallMarkup()
    out = markup.feed("It is ]" + raw[:split]) + markup.feed(raw[split:]) + markup.finish()
    assert out.startswith("It is ]<tool_call>") and "minimax" not in out
    assert '{"name": "get_weather", "arguments": {"city": "Paris"}}' in out


_EDIT_SOURCE = "    if x:\n        return 1\n"


@pytest.mark.parametrize(
    "raw",
    [
        # Step-3 with its "function<｜tool_sep｜>NAME\n" header (vLLM's step3 parser test)
        "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>read_file\n<steptml:invoke name=\"read_file\">"
        f'<steptml:parameter name="old_string">{_EDIT_SOURCE}</steptml:parameter></steptml:invoke>'
        "<｜tool_call_end｜><｜tool_calls_end｜>",
        # MiniMax-M2's <parameter name=...>
        f'<minimax:tool_call><invoke name="read_file"><parameter name="old_string">{_EDIT_SOURCE}</parameter>'
        "</invoke></minimax:tool_call>",
        # Qwen3-Coder as its chat template writes it: one line break at each edge of the value
        f"<tool_call>\n<function=read_file>\n<parameter=old_string>\n{_EDIT_SOURCE}\n</parameter>\n</function>\n</tool_call>",
        f"<function=read_file>\n<parameter=old_string>\n{_EDIT_SOURCE}\n</parameter>\n</function>",
    ],
    ids=["step3-header", "minimax-m2", "qwen3-coder", "qwen3-coder-bare"],
)
def test_a_text_arguments_spaces_and_line_breaks_are_kept_as_written(raw):
    """An exact-match edit tool gets the indentation it was given: the value sits between its tags,
    so the spaces at its edges are part of it (vLLM's step3 / minimax_m2 / qwen3_coder parsers)."""
    for strategy_reads in (
        lambda: extract_calls_from_text(visible_text(rewrite_markup(raw)), TOOLS)[0],
        lambda: _react_calls(raw),
    ):
        assert [(call.name, call.arguments) for call in strategy_reads()] == [("read_file", {"old_string": _EDIT_SOURCE})]


def _react_calls(raw: str) -> tuple:
    _, turn = drain(read_react_turn(iter([ModelChunk(text=raw), ModelChunk(finish_reason="stop")]), ToolRegistry(None), 1))
    assert isinstance(turn.decision, ToolCalls), turn.decision
    return turn.decision.calls


def test_a_numbers_spaces_inside_its_tags_do_not_keep_it_from_being_a_number():
    """``<parameter name="n"> 4 </parameter>`` stays text as written; the tool's schema converts it."""
    from agent_core.tool_schema import ParamType, ToolParameter, coerce_value

    raw = '<minimax:tool_call><invoke name="get_time"><parameter name="n"> 4 </parameter></invoke></minimax:tool_call>'
    (call,) = extract_calls_from_text(rewrite_markup(raw), TOOLS)[0]
    assert coerce_value(ToolParameter.model_construct(name="n", type=ParamType.NUMBER), call.arguments["n"]) == 4


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("foo <co>bar</co: 0:[1,2],1:[3,4]>.", "foo bar."),  # vLLM's cohere_command parser test
        ("a <co>b</co: 0:[1]> c <co>d</co: 2:[0]>", "a b c d"),
        ("the <co> tag is never closed", "the <co> tag is never closed"),
        ("<co>x</co>", "<co>x</co>"),  # no citation's close: not that tag
        ("`<co>b</co: 0:[1]>`", "`<co>b</co: 0:[1]>`"),  # shown as code
        ("a <co><co>cited</co: 0:[1]> b", "a <co>cited b"),  # a <co> before another is text
    ],
)
def test_command_a_citation_tags_are_dropped_from_the_text_shown(raw, shown):
    rng = random.Random(raw)
    for pieces in ([raw], list(raw), chunked(raw, rng)):
        assert streamed(pieces) == shown


def test_a_run_of_unclosed_citation_tags_is_read_in_linear_time():
    """``<co>`` repeated (a reply sent whole): each one not a citation was passed on with a copy
    of the rest of the reply, 2.8 s for 1 MB where prose of that size takes a tenth of it."""
    def seconds(text: str) -> float:  # CPU seconds: another process on the machine does not count
        started = time.process_time()
        assert rewrite_markup(text) == text
        return time.process_time() - started

    prose = "word " * 50_000
    runs = "<co>" * 62_500
    assert min(seconds(runs) for _ in range(3)) < 20 * min(seconds(prose) for _ in range(3)) + 0.05


def _through_markup(text: str, size: int) -> str:
    markup = CallMarkup()
    out = "".join(markup.feed(text[i : i + size]) for i in range(0, len(text), size))
    return out + markup.finish()


@pytest.mark.parametrize("size", [1, 5, 1000])
def test_python_tag_that_reads_no_call_does_not_swallow_later_markup_or_text(size: int) -> None:
    # a JSON example (no call) after the token is text; the Hermes call after it still runs
    text = 'Example: <|python_tag|>{"a": 1} then\n<tool_call>{"name": "search", "arguments": {"q": "x"}}</tool_call>'
    assert _through_markup(text, size) == text
    # Llama's code interpreter, then a MiniMax call: the call is read, the code kept as written
    code = "<|python_tag|>import math\nprint(math.sqrt(2))\n"
    later = '<minimax:tool_call><invoke name="search"><parameter name="q">x</parameter></invoke></minimax:tool_call>'
    out = _through_markup(code + later, size)
    assert out.startswith(code) and '<tool_call>{"name": "search", "arguments": {"q": "x"}}</tool_call>' in out


@pytest.mark.parametrize("size", [1, 5, 1000])
def test_python_tag_call_keeps_the_text_after_it(size: int) -> None:
    text = 'Here: <|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}} I will report back.'
    out = _through_markup(text, size)
    assert out == 'Here: <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call> I will report back.'


@pytest.mark.parametrize(("marker", "count"), [("<tool_call>", 25_000), ("<|channel|>", 10_000)])
def test_markers_in_a_reply_sent_whole_are_read_in_linear_time(marker, count):
    """A marker acted on keeps the text after it pending: in a reply sent whole (one chunk) each
    one copied the rest of the reply, and a Harmony message looked for its end through all of it.
    300,000 ``<tool_call>`` in one chunk took 19 s, 20,000 ``<|channel|>`` 7.7 s. Five times the
    markers must take about five times as long, not twenty-five."""
    def seconds(count: int) -> float:
        text = marker * count
        started = time.process_time()  # CPU seconds: another process on the machine does not count
        markup = CallMarkup()
        markup.feed(text)
        markup.finish()
        return time.process_time() - started

    small, large = (min(seconds(n) for _ in range(3)) for n in (count, 5 * count))
    assert large < 12 * small + 0.05


_CALL = '<tool_call>\n{"name": "search", "arguments": {"query": "x"}}\n</tool_call>'


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("Like this:\n\n```xml\n" + _CALL + "\n```\n\nThat is all.", True),
        ("````markdown\n```\n" + _CALL + "\n```\n````", True),
        ("> " + _CALL.replace("\n", "\n> ") + "\n\nQuoted above.", True),
        ("> ```\n> " + _CALL.replace("\n", "\n> ") + "\n> ```", True),
        (_CALL, False),
        ("Let me search.\n" + _CALL, False),
        ("```xml\n" + _CALL + "\n```\n\nAnd for real:\n" + _CALL, False),  # one shown, one outside
        ("No markup here, > nor a quote.", False),
    ],
)
def test_markup_all_quoted_tells_markup_an_answer_shows_from_a_call(text, quoted):
    assert markup_all_quoted(text, ["search"]) is quoted
@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("> ", True),  # a blockquote line
        ("Said:\n   > <tool_call>", True),
        ("The raw output was:\n\n    <tool_call>\n    {}\n    ", True),  # an indented code block
        ("    ", True),  # one that opens the text
        ("Text\n\tcode", False),  # no blank line: a paragraph's continuation, never code
        ("Run it:\n    <tool_call>", False),
        ("1. Search first.\n\n    <tool_call>", False),  # a list item's own indented text
        ("- a\n  b\n\n    <tool_call>", False),
        ("I will search.\n<tool_call>", False),
        ("a > b", False),
    ],
)
def test_a_blockquote_or_indented_code_line_is_quoted(text, quoted):
    """CommonMark's code and quotes without a fence: markup there is shown, not written to run."""
    assert in_quoted_line(text) is quoted
