"""Tools as the model sees them, and tool parameters as the tool receives them.

Dify sends each tool as ``ToolEntity`` JSON plus ``runtime_parameters``,
``credential_id`` and ``provider_type`` (protocol §5). Parameters the user
filled in the node arrive with ``form: "form"`` and their value in
``runtime_parameters``; only ``form: "llm"`` parameters are the model's to
set. :func:`to_prompt_tool` builds the JSON schema the model reads;
:class:`ToolRegistry` looks tools up by exact name, merges the model's
arguments with the user's values, and checks them.
"""

import copy
import json
import math
import re
from collections.abc import Collection, Container, Iterable, Mapping, Sequence
from typing import Any, Final

from dify_plugin.entities.model.message import PromptMessageTool
from dify_plugin.entities.tool import ToolParameter
from dify_plugin.interfaces.agent import ToolEntity

from agent_core import json_args
from agent_core.declarations import DECLARATION_KEYS, declared_parameters
from agent_core.declarations import SCHEMA_KEYS as _SCHEMA_KEYS
from agent_core.fairness import give_way, paced
from agent_core.line_budget import TOOL_DECLARATION_BYTES, encoded_size
from agent_core.memo import per_object
from agent_core.own_text import OwnText
from agent_core.prompts import (
    MSG_MISSING,
    MSG_NOT_BOOLEAN,
    MSG_NOT_KIND,
    MSG_NOT_NUMBER,
    MSG_NOT_OPTION,
    MSG_SCHEMA_ECHO,
    REDACTED,
    TOOL_UNDESCRIBED,
)
from agent_core.redaction import redacted_texts, secret_forms

ParamType = ToolParameter.ToolParameterType
LLM_FORM = ToolParameter.ToolParameterForm.LLM

FILE_TYPES = frozenset({ParamType.FILE, ParamType.FILES})
"""Never offered to the model: it cannot produce files as JSON."""

_JSON_TYPES: dict[str, str] = {
    ParamType.NUMBER: "number",
    ParamType.BOOLEAN: "boolean",
    ParamType.CHECKBOX: "boolean",
    ParamType.OBJECT: "object",
    ParamType.ARRAY: "array",
    ParamType.MODEL_SELECTOR: "object",
    ParamType.APP_SELECTOR: "object",
}
"""JSON-schema type per Dify type; everything else (string, select, secret-input,
date, dynamic-select, any) is described as a string so strict providers accept it."""

STRING_TYPES = frozenset(
    {ParamType.STRING, ParamType.SELECT, ParamType.SECRET_INPUT, ParamType.DATE, ParamType.DYNAMIC_SELECT}
)
BOOLEAN_TYPES = frozenset({ParamType.BOOLEAN, ParamType.CHECKBOX})
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def to_prompt_tool(tool: ToolEntity) -> PromptMessageTool:
    """The function definition the model reads.

    Shape: ``{"name", "description": tool.description.llm, "parameters":
    {"type": "object", "properties": {...}, "required": [...]}}`` -- always a
    valid object schema, even with no parameters (mcpsse1). Only ``llm``-form,
    non-file parameters; ``input_schema`` (MCP object/array parameters) is
    used as given, its ``$ref``s made to stand alone (``_self_contained``); ``select`` options
    become an ``enum`` of their values.
    """
    properties: dict[str, Any] = {}
    required: dict[str, None] = {}  # in order, each name once (a list's ``in`` made 30,000 parameters 7 s)
    document = {"properties": {p.name: p.input_schema for p in tool.parameters if isinstance(p.input_schema, Mapping)}}
    for parameter in paced(tool.parameters):
        if parameter.form != LLM_FORM or parameter.type in FILE_TYPES:
            continue
        properties[parameter.name] = _property_schema(parameter, document)
        if parameter.required:
            required[parameter.name] = None
    return PromptMessageTool(
        name=tool.identity.name,
        description=_tool_description(tool),
        parameters={"type": "object", "properties": properties, "required": list(required)},
    )


def _tool_description(tool: ToolEntity) -> str:
    """What the model reads of a tool: its description for the model, else its human one, else
    its label, else its name as words. Never empty: Amazon Bedrock's Converse API refuses a tool
    whose description is empty (``ToolSpecification.description``, minimum length 1), and a model
    given none has only the name to go by. A tool with none of these (a blank name too) is
    described as ``TOOL_UNDESCRIBED``."""
    described = (tool.description.llm or _english(tool.description.human)) if tool.description else ""
    if described.strip():
        return described
    return _english(tool.identity.label).strip() or tool.identity.name.replace("_", " ").strip() or TOOL_UNDESCRIBED


def _parameter_description(parameter: ToolParameter) -> str:
    return parameter.llm_description or _english(parameter.human_description)


def _english(text: Any) -> str:
    """The English text of an ``I18nObject`` (attribute ``en_us``), '' if none."""
    value = getattr(text, "en_us", None)
    return value if isinstance(value, str) else ""


SCHEMA_MAX_DEPTH = 128
"""Deepest nesting of objects and arrays (``{}`` is one level) of a parameter's ``input_schema``
used as given. Every request line carries the schema some ten levels down, and pydantic-core, which
the SDK writes each line with, refuses data nested about 255 levels deep (copying it took
Python's recursion limit first at some 300 levels, and the run ended with a bare
``RecursionError``); a deeper schema is described by the parameter's type alone, and the tool
still runs."""


def _property_schema(parameter: ToolParameter, document: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The JSON schema of one parameter: its ``input_schema`` as given (unless nested deeper than
    ``SCHEMA_MAX_DEPTH``), its ``$ref``s resolved in ``document`` (``_self_contained``), else one
    made from its type, description and options."""
    description = _parameter_description(parameter)
    schema_given = isinstance(parameter.input_schema, Mapping) and parameter.input_schema
    given = None
    if schema_given and not json_args.too_deep(parameter.input_schema, SCHEMA_MAX_DEPTH):
        given = _self_contained(parameter.input_schema, document or {})
    if given is not None and not json_args.too_deep(given, SCHEMA_MAX_DEPTH):  # its references expanded
        if description and "description" not in given:
            given["description"] = description
        return given
    if parameter.type == ParamType.DATE_RANGE:
        return parameter.type.to_prompt_schema(description)
    schema: dict[str, Any] = {"type": _JSON_TYPES.get(parameter.type, "string"), "description": description}
    if schema["type"] == "array":
        schema["items"] = {"type": "string"}  # providers such as Gemini require typed items
    options = _option_values(parameter)
    if options and parameter.multiple:
        schema.update(type="array", items={"type": "string", "enum": options})
    elif options:
        schema["enum"] = options
    return schema


_DEFINITIONS = ("$defs", "definitions")
_DATA_KEYWORDS = frozenset({"enum", "const", "default", "examples", "example"})
"""Keywords whose value is data, not a schema: a ``$ref`` key in it is no reference."""
_NAMED_SCHEMAS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
"""Keywords whose value maps names to schemas."""
REF_NODES_MAX = 10_000
"""Schema objects ``_self_contained`` writes for one parameter at most: past it, a ``$ref`` is
not expanded any more (schemas referring to each other could grow without end, and a
declaration past ``TOOL_DECLARATION_BYTES`` is not offered at all)."""


def _self_contained(schema: Mapping[str, Any], document: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a parameter's ``input_schema`` with no ``$ref`` pointing outside it.

    Dify cuts an MCP tool's ``inputSchema`` into one ``input_schema`` per property
    (``ToolTransformService.convert_mcp_schema_to_parameter``): a ``$ref`` in it still points
    from the tool's root, to ``#/$defs/...`` (Pydantic, OpenAPI converters: those ``$defs`` are
    gone) or to ``#/properties/<parameter>/...`` (zod-to-json-schema's reuse of a subschema).
    Left as it is, the model reads an item shape of nothing, OpenAI refuses the request (a
    reference to a missing component), and inside ReAct's step schema even a resolvable one
    points elsewhere. Each ``$ref`` is replaced by its target, found in ``document``
    (``{"properties": {name: input_schema}}``, the tool's parameters) or in the schema's own
    ``$defs`` / ``definitions`` (then left out), merged with the keywords beside it; one that
    resolves nowhere, refers back to a schema it is inside of, or comes past ``REF_NODES_MAX``
    keeps only the keywords beside it (``{}``: any value, when none). A schema without ``$ref``
    is copied unchanged."""
    if '"$ref"' not in json.dumps(schema, default=str):
        return copy.deepcopy(dict(schema))
    own = {key: schema[key] for key in _DEFINITIONS if isinstance(schema.get(key), Mapping)}
    resolved = _resolve_refs(schema, {**document, **own}, (), [REF_NODES_MAX], 0)
    for key in own:
        resolved.pop(key, None)
    return resolved


def _resolve_refs(node: Any, lookup: Mapping[str, Any], inside: tuple[str, ...], budget: list[int], depth: int) -> Any:
    """``node`` with its ``$ref``s expanded from ``lookup`` (see ``_self_contained``); ``inside``:
    the references being expanded around it; ``budget``: schema objects still to write;
    ``depth``: levels above ``node`` (no reference is expanded ``SCHEMA_MAX_DEPTH`` levels down:
    the result is then too deep to send, and the recursion stays bounded)."""
    if isinstance(node, list):
        return [_resolve_refs(item, lookup, inside, budget, depth + 1) for item in node]
    if not isinstance(node, Mapping):
        return node
    budget[0] -= 1
    ref = node.get("$ref")
    rest = {
        key: value if key in _DATA_KEYWORDS else _named_schemas(value, lookup, inside, budget, depth + 1)
        if key in _NAMED_SCHEMAS and isinstance(value, Mapping) else _resolve_refs(value, lookup, inside, budget, depth + 1)
        for key, value in node.items() if key != "$ref" or not isinstance(ref, str)
    }
    if not isinstance(ref, str):
        return rest
    expand = ref not in inside and budget[0] > 0 and depth < SCHEMA_MAX_DEPTH
    target = _pointer(lookup, ref) if expand else None
    if not isinstance(target, Mapping):
        return rest
    return {**_resolve_refs(target, lookup, (*inside, ref), budget, depth), **rest}


def _named_schemas(node: Mapping[str, Any], lookup: Mapping[str, Any], inside: tuple[str, ...], budget: list[int], depth: int) -> dict[str, Any]:
    """A ``properties`` (or ``$defs``...) map: its keys are names (``default``, ``$ref`` among them),
    each value a schema whose references ``_resolve_refs`` expands."""
    budget[0] -= 1
    return {name: _resolve_refs(schema, lookup, inside, budget, depth + 1) for name, schema in node.items()}


def _pointer(document: Mapping[str, Any], ref: str) -> Any:
    """The value at the JSON pointer of ``ref`` (``#/a/b~1c``) in ``document``, or None."""
    if not ref.startswith("#/"):
        return None
    value: Any = document
    for token in ref[2:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(value, Mapping):
            value = value.get(token)
        elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        else:
            return None
    return value


def _option_values(parameter: ToolParameter) -> list[str]:
    if parameter.type not in (ParamType.SELECT, ParamType.DYNAMIC_SELECT) or not parameter.options:
        return []
    return [str(option.value) for option in parameter.options]


def secret_text(value: Any, depth: int = 0) -> set[str]:
    """The texts a ``secret-input`` value reaches a tool as, to redact: a string as it is, a
    number as its text (48213377.0 also as 48213377); nothing for a boolean or a blank. A list or
    an object (a value Dify did not cast to text: the tool gets it as it is and may write any part
    of it) gives the texts of each of its items, ``SECRET_LEAF_DEPTH`` levels down; its keys are
    its shape, not secrets. A string that starts with an HTTP auth scheme (``Bearer sk-...``)
    also gives the token after it (``_AUTH_SCHEME``); one that is a JSON object (a service
    account's key file pasted whole) the values of its fields named as credentials are
    (``_CREDENTIAL_FIELD``: ``private_key``, ``client_secret``...); one that is an address with a
    password (``postgres://app:pw@db/prod``) that password (``_URL_PASSWORD``): a tool writes
    such a part alone (an error quoting the key it could not read, a log line)."""
    if isinstance(value, bool):
        return set()
    texts: set[str] = set()
    if isinstance(value, Mapping | list | tuple):
        if depth < SECRET_LEAF_DEPTH:
            for item in value.values() if isinstance(value, Mapping) else value:
                texts |= secret_text(item, depth + 1)
        return texts
    if isinstance(value, float) and value.is_integer():  # 48213377.0 may be written 48213377
        texts.add(str(int(value)))
    if isinstance(value, int | float):  # a numeric PIN or account number goes to the tool as text
        value = str(value)
    if isinstance(value, str) and value.strip():
        texts.add(value)
        if scheme := _AUTH_SCHEME.match(value):  # "Bearer sk-..." pasted whole: the token alone is the key
            texts.add(value[scheme.end():].strip())
        texts |= _credential_parts(value)
    return texts


SECRET_LEAF_DEPTH: Final = 8
"""How many levels of a list or object value (``secret_text``) are searched for its texts."""

_CREDENTIAL_FIELD = re.compile(r"(?i)(?:key|secret|token|passw(?:or)?d|pwd|credential|signature)s?(?:_?id)?$")
"""A JSON field name that says its value is a credential: ``private_key``, ``private_key_id``,
``client_secret``, ``refresh_token``, ``password``, ``apiKey``."""

_URL_PASSWORD = re.compile(r"://[^\s/@:]*:([^\s/@]+)@")
"""An address's user and password (``scheme://user:password@host``, from the ``://``: linear
in the text): group 1, the password."""


def _credential_parts(value: str) -> set[str]:
    """The parts of a secret text a tool may write alone (``secret_text``): the password of each
    address with one in it, the values named as credentials in ``name=value`` settings
    (``_named_values``) or, when the text is a JSON object, the values of its fields named as
    credentials (``_CREDENTIAL_FIELD``), any level down (texts and numbers). Empty for any other
    text; a text that starts with no ``{`` is not parsed as JSON."""
    parts = {match.group(1) for match in _URL_PASSWORD.finditer(value)} if "://" in value else set()
    if not value.lstrip().startswith("{"):
        return parts | _named_values(value)
    try:
        document = json.loads(value)
    except (ValueError, RecursionError):
        return parts | _named_values(value)
    stack = [(document, 0)]
    while stack:
        node, depth = stack.pop()
        if depth >= SECRET_LEAF_DEPTH:
            continue
        if isinstance(node, Mapping):
            for name, item in node.items():
                if isinstance(item, str | int | float) and isinstance(name, str) and _CREDENTIAL_FIELD.search(name):
                    parts |= secret_text(item)
                else:
                    stack.append((item, depth + 1))
        elif isinstance(node, list):
            stack += [(item, depth + 1) for item in node]
    return parts


_SETTING_BREAK = re.compile(r"[;&\n]")
"""What separates settings in a secret text: a connection string's ``;``, a query's ``&``, an
environment file's lines."""

PAIR_PART_MIN: Final = 8
"""The shortest second half of a ``user:password`` secret taken as a secret of its own."""


def _named_values(value: str) -> set[str]:
    """The values of the settings in ``value`` whose names say they are credentials
    (``_CREDENTIAL_FIELD``): an environment file (``OPENAI_API_KEY=sk-...`` lines, ``export``
    too), a connection string (``Server=db;Password=...``), a query (``user=a&token=...``), YAML
    (``password: ...``), quotes around a value dropped; and the second half of a ``user:password``
    pair (no whitespace, one colon, ``PAIR_PART_MIN`` characters or more). Empty for any other
    text. Linear in ``value``."""
    parts: set[str] = set()
    if "=" not in value and ":" not in value:
        return parts
    if ":" in value and value.count(":") == 1 and "=" not in value and not any(c.isspace() for c in value.strip()):
        user, _, password = value.strip().partition(":")
        if user and len(password) >= PAIR_PART_MIN:
            parts.add(password)
    for setting in _SETTING_BREAK.split(value):
        name, sign, rest = setting.partition("=")
        if not sign:
            name, sign, rest = setting.partition(":")
        name = name.strip().removeprefix("export ").strip().strip("\"'")
        rest = rest.strip().removesuffix(",").strip().strip("\"'").strip()
        if sign and rest and name and _CREDENTIAL_FIELD.search(name):
            parts.add(rest)
    return parts


_AUTH_SCHEME = re.compile(r"\s*(?:Bearer|Basic|Token|Bot|ApiKey|Api-Key|Key|OAuth|JWT|SSWS|Splunk)\s+(?=\S)", re.IGNORECASE)
"""An HTTP ``Authorization`` scheme a user pastes with the key into a ``secret-input`` meant for
the header's value (``Bearer sk-...``): a tool often writes the token alone (a log line, an error
quoting it, a URL), so the token after the scheme is a secret of its own."""


def tool_secret_values(tool: ToolEntity) -> set[str]:
    """The values of ``tool``'s ``secret-input`` parameters set in its ``runtime_parameters``,
    and their declared defaults (``ToolRegistry.invocation_parameters`` sends a parameter's
    default to the tool when the node sets no value: a key a tool ships with is a secret as
    well); see ``secret_text``."""
    runtime = tool.runtime_parameters or {}
    secrets: set[str] = set()
    for parameter in tool.parameters:
        if parameter.type == ParamType.SECRET_INPUT:
            secrets |= secret_text(runtime.get(parameter.name)) | secret_text(parameter.default)
    return secrets


JSON_SCHEMA_TYPES: Final = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})
"""The type names of JSON Schema: the values of a schema's ``type`` keyword."""


SCHEMA_KEYWORDS: Final = _SCHEMA_KEYS | {
    "patternProperties", "dependentSchemas", "dependentRequired", "prefixItems", "additionalItems", "contains",
    "not", "if", "then", "else", "propertyNames", "unevaluatedProperties", "unevaluatedItems", "minProperties",
    "maxProperties", "minContains", "maxContains", "$id", "$anchor", "$comment", "deprecated", "readOnly",
    "writeOnly", "contentEncoding", "contentMediaType", "strict", "schema", "name",
}
"""The keys of a schema object that are JSON Schema's grammar (``declarations.SCHEMA_KEYS`` and
the rest of the 2020-12 vocabulary), with those of the structured-output parameter that wraps
a schema (``name``, ``schema``, ``strict``)."""

_SUBSCHEMA_MAPS: Final = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
"""Keywords whose value maps names (the tool author's words) to schemas."""

_DATA_KEYWORDS: Final = frozenset({"enum", "const", "default", "example", "examples", "required", "dependentRequired",
                                   "title", "description", "$comment", "pattern", "format", "$ref", "$id", "$anchor",
                                   "name", "contentEncoding", "contentMediaType"})
"""Keywords whose value is the author's data (texts, names, values), not a schema."""


def redacted_schema(schema: Any, redact: Any) -> Any:
    """``schema`` (a JSON schema: dicts, lists, texts, numbers) with ``redact`` (``text -> text``)
    applied to every text in it (``redaction.redacted_texts``: descriptions, enum values,
    defaults, property names) but the schema's grammar: its keywords where they stand as a
    schema object's keys (``type``, ``properties``, ``required``, ``description``:
    ``SCHEMA_KEYWORDS``) and a ``type`` keyword's type names (``"string"``, or a list of them).
    Those are the same whatever the secrets are: a secret that spells one (``string``: the value
    Swagger UI fills a field with; ``properties``) left ``{"type": "[REDACTED]"}`` or
    ``{"[REDACTED]": {...}}``, a schema the provider refuses or reads as having no arguments, so
    no call of the node could run. The names under ``properties`` (and ``$defs``...) are the
    author's and are redacted as any text, and so is a key that is no keyword (a property named
    ``type`` is redacted as any other)."""
    if isinstance(schema, Mapping):
        give_way()
        out: dict[Any, Any] = {}
        for key, item in schema.items():
            if type(key) is not str or key not in SCHEMA_KEYWORDS:
                out[redact(key) if type(key) is str else key] = redacted_schema(item, redact)
            elif key == "type" and _type_names(item):
                out[key] = item
            elif key in _SUBSCHEMA_MAPS and isinstance(item, Mapping):
                give_way()
                out[key] = {(redact(name) if type(name) is str else name): redacted_schema(sub, redact)
                            for name, sub in item.items()}
            elif key in _DATA_KEYWORDS:
                out[key] = redacted_texts(item, redact)
            else:
                out[key] = redacted_schema(item, redact)
        return out
    if isinstance(schema, list | tuple):
        return [redacted_schema(item, redact) for item in schema]
    return redacted_texts(schema, redact)


def schema_json(schema: Any) -> OwnText:
    """``schema`` as compact JSON text (``json.dumps(schema, ensure_ascii=False,
    separators=(",", ":"))``, character for character) for a prompt, the grammar
    ``redacted_schema`` keeps marked as the plugin's own (``own_text``): each keyword where it
    stands as a schema object's key and a ``type`` keyword's type names, quoted. The last guard
    on the prompt then hides a secret in the author's texts of it and leaves ``"properties"``
    when that is a secret too. Raises what ``json.dumps`` raises."""
    text = json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
    spans: list[tuple[int, int]] = []
    try:
        end = _marked(schema, text, 0, spans, True)
    except (TypeError, ValueError, RecursionError):  # a shape dumped otherwise: nothing marked
        return OwnText(text)
    return OwnText(text, tuple(spans) if end == len(text) else ())


def _marked(node: Any, text: str, at: int, spans: list[tuple[int, int]], is_schema: bool) -> int:
    """Where ``node``'s JSON text, which starts at ``at`` of ``text``, ends; the own spans of
    its grammar (``schema_json``) appended to ``spans`` while ``is_schema`` (a schema, not data).
    Raises ``ValueError`` where ``text`` is not ``node`` dumped as ``schema_json`` dumps it."""
    if isinstance(node, Mapping):
        at = _expect(text, at, "{")
        for n, (key, item) in enumerate(node.items()):
            if n:
                at = _expect(text, at, ",")
            if type(key) is not str:
                raise ValueError("a key that is no text")
            quoted = json.dumps(key, ensure_ascii=False)
            start, at = at, _expect(text, at, quoted)
            at = _expect(text, at, ":")
            if not is_schema or key not in SCHEMA_KEYWORDS:
                at = _marked(item, text, at, spans, is_schema and type(item) is not str)
                continue
            spans.append((start, start + len(quoted)))
            if key == "type" and _type_names(item):
                value_start = at
                at = _marked(item, text, at, spans, False)
                spans.append((value_start, at))
            elif key in _SUBSCHEMA_MAPS and isinstance(item, Mapping):
                at = _marked_names(item, text, at, spans)
            else:
                at = _marked(item, text, at, spans, key not in _DATA_KEYWORDS)
        return _expect(text, at, "}")
    if isinstance(node, list | tuple):
        at = _expect(text, at, "[")
        for n, item in enumerate(node):
            if n:
                at = _expect(text, at, ",")
            at = _marked(item, text, at, spans, is_schema)
        return _expect(text, at, "]")
    return _expect(text, at, json.dumps(node, ensure_ascii=False))


def _marked_names(node: Mapping[Any, Any], text: str, at: int, spans: list[tuple[int, int]]) -> int:
    """``_marked`` for the value of ``properties`` (``_SUBSCHEMA_MAPS``): names, each a schema."""
    at = _expect(text, at, "{")
    for n, (name, sub) in enumerate(node.items()):
        if n:
            at = _expect(text, at, ",")
        if type(name) is not str:
            raise ValueError("a key that is no text")
        at = _expect(text, _expect(text, at, json.dumps(name, ensure_ascii=False)), ":")
        at = _marked(sub, text, at, spans, True)
    return _expect(text, at, "}")


def _expect(text: str, at: int, token: str) -> int:
    """``at`` past ``token``, which ``text`` holds at ``at``; ``ValueError`` when it does not."""
    if not text.startswith(token, at):
        raise ValueError("the text is not the schema dumped")
    return at + len(token)


def _type_names(value: Any) -> bool:
    """Whether ``value`` is a JSON Schema type name or a list of them (a ``type`` keyword's value)."""
    if isinstance(value, str):
        return value in JSON_SCHEMA_TYPES
    return isinstance(value, list) and bool(value) and all(isinstance(v, str) and v in JSON_SCHEMA_TYPES for v in value)


def _redacted_declaration(declaration: PromptMessageTool, redact: Any) -> PromptMessageTool:
    """``declaration`` with ``redact`` (``text -> text``) applied to its description and every
    text of its parameters' schema (descriptions, enum values, defaults, property names; not
    the type names, ``redacted_schema``): a tool author may quote a key in them, and Function
    Calling sends the declarations as they are (no prompt text around them is redacted). The
    name is left as it is (calls are mapped by it)."""
    return declaration.model_copy(update={
        "description": redact(declaration.description),
        "parameters": redacted_schema(declaration.parameters, redact),
    })


Converted = dict[str, tuple[ToolParameter, Any]]
"""A call's values converted to their parameters' types (``coerce_value``) by
``ToolRegistry.checked_arguments``: the parameter's name -> (the parameter, the value)."""


def _value_holds(forms: Any, value: Any, depth: int = 0) -> bool:
    """Whether an argument's ``value`` holds a form of a secret (``forms.holds``): a text as it
    is, a number as its text, a list or object as its JSON text, confirmed on its keys and items
    one by one (``SECRET_LEAF_DEPTH`` levels: deeper, the JSON text's finding stands). ``true``,
    ``false`` and ``null`` are JSON's grammar, no text of the model's: a secret that spells one
    refused every call with a boolean argument."""
    if isinstance(value, str):
        return forms.holds(value)
    if isinstance(value, bool) or value is None:
        return False
    if not forms.holds(json.dumps(value, ensure_ascii=False, default=str)):
        return False
    if isinstance(value, Mapping) and depth < SECRET_LEAF_DEPTH:
        return any(forms.holds(str(key)) or _value_holds(forms, item, depth + 1) for key, item in value.items())
    if isinstance(value, list | tuple) and depth < SECRET_LEAF_DEPTH:
        return any(_value_holds(forms, item, depth + 1) for item in value)
    return True


class ToolRegistry:
    """The node's tools, by the exact name the model was given.

    Two tools with the same name (say two MCP servers with ``search``) cannot
    both be offered under it: the first keeps the name, later ones are offered
    as ``search_2``, ``search_3``… and :meth:`get` maps those back. With
    ``provider_names`` (Function Calling: the names go into the provider's tool
    list) a name the providers refuse is offered as ``provider_name(name)``
    (``github.search_repositories`` -> ``github_search_repositories``), mapped
    back the same way; a name they accept is offered as it is. A blank name (empty, or only
    spaces: a tool bridge's tool with no name) is offered as ``provider_name`` makes it
    (``tool``) in every strategy: ReAct's tool list would show ``- : ...``, a tool no model
    can name in its action. Without ``provider_names`` (ReAct) a name is offered without the
    spaces around it (`` ó`` as ``ó``: the action a model writes is read without them) and with
    each run of white space inside it, a line break among them, as one space (``two\nlines`` as
    ``two lines``: a line break splits the tool's line of the list), mapped back the same way.

    A tool whose declaration alone takes more than ``declaration_limit`` bytes once encoded
    (``line_budget.TOOL_DECLARATION_BYTES``: a description or an enum of megabytes) is not
    offered: every request would be too large for the daemon's line. It is named in
    ``oversized`` (its node name and its declaration's bytes), its secrets still redacted; the
    model is told nothing of it.
    """

    def __init__(
        self,
        tools: Sequence[ToolEntity] | None,
        *,
        provider_names: bool = False,
        other_secrets: Iterable[str] = (),
        declaration_limit: int = TOOL_DECLARATION_BYTES,
    ) -> None:
        secrets = set(other_secrets)
        self._tools: dict[str, ToolEntity] = {}
        declared: list[PromptMessageTool] = []
        self.oversized: list[tuple[str, int]] = []
        """Tools left out because their declaration is too large: (node name, bytes)."""
        own = {tool.identity.name for tool in tools or () if not provider_names or _fits(tool.identity.name)}
        for tool in tools or ():
            give_way()  # thousands of tools: some 0.1 ms each
            declaration = to_prompt_tool(tool)
            if (size := encoded_size(declaration.model_dump(mode="json"))) > declaration_limit:
                self.oversized.append((tool.identity.name, size))
                secrets |= tool_secret_values(tool)
                continue
            # a blank name cannot be written in a ReAct tool list nor called (``- : ...``), spaces
            # around one are lost in a ReAct action (the model writes ``ó`` for `` ó``), and a line
            # break in one splits the tool's line of the list
            node_name = tool.identity.name
            name = provider_name(node_name) if provider_names or not node_name.strip() else " ".join(node_name.split())
            # a mended name keeps clear of every tool's own name: ``search_web`` stays the tool of
            # that name, not ``search.web`` mended before it (a model reading the instruction calls it so)
            taken = self._tools if name == tool.identity.name else self._tools.keys() | own
            name = _unique_name(name, taken, PROVIDER_NAME_MAX if provider_names else None)
            self._tools[name] = tool
            declared.append(declaration.model_copy(update={"name": name}))
        self._other_secrets = frozenset(secrets)
        originals: dict[str, list[str]] = {}
        for name, tool in self._tools.items():
            if tool.identity.name != name:
                originals.setdefault(tool.identity.name, []).append(name)
        self._by_original = {
            original: names[0] for original, names in originals.items() if len(names) == 1 and original not in self._tools
        }
        """A tool's node name to the name it was offered under (``provider_name``), when that
        name was changed and no other tool has the same node name."""
        self._secret_forms: Any = None  # secret_forms(secret_values()), built when first asked for
        if self.secret_values():  # a tool may quote a secret in its own declaration
            declared = [_redacted_declaration(declaration, self.secret_forms().redact) for declaration in declared]
        self._prompt_tools = tuple(declared)
        self._prompt_tools_by_name = {tool.name: tool for tool in declared}
        self._by_shown: dict[str, str] | None = None  # _shown_names(), built when first asked for

    def prompt_tools(self) -> list[PromptMessageTool]:
        """One ``PromptMessageTool`` per tool, under its registry name.

        Built once, when the registry is (each is measured then), and shared after it (a
        registry's tools do not change; each round asks for them again): read the items, do not
        change them."""
        return list(self._prompt_tools)

    def prompt_tools_by_name(self) -> Mapping[str, PromptMessageTool]:
        """``prompt_tools()`` by name, built once with them and shared: read it, do not change it."""
        return self._prompt_tools_by_name

    def get(self, name: str) -> ToolEntity | None:
        """The tool offered as ``name`` (exact match), or the one tool whose node name is
        ``name`` where it was offered under another (``provider_name``: ``météo`` as ``m_t_o``;
        a model that read the node name in the instruction calls it so), or the one tool whose
        name shows as ``name`` with the node's secrets hidden (``_shown_names``); else None."""
        tool = self._tools.get(name)
        if tool is None and (offered := self._by_original.get(name)) is not None:
            return self._tools[offered]
        if tool is None and REDACTED in name and (offered := self._shown_names().get(name)) is not None:
            return self._tools[offered]
        return tool

    def _shown_names(self) -> Mapping[str, str]:
        """A tool's name as a prompt shows it with the node's secrets hidden (``get_[REDACTED]``
        for ``get_forecast`` beside a key ``forecast``: ReAct's tool list and the replayed
        steps are redacted text) to the name it is offered under, for the names a secret
        changes and only where one tool's shows so: a model calls the tool by the name it read.
        Built once, on the first call naming ``[REDACTED]``."""
        if self._by_shown is None:
            shown: dict[str, list[str]] = {}
            forms = self.secret_forms() if self.secret_values() else None
            for name in self._tools if forms else ():
                if (hidden := forms.redact(name)) != name:
                    shown.setdefault(hidden, []).append(name)
            self._by_shown = {hidden: names[0] for hidden, names in shown.items() if len(names) == 1}
        return self._by_shown

    def names(self) -> list[str]:
        """Names offered to the model, in the node's order."""
        return list(self._tools)

    def invocation_parameters(
        self, tool: ToolEntity, model_arguments: Mapping[str, Any], converted: Converted | None = None
    ) -> dict[str, Any]:
        """The parameters sent to ``session.tool.invoke``; ``converted``: the values
        :meth:`checked_arguments` converted when it checked ``model_arguments`` (each
        converted once a call; the others are converted here).

        1. The model's arguments, coerced to the declared types ("3" -> 3 for a
           number, "true" -> True for a boolean, 3 -> "3" for a string). Keys
           the tool does not declare are kept (MCP and API tools may accept
           more than they declare); keys naming a non-``llm`` parameter are
           dropped: the model was not offered them.
        2. ``runtime_parameters`` (values the user fixed in the node) win,
           coerced the same way (dify18665: a number given as text).
        3. Defaults for missing non-``llm`` parameters, and for required ``llm`` parameters the
           model left out or sent empty (``has_default``): the official strategies send the call
           without them and a tool reads its own default; sent, a tool that indexes its
           parameters gets the value its declaration promises.
        """
        declared = {parameter.name: parameter for parameter in tool.parameters}
        merged: dict[str, Any] = {}
        for key, value in model_arguments.items():
            parameter = declared.get(key)
            if parameter is None:
                merged[key] = value
            elif parameter.form == LLM_FORM:
                done = converted.get(key) if converted else None
                merged[key] = done[1] if done is not None and done[0] is parameter else coerce_value(parameter, value)
        for key, value in (tool.runtime_parameters or {}).items():
            merged[key] = coerce_value(declared[key], value) if key in declared else value
        for parameter in tool.parameters:
            if parameter.form != LLM_FORM and parameter.name not in merged and parameter.default is not None:
                merged[parameter.name] = parameter.default
            elif parameter.form == LLM_FORM and parameter.required and merged.get(parameter.name) in (None, "") and has_default(parameter):
                merged[parameter.name] = coerce_value(parameter, parameter.default)
        return merged

    def logged_parameters(self, tool: ToolEntity, parameters: Mapping[str, Any]) -> dict[str, Any]:
        """The tool's input as a CALL log entry shows it: ``parameters``, what
        :meth:`invocation_parameters` gave for the call (what the tool receives: the model's
        arguments coerced, the values the user fixed in the node, defaults), every
        ``secret-input`` parameter's value replaced by ``[REDACTED]``.
        The official strategies log ``{**runtime_parameters, **arguments}`` as the call's
        ``tool_call_input`` (langgenius/dify-official-plugins, agent-strategies/cot_agent,
        strategies/function_calling.py), secrets included. Every other text in it is redacted of
        the node's secret values (``secret_values``), as a tool's output is: a value the user
        fixed holding one (an address with ``?key=``, a header) would show it otherwise."""
        secret = {parameter.name for parameter in tool.parameters if parameter.type == ParamType.SECRET_INPUT}
        forms = self.secret_forms()
        if not forms and secret.isdisjoint(parameters) and set(map(type, parameters.values())) <= _FLAT_TYPES:
            return dict(parameters)  # no secret anywhere, nothing nested: what the walk below gives
        redact = forms.redact
        return {
            key: REDACTED if key in secret and value not in (None, "") else redacted_texts(value, redact, max_depth=json_args.MAX_DEPTH)
            for key, value in parameters.items()
        }

    def secret_values(self) -> set[str]:
        """Values of ``secret-input`` parameters in ``runtime_parameters``, to redact (numbers
        as their text): those of the tools offered and the ``other_secrets`` the registry was
        given (tools of the node that are not offered)."""
        secrets = set(self._other_secrets)
        for tool in self._tools.values():
            secrets |= tool_secret_values(tool)
        return secrets

    def secret_forms(self) -> Any:
        """``redaction.secret_forms(secret_values())``: what finds and hides the secrets in
        every form (``redact``, ``holds``), built once for the registry (its tools do not change)
        and shared: every tool call redacts its input and its output with it."""
        if self._secret_forms is None:
            self._secret_forms = secret_forms(self.secret_values())
        return self._secret_forms

    def secret_arguments(self, arguments: Mapping[str, Any], tool: ToolEntity | None = None) -> list[str]:
        """The names of ``arguments`` (a call's, as the model wrote them) whose name or value holds
        a secret value of the node's tools (``secret_forms``: any case, escaped, encoded), in
        order; [] when none does. The model never read a secret (every request is redacted), so
        one it writes came from a guess or a form that slipped through: passed to a tool, it would
        go to a service the user gave it to for another use, or to none. A name that is one of
        ``tool``'s own parameters is the tool's word, not the model's (a key ``location`` beside a
        weather tool's ``location``): its value is checked, not the name."""
        forms = self.secret_forms()
        if not forms or not isinstance(arguments, Mapping):
            return []
        own = {parameter.name for parameter in tool.parameters} if tool is not None else ()
        return [
            str(name) for name, value in paced(arguments.items())  # a call of 50,000 keys
            if (name not in own and forms.holds(str(name))) or _value_holds(forms, value)
        ]

    def _shown_keys(self, tool: ToolEntity, arguments: Any) -> dict[str, Any] | None:
        """``arguments`` with each name written as the declarations showed one of ``tool``'s
        parameters with the node's secrets hidden (``[REDACTED]`` for ``location`` beside a key
        ``location``: Function Calling's schema and ReAct's tool list hide it) renamed to that
        parameter, where one parameter's name shows so and the model did not also write it;
        None when no name is so written."""
        if not isinstance(arguments, Mapping) or not any(REDACTED in str(name) for name in arguments):
            return None
        if not self.secret_values():
            return None
        redact, shown = self.secret_forms().redact, {}
        for parameter in tool.parameters:
            if (hidden := redact(parameter.name)) != parameter.name:
                shown.setdefault(hidden, []).append(parameter.name)
        renames = {hidden: names[0] for hidden, names in shown.items() if len(names) == 1 and names[0] not in arguments}
        if not any(name in renames for name in arguments):
            return None
        return {renames.get(name, name): value for name, value in arguments.items()}

    def unwrapped_arguments(self, tool: ToolEntity, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
        """The values of ``arguments`` a model wrapped: under the tool's own name
        (``nested_arguments``) or in its parameter schema's shape with the values filled in
        (``filled_schema``, over the parameters the model is offered), with a parameter's name
        written as the declarations showed it hidden renamed (``_shown_keys``); None when not
        wrapped nor renamed."""
        values = nested_arguments(arguments, tool) or filled_schema(arguments, _checked_parameters(tool)[1])
        renamed = self._shown_keys(tool, arguments if values is None else values)
        return values if renamed is None else renamed

    def validate_arguments(self, tool: ToolEntity, arguments: Mapping[str, Any]) -> str | None:
        """A model-facing problem with ``arguments``, or None when they can run
        (:meth:`checked_arguments`' problem)."""
        return self.checked_arguments(tool, arguments)[0]

    def checked_arguments(self, tool: ToolEntity, arguments: Mapping[str, Any]) -> tuple[str | None, Converted]:
        """A model-facing problem with ``arguments`` (None when they can run), and the values
        converted to their declared types to check them (``coerce_value``): by name, the
        parameter and its value, for :meth:`invocation_parameters` to send as checked instead of
        converting them again.

        Checks ``llm`` parameters only: required ones present (and not null or
        ``""``) unless the user fixed them in ``runtime_parameters`` or they declare a default
        (sent in their place, ``invocation_parameters``); select
        values among the options, listing the allowed values (hermes83229);
        numbers and booleans readable as such. Parameters with an
        ``input_schema`` are checked for presence (null counts as given where the schema admits
        it: ``["array", "null"]``) and, for Dify's ``object`` and ``array`` types, for the JSON
        kind its ``type`` names (an array given as text that reads as no array is refused, not
        sent on as text); what is inside them is the tool's to check.
        """
        runtime = tool.runtime_parameters or {}
        llm_parameters, names, scalars, lists = _checked_parameters(tool)
        echoed = schema_echo(arguments, names, scalars, lists)
        if echoed:
            example = {p.name: "..." for p in llm_parameters if p.required} or {
                p.name: "..." for p in llm_parameters[:1]
            }
            return MSG_SCHEMA_ECHO.format(keys=", ".join(echoed), example=json.dumps(example)), {}
        missing = [
            p.name
            for p in llm_parameters
            if p.required and p.name not in runtime and arguments.get(p.name) in (None, "") and not has_default(p)
            and not (p.name in arguments and arguments[p.name] is None and admits_null(p.input_schema))
        ]
        problems = [MSG_MISSING.format(names=", ".join(repr(name) for name in missing))] if missing else []
        converted: Converted = {}
        for parameter in llm_parameters:
            value = arguments.get(parameter.name)
            if value is not None and parameter.input_schema is None:
                value = coerce_value(parameter, value)
                converted[parameter.name] = (parameter, value)
                problems.extend(_value_problems(parameter, value))
            elif value is not None and parameter.type in (ParamType.OBJECT, ParamType.ARRAY):
                value = coerce_value(parameter, value)
                converted[parameter.name] = (parameter, value)
                problems.extend(_kind_problems(parameter, value))
        return " ".join(problems) or None, converted


_FLAT_TYPES = frozenset({str, *json_args.PLAIN_SCALARS})
"""Types of parameter values ``logged_parameters`` copies as they are when the node has no secret."""


@per_object
def _checked_parameters(
    tool: ToolEntity,
) -> tuple[list[ToolParameter], frozenset[str], frozenset[str], frozenset[str]]:
    """What ``validate_arguments`` checks of ``tool``, once per tool object (a run's tools do not
    change; every call of a tool asked for it again): its ``llm`` parameters that are not
    files, their names, the names of those whose value is no object (``schema_echo``'s
    ``scalars``) and of the arrays whose items are no objects (``schema_echo``'s ``lists``).
    Shared: not to be changed."""
    llm_parameters = [p for p in tool.parameters if p.form == LLM_FORM and p.type not in FILE_TYPES]
    names = frozenset(p.name for p in llm_parameters)
    scalars = frozenset(p.name for p in llm_parameters if p.input_schema is None and str(p.type) not in ("object", "array"))
    lists = frozenset(p.name for p in llm_parameters if str(p.type) == "array" and _items_no_objects(p.input_schema))
    return llm_parameters, names, scalars, lists


def _items_no_objects(schema: Any) -> bool:
    """Whether an ``array`` parameter of ``input_schema`` ``schema`` holds items that are no
    objects: Dify's plain ``array`` (no schema: offered with string items, ``_parameter_schema``)
    or a schema whose ``items`` name only scalar JSON types. An array of objects, or of items the
    schema does not type, may rightly hold ``{"type": ...}`` items."""
    if schema is None:
        return True
    items = schema.get("items") if isinstance(schema, Mapping) else None
    kind = items.get("type") if isinstance(items, Mapping) else None
    kinds = kind if isinstance(kind, list) else [kind]
    return _names_types(kind) and not {"object", "array"} & set(kinds)


def admits_null(schema: Any) -> bool:
    """Whether the JSON schema ``schema`` takes null at its top: ``"type": "null"`` or a list of
    types with ``"null"`` (zod's ``.nullable()``), OpenAPI's ``"nullable": true``, or a branch of
    its ``anyOf`` / ``oneOf`` that does (Pydantic's ``X | None``)."""
    if not isinstance(schema, Mapping):
        return False
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind) or schema.get("nullable") is True:
        return True
    return any(admits_null(branch) for key in ("anyOf", "oneOf") if isinstance(schema.get(key), list) for branch in schema[key])


_KIND_NAMES = {"object": "a JSON object", "array": "a JSON array", "string": "a string", "number": "a number",
               "integer": "an integer", "boolean": "true or false", "null": "null"}


def _kinds(value: Any) -> set[str]:
    """The JSON-schema types ``value`` is an instance of."""
    if isinstance(value, bool):
        return {"boolean"}
    if isinstance(value, int):
        return {"integer", "number"}
    if isinstance(value, float):
        return {"number", "integer"} if value.is_integer() else {"number"}
    return {dict: {"object"}, list: {"array"}, str: {"string"}}.get(type(value), set())


def _kind_problems(parameter: ToolParameter, value: Any) -> list[str]:
    """[the model-facing problem] when ``value`` (coerced) is of no JSON type the ``type`` of the
    parameter's ``input_schema`` names (a name or a list of names), else []; a schema naming no
    type takes any value."""
    declared = (parameter.input_schema or {}).get("type")
    names = [declared] if isinstance(declared, str) else declared if isinstance(declared, list) else []
    names = [name for name in names if name in _KIND_NAMES]
    if not names or _kinds(value) & set(names):
        return []
    shown = repr(value) if len(repr(value)) <= 200 else repr(value)[:200] + "..."
    return [MSG_NOT_KIND.format(name=parameter.name, kinds=" or ".join(_KIND_NAMES[name] for name in names), value=shown)]


def has_default(parameter: Any) -> bool:
    """Whether a tool parameter declares a default a call may take in its place: a value that is
    neither null nor empty text (``ToolParameter.default``; Dify fills it in the node's form)."""
    return parameter.default is not None and parameter.default != ""


def nested_arguments(arguments: Mapping[str, Any], tool: ToolEntity) -> dict[str, Any] | None:
    """The arguments a model wrapped in the tool's own name, or None when ``arguments`` are not
    so wrapped: ``{"idle_rack": {"dataCenterId": "48"}}`` for the tool ``idle_rack`` gives
    ``{"dataCenterId": "48"}`` (dify29682: a workflow tool called so got none of its values).

    Wrapped means one key, the tool's name (as declared, or as offered to providers:
    ``provider_name``), holding an object that names at least one of the tool's parameters, for
    a tool with no parameter of that name. Anything else (a parameter really named like its
    tool, an object of keys the tool does not declare) is left as the model wrote it."""
    if len(arguments) != 1:
        return None
    ((key, inner),) = arguments.items()
    name = tool.identity.name
    if not isinstance(inner, Mapping) or key not in (name, provider_name(name)):
        return None
    declared = {parameter.name for parameter in tool.parameters}
    if key in declared or declared.isdisjoint(inner):
        return None
    return dict(inner)


def schema_echo(
    arguments: Mapping[str, Any], parameters: set[str], scalars: set[str], lists: Collection[str] = (),
) -> list[str]:
    """The JSON-schema keys ``arguments`` hold where values belong, or [] (values were given).

    Two shapes, both seen from small models: the parameter schema printed whole
    (``{"type": "object", "properties": {...}}`` for a tool with no such parameters), and a
    parameter's own schema in place of its value (``{"query": {"type": "string",
    "description": "..."}}``), looked for only in ``scalars`` (parameters whose value is no
    object: an object parameter may rightly hold a ``type`` key). A scalar parameter's schema
    has no ``properties`` or ``items`` and no ``object``/``array`` type, so such a value is a
    schema given as data (a validator's ``schema`` parameter, sent on as JSON text), unless
    its ``properties`` name the tool's own parameters (the printed schema under a name). The
    printed schema is also known without its ``type`` (``{"properties": {"query": {...}}}``) and
    under a key the tool does not take (the tool's whole declaration, ``{"name": "search",
    "parameters": {...}}``): a tool whose parameters are all optional would run it otherwise.
    In ``lists`` (arrays whose items are no objects, ``_items_no_objects``) the array's schema
    (``{"type": "array", "items": {...}}``), its item schema alone (``{"type": "string"}``) or
    listed (``[{"type": "string"}]``) is echoed too: none is a value such an array takes (wave 39:
    each reached the tool)."""
    keys = set(arguments)
    if "name" not in keys and "properties" not in keys and _TEXT_OR_SCALAR.issuperset(map(type, arguments.values())):
        return []  # the usual call: values only, none an object, no key a printed schema would start with
    if {"type", "properties"} <= keys and not {"type", "properties"} & parameters:
        return sorted(keys & _SCHEMA_KEYS)
    if declared_parameters(arguments, parameters) == 1:
        return sorted(keys & DECLARATION_KEYS)  # {"name": "query", "type": "string", ...}
    if "properties" not in parameters and _prints_the_schema(arguments.get("properties"), parameters):
        return sorted(keys & _SCHEMA_KEYS)  # the schema printed without its "type": "object"
    echoed = {
        key
        for name, value in arguments.items()
        for item in (value if name in scalars and _schemas_listed(value, parameters) else (value,))
        if (name in scalars and _echoes_a_schema(item, parameters))
        or (name not in parameters and isinstance(item, Mapping) and _prints_the_schema(item.get("properties"), parameters))
        for key in item
        if key in _SCHEMA_KEYS
    }
    for name in lists:
        value = arguments.get(name)
        if _echoes_a_list_schema(value) or _schemas_listed(value, parameters):
            echoed.update(k for item in (value if isinstance(value, list) else (value,)) for k in item if k in _SCHEMA_KEYS)
    return sorted(echoed)


def _echoes_a_list_schema(value: Any) -> bool:
    """Whether ``value``, given for an array whose items are no objects, is a schema: an object
    of schema keywords only, with a ``type`` naming JSON types or an ``items`` (the array's or its
    item's schema). No such object is a value of that array."""
    return (isinstance(value, Mapping) and bool(value) and set(value) <= _SCHEMA_KEYS
            and (("type" in value and _names_types(value["type"])) or "items" in value))


def filled_schema(arguments: Any, parameters: Collection[str]) -> dict[str, Any] | None:
    """The values of ``arguments`` written as the tool's parameter schema with values where the
    parameters' schemas go (``{"type": "object", "properties": {"query": "Paris"}, "required":
    ["query"]}``): its ``properties``, the call's arguments; None for any other arguments.

    Only when every key of ``arguments`` is a JSON-schema keyword (``SCHEMA_KEYS``), ``properties``
    among them, none a parameter of the tool (a tool taking ``type`` gets values), and
    ``properties`` is a non-empty object naming only ``parameters``, none of them given a schema
    (``{"query": {"type": "string"}}`` is the schema printed: ``schema_echo`` refuses it). The model
    gave every value; the wrapper around them is the schema's shape it copied."""
    if not isinstance(arguments, Mapping) or "properties" not in arguments:
        return None
    keys = set(arguments)
    if not keys <= _SCHEMA_KEYS or not keys.isdisjoint(parameters):
        return None
    values = arguments["properties"]
    if not isinstance(values, Mapping) or not values or not set(values) <= set(parameters):
        return None
    if any(isinstance(v, Mapping) and v and set(v) <= _SCHEMA_KEYS for v in values.values()):
        return None
    return dict(values)


_TEXT_OR_SCALAR = json_args.PLAIN_SCALARS | {str}
"""Types of argument values that can be no schema (``schema_echo``: only an object can)."""


def _schemas_listed(value: Any, parameters: set[str]) -> bool:
    """Whether ``value``, given for a parameter whose value is no object, is a list of that
    parameter's schema written more than once (MiniMax-M3 writing a parameter's element twice,
    each time with its schema, gives the list of both): each item echoes a schema."""
    return isinstance(value, list) and bool(value) and all(_echoes_a_schema(item, parameters) for item in value)


def _prints_the_schema(properties: Any, parameters: set[str]) -> bool:
    """Whether ``properties`` (the value of a ``properties`` key) describes the tool's own
    parameters: it names one of ``parameters`` and gives each one it names a schema object
    (``{"query": {"type": "string"}}``) rather than a value. Seen as a call's arguments or under
    a key the tool does not take: the printed schema without ``"type": "object"``, or the tool's
    whole declaration (``{"name": "search", "parameters": {"type": "object", ...}}``)."""
    if not isinstance(properties, Mapping):
        return False
    named = [properties[name] for name in parameters if name in properties]
    return bool(named) and all(isinstance(v, Mapping) and v and set(v) <= _SCHEMA_KEYS for v in named)


_SCHEMA_ONLY_KEYS = _SCHEMA_KEYS - {"type", "title", "description", "default"}
"""Schema keywords a value rarely holds: an object made of title, description and default alone
may be a value (a task, an event an MCP tool takes as a model Dify typed ``string``)."""
_TYPE_NAMES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})


def _names_types(kind: Any) -> bool:
    """Whether ``kind`` is a JSON-schema type name, or a list of them."""
    if isinstance(kind, str):
        return kind in _TYPE_NAMES
    return isinstance(kind, list) and bool(kind) and all(isinstance(k, str) and k in _TYPE_NAMES for k in kind)


def _echoes_a_schema(value: Any, parameters: set[str]) -> bool:
    """Whether ``value``, given for a parameter whose value is no object, is that parameter's
    schema (``{"type": "string", "description": ...}``) or the tool's printed schema (whose
    ``properties`` name ``parameters``) rather than a value (see ``schema_echo``). Keys of a
    schema alone do not make one: a ``type`` that names no JSON type beside other keys
    (``{"title": "Standup", "type": "meeting"}``), or only a title and a description, is an
    object the tool takes (Dify types an MCP parameter whose schema is a ``$ref`` or an ``anyOf``
    as ``string``: FastMCP's ``event: Event``)."""
    if not (isinstance(value, Mapping) and value and set(value) <= _SCHEMA_KEYS):
        return False
    if "type" in value and not _names_types(value["type"]) and set(value) - {"type", "description"}:
        return False  # a value with a type of its own: {"title": "Standup", "type": "meeting"}
    if "type" not in value and set(value) != {"description"} and not set(value) & _SCHEMA_ONLY_KEYS:
        return False  # {"title": "Buy milk", "description": "2 liters"}: a task, not a schema
    nested = value.get("properties")
    if isinstance(nested, Mapping) and nested:
        return bool(set(nested) & parameters)
    return "items" not in value and "properties" not in value and value.get("type") not in ("object", "array")


PROVIDER_NAME_MAX: Final = 64
_PROVIDER_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_NOT_IN_NAME = re.compile(r"[^A-Za-z0-9_-]+")


def provider_name(name: str) -> str:
    """``name`` as every tool-calling API takes it: OpenAI and Anthropic accept only
    ``^[a-zA-Z0-9_-]{1,64}$`` and refuse the whole request otherwise (dify#22867: MCP tools named
    ``server.tool``). A name that fits is returned as it is; in any other, each run of other
    characters becomes one ``_``, and the result is cut to 64 characters (``tool`` if nothing is
    left)."""
    if _PROVIDER_NAME.fullmatch(name):
        return name
    return _NOT_IN_NAME.sub("_", name).strip("_")[:PROVIDER_NAME_MAX].strip("_") or "tool"


def _fits(name: str) -> bool:
    """True if ``name`` is offered as it is (``provider_name`` leaves it unchanged)."""
    return _PROVIDER_NAME.fullmatch(name) is not None


def _unique_name(name: str, taken: Container[str], limit: int | None = None) -> str:
    if name not in taken:
        return name
    number = 2
    while (candidate := _numbered(name, number, limit)) in taken:
        number += 1
    return candidate


def _numbered(name: str, number: int, limit: int | None) -> str:
    suffix = f"_{number}"
    return (name if limit is None else name[: limit - len(suffix)]) + suffix


def _value_problems(parameter: ToolParameter, value: Any) -> list[str]:
    options = _option_values(parameter)
    if options:
        values = value if isinstance(value, list) else [value]
        wrong = [item for item in values if str(item) not in options]
        if wrong:
            allowed = ", ".join(repr(option) for option in options)
            return [MSG_NOT_OPTION.format(name=parameter.name, options=allowed, value=wrong[0])]
    if parameter.type == ParamType.NUMBER and not _is_number(value):
        return [MSG_NOT_NUMBER.format(name=parameter.name, value=value)]
    if parameter.type in BOOLEAN_TYPES and not isinstance(value, bool):
        return [MSG_NOT_BOOLEAN.format(name=parameter.name, value=value)]
    return []


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def coerce_value(parameter: ToolParameter, value: Any) -> Any:
    """``value`` converted to the parameter's type when that is unambiguous, else unchanged.

    number: ``"3"`` -> 3, ``"2.5"`` -> 2.5; boolean: ``"true"``/``"false"``, ``"yes"``/``"no"``,
    ``1``/``0`` (any case; ``_to_bool``) -> bool; string-like: numbers -> text, objects/arrays -> JSON text;
    object/array: JSON text -> the object/array.
    """
    if parameter.type == ParamType.NUMBER:
        return _to_number(value)
    if parameter.type in BOOLEAN_TYPES:
        return _to_bool(value)
    if parameter.type in STRING_TYPES and not parameter.multiple:
        return _to_text(value)
    if parameter.type in (ParamType.OBJECT, ParamType.ARRAY) and isinstance(value, str):
        return _from_json_text(value, dict if parameter.type == ParamType.OBJECT else list)
    return value


def _to_number(value: Any) -> Any:
    if not isinstance(value, str) or not _NUMBER.fullmatch(value.strip()):
        return value
    text = value.strip()
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    number = float(text)
    return number if math.isfinite(number) else value


_BOOLEAN_WORDS: dict[str, bool] = {"true": True, "yes": True, "y": True, "1": True, "false": False, "no": False, "n": False, "0": False}
"""Texts Dify's own tool parameters read as a boolean (``ToolParameter`` casting in
``core/tools/entities/tool_entities.py``: true/yes/y/1 and false/no/n/0, any case)."""


def _to_bool(value: Any) -> Any:
    """``value`` as a bool where Dify would read it as one without doubt: the words of
    ``_BOOLEAN_WORDS``, and the numbers 1 and 0; anything else unchanged (the model is told)."""
    if isinstance(value, str):
        return _BOOLEAN_WORDS.get(value.strip().lower(), value)
    if isinstance(value, int | float) and not isinstance(value, bool) and value in (0, 1):
        return value == 1
    return value


def _to_text(value: Any) -> Any:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return value


def _from_json_text(value: str, kind: type) -> Any:
    try:
        decoded = json_args.loads(value)
    except (ValueError, RecursionError):
        return value
    return decoded if isinstance(decoded, kind) else value
