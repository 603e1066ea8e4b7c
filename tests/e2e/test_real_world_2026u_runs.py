"""The twentieth real-world pass's fixes through the real plugin: the reasoning of Solar Open 2,
K2 Horizon and Seed-OSS (their own tags, or only the end a template-opened block leaves) is kept
out of the answer (vLLM's ``solar_open2``, ``k2_horizon`` and ``seed_oss`` reasoning parser
tests), and a Solar Open 2 call abandoned inside the reasoning, or left open at the reply's end,
is not run with a cut value (vLLM's ``solar_open2`` reasoning and tool parsers)."""

import pytest

from tests.e2e.helpers import SELF_SERVED, answer_turn, assert_clean_end, named_tool

REASONING = {
    "solar2-template-opened": "The user greets me.<|think:end|>Hello there.",
    "k2horizon-tags": "<ifm|think>The user greets me.</ifm|think>Hello there.",
    "k2horizon-template-opened": "The user greets me.</ifm|think_fast>Hello there.",
    "seedoss-template-opened": "The user greets me.</seed:think>Hello there.",
    # a call abandoned in the reasoning (no argument end, no call end), then the answer
    "solar2-abandoned-call": ("let me call\n<|tool_call:start|>foo\n<|tool_arg:start|>a<|tool_arg:value|>1\n"
                              "<|think:end|>Hello there."),
}


@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
@pytest.mark.parametrize("shape", sorted(REASONING))
def test_the_reasoning_stays_out_of_the_answer(run, strategy, shape):
    # served by the user's own server (a template that opened the block: Function Calling holds
    # the reply's start only for a self-served model)
    result = run([{"text": REASONING[shape], "split": 7}], query="Hi",
                 tools=[named_tool("get_weather", "city"), named_tool("foo", "a")], strategy=strategy, model=SELF_SERVED)
    assert_clean_end(result)
    assert result.text.strip() == "Hello there."
    assert not result.tool_requests


@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
def test_a_solar_call_left_open_is_asked_again_not_run(run, strategy):
    cut = "<|tool_call:start|>write_file\n<|tool_arg:start|>path<|tool_arg:value|>/tmp/notes"
    whole = ("<|tool_call:start|>write_file\n<|tool_arg:start|>path<|tool_arg:value|>/tmp/notes.txt"
             "<|tool_arg:end|>\n<|tool_call:end|>")
    result = run([{"text": cut, "split": 7}, {"text": whole, "split": 7}, answer_turn(strategy, "Written.")],
                 query="Write the notes.", tools=[named_tool("write_file", "path")], strategy=strategy)
    assert_clean_end(result)
    # only the whole call ran: the cut path never reached the tool
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"path": "/tmp/notes.txt"}]
    assert result.text.strip().endswith("Written.")
    assert "tool_call" not in result.text
