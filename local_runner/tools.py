"""Tools as Dify declares and serves them to an agent strategy (protocol §1.6, §5).

A ``ToolBox`` holds declared tools. ``entities()`` gives what Dify's Agent node puts in the
``tools`` parameter (``ToolEntity`` dumps + ``runtime_parameters``, ``credential_id``,
``provider_type``); ``invoke_tool(request)`` serves a backwards ``tool`` invocation
``{tool_type, provider, tool, tool_parameters, credential_id?, app_id?}`` as a stream of
``ToolInvokeMessage`` dicts ``{"type", "message", "meta"}``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

LOCAL_PROVIDER = "agentlab/local_tools/local_tools"
LOCAL_CREDENTIAL = "cred-local-tools"
_LANGUAGES = ("en_US", "zh_Hans", "pt_BR", "ja_JP")


class ToolNotFoundError(LookupError):
    """The plugin asked for a tool the ToolBox does not declare."""


class ToolInputError(ValueError):
    """A tool got parameters it cannot work with (the daemon reports it as an ``error`` event)."""


class ScriptedToolError(RuntimeError):
    """Raised on purpose by a ``ScriptedTool`` with ``error`` set."""


def i18n(text: str) -> dict[str, str]:
    """An ``I18nObject`` dump as Dify sends it: every language filled with ``text``."""
    return dict.fromkeys(_LANGUAGES, text)


def text_message(text: str) -> dict[str, Any]:
    """A ``ToolInvokeMessage`` of type text."""
    return {"type": "text", "message": {"text": text}, "meta": None}


def json_message(obj: dict[str, Any] | list[Any]) -> dict[str, Any]:
    """A ``ToolInvokeMessage`` of type json."""
    return {"type": "json", "message": {"json_object": obj}, "meta": None}


@dataclass(frozen=True)
class ToolParam:
    """One tool parameter. ``type``: string | number | boolean | select (``options`` = the
    allowed values); ``form``: "llm" (the model fills it) or "form" (set by the user)."""

    name: str
    type: str = "string"
    description: str = ""
    required: bool = True
    default: Any = None
    options: tuple[str, ...] = ()
    form: str = "llm"

    def entity(self) -> dict[str, Any]:
        """The ``ToolParameter`` dump Dify sends (every field present)."""
        return {
            "name": self.name,
            "label": i18n(self.name.replace("_", " ").title()),
            "human_description": i18n(self.description),
            "placeholder": None,
            "type": self.type,
            "form": self.form,
            "llm_description": self.description,
            "required": self.required,
            "default": self.default,
            "min": None,
            "max": None,
            "precision": None,
            "options": [{"value": option, "label": i18n(option)} for option in self.options],
            "scope": None,
            "auto_generate": None,
            "template": None,
            "multiple": False,
            "input_schema": None,
        }

    def cast(self, value: Any) -> Any:
        """Convert a model-supplied value to the declared type, as Dify does before a tool
        runs (numbers and booleans may arrive as strings). Raises ``ToolInputError``."""
        if self.type == "number" and isinstance(value, str):
            try:
                number = float(value)
            except ValueError:
                raise ToolInputError(f"parameter '{self.name}': expected a number, got {value!r}") from None
            return int(number) if number.is_integer() and "." not in value else number
        if self.type == "boolean" and isinstance(value, str):
            return value.strip().lower() in {"true", "1", "yes"}
        if self.type == "select" and self.options and value not in self.options:
            raise ToolInputError(f"parameter '{self.name}': {value!r} is not one of {list(self.options)}")
        return value


@dataclass(kw_only=True)
class DeclaredTool:
    """What every tool declares: ``name``, ``description`` (for the model), ``parameters``,
    ``provider`` (``author/plugin/provider``), ``runtime_parameters`` (values Dify adds
    to the entity, e.g. user-set form parameters), ``credential_id`` and ``provider_type``
    (builtin, plugin, workflow, api, app, mcp)."""

    name: str
    description: str = ""
    parameters: list[ToolParam] = field(default_factory=list)
    provider: str = LOCAL_PROVIDER
    runtime_parameters: dict[str, Any] = field(default_factory=dict)
    credential_id: str | None = LOCAL_CREDENTIAL
    provider_type: str = "builtin"

    def entity(self) -> dict[str, Any]:
        """The element of the ``tools`` node parameter (protocol §1.3 / §5)."""
        return {
            "identity": {
                "author": self.provider.split("/")[0],
                "name": self.name,
                "label": i18n(self.name.replace("_", " ").title()),
                "provider": self.provider,
                "icon": None,
            },
            "parameters": [param.entity() for param in self.parameters],
            "description": {"human": i18n(self.description), "llm": self.description},
            "output_schema": {},
            "has_runtime_parameters": False,
            "runtime_parameters": dict(self.runtime_parameters),
            "credential_id": self.credential_id,
            "provider_type": self.provider_type,
        }

    def prepare(self, given: dict[str, Any]) -> dict[str, Any]:
        """Declared defaults, then ``given`` values cast to their declared types.

        Raises ``ToolInputError`` for a missing required parameter."""
        declared = {param.name: param for param in self.parameters}
        values = {name: param.default for name, param in declared.items() if param.default is not None}
        for name, value in given.items():
            values[name] = declared[name].cast(value) if name in declared else value
        missing = [p.name for p in self.parameters if p.required and values.get(p.name) in (None, "")]
        if missing:
            raise ToolInputError(f"missing required parameter(s): {', '.join(missing)}")
        return values

    def run(self, parameters: dict[str, Any], released: threading.Event) -> Iterator[dict[str, Any]]:
        """Serve one call with the raw ``tool_parameters``; ``released`` ends hangs."""
        raise NotImplementedError


@dataclass(kw_only=True)
class LocalTool(DeclaredTool):
    """A real tool: ``handler(parameters) -> ToolInvokeMessage dicts`` runs with the
    parameters after ``prepare`` (defaults filled, types cast)."""

    handler: Callable[[dict[str, Any]], Iterable[dict[str, Any]]]

    def run(self, parameters: dict[str, Any], released: threading.Event) -> Iterator[dict[str, Any]]:
        """Run the handler on the prepared parameters."""
        yield from self.handler(self.prepare(parameters))


@dataclass(kw_only=True)
class ScriptedTool(DeclaredTool):
    """A tool for tests. Each call waits ``latency`` seconds, sends ``responses`` (raw
    ``ToolInvokeMessage`` dicts, passed through unchecked), then raises ``error`` if set or
    blocks until ``ToolBox.release()`` if ``hang``. Parameters are not validated."""

    responses: list[dict[str, Any]] = field(default_factory=list)
    latency: float = 0.0
    error: str | None = None
    hang: bool = False

    def run(self, parameters: dict[str, Any], released: threading.Event) -> Iterator[dict[str, Any]]:
        """Play the script (see class docstring)."""
        if self.latency:
            time.sleep(self.latency)
        yield from self.responses
        if self.error is not None:
            raise ScriptedToolError(self.error)
        if self.hang:
            released.wait()


@dataclass
class ToolCallRecord:
    """One served tool call: the raw ``request`` and ``time.monotonic()`` seconds at start and
    end (``finished`` is ``None`` while running or hanging), and the error text if it failed."""

    request: dict[str, Any]
    started: float
    finished: float | None = None
    error: str | None = None


class ToolBox:
    """The tools a run offers the agent, and the server of its backwards tool calls.

    Thread-safe: calls may run concurrently (the plugin runs tool calls in parallel).
    """

    def __init__(self, tools: Iterable[DeclaredTool] = ()) -> None:
        self._tools: dict[str, DeclaredTool] = {}
        self._lock = threading.Lock()
        self._released = threading.Event()
        self.calls: list[ToolCallRecord] = []
        for tool in tools:
            self.add(tool)

    def add(self, tool: DeclaredTool) -> ToolBox:
        """Declare ``tool`` (replacing one with the same name); returns ``self``."""
        self._tools[tool.name] = tool
        return self

    @property
    def names(self) -> list[str]:
        """Declared tool names, in declaration order."""
        return list(self._tools)

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Every backwards tool request received, in arrival order."""
        return [call.request for call in self.calls]

    def get(self, name: str) -> DeclaredTool:
        """The tool named ``name``; ``ToolNotFoundError`` lists the known names."""
        try:
            return self._tools[name]
        except KeyError:
            raise ToolNotFoundError(
                f"tool '{name}' is not in the toolbox (known: {', '.join(self._tools) or 'none'})"
            ) from None

    def entities(self, names: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """``tools`` node parameter for ``names`` (default: every tool)."""
        return [self.get(name).entity() for name in (self.names if names is None else names)]

    def credentials(self, names: Iterable[str] | None = None) -> dict[str, str]:
        """``context.credentials.tool_credentials``: provider -> credential id of ``names``."""
        tools = [self.get(name) for name in (self.names if names is None else names)]
        return {tool.provider: tool.credential_id for tool in tools if tool.credential_id}

    def release(self) -> None:
        """Let every hanging ``ScriptedTool`` call finish."""
        self._released.set()

    def invoke_tool(self, request: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """Record ``request`` and return the tool's message stream.

        Raises ``ToolNotFoundError`` if the tool or its provider is unknown (the daemon turns it
        into an ``error`` event); errors of the tool itself surface while iterating."""
        record = ToolCallRecord(request=request, started=time.monotonic())
        with self._lock:
            self.calls.append(record)
        try:
            tool = self.get(str(request.get("tool")))
            if request.get("provider") != tool.provider:
                provider = request.get("provider")
                raise ToolNotFoundError(
                    f"tool '{tool.name}' of provider '{provider}' not found (provided by '{tool.provider}')"
                )
        except ToolNotFoundError as exc:
            record.error, record.finished = str(exc), time.monotonic()
            raise
        return self._serve(tool, request, record)

    def _serve(self, tool: DeclaredTool, request: dict[str, Any], record: ToolCallRecord) -> Iterator[dict[str, Any]]:
        try:
            yield from tool.run(dict(request.get("tool_parameters") or {}), self._released)
        except Exception as exc:
            record.error = str(exc)
            raise
        finally:
            record.finished = time.monotonic()
