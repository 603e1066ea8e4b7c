"""The twenty-third real-world pass's fix through the real plugin: Apertus 1.5's reasoning
(``<|inner_prefix|>...<|inner_suffix|>``, or only the end when the prompt opened the block) and
its ``<|assistant_start|>`` / ``<|assistant_end|>`` tokens stay out of the answer, and a call
after the reasoning still runs (Ollama's ``apertus1.5`` parser tests)."""

import pytest

from tests.e2e.helpers import SELF_SERVED, answer_turn, assert_clean_end, named_tool

REASONING = {
    "block": "<|assistant_start|><|inner_prefix|>The user greets me.<|inner_suffix|>Hello there.<|assistant_end|>",
    "prompt-opened": " The user greets me.<|inner_suffix|>Hello there.",
}


@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
@pytest.mark.parametrize("shape", sorted(REASONING))
def test_apertus_reasoning_stays_out_of_the_answer(run, strategy, shape):
    # served by the user's own server (Function Calling holds a reply's start for a bare end of a
    # prompt-opened block only for a self-served model)
    result = run([{"text": REASONING[shape], "split": 7}], query="Hi", tools=[named_tool("get_weather", "city")],
                 strategy=strategy, model=SELF_SERVED)
    assert_clean_end(result)
    assert result.text.strip() == "Hello there."
    assert "greets" not in result.text and "<|" not in result.text
    assert not result.tool_requests


@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
def test_apertus_call_after_reasoning_runs(run, strategy):
    reply = ('<|assistant_start|><|inner_prefix|>Need the weather.<|inner_suffix|><|tools_prefix|>'
             '[{"get_weather": {"city": "Zurich"}}]<|tools_suffix|><|assistant_end|>')
    result = run([{"text": reply, "split": 7}, answer_turn(strategy, "Sunny in Zurich.")],
                 query="Weather in Zurich?", tools=[named_tool("get_weather", "city")], strategy=strategy)
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Zurich"}]
    assert result.text.strip().endswith("Sunny in Zurich.")
    assert "Need the weather" not in result.text and "<|" not in result.text
