"""ReAct through the real plugin process, replaying what real models write
(cases of kind "react text" in docs/real-world-cases.md)."""

import json

import pytest

from agent_core.loop import MAX_THOUGHT_ONLY_REPLIES
from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import answer_turn, assert_clean_end, weather_tool


def react(run, turns, **kwargs):
    return run(turns, strategy="ReAct", **kwargs)


def last_prompt_text(request: dict) -> str:
    return "\n".join(str(m["content"]) for m in request["prompt_messages"])



ACTION = 'Thought: I need the weather.\nAction:\n```json\n{"action": "get_weather", "action_input": {"city": "Paris"}}\n```'


def test_action_observation_and_streamed_final_answer(run):
    result = react(
        run,
        [{"text": ACTION, "split": 5, "usage": {"prompt_tokens": 100, "completion_tokens": 20}},
         {"text": "Thought: I know it.\nFinal Answer: It is sunny in Paris.", "split": 4,
          "usage": {"prompt_tokens": 150, "completion_tokens": 10}}],
        query="Weather in Paris?",
        tools=[weather_tool()],
    )
    assert_clean_end(result)
    assert result.text == "It is sunny in Paris."
    answer_pieces = [m["message"]["text"] for m in result.messages if m["type"] == "text"]
    assert len(answer_pieces) > 1, "the final answer streams in pieces"
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    first, second = result.llm_requests
    assert first["tools"] is None and "Observation" in first["stop"]
    assert "get_weather" in first["prompt_messages"][0]["content"]
    assert "Observation: Sunny, 21 C" in last_prompt_text(second)
    assert [n.label for n in result.root_logs()] == ["ROUND 1", "ROUND 2"]
    assert result.execution_metadata["total_tokens"] == 280


def test_classic_action_input_pair_with_partial_stop_word(run):
    """qwen197: 'Action Input' string with a trailing partial 'Observ'."""
    tool = ScriptedTool(name="get_word_length", parameters=[ToolParam("word")], responses=[text_message("14")])
    text = "我需要计算这个字符串的长度。\nAction: get_word_length\nAction Input: 'hwchasfffffe17'\nObserv"
    result = react(run, [{"text": text, "split": 3}, {"text": "Final Answer: 14"}], tools=[tool])
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"word": "hwchasfffffe17"}]
    assert result.text == "14"


def test_invented_observation_is_never_trusted(run):
    """dspygo167-like: the model writes its own Observation and a Final Answer after the action."""
    text = ACTION + "\nObservation: Rainy, 5 C\nThought: done\nFinal Answer: It is rainy."
    result = react(run, [{"text": text, "split": 6}, {"text": "Final Answer: Sunny, 21 C."}], tools=[weather_tool()])
    assert_clean_end(result)
    assert len(result.tool_requests) == 1
    assert result.text == "Sunny, 21 C."
    assert "Rainy" not in last_prompt_text(result.llm_requests[1])


def test_python_literals_and_think_blocks(run):
    """nat1666 / nat2227: Python-literal input, reasoning in <think>."""
    text = "<think>The user wants weather.</think>Thought: look it up\nAction: get_weather\nAction Input: {'city': 'Oslo', 'units': None}"
    result = react(run, [{"text": text, "split": 4}, {"text": "<think>ok</think>Final Answer: Cold."}], tools=[weather_tool()])
    assert_clean_end(result)
    assert result.tool_requests[0]["tool_parameters"]["city"] == "Oslo"
    assert result.text == "Cold."
    thought = next(n for n in result.logs.values() if n.label.endswith("Thought"))
    assert "The user wants weather." in thought.data["reasoning"]


def test_plain_prose_is_the_final_answer(run):
    result = react(run, [{"text": "Hello! How can I help you today?", "split": 5}], query="hi")
    assert_clean_end(result)
    assert result.text == "Hello! How can I help you today?"


def test_action_none_is_a_direct_answer_without_leaking_thought(run):
    """crewai4186 / llamaindexts858."""
    text = "Thought: No tool is needed here.\nAction: None\nAction Input: None\n\nI am fine, thanks for asking!"
    result = react(run, [{"text": text}], query="How are you?", tools=[weather_tool()])
    assert_clean_end(result)
    assert "Thought:" not in result.text and result.tool_requests == []
    assert "I am fine" in result.text


def test_format_problem_is_told_to_the_model_then_recovered(run):
    """dop3699: 'Action_input' without 'Action' is not an answer; the model is re-prompted."""
    bad = 'Thought: I need to search\nAction_input: {"input": "x"}'
    result = react(run, [{"text": bad}, {"text": ACTION}, {"text": "Final Answer: Sunny."}], tools=[weather_tool()])
    assert_clean_end(result)
    assert result.text == "Sunny."
    assert "did not follow the format" in last_prompt_text(result.llm_requests[1])
    assert "I am thinking about how to help you" not in result.text


def test_unparseable_replies_end_in_a_clear_error(run):
    bad = {"text": 'Thought: hmm\nAction_input: {"input": "x"}'}
    result = react(run, [bad, bad, bad], tools=[weather_tool()])
    assert not result.ok
    assert "could not be understood" in result.error_text
    assert result.unfinished_logs() == []


def test_openai_envelope_and_schema_echo(run):
    """dop3705 (function envelope inside ReAct text) and llamaindex12699 (schema echoed as args)."""
    clock = ScriptedTool(name="current_date", responses=[text_message("2026-11-23")])
    envelope = 'Thought: weather\n{"tool_call": {"function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Lima\\"}"}}}'
    echo = "Thought: date\nAction: current_date\nAction Input: {'type': 'object', 'properties': {}}"
    result = react(run, [{"text": envelope}, {"text": echo}, {"text": "Final Answer: done"}], tools=[weather_tool(), clock])
    assert_clean_end(result)
    assert [(r["tool"], r["tool_parameters"]) for r in result.tool_requests] == [
        ("get_weather", {"city": "Lima"}), ("current_date", {})]


def test_completion_model_gets_one_prompt_ending_in_thought(run):
    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello!"}]
    result = react(run, [{"text": " I know.\nFinal Answer: 4"}], query="2+2?", history=history,
                   model={"mode": "completion"}, tools=[weather_tool()])
    assert_clean_end(result)
    (message,) = result.llm_requests[0]["prompt_messages"]
    assert message["role"] == "user"
    prompt = message["content"]
    assert prompt.endswith("Thought:") and "Question: hi" in prompt and "Question: 2+2?" in prompt
    assert result.text == "4"


def test_completion_model_prompt_teaches_by_example_and_continues_the_scratchpad(run):
    """A base model copies what it sees: no placeholder to copy, a concrete call of the real tool,
    and round 2 continues the same Question block in the format the prompt taught."""
    turns = [{"text": ' I will use get_weather.\nAction: get_weather\nAction Input: {"city": "Lima"}\n'},
             {"text": " I know the final answer.\nFinal Answer: Sunny, 21 C"}]
    result = react(run, turns, query="Weather in Lima?", model={"mode": "completion"}, tools=[weather_tool()])
    assert_clean_end(result)
    assert result.text == "Sunny, 21 C"
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Lima"}]
    first, second = (r["prompt_messages"][0]["content"] for r in result.llm_requests)
    assert "<" not in first and "the tool input" not in first.lower()
    assert 'Action: get_weather\nAction Input: {"city": "city name"}' in first  # the real tool, called
    assert second.startswith(first.removesuffix("\nThought:"))
    assert second.endswith('Question: Weather in Lima?\nThought: I will use get_weather.\nAction: get_weather\n'
                           'Action Input: {"city": "Lima"}\nObservation: Sunny, 21 C\nThought:')
    assert result.llm_requests[0]["stop"] == ["Observation", "\nQuestion:"]


def test_unknown_action_is_refused_with_the_tool_list(run):
    text = 'Thought: x\nAction: {"action": "search_web", "action_input": {"q": "x"}}'
    result = react(run, [{"text": text}, {"text": "Final Answer: I cannot search."}], tools=[weather_tool()])
    assert_clean_end(result)
    assert result.tool_requests == []
    assert "no tool named 'search_web'" in last_prompt_text(result.llm_requests[1])


def test_iteration_limit_ends_with_an_answer(run):
    result = react(run, [{"text": ACTION}, {"text": "Final Answer: Sunny."}], tools=[weather_tool()], maximum_iterations=1)
    assert_clean_end(result)
    assert result.text == "Sunny."
    assert "Do not call any more tools" in result.llm_requests[1]["prompt_messages"][0]["content"]


@pytest.mark.parametrize(
    ("reply", "answer"),
    [
        ("Thought: Based on the tool, Paris is sunny and 21 C.", "Based on the tool, Paris is sunny and 21 C."),
        ("<think>Final Answer: Paris is sunny.", "Paris is sunny."),
    ],
    ids=["thought", "reasoning"],
)
def test_iteration_limit_answer_written_without_its_label_is_the_answer(run, reply, answer):
    """Told to answer now, the model writes its answer as a Thought (or inside a reasoning
    block it never closes): that is the answer, not "stopped without a final answer"."""
    result = react(run, [{"text": ACTION}, {"text": reply}], tools=[weather_tool()], maximum_iterations=1)
    assert_clean_end(result)
    assert result.text == answer
    assert len(result.llm_requests) == 2


@pytest.mark.parametrize(
    "reply",
    [
        "Thought: I need to call get_weather again for Rome.",
        "Thought: I now know the final answer.",
        'Thought: {"action": "get_time", "action_input": {}}',
        "<think>I will call get_weather for Rome</think>",
    ],
    ids=["names-a-tool", "announces", "call-envelope", "reasoning-names-a-tool"],
)
def test_iteration_limit_thought_still_on_its_way_to_a_tool_result_is_not_the_answer(run, reply):
    """A last Thought that plans a call, writes one or only announces the answer is no answer:
    the run says it stopped, as it did before such Thoughts were taken as answers."""
    result = react(run, [{"text": ACTION}, {"text": reply}], tools=[weather_tool()], maximum_iterations=1)
    assert_clean_end(result)
    assert result.text.startswith("The agent stopped after 1 round without a final answer")
    assert len(result.llm_requests) == 2


def test_thought_only_replies_that_plan_a_call_are_asked_again_until_the_model_acts(run):
    """Two Thoughts in a row that name a tool are the model meaning to act: asked again (as for
    any unreadable reply), it acts, and the tool's result answers."""
    thought = {"text": "Thought: I should use get_weather to check Paris."}
    result = react(run, [thought, thought, {"text": ACTION}, answer_turn("ReAct", "Sunny.")], tools=[weather_tool()])
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    assert result.text == "Sunny."


def test_iteration_limit_with_an_action_in_the_answer_round_still_ends_with_the_message(run):
    result = react(run, [{"text": ACTION}, {"text": ACTION}], tools=[weather_tool()], maximum_iterations=1)
    assert_clean_end(result)
    assert result.text.startswith("The agent stopped after 1 round without a final answer")


def test_iteration_limit_a_thought_written_with_an_action_is_not_passed_off_as_the_answer(run):
    """Told to answer now, the model still calls a tool: its action says it is not done, so its
    Thought (findings so far, a plan) is no answer, whatever it holds (the official ReAct strategy
    shows only the limit message too). The user gets the message; the Thought stays in the log."""
    thought = "Paris is sunny and 21 C. Rome is next."
    action = '{"action": "get_weather", "action_input": {"city": "Rome"}}'
    reply = f"Thought: {thought}\nAction:\n```json\n{action}\n```"
    result = react(run, [{"text": ACTION}, {"text": reply}], tools=[weather_tool()], maximum_iterations=1)
    assert_clean_end(result)
    assert result.text.startswith("The agent stopped after 1 round without a final answer")
    assert thought not in result.text
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    last = [n for n in result.logs.values() if n.label.endswith(" Thought")][-1]
    assert thought in json.dumps(last.data)


@pytest.mark.parametrize("model_name, stops", [("gpt-4o-mini", ["Observation"]), ("o3-mini", None)])
def test_stop_words_except_for_models_that_reject_them(run, model_name, stops):
    result = react(run, [{"text": "Final Answer: hi"}], model={"model": model_name})
    assert_clean_end(result)
    assert result.llm_requests[0]["stop"] == stops


def test_no_placeholder_and_json_is_not_an_action_in_thought(run):
    text = 'Thought: the config is {"debug": true} which is fine.\nFinal Answer: All good.'
    result = react(run, [{"text": text, "split": 3}], tools=[weather_tool()])
    assert_clean_end(result)
    assert result.text == "All good." and result.tool_requests == []


def test_action_input_that_cannot_be_read_is_refused_with_the_reason(run):
    """json_repair would run {"city": 37 * 91} as {"city": 37}: the model is told instead."""
    bad = 'Thought: weather\nAction: get_weather\nAction Input: {"city": 37 * 91}'
    good = 'Thought: fix it\nAction: get_weather\nAction Input: {"city": "Lima Peru"}'
    result = react(run, [{"text": bad}, {"text": good}, {"text": "Final Answer: Sunny."}], tools=[weather_tool()])
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Lima Peru"}]
    second = last_prompt_text(result.llm_requests[1])
    assert 'Action Input: {"city": 37 * 91}' in second
    assert "was not run: its arguments are not valid JSON" in second
    assert result.text == "Sunny."


def test_json_answer_object_is_the_answer(run):
    text = '{"thought": "I know this", "final_answer": "Paris is the capital."}'
    result = react(run, [{"text": text, "split": 4}], tools=[weather_tool()])
    assert_clean_end(result)
    assert result.text == "Paris is the capital." and not result.tool_requests


def test_json_shown_in_a_thought_is_not_run_when_a_labelled_action_follows(run):
    """dify-official-plugins#3861: a JSON object in the thought (an example of the format) ran
    instead of the real action; only the labelled action runs, and the example stays thought."""
    text = (
        'Thought: the tool takes input like\n{"action": "get_weather", "action_input": {"city": "Example"}}\n'
        'Action: get_weather\nAction Input: {"city": "Paris"}'
    )
    result = react(run, [{"text": text, "split": 7}, {"text": "Final Answer: Sunny."}], tools=[weather_tool()])
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    assert result.text == "Sunny."


def test_a_model_that_keeps_answering_after_a_thought_without_the_label_gets_its_answer_through(run):
    """A small model that writes "Thought: ..." and then its answer, never "Final Answer:", is
    re-prompted; when it keeps doing so, its text is the answer (as the official ReAct takes it),
    never an error with a usable answer in hand."""
    reply = {"text": "Thought: The user greets me again; no tool is needed.\nHello again! Nice to see you."}
    result = react(run, [reply] * 3, tools=[weather_tool()])
    assert_clean_end(result)
    assert result.text == "The user greets me again; no tool is needed.\nHello again! Nice to see you."
    assert len(result.llm_requests) == MAX_THOUGHT_ONLY_REPLIES == 2  # one re-prompt, not two
    assert "neither an Action nor a Final Answer" in last_prompt_text(result.llm_requests[1])


def test_a_thought_only_reply_is_re_prompted_once_and_a_model_that_meant_to_act_then_acts(run):
    """The one re-prompt is what a model that stopped after "I need to check..." needs."""
    turns = [{"text": "Thought: I need to check the weather in Paris first."}, {"text": ACTION}, answer_turn("ReAct", "Sunny.")]
    result = react(run, turns, tools=[weather_tool()])
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    assert result.text == "Sunny."


def test_a_thought_only_reply_after_an_unreadable_one_is_re_prompted_again(run):
    """Only Thought-only replies in a row end early: after a broken action the model is
    still re-prompted, as for any unreadable reply."""
    broken = {"text": 'Thought: check\nAction:\n```json\n{"action": "get_weather", "action_input": {"city": \n```'}
    thought = {"text": "Thought: I will try the tool again."}
    result = react(run, [broken, thought, {"text": ACTION}, answer_turn("ReAct", "Sunny.")], tools=[weather_tool()])
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    assert result.text == "Sunny."


@pytest.mark.parametrize(
    "model", [{"model": "qwq-32b"}, {"completion_params": {"enable_thinking": True, "max_tokens": 1024}}], ids=["name", "switch"]
)
def test_a_model_whose_template_opened_the_block_drafting_labels_in_its_reasoning_runs_its_real_action(run, model):
    """QwQ served without a reasoning parser writes its reasoning, a bare </think>, then the
    reply proper; a "Final Answer:" drafted in the reasoning is neither shown nor taken."""
    reasoning = "I could say Final Answer: probably sunny. But better check.\n</think>\n\n"
    turns = [
        {"text": reasoning + 'Thought: check\nAction: get_weather\nAction Input: {"city": "Paris"}', "split": 6},
        {"text": "Fine, it is sunny.\n</think>\n\nThought: done\nFinal Answer: Sunny, 21 C.", "split": 6},
    ]
    result = react(run, turns, tools=[weather_tool()], model=model)
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    assert result.text == "Sunny, 21 C."
    thought = next(n for n in result.logs.values() if n.label.endswith("Thought"))
    assert "probably sunny" in thought.data["reasoning"]


def test_an_unknown_model_closing_a_block_it_never_opened_after_drafting_an_answer_runs_its_action(run):
    """Any model: labels before a bare </think> were reasoning; the reply after it is the
    turn, and later replies are held until their </think>."""
    turns = [
        {"text": 'Draft: Final Answer: cold?</think>\nThought: check\nAction: get_weather\nAction Input: {"city": "Paris"}'},
        {"text": "Now Final Answer: drafted</think>\nThought: done\nFinal Answer: Sunny.", "split": 3},
    ]
    result = react(run, turns, tools=[weather_tool()])
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    assert result.text.endswith("Sunny.")
    assert "drafted" not in result.text


def test_an_answers_own_action_items_reach_the_user_when_a_thought_follows_them(run):
    """Meeting minutes' "Action:" items, then a thought written on past the answer: the items are
    the answer's text (only an "Action:" line with the format's next step after it is not)."""
    answer = "Minutes:\n- Decided: ship v2\nAction: John to send the notes\nAction: Mary to book the room"
    result = react(run, [{"text": f"Thought: I know it.\nFinal Answer: {answer}\nThought: done.", "split": 3}])
    assert_clean_end(result)
    assert result.text == answer
