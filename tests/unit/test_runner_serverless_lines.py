"""The serverless runner reads a session's response lines as the daemon does: a line over the
daemon's buffer (``PLUGIN_RUNTIME_MAX_BUFFER_SIZE``, 5 MiB) fails the session, so a test over this
transport sees it as it would under Dify (local_runner.serverless)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from local_runner import protocol
from local_runner.serverless import ServerlessPlugin


def _serving(lines: list[bytes]):
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.end_headers()
            for line in lines:
                self.wfile.write(line + b"\n\n")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _session_line(text: str) -> bytes:
    return json.dumps({"event": "session", "session_id": "s1",
                       "data": {"type": "stream", "data": {"type": "text", "message": {"text": text}}}}).encode()


@pytest.mark.parametrize(("size", "fails"), [(protocol.MAX_LINE_BYTES - 1_000, False),
                                             (protocol.MAX_LINE_BYTES + 1_000, True)])
def test_a_response_line_over_the_daemons_buffer_fails_the_session(monkeypatch, size, fails):
    line = _session_line("")
    line = _session_line("a" * (size - len(line)))
    assert len(line) == size
    server = _serving([line])
    try:
        plugin = ServerlessPlugin(port=server.server_address[1])
        failed, dispatched = [], []
        monkeypatch.setattr(plugin, "_fail", lambda session, reason: failed.append(reason))
        monkeypatch.setattr(plugin, "_dispatch", lambda decoded: dispatched.append(decoded))
        monkeypatch.setattr(plugin, "_record", lambda *args: None)
        plugin._invoke({"session_id": "s1", "event": "request", "data": {}})
    finally:
        server.shutdown()
    if fails:
        assert dispatched == []
        assert len(failed) == 1 and f"{size:,} bytes" in failed[0] and "fails the session" in failed[0]
    else:
        assert len(dispatched) == 1
        assert failed == ["the plugin closed the /invoke response before the session's end"]
