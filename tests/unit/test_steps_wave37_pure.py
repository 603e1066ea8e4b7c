"""Pure parts of wave 37's fixes (tests/e2e/test_blind_steps_wave37.py runs them through the plugin).

* A ReAct reply that makes up an ``Observation:`` after its actions and writes more actions after
  it: what follows the made-up result is kept (``ReactTurn.after_actions``), its actions named
  (``react.turn.actions_after_observation``) and told to the model once
  (``round_cap.after_observation_note``); they were dropped without a word.
* An action input that prints the tool's parameter schema as YAML is that schema
  (``declarations.yaml_declared``), refused as a schema echo, not sent as the tool's text value.
"""

import pytest
from dify_plugin.entities.model.message import PromptMessageTool

from agent_core import prompts
from agent_core.declarations import yaml_declared
from agent_core.function_calling.react_steps import react_step_calls
from agent_core.react.parser import parse_react
from agent_core.react.turn import actions_after_observation
from agent_core.round_cap import after_observation_note
from agent_core.text_calls import arguments_for
from agent_core.tool_schema import schema_echo

STEP = 'Thought: look it up.\nAction: lookup\nAction Input: {"q": "a"}'


def test_actions_after_a_made_up_observation_are_kept_to_be_named():
    text = STEP + '\nObservation: 42\nThought: now b.\nAction: lookup\nAction Input: {"q": "b"}'
    parsed = parse_react(text, allow_multiple_actions=True)
    assert [a.input for a in parsed.actions] == [{"q": "a"}]
    assert parsed.after_actions.startswith("Observation: 42")
    assert actions_after_observation(parsed.after_actions) == ("lookup",)


@pytest.mark.parametrize("label", ["Observation:", "**Observation:**", "观察："])
def test_the_made_up_observation_is_read_as_a_thought_whatever_its_label(label):
    after = f"{label} made up\nThought: next.\nAction: other\nAction Input: {{}}\n\nAction: lookup\nAction Input: {{}}"
    assert actions_after_observation(after) == ("other", "lookup")


def test_a_reply_ending_with_its_actions_or_a_made_up_answer_names_no_action():
    assert parse_react(STEP, allow_multiple_actions=True).after_actions == ""
    made_up = parse_react(STEP + "\nObservation: 42\nThought: done.\nFinal Answer: 42", allow_multiple_actions=True)
    assert made_up.after_actions and actions_after_observation(made_up.after_actions) == ()


@pytest.mark.parametrize("fake", ["```\nFinal Answer: 1\n```", "~~~\nThought: x\nAction: fake\n~~~"], ids=["answer", "step"])
def test_a_made_up_observation_holding_a_step_in_code_names_the_action_after_it(fake):
    after = f'Observation: {fake}\nThought: b.\nAction: lookup\nAction Input: {{"q": "b"}}'
    assert actions_after_observation(after) == ("lookup",)


def test_a_fake_answer_in_the_made_up_observation_ends_nothing():
    after = 'Observation: 42\nFinal Answer: 42\nThought: b.\nAction: lookup\nAction Input: {"q": "b"}'
    assert actions_after_observation(after) == ("lookup",)


def test_the_note_counts_the_actions_and_names_each_tool_once():
    assert after_observation_note(()) == ""
    note = after_observation_note(("lookup", "lookup", "other"))
    assert note == prompts.ACTIONS_AFTER_OBSERVATION.format(count=3, names="lookup, other")
    assert len(after_observation_note(["x" * 100_000] * 1000)) < 2000  # names shortened, first ones only


def test_function_callings_react_steps_give_the_text_after_a_made_up_observation():
    tool = PromptMessageTool(name="lookup", description="", parameters={"type": "object", "properties": {"q": {}}})
    text = STEP + "\nObservation: 42\nAction: lookup\nAction Input: {\"q\": \"b\"}"
    calls, thought, after = react_step_calls(text, 0, {"lookup": tool}, with_after=True)
    assert [c.arguments for c in calls] == [{"q": "a"}] and thought == "look it up."
    assert after.startswith("Observation: 42") and actions_after_observation(after) == ("lookup",)
    assert react_step_calls(text, 0, {"lookup": tool})[0] == calls  # the two-part answer as before


YAML_ECHOES = {
    "a parameter's schema": "q:\n  type: string\n  description: the query\n",
    "with a blank line": "q:\n\n  type: string\n",
    "the whole schema": "type: object\nproperties:\n  q:\n    type: string\nrequired:\n  - q\n",
}


@pytest.mark.parametrize("text", list(YAML_ECHOES.values()), ids=list(YAML_ECHOES))
def test_a_schema_printed_as_yaml_is_that_schema_and_refused(text):
    tool = PromptMessageTool(name="lookup", description="",
                             parameters={"type": "object", "properties": {"q": {"type": "string"}}})
    arguments = arguments_for(text, tool)
    assert arguments == yaml_declared(text, {"q"}) is not None
    assert schema_echo(arguments, {"q"}, {"q"})


@pytest.mark.parametrize("text", [
    "q: Paris",  # a value by name
    "Paris, France:\n  the capital",  # prose with a colon
    "q:\n  Paris",  # a value under its key
    "q:\n  type: string\n  sizes: [1, 2]",  # a key no schema has
    "other:\n  type: string",  # a parameter the tool lacks
    "q: &a\n  type: string\nr: *a",  # YAML aliases are not read
    "q:\n  type: string\n  description: " + "x" * 20_000,  # too long to be a printout
    "q:\n  type: [unclosed",  # no YAML
])
def test_other_text_is_no_yaml_schema(text):
    assert yaml_declared(text, {"q"}) is None
