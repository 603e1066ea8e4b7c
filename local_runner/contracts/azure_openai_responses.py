"""A ``gpt-5-mini`` deployment behind Dify's official Azure OpenAI model plugin: the Responses
route, which the plugin takes for every base model of the GPT-5 family but ``gpt-5-chat``
(``gpt-5``, ``-mini``, ``-nano``, ``gpt-5.1``, the ``gpt-5.6-*`` models, the codex models).

Model plugin: ``langgenius/dify-official-plugins`` ``models/azure_openai/models/llm/llm.py``
(commit 00ba75dbce35ed31a0d8087ce62358c708b2bb32, the version with ``_metadata.py``; e4e73d8…
converts and streams the same way; ``_chat_generate_with_responses``,
``_convert_prompt_messages_to_responses_input``, ``_handle_responses_stream_response``,
``_handle_responses_response``; the routing is ``constants.uses_responses_api``, pinned by
``tests/test_llm.py``). Read again in wave 35: the earlier audits described only the chat route.

* request: ``client.responses.create(model, input, stream, ...)``. A system message becomes a
  ``developer`` message, a user message a ``user`` one; an assistant message **with tool calls
  becomes one ``function_call`` item per call** (``call_id`` = the call's id, ``name``,
  ``arguments``: its text and reasoning are dropped, no reasoning item is ever sent, nothing is
  read from ``opaque_body``); one without calls an ``assistant`` message with its content as it
  is (a ``<think>`` block included); a tool message a ``function_call_output`` with the call's
  id. Tools are flat ``function`` tools with ``tool_choice: "auto"``; ``max_tokens`` becomes
  ``max_output_tokens``. For the reasoning models (GPT-5 but ``chat`` and ``codex``) ``stop``,
  ``temperature`` and ``top_p`` are left out; for the codex models ``stop`` is passed on as
  ``stop=``, which ``Responses.create`` does not take (the OpenAI SDK's ``TypeError``, as on the
  OpenAI-API-compatible plugin's Responses route).
* streamed: each ``response.output_text.delta`` is a chunk; a reasoning summary (only when the
  node asks for ``reasoning_summary``) opens ``<think>\\n`` and only a text delta closes it;
  each function call comes complete in a chunk of its own at ``response.output_item.done``
  (id = ``call_id``); the last chunk has content ``""``, ``finish_reason`` ``"stop"`` whatever
  the reply was, and usage **estimated** with tiktoken (the API's usage is not read). No
  ``opaque_body``.
* blocking: one chunk with the text (a summary as ``<think>\\n…\\n</think>``), the calls, the
  API's usage.

What goes back: the call ids (each ``function_call_output`` answers one by ``call_id``). What the
plugin loses, whatever the strategy sends: the reasoning of a tool-call turn (gpt-5 reasons;
with no reasoning item and no item id in the replay the API answers without it) and the text the
model wrote beside its calls. Recorded in ``reasoning_dropped`` (the call ids sent back without
their reasoning), not refused: Azure answers such a request.

Provider rules enforced (https://learn.microsoft.com/en-us/azure/ai-foundry/openai/how-to/responses):
a ``function_call_output`` needs an earlier ``function_call`` with its ``call_id``, and a
``function_call`` needs a later output.
"""

from __future__ import annotations

from typing import Any, ClassVar

from local_runner.contracts.openai_compatible_responses import OpenAICompatibleResponsesContract


def reasoning_route(model: str) -> bool:
    """The plugin's ``is_reasoning_model`` on the Responses route: GPT-5 but ``chat`` and
    ``codex`` base models (no ``stop``, ``temperature`` or ``top_p`` sent)."""
    return model.startswith("gpt-5") and "chat" not in model and "codex" not in model


class AzureOpenAIResponsesContract(OpenAICompatibleResponsesContract):
    """A ``gpt-5-mini`` deployment behind the Azure OpenAI plugin's Responses route."""

    name = "azure_openai_responses"
    plugin_source = "langgenius/dify-official-plugins models/azure_openai/models/llm/llm.py"
    provider_doc = "https://learn.microsoft.com/en-us/azure/ai-foundry/openai/how-to/responses"
    provider = "langgenius/azure_openai/azure_openai"
    model = "gpt-5-mini"
    features = ("tool-call", "multi-tool-call", "stream-tool-call", "agent-thought")
    completion_params: ClassVar[dict[str, Any]] = {}
    reasoning = False
    """gpt-5 reasons, but no summary is asked for: no reasoning text reaches the strategy."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.reasoning_dropped: list[str] = []
        """Call ids of the current user turn sent back without their reasoning, once per request
        (plugin side)."""

    @staticmethod
    def reasons(model: str) -> bool:
        """Whether ``model`` takes the reasoning branch of the route (``reasoning_route``)."""
        return reasoning_route(model)

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        model = str(request.get("model") or "")
        if self.reasons(model):
            request = {**request, "stop": None}
            request["completion_params"] = {
                key: value for key, value in (request.get("completion_params") or {}).items() if key not in ("temperature", "top_p")
            }
        body = super().to_provider(request)
        if self.reasons(model):
            items = body["input"]
            users = [i for i, item in enumerate(items) if item.get("role") == "user"]
            after = items[users[-1] + 1 :] if users else items
            self.reasoning_dropped += [item["call_id"] for item in after if item.get("type") == "function_call"]
        return body


__all__ = ["AzureOpenAIResponsesContract", "reasoning_route"]
