"""The forty-eighth real-world pass (Claude and Gemini through OpenAI-compatible proxies and
gateways) through the real plugin process. Each case is a reply a public report quotes (see
tests/unit/test_real_world_2026aw.py for the texts and their sources), sent as the model's turn,
and what the user must get: thinking the proxy left in the text (``<thinking>``, a prompted
``<think>``, Gemini's echoed ``<think signature=...>``) kept out of the answer; a call the gateway
converted (a ``toolu_`` id with empty first arguments, no ``index`` and a thought signature in
``extra_content``, the finish reason ``tool_use``) run once with its arguments; an empty reply
under ``error`` asked again; and an answer cut under Google's ``MAX_TOKENS`` continued."""

import pytest

from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean, tools_ran
from tests.e2e.real_world import Reply, Tool, play_reply, reply_params
from tests.unit.test_real_world_2026aw import (
    CLIPROXY1777_ANSWER,
    CLIPROXY1777_THINKING,
    CLIPROXY2803_ANSWER,
    CLIPROXY2803_THINKING,
    INSPECT4979_ANSWER,
    INSPECT4979_THINKING,
)

REPLIES = [
    # router-for-me/CLIProxyAPI#1777
    Reply("cliproxy1777-claude-thinking-tags-before-the-answer", CLIPROXY1777_THINKING + CLIPROXY1777_ANSWER, 7,
          "What is the capital of Australia?", CLIPROXY1777_ANSWER, tools=(Tool("search", ("query",)),),
          hidden=("<thinking>", "That is Canberra.")),
    # router-for-me/CLIProxyAPI#2803
    Reply("cliproxy2803-prompted-think-on-its-own-line", CLIPROXY2803_THINKING + CLIPROXY2803_ANSWER, 7,
          "What is 12 * 12?", CLIPROXY2803_ANSWER, tools=(Tool("search", ("query",)),),
          hidden=("<think>", "12 * 12 = 144.")),
    # UKGovernmentBEIS/inspect_ai PR #4979
    Reply("inspect4979-gemini-echoes-a-signed-think-block", INSPECT4979_THINKING + INSPECT4979_ANSWER, 7,
          "What was the answer?", INSPECT4979_ANSWER, tools=(Tool("search", ("query",)),),
          hidden=("reasoning-details://", "<think")),
]


@pytest.mark.parametrize(("case", "strategy"), reply_params(REPLIES))
def test_real_world_proxy_reply(run, case, strategy):
    play_reply(run, strategy, case)


# name: (the model's first turn, tool name, parameters, [(tool, arguments)] the run must make)
CALL_TURNS = {
    # higress-group/higress PR #3507: the `toolu_` head with empty arguments, the input next
    "higress3507-claude-toolu-id-empty-head-then-input": (
        {"chunks": [{"tool_calls": [{"index": 0, "id": "toolu_xxx", "type": "function",
                                     "function": {"name": "get_time", "arguments": ""}}]},
                    {"tool_calls": [{"index": 0, "function": {"arguments": "{\"tz\":\"Asia/Tokyo\"}"}}]}],
         "finish_reason": "tool_calls"},
        "get_time", ("tz",), [("get_time", {"tz": "Asia/Tokyo"})],
    ),
    # 8monkey-ai/hebo-gateway#226: no index, a short opaque id, the signature in extra_content
    "hebo226-vertex-signature-in-extra-content": (
        {"chunks": [{"tool_calls": [{"id": "UUfgKSyzGPn6mEIk",
                                     "function": {"name": "bash", "arguments": "{\"command\":\"ls skills\"}"},
                                     "extra_content": {"vertex": {"thought_signature": "AY89a18IwQsQ8in/..."}}}]}],
         "finish_reason": "tool_calls"},
        "bash", ("command",), [("bash", {"command": "ls skills"})],
    ),
    # oguzbilgic/kern-ai PR #336: Google's endpoint, the whole call in one delta, no index
    "kernai336-google-endpoint-call-without-index": (
        {"chunks": [{"tool_calls": [{"extra_content": {"google": {"thought_signature": "EmcKZQERTTIPB2..."}},
                                     "function": {"arguments": "{\"query\":\"host access mounts\"}", "name": "recall"},
                                     "id": "call_1700666", "type": "function"}]}],
         "finish_reason": "tool_calls"},
        "recall", ("query",), [("recall", {"query": "host access mounts"})],
    ),
    # maximhq/bifrost#617: text, a call, and Anthropic's "tool_use" as the finish reason
    "bifrost617-finish-reason-tool-use": (
        {"text": "I'll search your journal entries for information about the last time you ate out at Zaviya Grill.",
         "tool_calls": [{"id": "toolu_bdrk_01", "name": "search_journal", "arguments": "{\"query\": \"Zaviya Grill\"}"}],
         "finish_reason": "tool_use"},
        "search_journal", ("query",), [("search_journal", {"query": "Zaviya Grill"})],
    ),
    # lobehub/lobehub PR #3835: OpenRouter's Claude call at index 1, empty text deltas after it
    "lobehub3835-openrouter-claude-call-at-index-one-empty-deltas-after": (
        {"chunks": [{"content": "为了回答您关于杭州天气的问题，我需要使用实时天气查询工具来获取最新的天气信息。让我为您查询一下。"},
                    {"tool_calls": [{"id": "toolu_01M368ZnDFfJwaiVGL4evqhn", "index": 1, "type": "function",
                                     "function": {"name": "realtime-weather____fetchCurrentWeather", "arguments": ""}}]},
                    {"tool_calls": [{"index": 1, "type": "function", "function": {"arguments": "{\"city\""}}]},
                    {"tool_calls": [{"index": 1, "type": "function", "function": {"arguments": ":\"杭州\"}"}}]},
                    {"content": "", "finish_reason": "tool_calls"},
                    {"content": ""}],
         "finish_reason": None},
        "realtime-weather____fetchCurrentWeather", ("city",),
        [("realtime-weather____fetchCurrentWeather", {"city": "杭州"})],
    ),
    # brekkylab/ailoy PR #334: Gemini's call turn ends with "stop"
    "ailoy334-gemini-call-turn-finishes-stop": (
        {"text": "", "tool_calls": [{"id": "call_0", "name": "get_weather", "arguments": "{\"city\": \"Seoul\"}"}],
         "finish_reason": "stop"},
        "get_weather", ("city",), [("get_weather", {"city": "Seoul"})],
    ),
}


@pytest.mark.parametrize("name", list(CALL_TURNS))
def test_real_world_proxy_call_runs_once(run, name):
    """Function Calling: the converted call runs once with its arguments and the next turn's
    answer is shown."""
    turn, tool_name, params, ran = CALL_TURNS[name]
    tools = [Tool(tool_name, params).build()]
    result = run([turn, answer_turn("function_calling", "Done.")], query="Go.", tools=tools,
                 strategy="function_calling")
    assert_clean(result, run)
    assert tools_ran(result) == ran
    assert result.text.strip().endswith("Done.")


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_openrouter67_an_empty_error_reply_is_asked_again(run, strategy):
    """OpenRouterTeam/openrouter-examples#67: Gemini's MALFORMED_FUNCTION_CALL came through as an
    empty reply under ``error``. It is no answer: the model is asked again and its next answer
    shown, nothing shown of the empty one."""
    turns = [{"text": "", "finish_reason": "error"}, answer_turn(strategy, "Sunny in Paris.")]
    result = run(turns, query="Weather in Paris?", tools=[Tool("get_weather", ("city",)).build()], strategy=strategy)
    assert_clean(result, run)
    assert len(run.backend.requests) == 2
    assert result.text.strip() == "Sunny in Paris."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_portkey1200_an_answer_cut_under_max_tokens_is_continued(run, strategy):
    """Portkey-AI/gateway#1200: Gemini's cut answer kept Google's ``MAX_TOKENS``. It is read as a
    cut (OpenAI's ``length``): the model is asked for the rest and the user gets the whole answer."""
    first = answer_turn(strategy, "def add(a, b):\n    # Adds two numbers and")
    first["finish_reason"] = "MAX_TOKENS"
    turns = [first, {"text": " returns their sum\n    return a + b", "finish_reason": "stop"}]
    result = run(turns, query="Comment this code.", strategy=strategy)
    assert_clean(result, run)
    assert len(run.backend.requests) == 2
    assert "return a + b" in result.text and "def add(a, b):" in result.text
