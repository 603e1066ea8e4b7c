"""A tool's `ToolInvokeMessage` stream -> what the model reads, what the log keeps, what the user gets.

One `ObservationCollector` per tool call. The caller feeds every message the backwards tool
invocation yields to `add()` and yields the messages it returns to Dify at once (files reach
the user while the agent keeps working); when the stream ends or fails it calls `fail()`
and then `finish()`, which returns a `ToolOutcome`.

Rules per message type (SDK `entities/invoke_message.py` `InvokeMessage.MessageType`; how Dify
renders what is forwarded: docs/protocol-notes.md §5, Dify `core/workflow/nodes/agent/
message_transformer.py`):

===================  ==============================================  ===========================
type                 observation (what the model reads)              forwarded to the user
===================  ==============================================  ===========================
text                 appended as is                                  no (the answer reaches the
                                                                     user through the model)
link                 ``result link: <url>.``; a Dify file: "A file   only a tool file: meta has
                     was sent to the user: name. It is shown with    ``tool_file_id`` or the URL
                     your answer: do not write a link..."            path starts with ``/files/``
                     (no address: see "addresses" below)             (dify-official-plugins #3674)
image, image_link    "An image was sent to the user: <url>"; a       yes (see "images" below)
                     Dify file: its name, as for a link
blob                 "A file was sent to the user: name (mime,       yes, as one ``blob`` message
                     N bytes)"                                       with its meta (see "files")
blob_chunk           like blob, once the ``end`` chunk arrived       once, reassembled by id in
                                                                     sequence order, meta of the
                                                                     first chunk
file                 "A file was sent to the user: name" (+ "It is   yes (see "files" below)
                     shown with your answer..." for a Dify file)
binary_link          as a link to a Dify file                        yes (see "files" below)
json                 compact JSON, unless it repeats a text          no
                     message (workflow tools send both: #3542);
                     a string as it is, a number or a boolean as
                     JSON (``42``, ``true``); null is unreadable;
                     ``{"execution_metadata": ..}``, ``{}`` and
                     ``[]`` are ignored, as is
                     ``suppress_output`` JSON (newer Dify)
variable             no (#3542), unless the call produced nothing    no: Dify's Agent node turns a
                     else (see "variables" below); listed in         variable into a node output,
                     `full_text`                                     a tool's must not overwrite
                                                                     the agent's outputs
log                  no (tool-internal)                              no
retriever_resources  its ``context``, else the resources' content    yes (citations)
anything malformed   one note: the tool returned an invalid          no
                     response, each fault named once by its type
                     and field ("variable message: variable_name
                     is null"; dify-official-plugins #628)
===================  ==============================================  ===========================

Images: an ``image_link`` whose URL is not a Dify tool file and whose meta has no
``tool_file_id`` is forwarded as ``image`` (Dify downloads it into a tool file) because Dify's
Agent node looks up ``tool_file_id`` for every ``image_link`` and fails the whole node when it
is missing; a missing ``tool_file_id`` that the URL names (``/files/tools/<id>.<ext>``) is
added to the forwarded meta. Inline ``data:`` URLs are never put into the observation. An
address Dify cannot fetch (not http(s) with a host, and not a Dify file: ``javascript:``,
``file:``, a bare name) is not forwarded, since Dify would answer the user "Failed to download
image: <address>"; the observation says why.

Files: a tool file (meta ``tool_file_id``, a ``tool_file`` transfer's ``related_id``, or an
address ``/files/tools/<id>.<ext>``) given as a ``file`` or ``binary_link`` message (Dify's type
for a tool's non-image file) goes on as an ``image_link`` carrying its ``tool_file_id``: Dify's
Agent node makes every ``image_link``/``binary_link``/``image`` of a tool file a file of the
node's ``files`` output, typed by the stored MIME type, but renders a ``link`` as the text
"Link: <url>" only (``_tool_file_message``). A ``file`` at another address goes on as an
``image`` (images) or a ``link``.

Variables: workflow tools repeat their text as variables, so variables stay out of the
observation. Some tools send nothing but variables: stream variables
(``create_stream_variable_message``, e.g. SSE tools, one piece per message) and MCP tools with
structured output and empty content (one variable per key). When a call produced no text, JSON,
link, file or other note with visible text, its variables become the observation: one
variable's value as text (a streamed variable's pieces joined; other values as compact JSON),
several as compact JSON of name -> value. That text is stored like a text message (redacted,
then cut), so the same caps and redaction apply.

Addresses: a forwarded link, image or file at a Dify file address (meta ``tool_file_id``, a path
under ``/files/``, or a signed ``sign=`` query) is named to the model by its filename, else the
last segment of its path, and never by its address: Dify signs these addresses (often with the
internal ``INTERNAL_FILES_URL``, ``http://api:5001/files/tools/<id>.png?timestamp=..&sign=..``)
and they expire within minutes, so a model that repeats one shows the user a broken link or
image. The model is told the file is shown with its answer. An external http(s) address keeps
its URL: a plain link is not forwarded, so the model must pass it on.

Files: the daemon reads plugin stdout lines of at most 5 MiB and accepts a chunked file of at
most 15 MiB (docs/protocol-notes.md §1.2; daemon ``io_tunnel/agent_service.go``). So a file of at most
`SINGLE_BLOB_MAX_BYTES` is forwarded as one ``blob`` message, a larger one as ``blob_chunk``
messages of 8192 bytes (the daemon reassembles them, taking the meta of the ``end`` chunk,
which carries the file's meta), and a file over `FORWARD_BLOB_MAX_BYTES` is not forwarded
(forwarding it would make the daemon abort the whole run); the observation says so.
A ``blob_chunk`` stream without its ``end`` chunk (the tool stopped early) or with fewer bytes
than its ``total_length`` is not forwarded either: a truncated file is corrupt data; the
observation says the file arrived incomplete. Chunks are joined in sequence order; a gap in the
numbers with every byte there is a complete file (Dify reassembles by bytes too). A message
whose ``meta`` is not an object is read with no meta; file data that is not base64 is reported
as unreadable, never forwarded as its text.

Errors (`fail`): the observation names the tool, the error type and message, never a traceback
(dify#28207): a traceback is reduced to its exception line, and the daemon's nested
``{"error_type", "message"}`` JSON is unwrapped, both read as a model's error is
(`agent_core.errors`). `full_text` keeps the complete error text.

Bounding: a long inline ``data:...;base64,`` URI (a picture inside an MCP tool's JSON,
dify#22618) keeps its type and loses its payload to a note of its size (`agent_core.data_uri`);
then the observation is cut to `max_tokens` (estimated by `agent_core.tokens`), keeping
the head and a short tail, with a note giving the number of tokens cut (smolagents#2164).
`full_text` keeps everything up to `FULL_TEXT_MAX_CHARS` characters (text past that is not even
stored, so a runaway tool cannot exhaust memory). An empty result becomes a note, never an empty
string (providers reject empty tool messages: dify#27440).

Secrets: a secret never leaves the tool call. Values in `secrets` (at least `MIN_SECRET_LENGTH`
characters; also in their JSON-escaped and URL-encoded forms, and whatever whitespace stands
between their words) are replaced by ``[REDACTED]`` in the observation, `full_text`, `error`
and the variables, always on the raw text, before anything is cut, unwrapped or reflowed; a cut
that leaves the start of a secret (`MIN_SECRET_EDGE` characters or more) at its edge hides it
too. Forwarded messages are checked as well: a link, image or file whose address or name holds a
secret, or a file whose content does, is withheld (the observation, and so the ``CALL`` log
node, says so and why, without the secret); any other forwarded message (retriever resources)
goes on with its text redacted.

The model-facing wording is in the block of constants below (to move into
``agent_core/prompts.py``).
"""

from __future__ import annotations

import base64
import binascii
import bisect
import hashlib
import html
import html.entities
import itertools
import json
import re
import sys
import unicodedata
import urllib.parse
import uuid
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import urlsplit

from dify_plugin.entities.agent import AgentInvokeMessage
from dify_plugin.entities.invoke_message import InvokeMessage
from dify_plugin.entities.tool import ToolInvokeMessage
from pydantic import BaseModel, ValidationError

from agent_core import data_uri, json_args
from agent_core.errors import error_object_at, last_traceback, without_tracebacks
from agent_core.fairness import give_way
from agent_core.file_fetch import is_fetchable_url, url_name
from agent_core.json_args import PLAIN_SCALARS
from agent_core.json_pieces import compact_dumps
from agent_core.line_budget import encoded_size, fit
from agent_core.prompts import (
    CITATIONS_LEFT_OUT,
    CUT_NOTE,
    CUT_NOTE_LOG_CUT,
    FILE_INCOMPLETE,
    FILE_NOT_SHOWN,
    FILE_SENT,
    FILE_SHOWN,
    FILE_TOO_LARGE,
    IMAGE_NOT_FETCHABLE,
    IMAGE_SENT,
    IMAGE_SHOWN,
    INLINE_DATA,
    INVALID_RESPONSE,
    NO_OUTPUT,
    OUTPUT_BEFORE_FAILURE,
    REDACTED,
    RESULT_LINK,
    RESULT_LINK_FORWARDED,
    TOOL_FAILED,
    WITHHELD,
    WITHHELD_CONTENT,
    WITHHELD_TOO_LARGE,
)
from agent_core.tokens import TOKENS_PER_CHAR_MAX, estimate_tokens, truncate_to_tokens

__all__ = ["ObservationCollector", "ToolOutcome", "redacted_texts", "redactor", "secret_forms"]

# log-only wording (read by people in the agent log, not by the model)
FULL_TEXT_CUT = "\n[... the result was longer than {limit} characters; {dropped} more characters were not kept]"
FULL_TEXT_ERROR = "[error] {error}"
FULL_TEXT_VARIABLE = "[variable {name}] {value}"

# --- limits --------------------------------------------------------------------------------------

FULL_TEXT_MAX_CHARS = 1_000_000
"""Characters of tool output kept for the log; the rest is counted, not stored. Notes (a file
sent, withheld or incomplete) are kept past it, up to `LATE_NOTES_MAX` of them."""
LATE_NOTES_MAX = 100
LEADING_BLANK_MAX_CHARS = 1_000
"""Blank space a result may open with; a longer run of it is left out (it would fill the
stored text and hide what follows)."""
ERROR_MAX_CHARS = 600
"""Characters of an error message shown to the model."""
FORWARDED_FIELDS_MAX_BYTES = 1024 * 1024
"""Most a message forwarded to the user may take besides its file data, once encoded (bytes):
an address, a file's meta, retriever resources (each message is one line to the daemon)."""
CITATIONS_PER_MESSAGE_MAX = 1000
"""Most citations one ``retriever_resources`` message of a tool passes on (its first, the best
ranked; the model is told the rest were left out). Dify's own knowledge retrieval returns a few
dozen (its ``top_k``); reading, measuring and cutting hundreds of thousands held the process,
every session on it, for seconds, only to withhold the message as too large."""
FORWARDED_BLOB_FIELDS_MAX_BYTES = 256 * 1024
"""The same for a whole file sent as one ``blob`` message, whose data may take 4 MiB of the
line as base64 (``SINGLE_BLOB_MAX_BYTES``)."""
SINGLE_BLOB_MAX_BYTES = 3 * 1024 * 1024
"""Largest file forwarded as one ``blob`` message (base64 + envelope stay under the 5 MiB line)."""
FORWARD_BLOB_MAX_BYTES = 15 * 1024 * 1024
"""Largest file forwarded at all (the daemon's limit for a chunked file)."""
BLOB_CHUNK_BYTES = 8192
"""Chunk size when forwarding a large file (the daemon rejects larger chunks)."""
FAULTS_NAMED = 8
"""Most kinds of fault the note on unreadable messages names (a tool may send thousands of
messages of made-up types); the rest are counted."""
FAULT_TYPE_MAX_CHARS = 40
"""Longest message type a fault names as the tool gave it (characters)."""
MIN_SECRET_LENGTH = 4
"""Shorter secret values are not redacted: hiding them would garble ordinary text."""
MIN_SECRET_EDGE = 4
"""The shortest start of a secret hidden at the edge of a cut text (characters)."""
WRAPPED_FORM_MAX_CHARS = 512
"""The longest form of a secret also matched broken across lines at any character (a wrapped API
key or token); a longer one (a PEM key, a service account's JSON) is matched with any whitespace
between its words only. Allowing a break at every character of a 3 KB key made the pattern take
3 s to compile, holding every session of the process; such values are multi-line already."""
LOOKALIKE_IN_WORD_MIN = 8
"""The shortest secret written wholly in look-alike letters that is also looked for inside a
longer word of their script (``ключсһеарѕкаtе``): eight letters of a key are a leak (as
``outbound.HELD_MASK_CHARS``), and a Russian or Greek word holds eight given look-alike letters
in a row by chance hardly ever. A shorter one is found as a whole token only (``ΤΟΡΚΑ`` for a key
``topka``, never the middle of a longer word)."""
MIN_BASE64_CORE = 8
"""The shortest base64 form of a secret looked for (characters): a shorter run would turn up by
chance in the base64 data a tool returns."""

_MessageType = InvokeMessage.MessageType
_GENERIC_ERROR_TYPES = frozenset({"Exception", "BaseException"})
_ERROR_PREFIX = re.compile(r"(?:^|\s)[A-Za-z_][\w.]*(?:Error|Exception):?$")
_ERROR_NAME = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Timeout|Warning)):\s*(.*)$", re.S)


@dataclass(frozen=True)
class ToolOutcome:
    """What one tool call produced.

    Attributes:
        observation: what the model reads; never empty; bounded to ``max_tokens`` (estimated),
            with a note saying how many tokens were cut.
        full_text: the complete text for the ``CALL`` log node (up to `FULL_TEXT_MAX_CHARS`
            characters of output, then the full error text and the tool's variables).
        forwarded: every message that went to the user, in order (the caller already yielded
            them as `ObservationCollector.add` returned them).
        error: model-facing error text if the tool failed (also at the top of `observation`).
        truncated_tokens: estimated tokens cut from the observation; 0 if not cut.
    """

    observation: str
    full_text: str
    forwarded: tuple[AgentInvokeMessage, ...]
    error: str | None
    truncated_tokens: int


@dataclass
class _Part:
    """One piece of the observation, in arrival order. ``kind``: text | note | json."""

    kind: str
    text: str
    value: Any = None


@dataclass
class _ChunkedFile:
    """A ``blob_chunk`` stream being reassembled (sizes in bytes)."""

    meta: dict | None
    total_length: int
    chunks: dict[int, bytes] = field(default_factory=dict)
    received: int = 0
    too_large: bool = False


class ObservationCollector:
    """Collects one tool call's messages into a `ToolOutcome`.

    Args:
        tool_name: the tool's name as the model called it (used in notes).
        max_tokens: budget of the observation in estimated tokens (`agent_core.tokens`).
        secrets: values to replace by ``[REDACTED]`` (e.g. secret-input parameters), or what
            ``secret_forms`` built of them (shared by the calls of a run: built once).

    Never raises from `add`, `fail` or `finish`, whatever the tool sends.
    """

    def __init__(self, tool_name: str, *, max_tokens: int = 4000, secrets: Collection[str] | _Secrets = ()) -> None:
        self._tool = tool_name
        self._max_tokens = max_tokens
        self._secrets = secrets if isinstance(secrets, _Secrets) else _Secrets(secrets)
        self._redact = self._secrets.redact
        self._parts: list[_Part] = []
        self._stored_chars = 0
        self._dropped_chars = 0
        self._dropped_tokens = 0
        self._forwarded: list[AgentInvokeMessage] = []
        self._files: dict[str, _ChunkedFile] = {}
        self._finished_files: set[str] = set()  # ids of chunked files whose end came
        self._late_notes: list[_Part] = []  # notes that came after the text filled FULL_TEXT_MAX_CHARS
        self._variables: dict[str, Any] = {}  # a streamed variable: its pieces, as _Pieces
        self._variables_observed = False  # the variables became the observation (see _outcome)
        self._invalid: dict[str, int] = {}
        self._error: tuple[str, str] | None = None  # (model-facing summary, full text)
        self._withheld_files: set[str] = set()  # ids of chunked files withheld (told once)
        self._sent_files: set[str] = set()  # forwarded_file_key of every file forwarded

    # --- input ---------------------------------------------------------------------------------

    def add(self, message: ToolInvokeMessage | Mapping[str, Any] | None) -> list[AgentInvokeMessage]:
        """Take one tool message; return the messages to forward to the user now.

        Args:
            message: a `ToolInvokeMessage`, or its raw dict (``{"type", "message", "meta"}``,
                which also admits Dify's newer ``binary_link`` type), or anything malformed.

        Returns:
            `AgentInvokeMessage`s for the caller to yield now (often empty).
        """
        try:
            if self._withheld(message):
                return []
            told = (len(self._parts), self._stored_chars, len(self._late_notes))
            out = self._dispatch(message)
            if out:  # most messages are text, forwarded as nothing
                out = self._sized(self._guard(out))
                out = self._first_time(out, told)
        except Exception as error:  # defensive: a message we did not foresee
            self._invalid_message(f"unreadable ({type(error).__name__})")
            out = []
        self._forwarded.extend(out)
        return out

    def _first_time(self, out: list[AgentInvokeMessage], told: tuple[int, int, int]) -> list[AgentInvokeMessage]:
        """``out``, unless it is a file this call already forwarded (the same address, or the
        same bytes, name and type: a tool that yields its result file twice); then nothing is
        sent again, and what the model was told of it since ``told`` (the sizes of the parts,
        the stored characters and the late notes before it came) is taken back, as it was
        told the first time."""
        key = forwarded_file_key(out)
        if key is None:
            return out
        if key not in self._sent_files:
            self._sent_files.add(key)
            return out
        parts, stored, late = told
        del self._parts[parts:], self._late_notes[late:]
        self._stored_chars = stored
        return []

    def _withheld(self, message: Any) -> bool:
        """A link, image or file whose address or name holds a secret, or whose address and
        details are too large for one line to the daemon (``FORWARDED_FIELDS_MAX_BYTES``, less
        for a whole file), is not forwarded; the model and the log are told so and why (without
        the secret), and nothing says it was sent. Every later chunk of a chunked file withheld so
        is dropped without another note."""
        if type(message) is dict and message.get("type") == "text":  # the usual message, no file
            return False
        kind, payload, meta = _file_parts(message)
        if kind not in _FILE_KINDS:
            return False
        file_id = str(payload.get("id")) if kind == "blob_chunk" else None
        if file_id is not None and file_id in self._withheld_files:
            return True
        described = json.dumps([payload, meta], ensure_ascii=False, default=str)
        secret = bool(self._secrets) and self._holds_json([payload, meta], described)
        size = len(described.encode("utf-8", "surrogatepass"))
        limit = FORWARDED_BLOB_FIELDS_MAX_BYTES if kind == "blob" else FORWARDED_FIELDS_MAX_BYTES
        if not secret and size <= limit:
            return False
        if file_id is not None:
            self._withheld_files.add(file_id)
            self._files.pop(file_id, None)  # chunks that came before: not sent either
        label = _kind_label(kind)
        self._note(WITHHELD.format(kind=label) if secret else WITHHELD_TOO_LARGE.format(kind=label, size=size))
        return True

    def _guard(self, messages: list[AgentInvokeMessage]) -> list[AgentInvokeMessage]:
        """The messages for the user with no secret in them: a link, image or file whose address
        or name holds a secret is withheld (the model and the log are told once per kind, without
        the secret); any other message has its text fields redacted."""
        if not self._secrets:
            return messages
        out: list[AgentInvokeMessage] = []
        withheld: list[str] = []
        for message in messages:
            if not self._variants_present(message):
                out.append(message)
                continue
            kind = str(getattr(message.type, "value", message.type))
            redacted = None
            if kind not in _FILE_KINDS:
                data = message.model_dump(mode="json")
                for key in ("message", "meta"):  # keys too: metadata is free-form
                    data[key] = _redact_strings(data.get(key), self._redact, keys=True)
                try:
                    redacted = AgentInvokeMessage.model_validate(data)
                except Exception:  # a secret that is also a field name: withheld rather than sent
                    redacted = None
            if redacted is not None:
                out.append(redacted)
            elif _kind_label(kind) not in withheld:
                withheld.append(_kind_label(kind))
        for label in withheld:
            self._note(WITHHELD.format(kind=label))
        return out

    def _sized(self, messages: list[AgentInvokeMessage]) -> list[AgentInvokeMessage]:
        """The messages for the user, each within ``FORWARDED_FIELDS_MAX_BYTES`` besides its file
        data: every message is one line to the daemon. A link, image or file over it is not sent
        (a cut address or name would be a broken file; every chunk of such a file stays back), the
        model and the log are told so; retriever resources have their texts cut to fit."""
        sizes = [encoded_size(_without_file_data(message)) for message in messages]
        if max(sizes, default=0) <= FORWARDED_FIELDS_MAX_BYTES:
            return messages
        dropped_files = {_file_id(m) for m, size in zip(messages, sizes, strict=True) if size > FORWARDED_FIELDS_MAX_BYTES}
        out: list[AgentInvokeMessage] = []
        for message, size in zip(messages, sizes, strict=True):
            kind = str(getattr(message.type, "value", message.type))
            if kind in _FILE_KINDS and (size > FORWARDED_FIELDS_MAX_BYTES or _file_id(message) in dropped_files):
                if size > FORWARDED_FIELDS_MAX_BYTES:
                    self._note(WITHHELD_TOO_LARGE.format(kind=_kind_label(kind), size=size))
                continue
            if size > FORWARDED_FIELDS_MAX_BYTES:
                try:
                    message = AgentInvokeMessage.model_validate(fit(message.model_dump(mode="json"), FORWARDED_FIELDS_MAX_BYTES))
                except Exception:  # a shape fit cannot cut: not sent rather than sent whole
                    self._note(WITHHELD_TOO_LARGE.format(kind=_kind_label(kind), size=size))
                    continue
            out.append(message)
        return out

    def _variants_present(self, message: AgentInvokeMessage) -> bool:
        data = _without_file_data(message)
        return self._holds_json(data, json.dumps(data, ensure_ascii=False, default=str))

    def _holds_json(self, value: Any, text: str) -> bool:
        """Whether ``text``, the JSON text of ``value``, holds a secret, or one of ``value``'s
        strings does: the JSON text writes a backslash in a string as two, one level of escaping
        more than the string holds (a secret escaped three times in a string is four times in the
        text, past what ``redact`` decodes)."""
        return self._secrets.holds(text) or ("\\\\" in text and self._secrets.holds(_json_strings(value)))

    def _strings_redacted(self, value: Any, text: str) -> Any:
        """``value`` (JSON data whose JSON text is ``text``) with every string redacted, keys
        too, when one holds a secret that only its strings show (``_holds_json``); else
        ``value`` itself."""
        if "\\\\" not in text or not self._secrets.holds(_json_strings(value)):
            return value
        return _redact_strings(value, self._redact, keys=True)

    def fail(self, error: BaseException | str) -> None:
        """Record that the tool failed (raised, timed out, or sent an error event).

        Everything collected so far is kept. The first failure is the one reported.
        """
        if self._error is not None:
            return
        try:
            # redacted on the raw text, before it is unwrapped, reflowed and cut
            raw = self._redact(str(error))
            full = _error_full_text(error, raw)
            kind, text = _summarize_error(error, raw)
        except Exception:  # defensive: an exception whose __str__ raises
            full, kind, text = self._redact(repr(error)), type(error).__name__, ""
        text = self._secrets.mask_cut_edge(self._redact(text), suffix="…")  # it may have been cut
        what = f"{kind}: {text}" if kind and text else (kind or text or "an unknown error")
        self._error = (TOOL_FAILED.format(tool=self._tool, error=what), self._redact(full))

    # --- output --------------------------------------------------------------------------------

    def finish(self) -> ToolOutcome:
        """Build the outcome from everything received so far (may be called more than once)."""
        try:
            return self._outcome()
        except Exception as error:  # defensive: never lose the call over a rendering bug
            note = INVALID_RESPONSE.format(count=1, kinds=f"unrenderable ({type(error).__name__})")
            summary = self._redact(self._error[0]) if self._error else None
            return ToolOutcome(
                observation=summary or note,
                full_text=summary or note,
                forwarded=tuple(self._forwarded),
                error=summary,
                truncated_tokens=0,
            )

    def _outcome(self) -> ToolOutcome:
        self._observe_variables()
        body = self._redact(self._body())
        error = self._redact(self._error[0]) if self._error else None
        observation, cut = self._bounded(data_uri.shorten(body), error)
        return ToolOutcome(
            observation=observation,
            full_text=self._full_text(body, error),
            forwarded=tuple(self._forwarded),
            error=error,
            truncated_tokens=cut,
        )

    # --- dispatch ------------------------------------------------------------------------------

    def _dispatch(self, message: Any) -> list[AgentInvokeMessage]:
        if type(message) is dict or isinstance(message, Mapping):  # a dict without abc's check (a Python call)
            return self._dispatch_raw(message)
        if not isinstance(message, InvokeMessage):
            self._invalid_message("message is null" if message is None else f"message is not an object ({type(message).__name__})")
            return []
        handler = _HANDLERS.get(message.type)
        if handler is None:
            self._invalid_message(f"{getattr(message.type, 'value', message.type)} message")
            return []
        return handler(self, message)

    def _dispatch_raw(self, raw: Mapping[str, Any]) -> list[AgentInvokeMessage]:
        kind = raw.get("type")
        payload = raw.get("message")
        if kind == "text" and (type(payload) is dict or isinstance(payload, Mapping)) and isinstance(payload.get("text"), str):
            self._store(_Part("text", payload["text"]))  # the usual message, read without a model
            return []
        if kind == "binary_link" and isinstance(payload, Mapping) and isinstance(payload.get("text"), str):
            meta = raw.get("meta") if isinstance(raw.get("meta"), dict) else None
            link = ToolInvokeMessage(type=_MessageType.LINK, message=InvokeMessage.TextMessage(text=payload["text"]), meta=meta)
            forwarded = self._on_link(link, force_forward=True)  # Dify's newer type for a tool's non-image file
            return [_tool_file_message(payload["text"], meta) or message for message in forwarded]
        if kind == "json" and isinstance(payload, Mapping) and payload.get("suppress_output"):
            return []
        if kind == "json" and isinstance(payload, Mapping) and type(payload.get("json_object")) in _JSON_SCALARS:
            self._on_json_scalar(payload["json_object"])  # the SDK's model takes only an object or a list
            return []
        if kind == "file":  # Dify's FileMessage ({"file_marker": ..}) is unknown to SDK 0.10.2
            meta = raw.get("meta") if isinstance(raw.get("meta"), dict) else None
            return self._on_file(ToolInvokeMessage(type=_MessageType.FILE, message=None, meta=meta))
        if kind == "retriever_resources" and isinstance(payload, Mapping):
            payload = self._first_citations(payload)
        if kind in ("blob", "blob_chunk") and isinstance(payload, Mapping) and not _is_base64(payload.get("blob")):
            self._invalid_message(f"{kind} message: blob is not base64")  # the SDK would pass the text on as the file
            return []
        try:  # copies: the SDK's validator decodes "blob" in place
            copy = {**raw, "message": dict(payload) if isinstance(payload, Mapping) else payload}
            if not isinstance(copy.get("meta"), dict | None):  # a meta that is not an object says nothing usable;
                copy["meta"] = None  # the message itself (a file's bytes) is still good
            parsed = ToolInvokeMessage.model_validate(copy)
        except Exception:
            self._invalid_message(self._raw_fault(kind, payload))
            return []
        expected = _PAYLOAD_MODELS.get(kind) if kind != "log" else None
        if expected is not None and parsed.message is not None and not isinstance(parsed.message, expected):
            # read as another type's model (a chunk with a bad sequence as a blob): its own
            # handler refuses it; the fault is named from what the tool sent
            self._invalid_message(_payload_fault(kind, payload))
            return []
        return self._dispatch(parsed)

    def _raw_fault(self, kind: Any, payload: Any) -> str:
        """What is wrong with a raw message of type ``kind`` the SDK's model refused, briefly
        (``_payload_fault``); a type that is none of the SDK's named as the tool gave it, cut to
        ``FAULT_TYPE_MAX_CHARS`` (a start of a secret at the cut hidden)."""
        if kind in _MESSAGE_TYPES:
            return _payload_fault(kind, payload)
        if kind is None or kind == "":
            return "message: type is missing"
        shown = self._redact(str(kind))
        if len(shown) > FAULT_TYPE_MAX_CHARS:
            shown = self._secrets.mask_cut_edge(shown[:FAULT_TYPE_MAX_CHARS] + "…", suffix="…")
        return f"{shown} message: type is unknown"

    def _first_citations(self, payload: Mapping[str, Any]) -> Mapping[str, Any]:
        """``payload`` with at most ``CITATIONS_PER_MESSAGE_MAX`` of its citations, and a note
        when some were left out (its ``context`` is kept whole: it is the model's text)."""
        resources = payload.get("retriever_resources")
        if not isinstance(resources, list) or len(resources) <= CITATIONS_PER_MESSAGE_MAX:
            return payload
        self._note(CITATIONS_LEFT_OUT.format(count=len(resources), kept=CITATIONS_PER_MESSAGE_MAX))
        return {**payload, "retriever_resources": resources[:CITATIONS_PER_MESSAGE_MAX]}

    def _on_text(self, message: InvokeMessage) -> list[AgentInvokeMessage]:
        text = _text_of(message)
        if text is None:
            self._invalid_message(_payload_fault(message.type.value, message.message))
        else:
            self._store(_Part("text", text))
        return []

    def _on_link(self, message: InvokeMessage, *, force_forward: bool = False) -> list[AgentInvokeMessage]:
        url = _text_of(message)
        if url is None:
            self._invalid_message(_payload_fault(message.type.value, message.message))
            return []
        forward = force_forward or _is_tool_file(url, message.meta)
        if forward and _is_dify_file(url, message.meta):
            self._note(FILE_SHOWN.format(what=_dify_file_label(url, message.meta)))
        else:
            wording = RESULT_LINK_FORWARDED if forward else RESULT_LINK
            self._note(wording.format(url=_shown_url(url)))
        return [_agent_message(message)] if forward else []

    def _on_image(self, message: InvokeMessage) -> list[AgentInvokeMessage]:
        url = _text_of(message)
        if url is None:
            self._invalid_message(_payload_fault(message.type.value, message.message))
            return []
        if url.strip()[:5].lower() == "data:":
            return self._inline_image(url.strip(), message.meta)
        name = _meta_name(message.meta)
        scheme = _unfetchable_scheme(url, message.meta)
        if scheme is not None:  # Dify would answer the user "Failed to download image: ..."
            self._note(IMAGE_NOT_FETCHABLE.format(what=f" ({name})" if name else "", scheme=scheme))
            return []
        if _is_dify_file(url, message.meta):
            self._note(IMAGE_SHOWN.format(what=name or url_name(url) or "(unnamed)"))
        else:
            shown = _shown_url(url)
            self._note(IMAGE_SENT.format(what=f"{name} ({shown})" if name else shown))
        return [_image_message(message, url)]

    def _inline_image(self, url: str, meta: dict | None) -> list[AgentInvokeMessage]:
        """A ``data:`` image is forwarded as a file: Dify cannot download it, and its failure
        message would put the whole base64 payload into the user's answer."""
        header, _, payload = url.partition(",")
        try:
            if not header.lower().endswith(";base64"):
                raise ValueError("not base64")
            data = base64.b64decode(payload, validate=False)
        except (ValueError, binascii.Error):
            self._invalid_message("image message: its data URL is not base64")
            return []
        mime = header[5:].split(";", 1)[0] or "application/octet-stream"
        return self._send_file(data, {**(meta or {}), "mime_type": (meta or {}).get("mime_type") or mime})

    def _on_blob(self, message: InvokeMessage) -> list[AgentInvokeMessage]:
        payload = message.message
        if not isinstance(payload, InvokeMessage.BlobMessage):
            self._invalid_message(_payload_fault(message.type.value, message.message))
            return []
        return self._send_file(payload.blob, message.meta)

    def _on_blob_chunk(self, message: InvokeMessage) -> list[AgentInvokeMessage]:
        chunk = message.message
        if not isinstance(chunk, InvokeMessage.BlobChunkMessage):
            self._invalid_message(_payload_fault(message.type.value, message.message))
            return []
        file = self._files.get(chunk.id)
        if file is None:
            if chunk.id in self._finished_files and chunk.end and not chunk.blob:
                return []  # a second end for a file already sent: nothing new
            file = self._files[chunk.id] = _ChunkedFile(dict(message.meta or {}) or None, chunk.total_length)
        if chunk.blob and not file.too_large:
            if file.received + len(chunk.blob) > FORWARD_BLOB_MAX_BYTES:
                file.too_large, file.chunks = True, {}
            else:
                file.received += len(chunk.blob) - len(file.chunks.get(chunk.sequence, b""))
                file.chunks[chunk.sequence] = chunk.blob
        if not chunk.end:
            return []
        del self._files[chunk.id]
        self._finished_files.add(chunk.id)
        return self._finish_chunked(file)

    def _on_file(self, message: InvokeMessage) -> list[AgentInvokeMessage]:
        meta = message.meta or {}
        file = meta.get("file")
        url = _file_address(file)
        internal = bool(url) and _is_dify_file(url, {"tool_file_id": _file_tool_file_id(file, meta)})
        described = _describe_file_object(file, hide_address=internal) or _describe_meta(meta, None)
        if not url:  # Dify's Agent node cannot take the file object itself across the plugin boundary
            self._note(FILE_NOT_SHOWN.format(what=described or "a file"))
            return []
        self._note((FILE_SHOWN if internal else FILE_SENT).format(what=described or "a file"))
        return [_file_as_link(message)]

    def _on_json(self, message: InvokeMessage) -> list[AgentInvokeMessage]:
        payload = message.message
        if not isinstance(payload, InvokeMessage.JsonMessage):
            self._invalid_message(_payload_fault(message.type.value, message.message))
            return []
        if getattr(payload, "suppress_output", False):
            return []
        value = payload.json_object
        if isinstance(value, Mapping) and "execution_metadata" in value:
            value = {k: v for k, v in value.items() if k != "execution_metadata"}
        if not value:
            return []
        text = _compact_json(value)
        if self._secrets and (redacted := self._strings_redacted(value, text)) is not value:
            value, text = redacted, _compact_json(redacted)
        self._store(_Part("json", text, value))
        return []

    def _on_json_scalar(self, value: str | int | float | bool) -> None:
        """A json message whose ``json_object`` is a string, a number or a boolean: shown to the
        model as JSON (``42``, ``true``), a string as it is, as a text would be; an empty string is
        nothing, as ``{}`` and ``[]`` are. A JSON part, so a text message it repeats hides it."""
        if value == "" and isinstance(value, str):
            return
        self._store(_Part("json", value if isinstance(value, str) else _compact_json(value), value))

    def _on_variable(self, message: InvokeMessage) -> list[AgentInvokeMessage]:
        payload = message.message
        if not isinstance(payload, InvokeMessage.VariableMessage):
            self._invalid_message(_payload_fault(message.type.value, message.message))
            return []
        name, value = payload.variable_name, payload.variable_value
        if payload.stream and isinstance(value, str):
            pieces = self._variables.get(name)
            if not isinstance(pieces, _Pieces):  # a streamed variable starts anew after any other value
                pieces = self._variables[name] = _Pieces([pieces] if isinstance(pieces, str) else [])
            pieces.append(value)
            return []
        self._variables[name] = value
        return []

    def _on_log(self, message: InvokeMessage) -> list[AgentInvokeMessage]:
        return []

    def _on_retriever_resources(self, message: InvokeMessage) -> list[AgentInvokeMessage]:
        payload = message.message
        if not isinstance(payload, InvokeMessage.RetrieverResourceMessage):
            self._invalid_message(_payload_fault(message.type.value, message.message))
            return []
        if len(payload.retriever_resources) > CITATIONS_PER_MESSAGE_MAX:  # a message built here, not read raw
            cut = self._first_citations({"retriever_resources": payload.retriever_resources})["retriever_resources"]
            payload = payload.model_copy(update={"retriever_resources": cut})
            message = message.model_copy(update={"message": payload})
        context = payload.context.strip()
        if not context:
            context = "\n\n".join(r.content.strip() for r in payload.retriever_resources if r.content)
        if context:
            self._store(_Part("note", context))
        return [_agent_message(message)]

    # --- files ---------------------------------------------------------------------------------

    def _send_file(self, data: bytes, meta: dict | None) -> list[AgentInvokeMessage]:
        described = _describe_meta(meta, len(data)) or f"{len(data)} bytes"
        if len(data) > FORWARD_BLOB_MAX_BYTES:
            self._note(FILE_TOO_LARGE.format(what=described, size=len(data), limit=FORWARD_BLOB_MAX_BYTES))
            return []
        if self._secrets.in_bytes(data):
            self._note(WITHHELD_CONTENT.format(what=described))
            return []
        self._note(FILE_SENT.format(what=described))
        return _blob_messages(data, meta)

    def _finish_chunked(self, file: _ChunkedFile) -> list[AgentInvokeMessage]:
        if file.too_large:
            described = _describe_meta(file.meta, None) or "(unnamed)"
            size = max(file.total_length, FORWARD_BLOB_MAX_BYTES + 1)
            self._note(FILE_TOO_LARGE.format(what=described, size=size, limit=FORWARD_BLOB_MAX_BYTES))
            return []
        if not _chunks_complete(file):
            self._note(_incomplete_note(file))
            return []
        data = b"".join(file.chunks[s] for s in sorted(file.chunks))
        return self._send_file(data, file.meta)

    # --- accumulation --------------------------------------------------------------------------

    def _store(self, part: _Part) -> None:
        """Keep a part, its secrets redacted first (then cut to the room left, hiding a secret
        cut in two). A JSON part keeps its kind, its value redacted (so a text that repeats it
        is still recognised)."""
        if self._secrets.holds(part.text):
            value = _redact_strings(part.value, self._redact, keys=True) if part.kind == "json" else None
            part = _Part(part.kind, self._redact(part.text), value)
        if part.kind == "text" and not self._stored_chars:
            blank = len(part.text) - len(part.text.lstrip())
            if blank > LEADING_BLANK_MAX_CHARS:  # a result that opens with pages of blank space
                part = _Part("text", part.text[blank:])
                if not part.text:
                    return
        room = FULL_TEXT_MAX_CHARS - self._stored_chars
        if part.kind == "note" and len(part.text) > room:  # short, and the model must read it
            if len(self._late_notes) < LATE_NOTES_MAX:
                self._late_notes.append(part)
            return
        if len(part.text) > room:
            dropped = part.text[max(room, 0) :]
            self._dropped_chars += len(dropped)
            self._dropped_tokens += estimate_tokens(dropped)
            if room <= 0:
                return
            part = _Part(part.kind if part.kind != "json" else "text", self._secrets.mask_cut_edge(part.text[:room]))
        self._stored_chars += len(part.text)
        self._parts.append(part)

    def _note(self, text: str) -> None:
        self._store(_Part("note", text))

    def _observe_variables(self) -> None:
        """When nothing the model can read came (no part with visible text, no file still
        arriving), store the variables as the observation's text, once: through `_store`, so
        they are redacted before they are cut, like a tool's text."""
        if self._variables_observed or not self._variables or self._files:
            return
        if any(part.text.strip() for part in (*self._parts, *self._late_notes)):
            return
        self._variables_observed = True
        values = _variable_values(self._variables)
        text = _variables_text(values)
        if self._secrets and (redacted := self._strings_redacted(values, text)) is not values:
            text = _variables_text(redacted)
        self._store(_Part("text", text))

    def _invalid_message(self, kind: str) -> None:
        self._invalid[kind] = self._invalid.get(kind, 0) + 1

    # --- rendering -----------------------------------------------------------------------------

    def _body(self) -> str:
        """The unbounded observation body: parts in order, plus notes about leftovers."""
        parts = _without_duplicate_json(self._parts, self._redact)
        if self._dropped_chars:  # the last part was cut: a secret streamed in pieces may end it
            kept = self._secrets.mask_cut_edge(self._redact(_join(parts)))
            parts = [_Part("text", kept)] if kept else []
        parts += self._late_notes
        parts += [_Part("note", _incomplete_note(f)) for f in self._files.values() if not f.too_large]
        parts += [
            _Part("note", FILE_TOO_LARGE.format(what=_describe_meta(f.meta, None) or "(unnamed)",
                                                size=f.total_length, limit=FORWARD_BLOB_MAX_BYTES))
            for f in self._files.values() if f.too_large
        ]
        if self._invalid:
            faults = sorted(self._invalid)
            kinds = "; ".join(faults[:FAULTS_NAMED]) + (f"; {len(faults) - FAULTS_NAMED} more" if len(faults) > FAULTS_NAMED else "")
            parts.append(_Part("note", INVALID_RESPONSE.format(count=sum(self._invalid.values()), kinds=kinds)))
        return _join(parts)

    def _bounded(self, body: str, error: str | None) -> tuple[str, int]:
        """The observation within ``max_tokens`` and the estimated tokens cut from it."""
        if not body.strip():
            return error or NO_OUTPUT.format(tool=self._tool), 0
        head = f"{error}\n{OUTPUT_BEFORE_FAILURE}\n" if error else ""
        if self._dropped_tokens == 0 and (
            TOKENS_PER_CHAR_MAX * (len(head) + len(body)) <= self._max_tokens  # a short result: no estimate
            or estimate_tokens(head + body) <= self._max_tokens
        ):
            return head + body, 0
        full_tokens = estimate_tokens(body) + self._dropped_tokens
        fixed = estimate_tokens(head) + 1  # + the newline before the note
        note = CUT_NOTE_LOG_CUT if self._dropped_chars else CUT_NOTE
        budget = self._max_tokens - fixed - estimate_tokens(note.format(dropped=full_tokens, limit=FULL_TEXT_MAX_CHARS))
        for _ in range(6):
            kept, cut = truncate_to_tokens(body, max(0, budget))
            cut += self._dropped_tokens
            text = f"{head}{kept}\n{note.format(dropped=cut, limit=FULL_TEXT_MAX_CHARS)}"
            if estimate_tokens(text) <= self._max_tokens or budget <= 0:
                return text, cut
            budget -= max(1, estimate_tokens(text) - self._max_tokens)
        return text, cut

    def _full_text(self, body: str, error: str | None) -> str:
        text = body if body.strip() else NO_OUTPUT.format(tool=self._tool)
        if self._dropped_chars:
            text += FULL_TEXT_CUT.format(limit=FULL_TEXT_MAX_CHARS, dropped=self._dropped_chars)
        extras = []
        if self._error is not None:
            full = _cap(self._error[1], FULL_TEXT_MAX_CHARS)
            extras.append(FULL_TEXT_ERROR.format(error=self._secrets.mask_cut_edge(full, suffix="…")))
        for name, value in _variable_values(self._variables).items():
            shown = value if isinstance(value, str) else _compact_json(value)
            value = self._secrets.mask_cut_edge(_cap(self._redact(shown), 10_000), suffix="…")
            extras.append(FULL_TEXT_VARIABLE.format(name=self._redact(str(name)), value=value))
        return "\n\n".join([text, *extras])


_HANDLERS = {
    _MessageType.TEXT: ObservationCollector._on_text,
    _MessageType.LINK: ObservationCollector._on_link,
    _MessageType.IMAGE: ObservationCollector._on_image,
    _MessageType.IMAGE_LINK: ObservationCollector._on_image,
    _MessageType.BLOB: ObservationCollector._on_blob,
    _MessageType.BLOB_CHUNK: ObservationCollector._on_blob_chunk,
    _MessageType.FILE: ObservationCollector._on_file,
    _MessageType.JSON: ObservationCollector._on_json,
    _MessageType.VARIABLE: ObservationCollector._on_variable,
    _MessageType.LOG: ObservationCollector._on_log,
    _MessageType.RETRIEVER_RESOURCES: ObservationCollector._on_retriever_resources,
}


# --- helpers: messages ---------------------------------------------------------------------------


def _text_of(message: InvokeMessage) -> str | None:
    payload = message.message
    return payload.text if isinstance(payload, InvokeMessage.TextMessage) else None


def _agent_message(message: InvokeMessage, *, kind: Any = None, meta: dict | None = None) -> AgentInvokeMessage:
    """The same message as an `AgentInvokeMessage` (what a strategy yields)."""
    return AgentInvokeMessage(
        type=_MessageType(kind or message.type),
        message=message.message,
        meta=meta if meta is not None else message.meta,
    )


def _image_message(message: InvokeMessage, url: str) -> AgentInvokeMessage:
    """Forwarded image: keeps Dify's Agent node from failing on a missing ``tool_file_id``."""
    meta = dict(message.meta or {})
    if message.type != _MessageType.IMAGE_LINK or meta.get("tool_file_id"):
        return _agent_message(message)
    file_id = _tool_file_id_from_url(url)
    if file_id:
        meta["tool_file_id"] = file_id
        return _agent_message(message, meta=meta)
    return _agent_message(message, kind=_MessageType.IMAGE)


def _file_as_link(message: InvokeMessage) -> AgentInvokeMessage:
    """A ``file`` message in the form Dify's Agent node accepts from a plugin.

    Dify reads ``meta["file"]`` of a ``file`` message as a ``File`` object, but
    across the plugin boundary it is a plain dict, and the node fails
    ("Expected File object"). A Dify tool file therefore goes on as a tool-file link
    (``_tool_file_message``), an image at another address as an ``image`` (Dify fetches
    it), any other file with an address as a ``link``; one without an address unchanged.
    """
    meta = dict(message.meta or {})
    file = meta.pop("file", None)
    get = (lambda key: file.get(key)) if isinstance(file, Mapping) else (lambda key: getattr(file, key, None))
    url = _file_address(file)
    if not url:
        return _agent_message(message)
    for key in ("mime_type", "filename"):
        if get(key) and key not in meta:
            meta[key] = get(key)
    if file_id := _file_tool_file_id(file, meta):
        meta["tool_file_id"] = file_id
    extension = get("extension") if isinstance(get("extension"), str) else None
    if forwarded := _tool_file_message(url, meta, extension):
        return forwarded
    is_image = str(getattr(get("type"), "value", get("type")) or "") == "image" or str(meta.get("mime_type", "")).startswith("image/")
    link = InvokeMessage(type=_MessageType.LINK, message=InvokeMessage.TextMessage(text=url), meta=meta)
    if is_image:
        return _image_message(link.model_copy(update={"type": _MessageType.IMAGE_LINK}), url)
    return _agent_message(link)


def _tool_file_message(url: str, meta: Mapping | None, extension: str | None = None) -> AgentInvokeMessage | None:
    """A Dify tool file (``meta["tool_file_id"]``, or an address ``/files/tools/<id>.<ext>``)
    as an ``image_link`` carrying its ``tool_file_id``, whatever its type; None for another
    address.

    Dify's Agent node turns every ``image_link``, ``binary_link`` and ``image`` message of a
    tool file into a file of the node's ``files`` output, typed by the stored file's MIME type
    (so a PDF stays a document), and a ``link`` only into the text "Link: <url>"
    (api/core/workflow/nodes/agent/agent_node.py, ``_transform_message``); ``binary_link`` is
    no message type of dify_plugin 0.10.2. Older Dify versions read the id from the address,
    newer ones from ``meta["tool_file_id"]``: both are set (the address rebuilt in Dify's own
    shape, ``/files/tools/<id><ext>``, when the given one does not carry the id)."""
    from_url = _tool_file_id_from_url(url)
    given = (meta or {}).get("tool_file_id")
    file_id = given if isinstance(given, str) and given else from_url
    if not isinstance(file_id, str) or not file_id:
        return None
    if from_url != file_id:
        suffix = extension or PurePosixPath(urlsplit(url.strip()).path).suffix
        url = f"/files/tools/{file_id}{suffix if suffix.startswith('.') else ''}"
    return AgentInvokeMessage(
        type=_MessageType.IMAGE_LINK,
        message=InvokeMessage.TextMessage(text=url),
        meta={**(meta or {}), "tool_file_id": file_id},
    )


def _blob_messages(data: bytes, meta: dict | None) -> list[AgentInvokeMessage]:
    """One ``blob`` message, or ``blob_chunk`` messages for a file over `SINGLE_BLOB_MAX_BYTES`."""
    if len(data) <= SINGLE_BLOB_MAX_BYTES:
        return [AgentInvokeMessage(type=_MessageType.BLOB, message=InvokeMessage.BlobMessage(blob=data), meta=meta)]
    file_id = uuid.uuid4().hex
    pieces = [data[i : i + BLOB_CHUNK_BYTES] for i in range(0, len(data), BLOB_CHUNK_BYTES)]
    pieces.append(b"")  # the end chunk, as the SDK sends it (plugin.py _execute_request)
    return [
        AgentInvokeMessage(
            type=_MessageType.BLOB_CHUNK,
            message=InvokeMessage.BlobChunkMessage(
                id=file_id, sequence=n, total_length=len(data), blob=piece, end=n == len(pieces) - 1
            ),
            meta=meta,
        )
        for n, piece in enumerate(pieces)
    ]


_JSON_SCALARS = frozenset({str, int, float, bool})
"""Types of a json message's ``json_object`` the SDK's model refuses that are still JSON
(``_on_json_scalar``)."""

_PAYLOAD_MODELS: dict[str, type[BaseModel]] = {
    **dict.fromkeys(("text", "link", "image", "image_link", "binary_link"), InvokeMessage.TextMessage),
    "json": InvokeMessage.JsonMessage,
    "variable": InvokeMessage.VariableMessage,
    "blob": InvokeMessage.BlobMessage,
    "blob_chunk": InvokeMessage.BlobChunkMessage,
    "retriever_resources": InvokeMessage.RetrieverResourceMessage,
    "log": InvokeMessage.LogMessage,
}
"""The SDK's model of each message type's ``message``."""
_MESSAGE_TYPES = frozenset({*(kind.value for kind in _MessageType), "binary_link"})

_FAULTS = {
    "string_type": "not a string", "bytes_type": "not bytes", "int_type": "not an integer",
    "int_parsing": "not an integer", "int_from_float": "not an integer", "bool_type": "not a boolean",
    "bool_parsing": "not a boolean", "dict_type": "not an object", "mapping_type": "not an object",
    "model_type": "not an object", "model_attributes_type": "not an object", "list_type": "not a list",
    "enum": "not one of its values",
}
"""pydantic's error types, as a fault reads (``_payload_fault``)."""


def _payload_fault(kind: str, payload: Any) -> str:
    """What makes a tool message of type ``kind`` whose ``message`` is ``payload`` (a raw dict,
    the SDK's model of another type, or anything) unreadable, briefly, naming the field at fault:
    ``"variable message: variable_name is null"``, ``"blob message: blob is not bytes"``,
    ``"text message: text is missing"``, ``"retriever_resources message:
    retriever_resources.0.content is not a string"``; ``"<kind> message"`` when no field is."""
    what = f"{kind} message"
    if payload is None:
        return f"{what}: message is null"
    if isinstance(payload, BaseModel):  # the SDK's model of another type (a link holding a JSON object)
        payload = dict(payload)
    if not isinstance(payload, Mapping):
        return f"{what}: message is not an object ({type(payload).__name__})"
    model = _PAYLOAD_MODELS.get(kind)
    if model is None:
        return what
    try:
        model.model_validate(payload)
    except ValidationError as error:
        fault = error.errors(include_url=False, include_context=False)[0]
        path = ".".join(str(part) for part in fault["loc"] if isinstance(part, int) or str(part).isidentifier())
        if fault["type"] == "missing":
            problem = "missing"
        elif fault.get("input", "") is None:
            problem = "null"
        else:
            problem = _FAULTS.get(fault["type"], "not valid")
        return f"{what}: {path or 'message'} is {problem}"
    except Exception:  # defensive: a validator of the SDK's that fails otherwise
        return what
    return what


def _is_base64(value: Any) -> bool:
    """Whether ``value`` is base64 text (what the daemon sends for a file's bytes; an empty
    string is an empty file). Anything else is left to the SDK's validator to judge."""
    if not isinstance(value, str):
        return True
    try:
        base64.b64decode("".join(value.split()), validate=True)  # line breaks are allowed
    except ValueError:
        return False
    return True


def _chunks_complete(file: _ChunkedFile) -> bool:
    """Every byte the file announced arrived (``total_length``; Dify's own reassembly,
    ``core/plugin/utils/chunk_merger.py``, goes by bytes and not by sequence numbers), or, with
    no length announced, chunks numbered from 0 without a gap."""
    if not file.chunks:
        return file.total_length == 0
    if file.total_length > 0:
        return file.received == file.total_length
    return sorted(file.chunks) == list(range(len(file.chunks)))


def _incomplete_note(file: _ChunkedFile) -> str:
    what = _describe_meta(file.meta, None) or "(unnamed)"
    total = file.total_length if file.total_length > 0 else "?"
    return FILE_INCOMPLETE.format(what=what, received=file.received, total=total)


# --- helpers: files and URLs ---------------------------------------------------------------------


def _is_tool_file(url: str, meta: Mapping | None) -> bool:
    """A Dify file (meta ``tool_file_id``, or a URL path under ``/files/``): dify-official-plugins #3674."""
    if meta and meta.get("tool_file_id"):
        return True
    try:
        return urlsplit(url.strip()).path.startswith("/files/")
    except ValueError:
        return False


def _is_dify_file(url: str, meta: Mapping | None) -> bool:
    """A Dify file address, internal and expiring: a tool file (`_is_tool_file`) or a signed
    URL (a ``sign`` query parameter: Dify's ``INTERNAL_FILES_URL``/``FILES_URL`` addresses,
    ``/files/tools/<id>.<ext>?timestamp=..&nonce=..&sign=..``, valid for ``FILES_ACCESS_TIMEOUT``
    seconds: Dify ``core/tools/signature.py`` ``sign_tool_file``). The model is told the file's
    name, never this address."""
    if _is_tool_file(url, meta):
        return True
    try:
        return "sign" in urllib.parse.parse_qs(urlsplit(url.strip()).query, keep_blank_values=True)
    except ValueError:
        return False


def _dify_file_label(url: str, meta: Mapping | None) -> str:
    """A forwarded Dify file as the model reads it: ``report.pdf (application/pdf)``, named by
    its meta, else by ``file_fetch.url_name``; never its address."""
    name = _meta_name(meta) or url_name(url) or "(unnamed)"
    mime = (meta or {}).get("mime_type")
    return f"{name} ({mime})" if isinstance(mime, str) and mime else name


def _unfetchable_scheme(url: str, meta: Mapping | None) -> str | None:
    """How an image address Dify cannot fetch begins ("starts with 'javascript:'", "has no
    scheme"), or None when Dify can fetch it: an http(s) address with a host, or a Dify tool file
    (meta ``tool_file_id`` or a path under ``/files/``, which Dify reads from its own
    storage). Dify's Agent node downloads every other image address and, when that fails,
    puts "Failed to download image: <address>" into the user's answer."""
    if _is_tool_file(url, meta):
        return None
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return "cannot be read"
    if is_fetchable_url(url.strip()):
        return None
    if not parts.scheme:
        return "has no scheme"
    return f"starts with '{parts.scheme[:20]}:'"


def _tool_file_id_from_url(url: str) -> str | None:
    """``/files/tools/<id>.<ext>?...`` -> ``<id>`` (Dify's tool-file URL shape)."""
    try:
        path = urlsplit(url.strip()).path
    except ValueError:
        return None
    match = re.search(r"/files/tools/([0-9A-Za-z-]+)(?:\.[^/]*)?$", path)
    return match.group(1) if match else None


def _shown_url(url: str) -> str:
    """The URL as the model may see it: inline ``data:`` payloads are never shown."""
    url = url.strip()
    if url[:5].lower() == "data:":
        return INLINE_DATA.format(chars=len(url))
    return url


def _meta_name(meta: Mapping | None) -> str | None:
    if not meta:
        return None
    for key in ("filename", "file_name", "name"):
        value = meta.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _describe_meta(meta: Mapping | None, size: int | None) -> str:
    """``report.pdf (application/pdf, 1234 bytes)`` from a file's meta; '' when nothing is known."""
    name = _meta_name(meta)
    details = []
    mime = (meta or {}).get("mime_type")
    if isinstance(mime, str) and mime:
        details.append(mime)
    if size is not None:
        details.append(f"{size} bytes")
    if not name and not details:
        return ""
    label = name or "a file"
    return f"{label} ({', '.join(details)})" if details else label


def _file_address(file: Any) -> str | None:
    """Where a Dify file can be fetched: its ``url``, else its ``remote_url`` (a workflow tool
    passing on a file given by address: ``File.model_dump`` holds no ``url``); None if neither."""
    for key in ("url", "remote_url"):
        value = _file_object_field(file, key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _file_tool_file_id(file: Any, meta: Mapping | None) -> str | None:
    """The tool-file id of a ``file`` message: its file's ``tool_file_id``, else its
    ``related_id`` when the file is a tool file (``transfer_method`` ``tool_file``; an upload's
    ``related_id`` names an upload, which Dify's tool-file lookup fails on), else the message
    meta's ``tool_file_id``; None when none is given. The one rule for what is a tool file
    (`_file_as_link`) and whose address is internal (``_on_file``)."""
    method = _file_object_field(file, "transfer_method")
    tool_file = str(getattr(method, "value", method) or "") == "tool_file"
    ids = (_file_object_field(file, "tool_file_id"), _file_object_field(file, "related_id") if tool_file else None)
    given = (meta or {}).get("tool_file_id")
    return next((value for value in (*ids, given) if isinstance(value, str) and value), None)


def _file_object_field(file: Any, key: str) -> Any:
    """A field of a Dify file (SDK `File` or its dict); None when absent or no file."""
    if file is None:
        return None
    return file.get(key) if isinstance(file, Mapping) else getattr(file, key, None)


def _describe_file_object(file: Any, *, hide_address: bool = False) -> str:
    """A Dify file (SDK `File` or its dict: filename, mime_type, size, url) in a few words.
    Without a filename it is named by its URL, or with ``hide_address`` (an internal, expiring
    Dify address: `_is_dify_file`) by the URL's last path segment."""
    if file is None:
        return ""

    def get(key: str) -> Any:
        return _file_object_field(file, key)

    name, mime, size, url = get("filename"), get("mime_type"), get("size"), get("url")
    details = [str(x) for x in (mime, f"{size} bytes" if isinstance(size, int) and size >= 0 else None) if x]
    shown = (url_name(url) if hide_address else _shown_url(url)) if isinstance(url, str) and url else ""
    label = name if isinstance(name, str) and name else shown
    if not label:
        return ""
    return f"{label} ({', '.join(details)})" if details else label


# --- helpers: variables --------------------------------------------------------------------------


class _Pieces(list):
    """The text pieces of a streamed variable (``stream: true``), in order; joined when read
    (joining once keeps a tool that streams many pieces linear)."""


def _variable_values(variables: Mapping[str, Any]) -> dict[str, Any]:
    """``{name: value}`` with each streamed variable's pieces joined into its text."""
    return {name: "".join(value) if isinstance(value, _Pieces) else value for name, value in variables.items()}


def _variables_text(values: Mapping[str, Any]) -> str:
    """The observation of a call whose only output is variables: one variable's value as text
    (a string as is, anything else as compact JSON), several as compact JSON of name -> value.
    ``{"stream_text": "a b"}`` -> ``a b``; ``{"a": 1, "b": [2]}`` -> ``{"a":1,"b":[2]}``."""
    if len(values) == 1:
        (value,) = values.values()
        return value if isinstance(value, str) else _compact_json(value)
    return _compact_json(dict(values))


# --- helpers: JSON -------------------------------------------------------------------------------


def _compact_json(value: Any) -> str:
    try:  # megabytes of JSON are written in pieces, the other sessions running between them
        return compact_dumps(value, _json_default)
    except (TypeError, ValueError):
        return str(value)


def _json_default(value: Any) -> Any:
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    return str(value)


def _parse_json(text: str) -> tuple[bool, Any]:
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[":
        return False, None
    try:
        return True, json_args.loads(stripped)
    except ValueError:
        return False, None


def _without_duplicate_json(parts: list[_Part], redact: Any = None) -> list[_Part]:
    """Drop JSON parts that repeat a text part or the whole text (workflow tools: #3542).

    ``redact`` hides secrets in the whole text (a secret streamed in pieces is only whole there;
    the JSON part was redacted when stored)."""
    if not any(p.kind == "json" for p in parts):
        return list(parts)
    texts = [p.text for p in parts if p.kind == "text"]
    whole = "".join(texts)
    candidates = [*texts, whole, *([redact(whole)] if redact else [])] if len(texts) > 1 else texts
    stripped = {t.strip() for t in candidates}
    parsed = [value for ok, value in map(_parse_json, candidates) if ok]

    def duplicate(part: _Part) -> bool:
        if part.text in stripped or json.dumps(part.value, ensure_ascii=False) in stripped:
            return True
        return any(_json_equal(part.value, value) for value in parsed)

    return [p for p in parts if p.kind != "json" or not duplicate(p)]


def _json_equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:
        return False


def _join(parts: list[_Part]) -> str:
    """Text parts are concatenated as they came (a tool may stream text in pieces); notes and
    JSON stand on their own lines."""
    out: list[str] = []
    previous = None
    for part in parts:
        if out and (part.kind != "text" or previous != "text") and not out[-1].endswith("\n"):
            out.append("\n")
        out.append(part.text)
        previous = part.kind
    return "".join(out).strip("\n")


# --- helpers: errors -----------------------------------------------------------------------------


def _error_full_text(error: BaseException | str, text: str | None = None) -> str:
    """``Type: message`` of `error` for the log; ``text`` stands for its message (e.g. redacted).
    The message is read as a model's error is (``errors.without_tracebacks``): an error object of
    the plugin SDK in it written ``T: M``, with or without a traceback, and a Python traceback
    reduced to its exception line. The log tree is shown to the app's users: a tool's frames (its
    server's paths and code) and the SDK's JSON are no part of what they should read."""
    text = str(error) if text is None else text
    text = without_tracebacks(text) if text.strip() else ""
    if isinstance(error, BaseException):
        return f"{type(error).__name__}: {text}" if text else type(error).__name__
    return text


def _summarize_error(error: BaseException | str, text: str | None = None) -> tuple[str, str]:
    """``(error type, one-line message)``; type '' when unknown or just ``Exception``.

    ``text`` stands for the error's message (the caller passes it redacted). Unwraps the
    daemon's ``PluginInvokeError: {"error_type": .., "message": ..}`` nesting and reduces a
    Python traceback to its exception line (dify#28207).
    """
    kind = type(error).__name__ if isinstance(error, BaseException) else ""
    text = str(error) if text is None else text
    for _ in range(6):
        inner = _inner_error(text)
        if inner is None:
            break
        kind, text = inner[0] or kind, inner[1]
    text, from_traceback = _traceback_last_line(text)
    match = _ERROR_NAME.match(text.strip())
    if match and (from_traceback or not kind or kind in _GENERIC_ERROR_TYPES):
        kind, text = match.group(1), match.group(2)
    if kind in _GENERIC_ERROR_TYPES:
        kind = ""
    return kind, _cap(" ".join(text.split()), ERROR_MAX_CHARS)


def _inner_error(text: str) -> tuple[str, str] | None:
    """The ``(error_type, message)`` of a JSON error object wrapping `text`, if there is one
    (read by ``errors.error_object_at``).

    Only unwrapped when the object has ``error_type`` or nothing but an error name precedes it
    (``PluginInvokeError: {...}``), so ``HTTP 400: {"message": ..}`` keeps its context.
    """
    start = text.find("{")
    if start < 0:
        return None
    found = error_object_at(text, start)
    if found is None or found.message is None:
        return None
    prefix = text[:start].strip()
    if found.error_type is None and prefix and not _ERROR_PREFIX.search(prefix):
        return None
    return found.error_type or "", found.message


def _traceback_last_line(text: str) -> tuple[str, bool]:
    """The exception line of the last Python traceback in `text` (and True), else `text` (and
    False); read by ``errors.last_traceback``.

    A traceback cut off before its exception line (frames are indented, the exception line is
    not) leaves what preceded it, e.g. ``tool invoke error``.
    """
    found = last_traceback(text)
    if found is None:
        return text, False
    before, line = found
    if not line:
        return f"{before.strip(' :') or 'a Python exception'} (traceback cut off)", False
    return line, True


def _cap(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- helpers: secrets ----------------------------------------------------------------------------


_FILE_KINDS = frozenset({"link", "image_link", "image", "blob", "blob_chunk", "file", "binary_link"})
_KIND_LABELS = {"blob": "file", "blob_chunk": "file", "binary_link": "link"}


def _kind_label(kind: str) -> str:
    """How a withheld message is named to the model: ``image link``, ``link``, ``file``..."""
    return _KIND_LABELS.get(kind, kind.replace("_", " "))


def forwarded_file_key(messages: Iterable[AgentInvokeMessage]) -> str | None:
    """What tells one forwarded file from another (a hex digest), or None when ``messages`` are
    not all files (link, image, blob, blob chunks...). Two forwards of the same file have the same
    key: the same kinds, addresses, names and meta, and the same bytes (a chunked file's random
    id is left out); any difference gives another key. Costs one hash of the file's bytes."""
    digest = hashlib.sha256()
    for message in messages:
        kind = str(getattr(message.type, "value", message.type))
        if kind not in _FILE_KINDS:
            return None
        payload = message.message
        fields = payload.model_dump(mode="json", exclude={"blob", "id"}) if hasattr(payload, "model_dump") else None
        digest.update(json.dumps([kind, fields, message.meta], sort_keys=True, default=str).encode("utf-8", "surrogatepass"))
        data = getattr(payload, "blob", None)
        if isinstance(data, bytes | bytearray):
            digest.update(hashlib.sha256(data).digest())
    return digest.hexdigest()


def _is_blob(message: AgentInvokeMessage) -> bool:
    return getattr(message.type, "value", message.type) in ("blob", "blob_chunk")


def _file_parts(message: Any) -> tuple[str, dict, Any]:
    """A tool message's kind, its fields without the file data, and its meta (raw or SDK)."""
    if isinstance(message, ToolInvokeMessage):
        kind = str(getattr(message.type, "value", message.type) or "")
        if kind not in _FILE_KINDS:
            return kind, {}, None
        inner = message.message
        payload = inner.model_dump(mode="json", exclude={"blob"}) if hasattr(inner, "model_dump") else {}
        return kind, payload, message.meta
    if not isinstance(message, Mapping):
        return "", {}, None
    kind = str(getattr(message.get("type"), "value", message.get("type")) or "")
    inner = message.get("message") if isinstance(message.get("message"), Mapping) else {}
    return kind, {k: v for k, v in inner.items() if k != "blob"}, message.get("meta")


def _without_file_data(message: AgentInvokeMessage) -> Any:
    """The message as JSON data without its file bytes (sized on their own)."""
    if not _is_blob(message):
        return message.model_dump(mode="json")
    dumped = message.model_dump(mode="json", exclude={"message"})  # a nested exclude misses a union field
    dumped["message"] = message.message.model_dump(mode="json", exclude={"blob"})
    return dumped


def _file_id(message: AgentInvokeMessage) -> str | None:
    """The id that ties the chunks of one file together (``blob_chunk``), else None."""
    if getattr(message.type, "value", message.type) != "blob_chunk":
        return None
    return str(getattr(message.message, "id", "")) or None


def _redact_strings(value: Any, redact: Any, *, keys: bool = False) -> Any:
    """``value`` (JSON data) with every string redacted (and every key, if ``keys``)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, Mapping):
        return {
            (redact(key) if keys and isinstance(key, str) else key): _redact_strings(item, redact, keys=keys)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [_redact_strings(item, redact, keys=keys) for item in value]
    return value


def _json_strings(value: Any) -> str:
    """Every text in ``value`` (JSON data: keys and values, at any depth, without recursion), one
    a line: what a secret is looked for in when the JSON text of ``value`` escapes each backslash
    once more than the strings hold."""
    texts: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            texts.append(item)
        elif isinstance(item, Mapping):
            texts += (key for key in item if isinstance(key, str))
            stack += item.values()
        elif isinstance(item, list | tuple):
            stack += item
    return "\n".join(texts)


def secret_forms(secrets: Collection[str]) -> _Secrets:
    """What finds and hides ``secrets`` in every form `ObservationCollector` hides them in
    (``redact``, ``holds``, ``pending_start``); false when there is none to hide."""
    return _Secrets(secrets)


def redacted_texts(value: Any, redact: Any, *, max_depth: int | None = None, depth: int = 0) -> Any:
    """``value`` (text, numbers, and dicts and lists of them: a call's parameters, a message's
    dumped fields) with ``redact`` (``text -> text``) applied to every text in it, plain-text
    keys too (enum keys such as ``LogMetadata`` are left as they are); what lies deeper than
    ``max_depth`` levels, when given, is left as it is."""
    if isinstance(value, str):
        return redact(value)
    if max_depth is not None and depth > max_depth:
        return value
    if isinstance(value, Mapping):
        give_way()  # a reply's arguments or a tool's JSON of millions of parts
        return {
            (redact(key) if type(key) is str else key): (
                item if type(item) in PLAIN_SCALARS else redacted_texts(item, redact, max_depth=max_depth, depth=depth + 1)
            )
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        give_way()
        # a number, a boolean or null is kept as it is without a call for it (a list of a million
        # numbers took 0.6 s, holding every session of the process)
        return [
            item if type(item) in PLAIN_SCALARS else redacted_texts(item, redact, max_depth=max_depth, depth=depth + 1)
            for item in value
        ]
    return value


def redactor(secrets: Collection[str]) -> Any:
    """``text -> text`` with every value of ``secrets`` (and its encoded and reflowed forms)
    replaced by ``[REDACTED]``, as `ObservationCollector` does (for other texts of a tool call,
    e.g. an internal error message)."""
    return _Secrets(secrets).redact


_INVISIBLE = "\x1f"
"""What a character that shows nothing (a zero-width space or joiner, a soft hyphen, a bidi or
tag control, a variation selector) or only marks the letter before it (a combining accent: a key
with one over every letter still reads as the key) is folded to: whitespace to Python (``str.split``), so it is
skipped like a line break a tool put inside a token."""
_INVISIBLE_RANGES = (
    (0x00AD, 0x00AD), (0x0300, 0x036F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xE0000, 0xE007F),
)
_LOOKALIKE_RANGES = ((0x00B2, 0x00B3), (0x00B9, 0x00B9), (0x2070, 0x209F), (0x2460, 0x24FF),
                     (0xFF01, 0xFF5E), (0x1D400, 0x1D7FF), (0x1F130, 0x1F189))
"""Full-width forms (``ＣＡＮＡＲＹ``), mathematical, circled and squared letters, super- and
subscript digits: each is folded to the ASCII character its compatibility form (NFKC) is."""


def _fold_table() -> dict[str, str]:
    table = {chr(c): _INVISIBLE for low, high in _INVISIBLE_RANGES for c in range(low, high + 1)}
    for low, high in _LOOKALIKE_RANGES:
        for code in range(low, high + 1):
            plain = unicodedata.normalize("NFKC", chr(code))
            if len(plain) == 1 and plain.isascii() and not plain.isspace():
                table[chr(code)] = plain
    table["\u0130"] = "i"  # "İ": the one character whose lower case is two (i + a combining dot)
    table.update(dict.fromkeys(_INVISIBLE_MORE, _INVISIBLE))
    table.update((char, unicodedata.normalize("NFKC", char)) for char in _LETTERLIKE)
    return table


_LETTERLIKE = "".join(
    chr(code) for code in range(0x2100, 0x2190)
    if len(plain := unicodedata.normalize("NFKC", chr(code))) == 1 and plain.isascii() and plain.isalnum())
"""Letterlike symbols and number forms whose compatibility form (NFKC) is one ASCII letter: the
letters a "fancy text" writer takes from there where the mathematical alphabets have a hole
(Fraktur ``ℭ``, script ``ℰ``, double-struck ``ℂ``, the Kelvin sign, Roman numerals ``Ⅽ``, ``ⅰ``)."""
_INVISIBLE_MORE = "\u2800\ufff9\ufffa\ufffb" + "".join(map(chr, range(0x1D173, 0x1D17B)))
"""Blank or format characters outside ``_INVISIBLE_RANGES`` that show nothing inside a token: the
braille blank, interlinear annotation marks, musical formatting controls."""


_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\u02d7\u2043\u2796\u058a\u05be\u2e17\u2e3a\u2e3b\ufe31\ufe32"
"""Hyphens, dashes and minus signs a text processor or a "smart punctuation" filter writes for
``-`` (also the modifier-letter, heavy and bullet minus and hyphen, Armenian and Hebrew hyphens,
two- and three-em and vertical dashes): folded to it."""
_FOLD = {**_fold_table(), **dict.fromkeys(_DASHES, "-")}
_FOLDABLE = re.compile("[" + "".join(f"{re.escape(chr(low))}-{re.escape(chr(high))}" for low, high in _INVISIBLE_RANGES + _LOOKALIKE_RANGES)
                       + "\u0130" + _DASHES + _LETTERLIKE + _INVISIBLE_MORE + "]")

_OTHER_SCRIPT_LOOKALIKES = {
    # Cyrillic
    "а": "a", "с": "c", "е": "e", "о": "o", "р": "p", "х": "x", "у": "y", "і": "i", "ј": "j",
    "ѕ": "s", "һ": "h", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ӏ": "l", "к": "k", "м": "m", "т": "t",
    "А": "a", "В": "b", "С": "c",
    "Е": "e", "Н": "h", "І": "i", "Ј": "j", "К": "k", "М": "m", "О": "o", "Р": "p", "Ѕ": "s",
    "Т": "t", "Х": "x", "У": "y", "Ү": "y", "Ԛ": "q", "Ԝ": "w",
    # Greek
    "Α": "a", "Β": "b", "Ε": "e", "Ζ": "z", "Η": "h", "Ι": "i", "Κ": "k", "Μ": "m", "Ν": "n",
    "Ο": "o", "Ρ": "p", "Τ": "t", "Υ": "y", "Χ": "x", "ο": "o", "α": "a", "ι": "i", "κ": "k",
    "ν": "v", "ρ": "p", "υ": "u", "τ": "t", "χ": "x", "γ": "y", "ϲ": "c", "ϳ": "j",
}
"""Cyrillic and Greek letters drawn as a Latin letter (Unicode's confusables, and the small
capitals ``к``, ``м``, ``т``, ``τ`` a key's letters are swapped for too), as the Latin letter (lower
case: ``_fold`` compares lower-cased)."""
_AS_LATIN = str.maketrans(_OTHER_SCRIPT_LOOKALIKES)
_LOOKALIKE_CHARS = "".join(_OTHER_SCRIPT_LOOKALIKES)
_OTHER_SCRIPT = re.compile(f"[{_LOOKALIKE_CHARS}]")
_LOOKALIKE_SET = frozenset(_LOOKALIKE_CHARS)
_LOOKALIKE_RUN = re.compile(f"[{_LOOKALIKE_CHARS}]+")
_BESIDE_LATIN = re.compile(f"[{_LOOKALIKE_CHARS}](?:(?<=[0-9A-Za-z{_INVISIBLE}][{_LOOKALIKE_CHARS}])|(?=[0-9A-Za-z{_INVISIBLE}]))")
"""A look-alike letter of another script that opens a run of them with a Latin letter or digit
(or a character that shows nothing) before it, or closes one with such a character after it:
the runs of a token of mixed scripts, as a key with some of its letters swapped for look-alikes
is written. It opens with a set of characters and looks one character around: the regex engine
skips to those letters in C and never goes back over a run (a run of a million of them costs
what a million letters of English do; a lookahead after the run made it quadratic)."""


def _as_latin(text: str) -> str:
    """``text`` with each run of look-alike letters that touches a Latin letter or digit
    (``_BESIDE_LATIN``) written in the Latin letters it looks like, one for one; runs inside
    Cyrillic or Greek words are left as they are (folding every one would cost a Python call a
    letter of such a text). Each run is read once, forwards or backwards."""
    pieces: list[str] = []
    written = 0
    for match in _BESIDE_LATIN.finditer(text):
        at = match.start()
        if at < written:  # the end of a run already folded from its start
            continue
        start = at
        while start > written and text[start - 1] in _LOOKALIKE_SET:  # a run closed by a Latin letter
            start -= 1
        end = _LOOKALIKE_RUN.match(text, at).end()
        pieces += (text[written:start], text[start:end].translate(_AS_LATIN))
        written = end
    return "".join([*pieces, text[written:]]) if pieces else text


def _folded_in_place(secret: str) -> set[str]:
    """``secret`` folded (``_fold``) as it may be where it stands in a text: a run of look-alike
    letters at its start or its end is folded as Latin when a Latin letter or digit touches it in
    the text, and not otherwise (a Cyrillic secret written right after ``x`` or before ``7``).
    One form for a secret with no such letter."""
    if not _OTHER_SCRIPT.search(secret):
        return {_fold(secret)}
    return {_fold(before + secret + after)[len(before) : len(before) + len(secret)]
            for before in ("", "a") for after in ("", "a")}


_MARKUP = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|</?(?:b|em|mark|strong)>", re.IGNORECASE)
"""Markup a tool puts inside a value to highlight a part of it, read as characters that show
nothing: a terminal's colour codes (``grep --color`` colours the match, ``\x1b[01;31m``), and
the tags search engines wrap the words of a query in (``<em>`` Elasticsearch and Algolia, ``<b>``
Google and PostgreSQL's ``ts_headline``, ``<strong>``, ``<mark>``). A key a user searched for
part of is written with the tags inside it."""


_TAGS_BY_LENGTH = [(re.compile("|".join(tags), re.IGNORECASE), _INVISIBLE * size) for size, tags in itertools.groupby(
    sorted((f"<{end}{name}>" for name in ("b", "em", "mark", "strong") for end in ("", "/")), key=len), key=len)]
"""The highlight tags of ``_MARKUP``, one pattern for each length, each replaced by a constant
(``re.sub`` with a string: no Python call a tag, as a callback made of an HTML page of them)."""
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")


def _unmarked(text: str) -> str:
    """``text`` with each piece of ``_MARKUP`` in it written as as many invisible characters."""
    if "\x1b" in text:
        text = _ANSI.sub(lambda match: _INVISIBLE * len(match.group()), text)
    if "<" in text:
        for pattern, blank in _TAGS_BY_LENGTH:
            text = pattern.sub(blank, text)
    return text


_PARTIAL_MARKUP = re.compile(r"(?:\x1b(?:\[[0-?]*[ -/]*)?|</?(?:b|e|em|m|ma|mar|mark|s|st|str|stro|stron|strong)?)\Z",
                             re.IGNORECASE)
"""``_MARKUP`` the end of a streamed piece may have cut (the next piece finishes it)."""
_PARTIAL_MARKUP_MAX = 32


def _fold(text: str) -> str:
    """``text`` as secrets are compared with it, one character for each of its characters (so a
    place in it is the same place in ``text``): lower case (a tool's error message may upper-case a
    key: a hex key is the same key, a base64 key loses at most a bit a letter), full-width and
    other look-alike letters and digits as ASCII, dashes as ``-``, Cyrillic and Greek letters drawn as
Latin ones as those where they touch a Latin letter or digit (``_as_latin``), characters
that show nothing as whitespace, and so the markup that highlights part of a text (``_MARKUP``)."""
    if ("<" in text or "\x1b" in text) and _MARKUP.search(text):
        text = _unmarked(text)
    if text.isascii():
        return text.lower()
    if _FOLDABLE.search(text):
        text = _FOLDABLE.sub(lambda match: _FOLD.get(match.group(), match.group()), text)
    if _OTHER_SCRIPT.search(text):
        text = _as_latin(text)
    return text.lower().replace("\u03c2", "\u03c3")  # a final sigma, lower-cased by its place


_QP = "=(?:[01][0-9A-F]|2[1-9A-F]|3[A-F]|40|5[B-F]|60|7[B-F]|[89A-F][0-9A-F])"
"""A quoted-printable byte as encoders write one: not a letter, a digit or a space (printable
ASCII is written as it is; a space inside a secret is matched as whitespace anyway), so
``timeout=30`` or ``c=20`` in code is not read as an escape (and costs no decoding)."""

_ESCAPES = re.compile(
    r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"  # a surrogate pair
    r"|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}|\\u\{0*[0-9a-fA-F]{1,6}\}|\\[\\/\"'tnr]"
    r"|\\x[0-9a-fA-F]{2}(?:\\x[0-9a-fA-F]{2})*|\\[0-3][0-7]{2}(?:\\[0-3][0-7]{2})*"
    r"|%[0-9a-fA-F]{2}(?:%[0-9a-fA-F]{2})*|" + _QP + "(?:" + _QP + r")*|=(?<![\s=!<>]=)(?:\r?\n|(?:\\r)?\\n)"
    r"|&#0*[0-9]{1,7};?|&#[xX]0*[0-9a-fA-F]{1,6};?|&[A-Za-z][A-Za-z0-9]{1,31};"
)
"""One escape a JSON, JavaScript, Python, URL or HTML encoder writes a character in (a run of
percent-encoded bytes as one: a character of several UTF-8 bytes; an HTML character reference by
number, also without the semicolon browsers read it without, or by any HTML5 name: ``&lowbar;``,
``&period;``, ``&sol;``, ``&equals;``; ``\\U0000002d`` and ``\\u{2d}``; a run of ``\\xXX`` or
octal ``\\055`` escapes, or of quoted-printable ``=2D``, as UTF-8 bytes where they are, each a
character where not; a quoted-printable soft line break ``=`` and a line break, as nothing, also
with the line break JSON-escaped, unless the ``=`` ends an operator or follows a space, as in
code: ``!=``, ``x =``).
Every alternative begins with a literal ``\\``, ``%``, ``&`` or ``=``, so the regex engine skips to those characters in C
(a leading group, ``(?:%..)+``, made it try every alternative at every character: 27 ms a
megabyte of prose instead of 4)."""


_ESCAPE_PIECES = re.compile(f"({_ESCAPES.pattern})")
"""``_ESCAPES`` as one group: ``split`` gives the text between escapes and the escapes in turn."""


_HTML5_NAMES = html.entities.html5
"""HTML5's named character references (``"lowbar;" -> "_"``)."""


def _unescape(escape: str) -> str:
    """The text one match of ``_ESCAPES`` stands for."""
    if escape[0] == "%":
        return urllib.parse.unquote(escape)
    if escape[0] == "=":
        return "" if escape[1] in "\r\n\\" else _bytes_text(bytes.fromhex(escape.replace("=", "")))
    if escape[1] in "01234567":
        return _bytes_text(bytes(int(escape[n : n + 3], 8) for n in range(1, len(escape), 4)))
    if escape[0] == "&":  # a name: looked up (an unknown one, 700,000 of them, is itself at once)
        return html.unescape(_unpadded(escape)) if escape[1] == "#" else _HTML5_NAMES.get(escape[1:], escape)
    if escape[1] == "x":
        return _bytes_text(bytes.fromhex(escape.replace("\\x", "")))
    if escape[1] == "U" or escape[1:3] == "u{":
        code = int(escape[2:].strip("{}"), 16)
        return chr(code) if code < 0x110000 else escape
    if escape[1] == "'":
        return "'"
    if escape[1] in "tnr":
        return " "  # whitespace, which a secret is matched across
    return json.loads(f'"{escape}"')  # \uXXXX (a surrogate pair too), \/ \\ \"


def _unpadded(reference: str) -> str:
    """An HTML numeric character reference (``&#x00000053;``, ``&#000000083``) without the zeros
    its number is padded with (``&#x53;``, ``&#83``): HTML allows any number of them, and
    ``html.unescape`` reads a decimal number of more than 4,300 digits as no number (an error)."""
    head = 3 if reference[2] in "xX" else 2
    number = reference[head:].lstrip("0")
    return reference[:head] + (number if number[:1].isalnum() else "0" + number)


def _bytes_text(data: bytes) -> str:
    """A run of escaped bytes as text: UTF-8 where it reads as such (a bytes repr, octal or
    quoted-printable of a non-ASCII character), else each byte the character of that number."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


_CSS_ESCAPE_PIECES = re.compile(r"(\\[0-9a-fA-F]{1,6}(?:\r\n|[ \t\n\r\f])?)")
"""A CSS escape (``\\2d `` or ``\\00002d``: one to six hex digits, a whitespace after them
ending it), as one group. Read apart from ``_ESCAPES``: ``\\101`` is ``A`` in octal, ``ā`` in
CSS."""
_CSS_ESCAPE_MARK = re.compile(r"\\[0-9a-fA-F]")


def _css_unescape(escape: str) -> str:
    """The character a CSS escape stands for (U+FFFD for a number that is none, as CSS reads it)."""
    code = int(escape[1:].rstrip(), 16)
    return chr(code) if 0 < code < 0x110000 and not 0xD800 <= code < 0xE000 else "\ufffd"


_DECODE_LEVELS = 3
"""Times a text's escapes are decoded in turn to find a secret some of whose characters are
escaped: once for a JSON or HTML text, twice for one quoted inside another (a tool's JSON
result holding an API's JSON body), three times for one quoted once more (that result logged
as a JSON string, ``&amp;#45;`` escaped again). Each level costs one more pass only over a
text that still holds escapes after the level before."""


_DECODED_BETWEEN_TURNS = 4096
"""Distinct escapes decoded between two ``give_way`` calls."""


class _Unescaped:
    """A text with every escape of ``_ESCAPES`` in it decoded (``text``), and the way back from
    a place in it to the text it was read from (``span``, worked out only when asked: a secret
    is seldom found): a secret written with some of its characters escaped and others not
    (``CANARY\u002d7f``, ``CANARY%2D7f``), which no whole form matches.

    The text is split at its escapes and put back together in C (``re.split``, ``map``,
    ``str.join``); only each distinct escape is decoded in Python (a JSON text of a megabyte
    holds tens of thousands of escapes, seldom more than a few dozen different ones), so the
    cost is linear in the text whatever it holds (every character escaped, megabytes of ``%``,
    ``&#`` or backslashes). A text without escapes is ``text`` itself. With ``css``, only the
    CSS escapes of ``_CSS_ESCAPE_PIECES`` are decoded (read apart: see there)."""

    def __init__(self, source: str, *, css: bool = False) -> None:
        # text, escape, text, ..., text; CSS escapes alone when ``css`` (see _CSS_ESCAPE_PIECES)
        pieces = (_CSS_ESCAPE_PIECES if css else _ESCAPE_PIECES).split(source)
        unescape = _css_unescape if css else _unescape
        self._source_pieces = pieces
        self._pieces = pieces
        self._map: tuple[list[int], list[int]] | None = None
        self.values: Collection[str] = ()  # what each distinct escape stands for
        if len(pieces) == 1:
            self.text = source
            return
        escapes = pieces[1::2]
        table: dict[str, str] = dict.fromkeys(escapes, "")
        for count, escape in enumerate(table, 1):
            table[escape] = unescape(escape)
            if count % _DECODED_BETWEEN_TURNS == 0:
                give_way()  # a text escaped in every character: hundreds of thousands of kinds
        decoded = pieces.copy()
        decoded[1::2] = map(table.__getitem__, escapes)
        self._pieces = decoded
        self.text = "".join(decoded)
        self.values = table.values()

    def vanished(self) -> frozenset[int]:
        """The places in ``text`` where an escape that stands for nothing was (a quoted-printable
        soft line break): no encoding unit runs across one."""
        if "" not in self.values:
            return frozenset()  # the usual case: every escape stands for a character
        at = itertools.accumulate(map(len, self._pieces))  # where each piece ends
        return frozenset(place for index, (place, piece) in enumerate(zip(at, self._pieces, strict=True)) if index % 2 and not piece)

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The place in the source of ``text[start:end]`` (every escape it touches whole; a run of
        byte escapes to the byte: ``_inside``)."""
        if self._map is None:  # where each piece starts in the decoded text and in the source
            self._map = ([0, *itertools.accumulate(map(len, self._pieces))],
                         [0, *itertools.accumulate(map(len, self._source_pieces))])
        at, source = self._map
        first = bisect.bisect_right(at, start) - 1
        last = bisect.bisect_right(at, end - 1) - 1
        begin = source[first] + (self._inside(first, start - at[first]) or 0)  # even: text, odd: an escape
        inside = self._inside(last, end - at[last])
        stop = source[last] + inside if inside is not None else source[last + 1]
        return begin, stop

    def _inside(self, index: int, chars: int) -> int | None:
        """Where in piece ``index`` of the source the first ``chars`` characters of its decoding
        end: the same in text; in a run of byte escapes (``%41``, ``=2D``, ``\\x41``, octal)
        decoded as UTF-8, at the escape their bytes end with (a key's bytes at the start of a
        percent-encoded run are hidden without the rest of it); else None (one escape, touched,
        is hidden whole)."""
        if index % 2 == 0:
            return chars
        piece, decoded = self._source_pieces[index], self._pieces[index]
        if len(decoded) < 2:
            return None
        unit, size = (3 if piece[0] in "%=" else 4), len(decoded.encode("utf-8", "surrogatepass"))
        return unit * len(decoded[:chars].encode("utf-8", "surrogatepass")) if len(piece) == unit * size else None


_ESCAPE_MARKS = re.compile(r"[\\%&=]")
_PARTIAL_ESCAPE = re.compile(r"(?:(?<!\\)\\+(?:u[0-9a-fA-F]{0,3}|u\{0*[0-9a-fA-F]{0,6}|U[0-9a-fA-F]{0,7}|x[0-9a-fA-F]?"
                             r"|[0-9a-fA-F]{1,5}|[0-9a-fA-F]{6}\r)?|=(?:[0-9A-F]|\r|\\(?:r\\?)?)?|%[0-9a-fA-F]?|&#?[xX]?0*[0-9a-fA-F]{0,6}|&[A-Za-z][A-Za-z0-9]{0,30})\Z")
"""An escape the end of a text may have cut (the next piece of a stream finishes it)."""
_PARTIAL_ESCAPE_MAX = 64
"""How far back from a text's end (characters) ``_PARTIAL_ESCAPE`` is looked for: its longest
match (a named reference's 32 characters after a run of backslashes) ends inside it."""


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` (start, end) in order, those that overlap joined."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


_WHITESPACE_GONE = dict.fromkeys((code for code in range(0x3001) if chr(code).isspace()), None)
"""Every character ``str.split`` splits at (none is past U+3000), mapped to nothing."""
_SPLIT_BLOCK_CHARS = 1 << 18
"""Characters of a text that is not ASCII made whitespace-free at a time (some 10 ms)."""


def _without_whitespace(text: str) -> str:
    """``text`` without its whitespace (``"".join(text.split())``). ASCII: one ``translate`` (in
    C, 0.4 ms a megabyte; splitting made a string of every word: 30 ms, and 170 ms on 5 MB with no
    other session let run); else split a block of ``_SPLIT_BLOCK_CHARS`` at a time, giving way
    between blocks (``translate`` reads a dictionary for each character there: ten times slower)."""
    if text.isascii():
        return text.translate(_WHITESPACE_GONE)
    if len(text) <= _SPLIT_BLOCK_CHARS:
        return "".join(text.split())
    blocks = []
    for start in range(0, len(text), _SPLIT_BLOCK_CHARS):
        blocks.append("".join(text[start : start + _SPLIT_BLOCK_CHARS].split()))
        give_way()
    return "".join(blocks)


def _has_escape_mark(text: str) -> bool:
    """Whether ``text`` holds a character an escape of ``_ESCAPES`` begins with (``_ESCAPE_MARKS``:
    four ``in`` tests, ``memchr`` in C, cost 0.1 ms a megabyte where the regex's search cost 7)."""
    return "\\" in text or "%" in text or "&" in text or "=" in text


def _compact(text: str) -> tuple[str, list[int]]:
    """``text`` without its whitespace, and for each character kept its index in ``text``."""
    index = [position for position, char in enumerate(text) if not char.isspace()]
    return "".join(text[position] for position in index), index


def _wrappable(word: str) -> str:
    """A pattern for ``word`` that also matches it with whitespace at any character (a token
    wrapped across lines, as PEM and MIME wrap at 64-76 columns; a space, a tab or a character
    that shows nothing, folded to whitespace by ``_fold``, put inside it)."""
    return "\\s*".join(re.escape(char) for char in word)


def _percent_encoded_all(secret: str) -> str:
    """``secret`` with every character but ASCII letters and digits percent-encoded (as UTF-8):
    encoders that also encode the unreserved ``-._~`` (``%2D``) write it so."""
    return "".join(
        char if char.isascii() and char.isalnum() else "".join(f"%{byte:02X}" for byte in char.encode("utf-8"))
        for char in secret
    )


def _utf16_units(char: str) -> list[int]:
    """The UTF-16 code units of ``char`` (two for a character outside the BMP, as ``\\u`` escapes
    write it)."""
    data = char.encode("utf-16-be", "surrogatepass")
    return [int.from_bytes(data[n : n + 2], "big") for n in range(0, len(data), 2)]


def _escaped_every_character(secret: str) -> set[str]:
    """``secret`` with every character escaped, in the notations a tool may write a value in:
    ``\\u0043`` (JSON, JavaScript, Java; hex in either case), ``\\U00000043`` (Python),
    ``\\u{43}`` (JavaScript, Rust, Swift), ``\\x43`` (Python, C, JavaScript; also each UTF-8
    byte, as a bytes repr writes it), ``\\103`` (octal UTF-8 bytes), ``\\43 `` and ``\\000043``
    (CSS), ``=43`` (quoted-printable), ``&#67;`` and ``&#x43;`` (HTML, XML numeric character
    references), ``%43`` (percent-encoding of every byte, URL-safe characters too) and ``43414e``
    (its UTF-8 bytes in hex, also of the secret upper- or lower-cased first)."""
    units = [unit for char in secret for unit in _utf16_units(char)]
    forms = {"".join(f"\\u{unit:04x}" for unit in units)}
    if all(ord(char) < 256 for char in secret):
        forms.add("".join(f"\\x{ord(char):02x}" for char in secret))
    forms.add("".join(f"&#{ord(char)};" for char in secret))
    forms.add("".join(f"&#x{ord(char):x};" for char in secret))
    data = secret.encode("utf-8")
    forms.add("".join(f"%{byte:02x}" for byte in data))
    forms.add("".join(f"\\U{ord(char):08x}" for char in secret))  # Python's 8-digit escape
    forms.add("".join(f"\\u{{{ord(char):x}}}" for char in secret))  # JavaScript (ES6), Rust, Swift
    forms.add("".join(f"\\x{byte:02x}" for byte in data))  # a bytes repr: UTF-8 bytes
    forms.add("".join(f"\\{byte:03o}" for byte in data))  # octal: C, shells' printf, PHP
    forms.add("".join(f"\\{ord(char):x} " for char in secret))  # CSS, a space ending each escape
    forms.add("".join(f"\\{ord(char):06x}" for char in secret))  # CSS, six digits need no space
    forms.add("".join(f"={byte:02X}" for byte in data))  # quoted-printable
    # a digest-like dump of the bytes, also of the secret upper- or lower-cased before it was dumped
    forms |= {case.encode("utf-8").hex() for case in (secret, secret.lower(), secret.upper())}
    return forms | {form.upper().replace("\\X", "\\x").replace("\\U", "\\u").replace("&#X", "&#x") for form in forms}


_HTML_SAFE_JSON = (
    ("<>&\u2028\u2029", "x", False),  # Go encoding/json Marshal (HTMLEscape)
    ("<>&='\u2028\u2029", "x", False),  # Gson (htmlSafe, its default)
    ("<>&'\"+`", "X", True),  # .NET System.Text.Json (JavaScriptEncoder.Default)
)
"""JSON encoders that write more characters as ``\\u`` escapes than ``json.dumps`` does: the
characters, the hex digits' case (``x`` or ``X``), and whether every non-ASCII character is
escaped too."""


def _json_html_safe(secret: str) -> set[str]:
    """``secret`` inside a JSON string as the HTML-safe encoders of ``_HTML_SAFE_JSON`` write it,
    where that differs from ``json.dumps``: Go's ``encoding/json`` (``Marshal`` writes ``<``,
    ``>``, ``&``, U+2028 and U+2029 as ``\\u003c``... "to keep some browsers from misinterpreting
    JSON output as HTML", encode.go), Gson (``=`` and ``'`` too) and .NET's ``System.Text.Json``
    (upper-case hex, ``'"+`` and the backquote too, every non-ASCII character as well, two
    escapes for one outside the BMP). A tool that returns an API's JSON body as it came passes
    these on. Empty when none differs."""
    plain = json.dumps(secret, ensure_ascii=False)[1:-1]
    forms = set()
    for characters, case, non_ascii in _HTML_SAFE_JSON:
        forms.add("".join(
            "".join(f"\\u{unit:04{case}}" for unit in _utf16_units(char))
            if char in characters or (non_ascii and not char.isascii())
            else json.dumps(char, ensure_ascii=False)[1:-1]
            for char in secret
        ))
    return forms - {plain}


_BASE64_UNIT_BITS = 24
"""Bits of one unit of base64: three bytes, written as a group of four characters."""
Edges = tuple[int, int]
"""``(lead, trail)`` of an encoded form: how many characters before and after it (at most) belong
to the encoding units that carry a bit of the secret, and are hidden with it (``_Secrets._found``)."""


def _base64_core(data: bytes, offset: int, carried: tuple[int, int] | None = None) -> tuple[str, Edges]:
    """The characters made of ``data``'s bits alone when base64 writes it at byte ``offset``
    (0-2) of a group, and the ``Edges`` from them to the bounds of the groups that carry a bit of
    ``carried`` (a bit range of the encoded stream, ``data``'s own by default): the character
    before the core and the one after it hold some of its first and last bits, the other
    characters of their groups hold none but are written in the same unit (its padding too)."""
    encoded = base64.b64encode(b"\0" * offset + data).decode("ascii")
    start, end = -(-8 * offset // 6), (8 * offset + 8 * len(data)) // 6
    first_bit, end_bit = carried or (8 * offset, 8 * (offset + len(data)))
    lead = start - 4 * (first_bit // _BASE64_UNIT_BITS)
    trail = 4 * -(-end_bit // _BASE64_UNIT_BITS) - end
    return encoded[start:end], (lead, trail)


def _widen(forms: dict[str, Edges], form: str, edges: Edges) -> None:
    """``form`` into ``forms`` with the widest ``Edges`` any way of writing it gives."""
    lead, trail = forms.get(form, (0, 0))
    forms[form] = (max(lead, edges[0]), max(trail, edges[1]))


def _add_edged(forms: dict[str, Edges], core: str, edges: Edges) -> None:
    """``core`` (standard alphabet) and its URL-safe spelling into ``forms`` (``_widen``)."""
    for form in {core, core.replace("+", "-").replace("/", "_")}:
        _widen(forms, form, edges)


def _base64_cores(secret: str, encoding: str = "utf-8") -> dict[str, Edges]:
    """The characters that stand for ``secret`` in any base64 text that holds it (standard and
    URL-safe alphabets): at each of the three byte offsets it may start at, the output
    characters made of its bits alone (an HTTP Basic ``Authorization`` header holds
    ``base64(user:password)``; a tool may echo it), its bytes in ``encoding``, each with its
    ``Edges`` (``_base64_core``). Cores shorter than ``MIN_BASE64_CORE`` are left out."""
    data = secret.encode(encoding)
    cores: dict[str, Edges] = {}
    for offset in range(3):
        core, edges = _base64_core(data, offset)
        if len(core) >= MIN_BASE64_CORE:
            _add_edged(cores, core, edges)
    return cores


def _base64_twice(secret: str) -> dict[str, Edges]:
    """The characters that stand for ``secret`` in base64 of a base64 text that holds it (a
    token a service encodes again: a Basic ``Authorization`` value inside a base64 config blob, a
    Kubernetes secret's data holding a base64 key), standard and URL-safe alphabets, padded or
    not: the cores of each of its base64 cores (all lengths), at each of the three byte offsets
    the inner text may start at, with the ``Edges`` of the outer groups that carry a bit of an
    inner character that carries one of the secret's (the inner characters just before and
    after an inner core hold some of its bits). The secret as written only (its cases are three
    times the forms). A secret under about 6 characters has no core of ``MIN_BASE64_CORE``."""
    data = secret.encode("utf-8")
    forms: dict[str, Edges] = {}
    for inner_offset in range(3):
        inner = _base64_core(data, inner_offset)[0]
        # the inner characters that carry a bit of the secret: the core, and the one on each side
        # whose six bits the secret's first or last byte shares with its neighbour's
        before, after = (1 if 8 * inner_offset % 6 else 0), (1 if 8 * (inner_offset + len(data)) % 6 else 0)
        for core in {inner, inner.replace("+", "-").replace("/", "_")}:
            for offset in range(3):
                carried = (8 * (offset - before), 8 * (offset + len(core) + after))
                outer, edges = _base64_core(core.encode("ascii"), offset, carried)
                if len(outer) >= MIN_BASE64_CORE:
                    _add_edged(forms, outer, edges)
    return forms


def _base64_utf16(secret: str) -> dict[str, Edges]:
    """``_base64_cores`` of ``secret`` in UTF-16 little-endian: what PowerShell's
    ``-EncodedCommand`` and .NET's ``Encoding.Unicode`` encode a script or a value in (a tool
    that echoes the command it ran echoes the key in it)."""
    return _base64_cores(secret, "utf-16-le")


_HEX_SEPARATED = ((":", ""), ("-", ""), (",", ""), (",", "0x"), ("", "0x"))
"""How a tool lists bytes in hex with a separator: ``73:6b`` (a fingerprint, ``xxd``-like dumps),
``73-6b``, ``73,6b``, ``0x73,0x6b`` (a C or Python byte array; the spaces after the commas are
whitespace, matched anywhere) and ``0x73 0x6b``; ``73 6b`` is the plain hex with whitespace."""


def _hex_separated(secret: str) -> set[str]:
    """``secret``'s UTF-8 bytes in hex, each pair apart (``_HEX_SEPARATED``); compared folded, so
    upper-case digits (``0xDE``, ``DE:AD``) are the same form."""
    pairs = [f"{byte:02x}" for byte in secret.encode("utf-8")]
    return {separator.join(prefix + pair for pair in pairs) for separator, prefix in _HEX_SEPARATED}


def _base64_of_cases(secret: str) -> dict[str, Edges]:
    """``_base64_cores`` of ``secret`` as written, lower-cased and upper-cased: a tool or an API
    that changes a key's case before encoding it (a hex key upper-cased, a header value
    lower-cased) writes other base64 characters, which folding the text cannot undo."""
    forms: dict[str, Edges] = {}
    for case in dict.fromkeys((secret, secret.lower(), secret.upper())):
        for core, edges in _base64_cores(case).items():
            _widen(forms, core, edges)
    return forms


_SCAN_KEY_CHARS = 4
"""Characters of a form's whitespace-free text it is looked up by (at most: its shortest form's)."""
_PLAIN_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
"""Characters of a folded text common enough that a test for one of them skips no form; every
other character of a needle (an escape's ``\\``, ``&``, ``%``, ``=``, ``#``; a hex form's ``:``;
base64's ``+`` and ``/``) is tested for once a text (``in``: ``memchr``, some 50 times cheaper than
a ``find`` of a form) and, where the text lacks it, the needles holding it are skipped."""
_ESCAPE_CHARS = frozenset("\\&%=")
_ESCAPE_NEEDLE_CHARS = 8
"""Characters a needle that holds an escape's character (``_ESCAPE_CHARS``) is made of at
least, where its forms have as many: one escape written all over a JSON, HTML or URL text (``\\u00``
before each accented letter) is found at every one."""
_FIND_EACH_FORM_MAX = 1024
"""Most needles (forms that share their first ``_SCAN_KEY_CHARS`` characters: one for all of
them) searched for one by one (``str.find``: 0.15 to 0.4 ms a megabyte each); with more, each
position of the text is looked up instead (0.25 s a megabyte, whatever the number of forms)."""


_BLOCK_WIDTHS = ((8, "Q"), (4, "I"))
"""Widths (characters) of the blocks a text is cut into when many needles are left
(``_BlockIndex``), with the ``memoryview`` format that reads one block as one int: a form is
indexed at the widest ``width`` it is ``2 * width - 1`` characters long for (every place it may
stand at then holds a whole block), a shorter one keeps its needle."""
_FIND_EACH_NEEDLE_MAX = 24
"""Most needles looked for one by one (``str.find``, 0.15 to 0.4 ms a megabyte each) before the
forms of ``_BLOCK_WIDTHS`` are found by their blocks instead (one pass: 3.5 ms a megabyte for 8
characters, 7 for 4, whatever the number of forms)."""
_BLOCKS_AT_ONCE = 1 << 13
"""Blocks of a text compared at once (in C) by ``_BlockIndex.places``; it gives way between."""
_LOCATE_EACH_HIT_MAX = 32
"""Most distinct blocks found in a text that are each located with ``bytes.find``; with more,
the blocks are read one by one (in Python, 4 ms a megabyte)."""


class _BlockIndex:
    """Forms of a secret found by the blocks of ``width`` characters a text is cut into (at 0,
    ``width``, ``2 * width``...): a form of ``2 * width - 1`` characters or more that stands at
    ``p`` holds the whole block at the first multiple of ``width`` from ``p`` on, which is its
    own text from ``offset`` (below ``width``) on. Each of its ``width`` such pieces is a key (an
    int: the piece's Latin-1 bytes, a character past U+00FF as ``?``); the text's blocks are
    read as ints too (``memoryview.cast``), and one set intersection (in C) tells which blocks
    may be where a form stands, whatever the number of forms. Only there are the forms compared
    (``str.startswith``)."""

    def __init__(self, width: int, code: str, forms: list[_Form], ranks: Iterable[int]) -> None:
        self.width, self._code = width, code
        self._starts: dict[int, list[tuple[int, int]]] = {}  # key -> (rank, offset) of each form
        for rank in ranks:
            text = forms[rank].compact.encode("latin-1", "replace")
            for offset in range(width):
                key = int.from_bytes(text[offset : offset + width], sys.byteorder)
                self._starts.setdefault(key, []).append((rank, offset))
        self._keys = frozenset(self._starts)

    def places(self, compact: str, data: bytes, forms: list[_Form]) -> list[int]:
        """``position * len(forms) + rank`` of each indexed form that stands in ``compact``
        (unordered; ``data``: ``compact`` as Latin-1, ``?`` for what it cannot hold)."""
        width, ranks_count = self.width, len(forms)
        view = memoryview(data)[: len(data) // width * width].cast(self._code)
        hits: set[int] = set()
        for first in range(0, len(view), _BLOCKS_AT_ONCE):
            hits |= self._keys.intersection(view[first : first + _BLOCKS_AT_ONCE])
            give_way()  # 0.2 ms a piece
        found: list[int] = []
        for at, key in self._blocks_of(hits, data, view) if hits else ():
            for rank, offset in self._starts[key]:
                position = at - offset
                if position >= 0 and compact.startswith(forms[rank].compact, position):
                    found.append(position * ranks_count + rank)
        return found

    def _blocks_of(self, hits: set[int], data: bytes, view: memoryview) -> list[tuple[int, int]]:
        """``(index in the text, key)`` of each block of ``view`` (``data`` read as ints) that is
        one of ``hits``: few are each located with ``bytes.find``, more by reading every block."""
        width, blocks = self.width, []
        if len(hits) <= _LOCATE_EACH_HIT_MAX:
            for key in hits:
                piece, at = key.to_bytes(width, sys.byteorder), -1
                while (at := data.find(piece, at + 1)) >= 0:
                    if at % width == 0:
                        blocks.append((at, key))
                    give_way()  # a text of one repeated character holds a block at every place
            return blocks
        for number, key in enumerate(view):
            if key in hits:
                blocks.append((number * width, key))
            if number & 8191 == 8191:
                give_way()
        return blocks


def _block_indexes(forms: list[_Form]) -> tuple[list[_BlockIndex], list[int]]:
    """``forms`` indexed by their blocks (``_BLOCK_WIDTHS``, each form at the widest its length
    allows, a width only for more than ``_FIND_EACH_NEEDLE_MAX`` forms), and the ranks of the
    others."""
    indexes, short = [], list(range(len(forms)))
    for width, code in _BLOCK_WIDTHS:
        indexed = [rank for rank in short if len(forms[rank].compact) >= 2 * width - 1]
        if len(indexed) > _FIND_EACH_NEEDLE_MAX:  # fewer: their needles cost less than a pass
            indexes.append(_BlockIndex(width, code, forms, indexed))
            short = [rank for rank in short if len(forms[rank].compact) < 2 * width - 1]
    return indexes, short


_Needle = tuple[str, frozenset[str], int, dict[str, list[int]]]
"""A needle, the characters of it outside ``_PLAIN_KEY_CHARS``, and its forms by their start
(``_needles``)."""


def _shared_start(texts: list[str]) -> str:
    """The longest start every one of ``texts`` (at least one) begins with."""
    first, last = min(texts), max(texts)  # the two that differ first, in order
    size = 0
    while size < len(first) and first[size] == last[size]:
        size += 1
    return first[:size]


def _needles(forms: list[_Form], groups: Iterable[list[int]]) -> list[_Needle]:
    """What each group of ``forms`` (their ranks; those sharing a key) is looked for with: the
    start they all share (a longer needle skips further: one form's whole text, ``sk-00`` of 50
    keys alike), the characters of it a text may lack (``_PLAIN_KEY_CHARS``), and the group's forms
    by their first ``size`` characters (as many as its shortest has: ``\\u00`` stands before every
    escape of a JSON text, where one look-up tells which of 100 forms may start there)."""
    needles: list[_Needle] = []
    for group in groups:
        start = _shared_start([forms[rank].compact for rank in group])
        if len(group) == 1 or len(start) >= _ESCAPE_NEEDLE_CHARS or _ESCAPE_CHARS.isdisjoint(start):
            needles += _grouped_needles(forms, [group])
            continue
        # an escape's start (``\\u00``, ``&#x``, ``%``) stands all over an escaped text: a
        # longer one, each with its forms (``\\u0073\\u`` and ``\\u0053\\u``: two cases of a key)
        longer: dict[str, list[int]] = {}
        for rank in group:
            longer.setdefault(forms[rank].compact[:_ESCAPE_NEEDLE_CHARS], []).append(rank)
        needles += _grouped_needles(forms, longer.values())
    return needles


def _grouped_needles(forms: list[_Form], groups: Iterable[list[int]]) -> list[_Needle]:
    """Each of ``groups`` (ranks of ``forms``) as a needle (``_needles``)."""
    needles: list[_Needle] = []
    for ranks in groups:
        texts = [forms[rank].compact for rank in ranks]
        needle, size, by_start = _shared_start(texts), min(map(len, texts)), {}
        for rank, form_text in zip(ranks, texts, strict=True):
            by_start.setdefault(form_text[:size], []).append(rank)
        needles.append((needle, frozenset(needle) - _PLAIN_KEY_CHARS, size, by_start))
    return needles


class _Form:
    """One form of a secret (folded: ``_fold``): its text without whitespace, and the pattern it
    is matched with where whitespace stands inside a place it may be at: any whitespace between
    its words, and in a form of at most ``WRAPPED_FORM_MAX_CHARS`` any whitespace at any
    character."""

    def __init__(self, variant: str, edges: Edges = (0, 0)) -> None:
        self.lead, self.trail = edges  # characters of the units it is written in (base64's groups)
        self.words = variant.split()
        self.compact = "".join(self.words)
        self._wrappable = len(variant) <= WRAPPED_FORM_MAX_CHARS
        self._patterns: dict[bool, re.Pattern[str]] = {}

    def matches(self, text: str, start: int, end: int) -> bool:
        """Whether ``text[start:end]``, which holds ``compact`` with whitespace left out, is this
        form (its pattern built on first use: few forms are ever met)."""
        if end - start == len(self.compact):  # no whitespace inside: one word only
            return len(self.words) == 1
        if self._wrappable and len(self.words) == 1:  # any whitespace inside a token
            return True
        pattern = self._patterns.get(self._wrappable)
        if pattern is None:
            pattern = re.compile("\\s+".join(map(_wrappable if self._wrappable else re.escape, self.words)))
            self._patterns[self._wrappable] = pattern
        return pattern.fullmatch(text, start, end) is not None


_UNIT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789+/-_")
"""The characters of a base64 group (either alphabet, as folded: lower case) before its padding."""


def _unit_bounds(text: str, start: int, end: int, form: _Form, written: int,
                 stops: Collection[int] = ()) -> tuple[int, int]:
    """``(start, end)`` of ``form`` found at ``text[start:end]`` (folded), widened to the whole
    encoding units it is written in: up to ``form.lead`` characters of a base64 group before it
    (not before ``written``, the end of the form found before) and ``form.trail`` after it,
    padding included, so no character left beside ``[REDACTED]`` carries a bit of the secret. A
    character that cannot be part of the group (whitespace, a quote: the encoded text ends
    there) ends the widening; a line break does not where the line it leaves is base64 alone
    (``_wrapped``: a block wrapped at a width that is no multiple of four puts a group's last
    characters on the next line). Nor does it cross a place of ``stops`` (in a decoded text, where
    an escape that stands for nothing was: a base64 block's ``=`` padding before a line break,
    read as a quoted-printable soft line break, took the next line's first character)."""
    for _ in range(form.lead):
        if start in stops:
            break
        at = start - 1
        if at > written and text[at] == "\n" and _wrapped(text, start, forward=True):
            at -= 2 if text[at - 1] == "\r" and at - 1 > written else 1
        if at < written or at < 0 or text[at] not in _UNIT_CHARS:
            break
        start = at
    padding = False
    for _ in range(form.trail):
        if end in stops:
            break
        at = end
        if text[at : at + 1] in _BREAKS and _wrapped(text, end, forward=False):
            at += 2 if text[at : at + 2] == "\r\n" else 1
        char = text[at : at + 1]
        if char == "=":
            padding = True
        elif padding or char not in _UNIT_CHARS:
            break
        end = at + 1
    return start, end


_BREAKS = frozenset(("\n", "\r"))
_WRAPPED_LINE_MAX = 256
"""Characters of a line ``_wrapped`` reads (a wrapped base64 block's lines are 64 or 76)."""
_UNIT_LINE = re.compile(r"[a-z0-9+/_-]+=*")


def _wrapped(text: str, at: int, *, forward: bool) -> bool:
    """Whether the line of ``text`` (folded) that holds ``at`` is base64 characters alone, from
    ``at`` to its end (``forward``) or from its start to ``at``: a line of a wrapped block, not
    ``Basic <key>`` before a header on the next line."""
    if forward:
        stop = text.find("\n", at, at + _WRAPPED_LINE_MAX)
        stop = len(text) if stop < 0 and len(text) - at <= _WRAPPED_LINE_MAX else stop
        line = text[at:stop].rstrip("\r") if stop >= 0 else ""
    else:
        begin = text.rfind("\n", max(0, at - _WRAPPED_LINE_MAX), at) + 1
        line = text[begin:at] if begin or at <= _WRAPPED_LINE_MAX else ""
    return _UNIT_LINE.fullmatch(line) is not None


_LAYOUT_BLOCK_CHARS = 1024
"""Characters of a text counted at once (in C) by ``_Layout``; only the blocks where a form was
found are read run by run."""
_NON_SPACE_RUN = re.compile(r"\S+")


class _Layout:
    """Positions in a text's whitespace-free copy mapped back to the text: the non-whitespace
    characters of each block of ``_LAYOUT_BLOCK_CHARS`` counted first, then the runs of the
    blocks asked about (a text of megabytes with one secret in it reads one block)."""

    def __init__(self, text: str, compact: str) -> None:
        self._text = text
        self._same = len(compact) == len(text)  # no whitespace at all
        self._before: list[int] | None = None  # non-whitespace characters before each block
        self._runs: dict[int, tuple[list[int], list[int]]] = {}  # block -> its runs' starts, offsets

    def index(self, position: int) -> int:
        """The index in the text of the compact copy's character ``position`` (which exists)."""
        if self._same:
            return position
        before = self._before
        if before is None:
            before, size = [0], _LAYOUT_BLOCK_CHARS
            for start in range(0, len(self._text), size):
                before.append(before[-1] + len("".join(self._text[start : start + size].split())))
                give_way()
            self._before = before
        block = bisect.bisect_right(before, position) - 1
        runs = self._runs.get(block)
        if runs is None:
            start, offset, starts, offsets = block * _LAYOUT_BLOCK_CHARS, before[block], [], []
            for run in _NON_SPACE_RUN.finditer(self._text, start, start + _LAYOUT_BLOCK_CHARS):
                starts.append(run.start())
                offsets.append(offset)
                offset += run.end() - run.start()
            runs = self._runs[block] = (starts, offsets)
        starts, offsets = runs
        at = bisect.bisect_right(offsets, position) - 1
        return starts[at] + position - offsets[at]


def _normal_forms(secrets: Iterable[object]) -> list[object]:
    """``secrets`` with, after each that is not ASCII, its NFC and NFD forms where they differ
    from it (a tool may write ``é`` decomposed, as ``e`` and U+0301, or composed): each is a
    secret, with all its forms. An ASCII secret is its own normal form (one test, no copy)."""
    out: list[object] = []
    for secret in secrets:
        out.append(secret)
        if isinstance(secret, str) and not secret.isascii():
            out += [n for n in dict.fromkeys(unicodedata.normalize(f, secret) for f in ("NFC", "NFD")) if n != secret]
    return out


_LATIN_WITH_LOOKALIKES = frozenset(_OTHER_SCRIPT_LOOKALIKES.values())


def _written_as_a_word(token: str) -> bool:
    """Whether ``token`` (look-alike letters and marks) is written as a word of a language is:
    its letters all Cyrillic or all Greek, and all lower case, all upper case, or the first one
    upper case and the rest lower (``текст``, ``Текст``, ``ТЕКСТ``; not ``тЕкСт``, nor Cyrillic
    and Greek mixed). A key under ``LOOKALIKE_IN_WORD_MIN`` letters written so is not read as
    the key: short keys of these letters are spelt by ordinary words (``текст`` by ``tekct``), and
    hiding such a word in Russian or Greek text would garble it and tell a reader the key."""
    letters = "".join(filter(str.isalpha, token))
    if not letters or not (all(char < "\u0400" for char in letters) or all(char >= "\u0400" for char in letters)):
        return False
    return letters.islower() or letters.isupper() or (letters[0].isupper() and letters[1:].islower())


class _LookalikeTokens:
    """A secret written wholly in look-alike letters of another script (``ѕесrеt`` all Cyrillic,
    no Latin letter or digit beside it: ``_fold`` leaves such words as they are, Russian and
    Greek prose among them). A token of the text made only of look-alike letters (and the
    punctuation the secrets hold), as long as a secret, is written in Latin letters when that
    gives the secret (folded); every other token is left as it is. The regex engine finds such
    tokens in C (it skips to a look-alike letter and tests the one before it), so a text costs a
    Python call only for a whole token of look-alikes as long as a secret."""

    def __init__(self, compact_forms: Iterable[str]) -> None:
        words = {form for form in compact_forms if len(form) >= MIN_SECRET_LENGTH and form.isascii()
                 and any(char.isalpha() for char in form)
                 and all(char in _LATIN_WITH_LOOKALIKES or not char.isalnum() for char in form)}
        self._words = words
        self._long = sorted((word for word in words if len(word) >= LOOKALIKE_IN_WORD_MIN), key=len, reverse=True)
        self._patterns: tuple[re.Pattern[str], ...] | None = None
        self._sources: tuple[str, str, str] | None = None
        self._marks = ""
        if not words:
            return
        self._marks = "".join(sorted({char for word in words for char in word if not char.isalnum()}))
        # a token is bounded by what is not a letter or digit ("_" bounds it too: ``x_key``)
        token, edge = f"[{_LOOKALIKE_CHARS}{re.escape(self._marks)}]", "[^\\W_]"
        least, most = min(map(len, words)), max(map(len, words))
        in_word = min(map(len, self._long), default=0)
        # compiled when first needed (a text with look-alike letters: few are); a run inside a
        # word, and one that ends a text after a letter, only for a secret of ``LOOKALIKE_IN_WORD_MIN``
        self._sources = (f"[{_LOOKALIKE_CHARS}](?<!{edge}.){token}{{{least - 1},{most - 1}}}(?!{edge})",
                         f"{'' if in_word else f'(?<!{edge})'}[{_LOOKALIKE_CHARS}]{token}*\\Z",
                         f"[{_LOOKALIKE_CHARS}]{token}{{{in_word - 1},}}" if in_word else "")

    def _compiled(self) -> tuple[re.Pattern[str], ...]:
        if self._patterns is None:
            self._patterns = tuple(map(re.compile, self._sources))
        return self._patterns

    def as_latin(self, text: str) -> str:
        """``text`` with each whole token of look-alike letters that spells a secret written in
        Latin letters, one for one (a place in it is the same place in ``text``)."""
        if self._sources is None or text.isascii() or not _OTHER_SCRIPT.search(text):
            return text
        pieces, written = [], 0
        for match in self._compiled()[0].finditer(text):
            latin = match.group().translate(_AS_LATIN).lower()
            start = match.start()
            if latin not in self._words:  # a mark a secret holds may end a sentence or open a list
                bare = latin.strip(self._marks)
                if bare not in self._words:
                    continue
                start += latin.index(bare)
                latin = bare
            if len(latin) < LOOKALIKE_IN_WORD_MIN and _written_as_a_word(text[start : start + len(latin)]):
                continue
            pieces += (text[written:start], latin)
            written = start + len(latin)
        text = "".join([*pieces, text[written:]]) if pieces else text
        return self._in_words(text) if self._long else text

    def _in_words(self, text: str) -> str:
        """``text`` with each secret of ``LOOKALIKE_IN_WORD_MIN`` characters or more spelt by the
        look-alike letters of a run inside a longer word (``ключсһеарѕкаtе``) written in Latin
        letters, one for one; every other letter as it is."""
        pieces, written = [], 0
        for match in self._compiled()[2].finditer(text):
            latin = match.group().translate(_AS_LATIN).lower()
            at = 0
            while at < len(latin):  # the longest secret at the first place one stands
                places = [(found, word) for word in self._long if (found := latin.find(word, at)) >= 0]
                if not places:
                    break
                found, word = min(places, key=lambda place: (place[0], -len(place[1])))
                pieces += (text[written : match.start() + found], word)
                written = match.start() + found + len(word)
                at = found + len(word)
        return "".join([*pieces, text[written:]]) if pieces else text

    def end_as_latin(self, text: str) -> str:
        """``text`` (the end of a streamed piece) with a token of look-alike letters that ends it
        written in Latin letters: it may be the start of a secret the next piece finishes."""
        if self._sources is None or text.isascii() or not _OTHER_SCRIPT.search(text):
            return text
        match = self._compiled()[1].search(text)  # after a letter too when a secret may stand in a word
        if match is None:
            return text
        return text[: match.start()] + match.group().translate(_AS_LATIN).lower()


def _decodings(text: str, matters: Callable[[Collection[str], bool], bool] | None = None,
               ) -> Iterator[tuple[str, list[_Unescaped]]]:
    """``text`` with its escapes decoded (``_Unescaped``), once and again up to
    ``_DECODE_LEVELS`` times while escapes are left (a JSON text quoted inside another:
    ``\\\\u002d``), and each of those and ``text`` with its CSS escapes decoded (a CSS text in a
    JSON string): each as ``(decoded, levels)``, the decoders to map a place in it back through,
    in order. Nothing for a text without escapes. With ``matters`` (``(the decoded values of a
    level's escapes, whether CSS) -> bool``), a level whose escapes decode to nothing that
    matters is not given (it is still decoded further: a later level may be)."""
    levels: list[_Unescaped] = []
    decoded = text
    while True:
        if _CSS_ESCAPE_MARK.search(decoded):
            css = _Unescaped(decoded, css=True)
            if css.text != decoded and (matters is None or matters(css.values, True)):
                yield css.text, [*levels, css]
        if len(levels) == _DECODE_LEVELS or not _has_escape_mark(decoded):
            return
        level = _Unescaped(decoded)
        if level.text == decoded:
            return
        levels.append(level)
        decoded = level.text
        if matters is None or matters(level.values, False):
            yield decoded, list(levels)


_OPENS_MORE = frozenset("\\%&=#<>\x1b")
"""Characters a decoded escape may stand for that make more of a text read differently: the start
of an escape of the next level (``%252D``, ``&amp;#45;``, ``\\\\u002d``) or of highlighting
markup (``_MARKUP``)."""


class _Secrets:
    """The secret values of a call and what hides them: ``redact`` replaces every occurrence by
    ``[REDACTED]``, whatever whitespace stands between its words (a tool or an error message
    may have reflowed it), a line break anywhere in a form of at most ``WRAPPED_FORM_MAX_CHARS``
    (a wrapped token), and in its
    JSON-escaped (``\\/`` too), URL-encoded (also twice), HTML-escaped, escaped in every
    character (``_escaped_every_character``: ``\\u0043``, ``\\x43``, ``&#67;``, ``%43``) and base64 forms
    (``_base64_cores``, for a value of at most ``WRAPPED_FORM_MAX_CHARS``); ``mask_cut_edge``
    hides the start of a secret left at the end of a text that was cut; ``holds`` tells whether
    a text (a link, a file name) contains one, ``in_bytes`` whether a file's content does."""

    def __init__(self, secrets: Collection[str]) -> None:
        variants: set[str] = set()
        edges: dict[str, Edges] = {}  # a base64 form's characters beside it in the units it is written in
        for secret in _normal_forms(secrets or ()):
            if not isinstance(secret, str) or len(secret.strip()) < MIN_SECRET_LENGTH:
                continue
            quoted = {urllib.parse.quote(secret, safe=""), urllib.parse.quote(secret), urllib.parse.quote_plus(secret)}
            quoted.add(_percent_encoded_all(secret))  # "-" "." "_" "~" encoded too (%2D...)
            quoted |= {re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(), q) for q in quoted}
            escaped = {json.dumps(secret, ensure_ascii=False)[1:-1], json.dumps(secret)[1:-1]}
            escaped |= {e.replace("/", "\\/") for e in escaped}  # JSON's optional "\/" (PHP's default)
            escaped |= _json_html_safe(secret)  # Go's, Gson's and .NET's encoders: "<" as \u003c
            marked_up = {html.escape(secret), html.escape(secret, quote=False)}
            twice = {urllib.parse.quote(q, safe="") for q in quoted if "%" in q}  # a URL inside a URL's query
            encoded = set()
            if len(secret) <= WRAPPED_FORM_MAX_CHARS:
                for cores in (_base64_of_cases(secret), _base64_twice(secret), _base64_utf16(secret)):
                    for core, core_edges in cores.items():
                        _widen(edges, core, core_edges)
                    encoded |= cores.keys()
                encoded |= _hex_separated(secret)
            variants |= {secret, *escaped, *quoted, *marked_up, *twice, *encoded, *_escaped_every_character(secret)}
            give_way()  # hundreds of secrets
        # a file's bytes are compared lower-cased (ASCII only), as each form is written and folded
        self._encoded = sorted({v.encode("utf-8").lower() for v in variants | {_fold(v) for v in variants} if v.strip()},
                               key=len, reverse=True)
        # compared with folded text (``_fold``)
        variants = {folded for variant in variants for folded in _folded_in_place(variant)}
        folded_edges: dict[str, Edges] = {}
        for variant, variant_edges in edges.items():
            for folded in _folded_in_place(variant):
                _widen(folded_edges, folded, variant_edges)
        # the longest first; of two as long, the one that hides more text, then a fixed order (a
        # set's order changes from one process to the next: what is hidden must not)
        self._variants = sorted(variants, key=lambda v: (-len(v), -len("".join(v.split())), v))
        self._forms: list[_Form] = []
        for variant in self._variants:
            if variant.split():
                self._forms.append(_Form(variant, folded_edges.get(variant, (0, 0))))
                give_way()  # thousands of forms
        # where each form may start: the first characters of its text without whitespace
        self._key_chars = min((len(form.compact) for form in self._forms), default=1)
        self._key_chars = min(self._key_chars, _SCAN_KEY_CHARS)
        self._by_key: dict[str, list[int]] = {}
        for rank, form in enumerate(self._forms):
            self._by_key.setdefault(form.compact[: self._key_chars], []).append(rank)
        self._needles = _needles(self._forms, self._by_key.values())
        self._marks = frozenset().union(*(marks for _, marks, _, _ in self._needles))
        # many needles left (secrets that share no start): the forms long enough found by their
        # blocks, the others (``_short_needles``) by their needles
        self._blocks, short = _block_indexes(self._forms)
        self._short_by_key: dict[str, list[int]] = {}
        for rank in short:
            self._short_by_key.setdefault(self._forms[rank].compact[: self._key_chars], []).append(rank)
        self._short_needles = _needles(self._forms, self._short_by_key.values())
        # each variant without its whitespace (see mask_cut_edge)
        self._compact = sorted({"".join(v.split()) for v in self._variants if v.strip()}, key=len, reverse=True)
        # how far back from a text's end a start of a form may reach: enough for any reflowed form
        self._reach = 4 * len(self._compact[0]) + 16 if self._compact else 0
        self._tokens = _LookalikeTokens(self._compact)
        self._lead = max((form.lead for form in self._forms), default=0)  # a unit's characters before a form
        # every character a form holds (``_escapes_matter``): one written escaped may be part of it
        self._readable = frozenset("".join(self._variants))

    def _escapes_matter(self, values: Collection[str], css: bool) -> bool:
        """Whether escapes that decode to ``values`` may make a text spell a secret it did not:
        one stands for a character of any form of a secret (``_readable``: hex written with
        ``%3A`` for its colons too; look-alike letters read as Latin), for whitespace or nothing
        (a secret wrapped or split by an escaped line break: not in CSS, where ``\\a`` or
        ``\\A0`` inside a key is no writer's form), or for a character that opens more
        (``_OPENS_MORE``). Icon-font CSS (``\\f101``), accented letters and quotes of a JSON text
        do not: that level is not searched (decoding it cost a second search of the text)."""
        if not values:
            return False
        folded = _fold("".join(values).translate(_AS_LATIN))
        if not self._readable.isdisjoint(folded) or not _OPENS_MORE.isdisjoint(folded):
            return True
        return not css and ("" in values or len("".join(folded.split())) != len(folded))

    def __bool__(self) -> bool:
        return bool(self._forms)

    @property
    def reach(self) -> int:
        """How far back from a text's end (characters) ``pending_start`` looks for a start of a
        secret: the end of a text this long decides it."""
        return self._reach

    def redact(self, text: str) -> str:
        if not text or not self._forms:
            return text
        spans = self._spans(text)
        pieces, written = [], 0
        for start, end in spans:
            pieces += (text[written:start], REDACTED)
            written = end
        return "".join([*pieces, text[written:]]) if pieces else text

    def _spans(self, text: str) -> list[tuple[int, int]]:
        """``(start, end)`` in ``text`` of each form of a secret, in order, none overlapping: as
        written (``_found``) and with its escapes decoded (up to ``_DECODE_LEVELS`` times)."""
        spans = list(self._found(text))
        decoded_any = False
        for decoded, levels in _decodings(text, self._escapes_matter):
            decoded_any = True
            for start, end in self._found(decoded, levels[-1].vanished()):
                for back in reversed(levels):
                    start, end = back.span(start, end)
                spans.append((start, end))
        return _merged(spans) if decoded_any else spans

    def holds(self, text: str) -> bool:
        if not text or not self._forms:
            return False
        if next(self._found(text), None) is not None:
            return True
        return any(next(self._found(decoded), None) is not None for decoded, _ in _decodings(text, self._escapes_matter))

    def _found(self, text: str, stops: Collection[int] = ()) -> Iterator[tuple[int, int]]:
        """``(start, end)`` of each form found in ``text``, left to right, none overlapping the
        one before: at each place the first form of ``_variants`` (the longest first) that
        matches there, as ``re.sub`` with one alternation of every form's pattern would find
        them. That alternation cost its compile (some 3 µs a pattern character: 95 s for 500
        secrets of up to 40 characters, every form with a line break allowed at each character)
        and, on every character of a text, a try of every form (50 µs a character); here each
        form is looked for where its first ``_SCAN_KEY_CHARS`` characters stand in the text
        without whitespace, and its own pattern is tried only there, when whitespace stands
        inside the place (``_Form.matches``). ``text`` is compared folded (``_fold``): upper-cased,
        full-width or with a zero-width character inside, a secret is found all the same."""
        text = _fold(self._tokens.as_latin(text))
        give_way()  # each pass over a text of megabytes takes tens of milliseconds
        compact = _without_whitespace(text)
        give_way()
        candidates = self._candidates(compact)
        if not candidates:
            return
        layout = _Layout(text, compact)
        written = reached = 0  # the end of the place found last, in ``text`` and in ``compact``
        found: tuple[int, int] | None = None  # that place, not yielded while a form may widen it
        for number in candidates:
            give_way()  # tens of thousands of places where a form may stand
            position, rank = divmod(number, len(self._forms))
            form = self._forms[rank]
            if position + len(form.compact) <= reached:  # inside the place found before
                continue
            start = layout.index(position)
            end = layout.index(position + len(form.compact) - 1) + 1
            if not form.matches(text, start, end):
                continue
            if form.lead or form.trail:
                start, end = _unit_bounds(text, start, end, form, written, stops)
            reached = position + len(form.compact)
            if found is not None and start < written:
                # a form that overlaps the place found before widens it: two secrets that share
                # characters, or a key of a repeated character whose base64 of one alignment
                # ended a group early (``MQ==`` of ``1111111111`` was left after the marker)
                found = (found[0], max(written, end))
            else:
                if found is not None:
                    yield found
                found = (start, end)
            written = found[1]
        if found is not None:
            yield found

    def _candidates(self, compact: str) -> list[int]:
        """``position * len(_forms) + rank`` of every form whose whitespace-free text stands at
        ``position`` of ``compact``, in order (by position, then rank). First the needles holding
        a character ``compact`` lacks are left out (one ``in`` a character: ``_marks``). Few
        needles left (``_FIND_EACH_NEEDLE_MAX``): each is found with ``str.find`` (in C) and the
        forms of its group are compared where it stands; more (secrets that share no start): the
        forms long enough are found by the blocks of the text (``_BlockIndex``: one pass whatever
        their number) and only the shorter ones' needles are looked for. One int each, not a
        tuple: tens of thousands of tuples set off the garbage collector's full passes."""
        absent = {mark for mark in self._marks if mark not in compact}
        needles = [entry for entry in self._needles if absent.isdisjoint(entry[1])] if absent else self._needles
        if len(needles) <= _FIND_EACH_NEEDLE_MAX or not self._blocks:
            found = self._needle_places(compact, needles, self._by_key)
        else:
            data = compact.encode("latin-1", "replace")
            found = []
            for index in self._blocks:
                found += index.places(compact, data, self._forms)
            short = self._short_needles
            if absent:
                short = [entry for entry in short if absent.isdisjoint(entry[1])]
            found += self._needle_places(compact, short, self._short_by_key)
        found.sort()
        return found

    def _needle_places(self, compact: str, needles: list[_Needle], by_key: dict[str, list[int]]) -> list[int]:
        """``position * len(_forms) + rank`` of every form of ``needles`` (all of whose forms
        are those of ``by_key``) that stands in ``compact``, unordered: each needle found with
        ``str.find`` (up to ``_FIND_EACH_FORM_MAX`` of them), else every position's first
        characters looked up (one dictionary look-up a character, whatever the number of forms)."""
        found: list[int] = []
        ranks_count = len(self._forms)
        forms = self._forms
        if len(needles) <= _FIND_EACH_FORM_MAX:
            for needle, _, size, by_start in needles:
                give_way()  # each find reads all of ``compact``: 2 ms a needle on 5 MB
                at = compact.find(needle)
                while at >= 0:
                    ranks = by_start.get(compact[at : at + size])
                    if ranks:
                        found += (at * ranks_count + rank for rank in ranks if compact.startswith(forms[rank].compact, at))
                    at = compact.find(needle, at + 1)
                    give_way()  # a text of one repeated character holds a form at every place
        elif needles:
            size, lookup = self._key_chars, by_key.get
            for at in range(len(compact) - size + 1):
                ranks = lookup(compact[at : at + size])
                if ranks:
                    found += (at * ranks_count + rank for rank in ranks if compact.startswith(forms[rank].compact, at))
                if at & 8191 == 8191:
                    give_way()
        return found

    def unit_start(self, text: str, start: int) -> int:
        """``start`` (a place in ``text``), moved back over the characters of an encoding unit a
        form beginning there would take with it (up to the widest lead of a base64 form:
        ``_unit_bounds``): a stream holds them back until the next piece tells whether the form
        follows."""
        floor = max(0, start - self._lead)
        while start > floor and text[start - 1].lower() in _UNIT_CHARS:
            start -= 1
        return start

    def open_end(self, text: str) -> int:
        """Where in ``text`` a form of a secret found at its very end begins, else ``len(text)``:
        a streamed text goes on in the next piece, which may hold the rest of the form's last
        encoding unit (the characters of a base64 group after the key's own: ``_unit_bounds``)
        or of its last escape (the ``;`` after ``&#49``, which the whole text hides with it)."""
        spans = self._spans(text) if text and self._forms else []
        return spans[-1][0] if spans and spans[-1][1] == len(text) else len(text)

    def in_bytes(self, data: bytes) -> bool:
        """Whether ``data`` (a file's content) holds a secret as UTF-8 text (ASCII letters in
        either case)."""
        if not data:
            return False
        lowered = data.lower()
        return any(variant in lowered for variant in self._encoded)

    def pending_start(self, text: str) -> int:
        """Where in ``text`` a start of a secret that ends it begins (one character or more, not
        counting whitespace: a form of a secret may go on in the next piece of a stream), also
        with some of its characters escaped (up to ``_DECODE_LEVELS`` times), or an escape cut at
        the end (``&#4``, ``\\u00``, ``&amp;amp``: the next piece may finish it), else
        ``len(text)``. A start of a secret followed by highlighting markup the end cut
        (``<em``, ``\x1b[01;3``: ``_MARKUP``) counts as ending the text."""
        start = self._start_at_end(text, 1)
        cut = _PARTIAL_MARKUP.search(text, max(0, len(text) - _PARTIAL_MARKUP_MAX))
        if cut and (before := self._start_at_end(text[: cut.start()], 1)) < cut.start():
            start = min(start, before)
        tail_start = max(0, len(text) - self._reach)
        if not self._compact or not _ESCAPE_MARKS.search(text, tail_start):
            return start
        body, levels = text[tail_start:], []  # the tail, then decoded once more each level
        while True:
            partial = _PARTIAL_ESCAPE.search(body)  # a cut escape; decoded, ``&amp;amp`` ends in one too
            head = body[: partial.start()] if partial else body
            at = self._start_at_end(head, 1)  # a start before it, else the cut escape itself
            if _CSS_ESCAPE_MARK.search(head):  # a start with CSS escapes in it
                css = _Unescaped(head, css=True)
                css_at = self._start_at_end(css.text, 1)
                at = min(at, css.span(css_at, css_at + 1)[0]) if css_at < len(css.text) else at
            if at < len(body):
                for back in reversed(levels):
                    at = back.span(at, at + 1)[0]
                start = min(start, tail_start + at)
            if len(levels) == _DECODE_LEVELS or not _ESCAPE_MARKS.search(head):
                return start
            level = _Unescaped(head)
            if level.text == head:
                return start
            levels.append(level)
            body = level.text

    def _start_at_end(self, text: str, least: int) -> int:
        """Where in ``text`` the longest start of a form of a secret that ends it begins, counting
        ``least`` characters or more without whitespace (a start may have been reflowed or wrapped
        across lines), else ``len(text)``."""
        if not text or not self._compact:
            return len(text)
        tail_start = max(0, len(text) - self._reach)
        compact, index = _compact(_fold(self._tokens.end_as_latin(text[tail_start:])))
        longest_start = 0  # of every form of every secret, the longest start that ends the text
        for variant in self._compact:
            for size in range(min(len(variant) - 1, len(compact)), max(least, longest_start + 1) - 1, -1):
                if compact.endswith(variant[:size]):
                    longest_start = size
                    break
        return tail_start + index[len(compact) - longest_start] if longest_start else len(text)

    def spaced_after(self, start: str) -> bool:
        """Whether a form of a secret that begins with ``start`` (compared without whitespace: a
        start ``pending_start`` found) has whitespace right after it: ``start`` ends one of its
        words, not the last (a passphrase cut between two words goes on after a space)."""
        head = "".join(_fold(start).split())
        if not head:
            return False
        for form in self._forms:
            if len(form.words) > 1 and form.compact.startswith(head):
                size = 0
                for word in form.words[:-1]:
                    size += len(word)
                    if size >= len(head):
                        break
                if size == len(head):
                    return True
        return False

    def mask_cut_edge(self, text: str, *, suffix: str = "") -> str:
        """``text`` (which was cut, and ends with ``suffix``) with a trailing start of a secret
        of at least ``MIN_SECRET_EDGE`` characters (not counting whitespace) replaced by
        ``[REDACTED]``, whatever whitespace stands in it (the text may have been reflowed, or
        the secret wrapped across lines, before it was cut)."""
        body = text[: len(text) - len(suffix)] if suffix and text.endswith(suffix) else text
        cut = self._start_at_end(body, MIN_SECRET_EDGE)
        if cut == len(body):
            cut = self._escaped_start_at_end(body)
        if cut == len(body):
            return text
        return body[: self._group_start(body, cut)] + REDACTED + text[len(body) :]

    def _escaped_start_at_end(self, text: str) -> int:
        """Where in ``text`` a start of a secret that ends it begins with some of its characters
        escaped in a way no form spells (``&#x0053;&#x0045;``: the zero-padded references are
        found decoded only) of at least ``MIN_SECRET_EDGE`` characters as written (whitespace
        not counted), maybe followed by an escape the end cut (``&#x00``), else ``len(text)``.
        An escape cut at the end with no start before it is no start (``&amp`` ends many a
        text)."""
        if not text or not self._compact or not _ESCAPE_MARKS.search(text, max(0, len(text) - self._reach)):
            return len(text)
        partial = _PARTIAL_ESCAPE.search(text, max(0, len(text) - _PARTIAL_ESCAPE_MAX))
        head = text[: partial.start()] if partial else text
        start = self.pending_start(head)
        if start == len(head) or len("".join(head[start:].split())) < MIN_SECRET_EDGE:
            return len(text)
        return start

    def _group_start(self, text: str, start: int) -> int:
        """``start`` (where a start of a base64 form ends ``text``) moved back over the characters
        before it in its first group (``_Form.lead``, base64 characters only): they hold some of
        the secret's first bits (``I0`` was left before the marker at a cut edge)."""
        head = "".join(_fold(text[start:]).split())
        lead = max((form.lead for form in self._forms if form.lead and form.compact.startswith(head)), default=0)
        for _ in range(lead):
            if start == 0 or text[start - 1].lower() not in _UNIT_CHARS:
                break
            start -= 1
        return start

    def mask_continued_head(self, previous: str, text: str) -> str:
        """``text``, the continuation of ``previous`` (a reply the output limit cut), with its
        start replaced by ``[REDACTED]`` when that start finishes a secret ``previous`` ended
        inside: the rest of a key whose start the cut reply's logs hid (``mask_cut_edge``), also
        when the space between two words of the secret fell at the cut or ``text`` begins with
        whitespace the secret has not there. The whole of ``text``
        is hidden when it only goes on with that start, not finishing it (the limit cut the
        continuation too, inside the same secret), and the start so made has at least
        ``MIN_SECRET_EDGE`` characters, not counting whitespace."""
        if not previous or not text or not self._forms:
            return text
        reach = self._reach
        tail = previous[-reach:]
        # the parts as they came, without the whitespace the continuation begins with (the chat
        # drops it where the parts make a secret: loop._secret_across), and with a space between
        # (the readers drop the whitespace a reply begins or ends with: a passphrase cut between
        # two words lost the space there)
        body = text.lstrip()
        for part in (text, body) if body and body != text else (text,):
            spaced = not tail[-1:].isspace() and not part[:1].isspace()
            for joint in ("", " ") if spaced else ("",):
                for start, end in self._spans(tail + joint + part[:reach]):  # escaped too (``&#x0053;``)
                    if start < len(tail) and end > len(tail) + len(joint):
                        return REDACTED + part[end - len(tail) - len(joint) :]
        if text.strip() and len(text) <= reach:  # all of it may be inside one start
            joined = tail + text
            start = self.pending_start(joined)
            if start < len(tail) and len("".join(joined[start:].split())) >= MIN_SECRET_EDGE:
                return REDACTED
        return text
