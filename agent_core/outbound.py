"""The last guard on what a run writes: no secret of the node's tools in any message.

Tool output is redacted where it is read (``agent_core.observation``), but the model writes
text of its own: an answer, a thought, a call's arguments, a tool name. A model that repeats a
secret (the user pasted it into the query or the memory, or a scripted or compromised model
wrote it) would otherwise put it in the chat, in the log tree (``Thought``, ``ROUND``, ``CALL``
input) and in the run's error. ``guarded`` passes every message of a run through
``redact_message`` and the run's error through ``redacted_error``, with the secret-input values
of every tool of the node (``ToolRegistry.secret_values``), in the forms
``redaction.secret_forms`` finds (escaped, encoded, reflowed).

Chat text comes in pieces (a model's stream): a piece that ends with the start of a secret keeps
that start back until the next piece shows whether the secret follows (``TextHold``), so a
secret split over chunks is hidden too; what is held is written before the run's last message.
Files (``blob``, ``blob_chunk``) are left alone: a file that holds a secret was withheld when the
tool sent it.

Without secrets every message passes unchanged and nothing is held.
"""

import re
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import replace
from typing import Any

from dify_plugin.entities.agent import AgentInvokeMessage
from dify_plugin.entities.invoke_message import InvokeMessage
from dify_plugin.entities.model.message import (
    AssistantPromptMessage,
    PromptMessage,
    PromptMessageContent,
    TextPromptMessageContent,
)

from agent_core import prompts
from agent_core.budget import in_pieces, pieces_of
from agent_core.errors import AgentRunError
from agent_core.fairness import give_way
from agent_core.memo import Notes, per_object
from agent_core.own_text import own_spans, spans_of
from agent_core.redaction import REDACTED, redacted_texts
from agent_core.tool_calls import made_call_id
from agent_core.turn import FinalAnswer, ModelTurn

__all__ = [
    "HELD_MASK_CHARS",
    "PieceRedactor",
    "TextHold",
    "call_id_replacer",
    "cut_reply_masked",
    "guarded",
    "own_keys",
    "prompt_redactor",
    "redact_message",
    "redacted_error",
    "redacted_prompt",
]

_Type = InvokeMessage.MessageType

_BINARY = frozenset({_Type.BLOB, _Type.BLOB_CHUNK})
"""Message types carrying a file's bytes (checked when the tool sent them)."""

_CLOSING = frozenset({_Type.JSON, _Type.RETRIEVER_RESOURCES})
"""Message types a run ends with (its citations, its usage): held text is written before them."""


_OWN_KEYS: Notes[AgentInvokeMessage, bool] = Notes()
"""Messages the plugin built whose keys are all its own (``own_keys``)."""


def own_keys(message: AgentInvokeMessage) -> AgentInvokeMessage:
    """``message`` (one the plugin built from its own keys and numbers: the run's
    ``execution_metadata``) noted so that ``redact_message`` leaves its keys as they are (a secret
    ``tokens`` renamed ``total_tokens``, and Dify lost the run's usage); returns ``message``."""
    _OWN_KEYS.put(message, True)
    return message


def redact_message(message: AgentInvokeMessage, secrets: Any) -> AgentInvokeMessage:
    """``message`` with every form of ``secrets`` (``redaction.secret_forms``) in its text
    fields replaced by ``[REDACTED]``, the message's own field names kept (a secret ``json``
    renamed ``json_object``, and the message no longer validated: the run failed at its end),
    and the keys of one noted ``own_keys``; the same object when none holds one, or when it
    carries a file's bytes. Raises nothing a well-formed message can cause."""
    if not secrets or message.type in _BINARY or message.message is None:
        return message
    body = message.message
    dumped = body.model_dump()
    keys = not _OWN_KEYS.get(message)
    # each text on its own: a form with a backslash
    data = {field: redacted_texts(value, secrets.redact, keys=keys) for field, value in dumped.items()}
    if data == dumped:  # or a quote is written escaped in the line, so the line is no place to look
        return message
    if isinstance(body, InvokeMessage.LogMessage):  # the plugin's own ids (a short secret may match in one)
        data.update(id=body.id, parent_id=body.parent_id)
    return message.model_copy(update={"message": type(body).model_validate(data)})


HELD_MASK_CHARS = 8
"""A held start of a secret this long or longer (characters, whitespace not counted) is hidden
when the text goes on without the rest of it (the answer was cut by the output limit and a
notice follows): eight characters of a secret are a leak, and no ordinary word matches them
by chance. A shorter start is written as it is ("CANA" may begin "CANADA")."""


PADDING_KEPT = 16
"""Zeros a stream keeps of the run that pads the number of a numeric escape (``&#x``, ``&#``,
``\\u{``; HTML-escaped or backslash-escaped again too): HTML and JavaScript allow any number,
which would make a secret's form as long as a writer likes, longer than ``_Secrets.reach``,
what a stream holds back. A longer run is written with this many (the same character: no
encoder pads further than 8; 16 keeps a padded form of a secret shorter than ``reach``, which
allows 40 characters for each of its characters)."""

_LONG_PADDING = re.compile(rf"(?:&(?:amp;)*#[xX]?|(?<!\\)\\+u\{{)0{{{PADDING_KEPT}}}(0+)")
"""A numeric escape's head and the first ``PADDING_KEPT`` zeros of its number, then the rest of
its zeros (group 1)."""


def _padding_kept(text: str) -> str:
    """``text`` with each run of zeros padding a numeric escape's number cut to ``PADDING_KEPT``
    zeros (``&#x`` and 40 zeros then ``53;``: 16 zeros); ``text`` itself when it has none longer."""
    if "0" * (PADDING_KEPT + 1) not in text:
        return text
    return _LONG_PADDING.sub(lambda match: match.group()[: match.start(1) - match.start()], text)


class TextHold:
    """Chat text pieces in, redacted pieces out, holding back a trailing start of a secret
    until the next piece (or ``flush``) tells whether the secret follows, and the base64
    characters of the groups around a secret (``_Secrets.unit_start``, ``open_end``: they are
    hidden with it). What is held is a start of a secret's form and so at most ``reach``
    characters (``_Secrets.pending_start``): an escape padded with more zeros than any form of a
    secret has is written with ``PADDING_KEPT`` of them (``_padding_kept``), so that a padded
    form still fits."""

    def __init__(self, secrets: Any) -> None:
        self._secrets = secrets
        self._held = ""

    def add(self, text: str) -> str:
        """What of ``text`` (after what was held) may be written now, redacted; a held start
        of ``HELD_MASK_CHARS`` or more that ``text`` does not go on with is hidden."""
        held, secrets = self._held, self._secrets
        joined = _padding_kept(held + text)  # a run of zeros split between pieces is joined first
        if joined.startswith(held):  # what is held has no run to cut: ``text``'s runs are
            text = joined[len(held) :]
        redacted = secrets.redact(joined)
        # the held start not taken into a secret found (one later in the text may be: a rest that
        # writes the whole key again after the cut start of it)
        if held and redacted.startswith(held) and (left := _left_start(held, joined, secrets)) is not None:
            redacted = secrets.redact(left + text)
        elif redacted.endswith(REDACTED) and (open_at := secrets.open_end(joined)) < len(joined):
            # a secret found at the very end: the characters of its last encoding unit (base64's
            # group) may follow in the next piece, and are hidden with it only if it is held
            head = secrets.redact(joined[:open_at])
            cut = secrets.unit_start(head, secrets.pending_start(head))
            self._held = head[cut:] + joined[open_at:]
            return head[:cut]
        cut = secrets.unit_start(redacted, secrets.pending_start(redacted))
        self._held = redacted[cut:]
        return redacted[:cut]

    def flush(self) -> str:
        """What is still held, redacted, a start of a secret at its end hidden (the text ends
        there: the secret was cut); nothing is held afterwards."""
        text, self._held = self._held, ""
        return self._secrets.mask_cut_edge(self._secrets.redact(text))


def _left_start(held: str, joined: str, secrets: Any) -> str | None:
    """``held`` (a start of a secret a stream held back) with that start hidden when ``joined``
    (``held`` and the next piece) does not go on with it and it has ``HELD_MASK_CHARS`` or more
    characters (whitespace not counted); ``None`` when it goes on or is shorter. A shorter start
    that begins inside the one left and goes on in ``joined`` (``&#83;`` after ``er``: a
    base64 form's start, then an escaped one's) stays as it is, to be held on: hiding it with
    the start left (from its first character to the end of ``held``) let the rest of the secret
    after it through, no longer a start of any form."""
    at, goes_on = secrets.pending_start(held), secrets.pending_start(joined)
    if goes_on <= at or len("".join(held[at:goes_on].split())) < HELD_MASK_CHARS:
        return None
    if goes_on >= len(held):
        return _masked_start(held, secrets)
    return _masked_start(held[:goes_on], secrets) + held[goes_on:]


def _masked_start(text: str, secrets: Any) -> str:
    """``text`` (ending with a start of a secret the stream did not go on with) with that start
    hidden, the whitespace after it kept: held in case a passphrase's next word followed, it is
    no part of the start (a space before the next word was hidden with it)."""
    body = text.rstrip()
    return secrets.mask_cut_edge(body) + text[len(body) :]


def cut_reply_masked(turn: ModelTurn, secrets: Any) -> ModelTurn:
    """``turn`` as it goes back to the model in the rounds after it: when the output limit cut
    it (``ModelTurn.cut``) inside a secret, the start of the secret it ends with, of at least
    ``redaction.MIN_SECRET_EDGE`` characters, replaced by ``[REDACTED]`` (``mask_cut_edge``)
    at the end of its content (the string, or its last part when that is a text part), its
    text, its raw reply and its answer: the request that asks the model to go on replays the
    cut reply, and no whole secret is there for ``prompt_redactor`` to find. Everything else
    (reasoning blocks before the edge, ``opaque_body``, tool calls and their ids) is kept as
    the model plugin produced it. ``turn`` itself when it was not cut, there are no secrets,
    or nothing was hidden."""
    if not secrets or not turn.cut:
        return turn
    mask = secrets.mask_cut_edge
    update: dict[str, Any] = {}
    for field in ("thought", "raw"):
        if (text := mask(getattr(turn, field))) != getattr(turn, field):
            update[field] = text
    content = turn.content
    if isinstance(content, str) and (text := mask(content)) != content:
        update["content"] = text
    elif isinstance(content, list) and content and isinstance(last := content[-1], dict) and last.get("type") == "text":
        data = last.get("data")
        if isinstance(data, str) and (text := mask(data)) != data:
            update["content"] = [*content[:-1], {**last, "data": text}]
    decision = turn.decision
    if isinstance(decision, FinalAnswer) and (text := mask(decision.text)) != decision.text:
        update["decision"] = FinalAnswer(text)
    return replace(turn, **update) if update else turn


def redacted_error(error: AgentRunError, secrets: Any) -> AgentRunError:
    """``error``, or a new one with its message redacted and nothing chained (the SDK writes the
    traceback, with the text of every chained error, beside the message) when a secret is in
    its message or in an error it was raised from."""
    chain, link = [], error
    while link is not None and len(chain) < 16:
        chain.append(str(link))
        link = link.__cause__ or link.__context__
    if not secrets or not any(secrets.holds(text) for text in chain):
        return error
    clean = AgentRunError(secrets.redact(str(error)))
    clean.__suppress_context__ = True
    return clean


def call_id_replacer(secrets: Any) -> Callable[[str], str]:
    """``call id -> call id``: an id that holds a form of ``secrets`` (the model wrote a secret
    as its call's id: it goes back byte for byte, so it would be sent to the model and written in
    the request line) replaced by one made for it, ``s00000001``, ``s00000002``... (nine letters
    and digits: every provider's rule), the same each time the same id is met and different for
    each id (two calls whose ids held the same secret still pair with their tool messages);
    any other id as it is."""
    made: dict[str, str] = {}

    def replaced(call_id: str) -> str:
        if not isinstance(call_id, str) or not secrets.holds(call_id):
            return call_id
        if call_id not in made:
            made[call_id] = made_call_id(SECRET_ID_PREFIX, len(made) + 1)
        return made[call_id]

    return replaced


SECRET_ID_PREFIX = "s"
"""The prefix of the ids ``call_id_replacer`` makes (the strategies make theirs under ``c``)."""


def _redacted_call(call: AssistantPromptMessage.ToolCall, redact: Callable[[str], str],
                   call_id_of: Callable[[str], str]) -> AssistantPromptMessage.ToolCall:
    """``call`` with its tool name and arguments redacted and its id replaced when it holds a
    secret (``call_id_replacer``); the same object when none held one. The tool message that
    answers it has its ``tool_call_id`` replaced the same way (``_redacted_prompt_message``), so
    the two still match."""
    call_id, name, arguments = call_id_of(call.id), redact(call.function.name), redact(call.function.arguments)
    if call_id == call.id and name == call.function.name and arguments == call.function.arguments:
        return call
    function = call.function.model_copy(update={"name": name, "arguments": arguments})
    return call.model_copy(update={"id": call_id, "function": function})


class PieceRedactor:
    """``pieces -> redacted pieces`` for a text joined from pieces (``budget.in_pieces``: ReAct's
    scratchpad and completion prompt, rebuilt every round from the rounds' texts), each piece
    redacted once while it recurs: a new round costs its own text, not the whole history's.

    Pieces are redacted on their own, except where a secret may stand across the place two
    meet: the ``redaction._Secrets.reach`` characters before it and after it hold a form of a
    secret (``holds``, escapes decoded); there the pieces are redacted joined, as one unit, so a
    secret split between two rounds' texts is found as in the whole text. Not found so: a
    secret split there with more than ``reach`` characters of it (whitespace and escapes
    counted) on one side. Units are remembered while they recur (those of the last text, and
    more while few)."""

    def __init__(self, secrets: Any) -> None:
        self._secrets = secrets
        self._units: dict[Any, str] = {}
        self._open: dict[tuple[str, str], bool] = {}  # (before, after) a place -> a secret may stand across

    def __call__(self, pieces: Sequence[str]) -> list[str]:
        """``pieces`` redacted: one redacted text per unit, then an empty string for each other
        piece of the unit (they join to the redacted text and are as many as ``pieces``)."""
        reach, units = self._secrets.reach, self._units
        after = [""] * (len(pieces) + 1)  # the first ``reach`` characters from each piece on
        for at in range(len(pieces) - 1, -1, -1):
            piece = pieces[at]
            after[at] = piece[:reach] if len(piece) >= reach else (piece + after[at + 1])[:reach]
        out: list[str] = []
        used: set[Any] = set()
        unit: list[str] = []
        before = ""  # the last ``reach`` characters before the next place
        for at, piece in enumerate(pieces):
            unit.append(piece)
            before = piece[-reach:] if len(piece) >= reach else (before + piece)[-reach:]
            if at + 1 < len(pieces) and self._across(before, after[at + 1]):
                continue
            out += self._unit(tuple(unit), used)
            unit = []
        if len(units) > 4 * len(used) + 64:  # pieces of texts no longer sent (rounds shortened)
            self._units = {key: units[key] for key in used}
            self._open.clear()
        return out

    def _across(self, before: str, after: str) -> bool:
        """Whether a form of a secret may stand across the place between ``before`` and
        ``after`` (the window around it holds one: remembered per window)."""
        key = (before, after)
        found = self._open.get(key)
        if found is None:
            found = self._open[key] = self._secrets.holds(before + after)
        return found

    def _unit(self, unit: tuple[str, ...], used: set[Any]) -> list[str]:
        """The unit's pieces joined and redacted, the plugin's own words in them kept
        (``own_text``: a piece's own spans, where it lands in the join), then an empty string
        for each other piece."""
        owns = tuple(map(spans_of, unit))
        key = (unit, owns) if any(owns) else unit  # a text is kept only where it was the plugin's
        used.add(key)
        redacted = self._units.get(key)
        if redacted is None:
            keep, at = [], 0
            for piece, spans in zip(unit, owns, strict=True):
                keep += [(at + start, at + end) for start, end in spans]
                at += len(piece)
            text = "".join(unit)
            redacted = self._units[key] = self._secrets.redact(text, keep) if keep else self._secrets.redact(text)
            give_way()
        return [redacted, *[""] * (len(unit) - 1)]


def _redacted_parts(content: list[PromptMessageContent], secrets: Any) -> list[PromptMessageContent]:
    """The content parts of a prompt message with ``secrets`` hidden: the text parts' texts
    redacted as one text (``PieceRedactor``: a key split over two parts, as a client that sends a
    part a line may, is found as the model reads it, the parts joined; a part left empty by it is
    dropped, as providers refuse blank text parts), each file part as ``_redacted_file``. The
    parts themselves where nothing is hidden; fewer parts only when one was emptied."""
    at = [n for n, part in enumerate(content) if isinstance(part, TextPromptMessageContent)]
    parts = [_redacted_file(part, secrets) for part in content]
    texts = PieceRedactor(secrets)([content[n].data for n in at]) if at else []
    emptied = set()
    for n, text in zip(at, texts, strict=True):
        if text != content[n].data:
            parts[n] = content[n].model_copy(update={"data": text})
            if not text:
                emptied.add(n)
    return [part for n, part in enumerate(parts) if n not in emptied]


def _redacted_file(part: PromptMessageContent, secrets: Any) -> PromptMessageContent:
    """A file part (image, document, video, audio: a memory turn's, the query's) whose address,
    name or type holds a secret replaced by a text part saying it was withheld
    (``prompts.FILE_PART_WITHHELD``), as a tool's file or link is; its bytes (``base64_data``) are
    not searched, as a file's bytes a tool sends are not. ``part`` itself otherwise (a text part
    too)."""
    if isinstance(part, TextPromptMessageContent):
        return part
    fields = [getattr(part, name, "") for name in ("url", "filename", "mime_type", "format")]
    if any(isinstance(value, str) and value and secrets.holds(value) for value in fields):
        kind = getattr(getattr(part, "type", None), "value", None) or "file"
        return TextPromptMessageContent(data=prompts.FILE_PART_WITHHELD.format(kind=kind))
    return part


def _redacted_text(message: PromptMessage, redact: Callable[..., str]) -> str:
    """``message``'s string content redacted, the plugin's own words in it kept (``own_text``)."""
    keep = own_spans(message)
    return redact(message.content, keep) if keep else redact(message.content)


def _redacted_prompt_message(message: PromptMessage, secrets: Any, call_id_of: Callable[[str], str],
                             by_piece: PieceRedactor | None = None) -> PromptMessage:
    """``message`` with every form of ``secrets`` hidden in its text (a text given in pieces,
    ``budget.in_pieces``, piece by piece with ``by_piece``, and noted in its redacted pieces),
    its name, its tool calls' names and arguments, and its tool calls' ids and the call id a
    tool message answers replaced (``call_id_replacer``), a file part whose address or name
    holds one withheld (``_redacted_parts``); the same object when it holds none."""
    redact, update = secrets.redact, {}
    pieces = pieces_of(message) if by_piece is not None and isinstance(message.content, str) else None
    if pieces is not None:
        redacted_pieces = by_piece(pieces)
        if any(new is not old for new, old in zip(redacted_pieces, pieces, strict=True)):
            update["content"] = "".join(redacted_pieces)
            if update["content"] == message.content:
                del update["content"]
    elif isinstance(message.content, str) and (text := _redacted_text(message, redact)) != message.content:
        update["content"] = text
    elif isinstance(message.content, list):
        parts = _redacted_parts(message.content, secrets)
        if len(parts) != len(message.content) or any(
                new is not old for new, old in zip(parts, message.content, strict=True)):
            update["content"] = parts
    if isinstance(message.name, str) and (name := redact(message.name)) != message.name:
        update["name"] = name
    call_id = getattr(message, "tool_call_id", None)  # a tool message: the id of the call it answers
    if isinstance(call_id, str) and (redacted_id := call_id_of(call_id)) != call_id:
        update["tool_call_id"] = redacted_id
    if isinstance(message, AssistantPromptMessage) and message.tool_calls:
        calls = [_redacted_call(call, redact, call_id_of) for call in message.tool_calls]
        if any(new is not old for new, old in zip(calls, message.tool_calls, strict=True)):
            update["tool_calls"] = calls
    if not update:
        return message
    copy = message.model_copy(update=update)
    return in_pieces(copy, redacted_pieces) if pieces is not None and "content" in update else copy


def prompt_redactor(secrets: Any) -> Callable[[list[PromptMessage]], list[PromptMessage]]:
    """``messages -> messages`` (a request's prompt) with every form of ``secrets`` hidden in
    their text (a query, memory or instruction the user pasted a secret into, a call's arguments
    or tool name the model wrote it in). Each message object is checked once while it lives (a
    round's prompt repeats the messages of the round before) and the redacted copy reused; other
    sessions get their turn between messages (``fairness.give_way``). A prompt with no secret in
    it (or no secrets) comes back as the same list."""
    if not secrets:
        return lambda messages: messages
    call_id_of = call_id_replacer(secrets)  # one for the run: the ids stay paired round after round
    by_piece = PieceRedactor(secrets)  # ReAct's scratchpad: a new message each round, of old pieces
    redacted = per_object(lambda message: _redacted_prompt_message(message, secrets, call_id_of, by_piece))

    def redact(messages: list[PromptMessage]) -> list[PromptMessage]:
        out, changed = [], False
        for message in messages:
            shown = redacted(message)
            changed = changed or shown is not message
            out.append(shown)
            give_way()
        return out if changed else messages

    return redact


def redacted_prompt(messages: list[PromptMessage], secrets: Any) -> list[PromptMessage]:
    """``messages`` with every form of ``secrets`` hidden (``prompt_redactor``, without its
    memory); messages without one are the same objects."""
    return prompt_redactor(secrets)(messages)


def guarded(messages: Iterator[AgentInvokeMessage], secrets: Any) -> Generator[AgentInvokeMessage, None, None]:
    """``messages`` (a run) with every form of ``secrets`` (``redaction.secret_forms``) hidden
    in each (see the module docstring); an ``AgentRunError`` the run ends with is raised
    redacted, after the held text."""
    if not secrets:
        yield from messages
        return
    hold = TextHold(secrets)

    def text_message(text: str) -> AgentInvokeMessage:
        return AgentInvokeMessage(type=_Type.TEXT, message=InvokeMessage.TextMessage(text=text))

    try:
        for message in messages:
            if message.type == _Type.TEXT and isinstance(message.message, InvokeMessage.TextMessage):
                if text := hold.add(message.message.text):
                    yield text_message(text)
                continue
            if message.type in _CLOSING and (text := hold.flush()):
                yield text_message(text)
            yield redact_message(message, secrets)
    except AgentRunError as error:
        if text := hold.flush():
            yield text_message(text)
        clean = redacted_error(error, secrets)
        if clean is error:
            raise
        raise clean from None
    finally:  # closed early (the run was cancelled): the run stops now, its tool calls with it
        close = getattr(messages, "close", None)
        if close is not None:
            close()
    if text := hold.flush():
        yield text_message(text)
