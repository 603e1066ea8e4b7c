"""The user's own structured output: a JSON schema set in the model-selector's parameters, which
the final answer must follow.

How model plugins take it (langgenius/dify-official-plugins): ``response_format: "json_schema"``
and ``json_schema: "<schema as JSON text>"`` in ``completion_params`` (OpenAI and the
OpenAI-API-compatible plugin: the text is OpenAI's ``{"name", "schema", "strict"}`` wrapper or the
bare schema; Gemini reads ``schema.get("schema", schema)``); Ollama takes ``json_schema`` alone
(no ``response_format`` rule) as the request's ``format``. Dify's structured-output invocation
fills the same two parameters (``_handle_native_json_schema``).

Function Calling passes them on as they are (a provider then constrains only the text reply, and
tools still work). ReAct cannot: a step request that carries them can only be written as the
user's JSON, never as a step. So ReAct leaves them out of its step requests
(``STRUCTURED_OUTPUT_PARAMS``) and asks for the final answer in the schema itself: in the prompt
(text steps) or as the final-answer branch of the step schema (JSON steps); the answer is then
checked here (``answer_problem``) and shown as JSON text (``answer_text``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from agent_core import prompts
from agent_core.json_args import MAX_DEPTH, ArgumentsError, loads_lenient, too_deep
from agent_core.own_text import OwnText
from agent_core.tool_schema import redacted_schema, schema_json

STRUCTURED_OUTPUT_PARAMS = ("json_schema", "response_format")
"""The completion parameters that carry the user's structured output; ReAct's step requests go
without them when the schema was read."""

def redacted_structured_params(completion_params: Mapping[str, Any] | None, secrets: Any) -> dict[str, Any]:
    """The structured-output parameters (``STRUCTURED_OUTPUT_PARAMS``) of ``completion_params``
    that hold a form of ``secrets`` (``redaction._Secrets``), redacted: a key the user pasted into
    the answer schema's descriptions or options goes to the model plugin with every request, as
    one in the instruction would. A JSON text is read and written again with its texts redacted
    and JSON Schema's type names kept (``tool_schema.redacted_schema``: a secret ``string`` must
    not break the schema), a text that does not read is redacted as text, an object as a schema.
    ``{}`` when none holds one (or there are no secrets): the parameters go as set."""
    out: dict[str, Any] = {}
    if not secrets:
        return out
    for name in STRUCTURED_OUTPUT_PARAMS:
        value = (completion_params or {}).get(name)
        if value is None or not secrets.holds(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False,
                                                                                             default=str)):
            continue
        if not isinstance(value, str):
            out[name] = redacted_schema(value, secrets.redact)
            continue
        try:
            out[name] = json.dumps(redacted_schema(json.loads(value), secrets.redact), ensure_ascii=False)
        except (ValueError, RecursionError):
            out[name] = secrets.redact(value)
    return out


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


def read_answer_schema(completion_params: Mapping[str, Any] | None) -> tuple[dict[str, Any] | None, str | None]:
    """The JSON schema the user asked the answer to follow, read from ``completion_params``:
    ``(schema, None)``; ``(None, None)`` when none was asked for; ``(None, problem)`` when one was
    asked for but cannot be read (``problem`` says why, for the log; the parameters then go to the
    model as set, as before).

    Asked for: a non-empty ``json_schema`` while ``response_format`` is absent, empty or
    ``json_schema`` (a ``response_format`` of ``text`` or ``json_object`` makes plugins ignore
    it), or ``response_format`` given as OpenAI's object ``{"type": "json_schema",
    "json_schema": {...}}``. The value may be JSON text or a dict; OpenAI's wrapper
    ``{"name", "schema", "strict"}`` gives its ``schema``. A schema nested more than
    ``json_args.MAX_DEPTH`` levels deep cannot be read."""
    params = completion_params or {}
    response_format = params.get("response_format")
    value = params.get("json_schema")
    if isinstance(response_format, Mapping):
        if str(response_format.get("type") or "").lower() != "json_schema":
            return None, None
        value = response_format.get("json_schema", value)
    elif response_format not in (None, "") and str(response_format).strip().lower() != "json_schema":
        return None, None
    if value is None or (isinstance(value, str) and not value.strip()) or value == {}:
        return None, None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as error:
            return None, prompts.ANSWER_SCHEMA_UNREADABLE.format(problem=f"not valid JSON: {error}")
        except RecursionError:  # nested deeper than the JSON reader goes
            return None, prompts.ANSWER_SCHEMA_UNREADABLE.format(problem=f"nested more than {MAX_DEPTH} levels deep")
    if too_deep(value, MAX_DEPTH):  # the SDK's encoder would fail every request carrying it
        return None, prompts.ANSWER_SCHEMA_UNREADABLE.format(problem=f"nested more than {MAX_DEPTH} levels deep")
    if not isinstance(value, Mapping):
        return None, prompts.ANSWER_SCHEMA_UNREADABLE.format(problem=f"a JSON {_kind(value)}, not an object")
    inner = value.get("schema")
    schema = dict(inner) if isinstance(inner, Mapping) else dict(value)
    if not schema:
        return None, None
    return schema, None


def schema_text(schema: Mapping[str, Any]) -> OwnText:
    """``schema`` as compact JSON text, for a prompt, its grammar (keywords, type names) marked as
    the plugin's own (``tool_schema.schema_json``): a secret ``properties`` hid that key in the
    note, and the model read a schema with no fields."""
    return schema_json(schema)


def answer_value(text: str) -> tuple[Any, str | None]:
    """A final answer written as text, read as JSON: ``(value, None)``, or ``(None, problem)``.

    Code fences and common slips are read as ``json_args.loads_lenient`` reads arguments; text
    that is no JSON object or array (prose) is a problem."""
    try:
        return loads_lenient(text.strip()), None
    except ArgumentsError:
        return None, prompts.ANSWER_NOT_JSON


def answer_problem(value: Any, schema: Mapping[str, Any]) -> str | None:
    """What is wrong with ``value`` as an answer of ``schema``, checked at its top level: its
    ``type`` (a list of types allowed) and, for an object, the ``required`` fields present;
    None when nothing is. Deeper levels are the model's (a constrained decoder keeps them)."""
    expected = schema.get("type")
    kinds = [expected] if isinstance(expected, str) else [k for k in expected if isinstance(k, str)] if isinstance(expected, list) else []
    known = [kind for kind in kinds if kind in _JSON_TYPES]
    if known and not any(_is_type(value, kind) for kind in known):
        return prompts.ANSWER_WRONG_TYPE.format(kind=_kind(value), expected=" or ".join(known))
    if isinstance(value, dict) and isinstance(schema.get("required"), list):
        missing = [name for name in schema["required"] if isinstance(name, str) and name not in value]
        if missing:
            return prompts.ANSWER_MISSING_FIELDS.format(names=", ".join(json.dumps(name) for name in missing))
    return None


def with_booleans(value: Any, schema: Any) -> Any:
    """``value`` with the strings ``"true"`` / ``"false"`` read back as booleans where ``schema``
    (followed through ``properties`` and ``items``) declares a ``boolean``: Dify turns every
    ``boolean`` into ``string`` in a schema it sends natively (``convert_boolean_to_string``)."""
    if not isinstance(schema, Mapping):
        return value
    if schema.get("type") == "boolean" and isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    properties = schema.get("properties")
    if isinstance(value, dict) and isinstance(properties, Mapping):
        return {key: with_booleans(item, properties.get(key)) for key, item in value.items()}
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        return [with_booleans(item, schema["items"]) for item in value]
    return value


def answer_text(value: Any) -> str:
    """The answer shown to the user: ``value`` as JSON text (non-ASCII kept as written)."""
    return json.dumps(value, ensure_ascii=False)


def _is_type(value: Any, kind: str) -> bool:
    if kind in ("integer", "number") and isinstance(value, bool):
        return False
    if kind == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _JSON_TYPES[kind])


def _kind(value: Any) -> str:
    """A JSON value's kind, as the schema names it."""
    for kind in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _is_type(value, kind) and not (kind == "integer" and isinstance(value, float)):
            return kind
    return type(value).__name__
