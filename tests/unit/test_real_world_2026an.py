"""A thirty-ninth set of real-world cases, from the Chinese ecosystem as Dify users run it: Qwen
(Qwen2.5's Hermes call through FastGPT, Qwen3-Coder's XML as QwenPaw met it, a Chinese tool name
through Qwen-Agent, Qwen3.5's reasoning field through MaxKB), DeepSeek V3/V3.1's call tokens, GLM-4's
streamed call, and Kimi K2/K2.5/K3's call sections and leaked tokens, from public issues and pull
requests of the apps (FastGPT, MaxKB, QwenPaw, Qwen-Agent) and of the servers and routers that
parse these models (vLLM, SGLang, ik_llama.cpp, Dynamo, SMG, mlxcel).

Replies are read through both strategies' turn readers, whole and in pieces of 1 and 7 characters
(``test_real_world_2026.reply_test``); streams start as SSE text and go through the model plugin's
conversion (``test_real_world_2026ae.plugin_chunks``). Each case names its source beside it;
docs/real-world-cases.md lists them. A text is quoted as the report shows it (trimmed where the
comment says so); where the report describes the output and its values were filled in, the
comment says "rebuilt". The tools are declared with string parameters.
"""

import pytest

from agent_core.turn import FinalAnswer, ToolCalls
from tests.unit.test_real_world_2026 import Case, reply_test, tool
from tests.unit.test_real_world_2026ae import ev, fn, plugin_chunks, read_fc, read_react, sse, tc
from tests.unit.test_real_world_2026d import read

READ_FILE = tool("read_file", "file_path")
SHELL = tool("execute_shell_command", "command")
WEATHER = tool("get_weather", "city")
BOOTSTRAP = "C:\\Users\\Administrator\\.copaw\\workspaces\\default\\BOOTSTRAP.md"

# sgl-project/sglang PR #21377: Kimi K2.5 through openclaw wrote its ids without the "." and ":"
# of functions.NAME:IDX (the content verbatim, its three calls)
FUNCTIONSEXEC = (
    '<|tool_calls_section_begin|><|tool_call_begin|>functionsexec5<|tool_call_argument_begin|>'
    '{"command": "ls -la ~/.claude 2>/dev/null || echo \\"Not found in ~/.claude\\""}<|tool_call_end|>'
    '<|tool_call_begin|>functionsexec6<|tool_call_argument_begin|>'
    '{"command": "ls -la ~/.config/claude-code 2>/dev/null || echo \\"Not found in ~/.config/claude-code\\""}'
    '<|tool_call_end|><|tool_call_begin|>functionsexec7<|tool_call_argument_begin|>'
    '{"command": "ls -la ~/.claude.json 2>/dev/null || echo \\"Not found\\""}<|tool_call_end|><|tool_calls_section_end|>'
)

CASES = {
    # ---- Qwen ------------------------------------------------------------------------------------------
    # agentscope-ai/QwenPaw#2813: "Failed to parse input at pos 348:" a Qwen3-Coder call whose tags
    # stand apart by spaces (the call verbatim)
    "qwenpaw2813-coder-call-tags-apart-by-spaces": Case(
        (READ_FILE,),
        "<tool_call> <function=read_file> <parameter=file_path> SOUL.md </parameter> </function> </tool_call>",
        calls=[("read_file", {"file_path": "SOUL.md"})], hidden=("<function", "<parameter"),
    ),
    # agentscope-ai/QwenPaw#2822: two such calls in a row, the second a Windows command (verbatim)
    "qwenpaw2822-two-spaced-coder-calls": Case(
        (READ_FILE, SHELL),
        "<tool_call> <function=read_file> <parameter=file_path> SOUL.md </parameter> </function> </tool_call> "
        f'<tool_call> <function=execute_shell_command> <parameter=command> rm "{BOOTSTRAP}" </parameter> '
        "</function> </tool_call>",
        calls=[("read_file", {"file_path": "SOUL.md"}), ("execute_shell_command", {"command": f'rm "{BOOTSTRAP}"'})],
        hidden=("<function",),
    ),
    # agentscope-ai/QwenPaw#2824: the same layout, a `del` of a quoted Windows path (verbatim)
    "qwenpaw2824-spaced-coder-call-windows-del": Case(
        (SHELL,),
        f'<tool_call> <function=execute_shell_command> <parameter=command> del "{BOOTSTRAP}" </parameter> '
        "</function> </tool_call>",
        calls=[("execute_shell_command", {"command": f'del "{BOOTSTRAP}"'})], hidden=("<function",),
    ),
    # labring/FastGPT#4675: Qwen2.5-32B's Hermes call to an MCP tool FastGPT named by id, a Chinese
    # argument (verbatim)
    "fastgpt4675-qwen25-hermes-call-chinese-argument": Case(
        (tool("qrmlzD", "city"),),
        '<tool_call>\n{"name": "qrmlzD", "arguments": {"city": "杭州"}}\n</tool_call>',
        calls=[("qrmlzD", {"city": "杭州"})], hidden=("<tool_call>",),
    ),
    # ---- DeepSeek -----------------------------------------------------------------------------------------
    # sgl-project/sglang PR #5224: DeepSeek V3's two calls, fenced JSON, then <｜end▁of▁sentence｜>
    # (the detector's docstring, verbatim)
    "sglang5224-deepseek-v3-two-fenced-calls": Case(
        (tool("get_current_weather", "location"),),
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_current_weather\n```json\n"
        '{"location": "Tokyo"}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>'
        'get_current_weather\n```json\n{"location": "Paris"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
        "<｜end▁of▁sentence｜>",
        calls=[("get_current_weather", {"location": "Tokyo"}), ("get_current_weather", {"location": "Paris"})],
        hidden=("tool▁call", "end▁of▁sentence"),
    ),
    # vllm-project/vllm PR #23454: DeepSeek V3.1's call, the name then the JSON (the PR's format
    # line; the values rebuilt)
    "vllm23454-deepseek-v31-name-sep-json": Case(
        (tool("get_current_temperature", "location"),),
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_current_temperature<｜tool▁sep｜>"
        '{"location": "San Francisco"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
        calls=[("get_current_temperature", {"location": "San Francisco"})], hidden=("tool▁sep",),
    ),
    # ---- Kimi ---------------------------------------------------------------------------------------------
    # ikawrakow/ik_llama.cpp PR #628 (examples/server/function_calls.md): K2's section with a line
    # break after each token (the document's example, verbatim)
    "ikllama628-kimi-k2-section-with-line-breaks": Case(
        (tool("get_weather", "location"),),
        "<|tool_calls_section_begin|>\n<|tool_call_begin|>\nfunctions.get_weather:0<|tool_call_argument_begin|>\n"
        '{"location": "Tokyo"}\n<|tool_call_end|>\n<|tool_calls_section_end|>',
        calls=[("get_weather", {"location": "Tokyo"})], hidden=("tool_call",),
    ),
    # ikawrakow/ik_llama.cpp PR #628: the XML form K2 falls back to (the document's example, verbatim)
    "ikllama628-kimi-k2-xml-invoke-fallback": Case(
        (tool("Write", "file_path", "content"),),
        '<tool_call>\n<invoke name="Write">\n<parameter name="file_path">/path/to/file.txt</parameter>\n'
        '<parameter name="content">File content here</parameter>\n</invoke>\n</tool_call>',
        calls=[("Write", {"file_path": "/path/to/file.txt", "content": "File content here"})], hidden=("<invoke",),
    ),
    # vllm-project/vllm PR #28543 (MoonshotAI/Kimi-K2#89): text between the section's begin and the
    # call's begin leaked (the PR's shape; the call rebuilt)
    "vllm28543-kimi-text-inside-the-section": Case(
        (WEATHER,),
        "Reasoning... <|tool_calls_section_begin|> spurious text <|tool_call_begin|>functions.get_weather:0"
        '<|tool_call_argument_begin|>{"city": "Tokyo"}<|tool_call_end|><|tool_calls_section_end|>',
        calls=[("get_weather", {"city": "Tokyo"})], hidden=("spurious text", "tool_call"),
    ),
    # lablup/mlxcel#766: a section with no per-call wrappers is one call (the format; rebuilt)
    "mlxcel766-kimi-section-without-call-tokens": Case(
        (WEATHER,),
        '<|tool_calls_section_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Tokyo"}'
        "<|tool_calls_section_end|>",
        calls=[("get_weather", {"city": "Tokyo"})], hidden=("tool_call",),
    ),
    # vllm-project/vllm PR #32216: K2 left out </think> and wrote its section inside the reasoning
    # (rebuilt)
    "vllm32216-kimi-section-in-unclosed-think": Case(
        (WEATHER,),
        "<think>The user wants the weather in Tokyo. I will call the tool.<|tool_calls_section_begin|>"
        '<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Tokyo"}<|tool_call_end|>'
        "<|tool_calls_section_end|>",
        calls=[("get_weather", {"city": "Tokyo"})], hidden=("I will call", "tool_call"),
    ),
    # ai-dynamo/dynamo PR #8820: K2.6's call tokens in content with the section cut before its end
    # (rebuilt)
    "dynamo8820-kimi-k26-section-cut-before-its-end": Case(
        (tool("read", "path"),),
        'Let me read it.<|tool_calls_section_begin|><|tool_call_begin|>functions.read:0<|tool_call_argument_begin|>'
        '{"path": "a.py"}',
        calls=[("read", {"path": "a.py"})], hidden=("<|",),
    ),
    # vllm-project/vllm PR #32146: K2 writes an OpenAI-style id and names the tool in the arguments
    # (the PR's example, verbatim, in its section)
    "vllm32146-kimi-openai-style-id-name-in-arguments": Case(
        (tool("list_files", "path"),),
        "<|tool_calls_section_begin|><|tool_call_begin|>call_abc123def456<|tool_call_argument_begin|>"
        '{"name": "list_files", "path": "/home"}<|tool_call_end|><|tool_calls_section_end|>',
        calls=[("list_files", {"path": "/home"})], hidden=("call_abc123", "tool_call"),
    ),
    "sglang21377-kimi-k25-ids-without-dot-and-colon": Case(
        (tool("exec", "command"),),
        FUNCTIONSEXEC,
        calls=[
            ("exec", {"command": 'ls -la ~/.claude 2>/dev/null || echo "Not found in ~/.claude"'}),
            ("exec", {"command": 'ls -la ~/.config/claude-code 2>/dev/null || echo "Not found in ~/.config/claude-code"'}),
            ("exec", {"command": 'ls -la ~/.claude.json 2>/dev/null || echo "Not found"'}),
        ],
        hidden=("functionsexec", "tool_call"),
    ),
    # smg-project/smg#1111: K2.5's <|im_end|> leaked into the final response (the token verbatim;
    # the answer rebuilt)
    "smg1111-kimi-k25-im-end-after-the-answer": Case(
        (WEATHER,), "It is 72°F and sunny in NYC.<|im_end|>",
        answer="It is 72°F and sunny in NYC.", hidden=("<|im_end|>",),
    ),
    # NousResearch/hermes-agent PR #73582: K3's response and message markers leaked as content (the
    # markers verbatim; the answer between them rebuilt)
    "hermes73582-kimi-k3-response-markers": Case(
        (WEATHER,), "<|open|>response<|sep|>Hello! How can I help?<|close|>response<|sep|><|close|>message<|sep|>",
        answer="Hello! How can I help?", hidden=("<|open|>", "<|close|>", "<|sep|>"),
    ),
}

GAPS: dict[tuple[str, str], str] = {}

test_real_world_reply = reply_test(CASES, GAPS, read)


# ---- the fixes' limits ------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_a_value_in_a_spaced_call_keeps_its_own_inner_spaces(strategy):
    """Only the one space at each edge is the markup's: ``  two  `` reads `` two ``."""
    text = "<tool_call> <function=read_file> <parameter=file_path>  my notes.md  </parameter> </function> </tool_call>"
    _, turn = read(strategy, Case((READ_FILE,), text), None)
    assert isinstance(turn.decision, ToolCalls)
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [("read_file", {"file_path": " my notes.md "})]


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_a_value_in_a_line_broken_call_keeps_its_spaces(strategy):
    """The template's layout (tags on their own lines) is unchanged: a value written on the tag's
    line with spaces around it keeps them (a string for an exact-match edit)."""
    text = "<tool_call>\n<function=read_file>\n<parameter=file_path> SOUL.md </parameter>\n</function>\n</tool_call>"
    _, turn = read(strategy, Case((READ_FILE,), text), None)
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [("read_file", {"file_path": " SOUL.md "})]


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_a_native_kimi_id_keeps_its_tool_when_an_argument_is_called_name(strategy):
    """A ``name`` argument is read as the tool only when the id names no tool: ``functions.
    rename:0`` with ``{"name": "exec"}`` runs ``rename``."""
    text = ('<|tool_calls_section_begin|><|tool_call_begin|>functions.rename:0<|tool_call_argument_begin|>'
            '{"name": "exec"}<|tool_call_end|><|tool_calls_section_end|>')
    _, turn = read(strategy, Case((tool("rename", "name"), tool("exec", "command")), text), None)
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [("rename", {"name": "exec"})]


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_an_openai_style_kimi_id_naming_no_declared_tool_never_runs(strategy):
    """An id that names no tool and arguments that name none either: nothing runs; the model is
    told (ReAct: an unknown tool; Function Calling: markup it could not read)."""
    text = ('<|tool_calls_section_begin|><|tool_call_begin|>call_abc123<|tool_call_argument_begin|>'
            '{"name": "delete_all"}<|tool_call_end|><|tool_calls_section_end|>')
    _, turn = read(strategy, Case((tool("list_files", "path"),), text), None)
    ran = [c.name for c in turn.decision.calls] if isinstance(turn.decision, ToolCalls) else []
    assert "list_files" not in ran and "delete_all" not in ran


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_an_openai_style_kimi_id_with_nested_arguments(strategy):
    """The PR's other form: ``{"name": N, "arguments": {...}}`` runs N with the inner object."""
    text = ('<|tool_calls_section_begin|><|tool_call_begin|>call_x1<|tool_call_argument_begin|>'
            '{"name": "get_weather", "arguments": {"city": "Tokyo"}}<|tool_call_end|><|tool_calls_section_end|>')
    _, turn = read(strategy, Case((WEATHER,), text), None)
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [("get_weather", {"city": "Tokyo"})]


# ---- streams through the model plugin -------------------------------------------------------------------


def test_glm4_194_a_new_id_on_every_delta_is_one_call():
    """zai-org/GLM-4#194: GLM-4's OpenAI server streamed one call with a new ``id`` on every
    delta, all at index 0 (the first six ids and pieces verbatim; the rest rebuilt). One call
    runs, with the first id and the whole arguments."""
    ids = ["call_DfU25035HyRrY03K6JBO94Xf", "call_LEN0pThnXuYgjRcJ4HQbNLJy", "call_6bAgqnOvlFcg9mwTZ4kP7dP0",
           "call_aQ324OyOjQCeTHiVDLPK30it", "call_nBSP2b2JVRkdRB24LacuZdZ8", "call_SaZGghO2r8g0yfrCX1iGOv2r",
           "call_7", "call_8"]
    pieces = ['{"', "location", '":', ' "', "Sa", "n Francisco", '"}']
    events = [ev(role="assistant", content=None, tool_calls=[
        tc(index=0, id=ids[0], type="function", function=fn(name="get_current_weather", arguments=""))])]
    events += [ev(content=None, tool_calls=[tc(index=0, id=ids[i + 1], type="function", function=fn(name=None, arguments=p))])
               for i, p in enumerate(pieces)]
    streamed, turn = read_fc(plugin_chunks(sse(*events, ev("tool_calls", content=None))), ["get_current_weather"])
    assert isinstance(turn.decision, ToolCalls) and not turn.decision.invalid
    assert [(c.id, c.name, c.arguments) for c in turn.decision.calls] == [
        (ids[0], "get_current_weather", {"location": "San Francisco"})]
    assert streamed == ""


def test_qwenagent702_chinese_tool_name_with_null_arguments_first():
    """QwenLM/Qwen-Agent PR #702: vLLM's stream for a tool named ``漏洞信息``: reasoning first, a
    blank content, then the call's name with ``arguments: null``, its arguments after (the deltas
    up to ``{"vul_id": "`` verbatim; the rest rebuilt). The call runs; the reasoning is kept."""
    events = [
        ev(role="assistant", content=""),
        ev(content=None, reasoning_content="好的"),
        ev(content=None, reasoning_content="。。。\n"),
        ev(content="\n\n"),
        ev(content=None, tool_calls=[tc(index=0, id="chatcmpl-tool-00dbf3e50b324db49fa8dd4a3bebe9c1", type="function",
                                        function=fn(name="漏洞信息", arguments=None))]),
        ev(content=None, tool_calls=[tc(index=0, id=None, type=None, function=fn(name=None, arguments='{"vul_id": "'))]),
        ev(content=None, tool_calls=[tc(index=0, id=None, type=None, function=fn(name=None, arguments='CVE-2024-3094"}'))]),
        ev("tool_calls", content=None),
    ]
    streamed, turn = read_fc(plugin_chunks(sse(*events)), ["漏洞信息"])
    assert isinstance(turn.decision, ToolCalls) and not turn.decision.invalid
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [("漏洞信息", {"vul_id": "CVE-2024-3094"})]
    assert streamed.strip() == "" and "好的" in turn.reasoning


@pytest.mark.parametrize("reader", [read_fc, read_react], ids=["fc", "react"])
def test_maxkb5069_vllm_reasoning_field_is_reasoning_not_answer(reader):
    """1Panel-dev/MaxKB#5069: vLLM serving Qwen3.5 names the reasoning field ``reasoning`` and
    the content opens with two line breaks (the content's opening verbatim; the reasoning
    rebuilt). The answer is shown without the reasoning; the reasoning is kept."""
    events = [ev(role="assistant", content=None, reasoning="用户问 Python 是什么，简单介绍。"),
              ev(content="\n\nPython 是一门非常流行且功能强大的**高级编程语言**。"), ev("stop", content="")]
    streamed, turn = reader(plugin_chunks(sse(*events)), ["search"])
    assert turn.decision == FinalAnswer("Python 是一门非常流行且功能强大的**高级编程语言**。")
    assert "用户问" not in streamed and "用户问" in turn.reasoning
