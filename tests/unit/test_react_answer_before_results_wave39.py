"""Wave 39: a ReAct reply that wrote a ``Final Answer`` after its actions, before any result, and
more actions after that answer: the actions before it run, the answer is not the run's, and the
actions after it are named to the model and the log, never dropped without a word (labelled
steps, and a JSON list with a "Final Answer" item between two calls)."""

import json

from agent_core.react.parser import parse_react
from agent_core.react.turn import actions_after_observation

STEP_A = 'Thought: x.\nAction: lookup\nAction Input: {"q": "a"}'
STEP_B = 'Thought: y.\nAction: lookup\nAction Input: {"q": "b"}'


def test_labelled_actions_after_an_early_answer_are_kept_to_be_named():
    parsed = parse_react(f"{STEP_A}\nFinal Answer: a is 7\n{STEP_B}", allow_multiple_actions=True)
    assert [(a.name, a.input) for a in parsed.actions] == [("lookup", {"q": "a"})]
    assert parsed.final_answer is None
    assert actions_after_observation(parsed.after_actions) == ("lookup",)


def test_an_early_answer_alone_after_the_actions_names_nothing():
    parsed = parse_react(f"{STEP_A}\nFinal Answer: a is 7", allow_multiple_actions=True)
    assert [a.name for a in parsed.actions] == ["lookup"]
    assert actions_after_observation(parsed.after_actions) == ()


def test_a_json_lists_calls_after_its_answer_item_after_a_call_are_named():
    steps = [{"action": "lookup", "action_input": {"q": "a"}}, {"action": "Final Answer", "action_input": "7"},
             {"action": "lookup", "action_input": {"q": "b"}}]
    parsed = parse_react("Thought: x.\nAction:\n```json\n" + json.dumps(steps) + "\n```",
                         allow_multiple_actions=True, tool_names=("lookup",))
    assert [(a.name, a.input) for a in parsed.actions] == [("lookup", {"q": "a"})]
    assert parsed.calls_after_answer == ("lookup",)


def test_a_json_list_answer_first_keeps_its_answer():
    steps = [{"action": "Final Answer", "action_input": "7"}, {"action": "lookup", "action_input": {"q": "b"}}]
    parsed = parse_react("Action:\n```json\n" + json.dumps(steps) + "\n```", allow_multiple_actions=True,
                         tool_names=("lookup",))
    assert parsed.final_answer == "7" and parsed.actions == ()
    assert parsed.calls_after_answer == ("lookup",)


# --- an object glued to an action's input on its line: the same tool again --------------------------------

GLUED = 'Thought: two.\nAction: lookup\nAction Input: {"q": "a"}'


def _actions(text: str, chunk: int = 0) -> list:
    from agent_core.react.parser import ReactStreamParser

    parser = ReactStreamParser(allow_multiple_actions=True, tool_names=("lookup",))
    for i in range(0, len(text), chunk or len(text)):
        parser.feed(text[i : i + (chunk or len(text))])
    parser.finish()
    return [(a.name, a.input) for a in parser.result().actions]


def test_an_object_of_the_same_parameters_glued_to_the_input_calls_the_tool_again():
    expected = [("lookup", {"q": "a"}), ("lookup", {"q": "b"})]
    for joint in ("", " ", ", ", "; "):
        for chunk in (0, 1, 3):
            assert _actions(GLUED + joint + '{"q": "b"}', chunk) == expected, (joint, chunk)


def test_an_object_of_other_keys_glued_to_the_input_is_no_call():
    assert _actions(GLUED + ' {"z": 1}') == [("lookup", {"q": "a"})]
    assert _actions(GLUED + " {}") == [("lookup", {"q": "a"})]


# --- steps written as an ordered Markdown list ------------------------------------------------------------

NUMBERED = ('Thought: two.\n1. **Action:** lookup\n   **Action Input:** {"q": "a"}\n'
            '2) Action: lookup\n   Action Input: {"q": "b"}')


def test_actions_of_an_ordered_list_run_in_order_whatever_the_chunks():
    for chunk in (0, 1, 2, 5):
        assert _actions(NUMBERED, chunk) == [("lookup", {"q": "a"}), ("lookup", {"q": "b"})], chunk


def test_a_number_that_is_no_list_marker_opens_no_label():
    parsed = parse_react("Thought: x.\n2024 Action: none of this is a step\nFinal Answer: ok",
                         allow_multiple_actions=True, tool_names=("lookup",))
    assert parsed.actions == () and parsed.final_answer == "ok"
