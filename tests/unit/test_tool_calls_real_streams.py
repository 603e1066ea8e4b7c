"""Tool-call stream shapes that real providers and model plugins send through Dify.

Each case is a list of ``LLMResultChunk`` dicts as the daemon passes them on
(``delta.message.tool_calls`` serialised from ``AssistantPromptMessage.ToolCall``:
``id``, ``type``, ``function.name`` and ``function.arguments`` always present,
``""`` when the provider left them out; ``index`` only where a plugin passes the
provider's dicts through). They go through ``normalize_chunk`` and
``read_function_calling_turn``, the strategy's own path. The comment of each case
names where the shape comes from; none of them is in docs/real-world-cases.md.
"""

import json
from dataclasses import dataclass, field

import pytest

from agent_core.function_calling.turn import read_function_calling_turn
from agent_core.model_call import normalize_chunk
from agent_core.turn import ModelTurn, ToolCalls
from tests.unit.helpers import drain

TOOLS = ("get_weather", "get_time", "search", "list_dir", "roll_die")


def tc(name="", arguments="", id="", index=None):
    """One ``AssistantPromptMessage.ToolCall`` as Dify serialises it."""
    raw = {"id": id, "type": "function", "function": {"name": name, "arguments": arguments}}
    return raw if index is None else {"index": index, **raw}


def chunk(*calls, content="", finish_reason=None, reasoning=None):
    """One ``LLMResultChunk`` dict."""
    message = {"role": "assistant", "content": content, "tool_calls": list(calls)}
    if reasoning is not None:
        message["reasoning_content"] = reasoning
    return {"model": "m", "delta": {"index": 0, "message": message, "finish_reason": finish_reason}}


def pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def run_turn(raw_chunks) -> tuple[str, ModelTurn]:
    """Feed the chunks through the function-calling turn reader; (streamed text, turn)."""
    reader = read_function_calling_turn(iter([normalize_chunk(raw) for raw in raw_chunks]), TOOLS)
    return drain(reader)


@dataclass
class Case:
    chunks: list
    calls: list  # (name, arguments) in order
    ids: list | None = None  # expected call ids, when the shape says which
    thought: str | None = None
    extra: dict = field(default_factory=dict)  # other ModelTurn fields to check


WEATHER_PARIS = '{"city": "Paris"}'

CASES = [
    # Dify's _increase_tool_call tests, case 2: vLLM/SiliconFlow put the id only on
    # a call's first chunk; later chunks have id "" and name "".
    pytest.param(
        Case(
            [
                chunk(tc("get_weather", "", id="call_1")),
                chunk(tc(arguments='{"city": ')),
                chunk(tc(arguments='"Paris"}')),
                chunk(tc("get_time", "", id="call_2")),
                chunk(tc(arguments='{"tz": ')),
                chunk(tc(arguments='"CET"}')),
                chunk(finish_reason="tool_calls"),
            ],
            [("get_weather", {"city": "Paris"}), ("get_time", {"tz": "CET"})],
            ids=["call_1", "call_2"],
        ),
        id="vllm-siliconflow-id-on-first-chunk",
    ),
    # Dify's _increase_tool_call tests, case 3: SGLang repeats the id on every chunk.
    pytest.param(
        Case(
            [
                chunk(tc("get_weather", "", id="call_1")),
                chunk(tc(arguments='{"city": ', id="call_1")),
                chunk(tc(arguments='"Paris"}', id="call_1")),
                chunk(tc("get_time", "", id="call_2")),
                chunk(tc(arguments='{"tz": ', id="call_2")),
                chunk(tc(arguments='"CET"}', id="call_2")),
            ],
            [("get_weather", {"city": "Paris"}), ("get_time", {"tz": "CET"})],
            ids=["call_1", "call_2"],
        ),
        id="sglang-id-on-every-chunk",
    ),
    # Dify's _increase_tool_call tests, case 4: no ids at all (Gemini OpenAI-compat,
    # some Ollama builds); the strategy makes them up.
    pytest.param(
        Case(
            [
                chunk(tc("get_weather", "")),
                chunk(tc(arguments='{"city": ')),
                chunk(tc(arguments='"Paris"}')),
                chunk(tc("get_time", "")),
                chunk(tc(arguments='{"tz": "CET"}')),
            ],
            [("get_weather", {"city": "Paris"}), ("get_time", {"tz": "CET"})],
            ids=["c00010001", "c00010002"],
        ),
        id="no-ids-at-all",
    ),
    # dify-plugin-sdks OAICompatLargeLanguageModel (openai_api_compatible, DeepSeek,
    # SiliconFlow plugins): text streams first, the merged calls come in one chunk
    # after the text, the finish_reason in a last chunk without calls.
    pytest.param(
        Case(
            [
                chunk(content="Let me check "),
                chunk(content="both."),
                chunk(
                    tc("get_weather", WEATHER_PARIS, id="call_a"),
                    tc("get_time", '{"tz": "CET"}', id="call_b"),
                ),
                chunk(finish_reason="tool_calls"),
            ],
            [("get_weather", {"city": "Paris"}), ("get_time", {"tz": "CET"})],
            ids=["call_a", "call_b"],
            thought="Let me check both.",
            extra={"finish_reason": "tool_calls"},
        ),
        id="oaicompat-merged-calls-after-text",
    ),
    # dify-plugin-sdks OAICompat merges deltas with get_tool_call(function.name), i.e. it
    # looks the *name* up as an id. With a server that repeats the name on every delta
    # (llama.cpp before PR #13800) the first fragment keeps the real id and the rest
    # lands in a second entry whose id is the tool name.
    pytest.param(
        Case(
            [
                chunk(
                    tc("get_weather", '{"city": ', id="call_1"),
                    tc("get_weather", '"Paris"}', id="get_weather"),
                ),
                chunk(finish_reason="tool_calls"),
            ],
            [("get_weather", {"city": "Paris"})],
            ids=["call_1"],
        ),
        id="oaicompat-name-used-as-id-name-repeated",
    ),
    # Dify LargeLanguageModel.invoke(stream=False) merges the plugin's chunks keyed by
    # function name: two parallel calls of one tool arrive glued in one entry with the
    # last id (dify#21948, dify#16220: calls of the same tool merged).
    pytest.param(
        Case(
            [chunk(tc("search", '{"query": "dify"}{"query": "ollama"}', id="call_b"), finish_reason="tool_calls")],
            [("search", {"query": "dify"}), ("search", {"query": "ollama"})],
        ),
        id="dify-blocking-merge-by-name",
    ),
    # litellm#4537: Anthropic's content_block_start carries input {}, which the bridge
    # sends as arguments "{}" before the input_json_delta fragments.
    pytest.param(
        Case(
            [
                chunk(tc("get_weather", "{}", id="toolu_01")),
                chunk(tc(arguments='{"location": "Bos')),
                chunk(tc(arguments='ton, MA"}')),
                chunk(finish_reason="tool_calls"),
            ],
            [("get_weather", {"location": "Boston, MA"})],
            ids=["toolu_01"],
        ),
        id="litellm4537-anthropic-empty-object-prefix-streamed",
    ),
    # litellm#4537 behind Dify's OpenAI-compatible plugin, which joins the fragments
    # before sending the call in one chunk.
    pytest.param(
        Case(
            [chunk(tc("get_weather", '{}{"location": "Boston, MA"}', id="toolu_01"), finish_reason="tool_calls")],
            [("get_weather", {"location": "Boston, MA"})],
            ids=["toolu_01"],
        ),
        id="litellm4537-anthropic-empty-object-prefix-merged",
    ),
    # vscode-unify-chat-provider#48: Gemini streams a call's name with args {} and the
    # args in a later part without a name (a plugin dumps args to JSON text).
    pytest.param(
        Case(
            [chunk(tc("list_dir", "{}")), chunk(tc(arguments='{"path": "/tmp"}'), finish_reason="stop")],
            [("list_dir", {"path": "/tmp"})],
        ),
        id="gemini-name-part-then-args-part",
    ),
    # litellm#5063: Anthropic tool without parameters: head with "", one empty
    # input_json_delta, nothing else.
    pytest.param(
        Case(
            [chunk(tc("get_time", "", id="toolu_02")), chunk(tc(arguments="")), chunk(finish_reason="tool_calls")],
            [("get_time", {})],
            ids=["toolu_02"],
        ),
        id="litellm5063-anthropic-no-argument-tool",
    ),
    # OpenAI, tool without parameters: arguments "" in the head, then "{}".
    pytest.param(
        Case(
            [chunk(tc("get_time", "", id="call_t", index=0)), chunk(tc(arguments="{}", index=0))],
            [("get_time", {})],
            ids=["call_t"],
        ),
        id="openai-no-argument-tool-empty-then-braces",
    ),
    # vercel/ai#3953: vLLM sends the whole call in one chunk, then an empty fragment
    # for the same index together with finish_reason.
    pytest.param(
        Case(
            [
                chunk(tc("search", '{"query": "latest news on ai"}', id="chatcmpl-tool-a0d9", index=0)),
                chunk(tc(arguments="", index=0), finish_reason="tool_calls"),
            ],
            [("search", {"query": "latest news on ai"})],
            ids=["chatcmpl-tool-a0d9"],
        ),
        id="vercel3953-vllm-empty-fragment-with-finish",
    ),
    # simonw/llm#1130, elizaOS#16973: fragments, then the consolidated call again in the
    # finish chunk under the same id ('{"x": 3, "y": 2}{"x": 3, "y": 2}').
    pytest.param(
        Case(
            [
                chunk(tc("search", "", id="call_s")),
                chunk(tc(arguments='{"query": ', id="call_s")),
                chunk(tc(arguments='"dify"}', id="call_s")),
                chunk(tc("search", '{"query": "dify"}', id="call_s"), finish_reason="tool_calls"),
            ],
            [("search", {"query": "dify"})],
            ids=["call_s"],
        ),
        id="llm1130-consolidated-resend-same-id",
    ),
    # agno#2336 (Bedrock via LiteLLM: "each tool ran twice, duplicate tool id"): the whole
    # call repeated on every chunk until the stream ends.
    pytest.param(
        Case(
            [chunk(tc("get_weather", WEATHER_PARIS, id="tooluse_1")) for _ in range(3)],
            [("get_weather", {"city": "Paris"})],
            ids=["tooluse_1"],
        ),
        id="agno2336-whole-call-repeated-every-chunk",
    ),
    # llama_index#22464: Ollama (OpenAI-compatible) calls a no-argument tool twice in one
    # turn, each call complete in its own chunk with its own id: two calls, not one.
    pytest.param(
        Case(
            [chunk(tc("roll_die", "{}", id="call_a")), chunk(tc("roll_die", "{}", id="call_b"))],
            [("roll_die", {}), ("roll_die", {})],
            ids=["call_a", "call_b"],
        ),
        id="llamaindex22464-same-call-twice-distinct-ids",
    ),
    # dify-official-plugins ollama: the plugin uses the function name as the call id, so
    # two calls of one tool share an id.
    pytest.param(
        Case(
            [
                chunk(
                    tc("get_weather", WEATHER_PARIS, id="get_weather"),
                    tc("get_weather", '{"city": "Rome"}', id="get_weather"),
                ),
                chunk(finish_reason="stop"),
            ],
            [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Rome"})],
        ),
        id="ollama-plugin-name-as-id-two-calls",
    ),
    # Same plugin, the same call twice (llama_index#22464's roll_die, through Dify's
    # ollama plugin): both entries are identical, id included.
    pytest.param(
        Case(
            [chunk(tc("roll_die", "{}", id="roll_die"), tc("roll_die", "{}", id="roll_die"))],
            [("roll_die", {}), ("roll_die", {})],
        ),
        id="ollama-plugin-name-as-id-identical-calls",
        marks=pytest.mark.xfail(
            strict=True,
            reason="indistinguishable from a call resent under its id (agno2336, llm1130): the assembler "
            "sees deltas, not chunk boundaries, and collapses identical objects of one id",
        ),
    ),
    # dify-official-plugins#616 (tongyi, incremental_output=False): DashScope resends the
    # arguments so far on every chunk; here the complete arguments come first, then
    # the cumulative snapshots again.
    pytest.param(
        Case(
            [
                chunk(tc("get_weather", '{"city": "Paris", "days": 3}', id="call_q")),
                chunk(tc("get_weather", '{"city"', id="call_q")),
                chunk(tc("get_weather", '{"city": "Paris"', id="call_q")),
                chunk(tc("get_weather", '{"city": "Paris", "days": 3}', id="call_q")),
                chunk(finish_reason="tool_calls"),
            ],
            [("get_weather", {"city": "Paris", "days": 3})],
            ids=["call_q"],
        ),
        id="dashscope616-complete-then-cumulative",
    ),
    # DashScope non-incremental mode without ids, the name repeated on every snapshot.
    pytest.param(
        Case(
            [
                chunk(tc("get_weather", '{"ci')),
                chunk(tc("get_weather", '{"city": "Pa')),
                chunk(tc("get_weather", WEATHER_PARIS)),
            ],
            [("get_weather", {"city": "Paris"})],
        ),
        id="dashscope-cumulative-name-repeated-no-id",
    ),
    # pipecat#4987 / Mistral: the id arrives only with the last fragment.
    pytest.param(
        Case(
            [
                chunk(tc("search", '{"q')),
                chunk(tc(arguments='uery": "dify"')),
                chunk(tc(arguments="}", id="call_late")),
            ],
            [("search", {"query": "dify"})],
            ids=["call_late"],
        ),
        id="id-only-on-last-chunk",
    ),
    # hermes#62937 through Dify: Gemini's OpenAI-compatible layer keeps index 0 and
    # sends empty ids for parallel calls of one tool.
    pytest.param(
        Case(
            [
                chunk(tc("get_weather", '{"city": "Lisbon"}', index=0)),
                chunk(tc("get_weather", '{"city": "Porto"}', index=0)),
                chunk(finish_reason="tool_calls"),
            ],
            [("get_weather", {"city": "Lisbon"}), ("get_weather", {"city": "Porto"})],
            ids=["c00010001", "c00010002"],
        ),
        id="gemini-openai-compat-empty-ids-index-0",
    ),
    # brainlid/langchain#620: Gemini sends each parallel call in its own chunk with no
    # id and no index; here the arguments are also split.
    pytest.param(
        Case(
            [
                chunk(tc("get_weather", '{"city": "Pa')),
                chunk(tc(arguments='ris"}')),
                chunk(tc("get_weather", '{"city": "Ro')),
                chunk(tc(arguments='me"}')),
            ],
            [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Rome"})],
        ),
        id="gemini-same-tool-twice-no-id-no-index",
    ),
    # Qwen/DashScope, GLM: text and the call in the same delta.
    pytest.param(
        Case(
            [chunk(tc("get_weather", WEATHER_PARIS, id="call_0"), content="I'll check the weather. ")],
            [("get_weather", {"city": "Paris"})],
            ids=["call_0"],
            thought="I'll check the weather. ",
        ),
        id="qwen-text-and-call-in-one-delta",
    ),
    # dify-official-plugins bedrock: the call comes in the final chunk with
    # finish_reason "tool_use".
    pytest.param(
        Case(
            [
                chunk(content="Checking."),
                chunk(tc("get_weather", WEATHER_PARIS, id="tooluse_x"), finish_reason="tool_use"),
            ],
            [("get_weather", {"city": "Paris"})],
            ids=["tooluse_x"],
            thought="Checking.",
            extra={"finish_reason": "tool_use"},
        ),
        id="bedrock-call-in-finish-chunk",
    ),
    # smolagents#1003 streamed: the arguments are a JSON string holding the JSON object.
    pytest.param(
        Case(
            [chunk(tc("get_weather", "", id="call_d"))]
            + [chunk(tc(arguments=part)) for part in pieces(json.dumps(json.dumps({"city": "New York"})), 7)],
            [("get_weather", {"city": "New York"})],
            ids=["call_d"],
        ),
        id="smolagents1003-double-encoded-streamed",
    ),
    # microsoft/agent-framework#8336: parallel calls whose fragments interleave (index kept).
    pytest.param(
        Case(
            [
                chunk(tc("get_weather", "", id="call_a", index=0)),
                chunk(tc("get_time", "", id="call_b", index=1)),
                chunk(tc(arguments='{"city": ', index=0)),
                chunk(tc(arguments='{"tz": ', index=1)),
                chunk(tc(arguments='"Paris"}', index=0)),
                chunk(tc(arguments='"CET"}', index=1)),
            ],
            [("get_weather", {"city": "Paris"}), ("get_time", {"tz": "CET"})],
            ids=["call_a", "call_b"],
        ),
        id="agentframework8336-interleaved-with-index",
    ),
    # microsoft/agent-framework#8336 again: the second head of the same tool, with its
    # arguments, comes while the first call's arguments are unfinished.
    pytest.param(
        Case(
            [
                chunk(tc("search", '{"query": ', id="call_a", index=0)),
                chunk(tc("search", '{"query": "b"}', id="call_b", index=1)),
                chunk(tc(arguments='"a"}', index=0)),
            ],
            [("search", {"query": "a"}), ("search", {"query": "b"})],
            ids=["call_a", "call_b"],
        ),
        id="agentframework8336-second-head-with-arguments",
    ),
    # Same interleaving from SGLang (id on every fragment) after Dify's ToolCall model
    # dropped the index.
    pytest.param(
        Case(
            [
                chunk(tc("get_weather", "", id="call_a")),
                chunk(tc("get_time", "", id="call_b")),
                chunk(tc(arguments='{"city": ', id="call_a")),
                chunk(tc(arguments='{"tz": ', id="call_b")),
                chunk(tc(arguments='"Paris"}', id="call_a")),
                chunk(tc(arguments='"CET"}', id="call_b")),
            ],
            [("get_weather", {"city": "Paris"}), ("get_time", {"tz": "CET"})],
            ids=["call_a", "call_b"],
        ),
        id="sglang-interleaved-ids-no-index",
    ),
    # DeepSeek-R1 / Qwen3 on vLLM: reasoning_content first, then the call.
    pytest.param(
        Case(
            [
                chunk(reasoning="The user wants the weather. "),
                chunk(tc("get_weather", "", id="call_r")),
                chunk(tc(arguments=WEATHER_PARIS)),
            ],
            [("get_weather", {"city": "Paris"})],
            ids=["call_r"],
            thought="",
            extra={"reasoning": "The user wants the weather. "},
        ),
        id="reasoning-content-then-call",
    ),
    # Qwen3 through Ollama: <think> in the content, then the call.
    pytest.param(
        Case(
            [
                chunk(content="<think>\nneed the weather\n</think>\n\n"),
                chunk(tc("get_weather", WEATHER_PARIS, id="get_weather")),
            ],
            [("get_weather", {"city": "Paris"})],
            thought="",
        ),
        id="qwen3-think-in-content-then-call",
    ),
    # llama.cpp before PR #13800, two different tools, name on every delta, no id.
    pytest.param(
        Case(
            [
                chunk(tc("get_weather", '{"city": ')),
                chunk(tc("get_weather", '"Paris"}')),
                chunk(tc("get_time", '{"tz": ')),
                chunk(tc("get_time", '"CET"}')),
            ],
            [("get_weather", {"city": "Paris"}), ("get_time", {"tz": "CET"})],
        ),
        id="llamacpp-name-every-delta-two-tools",
    ),
    # vLLM hermes parser: whitespace fragments around the JSON.
    pytest.param(
        Case(
            [
                chunk(tc("get_weather", "", id="chatcmpl-tool-1", index=0)),
                chunk(tc(arguments="\n", index=0)),
                chunk(tc(arguments=WEATHER_PARIS, index=0)),
                chunk(tc(arguments="\n", index=0)),
            ],
            [("get_weather", {"city": "Paris"})],
            ids=["chatcmpl-tool-1"],
        ),
        id="vllm-hermes-whitespace-fragments",
    ),
    # dify-plugin-sdks OAICompatLargeLanguageModel and the MiniMax plugin: parallel calls
    # of one tool, each complete, in one chunk without index; the first one's arguments
    # are not JSON as sent (repaired), the second still runs under its own id.
    pytest.param(
        Case(
            [
                chunk(
                    tc("get_weather", '{"city": Paris}', id="call_A"),
                    tc("get_weather", '{"city": "Rome"}', id="call_B"),
                ),
                chunk(finish_reason="tool_calls"),
            ],
            [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Rome"})],
            ids=["call_A", "call_B"],
        ),
        id="oaicompat-minimax-complete-calls-first-not-json",
    ),
    # tenstorrent/tt-inference-server#3683: the "json" of a fence's language leaks into
    # function.arguments.
    pytest.param(
        Case(
            [chunk(tc("get_weather", 'json\n{"city":"Paris"}', id="chatcmpl-tool-j", index=0), finish_reason="tool_calls")],
            [("get_weather", {"city": "Paris"})],
            ids=["chatcmpl-tool-j"],
        ),
        id="tt3683-json-word-in-arguments",
    ),
    # vllm-project/vllm#32152, #15274: the hermes parser drops the final "}" under MTP or
    # --stream-interval; the model ended the call itself.
    pytest.param(
        Case(
            [
                chunk(tc("get_weather", "", id="chatcmpl-tool-2", index=0)),
                chunk(tc(arguments='{"city": ', index=0)),
                chunk(tc(arguments='"Paris"', index=0)),
                chunk(finish_reason="tool_calls"),
            ],
            [("get_weather", {"city": "Paris"})],
            ids=["chatcmpl-tool-2"],
        ),
        id="vllm32152-hermes-final-brace-dropped",
    ),
]


@pytest.mark.parametrize("case", CASES)
def test_real_stream_shapes(case: Case):
    streamed, turn = run_turn(case.chunks)
    assert isinstance(turn.decision, ToolCalls), turn.decision
    assert turn.decision.invalid == ()
    calls = turn.decision.calls
    assert [(call.name, call.arguments) for call in calls] == case.calls
    ids = [call.id for call in calls]
    assert all(ids) and len(set(ids)) == len(ids)
    if case.ids is not None:
        assert ids == case.ids
    if case.thought is not None:
        assert turn.thought.strip() == case.thought.strip()
    for name, value in case.extra.items():
        assert getattr(turn, name) == value
    assert "<think>" not in streamed


def test_blocking_and_streamed_oaicompat_shapes_agree():
    """The same two calls streamed fragment by fragment and merged by the plugin."""
    arguments = '{"query": "知识库 检索", "top_k": 3}'
    streamed = [chunk(tc("search", "", id="call_1"))] + [chunk(tc(arguments=p)) for p in pieces(arguments, 4)]
    merged = [chunk(tc("search", arguments, id="call_1"), finish_reason="tool_calls")]
    assert run_turn(streamed)[1].decision == run_turn(merged)[1].decision
