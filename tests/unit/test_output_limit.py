"""agent_core.output_limit and its use in model_call.invoke_model: a reply whose usage shows it
reached the output limit, while no finish reason says it was cut (the Ollama plugin's ``stop``,
a blocking reply's none), is read as cut; nothing else is."""

from __future__ import annotations

from typing import Any

import pytest
from dify_plugin.entities.model.llm import LLMModelConfig

from agent_core import usage as usage_module
from agent_core.function_calling.turn import read_function_calling_turn
from agent_core.model_call import ModelChunk, ModelRequest, _ModelStream, invoke_model
from agent_core.output_limit import cut_by_usage, google_reason, is_filter_reason, output_limit, reply_end
from agent_core.react.json_step import read_json_step_turn
from agent_core.react.turn import read_react_turn
from agent_core.tool_calls import LENGTH_BY_USAGE, LENGTH_FINISH_REASONS
from agent_core.tool_schema import ToolRegistry
from tests.unit.helpers import drain


@pytest.mark.parametrize(("params", "limit"), [
    ({"max_tokens": 256}, 256),
    ({"num_predict": 128, "think": True}, 128),  # Ollama
    ({"max_output_tokens": 8192}, 8192),  # Gemini, Vertex AI
    ({"max_completion_tokens": 1000}, 1000),
    ({"max_tokens": 512.0}, 512),
    ({"max_tokens": 100, "num_predict": 300}, 300),  # the plugin reads one: the larger proves a cut
])
def test_the_output_limit_is_read_from_the_names_model_plugins_use(params, limit):
    assert output_limit(params) == limit


@pytest.mark.parametrize("params", [
    {}, None, {"temperature": 0.2},
    {"max_tokens": 0}, {"num_predict": -1}, {"num_predict": -2},  # Ollama: no limit, fill the context
    {"max_tokens": "256"}, {"max_tokens": "lots"}, {"max_tokens": True}, {"max_tokens": None},
    {"max_tokens": float("inf")}, {"max_tokens": float("nan")}, {"max_tokens": 0.5}, {"max_tokens": [256]},
])
def test_no_limit_is_read_where_none_is_set(params):
    assert output_limit(params) is None


@pytest.mark.parametrize("reason", [None, "stop", "STOP"])
def test_a_reply_that_reached_the_limit_with_no_reason_to_say_so_is_cut(reason):
    assert cut_by_usage(reason, 256, 256)


@pytest.mark.parametrize(("reason", "tokens", "limit"), [
    ("stop", 255, 256),  # short of it
    (None, 0, 256),  # usage missing or zero tells nothing
    (None, None, 256),
    ("stop", 256, None),  # no limit set
    ("stop", 300, 256),  # over it: a GPT-2 estimate, or reasoning outside the limit
    ("tool_calls", 256, 256),  # a plugin that names its provider's reasons would say length
    ("end_turn", 256, 256),
    ("tool_use", 256, 256),
    ("content_filter", 256, 256),
    ("length", 256, 256),  # already known as cut: nothing to add
])
def test_nothing_else_is_read_as_cut(reason, tokens, limit):
    assert not cut_by_usage(reason, tokens, limit)


def test_the_reason_added_is_a_length_reason():
    assert LENGTH_BY_USAGE in LENGTH_FINISH_REASONS


# --- through invoke_model ------------------------------------------------------------------------


def _chunk(content: str = "", *, usage: dict | None = None, finish_reason: str | None = None) -> dict[str, Any]:
    return {"model": "m", "delta": {"index": 0, "message": {"role": "assistant", "content": content},
                                    "usage": usage, "finish_reason": finish_reason}}


def _usage(completion: int) -> dict[str, Any]:
    return {"prompt_tokens": 10, "completion_tokens": completion, "total_tokens": 10 + completion}


def _reasons(monkeypatch, raws: list[dict], node: dict, lowered: dict | None = None,
             provider: str = "p") -> list[str | None]:
    """The finish reasons of the chunks ``invoke_model`` yields for a model plugin sending ``raws``
    to a node whose completion parameters are ``node`` (``lowered``: the request's own)."""
    return [chunk.finish_reason for chunk in _invoked(monkeypatch, raws, node, lowered, provider)]


def _invoked(monkeypatch, raws: list[dict], node: dict, lowered: dict | None = None,
             provider: str = "p") -> list[ModelChunk]:
    """The chunks ``invoke_model`` yields, as ``_reasons`` sets the call up."""
    sent: list[dict] = []

    def backwards_invoke(self, kind, data_type, payload):
        sent.append(payload)
        return (raw for raw in raws)

    monkeypatch.setattr(_ModelStream, "_backwards_invoke", backwards_invoke)
    model = LLMModelConfig(provider=provider, model="m", mode="chat", completion_params=node)
    request = ModelRequest(prompt_messages=[], completion_params=lowered or {})
    chunks = list(invoke_model(None, model, request))  # type: ignore[arg-type]
    assert sent
    return chunks


@pytest.mark.parametrize("last", [
    _chunk(" two", usage=_usage(64), finish_reason="stop"),  # Ollama streamed
    _chunk(" two", usage=_usage(64)),  # blocking: no finish reason
])
def test_a_reply_that_reached_the_limit_ends_with_a_length_reason(monkeypatch, last):
    reasons = _reasons(monkeypatch, [_chunk("one,"), last], {"max_tokens": 64})
    assert reasons[-1] == LENGTH_BY_USAGE and len(reasons) == 3


def test_the_usage_of_several_reports_counts_as_the_call_reports_it(monkeypatch):
    """A running total repeated on each chunk (include_usage on every chunk): its last report."""
    raws = [_chunk("a", usage=_usage(30)), _chunk("b", usage=_usage(64)), _chunk("", finish_reason="stop")]
    assert _reasons(monkeypatch, raws, {"num_predict": 64})[-1] == LENGTH_BY_USAGE


def test_the_limit_the_request_lowered_is_the_one_read(monkeypatch):
    """``budget.reply_limit`` sends a lower ``max_tokens`` when the prompt is long: that is the limit."""
    raws = [_chunk("one", usage=_usage(300), finish_reason="stop")]
    assert _reasons(monkeypatch, raws, {"max_tokens": 4096}, {"max_tokens": 300})[-1] == LENGTH_BY_USAGE


@pytest.mark.parametrize(("raws", "node"), [
    ([_chunk("one", usage=_usage(63), finish_reason="stop")], {"max_tokens": 64}),
    ([_chunk("one", finish_reason="stop")], {"max_tokens": 64}),  # no usage
    ([_chunk("one", usage=_usage(64), finish_reason="stop")], {}),  # no limit set
    ([_chunk("one", usage=_usage(64), finish_reason="tool_calls")], {"max_tokens": 64}),
    ([_chunk("one", usage=_usage(64), finish_reason="length")], {"max_tokens": 64}),
])
def test_a_reply_not_proven_cut_keeps_its_chunks_as_sent(monkeypatch, raws, node):
    assert _reasons(monkeypatch, raws, node) == [raw["delta"]["finish_reason"] for raw in raws]


READERS = {
    "ReAct": lambda chunks: read_react_turn(chunks, ToolRegistry(None), 1),
    "constrained steps": lambda chunks: read_json_step_turn(chunks, [], 1),
    "Function Calling": lambda chunks: read_function_calling_turn(chunks, []),
}


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize(("completions", "reason"), [((5, 7), None), ((30, 34), LENGTH_BY_USAGE)])
def test_a_reply_of_several_usage_reports_is_summed_once_and_counts_as_without_a_limit(
    monkeypatch, reader, completions, reason
):
    """The prompt reported once, then completion deltas: ``invoke_model`` sums them for the
    output limit's check and passes the sum on; the turn's usage (the round's and the run's) is
    the one the same reply has with no limit set, summed once."""
    raws = [_chunk("Final Answer: one", usage=_usage(completions[0])),
            _chunk(" two", usage={"completion_tokens": completions[1]}, finish_reason="stop")]
    unlimited = drain(READERS[reader](iter(_invoked(monkeypatch, raws, {}))))[1].usage
    sums: list[int] = []
    summed = usage_module.sum_usages
    monkeypatch.setattr(usage_module, "sum_usages", lambda usages: sums.append(1) or summed(usages))
    chunks = _invoked(monkeypatch, raws, {"max_tokens": 64})
    assert len(chunks) == 3 and chunks[-1].finish_reason == reason and chunks[-1].call_usage is not None
    usage = drain(READERS[reader](iter(chunks)))[1].usage
    assert usage == unlimited and usage.completion_tokens == sum(completions) and usage.prompt_tokens == 10
    assert len(sums) == 1
# --- a cut said on one chunk, another reason on a later one --------------------------------------


@pytest.mark.parametrize(("last", "first_cut", "added"), [
    ("stop", "length", "length"),  # length, then stop: cut
    ("tool_calls", "max_tokens", "max_tokens"),
    (None, "length", "length"),
    ("length", "length", None),
    ("MAX_TOKENS", "length", None),  # the last says cut too
    ("stop", None, None),  # never said cut
    (None, None, None),
])
def test_a_cut_said_anywhere_in_the_reply_is_its_end(last, first_cut, added):
    assert reply_end(last, first_cut) == added


@pytest.mark.parametrize("later", ["stop", "tool_calls", "end_turn", "STOP"])
@pytest.mark.parametrize("cut", ["length", "max_tokens", "MAX_TOKENS"])
def test_a_stream_that_says_cut_then_another_reason_ends_cut(monkeypatch, cut, later):
    raws = [_chunk("The sum", finish_reason=cut), _chunk(" is", finish_reason=later)]
    reasons = _reasons(monkeypatch, raws, {})
    assert reasons == [cut, later, cut]  # the chunks as sent, then the cut again: the last read wins


def test_a_cut_then_stop_at_the_limit_is_added_once(monkeypatch):
    """The usage equals the limit too: one reason added, the plugin's own cut reason."""
    raws = [_chunk("a", finish_reason="length"), _chunk("", usage=_usage(64), finish_reason="stop")]
    assert _reasons(monkeypatch, raws, {"max_tokens": 64}) == ["length", "stop", "length"]


@pytest.mark.parametrize("raws", [
    [_chunk("a", finish_reason="stop"), _chunk("", finish_reason="length")],  # the last says cut
    [_chunk("a", finish_reason="tool_calls"), _chunk("", finish_reason="stop")],  # Ollama: no cut
    [_chunk("a"), _chunk("", finish_reason="content_filter")],
])
def test_a_reply_whose_reasons_never_said_cut_before_its_last_keeps_its_chunks(monkeypatch, raws):
    assert _reasons(monkeypatch, raws, {}) == [raw["delta"]["finish_reason"] for raw in raws]


# --- Google's enum numbers -------------------------------------------------------------------------


@pytest.mark.parametrize(("reason", "provider", "read"), [
    ("2", "langgenius/vertex_ai/vertex_ai", "MAX_TOKENS"),
    ("1", "langgenius/vertex_ai/vertex_ai", "STOP"),
    ("2", "langgenius/gemini/google", "MAX_TOKENS"),
    ("2", "vertex_ai", "MAX_TOKENS"),
    ("3", "langgenius/vertex_ai/vertex_ai", "SAFETY"),  # the same number in both of Google's enums
    ("4", "langgenius/gemini/google", "RECITATION"),
    ("7", "langgenius/vertex_ai/vertex_ai", "7"),  # from 6 on the two enums differ: left as it came
    ("2", "langgenius/openai/openai", "2"),  # another plugin's number is its own
    ("2", "someone/vertex_ai_proxy/vertex", "2"),  # a name that only contains it
    ("length", "langgenius/vertex_ai/vertex_ai", "length"),
    ("2", None, "2"),
])
def test_a_google_plugin_s_enum_number_is_read_as_its_name(reason, provider, read):
    assert google_reason(reason, provider) == read


def test_vertex_ai_s_max_tokens_number_is_a_cut(monkeypatch):
    """The Vertex AI plugin's ``str(candidate.finish_reason)`` under Python 3.12: ``"2"``."""
    raws = [_chunk("The sum"), _chunk(" is", usage=_usage(7), finish_reason="2")]
    reasons = _reasons(monkeypatch, raws, {"max_output_tokens": 64}, provider="langgenius/vertex_ai/vertex_ai")
    assert reasons == [None, "MAX_TOKENS"]
    assert reasons[-1].lower() in LENGTH_FINISH_REASONS


def test_another_plugin_s_number_is_not_read_as_a_cut(monkeypatch):
    raws = [_chunk("Paris.", finish_reason="2")]
    assert _reasons(monkeypatch, raws, {}, provider="langgenius/openai/openai") == ["2"]


# --- a reply the provider's content or safety filter stopped ------------------------------------------


@pytest.mark.parametrize(("reason", "filtered"), [
    ("content_filter", True),  # OpenAI, Azure OpenAI
    ("CONTENT_FILTER", True),
    ("content_filtered", True),  # Amazon Bedrock's Converse stopReason (camunda/connectors PR #8272)
    ("guardrail_intervened", True),
    ("refusal", True),  # Anthropic's stop_reason (Claude 4's streaming classifiers)
    ("SAFETY", True),  # Google's Candidate.FinishReason
    ("RECITATION", True),
    ("PROHIBITED_CONTENT", True),
    ("stop", False),
    ("length", False),
    ("tool_calls", False),
    ("end_turn", False),
    ("", False),
    (None, False),
])
def test_is_filter_reason(reason, filtered):
    assert is_filter_reason(reason) is filtered


def test_vertex_ai_s_safety_number_is_a_filter_reason():
    """The Vertex AI plugin's ``str(candidate.finish_reason)`` under Python 3.12 is the enum's
    number: ``"3"`` is ``SAFETY`` in both Google enums; another plugin's ``"3"`` is its own."""
    assert is_filter_reason(google_reason("3", "langgenius/vertex_ai/vertex_ai"))
    assert not is_filter_reason(google_reason("3", "langgenius/openai/openai"))
