"""Tongyi Qwen on DashScope through Dify's official Tongyi model plugin, thinking on
(``qwen3.5-plus`` with ``enable_thinking``).

Model plugin: ``langgenius/dify-official-plugins`` ``models/tongyi/models/llm/llm.py``
(``TongyiLargeLanguageModel`` on the ``dashscope`` SDK: ``MultiModalConversation.call`` for
models with the ``vision`` feature, as ``qwen3.5-plus`` has, ``Generation.call`` otherwise).

Request (``_generate``, ``_convert_prompt_messages_to_tongyi_messages``, ``_convert_tools``):

* an assistant message keeps its content **as is** (a ``<think>`` block included; nothing is
  sent as ``reasoning_content``); empty content becomes ``" "``; its tool calls go as
  ``ToolCall.model_dump()`` (``id``, ``type``, ``function.name``, ``function.arguments``);
* a tool message becomes ``{"role": "tool", "content": ..., "name": <tool_call_id>}``: there
  is **no** ``tool_call_id`` field, so DashScope can only pair a tool message by position;
* vision models get every system/user/assistant text as ``[{"text": ...}]`` (tool contents stay
  as they are); a user message's content parts become ``{"text"}``/``{"image"}`` items;
* tools become ``{"type": "function", "function": {"name", "description", "parameters":
  {<name>: {"description", "type"}}, "required": [...]}}`` (the newest version, commit
  3862f8c932c23a7c3929e727cade908e0fff007f, reads a missing ``properties`` or ``required`` as
  empty and leaves out the ``type`` a property lacks; earlier ones failed with ``KeyError``;
  an ``enum`` of non-strings still fails in the ``join``);
* thinking models (``qwen3-*`` but coder/max, ``qwq-*``, ``qvq-*``, and the business models of
  the plugin's list when ``enable_thinking`` is on) are always called with ``stream=True`` and
  ``incremental_output=True``, whatever the caller asked; otherwise ``incremental_output`` is
  ``stream and not tools`` (non-incremental packets repeat the whole text and the whole
  arguments so far: the plugin diffs the text and replaces the arguments).

Chunks (``_handle_generate_stream_response``, ``_wrap_thinking_by_reasoning_content``):

* streamed: ``reasoning_content`` arrives as content opened by ``<think>\\n``; the first text
  delta is prefixed ``\\n</think>``; the first tool-call packet while reasoning yields a chunk
  ``\\n</think>``; tool-call deltas are merged and sent **once, complete, on the last chunk**
  (with ``finish_reason`` ``tool_calls`` and usage) with the function **name as id**; a text
  reply's last chunk carries the last text delta, ``finish_reason`` ``stop`` and usage. Chunk
  indexes are DashScope's packet numbers (gaps where a packet yielded nothing). No
  ``opaque_body``.
* blocking: a thinking model streams anyway and Dify joins its chunks into one ``LLMResult``:
  one chunk (index 0, no ``finish_reason``) with content ``<think>\\n…\\n</think>answer``, the
  tool calls (id = name) and usage. (A model that is not forced to stream goes through
  ``_handle_generate_response``: the content only, DashScope's tool calls with their ``call_``
  ids.)

What must come back: nothing provider-specific: the plugin re-sends the content (its
``<think>`` block included) and the tool calls; DashScope checks the structure only.

Provider rules enforced:

* a ``tool`` message must follow an assistant message with ``tool_calls`` (or another tool
  message answering it): ``<400> InternalError.Algo.InvalidParameter: messages with role
  "tool" must be a response to a preceeding message with "tool_calls".`` (reported in
  https://github.com/QwenLM/qwen-code/issues/2360,
  https://github.com/philschmid/mcp-openai-gemini-llama-example/pull/5);
* the arguments of a replayed tool call must be valid JSON (400,
  https://github.com/agentscope-ai/agentscope-java/issues/1147);
* no blank system/user/assistant content (https://github.com/coze-dev/coze-loop/issues/57; the
  plugin pads an empty assistant content with ``" "`` for that reason);
* a thinking call must stream with ``incremental_output`` ("parameter.enable_thinking must be
  set to false for non-streaming calls", "The incremental_output parameter must be "true" when
  enable_thinking is true": https://www.alibabacloud.com/help/en/model-studio/error-code).

Function calling: https://www.alibabacloud.com/help/en/model-studio/qwen-function-calling
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any, ClassVar

from local_runner.contracts.base import ContractBackend, Reply, chat_tool_calls, enum_value, pieces

THINKING_BUSINESS_MODELS = (
    "qwen-plus-latest",
    "qwen3.5-plus",
    "qwen3.5-plus-2026-02-15",
    "qwen-plus-2025-04-28",
    "qwen-turbo-latest",
    "qwen-turbo-2025-04-28",
    "qwen3-max-2026-01-23",
)
"""Business models that think when ``enable_thinking`` is on (the plugin's list)."""

VISION_MODELS = ("qwen3.5-plus", "qwen3.5-plus-2026-02-15", "qwen3-vl-30b-a3b-thinking", "qwen3-vl-30b-a3b-instruct")
"""Models whose yaml declares ``vision`` (their messages go through ``MultiModalConversation``)."""


def forced_stream(model: str, params: dict[str, Any]) -> bool:
    """Whether the plugin calls ``model`` streamed and incremental whatever the caller asked."""
    business = model in THINKING_BUSINESS_MODELS and bool(params.get("enable_thinking", False))
    qwen3 = model.startswith("qwen3-") and not model.startswith(("qwen3-coder", "qwen3-max"))
    return business or qwen3 or model.startswith(("qwq-", "qvq-"))


class TongyiContract(ContractBackend):
    """Qwen with thinking on behind the official Tongyi model plugin (see the module docstring)."""

    name = "tongyi"
    plugin_source = "langgenius/dify-official-plugins models/tongyi/models/llm/llm.py"
    provider_doc = "https://www.alibabacloud.com/help/en/model-studio/qwen-function-calling"
    provider = "langgenius/tongyi/tongyi"
    model = "qwen3.5-plus"
    features = ("vision", "multi-tool-call", "agent-thought", "stream-tool-call")
    completion_params: ClassVar[dict[str, Any]] = {"enable_thinking": True}

    # -- request ----------------------------------------------------------------------------

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        model = str(request.get("model") or "")
        params = dict(request.get("completion_params") or {})
        rich = model in VISION_MODELS
        tools = request.get("tools") or []
        stream = bool(request.get("stream", True))
        incremental = stream and not tools
        if forced_stream(model, params):
            stream = incremental = True
        body: dict[str, Any] = {
            "model": model,
            **params,
            "messages": [self._message(message, rich) for message in request.get("prompt_messages") or []],
            "stream": stream,
            "incremental_output": incremental,
        }
        if not rich:
            body["result_format"] = "message"  # Generation.call only
        if tools:
            body["tools"] = [self._tool(tool) for tool in tools]
        if request.get("stop"):
            body["stop"] = request["stop"]
        return body

    @staticmethod
    def _message(message: dict[str, Any], rich: bool) -> dict[str, Any]:
        role, content = enum_value(message.get("role")), message.get("content")
        if role == "tool":
            return {"role": "tool", "content": content, "name": message.get("tool_call_id")}
        if role == "user" and isinstance(content, list):
            items = []
            for part in content:
                if enum_value(part.get("type")) == "text":
                    items.append({"text": part.get("data")})
                elif enum_value(part.get("type")) == "image":
                    items.append({"image": part.get("url") or part.get("data")})
            items.sort(key=lambda item: "text" in item)  # the plugin puts media first
            return {"role": "user", "content": items}
        if role == "assistant" and not content:
            content = " "
        converted: dict[str, Any] = {"role": role, "content": [{"text": content}] if rich else content}
        if role == "assistant" and message.get("tool_calls"):
            converted["tool_calls"] = chat_tool_calls(message["tool_calls"], lambda call: call.get("type", "function"))
        return converted

    def _tool(self, tool: dict[str, Any]) -> dict[str, Any]:
        schema = tool.get("parameters") or {}
        try:
            properties, required = schema.get("properties", {}), schema.get("required", [])
            described = {}
            for key, prop in properties.items():
                text = prop.get("description") or ""
                if "enum" in prop:
                    text += "; Only accepts one of the following predefined options: [" + ", ".join(prop["enum"]) + "]"
                described[key] = {"description": text, **({"type": prop["type"]} if "type" in prop else {})}
        except (KeyError, TypeError) as error:
            self.reject(f"the Tongyi plugin cannot convert tool {tool.get('name')!r}: {error!r} in _convert_tools", status=500)
        return {"type": "function", "function": {"name": tool.get("name"), "description": tool.get("description"),
                                                 "parameters": described, "required": required}}

    # -- provider rules ---------------------------------------------------------------------

    def check(self, body: dict[str, Any]) -> None:
        if body.get("enable_thinking"):
            if not body.get("stream"):
                self.reject("<400> InvalidParameter: parameter.enable_thinking must be set to false for non-streaming calls")
            if not body.get("incremental_output"):
                self.reject('<400> InvalidParameter: The incremental_output parameter must be "true" when enable_thinking is true')
        answerable = False  # a tool message may come now: right after tool calls, or after their other results
        for index, message in enumerate(body["messages"]):
            role = message.get("role")
            if role == "tool":
                if not answerable:
                    self.reject('<400> InternalError.Algo.InvalidParameter: messages with role "tool" must be a response '
                                f'to a preceeding message with "tool_calls". (messages[{index}])')
                continue
            answerable = role == "assistant" and bool(message.get("tool_calls"))
            if _blank(message.get("content")):
                self.reject(f"<400> InternalError.Algo.InvalidParameter: messages[{index}] ({role}) has no content")
            for call in message.get("tool_calls") or []:
                try:
                    json.loads((call.get("function") or {}).get("arguments") or "")
                except (TypeError, ValueError):
                    self.reject("<400> InternalError.Algo.InvalidParameter: the function.arguments of a tool call in "
                                f"messages[{index}] must be in JSON format")

    # -- chunks -----------------------------------------------------------------------------

    def packets(self, reply: Reply, incremental: bool, thinking: bool = True) -> list[dict[str, Any]]:
        """DashScope's stream for ``reply``: one dict per packet (``reasoning_content``,
        ``content``, ``tool_calls`` deltas, ``finish_reason``); cumulative when not
        ``incremental``; reasoning only from a ``thinking`` model."""
        reasoning = pieces(reply.reasoning, 24) if thinking else []
        out: list[dict[str, Any]] = [{"content": "", "reasoning_content": piece} for piece in reasoning]
        for piece in pieces(reply.text, 7):
            out.append({"content": piece, "reasoning_content": ""})
        for index, call in enumerate(reply.calls):
            arguments = json.dumps(call.arguments, ensure_ascii=False)
            first = {"index": index, "id": f"call_{call.id}", "type": "function", "function": {"name": call.name, "arguments": ""}}
            out.append({"content": "", "reasoning_content": "", "tool_calls": [first]})
            for piece in pieces(arguments, 9):
                delta = {"index": index, "id": "", "type": "function", "function": {"arguments": piece}}
                out.append({"content": "", "reasoning_content": "", "tool_calls": [delta]})
        if not incremental:  # each packet repeats everything so far
            text, arguments = "", {}
            for packet in out:
                text += packet["content"]
                packet["content"] = text
                for delta in packet.get("tool_calls") or []:
                    so_far = arguments.get(delta["index"], "") + delta["function"].get("arguments", "")
                    arguments[delta["index"]] = so_far
                    delta["function"]["arguments"] = so_far
        last = out.pop() if out and (reply.calls or reply.text) else {"content": "", "reasoning_content": ""}
        last["finish_reason"] = reply.finish_reason
        return [*out, last]

    def plugin_stream(self, reply: Reply, request: dict[str, Any], incremental: bool, thinking: bool = True) -> list[dict[str, Any]]:
        """The chunks the plugin yields for DashScope's packets (its stream handler re-stated)."""
        usage = self.usage(request, reply)
        chunks: list[dict[str, Any]] = []
        reasoning, full_text, calls = False, "", []
        for index, packet in enumerate(self.packets(reply, incremental, thinking)):
            if packet.get("finish_reason"):
                content = ""
                if "tool_calls" in packet:
                    _merge_calls(calls, packet["tool_calls"], incremental)
                elif packet["content"]:
                    content = packet["content"] if incremental else packet["content"].replace(full_text, "", 1)
                    full_text = full_text + content if incremental else packet["content"]
                elif reasoning:
                    content = "\n</think>"
                merged = [{"id": c["function"]["name"], "type": "function",
                           "function": {"name": c["function"]["name"], "arguments": c["function"]["arguments"]}} for c in calls]
                chunks.append(self.chunk(request, index, content=content, tool_calls=merged, usage=usage,
                                         finish_reason=packet["finish_reason"]))
                continue
            text = packet["content"]
            if packet["reasoning_content"]:
                text = packet["reasoning_content"] if reasoning else "<think>\n" + packet["reasoning_content"]
                reasoning = True
            elif reasoning and text:
                text, reasoning = "\n</think>" + text, False
            parts = []
            if text:
                parts.append(text if incremental else text.replace(full_text, "", 1))
                full_text = full_text + text if incremental else text
            if "tool_calls" in packet:
                if reasoning:
                    parts.append("\n</think>")
                    reasoning = False
                _merge_calls(calls, packet["tool_calls"], incremental)
            if parts:
                chunks.append(self.chunk(request, index, content="".join(parts)))
        return chunks

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        model = str(request.get("model") or "")
        forced = forced_stream(model, request.get("completion_params") or {})
        if stream or forced:
            incremental = forced or not request.get("tools")
            chunks = self.plugin_stream(reply, request, incremental, thinking=forced)
            yield from chunks if stream else [_joined(self, request, chunks)]
            return
        calls = [{"index": i, "id": f"call_{c.id}", "type": "function",
                  "function": {"name": c.name, "arguments": json.dumps(c.arguments, ensure_ascii=False)}}
                 for i, c in enumerate(reply.calls)]
        tool_calls = [{"id": c["id"], "type": c["type"], "function": c["function"]} for c in calls]
        yield self.chunk(request, 0, content=reply.text, tool_calls=tool_calls, usage=self.usage(request, reply))


def _blank(content: Any) -> bool:
    if content is None or content == "" or content == []:
        return True
    return isinstance(content, list) and all(isinstance(p, dict) and p.get("text") == "" for p in content)


def _merge_calls(calls: list[dict[str, Any]], deltas: list[dict[str, Any]], incremental: bool) -> None:
    """The plugin's ``_handle_tool_call_stream``: a new index is taken as it came; later deltas
    append (incremental) or replace (cumulative) the name and the arguments."""
    for delta in deltas:
        index = delta.get("index", 0)
        if index >= len(calls):
            calls.append(copy.deepcopy(delta))
            calls[-1]["function"].setdefault("arguments", "")
            continue
        function = delta.get("function") or {}
        target = calls[index]["function"]
        for key in ("name", "arguments"):
            if function.get(key):
                target[key] = target.get(key, "") + function[key] if incremental else function[key]


def _joined(backend: ContractBackend, request: dict[str, Any], chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """What Dify makes of a plugin stream for a blocking call: one ``LLMResult`` (content
    joined, tool calls merged by id, the last usage) sent on as one chunk."""
    content, calls, usage = "", {}, None
    for chunk in chunks:
        message = chunk["delta"]["message"]
        content += message["content"] or ""
        for call in message["tool_calls"]:
            calls[call["id"]] = call
        usage = chunk["delta"]["usage"] or usage
    return backend.chunk(request, 0, content=content, tool_calls=list(calls.values()), usage=usage)
