"""A thirteenth set of real-world cases: provider tool-call streams through Function Calling
(``check_tool_call_stream``: the text streamed and the calls assembled, none invalid), shapes the
earlier passes did not use. Sources are 2025-2026 reports against gateways, inference servers,
client libraries and Dify model plugins whose stream assembly got a provider's stream wrong:
a finish reason on every chunk or an empty one, the id only at the end of a call or after its
arguments, a call's last piece under its name without an id, calls on a usage or finish chunk,
index gaps or a constant index, calls resent whole after their pieces, and the way the SDK's
OpenAI-compatible base and the Hunyuan and Xinference plugins hand such streams on.

Each case names its source beside it; docs/real-world-cases.md lists them by id. Chunks are
rebuilt from what the source shows or describes, as a model plugin would pass them on to the
strategy.
"""

import pytest

from agent_core.turn import ToolCalls
from tests.unit.test_real_world_2026 import END, check_tool_call_stream, delta
from tests.unit.test_real_world_2026d import chunk
from tests.unit.test_real_world_2026l import STOP, calls, fn, read


def usage_chunk(*tool_calls: dict, finish_reason: str | None = None) -> dict:
    """A chunk with usage (and optionally tool calls and a finish reason), no text."""
    message = {"role": "assistant", "content": "", "tool_calls": list(tool_calls)}
    usage = {"prompt_tokens": 120, "completion_tokens": 18, "total_tokens": 138}
    return {"model": "m", "delta": {"index": 0, "message": message, "usage": usage, "finish_reason": finish_reason}}


def finishing(finish_reason: str, **call) -> dict:
    """One tool-call delta on a chunk that also carries ``finish_reason``."""
    return chunk(finish_reason=finish_reason, tool_calls=[call])


STREAMS = {
    # sigoden/aichat#1495 (PR #1522): GLM-5 through OpenRouter, the id only on the first delta and
    # the argument pieces under index 0 alone
    "aichat1495-glm5-openrouter-id-only-first": (
        [
            delta(index=0, id="call_95df1cc8dabc4b959bbbc431", type="function", function=fn("web_search", "")),
            delta(index=0, function=fn(arguments='{"query": ')),
            delta(index=0, function=fn(arguments='"dify agent"}')),
            END,
        ],
        "",
        [("web_search", {"query": "dify agent"})],
    ),
    # ThinkInAIXYZ/deepchat#355: qwen-plus on DashScope's compatible mode, continuations with
    # "id": "" and "type": "function" again (the report's deltas, the command shortened)
    "deepchat355-qwen-plus-empty-id-type-again": (
        [
            delta(index=0, id="call_477c3def1ba54fdcbaad36", type="function",
                  function=fn("BashCommand", '{"action_json')),
            delta(index=0, id="", type="function", function=fn(arguments='": {"command":')),
            delta(index=0, id="", type="function", function=fn(arguments=' {"cmd": "')),
            delta(index=0, id="", type="function", function=fn(arguments='ls"}}}')),
            END,
        ],
        "",
        [("BashCommand", {"action_json": {"command": {"cmd": "ls"}}})],
    ),
    # agentscope-ai/agentscope-java PR #1223 (#1216): the last argument piece comes with the
    # function name set and the id null (rebuilt)
    "agentscope1223-last-piece-named-without-id": (
        [
            delta(index=0, id="call_k1", type="function", function=fn("get_weather", "")),
            delta(index=0, id=None, function=fn(None, '{"city": "Paris"')),
            delta(index=0, id=None, function=fn("get_weather", "}")),
            END,
        ],
        "",
        [("get_weather", {"city": "Paris"})],
    ),
    # the same stream as the SDK's OpenAI-compatible base hands it on: it gives the named piece
    # without id an id of its own, so the strategy gets two calls in the last chunk, the second
    # holding only "}"
    "agentscope1223-through-the-sdk-base": (
        [
            calls({"id": "call_k1", "type": "function", "function": fn("get_weather", '{"city": "Paris"')},
                  {"id": "chatcmpl-tool-3f9a", "type": "function", "function": fn("get_weather", "}")}),
            STOP,
        ],
        "",
        [("get_weather", {"city": "Paris"})],
    ),
    # tambo-ai/tambo PR #2039: the call's id added only when its generation ends (rebuilt: name and
    # arguments first, the id on the last delta)
    "tambo2039-id-only-at-the-end": (
        [
            delta(index=0, type="function", function=fn("show_card", "")),
            delta(index=0, function=fn(arguments='{"title": "Q3"')),
            delta(index=0, function=fn(arguments=', "rows": 4}')),
            delta(index=0, id="call_late_01", function=fn(arguments="")),
            END,
        ],
        "",
        [("show_card", {"title": "Q3", "rows": 4})],
    ),
    # Zoo-Code-Org/Zoo-Code#695: argument bytes arrive before the call's id is known (rebuilt: the
    # name and a first piece, then the id with the rest)
    "zoocode695-arguments-before-the-id": (
        [
            delta(index=0, type="function", function=fn("ask_followup_question", '{"question": "Which')),
            delta(index=0, id="call_z695", function=fn(arguments=' file?", "follow_up": ["a.py"]}')),
            END,
        ],
        "",
        [("ask_followup_question", {"question": "Which file?", "follow_up": ["a.py"]})],
    ),
    # BerriAI/litellm PR #33223: a provider streams a valid name and whole arguments with the id
    # left out (the chunk builder dropped the call)
    "litellm33223-whole-call-without-id": (
        [
            delta(index=0, type="function", function=fn("lookup", '{"sku": "A-17"}')),
            END,
        ],
        "",
        [("lookup", {"sku": "A-17"})],
    ),
    # 1jehuang/jcode#1326 (PR #1337): behind an OpenWebUI-style proxy a chunk with finish_reason
    # "stop" follows every streamed chunk, also between a call's argument pieces
    "jcode1326-stop-after-every-chunk": (
        [
            delta(index=0, id="chatcmpl-tool-b5d83ddb7d6fd9f8", type="function", function=fn("ls", "")),
            STOP,
            delta(index=0, function=fn(arguments='{"path": ')),
            STOP,
            delta(index=0, function=fn(arguments='"/home/test"}')),
            STOP,
        ],
        "",
        [("ls", {"path": "/home/test"})],
    ),
    # adolfousier/opencrabs PR #1499: glm-5.3-flash routes with finish_reason "" on intermediate
    # chunks, interleaved with the tool-call pieces
    "opencrabs1499-empty-finish-reason-between-pieces": (
        [
            chunk(finish_reason="", tool_calls=[{"index": 0, "id": "call_o1", "type": "function",
                                                 "function": fn("read_file", "")}]),
            chunk(finish_reason="", tool_calls=[{"index": 0, "function": fn(arguments='{"path": "src/')}]),
            chunk(finish_reason=""),
            chunk(finish_reason="", tool_calls=[{"index": 0, "function": fn(arguments='main.rs"}')}]),
            END,
        ],
        "",
        [("read_file", {"path": "src/main.rs"})],
    ),
    # CangShui/workbuddy-gateway PR #3: finish_reason "" on every chunk, and the terminal tool-calls
    # chunk carrying a legacy stub {"function_call": {"name": "", "arguments": ""}}
    "workbuddy3-legacy-function-call-stub-on-the-last-chunk": (
        [
            chunk(finish_reason="", tool_calls=[{"index": 0, "id": "call_w3", "type": "function",
                                                 "function": fn("Bash", '{"command": "pwd"}')}]),
            chunk(finish_reason="tool_calls", function_call={"name": "", "arguments": ""}),
        ],
        "",
        [("Bash", {"command": "pwd"})],
    ),
    # vllm-project/vllm#44098: GLM's parsers, the remaining arguments sent at finish with id, type
    # and name again, on the chunk that carries finish_reason
    "vllm44098-glm-remaining-arguments-with-head-and-finish": (
        [
            delta(index=0, id="chatcmpl-tool-9e1", type="function", function=fn("get_weather", "")),
            delta(index=0, function=fn(arguments='{"city": "Bei')),
            finishing("tool_calls", index=0, id="chatcmpl-tool-9e1", type="function",
                      function=fn("get_weather", 'jing"}')),
        ],
        "",
        [("get_weather", {"city": "Beijing"})],
    ),
    # openai/openai-node PR #2658: Azure's asynchronous content filter sends annotation chunks
    # after the finish chunk: a blank id, no delta content (the documented example's shape)
    "openainode2658-azure-annotations-after-finish": (
        [
            delta(index=0, id="call_az1", type="function", function=fn("search", "")),
            delta(index=0, function=fn(arguments='{"q": "dify"}')),
            END,
            {"model": "m", "delta": {"index": 0, "message": {"role": "assistant", "content": ""},
                                     "finish_reason": None}},
            {"model": "m", "delta": {"index": 0, "message": {"role": "assistant", "content": ""},
                                     "finish_reason": None}},
        ],
        "",
        [("search", {"q": "dify"})],
    ),
    # oracle/langchain-oracle#253 (PR #252): GPT's parallel calls through OCI, each head followed by
    # its nameless pieces, every event's single call at position 0 (rebuilt)
    "langchainoracle253-parallel-heads-each-at-position-zero": (
        [
            delta(index=0, id="call_A", type="function", function=fn("market_research_tool", "")),
            delta(index=0, function=fn(arguments='{"idea": "solar ')),
            delta(index=0, function=fn(arguments='kiosk"}')),
            delta(index=0, id="call_B", type="function", function=fn("customer_signal_tool", "")),
            delta(index=0, function=fn(arguments='{"idea": "solar kiosk"}')),
            END,
        ],
        "",
        [("market_research_tool", {"idea": "solar kiosk"}), ("customer_signal_tool", {"idea": "solar kiosk"})],
    ),
    # LibreChat-AI/agents PR #260 (ollama/ollama#15457): Ollama streams index 0 for every call of a
    # parallel batch, each call with its own id, arguments in pieces (rebuilt)
    "librechat260-ollama-parallel-index-zero-with-ids": (
        [
            delta(index=0, id="call_m1", type="function", function=fn("mcp_search", '{"q": ')),
            delta(index=0, id="call_m1", function=fn(arguments='"alpha"}')),
            delta(index=0, id="call_m2", type="function", function=fn("mcp_fetch", '{"url": ')),
            delta(index=0, id="call_m2", function=fn(arguments='"https://example.org"}')),
            END,
        ],
        "",
        [("mcp_search", {"q": "alpha"}), ("mcp_fetch", {"url": "https://example.org"})],
    ),
    # aaif-goose/goose PR #10023: Kimi on Databricks streams tool calls without index, chunked
    # (rebuilt)
    "goose10023-databricks-kimi-no-index-chunked": (
        [
            delta(id="functions.shell:0", type="function", function=fn("shell", "")),
            delta(function=fn(arguments='{"command": "git ')),
            delta(function=fn(arguments='status"}')),
            END,
        ],
        "",
        [("shell", {"command": "git status"})],
    ),
    # microsoft/foundry-local#372: the index is always 1 when tool calls are streamed
    "foundrylocal372-index-always-one": (
        [
            delta(index=1, id="call_f1", type="function", function=fn("get_time", "")),
            delta(index=1, function=fn(arguments='{"tz": "UTC"}')),
            delta(index=1, id="call_f2", type="function", function=fn("get_date", "")),
            delta(index=1, function=fn(arguments='{"tz": "CET"}')),
            END,
        ],
        "",
        [("get_time", {"tz": "UTC"}), ("get_date", {"tz": "CET"})],
    ),
    # router-for-me/CLIProxyAPI#5058: GLM emitting several calls in one delta without index
    "cliproxy5058-several-calls-one-delta-no-index": (
        [
            calls({"id": "call_g1", "type": "function", "function": fn("mcp_list", "{}")},
                  {"id": "call_g2", "type": "function", "function": fn("mcp_read", '{"id": 7}')},
                  {"id": "call_g3", "type": "function", "function": fn("mcp_read", '{"id": 9}')}),
            END,
        ],
        "",
        [("mcp_list", {}), ("mcp_read", {"id": 7}), ("mcp_read", {"id": 9})],
    ),
    # openai/openai-python PR #3246: Gemini's OpenAI-compatible stream, the first tool-call delta
    # without index, a follow-up piece without it either
    "openaipython3246-gemini-first-delta-without-index": (
        [
            delta(id="function-call-1", type="function", function=fn("get_weather", '{"city": ')),
            delta(function=fn(arguments='"Lyon"}')),
            END,
        ],
        "",
        [("get_weather", {"city": "Lyon"})],
    ),
    # openai/openai-agents-python PR #4824: a provider leaves index out of function-call deltas,
    # the continuation known by its repeated id
    "openaiagents4824-no-index-continuation-by-id": (
        [
            delta(id="call_x1", type="function", function=fn("fetch", "")),
            delta(id="call_x1", function=fn(arguments='{"url": "https://a.b/c"}')),
            END,
        ],
        "",
        [("fetch", {"url": "https://a.b/c"})],
    ),
    # langchain-ai/langchain#40392: Gemini's parallel calls in the v3 stream, no index, each whole in
    # its own chunk (rebuilt)
    "langchain40392-gemini-parallel-no-index": (
        [
            delta(id="c_1", type="function", function=fn("get_weather", '{"city": "Oslo"}')),
            delta(id="c_2", type="function", function=fn("get_weather", '{"city": "Rome"}')),
            END,
        ],
        "",
        [("get_weather", {"city": "Oslo"}), ("get_weather", {"city": "Rome"})],
    ),
    # Vivswan/litellm-vscode-chat PR #285 (#281): a no-parameter call whose arguments stay "" and
    # the stream ends normally
    "litellmvscode285-no-parameter-call-empty-arguments": (
        [
            delta(index=0, id="call_np", type="function", function=fn("get_current_branch", "")),
            STOP,
        ],
        "",
        [("get_current_branch", {})],
    ),
    # ai-dynamo/dynamo PR #10988: a one-chunk tool call that finishes with "stop" rather than
    # "tool_calls"
    "dynamo10988-one-chunk-call-finishing-stop": (
        [
            finishing("stop", index=0, id="call_d1", type="function", function=fn("get_weather", '{"city": "Tokyo"}')),
        ],
        "",
        [("get_weather", {"city": "Tokyo"})],
    ),
    # sgl-project/sglang#31915: with coarse chunking the name comes in its own delta, then the
    # arguments whole in the next one under the same index (rebuilt)
    "sglang31915-name-then-whole-arguments": (
        [
            delta(index=0, id="call_s1", type="function", function=fn("search", None)),
            delta(index=0, function=fn(arguments='{"q": "sglang", "k": 3}')),
            END,
        ],
        "",
        [("search", {"q": "sglang", "k": 3})],
    ),
    # sgl-project/sglang PR #35153: DeepSeek-V3.1, two calls whose blocks one increment spans,
    # streamed after the fix as two heads each with its arguments (rebuilt)
    "sglang35153-two-calls-one-increment": (
        [
            calls({"index": 0, "id": "call_d0", "type": "function", "function": fn("get_weather", '{"city": "Paris"}')},
                  {"index": 1, "id": "call_d1", "type": "function", "function": fn("get_time", '{"tz": "CET"}')}),
            END,
        ],
        "",
        [("get_weather", {"city": "Paris"}), ("get_time", {"tz": "CET"})],
    ),
    # vllm-project/vllm#43267: Qwen3.6 under qwen3_coder, the first chunk for an index with id, name
    # and an argument piece already, later pieces bare
    "vllm43267-first-chunk-with-a-piece": (
        [
            delta(index=0, id="chatcmpl-tool-q36", type="function", function=fn("write_file", '{"path": "a.txt", ')),
            delta(index=0, function=fn(arguments='"content": "hello')),
            delta(index=0, function=fn(arguments=' world"}')),
            END,
        ],
        "",
        [("write_file", {"path": "a.txt", "content": "hello world"})],
    ),
    # rashidrazak/opencode-cmd-provider PR #213: GLM-5.3 sends usage on every chunk, tool-call deltas
    # included, and finish_reason only on the last (the client took usage for the end and sent the
    # call with empty input)
    "opencodecmd213-glm53-usage-on-every-chunk": (
        [
            usage_chunk({"index": 0, "id": "call_u1", "type": "function", "function": fn("echo", "")}),
            usage_chunk({"index": 0, "function": fn(arguments='{"text": ')}),
            usage_chunk({"index": 0, "function": fn(arguments='"hi"}')}),
            usage_chunk(finish_reason="tool_calls"),
        ],
        "",
        [("echo", {"text": "hi"})],
    ),
    # ranxianglei/billion-context#432: two calls, the second's delta in the same terminal chunk as
    # finish_reason (the client settled the calls before reading that chunk's own)
    "billioncontext432-second-call-in-the-terminal-chunk": (
        [
            delta(index=0, id="call_b1", type="function", function=fn("read_file", '{"path": "a.md"}')),
            finishing("tool_calls", index=1, id="call_b2", type="function", function=fn("read_file", '{"path": "b.md"}')),
        ],
        "",
        [("read_file", {"path": "a.md"}), ("read_file", {"path": "b.md"})],
    ),
    # jagreehal/ai-sdk-ollama PR #391 (#344): some models send their tool calls only in the final
    # chunk (Ollama's done: true), with usage, after the text
    "aisdkollama391-calls-only-in-the-final-chunk": (
        [
            chunk("Let me check."),
            usage_chunk({"function": fn("get_weather", {"city": "Kyiv"})}, finish_reason="stop"),
        ],
        "Let me check.",
        [("get_weather", {"city": "Kyiv"})],
    ),
    # sgl-project/sglang#23071: MiniMax-M2 under minimax_m2, one call sent as a head with empty
    # arguments and a second entry without id or name whose arguments are a start of the object
    # followed by the whole object (the report's entries, the command shortened). Failed before:
    # the glued text was no JSON and the call was not run
    "sglang23071-minimax-start-then-whole-object": (
        [
            delta(index=0, id="call_mm1", type="function", function=fn("bash", "")),
            delta(index=1, id=None, function={"name": None, "arguments": (
                '{"command": "pytest | head -100"{"command": "pytest | head -100", "description": "Run tests"}')}),
            END,
        ],
        "",
        [("bash", {"command": "pytest | head -100", "description": "Run tests"})],
    ),
}


@pytest.mark.parametrize("name", list(STREAMS))
def test_real_world_tool_call_stream(name):
    check_tool_call_stream(*STREAMS[name])


# ---- what must run nothing --------------------------------------------------------------------


def test_sglang23071_a_start_the_object_does_not_repeat_runs_nothing():
    """Read as a resend only when every character before the whole object is a start of it: a
    first piece naming another city is no start of ``{"city": "Paris"}``, so nothing is taken for
    the call and the model is told its arguments are malformed."""
    raw = [
        delta(index=0, id="call_r", type="function", function=fn("get_weather", "")),
        delta(index=0, function=fn(arguments='{"city": "Rome"{"city": "Paris"}')),
        END,
    ]
    _, turn = read(raw, ["get_weather"])
    assert isinstance(turn.decision, ToolCalls) and not turn.decision.calls
    (invalid,) = turn.decision.invalid
    assert invalid.id == "call_r" and "malformed" in invalid.error


def test_sglang23071_a_repeated_start_with_a_wrong_value_is_not_repaired_into_one():
    """Before the resend reading, the lenient repair read ``{"a": "x{"a": "x", "b": 2}`` as one
    object whose ``a`` is the text ``x{"a": "x``: the call ran with a value the model never wrote.
    Now it runs with the object the server sent whole."""
    raw = [delta(index=0, id="call_v", type="function", function=fn("t", '{"a": "x{"a": "x", "b": 2}')), END]
    _, turn = read(raw, ["t"])
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [("t", {"a": "x", "b": 2})]


def test_hunyuan_plugin_keeps_only_a_first_piece_and_the_call_is_not_run():
    """Dify's Hunyuan plugin closes a streamed call as soon as it has a name and any arguments:
    when Hunyuan streams the arguments in pieces, the call it hands on at ``tool_calls`` holds the
    first piece only (the rest goes to a call without name it never sends). The strategy runs
    nothing cut short: the model is told the arguments are malformed."""
    raw = [
        chunk(""),
        chunk(finish_reason="tool_calls", tool_calls=[{"id": "call_hy1", "type": "function",
                                                       "function": fn("get_weather", '{"city": "Pa')}]),
    ]
    _, turn = read(raw, ["get_weather"])
    assert isinstance(turn.decision, ToolCalls) and not turn.decision.calls
    (invalid,) = turn.decision.invalid
    assert invalid.id == "call_hy1" and invalid.raw_arguments == '{"city": "Pa'
