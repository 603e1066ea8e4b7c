"""Replies with ``\\r\\n`` line ends and a byte order mark at their start (a gateway hosted on
Windows, some chat templates) through the real plugin process: the call runs with its
arguments, the user sees the answer with plain line ends, and the model gets its own message
back as sent (docs/model-round-trip.md)."""

from tests.e2e.helpers import assert_clean_end, weather_tool

QWEN_CALL = (
    "\ufeffLet me check.\r\n<tool_call>\r\n<function=get_weather>\r\n<parameter=city>\r\nParis\r\n"
    "</parameter>\r\n</function>\r\n</tool_call>"
)


def test_function_calling_call_written_with_windows_line_ends_runs_and_goes_back_as_sent(run):
    turns = [{"text": QWEN_CALL, "split": 1}, {"text": "\ufeffSunny in Paris.\r\nEnjoy!\r\n", "split": 3}]
    result = run(turns, tools=[weather_tool()])
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    assert result.text.strip() == "Let me check.\n\nSunny in Paris.\nEnjoy!"  # the sentence before the call too
    replayed = [m for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "assistant"]
    assert replayed[0]["content"] == QWEN_CALL


def test_react_step_written_with_windows_line_ends_runs_and_its_answer_shows_plain_lines(run):
    step = '\ufeffThought: I need the weather.\r\nAction: get_weather\r\nAction Input: {"city": "Paris"}\r\n'
    answer = "\ufeffThought: I know it.\r\nFinal Answer: Sunny in Paris.\r\nEnjoy!\r\n"
    result = run([{"text": step, "split": 1}, {"text": answer, "split": 7}], strategy="ReAct", tools=[weather_tool()])
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    assert result.text.strip() == "Sunny in Paris.\nEnjoy!"
    assert "\ufeff" not in result.text
