"""The matcher for model plugin errors that say the output limit cut the reply (``cut_errors``),
and how a model call's chunks end on one (``model_call.invoke_model``)."""

import json

import pytest
from dify_plugin.entities.model.llm import LLMModelConfig

from agent_core.cut_errors import CUT_IN_TOOL_CALL, cut_error_reason
from agent_core.errors import error_text
from agent_core.model_call import ModelRequest, ModelTimeoutError, PastDeadlineError, _ModelStream, invoke_model
from agent_core.output_limit import is_cut_reason

ANTHROPIC = "Anthropic returned incomplete tool arguments (stop_reason=max_tokens). Increase max_tokens and retry."


def sdk_wrapped(message: str) -> str:
    """The message as Dify quotes a plugin's error object after ``PluginInvokeError:``."""
    body = {"args": {"traceback": "Traceback (most recent call last):\n  File \"llm.py\"\nInvokeError"},
            "error_type": "InvokeError", "message": message}
    return f"[models] Error: PluginInvokeError: {json.dumps(body)}"


@pytest.mark.parametrize("text", [
    ANTHROPIC,
    ANTHROPIC.replace("max_tokens)", "model_context_window_exceeded)"),
    f"invoke llm model failed: {ANTHROPIC}",  # the daemon's words around it
    error_text(Exception(sdk_wrapped(ANTHROPIC))),
    "x" * 1_000_000 + ANTHROPIC,  # at the end of a message of megabytes
])
def test_the_anthropic_plugin_s_cut_error_is_read_as_a_cut_in_a_tool_call(text):
    assert cut_error_reason(text) == CUT_IN_TOOL_CALL
    assert is_cut_reason(CUT_IN_TOOL_CALL)  # the strategies read it as any cut


@pytest.mark.parametrize("text", [
    "upstream 502",
    "",
    # the same words with a stop reason that is no cut: the plugin's JSON was broken otherwise
    "Anthropic returned incomplete tool arguments (stop_reason=end_turn). Increase max_tokens and retry.",
    "Anthropic returned incomplete tool arguments (stop_reason=None). Increase max_tokens and retry.",
    # errors about tokens and limits that are not a cut reply
    "max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for claude",
    "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens",
    "Error code: 400 - finish_reason length is not supported",
    "Rate limit reached: too many output tokens per minute",
    "returned incomplete tool arguments",
])
def test_other_errors_are_no_cut(text):
    assert cut_error_reason(text) is None


def invoked(monkeypatch, error: BaseException, cut_errors: list[str]) -> list:
    """The chunks ``invoke_model`` yields for a model plugin that streams "Let me" and " check."
    (its second chunk with usage), then raises ``error``."""

    def stream():
        yield {"delta": {"index": 0, "message": {"role": "assistant", "content": "Let me"}}}
        usage = {"prompt_tokens": 30, "completion_tokens": 4, "total_tokens": 34}
        yield {"delta": {"index": 0, "message": {"role": "assistant", "content": " check."}, "usage": usage}}
        raise error

    monkeypatch.setattr(_ModelStream, "_backwards_invoke", lambda self, kind, data_type, payload: stream())
    model = LLMModelConfig(provider="langgenius/anthropic/anthropic", model="m", mode="chat", completion_params={})
    reported: list = []
    chunks = []
    try:
        for chunk in invoke_model(None, model, ModelRequest(prompt_messages=[]),  # type: ignore[arg-type]
                                  reported=reported, problems=[], cut_errors=cut_errors):
            chunks.append(chunk)
    finally:
        assert [usage.completion_tokens for usage in reported] == [4]  # what was billed is kept either way
    return chunks


def test_a_cut_error_ends_the_chunks_with_a_cut_finish_reason_and_is_kept_for_the_log(monkeypatch):
    seen: list[str] = []
    chunks = invoked(monkeypatch, RuntimeError(sdk_wrapped(ANTHROPIC)), seen)
    assert "".join(chunk.text for chunk in chunks) == "Let me check."  # what streamed is kept
    assert chunks[-1].finish_reason == CUT_IN_TOOL_CALL and not chunks[-1].tool_calls
    assert seen == [f"[models] Error: PluginInvokeError: InvokeError: {ANTHROPIC}"]


@pytest.mark.parametrize("error", [
    RuntimeError("upstream 502"),
    RuntimeError(ANTHROPIC.replace("max_tokens)", "end_turn)")),
    ModelTimeoutError(ANTHROPIC),  # the run's own errors are never read as a plugin's cut
    PastDeadlineError(ANTHROPIC),
])
def test_any_other_error_goes_on_after_the_chunks_that_came(monkeypatch, error):
    seen: list[str] = []
    with pytest.raises(type(error)) as raised:
        invoked(monkeypatch, error, seen)
    assert raised.value is error and seen == []
