"""Real local tools the runner offers: calculator, current_time, unit_convert, doc_search.

Each handler takes prepared parameters (see ``LocalTool``) and yields ``ToolInvokeMessage``
dicts; bad input raises ``ToolInputError`` (the daemon's ``error`` event).
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from local_runner.tools import LocalTool, ToolBox, ToolInputError, ToolParam, text_message

DOCS_DIR = Path(__file__).parent / "data" / "docs"

# ---------------------------------------------------------------------------------------------
# calculator

_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.BitXor: operator.pow,  # "^" means power on a calculator
}
_UNARY: dict[type, Callable[[Any], Any]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}
_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "sqrt": math.sqrt,
    "abs": abs,
    "round": round,
    "min": min,
    "max": max,
    "floor": math.floor,
    "ceil": math.ceil,
    "log": math.log,
    "log10": math.log10,
    "exp": math.exp,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
}
_CONSTANTS = {"pi": math.pi, "e": math.e}
_MAX_RESULT_BITS = 4096


def evaluate(expression: str) -> int | float:
    """Evaluate an arithmetic ``expression`` safely (AST walk, no ``eval``): numbers,
    ``+ - * / // % ** ^``, parentheses, ``pi``, ``e`` and the functions in ``_FUNCTIONS``.
    Raises ``ToolInputError`` for anything else or a result beyond ~4096 bits."""
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError:
        raise ToolInputError(f"not an arithmetic expression: {expression!r}") from None
    try:
        return _eval(tree.body)
    except (ZeroDivisionError, OverflowError, ValueError, TypeError) as exc:
        raise ToolInputError(f"cannot evaluate {expression!r}: {exc}") from None


def _eval(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.Name) and node.id in _CONSTANTS:
        return _CONSTANTS[node.id]
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_eval(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left), _eval(node.right)
        if type(node.op) in (ast.Pow, ast.BitXor):
            _check_power(left, right)
        return _BINARY[type(node.op)](left, right)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _FUNCTIONS
        and not node.keywords
    ):
        return _FUNCTIONS[node.func.id](*(_eval(arg) for arg in node.args))
    raise ToolInputError(f"unsupported element in expression: {ast.unparse(node)!r}")


def _check_power(base: Any, exponent: Any) -> None:
    """Refuse powers whose result would exceed ``_MAX_RESULT_BITS`` bits."""
    magnitude = abs(base)
    if magnitude > 1 and abs(exponent) * math.log2(magnitude) > _MAX_RESULT_BITS:
        raise ToolInputError("result too large")


def format_number(value: int | float) -> str:
    """``value`` for humans: integers exact, floats to 12 significant digits (no ``.0``)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value) if isinstance(value, int) else format(value, ".12g")


def _calculator(params: dict[str, Any]) -> Iterator[dict[str, Any]]:
    expression = str(params["expression"])
    yield text_message(f"{expression} = {format_number(evaluate(expression))}")


# ---------------------------------------------------------------------------------------------
# current_time


@cache
def _zones_by_city() -> dict[str, str]:
    """Lower-case city (the last part of an IANA name, "_" as space) -> IANA name."""
    from zoneinfo import available_timezones

    cities: dict[str, str] = {}
    for name in sorted(available_timezones()):
        if "/" in name and not name.startswith(("Etc/", "SystemV/", "posix/", "right/")):
            cities.setdefault(name.rsplit("/", 1)[1].replace("_", " ").lower(), name)
    return cities


def find_zone(name: str) -> ZoneInfo:
    """The timezone ``name``: an IANA name ("Asia/Tokyo", "UTC") or the city of one ("Tokyo",
    "new york"), as people and models write it. Raises ``ToolInputError`` if there is none."""
    iana = name.strip() or "UTC"
    try:
        return ZoneInfo(iana)
    except (ZoneInfoNotFoundError, ValueError):
        city = _zones_by_city().get(" ".join(iana.replace("_", " ").split()).lower())
        if city:
            return ZoneInfo(city)
    raise ToolInputError(f"unknown timezone {name!r}; use an IANA name such as 'Europe/Paris'")


def _current_time(params: dict[str, Any]) -> Iterator[dict[str, Any]]:
    zone = find_zone(str(params.get("timezone") or "UTC"))
    yield text_message(datetime.now(zone).strftime(str(params.get("format") or "%Y-%m-%d %H:%M:%S %Z")))


# ---------------------------------------------------------------------------------------------
# unit_convert

_UNITS: dict[str, tuple[str, float]] = {
    # unit -> (dimension, size in the dimension's base unit: metre, kilogram)
    "mm": ("length", 0.001),
    "cm": ("length", 0.01),
    "m": ("length", 1.0),
    "km": ("length", 1000.0),
    "in": ("length", 0.0254),
    "ft": ("length", 0.3048),
    "yd": ("length", 0.9144),
    "mi": ("length", 1609.344),
    "nmi": ("length", 1852.0),
    "mg": ("mass", 1e-6),
    "g": ("mass", 0.001),
    "kg": ("mass", 1.0),
    "t": ("mass", 1000.0),
    "oz": ("mass", 0.028349523125),
    "lb": ("mass", 0.45359237),
    "st": ("mass", 6.35029318),
    "C": ("temperature", 0.0),
    "F": ("temperature", 0.0),
    "K": ("temperature", 0.0),
}
_ALIASES = {
    "millimeter": "mm",
    "millimetre": "mm",
    "centimeter": "cm",
    "centimetre": "cm",
    "meter": "m",
    "metre": "m",
    "kilometer": "km",
    "kilometre": "km",
    "inch": "in",
    "inches": "in",
    "foot": "ft",
    "feet": "ft",
    "yard": "yd",
    "mile": "mi",
    "nautical mile": "nmi",
    "milligram": "mg",
    "gram": "g",
    "kilogram": "kg",
    "kilo": "kg",
    "tonne": "t",
    "ton": "t",
    "ounce": "oz",
    "pound": "lb",
    "lbs": "lb",
    "stone": "st",
    "c": "C",
    "°c": "C",
    "celsius": "C",
    "f": "F",
    "°f": "F",
    "fahrenheit": "F",
    "k": "K",
    "kelvin": "K",
}
_TO_KELVIN = {"C": lambda v: v + 273.15, "F": lambda v: (v - 32) * 5 / 9 + 273.15, "K": lambda v: v}
_FROM_KELVIN = {"C": lambda k: k - 273.15, "F": lambda k: (k - 273.15) * 9 / 5 + 32, "K": lambda k: k}


def canonical_unit(name: str) -> str:
    """The unit symbol for ``name`` ("Kilometres" -> "km"); ``ToolInputError`` if unknown."""
    key = name.strip()
    for candidate in (key, key.lower(), key.lower().removesuffix("s")):
        if candidate in _UNITS:
            return candidate
        if candidate in _ALIASES:
            return _ALIASES[candidate]
    raise ToolInputError(f"unknown unit {name!r}; known: {', '.join(_UNITS)}")


def convert(value: float, from_unit: str, to_unit: str) -> float:
    """``value`` in ``from_unit`` expressed in ``to_unit`` (length, mass or temperature)."""
    source, target = canonical_unit(from_unit), canonical_unit(to_unit)
    (dimension, size), (target_dimension, target_size) = _UNITS[source], _UNITS[target]
    if dimension != target_dimension:
        raise ToolInputError(f"cannot convert {source} ({dimension}) to {target} ({target_dimension})")
    if dimension == "temperature":
        return _FROM_KELVIN[target](_TO_KELVIN[source](value))
    return value * size / target_size


def _unit_convert(params: dict[str, Any]) -> Iterator[dict[str, Any]]:
    value = params["value"]
    if not isinstance(value, (int, float)):
        raise ToolInputError(f"parameter 'value': expected a number, got {value!r}")
    source, target = canonical_unit(str(params["from_unit"])), canonical_unit(str(params["to_unit"]))
    result = convert(float(value), source, target)
    yield text_message(f"{format_number(value)} {source} = {format(result, '.6g')} {target}")


# ---------------------------------------------------------------------------------------------
# doc_search

_WORD = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?")
_STOPWORDS = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "how", "i", "in", "is", "it", "its", "my", "of", "on", "or", "the", "to", "what", "when", "where", "which", "who", "why", "will", "with", "you", "your"]
)


@dataclass(frozen=True)
class Section:
    """A searchable piece of a bundled document: one ``## `` section of a Markdown file."""

    source: str
    title: str
    heading: str
    text: str


def terms(text: str) -> list[str]:
    """Search terms of ``text``: lower-case words minus stop words, plural ``s`` removed."""
    words = _WORD.findall(text.lower())
    return [w.removesuffix("s") if len(w) > 3 else w for w in words if w not in _STOPWORDS]


@cache
def load_sections(directory: Path = DOCS_DIR) -> tuple[Section, ...]:
    """Every ``## `` section of the Markdown files in ``directory`` (the ``# `` line is the title)."""
    sections = []
    for path in sorted(directory.glob("*.md")):
        title, heading, lines = path.stem, "", []
        for line in [*path.read_text(encoding="utf-8").splitlines(), "## "]:
            if line.startswith("# "):
                title = line[2:].strip()
            elif line.startswith("## "):
                if "".join(lines).strip():
                    sections.append(Section(path.name, title, heading, "\n".join(lines).strip()))
                heading, lines = line[3:].strip(), []
            else:
                lines.append(line)
    return tuple(sections)


def search(query: str, top_k: int = 3, sections: tuple[Section, ...] | None = None) -> list[tuple[float, Section]]:
    """The ``top_k`` best ``(score, section)`` for ``query`` (tf-idf over sections; the title
    and heading count too). Sections with score 0 are left out."""
    sections = load_sections() if sections is None else sections
    counted = [Counter(terms(f"{s.title} {s.heading} {s.text}")) for s in sections]
    wanted = set(terms(query))
    scored = []
    for section, counts in zip(sections, counted, strict=True):
        score = sum(_idf(term, counted) * (1 + math.log(counts[term])) for term in wanted if counts[term])
        if score > 0:
            scored.append((round(score, 3), section))
    scored.sort(key=lambda pair: -pair[0])
    return scored[:top_k]


def _idf(term: str, counted: list[Counter[str]]) -> float:
    having = sum(1 for counts in counted if counts[term])
    return math.log(1 + len(counted) / having)


def _doc_search(params: dict[str, Any]) -> Iterator[dict[str, Any]]:
    query = str(params["query"])
    hits = search(query, max(1, int(params.get("top_k") or 3)))
    if not hits:
        yield text_message(f"No document matches {query!r}.")
        return
    parts = [
        f"[{n}] {s.title} - {s.heading} ({s.source}, score {score})\n{s.text}"
        for n, (score, s) in enumerate(hits, start=1)
    ]
    yield text_message("\n\n".join(parts))


# ---------------------------------------------------------------------------------------------
# the default toolbox


def builtin_tools() -> list[LocalTool]:
    """The four real local tools, declared as Dify would send them."""
    return [
        LocalTool(
            name="calculator",
            description="Evaluate an arithmetic expression exactly. Supports + - * / // % ** ( ) "
            "and sqrt, abs, round, min, max, floor, ceil, log, log10, exp, sin, cos, tan, pi, e.",
            parameters=[ToolParam("expression", description="The expression, e.g. (649 * 0.85) * 1.2")],
            handler=_calculator,
        ),
        LocalTool(
            name="current_time",
            description="Get the current date and time in a timezone.",
            parameters=[
                ToolParam(
                    "timezone",
                    description="IANA timezone name, e.g. Europe/Paris or UTC",
                    required=False,
                    default="UTC",
                ),
                ToolParam(
                    "format", description="strftime format", required=False, default="%Y-%m-%d %H:%M:%S %Z", form="form"
                ),
            ],
            runtime_parameters={"format": "%Y-%m-%d %H:%M:%S %Z"},
            handler=_current_time,
        ),
        LocalTool(
            name="unit_convert",
            description="Convert a quantity between units of length (mm, cm, m, km, in, ft, yd, mi, nmi), "
            "mass (mg, g, kg, t, oz, lb, st) or temperature (C, F, K).",
            parameters=[
                ToolParam("value", type="number", description="The quantity to convert"),
                ToolParam("from_unit", description="Unit of the value, e.g. km"),
                ToolParam("to_unit", description="Unit wanted, e.g. mi"),
            ],
            handler=_unit_convert,
        ),
        LocalTool(
            name="doc_search",
            description="Search the Northwind Robotics documentation (Rover R2 robot: specifications, "
            "battery, warranty, shipping, firmware, support) and return the best matching sections.",
            parameters=[
                ToolParam("query", description="Keywords to search for"),
                ToolParam(
                    "top_k",
                    type="number",
                    description="How many sections to return (default 3)",
                    required=False,
                    default=3,
                ),
            ],
            handler=_doc_search,
        ),
    ]


def default_toolbox() -> ToolBox:
    """A ``ToolBox`` with every built-in tool."""
    return ToolBox(builtin_tools())
