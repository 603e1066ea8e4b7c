"""The table-driven shape of the real-world passes run through the real plugin: each case a
``Reply`` row (a model reply from a public report, verbatim, and what a Dify user must get of
it), played by one test body with ``play_reply``.

    CASES = [
        # vllm-project/vllm PR #0: the report the reply comes from
        Reply("a-call-runs", '<tool_call>{"name": "f", "arguments": {"x": "1"}}</tool_call>', 7,
              "Go.", "Done.", tools=(Tool("f", ("x",)),), calls=(("f", {"x": "1"}),)),
    ]

    @pytest.mark.parametrize(("case", "strategy"), reply_params(CASES))
    def test_real_world_reply(run, case, strategy):
        play_reply(run, strategy, case)
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from local_runner.tools import ScriptedTool
from tests.e2e.helpers import SELF_SERVED, STRATEGIES, answer_turn, assert_clean, named_tool, tools_ran


@dataclass(frozen=True)
class Tool:
    """A scripted tool of a case: ``name`` with the string parameters ``params``, its calls
    answered in turn by the texts ``outputs``."""

    name: str
    params: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ("done",)

    def build(self) -> ScriptedTool:
        """A fresh ``ScriptedTool`` (one a run: a tool's answers are played once)."""
        return named_tool(self.name, *self.params, outputs=self.outputs)


@dataclass(frozen=True)
class Reply:
    """One model reply and what the user must get of it.

    ``reply``: the reply's text as the report shows it, streamed in pieces of ``split``
    characters (``framed``: written in the strategy's own answer format, ReAct's ``Final
    Answer:``, after ``before``); ``finish_reason``: the reply's, when not the default.
    ``query``: the user's question; ``tools``: the node's tools; ``model``: a model name served by
    the user's own OpenAI-compatible server (``None``: the runner's default model).
    ``calls``: the ``(tool, arguments)`` the run must make, in order (``unordered``: in any
    order). With calls, or with ``asked_again`` (the reply runs nothing and the model is asked
    again), the next turn answers ``answer`` and the run shows the text ending with it (the
    answer alone with ``exact``); with neither, the reply is the answer and the run shows
    ``answer`` alone. ``hidden``: texts the user never sees. ``strategies``: the strategies the
    case runs in."""

    id: str
    reply: str
    split: int
    query: str
    answer: str
    tools: tuple[Tool, ...] = ()
    calls: tuple[tuple[str, dict], ...] = ()
    unordered: bool = False
    asked_again: bool = False
    exact: bool = False
    framed: bool = False
    before: str = ""
    finish_reason: str | None = None
    hidden: tuple[str, ...] = ()
    model: str | None = None
    strategies: tuple[str, ...] = tuple(STRATEGIES)

    def first_turn(self, strategy: str) -> dict:
        """The scripted turn of the reply in ``strategy``."""
        text = self.before + answer_turn(strategy, self.reply)["text"] if self.framed else self.reply
        turn = {"text": text, "split": self.split}
        if self.finish_reason is not None:
            turn["finish_reason"] = self.finish_reason
        return turn


def reply_params(cases: list, ids: str = "{case}-{strategy}") -> list:
    """``pytest.param(case, strategy)`` for each case (a ``Reply``, or a ``pytest.param`` holding one
    with its marks, such as a strict xfail) in each of its strategies, with a readable id."""
    params = []
    for entry in cases:
        case, marks = (entry.values[0], entry.marks) if hasattr(entry, "values") else (entry, ())
        params += [pytest.param(case, strategy, marks=marks, id=ids.format(case=case.id, strategy=strategy))
                   for strategy in case.strategies]
    return params


def play_reply(run, strategy: str, case: Reply):
    """Play ``case`` through the real plugin in ``strategy`` (``run``: the e2e ``run`` fixture) and
    check what the user got: a clean end with every scripted turn played and no more model calls,
    the calls made as the case says, the answer, and none of the hidden texts. Returns the run's
    ``RunResult`` for a case's own further checks."""
    turns = [case.first_turn(strategy)]
    follows = bool(case.calls) or case.asked_again
    if follows:
        turns.append(answer_turn(strategy, case.answer))
    fields = {"model": dict(SELF_SERVED, model=case.model)} if case.model else {}
    result = run(turns, query=case.query, tools=[tool.build() for tool in case.tools], strategy=strategy, **fields)
    assert_clean(result, run)
    assert len(run.backend.requests) == len(turns), "the model was asked more often than scripted"
    ran, expected = tools_ran(result), [(name, arguments) for name, arguments in case.calls]
    if case.unordered:
        ran, expected = sorted(ran, key=repr), sorted(expected, key=repr)
    assert ran == expected, ran
    shown = result.text.strip()
    if follows and not case.exact:
        assert shown.endswith(case.answer), shown
    else:
        assert shown == case.answer, shown
    for text in case.hidden:
        assert text not in result.text, (text, result.text)
    return result


def chunks_turn(chunks: list[dict]) -> dict:
    """A scripted turn replaying ``chunks`` (``LLMResultChunk`` dicts) as the model plugin sent them:
    each chunk's content, tool calls and finish reason as one delta."""
    deltas = []
    for chunk in chunks:
        message, delta = chunk["delta"]["message"], {}
        if message.get("content"):
            delta["content"] = message["content"]
        if message.get("tool_calls"):
            delta["tool_calls"] = message["tool_calls"]
        if chunk["delta"].get("finish_reason"):
            delta["finish_reason"] = chunk["delta"]["finish_reason"]
        deltas.append(delta)
    return {"chunks": deltas, "finish_reason": None}
