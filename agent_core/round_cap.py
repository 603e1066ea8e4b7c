"""The most tool calls one round runs, and what the model is told of the calls beyond it.

A reply may ask for any number of calls: a model looping in its output writes thousands of
ReAct actions, or a provider's stream carries a thousand parallel tool calls. Running them all
would keep the run busy until its deadline (minutes) and write a ``CALL`` node per call.
``split_round`` is the one place both strategies' calls are cut to ``MAX_CALLS_PER_ROUND``
(``agent_core.loop`` runs the first ones); the calls beyond it are never dropped silently:

- Function Calling: the assistant message goes back with every call it had, and each call not
  run gets its own tool message (``not_run_results``): providers refuse a tool call without
  its result. Calls the model wrote in its text go back as native calls only for those that
  ran; the count of the others is said once (``not_run_note``).
- ReAct: the last observation of the round says how many actions were not run and names the
  first few (``not_run_note``), never one line per action.
- The log: the round's ``CALLS NOT RUN`` node gives the count (``not_run_log``), no node per call.
"""

from collections.abc import Sequence

from agent_core import prompts
from agent_core.fairness import give_way
from agent_core.line_budget import label_shortened
from agent_core.tool_calls import InvalidToolCall, ToolCall
from agent_core.tool_runner import ToolResult

MAX_CALLS_PER_ROUND = 64
"""Tool calls one round runs at most; the rest of the reply's calls are answered "not run".

Real models ask for a few calls at once, a few dozen when they fan out over a list (the
weather of 30 cities, one search per document of a page): 64 leaves that room. Past it a reply
is a model looping in its output, not a plan: its calls run in 8 waves of
``tool_runner.DEFAULT_MAX_PARALLEL``, at most 64 ``CALL`` nodes are written, and the model
learns that the others did not run and can ask again, instead of a reply of thousands of calls
keeping the run busy until its deadline."""

NOT_RUN_NAMES_SHOWN = 5
"""Tools of the calls not run that the model and the log are told by name (the first, in order)."""

Call = ToolCall | InvalidToolCall


def split_round(calls: Sequence[Call], limit: int = MAX_CALLS_PER_ROUND) -> tuple[Sequence[Call], tuple[Call, ...]]:
    """``calls`` (in the order the model wrote them) as the calls the round runs, the first
    ``limit`` (``calls`` itself when there are no more), and the calls it does not run, in order
    (``()`` when none). ``limit`` is at least 1."""
    limit = max(1, limit)
    if len(calls) <= limit:
        return calls, ()
    return calls[:limit], tuple(calls[limit:])


def _names(calls: Sequence[Call]) -> str:
    """The distinct tool names of the first calls, at most ``NOT_RUN_NAMES_SHOWN``, with "…"
    when there are more: ``get_weather, get_time, …``; each name as a CALL node's label shows it
    (``line_budget.label_shortened``: a name the model wrote may be megabytes)."""
    names: list[str] = []
    for call in calls:
        give_way()  # thousands of calls of one tool
        name = label_shortened(call.name) if call.name else "(no name)"
        if name not in names:
            if len(names) == NOT_RUN_NAMES_SHOWN:
                return ", ".join(names) + ", …"
            names.append(name)
    return ", ".join(names)


def not_run_note(not_run: Sequence[Call], limit: int = MAX_CALLS_PER_ROUND) -> str:
    """What the model reads once for the calls of ``not_run`` (``''`` when there are none): their
    count, the first tools' names, and that it may ask again (``prompts.CALLS_NOT_RUN``)."""
    if not not_run:
        return ""
    return prompts.CALLS_NOT_RUN.format(count=len(not_run), names=_names(not_run), limit=limit)


def after_observation_note(names: Sequence[str]) -> str:
    """What the model reads once, after a round's last observation, of the actions its reply
    wrote after an ``Observation:`` it made up or a final answer it wrote before any result
    (``names``: their tools, in order; ``''`` when there are none): their count and first tools
    (``prompts.ACTIONS_AFTER_OBSERVATION``)."""
    if not names:
        return ""
    shown = list(dict.fromkeys(label_shortened(name) or "(no name)" for name in names))
    listed = ", ".join(shown[:NOT_RUN_NAMES_SHOWN]) + (", …" if len(shown) > NOT_RUN_NAMES_SHOWN else "")
    return prompts.ACTIONS_AFTER_OBSERVATION.format(count=len(names), names=listed)


def not_run_log(not_run: Sequence[Call], limit: int = MAX_CALLS_PER_ROUND) -> dict:
    """The data of the round's ``CALLS NOT RUN`` log node: the count, the limit, the first
    tools' names and the text shown."""
    names = _names(not_run)
    return {
        "calls_not_run": len(not_run),
        "limit": limit,
        "tools": names,
        "output": prompts.CALLS_NOT_RUN_LOG.format(count=len(not_run), limit=limit, names=names),
    }


def not_run_results(not_run: Sequence[Call], limit: int = MAX_CALLS_PER_ROUND) -> list[ToolResult]:
    """One ``ToolResult`` per call of ``not_run``, in order, whose observation says it was not
    run (``prompts.CALL_NOT_RUN``): the tool message each native call needs. Arguments are the
    call's (an invalid call's raw text: it goes back as ``{}``)."""
    results: list[ToolResult] = []
    for call in not_run:
        give_way()  # a thousand parallel calls
        arguments = call.arguments if isinstance(call, ToolCall) else call.raw_arguments
        text = prompts.CALL_NOT_RUN.format(name=call.name, limit=limit)
        results.append(ToolResult(call.id, call.name, arguments, observation=text, error=text))
    return results
