"""Items left open by issue 13, through the real plugin process: what the user reads when a
continuation of a cut answer is only a cut call, and when a reply's second MiniMax call is cut."""

from __future__ import annotations

import pytest

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end, assert_no_traceback


def lookup() -> ScriptedTool:
    return ScriptedTool(name="lookup", description="Looks a word up", parameters=[ToolParam("q", description="the word")],
                        responses=[text_message("lookup found it")])


# --- a continuation that is only a cut call written as code ------------------------------------------

CUT_CODE_CALLS = ["lookup(q='a", ' lookup(q="par', "[lookup(q='a'), lookup(q=", "```tool_code\nlookup(q='a",
                  '<tool_call>{"name": "lookup", "arguments": {"q": "a']


@pytest.mark.parametrize("split", [None, 1])
@pytest.mark.parametrize("rest", CUT_CODE_CALLS)
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_continuation_that_is_only_a_cut_code_call_is_never_shown_as_the_rest(run, strategy, rest, split):
    """ReAct joined ``lookup(q='a`` to the cut answer ("Paris is the lookup(q='a"); Function
    Calling hid it. Both now end with the cut start and the output-limit notice, and run nothing."""
    second = {"text": rest, "finish_reason": "length", **({"split": split} if split else {})}
    turns = [{**answer_turn(strategy, "Paris is the"), "finish_reason": "length"}, second, {"text": "never asked"}]
    result = run(turns, query="Capital of France?", tools=[lookup()], strategy=strategy)
    assert_clean_end(result)
    assert_no_traceback(result)
    assert result.tool_requests == []
    assert result.text.startswith("Paris is the\n\n"), result.text
    assert "lookup(" not in result.text and "tool_call" not in result.text
    assert "output limit" in result.text and "never asked" not in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_continuation_that_starts_like_a_tool_name_is_still_the_rest(run, strategy):
    turns = [{**answer_turn(strategy, "Paris is the"), "finish_reason": "length"},
             {"text": " lookout point of France.", "split": 2}]
    result = run(turns, query="Capital of France?", tools=[lookup()], strategy=strategy)
    assert_clean_end(result)
    assert result.text == "Paris is the lookout point of France."
