"""What one model call decided: the typed value the loop acts on.

A strategy's ``read_turn`` returns a ``ModelTurn`` whose ``decision`` is a
``FinalAnswer``, ``ToolCalls`` or ``ParseFailure``; the loop chooses what to
do next from it, in one place.
"""

import functools
from dataclasses import dataclass
from typing import Any

from dify_plugin.entities.model.llm import LLMUsage

from agent_core.tool_calls import LENGTH_FINISH_REASONS, InvalidToolCall, ToolCall


@dataclass(frozen=True)
class FinalAnswer:
    """The model answered; ``text`` was already streamed to the user."""

    text: str


@dataclass(frozen=True)
class ToolCalls:
    """The model asked for tools: valid ``calls`` and ``invalid`` ones (bad JSON…).
    ``in_text``: the calls were read from the model's text, not sent as native tool calls."""

    calls: tuple[ToolCall, ...]
    invalid: tuple[InvalidToolCall, ...] = ()
    in_text: bool = False
    order: tuple[str, ...] = ()
    """The calls' ids in the order the model wrote them (empty: valid calls first)."""

    def in_order(self) -> list[ToolCall | InvalidToolCall]:
        """Every call, valid or not, in the order the model wrote them: their results go back
        in that order, as the reply that made them has them."""
        every: list[ToolCall | InvalidToolCall] = [*self.calls, *self.invalid]
        if not self.order or not self.invalid:
            return every
        rank = {call_id: number for number, call_id in enumerate(self.order)}
        return sorted(every, key=lambda call: rank.get(call.id, len(rank)))


@dataclass(frozen=True)
class ParseFailure:
    """Neither an answer nor a usable call; ``problem`` is told to the model. ``fallback``: the
    text to answer with if the model keeps failing so (the retries run out), ``""`` for none.
    ``continues``: the fallback is the rest of text the reply already streamed, so it is shown
    right after it as written (no paragraph break, its leading whitespace kept)."""

    problem: str
    fallback: str = ""
    continues: bool = False


Decision = FinalAnswer | ToolCalls | ParseFailure


@dataclass(frozen=True)
class ModelTurn:
    """What one model call produced.

    ``thought`` is the visible text (the answer itself for a ``FinalAnswer``),
    ``reasoning`` the hidden reasoning (``<think>``), ``usage`` the call's usage.
    ``content`` and ``opaque_body`` are the model's message exactly as its model plugin
    sent it (reasoning blocks and provider data included): what goes back to the model
    within the run, never to the user (docs/model-round-trip.md).
    ``read_as``: the format the reply was read in when it is not the one the run asked for
    (``"text"``: a JSON-step run's reply read as a text ReAct step), ``""`` otherwise.
    """

    thought: str
    decision: Decision
    usage: LLMUsage
    reasoning: str = ""
    finish_reason: str | None = None
    raw: str = ""
    content: str | list[dict[str, Any]] = ""
    opaque_body: Any = None
    read_as: str = ""
    answer_whole: bool = False
    """The output limit cut the reply after its final answer had ended (ReAct: the model wrote on
    into the format, and the limit cut what the reader drops): the answer is complete."""
    after_answer: str = ""
    """What the reply went on with after its final answer ended, not read (ReAct: an ``Action:``
    step, an invented ``Observation:``): never run nor shown, only logged. For a ReAct turn of
    tool calls: what followed its actions from an ``Observation:`` it made up on
    (``ReactTurn.after_actions``)."""
    calls_after_answer: tuple[str, ...] = ()
    """The tools the actions in ``after_answer`` named, in order (not run; for a turn of tool
    calls the model is told so after the round's last observation); in ReAct, first those of
    the calls a JSON list put after its "Final Answer" object."""

    @property
    def at_limit(self) -> bool:
        """True when the model stopped at its output limit (``finish_reason`` ``length``): the
        reply's text ends where the limit fell."""
        return (self.finish_reason or "").lower() in LENGTH_FINISH_REASONS

    @functools.cached_property
    def cut(self) -> bool:
        """True when the model stopped at its output limit (``at_limit``) and the reply's step
        is not complete, whatever it looks like: all but an answer that had ended before the
        limit fell (``answer_whole``). Worked out once per turn (a round asks it three times or
        more; the fields it reads never change: the class is frozen)."""
        return not self.answer_whole and self.at_limit

    def with_usage(self, usage: LLMUsage) -> "ModelTurn":
        """This turn with ``usage`` in place of its own: what ``dataclasses.replace(self,
        usage=usage)`` gives (the fields copied, none checked or converted: the class has no
        ``__post_init__``), without its field walk and frozen ``__init__`` (some 8 µs, once a round)."""
        turn = object.__new__(type(self))
        fields = turn.__dict__  # frozen forbids setting attributes, not filling the new instance's dict
        fields.update(self.__dict__)
        fields["usage"] = usage
        return turn
