"""The twenty-ninth real-world pass's fixes through the real plugin: the line Hermes Agent shows
for a call, copied by a model into its reply (``[Calling tool: terminal with arguments: {...}]``:
EKKOLearnAI/hermes-studio#942), and Gemma's ``call:`` before a JSON call object
(tinyhumansai/openhuman PR #6346) run the tool in both strategies instead of the markup being
shown as the answer or asked again; the same line naming a tool the node lacks runs nothing."""

import pytest

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import answer_turn, assert_clean_end

CALL_LINE = '[Calling tool: terminal with arguments: {"command": "free -h"}]'
GEMMA_JSON = '<|tool_call>call:{"name": "terminal", "arguments": {"command": "free -h"}}<tool_call|>'


def _terminal() -> ScriptedTool:
    return ScriptedTool(name="terminal", description="run a shell command.",
                        parameters=[ToolParam("command", description="the command to run")],
                        responses=[text_message("Mem: 15Gi total, 9Gi free")])


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
@pytest.mark.parametrize("reply", [CALL_LINE, GEMMA_JSON], ids=["hermes-call-line", "gemma-call-json"])
def test_a_call_written_as_text_runs(run, strategy, reply):
    result = run([{"text": reply, "split": 7}, answer_turn(strategy, "9 GiB of memory is free.")],
                 query="How much memory is free?", tools=[_terminal()], strategy=strategy)
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"command": "free -h"}]
    assert result.text.strip().endswith("9 GiB of memory is free.")
    assert "Calling tool" not in result.text and "tool_call" not in result.text


def test_the_call_line_naming_another_tool_runs_nothing(run):
    line = '[Calling tool: deploy with arguments: {"env": "prod"}]'
    result = run([{"text": line, "split": 7}], query="Deploy it", tools=[_terminal()], strategy="function_calling")
    assert_clean_end(result)
    assert result.tool_requests == []
    assert result.text.strip() == line
