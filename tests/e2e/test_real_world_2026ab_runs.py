"""The twenty-seventh real-world pass's fix through the real plugin: Qwen3-Coder's call with its
``</parameter>`` and ``</function>`` left out, closed by ``</tool_call>`` alone (vLLM's hermes
parser left it in the content: vllm-project/vllm#21571), runs in Function Calling instead of the
model being asked again; cut before its envelope closes, it still runs nothing."""

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import answer_turn, assert_clean_end

CLOSED_BY_ENVELOPE = "<tool_call>\n<function=square_the_number>\n<parameter=input_num>\n1024\n\n\n</tool_call>"


def _square() -> ScriptedTool:
    return ScriptedTool(name="square_the_number", description="output the square of the number.",
                        parameters=[ToolParam("input_num", description="the number to square")],
                        responses=[text_message("1048576")])


def test_a_function_closed_by_its_envelope_alone_runs(run):
    result = run([{"text": CLOSED_BY_ENVELOPE, "split": 7}, answer_turn("function_calling", "1024 squared is 1048576.")],
                 query="Square the number 1024", tools=[_square()], strategy="function_calling")
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"input_num": "1024"}]
    assert result.text.strip().endswith("1024 squared is 1048576.")
    assert "<function" not in result.text and "tool_call" not in result.text


def test_the_same_call_cut_before_its_envelope_closes_runs_nothing(run):
    cut = "<tool_call>\n<function=square_the_number>\n<parameter=input_num>\n10"
    result = run([{"text": cut, "split": 7}, {"text": CLOSED_BY_ENVELOPE, "split": 7},
                  answer_turn("function_calling", "1048576.")],
                 query="Square the number 1024", tools=[_square()], strategy="function_calling")
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"input_num": "1024"}]
    assert "<function" not in result.text
