"""The ReAct strategy: the model writes Thought / Action / Final Answer as text, or, with
constrained steps, one JSON object per step decoded against a schema.

Works with any LLM, including models without native tool calling and
completion-mode models (the model-selector's ``mode`` chooses the prompt
shape). Always streams; in text steps ``Observation`` is a stop word where the provider
accepts one, and the parser cuts any observation the model invents anyway.
"""

from collections.abc import Generator, Iterator
from dataclasses import replace

from dify_plugin.entities.agent import AgentInvokeMessage
from dify_plugin.interfaces.agent import AgentStrategy

from agent_core import prompts
from agent_core.answer_schema import STRUCTURED_OUTPUT_PARAMS
from agent_core.fences import open_block
from agent_core.loop import AgentLoop
from agent_core.model_call import ModelChunk, ModelRequest
from agent_core.params import LenientFileParameters, read_params
from agent_core.react.json_prompt import json_chat_prompt, json_completion_prompt
from agent_core.react.json_step import GuardedChunks, read_json_step_turn, redacted_step_schema, step_schema
from agent_core.react.prompt import chat_prompt, completion_prompt, stop_words
from agent_core.react.step_format import ReActParams, chosen_step_format
from agent_core.react.text_fallback import as_text_step
from agent_core.react.turn import (
    blob_answer,
    blob_rest_turn,
    continues_cut_answer,
    cut_answer_text,
    quoted_final_input,
    quoted_rest_turn,
    read_react_turn,
    schema_answer_turn,
    schema_rest_turn,
)
from agent_core.run_state import RunState
from agent_core.turn import ModelTurn, ParseFailure


class ReActSteps:
    """The two steps of ReAct (see ``agent_core.loop.StrategySteps``), in text or JSON steps."""

    provider_tool_names = False  # names are written in the prompt, as the node gives them

    def __init__(self, step_format: str) -> None:
        self.step_format = step_format

    def build_request(self, run: RunState) -> ModelRequest:
        """Chat or completion prompt with this run's steps; no native tools are declared.
        JSON steps carry their schema (the final answer alone once the limit is reached; in the
        user's JSON schema when the node's model parameters set one). A step never carries the
        user's own structured output (``json_schema``, ``response_format``): the model could then
        write only the user's JSON, never a step; the prompt or the step schema asks for it."""
        completion = (run.params.model.mode or "chat") == "completion"
        answer_schema = run.params.answer_schema
        without = STRUCTURED_OUTPUT_PARAMS if answer_schema else ()
        if self.step_format == "json_schema":
            schema = step_schema(run.registry.prompt_tools(), answer_only=run.limit_reached, answer_schema=answer_schema)
            messages = json_completion_prompt(run) if completion else json_chat_prompt(run)
            return ModelRequest(prompt_messages=messages, stream=True, structured_output_schema=schema,
                                schema_redactor=redacted_step_schema, without_params=without)
        messages = completion_prompt(run) if completion else chat_prompt(run)
        mode = "completion" if completion else "chat"
        stop = stop_words(run.params.model.model, mode)
        return ModelRequest(prompt_messages=messages, stop=stop, stream=True, without_params=without)

    def read_turn(self, chunks: Iterator[ModelChunk], run: RunState) -> Generator[str, None, ModelTurn]:
        """Parse the stream; stream the final answer. A model whose template may open its
        reasoning in the prompt (``RunState.reasoning_may_open_in_prompt``) has its reply held
        until that reasoning ends. A reply that continues an answer the output limit cut is read
        as the answer's rest (``read_react_turn``'s ``continues_answer``). In JSON steps, a reply
        that is no JSON step but a text ReAct step is read as one (``text_fallback.as_text_step``).
        When Dify cannot call the model with a schema at all, the run goes on in text steps."""
        if self.step_format != "json_schema":
            continuing = continues_cut_answer(run)
            turn_reader = read_react_turn(
                chunks,
                run.registry,
                run.round_index,
                reasoning_opened=run.reasoning_may_open_in_prompt(),
                recipient_in_prompt=run.recipient_may_open_in_prompt(),
                continues_answer=continuing,
                answer_code=open_block(cut_answer_text(run)) if continuing else None,
            )
            answer_schema = run.params.answer_schema
            if answer_schema and not continuing:
                turn = yield from schema_answer_turn(turn_reader, answer_schema)
            elif continuing and answer_schema:  # the cut answer and its rest checked together
                turn = yield from schema_rest_turn(turn_reader, cut_answer_text(run), answer_schema)
            elif continuing and blob_answer(cut_step := run.rounds[-1].turn.raw, run.registry):  # in a JSON blob
                turn = yield from blob_rest_turn(turn_reader, cut_step)
            elif continuing and quoted_final_input(cut_step):  # Action: Final Answer / Action Input: "...
                turn = yield from quoted_rest_turn(turn_reader)
            else:
                turn = yield from turn_reader
            run.learn_from_reply(turn.content)
            return turn
        guarded = GuardedChunks(chunks)
        turn = yield from read_json_step_turn(
            iter(guarded), run.registry.prompt_tools(), run.round_index, run.params.answer_schema
        )
        if guarded.unavailable is None:
            # a reply that is no JSON step may be a text step, unless its stream broke off before
            # it ended (no finish reason came): it may lack its end
            if guarded.interrupted is None or turn.finish_reason is not None:
                turn = yield from as_text_step(
                    turn,
                    run.registry,
                    run.round_index,
                    continues_answer=continues_cut_answer(run),
                    answer_schema=run.params.answer_schema,
                    cut_step=run.rounds[-1].turn.raw if continues_cut_answer(run) else "",
                )
            return turn if turn.read_as else guarded.explained(turn)
        self.step_format = "text"
        return replace(turn, decision=ParseFailure(prompts.STRUCTURED_OUTPUT_UNAVAILABLE.format(error=guarded.unavailable)))


class ReActAgentStrategy(LenientFileParameters, AgentStrategy):
    """Registered in ``strategies/react.yaml``."""

    def _invoke(self, parameters: dict) -> Iterator[AgentInvokeMessage]:
        """The run's messages: the loop's own generator (the SDK's ``invoke`` returns what this
        returns; no generator of this method's own around it, each message passes one fewer)."""
        params = read_params(ReActParams, parameters)
        return AgentLoop(self, ReActSteps(chosen_step_format(params)), params).run()
