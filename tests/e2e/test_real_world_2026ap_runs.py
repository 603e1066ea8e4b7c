"""The forty-first real-world pass (tool calls and reasoning together) through the real plugin,
in both strategies (see tests/unit/test_real_world_2026ap.py for the shapes and sources). Model
plugins hand ``reasoning_content`` on as a ``<think>`` block in the content, so a call the server
split at a ``</think>`` the model wrote inside it (ggml-org/llama.cpp#27661) arrives with the
block's end inside the call: it reaches the tool once, its closing tags never shown. Kimi K2
Thinking's section split the same way (ikawrakow/ik_llama.cpp#942) runs; gpt-oss's call in its
analysis channel (vllm-project/vllm PR #28139) runs; GLM-4.6's think block before its answer
(ogx-ai/ogx#4414) stays out of the answer; and a call DeepSeek R1 drafted in its reasoning before
answering (CherryHQ/cherry-studio#4900) never runs."""

import pytest

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean, assert_clean_end


def _tool(name: str, param: str, outputs: int = 1) -> ScriptedTool:
    return ScriptedTool(name=name, description=name, parameters=[ToolParam(param, description=param)],
                        responses=[text_message("done") for _ in range(outputs)])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_qwen_call_split_at_the_reasoning_end_reaches_the_tool_once(run, strategy):
    reply = ("<think>\nI need the weather.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n"
             "</parameter>\n</think>\n\n</function>\n</tool_call>")
    turns = [{"text": reply, "split": 7}, answer_turn(strategy, "Paris is sunny.")]
    result = run(turns, query="Weather in Paris?", tools=[_tool("get_weather", "city")], strategy=strategy)
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    assert result.text.endswith("Paris is sunny.") and "</function>" not in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_kimi_thinking_section_split_at_its_end_runs(run, strategy):
    reply = ("<think>First the manifest. <|tool_calls_section_begin|><|tool_call_begin|>functions.read_file:0"
             '<|tool_call_argument_begin|>{"path": "Cargo.toml"}<|tool_call_end|></think><|tool_calls_section_end|>')
    turns = [{"text": reply, "split": 5}, answer_turn(strategy, "The crate is named demo.")]
    result = run(turns, query="What is the crate called?", tools=[_tool("read_file", "path")], strategy=strategy)
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"path": "Cargo.toml"}]
    assert result.text.endswith("The crate is named demo.") and "<|" not in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_gpt_oss_call_in_the_analysis_channel_runs(run, strategy):
    reply = ("<|channel|>analysis<|message|>Need the weather in Berlin.<|end|><|start|>assistant<|channel|>analysis "
             'to=functions.get_weather <|constrain|>json<|message|>{"city":"Berlin"}<|call|>')
    turns = [{"text": reply, "split": 6}, answer_turn(strategy, "Berlin is cloudy.")]
    result = run(turns, query="Weather in Berlin?", tools=[_tool("get_weather", "city")], strategy=strategy)
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Berlin"}]
    assert result.text.endswith("Berlin is cloudy.") and "<|channel|>" not in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_glm46_think_block_before_the_answer_stays_out_of_it(run, strategy):
    answer = "The current time is **2:30:36 PM** (14:30:36) on Friday, December 19, 2025."
    reply = ("<think>The function returned the current time in European/Vienna timezone.\n\nI should present this "
             f"information in a clear, user-friendly format.</think>\n{answer}")
    result = run([{"text": reply, "split": 9}], query="What time is it?", strategy=strategy)
    assert_clean_end(result)
    assert result.text.strip() == answer


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_call_drafted_in_the_reasoning_before_an_answer_never_runs(run, strategy):
    answer = "HTTP 404 means the server could not find the page."
    reply = ('<think>I could fetch the page: <tool_use>\n  <name>fetch</name>\n  <arguments>{"url": '
             '"https://example.com"}</arguments>\n</tool_use>\nBut the question is general; no need.</think>\n\n'
             + answer_turn(strategy, answer)["text"])
    result = run([{"text": reply, "split": 8}], query="What does HTTP 404 mean?", tools=[_tool("fetch", "url")],
                 strategy=strategy)
    assert_clean_end(result)
    assert result.tool_requests == [] and result.text.strip() == answer
