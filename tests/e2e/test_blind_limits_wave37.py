"""Blind limits, wave 37 (issue 13, classes 1 and 2), through the real plugin process.

Cases designed first from the issue, README.md, PLUGIN_README.md, docs/architecture.md and
docs/transports.md alone, the plugin a black box driven through the daemon protocol by
local_runner, from angles the earlier waves left: what Dify itself sends being large (memory of
megabytes in many or few messages, a tool message of megabytes in memory, a plain-text knowledge
context, thousands of query files, completion parameters of many keys, a secret of a megabyte), a
model sending usage on every one of thousands of chunks, a tool sending 100,000 one-byte messages,
each kind of tool message just under and just over a daemon line once JSON-encoded, memory of
megabytes over remote debugging and serverless, many sessions of moderate size at once on one
process, the run's limit given by the node, ``AGENT_RUN_TIMEOUT`` and
``PLUGIN_MAX_EXECUTION_TIMEOUT`` when they disagree, the deadline reached in the final-answer
request, and small daemon limits (10-15 s) under which a tool call that could finish must not be
cut. The cases the earlier files already run (``test_blind_limits_wave34/36.py``,
``test_line_budget.py``, ``test_red_team_wave30-32*.py``, ``test_run_deadline.py``,
``test_transports*.py``, ``test_blind_sessions_wave35.py``, ``test_blind_cuts_wave35.py``) were
dropped.

Every run is checked with wave 30's invariants (``assert_survived``: the plugin alive, so no stdout
line over the daemon's 5 MiB, as the runner kills it for one; only JSON on stdout; no log node left
in ``start``; an answer or a clear ``AgentRunError``) and no traceback shown; runs over TCP and
HTTP by the longest line the runner read. Time bounds follow docs/timing-tests.md: a neighbour's
worst gap is scaled by the machine's slowdown (``tests/e2e/pace.py``); a run that must end before
the daemon's limit is measured against that limit, which lies seconds past the plugin's own
deadline.
"""

from __future__ import annotations

import base64
import json
import threading
import time

import pytest

from local_runner import PluginProcess, ScriptedBackend, protocol
from local_runner.builtin_tools import default_toolbox
from local_runner.daemon import DEFAULT_PLUGIN_DIR
from local_runner.scenario import Scenario, run_scenario
from local_runner.tools import LocalTool, ScriptedTool, ToolParam, json_message, text_message
from tests.e2e.conftest import ScriptedRun
from tests.e2e.helpers import (
    STRATEGIES,
    CallsUntilTold,
    answer_turn,
    assert_clean_end,
    observations,
    prompt_text,
    revived_plugin,
)
from tests.e2e.helpers import (
    json_bytes as encoded,
)
from tests.e2e.pace import assert_not_held
from tests.e2e.test_red_team_wave30 import survived_cleanly as check
from tests.e2e.test_red_team_wave30 import worst_gap
from tests.e2e.test_red_team_wave31 import _with_neighbour, call, log_message, variable, vault

pytestmark = pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")

MB = 1024 * 1024
LINE = protocol.MAX_LINE_BYTES


_process, plugin = revived_plugin()


def escaping(size: int) -> str:
    """A text whose JSON string body is ``size`` bytes: half of it control characters (six bytes
    each as ``\\u0001``), half letters."""
    controls = size // 12
    return "\x01" * controls + "a" * (size - 6 * controls)


def tool(responses=(), name: str = "vault", **kwargs) -> ScriptedTool:
    return vault(list(responses), name=name, **kwargs)


def request_line_bytes(request: dict) -> int:
    """Bytes of a backwards model request as the plugin wrote it (compact JSON)."""
    return encoded(request)


# --- 1. what Dify sends: memory, context, files and settings of megabytes -------------------------------------

def _memory_many(total: int, each: int) -> list[dict]:
    turns = total // (2 * each)
    return [m for n in range(turns) for m in (
        {"role": "user", "content": f"q{n} " + "u" * each},
        {"role": "assistant", "content": f"a{n} " + "v" * each})]


INPUTS = {
    "memory of 8 MB in 1,600 turns of 5 KB": lambda: {"history": _memory_many(8 * MB, 2_600)},
    "memory of four user messages of 5 MB": lambda: {"history": [m for n in range(4) for m in (
        {"role": "user", "content": f"paste {n} " + "p" * (5 * MB)}, {"role": "assistant", "content": f"read {n}"})]},
    "memory of 100,000 one-word messages": lambda: {"history": [
        {"role": "user" if n % 2 == 0 else "assistant", "content": f"w{n}"} for n in range(100_000)]},
    "a knowledge context of 6 MB of plain text": lambda: {"context": "fact " * (6 * MB // 5)},
    "2,000 files in the query": lambda: {"files": [
        {"url": f"https://files.example/doc-{n}.pdf", "filename": f"doc-{n}.pdf", "mime_type": "application/pdf",
         "type": "document"} for n in range(2_000)]},
    "40 files named with 150 KB each": lambda: {"files": [
        {"url": f"https://files.example/f{n}.txt", "filename": f"f{n}-" + "n" * 150_000 + ".txt",
         "mime_type": "text/plain", "type": "document"} for n in range(40)]},
    "completion parameters of 200,000 keys": lambda: {"model": {"completion_params": {
        "temperature": 0.1, **{f"extra_{n}": n for n in range(200_000)}}}},
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", list(INPUTS))
def test_what_dify_sends_of_megabytes_answers_or_ends_clearly(run, plugin, strategy, kind):
    """An answer, or a clear error naming what to shorten; every model request fits one daemon line."""
    result = run([answer_turn(strategy, "Done."), answer_turn(strategy, "Done.")], strategy=strategy, timeout=180,
                 **INPUTS[kind]())
    check(plugin, result, answer=False)
    for request in result.llm_requests:
        assert request_line_bytes(request) < LINE
    if result.ok:
        assert result.text == "Done."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_memory_tool_message_of_six_megabytes(run, plugin, strategy):
    """A tool result of 6 MB in the node's memory (a chat flow whose earlier turn fetched a page):
    shortened or dropped, the run answers, the request fits."""
    history = [{"role": "user", "content": "fetch it"},
               {"role": "assistant", "content": "", "tool_calls": [{"id": "m1", "name": "vault", "arguments": {"q": "x"}}]},
               {"role": "tool", "content": "page " * (6 * MB // 5), "tool_call_id": "m1", "name": "vault"},
               {"role": "assistant", "content": "Fetched."}]
    result = run([answer_turn(strategy, "Done.")], strategy=strategy, history=history, timeout=180)
    check(plugin, result)
    assert request_line_bytes(result.llm_requests[0]) < LINE
    assert result.text == "Done."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_secret_of_a_megabyte_echoed_by_its_tool_leaves_no_line_holding_it(run, plugin, strategy):
    """A ``secret-input`` value of 1 MB (a key file pasted into the tool's settings), echoed three
    times by the tool: hidden in every line, which all fit."""
    secret = "k" * 200_000 + "SECRETEND" + "z" * 800_000
    result = run([call(strategy, "vault", q="x"), answer_turn(strategy, "Done.")], strategy=strategy,
                 tools=[tool([text_message(("key: " + secret + " ") * 3)], secret=secret)], timeout=180)
    check(plugin, result)
    assert secret not in json.dumps(result.llm_requests[-1])
    for request in result.llm_requests:
        assert request_line_bytes(request) < LINE


def test_a_secret_of_a_megabyte_does_not_starve_a_neighbour(plugin):
    """Finding the forms of a secret that large (escaped, encoded, folded) in a tool's 3 MB output is
    long work: it must give way to a session streaming beside it."""
    secret = "k" * 200_000 + "SECRETEND" + "z" * 800_000
    heavy = ScriptedRun(plugin)
    results = _with_neighbour(plugin, lambda: heavy(
        [call("function_calling", "vault", q="x"), {"text": "Done."}],
        tools=[tool([text_message(("key: " + secret + " ") * 3)], secret=secret)], timeout=180))
    check(plugin, results["heavy"])
    assert_not_held(worst_gap(results["light"]), 1.5, results["pace"])


# --- 2. what the model sends -------------------------------------------------------------------------------


def _usage_chunks(count: int, text: str) -> dict:
    """``count`` chunks of ``text`` each carrying a running usage (as a proxy that reports
    usage on every chunk does), the last one's finish reason ``stop``."""
    chunks = [{"content": text, "usage": {"prompt_tokens": 100, "completion_tokens": n + 1}} for n in range(count)]
    chunks[-1]["finish_reason"] = "stop"
    return {"chunks": chunks}


def test_usage_on_each_of_twenty_thousand_chunks_beside_a_neighbour(plugin):
    """Each chunk's usage is read (20,000 of them): the answer whole, the neighbour streaming on."""
    heavy = ScriptedRun(plugin)
    results = _with_neighbour(plugin, lambda: heavy([_usage_chunks(20_000, "ab")], timeout=180))
    check(plugin, results["heavy"])
    assert results["heavy"].text == "ab" * 20_000
    assert_not_held(worst_gap(results["light"]), 1.5, results["pace"])


# --- 3. what tools send --------------------------------------------------------------------------------


TINY = {
    "100,000 one-byte texts": lambda: [text_message("x") for _ in range(100_000)],
    "100,000 one-byte streamed variable pieces": lambda: [variable("v", "x", stream=True) for _ in range(100_000)],
}


@pytest.mark.parametrize("kind", list(TINY))
def test_a_tool_sending_a_hundred_thousand_one_byte_messages_beside_a_neighbour(plugin, kind):
    heavy = ScriptedRun(plugin)
    results = _with_neighbour(plugin, lambda: heavy(
        [call("function_calling", "vault", q="x"), {"text": "Done."}], tools=[tool(TINY[kind]())], timeout=180))
    check(plugin, results["heavy"])
    assert results["heavy"].text == "Done."
    seen = observations(results["heavy"].llm_requests[1])[0]
    assert seen.strip(), "the model got no observation"
    assert_not_held(worst_gap(results["light"]), 1.5, results["pace"])


def _kind(kind: str, size: int) -> dict:
    """One tool message of ``kind`` whose JSON encoding is about ``size`` bytes."""
    body = escaping(size)
    if kind == "text":
        return text_message(body)
    if kind == "json":
        return json_message({"d": body})
    if kind == "link":
        return {"type": "link", "meta": None, "message": {"text": "https://e.example/?q=" + body}}
    if kind == "image_link":
        return {"type": "image_link", "meta": None, "message": {"text": "https://e.example/i.png?q=" + body}}
    if kind == "blob data":
        return {"type": "blob", "message": {"blob": base64.b64encode(b"b" * (size * 3 // 4)).decode()},
                "meta": {"filename": "big.bin", "mime_type": "application/octet-stream"}}
    if kind == "blob filename":
        return {"type": "blob", "message": {"blob": "YWJj"}, "meta": {"filename": body + ".txt", "mime_type": "text/plain"}}
    if kind == "variable":
        return variable("v", body)
    if kind == "log data":
        return log_message("step", {"d": body})
    if kind == "retriever resources":
        return {"type": "retriever_resources", "meta": None, "message": {
            "retriever_resources": [{"position": 1, "dataset_id": "d", "dataset_name": "n", "document_id": "doc",
                                     "document_name": "name", "data_source_type": "upload_file", "segment_id": "s",
                                     "retriever_from": "workflow", "score": 0.9, "hit_count": 1, "word_count": 1,
                                     "segment_position": 1, "index_node_hash": "h", "content": body,
                                     "page": None, "doc_metadata": None}], "context": "ctx"}}
    raise ValueError(kind)


KINDS = ["text", "json", "link", "image_link", "blob data", "blob filename", "variable", "log data",
         "retriever resources"]
SIZES = {"4.9 MB": LINE - 120_000, "5.1 MB": LINE + 120_000}


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_of_tool_message_just_under_and_over_a_line(run, plugin, kind, size):
    """The message as the tool sends it is within 2 % of the daemon's line either side once JSON:
    the run goes on to its answer, the model is told something, every line fits."""
    message = _kind(kind, SIZES[size])
    assert abs(encoded(message) - SIZES[size]) < 2_000
    result = run([call("function_calling", "vault", q="x"), {"text": "Done."}], tools=[tool([message])],
                 timeout=180)
    check(plugin, result)
    assert result.text == "Done."
    assert request_line_bytes(result.llm_requests[1]) < LINE
    assert observations(result.llm_requests[1])[0].strip()


def test_a_react_text_result_just_over_a_line(run, plugin):
    """ReAct renders the observation in its scratchpad: 5.1 MB of JSON there too."""
    result = run([call("ReAct", "vault", q="x"), answer_turn("ReAct", "Done.")], strategy="ReAct",
                 tools=[tool([_kind("text", SIZES["5.1 MB"])])], timeout=180)
    check(plugin, result)
    assert result.text == "Done."
    assert request_line_bytes(result.llm_requests[1]) < LINE


# --- 4. transports: memory of megabytes over TCP and HTTP ----------------------------------------------------


@pytest.mark.parametrize("transport", ["remote", "serverless"])
def test_memory_of_eight_megabytes_over_each_transport(request, transport, longest_line):
    target = request.getfixturevalue(transport)
    result = ScriptedRun(target)([{"text": "Done."}, {"text": "Done."}], history=_memory_many(8 * MB, 2_600),
                                 timeout=180)
    assert_clean_end(result)
    assert result.text == "Done."
    assert target.alive
    assert 0 < longest_line[0] <= LINE
    assert request_line_bytes(result.llm_requests[0]) < LINE


@pytest.mark.parametrize("transport", ["remote", "serverless"])
def test_a_tool_message_just_over_a_line_over_each_transport(request, transport, longest_line):
    target = request.getfixturevalue(transport)
    result = ScriptedRun(target)([call("function_calling", "vault", q="x"), {"text": "Done."}],
                                 tools=[tool([_kind("json", SIZES["5.1 MB"])])], timeout=180)
    assert_clean_end(result)
    assert result.text == "Done."
    assert 0 < longest_line[0] <= LINE


def test_eight_sessions_at_once_over_tcp_each_with_a_megabyte_result(remote, longest_line):
    results = _sessions_at_once(remote, 8, lambda n: (
        [call("function_calling", "vault", q=str(n)), {"text": f"Done {n}."}],
        {"tools": [tool([text_message(f"r{n} " + "\x01" * 170_000)])]}))
    for n, result in enumerate(results):
        assert_clean_end(result)
        assert result.text == f"Done {n}."
    assert 0 < longest_line[0] <= LINE


# --- 5. many sessions at once on one process -------------------------------------------------------------------


def _sessions_at_once(plugin, count: int, make) -> list:
    """``count`` sessions started together on ``plugin``; ``make(n)`` gives session n's turns and
    ScriptedRun fields. Returns their results in order."""
    results: list = [None] * count
    start = threading.Barrier(count)

    def one(n: int) -> None:
        turns, fields = make(n)
        start.wait()
        results[n] = ScriptedRun(plugin)(turns, timeout=240, **fields)

    threads = [threading.Thread(target=one, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_twelve_sessions_each_reading_a_megabyte_result_all_finish_with_their_own(plugin):
    """Both strategies by turns, each session's tool output its own: each answer is its own and
    each model read its own result."""
    def make(n):
        strategy = STRATEGIES[n % 2]
        return ([call(strategy, "vault", q=str(n)), answer_turn(strategy, f"Done {n}.")],
                {"strategy": strategy, "tools": [tool([text_message(f"mark-{n}-" + "r" * MB)])]})

    results = _sessions_at_once(plugin, 12, make)
    for n, result in enumerate(results):
        check(plugin, result)
        assert result.text == f"Done {n}."
        seen = prompt_text(result.llm_requests[1])
        assert f"mark-{n}-" in seen
        assert not any(f"mark-{m}-" in seen for m in range(12) if m != n)


def test_sixteen_sessions_of_half_megabyte_answers_in_one_chunk(plugin):
    def make(n):
        strategy = STRATEGIES[n % 2]
        return [answer_turn(strategy, f"{n}:" + "\U0001f984" * 120_000)], {"strategy": strategy}

    results = _sessions_at_once(plugin, 16, make)
    for n, result in enumerate(results):
        check(plugin, result)
        assert result.text == f"{n}:" + "\U0001f984" * 120_000


def test_eight_sessions_with_four_megabytes_of_memory_beside_a_neighbour(plugin):
    """The neighbour streams while eight sessions read and fit 32 MB of memory between them."""
    def heavy():
        return _sessions_at_once(plugin, 8, lambda n: ([{"text": f"Done {n}."}, {"text": f"Done {n}."}],
                                                       {"history": _memory_many(4 * MB, 2_600)}))

    results = _with_neighbour(plugin, heavy)
    for n, result in enumerate(results["heavy"]):
        check(plugin, result)
        assert result.text == f"Done {n}."
    assert_not_held(worst_gap(results["light"]), 1.5, results["pace"])


# --- 6. the run's limit from three places that disagree ------------------------------------------------------


def limited_process(**env: str) -> PluginProcess:
    return PluginProcess(DEFAULT_PLUGIN_DIR, env=env).start()


@pytest.fixture(scope="module")
def daemon15():
    """The daemon ends runs at 15 s; the plugin's own AGENT_RUN_TIMEOUT says 30."""
    process = limited_process(PLUGIN_MAX_EXECUTION_TIMEOUT="15", AGENT_RUN_TIMEOUT="30")
    yield process
    process.close()


def crawl_tool(seconds: float = 1.0) -> LocalTool:
    def handler(params):
        time.sleep(seconds)
        yield text_message(f"page {params.get('value')}")

    return LocalTool(name="crawl", description="Crawls", parameters=[ToolParam("value")], handler=handler)


def _until_told(process, strategy: str, **fields):
    """A model that calls a 1 s tool every round until told time is short, on ``process``; the
    run's seconds and result."""
    backend = CallsUntilTold(strategy, "Answered in time.")
    toolbox = default_toolbox()
    toolbox.add(crawl_tool())
    scenario = Scenario(query="Crawl", tools=["crawl"], strategy=strategy, maximum_iterations=500, **fields)
    started = time.monotonic()
    try:
        result = run_scenario(scenario, backend, toolbox, plugin=process, timeout=60)
    finally:
        backend.release()
        toolbox.release()
    return time.monotonic() - started, result


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_node_limit_over_the_daemons_is_cut_to_the_daemons(daemon15, strategy):
    took, result = _until_told(daemon15, strategy, params={"run_timeout": 60})
    assert took < 15, f"{took:.1f} s: the daemon's timeout came first"
    check(daemon15, result)
    assert result.text == "Answered in time."


def test_agent_run_timeout_over_the_daemons_is_cut_to_the_daemons(daemon15):
    took, result = _until_told(daemon15, "function_calling")
    assert took < 15, f"{took:.1f} s: the daemon's timeout came first"
    check(daemon15, result)
    assert result.text == "Answered in time."


def test_agent_run_timeout_under_the_daemons_is_kept():
    process = limited_process(PLUGIN_MAX_EXECUTION_TIMEOUT="600", AGENT_RUN_TIMEOUT="12")
    try:
        took, result = _until_told(process, "ReAct")
        assert took < 12
        assert took > 5, f"{took:.1f} s: the run stopped far before its 12 s limit"
        check(process, result)
        assert result.text == "Answered in time."
    finally:
        process.close()


def test_the_nodes_limit_under_agent_run_timeout_is_kept():
    process = limited_process(PLUGIN_MAX_EXECUTION_TIMEOUT="600", AGENT_RUN_TIMEOUT="100")
    try:
        took, result = _until_told(process, "function_calling", params={"run_timeout": 10})
        assert took < 10
        check(process, result)
        assert result.text == "Answered in time."
    finally:
        process.close()


class AnswerTrickle(ScriptedBackend):
    """Calls ``vault`` until the iteration limit, then streams its final answer one character
    every 20 ms, never finishing."""

    def __init__(self, strategy: str) -> None:
        super().__init__([])
        self.strategy = strategy

    def invoke_llm(self, request):
        if not self.requests:
            self._turns.append(call(self.strategy, "vault", q="x"))
            return super().invoke_llm(request)
        self.requests.append(request)
        prefix = "Thought: done.\nFinal Answer: " if self.strategy == "ReAct" else ""

        def chunks():
            yield _content(prefix + "a")
            while not self._released.is_set():
                time.sleep(0.02)
                yield _content("a")
        return chunks()


def _content(text: str) -> dict:
    return {"model": "m", "prompt_messages": [], "system_fingerprint": "",
            "delta": {"index": 0, "message": {"role": "assistant", "content": text, "name": "", "tool_calls": [],
                                              "tool_call_id": ""}, "usage": None, "finish_reason": None}}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_final_answer_request_still_streaming_at_the_deadline_is_cut_before_the_daemon(daemon15, strategy):
    backend = AnswerTrickle(strategy)
    toolbox = default_toolbox()
    toolbox.add(tool([text_message("ok")]))
    started = time.monotonic()
    try:
        result = run_scenario(Scenario(query="q", tools=["vault"], strategy=strategy, maximum_iterations=1,
                                       params={"model_timeout": 900}), backend, toolbox, plugin=daemon15, timeout=60)
    finally:
        backend.release()
    assert time.monotonic() - started < 15
    check(daemon15, result, answer=False)
    assert result.text.startswith("aaa")
    assert any(n.label == "FINAL ANSWER" for n in result.logs.values())


# --- 7. small daemon limits: a tool call that could finish is not cut -----------------------------------------


def slow_vault(seconds: float) -> LocalTool:
    def handler(params):
        time.sleep(seconds)
        yield text_message("slow result")

    return LocalTool(name="vault", description="Slow", parameters=[ToolParam("q")], handler=handler)


@pytest.mark.parametrize(("limit", "seconds"), [(10, 4.0), (12, 5.5), (15, 7.5)])
def test_a_tool_call_that_fits_a_small_daemon_limit_is_not_cut(limit, seconds):
    """Half the daemon's limit for one call, the model instant: the call ends with seconds to spare,
    and the answer after it with more. The deadline's margin (then at least 5 s) and the answer's
    share cut it at 3.5 s, 5.2 s and 7.75 s."""
    process = limited_process(PLUGIN_MAX_EXECUTION_TIMEOUT=str(limit))
    try:
        started = time.monotonic()
        result = ScriptedRun(process)([call("function_calling", "vault", q="x"), {"text": "Answered."}],
                                      tools=[slow_vault(seconds)], params={"tool_timeout": 600}, timeout=60)
        assert time.monotonic() - started < limit
        check(process, result)
        assert observations(result.llm_requests[1]) == ["slow result"]
    finally:
        process.close()


def test_a_hanging_tool_under_a_ten_second_daemon_still_answers_before_it():
    """The other side of the margin: a call that never ends is cut so that the answer comes in time."""
    process = limited_process(PLUGIN_MAX_EXECUTION_TIMEOUT="10")
    try:
        started = time.monotonic()
        result = ScriptedRun(process)([call("function_calling", "vault", q="x"), {"text": "Answered without it."}],
                                      tools=[tool(hang=True)], params={"tool_timeout": 600}, timeout=60)
        assert time.monotonic() - started < 10
        check(process, result)
        assert result.text == "Answered without it."
    finally:
        process.close()


def test_a_model_silent_in_the_answer_round_under_a_ten_second_daemon():
    process = limited_process(PLUGIN_MAX_EXECUTION_TIMEOUT="10")
    try:
        started = time.monotonic()
        result = ScriptedRun(process)([call("function_calling", "vault", q="x"), {"hang": True}],
                                      tools=[tool([text_message("ok")])], params={"model_timeout": 900}, timeout=60)
        assert time.monotonic() - started < 10
        check(process, result, answer=False)
    finally:
        process.close()


def _tiny_memory(count: int) -> list[dict]:
    return [{"role": "user" if n % 2 == 0 else "assistant", "content": f"w{n}"} for n in range(count)]


def test_memory_of_a_hundred_thousand_messages_under_a_ten_second_daemon():
    """Parsing the request and reading memory of 100,000 messages takes seconds before the loop
    starts: the run's time counts from the request's arrival, so a model that never finishes is
    still cut before the daemon's limit."""
    process = limited_process(PLUGIN_MAX_EXECUTION_TIMEOUT="10")
    try:
        result = ScriptedRun(process)([{"chunks": [{"content": "Let me"}], "hang": True}],
                                      history=_tiny_memory(100_000), params={"model_timeout": 900}, timeout=60)
        check(process, result, answer=False)
        lines = result.transcript  # the daemon's clock runs from the request it sent to the session's end
        took = lines[-1]["t"] - next(e["t"] for e in lines if e["dir"] == "to_plugin")
        assert took < 10, f"{took:.1f} s from the request to the end: the daemon's timeout came first"
    finally:
        process.close()


def test_memory_of_a_hundred_thousand_messages_beside_a_neighbour(plugin):
    heavy = ScriptedRun(plugin)
    results = _with_neighbour(plugin, lambda: heavy([{"text": "Done."}, {"text": "Done."}],
                                                    history=_tiny_memory(100_000), timeout=180))
    check(plugin, results["heavy"])
    assert_not_held(worst_gap(results["light"]), 1.5, results["pace"])


FILE_FEATURES = ["tool-call", "multi-tool-call", "stream-tool-call", "agent-thought", "vision", "document"]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_fetched_files_of_forty_megabytes_fit_every_request(run, plugin, strategy, tmp_path):
    """Eight images and eight PDFs of 1.9 MB each at addresses only the plugin reaches, for a model
    that reads both: each would go as data (base64, 2.5 MB), 40 MB in all. Every request sent fits
    one daemon line (the oldest files become mentions) and the run answers."""
    from local_runner.files import FileServer

    files = []
    with FileServer() as server:
        for n in range(8):
            picture = tmp_path / f"p{n}.png"
            picture.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes([n]) * 1_900_000)
            document = tmp_path / f"d{n}.pdf"
            document.write_bytes(b"%PDF-1.4\n" + bytes([n]) * 1_900_000)
            files += [server.add(picture), server.add(document)]
        result = run([call(strategy, "vault", q="x"), answer_turn(strategy, "Done.")], strategy=strategy,
                     files=files, tools=[tool([text_message("ok")])], model={"features": FILE_FEATURES},
                     timeout=180)
    check(plugin, result)
    assert result.text == "Done."
    for request in result.llm_requests:
        assert request_line_bytes(request) < LINE


def test_eight_fetched_images_of_two_megabytes_keep_the_newest_as_data(run, plugin, tmp_path):
    """20 MB of base64 for a vision model: the newest image still reaches it as data, in a request
    that fits; the older ones are mentions."""
    from local_runner.files import FileServer

    with FileServer() as server:
        files = []
        for n in range(8):
            picture = tmp_path / f"p{n}.png"
            picture.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes([n]) * 1_900_000)
            files.append(server.add(picture))
        result = run([{"text": "Done."}], files=files, model={"features": FILE_FEATURES[:5]}, timeout=180)
    check(plugin, result)
    request = result.llm_requests[0]
    assert request_line_bytes(request) < LINE
    sent = [part for message in request["prompt_messages"] if isinstance(message["content"], list)
            for part in message["content"] if part.get("type") == "image"]
    assert [base64.b64decode(part["base64_data"])[8:9] for part in sent] == [bytes([7])]


def test_eight_sessions_at_once_over_http_each_with_a_megabyte_result(serverless, longest_line):
    results = _sessions_at_once(serverless, 8, lambda n: (
        [call("function_calling", "vault", q=str(n)), {"text": f"Done {n}."}],
        {"tools": [tool([text_message(f"r{n} " + "\x01" * 170_000)])]}))
    for n, result in enumerate(results):
        assert_clean_end(result)
        assert result.text == f"Done {n}."
    assert 0 < longest_line[0] <= LINE
