"""Function Calling's prompt: the instruction (with knowledge and any limit note), memory,
the query with its files, then each finished round as the assistant's message, exactly as the
model plugin produced it, followed by one tool message per call (docs/model-round-trip.md).
"""

from collections.abc import Sequence
from typing import Final

from dify_plugin.entities.model.message import (
    AssistantPromptMessage,
    PromptMessage,
    TextPromptMessageContent,
    ToolPromptMessage,
    UserPromptMessage,
)

from agent_core import prompts
from agent_core.fairness import give_way
from agent_core.json_args import dumps_arguments
from agent_core.memo import shared_prefix
from agent_core.own_text import note_own, own
from agent_core.round_cap import after_observation_note, not_run_note, not_run_results
from agent_core.run_state import Round, RunState
from agent_core.tool_runner import ToolResult
from agent_core.turn import FinalAnswer, ParseFailure, ToolCalls


def chat_prompt(run: RunState) -> list[PromptMessage]:
    """Prompt messages for this round: system, memory, query, the run's rounds. The list of the
    last build is kept (``RunState.rendered``) and a build whose head (system, memory, query) is
    the same objects, with no round shortened since, adds the new rounds' messages to it: a
    round does not walk the rounds before it again (the messages, a user message joined to the
    one before it included, are the same objects as that build's)."""
    head: list[PromptMessage] = [*run.system(run.limit_note()), *run.history(), run.query()]
    kept = run.rendered.get("function_calling-prompt")  # (head, rounds_shortened, rounds, messages) of the last build
    if (kept is not None and kept[1] == run.rounds_shortened and kept[2] <= len(run.rounds)
            and len(kept[0]) == len(head) == shared_prefix(kept[0], head)):
        messages, done = list(kept[3]), kept[2]
    else:
        messages, done = list(head), 0
    for round_ in run.rounds[done:]:
        key = ("function_calling", round_.index, run.is_shortened(round_))
        if key not in run.rendered:
            run.rendered[key] = render_round(run, round_)
        for message in run.rendered[key]:
            last = messages[-1]
            if isinstance(message, UserPromptMessage) and isinstance(last, UserPromptMessage):
                messages[-1] = _joined(last, message)
            else:
                messages.append(message)
    run.rendered["function_calling-prompt"] = (tuple(head), run.rounds_shortened, len(run.rounds), tuple(messages))
    return messages


def _joined(first: UserPromptMessage, then: UserPromptMessage) -> UserPromptMessage:
    """Two user messages in a row (the query and a re-prompt after a reply with no text, or two
    such re-prompts) as one: chat templates that require turns to alternate (Gemma, Mistral and
    Llama 2 on vLLM) refuse the request otherwise. A re-prompt already said is not said again."""
    text = then.content if isinstance(then.content, str) else ""
    if isinstance(first.content, str):
        said = first.content.endswith(text)
        return UserPromptMessage(content=first.content if said else f"{first.content}\n\n{text}", name=first.name)
    return UserPromptMessage(content=[*(first.content or []), TextPromptMessageContent(data=text)], name=first.name)


ONE_CALL_PER_MESSAGE: Final = frozenset({"fireworks", "gemini", "xinference"})
"""Model plugins that send back only the first tool call of an assistant message
(``message.tool_calls[0]`` in ``models/gemini/models/llm/llm.py``,
``models/xinference/models/llm/llm.py`` and ``models/fireworks/models/llm/llm.py`` of
``langgenius/dify-official-plugins``; Fireworks' at 8bdae72, OpenAI's legacy ``function_call``
form) but every tool message: Gemini then refuses the request ("the number of function response
parts should be equal to the number of function call parts", dify#16760), and the others show
the model results of calls it never sees. The newest Gemini plugin sends every call, and takes
one call a message too; the strategy cannot tell which version is installed, so Gemini stays
here."""


def replays_one_call(provider: str) -> bool:
    """Whether the model plugin of ``provider`` (``langgenius/gemini/google``) is one of
    ``ONE_CALL_PER_MESSAGE``."""
    return _plugin_name(provider) in ONE_CALL_PER_MESSAGE


TOOLS_NEVER_SENT: Final = frozenset({"sagemaker"})
"""Model plugins that never send the node's tools to the model and read no tool call back, even
for a model that declares ``tool-call``: SageMaker's ``inference`` builds its payload from the
messages and four parameters only (``models/sagemaker/models/llm/llm.py`` d2e4c1d in
langgenius/dify-official-plugins). Native tool calling there is a run whose model never hears of
its tools."""


def drops_tools(provider: str) -> bool:
    """Whether the model plugin of ``provider`` (``langgenius/sagemaker/sagemaker``) is one of
    ``TOOLS_NEVER_SENT``."""
    return _plugin_name(provider) in TOOLS_NEVER_SENT


def _plugin_name(provider: str) -> str:
    """The plugin's name in a model-selector ``provider`` (``langgenius/gemini/google`` ->
    ``gemini``; a bare name as it is)."""
    parts = provider.split("/")
    return parts[-2] if len(parts) > 1 else parts[0]


def _tool_call(result: ToolResult) -> AssistantPromptMessage.ToolCall:
    give_way()  # a reply of a thousand parallel calls
    return AssistantPromptMessage.ToolCall(
        id=result.call_id,
        type="function",
        function=AssistantPromptMessage.ToolCall.ToolCallFunction(
            name=result.name,
            arguments=dumps_arguments(result.arguments) if isinstance(result.arguments, dict) else "{}",
        ),
    )


def _assistant_message(round_: Round, results: Sequence[ToolResult], *, whole: bool = True) -> AssistantPromptMessage:
    """The round's assistant message as the model plugin produced it (content with its
    reasoning blocks, ``opaque_body``, tool-call ids and names: docs/model-round-trip.md), with
    the calls of ``results``; without ``whole``, only those calls (a later message of a round
    sent one call a message). Arguments are sent as the JSON the tool ran with; a call whose
    arguments could not be read goes back as ``{}`` (its tool message says what was wrong),
    since some model plugins parse them."""
    calls = [_tool_call(result) for result in results]
    turn = round_.turn
    if not whole:
        return AssistantPromptMessage(content="", tool_calls=calls)
    try:
        return AssistantPromptMessage(content=turn.content, tool_calls=calls, opaque_body=turn.opaque_body)
    except ValueError:  # content parts of a kind the SDK cannot rebuild: their text goes back
        text = "".join(str(part.get("data") or "") for part in turn.content if isinstance(part, dict))
        return AssistantPromptMessage(content=text, tool_calls=calls, opaque_body=turn.opaque_body)


def render_round(run: RunState, round_: Round) -> list[PromptMessage]:
    """A finished round as chat messages: the assistant's message with its calls, then one
    tool message per call (with ``tool_call_id`` and ``name``), or the model's unreadable
    reply followed by what was wrong with it (a reply with no visible text, only reasoning,
    is left out: no provider needs reasoning without a tool call, and some reject an
    assistant message without text). For a model plugin that sends back one call a message
    (``replays_one_call``), parallel calls go as one assistant message and its result per call,
    the round's content and ``opaque_body`` with the first. Calls the model wrote in its text
    go back as native calls, except where the model plugin rebuilds the message from its
    ``opaque_body``: there the message goes back as it was and the results as a user message.

    Calls beyond the most one round runs (``Round.not_run``): a native call keeps its place in
    the assistant message and gets a tool message saying it was not run
    (``round_cap.not_run_results``); calls written in the text are counted once after the last
    result (``round_cap.not_run_note``), since no id of theirs is owed an answer; so are the ReAct
    steps a reply wrote after an ``Observation:`` it made up (``round_cap.after_observation_note``)."""
    decision = round_.turn.decision
    note = not_run_note(round_.not_run) if isinstance(decision, ToolCalls) and decision.in_text else ""
    if round_.turn.calls_after_answer and isinstance(decision, ToolCalls):  # steps after a made-up Observation
        note = "\n\n".join(filter(None, (note, after_observation_note(round_.turn.calls_after_answer))))
    if isinstance(decision, ToolCalls) and round_.results and decision.in_text and round_.turn.opaque_body is not None:
        # Calls the model wrote in its text, from a plugin that rebuilds the message from its
        # opaque_body (Anthropic, MiniMax, OpenAI Responses): that body holds no such calls, so
        # the message goes back as it was and the results follow as the user's message.
        results = "\n\n".join(
            [prompts.TEXT_CALL_RESULT.format(name=r.name, observation=run.observation(round_, r)) for r in round_.results]
            + ([note] if note else [])
        )
        return [_assistant_message(round_, ()), UserPromptMessage(content=results)]
    if isinstance(decision, ToolCalls) and round_.results:
        results = [*round_.results, *(not_run_results(round_.not_run) if not decision.in_text else ())]
        tool_messages = [_tool_message(run, round_, result) for result in results]
        if note:  # after the last result: one ToolPromptMessage more would answer no call
            last = tool_messages[-1]
            tool_messages[-1] = ToolPromptMessage(
                content=f"{last.content}\n\n{note}", tool_call_id=last.tool_call_id, name=last.name
            )
        if len(results) > 1 and replays_one_call(run.params.model.provider):
            return [
                message
                for number, (result, tool_message) in enumerate(zip(results, tool_messages, strict=True))
                for message in (_assistant_message(round_, [result], whole=number == 0), tool_message)
            ]
        return [_assistant_message(round_, results), *tool_messages]
    if isinstance(decision, FinalAnswer) and round_.turn.cut:  # the model is asked for the rest
        return [_assistant_message(round_, ()), note_own(UserPromptMessage(content=prompts.CONTINUE_CUT_ANSWER), own(prompts.CONTINUE_CUT_ANSWER))]
    if isinstance(decision, ParseFailure):
        said = [_assistant_message(round_, ())] if round_.turn.thought.strip() else []
        return [*said, UserPromptMessage(content=decision.problem)]
    return []


def _tool_message(run: RunState, round_: Round, result: ToolResult) -> ToolPromptMessage:
    """The tool message of ``result``: what the model reads of it (``RunState.observation``)."""
    give_way()  # a reply of a thousand parallel calls
    return ToolPromptMessage(content=run.observation(round_, result), tool_call_id=result.call_id, name=result.name)
