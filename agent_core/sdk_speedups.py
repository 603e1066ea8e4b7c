"""Six changes to how the SDK reads and writes the daemon's lines, made once at start-up
(``main.py``). None changes a byte on the wire; each was measured (``python -m bench overhead``
and ``sdk_lines``, bench/README.md).

**Reading.** The SDK parses every line the daemon sends with ``TypeAdapter(dict[str, Any]).validate_json``
and builds that ``TypeAdapter`` anew for each line (dify_plugin 0.10.2:
``core/server/stdio/request_reader.py``, ``core/server/tcp/request_reader.py`` and the
serverless reader in ``core/runtime.py``). Building one generates a pydantic core schema and
looks up pydantic plugins in the environment each time: in a profiled run (py-spy on
``python -m bench overhead``) it was 18 % of the plugin's CPU, paid for every streamed model
chunk and every tool message.

``share_type_adapters()`` gives those modules a ``TypeAdapter`` that returns one shared adapter
per type. A ``TypeAdapter`` holds no per-call state, so what each line parses to is unchanged;
a module that no longer uses the name is left as it is, so an SDK upgrade cannot break on it.
The shared adapter also reads a line nested deeper than pydantic-core's parser goes, which the
SDK would drop (``DeepJsonTypeAdapter``).

**Writing.** ``ResponseWriter.put`` (``core/server/__base/response_writer.py``), which sends every
message the plugin yields, dumps the message to a dict, validates that dict again into a
``StreamOutputMessage`` only to dump it to JSON, and writes the line in two flushed writes
(the JSON, then ``"\\n\\n"``). ``write_lines_once()`` replaces it with one that serializes the
message straight to JSON (``pydantic_core.to_json`` with the settings ``model_dump_json``
uses; the ``SessionMessage`` around each message as the dict of its two fields, and enum
members as their values, which the encoder would otherwise read through Python) and
writes the line at once: the same bytes, one system call instead of two, and no second
validation of the message.

**Writing together.** The stdio writer (``StdioResponseWriter.write``) writes and flushes each
line at once: a round of a run writes eight lines (its log nodes, the model's and the tool's
requests) in three stretches of work with no wait between their lines, and each system call that
wakes the daemon's reader costs the plugin some 20 µs of CPU. ``write_lines_together()`` keeps
the lines a greenlet writes until it next waits (the hub's next pass), then writes them in one
call: the same bytes in the same order, a few microseconds later.

**Dumping.** ``ResponseWriter.stream_object``, which wraps each message a strategy yields,
dumps it with ``model_dump()``: enum members stay enum members, so the line's encoder then
meets a ``LogMetadata`` key in every log message's metadata, and pydantic-core encodes an enum
key through Python, some 15 µs a log line. ``dump_messages_as_json()`` makes it dump with
``model_dump(mode="json")``: the same JSON, with plain strings and numbers in the dict. A plain
text message (a streamed piece of the answer: one per model chunk) is written as its known dict
without a dump at all, and a log message (six a round) as a dict of its fields; the
``SessionMessage`` around each is built from that dict without validating it again.

**Waiting.** The stdio reader hands every read of stdin to a thread of gevent's pool;
``read_stdin_nonblocking()`` waits for stdin on the gevent hub instead, and gives way to the other
sessions between two reads of a burst.

**Large lines.** pydantic-core parses a line in C without giving way, and the stdio reader parses
the lines of every session one after the other: a tool's JSON message of 5.4 MB (125,000 records)
held every other session's lines 140-450 ms. The shared adapter reads a line of
``LARGE_LINE_BYTES`` or more with ``json_pieces.loads`` (the same value, giving way between
pieces), and ``read_large_lines_aside()`` parses such a line in a greenlet of its own, so the
lines of the other sessions behind it in the pipe are handed on meanwhile (its own session's
after it, in order).

**Other transports.** Remote debugging's TCP reader (``read_tcp_lines_safely``) and the serverless
``/invoke`` handler (``run_serverless_requests_once``) get the stdio reader's guards where their
shape allows: a session's request is run once, an unreadable line is named without its text, a
long line is joined once, a large line is parsed aside on TCP as on stdio, and a lost TCP connection neither leaves the runs' calls waiting nor
spins (docs/architecture.md, "Transports").
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import functools
import importlib
import json
import logging
import os
import re
import stat
import sys
import time
from collections import deque
from enum import Enum
from io import BytesIO
from typing import Any

import gevent
from gevent import getcurrent, monkey
from gevent.hub import get_hub
from gevent.os import make_nonblocking
from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import from_json, to_json

from agent_core import arrivals, json_pieces
from agent_core.fairness import give_way
from agent_core.json_args import without_lone_surrogates
from agent_core.unvalidated import built, checks_nothing
from agent_core.waiting import connection_lost, end_of_input

logger = logging.getLogger(__name__)

READER_MODULES = (
    "dify_plugin.core.server.stdio.request_reader",
    "dify_plugin.core.server.tcp.request_reader",
    "dify_plugin.core.runtime",
)
"""The SDK modules that build a ``TypeAdapter`` for each line they read."""


@functools.cache
class DeepJsonTypeAdapter(TypeAdapter[Any]):
    """A ``TypeAdapter`` whose ``validate_json`` also reads JSON nested deeper than
    pydantic-core's parser goes (about 254 levels: "recursion limit exceeded").

    The SDK's readers answer such a line with a session-less error event and drop it: a tool
    result nested that deep would never reach the strategy, and its call would wait for an end
    that was dropped with it. Here the line is parsed again with Python's ``json`` module (no
    such limit below the interpreter's recursion limit) and the result validated as usual;
    every other error is raised as it was.

    So is a line holding a lone surrogate escape (``"\\ud800"``: half of a character, as a
    Python harness's ``json.dumps`` writes a broken string of a tool or a model), which
    pydantic-core refuses too: the line (a model chunk with its tool calls, a tool message) would
    be dropped without a word. It is read with each lone surrogate as U+FFFD, the character Go's
    decoder (the daemon's) gives it, so no text the strategy writes on holds one.

    So is a line holding bytes that are not UTF-8 (pydantic-core: "invalid unicode code point"):
    one model chunk of a reply (a piece of its answer) or one tool message would be dropped and the
    rest of the stream read on, the answer silently missing a piece. It is read with U+FFFD for
    each invalid sequence, as Go's decoder reads such bytes (the daemon's encoder never writes them).
    """

    def validate_json(self, data: Any, /, *args: Any, **kwargs: Any) -> Any:
        if not args and not kwargs and (value := _read_in_pieces(self._type, data)) is not None:
            return self.validate_python(value)
        try:
            return super().validate_json(data, *args, **kwargs)
        except ValidationError as error:
            if args or kwargs or not _python_reads(error):
                raise
            try:
                text = data.decode("utf-8", "replace") if isinstance(data, bytes | bytearray) else data
                value = without_lone_surrogates(json.loads(text))
            except (ValueError, RecursionError):
                raise error from None
            return self.validate_python(value)


LARGE_LINE_BYTES = 262_144
"""A line the readers parse in pieces (``_read_in_pieces``) from this many bytes on."""

PIECES_MIN_COMMAS = 10_000
"""Commas a large line holds at least for ``_read_in_pieces`` to read it: fewer, it holds few
values (a text of megabytes: pydantic-core reads 5 MB of one string in half a millisecond,
``json_pieces`` in 20), and pydantic-core reads it at once."""

_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def _read_in_pieces(type_: Any, data: Any) -> dict[str, Any] | None:
    """A line of ``LARGE_LINE_BYTES`` or more read by ``json_pieces.loads``, which gives way to
    the other sessions between the items of its containers: pydantic-core parses in C with the
    lock held, and a tool's JSON message of 5.4 MB (125,000 records) held every other session of
    the process 140-350 ms. ``None`` (the line then read as the SDK reads it) for a smaller line,
    one of fewer than ``PIECES_MIN_COMMAS`` commas, an adapter of another type than the readers' ``dict[str, Any]``, a line with a surrogate
    escape (pydantic-core refuses a lone one, which ``DeepJsonTypeAdapter`` reads its own way),
    and for any line ``json.loads`` would not read as an object (so its error is pydantic's, as
    before). A line both read gives the same value (``tests/unit/test_json_pieces.py`` compares
    them)."""
    if type_ != dict[str, Any] or not isinstance(data, bytes | bytearray) or len(data) < LARGE_LINE_BYTES:
        return None
    if data.count(b",") < PIECES_MIN_COMMAS or _SURROGATE_ESCAPE.search(data):
        return None
    try:
        value = json_pieces.loads(data.decode())
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return None
    return value if type(value) is dict else None


def _python_reads(error: ValidationError) -> bool:
    """Whether ``error`` is one of pydantic-core's JSON parser that Python's ``json`` does not
    share: nesting past its recursion limit, a lone surrogate escape, bytes that are not UTF-8 (read
    with U+FFFD)."""
    return any(item["type"] == "json_invalid" and ("recursion limit" in item["msg"] or "surrogate" in item["msg"]
                                                   or "end of hex escape" in item["msg"]
                                                   or "invalid unicode code point" in item["msg"])
               for item in error.errors())


def _shared(type_: Any) -> TypeAdapter[Any]:
    return DeepJsonTypeAdapter(type_)


def shared_type_adapter(type_: Any, *args: Any, **kwargs: Any) -> TypeAdapter[Any]:
    """``TypeAdapter(type_)``, built once per type and reused.

    With any other argument (``config``, ``module``...) or an unhashable type it builds a new
    adapter, exactly as ``TypeAdapter`` does.
    """
    if args or kwargs:
        return TypeAdapter(type_, *args, **kwargs)
    try:
        return _shared(type_)
    except TypeError:  # unhashable type
        return TypeAdapter(type_)


def share_type_adapters(modules: tuple[str, ...] = READER_MODULES) -> list[str]:
    """Point each module's ``TypeAdapter`` at ``shared_type_adapter``; returns the modules
    changed (a module that is missing or does not use ``TypeAdapter`` is skipped)."""
    changed = []
    for name in modules:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if getattr(module, "TypeAdapter", None) is TypeAdapter:
            module.TypeAdapter = shared_type_adapter  # type: ignore[attr-defined]
            changed.append(name)
    return changed


_SERIALIZED_AS_THEY_ARE: tuple[type[BaseModel], ...] = ()
"""Models ``put_line_once`` writes as the dict of their fields, without a dump (set by
``write_lines_once``): the SDK's ``SessionMessage``, which wraps every message a strategy
yields, when its fields are ``type`` and ``data`` and it has no serializer of its own (its JSON
is then the JSON of that dict, its ``type`` as the member's value)."""


def _is_the_sdks_own(cls: type, name: str) -> bool:
    """Whether ``cls`` defines ``name`` itself, in the SDK module that defines ``cls`` (not yet
    replaced here, not moved by an SDK upgrade)."""
    method = cls.__dict__.get(name)
    return method is not None and getattr(method, "__module__", None) == cls.__module__


def put_line_once(self: Any, event: Any, session_id: str | None = None, data: Any = None) -> None:
    """``ResponseWriter.put`` writing the same line in one ``write`` (see the module text)."""
    if type(data) in _SERIALIZED_AS_THEY_ARE:  # its JSON is its fields' (a dict is encoded without a model walk)
        kind = data.type
        data = {"type": kind._value_ if isinstance(kind, Enum) else kind, "data": data.data}
    elif isinstance(data, BaseModel):
        data = data.model_dump()
    if isinstance(event, Enum):  # the encoder would read the member's value through Python
        event = event._value_
    line = to_json({"event": event, "session_id": session_id, "data": data}, inf_nan_mode="null")
    self.write(line.decode() + "\n\n")


def write_lines_once() -> bool:
    """Make the SDK's ``ResponseWriter.put`` write each message as one line in one ``write``.

    Returns ``False`` and changes nothing when the SDK's writer is not the one this was written
    against (``put`` already replaced or moved, or ``StreamOutputMessage`` with other fields),
    so an SDK upgrade falls back to its own writer.
    """
    try:
        from dify_plugin.core.server.__base.response_writer import ResponseWriter
        from dify_plugin.core.server.__base.writer_entities import StreamOutputMessage
    except ImportError:
        return False
    if not _is_the_sdks_own(ResponseWriter, "put"):
        return False
    if list(StreamOutputMessage.model_fields) != ["event", "session_id", "data"]:
        return False
    global _SERIALIZED_AS_THEY_ARE
    _SERIALIZED_AS_THEY_ARE = _plain_models()
    ResponseWriter.put = put_line_once  # type: ignore[method-assign]
    return True


def _plain_models() -> tuple[type[BaseModel], ...]:
    """``(SessionMessage,)`` when its JSON is the JSON of its two fields ``type`` and ``data``:
    no other field, no serializer of its own and no settings of its own; else ``()``."""
    try:
        from dify_plugin.core.entities.message import SessionMessage
    except ImportError:
        return ()
    decorators = SessionMessage.__pydantic_decorators__
    plain = (
        list(SessionMessage.model_fields) == ["type", "data"]
        and not decorators.field_serializers
        and not decorators.model_serializers
        and not decorators.computed_fields
        and not SessionMessage.model_config
    )
    return (SessionMessage,) if plain else ()


def stream_object_as_json(self: Any, data: Any) -> Any:
    """``ResponseWriter.stream_object`` dumping a message in JSON mode (see the module text)."""
    session_message, message_class = _message_classes()
    if type(data) is not message_class:
        if not isinstance(data, BaseModel):  # the caller's own dict (or anything else): validated, as the SDK does
            return session_message(type=session_message.Type.STREAM, data=data)
        data = data.model_dump(mode="json")
    elif type(data.message) is message_class.LogMessage:  # six a round: the log tree
        # the dict whose JSON is its model_dump(mode="json")'s: the fields as they are
        # (pydantic-core encodes the values in the line alike), the status and metadata keys as strings
        log = data.message
        metadata = log.metadata
        if metadata is not None:
            texts = _metadata_keys()
            metadata = {texts[key] if key in texts else getattr(key, "value", key): value for key, value in metadata.items()}
        data = {
            "type": data.type._value_,
            "message": {
                "id": log.id, "label": log.label, "parent_id": log.parent_id, "error": log.error,
                "status": log.status._value_, "data": log.data, "metadata": metadata,
            },
            "meta": data.meta,
        }
    elif (  # a streamed piece of the answer, without meta: its JSON dump is known (one a chunk)
        data.type is message_class.MessageType.TEXT and data.meta is None
        and type(data.message) is message_class.TextMessage and type(data.message.text) is str
    ):
        data = {"type": "text", "message": {"text": data.message.text}, "meta": None}
    else:
        data = data.model_dump(mode="json")
    if _session_message_checks_nothing():  # a dict made here: validation would only copy it
        line = _new(session_message)  # as unvalidated.built makes it (inline: every line)
        _set(line, "__dict__", {"type": session_message.Type.STREAM, "data": data})
        _set(line, "__pydantic_fields_set__", {"type", "data"})
        _set(line, "__pydantic_extra__", None)
        _set(line, "__pydantic_private__", None)
        return line
    return session_message(type=session_message.Type.STREAM, data=data)


def stream_invoke_object_unvalidated(self: Any, data: Any) -> Any:
    """``ResponseWriter.stream_invoke_object`` (the ``SessionMessage`` around each backwards call's
    request, two a round) built from the SDK's own dict without validating it (see
    ``stream_object_as_json``); anything else as the SDK does."""
    session_message, _ = _message_classes()
    if type(data) is dict and _session_message_checks_nothing():
        return built(session_message, {"type": session_message.Type.INVOKE, "data": data}, {"type", "data"})
    if isinstance(data, BaseModel):
        data = data.model_dump()
    return session_message(type=session_message.Type.INVOKE, data=data)


@functools.cache
def _session_message_checks_nothing() -> bool:
    """Whether the SDK's ``SessionMessage`` is built without validation from a dict
    (``unvalidated.checks_nothing``: dify_plugin 0.10.2's, its ``data`` a plain ``dict``, which
    validation would only copy)."""
    session_message, _ = _message_classes()
    return checks_nothing(session_message, ("type", "data")) and session_message.model_fields["data"].annotation is dict


@functools.cache
def _metadata_keys() -> dict[Any, str]:
    """Each ``LogMetadata`` member's string (its ``value``; a dict lookup instead of the enum's
    ``value`` property, six a finished log line)."""
    from dify_plugin.entities.provider_config import LogMetadata

    return {key: key.value for key in LogMetadata}


_new = object.__new__
_set = object.__setattr__


@functools.cache
def _message_classes() -> tuple[Any, Any]:
    """The SDK's ``SessionMessage`` and ``AgentInvokeMessage``, imported once (not on every
    message, as an import statement in ``stream_object_as_json`` would)."""
    from dify_plugin.core.entities.message import SessionMessage
    from dify_plugin.entities.agent import AgentInvokeMessage

    return SessionMessage, AgentInvokeMessage


def dump_messages_as_json() -> bool:
    """Make the SDK's ``ResponseWriter.stream_object`` dump each message in JSON mode.

    The JSON written is the same (the SDK encodes the dict with pydantic-core either way, and
    ``tests/unit/test_sdk_speedups.py`` compares the lines for every kind of message). Returns
    ``False`` and changes nothing when ``stream_object`` is not the SDK's own (already replaced,
    or moved by an upgrade).
    """
    return _on_the_writer("stream_object", stream_object_as_json)


def wrap_requests_unvalidated() -> bool:
    """Make the SDK's ``ResponseWriter.stream_invoke_object`` wrap a backwards call's request
    (its own dict) in a ``SessionMessage`` without validating it again
    (``stream_invoke_object_unvalidated``: the same line). Returns ``False`` and changes nothing
    when ``stream_invoke_object`` is not the SDK's own."""
    return _on_the_writer("stream_invoke_object", stream_invoke_object_unvalidated)


def _on_the_writer(name: str, replacement: Any) -> bool:
    """Set the SDK's ``ResponseWriter.<name>`` to ``replacement``; ``False`` and nothing changed
    when the SDK has no such writer, or ``name`` is not its own (already replaced, or moved by an
    upgrade)."""
    try:
        from dify_plugin.core.server.__base.response_writer import ResponseWriter
    except ImportError:
        return False
    if not _is_the_sdks_own(ResponseWriter, name):
        return False
    setattr(ResponseWriter, name, replacement)
    return True


STDIN_CLOSED = (
    "the daemon closed the plugin's stdin: no request or reply can come any more, so the plugin exits "
    "(runs in progress end with it)"
)
"""What the plugin writes to stderr (the daemon keeps it in its log) when stdin ends."""


END_OF_INPUT_GRACE = 2.0
"""Seconds the plugin lives on once stdin ended: the lines read before the end are handed on, and
each backwards call still waiting fails at its next poll (once a second) so its run ends with
that error, written before the process exits."""


def leave_at_end_of_input() -> None:
    """What the stdin reader does at the end of its input, in the reader's greenlet: note it
    (``waiting.end_of_input``: every backwards call fails at its next poll, with a clear error),
    exit the process ``END_OF_INPUT_GRACE`` seconds later (``exit_at_end_of_input``), and never
    return (the reader has nothing more to read; the SDK's loop would ask again at once).

    The SDK's reader asks for more after end of file for ever, at full speed (``tp_read`` returns
    at once): a plugin whose daemon closed its pipe spun at 100 % CPU, and every backwards call of
    its runs waited for a reply that could no longer come, up to the SDK's invocation limit."""
    end_of_input()
    gevent.spawn_later(END_OF_INPUT_GRACE, exit_at_end_of_input)
    while True:
        gevent.sleep(3600)


def exit_at_end_of_input(why: str = STDIN_CLOSED) -> None:
    """End the process: write what ``write_at_next_pass`` kept, say ``why`` on stderr
    (``STDIN_CLOSED``, ``STDOUT_CLOSED``), and exit with code 0. Nothing can reach the plugin any more, so it leaves,
    as the SDK leaves when its parent is gone (``os._exit`` in its parent check: the SDK's threads
    never end on their own)."""
    with contextlib.suppress(OSError, ValueError):  # the daemon may no longer read stdout either
        flush_pending()
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(why + "\n")
        sys.stderr.flush()
    os._exit(0)


def read_stdin_nonblocking() -> bool:
    """Make the SDK's stdio reader wait for the daemon's lines on the gevent hub instead of in
    a thread of gevent's thread pool.

    ``StdioRequestReader._read_async`` (dify_plugin 0.10.2 ``core/server/stdio/request_reader.py``)
    reads stdin with ``gevent.os.tp_read``: every read, one per line the daemon sends when lines
    come one at a time (a streamed model chunk), is handed to a pool thread and its result back
    to the hub. Here stdin is put in non-blocking mode and read at once, waiting when it is empty
    on one I/O watcher of the hub kept for the process's life, as gevent's sockets wait
    (``gevent.os.nb_read`` makes and closes a watcher, two system calls more, for every wait:
    one a streamed chunk): the same bytes, in the same order.

    A read that finds data does not wait, so while the daemon writes faster than the SDK parses
    (a model reply of 100,000 chunks, a tool's 20,000 messages: Go writes a line in a microsecond
    or two, the SDK parses one in some 10) the reader would read, parse and queue every line of the
    burst without the hub running once: measured 0.7 s for 60,000 lines and 3.2 s for 100,000 in
    which no other session's line was handled, no text written and no heartbeat sent (the SDK's own
    reader waits on a pool thread at every read, which gives way). So each read first gives way
    when the reader has worked for its slice (``fairness.give_way``: one clock read, 76 ns; at most
    one 64 KiB block of lines between two looks at the clock; other greenlets then waited 25 ms).

    At the end of stdin (the daemon closed the pipe) the runs' waiting calls fail and the process
    exits (``leave_at_end_of_input``).

    Applied only when stdin is a pipe opened read-only (how the daemon starts a local plugin),
    so that no other stream shares its non-blocking flag; returns whether it was applied.
    ``main.py`` calls it only for a local install: the remote-debug and serverless readers do
    not read stdin, and a plugin started by hand must leave its shell's stdin as it was.
    """
    try:
        from dify_plugin.core.server.stdio.request_reader import StdioRequestReader
    except ImportError:
        return False
    if not _is_the_sdks_own(StdioRequestReader, "_read_async"):
        return False
    try:
        fd = sys.stdin.fileno()
        if not stat.S_ISFIFO(os.fstat(fd).st_mode) or fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE != os.O_RDONLY:
            return False
    except (AttributeError, OSError, ValueError):
        return False
    make_nonblocking(fd)
    readable: list[Any] = []  # one I/O watcher for the process's life, made on the first wait

    def _read_async(self: Any) -> bytes:
        give_way()  # the lines of the last block were queued: let their sessions (and the others) run
        while True:
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:  # nothing yet: wait on the hub until the pipe is readable
                if not readable:
                    readable.append(get_hub().loop.io(fd, 1))
                get_hub().wait(readable[0])
                continue
            if not data:  # end of file: the daemon closed the pipe (the SDK's loop would ask again at once)
                leave_at_end_of_input()
            return data

    StdioRequestReader._read_async = _read_async  # type: ignore[method-assign]
    return True


class _Poll(BaseException):
    """Thrown by a backwards call's poll timer into the greenlet waiting for the call's next line
    (``read_replies_with_one_timer``). A BaseException, as ``gevent.Timeout`` is, so that no
    ``except Exception`` between the wait and the reader takes it."""


def _throw(greenlet: Any, error: BaseException) -> None:
    greenlet.throw(error)


def read_polling_with_one_timer(self: Any, timeout_for_round: float | None = None) -> Any:
    """``FilterReader.read`` (dify_plugin 0.10.2 ``core/server/__base/filter_reader.py``): the
    lines of one backwards call, and ``None`` after every ``timeout_for_round`` seconds without one
    (the poll the SDK's and this plugin's readers count the call's silence by); ends at the
    ``None`` that closes the reader, or quietly on any error of the wait, as there.

    The SDK waits with ``queue.get(timeout=timeout_for_round)``, which makes, starts, cancels and
    closes a ``gevent.Timeout`` (a libev timer of its own, seven Python calls) every time the
    queue is empty: some three times a round, 4-12 µs each. Here one libev timer serves the
    whole call, restarted for each wait (``again``, some 0.1 µs) and stopped as soon as a line
    came; a line already queued is taken without it. The same lines and polls, in the same
    order. Without a positive ``timeout_for_round``, or a queue other than gevent's, the SDK's
    own ``read``."""
    queue = self.queue
    if timeout_for_round is None or not timeout_for_round > 0 or type(queue) is not _GEVENT_QUEUE[0]:
        yield from _SDK_FILTER_READ[0](self, timeout_for_round)
        return
    timer = get_hub().loop.timer(timeout_for_round, timeout_for_round)
    poll = _Poll()
    try:
        while True:
            try:
                if queue.qsize():
                    data = queue.get(block=False)
                else:
                    timer.again(_throw, getcurrent(), poll, update=True)
                    try:
                        data = queue.get()
                    finally:
                        timer.stop()
                if data is None:
                    break
                yield data
            except _Poll as error:
                if error is not poll:  # not this call's timer (one runs at a time in a greenlet): passed on
                    raise
                error.__traceback__ = None  # the poll is thrown again: its traceback would keep this frame
                yield None
            except Exception:
                break
    finally:
        timer.close()


_SDK_FILTER_READ: list[Any] = []
"""The SDK's own ``FilterReader.read`` (set by ``read_replies_with_one_timer``)."""

_GEVENT_QUEUE: list[Any] = [None]
"""gevent's ``Queue`` class, the one ``FilterReader`` makes once gevent patched ``queue``."""


def read_replies_with_one_timer() -> bool:
    """Make the SDK's ``FilterReader.read`` wait for a backwards call's lines with one timer for
    the call (``read_polling_with_one_timer``). Returns ``False`` and changes nothing when the
    SDK's reader is not the one this was written for."""
    try:
        import gevent.queue
        from dify_plugin.core.server.__base.filter_reader import FilterReader
    except ImportError:
        return False
    if _SDK_FILTER_READ:
        return True
    if not _is_the_sdks_own(FilterReader, "read"):
        return False
    _GEVENT_QUEUE[0] = gevent.queue.Queue
    _SDK_FILTER_READ.append(FilterReader.read)
    FilterReader.read = read_polling_with_one_timer  # type: ignore[method-assign,assignment]
    return True


_PENDING: list[str] = []
"""Text ``write_at_next_pass`` holds for the hub's next pass (whole lines, in the order written)."""

_hub_thread = monkey.get_original("_thread", "get_ident")
"""The OS thread's id (``threading.get_ident`` gives the greenlet's once gevent patched it)."""

_HUB_THREAD: list[int] = []
"""The id of the OS thread whose hub flushes ``_PENDING`` (set by ``write_lines_together``)."""


def write_at_next_pass(self: Any, data: str) -> None:
    """``StdioResponseWriter.write`` keeping ``data`` until the hub's next pass, when everything
    kept is written in one ``write`` and flushed (``flush_pending``). A line written from another
    OS thread (none in the SDK's stdio server: its threads are greenlets) is written at once,
    after what was kept."""
    if _hub_thread() != _HUB_THREAD[0]:
        flush_pending()
        sys.stdout.write(data)
        sys.stdout.flush()
        return
    if not _PENDING:
        get_hub().loop.run_callback(flush_at_pass)
    _PENDING.append(data)


STDOUT_CLOSED = (
    "the daemon closed the plugin's stdout: nothing the plugin writes can reach it any more, so the "
    "plugin exits (runs in progress end with it)"
)
"""What the plugin writes to stderr when writing to stdout fails with a broken pipe."""

_STDOUT_GONE: list[bool] = []
"""``[True]`` once a write to stdout failed with a broken pipe (``flush_at_pass``)."""


def flush_at_pass() -> None:
    """``flush_pending`` at the hub's pass. When stdout is gone (the daemon's reader closed its end
    of the pipe: ``BrokenPipeError``) the plugin leaves as at the end of stdin: every backwards call
    fails at its next poll, and the process exits ``END_OF_INPUT_GRACE`` seconds later saying why
    (``STDOUT_CLOSED``). Before, each heartbeat's write put a traceback on stderr (the daemon's log),
    every few seconds, for as long as the process lived, and its runs waited for replies."""
    try:
        flush_pending()
    except (BrokenPipeError, ValueError):
        if not _STDOUT_GONE:
            _STDOUT_GONE.append(True)
            end_of_input()
            gevent.spawn_later(END_OF_INPUT_GRACE, exit_at_end_of_input, STDOUT_CLOSED)


def flush_pending() -> None:
    """Write and flush what ``write_at_next_pass`` kept (nothing when nothing is kept). Raises
    what writing to stdout raises (``BrokenPipeError`` once the daemon is gone); the text is
    dropped then, as a failed write drops it."""
    if not _PENDING:
        return
    text = "".join(_PENDING)
    _PENDING.clear()
    sys.stdout.write(text)
    sys.stdout.flush()


def write_lines_together() -> bool:
    """Make the SDK's stdio writer write the lines a greenlet writes in one stretch of work with
    one system call, at the hub's next pass (see the module text). Returns ``False`` and changes
    nothing when ``StdioResponseWriter.write`` is not the SDK's own (already replaced, or moved by
    an upgrade). Call it from the thread that runs the hub (``main.py``: the main thread); what is
    kept at exit is written then."""
    try:
        from dify_plugin.core.server.stdio.response_writer import StdioResponseWriter
    except ImportError:
        return False
    if not _is_the_sdks_own(StdioResponseWriter, "write"):
        return False
    _HUB_THREAD[:] = [_hub_thread()]
    StdioResponseWriter.write = write_at_next_pass  # type: ignore[method-assign]
    atexit.register(flush_pending)
    return True


_SESSION_FIRST = re.compile(rb'\{\s*"session_id"\s*:\s*"([^"\\]*)"')
_SESSION_LAST = re.compile(rb',\s*"session_id"\s*:\s*"([^"\\]*)"\s*\}\Z')
_SESSION_TAIL_BYTES = 512
"""Bytes of a line's end where its last member is looked for (``outer_session``)."""


def outer_session(line: bytes) -> str | None:
    """The session id of a daemon line (``{"session_id": ..., ...}``, stripped) read from its
    first member or its last one without parsing the line, or ``None`` when neither is the
    session id as a plain string (no escape). A member found there is the outer object's: the
    line's first ``{`` opens it, its last ``}`` closes it, and a quote inside a string is
    escaped. (The daemon writes the envelope as a Go map, its keys sorted: the id last; the
    local runner writes it first.) For a line that is not JSON the id may be wrong: such a line
    is refused when parsed, whatever its session."""
    match = _SESSION_FIRST.match(line) or _SESSION_LAST.search(line, max(0, len(line) - _SESSION_TAIL_BYTES))
    if match is None:
        return None
    try:
        return match.group(1).decode()
    except UnicodeDecodeError:
        return None


REQUESTS_REMEMBERED = 10_000
"""Session ids of the last requests ``FirstRequests`` remembers (some 1 MB)."""

DUPLICATE_REQUEST = (
    "a second request for session {session} was not run: the daemon gives every request a session "
    "of its own, and a session's run must not call its tools twice"
)


class FirstRequests:
    """The session ids of the last ``limit`` requests the daemon sent, to run each session's
    request once.

    The daemon makes a new session (a new UUID) for every request. A request line read again for a
    session (sent twice, or a second one while the first runs) would run the strategy twice in one
    session: every tool called twice (a mail sent twice), two answers on one stream, and the second
    run's lines written after the first one's ``end``, into a session the daemon has closed."""

    def __init__(self, limit: int = REQUESTS_REMEMBERED) -> None:
        self._limit = limit
        self._order: deque[str] = deque()
        self._ids: set[str] = set()

    def first(self, session_id: str) -> bool:
        """Whether ``session_id`` had no request among the last ``limit`` (it is remembered now)."""
        if session_id in self._ids:
            return False
        self._ids.add(session_id)
        self._order.append(session_id)
        if len(self._order) > self._limit:
            self._ids.discard(self._order.popleft())
        return True


_FIRST_REQUESTS = FirstRequests()

_RUNNING: set[str] = set()
"""The session ids whose request was read and whose run has not ended (added by the reader, removed
by ``track_running_sessions``' executor once the run wrote its ``end``)."""


def refuse_duplicate(writer: Any, session_id: str) -> None:
    """Refuse a request for ``session_id``, which had one (``FirstRequests``): while that run goes
    on, with a session-less error event (its session's ``end`` is the first run's to write); once it
    has ended, with the session's own ``error`` and ``end``. A daemon that sends a new request under
    the id of an ended session (a replay, a restarted counter) waits for that session's ``end``: with
    a session-less error alone it waited until its own time limit (minutes) for nothing."""
    why = DUPLICATE_REQUEST.format(session=session_id)
    if session_id in _RUNNING or not _TRACKING_RUNS:
        writer.error(data={"error": why})
        return
    writer.session_message(session_id=session_id, data=writer.stream_error_object(
        data={"error_type": "DuplicateSessionError", "message": why, "args": {}}))
    writer.session_message(session_id=session_id, data=writer.stream_end_object())


_TRACKING_RUNS: list[bool] = []
"""``[True]`` once ``track_running_sessions`` applied: ``_RUNNING`` then tells a run that ended."""


def track_running_sessions() -> bool:
    """Keep ``_RUNNING`` (the sessions whose request is being run) from the SDK's request executor
    (``IOServer._execute_request_in_thread``, dify_plugin 0.10.2 ``core/server/io_server.py``: it
    runs the request and writes the session's ``end``), for ``refuse_duplicate``. Returns ``False``
    and changes nothing when the executor is not the SDK's own."""
    try:
        from dify_plugin.core.server.io_server import IOServer
    except ImportError:
        return False
    if not _is_the_sdks_own(IOServer, "_execute_request_in_thread"):
        return False
    execute = IOServer._execute_request_in_thread

    def execute_tracked(self: Any, session_id: str, *args: Any, **kwargs: Any) -> None:
        _RUNNING.add(session_id)
        try:
            execute(self, session_id, *args, **kwargs)
        finally:
            _RUNNING.discard(session_id)

    IOServer._execute_request_in_thread = execute_tracked  # type: ignore[method-assign]
    _TRACKING_RUNS[:] = [True]
    return True


def session_context(context: Any) -> dict[str, Any] | None:
    """A request envelope's ``context`` as the SDK's ``SessionContext`` takes it: ``{"credentials":
    {"tool_credentials": {provider: credential id}}}`` with the parts Dify may send as null left to
    their defaults (Dify's ``PluginInvokeContext.credentials`` is optional: a null there failed the
    run with a ``ValidationError`` before any step), a null credential id dropped (none: the
    provider's default), and any other id as text; ``None`` when ``context`` is no object."""
    if not isinstance(context, dict):
        return None
    credentials = context.get("credentials")
    if not isinstance(credentials, dict):
        return {}
    tools = credentials.get("tool_credentials")
    if not isinstance(tools, dict):
        return {"credentials": {}}
    if all(isinstance(value, str) for value in tools.values()):
        return context
    kept = {str(key): value if isinstance(value, str) else json.dumps(value)
            for key, value in tools.items() if value is not None}
    return {"credentials": {"tool_credentials": kept}}


def read_session_context_leniently() -> bool:
    """Make the SDK's ``Session`` (dify_plugin 0.10.2 ``core/runtime.py``) read its ``context``
    through ``session_context``, on every transport. Returns ``False`` and changes nothing when
    ``Session.__init__`` is not the SDK's own."""
    try:
        from dify_plugin.core.runtime import Session
    except ImportError:
        return False
    if not _is_the_sdks_own(Session, "__init__"):
        return False
    init = Session.__init__

    def init_lenient(self: Any, *args: Any, context: Any = None, **kwargs: Any) -> None:
        if context is not None and not isinstance(context, BaseModel):
            context = session_context(context)
        init(self, *args, context=context, **kwargs)

    Session.__init__ = init_lenient  # type: ignore[method-assign]
    return True


DATA_NO_OBJECT = "its data is no JSON object"
"""Why a backwards reply whose ``data`` is no object is refused: the daemon sends an object in every
one, and the SDK's filters of the backwards calls waiting in the process each raised on such a line
(``data.data.get``), a traceback on stderr per waiting call. (A request whose ``data`` is no object
is run, to end its session with an error: ``refuse_unrouted_requests``.)"""


class _DataNoObject(ValueError):
    """A daemon line whose ``data`` is no object (``DATA_NO_OBJECT``)."""


def _line_object(line: bytes) -> dict[str, Any]:
    """A daemon line's JSON object, as ``shared_type_adapter(dict[str, Any]).validate_json`` gives it
    (the SDK's readers' parse): a line below ``LARGE_LINE_BYTES`` that pydantic-core's JSON parser
    reads as an object is taken from ``pydantic_core.from_json`` (the same parser, without the
    adapter and its wrapper: some 2 µs a line); any other line (not an object, not JSON, one the
    adapter reads its own way: nested deep, a lone surrogate, bytes not UTF-8, or a large one read
    in pieces) goes to the adapter, which gives what it gave or raises what it raised."""
    if len(line) < LARGE_LINE_BYTES:
        try:
            value = from_json(line)
        except ValueError:
            value = None
        if type(value) is dict:
            return value
    return shared_type_adapter(dict[str, Any]).validate_json(line)


class _StreamClasses:
    """The SDK classes ``_stream_of`` builds with, looked up once (``_stream_classes``):
    ``stream`` (``PluginInStream``), ``event`` (``PluginInStreamEvent``), ``events`` (its members by
    value), ``writer`` (``StdioResponseWriter``) and ``slots``: the slot descriptors of
    ``PluginInStream``'s fields in the order of its ``__init__``'s parameters when that ``__init__``
    only sets them (dify_plugin 0.10.2: a frozen dataclass with slots), else ``None`` (the
    constructor is called)."""

    def __init__(self) -> None:
        from dify_plugin.core.entities.plugin.io import PluginInStream, PluginInStreamEvent
        from dify_plugin.core.server.stdio.response_writer import StdioResponseWriter

        self.stream = PluginInStream
        self.event = PluginInStreamEvent
        self.events = {member.value: member for member in PluginInStreamEvent if type(member.value) is str}
        self.writer = StdioResponseWriter
        self.slots = _stream_slots(PluginInStream)


_STREAM_FIELDS = (
    "session_id", "event", "data", "conversation_id", "message_id", "app_id", "endpoint_id", "context",
    "reader", "writer",
)
"""``PluginInStream``'s fields in the order ``_stream_of`` gives their values."""


def _stream_slots(cls: type) -> tuple[Any, ...] | None:
    """The slot descriptors of ``cls``'s fields (``_STREAM_FIELDS``), or ``None`` unless ``cls`` is a
    dataclass of exactly those fields, each in a slot, without ``__post_init__``, whose
    ``__init__`` is the SDK's own (dify_plugin 0.10.2 ``core/entities/plugin/io.py``: it sets each
    field and nothing else)."""
    import dataclasses

    if not dataclasses.is_dataclass(cls) or hasattr(cls, "__post_init__") or "__dict__" in dir(cls):
        return None
    if sorted(field.name for field in dataclasses.fields(cls)) != sorted(_STREAM_FIELDS):
        return None
    if getattr(cls.__init__, "__module__", None) != "dify_plugin.core.entities.plugin.io":
        return None
    slots = []
    for name in _STREAM_FIELDS:
        slot = next((vars(klass)[name] for klass in cls.__mro__ if name in vars(klass)), None)
        if type(slot).__name__ != "member_descriptor":
            return None
        slots.append(slot)
    return tuple(slots)


@functools.cache
def _stream_classes() -> _StreamClasses:
    return _StreamClasses()


def _stream_of(reader: Any, line: bytes, writer: Any = None) -> Any:
    """The SDK's ``PluginInStream`` of one stripped line, as ``StdioRequestReader._read_stream``
    builds it (dify_plugin 0.10.2), or ``None`` when the line cannot be read: then, as there, a
    session-less error event says why (by the line's size and the parser's reason, never the line's
    text: pydantic's message quotes the line's start and end, where a tool's secret may stand), and
    for a backwards reply whose ``data`` is no object (``DATA_NO_OBJECT``). So it
    is for a request of a session that already had one
    (``FirstRequests``): it is not run again. ``writer``: the stream's writer and the one the error
    goes to (default: a new ``StdioResponseWriter``, as the stdio reader makes for each line)."""
    classes = _stream_classes()
    arrived = time.monotonic()  # before the parse: a run's time counts from here (arrivals)
    if writer is None:
        writer = classes.writer()
    try:
        data = _line_object(line)
        event = data.get("event")
        if event == "backwards_response" and not isinstance(data.get("data"), dict):
            raise _DataNoObject(DATA_NO_OBJECT)
        member = classes.events.get(event) if type(event) is str else None
        fields = (
            data["session_id"],
            member if member is not None else classes.event.value_of(data["event"]),
            data["data"],
            data.get("conversation_id"),
            data.get("message_id"),
            data.get("app_id"),
            data.get("endpoint_id"),
            data.get("context"),
            reader,
            writer,
        )
        if classes.slots is None:
            stream = classes.stream(**dict(zip(_STREAM_FIELDS, fields)))  # noqa: B905
        else:  # what its __init__ sets, set slot by slot (a line: some 2.5 µs fewer)
            stream = _new(classes.stream)
            for slot, value in zip(classes.slots, fields):  # noqa: B905 (both of _STREAM_FIELDS' length)
                slot.__set__(stream, value)
    except Exception as e:
        writer.error(data={"error": UNREADABLE_LINE.format(size=len(line), reason=_reason(e))})
        return None
    if stream.event is classes.event.Request:
        if not _FIRST_REQUESTS.first(stream.session_id):
            refuse_duplicate(writer, stream.session_id)
            return None
        if _TRACKING_RUNS:  # from now: a copy arriving before the run starts is refused aside
            _RUNNING.add(stream.session_id)
        arrivals.note(stream.session_id, arrived)
    return stream


def _read_aside(reader: Any, aside: dict[str, deque[Any]], session: str, line: bytes, writer: Any = None) -> None:
    """Parse ``line`` of ``session`` (giving way as ``json_pieces`` reads it) and hand it to the
    reader's filters, then the lines of that session that came meanwhile, in order (parsed ones,
    or large ones still to parse); the session is then no longer read aside. ``writer``: as for
    ``_stream_of``."""
    item: Any = line
    while True:
        try:
            stream = _stream_of(reader, item, writer) if isinstance(item, bytes) else item
            if stream is not None:
                reader._process_line(stream)
        except Exception:  # as the SDK's event loop: one line's failure does not stop the others
            logger.exception("Error in event loop")
        queue = aside[session]
        if not queue:
            del aside[session]
            return
        item = queue.popleft()


def read_stream_aside(self: Any) -> Any:
    """``StdioRequestReader._read_stream`` (dify_plugin 0.10.2) reading a line of
    ``LARGE_LINE_BYTES`` or more in a greenlet of its own (see ``read_large_lines_aside``)."""
    aside: dict[str, deque[Any]] = {}
    buffer = BytesIO()
    while True:
        data = self._read_async()
        if not data:
            continue
        buffer.write(data)
        if b"\n" not in data:
            continue
        buffer.seek(0)
        content = buffer.read()
        lines = content.split(b"\n")
        remaining = lines[-1]
        buffer = BytesIO()
        if remaining:
            buffer.write(remaining)
        yield from streams_read_aside(self, aside, lines[:-1])


def streams_read_aside(reader: Any, aside: dict[str, deque[Any]], lines: list[bytes], writer: Any = None) -> Any:
    """The ``PluginInStream``s of ``lines`` (raw lines of the daemon, without their ``\\n``) to hand
    on now, in order (each line stripped of its blanks and a leading ``UTF8_BOM``); a line of
    ``LARGE_LINE_BYTES`` or more whose session shows in its
    first or last member (``outer_session``) is parsed in a greenlet of its own and handed on from
    there, and so are the later lines of its session until that greenlet has handed them all
    on (``aside``: session -> its lines waiting, kept by the caller across calls). A large line whose
    session cannot be told waits for the lines read aside first. ``writer``: as for
    ``_stream_of``. Shared by the stdio reader (``read_stream_aside``) and remote debugging's
    (``read_tcp_stream``)."""
    for raw_line in lines:
        line = raw_line.strip()
        if line.startswith(UTF8_BOM):  # a harness writing UTF-8 "with signature"
            line = line[len(UTF8_BOM):].strip()
        if not line:
            continue
        large = len(line) >= LARGE_LINE_BYTES
        session = outer_session(line) if large else None
        if session is not None:
            if session in aside:
                aside[session].append(line)
            else:
                aside[session] = deque()
                gevent.spawn(_read_aside, reader, aside, session, line, writer)
            continue
        while large and aside:  # whose it is is known once parsed: after the lines read aside
            gevent.sleep(_ASIDE_POLL)
        stream = _stream_of(reader, line, writer)
        if stream is None:
            continue
        if stream.session_id in aside:  # after that session's line still being read
            aside[stream.session_id].append(stream)
        else:
            yield stream


UTF8_BOM = b"\xef\xbb\xbf"
"""The byte order mark a writer of UTF-8 "with signature" puts before its text (Python's
``utf-8-sig``, .NET's default ``UTF8Encoding``). The SDK's parser refused a line starting with it,
and the refusal is a session-less error event: a request line so written was never run, and its
session waited for an ``end`` that never came, until the daemon's own time limit. The readers
drop it, as they drop the blanks around a line."""


_ASIDE_POLL = 0.001
"""Seconds the reader waits between two looks at the lines read aside, before a large line whose
session it cannot tell without parsing it."""


def read_large_lines_aside() -> bool:
    """Make the SDK's stdio reader parse a line of ``LARGE_LINE_BYTES`` or more in a greenlet of
    its own while it reads on: the lines of the other sessions that follow it in the pipe are
    handed on as they come, those of its own session after it, in order.

    The daemon writes every session's lines into one pipe, and the SDK reads them one after the
    other: a tool's JSON message of 5.4 MB (125,000 records) took the reader 140-450 ms to parse,
    during which a session streaming an answer beside it got none of its chunks, however often
    the parse gave way (``json_pieces.loads``). The session of a large line is read from its first
    or last member (``outer_session``); one that shows there in neither is parsed in turn as
    before, once the lines read aside are handed on. The same lines are handed on, each session's
    in the order they came; only lines of different sessions may pass one another, as they may
    when the daemon writes them.

    Returns ``False`` and changes nothing when ``StdioRequestReader._read_stream`` is not the
    SDK's own (already replaced, or moved by an upgrade)."""
    try:
        from dify_plugin.core.server.stdio.request_reader import StdioRequestReader
    except ImportError:
        return False
    if not _is_the_sdks_own(StdioRequestReader, "_read_stream"):
        return False
    StdioRequestReader._read_stream = read_stream_aside  # type: ignore[method-assign]
    return True


def line_pieces(pending: list[bytes], data: bytes) -> list[bytes]:
    """The lines ``data`` ends (without their ``\\n``), the first one joined to the pieces of it
    that came before (``pending``, emptied then); what follows the last ``\\n`` is added to
    ``pending``. Each byte is copied once whatever the line's length: the SDK's TCP reader added
    every read to the text kept so far and split it all again, some 3 GB copied for a line of 20 MB
    read 64 KiB at a time."""
    *ended, rest = data.split(b"\n")
    if ended and pending:
        ended[0] = b"".join(pending) + ended[0]
        pending.clear()
    if rest:
        pending.append(rest)
    return ended


UNREADABLE_LINE = "a line of {size:,} bytes from the daemon could not be read: {reason}"
"""What the TCP reader logs for a line it cannot read (never the line: it may hold a tool's
secrets, and be megabytes long)."""

DAEMON_GONE = (
    "the connection to the daemon at {host}:{port} was lost and could not be made again: no request "
    "or reply can come any more, so the plugin exits (runs in progress end with it)"
)
"""What the plugin writes to stderr when remote debugging's daemon cannot be reached again."""


def _reason(error: Exception) -> str:
    """Why a line could not be read, without any of its text (pydantic's message shows the input)."""
    if isinstance(error, ValidationError):
        return "; ".join(str(item.get("msg", "")) for item in error.errors(include_input=False))[:300]
    if isinstance(error, _DataNoObject):
        return DATA_NO_OBJECT
    return type(error).__name__


def read_tcp_stream(self: Any) -> Any:
    """``TCPReaderWriter._read_stream`` (dify_plugin 0.10.2 ``core/server/tcp/request_reader.py``)
    reading the same lines, with what the stdio reader does (see ``read_tcp_lines_safely``)."""
    pending: list[bytes] = []
    aside: dict[str, deque[Any]] = {}
    while self.alive:
        try:
            data = self._read_data()
        except Exception as error:  # the SDK's reader: the connection is gone (closed, reset)
            logger.warning("the connection to the daemon at %s:%s was lost (%s): connecting again",
                           self.host, self.port, type(error).__name__)
            self.alive = False
            pending.clear()
            aside = {}  # the lines read aside go on with the old connection's sessions, which are gone
            gevent.sleep(self.reconnect_timeout)
            try:
                self._launch()
            except Exception:
                leave_when_the_daemon_is_gone(self.host, self.port)
            continue
        if not data:
            continue
        for line in line_pieces(pending, data):
            try:
                yield from streams_read_aside(self, aside, [line], self)
            except Exception as error:  # the error event could not be written: the connection went
                logger.warning(UNREADABLE_LINE.format(size=len(line), reason=_reason(error)))


def leave_when_the_daemon_is_gone(host: str, port: int) -> None:
    """End the process: the SDK gave up connecting again (three attempts, five seconds apart), and its
    reader would then spin at full speed for ever (its loop asks a reader that is no longer alive for
    lines, which ends at once). Says why on stderr and exits with code 1."""
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(DAEMON_GONE.format(host=host, port=port) + "\n")
        sys.stderr.flush()
    os._exit(1)


def read_tcp_lines_safely() -> bool:
    """Make the SDK's remote-debugging reader (``TCPReaderWriter._read_stream``) read as the stdio
    reader does: a session's request read again is not run twice (``FirstRequests``, with the same
    session-less error event); a line it cannot read is answered with that event and logged by its
    size and why, never whole (the SDK logged the line itself: megabytes, with any secret in it, on
    stderr); a long line is joined once (``line_pieces``); a line of ``LARGE_LINE_BYTES`` or more is
    parsed in a greenlet of its own (``streams_read_aside``, as on stdio: the daemon sends every
    session's lines on the one connection, and a tool's JSON message of 5 MB parsed in turn held a
    session streaming beside it 240-310 ms); and when the connection is lost (found
    by the reader or by a failed write: ``launch_noting_a_lost_connection``), the runs' waiting
    backwards calls fail at their next poll (``waiting.connection_lost``: the daemon's new runtime
    knows none of their sessions) and, if the reader cannot connect again, the plugin exits
    with a word on stderr instead of spinning (``leave_when_the_daemon_is_gone``).

    Returns ``False`` and changes nothing when ``_read_stream`` is not the SDK's own (already
    replaced, or moved by an upgrade) or the reader lacks what this uses (``_read_data``,
    ``_launch``)."""
    try:
        from dify_plugin.core.server.tcp.request_reader import TCPReaderWriter
    except ImportError:
        return False
    if not _is_the_sdks_own(TCPReaderWriter, "_read_stream"):
        return False
    if not all(_is_the_sdks_own(TCPReaderWriter, name) for name in ("_read_data", "_launch")):
        return False
    TCPReaderWriter._read_stream = read_tcp_stream  # type: ignore[method-assign]
    TCPReaderWriter._launch = launch_noting_a_lost_connection(TCPReaderWriter._launch)  # type: ignore[method-assign]
    return True


def launch_noting_a_lost_connection(launch: Any) -> Any:
    """``TCPReaderWriter._launch`` (``launch``) that first notes a lost connection
    (``waiting.connection_lost``: the runs' waiting backwards calls end, their replies cannot come
    on a new connection) when the reader had one (its ``sock``). The SDK connects again from two
    places: the reader (``read_tcp_stream``) and its ``write``, which reconnects when a write fails
    and leaves the reader on the new socket, where it never sees the old one fail. Errors: those of
    ``launch`` (the last attempt's ``OSError``)."""

    def relaunch(self: Any) -> None:
        if getattr(self, "sock", None) is not None:
            connection_lost()
        launch(self)

    return relaunch


DUPLICATE_STATUS = 409
"""The HTTP status of a serverless ``/invoke`` refused as a session's second request (Conflict: the
daemon reads any status but 2xx as the session's error, and retries only a 502)."""

ERROR_BODY_BYTES = 4096
"""Bytes of a refused ``/invoke``'s body the daemon reads for its ``errorType`` (dify-plugin-daemon
``serverless_runtime``): a longer body is shown as the bare HTTP status."""


def first_request_or_refusal(data: Any) -> tuple[dict[str, str], int] | None:
    """For the body of a serverless ``/invoke`` (the daemon's request line, parsed): ``None`` to run
    it, or the answer ``(body, DUPLICATE_STATUS)`` for a request of a session that had one
    (``FirstRequests``). ``body`` is ``{"errorType": why, "message": why}``: the daemon shows a refused
    invocation as "Plugin runtime request failed: " and the ``errorType`` of a JSON body of at most
    ``ERROR_BODY_BYTES`` (else the bare status), so the user reads why (a session id too long for that
    is cut). Anything that is not a request with a session id as a string is ``None``: the SDK's
    handler answers it as before."""
    if not isinstance(data, dict) or data.get("event") != "request":
        return None
    session = data.get("session_id")
    if not isinstance(session, str):
        return None
    if _FIRST_REQUESTS.first(session):
        arrivals.note(session, time.monotonic())
        return None
    if len(session) > 100:
        session = session[:100] + "..."
    why = DUPLICATE_REQUEST.format(session=session)
    return {"errorType": why, "message": why}, DUPLICATE_STATUS


def run_serverless_requests_once() -> bool:
    """Make the SDK's serverless ``/invoke`` handler (``ServerlessRequestReader.handler``, dify_plugin
    0.10.2 ``core/server/serverless/request_reader.py``) refuse a session's second request
    (``first_request_or_refusal``): the daemon retries an invocation a gateway answered with 502,
    which may come while the first one runs, and running it again calls its tools again. The body is
    read with Flask's ``request.get_json(silent=True)``, which keeps what it parsed for the SDK's own
    call. Returns ``False`` and changes nothing when ``handler`` is not the SDK's own."""
    try:
        from dify_plugin.core.server.serverless.request_reader import ServerlessRequestReader
        from flask import request
    except ImportError:
        return False
    if not _is_the_sdks_own(ServerlessRequestReader, "handler"):
        return False
    handler = ServerlessRequestReader.handler

    def handle_once(self: Any) -> Any:
        refusal = first_request_or_refusal(request.get_json(silent=True))
        return refusal if refusal is not None else handler(self)

    ServerlessRequestReader.handler = handle_once  # type: ignore[method-assign]
    return True


UNROUTED_REQUEST = (
    "the plugin has no handler for a request of type {kind} and action {action}: it serves agent "
    "strategies (type 'agent_strategy', action 'invoke_agent_strategy')"
)
"""The session's error for a request no route of the plugin takes (see ``refuse_unrouted_requests``)."""

UNREADABLE_REQUEST = "the request could not be read ({reasons}): no strategy was run"
"""The session's error for a request its route's model refuses (``AgentInvokeRequest``): each field
and why, never the values (pydantic's own text quotes the request, the node's secrets with it)."""


def _fields_and_reasons(error: ValidationError) -> str:
    """``field: why; ...`` of ``error``, without its input values or links, at most 300 characters."""
    items = error.errors(include_input=False, include_url=False)
    text = "; ".join(".".join(str(part) for part in item.get("loc", ())) + ": " + str(item.get("msg", ""))
                     for item in items)
    return text if len(text) <= 300 else text[:297] + "..."


NO_REQUEST_OBJECT = "the request's data is a JSON {kind}, not an object: no strategy was run"
"""The session's error for a request whose ``data`` is no object."""


def _shown(value: Any) -> str:
    """``value`` as the unrouted request's error names it: its repr, at most 80 characters."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def dispatch_or_refuse(dispatch: Any) -> Any:
    """``Router.dispatch`` (``dispatch``) that raises ``ValueError`` instead of returning ``None``
    when no route takes the request, for a request whose data is no object (the SDK's route
    filters raised ``AttributeError: 'list' object has no attribute 'get'``), and for one its
    route's model refuses (``UNREADABLE_REQUEST``: pydantic's text quoted the request's values, a
    secret parameter's among them). The SDK's executor turns the exception into the session's
    ``error`` before its ``end``."""

    def dispatch_refusing(self: Any, session: Any, data: Any) -> Any:
        if not isinstance(data, dict):
            raise ValueError(NO_REQUEST_OBJECT.format(kind=_json_kind(data)))
        try:
            response = dispatch(self, session, data)
        except ValidationError as error:  # the route's request model: its text quotes the request
            raise ValueError(UNREADABLE_REQUEST.format(reasons=_fields_and_reasons(error))) from None
        if response is None and not any(route.filter(data) for route in self.routes):
            raise ValueError(UNROUTED_REQUEST.format(kind=_shown(data.get("type")),
                                                     action=_shown(data.get("action"))))
        return response

    return dispatch_refusing


def _json_kind(value: Any) -> str:
    """The JSON kind of a parsed value ("array", "string", "number", "boolean", "null")."""
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "null" if value is None else type(value).__name__


def refuse_unrouted_requests() -> bool:
    """Make the SDK's router (``Router.dispatch``, dify_plugin 0.10.2 ``core/server/router.py``)
    refuse a request no route takes (a type or action other than the agent strategy's, none, or a
    ``data`` that is no object) with an error saying so (``dispatch_or_refuse``). The SDK returned
    nothing for it, and its executor then wrote the session's ``end`` alone: the Agent node ended
    with an empty answer and no word of why. Returns ``False`` and changes nothing when
    ``dispatch`` is not the SDK's own."""
    try:
        from dify_plugin.core.server.router import Router
    except ImportError:
        return False
    if not _is_the_sdks_own(Router, "dispatch"):
        return False
    Router.dispatch = dispatch_or_refuse(Router.dispatch)  # type: ignore[method-assign]
    return True
