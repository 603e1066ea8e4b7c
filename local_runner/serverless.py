"""Serverless mode (protocol §3): the plugin is an HTTP server, the runner its daemon.

Started with ``INSTALL_METHOD=serverless``, ``SERVERLESS_HOST``/``SERVERLESS_PORT`` and
``DIFY_PLUGIN_DAEMON_URL``, the plugin serves ``GET /health`` and ``POST /invoke``: the body
is one daemon -> plugin request line, the response streams that session's ``session`` lines
(blank-line separated) up to its ``end``. There are no heartbeats, and backwards invocations
do not travel on that stream: the plugin POSTs each ``invoke`` line to
``{DIFY_PLUGIN_DAEMON_URL}/backwards-invocation/transaction`` (header
``Dify-Plugin-Session-ID``) and reads the ``backwards_response`` lines from that response.

    with ServerlessPlugin(plugin_dir) as plugin:        # starts it, waits for /health
        result = plugin.run(request, backend, toolbox)  # same API as PluginProcess

The runner's side of the transactions is a threading ``http.server`` on 127.0.0.1; answers
come from the run's backend and toolbox exactly as over stdio.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import socket
import subprocess
import threading
import time
import urllib.parse
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import yaml

from local_runner import protocol
from local_runner.daemon import (
    DEFAULT_PLUGIN_DIR,
    READY_TIMEOUT,
    PluginConnection,
    PluginError,
    RunHandle,
    plugin_command,
    plugin_env,
)

TRANSACTION_PATH = "/backwards-invocation/transaction"
SESSION_HEADER = "Dify-Plugin-Session-ID"
KEEPALIVE_INTERVAL = 25.0
"""Seconds of silence after which a transaction response gets a ``\\n\\n`` keep-alive."""
MAX_TRANSACTION_BODY = 6 * 1024 * 1024


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that was free a moment ago on ``host``."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


class ServerlessPlugin(PluginConnection):
    """The plugin in serverless mode, started by the runner: ``start()`` (or ``with``)
    launches it on ``host:port`` (default: a free port) with the runner's transaction server
    as its daemon, and waits for ``GET /health``. ``run()``/``start_run()`` as on a
    ``PluginProcess``; sessions may run concurrently. ``transactions`` lists every backwards
    call received (``session_header``, ``session_id``, ``type``, ``backwards_request_id``).
    """

    transport = "serverless"

    def __init__(
        self,
        plugin_dir: str | Path = DEFAULT_PLUGIN_DIR,
        *,
        python: str | None = None,
        env: Mapping[str, str] | None = None,
        host: str = "127.0.0.1",
        port: int | None = None,
        ready_timeout: float = READY_TIMEOUT,
        raw_llm_chunks: bool = False,
        keepalive_interval: float = KEEPALIVE_INTERVAL,
    ) -> None:
        super().__init__(plugin_dir, heartbeat_timeout=None, raw_llm_chunks=raw_llm_chunks)
        self.command = plugin_command(self.plugin_dir, python)
        self.extra_env = dict(env or {})
        self.host = host
        self.port = port
        self.ready_timeout = ready_timeout
        self.keepalive_interval = keepalive_interval
        self.transactions: list[dict[str, Any]] = []
        self.keepalives = 0
        """Keep-alive blank lines sent on transaction responses so far."""
        self._daemon: ThreadingHTTPServer | None = None
        self._invokes: list[threading.Thread] = []

    # -- life cycle -------------------------------------------------------------------------

    def __enter__(self) -> ServerlessPlugin:
        return self.start()

    @property
    def url(self) -> str:
        """The plugin's base URL."""
        return f"http://{self.host}:{self.port}"

    @property
    def daemon_url(self) -> str:
        """The runner's URL given to the plugin as ``DIFY_PLUGIN_DAEMON_URL``."""
        if self._daemon is None:
            raise PluginError("the transaction server is not running")
        return f"http://127.0.0.1:{self._daemon.server_address[1]}"

    def settings(self) -> dict[str, str]:
        """The plugin's serverless settings (environment variables)."""
        return {
            "INSTALL_METHOD": "serverless",
            "SERVERLESS_HOST": self.host,
            "SERVERLESS_PORT": str(self.port),
            "DIFY_PLUGIN_DAEMON_URL": self.daemon_url,
        }

    def start(self) -> ServerlessPlugin:
        """Start the transaction server and the plugin, and wait until ``/health`` answers
        (``PluginError`` with the stderr tail if it exits or does not within
        ``ready_timeout`` s)."""
        if not (self.plugin_dir / "manifest.yaml").exists():
            raise PluginError(f"{self.plugin_dir} is not a plugin folder (no manifest.yaml)")
        # the daemon knows the manifest from the package (no manifest line in this mode)
        self.manifest = yaml.safe_load((self.plugin_dir / "manifest.yaml").read_text(encoding="utf-8")) or {}
        self._daemon = ThreadingHTTPServer(("127.0.0.1", 0), _transaction_handler(self))
        self._daemon.daemon_threads = True
        threading.Thread(target=self._daemon.serve_forever, name="serverless-daemon", daemon=True).start()
        self.port = self.port or free_port(self.host)
        env = plugin_env(os.environ, {**self.extra_env, **self.settings()}, install_method="serverless")
        self._spawn(self.command, env, stdin=False)
        self._wait_healthy()
        return self

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + self.ready_timeout
        while not self.healthy():
            if self.returncode is not None:
                self._join_readers()
                self._stop_daemon()
                raise PluginError(f"plugin exited with code {self.returncode} before /health{self.diagnostics()}")
            if time.monotonic() > deadline:
                self.close()
                raise PluginError(
                    f"plugin did not answer GET /health within {self.ready_timeout:g} s{self.diagnostics()}"
                )
            time.sleep(0.1)
        self._ready.set()

    def healthy(self) -> bool:
        """True if ``GET /health`` answers 200 now."""
        connection = http.client.HTTPConnection(self.host, int(self.port or 0), timeout=2)
        try:
            connection.request("GET", "/health")
            return connection.getresponse().status == 200
        except OSError:
            return False
        finally:
            connection.close()

    def close(self) -> None:
        """Kill the plugin, stop the transaction server and fail open runs."""
        self._kill_process()
        self._stop_daemon()
        self._fail_all(self._death or "plugin process was closed by the runner")

    def _stop_daemon(self) -> None:
        daemon, self._daemon = self._daemon, None
        if daemon is not None:
            daemon.shutdown()
            daemon.server_close()

    def _stdout_line(self, line: dict[str, Any] | str) -> None:
        """The plugin's stdout carries its logs and the server's start-up banner."""
        self._record("stdout", line)
        if isinstance(line, str):
            self.noise.append(line)
        elif line.get("event") == "log":
            self._dispatch(line)

    # -- sessions -----------------------------------------------------------------------------

    def _send_request(self, line: dict[str, Any]) -> None:
        """POST the request line to ``/invoke`` and stream the session from the response, in
        a thread per session."""
        self._record("to_plugin", line)
        thread = threading.Thread(target=self._invoke, args=(line,), name="serverless-invoke", daemon=True)
        self._invokes.append(thread)
        thread.start()

    def _invoke(self, line: dict[str, Any]) -> None:
        session_id = str(line["session_id"])
        connection = http.client.HTTPConnection(self.host, int(self.port or 0), timeout=None)
        action = (line.get("data") or {}).get("action") if isinstance(line.get("data"), dict) else None
        # as the daemon posts it (dify-plugin-daemon internal/core/serverless_runtime/io.go, Write and
        # invokeServerlessWithRetry): the action in the query, the session id in a header, a stream accepted
        path = "/invoke?" + urllib.parse.urlencode({"action": str(action or "")})
        try:
            connection.request(
                "POST", path, body=protocol.encode_line(line),
                headers={"Content-Type": "application/json", "Accept": "text/event-stream",
                         # a header holds visible ASCII only (a test's odd session id goes without)
                         **({"Dify-Plugin-Session-ID": session_id}
                            if session_id.isascii() and session_id.isprintable() else {})},
            )
            response = connection.getresponse()
            if response.status != 200:
                body = response.read().decode("utf-8", errors="replace").strip()
                self._fail(session_id, f"POST /invoke answered {response.status}: {body}")
                return
            for raw in iter(response.readline, b""):
                if (size := len(raw.rstrip(b"\r\n"))) > protocol.MAX_LINE_BYTES:  # the daemon's reader fails the session
                    self._fail(session_id, (
                        f"the plugin wrote a response line of {size:,} bytes; the daemon reads at most "
                        f"{protocol.MAX_LINE_BYTES:,} (PLUGIN_RUNTIME_MAX_BUFFER_SIZE) and fails the session"))
                    return
                decoded = protocol.decode_line(raw)
                if isinstance(decoded, str):
                    self.noise.append(decoded)
                    self._record("from_plugin", decoded)
                elif decoded is not None:
                    self._record("from_plugin", decoded)
                    self._dispatch(decoded)
        except (OSError, http.client.HTTPException) as exc:
            self._fail(session_id, f"POST /invoke failed: {exc}")
            return
        finally:
            connection.close()
        self._fail(session_id, "the plugin closed the /invoke response before the session's end")

    def _fail(self, session_id: str, reason: str) -> None:
        """Fail the run of ``session_id`` if still open: with the process's exit if it died
        (given a moment to be reaped), else with ``reason``."""
        handle = self.run_of(session_id)
        if handle is None or handle.result.done:
            return
        if self._proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._proc.wait(timeout=1)
        handle.fail(self._gone() or reason)

    # -- backwards invocations ------------------------------------------------------------------

    def serve_transaction(self, header: str | None, body: bytes, respond: _Responder) -> None:
        """Answer one ``POST /backwards-invocation/transaction``: ``body`` is the plugin's
        ``invoke`` session line; the answers are ``backwards_response`` lines."""
        line = protocol.decode_line(body)
        if not isinstance(line, dict) or line.get("event") != "session":
            respond.status(400, "invalid session message")
            return
        self._record("from_plugin", line)
        message = line.get("data") or {}
        data = message.get("data") or {}
        session_id = str(line.get("session_id"))
        self.transactions.append(
            {
                "session_header": header,
                "session_id": session_id,
                "type": data.get("type"),
                "backwards_request_id": data.get("backwards_request_id"),
            }
        )
        handle: RunHandle | None = self.run_of(session_id)
        if message.get("type") != "invoke" or handle is None:
            respond.status(400, "session not found" if handle is None else "not an invoke message")
            return
        respond.start()

        def send(obj: dict[str, Any]) -> None:
            self._record("to_plugin", obj)
            respond.line(protocol.encode_line(obj) + b"\n")

        try:
            handle.serve_invocation(data, send)
        finally:
            respond.finish()


class _Responder:
    """A streamed (chunked) HTTP response with keep-alive blank lines while idle."""

    def __init__(self, handler: BaseHTTPRequestHandler, plugin: ServerlessPlugin) -> None:
        self.handler = handler
        self.plugin = plugin
        self.keepalive_interval = plugin.keepalive_interval
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._last_write = time.monotonic()
        self._broken = False

    def status(self, code: int, text: str) -> None:
        body = text.encode()
        self.handler.send_response(code)
        self.handler.send_header("Content-Type", "text/plain")
        self.handler.send_header("Content-Length", str(len(body)))
        self.handler.end_headers()
        self.handler.wfile.write(body)

    def start(self) -> None:
        self.handler.send_response(200)
        self.handler.send_header("Content-Type", "text/event-stream")
        self.handler.send_header("Transfer-Encoding", "chunked")
        self.handler.end_headers()
        threading.Thread(target=self._keepalive, name="transaction-keepalive", daemon=True).start()

    def line(self, data: bytes) -> None:
        with self._lock:
            if self._broken:
                return
            try:
                self.handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.handler.wfile.flush()
            except OSError:
                self._broken = True
            self._last_write = time.monotonic()

    def finish(self) -> None:
        self._done.set()
        with self._lock:
            if not self._broken:
                try:
                    self.handler.wfile.write(b"0\r\n\r\n")
                    self.handler.wfile.flush()
                except OSError:
                    self._broken = True
            self._broken = True

    def _keepalive(self) -> None:
        while not self._done.wait(min(1.0, self.keepalive_interval)):
            if time.monotonic() - self._last_write >= self.keepalive_interval:
                self.line(b"\n\n")
                self.plugin.keepalives += 1


def _transaction_handler(plugin: ServerlessPlugin) -> type[BaseHTTPRequestHandler]:
    class TransactionHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            self.close_connection = True
            respond = _Responder(self, plugin)
            if self.path.rstrip("/") != TRANSACTION_PATH:
                respond.status(404, "not found")
                return
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_TRANSACTION_BODY:
                respond.status(400, "body too large")
                return
            body = self.rfile.read(length)
            plugin.serve_transaction(self.headers.get(SESSION_HEADER), body, respond)

        def log_message(self, format: str, *args: Any) -> None:
            del format, args

    return TransactionHandler
