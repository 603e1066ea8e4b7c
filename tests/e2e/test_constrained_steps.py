"""ReAct with constrained steps (``step_format``) through the real plugin process: each step is
a JSON object decoded against a schema built from the node's tools, asked for through Dify's
``llm_structured_output`` invocation; the runner answers it as Dify does (the model's chunks,
then a chunk carrying ``structured_output``, or an error when the reply is no JSON object)."""

import json

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
