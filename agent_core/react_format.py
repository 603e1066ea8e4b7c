"""The ReAct text format: prompts for chat and completion models, the
scratchpad of this run, and turning a parsed action into a tool call.

Chat models get: system (instruction, knowledge, tools, format), memory,
the query, then this run's scratchpad as an assistant message followed by a
short user nudge (some providers reject a conversation ending on the
assistant). Completion models get one text, as Dify's core CoT completion
runner builds it: instruction, tools and format, earlier turns as
Question/Final Answer, the current Question, the scratchpad, ending in
``Thought:``.
"""

import json
from collections.abc import Mapping, Sequence
from typing import Any

from dify_plugin.entities.model.message import (
    AssistantPromptMessage,
    PromptMessage,
    PromptMessageTool,
    UserPromptMessage,
)

from agent_core import prompts
from agent_core.loop import RunState
from agent_core.messages import query_message, system_message
from agent_core.tool_calls import ToolCall
from agent_core.turn import ParseFailure, ToolCalls

STOP_WORD = "Observation"
_NO_STOP_MODELS = ("o1", "o3", "o4", "gpt-5")
"""OpenAI reasoning models reject the ``stop`` parameter."""


def tools_block(tools: Sequence[PromptMessageTool]) -> str:
    """The tool list and the format rules, for the system prompt."""
    if not tools:
        return prompts.REACT_NO_TOOLS
    lines = [
        prompts.REACT_TOOL_LINE.format(
            name=tool.name,
            description=tool.description.strip() or tool.name,
            schema=json.dumps(tool.parameters, ensure_ascii=False, separators=(",", ":")),
        )
        for tool in tools
    ]
    names = ", ".join(tool.name for tool in tools)
    return "\n".join([prompts.REACT_TOOLS_HEADER, *lines, "", prompts.REACT_FORMAT.format(names=names)])


def stop_words(model_name: str) -> list[str]:
    """``Observation`` as a stop word, except for models known to reject ``stop``."""
    name = model_name.lower()
    return [] if name.startswith(_NO_STOP_MODELS) else [STOP_WORD]


def _action_text(call: ToolCall) -> str:
    blob = json.dumps({"action": call.name, "action_input": call.arguments}, ensure_ascii=False)
    return f"Action:\n```json\n{blob}\n```"


def scratchpad(run: RunState) -> str:
    """This run so far as Thought / Action / Observation text ('' before the first round)."""
    parts: list[str] = []
    for round_ in run.rounds:
        thought = round_.turn.thought.strip()
        decision = round_.turn.decision
        if isinstance(decision, ToolCalls):
            calls = {call.id: call for call in decision.calls}
            parts.append(f"Thought: {thought}" if thought else "Thought:")
            for result in round_.results:
                if result.call_id in calls:
                    parts.append(_action_text(calls[result.call_id]))
                parts.append(f"Observation: {run.observation(round_, result)}")
        elif isinstance(decision, ParseFailure):
            if round_.turn.raw.strip():
                parts.append(round_.turn.raw.strip())
            parts.append("Observation: " + prompts.REACT_FORMAT_PROBLEM.format(problem=decision.problem))
    return "\n".join(parts)


def chat_prompt(run: RunState) -> list[PromptMessage]:
    """Prompt messages for a chat model."""
    params = run.params
    tools = tools_block(run.registry.prompt_tools())
    vision = "vision" in params.model_features() and run.round_index == 1
    messages: list[PromptMessage] = [
        *system_message(params, tools, run.limit_note()),
        *_plain_history(run.history()),
        query_message(params, images_as_content=vision),
    ]
    pad = scratchpad(run)
    if pad:
        messages += [AssistantPromptMessage(content=pad), UserPromptMessage(content=prompts.REACT_CONTINUE)]
    return messages


def completion_prompt(run: RunState) -> list[PromptMessage]:
    """One user message holding the whole completion prompt, ending in ``Thought:``."""
    params = run.params
    head = "\n\n".join(
        m.content for m in system_message(params, tools_block(run.registry.prompt_tools()), run.limit_note())
        if isinstance(m.content, str)
    )
    turns = [_history_line(m) for m in _plain_history(run.history())]
    query = query_message(params, images_as_content=False).content
    lines = [head, *[t for t in turns if t], prompts.REACT_COMPLETION_QUESTION.format(text=query)]
    pad = scratchpad(run)
    if pad:
        lines.append(pad)
    return [UserPromptMessage(content="\n\n".join(lines).rstrip() + "\nThought:")]


def _plain_history(history: Sequence[PromptMessage]) -> list[PromptMessage]:
    """Memory without tool messages: a ReAct prompt has no native tool turns."""
    kept = []
    for message in history:
        if message.role.value == "tool":
            continue
        if isinstance(message, AssistantPromptMessage):
            if not message.content:
                continue
            message = AssistantPromptMessage(content=message.content)
        kept.append(message)
    return kept


def _history_line(message: PromptMessage) -> str:
    text = message.get_text_content() if hasattr(message, "get_text_content") else str(message.content or "")
    if message.role.value == "user":
        return prompts.REACT_COMPLETION_QUESTION.format(text=text)
    if message.role.value == "assistant":
        return prompts.REACT_COMPLETION_ANSWER.format(text=text)
    return ""


def _schema_properties(tool: PromptMessageTool | None) -> Mapping[str, Any]:
    if tool is None:
        return {}
    properties = tool.parameters.get("properties") if isinstance(tool.parameters, Mapping) else None
    return properties if isinstance(properties, Mapping) else {}


def action_arguments(action_input: dict | str | None, tool: PromptMessageTool | None) -> dict[str, Any]:
    """A parsed ``action_input`` as tool arguments.

    A dict is used as is, except a copy of the JSON schema itself (``type`` and
    ``properties`` keys the tool does not have: llamaindex12699), which means
    "no arguments". A string goes to the tool's single parameter when it has
    exactly one (dify2949, qwen197), else under ``input``. None means ``{}``.
    """
    properties = _schema_properties(tool)
    if isinstance(action_input, dict):
        echoed = {"type", "properties"} <= action_input.keys() and not {"type", "properties"} & properties.keys()
        return {} if echoed else action_input
    if action_input is None or not str(action_input).strip():
        return {}
    if len(properties) == 1:
        return {next(iter(properties)): action_input}
    return {"input": action_input}
