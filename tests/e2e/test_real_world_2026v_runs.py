"""The twenty-first real-world pass's fixes through the real plugin: K2 V3's call written with no
``<ifm|tool_calls>`` group runs (SGLang's ``k2_v3`` detector tests), a MiniMax-M2 value that quotes
``</parameter>`` reaches the tool whole (SGLang's MiniMax-M2 detector test), and Seed-OSS's
``<seed:cot_budget_reflect>`` note stays out of the answer (llama.cpp's Seed-OSS parser test)."""

import pytest

from tests.e2e.helpers import assert_clean_end, named_tool
from tests.e2e.real_world import Reply, Tool, play_reply, reply_params

WEATHER = Tool("get_weather", ("city",))


def _ifm_call(shape: str, reply: str) -> Reply:
    """A K2 V3 call with no ``<ifm|tool_calls>`` group, written in ``shape``."""
    return Reply(f"a-bare-ifm-call-runs-{shape}", reply, 7, "Weather in Tokyo?", "Sunny in Tokyo.", tools=(WEATHER,),
                 calls=(("get_weather", {"city": "Tokyo"}),), hidden=("ifm|", "need lookup"))


CASES = [
    # SGLang's k2_v3 detector tests: a bare ifm call runs, in each of its shapes
    _ifm_call("json", '<ifm|tool_call>{"name": "get_weather", "arguments": {"city": "Tokyo"}}</ifm|tool_call>'),
    _ifm_call("think-fast-then-xml", "<ifm|think_fast>need lookup</ifm|think_fast><ifm|tool_call>get_weather<ifm|arg_key>"
                                     "city</ifm|arg_key><ifm|arg_value>Tokyo</ifm|arg_value></ifm|tool_call>"),
    _ifm_call("xml", "<ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key><ifm|arg_value>Tokyo</ifm|arg_value>"
                     "</ifm|tool_call>"),
    # SGLang's MiniMax-M2 detector test: a MiniMax value quoting its closing tag reaches the tool whole
    Reply("a-minimax-value-quoting-its-closing-tag-reaches-the-tool-whole",
          ('<minimax:tool_call><invoke name="write_note"><parameter name="content">This text contains '
           "</parameter> in it</parameter></invoke></minimax:tool_call>"), 7,
          "Save the note.", "Saved.", tools=(Tool("write_note", ("content",)),),
          calls=(("write_note", {"content": "This text contains </parameter> in it"}),)),
]


@pytest.mark.parametrize(("case", "strategy"), reply_params(CASES))
def test_real_world_reply_through_the_plugin(run, case, strategy):
    play_reply(run, strategy, case)


@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
def test_the_seed_budget_note_stays_out_of_the_answer(run, strategy):
    reply = ("<seed:think>Token usage: 45/1000\nI should continue.</seed:think><seed:cot_budget_reflect>Token usage: "
             "45/1000\nI should continue thinking to find the best solution.</seed:cot_budget_reflect>")
    reply += "Hello there." if strategy == "function_calling" else "Final Answer: Hello there."
    result = run([{"text": reply, "split": 7}], query="Hi", tools=[named_tool("get_weather", "city")], strategy=strategy)
    assert_clean_end(result)
    assert result.text.strip() == "Hello there."
    assert "Token usage" not in result.text and "seed:" not in result.text
