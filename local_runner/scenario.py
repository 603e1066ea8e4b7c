"""Scenarios: what a Dify Agent node would send for one run, and ``run_scenario``.

A scenario file (YAML) looks like::

    name: calculator
    strategy: function_calling          # strategy name in the plugin
    query: What do I pay for ...?
    instruction: You are ...
    tools: [calculator, {name: current_time, runtime_parameters: {format: "%H:%M"}}]
    model: {model: gpt-4o-mini, mode: chat, completion_params: {temperature: 0},
            features: [tool-call, ...], context_size: 8192, pricing: {input: "0.15", ...}}
    maximum_iterations: 5
    tool_timeout: 30                    # optional; omitted = the strategy's declared default
    history: [{role: user, content: hi}, {role: assistant, content: Hello!}]
    context: [{content: ..., title: ...}]   # knowledge-retrieval results
    files: [path/to/local.png, {url: "https://...", mime_type: image/png}]
    params: {any_extra_param: value}    # passed through unchanged
    script: calculator.turns.yaml       # scripted model turns (file or inline list)

Paths (``script``, local ``files``) are relative to the scenario file.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from local_runner.backends import Pricing, ScriptedBackend, load_turns, tool_call
from local_runner.builtin_tools import default_toolbox
from local_runner.daemon import DEFAULT_PLUGIN_DIR, RUN_TIMEOUT, PluginProcess, RunRequest, UpdateCallback
from local_runner.files import FileServer, file_param
from local_runner.result import RunResult
from local_runner.tools import ToolBox, i18n

DEFAULT_FEATURES = ["tool-call", "multi-tool-call", "agent-thought", "stream-tool-call"]


@dataclass
class ModelSettings:
    """The model-selector value and the model's ``AIModelEntity`` (protocol §5).

    ``entity=False`` sends ``entity: null`` (Dify does so when it cannot find the model)."""

    model: str = "gpt-4o-mini"
    provider: str = "langgenius/openai/openai"
    mode: str = "chat"
    completion_params: dict[str, Any] = field(default_factory=lambda: {"temperature": 0.2, "max_tokens": 1024})
    features: list[str] = field(default_factory=lambda: list(DEFAULT_FEATURES))
    context_size: int = 128000
    pricing: dict[str, Any] | None = field(default_factory=lambda: Pricing().to_dict())
    parameter_rules: list[dict[str, Any]] | None = None
    entity: bool = True

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> ModelSettings:
        """Build from the ``model`` mapping of a scenario file (unknown keys are an error)."""
        data = dict(data or {})
        unknown = set(data) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"unknown model settings {sorted(unknown)}")
        return cls(**data)

    def selector(self, history: list[dict[str, Any]]) -> dict[str, Any]:
        """The ``model`` node parameter: selector value + history + entity."""
        return {
            "provider": self.provider,
            "model": self.model,
            "model_type": "llm",
            "mode": self.mode,
            "completion_params": dict(self.completion_params),
            "type": "model-selector",
            "history_prompt_messages": history,
            "entity": self.entity_dict() if self.entity else None,
        }

    def entity_dict(self) -> dict[str, Any]:
        """``AIModelEntity.model_dump(mode="json")`` for this model."""
        return {
            "model": self.model,
            "label": i18n(self.model),
            "model_type": "llm",
            "features": list(self.features),
            "fetch_from": "predefined-model",
            "model_properties": {"mode": self.mode, "context_size": self.context_size},
            "deprecated": False,
            "parameter_rules": self.parameter_rules
            if self.parameter_rules is not None
            else default_parameter_rules(self.context_size),
            "pricing": self.pricing,
        }


def default_parameter_rules(context_size: int) -> list[dict[str, Any]]:
    """``temperature``, ``top_p`` and ``max_tokens`` rules as model plugins declare them."""

    def rule(name: str, *, kind: str, default: float, low: float, high: float, precision: int) -> dict[str, Any]:
        return {
            "name": name,
            "use_template": name,
            "label": i18n(name),
            "type": kind,
            "help": None,
            "required": False,
            "default": default,
            "min": low,
            "max": high,
            "precision": precision,
            "options": [],
        }

    return [
        rule("temperature", kind="float", default=0.7, low=0.0, high=2.0, precision=2),
        rule("top_p", kind="float", default=1.0, low=0.0, high=1.0, precision=2),
        rule("max_tokens", kind="int", default=1024, low=1, high=context_size, precision=0),
    ]


def history_message(message: dict[str, Any]) -> dict[str, Any]:
    """A history entry as Dify dumps a ``PromptMessage``. Assistant ``tool_calls`` may be
    given short (``{id, name, arguments}``) or complete (``{id, type, function}``)."""
    role = message["role"]
    out: dict[str, Any] = {"role": role, "content": message.get("content"), "name": message.get("name")}
    if role == "assistant":
        out["tool_calls"] = [
            call if "function" in call else tool_call(call.get("id", ""), call["name"], call.get("arguments", {}))
            for call in message.get("tool_calls") or []
        ]
    if role == "tool":
        out["tool_call_id"] = message.get("tool_call_id", "")
    return out


@dataclass
class Scenario:
    """One agent run as a Dify Agent node would configure it (file format in the module doc)."""

    query: str
    strategy: str = "function_calling"
    instruction: str = ""
    tools: list[str | dict[str, Any]] = field(default_factory=list)
    model: ModelSettings = field(default_factory=ModelSettings)
    maximum_iterations: int = 5
    tool_timeout: float | None = None
    history: list[dict[str, Any]] = field(default_factory=list)
    context: list[dict[str, Any]] | None = None
    files: list[str | dict[str, Any]] | None = None
    params: dict[str, Any] = field(default_factory=dict)
    script: str | list[Any] | dict[str, Any] | None = None
    name: str = ""
    base_dir: Path = field(default_factory=Path.cwd)

    @classmethod
    def load(cls, path: str | Path) -> Scenario:
        """Read a scenario YAML file; relative paths in it resolve against its folder."""
        path = Path(path)
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        if not isinstance(data, dict):
            raise ValueError(f"{path}: a scenario must be a mapping")
        data.setdefault("name", path.stem)
        return cls.from_dict(data, base_dir=path.parent)

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, base_dir: Path | None = None) -> Scenario:
        """Build from a scenario mapping (unknown keys are an error)."""
        data = dict(data)
        unknown = set(data) - (set(cls.__dataclass_fields__) - {"base_dir"})
        if unknown:
            raise ValueError(f"unknown scenario keys {sorted(unknown)}")
        if "query" not in data:
            raise ValueError("a scenario needs a 'query'")
        data["model"] = ModelSettings.from_dict(data.get("model"))
        return cls(**data, base_dir=base_dir or Path.cwd())

    def tool_names(self) -> list[str]:
        """Names of the tools the node offers."""
        return [tool if isinstance(tool, str) else tool["name"] for tool in self.tools]

    def tool_entities(self, toolbox: ToolBox) -> list[dict[str, Any]]:
        """The ``tools`` parameter: the toolbox's entities, with per-scenario overrides
        (``runtime_parameters``, ``description`` -> ``description.llm``)."""
        entities = []
        for tool in self.tools:
            settings = {"name": tool} if isinstance(tool, str) else tool
            entity = toolbox.get(settings["name"]).entity()
            entity["runtime_parameters"].update(settings.get("runtime_parameters") or {})
            if settings.get("description"):
                entity["description"]["llm"] = settings["description"]
            entities.append(entity)
        return entities

    def agent_params(self, toolbox: ToolBox, files: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """``agent_strategy_params`` before declared defaults are applied; ``files`` are the
        completed file dicts (see ``resolve_files``)."""
        params: dict[str, Any] = {
            "model": self.model.selector([history_message(m) for m in self.history]),
            "tools": self.tool_entities(toolbox),
            "instruction": self.instruction,
            "query": self.query,
            "context": self.context,
            "files": files,
            "maximum_iterations": self.maximum_iterations,
        }
        if self.tool_timeout is not None:
            params["tool_timeout"] = self.tool_timeout
        params.update(self.params)
        return params

    def resolve_files(self, server: FileServer | None) -> list[dict[str, Any]] | None:
        """Complete file dicts: URLs as given, local paths served by ``server``."""
        if self.files is None:
            return None
        resolved = []
        for entry in self.files:
            if isinstance(entry, dict):
                resolved.append(file_param(entry))
            elif server is None:
                raise ValueError("local files need a FileServer")
            else:
                resolved.append(server.add(self.base_dir / entry))
        return resolved

    def needs_file_server(self) -> bool:
        """True if some file is a local path."""
        return any(isinstance(entry, str) for entry in self.files or [])

    def scripted_backend(self) -> ScriptedBackend:
        """A ``ScriptedBackend`` playing ``script``, priced like the scenario's model."""
        if self.script is None:
            raise ValueError(f"scenario {self.name or self.query[:30]!r} has no 'script' of model turns")
        source = self.base_dir / self.script if isinstance(self.script, str) else self.script
        turns, pricing = load_turns(source)
        return ScriptedBackend(turns, pricing=Pricing.from_dict(pricing or self.model.pricing))

    def run_request(self, toolbox: ToolBox, plugin_dir: Path, files: list[dict[str, Any]] | None) -> RunRequest:
        """The ``RunRequest``: parameters completed like Dify's Agent node does from the
        strategy's declaration in ``plugin_dir``, and the tool credentials."""
        params = apply_declaration(self.agent_params(toolbox, files), strategy_declaration(plugin_dir, self.strategy))
        return RunRequest(
            strategy=self.strategy, params=params, tool_credentials=toolbox.credentials(self.tool_names())
        )


def strategy_declaration(plugin_dir: Path, strategy: str) -> list[dict[str, Any]] | None:
    """The declared ``parameters`` of ``strategy`` (manifest -> provider YAMLs -> strategy
    YAMLs), or ``None`` if the plugin does not declare it."""
    manifest = yaml.safe_load((plugin_dir / "manifest.yaml").read_text(encoding="utf-8")) or {}
    for provider_path in (manifest.get("plugins") or {}).get("agent_strategies") or []:
        provider = yaml.safe_load((plugin_dir / provider_path).read_text(encoding="utf-8")) or {}
        for strategy_path in provider.get("strategies") or []:
            with contextlib.suppress(FileNotFoundError):
                declared = yaml.safe_load((plugin_dir / strategy_path).read_text(encoding="utf-8")) or {}
                if (declared.get("identity") or {}).get("name") == strategy:
                    return list(declared.get("parameters") or [])
    return None


def apply_declaration(params: dict[str, Any], declaration: list[dict[str, Any]] | None) -> dict[str, Any]:
    """Dify's ``init_frontend_parameter`` on every declared parameter: empty -> declared
    ``default``; ``string``/``select`` -> str (None -> ""); ``number`` -> int/float.
    Undeclared parameters pass through unchanged."""
    params = dict(params)
    for declared in declaration or []:
        name, kind = declared["name"], declared.get("type")
        value = params.get(name)
        if value in (None, "") and declared.get("default") is not None:
            value = declared["default"]
        if kind in ("string", "select", "secret-input"):
            value = "" if value is None else str(value)
        elif kind == "number" and isinstance(value, str) and value.strip():
            value = float(value) if "." in value else int(value)
        params[name] = value
    return params


def run_scenario(
    scenario: Scenario,
    backend: Any = None,
    toolbox: ToolBox | None = None,
    *,
    plugin_dir: str | Path = DEFAULT_PLUGIN_DIR,
    strategy: str | None = None,
    plugin: PluginProcess | None = None,
    on_update: UpdateCallback | None = None,
    timeout: float = RUN_TIMEOUT,
) -> RunResult:
    """Run ``scenario`` once and return what the plugin produced.

    ``backend`` (an ``LLMBackend``) defaults to the scenario's script; ``toolbox`` to the
    built-in tools; ``strategy`` overrides the scenario's. Uses ``plugin`` (a started
    ``PluginProcess``) if given, else starts one in ``plugin_dir`` for this run only."""
    if strategy:
        scenario = replace(scenario, strategy=strategy)
    toolbox = toolbox or default_toolbox()
    backend = backend or scenario.scripted_backend()
    with contextlib.ExitStack() as stack:
        process = plugin or stack.enter_context(PluginProcess(plugin_dir))
        server = stack.enter_context(FileServer()) if scenario.needs_file_server() else None
        request = scenario.run_request(toolbox, process.plugin_dir, scenario.resolve_files(server))
        return process.run(request, backend, toolbox, on_update=on_update, timeout=timeout)
