"""Blind limits, wave 39 (issue 13, classes 1 and 2 and the run's deadline), through the real plugin.

Cases designed first from the issue, README.md, docs/ and the daemon protocol alone, the plugin a
black box driven through the daemon protocol by local_runner, from angles the earlier waves left:
growth over thirty rounds (each round's result or thought just under what one round may carry, the
model's window two million tokens, so only the byte bound can keep each request in a line), a
``meta`` of megabytes on each kind of tool message, two hundred parallel calls of 100 KB each (and
two hundred ReAct actions in one reply), memory of one 8 MB message when the model entity is
missing or its window unknown or vast, several costs in one run (a ``secret-input`` tool echoing its
secret through a megabyte result, an answer of megabytes holding the secret, usage of odd numbers),
ten megabytes of reasoning in a thousand-byte chunks beside a neighbour, a model error of megabytes
after megabytes of answer, call arguments of lone surrogates, NUL bytes and U+2028, the daemon's
limit set to ``nan``, ``inf`` or a billion seconds, and the deadline reached while a tool is still
streaming messages (small or of half a megabyte) or while the model streams only reasoning. The
cases the earlier files already run (``test_blind_limits_wave34/36/37/38.py``,
``test_line_budget.py``, ``test_red_team_wave30-32*.py``, ``test_run_deadline.py``,
``test_transports*.py``, ``test_blind_cuts_wave35.py``) were dropped.

Found here (class 1): the run's own rounds are never trimmed (the model's replies and calls go back
to it intact), so a model writing 240 KB a round, in its text or in its calls' arguments, filled a
daemon line by the twentieth round, and the run ended with "the request to the model would be
4,805,063 bytes" and no answer. The loop now asks for the answer one round before the request
would no longer fit (a ``SIZE LIMIT`` node, ``AgentLoop._room_for_another_round``), judged from the
smaller of the last two rounds' growth, so one large reply alone ends no tool rounds.

Every run is checked with wave 30's invariants (``survived_cleanly``: the plugin alive, so no
stdout line over the daemon's 5 MiB, as the runner kills it for one; only JSON on stdout; no log
node left in ``start``; an answer or a clear ``AgentRunError``; no traceback shown). A neighbour's
worst gap is scaled by the machine's slowdown (``tests/e2e/pace.py``); a run that must end before
the daemon's limit is measured against that limit.
"""

from __future__ import annotations

import base64
import json
import threading
import time

import pytest

from agent_core import prompts
from local_runner import PluginProcess, ScriptedBackend, protocol
from local_runner.builtin_tools import default_toolbox
from local_runner.daemon import DEFAULT_PLUGIN_DIR
from local_runner.scenario import ModelSettings, Scenario, run_scenario
from local_runner.tools import LocalTool, ScriptedTool, ToolParam, json_message, text_message
from tests.e2e.conftest import ScriptedRun
from tests.e2e.helpers import (
    STRATEGIES,
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
from tests.e2e.test_red_team_wave31 import CANARY, _with_neighbour, assert_no_canary, blob, call, variable, vault

pytestmark = pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")

MB = 1024 * 1024
LINE = protocol.MAX_LINE_BYTES


_process, plugin = revived_plugin()


def tool(responses=(), name: str = "vault", **kwargs) -> ScriptedTool:
    return vault(list(responses), name=name, **kwargs)


def fits(request: dict) -> bool:
    """Whether a backwards model request, as the plugin wrote it, fits one daemon line."""
    return encoded(request) < LINE


# --- 1. growth over thirty rounds ---------------------------------------------------------------------------

VAST = {"context_size": 2_000_000}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_thirty_rounds_of_escape_heavy_results_keep_every_request_in_a_line(run, plugin, strategy):
    """Each result is 150,000 control characters (900 KB once JSON-escaped, 27 MB over the run); the
    window of two million tokens never asks for a trim, so the byte bound alone must hold."""
    turns = [call(strategy, "vault", f"c{n}", q=f"q{n}") for n in range(30)] + [answer_turn(strategy, "Done.")] * 2
    result = run(turns, strategy=strategy, tools=[tool([text_message("result " + "\x01" * 150_000)])],
                 maximum_iterations=31, model=VAST, timeout=240)
    check(plugin, result)
    assert result.text == "Done." and len(result.tool_requests) == 30
    assert all(fits(r) for r in result.llm_requests)
    # the latest result reaches the model, whole or shortened with a note, never dropped
    assert observations(result.llm_requests[30])[-1].startswith("result")


class Verbose(ScriptedBackend):
    """A model whose every reply opens with 60,000 emoji (240 KB of UTF-8) before its call, or
    (``in_arguments``) writes a file of 200 KB as its call's argument, as a coding agent does,
    until its request says another round would not fit; then it answers ``Done.``."""

    def __init__(self, strategy: str, in_arguments: bool) -> None:
        super().__init__([])
        self.strategy, self.in_arguments = strategy, in_arguments

    def invoke_llm(self, request):
        n = len(self.requests) + 1
        told = prompts.SIZE_LIMIT_NOTE in prompt_text(request)
        thought = f"file {n}" if self.in_arguments else "\U0001f984" * 60_000 + f" {n}"
        value = f"{n}: " + "x = 1\n" * 34_000 if self.in_arguments else f"q{n}"
        if told:
            turn = answer_turn(self.strategy, "Done.")
        elif self.strategy == "ReAct":
            step = json.dumps({"action": "vault", "action_input": {"q": value}})
            turn = {"text": f"Thought: {thought}\nAction:\n```json\n{step}\n```"}
        else:
            turn = {"text": thought, "tool_calls": [{"id": f"c{n}", "name": "vault", "arguments": {"q": value}}]}
        self._turns.append(turn)
        return super().invoke_llm(request)


@pytest.mark.parametrize(("strategy", "where"), [("function_calling", "thought"), ("ReAct", "thought"),
                                                 ("function_calling", "arguments")])
def test_rounds_whose_own_replies_fill_a_line_end_with_an_answer(run, plugin, strategy, where):
    """The run's own rounds are never trimmed (the model's replies and calls go back intact), so
    they fill a daemon line by the twentieth round. Found here: the run then ended with "the request
    would be 4,805,063 bytes" and no answer, twenty rounds of work lost. Now the model is asked to
    answer one round before its request would no longer fit, as it is before the run's deadline."""
    run.backend = backend = Verbose(strategy, where == "arguments")
    scenario = Scenario(query="q", strategy=strategy, tools=["vault"], maximum_iterations=60,
                        model=ModelSettings.from_dict(VAST))
    toolbox = default_toolbox()
    toolbox.add(tool([text_message("ok")]))
    result = run_scenario(scenario, backend, toolbox, plugin=plugin, timeout=240)
    check(plugin, result)
    assert result.text.endswith("Done.")
    assert len(result.tool_requests) >= 15
    assert any(n.label == "SIZE LIMIT" for n in result.logs.values())
    assert all(fits(r) for r in backend.requests)


def test_one_reply_of_megabytes_is_no_trend_the_rounds_after_it_still_run(run, plugin):
    """A coding agent writes four files of 850 KB at once, then runs two small calls: the request
    stays over the trimming budget but grows little, so both run and the model answers as it
    chooses."""
    calls = [{"tool_calls": [{"id": f"f{n}", "name": "vault", "arguments": {"q": f"{n}" * 850_000}}
                             for n in range(4)]},
             call("function_calling", "vault", "c2", q="run the tests"),
             call("function_calling", "vault", "c3", q="read the log"), {"text": "Done."}]
    result = run(calls, tools=[tool([text_message("ok")])], model=VAST, timeout=120)
    check(plugin, result)
    assert result.text == "Done." and len(result.tool_requests) == 6
    assert encoded(result.llm_requests[2]) > 3 * MB
    assert not any(n.label == "SIZE LIMIT" for n in result.logs.values())
    assert all(fits(r) for r in result.llm_requests)


# --- 2. a meta of megabytes on each kind of tool message -----------------------------------------------------

BIG_META = {"note": "\x01" * 1_000_000, "source": "s" * MB}  # 7 MB as JSON

METAS = {
    "text": lambda: {**text_message("seen"), "meta": BIG_META},
    "json": lambda: {**json_message({"seen": 1}), "meta": BIG_META},
    "link": lambda: {"type": "link", "message": {"text": "https://e.example/seen"}, "meta": BIG_META},
    "image_link": lambda: {"type": "image_link", "message": {"text": "https://e.example/seen.png"}, "meta": BIG_META},
    "blob": lambda: {**blob(b"seen", "seen.txt"), "meta": {"filename": "seen.txt", "mime_type": "text/plain",
                                                          **BIG_META}},
    "blob_chunk": lambda: {"type": "blob_chunk", "meta": {"filename": "seen.txt", "mime_type": "text/plain",
                                                          **BIG_META},
                           "message": {"id": "f1", "sequence": 0, "total_length": 4, "blob": "c2Vlbg==",
                                       "end": True}},
    "variable": lambda: {"type": "variable", "message": {"variable_name": "v", "variable_value": "seen",
                                                         "stream": False}, "meta": BIG_META},
}


@pytest.mark.parametrize("kind", list(METAS))
def test_a_meta_of_megabytes_on_each_kind_of_tool_message_keeps_the_run(run, plugin, kind):
    result = run([call("function_calling", "vault", q="x"), {"text": "Done."}, {"text": "Done."}],
                 tools=[tool([METAS[kind](), text_message("kept")])], timeout=120)
    check(plugin, result)
    assert result.text == "Done."
    (seen,) = observations(result.llm_requests[1])
    assert "kept" in seen
    assert fits(result.llm_requests[1])


# --- 3. two hundred parallel calls of 100 KB --------------------------------------------------------------------

def test_two_hundred_parallel_calls_of_100_kb_results(run, plugin):
    """64 run (6.4 MB of escaped results), 136 are answered "not run"; every line fits."""
    calls = [{"id": f"c{n}", "name": "vault", "arguments": {"q": f"q{n}"}} for n in range(200)]
    result = run([{"tool_calls": calls}, {"text": "Done."}, {"text": "Done."}],
                 tools=[tool([text_message("\x01" * 100_000)])], timeout=120)
    check(plugin, result)
    assert result.text == "Done."
    assert len(result.tool_requests) == 64
    assert len(observations(result.llm_requests[1])) == 200
    assert fits(result.llm_requests[1])


def test_two_hundred_react_actions_of_22_kb_inputs_in_one_reply(run, plugin):
    """A 4.4 MB reply of 200 ``Action:`` blocks, each a 22 KB input: 64 run, the rest are named."""
    steps = "\n".join(
        "Action:\n```json\n" + json.dumps({"action": "vault", "action_input": {"q": f"q{n} " + "z" * 22_000}})
        + "\n```" for n in range(200))
    result = run([{"text": "Thought: all of them.\n" + steps}, answer_turn("ReAct", "Done."),
                  answer_turn("ReAct", "Done.")],
                 strategy="ReAct", tools=[tool([text_message("ok")])], timeout=120)
    check(plugin, result)
    assert result.text == "Done."
    assert 1 <= len(result.tool_requests) <= 64
    assert fits(result.llm_requests[1])


# --- 4. memory of one 8 MB message, the model's window unknown or vast ---------------------------------------

MEMORY_ENTITIES = {
    "no model entity": {"entity": False},
    "a window of a trillion tokens": {"context_size": 10**12},
    "an entity without a context size": {"context_size": None, "parameter_rules": []},
    "a context size of zero": {"context_size": 0, "parameter_rules": []},
}

ONE_MESSAGE = {
    "user": lambda: [{"role": "user", "content": "paste " + "p" * (8 * MB)}, {"role": "assistant", "content": "Read."}],
    "assistant": lambda: [{"role": "user", "content": "write"}, {"role": "assistant", "content": "\x01" * (1_400_000)}],
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("entity", list(MEMORY_ENTITIES))
@pytest.mark.parametrize("role", list(ONE_MESSAGE))
def test_memory_of_one_eight_megabyte_message(run, plugin, strategy, entity, role):
    result = run([answer_turn(strategy, "Done."), answer_turn(strategy, "Done.")], strategy=strategy,
                 history=ONE_MESSAGE[role](), model=MEMORY_ENTITIES[entity], timeout=120)
    check(plugin, result)
    assert result.text == "Done."
    assert all(fits(r) for r in result.llm_requests)


# --- 5. several costs in one run ---------------------------------------------------------------------------------

def test_a_secret_tool_a_megabyte_echo_and_an_answer_of_megabytes_holding_the_secret(run, plugin):
    """The tool echoes its secret through 1 MB of output; the model's answer is 3 MB of escapes with
    the secret every 4,000 characters; the usage carries numbers past any integer type. Every line
    fits, the secret reaches none, and the answer arrives with the secret hidden."""
    echo = ("line " + CANARY + " " + "\x01" * 2_000 + "\n") * 500
    piece = "\x03" * 4_000 + CANARY
    answer = piece * 750
    usage = {"prompt_tokens": 10**30, "completion_tokens": 10**30}
    result = run([{**call("function_calling", "vault", q="x"), "usage": usage},
                  {"text": answer, "usage": usage}, {"text": answer}],
                 tools=[tool([text_message(echo)])], timeout=120)
    check(plugin, result, answer=False)
    assert_no_canary(plugin, result)
    if result.ok:
        assert result.text.count("\x03" * 4_000) == 750


def test_a_model_error_of_megabytes_after_megabytes_of_answer(run, plugin):
    """The answer streamed 3 MB of escapes, then the model plugin failed with 3 MB of escapes."""
    result = run([{"text": "\x01" * 500_000, "split": 50_000, "error": "\x02" * 500_000}], timeout=120)
    check(plugin, result, answer=False)
    assert result.text.startswith("\x01" * 500_000)


CHARACTERS = {
    "lone surrogates": "\ud800",
    "NUL bytes": "\x00",
    "U+2028": "\u2028",
    "four-byte characters": "\U0001f984",
}


@pytest.mark.parametrize("kind", list(CHARACTERS))
def test_call_arguments_of_a_million_odd_characters(run, plugin, kind):
    """The CALL log, the Thought log, the tool request and the next model request each carry them."""
    value = CHARACTERS[kind] * 800_000
    result = run([{"tool_calls": [{"id": "c1", "name": "vault", "arguments": {"q": value}}]}, {"text": "Done."},
                  {"text": "Done."}], tools=[tool([text_message("ok")])], timeout=120)
    check(plugin, result)
    assert result.text == "Done."
    assert all(fits(r) for r in result.llm_requests)


# --- 6. megabytes of reasoning beside a neighbour --------------------------------------------------------------

def test_ten_megabytes_of_reasoning_in_small_chunks_beside_a_neighbour(plugin):
    heavy = ScriptedRun(plugin)
    reasoning = "<think>" + "mull it over " * (10 * MB // 13) + "</think>"
    results = _with_neighbour(plugin, lambda: heavy([{"text": reasoning + "Done.", "split": 1_000}], timeout=180))
    check(plugin, results["heavy"])
    assert results["heavy"].text == "Done."
    assert_not_held(worst_gap(results["light"]), 1.5, results["pace"])


def test_twenty_thousand_tiny_json_messages_beside_a_neighbour(plugin):
    heavy = ScriptedRun(plugin)
    responses = [json_message({"n": n}) for n in range(20_000)]
    results = _with_neighbour(plugin, lambda: heavy([call("function_calling", "vault", q="x"), {"text": "Done."}],
                                                    tools=[tool(responses)], timeout=180))
    check(plugin, results["heavy"])
    assert results["heavy"].text == "Done."
    assert observations(results["heavy"].llm_requests[1])[0].strip()
    assert_not_held(worst_gap(results["light"]), 1.5, results["pace"])


# --- 7. the daemon's limit set to odd values ------------------------------------------------------------------

@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1000000000", "9" * 400],
                         ids=["nan", "inf", "-inf", "a billion", "400 digits"])
def test_a_daemon_limit_of_odd_numbers_leaves_runs_working(value):
    with PluginProcess(DEFAULT_PLUGIN_DIR, env={"PLUGIN_MAX_EXECUTION_TIMEOUT": value}) as process:
        result = ScriptedRun(process)([call("function_calling", "vault", q="x"), {"text": "Done."}],
                                      tools=[tool([text_message("ok")])], timeout=60)
        check(process, result)
        assert result.text == "Done."
        assert not any(n.label == "TIME LIMIT" for n in result.logs.values())


@pytest.mark.parametrize("value", [True, [30], {"s": 30}, 1e300, -1e300],
                         ids=["true", "a list", "an object", "1e300", "-1e300"])
def test_a_node_run_timeout_of_odd_values_answers_or_names_the_setting(run, plugin, value):
    result = run([{"text": "Done."}], params={"run_timeout": value}, timeout=60)
    check(plugin, result, answer=False)
    if result.ok:
        assert result.text == "Done."
    else:
        assert "run_timeout" in result.error_text


# --- 8. the deadline while a tool or the model is still streaming -----------------------------------------------

DAEMON_LIMIT = 8


@pytest.fixture(scope="module")
def limited():
    """A process whose daemon ends runs at 8 s."""
    with PluginProcess(DEFAULT_PLUGIN_DIR, env={"PLUGIN_MAX_EXECUTION_TIMEOUT": str(DAEMON_LIMIT)}) as process:
        yield process


def streaming_tool(message, interval: float, stop: threading.Event) -> LocalTool:
    """A tool that sends ``message(n)`` every ``interval`` seconds until ``stop`` is set (at most 60 s)."""
    def handler(params):
        ends = time.monotonic() + 60
        n = 0
        while not stop.is_set() and time.monotonic() < ends:
            yield message(n)
            n += 1
            if interval:
                time.sleep(interval)

    return LocalTool(name="vault", description="Streams", parameters=[ToolParam("q")], handler=handler)


def _chunk_of_a_file_never_ended(n: int) -> dict:
    return {"type": "blob_chunk", "meta": {"filename": "endless.bin", "mime_type": "application/octet-stream"},
            "message": {"id": "f1", "sequence": n, "total_length": 10**9,
                        "blob": base64.b64encode(b"\x00" * 300_000).decode(), "end": False}}


STREAMS = {
    "a short message every 50 ms": (lambda n: text_message(f"{n}:tick"), 0.05),
    "half a megabyte of escapes every 100 ms": (lambda n: text_message(f"{n}:" + "\x01" * 90_000), 0.1),
    "tiny messages as fast as it can": (lambda n: text_message("t"), 0),
    "a streamed variable growing half a megabyte every 100 ms": (
        lambda n: variable("v", "\x01" * 90_000, stream=True), 0.1),
    "a file's chunks that never end": (_chunk_of_a_file_never_ended, 0.05),
}


@pytest.mark.parametrize(("kind", "strategy"), [*((kind, "function_calling") for kind in STREAMS),
                                               ("half a megabyte of escapes every 100 ms", "ReAct")])
def test_a_tool_still_streaming_at_the_deadline_leaves_the_model_time_to_answer(limited, strategy, kind):
    stop = threading.Event()
    message, interval = STREAMS[kind]
    started = time.monotonic()
    try:
        result = ScriptedRun(limited)([call(strategy, "vault", q="x"), answer_turn(strategy, "Answered."),
                                       answer_turn(strategy, "Answered.")],
                                      tools=[streaming_tool(message, interval, stop)], strategy=strategy,
                                      params={"tool_timeout": 600}, timeout=60)
    finally:
        stop.set()
    assert time.monotonic() - started < DAEMON_LIMIT
    check(limited, result)
    assert result.text == "Answered."
    assert all(fits(r) for r in result.llm_requests)


def test_eight_parallel_tools_still_streaming_at_the_deadline(limited):
    """Each of eight parallel calls sends a short message every 50 ms and never ends: all are
    stopped before the deadline and the model answers with what they sent."""
    stop = threading.Event()
    calls = [{"id": f"c{n}", "name": "vault", "arguments": {"q": f"q{n}"}} for n in range(8)]
    started = time.monotonic()
    try:
        result = ScriptedRun(limited)([{"tool_calls": calls}, {"text": "Answered."}, {"text": "Answered."}],
                                      tools=[streaming_tool(lambda n: text_message(f"{n}:tick"), 0.05, stop)],
                                      params={"tool_timeout": 600}, timeout=60)
    finally:
        stop.set()
    assert time.monotonic() - started < DAEMON_LIMIT
    check(limited, result)
    assert result.text == "Answered."
    seen = observations(result.llm_requests[1])
    assert len(seen) == 8 and all("tick" in text for text in seen)


class Musing(ScriptedBackend):
    """A model whose every reply opens ``<think>`` and then adds a word every 10 ms, never closing it."""

    def __init__(self) -> None:
        super().__init__([])

    def invoke_llm(self, request):
        self.requests.append(request)

        def chunks():
            yield self._chunk("<think>")
            while not self._released.is_set():
                time.sleep(0.01)
                yield self._chunk("hmm ")
        return chunks()

    @staticmethod
    def _chunk(text):
        return {"model": "m", "prompt_messages": [], "system_fingerprint": "",
                "delta": {"index": 0, "message": {"role": "assistant", "content": text, "name": "",
                                                  "tool_calls": [], "tool_call_id": ""},
                          "usage": None, "finish_reason": None}}


@pytest.mark.parametrize("strategy", ["function_calling"])
def test_a_model_streaming_only_reasoning_at_the_deadline_ends_before_the_daemon(limited, strategy):
    backend = Musing()
    started = time.monotonic()
    try:
        result = run_scenario(Scenario(query="q", strategy=strategy, params={"model_timeout": 900}), backend,
                              default_toolbox(), plugin=limited, timeout=60)
    finally:
        backend.release()
    assert time.monotonic() - started < DAEMON_LIMIT
    check(limited, result, answer=False)
    assert_clean_end(result)


# --- 9. the heavy cases over the other two transports -------------------------------------------------------------

@pytest.mark.parametrize("transport", ["remote", "serverless"])
@pytest.mark.parametrize("kind", ["blob", "image_link"])
def test_a_meta_of_megabytes_over_each_transport(request, transport, kind, longest_line):
    target = request.getfixturevalue(transport)
    result = ScriptedRun(target)([call("function_calling", "vault", q="x"), {"text": "Done."}, {"text": "Done."}],
                                 tools=[tool([METAS[kind](), text_message("kept")])], timeout=120)
    assert_clean_end(result)
    assert result.text == "Done."
    assert target.alive
    assert 0 < longest_line[0] <= LINE


# --- 10. a four-byte character split across two chunks, a hundred thousand times ------------------------------------

@pytest.mark.parametrize("strategy", STRATEGIES)
def test_emoji_halves_in_separate_chunks(run, plugin, strategy):
    """A model plugin that cut its text between the two UTF-16 halves of each emoji: each chunk is
    one lone surrogate (the daemon's decoder makes each a U+FFFD); 10,000 chunks."""
    prefix = [{"content": "Thought: x\nFinal Answer: "}] if strategy == "ReAct" else []
    chunks = prefix + [{"content": half} for _ in range(5_000) for half in ("\ud83e", "\udd84")]
    result = run([{"chunks": chunks}], strategy=strategy, timeout=120)
    check(plugin, result)
    assert len(result.text) >= 5_000
