"""The developer docs say what the code does: the README's parameter tables against the strategy
YAMLs (and PLUGIN_README.md's), docs/architecture.md's module list against agent_core/, the
environment variables the plugin reads against both READMEs, and no print() in plugin code
(stdout is the daemon's channel).

Each test names what drifted, so a parameter, module or variable added without its line in the
docs fails here rather than misleading a user or a reviewer.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import yaml

from agent_core import params

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
USER_README = (ROOT / "PLUGIN_README.md").read_text(encoding="utf-8")
ARCHITECTURE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
STRATEGY_YAMLS = sorted((ROOT / "strategies").glob("*.yaml"))
PLUGIN_CODE = [ROOT / "main.py", *sorted((ROOT / "agent_core").rglob("*.py")), *sorted((ROOT / "strategies").glob("*.py"))]


def _yaml_parameters() -> dict[str, dict]:
    """Every strategy's parameters by name (the strategies share all but ReAct's step_format)."""
    found: dict[str, dict] = {}
    for path in STRATEGY_YAMLS:
        for parameter in yaml.safe_load(path.read_text(encoding="utf-8"))["parameters"]:
            found.setdefault(parameter["name"], parameter)
    return found


def _table_rows(text: str, heading: str) -> list[list[str]]:
    """The cells of the first Markdown table after ``heading``, header and rule rows left out."""
    lines = text.split(heading, 1)[1].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    table = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        table.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return table[2:]


def _listed_modules() -> set[str]:
    """The agent_core modules docs/architecture.md's layout names, as paths under agent_core/:
    ``  name.py`` lines, and ``    name.py`` lines under a ``  folder/`` line."""
    listing = ARCHITECTURE.split("```", 2)[1]
    section = listing.split("\nagent_core/", 1)[1].split("\nlocal_runner/", 1)[0]
    listed, folder = set(), ""
    for line in section.splitlines():
        if match := re.match(r"^  (\w+)/ ", line):
            folder = match.group(1) + "/"
        elif match := re.match(r"^  (\w+\.py)\b", line):
            listed.add(match.group(1))
        elif match := re.match(r"^    (\w+\.py)\b", line):
            listed.add(folder + match.group(1))
    return listed


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def test_both_strategies_take_the_same_parameters_but_step_format() -> None:
    """What both READMEs say: the same parameters, with the same defaults and ranges; only the
    model's scope differs, and ReAct adds step_format."""
    by_strategy = {
        path.stem: {p["name"]: p for p in yaml.safe_load(path.read_text(encoding="utf-8"))["parameters"]}
        for path in STRATEGY_YAMLS
    }
    react, function_calling = by_strategy["react"], by_strategy["function_calling"]
    assert set(react) == set(function_calling) | {"step_format"}
    for name, parameter in function_calling.items():
        keys = ("type", "required", "default", "min", "max")
        assert [parameter.get(k) for k in keys] == [react[name].get(k) for k in keys], name
        assert name == "model" or parameter.get("scope") == react[name].get("scope"), name


def test_readme_parameter_table_lists_exactly_the_yaml_parameters() -> None:
    rows = _table_rows(README, "## Parameters")
    named = {re.match(r"`(\w+)`", row[0]).group(1) for row in rows}
    assert named == set(_yaml_parameters()), (named ^ set(_yaml_parameters()))


def test_readme_parameter_table_gives_the_yaml_default_and_range() -> None:
    rows = {re.match(r"`(\w+)`", row[0]).group(1): row for row in _table_rows(README, "## Parameters")}
    for name, parameter in _yaml_parameters().items():
        _, kind, default, _meaning = rows[name]
        assert kind.startswith(parameter["type"]), (name, kind)
        if "min" in parameter:
            assert f"{_number(parameter['min'])}–{_number(parameter['max'])}" in kind, (name, kind)
        if "default" in parameter:
            assert default.strip("`") == str(parameter["default"]), (name, default)


def test_yaml_ranges_and_defaults_are_the_ones_the_code_clamps_to() -> None:
    yaml_params = _yaml_parameters()
    for name, (low, high), default in [
        ("maximum_iterations", params.MAX_ITERATIONS_RANGE, 5),
        ("tool_timeout", params.TOOL_TIMEOUT_RANGE, params.DEFAULT_TOOL_TIMEOUT),
        ("model_timeout", params.MODEL_TIMEOUT_RANGE, params.DEFAULT_MODEL_TIMEOUT),
        ("run_timeout", params.RUN_TIMEOUT_RANGE, None),
    ]:
        assert (yaml_params[name]["min"], yaml_params[name]["max"]) == (low, high), name
        assert yaml_params[name].get("default") == default, name


def test_user_readme_parameter_table_gives_the_yaml_default_and_range() -> None:
    rows = {row[0]: row for row in _table_rows(USER_README, "## Parameters")}
    for name, parameter in _yaml_parameters().items():
        label = parameter["label"]["en_US"].split(" (")[0] + (" (ReAct)" if name == "step_format" else "")
        assert label in rows, (name, label)
        default = rows[label][1]
        if "min" in parameter:
            assert f"({_number(parameter['min'])} to {_number(parameter['max'])}" in default, (name, default)
        if isinstance(parameter.get("default"), int):
            assert default.startswith(str(parameter["default"])), (name, default)


def test_architecture_module_list_matches_agent_core() -> None:
    modules = {
        path.relative_to(ROOT / "agent_core").as_posix()
        for path in (ROOT / "agent_core").rglob("*.py")
        if path.name != "__init__.py"
    }
    listed = _listed_modules()
    assert listed == modules, {"not listed": modules - listed, "listed, not in agent_core": listed - modules}


def test_environment_variables_the_plugin_reads_are_documented() -> None:
    readers = sorted(p.relative_to(ROOT).as_posix() for p in PLUGIN_CODE if re.search(r"os\.environ|getenv\(", p.read_text()))
    assert readers == ["agent_core/params.py"], "a new module reads the environment: document its variables"
    for name in {*params.RUN_TIMEOUT_ENV, params.DAEMON_TIMEOUT_ENV}:
        assert f"`{name}`" in README, name
        assert f"`{name}`" in USER_README, name


def test_no_print_in_plugin_code() -> None:
    calls = []
    for path in PLUGIN_CODE:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
                calls.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert calls == []
