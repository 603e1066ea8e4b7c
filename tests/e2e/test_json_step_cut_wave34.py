"""ReAct's JSON steps cut by the output limit inside the answer's string, through the real plugin
process: the answer read so far is shown and its rest asked for once, as in text steps, whatever
layout the step used (``"action": "Final Answer"``, a string ``action_input``, the schema's own
``{"answer": ...}``); a cut step naming a tool is never run; a secret split across the cut is
hidden as in text steps (docs/architecture.md, the cut-reply rules)."""

import json

import pytest

from agent_core import prompts
from local_runner.tools import text_message
from tests.e2e.helpers import assert_clean_end, prompt_text, weather_tool
from tests.e2e.test_blind_combos_wave34 import assert_no_line_holds, check
from tests.e2e.test_red_team_wave31 import CANARY, vault

STRUCTURED = {"features": ["structured-output"]}
START = "The three laws are: one, two"
WHOLE = "The three laws are: one, two, and three."


def react(run, turns, **kwargs):
    return run(turns, strategy="ReAct", model=STRUCTURED, **kwargs)


def step(action, action_input):
    return json.dumps({"action": action, "action_input": action_input}, ensure_ascii=False)


def cut_step(action, action_input_is_text, answer):
    """A JSON final-answer step the output limit cut right after ``answer`` (its string open)."""
    action_input = answer if action_input_is_text else {"answer": answer}
    text = step(action, action_input)
    return text[: text.index(answer) + len(answer)]


LAYOUTS = {
    "Final Answer, string input": ("Final Answer", True),
    "final_answer, string input": ("final_answer", True),
    "Final Answer, answer object": ("Final Answer", False),
}
RESTS = {
    "plain text": ", and three.",
    "JSON step, schema layout": step("final_answer", {"answer": ", and three."}),
    "JSON step, Final Answer with a string": step("Final Answer", ", and three."),
    "JSON step writing the cut start again": step("Final Answer", WHOLE),  # shown from where it goes on
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("rest", list(RESTS))
def test_a_cut_json_answer_is_shown_and_its_rest_asked_for_once(run, layout, rest):
    action, as_text = LAYOUTS[layout]
    turns = [{"text": cut_step(action, as_text, START), "split": 6, "finish_reason": "length"},
             {"text": RESTS[rest]}, {"text": step("final_answer", {"answer": "never asked"})}]
    result = react(run, turns, query="List the laws.", tools=[weather_tool()])
    assert_clean_end(result)
    assert result.text == WHOLE
    assert result.tool_requests == [] and len(result.llm_requests) == 2
    continuation = prompt_text(result.llm_requests[1])
    assert prompts.CONTINUE_CUT_ANSWER in continuation and START in continuation
    pieces = [m["message"]["text"] for m in result.messages if m["type"] == "text"]
    assert pieces[0] == START, "the cut start is shown at the cut, before the rest is asked for"


def test_a_cut_json_answer_whose_string_had_closed_is_whole(run):
    """The limit fell after the answer's string closed (before the object's braces): nothing is
    missing, nothing is asked for."""
    text = step("Final Answer", WHOLE)[:-1]
    result = react(run, [{"text": text, "finish_reason": "length"}, {"text": step("final_answer", {"answer": "x"})}],
                   query="List the laws.", tools=[weather_tool()])
    assert_clean_end(result)
    assert result.text == WHOLE and len(result.llm_requests) == 1


@pytest.mark.parametrize("again", [
    cut_step("Final Answer", True, ", and thr"),
    cut_step("final_answer", False, ", and thr"),
])
def test_a_continuation_cut_again_keeps_both_parts_and_ends_with_the_notice(run, again):
    turns = [{"text": cut_step("Final Answer", True, START), "finish_reason": "length"},
             {"text": again, "finish_reason": "length"}, {"text": step("final_answer", {"answer": "never"})}]
    result = react(run, turns, query="List the laws.", tools=[weather_tool()])
    assert_clean_end(result)
    assert result.text.startswith(START + ", and thr")
    assert result.text.endswith(prompts.ANSWER_CUT_OFF)
    assert "never" not in result.text and len(result.llm_requests) == 2


def test_a_continuation_that_gives_no_rest_keeps_the_start_with_the_notice(run):
    turns = [{"text": cut_step("Final Answer", True, START), "finish_reason": "length"},
             {"text": '{"action": "get_weather", "action_input": {"city": "Par', "finish_reason": "length"},
             {"text": step("final_answer", {"answer": "never"})}]
    result = react(run, turns, query="List the laws.", tools=[weather_tool()])
    assert_clean_end(result)
    assert result.text.startswith(START) and result.text.endswith(prompts.ANSWER_CUT_OFF)
    assert result.tool_requests == [] and len(result.llm_requests) == 2


@pytest.mark.parametrize("cut", [
    '{"action": "get_weather", "action_input": {"city": "Par',
    '{"action": "get_weather", "action_input": "Par',
    '{"action": "get_weather", "action_input": {"city": "Paris"}',
    '{"action_input": {"answer": "Paris is sunny', '{"action": "Final Ans',
])
def test_a_cut_step_naming_a_tool_or_no_action_is_not_run_nor_shown(run, cut):
    turns = [{"text": cut, "finish_reason": "length"}, {"text": step("get_weather", {"city": "Rome"})},
             {"text": step("final_answer", {"answer": "Sunny in Rome."})}]
    result = react(run, turns, query="Weather in Rome?", tools=[weather_tool()])
    assert_clean_end(result)
    assert result.text == "Sunny in Rome."
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Rome"}]
    second = prompt_text(result.llm_requests[1])
    assert "cut off by the output limit" in second and prompts.CONTINUE_CUT_ANSWER not in second


@pytest.mark.parametrize("at", [5, 9, 13])
def test_a_secret_split_across_the_cut_of_a_json_answer_is_hidden(run, plugin, at):
    """The tool's result holds its key; the limit cuts the JSON answer inside it, and the rest (plain
    text, as a model ignoring the format writes it) opens with the key's end. Neither the chat nor
    the request asking for the rest may hold the key or its start."""
    turns = [{"text": step("vault", {"q": "x"})},
             {"text": cut_step("Final Answer", True, f"Your key is {CANARY[:at]}"), "split": 4, "finish_reason": "length"},
             {"text": f"{CANARY[at:]} and it works."}]
    result = react(run, turns, tools=[vault([text_message(f"key={CANARY}")])])
    check(plugin, result)
    assert result.text == "Your key is [REDACTED] and it works.", "one key across the cut, hidden whole"
    replay = prompt_text(result.llm_requests[2])
    assert CANARY[:at] not in replay, replay[-300:]
    for piece in (CANARY[:at], CANARY[at:]):
        if len(piece) >= 8:  # shorter pieces may stand in ordinary text
            assert_no_line_holds(plugin, result, piece)


def test_a_json_rest_that_completes_a_secret_split_at_the_cut_is_hidden(run, plugin):
    turns = [{"text": step("vault", {"q": "x"})},
             {"text": cut_step("final_answer", True, f"Your key is {CANARY[:9]}"), "finish_reason": "length"},
             {"text": step("final_answer", {"answer": f"{CANARY[9:]} and it works."})}]
    result = react(run, turns, tools=[vault([text_message(f"key={CANARY}")])])
    check(plugin, result)
    assert result.text == "Your key is [REDACTED] and it works.", "one key across the cut, hidden whole"
    assert len(result.tool_requests) == 1
    assert CANARY[:9] not in prompt_text(result.llm_requests[2])
