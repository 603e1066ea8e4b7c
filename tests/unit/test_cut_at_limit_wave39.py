"""Wave 39: a reply to the request for the answer at a limit (iterations, repeated calls, time)
that the output limit cut is asked again, shorter, once (``AgentLoop._cut_asked_again``), as it is
before the limit; a whole call there still ends the run, and so does a cut with no time left for
a reply as slow as the slowest so far. Before, a cut call or a cut ReAct Thought ended the run
"without a final answer", the model never asked again."""

from types import SimpleNamespace

from agent_core.loop import AgentLoop
from agent_core.params import StrategyParams
from local_runner.scenario import ModelSettings
from strategies.function_calling import FunctionCallingSteps


def loop(slowest: float = 0.0) -> AgentLoop:
    model = ModelSettings(features=["tool-call", "stream-tool-call"], completion_params={})
    params = StrategyParams.model_validate({"model": model.selector([]), "query": "q", "run_timeout": 30})
    agent = AgentLoop(SimpleNamespace(session=None), FunctionCallingSteps(), params)
    agent._slowest_turn = slowest
    return agent


def test_a_cut_reply_at_the_limit_is_asked_again():
    assert loop()._cut_asked_again(SimpleNamespace(cut=True)) is True


def test_a_whole_reply_at_the_limit_is_not():
    assert loop()._cut_asked_again(SimpleNamespace(cut=False)) is False


def test_a_cut_reply_with_no_time_for_another_is_not():
    assert loop(slowest=60.0)._cut_asked_again(SimpleNamespace(cut=True)) is False
