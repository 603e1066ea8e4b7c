"""Reading faults left by wave 34 (wave 35): a Python dict whose string is an escaped line break,
a model continuing a cut JSON step's string itself, a LangChain conversational step followed by an
invented ``Human:`` turn."""

import pytest

from agent_core.json_args import ArgumentsError, decode_arguments
from agent_core.model_call import ModelChunk
from agent_core.react.json_step import continued_string
from agent_core.react.parser import conversational_answer, parse_react
from agent_core.react.text_fallback import as_text_step
from agent_core.react.turn import read_react_turn
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ModelTurn, ParseFailure, ToolCalls
from tests.unit.helpers import drain

# --- a Python dict whose string ends with an escaped line break ---------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("{'q': '\\n'}", {"q": "\n"}),  # json_repair 0.64 made it '' (refused as invented)
        ("{'q': 'a\\n'}", {"q": "a\n"}),  # ... and 'a' (the line break lost, accepted)
        ("{'q': '\\n\\n', 'n': None, 'ok': True}", {"q": "\n\n", "n": None, "ok": True}),
        ("[{'q': 'line\\n'}]", {"q": "line\n"}),
        ("{'q': 'it\\'s\\n'}", {"q": "it's\n"}),
    ],
)
def test_a_python_dict_with_an_escaped_line_break_is_read_as_python_reads_it(text, value):
    assert decode_arguments(text) == value


@pytest.mark.parametrize(
    "text",
    [
        "{'q': 'a' 'b\\n'}",  # two strings Python would glue: a word read away is refused as before
        "{'q': 1e999, 'r': '\\n'}",  # infinity is no JSON number
        "{'q': '\\n', 'r': }",  # a value missing
    ],
)
def test_a_python_literal_json_cannot_hold_is_still_refused(text):
    with pytest.raises(ArgumentsError):
        decode_arguments(text)


def test_an_unknown_escape_keeps_the_repairs_reading():
    assert decode_arguments("{'q': 'x\\_y'}") == {"q": "x\\_y"}  # as before: Python would warn of it


def test_the_react_action_input_of_a_newline_runs_the_tool_with_it():
    reply = "Thought: press enter\nAction: terminal\nAction Input: {'q': '\\n'}"
    _, turn = drain(read_react_turn(iter([ModelChunk(text=reply), ModelChunk(finish_reason="stop")]), ToolRegistry(None), 1))
    assert isinstance(turn.decision, ToolCalls) and not turn.decision.invalid
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [("terminal", {"q": "\n"})]


# --- a continuation that closes the cut JSON step's string itself --------------------------------

CUT = '{"action": "final_answer", "action_input": {"answer": "Paris is the capi'


@pytest.mark.parametrize(
    ("cut", "rest", "shown"),
    [
        (CUT, 'tal of France."}}', "tal of France."),
        (CUT, 'tal of \\"France\\".\\nYes." } }\n', 'tal of "France".\nYes.'),
        ("```json\n" + CUT, 'tal."}}\n```', "tal."),
        ("```json\n" + CUT, 'tal."}}', "tal."),  # the fence left open: the JSON's closing is enough
        ('{"action": "final_answer", "action_input": "Paris', ' is it."}', " is it."),
        (CUT + "\\", 'ntal."}}', "\ntal."),  # an escape the cut split in two
        (CUT + "\\u00", 'e9."}}', "\u00e9."),
        (CUT, '"}}', ""),  # the answer was whole at the cut
    ],
)
def test_the_closing_the_cut_left_open_is_stripped_and_the_string_read(cut, rest, shown):
    assert continued_string(cut, rest) == shown


@pytest.mark.parametrize(
    ("cut", "rest"),
    [
        (CUT, 'tal of France."}'),  # one brace short: not what was open
        (CUT, 'tal of France."}}}'),  # one too many
        (CUT, 'tal."}}\n```'),  # a fence the cut never opened
        (CUT, 'tal of France.'),  # plain text: the answer's rest as written
        (CUT, 'tal. He said "ok"}}'),  # a quote of its own: the string had closed before
        ('{"action": "final_answer", "action_input": {"answer": "Paris"}', 'x"}}'),  # no string open
        ("Final Answer: Paris is the capi", 'tal."}'),  # no JSON step
    ],
)
def test_a_rest_that_does_not_close_what_the_cut_left_open_is_left_as_written(cut, rest):
    assert continued_string(cut, rest) is None


def test_a_json_step_continuation_read_as_text_shows_the_rest_without_the_closing():
    rest = ModelTurn(thought="", decision=ParseFailure("not JSON"), usage=None, finish_reason="stop", raw='tal of France."}}')
    shown, turn = drain(as_text_step(rest, ToolRegistry(None), 2, continues_answer=True, cut_step=CUT))
    assert shown == "tal of France." and turn.decision == FinalAnswer("tal of France.")


# --- an invented Human: turn after LangChain's conversational answer ----------------------------


@pytest.mark.parametrize("label", ["", "Thought: "])
def test_an_invented_human_turn_ends_the_conversational_answer(label):
    turn = parse_react(f"{label}Do I need to use a tool? No\nAI: Paris.\n\nHuman: And Germany?\nAI: Berlin.")
    assert turn.final_answer == "Paris." and turn.problem is None
    assert turn.answer_ended and turn.after_answer == "Human: And Germany?\nAI: Berlin."


def test_a_conversational_answer_without_an_invented_turn_is_read_as_before():
    turn = parse_react("Do I need to use a tool? No\nAI: Paris.\nThe Seine runs through it.")
    assert turn.final_answer == "Paris.\nThe Seine runs through it." and not turn.answer_ended
    assert conversational_answer("Do I need to use a tool? No\nAI: Paris.\nThought: more") is None  # a second step


def test_a_conversational_answer_cut_inside_the_invented_turn_is_whole():
    reply = "Do I need to use a tool? No\nAI: Paris.\nHuman: And Germ"
    _, turn = drain(read_react_turn(iter([ModelChunk(text=reply), ModelChunk(finish_reason="length")]), ToolRegistry(None), 1))
    assert turn.decision == FinalAnswer("Paris.") and not turn.cut
