"""The thirty-ninth real-world pass (the Chinese ecosystem) through the real plugin, in both
strategies (see tests/unit/test_real_world_2026an.py for the shapes and sources). A Qwen3-Coder
call whose tags stand apart by spaces (agentscope-ai/QwenPaw#2813) reaches the tool with the
path as written, not padded with spaces; Kimi K2.5's ids written without their ``.`` and ``:``
(sgl-project/sglang PR #21377) and K2's OpenAI-style id with the tool named in the arguments
(vllm-project/vllm PR #32146) run the declared tool; Qwen2.5's Hermes call with a Chinese
argument (labring/FastGPT#4675) runs it as written; and Kimi K2.5's ``<|im_end|>``
(smg-project/smg#1111) is kept out of the answer."""

import pytest

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean, assert_clean_end


def _tool(name: str, param: str, outputs: int = 1) -> ScriptedTool:
    return ScriptedTool(name=name, description=name, parameters=[ToolParam(param, description=param)],
                        responses=[text_message("done") for _ in range(outputs)])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_spaced_qwen3_coder_call_reaches_the_tool_with_the_path_as_written(run, strategy):
    reply = "<tool_call> <function=read_file> <parameter=file_path> SOUL.md </parameter> </function> </tool_call>"
    turns = [{"text": reply, "split": 7}, answer_turn(strategy, "SOUL.md describes the agent.")]
    result = run(turns, query="Read SOUL.md", tools=[_tool("read_file", "file_path")], strategy=strategy)
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"file_path": "SOUL.md"}]
    assert result.text.endswith("SOUL.md describes the agent.") and "<function" not in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_kimi_k25_ids_without_dot_and_colon_run_the_declared_tool(run, strategy):
    reply = ('<|tool_calls_section_begin|><|tool_call_begin|>functionsexec5<|tool_call_argument_begin|>'
             '{"command": "ls -la ~/.claude"}<|tool_call_end|><|tool_call_begin|>functionsexec6'
             '<|tool_call_argument_begin|>{"command": "ls -la ~/.config/claude-code"}<|tool_call_end|>'
             "<|tool_calls_section_end|>")
    turns = [{"text": reply, "split": 5}, answer_turn(strategy, "Both folders are listed.")]
    result = run(turns, query="Back up the Claude Code config", tools=[_tool("exec", "command", 2)], strategy=strategy)
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == [
        {"command": "ls -la ~/.claude"}, {"command": "ls -la ~/.config/claude-code"}]
    assert "functionsexec" not in result.text and "<|" not in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_kimi_openai_style_id_runs_the_tool_the_arguments_name(run, strategy):
    reply = ("<|tool_calls_section_begin|><|tool_call_begin|>call_abc123def456<|tool_call_argument_begin|>"
             '{"name": "list_files", "path": "/home"}<|tool_call_end|><|tool_calls_section_end|>')
    turns = [{"text": reply, "split": 7}, answer_turn(strategy, "/home holds two folders.")]
    result = run(turns, query="What is in /home?", tools=[_tool("list_files", "path")], strategy=strategy)
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"path": "/home"}]
    assert result.text.endswith("/home holds two folders.") and "call_abc123" not in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_qwen25_hermes_call_with_a_chinese_argument_runs(run, strategy):
    reply = '<tool_call>\n{"name": "qrmlzD", "arguments": {"city": "杭州"}}\n</tool_call>'
    turns = [{"text": reply, "split": 3}, answer_turn(strategy, "杭州今天晴。")]
    result = run(turns, query="杭州天气怎么样", tools=[_tool("qrmlzD", "city")], strategy=strategy)
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "杭州"}]
    assert result.text.endswith("杭州今天晴。") and "<tool_call>" not in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_kimi_k25_im_end_is_kept_out_of_the_answer(run, strategy):
    reply = answer_turn(strategy, "It is 72°F and sunny in NYC.<|im_end|>")
    result = run([{**reply, "split": 4}], query="What is the weather in NYC?", strategy=strategy)
    assert_clean_end(result)
    assert result.text.strip() == "It is 72°F and sunny in NYC."
