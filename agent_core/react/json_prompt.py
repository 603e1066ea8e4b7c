"""Prompts for ReAct steps written as JSON objects (the ``json_schema`` step format).

Chat models get: system (instruction, knowledge, the step format, the tools with their argument
schemas, examples), memory, the query, then each round of this run as an assistant message
holding its step and a user message holding the observation. Completion models get the same as
one text: the head, earlier turns, ``Question:``, then each step and ``Observation:`` line,
ending on a new line where the next step goes.

The examples: one worked run with a made-up tool (its answer copies the observation), then one
call per node tool whose question is the tool's purpose (``react.prompt.tool_purpose``), last,
so the nearest examples name real tools.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from dify_plugin.entities.model.message import (
    AssistantPromptMessage,
    PromptMessage,
    PromptMessageTool,
    UserPromptMessage,
)

from agent_core import prompts
from agent_core.budget import in_pieces
from agent_core.memo import per_object
from agent_core.messages import query_message
from agent_core.own_text import filled, joined, note_own, own
from agent_core.react.json_step import FINAL_ANSWER, step_text
from agent_core.react.prompt import answer_note, completion_head, example_arguments, plain_history, tool_purpose
from agent_core.round_cap import not_run_note
from agent_core.run_state import Round, RunState
from agent_core.tool_schema import schema_json
from agent_core.turn import FinalAnswer, ParseFailure, ToolCalls


def format_block(tools: Sequence[PromptMessageTool]) -> str:
    """The step format, the tools and the examples, as blocks separated by blank lines."""
    if not tools:
        return own(prompts.JSON_STEP_NO_TOOLS)
    names = joined(", ", [*(json.dumps(tool.name) for tool in tools), own(json.dumps(FINAL_ANSWER))], own_separator=False)
    lines = [
        filled(
            prompts.JSON_STEP_TOOL_LINE,
            name=tool.name,
            description=" ".join((tool.description or "").split()) or tool.name,
            schema=schema_json(tool.parameters),
        )
        for tool in tools
    ]
    worked = own("\n".join(_line(kind, text) for kind, text in prompts.JSON_STEP_WORKED))  # made-up: all the plugin's
    calls = [_example_call(tool) for tool in tools]
    return joined("\n\n", [
        filled(prompts.JSON_STEP_INTRO, names=names),
        joined("\n", [own(prompts.JSON_STEP_TOOLS_HEADER), *lines]),
        own(prompts.JSON_STEP_EXAMPLES_HEADER),
        worked,
        *calls,
    ])


def _line(kind: str, text: str) -> str:
    if kind == "Question":
        return prompts.JSON_STEP_QUESTION.format(text=text)
    if kind == "Observation":
        return prompts.JSON_STEP_OBSERVATION.format(text=text)
    return text


def _example_call(tool: PromptMessageTool) -> str:
    """``Question: <purpose>: <values>`` and the step that calls ``tool`` for it."""
    arguments = example_arguments(tool)
    purpose = tool_purpose(tool)
    values = " ".join(str(value) for value in arguments.values())
    question = purpose[:1].upper() + purpose[1:] + (f": {values}" if values else "")
    return joined("\n", [filled(prompts.JSON_STEP_QUESTION, text=question), step_text(tool.name, arguments)])


def round_steps(run: RunState, round_: Round) -> list[tuple[str, str]]:
    """One finished round as (step, observation) pairs: what the model wrote, as a clean step,
    and what came back (a tool's observation, or what was wrong with the step). A reply read as
    a text ReAct step (``ModelTurn.read_as``) is its text as written (``_as_written``)."""
    decision = round_.turn.decision
    if round_.turn.read_as and isinstance(decision, (ToolCalls, FinalAnswer)):
        return _as_written(run, round_)
    if isinstance(decision, ToolCalls):
        calls = {call.id: call for call in decision.calls}
        invalid = {call.id: call for call in decision.invalid}
        pairs = []
        for result in round_.results:
            if result.call_id in calls:
                step = step_text(calls[result.call_id].name, calls[result.call_id].arguments)
            elif result.call_id in invalid:
                step = round_.turn.raw.strip() or invalid[result.call_id].raw_arguments
            else:
                continue
            pairs.append((step, run.observation(round_, result)))
        if round_.not_run and pairs:  # calls beyond the cap (a JSON step holds one: never so far)
            pairs[-1] = (pairs[-1][0], pairs[-1][1] + "\n\n" + not_run_note(round_.not_run))
        return pairs
    if isinstance(decision, FinalAnswer) and round_.turn.cut:  # the model is asked for the rest
        return [(step_text(FINAL_ANSWER, {"answer": decision.text}), own(prompts.CONTINUE_CUT_ANSWER))]
    if isinstance(decision, ParseFailure):
        return [(round_.turn.raw.strip(), filled(prompts.JSON_STEP_FORMAT_PROBLEM, problem=decision.problem))]
    return []


def _as_written(run: RunState, round_: Round) -> list[tuple[str, str]]:
    """A round whose reply was read as a text ReAct step: that text as the model wrote it (its
    visible text) and one observation holding every call's result in order (each after the
    first on its own ``Observation:`` line: one user message, as chat templates alternate
    roles), or, for an answer the output limit cut, the request for its rest; ``[]`` for a
    complete answer or a round whose calls got no result."""
    text = round_.turn.raw.strip()
    if isinstance(round_.turn.decision, FinalAnswer):
        return [(text, own(prompts.CONTINUE_CUT_ANSWER))] if round_.turn.cut else []
    observations = [run.observation(round_, result) for result in round_.results]
    if not observations:
        return []
    if round_.not_run:
        observations[-1] += "\n\n" + not_run_note(round_.not_run)
    joined = "\n\n".join([observations[0], *(prompts.JSON_STEP_OBSERVATION.format(text=o) for o in observations[1:])])
    return [(text, joined)]


def _round_messages(run: RunState, round_: Round) -> list[PromptMessage]:
    """One finished round as chat messages (``json_chat_prompt``), made once per round and
    rendering (``RunState.rendered``): the same objects every round, measured and dumped once."""
    key = ("json-step-messages", round_.index, run.is_shortened(round_))
    if key not in run.rendered:
        messages: list[PromptMessage] = []
        for step, observation in round_steps(run, round_):
            if step:
                messages.append(note_own(AssistantPromptMessage(content=step), step))
            seen = filled(prompts.JSON_STEP_OBSERVATION, text=observation)
            messages.append(note_own(UserPromptMessage(content=seen), seen))
        run.rendered[key] = messages
    return run.rendered[key]


def _round_lines(run: RunState, round_: Round) -> list[str]:
    """One finished round as completion prompt lines (each step, then its ``Observation:``
    line), made once per round and rendering: the same text objects every round."""
    key = ("json-step-lines", round_.index, run.is_shortened(round_))
    if key not in run.rendered:
        lines: list[str] = []
        for step, observation in round_steps(run, round_):
            lines += (step, filled(prompts.JSON_STEP_OBSERVATION, text=observation))
        run.rendered[key] = lines
    return run.rendered[key]


def json_chat_prompt(run: RunState) -> list[PromptMessage]:
    """Prompt messages for a chat model: each step an assistant message, each observation a
    user message (a step left empty is not sent: providers refuse empty messages)."""
    block = run.render_tools(format_block)
    messages: list[PromptMessage] = [
        *run.system(block, answer_note(run, prompts.JSON_STEP_ANSWER_SCHEMA), run.limit_note()),
        *plain_history(run.history()),
        run.query(),
    ]
    for round_ in run.rounds:
        messages += _round_messages(run, round_)
    return messages


def json_completion_prompt(run: RunState) -> list[PromptMessage]:
    """One user message holding the whole completion prompt, ending where the next step goes:
    the head and the earlier turns a blank line apart, then the question, each step and each
    observation a line apart. The message is counted by its pieces (``budget.in_pieces``): each
    is counted once in a run, not the whole text every round."""
    params = run.params
    pieces = [completion_head(run, run.render_tools(format_block), answer_note(run, prompts.JSON_STEP_ANSWER_SCHEMA))]
    for message in plain_history(run.history()):
        if (turn := _history_turn(message)) is not None:
            pieces += (_BLANK_LINE, turn)
    query = query_message(params, images_as_content=False).content
    pieces += (_BLANK_LINE, filled(prompts.JSON_STEP_QUESTION, text=query))
    for round_ in run.rounds:
        for line in _round_lines(run, round_):
            pieces += (_NEW_LINE, line)
    pieces.append(_NEW_LINE)
    return [in_pieces(UserPromptMessage(content="".join(pieces)), pieces)]


_BLANK_LINE, _NEW_LINE = own("\n\n"), own("\n")


@per_object
def _history_turn(message: PromptMessage) -> str | None:
    """A memory message as a completion prompt's turn (``Question:``, or the answer as a final
    step; None for another role), once per message object."""
    text = message.get_text_content() if hasattr(message, "get_text_content") else str(message.content or "")
    if message.role.value == "user":
        return filled(prompts.JSON_STEP_QUESTION, text=text)
    if message.role.value == "assistant":
        return step_text(FINAL_ANSWER, {"answer": text})
    return None
