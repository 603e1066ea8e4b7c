"""The thirty-seventh real-world pass (the clean answer) through the real plugin. A reply that
closed its own reasoning block and then wrote a stray ``</think>`` inside its answer
(nanobrowser/nanobrowser PR #333) shows all of its answer (ReAct lost the text before the stray
tag) and the next run's memory carries that answer, no reasoning; Megrez's ``<|turn_end|>``
(infinigence/Infini-Megrez#2) is kept out of the answer (Function Calling showed it); and Llama 4's
``<|eot_id|>`` with the turn it invented after it (langchain-ai/langchain-aws#483) ends the answer
in both strategies; and Mistral's ``[THINK]`` and ``[/THINK]`` named in the answer of a ``<think>``
reply (isaiah-harville/Primer#109) are shown (both strategies dropped them and the words between)."""

import pytest

from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end, prompt_text
from tests.e2e.real_world import Reply, play_reply, reply_params

CASES = [
    # infinigence/Infini-Megrez#2: Megrez's turn-end token is kept out of the answer
    Reply("megrez-turn-end-token-is-kept-out-of-the-answer",
          "The picture shows a red bicycle leaning on a wall.<|turn_end|>", 7,
          "What is in the picture?", "The picture shows a red bicycle leaning on a wall.", framed=True),
    # langchain-ai/langchain-aws#483: Llama 4's eot_id and its invented turn end the answer
    Reply("llama4-eot-id-and-its-invented-turn-end-the-answer",
          ("Kyiv is the capital of Ukraine.<|eot_id|><|start_header_id|>user<|header_end|>"
           "<|header_start|>assistant<|header_end|>\n\nAlternative answer: Kiev."), 5,
          "Capital of Ukraine?", "Kyiv is the capital of Ukraine.", framed=True, hidden=("eot_id", "Alternative")),
    # isaiah-harville/Primer#109: another family's tags written in the answer are shown
    Reply("another-familys-tags-written-in-the-answer-are-shown",
          ("<think>The user asks how Mistral marks reasoning.</think>"
           "Mistral models wrap their reasoning in [THINK] and [/THINK]."), 7,
          "How does Mistral mark reasoning?", "Mistral models wrap their reasoning in [THINK] and [/THINK].",
          framed=True),
]


@pytest.mark.parametrize(("case", "strategy"), reply_params(CASES))
def test_real_world_reply_through_the_plugin(run, case, strategy):
    play_reply(run, strategy, case)


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
    prompt = prompt_text(second.llm_requests[0])
    assert "Here is answerdone" in prompt
    assert "reason</think>" not in prompt and "<think>" not in prompt
