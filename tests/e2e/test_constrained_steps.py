"""ReAct with constrained steps (``step_format``) through the real plugin process: each step is
a JSON object decoded against a schema built from the node's tools, asked for through Dify's
``llm_structured_output`` invocation; the runner answers it as Dify does (the model's chunks,
then a chunk carrying ``structured_output``, or an error when the reply is no JSON object)."""

import json

import pytest

from agent_core import prompts
from tests.e2e.helpers import assert_clean_end, observations, prompt_text, weather_tool

STRUCTURED = {"features": ["structured-output"]}
PLAIN = {"features": []}


def react(run, turns, **kwargs):
    return run(turns, strategy="ReAct", **kwargs)


def step(action, action_input, **extra):
    return json.dumps({"action": action, "action_input": action_input, **extra}, ensure_ascii=False)


def schema_branches(request):
    schema = request["structured_output_schema"]
    return {branch["properties"]["action"]["enum"][0]: branch for branch in schema["anyOf"]}


def test_json_steps_call_the_tool_and_stream_the_answer(run):
    answer = "It is sunny in Paris, 21 °C \u2014 \"nice\" weather."
    result = react(
        run,
        [{"text": step("get_weather", {"city": "Paris"}), "split": 7},
         {"text": step("final_answer", {"answer": answer}, thought="The observation says so."), "split": 5}],
        query="Weather in Paris?",
        tools=[weather_tool()],
        model=STRUCTURED,
    )
    assert_clean_end(result)
    assert result.text == answer
    pieces = [m["message"]["text"] for m in result.messages if m["type"] == "text"]
    assert len(pieces) > 1, "the answer streams while the step is decoded"
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    first, second = result.llm_requests
    branches = schema_branches(first)
    assert set(branches) == {"get_weather", "final_answer"}
    assert branches["get_weather"]["properties"]["action_input"]["required"] == ["city"]
    assert first["tools"] is None and not first["stop"], "no native tools, no stop words"
    assert observations(second) == [] and "Observation: Sunny, 21 C" in prompt_text(second)
    assert any(m["role"] == "assistant" and '"get_weather"' in str(m["content"]) for m in second["prompt_messages"])
    thought = [n for n in result.logs.values() if n.label.endswith("Thought")][-1]
    assert thought.data["output"] == "The observation says so."


def test_a_step_that_is_not_json_is_asked_again(run):
    """Dify cannot parse the reply (its structured-output call fails after the text came): the
    plugin reads the text itself, tells the model what was wrong, and the run goes on."""
    result = react(
        run,
        [{"text": "I think I should look up the weather.", "split": 8},
         {"text": step("get_weather", {"city": "Rome"})},
         {"text": step("final_answer", {"answer": "Sunny, 21 C in Rome."})}],
        query="Weather in Rome?",
        tools=[weather_tool()],
        model=STRUCTURED,
    )
    assert_clean_end(result)
    assert result.text == "Sunny, 21 C in Rome."
    retry = prompt_text(result.llm_requests[1])
    assert "could not be used" in retry and "not one JSON object" in retry
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Rome"}]


def test_a_step_that_breaks_the_tool_schema_is_refused_with_the_reason(run):
    """A step without the tool's required argument (as a model without native constrained
    decoding may write it) is not run: the model is told what is missing and corrects it."""
    result = react(
        run,
        [{"text": step("get_weather", {"town": "Oslo"})},
         {"text": step("get_weather", {"city": "Oslo"})},
         {"text": step("final_answer", {"answer": "Cold in Oslo."})}],
        query="Weather in Oslo?",
        tools=[weather_tool()],
        model=STRUCTURED,
    )
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Oslo"}]
    assert "city" in prompt_text(result.llm_requests[1]) and "missing" in prompt_text(result.llm_requests[1])
    assert result.text == "Cold in Oslo."


def test_auto_uses_text_steps_for_a_model_without_structured_output(run):
    result = react(
        run,
        [{"text": 'Thought: look\nAction: get_weather\nAction Input: {"city": "Lima"}'},
         {"text": "Final Answer: Mild in Lima."}],
        tools=[weather_tool()],
        model=PLAIN,
    )
    assert_clean_end(result)
    assert all("structured_output_schema" not in r for r in result.llm_requests)
    assert "Observation" in result.llm_requests[0]["stop"]
    assert result.text == "Mild in Lima."


def test_forced_json_steps_on_a_model_without_the_feature(run):
    """Dify then prompts with the schema and parses the reply; the plugin asks for it all the same."""
    result = react(
        run,
        [{"text": step("final_answer", {"answer": "Hello."})}],
        query="hi",
        tools=[weather_tool()],
        model=PLAIN,
        params={"step_format": "json_schema"},
    )
    assert_clean_end(result)
    assert "structured_output_schema" in result.llm_requests[0]
    assert result.text == "Hello."


def test_text_format_on_a_structured_output_model(run):
    result = react(run, [{"text": "Final Answer: Hi."}], query="hi", model=STRUCTURED, params={"step_format": "text"})
    assert_clean_end(result)
    assert "structured_output_schema" not in result.llm_requests[0]
    assert result.text == "Hi."


def test_a_refused_schema_call_falls_back_to_text_steps(run):
    """The model plugin refuses the schema call before any output: the run goes on in text."""
    result = react(
        run,
        [{"error": "this model does not support json_schema"},
         {"text": 'Thought: look\nAction: get_weather\nAction Input: {"city": "Kyiv"}'},
         {"text": "Final Answer: Sunny in Kyiv."}],
        tools=[weather_tool()],
        model=STRUCTURED,
    )
    assert_clean_end(result)
    first, second, third = result.llm_requests
    assert "structured_output_schema" in first
    assert "structured_output_schema" not in second and "structured_output_schema" not in third
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Kyiv"}]
    assert result.text == "Sunny in Kyiv."


def test_the_answer_round_after_the_limit_allows_only_an_answer(run):
    result = react(
        run,
        [{"text": step("get_weather", {"city": "Paris"})},
         {"text": step("final_answer", {"answer": "Sunny."})}],
        tools=[weather_tool()],
        model=STRUCTURED,
        maximum_iterations=1,
    )
    assert_clean_end(result)
    assert set(schema_branches(result.llm_requests[1])) == {"final_answer"}
    assert result.text == "Sunny."


def test_a_completion_model_gets_one_prompt_ending_where_the_step_goes(run):
    result = react(
        run,
        [{"text": step("get_weather", {"city": "Paris"})},
         {"text": step("final_answer", {"answer": "Sunny."})}],
        query="Weather in Paris?",
        tools=[weather_tool()],
        model={**STRUCTURED, "mode": "completion"},
    )
    assert_clean_end(result)
    second = result.llm_requests[1]
    assert len(second["prompt_messages"]) == 1
    text = second["prompt_messages"][0]["content"]
    assert text.endswith("Observation: Sunny, 21 C\n")
    assert "Question: Weather in Paris?\n" + step("get_weather", {"city": "Paris"}) in text


def test_auto_uses_json_steps_for_a_model_with_a_json_schema_rule_as_dify_sends_it(run):
    """Dify's Agent node drops ``structured-output`` from the features it sends; a model whose
    plugin takes a ``json_schema`` parameter still constrains its decoding."""
    rule = {"name": "json_schema", "use_template": "json_schema", "label": {"en_US": "JSON Schema"}, "type": "text"}
    model = {"features": ["tool-call"], "parameter_rules": [rule]}
    result = react(run, [{"text": step("final_answer", {"answer": "Hi."})}], model=model)
    assert_clean_end(result)
    assert "structured_output_schema" in result.llm_requests[0]
    assert result.text == "Hi."


# --- a model that ignores the response format -----------------------------------------------------

FORCED = {"step_format": "json_schema"}


def thought_log(result, index=0):
    return [n for n in result.logs.values() if n.label.endswith("Thought")][index]


def test_a_model_that_writes_text_steps_has_its_call_run_and_its_answer_given(run):
    """Asked for JSON steps, the model writes text ReAct steps every time (Dify cannot parse them
    as JSON): the call runs and the answer is given, instead of three retries and "could not be
    understood"; the log says the step was read as text, and the model reads its own text back."""
    action = 'Thought: I need the weather.\nAction: get_weather\nAction Input: {"city": "Paris"}'
    result = react(
        run,
        [{"text": action, "split": 9},
         {"text": "Thought: I have it.\nFinal Answer: Sunny in Paris, 21 C.", "split": 9}],
        query="Weather in Paris?",
        tools=[weather_tool()],
        model=PLAIN,
        params=FORCED,
    )
    assert_clean_end(result)
    assert result.text == "Sunny in Paris, 21 C."
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    assert len(result.llm_requests) == 2 and all("structured_output_schema" in r for r in result.llm_requests)
    assert thought_log(result, 0).data["read_as"] == "text"
    assert thought_log(result, 1).data["read_as"] == "text"
    messages = result.llm_requests[1]["prompt_messages"]
    assert [m["content"] for m in messages if m["role"] == "assistant"] == [action]
    assert "Observation: Sunny, 21 C" in prompt_text(result.llm_requests[1])


def test_a_json_step_after_a_text_step_is_read_as_json(run):
    result = react(
        run,
        [{"text": 'Action: get_weather\nAction Input: {"city": "Oslo"}'},
         {"text": step("final_answer", {"answer": "Cold in Oslo."}), "split": 6}],
        tools=[weather_tool()],
        model=STRUCTURED,
    )
    assert_clean_end(result)
    assert result.text == "Cold in Oslo."
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Oslo"}]
    assert thought_log(result, 0).data["read_as"] == "text" and "read_as" not in thought_log(result, 1).data


def test_a_final_answer_object_without_an_answer_key_is_the_answer(run):
    result = react(run, [{"text": step("Final Answer", {"city": "Paris"})}], tools=[weather_tool()], model=STRUCTURED)
    assert_clean_end(result)
    assert json.loads(result.text) == {"city": "Paris"}
    assert result.tool_requests == []


# --- an answer the output limit cut, in JSON steps ------------------------------------------------

CUT_START = step("final_answer", {"answer": "The three laws are: one, two"})[:-3]


@pytest.mark.parametrize(
    "rest",
    [
        step("final_answer", {"answer": ", and three."}),  # a JSON step, as asked
        ", and three.",  # the rest as plain text: a model that ignores the format
        ', and three.\nAction: get_weather\nAction Input: {"city": "Paris"}',  # a call after the rest
    ],
)
def test_a_cut_json_answer_is_continued_and_never_run_as_a_call(run, rest):
    result = react(
        run,
        [{"text": CUT_START, "split": 5, "finish_reason": "length"}, {"text": rest}, {"text": step("final_answer", {"answer": "again"})}],
        query="List the laws.",
        tools=[weather_tool()],
        model=STRUCTURED,
    )
    assert_clean_end(result)
    assert result.text == "The three laws are: one, two, and three."
    assert result.tool_requests == [] and len(result.llm_requests) == 2
    assert prompts.CONTINUE_CUT_ANSWER in prompt_text(result.llm_requests[1])
