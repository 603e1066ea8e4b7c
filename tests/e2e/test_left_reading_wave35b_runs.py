"""Reading faults left by wave 35, through the real plugin: a cut answer's rest that goes on inside
the cut word (or writes that word again) reads as one word; a step written after an invented
``Human:`` turn is not run; a LangChain JSON blob cut inside its answer is continued; a cut
schema answer joined with its rest is checked against the schema."""

import json

import pytest

from agent_core import prompts
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean, prompt_text, weather_tool

JSON_SCHEMA_RULES = [  # the OpenAI plugin's rules: ``auto`` then picks JSON steps
    {"name": "response_format", "label": {"en_US": "Response Format"}, "type": "string", "options": ["text", "json_object", "json_schema"]},
    {"name": "json_schema", "use_template": "json_schema", "label": {"en_US": "JSON Schema"}, "type": "text"},
]
JSON_STEPS = {"completion_params": {}, "features": ["tool-call"], "parameter_rules": JSON_SCHEMA_RULES}


def cut(turn: dict) -> dict:
    return {**turn, "finish_reason": "length"}


@pytest.mark.parametrize("split", [None, 2, 1])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_rest_that_writes_the_cut_word_again_reads_as_one_word(run, strategy, split):
    """The limit cut "capital" after "capi" and the model, told to continue, wrote the word again
    ("capital of France."): the answer read "the capi capital of France"."""
    turn = {"text": "capital of France.", **({"split": split} if split else {})}
    result = run([cut(answer_turn(strategy, "Paris is the capi")), turn], query="Capital?", strategy=strategy)
    assert_clean(result, run)
    assert result.text == "Paris is the capital of France."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_rest_after_a_whole_word_sent_without_a_space_gets_one(run, strategy):
    """Most cuts fall after a whole word (most words are one token) and a model's new reply
    seldom begins with a space: "is" and "Paris." read "is Paris."."""
    result = run([cut(answer_turn(strategy, "The capital of France is")), {"text": "Paris.", "split": 2}],
                 query="Capital?", strategy=strategy)
    assert_clean(result, run)
    assert result.text == "The capital of France is Paris."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_rest_that_writes_the_last_word_again_after_a_space_reads_once(run, strategy):
    result = run([cut(answer_turn(strategy, "Paris is the")), {"text": " the capital."}], query="Capital?", strategy=strategy)
    assert_clean(result, run)
    assert result.text == "Paris is the capital."


def test_a_json_step_rest_that_starts_with_a_space_then_an_escape_keeps_the_space(run):
    cut_step = '{"action": "final_answer", "action_input": {"answer": "The river is'
    result = run(
        [cut({"text": cut_step}), {"text": ' \\"la Seine\\"."}}'}],
        tools=[weather_tool()],
        strategy="ReAct",
        model=JSON_STEPS,
    )
    assert_clean(result, run)
    assert result.text == 'The river is "la Seine".'


@pytest.mark.parametrize("split", [None, 4])
def test_an_action_after_an_invented_human_turn_is_logged_not_run(run, split):
    """The model answered in LangChain's conversational format, then wrote the user's next turn
    and a step for it: that step answers a question nobody asked; the weather tool ran."""
    reply = ("Thought: Do I need to use a tool? No\nAI: Paris is the capital of France.\n"
             "Human: And the weather there?\nThought: Do I need to use a tool? Yes\n"
             'Action: get_weather\nAction Input: {"city": "Paris"}')
    result = run([{"text": reply, **({"split": split} if split else {})}],
                 query="Capital of France?", tools=[weather_tool()], strategy="ReAct")
    assert_clean(result, run)
    assert result.tool_requests == []
    assert result.text == "Paris is the capital of France."
    (thought,) = [node for node in result.logs.values() if node.label.endswith(" Thought")]
    assert thought.data["calls_not_run_after_answer"] == "1: get_weather"
    assert thought.data["not_read_after_answer"].startswith("Human: And the weather there?")


@pytest.mark.parametrize("split", [None, 3])
def test_a_langchain_json_blob_cut_inside_its_answer_is_continued(run, split):
    head = 'Thought: I know it.\nAction:\n```json\n{"action": "Final Answer", "action_input": "Paris is the capital of'
    rest = {"text": ' France."}\n```', **({"split": split} if split else {})}
    result = run([cut({"text": head}), rest], query="Capital?", tools=[weather_tool()], strategy="ReAct")
    assert_clean(result, run)
    assert result.text == "Paris is the capital of France."
    assert prompts.CONTINUE_CUT_ANSWER in prompt_text(result.llm_requests[1])


SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}},
    "required": ["city", "celsius"],
}
USER_SCHEMA = {"completion_params": {"response_format": "json_schema",
                                     "json_schema": json.dumps({"name": "weather", "schema": SCHEMA})},
               "features": []}


def test_a_cut_schema_answer_and_its_rest_are_shown_as_the_users_json(run):
    result = run([cut({"text": 'Thought: I know it.\nFinal Answer: {"city": "Par'}), {"text": 'is", "celsius": 21}'}],
                 query="Weather in Paris?", tools=[weather_tool()], strategy="ReAct", model=USER_SCHEMA)
    assert_clean(result, run)
    assert json.loads(result.text) == {"city": "Paris", "celsius": 21}


def test_a_cut_schema_answer_whose_whole_misses_the_schema_is_asked_again(run):
    """The cut answer and its rest made ``{"city": "Paris"}``, without the required ``celsius``:
    the user got it as the answer, never checked; now the model is told and asked again."""
    result = run([cut({"text": 'Thought: I know it.\nFinal Answer: {"city": "Par'}), {"text": 'is"}'},
                  {"text": 'Final Answer: {"city": "Paris", "celsius": 21}'}],
                 query="Weather in Paris?", tools=[weather_tool()], strategy="ReAct", model=USER_SCHEMA)
    assert_clean(result, run)
    assert json.loads(result.text) == {"city": "Paris", "celsius": 21}
    assert "does not follow the JSON schema" in prompt_text(result.llm_requests[2])
