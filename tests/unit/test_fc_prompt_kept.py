"""Function Calling's prompt is built each round by adding the new rounds' messages to the last
build (``function_calling.prompt.chat_prompt``): the same messages, in the same order, as a
build from nothing, whatever happened between two builds."""

import itertools
from types import SimpleNamespace

from agent_core.function_calling.prompt import chat_prompt
from agent_core.loop import AgentLoop
from agent_core.params import StrategyParams
from agent_core.run_state import Round
from agent_core.tool_calls import ToolCall
from agent_core.tool_runner import ToolResult
from agent_core.turn import ModelTurn, ParseFailure, ToolCalls
from agent_core.usage import empty_usage
from local_runner.scenario import ModelSettings
from strategies.function_calling import FunctionCallingSteps


def _from_nothing(state):
    kept = state.rendered.pop("function_calling-prompt", None)
    try:
        return chat_prompt(state)
    finally:
        if kept is not None:
            state.rendered["function_calling-prompt"] = kept


def _dumped(messages):
    return [message.model_dump() for message in messages]


def test_each_build_is_the_build_from_nothing_as_rounds_come_and_old_ones_are_shortened():
    model = ModelSettings(context_size=8192, completion_params={})
    history = [{"role": "user", "content": "before"}, {"role": "assistant", "content": "earlier answer"}]
    params = StrategyParams.model_validate({"model": model.selector(history), "query": "latest?"})
    state = AgentLoop(SimpleNamespace(session=None), FunctionCallingSteps(), params).state
    for index in range(1, 9):
        if index % 3 == 0:  # a reply that was no call: the re-prompt joins the user message before it
            turn = ModelTurn(thought="", decision=ParseFailure(problem="no call"), usage=empty_usage(), raw="?")
            state.rounds.append(Round(index=index, turn=turn))
        else:
            call = ToolCall(id=f"c{index}", name="search", arguments={"q": index})
            turn = ModelTurn(thought=f"step {index}", decision=ToolCalls(calls=(call,)), usage=empty_usage())
            result = ToolResult(f"c{index}", "search", {"q": index}, observation=f"found {index} " + "x" * 3000)
            state.rounds.append(Round(index=index, turn=turn, results=(result,)))
        if index == 6:
            state.rounds_shortened = 4  # old observations shortened to fit
        built = chat_prompt(state)
        assert _dumped(built) == _dumped(_from_nothing(state))
        assert chat_prompt(state) == built  # asked again (a trimming search builds several times)


def test_a_round_adds_its_messages_to_the_last_build_without_building_the_rounds_before_again():
    params = StrategyParams.model_validate({"model": ModelSettings(context_size=8192).selector([]), "query": "q"})
    state = AgentLoop(SimpleNamespace(session=None), FunctionCallingSteps(), params).state
    builds, looked_at = [], []
    shortened = state.is_shortened
    state.is_shortened = lambda round_: looked_at.append(round_.index) or shortened(round_)
    for index in range(1, 5):
        call = ToolCall(id=f"c{index}", name="search", arguments={"q": index})
        turn = ModelTurn(thought="", decision=ToolCalls(calls=(call,)), usage=empty_usage())
        state.rounds.append(Round(index=index, turn=turn, results=(ToolResult(f"c{index}", "search", {}, observation="ok"),)))
        builds.append(chat_prompt(state))
    assert looked_at == [1, 2, 3, 4]  # each round's messages looked up once, in the build that added it
    for before, after in itertools.pairwise(builds):
        assert len(after) == len(before) + 2 and all(a is b for a, b in zip(before, after, strict=False))
