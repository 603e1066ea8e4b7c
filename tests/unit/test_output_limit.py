"""agent_core.output_limit and its use in model_call.invoke_model: a reply whose usage shows it
reached the output limit, while no finish reason says it was cut (the Ollama plugin's ``stop``,
a blocking reply's none), is read as cut; nothing else is."""

from __future__ import annotations

from typing import Any

import pytest
from dify_plugin.entities.model.llm import LLMModelConfig

from agent_core.model_call import ModelRequest, _ModelStream, invoke_model
from agent_core.output_limit import cut_by_usage, output_limit
from agent_core.tool_calls import LENGTH_BY_USAGE, LENGTH_FINISH_REASONS


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


def _reasons(monkeypatch, raws: list[dict], node: dict, lowered: dict | None = None) -> list[str | None]:
    """The finish reasons of the chunks ``invoke_model`` yields for a model plugin sending ``raws``
    to a node whose completion parameters are ``node`` (``lowered``: the request's own)."""
    sent: list[dict] = []

    def backwards_invoke(self, kind, data_type, payload):
        sent.append(payload)
        return (raw for raw in raws)

    monkeypatch.setattr(_ModelStream, "_backwards_invoke", backwards_invoke)
    model = LLMModelConfig(provider="p", model="m", mode="chat", completion_params=node)
    request = ModelRequest(prompt_messages=[], completion_params=lowered or {})
    reasons = [chunk.finish_reason for chunk in invoke_model(None, model, request)]  # type: ignore[arg-type]
    assert sent
    return reasons


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
