"""A fifth set of real-world model outputs and stream shapes, quoted from public bug reports, pull
requests and inference servers' tool-parser tests added in 2025-2026, through both strategies' turn
readers (``test_real_world_2026`` drives them: the text whole and in pieces of 1 and 7 characters,
the reasoning sent first as ``reasoning_content``). Sources the first four passes did not use: vLLM's
GLM-4.7 repair pull requests, DeepSeek V4's DSML leaks (vLLM, SGLang, opencode, opensquilla,
command-code, GenericAgent), Hunyuan Hy3 and HY4, Step-3.5, Qwen 3.6, Kimi K3, gpt-oss through
Rapid-MLX, and streams from gateways and servers.

Each case names its source beside it; docs/real-world-cases.md lists them by id. Outputs are
quoted as the source shows them; where a case is shortened, completed or rebuilt from a format
the source documents, its comment says so.
"""

import time

import pytest

from agent_core.turn import FinalAnswer, ParseFailure, ToolCalls
from tests.unit.test_real_world_2026 import (
    Case,
    check_tool_call_stream,
    delta,
    reply_test,
    tool,
)
from tests.unit.test_real_world_2026d import chunk, read

WEATHER = tool("get_weather", "city")

CASES = {
    # ---- GLM-4.7 / GLM-5 --------------------------------------------------------------------------
    # vllm-project/vllm PR #54971: a GLM server under --tool-call-parser glm47 repeats the closing
    # </arg_key>; the PR's example, verbatim, in the call its report shows (list_dir)
    "vllm54971-glm47-repeated-arg-key-close": Case(
        (tool("list_dir", "path"),),
        "<tool_call>list_dir<arg_key>path</arg_key></arg_key><arg_value>/tmp/x</arg_value></tool_call>",
        calls=[("list_dir", {"path": "/tmp/x"})],
        hidden=("arg_key",),
    ),
    # the same PR's mirrored case: the opening <arg_key> doubled
    "vllm54971-glm47-doubled-arg-key-open": Case(
        (tool("list_dir", "path"),),
        "<tool_call>list_dir<arg_key><arg_key>path</arg_key><arg_value>/tmp/x</arg_value></tool_call>",
        calls=[("list_dir", {"path": "/tmp/x"})],
        hidden=("arg_key",),
    ),
    # vllm-project/vllm#49248 / PRs #49249, #51364: under concurrent load GLM-4.7 leaves out the
    # opening <arg_value>, verbatim
    "vllm49249-glm47-missing-arg-value-open": Case(
        (tool("search", "query"),),
        "<tool_call>search<arg_key>query</arg_key>how many vacation days left</arg_value></tool_call>",
        calls=[("search", {"query": "how many vacation days left"})],
        hidden=("arg_",),
    ),
    # vllm-project/vllm PR #41654: a zero-argument call of an MCP-style tool name, verbatim name
    "vllm41654-glm-zero-arg-mcp-name": Case(
        (tool("mcp__gmail-cleanup__list_filters"),),
        "<tool_call>mcp__gmail-cleanup__list_filters</tool_call>",
        calls=[("mcp__gmail-cleanup__list_filters", {})],
        hidden=("<tool_call>",),
    ),
    # ---- DeepSeek V3.2 / V4 DSML --------------------------------------------------------------------
    # TokenRhythm/opensquilla#985: deepseek-v4-flash (0731) returns its DSML calls as content, verbatim
    # (the report's four invokes; its "..." elision left out, the first two kept)
    "opensquilla985-dsv4-exec-invokes-in-content": Case(
        (tool("exec_command", "cmd"),),
        "<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"exec_command\">\n<｜DSML｜parameter name=\"cmd\" string=\"true\">"
        "Get-Item -LiteralPath 'D:\\deskop_.nbt' | Select-Object FullName,Length,LastWriteTime</｜DSML｜parameter>\n"
        "</｜DSML｜invoke>\n<｜DSML｜invoke name=\"exec_command\">\n<｜DSML｜parameter name=\"cmd\" string=\"true\">"
        "Get-FileHash -Algorithm SHA256 -LiteralPath 'D:\\deskop_.nbt' | Format-List</｜DSML｜parameter>\n"
        "</｜DSML｜invoke>\n</｜DSML｜tool_calls>",
        calls=[
            ("exec_command", {"cmd": "Get-Item -LiteralPath 'D:\\deskop_.nbt' | Select-Object FullName,Length,LastWriteTime"}),
            ("exec_command", {"cmd": "Get-FileHash -Algorithm SHA256 -LiteralPath 'D:\\deskop_.nbt' | Format-List"}),
        ],
        hidden=("DSML",),
    ),
    # CommandCodeAI/command-code#909: deepseek-v4.1-flash writes doubled bars and a space before each
    # tag's word ("<｜｜DSML｜｜ calls>"), after a sentence, verbatim
    "commandcode909-dsv41-doubled-bars-space-before-word": Case(
        (tool("read", "path"),),
        "I'll run a grilling session. First, let me read the skill and gather the facts.\n\n<｜｜DSML｜｜ calls>\n"
        "<｜｜DSML｜｜ invoke name=\"read\">\n<｜｜DSML｜｜ parameter name=\"path\" string=\"true\">"
        "/Users/xiaodi/.agents/skills/grill-me/SKILL.md</｜｜DSML｜｜ parameter>\n</｜｜DSML｜｜ invoke>\n"
        "</｜｜DSML｜｜ calls>",
        calls=[("read", {"path": "/Users/xiaodi/.agents/skills/grill-me/SKILL.md"})],
        hidden=("DSML",),
    ),
    # vllm-project/vllm#51914: DeepSeek-V4-Flash-0731 misspells the opening wrapper "toolcalls" and
    # closes it right (rebuilt from the report's synthetic example, the opener changed as it says)
    "vllm51914-dsv4-toolcalls-opener-misspelt": Case(
        (WEATHER,),
        "<｜DSML｜toolcalls>\n<｜DSML｜invoke name=\"get_weather\">\n<｜DSML｜parameter name=\"city\" string=\"true\">"
        "Seoul</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>",
        calls=[("get_weather", {"city": "Seoul"})],
        hidden=("DSML",),
    ),
    # anomalyco/opencode#34676: DeepSeek V4 Flash's call with its DSML tokens gone: a bare <invoke>
    # with string="true" parameters, verbatim
    "opencode34676-dsv4-bare-invoke-string-attribute": Case(
        (tool("read", "filePath"),),
        "<invoke name=\"read\">\n<parameter name=\"filePath\" string=\"true\">"
        "/home/codearea/steelclaw/workspace/coding/mighty-app/frontend/src/lib/api.ts</parameter>\n</invoke>",
        calls=[("read", {"filePath": "/home/codearea/steelclaw/workspace/coding/mighty-app/frontend/src/lib/api.ts"})],
        hidden=("<invoke",),
    ),
    # lsdefine/GenericAgent#804: DSML tags with U+2016 double bars, "<‖DSML‖tool_calls>" and
    # "<‖DSML‖invoke ...>" (rebuilt with the report's markers around V4's documented call)
    "genericagent804-dsml-double-vertical-line": Case(
        (WEATHER,),
        "<‖DSML‖tool_calls>\n<‖DSML‖invoke name=\"get_weather\">\n<‖DSML‖parameter name=\"city\" string=\"true\">"
        "Paris</‖DSML‖parameter>\n</‖DSML‖invoke>\n</‖DSML‖tool_calls>",
        calls=[("get_weather", {"city": "Paris"})],
        hidden=("DSML",),
    ),
    # vllm-project/vllm PR #56184: DeepSeek V4 writes an empty tool_calls block; the text around it is
    # the answer (rebuilt from the PR's description)
    "vllm56184-dsv4-empty-tool-calls-block": Case(
        (WEATHER,),
        "It is sunny in Paris today.\n<｜DSML｜tool_calls></｜DSML｜tool_calls>",
        answer="It is sunny in Paris today.",
        hidden=("DSML",),
    ),
    # the same PR: a stray closer right after a tool result, then the answer (rebuilt)
    "vllm56184-dsv4-stray-invoke-closer": Case(
        (WEATHER,),
        "</｜DSML｜invoke>\nIt is sunny in Paris today.",
        answer="It is sunny in Paris today.",
        hidden=("DSML",),
    ),
    # ---- gpt-oss Harmony ------------------------------------------------------------------------------
    # raullenchai/Rapid-MLX#444: gpt-oss-20b streaming, the role word glued before the channel,
    # verbatim
    "rapidmlx444-gptoss-assistantcommentary": Case(
        (WEATHER,),
        'assistantcommentary to=functions.get_weather json{"city":"Tokyo"}',
        calls=[("get_weather", {"city": "Tokyo"})],
        hidden=("to=functions",),
    ),
    # ---- Hunyuan Hy3 / HY4 ----------------------------------------------------------------------------
    # vllm-project/vllm tests/tool_parsers/test_hy_v3_tool_parser.py (tencent/Hy3-preview): a zero-
    # argument call after text, <tool_sep> after the name, verbatim
    "vllm-hyv3-zero-arg-after-text": Case(
        (tool("get_current_date"), tool("get_weather", "city", "date")),
        "Checking.<tool_calls>\n<tool_call>get_current_date<tool_sep>\n</tool_call>\n</tool_calls>",
        calls=[("get_current_date", {})],
        hidden=("tool_sep", "<tool_call"),
    ),
    # the same test: two calls with <arg_key>/<arg_value> pairs, verbatim
    "vllm-hyv3-two-calls-arg-pairs": Case(
        (tool("get_current_date"), tool("get_weather", "city", "date")),
        "<tool_calls>\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n"
        "<arg_key>date</arg_key>\n<arg_value>2026-03-30</arg_value>\n</tool_call>\n<tool_call>get_weather<tool_sep>\n"
        "<arg_key>city</arg_key>\n<arg_value>Hangzhou</arg_value>\n<arg_key>date</arg_key>\n<arg_value>2026-03-30"
        "</arg_value>\n</tool_call>\n</tool_calls>",
        calls=[
            ("get_weather", {"city": "Beijing", "date": "2026-03-30"}),
            ("get_weather", {"city": "Hangzhou", "date": "2026-03-30"}),
        ],
        hidden=("tool_sep", "arg_key"),
    ),
    # the same test: arguments on one line
    "vllm-hyv3-args-same-line": Case(
        (tool("get_current_date"), tool("get_weather", "city", "date")),
        "<tool_calls><tool_call>get_weather<tool_sep><arg_key>city</arg_key><arg_value>Beijing</arg_value><arg_key>date"
        "</arg_key><arg_value>2026-03-30</arg_value></tool_call></tool_calls>",
        calls=[("get_weather", {"city": "Beijing", "date": "2026-03-30"})],
        hidden=("tool_sep", "arg_key"),
    ),
    # vllm-project/vllm tests/tool_parsers/test_hy_v4_tool_parser.py: HY4's tokens carry a suffix
    # (":opensource"); text, then a call (the test's `"sure!" + block(call(...))` written out)
    "vllm-hyv4-suffixed-tokens-after-text": Case(
        (tool("get_weather", "city", "days"), tool("get_current_date")),
        "sure!<tool_calls:opensource><tool_call:opensource>get_weather<arg_key:opensource>city</arg_key:opensource>"
        "<arg_value:opensource>Beijing</arg_value:opensource><arg_key:opensource>days</arg_key:opensource>"
        "<arg_value:opensource>3</arg_value:opensource></tool_call:opensource></tool_calls:opensource>",
        calls=[("get_weather", {"city": "Beijing", "days": "3"})],
        hidden=("opensource", "arg_key"),
    ),
    # the same test: two calls, the second without arguments
    "vllm-hyv4-two-calls-one-zero-arg": Case(
        (tool("get_weather", "city", "days"), tool("get_current_date")),
        "<tool_calls:opensource><tool_call:opensource>get_weather<arg_key:opensource>city</arg_key:opensource>"
        "<arg_value:opensource>A</arg_value:opensource></tool_call:opensource><tool_call:opensource>get_current_date"
        "</tool_call:opensource></tool_calls:opensource>",
        calls=[("get_weather", {"city": "A"}), ("get_current_date", {})],
        hidden=("opensource",),
    ),
    # ---- Step-3.5 / Qwen 3.6 ------------------------------------------------------------------------
    # vllm-project/vllm tests/tool_parsers/test_step3p5_tool_parser.py (stepfun-ai/Step-3.5-Flash):
    # text glued to a Qwen3-Coder-style call, verbatim
    "vllm-step3p5-call-after-text": Case(
        (tool("get_current_weather", "city", "state", "unit"),),
        "Sure! Let me check the weather for you.<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n"
        "</parameter>\n<parameter=state>\nTX\n</parameter>\n<parameter=unit>\nfahrenheit\n</parameter>\n</function>\n"
        "</tool_call>",
        calls=[("get_current_weather", {"city": "Dallas", "state": "TX", "unit": "fahrenheit"})],
        hidden=("<function=",),
    ),
    # the same test's fallback: <function=...> without <tool_call> around it, verbatim
    "vllm-step3p5-function-without-tool-call-tags": Case(
        (tool("get_current_weather", "city", "state", "unit"),),
        "<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n<parameter=state>\nTX\n</parameter>\n"
        "</function>",
        calls=[("get_current_weather", {"city": "Dallas", "state": "TX"})],
        hidden=("<function=",),
    ),
    # vllm-project/vllm tests/tool_parsers/test_qwen36_bugs.py: two complete calls in one delta
    # (speculative decoding), verbatim
    "vllm-qwen36-two-calls-in-one-delta": Case(
        (WEATHER,),
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>\n"
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nLondon\n</parameter>\n</function>\n</tool_call>",
        calls=[("get_weather", {"city": "Paris"}), ("get_weather", {"city": "London"})],
    ),
    # ---- Kimi K3 --------------------------------------------------------------------------------------
    # vllm-project/vllm tests/tool_parsers/test_kimi_k3_tool_parser.py: an answer ending in K3's
    # end-of-message marker, verbatim: the user sees "Hello"
    "vllm-kimik3-message-close-marker": Case(
        (WEATHER,),
        "Hello<|close|>message<|sep|>",
        answer="Hello",
        hidden=("<|close|>", "<|sep|>"),
    ),
    # ---- Apriel, Qwen 3.6 ---------------------------------------------------------------------------
    # Apriel 1.5's format as llama.cpp's parser for it documents (ochafik/llama.cpp
    # common/chat-parsers/apriel-1-5.cpp): a <thinking> block, then a JSON list of calls in
    # <tool_calls> (rebuilt with a weather call)
    "llamacpp-apriel15-thinking-then-tool-calls-list": Case(
        (tool("weather", "city"),),
        '<thinking>The user asks about Seoul.</thinking><tool_calls>[{"name": "weather", "arguments": {"city": "Seoul"}}]'
        "</tool_calls>",
        calls=[("weather", {"city": "Seoul"})],
        hidden=("<tool_calls>", "Seoul."),
    ),
    # lmstudio-ai/lmstudio-bug-tracker#2115: qwen/qwen3.6-35b-a3b with tool_choice "required" answers
    # with Qwen3-Coder XML in the content, non-streaming (the report's shape; its elided path filled in)
    "lmstudio2115-qwen36-required-xml-in-content": Case(
        (tool("read", "path"),),
        "<tool_call>\n<function=read>\n<parameter=path>\nsrc/index.ts\n</parameter>\n</function>\n</tool_call>",
        calls=[("read", {"path": "src/index.ts"})],
        hidden=("<function=",),
    ),
    # ---- Gemma 4 -----------------------------------------------------------------------------------
    # vllm-project/vllm tests/tool_parsers/test_gemma4_regex_and_bare_calls.py: the call closed with
    # <turn|> instead of <tool_call|>, verbatim
    "vllm-gemma4-call-closed-by-turn-end": Case(
        (tool("gdb", "args"),),
        '<|tool_call>call:gdb{args:<|"|>-batch -ex run /tmp/poc<|"|>}<turn|>',
        calls=[("gdb", {"args": "-batch -ex run /tmp/poc"})],
        hidden=("call:", "<turn|>"),
    ),
    # the same test: a bare call glued to the thought channel's end, verbatim
    "vllm-gemma4-bare-call-after-channel-end": Case(
        (tool("bash", "command"),),
        "<|channel>thought\nI need to read the entry source file to inspect the crash point.\n<channel|>"
        'call:bash{command:<|"|>cat /work/src/entry.c<|"|>}',
        calls=[("bash", {"command": "cat /work/src/entry.c"})],
        hidden=("call:", "channel"),
    ),
    # the same test: a stray colon after the opening token, the call never closed, verbatim
    "vllm-gemma4-colon-after-tool-call-token": Case(
        (tool("bash", "command"),),
        '<|tool_call>:call:bash{command:<|"|>pytest<|"|>}',
        calls=[("bash", {"command": "pytest"})],
        hidden=("call:",),
    ),
    # the same test: "<call>" left of the token by a multimodal input, verbatim
    "vllm-gemma4-fragmented-call-tag": Case(
        (WEATHER,),
        '<call>get_weather{city:<|"|>Paris<|"|>}',
        calls=[("get_weather", {"city": "Paris"})],
        hidden=("<call>",),
    ),
    # the same test: bare calls of a hyphenated and a dotted tool name, verbatim
    "vllm-gemma4-bare-call-hyphenated-name": Case(
        (tool("web-search", "query"),),
        'call:web-search{query:<|"|>gemma 4 release<|"|>}',
        calls=[("web-search", {"query": "gemma 4 release"})],
    ),
    "vllm-gemma4-bare-call-dotted-name": Case(
        (tool("fs.read_file", "path"),),
        'call:fs.read_file{path:<|"|>/work/Makefile<|"|>}',
        calls=[("fs.read_file", {"path": "/work/Makefile"})],
    ),
}


GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md
}


test_real_world_reply = reply_test(CASES, GAPS, read)


# ---- the same shapes as an answer's text: no call runs ------------------------------------------

READ = tool("read", "path")
NOT_CALLS = {
    # DSML shown, not written: in a code span, in a fence, inside a sentence after words
    "dsml-double-vertical-line-in-a-code-span": (
        WEATHER, 'V4 wraps its calls in `<‖DSML‖tool_calls>` when a server rewrites its bars.'),
    "dsml-spaced-word-in-a-fence": (
        READ, 'The leak looks like this:\n\n```\n<｜｜DSML｜｜ calls>\n<｜｜DSML｜｜ invoke name="read">\n'
              '<｜｜DSML｜｜ parameter name="path" string="true">a.md</｜｜DSML｜｜ parameter>\n</｜｜DSML｜｜ invoke>\n'
              '</｜｜DSML｜｜ calls>\n```\n\nIt is DeepSeek V4.1 markup.'),
    "dsml-stray-closer-in-a-code-span": (WEATHER, "A stray `</｜DSML｜invoke>` is dropped by the parser."),
    "dsml-empty-wrapper-in-a-fence": (WEATHER, "An empty block:\n\n```\n<｜DSML｜tool_calls></｜DSML｜tool_calls>\n```"),
    # GLM's value without its opening tag: the pairs in a sentence, or naming no node tool
    "glm-missing-arg-value-open-in-a-sentence": (
        tool("search", "query"), "GLM wrote search<arg_key>query</arg_key>cats</arg_value> in its reply."),
    "glm-missing-arg-value-open-no-node-tool": (
        tool("search", "query"), "<tool_call>searching<arg_key>query</arg_key>cats</arg_value></tool_call>"),
    # Hunyuan's forms: a separator in a sentence, a block of no node tool, shown in a fence or a span
    "hyv3-tool-sep-in-a-sentence": (tool("get_current_date"), "Hy3 puts <tool_sep> after the tool's name."),
    "hyv3-no-node-tool": (
        tool("get_current_date"), "<tool_calls><tool_call>get_current_time<tool_sep></tool_call></tool_calls>"),
    "hyv4-in-a-fence": (
        WEATHER, "HY4:\n\n```\n<tool_calls:opensource><tool_call:opensource>get_weather<arg_key:opensource>city"
                 "</arg_key:opensource><arg_value:opensource>A</arg_value:opensource></tool_call:opensource>"
                 "</tool_calls:opensource>\n```"),
    "hyv4-in-a-code-span": (WEATHER, "HY4 opens its calls with `<tool_calls:opensource>`."),
    # gpt-oss's role and channel glued, in a sentence; not the whole reply
    "gptoss-assistantcommentary-in-a-sentence": (
        WEATHER, "assistantcommentary to=functions.get_weather is what the leaked text starts with."),
    "gptoss-assistant-as-a-word": (WEATHER, "assistant: the weather in Paris is mild."),
    # Gemma 4's broken "<call>" tag: in a sentence, in a code span, another tool, text after it,
    # an element of that name
    "gemma4-call-tag-in-a-sentence": (WEATHER, 'A broken token leaves <call>get_weather{city:<|"|>Paris<|"|>} in the text.'),
    "gemma4-call-tag-in-a-code-span": (WEATHER, 'It shows `<call>get_weather{city:<|"|>Paris<|"|>}` instead.'),
    "gemma4-call-tag-no-node-tool": (WEATHER, '<call>get_time{zone:<|"|>UTC<|"|>}'),
    "gemma4-call-tag-then-text": (WEATHER, '<call>get_weather{city:<|"|>Paris<|"|>}\nis what the model wrote.'),
    "gemma4-call-element": (WEATHER, "<call>\n  <to>Alice</to>\n</call>"),
    # Kimi K3's end marker in a code span (Function Calling only: ReAct's reader drops "<|sep|>",
    # as it drops other special tokens, wherever it stands)
    "kimik3-message-close-in-a-code-span": (
        WEATHER, "K3 ends a message with `<|close|>message<|sep|>` before its end token.", ("fc",)),
}


def _not_call_params():
    """``(name, strategy)`` for each NOT_CALLS text in each strategy it is for (its third item, when
    given; both otherwise)."""
    for name, (_, _, *only) in NOT_CALLS.items():
        for strategy in ("react", "fc"):
            if not only or strategy in only[0]:
                yield pytest.param(name, strategy, id=f"{name}-{strategy}")


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize(("name", "strategy"), list(_not_call_params()))
def test_the_shape_shown_as_text_runs_nothing(name, strategy, size):
    """No call of the node runs. The text is the answer as written, markup included, except call
    markup that names no node tool (a ``<tool_call>`` or ``<tool_calls>`` block standing alone) or
    gpt-oss's recipient outside code (``to=functions.``, which ReAct asks again for): that is asked
    again, or in ReAct answered as a call of an unknown tool, with nothing shown, as before."""
    declared, text, *_ = NOT_CALLS[name]
    streamed, turn = read(strategy, Case((declared,), text), size)
    if (text.startswith("<tool_call") or "to=functions." in text) and not isinstance(turn.decision, FinalAnswer):
        # asked again, or (ReAct) the call is answered as one to an unknown tool: none of the node runs
        named = [call.name for call in turn.decision.calls] if isinstance(turn.decision, ToolCalls) else []
        assert isinstance(turn.decision, ParseFailure) or (named and declared.identity.name not in named)
        assert streamed == ""
    else:
        assert turn.decision == FinalAnswer(text)
        assert streamed.strip() == text


# ---- native tool-call streams -------------------------------------------------------------------

STREAMS = {
    # ggml-org/llama.cpp#22722: llama-server's first tool-call delta carries the id, the type, the
    # name and the arguments' opening "{" together (Gemma 4 E4B; rebuilt from the report's
    # description with a weather call)
    "llamacpp22722-first-delta-opens-arguments": (
        [
            delta(index=0, id="call_x1", type="function", function={"name": "get_weather", "arguments": "{"}),
            delta(index=0, function={"arguments": '"city":'}),
            delta(index=0, function={"arguments": '"Paris"}'}),
            chunk(finish_reason="tool_calls"),
        ],
        "",
        [("get_weather", {"city": "Paris"})],
    ),
    # openai/openai-python#2806 / PR #3246: gemini-3-flash-preview through Gemini's OpenAI-compatible
    # endpoint, streaming, leaves "index" out of its tool-call deltas, the first and the follow-ups
    # (rebuilt from the pull request's two cases)
    "openaipython2806-gemini-deltas-without-index": (
        [
            delta(id="function-call-7", type="function", function={"name": "get_weather", "arguments": '{"city":'}),
            delta(function={"arguments": ' "Paris"}'}),
            chunk(finish_reason="stop"),
        ],
        "",
        [("get_weather", {"city": "Paris"})],
    ),
    # SamSaffron/term-llm PR #314: a backend leaves "index" out and sends two calls in one delta,
    # each whole with its own id (rebuilt from the pull request's description)
    "termllm314-two-calls-in-one-delta-without-index": (
        [
            chunk(tool_calls=[
                {"id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
                {"id": "call_b", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'}},
            ]),
            chunk(finish_reason="tool_calls"),
        ],
        "",
        [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Rome"})],
    ),
    # noonghunna/club-3090#145: Qwen3 under vLLM's qwen3_coder parser streams "\n\n" as content after
    # its reasoning, then the call with its arguments in pieces that split an escaped quote (the
    # deltas' shape verbatim; the arguments' middle, elided in the report, completed to the JSON it
    # gives)
    "club3090-145-whitespace-content-then-split-escapes": (
        [
            chunk("\n\n"),
            delta(id="call_w", type="function", index=0, function={"name": "write_file", "arguments": ""}),
            delta(index=0, function={"arguments": '{"content": "print'}),
            delta(index=0, function={"arguments": '(\\"Hello, World'}),
            delta(index=0, function={"arguments": '!\\")", "path": "/tmp/h.py"'}),
            chunk(finish_reason="tool_calls", tool_calls=[{"index": 0, "function": {"arguments": "}"}}]),
        ],
        "",
        [("write_file", {"content": 'print("Hello, World!")', "path": "/tmp/h.py"})],
    ),
}


@pytest.mark.parametrize("name", list(STREAMS))
def test_real_world_tool_call_stream(name):
    check_tool_call_stream(*STREAMS[name])


# ---- GLM's pairs read in one pass ---------------------------------------------------------------


@pytest.mark.parametrize("opened", [True, False])
@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_glm_pairs_ending_in_a_stray_key_are_refused_in_one_pass(strategy, opened):
    """A ``<tool_call>`` of 5,000 GLM pairs (each value opened by ``<arg_value>`` or not, as
    GLM-4.7 leaves it out) ending in a key with no value is no call; reading it took minutes (a
    value tried over every later pair) and now takes well under a second (5 s allowed: shared CPUs)."""
    pair = "<arg_key>k</arg_key>" + ("<arg_value>" if opened else "") + "v</arg_value>"
    text = "<tool_call>search" + pair * 5000 + "<arg_key>k</arg_key></tool_call>"
    started = time.process_time()  # CPU seconds: another process on the machine does not count
    _, turn = read(strategy, Case((tool("search", "k"),), text), None)
    assert time.process_time() - started < 5
    assert not isinstance(turn.decision, ToolCalls) or all(call.name != "search" for call in turn.decision.calls)
