"""Remote debugging (protocol §2): the runner plays the daemon's debugging server.

The plugin is the TCP client. Started with ``INSTALL_METHOD=remote``,
``REMOTE_INSTALL_URL=host:port`` (or ``REMOTE_INSTALL_HOST``/``PORT``) and
``REMOTE_INSTALL_KEY`` - from the environment or from a ``.env`` in its folder, exactly what
a developer does against Dify's "Debug plugin" endpoint - it connects, sends a handshake with
the key, its declarations (manifest, agent strategies, ...), its ``_assets`` files in base64
chunks and ``end``. After that the connection carries the stdio session protocol,
newline-framed, with heartbeats (the daemon drops a plugin silent for 60 s).

    with RemoteDebugServer() as server:                 # 127.0.0.1, a free port, a new key
        plugin = server.launch(plugin_dir)              # start it with the settings in its env
        result = plugin.run(request, backend, toolbox)  # same API as PluginProcess

    with RemoteDebugServer(port=5003, key="...") as server:
        plugin = server.accept(timeout=300)             # a plugin the developer started

A connection that fails registration is answered with the daemon's error text (e.g.
``handshake failed, invalid key``) and closed, and the server keeps waiting (``rejected``).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import os
import socket
import threading
import time
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from local_runner import protocol
from local_runner.daemon import (
    DEFAULT_PLUGIN_DIR,
    READY_TIMEOUT,
    PluginConnection,
    PluginError,
    plugin_command,
    plugin_env,
)

HANDSHAKE_TIMEOUT = 10.0
"""Seconds a new connection has to send its handshake (D ``debugging_runtime/hooks.go``)."""
REMOTE_HEARTBEAT_TIMEOUT = 60.0
"""Seconds without a heartbeat after which the daemon closes a debugging connection."""
MAX_ASSET_BYTES = 50 * 1024 * 1024

DECLARATIONS = {
    "tool_declaration": ("tools", "tools"),
    "model_declaration": ("models", "models"),
    "endpoint_declaration": ("endpoints", "endpoints"),
    "agent_strategy_declaration": ("agent strategies", "agent strategy"),
    "datasource_declaration": ("datasources", "datasource"),
    "trigger_declaration": ("triggers", "triggers"),
}
"""Declaration message type -> (plural used in "X register failed", name used in "X
declaration already registered"), as the daemon words them
(D ``debugging_runtime/runtime_intialization_handlers.go``)."""


class RegistrationError(PluginError):
    """A connection did not register; ``str(exc)`` is the daemon's error text, sent back
    to the plugin (then the connection is closed) when ``reply`` is true."""

    def __init__(self, message: str, *, reply: bool = False) -> None:
        super().__init__(message)
        self.reply = reply


class _LineSocket:
    """Newline-framed reading from a socket, keeping what follows the last full line."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buffer = b""

    def readline(self, deadline: float | None = None) -> bytes:
        """The next line (without ``\\n``); ``TimeoutError`` past ``deadline`` (monotonic;
        ``None``: block), ``ConnectionError`` when the peer closed."""
        while b"\n" not in self.buffer:
            if deadline is None:
                self.sock.settimeout(None)
            else:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError
                self.sock.settimeout(min(remaining, 0.5))
            try:
                data = self.sock.recv(65536)
            except TimeoutError:
                continue
            if not data:
                raise ConnectionError("the plugin closed the connection")
            self.buffer += data
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line


class RemotePlugin(PluginConnection):
    """A plugin connected over TCP remote debugging: ``run()``/``start_run()`` as on a
    ``PluginProcess``. Registration results: ``key``, ``declarations`` (message type ->
    data, manifest included), ``registration`` (message types in arrival order), ``assets``
    (filename -> reassembled bytes); ``manifest`` is the ``manifest_declaration``.

    ``pid``, ``returncode``, ``stderr_tail()`` and the stdout logs (``plugin_logs``) exist
    only when the plugin was started by ``RemoteDebugServer.launch``; closing the connection
    then also kills that process.
    """

    transport = "remote"
    silence_action = "closed the connection"

    def __init__(
        self,
        plugin_dir: str | Path = DEFAULT_PLUGIN_DIR,
        *,
        heartbeat_timeout: float = REMOTE_HEARTBEAT_TIMEOUT,
        raw_llm_chunks: bool = False,
    ) -> None:
        super().__init__(plugin_dir, heartbeat_timeout=heartbeat_timeout, raw_llm_chunks=raw_llm_chunks)
        self.key: str | None = None
        self.peer: tuple[str, int] | None = None
        self.declarations: dict[str, Any] = {}
        self.registration: list[str] = []
        self.assets: dict[str, bytes] = {}
        self._asset_parts: dict[str, bytearray] = {}
        self.command: list[str] | None = None
        self._sock: socket.socket | None = None
        self._lines: _LineSocket | None = None
        self._connected = False

    # -- life cycle -------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """True while the TCP connection is open."""
        return self._connected

    @property
    def alive(self) -> bool:
        """Connected, and its process (if the runner started it) still running."""
        return self._connected and (self._proc is None or self._proc.poll() is None)

    def close(self) -> None:
        """Close the connection (as the daemon does), kill the process if the runner started
        it, and fail open runs."""
        self._disconnect()
        self._kill_process()
        self._fail_all(self._death or "plugin connection was closed by the runner")

    def _disconnect(self) -> None:
        sock, self._connected = self._sock, False
        if sock is not None:
            self._death = self._death or "plugin connection was closed by the runner"
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def _not_running(self) -> str:
        return "disconnected" if self.returncode is None else f"exit code {self.returncode}"

    def _gone(self) -> str | None:
        gone = super()._gone()
        if gone:
            return gone
        if not self._connected:
            return self._death or "plugin closed the connection"
        return None

    # -- registration -------------------------------------------------------------------------

    def _register(self, sock: socket.socket, expected_key: str, deadline: float, handshake_timeout: float) -> None:
        """Read the handshake, declarations and assets up to ``end``, as the daemon checks
        them. Raises ``RegistrationError`` (after answering it on the socket and closing)."""
        lines = _LineSocket(sock)
        handshake_deadline = min(time.monotonic() + handshake_timeout, deadline)
        try:
            while True:
                try:
                    raw = lines.readline(deadline if self.key else handshake_deadline)
                except TimeoutError:
                    reason = "registration did not end in time" if self.key else "no handshake in time"
                    raise RegistrationError(reason) from None
                if not raw.strip():
                    continue
                message = _parse_register_line(raw)
                self._record("from_plugin", _shorten_asset(message))
                self.registration.append(message["type"])
                if message["type"] == "end" and self.key:
                    self._finish_registration()
                    break
                self._register_message(message["type"], message.get("data"), expected_key)
        except RegistrationError as exc:
            if exc.reply:
                with contextlib.suppress(OSError):
                    sock.sendall(f"{exc}\n".encode())
            sock.close()
            raise
        except ConnectionError as exc:
            sock.close()
            raise RegistrationError(str(exc)) from exc
        sock.settimeout(None)
        self._sock, self._lines, self._connected = sock, lines, True

    def _handshake(self, data: Any, expected_key: str) -> None:
        if self.key:
            raise RegistrationError("handshake already completed", reply=True)
        key = data.get("key") if isinstance(data, dict) else None
        if not isinstance(key, str):
            raise RegistrationError("handshake failed, invalid handshake message", reply=True)
        if key != expected_key:
            raise RegistrationError("handshake failed, invalid key", reply=True)
        self.key = key

    def _register_message(self, kind: str, data: Any, expected_key: str) -> None:
        if not self.key and kind != "handshake":
            raise RegistrationError("handshake failed, registration message before handshake", reply=True)
        if kind == "handshake":
            self._handshake(data, expected_key)
        elif kind == "manifest_declaration":
            if "manifest_declaration" in self.declarations:
                raise RegistrationError("declaration already registered", reply=True)
            if not isinstance(data, dict) or not data.get("name") or not data.get("version"):
                raise RegistrationError(
                    "handshake failed, invalid plugin declaration: a manifest with name and version", reply=True
                )
            self.declarations[kind] = data
            self.manifest = data
        elif kind in DECLARATIONS:
            plural, singular = DECLARATIONS[kind]
            if kind in self.declarations:
                raise RegistrationError(f"{singular} declaration already registered", reply=True)
            problem = _declaration_problem(kind, data)
            if problem:
                raise RegistrationError(
                    f"{plural} register failed, invalid {plural} declaration: {problem}", reply=True
                )
            self.declarations[kind] = data
        elif kind == "asset_chunk":
            self._add_asset_chunk(data)
        # unknown types are ignored, as by the daemon

    def _add_asset_chunk(self, data: Any) -> None:
        if not isinstance(data, dict) or not isinstance(data.get("filename"), str) or "data" not in data:
            raise RegistrationError("transfer assets failed, error: invalid asset chunk", reply=True)
        if sum(len(blob) for blob in self._asset_parts.values()) + len(str(data["data"])) > MAX_ASSET_BYTES:
            raise RegistrationError("assets too large, at most 50MB", reply=True)
        try:
            chunk = base64.b64decode(str(data["data"]), validate=True)
        except (binascii.Error, ValueError) as exc:
            raise RegistrationError(f"assets decode failed, error: {exc}", reply=True) from exc
        self._asset_parts.setdefault(data["filename"], bytearray()).extend(chunk)

    def _finish_registration(self) -> None:
        self.assets = {name: bytes(blob) for name, blob in self._asset_parts.items()}
        if not any(kind in self.declarations for kind in DECLARATIONS):
            raise RegistrationError("no registration transferred, cannot initialize", reply=True)
        missing = [name for name in _icon_names(self.declarations) if name not in self.assets]
        if missing:
            raise RegistrationError(
                f"assets remap failed, invalid assets data, cannot remap: file not found: {missing[0]}", reply=True
            )
        if self.manifest is None:
            raise RegistrationError("register failed, invalid manifest detected: no manifest_declaration", reply=True)

    # -- the session stream ---------------------------------------------------------------------

    def _start_reading(self) -> None:
        threading.Thread(target=self._read_socket, name="remote-plugin", daemon=True).start()

    def _read_socket(self) -> None:
        lines = self._lines
        assert lines is not None
        while self._connected:
            try:
                raw = lines.readline()  # blocking: a socket timeout would also bound sendall
            except OSError:  # ConnectionError included
                break
            line = protocol.decode_line(raw)
            if isinstance(line, str):
                self.noise.append(line)
                self._record("from_plugin", line)
            elif line is not None:
                self._record("from_plugin", line)
                self._dispatch(line)
        was_connected, self._connected = self._connected, False
        if was_connected:
            self._death = self._death or "plugin closed the connection"
        self._fail_all(self._death or "plugin closed the connection")

    def _write(self, data: bytes) -> None:
        if self._sock is None:
            raise OSError("not connected")
        self._sock.sendall(data)

    def _stdout_line(self, line: dict[str, Any] | str) -> None:
        """The plugin's stdout in remote mode carries only its logs (and stray prints)."""
        self._record("stdout", line)
        if isinstance(line, str):
            self.noise.append(line)
        elif line.get("event") == "log":
            self._dispatch(line)

    def _on_exit(self) -> None:
        super()._on_exit()
        self._disconnect()

    def wait_ready(self, timeout: float) -> None:
        """Wait for the first heartbeat after registration (``PluginError`` otherwise)."""
        deadline = time.monotonic() + timeout
        while not self._ready.wait(0.05):
            gone = self._gone()
            if gone:
                raise PluginError(f"{gone} before its first heartbeat{self.diagnostics()}")
            if time.monotonic() > deadline:
                self.close()
                raise PluginError(f"plugin sent no heartbeat within {timeout:g} s{self.diagnostics()}")


class RemoteDebugServer:
    """The daemon's remote-debugging endpoint on ``host:port`` (``port=0``: a free one) with
    the debug ``key`` (default: a new UUID). ``settings()``/``dotenv()`` are what the plugin
    needs to connect. ``accept()`` waits for a plugin to register and returns a ready
    ``RemotePlugin``; ``launch()`` starts the plugin first. ``close()`` (or leaving the
    ``with`` block) closes the endpoint and every connection it accepted."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        key: str | None = None,
        *,
        handshake_timeout: float = HANDSHAKE_TIMEOUT,
    ) -> None:
        self.key = key or str(uuid.uuid4())
        self.handshake_timeout = handshake_timeout
        self.rejected: list[str] = []
        """Why each refused connection was refused (the daemon's error text)."""
        self.plugins: list[RemotePlugin] = []
        self._listener = socket.create_server((host, port))
        self.host, self.port = host, self._listener.getsockname()[1]

    def __enter__(self) -> RemoteDebugServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop listening and close every accepted connection (killing launched plugins)."""
        self._listener.close()
        for plugin in self.plugins:
            plugin.close()

    @property
    def address(self) -> str:
        """``host:port``, as ``REMOTE_INSTALL_URL`` expects it."""
        return f"{self.host}:{self.port}"

    def settings(self) -> dict[str, str]:
        """The plugin's settings for this endpoint (environment variables or ``.env`` lines)."""
        return {"INSTALL_METHOD": "remote", "REMOTE_INSTALL_URL": self.address, "REMOTE_INSTALL_KEY": self.key}

    def dotenv(self) -> str:
        """The ``.env`` text a developer puts in the plugin folder for this endpoint."""
        return "".join(f"{name}={value}\n" for name, value in self.settings().items())

    def write_dotenv(self, plugin_dir: str | Path, *, overwrite: bool = False) -> Path:
        """Write ``dotenv()`` to ``<plugin_dir>/.env``; refuses to replace an existing file
        unless ``overwrite``."""
        path = Path(plugin_dir) / ".env"
        if path.exists() and not overwrite:
            raise FileExistsError(f"{path} exists; pass overwrite=True to replace it")
        path.write_text(self.dotenv(), encoding="utf-8")
        return path

    def launch(
        self,
        plugin_dir: str | Path = DEFAULT_PLUGIN_DIR,
        *,
        python: str | None = None,
        env: Mapping[str, str] | None = None,
        settings_in_env: bool = True,
        ready_timeout: float = READY_TIMEOUT,
        heartbeat_timeout: float = REMOTE_HEARTBEAT_TIMEOUT,
        raw_llm_chunks: bool = False,
    ) -> RemotePlugin:
        """Start ``<python> -m <entrypoint>`` in ``plugin_dir`` and return it connected and
        ready. ``settings_in_env=True``: the remote settings are passed as environment
        variables; ``False``: they are removed from the environment and the plugin reads its
        own ``.env`` (see ``write_dotenv``). ``env``: extra variables."""
        plugin = RemotePlugin(plugin_dir, heartbeat_timeout=heartbeat_timeout, raw_llm_chunks=raw_llm_chunks)
        if not (plugin.plugin_dir / "manifest.yaml").exists():
            raise PluginError(f"{plugin.plugin_dir} is not a plugin folder (no manifest.yaml)")
        extra = {**(self.settings() if settings_in_env else {}), **(env or {})}
        plugin.command = plugin_command(plugin.plugin_dir, python)
        base = plugin_env(os.environ, extra, install_method="remote" if settings_in_env else None)
        plugin._spawn(plugin.command, base, stdin=False)
        self.plugins.append(plugin)
        try:
            return self.accept(timeout=ready_timeout, into=plugin)
        except PluginError:
            plugin.close()
            raise

    def accept(
        self,
        timeout: float = READY_TIMEOUT,
        *,
        plugin_dir: str | Path = DEFAULT_PLUGIN_DIR,
        heartbeat_timeout: float = REMOTE_HEARTBEAT_TIMEOUT,
        raw_llm_chunks: bool = False,
        into: RemotePlugin | None = None,
    ) -> RemotePlugin:
        """Wait up to ``timeout`` seconds for a plugin to connect, register and send its
        first heartbeat. Refused connections are answered, closed and listed in
        ``rejected``; waiting goes on. ``plugin_dir`` is where scenarios read the strategy
        declarations. Raises ``PluginError`` on timeout (or if ``into``'s process exits)."""
        plugin = into or RemotePlugin(plugin_dir, heartbeat_timeout=heartbeat_timeout, raw_llm_chunks=raw_llm_chunks)
        deadline = time.monotonic() + timeout
        while True:
            if plugin.returncode is not None:
                plugin._join_readers()
                raise PluginError(
                    f"plugin exited with code {plugin.returncode} before it registered"
                    f"{plugin.diagnostics()}{self._refusals()}"
                )
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise PluginError(
                    f"no plugin registered on {self.address} within {timeout:g} s"
                    f"{self._refusals()}{plugin.diagnostics()}"
                )
            self._listener.settimeout(min(remaining, 0.1))
            try:
                sock, peer = self._listener.accept()
            except TimeoutError:
                continue
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            try:
                plugin._register(sock, self.key, deadline, self.handshake_timeout)
            except RegistrationError as exc:
                self.rejected.append(str(exc))
                plugin = _fresh(plugin)
                continue
            plugin.peer = peer[:2]
            if plugin not in self.plugins:
                self.plugins.append(plugin)
            plugin._start_reading()
            plugin.wait_ready(max(deadline - time.monotonic(), 1.0))
            return plugin

    def _refusals(self) -> str:
        return ("\nrefused connections: " + "; ".join(self.rejected)) if self.rejected else ""


def _fresh(plugin: RemotePlugin) -> RemotePlugin:
    """Forget what a refused connection registered (keeping the process, if any)."""
    plugin.declarations, plugin.registration, plugin.assets, plugin._asset_parts = {}, [], {}, {}
    plugin.manifest, plugin.key = None, None
    return plugin


def _parse_register_line(raw: bytes) -> dict[str, Any]:
    try:
        message = json.loads(raw)
    except ValueError:
        message = None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise RegistrationError("handshake failed, invalid handshake message", reply=True)
    return message


def _shorten_asset(message: dict[str, Any]) -> dict[str, Any]:
    """The registration message for the transcript (asset data replaced by its length)."""
    data = message.get("data")
    if message.get("type") == "asset_chunk" and isinstance(data, dict):
        return {**message, "data": {**data, "data": f"<{len(str(data.get('data')))} base64 chars>"}}
    return message


def _declaration_problem(kind: str, data: Any) -> str | None:
    """What is wrong with a declaration list (the daemon decodes it with validation)."""
    if not isinstance(data, list):
        return "expected a list of provider declarations"
    for provider in data:
        if not isinstance(provider, dict) or not (provider.get("identity") or {}).get("name"):
            return "a provider without identity.name"
        if kind == "agent_strategy_declaration":
            strategies = provider.get("strategies")
            if not isinstance(strategies, list):
                return f"provider {provider['identity']['name']} has no strategies list"
            for strategy in strategies:
                if not isinstance(strategy, dict) or not (strategy.get("identity") or {}).get("name"):
                    return f"provider {provider['identity']['name']} has a strategy without identity.name"
    return None


def _icon_names(declarations: dict[str, Any]) -> list[str]:
    """Asset file names the declarations refer to (manifest and provider icons)."""
    names = []
    manifest = declarations.get("manifest_declaration") or {}
    names += [manifest.get("icon"), manifest.get("icon_dark")]
    for kind in DECLARATIONS:
        for provider in declarations.get(kind) or []:
            identity = provider.get("identity") or {} if isinstance(provider, dict) else {}
            names += [identity.get("icon"), identity.get("icon_dark")]
    return [name for name in names if isinstance(name, str) and name and "://" not in name]
