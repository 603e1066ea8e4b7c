"""Text held back when the model's stream fails or goes silent, end to end.

A short answer streamed in small pieces ("Ye", "s") is held until the reply shows it is no call;
when the daemon sent an error or the model fell silent before that, the user got only the
error, while "Paris is the capital" showed. What the user would have read had the reply ended
there is shown before the error (through the run's secrets guard); held call markup and a
partial step never are. Every run still ends with the clear error and no log node left open.
"""

import time

import pytest

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import STRATEGIES

ERROR = "upstream 502"


def lookup_tool(secret: str = "") -> ScriptedTool:
    params = [ToolParam("q")]
    runtime = {}
    if secret:
        params.append(ToolParam("api_key", type="secret-input", form="form"))
        runtime = {"api_key": secret}
    return ScriptedTool(name="lookup", description="Looks things up", parameters=params,
                        runtime_parameters=runtime, responses=[text_message("ok")])


def assert_failed_clearly(result, why: str = ERROR) -> None:
    assert not result.ok
    assert "model call failed in round 1" in result.error_text and why in result.error_text
    assert result.unfinished_logs() == [], [n.label for n in result.unfinished_logs()]
    (thought,) = [n for n in result.logs.values() if n.label.endswith("Thought")]
    assert thought.status == "error" and why in thought.error


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("answer", ["Yes", "partial"])
def test_a_short_answer_in_two_character_chunks_is_shown_before_a_daemon_error(run, strategy, answer):
    text = f"Thought: I know.\nFinal Answer: {answer}" if strategy == "ReAct" else answer
    result = run([{"text": text, "split": 2, "error": ERROR}], tools=[lookup_tool()], strategy=strategy)
    assert_failed_clearly(result)
    assert result.text == answer


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_short_answer_is_shown_when_the_model_goes_silent(run, strategy):
    text = "Thought: I know.\nFinal Answer: Yes" if strategy == "ReAct" else "Yes"
    started = time.monotonic()
    result = run([{"text": text, "split": 2, "hang": True}], tools=[lookup_tool()], strategy=strategy,
                 params={"model_timeout": 10})
    assert time.monotonic() - started < 30
    assert_failed_clearly(result, "no reply from the model for 10 seconds")
    assert result.text == "Yes"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_partial_final_answer_is_shown_with_the_error(run, strategy):
    """Decided: "Final Answer: Ye" shows "Ye" with the error. ReAct streams a final answer as it
    comes, so the user reads it there already; Function Calling holds a reply written as a ReAct
    step whole and now shows the same answer text, not the step."""
    result = run([{"text": "Thought: I know.\nFinal Answer: Ye", "split": 2, "error": ERROR}],
                 tools=[lookup_tool()], strategy=strategy)
    assert_failed_clearly(result)
    assert result.text == "Ye"


@pytest.mark.parametrize("text", [
    '{"name": "lookup", "arguments": {"q": "pa',  # a call object held whole
    '<tool_call>\n{"name": "lookup", "arg',
    "Checking.\n[TOOL_CALLS]lookup[ARGS]{\"q\"",  # Mistral's markup after a sentence
    "looku",  # a start of the tool's name (GLM writes the name above its arguments)
])
def test_call_markup_held_when_the_stream_fails_is_not_shown(run, text):
    result = run([{"text": text, "split": 2, "error": ERROR}], tools=[lookup_tool()])
    assert_failed_clearly(result)
    assert result.text == ("Checking.\n" if text.startswith("Checking") else "")
    assert "lookup" not in result.text and "{" not in result.text
    assert result.tool_requests == []


@pytest.mark.parametrize("text", [
    'Thought: I need data.\nAction: lookup\nAction Input: {"q": "pa',
    'Let me check.\n<tool_call>\n{"name": "lookup", "arg',
    "Thought: I should look",
])
def test_a_partial_react_step_is_not_shown_when_the_stream_fails(run, text):
    result = run([{"text": text, "split": 2, "error": ERROR}], tools=[lookup_tool()], strategy="ReAct")
    assert_failed_clearly(result)
    assert result.text == ""
    assert result.tool_requests == []


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_held_start_that_may_be_reasoning_is_not_shown(run, strategy):
    """Granite 3.2 writes its reasoning after "Here is my thought process:"; stopped before its
    "Here is my response:", all of it may be reasoning."""
    result = run([{"text": "Here is my thought process: the user asks", "split": 2, "error": ERROR}],
                 tools=[lookup_tool()], strategy=strategy)
    assert_failed_clearly(result)
    assert result.text == ""


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_held_text_shown_at_a_failure_passes_the_secrets_guard(run, strategy):
    secret = "k3yZ8qWm41"
    text = f"Thought: I know.\nFinal Answer: {secret}" if strategy == "ReAct" else secret
    result = run([{"text": text, "split": 2, "error": ERROR}], tools=[lookup_tool(secret)], strategy=strategy)
    assert_failed_clearly(result)
    assert secret not in result.text and "[REDACTED]" in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_error_on_the_first_chunk_is_clear_and_shows_nothing(run, strategy):
    result = run([{"error": ERROR}], tools=[lookup_tool()], strategy=strategy)
    assert_failed_clearly(result)
    assert result.text == ""


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_short_answer_cut_by_the_output_limit_is_kept_and_continued(run, strategy):
    """A reply the output limit cut while its text was held ends normally: its start is shown
    and the next reply goes on with it."""
    first = "Thought: I know.\nFinal Answer: Yes" if strategy == "ReAct" else "Yes"
    result = run([{"text": first, "split": 2, "finish_reason": "length"}, {"text": ", it is.", "split": 2}],
                 tools=[lookup_tool()], strategy=strategy)
    assert result.ok, result.error_text
    assert result.unfinished_logs() == []
    assert result.text == "Yes, it is."
