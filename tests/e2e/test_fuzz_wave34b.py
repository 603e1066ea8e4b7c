"""Minimal runs of what the second wave-34 fuzz campaign found, through the real plugin.

* A self-served model (Ollama) whose template opened the reasoning block in the prompt: Function
  Calling holds the reply's first ``REASONING_PROBE`` characters to find a bare ``</think>``. One
  that started inside them and was cut by the stream across their end was not waited for: with a
  reply streamed a character or a few a chunk, the reasoning before it was shown as the answer.
"""

import pytest

from agent_core.function_calling.turn import REASONING_PROBE

OLLAMA = {"provider": "langgenius/ollama/ollama", "model": "local-model"}


@pytest.mark.parametrize("split", [1, 3])
def test_a_close_streamed_across_the_probes_end_still_ends_the_reasoning(run, split):
    thought = ("The user asks for the capital of France; I recall it is Paris. " * 5)[: REASONING_PROBE - 5]
    reply = thought + "</think>Paris is the capital of France."
    result = run([{"text": reply, "split": split}], strategy="function_calling", model=OLLAMA)
    assert result.ok and result.unfinished_logs() == []
    assert result.text.strip() == "Paris is the capital of France."
    assert "recall" not in result.text and "</think>" not in result.text
