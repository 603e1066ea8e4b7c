"""Qwen3 served by GPUStack (vLLM underneath) through Dify's official GPUStack model plugin
(``qwen3-8b``, credentials ``function_calling_type: tool_call``, ``stream_function_calling:
supported``, ``compatibility_mode: strict``, the plugin's default).

Model plugin: ``langgenius/dify-official-plugins`` ``models/gpustack/models/llm/llm.py`` (commit
2130a241c5d29f47e30e09044dd92952629d85dc: ``GPUStackLanguageModel`` on the SDK's OpenAI-compatible
base, with its own reasoning wrapper, replay stripping, thinking filter and blocking handler).

Request (``_invoke``, ``_drop_analyze_channel``, the base's conversion):

* an assistant string content that **starts** with ``<think>`` loses that one leading block
  (``^<think>.*?</think>\\s*``, once); any other block stays in the text; calls go with their ids;
* ``agent_thought_support`` decides thinking: ``supported`` takes the node's ``enable_thinking``,
  ``not_supported`` (the default) forces it off, ``only_thinking_supported`` on; in the default
  ``strict`` mode no thinking switch reaches the server (``chat_template_kwargs`` and the rest only
  in ``extended``), so Qwen3 thinks as its template defaults.

Chunks:

* streamed (the base's handler with the plugin's ``_wrap_thinking_by_reasoning_content``):
  ``reasoning`` or ``reasoning_content`` deltas become content opened by ``<think>\\n``; the first
  delta without reasoning (a tool-call delta too) closes it with ``\\n</think>`` and its text; calls
  merged by id and sent complete after the text; a last chunk with usage and ``finish_reason``.
  When thinking is off (``GPUStackThinkingOffContract``), ``_filter_thinking_stream`` then removes
  every ``<think>…</think>`` span from the streamed content (holding back a trailing piece of a tag;
  a chunk whose content comes out empty is dropped unless it carries usage, a finish reason or
  calls).
* blocking (the plugin's ``_handle_generate_response``): the content (``""`` for none, ``str()`` of
  a non-string) and the calls; the reasoning dropped.

What must come back: the call ids (vLLM pairs results OpenAI-style). Provider rules: as the
OpenAI-API-compatible contract (tool pairing; an assistant message needs content or calls).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, ClassVar

from local_runner.contracts.base import Reply, chat_tool_calls, enum_value
from local_runner.contracts.openai_compatible import OpenAICompatibleContract

LEADING_THINK = re.compile(r"^<think>.*?</think>\s*", re.S)
OPEN_TAG, CLOSE_TAG = "<think>", "</think>"


class GPUStackContract(OpenAICompatibleContract):
    """Qwen3 on GPUStack behind the official GPUStack model plugin, thinking supported and on
    (see the module docstring)."""

    name = "gpustack"
    plugin_source = "langgenius/dify-official-plugins models/gpustack/models/llm/llm.py"
    provider_doc = "https://docs.gpustack.ai/latest/user-guide/openai-compatible-apis/"
    provider = "langgenius/gpustack/gpustack"
    model = "qwen3-8b"
    features = ("multi-tool-call", "stream-tool-call", "agent-thought")
    completion_params: ClassVar[dict[str, Any]] = {"enable_thinking": True}
    reasoning_field = "reasoning_content"
    extended = False
    thinking_off = False
    """``agent_thought_support: not_supported``: the plugin filters the reasoning out."""

    @staticmethod
    def _message(message: dict[str, Any]) -> dict[str, Any]:
        """The base's conversion after ``_drop_analyze_channel`` (a leading block only)."""
        role, content = enum_value(message.get("role")), message.get("content")
        if role == "assistant" and isinstance(content, str) and content.startswith(OPEN_TAG):
            message = {**message, "content": LEADING_THINK.sub("", content, count=1)}
        if role == "assistant":
            converted: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
            if message.get("tool_calls"):
                converted["tool_calls"] = chat_tool_calls(message["tool_calls"])
            return converted
        return OpenAICompatibleContract._message(message)

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        params = dict(request.get("completion_params") or {})
        params.pop("enable_thinking", None)  # strict mode: no switch reaches the server
        return super().to_provider({**request, "completion_params": params})

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        if stream:
            chunks = self.plugin_stream(reply, request)
            yield from (filter_thinking(chunks) if self.thinking_off else chunks)
            return
        calls = [self.tool_call_dict(c) | {"id": self.call_id(c)} for c in reply.calls]
        yield self.chunk(request, 0, content=reply.text, tool_calls=calls, usage=self.usage(request, reply))


class GPUStackThinkingOffContract(GPUStackContract):
    """The same model with the plugin's default ``agent_thought_support: not_supported``: Qwen3
    still thinks (strict mode sends no switch), and the plugin filters the ``<think>`` spans out
    of the stream (see the module docstring)."""

    name = "gpustack_thinking_off"
    features = ("multi-tool-call", "stream-tool-call")
    completion_params: ClassVar[dict[str, Any]] = {}
    thinking_off = True
    reasoning = False
    """The model reasons, but no reasoning reaches the strategy (the plugin filters it out)."""


def _partial_tag(text: str, tag: str) -> int:
    """The plugin's ``_trailing_partial_tag_length``: how many characters ending ``text`` start
    ``tag``."""
    for size in range(min(len(text), len(tag) - 1), 0, -1):
        if text.endswith(tag[:size]):
            return size
    return 0


def _terminal(chunk: dict[str, Any]) -> bool:
    delta = chunk["delta"]
    return delta.get("usage") is not None or delta.get("finish_reason") is not None or bool(delta["message"]["tool_calls"])


def filter_thinking(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The plugin's ``_filter_thinking_stream`` over the chunks it yields (re-stated)."""
    out: list[dict[str, Any]] = []
    buffer, thinking, held = "", False, None
    for chunk in chunks:
        content = chunk["delta"]["message"]["content"]
        if not (isinstance(content, str) and content):
            out.append(chunk)
            continue
        buffer += content
        held = chunk
        parts: list[str] = []
        while buffer:
            if thinking:
                end = buffer.find(CLOSE_TAG)
                if end != -1:
                    buffer, thinking = buffer[end + len(CLOSE_TAG):], False
                    continue
                keep = _partial_tag(buffer, CLOSE_TAG)
                buffer = buffer[-keep:] if keep else ""
                break
            start = buffer.find(OPEN_TAG)
            if start != -1:
                parts.append(buffer[:start])
                buffer, thinking = buffer[start + len(OPEN_TAG):], True
                continue
            keep = _partial_tag(buffer, OPEN_TAG)
            parts.append(buffer[:-keep] if keep else buffer)
            buffer = buffer[-keep:] if keep else ""
            break
        text = "".join(parts)
        if text or _terminal(chunk):
            message = {**chunk["delta"]["message"], "content": text}
            out.append({**chunk, "delta": {**chunk["delta"], "message": message}})
            held = None
    if buffer and not thinking and held is not None:
        message = {**held["delta"]["message"], "content": buffer}
        out.append({**held, "delta": {**held["delta"], "message": message}})
    return out
