"""agent_core.round_cap: a round runs at most MAX_CALLS_PER_ROUND calls, and the model is told of
the others in each strategy's prompt (Function Calling: a tool message per id; ReAct: a count)."""

from dify_plugin.interfaces.agent import AgentModelConfig

from agent_core import prompts, round_cap
from agent_core.function_calling.prompt import chat_prompt as fc_prompt
from agent_core.params import StrategyParams
from agent_core.react.json_prompt import round_steps
from agent_core.react.prompt import scratchpad
from agent_core.round_cap import MAX_CALLS_PER_ROUND, not_run_log, not_run_note, not_run_results, split_round
from agent_core.run_state import Round, RunState
from agent_core.tool_calls import InvalidToolCall, ToolCall
from agent_core.tool_runner import DEFAULT_MAX_PARALLEL, ToolResult
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import ModelTurn, ToolCalls
from agent_core.usage import empty_usage
from tests.unit.test_tool_schema import tool as tool_entity


def calls(count: int, name: str = "lookup") -> list[ToolCall]:
    return [ToolCall(f"c{n}", name, {"q": str(n)}) for n in range(count)]


def test_the_cap_is_a_few_dozen_calls_run_in_a_few_waves():
    assert 16 <= MAX_CALLS_PER_ROUND <= 128
    assert MAX_CALLS_PER_ROUND % DEFAULT_MAX_PARALLEL == 0


def test_a_round_within_the_cap_runs_every_call_and_leaves_none_out():
    given = calls(MAX_CALLS_PER_ROUND)
    run, not_run = split_round(given)
    assert run is given and not_run == ()


def test_calls_beyond_the_cap_are_kept_in_order_not_dropped():
    given = calls(50_000)
    run, not_run = split_round(given)
    assert [c.id for c in run] == [f"c{n}" for n in range(MAX_CALLS_PER_ROUND)]
    assert len(not_run) == 50_000 - MAX_CALLS_PER_ROUND and not_run[0].id == f"c{MAX_CALLS_PER_ROUND}"
    assert not_run[-1].id == "c49999"
    assert split_round(calls(3), limit=0) == (calls(3)[:1], tuple(calls(3)[1:]))  # a round runs one call at least


def test_the_note_names_the_count_and_the_first_tools_once_each():
    not_run = [*calls(40, "get_weather"), *calls(3, "get_time"), *(calls(1, f"t{n}")[0] for n in range(10))]
    note = not_run_note(not_run, limit=64)
    assert note == prompts.CALLS_NOT_RUN.format(count=53, names="get_weather, get_time, t0, t1, t2, …", limit=64)
    assert "53 more tool calls" in note and "64" in note and "again" in note
    assert not_run_note(calls(2, "a"), limit=64).count("(a)") == 1
    assert not_run_note(()) == ""


def test_the_log_gives_the_count_without_a_line_per_call():
    data = not_run_log(calls(936, "get_weather"), limit=64)
    assert data["calls_not_run"] == 936 and data["limit"] == 64 and data["tools"] == "get_weather"
    assert "936 more tool calls" in data["output"] and len(data["output"]) < 300


def test_a_megabyte_tool_name_is_shown_as_a_call_label_is():
    """A name the model wrote of a megabyte is cut as a CALL node's label is, in the note the model
    reads and in the log: two such calls do not make a 2 MB note."""
    name = "x" * 1_000_000
    note, data = not_run_note(calls(2, name), limit=64), not_run_log(calls(2, name), limit=64)
    assert len(note) < 2_000 and len(data["tools"]) <= 200 and data["tools"].endswith("…")


def test_each_native_call_not_run_gets_a_result_saying_so():
    bad = InvalidToolCall("x1", "lookup", "{oops", "not JSON")
    results = not_run_results([*calls(2), bad], limit=64)
    assert [r.call_id for r in results] == ["c0", "c1", "x1"]
    assert results[0].arguments == {"q": "0"} and results[2].arguments == "{oops"
    assert all(r.observation == prompts.CALL_NOT_RUN.format(name="lookup", limit=64) for r in results)
    assert all(r.error for r in results)


def test_long_lists_of_calls_not_run_give_way_between_two(monkeypatch):
    ways = []
    monkeypatch.setattr(round_cap, "give_way", lambda: ways.append(1))
    not_run_results(calls(1000))
    assert len(ways) >= 1000
    ways.clear()
    not_run_note(calls(1000))
    assert len(ways) >= 1000


def _run_with_capped_round(strategy_calls, *, in_text=False, opaque_body=None, provider="langgenius/openai/openai"):
    """A run after one round whose first ``MAX_CALLS_PER_ROUND`` calls ran and the rest did not."""
    model = AgentModelConfig(provider=provider, model="m", mode="chat", completion_params={})
    run = RunState(params=StrategyParams(model=model, query="q"), registry=ToolRegistry([tool_entity("lookup")]))
    ran, not_run = split_round(strategy_calls)
    turn = ModelTurn(
        thought="Looking up.", decision=ToolCalls(tuple(strategy_calls), in_text=in_text), usage=empty_usage(),
        content="Looking up.", opaque_body=opaque_body,
    )
    results = tuple(ToolResult(c.id, c.name, c.arguments, observation=f"result {c.id}") for c in ran)
    run.rounds.append(Round(index=1, turn=turn, results=results, not_run=not_run))
    return run


def test_function_calling_answers_every_call_id_and_keeps_every_call_in_the_assistant_message():
    run = _run_with_capped_round(calls(100))
    messages = fc_prompt(run)
    (assistant,) = [m for m in messages if m.role.value == "assistant"]
    assert [c.id for c in assistant.tool_calls] == [f"c{n}" for n in range(100)]
    assert assistant.content == "Looking up."
    tool_messages = [m for m in messages if m.role.value == "tool"]
    assert [m.tool_call_id for m in tool_messages] == [f"c{n}" for n in range(100)]
    assert tool_messages[0].content == "result c0"
    assert all(m.content == prompts.CALL_NOT_RUN.format(name="lookup", limit=MAX_CALLS_PER_ROUND)
               for m in tool_messages[MAX_CALLS_PER_ROUND:])


def test_function_calling_counts_calls_written_in_text_once_after_the_last_result():
    """Calls read from the reply's text owe no id an answer: those that ran go back as native
    calls, the others are counted in the last result, not sent as 36 calls of ours."""
    run = _run_with_capped_round(calls(100), in_text=True)
    messages = fc_prompt(run)
    (assistant,) = [m for m in messages if m.role.value == "assistant"]
    assert len(assistant.tool_calls) == MAX_CALLS_PER_ROUND
    tool_messages = [m for m in messages if m.role.value == "tool"]
    assert len(tool_messages) == MAX_CALLS_PER_ROUND
    assert tool_messages[-1].content.startswith(f"result c{MAX_CALLS_PER_ROUND - 1}\n\n36 more tool calls")
    body = _run_with_capped_round(calls(100), in_text=True, opaque_body={"id": "msg"}, provider="langgenius/anthropic/anthropic")
    last = fc_prompt(body)[-1]
    assert last.role.value == "user" and last.content.endswith(not_run_note(body.rounds[0].not_run))


def test_react_observation_counts_the_actions_not_run_without_listing_them():
    run = _run_with_capped_round(calls(50_000))
    pad = scratchpad(run)
    assert pad.count("Observation: ") == MAX_CALLS_PER_ROUND
    assert pad.count('"action": "lookup"') == MAX_CALLS_PER_ROUND
    assert pad.endswith(f"result c{MAX_CALLS_PER_ROUND - 1}\n\n" + not_run_note(run.rounds[0].not_run))
    assert f"{50_000 - MAX_CALLS_PER_ROUND} more tool calls of your reply were not run (lookup)" in pad
    assert len(pad) < 20_000


def test_json_steps_count_calls_not_run_in_the_last_observation():
    run = _run_with_capped_round(calls(MAX_CALLS_PER_ROUND + 2))
    pairs = round_steps(run, run.rounds[0])
    assert len(pairs) == MAX_CALLS_PER_ROUND and pairs[-1][1].endswith(not_run_note(run.rounds[0].not_run))
