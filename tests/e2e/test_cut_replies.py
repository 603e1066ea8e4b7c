"""A reply cut by the model's output limit (finish_reason "length") is never run as a call and
never passed off as a complete answer, through the real plugin."""

import json

import pytest

from agent_core import prompts
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end, prompt_text

ADD = {"name": "calculator", "arguments": {"expression": "2 + 2"}}


def cut(turn: dict, reason: str = "length") -> dict:
    return {**turn, "finish_reason": reason}


# Anthropic's "max_tokens"; Vertex AI and Gemini plugins print google-genai's enum member;
# Mistral's "model_length"; Anthropic's "model_context_window_exceeded"; servers that name it after
# Hugging Face's "max_length"; a plugin that leaves a line break after it
@pytest.mark.parametrize("reason", ["length", "max_tokens", "FinishReason.MAX_TOKENS", "model_length",
                                    "model_context_window_exceeded", "max_length", "length\n"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_cut_answer_is_continued_where_it_stopped(run, strategy, reason):
    first = cut(answer_turn(strategy, "The three laws are: one, two"), reason)
    rest = {"text": ", and three."}
    result = run([first, rest], query="List the laws.", strategy=strategy)
    assert_clean_end(result)
    assert result.text == "The three laws are: one, two, and three."
    assert prompts.CONTINUE_CUT_ANSWER in prompt_text(result.llm_requests[1])


@pytest.mark.parametrize(("cut_at", "rest", "joined"), [
    ("Steps:\n1. Open the app", "\n2. Sign in.", "Steps:\n1. Open the app\n2. Sign in."),
    ("First, the laws,", " then the cases.", "First, the laws, then the cases."),
])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_continuation_keeps_the_line_break_or_space_it_starts_with(run, strategy, cut_at, rest, joined):
    """A continuation that starts a new line (the next item of a list) or a new word after a comma
    keeps that line break or space; the readers drop a reply's leading whitespace, and the
    answer read "Open the app 2. Sign in." and "laws,then"."""
    result = run([cut(answer_turn(strategy, cut_at)), {"text": rest}], query="How?", strategy=strategy)
    assert_clean_end(result)
    assert result.text == joined


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_answer_cut_twice_ends_with_a_clear_notice(run, strategy):
    turns = [cut(answer_turn(strategy, "Part one")), cut({"text": " and part two"})]
    result = run(turns, query="Write a lot.", strategy=strategy)
    assert_clean_end(result)
    assert result.text.startswith("Part one and part two")
    assert result.text.endswith(prompts.ANSWER_CUT_OFF)
    assert len(result.llm_requests) == 2


def test_function_calling_call_cut_in_the_content_is_not_run(run):
    content = '{"name": "calculator", "arguments": {"expression": "2 +'
    turns = [cut({"text": content}), {"tool_calls": [{"id": "c", **ADD}]}, {"text": "4."}]
    result = run(turns, query="2+2?", tools=["calculator"])
    assert_clean_end(result)
    assert result.text == "4."
    assert len(result.tool_requests) == 1  # only the complete call of round 2 ran
    assert prompts.REPLY_CUT in prompt_text(result.llm_requests[1])
    assert content not in result.text


def test_react_action_cut_inside_its_input_is_not_run(run):
    action = 'Thought: add.\nAction: calculator\nAction Input: {"expression": "2 + 2'
    again = "Thought: add.\nAction:\n```json\n" + json.dumps({"action": "calculator", "action_input": {"expression": "2 + 2"}}) + "\n```"
    turns = [cut({"text": action}), {"text": again}, {"text": "Thought: done.\nFinal Answer: 4."}]
    result = run(turns, query="2+2?", tools=["calculator"], strategy="ReAct")
    assert_clean_end(result)
    assert result.text == "4."
    assert len(result.tool_requests) == 1
    assert prompts.REPLY_CUT in prompt_text(result.llm_requests[1])


def complete_call_turn(strategy: str) -> dict:
    """A turn whose call is complete, in the strategy's own format."""
    if strategy == "ReAct":
        return {"text": "Thought: add.\nAction:\n```json\n" + json.dumps({"action": "calculator", "action_input": ADD["arguments"]}) + "\n```"}
    return {"tool_calls": [{"id": "c", **ADD}]}


@pytest.mark.parametrize("reason", ["length", "MAX_TOKENS"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_call_that_reads_whole_in_a_cut_reply_is_not_run_and_the_model_is_told(run, strategy, reason):
    """The reply hit the limit: it may miss calls or arguments, so none of its calls run (they
    are answered "not run", which every provider needs); the model calls again."""
    turns = [cut(complete_call_turn(strategy), reason), complete_call_turn(strategy), answer_turn(strategy, "4.")]
    result = run(turns, query="2+2?", tools=["calculator"], strategy=strategy)
    assert_clean_end(result)
    assert result.text == "4."
    assert len(result.tool_requests) == 1  # only round 2's call ran
    assert "cut off by the output limit" in prompt_text(result.llm_requests[1])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_calls_cut_twice_in_a_row_end_the_run_with_a_clear_notice(run, strategy):
    turns = [cut(complete_call_turn(strategy)), cut(complete_call_turn(strategy))]
    result = run(turns, query="2+2?", tools=["calculator"], strategy=strategy)
    assert_clean_end(result)
    assert result.text.endswith(prompts.STOPPED_AT_OUTPUT_LIMIT)
    assert result.tool_requests == [] and len(result.llm_requests) == 2



@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_model_that_keeps_answering_inside_its_unclosed_think_gets_that_answer_shown(run, strategy):
    """lobehub/lobehub#5672 (deepseek-r1, glm-zero): the reply opens <think> and never closes it,
    its answer inside. Asked again; when the retries run out, that text is the answer rather
    than an error saying there was none."""
    reply = {"text": "<think>\n你好！很高兴见到你。有什么我可以帮助你的吗？", "finish_reason": "stop"}
    result = run([reply, reply, reply], query="你好", strategy=strategy)
    assert_clean_end(result)
    assert result.text == "你好！很高兴见到你。有什么我可以帮助你的吗？"
    assert len(result.llm_requests) == 3


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_model_that_keeps_answering_only_in_its_reasoning_gets_that_answer_shown(run, strategy):
    """A server that puts the whole answer in reasoning_content (BerriAI/litellm#14917), which
    Dify's OpenAI-compatible plugin wraps in a closed <think> block: asked again; when the
    retries run out, that text is the answer rather than an error saying there was none."""
    reply = {"text": "<think>\nThe capital question is easy. Paris.\n</think>", "finish_reason": "stop"}
    result = run([reply, reply, reply], query="Capital of France?", strategy=strategy)
    assert_clean_end(result)
    assert result.text == "The capital question is easy. Paris."
    assert len(result.llm_requests) == 3


def test_a_cut_reply_that_never_left_its_think_is_not_taken_for_an_answer(run):
    reply = cut({"text": "<think>\nFirst I should look up the"})
    result = run([reply, reply], query="weather?")
    assert_clean_end(result)
    assert "First I should" not in result.text and result.text.endswith(prompts.STOPPED_AT_OUTPUT_LIMIT)
    assert len(result.llm_requests) == 2


# --- what a continuation of a cut answer may hold ----------------------------------------------

CUT_AT = "The sum is"


def markup_call(expression: str = "2 + 2") -> str:
    return "<tool_call>" + json.dumps({"name": "calculator", "arguments": {"expression": expression}}) + "</tool_call>"


CALLS_AFTER_THE_REST = [  # the strategy, the continuation, whether the log names a call not run
    ("ReAct", {"text": ' four.\nAction: calculator\nAction Input: {"expression": "2 + 2"}'}, True),
    ("ReAct", {"text": " four.\n" + markup_call()}, True),
    ("function_calling", {"text": " four.", "tool_calls": [{"id": "c", **ADD}]}, True),
    ("function_calling", {"text": " four.\n" + markup_call()}, True),
]


@pytest.mark.parametrize(("strategy", "rest", "called"), CALLS_AFTER_THE_REST)
def test_a_call_written_after_a_continuation_s_text_is_not_run_and_the_answer_stands(run, strategy, rest, called):
    """The user was shown the answer's start and its rest: the call the model wrote on with ran,
    and a second answer followed ("The sum is four.\\n\\n4."), or in ReAct the rest was read as a
    thought and never shown. A call the reader took is named in the log; ReAct's Action lines
    after an answer end it, as after any Final Answer, and are named too (the step left unread)."""
    turns = [cut(answer_turn(strategy, CUT_AT)), rest, answer_turn(strategy, "4.")]
    result = run(turns, query="2+2?", tools=["calculator"], strategy=strategy)
    assert_clean_end(result)
    assert result.tool_requests == []
    assert result.text.rstrip() == "The sum is four."
    assert len(result.llm_requests) == 2
    thoughts = [n for n in result.logs.values() if n.label.endswith("Thought")]
    assert ("calculator" in thoughts[-1].data.get("calls_not_run_after_answer", "")) == called


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_continuation_that_is_only_a_call_runs_it_and_its_answer_follows(run, strategy):
    """No text came: the model found it needs a tool after all. The call runs (as any call of the
    run), and the answer written with its result follows the cut start after a paragraph break."""
    turns = [cut(answer_turn(strategy, CUT_AT)), complete_call_turn(strategy), answer_turn(strategy, "4.")]
    result = run(turns, query="2+2?", tools=["calculator"], strategy=strategy)
    assert_clean_end(result)
    assert len(result.tool_requests) == 1
    assert result.text == "The sum is\n\n4."


RESTARTS = [
    ("ReAct", "Final Answer: The sum is four."),
    ("ReAct", "Thought: I finish my answer.\nFinal Answer: The sum is four."),
    ("function_calling", "The sum is four."),
]


@pytest.mark.parametrize(("strategy", "rest"), RESTARTS)
def test_a_continuation_that_restarts_the_answer_does_not_show_its_start_twice(run, strategy, rest):
    """The model wrote its answer again from the start: the user read "The sum is The sum is
    four." (and in ReAct, for a reply in pieces, the label)."""
    turns = [cut(answer_turn(strategy, CUT_AT)), {"text": rest, "split": 3}]
    result = run(turns, query="2+2?", strategy=strategy)
    assert_clean_end(result)
    assert result.text == "The sum is four."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_continuation_that_thinks_first_shows_only_the_rest(run, strategy):
    turns = [cut(answer_turn(strategy, CUT_AT)), {"text": "<think>Where did I stop?</think> four."}]
    result = run(turns, query="2+2?", strategy=strategy)
    assert_clean_end(result)
    assert result.text == "The sum is four."


@pytest.mark.parametrize(("strategy", "rest"), [
    ("ReAct", {"text": ' four.\nAction: calculator\nAction Input: {"expression": "2 +'}),
    ("function_calling", {"text": " four.", "tool_calls": [{"id": "c", **ADD}]}),
])
def test_a_continuation_cut_again_with_a_call_after_its_text_ends_with_the_notice(run, strategy, rest):
    """Cut again: the answer shown ends with the notice, its call neither run nor asked for again."""
    turns = [cut(answer_turn(strategy, CUT_AT)), cut(rest), complete_call_turn(strategy), answer_turn(strategy, "4.")]
    result = run(turns, query="2+2?", tools=["calculator"], strategy=strategy)
    assert_clean_end(result)
    assert result.tool_requests == [] and len(result.llm_requests) == 2
    assert result.text.startswith("The sum is four.")
    assert result.text.endswith(prompts.ANSWER_CUT_OFF)


def test_a_completion_model_is_asked_for_the_rest_after_final_answer_and_it_is_read_so(run):
    """The completion prompt ended with "Thought:", so the rest the model wrote there was a
    thought and the Action after it ran; it now ends with "Final Answer:"."""
    rest = {"text": ' four.\nAction: calculator\nAction Input: {"expression": "2 + 2"}'}
    turns = [cut(answer_turn("ReAct", CUT_AT)), rest, answer_turn("ReAct", "4.")]
    result = run(turns, query="2+2?", tools=["calculator"], strategy="ReAct", model={"mode": "completion"})
    assert_clean_end(result)
    assert result.llm_requests[1]["prompt_messages"][-1]["content"].endswith("\nFinal Answer:")
    assert result.tool_requests == []
    assert result.text == "The sum is four."
