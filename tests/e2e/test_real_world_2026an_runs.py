"""The thirty-ninth real-world pass (the Chinese ecosystem) through the real plugin, in both
strategies (see tests/unit/test_real_world_2026an.py for the shapes and sources). A Qwen3-Coder
call whose tags stand apart by spaces (agentscope-ai/QwenPaw#2813) reaches the tool with the
path as written, not padded with spaces; Kimi K2.5's ids written without their ``.`` and ``:``
(sgl-project/sglang PR #21377) and K2's OpenAI-style id with the tool named in the arguments
(vllm-project/vllm PR #32146) run the declared tool; Qwen2.5's Hermes call with a Chinese
argument (labring/FastGPT#4675) runs it as written; and Kimi K2.5's ``<|im_end|>``
(smg-project/smg#1111) is kept out of the answer."""

import pytest

from tests.e2e.real_world import Reply, Tool, play_reply, reply_params

CASES = [
    # agentscope-ai/QwenPaw#2813: a spaced Qwen3-Coder call reaches the tool with the path as written
    Reply("a-spaced-qwen3-coder-call-reaches-the-tool-with-the-path-as-written",
          "<tool_call> <function=read_file> <parameter=file_path> SOUL.md </parameter> </function> </tool_call>", 7,
          "Read SOUL.md", "SOUL.md describes the agent.", tools=(Tool("read_file", ("file_path",)),),
          calls=(("read_file", {"file_path": "SOUL.md"}),), hidden=("<function",)),
    # sgl-project/sglang PR #21377: Kimi K2.5's ids without dot and colon run the declared tool
    Reply("kimi-k25-ids-without-dot-and-colon-run-the-declared-tool",
          ('<|tool_calls_section_begin|><|tool_call_begin|>functionsexec5<|tool_call_argument_begin|>'
           '{"command": "ls -la ~/.claude"}<|tool_call_end|><|tool_call_begin|>functionsexec6'
           '<|tool_call_argument_begin|>{"command": "ls -la ~/.config/claude-code"}<|tool_call_end|>'
           "<|tool_calls_section_end|>"), 5,
          "Back up the Claude Code config", "Both folders are listed.",
          tools=(Tool("exec", ("command",), ("done", "done")),),
          calls=(("exec", {"command": "ls -la ~/.claude"}), ("exec", {"command": "ls -la ~/.config/claude-code"})),
          hidden=("functionsexec", "<|")),
    # vllm-project/vllm PR #32146: Kimi's OpenAI-style id runs the tool the arguments name
    Reply("kimi-openai-style-id-runs-the-tool-the-arguments-name",
          ("<|tool_calls_section_begin|><|tool_call_begin|>call_abc123def456<|tool_call_argument_begin|>"
           '{"name": "list_files", "path": "/home"}<|tool_call_end|><|tool_calls_section_end|>'), 7,
          "What is in /home?", "/home holds two folders.", tools=(Tool("list_files", ("path",)),),
          calls=(("list_files", {"path": "/home"}),), hidden=("call_abc123",)),
    # labring/FastGPT#4675: Qwen2.5's Hermes call with a Chinese argument runs
    Reply("qwen25-hermes-call-with-a-chinese-argument-runs",
          '<tool_call>\n{"name": "qrmlzD", "arguments": {"city": "杭州"}}\n</tool_call>', 3,
          "杭州天气怎么样", "杭州今天晴。", tools=(Tool("qrmlzD", ("city",)),),
          calls=(("qrmlzD", {"city": "杭州"}),), hidden=("<tool_call>",)),
    # smg-project/smg#1111: Kimi K2.5's <|im_end|> is kept out of the answer
    Reply("kimi-k25-im-end-is-kept-out-of-the-answer", "It is 72°F and sunny in NYC.<|im_end|>", 4,
          "What is the weather in NYC?", "It is 72°F and sunny in NYC.", framed=True),
]


@pytest.mark.parametrize(("case", "strategy"), reply_params(CASES))
def test_real_world_reply_through_the_plugin(run, case, strategy):
    play_reply(run, strategy, case)
