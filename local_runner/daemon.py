"""Plays Dify's plugin daemon for one plugin process over stdio (protocol §1).

``PluginProcess`` starts ``<python> -m <entrypoint>`` in the plugin folder exactly as the
daemon does, waits for the first heartbeat, then runs agent sessions: it writes one request
line per run, routes the plugin's stdout messages by ``session_id``, serves backwards ``llm``
and ``tool`` invocations (each in its own thread) and records everything in a ``RunResult``.
Several runs may share one process, concurrently.

The session logic lives in ``PluginConnection`` and is shared by the other transports:
``local_runner.remote`` (TCP remote debugging, §2) and ``local_runner.serverless`` (§3).
"""

from __future__ import annotations

import collections
import gc
import os
import re
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import yaml

from local_runner import protocol
from local_runner.backends import LLMBackend
from local_runner.result import RunResult
from local_runner.structured_output import with_structured_output
from local_runner.tools import ToolBox

DEFAULT_PLUGIN_DIR = Path(__file__).resolve().parent.parent
HEARTBEAT_TIMEOUT = 120.0
READY_TIMEOUT = HEARTBEAT_TIMEOUT
"""Seconds to wait for a started plugin's first heartbeat. Measured on two cores: 1.5 s idle,
7.5 s with six plugins starting at once; a machine busy with other work (a test suite, a
compiler) is slower still. A plugin that fails to start usually exits, which is noticed at
once; this bound only ends a start that hangs, so it is as long as the daemon's own patience
with a silent plugin (``HEARTBEAT_TIMEOUT``)."""
RUN_TIMEOUT = 600.0
_STRIPPED_ENV_PREFIXES = ("REMOTE_INSTALL_", "SERVERLESS_")
_TRANSPORT_ENV = ("INSTALL_METHOD", "DIFY_PLUGIN_DAEMON_URL")

UpdateCallback = Callable[[RunResult], None]

FREEZE_EVERY = 2_000
"""Transcript entries recorded between two ``gc.freeze()`` calls (``PluginConnection._record``).

The transcript keeps every line of the connection's life, some ten containers a line, so the
runner's heap grows by two million objects in a run of 200,000 model chunks, and each of
Python's full collections walks all of them with the GIL held: measured 0.1-1.8 s each, 6-10 s
of such pauses in a 20 s run, during which no session's line was written and no line of the
plugin was read (a neighbour's stream showed gaps of a second that were the runner's, not the
plugin's). The daemon is a Go process whose collector does not stop its goroutines for that
long. Entries are never garbage while the connection lives, so every ``FREEZE_EVERY`` of them
everything the runner holds is moved out of the collector's sight (``gc.freeze()``: constant
time); what was cyclic garbage at that moment is then not freed until ``gc.unfreeze()``. Every
10,000 entries left a 0.1-0.15 s pause over the process's own start-up heap in the first
10,000 lines of a run; every 2,000, one of about 0.1 s was left, before the first freeze."""


class PluginError(RuntimeError):
    """The plugin process could not be started or used."""


class FairLock:
    """A lock handed to the threads that wait for it in the order they asked (first come,
    first served), as a context manager.

    ``threading.Lock`` lets the thread that releases it take it again at once: a thread writing
    200,000 lines in a loop kept it while another session's thread, woken too late, waited for its
    one line (a neighbour's stream stopped 14-20 s; 2-3 s with this lock, the rest being the
    runner's other stalls). The daemon writes each session's lines from a goroutine of its own,
    and Go's locks hand themselves to the longest waiter once one has waited 1 ms. Here
    ``release`` hands the lock straight to the oldest waiter, so a session waits at most for the
    lines of the threads queued before it, one line each.
    Not reentrant."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._held = False
        self._waiters: collections.deque[threading.Lock] = collections.deque()

    def acquire(self) -> None:
        """Block until the lock is this thread's (at once when it is free and nobody waits)."""
        with self._guard:
            if not self._held:
                self._held = True
                return
            turn = threading.Lock()
            turn.acquire()
            self._waiters.append(turn)
        turn.acquire()  # released by ``release`` when this thread's turn comes: the lock is held for it

    def release(self) -> None:
        """Hand the lock to the oldest waiter, or free it. Raises ``RuntimeError`` if not held."""
        with self._guard:
            if not self._held:
                raise RuntimeError("release of an unheld FairLock")
            if self._waiters:
                self._waiters.popleft().release()
            else:
                self._held = False

    def __enter__(self) -> FairLock:
        self.acquire()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()


@dataclass(frozen=True)
class RunRequest:
    """One agent run: ``strategy`` name, the node parameters ``params`` (see
    ``scenario.Scenario.agent_params``) and the session envelope fields."""

    strategy: str
    params: dict[str, Any]
    tool_credentials: dict[str, str] = field(default_factory=dict)
    user_id: str = "user-local"
    conversation_id: str | None = "conv-local"
    app_id: str | None = "app-local"
    message_id: str | None = None
    provider: str = protocol.AGENT_PROVIDER


_WARNING_LINE = re.compile(r"^\S.*:\d+: \w*Warning: ")
"""How Python's ``warnings`` module starts the line it prints: ``path:line: Category: text``."""

MAX_KEPT_WARNINGS = 50


def plugin_env(
    base: Mapping[str, str],
    extra: Mapping[str, str] | None = None,
    *,
    install_method: str | None = "local",
) -> dict[str, str]:
    """The plugin's environment: ``base`` without remote/serverless settings, plus ``extra``,
    with ``INSTALL_METHOD=<install_method>`` forced (env vars beat a ``.env`` file in
    pydantic-settings). ``install_method=None`` also drops ``INSTALL_METHOD`` and
    ``DIFY_PLUGIN_DAEMON_URL`` from ``base``, so that the plugin's ``.env`` decides."""
    stripped = _STRIPPED_ENV_PREFIXES if install_method else (*_STRIPPED_ENV_PREFIXES, *_TRANSPORT_ENV)
    env = {key: value for key, value in base.items() if not key.startswith(stripped)}
    env.update(extra or {})
    if install_method:
        env["INSTALL_METHOD"] = install_method
    return env


def plugin_python(plugin_dir: Path) -> str:
    """The interpreter a plugin is started with when none is given: the plugin folder's own
    ``.venv`` if it has one (as the daemon gives each plugin its venv), else this interpreter
    (a copied or unpacked plugin folder has no venv; tests run with the project's)."""
    venv_python = Path(plugin_dir) / ".venv" / "bin" / "python"
    return str(venv_python) if venv_python.exists() else sys.executable


def plugin_command(plugin_dir: Path, python: str | None = None) -> list[str]:
    """``[python, "-m", entrypoint]``: ``python`` or ``plugin_python(plugin_dir)``, and
    ``meta.runner.entrypoint`` of ``manifest.yaml`` (default ``main``)."""
    if python is None:
        python = plugin_python(plugin_dir)
    entrypoint = "main"
    manifest = plugin_dir / "manifest.yaml"
    if manifest.exists():
        meta = (yaml.safe_load(manifest.read_text(encoding="utf-8")) or {}).get("meta") or {}
        entrypoint = (meta.get("runner") or {}).get("entrypoint") or entrypoint
    return [python, "-m", entrypoint]


class PluginConnection:
    """The daemon's side of one plugin, whatever the transport: sessions routed by
    ``session_id``, backwards invocations served by the run's backend and toolbox, the
    transcript, plugin logs and errors, the heartbeat watch - and, when the runner started
    the plugin itself, its process (``_spawn``: stdout and stderr read in threads).

    Subclasses (``PluginProcess`` for stdio, ``remote.RemotePlugin`` for TCP remote debug,
    ``serverless.ServerlessPlugin``) provide ``_write(data)`` (one encoded line to the
    plugin), ``close()``, and may override ``alive``, ``_gone()``, ``_send_request(line)``
    and ``_stdout_line(line)``. ``heartbeat_timeout=None``: the transport has no heartbeats.
    """

    transport = "stdio"
    silence_action = "killed it"
    """What ``check_health`` did to a plugin that went silent (for the failure text)."""

    def __init__(
        self,
        plugin_dir: str | Path = DEFAULT_PLUGIN_DIR,
        *,
        heartbeat_timeout: float | None = HEARTBEAT_TIMEOUT,
        raw_llm_chunks: bool = False,
    ) -> None:
        self.plugin_dir = Path(plugin_dir).resolve()
        self.heartbeat_timeout = heartbeat_timeout
        self.raw_llm_chunks = raw_llm_chunks
        self.manifest: dict[str, Any] | None = None
        self.transcript: list[dict[str, Any]] = []
        self.noise: list[str] = []
        self.plugin_logs: list[dict[str, Any]] = []
        self.plugin_errors: list[dict[str, Any]] = []
        self._stderr: collections.deque[str] = collections.deque(maxlen=200)
        self.warnings: list[str] = []
        """Python warnings the plugin printed to stderr (``...: UserWarning: ...``), the first
        ``MAX_KEPT_WARNINGS``: the daemon keeps stderr in its log, so a plugin should print none."""
        self._proc: subprocess.Popen[bytes] | None = None
        self._runs: dict[str, RunHandle] = {}
        self._runs_lock = threading.Lock()
        self._write_lock = FairLock()
        self._ready = threading.Event()
        self._started_at = time.monotonic()
        self._last_heartbeat = 0.0
        self._death: str | None = None
        self._froze = False
        self._readers: list[threading.Thread] = []

    def __enter__(self) -> PluginConnection:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop talking to the plugin (kill it if the runner started it) and fail open runs."""
        self._kill_process()
        self._fail_all(self._death or "plugin connection was closed by the runner")
        self._thaw()

    def _thaw(self) -> None:
        """Give back to the collector what ``_record`` froze (``FREEZE_EVERY``): once the
        connection is closed its transcript may become garbage, and a frozen cycle is never freed,
        so a process that opens many connections (a test session) would keep every one."""
        if self._froze:
            self._froze = False
            gc.unfreeze()

    # -- the plugin process (when the runner started it) ------------------------------------

    def _spawn(self, command: list[str], env: Mapping[str, str], *, stdin: bool) -> None:
        """Start ``command`` in the plugin folder with exactly ``env``; stdout lines go to
        ``_stdout_line``, stderr lines to the stderr tail. ``stdin=False``: /dev/null."""
        self._started_at = time.monotonic()
        self._proc = subprocess.Popen(
            command,
            cwd=self.plugin_dir,
            env=dict(env),
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self._readers = [
            threading.Thread(target=self._read_stdout, args=(self._proc.stdout,), name="plugin-stdout", daemon=True),
            threading.Thread(target=self._read_stderr, args=(self._proc.stderr,), name="plugin-stderr", daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    def _kill_process(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._death = self._death or "plugin process was closed by the runner"
            self._proc.kill()
            self._proc.wait(timeout=10)
        self._join_readers()

    def _join_readers(self) -> None:
        for reader in self._readers:
            if reader is not threading.current_thread():
                reader.join(timeout=5)

    @property
    def returncode(self) -> int | None:
        """The exit code once the process is gone, else ``None`` (also when the runner did
        not start the plugin)."""
        return None if self._proc is None else self._proc.poll()

    @property
    def pid(self) -> int | None:
        """The plugin's process id once started (``None`` if the runner did not start it)."""
        return None if self._proc is None else self._proc.pid

    @property
    def alive(self) -> bool:
        """True while the plugin can be talked to."""
        return self._proc is not None and self._proc.poll() is None

    def heartbeat_age(self) -> float:
        """Seconds since the last heartbeat."""
        return time.monotonic() - self._last_heartbeat

    def stderr_tail(self, lines: int = 40) -> list[str]:
        """The last ``lines`` lines the plugin wrote to stderr."""
        return list(self._stderr)[-lines:]

    def diagnostics(self) -> str:
        """Stray stdout lines and the stderr tail, formatted for an error message."""
        parts = []
        if self.noise:
            parts.append("non-JSON stdout lines:\n  " + "\n  ".join(self.noise[-10:]))
        if self._stderr:
            parts.append("stderr tail:\n  " + "\n  ".join(self.stderr_tail(20)))
        return ("\n" + "\n".join(parts)) if parts else ""

    def _read_stdout(self, stream: IO[bytes]) -> None:
        for raw in iter(stream.readline, b""):
            if len(raw.rstrip(b"\n")) > protocol.MAX_LINE_BYTES:  # the daemon kills the plugin for this
                self._death = (
                    f"the plugin wrote a stdout line of {len(raw):,} bytes; the daemon's limit is "
                    f"{protocol.MAX_LINE_BYTES:,} bytes and it kills the plugin, ending every session on it"
                )
                if self._proc is not None:
                    self._proc.kill()
                break
            line = protocol.decode_line(raw)
            if line is not None:
                self._stdout_line(line)
        self._on_exit()

    def _stdout_line(self, line: dict[str, Any] | str) -> None:
        """One non-blank stdout line (stdio: the protocol itself)."""
        if isinstance(line, str):
            self.noise.append(line)
            self._record("from_plugin", line)
        else:
            self._record("from_plugin", line)
            self._dispatch(line)

    def _read_stderr(self, stream: IO[bytes]) -> None:
        for raw in iter(stream.readline, b""):
            text = raw.decode("utf-8", errors="replace").rstrip("\n")
            self._stderr.append(text)
            if _WARNING_LINE.search(text) and len(self.warnings) < MAX_KEPT_WARNINGS:
                self.warnings.append(text)
            self._record("stderr", text)

    def _on_exit(self) -> None:
        """The plugin closed its stdout: it is gone; fail every open run with the reason."""
        if self._proc is not None:
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
        self._stderr_settle()
        reason = self._death or f"plugin process exited with code {self.returncode}"
        self._fail_all(reason)

    def _stderr_settle(self) -> None:
        """Give the stderr reader a moment to collect a dying traceback."""
        if len(self._readers) > 1 and threading.current_thread() is not self._readers[1]:
            self._readers[1].join(timeout=1)

    # -- runs -------------------------------------------------------------------------------

    def start_run(
        self,
        request: RunRequest,
        backend: LLMBackend,
        toolbox: ToolBox,
        *,
        on_update: UpdateCallback | None = None,
    ) -> RunHandle:
        """Send the request of a new session and return its handle (``handle.wait()`` gives
        the ``RunResult``). ``on_update(result)`` is called after every recorded event, from
        runner threads."""
        if not self.alive:
            raise PluginError(f"plugin is not running ({self._not_running()}){self.diagnostics()}")
        envelope = protocol.SessionEnvelope(
            session_id=str(uuid.uuid4()),
            conversation_id=request.conversation_id,
            message_id=request.message_id,
            app_id=request.app_id,
            tool_credentials=dict(request.tool_credentials),
        )
        handle = RunHandle(
            self, envelope=envelope, strategy=request.strategy, backend=backend, toolbox=toolbox, on_update=on_update
        )
        with self._runs_lock:
            self._runs[envelope.session_id] = handle
        line = protocol.agent_request(
            envelope,
            strategy=request.strategy,
            params=request.params,
            user_id=request.user_id,
            provider=request.provider,
        )
        self._send_request(line)
        return handle

    def run(
        self,
        request: RunRequest,
        backend: LLMBackend,
        toolbox: ToolBox,
        *,
        on_update: UpdateCallback | None = None,
        timeout: float = RUN_TIMEOUT,
    ) -> RunResult:
        """Run one agent session to its end (or failure, or ``timeout`` seconds)."""
        return self.start_run(request, backend, toolbox, on_update=on_update).wait(timeout)

    def forget(self, session_id: str) -> None:
        """Stop routing lines to the run of ``session_id`` (once its result was handed out)."""
        with self._runs_lock:
            self._runs.pop(session_id, None)

    def run_of(self, session_id: str | None) -> RunHandle | None:
        """The open run of ``session_id``, if any."""
        with self._runs_lock:
            return self._runs.get(str(session_id))

    def _active_runs(self) -> list[RunHandle]:
        with self._runs_lock:
            return list(self._runs.values())

    def _fail_all(self, reason: str) -> None:
        for handle in self._active_runs():
            handle.fail(reason)

    def _not_running(self) -> str:
        return f"exit code {self.returncode}"

    def _gone(self) -> str | None:
        """Why the plugin cannot be talked to any more, or ``None`` (default: its process
        exited)."""
        if self.returncode is not None:
            return self._death or f"plugin process exited with code {self.returncode}"
        return None

    def check_health(self) -> str | None:
        """Why the plugin can no longer serve runs (gone, or no heartbeat for longer than
        ``heartbeat_timeout`` - then it is closed, as the daemon does), else ``None``."""
        gone = self._gone()
        if gone:
            return gone
        if self.heartbeat_timeout is not None and self.heartbeat_age() > self.heartbeat_timeout:
            silence, limit = self.heartbeat_age(), self.heartbeat_timeout
            self._death = f"plugin sent no heartbeat for {silence:.1f} s (limit {limit:g} s); {self.silence_action}"
            self.close()
            return self._death
        return None

    # -- wire -------------------------------------------------------------------------------

    def _send_request(self, line: dict[str, Any]) -> None:
        """Deliver a session's request line (full-duplex transports: like any line)."""
        self.send(line)

    def send(self, obj: dict[str, Any]) -> None:
        """Write one line to the plugin (serialized, and recorded in the transcript in write
        order). Threads sending at once write in turn, in the order they came (``FairLock``): a
        session sending a burst does not hold back another's line. Lines for a plugin that is
        gone are dropped."""
        data = protocol.encode_line(obj)
        with self._write_lock:
            if not self.alive:
                return
            self._record("to_plugin", obj)
            try:
                self._write(data)
            except (ValueError, OSError):
                return

    def _write(self, data: bytes) -> None:
        """Write one encoded line to the plugin; raise ``OSError`` if that is impossible."""
        raise OSError(f"the {self.transport} transport has no full-duplex channel")

    def _record(self, direction: str, payload: dict[str, Any] | str) -> None:
        """Append a transcript entry and copy it to the runs it concerns (its session, or all
        runs for session-less lines such as heartbeats and logs)."""
        entry: dict[str, Any] = {"t": round(time.monotonic() - self._started_at, 4), "dir": direction}
        entry["json" if isinstance(payload, dict) else "text"] = payload
        self.transcript.append(entry)
        if not len(self.transcript) % FREEZE_EVERY:
            gc.freeze()
            self._froze = True
        session_id = payload.get("session_id") if isinstance(payload, dict) else None
        for handle in self._active_runs():
            if session_id in (None, handle.session_id):
                handle.result.add_transcript(entry)

    def _dispatch(self, line: dict[str, Any]) -> None:
        event = line.get("event")
        if self.manifest is None and protocol.is_manifest(line):
            self.manifest = line
        elif event == "heartbeat":
            self._last_heartbeat = time.monotonic()
            self._ready.set()
        elif event == "log":
            self.plugin_logs.append(line.get("data") or {})
            for handle in self._active_runs():
                handle.on_plugin_log(line.get("data") or {})
        elif event == "error":
            self.plugin_errors.append(line.get("data") or {})
            for handle in self._active_runs():
                if line.get("session_id") in (None, handle.session_id):
                    handle.on_plugin_error(line.get("data") or {})
        elif event == "session":
            handle = self.run_of(line.get("session_id"))
            if handle is not None:
                handle.on_session_message(line.get("data") or {})

    def permission_error(self, invoke_type: str) -> str | None:
        """The daemon's refusal for ``invoke_type`` under this plugin's manifest, or ``None``."""
        return protocol.permission_error(self.manifest or {}, invoke_type)


class PluginProcess(PluginConnection):
    """One plugin process driven like the daemon drives it, over stdio. Use as a context
    manager (or ``start()``/``close()``); ``run()`` one or many agent runs on it, also
    concurrently.

    ``ready_timeout``: seconds to wait for the first heartbeat; ``heartbeat_timeout``: seconds
    without a heartbeat after which the plugin counts as dead and is killed; ``env``: extra
    environment variables for the plugin. ``raw_llm_chunks=True`` sends the backend's LLM
    chunks unchanged instead of re-serialized as the Go daemon does (``protocol.daemon_chunk``:
    tool calls lose ``index``, nulls become "").
    """

    def __init__(
        self,
        plugin_dir: str | Path = DEFAULT_PLUGIN_DIR,
        *,
        python: str | None = None,
        ready_timeout: float = READY_TIMEOUT,
        heartbeat_timeout: float = HEARTBEAT_TIMEOUT,
        env: Mapping[str, str] | None = None,
        raw_llm_chunks: bool = False,
    ) -> None:
        super().__init__(plugin_dir, heartbeat_timeout=heartbeat_timeout, raw_llm_chunks=raw_llm_chunks)
        self.command = plugin_command(self.plugin_dir, python)
        self.ready_timeout = ready_timeout
        self.extra_env = dict(env or {})

    # -- life cycle -------------------------------------------------------------------------

    def __enter__(self) -> PluginProcess:
        return self.start()

    def start(self) -> PluginProcess:
        """Start the plugin and wait for its first heartbeat. Raises ``PluginError`` (with the
        stderr tail) if it exits or stays silent for ``ready_timeout`` seconds."""
        if not (self.plugin_dir / "manifest.yaml").exists():
            raise PluginError(f"{self.plugin_dir} is not a plugin folder (no manifest.yaml)")
        self._spawn(self.command, plugin_env(os.environ, self.extra_env), stdin=True)
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.ready_timeout
        while not self._ready.wait(0.05):
            if self.returncode is not None:
                self._join_readers()
                raise PluginError(
                    f"plugin exited with code {self.returncode} before its first heartbeat{self.diagnostics()}"
                )
            if time.monotonic() > deadline:
                self.close()
                raise PluginError(f"plugin sent no heartbeat within {self.ready_timeout:g} s{self.diagnostics()}")

    def close(self) -> None:
        """Kill the plugin and fail open runs. (Closing its stdin would end it too, but only after
        its runs fail and a 2 s grace: agent_core.sdk_speedups.leave_at_end_of_input.)"""
        self._kill_process()
        self._fail_all(self._death or "plugin process was closed by the runner")
        self._thaw()

    def _write(self, data: bytes) -> None:
        stdin = None if self._proc is None else self._proc.stdin
        if stdin is None:
            raise OSError("plugin has no stdin")
        stdin.write(data)
        stdin.flush()


class RunHandle:
    """One session in progress on a ``PluginConnection`` (any transport); ``wait()`` returns its ``RunResult``."""

    def __init__(
        self,
        process: PluginConnection,
        *,
        envelope: protocol.SessionEnvelope,
        strategy: str,
        backend: LLMBackend,
        toolbox: ToolBox,
        on_update: UpdateCallback | None,
    ) -> None:
        self.process = process
        self.envelope = envelope
        self.backend = backend
        self.toolbox = toolbox
        self.result = RunResult(envelope.session_id, strategy)
        self._on_update = on_update
        self._done = threading.Event()

    @property
    def session_id(self) -> str:
        """The session id (a UUID string)."""
        return self.envelope.session_id

    def wait(self, timeout: float | None = RUN_TIMEOUT) -> RunResult:
        """Block until the session ends, the plugin dies or goes silent, or ``timeout``
        seconds pass (then the run fails; the process stays usable). Returns the result."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._done.wait(0.1):
            problem = self.process.check_health()
            if problem:
                self.fail(problem)
            elif deadline is not None and time.monotonic() > deadline:
                self.fail(f"run did not end within {timeout:g} s")
        self.result.stderr_tail = self.process.stderr_tail()
        self.process.forget(self.session_id)
        return self.result

    def fail(self, reason: str) -> None:
        """Give the run up with ``reason`` (no-op once it is over)."""
        if self.result.finish(failure=reason):
            self._done.set()
            self._notify()

    def _notify(self) -> None:
        if self._on_update is not None:
            self._on_update(self.result)

    # -- messages from the plugin -------------------------------------------------------------

    def on_session_message(self, message: dict[str, Any]) -> None:
        """Handle one ``session`` message ``{"type": stream|invoke|error|end, "data"}``."""
        kind, data = message.get("type"), message.get("data") or {}
        if kind == "stream":
            self.result.add_message(data)
        elif kind == "invoke":
            self._start_invocation(data)
        elif kind == "error":
            self.result.set_error(data)
        elif kind == "end" and self.result.finish():
            self._done.set()
        self._notify()

    def on_plugin_log(self, data: dict[str, Any]) -> None:
        """Record a plugin ``log`` event that arrived during this run."""
        self.result.add_plugin_event("log", data)

    def on_plugin_error(self, data: dict[str, Any]) -> None:
        """Record a plugin ``error`` event (e.g. it could not parse a line we sent)."""
        self.result.add_plugin_event("error", data)
        self._notify()

    # -- backwards invocations ----------------------------------------------------------------

    def _start_invocation(self, data: dict[str, Any]) -> None:
        """An ``invoke`` on the session stream (full-duplex transports): served in a thread,
        the answers written back on the same channel."""
        self._record_invocation(data)
        kind = data.get("type")
        threading.Thread(target=self._serve, args=(data, self.process.send), name=f"invoke-{kind}", daemon=True).start()

    def serve_invocation(self, data: dict[str, Any], send: Callable[[dict[str, Any]], None]) -> None:
        """Record and answer one backwards invocation in this thread, handing each
        ``backwards_response`` line to ``send`` (serverless: the HTTP transaction's body)."""
        self._record_invocation(data)
        self._notify()
        self._serve(data, send)

    def _record_invocation(self, data: dict[str, Any]) -> None:
        kind, request = data.get("type"), data.get("request") or {}
        if kind in ("llm", protocol.STRUCTURED_OUTPUT):
            self.result.add_llm_request(request)
        elif kind == "tool":
            self.result.add_tool_request(request)

    def _serve(self, data: dict[str, Any], send: Callable[[dict[str, Any]], None]) -> None:
        """Answer one backwards invocation: ``response`` per item, or ``error``; then ``end``."""
        kind, request_id = str(data.get("type")), str(data.get("backwards_request_id"))

        def reply(event: str, *, message: str = "", data: Any = None) -> None:
            send(protocol.backwards_response(self.envelope, request_id, event, message=message, data=data))

        refusal = self._refusal(kind)
        if refusal:
            reply("error", message=refusal)
        else:
            prefix = protocol.TOOL_FAILED if kind == "tool" else protocol.LLM_FAILED
            try:
                for item in self._stream(kind, data.get("request") or {}):
                    reply("response", message="stream", data=item)
            except Exception as exc:  # any backend failure is the daemon's error event
                reply("error", message=f"{prefix}{exc}")
        reply("end")
        self._notify()

    def _refusal(self, kind: str) -> str | None:
        if kind not in ("llm", protocol.STRUCTURED_OUTPUT, "tool"):
            return f"unsupported invoke type: {kind} (the local runner serves llm, llm_structured_output and tool)"
        return self.process.permission_error(kind)

    def _stream(self, kind: str, request: dict[str, Any]) -> Iterator[dict[str, Any]]:
        if kind == "tool":
            yield from self.toolbox.invoke_tool(request)
            return
        raws = self.backend.invoke_llm(request)
        if kind == protocol.STRUCTURED_OUTPUT:
            raws = with_structured_output(raws, str(request.get("model") or ""))
        for raw in raws:
            chunk = raw if self.process.raw_llm_chunks else protocol.daemon_chunk(raw)
            usage = (chunk.get("delta") or {}).get("usage")
            if usage:
                self.result.add_llm_usage(usage)
            yield chunk
