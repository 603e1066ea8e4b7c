"""Wave 33 (issue 13, classes 1 and 2, on a long-lived process): Dify's daemon keeps one plugin
process for every session of the plugin, for days. The process must never get killed (its memory
must not grow with the sessions it served) and never starve a neighbour (a session stuck on a tool
or a model that never replies must not hold the others, nor outlive its own deadline).

Found and fixed: the token counts of a prompt's texts (``budget``) and the shortened observations
(``run_state``) were remembered in caches bounded by entries (8,192, 4,096, 1,024), not by size,
and filled with the texts of runs long over: the process grew by about 2 MB every hundred sessions
with 100 KB tool results, and by 10 MB when one session in fourteen had a pasted document of
600,000 characters in its memory (a text of one line is one entry, of any size: thousands of
them are gigabytes). They now hold at most 8 million characters each (``memo.per_text``). Also:
errors kept in the frame their traceback holds (a decode error kept for a repair, the error a
time limit raised) left a run's whole stack to a rare full collection; ``per_object`` caches kept
up to 256 values of runs that ended each (``memo.forget_gone``). ``python -m bench long_lived``
prints the readings. The stuck sessions of part 2 already ended by their deadline without
holding their neighbours: kept as a guard.
"""

from __future__ import annotations

import itertools
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from agent_core import prompts
from bench import long_lived
from local_runner import ModelSettings, PluginProcess, Scenario, ScriptedBackend, run_scenario
from local_runner.daemon import DEFAULT_PLUGIN_DIR
from local_runner.tools import ScriptedTool, ToolBox, ToolParam, text_message
from tests.e2e.helpers import answer_turn, observations
from tests.e2e.pace import Pace
from tests.e2e.test_red_team_wave30 import call

# --- 1. memory over many sessions ------------------------------------------------------------------


def test_hundreds_of_mixed_sessions_leave_the_process_no_bigger():
    """300 sessions through one process (both strategies, 100 KB tool results, pasted documents of
    600,000 characters in the memory, files, failing tools and models, cut replies, parallel
    calls, and 12 sessions whose model or tool never replies, ended by their deadline): every
    session ends as it should, and the process's resident set after the last hundred is within
    15% of what it was after the first, its threads and open files unchanged. Measured: 1.02-1.05
    (the bounded caches filling); 1.23 with the caches bounded by entries."""
    params = long_lived.Params(runs=300, every=100, concurrency=4, result_chars=100_000)
    with PluginProcess(DEFAULT_PLUGIN_DIR) as plugin:
        outcome = long_lived.campaign(plugin, params)
    assert outcome["problems"] == [], outcome["problems"][:5]
    first, last = outcome["readings"][0], outcome["readings"][-1]
    assert outcome["growth"] < 1.15, outcome["readings"]
    assert last["threads"] <= first["threads"] + 2, outcome["readings"]
    assert last["fds"] <= first["fds"] + 2, outcome["readings"]


# --- 2. many sessions at once, two of them stuck -------------------------------------------------------

SESSIONS = 40
RUN_TIMEOUT = 12
"""Seconds: the run time limit of every session (the stuck ones end by it)."""


def _records(n: int) -> str:
    return f"case {n}: " + "order shipped, invoice paid; " * 3_000


@pytest.fixture(scope="module")
def busy_plugin():
    """A process of its own, with a heartbeat every half second so that a stalled hub shows."""
    with PluginProcess(DEFAULT_PLUGIN_DIR, env={"HEARTBEAT_INTERVAL": "0.5"}) as process:
        yield process


STUCK_TOOL = (0, 3)
"""Sessions whose tool never returns (one a strategy)."""
STUCK_MODEL = (1, 2)
"""Sessions whose model reply never finishes (one a strategy)."""


def _session(plugin: PluginProcess, n: int, limit: int = RUN_TIMEOUT) -> tuple[str, object, float]:
    """Session ``n`` (even: Function Calling, odd: ReAct): ``STUCK_TOOL`` call a tool that never
    returns, ``STUCK_MODEL`` get a model reply that streams a few words and never finishes, the
    others call a tool of 90 KB and answer; ``limit``: the run time limit in seconds. Returns
    (strategy, result, seconds)."""
    strategy = ("function_calling", "ReAct")[n % 2]
    stuck_tool = n in STUCK_TOOL
    tool = ScriptedTool(name="records", description="Looks up records.",
                        parameters=[ToolParam("q", description="query")],
                        responses=[] if stuck_tool else [text_message(_records(n))], hang=stuck_tool)
    if n in STUCK_MODEL:
        turns = [{"chunks": [{"content": "Thought: let me see" if strategy == "ReAct" else "Let me see"}],
                  "hang": True}]
    else:
        turns = [{**call(strategy, "records", q=f"case {n}"), "delay": 0.2},
                 {**answer_turn(strategy, f"Case {n} is settled."), "split": 4, "delay": 0.2}]
    backend, toolbox = ScriptedBackend(turns), ToolBox([tool])
    scenario = Scenario(query=f"What about case {n}?", strategy=strategy, tools=["records"],
                        params={"run_timeout": limit, "tool_timeout": 900}, model=ModelSettings())
    started = time.monotonic()
    try:
        result = run_scenario(scenario, backend, toolbox, plugin=plugin, timeout=limit * 4)
    finally:
        backend.release()  # the daemon's side lets go only once the plugin ended the session
        toolbox.release()
    return strategy, result, time.monotonic() - started


def test_forty_sessions_at_once_with_stuck_tools_and_models(busy_plugin):
    """Forty sessions start together on one process; in each strategy one calls a tool that never
    returns and one gets a model reply that never finishes. Every other session answers with what
    its model wrote, having read its own tool result; the stuck ones end by their deadline (the
    stuck tool's session answers without it, the model told the tool did not return; the stuck
    reply ends with the notice that the time ran out), no log left open; the heartbeat never
    stops for long.

    The forty share the process's CPU before their deadline: at a load of 10 on 2 cores a
    session's tool result was still on its way when its time ran out at 12 s. The deadline is
    12 s times the machine's slowdown over the second before they start (tests/e2e/pace.py)."""
    with Pace() as before:
        time.sleep(1.0)
    limit = round(RUN_TIMEOUT * before.slowdown)
    began = len(busy_plugin.transcript)
    with Pace() as pace, ThreadPoolExecutor(SESSIONS) as pool:
        outcomes = list(pool.map(lambda n: _session(busy_plugin, n, limit), range(SESSIONS)))
    for n, (strategy, result, seconds) in enumerate(outcomes):
        assert result.unfinished_logs() == [], (n, [node.label for node in result.unfinished_logs()])
        # the 2 s past the deadline for ending, times the machine's slowdown
        assert seconds < limit + 2 * pace.slowdown, (n, strategy, seconds, limit, pace.slowdown)
        assert result.ok, (n, strategy, result.error_text)
        if n in STUCK_MODEL:
            notices = (prompts.STOPPED_MID_REPLY_AT_TIME_LIMIT, prompts.STOPPED_AT_TIME_LIMIT)
            assert result.text.rstrip().endswith(tuple(n.format(seconds=limit) for n in notices)), result.text
            continue
        assert result.text.strip() == f"Case {n} is settled.", (n, strategy, result.text)
        seen = observations(result.llm_requests[-1])[0]
        if n in STUCK_TOOL:
            assert seen and "order shipped" not in seen, seen
        else:
            assert seen.startswith(f"case {n}: order shipped"), (n, seen[:80])
    heartbeats = [entry["t"] for entry in busy_plugin.transcript[began:]
                  if (entry.get("json") or {}).get("event") == "heartbeat"]
    assert len(heartbeats) > 5
    worst = max(b - a for a, b in itertools.pairwise(heartbeats))
    assert worst < 3.0 * pace.slowdown, f"the heartbeat (every 0.5 s) stopped for {worst:.1f} s (slowdown {pace.slowdown:.1f})"
    assert busy_plugin.alive and not busy_plugin.noise
