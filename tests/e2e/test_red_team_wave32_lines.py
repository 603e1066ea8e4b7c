"""Red-team wave 32 (issue 13, class 1: every line the plugin writes fits the daemon, and a run
ends before PLUGIN_MAX_EXECUTION_TIMEOUT with an answer or a clear error), through the real
plugin process: paths the earlier red-team, line-budget and deadline files did not try. Every
run is checked with wave 30's invariants (``assert_survived``: the plugin alive, no line over the
daemon's 5 MiB, only JSON on stdout, no log left in ``start``, an answer or a clear error).

Found and fixed: a node's run_timeout longer than the daemon's PLUGIN_MAX_EXECUTION_TIMEOUT (and a
daemon limit under 10 s); a reply of 64 slow calls whose waiting calls ran past the deadline;
decoded arguments of a million numbers walked with a Python call per number. Also kept here,
cheap: tool streams and model fields of megabytes that already fit (a log message, a streamed
variable, thousands of image links, text that escapes to six bytes a character, a tool call's
``type``, the chunk's ``model``).
"""

from __future__ import annotations

import json
import time

import pytest

from agent_core import prompts
from local_runner import PluginProcess
from local_runner.daemon import DEFAULT_PLUGIN_DIR
from local_runner.tools import text_message
from tests.e2e.conftest import ScriptedRun
from tests.e2e.helpers import STRATEGIES, answer_turn, observations, own_plugin
from tests.e2e.test_red_team_wave30 import assert_survived
from tests.e2e.test_red_team_wave31 import call, log_message, variable, vault

plugin = own_plugin()


# --- 1. the daemon's own time limit, below the node's ----------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_node_time_limit_longer_than_the_daemons_is_cut_to_the_daemons(strategy):
    """The daemon (whose environment a local plugin inherits) ends a run at its
    PLUGIN_MAX_EXECUTION_TIMEOUT with a bare error. With the node's run_timeout at 60 and the
    daemon's at 12, a hanging tool was waited for 45 s: the user would have met the daemon's
    timeout, not an answer."""
    with PluginProcess(DEFAULT_PLUGIN_DIR, env={"PLUGIN_MAX_EXECUTION_TIMEOUT": "12"}) as plugin:
        started = time.monotonic()
        result = ScriptedRun(plugin)([call(strategy, "vault", q="x"), answer_turn(strategy, "Answered without it.")],
                                     tools=[vault([], hang=True)], strategy=strategy,
                                     params={"run_timeout": 60, "tool_timeout": 60}, timeout=90)
        assert time.monotonic() - started < 12
        assert_survived(plugin, result)
        assert result.text == "Answered without it."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_daemon_time_limit_under_ten_seconds_still_leaves_time_to_answer(strategy):
    """A daemon limit of 4 s was raised to the node's minimum of 10 (the daemon cuts the run at 4),
    and a margin of 5 s kept for the answer would have left no time at all: a hanging tool is
    cut, and the model answers, within the 4 s."""
    with PluginProcess(DEFAULT_PLUGIN_DIR, env={"PLUGIN_MAX_EXECUTION_TIMEOUT": "4"}) as plugin:
        started = time.monotonic()
        result = ScriptedRun(plugin)([call(strategy, "vault", q="x"), answer_turn(strategy, "Answered without it.")],
                                     tools=[vault([], hang=True)], strategy=strategy, timeout=60)
        assert time.monotonic() - started < 4
        assert_survived(plugin, result)
        assert result.text == "Answered without it."


# --- 2. many calls of one reply near the deadline ------------------------------------------------------


def test_sixty_four_slow_calls_leave_the_answer_round_its_time(run, plugin):
    """A reply of 64 calls to a tool that hangs, eight at a time: each call that waited for a
    free place got a second past the round's deadline, seven seconds in all, and the run ended
    with "stopped before the model answered". Calls that would start after the deadline are
    not run; the model is told, and answers in time."""
    calls = [{"id": f"c{n}", "name": "vault", "arguments": {"q": f"q{n}"}} for n in range(64)]
    started = time.monotonic()
    result = run([{"tool_calls": calls}, {"text": "Answered with what I have."}], tools=[vault([], hang=True)],
                 params={"run_timeout": 16, "tool_timeout": 60}, timeout=60)
    assert time.monotonic() - started < 16
    assert_survived(plugin, result)
    assert result.text == "Answered with what I have."
    seen = observations(result.llm_requests[1])
    assert len(seen) == 64 and seen[-1] == prompts.NOT_RUN_AT_TIME_LIMIT.format(name="vault")
    assert 8 <= len(result.tool_requests) < 64


# --- 3. arguments of a million numbers ---------------------------------------------------------------


def test_a_reply_whose_arguments_hold_a_million_numbers_is_read_in_its_inputs_time(run, plugin):
    """Three calls of 400,000 numbers each (2.4 MB): every walker of the decoded arguments
    (reading the calls, checking their depth, hiding secrets, fitting the log) made a Python call
    per number, and the run took 7.5 s of which the plugin held its process for seconds at a
    stretch; it now takes about 2.5 s (most of it the runner's own JSON). The time is the unit
    tests' and the bench's to show (a wall-time bound here would fail on a busy machine); this run
    shows the calls are read and run whole."""
    calls = [{"id": f"c{n}", "name": "vault", "arguments": {"q": [n] + [1] * 400_000}} for n in range(3)]
    result = run([{"tool_calls": calls}, {"text": "Done."}], tools=[vault([text_message("ok")])], timeout=120)
    assert_survived(plugin, result)
    assert result.text == "Done." and len(result.tool_requests) == 3
    # vault's q is a string parameter: each list reaches the tool whole, as JSON text
    assert sorted(json.loads(request["tool_parameters"]["q"])[0] for request in result.tool_requests) == [0, 1, 2]
    assert all(len(json.loads(request["tool_parameters"]["q"])) == 400_001 for request in result.tool_requests)


# --- 4. megabytes in places that already fit (cheap regression guards) ----------------------------------

MB = 1024 * 1024
STREAMS = {
    "log message of 6 MB": [log_message("big", {"d": "l" * (6 * MB)})],
    "log label of 6 MB": [log_message("L" * (6 * MB), {"d": 1})],
    "variable streamed in 60 pieces of 100,000 control characters": [
        variable("v", "\x01" * 100_000, stream=True) for _ in range(60)],
    "5,000 image links": [{"type": "image_link", "message": {"text": f"https://example.com/{n}.png"}, "meta": None}
                          for n in range(5_000)],
    "3 million U+2028": [text_message("\u2028" * 3_000_000)],
    "3 million lone surrogates": [text_message("\ud800" * 3_000_000)],
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", list(STREAMS))
def test_a_tool_stream_of_megabytes_fits_every_line(run, plugin, strategy, kind):
    result = run([call(strategy, "vault", q="x"), answer_turn(strategy, "Done.")],
                 tools=[vault([*STREAMS[kind], text_message("kept")])], strategy=strategy, timeout=120)
    assert_survived(plugin, result)
    assert result.text == "Done."
    (seen,) = observations(result.llm_requests[1])
    assert "kept" in seen or "characters" in seen  # the end, or the note that the rest was cut for the model


CALL_DELTA = {"index": 0, "id": "c1", "type": "function", "function": {"name": "vault", "arguments": '{"q": "x"}'}}


@pytest.mark.parametrize("chunk", [
    {"tool_calls": [{**CALL_DELTA, "type": "t" * (6 * MB)}]},
    {"tool_calls": [CALL_DELTA], "finish_reason": "f" * (6 * MB)},
    {"message": {"content": "", "name": "n" * (6 * MB), "tool_call_id": "i" * (6 * MB), "tool_calls": [CALL_DELTA]}},
], ids=["call type", "finish reason", "name and tool_call_id"])
def test_model_fields_of_megabytes_are_not_written_back(run, plugin, chunk):
    result = run([{"chunks": [chunk]}, {"text": "Done."}], tools=[vault([text_message("ok")])], timeout=120)
    assert_survived(plugin, result)
    assert result.text == "Done." and len(result.tool_requests) == 1
