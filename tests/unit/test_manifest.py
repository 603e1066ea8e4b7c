"""tools.manifest_check: the real plugin passes; each rule catches its own breakage.

Every breakage case copies the plugin's YAMLs and assets into ``tmp_path`` (with stub
Python sources, so the copy does not depend on how far the strategy code has got), checks
that the copy is clean, breaks one thing and expects a problem at a given file and path.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.version import Version

from tools.manifest_check import SDK_MINIMUM_DIFY, Problem, check_plugin, required_dify_version, sdk_floor

ROOT = Path(__file__).resolve().parents[2]
Data = dict[str, Any]


# --------------------------------------------------------------------------- helpers


def _read(root: Path, rel: str) -> Data:
    return yaml.safe_load((root / rel).read_text(encoding="utf-8"))


def _write(root: Path, rel: str, data: Data) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")


def _copy_or_stub(root: Path, rel: str, stub: str) -> None:
    target = root / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    source = ROOT / rel
    target.write_text(source.read_text(encoding="utf-8") if source.is_file() else stub, encoding="utf-8")


def _copy_plugin(dest: Path) -> Path:
    """The plugin's declarations and assets in ``dest``; code files are copied or stubbed."""
    manifest = _read(ROOT, "manifest.yaml")
    dest.mkdir(parents=True)
    shutil.copy(ROOT / "manifest.yaml", dest / "manifest.yaml")
    shutil.copytree(ROOT / "_assets", dest / "_assets")
    for rel in ("README.md", "PLUGIN_README.md", "PRIVACY.md", "requirements.txt"):
        _copy_or_stub(dest, rel, "dify-plugin==0.10.2\n" if rel.endswith(".txt") else "# stub\n")
    _copy_or_stub(dest, f"{manifest['meta']['runner']['entrypoint']}.py", "")
    for provider_rel in manifest["plugins"]["agent_strategies"]:
        _copy_provider(dest, provider_rel)
    return dest


def _copy_provider(dest: Path, provider_rel: str) -> None:
    provider = _read(ROOT, provider_rel)
    _write(dest, provider_rel, provider)
    _copy_or_stub(dest, provider["extra"]["python"]["source"], "")
    for strategy_rel in provider["strategies"]:
        strategy = _read(ROOT, strategy_rel)
        _write(dest, strategy_rel, strategy)
        _copy_or_stub(dest, strategy["extra"]["python"]["source"], "")


@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    return _copy_plugin(tmp_path / "plugin")


def _first_strategy(root: Path) -> str:
    provider_rel = _read(root, "manifest.yaml")["plugins"]["agent_strategies"][0]
    return _read(root, provider_rel)["strategies"][0]


def _provider(root: Path) -> str:
    return _read(root, "manifest.yaml")["plugins"]["agent_strategies"][0]


def _edit(which: str, change: Callable[[Data], None]) -> Callable[[Path], str]:
    """A breakage that edits one YAML: ``which`` is "manifest", "provider" or "strategy"."""

    def apply(root: Path) -> str:
        rel = {"manifest": lambda: "manifest.yaml", "provider": lambda: _provider(root),
               "strategy": lambda: _first_strategy(root)}[which]()
        data = _read(root, rel)
        change(data)
        _write(root, rel, data)
        return rel

    return apply


def _set(dotted: str, value: Any) -> Callable[[Data], None]:
    """``_set("meta.arch", [])``; a value of ``DELETE`` removes the key."""

    def change(data: Data) -> None:
        *parents, last = dotted.split(".")
        for key in parents:
            data = data[int(key)] if isinstance(data, list) else data[key]
        if value is DELETE:
            del data[last]
        elif isinstance(data, list):
            data[int(last)] = value
        else:
            data[last] = value

    return change


DELETE = object()


def _param(data: Data, name: str) -> Data:
    return next(p for p in data["parameters"] if p["name"] == name)


def _number_param(data: Data) -> Data:
    return next(p for p in data["parameters"] if p["type"] == "number")


def _add_select(data: Data, *, default: str = "a", option_label: Data | None = None) -> None:
    label = {"en_US": "A", "zh_Hans": "A", "ja_JP": "A", "pt_BR": "A"}
    data["parameters"].append({
        "name": "mode", "type": "select", "required": False, "default": default, "label": dict(label),
        "options": [{"value": "a", "label": option_label or dict(label)}, {"value": "b", "label": dict(label)}],
    })


def _delete_file(rel_of: Callable[[Path], str]) -> Callable[[Path], str]:
    def apply(root: Path) -> str:
        rel = rel_of(root)
        (root / rel).unlink()
        return rel

    return apply


def _overwrite(rel_of: Callable[[Path], str], text: str) -> Callable[[Path], str]:
    def apply(root: Path) -> str:
        rel = rel_of(root)
        (root / rel).write_text(text, encoding="utf-8")
        return rel

    return apply


def _delete_strategy_file(root: Path) -> str:
    """Delete the first strategy file; the provider that lists it is what breaks."""
    (root / _first_strategy(root)).unlink()
    return _provider(root)


def _old_sdk(minimum_dify: str) -> Callable[[Path], str]:
    """Pin an old SDK (whose own table asks for little) and declare ``minimum_dify``: then the
    manifest's dark icon is what sets the floor."""

    def apply(root: Path) -> str:
        (root / "requirements.txt").write_text("dify-plugin>=0.3.1,<0.4\n", encoding="utf-8")
        _edit("manifest", _set("meta.minimum_dify_version", minimum_dify))(root)
        return "manifest.yaml"

    return apply


def _add_second_strategy(root: Path) -> str:
    """A second strategy file, listed by the provider, with a broken parameter type."""
    strategy = _read(root, _first_strategy(root))
    strategy["identity"]["name"] = "second"
    strategy["parameters"][0]["type"] = "text-input"
    _write(root, "strategies/second.yaml", strategy)
    provider = _read(root, _provider(root))
    provider["strategies"].append("strategies/second.yaml")
    _write(root, _provider(root), provider)
    return "strategies/second.yaml"


# --------------------------------------------------------------------------- cases

# (id, breakage(root) -> the file it broke, expected file (None: the broken one), path part, message part)
CASES: list[tuple[str, Callable[[Path], str], str | None, str, str]] = [
    # manifest.yaml
    ("version-regex", _edit("manifest", _set("version", "1.0")), None, "version", "must match"),
    ("version-pep440", _edit("manifest", _set("version", "1.0.0-foo")), None, "version", "PEP 440"),
    ("type", _edit("manifest", _set("type", "tool")), None, "type", "'plugin'"),
    ("author-upper", _edit("manifest", _set("author", "AgentLab")), None, "author", "must match"),
    ("author-uuid", _edit("manifest", _set("author", "123e4567-e89b-12d3-a456-426614174000")), None, "author", "UUID"),
    ("name", _edit("manifest", _set("name", "Robust Agent")), None, "name", "must match"),
    ("label-locale", _edit("manifest", _set("label.ja_JP", DELETE)), None, "label.ja_JP", "translation"),
    ("description-empty", _edit("manifest", _set("description.pt_BR", " ")), None, "description.pt_BR", "empty"),
    ("label-unknown-locale", _edit("manifest", _set("label.zh_CN", "x")), None, "label.zh_CN", "unknown locale"),
    ("icon-missing", _edit("manifest", _set("icon", "nope.svg")), None, "icon", "does not exist"),
    ("icon-dark-missing", _edit("manifest", _set("icon_dark", "nope_dark.svg")), None, "icon_dark", "does not exist"),
    ("created-at", _edit("manifest", _set("created_at", "yesterday")), None, "created_at", "RFC 3339"),
    ("memory-zero", _edit("manifest", _set("resource.memory", 0)), None, "resource.memory", "positive"),
    ("memory-text", _edit("manifest", _set("resource.memory", "256MB")), None, "resource.memory", "positive"),
    ("perm-tool", _edit("manifest", _set("resource.permission.tool.enabled", False)), None,
     "resource.permission.tool.enabled", "must be true"),
    ("perm-model", _edit("manifest", _set("resource.permission.model.enabled", False)), None,
     "resource.permission.model.enabled", "must be true"),
    ("perm-llm", _edit("manifest", _set("resource.permission.model.llm", DELETE)), None,
     "resource.permission.model.llm", "must be true"),
    ("strategies-path-missing", _edit("manifest", _set("plugins.agent_strategies", ["provider/nope.yaml"])), None,
     "plugins.agent_strategies[0]", "does not exist"),
    ("strategies-path-long", _edit("manifest", _set("plugins.agent_strategies", ["p/" + "x" * 130 + ".yaml"])), None,
     "plugins.agent_strategies[0]", "128"),
    ("strategies-empty", _edit("manifest", _set("plugins.agent_strategies", [])), None,
     "plugins.agent_strategies", "at least one"),
    ("declares-tools", _edit("manifest", _set("plugins.tools", ["provider/agent.yaml"])), None,
     "plugins.tools", "may not declare"),
    ("meta-version-low", _edit("manifest", _set("meta.version", "0.0.1")), None, "meta.version", "greater than"),
    ("meta-version-regex", _edit("manifest", _set("meta.version", "v1")), None, "meta.version", "must match"),
    ("arch-empty", _edit("manifest", _set("meta.arch", [])), None, "meta.arch", "non-empty"),
    ("arch-unknown", _edit("manifest", _set("meta.arch", ["amd64", "x86"])), None, "meta.arch", "subset"),
    ("runner-language", _edit("manifest", _set("meta.runner.language", "go")), None, "meta.runner.language", "python"),
    ("runner-version-float", _edit("manifest", _set("meta.runner.version", 3.12)), None,
     "meta.runner.version", "string"),
    ("runner-version", _edit("manifest", _set("meta.runner.version", "3.11")), None, "meta.runner.version", "3.12"),
    ("entrypoint", _edit("manifest", _set("meta.runner.entrypoint", "nope")), None,
     "meta.runner.entrypoint", "nope.py does not exist"),
    ("min-dify", _edit("manifest", _set("meta.minimum_dify_version", DELETE)), None,
     "meta.minimum_dify_version", "missing"),
    ("min-dify-below-sdk", _edit("manifest", _set("meta.minimum_dify_version", "1.7.0")), None,
     "meta.minimum_dify_version", "1.7.0 is below 1.14.2: dify-plugin 0.10.2 needs Dify 1.14.2"),
    ("min-dify-below-dark-icon", _old_sdk("1.5.1"), None, "meta.minimum_dify_version", "icon_dark needs Dify 1.6.0"),
    ("min-dify-two-parts", _edit("manifest", _set("meta.minimum_dify_version", "1.14")), None,
     "meta.minimum_dify_version", "must match"),
    ("tags", _edit("manifest", _set("tags", ["agents"])), None, "tags[0]", "not one of"),
    ("unknown-key", _edit("manifest", _set("icon_drak", "icon.svg")), None, "icon_drak", "unknown manifest key"),
    ("privacy-missing", _edit("manifest", _set("privacy", DELETE)), None, "privacy", "privacy policy"),
    ("privacy-file", _edit("manifest", _set("privacy", "NOPE.md")), None, "privacy", "does not exist"),
    ("repo-url", _edit("manifest", _set("repo", "github.com/x/y")), None, "repo", "URL"),
    ("readme", _delete_file(lambda root: "README.md"), "README.md", "", "missing"),
    ("requirements", _overwrite(lambda root: "requirements.txt", "json-repair\n"), None, "", "dify-plugin"),
    ("readme-dangling-link", _overwrite(lambda root: "PLUGIN_README.md", "See [the table](docs/providers.md).\n"), None,
     "", "'docs/providers.md' names no file in the package"),
    ("readme-image-outside-assets", _overwrite(lambda root: "PLUGIN_README.md", "![tree](icon.svg)\n"), None,
     "", "'icon.svg' is not under _assets/"),
    ("privacy-dangling-link", _overwrite(lambda root: "PRIVACY.md", "Policy; [code](agent_core/nope.py).\n"), None,
     "", "'agent_core/nope.py' names no file in the package"),
    ("sdk-manifest", _edit("manifest", _set("resource.permission.storage", {"enabled": True, "size": 10})), None,
     "resource.permission.storage", "SDK PluginConfiguration"),
    # provider YAML
    ("provider-name", _edit("provider", _set("identity.name", "bad name")), None, "identity.name", "must match"),
    ("provider-author", _edit("provider", _set("identity.author", "")), None, "identity.author", "must match"),
    ("provider-icon", _edit("provider", _set("identity.icon", "nope.svg")), None, "identity.icon", "does not exist"),
    ("provider-icon-dark", _edit("provider", _set("identity.icon_dark", "nope.png")), None,
     "identity.icon_dark", "does not exist"),
    ("provider-label", _edit("provider", _set("identity.label.zh_Hans", DELETE)), None,
     "identity.label.zh_Hans", "translation"),
    ("provider-description", _edit("provider", _set("identity.description", DELETE)), None,
     "identity.description", "missing"),
    ("provider-tags", _edit("provider", _set("identity.tags", ["robots"])), None, "identity.tags[0]", "not one of"),
    ("provider-strategy-missing", _edit("provider", lambda d: d["strategies"].append("strategies/nope.yaml")), None,
     "strategies[", "does not exist"),
    ("provider-strategy-twice", _edit("provider", lambda d: d["strategies"].append(d["strategies"][0])), None,
     "strategies[", "listed twice"),
    ("provider-source", _edit("provider", _set("extra.python.source", "provider/nope.py")), None,
     "extra.python.source", "does not exist"),
    ("provider-sdk", _edit("provider", _set("identity.label", "Robust")), None, "identity.label", "SDK"),
    # strategy YAML
    ("param-type", _edit("strategy", lambda d: d["parameters"][0].update(type="text-input")), None,
     "parameters[0].type", "not one of"),
    ("param-duplicate", _edit("strategy", lambda d: d["parameters"].append(dict(d["parameters"][0]))), None,
     ".name", "duplicate"),
    ("number-above-max", _edit("strategy", lambda d: _number_param(d).update(default=1000, max=99)), None,
     ".default", "above max"),
    ("number-below-min", _edit("strategy", lambda d: _number_param(d).update(default=0, min=1)), None,
     ".default", "below min"),
    ("number-min-max", _edit("strategy", lambda d: _number_param(d).update(min=10, max=5, default=7)), None,
     ".min", "greater than max"),
    ("number-text", _edit("strategy", lambda d: _number_param(d).update(default="5")), None,
     ".default", "must be a number"),
    ("features", _edit("strategy", _set("features", ["memory"])), None, "features[0]", "not one of"),
    ("strategy-source", _edit("strategy", _set("extra.python.source", "strategies/nope.py")), None,
     "extra.python.source", "does not exist"),
    ("strategy-name", _edit("strategy", _set("identity.name", "has space")), None, "identity.name", "must match"),
    ("strategy-label", _edit("strategy", _set("identity.label.ja_JP", "")), None, "identity.label.ja_JP", "empty"),
    ("strategy-description", _edit("strategy", _set("description.pt_BR", DELETE)), None,
     "description.pt_BR", "translation"),
    ("param-label", _edit("strategy", lambda d: d["parameters"][0].pop("label")), None,
     "parameters[0].label", "missing"),
    ("param-help", _edit("strategy", lambda d: d["parameters"][0]["help"].pop("pt_BR")), None,
     "parameters[0].help.pt_BR", "translation"),
    ("scope-on-string", _edit("strategy", lambda d: _param(d, "query").update(scope="llm")), None,
     ".scope", "takes no scope"),
    ("scope-value", _edit("strategy", lambda d: _param(d, "model").update(scope="llm&chat")), None,
     ".scope", "chat"),
    ("select-default", _edit("strategy", lambda d: _add_select(d, default="c")), None, ".default", "option values"),
    ("option-label", _edit("strategy", lambda d: _add_select(d, option_label={"en_US": "A"})), None,
     ".options[0].label.zh_Hans", "translation"),
    ("select-no-options", _edit("strategy", lambda d: d["parameters"].append(
        {"name": "m2", "type": "select", "label": _param(d, "query")["label"]})), None, ".options", "needs options"),
    ("boolean-default", _edit("strategy", lambda d: d["parameters"].append(
        {"name": "b", "type": "boolean", "default": "yes", "label": _param(d, "query")["label"]})), None,
     ".default", "true or false"),
    ("auto-generate", _edit("strategy", lambda d: _param(d, "instruction").update(auto_generate={"type": "x"})), None,
     ".auto_generate.type", "prompt_instruction"),
    ("strategy-sdk", _edit("strategy", lambda d: d["parameters"][0].update(precision="high")), None,
     "", "SDK AgentStrategyProviderConfiguration"),
    ("strategy-file-deleted", _delete_strategy_file, None, "strategies[0]", "does not exist"),
    ("second-strategy", _add_second_strategy, None, "parameters[0].type", "not one of"),
    ("strategy-yaml-syntax", _overwrite(_first_strategy, "a: [\n"), None, "", "not valid YAML"),
]


def _matches(problem: Problem, file: str, path: str, message: str) -> bool:
    return problem.file == file and path in problem.path and message in problem.message


# --------------------------------------------------------------------------- tests


def test_real_plugin_passes() -> None:
    problems = check_plugin(ROOT)
    assert problems == [], "\n".join(map(str, problems))


def test_copy_passes(plugin: Path) -> None:
    problems = check_plugin(plugin)
    assert problems == [], "\n".join(map(str, problems))


@pytest.mark.parametrize(("breakage", "file", "path", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_rule_catches_breakage(
    plugin: Path, breakage: Callable[[Path], str], file: str | None, path: str, message: str
) -> None:
    broken = breakage(plugin)
    expected_file = file or broken
    problems = check_plugin(plugin)
    assert any(_matches(p, expected_file, path, message) for p in problems), (
        f"expected {expected_file}:{path}: …{message}…, got:\n" + "\n".join(map(str, problems))
    )


def test_sdk_check_restores_cwd(plugin: Path) -> None:
    before = Path.cwd()
    check_plugin(plugin)
    assert Path.cwd() == before


def test_missing_manifest(tmp_path: Path) -> None:
    assert [str(p) for p in check_plugin(tmp_path)] == ["manifest.yaml: file does not exist"]


def test_unquoted_timestamp_is_accepted(plugin: Path) -> None:
    text = (plugin / "manifest.yaml").read_text(encoding="utf-8")
    created = _read(plugin, "manifest.yaml")["created_at"]
    for quote in "'\"":
        text = text.replace(f"{quote}{created}{quote}", created)
    (plugin / "manifest.yaml").write_text(text, encoding="utf-8")
    assert not isinstance(_read(plugin, "manifest.yaml")["created_at"], str)
    assert check_plugin(plugin) == []


@pytest.mark.parametrize(("break_it", "status"), [(False, 0), (True, 1)])
def test_cli_exit_status(plugin: Path, break_it: bool, status: int) -> None:
    if break_it:
        _edit("manifest", _set("type", "tool"))(plugin)
    result = subprocess.run(
        [sys.executable, "-m", "tools.manifest_check", str(plugin)],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )
    assert result.returncode == status, result.stdout + result.stderr
    assert ("manifest.yaml:type:" in result.stdout) == break_it


@pytest.mark.parametrize(
    ("requirements", "floor"),
    [
        ("dify-plugin==0.10.2\n", "0.10.2"),
        ("# comment\ndify-plugin>=0.10.2,<0.11\njson-repair>=0.63.0,<0.65\n", "0.10.2"),
        ("dify_plugin ~= 0.9.1\n", "0.9.1"),
        ("dify-plugin[extra]>=0.8.1\n", "0.8.1"),
        ("dify-plugin\n", None),
        ("json-repair==0.64.6\n", None),
    ],
)
def test_sdk_floor(requirements: str, floor: str | None) -> None:
    found = sdk_floor(requirements)
    assert (str(found) if found else None) == floor


def test_the_declared_minimum_dify_version_is_what_the_pinned_sdk_needs() -> None:
    """manifest.yaml's minimum_dify_version is exactly the SDK table's row for the floor of
    requirements.txt (or a manifest feature's): higher would turn users away for nothing."""
    manifest = _read(ROOT, "manifest.yaml")
    needed = required_dify_version(ROOT, manifest)
    assert needed is not None
    assert manifest["meta"]["minimum_dify_version"] == str(needed[0]), needed[1]
    assert needed[0] in {Version(dify) for _, dify in SDK_MINIMUM_DIFY}


def test_the_sdk_table_matches_the_installed_sdk_readme() -> None:
    """SDK_MINIMUM_DIFY is copied from the installed dify-plugin's README: a new SDK release
    with a new row fails here (and the row decides minimum_dify_version)."""
    import re
    from importlib.metadata import metadata

    text = metadata("dify-plugin").get_payload()  # type: ignore[attr-defined]
    table = text.split("Meta.MinimumDifyVersion Reference", 1)[1]
    rows = re.findall(r"^\|\s*(\d+\.\d+\.\d+)\s*\|\s*(\d+\.\d+\.\d+)\s*\|", table, re.M)
    assert {(sdk, dify) for dify, sdk in rows} == set(SDK_MINIMUM_DIFY)
