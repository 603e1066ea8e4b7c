"""A scriptable stand-in for a plugin process, to test the runner's protocol handling
without the SDK (fast start, exact control over what is sent and when).

Run as a plugin's ``main`` module (``main.py``: ``from local_runner.fake_plugin import main;
main()``), configured by the JSON in the ``FAKE_PLUGIN`` environment variable::

    {"manifest": {...},            # printed first (default: llm and tool permissions)
     "noise": ["not json"],        # stray stdout lines printed after the manifest
     "exit_at_start": null,        # exit code to die with before the first heartbeat
     "heartbeat": true,            # false: never send a heartbeat
     "heartbeat_interval": 0.1,    # seconds
     "script": [action, ...]}      # played for every request, then "end"

Actions: ``{"echo_request": true}`` (stream the request line back as a json message),
``{"stream": <AgentInvokeMessage>}``, ``{"invoke": {"type", "request"}}`` and
``{"parallel": [{"type", "request"}, ...]}`` (send, wait for every reply up to ``end``,
then stream a json message ``{"invokes": [{"events": [...], "started", "finished"}]}``
with ``time.monotonic()`` seconds of sending and of receiving ``end``), ``{"error": "message"}`` (session error),
``{"sleep": s}``, ``{"print": "text"}`` (a raw stdout line), ``{"stderr": "text"}`` (a stderr line),
``{"stop_heartbeat": true}``,
``{"exit": code}``.
"""

from __future__ import annotations

import json
import os
import queue
import sys
import threading
import time
import uuid
from typing import Any

DEFAULT_MANIFEST = {
    "version": "0.0.1",
    "type": "plugin",
    "author": "test",
    "name": "fake",
    "resource": {"memory": 1, "permission": {"tool": {"enabled": True}, "model": {"enabled": True, "llm": True}}},
}


class FakePlugin:
    """The fake plugin's state: config, the stdout lock and the reply queues."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.config = config
        self._out = threading.Lock()
        self._replies: dict[str, queue.Queue[tuple[dict[str, Any], float]]] = {}
        self._heartbeat = threading.Event()
        if config.get("heartbeat", True):
            self._heartbeat.set()

    def write(self, obj: dict[str, Any] | str) -> None:
        """One stdout line (+ a blank line, like the SDK)."""
        text = obj if isinstance(obj, str) else json.dumps(obj)
        with self._out:
            sys.stdout.write(text + "\n\n")
            sys.stdout.flush()

    def session(self, session_id: str, kind: str, data: dict[str, Any]) -> None:
        """A ``session`` message of ``kind`` (stream/invoke/error/end)."""
        self.write({"event": "session", "session_id": session_id, "data": {"type": kind, "data": data}})

    def start(self) -> None:
        """Print the manifest and noise, maybe die, then beat and serve stdin forever."""
        self.write(self.config.get("manifest") or DEFAULT_MANIFEST)
        for line in self.config.get("noise") or []:
            self.write(line)
        self.write(
            {"event": "log", "data": {"level": "INFO", "message": "fake plugin started", "timestamp": time.time()}}
        )
        if self.config.get("exit_at_start") is not None:
            os._exit(int(self.config["exit_at_start"]))
        threading.Thread(target=self._beat, daemon=True).start()
        self._read()

    def _beat(self) -> None:
        while True:
            if self._heartbeat.is_set():
                self.write({"event": "heartbeat", "session_id": None, "data": {}})
            time.sleep(float(self.config.get("heartbeat_interval", 0.1)))

    def _read(self) -> None:
        for raw in sys.stdin:
            if not raw.strip():
                continue
            try:
                line = json.loads(raw)
            except ValueError as exc:
                self.write({"event": "error", "session_id": None, "data": {"error": str(exc)}})
                continue
            if line.get("event") == "request":
                threading.Thread(target=self._play, args=(line,), daemon=True).start()
            elif line.get("event") == "backwards_response":
                self._replies[line["data"]["backwards_request_id"]].put((line["data"], time.monotonic()))

    def _play(self, request: dict[str, Any]) -> None:
        session_id = request["session_id"]
        for action in self.config.get("script") or []:
            self._act(session_id, request, action)
        self.session(session_id, "end", {})

    def _act(self, session_id: str, request: dict[str, Any], action: dict[str, Any]) -> None:
        if action.get("echo_request"):
            self.session(session_id, "stream", _json_message({"request": request}))
        elif "stream" in action:
            self.session(session_id, "stream", action["stream"])
        elif "invoke" in action or "parallel" in action:
            calls = action.get("parallel") or [action["invoke"]]
            self.session(session_id, "stream", _json_message({"invokes": self._invoke_all(session_id, calls)}))
        elif "error" in action:
            self.session(session_id, "error", {"error_type": "FakeError", "message": action["error"], "args": {}})
        elif "sleep" in action:
            time.sleep(float(action["sleep"]))
        elif "print" in action:
            self.write(str(action["print"]))
        elif "stderr" in action:
            sys.stderr.write(str(action["stderr"]) + "\n")
            sys.stderr.flush()
        elif action.get("stop_heartbeat"):
            self._heartbeat.clear()
        elif "exit" in action:
            os._exit(int(action["exit"]))

    def _invoke_all(self, session_id: str, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
        ids = []
        for call in calls:
            request_id = uuid.uuid4().hex
            self._replies[request_id] = queue.Queue()
            ids.append((request_id, time.monotonic()))
            self.session(
                session_id,
                "invoke",
                {"type": call["type"], "backwards_request_id": request_id, "request": call["request"]},
            )
        return [self._collect(request_id, started) for request_id, started in ids]

    def _collect(self, request_id: str, started: float) -> dict[str, Any]:
        events, received = [], started
        while not events or events[-1]["event"] != "end":
            event, received = self._replies[request_id].get(timeout=30)
            events.append(event)
        return {"events": events, "started": started, "finished": received}


def _json_message(obj: dict[str, Any]) -> dict[str, Any]:
    return {"type": "json", "message": {"json_object": obj}, "meta": None}


def main() -> None:
    """Entry point: configure from ``FAKE_PLUGIN`` and run."""
    FakePlugin(json.loads(os.environ.get("FAKE_PLUGIN") or "{}")).start()
