"""Blind combinations, wave 34 (issue 13), through the real plugin process.

The red-team files and the fuzzers try each class of issue 13 on its own (a line over the
daemon's limit, a starved neighbour, a secret leaving its tool call, a cut reply taken for an
answer, ReAct's odd steps, the run's deadline). An independent harness would also try them
together, where one guard hands its output to another: a cut answer whose rest echoes a tool's
secret, a secret split across the cut edge, the deadline reached while a continuation or a forced
answer streams, parallel calls each hostile in another way, sessions cut and continued next to a
tool that streams 50,000 messages. The cases were written from the issue, the README and
docs/architecture.md alone; those the red-team files (waves 30-33, paths), the wave-34 blind
files and the two fuzz files already try were then dropped.

Every run is checked against the issue's invariants:

* the plugin is alive and wrote only JSON (the runner kills it on a stdout line over 5 MiB, as the
  daemon does), no log node left in ``start``, an answer or a clear error (``assert_survived``);
* the canary in no line the plugin wrote, stderr included, once escapes and look-alikes are
  undone (``assert_no_canary``), and not in what the user reads joined across streamed pieces;
* no Python traceback in anything the user or the log tree is shown;
* a cut reply is neither run as a call nor shown as a final answer without a notice;
* the run ends before its deadline; a neighbour's worst gap between chunks stays bounded.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.parse

import pytest

from agent_core import prompts
from local_runner.tools import ScriptedTool, text_message
from tests.e2e.conftest import ScriptedRun
from tests.e2e.helpers import (
    STRATEGIES,
    TRACEBACK,
    answer_turn,
    assert_no_traceback,
    observations,
    own_plugin,
    plugin_lines,
    prompt_text,
)
from tests.e2e.pace import Pace, assert_not_held
from tests.e2e.test_red_team_wave30 import assert_survived, worst_gap
from tests.e2e.test_red_team_wave31 import CANARY, CORE, _neighbour, assert_no_canary, blob, call, vault
from tests.e2e.test_secret_channels_wave30 import plain

MB = 1024 * 1024
CUT_START = CANARY[:10]  # "rt31-9c4e7": a start of the canary, 10 of its 17 characters


plugin = own_plugin()


# --- checks ------------------------------------------------------------------------------------------


def check(plugin, result, *, answer: bool = True) -> None:
    """Every invariant of the module docstring that one run alone shows."""
    assert_survived(plugin, result, answer=answer)
    assert_no_traceback(result)
    assert_no_canary(plugin, result)
    assert CORE not in plain(result.text), result.text[-300:]


def assert_no_line_holds(plugin, result, piece: str) -> None:
    """No line the plugin wrote since ``result``'s run began holds ``piece`` (a start of the canary)."""
    for entry, _ in plugin_lines(plugin, result):
        line = json.dumps(entry, ensure_ascii=False, default=str)
        assert piece not in line, f"{piece!r} written ({entry['dir']}): {line[:400]}"


def final(strategy: str, text: str) -> str:
    """A reply that is (the start of) a final answer, in the strategy's own format."""
    return f"Thought: done.\nFinal Answer: {text}" if strategy == "ReAct" else text


def cut(strategy: str, text: str) -> dict:
    """A final answer cut by the output limit."""
    return {"text": final(strategy, text), "finish_reason": "length"}


def hangs_after(text: str) -> dict:
    """A reply that streams ``text`` and then never ends (until the run is over)."""
    return {"chunks": [{"content": text}], "hang": True}


# --- 1. a cut answer and a secret ----------------------------------------------------------------------

ECHOES = {
    "plain": CANARY,
    "json-escaped": "".join(f"\\u{ord(c):04x}" for c in CANARY),
    "url-encoded": urllib.parse.quote(CANARY, safe="").replace("-", "%2D"),
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("form", list(ECHOES))
def test_the_rest_of_a_cut_answer_echoing_the_tools_secret_hides_it(run, plugin, strategy, form):
    """The tool's result holds its key; the model's answer is cut, and its rest writes the key."""
    turns = [call(strategy, "vault", q="x"), cut(strategy, "The vault answered and the key"),
             {"text": f" is {ECHOES[form]} as you asked."}]
    result = run(turns, tools=[vault([text_message(f"key={CANARY}")])], strategy=strategy)
    check(plugin, result)
    assert result.text.startswith("The vault answered and the key is ")
    assert result.text.endswith(" as you asked.")
    assert len(result.tool_requests) == 1


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("at", [5, 9, 13])
def test_a_secret_split_across_the_cut_edge_is_hidden_in_the_chat_and_the_replay(run, plugin, strategy, at):
    """The limit cuts the answer inside the key: its start ends the cut reply, its rest opens the
    continuation. The chat joins the two; neither the joined chat nor the request asking for the
    rest may hold the key or its start."""
    turns = [call(strategy, "vault", q="x"), cut(strategy, f"Your key is {CANARY[:at]}"),
             {"text": f"{CANARY[at:]} and it works."}]
    result = run(turns, tools=[vault([text_message(f"key={CANARY}")])], strategy=strategy)
    check(plugin, result)
    assert result.text.endswith(" and it works.")
    replay = prompt_text(result.llm_requests[2])
    assert CANARY[:at] not in replay, replay[-300:]
    for piece in (CANARY[:at], CANARY[at:]):
        if len(piece) >= 8:  # shorter pieces may stand in ordinary text
            assert_no_line_holds(plugin, result, piece)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_megabyte_answer_holding_the_secret_cut_and_continued_with_another(run, plugin, strategy):
    """1 MB with the key in its middle, cut; a rest of 1 MB with the key URL-encoded in its middle."""
    start = "a" * 500_000 + f" {CANARY} " + "b" * 500_000
    rest = "c" * 500_000 + f" {urllib.parse.quote(CANARY)} " + "d" * 500_000
    turns = [call(strategy, "vault", q="x"), cut(strategy, start), {"text": rest}]
    result = run(turns, tools=[vault([text_message(f"key={CANARY}")])], strategy=strategy, timeout=120)
    check(plugin, result)
    assert result.text.count("a" * 1000) and result.text.endswith("d" * 1000)
    assert len(result.text) > 2_000_000


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_forced_answer_at_the_iteration_limit_cut_and_continued_with_the_secret(run, plugin, strategy):
    turns = [call(strategy, "vault", q="x"), cut(strategy, "With what I have: the key"),
             {"text": f" is {CANARY}."}]
    result = run(turns, tools=[vault([text_message(f"key={CANARY}")])], strategy=strategy, maximum_iterations=1)
    check(plugin, result)
    assert result.text.startswith("With what I have: the key is ")


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_continuation_that_is_only_a_call_runs_it_and_its_secret_file_is_withheld(run, plugin, strategy):
    """The rest of a cut answer is only a call: it runs; its file named with the key is withheld and
    the model told so; the answer follows."""
    tool = vault([text_message(f"key={CANARY}"), blob(b"rows", f"export-{CANARY}.csv")])
    turns = [cut(strategy, "Let me check"), call(strategy, "vault", "c2", q="y"), answer_turn(strategy, "Done.")]
    result = run(turns, tools=[tool], strategy=strategy)
    check(plugin, result)
    assert result.text.endswith("Done.")
    assert len(result.tool_requests) == 1
    assert result.files == []
    assert "not sent to the user" in "\n".join(observations(result.llm_requests[2]))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_reply_cut_inside_reasoning_that_holds_the_secret_is_asked_again(run, plugin, strategy):
    turns = [call(strategy, "vault", q="x"),
             {"text": f"<think>The tool said the key is {CANARY}, so I should", "finish_reason": "length"},
             answer_turn(strategy, "Done.")]
    result = run(turns, tools=[vault([text_message(f"key={CANARY}")])], strategy=strategy)
    check(plugin, result)
    assert result.text == "Done."
    assert prompts.REPLY_CUT in prompt_text(result.llm_requests[2])


# --- 2. a cut call and a secret ---------------------------------------------------------------------------

CUT_CALLS = {
    "ReAct action input": ("ReAct", {"text": f'Thought: go.\nAction: vault\nAction Input: {{"q": "{CUT_START}',
                                     "finish_reason": "length"}),
    "JSON call in the content": ("function_calling",
                                 {"text": f'{{"name": "vault", "arguments": {{"q": "{CUT_START}',
                                  "finish_reason": "length"}),
}


@pytest.mark.parametrize("case", list(CUT_CALLS))
def test_a_call_cut_at_a_start_of_the_secret_is_not_run_and_the_start_not_written(run, plugin, case):
    strategy, first = CUT_CALLS[case]
    turns = [first, call(strategy, "vault", "c2", q="y"), answer_turn(strategy, "Done.")]
    result = run(turns, tools=[vault([text_message("ok")])], strategy=strategy)
    check(plugin, result)
    assert result.text == "Done."
    assert [r["tool_parameters"]["q"] for r in result.tool_requests] == ["y"]
    assert_no_line_holds(plugin, result, CUT_START)


# --- 3. parallel calls, each hostile in another way ---------------------------------------------------------

FAILING = (f'{TRACEBACK}:\n  File "/app/tools/vault.py", line 40, in _invoke\n'
           f'    raise PermissionError(f"key {{key}} refused")\nPermissionError: key {CANARY} refused by the vault')


def _three_hostile_tools() -> list[ScriptedTool]:
    return [vault([blob(b"col1,col2\n", f"report-{CANARY}.csv")], name="export"),
            vault([text_message("starting")], name="audit", error=FAILING, latency=0.2),
            vault([text_message("r" * 2 * MB)], name="dump")]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_parallel_calls_a_secret_file_name_a_failing_traceback_and_two_megabytes(run, plugin, strategy):
    """Three calls at once: a file named with the key (withheld, named), a failure whose traceback
    quotes the key (its error line told, no traceback, no key), 2 MB of text (cut for the model with
    a note). Each result reaches the model, in call order."""
    names = ("export", "audit", "dump")
    if strategy == "ReAct":
        first = {"text": "Thought: all three.\n" + "\n".join(
            f'Action: {name}\nAction Input: {{"q": "{n}"}}' for n, name in enumerate(names))}
    else:
        first = {"tool_calls": [{"id": f"c{n}", "name": name, "arguments": {"q": str(n)}}
                                for n, name in enumerate(names)]}
    result = run([first, answer_turn(strategy, "Done.")], tools=_three_hostile_tools(), strategy=strategy,
                 timeout=120)
    check(plugin, result)
    assert result.text == "Done."
    assert result.files == []
    told = observations(result.llm_requests[1])
    joined = "\n".join(told)
    assert "not sent to the user" in joined
    assert "refused by the vault" in joined and TRACEBACK not in joined
    assert "r" * 1000 in joined
    assert joined.index("not sent to the user") < joined.index("refused by the vault") < joined.index("r" * 1000)


# --- 4. ReAct steps of several kinds in one reply ----------------------------------------------------------

ECHOED_SCHEMA = '{"type": "object", "properties": {"q": {"type": "string", "description": "query"}}}'


def test_react_actions_echoing_the_schema_unknown_and_cut_mid_input_run_nothing(run, plugin):
    """A reply of three actions, the last cut by the output limit inside its input: nothing runs
    (a cut reply is never run), and the model is asked again."""
    first = {"text": ("Thought: three at once.\n"
                      f"Action: vault\nAction Input: {ECHOED_SCHEMA}\n"
                      'Action: teleport\nAction Input: {"q": "a"}\n'
                      'Action: vault\nAction Input: {"q": "unterminated'),
             "finish_reason": "length"}
    turns = [first, call("ReAct", "vault", q="y"), answer_turn("ReAct", "Done.")]
    result = run(turns, tools=[vault([text_message("ok")])], strategy="ReAct")
    check(plugin, result)
    assert result.text == "Done."
    assert [r["tool_parameters"]["q"] for r in result.tool_requests] == ["y"]
    asked = prompt_text(result.llm_requests[1])
    assert "cut off by the output limit" in asked


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_schema_echo_an_unknown_tool_and_a_good_call_in_one_reply(run, plugin, strategy):
    """Only the good call runs; the model is told of the other two, each with its reason."""
    if strategy == "ReAct":
        first = {"text": ("Thought: three at once.\n"
                          f"Action: vault\nAction Input: {ECHOED_SCHEMA}\n"
                          'Action: teleport\nAction Input: {"q": "a"}\n'
                          'Action: vault\nAction Input: {"q": "good"}')}
    else:
        first = {"tool_calls": [{"id": "c1", "name": "vault", "arguments": ECHOED_SCHEMA},
                                {"id": "c2", "name": "teleport", "arguments": {"q": "a"}},
                                {"id": "c3", "name": "vault", "arguments": {"q": "good"}}]}
    result = run([first, answer_turn(strategy, "Done.")], tools=[vault([text_message(f"ok {CANARY}")])],
                 strategy=strategy)
    check(plugin, result)
    assert [r["tool_parameters"]["q"] for r in result.tool_requests] == ["good"]
    joined = "\n".join(observations(result.llm_requests[1]))
    assert "teleport" in joined
    assert "schema" in joined.lower()
    assert "ok [REDACTED]" in joined


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_call_repeated_while_its_result_holds_the_secret_is_refused_and_the_run_answers(run, plugin, strategy):
    turns = [call(strategy, "vault", f"c{n}", q="same") for n in range(4)] + [answer_turn(strategy, "Done.")]
    result = run(turns, tools=[vault([text_message(f"token {CANARY} valid")])], strategy=strategy,
                 maximum_iterations=8)
    check(plugin, result)
    assert len(result.tool_requests) == 3
    assert result.text == "Done."


# --- 5. model errors ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_model_error_of_six_megabytes_with_a_traceback_and_the_secret(run, plugin, strategy):
    error = (f'{TRACEBACK}:\n  File "/app/models/llm.py", line 88, in _invoke\n    raise InvokeBadRequestError(body)\n'
             f"InvokeBadRequestError: 400 the request echoed api_key={CANARY} " + "e" * 6 * MB)
    result = run([call(strategy, "vault", q="x"), {"error": error}], tools=[vault([text_message(f"k {CANARY}")])],
                 strategy=strategy, timeout=120)
    check(plugin, result, answer=False)
    assert not result.ok
    assert "InvokeBadRequestError" in result.error_text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_model_error_while_a_cut_answer_is_continued_keeps_the_start_and_ends_clearly(run, plugin, strategy):
    turns = [cut(strategy, "The first half of the answer"), {"error": f"{TRACEBACK}:\nRuntimeError: upstream 500"}]
    result = run(turns, strategy=strategy)
    check(plugin, result, answer=False)
    assert result.text.startswith("The first half of the answer")


# --- 6. the run's deadline in the middle of a combination ---------------------------------------------------

RUN_TIMEOUT = 10


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_deadline_reached_while_a_cut_answer_is_continued(run, plugin, strategy):
    """The rest streams a few words then stalls: the run ends before its deadline with the start,
    the words, and a notice; never the daemon's bare timeout."""
    turns = [call(strategy, "vault", q="x"), cut(strategy, "The answer starts here"), hangs_after(" and goes on")]
    started = time.monotonic()
    result = run(turns, tools=[vault([text_message(f"key={CANARY}")])], strategy=strategy,
                 params={"run_timeout": RUN_TIMEOUT, "model_timeout": 900}, timeout=60)
    assert time.monotonic() - started < RUN_TIMEOUT + 1
    check(plugin, result, answer=False)
    assert result.text.startswith("The answer starts here and goes on")
    assert result.text != "The answer starts here and goes on", "the cut answer is shown with a notice"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_deadline_reached_while_the_forced_answer_streams(run, plugin, strategy):
    turns = [call(strategy, "vault", q="x"), hangs_after(final(strategy, "With what I have"))]
    started = time.monotonic()
    result = run(turns, tools=[vault([text_message(f"key={CANARY}")])], strategy=strategy, maximum_iterations=1,
                 params={"run_timeout": RUN_TIMEOUT, "model_timeout": 900}, timeout=60)
    assert time.monotonic() - started < RUN_TIMEOUT + 1
    check(plugin, result, answer=False)
    assert result.text.startswith("With what I have")
    assert result.text != "With what I have", "the stalled answer is shown with a notice"


def test_the_deadline_while_one_parallel_call_hangs_and_another_returns_the_secret(run, plugin):
    stuck = vault([], name="stuck", hang=True)
    first = {"tool_calls": [{"id": "a", "name": "stuck", "arguments": {"q": "1"}},
                            {"id": "b", "name": "vault", "arguments": {"q": "2"}}]}
    started = time.monotonic()
    result = run([first, {"text": f"Answered with what I have ({CANARY})."}],
                 tools=[stuck, vault([text_message(f"key={CANARY}")])],
                 params={"run_timeout": RUN_TIMEOUT, "tool_timeout": 900}, timeout=60)
    assert time.monotonic() - started < RUN_TIMEOUT + 1
    check(plugin, result)
    assert result.text.startswith("Answered with what I have (")
    told = "\n".join(observations(result.llm_requests[1]))
    assert "key=[REDACTED]" in told


def test_a_model_silent_during_the_continuation_ends_at_its_silence_limit(run, plugin):
    turns = [cut("function_calling", "The answer starts"), hangs_after(" and stops")]
    started = time.monotonic()
    result = run(turns, params={"model_timeout": 10, "run_timeout": 120}, timeout=60)
    assert time.monotonic() - started < 13
    check(plugin, result, answer=False)
    assert result.text.startswith("The answer starts and stops")


# --- 7. sessions side by side ---------------------------------------------------------------------------------


def test_ten_sessions_each_cut_continued_and_reaching_the_deadline(plugin):
    """Ten sessions at once on one process: each calls the vault (its key in 200 KB of result), gets
    its answer cut, and the rest stalls. Each ends before its deadline with its own start and a
    notice, and a neighbour streaming all along is not held up while the ten end together.

    The ten share the process's CPU before their deadline: at a load of 13 on 2 cores a session
    was still reading its result, or got its cut answer with no time left to ask for the rest,
    at 10 s. The deadline is 10 s times the machine's slowdown over the first second."""
    results: dict = {}
    runs = [ScriptedRun(plugin) for _ in range(10)]
    with Pace() as pace:
        time.sleep(1.0)
    limit = round(RUN_TIMEOUT * pace.slowdown)
    chunk = "lorem ipsum dolor " * 55 + f" key={CANARY}\n"

    def one(n: int) -> None:
        turns = [call("function_calling", "vault", f"c{n}", q=str(n)), cut("function_calling", f"Session {n} says"),
                 hangs_after(" more")]
        results[n] = runs[n](turns, tools=[vault([text_message(chunk * 200 + f"for {n}")])],
                             params={"run_timeout": limit, "model_timeout": 900}, timeout=max(60, limit * 3))

    def neighbour() -> None:
        _neighbour(plugin, results, [{"text": "w " * 400, "split": 2}], 0.02)

    threads = [threading.Thread(target=neighbour)] + [threading.Thread(target=one, args=(n,)) for n in range(10)]
    threads[0].start()
    time.sleep(0.3)
    started = time.monotonic()
    for thread in threads[1:]:
        thread.start()
    for thread in threads[1:]:
        thread.join()
    assert time.monotonic() - started < limit + 3
    threads[0].join()
    for n in range(10):
        result = results[n]
        check(plugin, result, answer=False)
        assert result.text.startswith(f"Session {n} says more"), (n, result.text[:200])
        assert result.text != f"Session {n} says more"
    check(plugin, results["light"])
    assert results["light"].text == "w " * 400
    assert_not_held(worst_gap(results["light"]), 1.5, results["pace"])


def test_a_tool_streaming_50000_messages_beside_a_neighbour_cut_and_continued(plugin):
    """The neighbour's answer is cut and continued while the heavy session's tool streams 50,000
    messages: the neighbour gets its whole answer, never held up for long."""
    results = {}

    def neighbour() -> None:
        _neighbour(plugin, results, [{"text": "w " * 150, "split": 2, "finish_reason": "length"},
                                     {"text": "v " * 150, "split": 2}], 0.01)

    heavy = ScriptedRun(plugin)
    thread = threading.Thread(target=neighbour)
    thread.start()
    time.sleep(0.3)
    results["heavy"] = heavy([call("function_calling", "vault", q="x"), {"text": "Done."}],
                             tools=[vault([text_message(f"key={CANARY}" if n % 1000 == 7 else f"x{n % 10}")
                                           for n in range(50_000)])], timeout=120)
    thread.join()
    check(plugin, results["heavy"])
    check(plugin, results["light"])
    assert results["light"].text == "w " * 150 + "v " * 150
    assert_not_held(worst_gap(results["light"]), 1.5, results["pace"])


# --- 8. more edges where two guards meet ------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_secret_split_across_the_cut_edge_streamed_a_character_a_chunk(run, plugin, strategy):
    """As above, both replies streamed in small pieces: the start is held until its rest shows."""
    turns = [call(strategy, "vault", q="x"), {**cut(strategy, f"Your key is {CANARY[:11]}"), "split": 3},
             {"text": f"{CANARY[11:]} and it works.", "split": 1}]
    result = run(turns, tools=[vault([text_message(f"key={CANARY}")])], strategy=strategy)
    check(plugin, result)
    assert result.text.endswith(" and it works.")
    assert_no_line_holds(plugin, result, CANARY[:11])
    assert CANARY[11:] not in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_six_megabyte_rest_that_completes_a_secret_split_at_the_cut(run, plugin, strategy):
    turns = [call(strategy, "vault", q="x"), cut(strategy, f"Your key is {CANARY[:9]}"),
             {"text": CANARY[9:] + " " + "z" * 6 * MB}]
    result = run(turns, tools=[vault([text_message(f"key={CANARY}")])], strategy=strategy, timeout=120)
    check(plugin, result)
    assert result.text.endswith("z" * 1000) and len(result.text) > 6 * MB
    assert_no_line_holds(plugin, result, CANARY[:9])
    assert_no_line_holds(plugin, result, CANARY[9:])


STOPS = {
    "the run's deadline": ({"run_timeout": RUN_TIMEOUT, "model_timeout": 900}, {"hang": True}),
    "the model's silence limit": ({"run_timeout": 120, "model_timeout": 10}, {"hang": True}),
    "a model error": ({}, {"error": "upstream 502"}),
    "a model error of 6 MB with a traceback and the key": (
        {}, {"error": f"{TRACEBACK}:\nRuntimeError: upstream echoed {CANARY} " + "e" * 6 * MB}),
}


@pytest.mark.parametrize("stop", list(STOPS))
def test_a_continuation_stopped_right_after_a_start_of_the_secret_hides_that_start(run, plugin, stop):
    """The rest streams "... key rt31-9c4e7" and then the run stops (deadline, silence, error): the
    start of the key it held is not written out with the notice or the error."""
    params, how = STOPS[stop]
    turns = [call("function_calling", "vault", q="x"), cut("function_calling", "The answer"),
             {"chunks": [{"content": f" and the key {CUT_START}"}], **how}]
    started = time.monotonic()
    result = run(turns, tools=[vault([text_message(f"key={CANARY}")])], params=params, timeout=60)
    assert time.monotonic() - started < 13
    check(plugin, result, answer=False)
    assert result.text.startswith("The answer and the key")
    assert_no_line_holds(plugin, result, CUT_START)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_answer_cut_twice_the_second_time_inside_the_secret(run, plugin, strategy):
    turns = [call(strategy, "vault", q="x"), cut(strategy, "Part one,"),
             {"text": f" and the key {CUT_START}", "finish_reason": "length"}, answer_turn(strategy, "never")]
    result = run(turns, tools=[vault([text_message(f"key={CANARY}")])], strategy=strategy)
    check(plugin, result)
    assert result.text.startswith("Part one, and the key")
    assert result.text.endswith(prompts.ANSWER_CUT_OFF)
    assert_no_line_holds(plugin, result, CUT_START)


def test_a_native_call_cut_inside_arguments_that_start_the_secret_is_not_run(run, plugin):
    first = {"chunks": [{"tool_calls": [{"index": 0, "id": "c1", "type": "function",
                                         "function": {"name": "vault", "arguments": f'{{"q": "{CUT_START}'}}]}],
             "finish_reason": "length"}
    turns = [first, call("function_calling", "vault", "c2", q="y"), {"text": "Done."}]
    result = run(turns, tools=[vault([text_message("ok")])])
    check(plugin, result)
    assert [r["tool_parameters"]["q"] for r in result.tool_requests] == ["y"]


def test_parallel_calls_a_secret_argument_a_schema_echo_an_unknown_tool_and_two_good_ones(run, plugin):
    """Five native calls at once: the secret argument and the schema echo are refused with their
    reasons, the unknown tool named, the two good calls run in order, every call answered."""
    calls = [{"id": "c1", "name": "vault", "arguments": {"q": f"use {CANARY}"}},
             {"id": "c2", "name": "vault", "arguments": ECHOED_SCHEMA},
             {"id": "c3", "name": "teleport", "arguments": {"q": "a"}},
             {"id": "c4", "name": "vault", "arguments": {"q": "good-1"}},
             {"id": "c5", "name": "vault", "arguments": {"q": "good-2"}}]
    result = run([{"tool_calls": calls}, {"text": "Done."}], tools=[vault([text_message("ok")])])
    check(plugin, result)
    assert [r["tool_parameters"]["q"] for r in result.tool_requests] == ["good-1", "good-2"]
    answered = [m for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in answered] == ["c1", "c2", "c3", "c4", "c5"]
    told = [m["content"] for m in answered]
    assert "secret" in told[0].lower() and "schema" in told[1].lower() and "teleport" in told[2]
    assert told[3] == told[4] == "ok"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_six_megabytes_of_tool_output_with_the_secret_at_every_cut_edge(run, plugin, strategy):
    """The key straddles the 1,000,000-character mark where a full output is cut, and ends the
    output; the model's copy is cut far earlier: no start of the key at any edge."""
    text = "a" * 999_990 + CANARY + "b" * 5 * MB + CANARY
    result = run([call(strategy, "vault", q="x"), answer_turn(strategy, "Done.")],
                 tools=[vault([text_message(text)])], strategy=strategy, timeout=120)
    check(plugin, result)
    assert_no_line_holds(plugin, result, CANARY[:8])
    assert "a" * 1000 in "\n".join(observations(result.llm_requests[1]))


def test_the_deadline_while_a_tool_streams_the_secret_without_end(run, plugin):
    """A tool streams its key in a message every few milliseconds and never ends: the run stops it
    in time and answers; the key is in no line."""
    def handler(params):
        for n in range(10_000_000):
            time.sleep(0.002)
            yield text_message(f"line {n} key={CANARY}\n")

    from local_runner.tools import LocalTool, ToolParam
    tool = LocalTool(name="tail", description="Streams a log", handler=handler,
                     parameters=[ToolParam("q"), ToolParam("api_key", type="secret-input", form="form")],
                     runtime_parameters={"api_key": CANARY})
    started = time.monotonic()
    result = run([call("function_calling", "tail", q="x"), {"text": "Stopped reading."}], tools=[tool],
                 params={"run_timeout": RUN_TIMEOUT, "tool_timeout": 900}, timeout=60)
    assert time.monotonic() - started < RUN_TIMEOUT + 1
    check(plugin, result)
    assert result.text == "Stopped reading."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_reasoning_that_streams_the_secret_then_a_call(run, plugin, strategy):
    """A thinking model reasons about the key (streamed a few characters a chunk) and then calls:
    the call runs, the reasoning goes back to the model and to the log without the key."""
    if strategy == "ReAct":
        reply = {"text": f"<think>The key is {CANARY}, I will not use it.</think>\nThought: look.\n"
                         'Action: vault\nAction Input: {"q": "y"}', "split": 3}
    else:
        reply = {"chunks": [{"content": piece} for piece in
                            [f"<think>The key is {CANARY[:6]}", f"{CANARY[6:]}, I will not", " use it.</think>"]]
                 + [{"tool_calls": [{"index": 0, "id": "c1", "type": "function",
                                     "function": {"name": "vault", "arguments": '{"q": "y"}'}}]}]}
    result = run([reply, answer_turn(strategy, "Done.")], tools=[vault([text_message("ok")])], strategy=strategy)
    check(plugin, result)
    assert result.text == "Done."
    assert [r["tool_parameters"]["q"] for r in result.tool_requests] == ["y"]


def test_six_sessions_each_reading_a_megabyte_holding_the_secret_beside_a_streaming_neighbour(plugin):
    """The issue's six 1 MB results, in six sessions at once, each result holding the key a
    thousand times: every session ends clean, and the neighbour streaming beside them is not
    held up for long."""
    results: dict = {}
    chunk = ("lorem ipsum dolor " * 55 + f" key={CANARY}\n")
    output = chunk * (MB // len(chunk))

    def heavy(n: int) -> None:
        runner = ScriptedRun(plugin)
        results[n] = runner([call("function_calling", "vault", f"c{n}", q=str(n)), {"text": f"Done {n}."}],
                            tools=[vault([text_message(output)])], timeout=120)

    def neighbour() -> None:
        _neighbour(plugin, results, [{"text": "w " * 300, "split": 2}], 0.01)

    threads = [threading.Thread(target=neighbour)] + [threading.Thread(target=heavy, args=(n,)) for n in range(6)]
    threads[0].start()
    time.sleep(0.3)
    for thread in threads[1:]:
        thread.start()
    for thread in threads:
        thread.join()
    for n in range(6):
        check(plugin, results[n])
        assert results[n].text == f"Done {n}."
    check(plugin, results["light"])
    assert results["light"].text == "w " * 300
    assert_not_held(worst_gap(results["light"]), 1.5, results["pace"])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_rest_that_writes_the_cut_text_again_through_the_whole_secret(run, plugin, strategy):
    """The limit cut the answer inside the key; asked for the rest, the model starts over and
    writes the whole answer, key included. Only what follows the cut text is shown, and the key's
    rest after its held start is no more a leak than the key."""
    turns = [call(strategy, "vault", q="x"), cut(strategy, f"Your key is {CANARY[:9]}"),
             {"text": final(strategy, f"Your key is {CANARY} and it works.")}]
    result = run(turns, tools=[vault([text_message(f"key={CANARY}")])], strategy=strategy)
    check(plugin, result)
    assert result.text.endswith(" and it works.")
    assert CANARY[9:] not in result.text
    assert_no_line_holds(plugin, result, CANARY[:9])


def test_react_actions_naming_the_secret_an_unknown_tool_and_a_good_one(run, plugin):
    first = {"text": ("Thought: three at once.\n"
                      f'Action: {CANARY}\nAction Input: {{"q": "a"}}\n'
                      'Action: teleport\nAction Input: {"q": "b"}\n'
                      'Action: vault\nAction Input: {"q": "good"}')}
    result = run([first, answer_turn("ReAct", "Done.")], tools=[vault([text_message("ok")])], strategy="ReAct")
    check(plugin, result)
    assert [r["tool_parameters"]["q"] for r in result.tool_requests] == ["good"]
    assert "teleport" in "\n".join(observations(result.llm_requests[1]))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_memory_with_the_secret_in_a_call_id_and_a_result_beside_a_megabyte_turn_in_a_small_window(run, plugin,
                                                                                                     strategy):
    history = [
        {"role": "user", "content": "Read the vault."},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": f"call_{CANARY}", "name": "vault", "arguments": {"q": "all"}}]},
        {"role": "tool", "content": f"key={CANARY}", "tool_call_id": f"call_{CANARY}", "name": "vault"},
        {"role": "assistant", "content": "The vault is open."},
        {"role": "user", "content": "Now this: " + "m" * MB},
        {"role": "assistant", "content": "Too long to read."},
    ]
    result = run([call(strategy, "vault", q="x"), answer_turn(strategy, "Done.")],
                 tools=[vault([text_message(f"key={CANARY}")])], strategy=strategy, history=history,
                 model={"context_size": 8192}, timeout=120)
    check(plugin, result)
    assert result.text == "Done."
    assert any(n.label == "CONTEXT TRIMMED" for n in result.logs.values())


BLOCKING = {"completion_params": {"temperature": 0.2, "max_tokens": 64}, "features": ["tool-call", "multi-tool-call"]}
"""A model without streamed tool calls: Function Calling asks for blocking replies, whose cut
shows only in their usage (completion tokens at the node's ``max_tokens``)."""


def test_a_blocking_reply_cut_inside_the_secret_after_a_tool_round(run, plugin):
    turns = [{**call("function_calling", "vault", q="x"), "finish_reason": None,
              "usage": {"prompt_tokens": 40, "completion_tokens": 12}},
             {"text": f"Your key is {CANARY[:9]}", "finish_reason": None,
              "usage": {"prompt_tokens": 60, "completion_tokens": 64}},
             {"text": f"{CANARY[9:]} and it works.", "finish_reason": None,
              "usage": {"prompt_tokens": 80, "completion_tokens": 9}}]
    result = run(turns, tools=[vault([text_message(f"key={CANARY}")])], model=BLOCKING)
    check(plugin, result)
    assert [r["stream"] for r in result.llm_requests] == [False, False, False]
    assert result.text.startswith("Your key is ") and result.text.endswith(" and it works.")
    assert_no_line_holds(plugin, result, CANARY[:9])


def test_blocking_parallel_calls_one_cut_inside_its_arguments_run_none(run, plugin):
    calls = [{"id": "c1", "name": "vault", "arguments": {"q": "one"}},
             {"id": "c2", "name": "vault", "arguments": '{"q": "tw'}]
    turns = [{"tool_calls": calls, "finish_reason": None, "usage": {"prompt_tokens": 40, "completion_tokens": 64}},
             {**call("function_calling", "vault", "c3", q="three"), "finish_reason": None,
              "usage": {"prompt_tokens": 40, "completion_tokens": 12}},
             {"text": "Done.", "finish_reason": None, "usage": {"prompt_tokens": 40, "completion_tokens": 2}}]
    result = run(turns, tools=[vault([text_message(f"key={CANARY}")])], model=BLOCKING)
    check(plugin, result)
    assert [r["tool_parameters"]["q"] for r in result.tool_requests] == ["three"]


def test_sixteen_slow_calls_each_making_a_file_under_the_deadline_keep_or_name_every_one(run, plugin):
    """Sixteen parallel calls of 2 s each, every one making a file (half of them named with the key),
    under a 10 s run, which keeps most of its time for the answer: the first eight run, the next
    eight do not fit the tools' share. Every file of a call that ran reaches the chat (those named
    with the key withheld, the model told), every call is answered, and the model answers in time."""
    def responses(n):
        return [blob(f"data {n}".encode(), f"part-{n}-{CANARY}.txt" if n % 2 else f"part-{n}.txt"),
                text_message(f"made part {n}")]

    tools = [vault(responses(n), name=f"maker_{n}", latency=2) for n in range(16)]
    calls = [{"id": f"c{n}", "name": f"maker_{n}", "arguments": {"q": str(n)}} for n in range(16)]
    started = time.monotonic()
    result = run([{"tool_calls": calls}, {"text": "Answered in time."}], tools=tools,
                 params={"run_timeout": RUN_TIMEOUT, "tool_timeout": 900}, timeout=60)
    assert time.monotonic() - started < RUN_TIMEOUT + 1
    check(plugin, result)
    assert result.text == "Answered in time."
    finished = sorted(int(c.request["tool_parameters"]["q"]) for c in run.toolbox.calls if c.finished)
    assert len(finished) >= 8
    sent = [f["meta"]["filename"] for f in result.files]
    assert sent == [f"part-{n}.txt" for n in finished if n % 2 == 0][: len(sent)]
    assert len(sent) >= 4
    answered = [m for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in answered] == [c["id"] for c in calls]
    for n, message in enumerate(answered):
        if n in finished and n % 2:
            assert "not sent to the user" in message["content"], message["content"]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_hundred_calls_in_a_cut_reply_one_holding_the_secret_run_none_and_each_is_answered(run, plugin, strategy):
    """More calls than a round runs, in a reply the limit cut, one passing the key: none runs, each
    is answered (Function Calling: a tool message per id), and the model is asked again."""
    values = [f"q{n}" if n != 50 else f"use {CANARY}" for n in range(100)]
    if strategy == "ReAct":
        first = {"text": "Thought: all of them.\n" + "\n".join(
            f'Action: vault\nAction Input: {json.dumps({"q": v})}' for v in values), "finish_reason": "length"}
    else:
        first = {"tool_calls": [{"id": f"c{n}", "name": "vault", "arguments": {"q": v}} for n, v in enumerate(values)],
                 "finish_reason": "length"}
    turns = [first, call(strategy, "vault", "d1", q="again"), answer_turn(strategy, "Done.")]
    result = run(turns, tools=[vault([text_message("ok")])], strategy=strategy)
    check(plugin, result)
    assert [r["tool_parameters"]["q"] for r in result.tool_requests] == ["again"]
    if strategy == "function_calling":
        answered = [m["tool_call_id"] for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "tool"]
        assert answered == [f"c{n}" for n in range(100)]


def test_parallel_results_of_a_million_control_characters_and_the_secret_fit_every_line(run, plugin):
    """Four calls at once, each a million control characters (6 MB of JSON escapes) with the key in
    the middle: every line fits, the key in none."""
    output = "\x01" * 500_000 + f"key={CANARY}" + "\x02" * 500_000
    calls = [{"id": f"c{n}", "name": "vault", "arguments": {"q": str(n)}} for n in range(4)]
    result = run([{"tool_calls": calls}, {"text": "Done."}], tools=[vault([text_message(output)])], timeout=120)
    check(plugin, result)
    assert result.text == "Done."
    assert len(observations(result.llm_requests[1])) == 4


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_request_sent_again_while_its_tool_hangs_is_not_run_twice(run, plugin, monkeypatch, strategy):
    """The daemon sends a session's request again while the run waits on a hanging tool (beside a
    call whose result holds the key): the second is refused, the first goes on past the tool's
    limit to its answer, each tool called once."""
    original = type(run.plugin)._send_request

    def send_request(self, line):
        original(self, line)
        threading.Timer(1.0, original, args=(self, line)).start()

    monkeypatch.setattr(type(run.plugin), "_send_request", send_request)
    if strategy == "ReAct":
        first = {"text": 'Thought: both.\nAction: stuck\nAction Input: {"q": "1"}\nAction: vault\nAction Input: {"q": "2"}'}
    else:
        first = {"tool_calls": [{"id": "a", "name": "stuck", "arguments": {"q": "1"}},
                                {"id": "b", "name": "vault", "arguments": {"q": "2"}}]}
    errors_before = len(run.plugin.plugin_errors)
    result = run([first, answer_turn(strategy, "Answered."), answer_turn(strategy, "again?")],
                 tools=[vault([], name="stuck", hang=True), vault([text_message(f"key={CANARY}")])],
                 strategy=strategy, params={"tool_timeout": 3}, timeout=60)
    monkeypatch.undo()
    check(plugin, result)
    assert result.text == "Answered."
    assert sorted(r["tool"] for r in result.tool_requests) == ["stuck", "vault"]
    assert len(run.backend.requests) == 2
    assert any(result.session_id in str(error) and "not run" in str(error)
               for error in run.plugin.plugin_errors[errors_before:])


def test_a_completion_model_cut_inside_the_secret_continues_without_it(run, plugin):
    """ReAct on a completion-mode model: the one prompt that asks for the rest replays the cut
    answer; neither part of the key is in it, nor in any line."""
    turns = [call("ReAct", "vault", q="x"), cut("ReAct", f"Your key is {CANARY[:9]}"),
             {"text": f"{CANARY[9:]} and it works."}]
    result = run(turns, tools=[vault([text_message(f"key={CANARY}")])], strategy="ReAct",
                 model={"mode": "completion", "features": []})
    check(plugin, result)
    assert result.text.startswith("Your key is ") and result.text.endswith(" and it works.")
    assert prompts.CONTINUE_CUT_ANSWER in prompt_text(result.llm_requests[2])
    assert_no_line_holds(plugin, result, CANARY[:9])
    assert_no_line_holds(plugin, result, CANARY[9:])


PARTIAL_HEADS = {
    "reasoning": ("function_calling", f"<think>The key is {CUT_START}"),
    "a ReAct thought": ("ReAct", f"Thought: the key is {CUT_START}"),
    "a ReAct action input": ("ReAct", f'Thought: go\nAction: vault\nAction Input: {{"q": "{CUT_START}'),
    "a call in the content": ("function_calling", f'{{"name": "vault", "arguments": {{"q": "{CUT_START}'),
}


@pytest.mark.parametrize(("head", "stop"), [*((head, "a model error") for head in PARTIAL_HEADS),
                                             ("reasoning", "the run's deadline"),
                                             ("a ReAct action input", "the run's deadline")])
def test_a_reply_stopped_right_after_a_start_of_the_secret_in_a_step_writes_no_start(run, plugin, head, stop):
    """A reply that never became chat text (reasoning, a thought, a call's input) ends with a start
    of the key when the run stops: its log node and the error show none of that start."""
    strategy, text = PARTIAL_HEADS[head]
    how = {"hang": True} if stop == "the run's deadline" else {"error": "upstream 502"}
    result = run([call(strategy, "vault", q="x"), {"chunks": [{"content": text}], **how}],
                 tools=[vault([text_message(f"key={CANARY}")])], strategy=strategy,
                 params={"run_timeout": RUN_TIMEOUT, "model_timeout": 900}, timeout=60)
    check(plugin, result, answer=False)
    assert_no_line_holds(plugin, result, CUT_START)


def test_a_three_megabyte_answer_holding_the_key_thousands_of_times_cut_and_written_again_beside_a_neighbour(plugin):
    """The answer, the key in every kilobyte, is cut; its rest writes it all again and ends. Only
    what follows the cut text is shown, the key in no line, and a neighbour streams meanwhile."""
    piece = "lorem ipsum dolor sit amet " * 36 + f"key={CANARY}\n"
    start = piece * (3 * MB // len(piece))
    results = {}

    def neighbour() -> None:
        _neighbour(plugin, results, [{"text": "w " * 300, "split": 2}], 0.02)

    heavy = ScriptedRun(plugin)
    thread = threading.Thread(target=neighbour)
    thread.start()
    time.sleep(0.3)
    results["heavy"] = heavy([call("function_calling", "vault", q="x"), cut("function_calling", start),
                              {"text": start + "end."}], tools=[vault([text_message(f"key={CANARY}")])], timeout=120)
    thread.join()
    check(plugin, results["heavy"])
    assert results["heavy"].text.endswith("key=[REDACTED]\nend.")
    assert results["heavy"].text.count("end.") == 1
    check(plugin, results["light"])
    assert_not_held(worst_gap(results["light"]), 1.5, results["pace"])


PASSPHRASE = "correct horse battery staple"
SPLIT_FORMS = {  # strategy, the tool's secret, the cut answer, its rest
    "rest JSON-escaped": ("ReAct", CANARY, f"Key: {CANARY[:9]}",
                          "".join(f"\\u{ord(c):04x}" for c in CANARY[9:]) + " ok."),
    "rest partly URL-encoded": ("function_calling", CANARY, f"Key: {CANARY[:9]}",
                                f"{CANARY[9:12]}%{ord(CANARY[12]):02X}{CANARY[13:]} ok."),
    "passphrase cut between words": ("function_calling", PASSPHRASE, "The phrase is correct horse",
                                     "battery staple ok."),
    "passphrase cut inside a word": ("function_calling", PASSPHRASE, "The phrase is correct hor",
                                     "se battery staple ok."),
    "ReAct rest then an action": ("ReAct", CANARY, f"Key: {CANARY[:9]}",
                                  f'{CANARY[9:]} ok.\nAction: vault\nAction Input: {{"q": "z"}}'),
}


@pytest.mark.parametrize("form", list(SPLIT_FORMS))
def test_a_secret_split_at_the_cut_whose_rest_comes_in_another_form(run, plugin, form):
    strategy, secret, start, rest = SPLIT_FORMS[form]
    tool = vault([text_message("ok")], secret=secret)
    result = run([call(strategy, "vault", q="x"), cut(strategy, start), {"text": rest}], tools=[tool],
                 strategy=strategy)
    check(plugin, result)
    assert result.text.endswith("[REDACTED] ok.")
    assert len(result.tool_requests) == 1  # an action after the answer's rest is not run
    pieces = [CANARY[:9], CANARY[9:]] if secret == CANARY else ["correct hor", "horse battery", "battery staple"]
    for piece in pieces:
        assert_no_line_holds(plugin, result, piece)
