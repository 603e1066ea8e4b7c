"""The real-world replies of ``test_real_world_2026*`` again, with what a gateway, a chat template
or a model adds around the text: their calls and answers must not change.

Every case of those files' ``CASES`` whose outcome is a call or an answer (not a known gap of its
file: ``GAPS``) is perturbed one way at a time and read by each strategy it is for, with that
file's reader, whole and in pieces of 1 and 7 characters. The outcome must be the one the
unperturbed reply gives read whole: the same calls (names, arguments) and no more refused, or the
same answer, streamed as it is decided.

- ``crlf``: ``\\r\\n`` line ends (a gateway hosted on Windows, some templates), in the content and
  the reasoning. The readers make them ``\\n`` (``agent_core.reply_text``): the answer the user sees
  and the arguments have ``\\n`` line ends; the message goes back to the model as sent.
- ``bom``, ``zwsp``: a byte order mark or a zero-width space before the reply (its content, else
  its reasoning): left out.
- ``trailing-spaces``, ``trailing-tab``: spaces or a tab before every line end, content and
  reasoning. An answer or an argument keeps the text as written, so it is compared with those
  line ends' spaces and tabs set aside on both sides.
- ``nbsp``: a no-break space after a ReAct label's colon (``Action:\\u00a0``).
- ``leading-blank-line``, ``trailing-newline``, ``no-trailing-newline``: a line break added before
  or after the reply, or the one it ended with taken off.
- ``bold-labels``, ``fullwidth-colon`` (ReAct only): ``**Thought:**``, ``Thought：``.
- ``crlf+bom``, ``crlf+trailing-space``, ``crlf+bold-labels``, ``bom+leading-blank-line``: a
  Windows gateway's line ends with each of the others.

A perturbation that leaves a reply unchanged (no line break to pad, no label) is not a case of it.
"""

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from agent_core.turn import FinalAnswer, ToolCalls
from tests.unit.test_real_world_2026 import Case

_LABEL = re.compile(r"(?m)^([ \t]*)(Thought|Action Input|Action|Final Answer|Observation)[ \t]*:")
"""A ReAct label at a line start and its colon (group 2: the label)."""
_LINE_END_SPACE = re.compile(r"[ \t]+(?=\n|\Z)")


def _bold(text: str) -> str:
    return _LABEL.sub(lambda m: f"{m[1]}**{m[2]}:**", text)


@dataclass(frozen=True)
class Perturbation:
    change: Callable[[str], str]
    everywhere: bool = False  # content and reasoning; else the content, or the reasoning when it is all
    react_only: bool = False
    line_end_space: bool = False  # answers and arguments compared with spaces at line ends set aside


PERTURBATIONS = {
    "crlf": Perturbation(lambda t: t.replace("\n", "\r\n"), everywhere=True),
    "bom": Perturbation(lambda t: "\ufeff" + t),
    "zwsp": Perturbation(lambda t: "\u200b" + t),
    "trailing-spaces": Perturbation(lambda t: t.replace("\n", "  \n"), everywhere=True, line_end_space=True),
    "trailing-tab": Perturbation(lambda t: t.replace("\n", "\t\n"), everywhere=True, line_end_space=True),
    "nbsp": Perturbation(lambda t: _LABEL.sub(lambda m: f"{m[1]}{m[2]}:\u00a0", t)),
    "leading-blank-line": Perturbation(lambda t: "\n" + t),
    "trailing-newline": Perturbation(lambda t: t + "\n"),
    "no-trailing-newline": Perturbation(lambda t: t.rstrip("\n")),
    "bold-labels": Perturbation(_bold, react_only=True),
    "fullwidth-colon": Perturbation(lambda t: _LABEL.sub(lambda m: f"{m[1]}{m[2]}：", t), react_only=True),
    "crlf+bom": Perturbation(lambda t: "\ufeff" + t.replace("\n", "\r\n"), everywhere=True),
    "crlf+trailing-space": Perturbation(lambda t: t.replace("\n", " \r\n"), everywhere=True, line_end_space=True),
    "crlf+bold-labels": Perturbation(lambda t: _bold(t).replace("\n", "\r\n"), react_only=True),
    "bom+leading-blank-line": Perturbation(lambda t: "\ufeff\n" + t),
}


def _files() -> dict[str, Any]:
    """The real-world files whose ``CASES`` are ``Case`` replies, by module name."""
    modules = {}
    for path in sorted(Path(__file__).parent.glob("test_real_world_2026*.py")):
        module = importlib.import_module(f"tests.unit.{path.stem}")
        cases = getattr(module, "CASES", None)
        if isinstance(cases, dict) and cases and all(isinstance(case, Case) for case in cases.values()):
            modules[path.stem] = module
    return modules


FILES = _files()


def _perturbed(case: Case, perturbation: Perturbation) -> Case:
    change = perturbation.change
    if perturbation.everywhere:
        return replace(case, content=change(case.content), reasoning=change(case.reasoning))
    if case.content:
        return replace(case, content=change(case.content))
    return replace(case, reasoning=change(case.reasoning))


def _outcome(streamed: str, turn, line_end_space: bool) -> tuple:
    """What the user gets of a turn: its calls (name, arguments) and how many were refused, or its
    answer and the text streamed; anything else as its type."""
    decision = turn.decision
    if isinstance(decision, ToolCalls):
        found = ("calls", [(call.name, call.arguments) for call in decision.calls], len(decision.invalid))
    elif isinstance(decision, FinalAnswer):
        found = ("answer", decision.text, streamed.strip())
    else:
        found = (type(decision).__name__,)
    return _without_line_end_space(found) if line_end_space else found


def _without_line_end_space(value: Any) -> Any:
    if isinstance(value, str):
        return _LINE_END_SPACE.sub("", value)
    if isinstance(value, list | tuple):
        return type(value)(_without_line_end_space(item) for item in value)
    if isinstance(value, dict):
        return {key: _without_line_end_space(item) for key, item in value.items()}
    return value


@cache
def _unperturbed(stem: str, name: str, strategy: str, line_end_space: bool) -> tuple:
    module = FILES[stem]
    streamed, turn = module.read(strategy, module.CASES[name], None)
    return _outcome(streamed, turn, line_end_space)


def _params():
    for label, perturbation in PERTURBATIONS.items():
        for stem, module in FILES.items():
            gaps = getattr(module, "GAPS", {})
            for name, case in module.CASES.items():
                if case.calls is None and case.answer is None:
                    continue  # no call nor answer to keep
                if _perturbed(case, perturbation) == case:
                    continue
                for strategy in case.only:
                    if (name, strategy) in gaps or (perturbation.react_only and strategy != "react"):
                        continue
                    yield pytest.param(label, stem, name, strategy, id=f"{label}-{stem.removeprefix('test_')}-{name}-{strategy}")


@pytest.mark.parametrize(("label", "stem", "name", "strategy"), list(_params()))
def test_perturbed_reply_reads_as_the_reply(label, stem, name, strategy):
    perturbation = PERTURBATIONS[label]
    module = FILES[stem]
    want = _unperturbed(stem, name, strategy, perturbation.line_end_space)
    case = _perturbed(module.CASES[name], perturbation)
    for size in (None, 1, 7):
        streamed, turn = module.read(strategy, case, size)
        assert _outcome(streamed, turn, perturbation.line_end_space) == want, f"in pieces of {size}"


def test_every_perturbation_has_cases_of_both_strategies_where_it_is_for_both():
    counts: dict[str, set[str]] = {}
    for param in _params():
        label, _, _, strategy = param.values
        counts.setdefault(label, set()).add(strategy)
    for label, perturbation in PERTURBATIONS.items():
        assert counts.get(label) == ({"react"} if perturbation.react_only else {"react", "fc"}), label
