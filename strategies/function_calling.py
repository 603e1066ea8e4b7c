"""The Function Calling strategy: the model calls tools through its native API.

Each round sends the instruction, memory, the query and this run's
assistant/tool messages, with every configured tool declared (also on the
last round: providers such as Anthropic reject a history with tool calls
but no tools). It streams when the model declares ``stream-tool-call``.
"""

from collections.abc import Generator, Iterator
from functools import cached_property

from dify_plugin.entities.agent import AgentInvokeMessage
from dify_plugin.interfaces.agent import AgentStrategy

from agent_core import prompts
from agent_core.function_calling.prompt import chat_prompt, drops_tools
from agent_core.function_calling.turn import read_function_calling_turn
from agent_core.logs import LogNode
from agent_core.loop import AgentLoop
from agent_core.model_call import ModelChunk, ModelRequest
from agent_core.params import LenientFileParameters, StrategyParams, read_params
from agent_core.react.step_format import ReActParams, chosen_step_format
from agent_core.run_state import RunState
from agent_core.turn import ModelTurn
from strategies.react import ReActSteps


class FunctionCallingSteps:
    """The two steps of Function Calling (see ``agent_core.loop.StrategySteps``). ``parameters``:
    the node's raw parameters, from which ``fallback`` is built when first asked for."""

    provider_tool_names = True

    def __init__(self, parameters: dict | None = None) -> None:
        self._parameters = parameters

    @cached_property
    def fallback(self) -> ReActSteps | None:
        """The steps the run goes on with when the model plugin refuses the native tools: ReAct's,
        in the step format ``_as_react`` would choose (None without the node's parameters)."""
        if self._parameters is None:
            return None
        return ReActSteps(chosen_step_format(read_params(ReActParams, self._parameters)))

    def build_request(self, run: RunState) -> ModelRequest:
        """System (instruction, knowledge, limit note), memory, query, this run's rounds."""
        tools = run.registry.prompt_tools()
        if "stream-tool-call" not in run.rendered:  # the model's features: read once a run
            run.rendered["stream-tool-call"] = "stream-tool-call" in run.params.model_features()
        stream = not tools or run.rendered["stream-tool-call"]
        return ModelRequest(prompt_messages=chat_prompt(run), tools=tools, stream=stream)

    def read_turn(self, chunks: Iterator[ModelChunk], run: RunState) -> Generator[str, None, ModelTurn]:
        """Stream the text, assemble the tool calls. A model whose template may open its
        reasoning in the prompt (known by name, thinking turned on in its completion parameters,
        or a bare ``</think>`` in an earlier reply of the run) has its reply held until that
        reasoning ends, so that none of it streams to the user."""
        turn = yield from read_function_calling_turn(
            chunks,
            run.registry.prompt_tools(),
            run.round_index,
            reasoning_opened=run.reasoning_may_open_in_prompt(),
            taken_ids=run.call_ids(),
            recipient_in_prompt=run.recipient_may_open_in_prompt(),
            reasoning_probe=run.reasoning_may_open_unannounced(),
        )
        run.learn_from_reply(turn.content)
        return turn


TOOL_CALL_FEATURES = frozenset({"tool-call", "multi-tool-call", "stream-tool-call"})


def lacks_tool_calling(params: StrategyParams) -> bool:
    """True when the model's schema is known and declares no tool calling
    (sending tools would be rejected: fastagent91, deepseek-reasoner)."""
    return bool(params.tools) and params.model.entity is not None and not params.model_features() & TOOL_CALL_FEATURES


def plugin_drops_tools(params: StrategyParams) -> bool:
    """True when the node has tools and its model plugin never sends them to the model
    (``function_calling.prompt.TOOLS_NEVER_SENT``: SageMaker), whatever the model declares."""
    return bool(params.tools) and drops_tools(params.model.provider)


class FunctionCallingAgentStrategy(LenientFileParameters, AgentStrategy):
    """Registered in ``strategies/function_calling.yaml``.

    A model whose schema declares no tool calling runs with the ReAct steps
    instead, noted in the log, rather than failing on the provider's refusal: constrained JSON
    steps when it declares structured output, text steps otherwise. So does a model behind a
    plugin that never sends the tools (``plugin_drops_tools``: SageMaker). A model that declares tool
    calling but whose server refuses the tools (``model_call.refuses_tools``: Ollama's "does not
    support tools", vLLM without its tool parser) goes on with the same steps from that round.
    """

    def _invoke(self, parameters: dict) -> Iterator[AgentInvokeMessage]:
        """The run's messages: the loop's own generator (the SDK's ``invoke`` returns what this
        returns; no generator of this method's own around it, each message passes one fewer)."""
        params = read_params(StrategyParams, parameters)
        if lacks_tool_calling(params):
            return self._as_react(params, parameters, prompts.REACT_FALLBACK_NOTE)
        if plugin_drops_tools(params):
            return self._as_react(params, parameters, prompts.REACT_TOOLS_DROPPED_NOTE)
        return AgentLoop(self, FunctionCallingSteps(parameters), params).run()

    def _as_react(self, params: StrategyParams, parameters: dict, why: str) -> Generator[AgentInvokeMessage, None, None]:
        """The run with ReAct's steps for a model that declares no tool calling, or whose model
        plugin never sends tools, after a log note saying so (``why``, formatted with the model,
        its provider and the step format)."""
        step_format = chosen_step_format(read_params(ReActParams, parameters))
        note = LogNode("USING ReAct")
        yield note.start()
        how = prompts.REACT_STEP_FORMATS[step_format]
        yield note.finish({"output": why.format(model=params.model.model, provider=params.model.provider,
                                                step_format=step_format, how=how)})
        yield from AgentLoop(self, ReActSteps(step_format), params).run()
