"""Model plugins on the SDK's OpenAI-compatible base, and OpenAI's own chat completions.

Conversion (SDK ``dify_plugin/interfaces/model/openai_compatible/llm.py``,
``_convert_prompt_message_to_dict``): system/user text, an assistant message's content **as
is** (a ``<think>`` block included) with its ``tool_calls``, tool messages with their
``tool_call_id``. Stream (``_handle_generate_stream_response``): ``reasoning_content`` deltas
are wrapped into the content as ``<think>\\n…\\n</think>`` (``_wrap_thinking_by_reasoning_content``),
tool calls are merged and sent complete in one chunk after the text, then a last empty chunk
with usage and ``finish_reason``. Blocking: one chunk with the whole message and usage.

Every backend here enforces the OpenAI chat rules that these providers document alike
(https://platform.openai.com/docs/guides/function-calling): a ``tool`` message answers a
``tool_calls`` id of the assistant message right before it, and every id is answered.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

from local_runner.contracts.base import ContractBackend, Reply, check_tool_pairing, text_of


class OpenAIStyleContract(ContractBackend):
    """The shared conversion and chunk shapes; ``reasoning`` chooses whether the model thinks
    (its reasoning then travels in the content as the SDK base wraps it)."""

    reasoning = True

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        messages = []
        for message in request.get("prompt_messages") or []:
            converted: dict[str, Any] = {"role": message.get("role"), "content": text_of(message.get("content"))}
            if message.get("role") == "assistant" and message.get("tool_calls"):
                converted["tool_calls"] = message["tool_calls"]
            if message.get("role") == "tool":
                converted["tool_call_id"] = message.get("tool_call_id")
            messages.append(converted)
        return {"model": request.get("model"), "messages": messages, "tools": request.get("tools") or None,
                "stop": request.get("stop")}

    refuses_empty_assistant = False
    """Whether the provider refuses an assistant message with neither content nor tool calls."""

    def check(self, body: dict[str, Any]) -> None:
        check_tool_pairing(self, body["messages"])
        for message in body["messages"]:
            empty = message["role"] == "assistant" and not message["content"].strip() and not message.get("tool_calls")
            if empty and self.refuses_empty_assistant:
                self.reject("Invalid parameter: an assistant message must have content or tool_calls.")

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        think = f"<think>\n{reply.reasoning}\n</think>" if self.reasoning else ""
        calls = [self.tool_call_dict(call) for call in reply.calls]
        usage = self.usage(request, reply)
        if not stream:
            yield self.chunk(request, 0, content=think + reply.text, tool_calls=calls, usage=usage)
            return
        pieces = ([think[:12], think[12:]] if think else []) + [reply.text[i : i + 6] for i in range(0, len(reply.text), 6)]
        for index, piece in enumerate(pieces, start=1):
            yield self.chunk(request, index, content=piece)
        if calls:
            yield self.chunk(request, len(pieces) + 1, tool_calls=calls)
        yield self.chunk(request, len(pieces) + 2, usage=usage, finish_reason=reply.finish_reason)


class OpenAIChatContract(OpenAIStyleContract):
    """OpenAI chat completions (``gpt-4o-mini``) behind the official OpenAI model plugin
    (``langgenius/dify-official-plugins`` ``models/openai/models/llm/llm.py``): no reasoning in
    the stream; the rules above."""

    name = "openai"
    plugin_source = "langgenius/dify-official-plugins models/openai/models/llm/llm.py"
    provider_doc = "https://platform.openai.com/docs/guides/function-calling"
    provider = "langgenius/openai/openai"
    model = "gpt-4o-mini"
    features = ("tool-call", "multi-tool-call", "agent-thought", "stream-tool-call", "vision")
    reasoning = False


class TongyiContract(OpenAIStyleContract):
    """Qwen with thinking on (``qwen3-235b-a22b``, ``enable_thinking``) behind the official Tongyi
    model plugin (``langgenius/dify-official-plugins`` ``models/tongyi/models/llm/llm.py``):
    DashScope's ``reasoning_content`` reaches the strategy as a ``<think>`` block in the content.
    DashScope refuses a ``tool`` message that does not answer the ``tool_calls`` right before it
    ("messages with role 'tool' must be a response to a preceeding message with 'tool_calls'",
    https://help.aliyun.com/zh/model-studio/qwen-function-calling) and an assistant message with
    neither content nor tool calls."""

    name = "tongyi"
    plugin_source = "langgenius/dify-official-plugins models/tongyi/models/llm/llm.py"
    provider_doc = "https://help.aliyun.com/zh/model-studio/qwen-function-calling"
    provider = "langgenius/tongyi/tongyi"
    model = "qwen3-235b-a22b"
    completion_params: ClassVar[dict[str, Any]] = {"enable_thinking": True}
    refuses_empty_assistant = True


class OllamaContract(OpenAIStyleContract):
    """A thinking model on Ollama (``qwen3:8b``, ``think``) behind the official Ollama model
    plugin (``langgenius/dify-official-plugins`` ``models/ollama/models/llm/llm.py``): reasoning
    arrives as a ``<think>`` block in the content, tool calls complete in one chunk with the
    tool name as id. Ollama's chat API (https://github.com/ollama/ollama/blob/main/docs/api.md)
    takes tool results as ``tool`` messages after the assistant's ``tool_calls``."""

    name = "ollama"
    plugin_source = "langgenius/dify-official-plugins models/ollama/models/llm/llm.py"
    provider_doc = "https://github.com/ollama/ollama/blob/main/docs/api.md#chat-request-with-tools"
    provider = "langgenius/ollama/ollama"
    model = "qwen3:8b"
    features = ("tool-call", "multi-tool-call", "agent-thought")  # no stream-tool-call: blocking calls

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        named = Reply(reply.reasoning, reply.text, tuple(type(c)(c.name, c.name, c.arguments) for c in reply.calls))
        yield from super().emit(named, request, stream)


class OpenAICompatibleContract(OpenAIStyleContract):
    """A reasoning model on vLLM behind the official OpenAI-API-compatible model plugin
    (``langgenius/dify-official-plugins`` ``models/openai_api_compatible``, on the SDK's base):
    ``reasoning_content`` becomes a ``<think>`` block in the content. vLLM's chat endpoint
    (https://docs.vllm.ai/en/latest/features/tool_calling.html) follows the OpenAI rules above;
    several such servers refuse an assistant message that is empty."""

    name = "openai_api_compatible"
    plugin_source = "langgenius/dify-official-plugins models/openai_api_compatible/models/llm/llm.py"
    provider_doc = "https://docs.vllm.ai/en/latest/features/tool_calling.html"
    provider = "langgenius/openai_api_compatible/openai_api_compatible"
    model = "Qwen/Qwen3-8B"
    refuses_empty_assistant = True
