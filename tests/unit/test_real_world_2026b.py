"""A second set of real-world model outputs, quoted from public bug reports, pull requests and
parser tests, through both strategies' turn readers (``test_real_world_2026`` drives them: the text
whole and in pieces of 1 and 7 characters, the reasoning sent first as ``reasoning_content``).

Each case names its source beside it; docs/real-world-cases.md lists them by id. Outputs are
quoted as the source shows them; where a case is shortened or rebuilt from a format the source
documents, its comment says so.
"""

import pytest

from tests.unit.test_real_world_2026 import WEATHER, Case, check, read, tool

HUNYUAN_THINK, HUNYUAN_ANSWER, HUNYUAN_END = "<think>\n", "\n</think>\n<answer>\n", "\n</answer>"
"""Hunyuan-A13B's frame: its reasoning in ``<think>``, its reply in ``<answer>`` (vLLM's
``hunyuan_a13b`` reasoning parser and its test, tests/reasoning/test_hunyuan_reasoning_parser.py)."""

CASES = {
    # ---- Hunyuan-A13B (tencent): <think>...</think> then <answer>...</answer> -------------------
    # vllm-project/vllm PR #20625 (tests/reasoning/test_hunyuan_reasoning_parser.py, SIMPLE_REASONING):
    # served without the hunyuan_a13b reasoning parser, the whole frame is in the content
    "vllm20625-hunyuan-think-answer-frame": Case(
        (WEATHER,),
        f"{HUNYUAN_THINK}This is a reasoning section{HUNYUAN_ANSWER}This is the rest{HUNYUAN_END}",
        answer="This is the rest",
        hidden=("answer>", "reasoning section"),
    ),
    # the same test's NO_REASONING_QUICK_THOUGHT: the fast-thinking form, an empty <think> block
    "vllm20625-hunyuan-quick-thought": Case(
        (WEATHER,),
        f"{HUNYUAN_THINK}{HUNYUAN_ANSWER}This is the rest{HUNYUAN_END}",
        answer="This is the rest",
        hidden=("answer>", "think>"),
    ),
    # vllm-project/vllm#58127: streaming under the reasoning parser, the reasoning comes apart and
    # the opening tags are dropped, but the closing "\n</answer>" leaks into the content
    "vllm58127-hunyuan-answer-end-leaks": Case(
        (WEATHER,),
        "This is the rest\n</answer>",
        reasoning="This is a reasoning section",
        answer="This is the rest",
        hidden=("answer>",),
    ),
    # the same leak after a quick thought: no reasoning at all, only the closing tag left
    "vllm58127-hunyuan-quick-thought-answer-end-leaks": Case(
        (WEATHER,),
        "This is the rest\n</answer>",
        answer="This is the rest",
        hidden=("answer>",),
    ),
    # sgl-project/sglang PR #7678: Hunyuan "additionally wraps its final responses in <answer>...
    # </answer>", which a DeepSeek-R1/Qwen3-style reasoning parser leaves in the content after it
    # took the <think> block out (the reply rebuilt from the vLLM test's strings)
    "sglang7678-hunyuan-answer-frame-after-reasoning-content": Case(
        (WEATHER,),
        "<answer>\nThis is the rest\n</answer>",
        reasoning="This is a reasoning section",
        answer="This is the rest",
        hidden=("answer>",),
    ),
    # vLLM's hunyuan_a13b tool parser test (tests/tool_parsers/test_hunyuan_a13b_tool_parser.py,
    # streaming case 3): the call in <tool_calls>, then the frame's end
    "vllm-hunyuan-tool-calls-then-answer-end": Case(
        (WEATHER,),
        '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Boston"}}]</tool_calls>\n</answer>',
        calls=[("get_weather", {"city": "Boston"})],
    ),
    # the same call inside the whole frame, as Hunyuan writes it without a reasoning parser
    "vllm-hunyuan-tool-calls-in-answer-frame": Case(
        (WEATHER,),
        f"{HUNYUAN_THINK}The user wants the weather in Boston.{HUNYUAN_ANSWER}"
        '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Boston"}}]</tool_calls>' + HUNYUAN_END,
        calls=[("get_weather", {"city": "Boston"})],
    ),
    # the tool parser test's "content before tool call" case, with a nested object
    "vllm-hunyuan-content-before-tool-calls": Case(
        (WEATHER,),
        'I will call the tool now. <tool_calls>[{"name": "get_weather", "arguments": {"city": "Boston"}}]</tool_calls>',
        calls=[("get_weather", {"city": "Boston"})],
    ),
    "vllm-hunyuan-two-calls-nested-arguments": Case(
        (tool("get_weather", "city", "metric"), tool("register_user", "name", "age", "address", "role", "passed_test", "aliases")),
        '<tool_calls>[{"name": "get_weather", "arguments": {"city": "San Francisco", "metric": "celsius"}}, '
        '{"name": "register_user", "arguments": {"name": "John Doe", "age": 37, "address": {"city": "San Francisco", '
        '"state": "CA"}, "role": null, "passed_test": true, "aliases": ["John", "Johnny"]}}]</tool_calls>',
        calls=[
            ("get_weather", {"city": "San Francisco", "metric": "celsius"}),
            ("register_user", {"name": "John Doe", "age": 37, "address": {"city": "San Francisco", "state": "CA"},
                               "role": None, "passed_test": True, "aliases": ["John", "Johnny"]}),
        ],
    ),
    # a ReAct step in Hunyuan's frame (its format around the step ReAct asks for)
    "hunyuan-react-step-in-answer-frame": Case(
        (WEATHER,),
        f"{HUNYUAN_THINK}I need the weather.{HUNYUAN_ANSWER}Thought: I need the weather in Boston.\n"
        'Action: get_weather\nAction Input: {"city": "Boston"}' + HUNYUAN_END,
        calls=[("get_weather", {"city": "Boston"})],
        only=("react",),
    ),
    "hunyuan-react-answer-in-answer-frame": Case(
        (WEATHER,),
        f"{HUNYUAN_THINK}Easy.{HUNYUAN_ANSWER}Thought: I know this.\nFinal Answer: 2 + 2 = 4.{HUNYUAN_END}",
        answer="2 + 2 = 4.",
        only=("react",),
        hidden=("answer>", "Easy."),
    ),
}


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("strategy", ["react", "fc"])
@pytest.mark.parametrize("name", list(CASES))
def test_real_world_reply(name, strategy, size):
    case = CASES[name]
    if strategy not in case.only:
        pytest.skip("not this strategy's case")
    streamed, turn = read(strategy, case, size)
    check(strategy, case, streamed, turn)
