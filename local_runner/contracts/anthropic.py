"""Claude through Dify's official Anthropic model plugin, extended thinking on (``claude-opus-4-6``).

Model plugin: ``langgenius/dify-official-plugins`` ``models/anthropic/models/llm/llm.py``
(``AnthropicLargeLanguageModel``, commit a0fee42624f2708772d2d7b4bc96e9c70bef44fe, the version
of ``tests/test_thinking_cache.py`` that names ``claude-fable-5-1``; the replay is 0.3.33's
(1c274cbc7d74671e3f80a9adaabe81eae7729475), which ``Anthropic0333Contract`` below keeps for its
stream; its replay tests are ``models/anthropic/tests/test_thinking_replay.py`` and
``test_thinking_cache.py``). Provider:
the Messages API, https://docs.claude.com/en/docs/build-with-claude/extended-thinking and
https://docs.claude.com/en/docs/agents-and-tools/tool-use/implement-tool-use.

* request: system messages become ``system`` (their stripped texts joined by ``\\n``); a user
  message with string content keeps it as a string, with parts it becomes document, image, then
  text blocks; a tool message becomes a user message holding one ``tool_result`` block; only
  consecutive *assistant* messages are merged (the API combines consecutive user turns itself).
  An assistant message whose ``opaque_body["anthropic_content"]`` is a list of blocks is sent as
  exactly those blocks (thinking with its signature, text, ``tool_use``, in their original
  order) and its ``content`` and ``tool_calls`` are ignored; without it the plugin rebuilds it
  from ``content`` (one text block, ``<think>`` and all, or one per text part) and one
  ``tool_use`` per tool call. The ``thinking`` completion param turns on
  ``{"type": "enabled", "budget_tokens": thinking_budget}`` (adaptive thinking on Opus 4.7+).
* streamed: ``<think>\\n`` opens the thinking block, its deltas follow as content, and
  ``\\n</think>\\n\\n`` is sent when the next block starts; text deltas follow; tool-call
  arguments are gathered silently (a0fee42 marks the block as ``tool_use``, so the closing tag
  comes once; 0.3.33 left the block type "thinking" and sent it a second time at the end when the
  thinking block was followed straight by a ``tool_use`` block). A last chunk carries ``content=""``, every tool call complete,
  ``opaque_body = {"anthropic_content": [blocks]}``, the raw ``stop_reason`` (``tool_use`` /
  ``end_turn``) as ``finish_reason`` and usage. Delta indexes are the block indexes. When the
  request's ``max_tokens`` falls inside the ``tool_use`` inputs (estimated at four characters a
  token: the reasoning and text fit, the calls' inputs do not), the thinking and text stream and
  then the plugin raises ``INCOMPLETE_TOOL_ARGUMENTS`` (no last chunk: no calls, usage nor
  ``opaque_body``). A cut inside the thinking or text is not emulated.
* blocking: one chunk (index 0, no finish reason) whose content is the text blocks only (the
  reasoning is in ``opaque_body`` alone), with the tool calls, the same ``opaque_body`` and usage.

Provider rules enforced (400 ``invalid_request_error``): a ``tool_use`` is answered by a
``tool_result`` at the start of the next (user) message and a ``tool_result`` answers a
``tool_use`` of the message before it; a request whose messages hold tool blocks must define
``tools``; text blocks are non-empty and not blank; every message but a final assistant one has
content; with thinking enabled, the final assistant message before the last tool results starts
with a thinking block, every thinking block keeps the signature it was issued with, and
``max_tokens`` exceeds ``budget_tokens``. The thinking blocks that open that final assistant
message (thinking and ``redacted_thinking``) must be the ones the API issued with its
``tool_use`` blocks, unchanged and in their order ("thinking blocks ... cannot be modified or
rearranged"); a ``redacted_thinking`` block keeps its encrypted ``data`` byte for byte.

Modes beside the default (Opus 4.6, summarized thinking shown as ``<think>``):

* ``redacted_thinking``: after its thinking block, each reply carries a ``redacted_thinking``
  block (reasoning Claude's safety system encrypted: ``{"type": "redacted_thinking", "data": …}``).
  The API sends it whole in ``content_block_start`` with no delta, so 0.3.33 streams nothing for
  it (its ``redacted_thinking`` delta branch never runs) and keeps it only in ``opaque_body``.
* adaptive thinking with ``thinking_display`` ``omitted`` (the API's default on Opus 4.7+, as
  ``AnthropicAdaptiveContract`` below): the thinking block comes with empty ``thinking`` and a signature
  delta only, so the plugin streams no ``<think>`` block at all; the signed block with its empty
  text is in ``opaque_body`` alone, and its signature (over the hidden thinking) must come back.

The brain answers from what the provider receives (``provider_view``), so text the plugin drops
on the way (content ignored beside ``opaque_body``) is text the model never saw.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Iterator
from typing import Any, ClassVar

from local_runner.backends import estimate_tokens
from local_runner.contracts.base import ContractBackend, PluginFailure, Reply, text_of

OPAQUE_KEY = "anthropic_content"
INCOMPLETE_TOOL_ARGUMENTS = (
    "Anthropic returned incomplete tool arguments (stop_reason=max_tokens). Increase max_tokens and retry."
)
"""What 0.3.33 raises at ``MessageStopEvent`` when ``max_tokens`` cut a ``tool_use`` input inside its
JSON (``json.loads`` of the gathered ``input_json_delta`` fails), after the text streamed."""
THINKING_DOC = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
ADAPTIVE_THINKING_MODELS = ("claude-opus-4-7", "claude-opus-4-8", "claude-opus-5", "claude-sonnet-5", "claude-fable-5", "claude-mythos-5")
ALWAYS_ON_THINKING_MODELS = ("claude-opus-5-5", "claude-fable-5", "claude-mythos-5")
THINKING_DEFAULT_ON_MODELS = ("claude-sonnet-5", "claude-opus-5")


def role_of(message: dict[str, Any]) -> str:
    """A prompt message's role as a string (``model_dump()`` leaves the enum)."""
    role = message.get("role")
    return str(getattr(role, "value", role) or "")


def signature_for(thinking: str) -> str:
    """The signature this provider issues for a thinking text (any change breaks it)."""
    return "EqsB" + hashlib.sha256(thinking.encode()).hexdigest()[:40]


def redacted_data_for(thinking: str) -> str:
    """The encrypted ``data`` of the ``redacted_thinking`` block issued beside a thinking text."""
    return "EmwKAhgB" + hashlib.sha256(b"redacted:" + thinking.encode()).hexdigest()


def _is_thinking(block: dict[str, Any]) -> bool:
    return block.get("type") in ("thinking", "redacted_thinking")


def thinking_config(model: str, params: dict[str, Any]) -> dict[str, Any] | None:
    """The request's ``thinking`` object as the plugin derives it from the completion params."""
    model_id = model.lower()
    if model_id.startswith(ADAPTIVE_THINKING_MODELS) or model_id.startswith(ALWAYS_ON_THINKING_MODELS):
        display = params.get("thinking_display") or "omitted"
        if model_id.startswith(ALWAYS_ON_THINKING_MODELS) or params.get("thinking"):
            return {"type": "adaptive", "display": display}
        if model_id.startswith(THINKING_DEFAULT_ON_MODELS) and "thinking" in params:
            return {"type": "disabled"}
        return None
    if params.get("thinking"):
        return {"type": "enabled", "budget_tokens": params.get("thinking_budget", 1024)}
    return None


class AnthropicContract(ContractBackend):
    """Claude Opus 4.6 with extended thinking, behind the official Anthropic model plugin."""

    name = "anthropic"
    plugin_source = "langgenius/dify-official-plugins models/anthropic/models/llm/llm.py"
    provider_doc = THINKING_DOC
    provider = "langgenius/anthropic/anthropic"
    model = "claude-opus-4-6"
    features = ("agent-thought", "vision", "tool-call", "stream-tool-call", "document")
    completion_params: ClassVar[dict[str, Any]] = {"thinking": True, "thinking_budget": 1024, "max_tokens": 4096}
    closes_think_twice = False
    """Whether ``\\n</think>\\n\\n`` comes twice when thinking is followed straight by ``tool_use``
    (0.3.33, ``Anthropic0333Contract``; a0fee42 sends it once)."""
    redacted_thinking = False
    """Each reply also carries a ``redacted_thinking`` block after its thinking (module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.issued_thinking: dict[str, list[dict[str, Any]]] = {}
        """A reply's first ``tool_use`` id -> the thinking blocks the API issued before its calls."""
        self.hidden_signatures: set[str] = set()
        """Signatures issued for thinking whose text was omitted (adaptive, ``display: omitted``)."""
        self.issued_redacted: set[str] = set()
        """The ``data`` of every ``redacted_thinking`` block issued in the run."""

    # -- request ---------------------------------------------------------------------------------

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        model = str(request.get("model") or "")
        params = dict(request.get("completion_params") or {})
        system = "\n".join(
            text_of(m.get("content")).strip() for m in request.get("prompt_messages") or [] if role_of(m) == "system"
        )
        messages: list[dict[str, Any]] = []
        for message in request.get("prompt_messages") or []:
            role = role_of(message)
            if role == "system":
                continue
            converted = self._convert(message, role)
            if role == "assistant" and messages and messages[-1]["role"] == "assistant":
                messages[-1]["content"].extend(converted["content"])
            else:
                messages.append(converted)
        body: dict[str, Any] = {"model": model, "max_tokens": params.get("max_tokens"), "messages": messages}
        if system:
            body["system"] = system
        tools = [
            {"name": t.get("name"), "description": t.get("description"), "input_schema": t.get("parameters") or {}}
            for t in request.get("tools") or []
        ]
        if tools:
            body["tools"] = tools
        thinking = thinking_config(model, params)
        if thinking:
            body["thinking"] = thinking
        return body

    def _convert(self, message: dict[str, Any], role: str) -> dict[str, Any]:
        content = message.get("content")
        if role == "tool":
            block = {"type": "tool_result", "tool_use_id": message.get("tool_call_id"), "content": content}
            return {"role": "user", "content": [block]}
        if role == "user":
            return {"role": "user", "content": _user_content(content)}
        opaque = message.get("opaque_body")
        if isinstance(opaque, dict):
            stored = opaque.get(OPAQUE_KEY)
            if isinstance(stored, list) and all(isinstance(block, dict) for block in stored):
                return {"role": "assistant", "content": copy.deepcopy(stored)}
        blocks: list[dict[str, Any]] = []
        if isinstance(content, str) and content:
            blocks.append({"type": "text", "text": content})
        elif isinstance(content, list):
            blocks += [{"type": "text", "text": p.get("data", "")} for p in content if p.get("type") == "text"]
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            try:
                arguments = json.loads(function.get("arguments") or "")
            except ValueError:
                self.reject(f"plugin error before the request: tool call {call.get('id')!r} has arguments that are not JSON")
            blocks.append({"type": "tool_use", "id": call.get("id"), "name": function.get("name"), "input": arguments})
        return {"role": "assistant", "content": blocks}

    # -- provider rules --------------------------------------------------------------------------

    def check(self, body: dict[str, Any]) -> None:
        messages = _combined(body["messages"])
        blocks = [b for m in messages if isinstance(m["content"], list) for b in m["content"]]
        if any(b.get("type") in ("tool_use", "tool_result") for b in blocks) and not body.get("tools"):
            self.reject("Requests which include `tool_use` or `tool_result` blocks must define tools.")
        for i, message in enumerate(messages):
            content = message["content"]
            final_assistant = i == len(messages) - 1 and message["role"] == "assistant"
            if not content and not final_assistant:
                self.reject(f"messages.{i}: all messages must have non-empty content except for the optional final assistant message")
            for block in content if isinstance(content, list) else []:
                if block.get("type") == "text" and not block.get("text"):
                    self.reject("messages: text content blocks must be non-empty")
                if block.get("type") == "text" and not str(block["text"]).strip():
                    self.reject("messages: text content blocks must contain non-whitespace text")
        self._check_tool_pairing(messages)
        thinking = body.get("thinking") or {}
        if thinking.get("type") == "enabled":
            budget = thinking.get("budget_tokens")
            if not isinstance(budget, int) or budget < 1024:
                self.reject("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024")
            if isinstance(body.get("max_tokens"), int) and body["max_tokens"] <= budget:
                self.reject(f"`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at {THINKING_DOC}")
        self._check_signatures(messages)
        if thinking.get("type") in ("enabled", "adaptive"):
            self._check_final_assistant_thinks(messages)

    def _check_tool_pairing(self, messages: list[dict[str, Any]]) -> None:
        for i, message in enumerate(messages):
            content = message["content"] if isinstance(message["content"], list) else []
            if message["role"] == "assistant":
                uses = [b.get("id") for b in content if b.get("type") == "tool_use"]
                if not uses or i == len(messages) - 1:
                    continue
                after = messages[i + 1]["content"] if isinstance(messages[i + 1]["content"], list) else []
                leading: set[Any] = set()
                for block in after:
                    if block.get("type") != "tool_result":
                        break
                    leading.add(block.get("tool_use_id"))
                missing = [u for u in uses if u not in leading]
                if missing:
                    self.reject(
                        f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                        f"{', '.join(map(str, missing))}. Each `tool_use` block must have a corresponding `tool_result` "
                        "block in the next message."
                    )
                continue
            before = messages[i - 1] if i else None
            known = {b.get("id") for b in before["content"] if b.get("type") == "tool_use"} if before and isinstance(before["content"], list) else set()
            for k, block in enumerate(content):
                if block.get("type") != "tool_result":
                    continue
                if block.get("tool_use_id") not in known:
                    self.reject(
                        f"messages.{i}.content.{k}: unexpected `tool_use_id` found in `tool_result` blocks: "
                        f"{block.get('tool_use_id')}. Each `tool_result` block must have a corresponding `tool_use` block in "
                        "the previous message."
                    )
                inner = block.get("content")
                for m, part in enumerate(inner if isinstance(inner, list) else []):
                    if not isinstance(part, dict) or (part.get("type") == "text" and not isinstance(part.get("text"), str)):
                        self.reject(f"messages.{i}.content.{k}.content.{m}.text: Field required")

    def _check_signatures(self, messages: list[dict[str, Any]]) -> None:
        for i, message in enumerate(messages):
            if message["role"] != "assistant" or not isinstance(message["content"], list):
                continue
            for k, block in enumerate(message["content"]):
                if block.get("type") == "thinking" and not self._signed(block):
                    self.reject(f"messages.{i}.content.{k}: Invalid `signature` in `thinking` block")
                if block.get("type") == "redacted_thinking" and block.get("data") not in self.issued_redacted:
                    self.reject(f"messages.{i}.content.{k}: Invalid `data` in `redacted_thinking` block")

    def _signed(self, block: dict[str, Any]) -> bool:
        """Whether a thinking block carries the signature issued for its text (an omitted text:
        the signature issued over the thinking the API did not show)."""
        if block.get("signature") == signature_for(str(block.get("thinking", ""))):
            return True
        return not block.get("thinking") and block.get("signature") in self.hidden_signatures

    def _check_final_assistant_thinks(self, messages: list[dict[str, Any]]) -> None:
        """The assistant message before the lastmost tool results starts with a thinking block."""
        last = messages[-1] if messages else None
        if not last or last["role"] != "user" or not isinstance(last["content"], list):
            return
        if not any(b.get("type") == "tool_result" for b in last["content"]) or len(messages) < 2:
            return
        position = len(messages) - 2
        if messages[position]["role"] != "assistant":
            return
        content = messages[position]["content"]
        first = (content or [{}])[0]
        if first.get("type") not in ("thinking", "redacted_thinking"):
            self.reject(
                f"messages.{position}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
                f"`{first.get('type')}`. When `thinking` is enabled, a final `assistant` message must start with a "
                "thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you "
                "include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please "
                f"consult our documentation at {THINKING_DOC}"
            )
        uses = [b.get("id") for b in content if b.get("type") == "tool_use"]
        issued = self.issued_thinking.get(str(uses[0])) if uses else None
        leading = content[: next((k for k, b in enumerate(content) if not _is_thinking(b)), len(content))]
        if issued is not None and leading != issued:
            self.reject(
                f"messages.{position}.content: the thinking blocks of the final `assistant` message must be those "
                "of the original response, unmodified and in their order. Please consult our documentation at "
                f"{THINKING_DOC}"
            )

    # -- what the model sees and answers ---------------------------------------------------------

    def provider_view(self, body: dict[str, Any]) -> dict[str, Any]:
        """The request as the model receives it, in prompt-message form for the brain: text
        blocks as user/assistant text, tool results as tool messages."""
        view: list[dict[str, Any]] = []
        for message in body["messages"]:
            content = message["content"]
            if isinstance(content, str):
                view.append({"role": message["role"], "content": content})
                continue
            for block in content:
                if block.get("type") == "tool_result":
                    inner = block.get("content")
                    text = inner if isinstance(inner, str) else "".join(str(p.get("text", "")) for p in inner or [] if isinstance(p, dict))
                    view.append({"role": "tool", "content": text, "tool_call_id": block.get("tool_use_id")})
                elif block.get("type") == "text":
                    view.append({"role": message["role"], "content": block.get("text", "")})
        return {"model": body.get("model"), "prompt_messages": view, "tools": body.get("tools")}

    def brain_view(self, request: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        """The brain reads the provider body, not the plugin's request; a schema-constrained call
        (Dify's ``structured_output_schema``) asks it for a JSON step."""
        return {**self.provider_view(body), "structured_output_schema": request.get("structured_output_schema")}

    # -- reply -----------------------------------------------------------------------------------

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        thinking = thinking_config(str(request.get("model") or ""), dict(request.get("completion_params") or {}))
        thinks = bool(thinking) and thinking.get("type") != "disabled"
        shown = thinks and not (thinking.get("type") == "adaptive" and thinking.get("display") == "omitted")
        blocks: list[dict[str, Any]] = []
        if shown:
            blocks.append({"type": "thinking", "thinking": reply.reasoning, "signature": signature_for(reply.reasoning)})
        elif thinks:  # the signature covers the thinking the API did not show
            self.hidden_signatures.add(signature_for(reply.reasoning))
            blocks.append({"type": "thinking", "thinking": "", "signature": signature_for(reply.reasoning)})
        if thinks and self.redacted_thinking:
            self.issued_redacted.add(redacted_data_for(reply.reasoning))
            blocks.append({"type": "redacted_thinking", "data": redacted_data_for(reply.reasoning)})
        if reply.calls:
            self.issued_thinking[reply.calls[0].id] = copy.deepcopy([b for b in blocks if _is_thinking(b)])
        if reply.text:
            blocks.append({"type": "text", "text": reply.text})
        blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in reply.calls]
        calls = [self.tool_call_dict(call) for call in reply.calls]
        usage = self.usage(request, reply)
        opaque = {OPAQUE_KEY: blocks}
        stop_reason = "tool_use" if reply.calls else "end_turn"
        if not stream:
            yield self.chunk(request, 0, content=reply.text, tool_calls=calls, opaque_body=opaque, usage=usage)
            return
        text_block = len(blocks) - len(reply.calls) - (1 if reply.text else 0)  # the block after the thinking ones
        if shown:
            half = len(reply.reasoning) // 2
            yield self.chunk(request, 0, content="<think>\n")
            yield self.chunk(request, 0, content=reply.reasoning[:half])
            yield self.chunk(request, 0, content=reply.reasoning[half:])
            yield self.chunk(request, 0, content="\n</think>\n\n")
            if not reply.text and reply.calls and self.closes_think_twice:
                yield self.chunk(request, text_block, content="\n</think>\n\n")
        for start in range(0, len(reply.text), 6):
            yield self.chunk(request, text_block, content=reply.text[start : start + 6])
        if reply.calls and _cut_in_calls(request, reply):
            raise PluginFailure(f"[{self.name}] {INCOMPLETE_TOOL_ARGUMENTS}")
        last_index = text_block if reply.text else 0
        yield self.chunk(request, last_index + 1, content="", tool_calls=calls, opaque_body=opaque, usage=usage, finish_reason=stop_reason)


def _cut_in_calls(request: dict[str, Any], reply: Reply) -> bool:
    """Whether the request's ``max_tokens`` falls inside ``reply``'s ``tool_use`` inputs: at or
    above the (estimated) tokens of its reasoning and text, below those with the calls' inputs."""
    limit = (request.get("completion_params") or {}).get("max_tokens")
    if not isinstance(limit, int) or isinstance(limit, bool):
        return False
    before_calls = estimate_tokens(reply.reasoning + reply.text)
    return before_calls <= limit < before_calls + estimate_tokens(json.dumps([c.arguments for c in reply.calls]))


def _user_content(content: Any) -> str | list[dict[str, Any]]:
    """A user message's content: a string stays a string; parts become document, image, then
    text blocks."""
    if isinstance(content, str) or content is None:
        return content or ""
    order = {"document": 0, "image": 1, "text": 2}
    blocks: list[tuple[int, dict[str, Any]]] = []
    for part in content:
        kind = part.get("type")
        if kind == "text":
            blocks.append((2, {"type": "text", "text": part.get("data", "")}))
        elif kind in ("image", "document"):
            source = {"type": "base64", "media_type": part.get("mime_type"), "data": part.get("base64_data") or ""}
            blocks.append((order[kind], {"type": kind, "source": source}))
    return [block for _, block in sorted(blocks, key=lambda item: item[0])]


def _combined(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Consecutive turns of one role combined, as the Messages API does before validating."""
    out: list[dict[str, Any]] = []
    for message in messages:
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) and content else content
        if isinstance(content, str) and not content:
            blocks = []
        if out and out[-1]["role"] == message["role"]:
            out[-1]["content"] = [*out[-1]["content"], *blocks]
        else:
            out.append({"role": message["role"], "content": list(blocks)})
    return out


class Anthropic0333Contract(AnthropicContract):
    """Claude Opus 4.6 behind plugin 0.3.33 (commit 1c274cbc7d74671e3f80a9adaabe81eae7729475): as
    ``AnthropicContract``, but a thinking block followed straight by ``tool_use`` leaves the block
    type "thinking", so ``\\n</think>\\n\\n`` is streamed a second time at the end. Users who
    have not updated the plugin still get this stream."""

    name = "anthropic_0_3_33"
    closes_think_twice = True


class AnthropicRedactedContract(AnthropicContract):
    """Claude Opus 4.6 with extended thinking whose replies also carry a ``redacted_thinking``
    block (reasoning the safety system encrypted): streamed as nothing, kept in ``opaque_body``."""

    name = "anthropic_redacted"
    redacted_thinking = True


class AnthropicAdaptiveContract(AnthropicContract):
    """Claude Opus 4.7, adaptive thinking with its text omitted (the API's default display): a
    signed thinking block with empty text, and a ``redacted_thinking`` block, neither streamed."""

    name = "anthropic_adaptive"
    model = "claude-opus-4-7"
    completion_params: ClassVar[dict[str, Any]] = {"thinking": True, "thinking_display": "omitted", "max_tokens": 4096}
    redacted_thinking = True
