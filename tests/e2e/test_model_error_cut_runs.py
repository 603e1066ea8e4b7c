"""A reply the model plugin ends with an error that says the output limit cut it, through the
real plugin, in both strategies.

The Anthropic plugin from 0.3.33 (1c274cb) raises "Anthropic returned incomplete tool arguments
(stop_reason=max_tokens). Increase max_tokens and retry." after the reply's text streamed, when
the limit fell inside a tool call's arguments. The run used to end there with "model call failed".
Now that reply is a cut one: its text stays shown (once), nothing of it runs, the model is asked
again once, with its text sent back as it wrote it and the note as a message of its own; a second
cut, by either signal, ends the run with the output-limit notice. Any other error mid-stream still
ends the run with the model's failure.
"""

import json
from typing import Any, ClassVar

import pytest

from agent_core import prompts
from local_runner.backends import content_text, make_usage
from local_runner.contracts.anthropic import AnthropicContract
from local_runner.contracts.base import BrainCall, Reply, TaskBrain
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end, call_turn, prompt_text, weather_tool
from tests.e2e.test_provider_round_trip import _run

CUT_ERROR = "Anthropic returned incomplete tool arguments (stop_reason=max_tokens). Increase max_tokens and retry."
LEAD = "Let me check the weather."


def lead_turn(strategy: str) -> str:
    """The text a reply streams before the plugin raises (ReAct: a step whose action never closed)."""
    if strategy == "ReAct":
        return f'Thought: {LEAD}\nAction:\n```\n{{"action": "get_weather", "action_input": {{"city": "Par'
    return LEAD


def cut_by_error(strategy: str) -> dict:
    return {"text": lead_turn(strategy), "split": 4, "error": CUT_ERROR}


def thoughts(result) -> list:
    return [node for node in result.logs.values() if node.label.endswith("Thought")]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_reply_the_plugin_ends_with_its_cut_error_is_asked_again_and_the_run_answers(run, strategy):
    turns = [
        cut_by_error(strategy),
        call_turn(strategy, "get_weather", {"city": "Paris"}),
        answer_turn(strategy, "It is sunny in Paris."),
    ]
    result = run(turns, query="Weather in Paris?", tools=[weather_tool()], strategy=strategy)
    assert_clean_end(result)
    assert len(result.llm_requests) == 3
    assert [request["tool_parameters"] for request in result.tool_requests] == [{"city": "Paris"}]  # only round 2's
    assert result.text.endswith("It is sunny in Paris.")
    if strategy == "function_calling":
        assert result.text.count(LEAD) == 1  # the streamed text stays, shown once
    assert "Par\n" not in result.text and '"action"' not in result.text  # no partial call shown
    # the model reads its own text back as it wrote it, then the note as a message of its own
    second = result.llm_requests[1]["prompt_messages"]
    if strategy == "function_calling":
        assistant = [m for m in second if m["role"] == "assistant"][-1]
        assert LEAD in json.dumps(assistant["content"])
        assert second[-1]["role"] != "assistant" and prompts.REPLY_CUT in json.dumps(second[-1]["content"])
    else:
        assert prompts.REPLY_CUT in prompt_text(result.llm_requests[1])
    first = thoughts(result)[0]
    assert first.status != "start" and first.status != "error"
    assert "incomplete tool arguments" in first.data["cut_by_model_error"]
    assert "failed" not in result.text


def test_usage_reported_before_the_plugin_s_cut_error_is_counted(run):
    """A plugin that reported usage before it raised for the cut was billed for it: the Thought
    node and the run's total keep it."""
    raw = {"chunks": [{"content": LEAD, "usage": make_usage(300, 64)}], "error": CUT_ERROR}
    turns = [raw, {"text": "It is sunny.", "usage": {"prompt_tokens": 400, "completion_tokens": 5}}]
    result = run(turns, query="Weather in Paris?", tools=[weather_tool()])
    assert_clean_end(result)
    first, second = thoughts(result)
    assert first.tokens == 364 and second.tokens == 405
    assert result.execution_metadata["total_tokens"] == 769


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_reply_cut_again_by_the_plugin_s_error_ends_with_the_output_limit_notice(run, strategy):
    result = run([cut_by_error(strategy), cut_by_error(strategy)], query="Weather in Paris?",
                 tools=[weather_tool()], strategy=strategy)
    assert_clean_end(result)
    assert result.tool_requests == [] and len(result.llm_requests) == 2
    assert result.text.endswith(prompts.STOPPED_AT_OUTPUT_LIMIT)
    if strategy == "function_calling":
        assert result.text.count(LEAD) == 1  # the second reply repeated it: not shown again
    assert all(node.status != "start" for node in thoughts(result))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_reply_cut_by_finish_reason_then_by_the_plugin_s_error_ends_with_the_notice(run, strategy):
    """Either signal counts: a call cut by ``length``, then the plugin's error, is two cuts in a row."""
    cut_call = '{"name": "get_weather", "arguments": {"city": "Par'  # Function Calling: a call in the content
    first = {"text": lead_turn(strategy) if strategy == "ReAct" else cut_call, "finish_reason": "length"}
    result = run([first, cut_by_error(strategy)], query="Weather in Paris?", tools=[weather_tool()],
                 strategy=strategy)
    assert_clean_end(result)
    assert result.tool_requests == [] and len(result.llm_requests) == 2
    assert result.text.endswith(prompts.STOPPED_AT_OUTPUT_LIMIT)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_answer_cut_then_its_rest_cut_by_the_plugin_s_error_ends_with_the_answer_cut_notice(run, strategy):
    first = {**answer_turn(strategy, "The three laws are: one, two"), "finish_reason": "length"}
    rest = {"text": ", and thr", "error": CUT_ERROR}
    result = run([first, rest], query="List the laws.", strategy=strategy)
    assert_clean_end(result)
    assert len(result.llm_requests) == 2
    assert result.text.startswith("The three laws are: one, two")
    assert result.text.endswith(prompts.ANSWER_CUT_OFF)


@pytest.mark.parametrize("error", [
    "upstream 502",
    "Anthropic returned incomplete tool arguments (stop_reason=end_turn). Increase max_tokens and retry.",
    "max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens",
])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_any_other_error_mid_stream_still_fails_the_run(run, strategy, error):
    result = run([{"text": lead_turn(strategy), "split": 4, "error": error}], query="Weather in Paris?",
                 tools=[weather_tool()], strategy=strategy)
    assert not result.ok
    assert "model call failed in round 1" in result.error_text and error.split(" (")[0][:40] in result.error_text
    assert result.unfinished_logs() == []
    assert result.tool_requests == [] and len(result.llm_requests) == 1
    (thought,) = thoughts(result)
    assert thought.status == "error"


# --- through the Anthropic contract backend, which raises as the plugin (1c274cb) does --------------


class AnthropicAtMaxTokens(AnthropicContract):
    """Claude with thinking on and ``max_tokens`` just above the thinking budget: a call whose
    input is longer than what is left is cut inside it, and the plugin raises."""

    completion_params: ClassVar[dict[str, Any]] = {"thinking": True, "thinking_budget": 1024, "max_tokens": 1100}


class LongCallBrain(TaskBrain):
    """Calls the calculator with a long input ``long_turns`` times (cut by ``max_tokens``), then
    with a short one, then answers with its result."""

    def __init__(self, long_turns: int = 1, text: str = "Computing.") -> None:
        super().__init__()
        self.long_turns, self.text = long_turns, text

    def reply(self, request):
        self.turns += 1
        reasoning = f"Step {self.turns}."
        messages = request.get("prompt_messages") or []
        if messages and messages[-1].get("role") == "tool":
            return Reply(reasoning=reasoning, text=self.answer_prefix + content_text(messages[-1]["content"]).strip())
        expression = "37 * 91" + (" + 0" * 2_000 if self.turns <= self.long_turns else "")
        call = BrainCall(id=f"toolu_{self.turns}", name="calculator", arguments={"expression": expression})
        return Reply(reasoning=reasoning, text=self.text, calls=(call,))


@pytest.mark.parametrize("text", ["Computing.", ""])  # the call cut after text, or with only thinking before it
def test_the_anthropic_contract_s_cut_error_is_asked_again_and_the_run_answers(plugin, text):
    backend, toolbox, result = _run(plugin, AnthropicAtMaxTokens, "function_calling", "stream",
                                    brain=LongCallBrain(text=text))
    assert backend.rejections == [], [str(r) for r in backend.rejections]  # the replayed turns are valid for Claude
    assert_clean_end(result)
    assert [call.request["tool_parameters"]["expression"] for call in toolbox.calls] == ["37 * 91"]
    assert "3367" in result.text and result.text.count("Computing.") == (1 if text else 0)
    assert len(backend.provider_requests) == 3
    assert prompts.REPLY_CUT in prompt_text(backend.requests[1])


def test_the_anthropic_contract_s_cut_error_twice_ends_with_the_output_limit_notice(plugin):
    backend, toolbox, result = _run(plugin, AnthropicAtMaxTokens, "function_calling", "stream",
                                    brain=LongCallBrain(long_turns=2))
    assert_clean_end(result)
    assert toolbox.calls == [] and len(backend.provider_requests) == 2
    assert result.text.endswith(prompts.STOPPED_AT_OUTPUT_LIMIT)
