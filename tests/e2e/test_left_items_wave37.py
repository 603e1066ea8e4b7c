"""Items left open by issue 13, through the real plugin process: what the user reads when a
continuation of a cut answer is only a cut call, and when a reply's second MiniMax call is cut."""

from __future__ import annotations

import json

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


# --- MiniMax's second <invoke> cut by the output limit -------------------------------------------------

T = "]<]minimax[>["
WHOLE_CALLS = (f'Let me look.{T}<tool_call>\n{T}<invoke name="lookup">{T}<q>a{T}</q>{T}</invoke>\n'
               f'{T}<invoke name="lookup">{T}<q>b{T}</q>{T}</invoke>\n{T}</tool_call>')
SECOND_CUT = {
    "m3": WHOLE_CALLS.split(f"b{T}</q>")[0],
    "m2": ('Let me look.<minimax:tool_call>\n<invoke name="lookup">\n<parameter name="q">a</parameter>\n</invoke>\n'
           '<invoke name="lookup">\n<parameter name="q">b'),
}


@pytest.mark.parametrize("form", SECOND_CUT)
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_cut_second_invoke_runs_nothing_and_both_strategies_ask_again(run, strategy, form):
    """ReAct read the whole first call (answered "not run", the cut one dropped from what the model
    read); Function Calling asked again, or for MiniMax-M2's wrapper read the first call too. Now
    both run nothing, tell the model its reply was cut, replay the reply as written, and run
    both calls once the model writes them whole."""
    turns = [{"text": SECOND_CUT[form], "finish_reason": "length", "split": 7}, {"text": WHOLE_CALLS},
             answer_turn(strategy, "Both found.")]
    result = run(turns, query="Look up a and b.", tools=[lookup()], strategy=strategy)
    assert_clean_end(result)
    assert_no_traceback(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"q": "a"}, {"q": "b"}]
    second = result.llm_requests[1]["prompt_messages"]
    told = "\n".join(str(m.get("content")) for m in second)
    assert "cut off by the output limit" in told and "nothing in it was run" in told
    assert 'name="lookup"' in told and "b" in told.split('name="lookup"')[-1]  # the cut call is replayed too
    assert not any(m["role"] == "tool" for m in second)  # no call of the cut reply was read
    assert result.text.endswith("Both found.")
    assert "minimax" not in result.text and "<invoke" not in result.text


# --- a call's head of blank arguments under an earlier call's id ---------------------------------------


def search() -> ScriptedTool:
    return ScriptedTool(name="search", description="Searches", parameters=[ToolParam("q", description="the words")],
                        responses=[text_message("search found it")])


def test_calls_under_ids_made_of_their_tools_name_run_in_the_order_the_model_wrote(run):
    """Tongyi's and Ollama's plugins make the tool's name the id: the third call's head (its name,
    blank arguments, the rest in nameless pieces) joined the first call, and the calls ran as
    ``[lookup a, lookup b, search]``, answered to the model in that order."""
    def call(call_id, name, arguments):
        return {"content": "", "tool_calls": [{"id": call_id, "type": "function",
                                               "function": {"name": name, "arguments": arguments}}]}

    def piece(arguments):
        return {"content": "", "tool_calls": [{"type": "function", "function": {"arguments": arguments}}]}

    chunks = [call("lookup", "lookup", ""), piece('{"q": '), piece('"a"}'), call("search", "search", ""),
              piece('{"q": "s"}'), call("lookup", "lookup", " "), piece('{"q":'), piece(' "b"}'),
              {"content": "", "finish_reason": "tool_calls"}]
    result = run([{"chunks": chunks}, {"text": "All three found."}], query="Look up a, search s, look up b.",
                 tools=[lookup(), search()])
    assert_clean_end(result)
    assert_no_traceback(result)
    ran = sorted((r["tool"], json.dumps(r["tool_parameters"])) for r in result.tool_requests)  # run in parallel
    assert ran == [("lookup", '{"q": "a"}'), ("lookup", '{"q": "b"}'), ("search", '{"q": "s"}')]
    second = result.llm_requests[1]["prompt_messages"]
    (assistant,) = [m for m in second if m["role"] == "assistant"]
    calls = [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in assistant["tool_calls"]]
    assert calls == [("lookup", {"q": "a"}), ("search", {"q": "s"}), ("lookup", {"q": "b"})]
    ids = [c["id"] for c in assistant["tool_calls"]]
    answers = [(m["tool_call_id"], m["content"]) for m in second if m["role"] == "tool"]
    assert answers == [(ids[0], "lookup found it"), (ids[1], "search found it"), (ids[2], "lookup found it")]
    assert len(set(ids)) == 3
    assert result.text == "All three found."
