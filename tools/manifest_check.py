"""Check a Dify agent-strategy plugin folder against the daemon's and the SDK's rules.

Usage::

    python -m tools.manifest_check [plugin_dir]     # exit 1 when there are problems

``check_plugin(plugin_dir) -> list[Problem]`` runs, in order:

1. ``manifest.yaml`` rules (docs/protocol-notes.md §6; daemon ``plugin_declaration.go``);
2. every agent-strategy provider YAML the manifest lists, and every strategy YAML those
   providers list (daemon ``agent_declaration.go``, ``tool_declaration.go``, ``config.go``);
3. our own, stricter rules: lower-case author, all four UI languages (en_US, zh_Hans,
   ja_JP, pt_BR) on every label/description/help, a privacy policy, a README, a
   ``meta.minimum_dify_version`` no lower than what the pinned ``dify-plugin`` and the
   manifest's features need (``SDK_MINIMUM_DIFY``, ``FEATURE_MINIMUM_DIFY``; docs/packaging.md);
4. the SDK's own pydantic models (``PluginConfiguration``,
   ``AgentStrategyProviderConfiguration``), i.e. what ``python -m main`` does at start;
5. the packaged Markdown files (what ``tools.package`` would ship, the user's README as
   ``README.md``): every relative link and image names a packaged file, and the README's
   images are under ``_assets/`` (the only images Dify's plugin page shows).

A ``Problem`` is ``(file, path, message)``: ``file`` relative to the plugin root
(``"strategies/react.yaml"``), ``path`` a dotted location inside it
(``"parameters[3].default"``; ``""`` for the file as a whole).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import posixpath
import re
import sys
import threading
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from packaging.version import InvalidVersion, Version

# --------------------------------------------------------------------------- constants

LOCALES = ("en_US", "zh_Hans", "ja_JP", "pt_BR")
VERSION_RE = re.compile(r"^\d{1,4}(\.\d{1,4}){2}(-\w{1,16})?$", re.ASCII)
AUTHOR_RE = re.compile(r"^[a-z0-9_-]{1,64}$")
PLUGIN_NAME_RE = re.compile(r"^[a-z0-9_-]{1,128}$")
IDENTITY_NAME_RE = re.compile(r"^[a-zA-Z0-9_-]+$")
UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
RFC3339_RE = re.compile(
    r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$"
)
URL_RE = re.compile(r"^https?://[^\s/$.?#][^\s]*$")

PLUGIN_TAGS = frozenset(
    ["search", "image", "videos", "weather", "finance", "design", "travel", "social", "news", "medical", "productivity", "education", "business", "entertainment", "utilities", "agent", "rag", "other", "trigger"]
)
# The SDK's ToolLabelEnum (provider identity.tags) lacks "agent" and "trigger".
PROVIDER_TAGS = PLUGIN_TAGS - {"agent", "trigger"}
ARCHES = frozenset({"amd64", "arm64"})
RUNNER_VERSION = "3.12"
MIN_META_VERSION = Version("0.0.1")  # meta.version must be greater (unlocks MCP tools)
MAX_REF_LEN = 128  # icon and plugins.* paths in the manifest
FORBIDDEN_EXTENSIONS = ("tools", "models", "endpoints", "datasources", "triggers")
MANIFEST_KEYS = frozenset(
    ["version", "type", "author", "name", "repo", "label", "description", "icon", "icon_dark", "created_at", "resource", "plugins", "meta", "tags", "privacy"]
)

PARAMETER_TYPES = frozenset(
    ["string", "number", "boolean", "select", "secret-input", "file", "files", "app-selector", "model-selector", "array[tools]", "any"]
)
FEATURES = frozenset({"history-messages"})
SCOPES: dict[str, frozenset[str]] = {  # daemon config.go: only these types take a scope
    "model-selector": frozenset(
        ["llm", "text-embedding", "rerank", "tts", "speech2text", "moderation", "vision", "document", "tool-call"]
    ),
    "app-selector": frozenset(["all", "chat", "workflow", "completion"]),
    "any": frozenset(
        ["string", "number", "object", "array[number]", "array[string]", "array[object]", "array[file]"]
    ),
}
REQUIRED_FILES = ("README.md", "requirements.txt")

SDK_MINIMUM_DIFY: tuple[tuple[str, str], ...] = (
    ("0.2.0", "1.2.0"),
    ("0.3.1", "1.4.0"),
    ("0.4.0", "1.5.1"),
    ("0.4.1", "1.6.0"),
    ("0.4.2", "1.7.0"),
    ("0.4.4", "1.8.1"),
    ("0.5.0", "1.9.0"),
    ("0.6.0", "1.10.0"),
    ("0.7.0", "1.11.0"),
    ("0.8.1", "1.14.0"),
    ("0.9.0", "1.14.2"),
)
"""``(dify-plugin version, minimum Dify version)``: the "Meta.MinimumDifyVersion Reference" table
of the dify-plugin README (as shipped with dify-plugin 0.10.2). A plugin built on an SDK at or
above a row declares at least that row's Dify version."""
FEATURE_MINIMUM_DIFY: dict[str, str] = {"icon_dark": "1.6.0"}
"""Manifest keys and the Dify release that first reads them (same table: dark icon, SDK 0.4.1)."""
_SDK_PIN = re.compile(r"(?im)^\s*dify[-_]plugin\s*(?:\[[^\]]*\])?\s*(?:==|>=|~=|===)\s*([0-9][0-9a-z.]*)")


# --------------------------------------------------------------------------- problems


@dataclass(frozen=True)
class Problem:
    """One rule violation.

    Attributes:
        file: path relative to the plugin root, e.g. ``"manifest.yaml"``.
        path: dotted location in that file, e.g. ``"meta.arch[0]"``; ``""`` = whole file.
        message: what is wrong, in words a maintainer can act on.
    """

    file: str
    path: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.path}" if self.path else self.file
        return f"{where}: {self.message}"


@dataclass
class _Reporter:
    """Collects problems for one file (``file`` relative to ``root``)."""

    root: Path
    file: str
    problems: list[Problem] = field(default_factory=list)

    def add(self, path: str, message: str) -> None:
        self.problems.append(Problem(self.file, path, message))

    def for_file(self, file: str) -> _Reporter:
        """A reporter for another file that shares this one's problem list."""
        return _Reporter(self.root, file, self.problems)


def _one_line(text: str) -> str:
    """Collapse whitespace and drop pydantic's ``[type=…]`` and "further information" noise."""
    text = re.sub(r"\s*\[type=[^\]]*\]|\s*For further information visit \S+", "", text)
    return " ".join(text.split())


def _join(path: str, key: str | int) -> str:
    """``_join("meta", "arch") -> "meta.arch"``; ``_join("a", 0) -> "a[0]"``."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _get(data: Any, dotted: str) -> Any:
    """``_get({"a": {"b": 1}}, "a.b") -> 1``; ``None`` if any step is missing."""
    for key in dotted.split("."):
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


# --------------------------------------------------------------------------- files


def _inside(root: Path, rel: str) -> Path | None:
    """``root/rel`` if ``rel`` is a relative POSIX path that stays inside ``root``."""
    if not rel or rel.startswith("/") or "\\" in rel or re.match(r"^[A-Za-z]:", rel):
        return None
    target = (root / rel).resolve()
    return target if target.is_relative_to(root.resolve()) else None


def _check_file_ref(
    rep: _Reporter, rel: Any, path: str, *, base: str = "", suffixes: Sequence[str] = ()
) -> Path | None:
    """Check that ``rel`` names an existing file under ``root/base``; return it or None."""
    if not isinstance(rel, str) or not rel.strip():
        rep.add(path, "must be a non-empty relative path")
        return None
    full = _inside(rep.root, f"{base}/{rel}" if base else rel)
    shown = f"{base}/{rel}" if base else rel
    if full is None:
        rep.add(path, f"{rel!r} must be a relative path inside the plugin folder")
        return None
    if not full.is_file():
        rep.add(path, f"file {shown} does not exist")
        return None
    if suffixes and full.suffix not in suffixes:
        rep.add(path, f"{rel!r} should end with {' or '.join(suffixes)}")
    return full


def _load_yaml(rep: _Reporter) -> dict[str, Any] | None:
    """Parse ``rep.file`` as a YAML mapping; report and return None on failure."""
    full = _inside(rep.root, rep.file)
    if full is None or not full.is_file():
        rep.add("", "file does not exist")
        return None
    try:
        data = yaml.safe_load(full.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        rep.add("", f"not valid YAML: {_one_line(str(exc))}")
        return None
    if not isinstance(data, dict):
        rep.add("", "must be a YAML mapping")
        return None
    return data


# --------------------------------------------------------------------------- shared rules


def _check_i18n(rep: _Reporter, obj: Any, key: str, path: str, *, required: bool = True) -> None:
    """``obj[key]`` must map each of LOCALES to non-empty text (and nothing else)."""
    where = _join(path, key)
    value = obj.get(key) if isinstance(obj, dict) else None
    if value is None:
        if required:
            rep.add(where, f"missing; needs {', '.join(LOCALES)}")
        return
    if not isinstance(value, dict):
        rep.add(where, "must be a mapping of locale to text")
        return
    for locale in LOCALES:
        text = value.get(locale)
        if not isinstance(text, str) or not text.strip():
            rep.add(_join(where, locale), "missing or empty translation")
    for extra in sorted(set(value) - set(LOCALES), key=str):
        rep.add(_join(where, str(extra)), f"unknown locale (use {', '.join(LOCALES)})")


def _check_asset(rep: _Reporter, value: Any, path: str, *, required: bool = True) -> None:
    """An icon file name (≤128 chars) that exists in ``_assets/``; SVGs must parse."""
    if value is None and not required:
        return
    if isinstance(value, str) and len(value) > MAX_REF_LEN:
        rep.add(path, f"longer than {MAX_REF_LEN} characters")
    full = _check_file_ref(rep, value, path, base="_assets", suffixes=(".svg", ".png", ".jpg", ".jpeg", ".webp"))
    if full is not None and full.suffix == ".svg":
        _check_svg(rep, full, path)


def _check_svg(rep: _Reporter, full: Path, path: str) -> None:
    try:
        tag = ET.parse(full).getroot().tag
    except ET.ParseError as exc:
        rep.add(path, f"{full.name} is not well-formed SVG: {exc}")
        return
    if not tag.endswith("svg"):
        rep.add(path, f"{full.name}: root element is <{tag}>, not <svg>")


def _check_identity_name(rep: _Reporter, obj: Any, path: str) -> None:
    name = _get(obj, "name")
    if not isinstance(name, str) or not IDENTITY_NAME_RE.match(name):
        rep.add(_join(path, "name"), f"{name!r} must match {IDENTITY_NAME_RE.pattern}")


def _check_identity_author(rep: _Reporter, obj: Any, path: str) -> None:
    author = _get(obj, "author")
    if not isinstance(author, str) or not AUTHOR_RE.match(author):
        rep.add(_join(path, "author"), f"{author!r} must match {AUTHOR_RE.pattern}")


def _check_tags(rep: _Reporter, tags: Any, path: str, allowed: frozenset[str] = PLUGIN_TAGS) -> None:
    if tags is None:
        return
    if not isinstance(tags, list):
        rep.add(path, "must be a list")
        return
    for index, tag in enumerate(tags):
        if tag not in allowed:
            rep.add(_join(path, index), f"{tag!r} is not one of {', '.join(sorted(allowed))}")
    if len(set(map(str, tags))) != len(tags):
        rep.add(path, "duplicate tags")


def _check_python_source(rep: _Reporter, data: dict[str, Any]) -> None:
    _check_file_ref(rep, _get(data, "extra.python.source"), "extra.python.source", suffixes=(".py",))


def _check_version_string(rep: _Reporter, value: Any, path: str) -> Version | None:
    """Daemon regex and PEP 440; returns the parsed version."""
    if not isinstance(value, str) or not VERSION_RE.match(value):
        rep.add(path, f"{value!r} must match {VERSION_RE.pattern} (and be quoted if YAML misreads it)")
        return None
    try:
        return Version(value)
    except InvalidVersion:
        rep.add(path, f"{value!r} is not a PEP 440 version (the SDK rejects it)")
        return None


# --------------------------------------------------------------------------- manifest


def _m_keys(rep: _Reporter, data: dict[str, Any]) -> None:
    for key in sorted(set(data) - MANIFEST_KEYS, key=str):
        rep.add(str(key), "unknown manifest key (typo?)")


def _m_version(rep: _Reporter, data: dict[str, Any]) -> None:
    _check_version_string(rep, data.get("version"), "version")
    if data.get("type") != "plugin":
        rep.add("type", f"{data.get('type')!r} must be 'plugin'")


def _m_owner(rep: _Reporter, data: dict[str, Any]) -> None:
    _check_identity_author(rep, data, "")
    if isinstance(data.get("author"), str) and UUID_RE.match(data["author"]):
        rep.add("author", "must not be a UUID")
    name = data.get("name")
    if not isinstance(name, str) or not PLUGIN_NAME_RE.match(name):
        rep.add("name", f"{name!r} must match {PLUGIN_NAME_RE.pattern}")


def _m_texts(rep: _Reporter, data: dict[str, Any]) -> None:
    _check_i18n(rep, data, "label", "")
    _check_i18n(rep, data, "description", "")


def _m_icons(rep: _Reporter, data: dict[str, Any]) -> None:
    _check_asset(rep, data.get("icon"), "icon")
    _check_asset(rep, data.get("icon_dark"), "icon_dark", required=False)


def _m_created_at(rep: _Reporter, data: dict[str, Any]) -> None:
    value = data.get("created_at")
    if isinstance(value, datetime.datetime) and value.tzinfo is not None:
        return  # an unquoted YAML timestamp with a zone is RFC 3339 too
    if not isinstance(value, str) or not RFC3339_RE.match(value):
        rep.add("created_at", f"{value!r} must be an RFC 3339 timestamp, e.g. '2026-01-31T00:00:00Z'")
        return
    try:
        datetime.datetime.fromisoformat(value.replace("z", "Z"))
    except ValueError as exc:
        rep.add("created_at", f"{value!r}: {exc}")


def _m_resource(rep: _Reporter, data: dict[str, Any]) -> None:
    memory = _get(data, "resource.memory")
    if isinstance(memory, bool) or not isinstance(memory, int) or memory <= 0:
        rep.add("resource.memory", f"{memory!r} must be a positive integer (bytes)")
    for flag in ("tool.enabled", "model.enabled", "model.llm"):
        if _get(data, f"resource.permission.{flag}") is not True:
            rep.add(f"resource.permission.{flag}", "must be true: agent strategies call models and tools")
    size = _get(data, "resource.permission.storage.size")
    if size is not None and not (isinstance(size, int) and 1024 <= size <= 1073741824):
        rep.add("resource.permission.storage.size", "must be an integer in 1024…1073741824")


def _m_plugins(rep: _Reporter, data: dict[str, Any]) -> None:
    plugins = data.get("plugins")
    if not isinstance(plugins, dict):
        rep.add("plugins", "missing")
        return
    for kind in FORBIDDEN_EXTENSIONS:
        if plugins.get(kind):
            rep.add(f"plugins.{kind}", "an agent-strategy plugin may not declare other extensions")
    paths = plugins.get("agent_strategies")
    if not isinstance(paths, list) or not paths:
        rep.add("plugins.agent_strategies", "must list at least one provider YAML")
        return
    for index, rel in enumerate(paths):
        where = f"plugins.agent_strategies[{index}]"
        if isinstance(rel, str) and len(rel) > MAX_REF_LEN:
            rep.add(where, f"longer than {MAX_REF_LEN} characters")
        _check_file_ref(rep, rel, where, suffixes=(".yaml", ".yml"))


def _m_meta(rep: _Reporter, data: dict[str, Any]) -> None:
    version = _check_version_string(rep, _get(data, "meta.version"), "meta.version")
    if version is not None and version <= MIN_META_VERSION:
        rep.add("meta.version", f"must be greater than {MIN_META_VERSION} (Dify drops MCP tools otherwise)")
    arch = _get(data, "meta.arch")
    if not isinstance(arch, list) or not arch or not set(map(str, arch)) <= ARCHES:
        rep.add("meta.arch", f"{arch!r} must be a non-empty subset of {sorted(ARCHES)}")
    _m_runner(rep, data)
    dify = _get(data, "meta.minimum_dify_version")
    if dify is None:
        rep.add("meta.minimum_dify_version", "missing")
        return
    declared = _check_version_string(rep, dify, "meta.minimum_dify_version")
    needed = required_dify_version(rep.root, data)
    if declared is not None and needed is not None and declared < needed[0]:
        rep.add("meta.minimum_dify_version", f"{dify} is below {needed[0]}: {needed[1]}")


def sdk_floor(requirements: str) -> Version | None:
    """The lowest dify-plugin version ``requirements`` allows (``==``, ``>=``, ``~=``), if pinned."""
    match = _SDK_PIN.search(requirements)
    try:
        return Version(match.group(1)) if match else None
    except InvalidVersion:
        return None


def required_dify_version(root: Path, manifest: dict[str, Any]) -> tuple[Version, str] | None:
    """The lowest Dify release that runs the plugin as its files say, and why: the SDK table's row
    for the dify-plugin floor of ``requirements.txt``, or a manifest feature, whichever is higher."""
    found: list[tuple[Version, str]] = []
    requirements = root / "requirements.txt"
    floor = sdk_floor(requirements.read_text(encoding="utf-8")) if requirements.is_file() else None
    if floor is not None:
        rows = [(Version(dify), sdk) for sdk, dify in SDK_MINIMUM_DIFY if Version(sdk) <= floor]
        if rows:
            dify, sdk = max(rows)
            found.append((dify, f"dify-plugin {floor} needs Dify {dify} (the SDK's table: {sdk} and later)"))
    for key, version in FEATURE_MINIMUM_DIFY.items():
        if manifest.get(key):
            found.append((Version(version), f"the manifest's {key} needs Dify {version}"))
    return max(found, key=lambda item: item[0]) if found else None


def _m_runner(rep: _Reporter, data: dict[str, Any]) -> None:
    if _get(data, "meta.runner.language") != "python":
        rep.add("meta.runner.language", "must be 'python'")
    runner_version = _get(data, "meta.runner.version")
    if runner_version != RUNNER_VERSION:
        rep.add("meta.runner.version", f"{runner_version!r} must be the string {RUNNER_VERSION!r} (quote it)")
    entry = _get(data, "meta.runner.entrypoint")
    if not isinstance(entry, str) or not entry or entry.endswith(".py"):
        rep.add("meta.runner.entrypoint", f"{entry!r} must be a module name such as 'main'")
        return
    _check_file_ref(rep, entry.replace(".", "/") + ".py", "meta.runner.entrypoint")


def _m_tags(rep: _Reporter, data: dict[str, Any]) -> None:
    _check_tags(rep, data.get("tags"), "tags")


def _m_marketplace(rep: _Reporter, data: dict[str, Any]) -> None:
    """Marketplace listing: a non-empty privacy policy, a README, requirements, a repo URL if given."""
    privacy = data.get("privacy")
    if privacy is None:
        rep.add("privacy", "missing: the Marketplace requires a privacy policy (e.g. PRIVACY.md)")
    elif not (isinstance(privacy, str) and URL_RE.match(privacy)):
        full = _check_file_ref(rep, privacy, "privacy", suffixes=(".md",))
        if full is not None and not full.read_text(encoding="utf-8").strip():
            rep.add("privacy", f"{privacy} is empty")
    repo = data.get("repo")
    if repo is not None and not (isinstance(repo, str) and URL_RE.match(repo)):
        rep.add("repo", f"{repo!r} must be an http(s) URL")
    for rel in REQUIRED_FILES:
        full = rep.root / rel
        if not full.is_file() or not full.read_text(encoding="utf-8").strip():
            rep.for_file(rel).add("", "required file is missing or empty")
    _check_requirements(rep.for_file("requirements.txt"))


def _check_requirements(rep: _Reporter) -> None:
    full = rep.root / "requirements.txt"
    if full.is_file() and not re.search(r"(?im)^\s*dify[-_]plugin\b", full.read_text(encoding="utf-8")):
        rep.add("", "must require dify-plugin (the daemon installs only this file)")


MANIFEST_RULES: tuple[Callable[[_Reporter, dict[str, Any]], None], ...] = (
    _m_keys, _m_version, _m_owner, _m_texts, _m_icons, _m_created_at,
    _m_resource, _m_plugins, _m_meta, _m_tags, _m_marketplace,
)


# --------------------------------------------------------------------------- provider


def _check_provider(rep: _Reporter, data: dict[str, Any]) -> list[str]:
    """Provider YAML rules; returns the strategy paths that exist, for the next step."""
    identity = data.get("identity")
    if not isinstance(identity, dict):
        rep.add("identity", "missing")
        identity = {}
    _check_identity_author(rep, identity, "identity")
    _check_identity_name(rep, identity, "identity")
    _check_i18n(rep, identity, "label", "identity")
    _check_i18n(rep, identity, "description", "identity")
    _check_asset(rep, identity.get("icon"), "identity.icon")
    _check_asset(rep, identity.get("icon_dark"), "identity.icon_dark", required=False)
    _check_tags(rep, identity.get("tags"), "identity.tags", PROVIDER_TAGS)
    _check_python_source(rep, data)
    return _provider_strategy_paths(rep, data.get("strategies"))


def _provider_strategy_paths(rep: _Reporter, paths: Any) -> list[str]:
    if not isinstance(paths, list) or not paths:
        rep.add("strategies", "must list at least one strategy YAML")
        return []
    found: list[str] = []
    for index, rel in enumerate(paths):
        if rel in found:
            rep.add(f"strategies[{index}]", f"{rel} is listed twice")
        elif _check_file_ref(rep, rel, f"strategies[{index}]", suffixes=(".yaml", ".yml")):
            found.append(rel)
    return found


# --------------------------------------------------------------------------- strategy


def _check_strategy(rep: _Reporter, data: dict[str, Any]) -> str | None:
    """Strategy YAML rules; returns the strategy's identity name (None if unusable)."""
    identity = data.get("identity")
    if not isinstance(identity, dict):
        rep.add("identity", "missing")
        identity = {}
    _check_identity_author(rep, identity, "identity")
    _check_identity_name(rep, identity, "identity")
    _check_i18n(rep, identity, "label", "identity")
    _check_i18n(rep, data, "description", "")
    _check_features(rep, data.get("features"))
    _check_parameters(rep, data.get("parameters"))
    _check_python_source(rep, data)
    name = identity.get("name")
    return name if isinstance(name, str) else None


def _check_features(rep: _Reporter, features: Any) -> None:
    if features is None:
        return
    if not isinstance(features, list):
        rep.add("features", "must be a list")
        return
    for index, feature in enumerate(features):
        if feature not in FEATURES:
            rep.add(f"features[{index}]", f"{feature!r} is not one of {sorted(FEATURES)}")


def _check_parameters(rep: _Reporter, params: Any) -> None:
    if params is None:
        return
    if not isinstance(params, list):
        rep.add("parameters", "must be a list")
        return
    seen: set[str] = set()
    for index, param in enumerate(params):
        path = f"parameters[{index}]"
        if not isinstance(param, dict):
            rep.add(path, "must be a mapping")
            continue
        name = param.get("name")
        if name in seen:
            rep.add(_join(path, "name"), f"duplicate parameter name {name!r}")
        seen.add(name)
        _check_parameter(rep, param, path)


def _check_parameter(rep: _Reporter, param: dict[str, Any], path: str) -> None:
    name, kind = param.get("name"), param.get("type")
    if not isinstance(name, str) or not name.strip() or len(name) >= 1024:
        rep.add(_join(path, "name"), "must be a non-empty string")
    if kind not in PARAMETER_TYPES:
        rep.add(_join(path, "type"), f"{kind!r} is not one of {', '.join(sorted(PARAMETER_TYPES))}")
    _check_i18n(rep, param, "label", path)
    _check_i18n(rep, param, "help", path, required=False)
    _check_i18n(rep, param, "placeholder", path, required=False)
    if "required" in param and not isinstance(param["required"], bool):
        rep.add(_join(path, "required"), "must be true or false")
    _check_scope(rep, param, path)
    _check_default(rep, param, path)
    _check_options(rep, param, path)
    _check_generation(rep, param, path)


def _check_scope(rep: _Reporter, param: dict[str, Any], path: str) -> None:
    scope, kind = param.get("scope"), param.get("type")
    if scope is None or kind not in PARAMETER_TYPES:
        return
    allowed = SCOPES.get(kind)
    if allowed is None:
        rep.add(_join(path, "scope"), f"type {kind!r} takes no scope (only {', '.join(SCOPES)})")
        return
    parts = [part.strip() for part in str(scope).split("&")]
    bad = [part for part in parts if part not in allowed]
    if bad:
        rep.add(_join(path, "scope"), f"{', '.join(bad)} not in {', '.join(sorted(allowed))}")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _check_default(rep: _Reporter, param: dict[str, Any], path: str) -> None:
    default, kind = param.get("default"), param.get("type")
    if default is not None and not isinstance(default, str | int | float | bool):
        rep.add(_join(path, "default"), "must be a string, number or boolean")
    if kind == "boolean" and default is not None and not isinstance(default, bool):
        rep.add(_join(path, "default"), "must be true or false")
    if kind == "number":
        _check_number_range(rep, param, path)


def _check_number_range(rep: _Reporter, param: dict[str, Any], path: str) -> None:
    """``min <= default <= max`` for whichever of the three are present."""
    bounds = {key: param.get(key) for key in ("min", "default", "max")}
    for key, value in bounds.items():
        if value is not None and not _is_number(value):
            rep.add(_join(path, key), f"{value!r} must be a number")
            return
    low, default, high = bounds["min"], bounds["default"], bounds["max"]
    if low is not None and high is not None and low > high:
        rep.add(_join(path, "min"), f"min {low} is greater than max {high}")
    if default is not None and low is not None and default < low:
        rep.add(_join(path, "default"), f"default {default} is below min {low}")
    if default is not None and high is not None and default > high:
        rep.add(_join(path, "default"), f"default {default} is above max {high}")


def _check_options(rep: _Reporter, param: dict[str, Any], path: str) -> None:
    options = param.get("options")
    if param.get("type") == "select" and not options:
        rep.add(_join(path, "options"), "a select parameter needs options")
        return
    if options is None:
        return
    if not isinstance(options, list):
        rep.add(_join(path, "options"), "must be a list")
        return
    values = [_option_value(rep, option, f"{path}.options[{i}]") for i, option in enumerate(options)]
    if len(set(values)) != len(values):
        rep.add(_join(path, "options"), "duplicate option values")
    default = param.get("default")
    if param.get("type") == "select" and default is not None and str(default) not in values:
        rep.add(_join(path, "default"), f"{default!r} is not one of the option values")


def _option_value(rep: _Reporter, option: Any, path: str) -> str:
    if not isinstance(option, dict) or not isinstance(option.get("value"), str | int | float):
        rep.add(path, "needs a value")
        return f"<invalid {path}>"
    _check_i18n(rep, option, "label", path)
    return str(option["value"])


def _check_generation(rep: _Reporter, param: dict[str, Any], path: str) -> None:
    auto = param.get("auto_generate")
    if auto is not None and _get(auto, "type") != "prompt_instruction":
        rep.add(_join(path, "auto_generate.type"), "must be 'prompt_instruction'")
    template = param.get("template")
    if template is not None and not isinstance(_get(template, "enabled"), bool):
        rep.add(_join(path, "template.enabled"), "must be true or false")


# --------------------------------------------------------------------------- SDK models

_CWD_LOCK = threading.Lock()


@contextlib.contextmanager
def _working_directory(path: Path) -> Iterator[None]:
    """chdir for the duration (the SDK resolves strategy files against the cwd)."""
    with _CWD_LOCK, contextlib.chdir(path):
        yield


def _report_validation(rep: _Reporter, model: str, exc: Exception, only: str | None = None) -> None:
    """Turn an SDK failure into problems; ``only`` keeps errors under that top-level field
    and reports them against the file as a whole (used for strategy files)."""
    from pydantic import ValidationError

    if not isinstance(exc, ValidationError):
        rep.add("", f"SDK {model}: {_one_line(str(exc))}")
        return
    for error in exc.errors():
        if only is not None and error["loc"][:1] != (only,):
            continue
        where = "" if only else ".".join(str(part) for part in error["loc"])
        rep.add(where, f"SDK {model}: {_one_line(str(error['msg']))}")


def _sdk_manifest(rep: _Reporter, data: dict[str, Any]) -> None:
    """Validate with ``PluginConfiguration``, as ``PluginRegistration`` does at start."""
    from dify_plugin.core.entities.plugin.setup import PluginConfiguration

    try:
        PluginConfiguration(**data)
    except Exception as exc:
        _report_validation(rep, "PluginConfiguration", exc)


def _sdk_provider(rep: _Reporter, data: dict[str, Any], strategies: Sequence[str]) -> None:
    """Validate with ``AgentStrategyProviderConfiguration`` from the plugin root.

    The provider is validated without its strategies, then once per strategy file, so
    that an error inside a strategy is reported against that strategy's file.
    """
    _sdk_provider_run(rep, {**data, "strategies": []})
    for rel in strategies:
        _sdk_provider_run(rep.for_file(rel), {"identity": data.get("identity"), "strategies": [rel]}, only="strategies")


def _sdk_provider_run(rep: _Reporter, data: dict[str, Any], only: str | None = None) -> None:
    from dify_plugin.entities.agent import AgentStrategyProviderConfiguration

    try:
        with _working_directory(rep.root):
            AgentStrategyProviderConfiguration(**data)
    except Exception as exc:
        _report_validation(rep, "AgentStrategyProviderConfiguration", exc, only)


# --------------------------------------------------------------------------- driver


_INLINE_LINK = re.compile(r"(!?)\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'(][^)]*)?\s*\)")
_REFERENCE_DEF = re.compile(r"(?m)^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+[\"'(].*)?$")
_HTML_REF = re.compile(r"""<(img|a|source)\b[^>]*?\s(?:src|href)\s*=\s*["']([^"']+)["']""", re.I)
_FENCED = re.compile(r"(?ms)^ {0,3}(`{3,}|~{3,}).*?^ {0,3}\1[ \t]*$")
_CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.S)
IMAGE_DIRS = ("_assets/",)
"""Where the README's images must be: Dify's plugin page shows an image only when its path
starts with ``_assets/`` (or ``./_assets/``) and fetches it from the installed package."""


def link_targets(markdown: str) -> list[tuple[str, bool]]:
    """``(target, is_image)`` of every link in ``markdown``: inline links and images, reference
    definitions, HTML ``<img src>``, ``<a href>`` and ``<source src>``; code blocks and code
    spans are skipped (a path written as code is not a link)."""
    text = _CODE_SPAN.sub(" ", _FENCED.sub(" ", markdown))
    found = [(target, bang == "!") for bang, target in _INLINE_LINK.findall(text)]
    found += [(target, False) for target in _REFERENCE_DEF.findall(text)]
    found += [(target, tag.lower() in ("img", "source")) for tag, target in _HTML_REF.findall(text)]
    return found


def _is_relative(target: str) -> bool:
    return not (re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith(("#", "//", "/")))


def missing_targets(markdown: str, path: str, available: set[str]) -> list[str]:
    """Relative link targets of ``markdown`` (a file at ``path``, relative to the package root)
    that are not in ``available``; web, mail and anchor links are not checked. A link that
    leaves the package (``../x``) is missing by definition."""
    base = posixpath.dirname(path)
    missing = []
    for target, _ in link_targets(markdown):
        if not _is_relative(target):
            continue
        rel = posixpath.normpath(posixpath.join(base, target.split("#", 1)[0].split("?", 1)[0]))
        if rel not in available:
            missing.append(target)
    return missing


def misplaced_images(markdown: str) -> list[str]:
    """Relative images of the packaged README that Dify's plugin page would not show (not under
    ``IMAGE_DIRS``)."""
    return [
        target
        for target, is_image in link_targets(markdown)
        if is_image and _is_relative(target) and not target.removeprefix("./").startswith(IMAGE_DIRS)
    ]


def check_plugin(plugin_dir: str | Path) -> list[Problem]:
    """Check the plugin in ``plugin_dir``.

    Returns:
        Every problem found, in file order (manifest, then each provider and its
        strategies); an empty list means the plugin passes.
    """
    root = Path(plugin_dir).resolve()
    rep = _Reporter(root, "manifest.yaml")
    manifest = _load_yaml(rep)
    if manifest is None:
        return rep.problems
    for rule in MANIFEST_RULES:
        rule(rep, manifest)
    _sdk_manifest(rep, manifest)
    for rel in _provider_paths(root, manifest):
        _check_provider_file(rep.for_file(rel))
    _check_packaged_links(rep, root)
    return rep.problems


def _check_packaged_links(rep: _Reporter, root: Path) -> None:
    """Every relative link of the packaged Markdown files names a packaged file."""
    from tools.package import IgnoreRules, collect_files, with_user_readme  # the packager imports this module

    files = with_user_readme(root, collect_files(root, IgnoreRules.for_plugin(root)))
    names = {rel for rel, _ in files}
    for rel, full in files:
        if not rel.lower().endswith((".md", ".markdown")):
            continue
        shown = full.relative_to(root).as_posix() if full.is_relative_to(root) else rel
        where = rep.for_file(shown)  # the user's README is reported under its name in the repository
        text = full.read_text(encoding="utf-8")
        for target in missing_targets(text, rel, names):
            where.add("", f"link {target!r} names no file in the package (packaged as {rel})")
        if rel == "README.md":
            for target in misplaced_images(text):
                where.add("", f"image {target!r} is not under _assets/: Dify's plugin page would not show it")


def _provider_paths(root: Path, manifest: dict[str, Any]) -> list[str]:
    paths = _get(manifest, "plugins.agent_strategies")
    if not isinstance(paths, list):
        return []
    return [p for p in paths if isinstance(p, str) and (full := _inside(root, p)) and full.is_file()]


def _check_provider_file(rep: _Reporter) -> None:
    data = _load_yaml(rep)
    if data is None:
        return
    names: dict[str, str] = {}
    strategies = _check_provider(rep, data)
    for rel in strategies:
        strategy_rep = rep.for_file(rel)
        strategy = _load_yaml(strategy_rep)
        name = _check_strategy(strategy_rep, strategy) if strategy is not None else None
        if name is not None and name in names:
            strategy_rep.add("identity.name", f"{name!r} is also the name in {names[name]}")
        elif name is not None:
            names[name] = rel
    _sdk_provider(rep, data, strategies)


def main(argv: Sequence[str] | None = None) -> int:
    """CLI: print each problem on its own line; exit status 1 if there are any."""
    parser = argparse.ArgumentParser(prog="python -m tools.manifest_check", description=__doc__.split("\n\n")[0])
    parser.add_argument("plugin_dir", nargs="?", default=str(Path(__file__).resolve().parents[1]),
                        help="plugin folder (default: this repo)")
    plugin_dir = Path(parser.parse_args(argv).plugin_dir)
    problems = check_plugin(plugin_dir)
    for problem in problems:
        print(problem)
    summary = f"{len(problems)} problem(s)" if problems else "OK"
    print(f"{plugin_dir}: {summary}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
