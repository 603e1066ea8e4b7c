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
from agent_core.answer_schema import schema_text
from agent_core.messages import query_message
from agent_core.react.json_step import FINAL_ANSWER, step_text
from agent_core.react.prompt import completion_head, example_arguments, plain_history, tool_purpose
from agent_core.round_cap import not_run_note
from agent_core.run_state import Round, RunState
from agent_core.turn import FinalAnswer, ParseFailure, ToolCalls


def format_block(tools: Sequence[PromptMessageTool]) -> str:
    """The step format, the tools and the examples, as blocks separated by blank lines."""
    if not tools:
        return prompts.JSON_STEP_NO_TOOLS
    names = ", ".join(json.dumps(name) for name in [*(tool.name for tool in tools), FINAL_ANSWER])
    lines = [
        prompts.JSON_STEP_TOOL_LINE.format(
            name=tool.name,
            description=" ".join((tool.description or "").split()) or tool.name,
            schema=json.dumps(tool.parameters, ensure_ascii=False, separators=(",", ":")),
        )
        for tool in tools
    ]
    worked = "\n".join(_line(kind, text) for kind, text in prompts.JSON_STEP_WORKED)
    calls = [_example_call(tool) for tool in tools]
    return "\n\n".join([
        prompts.JSON_STEP_INTRO.format(names=names),
        "\n".join([prompts.JSON_STEP_TOOLS_HEADER, *lines]),
        prompts.JSON_STEP_EXAMPLES_HEADER,
        worked,
        *calls,
    ])


def json_answer_note(run: RunState) -> str:
    """The prompt's note saying the final answer's ``action_input`` is a value of the user's JSON
    schema (``StrategyParams.answer_schema``); ``''`` when none is set. Built once per run."""
    schema = run.params.answer_schema
    if not schema:
        return ""
    if "json-answer-note" not in run.rendered:
        run.rendered["json-answer-note"] = prompts.JSON_STEP_ANSWER_SCHEMA.format(schema=schema_text(schema))
    return run.rendered["json-answer-note"]


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
    return prompts.JSON_STEP_QUESTION.format(text=question) + "\n" + step_text(tool.name, arguments)


def round_steps(run: RunState, round_: Round) -> list[tuple[str, str]]:
    """One finished round as (step, observation) pairs: what the model wrote, as a clean step,
    and what came back (a tool's observation, or what was wrong with the step)."""
    decision = round_.turn.decision
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
        return [(step_text(FINAL_ANSWER, {"answer": decision.text}), prompts.CONTINUE_CUT_ANSWER)]
    if isinstance(decision, ParseFailure):
        return [(round_.turn.raw.strip(), prompts.JSON_STEP_FORMAT_PROBLEM.format(problem=decision.problem))]
    return []


def _pairs(run: RunState) -> list[tuple[str, str]]:
    """Every finished round's pairs, each round rendered once (``RunState.rendered``)."""
    pairs: list[tuple[str, str]] = []
    for round_ in run.rounds:
        key = ("json-step", round_.index, run.is_shortened(round_))
        if key not in run.rendered:
            run.rendered[key] = round_steps(run, round_)
        pairs += run.rendered[key]
    return pairs


def json_chat_prompt(run: RunState) -> list[PromptMessage]:
    """Prompt messages for a chat model: each step an assistant message, each observation a
    user message (a step left empty is not sent: providers refuse empty messages)."""
    block = run.render_tools(format_block)
    messages: list[PromptMessage] = [
        *run.system(block, json_answer_note(run), run.limit_note()),
        *plain_history(run.history()),
        run.query(),
    ]
    for step, observation in _pairs(run):
        if step:
            messages.append(AssistantPromptMessage(content=step))
        messages.append(UserPromptMessage(content=prompts.JSON_STEP_OBSERVATION.format(text=observation)))
    return messages


def json_completion_prompt(run: RunState) -> list[PromptMessage]:
    """One user message holding the whole completion prompt, ending where the next step goes."""
    params = run.params
    head = completion_head(run, run.render_tools(format_block), json_answer_note(run))
    turns = []
    for message in plain_history(run.history()):
        text = message.get_text_content() if hasattr(message, "get_text_content") else str(message.content or "")
        if message.role.value == "user":
            turns.append(prompts.JSON_STEP_QUESTION.format(text=text))
        elif message.role.value == "assistant":
            turns.append(step_text(FINAL_ANSWER, {"answer": text}))
    query = query_message(params, images_as_content=False).content
    current = [prompts.JSON_STEP_QUESTION.format(text=query)]
    for step, observation in _pairs(run):
        current += [step, prompts.JSON_STEP_OBSERVATION.format(text=observation)]
    return [UserPromptMessage(content="\n\n".join([head, *turns]) + "\n\n" + "\n".join(current) + "\n")]
