"""A forty-eighth set of real-world cases: Claude and Gemini reached through OpenAI-compatible
proxies and gateways. Public issues and pull requests of gateways and their clients (Higress,
OpenRouter, hebo-gateway, kern-ai on Google's OpenAI-compatible endpoint, Bifrost, Portkey,
CLIProxyAPI, inspect_ai, ailoy) quote replies where Claude's ``tool_use`` became a call under a
``toolu_`` id whose arguments arrive after an empty first piece, Gemini's call came without an
``index`` and with its thought signature in ``extra_content``, the finish reason was the other
provider's (``tool_use``, ``MAX_TOKENS``, ``error``), or thinking arrived as ``<thinking>`` /
``<think signature=...>`` text in the answer.

Replies are read through both strategies' turn readers, whole and in pieces of 1 and 7 characters
(``test_real_world_2026.reply_test``); streams start as SSE text and go through the model plugin's
conversion (``test_real_world_2026ae.plugin_chunks``). Each case names its source beside it;
docs/real-world-cases.md lists them. "rebuilt" marks values filled in around what the report
quotes.
"""

import pytest

from agent_core.turn import FinalAnswer
from tests.unit.test_real_world_2026 import Case, reply_test, tool
from tests.unit.test_real_world_2026ae import call_triples, ev, fn, plugin_chunks, read_fc, read_react, sse, tc
from tests.unit.test_real_world_2026d import read

SEARCH = tool("search", "query")

# router-for-me/CLIProxyAPI#1777: Claude's thinking arrived as text wrapped in <thinking> tags in
# front of the answer (the tags as the report names them; the texts rebuilt)
CLIPROXY1777_THINKING = "<thinking>\nThe user wants the capital of Australia. That is Canberra.\n</thinking>\n"
CLIPROXY1777_ANSWER = "The capital of Australia is Canberra."

# router-for-me/CLIProxyAPI#2803: a prompted chain of thought, "<think>" on its own line before
# the thinking (the instruction verbatim in the report; the reply rebuilt)
CLIPROXY2803_THINKING = "<think>\nThe user asks for 12 * 12. 12 * 12 = 144.\n</think>\n"
CLIPROXY2803_ANSWER = "12 × 12 = 144."

# UKGovernmentBEIS/inspect_ai PR #4979: Gemini through OpenRouter copied a replayed
# `<think signature="reasoning-details://...">` block into its answer (the tag's form verbatim; the
# signature and texts rebuilt)
INSPECT4979_THINKING = ('<think signature="reasoning-details://eyJ0eXBlIjoicmVhc29uaW5nLmVuY3J5cHRlZCJ9">\n'
                        "I looked the answer up in the last round.\n</think>\n")
INSPECT4979_ANSWER = "The answer is 42."

CASES = {
    "cliproxy1777-claude-thinking-tags-before-the-answer": Case(
        (SEARCH,), CLIPROXY1777_THINKING + CLIPROXY1777_ANSWER, answer=CLIPROXY1777_ANSWER,
        hidden=("<thinking>", "That is Canberra."),
    ),
    "cliproxy2803-prompted-think-on-its-own-line": Case(
        (SEARCH,), CLIPROXY2803_THINKING + CLIPROXY2803_ANSWER, answer=CLIPROXY2803_ANSWER,
        hidden=("<think>", "12 * 12 = 144."),
    ),
    "inspect4979-gemini-echoes-a-signed-think-block": Case(
        (SEARCH,), INSPECT4979_THINKING + INSPECT4979_ANSWER, answer=INSPECT4979_ANSWER,
        hidden=("reasoning-details://", "<think"),
    ),
}

GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md
}

test_real_world_reply = reply_test(CASES, GAPS, read)


# ---- tool-call streams through the model plugin, Function Calling ----------------------------------
# name: (SSE body, tools, text shown, [(id, name, arguments)])

CALL_STREAMS = {
    # higress-group/higress PR #3507: Claude's tool_use as an OpenAI call, the head with a `toolu_`
    # id and empty arguments, the input JSON in the next delta (both deltas verbatim)
    "higress3507-claude-toolu-id-empty-head-then-input": (
        sse(
            ev(tool_calls=[{"id": "toolu_xxx", "type": "function", "function": {"name": "get_time", "arguments": ""}}]),
            ev(tool_calls=[{"function": {"arguments": "{\"tz\":\"Asia/Tokyo\"}"}}]),
            ev("tool_calls"),
        ),
        ["get_time"], "", [("toolu_xxx", "get_time", {"tz": "Asia/Tokyo"})],
    ),
    # 8monkey-ai/hebo-gateway#226: Gemini on Vertex through a gateway, the call under a short
    # opaque id, no index, the thought signature in `extra_content.vertex` (verbatim; the
    # signature as the report trims it)
    "hebo226-vertex-signature-in-extra-content": (
        sse(
            ev(tool_calls=[{"id": "UUfgKSyzGPn6mEIk",
                            "function": {"name": "bash", "arguments": "{\"command\":\"ls skills\"}"},
                            "extra_content": {"vertex": {"thought_signature": "AY89a18IwQsQ8in/..."}}}]),
            ev("tool_calls"),
        ),
        ["bash"], "", [("UUfgKSyzGPn6mEIk", "bash", {"command": "ls skills"})],
    ),
    # oguzbilgic/kern-ai PR #336: Google's OpenAI-compatible endpoint sends the whole call in one
    # delta with role, no index and `extra_content.google.thought_signature` (the delta verbatim,
    # the signature as the report trims it)
    "kernai336-google-endpoint-call-without-index": (
        sse(
            {"choices": [{"delta": {"role": "assistant", "tool_calls": [{
                "extra_content": {"google": {"thought_signature": "EmcKZQERTTIPB2..."}},
                "function": {"arguments": "{\"query\":\"host access mounts\"}", "name": "recall"},
                "id": "call_1700666", "type": "function"}]}, "index": 0}],
             "object": "chat.completion.chunk", "id": "chatcmpl-1"},
            ev("tool_calls"),
        ),
        ["recall"], "", [("call_1700666", "recall", {"query": "host access mounts"})],
    ),
    # maximhq/bifrost#617: Claude Sonnet 4 on Bedrock through Bifrost's /v1/chat/completions ends a
    # turn with text and a call under finish_reason "tool_use" (the text and the reason verbatim;
    # the call rebuilt, its arguments are elided in the report)
    "bifrost617-finish-reason-tool-use": (
        sse(
            ev(role="assistant", content="I'll search your journal entries for information about the last time you "
                                         "ate out at Zaviya Grill."),
            ev(tool_calls=[tc(index=0, id="toolu_bdrk_01", type="function",
                              function=fn("search_journal", '{"query": "Zaviya Grill"}'))]),
            ev("tool_use"),
        ),
        ["search_journal"],
        "I'll search your journal entries for information about the last time you ate out at Zaviya Grill.",
        [("toolu_bdrk_01", "search_journal", {"query": "Zaviya Grill"})],
    ),
    # lobehub/lobehub PR #3835 (its OpenAIStream test): Claude 3.5 Sonnet through OpenRouter, text,
    # then the call at index 1 (no index 0) with empty arguments, the arguments in two pieces, an
    # empty text delta carrying "tool_calls", and one more empty delta after it with the usage
    # (the chunks verbatim)
    "lobehub3835-openrouter-claude-call-at-index-one-empty-deltas-after": (
        sse(
            ev(role="assistant", content="为了回答您关于杭州天气的问题，我需要使用实时天气查询工具来获取最新的天气信息。让我为您查询一下。"),
            ev(role="assistant", content=None, tool_calls=[{
                "id": "toolu_01M368ZnDFfJwaiVGL4evqhn", "index": 1, "type": "function",
                "function": {"name": "realtime-weather____fetchCurrentWeather", "arguments": ""}}]),
            ev(role="assistant", content=None, tool_calls=[{"index": 1, "type": "function",
                                                             "function": {"arguments": "{\"city\""}}]),
            ev(role="assistant", content=None, tool_calls=[{"index": 1, "type": "function",
                                                             "function": {"arguments": ":\"杭州\"}"}}]),
            ev("tool_calls", role="assistant", content=""),
            ev(None, {"prompt_tokens": 474, "completion_tokens": 114, "total_tokens": 588}, role="assistant", content=""),
        ),
        ["realtime-weather____fetchCurrentWeather"],
        "为了回答您关于杭州天气的问题，我需要使用实时天气查询工具来获取最新的天气信息。让我为您查询一下。",
        [("toolu_01M368ZnDFfJwaiVGL4evqhn", "realtime-weather____fetchCurrentWeather", {"city": "杭州"})],
    ),
    # brekkylab/ailoy PR #334: Gemini ends a call turn with "stop", not "tool_calls" (the reason as
    # the PR names it; the call rebuilt)
    "ailoy334-gemini-call-turn-finishes-stop": (
        sse(
            ev(role="assistant", content="", tool_calls=[tc(index=0, id="call_0", type="function",
                                                            function=fn("get_weather", '{"city": "Seoul"}'))]),
            ev("stop"),
        ),
        ["get_weather"], "", [("call_0", "get_weather", {"city": "Seoul"})],
    ),
}


@pytest.mark.parametrize("name", list(CALL_STREAMS))
def test_real_world_proxy_call_stream_through_the_plugin(name):
    body, tools, shown, expected = CALL_STREAMS[name]
    streamed, turn = read_fc(plugin_chunks(body), tools)
    assert streamed.strip() == shown
    assert call_triples(turn) == expected


# ---- answer streams through the model plugin, both strategies ---------------------------------------

# OpenRouterTeam/openrouter-examples#67: Gemini's MALFORMED_FUNCTION_CALL through OpenRouter came as
# finish_reason "error" with null content (the choice verbatim)
OPENROUTER67 = sse(ev("error", role="assistant", content=None))

# Portkey-AI/gateway#1200: Gemini's cut answers kept Google's reason "MAX_TOKENS" (the reason
# verbatim; the text rebuilt)
PORTKEY1200 = sse(
    ev(role="assistant", content="def add(a, b):\n    # Adds two numbers"),
    ev("MAX_TOKENS", content=" and returns"),
)


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_openrouter67_an_error_finish_with_no_content_is_no_answer(strategy):
    """An empty reply under ``error`` is not an answer: nothing is shown, and the turn keeps the
    reason so the run can name it (``turn.finish_reason``)."""
    streamed, turn = (read_react if strategy == "react" else read_fc)(plugin_chunks(OPENROUTER67), ["search"])
    assert streamed.strip() == ""
    assert turn.finish_reason == "error"
    assert not (isinstance(turn.decision, FinalAnswer) and turn.decision.text.strip())


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_portkey1200_max_tokens_is_a_cut_answer(strategy):
    """Google's ``MAX_TOKENS`` is OpenAI's ``length``: the answer read so far is the answer, and the
    turn says it was cut (``output_limit``)."""
    from agent_core.output_limit import is_cut_reason

    streamed, turn = (read_react if strategy == "react" else read_fc)(plugin_chunks(PORTKEY1200), ["search"])
    assert "def add(a, b):" in streamed
    assert is_cut_reason(turn.finish_reason)


# ---- the fix for inspect_ai#4979: a `<think signature="...">` block echoed into the answer ---------


def _split(text: str, size: int) -> tuple[str, str]:
    from agent_core.think import REASONING, VISIBLE, ThinkSplitter, clean_reasoning

    splitter, pieces = ThinkSplitter(), []
    for at in range(0, len(text), size):
        pieces += splitter.pieces(text[at : at + size])
    pieces += splitter.release_pieces(ended=True)
    visible = "".join(t for kind, t in pieces if kind == VISIBLE)
    return visible, clean_reasoning("".join(t for kind, t in pieces if kind == REASONING))


@pytest.mark.parametrize("size", [1, 7, 1000])
def test_a_signed_think_block_is_reasoning_streamed_in_any_pieces(size):
    """Before the fix ``<think signature="...">`` was no opener: Function Calling streamed the
    block's text and its signature to the user (only the later ``</think>`` was dropped). Now
    the block is reasoning, the signature is not in the log's reasoning, the answer is shown."""
    visible, reasoning = _split(INSPECT4979_THINKING + INSPECT4979_ANSWER, size)
    assert visible.strip() == INSPECT4979_ANSWER
    assert reasoning.strip() == "I looked the answer up in the last round."


@pytest.mark.parametrize("text", [
    'Write `<think signature="x">` to replay a block.',  # the tag quoted as code: the answer's text
    "<think signatures are not tags> here",  # no "=": not the opener
])
def test_a_signed_think_written_as_text_stays_text(text):
    visible, reasoning = _split(text, 7)
    assert visible == text and reasoning == ""


def test_a_reasoning_that_starts_with_a_quote_is_kept_whole():
    from agent_core.think import clean_reasoning

    assert clean_reasoning('"Hi," she said. "Go>') == '"Hi," she said. "Go>'
    assert clean_reasoning('"Hi" she said') == '"Hi" she said'
