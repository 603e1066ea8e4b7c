"""What every provider contract backend shares.

A *contract backend* answers the plugin's backwards ``llm`` invocations the way one official
Dify model plugin and the provider behind it would, without any network:

1. ``to_provider`` turns the request's ``PromptMessage`` dicts into the body the model plugin
   would send to the provider (the plugin's own conversion rules, re-stated);
2. ``check`` applies the provider's documented refusals to that body and raises
   ``ProviderRejection`` (an HTTP 400 with the provider's message) when one applies;
3. a deterministic ``TaskBrain`` decides the reply: call one tool, then answer with what the
   tool returned (natively when the request declares tools, as ReAct text otherwise), always
   with some reasoning;
4. ``emit`` turns that reply into ``LLMResultChunk`` dicts shaped as the model plugin yields
   them (where reasoning, ``opaque_body``, tool calls and usage appear), streamed or blocking.

A backend records every request (``requests``), every provider body (``provider_requests``)
and every refusal (``rejections``), so a test can assert that none happened.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from local_runner.backends import Pricing, content_text, estimate_prompt_tokens, estimate_tokens, make_usage

REASONING_MARK = "brain-reasoning"
"""Every reasoning text a ``TaskBrain`` writes contains this word: a test that finds it in the
user's answer or in memory has found leaked reasoning."""

Shape = Literal["stream", "blocking", "auto"]


class ProviderRejection(RuntimeError):
    """The provider refused the request (HTTP ``status``, the provider's ``message``)."""

    def __init__(self, provider: str, message: str, status: int = 400) -> None:
        super().__init__(f"[{provider}] Error code: {status} - {message}")
        self.provider = provider
        self.status = status
        self.message = message


class PluginFailure(RuntimeError):
    """The model plugin itself failed before any request reached the provider (a bug of the
    plugin, not a provider's refusal): the daemon reports it as the invocation's error."""


@dataclass(frozen=True)
class BrainCall:
    """One tool call the brain decided on: provider-style ``id``, tool ``name``, ``arguments``."""

    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Reply:
    """What the brain says in one turn: hidden ``reasoning``, visible ``text``, native ``calls``."""

    reasoning: str
    text: str = ""
    calls: tuple[BrainCall, ...] = ()

    @property
    def finish_reason(self) -> str:
        """``tool_calls`` when the reply calls tools, else ``stop``."""
        return "tool_calls" if self.calls else "stop"


@dataclass
class TaskBrain:
    """A deterministic model that does one task: call ``tool`` with ``arguments``, then answer
    with the tool's result.

    With native tools declared in the request it calls the tool through tool calls and answers
    once a tool message follows the last user message. Without (ReAct), it writes
    ``Thought:``/``Action:`` text and answers with ``Final Answer:`` once an ``Observation:``
    holding a result follows the query; asked for a JSON step (the request has a
    ``structured_output_schema``: ReAct's constrained steps, chat prompt), it writes the step
    ``{"action", "action_input"}`` and answers once a user message holds an ``Observation:``.
    The answer is ``answer_prefix`` + the result.
    """

    tool: str = "calculator"
    arguments: dict[str, Any] = field(default_factory=lambda: {"expression": "37 * 91"})
    answer_prefix: str = "The result is "
    turns: int = 0

    def reply(self, request: dict[str, Any]) -> Reply:
        """The reply to one backwards ``llm`` request body."""
        self.turns += 1
        messages = request.get("prompt_messages") or []
        reasoning = f"({REASONING_MARK} {self.turns}) The user needs {self.tool}; I check what I know so far."
        if request.get("tools"):
            result = _native_result(messages)
            if result is None:
                call = BrainCall(id=f"call_{self.turns:02d}_{self.tool}", name=self.tool, arguments=self.arguments)
                return Reply(reasoning=reasoning, text="", calls=(call,))
            return Reply(reasoning=reasoning, text=self.answer_prefix + result)
        if request.get("structured_output_schema") is not None:
            result = _json_step_result(messages)
            if result is None:
                return Reply(reasoning=reasoning, text=json.dumps({"action": self.tool, "action_input": self.arguments}))
            answer = {"action": "final_answer", "action_input": {"answer": self.answer_prefix + result}}
            return Reply(reasoning=reasoning, text=json.dumps(answer))
        result = _react_result(messages)
        if result is None:
            action = json.dumps({"action": self.tool, "action_input": self.arguments})
            return Reply(reasoning=reasoning, text=f"Thought: I will use {self.tool}.\nAction:\n```json\n{action}\n```")
        return Reply(reasoning=reasoning, text=f"Thought: I have the result.\nFinal Answer: {self.answer_prefix}{result}")


def _after_last_user(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    last = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    return messages[last + 1 :]


def _native_result(messages: list[dict[str, Any]]) -> str | None:
    results = [content_text(m.get("content")) for m in _after_last_user(messages) if m.get("role") == "tool"]
    return results[-1].strip() if results else None


_OBSERVATION = re.compile(r"Observation:\s*(.+?)(?=\n(?:Thought|Action|Observation|Final Answer|Continue)\b|\Z)", re.S)


def _json_step_result(messages: list[dict[str, Any]]) -> str | None:
    """The last observation of a JSON-step chat prompt (a user message ``Observation: ...``)."""
    found = [content_text(m.get("content")) for m in messages if m.get("role") == "user"]
    found = [text.removeprefix("Observation:").strip() for text in found if text.startswith("Observation:")]
    return found[-1] if found else None


def _react_result(messages: list[dict[str, Any]]) -> str | None:
    """The last observation written after the first user message that is not memory (ReAct's
    scratchpad), or None before any tool ran."""
    text = "\n".join(content_text(m.get("content")) for m in messages if m.get("role") != "system")
    found = _OBSERVATION.findall(text)
    return found[-1].strip() if found else None


class ContractBackend:
    """Base of the provider contract backends (see the module docstring).

    Subclasses set ``name``, ``plugin_source`` and ``provider_doc`` and implement
    ``to_provider``, ``check`` and ``emit``. ``shape`` chooses how replies come back:
    ``"stream"`` (many chunks), ``"blocking"`` (one chunk, as the model plugin's ``LLMResult``
    reaches the strategy through the daemon) or ``"auto"`` (as the request's ``stream`` asks).
    """

    name = "contract"
    plugin_source = ""
    provider_doc = ""
    provider = "langgenius/openai_api_compatible/openai_api_compatible"
    """The model-selector's ``provider`` for this model plugin."""
    model = "model"
    """A model name the plugin serves (with the features below)."""
    features: tuple[str, ...] = ("tool-call", "multi-tool-call", "agent-thought", "stream-tool-call")
    """The model's ``AIModelEntity.features`` as Dify's Agent node sends them."""
    completion_params: ClassVar[dict[str, Any]] = {}
    reasoning = True
    """Whether the model reasons (its replies then carry reasoning somewhere)."""
    blocking_calls = True
    """Whether the model plugin hands on the tool calls of a blocking reply (Hunyuan's drops them)."""

    @classmethod
    def model_settings(cls, *, stream: bool = True) -> dict[str, Any]:
        """``ModelSettings`` fields for a scenario that uses this model; without
        ``stream-tool-call`` when ``stream`` is False (Function Calling then asks for a
        blocking reply)."""
        features = [f for f in cls.features if stream or f != "stream-tool-call"]
        return {"provider": cls.provider, "model": cls.model, "features": features, "completion_params": dict(cls.completion_params)}

    def __init__(self, shape: Shape = "auto", *, brain: TaskBrain | None = None, pricing: Pricing | None = None) -> None:
        self.shape = shape
        self.brain = brain or TaskBrain()
        self.pricing = pricing or Pricing()
        self.requests: list[dict[str, Any]] = []
        self.provider_requests: list[dict[str, Any]] = []
        self.rejections: list[ProviderRejection] = []
        self._lock = threading.Lock()

    # -- what subclasses implement --------------------------------------------------------------

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        """The provider request body the model plugin builds from the backwards ``request``."""
        raise NotImplementedError

    def check(self, body: dict[str, Any]) -> None:
        """Raise ``ProviderRejection`` when the provider refuses ``body``."""
        raise NotImplementedError

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        """The reply as the model plugin's ``LLMResultChunk`` dicts (see ``chunk``)."""
        raise NotImplementedError

    # -- the backend interface ------------------------------------------------------------------

    def invoke_llm(self, request: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """Convert, check, decide and emit; a refusal raises before any chunk."""
        with self._lock:
            self.requests.append(request)
            try:
                body = self.to_provider(request)
                self.provider_requests.append(body)
                self.check(body)
            except ProviderRejection as rejection:
                self.rejections.append(rejection)
                raise
            reply = self.brain.reply(self.brain_view(request, body))
        stream = request.get("stream", True) if self.shape == "auto" else self.shape == "stream"
        return self.emit(reply, request, bool(stream))

    def brain_view(self, request: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        """What the brain decides from: the plugin's request (a backend whose provider body
        reshapes the conversation returns its own view of ``body``)."""
        return request

    # -- helpers for subclasses -----------------------------------------------------------------

    def reject(self, message: str, status: int = 400) -> None:
        """Raise the provider's refusal."""
        raise ProviderRejection(self.name, message, status)

    def usage(self, request: dict[str, Any], reply: Reply) -> dict[str, Any]:
        """A complete 12-field usage for ``reply`` (estimated token counts)."""
        completion = estimate_tokens(reply.reasoning + reply.text + json.dumps([c.arguments for c in reply.calls]))
        return make_usage(estimate_prompt_tokens(request), completion, self.pricing)

    @staticmethod
    def chunk(
        request: dict[str, Any],
        index: int,
        *,
        content: Any = "",
        tool_calls: list[dict[str, Any]] | None = None,
        opaque_body: Any = None,
        usage: dict[str, Any] | None = None,
        finish_reason: str | None = None,
    ) -> dict[str, Any]:
        """One ``LLMResultChunk`` dict; ``opaque_body`` is set on the message only when given."""
        message: dict[str, Any] = {
            "role": "assistant",
            "content": content,
            "name": "",
            "tool_calls": tool_calls or [],
            "tool_call_id": "",
        }
        if opaque_body is not None:
            message["opaque_body"] = opaque_body
        return {
            "model": str(request.get("model", "")),
            "prompt_messages": [],
            "system_fingerprint": "",
            "delta": {"index": index, "message": message, "usage": usage, "finish_reason": finish_reason},
        }

    @staticmethod
    def tool_call_dict(call: BrainCall) -> dict[str, Any]:
        """A complete tool call as model plugins put it on ``delta.message.tool_calls``."""
        return {
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": json.dumps(call.arguments, ensure_ascii=False)},
        }


# ---------------------------------------------------------------------------------------------
# Checks more than one provider documents


def check_tool_pairing(backend: ContractBackend, messages: list[dict[str, Any]], *, role_key: str = "role") -> None:
    """OpenAI-style rule: every ``tool`` message answers a ``tool_calls`` id of the assistant
    message before it, and every such id is answered before the next non-tool message.

    ``messages`` are provider-format chat messages (``role``, ``tool_calls``, ``tool_call_id``).
    """
    pending: set[str] = set()
    for message in messages:
        role = message.get(role_key)
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in pending:
                backend.reject(f"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls' (id {call_id!r}).")
            pending.discard(call_id)
            continue
        if pending:
            backend.reject(
                "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
                f"'tool_call_id'. The following tool_call_ids did not have response messages: {sorted(pending)}"
            )
        if role == "assistant":
            pending = {str(call.get("id")) for call in message.get("tool_calls") or []}
    if pending:
        backend.reject(f"tool_call_ids without response messages: {sorted(pending)}")


def check_chat_history(backend: ContractBackend, messages: list[dict[str, Any]], empty_assistant: str) -> None:
    """OpenAI's chat rules several providers enforce on provider-format ``messages``: the tool
    pairing of ``check_tool_pairing``, and content or tool calls on every assistant message (else
    ``backend.reject(empty_assistant)``, the provider's own words)."""
    check_tool_pairing(backend, messages)
    for message in messages:
        if message["role"] == "assistant" and not message.get("content") and not message.get("tool_calls"):
            backend.reject(empty_assistant)


def open_think_blocks(messages: list[dict[str, Any]]) -> list[str]:
    """The string contents of the assistant messages in ``messages`` that open a ``<think>``
    block they never close (more ``<think>`` than ``</think>``), in order."""
    return [
        content for message in messages
        if message["role"] == "assistant" and isinstance(content := message.get("content"), str)
        and content.count("<think>") > content.count("</think>")
    ]


def check_tools_declared(backend: ContractBackend, messages: list[dict[str, Any]], tools: Any) -> None:
    """Providers that refuse a history holding tool calls when no tools are declared
    (Anthropic, Bedrock, several OpenAI-compatible servers)."""
    if not tools and any(m.get("tool_calls") for m in messages):
        backend.reject("Requests which include `tool_use` or `tool_result` blocks must define tools.")


def _type_or_function(call: dict[str, Any]) -> Any:
    return call.get("type") or "function"


def chat_tool_calls(
    calls: Iterable[dict[str, Any]], type_of: Callable[[dict[str, Any]], Any] = _type_or_function
) -> list[dict[str, Any]]:
    """Dify's dumped ``AssistantPromptMessage.tool_calls`` as a chat-completions request's
    ``tool_calls``: each call's id, its type (``type_of(call)``: the call's own or ``function``
    unless a plugin writes it otherwise), and its function's name and arguments, as the model
    plugins built on OpenAI's chat format convert them."""
    return [
        {"id": call.get("id"), "type": type_of(call),
         "function": {"name": (call.get("function") or {}).get("name"),
                      "arguments": (call.get("function") or {}).get("arguments")}}
        for call in calls
    ]


def text_of(content: Any) -> str:
    """Text of a ``PromptMessage`` content (a string, or the text parts of a list)."""
    return content_text(content)


def pieces(text: str, size: int) -> list[str]:
    """``text`` cut into pieces of ``size`` characters (the last one shorter)."""
    return [text[i : i + size] for i in range(0, len(text), size)]


def enum_value(field: Any) -> Any:
    """An enum field's value (``PromptMessage.model_dump()`` keeps enums; JSON has strings)."""
    return getattr(field, "value", field)


def legacy_function_call(message: dict[str, Any]) -> dict[str, Any]:
    """An assistant message as OpenAI's legacy function-calling form carries it: its content and,
    when it has calls, only the first as ``function_call`` (the Xinference and Fireworks AI
    plugins send back a message's first call alone)."""
    converted: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
    if message.get("tool_calls"):
        function = message["tool_calls"][0].get("function") or {}
        converted["function_call"] = {"name": function.get("name"), "arguments": function.get("arguments")}
    return converted


def calls_lost(sent: list[dict[str, Any]], prompt_messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The replayed assistant messages of ``prompt_messages`` whose calls the provider body
    ``sent`` (message for message) does not all carry: more calls than one ``function_call``."""
    return [message for body_message, message in zip(sent, prompt_messages, strict=True)
            if message.get("tool_calls") and len(message["tool_calls"]) > ("function_call" in body_message)]
