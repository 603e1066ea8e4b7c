"""Through the real plugin, in both strategies: a chatflow's second turn whose memory holds a
200 KB tool result from the first, on a model with an 8K window. Memory is kept as far as it
fits: the older small turns stay, and (Function Calling, which replays memory's tool turns) the
tool result is shortened with a note, right after its call. Before, the last turn alone was over
the window, and trimming (whole turns, oldest first, no gaps) dropped every turn of memory.
ReAct replays memory's questions and answers only, never its tool turns.
"""

import pytest

from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean, text_of

WINDOW = {"context_size": 8192, "completion_params": {"max_tokens": 512}}
PAGE = "".join(f"line {n}: the fetched page goes on and on about nothing in particular\n" for n in range(2900))
SHORTENED_NOTE = "[shortened to save context:"


def older_turns() -> list[dict]:
    return [
        {"role": "user", "content": "My name is Ada and I live in Lyon."},
        {"role": "assistant", "content": "Nice to meet you, Ada."},
        {"role": "user", "content": "I prefer answers in French."},
        {"role": "assistant", "content": "D'accord."},
    ]


def fetch_turn() -> list[dict]:
    """The first chatflow turn as Dify's memory holds it: a tool call, its 200 KB result, the answer."""
    return [
        {"role": "user", "content": "Fetch https://example.com/report and tell me its title."},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_fetch_1", "name": "fetch", "arguments": {"url": "https://example.com/report"}}]},
        {"role": "tool", "content": PAGE, "tool_call_id": "call_fetch_1", "name": "fetch"},
        {"role": "assistant", "content": "The report is titled 'Nothing in particular'."},
    ]


def trimmed_nodes(result) -> list:
    return [n for n in result.logs.values() if n.label == "CONTEXT TRIMMED"]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_200kb_tool_result_in_memory_keeps_the_older_turns(run, strategy):
    assert len(PAGE) > 200_000
    result = run([answer_turn(strategy, "Ada.")], query="What is my name, and what was the title?",
                 strategy=strategy, history=[*older_turns(), *fetch_turn()], model=WINDOW)
    assert_clean(result, run)
    assert result.text == "Ada."
    messages = result.llm_requests[0]["prompt_messages"]
    prompt = "\n".join(text_of(m["content"]) for m in messages)
    for said in ("My name is Ada", "Nice to meet you, Ada.", "answers in French", "D'accord.",
                 "Fetch https://example.com/report", "titled 'Nothing in particular'"):
        assert said in prompt, said
    assert PAGE not in prompt
    if strategy == "function_calling":
        (index,) = [i for i, m in enumerate(messages) if m["role"] == "tool"]
        call, tool = messages[index - 1], messages[index]
        assert [c["id"] for c in call["tool_calls"]] == [tool["tool_call_id"]] == ["call_fetch_1"]
        assert tool["content"].startswith(PAGE[:300]) and SHORTENED_NOTE in tool["content"]
        assert len(tool["content"]) < 4000
        assert messages[index + 1]["content"] == "The report is titled 'Nothing in particular'."
        (node,) = trimmed_nodes(result)
        assert node.data["history_turns_dropped"] == 0
        assert node.data["history_turns_with_tool_results_shortened"] == 1
        assert node.data["estimated_tokens_after"] <= node.data["budget_tokens"]
    else:  # ReAct never replays memory's tool turns: nothing to trim
        assert "call_fetch_1" not in prompt and trimmed_nodes(result) == []


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_pasted_200kb_text_in_memory_goes_alone(run, strategy):
    """A turn too large even with its tool results shortened (the user pasted 200 KB: their text
    is not cut) is dropped; the older turns are kept, and so is the turn after it."""
    pasted = [{"role": "user", "content": "Summarise this:\n" + PAGE}, {"role": "assistant", "content": "It rambles."}]
    after = [{"role": "user", "content": "Thanks. What city do I live in?"}, {"role": "assistant", "content": "Lyon."}]
    result = run([answer_turn(strategy, "Ada.")], query="And my name?", strategy=strategy,
                 history=[*older_turns(), *pasted, *after], model=WINDOW)
    assert_clean(result, run)
    prompt = "\n".join(text_of(m["content"]) for m in result.llm_requests[0]["prompt_messages"])
    assert "My name is Ada" in prompt and "D'accord." in prompt and "What city do I live in?" in prompt
    assert "Summarise this" not in prompt and "It rambles." not in prompt
    (node,) = trimmed_nodes(result)
    assert node.data["history_turns_dropped"] == 1
    assert node.data["estimated_tokens_after"] <= node.data["budget_tokens"]
