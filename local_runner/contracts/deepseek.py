"""DeepSeek through Dify's official DeepSeek model plugin, thinking on (``deepseek-v4-flash``).

Model plugin: ``langgenius/dify-official-plugins`` ``models/deepseek/models/llm/llm.py``
(``DeepseekLargeLanguageModel`` on the SDK's OpenAI-compatible base,
``dify_plugin/interfaces/model/openai_compatible/llm.py``):

* streamed: ``reasoning_content`` deltas arrive as content, opened by
  ``<think>\\n<!--dify-deepseek-reasoning-->`` (HTML-escaped) and closed by ``\\n</think>`` when
  the first content or tool-call delta comes; tool calls are merged and sent complete in one
  chunk after the text; a last empty chunk carries usage and ``finish_reason``. No
  ``opaque_body``.
* blocking: one chunk (``LLMResult.to_llm_result_chunk``: index 0, no finish reason) whose
  content is the same marked ``<think>`` block followed by the answer, ``opaque_body =
  {"reasoning_content": ...}``, the tool calls and usage.
* request: consecutive messages of one role are merged, empty ones dropped; an assistant
  message's ``reasoning_content`` comes from ``opaque_body["reasoning_content"]`` or else from
  the marked ``<think>`` block of its content (which is removed); V4 models always send the
  field (``""`` when nothing was found).

Provider rules enforced (https://api-docs.deepseek.com/guides/thinking_mode, "Tool calls"):
in thinking mode, an assistant message with tool calls in the current turn (after the last
user message) must carry its ``reasoning_content`` back (400 "The `reasoning_content` in the
thinking mode must be passed back to the API."); tool messages answer the tool calls right
before them (https://api-docs.deepseek.com/guides/function_calling).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

from local_runner.contracts.base import ContractBackend, Reply, check_tool_pairing, text_of

MARK = "<!--dify-deepseek-reasoning-->"
_THINK = re.compile(r"<think>\n" + re.escape(MARK) + r"(.*?)\n</think>", re.S | re.I)
V4_MODELS = ("deepseek-v4-flash", "deepseek-v4-pro", "deepseek-v4-flash-vision-exp")


def _merged(messages: list[dict[str, Any]], think: re.Pattern[str] = _THINK) -> list[dict[str, Any]]:
    """The plugin's clean-up: drop empty messages, merge consecutive user/assistant messages."""
    out: list[dict[str, Any]] = []
    for message in messages:
        message = dict(message)
        role = message.get("role")
        if role in ("tool", "system"):
            out.append(message)
            continue
        if not message.get("content") and not message.get("tool_calls"):
            continue
        if not out or out[-1].get("role") != role:
            out.append(message)
            continue
        previous = out[-1]
        previous["content"] = "\n\n".join(t for t in (text_of(previous.get("content")), text_of(message.get("content"))) if t)
        if role == "assistant":
            if think.search(previous["content"]):
                previous["opaque_body"] = None
            previous["tool_calls"] = [*(previous.get("tool_calls") or []), *(message.get("tool_calls") or [])]
    return out


class DeepSeekContract(ContractBackend):
    """DeepSeek V4 with thinking on, behind the official DeepSeek model plugin.

    Subclasses for plugins with the same conversion and another ``<think>`` markup set
    ``think_open``, ``think_close``, ``think_pattern``, ``escape`` and ``thinking_models``."""

    think_open = "<think>\n" + MARK
    think_close = "\n</think>"
    think_pattern = _THINK
    escape = True
    thinking_models: tuple[str, ...] = V4_MODELS

    name = "deepseek"
    plugin_source = "langgenius/dify-official-plugins models/deepseek/models/llm/llm.py"
    provider_doc = "https://api-docs.deepseek.com/guides/thinking_mode"
    provider = "langgenius/deepseek/deepseek"
    model = "deepseek-v4-flash"

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        model = str(request.get("model") or "")
        thinking = (request.get("completion_params") or {}).get("thinking", True)
        messages = []
        for message in _merged(request.get("prompt_messages") or [], self.think_pattern):
            converted: dict[str, Any] = {"role": message.get("role"), "content": text_of(message.get("content"))}
            if message.get("role") == "tool":
                converted["tool_call_id"] = message.get("tool_call_id")
            if message.get("role") == "assistant":
                converted["tool_calls"] = message.get("tool_calls") or []
                reasoning = None
                opaque = message.get("opaque_body")
                if isinstance(opaque, dict) and isinstance(opaque.get("reasoning_content"), str):
                    reasoning = opaque["reasoning_content"]
                found = self.think_pattern.findall(converted["content"])
                converted["content"] = self.think_pattern.sub("", converted["content"])
                if reasoning is None and found:
                    reasoning = "\n\n".join(html.unescape(part) if self.escape else part for part in found)
                if model in self.thinking_models or reasoning is not None:
                    converted["reasoning_content"] = reasoning or ""
            messages.append(converted)
        return {"model": model, "messages": messages, "tools": request.get("tools") or None, "thinking": thinking}

    def check(self, body: dict[str, Any]) -> None:
        messages = body["messages"]
        check_tool_pairing(self, messages)
        if body.get("thinking") in (False, {"type": "disabled"}):
            return
        last_user = max((i for i, m in enumerate(messages) if m["role"] == "user"), default=-1)
        for message in messages[last_user + 1 :]:
            if message["role"] == "assistant" and message.get("tool_calls") and not message.get("reasoning_content"):
                self.reject("The `reasoning_content` in the thinking mode must be passed back to the API.")

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        reasoning = html.escape(reply.reasoning, quote=False) if self.escape else reply.reasoning
        think = self.think_open + reasoning
        calls = [self.tool_call_dict(call) for call in reply.calls]
        usage = self.usage(request, reply)
        if not stream:
            yield self.chunk(
                request, 0, content=think + self.think_close + reply.text, tool_calls=calls,
                opaque_body={"reasoning_content": reply.reasoning}, usage=usage,
            )
            return
        index = 0
        for piece in (think[:20], think[20:]):
            index += 1
            yield self.chunk(request, index, content=piece)
        text = reply.text
        pieces = [text[i : i + 7] for i in range(0, len(text), 7)] or [""]
        pieces[0] = self.think_close + pieces[0]
        for piece in pieces:
            index += 1
            yield self.chunk(request, index, content=piece)
        if calls:
            index += 1
            yield self.chunk(request, index, tool_calls=calls)
        yield self.chunk(request, index, usage=usage, finish_reason=reply.finish_reason)
