"""A deployment behind Dify's official Azure OpenAI model plugin, chat completions route, whose
streamed deltas carry ``reasoning_content`` (as reasoning models served on the Azure endpoint
send it; ``gpt-4.1`` is the base model name set in the credential).

Model plugin: ``langgenius/dify-official-plugins`` ``models/azure_openai/models/llm/llm.py``
(commit 1fdcf1f2a1da54ce03572db72970551c3a900b17, the newest stored: custom base models, the
``gpt-6`` routing, sparse tool-call deltas; re-read in wave 37). Its own class on
``LargeLanguageModel``, not the SDK's OpenAI-compatible base. ``AzureOpenAISnapshotContract``
below re-states the earlier versions (00ba75dbce35ed31a0d8087ce62358c708b2bb32 and 374ad78…).

Request (``_chat_generate``, ``_convert_prompt_message_to_dict``): an assistant message goes as
``{"role": "assistant", "content": <as received>, "tool_calls": [ToolCall.model_dump()]}``, the
``<think>`` block included (no ``reasoning_content`` is ever sent); a tool message as
``{"role": "tool", "name", "content", "tool_call_id"}``; tools as ``PromptMessageFunction``
dumps; a streamed call asks ``stream_options: {include_usage: true}``. For a reasoning base model
(``o1``/``o3``/``o4``, GPT-5 and later but ``chat`` and ``codex``) ``stop``, ``temperature`` and
``top_p`` are left out (``gpt-4.1``, the base model here, keeps them).

Chunks (``_handle_chat_generate_stream_response`` at 1fdcf1f):

* streamed: a ``reasoning_content`` delta is a chunk of its own (``<think>\\n`` before the
  first); the first delta with text **or a new tool call** closes the block with a
  ``\\n</think>`` chunk of its own; a delta with neither text nor finish reason yields nothing
  more; the tool calls (merged by index, an id-less one named ``call-<n>``) come **once,
  complete, on the finish-reason chunk**; a block still open at the end is closed; then a last
  chunk: content ``""``, ``finish_reason`` ``stop`` (even after tool calls), usage. No
  ``opaque_body``.
* blocking (``_handle_chat_generate_response``): ``<think>\\n{reasoning}\\n</think>`` then
  ``message.content or ""`` (a ``null`` content beside calls no longer fails), the tool calls
  with Azure's ids.

What must come back: the call ids (each tool message answers one by id) and the reasoning block
whole: the content is the only place this plugin carries the reasoning, and a block left open
would make everything after it reasoning. Azure refuses no open block, so one is recorded in
``open_blocks`` (as for OpenRouter, and as the earlier versions left it before calls), which the
round-trip tests assert empty.

Provider rules enforced (https://learn.microsoft.com/en-us/azure/ai-foundry/openai/how-to/function-calling,
OpenAI's chat schema): tool pairing by id; an assistant message needs content or tool calls.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

from local_runner.contracts.base import (
    BrainCall,
    ContractBackend,
    PluginFailure,
    Reply,
    chat_tool_calls,
    check_chat_history,
    enum_value,
    open_think_blocks,
    pieces,
)


class AzureOpenAIContract(ContractBackend):
    """A reasoning deployment on the Azure OpenAI chat route (see the module docstring)."""

    name = "azure_openai"
    plugin_source = "langgenius/dify-official-plugins models/azure_openai/models/llm/llm.py"
    provider_doc = "https://learn.microsoft.com/en-us/azure/ai-foundry/openai/how-to/function-calling"
    provider = "langgenius/azure_openai/azure_openai"
    model = "my-gpt-4.1-deployment"
    features = ("agent-thought", "multi-tool-call", "stream-tool-call")
    """``LLM_BASE_MODELS``' features for the GPT-4 family (the model is the deployment name)."""
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.open_blocks: list[str] = []

    # -- request ----------------------------------------------------------------------------

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        stream = bool(request.get("stream", True))
        body: dict[str, Any] = {"model": request.get("model"), "stream": stream, **(request.get("completion_params") or {})}
        body["messages"] = [self._message(m) for m in request.get("prompt_messages") or []]
        if request.get("tools"):
            body["tools"] = [{"type": "function", "function": {"name": t.get("name"), "description": t.get("description"),
                                                               "parameters": t.get("parameters")}} for t in request["tools"]]
        if request.get("stop"):
            body["stop"] = request["stop"]
        if stream:
            body["stream_options"] = {"include_usage": True}
        return body

    @staticmethod
    def _message(message: dict[str, Any]) -> dict[str, Any]:
        role, content = enum_value(message.get("role")), message.get("content")
        if role == "tool":
            converted = {"role": "tool", "name": message.get("name"), "content": content, "tool_call_id": message.get("tool_call_id")}
        else:
            converted = {"role": role, "content": content}
            if role == "assistant" and message.get("tool_calls"):
                converted["tool_calls"] = chat_tool_calls(message["tool_calls"])
        if message.get("name"):
            converted["name"] = message["name"]
        return converted

    # -- provider rules ---------------------------------------------------------------------

    def check(self, body: dict[str, Any]) -> None:
        check_chat_history(self, body["messages"], "Invalid value for 'content': expected a string, got null.")
        self.open_blocks += open_think_blocks(body["messages"])

    # -- chunks -----------------------------------------------------------------------------

    @staticmethod
    def call_id(call: BrainCall) -> str:
        """Azure's id for a tool call."""
        return f"call_{call.id}"

    def deltas(self, reply: Reply) -> list[dict[str, Any]]:
        """The deployment's streamed choices (``delta`` and ``finish_reason``); every delta has
        ``reasoning_content``, ``None`` where there is none."""

        def choice(finish: str | None = None, **delta: Any) -> dict[str, Any]:
            return {"delta": {"content": None, "reasoning_content": None, "tool_calls": None, **delta}, "finish_reason": finish}

        out = [choice(role="assistant", content="")]
        out += [choice(reasoning_content=p) for p in pieces(reply.reasoning, 24)]
        out += [choice(content=p) for p in pieces(reply.text, 7)]
        for index, call in enumerate(reply.calls):
            out.append(choice(tool_calls=[{"index": index, "id": self.call_id(call), "type": "function",
                                           "function": {"name": call.name, "arguments": ""}}]))
            arguments = json.dumps(call.arguments, ensure_ascii=False)
            out += [choice(tool_calls=[{"index": index, "function": {"arguments": p}}]) for p in pieces(arguments, 9)]
        out.append(choice(reply.finish_reason))
        return out

    def plugin_stream(self, reply: Reply, request: dict[str, Any]) -> list[dict[str, Any]]:
        """The chunks the plugin yields for the deployment's stream (its 1fdcf1f handler re-stated)."""
        chunks: list[dict[str, Any]] = []
        calls: list[dict[str, Any]] = []
        reasoning = emitted = False

        def add(content: str = "", tool_calls: list[dict[str, Any]] | None = None) -> None:
            chunks.append(self.chunk(request, len(chunks), content=content, tool_calls=tool_calls))

        for entry in self.deltas(reply):
            delta, before = entry["delta"], len(calls)
            for raw in delta.get("tool_calls") or []:  # _update_tool_calls: padded by index, merged
                while len(calls) <= raw["index"]:
                    calls.append({"id": "", "type": "function", "function": {"name": "", "arguments": ""}})
                target = calls[raw["index"]]
                target["id"] = raw.get("id") or target["id"]
                target["function"]["name"] = raw.get("function", {}).get("name") or target["function"]["name"]
                target["function"]["arguments"] += raw.get("function", {}).get("arguments") or ""
            for position, call in enumerate(calls):
                call["id"] = call["id"] or f"call-{position}"
            text, thought = delta.get("content") or "", delta.get("reasoning_content")
            if thought:
                add(thought if reasoning else "<think>\n" + thought)
                reasoning = True
            if reasoning and (text or len(calls) > before):
                add("\n</think>")
                reasoning = False
            if entry["finish_reason"] is None and not text:
                continue
            finishing = entry["finish_reason"] is not None and not emitted
            emitted = emitted or (finishing and bool(calls))
            add(text, copy.deepcopy(calls) if finishing else [])
        if reasoning:
            add("\n</think>")
        if calls and not emitted:
            add("", copy.deepcopy(calls))
        chunks.append(self.chunk(request, len(chunks), usage=self.usage(request, reply), finish_reason="stop"))
        return chunks

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        if stream:
            yield from self.plugin_stream(reply, request)
            return
        content = f"<think>\n{reply.reasoning}\n</think>" if reply.reasoning else ""
        calls = [self.tool_call_dict(c) | {"id": self.call_id(c)} for c in reply.calls]
        yield self.chunk(request, 0, content=content + (reply.text or ""), tool_calls=calls, usage=self.usage(request, reply))


class AzureOpenAISnapshotContract(AzureOpenAIContract):
    """The same deployment behind the plugin's versions before 1fdcf1f (00ba75d…, 374ad78…):
    every chunk repeats the growing call list, the reasoning block stays open before calls, and a
    blocking ``null`` content beside calls fails in the plugin (``null_tool_content``).

    * streamed: a delta is skipped when it has no finish reason, no content and **no
      ``reasoning_content`` attribute**; a deployment that sends the field (even ``null``) on
      every delta gets a chunk for every delta. Each chunk carries the plugin's tool-call list
      **as it stands** (the calls so far, arguments growing: snapshots, not deltas).
      ``reasoning_content`` opens ``<think>\\n``; only a delta with content closes it
      (``\\n</think>`` before the text), so before tool calls the block stays **open**. The
      finish-reason delta yields an ordinary chunk (no ``finish_reason`` on it); then a last
      chunk: content ``""``, ``finish_reason`` ``stop``, usage.
    * blocking: as the newest, but when the provider's ``content`` is ``null`` (OpenAI's shape for
      a tool-call message) the plugin's ``content += None`` raises ``TypeError`` before anything
      reaches the strategy (``PluginFailure``).
    """

    name = "azure_openai_00ba75d"
    null_tool_content = False
    """Whether the provider answers a tool-call message with ``content: null`` (then this
    version's blocking handler fails)."""

    def plugin_stream(self, reply: Reply, request: dict[str, Any]) -> list[dict[str, Any]]:
        """The chunks the 00ba75d handler yields for the deployment's stream."""
        chunks: list[dict[str, Any]] = []
        calls: list[dict[str, Any]] = []
        reasoning = False
        for entry in self.deltas(reply):
            delta = entry["delta"]
            for raw in delta.get("tool_calls") or []:  # _update_tool_calls, by index
                if raw["index"] < len(calls):
                    calls[raw["index"]]["function"]["arguments"] += raw["function"].get("arguments") or ""
                else:
                    calls.append({"id": raw["id"], "type": raw["type"], "function": dict(raw["function"])})
            if entry["finish_reason"] is None and not delta.get("content") and "reasoning_content" not in delta:
                continue
            text, thought = delta.get("content") or "", delta.get("reasoning_content")
            if thought:
                text, reasoning = (thought if reasoning else "<think>\n" + thought), True
            elif reasoning and text:
                text, reasoning = "\n</think>" + text, False
            chunks.append(self.chunk(request, len(chunks), content=text, tool_calls=copy.deepcopy(calls)))
        chunks.append(self.chunk(request, len(chunks), usage=self.usage(request, reply), finish_reason="stop"))
        return chunks

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        if stream:
            yield from self.plugin_stream(reply, request)
            return
        text: str | None = reply.text
        if reply.calls and not reply.text and self.null_tool_content:
            text = None
        content = f"<think>\n{reply.reasoning}\n</think>" if reply.reasoning else ""
        if text is None:
            raise PluginFailure('[azure_openai] can only concatenate str (not "NoneType") to str')
        calls = [self.tool_call_dict(c) | {"id": self.call_id(c)} for c in reply.calls]
        yield self.chunk(request, 0, content=content + text, tool_calls=calls, usage=self.usage(request, reply))
