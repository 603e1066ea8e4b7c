"""Red-team wave 32 (issue 13, class 1: every line the plugin writes fits the daemon, and a run
ends before PLUGIN_MAX_EXECUTION_TIMEOUT with an answer or a clear error), through the real
plugin process: paths the earlier red-team, line-budget and deadline files did not try. Every
run is checked with wave 30's invariants (``assert_survived``: the plugin alive, no line over the
daemon's 5 MiB, only JSON on stdout, no log left in ``start``, an answer or a clear error).
"""

from __future__ import annotations

import time

import pytest

from local_runner import PluginProcess
from local_runner.daemon import DEFAULT_PLUGIN_DIR
from tests.e2e.conftest import ScriptedRun
from tests.e2e.helpers import STRATEGIES, answer_turn
from tests.e2e.test_red_team_wave30 import assert_survived
from tests.e2e.test_red_team_wave31 import call, vault

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
