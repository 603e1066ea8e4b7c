"""Blind limits, wave 38 (issue 13, classes 1 and 2), through the real plugin process.

Cases designed first from the issue, README.md, docs/ and the daemon protocol alone, the plugin a
black box driven through the daemon protocol by local_runner, from angles the earlier waves left:
a model's tool-call arguments of megabytes in one call (in one chunk, or spread over 50,000
argument fragments), tool declarations each under the per-tool bound that together pass a daemon
line (in Function Calling's tool list and in ReAct's prompt, which embeds them), a query or an
instruction that only grows past a line once JSON-escaped, JSON nested far past Python's recursion
limit (a tool's json message, a model's arguments, a ReAct action input), integers of more digits
than Python converts by default, a reply of 100,000 tiny parallel calls, memory holding one
assistant message of 50,000 calls, a streamed variable and a chunked blob that grow to many
megabytes, and the daemon's limit set tiny (1 to 3 s) or reached while the model streams a call's
arguments forever. The cases the earlier files already run (``test_blind_limits_wave34/36/37.py``,
``test_line_budget.py``, ``test_red_team_wave30-33*.py``, ``test_run_deadline.py``,
``test_transports*.py``, ``test_blind_sessions_wave35.py``) were dropped.

Found here, both costs taken from every other session on the process: routing a call's argument
fragments joined every fragment before each one (4.8 MB in 38,000 fragments: 11 s of plugin CPU;
``agent_core/tool_calls.py``), and with a ``secret-input`` tool on the node each streamed piece of
the answer tried every length of every form of the key for a start at its end (0.7 ms a piece;
``agent_core/redaction.py``). Both are measured here as the plugin process's CPU time.

Every run is checked with wave 30's invariants (``survived_cleanly``: the plugin alive, so no
stdout line over the daemon's 5 MiB, as the runner kills it for one; only JSON on stdout; no log
node left in ``start``; an answer or a clear ``AgentRunError``; no traceback shown). A neighbour's
worst gap is scaled by the machine's slowdown (``tests/e2e/pace.py``); a run that must end before
the daemon's limit is measured against that limit.
"""

from __future__ import annotations

import json
import os
import time

import pytest

from local_runner import PluginProcess, ScriptedBackend, protocol
from local_runner.builtin_tools import default_toolbox
from local_runner.daemon import DEFAULT_PLUGIN_DIR
from local_runner.scenario import Scenario, run_scenario
from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.conftest import ScriptedRun
from tests.e2e.helpers import (
    STRATEGIES,
    answer_turn,
    observations,
    revived_plugin,
)
from tests.e2e.helpers import (
    json_bytes as encoded,
)
from tests.e2e.pace import assert_not_held
from tests.e2e.test_red_team_wave30 import survived_cleanly as check
from tests.e2e.test_red_team_wave30 import worst_gap
from tests.e2e.test_red_team_wave31 import _with_neighbour, blob_chunks, call, variable, vault

pytestmark = pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")

MB = 1024 * 1024
LINE = protocol.MAX_LINE_BYTES


_process, plugin = revived_plugin()


def tool(responses=(), name: str = "vault", **kwargs) -> ScriptedTool:
    return vault(list(responses), name=name, **kwargs)


def fits(request: dict) -> bool:
    """Whether a backwards model request, as the plugin wrote it, fits one daemon line."""
    return encoded(request) < LINE


# --- 1. a model's tool-call arguments of megabytes ----------------------------------------------------------

def fragments(arguments: str, size: int, name: str = "vault") -> list[dict]:
    """A call's head, then ``arguments`` in fragments of ``size`` characters, as a provider streams them."""
    chunks = [{"tool_calls": [{"index": 0, "id": "c1", "type": "function",
                               "function": {"name": name, "arguments": ""}}]}]
    chunks += [{"tool_calls": [{"index": 0, "function": {"arguments": arguments[n:n + size]}}]}
               for n in range(0, len(arguments), size)]
    return chunks


ARGUMENTS = {
    "6 MB of letters in one chunk": lambda: {"tool_calls": [{"id": "c1", "name": "vault",
                                                             "arguments": {"q": "a" * (6 * MB)}}]},
    "6 MB of letters in 6,300 fragments": lambda: {"chunks": fragments(json.dumps({"q": "a" * (6 * MB)}), 1_000)},
    "1 M control characters in 6,000 fragments": lambda: {"chunks": fragments(
        json.dumps({"q": "\x01" * 1_000_000}, ensure_ascii=False), 1_000)},
    "4 MB under a key of 1 MB": lambda: {"tool_calls": [{"id": "c1", "name": "vault",
                                                         "arguments": {"k" * MB: "v" * (4 * MB), "q": "x"}}]},
}


@pytest.mark.parametrize("kind", list(ARGUMENTS))
def test_a_call_whose_arguments_are_megabytes_runs_or_is_refused_with_the_reason(run, plugin, kind):
    """The tool request carries the arguments, and the next model request the model's own call:
    each fits a line, or the call is refused and the model told; the run answers."""
    result = run([ARGUMENTS[kind](), {"text": "Done."}, {"text": "Done."}],
                 tools=[tool(responses=[text_message("ok")])], timeout=120)
    check(plugin, result)
    assert result.text == "Done."
    assert all(fits(r) for r in result.llm_requests)
    if not result.tool_requests:
        (seen,) = observations(result.llm_requests[1])
        assert seen and seen != "ok"


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds the process ``pid`` has used so far."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def shaped(chunks: list[dict], shape: str) -> list[dict]:
    """``fragments``' chunks as other servers stream them: the tool's name on every fragment
    (llama.cpp's server), or a fresh id on every fragment (LMDeploy)."""
    if shape == "bare":
        return chunks
    head, *rest = chunks
    for n, chunk in enumerate(rest):
        call = chunk["tool_calls"][0]
        if shape == "named":
            call["function"]["name"] = head["tool_calls"][0]["function"]["name"]
        else:
            call["id"] = f"f{n}"
    return [head, *rest]


@pytest.mark.parametrize("shape", ["bare", "named", "fresh ids"])
def test_arguments_of_three_megabytes_in_24000_fragments_cost_the_plugin_little(run, plugin, shape):
    """Found here: routing each fragment (the daemon drops ``index``, so none says which call it
    continues) joined every fragment before it, twice: 3 MB in fragments of 126 characters cost
    the plugin 4-5 s of CPU (4.8 MB: 11 s), all of it taken from every other session on the
    process; a model writing a file through a tool streams its arguments a token at a time. Now
    about half a second, most of it reading 24,000 lines."""
    before = cpu_seconds(plugin.pid)
    result = run([{"chunks": shaped(fragments(json.dumps({"q": "a" * (3 * MB)}), 126), shape)}, {"text": "Done."}],
                 tools=[tool(responses=[text_message("ok")])], timeout=180)
    used = cpu_seconds(plugin.pid) - before
    check(plugin, result)
    assert result.tool_requests == []  # over the arguments' bound (a megabyte): refused, and the model told
    (seen,) = observations(result.llm_requests[1])
    assert "MB" in seen or "bytes" in seen, seen[:300]
    assert used < 2.5, f"{used:.2f} s of plugin CPU"


def test_arguments_of_three_megabytes_in_fragments_beside_a_neighbour(plugin):
    heavy = ScriptedRun(plugin)
    results = _with_neighbour(plugin, lambda: heavy(
        [{"chunks": fragments(json.dumps({"q": "a" * (3 * MB)}), 126)}, {"text": "Done."}],
        tools=[tool(responses=[text_message("ok")])], timeout=180))
    check(plugin, results["heavy"])
    assert_not_held(worst_gap(results["light"]), 1.5, results["pace"])


# --- 2. tool declarations that pass a line only together -------------------------------------------------------

def wordy_tools(count: int, size: int) -> list[ScriptedTool]:
    return [ScriptedTool(name=f"wordy_{n}", description=f"tool {n} " + "d" * size, parameters=[ToolParam("q")],
                         responses=[text_message("ok")]) for n in range(count)]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_five_tools_each_under_the_bound_that_together_pass_a_line(run, plugin, strategy):
    """Each 1.1 MB declaration is under a quarter of a line, so none is dropped on its own; the five
    together are 5.5 MB in every model request (ReAct writes them into its prompt)."""
    tools = [*wordy_tools(5, 1_100_000), tool(responses=[text_message("ok")])]
    turns = [call(strategy, "vault", q="x"), answer_turn(strategy, "Done."), answer_turn(strategy, "Done.")]
    result = run(turns, tools=tools, strategy=strategy, timeout=120)
    check(plugin, result, answer=False)
    assert all(fits(r) for r in result.llm_requests)
    if result.ok:
        assert result.text == "Done."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_tool_whose_parameters_hold_three_megabytes_of_enum_options(run, plugin, strategy):
    """20,000 options of 150 bytes, one select parameter: the model's requests fit a line."""
    options = [{"value": f"opt-{n}-" + "o" * 140, "label": {"en_US": f"o{n}"}} for n in range(20_000)]
    wide = ScriptedTool(name="wide", description="d", parameters=[
        ToolParam("choice", type="select", options=options), ToolParam("q")], responses=[text_message("ok")])
    turns = [call(strategy, "vault", q="x"), answer_turn(strategy, "Done."), answer_turn(strategy, "Done.")]
    result = run(turns, tools=[wide, tool(responses=[text_message("ok")])], strategy=strategy, timeout=120)
    check(plugin, result, answer=False)
    assert all(fits(r) for r in result.llm_requests)


# --- 3. what grows past a line only once JSON-escaped -----------------------------------------------------------

ESCAPED = {
    "a query of 900,000 control characters": {"query": "q" + "\x01" * 900_000},
    "an instruction of 1.4 M emoji": {"instruction": "\U0001f984" * 1_400_000},
    "a query of 5.5 MB beside five tools of 200 KB": {"query": "w" * (5 * MB + MB // 2)},
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", list(ESCAPED))
def test_what_dify_sends_escaping_to_megabytes_answers_or_ends_clearly(run, plugin, strategy, kind):
    fields = dict(ESCAPED[kind])
    tools = [*wordy_tools(5, 200_000), tool(responses=[text_message("ok")])]
    turns = [answer_turn(strategy, "Done."), answer_turn(strategy, "Done.")]
    result = run(turns, tools=tools, strategy=strategy, timeout=120, **fields)
    check(plugin, result, answer=False)
    assert all(fits(r) for r in result.llm_requests)
    if result.ok:
        assert result.text == "Done."


# --- 4. JSON nested far past Python's recursion limit, numbers of many digits ---------------------------------

def deep(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_arguments_nested_100000_deep_are_refused_with_the_reason(run, plugin):
    result = run([{"tool_calls": [{"id": "c1", "name": "vault", "arguments": '{"q": ' + deep(100_000) + "}"}]},
                  {"text": "Done."}, {"text": "Done."}], tools=[tool(responses=[text_message("ok")])], timeout=120)
    check(plugin, result)
    assert result.text == "Done."
    assert all(fits(r) for r in result.llm_requests)


def test_a_react_action_input_nested_100000_deep(run, plugin):
    step = 'Thought: go.\nAction: vault\nAction Input: {"q": ' + deep(100_000) + "}"
    result = run([{"text": step}, answer_turn("ReAct", "Done."), answer_turn("ReAct", "Done.")],
                 tools=[tool(responses=[text_message("ok")])], strategy="ReAct", timeout=120)
    check(plugin, result)
    assert result.text == "Done."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_arguments_holding_an_integer_of_ten_thousand_digits(run, plugin, strategy):
    """Python refuses to convert an int of over 4,300 digits by default (str and int both ways)."""
    number = "7" * 10_000
    if strategy == "ReAct":
        first = {"text": f'Thought: go.\nAction: vault\nAction Input: {{"q": {number}}}'}
    else:
        first = {"tool_calls": [{"id": "c1", "name": "vault", "arguments": f'{{"q": {number}}}'}]}
    result = run([first, answer_turn(strategy, "Done."), answer_turn(strategy, "Done.")],
                 tools=[tool(responses=[text_message("ok")])], strategy=strategy, timeout=120)
    check(plugin, result)
    assert result.text == "Done."
    for request in result.tool_requests:
        assert str(request["tool_parameters"]["q"]).strip('"') == number


# --- 5. many tiny calls ------------------------------------------------------------------------------------------

def tiny_calls(count: int) -> dict:
    return {"tool_calls": [{"id": f"c{n}", "name": "vault", "arguments": {"q": str(n)}} for n in range(count)]}


@pytest.mark.parametrize("count", [14_000, 30_000])
def test_a_reply_of_tens_of_thousands_of_tiny_parallel_calls(run, plugin, count):
    """64 run; each of the rest keeps its place in the assistant message and is answered "not run"
    (README), about 320 bytes a call in the next request: 14,000 calls still fit one daemon line
    (4.7 MB) and the model answers; 30,000 cannot (the assistant message must go back as the model
    plugin gave it), and the run ends saying why, never with a line over the limit."""
    result = run([tiny_calls(count), {"text": "Done."}, {"text": "Done."}],
                 tools=[tool(responses=[text_message("ok")])], timeout=180)
    check(plugin, result, answer=count < 15_000)
    assert len(result.tool_requests) == 64
    assert all(fits(r) for r in result.llm_requests)
    if result.ok:
        assert result.text == "Done."
        assert len(observations(result.llm_requests[1])) == count
    else:
        assert "bytes" in result.error_text


def test_a_reply_of_30000_tiny_calls_beside_a_neighbour(plugin):
    heavy = ScriptedRun(plugin)
    results = _with_neighbour(plugin, lambda: heavy(
        [tiny_calls(30_000), {"text": "Done."}, {"text": "Done."}],
        tools=[tool(responses=[text_message("ok")])], timeout=180))
    check(plugin, results["heavy"], answer=False)
    assert_not_held(worst_gap(results["light"]), 1.5, results["pace"])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_memory_holding_one_assistant_message_of_50000_calls(run, plugin, strategy):
    calls = [{"id": f"h{n}", "type": "function", "function": {"name": "vault", "arguments": '{"q": "x"}'}}
             for n in range(50_000)]
    history = [{"role": "user", "content": "earlier"}, {"role": "assistant", "content": "", "tool_calls": calls},
               *({"role": "tool", "content": "r" * 40, "tool_call_id": f"h{n}", "name": "vault"} for n in range(50_000)),
               {"role": "assistant", "content": "earlier answer"}]
    result = run([answer_turn(strategy, "Done."), answer_turn(strategy, "Done.")], strategy=strategy, timeout=120,
                 tools=[tool(responses=[text_message("ok")])], history=history)
    check(plugin, result, answer=False)
    assert all(fits(r) for r in result.llm_requests)
    if result.ok:
        assert result.text == "Done."


# --- 6. tool output that grows in pieces ------------------------------------------------------------------------

GROWING = {
    "a streamed variable of 8 MB in 80,000 pieces": lambda: [variable("v", "x" * 100, stream=True)
                                                            for _ in range(80_000)],
    "a streamed variable of 1 M control characters in 10,000 pieces": lambda: [
        variable("v", "\x01" * 100, stream=True) for _ in range(10_000)],
    "a blob of 20 MB in 320 chunks": lambda: blob_chunks([b"z" * 65_536] * 320, "big.bin"),
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", list(GROWING))
def test_tool_output_growing_in_pieces_keeps_the_run(run, plugin, strategy, kind):
    responses = [*GROWING[kind](), text_message("kept")]
    result = run([call(strategy, "vault", q="x"), answer_turn(strategy, "Done.")], tools=[tool(responses=responses)],
                 strategy=strategy, timeout=180)
    check(plugin, result)
    assert result.text == "Done."
    (seen,) = observations(result.llm_requests[1])
    assert "kept" in seen or "characters" in seen


def test_a_twenty_megabyte_chunked_blob_beside_a_neighbour(plugin):
    heavy = ScriptedRun(plugin)
    results = _with_neighbour(plugin, lambda: heavy(
        [call("function_calling", "vault", q="x"), {"text": "Done."}],
        tools=[tool(responses=[*GROWING["a blob of 20 MB in 320 chunks"](), text_message("kept")])], timeout=180))
    check(plugin, results["heavy"])
    assert_not_held(worst_gap(results["light"]), 1.5, results["pace"])


# --- 7. the daemon's limit tiny, or reached while a call's arguments stream --------------------------------------

def limited_run(limit: str, turns, strategy="function_calling", tools=(), *, answer=True, **fields):
    """One run on a process of its own whose daemon ends runs at ``limit`` seconds, checked with
    wave 30's invariants while the process still runs; returns the result and its wall time."""
    with PluginProcess(DEFAULT_PLUGIN_DIR, env={"PLUGIN_MAX_EXECUTION_TIMEOUT": limit}) as process:
        runner = ScriptedRun(process)
        started = time.monotonic()
        result = runner(turns, tools=tools, strategy=strategy, timeout=60, **fields)
        took = time.monotonic() - started
        check(process, result, answer=answer)
        return result, took


@pytest.mark.parametrize("limit", ["1", "2", "3"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_plain_answer_under_a_tiny_daemon_limit(limit, strategy):
    result, took = limited_run(limit, [answer_turn(strategy, "Done.")], strategy)
    assert result.text == "Done."
    assert took < float(limit)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_hanging_tool_under_a_three_second_daemon_limit(strategy):
    """The call is cut so that the model can still answer before the daemon's limit."""
    result, took = limited_run("3", [call(strategy, "vault", q="x"), answer_turn(strategy, "Done."),
                                     answer_turn(strategy, "Done.")], strategy, tools=[tool(hang=True)])
    assert took < 3.0
    assert result.text == "Done."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_silent_model_under_a_three_second_daemon_limit(strategy):
    """A clear error (or an answer) before the daemon's limit, never the daemon's bare timeout."""
    result, took = limited_run("3", [{"hang": True}, answer_turn(strategy, "Done.")], strategy, answer=False)
    assert took < 3.0
    assert result.text or result.error_text, "nothing said"


class EndlessArguments(ScriptedBackend):
    """A model whose reply opens a call of ``vault`` and then streams its arguments, a fragment
    every 5 ms, never closing them (a model looping inside a string value)."""

    def invoke_llm(self, request):
        self.requests.append(request)

        def chunks():
            head = {"index": 0, "id": "c1", "type": "function", "function": {"name": "vault", "arguments": '{"q": "'}}
            calls = [head]
            while not self._released.is_set():
                yield {"model": "m", "prompt_messages": [], "system_fingerprint": "",
                       "delta": {"index": 0, "message": {"role": "assistant", "content": "", "name": "",
                                                         "tool_calls": calls, "tool_call_id": ""},
                                 "usage": None, "finish_reason": None}}
                calls = [{"index": 0, "function": {"arguments": "la "}}]
                time.sleep(0.005)
        return chunks()


def test_arguments_streaming_forever_are_cut_at_the_deadline_and_never_run():
    """Under an 8 s daemon limit the reply is cut before it, no call of it runs, and the run ends
    with words for the user, never the daemon's bare timeout."""
    with PluginProcess(DEFAULT_PLUGIN_DIR, env={"PLUGIN_MAX_EXECUTION_TIMEOUT": "8"}) as process:
        backend, toolbox = EndlessArguments([]), default_toolbox()
        toolbox.add(tool(responses=[text_message("ok")]))
        started = time.monotonic()
        try:
            result = run_scenario(Scenario(query="q", tools=["vault"]), backend, toolbox, plugin=process, timeout=60)
        finally:
            backend.release()
        took = time.monotonic() - started
        check(process, result, answer=False)
    assert took < 8.0
    assert result.tool_requests == []
    assert result.text or result.error_text


def test_an_answer_of_10000_pieces_beside_a_secret_input_tool_costs_the_plugin_little(run, plugin):
    """Found here: with a ``secret-input`` tool on the node, every streamed piece of the answer was
    searched for a secret's start at its end by slicing every length of every form of the key
    (39 forms of up to 170 characters): 0.7 ms of CPU a piece, 20 times the piece's other cost, so
    1.26 MB in 10,000 pieces took the plugin 5 s, taken from every other session. Now 1.2 s."""
    text = ("The vault report says all is well. " * 36_000)[:1_260_000]
    before = cpu_seconds(plugin.pid)
    result = run([{"text": text, "split": 126}], tools=[tool(responses=[text_message("ok")])], timeout=180)
    used = cpu_seconds(plugin.pid) - before
    check(plugin, result)
    assert result.text == text
    assert used < 3.0, f"{used:.2f} s of plugin CPU"


# --- 8. over remote debugging (TCP) and serverless (HTTP) ---------------------------------------------------------

TRANSPORTED = {
    "14,000 tiny calls (a 4.7 MB request)": lambda: [tiny_calls(14_000), {"text": "Done."}, {"text": "Done."}],
    "6 MB of arguments in 6,300 fragments": lambda: [ARGUMENTS["6 MB of letters in 6,300 fragments"](),
                                                    {"text": "Done."}, {"text": "Done."}],
}


@pytest.mark.parametrize("transport", ["remote", "serverless"])
@pytest.mark.parametrize("kind", list(TRANSPORTED))
def test_large_replies_over_each_transport_keep_every_line_under_the_limit(request, transport, kind, longest_line):
    target = request.getfixturevalue(transport)
    result = ScriptedRun(target)(TRANSPORTED[kind](), tools=[tool(responses=[text_message("ok")])], timeout=180)
    assert result.ok, result.error_text
    assert result.text == "Done."
    assert result.unfinished_logs() == []
    assert target.alive
    assert 0 < longest_line[0] <= LINE
    assert all(fits(r) for r in result.llm_requests)


# --- 9. usage a model plugin reports with odd numbers ---------------------------------------------------------------

ODD_USAGE = {
    "negative counts and latency": {"prompt_tokens": -5, "completion_tokens": -1, "latency": -3.0},
    "prices as long digit strings": {"prompt_tokens": 3, "completion_tokens": 2, "total_price": "9" * 5_000,
                                     "prompt_unit_price": "0." + "0" * 4_000 + "1"},
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", list(ODD_USAGE))
def test_usage_of_odd_numbers_answers_and_every_line_fits(run, plugin, strategy, kind):
    """The answer reaches the user; the usage is read or named as unreadable, never a crash, and the
    lines that carry it (round logs, the run's metadata) stay small."""
    usage = ODD_USAGE[kind]
    result = run([{**call(strategy, "vault", q="x"), "usage": usage}, {**answer_turn(strategy, "Done."), "usage": usage}],
                 tools=[tool(responses=[text_message("ok")])], strategy=strategy, timeout=60)
    check(plugin, result)
    assert result.text == "Done."
