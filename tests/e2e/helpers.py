"""Helpers shared by the end-to-end tests: turns written for either strategy, what the
model read back, and the checks every run must pass."""

import json
import os

import pytest
from hypothesis import HealthCheck, settings

from agent_core import prompts
from local_runner import PluginProcess, ScriptedBackend
from local_runner.daemon import DEFAULT_PLUGIN_DIR
from local_runner.tools import ScriptedTool, ToolParam, text_message

STRATEGIES = ["function_calling", "ReAct"]


def answer_turn(strategy: str, text: str) -> dict:
    """A model turn that answers, in the strategy's own format."""
    return {"text": f"Thought: done.\nFinal Answer: {text}" if strategy == "ReAct" else text}


def observations(request: dict) -> list[str]:
    """What the model read of tool results in ``request`` (tool messages, or ReAct observations)."""
    tool_messages = [m["content"] for m in request["prompt_messages"] if m["role"] == "tool"]
    if tool_messages:
        return tool_messages
    scratchpad = "\n".join(str(m["content"]) for m in request["prompt_messages"] if m["role"] == "assistant")
    return [part.split("\nAction:")[0].split("\nThought:")[0].strip() for part in scratchpad.split("Observation: ")[1:]]


def prompt_text(request: dict) -> str:
    """Every prompt message of ``request`` as one JSON string (for 'is X anywhere in it' checks)."""
    return json.dumps(request["prompt_messages"], ensure_ascii=False)


def assert_clean_end(result) -> None:
    """The run ended without error and no log node was left in ``start`` state."""
    assert result.ok, result.error_text
    assert result.unfinished_logs() == [], [n.label for n in result.unfinished_logs()]


def assert_clean(result, run=None) -> None:
    """``assert_clean_end``, and every scripted turn of ``run`` was played."""
    assert_clean_end(result)
    if run is not None:
        run.backend.assert_complete()


def own_plugin():
    """A module-scoped ``plugin`` fixture: the project's plugin in a process of the module's own,
    so that a case that kills it does not take the session's shared process down. Bind it in a
    test module as ``plugin = own_plugin()``; conftest's ``run`` then plays on that process."""

    @pytest.fixture(scope="module")
    def plugin():
        with PluginProcess(DEFAULT_PLUGIN_DIR) as process:
            yield process

    return plugin


def revived_plugin():
    """A ``plugin`` fixture like ``own_plugin``'s, whose process is started again before a test
    when an earlier case left it dead (a line over the limit kills it, as the daemon does): one
    failure must not fail every case after it. Bind it as ``plugin = revived_plugin()``."""

    @pytest.fixture(scope="module")
    def _process():
        holder = [PluginProcess(DEFAULT_PLUGIN_DIR).start()]
        yield holder
        holder[0].close()

    @pytest.fixture
    def plugin(_process):
        if not _process[0].alive:
            _process[0].close()
            _process[0] = PluginProcess(DEFAULT_PLUGIN_DIR).start()
        return _process[0]

    return _process, plugin


def json_bytes(value) -> int:
    """Bytes of ``value`` as compact JSON (UTF-8, as the SDK writes it; a lone surrogate counted
    as the replacement it is written as)."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "replace"))


TRACEBACK = "Traceback (most recent call last)"


def assert_no_traceback(result) -> None:
    """No message of the run (text, log nodes, error) shows a Python traceback."""
    for message in result.messages:
        assert TRACEBACK not in json.dumps(message, ensure_ascii=False), str(message)[:300]
    assert TRACEBACK not in (result.error_text or "")


def assert_clean_run(result) -> None:
    """``assert_clean_end`` and ``assert_no_traceback``: what every run must end with."""
    assert_clean_end(result)
    assert_no_traceback(result)


def tools_ran(result) -> list[tuple[str, dict]]:
    """``(tool, parameters)`` of every tool call the run made, in order."""
    return [(r["tool"], r["tool_parameters"]) for r in result.tool_requests]


def logs_json(result) -> str:
    """Every log node's label, data, error and metadata as one JSON string (for 'is X said
    anywhere in the log' checks)."""
    return json.dumps([{"label": n.label, "data": n.data, "error": n.error, "metadata": n.metadata}
                       for n in result.logs.values()], default=str, ensure_ascii=False)


def plugin_lines(plugin, result):
    """``(entry, invocation)`` for each transcript line ``plugin`` (a local_runner
    ``PluginProcess``) wrote since ``result``'s run began (stdout of every session and stderr,
    also what came after the run ended), the backwards tool invocations aside: they carry a tool's
    secret parameters to that tool, as they must. ``invocation`` is the line's inner ``data``
    (``{}`` when none)."""
    transcript = plugin.transcript
    start = next(n for n, entry in enumerate(transcript) if entry is result.transcript[0])
    for entry in transcript[start:]:
        invocation = ((entry.get("json") or {}).get("data") or {}).get("data") or {}
        if entry["dir"] == "to_plugin" or (entry["dir"] == "from_plugin" and invocation.get("type") == "tool"):
            continue
        yield entry, invocation


def bytes_not_utf8_in_model_chunks(kind, line, send, handle):
    """A ``tamper`` hook: each model chunk line goes to the plugin with ``CAFE`` written as
    ``CA\\xff\\xfeE`` (bytes that are not UTF-8, as a broken proxy may pass them); other lines go
    as they are."""
    if kind == "llm" and line["data"]["event"] == "response":
        raw = json.dumps(line, ensure_ascii=False).encode().replace(b"CAFE", b"CA\xff\xfeE")
        with handle.process._write_lock:
            handle.process._write(raw + b"\n")
        return
    send(line)


def call_turn(strategy: str, name: str, arguments: dict, *, call_id: str = "call_1", before: str = "") -> dict:
    """A model turn that calls ``name(arguments)`` in the strategy's own format (ReAct: a JSON
    action in a fenced block; Function Calling: one tool call with id ``call_id``), after ``before``."""
    if strategy == "ReAct":
        action = json.dumps({"action": name, "action_input": arguments}, ensure_ascii=False)
        return {"text": f"{before}Thought: I will use {name}.\nAction:\n```json\n{action}\n```"}
    return {"text": before, "tool_calls": [{"id": call_id, "name": name, "arguments": arguments}]}


def text_of(content) -> str:
    """The text of a prompt message's ``content`` (a string, or the text parts of a list)."""
    if isinstance(content, list):
        return "".join(part.get("data", "") for part in content if part.get("type") == "text")
    return content or ""


def weather_tool(output: str = "Sunny, 21 C", **kwargs) -> ScriptedTool:
    """``get_weather(city)`` answering ``output`` (``kwargs``: other ``ScriptedTool`` fields)."""
    return ScriptedTool(
        name="get_weather",
        description="Weather for a city",
        parameters=[ToolParam("city", description="City name")],
        responses=[text_message(output)],
        **kwargs,
    )


def named_tool(name: str, *params: str, outputs: tuple[str, ...] = ("done",)) -> ScriptedTool:
    """A tool ``name`` whose string parameters are ``params`` (each described by its name), its
    calls answered in turn by the texts ``outputs``."""
    return ScriptedTool(name=name, description=f"{name} tool",
                        parameters=[ToolParam(p, description=p) for p in params],
                        responses=[text_message(output) for output in outputs])


def tool_named(name: str, responses: list[dict], *params: ToolParam, **fields) -> ScriptedTool:
    """A scripted tool ``name`` answering its calls in turn with ``responses`` (one optional string
    parameter ``value`` unless ``params``); ``fields``: other ``ScriptedTool`` fields."""
    return ScriptedTool(name=name, description=f"The {name} tool",
                        parameters=list(params) or [ToolParam("value", required=False)],
                        responses=responses, **fields)


SELF_SERVED = {"provider": "langgenius/openai_api_compatible/openai_api_compatible"}
"""A node's model settings for a model served by the user's own OpenAI-compatible server."""


FUZZ_EXAMPLES_ENV = "AGENT_FUZZ_EXAMPLES"
"""Environment variable of the long fuzz mode: examples per generated test (and strategy)."""


def fuzz_settings(ci_examples: int) -> settings:
    """Hypothesis settings of a generated end-to-end test. By default (CI) ``ci_examples``
    examples, derandomized (the same examples every run, no example database). With
    ``AGENT_FUZZ_EXAMPLES=N`` set, the long mode: ``N`` examples drawn from a fresh random seed
    each run (``pytest --hypothesis-seed=S`` replays one), each failure printed with the
    ``@reproduce_failure`` blob that replays it."""
    long_run = int(os.environ.get(FUZZ_EXAMPLES_ENV) or 0)
    return settings(max_examples=long_run or ci_examples, deadline=None, derandomize=not long_run,
                    database=None, print_blob=bool(long_run),
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                           HealthCheck.data_too_large])


class CallsUntilTold(ScriptedBackend):
    """A model that calls ``crawl`` every round until its request says time is running out,
    then answers ``answer``."""

    def __init__(self, strategy: str, answer: str) -> None:
        super().__init__([])
        self.strategy, self.answer = strategy, answer

    def invoke_llm(self, request):
        told = prompts.TIME_LIMIT_NOTE in prompt_text(request)
        n = len(self.requests) + 1
        self._turns.append(answer_turn(self.strategy, self.answer) if told
                           else call_turn(self.strategy, "crawl", {"value": str(n)}, call_id=f"c{n}"))
        return super().invoke_llm(request)
