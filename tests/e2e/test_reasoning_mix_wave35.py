"""Wave 35: reasoning sent apart, then the rest of a template-opened block in the content.

Through the plugin process: a DeepSeek-R1 distill (its template opens ``<think>`` in the prompt)
behind the OpenAI-API-compatible plugin, whose server sends part of the reasoning as
``reasoning_content`` and the rest in the content up to a bare ``</think>`` (vLLM's reasoning
parsers under a stop buffer: vllm-project/vllm#51641). The user never sees the reasoning; a reply
cut before its ``</think>`` is asked again, not shown as a cut answer; the reply goes back to the
model as it came. Played whole and a character a chunk, in both strategies.
"""

import json

import pytest

from agent_core import prompts
from tests.e2e.helpers import assert_clean_end, prompt_text

STRATEGIES = ["function_calling", "ReAct"]
MODEL = {"model": "deepseek-r1-distill-qwen-32b", "provider": "langgenius/openai_api_compatible/openai_api_compatible"}
APART = "The user wants 6 times 7."
TAIL = "I will use the calculator for it, TAILMARK.\n</think>\n\n"


def turn(text: str, *, reasoning: str = APART, per_char: bool = False, finish: str = "stop") -> dict:
    chunks = [{"message": {"content": "", "reasoning_content": reasoning}}] if reasoning else []
    chunks += [{"content": piece} for piece in (list(text) if per_char else [text])]
    chunks.append({"content": "", "finish_reason": finish})
    return {"chunks": chunks}


def call_text(strategy: str) -> str:
    arguments = {"expression": "6 * 7"}
    if strategy == "ReAct":
        return f"Thought: I need the product.\nAction: calculator\nAction Input: {json.dumps(arguments)}"
    return "<tool_call>" + json.dumps({"name": "calculator", "arguments": arguments}) + "</tool_call>"


def answer_text(strategy: str) -> str:
    return "Thought: I have it.\nFinal Answer: It is 42." if strategy == "ReAct" else "It is 42."


@pytest.mark.parametrize("per_char", [False, True])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_reasoning_before_the_bare_end_is_never_shown_and_goes_back_as_it_came(run, strategy, per_char):
    turns = [turn(TAIL + call_text(strategy), per_char=per_char), turn(TAIL + answer_text(strategy), per_char=per_char)]
    result = run(turns, query="What is 6 times 7?", tools=["calculator"], strategy=strategy, model=MODEL)
    assert_clean_end(result)
    assert result.text == "It is 42."
    assert "TAILMARK" not in result.text and "</think>" not in result.text
    assert len(result.llm_requests) == 2  # the call ran: its round went back to the model
    assert "42" in prompt_text(result.llm_requests[1])
    if strategy == "function_calling":  # the reply goes back to its model plugin as it came
        assert "TAILMARK" in prompt_text(result.llm_requests[1])


@pytest.mark.parametrize("per_char", [False, True])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_reply_cut_before_the_bare_end_is_asked_again_not_shown(run, strategy, per_char):
    cut = turn("I will use the calculator for it, TAILMARK, then wr", per_char=per_char, finish="length")
    turns = [cut, turn(TAIL + answer_text(strategy), per_char=per_char)]
    result = run(turns, query="What is 6 times 7?", tools=["calculator"], strategy=strategy, model=MODEL)
    assert_clean_end(result)
    assert result.text == "It is 42."
    assert prompts.REPLY_CUT in prompt_text(result.llm_requests[1])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_answer_with_no_bare_end_after_reasoning_apart_is_shown(run, strategy):
    result = run([turn(answer_text(strategy), per_char=True)], query="What is 6 times 7?", strategy=strategy, model=MODEL)
    assert_clean_end(result)
    assert result.text == "It is 42."
