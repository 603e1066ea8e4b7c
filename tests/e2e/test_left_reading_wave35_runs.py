"""Reading faults left by wave 34, through the real plugin: a Python dict whose string is an
escaped line break runs the tool with it; a model that continues a cut JSON step's string itself
does not show the step's closing; an invented ``Human:`` turn after LangChain's conversational
answer step does not reach the user."""

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import assert_clean, weather_tool

JSON_SCHEMA_RULES = [  # the OpenAI plugin's rules: ``auto`` then picks JSON steps
    {"name": "response_format", "label": {"en_US": "Response Format"}, "type": "string", "options": ["text", "json_object", "json_schema"]},
    {"name": "json_schema", "use_template": "json_schema", "label": {"en_US": "JSON Schema"}, "type": "text"},
]
JSON_STEPS = {"completion_params": {}, "features": ["tool-call"], "parameter_rules": JSON_SCHEMA_RULES}


def test_a_python_dict_holding_an_escaped_line_break_runs_the_tool_with_a_line_break(run):
    terminal = ScriptedTool(name="terminal", description="Type keys", parameters=[ToolParam("q")],
                            responses=[text_message("ok")])
    result = run(
        [{"text": "Thought: press enter\nAction: terminal\nAction Input: {'q': '\\n'}"},
         {"text": "Thought: done\nFinal Answer: Pressed."}],
        tools=[terminal],
        strategy="ReAct",
    )
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"q": "\n"}]
    assert result.text == "Pressed."


def test_a_continuation_that_closes_the_cut_json_step_shows_only_the_answers_rest(run):
    cut = '{"action": "final_answer", "action_input": {"answer": "Paris is the capital of'
    result = run(
        [{"text": cut, "finish_reason": "length"}, {"text": ' France, on the \\"Seine\\"."}}', "split": 4}],
        query="Capital of France?",
        tools=[weather_tool()],
        strategy="ReAct",
        model=JSON_STEPS,
    )
    assert_clean(result, run)
    assert result.text == 'Paris is the capital of France, on the "Seine".'
    assert "structured_output_schema" in result.llm_requests[0], "the run used JSON steps"


def test_a_continuation_that_closes_a_fenced_cut_step_drops_its_fence_too(run):
    cut = '```json\n{"action": "final_answer", "action_input": "Paris is the capital of'
    result = run(
        [{"text": cut, "finish_reason": "length"}, {"text": ' France."}\n```'}],
        tools=[weather_tool()],
        strategy="ReAct",
        model=JSON_STEPS,
    )
    assert_clean(result, run)
    assert result.text == "Paris is the capital of France."


def test_a_continuation_whose_end_is_not_what_the_cut_left_open_is_shown_as_written(run):
    cut = '{"action": "final_answer", "action_input": {"answer": "Paris is the capital of'
    result = run(
        [{"text": cut, "finish_reason": "length"}, {"text": ' France."}'}],  # one brace short
        tools=[weather_tool()],
        strategy="ReAct",
        model=JSON_STEPS,
    )
    assert_clean(result, run)
    assert result.text == 'Paris is the capital of France."}'


def test_an_invented_human_turn_after_the_conversational_answer_is_not_shown(run):
    reply = "Do I need to use a tool? No\nAI: Paris is the capital of France.\nHuman: And of Germany?\nAI: Berlin."
    result = run([{"text": reply, "split": 5}], query="Capital of France?", strategy="ReAct")
    assert_clean(result, run)
    assert result.text == "Paris is the capital of France."


def test_a_conversational_answer_cut_inside_its_invented_human_turn_is_whole(run):
    reply = "Thought: Do I need to use a tool? No\nAI: Paris is the capital of France.\n\nHuman: And of Germ"
    result = run([{"text": reply, "finish_reason": "length"}], query="Capital of France?", strategy="ReAct")
    assert_clean(result, run)
    assert result.text == "Paris is the capital of France."
    assert len(result.llm_requests) == 1, "a whole answer is not continued"
