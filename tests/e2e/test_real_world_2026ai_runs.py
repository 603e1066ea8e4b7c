"""The thirty-fourth real-world pass through the real plugin. Muse Glimmer's ATEM call block
written after a sentence with no channel header (sgl-project/sglang PR #34577) runs (both
strategies had asked again, calling the markup unreadable); Qwen2.5-Coder's parallel calls as an
array in ``<tools>`` (vllm-project/vllm PR #33083) both run (Function Calling had asked again);
an answer in ``<final>`` after a think block (sipeed/picoclaw#1235) is shown without its tags
(both had shown them); and two shapes that already worked stay so: Kimi K2's JSON call between
its call tokens (NousResearch/hermes-agent PR #29735), and a Hermes call written inside the think
block and again after it, which runs once (verl-project/verl#4757)."""

import pytest

from tests.e2e.real_world import Reply, Tool, play_reply, reply_params

WEATHER = Tool("get_weather", ("city",), ("Sunny, 21 C",))

CASES = [
    # sgl-project/sglang PR #34577: a Glimmer ATEM block after a sentence runs
    Reply("a-glimmer-atem-block-after-a-sentence-runs",
          ("I'll check the current weather for Paris.\n<atem:function_calls>\n"
           '<atem:invoke name="get_weather">\n<atem:parameter name="city">Paris</atem:parameter>\n'
           "</atem:invoke>\n</atem:function_calls>"), 7,
          "Weather in Paris?", "Paris: sunny, 21 C.", tools=(WEATHER,),
          calls=(("get_weather", {"city": "Paris"}),), hidden=("atem",)),
    # vllm-project/vllm PR #33083: Qwen2.5-Coder's array of calls in a tools tag runs both
    Reply("qwen25-coders-array-of-calls-in-a-tools-tag-runs-both",
          ('<tools>\n[{"name": "get_weather", "arguments": {"city": "Paris"}}, '
           '{"name": "get_time", "arguments": {"city": "Paris"}}]\n</tools>'), 7,
          "Weather and time in Paris?", "Sunny, 21 C, and it is noon.", tools=(WEATHER, Tool("get_time", ("city",))),
          calls=(("get_weather", {"city": "Paris"}), ("get_time", {"city": "Paris"})), unordered=True,
          hidden=("<tools>",)),
    # sipeed/picoclaw#1235: an answer in a final frame after reasoning is shown without the tags
    Reply("an-answer-in-a-final-frame-after-reasoning-is-shown-without-the-tags",
          "<think>internal reasoning</think><final>The answer is 2</final>", 7,
          "What is 1 + 1?", "The answer is 2", tools=(WEATHER,)),
    # NousResearch/hermes-agent PR #29735: Kimi K2's JSON call between its call tokens runs
    Reply("kimi-k2s-json-call-between-its-call-tokens-runs",
          ('<|tool_calls_section_begin|><|tool_call_begin|>{"name": "get_weather", "arguments": {"city": "Paris"}}'
           "<|tool_call_end|><|tool_calls_section_end|>"), 7,
          "Weather in Paris?", "Paris: sunny, 21 C.", tools=(WEATHER,),
          calls=(("get_weather", {"city": "Paris"}),), hidden=("<|",)),
    # verl-project/verl#4757: a call in the think block and again after it runs once
    Reply("a-call-in-the-think-block-and-again-after-it-runs-once",
          ("<think> \nthis is just my reasoning.. let me call tool A \n"
           '<tool_call>{"name": "A", "arguments": {}}</tool_call> \n'
           "it will give me result which i will in my analysis\n</think>\n"
           '<tool_call>{"name": "A", "arguments": {}}</tool_call>'), 7,
          "Run A.", "A says done.", tools=(Tool("A"),), calls=(("A", {}),), hidden=("my reasoning", "tool_call")),
]


@pytest.mark.parametrize(("case", "strategy"), reply_params(CASES))
def test_real_world_reply_through_the_plugin(run, case, strategy):
    play_reply(run, strategy, case)
