"""Fitting the prompt into the model's context window, offline.

The budget for the prompt is the model's ``context_size`` minus what the
completion may use (``max_tokens`` from the completion parameters, else the
model's ``max_tokens`` rule default, else ``DEFAULT_COMPLETION_RESERVE``; at most
half the window) and a safety margin for the estimate's error
(``tokens.estimate_tokens`` is a heuristic: see its module for the measured error).
When a round's request is over budget the run trims conversation memory first (a turn too
large to fit alone is dropped, then the tool results of memory turns are shortened and last
whole turns dropped, oldest first: ``agent_core.memory_trim``), then the observations of its
own oldest rounds (shortened, with a note; the full results stay in the ``CALL`` logs).

A ``max_tokens`` set near the window's size (an 8K model with ``max_tokens`` 8192, the
slider's top) would otherwise leave the prompt no room: memory dropped, observations cut
to nothing. The prompt keeps at least half the window instead, and a request whose prompt
and ``max_tokens`` would not fit together asks for fewer reply tokens (``reply_limit``),
as the official strategies do with the SDK's ``recalc_llm_max_tokens``: providers such as
vLLM and Anthropic refuse a request whose prompt plus ``max_tokens`` exceeds the window.
"""

import base64
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from dify_plugin.entities.model.message import (
    PromptMessage,
    PromptMessageContent,
    PromptMessageContentType,
    PromptMessageTool,
)

from agent_core.fairness import GRAIN, give_way, paced
from agent_core.line_budget import REQUEST_BYTES, encoded_size
from agent_core.memo import Notes, per_object, per_text, shared_prefix
from agent_core.model_call import ModelRequest, message_dump, tool_dump
from agent_core.params import StrategyParams
from agent_core.tokens import estimate_tokens, join_cost, part_cost

DEFAULT_COMPLETION_RESERVE = 1024
"""Tokens kept for the answer when neither the node nor the model says (tokens)."""

SAFETY_MARGIN = 0.10
"""Share of the budget left unused to absorb the estimate's error."""

MESSAGE_OVERHEAD = 4
"""Tokens a chat format spends per message on roles and separators."""

IMAGE_TOKENS = 765
"""A conservative cost of one image (OpenAI's 'high' detail for a 1024 px square)."""

DOCUMENT_PAGE_TOKENS = 3000
"""A cost of one PDF page: the top of Anthropic's documented 1,500-3,000 text tokens a page
(Claude also sees each page as an image; Gemini counts 258 tokens a page)."""

DOCUMENT_PAGE_BYTES = 32 * 1024
"""Bytes of PDF counted as one page when its page count cannot be read (compressed objects)."""

_PDF_PAGE = re.compile(rb"/Type\s*/Page(?![A-Za-z])")
_PDF_COUNT = re.compile(rb"/Count\s+(\d{1,6})")

LEAST_PROMPT_SHARE = 0.5
"""The share of the context window the prompt may always use, whatever ``max_tokens`` says."""

LEAST_REPLY_TOKENS = 256
"""The fewest reply tokens ``reply_limit`` asks for: with less room left, the request goes as
set and the provider says the prompt is too long (a reply of a few tokens would only be cut)."""


def pdf_pages(data: bytes) -> int:
    """Pages of a PDF, read from its bytes: its ``/Type /Page`` objects, else the largest
    ``/Count`` of its page tree, else one page for every ``DOCUMENT_PAGE_BYTES`` (a PDF whose
    objects are compressed shows neither); at least 1."""
    if pages := len(_PDF_PAGE.findall(data)):
        return pages
    if counts := [int(count) for count in _PDF_COUNT.findall(data)]:
        return max(max(counts), 1)
    return max(1, math.ceil(len(data) / DOCUMENT_PAGE_BYTES))


@per_object
def document_tokens(part: PromptMessageContent) -> int:
    """Estimated tokens of a document content part: ``DOCUMENT_PAGE_TOKENS`` for each page of
    its data (``pdf_pages``); one page when it has no data (sent by address) or its data is not
    base64."""
    data = getattr(part, "base64_data", "") or ""
    try:
        return DOCUMENT_PAGE_TOKENS * pdf_pages(base64.b64decode(data, validate=False)) if data else DOCUMENT_PAGE_TOKENS
    except (ValueError, TypeError):
        return DOCUMENT_PAGE_TOKENS


def _max_tokens_rules(params: StrategyParams) -> list[Any]:
    """The model's parameter rules for the reply's length: named ``max_tokens`` or using its
    template (Gemini's ``max_output_tokens``)."""
    rules = params.model.entity.parameter_rules if params.model.entity is not None else []
    return [rule for rule in rules if "max_tokens" in (rule.name, rule.use_template)]


def _max_tokens_names(params: StrategyParams) -> list[str]:
    """The completion parameters that set the reply's length: ``max_tokens``, and the model's
    own names for it (``_max_tokens_rules``)."""
    return list(dict.fromkeys(["max_tokens", *(rule.name for rule in _max_tokens_rules(params))]))


@per_object
def _set_max_tokens(params: StrategyParams) -> tuple[str, int] | None:
    """The node's ``max_tokens`` setting as ``(name, tokens)``, or None when not set or not a
    number (once per parameters object: they do not change during a run)."""
    completion = params.model.completion_params or {}
    for name in _max_tokens_names(params):
        value = completion.get(name)
        if isinstance(value, int | float | str) and not isinstance(value, bool):
            try:
                return name, int(float(value))
            except (TypeError, ValueError, OverflowError):
                return None
    return None


def completion_reserve(params: StrategyParams) -> int:
    """Tokens kept for the model's reply: its ``max_tokens`` (the node's setting, else the
    model's rule default, else ``DEFAULT_COMPLETION_RESERVE``), at most half the context
    window when its size is known."""
    value: object = None
    if (setting := _set_max_tokens(params)) is not None:
        value = setting[1]
    elif rules := _max_tokens_rules(params):
        value = rules[0].default
    try:
        reserve = int(value) if isinstance(value, int | float | str) else DEFAULT_COMPLETION_RESERVE
    except (TypeError, ValueError, OverflowError):
        reserve = DEFAULT_COMPLETION_RESERVE
    size = params.context_size()
    return min(reserve, int(size * (1 - LEAST_PROMPT_SHARE))) if size else reserve


def prompt_budget(params: StrategyParams) -> int | None:
    """Prompt tokens allowed, or None when the model's context size is unknown."""
    size = params.context_size()
    if not size:
        return None
    return max(int((size - completion_reserve(params)) * (1 - SAFETY_MARGIN)), 256)


def reply_limit(params: StrategyParams, prompt_tokens: int) -> Mapping[str, int]:
    """The completion parameter to send in place of the node's for a prompt of about
    ``prompt_tokens`` (estimated): ``{"max_tokens": n}`` (the name the node used) when the
    node's ``max_tokens`` and the prompt would not fit the context window together, with ``n``
    the room left after the prompt and the estimate's margin; ``{}`` when they fit, when less
    than ``LEAST_REPLY_TOKENS`` are left, the window is unknown or ``max_tokens`` is not set."""
    return reply_limiter(params)(prompt_tokens)


def reply_limiter(params: StrategyParams) -> Callable[[int], Mapping[str, int]]:
    """``reply_limit`` with ``params`` read once: a function of the prompt's estimated tokens,
    for a run that asks every round (its parameters do not change while it runs)."""
    size = params.context_size()
    setting = _set_max_tokens(params)
    if not size or setting is None:
        return _no_limit
    name, tokens = setting

    def limit(prompt_tokens: int) -> Mapping[str, int]:
        room = size - math.ceil(prompt_tokens * (1 + SAFETY_MARGIN))
        return {name: room} if tokens > room >= LEAST_REPLY_TOKENS else {}

    return limit


def _no_limit(prompt_tokens: int) -> Mapping[str, int]:
    return {}


SEGMENT_CHARS = 4096
"""Long texts are counted in segments of about this many characters (cut at newlines)."""


REMEMBERED_CHARS = 8 * 1024 * 1024
"""Characters of text whose token counts ``count_tokens`` and ``pieces_tokens`` each remember
(``memo.per_text``): more than one request line holds (5 MiB), so a run's whole prompt is counted
once however large, and no more, so a process serving sessions for days keeps a bounded amount."""

_segment_tokens = per_text(estimate_tokens, REMEMBERED_CHARS)


def count_tokens(text: str) -> int:
    """``estimate_tokens`` with memory: a prompt is rebuilt every round from mostly the same
    texts (memory, tool declarations, earlier observations, a ReAct scratchpad that only
    grows), so each newline-aligned segment is counted once per run, keeping a long run's
    counting linear instead of quadratic. Equal to ``estimate_tokens`` within a token per
    segment (a cut only falls before a newline)."""
    if len(text) <= 2 * SEGMENT_CHARS:
        return _segment_tokens(text)
    total, start = 0, 0
    while start < len(text):
        cut = text.find("\n", start + SEGMENT_CHARS)
        end = len(text) if cut < 0 else cut
        total += _segment_tokens(text[start:end])
        start = end
    return total


_part_cost = per_text(part_cost, REMEMBERED_CHARS)


def pieces_tokens(pieces: Sequence[str], after: str = "") -> int:
    """Estimated tokens of the text ``"".join(pieces)``, summed from the pieces' own costs,
    each counted once by its text and remembered (``tokens.part_cost``): a prompt text joined anew
    every round from mostly the same pieces (a ReAct scratchpad's rounds, a completion prompt's
    head, turns and rounds) costs a look-up per piece instead of a count of its whole text.

    Each piece counts its cost plus what its join with the piece before adds
    (``tokens.join_cost``: nothing where the kind of text changes, as at a line break after a
    word; exact where the piece before holds a change of kind; the most the join can add when
    the piece before is one run, such as a line break between two runs of whitespace), rounded
    up on its own; the first piece of a text counts at least 1. So the count is never below the
    whole text's estimate (``tokens.estimate_tokens``), and above it by less than 1 token a piece
    where each join is exact; in all by at most 2 tokens a piece, plus 1.2 for each ideographic
    space or CJK punctuation mark in the run a piece starts with after a piece that is one run of
    whitespace or punctuation (after a full 32-character whitespace piece or 3-mark punctuation
    piece each is a CJK character of its own, so the count must assume it). Found by an
    exhaustive search (every piece of up to 3 characters, one per character class, in pairs;
    up to 2 characters in triples) and a random one over pieces of up to 300 characters. Prompt
    pieces meet at a line break after a word, where the join is exact. Empty pieces count
    nothing.

    ``after``: the last piece (not empty) of the text these pieces are added to, whose join with
    the first is counted as above: ``pieces_tokens(a) + pieces_tokens(b, after=a[-1])`` is
    ``pieces_tokens(a + b)``, so a text that only grows (a ReAct scratchpad) is counted by its new
    pieces alone."""
    total = 0
    last = _part_cost(after) if after else None
    for piece in pieces:
        if not piece:
            continue
        part = _part_cost(piece)
        if last is None:
            total += max(1, -(-part.cost // _TWENTIETHS))
        else:
            total += -(-(part.cost + join_cost(last, part)) // _TWENTIETHS)
        last = part
    return total


_TWENTIETHS = 20
"""Costs from ``tokens.part_cost`` and ``tokens.join_cost`` are in twentieths of a token."""


_PIECES: Notes[PromptMessage, tuple[tuple[str, ...], int | None]] = Notes()
"""Messages whose text ``message_tokens`` counts piece by piece (``in_pieces``): the pieces, and
their ``pieces_tokens`` when the caller kept it."""


def in_pieces[M: PromptMessage](message: M, pieces: Sequence[str], tokens: int | None = None) -> M:
    """``message``, its text content being ``"".join(pieces)``, noted so that ``message_tokens``
    counts it piece by piece (``pieces_tokens``): for a message rebuilt every round from pieces
    it shares with the round before. ``tokens``: ``pieces_tokens(pieces)`` when the caller kept it
    as the pieces grew (``pieces_tokens``' ``after``), else it is counted when measured. Returns
    ``message`` itself. Pieces whose lengths do not add up to the content's are ignored (the
    content is counted whole)."""
    if isinstance(message.content, str) and sum(map(len, pieces)) == len(message.content):
        _PIECES.put(message, (tuple(pieces), tokens))
    return message


def pieces_of(message: PromptMessage) -> tuple[str, ...] | None:
    """The pieces ``message``'s text content was noted as joined from (``in_pieces``), or None."""
    noted = _PIECES.get(message)
    return None if noted is None else noted[0]


@per_object
def message_tokens(message: PromptMessage) -> int:
    """Estimated tokens of one message: text, images, documents (``document_tokens``), tool
    calls and overhead; a text given in pieces (``in_pieces``) counted from its pieces. Measured
    once per message object (``per_object``); tens of thousands of them measured in a row give
    way to the other sessions (``fairness``)."""
    give_way()
    total = MESSAGE_OVERHEAD
    if isinstance(message.content, str):
        noted = _PIECES.get(message)
        if noted is None:
            total += count_tokens(message.content)
        else:
            pieces, tokens = noted
            total += pieces_tokens(pieces) if tokens is None else tokens
    elif isinstance(message.content, list):
        for part in message.content:
            if part.type == PromptMessageContentType.TEXT:
                total += count_tokens(getattr(part, "data", ""))
            else:
                total += document_tokens(part) if part.type == PromptMessageContentType.DOCUMENT else IMAGE_TOKENS
    # fields read from the model's __dict__: getattr of a field the message type lacks goes
    # through pydantic's __getattr__ and its AttributeError, 4 µs, 60,000 times for a memory
    if calls := message.__dict__.get("tool_calls"):  # most messages have none: no walk set up
        for call in paced(calls):  # a message of 100,000 calls
            total += count_tokens(call.function.name) + count_tokens(call.function.arguments)
    return total


def request_tokens(request: ModelRequest, summed: "PrefixSums | None" = None) -> int:
    """Estimated prompt tokens of a whole request, tool schemas included; ``summed``: a
    ``PrefixSums(message_tokens)`` the caller keeps for its requests (a run's), else the
    messages' estimates are summed anew."""
    tools = sum(_tool_tokens(tool) for tool in request.tools)
    if summed is not None:
        return tools + summed(request.prompt_messages)
    return tools + sum(message_tokens(message) for message in paced(request.prompt_messages))


class PrefixSums:
    """The sum of ``value(message)`` over a prompt's messages, for a caller that measures a prompt
    every round: a round's prompt is the round before's messages (the same objects) with a few
    added, so the sums over the longest run of leading messages it shares with the list measured
    last are kept, and only the messages after it are looked up (``value`` is remembered per
    message object: ``message_tokens``, ``_message_chars``). A Function Calling run of 40 rounds
    looked up 80 messages three times a round. A run of messages after that which the last list
    also held, in the same order (the memory kept when a trim search drops its oldest turns: the
    system message, then a shorter or longer tail of the same memory), is summed from the last
    list's sums, its messages compared in C, not looked up one by one: a search over a memory of
    100,000 messages looked up some 50,000 in each of its 17 builds. The same sum as
    ``sum(map(value, messages))`` (messages are never changed once built); holds the last list
    measured (its caller's run's)."""

    def __init__(self, value: Callable[[PromptMessage], int]) -> None:
        self._value = value
        self._messages: tuple[PromptMessage, ...] = ()
        self._sums = [0]  # _sums[i]: the sum over _messages[:i]

    def __call__(self, messages: Sequence[PromptMessage]) -> int:
        """``sum(value(m) for m in messages)``."""
        last, last_sums = self._messages, self._sums
        position = shared_prefix(last, messages)
        sums = last_sums[: position + 1]
        total = sums[-1]
        where: dict[int, int] | None = None  # id of each message of the last list -> its place
        looked_up = 0
        while position < len(messages):
            message = messages[position]
            if where is None:
                where = dict(zip(map(id, last), range(len(last)), strict=True)) if len(last) > 1 else {}
            start = where.get(id(message))
            if start is not None and last[start] is message:
                run = shared_prefix(last[start:], messages[position:])
                shift = total - last_sums[start]
                sums += [value + shift for value in last_sums[start + 1 : start + run + 1]]
                total, position = sums[-1], position + run
                continue
            total += self._value(message)
            sums.append(total)
            position += 1
            looked_up += 1
            if not looked_up % GRAIN:  # a value remembered does not give way: 30,000 of them did not
                give_way()
        self._messages, self._sums = tuple(messages), sums
        return total


@per_object
def _tool_tokens(tool: PromptMessageTool) -> int:
    """Estimated tokens of one tool declaration (its JSON), once per tool object."""
    give_way()  # hundreds of tools with large schemas
    return count_tokens(json.dumps(tool_dump(tool), ensure_ascii=False))


@per_object
def _message_chars(message: PromptMessage) -> int:
    """Characters of a message's text, file data, tool calls and call ids, plus room for its framing
    (once per message object; thousands measured in a row give way, as ``message_tokens``)."""
    give_way()
    content = message.content
    if isinstance(content, str):
        chars = len(content)
    else:
        chars = sum(
            len(getattr(part, "data", "") or "") + len(getattr(part, "base64_data", "") or "")
            + len(getattr(part, "url", "") or "") + 128
            for part in content or []
        )
    fields = message.__dict__  # as in message_tokens: no pydantic __getattr__ for a missing field
    calls = fields.get("tool_calls") or []
    opaque = fields.get("opaque_body")
    chars += len(str(opaque)) if opaque is not None else 0
    chars += len(fields.get("tool_call_id") or "")  # a call id may hold kilobytes (Vertex AI)
    if calls:  # most messages have none: no walk set up
        chars += sum(len(call.function.arguments) + len(call.function.name) + len(call.id) + 64 for call in paced(calls))
    return chars + 128


def run_sums() -> tuple[PrefixSums, PrefixSums]:
    """A run's ``PrefixSums`` for ``request_tokens`` (estimated tokens of each message) and
    ``request_bytes`` (characters of each message), in that order."""
    return PrefixSums(message_tokens), PrefixSums(_message_chars)


def request_bytes(request: ModelRequest, summed: PrefixSums | None = None) -> int:
    """Bytes the request's prompt, tools and output schema take as JSON (what the backwards
    request line carries): the prompt exact when it may come near ``line_budget.REQUEST_BYTES``,
    else a bound from its text's length (6 bytes a character at most), which is cheap; the
    tools (once per tool object) and the schema exact. ``summed``: a ``PrefixSums(message_chars)``
    the caller keeps for its requests (``request_tokens``)."""
    extra = sum(_tool_bytes(tool) for tool in request.tools)
    if request.structured_output_schema is not None:
        extra += encoded_size(request.structured_output_schema)
    if summed is not None:
        chars = summed(request.prompt_messages)
    else:
        chars = sum(_message_chars(message) for message in paced(request.prompt_messages))
    if chars * 6 < REQUEST_BYTES // 2:
        return chars * 6 + extra
    messages = request.prompt_messages
    return sum(_message_bytes(message) for message in paced(messages)) + max(len(messages), 1) + 1 + extra  # "[", ",", "]"


@per_object
def _message_bytes(message: PromptMessage) -> int:
    """Bytes of one message in the request line's prompt list, once per message object: the list
    measured as the sum of its messages (they are the same bytes, with a comma between two), each
    message giving way, rather than 33 MB encoded in one pass (100,000 tool messages, after a
    reply of as many calls) that no other session could interrupt."""
    give_way()
    dump = message_dump(message)
    calls = dump.get("tool_calls")
    if not isinstance(calls, list) or len(calls) <= GRAIN:
        return encoded_size(dump)
    # an assistant message of 100,000 calls: its calls measured one by one (the same bytes, with
    # a comma between two), giving way
    return encoded_size({**dump, "tool_calls": []}) + sum(encoded_size(call) for call in paced(calls)) + len(calls) - 1


def messages_bytes(messages: Sequence[PromptMessage]) -> int:
    """Bytes ``messages`` take in a request line's prompt list, a comma between two (each
    message encoded once per object)."""
    return sum(_message_bytes(message) for message in paced(messages)) + max(len(messages) - 1, 0)


def messages_over_bytes(messages: Sequence[PromptMessage], limit: int) -> bool:
    """Whether ``messages`` take more than ``limit`` bytes in a request line's prompt list
    (``messages_bytes``), encoded only when their characters' bound (6 bytes a character at
    most, within half of ``limit``, as ``request_bytes``) does not already say they fit: a memory
    of 60,000 short messages was encoded whole to learn that each turn fits, a quarter of its
    planning."""
    if sum(_message_chars(message) for message in paced(messages)) * 6 < limit // 2:
        return False
    return messages_bytes(messages) > limit


@per_object
def _tool_bytes(tool: PromptMessageTool) -> int:
    give_way()  # thousands of tools, each measured once
    return encoded_size(tool_dump(tool))


def history_turns(history: Sequence[PromptMessage]) -> list[list[PromptMessage]]:
    """Memory split into turns, each starting at a user message, so that
    dropping a turn never separates a tool call from its result."""
    turns: list[list[PromptMessage]] = []
    for message in history:
        if message.role.value == "user" or not turns:
            turns.append([])
        turns[-1].append(message)
        give_way()
    return turns


MAX_OBSERVATION_TOKENS = 4000
"""Most of one tool result the model reads (tokens); the rest stays in the log."""

MIN_OBSERVATION_TOKENS = 200
"""Least of one tool result the model reads, however small its context (tokens)."""


def observation_budget(params: StrategyParams) -> int:
    """Tokens one observation may take: a quarter of the prompt budget, within
    ``MIN_OBSERVATION_TOKENS``..``MAX_OBSERVATION_TOKENS`` (the maximum when the
    context size is unknown), so a small-context model is not overrun by one result."""
    budget = prompt_budget(params)
    if budget is None:
        return MAX_OBSERVATION_TOKENS
    return min(MAX_OBSERVATION_TOKENS, max(MIN_OBSERVATION_TOKENS, budget // 4))
