"""The runner's side of a backwards ``llm_structured_output`` invocation, as Dify answers it.

Dify (``langgenius/dify`` ``api/core/llm_generator/output_parser/structured_output.py``,
``invoke_llm_with_structured_output``) calls the model plugin with the schema (as the
``json_schema`` model parameter where the model declares ``structured-output``, else written into
the system prompt), relays the plugin's chunks, and ends the stream with one more chunk: empty
content, no usage, and ``structured_output``, the whole reply's text parsed as a JSON object
(repaired by ``json_repair`` when it is not valid JSON; a list yields its first object; anything
else fails the invocation with "Failed to parse structured output: <text>").

Here the backend receives the request with its ``structured_output_schema`` and decides how to
constrain the model (``backends.OpenAICompatibleBackend``: a grammar for the local llama.cpp
server, ``response_format`` elsewhere); ``with_structured_output`` adds Dify's last chunk.
The prompt-based fallback for models without the feature is Dify's, not emulated.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

import json_repair


class StructuredOutputError(ValueError):
    """The reply is not a JSON object even after repair (Dify's ``OutputParserError``)."""


def parse_structured_output(text: str) -> dict[str, Any]:
    """``text`` as Dify parses it: JSON, else repaired JSON; a list gives its first object.

    Raises ``StructuredOutputError`` when no object can be read."""
    try:
        value = json.loads(text)
        if not isinstance(value, dict):
            raise StructuredOutputError(f"Failed to parse structured output: {text}")
        return value
    except json.JSONDecodeError:
        value = json_repair.loads(text)
    if isinstance(value, list):
        value = next((item for item in value if isinstance(item, dict)), {})
    if not isinstance(value, dict):
        raise StructuredOutputError(f"Failed to parse structured output: {text}")
    return value


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("data") or "") for part in content if isinstance(part, dict) and part.get("type") == "text")
    return ""


def with_structured_output(chunks: Iterable[dict[str, Any]], model: str) -> Iterator[dict[str, Any]]:
    """``chunks`` (``LLMResultChunk`` dicts) as they come, then Dify's closing chunk carrying
    ``structured_output``. Raises ``StructuredOutputError`` after the last chunk when the reply
    cannot be read as an object."""
    text = []
    for chunk in chunks:
        text.append(_text(((chunk.get("delta") or {}).get("message") or {}).get("content")))
        yield chunk
    parsed = parse_structured_output("".join(text))
    yield {
        "model": model,
        "delta": {
            "index": 0,
            "message": {"role": "assistant", "content": "", "tool_calls": []},
            "usage": None,
            "finish_reason": None,
        },
        "structured_output": parsed,
    }
