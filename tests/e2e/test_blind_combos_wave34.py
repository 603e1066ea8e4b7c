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
from local_runner import PluginProcess, ScriptedBackend
from local_runner.builtin_tools import default_toolbox
from local_runner.daemon import DEFAULT_PLUGIN_DIR
from local_runner.scenario import Scenario, run_scenario
from local_runner.tools import ScriptedTool, text_message
from tests.e2e.conftest import ScriptedRun
from tests.e2e.helpers import STRATEGIES, answer_turn, observations, plugin_lines, prompt_text
from tests.e2e.test_red_team_wave30 import Paced, assert_survived, worst_gap
from tests.e2e.test_red_team_wave31 import CANARY, CORE, assert_no_canary, blob, call, vault
from tests.e2e.test_secret_channels_wave30 import plain

MB = 1024 * 1024
TRACEBACK = "Traceback (most recent call last)"
CUT_START = CANARY[:10]  # "rt31-9c4e7": a start of the canary, 10 of its 17 characters


@pytest.fixture(scope="module")
def plugin():
    """A process of its own: a case that kills it must not take the shared one down."""
    with PluginProcess(DEFAULT_PLUGIN_DIR) as process:
        yield process


@pytest.fixture
def run(plugin) -> ScriptedRun:
    return ScriptedRun(plugin)


# --- checks ------------------------------------------------------------------------------------------


def assert_no_traceback(result) -> None:
    for message in result.messages:
        assert TRACEBACK not in json.dumps(message, ensure_ascii=False), str(message)[:300]
    assert TRACEBACK not in (result.error_text or "")


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
    assert_no_line_holds(plugin, result, CANARY[:at])


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
    """Ten sessions at once on one process: each calls the vault (its key in the result), gets its
    answer cut, and the rest stalls. Each ends before its deadline with its own start and a notice."""
    results: dict[int, object] = {}
    runs = [ScriptedRun(plugin) for _ in range(10)]

    def one(n: int) -> None:
        runner = runs[n]
        turns = [call("function_calling", "vault", f"c{n}", q=str(n)), cut("function_calling", f"Session {n} says"),
                 hangs_after(" more")]
        results[n] = runner(turns, tools=[vault([text_message(f"key={CANARY} for {n}")])],
                            params={"run_timeout": RUN_TIMEOUT, "model_timeout": 900}, timeout=60)

    started = time.monotonic()
    threads = [threading.Thread(target=one, args=(n,)) for n in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert time.monotonic() - started < RUN_TIMEOUT + 3
    for n in range(10):
        result = results[n]
        check(plugin, result, answer=False)
        assert result.text.startswith(f"Session {n} says more"), (n, result.text[:200])
        assert result.text != f"Session {n} says more"


def test_a_tool_streaming_50000_messages_beside_a_neighbour_cut_and_continued(plugin):
    """The neighbour's answer is cut and continued while the heavy session's tool streams 50,000
    messages: the neighbour gets its whole answer, never held up for long."""
    results = {}

    def neighbour() -> None:
        light = ScriptedRun(plugin)
        light.backend = Paced(ScriptedBackend([{"text": "w " * 150, "split": 2, "finish_reason": "length"},
                                               {"text": "v " * 150, "split": 2}]), 0.01)
        results["light"] = run_scenario(Scenario(query="hi"), light.backend, default_toolbox(), plugin=plugin,
                                        timeout=120)

    heavy = ScriptedRun(plugin)
    thread = threading.Thread(target=neighbour)
    thread.start()
    time.sleep(0.3)
    results["heavy"] = heavy([call("function_calling", "vault", q="x"), {"text": "Done."}],
                             tools=[vault([text_message(f"x{n % 10}") for n in range(50_000)])], timeout=120)
    thread.join()
    check(plugin, results["heavy"])
    check(plugin, results["light"])
    assert results["light"].text == "w " * 150 + "v " * 150
    assert worst_gap(results["light"]) < 1.5
