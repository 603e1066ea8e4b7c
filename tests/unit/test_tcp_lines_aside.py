"""Remote debugging's reader (``agent_core.sdk_speedups.read_tcp_stream``) reads a large line aside
as the stdio reader does: the daemon sends every session's lines on the one TCP connection, and a
tool's JSON message of megabytes parsed in turn held a session streaming beside it 240-330 ms."""

from __future__ import annotations

import json
from typing import Any

import gevent
import pytest

from agent_core import json_pieces, sdk_speedups


def _line(session: str, n: int, records: int = 0) -> bytes:
    data = {"event": "response", "n": n, "records": [{"id": i, "v": "x"} for i in range(records)]}
    return json.dumps({"session_id": session, "event": "backwards_response", "data": data},
                      separators=(",", ":")).encode()


def _reader(chunks: list[bytes]) -> tuple[Any, list[tuple[str, int]], list[dict[str, Any]]]:
    """A ``TCPReaderWriter`` that reads ``chunks`` and records what it hands on and the error events
    it writes (made without connecting: its constructor also takes over SIGINT)."""
    from dify_plugin.core.server.tcp.request_reader import TCPReaderWriter

    reader = TCPReaderWriter.__new__(TCPReaderWriter)
    reader.alive, reader.host, reader.port, reader.reconnect_timeout = True, "127.0.0.1", 5003, 0
    reader._read_data = lambda: chunks.pop(0) if chunks else gevent.sleep(0.01)
    handed: list[tuple[str, int]] = []
    errors: list[dict[str, Any]] = []
    reader._process_line = lambda stream: handed.append((stream.session_id, stream.data["n"]))
    reader.error = lambda **kwargs: errors.append(kwargs)
    return reader, handed, errors


def _read_for(reader: Any, seconds: float) -> None:
    def loop() -> None:
        for stream in sdk_speedups.read_tcp_stream(reader):
            reader._process_line(stream)

    runner = gevent.spawn(loop)
    gevent.sleep(seconds)
    runner.kill()


def test_a_large_line_on_tcp_is_read_aside_while_the_other_sessions_lines_go_on(monkeypatch):
    monkeypatch.setattr(json_pieces, "give_way", lambda: gevent.sleep(0))  # a switch at every item
    monkeypatch.setattr(sdk_speedups, "LARGE_LINE_BYTES", 5000)
    monkeypatch.setattr(sdk_speedups, "_FIRST_REQUESTS", sdk_speedups.FirstRequests())
    sent = [_line("A", 1, 2000), _line("A", 2), _line("B", 1), _line("B", 2), _line("A", 3), b"not json",
            _line("B", 3)]
    text = b"\n".join(sent) + b"\n"
    chunks = [text[start:start + 65536] for start in range(0, len(text), 65536)]  # cut as a socket reads
    reader, handed, errors = _reader(chunks)
    _read_for(reader, 1.0)
    assert sorted(handed) == sorted([("A", 1), ("A", 2), ("A", 3), ("B", 1), ("B", 2), ("B", 3)])
    assert [n for s, n in handed if s == "A"] == [1, 2, 3], "its own session's lines wait for it, in order"
    assert handed.index(("B", 2)) < handed.index(("A", 1)), "B is not held behind A's large line"
    assert len(errors) == 1 and "could not be read" in errors[0]["data"]["error"]


def test_a_large_request_read_twice_on_tcp_is_run_once(monkeypatch):
    """Read aside too, a session's second request is refused with the session-less error event."""
    monkeypatch.setattr(sdk_speedups, "LARGE_LINE_BYTES", 5000)
    monkeypatch.setattr(sdk_speedups, "_FIRST_REQUESTS", sdk_speedups.FirstRequests())
    request = json.dumps({"session_id": "R", "event": "request",
                          "data": {"n": 1, "query": "q" * 10_000}}).encode()
    reader, handed, errors = _reader([request + b"\n" + request + b"\n"])
    _read_for(reader, 0.3)
    assert handed == [("R", 1)]
    assert len(errors) == 1 and "second request for session R" in errors[0]["data"]["error"]


def test_an_error_event_that_cannot_be_written_loses_no_other_line(monkeypatch, caplog):
    """The connection went while the reader answered an unreadable line: the line is logged by its
    size and reason, never its text, and the lines after it are still handed on."""
    monkeypatch.setattr(sdk_speedups, "_FIRST_REQUESTS", sdk_speedups.FirstRequests())
    reader, handed, _ = _reader([b'{"secret": "canary-7781"\n' + _line("B", 1) + b"\n"])

    def broken(**_: Any) -> None:
        raise OSError("connection is dead")

    reader.error = broken
    _read_for(reader, 0.3)
    assert handed == [("B", 1)]
    assert "canary-7781" not in caplog.text and "could not be read" in caplog.text


@pytest.mark.parametrize("cut", [1, 7, 4096])
def test_lines_cut_anywhere_by_the_socket_are_handed_on_whole(monkeypatch, cut):
    monkeypatch.setattr(sdk_speedups, "LARGE_LINE_BYTES", 5000)
    monkeypatch.setattr(sdk_speedups, "_FIRST_REQUESTS", sdk_speedups.FirstRequests())
    text = b"\n".join([_line("A", 1, 500), _line("B", 1), _line("A", 2)]) + b"\n"
    reader, handed, errors = _reader([text[start:start + cut] for start in range(0, len(text), cut)])
    _read_for(reader, 0.5 if cut > 1 else 2.0)
    assert sorted(handed) == [("A", 1), ("A", 2), ("B", 1)] and not errors


def test_a_refused_serverless_request_says_why_in_what_the_daemon_shows(monkeypatch):
    """The daemon shows a refused ``/invoke`` as "Plugin runtime request failed: " and the
    ``errorType`` of a JSON body of at most 4 KiB, else only the status ("409 Conflict")."""
    monkeypatch.setattr(sdk_speedups, "_FIRST_REQUESTS", sdk_speedups.FirstRequests())
    for session in ("5f0c-uuid", "é" * 50_000):
        request = {"event": "request", "session_id": session, "data": {}}
        assert sdk_speedups.first_request_or_refusal(request) is None
        body, status = sdk_speedups.first_request_or_refusal(request)
        assert status == 409 and "second request" in body["errorType"] and session[:20] in body["errorType"]
        assert len(json.dumps(body).encode()) <= sdk_speedups.ERROR_BODY_BYTES


def test_a_reply_line_that_is_not_json_is_named_by_size_and_reason_only():
    """The serverless reader parses the daemon's HTTP reply whatever its status: a refusal (``400
    session not found``) or any line that is not JSON reached the user as "Invalid JSON" with the
    line quoted in the traceback. It now says what happened and never quotes the line."""
    from pydantic import TypeAdapter, ValidationError

    from agent_core import waiting

    def lines():
        yield None
        TypeAdapter(dict[str, Any]).validate_json(b"session not found W35-canary")
        yield None

    with pytest.raises(ConnectionError) as caught:
        list(waiting.daemon_events(lines(), None))
    text = str(caught.value)
    assert "not a session message" in text and "28 bytes" in text and "Invalid JSON" in text
    assert "canary" not in text and caught.value.__cause__ is None and caught.value.__suppress_context__
    assert isinstance(caught.value.__context__, ValidationError)  # kept for Python, not shown: suppressed
