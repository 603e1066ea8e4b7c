"""Gemini on Vertex AI through Dify's official Vertex AI model plugin, thoughts on
(``gemini-3-flash-preview``).

Model plugin: ``langgenius/dify-official-plugins`` ``models/vertex_ai/models/llm/llm.py``
(``VertexAiLargeLanguageModel._generate``, ``_format_message_to_genai_content``,
``_get_system_instruction``, ``_handle_generate_response``, ``_handle_generate_stream_response``,
``_encode_tool_call_id`` / ``_decode_tool_call_id``). Provider:
https://cloud.google.com/vertex-ai/generative-ai/docs/thought-signatures and
https://ai.google.dev/gemini-api/docs/thought-signatures.

Unlike the Gemini plugin, this one keeps Gemini 3's thought signatures, and it keeps them in
the only field Dify carries back untouched besides ``opaque_body``: the **tool-call id**. A
function call's id is ``"{name}::sig::{base64(signature)}"`` (just ``"{name}"`` when the part
had no signature: a later call of a parallel batch, a model that does not think). The id is
therefore as long as the signature allows (Gemini's signatures run to kilobytes) and repeats
the tool's name: two unsigned calls of one tool in one reply, or in two rounds, have the same id.

* request: the first message, when it is a system message, is the ``system_instruction``
  (its text, or its text parts joined); every system message is then dropped. A user message
  becomes a ``user`` turn (text parts; files as ``inline_data``). An assistant message **with
  tool calls** becomes a ``model`` turn of one ``function_call`` part per call (all of them,
  unlike the Gemini plugin) with ``thought_signature`` decoded from the call's id, or the
  documented dummy ``skip_thought_signature_validator`` when the id holds none; its content
  (text, reasoning) is dropped. An assistant message **without** tool calls becomes a ``model``
  turn of one ``text`` part holding the content as it is: a ``<think>`` block in it reaches
  Gemini as text the model said (nothing strips it). A tool message becomes a ``function`` turn
  with one ``function_response`` (``name`` = the message's ``name``, ``response =
  {"response": content}``; no id: responses pair with calls by position). Consecutive turns of
  one role are merged.
* streamed: one chunk per response part, indices counting parts. The first thought part opens
  ``<think>\\n\\n``, the first non-thought text part closes it with ``\\n\\n</think>``; a
  function-call part is a chunk of its own with the complete call (content ``""``), and a
  ``<think>`` block followed by a call is never closed. Every part of the last response carries
  ``finish_reason`` (``str()`` of the enum: ``FinishReason.STOP``) and the usage.
* blocking: one chunk (index 0, no finish reason): content ``<think>\\n\\n{thoughts}`` (closed
  before any text), every call with its encoded id, usage.

Provider rules enforced (400 ``INVALID_ARGUMENT``): no empty ``text`` part ("Unable to submit
request because it has an empty text parameter"); a function-call turn follows a user or
function-response turn; a function-response turn follows a function-call turn and answers
each of its calls; ``function_response.name`` is not empty; on Gemini 3, the first function
call of each model turn of the current turn carries a thought signature ("function call `X` in
the N. content block is missing a `thought_signature`"), and a real one must be one the API
issued. One rule more than a 400: a signature the API issued must come back as issued
(Google: "pass it back exactly as received"); the dummy in its place is accepted by the API but
throws away the model's reasoning, so this backend refuses it ("thought signature lost").

The brain answers from the plugin's request (the default): the tool results are there.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterator
from typing import Any, ClassVar

from local_runner.contracts.anthropic import role_of
from local_runner.contracts.base import ContractBackend, Reply, text_of

DUMMY_SIGNATURE = "skip_thought_signature_validator"
"""What the plugin sends for a call whose id holds no signature (``DEFAULT_THOUGHT_SIGNATURE``)."""
SIGNATURE_SEPARATOR = "::sig::"
SIGNATURE_BYTES = 1536
"""Size of the signatures this backend issues (bytes before base64): Gemini 3's are opaque
blobs of this order (a few hundred bytes to several kilobytes)."""
FINISH_STOP = "FinishReason.STOP"


def signature_for(name: str, args: dict[str, Any]) -> str:
    """The thought signature the API issues with a function call (base64, ``SIGNATURE_BYTES``)."""
    seed = f"{name}:{json.dumps(args, sort_keys=True)}".encode()
    blob = b"".join(hashlib.sha256(seed + bytes([i])).digest() for i in range(SIGNATURE_BYTES // 32))
    return base64.b64encode(blob).decode()


def encode_call_id(name: str, signature: str | None) -> str:
    """The plugin's ``_encode_tool_call_id``: the name, then the base64 of the signature."""
    if not signature:
        return name
    return f"{name}{SIGNATURE_SEPARATOR}{base64.b64encode(signature.encode()).decode()}"


def decode_call_id(call_id: str) -> str | None:
    """The signature the plugin's ``_decode_tool_call_id`` finds in ``call_id`` (None if none)."""
    if SIGNATURE_SEPARATOR not in call_id:
        return None
    try:
        return base64.b64decode(call_id.split(SIGNATURE_SEPARATOR, 1)[1]).decode() or None
    except (ValueError, UnicodeDecodeError):
        return None


class VertexAIContract(ContractBackend):
    """Gemini 3 Flash with thoughts included, behind the official Vertex AI model plugin."""

    name = "vertex_ai"
    plugin_source = "langgenius/dify-official-plugins models/vertex_ai/models/llm/llm.py"
    provider_doc = "https://cloud.google.com/vertex-ai/generative-ai/docs/thought-signatures"
    provider = "langgenius/vertex_ai/vertex_ai"
    model = "gemini-3-flash-preview"
    features = ("tool-call", "multi-tool-call", "agent-thought", "vision", "stream-tool-call", "document")
    completion_params: ClassVar[dict[str, Any]] = {"include_thoughts": True, "thinking_level": "Low", "max_output_tokens": 8192}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.issued: set[str] = set()
        """Every thought signature this backend's API has issued in the run."""

    # -- request ---------------------------------------------------------------------------------

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        messages = list(request.get("prompt_messages") or [])
        system = ""
        if messages and role_of(messages[0]) == "system":
            system = text_of(messages[0].get("content"))
        contents: list[dict[str, Any]] = []
        for message in messages:
            turn = self._convert(message, role_of(message))
            if turn is None:
                continue
            if contents and contents[-1]["role"] == turn["role"]:
                contents[-1]["parts"].extend(turn["parts"])
            else:
                contents.append(turn)
        params = dict(request.get("completion_params") or {})
        tools = request.get("tools") or []
        return {
            "model": str(request.get("model") or ""),
            "contents": contents,
            "system_instruction": system or None,
            "tools": [{"function_declarations": [{"name": t.get("name")} for t in tools]}] if tools else [],
            "thinking_config": {"include_thoughts": params.get("include_thoughts"), "thinking_level": params.get("thinking_level")},
        }

    def _convert(self, message: dict[str, Any], role: str) -> dict[str, Any] | None:
        content = message.get("content")
        if role == "system":
            return None
        if role == "tool":
            response = {"name": message.get("name"), "response": {"response": content}}
            return {"role": "function", "parts": [{"function_response": response}]}
        if role == "assistant":
            calls = message.get("tool_calls") or []
            if not calls:
                if not isinstance(content, str):
                    self.reject("plugin error before the request: Part.text must be a string (the assistant content is a list)")
                return {"role": "model", "parts": [{"text": content}]}
            parts = []
            for call in calls:
                function = call.get("function") or {}
                try:
                    args = json.loads(function.get("arguments") or "")
                except ValueError:
                    self.reject(f"plugin error before the request: tool call {str(call.get('id'))[:40]!r} has arguments that are not JSON")
                signature = decode_call_id(str(call.get("id") or "")) or DUMMY_SIGNATURE
                parts.append({"function_call": {"name": function.get("name"), "args": args}, "thought_signature": signature})
            return {"role": "model", "parts": parts}
        if isinstance(content, str):
            return {"role": "user", "parts": [{"text": content}]}
        parts = []
        for piece in content or []:
            if piece.get("type") == "text":
                parts.append({"text": str(piece.get("data") or "")})
            else:
                parts.append({"inline_data": {"mime_type": piece.get("mime_type"), "data": piece.get("base64_data") or ""}})
        return {"role": "user", "parts": parts}

    # -- provider rules --------------------------------------------------------------------------

    def check(self, body: dict[str, Any]) -> None:
        contents = body["contents"]
        for i, turn in enumerate(contents):
            if not turn["parts"]:
                self.reject(f"Unable to submit request because contents[{i}] has no parts.")
            if any("text" in part and not part["text"] for part in turn["parts"]):
                self.reject("Unable to submit request because it has an empty text parameter. Add a value to the parameter and try again.")
        for i, turn in enumerate(contents):
            calls = [p for p in turn["parts"] if "function_call" in p]
            responses = [p for p in turn["parts"] if "function_response" in p]
            previous = contents[i - 1] if i else None
            if calls and (previous is None or previous["role"] not in ("user", "function")):
                self.reject("Please ensure that function call turn comes immediately after a user turn or after a function response turn.")
            if not responses:
                continue
            asked = [p for p in previous["parts"] if "function_call" in p] if previous and previous["role"] == "model" else []
            if not asked:
                self.reject("Please ensure that function response turn comes immediately after a function call turn.")
            if len(responses) != len(asked):
                self.reject("Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.")
            if any(not part["function_response"].get("name") for part in responses):
                self.reject(f"* contents[{i}].parts.function_response.name: Name cannot be empty.")
        if body["model"].startswith("gemini-3"):
            self._check_signatures(contents)

    def _check_signatures(self, contents: list[dict[str, Any]]) -> None:
        start = max(
            (i for i, t in enumerate(contents) if t["role"] == "user" and any("function_response" not in p for p in t["parts"])),
            default=-1,
        )
        for i in range(start + 1, len(contents)):
            calls = [p for p in contents[i]["parts"] if "function_call" in p] if contents[i]["role"] == "model" else []
            if not calls:
                continue
            signature = calls[0].get("thought_signature")
            name = calls[0]["function_call"].get("name")
            if not signature:
                self.reject(
                    f"Unable to submit request because function call `{name}` in the {i + 1}. content block is "
                    "missing a `thought_signature`. Learn more: "
                    "https://docs.cloud.google.com/vertex-ai/generative-ai/docs/thought-signatures"
                )
            if signature != DUMMY_SIGNATURE and signature not in self.issued:
                self.reject("Corrupted thought signature.")
            expected = signature_for(str(name), calls[0]["function_call"].get("args") or {})
            if signature == DUMMY_SIGNATURE and expected in self.issued:
                self.reject(
                    f"thought signature lost: function call `{name}` in the {i + 1}. content block was signed by the "
                    "API, but came back with the placeholder (its tool-call id no longer holds the signature)"
                )

    # -- reply -----------------------------------------------------------------------------------

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        thoughts = bool((request.get("completion_params") or {}).get("include_thoughts"))
        calls = []
        for number, call in enumerate(reply.calls):
            signature = signature_for(call.name, call.arguments) if number == 0 else None  # the first call of a batch is signed
            if signature:
                self.issued.add(signature)
            calls.append({**self.tool_call_dict(call), "id": encode_call_id(call.name, signature)})
        usage = self.usage(request, reply)
        half = len(reply.reasoning) // 2
        thought_parts = [reply.reasoning[:half], reply.reasoning[half:]] if thoughts else []
        text_parts = [p for p in (reply.text[: len(reply.text) // 2], reply.text[len(reply.text) // 2 :]) if p]
        if not stream:
            content = ("<think>\n\n" + "".join(thought_parts)) if thoughts else ""
            if reply.text:
                content += ("\n\n</think>" if thoughts else "") + "".join(text_parts)
            yield self.chunk(request, 0, content=content, tool_calls=calls, usage=usage)
            return
        # (content, calls) per part; the last response holds the answer's text or the calls
        parts: list[tuple[str, list[dict[str, Any]]]] = []
        thinking = False
        for piece in thought_parts:
            parts.append((("<think>\n\n" if not thinking else "") + piece, []))
            thinking = True
        for number, piece in enumerate(text_parts):
            parts.append((("\n\n</think>" if thinking and number == 0 else "") + piece, []))
        parts += [("", [call]) for call in calls]
        last_response = len(calls) if calls else min(len(text_parts), 1) or 1
        for index, (content, part_calls) in enumerate(parts):
            if index < len(parts) - last_response:
                yield self.chunk(request, index, content=content, tool_calls=part_calls)
            else:
                yield self.chunk(request, index, content=content, tool_calls=part_calls, usage=usage, finish_reason=FINISH_STOP)
