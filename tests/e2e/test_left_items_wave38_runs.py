"""Items left open by issue 13, through the real plugin process: an answer whose text is followed
by a code block announcing a call (```tool_code, ```tool_call, or a ```python block holding only
a call of a node tool) that the output limit cut. Both strategies show the text before the block
once, never the cut call, ask again once, then end with the output-limit message."""

from __future__ import annotations

import pytest

from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end, assert_no_traceback
from tests.e2e.test_left_items_wave37 import lookup

BEFORE = "Let me check that."
CUT_BLOCKS = ["```tool_code\nlookup(q='a", "```tool_call\nprint(default_api.lookup(q='Par", "```python\nlookup(q='a",
              "```py\n[lookup(q='a'), lookup(q="]


def cut(strategy: str, text: str, split: int | None) -> dict:
    return {**answer_turn(strategy, text), "finish_reason": "length", **({"split": split} if split else {})}


@pytest.mark.parametrize("split", [None, 1])
@pytest.mark.parametrize("block", CUT_BLOCKS)
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_cut_call_block_after_the_answer_text_is_a_cut_reply_never_shown(run, strategy, block, split):
    """ReAct showed ``Let me check that.\\n```tool_code\\nlookup(q='a`` as its answer (and a
    ```python call in both strategies), then the incomplete-answer note."""
    turn = cut(strategy, f"{BEFORE}\n{block}", split)
    result = run([turn, turn, {"text": "never asked"}], query="Capital of France?", tools=[lookup()], strategy=strategy)
    assert_clean_end(result)
    assert_no_traceback(result)
    assert result.tool_requests == []
    assert result.text.startswith(BEFORE + "\n\n"), result.text
    assert result.text.count(BEFORE) == 1, result.text  # the reply asked again repeats it: not shown twice
    assert "lookup(" not in result.text and "```" not in result.text
    assert "output limit" in result.text and "never asked" not in result.text


@pytest.mark.parametrize("block", CUT_BLOCKS[:3])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_asked_again_after_a_cut_call_block_the_call_runs(run, strategy, block):
    """The reply asked again makes the call whole: it runs, and the answer after it is shown."""
    call = (
        {"text": "Thought: look it up\nAction: lookup\nAction Input: {\"q\": \"a\"}"}
        if strategy == "ReAct"
        else {"tool_calls": [{"name": "lookup", "arguments": {"q": "a"}}]}
    )
    turns = [cut(strategy, f"{BEFORE}\n{block}", 2), call, answer_turn(strategy, "Paris.")]
    result = run(turns, query="Capital of France?", tools=[lookup()], strategy=strategy)
    assert_clean_end(result)
    assert len(result.tool_requests) == 1
    assert "lookup(" not in result.text and "```" not in result.text
    assert result.text.endswith("Paris."), result.text


@pytest.mark.parametrize("split", [None, 3])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_python_answer_and_a_closed_call_block_stream_as_before(run, strategy, split):
    """Ordinary code, and a call block the answer shows whole, are the answer's text."""
    text = f"{BEFORE}\n```python\nimport os\nprint(os.sep)\n```\nAnd as a call:\n```tool_code\nlookup(q='a')\n```\nDone."
    turn = {**answer_turn(strategy, text), **({"split": split} if split else {})}
    result = run([turn], query="Show me.", tools=[lookup()], strategy=strategy)
    assert_clean_end(result)
    assert result.tool_requests == []
    assert result.text == text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_ordinary_python_the_limit_cut_is_the_cut_answer(run, strategy):
    """A python block whose code is no call of a node tool, cut: the cut answer is shown (both
    strategies ask for its rest and show the incomplete-answer note, as for any cut answer)."""
    text = f"{BEFORE}\n```python\nimport os\nx = lookup("
    result = run([cut(strategy, text, 2), cut(strategy, text, 2), {"text": "never asked"}],
                 query="Show me.", tools=[lookup()], strategy=strategy)
    assert_clean_end(result)
    assert result.text.startswith(text), result.text
    assert result.tool_requests == []
