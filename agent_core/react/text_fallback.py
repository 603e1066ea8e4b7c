"""A JSON-step run's reply read as a text ReAct step when it is not a JSON step.

Many models ignore a response format: asked for ``{"action", "action_input"}`` (the
``json_schema`` step format, prompted where the model does not constrain its decoding), they
write ``Thought: ...`` / ``Action: search`` / ``Action Input: {...}`` or ``Final Answer: ...``
every time, and asking again never helps. Such a reply is read by the text reader
(``react.turn.read_react_turn``), so its call runs or its answer is given; the turn says so
(``ModelTurn.read_as`` ``"text"``: in the log, and its text goes back to the model as it wrote
it, ``json_prompt.round_steps``).

JSON steps stay preferred: the text reader is asked only about a reply the JSON reader refused
that does not open a JSON object (the JSON reader's judgement of a step stands, and nothing of
such a reply was streamed as an answer). It is taken only when it is a text step: a labelled
action whose every call names a node tool, or a labelled final answer (not a reply of plain
text); in a round that continues an answer the output limit cut, also plain text, read as the
answer's rest as in text steps.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from dataclasses import replace
from typing import Any

from agent_core.model_call import ModelChunk
from agent_core.react.json_step import continued_string, opens_object
from agent_core.react.turn import drained, read_react_turn, schema_answer_turn
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ModelTurn, ParseFailure, ToolCalls

READ_AS_TEXT = "text"
"""``ModelTurn.read_as`` of a JSON-step run's reply read as a text ReAct step."""


def as_text_step(
    turn: ModelTurn,
    registry: ToolRegistry,
    round_index: int,
    *,
    continues_answer: bool = False,
    answer_schema: Mapping[str, Any] | None = None,
    cut_step: str = "",
) -> Generator[str, None, ModelTurn]:
    """``turn`` (what ``json_step.read_json_step_turn`` made of a reply), or, when it is a
    ``ParseFailure`` whose visible text (``turn.raw``) is no JSON object but a text ReAct step,
    that text read as one: yields the answer's text (nothing was streamed of it before), returns
    the turn with the text reader's thought and decision, ``read_as`` ``"text"``; usage,
    reasoning, finish reason, content and ``opaque_body`` stay the reply's.

    ``continues_answer``: the round goes on with an answer the output limit cut (plain text is
    that answer's rest). ``answer_schema``: the user's JSON schema for the answer; a final answer
    read as text is checked against it (``react.turn.schema_answer_turn``), unless it continues a
    cut answer. The reply's ``finish_reason`` is passed on: a text step the output limit cut is
    judged as text steps judge one (a cut answer is continued, a cut action is not run).
    ``cut_step``: the visible text of the step whose answer it continues; a rest that goes on
    inside that step's string and closes what it left open (``json_step.continued_string``) is
    shown without that closing, its escapes read."""
    if not isinstance(turn.decision, ParseFailure) or not turn.raw.strip() or opens_object(turn.raw):
        return turn
    chunk = ModelChunk(text=turn.raw, finish_reason=turn.finish_reason)
    texts, read = drained(read_react_turn(iter((chunk,)), registry, round_index, continues_answer=continues_answer))
    if not _is_text_step(read, registry, continues_answer):
        return turn
    if continues_answer and cut_step and isinstance(read.decision, FinalAnswer):
        rest = continued_string(cut_step, read.decision.text)
        if rest is not None:
            texts, read = [rest], replace(read, decision=FinalAnswer(rest))
    if answer_schema and not continues_answer:
        read = yield from schema_answer_turn(_replayed(texts, read), answer_schema)
    else:
        yield from texts
    return replace(turn, thought=read.thought, decision=read.decision, read_as=READ_AS_TEXT)


def _is_text_step(read: ModelTurn, registry: ToolRegistry, continues_answer: bool) -> bool:
    """Whether the text reader's turn is a text step: calls that all name node tools, or a final
    answer given after a label (the thought, text before any label, is not the whole answer);
    any answer when it continues a cut one."""
    decision = read.decision
    if isinstance(decision, ToolCalls):
        calls, known = decision.in_order(), registry.prompt_tools_by_name()
        return bool(calls) and all(call.name in known for call in calls)
    if isinstance(decision, FinalAnswer) and decision.text.strip():
        return continues_answer or decision.text.strip() != read.thought.strip()
    return False


def _replayed(texts: list[str], turn: ModelTurn) -> Generator[str, None, ModelTurn]:
    """A turn reader that yields ``texts`` and returns ``turn``."""
    yield from texts
    return turn
