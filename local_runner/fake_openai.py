"""A tiny OpenAI-compatible server on 127.0.0.1 for tests: it streams scripted server-sent
events and records every request body.

    with FakeOpenAIServer() as server:
        server.replies.append([chat_event({"content": "Hi"}, finish="stop")])
        backend = OpenAICompatibleBackend(server.base_url)
        ...
        assert server.requests[0] == ("/v1/chat/completions", {...body...})
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def chat_event(
    delta: dict[str, Any] | None, finish: str | None = None, usage: dict[str, int] | None = None
) -> dict[str, Any]:
    """One ``chat.completion.chunk`` event: a choice with ``delta`` (``None``: no choice,
    as in the final usage-only event) and ``finish`` reason, plus optional ``usage``."""
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "fake",
        "choices": choices,
        "usage": usage,
    }


def completion_event(text: str, finish: str | None = None) -> dict[str, Any]:
    """One ``text_completion`` stream event."""
    choice = {"index": 0, "text": text, "finish_reason": finish, "logprobs": None}
    return {"id": "cmpl-fake", "object": "text_completion", "created": 0, "model": "fake", "choices": [choice]}


class FakeOpenAIServer:
    """Answers the n-th POST with ``replies[n]`` (a list of events) as a server-sent-event
    stream ending in ``[DONE]`` (HTTP 500 when no reply is left); ``requests`` holds
    ``(path, body)`` of each request. Context manager."""

    def __init__(self) -> None:
        self.replies: list[list[dict[str, Any]]] = []
        self.requests: list[tuple[str, dict[str, Any]]] = []
        owner = self
        lock = threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with lock:
                    owner.requests.append((self.path, body))
                    index = len(owner.requests) - 1
                if index >= len(owner.replies):
                    self.send_error(500, f"fake server: no reply scripted for request #{index + 1}")
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for event in owner.replies[index]:
                    self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")

            def log_message(self, format: str, *args: Any) -> None:
                """Stay quiet."""

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1``."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAIServer:
        threading.Thread(target=self._server.serve_forever, name="fake-openai", daemon=True).start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()
