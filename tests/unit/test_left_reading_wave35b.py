"""Reading faults left by wave 35 (wave 35b): a step written after an invented ``Human:`` turn, a
LangChain JSON blob cut inside its answer, a cut schema answer joined with its rest."""

import pytest

from agent_core import prompts
from agent_core.model_call import ModelChunk
from agent_core.react.parser import parse_react
from agent_core.react.turn import blob_rest_turn, cut_blob, read_react_turn, schema_rest_turn
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ParseFailure
from tests.unit.helpers import drain

WEATHER = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}},
    "required": ["city", "celsius"],
}


def chunks(text, size=5, finish_reason="stop"):
    pieces = [ModelChunk(text=text[i : i + size]) for i in range(0, len(text), size)]
    return iter([*pieces, ModelChunk(finish_reason=finish_reason)])


# --- a step after an invented Human: turn ---------------------------------------------------------


@pytest.mark.parametrize("label", ["", "Thought: "])
def test_an_action_after_an_invented_human_turn_is_the_answers_leftover_not_a_call(label):
    reply = (f"{label}Do I need to use a tool? No\nAI: Paris.\nHuman: And the weather?\n"
             'Thought: Do I need to use a tool? Yes\nAction: get_weather\nAction Input: {"city": "Paris"}')
    turn = parse_react(reply)
    assert turn.actions == () and turn.final_answer == "Paris." and turn.answer_ended
    assert turn.after_answer.startswith("Human: And the weather?") and "Action: get_weather" in turn.after_answer


def test_an_action_with_no_invented_turn_before_it_still_runs():
    turn = parse_react('Thought: Do I need to use a tool? Yes\nAction: get_weather\nAction Input: {"city": "Paris"}')
    assert [a.name for a in turn.actions] == ["get_weather"] and turn.final_answer is None


# --- a LangChain JSON blob cut inside its answer --------------------------------------------------

BLOB = 'Thought: I know it.\nAction:\n```json\n{"action": "Final Answer", "action_input": "Paris is the capital of'


@pytest.mark.parametrize("size", [1, 7, 500])
def test_a_json_blob_cut_inside_its_answer_is_a_cut_answer(size):
    shown, turn = drain(read_react_turn(chunks(BLOB, size, "length"), ToolRegistry(None), 1))
    assert shown == "Paris is the capital of"
    assert turn.decision == FinalAnswer("Paris is the capital of") and turn.cut


def test_a_json_blob_of_a_tool_cut_is_still_asked_again():
    blob = 'Action:\n```json\n{"action": "get_weather", "action_input": {"city": "Par'
    shown, turn = drain(read_react_turn(chunks(blob, 5, "length"), ToolRegistry(None), 1))
    assert shown == "" and turn.decision == ParseFailure(prompts.REPLY_CUT)


@pytest.mark.parametrize(("rest", "shown"), [
    (' France."}\n```', "France."),  # the blob closed: its closing left out
    (" France.", "France."),  # plain text
])
def test_the_rest_of_a_cut_blob_answer_is_shown_without_the_blobs_closing(rest, shown):
    reader = read_react_turn(chunks(rest), ToolRegistry(None), 2, continues_answer=True)
    texts, turn = drain(blob_rest_turn(reader, BLOB))
    assert texts == shown and turn.decision == FinalAnswer(shown)


def test_cut_blob_is_the_text_after_the_last_action_label():
    assert cut_blob(BLOB).lstrip().startswith("```json\n{")
    assert cut_blob("Thought: x\nFinal Answer: y") == ""


# --- a cut schema answer joined with its rest -----------------------------------------------------


def _rest(text, cut, finish_reason="stop"):
    reader = read_react_turn(chunks(text, 4, finish_reason), ToolRegistry(None), 2, continues_answer=True)
    return drain(schema_rest_turn(reader, cut, WEATHER))


def test_a_cut_schema_answer_and_its_rest_are_shown_once_they_follow_the_schema():
    shown, turn = _rest('is", "celsius": 21}', '{"city": "Par')
    assert shown == '{"city": "Paris", "celsius": 21}' and turn.decision == FinalAnswer(shown)


def test_a_cut_schema_answer_whose_whole_misses_the_schema_is_asked_again():
    shown, turn = _rest('is"}', '{"city": "Par')  # "celsius" is required
    assert shown == ""
    assert isinstance(turn.decision, ParseFailure)
    assert turn.decision.problem.startswith(prompts.ANSWER_NOT_IN_SCHEMA.format(problem=""))
    assert turn.decision.fallback == '{"city": "Paris"}'


def test_the_space_a_schema_answers_rest_begins_with_is_kept():
    shown, _ = _rest(' Lumpur", "celsius": 30}', '{"city": "Kuala')
    assert shown == '{"city": "Kuala Lumpur", "celsius": 30}'


def test_a_schema_answers_rest_cut_again_is_shown_as_written():
    shown, turn = _rest('is", "cel', '{"city": "Par', "length")
    assert shown == '{"city": "Paris", "cel' and turn.cut


def _cut_round_run(replayed: str, written: str):
    from dify_plugin.entities.model.llm import LLMUsage
    from dify_plugin.interfaces.agent import AgentModelConfig

    from agent_core.params import StrategyParams
    from agent_core.run_state import Round, RunState
    from agent_core.turn import ModelTurn
    from tests.unit.test_tool_schema import tool as tool_entity

    model = AgentModelConfig(provider="p", model="m", mode="chat", completion_params={})
    run = RunState(params=StrategyParams(model=model, query="q"), registry=ToolRegistry([tool_entity("search")]))
    turn = ModelTurn(thought=replayed, decision=FinalAnswer(replayed), usage=LLMUsage.empty_usage(),
                     finish_reason="length")
    run.rounds.append(Round(index=1, turn=turn))
    run.cut_answer = written
    return run


def test_a_cut_schema_answer_is_joined_as_written_not_as_replayed_with_its_edge_hidden():
    """The round's turn ends with ``[REDACTED]`` where the limit cut a key (it is replayed to the
    model); joined to the rest that finishes the key, the marker left the key's tail in the answer
    ('"key [REDACTED]e7b0a2d61"'). The cut answer as written is joined instead: the
    whole key is there for the run's guard to hide."""
    from agent_core.react.turn import cut_answer_text

    run = _cut_round_run('{"city": "key [REDACTED]', '{"city": "key rt31-9c4')
    assert cut_answer_text(run) == '{"city": "key rt31-9c4'
    shown, _ = _rest('e7b0a2d61", "celsius": 21}', cut_answer_text(run))
    assert shown == '{"city": "key rt31-9c4e7b0a2d61", "celsius": 21}'
    run.cut_answer = ""
    assert cut_answer_text(run) == '{"city": "key [REDACTED]'
