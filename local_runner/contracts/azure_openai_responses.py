"""A ``gpt-5-mini`` deployment behind Dify's official Azure OpenAI model plugin: the Responses
route, which the plugin takes for every base model of the GPT-5 family but ``gpt-5-chat``
(``gpt-5``, ``-mini``, ``-nano``, ``gpt-5.1``, the ``gpt-5.6-*`` models, the codex models).

Model plugin: ``langgenius/dify-official-plugins`` ``models/azure_openai/models/llm/llm.py``
(commit 1fdcf1f2a1da54ce03572db72970551c3a900b17, the newest stored, re-read in wave 37:
``_chat_generate_with_responses``, ``_convert_prompt_messages_to_responses_input``,
``_handle_responses_stream_response``, ``_handle_responses_response``; the routing is
``constants.uses_responses_api``, now every GPT-5 and later base model but the ``chat`` ones).
``AzureOpenAIResponsesBefore1fdcf1fContract`` below re-states 00ba75d… and e4e73d8….

* request: ``client.responses.create(model, input, stream, ...)``. A system message becomes a
  ``developer`` message, a user message a ``user`` one; an assistant message becomes an
  ``assistant`` message with its content as it is (when it has any; a ``<think>`` block
  included) **followed by** one ``function_call`` item per call (``call_id`` = the call's id,
  ``name``, ``arguments``): "multi-round agent history often pairs prose with tool calls; both
  halves must reach the Responses input". No reasoning item is ever sent, nothing is read from
  ``opaque_body``. A tool message becomes a ``function_call_output`` with the call's id. Tools
  are flat ``function`` tools with ``tool_choice: "auto"``; ``max_tokens`` becomes
  ``max_output_tokens``. **``stop`` is never sent** (codex included): the plugin cuts the output
  text at the first stop sequence itself, holding back a tail while streaming. For the reasoning
  models ``temperature`` and ``top_p`` are left out.
* streamed: each ``response.output_text.delta`` is a chunk (up to a stop sequence); a reasoning
  summary (only when the node asks for ``reasoning_summary``) opens ``<think>\\n`` and is
  closed by the first text delta, before a function call, or at the end; each function call
  comes complete in a chunk of its own at ``response.output_item.done`` (id = ``call_id``); the
  last chunk has content ``""``, ``finish_reason`` ``"length"`` for an incomplete response and
  ``"stop"`` otherwise (tool calls included), and the API's usage. No ``opaque_body``.
* blocking: one chunk with the text (a summary as ``<think>\\n…\\n</think>`` first, the text
  cut at a stop sequence), the calls, the API's usage.

What goes back: the call ids (each ``function_call_output`` answers one by ``call_id``) and the
text beside the calls. What the plugin loses, whatever the strategy sends: the reasoning of a
tool-call turn (gpt-5 reasons; with no reasoning item and no item id in the replay the API
answers without it). Recorded in ``reasoning_dropped`` (the call ids sent back without their
reasoning), not refused: Azure answers such a request.

Provider rules enforced (https://learn.microsoft.com/en-us/azure/ai-foundry/openai/how-to/responses):
a ``function_call_output`` needs an earlier ``function_call`` with its ``call_id``, and a
``function_call`` needs a later output.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

from local_runner.contracts.base import Reply, enum_value, text_of
from local_runner.contracts.openai_compatible_responses import OpenAICompatibleResponsesContract


def cut_at_stop(text: str, stop: list[str] | None) -> str:
    """``text`` up to the earliest literal stop sequence of ``stop`` (the plugin's
    ``_earliest_stop_cut``), whole when none occurs."""
    found = [position for sequence in stop or [] if sequence and (position := text.find(sequence)) != -1]
    return text[: min(found)] if found else text


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
        request = {**request, "stop": None}  # never sent: cut by the plugin (``emit``)
        if self.reasons(model):
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

    @staticmethod
    def input_items(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``_convert_prompt_messages_to_responses_input`` at 1fdcf1f for text content: an
        assistant message's text, then its calls."""
        items: list[dict[str, Any]] = []
        for message in messages:
            role, content = enum_value(message.get("role")), message.get("content")
            if role in ("system", "user"):
                items.append({"role": "developer" if role == "system" else "user", "content": text_of(content)})
            elif role == "assistant":
                if content:
                    items.append({"role": "assistant", "content": content})
                items += [{"type": "function_call", "call_id": call.get("id"), "name": (call.get("function") or {}).get("name"),
                           "arguments": (call.get("function") or {}).get("arguments")} for call in message.get("tool_calls") or []]
            elif role == "tool":
                items.append({"type": "function_call_output", "call_id": message.get("tool_call_id"), "output": content})
        return items

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        """The reply with its text cut at the request's first stop sequence, as the plugin cuts it."""
        cut = cut_at_stop(reply.text, request.get("stop"))
        yield from super().emit(Reply(reasoning=reply.reasoning, text=cut, calls=reply.calls), request, stream)


class AzureOpenAIResponsesBefore1fdcf1fContract(AzureOpenAIResponsesContract):
    """The Responses route of the plugin's versions before 1fdcf1f (00ba75d…, e4e73d8…): an
    assistant message with tool calls goes back as its ``function_call`` items only (its text
    dropped), and for the codex models ``stop`` is passed on as ``stop=``, which
    ``Responses.create`` does not take (the OpenAI SDK's ``TypeError``, as on the
    OpenAI-API-compatible plugin's Responses route)."""

    name = "azure_openai_responses_00ba75d"

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        model = str(request.get("model") or "")
        if self.reasons(model):
            request = {**request, "stop": None}
            request["completion_params"] = {
                key: value for key, value in (request.get("completion_params") or {}).items() if key not in ("temperature", "top_p")
            }
        body = OpenAICompatibleResponsesContract.to_provider(self, request)
        if self.reasons(model):
            items = body["input"]
            users = [i for i, item in enumerate(items) if item.get("role") == "user"]
            after = items[users[-1] + 1 :] if users else items
            self.reasoning_dropped += [item["call_id"] for item in after if item.get("type") == "function_call"]
        return body

    input_items = staticmethod(OpenAICompatibleResponsesContract.input_items)

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        yield from OpenAICompatibleResponsesContract.emit(self, reply, request, stream)


__all__ = ["AzureOpenAIResponsesBefore1fdcf1fContract", "AzureOpenAIResponsesContract", "cut_at_stop", "reasoning_route"]
