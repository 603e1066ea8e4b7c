"""Two model plugins whose provider data rides on ``opaque_body``: Gemini (thought signatures)
and OpenAI's Responses API (reasoning items).

These backends check the SDK's contract for such data (``AssistantPromptMessage.opaque_body``,
dify-plugin 0.10.2): whatever the model plugin put there must come back on the same assistant
message, or the provider refuses the next request. The key names inside ``opaque_body`` are this
emulation's own; the rules are the providers' documented ones.

* **Gemini** (``langgenius/dify-official-plugins`` ``models/gemini/models/llm/llm.py``;
  https://ai.google.dev/gemini-api/docs/thought-signatures): thinking models return a thought
  signature with each function call and require it back on that call in the current turn
  ("Function call is missing a thought_signature in functionCall parts"); a function response
  answers a function call of the turn before it. Thoughts reach the strategy as a ``<think>``
  block in the content; the signatures ride on the last chunk's ``opaque_body``.
* **OpenAI Responses** (``langgenius/dify-official-plugins`` ``models/openai/models/llm/llm.py``,
  its Responses path; https://platform.openai.com/docs/guides/reasoning#keeping-reasoning-items-in-context):
  a reasoning model's ``function_call`` items must come back with the ``reasoning`` item that
  preceded them ("Item 'fc_…' of type 'function_call' was provided without its required
  'reasoning' item"); a ``function_call_output`` needs its ``function_call``. The reply's
  output items ride on the last chunk's ``opaque_body``; reasoning summaries are not shown.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from local_runner.contracts.base import ContractBackend, Reply, text_of


def _last_user(messages: list[dict[str, Any]]) -> int:
    return max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)


class GeminiContract(ContractBackend):
    """A Gemini thinking model behind the official Gemini model plugin."""

    name = "gemini"
    plugin_source = "langgenius/dify-official-plugins models/gemini/models/llm/llm.py"
    provider_doc = "https://ai.google.dev/gemini-api/docs/thought-signatures"
    provider = "langgenius/gemini/google"
    model = "gemini-3-pro-preview"
    features = ("tool-call", "multi-tool-call", "agent-thought", "stream-tool-call", "vision")
    opaque_key = "gemini_thought_signatures"

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        contents: list[dict[str, Any]] = []
        for message in request.get("prompt_messages") or []:
            role = message.get("role")
            if role == "system":
                continue
            if role == "tool":
                part = {"functionResponse": {"name": message.get("name"), "id": message.get("tool_call_id"),
                                             "response": {"content": text_of(message.get("content"))}}}
                contents.append({"role": "user", "parts": [part]})
                continue
            parts: list[dict[str, Any]] = []
            text = text_of(message.get("content"))
            if text:
                parts.append({"text": text})
            opaque = message.get("opaque_body") if isinstance(message.get("opaque_body"), dict) else {}
            signatures = opaque.get(self.opaque_key) or {}
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                part = {"functionCall": {"id": call.get("id"), "name": function.get("name"),
                                         "args": json.loads(function.get("arguments") or "{}")}}
                if call.get("id") in signatures:
                    part["thoughtSignature"] = signatures[call["id"]]
                parts.append(part)
            contents.append({"role": "model" if role == "assistant" else "user", "parts": parts})
        return {"model": request.get("model"), "contents": contents, "tools": request.get("tools") or None}

    def check(self, body: dict[str, Any]) -> None:
        contents = body["contents"]
        last_user_text = max(
            (i for i, c in enumerate(contents) if c["role"] == "user" and any("text" in p for p in c["parts"])), default=-1
        )
        for position, content in enumerate(contents):
            if not content["parts"]:
                self.reject(f"* GenerateContentRequest.contents[{position}].parts: contents.parts must not be empty.")
            calls = [p["functionCall"] for p in content["parts"] if "functionCall" in p]
            unsigned = any("thoughtSignature" not in p for p in content["parts"] if "functionCall" in p)
            if calls and position > last_user_text and unsigned:
                self.reject("Function call is missing a thought_signature in functionCall parts.")
            responses = [p["functionResponse"] for p in content["parts"] if "functionResponse" in p]
            if responses:
                before = contents[position - 1] if position else {"parts": []}
                names = {p["functionCall"]["name"] for p in before["parts"] if "functionCall" in p}
                if any(r["name"] not in names for r in responses):
                    self.reject("Please ensure that function response turn comes immediately after a function call turn.")

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        think = f"<think>\n{reply.reasoning}\n</think>"
        calls = [self.tool_call_dict(call) for call in reply.calls]
        opaque = {self.opaque_key: {c.id: f"sig-{c.id}" for c in reply.calls}} if reply.calls else None
        usage = self.usage(request, reply)
        if not stream:
            yield self.chunk(request, 0, content=think + reply.text, tool_calls=calls, opaque_body=opaque, usage=usage)
            return
        yield self.chunk(request, 0, content=think)
        if reply.text:
            yield self.chunk(request, 1, content=reply.text)
        if calls:
            yield self.chunk(request, 2, tool_calls=calls)
        yield self.chunk(request, 3, opaque_body=opaque, usage=usage, finish_reason=reply.finish_reason)


class OpenAIResponsesContract(ContractBackend):
    """A reasoning model (``gpt-5-mini``) on the official OpenAI model plugin's Responses path."""

    name = "openai_responses"
    plugin_source = "langgenius/dify-official-plugins models/openai/models/llm/llm.py"
    provider_doc = "https://platform.openai.com/docs/guides/reasoning#keeping-reasoning-items-in-context"
    provider = "langgenius/openai/openai"
    model = "gpt-5-mini"
    opaque_key = "openai_responses_output"
    reasoning = False  # reasoning stays encrypted in the output items: nothing to show

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        items: list[dict[str, Any]] = []
        for message in request.get("prompt_messages") or []:
            role = message.get("role")
            if role == "tool":
                items.append({"type": "function_call_output", "call_id": message.get("tool_call_id"),
                              "output": text_of(message.get("content"))})
                continue
            opaque = message.get("opaque_body") if isinstance(message.get("opaque_body"), dict) else {}
            if role == "assistant" and isinstance(opaque.get(self.opaque_key), list):
                items.extend(opaque[self.opaque_key])
                continue
            text = text_of(message.get("content"))
            if text:
                items.append({"type": "message", "role": role, "content": text})
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                items.append({"type": "function_call", "id": f"fc_{call.get('id')}", "call_id": call.get("id"),
                              "name": function.get("name"), "arguments": function.get("arguments")})
        return {"model": request.get("model"), "input": items, "tools": request.get("tools") or None}

    def check(self, body: dict[str, Any]) -> None:
        items = body["input"]
        calls = {item["call_id"] for item in items if item["type"] == "function_call"}
        for item in items:
            if item["type"] == "function_call_output" and item["call_id"] not in calls:
                self.reject(f"No tool call found for function call output with call_id {item['call_id']}.")
        start = max((i for i, item in enumerate(items) if item.get("role") == "user"), default=-1)
        previous = None
        for item in items[start + 1 :]:
            if item["type"] == "function_call" and (previous is None or previous["type"] not in ("reasoning", "function_call")):
                self.reject(f"Item '{item['id']}' of type 'function_call' was provided without its required 'reasoning' item.")
            previous = item

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        calls = [self.tool_call_dict(call) for call in reply.calls]
        output: list[dict[str, Any]] = [{"type": "reasoning", "id": f"rs_{len(self.requests)}",
                                         "encrypted_content": "opaque", "summary": []}]
        if reply.text:
            output.append({"type": "message", "role": "assistant", "content": reply.text})
        output += [{"type": "function_call", "id": f"fc_{c.id}", "call_id": c.id, "name": c.name,
                    "arguments": json.dumps(c.arguments)} for c in reply.calls]
        opaque = {self.opaque_key: output}
        usage = self.usage(request, reply)
        if not stream:
            yield self.chunk(request, 0, content=reply.text, tool_calls=calls, opaque_body=opaque, usage=usage)
            return
        for index in range(0, len(reply.text), 6):
            yield self.chunk(request, index, content=reply.text[index : index + 6])
        if calls:
            yield self.chunk(request, len(reply.text) + 1, tool_calls=calls)
        yield self.chunk(request, len(reply.text) + 2, opaque_body=opaque, usage=usage, finish_reason=reply.finish_reason)
