"""The forty-fifth real-world pass (the clean answer) through the real plugin process. Each case is
a reply a public report quotes (see tests/unit/test_real_world_2026at.py for the texts and their
sources), sent as the model's turn in pieces, and the answer the user must see: the answer alone,
no end-of-turn token, no reasoning of any family, nothing of the answer's own text lost. The
second run of each case carries the first one's answer in its memory: the model reads that
answer back, no token and no reasoning.

Two cases are this pass's fixes: Gemma 2's ``</start_of_turn>`` (kghandour/Ollama-SwiftUI#44)
was shown at the answer's end in both strategies, and in Function Calling a reply that showed a
chat template's ``</think>`` in a fenced block (CherryHQ/cherry-studio#17197) lost its start as
reasoning and began inside the block."""

import json
from dataclasses import dataclass

import pytest

from tests.e2e.helpers import SELF_SERVED, STRATEGIES, answer_turn, assert_clean_end
from tests.unit.test_real_world_2026at import CASES as REPLIES


@dataclass(frozen=True)
class Case:
    reply: str  # the model's whole reply, as the report quotes it (or rebuilt)
    answer: str  # what the user sees (stripped)
    hidden: tuple[str, ...] = ()  # never in the answer nor in the next run's memory
    strategies: tuple[str, ...] = tuple(STRATEGIES)


def _from(name: str, strategies: tuple[str, ...] = tuple(STRATEGIES)) -> Case:
    case = REPLIES[name]
    assert case.answer is not None
    return Case(case.content, case.answer, case.hidden, strategies)


CASES = {
    name: _from(name)
    for name in (
        "ollamaswiftui44-gemma2-start-of-turn-at-the-end",
        "moltis306-mlx-qwen-coder-im-end",
        "genaiinfra64-phi3-im-end-then-invented-question",
        "openrlhf969-r1-distill-end-of-sentence",
        "sidekick75-gpt-oss-harmony-channels-in-content",
        "dify17660-deepseek-only-the-closing-think",
        "zoocode324-gemma4-thought-inside-think",
        "newelle427-gemma4-empty-thought-channel",
        "kimivl45-triangle-think-then-answer-tags",
        "langchainnvidia345-text-before-the-think-block",
        "lifeos568-closing-only-think-before-a-json-answer",
        "cherrystudio17197-close-think-in-a-template-code-block",
        "hindsight2298-answer-in-an-invented-json-envelope",
    )
}


# the reports' models were served by the user (Ollama, MLX, vLLM, llama-server), behind a provider
# that serves them under a name of the user's choosing
MODEL = {**SELF_SERVED, "model": "local-model"}


def _params():
    for name, case in CASES.items():
        for strategy in case.strategies:
            yield name, strategy


@pytest.mark.parametrize(("name", "strategy"), list(_params()))
def test_real_world_answer_through_the_plugin(run, name, strategy):
    case = CASES[name]
    first = run([{"text": case.reply, "split": 7}], query="Go on.", strategy=strategy, model=MODEL)
    assert_clean_end(first)
    assert first.text.strip() == case.answer
    for text in case.hidden:
        assert text not in first.text
    second = run([answer_turn(strategy, "You're welcome.")], query="Thanks!", strategy=strategy, model=MODEL,
                 history=[{"role": "user", "content": "Go on."}, {"role": "assistant", "content": first.text}])
    assert_clean_end(second)
    prompt = json.dumps(second.llm_requests[0]["prompt_messages"], ensure_ascii=False)
    assert json.dumps(case.answer, ensure_ascii=False)[1:-1] in prompt
    for text in case.hidden:
        assert json.dumps(text, ensure_ascii=False)[1:-1] not in prompt
