"""The forty-fourth real-world pass (what reaches the plugin in a tool round) through the real
plugin process. Each stream starts as the provider's SSE text and reaches the strategy as the
official ``openai_api_compatible`` plugin hands it on (``test_real_world_2026ae.plugin_chunks``)
or as raw deltas passed on one by one (``test_real_world_2026ak.from_sse``); the runner replays
those chunks (see tests/unit/test_real_world_2026as.py for the shapes and sources).

One table: each case is the model's turns, the strategy, the tools, and what the user must get:
the tool run once with the right arguments and the call and its result under one id, or the
answer shown clean, or a clear message. The content-filter cases are this pass's fix: a reply
the provider's filter stopped after some text ends with a notice that says so, and replies it
stopped before any text end the run with an error that names the filter (before, the first was
shown as if whole and the second said the model "returned no answer", pointing at its output
limit)."""

from dataclasses import dataclass, field

import pytest

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import answer_turn, assert_clean_end
from tests.e2e.real_world import chunks_turn
from tests.unit.test_real_world_2026ae import ev, plugin_chunks, sse
from tests.unit.test_real_world_2026ak import from_sse
from tests.unit.test_real_world_2026as import ANSWER_STREAMS, CALL_STREAMS


def _stream(name: str, path: str) -> dict:
    body = (CALL_STREAMS.get(name) or ANSWER_STREAMS[name])[0]
    return chunks_turn(plugin_chunks(body) if path == "plugin" else from_sse(body))


def _filtered(text: str, reason: str = "content_filter") -> dict:
    """ravendb/ravendb PR #22997: an Azure reply the content filter stopped after ``text`` (none:
    before any), ``finish_reason: "content_filter"``; camunda/connectors PR #8272: Bedrock's
    ``guardrail_intervened`` as a plugin passing Converse's stop reason on hands it over (rebuilt)."""
    return chunks_turn(plugin_chunks(sse(ev(role="assistant", content=text), ev(reason))))


@dataclass
class Case:
    turns: list[dict]
    tools: dict[str, tuple[str, ...]] = field(default_factory=dict)  # tool name -> its parameters
    calls: list[tuple[str, dict]] = field(default_factory=list)  # what must run, in order
    text: str | None = None  # the whole answer shown (stripped), when the run ends well
    error: str | None = None  # a piece of the error the run ends with instead
    strategies: tuple[str, ...] = ("function_calling",)


DONE = {"text": "All done."}
FILTER_NOTICE = "content filter"

CASES = {
    # ---- tool-call streams (Function Calling) ------------------------------------------------
    "openaipython3521-two-index0-entries-plugin": Case(
        [_stream("openaipython3521-kimi-two-index0-entries-in-the-first-chunk", "plugin"), DONE],
        {"list_files": ("path",)}, [("list_files", {"path": "."})], "All done."),
    "openaipython3521-two-index0-entries-raw": Case(
        [_stream("openaipython3521-kimi-two-index0-entries-in-the-first-chunk", "raw"), DONE],
        {"list_files": ("path",)}, [("list_files", {"path": "."})], "All done."),
    "litellm37792-parallel-calls-both-index-0-plugin": Case(
        [_stream("litellm37792-ollama-parallel-calls-both-index-0-finish-stop", "plugin"), DONE],
        {"get_weather": ("city",)}, [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "London"})],
        "All done."),
    "litellm37792-parallel-calls-object-arguments-raw": Case(
        [_stream("litellm37792-ollama-parallel-calls-object-arguments", "raw"), DONE],
        {"get_weather": ("city",)}, [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "London"})],
        "All done."),
    "llamacpp12379-name-on-every-delta-id-inside-function-raw": Case(
        [_stream("llamacpp12379-name-on-every-delta-id-inside-function", "raw"), DONE],
        {"add_two_numbers": ("a", "b")}, [("add_two_numbers", {"a": "2", "b": "3"})], "All done."),
    "veryfront3815-kimi-null-fields-plugin": Case(
        [_stream("veryfront3815-kimi-k26-null-optional-fields", "plugin"), DONE],
        {"list_events": ("date",)}, [("list_events", {"date": "2026-08-18"})], "All done."),
    "sglang19662-deepseek-v32-character-pieces-raw": Case(
        [_stream("sglang19662-deepseek-v32-arguments-a-character-at-a-time", "raw"), DONE],
        {"summarize": ("text",)}, [("summarize", {"text": "分析本与同"})], "All done."),
    "agentframework5734-azure-delta-null-raw": Case(
        [_stream("agentframework5734-azure-delta-null-on-the-finish-chunk", "raw"), DONE],
        {"get_time": ("tz",)}, [("get_time", {"tz": "UTC"})], "All done."),
    "bifrost5206-bedrock-tool-turn-ended-end-turn-raw": Case(
        [_stream("bifrost5206-bedrock-tool-turn-ended-end-turn", "raw"), DONE],
        {"get_weather": ("city",)}, [("get_weather", {"city": "Seattle"})], "All done."),
    "langchain18977-azure-last-annotation-after-a-call-plugin": Case(
        [_stream("langchain18977-azure-last-annotation-chunk-after-a-call", "plugin"), DONE],
        {"search": ("query",)}, [("search", {"query": "azure quota"})], "All done."),
    # ---- answer streams (both strategies) -----------------------------------------------------
    "exo2092-null-fields-beside-reasoning": Case(
        [_stream("exo2092-null-fields-beside-reasoning-then-answer", "plugin")], {"search": ("query",)},
        text="Hi! How can I help?", strategies=("function_calling", "ReAct")),
    "chatgptshell155-azure-prompt-filter-chunk": Case(
        [_stream("chatgptshell155-azure-prompt-filter-chunk-then-text", "plugin")], {"search": ("query",)},
        text="Hello", strategies=("function_calling", "ReAct")),
    "litellm10686-no-finish-reason-raw": Case(
        [_stream("litellm10686-logprobs-beside-each-piece-no-finish-reason", "raw")], {"search": ("query",)},
        text="2", strategies=("function_calling", "ReAct")),
    # ---- the content filter -------------------------------------------------------------------
    # the answer the filter stopped part-way is shown, and a notice says the filter stopped it
    "ravendb22997-answer-stopped-by-the-filter-part-way": Case(
        [_filtered("The first step is to")], {"search": ("query",)},
        text="The first step is to", strategies=("function_calling", "ReAct")),
    # a reply the filter stopped before any text, again and again: an error naming the filter
    "ravendb22997-replies-stopped-by-the-filter-before-any-text": Case(
        [_filtered("") for _ in range(4)], {"search": ("query",)},
        error=FILTER_NOTICE, strategies=("function_calling", "ReAct")),
    "camunda8272-bedrock-guardrail-intervened-part-way": Case(
        [_filtered("The first step is to", "guardrail_intervened")], {"search": ("query",)},
        text="The first step is to", strategies=("function_calling", "ReAct")),
    # once, then an answer: the answer, nothing about the filter
    "ravendb22997-one-filtered-reply-then-an-answer": Case(
        [_filtered(""), {"text": "The quota is 300 a minute."}], {"search": ("query",)},
        text="The quota is 300 a minute."),
}


def _params():
    for name, case in CASES.items():
        for strategy in case.strategies:
            yield name, strategy


def _tool(name: str, params: tuple[str, ...]) -> ScriptedTool:
    return ScriptedTool(name=name, description=f"the {name} tool.", parameters=[ToolParam(p) for p in params],
                        responses=[text_message("done: 3 files") for _ in range(4)])


def _react(turn: dict) -> dict:
    """A plain text turn written as ReAct's answer step (a replayed stream stays as it is: ReAct
    takes a reply of plain text as its answer)."""
    return answer_turn("ReAct", turn["text"]) if set(turn) == {"text"} else turn


def _ids(request: dict) -> tuple[list[str], list[str]]:
    messages = request["prompt_messages"]
    calls = [c["id"] for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    return calls, [m["tool_call_id"] for m in messages if m["role"] == "tool"]


@pytest.mark.parametrize(("name", "strategy"), list(_params()))
def test_real_world_stream_through_the_plugin(run, name, strategy):
    case = CASES[name]
    turns = case.turns if strategy == "function_calling" else [_react(t) for t in case.turns]
    result = run(turns, query="Go.", tools=[_tool(n, p) for n, p in case.tools.items()], strategy=strategy)
    if case.error is not None:
        assert not result.ok and case.error in result.error_text, result.error_text
        assert result.unfinished_logs() == []
        assert "maximum output tokens" not in result.error_text
        return
    assert_clean_end(result)
    assert [(r["tool"], r["tool_parameters"]) for r in result.tool_requests] == case.calls
    shown = result.text.strip()
    if name.endswith("-part-way"):
        assert shown.startswith(case.text) and FILTER_NOTICE in shown[len(case.text):], shown
    else:
        assert shown == case.text
    if case.calls:
        calls, results = _ids(result.llm_requests[1])
        assert len(calls) == len(case.calls) == len(set(calls)) and sorted(calls) == sorted(results)
