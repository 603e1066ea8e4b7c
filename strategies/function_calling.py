"""The Function Calling strategy: the model calls tools through its native API.

Each round sends the instruction, memory, the query and this run's
assistant/tool messages, with every configured tool declared (also on the
last round: providers such as Anthropic reject a history with tool calls
but no tools). It streams when the model declares ``stream-tool-call``.
"""

import json
from collections.abc import Generator, Iterator

from dify_plugin.entities.agent import AgentInvokeMessage
from dify_plugin.entities.model.message import (
    AssistantPromptMessage,
    PromptMessage,
    ToolPromptMessage,
    UserPromptMessage,
)
from dify_plugin.interfaces.agent import AgentStrategy

from agent_core import prompts
from agent_core.fc_turn import read_function_calling_turn
from agent_core.logs import LogNode
from agent_core.loop import AgentLoop, StrategySteps
from agent_core.messages import system_message
from agent_core.model_turn import ModelChunk, ModelRequest
from agent_core.params import StrategyParams
from agent_core.run_state import Round, RunState
from agent_core.turn import ModelTurn, ParseFailure, ToolCalls
from strategies.react import ReActSteps


def _assistant_message(round_: Round, with_calls: bool) -> AssistantPromptMessage:
    """The round's assistant message as the model plugin produced it (content with its
    reasoning blocks, ``opaque_body``, tool-call ids and names: docs/model-round-trip.md).
    Arguments are sent as the JSON the tool ran with; a call whose arguments could not be
    read goes back as ``{}`` (its tool message says what was wrong), since some model
    plugins parse them."""
    calls = [
        AssistantPromptMessage.ToolCall(
            id=result.call_id,
            type="function",
            function=AssistantPromptMessage.ToolCall.ToolCallFunction(
                name=result.name,
                arguments=json.dumps(result.arguments, ensure_ascii=False) if isinstance(result.arguments, dict) else "{}",
            ),
        )
        for result in round_.results
    ] if with_calls else []
    turn = round_.turn
    return AssistantPromptMessage(content=turn.content, tool_calls=calls, opaque_body=turn.opaque_body)


def render_round(run: RunState, round_: Round) -> list[PromptMessage]:
    """A finished round as chat messages: the assistant's message with its calls, then one
    tool message per call (with ``tool_call_id`` and ``name``), or the model's unreadable
    reply followed by what was wrong with it (a reply with no visible text, only reasoning,
    is left out: no provider needs reasoning without a tool call, and some reject an
    assistant message without text)."""
    decision = round_.turn.decision
    if isinstance(decision, ToolCalls) and round_.results:
        tool_messages = [
            ToolPromptMessage(content=run.observation(round_, r), tool_call_id=r.call_id, name=r.name) for r in round_.results
        ]
        return [_assistant_message(round_, with_calls=True), *tool_messages]
    if isinstance(decision, ParseFailure):
        said = [_assistant_message(round_, with_calls=False)] if round_.turn.thought.strip() else []
        return [*said, UserPromptMessage(content=decision.problem)]
    return []


class FunctionCallingSteps:
    """The two steps of Function Calling (see ``agent_core.loop.StrategySteps``)."""

    def build_request(self, run: RunState) -> ModelRequest:
        """System (instruction, knowledge, limit note), memory, query, this run's rounds."""
        params = run.params
        features = params.model_features()
        messages: list[PromptMessage] = [*system_message(params, run.limit_note()), *run.history(), run.query()]
        for round_ in run.rounds:
            messages.extend(render_round(run, round_))
        tools = run.registry.prompt_tools()
        return ModelRequest(prompt_messages=messages, tools=tools, stream=not tools or "stream-tool-call" in features)

    def read_turn(self, chunks: Iterator[ModelChunk], run: RunState) -> Generator[str, None, ModelTurn]:
        """Stream the text, assemble the tool calls."""
        return read_function_calling_turn(chunks, run.registry.prompt_tools(), run.round_index)


TOOL_CALL_FEATURES = frozenset({"tool-call", "multi-tool-call", "stream-tool-call"})


def lacks_tool_calling(params: StrategyParams) -> bool:
    """True when the model's schema is known and declares no tool calling
    (sending tools would be rejected: fastagent91, deepseek-reasoner)."""
    return bool(params.tools) and params.model.entity is not None and not params.model_features() & TOOL_CALL_FEATURES


class FunctionCallingAgentStrategy(AgentStrategy):
    """Registered in ``strategies/function_calling.yaml``.

    A model whose schema declares no tool calling runs with the ReAct steps
    instead, noted in the log, rather than failing on the provider's refusal.
    """

    def _invoke(self, parameters: dict) -> Generator[AgentInvokeMessage, None, None]:
        params = StrategyParams.model_validate(parameters)
        steps: StrategySteps = FunctionCallingSteps()
        if lacks_tool_calling(params):
            note = LogNode("USING ReAct")
            yield note.start()
            yield note.finish({"output": prompts.REACT_FALLBACK_NOTE.format(model=params.model.model)})
            steps = ReActSteps()
        yield from AgentLoop(self, steps, params).run()
