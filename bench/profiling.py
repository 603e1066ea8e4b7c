"""Optional: sample the plugin process with py-spy while benchmarks run (``--profile DIR``).

``py-spy record --pid`` attaches to every plugin process the benchmarks start (see
``harness.Plugin.observers``) and writes collapsed stacks (``--format raw``: one line per
stack, ``frame;frame;... count``) when the process is closed. ``summarize(path)`` turns such a
file into the functions that take the most samples, inclusive and self.

py-spy is not a requirement of the benchmarks: ``.venv/bin/pip install py-spy`` to use this
(it needs ptrace rights on the plugin process: root, or ``kernel.yama.ptrace_scope = 0``).
"""

from __future__ import annotations

import collections
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from bench import harness


class PySpy:
    """Records every plugin process started while it is installed, one file per process:
    ``<folder>/<label>-<n>.txt``. ``label`` is set by the caller before each benchmark."""

    def __init__(self, folder: str | Path, rate: int = 250) -> None:
        executable = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
        if not Path(executable).exists():
            raise RuntimeError("py-spy is not installed: .venv/bin/pip install py-spy")
        self.executable = executable
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.rate = rate
        self.label = "plugin"
        self.files: list[Path] = []
        self._running: dict[int, subprocess.Popen[bytes]] = {}
        self._count = 0

    def install(self) -> PySpy:
        harness.Plugin.observers.append(self)
        return self

    def uninstall(self) -> None:
        if self in harness.Plugin.observers:
            harness.Plugin.observers.remove(self)

    def started(self, plugin: harness.Plugin) -> None:
        self._count += 1
        path = self.folder / f"{self.label}-{self._count}.txt"
        command = [
            self.executable,
            "record",
            "--pid",
            str(plugin.pid),
            "--rate",
            str(self.rate),
            "--format",
            "raw",
            "--nonblocking",
            "--output",
            str(path),
        ]
        self._running[plugin.pid] = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.files.append(path)

    def stopping(self, plugin: harness.Plugin) -> None:
        spy = self._running.pop(plugin.pid, None)
        if spy is None:
            return
        spy.send_signal(signal.SIGINT)  # py-spy writes its output on SIGINT
        try:
            spy.wait(timeout=30)
        except subprocess.TimeoutExpired:
            spy.kill()


def _frame_name(frame: str) -> str:
    """``func (path/to/file.py:123)`` -> ``file.py:func`` (line numbers dropped)."""
    name, _, where = frame.partition(" (")
    path = where.rstrip(")").rsplit(":", 1)[0]
    parts = Path(path).parts
    short = "/".join(parts[-2:]) if len(parts) >= 2 else path
    return f"{short}:{name}"


AREAS = (
    ("SDK: reading stdin lines (StdioRequestReader)", ("RequestReader.event_loop",)),
    ("SDK: writing messages to stdout (ResponseWriter)", ("ResponseWriter.",)),
    ("SDK: parsing backwards responses", ("_line_converter_wrapper",)),
    ("plugin code (agent_core, strategies)", ("agent_core/", "strategies/", "function_calling.py:", "react.py:")),
    ("gevent hub / waiting", ("Hub.run", "acquire_with_timeout", "_threading.py")),
)
"""Where a sample's time goes: the first area (in this order) one of whose markers is in its stack."""


def area(frames: list[str]) -> str:
    for name, markers in AREAS:
        if any(marker in frame for frame in frames for marker in markers):
            return name
    return "other"


def summarize(path: str | Path, top: int = 25) -> str:
    """The ``top`` functions by inclusive and by self samples of a py-spy raw file."""
    inclusive: collections.Counter[str] = collections.Counter()
    own: collections.Counter[str] = collections.Counter()
    areas: collections.Counter[str] = collections.Counter()
    total = 0
    for line in Path(path).read_text(encoding="utf-8", errors="replace").splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = [_frame_name(f) for f in stack.split(";") if f and not f.startswith(("process ", "thread "))]
        if not frames:
            continue
        total += count
        for name in set(frames):
            inclusive[name] += count
        own[frames[-1]] += count
        areas[area(frames)] += count
    if not total:
        return f"{path}: no samples"
    out = [f"{path}: {total} samples", "  by area:"]
    out += [f"    {100 * n / total:5.1f}%  {name}" for name, n in areas.most_common()]
    out.append("  inclusive:")
    out += [f"    {100 * n / total:5.1f}%  {name}" for name, n in inclusive.most_common(top)]
    out.append("  self:")
    out += [f"    {100 * n / total:5.1f}%  {name}" for name, n in own.most_common(top)]
    return "\n".join(out)


if __name__ == "__main__":
    for argument in sys.argv[1:]:
        print(summarize(argument))
