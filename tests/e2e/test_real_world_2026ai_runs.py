"""The thirty-fourth real-world pass through the real plugin. Muse Glimmer's ATEM call block
written after a sentence with no channel header (sgl-project/sglang PR #34577) runs (both
strategies had asked again, calling the markup unreadable); Qwen2.5-Coder's parallel calls as an
array in ``<tools>`` (vllm-project/vllm PR #33083) both run (Function Calling had asked again);
an answer in ``<final>`` after a think block (sipeed/picoclaw#1235) is shown without its tags
(both had shown them); and two shapes that already worked stay so: Kimi K2's JSON call between
its call tokens (NousResearch/hermes-agent PR #29735), and a Hermes call written inside the think
block and again after it, which runs once (verl-project/verl#4757)."""

import pytest

from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end, named_tool, weather_tool


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_glimmer_atem_block_after_a_sentence_runs(run, strategy):
    reply = ("I'll check the current weather for Paris.\n<atem:function_calls>\n"
             '<atem:invoke name="get_weather">\n<atem:parameter name="city">Paris</atem:parameter>\n'
             "</atem:invoke>\n</atem:function_calls>")
    result = run([{"text": reply, "split": 7}, answer_turn(strategy, "Paris: sunny, 21 C.")],
                 query="Weather in Paris?", tools=[weather_tool()], strategy=strategy)
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    assert result.text.strip().endswith("Paris: sunny, 21 C.")
    assert "atem" not in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_qwen25_coders_array_of_calls_in_a_tools_tag_runs_both(run, strategy):
    reply = ('<tools>\n[{"name": "get_weather", "arguments": {"city": "Paris"}}, '
             '{"name": "get_time", "arguments": {"city": "Paris"}}]\n</tools>')
    result = run([{"text": reply, "split": 7}, answer_turn(strategy, "Sunny, 21 C, and it is noon.")],
                 query="Weather and time in Paris?", tools=[weather_tool(), named_tool("get_time", "city")],
                 strategy=strategy)
    assert_clean_end(result)
    assert sorted(r["tool"] for r in result.tool_requests) == ["get_time", "get_weather"]
    assert all(r["tool_parameters"] == {"city": "Paris"} for r in result.tool_requests)
    assert "<tools>" not in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_answer_in_a_final_frame_after_reasoning_is_shown_without_the_tags(run, strategy):
    reply = "<think>internal reasoning</think><final>The answer is 2</final>"
    result = run([{"text": reply, "split": 7}], query="What is 1 + 1?", tools=[weather_tool()], strategy=strategy)
    assert_clean_end(result)
    assert result.tool_requests == []
    assert result.text.strip() == "The answer is 2"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_kimi_k2s_json_call_between_its_call_tokens_runs(run, strategy):
    reply = ('<|tool_calls_section_begin|><|tool_call_begin|>{"name": "get_weather", "arguments": {"city": "Paris"}}'
             "<|tool_call_end|><|tool_calls_section_end|>")
    result = run([{"text": reply, "split": 7}, answer_turn(strategy, "Paris: sunny, 21 C.")],
                 query="Weather in Paris?", tools=[weather_tool()], strategy=strategy)
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    assert "<|" not in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_call_in_the_think_block_and_again_after_it_runs_once(run, strategy):
    reply = ("<think> \nthis is just my reasoning.. let me call tool A \n"
             '<tool_call>{"name": "A", "arguments": {}}</tool_call> \n'
             "it will give me result which i will in my analysis\n</think>\n"
             '<tool_call>{"name": "A", "arguments": {}}</tool_call>')
    result = run([{"text": reply, "split": 7}, answer_turn(strategy, "A says done.")],
                 query="Run A.", tools=[named_tool("A")], strategy=strategy)
    assert_clean_end(result)
    assert [r["tool"] for r in result.tool_requests] == ["A"]
    assert "my reasoning" not in result.text and "tool_call" not in result.text
