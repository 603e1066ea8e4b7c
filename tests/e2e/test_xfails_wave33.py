"""Through the real plugin process: MiniMax M2.x writing its call with every tag's ``<`` and
``</`` left out and no ``<minimax:tool_call>`` around it (exo-explore/exo#1882; a server that
drops special tokens drops the wrapper too). The call runs in both strategies, the user never
sees the markup, and the model reads the result on the next round; the same text shown as code
in an answer stays the answer, and nothing runs."""

import pytest

from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean, observations, weather_tool

ANGLELESS = 'invoke name="get_weather">\nparameter name="city">Osloparameter>\ninvoke>'


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_minimax_call_without_angle_brackets_or_wrapper_runs_and_is_never_shown(run, strategy):
    turns = [{"text": ANGLELESS, "split": 5}, answer_turn(strategy, "It is sunny in Oslo.")]
    result = run(turns, query="Weather in Oslo?", tools=[weather_tool()], strategy=strategy)
    assert_clean(result, run)
    assert [request["tool_parameters"] for request in result.tool_requests] == [{"city": "Oslo"}]
    assert observations(result.llm_requests[1]) == ["Sunny, 21 C"]
    assert result.text == "It is sunny in Oslo."


def test_function_calling_streams_the_sentence_before_the_angleless_call_and_holds_the_call(run):
    turns = [{"text": "I'll check the weather.\n\n" + ANGLELESS, "split": 3}, answer_turn("function_calling", "Sunny.")]
    result = run(turns, query="Weather in Oslo?", tools=[weather_tool()])
    assert_clean(result, run)
    assert [request["tool_parameters"] for request in result.tool_requests] == [{"city": "Oslo"}]
    assert result.text.startswith("I'll check the weather.") and result.text.endswith("Sunny.")
    assert "invoke" not in result.text and "parameter" not in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_angleless_call_shown_in_a_fence_is_the_answer(run, strategy):
    text = f"MiniMax printed this instead of calling the tool:\n\n```\n{ANGLELESS}\n```"
    reply = text if strategy == "function_calling" else f"Thought: I can answer.\nFinal Answer: {text}"
    result = run([{"text": reply, "split": 4}], query="What did MiniMax print?", tools=[weather_tool()], strategy=strategy)
    assert_clean(result, run)
    assert result.tool_requests == []
    assert result.text == text
    assert len(result.llm_requests) == 1
