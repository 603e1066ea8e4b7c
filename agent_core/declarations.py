"""Parameter declarations sent as a call's arguments: the one reader of "this value declares the
tool's parameters instead of giving their values", and the reason the model is told.

A small model asked for arguments sometimes prints the tool's parameter list instead:
``{"name": "query", "type": "string", "description": "..."}`` (one entry), or a list of such.
Both the arguments decoder (an array is no arguments object) and the arguments check
(``tool_schema.schema_echo``) ask :func:`declared_parameters`; how many declarations were given
picks the message (one: the schema-echo reason naming its keys; several: ``MSG_DECLARATIONS_LISTED``).
"""

import re
from collections.abc import Collection, Mapping
from typing import Any, Final

import yaml

from agent_core.fairness import paced
from agent_core.json_args import ArgumentsError
from agent_core.prompts import MSG_DECLARATIONS_LISTED

SCHEMA_KEYS: Final = frozenset(
    {"type", "title", "description", "properties", "required", "enum", "default", "items", "format",
     # keywords a printed schema carries beside those (OpenAPI's and Pydantic's output among them)
     "$schema", "$ref", "$defs", "definitions", "additionalProperties", "anyOf", "oneOf", "allOf", "const",
     "nullable", "example", "examples", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
     "multipleOf", "minLength", "maxLength", "minItems", "maxItems", "uniqueItems"}
)
"""JSON schema's keywords, as a printed parameter schema holds them."""

DECLARATION_KEYS: Final = SCHEMA_KEYS | {"name", "label", "human_description", "llm_description", "form", "options",
                                         "placeholder", "in", "schema"}
"""Keys of one parameter's declaration as a tool list prints it: JSON schema's, and those of Dify's
``ToolParameter`` and OpenAPI's parameter object (``name``, ``in``, ``schema``)."""

_DESCRIBING_KEYS: Final = ("type", "description", "llm_description", "schema")


def declared_parameters(value: Any, parameters: Collection[str]) -> int:
    """How many declarations of the tool's own parameters ``value`` (a call's arguments, an object
    or an array as decoded) is, or 0 when it is no such thing (values were given).

    A declaration is an object with a ``name`` whose every key is a declaration key
    (``DECLARATION_KEYS``), ``type`` or a description among them: ``{"name": "query", "type":
    "string", "required": true}`` is 1 when ``query`` is one of ``parameters`` (the tool's
    parameter names). A list of N such objects is N when at least one names a parameter of the
    tool (a model printing the list may add a parameter the tool lacks; an array is refused as
    arguments anyway, this only picks the reason); a list holding anything else is 0. A tool that
    takes a parameter called ``name`` gets 0 always: there ``name`` and ``type`` are values."""
    if "name" in parameters:
        return 0
    items = value if isinstance(value, list) else [value]
    if not items:
        return 0
    names_one = False
    for item in paced(items):  # a list of 100,000 objects
        if not isinstance(item, Mapping):
            return 0
        name = item.get("name")
        if not isinstance(name, str):
            return 0
        keys = item.keys()
        if not keys <= DECLARATION_KEYS or keys.isdisjoint(_DESCRIBING_KEYS):
            return 0
        names_one = names_one or name in parameters
    return len(items) if names_one else 0


def arguments_refusal(error: ArgumentsError, parameters: Collection[str]) -> str:
    """What the model is told of arguments that did not decode (``error``, from
    ``json_args.decode_arguments``) for a tool whose parameters are named ``parameters``:
    ``MSG_DECLARATIONS_LISTED`` when they were an array of two or more declarations of those
    parameters (:func:`declared_parameters`), else the error's own message."""
    if error.array is not None and declared_parameters(error.array, parameters) > 1:
        return MSG_DECLARATIONS_LISTED
    return str(error)


YAML_DECLARATION_CHARS: Final = 16_384
"""The longest action input read as a schema printed in YAML (characters): a tool's parameter
schema is a few hundred; longer text is the value it reads as."""

_YAML_NESTED = re.compile(r"(?m)^[ \t]*+[\w$-]++[ \t]*+:[ \t]*+\r?\n(?:[ \t]*+\r?\n)*+[ \t]++[\w$-]++[ \t]*+:")
"""YAML of nested keys in a text: ``query:`` alone on its line, then an indented key."""


def yaml_declared(text: str, parameters: Collection[str]) -> dict[str, Any] | None:
    """``text`` (an action input written as text, not JSON) when it is the tool's parameter schema
    printed as YAML (``query:`` then an indented ``type: string`` and ``description: ...``, for
    each of some of ``parameters``; or the whole schema, ``type: object`` with ``properties:``)
    -> that schema as an object, which the arguments check refuses as a schema echo with its
    reason (``tool_schema.schema_echo``) rather than sending the printout to the tool as its
    value; None for any other text (values by name, ``query: Paris``, are
    ``text_calls.keyword_arguments``'). Text of YAML anchors or aliases (``&``, ``*``) or over
    ``YAML_DECLARATION_CHARS`` is not read as YAML."""
    if len(text) > YAML_DECLARATION_CHARS or "&" in text or "*" in text or not _YAML_NESTED.search(text):
        return None
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    if not isinstance(value, dict) or not value:
        return None
    if value.get("type") == "object" and isinstance(value.get("properties"), Mapping):
        return value
    if all(
        key in parameters and isinstance(item, Mapping) and "type" in item and set(item) <= SCHEMA_KEYS
        for key, item in value.items()
    ):
        return value
    return None
