"""The thirty-seventh real-world pass (the clean answer) through the real plugin. A reply that
closed its own reasoning block and then wrote a stray ``</think>`` inside its answer
(nanobrowser/nanobrowser PR #333) shows all of its answer (ReAct lost the text before the stray
tag) and the next run's memory carries that answer, no reasoning; Megrez's ``<|turn_end|>``
(infinigence/Infini-Megrez#2) is kept out of the answer (Function Calling showed it); and Llama 4's
``<|eot_id|>`` with the turn it invented after it (langchain-ai/langchain-aws#483) ends the answer
in both strategies; and Mistral's ``[THINK]`` and ``[/THINK]`` named in the answer of a ``<think>``
reply (isaiah-harville/Primer#109) are shown (both strategies dropped them and the words between)."""

import json

import pytest

from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end


def _prompt(request: dict) -> str:
    return json.dumps(request["prompt_messages"], ensure_ascii=False)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_text_before_a_stray_close_after_a_closed_block_is_shown_and_remembered(run, strategy):
    reply = answer_turn(strategy, "<think>reason</think>Here is answer</think>done")
    first = run([{**reply, "split": 7}], query="Summarise the page.", strategy=strategy)
    assert_clean_end(first)
    assert first.text.strip() == "Here is answerdone"
    second = run([answer_turn(strategy, "You're welcome.")], query="Thanks!", strategy=strategy,
                 history=[{"role": "user", "content": "Summarise the page."},
                          {"role": "assistant", "content": first.text}])
    assert_clean_end(second)
    prompt = _prompt(second.llm_requests[0])
    assert "Here is answerdone" in prompt
    assert "reason</think>" not in prompt and "<think>" not in prompt


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_megrez_turn_end_token_is_kept_out_of_the_answer(run, strategy):
    reply = answer_turn(strategy, "The picture shows a red bicycle leaning on a wall.<|turn_end|>")
    result = run([{**reply, "split": 7}], query="What is in the picture?", strategy=strategy)
    assert_clean_end(result)
    assert result.text.strip() == "The picture shows a red bicycle leaning on a wall."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_llama4_eot_id_and_its_invented_turn_end_the_answer(run, strategy):
    leaked = ("Kyiv is the capital of Ukraine.<|eot_id|><|start_header_id|>user<|header_end|>"
              "<|header_start|>assistant<|header_end|>\n\nAlternative answer: Kiev.")
    result = run([{**answer_turn(strategy, leaked), "split": 5}], query="Capital of Ukraine?", strategy=strategy)
    assert_clean_end(result)
    assert result.text.strip() == "Kyiv is the capital of Ukraine."
    assert "eot_id" not in result.text and "Alternative" not in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_another_familys_tags_written_in_the_answer_are_shown(run, strategy):
    reply = answer_turn(strategy, "<think>The user asks how Mistral marks reasoning.</think>"
                                  "Mistral models wrap their reasoning in [THINK] and [/THINK].")
    result = run([{**reply, "split": 7}], query="How does Mistral mark reasoning?", strategy=strategy)
    assert_clean_end(result)
    assert result.text.strip() == "Mistral models wrap their reasoning in [THINK] and [/THINK]."
