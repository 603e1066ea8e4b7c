"""A seventh set of real-world model outputs, through both strategies' turn readers (as
``test_real_world_2026g``: the text whole and in pieces of 1 and 7 characters). Sources the first six
passes did not use: Ollama's Go parsers' tests for GLM-4.7, LFM2, FunctionGemma and OLMo 3 (their
inputs are what the models' templates produce), Kimi K3's markers spaced by a detokenizer,
MiniMax-M3's nested element arguments, LM Studio's bracketed tool request, Gemini's ``default_api:``
leak, and text leaked beside a native tool call in the same stream (livekit/agents-js#1632, #1339).

Each case names its source beside it; docs/real-world-cases.md lists them by id. Outputs are
quoted as the source shows them; where a case is rebuilt from a format the source documents, its
comment says so.
"""

import json

import pytest

from agent_core.function_calling.turn import read_function_calling_turn
from agent_core.model_call import normalize_chunk
from agent_core.text_calls import python_calls
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ToolCalls
from tests.unit.helpers import drain
from tests.unit.test_real_world_2026 import (
    Case,
    assert_shown_or_runs_nothing,
    reply_test,
    tool,
)
from tests.unit.test_real_world_2026d import chunk
from tests.unit.test_real_world_2026g import read

WEATHER = tool("get_weather", "city")
NS = "]<]minimax[>["
LFM2_CALL = '<|tool_call_start|>[get_weather(location="Paris")]<|tool_call_end|>'
LFM2_WEATHER = tool("get_weather", "location")
PARIS = ("get_weather", {"location": "Paris"})


def _gemma(name: str, body: str) -> str:
    """FunctionGemma's call: ``<start_function_call>call:NAME{...}<end_function_call>``."""
    return f"<start_function_call>call:{name}{{{body}}}<end_function_call>"


CASES = {
    # ---- GLM-4.7 (ollama/ollama model/parsers/glm47_test.go) ----------------------------------------
    # TestGLM47ParserAdd: the prompt opened <think>; reasoning, a bare </think>, a word, a call, verbatim
    "ollama-glm47-think-answer-call": Case(
        (tool("calculate", "count", "enabled"),),
        "plan</think>Answer<tool_call>calculate<arg_key>count</arg_key><arg_value>3</arg_value>"
        "<arg_key>enabled</arg_key><arg_value>true</arg_value></tool_call>",
        calls=[("calculate", {"count": "3", "enabled": "true"})],
        hidden=("plan", "<arg_key>"),
    ),
    # TestGLM47ParserNoThinkingContent: an empty reasoning, a bare </think>, the answer, verbatim
    "ollama-glm47-empty-reasoning-then-answer": Case(
        (WEATHER,), "</think>Plain answer", answer="Plain answer", hidden=("think>",),
    ),
    # TestGLM47ParserToolCloseTagInsideArgumentValue: the value names the call tags, verbatim
    "ollama-glm47-close-tag-inside-value": Case(
        (tool("write_file", "path", "content"),),
        "<tool_call>write_file<arg_key>path</arg_key><arg_value>docs/format.md</arg_value><arg_key>content</arg_key>"
        "<arg_value>Wrap each call in <tool_call> and </tool_call>; this text is part of the argument.</arg_value>"
        "</tool_call>",
        calls=[("write_file", {"path": "docs/format.md",
                               "content": "Wrap each call in <tool_call> and </tool_call>; this text is part of the argument."})],
        hidden=("<arg_key>",),
    ),
    # TestGLM47ParserToolCallIndexing: three calls a line each after the reasoning, verbatim
    "ollama-glm47-three-calls": Case(
        (tool("first", "a"), tool("second", "b"), tool("third", "c")),
        "plan</think>\n<tool_call>first<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>\n"
        "<tool_call>second<arg_key>b</arg_key><arg_value>2</arg_value></tool_call>\n"
        "<tool_call>third<arg_key>c</arg_key><arg_value>3</arg_value></tool_call>",
        calls=[("first", {"a": "1"}), ("second", {"b": "2"}), ("third", {"c": "3"})],
        hidden=("plan", "<arg_key>"),
    ),
    # TestGLM47ParserToolCallEscaping: "<" and ">" and "&&" in a value, line breaks between the
    # tags (the test's raw call, in its <tool_call> element)
    "ollama-glm47-angle-brackets-in-value": Case(
        (tool("exec", "expr"),),
        "<tool_call>exec\n<arg_key>expr</arg_key>\n<arg_value>a < b && c > d</arg_value></tool_call>",
        calls=[("exec", {"expr": "a < b && c > d"})],
        hidden=("<arg_key>",),
    ),
    # ---- LFM2 (ollama/ollama model/parsers/lfm2_test.go) --------------------------------------------
    # TestLFM2Parser_ToolCallChunkBoundaries, content_between_tools, verbatim
    "ollama-lfm2-content-between-calls": Case(
        (LFM2_WEATHER,), LFM2_CALL + "Checking again." + LFM2_CALL, calls=[PARIS, PARIS], hidden=("<|tool",),
    ),
    # the same test, unicode_before_tool, verbatim
    "ollama-lfm2-unicode-before-call": Case(
        (LFM2_WEATHER,), "Vérifions 🌍." + LFM2_CALL, calls=[PARIS], hidden=("<|tool",),
    ),
    # the same test, content_after_tool, verbatim
    "ollama-lfm2-content-after-call": Case((LFM2_WEATHER,), LFM2_CALL + "Done.", calls=[PARIS], hidden=("<|tool",)),
    # the same test, ordinary_text: "<html>" and "1 < 2" stay the answer, verbatim
    "ollama-lfm2-ordinary-text-with-angle-brackets": Case(
        (LFM2_WEATHER,), "Use <html> or compare 1 < 2.\n", answer="Use <html> or compare 1 < 2.",
    ),
    # TestLFM2Parser, complex_tool_arguments: a Python list and dict, verbatim
    "ollama-lfm2-python-list-and-dict": Case(
        (tool("process_data", "items", "config"),),
        "Processing data.<|tool_call_start|>[process_data(items=['item1','item2'], config={'enabled': True, "
        "'threshold': 0.95})]<|tool_call_end|>",
        calls=[("process_data", {"items": ["item1", "item2"], "config": {"enabled": True, "threshold": 0.95}})],
        hidden=("<|tool",),
    ),
    # the same test, python_style_multiple_calls: two calls in one list, verbatim
    "ollama-lfm2-two-calls-one-list": Case(
        (tool("bash", "command"),),
        "Running commands.<|tool_call_start|>[bash(command='ls'),bash(command='pwd')]<|tool_call_end|>",
        calls=[("bash", {"command": "ls"}), ("bash", {"command": "pwd"})],
        hidden=("<|tool",),
    ),
    # the same test, thinking_directly_to_tool_call, verbatim
    "ollama-lfm2-think-then-call": Case(
        (tool("bash", "command"),),
        "<think>Let me run this command...</think><|tool_call_start|>[bash(command='ls')]<|tool_call_end|>",
        calls=[("bash", {"command": "ls"})],
        hidden=("<|tool", "Let me run"),
    ),
    # ---- FunctionGemma (ollama/ollama model/parsers/functiongemma_test.go) --------------------------
    # multiline_string_argument, verbatim
    "ollama-functiongemma-multiline-string": Case(
        (tool("write_file", "content"),), _gemma("write_file", "content:<escape>first line\nsecond line<escape>"),
        calls=[("write_file", {"content": "first line\nsecond line"})],
        hidden=("<escape>", "function_call>"),
    ),
    # array_argument (the test's chunks joined), verbatim
    "ollama-functiongemma-array-argument": Case(
        (tool("process", "items"),), _gemma("process", "items:[<escape>a<escape>,<escape>b<escape>,<escape>c<escape>]"),
        calls=[("process", {"items": ["a", "b", "c"]})],
        hidden=("<escape>", "function_call>"),
    ),
    # nested_object_argument, verbatim
    "ollama-functiongemma-nested-object": Case(
        (tool("create", "config"),), _gemma("create", "config:{settings:{enabled:true,name:<escape>test<escape>}}"),
        calls=[("create", {"config": {"settings": {"enabled": True, "name": "test"}}})],
        hidden=("<escape>", "function_call>"),
    ),
    # content_between_tool_calls, verbatim
    "ollama-functiongemma-content-between-calls": Case(
        (tool("first"), tool("second")), _gemma("first", "") + "Some text here" + _gemma("second", ""),
        calls=[("first", {}), ("second", {})],
        hidden=("function_call>",),
    ),
    # unicode_content_and_arguments, verbatim
    "ollama-functiongemma-unicode": Case(
        (tool("greet", "name"),), "こんにちは " + _gemma("greet", "name:<escape>日本語<escape>"),
        calls=[("greet", {"name": "日本語"})],
        hidden=("<escape>", "function_call>"),
    ),
    # parallel_tool_calls, verbatim
    "ollama-functiongemma-parallel-calls": Case(
        (WEATHER, tool("get_time", "timezone")),
        _gemma("get_weather", "city:<escape>Paris<escape>") + _gemma("get_time", "timezone:<escape>UTC<escape>"),
        calls=[("get_weather", {"city": "Paris"}), ("get_time", {"timezone": "UTC"})],
        hidden=("<escape>", "function_call>"),
    ),
    # ---- OLMo 3 (ollama/ollama model/parsers/olmo3_test.go) -----------------------------------------
    # "content then tool call", verbatim
    "ollama-olmo3-content-then-call": Case(
        (tool("get_weather", "location"),),
        'Let me check the weather.<function_calls>get_weather(location="NYC")</function_calls>',
        calls=[("get_weather", {"location": "NYC"})],
        hidden=("function_calls>",),
    ),
    # "multiple tool calls": one a line, verbatim
    "ollama-olmo3-two-calls-a-line-each": Case(
        (tool("get_weather", "location"),),
        '<function_calls>get_weather(location="San Francisco")\nget_weather(location="New York")</function_calls>',
        calls=[("get_weather", {"location": "San Francisco"}), ("get_weather", {"location": "New York"})],
        hidden=("function_calls>",),
    ),
    # "tool call with nested dict", verbatim
    "ollama-olmo3-nested-dict": Case(
        (tool("create_request", "data"),),
        '<function_calls>create_request(data={"user": {"name": "John", "age": 30}, "active": true})</function_calls>',
        calls=[("create_request", {"data": {"user": {"name": "John", "age": 30}, "active": True}})],
        hidden=("function_calls>",),
    ),
    # "tool call with escaped quotes", verbatim
    "ollama-olmo3-escaped-quotes": Case(
        (tool("search", "query"),),
        '<function_calls>search(query="say \\"hello\\"")</function_calls>',
        calls=[("search", {"query": 'say "hello"'})],
        hidden=("function_calls>",),
    ),
    # "tool call with null argument", verbatim
    "ollama-olmo3-null-argument": Case(
        (tool("clear_value", "field"),),
        "<function_calls>clear_value(field=null)</function_calls>",
        calls=[("clear_value", {"field": None})],
        hidden=("function_calls>",),
    ),
    # ---- Kimi K3, markers spaced by a detokenizer ------------------------------------------------------
    # K3's tools channel as a server that decodes special tokens with spaces around them writes it
    # (rebuilt from K3's format with the spacing the task's reports describe)
    "kimik3-spaced-markers": Case(
        (WEATHER,),
        '<|open|> tools <|sep|> <|open|> call tool="get_weather" index="1" <|sep|> '
        '<|open|> argument key="city" type="string" <|sep|>Paris<|close|> argument <|sep|> '
        "<|close|> call <|sep|> <|close|> tools <|sep|>",
        calls=[("get_weather", {"city": "Paris"})],
        hidden=("<|open|>", "<|sep|>"),
    ),
    # ---- MiniMax-M3, an array argument as nested elements ------------------------------------------------
    # MiniMax-M3's invoke with a parameter whose value is a list written as <items><item>...</item>
    # (rebuilt from vLLM's minimax_m3 parser's nested-element handling)
    "minimaxm3-nested-items-argument": Case(
        (tool("add_tags", "note_id", "tags"),),
        f'{NS}<tool_call>\n{NS}<invoke name="add_tags">{NS}<note_id>7{NS}</note_id>{NS}<tags>'
        f"{NS}<items>{NS}<item>work{NS}</item>{NS}<item>urgent{NS}</item>{NS}</items>{NS}</tags>"
        f"{NS}</invoke>\n{NS}</tool_call>",
        calls=[("add_tags", {"note_id": "7", "tags": ["work", "urgent"]})],
        hidden=("minimax", "<invoke", "<item>"),
    ),
    # the same form with the argument itself named "items": the call's own elements stay its keys
    # (rebuilt)
    "minimaxm3-argument-named-items": Case(
        (tool("add_tags", "items"),),
        f'{NS}<tool_call>\n{NS}<invoke name="add_tags">{NS}<items>{NS}<item>work{NS}</item>{NS}</items>'
        f"{NS}</invoke>\n{NS}</tool_call>",
        calls=[("add_tags", {"items": ["work"]})],
        hidden=("minimax", "<invoke", "<item>"),
    ),
    # ---- LM Studio's bracketed tool request ------------------------------------------------------------
    # openclaw/openclaw#66178: an LM Studio model prints its tool request as text, verbatim
    "openclaw66178-lmstudio-bracketed-tool-request": Case(
        (tool("mempalace_mempalace_search", "query", "wing", "room"),),
        '[mempalace_mempalace_search]\n{"query":"codename","wing":"personal","room":"identities"}\n[END_TOOL_REQUEST]',
        calls=[("mempalace_mempalace_search", {"query": "codename", "wing": "personal", "room": "identities"})],
        hidden=("END_TOOL_REQUEST",),
    ),
    # ---- Gemini's default_api leak -------------------------------------------------------------------------
    # bayesimpact/bayes-platform PR #731: a call leaked with its namespace glued to a word, no "<",
    # verbatim
    "bayes731-gemini-default-api-glued": Case(
        (tool("mandatory_tool", "categoryNames", "suggestedTitle"),),
        "Lie:default_api:mandatory_tool{categoryNames:[],suggestedTitle:null}",
        calls=[("mandatory_tool", {"categoryNames": [], "suggestedTitle": None})],
        hidden=("default_api",),
    ),
}


GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md
}


test_real_world_reply = reply_test(CASES, GAPS, read)


# ---- text leaked beside a native tool call: the call runs, the leak is not shown ----------------

SAVE_ARGS = (
    '{"question":"Who are the most important people in your life?",'
    '"questionId":"3c6bb71f-f7e7-4c75-acb9-d9d5e4a1c563","value":"Wife Patty and their thirteen children"}'
)
PROSE = (
    "Patty and thirteen kids — well, that's a full house. What kind of work, roles, or responsibilities "
    "have kept you busy over the years?"
)
NATIVE_SAVE = {"index": 0, "id": "call_save", "type": "function",
               "function": {"name": "saveAnswer", "arguments": SAVE_ARGS}}

LEAK_STREAMS = {
    # livekit/agents-js#1632: gpt-5.4's Harmony recipient and its arguments leaked into the content
    # beside the native call, with garbage tokens around them (the content verbatim, its indent
    # left out; the native call rebuilt from the leaked arguments)
    "livekit1632-harmony-recipient-beside-native-call": (
        [
            chunk(f"to=functions.saveAnswer  天天中彩票能json\n{SAVE_ARGS}цҳауеит\n{PROSE}"),
            chunk(tool_calls=[NATIVE_SAVE]),
            chunk(finish_reason="tool_calls"),
        ],
        PROSE,
    ),
    # livekit/agents-js#1339: one delta with both content "saveAnswer({...})" and the native call
    # (rebuilt with the report's tool and #1632's arguments)
    "livekit1339-code-call-beside-native-call": (
        [
            chunk(f"saveAnswer({SAVE_ARGS})", tool_calls=[NATIVE_SAVE]),
            chunk(finish_reason="tool_calls"),
        ],
        "",
    ),
}


def _read_leak(name: str):
    raw, _ = LEAK_STREAMS[name]
    registry = ToolRegistry([tool("saveAnswer", "question", "questionId", "value")])
    return drain(read_function_calling_turn(iter([normalize_chunk(r) for r in raw]), registry.prompt_tools()))


@pytest.mark.parametrize("name", list(LEAK_STREAMS))
def test_leak_beside_a_native_call_runs_the_call_and_hides_the_leak(name):
    streamed, turn = _read_leak(name)
    assert isinstance(turn.decision, ToolCalls) and not turn.decision.invalid
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [("saveAnswer", json.loads(SAVE_ARGS))]
    for leaked in ("to=functions", "questionId", "saveAnswer(", "цҳауеит"):
        assert leaked not in streamed


@pytest.mark.parametrize("name", list(LEAK_STREAMS))
def test_leak_beside_a_native_call_shows_the_rest(name):
    streamed, _ = _read_leak(name)
    assert streamed.strip() == LEAK_STREAMS[name][1]


# ---- the same shapes as an answer's text: no call runs ------------------------------------------

SPACED_XTML = (
    '<|open|> tools <|sep|> <|open|> call tool="get_weather" index="1" <|sep|> <|open|> argument key="city" '
    'type="string" <|sep|>Paris<|close|> argument <|sep|> <|close|> call <|sep|> <|close|> tools <|sep|>'
)
REQUEST = '[get_weather]\n{"city": "Paris"}\n[END_TOOL_REQUEST]'
NESTED = (
    f'{NS}<tool_call>\n{NS}<invoke name="get_weather">{NS}<city>{NS}<items>{NS}<item>Paris{NS}</item>{NS}</items>'
    f"{NS}</city>{NS}</invoke>\n{NS}</tool_call>"
)
NOT_CALLS = {
    # Kimi K3's spaced tools channel shown in a code span (Function Calling only, as in
    # test_real_world_2026g: ReAct drops <|word|> tokens), in a fence, or naming no node tool
    "kimik3-spaced-in-a-code-span": (WEATHER, f"A server may write `{SPACED_XTML}` for a call.", ("fc",)),
    "kimik3-spaced-in-a-fence": (WEATHER, f"The decoded call:\n\n```\n{SPACED_XTML}\n```"),
    "kimik3-spaced-no-node-tool": (WEATHER, SPACED_XTML.replace("get_weather", "get_time")),
    # LM Studio's tool request inside a sentence, in a code span, in a fence, naming no node tool
    "lmstudio-request-in-a-sentence": (WEATHER, f"LM Studio printed {REQUEST} instead of calling."),
    "lmstudio-request-in-a-code-span": (WEATHER, "It printed `[get_weather]` and then `[END_TOOL_REQUEST]`."),
    "lmstudio-request-in-a-fence": (WEATHER, f"The raw text was:\n\n```\n{REQUEST}\n```"),
    "lmstudio-request-no-node-tool": (WEATHER, REQUEST.replace("get_weather", "get_time")),
    # MiniMax-M3's nested array naming no node tool, and in a fenced block (the answer's text)
    "minimaxm3-nested-items-no-node-tool": (WEATHER, NESTED.replace("get_weather", "get_time")),
    "minimaxm3-nested-items-in-a-fence": (WEATHER, f"M3 wrote:\n\n```\n{NESTED}\n```"),
    # OLMo 3's call with a JSON literal inside a dict, in a code span
    "olmo3-nested-dict-in-a-code-span": (
        tool("create_request", "data"),
        'OLMo 3 writes `<function_calls>create_request(data={"active": true})</function_calls>` for a call.',
    ),
    # GLM's call tags named in a sentence: no block, no call
    "glm-call-tags-named-in-a-sentence": (
        tool("write_file", "path", "content"),
        "Wrap each call in <tool_call> and </tool_call>; the value goes in <arg_value>.",
    ),
}


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("strategy", ["react", "fc"])
@pytest.mark.parametrize("name", list(NOT_CALLS))
def test_the_shape_shown_as_text_runs_nothing(name, strategy, size):
    """No call of the node runs. The text is the answer as written, markup included, except call
    markup outside code that names no node tool: that is asked again, or in ReAct answered as a
    call of an unknown tool, with nothing shown."""
    declared, text, *only = NOT_CALLS[name]
    streamed, turn = read(strategy, Case((declared,), text), size)
    if only and strategy not in only[0]:
        assert isinstance(turn.decision, FinalAnswer)  # shown without its tokens; nothing runs
    else:
        assert_shown_or_runs_nothing(declared, text, streamed, turn)


@pytest.mark.parametrize(
    "source",
    [
        'create_request(data={"user": name})',  # a name that is no JSON literal, inside a dict
        'create_request(data={**base, "active": true})',  # a spread
        "create_request(data=[true, open()])",  # a call inside a list
    ],
)
def test_code_call_arguments_stay_literals(source):
    assert python_calls(source) == []


def test_code_call_json_literals_inside_containers():
    assert python_calls('f(data={"a": [true, null, {"b": false}]})') == [("f", {"data": {"a": [True, None, {"b": False}]}})]
