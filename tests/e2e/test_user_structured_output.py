"""The user's own structured output (``response_format: json_schema`` and ``json_schema`` in the
Agent node's model parameters) through the real plugin process: ReAct's steps go without it, so
tools are still called, and the final answer is JSON of the user's schema; Function Calling
passes it on (providers constrain only the text reply)."""

import json

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import assert_clean, prompt_text, weather_tool

WEATHER = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}, "sunny": {"type": "boolean"}},
    "required": ["city", "celsius", "sunny"],
    "additionalProperties": False,
}
USER_PARAMS = {
    "temperature": 0.1,
    "response_format": "json_schema",
    "json_schema": json.dumps({"name": "weather", "strict": True, "schema": WEATHER}),
}
JSON_SCHEMA_RULES = [  # what the OpenAI plugin declares: Dify's Agent node sends these, not the feature
    {"name": "response_format", "label": {"en_US": "Response Format"}, "type": "string", "options": ["text", "json_object", "json_schema"]},
    {"name": "json_schema", "use_template": "json_schema", "label": {"en_US": "JSON Schema"}, "type": "text"},
]
ANSWER = {"city": "Paris", "celsius": 21, "sunny": True}


def step(action, action_input):
    return json.dumps({"action": action, "action_input": action_input})


def carries_users_format(request) -> bool:
    params = request["completion_params"]
    return "json_schema" in params or "response_format" in params


def test_react_text_steps_call_the_tool_and_answer_in_the_users_schema(run):
    result = run(
        [{"text": 'Thought: I need the weather.\nAction: get_weather\nAction Input: {"city": "Paris"}'},
         {"text": 'Thought: I know it.\nFinal Answer: ```json\n{"city": "Paris", "celsius": 21, "sunny": true}\n```', "split": 9}],
        query="Weather in Paris?",
        tools=[weather_tool()],
        strategy="ReAct",
        model={"completion_params": USER_PARAMS, "features": []},
    )
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    assert json.loads(result.text) == ANSWER
    for request in result.llm_requests:
        assert not carries_users_format(request), "a step carrying the user's schema could only be the user's JSON"
        assert request["completion_params"]["temperature"] == 0.1
        assert "structured_output_schema" not in request
        assert '\\"celsius\\"' in prompt_text(request), "the prompt asks for the answer in the schema"
    thought = next(n for n in result.logs.values() if n.label.endswith("Thought"))
    assert thought.data["completion_params_left_out"] == ["json_schema", "response_format"]


def test_react_text_answer_off_the_schema_is_asked_again(run):
    result = run(
        [{"text": "Thought: easy.\nFinal Answer: It is sunny and 21 °C in Paris."},
         {"text": 'Final Answer: {"city": "Paris", "celsius": 21, "sunny": true}'}],
        query="Weather in Paris?",
        tools=[weather_tool()],
        strategy="ReAct",
        model={"completion_params": USER_PARAMS, "features": []},
    )
    assert_clean(result, run)
    assert json.loads(result.text) == ANSWER, "only the JSON answer is shown, not the prose one"
    retry = prompt_text(result.llm_requests[1])
    assert "does not follow the JSON schema" in retry and "not one JSON value" in retry


def test_react_json_steps_put_the_users_schema_in_the_final_answer_branch(run):
    """``auto`` picks JSON steps from the ``json_schema`` rule (as Dify sends an OpenAI model); the
    step schema replaces the user's on the request, and its final answer is the user's object
    (a boolean Dify sent the model as a string is read back)."""
    result = run(
        [{"text": step("get_weather", {"city": "Paris"})},
         {"text": step("final_answer", {"city": "Paris", "celsius": 21, "sunny": "true"}), "split": 6}],
        query="Weather in Paris?",
        tools=[weather_tool()],
        strategy="ReAct",
        model={"completion_params": USER_PARAMS, "features": ["tool-call"], "parameter_rules": JSON_SCHEMA_RULES},
    )
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    assert json.loads(result.text) == ANSWER
    for request in result.llm_requests:
        assert not carries_users_format(request)
        branches = {b["properties"]["action"]["enum"][0]: b for b in request["structured_output_schema"]["anyOf"]}
        assert branches["final_answer"]["properties"]["action_input"] == WEATHER
        assert "get_weather" in branches


def test_a_secret_the_user_pasted_into_the_schema_is_hidden_in_the_json_step_schema_too(run):
    """The user's schema went into the final-answer branch of the step schema as written, a
    secret-input value pasted into it included, while the prompt quoting the same schema had it
    hidden: the step schema sent to the model is redacted the same way."""
    secret = "SCHEMA-CANARY-51d0e2"
    vault = ScriptedTool(name="vault", description="Vault", parameters=[
        ToolParam("q"), ToolParam("token", type="secret-input", form="form")],
        runtime_parameters={"token": secret}, responses=[text_message("x")])
    schema = {"type": "object", "properties": {"city": {"type": "string", "description": f"use key {secret}"}}}
    params = {"response_format": "json_schema", "json_schema": json.dumps({"name": "w", "schema": schema})}
    result = run(
        [{"text": step("final_answer", {"city": "Paris"})}],
        tools=[weather_tool(), vault],
        strategy="ReAct",
        model={"completion_params": params, "features": ["structured-output"]},
    )
    assert_clean(result, run)
    assert json.loads(result.text) == {"city": "Paris"}
    (request,) = result.llm_requests
    branches = {b["properties"]["action"]["enum"][0]: b for b in request["structured_output_schema"]["anyOf"]}
    assert branches["final_answer"]["properties"]["action_input"]["properties"]["city"]["description"] == "use key [REDACTED]"
    assert secret not in json.dumps(request)


def test_react_json_steps_answer_round_at_the_limit_is_the_users_schema_alone(run):
    result = run(
        [{"text": step("get_weather", {"city": "Paris"})},
         {"text": step("final_answer", ANSWER)}],
        tools=[weather_tool()],
        strategy="ReAct",
        model={"completion_params": USER_PARAMS, "features": ["structured-output"]},
        maximum_iterations=1,
    )
    assert_clean(result, run)
    last = result.llm_requests[-1]["structured_output_schema"]
    assert [b["properties"]["action"]["enum"][0] for b in last["anyOf"]] == ["final_answer"]
    assert json.loads(result.text) == ANSWER


def test_function_calling_passes_the_users_structured_output_on(run):
    """OpenAI takes tools and ``response_format`` together: the calls still come, and the text
    reply is the user's JSON, streamed as it came."""
    content = json.dumps(ANSWER)
    result = run(
        [{"tool_calls": [{"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}]},
         {"text": content, "split": 8}],
        query="Weather in Paris?",
        tools=[weather_tool()],
        model={"completion_params": USER_PARAMS},
    )
    assert_clean(result, run)
    assert all(r["completion_params"]["json_schema"] == USER_PARAMS["json_schema"] for r in result.llm_requests)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    assert result.text == content


def test_an_unreadable_schema_is_noted_and_passed_on_as_set(run):
    broken = {"response_format": "json_schema", "json_schema": "{'type': 'object'"}
    result = run(
        [{"text": "Final Answer: Hello."}],
        strategy="ReAct",
        model={"completion_params": broken, "features": []},
    )
    assert_clean(result, run)
    assert result.llm_requests[0]["completion_params"]["json_schema"] == broken["json_schema"]
    notes = [n for n in result.logs.values() if n.label == "SETTING LEFT OUT"]
    assert any("json_schema" in str(n.data) and "not valid JSON" in str(n.data) for n in notes)
    assert result.text == "Hello."
