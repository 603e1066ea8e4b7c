"""Grok behind Dify's official xAI model plugin (``grok-4.6``, the plugin's newest model).

Model plugin: ``langgenius/dify-official-plugins`` ``models/x/models/llm/llm.py`` (commit
ead96ffa42237ba2a9ec4520b36ae86af6112c47, model file ``grok-4.6.yaml`` at 47834138…) on the SDK's
OpenAI-compatible base, whose stream handler and conversion it keeps unchanged (see
``sdk_base``): chat completions, calls with xAI's ids, the content sent back as it is, nothing
merged. The plugin drops ``stop`` (and the penalties) only for the reasoning models it lists
(``REASONING_MODELS``: ``grok-4.5``, ``grok-4.3``, ``grok-4-0709``, ``grok-3-mini``…, or a name
ending in ``-reasoning``); ``grok-4.6`` is not among them, so a request with stop sequences
reaches xAI.

Chunks: Grok 4 returns no reasoning text on chat completions (its reasoning is only available
encrypted, on xAI's Responses API, which the plugin does not use), so the replies carry text and
tool calls only: streamed as the SDK base yields them (calls complete after the text, then a last
chunk with ``finish_reason`` and usage), blocking in one chunk. No ``opaque_body``.

Provider rules enforced (https://docs.x.ai/docs/guides/reasoning: ``stop`` is not supported by
reasoning models): a request with ``stop`` is refused with xAI's 400 ("Model grok-4.6 does not
support parameter stop."), recorded in ``plugin_failures`` (as the other refusals of a request's
settings, not of its messages: a run is expected to meet it once, then send no stop);
OpenAI-style tool pairing; an assistant message needs content or calls.
"""

from __future__ import annotations

from typing import Any

from local_runner.contracts.base import BrainCall, PluginFailure
from local_runner.contracts.sdk_base import ReasoningFreeSDKContract

STOP_REFUSAL = "Model grok-4.6 does not support parameter stop."


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
        if request.get("stop"):
            self.plugin_failures.append(STOP_REFUSAL)
            raise PluginFailure(f"[x] Error code: 400 - {{'code': 'invalid-argument', 'error': '{STOP_REFUSAL}'}}")
        return super().to_provider(request)

    @staticmethod
    def call_id(call: BrainCall) -> str:
        """xAI's id for a tool call."""
        return f"call_{call.id}"
