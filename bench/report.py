"""The machine, ``bench/results.json`` and the results section of ``bench/README.md``."""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

from bench.registry import BENCHMARKS

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results.json"
README = HERE / "README.md"
START = "<!-- bench:results:start (written by python -m bench --readme; edit around it) -->"
END = "<!-- bench:results:end -->"
PLUGIN_PATHS = ("agent_core", "strategies", "main.py", "requirements.txt")


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _git(folder: Path, *args: str) -> str:
    """Output of a read-only git command in ``folder`` ('' if git or the repository is unavailable)."""
    try:
        done = subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout if done.returncode == 0 else ""


def machine(plugin_dir: Path = HERE.parent) -> dict[str, Any]:
    """Where and when the numbers were taken, and which plugin code they measure."""
    memory = next((line.split()[1] for line in _read("/proc/meminfo").splitlines() if line.startswith("MemTotal")), "0")
    model = next(
        (
            line.split(":", 1)[1].strip()
            for line in _read("/proc/cpuinfo").splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    changed = [line[3:] for line in _git(plugin_dir, "status", "--porcelain", "--", *PLUGIN_PATHS).splitlines() if line]
    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": len(os.sched_getaffinity(0)),
        "cpu": model,
        "memory_gb": round(int(memory) / 1024 / 1024, 1),
        "python": platform.python_version(),
        "os": f"{platform.system()} {platform.release()}",
        # this checkout as ".": a result file names no path of the machine it ran on
        "plugin_dir": "." if Path(plugin_dir).resolve() == HERE.parent.resolve() else str(plugin_dir),
        "commit": _git(plugin_dir, "rev-parse", "--short", "HEAD").strip(),
        "plugin_files_changed_since_commit": changed,
    }


def machine_line(info: dict[str, Any]) -> str:
    changed = info.get("plugin_files_changed_since_commit") or []
    local = f" + local changes to {', '.join(changed)}" if changed else ""
    where = "" if info.get("plugin_dir") in (None, ".", str(HERE.parent)) else f" · plugin from {info['plugin_dir']}"
    return (
        f"{info['date']} · nproc {info['nproc']} ({info['cpu']}) · memory {info['memory_gb']} GB · "
        f"Python {info['python']} · "
        f"{info['os']} · commit {info['commit'] or '?'}{local}{where}"
    )


def load(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {"benchmarks": {}}
    return json.loads(path.read_text(encoding="utf-8"))


def save(entries: dict[str, Any], path: Path) -> dict[str, Any]:
    """Merge ``entries`` (benchmark name -> entry) into the results file and write it."""
    data = load(path)
    data.setdefault("benchmarks", {}).update(entries)
    data["benchmarks"] = {name: data["benchmarks"][name] for name in BENCHMARKS if name in data["benchmarks"]}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return data


def markdown(data: dict[str, Any]) -> str:
    """The results section: per benchmark its title, machine line if it differs, table."""
    parts = []
    machines = {machine_line(entry["machine"]) for entry in data.get("benchmarks", {}).values()}
    for name, entry in data.get("benchmarks", {}).items():
        module = BENCHMARKS[name]
        parts.append(f"### {module.TITLE} (`{name}`, {entry['elapsed_s']} s)\n")
        if len(machines) > 1:
            parts.append(f"_{machine_line(entry['machine'])}_\n")
        parts.append(module.table(entry["result"]) + "\n")
    head = f"Machine: {machines.pop()}\n" if len(machines) == 1 else ""
    return head + "\n" + "\n".join(parts)


def update_readme(data: dict[str, Any], path: Path = README) -> None:
    """Replace the text between the markers of ``path`` with ``markdown(data)``."""
    text = path.read_text(encoding="utf-8") if path.exists() else f"# Benchmarks\n\n{START}\n{END}\n"
    if START not in text or END not in text:
        text = text.rstrip("\n") + f"\n\n{START}\n{END}\n"
    before, rest = text.split(START, 1)
    _, after = rest.split(END, 1)
    path.write_text(f"{before}{START}\n{markdown(data)}\n{END}{after}", encoding="utf-8")
