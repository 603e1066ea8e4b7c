"""The ReAct strategy: the model writes Thought / Action / Final Answer as text.

Works with any LLM, including models without native tool calling and
completion-mode models (the model-selector's ``mode`` chooses the prompt
shape). Always streams; ``Observation`` is a stop word where the provider
accepts one, and the parser cuts any observation the model invents anyway.
"""

from collections.abc import Generator, Iterator

from dify_plugin.entities.agent import AgentInvokeMessage
from dify_plugin.interfaces.agent import AgentStrategy

from agent_core.loop import AgentLoop
from agent_core.model_call import ModelChunk, ModelRequest
from agent_core.params import StrategyParams
from agent_core.react.prompt import chat_prompt, completion_prompt, stop_words
from agent_core.react.turn import read_react_turn
from agent_core.run_state import RunState
from agent_core.turn import ModelTurn


class ReActSteps:
    """The two steps of ReAct (see ``agent_core.loop.StrategySteps``)."""

    def build_request(self, run: RunState) -> ModelRequest:
        """Chat or completion prompt with the scratchpad; no native tools are declared."""
        model = run.params.model
        mode = model.mode or "chat"
        messages = completion_prompt(run) if mode == "completion" else chat_prompt(run)
        return ModelRequest(prompt_messages=messages, tools=[], stop=stop_words(model.model, mode), stream=True)

    def read_turn(self, chunks: Iterator[ModelChunk], run: RunState) -> Generator[str, None, ModelTurn]:
        """Parse the text stream; stream the final answer."""
        return read_react_turn(chunks, run.registry, run.round_index)


class ReActAgentStrategy(AgentStrategy):
    """Registered in ``strategies/react.yaml``."""

    def _invoke(self, parameters: dict) -> Generator[AgentInvokeMessage, None, None]:
        yield from AgentLoop(self, ReActSteps(), StrategyParams.model_validate(parameters)).run()
