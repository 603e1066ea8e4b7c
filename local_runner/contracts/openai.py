"""OpenAI behind Dify's official OpenAI model plugin: Chat Completions and the Responses API.

Model plugin: ``langgenius/dify-official-plugins`` ``models/openai/models/llm/`` (the version
split into ``llm.py``, ``chat.py``, ``responses.py`` and ``stream.py``).

**Routing** (``llm.py`` ``_uses_responses``): ``gpt-audio*`` models always use Chat Completions,
``*-pro`` models (``gpt-5.x-pro``, ``o3-pro``) always use the Responses API, and every other
model uses the Responses API unless the provider credential ``api_protocol`` is ``"chat"``.
The route is set by that credential, not by a completion parameter, and the backwards ``llm``
request carries no credentials. Each backend below therefore assumes its route:
``OpenAIChatContract`` is a provider configured with ``api_protocol: chat``, and
``OpenAIResponsesContract`` uses the default route. ``_invoke`` also forces blocking for
``enable_stream: false`` and for the non-streaming models (``gpt-5.5-pro``, ``o3-pro``, ...).

**Chat Completions** (``chat.py``; https://platform.openai.com/docs/guides/function-calling):

* request (``message``): user content as a string or as ``text`` / ``image_url`` /
  ``input_audio`` parts (documents are refused: "Document input requires the Responses API");
  assistant content as is (a string or None; a list of parts is joined into its text) with
  ``tool_calls`` (``id``, ``function.name``, ``function.arguments``) when it has any;
  system/developer text; ``tool`` messages with their ``tool_call_id``. ``opaque_body`` is not
  read. ``stop`` is sent as given. Reasoning models (``o*``, ``gpt-5*``) get
  ``max_completion_tokens`` in place of ``max_tokens``.
* streamed (``_chat_stream``): one chunk per content (or refusal) delta, all with index 0.
  Tool-call deltas are only gathered. A last chunk has content ``""``, the complete tool calls
  (only when the finish reason is ``tool_calls``), ``finish_reason`` and usage. There is no
  reasoning and no ``opaque_body``.
* blocking (``_chat_result``, which reaches the strategy as one chunk): content (content +
  refusal), tool calls, usage, with no ``finish_reason``.
* enforced: a ``tool`` message answers a ``tool_calls`` id of the assistant message before it
  ("Invalid parameter: messages with role 'tool' must be a response to a preceeding message
  with 'tool_calls'."). Every such id is answered ("An assistant message with 'tool_calls'
  must be followed by tool messages responding to each 'tool_call_id'. ..."). Reasoning models
  (``o1``/``o3``/``o4``, ``gpt-5`` before 5.5) refuse ``stop`` ("Unsupported parameter: 'stop'
  is not supported with this model."; e.g. https://github.com/huggingface/smolagents/issues/1671).

**Responses API** (``responses.py`` ``input_items``/``parameters``/``generate``,
``stream.py`` ``generate``; https://platform.openai.com/docs/guides/reasoning#keeping-reasoning-items-in-context,
https://platform.openai.com/docs/guides/function-calling):

* request: system/developer/user messages become ``message`` items (``input_text`` /
  ``input_image`` / ``input_file`` parts when the content is a list). An assistant message
  whose ``opaque_body["responses_output"]`` is a list of dicts is replaced by those stored
  output items, copied exactly: reasoning items with ``encrypted_content``, messages, and
  ``function_call`` items with their ``id`` and ``call_id``. Its content and tool calls are
  then not read. If ``opaque_body`` is missing, the assistant message becomes a ``message``
  item (a list content becomes ``input_text`` parts) followed by ``function_call`` items that
  have a ``call_id`` but no ``id`` and no reasoning. ``tool`` messages become
  ``function_call_output`` items. The body always has ``store: false``. Reasoning models
  (``gpt-5*`` except ``*-chat-latest``, ``o<digit>*``) also get
  ``include: ["reasoning.encrypted_content"]``. Tools are flat ``function`` tools
  (``strict: false``, ``tool_choice: auto``). **``stop`` is never sent**: the plugin cuts the
  text itself, and a cut reply loses its tool calls and its ``opaque_body``.
* streamed (``stream.generate``): content chunks (index 0). Reasoning-summary deltas come first
  as ``<think>\\n…``, closed by ``\\n</think>\\n`` before the first text delta (or at the end).
  Summaries exist only when ``reasoning_summary`` / ``reasoning.summary`` is asked for, and no
  model YAML declares that parameter, so by default the reasoning stays hidden in
  ``encrypted_content``. Function-call events are only gathered. The last chunk has content
  ``""``, the complete tool calls, ``opaque_body = {"responses_output": [every output item]}``,
  ``finish_reason`` (``tool_calls`` / ``stop`` / ``length`` ...) and usage.
* blocking (``responses.generate``, one chunk): the same content (summary ``<think>`` block +
  text), the tool calls, ``opaque_body`` and usage on one message.
* enforced (HTTP 400, ``invalid_request_error``, ``param: input``):
  a ``function_call_output`` needs an earlier ``function_call`` with its ``call_id`` ("No tool
  call found for function call output with call_id …"), and a ``function_call`` needs a later
  output ("No tool output found for function call …").
  A reasoning item needs the item that followed it in its response ("Item 'rs_…' of type
  'reasoning' was provided without its required following item.").
  An output item that came after a reasoning item needs that reasoning item before it, in the
  same unbroken run of its response's items ("Item 'fc_…' of type 'function_call' was
  provided without its required 'reasoning' item: 'rs_…'.", and the same for ``message``
  items).
  Item ids are unique ("Duplicate item found with id …").
  With ``store: false`` a reasoning item must carry its ``encrypted_content`` ("Item with id
  'rs_…' not found. Items are not persisted when `store` is set to false. …"), unchanged ("The
  encrypted content for item rs_… could not be verified.").
  Assistant ``message`` parts are ``output_text``/``refusal`` ("Invalid value: 'input_text'.
  Supported values are: 'output_text' and 'refusal'.").
  An assistant ``message`` item issued with a ``phase`` (GPT-5.4 and later: ``commentary``
  for text before tool calls, ``final_answer`` for an answer) comes back with that phase.
  OpenAI answers without it, but documents "preserve and resend phase on all assistant
  messages; dropping it can degrade performance" (a preamble is then read as a final
  answer); this backend refuses it so that the loss is visible. The plugin keeps the phase:
  its ``responses_output`` is the output ``model_dump(mode="json", exclude_none=True)``
  (``tests/test_responses_replay.py`` at 3b0128a… replays a ``commentary`` message whole).
  A reasoning model's ``function_call`` in the current turn that comes back without its
  reasoning item and without its item id (the plugin's fallback when ``opaque_body`` was lost)
  is also refused. OpenAI documents that reasoning items returned with tool calls must be
  passed back with the tool outputs; the live API enforces that by item id and, without an
  id, silently answers without the model's reasoning. This backend refuses it so that the
  loss is visible.
"""

from __future__ import annotations

import base64
import copy
import json
import re
from collections.abc import Iterator
from typing import Any, ClassVar

from local_runner.contracts.base import ContractBackend, Reply, chat_tool_calls, check_tool_pairing

OUTPUT_KEY = "responses_output"
"""The plugin's key for the stored Responses output items inside ``opaque_body``
(``responses.OUTPUT_KEY``)."""

RESPONSES_ONLY_PREFIXES = ("gpt-5.2-pro", "gpt-5.4-pro", "gpt-5.5-pro", "o3-pro")
CHAT_ONLY_PREFIXES = ("gpt-audio",)


def _role(message: dict[str, Any]) -> str:
    role = message.get("role")
    return str(getattr(role, "value", role) or "")


def _base_model(model: str) -> str:
    return model.split(":", 2)[1] if model.startswith("ft:") else model


def uses_responses(model: str, credentials: dict[str, Any] | None = None) -> bool:
    """The plugin's route (``llm._uses_responses``)."""
    if model.startswith(CHAT_ONLY_PREFIXES):
        return False
    if model.startswith(RESPONSES_ONLY_PREFIXES):
        return True
    return (credentials or {}).get("api_protocol") != "chat"


def is_reasoning_model(model: str) -> bool:
    """The models the plugin asks for encrypted reasoning
    (``responses._supports_encrypted_reasoning``)."""
    base = _base_model(model)
    return (base.startswith("gpt-5") and not base.endswith("-chat-latest")) or (
        len(base) > 1 and base[0] == "o" and base[1].isdigit()
    )


def labels_phase(model: str) -> bool:
    """Whether the model labels its assistant ``message`` items with a ``phase``
    (``commentary`` before tool calls, ``final_answer`` otherwise): GPT-5.4 and later, and
    ``gpt-5.3-codex`` (https://platform.openai.com/docs/api-reference/responses/object)."""
    base = _base_model(model)
    found = re.match(r"gpt-(\d+)(?:\.(\d+))?", base)
    if not found:
        return False
    version = (int(found.group(1)), int(found.group(2) or 0))
    return version >= (5, 4) or base.startswith("gpt-5.3-codex")


def refuses_stop(model: str) -> bool:
    """Chat Completions refuses ``stop`` for the o-series and for GPT-5 before 5.5."""
    base = _base_model(model)
    if len(base) > 1 and base[0] == "o" and base[1].isdigit():
        return True
    found = re.match(r"gpt-5(?:\.(\d+))?", base)
    if not found or base.endswith("-chat-latest"):
        return False
    return int(found.group(1) or 0) < 5


def _parts(content: Any) -> list[dict[str, Any]]:
    return [part for part in content if isinstance(part, dict)] if isinstance(content, list) else []


def _part_url(part: dict[str, Any]) -> str:
    return part.get("url") or f"data:{part.get('mime_type', '')};base64,{part.get('base64_data', '')}"


# ---------------------------------------------------------------------------------------------
# Chat Completions


class OpenAIChatContract(ContractBackend):
    """``gpt-4o-mini`` on Chat Completions (credential ``api_protocol: chat``)."""

    name = "openai"
    plugin_source = "langgenius/dify-official-plugins models/openai/models/llm/chat.py (routing: llm.py)"
    provider_doc = "https://platform.openai.com/docs/guides/function-calling"
    provider = "langgenius/openai/openai"
    model = "gpt-4o-mini"
    features = ("multi-tool-call", "agent-thought", "stream-tool-call", "vision")
    completion_params: ClassVar[dict[str, Any]] = {}
    reasoning = False
    fingerprint = "fp_contract"

    # -- request ---------------------------------------------------------------------------------

    def _plugin_error(self, message: str) -> None:
        """The plugin refuses the request before sending it (``InvokeBadRequestError``)."""
        self.reject(message)

    def _user_part(self, part: dict[str, Any]) -> dict[str, Any]:
        kind = part.get("type")
        if kind == "text":
            return {"type": "text", "text": part.get("data", "")}
        if kind == "image":
            if not part.get("url") and not part.get("base64_data"):
                self._plugin_error("Image input must include data")
            return {"type": "image_url", "image_url": {"url": _part_url(part), "detail": part.get("detail") or "low"}}
        if kind == "audio":
            data = part.get("base64_data") or ""
            audio_format = str(part.get("format") or "").lstrip(".")
            if not data:
                self._plugin_error("Audio input must include base64 data")
            if audio_format not in ("mp3", "wav"):
                self._plugin_error("Audio input must be MP3 or WAV")
            return {"type": "input_audio", "input_audio": {"data": data, "format": audio_format}}
        if kind == "document":
            self._plugin_error("Document input requires the Responses API")
        self._plugin_error(f"Unsupported Chat Completions content type: {kind}")
        raise AssertionError  # unreachable: reject raises

    def _text_only(self, message: dict[str, Any]) -> str:
        content = message.get("content")
        if isinstance(content, str):
            return content
        parts = _parts(content)
        if any(part.get("type") != "text" for part in parts):
            self._plugin_error(f"{_role(message)} messages only support text content")
        return "".join(str(part.get("data", "")) for part in parts)

    def message(self, message: dict[str, Any]) -> dict[str, Any]:
        """One prompt message as ``chat.message`` converts it."""
        role = _role(message)
        content = message.get("content")
        if role == "user":
            converted: dict[str, Any] = {
                "role": "user",
                "content": content if isinstance(content, str) else [self._user_part(p) for p in _parts(content)],
            }
        elif role == "assistant":
            text = content if content is None or isinstance(content, str) else self._text_only(message)
            converted = {"role": "assistant", "content": text}
            calls = message.get("tool_calls") or []
            if calls:
                converted["tool_calls"] = chat_tool_calls(calls, lambda call: "function")
        elif role in ("system", "developer"):
            converted = {"role": role, "content": self._text_only(message)}
        elif role == "tool":
            converted = {"role": "tool", "content": self._text_only(message), "tool_call_id": message.get("tool_call_id")}
        else:
            self._plugin_error(f"Unsupported Chat Completions message: {role}")
            raise AssertionError  # unreachable
        if message.get("name") and converted["role"] != "tool":
            converted["name"] = message["name"]
        return converted

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        model = str(request.get("model") or "")
        params = dict(request.get("completion_params") or {})
        responses_only = ("reasoning_summary", "reasoning_mode", "reasoning_context")
        unsupported = [n for n in responses_only if params.pop(n, None) not in (None, "")]
        if unsupported:
            self._plugin_error(f"{', '.join(unsupported)} requires the Responses API")
        params.pop("enable_stream", None)
        if params.get("service_tier") in (None, ""):
            params.pop("service_tier", None)
        if model.startswith(("o", "gpt-5")) and "max_tokens" in params:
            params["max_completion_tokens"] = params.pop("max_tokens")
        tools = request.get("tools") or []
        if tools:
            params["tools"] = [{"type": "function", "function": {"name": t.get("name"), "description": t.get("description"),
                                                                 "parameters": t.get("parameters")}} for t in tools]
            params.setdefault("tool_choice", "auto")
        if request.get("stop"):
            params["stop"] = list(request["stop"])
        stream = bool(request.get("stream", True))
        if stream:
            params["stream_options"] = {"include_usage": True}
        messages = [self.message(m) for m in request.get("prompt_messages") or []]
        return {"model": model, "messages": messages, "stream": stream, **params}

    # -- provider rules --------------------------------------------------------------------------

    def check(self, body: dict[str, Any]) -> None:
        if body.get("stop") and refuses_stop(str(body.get("model") or "")):
            self.reject("Unsupported parameter: 'stop' is not supported with this model.")
        check_tool_pairing(self, body["messages"])

    # -- reply -----------------------------------------------------------------------------------

    def _chunk(self, request: dict[str, Any], **fields: Any) -> dict[str, Any]:
        chunk = self.chunk(request, 0, **fields)
        chunk["system_fingerprint"] = self.fingerprint
        return chunk

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        text = reply.text
        stops = [s for s in request.get("stop") or [] if s]
        cut = min((text.find(s) for s in stops if s in text), default=-1)
        if cut >= 0:  # the provider stops generating at a stop sequence (finish_reason "stop")
            text = text[:cut]
        calls = [self.tool_call_dict(call) for call in reply.calls] if cut < 0 else []
        finish = "tool_calls" if calls else "stop"
        usage = self.usage(request, reply)
        if not stream:
            yield self._chunk(request, content=text, tool_calls=calls, usage=usage)
            return
        for start in range(0, len(text), 5):
            yield self._chunk(request, content=text[start : start + 5])
        yield self._chunk(request, content="", tool_calls=calls, usage=usage, finish_reason=finish)


# ---------------------------------------------------------------------------------------------
# Responses API


class _StopBuffer:
    """The plugin's client-side stop words on a stream (``stream.StopBuffer``): text is held
    back by the longest stop word minus one character; at a stop word the rest is dropped."""

    def __init__(self, stop: list[str] | None) -> None:
        self.tokens = [token for token in stop or [] if token]
        self.keep = max((len(token) for token in self.tokens), default=1) - 1
        self.pending = ""
        self.stopped = False

    def push(self, value: str) -> str:
        if self.stopped or not value:
            return ""
        if not self.tokens:
            return value
        self.pending += value
        found = [p for p in (self.pending.find(t) for t in self.tokens) if p >= 0]
        if found:
            out, self.pending, self.stopped = self.pending[: min(found)], "", True
            return out
        size = len(self.pending) - self.keep
        if size <= 0:
            return ""
        out, self.pending = self.pending[:size], self.pending[size:]
        return out

    def finish(self) -> str:
        if self.stopped:
            return ""
        out, self.pending = self.pending, ""
        return out


def _truncate(value: str, stop: list[str] | None) -> str:
    """``responses.truncate``: cut at the first stop word, keeping ``<think>`` balanced."""
    found = [p for p in (value.find(t) for t in stop or [] if t) if p >= 0]
    result = value[: min(found)] if found else value
    if result.count("<think>") > result.count("</think>"):
        result += "\n</think>\n"
    return result


def _reasoning_param(params: dict[str, Any]) -> dict[str, Any]:
    """The ``reasoning`` object, merged from ``reasoning`` and the flat ``reasoning_*``
    parameters, which are removed from ``params``."""
    reasoning = dict(params.pop("reasoning", None) or {})
    for source, target in (("reasoning_effort", "effort"), ("reasoning_summary", "summary"),
                           ("reasoning_mode", "mode"), ("reasoning_context", "context")):
        value = params.pop(source, None)
        if value not in (None, ""):
            reasoning[target] = value
    return reasoning


class OpenAIResponsesContract(ContractBackend):
    """``gpt-5-mini`` (reasoning, effort ``medium`` by default) on the plugin's Responses path
    (the default credentials)."""

    name = "openai_responses"
    plugin_source = "langgenius/dify-official-plugins models/openai/models/llm/responses.py, stream.py (routing: llm.py)"
    provider_doc = "https://platform.openai.com/docs/guides/reasoning#keeping-reasoning-items-in-context"
    provider = "langgenius/openai/openai"
    model = "gpt-5-mini"
    features = ("multi-tool-call", "agent-thought", "stream-tool-call", "vision")
    completion_params: ClassVar[dict[str, Any]] = {}
    reasoning = False
    """No model YAML declares ``reasoning_summary``, so the reasoning stays encrypted."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.responses = 0
        self.issued: dict[str, tuple[int, str | None]] = {}
        """Output item id -> (its response's number, the id of the reasoning item before it)."""
        self.ciphertexts: dict[str, str] = {}
        """Reasoning item id -> the ``encrypted_content`` it was issued with."""
        self.phases: dict[str, str] = {}
        """Assistant message item id -> the ``phase`` it was issued with."""

    # -- request ---------------------------------------------------------------------------------

    def _plugin_error(self, message: str) -> None:
        self.reject(message)

    def _input_content(self, content: Any) -> Any:
        """``responses._input_content``: a string as is, a list as ``input_*`` parts."""
        if isinstance(content, str) or content is None:
            return content
        result = []
        for part in _parts(content):
            kind = part.get("type")
            if kind == "text":
                result.append({"type": "input_text", "text": part.get("data", "")})
            elif kind == "image":
                if not part.get("url") and not part.get("base64_data"):
                    self._plugin_error("Image input must include data")
                result.append({"type": "input_image", "image_url": _part_url(part), "detail": part.get("detail") or "low"})
            elif kind == "document":
                if part.get("url"):
                    result.append({"type": "input_file", "file_url": part["url"]})
                elif part.get("base64_data"):
                    result.append({"type": "input_file", "filename": part.get("filename") or f"document{part.get('format', '')}",
                                   "file_data": _part_url(part)})
                else:
                    self._plugin_error("Document input must include data")
            elif kind in ("audio", "video"):
                self._plugin_error(f"{kind} input requires Chat Completions")
            else:
                self._plugin_error(f"Unsupported Responses content: {kind}")
        return result

    def input_items(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The prompt messages as ``responses.input_items`` converts them."""
        items: list[dict[str, Any]] = []
        for message in messages:
            role = _role(message)
            if role in ("system", "developer", "user"):
                value = self._input_content(message.get("content"))
                if value not in (None, "", []):
                    items.append({"type": "message", "role": role, "content": value})
            elif role == "assistant":
                opaque = message.get("opaque_body")
                stored = opaque.get(OUTPUT_KEY) if isinstance(opaque, dict) else None
                if isinstance(stored, list) and all(isinstance(item, dict) for item in stored):
                    items.extend(copy.deepcopy(stored))
                    continue
                value = self._input_content(message.get("content"))
                if value not in (None, "", []):
                    items.append({"type": "message", "role": "assistant", "content": value})
                for call in message.get("tool_calls") or []:
                    function = call.get("function") or {}
                    items.append({"type": "function_call", "call_id": call.get("id"), "name": function.get("name"),
                                  "arguments": function.get("arguments")})
            elif role == "tool":
                items.append({"type": "function_call_output", "call_id": message.get("tool_call_id"),
                              "output": self._input_content(message.get("content")) or ""})
            else:
                self._plugin_error(f"Unsupported Responses message: {role}")
        return items

    def parameters(self, model: str, completion_params: dict[str, Any], tools: list[dict[str, Any]] | None) -> dict[str, Any]:
        """The request parameters as ``responses.parameters`` builds them (the parts a tool run
        uses)."""
        params = dict(completion_params)
        params.pop("enable_stream", None)
        if params.get("service_tier") in (None, ""):
            params.pop("service_tier", None)
        for name in ("presence_penalty", "frequency_penalty"):
            if params.pop(name, None) not in (None, 0, 0.0):
                self._plugin_error(f"{name} requires Chat Completions")
        if params.pop("seed", None) is not None:
            self._plugin_error("seed requires Chat Completions")
        for old in ("max_tokens", "max_completion_tokens"):
            if old in params:
                params["max_output_tokens"] = params.pop(old)
        if reasoning := _reasoning_param(params):
            params["reasoning"] = reasoning
        params.setdefault("store", False)
        if params["store"] is False and is_reasoning_model(model):
            include = list(params.get("include") or [])
            if "reasoning.encrypted_content" not in include:
                include.append("reasoning.encrypted_content")
            params["include"] = include
        if tools:
            params["tools"] = [{"type": "function", "name": t.get("name"), "description": t.get("description"),
                                "parameters": t.get("parameters"), "strict": False} for t in tools]
            params.setdefault("tool_choice", "auto")
        return params

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        model = str(request.get("model") or "")
        params = self.parameters(model, request.get("completion_params") or {}, request.get("tools"))
        items = self.input_items(request.get("prompt_messages") or [])
        return {"model": model, "input": items, "stream": bool(request.get("stream", True)), **params}

    # -- provider rules --------------------------------------------------------------------------

    def check(self, body: dict[str, Any]) -> None:
        items: list[dict[str, Any]] = body["input"]
        store = body.get("store", True)
        seen: set[str] = set()
        for position, item in enumerate(items):
            item_id = item.get("id")
            if item_id:
                if item_id in seen:
                    self.reject(f"Duplicate item found with id {item_id}. Remove duplicate items from your input and try again.")
                seen.add(item_id)
            if item.get("type") == "message" and item.get("role") == "assistant" and isinstance(item.get("content"), list):
                for index, part in enumerate(item["content"]):
                    if isinstance(part, dict) and part.get("type") not in ("output_text", "refusal"):
                        self.reject(f"Invalid value: '{part.get('type')}'. Supported values are: 'output_text' and 'refusal'. "
                                    f"(param: input[{position}].content[{index}])")
            issued_phase = self.phases.get(str(item_id))
            if issued_phase is not None and item.get("phase") != issued_phase:
                self.reject(f"Item '{item_id}' of type 'message' came back without its phase '{issued_phase}' "
                            f"(got {item.get('phase')!r}): OpenAI answers, but the model may read a preamble as "
                            "a final answer (recorded as a refusal so that the loss shows).")
        self._check_call_pairs(items)
        for position, item in enumerate(items):
            if item.get("type") == "reasoning":
                self._check_reasoning(items, position, store)
            elif item.get("id") in self.issued:
                self._check_has_reasoning(items, position)
        if is_reasoning_model(str(body.get("model") or "")):
            self._check_current_turn_calls(items)

    def _check_call_pairs(self, items: list[dict[str, Any]]) -> None:
        called: set[Any] = set()
        for position, item in enumerate(items):
            kind = item.get("type")
            if kind == "function_call":
                called.add(item.get("call_id"))
                answered = any(later.get("type") == "function_call_output" and later.get("call_id") == item.get("call_id")
                               for later in items[position + 1 :])
                if not answered:
                    self.reject(f"No tool output found for function call {item.get('call_id')}.")
            elif kind == "function_call_output" and item.get("call_id") not in called:
                self.reject(f"No tool call found for function call output with call_id {item.get('call_id')}.")

    def _check_reasoning(self, items: list[dict[str, Any]], position: int, store: Any) -> None:
        item = items[position]
        item_id = item.get("id")
        if store is False and not item.get("encrypted_content"):
            self.reject(f"Item with id '{item_id}' not found. Items are not persisted when `store` is set to false. "
                        "Try again with `store` set to true, or remove this item from your input.")
        issued = self.ciphertexts.get(str(item_id))
        if issued is not None and item.get("encrypted_content") != issued:
            self.reject(f"The encrypted content for item {item_id} could not be verified. "
                        "Reason: Encrypted content could not be decrypted or parsed.")
        following = items[position + 1] if position + 1 < len(items) else None
        if str(item_id) in self.issued:
            number = self.issued[str(item_id)][0]
            ok = following is not None and self.issued.get(str(following.get("id")), (None,))[0] == number
        else:
            ok = following is not None and (
                following.get("type") in ("function_call", "reasoning")
                or (following.get("type") == "message" and following.get("role") == "assistant")
            )
        if not ok:
            self.reject(f"Item '{item_id}' of type 'reasoning' was provided without its required following item.")

    def _check_has_reasoning(self, items: list[dict[str, Any]], position: int) -> None:
        """An issued item that followed a reasoning item in its response needs that reasoning
        item earlier in the same unbroken run of its response's items."""
        item = items[position]
        number, reasoning_id = self.issued[str(item.get("id"))]
        if reasoning_id is None:
            return
        back = position - 1
        while back >= 0 and self.issued.get(str(items[back].get("id")), (None,))[0] == number:
            if items[back].get("id") == reasoning_id:
                return
            back -= 1
        self.reject(f"Item '{item.get('id')}' of type '{item.get('type')}' was provided without its required "
                    f"'reasoning' item: '{reasoning_id}'.")

    def _check_current_turn_calls(self, items: list[dict[str, Any]]) -> None:
        """A reasoning model's function calls of the current turn come back with their
        reasoning (see the module docstring for the id-less case)."""
        users = [i for i, item in enumerate(items) if item.get("type") == "message" and item.get("role") == "user"]
        last_user = users[-1] if users else -1
        for position in range(last_user + 1, len(items)):
            item = items[position]
            if item.get("type") != "function_call" or item.get("id"):
                continue
            back = position - 1
            while back > last_user and items[back].get("type") in ("function_call", "message"):
                back -= 1
            if back <= last_user or items[back].get("type") != "reasoning":
                self.reject(f"Item '{item.get('call_id')}' of type 'function_call' was provided without its required "
                            "'reasoning' item.")

    # -- reply -----------------------------------------------------------------------------------

    @staticmethod
    def _summary_requested(request: dict[str, Any]) -> bool:
        params = request.get("completion_params") or {}
        nested = params.get("reasoning") if isinstance(params.get("reasoning"), dict) else {}
        return params.get("reasoning_summary") not in (None, "") or nested.get("summary") not in (None, "")

    def output_items(self, reply: Reply, request: dict[str, Any]) -> list[dict[str, Any]]:
        """The response's ``output`` as the plugin stores it (``model_dump(mode="json",
        exclude_none=True)``), registered so that later requests can be checked against it."""
        with self._lock:
            self.responses += 1
            number = self.responses
        reasoning_model = is_reasoning_model(str(request.get("model") or ""))
        output: list[dict[str, Any]] = []
        reasoning_id = None
        if reasoning_model:
            reasoning_id = f"rs_{number:04d}{'a' * 12}"
            summary = [{"type": "summary_text", "text": reply.reasoning}] if self._summary_requested(request) else []
            ciphertext = "gAAAAB" + base64.urlsafe_b64encode(f"{number}:{reply.reasoning}".encode()).decode()
            output.append({"id": reasoning_id, "type": "reasoning", "summary": summary, "encrypted_content": ciphertext})
            self.ciphertexts[reasoning_id] = ciphertext
        if reply.text:
            message = {"id": f"msg_{number:04d}{'b' * 12}", "type": "message", "role": "assistant", "status": "completed",
                       "content": [{"type": "output_text", "text": reply.text, "annotations": []}]}
            if labels_phase(str(request.get("model") or "")):
                message["phase"] = "commentary" if reply.calls else "final_answer"
                self.phases[message["id"]] = message["phase"]
            output.append(message)
        for index, call in enumerate(reply.calls):
            output.append({"id": f"fc_{number:04d}{index:02d}{'c' * 10}", "type": "function_call", "call_id": call.id,
                           "name": call.name, "arguments": json.dumps(call.arguments, ensure_ascii=False), "status": "completed"})
        for item in output:
            self.issued[item["id"]] = (number, reasoning_id if item["id"] != reasoning_id else None)
        return output

    @staticmethod
    def visible_content(output: list[dict[str, Any]]) -> str:
        """``responses.content``: summaries as a ``<think>`` block, then the output text."""
        parts = []
        for item in output:
            if item["type"] == "reasoning":
                summary = "".join(part.get("text", "") for part in item.get("summary") or [])
                if summary:
                    parts.append(f"<think>\n{summary}\n</think>\n")
            elif item["type"] == "message":
                parts.extend(part.get("text", "") for part in item["content"] if part.get("type") == "output_text")
        return "".join(parts)

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        if (request.get("completion_params") or {}).get("enable_stream") is False:
            stream = False  # llm._invoke: the model's "Streaming" switch turned off
        output = self.output_items(reply, request)
        stop = list(request.get("stop") or [])
        usage = self.usage(request, reply)
        if not stream:
            raw = self.visible_content(output)
            visible = _truncate(raw, stop)
            stopped = visible != raw
            calls = [] if stopped else [self.tool_call_dict(call) for call in reply.calls]
            yield self.chunk(request, 0, content=visible, tool_calls=calls,
                             opaque_body=None if stopped else {OUTPUT_KEY: copy.deepcopy(output)}, usage=usage)
            return
        buffer = _StopBuffer(stop)
        summary = "".join(part.get("text", "") for item in output if item["type"] == "reasoning" for part in item["summary"])
        deltas: list[str] = []
        if summary:
            deltas += ["<think>\n" + summary[:9], summary[9:]]
        text_pieces = [reply.text[i : i + 7] for i in range(0, len(reply.text), 7)]
        if summary and text_pieces:
            text_pieces[0] = "\n</think>\n" + text_pieces[0]
        deltas += text_pieces
        for piece in deltas:
            if piece and (visible := buffer.push(piece)):
                yield self.chunk(request, 0, content=visible)
        if summary and not text_pieces:
            closing = "\n</think>\n"
            if buffer.stopped:
                yield self.chunk(request, 0, content=closing)
            elif visible := buffer.push(closing):
                yield self.chunk(request, 0, content=visible)
        if visible := buffer.finish():
            yield self.chunk(request, 0, content=visible)
        calls = [] if buffer.stopped else [self.tool_call_dict(call) for call in reply.calls]
        finish = "stop" if buffer.stopped or not calls else "tool_calls"
        yield self.chunk(request, 0, content="", tool_calls=calls,
                         opaque_body=None if buffer.stopped else {OUTPUT_KEY: copy.deepcopy(output)},
                         usage=usage, finish_reason=finish)


class OpenAIResponsesPhaseContract(OpenAIResponsesContract):
    """``gpt-5.4`` on the Responses route: its assistant ``message`` items carry a ``phase``
    (``commentary`` for the text it writes before its tool calls), which must come back with
    the item; the plugin keeps it in ``opaque_body.responses_output`` (wave 35)."""

    name = "openai_responses_phase"
    model = "gpt-5.4"
