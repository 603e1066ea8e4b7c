"""agent_core.loop trims a prompt to the context window with the fewest steps (memory turns,
then old rounds' observations, then the query's images), found in a few prompt builds: a build
per step would cost time quadratic in the memory, with no heartbeat while it lasts."""

import math
from types import SimpleNamespace

import pytest

from agent_core import loop as loop_module
from agent_core.budget import prompt_budget, request_bytes, request_tokens
from agent_core.loop import AgentLoop
from agent_core.params import StrategyParams
from local_runner.scenario import ModelSettings
from strategies.function_calling import FunctionCallingSteps
from strategies.react import ReActSteps


def memory(turns: int) -> list[dict]:
    history = []
    for n in range(turns):
        history += [{"role": "user", "content": f"question {n} " + "lorem ipsum " * 20},
                    {"role": "assistant", "content": f"answer {n} " + "dolor sit " * 20}]
    return history


class Counting:
    """The strategy's steps, counting the prompts built."""

    def __init__(self, steps) -> None:
        self.steps, self.builds = steps, 0

    def build_request(self, state):
        self.builds += 1
        return self.steps.build_request(state)

    def __getattr__(self, name):
        return getattr(self.steps, name)


def fitted(steps, turns: int):
    model = ModelSettings(context_size=8192, completion_params={"max_tokens": 512})
    params = StrategyParams.model_validate({"model": model.selector(memory(turns)), "query": "latest?"})
    counting = Counting(steps)
    loop = AgentLoop(SimpleNamespace(session=None), counting, params)
    generator = loop._fitted_request(SimpleNamespace(id="round"))
    try:
        while True:
            next(generator)
    except StopIteration as stop:
        return loop, counting, stop.value


@pytest.mark.parametrize("steps", [FunctionCallingSteps(), ReActSteps("text")], ids=["function_calling", "ReAct"])
def test_a_long_memory_is_trimmed_to_fit_in_a_few_builds_dropping_the_fewest_turns(steps):
    turns = 3000
    loop, counting, request = fitted(steps, turns)
    budget = prompt_budget(loop.state.params)
    assert request_tokens(request) <= budget
    assert counting.builds <= 2 * math.ceil(math.log2(turns)) + 3
    dropped = loop.state.history_dropped
    assert 0 < dropped < turns
    assert loop.state.memory_steps == dropped  # no turn has a tool result to shorten
    loop.state.memory_steps = dropped - 1  # one turn more would not fit
    assert request_tokens(steps.build_request(loop.state)) > budget


@pytest.mark.parametrize("steps", [FunctionCallingSteps(), ReActSteps("text")], ids=["function_calling", "ReAct"])
@pytest.mark.parametrize("turns", [2, 3000])
def test_each_build_of_a_round_is_measured_in_bytes_once(steps, turns, monkeypatch):
    """``request_bytes`` walks the whole prompt: a round measures each build it makes once, also
    when the prompt fits as it is (it was measured three times), and the request it sends is
    measured as the one it built."""
    measured: list[object] = []

    def counted(request, *summed):
        measured.append(request)
        return request_bytes(request, *summed)

    monkeypatch.setattr(loop_module, "request_bytes", counted)
    _, counting, request = fitted(steps, turns)
    assert len(measured) == len({id(request) for request in measured}) <= counting.builds
    assert request.prompt_messages is measured[-1].prompt_messages


@pytest.mark.parametrize("continuing", [False, True], ids=["a round", "the rest of a cut answer"])
def test_a_request_over_a_daemon_line_is_an_error_or_a_rest_not_asked_for(continuing):
    """Nothing left to trim (an instruction of 5 MB): a round's request ends the run with an
    error; the request for the rest of a cut answer raises ``RestTooLargeError``, on which the
    loop keeps the answer shown and adds a notice instead."""
    model = ModelSettings(context_size=8192, completion_params={"max_tokens": 512})
    params = StrategyParams.model_validate({"model": model.selector([]), "query": "q", "instruction": "i" * 5_000_000})
    loop = AgentLoop(SimpleNamespace(session=None), FunctionCallingSteps(), params)
    loop._continuing = continuing
    with pytest.raises(loop_module.AgentRunError) as raised:
        for _ in loop._fitted_request(SimpleNamespace(id="round")):
            pass
    assert isinstance(raised.value, loop_module.RestTooLargeError) == continuing
    assert "more than the plugin daemon accepts in one line" in str(raised.value)
