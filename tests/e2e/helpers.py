"""Helpers shared by the end-to-end tests: turns written for either strategy, what the
model read back, and the checks every run must pass."""

import json

STRATEGIES = ["function_calling", "ReAct"]


def answer_turn(strategy: str, text: str) -> dict:
    """A model turn that answers, in the strategy's own format."""
    return {"text": f"Thought: done.\nFinal Answer: {text}" if strategy == "ReAct" else text}


def observations(request: dict) -> list[str]:
    """What the model read of tool results in ``request`` (tool messages, or ReAct observations)."""
    tool_messages = [m["content"] for m in request["prompt_messages"] if m["role"] == "tool"]
    if tool_messages:
        return tool_messages
    scratchpad = "\n".join(str(m["content"]) for m in request["prompt_messages"] if m["role"] == "assistant")
    return [part.split("\nAction:")[0].split("\nThought:")[0].strip() for part in scratchpad.split("Observation: ")[1:]]


def prompt_text(request: dict) -> str:
    """Every prompt message of ``request`` as one JSON string (for 'is X anywhere in it' checks)."""
    return json.dumps(request["prompt_messages"], ensure_ascii=False)


def assert_clean_end(result) -> None:
    """The run ended without error and no log node was left in ``start`` state."""
    assert result.ok, result.error_text
    assert result.unfinished_logs() == [], [n.label for n in result.unfinished_logs()]
