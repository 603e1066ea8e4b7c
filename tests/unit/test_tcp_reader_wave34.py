"""The pure parts of the remote-debugging and serverless reader changes (agent_core.sdk_speedups,
agent_core.waiting): lines joined once, a session's second request refused, an unreadable line
named without its text, and a backwards call failing once its connection was lost."""

import threading

import pytest
from pydantic import TypeAdapter, ValidationError

from agent_core import sdk_speedups, waiting
from agent_core.sdk_speedups import DUPLICATE_STATUS, FirstRequests, _reason, first_request_or_refusal, line_pieces


def test_line_pieces_join_a_long_line_once_and_keep_the_rest():
    pending: list[bytes] = []
    assert line_pieces(pending, b'{"a": 1}\n{"b"') == [b'{"a": 1}']
    assert line_pieces(pending, b": 2") == []
    assert line_pieces(pending, b"}\n\n{") == [b'{"b": 2}', b""]
    assert pending == [b"{"]
    assert line_pieces(pending, b"}\n") == [b"{}"] and pending == []


def test_line_pieces_give_the_same_lines_as_the_whole_text_however_it_is_cut():
    text = b'{"x": "' + b"y" * 5000 + b'"}\n\n{"z": 1}\nend'
    for size in (1, 7, 64, 4096):
        pending: list[bytes] = []
        lines = [line for start in range(0, len(text), size) for line in line_pieces(pending, text[start:start + size])]
        assert lines == text.split(b"\n")[:-1] and b"".join(pending) == b"end"


def test_a_sessions_second_request_is_refused_and_anything_else_passes(monkeypatch):
    monkeypatch.setattr(sdk_speedups, "_FIRST_REQUESTS", FirstRequests())
    request = {"event": "request", "session_id": "s1", "data": {}}
    assert first_request_or_refusal(request) is None
    body, status = first_request_or_refusal(request)
    assert status == DUPLICATE_STATUS == 409 and "s1" in body["errorType"] and "not run" in body["errorType"]
    assert first_request_or_refusal({**request, "session_id": "s2"}) is None
    for other in (None, [], {"event": "request"}, {"event": "request", "session_id": 5}, {"session_id": "s1"}):
        assert first_request_or_refusal(other) is None


def test_an_unreadable_line_is_named_without_its_text():
    line = b'{"session_id": "s", "x": "' + b"y" * 1000 + b'canary-secret'
    with pytest.raises(ValidationError) as caught:
        TypeAdapter(dict).validate_json(line)
    assert "canary-secret" in str(caught.value), "pydantic quotes the line's end"
    reason = _reason(caught.value)
    assert "canary-secret" not in reason and "EOF" in reason
    assert _reason(ValueError("canary-secret")) == "ValueError"


class _Line:
    def __init__(self, data):
        self.data = data


def test_a_backwards_call_fails_at_its_next_poll_once_the_connection_was_lost(monkeypatch):
    monkeypatch.setattr(waiting, "_CONNECTIONS_LOST", [0])
    monkeypatch.setattr(waiting, "_INPUT_ENDED", [])

    def lines():
        yield _Line({"n": 1})
        yield None
        waiting.connection_lost()
        yield _Line({"n": 2})  # read before the poll: handed on
        yield None
        yield _Line({"n": 3})

    events = waiting.daemon_events(lines(), None)
    assert next(events) == {"n": 1}
    assert next(events) == {"n": 2}
    with pytest.raises(ConnectionError, match="connection to the daemon was lost"):
        next(events)
    # a call made on the new connection waits as usual
    fresh = waiting.daemon_events(iter([None, _Line({"n": 4})]), None)
    assert list(fresh) == [{"n": 4}]


def test_a_reconnection_after_a_failed_write_ends_the_calls_waiting_on_the_old_connection(monkeypatch):
    """The SDK's ``write`` connects again itself when a write fails; the reader then reads the new
    socket and never sees the old one fail. The calls waiting for replies on the old connection
    must end at their next poll all the same, not after the SDK's invocation limit."""
    from dify_plugin.core.server.tcp.request_reader import TCPReaderWriter

    for name in ("_read_stream", "_launch"):  # restored after the test
        monkeypatch.setattr(TCPReaderWriter, name, TCPReaderWriter.__dict__[name])
    monkeypatch.setattr(waiting, "_CONNECTIONS_LOST", [0])
    monkeypatch.setattr(waiting, "_INPUT_ENDED", [])
    assert sdk_speedups.read_tcp_lines_safely()

    class Socket:
        def __init__(self, broken):
            self.broken, self.sent = broken, []

        def sendall(self, data):
            if self.broken:
                raise BrokenPipeError(32, "Broken pipe")
            self.sent.append(data)

        def send(self, data):  # the SDK's gevent path
            self.sendall(data)
            return len(data)

    class Reader(TCPReaderWriter):
        def _connect_once(self):
            self.sock, self.alive = Socket(broken=False), True

    reader = TCPReaderWriter.__new__(Reader)  # not __init__: it takes over SIGINT
    reader.host, reader.port, reader.reconnect_attempts, reader.reconnect_timeout = "daemon", 5003, 3, 0
    reader.sock, reader.alive, reader.opt_lock = Socket(broken=True), True, threading.Lock()

    def lines():
        yield None  # the call waits
        reader.write("a tool's result\n")  # the daemon went away: the SDK connects again from write
        yield None

    events = waiting.daemon_events(lines(), None)
    with pytest.raises(ConnectionError, match="connection to the daemon was lost"):
        next(events)
    assert reader.sock.broken is False  # on the new connection
