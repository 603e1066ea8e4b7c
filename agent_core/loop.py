"""The round loop every strategy shares.

A strategy supplies two steps (see ``StrategySteps``): build this round's
model request from the run so far, and read the model's stream into a
``ModelTurn`` whose ``decision`` is a ``FinalAnswer``, ``ToolCalls`` or a
``ParseFailure``. Everything else lives here, once: the ``ROUND n`` / thought /
``CALL tool`` log tree, running tool calls (in parallel, each with a time
limit), refusing unknown tools and repeated calls, the iteration limit,
usage, and how the run ends.

A run always ends in one of two ways: the model's final answer was streamed
to the user (after the iteration limit too, or after a round whose calls were
all refused as repeats: the model is asked to answer without tools), or
``AgentRunError`` is raised with a clear message after every log node was
finished and the usage so far was emitted.
"""

import itertools
import json
import time
from collections.abc import Generator, Iterator, Sequence
from dataclasses import replace
from typing import Any, Protocol

from dify_plugin.entities.agent import AgentInvokeMessage
from dify_plugin.entities.model.llm import LLMUsage
from dify_plugin.interfaces.agent import AgentStrategy

from agent_core import arrivals, prompts
from agent_core.answer_schema import redacted_structured_params
from agent_core.budget import observation_budget, prompt_budget, reply_limiter, request_bytes, request_tokens, run_sums
from agent_core.errors import AgentRunError, chained, error_text, shortened
from agent_core.fairness import collection_paused
from agent_core.fallback import fallback_answer, only_a_thought, unlabelled_answer
from agent_core.fences import closing_fence, open_block
from agent_core.knowledge import fitting_resources, redacted_resources, retriever_resources
from agent_core.line_budget import (
    REQUEST_BYTES,
    REQUEST_LINE_MAX_BYTES,
    TOOL_DECLARATION_BYTES,
    encoded_size,
    fit,
    label_shortened,
    text_pieces,
)
from agent_core.logs import LogNode
from agent_core.memo import PrefixMap, forget_gone
from agent_core.messages import file_type
from agent_core.model_call import (
    ModelChunk,
    ModelRequest,
    PastDeadlineError,
    invoke_model,
    message_dump,
    refuses_stop,
    refuses_tools,
    sent_stop,
    settings_bytes,
)
from agent_core.outbound import cut_reply_masked, guarded, own_keys, prompt_redactor
from agent_core.output_limit import is_broken_stream_reason, is_filter_reason
from agent_core.params import StrategyParams
from agent_core.redaction import REDACTED
from agent_core.repeat_guard import RepeatGuard
from agent_core.round_cap import not_run_log, split_round
from agent_core.run_state import REPEAT_LIMIT, Round, RunState
from agent_core.think import ThinkSplitter
from agent_core.tool_calls import InvalidToolCall, ToolCall
from agent_core.tool_runner import ToolResult, ToolRunner
from agent_core.tool_schema import ToolRegistry, redacted_schema
from agent_core.turn import FinalAnswer, ModelTurn, ParseFailure, ToolCalls
from agent_core.unvalidated import text_message
from agent_core.usage import add_usage, call_usage, empty_usage, timed, usage_to_metadata

__all__ = ["MAX_PARSE_RETRIES", "REPEAT_LIMIT", "AgentLoop", "AgentRunError", "Round", "RunState", "StrategySteps"]

MAX_CONTINUATIONS = 1
"""Times an answer cut by the output limit is continued before the run ends with a notice."""

CALLS_NAMED = 8
"""Tools named in the log for the calls a reply made after its answer (a continuation after its
text: ``_answer_rest``; a ReAct step after a final answer: ``ModelTurn.calls_after_answer``)."""

AFTER_ANSWER_LOG_CHARS = 4000
"""How much of what a reply wrote after its final answer, not read, the Thought node shows
(characters; ``not_read_after_answer``)."""

ANSWER_RESERVE_SHARE = 0.15
"""Share of the run's time kept for the answer round when a tool call's time is cut to the
deadline (at most 30 s)."""

MAX_CUT_CALL_ROUNDS = 1
"""Rounds in a row whose reply was cut by the output limit before it answered (its calls not
run, or it could not be read) that are asked again before the run ends with a notice."""

KNOWLEDGE_CUT_TRIES = 3
"""Times the knowledge context is cut again when a cut was not enough (``_knowledge_fitted``)."""

KNOWLEDGE_CUT_MARGIN = 16
"""Tokens, and characters, cut from the knowledge context beyond what the request is over by."""

CUT_ERROR_LOG_CHARS = 600
"""Characters of a model plugin's cut error (``cut_errors``) the Thought node shows."""
MAX_PARSE_RETRIES = 3
"""Consecutive unreadable or empty replies tolerated before the run fails."""

MAX_THOUGHT_ONLY_REPLIES = 2
"""ReAct replies in a row that are only a Thought (no Action, no Final Answer) before the last
one's Thought is taken as the answer: the first gets one re-prompt with the format reminder (a
model that meant to act, or was cut short, acts then). The official ReAct strategy takes the
first such reply as the answer (dify-official-plugins, agent-strategies/cot_agent/strategies/
ReAct.py: no action -> ``final_answer = scratchpad.thought``); a model that answered inside its
Thought once keeps doing so when re-prompted (run-llama/llama_index#19431, a retry loop on exactly
this; meta-llama/llama-models#113, "Missing 'Action:' after 'Thought:'" until the iteration limit),
so a second re-prompt only makes the user wait for a third model call."""

class RestTooLargeError(AgentRunError):
    """The request asking for the rest of a cut answer would be over what one daemon line holds
    (the cut answer goes back in it, as the model wrote it): the rest cannot be asked for. The
    loop ends the run with the answer shown so far and a notice; raised elsewhere, it is the
    run's error like any ``AgentRunError``."""


class StrategySteps(Protocol):
    """The two things a strategy decides; the loop does the rest."""

    provider_tool_names: bool
    """Whether tool names go into the provider's tool list, so must be names every provider
    takes (``tool_schema.provider_name``); ReAct writes them in its prompt as they are."""

    def build_request(self, run: RunState) -> ModelRequest:
        """This round's prompt, tools, stop words and streaming choice."""
        ...

    def read_turn(self, chunks: Iterator[ModelChunk], run: RunState) -> Generator[str, None, ModelTurn]:
        """Consume the model's chunks, yielding text for the user as soon as it is
        certain to be answer text, and return the turn."""
        ...

    # Optional: ``fallback``, the steps the run goes on with when the model plugin refuses the
    # native tools (``AgentLoop._without_native_tools``); Function Calling's are ReAct's.


def _call_key(call: ToolCall) -> str:
    return call.name + "\x00" + _SORTED_JSON.encode(call.arguments)


_SORTED_JSON = json.JSONEncoder(sort_keys=True, ensure_ascii=False, default=str)
"""``json.dumps(sort_keys=True, ensure_ascii=False, default=str)`` without an encoder built per call."""


def _paragraph_break(previous: str) -> str:
    """What separates a round's text from text an earlier round already streamed
    ('' at the start of the run), so that "Let me check." and the answer do not run together."""
    if not previous or previous.endswith("\n\n"):
        return ""
    return "\n" if previous.endswith("\n") else "\n\n"


def _continuation_join(previous: str, text: str, lead: str = "") -> str:
    """What joins a cut answer (``previous``) and the first text shown of its continuation
    (``text``, without the whitespace the reply began with: the strategies' readers drop it).

    ``lead`` is that whitespace, when the reply's text started with it right before ``text``
    (``leading_space``): a line break in it is kept (one or two: a new line, a new paragraph)
    with the indentation after it (a code answer cut at a line's end, ``def f():``, whose rest
    begins ``\n    return 1``: Python's indentation is its meaning), else one space ("one," and
    " two" make "one, two"). Without it, one space where the cut fell
    between two characters of Latin letters or digits, else nothing. A limit cuts at a token's
    end, and most words are one token, so most cuts fall after a whole word, and a model's new
    reply seldom starts with a space of its own ("is" and "Paris" make "is Paris"); a cut inside a
    longer word then reads "capi tal", the rarer shape. (A rest that writes the cut word again,
    as a model often does when the cut fell inside one, is dropped before this:
    ``repeated_head``, "capi" and "capital" make "capital".) Nothing either when ``previous``
    already ends in whitespace, but the indentation ``lead`` ends with after a ``previous`` that
    ended its line."""
    if text[:1].isspace():
        return ""
    if previous[-1:].isspace():
        return lead[lead.rfind("\n") + 1 :] if previous[-1] == "\n" else ""
    if lead:
        breaks = min(lead.count("\n"), 2)
        return "\n" * breaks + lead[lead.rfind("\n") + 1 :] if breaks else " "

    def word(char: str) -> bool:
        return char.isascii() and char.isalnum()

    return " " if word(previous[-1:]) and word(text[:1]) else ""


WORD_TAIL_CHARS = 40
"""The most of a cut answer's last word (its trailing letters and digits) a continuation is
looked at for writing again (``word_tail``, ``repeated_head``): a longer run (a text without
spaces) is not a word a model restarts."""


ESCAPE_OPENERS = frozenset("#%\\&={")
"""Characters that begin an escape whose digits or name follow (``&#55;``, ``%4E``, ``\\x4e``,
``=4E``, ``\\u{37}``, ``&amp;``): letters and digits after one are no word a model restarts."""


def word_tail(answer: str) -> str:
    """The letters and digits ``answer`` ends with (``"capi"`` of ``"the capi"``), at most
    ``WORD_TAIL_CHARS`` of them; ``""`` when it ends in anything else, the run is longer, the
    run follows an escape's opener (``ESCAPE_OPENERS``), or it is one character after anything
    but whitespace (``:3`` of hex pairs, ``-3``: no word). Wave 35's plugin campaign: ``&#5`` cut
    before ``5;``, or ``2d:3`` before ``3:35``, lost the continuation's first character as the
    word written again, which broke the encoded secret and showed its last characters."""
    size = 0
    for char in reversed(answer[-WORD_TAIL_CHARS - 1 :]):
        if not char.isalnum():
            break
        size += 1
    before = answer[len(answer) - size - 1 : len(answer) - size]
    if before in ESCAPE_OPENERS or (size == 1 and before and not before.isspace()):
        return ""
    return answer[len(answer) - size :] if 0 < size <= WORD_TAIL_CHARS else ""


def repeated_head(tail: str, text: str) -> int:
    """How many characters at the start of ``text`` (a continuation's first text, its leading
    whitespace dropped) write again ``tail``, the word a cut answer ended with (``word_tail``):
    ``len(tail)`` when ``text`` starts with it, else 0. A model asked to continue sometimes
    restarts the word it was cut in ("capi", then "capital of…") or writes the last word again
    (" the capital" after "is the"); shown, the answer read "capi capital". A one-character
    word counts only as a whole word ("a good" after "is a", not "aardvark" after "a")."""
    if not tail or not text.startswith(tail):
        return 0
    after = text[len(tail) : len(tail) + 1]
    return len(tail) if len(tail) > 1 or not after.isalnum() else 0


def _secret_across(cut: str, joint: str, text: str, secrets: Any) -> str:
    """``joint``, or nothing when ``cut`` (a cut answer) ends with the start of one of
    ``secrets`` that ``text`` (its continuation's first text, as streamed: often a piece of a
    few characters) completes or goes on with to its end: the model was writing the secret when
    the limit came, and a space put between its two parts would let each pass the guard
    (``outbound.TextHold`` hides a start it holds, not the rest that follows; a start still
    growing at the end of ``text`` is held until the pieces after it complete the secret). The
    joint stays where the secret itself has whitespace (a passphrase cut between two words)."""
    if not joint or not secrets or secrets.pending_start(cut) == len(cut):
        return joint
    start = secrets.pending_start(cut)
    joined = cut[start:] + text
    if _found_across(cut[start:], text, secrets):  # first: a one-word secret is found with whitespace inside it
        return ""
    if secrets.holds(cut[start:] + joint + text):
        return joint
    if text and not secrets.pending_start(joined):  # goes on with the start: its rest streams on
        return joint if secrets.spaced_after(cut[start:]) else ""  # a passphrase cut between words
    return joint


def _found_across(start: str, text: str, secrets: Any) -> bool:
    """Whether a secret found in ``start + text`` takes in some of ``start`` (a start of a secret a
    cut answer ends with): the secret runs across the cut. A secret ``text`` holds on its own ("y"
    then "is <key>": the "y" of "key" is a start of some form) is no reason to drop the joint; the
    guard hides it either way. Only the head of ``text`` a secret across the cut can reach is
    searched (``4 * secrets.reach`` characters: room for whitespace inside it), not megabytes."""
    joined = start + text[: 4 * secrets.reach]
    return secrets.holds(joined) and not secrets.redact(joined).startswith(start)


LEAD_HEAD_CHARS = 256
"""How much of a continuation's text, as the model sent it, is kept to find the whitespace it
began with (``leading_space``): far more than any leading whitespace and the text after it that
tells it was answer text."""


def leading_space(head: str, text: str) -> str:
    """The whitespace ``head`` (the start of a reply's text as the model sent it) begins with,
    when ``text`` (the first text shown of the reply) follows right after it; else ``""`` (the
    reply began with labels or call markup the reader left out). After a reasoning block the
    reply opens with, the whitespace after the block counts (``<think>…</think> four``), less the
    line breaks right after the block: they part the reasoning from the text (the model plugins
    close a block with ``\\n</think>\\n\\n``, models write ``</think>\\n\\n``), and a cut answer's
    rest joined by them read as a new paragraph inside a sentence (wave 37's campaign). The text is
    compared up to the first backslash of ``head``: a JSON escape (the rest of a JSON step's
    string, ``\\"la Seine\\"``, decoded for the user) counts as the character it stands for
    (``_escaped``)."""
    body = head.lstrip()
    if body[:1] == "<":  # a reasoning block first: the whitespace after it is the text's
        head = ThinkSplitter().feed(body).visible.lstrip("\r\n")
        body = head.lstrip()
    size = min(len(body), len(text))
    escape = body.find("\\", 0, size)  # the text as read is the same up to the first escape
    size = escape if escape > 0 else size
    if not size:
        return ""
    if body[:size] == text[:size] or (escape == 0 and _escaped(body) == text[0]):
        return head[: len(head) - len(body)]
    return ""


def cut_space(raw: str, answer: str) -> str:
    """The whitespace ``raw`` (the text of a reply the output limit cut) ends with when
    ``answer`` (its answer as the strategy read it) does not end with it: the reader dropped
    it (ReAct's parser strips an answer's end), and ``""`` otherwise. The model wrote it before
    the limit fell ("is " then "«quoted»…"), so it joins the answer and its rest when the rest
    begins with none (wave 37's campaign: "is«quoted»")."""
    if answer[-1:].isspace():
        return ""
    return raw[len(raw.rstrip()) :]


_JSON_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}


def _escaped(text: str) -> str:
    """The character the JSON escape ``text`` starts with stands for (``\\n`` a line break,
    ``\\u00e9`` "é"), or ``""`` when it starts with no whole escape."""
    if text[1:2] == "u":
        digits = text[2:6]
        return chr(int(digits, 16)) if len(digits) == 4 and all(c in "0123456789abcdefABCDEF" for c in digits) else ""
    return _JSON_ESCAPES.get(text[1:2], "")


def unfinished_restart(repeat: str, turn: ModelTurn, continuing: bool) -> str:
    """What of ``turn``, a reply that ended while it read as text an earlier reply showed
    (``shown``) written again from its start (``repeat``: what it wrote of it so far), is still to
    be shown: ``repeat``, or ``""``. Wave 37's campaign found both:

    * it ``continues`` a cut answer (``shown``) and the limit did not cut it too: a model that
      restarts its answer writes on past the cut; a rest that ends before it only began as the
      answer did ("the" after "the of ok weather"), and was lost;
    * it was asked again after a failed reply that showed ``shown`` ("«quoted» x<y" before call
      markup that could not be read), and it is an answer the limit cut ("«quoted»"): its rest
      is asked for and joined to it, so it must stand on the screen (it was hidden as a repeat,
      and the rest was glued after the failed reply's text).

    A reply asked again that only repeats what a failed one showed, and ends, is not shown again."""
    if not repeat:
        return ""
    if continuing:
        return "" if turn.at_limit else repeat
    return repeat if turn.cut and isinstance(turn.decision, FinalAnswer) else ""


def _head_noted(chunks: Iterator[ModelChunk], head: list[str]) -> Iterator[ModelChunk]:
    """``chunks`` unchanged; the first ``LEAD_HEAD_CHARS`` or so of their text appended to ``head``."""
    size = 0
    for chunk in chunks:
        if size < LEAD_HEAD_CHARS and chunk.text:
            head.append(chunk.text)
            size += len(chunk.text)
        yield chunk


def _gave_up(turn: ModelTurn, problem: str, attempts: int) -> str:
    """The user's message when the model's replies stayed unusable: an empty reply is
    named as such (its ``problem`` text is addressed to the model), one the provider's content
    filter stopped before any text as that (``output_limit.is_filter_reason``: its finish reason
    is named; the model's output limit has nothing to do with it), one the model plugin stopped
    reading before any text (``is_broken_stream_reason``) as that."""
    if not turn.raw.strip() and not turn.thought.strip():
        if is_filter_reason(turn.finish_reason):
            return prompts.FILTERED_REPLIES.format(attempts=attempts, reason=turn.finish_reason)
        if is_broken_stream_reason(turn.finish_reason):
            return prompts.BROKEN_REPLIES.format(attempts=attempts, reason=turn.finish_reason)
        return prompts.EMPTY_REPLIES.format(attempts=attempts)
    return prompts.UNREADABLE_REPLIES.format(attempts=attempts, problem=problem)


ROUND_PREVIEW_CHARS = 2000
"""How much of each tool response the ROUND node repeats (characters); its CALL node holds it all."""


def _round_entry(result: ToolResult) -> dict:
    """A tool response as the ROUND node lists it: the official strategies' shape, with the
    response cut to ``ROUND_PREVIEW_CHARS`` (the CALL node holds the whole output)."""
    entry = result.log_entry()
    response = entry.get("tool_response")
    if isinstance(response, str) and len(response) > ROUND_PREVIEW_CHARS:
        cut = len(response) - ROUND_PREVIEW_CHARS
        entry["tool_response"] = response[:ROUND_PREVIEW_CHARS] + prompts.ROUND_PREVIEW_CUT.format(cut=cut)
    return entry


def _answer_shown(turn: ModelTurn) -> str | None:
    """The answer of a final-answer turn when its ``thought`` does not already show it (a ReAct
    ``Thought: ...`` / ``Final Answer: ...`` reply, an answer read from the reasoning), else None.

    The official ReAct strategy logs a final answer as ``{"action": "Final Answer",
    "action_input": <answer>}`` on its Thought entry (dify-official-plugins
    ``agent-strategies/cot_agent/strategies/ReAct.py``), so the log tree shows what the model
    answered, not only its thought."""
    if not isinstance(turn.decision, FinalAnswer):
        return None
    answer = turn.decision.text
    return answer if answer.strip() and answer.strip() != turn.thought.strip() else None


def _logged_reply(turn: ModelTurn, text: str, secrets: Any, continued: str = "") -> str:
    """``text`` (of ``turn``) as a log node shows it: when the output limit cut the reply, a
    start of a secret it ends with is hidden (``mask_cut_edge``), as the chat hides one
    (``outbound.TextHold``); when the reply continues ``continued`` (the answer of a reply the
    limit cut), the rest of a secret that answer ended inside is hidden too
    (``mask_continued_head``), also when the reply first writes again the word the cut fell in
    (``continued_head_masked``). A whole secret is hidden by the run's guard either way. The head
    is looked at first: a reply cut again inside the same secret is all of it a piece of that
    secret, which the edge's mask would have made no longer one (wave 35's plugin campaign:
    ``u0045\\u0054…\\u0035[REDACTED]`` was logged, the middle of an escaped secret cut twice)."""
    if secrets and text:
        text = continued_head_masked(continued, text, secrets) if continued else text
        text = secrets.mask_cut_edge(text) if turn.at_limit else text
    return text


def continued_head_masked(continued: str, text: str, secrets: Any) -> str:
    """``text``, a reply that continues ``continued`` (an answer the output limit cut inside a
    secret), with the rest of that secret at its start hidden (``secrets.mask_continued_head``).
    A reply that first writes again the word the cut fell in (``repeated_head``: "rt31-9c4e7b0a"
    cut, then "9c4e7b0a2d61 is it.") finishes the secret only after that word, as the chat joins
    it: the word and the rest are hidden together (``[REDACTED] is it.``; the log showed
    "9c4e7b0a2d61", 12 of the key's 17 characters). The word written again is hidden too when it
    lies in the start of a secret the cut reply's log hid (``mask_cut_edge``), whatever follows.
    Else ``text`` as it is."""
    masked = secrets.mask_continued_head(continued, text)
    if masked != text:
        return masked
    body = text.lstrip()
    size = repeated_head(word_tail(continued), body)
    if not size:
        return text
    rest = secrets.mask_continued_head(continued, body[size:])
    if rest != body[size:]:
        return rest
    edge = secrets.mask_cut_edge(continued)
    hidden_from = len(edge) - len(REDACTED) if edge != continued else len(continued)
    return REDACTED + body[size:] if hidden_from <= len(continued) - size else text


def _calls_named(names: Sequence[str]) -> str:
    """``"N: a, b"``: how many calls a reply made after its answer (not run) and the first
    ``CALLS_NAMED`` tools they named, each once (``calls_not_run_after_answer``), each name cut as
    a ``CALL`` node's label is (``line_budget.label_shortened``: a name from a JSON list may be any size)."""
    named = list(dict.fromkeys(names))[:CALLS_NAMED]
    return f"{len(names)}: {', '.join(label_shortened(name) for name in named)}"


def _after_answer_logged(turn: ModelTurn, secrets: Any) -> str:
    """``turn.after_answer`` as the Thought node shows it: its first ``AFTER_ANSWER_LOG_CHARS``
    characters, with a note of how many more were left out and a start of a secret at the cut
    (or where the output limit cut the reply: ``_logged_reply``) hidden; the run's guard hides
    whole secrets."""
    text = _logged_reply(turn, turn.after_answer, secrets)
    if len(text) <= AFTER_ANSWER_LOG_CHARS:
        return text
    note = prompts.AFTER_ANSWER_CUT.format(cut=len(text) - AFTER_ANSWER_LOG_CHARS)
    text = text[:AFTER_ANSWER_LOG_CHARS] + note
    return secrets.mask_cut_edge(text, suffix=note) if secrets else text


def _turn_log_data(turn: ModelTurn, secrets: Any = None, continued: str = "") -> dict:
    """The data of a turn's model log node; ``secrets`` (``redaction.secret_forms``) hide a
    part of a secret a cut reply ends with or its continuation starts with (``_logged_reply``)."""
    data: dict = {"output": _logged_reply(turn, turn.thought, secrets, continued)}
    if (answer := _answer_shown(turn)) is not None:
        data["answer"] = _logged_reply(turn, answer, secrets, continued)
    if turn.reasoning:
        data["reasoning"] = _logged_reply(turn, turn.reasoning, secrets)
    if isinstance(turn.decision, ToolCalls):
        calls, beyond = split_round(turn.decision.in_order())  # the calls the round runs, in order
        data["tool_name"] = ";".join(call.name for call in calls)
        data["tool_input"] = [
            {"name": c.name, "args": c.arguments if isinstance(c, ToolCall) else c.raw_arguments} for c in calls
        ]
        if beyond:  # a reply of 50,000 actions: counted, not listed (the CALLS NOT RUN node names them)
            data["tool_calls_not_listed"] = len(beyond)
    after = "action" if isinstance(turn.decision, ToolCalls) else "answer"  # ReAct: after a made-up Observation
    if turn.after_answer:  # the step a reply wrote after its answer, not run: why nothing ran
        data[f"not_read_after_{after}"] = _after_answer_logged(turn, secrets)
    if turn.calls_after_answer:  # also a JSON list's calls after its "Final Answer" object
        data[f"calls_not_run_after_{after}"] = _calls_named(turn.calls_after_answer)
    if isinstance(turn.decision, ParseFailure):
        data["problem"] = turn.decision.problem
        data["raw"] = _logged_reply(turn, turn.raw, secrets)
    if turn.finish_reason:
        data["finish_reason"] = turn.finish_reason
    if turn.read_as:  # not in the format the run asked for (a text step in a JSON-step run)
        data["read_as"] = turn.read_as
    return data


def no_rest_notice(decision: FinalAnswer | ToolCalls | ParseFailure, cut: bool) -> str:
    """The notice that ends a run whose continuation of a cut answer (a reply read as the
    answer's rest, ``decision``; ``cut``: the output limit stopped it too) gave no rest, ``""``
    when it may still go on. An unreadable reply gave none (``ANSWER_REST_MISSING``); so did one
    the limit cut again before any answer text, whatever it held: a call cut inside its arguments
    is answered "not run" and never asked for again here, as asking a third time would show a
    second answer under the cut one (``ANSWER_CUT_OFF``). A whole call that was not cut runs
    (``""``); an answer's text is read by the caller."""
    if isinstance(decision, FinalAnswer):
        return ""
    if cut:
        return prompts.ANSWER_CUT_OFF
    return prompts.ANSWER_REST_MISSING if isinstance(decision, ParseFailure) else ""


DEADLINE_MARGIN_FLOOR = 2.0
"""Seconds a run's deadline keeps at least before its limit (``deadline_margin``). The limit counts
from the request's arrival (``run_start``), and the daemon's own clock starts once it has handed the
request over, so the margin covers only what comes after the deadline: a check that comes late (a
stream or a tool polled, the hub busy with another session: at most 0.2 s past a 10 s deadline at a
load of 13 on 2 cores, docs/timing-tests.md) and the run's last lines (a notice, the usage, the
end: milliseconds). Five seconds, the floor before, cut a tool call of 4 s under a 10 s daemon
limit (its deadline at 5 s, its tools' at 3.5 s) that would have ended with 5 s to spare."""


def deadline_margin(limit: float) -> float:
    """Seconds kept at the end of a run of ``limit`` seconds for its answer to reach Dify: a tenth,
    from ``DEADLINE_MARGIN_FLOOR`` (2 s) to 30 s, and at most half of a limit under 4 s (only the
    daemon's own ``PLUGIN_MAX_EXECUTION_TIMEOUT`` sets one)."""
    return min(max(DEADLINE_MARGIN_FLOOR, 0.1 * limit), 30.0, 0.5 * limit)


def run_start(session_id: str | None) -> float:
    """When a run's time limit starts counting (a ``time.monotonic()`` value): when its request
    reached the plugin (``arrivals``), before the request was parsed and its parameters read, as the
    daemon's clock had started by then; now when that is not known."""
    now = time.monotonic()
    arrived = arrivals.arrived(session_id)
    return now if arrived is None else min(arrived, now)


class ToolsRefusedError(Exception):
    """The model plugin refused a request for its native tools (``model_call.refuses_tools``);
    ``message`` is its error, shortened."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class AgentLoop:
    """Runs one agent invocation: ``yield from AgentLoop(strategy, steps, params).run()``.

    Args:
        strategy: the SDK strategy object (for its session: model and tool calls).
        steps: the strategy's two steps.
        params: validated node parameters.
    """

    def __init__(self, strategy: AgentStrategy, steps: StrategySteps, params: StrategyParams) -> None:
        self._strategy = strategy
        self._steps = steps
        registry = ToolRegistry(
            params.tools, provider_names=getattr(steps, "provider_tool_names", False), other_secrets=params.other_secrets
        )
        self._secrets = registry.secret_forms()  # hidden in every line the run writes
        self._redact_prompt = prompt_redactor(self._secrets)
        # the user's answer schema, sent as a completion parameter: a key pasted into it hidden too
        self._structured_params = redacted_structured_params(params.model.completion_params, self._secrets)
        # memory redacted before it is trimmed: a shortened tool result keeps no piece of a secret
        self.state = RunState(params=params, registry=registry,
                              redact_memory=self._redact_prompt if self._secrets else None)
        self._tools = ToolRunner(
            strategy.session,
            self.state.registry,
            timeout=params.tool_timeout,
            observation_tokens=observation_budget(params),
        )
        self._usage = empty_usage()
        self._prompt_budget = prompt_budget(params)  # tokens, or None: the parameters do not change
        self._reply_limit = reply_limiter(params)  # budget.reply_limit of these parameters
        self._token_sums, self._char_sums = run_sums()  # each round's prompt measured by what it adds
        self._dumps = PrefixMap(message_dump)  # each round's prompt dumped by what it adds
        self._settings_sizes: dict[tuple[tuple[str, ...], str, tuple[str, ...]], int] = {}  # bytes, by stop words and parameters
        self._repeats = RepeatGuard(REPEAT_LIMIT)
        self._open: list[LogNode] = []
        self._streamed = False
        self._continuing = False
        self._started = run_start(getattr(strategy.session, "session_id", None))
        self._deadline_at: float | None = None  # _deadline()
        self.state.fetch_deadline = (self._started + self._deadline()) / 2  # the query's files: half the run at most
        self._slowest_round = 0.0  # seconds
        self._slowest_turn = 0.0  # seconds: the slowest model turn
        self._request_sizes = (0, 0, 0)  # bytes of the last three requests sent (_room_for_another_round)
        self._last_text = ""
        self._repeating: tuple[str, ...] = ()  # the tools of a round of only repeated calls, noted before the next
        self._reply_shown = ""  # the text the last reply streamed, a repeat left unshown included
        self._failed_shown = ""  # what the failed replies asked again since the last other turn showed
        self._cut_answer = ""  # the answer of the last round cut by the output limit
        self._said: list[str] = []  # the text of the reply being read, as its reader gave it (_stream_turn)
        self._cut_space = ""  # the whitespace that cut reply ended with, when its reader dropped it (cut_space)
        self._continued = ""  # that answer, while the round that continues it is logged
        self._cut_shown = False  # whether any of that answer was shown (one in the answer schema is held)
        self._calls_after_answer: tuple[str, ...] = ()  # calls a continuation made after its text, not run
        self._stop_refused = ""  # the model plugin's error when it refused ``stop``: not sent again
        self._refused_seconds = 0.0  # seconds of this model turn's request refused for ``stop``, then made again
        self._cut_errors: list[str] = []  # this turn's model plugin error that said the output limit cut it

    # --- the run ---------------------------------------------------------------------

    def run(self) -> Generator[AgentInvokeMessage, None, None]:
        """The whole run as the messages Dify receives, no secret of the node's tools in any
        (``outbound.guarded``: the model may repeat one; with no secrets the run's own messages,
        without a generator passing each on)."""
        return guarded(self._run(), self._secrets) if self._secrets else self._run()

    def _run(self) -> Generator[AgentInvokeMessage, None, None]:
        forget_gone()  # what the runs that ended remembered: a process serves sessions for days
        try:  # the rounds, in this generator (not one of their own: each message passes one fewer)
            yield from self._dropped_settings()
            failures = thought_only = cut_answers = cut_calls = 0
            while True:
                yield from self._note_limits()
                started = time.monotonic()
                if self.state.limit_reached and self._seconds_left() <= 0:  # no time left even to ask for the answer
                    yield from self._round_stopped(None)
                    break
                try:  # _round without a generator of its own around it (each message passes one fewer)
                    turn, repeating = yield from self._round()
                except (RestTooLargeError, PastDeadlineError) as error:
                    yield from self._round_stopped(error)
                    break
                self._slowest_round = max(self._slowest_round, time.monotonic() - started)
                decision = turn.decision
                # what a failed reply showed: a reply asked again that repeats it does not show it again
                self._failed_shown = (self._reply_shown or self._failed_shown) if isinstance(decision, ParseFailure) else ""
                if notice := self._cut_answer_notice(turn, cut_answers):
                    yield from self._text(self._notice_lead(turn) + notice)
                    break
                if isinstance(decision, FinalAnswer) and turn.cut:
                    cut_answers += 1
                    self._continuing = True  # the next round's text goes on where this one stopped
                    self._cut_answer = self.state.cut_answer = decision.text
                    self._cut_space = cut_space(turn.raw, decision.text)
                    self._cut_shown = bool(self._reply_shown)
                    continue
                if isinstance(decision, FinalAnswer):
                    yield from self._filtered_notice(turn)
                    break
                cut_calls = cut_calls + 1 if turn.cut else 0  # calls not run, or a reply unreadable for it
                if cut_calls > MAX_CUT_CALL_ROUNDS:
                    yield from self._text(self._lead_after("", self._reply_shown, False) + prompts.STOPPED_AT_OUTPUT_LIMIT)
                    break
                if self.state.limit_reached and not self._cut_asked_again(turn):
                    yield from self._end_without_answer(turn)
                    break
                failures = failures + 1 if isinstance(decision, ParseFailure) else 0
                thought_only = thought_only + 1 if only_a_thought(decision) else 0
                if answer := self._given_up_answer(turn, failures, thought_only):
                    yield from self._text(self._fallback_join(decision) + answer)
                    break
                self._repeating = repeating  # looping: noted before the next round (_note_limits)
        except AgentRunError:
            yield from self._close_open_nodes("run stopped")
            yield from self._summary()
            raise
        except Exception as error:
            yield from self._close_open_nodes(str(error))
            yield from self._summary()
            raise AgentRunError(f"{type(error).__name__}: {error}") from chained(error)
        yield from self._summary()

    def _dropped_settings(self) -> Generator[AgentInvokeMessage, None, None]:
        """A log node for each tool left out because its declaration does not validate or is
        too large to send (``ToolRegistry.oversized``), and for each part of the model-selector
        left out because it could not be read."""
        for name, reason in self.state.params.dropped_tools:
            note = LogNode(f"TOOL DROPPED {name}")
            yield note.start()
            yield note.finish({"output": prompts.TOOL_DROPPED.format(name=name)}, error=reason)
        for name, size in self.state.registry.oversized:
            note = LogNode(f"TOOL DROPPED {name}")
            reason = prompts.TOOL_DECLARATION_TOO_LARGE.format(size=size, limit=TOOL_DECLARATION_BYTES)
            yield note.start()
            yield note.finish({"output": prompts.TOOL_TOO_LARGE_DROPPED.format(name=name)}, error=reason)
        for text in self.state.params.setting_notes:
            note = LogNode("SETTING LEFT OUT")
            yield note.start()
            yield note.finish({"output": text}, error=text)

    def _cut_answer_notice(self, turn: ModelTurn, continuations: int) -> str:
        """The notice the run ends with after ``turn`` when an answer the output limit cut will not
        be completed, ``""`` otherwise (the run goes on: the rest is asked for, or the turn is no
        such answer). ``continuations``: how many times the rest was asked for already.

        A continuation that holds no answer text (empty, only reasoning, unreadable) gave no rest:
        the answer shown stays cut (``ANSWER_REST_MISSING``, or ``ANSWER_CUT_OFF`` when the
        limit cut it again); the model is not asked a third time, which would show a second answer
        under the cut one. A cut answer nothing was shown of (one in the user's answer schema,
        held until it is whole and checked) is asked again as any failed reply is. A cut answer is
        continued ``MAX_CONTINUATIONS`` times at most, and not when a reply as slow as the slowest so far would end after the run's deadline: the user
        then reads the start with a notice rather than the deadline's."""
        decision = turn.decision
        if self._continued and self._cut_shown and (notice := no_rest_notice(decision, turn.cut)):
            return notice
        if not (isinstance(decision, FinalAnswer) and turn.cut):
            return ""
        if continuations >= MAX_CONTINUATIONS:
            return prompts.ANSWER_CUT_OFF
        if self._seconds_left() <= self._slowest_turn:
            return prompts.ANSWER_CUT_NO_TIME
        return ""

    def _filtered_notice(self, turn: ModelTurn) -> Generator[AgentInvokeMessage, None, None]:
        """After ``turn``'s final answer, when the provider's content filter stopped that answer
        part-way (``output_limit.is_filter_reason`` of its finish reason, some answer text shown),
        the notice that says so (``ANSWER_FILTERED``): the user is not left to read it as whole.
        An answer the filter stopped is not asked for again, as one the output limit cut is: the
        filter would most likely stop its rest too. So, with ``ANSWER_STREAM_BROKEN``, is an answer
        whose stream the model plugin stopped reading part-way (``is_broken_stream_reason``): asked
        again, the model would most likely write the same unreadable piece (rakazo#416)."""
        decision = turn.decision
        if not (isinstance(decision, FinalAnswer) and decision.text.strip()):
            return
        if is_filter_reason(turn.finish_reason):
            yield from self._text(self._notice_lead(turn) + prompts.ANSWER_FILTERED.format(reason=turn.finish_reason))
        elif is_broken_stream_reason(turn.finish_reason):
            yield from self._text(self._notice_lead(turn) + prompts.ANSWER_STREAM_BROKEN.format(reason=turn.finish_reason))

    def _cut_asked_again(self, turn: ModelTurn) -> bool:
        """Whether ``turn``, a reply to the request for the answer at a limit (iterations, repeated
        calls, time) that is no answer, is asked again: only one the output limit cut (a cut call,
        a cut Thought, only reasoning), as it would be before the limit (``MAX_CUT_CALL_ROUNDS``
        counts it), and not when a reply as slow as the slowest so far would end past the run's
        deadline. The model may have been writing its answer: a cut call or a cut Thought ended
        the run "without a final answer", the model never asked again (wave 39)."""
        return turn.cut and self._seconds_left() > self._slowest_turn

    def _notice_lead(self, turn: ModelTurn | None) -> str:
        """What goes before the notice that ends a cut answer (``_cut_answer_notice``; ``turn``
        None: the cut answer alone was shown, ``ANSWER_CUT_TOO_LARGE``): a paragraph break, after
        the fence that closes a fenced code block the answer shown left open. CommonMark runs a
        block never closed to the end of the text, so the notice would otherwise read as the
        code's last line (wave 38: ``def f():`` cut, the rest cut again). The answer shown is the
        cut answer, then this turn's rest (a rest that wrote the cut answer again is read alone);
        read once, when the run ends, never per streamed piece."""
        decision = turn.decision if turn is not None else None
        text = decision.text if isinstance(decision, FinalAnswer) else ""
        start = self._cut_answer if (turn is None or self._continued) else ""
        lead = turn.raw[: len(turn.raw) - len(turn.raw.lstrip())] if turn is not None else ""
        return self._lead_after(start, text, "\n" in lead)

    def _lead_after(self, start: str, text: str, new_line: bool) -> str:
        """``_notice_lead`` for an answer shown as ``start`` (a cut answer, or ``""``) then
        ``text`` (its rest, or the answer itself; ``new_line``: the rest began a line of its own)."""
        if start and text.lstrip().startswith(start.strip()):
            start = ""  # the rest began the answer again: it is what the user reads
        opening = open_block(start) if start else None
        if text:
            opening = open_block(text, opening, line_start=not start or start.endswith("\n") or new_line)
        if opening is None:
            return _paragraph_break(self._last_text)
        return ("" if self._last_text.endswith("\n") else "\n") + closing_fence(opening) + "\n\n"

    def _fallback_join(self, decision: ParseFailure) -> str:
        """What goes before a failed reply's fallback answer: nothing when it ``continues`` the
        text that reply showed (its own, or the same text an earlier failed reply showed:
        ``_stream_turn``), else a paragraph break from what an earlier round showed."""
        return "" if decision.continues and self._reply_shown else _paragraph_break(self._last_text)

    def _given_up_answer(self, turn: ModelTurn, failures: int, thought_only: int) -> str:
        """The answer a run that gives up on asking again ends with: once the retries run out,
        what the last failed reply still said (``fallback_answer``); after
        ``MAX_THOUGHT_ONLY_REPLIES`` Thought-only replies, that Thought unless it is no answer
        (``unlabelled_answer``); else ``""`` (ask again). Raises ``AgentRunError`` (why the run
        gave up) when the retries ran out and the last failed reply said nothing to answer with."""
        if failures >= MAX_PARSE_RETRIES:
            if answer := fallback_answer(turn):
                return answer
            raise AgentRunError(_gave_up(turn, turn.decision.problem, failures))
        if thought_only >= MAX_THOUGHT_ONLY_REPLIES:
            return unlabelled_answer(turn, self.state.registry.names())
        return ""

    def _note_limits(self) -> Generator[AgentInvokeMessage, None, None]:
        """Before a round: note a loop of repeated calls (the round before was only calls refused
        as repeats: refusing forever would only burn rounds), the iteration limit, or too little
        time for another round."""
        if self._repeating:
            self.state.limit_reached = True
            self.state.repeating, self._repeating = self._repeating, ()
            yield from self._limit_note("REPEATED CALLS")
        if self.state.round_index > self.state.params.maximum_iterations and not self.state.limit_reached:
            self.state.limit_reached = True
            yield from self._limit_note("ITERATION LIMIT")
        if not self.state.limit_reached and not self._time_for_another_round():
            self.state.limit_reached = self.state.out_of_time = True
            yield from self._limit_note("TIME LIMIT")
        if not self.state.limit_reached and not self._room_for_another_round():
            self.state.limit_reached = self.state.out_of_room = True
            yield from self._limit_note("SIZE LIMIT")

    def _round_stopped(
        self, error: RestTooLargeError | PastDeadlineError | None
    ) -> Generator[AgentInvokeMessage, None, None]:
        """How the run ends when a round cannot be had: ``None``, the run's deadline came before
        it (the run then ends with a notice in the chat, after a closing fence when the text shown
        left a code block open: a reply that would outlive the daemon's limit would lose everything); ``PastDeadlineError``, the deadline came during it;
        ``RestTooLargeError``, the rest of a cut answer cannot be asked for in one daemon line
        (the answer shown so far stays, with a notice)."""
        seconds = self.state.params.run_timeout
        if error is None:
            self.state.out_of_time = True
            # after the fence that closes a code block the text shown left open: the cut answer
            # whose rest was next, or what the last reply showed (before its calls), as other ends
            lead = self._notice_lead(None) if self._continuing else self._lead_after("", self._reply_shown, False)
            yield from self._text(lead + prompts.STOPPED_AT_TIME_LIMIT.format(seconds=seconds))
        elif isinstance(error, RestTooLargeError):  # the cut answer stays shown, with why it has no rest
            yield from self._close_open_nodes(str(error))
            yield from self._text(self._notice_lead(None) + prompts.ANSWER_CUT_TOO_LARGE)
        else:
            self.state.out_of_time = True
            yield from self._close_open_nodes(prompts.MODEL_PAST_DEADLINE)
            lead = self._lead_after(self._continued, "".join(self._said), False)  # after a block its text left open
            yield from self._text(lead + prompts.STOPPED_MID_REPLY_AT_TIME_LIMIT.format(seconds=seconds))

    def _deadline(self) -> float:
        """The run's deadline (a ``time.monotonic()`` value): ``run_timeout`` after its start,
        less ``deadline_margin`` for the answer to reach Dify."""
        if self._deadline_at is None:  # the start and the limit do not change: worked out once
            limit = self.state.params.run_timeout
            self._deadline_at = self._started + limit - deadline_margin(limit)
        return self._deadline_at

    def _seconds_left(self) -> float:
        """Seconds left before the run's deadline."""
        deadline = self._deadline_at  # worked out once (_deadline); several reads a round
        return (self._deadline() if deadline is None else deadline) - time.monotonic()

    def _tools_deadline(self) -> float:
        """When this round's tool calls must end (a ``time.monotonic()`` value): the run's
        deadline less the time kept for the answer round (twice the slowest model turn so far,
        and at least ``ANSWER_RESERVE_SHARE`` of the run's time, up to 30 s). Each call also
        keeps within the node's ``tool_timeout`` (``ToolRunner``)."""
        share = min(30.0, ANSWER_RESERVE_SHARE * self.state.params.run_timeout)
        return self._deadline() - max(2 * self._slowest_turn, share)

    def _time_for_another_round(self) -> bool:
        """Whether a round as slow as the slowest so far still ends before the deadline, with
        time left for the answer round after it."""
        return not self.state.rounds or self._seconds_left() > 2 * self._slowest_round

    def _room_for_another_round(self) -> bool:
        """Whether the round after the next still fits one daemon line, judged from the last three
        requests' bytes (``_request_sizes``): only once trimming could not bring the last one
        within ``REQUEST_BYTES`` (what is left is the run's own rounds, never dropped: the model's
        replies and calls go back intact), and the requests grew in each of the last two rounds
        by at least half of what is left (the smaller growth counts: one large reply, a file
        written once, is no trend). Else the next round asks for the answer, which then still
        fits, rather than the run ending with ``REQUEST_TOO_LARGE`` a round later. Before three
        requests were sent there is one growth at most, so no trend."""
        first, previous, last = self._request_sizes
        growth = min(last - previous, previous - first) if first else 0  # 0: no request before
        return last <= REQUEST_BYTES or last + 2 * max(growth, 0) <= REQUEST_LINE_MAX_BYTES

    def _round(self) -> Generator[AgentInvokeMessage, None, tuple[ModelTurn, tuple[str, ...]]]:
        """One round: the model's turn and its tool calls. Returns the turn, and the tools of a
        round whose every call was refused as a repeat (empty otherwise)."""
        index = self.state.round_index
        label = "FINAL ANSWER" if self.state.limit_reached else f"ROUND {index}"
        round_node = LogNode(label)
        yield self._started_node(round_node)
        turn = yield from self._model_turn(round_node)
        results: tuple[ToolResult, ...] = ()
        not_run: tuple[ToolCall | InvalidToolCall, ...] = ()
        repeating: tuple[str, ...] = ()
        if isinstance(turn.decision, ToolCalls) and (turn.cut or not self.state.limit_reached):
            # a cut reply's calls are answered "not run" (none runs), also at the limit: it is asked again
            results, not_run, repeating = yield from self._run_tools(round_node, turn.decision, cut=turn.cut)
        if not_run:  # one node for them all: a node per call would flood the daemon
            note = LogNode("CALLS NOT RUN", parent=round_node)
            yield note.start()
            yield note.finish(not_run_log(not_run))
        replayed = cut_reply_masked(turn, self._secrets)  # no start of a secret at a cut reply's edge
        self.state.rounds.append(Round(index=index, turn=replayed, results=results, not_run=not_run))
        output: dict = {
            "llm_response": _logged_reply(turn, turn.thought, self._secrets, self._continued),
            "tool_responses": [_round_entry(r) for r in results],
        }
        if not_run:
            output["calls_not_run"] = len(not_run)
        if (answer := _answer_shown(turn)) is not None:
            output["answer"] = _logged_reply(turn, answer, self._secrets, self._continued)
        yield self._finish(round_node, {"output": output}, usage=turn.usage)
        return turn, repeating

    def _model_turn(self, round_node: LogNode) -> Generator[AgentInvokeMessage, None, ModelTurn]:
        model = self.state.params.model
        request = yield from self._fitted_request(round_node)
        thought_node = LogNode(f"{model.model} Thought", parent=round_node, provider=model.provider)
        yield self._started_node(thought_node)
        reported: list[LLMUsage] = []
        problems: list[str] = []
        self._cut_errors.clear()
        self._refused_seconds = 0.0
        started = time.monotonic()
        try:
            silence = min(self.state.params.model_timeout, max(self._seconds_left(), 5.0))
            sent = self._as_sent(request)
            if self._stop_refused:
                sent = replace(sent, send_stop=False)
            # each usage report also kept in ``reported`` (read when the call fails part-way and no
            # ``ModelTurn`` carries its usage), what could not be read of it in ``problems``
            chunks = self._invoke(sent, silence, reported, problems)
            turn = yield from self._stream_turn(chunks)
            self._slowest_turn = max(self._slowest_turn, time.monotonic() - started)
        except PastDeadlineError as error:
            usage = timed(call_usage(reported), time.monotonic() - started)
            self._usage = add_usage(self._usage, usage)
            yield self._finish(thought_node, {"output": ""}, error=str(error), usage=usage)
            raise
        except ToolsRefusedError as refusal:
            usage = timed(call_usage(reported), time.monotonic() - started)
            self._usage = add_usage(self._usage, usage)
            yield self._finish(thought_node, {"output": ""}, error=refusal.message, usage=usage)
            yield from self._without_native_tools(round_node, refusal.message)
            return (yield from self._model_turn(round_node))
        except Exception as error:
            # usage the model reported before failing was billed: it counts like any other
            usage = timed(call_usage(reported), time.monotonic() - started, self._refused_seconds)
            self._usage = add_usage(self._usage, usage)
            message = shortened(prompts.MODEL_FAILED.format(round=self.state.round_index, error=error_text(error)))
            yield self._finish(thought_node, {"output": ""}, error=message, usage=usage)
            raise AgentRunError(message) from chained(error)
        # a model that reports no latency (no usage at all, or tokens only) still took time
        turn = turn.with_usage(timed(turn.usage, time.monotonic() - started, self._refused_seconds))
        self._usage = add_usage(self._usage, turn.usage)
        data = _turn_log_data(turn, self._secrets, self._continued)
        if request.completion_params:
            data["completion_params_lowered"] = request.completion_params
        if left_out := [name for name in request.without_params if name in (model.completion_params or {})]:
            data["completion_params_left_out"] = left_out
        if self._stop_refused:
            data["stop_not_sent"] = self._stop_refused
        if self._calls_after_answer:
            data["calls_not_run_after_answer"] = self._calls_after_answer[0]
        if problems:
            data["usage_error"] = "; ".join(dict.fromkeys(problems))
        if self._cut_errors:  # the plugin raised for the cut (cut_errors): the reply ended there, read as cut
            data["cut_by_model_error"] = shortened(self._cut_errors[0], CUT_ERROR_LOG_CHARS)
        yield self._finish(thought_node, data, usage=turn.usage)
        return turn

    def _without_native_tools(self, round_node: LogNode, refusal: str) -> Generator[AgentInvokeMessage, None, None]:
        """The rest of the run with the steps' ``fallback`` (ReAct's steps, tools written in the
        prompt), after the model plugin refused the native tools (``refusal``, its message): a
        ``USING ReAct`` node under ``round_node`` says so."""
        self._steps = self._steps.fallback
        step_format = getattr(self._steps, "step_format", "text")
        note = LogNode("USING ReAct", parent=round_node)
        yield note.start()
        yield note.finish({"output": prompts.REACT_TOOLS_REFUSED_NOTE.format(
            model=self.state.params.model.model, error=refusal, step_format=step_format,
            how=prompts.REACT_STEP_FORMATS.get(step_format, step_format))})

    def _invoke(self, sent: ModelRequest, silence: float, reported: list[LLMUsage],
                problems: list[str]) -> Iterator[ModelChunk]:
        """The model's chunks for ``sent``. When the model plugin refuses the request because of
        its ``stop`` list (``refuses_stop``: a route that takes no stop sequences) before any
        chunk, the request is sent again once without it, and no later request of the run sends
        it (ReAct's parser cuts an invented ``Observation:`` itself). When it refuses the native
        tools (``refuses_tools``) before any chunk and the steps have a ``fallback`` without them,
        raises ``ToolsRefusedError`` (``_model_turn`` takes the fallback)."""
        model = self.state.params.model
        asked = time.monotonic()
        chunks = invoke_model(self._strategy.session, model, sent, silence_timeout=silence, deadline=self._deadline(),
                              dumps=self._dumps, reported=reported, problems=problems,
                              cut_errors=self._cut_errors)
        refusable = bool(sent.tools) and hasattr(type(self._steps), "fallback")  # built only when refused
        if not refusable and not sent_stop(model, sent):
            return chunks
        try:
            first = next(chunks)
        except StopIteration:
            return iter(())
        except Exception as error:
            if refusable and refuses_tools(error_text(error)) and self._steps.fallback is not None:
                raise ToolsRefusedError(shortened(error_text(error))) from error
            if not sent_stop(model, sent) or not refuses_stop(error_text(error)):
                raise
            self._stop_refused = shortened(error_text(error))
            self._refused_seconds = time.monotonic() - asked  # the user waited for the refusal too
            again = replace(sent, send_stop=False)
            return invoke_model(self._strategy.session, model, again, silence_timeout=silence, deadline=self._deadline(),
                                dumps=self._dumps, reported=reported, problems=problems,
                                cut_errors=self._cut_errors)
        return itertools.chain((first,), chunks)

    def _settings_bytes(self, request: ModelRequest) -> int:
        """``model_call.settings_bytes`` of the node's model with ``request``'s own stop words and
        completion parameters, measured once per distinct pair in the run (they seldom change)."""
        key = (tuple(request.stop), repr(request.completion_params), request.without_params)
        if key not in self._settings_sizes:
            self._settings_sizes[key] = settings_bytes(self.state.params.model, request)
        return self._settings_sizes[key]

    def _fitted_request(self, round_node: LogNode) -> Generator[AgentInvokeMessage, None, ModelRequest]:
        """This round's request, trimmed (and the trimming logged) when over the prompt budget
        in tokens (when the model's context size is known) or in bytes (always: the request is
        one line to the daemon). The collector is held off while it builds and measures
        (``fairness.collection_paused``: a memory of 100,000 messages), after the query's files
        were fetched (a wait for the network)."""
        self.state.file_blobs()  # fetched on the first build else: not while the collector waits
        with collection_paused():
            request, marks, counts = self._fit_request()
        yield from self._trimming_logs(round_node, marks, counts)
        return request

    def _fit_request(self) -> tuple[ModelRequest, tuple, tuple[int | None, int | None]]:
        """``_fitted_request``'s building and measuring: the request, what was trimmed and left out of
        the knowledge before it (``RunState.trimmed``, ``knowledge_left_out()``), and its tokens before
        and after trimming (None without a token budget). Raises ``AgentRunError`` (or
        ``RestTooLargeError`` while continuing a cut answer) when even the trimmed request is over
        the daemon's line limit."""
        state = self.state
        request = self._steps.build_request(state)
        budget = self._prompt_budget
        tokens = before = request_tokens(request, self._token_sums) if budget is not None else None
        settings = self._settings_bytes(request)  # the same in every build of the round
        measured: dict[int, tuple[ModelRequest, int]] = {}  # each build kept, so no id is reused

        def prompt_bytes(request: ModelRequest) -> int:
            """``_sent_bytes(request)``, once per build of the round (it is asked up to three times)."""
            if (hit := measured.get(id(request))) is None:
                hit = measured[id(request)] = (request, self._sent_bytes(request))
            return hit[1]

        def over(request: ModelRequest, tokens: int | None = None) -> bool:
            if budget is not None and (request_tokens(request, self._token_sums) if tokens is None else tokens) > budget:
                return True
            return prompt_bytes(request) + settings > REQUEST_BYTES

        trimmed, knowledge_before = state.trimmed, state.knowledge_left_out()
        if over(request, before) and (room := state.trim_room(trimmed)):
            # the fewest steps that fit, found in a few builds: one build a step would cost
            # time quadratic in the memory's turns or the query's images, and stall the process
            fewest, fits = room, None
            state.trim_to(trimmed, room)
            candidate = self._steps.build_request(state)
            # everything trimmed: the room left tells which of the query's files can never fit, which
            # become mentions first (``RunState.plan_files``); the same build whatever the order
            state.plan_files(
                trimmed[2],
                budget - request_tokens(candidate, self._token_sums) if budget is not None else None,
                REQUEST_BYTES - settings - prompt_bytes(candidate),
            )
            if not over(candidate):
                fits, low = candidate, 0
                while fewest - low > 1:
                    middle = (low + fewest) // 2
                    state.trim_to(trimmed, middle)
                    if over(candidate := self._steps.build_request(state)):
                        low = middle
                    else:
                        fewest, fits = middle, candidate
            state.trim_to(trimmed, fewest)
            request = fits or self._steps.build_request(state)
            tokens = request_tokens(request, self._token_sums) if budget is not None else None
        if state.params.context and over(request, tokens):
            request = self._knowledge_fitted(request, budget, settings)
            tokens = request_tokens(request, self._token_sums) if budget is not None else None
        limit = self._reply_limit(tokens) if tokens is not None else None
        size = prompt_bytes(request) + settings + (encoded_size(limit) if limit else 0)  # the limit leaves the prompt as it is
        if limit:
            request = replace(request, completion_params={**request.completion_params, **limit})
        if size > REQUEST_LINE_MAX_BYTES:  # nothing left to trim: the daemon would kill the plugin
            error = RestTooLargeError if self._continuing else AgentRunError
            raise error(prompts.REQUEST_TOO_LARGE.format(size=size, limit=REQUEST_LINE_MAX_BYTES))
        self._request_sizes = (*self._request_sizes[1:], size)
        return request, (trimmed, knowledge_before), (before, tokens)

    def _trimming_logs(
        self, round_node: LogNode, was: tuple[tuple[int, int, int], int], estimates: tuple[int | None, int | None]
    ) -> Generator[AgentInvokeMessage, None, None]:
        """Log nodes under ``round_node`` for the query's files the model gets as text only (why,
        once each), and a ``CONTEXT TRIMMED`` node when the prompt was trimmed further than
        ``was`` (``(RunState.trimmed, RunState.knowledge_left_out())`` before this round's
        request was fitted); ``estimates``: the request's tokens before and after."""
        state, (trimmed, knowledge_before) = self.state, was
        for label, notes in (("IMAGE AS TEXT", state.image_notes), ("DOCUMENT AS TEXT", state.document_notes)):
            while notes:  # files the model gets as text only: say why, once
                why = notes.pop(0)
                note = LogNode(label, parent=round_node)
                yield note.start()
                yield note.finish({"output": why}, error=why)
        if trimmed != state.trimmed or knowledge_before != state.knowledge_left_out():
            as_text = state.files_shown_as_text(trimmed[2])
            images = sum(1 for file in as_text if file_type(file) == "image")
            node = LogNode("CONTEXT TRIMMED", parent=round_node)
            yield node.start()
            yield node.finish({
                "budget_tokens": self._prompt_budget,
                "budget_bytes": REQUEST_BYTES,
                "estimated_tokens_before": estimates[0],
                "estimated_tokens_after": estimates[1],
                "history_turns_dropped": state.history_dropped - state.memory_trimmed(trimmed[0])[0],
                "history_turns_with_tool_results_shortened": state.memory_trimmed()[1],
                "rounds_with_observations_shortened": state.rounds_shortened - trimmed[1],
                "images_shown_as_text": images,
                "documents_shown_as_text": len(as_text) - images,
                "knowledge_chars_left_out": state.knowledge_left_out(),
            })

    def _sent_bytes(self, request: ModelRequest) -> int:
        """``request_bytes`` of ``request`` as it is sent: its prompt redacted of the node's
        secrets (``[REDACTED]`` may be longer than the secret it hides: a 4-character key a million
        times in the query made a request line of 10 MB from one of 4)."""
        return request_bytes(self._as_sent(request), self._char_sums)

    def _as_sent(self, request: ModelRequest) -> ModelRequest:
        """``request`` as it goes to the model: its prompt redacted of the node's secrets
        (``outbound.prompt_redactor``), its step schema too (JSON steps carry the user's answer
        schema, which the prompt also quotes: a secret pasted into it is hidden in both), and the
        node's structured-output parameters when they hold one (``_structured_params``);
        ``request`` itself when that left it as it was (no secrets: the same list)."""
        messages = self._redact_prompt(request.prompt_messages)
        sent = request if messages is request.prompt_messages else replace(request, prompt_messages=messages)
        if self._structured_params and (replaced := {
                name: value for name, value in self._structured_params.items()
                if name not in request.without_params and name not in request.completion_params}):
            sent = replace(sent, completion_params={**sent.completion_params, **replaced})  # rare
        schema = request.structured_output_schema
        if self._secrets and schema is not None and self._secrets.holds(json.dumps(schema, ensure_ascii=False)):
            # its type names kept (``redacted_schema``): a secret spelling ``string`` made every one
            # ``[REDACTED]``, a schema a provider's constrained decoding refuses
            # and the step's own keys (``ModelRequest.schema_redactor``): a secret ``action`` renamed them
            redact_schema = request.schema_redactor or redacted_schema
            sent = replace(sent, structured_output_schema=redact_schema(schema, self._secrets.redact))  # rare
        return sent

    def _knowledge_fitted(self, request: ModelRequest, budget: int | None, settings: int) -> ModelRequest:
        """``request`` with the knowledge context cut by what it is over the prompt budget
        (``budget`` tokens, when known) and ``REQUEST_BYTES`` with the ``settings`` bytes the line
        carries beside the prompt (``model_call.settings_bytes``), once nothing else is left to trim
        (``RunState.shrink_knowledge``); measured again and cut again at most
        ``KNOWLEDGE_CUT_TRIES`` times, since a cut text's estimate is not exactly the whole's less
        the part cut. A request still over after it goes as the rest of the loop decides."""
        for _ in range(KNOWLEDGE_CUT_TRIES):
            excess_tokens = request_tokens(request, self._token_sums) - budget if budget is not None else 0
            excess_bytes = self._sent_bytes(request) + settings - REQUEST_BYTES  # a character cut is a byte at least
            if excess_tokens <= 0 and excess_bytes <= 0:
                break
            if not self.state.shrink_knowledge(excess_tokens + KNOWLEDGE_CUT_MARGIN, excess_bytes + KNOWLEDGE_CUT_MARGIN):
                break
            request = self._steps.build_request(self.state)
        return request

    def _stream_turn(self, chunks: Iterator[ModelChunk]) -> Generator[AgentInvokeMessage, None, ModelTurn]:
        """Stream the reader's text to the user; return the turn. A reply asked again after a
        failed one (``_failed_shown``: what that showed) that starts with the same text does not
        show it again: it is held while it repeats that text, then shown from where it goes on
        past it, or whole (after a paragraph break) when it turns out to differ."""
        head: list[str] = []  # a continuation's first text as sent: the whitespace it began with
        self._continued = self._cut_answer if self._continuing else ""
        reader = self._steps.read_turn(_head_noted(chunks, head) if self._continuing else chunks, self.state)
        self._streamed = False
        self._calls_after_answer = ()
        # a continuation that starts by writing the cut answer again (the model restarted it) shows
        # only what goes on past it, as a reply asked again after a failed one does
        shown = self._reply_shown if self._continuing else self._failed_shown
        # the word the cut answer ended with: a continuation's first text that may write it again is held
        tail = word_tail(self._reply_shown) if self._continuing else ""
        held = ""
        said: list[str] = []  # this reply's text
        self._said = said  # read if the reply is stopped at the deadline (``_round_stopped``)
        repeated = 0  # how much of ``shown`` it repeats so far, not shown again
        while True:
            try:
                text = next(reader)
            except StopIteration as done:
                repeat = shown[:repeated] if shown else ""  # held as a repeat of ``shown`` when the reply ended
                return (yield from self._reply_ended(done.value, repeat, held, (tail, head), "".join(said)))
            if not text:
                continue
            said.append(text)
            if shown:
                if shown.startswith(text, repeated):
                    repeated += len(text)
                    continue
                if text.startswith(shown[repeated:]):  # the same text, then more: goes on after it
                    text, self._streamed = text[len(shown) - repeated :], True
                else:
                    text = shown[:repeated] + text
                shown = ""
            if self._continuing and not self._streamed:
                held += text
                if tail.startswith(held):  # may be the cut word written again: held until that is known
                    continue
                text, held = held, ""
                yield from self._shown_rest(text, tail, head)
                continue
            if not self._streamed:
                text = _paragraph_break(self._last_text) + text
            self._streamed = True
            self._last_text = text
            yield from self._text(text)

    def _reply_ended(
        self, turn: ModelTurn, repeat: str, held: str, join: tuple[str, list[str]], said: str
    ) -> Generator[AgentInvokeMessage, None, ModelTurn]:
        """The end of ``_stream_turn``: what the reply still held is shown (``repeat``, its text
        read so far as what an earlier reply showed written again: ``unfinished_restart``; ``held``,
        a continuation's start that may be the cut word again, with ``join``: that word and the
        reply's head as sent), and the turn returned as the loop takes it (``_answer_rest``);
        ``said``: the reply's text."""
        tail, head = join
        if (again := unfinished_restart(repeat, turn, self._continuing)) and not self._continuing:
            yield from self._shown_anew(again)
        else:
            held = again + held
        if held:  # the reply ended inside what may have been the word again: the word alone is no rest
            yield from self._shown_rest("" if held == tail else held, tail, head)
        if self._continuing:
            turn = self._answer_rest(turn, said)
        self._continuing = False
        self._reply_shown = said
        return turn

    def _shown_anew(self, text: str) -> Generator[AgentInvokeMessage, None, None]:
        """Show ``text``, a reply's text held as a repeat of what a failed reply showed, after a
        paragraph break: as a reply that turns out to differ from it is shown (``_stream_turn``)."""
        text = _paragraph_break(self._last_text) + text
        self._streamed = True
        self._last_text = text
        yield from self._text(text)

    def _shown_rest(self, text: str, tail: str, head: list[str]) -> Generator[AgentInvokeMessage, None, None]:
        """Show ``text``, a continuation's first text (``held`` by ``_stream_turn`` while it could
        be the cut answer's last word, ``tail``, written again), joined to the cut answer: the
        word written again is left out (``repeated_head``) and the text after it goes on from the
        cut with nothing between; else ``_continuation_join`` with the whitespace the cut reply
        ended with where its reader dropped it (``cut_space``), then the whitespace this reply began
        with (``def f():`` cut after its line break, the rest ``    return 1``: a new line and its
        indentation), and no joint inside a secret the cut fell in (``_secret_across``)."""
        if not text:
            return
        if size := repeated_head(tail, text):
            text, joint = text[size:], ""
        else:
            joint = _continuation_join(self._last_text, text, self._cut_space + leading_space("".join(head), text))
            joint = _secret_across(self._cut_answer, joint, text, self._secrets)
        if not (text := joint + text):
            return
        self._streamed = True
        self._last_text = text
        yield from self._text(text)

    def _answer_rest(self, turn: ModelTurn, said: str) -> ModelTurn:
        """``turn``, a reply that continues an answer the output limit cut, as the loop takes it.

        Its text is the rest of that answer: once it showed text (``said``), a call it makes after
        it (a native tool call, call markup, a ReAct step the reader took as one) is not run, and
        the answer is what the user saw, as a ReAct ``Final Answer:`` followed by an ``Action:``
        is the answer. The user read the answer's start and its rest; a tool run now would answer
        a question the user was already given an answer to. The calls are named in the log
        (``calls_not_run_after_answer``: how many, and the first ``CALLS_NAMED`` tools).

        A continuation that is only a call (no text: the model found it needs a tool after all) is
        run, as any reply of the run that calls a tool: asked again, the model told "without
        calling tools" that called one would most likely call it again, and the answer it then
        writes with the result, after a paragraph break, is complete, where a cut start with a
        notice is not. The run's iteration and time limits hold as for any round."""
        decision = turn.decision
        if not isinstance(decision, ToolCalls) or not said.strip():
            return turn
        self._calls_after_answer = (_calls_named([call.name for call in decision.in_order()]),)
        return replace(turn, decision=FinalAnswer(said))

    # --- tools -------------------------------------------------------------------------

    def _run_tools(
        self, round_node: LogNode, decision: ToolCalls, *, cut: bool = False
    ) -> Generator[
        AgentInvokeMessage, None, tuple[tuple[ToolResult, ...], tuple[ToolCall | InvalidToolCall, ...], tuple[str, ...]]
    ]:
        """Run the round's first ``round_cap.MAX_CALLS_PER_ROUND`` calls (a call made
        ``REPEAT_LIMIT`` times already is refused, and every call of a reply ``cut`` by the output
        limit: it may miss calls or arguments). Returns the results in call order, the calls
        beyond the cap (not run, no log node each: ``round_cap.split_round``), and the tools'
        names when every call run was such a repeat (the model is looping)."""
        calls, not_run = split_round(decision.in_order())
        if cut:
            refusals = {call.id: prompts.CALLS_CUT.format(name=call.name) for call in calls}
            results = yield from self._tools.run(round_node, calls, refusals)
            return tuple(results), not_run, ()
        refusals: dict[str, str] = {}
        repeated: list[str] = []
        valid = [call for call in calls if isinstance(call, ToolCall)]
        keys = {call.id: _call_key(call) for call in valid}
        for call in valid:
            if not self._repeats.admit(keys[call.id]):
                refusals[call.id] = prompts.REPEATED_CALL.format(name=call.name, count=REPEAT_LIMIT)
                repeated.append(call.name)
        only_repeats = bool(valid) and len(valid) == len(calls) and len(repeated) == len(valid)
        results = yield from self._tools.run(round_node, calls, refusals, deadline=self._tools_deadline())
        for result in results:  # what each identical call returned: a tool whose result changes is no loop
            if result.call_id in keys and result.call_id not in refusals:
                self._repeats.record(keys[result.call_id], result.observation)
        return tuple(results), not_run, tuple(dict.fromkeys(repeated)) if only_repeats else ()

    # --- endings -----------------------------------------------------------------------

    def _limit_note(self, label: str) -> Generator[AgentInvokeMessage, None, None]:
        note = LogNode(label)
        yield note.start()
        yield note.finish({"output": self.state.limit_note()})

    def _end_without_answer(self, turn: ModelTurn) -> Generator[AgentInvokeMessage, None, None]:
        """After the limit (or a loop of repeated calls) the model still did not answer:
        say so plainly, in the chat, also after text it streamed with its last calls
        ("Let me check again.") which would otherwise be the last thing the user reads. A last
        reply that still said something, unlabelled (a ReAct Thought only, or only reasoning:
        ``fallback_answer``), is its answer instead, as it would be once the retries run out;
        the official ReAct strategy shows such a Thought as the answer in any round. One that
        was still on its way to a tool result (``fallback.no_answer``) is not, nor is a reply that
        calls a tool (its calls are not run): its action says the model is not done, so its
        Thought, findings so far or a plan, is no answer (the official ReAct strategy shows only
        the limit message then too); it stays in the log."""
        if answer := unlabelled_answer(turn, self.state.registry.names()):
            decision = turn.decision
            joint = self._fallback_join(decision) if isinstance(decision, ParseFailure) else _paragraph_break(self._last_text)
            yield from self._text(joint + answer)
            return
        if self.state.repeating:
            text = prompts.STOPPED_REPEATING.format(names=", ".join(self.state.repeating))
        elif self.state.out_of_time:
            text = prompts.STOPPED_AT_TIME_LIMIT.format(seconds=self.state.params.run_timeout)
        elif self.state.out_of_room:
            text = prompts.STOPPED_AT_SIZE_LIMIT
        else:
            text = prompts.STOPPED_WITHOUT_ANSWER.format(rounds=prompts.rounds(self.state.params.maximum_iterations))
        yield from self._text(self._lead_after("", self._reply_shown, False) + text)  # after a block it left open

    def _summary(self) -> Generator[AgentInvokeMessage, None, None]:
        context = self.state.params.context
        resources = retriever_resources(context)
        if resources:  # one line to the daemon: the citations and their text are cut to fit it
            if self._secrets:  # before the cut: [REDACTED] may be longer than the secret it hides
                resources = redacted_resources(resources, self._secrets.redact)
            text = fit("\n".join(r.content or "" for r in resources))  # redacted above
            yield self._strategy.create_retriever_resource_message(fitting_resources(resources), text)
        yield own_keys(self._strategy.create_json_message({"execution_metadata": usage_to_metadata(self._usage)}))

    def _text(self, text: str) -> list[AgentInvokeMessage]:
        """Text for the chat, in pieces that each fit one daemon line (a list: ``yield from`` it
        passes each message on without a generator frame of its own, one level fewer a piece),
        built as the strategy's ``create_text_message`` builds them, without validating them again
        (``unvalidated.text_message``)."""
        return [text_message(piece) for piece in text_pieces(text)]

    # --- log bookkeeping ---------------------------------------------------------------

    def _started_node(self, node: LogNode) -> AgentInvokeMessage:
        """``node`` noted as open (``_close_open_nodes`` finishes it if the run stops), and its
        start message (a message, not a generator: the caller yields it)."""
        self._open.append(node)
        return node.start()

    def _finish(self, node: LogNode, data: dict, **kwargs) -> AgentInvokeMessage:
        self._open.remove(node)
        return node.finish(data, **kwargs)

    def _close_open_nodes(self, reason: str) -> Generator[AgentInvokeMessage, None, None]:
        while self._open:
            yield self._finish(self._open[-1], {}, error=reason)
