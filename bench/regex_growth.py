"""``python -m bench.regex_growth``: look for regular expressions whose time grows faster than
the text they read (catastrophic backtracking, ReDoS).

A regex runs in C holding the GIL: while it backtracks no other session of the plugin process
runs, heartbeats stop and the run's deadline is not checked. Model replies, tool output and
call arguments are adversarial input, so every pattern of the plugin's code is tried here on
texts built from its own pieces.

Patterns scanned: every ``re.Pattern`` reachable from the globals of the modules of
``agent_core/``, ``strategies/`` and ``main.py`` (also inside tuples, lists, dicts and the
attributes of objects held there), and every pattern written as a string literal in a call of
``re.compile``/``re.search``/... inside a function (read from the source with ``ast``).

Texts: for each quantifier of the pattern, the sample of what comes before it (the prefix),
then one of its body's samples, or one character of the pattern's alphabet (its literals, a
member of each class, whitespace and quotes), repeated to the size, then a failing suffix.
Each text is tried with ``search``, ``match`` and ``fullmatch`` at 256 and 1,024 characters; a
case whose time grows more than 6× (linear: 4×) is tried again at 4,096 and 16,384, and flagged
when the time still grows more than 8× per 4× of size (quadratic: 16×). A call stopped by the
alarm (``--limit`` seconds) is flagged at the size it was stopped.

    .venv/bin/python -m bench.regex_growth                 # all modules, the flagged cases
    .venv/bin/python -m bench.regex_growth agent_core.think --verbose
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import importlib
import itertools
import pkgutil
import re
import re._constants as sre
import re._parser as sre_parse
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("agent_core", "strategies")
POOL = " \t\n\"'a0{}<>,:`=|.-_*#\\/[]()!x"
"""Characters every pattern's alphabet includes besides its own: whitespace, quotes, brackets."""
QUICK_POOL = " \t\n\"'a"
SUFFIXES = ("", "\x00")
SIZES_FIRST = (256, 1024)
SIZES_MORE = (4096, 16384)
QUICK_SIZES_FIRST = (512, 2048)
QUICK_SIZES_MORE = (8192,)


@dataclasses.dataclass(frozen=True)
class Found:
    """One pattern of the code: where it is (``module:NAME`` or ``module:line``) and the pattern."""

    where: str
    pattern: re.Pattern
    methods: tuple[str, ...] = ("search", "match", "fullmatch")
    """How the code applies it: ``search`` stands for every call that looks at each position
    (``search``, ``sub``, ``findall``, ``finditer``, ``split``); all three when not known."""


# ---------------------------------------------------------------- finding the patterns


def modules() -> list[str]:
    """Names of every module of ``agent_core``, ``strategies`` and ``main``, importable from ROOT."""
    names = []
    for package in PACKAGES:
        names.append(package)
        for info in pkgutil.walk_packages([str(ROOT / package)], prefix=f"{package}."):
            names.append(info.name)
    return names


def _patterns_in(value: Any, depth: int, seen: set[int]) -> Iterator[re.Pattern]:
    if id(value) in seen or depth > 3:
        return
    seen.add(id(value))
    if isinstance(value, re.Pattern):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _patterns_in(item, depth + 1, seen)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            yield from _patterns_in(item, depth + 1, seen)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            yield from _patterns_in(getattr(value, field.name, None), depth + 1, seen)
    elif isinstance(value, type) and value.__module__.split(".")[0] in (*PACKAGES, "main"):
        for item in vars(value).values():
            yield from _patterns_in(item, depth + 1, seen)


def module_patterns(name: str) -> list[Found]:
    """The compiled patterns a module defines in its globals (and in containers and classes
    there); names it imports are left to the module they come from."""
    module = importlib.import_module(name)
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8")) if module.__file__ else ast.Module([], [])
    imported = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names}
    found: list[Found] = []
    seen: set[int] = set()
    for attr, value in vars(module).items():
        if isinstance(value, type(re)) or attr.startswith("__") or attr in imported:
            continue
        if isinstance(value, type) and value.__module__ != name:
            continue
        for pattern in _patterns_in(value, 0, seen):
            found.append(Found(f"{name}:{attr}", pattern))
    return found


_RE_CALLS = {"compile", "search", "match", "fullmatch", "sub", "subn", "findall", "finditer", "split"}


def literal_patterns(name: str) -> list[Found]:
    """Patterns written as string literals in ``re.<call>(literal, ...)`` inside functions.

    ``main`` is read, not imported (importing it starts the plugin)."""
    path = ROOT / "main.py" if name == "main" else importlib.import_module(name).__file__
    if path is None:  # a namespace package
        return []
    source = Path(path).read_text(encoding="utf-8")
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if not (isinstance(node.func.value, ast.Name) and node.func.value.id == "re" and node.func.attr in _RE_CALLS):
            continue
        if not node.args or not isinstance(node.args[0], ast.Constant) or not isinstance(node.args[0].value, (str, bytes)):
            continue
        flags = 0
        for keyword in node.keywords:
            if keyword.arg == "flags":
                flags = _flags(keyword.value)
        position = {"compile": 1, "search": 2, "match": 2, "fullmatch": 2, "findall": 2, "finditer": 2, "split": 3, "sub": 4, "subn": 4}
        if len(node.args) > position[node.func.attr]:
            flags = _flags(node.args[position[node.func.attr]])
        method = node.func.attr if node.func.attr in ("match", "fullmatch") else "search"
        methods = ("search", "match", "fullmatch") if node.func.attr == "compile" else (method,)
        found.append(Found(f"{name}:{node.lineno}", re.compile(node.args[0].value, flags), methods))
    return found


_AS_METHOD = {"search": "search", "sub": "search", "subn": "search", "findall": "search", "finditer": "search",
              "split": "search", "match": "match", "fullmatch": "fullmatch"}


def name_uses() -> dict[tuple[str, str], set[str]]:
    """For every (module, global name) of the packages' code: how it is used, read from the
    syntax trees of its module and of the modules that import it from there.
    ``search``/``match``/``fullmatch``: called as that method (``sub``, ``findall``, ``finditer``,
    ``split`` count as ``search``); ``other``: used otherwise (held in a rule, passed on). A use
    as ``NAME.pattern`` (its source reused in another pattern, checked there) is not counted."""
    found: dict[tuple[str, str], set[str]] = {}
    for package in PACKAGES:
        for file in (ROOT / package).rglob("*.py"):
            module = ".".join(file.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            tree = ast.parse(file.read_text(encoding="utf-8"))
            owner = {
                alias.asname or alias.name: node.module
                for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module
                for alias in node.names
            }
            parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
            for node in ast.walk(tree):
                if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)):
                    continue
                parent = parents.get(id(node))
                call = parents.get(id(parent)) if isinstance(parent, ast.Attribute) else None
                if isinstance(parent, ast.Attribute) and parent.attr == "pattern":
                    continue
                how = "other"
                if isinstance(call, ast.Call) and call.func is parent and parent.attr in _AS_METHOD:
                    how = _AS_METHOD[parent.attr]
                found.setdefault((owner.get(node.id, module), node.id), set()).add(how)
    return found


def uses(module: str, attr: str, used: dict[tuple[str, str], set[str]]) -> tuple[str, ...]:
    """The methods the code applies ``module.attr`` with; all three when it is also used
    otherwise or never called by name."""
    called = used.get((module, attr), set())
    if "other" in called or not called:
        return ("search", "match", "fullmatch")
    return tuple(m for m in ("search", "match", "fullmatch") if m in called)


def _flags(node: ast.expr) -> int:
    try:
        return int(eval(compile(ast.Expression(node), "<flags>", "eval"), {"re": re}))  # our own source
    except Exception:  # a flag computed at run time: none
        return 0


def all_patterns(names: list[str] | None = None) -> list[Found]:
    """Every pattern of the given modules (default: all of them), each pattern once."""
    sys.path.insert(0, str(ROOT))
    found: list[Found] = []
    seen: set[tuple] = set()
    used = name_uses()
    for name in names or [*modules(), "main"]:
        held = [] if name == "main" else module_patterns(name)
        held = [dataclasses.replace(item, methods=uses(name, item.where.split(":")[1], used)) for item in held]
        for item in held + literal_patterns(name):
            key = (item.pattern.pattern, item.pattern.flags)
            if key not in seen:
                seen.add(key)
                found.append(item)
    return found


# ---------------------------------------------------------------- building the texts


_CATEGORY_SAMPLE = {
    sre.CATEGORY_SPACE: " ",
    sre.CATEGORY_NOT_SPACE: "a",
    sre.CATEGORY_DIGIT: "0",
    sre.CATEGORY_NOT_DIGIT: "a",
    sre.CATEGORY_WORD: "a",
    sre.CATEGORY_NOT_WORD: " ",
    sre.CATEGORY_LINEBREAK: "\n",
    sre.CATEGORY_NOT_LINEBREAK: "a",
}


def _in_set(items: list, char: str) -> bool:
    code = ord(char)
    negate = False
    hit = False
    for op, av in items:
        if op is sre.NEGATE:
            negate = True
        elif (
            (op is sre.LITERAL and av == code)
            or (op is sre.RANGE and av[0] <= code <= av[1])
            or (op is sre.CATEGORY and re.fullmatch(_CATEGORY_REGEX[av], char))
        ):
            hit = True
    return hit != negate


_CATEGORY_REGEX = {
    sre.CATEGORY_SPACE: r"\s",
    sre.CATEGORY_NOT_SPACE: r"\S",
    sre.CATEGORY_DIGIT: r"\d",
    sre.CATEGORY_NOT_DIGIT: r"\D",
    sre.CATEGORY_WORD: r"\w",
    sre.CATEGORY_NOT_WORD: r"\W",
    sre.CATEGORY_LINEBREAK: r"\n",
    sre.CATEGORY_NOT_LINEBREAK: r"[^\n]",
}


def _set_samples(items: list) -> list[str]:
    samples = []
    if any(op is sre.NEGATE for op, _ in items):
        return [c for c in POOL if _in_set(items, c)][:4]
    for op, av in items:
        if op is sre.LITERAL:
            samples.append(chr(av))
        elif op is sre.RANGE:
            samples.append(chr(av[0]))
        elif op is sre.CATEGORY:
            samples.append(_CATEGORY_SAMPLE.get(av, "a"))
    return samples or ["a"]


def _samples(seq, limit: int = 6) -> list[str]:
    """Strings the node list may match (a few: one per branch, one per class member)."""
    out = [""]
    for op, av in seq:
        options = _node_samples(op, av, limit)
        out = list(dict.fromkeys(a + b for a in out for b in options))[:limit]
    return out


def _node_samples(op, av, limit: int) -> list[str]:
    if op is sre.LITERAL:
        return [chr(av)]
    if op is sre.NOT_LITERAL:
        return [next(c for c in POOL if ord(c) != av)]
    if op is sre.ANY:
        return ["a"]
    if op is sre.IN:
        return _set_samples(av)
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        low, _high, body = av
        bodies = _samples(body, limit)
        return [b * max(low, 1) for b in bodies] + ([""] if low == 0 else [])
    if op is sre.SUBPATTERN:
        return _samples(av[-1], limit)
    if op is sre.ATOMIC_GROUP:
        return _samples(av, limit)
    if op is sre.BRANCH:
        return [s for branch in av[1] for s in _samples(branch, 2)][:limit]
    if op is sre.GROUPREF_EXISTS:
        return _samples(av[1], limit)
    return [""]  # AT, ASSERT, ASSERT_NOT, GROUPREF ...


def _repeats(seq, before: str, out: list) -> None:
    """(prefix, body samples) for every quantifier of the node list, nested ones too."""
    for op, av in seq:
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            out.append((before, _samples(av[2])))
            _repeats(av[2], before, out)
        elif op is sre.SUBPATTERN:
            _repeats(av[-1], before, out)
        elif op is sre.ATOMIC_GROUP:
            _repeats(av, before, out)
        elif op is sre.BRANCH:
            for branch in av[1]:
                _repeats(branch, before, out)
        elif op in (sre.ASSERT, sre.ASSERT_NOT):
            _repeats(av[1], before, out)
        before += (_node_samples(op, av, 1) or [""])[0]


def _alphabet(seq, out: set) -> None:
    for op, av in seq:
        if op is sre.LITERAL:
            out.add(chr(av))
        elif op is sre.IN:
            out.update(_set_samples(av))
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            _alphabet(av[2], out)
        elif op is sre.SUBPATTERN:
            _alphabet(av[-1], out)
        elif op is sre.ATOMIC_GROUP:
            _alphabet(av, out)
        elif op is sre.BRANCH:
            for branch in av[1]:
                _alphabet(branch, out)
        elif op in (sre.ASSERT, sre.ASSERT_NOT):
            _alphabet(av[1], out)
        elif op is sre.GROUPREF_EXISTS:
            _alphabet(av[1], out)
            if av[2]:
                _alphabet(av[2], out)


def shapes(pattern: re.Pattern, quick: bool = False) -> list[tuple[str, str, str]]:
    """(prefix, unit, suffix) triples to pump: a text is ``prefix + unit * k + suffix``.
    ``quick``: the pattern's own characters and whitespace, quotes and a letter only, one
    failing suffix (a few seconds for all the patterns, for the unit test)."""
    source = pattern.pattern if isinstance(pattern.pattern, str) else pattern.pattern.decode("latin-1")
    tree = sre_parse.parse(source, pattern.flags & ~re.ASCII if isinstance(pattern.pattern, bytes) else pattern.flags)
    letters: set[str] = set(QUICK_POOL if quick else POOL)
    _alphabet(tree, letters)
    repeats: list = []
    _repeats(tree, "", repeats)
    prefixes = list(dict.fromkeys(["", *(before for before, _ in repeats)]))[:12]
    units = sorted(letters) + [b for _, bodies in repeats for b in bodies if len(b) > 1]
    units = list(dict.fromkeys(u for u in units if u))
    whole = _samples(tree, 3)
    out = []
    for prefix in prefixes:
        for unit in units:
            for suffix in ("\x00",) if quick else (*SUFFIXES, *(w[-1:] for w in whole if w)):
                out.append((prefix, unit, suffix))
    return list(dict.fromkeys(out))


def text_of(shape: tuple[str, str, str], size: int, as_bytes: bool):
    """The text of ``size`` characters (about) for one shape, bytes for a bytes pattern."""
    prefix, unit, suffix = shape
    text = prefix + unit * max(1, (size - len(prefix) - len(suffix)) // len(unit)) + suffix
    return text.encode("utf-8", "surrogatepass") if as_bytes else text


# ---------------------------------------------------------------- timing


class _Stopped(Exception):
    pass


def _alarm(*_: Any) -> None:
    raise _Stopped


def cost(call, text, limit: float, repeat: int = 3) -> float:
    """Best of ``repeat`` timings of ``call(text)`` in CPU seconds of this process; ``inf`` when
    stopped at ``limit`` (wall seconds). CPU time, not wall time: on a loaded machine a reading of
    a few milliseconds was preempted on every try (8,000 characters read in 5 ms of CPU took
    15-50 ms of wall time, and the growth from 2,000 looked quadratic)."""
    best = float("inf")
    for _ in range(repeat):
        signal.setitimer(signal.ITIMER_REAL, limit)
        try:
            start = time.process_time()
            call(text)
            best = min(best, time.process_time() - start)
        except _Stopped:
            return float("inf")
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    return best


@dataclasses.dataclass
class Flag:
    """A case whose time grew faster than its size: the pattern, the call, the shape, timings."""

    where: str
    pattern: str
    method: str
    shape: tuple[str, str, str]
    times: dict[int, float]

    def worst(self) -> float:
        return max(self.times.values())


def _grows(times: dict[int, float], factor: float) -> bool:
    if float("inf") in times.values():
        return True
    sizes = sorted(times)
    for small, big in itertools.pairwise(sizes):
        if times[big] == float("inf"):
            return True
        if times[big] > 2e-4 and times[big] > factor * max(times[small], 1e-6):
            return True
    return False


def check(found: Found, limit: float = 2.0, quick: bool = False) -> list[Flag]:
    """The cases of one pattern whose time grows faster than linear, for each method the code
    applies it with (the worst case of each method). ``quick``: fewer shapes (``shapes``), tried
    once at 512 and 2,048 characters, a case growing more than 6× confirmed at 8,192 (best of 3)."""
    first, more, growth = (QUICK_SIZES_FIRST, QUICK_SIZES_MORE, 1) if quick else (SIZES_FIRST, SIZES_MORE, 2)
    pattern = found.pattern
    as_bytes = isinstance(pattern.pattern, bytes)
    flags: list[Flag] = []
    old = signal.signal(signal.SIGALRM, _alarm)
    try:
        for method in found.methods:
            call = getattr(pattern, method)
            worst: Flag | None = None
            for shape in shapes(pattern, quick):
                times = {size: cost(call, text_of(shape, size, as_bytes), limit, growth) for size in first}
                if not _grows(times, 6):
                    continue
                if worst is not None and times[first[1]] < 2 * worst.times[first[1]]:
                    continue  # no worse than the case already flagged
                for size in more:
                    if times[max(times)] == float("inf"):
                        break
                    times[size] = cost(call, text_of(shape, size, as_bytes), limit, 3 if quick else 1)
                if quick and times[max(times)] != float("inf"):
                    times[first[1]] = cost(call, text_of(shape, first[1], as_bytes), limit, 3)
                if _grows({s: t for s, t in times.items() if s >= first[1]}, 8):
                    flag = Flag(found.where, pattern.pattern, method, shape, times)
                    if worst is None or flag.worst() > worst.worst():
                        worst = flag
            if worst is not None:
                flags.append(worst)
    finally:
        signal.signal(signal.SIGALRM, old)
    return flags


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.regex_growth", description=__doc__.split("\n")[0])
    parser.add_argument("modules", nargs="*", help="modules to scan (default: agent_core, strategies, main)")
    parser.add_argument("--limit", type=float, default=2.0, help="seconds one call may take before it is stopped")
    parser.add_argument("--verbose", action="store_true", help="name every pattern as it is checked")
    args = parser.parse_args(argv)
    found = all_patterns(args.modules or None)
    print(f"{len(found)} patterns")
    flagged = 0
    for item in found:
        if args.verbose:
            print(f"  {item.where} {'/'.join(item.methods)}: {item.pattern.pattern!r}"[:200], flush=True)
        for flag in check(item, args.limit):
            flagged += 1
            timings = ", ".join(f"{size}: {t * 1e3:.2f} ms" for size, t in sorted(flag.times.items()))
            print(f"FLAG {flag.where} {flag.method} {flag.pattern!r}"[:300])
            print(f"     shape {flag.shape!r}: {timings}", flush=True)
    print(f"{flagged} flagged")
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
