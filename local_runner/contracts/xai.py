"""Grok behind Dify's official xAI model plugin (``grok-4.6``, the plugin's newest model).

Model plugin: ``langgenius/dify-official-plugins`` ``models/x/models/llm/llm.py`` (commit
1e1bf297b10811c2ed7b0a9500ce0ff7bc7d2b7b, the newest stored, with
``tests/test_llm_reasoning_parameters.py``; re-read in wave 37) on the SDK's OpenAI-compatible
base, whose stream handler and conversion it keeps unchanged (see ``sdk_base``): chat
completions, calls with xAI's ids, the content sent back as it is, nothing merged. The plugin
drops ``stop`` (``stop_sequences`` too) and the penalties for every reasoning model
(``_is_reasoning_model``: ``grok-3-mini``, ``grok-3-mini-fast``, any name starting ``grok-4``,
``grok-code`` or ``grok-build``, or ending ``-reasoning``; never one containing
``-non-reasoning``), so ``grok-4.6`` gets no stop sequences. ``XAIListedModelsContract`` below
re-states the earlier version (ead96ffa42237ba2a9ec4520b36ae86af6112c47, model file
``grok-4.6.yaml`` at 47834138…), which dropped them only for the models it listed
(``REASONING_MODELS``: ``grok-4.5``, ``grok-4.3``, ``grok-4-0709``, ``grok-3-mini``…), not
``grok-4.6``: there a request with stop sequences reached xAI and was refused.

Chunks: Grok 4 returns no reasoning text on chat completions (its reasoning is only available
encrypted, on xAI's Responses API, which the plugin does not use), so the replies carry text and
tool calls only: streamed as the SDK base yields them (calls complete after the text, then a last
chunk with ``finish_reason`` and usage), blocking in one chunk. No ``opaque_body``.

Provider rules enforced (https://docs.x.ai/docs/guides/reasoning: ``stop`` is not supported by
reasoning models): a request that reaches xAI with ``stop`` for a reasoning model is refused with
xAI's 400 ("Model grok-4.6 does not support parameter stop."), recorded in ``plugin_failures``
(as the other refusals of a request's settings, not of its messages: a run on the earlier
version is expected to meet it once, then send no stop); OpenAI-style tool pairing; an assistant
message needs content or calls.
"""

from __future__ import annotations

from typing import Any

from local_runner.contracts.base import BrainCall, PluginFailure
from local_runner.contracts.sdk_base import ReasoningFreeSDKContract

STOP_REFUSAL = "Model grok-4.6 does not support parameter stop."
REASONING_UNSUPPORTED = ("presence_penalty", "frequency_penalty", "presencePenalty", "frequencyPenalty",
                         "stop", "stop_sequences", "stopSequences")
"""What the plugin removes from the completion parameters of a reasoning model (1e1bf29)."""


def is_reasoning_model(model: str) -> bool:
    """The plugin's ``_is_reasoning_model`` at 1e1bf29 (``True`` for ``grok-4.6``)."""
    if "-non-reasoning" in model:
        return False
    return model in ("grok-3-mini", "grok-3-mini-fast") or model.startswith(("grok-4", "grok-code", "grok-build")) \
        or model.endswith("-reasoning")


class XAIContract(ReasoningFreeSDKContract):
    """``grok-4.6`` behind the official xAI model plugin (see the module docstring)."""

    name = "x"
    plugin_source = "langgenius/dify-official-plugins models/x/models/llm/llm.py"
    provider_doc = "https://docs.x.ai/docs/guides/reasoning"
    provider = "langgenius/x/x"
    model = "grok-4.6"
    features = ("vision", "agent-thought", "tool-call", "multi-tool-call", "stream-tool-call")

    def check_roles(self, body: dict[str, Any]) -> None:
        """xAI takes consecutive messages of one role."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.plugin_failures: list[str] = []
        """xAI's refusals of ``stop``, in order."""

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        if is_reasoning_model(str(request.get("model") or "")):
            params = {k: v for k, v in (request.get("completion_params") or {}).items() if k not in REASONING_UNSUPPORTED}
            request = {**request, "stop": None, "completion_params": params}
        return self.refusing_stop(request)

    def refusing_stop(self, request: dict[str, Any]) -> dict[str, Any]:
        """The body for ``request``; xAI refuses the stop sequences it still carries for a reasoning
        model (its documented rule, read as the plugin's families)."""
        if request.get("stop") and is_reasoning_model(str(request.get("model") or "")):
            self.plugin_failures.append(STOP_REFUSAL)
            raise PluginFailure(f"[x] Error code: 400 - {{'code': 'invalid-argument', 'error': '{STOP_REFUSAL}'}}")
        return super().to_provider(request)

    @staticmethod
    def call_id(call: BrainCall) -> str:
        """xAI's id for a tool call."""
        return f"call_{call.id}"


class XAIListedModelsContract(XAIContract):
    """``grok-4.6`` behind the plugin's earlier version (ead96ff…), which dropped ``stop`` only for
    the reasoning models it listed: the stop sequences of a ReAct request reach xAI, which refuses
    them (the strategy then sends the request again without them)."""

    name = "x_ead96ff"

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        return self.refusing_stop(request)
