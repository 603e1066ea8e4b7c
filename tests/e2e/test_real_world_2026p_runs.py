"""The fifteenth real-world pass's fixes through the real plugin, in both strategies: a
MiniMax-M2 call whose ``</parameter>`` the model left out (Ollama's MiniMax-M2 parser test) runs
with the value written before ``</invoke>``, and a GLM-4.7 argument whose JSON has its quotes
escaped once (SGLang's GLM-4.7 detector test) reaches the tool as the JSON it holds."""

import json

import pytest

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import answer_turn, assert_clean_end, weather_tool


@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
def test_a_minimax_parameter_left_open_runs_with_its_value(run, strategy):
    call = ('<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Tokyo</invoke>\n'
            "</minimax:tool_call>")
    result = run([{"text": call, "split": 5}, answer_turn(strategy, "Sunny in Tokyo.")],
                 query="Weather in Tokyo?", tools=[weather_tool()], strategy=strategy)
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Tokyo"}]
    assert result.text == "Sunny in Tokyo."
    assert "invoke" not in result.text


@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
def test_a_glm_argument_with_escaped_json_reaches_the_tool_as_json(run, strategy):
    todos = [{"id": "1", "task": "Check file at C:\\Users\\test.txt", "status": "pending"}]
    escaped = json.dumps(json.dumps(todos))[1:-1]  # the JSON as a JSON string's body
    call = f"<tool_call>todo_write<arg_key>todos</arg_key><arg_value>{escaped}</arg_value>\n</tool_call>"
    tool = ScriptedTool(name="todo_write", description="Write the todo list",
                        parameters=[ToolParam("todos", description="The todo list as JSON")],
                        responses=[text_message("saved")])
    result = run([{"text": call, "split": 7}, answer_turn(strategy, "Saved one todo.")],
                 query="Plan the review.", tools=[tool], strategy=strategy)
    assert_clean_end(result)
    [request] = result.tool_requests
    sent = request["tool_parameters"]["todos"]
    assert (json.loads(sent) if isinstance(sent, str) else sent) == todos
    assert result.text == "Saved one todo."
