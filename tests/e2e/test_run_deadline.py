"""The run's time limit (``run_timeout``, else the daemon's PLUGIN_MAX_EXECUTION_TIMEOUT): when
another round would not fit, the model is asked for its answer, so the user gets one instead of
the daemon's bare timeout."""

import time

import pytest

from agent_core import prompts
from local_runner import ScriptedBackend
from local_runner.tools import LocalTool, ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end, prompt_text


def slow_tool(seconds: float) -> LocalTool:
    def handler(params):
        time.sleep(seconds)
        yield text_message(f"looked up {params['value']}")

    return LocalTool(name="lookup", description="A slow lookup", parameters=[ToolParam("value")], handler=handler)


class Paced(ScriptedBackend):
    """A scripted model that waits 0.25 s before each chunk after the first: it never stays
    silent long, but its reply lasts as long as its chunks make it."""

    def invoke_llm(self, request):
        for number, chunk in enumerate(super().invoke_llm(request)):
            if number:
                time.sleep(0.25)
            yield chunk


def call(strategy: str, value: str) -> dict:
    if strategy == "ReAct":
        return {"text": f'Thought: look.\nAction: lookup\nAction Input: {{"value": "{value}"}}'}
    return {"tool_calls": [{"id": f"c-{value}", "name": "lookup", "arguments": {"value": value}}]}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_model_answers_when_another_round_would_not_fit(run, strategy):
    turns = [call(strategy, "a"), answer_turn(strategy, "Partial answer from a.")]
    result = run(turns, tools=[slow_tool(3.5)], strategy=strategy, params={"run_timeout": 10}, maximum_iterations=10)
    assert_clean_end(result)
    assert result.text == "Partial answer from a."
    assert len(result.tool_requests) == 1
    assert [n.label for n in result.logs.values() if n.label == "TIME LIMIT"] == ["TIME LIMIT"]
    assert prompts.TIME_LIMIT_NOTE in prompt_text(result.llm_requests[1])



def hanging_tool() -> ScriptedTool:
    return ScriptedTool(name="lookup", description="Hangs", parameters=[ToolParam("value")], responses=[], hang=True)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_hanging_tool_is_cut_at_the_deadline_and_the_model_still_answers(run, strategy):
    """tool_timeout (25 s) longer than the run (12 s): the call gets only the time left before
    the deadline, less the answer's share, so the answer comes instead of the daemon's timeout."""
    started = time.monotonic()
    turns = [call(strategy, "a"), answer_turn(strategy, "Answer without the lookup.")]
    result = run(turns, tools=[hanging_tool()], strategy=strategy, params={"run_timeout": 12, "tool_timeout": 25})
    assert_clean_end(result)
    assert result.text == "Answer without the lookup."
    assert time.monotonic() - started < 12
    (node,) = [n for n in result.logs.values() if n.label == "CALL lookup"]
    assert "timed out" in node.error


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_reply_streaming_past_the_deadline_ends_with_what_was_shown_and_a_notice(plugin, strategy):
    """A model that never pauses long enough for its silence limit, but replies for longer
    than the run may last: the reply is cut at the deadline, with a notice, and every log closes."""
    from local_runner import Scenario, run_scenario
    from local_runner.tools import ToolBox

    text = ("Final Answer: " if strategy == "ReAct" else "") + "word " * 60
    backend = Paced([{"text": text, "split": 5}])
    scenario = Scenario(query="q", strategy=strategy, params={"run_timeout": 10})
    started = time.monotonic()
    result = run_scenario(scenario, backend, ToolBox([]), plugin=plugin, timeout=30)
    assert time.monotonic() - started < 10
    assert result.ok and result.unfinished_logs() == []
    assert result.text.startswith("word word")
    assert result.text.endswith(prompts.STOPPED_MID_REPLY_AT_TIME_LIMIT.format(seconds=10))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_held_reply_streaming_past_the_deadline_shows_its_text_before_the_notice(plugin, strategy):
    """A self-served model's first 256 characters are held (looked at for a bare </think>), a
    ReAct reply with no label to its end: cut at the deadline within them, the user got only the
    notice."""
    from local_runner import Scenario, run_scenario
    from local_runner.scenario import ModelSettings
    from local_runner.tools import ToolBox

    backend = Paced([{"text": "word " * 60, "split": 2}])  # 150 chunks, 37 s: the deadline comes within 256 characters
    model = ModelSettings(model="llama3.1:8b", provider="langgenius/ollama/ollama")
    scenario = Scenario(query="q", strategy=strategy, params={"run_timeout": 10}, model=model)
    result = run_scenario(scenario, backend, ToolBox([]), plugin=plugin, timeout=30)
    assert result.ok and result.unfinished_logs() == []
    notice = prompts.STOPPED_MID_REPLY_AT_TIME_LIMIT.format(seconds=10)
    shown, _, _ = result.text.rpartition(notice)
    assert shown.startswith("word word") and len(shown) < 256
    assert result.text.endswith(notice)


def test_calls_waiting_for_a_free_place_do_not_run_past_the_deadline_either(run):
    """Ten hanging calls, eight at a time: the two that wait still end by the deadline."""
    calls = [{"id": f"c{n}", "name": "lookup", "arguments": {"value": str(n)}} for n in range(10)]
    started = time.monotonic()
    result = run([{"tool_calls": calls}, {"text": "Answered without them."}], tools=[hanging_tool()],
                 params={"run_timeout": 14, "tool_timeout": 60}, timeout=60)
    assert_clean_end(result)
    assert result.text == "Answered without them."
    assert time.monotonic() - started < 14
