"""The StepFun model plugin's streamed calls (``models/stepfun/models/llm/llm.py`` 23ce2fa in
langgenius/dify-official-plugins): the delta that closes the reasoning carries its own call on the
``</think>`` chunk; after the stream the plugin sends every call merged **by tool name** (a second
call of a tool glued to the first under the later id). Each call the model made runs once."""

from agent_core.turn import ToolCalls
from tests.unit.test_tool_calls_real_streams import chunk, run_turn, tc

A, B, C = '{"city": "Paris"}', '{"city": "Rome"}', '{"city": "Oslo"}'


def _calls(turn):
    assert isinstance(turn.decision, ToolCalls), turn.decision
    return [(call.id, call.name, call.arguments) for call in turn.decision.calls]


def test_a_first_call_sent_whole_then_merged_with_the_second_runs_once():
    _, turn = run_turn([
        chunk(content="<think>\nweather twice"),
        chunk(tc("get_weather", A, id="call_1"), content="\n</think>"),
        chunk(tc("get_weather", A + B, id="call_2")),
        chunk(finish_reason="tool_calls"),
    ])
    assert _calls(turn) == [("call_1", "get_weather", {"city": "Paris"}), ("call_2", "get_weather", {"city": "Rome"})]


def test_three_calls_of_one_tool_merged_after_the_first_run_once_each():
    _, turn = run_turn([
        chunk(tc("get_weather", A, id="call_1"), content="\n</think>"),
        chunk(tc("get_weather", A + B + C, id="call_3")),
        chunk(finish_reason="tool_calls"),
    ])
    assert [arguments["city"] for _, _, arguments in _calls(turn)] == ["Paris", "Rome", "Oslo"]
    assert _calls(turn)[1][0] == "call_3"


def test_the_same_arguments_twice_in_parallel_still_run_twice():
    _, turn = run_turn([
        chunk(tc("get_weather", A, id="call_1"), content="\n</think>"),
        chunk(tc("get_weather", A + A, id="call_2")),
        chunk(finish_reason="tool_calls"),
    ])
    assert [call_id for call_id, _, _ in _calls(turn)] == ["call_1", "call_2"]


def test_glued_calls_whose_head_is_not_the_earlier_call_stay_separate_calls():
    """hermes62937's shape after an unrelated call: nothing is dropped."""
    _, turn = run_turn([
        chunk(tc("get_weather", C, id="call_1")),
        chunk(tc("get_weather", A + B, id="call_2")),
        chunk(finish_reason="tool_calls"),
    ])
    assert [arguments["city"] for _, _, arguments in _calls(turn)] == ["Oslo", "Paris", "Rome"]
