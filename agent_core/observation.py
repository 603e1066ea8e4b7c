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
text                 appended as is; a run of text that is one JSON  no (the answer reaches the
                     document has its ``\\uXXXX`` escapes of         user through the model)
                     printable non-ASCII written out (agno#8635);
                     with ``separate_texts`` (an MCP tool) each
                     text message on its own line
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
(`agent_core.errors`); an HTML page in it (a proxy's 502) is told by its title
(letta-code#290). `full_text` keeps the complete error text.

Bounding: a long inline ``data:...;base64,`` URI (a picture inside an MCP tool's JSON,
dify#22618) keeps its type and loses its payload to a note of its size (`agent_core.data_uri`);
then the observation is cut to `max_tokens` (estimated by `agent_core.tokens`), keeping
the head and a short tail, with a note giving the number of tokens cut (smolagents#2164).
`full_text` keeps everything up to `FULL_TEXT_MAX_CHARS` characters (text past that is not even
stored, so a runaway tool cannot exhaust memory). An empty result becomes a note, never an empty
string (providers reject empty tool messages: dify#27440).

Secrets: a secret never leaves the tool call (its forms are found by `agent_core.redaction`).
Values in `secrets` (at least `redaction.MIN_SECRET_LENGTH` characters; also in their JSON-escaped
and URL-encoded forms, and whatever whitespace stands between their words) are replaced by
``[REDACTED]`` in the observation, `full_text`, `error` and the variables, always on the raw text,
before anything is cut, unwrapped or reflowed; a cut that leaves the start of a secret
(`redaction.MIN_SECRET_EDGE` characters or more) at its edge hides it too. Forwarded messages are
checked as well: a link, image or file whose address or name holds a secret, or a file whose
content does, is withheld (the observation, and so the ``CALL`` log node, says so and why, without
the secret); any other forwarded message (retriever resources) goes on with its text redacted.

The model-facing wording is in the block of constants below (to move into
``agent_core/prompts.py``).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import html
import json
import re
import urllib.parse
import uuid
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import urlsplit

from dify_plugin.entities.agent import AgentInvokeMessage
from dify_plugin.entities.invoke_message import InvokeMessage
from dify_plugin.entities.tool import ToolInvokeMessage
from pydantic import BaseModel, ValidationError

from agent_core import data_uri, json_args
from agent_core.errors import error_object_at, last_traceback, without_tracebacks
from agent_core.file_fetch import is_fetchable_url, url_name
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
    RESULT_LINK,
    RESULT_LINK_FORWARDED,
    RESULT_TAIL_NOTE,
    TOOL_FAILED,
    WITHHELD,
    WITHHELD_CONTENT,
    WITHHELD_TOO_LARGE,
)
from agent_core.redaction import _Secrets
from agent_core.tokens import TOKENS_PER_CHAR_MAX, estimate_tokens, truncate_to_tokens

__all__ = ["ObservationCollector", "ToolOutcome"]

# log-only wording (read by people in the agent log, not by the model)
FULL_TEXT_CUT = "\n[... the result was longer than {limit} characters; {dropped} more characters were not kept]"
FULL_TEXT_ERROR = "[error] {error}"
FULL_TEXT_VARIABLE = "[variable {name}] {value}"

# --- limits --------------------------------------------------------------------------------------

FULL_TEXT_MAX_CHARS = 1_000_000
"""Characters of tool output kept for the log; the rest is counted, not stored. Notes (a file
sent, withheld or incomplete) are kept past it, up to `LATE_NOTES_MAX` of them."""
LATE_NOTES_MAX = 100
TAIL_KEPT_CHARS = 16_000
"""Characters kept of the end of a result longer than `FULL_TEXT_MAX_CHARS`, read by the model
after its head (from its first whole line): a multi-megabyte log ends with its error or exit
status (charmbracelet/crush PR #3602 keeps a head and a tail for this reason)."""
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

_MessageType = InvokeMessage.MessageType
_GENERIC_ERROR_TYPES = frozenset({"Exception", "BaseException"})
_ERROR_PREFIX = re.compile(r"(?:^|\s)[A-Za-z_][\w.]*(?:Error|Exception):?$")
# an HTML error page in an error's text (a proxy's 502 page), its title and its end
_HTML_PAGE = re.compile(r"<!doctype\s+html|<html[\s>]", re.IGNORECASE)
_HTML_TITLE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_HTML_END = re.compile(r"</html\s*>", re.IGNORECASE)
_HTML_BODY = re.compile(r"<(?:head|body|title)[\s>]", re.IGNORECASE)
# a JSON \uXXXX escape (after its run of backslashes), and a surrogate pair of them
_U_PAIR = re.compile(r"(?<!\\)(\\+)u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})", re.IGNORECASE)
_U_ONE = re.compile(r"(?<!\\)(\\+)u([0-9a-f]{4})", re.IGNORECASE)
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
        separate_texts: each text message is a whole block, read on its own line (an MCP tool:
            Dify's ``MCPTool._invoke`` yields one text message per content block); by default
            text messages are pieces of one text, joined as they came.

    Never raises from `add`, `fail` or `finish`, whatever the tool sends.
    """

    def __init__(
        self,
        tool_name: str,
        *,
        max_tokens: int = 4000,
        secrets: Collection[str] | _Secrets = (),
        separate_texts: bool = False,
    ) -> None:
        self._tool = tool_name
        self._separate_texts = separate_texts
        self._max_tokens = max_tokens
        self._secrets = secrets if isinstance(secrets, _Secrets) else _Secrets(secrets)
        self._redact = self._secrets.redact
        self._parts: list[_Part] = []
        self._stored_chars = 0
        self._dropped_chars = 0
        self._dropped_tokens = 0
        self._tail = ""  # the last TAIL_KEPT_CHARS characters of what was not stored
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
        full_error = self._error[1] if self._error else None
        if error is not None and body:  # one result: a key its output began and its error goes on with
            full_error = self._secrets.mask_split(body, full_error)[1]
            body, error = self._secrets.mask_split(body, error)
        observation, cut = self._bounded(data_uri.shorten(body + self._tail_section()), error)
        return ToolOutcome(
            observation=observation,
            full_text=self._full_text(body, full_error),
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
            self._store_text(payload["text"])  # the usual message, read without a model
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
            self._store_text(text)
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
        # a tool's own agent log is not the model's to read; one with no log in it (the SDK's
        # model takes ``message: null``) is named as any other unreadable message, not skipped unsaid
        if not isinstance(message.message, InvokeMessage.LogMessage):
            self._invalid_message(_payload_fault(message.type.value, message.message))
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
            self._tail = (self._tail + dropped[-TAIL_KEPT_CHARS:])[-TAIL_KEPT_CHARS:]
            if room <= 0:
                return
            part = _Part(part.kind if part.kind != "json" else "text", self._secrets.mask_cut_edge(part.text[:room]))
        self._stored_chars += len(part.text)
        self._parts.append(part)

    def _store_text(self, text: str) -> None:
        """A text message: a piece of the text, or a block on its own line (``separate_texts``)."""
        if self._separate_texts and text and self._parts:
            last = self._parts[-1]
            if last.kind == "text" and last.text and not last.text.endswith("\n") and not text.startswith("\n"):
                self._store(_Part("text", "\n"))
        self._store(_Part("text", text))

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
        parts = _readable_json_texts(_without_duplicate_json(self._parts, self._redact))
        if len(parts) > 2:
            parts = self._texts_split_across(parts)
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

    def _texts_split_across(self, parts: list[_Part]) -> list[_Part]:
        """``parts`` with a secret split between two text parts that a note or JSON stands
        between (a link, a JSON message) hidden in both (``_Secrets.mask_split``): the result's
        texts are one text, and joined they would show the key whole; the lines between kept
        them apart from the search of the whole body."""
        out, last = list(parts), None
        for n, part in enumerate(out):
            if part.kind != "text" or not part.text.strip():
                continue
            if last is not None and last < n - 1:
                before, after = self._secrets.mask_split(out[last].text, part.text, alone=False)
                if before != out[last].text:
                    out[last], out[n] = replace(out[last], text=before), replace(part, text=after)
            last = n
        return out

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

    def _tail_section(self) -> str:
        """The last lines of a result longer than `FULL_TEXT_MAX_CHARS` (from the first line the
        kept tail holds whole, secrets redacted) after a note, or '' (nothing was left out, or
        the tail holds no line break: one endless line has no last lines to read)."""
        start = self._tail.find("\n") + 1
        tail = self._redact(self._tail[start:]).strip("\n") if start else ""
        if not tail.strip():
            return ""
        return "\n" + RESULT_TAIL_NOTE.format(dropped=self._dropped_chars - len(tail)) + "\n" + tail

    def _full_text(self, body: str, full_error: str | None) -> str:
        text = body if body.strip() else NO_OUTPUT.format(tool=self._tool)
        if self._dropped_chars:
            text += FULL_TEXT_CUT.format(limit=FULL_TEXT_MAX_CHARS, dropped=self._dropped_chars)
        extras = []
        if full_error is not None:
            full = _cap(full_error, FULL_TEXT_MAX_CHARS)
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


def _readable_json_texts(parts: list[_Part]) -> list[_Part]:
    """Each run of text parts that is one JSON document written with ``\\uXXXX`` escapes for
    non-ASCII characters (Python's ``json.dumps`` default) with those characters written out,
    so the model reads ``中文`` and not ``\\u4e2d\\u6587`` (agno-agi/agno#8635, langgenius/dify#5010:
    web-search and workflow tools). Layout, other escapes and the value are kept; a text that is
    not JSON, or would read back differently, is left as it came. Runs once per call, at the end.
    """
    if not any(p.kind == "text" and "\\u" in p.text for p in parts):
        return parts
    out: list[_Part] = []
    run: list[_Part] = []
    for part in [*parts, None]:
        if part is not None and part.kind == "text":
            run.append(part)
            continue
        if run:
            whole = "".join(p.text for p in run)
            readable = _unescaped_json(whole) if "\\u" in whole else None
            out.extend([_Part("text", readable)] if readable is not None else run)
            run = []
        if part is not None:
            out.append(part)
    return out


def _unescaped_json(text: str) -> str | None:
    """`text` with its JSON ``\\uXXXX`` escapes of printable non-ASCII characters written out,
    or None when `text` is not JSON, nothing changed, or the result would not read back to the
    same value."""
    ok, value = _parse_json(text)
    if not ok:
        return None

    def pair(match: re.Match) -> str:
        slashes = match.group(1)
        if len(slashes) % 2 == 0:  # an escaped backslash, then the letters "u...."
            return match.group(0)
        high, low = int(match.group(2), 16), int(match.group(3), 16)
        char = chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        return slashes[:-1] + char if char.isprintable() else match.group(0)

    def one(match: re.Match) -> str:
        slashes, code = match.group(1), int(match.group(2), 16)
        if len(slashes) % 2 == 0 or code < 0xA0 or 0xD800 <= code < 0xE000:
            return match.group(0)
        char = chr(code)
        return slashes[:-1] + char if char.isprintable() else match.group(0)

    readable = _U_ONE.sub(one, _U_PAIR.sub(pair, text))
    if readable == text:
        return None
    again_ok, again = _parse_json(readable)
    return readable if again_ok and _json_equal(again, value) else None


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
    text = _without_html_page(text)
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


def _without_html_page(text: str) -> str:
    """`text` with an HTML page in it (a proxy's or server's error page, e.g. Cloudflare's 502:
    letta-ai/letta-code#290) replaced by ``(an HTML page: <its title>)``; the status and words
    around it are kept. `text` itself when it holds no page."""
    if "<" not in text:
        return text
    start = _HTML_PAGE.search(text)
    if start is None:
        return text
    end = _HTML_END.search(text, start.end())
    if end is None and _HTML_BODY.search(text, start.end()) is None:
        return text  # "<html>" named in a message, no page after it
    stop = end.end() if end else len(text)
    title = _HTML_TITLE.search(text, start.start(), stop)
    label = " ".join(html.unescape(title.group(1)).split()) if title else ""
    page = f"(an HTML page: {label})" if label else "(an HTML page)"
    return f"{text[: start.start()]}{page}{text[stop:]}"


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
