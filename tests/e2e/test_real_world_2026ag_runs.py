"""The thirty-second real-world pass's fix through the real plugin: MiniMax-M3's token before a
tag outside any call. An answer ended by ``]<]minimax[>[</tool_call>`` (anomalyco/opencode#30684)
is shown without the stray close in both strategies (Function Calling showed ``</tool_call>``);
a reply of an argument element with no invoke (github/app#2128) runs nothing, shows none of its
markup and is asked again, and the model's next answer is the one the user gets (both strategies
showed ``<initial_wait>10</initial_wait>`` as the answer). And an invoke the reply ends inside,
its value cut (ai-dynamo/frontend-crates PR #83), never runs: it ran without its argument."""

import pytest

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import answer_turn, assert_clean_end, prompt_text
from tests.e2e.real_world import Reply, Tool, play_reply, reply_params

M3 = "]<]minimax[>["
WAIT = Tool("wait", ("initial_wait",), ("waited",))

CASES = [
    # anomalyco/opencode#30684: an answer ended by M3's stray tool-call close is shown without it
    Reply("an-answer-ended-by-m3s-stray-tool-call-close-is-shown-without-it", f"All four tests pass now.{M3}</tool_call>",
          7, "Did the tests pass?", "All four tests pass now.", tools=(WAIT,), framed=True),
]

# github/app#2128: an M3 argument with no invoke runs nothing and is asked again
ORPHAN_ARGUMENT = Reply("an-m3-argument-with-no-invoke-runs-nothing-and-is-asked-again",
                        f"{M3}{M3}<initial_wait>10{M3}</initial_wait>{M3}\n{M3}</tool_call>", 7,
                        "Is the job done?", "The job is still running; check back soon.", tools=(WAIT,),
                        asked_again=True, exact=True, hidden=("initial_wait", "minimax"))


@pytest.mark.parametrize(("case", "strategy"), reply_params(CASES))
def test_real_world_reply_through_the_plugin(run, case, strategy):
    play_reply(run, strategy, case)


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
def test_an_m3_argument_with_no_invoke_runs_nothing_and_is_asked_again(run, strategy):
    result = play_reply(run, strategy, ORPHAN_ARGUMENT)
    assert len(result.llm_requests) == 2
    assert "could not be read" in prompt_text(result.llm_requests[1])


def _weather_tool() -> ScriptedTool:
    """A weather tool whose place is optional: a call without it would run (not be refused)."""
    return ScriptedTool(name="get_weather", description="the weather of a place.",
                        parameters=[ToolParam("location", description="the place", required=False)],
                        responses=[text_message("14 °C, fog")])


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
def test_an_m3_invoke_cut_inside_its_value_never_runs(run, strategy):
    cut = (f'{M3}<tool_call>\n{M3}<invoke name="get_weather">\n{M3}<location>Paris{M3}</location>\n{M3}</invoke>\n'
           f'{M3}<invoke name="get_weather">\n{M3}<location>Ro')
    result = run([{"text": cut, "split": 7}, answer_turn(strategy, "Paris: 14 °C and foggy.")],
                 query="Weather in Paris and Rome?", tools=[_weather_tool()], strategy=strategy)
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] in ([], [{"location": "Paris"}])
    assert result.text.strip() == "Paris: 14 °C and foggy."
