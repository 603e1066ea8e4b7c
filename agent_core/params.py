"""The node parameters a strategy receives, validated once.

Dify's Agent node sends every declared parameter (docs/protocol-notes.md §5): the
model-selector as a dict with ``history_prompt_messages`` and ``entity``,
tools as ``ToolEntity`` dicts plus ``runtime_parameters``/``credential_id``/
``provider_type``, knowledge ``context`` as a list of ``{content, title,
metadata}``, and ``files`` as SDK ``File`` objects. Empty values arrive as
``None`` or ``""``; they get defaults here rather than failing the run.
"""

import json
import logging
import math
import mimetypes
import os
from typing import Any
from urllib.parse import urlsplit

from dify_plugin.entities.model import AIModelEntity
from dify_plugin.entities.model.message import (
    AssistantPromptMessage,
    PromptMessage,
    PromptMessageContentType,
    PromptMessageRole,
    UserPromptMessage,
    ensure_prompt_message,
)
from dify_plugin.interfaces.agent import AgentModelConfig, ToolEntity
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from agent_core import prompts
from agent_core.answer_schema import read_answer_schema
from agent_core.errors import AgentRunError
from agent_core.fairness import collection_paused, give_way
from agent_core.json_args import MAX_DEPTH, too_deep
from agent_core.knowledge import read_context
from agent_core.redaction import redactor
from agent_core.sliced_validation import model_entity, tool_entity
from agent_core.tool_schema import ParamType, secret_text, tool_secret_values
from agent_core.tool_texts import mended_texts

logger = logging.getLogger(__name__)

MAX_ITERATIONS_RANGE = (1, 500)
TOOL_TIMEOUT_RANGE = (1.0, 900.0)
DEFAULT_TOOL_TIMEOUT = 120.0
MODEL_TIMEOUT_RANGE = (10.0, 900.0)
DEFAULT_MODEL_TIMEOUT = 600.0
RUN_TIMEOUT_RANGE = (10.0, 3600.0)
DAEMON_DEFAULT_TIMEOUT = 240.0
"""``PLUGIN_MAX_EXECUTION_TIMEOUT`` of a daemon left at its own default (seconds); Dify's
docker set-up raises it to 600."""
RUN_TIMEOUT_ENV = ("AGENT_RUN_TIMEOUT", "PLUGIN_MAX_EXECUTION_TIMEOUT")
"""Environment variables read, in this order, for the run's time limit when the node sets none
(a local plugin inherits the daemon's environment)."""
DAEMON_TIMEOUT_ENV = "PLUGIN_MAX_EXECUTION_TIMEOUT"
"""The daemon's own limit on a run: it ends a longer one with a bare error, so no run of the plugin
is planned past it, whatever the node or ``AGENT_RUN_TIMEOUT`` say."""


def _env_seconds(name: str) -> float | None:
    """The environment variable ``name`` as seconds: a positive finite number, else ``None``
    (unset, text, ``nan``, infinite, zero or negative)."""
    try:
        seconds = float(os.environ.get(name, "").strip() or "nan")
    except ValueError:
        return None
    return seconds if 0 < seconds < math.inf else None


def daemon_time_limit() -> float | None:
    """Seconds the daemon lets a run last (``DAEMON_TIMEOUT_ENV`` in the environment the plugin
    inherits from it), or ``None`` when unset or not a positive number. ``0`` is the daemon's own
    default, ``DAEMON_DEFAULT_TIMEOUT`` (its config reads a zero as unset). Not raised to
    ``RUN_TIMEOUT_RANGE``'s minimum: the daemon ends the run then whatever the plugin plans."""
    value = os.environ.get(DAEMON_TIMEOUT_ENV, "").strip()
    try:
        if value and float(value) == 0:
            return DAEMON_DEFAULT_TIMEOUT
    except ValueError:
        return None
    return _env_seconds(DAEMON_TIMEOUT_ENV)


def within_daemon_limit(seconds: float) -> float:
    """``seconds`` (a run's time limit), no longer than ``daemon_time_limit()`` when one is set."""
    limit = daemon_time_limit()
    return seconds if limit is None else min(seconds, limit)


def default_run_timeout() -> float:
    """The run's time limit when the node sets none: the first of ``RUN_TIMEOUT_ENV`` that holds
    a positive number (clamped to ``RUN_TIMEOUT_RANGE``; an infinite one is its maximum), else
    ``DAEMON_DEFAULT_TIMEOUT`` (seconds); never past ``daemon_time_limit()``. A value of zero or
    less is skipped like text: it is no time a deployment means a run to have (the daemon reads
    its own ``0`` as unset), and clamping it would give every run the 10 s minimum."""
    for name in RUN_TIMEOUT_ENV:
        value = os.environ.get(name, "").strip()
        if value:
            try:
                if not float(value) > 0:
                    continue  # zero, negative or nan: the next one holds
                return within_daemon_limit(_clamp(value, RUN_TIMEOUT_RANGE, DAEMON_DEFAULT_TIMEOUT))
            except ValueError:  # the deployment's own setting, not the user's: the next one holds
                continue
    return within_daemon_limit(DAEMON_DEFAULT_TIMEOUT)


def _tool_name(raw: Any) -> str:
    """A tool's name from a declaration that may be malformed ("(unnamed tool)" if none)."""
    identity = raw.get("identity") if isinstance(raw, dict) else None
    name = identity.get("name") if isinstance(identity, dict) else None
    return str(name) if isinstance(name, str) and name else "(unnamed tool)"


def _declared_values(raw: Any) -> list[str]:
    """Every text a malformed tool declaration carries that may be secret: its runtime parameter
    values (a ``secret-input`` among them cannot be told apart once the declaration is unreadable)
    and its credential id."""
    if not isinstance(raw, dict):
        return []
    runtime = raw.get("runtime_parameters")
    values = list(runtime.values()) if isinstance(runtime, dict) else []
    return [value for value in [*values, raw.get("credential_id")] if isinstance(value, str)]


_PARAM_TYPES = frozenset(str(kind.value) for kind in ParamType)


def _dropped_secrets(raw: Any) -> set[str]:
    """The values a malformed tool declaration may hold a secret in: its runtime values of
    ``secret-input`` parameters and of parameters whose type the SDK does not know (a newer
    secret type cannot be told apart); all its runtime values when its parameters cannot be
    read. Redacted from every other tool's output, as the secrets of the tools offered are."""
    if not isinstance(raw, dict) or not isinstance(raw.get("runtime_parameters"), dict):
        return set()
    runtime, parameters = raw["runtime_parameters"], raw.get("parameters")
    if not isinstance(parameters, list) or not all(isinstance(p, dict) for p in parameters):
        names = list(runtime)
    else:
        names = [p.get("name") for p in parameters
                 if p.get("type") == ParamType.SECRET_INPUT.value or str(p.get("type")) not in _PARAM_TYPES]
    return {text for name in names if isinstance(name, str) for text in secret_text(runtime.get(name))}


def _drop_reason(raw: Any, error: ValidationError) -> str:
    """What was wrong with a tool declaration: field and problem of the first five errors, never
    the values (a tool entity carries the user's secret parameters); redacted all the same."""
    reason = "; ".join(
        f"{'.'.join(str(part) for part in item['loc']) or 'entity'}: {item['msg']}"
        for item in error.errors(include_input=False, include_url=False, include_context=False)[:5]
    )
    return redactor(_declared_values(raw))(reason)


def _tool_entity(raw: Any) -> ToolEntity:
    """``tool_entity(raw)``; when that fails, once more with its missing display texts filled in
    (``tool_texts.mended_texts``: a null label or description does not change what the tool
    does). Raises the first ``ValidationError`` when the mended declaration fails too, or when
    nothing could be mended."""
    try:
        return tool_entity(raw)
    except ValidationError:
        mended = mended_texts(raw)
        if mended is None:
            raise
        try:
            return tool_entity(mended)
        except ValidationError:
            pass
        raise


def _allows(value: Any) -> bool:
    """A value of an ``allowed_tools`` object: true, or text that says so (``"true"``, ``"1"``)."""
    if isinstance(value, str):
        return value.strip().lower() in ("true", "1", "yes", "on")
    return value is True or (isinstance(value, int | float) and value == 1)


def _file_at(address: str) -> Any:
    """An http(s) address as a Dify file dict (``type`` from the MIME type its name suggests:
    image, audio, video, document, else custom); any other text is left as it is."""
    address = address.strip()
    if urlsplit(address).scheme not in ("http", "https"):
        return address
    mime = mimetypes.guess_type(urlsplit(address).path)[0] or ""
    major = mime.split("/")[0]
    kind = major if major in ("image", "audio", "video") else ("document" if mime.startswith(("application/", "text/")) else "custom")
    name = urlsplit(address).path.rsplit("/", 1)[-1] or None
    return {"dify_model_identity": "__dify__file__", "url": address, "remote_url": address, "type": kind,
            "transfer_method": "remote_url", "filename": name, "mime_type": mime or None}


_CONTENT_TYPES = frozenset(kind.value for kind in PromptMessageContentType)


def _memory_message(raw: Any) -> PromptMessage | None:
    """One memory message as the SDK reads it, mended where that is safe (tool-call arguments
    given as an object are sent as its JSON; ``tool_calls`` null read as no calls, which the SDK
    refuses and which cost the answer and the question before it; content parts of a kind no
    model takes are left out); ``None`` when it cannot be read (not a message, a tool result
    without its call's id)."""
    if isinstance(raw, PromptMessage):
        return raw
    if not isinstance(raw, dict):
        return None
    if (plain := _plain_message(raw)) is not None:
        return plain
    message = dict(raw)
    if isinstance(message.get("content"), list):
        message["content"] = [
            mended for part in message["content"]
            if isinstance(part, dict) and part.get("type") in _CONTENT_TYPES
            for mended in [_file_part(part)] if mended is not None
        ]
    if isinstance(message.get("tool_calls"), list):
        message["tool_calls"] = [_with_text_arguments(call) for call in message["tool_calls"]]
    elif "tool_calls" in message and message["tool_calls"] is None:  # no calls, as ``[]`` says
        del message["tool_calls"]
    try:
        return ensure_prompt_message(message)
    except Exception:  # pydantic's ValidationError, or the SDK's own TypeError
        return None


def _file_part(part: dict) -> dict | None:
    """A content part of memory with its file's bytes or address where the SDK reads them: a
    file part that gives them only as ``data`` (a data URI or an address: the field's name before
    Dify split it into ``base64_data`` and ``url``, and the SDK's read-only property now) gets them
    as ``base64_data`` (and its MIME type) or ``url``. ``None`` for a file part with neither
    (the SDK would read an image of nothing, ``data:image/png;base64,``, which providers refuse);
    a text part, or a file part that has them, as it is."""
    if part.get("type") == PromptMessageContentType.TEXT.value or part.get("base64_data") or part.get("url"):
        return part
    data = part.get("data")
    if not isinstance(data, str) or not data.strip():
        return None
    if data.startswith("data:") and ";base64," in data:
        head, payload = data[5:].split(";base64,", 1)
        part = {**part, "base64_data": payload, "mime_type": part.get("mime_type") or head or "application/octet-stream"}
    else:
        part = {**part, "url": data.strip()}
    mime = part.get("mime_type")
    if not part.get("format") and isinstance(mime, str):  # the SDK requires it; older dumps lack it
        part["format"] = mime.rsplit("/", 1)[-1]
    return part


_PLAIN_KEYS = frozenset({"role", "content"})
_PLAIN_SET = frozenset({"role", "content"})


def _plain_message(raw: dict) -> PromptMessage | None:
    """A memory message that is only a user's or an assistant's text (``{"role": "user",
    "content": "..."}``, most of a long memory), built as pydantic's ``model_construct`` builds a
    model (its fields, defaults and the fields set written on a new object) without validation,
    which the text needs none of: the same object as ``ensure_prompt_message`` builds
    (``UserPromptMessage(role="user", content=...)``), in a sixth of the time (100,000 such messages
    took 0.5 s of CPU before the first round, validated or through ``model_construct``, which is
    Python). None for any other shape, which is validated as before."""
    content = raw.get("content")
    if type(content) is not str or raw.keys() - _PLAIN_KEYS:
        return None
    role = raw.get("role")
    if role == "user":
        message: PromptMessage = UserPromptMessage.__new__(UserPromptMessage)
        fields = {"role": PromptMessageRole.USER, "content": content, "name": None}
    elif role == "assistant":
        message = AssistantPromptMessage.__new__(AssistantPromptMessage)
        fields = {"role": PromptMessageRole.ASSISTANT, "content": content, "name": None, "tool_calls": [],
                  "opaque_body": None}
    else:
        return None
    setattr_ = object.__setattr__
    setattr_(message, "__dict__", fields)
    setattr_(message, "__pydantic_fields_set__", set(_PLAIN_SET))
    setattr_(message, "__pydantic_extra__", None)
    setattr_(message, "__pydantic_private__", None)
    return message


def _with_text_arguments(call: Any) -> Any:
    """A memory tool call whose arguments the model plugins can read back: JSON text of an
    object as it is; an object as its JSON; anything else (text that is not JSON, ``""``, an
    array, ``null``) as ``{}``, as a call of the run whose arguments could not be read goes back
    (``function_calling.prompt._tool_call``): Anthropic's, Bedrock's, Gemini's and Ollama's model
    plugins parse them with ``json.loads`` and fail the whole request otherwise, and Anthropic
    takes only an object as a call's input."""
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict):
        return call
    arguments = function.get("arguments")
    if isinstance(arguments, str) and _json_object(arguments):
        return call
    text = json.dumps(arguments, ensure_ascii=False) if isinstance(arguments, dict) else "{}"
    return {**call, "function": {**function, "arguments": text}}


def _json_object(text: str) -> bool:
    """Whether ``text`` is the JSON of an object."""
    if not text.lstrip().startswith("{"):
        return False
    try:
        return isinstance(json.loads(text), dict)
    except (ValueError, RecursionError):
        return False


def _clamp(value: Any, bounds: tuple[float, float], default: float) -> float:
    """``value`` as a number within ``bounds``; ``default`` when unset (None, ``""``). Raises
    ``ValueError`` for anything else that is not a number: a setting the user gave must not be
    replaced by the default without a word."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return default
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"a {type(value).__name__} value that is not a number") from None
    if math.isnan(number):
        raise ValueError("not a number (NaN)")
    return min(max(number, bounds[0]), bounds[1])


def _readable_mode(mode: Any, entity: Any) -> Any:
    """The model-selector's ``mode`` as sent when it is a non-empty string; else (missing, null,
    empty) the ``mode`` of its schema's ``model_properties`` (``entity``: an ``AIModelEntity``,
    its dump, or None) when that is ``chat`` or ``completion``, else ``chat``. A model served
    through LM Studio's community plugin reached agents with no mode ("Invalid LLM mode: None",
    langgenius/dify-docs-archived#652)."""
    if isinstance(mode, str) and mode:
        return mode
    properties = getattr(entity, "model_properties", None)
    if properties is None and isinstance(entity, dict):
        properties = entity.get("model_properties")
    for key, value in (properties or {}).items() if isinstance(properties, dict) else ():
        if str(getattr(key, "value", key)) == "mode" and str(getattr(value, "value", value)) in ("chat", "completion"):
            return str(getattr(value, "value", value))
    return "chat"


class StrategyParams(BaseModel):
    """Parameters shared by every strategy.

    ``maximum_iterations`` is the number of rounds (model calls that may use
    tools); ``tool_timeout`` is seconds per tool call; ``model_timeout`` is the
    longest silence, in seconds, between two chunks of one model call; ``run_timeout`` is
    the whole run's time limit in seconds (the daemon ends a longer run with a bare error, so it
    is never more than the daemon's ``PLUGIN_MAX_EXECUTION_TIMEOUT`` when the plugin sees that).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="ignore", protected_namespaces=())

    model: AgentModelConfig
    tools: list[ToolEntity] = Field(default_factory=list)
    instruction: str = ""
    query: str = ""
    context: list[dict[str, Any]] = Field(default_factory=list)
    files: list[Any] = Field(default_factory=list)
    maximum_iterations: int = 5
    allowed_tools: list[str] | None = None
    dropped_tools: list[tuple[str, str]] = Field(default_factory=list)
    """Tools left out because their declaration did not validate: (name, what was wrong)."""
    other_secrets: frozenset[str] = Field(default_factory=frozenset, repr=False, exclude=True)
    """Secret values of the node's tools that are not offered (dropped as malformed, or left out
    by ``allowed_tools``): never run, but redacted from what the other tools return."""
    setting_notes: list[str] = Field(default_factory=list)
    """Parts of the model-selector left out because they could not be read (memory messages,
    the model's schema, the user's JSON schema for the answer), each said once in the log."""
    answer_schema: dict[str, Any] | None = None
    """The JSON schema the user set for the answer in the model's parameters
    (``answer_schema.read_answer_schema``), None when none is set or it cannot be read."""
    tool_timeout: float = DEFAULT_TOOL_TIMEOUT
    model_timeout: float = DEFAULT_MODEL_TIMEOUT
    run_timeout: float = Field(default_factory=default_run_timeout)

    @field_validator("files", mode="before")
    @classmethod
    def _none_to_list(cls, value: Any) -> Any:
        """A list of files; one file or one address alone is a list of one. An http(s) address
        (a workflow's list of URLs given as the files) is read as a remote file of the kind its
        name says, so an image reaches a vision model."""
        if value is None or value == "":
            return []
        return [_file_at(item) if isinstance(item, str) else item for item in (value if isinstance(value, list) else [value])]

    @model_validator(mode="before")
    @classmethod
    def _readable_model(cls, data: Any) -> Any:
        """The model-selector read part by part: a memory message that cannot be read is left
        out (a conversation's memory is not the user's to mend), a schema that cannot be read is
        taken as unknown, a completion parameter nested more than ``json_args.MAX_DEPTH`` levels
        deep is left out (pydantic-core refuses to write the request line); each is noted in
        ``setting_notes``. Memory given as one message or as null is read as a list, completion
        parameters given as null as none."""
        if not isinstance(data, dict) or not isinstance(data.get("model"), dict):
            return data
        model, notes = dict(data["model"]), []
        history = model.get("history_prompt_messages")
        if isinstance(history, dict):
            history = [history]
        elif history is not None and not isinstance(history, list):
            notes.append(prompts.MEMORY_UNREADABLE.format(what=f"a {type(history).__name__}, not a list of messages"))
            history = []
        kept = []
        for raw in history or []:
            if (message := _memory_message(raw)) is not None:
                kept.append(message)
            give_way()  # tens of thousands of messages
        if len(kept) < len(history or []):
            notes.append(prompts.MEMORY_MESSAGES_LEFT_OUT.format(count=len(history) - len(kept)))
        model["history_prompt_messages"] = kept
        if model.get("completion_params") in (None, ""):  # unset: the model's own defaults
            model["completion_params"] = {}
        completion = model.get("completion_params")
        if isinstance(completion, dict) and (deep := [k for k, v in completion.items() if too_deep(v, MAX_DEPTH)]):
            model["completion_params"] = {k: v for k, v in completion.items() if k not in deep}
            names = ", ".join(repr(str(k)[:40]) for k in deep[:3]) + (", ..." if len(deep) > 3 else "")
            notes.append(prompts.COMPLETION_PARAMS_TOO_DEEP.format(count=len(deep), names=names, limit=MAX_DEPTH))
        completion = model.get("completion_params")
        answer_schema, problem = read_answer_schema(completion if isinstance(completion, dict) else None)
        if problem:
            notes.append(problem)
        entity = model.get("entity")
        if entity is not None and not isinstance(entity, AIModelEntity):
            try:
                model["entity"] = model_entity(entity)  # a long list of rules validated in slices
            except Exception as error:  # the SDK's validators raise KeyError, TypeError... too
                model["entity"] = None
                notes.append(prompts.MODEL_SCHEMA_UNREADABLE.format(error=type(error).__name__))
        model["mode"] = _readable_mode(model.get("mode"), model.get("entity"))
        return {**data, "model": model, "setting_notes": notes, "answer_schema": answer_schema}

    @model_validator(mode="before")
    @classmethod
    def _valid_tools(cls, data: Any) -> Any:
        """Each tool validated on its own: one malformed tool is dropped, not the run; it is
        named in ``dropped_tools`` with what was wrong (field and problem, never its values:
        a tool entity carries the user's secret parameters).

        Dify may label plugin tools ``provider_type: plugin``, which the SDK's
        enum lacks; the daemon invokes them as ``builtin``.
        """
        if not isinstance(data, dict):
            return data
        tools, dropped, secrets, logged, declared = [], [], set(), [], set()
        raw_tools = data.get("tools")
        if isinstance(raw_tools, dict):  # one tool, not in a list
            raw_tools = [raw_tools]
        elif raw_tools not in (None, "") and not isinstance(raw_tools, list):
            dropped.append(("(tools)", f"tools: a {type(raw_tools).__name__}, not a list of tools"))
        for raw in raw_tools if isinstance(raw_tools, list) else []:
            give_way()  # thousands of tools: the SDK's validation of each takes some 0.3 ms
            if isinstance(raw, dict) and raw.get("provider_type") == "plugin":
                raw = {**raw, "provider_type": "builtin"}
            try:
                tools.append(raw if isinstance(raw, ToolEntity) else _tool_entity(raw))  # long lists in slices
            except ValidationError as error:
                name = _tool_name(raw)
                reason = _drop_reason(raw, error)
                dropped.append((name, reason))
                secrets |= _dropped_secrets(raw)
                declared.update(_declared_values(raw))
                logged.append(("dropping tool %r: its declaration does not validate (%s)", name, reason))
            except Exception as error:  # a validator of the SDK that fails otherwise: never its text
                name = _tool_name(raw)
                secrets |= _dropped_secrets(raw)
                declared.update(_declared_values(raw))
                dropped.append((name, f"entity: unreadable ({type(error).__name__})"))
                logged.append(("dropping tool %r: its declaration cannot be read (%s)", name, type(error).__name__))
        if logged:  # stderr reaches the daemon's log: a name may hold a key of this or any other tool
            hide = redactor(declared.union(secrets, *map(tool_secret_values, tools)))
            for text, name, detail in logged:
                logger.warning(text, hide(name), hide(detail))
        return {**data, "tools": tools, "dropped_tools": dropped, "other_secrets": frozenset(secrets)}

    @field_validator("allowed_tools", mode="before")
    @classmethod
    def _tool_names(cls, value: Any) -> list[str] | None:
        """Tool names from a list, a JSON array string, a comma-separated string or a mapping of
        name to a true value (a workflow variable may hold any of them); None when empty or unset
        (every tool is allowed). Anything else is an error: a restriction that cannot be read must
        not become no restriction."""
        if value is None or value == "":
            return None
        if isinstance(value, str):
            text = value.strip()
            try:
                value = json.loads(text) if text.startswith(("[", "{")) else text.split(",")
            except ValueError:
                value = text.strip("[]").split(",")
        if isinstance(value, dict):  # name -> allowed; an object that allows none allows none
            return [str(name) for name, allowed in value.items() if _allows(allowed)]
        if not isinstance(value, list | tuple):
            raise ValueError(f"a {type(value).__name__}, not a list of tool names")
        names = [str(item).strip().strip("\"'") for item in value if item is not None]
        return [name for name in names if name] or None

    @model_validator(mode="after")
    def _only_allowed_tools(self) -> "StrategyParams":
        """Keep only the tools ``allowed_tools`` names (by ``identity.name``), as the official
        strategies do: those are offered to the model and allowed to run."""
        if self.allowed_tools is not None:
            allowed = set(self.allowed_tools)
            unknown = sorted(allowed - {tool.identity.name for tool in self.tools} - {name for name, _ in self.dropped_tools})
            left_out = [tool for tool in self.tools if tool.identity.name not in allowed]
            self.other_secrets = self.other_secrets.union(*map(tool_secret_values, left_out))
            self.tools = [tool for tool in self.tools if tool.identity.name in allowed]
            self.dropped_tools = [(name, why) for name, why in self.dropped_tools if name in allowed]
            if unknown:  # a typo in the variable would otherwise leave the agent without tools, unseen
                self.setting_notes = [*self.setting_notes, prompts.ALLOWED_TOOLS_UNKNOWN.format(names=", ".join(unknown))]
        return self

    @field_validator("instruction", "query", mode="before")
    @classmethod
    def _none_to_text(cls, value: Any) -> str:
        return "" if value is None else str(value)

    @field_validator("context", mode="before")
    @classmethod
    def _context_items(cls, value: Any) -> list[dict[str, Any]]:
        """Accept a list of retrieval items, one item, their text, or plain text (``knowledge.read_context``)."""
        return read_context(value)

    @field_validator("maximum_iterations", mode="before")
    @classmethod
    def _clamp_iterations(cls, value: Any) -> int:
        """Unset: 5; a number (also as text) within ``MAX_ITERATIONS_RANGE`` (``"inf"`` is the
        most allowed); anything else an error (``_clamp``)."""
        return int(_clamp(value, MAX_ITERATIONS_RANGE, 5))

    @field_validator("tool_timeout", mode="before")
    @classmethod
    def _clamp_tool_timeout(cls, value: Any) -> float:
        return _clamp(value, TOOL_TIMEOUT_RANGE, DEFAULT_TOOL_TIMEOUT)

    @field_validator("run_timeout", mode="before")
    @classmethod
    def _clamp_run_timeout(cls, value: Any) -> float:
        if value is None or value == "":
            return default_run_timeout()
        return within_daemon_limit(_clamp(value, RUN_TIMEOUT_RANGE, default_run_timeout()))

    @field_validator("model_timeout", mode="before")
    @classmethod
    def _clamp_model_timeout(cls, value: Any) -> float:
        return _clamp(value, MODEL_TIMEOUT_RANGE, DEFAULT_MODEL_TIMEOUT)

    def model_features(self) -> set[str]:
        """The model's declared features (``tool-call``, ``stream-tool-call``, ``vision``…); empty if unknown."""
        entity = self.model.entity
        if entity is None:
            return set()
        return {getattr(feature, "value", str(feature)) for feature in entity.features or []}

    def context_size(self) -> int | None:
        """The model's context window in tokens, if its schema says."""
        entity = self.model.entity
        properties = {getattr(k, "value", k): v for k, v in (entity.model_properties if entity else {}).items()}
        size = properties.get("context_size")
        try:
            return int(size) if size else None
        except (TypeError, ValueError):
            return None


class LenientFileParameters:
    """Mixin for a strategy class (before ``AgentStrategy``): the SDK turns every file dict of
    the node's parameters into a ``File`` before ``_invoke`` (``ToolLike._convert_parameters``,
    dify_plugin 0.10.2), and one it cannot (no ``url``, an unknown ``type``, a ``size`` that is
    no number) would end the run with the SDK's raw error before it starts. Here each parameter,
    and each file of a list, is converted on its own; one that cannot be stays a dict, which the
    strategy mentions to the model as a file it cannot show."""

    @classmethod
    def _convert_parameters(cls, parameters: dict) -> dict:
        convert = super()._convert_parameters  # type: ignore[misc]
        out: dict = {}
        for key, value in parameters.items():
            try:
                out.update(convert({key: value}))
            except Exception:
                items = value if isinstance(value, list) else [value]
                kept = [_converted(convert, item) for item in items]
                out[key] = kept if isinstance(value, list) else kept[0]
        return out


def _converted(convert: Any, item: Any) -> Any:
    try:
        return convert({"file": item})["file"]
    except Exception:  # the SDK's KeyError, ValueError or ValidationError: kept as it came
        return item


MAX_LISTED_PROBLEMS = 5

_VALIDATOR_PREFIX = ("Value error, ", "Assertion failed, ")
"""What pydantic puts before the message of a validator's ``ValueError`` or ``AssertionError``
(``pydantic_core``'s ``value_error`` and ``assertion_error`` messages); the user reads the
message alone."""


def _plain(message: str) -> str:
    """A pydantic error message without the validator prefix (``Value error, ``)."""
    for prefix in _VALIDATOR_PREFIX:
        if message.startswith(prefix):
            return message[len(prefix) :]
    return message


def read_params[P: StrategyParams](cls: type[P], parameters: Any) -> P:
    """The node's parameters as ``cls``; raises ``AgentRunError`` naming each setting that cannot
    be read (its path and the problem, never its value: the model's and the tools' settings may
    hold credentials), instead of pydantic's multi-line text or another exception's. The
    collector is held off while it reads (``fairness.collection_paused``: tens of thousands of
    memory messages)."""
    try:
        with collection_paused():
            return cls.model_validate(parameters)
    except ValidationError as error:
        problems = [
            f"{'.'.join(str(part) for part in item['loc']) or 'parameters'}: {_plain(item['msg'])}"
            for item in error.errors(include_url=False, include_input=False)
        ]
        more = len(problems) - MAX_LISTED_PROBLEMS
        listed = "; ".join(problems[:MAX_LISTED_PROBLEMS]) + (f"; and {more} more" if more > 0 else "")
        raise AgentRunError(prompts.SETTINGS_UNREADABLE.format(problems=listed)) from None
    except Exception as error:  # a validator of the SDK failing otherwise (KeyError, TypeError...)
        raise AgentRunError(prompts.SETTINGS_UNREADABLE.format(problems=type(error).__name__)) from None
