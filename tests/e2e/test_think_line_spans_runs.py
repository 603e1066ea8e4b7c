"""Through the real plugin: a reasoning tag met while a code span may be open is code only when
the span closes on its line, in both strategies, sent whole and in 1- and 7-character chunks.

- A reasoning block glued after a stray backtick ("It`s done.<think>plan</think>Hello") stays out
  of the answer (before, the user saw it).
- A model whose template opens its block (QwQ) ends its reasoning at the bare ``</think>``, not at
  one inside a code span of the reasoning (before, the user saw the rest of the reasoning).
- An answer of a self-served model (Ollama) that starts by quoting `` `x </think>` `` is shown
  whole (before, Function Calling, which holds such a reply's start for a bare ``</think>``, took
  "Close it with `x " for reasoning).
"""

import pytest

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import answer_turn, assert_clean_end

WEATHER = ScriptedTool(name="get_weather", description="get_weather tool",
                       parameters=[ToolParam("city", description="city")], responses=[text_message("done")])
STRATEGIES = ["ReAct", "function_calling"]


def _thought_reasoning(result) -> str:
    return "".join(str(n.data.get("reasoning", "")) for n in result.logs.values() if n.label.endswith("Thought"))


@pytest.mark.parametrize("split", [None, 1, 7])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_block_glued_after_a_stray_backtick_stays_out_of_the_answer(run, strategy, split):
    turn = answer_turn(strategy, "It`s done.<think>secret plan</think>Hello there.")
    if split:
        turn["split"] = split
    result = run([turn], query="Done?", tools=[WEATHER], strategy=strategy)
    assert_clean_end(result)
    assert result.text.strip() == "It`s done.Hello there."
    assert "secret plan" in _thought_reasoning(result)


@pytest.mark.parametrize("split", [None, 1, 7])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_close_in_a_code_span_of_template_opened_reasoning_does_not_end_it(run, strategy, split):
    reasoning = "They ask how a block ends: with `a </think> b` written so.\n</think>\n\n"
    turn = answer_turn(strategy, "A bare closing tag.")
    turn["text"] = reasoning + turn["text"]
    if split:
        turn["split"] = split
    result = run([turn], query="How does a block end?", tools=[WEATHER], strategy=strategy,
                 model={"model": "qwq-32b"})
    assert_clean_end(result)
    assert result.text.strip() == "A bare closing tag."
    assert "`a </think> b` written so" in _thought_reasoning(result)


@pytest.mark.parametrize("split", [None, 1, 7])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_answer_quoting_a_close_in_a_span_is_shown_whole(run, strategy, split):
    answer = "Close it with `x </think>` and go on."
    turn = answer_turn(strategy, answer)
    if split:
        turn["split"] = split
    result = run([turn], query="How do I close it?", tools=[WEATHER], strategy=strategy,
                 model={"provider": "langgenius/ollama/ollama", "model": "llama3.1"})
    assert_clean_end(result)
    assert result.text.strip() == answer
