"""Reading a ReAct model turn: the parser's events become user text, a thought
and a decision.

Final-answer text streams to the user as the parser finds it; thoughts and
reasoning go to the log. Every action of the turn becomes a tool call (ids
``react-<round>-<n>``), run as one round of parallel calls, in order: a model that
writes several actions at once loses none of them. A reply that ended inside an action
because the model hit its output limit runs nothing and is asked again.
"""

import bisect
import re
from collections.abc import Generator, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from dify_plugin.entities.model.llm import LLMUsage

from agent_core import prompts
from agent_core.answer_schema import answer_problem, answer_text, answer_value
from agent_core.call_markup import (
    closes_markup_only,
    code_call_start,
    cut_opener,
    ends_turn,
    holds_call_markup,
    markup_outside_quoted,
    open_call_fence,
    open_code_call,
    open_fenced_call,
    rewrite_markup,
)
from agent_core.declarations import arguments_refusal
from agent_core.fairness import SLICE_CHARS, give_way, slices
from agent_core.fences import Opening, empty_code_block, fence_lines
from agent_core.json_args import ArgumentsError, decode_arguments
from agent_core.model_call import AssistantReply, ModelChunk, note_usage
from agent_core.react.json_step import continued_string, cut_answer
from agent_core.react.parser import (
    LABEL_SPACES,
    LINE_PREFIX,
    AnswerDelta,
    ReactStreamParser,
    ReactTurn,
    label_words,
    parse_react,
)
from agent_core.reply_text import ReplyText
from agent_core.run_state import RunState
from agent_core.text_calls import (
    INKLING_INVOKE,
    angleless_invoke_call,
    arguments_for,
    bare_gemma_call,
    bracketed_text,
    code_list_after_text,
    described_tool,
    extract_calls_from_text,
    flat_call_reply,
    name_line_call,
    prefixed_tool,
    schema_properties,
)
from agent_core.think import clean_reasoning, visible_text
from agent_core.tool_calls import LENGTH_FINISH_REASONS, InvalidToolCall, ToolCall
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ModelTurn, ParseFailure, ToolCalls
from agent_core.usage import call_usage


def _tool_calls(parsed: ReactTurn, registry: ToolRegistry, round_index: int) -> ToolCalls:
    """The turn's actions as calls to run, and as calls that cannot run: an ``Action Input`` that
    opens a JSON object or array but could not be read without dropping text (``{"expression":
    37 * 91}``) is refused with the reason, not guessed at or passed on as a string."""
    prompt_tools = registry.prompt_tools_by_name()
    calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    order: list[str] = []
    for number, action in enumerate(parsed.actions, start=1):
        give_way()  # a reply of megabytes may hold tens of thousands of actions
        call_id = f"react-{round_index}-{number}"
        order.append(call_id)
        name = described_tool(action.name, prompt_tools) or prefixed_tool(action.name, prompt_tools) or action.name
        text = unpaired_ticks(action.input.strip()) if isinstance(action.input, str) else ""
        if text[:1] in ("{", "[") and not bracketed_text(text):
            try:
                decoded: dict | str | None = decode_arguments(text)
            except ArgumentsError as error:
                message = arguments_refusal(error, schema_properties(prompt_tools.get(name)))
                invalid.append(InvalidToolCall(id=call_id, name=name, raw_arguments=text, error=message))
                continue
        else:
            decoded = action.input
        arguments = arguments_for(decoded, prompt_tools.get(name))
        calls.append(ToolCall(id=call_id, name=name, arguments=arguments))
    return ToolCalls(tuple(calls), tuple(invalid), order=tuple(order))


def _actions_turn(parsed: ReactTurn, registry: ToolRegistry, round_index: int, common: dict) -> ModelTurn:
    """The turn of a reply with actions (``common``: the turn's other fields): their calls; what
    the reply wrote from an ``Observation:`` it made up after them on is kept to be logged, and
    the actions in it named to the model, never run (``ModelTurn.after_answer``)."""
    after = actions_after_observation(parsed.after_actions) if parsed.after_actions else ()
    if parsed.after_actions or parsed.calls_after_answer:  # also a JSON list's calls after a "Final Answer" item
        common = {**common, "after_answer": parsed.after_actions, "calls_after_answer": parsed.calls_after_answer + after}
    return ModelTurn(thought=parsed.thought, decision=_tool_calls(parsed, registry, round_index), **common)


def unpaired_ticks(text: str) -> str:
    """``text`` (an action input, stripped) without a run of backticks at only one of its ends
    (a backtick before ``{"q": "a"}`` and none after it, or one after and none before: what a
    model left of a code span it did not close), when what is left is a JSON object or array;
    else ``text`` as it is (a code span closed at both ends is read where the input is read)."""
    if "`" not in text[:1] + text[-1:]:
        return text
    inner = text.strip("`").strip()
    opened, closed = text[:1] == "`", text[-1:] == "`"
    if opened == closed or inner[:1] not in ("{", "[") or inner[-1:] not in ("}", "]"):
        return text
    return inner


def _name_line_calls(parsed: ReactTurn, registry: ToolRegistry, round_index: int) -> tuple[ToolCall, ...]:
    """A reply that is only a tool's name above its JSON arguments (GLM-4 and Qwen3 writing their
    own call form instead of ReAct's: zai-org/GLM-4#36), or a list of calls written as code after
    a sentence (Llama 3.2 / 4's pythonic form: ``text_calls.code_list_after_text``), a call object
    with its arguments beside its name (``text_calls.flat_call_reply``), or Gemma 4's bare
    ``call:NAME{...}``, whole or on the last line (``text_calls.bare_gemma_call``), or MiniMax's
    calls with their tags' ``<`` left out, ending the reply (``text_calls.angleless_invoke_call``): the calls,
    when every name is one of the tools; else ``()``. The parser reads such a reply as plain text, answered only at its end."""
    text = parsed.final_answer
    if parsed.actions or text is None:
        return ()
    if INKLING_INVOKE in parsed.raw:  # Inkling's call messages, with the tokens the answer has lost
        calls, _ = extract_calls_from_text(parsed.raw, registry.prompt_tools(), id_prefix=f"react-{round_index}-")
        return calls
    if not name_line_call(text, registry.names()):
        tools = registry.prompt_tools_by_name()
        if code_list_after_text(parsed.raw, registry.names()):
            text = parsed.raw  # with Llama 4's <|python_start|> tokens, which the answer has lost
        elif (
            not flat_call_reply(text, tools) and not bare_gemma_call(text, tools) and not angleless_invoke_call(text, tools)
        ):
            return ()
    calls, _ = extract_calls_from_text(text, registry.prompt_tools(), id_prefix=f"react-{round_index}-")
    return calls


_BARE_INVOKE = "<invoke name="
"""Claude's call element alone: an answer may name it in a sentence."""


def _unreadable_markup(parsed: ReactTurn, registry: ToolRegistry) -> bool:
    """Whether an unlabelled reply given as the answer at its end (no action, nothing streamed
    before it) holds call markup outside quoted text that could not be read: a known family's
    call wrapper (``<minimax:tool_call>`` with a typo inside) or ``<tool_call>``
    (``call_markup.markup_outside_quoted``; a JSON envelope is not markup: an answer may be JSON). A model means such markup as a
    call, so the reply is asked again (``prompts.TOOL_CALL_UNREADABLE_REACT``, as Function
    Calling asks) rather than shown; Claude's ``<invoke name=`` only when a node tool is named;
    Inkling's ``<|content_invoke_tool_json|>`` in the raw reply (the answer has lost it) when no
    backtick is there; markup an answer shows in a code block, a code span or a
    blockquote keeps it an answer."""
    text = parsed.final_answer
    if parsed.actions or not text or not text.strip():
        return False
    if markup_outside_quoted(text.replace(_BARE_INVOKE, "")):  # markup, not a JSON envelope (an answer may be JSON)
        return True
    if "```" in text and open_call_fence(text, registry.names()):  # a ```tool_code call never closed
        return True
    if INKLING_INVOKE in parsed.raw and "`" not in parsed.raw:  # Inkling's call token, its call not read
        return True
    # the same text again only when it held <invoke name=: reading a long reply's code once costs
    return _BARE_INVOKE in text and any(name in text for name in registry.names()) and markup_outside_quoted(text)


def _answer_in_reasoning(parser: ReactStreamParser, parsed: ReactTurn, reasoning_content: str, ended: bool) -> str:
    """The answer of a reply that never left its reasoning (a turn-end token inside it:
    ``call_markup.ends_turn``), read from that reasoning as a reply is; else ``""``."""
    if parser.ended_in_reasoning:
        source = parsed.reasoning
    elif ended:
        source = visible_text(rewrite_markup(reasoning_content))
    else:
        return ""
    answer = parse_react(source).final_answer
    return answer.strip() if answer else ""


@dataclass
class _Collected:
    """What a reply's chunks carried besides its text."""

    usages: list[LLMUsage] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    finish_reason: str | None = None
    reply: AssistantReply = field(default_factory=AssistantReply)
    reasoning_ended_turn: bool = False  # a turn-end token came inside reasoning_content
    answer_shown: bool = False  # final-answer text was streamed to the user before the reply ended


def _stream(chunks: Iterator[ModelChunk], parser: ReactStreamParser, got: _Collected) -> Generator[str, None, None]:
    """Feed every chunk to the parser; yield final-answer text as it comes."""
    add, reasoning, usages, feed = got.reply.add, got.reasoning, got.usages, parser.feed  # once, not per chunk
    content, thinking = ReplyText(), ReplyText()  # \r\n line ends, a byte order mark at the start
    for chunk in chunks:
        add(chunk)  # the message as sent, for the round trip; the readers get the cleaned text
        if chunk.reasoning:  # reasoning comes apart: its rest may still come inline (think.APART_HOLD)
            parser.note_reasoning_apart()
            got.reasoning_ended_turn = got.reasoning_ended_turn or ends_turn(chunk.reasoning)
            reasoning.append(thinking.feed(chunk.reasoning))  # none: nothing to clean (feed("") is "")
        text = content.feed(chunk.text)
        for piece in (text,) if len(text) <= SLICE_CHARS else slices(text):  # a reply sent whole: as if streamed
            for event in feed(piece):
                if isinstance(event, AnswerDelta) and event.text:
                    got.answer_shown = True
                    yield event.text
        if chunk.usage is not None or chunk.call_usage is not None:
            note_usage(chunk, usages)
        if chunk.finish_reason:
            got.finish_reason = chunk.finish_reason


def _stopped(parser: ReactStreamParser, got: _Collected, registry: ToolRegistry, round_index: int) -> str:
    """The answer text a reply that stopped short (its stream failed, or the run's deadline
    came) held back, ``""`` if none: the reply read as if cut there (``finish(cut=True)``: a
    reply held for a reasoning block opened in the prompt is reasoning; ``stopped=True``: call
    markup or a family's reasoning the call markup reader held is not read as text), its
    final-answer text not shown yet (unlabelled text included), when the reply is an answer: no
    action, not ended inside a construct or inside call markup (``call_held``), no call markup
    in its answer (``revised``), no call written as text (``_name_line_calls``); and that text
    holds no call markup (``call_markup.holds_call_markup``: a ``<tool_call>`` that never closed)."""
    ending = parser.finish(cut=True, stopped=True)
    parsed = parser.result()
    if parsed.actions or parsed.ended_inside or parser.revised or parser.call_held:
        return ""
    if not got.answer_shown and _name_line_calls(parsed, registry, round_index):
        return ""
    held = "".join(event.text for event in ending if isinstance(event, AnswerDelta))
    if (fence := parser.held_fence) is not None and not cut_fence_call(fence, registry):
        held = fence + held  # a code block held as it might be a call, and it is none
    return "" if holds_call_markup(held, registry.names()) else held


def read_react_turn(
    chunks: Iterator[ModelChunk],
    registry: ToolRegistry,
    round_index: int,
    *,
    allow_multiple_actions: bool = True,
    reasoning_opened: bool = False,
    recipient_in_prompt: bool = False,
    continues_answer: bool = False,
    answer_code: Opening | None = None,
) -> Generator[str, None, ModelTurn]:
    """Consume one model call; yield final-answer text as it comes; return the turn.

    ``reasoning_opened``: the model's template may have opened a reasoning block in the
    prompt; the reply is held until a bare ``</think>`` (what came before it is reasoning),
    until reasoning comes apart from the content, or to its end (``ThinkSplitter``).
    ``recipient_in_prompt``: a Functionary model's bare ``all`` line at the reply's start is its
    recipient, dropped (``call_markup.CallMarkup``).
    ``continues_answer``: the reply goes on with an answer the output limit cut
    (``continues_cut_answer``): unless it opens with a label or a call, its text is the answer's
    rest, streamed as it comes (``ReactStreamParser._s_head``); ``answer_code``: the code block the
    cut answer left open (``fences.open_block``), where the rest starts."""
    parser = ReactStreamParser(
        allow_multiple_actions=allow_multiple_actions,
        reasoning_opened=reasoning_opened,
        recipient_in_prompt=recipient_in_prompt,
        tool_names=registry.prompt_tools_by_name(),  # the registry's, read only (built once, not each turn)
        continues_answer=continues_answer,
        answer_code=answer_code,
    )
    got = _Collected()
    # a continuation's first text is held while it may open a tool's call written as code: one the
    # output limit cut is no rest of the answer (``cut_code_call``), decided once the reply ended
    held: list[str] | None = [] if continues_answer else None
    try:
        yield from _stream(chunks, parser, got) if held is None else _head_held(_stream(chunks, parser, got), registry, held)
    except Exception:  # the stream failed or the run's deadline came: the answer it held first
        if out := _unless_cut_call(held, _stopped(parser, got, registry, round_index), registry):
            yield out
        raise
    # a held start: nothing of the reply shown yet, read as a reply whose answer came at its end
    got.answer_shown = got.answer_shown and not held
    usages, reasoning, finish_reason, reply = got.usages, got.reasoning, got.finish_reason, got.reply
    cut = (finish_reason or "").lower() in LENGTH_FINISH_REASONS
    ending = parser.finish(cut=cut)
    parsed = parser.result()
    # text the user has already seen as the answer (after a "Final Answer:" label) is never run
    written = () if got.answer_shown else _name_line_calls(parsed, registry, round_index)
    unreadable = not written and not got.answer_shown and _unreadable_markup(parsed, registry)
    # an answer that is only an empty code block, not shown yet, says nothing: an empty reply
    empty = not cut and not got.answer_shown and not parsed.actions and empty_code_block(parsed.final_answer or "")
    cut_inside, final_input = _cut_shape(parser, parsed, registry, cut, got.answer_shown)
    # a code-call block the limit cut in the answer (held by the parser): a cut call, never shown
    fence = parser.held_fence
    cut_inside = cut_inside or (fence is not None and cut_fence_call(fence, registry))
    # a call marker the output limit cut before its ">" ends the reply (vllm-project/vllm#55395):
    # a cut call, asked again as Function Calling asks, the fragment never shown
    cut_marker = cut and not written and not parsed.actions and cut_opener(parsed.raw)
    # a call begun in reasoning_content and ended in the content (closing markup only): read whole
    split = _split_calls(parsed, reasoning, allow_multiple_actions, registry, round_index, bool(written) or got.answer_shown)
    hidden = written or unreadable or empty or (cut_inside and not final_input) or cut_marker or split is not None
    shown_cut = cut_inside and not got.answer_shown
    # a reply that held nothing pays no call
    yield from _held_shown(parsed, registry, held, fence, hidden=hidden, cut_before=shown_cut) if held or fence or cut_inside else ()
    for event in ending:
        if isinstance(event, AnswerDelta) and event.text and not hidden:
            yield event.text
    common = dict(
        usage=call_usage(usages),
        reasoning=clean_reasoning("".join([*reasoning, parsed.reasoning])),
        finish_reason=finish_reason,
        raw=visible_text(parsed.raw, json_strings=True),  # a stray </think> in an action's input is its text
        content=reply.content,
        opaque_body=reply.opaque_body,
    )
    if cut_inside:
        return (yield from _cut_inside(parsed, registry, common, final_input=final_input))
    if written or split is not None:
        return ModelTurn(thought="", decision=split if split is not None else ToolCalls(written), **common)
    if parsed.actions:
        return _actions_turn(parsed, registry, round_index, common)
    if unreadable or empty or cut_marker:  # asked again, as Function Calling asks; no answer to fall back on
        problem = prompts.REPLY_CUT if cut_marker else prompts.TOOL_CALL_UNREADABLE_REACT if unreadable else prompts.EMPTY_REPLY
        return ModelTurn(thought=parsed.thought, decision=ParseFailure(problem), **common)
    if parsed.final_answer is not None and parsed.final_answer.strip():
        # a cut that fell after the answer ended (in an invented observation) left it whole
        whole = cut and parsed.answer_ended
        after = dict(
            after_answer=parsed.after_answer,
            calls_after_answer=parsed.calls_after_answer + actions_named(parsed.after_answer),
        )
        return ModelTurn(
            thought=parsed.thought, decision=FinalAnswer(parsed.final_answer), answer_whole=whole, **after, **common
        )
    if answer := _answer_in_reasoning(parser, parsed, "".join(reasoning), got.reasoning_ended_turn):
        yield answer
        return ModelTurn(thought=parsed.thought, decision=FinalAnswer(answer), **common)
    if not parsed.raw.strip() and (stepped := _step_in_reasoning("".join(reasoning), allow_multiple_actions, cut)):
        return ModelTurn(thought=stepped.thought, decision=_tool_calls(stepped, registry, round_index), **common)
    # no action and no answer in a reply the output limit cut (only reasoning, only a Thought, or
    # nothing): it was cut before it got to its step, and is asked again, shorter, told why
    decision = ParseFailure(prompts.REPLY_CUT) if cut else _failure(parser, parsed, finish_reason, "".join(reasoning))
    return ModelTurn(thought=parsed.thought, decision=decision, **common)


_ACTION_LABEL = re.compile(r"^[ \t]*+Action[ \t]*+:[ \t]*+", re.IGNORECASE | re.MULTILINE)


def cut_blob(raw: str) -> str:
    """The JSON blob after the last ``Action:`` label of ``raw`` (a text step's visible text), as
    LangChain's structured-chat format writes a step (``Action:\n```json\n{"action": ...,
    "action_input": ...}``), or ``""`` when ``raw`` has no ``Action:`` label. Linear in ``raw``."""
    ends = [label.end() for label in _ACTION_LABEL.finditer(raw)]
    return raw[ends[-1] :] if ends else ""


_FINAL_STEP_INPUT = re.compile(r"[ \t]*+(?:final[ _]?answer|finish)[ \t]*+\n[ \t]*+action[ _]?input[ \t]*+:", re.IGNORECASE)


def final_step_input(raw: str) -> bool:
    """Whether ``raw`` (a text step's visible text) ends in LangChain's answer written as an action:
    its last ``Action:`` label names ``Final Answer`` (or ``Finish``) and an ``Action Input:`` line
    follows (``Action: Final Answer\nAction Input: "the answer..."``). The parser reads that input
    as the final answer; cut inside it, it is a cut answer, continued, not a step asked again.
    Linear in ``raw``."""
    blob = cut_blob(raw)
    return bool(blob) and _FINAL_STEP_INPUT.match(blob) is not None


def quoted_final_input(raw: str) -> bool:
    """Whether ``raw`` (a text step's visible text) ends in LangChain's answer written as an
    action (``final_step_input``) whose ``Action Input`` opened with a double quote: the parser
    reads the answer without it, and the rest of that answer may close it."""
    blob = cut_blob(raw)
    found = _FINAL_STEP_INPUT.match(blob) if blob else None
    return found is not None and blob[found.end() :].lstrip().startswith('"')


def quoted_rest_turn(turn_reader: Generator[str, None, ModelTurn]) -> Generator[str, None, ModelTurn]:
    """``turn_reader`` (``read_react_turn`` of a reply that continues a ``quoted_final_input``
    answer the output limit cut): the rest is held, and when it ends with the double quote that
    closes the answer's input, yielded without it; else as written."""
    held, turn = drained(turn_reader)
    rest = turn.decision.text.rstrip() if isinstance(turn.decision, FinalAnswer) else ""
    if not rest.endswith('"'):
        yield "".join(held)
        return turn
    yield rest[:-1]
    return replace(turn, decision=FinalAnswer(rest[:-1]))


def _head_held(texts: Iterator[str], registry: ToolRegistry, held: list[str]) -> Generator[str, None, None]:
    """``texts`` (a continuation's answer text as the parser streams it), its start put in
    ``held`` rather than yielded while it may open a call of a node tool written as code
    (``call_markup.code_call_start``), all of it once it does (the caller decides at the reply's
    end: a cut call is hidden, anything else shown); yielded as it comes once it cannot. Only a
    continuation's reader runs this: the parser's own per-character path is left as it is."""
    names = registry.names()
    for text in texts:
        held.append(text)
        start = code_call_start("".join(held), names)
        if start:  # a tool's call opened: held to the reply's end
            held.extend(texts)
            return
        if start is False:
            yield "".join(held)
            held.clear()
            yield from texts
            return


def _unless_cut_call(held: list[str] | None, out: str, registry: ToolRegistry) -> str:
    """The text a reply that stopped short shows: its start ``held`` (``_head_held``) and the text
    the parser held (``out``), none of it when together they are a cut call (``cut_code_call``)."""
    if not held:
        return out
    text = "".join(held) + out
    return "" if cut_code_call(text, registry) else text


def cut_code_call(answer: str | None, registry: ToolRegistry) -> bool:
    """Whether ``answer`` (an unlabelled reply's text the parser took as the answer) is a call
    written as code that the output limit cut: one of the node's tools opened as code and never
    closed (``call_markup.open_code_call``: ``lookup(q='a``), or a ```tool_code block naming one,
    or a ```python block holding only such a call, that never closed
    (``call_markup.open_fenced_call``). Such a reply is asked again, never shown."""
    if not answer:
        return False
    names = registry.names()
    return open_code_call(answer, names) or ("```" in answer and open_fenced_call(answer, names))


def _held_shown(
    parsed: ReactTurn, registry: ToolRegistry, held: list[str] | None, fence: str | None, *, hidden: bool, cut_before: bool
) -> Iterator[str]:
    """What a reply held back and shows once it ended, before the parser's last events: a
    continuation's start (``held``) and a code block held as it might be a call (``fence``,
    ``ReactStreamParser.held_fence``) that is none, unless the reply is ``hidden``; and, for a
    reply cut inside its step that showed nothing yet (``cut_before``), an unlabelled answer's
    text before the cut call block it ends in (``_before_cut_fence``), as Function Calling shows
    the text before a call it holds."""
    if cut_before and not parsed.actions and (before := _before_cut_fence(parsed.final_answer, registry)):
        yield before
    if held and not hidden:
        yield "".join(held)
    if fence and not hidden:
        yield fence


_FENCE_LINE_START = re.compile(r"^[ \t]{0,3}(?:```|~~~)", re.MULTILINE)


def _before_cut_fence(answer: str | None, registry: ToolRegistry) -> str:
    """The text of ``answer`` (an unlabelled reply the parser took as the answer, cut by the
    output limit) before the code block it ends in, when that block is a cut call
    (``call_markup.open_fenced_call``), stripped; else ``""``."""
    if not answer or "```" not in answer or not open_fenced_call(answer, registry.names()):
        return ""
    last = None
    for last in _FENCE_LINE_START.finditer(answer):  # noqa: B007 (the last one is wanted)
        pass
    return answer[: last.start()].strip() if last is not None else ""


def cut_fence_call(fence: str, registry: ToolRegistry) -> bool:
    """Whether ``fence`` (``ReactStreamParser.held_fence``: an answer's code block from its fence
    line on, which the output limit cut before it closed) is a cut call: a ```tool_code /
    ```tool_call block naming one of the node's tools, or a ```python block whose code opens a
    call of one and never closes it (``call_markup.open_fenced_call``)."""
    return open_fenced_call(fence, registry.names())


def blob_answer(raw: str, registry: ToolRegistry) -> tuple[str, bool] | None:
    """The answer of a text step whose JSON blob (``cut_blob``) the output limit cut inside its
    ``Final Answer``'s ``action_input``: (the answer read so far, whether its string had closed),
    as ``json_step.cut_answer`` reads a cut JSON step; None for any other cut step (a tool's
    step is never run)."""
    blob = cut_blob(raw)
    return cut_answer(blob, registry.names()) if blob else None


def _cut_shape(
    parser: ReactStreamParser, parsed: ReactTurn, registry: ToolRegistry, cut: bool, answer_shown: bool
) -> tuple[bool, bool]:
    """How the output limit cut a reply (``cut``): ``(cut inside, final input)``. Cut inside a
    step, its reasoning, or a call written as code and not labelled (``cut_code_call``: never an
    answer, whatever the parser took it for); and, of those, cut inside the text of LangChain's
    ``Action: Final Answer`` / ``Action Input: <answer>`` (``final_step_input``): that answer,
    shown and continued. Both False for a reply not cut."""
    if not cut:
        return False, False
    no_action = not parsed.actions
    stopped_in_reasoning = parser.open_reasoning and no_action and not (parsed.final_answer or "").strip()
    # cut inside a call's markup after a whole call in the same block (MiniMax's second <invoke>):
    # nothing runs and the reply is asked again, as Function Calling asks (``cut_markup``)
    if parsed.ended_inside or stopped_in_reasoning or (parser.call_held and not answer_shown):
        return True, no_action and bool(parsed.final_answer) and final_step_input(parsed.raw)
    return no_action and not answer_shown and cut_code_call(parsed.final_answer, registry), False


def _cut_inside(
    parsed: ReactTurn, registry: ToolRegistry, common: dict, *, final_input: bool = False
) -> Generator[str, None, ModelTurn]:
    """The turn of a reply the output limit cut inside a step (or its reasoning, or a call written
    as code): the answer of LangChain's ``Action: Final Answer`` cut inside its ``Action Input``
    (``final_input``: already shown) and a ``Final Answer`` step in a JSON blob cut inside its
    answer (``blob_answer``, yielded) are that answer, continued as a cut ``Final Answer:`` is;
    anything else runs nothing and is asked again, shorter (``prompts.REPLY_CUT``)."""
    if final_input:
        return ModelTurn(thought=parsed.thought, decision=FinalAnswer(parsed.final_answer or ""), **common)
    read = blob_answer(parsed.raw, registry) if parsed.ended_inside and not parsed.actions else None
    if read is None:
        return ModelTurn(thought=parsed.thought, decision=ParseFailure(prompts.REPLY_CUT), **common)
    yield read[0]
    return ModelTurn(thought=parsed.thought, decision=FinalAnswer(read[0]), answer_whole=read[1], **common)


def drained(turn_reader: Generator[str, None, ModelTurn]) -> tuple[list[str], ModelTurn]:
    """Every text ``turn_reader`` yields, held rather than shown, and the turn it returns."""
    held: list[str] = []
    while True:
        try:
            held.append(next(turn_reader))
        except StopIteration as done:
            return held, done.value


def blob_rest_turn(turn_reader: Generator[str, None, ModelTurn], cut_step: str) -> Generator[str, None, ModelTurn]:
    """``turn_reader`` (``read_react_turn`` of a reply that continues an answer the output limit
    cut) when that answer stood in a text step's JSON blob (``cut_step``: the cut reply's
    visible text, ``blob_answer``): the rest is held, and when it goes on inside the blob's
    string and closes what the cut left open (``json_step.continued_string``) it is yielded
    without that closing (``"}`` and the code fence), its escapes read; else as written."""
    held, turn = drained(turn_reader)
    rest = continued_string(cut_blob(cut_step), turn.decision.text) if isinstance(turn.decision, FinalAnswer) else None
    if rest is None:
        yield "".join(held)
        return turn
    yield rest
    return replace(turn, decision=FinalAnswer(rest))


AFTER_ANSWER_READ_CHARS = 16_384
"""How much of the text a reply went on with after its final answer is read for the actions it
names (characters): enough for a step or a few, however much the model wrote on."""


def actions_named(after_answer: str) -> tuple[str, ...]:
    """The tools the actions in ``after_answer`` (``ReactTurn.after_answer``: what a reply wrote
    after its final answer, not run) name, in order; ``()`` for none. Only its first
    ``AFTER_ANSWER_READ_CHARS`` characters are read."""
    if not after_answer:
        return ()
    return tuple(action.name for action in parse_react(after_answer[:AFTER_ANSWER_READ_CHARS], allow_multiple_actions=True).actions)


_LEADING_LABEL = re.compile(r"[^\n:：]{0,40}[:：][ \t]*+")
"""A label at the start of a text (``Observation:``, ``**Observation:**``, ``观察：``), its colon and spaces."""
_STEP_LINE = re.compile(
    rf"(?im)^{LINE_PREFIX.pattern}(?:{label_words('thought')}|{label_words('action')})[ \t*_{LABEL_SPACES}]*+[:：]"
)
"""A line opening a step with its ``Thought:`` or ``Action:`` label (any language the parser reads)."""


def actions_after_observation(after_actions: str) -> tuple[str, ...]:
    """The tools the actions in ``after_actions`` (``ReactTurn.after_actions``: what a reply wrote
    after its actions from an ``Observation:`` it made up on, or from a ``Final Answer:`` written
    before any result) name, in order; ``()`` for none.
    They are read from the first ``Thought:`` or ``Action:`` line outside a fenced block on, as a
    reply of its own: the made-up result before it (a fake ``Final Answer`` in a code block too)
    ends nothing, nor does a fake ``Final Answer:`` line after it (the steps after that are named
    too). Only the first ``AFTER_ANSWER_READ_CHARS`` characters are read."""
    text = after_actions[:AFTER_ANSWER_READ_CHARS]
    if label := _LEADING_LABEL.match(text):  # the made-up result opens a line of its own (a fence may open it)
        text = "\n" + text[label.end() :]
    fences = fence_lines(text)
    step = next((m for m in _STEP_LINE.finditer(text) if not bisect.bisect_right(fences, m.start()) % 2), None)
    if step is None:
        return ()
    parsed = parse_react(text[step.start() :], allow_multiple_actions=True)
    after = actions_named(parsed.after_answer) if parsed.final_answer is not None else ()
    return tuple(action.name for action in parsed.actions) + parsed.calls_after_answer + after


def _step_in_reasoning(reasoning_content: str, allow_multiple_actions: bool, cut: bool) -> ReactTurn | None:
    """The actions of a reply whose content is empty and whose ``reasoning_content`` holds its
    step: a server's reasoning parser that took the whole reply for reasoning (Qwen3 with thinking
    off under a parser that expects ``</think>``: vllm-project/vllm#19839), or a model that wrote
    its call inside its thinking (Qwen3.5 in LM Studio: lmstudio-ai/lmstudio-bug-tracker#1592;
    Kimi K2 Thinking: vybestack/llxprt-code#749), as Function Calling reads such calls (vllm39056).
    None when it holds no action, or one the output limit cut."""
    if not reasoning_content.strip():
        return None
    stepped = parse_react(reasoning_content, allow_multiple_actions=allow_multiple_actions)
    return stepped if stepped.actions and not (cut and stepped.ended_inside) else None


def _split_calls(
    parsed: ReactTurn, reasoning: list[str], allow_multiple_actions: bool, registry: ToolRegistry, round_index: int, done: bool
) -> ToolCalls | None:
    """The calls of a reply whose call began in its reasoning (``reasoning_content``, or a
    ``<think>`` block) and whose content is only that call's end (``call_markup.closes_markup_only``: ``</function>\n</tool_call>`` after
    ``<tool_call>\n<function=...>`` in the reasoning, a server having ended the reasoning inside
    the call), read from the two joined; None for any other reply (``done``: one already read
    or shown as an answer; one with actions; one whose joined text holds no action)."""
    thinking = "".join(reasoning) + parsed.reasoning  # apart, or inline in a <think> block
    if done or parsed.actions or not thinking.strip():
        return None
    content = visible_text(parsed.raw)  # the content after an inline block
    if not closes_markup_only(content):
        return None
    stepped = _step_in_reasoning(thinking + content, allow_multiple_actions, cut=False)
    return None if stepped is None else _tool_calls(stepped, registry, round_index)


def _failure(parser: ReactStreamParser, parsed: ReactTurn, finish_reason: str | None, reasoning_content: str) -> ParseFailure:
    """A reply with neither an action nor an answer; if it stopped inside the reasoning block it
    opened (not at the output limit), or wrote nothing but reasoning (inline, or as
    ``reasoning_content`` with an empty content: vllm-project/vllm#19839), what it wrote there is
    the answer to fall back on once the retries run out (lobehub/lobehub#5672, as Function
    Calling's)."""
    fallback = ""
    only_reasoning_content = not parsed.raw.strip() and bool(reasoning_content.strip())
    reasoning = (
        parser.open_reasoning.strip()
        or (parsed.reasoning if not parsed.thought.strip() else "")
        or (reasoning_content if only_reasoning_content else "")
    )
    if reasoning and (finish_reason or "").lower() not in LENGTH_FINISH_REASONS:
        fallback = (parse_react(clean_reasoning(reasoning)).final_answer or "").strip()
    problem = prompts.ONLY_REASONING_REPLY if only_reasoning_content else parsed.problem
    return ParseFailure(problem or prompts.NO_ACTION_OR_ANSWER, fallback)


def continues_cut_answer(run: RunState) -> bool:
    """Whether this round goes on with an answer the output limit cut in the round before (its
    text is the rest of that answer, not an answer of its own)."""
    if not run.rounds:
        return False
    last = run.rounds[-1].turn
    return isinstance(last.decision, FinalAnswer) and last.cut



def cut_answer_text(run: RunState) -> str:
    """The answer the output limit cut in the round before, as the model wrote it
    (``RunState.cut_answer``), when this round continues it (``continues_cut_answer``); else that
    round's answer as replayed (a start of a secret at its edge hidden), or ``""``. A strategy
    joins this one to the rest: the replayed one ends with ``[REDACTED]``, and the rest of the
    secret after it is then no secret the guard can find."""
    if not continues_cut_answer(run):
        return ""
    replayed = run.rounds[-1].turn.decision.text
    return run.cut_answer or replayed

def schema_answer_turn(
    turn_reader: Generator[str, None, ModelTurn], answer_schema: Mapping[str, Any]
) -> Generator[str, None, ModelTurn]:
    """``turn_reader`` (``read_react_turn``) for a run whose final answer must follow the user's
    ``answer_schema``: its text is held, and a final answer is read as JSON
    (``answer_schema.answer_value``), checked at its top level (``answer_problem``) and yielded as
    JSON text (``answer_text``). One that does not follow the schema is a ``ParseFailure`` (the
    model is told why and asked again; its text is the answer if it keeps failing so). Text of a
    turn that is no answer is not shown: the user's output is the JSON alone. An answer the output
    limit cut is held too: the next round goes on with it, and the two are checked together
    (``schema_rest_turn``)."""
    _, turn = drained(turn_reader)  # the text is not shown: the answer is checked first
    decision = turn.decision
    if not isinstance(decision, FinalAnswer):
        return turn
    if turn.cut:
        return turn
    return (yield from _schema_checked(turn, decision.text, answer_schema))


def _schema_checked(turn: ModelTurn, answer: str, answer_schema: Mapping[str, Any]) -> Generator[str, None, ModelTurn]:
    """``turn`` with ``answer`` (its final answer's text) read as JSON and checked against the
    user's ``answer_schema`` (``schema_answer_turn``): yielded as JSON text, or a ``ParseFailure``
    whose fallback is ``answer``."""
    value, problem = answer_value(answer)
    problem = problem or answer_problem(value, answer_schema)
    if problem:
        failure = ParseFailure(prompts.ANSWER_NOT_IN_SCHEMA.format(problem=problem), fallback=answer)
        return replace(turn, decision=failure)
    text = answer_text(value)
    yield text
    return replace(turn, decision=FinalAnswer(text))


def schema_rest_turn(
    turn_reader: Generator[str, None, ModelTurn], cut: str, answer_schema: Mapping[str, Any]
) -> Generator[str, None, ModelTurn]:
    """``turn_reader`` (``read_react_turn`` of a reply that continues an answer the output limit
    cut, ``cut``: that answer's text, held by ``schema_answer_turn``) for a run whose answer must
    follow the user's ``answer_schema``: the rest is held, joined to ``cut`` (with the whitespace
    the reply began with) and the whole checked as any schema answer is (``schema_answer_turn``):
    yielded as JSON text, or a ``ParseFailure`` (the model is told why and asked again; the
    joined text is the answer if it keeps failing so). A rest the limit cut again is yielded
    joined as written, before the run's notice; a reply that is no answer is left as it is."""
    while True:
        try:
            next(turn_reader)
        except StopIteration as done:
            turn: ModelTurn = done.value
            break
    decision = turn.decision
    if not isinstance(decision, FinalAnswer):
        return turn
    body = turn.raw.lstrip()
    lead = turn.raw[: len(turn.raw) - len(body)] if body.startswith(decision.text[:16]) else ""
    joined = cut + lead + decision.text
    if turn.cut:
        yield joined
        return replace(turn, decision=FinalAnswer(joined))
    return (yield from _schema_checked(turn, joined, answer_schema))
