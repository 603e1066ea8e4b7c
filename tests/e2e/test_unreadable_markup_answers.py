"""Through the real plugin process: Function Calling asks again a reply whose call markup names a
node tool but cannot be read. A model that keeps showing such markup in a fenced block (a
tutorial on tool calling) ends the run with that answer, shown whole and once; one that keeps
writing a broken call outside quoted text ends it with a clear error, its markup never shown.
(The tutorial's fence stands in a blockquote: a ``<tool_call>`` in a bare fence is read as a call,
as a genuine step is often written so; the `` `<tool_call>` `` in its first sentence is text.)"""

from agent_core import prompts
from agent_core.loop import MAX_PARSE_RETRIES
from tests.e2e.helpers import assert_clean_end, weather_tool

TUTORIAL = """Hermes-style models wrap each tool call in `<tool_call>` tags. A reply that calls your `get_weather` tool looks like this:

> ```xml
> <tool_call>
> {"name": "get_weather", "arguments": {"city": "Paris"}}
> </tool_call>
> ```

Your server's parser takes the JSON out of the tags and puts it in `tool_calls`."""

BROKEN = "<minimax:tool_call>\n<invoke nam='get_weather'>Oslo</invoke>\n</minimax:tool_call>"


def _thoughts(result) -> list:
    return [node for node in result.logs.values() if node.label.endswith("Thought")]


def test_a_tutorial_shown_three_times_is_the_answer_whole_and_once(run):
    """Each reply streams its first paragraph and holds the fenced block (it may be a call); the
    block is asked again each time. Once the retries run out the user has read the tutorial
    exactly as written: the first paragraph once, then the rest. Before, the paragraph was shown
    three times and the run ended with an error."""
    turns = [{"text": TUTORIAL, "split": 7}] * MAX_PARSE_RETRIES
    result = run(turns, query="How do Hermes models write tool calls?", tools=[weather_tool()])
    assert_clean_end(result)
    run.backend.assert_complete()
    assert result.text == TUTORIAL
    assert result.tool_requests == []
    assert len(result.llm_requests) == MAX_PARSE_RETRIES
    retry = result.llm_requests[1]["prompt_messages"]
    assert retry[-1]["content"] == prompts.TOOL_CALL_UNREADABLE  # the model is told as before
    thoughts = _thoughts(result)
    assert len(thoughts) == MAX_PARSE_RETRIES
    assert all(node.data["problem"] == prompts.TOOL_CALL_UNREADABLE for node in thoughts)  # the log says why


def test_a_reply_asked_again_that_repeats_its_prose_then_answers_shows_the_prose_once(run):
    """The second reply starts with the paragraph the first already showed, then answers in
    prose: the user reads the paragraph once, and the answer right after it. (The first reply's
    `> ```xml` line is held with the `<tool_call>` under it: it was streamed, and the user read it
    before the answer.)"""
    intro = TUTORIAL.split("> ```")[0]
    answer = intro + "a `<tool_call>` block holding the call's name and arguments as JSON."
    turns = [{"text": TUTORIAL, "split": 5}, {"text": answer, "split": 3}]
    result = run(turns, query="How do Hermes models write tool calls?", tools=[weather_tool()])
    assert_clean_end(result)
    run.backend.assert_complete()
    assert result.text == answer


def test_a_broken_call_written_three_times_ends_with_a_clear_error(run):
    """Markup outside quoted text is a call the model means to make: three broken ones end the run
    with an error naming the problem, not with the broken call as the answer. The sentence before
    it is shown once, not once a reply."""
    turns = [{"text": "Let me check.\n" + BROKEN, "split": 4}] * MAX_PARSE_RETRIES
    result = run(turns, query="Weather in Oslo?", tools=[weather_tool()])
    assert not result.ok
    assert "could not be understood" in result.error_text and "markup that could not be read" in result.error_text
    assert result.unfinished_logs() == []
    assert result.text == "Let me check.\n"
    assert result.tool_requests == []
    assert len(result.llm_requests) == MAX_PARSE_RETRIES


def test_a_lone_broken_call_written_three_times_ends_with_a_clear_error(run):
    result = run([{"text": BROKEN}] * MAX_PARSE_RETRIES, query="Weather in Oslo?", tools=[weather_tool()])
    assert not result.ok
    assert "markup that could not be read" in result.error_text
    assert result.unfinished_logs() == []
    assert result.text == ""
    assert len(result.llm_requests) == MAX_PARSE_RETRIES


def test_a_tutorial_written_at_the_iteration_limit_is_the_answer(run):
    """The limit came after one reply asked again: the model must answer now, and answers with the
    tutorial again. It is the answer, whole and once, not "stopped without an answer" after its
    first paragraph."""
    turns = [{"text": TUTORIAL, "split": 7}] * 2
    result = run(turns, query="How do Hermes models write tool calls?", tools=[weather_tool()], maximum_iterations=1)
    assert_clean_end(result)
    run.backend.assert_complete()
    assert any(node.label == "ITERATION LIMIT" for node in result.logs.values())
    assert result.text == TUTORIAL


def test_react_asks_again_a_broken_family_call_then_runs_the_corrected_one(run):
    """ReAct: a whole reply of MiniMax markup with a typo'd attribute was taken as the answer at
    once and shown. It is asked again, as Function Calling asks (none of it shown), and the
    corrected call runs."""
    fixed = "Thought: I need the weather.\nAction: get_weather\nAction Input: {\"city\": \"Oslo\"}"
    turns = [{"text": BROKEN, "split": 5}, {"text": fixed}, {"text": "Thought: done.\nFinal Answer: Sunny in Oslo."}]
    result = run(turns, query="Weather in Oslo?", tools=[weather_tool()], strategy="ReAct")
    assert_clean_end(result)
    run.backend.assert_complete()
    assert result.text == "Sunny in Oslo."
    assert len(result.tool_requests) == 1
    assert prompts.TOOL_CALL_UNREADABLE_REACT in str(result.llm_requests[1]["prompt_messages"])


def test_react_keeps_a_tutorial_showing_broken_markup_in_a_fence_as_its_answer(run):
    tutorial = "MiniMax writes a call like this:\n\n```xml\n" + BROKEN + "\n```\n\nYour parser reads it."
    result = run([{"text": tutorial, "split": 7}], query="How does MiniMax call tools?", tools=[weather_tool()], strategy="ReAct")
    assert_clean_end(result)
    assert result.text == tutorial
    assert len(result.llm_requests) == 1
