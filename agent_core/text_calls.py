"""Tool calls written as text: the one reader both strategies use.

Models write calls in their text in many ways; ReAct expects it, Function Calling meets it
when a model puts the call in its content instead of ``tool_calls``. Everything that reads
such a call lives here, so both strategies read the same text the same way:

* **envelopes** (``interpret``): a decoded JSON value as calls. ``{"action", "action_input"}``,
  ``{"name", "arguments"}``, ``{"function": {...}}``, ``{"tool_name", "tool_arguments"}``,
  ``{"tool_call": ...}``, ``{"tool_calls": [...]}`` and lists of them; keys match in any case and
  separator spelling (``{"Action": ..., "Action Input": ...}``).
* **blocks** (``calls_from_block``): the inside of ``<tool_call>``/``<action>`` tags or a
  fence: JSON, a call written as code (``search(query="x")``), or XML
  (``<function=name><parameter=k>v</parameter></function>``, the closing tags optional at the
  end, a name's ``>`` too when it names a declared tool or parameter; a body holding anything
  else is no call; ``<tool_name>x</tool_name><arguments><arg key="k">v</arg></arguments>``).
* **inputs** (``decode_input``): an ``Action Input`` as written: JSON or almost-JSON under the
  one trust rule of ``agent_core.json_args`` (a repair that would lose a word is refused),
  quoted text, or plain text (a phrase in square brackets with no quote in it, ``[temperature
  in {SF}]``, is text, not an array a repair made of its words; a lone quote whose pair was
  eaten is dropped).
* **content** (``extract_calls_from_text``): Function Calling's reading of a reply's content:
  ``<tool_call>`` blocks, the whole content as one call object (after special tokens such as
  ``<|python_tag|>`` or ``[TOOL_CALLS]``, and a fence), ``Action:`` followed by a call
  object, a call object in a Hermes wrapper tag (``<tool>``, ``<response>``...) or on the lines
  after a sentence, and Phi-4-mini's ``functools[...]`` after one.

Pure functions; never raise on any text.
"""

from __future__ import annotations

import ast
import bisect
import json
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any, Final

from dify_plugin.entities.model.message import PromptMessageTool

from agent_core import json_args
from agent_core.declarations import yaml_declared
from agent_core.emoji import line_marks
from agent_core.fences import FENCE_RUN, fence_lines
from agent_core.json_args import (
    SPECIAL_TOKEN,
    ArgumentsError,
    decode_arguments,
    loads_lenient,
    raw_decode_at,
    strip_noise,
    with_closers,
)
from agent_core.quoted import QuotedScan
from agent_core.tool_calls import ToolCall, fresh_call_ids


class _Fail:
    """Marker for "no meaningful JSON value"."""

    def __repr__(self) -> str:
        return "FAIL"


FAIL: Final = _Fail()
"""What ``decode_json`` returns when the text holds no value it may use."""

Call = tuple[str, Any]
"""A call as read: the tool name as written, and its input (dict, list, str or None)."""


# --------------------------------------------------------------------------------------------
# Decoding JSON and action inputs
# --------------------------------------------------------------------------------------------


def decode_json(text: str) -> Any:
    """``text`` as a JSON value under the one trust rule (``json_args.loads_lenient``: strict,
    then invalid escapes fixed, then a repair that keeps every word), or ``FAIL``. A value of
    another kind than the opening bracket promised (``{garbage`` -> ``["garbage"]``) is
    ``FAIL`` too. Python literals (None/True/False, single quotes) come back as JSON values."""
    text = text.strip()
    if not text:
        return FAIL
    try:
        value = loads_lenient(text)
    except ArgumentsError:
        return FAIL
    expected = {"{": dict, "[": list}.get(text[0])
    if expected and not isinstance(value, expected):
        return FAIL
    return value


STOP_TAIL = re.compile(r"\n[ \t#*>]*(?:" + "|".join("observation"[:k] for k in range(11, 1, -1)) + r"):?[ \t]*$", re.I)
NONE_INPUTS: Final = frozenset({"none", "null", "n/a", "nil"})
_TRAILING_TOKENS_REVERSED = re.compile(r"(?:>[|｜][\w.\-▁]{1,40}[|｜]<|>s/<)(?:\s*+(?:>[|｜][\w.\-▁]{1,40}[|｜]<|>s/<))*+")
"""Special tokens (``<|eot_id|>``, ``</s>``) with whitespace between them, read backwards."""


def without_trailing_tokens(text: str) -> str:
    """``text`` without its trailing whitespace and the special tokens it ends with (with the
    whitespace between them); the whitespace before the first of them stays.

    The tokens are read backwards from the end, in one pass: a pattern anchored at the end and
    searched forwards restarted at every token of a long run of them (quadratic, 0.4 s for
    16,000 characters of tokens followed by a word)."""
    text = text.rstrip()
    tokens = _TRAILING_TOKENS_REVERSED.match(text[::-1])
    return text[: len(text) - tokens.end()] if tokens else text


def decode_nested(value: Any) -> Any:
    """A string holding a JSON object or array, decoded; anything else unchanged. One whose first
    quote, after its opening brackets, is escaped (``[{\\"id\\": ...``, never JSON as written) is
    read as the body of a JSON string first (``_escaped_json``)."""
    if isinstance(value, str) and value.strip()[:1] in ("{", "["):
        if value.lstrip(" \t\r\n[{").startswith('\\"') and (decoded := _escaped_json(value)) is not FAIL:
            return decoded
        decoded = decode_json(value)
        return value if decoded is FAIL else decoded
    return value


def _escaped_json(text: str) -> Any:
    """A JSON object or array written with its quotes escaped once, as the body of a JSON string
    (``[{\\"id\\": \\"1\\"}]``: GLM-4.7 in an ``<arg_value>``, SGLang's ``glm47_moe`` detector test),
    decoded; ``FAIL`` when the text is no such string body or what it holds is no JSON object or
    array of the kind its first bracket opens."""
    try:
        inner = json.loads(f'"{text.strip()}"', strict=False)
    except ValueError:
        return FAIL
    return decode_json(inner)


_EMPHASIS = re.compile(r"^[*_]+[ \t]*(?=[{\[])|(?<=[}\]])[ \t]*[*_]+$")


def decode_input(text: str) -> Any:
    """An action input as written -> dict, list, string or None.

    Strips a trailing partial stop word (qwen197) and surrounding quotes; JSON (or almost-JSON)
    is decoded leniently, and when that yields nothing the text is kept as a string.
    """
    text = STOP_TAIL.sub("", without_trailing_tokens(text)).strip()
    if not text or text.lower() in NONE_INPUTS:
        return None
    bare = _EMPHASIS.sub("", text)  # "** {...}": the bold of "**Action Input:**" left on the value
    if bare[:1] in "{[":
        value = FAIL if bracketed_text(bare) else decode_json(bare)
        return text if value is FAIL else decode_nested(value)
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'`":
        if text[0] == '"':
            try:
                value = json_args.loads(text)
            except ValueError:
                value = None
            if isinstance(value, str):
                return value if bracketed_text(value) else decode_nested(value)
        return decode_nested(text[1:-1])
    if text.count('"') == 1 and (text[0] == '"' or text[-1] == '"'):
        return text.strip('"').strip()  # one quote, its pair eaten (crewAI's parser tests: '"what is ...')
    return text


def bracketed_text(text: str) -> bool:
    """Whether ``text`` in square brackets is a phrase, not an array: no quote in it and not
    strict JSON (``[temperature in {SF}]``, CrewAI's parser tests), where a repair would make up
    a list of its words. ``[1, 2]`` and ``["a", 'b']`` are arrays."""
    if text[:1] != "[" or text[-1:] != "]" or '"' in text or "'" in text:
        return False
    try:
        json.loads(text)
    except ValueError:
        return True
    return False


def coerce_input(value: Any) -> dict | str | None:
    """Fit a decoded value to ``ActionFound.input``: dict, str or None (others as JSON text)."""
    if value is None or isinstance(value, (dict, str)):
        return value
    return json.dumps(value, ensure_ascii=False)


# --------------------------------------------------------------------------------------------
# Envelopes and blocks
# --------------------------------------------------------------------------------------------

# Keys as compared (``_key_form``): "tool_calls", "Tool Calls" and "toolCalls" are all "toolcalls".
_CALL_LISTS: Final = ("toolcalls", "tooluses", "functioncalls", "actions")
_CALL_WRAPPERS: Final = ("toolcall", "functioncall")
_NAME_KEYS: Final = ("action", "toolname", "tool", "name", "function", "recipientname", "actionname", "method")
"""``method``: a JSON-RPC request (``{"jsonrpc": "2.0", "method": N, "params": {...}}``), the shape
mistral-nemo writes a call in when it misses its own (ollama/ollama#5976)."""
_WEAK_NAME_KEYS: Final = frozenset({"name", "function", "method"})  # need an argument key in a bare object
_ARG_KEYS: Final = (
    "actioninput",
    "arguments",
    "args",
    "parameters",
    "params",
    "input",
    "inputs",
    "toolinput",
    "toolarguments",
    "toolargs",
    "kwargs",
)
_META_KEYS: Final = frozenset({"thought", "thoughts", "reasoning", "id", "type", "index", "callid", "jsonrpc"})
_ENVELOPE_NAMES: Final = frozenset({"tool_call", "tool_calls", "function", "function_call"})
_MAX_CALLS: Final = 64
Call = tuple[str, Any]
_KEY_SEPARATORS = re.compile(r"[\s_\-]")


def _key_form(key: Any) -> str:
    """A key as compared: case, spaces, ``_`` and ``-`` ignored ("Action Input" is "actioninput")."""
    if not isinstance(key, str):
        return ""
    form = _KEY_FORMS.get(key)
    if form is None:
        form = _KEY_SEPARATORS.sub("", key.lower())
        if len(_KEY_FORMS) < _KEY_FORMS_MAX and len(key) <= _KEY_FORM_MAX_CHARS:
            _KEY_FORMS[key] = form
    return form


_KEY_FORMS: dict[str, str] = {}
"""The forms of the keys met so far (models write the same few keys in every call)."""
_KEY_FORMS_MAX: Final = 4096
_KEY_FORM_MAX_CHARS: Final = 64
"""Longest key whose form is remembered: the process keeps ``_KEY_FORMS`` for its life, and a key a
model wrote may be a megabyte long (4,096 of them would be gigabytes)."""


def _keys_by_form(obj: dict) -> dict[str, Any]:
    """Each key form of ``obj`` -> its first key as written ({"Action": ...} -> {"action": "Action"})."""
    keys: dict[str, Any] = {}
    for key in obj:
        keys.setdefault(_key_form(key), key)
    return keys


def interpret(value: Any, strict: bool, depth: int = 0, names: Collection[str] = ()) -> list[Call]:
    """(name, input) pairs from a decoded action envelope; [] when it is not one.

    Accepts {"action", "action_input"|"args"|...}, {"name", "arguments"}, {"function": {...}},
    {"tool_name", "tool_arguments"}, {"tool_call": ...}, {"tool_calls": [...]} and lists of them
    (dop3705, smolagents158, openhands260). Keys match in any case and spelling of their
    separators: {"Action": ..., "Action Input": ...} is the classic envelope. ``strict`` (a bare
    object nobody labelled as an action) requires an argument key next to a plain "name"/"function",
    except in a list that holds a call object, where ``{"name": X}`` alone is a call without
    arguments when X is one of ``names`` (``name_alone``).
    """
    if depth > 6:
        return []
    if isinstance(value, list):
        items = value[:_MAX_CALLS]
        found = [interpret(item, strict, depth + 1, names if isinstance(names, Mapping) else ()) for item in items]
        if strict and names and any(found):  # beside call objects, {"name": X} is a call too (hermes87900)
            found = [calls or _named_tool(item, names) for calls, item in zip(found, items, strict=True)]
        return [call for calls in found for call in calls]
    if not isinstance(value, dict):
        return []
    keys = _keys_by_form(value)
    for form in _CALL_LISTS:
        if form in keys and isinstance(value[keys[form]], list):
            return interpret(value[keys[form]], False, depth + 1)
    for form in _CALL_WRAPPERS:
        if form in keys and isinstance(value[keys[form]], dict):
            return interpret(value[keys[form]], False, depth + 1)
    return _one_call(value, keys, strict, depth, names)


def _one_call(obj: dict, keys: dict[str, Any], strict: bool, depth: int, names: Collection[str] = ()) -> list[Call]:
    for form in _NAME_KEYS:
        if form not in keys:
            continue
        key = keys[form]
        named = obj[key]
        if isinstance(named, dict):
            inner = interpret(named, False, depth + 1)
            if inner:
                return inner
            continue
        if not isinstance(named, str) or not named.strip():
            continue
        arg_form = next(filter(keys.__contains__, _ARG_KEYS), None)  # the first in _ARG_KEYS' order, in C
        args_key = keys[arg_form] if arg_form is not None else None
        if strict and form in _WEAK_NAME_KEYS and args_key is None:
            return []
        args = decode_nested(obj[args_key]) if args_key is not None else _rest(obj, key)
        if args_key is not None and "description" in keys and _schema_shaped(args):
            return []  # a tool's declaration: name, description, parameter schema
        if strict and args_key is None and not _flat_fits(named.strip(), args, names):
            return []  # a record naming a tool ({"tool": "search", "calls": 12}), not a call
        if named.strip().lower() in _ENVELOPE_NAMES and isinstance(args, (dict, list)):
            inner = interpret(args, False, depth + 1)
            if inner:
                return inner
        return [(named.strip(), args)]
    return []


def _schema_shaped(value: Any) -> bool:
    """Whether ``value`` is a JSON Schema of an object (``{"type": "object", "properties": {...}}``,
    each property a schema): a tool declaration's parameters, which a call object never holds
    beside a ``description`` (an answer showing how a tool is declared)."""
    if not isinstance(value, dict) or value.get("type") != "object":
        return False
    properties = value.get("properties")
    return isinstance(properties, dict) and all(isinstance(v, dict) for v in properties.values())


def _flat_fits(name: str, rest: Any, names: Collection[str]) -> bool:
    """Whether the keys written beside a bare object's name (no arguments key) may be the named
    tool's arguments: unless ``names`` maps that tool to its declaration and the declaration has
    parameters, any; else one key at least must be one of its parameters (``{"tool": "search",
    "calls": 12}``, a row of a table an answer shows, is no call of ``search(query)``), as
    ``flat_call`` asks of a ``{"name": ...}`` object."""
    if not isinstance(names, Mapping) or not isinstance(rest, dict) or name not in names:
        return True
    properties = schema_properties(names[name])
    return not properties or any(k in properties for k in rest)


def name_alone(value: Any) -> list[Call]:
    """``[(X, {})]`` when ``value`` is ``{"name": X}``: a name and nothing else (meta keys such as
    ``id`` or ``type`` aside), the shape qwen2.5-coder via Ollama writes a call without arguments
    in, beside its calls with arguments (NousResearch/hermes-agent PR #87900); ``[]`` otherwise.
    ``interpret`` (strict) reads it in a list that holds a call object, ReAct's parser once a
    call object comes, both only when X is one of the node's tools."""
    if not isinstance(value, dict):
        return []
    keys = _keys_by_form(value)
    named = value[keys["name"]] if "name" in keys else None
    if not isinstance(named, str) or not named.strip() or any(
        form != "name" and form not in _META_KEYS for form in keys
    ):
        return []
    return [(named.strip(), {})]


class NoArguments(dict):
    """The arguments of a ``{"name": X}`` read beside call objects (``name_alone``): none. Its name
    may be no node tool's: such a call is kept (``_known_calls`` lets it through) so that the
    model is told it was not run, as any call of an unknown tool is (``prompts.UNKNOWN_TOOL``),
    rather than dropped in silence."""


def _named_tool(value: Any, names: Collection[str]) -> list[Call]:
    """``name_alone(value)``, its arguments ``NoArguments``, else ``[]``: beside call objects a
    name alone is a call, of a node tool (one of ``names``) or, to be answered as not run, of
    none."""
    alone = name_alone(value)
    return [(alone[0][0], NoArguments())] if alone and names else []


def named_by_method(value: Any) -> bool:
    """Whether ``value`` is an object that names its call only by ``method`` (a JSON-RPC request,
    ``{"jsonrpc": "2.0", "method": "eth_getBalance", "params": [...]}``): an answer shows such
    requests as examples (MCP's ``tools/call``, an Ethereum node's API), so unlabelled it is a call
    only when ``method`` names one of the node's tools (mistral-nemo writing its call so:
    ollama/ollama#5976)."""
    if not isinstance(value, dict):
        return False
    keys = _keys_by_form(value)
    return "method" in keys and not any(form in keys for form in _NAME_KEYS if form != "method")


def _rest(obj: dict, name_key: str) -> dict | None:
    """Arguments written next to the name ({"action": "search", "query": "x"})."""
    rest = {k: v for k, v in obj.items() if k != name_key and _key_form(k) not in _META_KEYS}
    return rest or None


_XML_FUNCTION = re.compile(r"<function=([^>\s]+)\s*>(.*?)(?:</function>|\Z)", re.S | re.I)
# a parameter's closing tag may be missing before the next parameter, the function's end, or the
# end (group 3 is then empty)
_XML_PARAMETER = re.compile(
    r"<parameter=([^>\s]+)\s*>(.*?)(</parameter>|(?=<parameter=)|(?=</function>)|\Z)", re.S | re.I
)
_UNCLOSED_FUNCTION = re.compile(r"<function=([^<>\s]++)[ \t]*+(?=\r?\n)(?!\s*+>)")
_UNCLOSED_PARAMETER = re.compile(r"<parameter=([^<>\s]++)[ \t]*+(?=\r?\n)(?!\s*+>)", re.I)
"""Qwen3-Coder's ``<function=NAME`` and ``<parameter=NAME`` whose ``>`` was left out: the name
ends its line (group 1, no space in it), the next line opens the body or the value (mlx-lm's
``qwen3_coder`` parser repairs both: its ``tests/test_tool_parsing.py``). Closed only when the
name is one the node declared (``_closed_name``)."""
_NOTHING_UNREAD = re.compile(r"(?:\s++|</[\w:.\-]*+>)*+")
"""What may be left of a function's body once its parameters are read: blanks and closing tags (a
stray ``</parameter>``, a ``</tool_call>`` after a ``</function>`` left out). Anything else is
something the reader could not read, so the call is not run: a parameter tag it cannot read
(``<parameter=the path>``, ``<parameter=path`` unclosed naming no parameter of the tool,
``<param=k>``) or an argument written otherwise (``path: a.py``)."""
_XML_NAME = re.compile(r"<(tool_name|tool|name|function_name)>(.*?)</\1>", re.S | re.I)
_XML_ARG = re.compile(r"<arg\s+(?:key|name)\s*=\s*[\"']([^\"']*)[\"']\s*>(.*?)</arg>", re.S | re.I)
_XML_ARGS = re.compile(r"<(arguments|args|parameters|input)>(.*?)</\1>", re.S | re.I)
_XML_ELEMENT = re.compile(r"<([\w\-]+)>(.*?)</\1>", re.S)
_XML_MAX: Final = 20_000  # XML parsing looks at no more than this
CALL_FORM = re.compile(r"([\w.\-]+)\s*[\[(](.*)[\])]", re.S)
"""A call written as code: ``search(query="x")`` or ``Search[query]``."""


def calls_from_block(text: str, tools: Mapping[str, PromptMessageTool | None] | None = None) -> list[Call]:
    """Calls written inside ``<tool_call>``/``<action>`` or a non-JSON fence: JSON, a call or XML.

    A call is ``search(query="x")``, read as on an ``Action:`` line (code-writing models put it in
    a python fence after ``Action:``), also as Gemini writes it in a ``tool_code`` fence: wrapped
    in a print call, the name after ``default_api.``. XML forms:
    ``<function=name><parameter=k>v</parameter></function>`` (mlxswift529) and
    ``<tool_name>x</tool_name><arguments><arg key="k">v</arg></arguments>`` (dspygo167), and
    GLM's ``name<arg_key>k</arg_key><arg_value>v</arg_value>``. A name with a JSON object right
    after it or on the line below (``<tool_call>skill_view{"name": "x"}</tool_call>``, GLM-4.7
    writing its call without its arg keys: ml-explore/mlx-lm PR #792, mrwogu/factory-droid-openai
    PR #36) is that call. ``tools``: the node's tools by name, each to its declaration or None
    (GLM's name glued to its first key is split with them: ``_glm_call``).
    """
    text = text.strip()
    if "<tool_call>" in text and (twice := _opened_twice(text, tools)):
        return twice
    label = _PLACEHOLDER_LINE.match(text)
    if label and (labelled := calls_from_block(text[label.end() :], tools)):
        return labelled  # the prompt's placeholder copied above the JSON (langchainjs#1399, Claude)
    if text.startswith("[") and text.endswith(")]") and (listed := python_calls(text[1:-1])):
        return listed  # [a(x=1), b(y=2)]: Gemma 3 in a ```tool_code fence (vllm-project/vllm#14734)
    json_calls = _json_or_named(text)
    if json_calls is not None:
        return json_calls
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) > 1 and (listed := python_calls(", ".join(lines))):
        return listed  # one call a line (OLMo 3, vLLM's olmo3 tool parser): never one call of them all
    call = CALL_FORM.fullmatch(text)
    if call:
        name, inside = call.group(1), call.group(2)
        nested = CALL_FORM.fullmatch(inside.strip())
        if name == "print" and nested:  # Gemini's ```tool_code wraps the call: print + (default_api.search(...))
            name, inside = nested.group(1), nested.group(2)
        name = name.removeprefix("default_api.")
        pythonic = python_calls(f"{name}({inside})") if BARE_NAME.fullmatch(name) else []
        return [(name, pythonic[0][1] if len(pythonic) == 1 else call_arguments(inside))]
    text = text[:_XML_MAX]
    function = _function_call(text, tools)
    if function is not None:
        return function
    glm = _glm_call(text, tools)
    if glm:
        return glm
    name = _XML_NAME.search(text)
    if not name or not name.group(2).strip():
        return []
    return [(name.group(2).strip(), _xml_arguments(text))]


def _opened_twice(text: str, tools: Mapping[str, PromptMessageTool | None] | None) -> list[Call]:
    """A ``<tool_call>`` block's body (``text``) holding a second ``<tool_call>`` before its one
    close, the same call written on both sides of it (``skill\n{...}\n<tool_call>skill\n{...}``:
    Ollama's Laguna parser test, which runs it once): that call, once. ``[]`` when the two sides
    differ or either does not read: which of two different calls the model meant would be a
    guess (the block is then not read, and the model is asked again)."""
    before, _, after = text.partition("<tool_call>")
    if "<tool_call>" in after or not before.strip():
        return []
    first = calls_from_block(before, tools)
    return first if first and calls_from_block(after, tools) == first else []


def _function_call(text: str, tools: Mapping[str, PromptMessageTool | None] | None) -> list[Call] | None:
    """Qwen3-Coder's ``<function=NAME><parameter=K>V</parameter></function>`` in ``text``: one
    call, ``[]`` when it may not run, None when ``text`` holds no such function.

    With ``tools`` (name -> declaration or None), a ``<function=`` name or a ``<parameter=`` name
    whose ``>`` was left out (``_UNCLOSED_FUNCTION``) is read to the end of its line when it is one
    of the tools, or one of the called tool's declared parameters. The call may not run (``[]``)
    when the text ends inside a value (a cut reply), or when the body holds anything but
    parameters, blanks and closing tags (``_NOTHING_UNREAD``): run, it would drop an argument."""
    if tools and "<function=" in text:
        text = _UNCLOSED_FUNCTION.sub(lambda m: _closed_name(m, tools), text)
    function = _XML_FUNCTION.search(text)
    if function is None:
        return None
    name, inner = function.group(1).strip(), function.group(2).strip()
    if inner[:1] == "{":
        return [(name, decode_input(inner))]
    if tools and name in tools:
        inner = _UNCLOSED_PARAMETER.sub(lambda m: _closed_name(m, schema_properties(tools[name])), inner)
    if not function.group(0).lower().endswith("</function>") and _open_parameter(inner):
        return []  # the text ends inside a value: cut off, not to be run
    if not _NOTHING_UNREAD.fullmatch(_XML_PARAMETER.sub("", inner)):
        return []  # text that is no parameter: an argument the reader cannot read would be dropped
    spaced = function.group(2)[:1] == " "  # the tags apart by spaces, not line breaks
    params = {
        k: _parameter_value(v if close else _LAST_BREAK.sub("", v), spaced)
        for k, v, close in _XML_PARAMETER.findall(inner)
    }
    return [(name, params)]


def _glm_call(text: str, tools: Mapping[str, PromptMessageTool | None] | None = None) -> list[Call]:
    """GLM's call inside ``<tool_call>`` (``_GLM_CALL``), also with its first ``<arg_key>`` left
    out after a space (``_GLM_KEY_UNOPENED``) or with no space, the name glued to the key
    (``_GLM_KEY_GLUED``, split with ``tools``: ``glued_name``), or with a stray ``</arg_value>``
    after a bare name (``_GLM_STRAY_CLOSE``); ``[]`` for anything else."""
    glm = _GLM_CALL.fullmatch(text)
    if glm:
        pairs = _glm_pairs(glm.group(2))
        return [(glm.group(1), {key.strip(): _glm_value(value) for key, value in pairs})]
    stray = _GLM_STRAY_CLOSE.fullmatch(text)
    if stray:
        return [(stray.group(1), {})]
    spaced = _first_key_left_out(text, _GLM_KEY_UNOPENED.match(text))
    if spaced:
        (name, key), value, rest = spaced
        pairs = [(key, value), *_glm_pairs(rest)]
        return [(name, {key.strip(): _glm_value(value) for key, value in pairs})]
    glued = _first_key_left_out(text, _GLM_KEY_GLUED.match(text)) if tools else None
    split = glued_name(glued[0][0], tools) if glued and tools else None
    if glued and split:
        pairs = [(split[1], glued[1]), *_glm_pairs(glued[2])]
        return [(split[0], {key.strip(): _glm_value(value) for key, value in pairs})]
    return []


def _glm_value(value: str) -> Any:
    """One ``<arg_value>``: JSON when it reads as a JSON object, array, number or literal, else
    text as written, its spaces and line breaks kept (an indented code body for a write or an
    exact-match edit: vLLM's ``poolside_v1`` parser keeps a string value verbatim)."""
    decoded = decode_nested(value.strip())
    return value if isinstance(decoded, str) else decoded


def _first_key_left_out(text: str, opened: re.Match | None) -> tuple[tuple[str, ...], str, str] | None:
    """GLM's call whose first ``<arg_key>`` was left out, read whole: its start ``opened``
    (``_GLM_KEY_UNOPENED`` or ``_GLM_KEY_GLUED`` matched at the text's start; its groups: the
    name, and the key when a space stands between them) up to the first ``<arg_value>``, the first
    value, then pairs (``_GLM_PAIR``, apart by blanks) to the end; (head's groups, the first value,
    the pairs' text) or None. The first value ends at the first ``</arg_value>`` from which pairs
    run to the end (a lazy value before pairs, as a regular expression would read it). Linear: a
    run of pairs that stops short of the end is not read again, as no end of the first value
    before it can reach past where it stopped (a regular expression tried them all: quadratic)."""
    if opened is None:
        return None
    at = opened.end()
    while (close := text.find(_GLM_VALUE_CLOSE, at)) >= 0:
        rest = _GLM_PAIRS_TO_END.match(text, close + len(_GLM_VALUE_CLOSE))
        if rest.end() == len(text):
            return opened.groups(), text[opened.end() : close], rest.group(1)
        at = rest.end()
    return None


def _glm_pairs(text: str) -> list[tuple[str, str]]:
    """The (key, value) pairs of ``text``, GLM pairs apart by blanks and matched whole
    (``_GLM_PAIR``): each read where the last ended. A search (``findall``) restarted inside a
    long run of opened keys, reading the run again from each (quadratic)."""
    pairs: list[tuple[str, str]] = []
    at = 0
    while pair := _GLM_PAIR.match(text, _BLANKS.match(text, at).end()):
        pairs.append(pair.groups())
        at = pair.end()
    return pairs


def glued_name(word: str, tools: Mapping[str, PromptMessageTool | None]) -> tuple[str, str] | None:
    """``word`` as a tool's name and one of that tool's parameters glued together
    (``send_command_to_shellcommand`` -> ``("send_command_to_shell", "command")``): the longest
    name of ``tools`` that begins ``word`` and leaves a parameter its declaration gives; None when
    none does (a tool known by its name alone has no parameters to tell the key by)."""
    for name in sorted((n for n in tools if len(n) < len(word) and word.startswith(n)), key=len, reverse=True):
        if word[len(name) :] in schema_properties(tools[name]):
            return name, word[len(name) :]
    return None


def _json_or_named(text: str) -> list[Call] | None:
    """The calls of a block that is JSON (``_json_calls``) or a name with a JSON object right after
    it or on the line below (``_NAME_LINE_CALL``; GLM-4.7's fallback forms, ml-explore/mlx-lm PR
    #792, mrwogu/factory-droid-openai PR #36) or after a ``>`` (``_NAME_ANGLE_CALL``); None when
    the block is neither."""
    if text[:1] in ("{", "["):
        return _json_calls(text)
    named = _NAME_LINE_CALL.fullmatch(text) or _NAME_ANGLE_CALL.fullmatch(text)
    if named and isinstance(arguments := decode_json(named.group(2)), dict):
        return [(named.group(1), arguments)]
    return None



def _json_calls(text: str) -> list[Call]:
    """The calls a block of JSON holds: one value (its end is the block's end), or objects in a
    row (``json_objects_in_a_row``); ``[]`` when it holds neither. An object whose first key is
    ``"function=NAME"`` with no value, then ``"arguments"`` (``_FUNCTION_EQUALS_KEY``), is the call
    of NAME with those arguments."""
    hybrid = _FUNCTION_EQUALS_KEY.match(text)
    if hybrid is not None:
        return _hybrid_call(text, hybrid)
    value = decode_json(with_closers(text))
    if value is FAIL:
        objects = json_objects_in_a_row(text)
        return calls_of_each(objects) if objects else []
    return interpret(value, False)


_FUNCTION_EQUALS_KEY = re.compile(r'\{\s*"function=([^"\\\s<>=]{1,200})"\s*,\s*(?="arguments"\s*:)')
"""Qwen3.5/3.6 fusing its two call templates into one: Qwen3-Coder's ``<function=NAME>`` token as
the first key of the Hermes JSON envelope, with no value (``{"function=webfetch","arguments":
{...}}``, tetherto/qvac PR #2677). Group 1: the name. Invalid JSON, so nothing else reads it."""


def function_equals_call(text: str) -> list[Call]:
    """The call of a JSON block written as ``_FUNCTION_EQUALS_KEY`` shows (Qwen3.5/3.6's fused
    templates), from its opening brace to its end; ``[]`` for any other text."""
    hybrid = _FUNCTION_EQUALS_KEY.match(text)
    return [] if hybrid is None else _hybrid_call(text, hybrid)


def _hybrid_call(text: str, hybrid: re.Match[str]) -> list[Call]:
    """The call of a ``_FUNCTION_EQUALS_KEY`` block: the envelope read as ``{"name": NAME,
    "arguments": ...}`` under the one trust rule (``decode_json``), the block's end its end;
    ``[]`` when the rest is not that envelope's JSON."""
    value = decode_json(with_closers('{"name": ' + json.dumps(hybrid.group(1)) + ", " + text[hybrid.end() :]))
    if not isinstance(value, dict) or set(value) != {"name", "arguments"}:
        return []
    return interpret(value, False)


def json_objects_in_a_row(text: str) -> list[Any]:
    """Two or more JSON objects one after the other, apart by white space or one ``;`` or
    ``,`` (``{call}\n{call}``: Hermes-style models put parallel calls in one ``<tool_call>``
    block so, as ReAct models put several JSON actions in a row); ``[]`` when ``text`` is
    anything else (one object, text around them, a value cut short)."""
    objects: list[Any] = []
    at = 0
    while at < len(text):
        try:
            value, at = raw_decode_at(text, at)
        except (ValueError, RecursionError):
            return []
        if not isinstance(value, dict):
            return []
        objects.append(value)
        gap = _BETWEEN_OBJECTS.match(text, at)
        at = gap.end() if gap else at
        if gap is None or (at < len(text) and text[at] != "{"):
            return []
    return objects if len(objects) > 1 else []


_BETWEEN_OBJECTS = re.compile(r"\s*[;,]?\s*")


def calls_of_each(values: Iterable[Any]) -> list[Call]:
    """The calls each of ``values`` (decoded JSON) is (``interpret``, strict), in order; ``[]``
    unless every one is a call (and when there is none)."""
    calls: list[Call] = []
    for value in values:
        found = interpret(value, strict=True)
        if not found:
            return []
        calls.extend(found)
    return calls


_PLACEHOLDER_LINE = re.compile(r"(?:\$[A-Za-z_]\w{0,30}|json(?:_blob)?)[ \t]*+:?[ \t]*+\n(?=\s*+[{\[])", re.IGNORECASE)
"""A first line that only names what follows: a prompt's placeholder (``$JSON_BLOB``) or a
fence's language on a line of its own (``json``)."""

_GLM_PAIR = re.compile(r"(?>(?:<arg_key>\s*+)++([^<]*+)(?:</arg_key>\s*+)++(?:<arg_value>)?(.*?)</arg_value>)", re.S)
_GLM_CALL = re.compile(rf"([\w.\-]++)\s*+((?:{_GLM_PAIR.pattern}\s*+)++)", re.S)
"""GLM-4.5 to GLM-5 inside ``<tool_call>``: the name, then ``<arg_key>k</arg_key><arg_value>v
</arg_value>`` pairs (sgl-project/sglang#19925); a key closed twice (GLM-4.7,
vllm-project/vllm#54971), or opened twice (``<arg_key><arg_key>k``, the mirrored case that
pull request names), is still the key, never ``k</arg_key>``; a value whose opening ``<arg_value>``
was left out (``<arg_key>query</arg_key>how many days</arg_value>``: GLM-4.7 under concurrent load,
vllm-project/vllm#49248) is still the value, up to its closing tag. Each pair is matched once
(an atomic group): a value never stretches over the pairs after it when the text after them is no
pair, so a block of thousands of pairs ending in a stray key is refused in one pass (it took
minutes). A name alone is read by the
readers that know it is a call (``<tool_call>list_files</tool_call>``, GLM-4.7 without
arguments)."""


_GLM_KEY_UNOPENED = re.compile(r"([\w.\-]++)(?:[ \t]++|<tool_call>)([\w.\-]++)</arg_key>\s*+<arg_value>")
"""GLM-4.7 leaving out its first ``<arg_key>``, a space between the name and that key
(``browser_action task</arg_key><arg_value>...</arg_value>``: vllm-project/vllm PR #47190), or a
second ``<tool_call>`` written where that ``<arg_key>`` belongs (``terminal<tool_call>command
</arg_key>...``: getsigit/sigit PR #95; only the first key, as there): the call's start, up to its
first value (``_first_key_left_out`` reads the rest). With no space see
``_GLM_KEY_GLUED``."""
_GLM_KEY_GLUED = re.compile(r"([\w.\-]++)</arg_key>\s*+<arg_value>")
"""GLM-4.7 leaving out its first ``<arg_key>`` with no space after the name
(``send_command_to_shellcommand</arg_key><arg_value>echo test</arg_value>``: vllm-project/vllm
PR #47190): the call's start, up to its first value; the name and the key are told apart by the
node's tools (``glued_name``)."""
_GLM_VALUE_CLOSE = "</arg_value>"
_GLM_PAIRS_TO_END = re.compile(rf"\s*+((?:{_GLM_PAIR.pattern}\s*+)*+)", re.S)
"""Blanks, then GLM pairs as far as they run (group 1), each with the blanks after it."""
_BLANKS = re.compile(r"\s*+")
_GLM_STRAY_CLOSE = re.compile(r"([\w.\-]+)\s*</arg_value>")
"""GLM 5.2 calling a tool without arguments as ``<tool_call>tool_12</arg_value>``: a stray closing
tag after the bare name, no key (fw-ai-external/python-sdk#119); the call has no arguments."""


_LAST_BREAK = re.compile(r"\r?\n\Z")
"""The line break a value with no ``</parameter>`` ends with: the markup's, before the next tag
(``<parameter=location>Paris\n<parameter=unit>``, SGLang's Qwen3-Coder detector test reads
``Paris``), not the value's."""


def _parameter_value(text: str, spaced: bool = False) -> Any:
    """A Qwen3-Coder ``<parameter=k>`` value: a JSON object or array decoded, else the text as
    written less the line break at each edge (its chat template writes ``<parameter=k>\nv\n
    </parameter>``; vLLM's ``qwen3_coder`` parser drops the same) and, when the closing tag is
    indented, that indentation at the start of each line (the markup's, SGLang's indented
    fixture): the spaces of ``    if x:`` for an exact-match edit are kept. A value that does not
    open with a line break (Seed-OSS's template writes ``<parameter=k>v</parameter>``) keeps the
    one it ends with: that is the value's own (a file's last line; llama.cpp's Seed-OSS test).
    Spaces or tabs before the opening line break (a template or gateway that pads line ends)
    end the tag's line: they go with it. In a call whose tags stand apart by spaces (``spaced``:
    ``<tool_call> <function=read_file> <parameter=file_path> SOUL.md </parameter> </function>``,
    agentscope-ai/QwenPaw#2813), the space at each edge of a value is the markup's, as the line
    break is in the template's layout: ``SOUL.md``, not a path that opens with a space."""
    if spaced and len(text) >= 2 and text[0] == " " and text[-1] == " ":
        text = text[1:-1]
    start = len(text) - len(text.lstrip(" \t"))
    opened = text[start : start + 1] == "\n"
    text = text[start + 1 :] if opened else text
    cut = text.rfind("\n")
    if cut >= 0 and (opened or text[cut + 1 :]) and not text[cut + 1 :].strip(" \t"):
        text, indent = text[:cut], text[cut + 1 :]
        if indent:
            text = "\n".join(line.removeprefix(indent) for line in text.split("\n"))
    decoded = decode_nested(text.strip())
    return text if isinstance(decoded, str) else decoded


def _closed_name(unclosed: re.Match[str], declared: Mapping[str, Any]) -> str:
    """An ``_UNCLOSED_FUNCTION`` or ``_UNCLOSED_PARAMETER`` tag with its ``>`` put back when its
    name is a key of ``declared`` (the node's tools, or the called tool's parameters), else as
    written: the tag then stays unread and the call with it (``calls_from_block``)."""
    name = unclosed.group(1)
    return unclosed.group(0) + ">" if name in declared else unclosed.group(0)


def _open_parameter(inner: str) -> bool:
    """Whether the last ``<parameter=...>`` of a function's text is never closed."""
    last = inner.lower().rfind("<parameter=")
    return last >= 0 and "</parameter>" not in inner[last:].lower()


def _xml_arguments(text: str) -> Any:
    pairs = _XML_ARG.findall(text)
    if pairs:
        return {k: v.strip() for k, v in pairs}
    block = _XML_ARGS.search(text)
    if not block:
        return None
    inner = block.group(2).strip()
    if inner[:1] in ("{", "["):
        return decode_input(inner)
    elements = _XML_ELEMENT.findall(inner)
    return {k: v.strip() for k, v in elements} if elements else (inner or None)


# --------------------------------------------------------------------------------------------
# Elements: a call written as an element named after its tool
# --------------------------------------------------------------------------------------------

_ELEMENT_OPEN = re.compile(r"<([A-Za-z_][\w.\-]*)>")
_ELEMENT_DEPTH: Final = 20


def xml_elements(text: str) -> list[tuple[str, str]] | None:
    """The elements ``<k>v</k>`` that ``text`` is made of, in order, with their inside (an
    element of the same name nested in one is its own: ``<item><item>1</item></item>``); None
    when text stands outside them or one is never closed, ``[]`` when there is none."""
    found: list[tuple[str, str]] = []
    at = 0
    while (start := _ELEMENT_OPEN.search(text, at)) is not None:
        if text[at : start.start()].strip():
            return None
        tag = re.compile(rf"<(/?){re.escape(start.group(1))}>")
        depth, end = 1, start.end()
        while depth:
            closing = tag.search(text, end)
            if closing is None:
                return None
            depth += -1 if closing.group(1) else 1
            end = closing.end()
        found.append((start.group(1), text[start.end() : closing.start()]))
        at = end
    return found if not text[at:].strip() else None


def element_value(text: str, depth: int = 0) -> Any:
    """A value written as XML (MiniMax-M3's chat template, its ``to_xml``): an object as one
    element per key, a list as ``<item>`` elements, anything else as text (a JSON object or
    array in it decoded: ``decode_nested``). A value that is one ``<items>`` element of
    ``<item>`` elements is that list (``<tags><items><item>a</item></items></tags>``: MiniMax-M3's
    array argument); the call's own elements are its keys, an argument named ``items`` included.
    A key written twice in one object gives the list of its values (``<tag>a</tag><tag>b</tag>``:
    ``["a", "b"]``, as vLLM's ``minimax_m3`` parser reads it), never only the last."""
    children = xml_elements(text) if depth < _ELEMENT_DEPTH else None
    if not children:
        return decode_nested(text.strip())
    if all(name == "item" for name, _ in children):
        return [_listed(element_value(inner, depth + 1)) for _, inner in children]
    values: dict[str, list[Any]] = {}
    for name, inner in children:
        values.setdefault(name, []).append(_listed(element_value(inner, depth + 1)))
    return {name: found[0] if len(found) == 1 else found for name, found in values.items()}


def _listed(value: Any) -> Any:
    """``{"items": [...]}`` (a value written as one ``<items>`` element of ``<item>``s) as its list;
    any other value as it is."""
    if isinstance(value, dict) and len(value) == 1 and isinstance(items := value.get("items"), list):
        return items
    return value


def element_opening(text: str, at: int, names: Collection[str]) -> str | None:
    """At ``text[at] == "<"``: the tool whose element opens there (``<read_file>``, the name one
    of ``names`` exactly); ``""`` while ``text`` ends inside what may still become such a tag
    (``<read_f``); None when none opens there. A tool named like a reasoning or answer frame's
    tag (``_FRAME_TAG_NAMES``: ``<think>``, ``<answer>``) opens no element: the tag is the frame's."""
    tag = _ELEMENT_OPEN.match(text, at)
    if tag is not None:
        name = tag.group(1)
        return name if name in names and name.lower() not in _FRAME_TAG_NAMES else None
    head = text[at + 1 : at + 1 + _TAG_NAME_MAX]
    if (
        len(head) == len(text) - at - 1
        and _TAG_NAME.fullmatch(head)
        and any(n.startswith(head) and n.lower() not in _FRAME_TAG_NAMES for n in names)
    ):
        return ""
    return None


_FRAME_TAG_NAMES: Final = frozenset({"think", "thinking", "reasoning", "thought", "answer", "final_answer", "response", "details"})
"""Tags that frame a reply's reasoning or its answer (``think._THINK_TAGS``, ``think.RESPONSE_WRAPPERS``):
never read as a call to a tool of that name (a node's ``think`` tool and Qwen3's empty
``<think>\n\n</think>`` before every answer; a tool ``answer`` and Hunyuan-A13B's ``<answer>``)."""


_TAG_NAME = re.compile(r"[\w.\-]*")
_TAG_NAME_MAX: Final = 130  # longer than a tool's name (``BARE_NAME``: 128 characters)
_EDGE_BREAKS = re.compile(r"\A[ \t]*\r?\n|\r?\n[ \t]*\Z")


def _element_text(text: str) -> str:
    """A parameter's text as written: the line breaks that set it apart from its tags dropped
    (``<content>\nline 1\n</content>``), and on one line the spaces around it."""
    text = _EDGE_BREAKS.sub("", text)
    return text if "\n" in text else text.strip()


def element_arguments(body: str, tool: PromptMessageTool | None) -> dict[str, Any] | None:
    """The arguments of a call written as an element named after its tool, from its inside
    (``<path>a.py</path><line>3</line>``): one child element per parameter, as Cline's and
    Roo-Code's system prompts teach (``<tool_name><parameter1_name>value1</parameter1_name>
    </tool_name>``). A parameter ``tool`` declares a string is its text as written, markup
    included (``_element_text``); any other (declared of another type, or not the tool's own:
    kept as given, for the argument check) is read as MiniMax-M3's element values are
    (``element_value``: nested elements as an object or a list), and text given for a declared
    non-string parameter is JSON when it reads as JSON (``3``, ``true``, ``["a"]``). A parameter
    written twice gives a list of its values. None when ``body`` holds anything but elements
    (text beside them, an element never closed); ``{}`` when it is empty."""
    children = xml_elements(body)
    if children is None:
        return None
    properties = schema_properties(tool)
    values: dict[str, list[Any]] = {}
    for name, inner in children:
        declared = properties.get(name)
        kind = declared.get("type") if isinstance(declared, Mapping) else None
        if kind == "string" or (isinstance(kind, list) and "string" in kind):
            value: Any = _element_text(inner)
        else:
            value = _listed(element_value(inner))
            if kind is not None and isinstance(value, str) and (decoded := decode_json(value)) is not FAIL:
                value = decoded
        values.setdefault(name, []).append(value)
    return {name: found[0] if len(found) == 1 else found for name, found in values.items()}


_KWARG = r"""\s*+([A-Za-z_]\w*+)\s*+=\s*+((?>"(?:[^"\\]|\\.)*+"\s*+|'(?:[^'\\]|\\.)*+'\s*+|[^,"'=]*+))"""
"""One ``key=value`` pair, the value quoted or running to the next comma. Every quantifier is
possessive and the value's forms atomic: a text that is no such list (``query=`` then spaces and
a stray quote) fails in one pass, where backtracking took minutes on a few thousand spaces."""
_KWARGS = re.compile(rf"{_KWARG}(?:,{_KWARG})*+,?\s*+", re.S)
_ONE_KWARG = re.compile(r"(?!(?<=\s)\s)" + _KWARG, re.S)
"""One pair, for ``finditer`` over a text ``_KWARGS`` matched whole. It does not start inside a
run of whitespace (a start one character earlier read the same pair): tried at every blank of
the blanks a list may end with (``query=1,`` then 16,000 tabs), it was quadratic."""


def call_arguments(text: str) -> Any:
    """The inside of ``search(query="x", limit=5)``: keyword arguments as a dict, else decoded."""
    if not _KWARGS.fullmatch(text) or not text.strip():
        return decode_input(text)
    pairs = [(m.group(1), m.group(2)) for m in _ONE_KWARG.finditer(text)]
    return {key: _literal(value.strip()) for key, value in pairs}


def _literal(text: str) -> Any:
    """A Python-ish literal: quoted string, number, True/False/None, else the text."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        value = decode_json(text) if text[0] == '"' else FAIL
        return value if isinstance(value, str) else text[1:-1].replace("\\'", "'")
    value = decode_json({"True": "true", "False": "false", "None": "null"}.get(text, text))
    return text if value is FAIL or isinstance(value, (dict, list)) else value


def schema_properties(tool: PromptMessageTool | None) -> Mapping[str, Any]:
    """The ``properties`` of a tool's parameter schema ({} when there are none)."""
    if tool is None:
        return {}
    parameters = tool.parameters  # a dict checked without abc's Mapping check (a Python call)
    properties = parameters.get("properties") if type(parameters) is dict or isinstance(parameters, Mapping) else None
    return properties if type(properties) is dict or isinstance(properties, Mapping) else {}


def arguments_for(value: Any, tool: PromptMessageTool | None) -> dict[str, Any]:
    """A call's input as read (``coerce_input``: dict, str or None) as tool arguments.

    A dict is used as is, except the printed schema of a tool that has no parameters
    (``{"type": "object", "properties": {}}``), which can only mean "no arguments"; for a tool
    with parameters a copy of the schema in place of values is refused when the call is
    checked (``tool_schema.schema_echo``). A string goes to the tool's single parameter when
    it has exactly one, else under ``input``, unless it is the tool's schema printed as YAML
    (``declarations.yaml_declared``: that schema, refused when the call is checked). None means ``{}``.
    """
    properties = schema_properties(tool)
    if isinstance(value, dict):
        printed_empty = tool is not None and not properties and {"type", "properties"} <= value.keys()
        return {} if printed_empty else value
    if value is None or not str(value).strip():
        return {}
    if (keywords := keyword_arguments(str(value), properties)) is not None:
        return keywords
    if "type:" in str(value) and (declared := yaml_declared(str(value), properties)) is not None:
        return declared  # the schema printed as YAML: refused with the reason when the call is checked
    if len(properties) == 1:
        return {next(iter(properties)): value}
    return wrapped_object(str(value)) or {"input": value}


_KEY_LINE = re.compile(r"[ \t]*+([A-Za-z_]\w*+)[ \t]*+:[ \t]*+(\S(?:.*\S)?)[ \t]*")


def keyword_arguments(text: str, properties: Mapping[str, Any]) -> dict[str, Any] | None:
    """A text input written as the tool's arguments by name (``query="Paris"``, ``query='Paris',
    limit=5``, or ``query: Paris`` one a line) -> the arguments, each value a JSON or Python
    literal where it reads as one (``5``, ``"Paris"``, ``True``), else its text; None when the
    text is anything else or names a key the tool does not declare (``x = 1`` to a code tool, a
    URL's ``?a=b``, ``Note: ...``): such text stays the input as written."""
    if not properties or ("=" not in text and ":" not in text):
        return None
    if _KWARGS.fullmatch(text):
        pairs = [(m.group(1), m.group(2).strip()) for m in _ONE_KWARG.finditer(text)]
    else:
        lines = [line for line in text.strip().splitlines() if line.strip()]
        if len(lines) > len(properties):  # a key twice, or one the tool does not declare
            return None
        found = [_KEY_LINE.fullmatch(line) for line in lines]
        if not lines or not all(found):
            return None
        pairs = [(m.group(1), m.group(2)) for m in found if m]
    if not pairs or any(key not in properties for key, _ in pairs) or len({key for key, _ in pairs}) < len(pairs):
        return None
    return {key: _literal(value) for key, value in pairs}


_WRAPPED_OBJECT = re.compile(r"[A-Za-z_][\w.]{0,63}\(\s*(\{.*\})\s*\)", re.S)


def wrapped_object(text: str) -> dict[str, Any] | None:
    """The JSON object inside a constructor written around it (``QueryEngineTool({"a": 1})``:
    LlamaIndex's ReAct parser tests), for a tool whose parameters a string cannot fill; else None."""
    wrapped = _WRAPPED_OBJECT.fullmatch(text.strip())
    value = decode_json(wrapped.group(1)) if wrapped else FAIL
    return value if isinstance(value, dict) else None


# --------------------------------------------------------------------------------------------
# Function Calling: calls in a reply's content
# --------------------------------------------------------------------------------------------

BARE_NAME = re.compile(r"[^\W\d][\w.\-]{0,127}")
"""A tool name written alone (``list_files``): where a call is expected, the call without input."""
_TOOL_CALL_BLOCK = re.compile(r"<(tool_call|tool_code)>\s*+(|.*?(?<!\s))\s*+(?:</\1>|\Z)", re.S | re.I)
"""A call in ``<tool_call>`` (Hermes, Qwen) or ``<tool_code>`` (Qwen3.6 quantised, 1CatAI/1Cat-vLLM#26)."""
_TOOL_CALL_OPEN = re.compile(r"<(?:tool_call|tool_code)>", re.I)
_ACTION_LABEL = re.compile(
    rf"(?im)^{line_marks(' \t#*>')}Action[ \t*]*+[:：][ \t\u00a0*]*+(?:\r?\n)?[ \t]*+(?:({FENCE_RUN})[\w-]*+[ \t]*+\r?\n)?"
)
"""``Action:`` above a call (after markdown or emoji: ``🔧 Action:``, ``agent_core.emoji``), on its
line or the next, or in a fence under it (backticks or tildes: ``fences``; the fence's run is
group 1); a no-break space after the colon is a space."""
HARMONY_RECIPIENT: Final = "to=functions."
"""gpt-oss's call header (``to=functions.NAME``), in the text when the server left out its tokens."""
_CALL_MARKUP = re.compile(r"<tool_call>|<tool_code>|<function=|\[TOOL_CALLS\]|<\|python_tag\|>|" + re.escape(HARMONY_RECIPIENT), re.I)
_ENVELOPE_FORMS: Final = frozenset({*_CALL_LISTS, *_CALL_WRAPPERS, *_NAME_KEYS, *_ARG_KEYS, *_META_KEYS})
_FENCE_CLOSE = re.compile(r"[ \t]*+(?:\r?\n)?[ \t]*+```")
_TILDE_FENCE_CLOSE = re.compile(r"[ \t]*+(?:\r?\n)?[ \t]*+~~~")


_NAMED = re.compile(
    r"""["']?(?:name|action|tool|tool[ _-]?name|function|action[ _-]?name)["']?\s*:\s*["']([^"'\n]{1,64})["']""", re.I
)


def envelope_name(text: str) -> str | None:
    """The tool name a call envelope in ``text`` gives (``"name": "search"``,
    ``'action': 'search'``), read without decoding: what an unreadable call was meant to call."""
    found = _NAMED.search(text[:2000])
    return found.group(1).strip() if found else None


def mentions_call_markup(text: str, tool_names: Iterable[str] = ()) -> bool:
    """Whether ``text`` holds call markup (``<tool_call>``, ``<function=``, ``[TOOL_CALLS]``,
    ``<|python_tag|>``) or an envelope naming one of ``tool_names`` (``"name": "search"``):
    then a reply from which no call could be read is an unreadable call, not an answer."""
    return bool(_CALL_MARKUP.search(text)) or envelope_name(text) in set(tool_names)


def _known_calls(
    calls: list[Call], known: Mapping[str, PromptMessageTool | None]
) -> list[tuple[str, dict[str, Any]]] | None:
    """``calls`` as (name, arguments) when every one names a known tool, its input fitted to the
    tool as ReAct fits it (``arguments_for``); None otherwise (the text is then not read as
    calls). An input that opens JSON it cannot read makes the text unreadable too."""
    found = []
    for name, value in calls:
        if name not in known and type(value) is NoArguments:
            found.append((name, {}))  # {"name": X} beside call objects: answered as an unknown tool's call
            continue
        if name not in known:
            name = prefixed_tool(name, known)
            if name is None:
                return None
        value = coerce_input(value)
        if isinstance(value, str) and value.strip()[:1] in ("{", "["):
            try:
                value = decode_arguments(value)
            except ArgumentsError:
                return None
        found.append((name, arguments_for(value, known[name])))
    return found or None


def _is_envelope(value: Any) -> bool:
    """Every object in ``value`` has only envelope keys (a JSON answer that merely holds a
    ``name`` is not a call)."""
    if isinstance(value, list):
        return bool(value) and all(_is_envelope(item) for item in value)
    return isinstance(value, dict) and all(_key_form(key) in _ENVELOPE_FORMS for key in value)


M3_TOKEN: Final = "]<]minimax[>["
"""MiniMax-M3's token before every tag of its call markup (``call_markup`` drops it outside code)."""


def after_m3_token(text: str, at: int, before: str = "") -> bool:
    """Whether ``text[at]`` (a ``<tool_call>``) comes right after MiniMax-M3's token, ``before``
    being the text ahead of ``text``. ``call_markup`` drops that token everywhere but in code, so
    a tag after it that reaches a reader is M3's markup an answer shows in a code block: text."""
    size = len(M3_TOKEN)
    if at >= size:
        return text.startswith(M3_TOKEN, at - size)
    return (before[-size:] + text[:at]).endswith(M3_TOKEN)


def in_a_string(text: str, at: int, before: str = "") -> bool:
    """Whether the tag at ``text[at]`` opens right after a double quote (``before`` being the text
    ahead of ``text``): it is a string's text, a call written as data (``"completion":
    "<tool_call>{...}</tool_call>"``, a row of a dataset the answer shows) or quoted in a sentence,
    never a call the model makes."""
    return (text[at - 1] if at else before[-1:]) == '"'


def _tool_call_blocks(
    text: str, known: Mapping[str, PromptMessageTool | None]
) -> tuple[list[tuple[str, dict[str, Any]]], str]:
    """``<tool_call>``/``<tool_code>`` blocks holding calls of ``known`` tools: ``(calls, the text
    without those blocks)``. A tag inside a code span (`` `<tool_call>{...}</tool_call>` ``, also
    nested in a ``<tool_calls>`` wrapper there) is a call the answer quotes, never read: a code
    span is quoted text (``_SpanProbe``), as is one opened in a string (``in_a_string``). A block in
    a fenced block is read, as a genuine step is often written so, unless MiniMax-M3's token stands
    before it (``after_m3_token``)."""
    found: list[tuple[str, dict[str, Any]]] = []
    kept: list[str] = []
    position = 0
    spans = _SpanProbe(text) if "`" in text else None
    while opened := _TOOL_CALL_OPEN.search(text, position):  # the opening tag first, then its block
        if (
            (spans is not None and spans.inside(opened.start()))
            or after_m3_token(text, opened.start())
            or in_a_string(text, opened.start())
        ):
            kept.append(text[position : opened.end()])
            position = opened.end()
            continue
        block = _TOOL_CALL_BLOCK.match(text, opened.start())
        start, body, end = block.start(), block.group(2), block.end()
        if whole := _json_block(text, block) or _glm_block(text, block) or _parameter_block(text, block):
            body, end = whole
        elif _function_closed_by_envelope(text, block):
            body += "</function>"
        read = _block_calls(body.strip(), known)
        if not read and (cleaned := strip_noise(body)) != body.strip():  # tokens, a fence: dropped only now
            read = _block_calls(cleaned, known)
        calls = _known_calls(read, known)
        if calls:
            found.extend(calls)
            kept.append(text[position:start])
        else:
            kept.append(text[position:end])
        position = end
    kept.append(text[position:])
    return found, "".join(kept)


def _function_closed_by_envelope(text: str, block: re.Match) -> bool:
    """Whether ``block`` (a ``_TOOL_CALL_BLOCK`` match in ``text``) is a Qwen3-Coder function the
    model closed with its envelope alone: ``<tool_call><function=NAME><parameter=K>V</tool_call>``,
    the ``</parameter>`` and ``</function>`` left out (Qwen3-Coder through vLLM's ``hermes``
    parser: vllm-project/vllm#21571). The ``</tool_call>`` then ends the function and its last
    value, as ``</invoke>`` ends a MiniMax parameter left open. Not when the block was never
    closed (a cut reply), nor when a ``</function>`` follows later in the text before another
    ``<tool_call>``: the ``</tool_call>`` was then part of a value, and reading it as the end
    would cut that value (a ``</function>`` of a later call is that call's own)."""
    whole = block.group(0).lower()
    if not (whole.endswith(("</tool_call>", "</tool_code>")) and "<function=" in whole and "</function>" not in whole):
        return False
    next_call = _NEXT_TOOL_CALL.search(text, block.end())  # searched up to it only: a reply of
    # thousands of such blocks read the whole rest of itself at each one
    return _FUNCTION_CLOSE.search(text, block.end(), next_call.start() if next_call else len(text)) is None


_NEXT_TOOL_CALL = re.compile(r"<tool_call>", re.I)
_FUNCTION_CLOSE = re.compile(r"</function>", re.I)


class _SpanProbe:
    """Whether places of one text, asked in increasing order, stand inside a markdown code span
    (``call_markup.CodeQuote``'s rule: a span ends at its line's end at the latest; backticks in
    a fenced block open none). Each character is read once, however many places are asked."""

    __slots__ = ("_quote", "_read", "_text")

    def __init__(self, text: str) -> None:
        from agent_core.call_markup import CodeQuote  # here: call_markup imports this module

        self._text, self._read, self._quote = text, 0, CodeQuote()

    def inside(self, at: int) -> bool:
        """Whether ``text[at]`` stands in a code span; ``at`` no smaller than at the last call."""
        if at > self._read:
            self._quote.feed(self._text[self._read : at])
            self._read = at
        return self._quote.in_span


def _block_calls(body: str, known: Mapping[str, PromptMessageTool | None]) -> list[Call]:
    """The calls a ``<tool_call>`` block's ``body`` (stripped) holds: ``calls_from_block``'s, or the
    body as a bare tool name. The caller reads the body as written first, so that a parameter's
    value holding a special token as text (``<parameter=query>what does <|im_end|> mean``) keeps
    it, and only then with the noise dropped (``json_args.strip_noise``)."""
    return calls_from_block(body, known) or ([(body, None)] if BARE_NAME.fullmatch(body) else [])


def _json_block(text: str, block: re.Match[str]) -> tuple[str, int] | None:
    """A ``<tool_call>`` block holding a JSON object, read to the object's own end: a closing tag
    inside one of its strings (a tool writing about tool calls) does not end it
    (vllm-project/vllm#45167, the Hermes parser's bug). ``(the object, where the block ends)``,
    or None when the block holds no whole object followed by its closing tag or the end."""
    at = block.start(2)
    if text[at : at + 1] != "{":
        return None
    try:
        _, end = raw_decode_at(text, at)  # no copy of the rest of the text per block
    except (ValueError, RecursionError):
        return None
    closing = re.compile(rf"\s*(?:</{re.escape(block.group(1))}>|\Z)", re.I).match(text, end)
    return (text[at:end], closing.end()) if closing else None


def _glm_block(text: str, block: re.Match[str]) -> tuple[str, int] | None:
    """A ``<tool_call>`` block of GLM's pairs whose last ``<arg_value>`` is still open where the
    block seemed to end: the value names the closing tag (a file about tool calls: Ollama's
    glm47 parser test), so the block runs to the first ``</tool_call>`` after that value's
    ``</arg_value>``. ``(the block's body, where it ends)``, or None (a block whose values all
    closed inside it, or one whose open value never closes)."""
    body = block.group(2)
    if body.rfind("<arg_value>") <= body.rfind("</arg_value>"):
        return None
    value_end = text.find("</arg_value>", block.end())
    closing = text.find(f"</{block.group(1)}>", value_end) if value_end >= 0 else -1
    if closing < 0:
        return None
    return text[block.start(2) : closing].strip(), closing + len(block.group(1)) + 3


def _parameter_block(text: str, block: re.Match[str]) -> tuple[str, int] | None:
    """A ``<tool_call>`` block of Qwen3-Coder's ``<function=NAME>`` whose last ``<parameter=K>`` is
    still open where the block seemed to end: the value names the closing tag (a file about tool
    calls: raullenchai/Rapid-MLX#1515, Qwen3.6 writing ``A tool call block ends with </tool_call>
    on its own.``), so the block runs to the first ``</tool_call>`` after that value's
    ``</parameter>``. ``(the block's body, where it ends)``, or None: a block whose values all
    closed (or whose function closed) inside it, one whose open value never closes, or one
    followed by another call before that ``</parameter>`` (the envelope then closed a value left
    open: ``_function_closed_by_envelope``)."""
    body = block.group(2)
    opened = body.rfind("<parameter=")
    if opened < 0 or opened <= max(body.rfind("</parameter>"), body.rfind("</function>")):
        return None
    next_call = _NEXT_CALL_OR_FUNCTION.search(text, block.end())  # the value's end comes before it
    value_end = text.find("</parameter>", block.end(), next_call.start() if next_call else len(text))
    closing = text.find(f"</{block.group(1)}>", value_end) if value_end >= 0 else -1
    if closing < 0:
        return None
    return text[block.start(2) : closing].strip(), closing + len(block.group(1)) + 3


_NEXT_CALL_OR_FUNCTION = re.compile(r"<tool_call>|<function=")


def _whole_json(
    text: str, known: Mapping[str, PromptMessageTool | None]
) -> tuple[list[tuple[str, dict[str, Any]]], str]:
    body = strip_noise(text)
    if body.startswith(FUNCTOOLS):  # Phi-4-mini's call list
        body = body[len(FUNCTOOLS) - 1 :]
    if body[:1] not in ("{", "["):
        return [], text
    value, rest = decode_json(body), ""
    if value is FAIL:  # a call object, then a sentence about it (Qwen2.5: pyrate-llama/hermes-ui#6)
        try:
            value, rest = _semicolon_calls(body)
        except (ValueError, RecursionError):
            return [], text
    if not _is_envelope(value):
        flat = _known_calls(flat_call(value, known), known) if not rest and text.strip()[:1] == "{" else None
        return (flat, "") if flat else ([], text)
    calls = _known_calls(interpret(value, strict=True, names=known), known)
    return (calls, rest) if calls else ([], text)


def flat_call(value: Any, tools: Mapping[str, PromptMessageTool | None]) -> list[Call]:
    """A call object with its arguments beside its name, no arguments key (``{"name": "read_file",
    "path": "a.py"}``: gpt-oss on Workers AI, cloudflare/ai#574): ``[(name, the other keys)]``
    when ``"name"`` gives one of ``tools`` and every other key (one at least) is a parameter its
    declaration gives; else ``[]`` (a record that has a name, a tool known by its name alone)."""
    if not isinstance(value, dict) or len(value) < 2:
        return []
    key = _keys_by_form(value).get("name")
    name = value[key] if key is not None else None
    if not isinstance(name, str) or name not in tools:
        return []
    properties = schema_properties(tools[name])
    rest = {k: v for k, v in value.items() if k != key}
    return [(name, rest)] if all(k in properties for k in rest) else []


def flat_call_reply(text: str, tools: Mapping[str, PromptMessageTool | None]) -> bool:
    """Whether ``text`` is, whole, one call object with its arguments beside its name
    (``flat_call``), not fenced."""
    body = text.strip()
    if body[:1] != "{" or body[-1:] != "}":
        return False
    return bool(flat_call(decode_json(body), tools))


_NEXT_OBJECT = re.compile(r"\s*+[;,]?\s*+(?=\{)")
_BLANK_TO_END = re.compile(r"\s*\Z")


def _semicolon_calls(body: str) -> tuple[Any, str]:
    """The JSON value ``body`` opens and the text after it; objects joined by ``;`` are a list of
    them (``{"name": "a", ...}; {"name": "b", ...}``: Llama 3.x's parallel calls, as vLLM's
    ``llama3_json`` tool parser reads them), so are objects joined by a comma or whitespace only
    (llama3.1 via Ollama writing two calls one after the other: sgomez/ollama-ai-provider PR #11).
    Raises ``ValueError`` when no value opens it."""
    values, _, end = _object_run(body, 0)
    return (values if len(values) > 1 else values[0]), body[end:].strip()


def _object_run(text: str, at: int) -> tuple[list[Any], list[int], int]:
    """The JSON value at ``text[at]`` and the objects joined to it (``_semicolon_calls``): their
    values, where each starts and where the last ends. Raises ``ValueError`` when no value opens
    there."""
    value, end = raw_decode_at(text, at)
    values, starts = [value], [at]
    while isinstance(value, dict) and (more := _NEXT_OBJECT.match(text, end)):  # no copy of the rest
        try:
            value, end = raw_decode_at(text, more.end())
        except ValueError:
            break
        values.append(value)
        starts.append(more.end())
    return values, starts, end


FUNCTOOLS: Final = "functools["
"""How Phi-4-mini opens its list of calls (``functools[{"name": ..., "arguments": ...}]``, the form
vLLM's ``phi4_mini_json`` tool parser reads)."""

# searched without the whitespace before the fence (its start is then found by rstrip): a leading
# whitespace pattern was tried again from every character of a long run of whitespace (a reply of
# reasoning blocks only leaves thousands of newlines: 2 s at 1 MB)
_CODE_FENCE = re.compile(r"```[ \t]*+(tool_code|tool_call)[ \t]*+\n(|.*?(?:(?<![ \t])|(?=\n)))\n?[ \t]*+```\s*+", re.S | re.I)
_PY_TOKENS = re.compile(r"<\|python_(?:start|end)\|>")


def _whole_code(
    text: str, known: Mapping[str, PromptMessageTool | None]
) -> tuple[list[tuple[str, dict[str, Any]]], str]:
    """The content as calls written as code: a ```` ```tool_code ```` fence that ends the reply
    (Gemini; Gemma 3 after a sentence, vllm-project/vllm#14734), or the whole content as a
    list of calls ``[get_weather(city="Paris"), get_time(tz="CET")]`` (Llama 3.2 / 4 "pythonic",
    also between ``<|python_start|>`` and ``<|python_end|>``; vLLM's pythonic tool parser), or
    one call to a tool by its name (``_CODE_CALL``), or one such call a line (``_code_lines``)."""
    fence = _CODE_FENCE.search(text)
    if fence and fence.end() == len(text):  # the reply ends with the block: prose may come before it
        calls = _known_calls(calls_from_block(fence.group(2)), known)
        return (calls, text[: fence.start()].rstrip()) if calls else ([], text)
    body = _PY_TOKENS.sub("", text).strip()
    if body.startswith("[") and body.endswith(")]"):
        body = body[1:-1]
    else:
        body = without_call_label(body)
        call = _CODE_CALL.fullmatch(body)
        if not call or call.group(1) not in known:
            return [], text
    calls = _known_calls(python_calls(body), known) or (_code_lines(body, known) if "\n" in body else None)
    return (calls, "") if calls else ([], text)


CALL_LABELS: Final = frozenset({"tool call", "tool call:", "function call", "function call:"})
"""A first line that only labels the call written below it (``without_call_label``), lowercased."""


def without_call_label(body: str) -> str:
    """``body`` (a stripped reply) without a first line that only says ``Tool call`` (or
    ``Function call``, with or without a colon, any case) above a blank line: how Mistral through
    LiteLLM wrote its call as a message (openai/openai-agents-python#1196: ``Tool call\n\n
    call_rag_server({...})``). What is left is read as the whole reply is (``_whole_code``: one
    call to a tool by its name and nothing else), so a label before prose or before a name no
    tool has changes nothing. Else ``body`` as it is."""
    head, blank, rest = body.partition("\n")
    if head.strip().lower() not in CALL_LABELS or not rest[:1].isspace():
        return body
    return rest.strip() if blank else body


def _code_lines(body: str, known: Mapping[str, PromptMessageTool | None]) -> list[tuple[str, dict[str, Any]]]:
    """``body`` as two or more lines, each one call written as code to one of the tools and
    nothing else (blank lines aside): Granite 3.3 8B writes parallel calls so
    (vllm-project/vllm#43116). ``[]`` when any line is anything else (a line of prose, a call to
    another name, a call its arguments do not read as: an answer showing code stays text)."""
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    if len(lines) < 2:
        return []
    calls: list[tuple[str, dict[str, Any]]] = []
    for line in lines:
        call = _CODE_CALL.fullmatch(line)
        found = _known_calls(python_calls(line), known) if call and call.group(1) in known else None
        if not found or len(found) != 1:
            return []
        calls.extend(found)
    return calls


_PY_BLOCK = re.compile(r"<\|python_start\|>(.*?)(?:<\|python_end\|>|\Z)", re.S)
_LIST_OPEN = re.compile(rf"\[\s*({BARE_NAME.pattern})\s*\(")


def _code_after_text(
    text: str, known: Mapping[str, PromptMessageTool | None]
) -> tuple[list[tuple[str, dict[str, Any]]], str]:
    """A list of calls written as code after a sentence (``Here's a tool call:
    [get_weather(city="Paris")]``), or between Llama 4's ``<|python_start|>`` and
    ``<|python_end|>`` after one (what follows the end token is not the calls'): SGLang's
    pythonic detector tests. Read only when every name in the list is one of the tools (an
    answer may show Python code) and the list ends the text (or its tokens). ``(calls, the
    text before the list)``, or ``([], text)``."""
    block = _PY_BLOCK.search(text) if "<|python_start|>" in text else None
    if block is not None:
        inner, before = block.group(1).strip(), text[: block.start()]
        if not (inner.startswith("[") and inner.endswith(")]")):
            return [], text
        calls = _known_calls(python_calls(inner[1:-1]), known)
        return (calls, before) if calls else ([], text)
    body = text.rstrip()
    if not body.endswith(")]"):
        return [], text
    for opened in _LIST_OPEN.finditer(body):
        if opened.group(1) not in known:
            continue
        calls = _known_calls(python_calls(body[opened.start() + 1 : -1]), known)
        if calls:
            return calls, text[: opened.start()]
    return [], text


GEMMA_BARE: Final = "call:"
"""How Gemma 4 opens a call (``call:NAME{key:value}``); with its ``<|tool_call>`` tokens and its
``<|"|>`` quotes skipped by the server nothing else marks it (unslothai/unsloth PR #5624)."""
GEMINI_BARE: Final = "default_api:"
"""Gemini's leaked call ``default_api:NAME{key:value}``, Gemma's form under Gemini's namespace, also
glued to a word before it (``Lie:default_api:mandatory_tool{...}``: bayesimpact/bayes-platform
PR #731); read as Gemma's bare call, the glued word with it."""
_GLUED_MAX: Final = 16
"""How long a word glued before Gemini's ``default_api:`` may be (characters)."""
_GEMMA_BARE_LINE = re.compile(rf"[ \t]*(?:call:|(?:\w{{1,{_GLUED_MAX}}}:)?default_api:)({BARE_NAME.pattern})\{{([^\n]*)\}}[ \t]*")
_GEMMA_QUOTE_TOKEN: Final = '<|"|>'
_GEMMA_KEYED = QuotedScan(r"([{,]\s*)([A-Za-z_][\w\-]*)(\s*:)", quotes='"')
"""A closed double-quoted string (no group), else a bare key with what stands around it."""


ANGLELESS_INVOKE: Final = 'invoke name="'
"""How MiniMax M2.x opens a call when it leaves out its tags' ``<`` (exo-explore/exo#1882)."""
_ANGLELESS_LINE = re.compile(r'^[ \t]*+invoke name="', re.M)
_ANGLELESS_OPEN = re.compile(r"(?<![<\w/])(invoke|parameter)(?=\s+name=\s*[\"'])")
_ANGLELESS_CLOSE = re.compile(r"(?<!<)/?(invoke|parameter)>")
_ANGLED_INVOKE = re.compile(r'\s*+<invoke name="([^"<>\n]{1,128})">(.*?)</invoke>\s*+', re.S)
_ANGLED_PARAMETER = re.compile(r'\s*+<parameter name="([^"<>\n]{1,128})">(.*?)</parameter>\s*+', re.S)


def angleless_invoke_head(line: str, names: Collection[str]) -> bool | None:
    """Whether a line that starts with ``line`` opens MiniMax's ``invoke name="NAME">`` written
    without its ``<`` (``_angleless_invokes``), ``NAME`` one of ``names``. True when it does,
    False when it cannot, None while it cannot be told yet."""
    if not line.startswith(ANGLELESS_INVOKE):
        return None if ANGLELESS_INVOKE.startswith(line) else False
    name, quote, after = line[len(ANGLELESS_INVOKE) :].partition('"')
    if quote:  # a name no tool has is decided at its closing quote: never held again after
        return False if name not in names else None if not after else after[0] == ">"
    return None if len(name) < _TAG_NAME_MAX and any(tool.startswith(name) for tool in names) else False


def angleless_invoke_call(text: str, tools: Mapping[str, PromptMessageTool | None]) -> bool:
    """Whether ``text`` ends with MiniMax's calls written without their tags' ``<`` and ``</``
    and without their ``<minimax:tool_call>`` (``_angleless_invokes``), each naming one of ``tools``."""
    return bool(_angleless_invokes(text, tools)[0])


def _angleless_invokes(
    text: str, known: Mapping[str, PromptMessageTool | None]
) -> tuple[list[tuple[str, dict[str, Any]]], str]:
    """MiniMax M2.x's calls with every tag's ``<`` and ``</`` left out and no wrapper around them
    (``invoke name="get_weather">\nparameter name="location">Parisparameter>\ninvoke>``: the
    model on MLX, exo-explore/exo#1882; a server that drops special tokens also drops
    ``<minimax:tool_call>``). Read only where such an ``invoke`` opens a line outside a fenced
    block and the text from there to its end is nothing but such calls, each closed by
    ``invoke>`` and naming one of the tools; a value is text as written, or JSON when it reads as
    an object or array (``call_markup._read_invoke``). ``(calls, the text before them)``, or
    ``([], text)``."""
    if ANGLELESS_INVOKE not in text:
        return [], text
    fences = None
    for found in _ANGLELESS_LINE.finditer(text):
        fences = _fence_lines(text) if fences is None else fences
        if not _in_fence(fences, found.start()):
            break
    else:
        return [], text
    tail = text[found.start() :].rstrip()
    if "<invoke" in tail or not tail.endswith("invoke>"):
        return [], text
    body = _ANGLELESS_CLOSE.sub(r"</\1>", _ANGLELESS_OPEN.sub(r"<\1", tail))
    calls: list[Call] = []
    at = 0
    while at < len(body):
        invoke = _ANGLED_INVOKE.match(body, at)
        if invoke is None:
            return [], text
        arguments: dict[str, Any] = {}
        inner, read = invoke.group(2), 0
        end = len(inner.rstrip())  # measured once: a copy at every parameter was quadratic
        while read < end:
            parameter = _ANGLED_PARAMETER.match(inner, read)
            if parameter is None:
                return [], text
            decoded = decode_nested(parameter.group(2).strip())
            arguments[parameter.group(1)] = parameter.group(2) if isinstance(decoded, str) else decoded
            read = parameter.end()
        calls.append((invoke.group(1), arguments))
        at = invoke.end()
    if any(name not in known for name, _ in calls):
        return [], text
    found_calls = _known_calls(calls, known)
    return (found_calls, text[: found.start()]) if found_calls else ([], text)


def _bare_gemma_line(text: str) -> re.Match[str] | None:
    """The last line of ``text`` when it is Gemma 4's bare ``call:NAME{...}`` on one line and the
    text before it, if any, ends a line (the whole reply, or a call after a sentence), outside
    a fenced code block."""
    body = text.rstrip()
    line = body.rfind("\n") + 1
    found = _GEMMA_BARE_LINE.fullmatch(body, line)
    return None if found is None or _in_fence(_fence_lines(body), line) else found


def gemma_arguments(inside: str, tool: PromptMessageTool | None) -> dict[str, Any] | None:
    """The arguments of Gemma 4's bare ``call:NAME{...}`` from its inside: keys bare, values in
    JSON quotes or its ``<|"|>`` quote tokens, or unquoted text running to the next
    ``, key:`` whose key is a parameter ``tool`` declares (``{query:meet at 10:00, 11:00
    tomorrow}`` is one argument); numbers and ``true``/``false``/``null`` as JSON. None when it
    reads as neither or names a key ``tool`` does not declare."""
    properties = schema_properties(tool)
    if not inside.strip():
        return {}
    if '"' in inside:
        body = "{" + inside.replace(_GEMMA_QUOTE_TOKEN, '"') + "}"
        body = _GEMMA_KEYED.sub(lambda m: m.group(0) if m.group(1) is None else f'{m.group(1)}"{m.group(2)}"{m.group(3)}', body)
        value = decode_json(body)
        return value if isinstance(value, dict) and all(key in properties for key in value) else None
    if not properties:
        return None
    keys = "|".join(re.escape(key) for key in sorted(properties, key=len, reverse=True))
    pieces = re.split(rf"(?:\A|,)[ \t]*({keys})[ \t]*:", inside)
    if pieces[0].strip() or len(pieces) < 3:
        return None
    return {pieces[i]: _gemma_value(pieces[i + 1].strip()) for i in range(1, len(pieces), 2)}


def _gemma_value(text: str) -> Any:
    """One unquoted value of a bare Gemma or Gemini call: a JSON array (``categoryNames:[]``) as
    a list, else ``_literal``."""
    if text[:1] == "[":
        value = decode_json(text)
        if isinstance(value, list):
            return value
    return _literal(text)


def _bare_gemma(
    text: str, known: Mapping[str, PromptMessageTool | None]
) -> tuple[list[tuple[str, dict[str, Any]]], str]:
    """Gemma 4's bare ``call:NAME{...}`` (``gemma_arguments``) as the whole text or its last line
    after a sentence, ``NAME`` one of the tools. ``(calls, the text before it)``, or ``([], text)``."""
    found = _bare_gemma_line(text) if GEMMA_BARE in text or GEMINI_BARE in text else None
    if found is None or found.group(1) not in known:
        return [], text
    arguments = gemma_arguments(found.group(2), known[found.group(1)])
    calls = _known_calls([(found.group(1), arguments)], known) if arguments is not None else None
    return (calls, text[: found.start()]) if calls else ([], text)


def gemma_head(line: str, names: Collection[str]) -> bool | None:
    """Whether a line that starts with ``line`` opens Gemma 4's bare ``call:NAME{`` naming one of
    ``names`` (``_bare_gemma``). True when it does, False when it cannot, None while it cannot be
    told yet (``call:`` and a start of one of the names)."""
    if not line.startswith(GEMMA_BARE):
        return None if GEMMA_BARE.startswith(line) else False
    name, brace, _ = line[len(GEMMA_BARE) :].partition("{")
    if brace:
        return name in names
    return None if len(name) < _TAG_NAME_MAX and any(tool.startswith(name) for tool in names) else False


_GEMINI_HEAD = re.compile(rf"(?:\w{{1,{_GLUED_MAX}}}:)?default_api:")
_GEMINI_HEAD_PARTIAL = re.compile(rf"\w{{0,{_GLUED_MAX}}}(?::(?:d(?:e(?:f(?:a(?:u(?:l(?:t(?:_(?:a(?:p(?:i)?)?)?)?)?)?)?)?)?)?)?)?")


def gemini_head(line: str, names: Collection[str]) -> bool | None:
    """Whether a reply whose first line starts with ``line`` (no leading whitespace) opens
    Gemini's ``default_api:NAME{`` naming one of ``names``, after a word and a colon of at most
    ``_GLUED_MAX`` characters or not (``GEMINI_BARE``). True, False, or None while the line's
    start may still grow into it (a word so far: the next character tells)."""
    head = _GEMINI_HEAD.match(line)
    if head is not None:
        return gemma_head(GEMMA_BARE + line[head.end() :], names)
    return None if _GEMINI_HEAD_PARTIAL.fullmatch(line) or GEMINI_BARE.startswith(line) else False


def bare_gemma_call(text: str, tools: Mapping[str, PromptMessageTool | None]) -> bool:
    """Whether ``text`` is, or ends with a line that is, Gemma 4's bare call of one of ``tools``
    (``_bare_gemma``)."""
    return bool(_bare_gemma(text, tools)[0])


def code_list_after_text(text: str, names: Iterable[str]) -> bool:
    """Whether ``text`` ends with a list of calls written as code whose first names one of
    ``names`` (``_code_after_text``: read whole only when every name is one)."""
    body = text.rstrip()
    if "<|python_start|>" not in body and not body.endswith(")]"):
        return False
    known = set(names)
    return any(found.group(1) in known for found in _LIST_OPEN.finditer(body))


_CODE_CALL = re.compile(rf"({BARE_NAME.pattern})\s*\((.*)\)", re.S)
"""A reply that is one call written as code: ``get_weather(city="Paris")``, or with its
arguments as one object (``search({"q": "x"})``, Mistral: openai/openai-agents-python#1196)."""


_NAME_LINE_CALL = re.compile(rf"\s*(?:functions\.)?({BARE_NAME.pattern}?)(?::\d+)?[ \t]*(?:\r?\n\s*)?(\{{.*\}})\s*", re.S)
_NAME_ANGLE_CALL = re.compile(rf"\s*({BARE_NAME.pattern}?)>[ \t]*+(\{{.*\}})\s*", re.S)
"""GLM-5.3-Flash's JSON form in its ``<tool_call>``: the name, ``>``, then the arguments
(``<tool_call>get_weather>{"city": "Beijing"}``: SGLang's ``glm53_flash`` detector)."""
_CHATGLM3_CALL = re.compile(
    rf"\s*({BARE_NAME.pattern}?)[ \t]*+\r?\n[ \t]*+```[ \t]*+(?:python)?[ \t]*+\r?\n\s*+(tool_call\s*+\(.*\))\s*+```\s*+", re.S
)
"""ChatGLM3's call: the tool's name on its own line (after the ``<|assistant|>`` token that
opens the call, dropped as a special token), then ``tool_call(k='v', ...)`` in a python fence:
``get_current_weather\n ```python\ntool_call(location='Beijing', unit='celsius')\n```````
(zai-org/ChatGLM3 PR #526 and #138; its openai_api_demo reads the same)."""


_END_TOOL_REQUEST: Final = "[END_TOOL_REQUEST]"


def _tool_request(body: str) -> tuple[str, str] | None:
    """LM Studio's tool request as a model prints it when the server does not read it
    (openclaw/openclaw#66178): ``[NAME]``, a line break, a JSON object, ``[END_TOOL_REQUEST]``,
    the whole of ``body`` (stripped). ``(NAME, the object's text)``, or None. Read with ``str``
    methods: no pattern that could backtrack."""
    if not body.startswith("[") or not body.endswith(_END_TOOL_REQUEST):
        return None
    name, closed, rest = body[1 : -len(_END_TOOL_REQUEST)].partition("]")
    arguments = rest.lstrip(" \t")
    if not closed or arguments[:1] not in ("\n", "\r") or BARE_NAME.fullmatch(name) is None:
        return None
    arguments = arguments.strip()
    return (name, arguments) if arguments[:1] == "{" and arguments[-1:] == "}" else None


INKLING_INVOKE: Final = "<|content_invoke_tool_json|>"
_INKLING_MESSAGE: Final = "<|message_model|>"
_INKLING_END: Final = "<|end_message|>"
_INKLING_NAME_REVERSED = re.compile(r"[ \t]*+([\w.\-]{1,128})[ \t]*+")
"""The header's tool name before Inkling's call token, read backwards from the token (matched at
the start of the reversed text: a search forwards would try every blank of a run of them)."""
_SPACE_RUN = re.compile(r"\s*+")


def _inkling_calls(text: str, known: Mapping[str, PromptMessageTool | None]) -> tuple[list[tuple[str, dict[str, Any]]], str]:
    """Inkling's call messages ending the text: ``<|message_model|>NAME<|content_invoke_tool_json|>
    {"name": NAME, "args": {...}}<|end_message|>``, one after another (SGLang's ``inkling``
    detector; the first call of a reply has no ``<|message_model|>``: the prompt opened it). Read
    only when every payload is that object naming its header's tool (SGLang drops a call whose
    header and payload disagree; running either would be a guess) and every tool is known.
    ``(calls, the text before the first)``, or ``([], text)``."""
    if INKLING_INVOKE not in text:
        return [], text
    calls: list[Call] = []
    first, at = None, 0
    while (token := text.find(INKLING_INVOKE, at)) >= 0:
        low = max(at, token - 160)
        name = _INKLING_NAME_REVERSED.match(text[low:token][::-1])
        if name is None or not BARE_NAME.fullmatch(header := name.group(1)[::-1]):
            return [], text
        start = token - name.end()
        if text.endswith(_INKLING_MESSAGE, at, start):
            start -= len(_INKLING_MESSAGE)
        if first is None:
            first = start
        elif text[at:start].strip():
            return [], text  # text between two calls: not this form
        try:
            value, at = json.JSONDecoder().raw_decode(text, _SPACE_RUN.match(text, token + len(INKLING_INVOKE)).end())
        except (ValueError, RecursionError):
            return [], text
        if not isinstance(value, dict) or value.keys() != {"name", "args"} or value["name"] != header:
            return [], text
        if not isinstance(value["args"], dict):
            return [], text
        calls.append((header, value["args"]))
        at = _SPACE_RUN.match(text, at).end()
        if text.startswith(_INKLING_END, at):
            at += len(_INKLING_END)
    if first is None or text[at:].strip():
        return [], text
    found = _known_calls(calls, known)
    return (found, text[:first].replace(_INKLING_END, "")) if found else ([], text)


HCX_CALL_HEADER: Final = "-> tool/function_call"
"""HyperCLOVAX-SEED-Think-14B's header of a message to the tool role: its calls follow on the next
line as a JSON list (vLLM's ``hyperclovax_seed_think_14b`` tool parser)."""
_HCX_HEADER = re.compile(r"\s*+-> tool/function_call[ \t]*+\r?\n")


def _hcx_calls(text: str, known: Mapping[str, PromptMessageTool | None]) -> tuple[list[tuple[str, dict[str, Any]]], str]:
    """HyperCLOVAX-SEED-Think-14B's calls: the whole text is ``-> tool/function_call`` on its line
    (blank lines before it allowed), then a JSON list (or object) of call envelopes (``"arguments"`` or ``"parameters"``), special
    tokens after it allowed (``<|im_end|>``). Only envelopes whose every name is a known tool;
    vLLM reads the abbreviated ``-> tool/NAME`` above bare arguments as text, and so does this.
    ``(calls, "")``, or ``([], text)``."""
    head = _HCX_HEADER.match(text)
    if head is None:
        return [], text
    try:
        value, end = raw_decode_at(text, _SPACE_RUN.match(text, head.end()).end())
    except (ValueError, RecursionError):
        return [], text
    if without_trailing_tokens(text[end:]) or not _is_envelope(value):
        return [], text
    calls = _known_calls(interpret(value, strict=True), known)
    return (calls, "") if calls else ([], text)


def _name_line(text: str, known: Mapping[str, PromptMessageTool | None]) -> tuple[list[tuple[str, dict[str, Any]]], str]:
    """The whole content as a tool's name and its arguments as a JSON object, on the line below
    (GLM-4 and Qwen3 without a tool parser: zai-org/GLM-4#36, ml-explore/mlx-swift-lm#491) or
    right after it as Kimi K2 writes a call with its special tokens left out
    (``functions.search:0{"q": "x"}``), or as GLM's ``<arg_key>``/``<arg_value>`` pairs with
    its ``<tool_call>`` left out, or as ChatGLM3's ``tool_call(...)`` in a python fence below the
    name (``_CHATGLM3_CALL``). Only for a name that is one of the tools, as those parsers read
    it; never in a text with Inkling's call token (its payload is no arguments: ``_inkling_calls``). LM Studio's ``[NAME]\n{...}\n[END_TOOL_REQUEST]`` too (``_tool_request``)."""
    if INKLING_INVOKE in text:  # Inkling's call messages, its payload no arguments: _inkling_calls
        return [], text
    body = strip_noise(text)
    request = _tool_request(body.strip())
    if request is not None and request[0] in known:
        calls = _known_calls([request], known)
        return (calls, "") if calls else ([], text)
    found = _NAME_LINE_CALL.fullmatch(body)
    if found and found.group(1) in known:
        calls = _known_calls([(found.group(1), found.group(2))], known)
        return (calls, "") if calls else ([], text)
    glm = _GLM_CALL.fullmatch(body)  # GLM's own form without its <tool_call> around it
    if glm and glm.group(1) in known:
        calls = _known_calls(calls_from_block(body), known)
        return (calls, "") if calls else ([], text)
    chatglm3 = _CHATGLM3_CALL.fullmatch(body)
    if chatglm3 and chatglm3.group(1) in known:
        code = python_calls(chatglm3.group(2))
        calls = _known_calls([(chatglm3.group(1), arguments) for _, arguments in code], known) if len(code) == 1 else []
        return (calls, "") if calls else ([], text)
    return [], text


def name_line_call(text: str, names: Iterable[str]) -> bool:
    """Whether ``text`` is one call to a tool of ``names`` written as its name and a JSON object
    or GLM's ``<arg_key>`` pairs (``_name_line``) or as code (``_CODE_CALL``, below a ``Tool call``
    label line: ``without_call_label``), or a list of calls
    as code whose first names one (Llama 3.2 / 4's pythonic ``[get_weather(city="Paris")]``,
    read whole by ``_whole_code``)."""
    body = _PY_TOKENS.sub("", strip_noise(text)).strip()
    if (request := _tool_request(body)) is not None:
        return request[0] in set(names)
    if body.startswith("[") and body.endswith(")]"):
        body = body[1:-1].strip()
    found = (
        _NAME_LINE_CALL.fullmatch(body)
        or _CODE_CALL.fullmatch(without_call_label(body))
        or _GLM_CALL.fullmatch(body)
        or _CHATGLM3_CALL.fullmatch(body)
    )
    return bool(found) and found.group(1) in set(names)


def python_calls(text: str) -> list[Call]:
    """``a(x=1), b(y="z")`` as calls, read with Python's own parser: only keyword arguments whose
    values are literals (or JSON's ``null``/``true``/``false``) count, or one object or one string as the only argument (``a({"x": 1})``,
    JSON or Python; ``a("x")``, a text input); anything else reads as no call."""
    source = f"[{text}]"
    try:
        tree = ast.parse(source, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        source = _escaped_line_breaks(source)
        try:  # a raw line break inside a string (LFM2's multi-line shell command: vLLM's lfm2 parser test)
            tree = ast.parse(source, mode="eval")
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return []
    calls: list[Call] = []
    for node in tree.body.elts if isinstance(tree.body, ast.List) else ():
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name | ast.Attribute):
            return []
        if node.args:
            if len(node.args) > 1 or node.keywords:
                return []
            argument = node.args[0]
            if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                arguments: Any = argument.value  # a text input, fitted to the tool as ReAct's is
            elif isinstance(argument, ast.Dict):
                arguments = decode_json(ast.get_source_segment(source, argument) or "")
                if not isinstance(arguments, dict):
                    return []
            else:
                return []
        else:
            try:
                arguments = {keyword.arg: _python_value(keyword.value) for keyword in node.keywords if keyword.arg}
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                return []
        calls.append((_dotted_name(node.func), arguments))
    return calls


def _dotted_name(func: ast.expr) -> str:
    """A called name as written: ``get_time``, or ``Calendar.create_event`` (an attribute chain of
    names; a tool may be named so, llama.cpp's LFM2 test). Where the whole is no tool of the node,
    its last part is read as the tool (``prefixed_tool``: ``api.search(...)`` calls ``search``)."""
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        return parts[0]  # a call on something else (``x().f(...)``): the called attribute
    parts.append(func.id)
    return ".".join(reversed(parts))


def _escaped_line_breaks(source: str) -> str:
    """``source`` with the line breaks written inside its one-quote strings (``'a<LF>b'``)
    escaped (``'a\\nb'``), so Python reads them as the string's; a triple-quoted string is left
    as it is (its line breaks are Python's already)."""
    out: list[str] = []
    quote = ""
    i = 0
    while i < len(source):
        char = source[i]
        if quote:
            if char == "\\":
                out.append(source[i : i + 2])
                i += 2
                continue
            if source.startswith(quote, i):
                out.append(quote)
                i += len(quote)
                quote = ""
                continue
            out.append({"\n": "\\n", "\r": "\\r"}.get(char, char) if len(quote) == 1 else char)
        elif char in "\"'":
            quote = source[i : i + 3] if source.startswith(char * 3, i) else char
            out.append(quote)
            i += len(quote)
            continue
        else:
            out.append(char)
        i += 1
    return "".join(out)


_JSON_NAMES: Final = {"null": None, "true": True, "false": False}


def _python_value(node: ast.expr) -> Any:
    """A keyword argument's literal value; JSON's ``null``/``true``/``false`` written as names
    count as theirs (OLMo 3 writes them so: vLLM's olmo3 tool parser). Raises ``ValueError`` for
    anything else that is not a literal. The names count inside a list or a dict too (OLMo 3's
    ``data={"user": {...}, "active": true}``: Ollama's olmo3 parser test)."""
    if isinstance(node, ast.Name) and node.id in _JSON_NAMES:
        return _JSON_NAMES[node.id]
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):
            raise ValueError("a ** entry is not a literal")
        return {ast.literal_eval(key): _python_value(value) for key, value in zip(node.keys, node.values, strict=True)}
    if isinstance(node, ast.List):
        return [_python_value(item) for item in node.elts]
    return ast.literal_eval(node)


def _action_blocks(
    text: str, known: Mapping[str, PromptMessageTool | None]
) -> tuple[list[tuple[str, dict[str, Any]]], str]:
    found: list[tuple[str, dict[str, Any]]] = []
    kept: list[str] = []
    position = 0
    for label in _ACTION_LABEL.finditer(text):
        if label.start() < position or text[label.end() : label.end() + 1] not in ("{", "["):
            continue
        try:
            value, end = raw_decode_at(text, label.end())
        except (ValueError, RecursionError):
            continue
        calls = _known_calls(interpret(value, strict=False), known)
        if not calls:
            continue
        found.extend(calls)
        kept.append(text[position : label.start()])
        tilde = (label.group(1) or "`")[0] == "~"
        fence = _TILDE_FENCE_CLOSE.match(text, end) if tilde else _FENCE_CLOSE.match(text, end)
        position = fence.end() if fence else end
    kept.append(text[position:])
    return found, "".join(kept)


CALL_WRAPPERS: Final = ("tool", "tools", "response", "json", "xml")
"""Tags Hermes 2 Pro fine-tunes put around a call object instead of ``<tool_call>`` (any case:
``<JSON>``); llama.cpp's Hermes 2 Pro parser reads them (its ``tests/test-chat.cpp``). ``<response>``
is also Granite 3.3's and ERNIE-X1's answer frame (``think.RESPONSE_WRAPPERS``): only a wrapper whose
whole content is a call object naming a tool is a call."""
_WRAPPED_OPEN = re.compile(
    r"(?m)^[ \t]*(```xml[ \t]*\r?\n\s*)?<(" + "|".join(CALL_WRAPPERS) + r")>\s*(?=[{\[])", re.I
)


def _wrapped_json(
    text: str, known: Mapping[str, PromptMessageTool | None]
) -> tuple[list[tuple[str, dict[str, Any]]], str]:
    """Call objects each alone in a ``CALL_WRAPPERS`` tag opened at a line start (``<tool>\n{"name":
    "search", "arguments": {...}}\n</tool>``), the tag also in a ```` ```xml ```` fence. ``(calls,
    the text without those blocks)``; a block whose object is no call of a known tool stays text."""
    found: list[tuple[str, dict[str, Any]]] = []
    kept: list[str] = []
    position = 0
    fences = _fence_lines(text)
    for opened in _WRAPPED_OPEN.finditer(text):
        if opened.start() < position or _in_fence(fences, opened.start()):
            continue  # an example in a code block the answer shows
        if opened.group(1) and text[: opened.start()].strip():
            continue  # a fenced block after text: an example, unless it is the whole reply (below)
        try:
            value, end = raw_decode_at(text, opened.end())
        except (ValueError, RecursionError):
            continue
        closing = re.compile(rf"\s*</{opened.group(2)}>" + (r"(?:\s*```)?" if opened.group(1) else ""), re.I)
        closed = closing.match(text, end)
        if closed and opened.group(1) and text[closed.end() :].strip():
            closed = None  # text after the fenced block: an example too
        calls = _known_calls(interpret(value, strict=True), known) if closed and _is_envelope(value) else None
        if not calls:
            continue
        found.extend(calls)
        kept.append(text[position : opened.start()])
        position = closed.end()
    kept.append(text[position:])
    return found, "".join(kept)


_HEAD = re.compile(r'\{\s*"([^"\n]{1,40})"\s*:\s*"([^"\n]{0,128})"')
_HEAD_START = re.compile(r'\{\s*(?:"[^"\n]{0,40}(?:"\s*(?::\s*(?:"[^"\n]{0,128})?)?)?)?')
_HEAD_MAX: Final = 240
"""How long a line's start is held while it may still open a call (characters)."""
CALL_HEAD_SPAN: Final = 2 * _HEAD_MAX
"""How much of a line ``call_head`` needs to tell (characters): a caller passes no more, so a
long text is not copied for each of its lines."""


def call_head(line: str, names: Collection[str]) -> bool | None:
    """Whether a line that starts with ``line`` opens a call the content readers take after a
    sentence (``_wrapped_json``, ``_json_after_text``): a ``CALL_WRAPPERS`` tag or Phi-4-mini's
    ``functools[``, then (or alone) a call object whose first key is a name key giving one of
    ``names`` (``{"name": "search", ...``). True when it does, False when it cannot, None while
    it cannot be told yet (at most ``_HEAD_MAX`` characters)."""
    at = 0
    if line[:1] == "<":
        close = line.find(">", 0, 12)
        if close < 0:
            low = line.lower()
            return None if len(line) < 12 and any(f"<{tag}>".startswith(low) for tag in CALL_WRAPPERS) else False
        if line[1:close].lower() not in CALL_WRAPPERS:
            return False
        at = close + 1
    elif line[:1] == "f":
        if not line.startswith(FUNCTOOLS):
            return None if FUNCTOOLS.startswith(line) else False
        at = len(FUNCTOOLS)
    elif line[:1] == "[":
        at = 1  # a list of call objects (Phi-4-mini's without ``functools``: _array_after_text)
    rest = line[at:].lstrip()
    if at and line[:1] == "<" and rest[:1] == "[":
        rest = rest[1:].lstrip()  # an array of calls in the tag (Qwen2.5-Coder's ``<tools>``)
    if not rest:
        return None if len(line) < _HEAD_MAX else False
    head = _HEAD.match(rest)
    if head is not None:
        return _key_form(head.group(1)) in _NAME_KEYS and head.group(2) in names
    return None if len(line) < _HEAD_MAX and _HEAD_START.fullmatch(rest) else False


_LINE_OBJECT = re.compile(r"\n[ \t]*(?=\{)")
_LINE_ARRAY = re.compile(r"\n[ \t]*(?=\[\s*\{)")
"""A line that opens a JSON array of objects (Phi-4-mini's call list without its ``functools``
marker: ollama/ollama#10981)."""


def _fence_lines(text: str) -> list[int]:
    """Where each line that opens or closes a fenced code block starts in ``text``, in order
    (CommonMark's rules: ``fences.fence_lines``; a ```` ```json ```` line inside a block is its text)."""
    return fence_lines(text)


def _in_fence(fences: list[int], at: int) -> bool:
    """Whether ``at`` stands inside a fenced code block (an odd number of fence lines start
    before it; ``fences`` from ``_fence_lines``): the answer's own example, never a call read
    after a sentence (``call_markup.CodeQuote`` reads code the same way, as it streams)."""
    return bisect.bisect_left(fences, at) % 2 == 1


def _json_after_text(
    text: str, known: Mapping[str, PromptMessageTool | None]
) -> tuple[list[tuple[str, dict[str, Any]]], str]:
    """Call objects that end the text on the lines after a sentence (``This is it:\n{"name": ...}``:
    llama.cpp's Hermes 2 Pro parser), or Phi-4-mini's ``functools[...]`` list after one, text
    after it allowed (vLLM's ``phi4_mini_json`` parser). Only envelopes whose every name is a known
    tool. ``(calls, the text before them)``, or ``([], text)``."""
    listed = text.find(FUNCTOOLS)
    fences = _fence_lines(text)
    if listed > 0 and not _in_fence(fences, listed) and text.count("`", text.rfind("\n", 0, listed) + 1, listed) % 2 == 0:
        try:
            value, end = raw_decode_at(text, listed + len(FUNCTOOLS) - 1)
        except (ValueError, RecursionError):
            value = None
        calls = _known_calls(interpret(value, strict=True), known) if _is_envelope(value) else None
        if calls:
            return calls, text[:listed] + "\n" + text[end:]
    listed_calls = _array_after_text(text, known, fences)
    if listed_calls is not None:
        return listed_calls
    dead: set[int] = set()  # where objects start whose run of objects reads as no calls from them on
    for line in _LINE_OBJECT.finditer(text):
        head = _HEAD.match(text, line.end())  # as the answer gate holds it: a name key naming a tool
        if head is None or _key_form(head.group(1)) not in _NAME_KEYS or head.group(2) not in known:
            continue  # (and no copy of the rest of a long text for each line)
        if _in_fence(fences, line.start()) or line.end() in dead:
            continue  # an example in a code block the answer shows; or read already
        try:
            values, starts, end = _object_run(text, line.end())
        except (ValueError, RecursionError):
            continue
        if not _BLANK_TO_END.match(text, end):  # text after the run: so it is for every object of it
            dead.update(starts)
            continue
        envelopes = [_is_envelope(item) for item in values]
        if not all(envelopes):  # no run from an object at or before the last that is none reads
            dead.update(starts[: len(envelopes) - envelopes[::-1].index(False)])
            continue
        value = values if len(values) > 1 else values[0]
        calls = _known_calls(interpret(value, strict=True, names=known), known)
        if calls:
            return _lone_calls_before(text, line.start(), known, fences, calls)
    return [], text


_LINE_REST_BLANK = re.compile(r"[ \t]*(?:\n|\Z)")


def _lone_calls_before(
    text: str, end: int, known: Mapping[str, PromptMessageTool | None], fences: list[int],
    last: list[tuple[str, dict[str, Any]]],
) -> tuple[list[tuple[str, dict[str, Any]]], str]:
    """The calls ``_json_after_text`` found ending ``text`` at ``end`` (``last``), after the
    call objects the text before wrote each alone on its lines with a sentence after it (Llama
    3.x at higher temperatures: ``Sure!\n\n{call}\n\nand I'll check this too\n\n{call}``,
    vercel/ai#3521), so the earlier call is not lost while the last one runs. Such an object
    counts only as an envelope naming a known tool, outside a fence, and when the text since the
    previous call does not present it as an example (``_EXAMPLE_WORDS``). ``(calls in order, the
    text around them, its pieces joined by blank lines)``."""
    found: list[tuple[str, dict[str, Any]]] = []
    pieces: list[str] = []
    since = 0
    starts = [0] if text.startswith("{") else []
    starts += [line.end() for line in _LINE_OBJECT.finditer(text, 0, end)]
    examples = [word.start() for word in _EXAMPLE_WORDS.finditer(text, 0, end)]  # once, not per line
    for at in starts:
        if at < since or _in_fence(fences, at):
            continue
        head = _HEAD.match(text, at)
        if head is None or _key_form(head.group(1)) not in _NAME_KEYS or head.group(2) not in known:
            continue
        if bisect.bisect_left(examples, since) < bisect.bisect_left(examples, at):
            continue  # an example word between the previous call and this object
        try:
            value, stop = raw_decode_at(text, at)
        except (ValueError, RecursionError):
            continue
        if stop > end or not _LINE_REST_BLANK.match(text, stop) or not _is_envelope(value) or isinstance(value, list):
            continue
        calls = _known_calls(interpret(value, strict=True, names=known), known)
        if not calls:
            continue
        found += calls
        pieces.append(text[since:at].strip())
        since = stop
    pieces.append(text[since:end].strip())
    return found + last, "\n\n".join(piece for piece in pieces if piece)


def _array_after_text(
    text: str, known: Mapping[str, PromptMessageTool | None], fences: list[int]
) -> tuple[list[tuple[str, dict[str, Any]]], str] | None:
    """The last line of ``text`` opening a JSON array of call envelopes that ends the text, after
    a sentence (``I will now initiate a tool call...\n\n[{"name": "get_date_time", "arguments":
    {}}]``: Phi-4-mini through Ollama, ollama/ollama#10981), every name a known tool and the array
    outside a fence. ``(calls, the text before it)``, or None."""
    start = text.rfind("\n[")
    if start < 0 and "\n" in text:
        start = max((found.start() for found in _LINE_ARRAY.finditer(text)), default=-1)
    found = _LINE_ARRAY.match(text, start) if start >= 0 else None
    if found is None or _in_fence(fences, found.start()):
        return None
    head = _HEAD.match(text, text.index("{", found.end()))
    if head is None or _key_form(head.group(1)) not in _NAME_KEYS or head.group(2) not in known:
        return None
    try:
        value, end = raw_decode_at(text, found.end())
    except (ValueError, RecursionError):
        return None
    if not (isinstance(value, list) and _BLANK_TO_END.match(text, end) and _is_envelope(value)):
        return None
    calls = _known_calls(interpret(value, strict=True, names=known), known)
    return (calls, text[: found.start()]) if calls else None


_JSON_FENCE_OPEN = re.compile(r"[ \t]*```[ \t]*json[ \t]*\r?\n", re.I)
_EXAMPLE_WORDS = re.compile(
    r"\b(?:examples?|e\.g\.|for instance|samples?|format|schema|syntax|like this|such as|would look|looks like)\b"
    r"|例如|示例|格式|比如",
    re.I,
)
"""Words with which the text before a fenced block presents it as something to look at (an
example, a format, a schema) rather than as what the reply does."""


def _fenced_calls_after_text(
    text: str, known: Mapping[str, PromptMessageTool | None]
) -> tuple[list[tuple[str, dict[str, Any]]], str]:
    """A ```` ```json ```` fence that ends the reply after a sentence and holds only call envelopes
    (a list of them or one), every name one of the tools: xLAM's calls (``I'll help you with
    that.\n```json\n[{"name": ..., "arguments": ...}]\n``` ``: vLLM's ``xlam`` tool parser test).
    Not when it is an example the answer shows: text after the fence, another code block in
    the reply, or words before it that present it as one (``_EXAMPLE_WORDS``: "for example",
    "the format is", "such as"). ``(calls, the text before the fence)``, or ``([], text)``."""
    fences = _fence_lines(text)
    if len(fences) != 2:  # the fence's two lines, no other code block
        return [], text
    start, end = fences
    opening = _JSON_FENCE_OPEN.match(text, start)
    if opening is None or text[end:].strip() != "```" or not text[:start].strip():
        return [], text
    if _EXAMPLE_WORDS.search(text, 0, start):
        return [], text
    value = decode_json(text[opening.end() : end])
    if value is FAIL or not _is_envelope(value):
        return [], text
    calls = _known_calls(interpret(value, strict=True), known)
    return (calls, text[:start]) if calls else ([], text)


_FENCE_OPENING = re.compile(r"```[ \t]*json[ \t]*\r?\n\s*(\[\s*)?", re.I)
_FENCE_OPENING_START = re.compile(r"`{1,3}(?:[ \t]*+(?:j(?:s(?:o(?:n)?)?)?)?[ \t]*+\r?\n?\s*+(?:\[\s*+)?)?", re.I)


def fenced_call_head(line: str, names: Collection[str]) -> bool | None:
    """Whether a line that starts with ``line`` opens a ```` ```json ```` fence whose first content
    opens a call envelope naming one of ``names`` (``{"name": "search"`` or ``[{"name":
    "search"``: ``_fenced_calls_after_text``). True, False, or None while it cannot be told yet
    (at most ``_HEAD_MAX`` characters)."""
    opening = _FENCE_OPENING.match(line)
    if opening is None or opening.end() == len(line):
        return None if len(line) < _HEAD_MAX and _FENCE_OPENING_START.fullmatch(line) else False
    rest = line[opening.end() :]
    return call_head(rest, names) if rest[:1] == "{" else False


def _by_name(tools: Sequence[PromptMessageTool | str]) -> dict[str, PromptMessageTool | None]:
    """Each tool by its name (a bare name has no declaration)."""
    return {getattr(tool, "name", tool): (None if isinstance(tool, str) else tool) for tool in tools}


NAME_PREFIXES: Final = ("functions.", "default_api.")
"""Namespaces a model writes before a tool's name (``prefixed_tool``)."""
_NAME_SUFFIXES: Final = ("<|constrain|>json", "json")


def _repaired(call: ToolCall, known: Mapping[str, PromptMessageTool | None]) -> ToolCall | None:
    """``call`` under one of the known names, when its name is one with a server's leftovers."""
    name = call.name.strip()
    if name in known:
        return ToolCall(call.id, name, call.arguments)
    if (unprefixed := prefixed_tool(name, known)) is not None:
        return ToolCall(call.id, unprefixed, call.arguments)
    head = SPECIAL_TOKEN.split(name, 1)[0].strip()  # gpt-oss: manage_cart<|channel|>commentary
    if head != name and (head in known or (head := prefixed_tool(head, known) or "") in known):
        return ToolCall(call.id, head, call.arguments)
    for suffix in _NAME_SUFFIXES:
        if name.endswith(suffix) and name[: -len(suffix)] in known:
            return ToolCall(call.id, name[: -len(suffix)], call.arguments)
    if call.arguments or ("<arg_key>" not in name and "{" not in name):
        return None
    found = _known_calls(calls_from_block(name), known)
    if not found and "{" in name:
        head, brace, rest = name.partition("{")
        found = _known_calls([(head.strip(), decode_input(brace + rest))], known)
    return ToolCall(call.id, *found[0]) if len(found) == 1 else None


_DESCRIBED = re.compile(r"\s*(?:\(|[-–—:]\s)")
"""What follows a tool's name when a model copies its line of the tool list after ``Action:``:
its signature or its description (``Search Tool(query) - Searches the web``)."""


def prefixed_tool(name: str, names: Collection[str]) -> str | None:
    """The tool in ``names`` that ``name`` is with a namespace before it (``functions.search``:
    a Harmony recipient, OpenAI's ``functions.`` namespace; ``default_api.search``: Gemini's
    code form; ``api.search``: a code call's attribute, as Python reads ``api.search(q="x")``;
    ``google:mcp:text_generation:search``: an MCP namespace Gemma 4 wrote before the name,
    jundot/omlx#1830); None when ``name`` is already one of them or the rest is none."""
    if name in names:
        return None
    for prefix in NAME_PREFIXES:
        if name.startswith(prefix) and name[len(prefix) :] in names:
            return name[len(prefix) :]
    last = name.rpartition(".")[2]
    if last != name and last in names:
        return last
    last = name.rpartition(":")[2]
    return last if last != name and last in names else None


def described_tool(name: str, names: Collection[str]) -> str | None:
    """The one tool in ``names`` that ``name`` is, followed by its signature or description as
    the prompt's tool list shows them (crewAIInc/crewAI#674, phi3); ``None`` if no tool or more
    than one fits, or ``name`` is already one of them."""
    if name in names:
        return None
    found = [tool for tool in names if name.startswith(tool) and _DESCRIBED.match(name, len(tool))]
    return found[0] if len(found) == 1 else None


def repair_names(calls: Sequence[ToolCall], tools: Sequence[PromptMessageTool | str]) -> tuple[ToolCall, ...]:
    """Native tool calls whose name a server mangled, under the tool's own name.

    Only a call whose name is not one of ``tools`` changes, and only to a name that is:
    whitespace around it (vllm-project/vllm#37386, GLM-4.7); ``functions.`` or
    ``default_api.`` before it (a Harmony recipient, Gemini's code form); a Harmony control token
    and the rest of its header after it (``manage_cart<|channel|>commentary``: gpt-oss, vLLM PR
    #35906); ``json`` glued after it (ggml-org/llama.cpp#15158, gpt-oss); its arguments in the name, as GLM's ``<arg_key>``
    pairs (zai-org/GLM-5#84) or a JSON object, when the arguments are empty; a name streamed in
    two pieces that arrived as two calls, the first without arguments (continuedev/continue
    #5849, Gemini), joined under the first call's id. Any other call is returned as it came.
    """
    known = _by_name(tools)
    out: list[ToolCall] = []
    for call in calls:
        last = out[-1] if out else None
        if (
            last is not None
            and not last.arguments
            and last.name not in known
            and call.name not in known
            and last.name + call.name in known
        ):
            out[-1] = ToolCall(last.id, last.name + call.name, call.arguments)
            continue
        out.append(call if call.name in known else (_repaired(call, known) or call))
    return tuple(out)


def extract_calls_from_text(
    text: str, tools: Sequence[PromptMessageTool | str], *, id_prefix: str = "call", taken: Collection[str] = ()
) -> tuple[tuple[ToolCall, ...], str]:
    """Tool calls a model wrote in its content instead of ``tool_calls``.

    Read, in this order (the first form that yields a call wins): ``<tool_call>`` blocks
    (their closing tag may be missing at the end) holding anything ``calls_from_block``
    reads; the whole content as one envelope or a list of them (after special tokens and a
    fence; every key an envelope key), also when a sentence follows it; the whole content as calls written as code
    (``_whole_code``) or as a tool's name above its JSON arguments (``_name_line``); ``Action:``
    followed by an envelope; a list of calls as code after a sentence (``_code_after_text``); after
    ``<tool_call>`` blocks, call objects in ``CALL_WRAPPERS`` tags (``_wrapped_json``); last, call
    objects that end the text after a sentence (with the call objects alone on their lines between
    sentences before them: ``_lone_calls_before``) or ``functools[...]`` after one (``_json_after_text``), or
    a ```` ```json ```` fence of call envelopes that ends it (``_fenced_calls_after_text``). A
    family's own call markup is
    rewritten as ``<tool_call>`` blocks before this (``agent_core.call_markup``). Only calls whose
    every name is one of ``tools`` (declarations, or bare names) count; inputs are fitted
    as ReAct fits them. Returns
    ``(calls, the text without the call markup)``; with no call, ``((), text)``. Each call gets
    an id made under ``id_prefix`` (``tool_calls.made_call_id``) that is not in ``taken``.
    """
    known = _by_name(tools)
    if not text or not known:
        return (), text
    for reader in (
        _tool_call_blocks, _wrapped_json, _whole_json, _whole_code, _inkling_calls, _hcx_calls, _name_line, _action_blocks, _code_after_text,
        _json_after_text, _fenced_calls_after_text, _bare_gemma, _angleless_invokes,
    ):
        found, rest = reader(text, known)
        if found:
            ids = fresh_call_ids(id_prefix, len(found), taken)
            calls = tuple(ToolCall(call_id, name, arguments) for call_id, (name, arguments) in zip(ids, found, strict=True))
            return calls, SPECIAL_TOKEN.sub("", rest).strip()
    return (), text
