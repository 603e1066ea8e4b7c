"""A forty-fourth set of real-world cases, the sixth of stream shapes: what reaches the plugin in
a tool round through an OpenAI-compatible or provider stream. Tool-call deltas split oddly (two
entries under one index in one chunk, parallel calls all under index 0, no index at all, the id
repeated on every piece or sent as null, the id inside ``function``, the name on every piece, an
empty argument piece, arguments as an object), a call ended by ``stop`` or by nothing, usage on
every chunk or twice at the end, ``reasoning_content`` and null padding fields beside the text,
Azure's content-filter chunks (a last annotation chunk with no ``delta``, ``"delta": null`` on the
finish chunk, a reply the filter stopped) and a refusal streamed under ``delta.refusal``, from
public reports against vLLM, SGLang, llama.cpp, Ollama, LiteLLM, Groq, Kimi and MiniMax gateways,
Azure OpenAI, Bedrock's ConverseStream through gateways, and the clients that read them (openai-python, openai-node, LlamaIndex, LangChain,
agent-framework, exo, Portkey).

Each stream starts as SSE text and is read the two ways the thirty-sixth pass reads them
(``test_real_world_2026ak``): through the official ``openai_api_compatible`` plugin (the SDK's
OpenAI-compatible base run from the installed SDK, ``test_real_world_2026ae.plugin_chunks``) and
as raw deltas passed on one by one (``from_sse``), as a plugin that streams each provider chunk
does. Tool-call streams are read by Function Calling (ReAct declares no tools to the provider);
answer streams by both strategies. Each case names its source beside it; docs/real-world-cases.md
lists them. Where the source quotes raw lines they are used (values shortened, unrelated fields
left out); "rebuilt" marks a stream written from what the source describes, with values filled in.
"""

import pytest
from dify_plugin.entities.model.llm import LLMUsage

from agent_core.loop import _gave_up
from agent_core.model_call import normalize_chunk
from agent_core.prompts import EMPTY_REPLY, PROBLEM_EMPTY
from agent_core.turn import FinalAnswer, ModelTurn, ParseFailure
from agent_core.usage import call_usage
from tests.unit.test_real_world_2026ae import ev, fn, plugin_chunks, read_fc, read_react, sse, tc
from tests.unit.test_real_world_2026ak import calls_of, from_sse

BOTH = ("plugin", "raw")
RAW = ("raw",)


def chunk(chunk_id: str = "chatcmpl-1", finish: str | None = None, **delta) -> dict:
    """One ``chat.completion.chunk`` under ``chunk_id`` (a gateway that gives each chunk its own id)."""
    return {"id": chunk_id, "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


# Azure's content-filter annotation as langchain-ai/langchain#18977 quotes it: a choice with no
# `delta`, empty id, model and object, sent after the text (the quoted chunk)
AZURE_LAST_ANNOTATION = {
    "id": "", "object": "", "created": 0, "model": "",
    "choices": [{
        "finish_reason": None, "index": 0,
        "content_filter_results": {
            "hate": {"filtered": False, "severity": "safe"}, "self_harm": {"filtered": False, "severity": "safe"},
            "sexual": {"filtered": False, "severity": "safe"}, "violence": {"filtered": False, "severity": "safe"},
        },
        "content_filter_offsets": {"check_offset": 4522, "start_offset": 4522, "end_offset": 4686},
    }],
}

# ---- tool-call streams, Function Calling ---------------------------------------------------------------
# name: (SSE body, paths, tools, shown text, [(name, arguments)])

CALL_STREAMS = {
    # openai/openai-python PR #3521 (#3203: vLLM with speculative decoding, Kimi K2.6): the first
    # chunk holds two entries under index 0, the head and the first argument piece (the quoted
    # chunk), then the rest of the arguments (rebuilt)
    "openaipython3521-kimi-two-index0-entries-in-the-first-chunk": (
        sse(
            ev(role="assistant", tool_calls=[tc(index=0, id="call_abc", function=fn("list_files"), type="function"),
                                             tc(index=0, function=fn(arguments=' {"'))]),
            ev(tool_calls=[tc(index=0, function=fn(arguments='path": "."}'))]),
            ev("tool_calls"),
        ),
        BOTH, ["list_files"], "", [("list_files", {"path": "."})],
    ),
    # BerriAI/litellm PR #37792: Ollama through LiteLLM's ollama_chat: two parallel calls, each in
    # its own chunk and both under index 0, ids without the `call_` prefix, a new response id on each
    # chunk, and `stop` as the finish (rebuilt from the PR's list)
    "litellm37792-ollama-parallel-calls-both-index-0-finish-stop": (
        sse(
            chunk("chatcmpl-a1", role="assistant", content="", tool_calls=[
                tc(index=0, id="5f0e2a7c", type="function", function=fn("get_weather", '{"city": "Paris"}'))]),
            chunk("chatcmpl-b2", content="", tool_calls=[
                tc(index=0, id="9b41d3e8", type="function", function=fn("get_weather", '{"city": "London"}'))]),
            chunk("chatcmpl-c3", "stop", content=""),
        ),
        BOTH, ["get_weather"], "", [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "London"})],
    ),
    # the same PR, before LiteLLM serialized them: `function.arguments` as an object in each chunk
    # (passed on raw; the SDK base refuses an object, as the thirty-sixth pass records)
    "litellm37792-ollama-parallel-calls-object-arguments": (
        sse(
            chunk("chatcmpl-a1", role="assistant", tool_calls=[
                tc(index=0, id="5f0e2a7c", type="function", function={"name": "get_weather", "arguments": {"city": "Paris"}})]),
            chunk("chatcmpl-b2", tool_calls=[
                tc(index=0, id="9b41d3e8", type="function", function={"name": "get_weather", "arguments": {"city": "London"}})]),
            chunk("chatcmpl-c3", "stop"),
        ),
        RAW, ["get_weather"], "", [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "London"})],
    ),
    # BerriAI/litellm#35663: ollama_chat sends the call in a chunk with `done: false`, then a done
    # chunk whose message is empty and whose reason is `stop` (the account; rebuilt)
    "litellm35663-ollama-call-then-empty-done-chunk-stop": (
        sse(
            ev(role="assistant", content="", tool_calls=[tc(index=0, id="call_o1", type="function",
                                                          function=fn("read_file", '{"path": "README.md"}'))]),
            ev("stop", content=""),
        ),
        BOTH, ["read_file"], "", [("read_file", {"path": "README.md"})],
    ),
    # vllm-project/vllm PR #9209: with a named function in `tool_choice` vLLM streamed the call and
    # ended with `stop` instead of `tool_calls` (rebuilt)
    "vllm9209-named-tool-choice-pieces-finish-stop": (
        sse(
            ev(role="assistant", content=None, tool_calls=[tc(index=0, id="chatcmpl-tool-4f2a", type="function",
                                                            function=fn("get_current_weather", ""))]),
            ev(tool_calls=[tc(index=0, function=fn(arguments='{"city": "Dallas", '))]),
            ev(tool_calls=[tc(index=0, function=fn(arguments='"unit": "fahrenheit"}'))]),
            ev("stop"),
        ),
        BOTH, ["get_current_weather"], "", [("get_current_weather", {"city": "Dallas", "unit": "fahrenheit"})],
    ),
    # sgl-project/sglang PR #19662: DeepSeek-V3.2 with tool_choice auto streams its arguments a
    # character or two at a time, `id: null` and `type: "function"` on every piece, beside
    # `content: null` and `reasoning_content: null` (the quoted pieces '分析', '本', '与', '同'; the
    # head and the keys rebuilt)
    "sglang19662-deepseek-v32-arguments-a-character-at-a-time": (
        sse(
            ev(role="assistant", content=None, reasoning_content=None, tool_calls=[
                tc(index=0, id="call_ds32", type="function", function=fn("summarize", ""))]),
            *[ev(content=None, reasoning_content=None, tool_calls=[tc(index=0, id=None, type="function",
                                                                      function=fn(None, piece))])
              for piece in ('{"text": "', "分析", "本", "与", "同", '"}')],
            ev("tool_calls", content=None, reasoning_content=None),
        ),
        BOTH, ["summarize"], "", [("summarize", {"text": "分析本与同"})],
    ),
    # lidge-jun/opencodex PR #1754 (#1731): SGLang sends id and name on the first delta, then
    # repeats `id`, `function.name` and `function.arguments` as null on the continuations, some of
    # them padding with nothing else (rebuilt)
    "opencodex1754-sglang-null-id-name-arguments-on-continuations": (
        sse(
            ev(role="assistant", tool_calls=[tc(index=0, id="call_sg1", type="function", function=fn("search", ""))]),
            ev(tool_calls=[tc(index=0, id=None, type=None, function=fn(None, '{"query": '))]),
            ev(tool_calls=[tc(index=0, id=None, type=None, function=fn(None, None))]),
            ev(tool_calls=[tc(index=0, id=None, type=None, function=fn(None, '"sglang null padding"}'))]),
            ev("tool_calls"),
        ),
        BOTH, ["search"], "", [("search", {"query": "sglang null padding"})],
    ),
    # veryfront/veryfront-code PR #3815: Kimi K2.6 behind a gateway that writes every absent
    # optional field as null (role, reasoning, id, type, name, arguments); the PR's id
    # `functions.list_events:0` and arguments `{"date":"2026-08-18"}` (the stream rebuilt)
    "veryfront3815-kimi-k26-null-optional-fields": (
        sse(
            ev(role="assistant", content=None, reasoning=None, reasoning_content="The user wants tomorrow's events."),
            ev(role=None, content=None, reasoning=None, reasoning_content=None, tool_calls=[
                tc(index=0, id="functions.list_events:0", type="function", function=fn("list_events", None))]),
            ev(role=None, content=None, reasoning=None, reasoning_content=None, tool_calls=[
                tc(index=0, id=None, type=None, function=fn(None, '{"date":'))]),
            ev(role=None, content=None, reasoning=None, reasoning_content=None, tool_calls=[
                tc(index=0, id=None, type=None, function=fn(None, '"2026-08-18"}'))]),
            ev("tool_calls", role=None, content=None, reasoning=None, reasoning_content=None),
        ),
        BOTH, ["list_events"], "", [("list_events", {"date": "2026-08-18"})],
    ),
    # smg-project/smg PR #2391 (a review): `content: null` beside each argument piece, the
    # standard shape the review quotes; and an upstream that leaves `index` out, whose clients
    # "accumulate into the currently open call": two calls, each head with its id (rebuilt)
    "smg2391-content-null-beside-pieces-no-index-two-calls": (
        sse(
            ev(role="assistant", content=None, tool_calls=[{"id": "c1", "type": "function", "function": fn("add", "")}]),
            ev(content=None, tool_calls=[{"function": fn(arguments='{"a":')}]),
            ev(content=None, tool_calls=[{"function": fn(arguments=' "1"}')}]),
            ev(content=None, tool_calls=[{"id": "c2", "type": "function", "function": fn("add", "")}]),
            ev(content=None, tool_calls=[{"function": fn(arguments='{"a":')}]),
            ev(content=None, tool_calls=[{"function": fn(arguments=' "2"}')}]),
            ev("tool_calls", content=None),
        ),
        BOTH, ["add"], "", [("add", {"a": "1"}), ("add", {"a": "2"})],
    ),
    # run-llama/llama_index PR #21693: LiteLLM repeats the call's whole id (`call_123`) on every
    # argument chunk; read as text it became `call_123call_123` (rebuilt)
    "llamaindex21693-litellm-same-id-on-every-argument-chunk": (
        sse(
            ev(role="assistant", tool_calls=[tc(index=0, id="call_123", type="function", function=fn("lookup", ""))]),
            ev(tool_calls=[tc(index=0, id="call_123", function=fn(arguments='{"term": '))]),
            ev(tool_calls=[tc(index=0, id="call_123", function=fn(arguments='"tool call id"}'))]),
            ev("tool_calls"),
        ),
        BOTH, ["lookup"], "", [("lookup", {"term": "tool call id"})],
    ),
    # fuzhengwei/WaLiAPI PR #53 (#52): a Responses-to-Chat bridge put the whole id, type and
    # function name on every argument delta; a client that overwrote instead of joining kept only
    # the last piece, `"]}` (rebuilt)
    "waliapi53-responses-bridge-identity-on-every-delta": (
        sse(
            ev(role="assistant", tool_calls=[tc(index=0, id="call_wl1", type="function", function=fn("todo_write", '{"todos": ['))]),
            ev(tool_calls=[tc(index=0, id="call_wl1", type="function", function=fn("todo_write", '"write tests", "fix'))]),
            ev(tool_calls=[tc(index=0, id="call_wl1", type="function", function=fn("todo_write", ' bug"]}'))]),
            ev("tool_calls"),
        ),
        BOTH, ["todo_write"], "", [("todo_write", {"todos": ["write tests", "fix bug"]})],
    ),
    # BerriAI/litellm PR #39288: the head with id, name and `"arguments": ""`, then an empty
    # argument delta (which killed LiteLLM's bridge), then the pieces (rebuilt)
    "litellm39288-empty-argument-delta-after-the-head": (
        sse(
            ev(role="assistant", tool_calls=[tc(index=0, id="call_e0", type="function", function=fn("shell", ""))]),
            ev(tool_calls=[tc(index=0, function=fn(arguments=""))]),
            ev(tool_calls=[tc(index=0, function=fn(arguments='{"command": "pwd"}'))]),
            ev("tool_calls"),
        ),
        BOTH, ["shell"], "", [("shell", {"command": "pwd"})],
    ),
    # ggml-org/llama.cpp PR #12379 (a comment; #13774, fixed by PR #13800): llama-server before the
    # fix put the whole name on every delta ("add_two_numbersadd_two_numbers..." in LangChain) and
    # the id inside `function` instead of beside it (rebuilt, Phi-4-mini's call)
    "llamacpp12379-name-on-every-delta-id-inside-function": (
        sse(
            ev(role="assistant", content=None, tool_calls=[
                tc(index=0, function={"name": "add_two_numbers", "id": "Q1w2E3r4", "arguments": '{"a": '})]),
            ev(content=None, tool_calls=[tc(index=0, function={"name": "add_two_numbers", "id": "Q1w2E3r4", "arguments": '"2", '})]),
            ev(content=None, tool_calls=[tc(index=0, function={"name": "add_two_numbers", "id": "Q1w2E3r4", "arguments": '"b": "3"}'})]),
            ev("tool_calls", content=None),
        ),
        BOTH, ["add_two_numbers"], "", [("add_two_numbers", {"a": "2", "b": "3"})],
    ),
    # maximhq/bifrost#5206 (PR #5209): a Bedrock ConverseStream tool turn whose `messageStop`
    # said `end_turn` instead of `tool_use`; a model plugin that passes Converse's stop reason on
    # hands the call over with `end_turn` (rebuilt as the chunks such a plugin passes on: the
    # whole call, then the reason)
    "bifrost5206-bedrock-tool-turn-ended-end-turn": (
        sse(
            ev(role="assistant", content="", tool_calls=[tc(index=0, id="tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", type="function",
                                                          function=fn("get_weather", '{"city": "Seattle"}'))]),
            ev("end_turn", content=""),
        ),
        RAW, ["get_weather"], "", [("get_weather", {"city": "Seattle"})],
    ),
    # langchain-ai/langchain#18977: with Azure's asynchronous content filter a last annotation
    # chunk comes after the reply, a choice with no `delta` (the quoted chunk), here after a call
    # (the call rebuilt)
    "langchain18977-azure-last-annotation-chunk-after-a-call": (
        sse(
            ev(role="assistant", content=None, tool_calls=[tc(index=0, id="call_az1", type="function",
                                                            function=fn("search", '{"query": "azure quota"}'))]),
            ev("tool_calls"),
            AZURE_LAST_ANNOTATION,
        ),
        BOTH, ["search"], "", [("search", {"query": "azure quota"})],
    ),
    # microsoft/agent-framework PR #5734: Azure sends `"delta": null` on the finish chunk instead of
    # `"delta": {}` (the PR's account; the call rebuilt). Passed on raw; the SDK base fails on it
    # before the strategy reads a chunk (below)
    "agentframework5734-azure-delta-null-on-the-finish-chunk": (
        sse(
            ev(role="assistant", tool_calls=[tc(index=0, id="call_af1", type="function", function=fn("get_time", ""))]),
            ev(tool_calls=[tc(index=0, function=fn(arguments='{"tz": "UTC"}'))]),
            {"id": "chatcmpl-1", "object": "chat.completion.chunk",
             "choices": [{"index": 0, "delta": None, "finish_reason": "tool_calls"}]},
        ),
        RAW, ["get_time"], "", [("get_time", {"tz": "UTC"})],
    ),
}


def _call_params():
    for name, (_, paths, *_rest) in CALL_STREAMS.items():
        for path in paths:
            yield name, path


@pytest.mark.parametrize(("name", "path"), list(_call_params()))
def test_real_world_call_stream(name, path):
    body, _, tools, shown, expected = CALL_STREAMS[name]
    chunks = plugin_chunks(body) if path == "plugin" else from_sse(body)
    streamed, turn = read_fc(chunks, tools)
    assert streamed.strip() == shown
    assert calls_of(turn) == expected


# ---- ids that go back --------------------------------------------------------------------------------


def test_litellm37792_the_two_calls_under_index_0_go_back_under_their_own_ids():
    """Two calls under one index, each with its own id, are two calls, each under its id."""
    body = CALL_STREAMS["litellm37792-ollama-parallel-calls-both-index-0-finish-stop"][0]
    for chunks in (plugin_chunks(body), from_sse(body)):
        _, turn = read_fc(chunks, ["get_weather"])
        assert [c.id for c in turn.decision.calls] == ["5f0e2a7c", "9b41d3e8"]


@pytest.mark.parametrize("name", ["llamaindex21693-litellm-same-id-on-every-argument-chunk",
                                  "waliapi53-responses-bridge-identity-on-every-delta",
                                  "openaipython3521-kimi-two-index0-entries-in-the-first-chunk",
                                  "veryfront3815-kimi-k26-null-optional-fields"])
def test_a_call_split_oddly_goes_back_under_its_one_id(name):
    """The id the head gave (repeated, or null on the pieces) is the call's one id, not joined
    with itself and not a second call."""
    body, _, tools, _, _ = CALL_STREAMS[name]
    head_id = next(c["id"] for c in _sse_calls(body) if c.get("id"))
    for chunks in (plugin_chunks(body), from_sse(body)):
        _, turn = read_fc(chunks, tools)
        assert [c.id for c in turn.decision.calls] == [head_id]


def _sse_calls(body: str) -> list[dict]:
    import json

    calls = []
    for line in body.split("\n\n"):
        if line.startswith("data: {"):
            for choice in json.loads(line[6:]).get("choices") or []:
                calls.extend((choice.get("delta") or {}).get("tool_calls") or [])
    return calls


def test_agentframework5734_the_sdk_base_fails_on_a_null_delta():
    """Through the SDK's OpenAI-compatible base (the official plugin) ``"delta": null`` raises when
    the plugin reads the chunk: the model call fails before the strategy reads a chunk, and the
    strategy reports a model error as for any failed invoke (outside the strategy; recorded, not
    fixed here)."""
    body = CALL_STREAMS["agentframework5734-azure-delta-null-on-the-finish-chunk"][0]
    with pytest.raises(AttributeError):
        plugin_chunks(body)


def test_veryfront3815_the_reasoning_beside_null_fields_is_kept_not_shown():
    """Kimi's reasoning before the call, beside null padding fields: not streamed, kept as the
    turn's reasoning."""
    body = CALL_STREAMS["veryfront3815-kimi-k26-null-optional-fields"][0]
    for chunks in (plugin_chunks(body), from_sse(body)):
        streamed, turn = read_fc(chunks, ["list_events"])
        assert "tomorrow" not in streamed and "tomorrow's events" in turn.reasoning


# ---- answer streams, both strategies ---------------------------------------------------------------------
# name: (SSE body, conversion options, the answer, a piece of reasoning that must not be shown or "")

ANSWER_STREAMS = {
    # vllm-project/vllm#7262: with `include_usage` vLLM 0.5.4 put a running usage on every chunk
    # (the quoted chunks: 16/0/16, '!' 16/1/17, ' glare' ...; the finish rebuilt)
    "vllm7262-running-usage-on-every-chunk": (
        sse(
            ev(usage={"completion_tokens": 0, "prompt_tokens": 16, "total_tokens": 16}, role="assistant", content=None,
               function_call=None, refusal=None, tool_calls=None),
            ev(usage={"completion_tokens": 1, "prompt_tokens": 16, "total_tokens": 17}, content="!", function_call=None,
               refusal=None, role=None, tool_calls=None),
            ev(usage={"completion_tokens": 2, "prompt_tokens": 16, "total_tokens": 18}, content=" glare", function_call=None,
               refusal=None, role=None, tool_calls=None),
            ev("stop", usage={"completion_tokens": 3, "prompt_tokens": 16, "total_tokens": 19}, content="",
               function_call=None, refusal=None, role=None, tool_calls=None),
        ),
        {}, "! glare", "",
    ),
    # Portkey-AI/gateway#1338: Groq (gemma2-9b-it) with `"tool_calls": []` and the role beside
    # every text delta, a `provider` field on each chunk (the quoted lines), and usage twice at the
    # end (the subject; rebuilt)
    "portkey1338-groq-empty-tool-calls-and-role-on-every-delta-usage-twice": (
        sse(
            *[{"id": "chatcmpl-eb063827", "object": "chat.completion.chunk", "created": 1757714116, "model": "gemma2-9b-it",
               "provider": "groq", "choices": [{"index": 0, "delta": {"role": "assistant", "content": piece, "tool_calls": []},
                                                "logprobs": None, "finish_reason": None}]}
              for piece in ("", "Hello", "!")],
            {"id": "chatcmpl-eb063827", "object": "chat.completion.chunk", "model": "gemma2-9b-it", "provider": "groq",
             "choices": [{"index": 0, "delta": {}, "logprobs": None, "finish_reason": "length"}],
             "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}},
            {"id": "chatcmpl-eb063827", "object": "chat.completion.chunk", "model": "gemma2-9b-it", "provider": "groq",
             "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}},
        ),
        {}, "Hello!", "",
    ),
    # exo-explore/exo PR #2092 (#2082): every delta carried null `name`, `tool_calls`,
    # `tool_call_id` and `function_call` beside the reasoning (the quoted first delta), then the
    # answer (rebuilt)
    "exo2092-null-fields-beside-reasoning-then-answer": (
        sse(
            {"id": "7c4dae10", "choices": [{"index": 0, "delta": {
                "role": "assistant", "content": None, "reasoning_content": "Okay", "name": None, "tool_calls": None,
                "tool_call_id": None, "function_call": None}, "logprobs": None, "finish_reason": None, "usage": None}],
             "usage": None, "service_tier": None},
            {"id": "7c4dae10", "choices": [{"index": 0, "delta": {
                "role": "assistant", "content": None, "reasoning_content": ", the user said hi.", "name": None,
                "tool_calls": None, "tool_call_id": None, "function_call": None}, "logprobs": None, "finish_reason": None,
                "usage": None}], "usage": None, "service_tier": None},
            {"id": "7c4dae10", "choices": [{"index": 0, "delta": {
                "role": "assistant", "content": "Hi! How can I help?", "reasoning_content": None, "name": None,
                "tool_calls": None, "tool_call_id": None, "function_call": None}, "logprobs": None, "finish_reason": "stop",
                "usage": None}], "usage": None, "service_tier": None},
        ),
        {}, "Hi! How can I help?", "the user said hi",
    ),
    # xenodium/chatgpt-shell#155: Azure's stream as curl shows it: a first chunk of empty `choices`
    # with the prompt filter results, then the role with `content_filter_results: {}`, then the
    # text with its results (the quoted lines, trimmed; the finish rebuilt)
    "chatgptshell155-azure-prompt-filter-chunk-then-text": (
        sse(
            {"id": "", "object": "", "created": 0, "model": "", "prompt_filter_results": [{"prompt_index": 0,
             "content_filter_results": {"hate": {"filtered": False, "severity": "safe"},
                                        "self_harm": {"filtered": False, "severity": "safe"}}}], "choices": []},
            {"id": "chatcmpl-8V1mzvFANVW81eY6AMkrEgfIMuFKN", "object": "chat.completion.chunk", "created": 1702405737,
             "model": "gpt-4", "choices": [{"index": 0, "finish_reason": None, "delta": {"role": "assistant"},
                                            "content_filter_results": {}}], "system_fingerprint": "fp_50a4261de5"},
            {"id": "chatcmpl-8V1mzvFANVW81eY6AMkrEgfIMuFKN", "object": "chat.completion.chunk", "created": 1702405737,
             "model": "gpt-4", "choices": [{"index": 0, "finish_reason": None, "delta": {"content": "Hello"},
                                            "content_filter_results": {"hate": {"filtered": False, "severity": "safe"}}}]},
            {"id": "chatcmpl-8V1mzvFANVW81eY6AMkrEgfIMuFKN", "object": "chat.completion.chunk", "created": 1702405737,
             "model": "gpt-4", "choices": [{"index": 0, "finish_reason": "stop", "delta": {}, "content_filter_results": {}}]},
        ),
        {}, "Hello", "",
    ),
    # langchain-ai/langchain#18977: the answer, then Azure's last annotation chunk with no `delta`
    # (the quoted chunk; the answer rebuilt)
    "langchain18977-azure-last-annotation-chunk-after-the-answer": (
        sse(ev(role="assistant", content="The quota is 300 requests a minute."), ev("stop"), AZURE_LAST_ANNOTATION),
        {}, "The quota is 300 requests a minute.", "",
    ),
    # BerriAI/litellm#10686: through LiteLLM with `logprobs` the finish reason was stripped, so the
    # stream ends with no reason at all (vLLM's quoted lines for Mistral-7B with `logprobs`; the
    # second piece rebuilt)
    "litellm10686-logprobs-beside-each-piece-no-finish-reason": (
        sse(
            {"id": "chat-89ef9a2c", "object": "chat.completion.chunk", "created": 1746779871,
             "model": "Mistral-7B-Instruct-v0.3", "choices": [{"index": 0, "delta": {"role": "assistant"},
                                                               "logprobs": None, "finish_reason": None}]},
            {"id": "chat-89ef9a2c", "object": "chat.completion.chunk", "created": 1746779871,
             "model": "Mistral-7B-Instruct-v0.3", "choices": [{"index": 0, "delta": {"content": " "}, "logprobs": {
                 "content": [{"token": " ", "logprob": -0.00035041390219703317, "bytes": [32],
                              "top_logprobs": [{"token": " ", "logprob": -0.00035041390219703317, "bytes": [32]}]}]},
                 "finish_reason": None}]},
            {"id": "chat-89ef9a2c", "object": "chat.completion.chunk", "created": 1746779871,
             "model": "Mistral-7B-Instruct-v0.3", "choices": [{"index": 0, "delta": {"content": "2"}, "logprobs": {
                 "content": [{"token": "2", "logprob": -0.0001, "bytes": [50],
                              "top_logprobs": [{"token": "2", "logprob": -0.0001, "bytes": [50]}]}]},
                 "finish_reason": None}]},
        ),
        {}, "2", "",
    ),
}


@pytest.mark.parametrize("strategy", ["react", "fc"])
@pytest.mark.parametrize("path", ["plugin", "raw"])
@pytest.mark.parametrize("name", list(ANSWER_STREAMS))
def test_real_world_answer_stream(name, path, strategy):
    body, options, answer, hidden = ANSWER_STREAMS[name]
    chunks = plugin_chunks(body, **options) if path == "plugin" else from_sse(body)
    streamed, turn = (read_react if strategy == "react" else read_fc)(chunks, ["search"])
    assert turn.decision == FinalAnswer(answer)
    assert streamed.strip() == answer
    if hidden:
        assert hidden not in streamed
        assert hidden in turn.reasoning


# ---- usage ---------------------------------------------------------------------------------------------


def _raw_usages(body: str) -> list:
    """The usage of each provider chunk of ``body`` passed on one by one as a model plugin that
    forwards each chunk's usage does (a chunk of empty ``choices`` keeps its usage too)."""
    import json

    reports = []
    for line in body.split("\n\n"):
        if line.startswith("data: {"):
            usage = json.loads(line[6:]).get("usage")
            if usage:
                reports.append(normalize_chunk({"delta": {"usage": usage}}).usage)
    return reports


def test_vllm7262_a_running_usage_on_every_chunk_counts_once():
    """Every chunk's usage is the running total: the call used what the last one says (16 + 3),
    not the sum of the four reports."""
    reports = _raw_usages(ANSWER_STREAMS["vllm7262-running-usage-on-every-chunk"][0])
    assert len(reports) == 4
    total = call_usage(reports)
    assert (total.prompt_tokens, total.completion_tokens, total.total_tokens) == (16, 3, 19)


def test_portkey1338_usage_sent_twice_at_the_end_counts_once():
    """The finish chunk's usage and the usage-only chunk after it report the same call: counted once."""
    reports = _raw_usages(ANSWER_STREAMS["portkey1338-groq-empty-tool-calls-and-role-on-every-delta-usage-twice"][0])
    assert len(reports) == 2
    total = call_usage(reports)
    assert (total.prompt_tokens, total.completion_tokens, total.total_tokens) == (10, 3, 13)


def test_portkey1338_a_usage_only_last_chunk_through_the_plugin_is_one_report():
    """Through the SDK base the usage reaches the strategy once, on the last chunk."""
    body = ANSWER_STREAMS["portkey1338-groq-empty-tool-calls-and-role-on-every-delta-usage-twice"][0]
    usages = [c["delta"].get("usage") for c in plugin_chunks(body) if c["delta"].get("usage")]
    assert len(usages) == 1


# ---- what the content filter or a refusal leaves ---------------------------------------------------------


def _filtered_stream() -> str:
    """ravendb/ravendb PR #22997 (a review): an Azure stream where one chunk carries
    ``content_filter_results`` with ``filtered: true`` and the last carries
    ``finish_reason: "content_filter"``, no text at all (rebuilt)."""
    return sse(
        ev(role="assistant", content=""),
        {"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {},
         "finish_reason": None, "content_filter_results": {"hate": {"filtered": True, "severity": "high"}}}]},
        ev("content_filter"),
    )


def _refusal_stream() -> str:
    """MacPaw/OpenAI PR #408 and ravendb/ravendb PR #22997: a refusal streamed as
    ``delta.refusal`` pieces to be joined, ``content: null`` beside them (rebuilt)."""
    return sse(
        ev(role="assistant", content=None, refusal=""),
        ev(content=None, refusal="I'm sorry, "),
        ev(content=None, refusal="I can't help with that."),
        ev("stop", content=None),
    )


@pytest.mark.parametrize("path", ["plugin", "raw"])
@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_ravendb22997_a_reply_the_content_filter_stopped_is_not_an_empty_answer(strategy, path):
    """A reply the provider's content filter stopped before any text is not taken as an empty
    final answer: the turn is not a ``FinalAnswer`` (the loop asks again and, if the filter keeps
    stopping it, ends with an error that says so)."""
    body = _filtered_stream()
    chunks = plugin_chunks(body) if path == "plugin" else from_sse(body)
    streamed, turn = (read_react if strategy == "react" else read_fc)(chunks, ["search"])
    assert streamed == ""
    assert not isinstance(turn.decision, FinalAnswer), turn.decision
    assert turn.finish_reason == "content_filter"


@pytest.mark.parametrize("path", ["plugin", "raw"])
@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_macpaw408_a_refusal_field_the_plugin_drops_is_asked_again_not_an_empty_answer(strategy, path):
    """The SDK base (and the raw path) pass ``delta.refusal`` on nowhere: the strategy receives an
    empty reply ended by ``stop``. It is not taken as an empty final answer: the model is asked
    again, as for any empty reply (what it refused is out of the strategy's reach)."""
    body = _refusal_stream()
    chunks = plugin_chunks(body) if path == "plugin" else from_sse(body)
    streamed, turn = (read_react if strategy == "react" else read_fc)(chunks, ["search"])
    assert streamed == ""
    assert isinstance(turn.decision, ParseFailure) and turn.decision.problem in (EMPTY_REPLY, PROBLEM_EMPTY)


# ---- the fix: a finish reason that says the provider's filter stopped the reply ------------------------


@pytest.mark.parametrize(("reason", "expected"), [
    ("content_filter", "content filter stopped the model's reply before it said anything"),
    ("SAFETY", 'finish reason "SAFETY"'),
    ("stop", "returned no answer and no tool call"),
])
def test_a_run_that_gives_up_on_empty_replies_names_the_filter_that_stopped_them(reason, expected):
    """The message a run that gave up on empty replies ends with names the provider's filter when
    the last reply's finish reason says it stopped it, and never points at the output limit then."""
    turn = ModelTurn(thought="", decision=ParseFailure(EMPTY_REPLY), usage=LLMUsage.empty_usage(), finish_reason=reason)
    message = _gave_up(turn, EMPTY_REPLY, 3)
    assert expected in message
    assert ("maximum output tokens" in message) is (reason == "stop")
