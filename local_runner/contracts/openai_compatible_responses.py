"""An OpenAI model through Dify's official OpenAI-API-compatible model plugin on its Responses
route (credential ``api_type: responses``; ``gpt-4.1-mini`` at ``https://api.openai.com/v1``).

Model plugin: ``langgenius/dify-official-plugins`` ``models/openai_api_compatible/models/llm/llm.py``
(commit 02c5eeca5a3df89b68f2f5bd4f840d8ffae12594: ``_chat_generate_with_responses``,
``_convert_prompt_messages_to_responses_input``, ``_handle_responses_stream_response``,
``_handle_responses_response``). ``_invoke`` takes this route before anything else, so the
chat route's think-stripping and thinking switches do not apply.

* request: ``client.responses.create(model, input, stream, ...)`` from the OpenAI SDK. System
  messages become ``developer`` messages, user messages ``user`` ones; an assistant message
  with tool calls becomes one ``function_call`` item per call (``call_id`` = the call's id,
  ``name``, ``arguments``; its text is dropped, no reasoning item is sent), one without calls
  an ``assistant`` message with its content; a tool message a ``function_call_output``.
  Tools are flat ``function`` tools with ``tool_choice: "auto"``; ``max_tokens`` becomes
  ``max_output_tokens``. **The request's ``stop`` list is passed on as ``stop=``, a keyword
  ``Responses.create`` does not take**: the OpenAI SDK raises ``TypeError: Responses.create()
  got an unexpected keyword argument 'stop'`` before anything is sent, so every request with
  stop sequences fails in the plugin (``PluginFailure``).
* streamed: each ``response.output_text.delta`` is a chunk (index counting up); a reasoning
  summary, when the provider sends one, opens ``<think>\\n`` and is closed by the first text
  delta only (a call straight after leaves it open); each function call comes complete in its
  own chunk at ``response.output_item.done`` (id = ``call_id``); the last chunk has content
  ``""``, ``finish_reason`` ``"stop"`` whatever the reply was (tool calls included) and usage
  the plugin estimates. No ``opaque_body``.
* blocking: one chunk with the text (summary as ``<think>\\n…\\n</think>``), the calls and usage.

Provider rules enforced (https://platform.openai.com/docs/guides/function-calling): a
``function_call_output`` needs an earlier ``function_call`` with its ``call_id``, and a
``function_call`` needs a later output.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, ClassVar

from local_runner.contracts.base import ContractBackend, PluginFailure, Reply, enum_value, pieces, text_of


class OpenAICompatibleResponsesContract(ContractBackend):
    """``gpt-4.1-mini`` behind the OpenAI-API-compatible plugin with ``api_type: responses``."""

    name = "openai_api_compatible_responses"
    plugin_source = "langgenius/dify-official-plugins models/openai_api_compatible/models/llm/llm.py"
    provider_doc = "https://platform.openai.com/docs/api-reference/responses/create"
    provider = "langgenius/openai_api_compatible/openai_api_compatible"
    model = "gpt-4.1-mini"
    features = ("multi-tool-call", "stream-tool-call")
    completion_params: ClassVar[dict[str, Any]] = {}
    reasoning = False
    """gpt-4.1 does not reason; the plugin would show a reasoning summary only."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.plugin_failures: list[str] = []
        """The plugin's own failures (the ``stop`` keyword), in order."""

    # -- request ---------------------------------------------------------------------------------

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("stop"):
            message = "Responses.create() got an unexpected keyword argument 'stop'"
            self.plugin_failures.append(message)
            raise PluginFailure(f"[openai_api_compatible] Error: {message}")
        params = dict(request.get("completion_params") or {})
        body: dict[str, Any] = {"model": request.get("model"), "input": self.input_items(request.get("prompt_messages") or [])}
        for name in ("temperature", "top_p"):
            if name in params:
                body[name] = params[name]
        for name in ("max_tokens", "max_completion_tokens"):
            if name in params:
                body["max_output_tokens"] = params[name]
                break
        if request.get("tools"):
            body["tools"] = [{"type": "function", "name": t.get("name"), "description": t.get("description") or "",
                              "parameters": t.get("parameters") or {"type": "object", "properties": {}}} for t in request["tools"]]
            body["tool_choice"] = "auto"
        return body

    @staticmethod
    def input_items(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``_convert_prompt_messages_to_responses_input`` for text content."""
        items: list[dict[str, Any]] = []
        for message in messages:
            role, content = enum_value(message.get("role")), message.get("content")
            if role in ("system", "user"):
                items.append({"role": "developer" if role == "system" else "user", "content": text_of(content)})
            elif role == "assistant":
                calls = message.get("tool_calls") or []
                items += [{"type": "function_call", "call_id": call.get("id"), "name": (call.get("function") or {}).get("name"),
                           "arguments": (call.get("function") or {}).get("arguments")} for call in calls]
                if not calls and content:
                    items.append({"role": "assistant", "content": content})
            elif role == "tool":
                items.append({"type": "function_call_output", "call_id": message.get("tool_call_id"), "output": content})
        return items

    # -- provider rules --------------------------------------------------------------------------

    def check(self, body: dict[str, Any]) -> None:
        items: list[dict[str, Any]] = body["input"]
        called: set[Any] = set()
        for position, item in enumerate(items):
            if item.get("type") == "function_call":
                called.add(item.get("call_id"))
                if not any(later.get("type") == "function_call_output" and later.get("call_id") == item.get("call_id")
                           for later in items[position + 1 :]):
                    self.reject(f"No tool output found for function call {item.get('call_id')}.")
            elif item.get("type") == "function_call_output" and item.get("call_id") not in called:
                self.reject(f"No tool call found for function call output with call_id {item.get('call_id')}.")

    def brain_view(self, request: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        """The brain reads the input items as prompt messages (tool outputs as tool messages)."""
        view = []
        for item in body["input"]:
            if item.get("type") == "function_call_output":
                view.append({"role": "tool", "content": item.get("output"), "tool_call_id": item.get("call_id")})
            elif item.get("type") != "function_call":
                view.append({"role": "system" if item["role"] == "developer" else item["role"], "content": item.get("content")})
        return {**request, "prompt_messages": view}

    # -- chunks ----------------------------------------------------------------------------------

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        calls = [{"id": f"call_{call.id}", "type": "function",
                  "function": {"name": call.name, "arguments": json.dumps(call.arguments, ensure_ascii=False)}} for call in reply.calls]
        usage = self.usage(request, reply)
        if not stream:
            yield self.chunk(request, 0, content=reply.text, tool_calls=calls, usage=usage)
            return
        index = 0
        for piece in pieces(reply.text, 5):
            yield self.chunk(request, index, content=piece)
            index += 1
        for call in calls:
            yield self.chunk(request, index, tool_calls=[call])
            index += 1
        yield self.chunk(request, index, usage=usage, finish_reason="stop")
