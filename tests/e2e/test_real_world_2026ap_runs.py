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

from tests.e2e.real_world import Reply, Tool, play_reply, reply_params

GLM46_ANSWER = "The current time is **2:30:36 PM** (14:30:36) on Friday, December 19, 2025."

CASES = [
    # ggml-org/llama.cpp#27661: a Qwen call split at the reasoning end reaches the tool once
    Reply("a-qwen-call-split-at-the-reasoning-end-reaches-the-tool-once",
          ("<think>\nI need the weather.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n"
           "</parameter>\n</think>\n\n</function>\n</tool_call>"), 7,
          "Weather in Paris?", "Paris is sunny.", tools=(Tool("get_weather", ("city",)),),
          calls=(("get_weather", {"city": "Paris"}),), hidden=("</function>",)),
    # ikawrakow/ik_llama.cpp#942: a Kimi thinking section split at its end runs
    Reply("a-kimi-thinking-section-split-at-its-end-runs",
          ("<think>First the manifest. <|tool_calls_section_begin|><|tool_call_begin|>functions.read_file:0"
           '<|tool_call_argument_begin|>{"path": "Cargo.toml"}<|tool_call_end|></think><|tool_calls_section_end|>'), 5,
          "What is the crate called?", "The crate is named demo.", tools=(Tool("read_file", ("path",)),),
          calls=(("read_file", {"path": "Cargo.toml"}),), hidden=("<|",)),
    # vllm-project/vllm PR #28139: a gpt-oss call in the analysis channel runs
    Reply("a-gpt-oss-call-in-the-analysis-channel-runs",
          ("<|channel|>analysis<|message|>Need the weather in Berlin.<|end|><|start|>assistant<|channel|>analysis "
           'to=functions.get_weather <|constrain|>json<|message|>{"city":"Berlin"}<|call|>'), 6,
          "Weather in Berlin?", "Berlin is cloudy.", tools=(Tool("get_weather", ("city",)),),
          calls=(("get_weather", {"city": "Berlin"}),), hidden=("<|channel|>",)),
    # ogx-ai/ogx#4414: GLM-4.6's think block before the answer stays out of it
    Reply("glm46-think-block-before-the-answer-stays-out-of-it",
          ("<think>The function returned the current time in European/Vienna timezone.\n\nI should present this "
           f"information in a clear, user-friendly format.</think>\n{GLM46_ANSWER}"), 9,
          "What time is it?", GLM46_ANSWER),
    # CherryHQ/cherry-studio#4900: a call drafted in the reasoning before an answer never runs
    Reply("a-call-drafted-in-the-reasoning-before-an-answer-never-runs",
          "HTTP 404 means the server could not find the page.", 8,
          "What does HTTP 404 mean?", "HTTP 404 means the server could not find the page.",
          tools=(Tool("fetch", ("url",)),), framed=True,
          before=('<think>I could fetch the page: <tool_use>\n  <name>fetch</name>\n  <arguments>{"url": '
                  '"https://example.com"}</arguments>\n</tool_use>\nBut the question is general; no need.</think>\n\n')),
]


@pytest.mark.parametrize(("case", "strategy"), reply_params(CASES))
def test_real_world_reply_through_the_plugin(run, case, strategy):
    play_reply(run, strategy, case)
