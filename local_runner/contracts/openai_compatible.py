"""A reasoning model served by vLLM through Dify's official OpenAI-API-compatible model plugin
(``Qwen/Qwen3-8B``, vLLM started with ``--reasoning-parser qwen3 --enable-auto-tool-choice``).

Model plugin: ``langgenius/dify-official-plugins`` ``models/openai_api_compatible/models/llm/llm.py``
(``OpenAILargeLanguageModel`` on the SDK's OpenAI-compatible base,
``dify_plugin/interfaces/model/openai_compatible/llm.py``). Credentials assumed:
``function_calling_type: tool_call``, ``stream_function_calling: supported``,
``agent_thought_support: supported``, ``compatibility_mode: extended``.

Request (``_invoke``, ``_drop_analyze_channel``, the base's ``_convert_prompt_message_to_dict``):

* every ``<think>…</think>`` block (and the whitespace after it) is **removed** from an
  assistant message's text content: reasoning never goes back (a vLLM Qwen3 does not need it);
* an assistant message is ``{"role": "assistant", "content": <rest>, "tool_calls": [...]}``
  (ids as received); a tool message ``{"role": "tool", "content", "tool_call_id"}``; a ``name``
  rides along on the other roles;
* ``enable_thinking`` becomes ``chat_template_kwargs: {enable_thinking, thinking}``,
  ``thinking: {"type": "enabled"}`` and a top-level ``enable_thinking``; tools go with
  ``tool_choice: "auto"``; a streamed call asks ``stream_options: {include_usage: true}``.

Chunks (the base's ``_handle_generate_stream_response`` with the plugin's
``_wrap_thinking_by_reasoning_content``; the plugin's ``_handle_generate_response``):

* streamed: ``reasoning_content`` (or vLLM >= 0.17's ``reasoning``) deltas become content
  opened by ``<think>\\n``; the first content delta is prefixed ``\\n</think>``, a delta with
  neither (the first tool-call delta) yields ``\\n</think>`` alone; tool-call deltas are merged
  by id (an id-less delta extends the last call) and sent complete in one chunk after the
  text; then a last chunk with content ``""``, ``finish_reason`` and usage (the same index as
  the tool-call chunk). No ``opaque_body``.
* blocking: one chunk: content ``<think>\\n{reasoning}\\n</think>{content}``, the tool calls
  with vLLM's ``chatcmpl-tool-…`` ids, usage.

What must come back: the tool-call ids (each tool message answers one by id); the reasoning is
stripped by the plugin anyway.

Provider rules enforced:

* OpenAI's tool-message pairing, which vLLM and the servers behind this plugin follow
  (https://docs.vllm.ai/en/latest/features/tool_calling.html,
  https://platform.openai.com/docs/guides/function-calling): a ``tool`` message answers a
  ``tool_calls`` id of the assistant message right before it, and every id is answered;
* an assistant message needs content or tool calls: vLLM answers ``400 Invalid assistant
  message: role='assistant' content=None tool_calls=None``
  (https://github.com/vllm-project/vllm/issues/21089; Mistral's API and LM Studio refuse it
  too) — which the plugin's think-stripping can produce from a reasoning-only reply.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, ClassVar

from local_runner.contracts.base import ContractBackend, Reply, chat_tool_calls, check_chat_history, enum_value, pieces

THINK_BLOCK = re.compile(r"<think>.*?</think>\s*", re.S)


class OpenAICompatibleContract(ContractBackend):
    """Qwen3 on vLLM behind the official OpenAI-API-compatible model plugin (see the module
    docstring)."""

    name = "openai_api_compatible"
    plugin_source = "langgenius/dify-official-plugins models/openai_api_compatible/models/llm/llm.py"
    provider_doc = "https://docs.vllm.ai/en/latest/features/tool_calling.html"
    provider = "langgenius/openai_api_compatible/openai_api_compatible"
    model = "Qwen/Qwen3-8B"
    features = ("multi-tool-call", "stream-tool-call", "agent-thought")
    """What the base's customizable schema declares for ``tool_call`` + streamed function
    calling, plus ``agent-thought`` from ``agent_thought_support``."""
    completion_params: ClassVar[dict[str, Any]] = {"enable_thinking": True}
    reasoning_field = "reasoning_content"
    """The delta field vLLM's reasoning parser fills (``reasoning`` from vLLM 0.17 on)."""
    extended = True
    """``compatibility_mode: extended``: the plugin adds the non-standard thinking switches."""

    # -- request ----------------------------------------------------------------------------

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        params = dict(request.get("completion_params") or {})
        enable_thinking = params.pop("enable_thinking", None)
        if enable_thinking is not None and self.extended:
            on = bool(enable_thinking)
            params.setdefault("chat_template_kwargs", {}).update({"enable_thinking": on, "thinking": on})
            params["thinking"] = {"type": "enabled" if on else "disabled"}
            params["enable_thinking"] = on
        stream = bool(request.get("stream", True))
        if stream:
            params.setdefault("stream_options", {"include_usage": True})
        body: dict[str, Any] = {"model": request.get("model"), "stream": stream, **params}
        body["messages"] = [self._message(message) for message in request.get("prompt_messages") or []]
        if request.get("tools"):
            body["tool_choice"] = "auto"
            body["tools"] = [{"type": "function", "function": {"name": t.get("name"), "description": t.get("description") or "",
                                                               "parameters": t.get("parameters")}} for t in request["tools"]]
        if request.get("stop"):
            body["stop"] = request["stop"]
        return body

    @staticmethod
    def _message(message: dict[str, Any]) -> dict[str, Any]:
        role, content = enum_value(message.get("role")), message.get("content")
        if role == "tool":
            return {"role": "tool", "content": content, "tool_call_id": message.get("tool_call_id")}
        if role == "user" and isinstance(content, list):
            parts = []
            for part in content:
                if enum_value(part.get("type")) == "text":
                    parts.append({"type": "text", "text": part.get("data")})
                elif enum_value(part.get("type")) == "image":
                    parts.append({"type": "image_url", "image_url": {"url": part.get("data"), "detail": part.get("detail") or "low"}})
            content = parts
        if role == "assistant" and isinstance(content, str) and "<think>" in content:
            content = THINK_BLOCK.sub("", content)
        converted: dict[str, Any] = {"role": role, "content": content}
        if role == "assistant" and message.get("tool_calls"):
            converted["tool_calls"] = chat_tool_calls(message["tool_calls"], lambda call: call.get("type", "function"))
        if message.get("name"):
            converted["name"] = message["name"]
        return converted

    # -- provider rules ---------------------------------------------------------------------

    def check(self, body: dict[str, Any]) -> None:
        check_chat_history(self, body["messages"],
                           "Invalid assistant message: role='assistant' content=None tool_calls=None prefix=False")

    # -- chunks -----------------------------------------------------------------------------

    @staticmethod
    def call_id(call: Any) -> str:
        """vLLM's id for a tool call."""
        return f"chatcmpl-tool-{call.id}"

    def packets(self, reply: Reply, request: dict[str, Any]) -> list[dict[str, Any]]:
        """vLLM's server-sent events for ``reply`` (the ``data:`` JSON of each)."""

        def event(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        out = [event({"role": "assistant", "content": ""})]
        out += [event({self.reasoning_field: piece}) for piece in pieces(reply.reasoning, 24)]
        out += [event({"content": piece}) for piece in pieces(reply.text, 7)]
        for index, call in enumerate(reply.calls):
            out.append(event({"tool_calls": [{"index": index, "id": self.call_id(call), "type": "function",
                                              "function": {"name": call.name, "arguments": ""}}]}))
            arguments = json.dumps(call.arguments, ensure_ascii=False)
            out += [event({"tool_calls": [{"index": index, "function": {"arguments": p}}]}) for p in pieces(arguments, 9)]
        out.append(event({"content": ""}, reply.finish_reason))
        usage = self.usage(request, reply)
        out.append({"object": "chat.completion.chunk", "choices": [],
                    "usage": {"prompt_tokens": usage["prompt_tokens"], "completion_tokens": usage["completion_tokens"],
                              "total_tokens": usage["total_tokens"]}})
        return out

    def plugin_stream(self, reply: Reply, request: dict[str, Any]) -> list[dict[str, Any]]:
        """The chunks the plugin yields for vLLM's events (the SDK base's stream handler with the
        plugin's reasoning wrapper, re-stated)."""
        chunks: list[dict[str, Any]] = []
        index, reasoning, calls, finish = 0, False, [], None
        for packet in self.packets(reply, request):
            if not packet["choices"]:
                continue
            choice = packet["choices"][0]
            finish = choice.get("finish_reason")
            index += 1
            delta = choice["delta"]
            thoughts = (delta.get("reasoning_content"), delta.get("reasoning"))
            if reasoning and "" in thoughts and not any(thoughts) and not any(
                    delta.get(key) for key in ("content", "tool_calls", "function_call")):
                text = ""  # an explicitly empty reasoning delta keeps the block open
            else:
                text, reasoning = _wrap(delta, reasoning)
            for raw in delta.get("tool_calls") or []:
                _increase(calls, raw)
            if not text:
                continue
            chunks.append(self.chunk(request, index, content=text))
            index += 1
        if reasoning:
            chunks.append(self.chunk(request, index, content="\n</think>"))
            index += 1
        if calls:
            chunks.append(self.chunk(request, index, tool_calls=calls))
        chunks.append(self.chunk(request, index, usage=self.usage(request, reply), finish_reason=finish))
        return chunks

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        if stream:
            yield from self.plugin_stream(reply, request)
            return
        content = reply.text
        if reply.reasoning:  # the plugin's _wrap_non_stream_reasoning_content
            content = f"<think>\n{reply.reasoning}\n</think>{content}"
        calls = [self.tool_call_dict(c) | {"id": self.call_id(c)} for c in reply.calls]
        yield self.chunk(request, 0, content=content, tool_calls=calls, usage=self.usage(request, reply))


def _wrap(delta: dict[str, Any], reasoning: bool) -> tuple[str, bool]:
    """The plugin's ``_wrap_thinking_by_reasoning_content``."""
    thought = delta.get("reasoning") or delta.get("reasoning_content") or ""
    text = delta.get("content") or ""
    out = ""
    if thought:
        out += thought if reasoning else "<think>\n" + thought
        reasoning = True
    if reasoning:
        if not thought and not text:
            out, reasoning = out + "\n</think>", False
        if text:
            out, reasoning = out + "\n</think>" + text, False
    elif text:
        out += text
    return out, reasoning


def _increase(calls: list[dict[str, Any]], raw: dict[str, Any]) -> None:
    """The SDK's ``_increase_tool_call`` for one raw delta: found by id, an id-less delta
    extends the last call; a name replaces, arguments append."""
    function = raw.get("function")
    if not function:
        return
    call_id = raw.get("id") or ""
    if function.get("name") and not call_id:
        call_id = f"chatcmpl-tool-{len(calls)}"
    target = next((c for c in calls if c["id"] == call_id), None) if call_id else (calls[-1] if calls else None)
    if target is None:
        target = {"id": call_id, "type": "function", "function": {"name": "", "arguments": ""}}
        calls.append(target)
    if raw.get("type"):
        target["type"] = raw["type"]
    if function.get("name"):
        target["function"]["name"] = function["name"]
    if function.get("arguments"):
        target["function"]["arguments"] += function["arguments"]
