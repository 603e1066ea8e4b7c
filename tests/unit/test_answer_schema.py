"""The user's own structured output (a JSON schema in the model's parameters): how it is read,
how ReAct's step requests go without it, how it becomes the final answer's branch of the JSON
step schema, and how an answer is checked against it."""

import json

import pytest
from dify_plugin.entities.model.llm import LLMModelConfig
from dify_plugin.entities.model.message import PromptMessageTool, UserPromptMessage

from agent_core import prompts
from agent_core.answer_schema import (
    STRUCTURED_OUTPUT_PARAMS,
    answer_problem,
    answer_text,
    answer_value,
    read_answer_schema,
    with_booleans,
)
from agent_core.model_call import ModelChunk, ModelRequest, build_llm_payload
from agent_core.params import StrategyParams, read_params
from agent_core.react.json_step import FINAL_ANSWER, read_json_step_turn, read_step, step_schema
from agent_core.react.turn import read_react_turn, schema_answer_turn
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ParseFailure, ToolCalls

WEATHER = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}, "sunny": {"type": "boolean"}},
    "required": ["city", "celsius"],
}
CALCULATOR = PromptMessageTool(
    name="calculator",
    description="Evaluate an arithmetic expression",
    parameters={"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]},
)


# --- reading the schema -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        {"response_format": "json_schema", "json_schema": json.dumps(WEATHER)},  # OpenAI, Gemini
        {"response_format": "json_schema", "json_schema": json.dumps({"name": "w", "strict": True, "schema": WEATHER})},
        {"json_schema": json.dumps(WEATHER)},  # Ollama: no response_format rule
        {"response_format": "JSON_SCHEMA", "json_schema": WEATHER},  # a dict, any case
        {"response_format": {"type": "json_schema", "json_schema": {"name": "w", "schema": WEATHER}}},
    ],
    ids=["openai", "openai-wrapper", "ollama", "dict", "openai-object"],
)
def test_the_schema_is_read_in_every_shape_plugins_take(params):
    assert read_answer_schema({"temperature": 0.2, **params}) == (WEATHER, None)


@pytest.mark.parametrize(
    "params",
    [
        None,
        {},
        {"temperature": 0.2},
        {"response_format": "json_schema", "json_schema": "  "},
        {"response_format": "text", "json_schema": json.dumps(WEATHER)},  # plugins ignore it then
        {"response_format": "json_object", "json_schema": json.dumps(WEATHER)},
        {"response_format": {"type": "json_object"}},
    ],
)
def test_no_schema_is_asked_for(params):
    assert read_answer_schema(params) == (None, None)


@pytest.mark.parametrize(
    ("text", "said"),
    [("{'type': 'object'", "not valid JSON"), ('["a"]', "array, not an object"), ("42", "integer, not an object")],
)
def test_a_schema_that_cannot_be_read_is_named_and_not_used(text, said):
    schema, problem = read_answer_schema({"response_format": "json_schema", "json_schema": text})
    assert schema is None
    assert said in problem and "goes to the model as set" in problem


@pytest.mark.parametrize("depth", [65, 5000])
def test_a_schema_nested_past_what_a_request_carries_is_named_and_not_used(depth):
    """5,000 levels broke the JSON reader (the run ended: "settings could not be read"); 65
    would break the SDK's encoder on each step request. Either is named, and the run goes on."""
    text = '{"name": "s", "schema": ' + '{"a":' * depth + "1" + "}" * (depth + 1)
    schema, problem = read_answer_schema({"response_format": "json_schema", "json_schema": text})
    assert schema is None and "nested more than 64 levels" in problem
    ok = '{"name": "s", "schema": ' + '{"a":' * 40 + "1" + "}" * 41
    assert read_answer_schema({"json_schema": ok})[0] is not None


MODEL = {"provider": "openai", "model": "gpt-4o", "mode": "chat"}


def test_the_node_parameters_carry_the_schema_and_a_note_when_it_is_unreadable():
    good = {**MODEL, "completion_params": {"response_format": "json_schema", "json_schema": json.dumps(WEATHER)}}
    params = read_params(StrategyParams, {"model": good, "query": "hi"})
    assert params.answer_schema == WEATHER and params.setting_notes == []
    assert params.model.completion_params["json_schema"] == json.dumps(WEATHER), "passed on as set"
    bad = {**MODEL, "completion_params": {"response_format": "json_schema", "json_schema": "{oops"}}
    params = read_params(StrategyParams, {"model": bad, "query": "hi"})
    assert params.answer_schema is None
    assert any("json_schema" in note and "not valid JSON" in note for note in params.setting_notes)
    assert params.model.completion_params["json_schema"] == "{oops"


def test_a_step_request_goes_without_the_users_structured_output_only():
    model = LLMModelConfig(
        provider="openai",
        model="gpt-4o",
        mode="chat",
        completion_params={"temperature": 0.1, "response_format": "json_schema", "json_schema": "{}", "stop": ["##"]},
    )
    messages = [UserPromptMessage(content="hi")]
    step = build_llm_payload(model, ModelRequest(prompt_messages=messages, stop=["Observation"], without_params=STRUCTURED_OUTPUT_PARAMS))
    assert step["completion_params"] == {"temperature": 0.1}
    assert step["stop"] == ["##", "Observation"]
    plain = build_llm_payload(model, ModelRequest(prompt_messages=messages))
    assert plain["completion_params"] == {"temperature": 0.1, "response_format": "json_schema", "json_schema": "{}"}


# --- the JSON step schema ---------------------------------------------------------------------


def branches(schema):
    return {branch["properties"]["action"]["enum"][0]: branch for branch in schema["anyOf"]}


def test_the_users_schema_is_the_final_answers_branch():
    schema = step_schema([CALCULATOR], answer_schema=WEATHER)
    final = branches(schema)[FINAL_ANSWER]["properties"]["action_input"]
    assert final == WEATHER
    assert branches(schema)["calculator"]["properties"]["action_input"]["required"] == ["expression"]
    assert set(branches(step_schema([CALCULATOR], answer_only=True, answer_schema=WEATHER))) == {FINAL_ANSWER}
    plain = branches(step_schema([CALCULATOR]))[FINAL_ANSWER]["properties"]["action_input"]
    assert plain["required"] == ["answer"]


def test_definitions_of_the_users_schema_move_to_the_root_where_refs_resolve():
    user = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"place": {"$ref": "#/$defs/place"}},
        "$defs": {"place": {"type": "object", "properties": {"name": {"type": "string"}}}},
    }
    schema = step_schema([CALCULATOR], answer_schema=user)
    final = branches(schema)[FINAL_ANSWER]["properties"]["action_input"]
    assert "$defs" not in final and "$schema" not in final
    assert schema["$defs"] == user["$defs"]
    assert user["$defs"] and "$schema" in user, "the user's schema is not changed"


def test_a_final_answer_step_is_the_users_object_as_json_text():
    step = {"action": FINAL_ANSWER, "action_input": {"city": "Paris", "celsius": 21, "sunny": "true"}}
    decision = read_step(step, [CALCULATOR], "c1", WEATHER)
    assert decision == FinalAnswer('{"city": "Paris", "celsius": 21, "sunny": true}')
    missing = read_step({"action": FINAL_ANSWER, "action_input": {"answer": "Sunny"}}, [CALCULATOR], "c1", WEATHER)
    assert isinstance(missing, ParseFailure) and '"city", "celsius"' in missing.problem
    assert isinstance(read_step({"action": "calculator", "action_input": {"expression": "1+1"}}, [CALCULATOR], "c1", WEATHER), ToolCalls)


def test_a_json_step_answer_in_the_users_schema_is_shown_once_read_whole():
    """The ``answer`` key of the user's own schema is not streamed as ReAct's answer string."""
    schema = {"type": "object", "properties": {"answer": {"type": "string"}, "score": {"type": "integer"}}}
    text = json.dumps({"action": FINAL_ANSWER, "action_input": {"answer": "yes", "score": 3}})
    chunks = [ModelChunk(text=text[i : i + 4]) for i in range(0, len(text), 4)]
    reader = read_json_step_turn(iter(chunks), [CALCULATOR], 1, schema)
    shown = []
    try:
        while True:
            shown.append(next(reader))
    except StopIteration as done:
        turn = done.value
    assert shown == ['{"answer": "yes", "score": 3}']
    assert turn.decision == FinalAnswer(shown[0])


# --- an answer written as text ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ({"city": "Paris", "celsius": 21}, None),
        ({"city": "Paris"}, 'lacks the required field(s) "celsius"'),
        (["Paris"], "a JSON array, not object"),
        (True, "a JSON boolean, not object"),
    ],
)
def test_an_answer_is_checked_at_its_top_level(value, problem):
    found = answer_problem(value, WEATHER)
    assert found is None if problem is None else problem in found
    assert answer_problem(3.0, {"type": "integer"}) is None and answer_problem(True, {"type": ["integer", "null"]})


def test_booleans_dify_sent_as_strings_are_read_back_where_the_schema_says_boolean():
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}, "tags": {"type": "array", "items": {"type": "boolean"}}, "word": {"type": "string"}}}
    assert with_booleans({"ok": "True", "tags": ["false", "x"], "word": "true"}, schema) == {"ok": True, "tags": [False, "x"], "word": "true"}


@pytest.mark.parametrize(
    ("text", "value"),
    [('{"a": 1}', {"a": 1}), ('```json\n{"a": 1}\n```', {"a": 1}), ("[1, 2]", [1, 2]), ("Sunny in Paris.", None)],
)
def test_an_answer_text_is_read_as_json(text, value):
    read, problem = answer_value(text)
    assert read == value and (problem is None) == (value is not None)
    assert answer_text({"é": 1}) == '{"é": 1}'


def reply(text, **last):
    pieces = [ModelChunk(text=text[i : i + 6]) for i in range(0, len(text), 6)]
    pieces[-1] = ModelChunk(text=pieces[-1].text, **last)
    return iter(pieces)


def read(text, **last):
    reader = schema_answer_turn(read_react_turn(reply(text, **last), ToolRegistry([]), 1), WEATHER)
    shown = []
    try:
        while True:
            shown.append(next(reader))
    except StopIteration as done:
        return shown, done.value


def test_a_text_final_answer_is_shown_as_the_users_json():
    shown, turn = read('Thought: I know it.\nFinal Answer: ```json\n{"city": "Paris", "celsius": 21}\n```')
    assert shown == ['{"city": "Paris", "celsius": 21}']
    assert turn.decision == FinalAnswer(shown[0])


def test_a_text_final_answer_off_the_schema_is_asked_again_and_kept_as_the_fallback():
    shown, turn = read("Thought: I know it.\nFinal Answer: It is 21 °C in Paris.")
    assert shown == []
    assert isinstance(turn.decision, ParseFailure)
    assert turn.decision.problem.startswith(prompts.ANSWER_NOT_IN_SCHEMA.format(problem=""))
    assert turn.decision.fallback == "It is 21 °C in Paris."


def test_an_answer_the_output_limit_cut_is_held_for_the_next_round_to_continue():
    """Held as a whole schema answer is: it is shown once joined with its rest and checked
    (``schema_rest_turn``)."""
    shown, turn = read('Final Answer: {"city": "Par', finish_reason="length")
    assert shown == [] and turn.cut and turn.decision == FinalAnswer('{"city": "Par')
