"""A twenty-seventh set of real-world model outputs: raw replies quoted in Chinese-language (and
English) reports on the Qwen3, xinference, vLLM, vLLM-Ascend, SGLang, lmdeploy, Ollama and Kimi
trackers (2025 and 2026) when a tool call or an answer of an agent was lost, shown raw, or held in
the wrong field, read through both strategies' turn readers (as ``test_real_world_2026w``: the
text whole and in pieces of 1 and 7 characters), and the native tool-call streams of such reports
through Function Calling.

Each case names its source beside it; docs/real-world-cases.md lists them with what the user saw.
A text is quoted as the report shows it; where the report shows a format or describes the output
and its values were filled in, the comment says "rebuilt". The tools are declared here with string
parameters, so a value written as markup text is expected as a string, and a JSON value as the
JSON it holds.
"""

import pytest

from agent_core.function_calling.turn import read_function_calling_turn
from agent_core.model_call import ModelChunk, normalize_chunk
from agent_core.turn import FinalAnswer, ParseFailure, ToolCalls
from tests.unit.helpers import drain
from tests.unit.test_real_world_2026 import (
    END,
    Case,
    check_tool_call_stream,
    delta,
    reply_test,
    tool,
)
from tests.unit.test_real_world_2026d import read

WEATHER = tool("get_weather", "location")

CASES = {
    # ---- Qwen3-Coder / Qwen3 markup left in the content ----------------------------------------
    # vllm-project/vllm#21571 (in Chinese): Qwen3-Coder behind vLLM's hermes parser; the call's
    # </parameter> and </function> left out, the envelope closed (verbatim)
    "vllm21571-qwen3coder-closed-by-envelope-only": Case(
        (tool("square_the_number", "input_num"),),
        "<tool_call>\n<function=square_the_number>\n<parameter=input_num>\n1024\n\n\n</tool_call>",
        calls=[("square_the_number", {"input_num": "1024"})], hidden=("<function", "<tool_call>"),
    ),
    # InternLM/lmdeploy#3840 (in Chinese): the Qwen3-Coder call its template asks for, a value on
    # three lines (verbatim)
    "lmdeploy3840-qwen3coder-multiline-value": Case(
        (tool("example_function_name", "example_parameter_1", "example_parameter_2"),),
        "<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n</parameter>\n"
        "<parameter=example_parameter_2>\nThis is the value for the second parameter\nthat can span\nmultiple lines\n"
        "</parameter>\n</function>\n</tool_call>",
        calls=[("example_function_name", {"example_parameter_1": "value_1", "example_parameter_2":
                "This is the value for the second parameter\nthat can span\nmultiple lines"})],
        hidden=("<parameter",),
    ),
    # vllm-project/vllm#17161 (a Chinese user's report): "tool_calls" empty, the call in the
    # content (rebuilt: the Hermes envelope Qwen writes, a Chinese value)
    "vllm17161-hermes-call-left-in-content": Case(
        (WEATHER,), '<tool_call>\n{"name": "get_weather", "arguments": {"location": "北京"}}\n</tool_call>',
        calls=[("get_weather", {"location": "北京"})], hidden=("<tool_call>",),
    ),
    # vllm-project/vllm#18791: Qwen3's Chinese sentence, then its call, as the hermes parser's debug
    # log shows the deltas ("参数", "进行", "计算", "。", "<tool_call>"; the call rebuilt)
    "vllm18791-qwen3-chinese-sentence-then-call": Case(
        (tool("calculator", "expression"),),
        '我将使用计算器对参数进行计算。\n<tool_call>\n{"name": "calculator", "arguments": {"expression": "3*7"}}\n</tool_call>',
        calls=[("calculator", {"expression": "3*7"})], hidden=("<tool_call>",),
    ),
    # QwenLM/Qwen3#1459 (in Chinese): Qwen3-32B's thinking opened with <think> and never closed,
    # a call after it (rebuilt: the report's pwd tool)
    "qwen1459-qwen3-unclosed-think-then-call": Case(
        (tool("pwd"), tool("cd", "folder")),
        '<think>\n用户想知道当前目录，我先调用 pwd。\n<tool_call>\n{"name": "pwd", "arguments": {}}\n</tool_call>',
        calls=[("pwd", {})], hidden=("<think>", "用户想知道"),
    ),
    # QwenLM/Qwen3#1452 (in Chinese): Qwen3 with the hermes parser, its thinking in the content (the
    # report's first sentence verbatim; the question after </think> rebuilt)
    "qwen1452-qwen3-think-in-content-then-question": Case(
        (tool("grep", "file_name", "pattern"),),
        "<think>\nOkay, the user wants to use grep to find sections in a file related to 'budget analysis'. "
        "First, I need to check if they specified the file name.\n</think>\n\n请告诉我要搜索的文件名。",
        answer="请告诉我要搜索的文件名。", hidden=("<think>", "budget analysis"),
    ),
    # ---- unknown markup: never run as a guess ----------------------------------------------------
    # NousResearch/hermes-agent#11994 (in Chinese): a [TOOL_CALL] block with "=>" and CLI-style
    # arguments, shown raw to the user (verbatim)
    "hermes11994-bracket-tool-call-arrow-args": Case(
        (tool("skills_list", "category"),),
        '[TOOL_CALL]\n{tool => "skills_list", args => {\n  --category "research"\n}}\n[/TOOL_CALL]',
        calls=[("skills_list", {"category": "research"})], hidden=("TOOL_CALL",),
    ),
    # NousResearch/hermes-agent#66452: qwen3.5 on Ollama narrates the command instead of calling
    # (the report's text): an answer, never a guessed call
    "hermes66452-qwen35-narrated-command": Case(
        (tool("terminal", "command"),), "bash\necho X", answer="bash\necho X",
    ),
    # QwenLM/Qwen3#1817: Qwen3-32B plans a call in its reasoning, then answers as if it ran (rebuilt
    # from the report): the answer as written, nothing run
    "qwen1817-qwen3-planned-call-never-made": Case(
        (tool("search_kb", "query"), tool("web_search", "query")),
        "I searched the knowledge base and found no results. High CPU after a SonicWall update is often caused by "
        "DPI; check the firmware notes.",
        reasoning="I should call search_kb first with 'SonicWall high CPU after firmware update'.",
        answer="I searched the knowledge base and found no results. High CPU after a SonicWall update is often "
        "caused by DPI; check the firmware notes.",
        hidden=("I should call search_kb",),
    ),
    # ---- thinking with no answer -----------------------------------------------------------------
    # QwenLM/Qwen3#1427 (in Chinese): QwQ/Qwen3-32B on Ollama, <think> never closed and no answer
    # (the report's example as written): asked again, the reasoning shown once retries run out
    "qwen1427-qwq-unclosed-think-no-answer": Case(
        (tool("calculator", "expression"),), "<think>嗯，用户的提问.........所以答案是76。",
        fallback="嗯，用户的提问.........所以答案是76。",
    ),
    # ollama/ollama#11381: Qwen3:14b replies with a <think> block only (rebuilt from the report)
    "ollama11381-qwen3-think-block-only": Case(
        (tool("index"),), "<think>The user wants the articles. I should call index.</think>",
        fallback="The user wants the articles. I should call index.",
    ),
    # QwenLM/Qwen3#1297 (in Chinese): enable_thinking false with the deepseek_r1 reasoning parser:
    # content null, the answer in reasoning_content (rebuilt from its first character)
    "qwen1297-qwen3-answer-in-reasoning-content": Case(
        (WEATHER,), "", reasoning="我是通义千问，很高兴为你服务。", fallback="我是通义千问，很高兴为你服务。",
    ),
    # xorbitsai/inference#3673 (in Chinese): qwen3-32b, the same through xinference (rebuilt)
    "xinference3673-qwen3-32b-answer-in-reasoning-content": Case(
        (WEATHER,), "", reasoning="北京今天晴，气温 25 度。", fallback="北京今天晴，气温 25 度。",
    ),
    # QwenLM/Qwen3.8#122 (in Chinese): Qwen3.5-9B on vLLM and lmdeploy, all output inside the
    # thinking (rebuilt)
    "qwen38-122-qwen35-all-in-think": Case(
        (WEATHER,), "<think>用户问好，我应该友好地回应：你好！有什么可以帮你？</think>",
        fallback="用户问好，我应该友好地回应：你好！有什么可以帮你？",
    ),
    # vllm-project/vllm-ascend#8042 (in Chinese): DeepSeek-V3.2 with tools and thinking, content null,
    # everything in reasoning (rebuilt)
    "vllmascend8042-dsv32-all-in-reasoning": Case(
        (tool("get_current_weather", "location", "unit"),), "", reasoning="用户问北京天气。北京今天多云。",
        fallback="用户问北京天气。北京今天多云。",
    ),
    # sgl-project/sglang#17551: DeepSeek V3.2 after a tool result, all output marked reasoning
    # (rebuilt)
    "sglang17551-dsv32-answer-after-tool-in-reasoning": Case(
        (WEATHER,), "", reasoning="The weather in Tokyo is sunny, 22°C.", fallback="The weather in Tokyo is sunny, 22°C.",
    ),
}


GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md
    ("vllm21571-qwen3coder-closed-by-envelope-only", "react"): (
        "ReAct's stream reader settles a <tool_call> block at its </tool_call> and cannot yet see "
        "whether a </function> follows (the check Function Calling makes before reading the "
        "envelope's close as the end of a value), so the model is asked again"
    ),
    ("hermes11994-bracket-tool-call-arrow-args", "react"): (
        "[TOOL_CALL] with '=>' and '--key \"value\"' arguments is a form no server or template "
        "documents; mapping it to arguments would be a guess, so the model is asked again"
    ),
    ("hermes11994-bracket-tool-call-arrow-args", "fc"): (
        "[TOOL_CALL] with '=>' and '--key \"value\"' arguments is a form no server or template "
        "documents; mapping it to arguments would be a guess, so the model is asked again"
    ),
}


test_real_world_reply = reply_test(CASES, GAPS, read)


# ---- a stream as the report shows it -----------------------------------------------------------

# vllm-project/vllm#20611: Qwen3-14B streamed with enable_thinking false, the Hermes call left in
# the content deltas (the report's first pieces verbatim, the rest rebuilt)
VLLM20611_PIECES = [
    "", "<tool_call>", "\n", '{"', "name", '":', ' "', "get", "_weather", '",', ' "', "arguments", '":', ' {"',
    "location", '":', ' "', "杭州", '"}}', "\n", "</tool_call>",
]


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_vllm20611_hermes_call_in_the_reports_pieces(strategy):
    chunks = iter([*(ModelChunk(text=piece) for piece in VLLM20611_PIECES), ModelChunk(finish_reason="stop")])
    streamed, turn = read_pieces(strategy, chunks, (WEATHER,))
    assert isinstance(turn.decision, ToolCalls)
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [("get_weather", {"location": "杭州"})]
    assert "tool_call" not in streamed


def read_pieces(strategy, chunks, tools):
    """``chunks`` read by ``strategy``'s turn reader with the node's ``tools``."""
    from agent_core.react.turn import read_react_turn
    from agent_core.tool_schema import ToolRegistry

    registry = ToolRegistry(list(tools))
    if strategy == "react":
        return drain(read_react_turn(chunks, registry, 1))
    return drain(read_function_calling_turn(chunks, registry.prompt_tools()))


# ---- native tool-call streams ------------------------------------------------------------------


def content(text):
    """One chunk dict carrying content only."""
    return {"model": "m", "delta": {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": None}}


STREAMS = {
    # vllm-project/vllm#19056 (a Chinese user's report): Qwen3 through the hermes parser, the
    # arguments in many small deltas, continuations with id and name None (verbatim to "8"; the
    # closing rebuilt)
    "vllm19056-qwen3-hermes-many-small-deltas": (
        [
            delta(index=0, id="chatcmpl-tool-ca0a10ac646744be850c62b1301ff39b", type="function",
                  function={"arguments": None, "name": "summary"}),
            *(delta(index=0, id=None, type=None, function={"arguments": piece, "name": None})
              for piece in ['{"query": "', "Deep", "Seek", "-R", "1", "-", "0", "5", "2", "8", '"}']),
            END,
        ],
        "", [("summary", {"query": "DeepSeek-R1-0528"})],
    ),
    # a Chinese blog post on DashScope's tool calling (docs/real-world-cases.md has its address):
    # qwen-plus streams the call, content null on the first delta (its first delta verbatim, the
    # rest rebuilt)
    "bioinfo-dashscope-qwen-plus-stream": (
        [
            delta(index=0, id="call_0bdcc155f2534f65a05cb1", type="function",
                  function={"name": "get_current_weather", "arguments": '{"location":'}),
            delta(index=0, id="", type="function", function={"arguments": ' "杭州市"}'}),
            END,
        ],
        "", [("get_current_weather", {"location": "杭州市"})],
    ),
    # tailcallhq/forgecode#1122: Kimi K2 streams id "0" and an empty name on every continuation
    # (the report's pieces verbatim to "Users"; the rest rebuilt)
    "forgecode1122-kimi-k2-empty-name-continuations": (
        [
            delta(index=0, id="0", type="function", function={"name": "forge_tool_fs_search", "arguments": ""}),
            *(delta(index=0, id="0", type="function", function={"name": "", "arguments": piece})
              for piece in ['{"path', '":', ' "', "C", ":\\\\", "Users", "\\\\", "kar", '"}']),
            END,
        ],
        "", [("forge_tool_fs_search", {"path": "C:\\Users\\kar"})],
    ),
    # Sylinko/Everywhere#287 (in Chinese): DeepSeek V3.2 asked "你先输出一段内容，然后调用pwd命令":
    # text first, then the call (rebuilt from the report's prompt)
    "everywhere287-dsv32-text-then-call": (
        [content("好的，这是一段内容。"), delta(index=0, id="call_00_a", type="function", function={"name": "pwd", "arguments": "{}"}), END],
        "好的，这是一段内容。", [("pwd", {})],
    ),
}


@pytest.mark.parametrize("name", list(STREAMS))
def test_real_world_tool_call_stream(name):
    raw, shown, expected = STREAMS[name]
    check_tool_call_stream(raw, shown, expected)


# QwenLM/Qwen3#1755: Qwen3-235B-A22B-Thinking-2507 streams "\n\n" as content between its reasoning
# and its call (the report's call; the reasoning and the query rebuilt); ggml-org/llama.cpp#13224:
# Qwen3 32B through llama-server, content "\n\n" beside tool_calls (the report's content)
BLANK_CONTENT = {
    "qwen1755-qwen3-thinking-blank-content-before-call": ("用户想查劳动法条文。", "search_law_articles", "query", "劳动合同解除"),
    "llamacpp13224-qwen3-32b-blank-content-beside-call": ("", "get_weather", "location", "Paris"),
}


@pytest.mark.parametrize("name", list(BLANK_CONTENT))
def test_blank_content_beside_a_call_shows_nothing(name):
    reasoning, tool_name, key, value = BLANK_CONTENT[name]
    chunks = [ModelChunk(reasoning=reasoning)] if reasoning else []
    chunks.append(ModelChunk(text="\n\n"))
    call = delta(index=0, id="call_1", type="function", function={"name": tool_name, "arguments": f'{{"{key}": "{value}"}}'})
    chunks += [normalize_chunk(call), normalize_chunk(END)]
    streamed, turn = drain(read_function_calling_turn(iter(chunks), [tool_name]))
    assert streamed.strip() == ""
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [(tool_name, {key: value})]


def test_ollama17274_tool_description_as_name_runs_nothing():
    """ollama/ollama#17274: qwen2.5 names its call by the tool's description ("Apply tags to a
    document") instead of ``tag_document`` (the report's name; the arguments rebuilt): no call of
    ``tag_document`` runs, nothing is shown; ReAct tells the model the tool is unknown, Function
    Calling asks again."""
    tag = tool("tag_document", "document_id", "tags")
    text = '<tool_call>\n{"name": "Apply tags to a document", "arguments": {"document_id": 1, "tags": ["invoice"]}}\n</tool_call>'
    for strategy in ("react", "fc"):
        for size in (None, 1, 7):
            streamed, turn = read(strategy, Case((tag,), text), size)
            assert streamed == ""
            assert not isinstance(turn.decision, FinalAnswer)
            assert "tag_document" not in [c.name for c in getattr(turn.decision, "calls", ())]
            if strategy == "fc":
                assert isinstance(turn.decision, ParseFailure)


def test_vllm22885_arguments_missing_only_their_closing_brace_run():
    """vllm-project/vllm#22885: qwen3-30b-a3b-instruct-2507 through the hermes parser, every
    call's arguments missing their last ``}`` (rebuilt around the report's description; its users
    got "Invalid JSON format"): the last value is closed, only the object's brace is missing, so
    the call runs with what was written."""
    raw = [delta(index=0, id="call_1", type="function", function={"name": "get_weather", "arguments": '{"location": "Paris"'}), END]
    check_tool_call_stream(raw, "", [("get_weather", {"location": "Paris"})])


@pytest.mark.parametrize("strategy", ["fc"])
def test_envelope_closing_a_function_is_not_read_when_a_function_close_follows(strategy):
    """The ``</tool_call>`` ends an open Qwen3-Coder function only when no ``</function>`` comes
    later: a value that holds the text ``</tool_call>`` (a file about tool calls) is not cut there
    and run short; a reply cut before its envelope closes runs nothing."""
    write = tool("write_file", "path", "content")
    in_value = ("<tool_call>\n<function=write_file>\n<parameter=path>\na.md\n</parameter>\n<parameter=content>\n"
                "ends with </tool_call> here\n</parameter>\n</function>\n</tool_call>")
    cut = "<tool_call>\n<function=write_file>\n<parameter=path>\na.md\n</parameter>\n<parameter=content>\nhalf"
    for size in (None, 1, 7):
        _, turn = read(strategy, Case((write,), in_value), size)
        assert [c.arguments for c in getattr(turn.decision, "calls", ()) if c.name == "write_file"] in (
            [], [{"path": "a.md", "content": "ends with </tool_call> here"}]), turn.decision
        _, turn = read(strategy, Case((write,), cut), size)
        assert isinstance(turn.decision, ParseFailure)
