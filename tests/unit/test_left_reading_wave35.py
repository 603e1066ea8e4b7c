"""Reading faults left by wave 34 (wave 35): a Python dict whose string is an escaped line break,
a model continuing a cut JSON step's string itself, a LangChain conversational step followed by an
invented ``Human:`` turn."""

import pytest

from agent_core.json_args import ArgumentsError, decode_arguments
from agent_core.model_call import ModelChunk
from agent_core.react.turn import read_react_turn
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import ToolCalls
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
