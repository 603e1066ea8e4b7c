"""Reading a function-calling model turn: streamed text, tool-call deltas, usage.

Text is streamed to the user as it arrives, except a reply that starts like
a tool call written as text (``{``, ``[``, ``<tool_call>``, a code fence,
``Action:``): some models put the call in the content instead of
``tool_calls`` (deepseekv3-826, smolagents158, mlxserver228), so such a
reply is held until the turn ends and then read for calls. Reasoning
(``<think>`` blocks or ``reasoning_content``) goes to the log only.
"""

from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass, field

from dify_plugin.entities.model.llm import LLMUsage
from dify_plugin.entities.model.message import PromptMessageTool

from agent_core import prompts
from agent_core.model_call import AssistantReply, ModelChunk
from agent_core.text_calls import extract_calls_from_text, mentions_call_markup
from agent_core.think import ThinkSplitter, clean_reasoning
from agent_core.tool_calls import LENGTH_FINISH_REASONS, ToolCallAssembler
from agent_core.turn import FinalAnswer, ModelTurn, ParseFailure, ToolCalls
from agent_core.usage import call_usage

_CALL_LIKE_STARTS = ("{", "[", "<", "`")
_ACTION_LABEL = "action"


class AnswerGate:
    """Decides, from the first visible characters, whether text may stream now.

    ``feed`` returns the text to stream (possibly ''); ``held`` is the text
    kept back when the reply looks like a tool call written as text.
    """

    def __init__(self) -> None:
        self._buffer = ""
        self._decided: bool | None = None  # True: stream; False: hold everything

    @property
    def held(self) -> str:
        """Text held back so far (all of it when holding)."""
        return "" if self._decided else self._buffer

    def feed(self, text: str) -> str:
        """Consume visible text; return what can be streamed now."""
        if self._decided:
            return text
        self._buffer += text
        if self._decided is False:
            return ""
        start = self._buffer.lstrip()
        if not start:
            return ""
        if start.startswith(_CALL_LIKE_STARTS):
            self._decided = False
            return ""
        if _ACTION_LABEL.startswith(start[: len(_ACTION_LABEL)].lower()):
            after = start[len(_ACTION_LABEL) :].lstrip(" \t")
            if not after:
                return ""  # may still become "Action:"
            if after[0] in ":\n":
                self._decided = False
                return ""
        self._decided = True
        out, self._buffer = self._buffer, ""
        return out


@dataclass
class _Collected:
    """Everything one model call sent, gathered while its text streamed."""

    text: str = ""
    reasoning: str = ""
    usages: list[LLMUsage] = field(default_factory=list)
    finish_reason: str | None = None
    reply: AssistantReply = field(default_factory=AssistantReply)


def _stream(
    chunks: Iterator[ModelChunk], gate: AnswerGate, assembler: ToolCallAssembler, got: _Collected
) -> Generator[str, None, None]:
    """Feed every chunk through the think splitter and the answer gate; yield streamable text."""
    splitter = ThinkSplitter()
    visible: list[str] = []
    reasoning: list[str] = []
    for chunk in chunks:
        got.reply.add(chunk)
        part = splitter.feed(chunk.text)
        visible.append(part.visible)
        reasoning.extend((chunk.reasoning, part.reasoning))
        for delta in chunk.tool_calls:
            assembler.add(delta)
        if chunk.usage is not None:
            got.usages.append(chunk.usage)
        got.finish_reason = chunk.finish_reason or got.finish_reason
        if out := gate.feed(part.visible):
            yield out
    tail = splitter.finish()
    visible.append(tail.visible)
    reasoning.append(tail.reasoning)
    if out := gate.feed(tail.visible):
        yield out
    got.text, got.reasoning = "".join(visible), clean_reasoning("".join(reasoning))


def read_function_calling_turn(
    chunks: Iterator[ModelChunk], tools: Sequence[PromptMessageTool | str], round_index: int = 1
) -> Generator[str, None, ModelTurn]:
    """Consume one model call; yield user text; return the ``ModelTurn``.

    The decision: assembled tool calls (valid and invalid) if any; else calls
    written in the content or, failing that, inside the reasoning
    (vllm39056); else the text as the final answer; else a ``ParseFailure``
    (a ``tool_calls`` finish with no call, call markup that cannot be read,
    or an empty reply). Ids made up for calls that came without one are
    unique across the run (``r<round>_call_<n>``).
    """
    prefix = f"r{round_index}_call_"
    gate, assembler, got = AnswerGate(), ToolCallAssembler(id_prefix=prefix), _Collected()
    yield from _stream(chunks, gate, assembler, got)
    text = got.text
    assembled = assembler.finish(got.finish_reason)
    turn = dict(
        usage=call_usage(got.usages),
        reasoning=got.reasoning,
        finish_reason=got.finish_reason,
        raw=text,
        content=got.reply.content,
        opaque_body=got.reply.opaque_body,
    )
    if assembled.calls or assembled.invalid:
        return ModelTurn(thought=text, decision=ToolCalls(assembled.calls, assembled.invalid), **turn)
    calls, rest = extract_calls_from_text(text, tools, id_prefix=prefix) if tools else ((), text)
    if not calls and tools and got.reasoning and not text.strip():
        calls, _ = extract_calls_from_text(got.reasoning, tools, id_prefix=prefix)
    if calls:
        return ModelTurn(thought=rest.strip(), decision=ToolCalls(tuple(calls)), **turn)
    names = [getattr(tool, "name", tool) for tool in tools]
    if text.strip() and gate.held and tools and mentions_call_markup(text, names):
        cut = (got.finish_reason or "").lower() in LENGTH_FINISH_REASONS
        problem = prompts.REPLY_CUT if cut else prompts.TOOL_CALL_UNREADABLE
        return ModelTurn(thought=text, decision=ParseFailure(problem), **turn)
    if text.strip():
        if gate.held:
            yield gate.held
        return ModelTurn(thought=text, decision=FinalAnswer(text), **turn)
    problem = prompts.TOOL_CALL_MISSING if got.finish_reason == "tool_calls" else prompts.EMPTY_REPLY
    return ModelTurn(thought=text, decision=ParseFailure(problem), **turn)
