"""Qwen3 on a SageMaker endpoint (an OpenAI-style chat container) through Dify's official
SageMaker model plugin, the model set up with ``function_calling_type: tool_call``.

Model plugin: ``langgenius/dify-official-plugins`` ``models/sagemaker/models/llm/llm.py`` (commit
d2e4c1d2acb9b971ba1e00a2a4bd3828903f8282): its own class on ``LargeLanguageModel`` and the
``sagemaker`` SDK's ``Predictor``.

Request (``inference``, ``_convert_prompt_message_to_dict``): the payload is ``model``,
``messages``, ``stream``, ``max_tokens``, ``temperature``, ``top_p`` and ``stop`` only: **the tools
are never sent**. An assistant message goes as its content and its first call as
``function_call``; a tool message as ``{"tool_call_id", "role": "tool", "content"}``. A streamed
request that has tools fails in the plugin ("<model>'s tool calls does not support stream mode").
The customizable schema declares ``tool-call`` (not ``stream-tool-call``) for ``tool_call``.

Chunks (``_handle_chat_stream_response``, ``_handle_chat_generate_response``): no tool call is
ever read. Streamed: a ``reasoning_content`` delta opens ``<think>\\n`` (the flag lives on the model
instance), the first ``content`` delta after it is prefixed ``\\n</think>\\n\\n``; the delta with a
finish reason carries it and usage. Blocking: the text, and an empty text fails ("Empty
response").

Recorded: ``tools_sent`` (requests that carried tools, which the endpoint never sees).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

from local_runner.contracts.base import (
    ContractBackend,
    PluginFailure,
    Reply,
    enum_value,
    legacy_function_call,
    pieces,
)


class SageMakerContract(ContractBackend):
    """Qwen3 behind the official SageMaker model plugin (see the module docstring)."""

    name = "sagemaker"
    plugin_source = "langgenius/dify-official-plugins models/sagemaker/models/llm/llm.py"
    provider_doc = "https://docs.aws.amazon.com/sagemaker/latest/dg/large-model-inference-container-docs.html"
    provider = "langgenius/sagemaker/sagemaker"
    model = "qwen3-32b"
    features = ("tool-call",)
    completion_params: ClassVar[dict[str, Any]] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tools_sent: list[list[str]] = []

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        stream = bool(request.get("stream", True))
        if request.get("tools"):
            self.tools_sent.append([t.get("name") for t in request["tools"]])
            if stream:
                raise PluginFailure(f"[{self.name}] {self.model}'s tool calls does not support stream mode")
        params = request.get("completion_params") or {}
        return {
            "model": "",
            "messages": [self._message(m) for m in request.get("prompt_messages") or []],
            "stream": stream,
            "max_tokens": params.get("max_new_tokens", params.get("max_tokens", 2048)),
            "temperature": params.get("temperature", 0.1),
            "top_p": params.get("top_p", 0.9),
            "stop": request.get("stop"),
        }

    @staticmethod
    def _message(message: dict[str, Any]) -> dict[str, Any]:
        role, content = enum_value(message.get("role")), message.get("content")
        if role == "assistant":
            return legacy_function_call(message)
        if role == "tool":
            return {"tool_call_id": message.get("tool_call_id"), "role": "tool", "content": content}
        return {"role": role, "content": content}

    def check(self, body: dict[str, Any]) -> None:
        """The container renders the messages through the model's template; nothing is paired."""

    def brain_view(self, request: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        """The model never hears of the tools."""
        return {**request, "tools": None}

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        usage = self.usage(request, reply)
        if not stream:
            if not reply.text:
                raise PluginFailure(f"[{self.name}] Empty response")
            yield self.chunk(request, 0, content=reply.text, usage=usage)
            return
        thoughts = pieces(reply.reasoning, 16)
        for index, piece in enumerate(thoughts):
            yield self.chunk(request, 0, content=("<think>\n" if index == 0 else "") + piece)
        texts = pieces(reply.text, 8) or [""]
        for index, piece in enumerate(texts):
            text = ("\n</think>\n\n" if thoughts and index == 0 else "") + piece
            last = index == len(texts) - 1
            yield self.chunk(request, 0, content=text, usage=usage if last else None,
                             finish_reason=reply.finish_reason if last else None)
