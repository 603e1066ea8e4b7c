"""JSON-step prompts: built from pieces kept from round to round, the same text as joined whole."""

from dify_plugin.interfaces.agent import AgentModelConfig
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_core import prompts
from agent_core.params import StrategyParams
from agent_core.react.json_prompt import (
    format_block,
    json_chat_prompt,
    json_completion_prompt,
    round_steps,
)
from agent_core.react.prompt import answer_note, completion_head
from agent_core.run_state import RunState
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ToolCalls
from tests.unit.test_react_prompt import _round, assert_counted_in_pieces
from tests.unit.test_tool_schema import tool as tool_entity


def _run() -> RunState:
    params = StrategyParams(model=AgentModelConfig(provider="p", model="m", mode="completion", completion_params={}), query="q")
    return RunState(params=params, registry=ToolRegistry([tool_entity("search")]))


def _old_completion_text(run: RunState) -> str:
    """The completion prompt's text as it was joined whole before it was built from pieces."""
    head = completion_head(run, run.render_tools(format_block), answer_note(run, prompts.JSON_STEP_ANSWER_SCHEMA))
    current = [prompts.JSON_STEP_QUESTION.format(text="q")]
    for round_ in run.rounds:
        for step, observation in round_steps(run, round_):
            current += [step, prompts.JSON_STEP_OBSERVATION.format(text=observation)]
    return head + "\n\n" + "\n".join(current) + "\n"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 3)), max_size=8))
def test_the_completion_prompt_is_the_text_joined_whole_and_counted_in_pieces(steps):
    run = _run()
    for index, (kind, shortened) in enumerate(steps, start=1):
        run.rounds.append(_round(index, kind))
        run.rounds_shortened = min(shortened, index)
        message = json_completion_prompt(run)[0]
        assert message.content == _old_completion_text(run)
        assert_counted_in_pieces(message)


def test_a_rounds_chat_messages_are_the_same_objects_every_round_until_it_is_shortened():
    run = _run()
    run.rounds += [_round(1, 0), _round(2, 1)]
    first = json_chat_prompt(run)
    second = json_chat_prompt(run)
    assert all(a is b for a, b in zip(first, second, strict=True))
    assert [m.content for m in first[-4:]] == [
        '{"action": "search", "action_input": {"q": "n1"}}', prompts.JSON_STEP_OBSERVATION.format(text="x" * 50),
        "raw 2", prompts.JSON_STEP_OBSERVATION.format(text=prompts.JSON_STEP_FORMAT_PROBLEM.format(problem="no action")),
    ]
    run.rounds_shortened = 1
    assert json_chat_prompt(run)[-4] is not first[-4]


def _text_read_round(index, decision, results=(), finish_reason="stop"):
    from agent_core.run_state import Round
    from agent_core.turn import ModelTurn
    from agent_core.usage import empty_usage

    raw = 'Thought: look\nAction: search\nAction Input: {"q": "n"}' if not isinstance(decision, FinalAnswer) else (
        "Final Answer: The start of")
    turn = ModelTurn(thought="look", decision=decision, usage=empty_usage(), raw=raw, finish_reason=finish_reason,
                     read_as="text")
    return Round(index, turn, tuple(results))


def test_a_step_read_as_text_goes_back_as_the_model_wrote_it_with_its_observations_in_one_message():
    from agent_core.tool_calls import ToolCall
    from agent_core.tool_runner import ToolResult

    run = _run()
    calls = (ToolCall(id="react-1-1", name="search", arguments={"q": "n"}),
             ToolCall(id="react-1-2", name="search", arguments={"q": "m"}))
    results = [ToolResult(c.id, c.name, c.arguments, observation=f"found {c.arguments['q']}") for c in calls]
    run.rounds.append(_text_read_round(1, ToolCalls(calls), results))
    messages = json_chat_prompt(run)[-2:]
    assert [m.role.value for m in messages] == ["assistant", "user"]
    assert messages[0].content == 'Thought: look\nAction: search\nAction Input: {"q": "n"}'
    assert messages[1].content == "Observation: found n\n\nObservation: found m"


def test_a_cut_answer_read_as_text_is_asked_for_its_rest_as_written():
    run = _run()
    run.rounds.append(_text_read_round(1, FinalAnswer("The start of"), finish_reason="length"))
    assert round_steps(run, run.rounds[0]) == [("Final Answer: The start of", prompts.CONTINUE_CUT_ANSWER)]
    assert json_completion_prompt(run)[0].content.endswith(
        "Final Answer: The start of\n" + prompts.JSON_STEP_OBSERVATION.format(text=prompts.CONTINUE_CUT_ANSWER) + "\n")
