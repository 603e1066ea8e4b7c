"""A thirtieth set of real-world cases, the fourth of stream shapes: how tool calls and reasoning
arrive chunk by chunk from OpenAI-compatible gateways and servers users put behind Dify's
``openai_api_compatible`` plugin (LiteLLM, One API / New API, OpenRouter, Ollama's ``/v1``,
LocalAI, LMDeploy, MLX servers, Gemini's and Bedrock's OpenAI layers, vLLM, SGLang).

Unlike the earlier passes, each stream here starts as the raw SSE text (``data:`` lines) and is
turned into the ``LLMResultChunk`` sequence the strategy receives the way the model plugin does it:

- the SDK's OpenAI-compatible base, ``dify_plugin/interfaces/model/openai_compatible/llm.py``
  (``OAICompatLargeLanguageModel._handle_generate_stream_response``) is run itself, from the
  installed SDK, on a stand-in HTTP response: it drops ``index``, keys calls by id (an id-less
  delta goes to the last call, a named delta without id gets a fresh id), wraps reasoning in
  ``<think>`` as text, reads usage from a chunk of empty choices and yields the merged calls in one
  chunk after the text, then a final chunk with the finish reason;
- the official plugin, ``models/openai_api_compatible/models/llm/llm.py`` in
  langgenius/dify-official-plugins, overrides two steps, rewritten here in the test's own code
  (``PluginModel``): its reasoning wrapper prefers ``reasoning`` over ``reasoning_content`` and closes
  the ``<think>`` block on any delta that brings neither reasoning nor text (a tool-call delta
  included); and with thinking "not supported" (the credential's default) it drops the leading
  ``<think>…</think>`` block of the stream's text before the strategy sees it.

Each case names its source beside it; docs/real-world-cases.md lists them by id. Where the source
quotes raw lines they are used (values shortened); otherwise the stream is rebuilt from what the
source describes. Native tool-call streams are read by Function Calling (ReAct declares no tools
to the provider); answer streams and calls written as text by both strategies.
"""

import json
from collections.abc import Iterator

import pytest
from dify_plugin.entities.model.llm import LLMResultChunk, LLMUsage
from dify_plugin.entities.model.message import UserPromptMessage
from dify_plugin.interfaces.model.openai_compatible.llm import OAICompatLargeLanguageModel

from agent_core.function_calling.turn import read_function_calling_turn
from agent_core.model_call import normalize_chunk
from agent_core.react.turn import read_react_turn
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ToolCalls
from tests.unit.helpers import drain
from tests.unit.test_real_world_2026 import tool

# ---- the plugin's conversion ----------------------------------------------------------------------


class _Response:
    """What ``requests.Response.iter_lines`` yields for an SSE body split on the plugin's delimiter."""

    def __init__(self, body: str):
        self.body = body

    def iter_lines(self, decode_unicode: bool = True, delimiter: str = "\n\n") -> Iterator[str]:
        yield from self.body.split(delimiter)


class SdkBase(OAICompatLargeLanguageModel):
    """The SDK's OpenAI-compatible base as installed; only usage pricing and token counting, which
    need a model schema and a tokenizer, are stubbed (they change no text and no call)."""

    def _calc_response_usage(self, *args, **kwargs) -> LLMUsage:
        return LLMUsage.empty_usage()

    def _num_tokens_from_string(self, *args, **kwargs) -> int:
        return 0


class PluginModel(SdkBase):
    """The official ``openai_api_compatible`` plugin's reasoning wrapper, as its llm.py behaves: the
    ``reasoning`` field first, then ``reasoning_content``; the first piece opens ``<think>\\n``; a
    delta with text closes the block before the text; a delta with neither reasoning nor text (a
    tool-call delta, a role-only delta) closes it."""

    def _wrap_thinking_by_reasoning_content(self, delta: dict, is_reasoning: bool) -> tuple[str, bool]:
        piece = delta.get("reasoning") or delta.get("reasoning_content") or ""
        text = delta.get("content") or ""
        out = ""
        if len(piece) > 0:
            out = f"{piece}" if is_reasoning else f"<think>\n{piece}"
            is_reasoning = True
        if is_reasoning:
            if not piece and not text:
                return out + "\n</think>", False
            if text:
                return out + "\n</think>" + text, False
            return out, True
        return out + text, is_reasoning


def _drop_leading_think(chunks: Iterator[LLMResultChunk]) -> Iterator[LLMResultChunk]:
    """The plugin's filter when thinking is "not supported": text held from a chunk that opens
    ``<think>`` until ``</think>``, then the rest (leading whitespace dropped) goes on in the chunk
    that closed it; chunks without text pass as they are."""
    held, inside = "", False
    for chunk in chunks:
        text = chunk.delta.message.content if chunk.delta and chunk.delta.message else None
        if not text:
            yield chunk
            continue
        held += text
        if not inside and held.startswith("<think>"):
            inside = True
        if inside and "</think>" in held:
            rest = held[held.find("</think>") + len("</think>"):].lstrip()
            held, inside = "", False
            if rest:
                chunk.delta.message.content = rest
                yield chunk
            continue
        if not inside:
            held = ""
            yield chunk


def plugin_chunks(body: str, *, base: bool = False, thinking: str = "supported",
                  calling: str = "tool_call") -> list[dict]:
    """``body`` (SSE text) as the strategy receives it: the ``LLMResultChunk`` dicts the SDK base
    (``base=True``) or the official plugin yields. ``thinking``: the plugin's
    ``agent_thought_support`` (``"not_supported"`` drops the leading think block); ``calling``:
    the credential ``function_calling_type`` (``"tool_call"`` or ``"function_call"``)."""
    model = (SdkBase if base else PluginModel)([])
    credentials = {"function_calling_type": calling}
    chunks = model._handle_generate_stream_response("m", credentials, _Response(body), [UserPromptMessage(content="q")])
    if not base and thinking == "not_supported":
        chunks = _drop_leading_think(chunks)
    return [chunk.model_dump(mode="json") for chunk in chunks]


def sse(*events: dict | str) -> str:
    """``data:`` lines of ``events`` (a dict is JSON-encoded), each ended by a blank line, and
    ``data: [DONE]``."""
    lines = [e if isinstance(e, str) else "data: " + json.dumps(e) for e in events]
    return "".join(line + "\n\n" for line in [*lines, "data: [DONE]"])


def ev(finish: str | None = None, usage: dict | None = None, **delta) -> dict:
    """One ``chat.completion.chunk`` with one choice of ``delta``."""
    event = {"id": "chatcmpl-1", "object": "chat.completion.chunk",
             "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    if usage is not None:
        event["usage"] = usage
    return event


def tc(**call) -> dict:
    """One tool-call delta; keys left out stay out (``None`` is sent as JSON null)."""
    return call


def fn(name: str | None = ..., arguments: str | None = ...) -> dict:
    return {key: value for key, value in (("name", name), ("arguments", arguments)) if value is not ...}


USAGE_ONLY = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [],
              "usage": {"prompt_tokens": 50, "completion_tokens": 9, "total_tokens": 59}}


# ---- reading ------------------------------------------------------------------------------------------


def read_fc(raw: list[dict], tools: list[str]):
    return drain(read_function_calling_turn(iter([normalize_chunk(r) for r in raw]), tools))


def read_react(raw: list[dict], tools: list[str]):
    registry = ToolRegistry([tool(name, "q") for name in tools])
    return drain(read_react_turn(iter([normalize_chunk(r) for r in raw]), registry, 1))


def call_triples(turn) -> list[tuple[str, str, dict]]:
    assert isinstance(turn.decision, ToolCalls), turn.decision
    assert not turn.decision.invalid, turn.decision.invalid
    return [(c.id, c.name, c.arguments) for c in turn.decision.calls]


# ---- tool-call streams, Function Calling ------------------------------------------------------------------
# name: (SSE body, conversion options, tools, shown text, [(id or None for "any id", name, arguments)])

CALL_STREAMS = {
    # BerriAI/litellm#11407: Claude on Bedrock through LiteLLM, the call under index 1, the id only on
    # the head, `"arguments": ""` with `"type": "function"` on the next delta, `content: ""` and the
    # role on every chunk (the reported lines, shortened)
    "litellm11407-bedrock-index-one-empty-arguments-then-pieces": (
        sse(
            ev(content="", role="assistant", tool_calls=[tc(id="tooluse_BawIVFHuQ2uaPLDBdWlblA", index=1, type="function",
                                                         function=fn("jira_get_worklog", ""))]),
            ev(content="", role="assistant", tool_calls=[tc(index=1, type="function", function=fn(arguments=""))]),
            ev(content="", role="assistant", tool_calls=[tc(index=1, type="function", function=fn(arguments='{"issue_key'))]),
            ev(content="", role="assistant", tool_calls=[tc(index=1, type="function", function=fn(arguments='": "PROJ-7"}'))]),
            ev("tool_calls", content="", role="assistant"),
        ),
        {}, ["jira_get_worklog"], "",
        [("tooluse_BawIVFHuQ2uaPLDBdWlblA", "jira_get_worklog", {"issue_key": "PROJ-7"})],
    ),
    # vllm-project/vllm#18412: the reference stream as a client prints it, id, name and type null on
    # every continuation (servers that serialize the nulls send them as JSON null)
    "vllm18412-null-id-name-type-on-continuations": (
        sse(
            ev(role="assistant", content=None, tool_calls=[tc(index=0, id="call_Dcuer5y2RowXl7Ig47gCS9Ft", type="function",
                                                           function=fn("get_current_weather", ""))]),
            ev(tool_calls=[tc(index=0, id=None, type=None, function=fn(None, '{"'))]),
            ev(tool_calls=[tc(index=0, id=None, type=None, function=fn(None, 'location'))]),
            ev(tool_calls=[tc(index=0, id=None, type=None, function=fn(None, '": "Boston, MA"}'))]),
            ev("tool_calls"),
        ),
        {}, ["get_current_weather"], "",
        [("call_Dcuer5y2RowXl7Ig47gCS9Ft", "get_current_weather", {"location": "Boston, MA"})],
    ),
    # continuedev/continue#13225: gpt-oss:20b on Ollama, the call's delta with an index and no id,
    # the whole arguments in it, after reasoning under `reasoning` (rebuilt). The SDK base gives the
    # named delta a fresh id
    "continue13225-ollama-gpt-oss-index-without-id-after-reasoning": (
        sse(
            ev(role="assistant", content="", reasoning="Need the schema file."),
            ev(content="", tool_calls=[tc(index=0, function=fn("read_file", '{"filepath":"convex/schema.ts"}'))]),
            ev("tool_calls", content=""),
        ),
        {}, ["read_file"], "",
        [(None, "read_file", {"filepath": "convex/schema.ts"})],
    ),
    # the same with thinking "not supported" in the plugin: its filter drops the think block
    "continue13225-through-the-thinking-filter": (
        sse(
            ev(role="assistant", content="", reasoning="Need the schema file."),
            ev(content="", tool_calls=[tc(index=0, function=fn("read_file", '{"filepath":"convex/schema.ts"}'))]),
            ev("tool_calls", content=""),
        ),
        {"thinking": "not_supported"}, ["read_file"], "",
        [(None, "read_file", {"filepath": "convex/schema.ts"})],
    ),
    # huggingface/huggingface.js PR #1512: Ollama (llama3.2:3b) sends the call whole in its first
    # chunk, arguments included, for a tool without parameters
    "hfjs1512-ollama-first-chunk-with-the-arguments": (
        sse(
            ev(role="assistant", content="", tool_calls=[tc(index=0, id="call_uiutvfya", type="function",
                                                            function=fn("task_complete", "{}"))]),
            ev("tool_calls", content=""),
        ),
        {}, ["task_complete"], "",
        [("call_uiutvfya", "task_complete", {})],
    ),
    # ollama/ollama#11633 (#13581): each call fully assembled in one chunk; two calls, one chunk each
    # (rebuilt)
    "ollama11633-two-whole-calls-one-chunk-each": (
        sse(
            ev(role="assistant", content="", tool_calls=[tc(index=0, id="call_a1", type="function",
                                                            function=fn("get_current_time", "{}"))]),
            ev(role="assistant", content="", tool_calls=[tc(index=1, id="call_b2", type="function",
                                                            function=fn("get_weather", '{"city":"Oslo"}'))]),
            ev("tool_calls", content=""),
        ),
        {}, ["get_current_time", "get_weather"], "",
        [("call_a1", "get_current_time", {}), ("call_b2", "get_weather", {"city": "Oslo"})],
    ),
    # ollama/ollama PR #7963: gpt-4o ends a streamed call with finish_reason "stop" (the reported
    # last chunk: every delta field null)
    "ollama7963-gpt4o-call-finished-stop": (
        sse(
            ev(role="assistant", content=None, tool_calls=[tc(index=0, id="call_g4", type="function",
                                                              function=fn("get_weather", ""))]),
            ev(tool_calls=[tc(index=0, function=fn(arguments='{"city":"Lima"}'))]),
            ev("stop", content=None, function_call=None, refusal=None, role=None, tool_calls=None),
        ),
        {}, ["get_weather"], "",
        [("call_g4", "get_weather", {"city": "Lima"})],
    ),
    # BerriAI/litellm#12862: o1-pro and Cohere through LiteLLM, a whole call and `stop` (rebuilt)
    "litellm12862-cohere-whole-call-finish-stop": (
        sse(
            ev(role="assistant", tool_calls=[tc(index=0, id="call_co1", type="function",
                                                function=fn("get_weather", '{"location": "Lima, Peru"}'))]),
            ev("stop"),
            USAGE_ONLY,
        ),
        {}, ["get_weather"], "",
        [("call_co1", "get_weather", {"location": "Lima, Peru"})],
    ),
    # su-kaka/gcli2api PR #407: Gemini's functionCall in the first chunk without finish reason, then
    # an empty-text chunk with `stop` (rebuilt as the proxy sent it before the fix)
    "gcli2api407-gemini-call-then-empty-stop-chunk": (
        sse(
            ev(role="assistant", tool_calls=[tc(index=0, id="call_gm1", type="function",
                                                function=fn("list_dir", '{"path": "src"}'))]),
            ev("stop", content=""),
        ),
        {}, ["list_dir"], "",
        [("call_gm1", "list_dir", {"path": "src"})],
    ),
    # graze-social/cocore PR #139: Qwen2.5-3B on an MLX server (Hermes parser): a role-only chunk and
    # empty-text chunks, the call, then `stop` (before the fix)
    "cocore139-mlx-role-only-and-empty-chunks-then-stop": (
        sse(
            ev(role="assistant"),
            ev(content=""),
            ev(content=""),
            ev(tool_calls=[tc(index=0, id="call_mx1", type="function", function=fn("bash", '{"cmd": "ls"}'))]),
            ev("stop", content=""),
        ),
        {}, ["bash"], "",
        [("call_mx1", "bash", {"cmd": "ls"})],
    ),
    # llm-d/llm-d-inference-sim PR #545: `tool_calls` carried by the last argument chunk, no finish
    # chunk of its own
    "llmdsim545-finish-on-the-last-argument-chunk": (
        sse(
            ev(role="assistant", tool_calls=[tc(index=0, id="chatcmpl-tool-s1", type="function",
                                                function=fn("get_weather", '{"city": '))]),
            ev("tool_calls", tool_calls=[tc(index=0, function=fn(arguments='"Tel Aviv"}'))]),
        ),
        {}, ["get_weather"], "",
        [("chatcmpl-tool-s1", "get_weather", {"city": "Tel Aviv"})],
    ),
    # Sophomoresty/gemini-web2api PR #96: before the fix, one chunk with the whole call and no index
    "geminiweb2api96-whole-call-without-index": (
        sse(
            ev(role="assistant", content="", tool_calls=[tc(id="call_gw1", type="function",
                                                            function=fn("glob", '{"pattern": "**/*.py"}'))]),
            ev("tool_calls"),
        ),
        {}, ["glob"], "",
        [("call_gw1", "glob", {"pattern": "**/*.py"})],
    ),
    # QuantumNous/new-api PR #672: Gemini through New API before it added the index: two parallel
    # calls in separate chunks, no index, each with its own id (rebuilt)
    "newapi672-gemini-parallel-calls-without-index": (
        sse(
            ev(role="assistant", tool_calls=[tc(id="call_n1", type="function", function=fn("get_weather", '{"city":"Rome"}'))]),
            ev(tool_calls=[tc(id="call_n2", type="function", function=fn("get_weather", '{"city":"Milan"}'))]),
            ev("tool_calls"),
        ),
        {}, ["get_weather"], "",
        [("call_n1", "get_weather", {"city": "Rome"}), ("call_n2", "get_weather", {"city": "Milan"})],
    ),
    # sigoden/aichat#580: LocalAI (llama3-8b): `finish_reason: ""` and usage on every chunk, the
    # completion's id repeated as the call id on every delta, `content: null` then `""` (the logged
    # chunks, shortened)
    "aichat580-localai-same-id-every-delta-empty-finish": (
        sse(
            ev("", usage={"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}, role="assistant", content=None,
               tool_calls=[tc(index=0, id="f5f63d03-9bd7", type="function", function=fn("get_current_weather", ""))]),
            ev("", usage={"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}, role="assistant", content="",
               tool_calls=[tc(index=0, id="f5f63d03-9bd7", type="function", function=fn(arguments='{"loc'))]),
            ev("", usage={"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}, role="assistant", content="",
               tool_calls=[tc(index=0, id="f5f63d03-9bd7", type="function", function=fn(arguments='ation": "Paris"}'))]),
            ev("tool_calls", usage={"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}),
        ),
        {}, ["get_current_weather"], "",
        [("f5f63d03-9bd7", "get_current_weather", {"location": "Paris"})],
    ),
    # langchain4j/langchain4j#29: gpt-3.5-turbo-16k-0613's legacy `function_call` deltas (the quoted
    # lines: name and "" first, then the arguments in pieces), read by the SDK base with the
    # credential "function_call", which gives every delta the id "tool_call_id"
    "langchain4j29-legacy-function-call-deltas": (
        sse(
            ev(role="assistant", content=None, function_call={"name": "getWeather", "arguments": ""}),
            ev(function_call={"arguments": "{\n"}),
            ev(function_call={"arguments": " "}),
            ev(function_call={"arguments": ' "'}),
            ev(function_call={"arguments": 'arg'}),
            ev(function_call={"arguments": '": "Paris"\n}'}),
            ev("function_call"),
        ),
        {"calling": "function_call"}, ["getWeather"], "",
        [("tool_call_id", "getWeather", {"arg": "Paris"})],
    ),
    # run-llama/llama_index#18313: LiteLLM's legacy function-call stream, a function_call delta with
    # `name: null` after the head (rebuilt)
    "llamaindex18313-litellm-legacy-null-name-continuation": (
        sse(
            ev(role="assistant", function_call={"name": "search", "arguments": ""}),
            ev(function_call={"name": None, "arguments": '{"q": '}),
            ev(function_call={"name": None, "arguments": '"dify"}'}),
            ev("function_call"),
        ),
        {"calling": "function_call"}, ["search"], "",
        [("tool_call_id", "search", {"q": "dify"})],
    ),
    # decolua/9router PR #3601: deepseek-v4-flash on ollama.com's /v1 streams reasoning under
    # `reasoning` on many chunks, then the call (rebuilt); the plugin closes the block on the
    # call's delta
    "9router3601-ollama-cloud-reasoning-field-then-call": (
        sse(
            ev(role="assistant", content="", reasoning="The user"),
            ev(content="", reasoning=" wants the time"),
            ev(content="", reasoning=" in Tokyo."),
            ev(content="", tool_calls=[tc(index=0, id="call_oc1", type="function",
                                          function=fn("get_time", '{"tz": "Asia/Tokyo"}'))]),
            ev("tool_calls", content=""),
        ),
        {}, ["get_time"], "",
        [("call_oc1", "get_time", {"tz": "Asia/Tokyo"})],
    ),
    # the same through the SDK base, whose wrapper leaves the block open until the stream ends and
    # closes it after the text, before the merged call
    "9router3601-through-the-sdk-base": (
        sse(
            ev(role="assistant", content="", reasoning="The user"),
            ev(content="", reasoning=" wants the time in Tokyo."),
            ev(content="", tool_calls=[tc(index=0, id="call_oc1", type="function",
                                          function=fn("get_time", '{"tz": "Asia/Tokyo"}'))]),
            ev("tool_calls", content=""),
        ),
        {"base": True}, ["get_time"], "",
        [("call_oc1", "get_time", {"tz": "Asia/Tokyo"})],
    ),
    # api7/aisix PR #507: OpenRouter, `reasoning_content: ""` beside the `reasoning` text, then the call
    # with `reasoning_details: []` (rebuilt)
    "aisix507-openrouter-empty-reasoning-content-beside-reasoning": (
        sse(
            ev(role="assistant", content="", reasoning_content="", reasoning="Look it up first."),
            ev(content="", reasoning_content="", reasoning="", reasoning_details=[],
               tool_calls=[tc(index=0, id="call_or1", type="function", function=fn("search", '{"q": "tides"}'))]),
            ev("tool_calls", content=""),
            USAGE_ONLY,
        ),
        {}, ["search"], "",
        [("call_or1", "search", {"q": "tides"})],
    ),
    # InternLM/lmdeploy#3412: LMDeploy gives every argument delta an id of its own with name None
    # (the reported deltas: 'ahrenheit', then '' under fresh ids); through the SDK base each of
    # them becomes a nameless call of its own
    "lmdeploy3412-fresh-id-on-every-argument-delta": (
        sse(
            ev(role="assistant", content=None, tool_calls=[tc(index=0, id="chatcmpl-tool-a0", type="function",
                                                              function=fn("get_current_weather", ""))]),
            ev(content=None, tool_calls=[tc(index=0, id="chatcmpl-tool-b1", type="function",
                                            function=fn(None, '{"location": "Boston", "unit": "f'))]),
            ev(content=None, tool_calls=[tc(index=0, id="chatcmpl-tool-8nW5XP", type="function",
                                            function=fn(None, 'ahrenheit'))]),
            ev(content=None, tool_calls=[tc(index=0, id="chatcmpl-tool-nSqe5Y", type="function", function=fn(None, ''))]),
            ev(content=None, tool_calls=[tc(index=0, id="chatcmpl-tool-iCZ7iE", type="function", function=fn(None, '"}'))]),
            ev("tool_calls"),
        ),
        {}, ["get_current_weather"], "",
        [("chatcmpl-tool-a0", "get_current_weather", {"location": "Boston", "unit": "fahrenheit"})],
    ),
    # cubist38/mlx-openai-server PR #216: before the fix, a streamed call's id changed between deltas
    # while the index stayed; the name only on the head (rebuilt)
    "mlxopenai216-id-changes-after-the-head": (
        sse(
            ev(role="assistant", tool_calls=[tc(index=0, id="call_m1", type="function", function=fn("write_file", ""))]),
            ev(tool_calls=[tc(index=0, id="call_m2", type="function", function=fn(arguments='{"path": "a.txt", '))]),
            ev(tool_calls=[tc(index=0, id="call_m3", type="function", function=fn(arguments='"text": "hi"}'))]),
            ev("tool_calls"),
        ),
        {}, ["write_file"], "",
        [("call_m1", "write_file", {"path": "a.txt", "text": "hi"})],
    ),
    # envoyproxy/ai-gateway PR #1222: Bedrock's reasoning delta passed on as an object
    # (`reasoning_content: {"text": ...}`, the quoted lines); the plugin writes the object into its
    # think block as text, then the call
    "envoy1222-bedrock-reasoning-content-object-then-call": (
        sse(
            ev(content="", role="assistant"),
            ev(role="assistant", reasoning_content={"text": "I nee"}),
            ev(role="assistant", reasoning_content={"text": "d to calculate 27"}),
            ev(role="assistant", tool_calls=[tc(index=0, id="tooluse_c1", type="function",
                                                function=fn("calculator", '{"expr": "27 * 453"}'))]),
            ev("tool_calls"),
        ),
        {}, ["calculator"], "",
        [("tooluse_c1", "calculator", {"expr": "27 * 453"})],
    ),
    # sgl-project/sglang PR #19895: `reasoning_content: null` on every delta, the call's last piece
    # in the chunk before the finish (rebuilt)
    "sglang19895-null-reasoning-on-every-delta": (
        sse(
            ev(role="assistant", content=None, reasoning_content=None,
               tool_calls=[tc(index=0, id="call_sg1", type="function", function=fn("add", '{"a": 3, '))]),
            ev(role="assistant", content=None, reasoning_content=None, tool_calls=[tc(index=0, function=fn(arguments='"b": 4}'))]),
            ev("tool_calls", role="assistant", content=None, reasoning_content=None),
        ),
        {}, ["add"], "",
        [("call_sg1", "add", {"a": 3, "b": 4})],
    ),
    # kokofixcomputers/1min-relay PR #85: a relay that buffers the completion and sends the text
    # before the calls and the calls whole with `tool_calls` (rebuilt)
    "1minrelay85-text-then-buffered-calls": (
        sse(
            ev(role="assistant", content="Let me check both."),
            ev(tool_calls=[tc(index=0, id="call_r1", type="function", function=fn("get_weather", '{"city": "Bern"}')),
                           tc(index=1, id="call_r2", type="function", function=fn("get_weather", '{"city": "Graz"}'))]),
            ev("tool_calls"),
        ),
        {}, ["get_weather"], "Let me check both.",
        [("call_r1", "get_weather", {"city": "Bern"}), ("call_r2", "get_weather", {"city": "Graz"})],
    ),
}


@pytest.mark.parametrize("name", list(CALL_STREAMS))
def test_real_world_call_stream_through_the_plugin(name):
    body, options, tools, shown, expected = CALL_STREAMS[name]
    streamed, turn = read_fc(plugin_chunks(body, **options), tools)
    assert streamed.strip() == shown
    got = call_triples(turn)
    assert [(n, a) for _, n, a in got] == [(n, a) for _, n, a in expected]
    for (got_id, _, _), (want_id, _, _) in zip(got, expected, strict=True):
        assert got_id == want_id if want_id is not None else got_id.startswith("chatcmpl-tool-")


def test_lmdeploy3412_the_call_goes_back_under_the_heads_id_and_nothing_else_is_told():
    """The fragments under fresh ids, the empty one included, are the head's: one call runs under
    the head's id, and no other entry is answered as a call without a name."""
    body, _, tools, _, _ = CALL_STREAMS["lmdeploy3412-fresh-id-on-every-argument-delta"]
    _, turn = read_fc(plugin_chunks(body), tools)
    assert [c.id for c in turn.decision.calls] == ["chatcmpl-tool-a0"] and not turn.decision.invalid


def test_lmdeploy3412_an_id_only_entry_before_a_new_named_call_stays_out_of_it():
    """An entry with nothing but an id after a call whose arguments are whole joins nothing; the
    next named call under its own id is a call of its own."""
    body = sse(
        ev(tool_calls=[tc(index=0, id="t-a", type="function", function=fn("get_time", '{"tz": "UTC"}'))]),
        ev(tool_calls=[tc(index=0, id="t-b", type="function", function=fn(None, ""))]),
        ev(tool_calls=[tc(index=1, id="t-c", type="function", function=fn("get_time", '{"tz": "CET"}'))]),
        ev("tool_calls"),
    )
    _, turn = read_fc(plugin_chunks(body), ["get_time"])
    assert [(c.id, c.arguments) for c in turn.decision.calls] == [("t-a", {"tz": "UTC"}), ("t-c", {"tz": "CET"})]


def test_lmdeploy3412_a_piece_that_names_another_tool_is_not_joined():
    """A fresh id that brings another tool's name is a new call even while the last call is open:
    the open call is refused as cut, the new one runs."""
    body = sse(
        ev(tool_calls=[tc(index=0, id="t-a", type="function", function=fn("search", '{"q": "ti'))]),
        ev(tool_calls=[tc(index=0, id="t-b", type="function", function=fn(None, ""))]),
        ev(tool_calls=[tc(index=0, id="t-c", type="function", function=fn("get_time", '{"tz": "CET"}'))]),
        ev("tool_calls"),
    )
    _, turn = read_fc(plugin_chunks(body), ["search", "get_time"])
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [("get_time", {"tz": "CET"})]
    assert [i.id for i in turn.decision.invalid] == ["t-a"]


def test_reasoning_through_the_plugin_is_kept_for_the_round_trip_not_shown():
    """continuedev/continue#13225's reasoning under ``reasoning``: through the plugin it is a think
    block before the call. It is not streamed as text, it is the turn's reasoning, and the content
    that goes back to the model keeps it as the plugin sent it."""
    body, options, tools, _, _ = CALL_STREAMS["continue13225-ollama-gpt-oss-index-without-id-after-reasoning"]
    streamed, turn = read_fc(plugin_chunks(body, **options), tools)
    assert "schema file" not in streamed
    assert "Need the schema file." in turn.reasoning
    assert "<think>\nNeed the schema file.\n</think>" in turn.content


def test_envoy1222_the_sdk_base_fails_on_a_reasoning_object():
    """The SDK base (not the official plugin) adds the reasoning object to a string and raises:
    the model call fails before the strategy reads a chunk (the strategy then reports a model
    error, as for any failed invoke)."""
    body, _, _, _, _ = CALL_STREAMS["envoy1222-bedrock-reasoning-content-object-then-call"]
    with pytest.raises(TypeError):
        plugin_chunks(body, base=True)


# ---- answer streams, both strategies -------------------------------------------------------------------
# name: (SSE body, conversion options, the answer, a piece of reasoning that must not be shown or "")

ANSWER_STREAMS = {
    # huggingface/responses.js PR #19: OpenRouter's deepseek-r1 delta, reasoning under `reasoning`
    # with `reasoning_details: []` and `content: ""` (the quoted delta), then the answer
    "responsesjs19-openrouter-reasoning-details-then-answer": (
        sse(
            ev(role="assistant", content="", reasoning=", so I need", reasoning_details=[]),
            ev(content="", reasoning=" a short reply.", reasoning_details=[]),
            ev(content="Paris is the capital of France.", reasoning_details=[]),
            ev("stop", content=""),
        ),
        {}, "Paris is the capital of France.", "so I need",
    ),
    "responsesjs19-through-the-thinking-filter": (
        sse(
            ev(role="assistant", content="", reasoning=", so I need", reasoning_details=[]),
            ev(content="", reasoning=" a short reply.", reasoning_details=[]),
            ev(content="Paris is the capital of France.", reasoning_details=[]),
            ev("stop", content=""),
        ),
        {"thinking": "not_supported"}, "Paris is the capital of France.", "so I need",
    ),
    # azrtydxb/Fastllm-proxy#23: vLLM serving qwen3.6 emits reasoning as `delta.reasoning` (the
    # quoted deltas), read by the SDK base
    "fastllm23-vllm-reasoning-field-through-the-sdk-base": (
        sse(
            ev(role="assistant", reasoning="Here"),
            ev(reasoning="'s a thinking process"),
            ev(content="Done: 3 files changed."),
            ev("stop"),
        ),
        {"base": True}, "Done: 3 files changed.", "thinking process",
    ),
    # sgl-project/sglang PR #19895: `reasoning_content: null` beside every text piece, the last piece
    # before the finish chunk (the quoted lines: "3", ",", " ", "4")
    "sglang19895-null-reasoning-content-beside-text": (
        sse(
            ev(role="assistant", content="3", reasoning_content=None),
            ev(role="assistant", content=",", reasoning_content=None),
            ev(role="assistant", content=" ", reasoning_content=None),
            ev(role="assistant", content="4", reasoning_content=None),
            ev("stop", role="assistant", content="", reasoning_content=None),
        ),
        {}, "3, 4", "",
    ),
    # api7/aisix PR #507: an empty `reasoning_content` beside OpenRouter's `reasoning`, empty-string
    # reasoning deltas after it (which the SDK base skips), then the answer and usage-only chunk
    "aisix507-empty-reasoning-deltas-then-answer": (
        sse(
            ev(role="assistant", content="", reasoning_content="", reasoning="Short question."),
            ev(content="", reasoning_content="", reasoning=""),
            ev(content="Yes."),
            ev("stop"),
            USAGE_ONLY,
        ),
        {"base": True}, "Yes.", "Short question.",
    ),
    # envoyproxy/ai-gateway PR #1222: Bedrock's reasoning objects through the official plugin, then
    # the answer
    "envoy1222-reasoning-objects-then-answer": (
        sse(
            ev(content="", role="assistant"),
            ev(role="assistant", reasoning_content={"text": "I need to calculate 27"}),
            ev(role="assistant", reasoning_content={"text": " * 453."}),
            ev(role="assistant", content="27 * 453 = 12231."),
            ev("stop"),
        ),
        {}, "27 * 453 = 12231.", "calculate 27",
    ),
    # aichat580's LocalAI with an answer: `finish_reason: ""` and usage on every chunk, then `stop`
    "aichat580-localai-empty-finish-reason-answer": (
        sse(
            ev("", usage={"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}, role="assistant", content="It is "),
            ev("", usage={"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}, content="sunny."),
            ev("stop", usage={"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12}),
        ),
        {}, "It is sunny.", "",
    ),
}


@pytest.mark.parametrize("strategy", ["react", "fc"])
@pytest.mark.parametrize("name", list(ANSWER_STREAMS))
def test_real_world_answer_stream_through_the_plugin(name, strategy):
    body, options, answer, hidden = ANSWER_STREAMS[name]
    raw = plugin_chunks(body, **options)
    streamed, turn = (read_react if strategy == "react" else read_fc)(raw, ["search"])
    assert turn.decision == FinalAnswer(answer)
    assert streamed.strip() == answer
    if hidden:
        assert hidden not in streamed
        if options.get("thinking") != "not_supported":
            assert hidden in turn.reasoning


# ---- calls written as text, both strategies -------------------------------------------------------------


def test_ollama5915_hermes_call_in_content_is_run_by_both_strategies():
    """ollama/ollama PR #5915: before Ollama streamed tool calls, llama3-groq-tool-use's call came
    as text pieces (``<tool_call>``, ``\\n``, ``{"``, ``id``, ...; the quoted lines) with ``stop``.
    Through the plugin it is text; both strategies read the Hermes markup as the one call."""
    pieces = ["<tool_call>", "\n", '{"', "id", '":', " 0", ', "name": "get_weather", ', '"arguments": {"city": ',
              '"Paris"}}', "\n", "</tool_call>"]
    body = sse(*[ev(role="assistant", content=p) for p in pieces], ev("stop"))
    raw = plugin_chunks(body)
    for reader in (read_fc, read_react):
        streamed, turn = reader(raw, ["get_weather"])
        assert "<tool_call>" not in streamed
        assert isinstance(turn.decision, ToolCalls), (reader, turn.decision)
        assert [(c.name, c.arguments) for c in turn.decision.calls] == [("get_weather", {"city": "Paris"})]
