"""Gemini through Dify's official Gemini model plugin, thoughts on (``gemini-3-flash-preview``).

Model plugin: ``langgenius/dify-official-plugins`` ``models/gemini/models/llm/llm.py``
(``GoogleLargeLanguageModel`` on ``google-genai``'s ``generate_content``; tests in
``models/gemini/models/tests/test_llm.py``). Provider: https://ai.google.dev/gemini-api/docs/thought-signatures
and https://ai.google.dev/gemini-api/docs/function-calling.

* request: a string system message becomes ``systemInstruction`` (the last one wins); system
  messages made of text parts are promoted to it only when the first ordinary turn is a non-empty
  user turn, otherwise they stay user turns; a user message becomes a ``user`` turn of text
  (empty text gives no part) and file parts; an assistant message becomes a ``model`` turn: each
  text (the string, or each text part separately) loses one *leading* ``<think>...</think>``
  block, and every part it keeps plus one ``functionCall`` (``id``, ``name``, ``args``) for
  each tool call carries ``thoughtSignature = "skip_thought_signature_validator"`` (the
  documented dummy: the plugin never keeps the real signatures, and uses no ``opaque_body``).
  Every call goes back in the version re-stated here (commit
  521924b3d3a82ca26b7497d797f1890433a61be9, the one that serves ``gemini-3.8-flash``); earlier
  versions sent the *first* call only (``message.tool_calls[0]``: a message with parallel calls
  lost the others, and their tool messages then outnumbered the calls), as
  ``GeminiFirstCallContract`` does, which is why the strategy sends such a round one call a
  message (``function_calling.prompt.ONE_CALL_PER_MESSAGE``); an assistant message
  left without parts is dropped; a tool message becomes a ``user`` turn with one
  ``functionResponse`` (``id`` = ``tool_call_id``, ``name`` = the message's ``name``,
  ``response = {"response": content}``); consecutive turns of one role are merged.
  ``include_thoughts`` and ``thinking_level`` go to ``thinkingConfig``.
* streamed: content is a list of text parts. The first thought part opens ``<think>\\n\\n``,
  the first non-thought text part closes it with ``\\n\\n</think>``; a function call comes in
  the last chunk (``finish_reason`` ``STOP``, usage), which also closes a still-open ``<think>``.
  Tool-call ids are the API's or ``gemini_call_<name>_<ns>``; the delta index counts parts.
  No ``opaque_body``.
* blocking: one chunk (index 0, no finish reason): the same parts for the whole reply, tool calls
  and usage; a reply of thoughts and a function call leaves its ``<think>`` unclosed.

Provider rules enforced (400 ``INVALID_ARGUMENT``): every turn has parts; a function-call turn
follows a user or function-response turn; a function-response turn follows a function-call turn
and answers each of its calls; ``functionResponse.name`` is not empty; on Gemini 3, the first
``functionCall`` of each model turn of the current turn carries a thought signature (a real one
issued by the API, or the documented dummy). The plugin itself refuses a request whose last
non-empty turn is the model's for the models that take no prefill (``NO_PREFILL_MODELS``:
"gemini-3.8-flash requires a non-empty final user turn").

The brain answers from what the provider receives (``provider_view``).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from typing import Any, ClassVar

from local_runner.contracts.anthropic import role_of
from local_runner.contracts.base import ContractBackend, PluginFailure, Reply, text_of

DUMMY_SIGNATURES = ("skip_thought_signature_validator", "context_engineering_is_the_way_to_go")
"""Signatures the API accepts in place of a lost one (thought-signatures FAQ); the plugin sends the first."""
NO_PREFILL_MODELS = frozenset({"gemini-3.8-flash", "gemini-3.7-flash", "gemini-3.6-flash", "gemini-3.5-flash-lite"})
"""The plugin's ``NO_SAMPLING_OR_PREFILL_MODELS``: a request must end on a user turn."""
_LEADING_THINK = re.compile(r"^<think>.*?</think>\s*", re.S)
_CALL_ID_BASE = 1_764_000_000_000_000_000


def signature_for(name: str, args: dict[str, Any]) -> str:
    """The thought signature the API issues with a function call."""
    return "CiQB" + hashlib.sha256(f"{name}:{json.dumps(args, sort_keys=True)}".encode()).hexdigest()[:40]


def _text_part(text: str) -> dict[str, Any]:
    return {"type": "text", "data": text, "opaque_body": None}


class GeminiContract(ContractBackend):
    """Gemini 3 Flash with thoughts included, behind the official Gemini model plugin."""

    name = "gemini"
    plugin_source = "langgenius/dify-official-plugins models/gemini/models/llm/llm.py"
    replays_every_call: ClassVar[bool] = True
    """Whether an assistant message goes back with every tool call (the newest plugin) or with
    its first only (earlier versions: ``GeminiFirstCallContract``)."""
    provider_doc = "https://ai.google.dev/gemini-api/docs/thought-signatures"
    provider = "langgenius/gemini/google"
    model = "gemini-3-flash-preview"
    features = (
        "tool-call", "multi-tool-call", "agent-thought", "vision", "stream-tool-call",
        "document", "video", "audio", "structured-output",
    )
    completion_params: ClassVar[dict[str, Any]] = {
        "include_thoughts": True, "thinking_level": "Low", "temperature": 1, "max_output_tokens": 8192,
    }

    # -- request ---------------------------------------------------------------------------------

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        params = dict(request.get("completion_params") or {})
        entries: list[tuple[dict[str, Any], bool, bool]] = []  # (turn, structured system, from a user message)
        system_parts: list[dict[str, Any]] = []
        scalar_indexes: list[int] = []
        last_system: str | None = None
        text_system = structured_fallback = False
        for message in request.get("prompt_messages") or []:
            role = role_of(message)
            content = message.get("content")
            if role == "system":
                if isinstance(content, str) or content is None:
                    last_system = content or ""
                    if content:
                        scalar_indexes.append(len(system_parts))
                        system_parts.append({"text": content})
                    continue
                if content and all(p.get("type") == "text" and p.get("data") for p in content):
                    text_system = True
                    parts = [{"text": p["data"]} for p in content]
                    system_parts.extend(parts)
                    entries.append(({"role": "user", "parts": parts}, True, False))
                    continue
                structured_fallback = True
            turn = self._convert(message, role)
            if turn is not None:
                entries.append((turn, False, role == "user"))
        ordinary = [(turn, from_user) for turn, structured, from_user in entries if not structured]
        promote = (
            text_system and not structured_fallback and last_system != ""
            and bool(ordinary) and ordinary[0][1] and all(turn["parts"] for turn, _ in ordinary)
        )
        system_instruction: Any = None
        if promote:
            selected = [turn for turn, _ in ordinary]
            superseded = set(scalar_indexes[:-1])
            system_instruction = {"parts": [p for i, p in enumerate(system_parts) if i not in superseded]}
        else:
            selected = [turn for turn, _, _ in entries]
            system_instruction = last_system
        contents: list[dict[str, Any]] = []
        for turn in selected:
            if contents and contents[-1]["role"] == turn["role"]:
                contents[-1]["parts"].extend(turn["parts"])
            else:
                contents.append({"role": turn["role"], "parts": list(turn["parts"])})
        if not contents:
            if not system_instruction:
                self.reject("No valid content to send to Gemini API. Please provide at least one user message with content.")
            parts = system_instruction["parts"] if isinstance(system_instruction, dict) else [{"text": system_instruction}]
            contents = [{"role": "user", "parts": parts}]
            system_instruction = None if isinstance(system_instruction, dict) else system_instruction
        tools = request.get("tools") or []
        body: dict[str, Any] = {
            "model": str(request.get("model") or ""),
            "contents": contents,
            "systemInstruction": system_instruction,
            "tools": [{"functionDeclarations": [{"name": t.get("name"), "description": t.get("description")} for t in tools]}] if tools else [],
            "generationConfig": {
                "temperature": params.get("temperature"),
                "maxOutputTokens": params.get("max_output_tokens"),
                "thinkingConfig": {"includeThoughts": params.get("include_thoughts"), "thinkingLevel": params.get("thinking_level")},
            },
        }
        _refuse_prefill(body)
        return body

    def _convert(self, message: dict[str, Any], role: str) -> dict[str, Any] | None:
        content = message.get("content")
        if role == "tool":
            response = {"id": message.get("tool_call_id"), "name": message.get("name"), "response": {"response": content}}
            return {"role": "user", "parts": [{"functionResponse": response}]}
        assistant = role == "assistant"
        parts = self._parts(content, assistant)
        if not assistant:
            return {"role": "user", "parts": parts}
        calls = message.get("tool_calls") or []
        for call in calls if self.replays_every_call else calls[:1]:  # earlier versions: message.tool_calls[0] only
            function = call.get("function") or {}
            try:
                args = json.loads(function.get("arguments") or "")
            except ValueError:
                self.reject(f"plugin error before the request: tool call {call.get('id')!r} has arguments that are not JSON")
            parts.append({
                "functionCall": {"id": call.get("id"), "name": function.get("name"), "args": args},
                "thoughtSignature": DUMMY_SIGNATURES[0],
            })
        return {"role": "model", "parts": parts} if parts else None

    @staticmethod
    def _parts(content: Any, assistant: bool) -> list[dict[str, Any]]:
        pieces = [content] if isinstance(content, str) else list(content or [])
        parts: list[dict[str, Any]] = []
        for piece in pieces:
            if isinstance(piece, str) or piece.get("type") == "text":
                text = piece if isinstance(piece, str) else str(piece.get("data") or "")
                if assistant:
                    text = _LEADING_THINK.sub("", text, count=1)
                part: dict[str, Any] = {"text": text}
            else:
                part = {"fileData": {"mimeType": piece.get("mime_type"), "fileUri": piece.get("url") or "files/uploaded"}}
                text = "file"
            if text:
                if assistant:
                    part["thoughtSignature"] = DUMMY_SIGNATURES[0]
                parts.append(part)
        return parts

    # -- provider rules --------------------------------------------------------------------------

    def check(self, body: dict[str, Any]) -> None:
        contents = body["contents"]
        for i, turn in enumerate(contents):
            if not turn["parts"]:
                self.reject(f"* GenerateContentRequest.contents[{i}].parts: contents.parts must not be empty.")
        for i, turn in enumerate(contents):
            calls = [p for p in turn["parts"] if "functionCall" in p]
            responses = [p for p in turn["parts"] if "functionResponse" in p]
            previous = contents[i - 1] if i else None
            if calls and (previous is None or previous["role"] != "user"):
                self.reject("Please ensure that function call turn comes immediately after a user turn or after a function response turn.")
            if not responses:
                continue
            asked = [p for p in previous["parts"] if "functionCall" in p] if previous and previous["role"] == "model" else []
            if not asked:
                self.reject("Please ensure that function response turn comes immediately after a function call turn.")
            if len(responses) != len(asked):
                self.reject("Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.")
            for j, part in enumerate(turn["parts"]):
                if "functionResponse" in part and not part["functionResponse"].get("name"):
                    self.reject(f"* GenerateContentRequest.contents[{i}].parts[{j}].function_response.name: Name cannot be empty.")
        if str(body.get("model", "")).startswith("gemini-3"):
            self._check_signatures(contents)

    def _check_signatures(self, contents: list[dict[str, Any]]) -> None:
        """Gemini 3: in the current turn (since the last user turn that is not only function
        responses), the first function call of each model turn is signed."""
        start = max(
            (i for i, t in enumerate(contents) if t["role"] == "user" and any("functionResponse" not in p for p in t["parts"])),
            default=-1,
        )
        for i in range(start + 1, len(contents)):
            calls = [p for p in contents[i]["parts"] if "functionCall" in p] if contents[i]["role"] == "model" else []
            if not calls:
                continue
            signature = calls[0].get("thoughtSignature")
            call = calls[0]["functionCall"]
            if not signature:
                self.reject(
                    "Function call is missing a thought_signature in functionCall parts. This is required for tools to "
                    "work correctly, and missing thought_signature may lead to degraded model performance. Additional "
                    f"data, function call `default_api:{call.get('name')}` , position {i + 1}. Please refer to "
                    "https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
                )
            if signature not in DUMMY_SIGNATURES and signature != signature_for(str(call.get("name")), call.get("args") or {}):
                self.reject("Corrupted thought signature.")

    # -- what the model sees and answers ---------------------------------------------------------

    def provider_view(self, body: dict[str, Any]) -> dict[str, Any]:
        """The request as the model receives it, in prompt-message form for the brain."""
        view: list[dict[str, Any]] = []
        for turn in body["contents"]:
            role = "assistant" if turn["role"] == "model" else "user"
            for part in turn["parts"]:
                if "text" in part:
                    view.append({"role": role, "content": part["text"]})
                elif "functionResponse" in part:
                    response = (part["functionResponse"].get("response") or {}).get("response")
                    text = response if isinstance(response, str) else text_of(response) if isinstance(response, list) else json.dumps(response)
                    view.append({"role": "tool", "content": text, "tool_call_id": part["functionResponse"].get("id")})
        tools = [d for t in body.get("tools") or [] for d in t.get("functionDeclarations") or []]
        return {"model": body.get("model"), "prompt_messages": view, "tools": tools}

    def brain_view(self, request: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        """The brain reads the provider body, not the plugin's request; a schema-constrained call
        (Dify's ``structured_output_schema``) asks it for a JSON step."""
        return {**self.provider_view(body), "structured_output_schema": request.get("structured_output_schema")}

    # -- reply -----------------------------------------------------------------------------------

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        thoughts = bool((request.get("completion_params") or {}).get("include_thoughts"))
        calls = [
            {**self.tool_call_dict(call), "id": f"gemini_call_{call.name}_{_CALL_ID_BASE + 1000 * len(self.requests) + k}"}
            for k, call in enumerate(reply.calls)
        ]
        usage = self.usage(request, reply)
        half = len(reply.reasoning) // 2
        thought_pieces = [reply.reasoning[:half], reply.reasoning[half:]] if thoughts else []
        text_pieces = [reply.text[: len(reply.text) // 2], reply.text[len(reply.text) // 2 :]] if reply.text else []
        text_pieces = [piece for piece in text_pieces if piece]
        if not stream:
            parts = ["<think>\n\n", *thought_pieces] if thoughts else []
            if reply.text:
                parts += (["\n\n</think>"] if thoughts else []) + text_pieces
            yield self.chunk(request, 0, content=[_text_part(p) for p in parts], tool_calls=calls, usage=usage)
            return
        # one streamed response per part: thoughts, then text parts, the last one finishing
        responses: list[tuple[list[str], bool]] = [([piece], True) for piece in thought_pieces]
        responses += [([piece], False) for piece in text_pieces]
        thinking = False
        index = -1
        for position, (pieces, is_thought) in enumerate(responses):
            last = position == len(responses) - 1 and not calls
            parts: list[str] = []
            if is_thought and not thinking:
                parts.append("<think>\n\n")
                thinking = True
            elif not is_thought and thinking:
                parts.append("\n\n</think>")
                thinking = False
            parts += pieces
            index += 1
            if last:
                yield self.chunk(request, index, content=[_text_part(p) for p in parts], usage=usage, finish_reason="STOP")
                return
            yield self.chunk(request, index, content=[_text_part(p) for p in parts])
        index += len(calls)
        closing = [_text_part("\n\n</think>")] if thinking else []
        yield self.chunk(request, index, content=closing, tool_calls=calls, usage=usage, finish_reason="STOP")


def _refuse_prefill(body: dict[str, Any]) -> None:
    """The plugin's ``_validate_no_assistant_prefill``: for ``NO_PREFILL_MODELS`` the last
    non-empty turn must be the user's; it raises before any request is sent."""
    last = next((turn for turn in reversed(body["contents"]) if turn["parts"]), None)
    if body["model"] in NO_PREFILL_MODELS and (last is None or last["role"] == "model"):
        raise PluginFailure(f"[gemini] {body['model']} requires a non-empty final user turn")


class GeminiFirstCallContract(GeminiContract):
    """The Gemini plugin's versions before the newest, which sent back only the first tool call
    of an assistant message (``message.tool_calls[0]``) but every tool message (dify#16760).
    Not in ``CONTRACTS``: the unit tests use it to show why the strategy sends a round of
    parallel calls to Gemini one call a message."""

    replays_every_call: ClassVar[bool] = False
