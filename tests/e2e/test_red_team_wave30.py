"""Red-team wave 30 (issue 13), through the real plugin process: combinations the earlier
adversarial suites did not try. Every run is checked against the same invariants:

* the plugin is alive (the runner kills it on a stdout line over the daemon's 5 MiB, as the
  daemon does) and wrote only JSON lines;
* no secret, in any form the tool wrote it, in any line the plugin wrote (but the tool call
  that needs it) nor on stderr, decoded strings compared, so a secret holding a line break or
  non-ASCII characters is found too;
* no log node left in ``start``, and every tool call served has its ``CALL`` node;
* the run ends with answer text or a clear error of the strategy's own.
"""

from __future__ import annotations

import base64
import itertools
import json
import threading
import time
import urllib.parse

import pytest

from agent_core.tool_schema import provider_name
from local_runner import PluginProcess, ScriptedBackend
from local_runner.daemon import DEFAULT_PLUGIN_DIR
from local_runner.tools import ScriptedTool, ToolParam, json_message, text_message
from tests.e2e.conftest import ScriptedRun
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_no_traceback, plugin_lines
from tests.e2e.pace import Pace, assert_not_held

SECRET = "RT30-canary-5be1f0"


@pytest.fixture(scope="module")
def plugin():
    """A process of its own: a line over the limit here must not take the shared one down."""
    with PluginProcess(DEFAULT_PLUGIN_DIR) as process:
        yield process


# --- checks ----------------------------------------------------------------------------------------


def strings(value):
    """Every string key and value in a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def assert_survived(plugin, result, secrets=(), *, answer=True):
    """The invariants of the module docstring; ``secrets``: texts no written line may hold;
    ``answer``: the run must end with an answer (else an answer or a clear error)."""
    assert plugin.alive, "the plugin was killed (a line over the daemon's limit?)"
    assert not plugin.noise, plugin.noise[-3:]
    assert result.unfinished_logs() == [], [n.label for n in result.unfinished_logs()]
    if answer:
        assert result.ok, result.error_text
    assert result.ok or result.error_text
    if result.ok:
        assert result.text.strip()
    else:
        assert result.error and result.error.get("error_type") == "AgentRunError", result.error_text
    calls = [n for n in result.logs.values() if n.label.startswith("CALL ")]
    assert len(calls) >= len(result.tool_requests)
    for entry, _ in plugin_lines(plugin, result):
        texts = list(strings(entry.get("json"))) if "json" in entry else [entry.get("text", "")]
        for text in texts:
            for secret in secrets:
                assert secret not in text, f"{secret!r} written ({entry['dir']}): {text[:300]!r}"


# --- turns and tools -------------------------------------------------------------------------------



def survived_cleanly(plugin, result, *, answer: bool = True) -> None:
    """``assert_survived`` (no secrets) and no traceback shown."""
    assert_survived(plugin, result, answer=answer)
    assert_no_traceback(result)

def call(strategy: str, name: str, call_id: str = "c1", **arguments) -> dict:
    if strategy == "ReAct":
        blob = json.dumps({"action": name, "action_input": arguments}, ensure_ascii=False)
        return {"text": f"Thought: use {name}.\nAction:\n```json\n{blob}\n```"}
    return {"tool_calls": [{"id": call_id, "name": name, "arguments": arguments}]}


def secret_tool(secret: str, responses: list[dict], name: str = "vault", **kwargs) -> ScriptedTool:
    return ScriptedTool(
        name=name, description="Reads the vault",
        parameters=[ToolParam("q", description="query"),
                    ToolParam("api_key", type="secret-input", form="form", description="key")],
        runtime_parameters={"api_key": secret}, responses=responses, **kwargs)


def blob(data: bytes, filename: str, mime: str = "text/plain") -> dict:
    return {"type": "blob", "message": {"blob": base64.b64encode(data).decode()},
            "meta": {"filename": filename, "mime_type": mime}}


def link(kind: str, url: str) -> dict:
    return {"type": kind, "message": {"text": url}, "meta": None}


def variable(name: str, value) -> dict:
    return {"type": "variable", "message": {"variable_name": name, "variable_value": value, "stream": False},
            "meta": None}


def resources(content: str, url: str) -> dict:
    return {"type": "retriever_resources", "meta": None, "message": {"context": content, "retriever_resources": [
        {"position": 1, "content": content, "document_name": "doc.txt", "doc_metadata": {"source": url}}]}}


# --- secrets of awkward shapes, in every form a tool writes them ------------------------------------

AWKWARD_SECRETS = {
    "short": "Zq7#",
    "regex": r"a.b*c(d)[e]+?$^|\{1}",
    "unicode": "pässwörd-🔑-秘密",
    "newline": "line-one\nline-two",
    "quote": 'he said "x\\y"',
}


def every_form(secret: str) -> list[dict]:
    """Tool messages holding ``secret`` in JSON keys, URLs, file names, percent-encoded, base64."""
    quoted = urllib.parse.quote(secret, safe="")
    b64 = base64.b64encode(secret.encode()).decode()
    return [
        text_message(f"key is {secret}."),
        json_message({secret: "as a key", "nested": {"v": [secret]}}),
        text_message(f"url: https://api.example.com/v1?key={quoted}&x=1"),
        text_message(f"Authorization: Basic {base64.b64encode(('user:' + secret).encode()).decode()}"),
        text_message(f"raw b64 {b64}"),
        link("link", f"https://example.com/p?k={quoted}"),
        link("image_link", f"https://example.com/img.png?k={quoted}"),
        blob(b"plain content", f"report-{secret}.txt"),
        blob(f"KEY={secret}\n".encode(), "settings.env"),
        variable("leak", f"v={secret}"),
        variable(secret, "named after it"),
        resources(f"doc with {secret}", f"https://docs.example.com/?k={quoted}"),
    ]


def forms(secret: str) -> list[str]:
    return [secret, urllib.parse.quote(secret, safe=""), json.dumps(secret)[1:-1]]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", sorted(AWKWARD_SECRETS))
def test_awkward_secret_in_every_form_a_tool_writes_leaves_no_line(run, plugin, strategy, kind):
    secret = AWKWARD_SECRETS[kind]
    run.plugin = plugin
    tool = secret_tool(secret, every_form(secret))
    result = run([call(strategy, "vault", q="x"), answer_turn(strategy, "Done.")], tools=[tool], strategy=strategy)
    assert_survived(plugin, result, forms(secret))
    assert result.text == "Done."


# --- memory, query and files -----------------------------------------------------------------------

IMAGE_PART = {"type": "image", "url": "https://example.com/cat.png", "format": "png", "mime_type": "image/png",
              "filename": "cat.png", "base64_data": "", "detail": "low"}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("context_size", [8192, 2_000_000])
def test_memory_of_megabytes_with_a_secret_and_images(run, plugin, strategy, context_size):
    history = [
        {"role": "user", "content": [{"type": "text", "data": "see " + "m" * 3_000_000}, IMAGE_PART]},
        {"role": "assistant", "content": f"I used {SECRET} and " + "\x01" * 1_000_000},
        {"role": "user", "content": "é" * 2_000_000},
        {"role": "assistant", "content": "ok"},
    ]
    run.plugin = plugin
    tool = secret_tool(SECRET, [text_message("fine")])
    result = run([call(strategy, "vault", q="x"), answer_turn(strategy, "Done.")], tools=[tool], strategy=strategy,
                 history=history, model={"context_size": context_size,
                                         "features": ["tool-call", "multi-tool-call", "stream-tool-call", "vision"]},
                 timeout=120)
    assert_survived(plugin, result, [SECRET])
    assert result.text == "Done."


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("query", ["\x00\x01\x1b[31m\u2028\u2029\ufeff" * 10, "\x01" * 1_000_000, "q" * 4_000_000])
def test_query_of_control_characters_or_megabytes(run, plugin, strategy, query):
    run.plugin = plugin
    result = run([answer_turn(strategy, "Done.")], query=query, strategy=strategy,
                 model={"context_size": 2_000_000}, timeout=120)
    assert_survived(plugin, result, answer=False)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_files_in_the_query_with_odd_and_secret_names(run, plugin, strategy):
    files = [
        {"url": "https://example.com/a.png", "mime_type": "image/png", "filename": "a" * 3_000_000 + ".png"},
        {"url": f"https://example.com/doc.pdf?key={SECRET}", "mime_type": "application/pdf"},
        {"url": "https://example.com/x", "mime_type": "application/octet-stream", "filename": f"{SECRET}.bin"},
        {"url": "javascript:alert(1)", "mime_type": "image/png", "filename": "evil.png"},
    ]
    run.plugin = plugin
    tool = secret_tool(SECRET, [text_message("fine")])
    result = run([call(strategy, "vault", q="x"), answer_turn(strategy, "Done.")], tools=[tool], strategy=strategy,
                 files=files, model={"features": ["tool-call", "multi-tool-call", "stream-tool-call", "vision",
                                                   "document"]}, timeout=120)
    assert_survived(plugin, result, [SECRET], answer=False)


# --- model streams -----------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_reasoning_block_of_six_megabytes_then_a_call(run, plugin, strategy):
    think = "<think>" + "r" * 6_000_000 + "</think>"
    first = call(strategy, "vault", q="x")
    first = {**first, "text": think + first.get("text", ""), "split": 2_000_000}
    run.plugin = plugin
    tool = secret_tool(SECRET, [text_message("fine")])
    result = run([first, answer_turn(strategy, "Done.")], tools=[tool], strategy=strategy, timeout=120)
    # ReAct keeps no reasoning in its scratchpad; Function Calling sends the reply back as the
    # model plugin gave it, reasoning included, and a request of 6 MB would be over the line:
    # the run ends with a clear error saying so, never with the plugin killed
    assert_survived(plugin, result, [SECRET], answer=strategy == "ReAct")
    assert len(result.tool_requests) == 1
    if strategy == "ReAct":
        assert result.text == "Done."
    else:
        assert "the model's own replies" in result.error_text


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("usage", [
    {"prompt_tokens": 5, "completion_tokens": 2, "total_price": "NaN"},
    {"prompt_tokens": 5, "completion_tokens": 2, "prompt_price": "abc", "currency": None},
    {"prompt_tokens": 5, "completion_tokens": 2, "prompt_unit_price": "Infinity", "latency": "slow"},
    {"prompt_tokens": "5", "completion_tokens": -3},
    {"prompt_tokens": 5},
])
def test_usage_with_unreadable_prices(run, plugin, strategy, usage):
    run.plugin = plugin
    turn = {**call(strategy, "vault", q="x"), "usage": usage}
    tool = secret_tool(SECRET, [text_message("fine")])
    result = run([turn, {**answer_turn(strategy, "Done."), "usage": usage}], tools=[tool], strategy=strategy)
    assert_survived(plugin, result, [SECRET], answer=False)


def test_output_limit_in_the_middle_of_a_tool_call_delta(run, plugin):
    chunks = [
        {"tool_calls": [{"index": 0, "id": "c1", "type": "function",
                         "function": {"name": "vault", "arguments": '{"q": "Pa'}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": "ri"}}], "finish_reason": "length"},
    ]
    run.plugin = plugin
    tool = secret_tool(SECRET, [text_message("fine")])
    result = run([{"chunks": chunks}, {"tool_calls": [{"id": "c2", "name": "vault", "arguments": {"q": "Paris"}}]},
                  {"text": "Done."}], tools=[tool])
    assert_survived(plugin, result, [SECRET])
    assert [r["tool_parameters"]["q"] for r in result.tool_requests] == ["Paris"]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_model_error_after_a_partial_call_and_a_secret(run, plugin, strategy):
    first = call(strategy, "vault", q="x")
    text = first.get("text") or ""
    turn = {"text": f"I know {SECRET}. " + text[: len(text) // 2], "error": f"upstream 502 {SECRET} " + "e" * 6_000_000}
    run.plugin = plugin
    tool = secret_tool(SECRET, [text_message("fine")])
    result = run([turn], tools=[tool], strategy=strategy, timeout=120)
    assert_survived(plugin, result, [SECRET], answer=False)
    assert result.tool_requests == []


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_tool_raises_after_a_file_and_megabytes(run, plugin, strategy):
    responses = [blob(b"a,b\n1,2\n", "out.csv", "text/csv"), text_message("t" * 3_000_000),
                 json_message({"k": "j" * 3_000_000})]
    tool = secret_tool(SECRET, responses, error=f"boom {SECRET} " + "z" * 6_000_000)
    run.plugin = plugin
    result = run([call(strategy, "vault", q="x"), answer_turn(strategy, "Done.")], tools=[tool], strategy=strategy,
                 timeout=120)
    assert_survived(plugin, result, [SECRET])
    assert [f["meta"]["filename"] for f in result.files] == ["out.csv"]


# --- many tools, odd names, iteration limits -----------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_two_hundred_tools_with_odd_names(run, plugin, strategy):
    names = [f"tool_{n}" for n in range(190)] + ["météo", "get weather", "a.b.c", "日本語", "x" * 200,
                                                  "with-dash", "emoji🔧", "", " ", "Final Answer"]
    tools = [ScriptedTool(name=name, description=f"tool {n}", parameters=[ToolParam("q", description="q")],
                          responses=[text_message(f"out-{n}")]) for n, name in enumerate(names)]
    called = ["météo", "get weather", "a.b.c", "日本語"]
    offered = called if strategy == "ReAct" else [provider_name(name) for name in called]  # names providers take
    turns = [call(strategy, name, f"c{n}", q="v") for n, name in enumerate(offered)]
    run.plugin = plugin
    result = run([*turns, answer_turn(strategy, "Done."), answer_turn(strategy, "Done.")], tools=tools,
                 strategy=strategy, maximum_iterations=10, timeout=120)
    assert_survived(plugin, result)
    assert [r["tool"] for r in result.tool_requests] == called  # each under its own name


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("limit", [0, 1, 10**12, -5, "3", None, 1.5])
def test_iteration_limit_of_odd_values(run, plugin, strategy, limit):
    tool = secret_tool(SECRET, [text_message("fine")])
    turns = [call(strategy, "vault", f"c{n}", q=f"x{n}") for n in range(3)] + [answer_turn(strategy, "Done.")] * 3
    run.plugin = plugin
    result = run(turns, tools=[tool], strategy=strategy, maximum_iterations=limit)
    assert_survived(plugin, result, [SECRET], answer=False)


# --- concurrency ---------------------------------------------------------------------------------------


class Paced:
    """A ``ScriptedBackend`` whose chunks leave ``interval`` seconds apart: a neighbour streaming."""

    def __init__(self, inner: ScriptedBackend, interval: float) -> None:
        self.inner, self.interval = inner, interval

    def invoke_llm(self, request):
        for number, chunk in enumerate(self.inner.invoke_llm(request)):
            if number:
                time.sleep(self.interval)
            yield chunk

    def release(self) -> None:
        self.inner.release()


def worst_gap(result) -> float:
    """Seconds of the longest wait between two text messages of ``result`` (read off the runner's
    transcript: when each line came out of the plugin)."""
    times = [entry["t"] for entry in result.transcript
             if entry["dir"] == "from_plugin" and (entry.get("json") or {}).get("event") == "session"
             and ((entry["json"].get("data") or {}).get("data") or {}).get("type") == "text"]
    return max((b - a for a, b in itertools.pairwise(times)), default=0.0)


HEAVY = {  # one model reply sent whole (a blocking call) that is costly to read, and the tools
    "markup tokens": ("function_calling", {"text": "<tool_call>" * 300_000}),
    "50,000 actions": ("ReAct", {"text": "Thought: x\n" + 'Action: vault\nAction Input: {"q": "a"}\n' * 50_000}),
    "harmony channels": ("function_calling", {"text": "<|channel|>" * 100_000}),
}


@pytest.mark.parametrize("case", sorted(HEAVY))
def test_a_reply_of_megabytes_in_one_chunk_does_not_starve_a_neighbour(plugin, case):
    """Before: 300,000 ``<tool_call>`` in one chunk held the process 19 s (each marker copied the
    rest of the reply), 50,000 ReAct actions 1.7 s; the neighbour's stream stopped meanwhile."""
    strategy, reply = HEAVY[case]
    heavy, light = ScriptedRun(plugin), ScriptedRun(plugin)
    results = {}

    def stream() -> None:
        light.backend = Paced(ScriptedBackend([{"text": "w " * 300, "split": 2}]), 0.01)
        from local_runner.builtin_tools import default_toolbox
        from local_runner.scenario import Scenario, run_scenario
        with pace:
            results["light"] = run_scenario(Scenario(query="hi"), light.backend, default_toolbox(), plugin=plugin,
                                            timeout=60)

    pace = Pace()
    thread = threading.Thread(target=stream)
    thread.start()
    time.sleep(0.3)  # the neighbour is streaming when the heavy reply arrives
    tool = secret_tool(SECRET, [text_message("r")])
    results["heavy"] = heavy([reply, answer_turn(strategy, "ok"), answer_turn(strategy, "ok")], tools=[tool],
                             strategy=strategy, timeout=60)
    thread.join()
    assert_survived(plugin, results["heavy"], [SECRET])
    assert_survived(plugin, results["light"])
    assert results["light"].text == "w " * 300
    assert results["heavy"].duration < 10 * pace.slowdown  # 11 s at a load of 10 on 2 cores
    # quiet: 0.1-0.4 s; a 2-core machine at load 7-8 gave 0.76-0.98 s on unchanged code. 1.25 s
    # still fails the old readers (19 s and 1.7 s stretches of one reply), times the machine's
    # slowdown meanwhile (tests/e2e/pace.py)
    assert_not_held(worst_gap(results["light"]), 1.25, pace)


def test_a_pathological_session_does_not_starve_a_neighbour(plugin):
    heavy, light = ScriptedRun(plugin), ScriptedRun(plugin)
    results = {}

    def go_heavy():
        tools = [secret_tool(SECRET, [text_message("\x01" * 1_000_000), text_message(SECRET)], name=f"v{n}")
                 for n in range(4)]
        turn = {"tool_calls": [{"id": f"c{n}", "name": f"v{n}", "arguments": {"q": "x"}} for n in range(4)]}
        results["heavy"] = heavy([turn, {"text": "<think>" + "r" * 4_000_000 + "</think>done"}], tools=tools,
                                 timeout=120)

    thread = threading.Thread(target=go_heavy)
    thread.start()
    turns = [{"text": "pong " * 200, "split": 5}]
    results["light"] = light(turns, query="ping", timeout=60)
    thread.join()
    assert_survived(plugin, results["light"])
    assert_survived(plugin, results["heavy"], [SECRET])
    assert results["light"].text == "pong " * 200
