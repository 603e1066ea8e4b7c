"""What one model call decided: the typed value the loop acts on.

A strategy's ``read_turn`` returns a ``ModelTurn`` whose ``decision`` is a
``FinalAnswer``, ``ToolCalls`` or ``ParseFailure``; the loop chooses what to
do next from it, in one place.
"""

from dataclasses import dataclass

from dify_plugin.entities.model.llm import LLMUsage

from agent_core.tool_calls import InvalidToolCall, ToolCall


@dataclass(frozen=True)
class FinalAnswer:
    """The model answered; ``text`` was already streamed to the user."""

    text: str


@dataclass(frozen=True)
class ToolCalls:
    """The model asked for tools: valid ``calls`` and ``invalid`` ones (bad JSON…)."""

    calls: tuple[ToolCall, ...]
    invalid: tuple[InvalidToolCall, ...] = ()


@dataclass(frozen=True)
class ParseFailure:
    """Neither an answer nor a usable call; ``problem`` is told to the model."""

    problem: str


Decision = FinalAnswer | ToolCalls | ParseFailure


@dataclass(frozen=True)
class ModelTurn:
    """What one model call produced.

    ``thought`` is the visible text (the answer itself for a ``FinalAnswer``),
    ``reasoning`` the hidden reasoning (``<think>``), ``usage`` the call's usage.
    """

    thought: str
    decision: Decision
    usage: LLMUsage
    reasoning: str = ""
    finish_reason: str | None = None
    raw: str = ""
