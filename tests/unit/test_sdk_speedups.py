"""agent_core.sdk_speedups: the SDK's line readers reuse one TypeAdapter per type, its writer sends
the same bytes in one write per line, and stdin from a pipe is read on the gevent hub."""

from __future__ import annotations

import contextlib
import datetime
import decimal
import enum
import fcntl
import importlib
import json
import math
import os
import subprocess
import sys
import time
import types
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import pytest
from dify_plugin.core.entities.message import SessionMessage
from dify_plugin.core.server.__base.response_writer import ResponseWriter
from dify_plugin.core.server.__base.writer_entities import Event, StreamOutputMessage
from dify_plugin.entities.agent import AgentInvokeMessage
from dify_plugin.entities.tool import ToolInvokeMessage
from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from agent_core import sdk_speedups
from agent_core.logs import LogNode
from agent_core.sdk_speedups import (
    READER_MODULES,
    dump_messages_as_json,
    put_line_once,
    share_type_adapters,
    shared_type_adapter,
    stream_invoke_object_unvalidated,
    stream_object_as_json,
    wrap_requests_unvalidated,
    write_lines_once,
    write_lines_together,
)
from agent_core.usage import coerce_usage


def test_the_sdk_readers_still_build_a_type_adapter_per_line_and_are_changed():
    """Fails on an SDK upgrade that drops or renames the readers: the speed-up would be gone
    silently (``bench overhead`` shows it), so the list must be checked again."""
    share_type_adapters()
    for name in READER_MODULES:
        module = importlib.import_module(name)
        assert module.TypeAdapter is shared_type_adapter, name
        assert "TypeAdapter(dict[str, Any]).validate_json(line)" in Path(module.__file__).read_text(), name


def test_one_adapter_per_type_and_the_same_parse():
    first, second = shared_type_adapter(dict[str, Any]), shared_type_adapter(dict[str, Any])
    assert first is second
    line = b'{"session_id": "s", "event": "request", "data": {"n": 1, "t": "\\u00e9"}}'
    assert first.validate_json(line) == TypeAdapter(dict[str, Any]).validate_json(line)


def test_other_arguments_and_unhashable_types_get_a_fresh_adapter():
    config = ConfigDict(strict=True)
    assert shared_type_adapter(int, config=config) is not shared_type_adapter(int, config=config)

    unhashable = Annotated[int, ["a list makes the type unhashable"]]
    assert shared_type_adapter(unhashable).validate_python(3) == 3


def test_missing_modules_and_modules_without_the_name_are_skipped(monkeypatch):
    plain = types.ModuleType("plain_reader")
    monkeypatch.setitem(__import__("sys").modules, "plain_reader", plain)
    assert share_type_adapters(("no.such.module", "plain_reader")) == []
    assert not hasattr(plain, "TypeAdapter")


class _Capture(ResponseWriter):
    """A writer that keeps each ``write`` call apart."""

    def __init__(self) -> None:
        self.writes: list[str] = []

    def write(self, data: str) -> None:
        self.writes.append(data)

    def done(self) -> None:
        pass


def _sdk_line(event: Event, session_id: str | None, data) -> str:
    """The line exactly as the SDK's own ``ResponseWriter.put`` builds it."""
    if isinstance(data, BaseModel):
        data = data.model_dump()
    return StreamOutputMessage(event=event, session_id=session_id, data=data).model_dump_json() + "\n\n"


class _Colour(enum.Enum):
    RED = "red"


LOG = AgentInvokeMessage(
    type=AgentInvokeMessage.MessageType.LOG,
    message=AgentInvokeMessage.LogMessage(
        id="log-1", label="ROUND 1", status=AgentInvokeMessage.LogMessage.LogStatus.SUCCESS,
        data={"output": "é ✓ \u2028 \x00", "nested": [1, 2.5, None, {"k": True}]},
        metadata={"elapsed_time": 0.25, "total_price": 0.0, "currency": "USD"},
    ),
)
BLOB_CHUNK = ToolInvokeMessage(
    type=ToolInvokeMessage.MessageType.BLOB_CHUNK,
    message=ToolInvokeMessage.BlobChunkMessage(id="b", sequence=0, total_length=3, blob=b"abc", end=False),
)
SAMPLES = [
    (Event.SESSION, "s-1", AgentInvokeMessage(
        type=AgentInvokeMessage.MessageType.TEXT, message=AgentInvokeMessage.TextMessage(text="hi"))),
    (Event.SESSION, "s-1", LOG),
    (Event.SESSION, "s-2", BLOB_CHUNK),
    (Event.SESSION, "s-3", {"type": "stream", "data": LOG.model_dump()}),
    (Event.SESSION, "s-3", {"type": "end", "data": {}}),
    (Event.ERROR, "s-4", {"error_type": "ValueError", "message": "bad \"input\"", "args": {}}),
    (Event.HEARTBEAT, None, {}),
    (Event.LOG, None, {"level": "info", "message": "x" * 70_000}),
    (Event.LOG, None, None),
    (Event.LOG, None, {"nan": math.nan, "inf": -math.inf, "when": datetime.datetime(2026, 11, 25, 12, 0),
                       "colour": _Colour.RED, "raw": b"bytes"}),
]
_WRITER = _Capture()
SAMPLES += [  # each message a strategy yields goes out wrapped in a SessionMessage, as the SDK wraps it
    (Event.SESSION, session_id, _WRITER.stream_object(data))
    for event, session_id, data in list(SAMPLES)
    if isinstance(data, BaseModel | dict) and data
]
SAMPLES += [
    (Event.SESSION, "s-5", _WRITER.stream_end_object()),
    (Event.SESSION, "s-5", _WRITER.stream_error_object({"error_type": "E", "message": "m", "args": {"n": math.inf}})),
]


@pytest.fixture(autouse=True)
def _session_messages_serialized_directly(monkeypatch):
    """As after ``write_lines_once()``, whichever test ran first."""
    monkeypatch.setattr(sdk_speedups, "_SERIALIZED_AS_THEY_ARE", sdk_speedups._plain_models())
    assert sdk_speedups._SERIALIZED_AS_THEY_ARE  # the fast path is the one compared


@pytest.mark.parametrize(("event", "session_id", "data"), SAMPLES)
def test_one_write_per_line_with_the_bytes_the_sdk_writes(event, session_id, data):
    writer = _Capture()
    put_line_once(writer, event, session_id, data)
    assert writer.writes == [_sdk_line(event, session_id, data)]
    json.loads(writer.writes[0])  # NaN and infinity become null: the daemon's JSON parser reads it


def test_the_sdk_writer_is_replaced_once_and_its_format_is_still_the_one_checked():
    """Fails on an SDK upgrade that changes ``StreamOutputMessage`` or moves ``put``: the
    comparison above must then be checked again."""
    assert list(StreamOutputMessage.model_fields) == ["event", "session_id", "data"]
    with _replaced_once("put", put_line_once, write_lines_once):
        writer = _Capture()
        writer.session_message("s", writer.stream_end_object())
        assert writer.writes == ['{"event":"session","session_id":"s","data":{"type":"end","data":{}}}\n\n']


@contextlib.contextmanager
def _replaced_once(name: str, replacement: Any, apply: Any) -> Iterator[None]:
    """``apply()`` puts ``replacement`` in place of the SDK writer's ``name`` (once: a second call
    leaves it); the SDK's own is put back afterwards."""
    original = ResponseWriter.__dict__[name]
    try:
        if original is not replacement:
            assert apply() is True
        assert ResponseWriter.__dict__[name] is replacement
        assert apply() is False  # already replaced: left as it is
        yield
    finally:
        setattr(ResponseWriter, name, original)


def _sdk_stream_object(data: BaseModel) -> SessionMessage:
    """A yielded message wrapped exactly as the SDK's own ``ResponseWriter.stream_object`` wraps it."""
    return SessionMessage(type=SessionMessage.Type.STREAM, data=data.model_dump())


_NODE = LogNode("CALL search", provider="langgenius/openai/openai")
YIELDED = [
    AgentInvokeMessage(type=AgentInvokeMessage.MessageType.TEXT, message=AgentInvokeMessage.TextMessage(text="é ✓ \u2028")),
    AgentInvokeMessage(
        type=AgentInvokeMessage.MessageType.JSON,
        message=AgentInvokeMessage.JsonMessage(json_object={
            "execution_metadata": {"total_price": decimal.Decimal("0.0000534"), "when": datetime.date(2026, 11, 25)},
            "nan": math.nan, "inf": math.inf, "list": [1, 2.5, None, True, "x"], "colour": _Colour.RED, "raw": b"bytes",
        }),
    ),
    AgentInvokeMessage(
        type=AgentInvokeMessage.MessageType.VARIABLE,
        message=AgentInvokeMessage.VariableMessage(variable_name="v", variable_value={"a": [1, {"b": None}]}, stream=False),
    ),
    AgentInvokeMessage(
        type=AgentInvokeMessage.MessageType.RETRIEVER_RESOURCES,
        message=AgentInvokeMessage.RetrieverResourceMessage(
            retriever_resources=[AgentInvokeMessage.RetrieverResourceMessage.RetrieverResource(
                position=1, dataset_id="d", score=0.5, content="c")],
            context="ctx",
        ),
    ),
    AgentInvokeMessage(type=AgentInvokeMessage.MessageType.BLOB, message=AgentInvokeMessage.BlobMessage(blob=b"\x00\xff"),
                       meta={"mime_type": "image/png", "filename": "a.png"}),
    BLOB_CHUNK,
    LOG,
    _NODE.start({"tool_name": "search", "tool_input": {"q": "x"}}),
    _NODE.finish({"output": "y" * 3000}, usage=coerce_usage({"total_tokens": 9, "total_price": "0.01"}), error="boom"),
    LogNode("ROUND 1").finish({
        "price": decimal.Decimal("0.0000534"), "when": datetime.date(2026, 11, 25), "colour": _Colour.RED,
        "nan": math.nan, "pair": (1, "two"), "raw": b"bytes", "nested": {"a": [{"b": None}]}, "é": "\u2028",
    }),
]


@pytest.mark.parametrize("message", YIELDED, ids=lambda message: message.type.value)
def test_a_message_dumped_in_json_mode_gives_the_line_the_sdk_writes_and_no_warning(message):
    writer = _Capture()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a pydantic serializer warning would reach the daemon's log
        put_line_once(writer, Event.SESSION, "s-1", stream_object_as_json(writer, message))
        expected = _sdk_line(Event.SESSION, "s-1", _sdk_stream_object(message))
    assert writer.writes == [expected]
    assert json.loads(expected)["data"]["data"]["type"] == message.type.value


def test_the_sdk_stream_object_is_replaced_once():
    with _replaced_once("stream_object", stream_object_as_json, dump_messages_as_json):
        pass


REQUESTS = [
    {"type": "llm", "backwards_request_id": "b-1", "request": {
        "provider": "p", "model": "m", "prompt_messages": [{"role": "user", "content": "é ✓ \u2028", "name": None}],
        "completion_params": {"temperature": decimal.Decimal("0.5"), "nan": math.nan}, "stop": None, "stream": True}},
    {"type": "tool", "backwards_request_id": "b-2", "request": {"tool_parameters": {"q": "x", "n": [1, {"b": None}]}}},
]


@pytest.mark.parametrize("request_body", REQUESTS)
def test_a_backwards_request_wrapped_without_validation_gives_the_line_the_sdk_writes(request_body):
    writer = _Capture()
    wrapped = stream_invoke_object_unvalidated(writer, request_body)
    expected = SessionMessage(type=SessionMessage.Type.INVOKE, data=request_body)
    assert wrapped == expected and wrapped.model_fields_set == expected.model_fields_set
    put_line_once(writer, Event.SESSION, "s-1", wrapped)
    assert writer.writes == [_sdk_line(Event.SESSION, "s-1", expected)]


def test_the_sdk_stream_invoke_object_is_replaced_once():
    with _replaced_once("stream_invoke_object", stream_invoke_object_unvalidated, wrap_requests_unvalidated):
        pass


_READER_CHILD = r"""
import sys, time
import dify_plugin  # gevent's monkey patching, as in the plugin process
from agent_core.sdk_speedups import read_stdin_nonblocking
from dify_plugin.core.server.stdio.request_reader import StdioRequestReader

applied = read_stdin_nonblocking()
sys.stderr.write(f"applied={applied}\n")
reader = StdioRequestReader()
for n, message in enumerate(reader._read_stream(), start=1):
    sys.stderr.write(f"{message.session_id} {message.data['n']}\n")
    if n == 3:
        break
reader._read_async()  # end of file: the process exits here
sys.stderr.write("read on after the end of stdin\n")
sys.exit(3)
"""


def test_stdin_from_a_pipe_is_read_on_the_hub_and_gives_the_same_lines():
    """The daemon's lines through the SDK's own line splitter with the non-blocking read: one
    line in two pieces, two lines in one write, then end of file, where the process exits saying
    why (the SDK's reader asked again for ever, at full speed)."""
    child = subprocess.Popen([sys.executable, "-c", _READER_CHILD], stdin=subprocess.PIPE,
                             stderr=subprocess.PIPE, cwd=Path(__file__).resolve().parents[2])
    line = b'{"session_id": "s%d", "event": "request", "data": {"n": %d}}\n'
    child.stdin.write((line % (1, 1))[:20])
    child.stdin.flush()
    time.sleep(0.2)
    child.stdin.write((line % (1, 1))[20:] + line % (2, 2) + line % (3, 3))
    child.stdin.close()
    _, stderr = child.communicate(timeout=60)
    lines = stderr.decode().splitlines()
    assert child.returncode == 0, stderr.decode()
    assert lines == ["applied=True", "s1 1", "s2 2", "s3 3", sdk_speedups.STDIN_CLOSED]


def test_stdin_that_is_not_a_pipe_is_left_to_the_sdk(tmp_path):
    source = tmp_path / "in.txt"
    source.write_text("")
    child = subprocess.run([sys.executable, "-c", "import dify_plugin\nfrom agent_core.sdk_speedups import "
                            "read_stdin_nonblocking\nprint(read_stdin_nonblocking())"],
                           stdin=source.open("rb"), capture_output=True, cwd=Path(__file__).resolve().parents[2],
                           timeout=60)
    assert child.stdout.decode().strip() == "False", child.stderr.decode()


@pytest.mark.parametrize(("escaped", "text"), [("x\\ud800y", "x\ufffdy"), ("x\\udfff", "x\ufffd"),
                                              ("\\udfff\\ud800", "\ufffd\ufffd"), ("a\\ud800\\u0041", "a\ufffdA"),
                                              ("\\ud83d\\ude00\\ud800", "\U0001f600\ufffd")])
def test_a_line_with_a_lone_surrogate_escape_is_read_with_a_replacement_not_dropped(escaped, text):
    """pydantic-core refuses the line: the SDK's reader would drop it (a model chunk with its tool
    calls, a tool message), silently. It is read with U+FFFD for each half character, as the
    daemon's Go decoder gives it, and the rest of the line as it was."""
    line = ('{"session_id": "s", "event": "backwards_response", "data": {"tool_calls": [{"id": "c1"}], "text": "'
            + escaped + '"}}')
    with pytest.raises(ValidationError):
        TypeAdapter(dict[str, Any]).validate_json(line)
    parsed = shared_type_adapter(dict[str, Any]).validate_json(line)
    assert parsed["data"] == {"tool_calls": [{"id": "c1"}], "text": text}


def test_a_line_nested_deeper_than_pydantic_parses_is_read_not_dropped():
    """pydantic-core's JSON parser stops near 254 levels; the SDK's reader would answer the line
    with an error event and drop it (a tool's deeply nested JSON result would never arrive)."""
    deep = '{"session_id": "s", "event": "backwards_response", "data": {"v": ' + "[" * 400 + "]" * 400 + "}}"
    with pytest.raises(ValidationError, match="recursion limit"):
        TypeAdapter(dict[str, Any]).validate_json(deep)
    parsed = shared_type_adapter(dict[str, Any]).validate_json(deep)
    assert parsed == json.loads(deep)
    with pytest.raises(ValidationError, match=r"EOF|Invalid JSON"):  # other errors stay errors
        shared_type_adapter(dict[str, Any]).validate_json('{"session_id": ')
    with pytest.raises(ValidationError):  # parsed, but not the type asked for
        shared_type_adapter(dict[str, Any]).validate_json("[" * 400 + "]" * 400)


@pytest.mark.parametrize("message", YIELDED, ids=lambda message: message.type.value)
def test_the_session_message_built_unvalidated_is_the_validated_one(message):
    assert sdk_speedups._session_message_checks_nothing()  # the SDK's model is the one this was written for
    wrapped = stream_object_as_json(_Capture(), message)
    validated = SessionMessage(type=SessionMessage.Type.STREAM, data=wrapped.data)
    assert type(wrapped) is SessionMessage
    assert wrapped == validated and wrapped.model_fields_set == validated.model_fields_set
    assert wrapped.model_dump() == validated.model_dump() and wrapped.model_dump_json() == validated.model_dump_json()


class _Stdout:
    """A stand-in for ``sys.stdout`` that records each write and flush."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def write(self, text: str) -> int:
        self.calls.append(text)
        return len(text)

    def flush(self) -> None:
        self.calls.append("<flush>")


@contextlib.contextmanager
def _stdio_writer_together(monkeypatch) -> Iterator[_Stdout]:
    """``write_lines_together()`` applied (once: a second call leaves it) with stdout recorded;
    the SDK's own ``StdioResponseWriter.write`` put back afterwards."""
    from dify_plugin.core.server.stdio.response_writer import StdioResponseWriter

    out = _Stdout()
    monkeypatch.setattr(sys, "stdout", out)
    original = StdioResponseWriter.__dict__["write"]
    try:
        if original is not sdk_speedups.write_at_next_pass:  # not yet applied (by importing main)
            assert write_lines_together() is True
        assert StdioResponseWriter.__dict__["write"] is sdk_speedups.write_at_next_pass
        assert write_lines_together() is False  # already replaced: left as it is
        yield out
    finally:
        sdk_speedups.flush_pending()
        StdioResponseWriter.write = original


def test_lines_of_one_stretch_of_work_go_out_in_one_write_at_the_hubs_next_pass(monkeypatch):
    """A round writes its lines in stretches with no wait between them: each stretch in one
    system call (each call wakes the daemon's reader), the same text in the same order."""
    import gevent
    from dify_plugin.core.server.stdio.response_writer import StdioResponseWriter

    with _stdio_writer_together(monkeypatch) as out:
        writer = StdioResponseWriter()
        writer.write('{"n":1}\n\n')
        writer.write('{"n":2}\n\n')
        assert out.calls == []  # kept while this greenlet works on
        gevent.sleep(0)  # it waits: the hub writes what was kept
        assert out.calls == ['{"n":1}\n\n{"n":2}\n\n', "<flush>"]
        writer.write('{"n":3}\n\n')
        gevent.sleep(0)
        assert out.calls[2:] == ['{"n":3}\n\n', "<flush>"]


def test_a_line_written_from_another_os_thread_goes_out_at_once_after_what_was_kept(monkeypatch):
    from dify_plugin.core.server.stdio.response_writer import StdioResponseWriter
    from gevent import monkey

    start_thread = monkey.get_original("_thread", "start_new_thread")
    done = monkey.get_original("_thread", "allocate_lock")()
    done.acquire()

    def from_a_thread() -> None:
        StdioResponseWriter().write("b\n\n")
        done.release()

    with _stdio_writer_together(monkeypatch) as out:
        StdioResponseWriter().write("a\n\n")
        start_thread(from_a_thread, ())
        assert done.acquire(timeout=10)
        assert out.calls == ["a\n\n", "<flush>", "b\n\n", "<flush>"]


_BURST_CHILD = r"""
import gc, sys, time
import dify_plugin  # gevent's monkey patching, as in the plugin process
import gevent
from agent_core.sdk_speedups import read_stdin_nonblocking, share_type_adapters
from dify_plugin.core.server.stdio.request_reader import StdioRequestReader

gc.freeze()  # as main.py sets the process up
share_type_adapters()
assert read_stdin_nonblocking()
reader = StdioRequestReader()
heavy = reader.read(lambda line: True)
gaps, done = [], []

def other_session():
    # CPU seconds of this process between two turns of this greenlet: what the others computed
    # before it ran again (wall time also counts other processes of a loaded machine: 0.16 s)
    last = time.process_time()
    while not done:
        gevent.sleep(0.005)
        now = time.process_time()
        gaps.append(now - last)
        last = now

def heavy_session():
    for n, _ in enumerate(heavy.read(), start=1):
        if n == int(sys.argv[1]):
            break
    done.append(True)

others = gevent.spawn(other_session)
gevent.sleep(0.02)  # the other session waits on its timer when the burst is read
gevent.spawn(reader.event_loop)
gevent.joinall([others, gevent.spawn(heavy_session)])
sys.stderr.write(f"worst_gap={max(gaps):.3f}\n")
"""


def test_a_burst_of_lines_faster_than_they_are_parsed_lets_the_other_greenlets_run():
    """The daemon writes a model reply's chunks faster than the SDK parses them, so the stdin
    reader never finds the pipe empty: without giving way it read, parsed and queued every line
    of the burst before any other session (or the heartbeat) ran again (3.2 s for 100,000 lines).
    Here 60,000 lines are written into a 1 MiB pipe as fast as it takes them; the other session's
    worst gap is counted in the CPU seconds its process spent meanwhile."""
    line = b'{"session_id": "s", "event": "request", "data": {"delta": {"message": {"content": ""}}}}\n'
    lines = 60_000
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 1 << 20)
    with os.fdopen(write_end, "wb") as pipe:
        child = subprocess.Popen([sys.executable, "-c", _BURST_CHILD, str(lines)], stdin=read_end,
                                 stderr=subprocess.PIPE, cwd=Path(__file__).resolve().parents[2])
        os.close(read_end)
        pipe.write(line * lines)
    _, stderr = child.communicate(timeout=120)
    assert child.returncode == 0, stderr.decode()
    assert float(stderr.decode().split("worst_gap=")[1]) < 0.1


def _tool_line(records: int, text: str = "item") -> bytes:
    objects = [{"id": n, "name": f"{text} {n}", "tags": ["a", None, 1.5]} for n in range(records)]
    message = {"type": "json", "message": {"json_object": {"records": objects}}, "meta": None}
    return json.dumps({"session_id": "s", "event": "backwards_response",
                       "data": {"backwards_request_id": "r", "event": "response", "data": message}},
                      ensure_ascii=False, separators=(",", ":")).encode()


def test_a_line_of_megabytes_is_read_in_pieces_giving_way_to_the_same_value(monkeypatch):
    """pydantic-core parses a line in C without giving way: a tool's JSON message of 5 MB held
    every other session of the process 140-350 ms. A large line is read in windows, the other
    sessions running between them, into the value pydantic-core reads."""
    from agent_core import json_pieces

    offers = []
    monkeypatch.setattr(json_pieces, "give_way", lambda: offers.append(1))
    line = _tool_line(30_000, "ítem")
    assert len(line) > sdk_speedups.LARGE_LINE_BYTES
    assert shared_type_adapter(dict[str, Any]).validate_json(line) == TypeAdapter(dict[str, Any]).validate_json(line)
    assert len(offers) >= 10


def test_a_large_line_pydantic_refuses_or_reads_its_own_way_is_read_as_before(monkeypatch):
    from agent_core import json_pieces

    offers = []
    monkeypatch.setattr(json_pieces, "give_way", lambda: offers.append(1))
    line = _tool_line(30_000)
    with pytest.raises(ValidationError):  # cut: pydantic's own error, as before
        shared_type_adapter(dict[str, Any]).validate_json(line[:-1])
    offers.clear()
    surrogate = line.replace(b'"item 7"', b'"item \\ud800"')
    assert shared_type_adapter(dict[str, Any]).validate_json(surrogate)["data"]["data"]["message"]["json_object"][
        "records"][7]["name"] == "item \ufffd"
    assert not offers  # read by pydantic-core, then by json.loads, as before
    with pytest.raises(ValidationError):  # an array is no line
        shared_type_adapter(dict[str, Any]).validate_json(b"[" + line + b"]")


@pytest.mark.parametrize(("line", "session"), [
    (b'{"session_id":"s-1","event":"request","data":{}}', "s-1"),
    (b'{ "session_id" : "s-1" , "data": {}}', "s-1"),
    (b'{"app_id":"a","data":{"x":[1]},"event":"request","session_id":"s-2"}', "s-2"),  # Go's sorted map keys
    (b'{"data":{"session_id":"inner"},"event":"request"}', None),
    (b'{"data":{"x":1,"session_id":"inner"}}', None),
    (b'{"data":"\\",\\"session_id\\":\\"fake\\"}"}', None),  # in a string: escaped quotes
    (b'{"data":{},"session_id":null}', None),
    (b'{"session_id":"a\\"b","data":{}}', None),  # an escape: left to the parser
    (b'{"data":{},"session_id":"' + "日本".encode() + b'"}', "日本"),
])
def test_a_lines_session_is_read_from_its_first_or_last_member_only(line, session):
    assert sdk_speedups.outer_session(line) == session
    if session is not None:
        assert json.loads(line)["session_id"] == session


def test_a_large_line_is_read_aside_while_the_other_sessions_lines_go_on_in_order(monkeypatch):
    """The daemon writes every session's lines into one pipe: parsed in turn, a tool's JSON
    message of megabytes held the lines of a session streaming beside it for its whole parse.
    Read aside, the other sessions' lines pass it; its own session's lines wait for it, in order."""
    import gevent
    from dify_plugin.core.server.stdio.request_reader import StdioRequestReader
    from dify_plugin.core.server.stdio.response_writer import StdioResponseWriter

    from agent_core import json_pieces

    monkeypatch.setattr(json_pieces, "give_way", lambda: gevent.sleep(0))  # a switch at every item
    monkeypatch.setattr(sdk_speedups, "LARGE_LINE_BYTES", 5000)

    def line(session, n, records=0, last=False):
        data = {"event": "response", "n": n, "records": [{"id": i, "v": "x"} for i in range(records)]}
        fields = {"event": "backwards_response", "data": data}
        body = {**fields, "session_id": session} if last else {"session_id": session, **fields}
        return json.dumps(body, separators=(",", ":")).encode()

    sent = [line("A", 1, 2000), line("A", 2), line("B", 1), line("C", 1, 2000, last=True), line("B", 2),
            line("C", 2), line("A", 3, 2000), line("A", 4), line("B", 3),
            b'{"data":{"event":"response","n":1,"records":[' + b'{"id":1},' * 1000 + b'{}]},"event":"backwards_'
            b'response","session_id":"D","x":1}', line("B", 4), b"not json"]
    chunks = [b"\n".join(sent[:5]) + b"\n" + sent[5][:10], sent[5][10:] + b"\n" + b"\n".join(sent[6:]) + b"\n"]
    reader = StdioRequestReader()
    reader._read_async = lambda: chunks.pop(0) if chunks else gevent.sleep(0.01) or b""
    handed: list[tuple[str, int]] = []
    reader._process_line = lambda stream: handed.append((stream.session_id, stream.data["n"]))
    errors: list[Any] = []
    monkeypatch.setattr(StdioResponseWriter, "error", lambda self, **kwargs: errors.append(kwargs))

    def loop():
        for stream in sdk_speedups.read_stream_aside(reader):
            reader._process_line(stream)

    runner = gevent.spawn(loop)
    gevent.sleep(1.0)
    runner.kill()
    assert sorted(handed) == sorted([("A", 1), ("A", 2), ("A", 3), ("A", 4), ("B", 1), ("B", 2), ("B", 3), ("B", 4),
                                     ("C", 1), ("C", 2), ("D", 1)])
    for session in "ABCD":  # each session's lines in the order sent
        numbers = [n for s, n in handed if s == session]
        assert numbers == sorted(numbers)
    assert handed.index(("B", 2)) < handed.index(("A", 1))  # B was not held behind A's large line
    assert handed.index(("B", 2)) < handed.index(("C", 1))
    assert handed.index(("D", 1)) > max(handed.index(("A", 2)), handed.index(("C", 2)))  # whose: known once parsed
    assert len(errors) == 1 and "error" in errors[0]["data"]  # the line that is not JSON, as the SDK reports it


def test_a_large_line_of_one_long_text_is_left_to_pydantic(monkeypatch):
    """pydantic-core reads 5 MB of one string in half a millisecond: a line of few values is not
    worth reading in pieces (40 times slower on it)."""
    from agent_core import json_pieces

    offers = []
    monkeypatch.setattr(json_pieces, "give_way", lambda: offers.append(1))
    monkeypatch.setattr(json_pieces, "loads", lambda *args, **kwargs: pytest.fail("read in pieces"))
    line = json.dumps({"session_id": "s", "event": "backwards_response",
                       "data": {"type": "text", "message": {"text": "record 7; value abc " * 50_000}}}).encode()
    assert len(line) > sdk_speedups.LARGE_LINE_BYTES
    assert shared_type_adapter(dict[str, Any]).validate_json(line) == json.loads(line)


def test_a_line_with_bytes_that_are_not_utf8_is_read_with_a_replacement_not_dropped():
    """pydantic-core refuses the line ("invalid unicode code point"): the SDK's reader would drop
    it, one model chunk of an answer or one tool message lost without a word. It is read with
    U+FFFD for each invalid sequence, as Go's decoder reads it; a line that is not JSON stays an error."""
    line = b'{"session_id": "s", "event": "backwards_response", "data": {"text": "the CA\xff\xfeE is \xc3\xa9t\xc3"}}'
    with pytest.raises(ValidationError, match="invalid unicode code point"):
        TypeAdapter(dict[str, Any]).validate_json(line)
    parsed = shared_type_adapter(dict[str, Any]).validate_json(line)
    assert parsed["data"] == {"text": "the CA\ufffd\ufffdE is \u00e9t\ufffd"}
    with pytest.raises(ValidationError):
        shared_type_adapter(dict[str, Any]).validate_json(b'{"session_id": "s\xff", "event": ')


def test_each_sessions_request_is_run_once():
    """The daemon gives every request a session of its own: a request read again for a session
    (sent twice, or a second one while the first runs) would call every tool of the run twice.
    The last ``limit`` sessions are remembered."""
    first = sdk_speedups.FirstRequests(limit=2)
    assert [first.first(s) for s in ("a", "b", "a", "b")] == [True, True, False, False]
    assert first.first("c") and first.first("a"), "only the last two are remembered"
    assert not first.first("c")


def test_a_second_request_line_of_a_session_is_not_handed_on(monkeypatch):
    """Through the reader's line parser: the request is handed on once, its backwards replies
    always; the second request is answered with a session-less error event naming the session."""
    from dify_plugin.core.server.stdio.request_reader import StdioRequestReader
    from dify_plugin.core.server.stdio.response_writer import StdioResponseWriter

    errors: list[Any] = []
    monkeypatch.setattr(StdioResponseWriter, "error", lambda self, **kwargs: errors.append(kwargs))
    monkeypatch.setattr(sdk_speedups, "_FIRST_REQUESTS", sdk_speedups.FirstRequests())
    reader = StdioRequestReader()

    def line(session, event):
        return json.dumps({"session_id": session, "event": event, "data": {"n": 1}}).encode()

    lines = [line("s1", "request"), line("s1", "backwards_response"), line("s1", "request"),
             line("s1", "backwards_response"), line("s2", "request")]
    handed = [(stream.session_id, stream.event.value) for raw in lines
              if (stream := sdk_speedups._stream_of(reader, raw)) is not None]
    assert handed == [("s1", "request"), ("s1", "backwards_response"), ("s1", "backwards_response"),
                      ("s2", "request")]
    assert len(errors) == 1 and "s1" in errors[0]["data"]["error"] and "session_id" not in errors[0]


def test_a_requests_arrival_is_noted_before_its_parse_and_once(monkeypatch):
    """A run's time limit counts from when its request arrived (``arrivals``): the stamp is taken
    before the line is parsed (a request of megabytes takes its time), for requests only, and a
    request sent again keeps the first one's."""
    from dify_plugin.core.server.stdio.request_reader import StdioRequestReader
    from dify_plugin.core.server.stdio.response_writer import StdioResponseWriter

    from agent_core import arrivals

    monkeypatch.setattr(StdioResponseWriter, "error", lambda self, **kwargs: None)
    monkeypatch.setattr(sdk_speedups, "_FIRST_REQUESTS", sdk_speedups.FirstRequests())
    clock = iter([100.0, 200.0, 300.0])
    monkeypatch.setattr(sdk_speedups.time, "monotonic", lambda: next(clock))
    reader = StdioRequestReader()

    def line(session, event):
        return json.dumps({"session_id": session, "event": event, "data": {"n": 1}}).encode()

    sdk_speedups._stream_of(reader, line("arrival-1", "backwards_response"))
    assert arrivals.arrived("arrival-1") is None
    sdk_speedups._stream_of(reader, line("arrival-1", "request"))
    sdk_speedups._stream_of(reader, line("arrival-1", "request"))
    assert arrivals.arrived("arrival-1") == 200.0


def test_a_serverless_requests_arrival_is_noted():
    from agent_core import arrivals

    assert sdk_speedups.first_request_or_refusal({"event": "request", "session_id": "arrival-http"}) is None
    assert arrivals.arrived("arrival-http") is not None


def _router_with_agent_route():
    from dify_plugin.core.server.router import Route, Router

    router = Router.__new__(Router)
    router.routes = [Route(lambda data: data.get("type") == "agent_strategy", lambda session, data: iter(()))]
    return router


@pytest.mark.parametrize(("data", "named"), [
    ({"type": "tool", "action": "invoke_tool"}, "'tool' and action 'invoke_tool'"),
    ({"action": "x" * 200}, "type None and action 'xxx"),
    (["a"], "JSON array"),
    ("text", "JSON string"),
    (None, "JSON null"),
])
def test_a_request_no_route_takes_is_refused_with_why(data, named):
    dispatch = sdk_speedups.dispatch_or_refuse(lambda self, session, data: None)
    with pytest.raises(ValueError, match=r"no handler|not an object") as raised:
        dispatch(_router_with_agent_route(), None, data)
    assert named in str(raised.value)
    assert len(str(raised.value)) < 300


def test_a_request_a_route_takes_is_dispatched_as_before():
    seen = []
    dispatch = sdk_speedups.dispatch_or_refuse(lambda self, session, data: seen.append(data) or "response")
    assert dispatch(_router_with_agent_route(), None, {"type": "agent_strategy"}) == "response"
    assert seen == [{"type": "agent_strategy"}]


def test_a_leading_byte_order_mark_is_dropped_from_a_daemon_line():
    from dify_plugin.core.entities.plugin.io import PluginInStreamEvent

    line = json.dumps({"session_id": "s-bom", "event": "backwards_response", "data": {}}).encode()
    streams = list(sdk_speedups.streams_read_aside(types.SimpleNamespace(), {}, [b"\xef\xbb\xbf" + line + b"\r"],
                                                   writer=types.SimpleNamespace(error=pytest.fail)))
    assert [(s.session_id, s.event) for s in streams] == [("s-bom", PluginInStreamEvent.BackwardInvocationResponse)]


@pytest.mark.parametrize("data", ["oops", [1], None, 5])
def test_a_backwards_reply_whose_data_is_no_object_is_refused_by_size_and_why(data):
    errors = []
    writer = types.SimpleNamespace(error=lambda data: errors.append(data))
    line = json.dumps({"session_id": "s-odd", "event": "backwards_response", "data": data}).encode()
    assert sdk_speedups._stream_of(types.SimpleNamespace(), line, writer) is None
    assert errors == [{"error": f"a line of {len(line)} bytes from the daemon could not be read: "
                                f"{sdk_speedups.DATA_NO_OBJECT}"}]


def test_a_request_its_route_model_refuses_names_fields_not_values():
    from pydantic import BaseModel as Model

    class Request(Model):
        user_id: str
        params: dict

    def dispatch(self, session, data):
        return Request(**data)

    refusing = sdk_speedups.dispatch_or_refuse(dispatch)
    with pytest.raises(ValueError, match="could not be read") as raised:
        refusing(_router_with_agent_route(), None, {"user_id": {"k": "SECRET-1"}, "params": ["SECRET-2"]})
    text = str(raised.value)
    assert "user_id: Input should be a valid string" in text and "params: Input should be a valid dictionary" in text
    assert "SECRET" not in text and "errors.pydantic.dev" not in text


@pytest.mark.parametrize(("context", "credentials"), [
    ({"credentials": None}, {}),
    ({"credentials": {"tool_credentials": None}}, {}),
    ({}, {}),
    (["x"], {}),
    ({"credentials": {"tool_credentials": {"a/b/c": "id-1", "d/e/f": None, "g/h/i": 7}}},
     {"a/b/c": "id-1", "g/h/i": "7"}),
    ({"credentials": {"tool_credentials": {"a/b/c": "id-1"}}, "trace": 1}, {"a/b/c": "id-1"}),
])
def test_a_session_context_holding_nulls_dify_may_send_is_read(context, credentials):
    from dify_plugin.core.runtime import SessionContext

    read = sdk_speedups.session_context(context)
    parsed = SessionContext.model_validate(read) if read is not None else SessionContext()
    assert parsed.credentials.tool_credentials == credentials


def test_a_request_again_for_a_running_session_is_refused_aside_and_for_an_ended_one_in_the_session(monkeypatch):
    monkeypatch.setattr(sdk_speedups, "_TRACKING_RUNS", [True])
    monkeypatch.setattr(sdk_speedups, "_RUNNING", {"s-running"})
    written = []
    writer = types.SimpleNamespace(
        error=lambda data: written.append(("error", None, data)),
        session_message=lambda session_id, data: written.append(("session", session_id, data)),
        stream_error_object=lambda data: {"type": "error", "data": data},
        stream_end_object=lambda: {"type": "end", "data": {}})
    sdk_speedups.refuse_duplicate(writer, "s-running")
    assert [kind for kind, _, _ in written] == ["error"], "the running session's end is its own run's"
    written.clear()
    sdk_speedups.refuse_duplicate(writer, "s-ended")
    assert [(kind, session, data["type"]) for kind, session, data in written] == [
        ("session", "s-ended", "error"), ("session", "s-ended", "end")]
    assert "second request for session s-ended" in written[0][2]["data"]["message"]
