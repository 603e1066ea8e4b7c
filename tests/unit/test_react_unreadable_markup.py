"""ReAct asks again an unlabelled reply holding call markup it could not read outside quoted
text (a family's call wrapper, ``<tool_call>``, Claude's ``<invoke>`` naming a node tool), as
Function Calling does; markup an answer shows in a code block, a code span or a blockquote, and
a JSON document, stay answers."""

import pytest

from agent_core import prompts
from agent_core.model_call import ModelChunk
from agent_core.react.turn import read_react_turn
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ParseFailure
from tests.unit.helpers import drain
from tests.unit.test_real_world_2026 import tool

REGISTRY = ToolRegistry([tool("search", "query")])
BROKEN = '<minimax:tool_call>\n<invoke nam="search">\n<parameter name="query">x</parameter>\n</invoke>\n</minimax:tool_call>'


def _read(reply: str, size: int):
    chunks = [ModelChunk(text=reply[i : i + size]) for i in range(0, len(reply), size)]
    return drain(read_react_turn(iter([*chunks, ModelChunk(finish_reason="stop")]), REGISTRY, 1))


@pytest.mark.parametrize("size", [1, 7, 1000])
@pytest.mark.parametrize(
    "reply",
    [BROKEN, "Let me look.\n" + BROKEN, '<invoke name="search" <parameter name="query">x</parameter></invoke>'],
)
def test_unreadable_call_markup_outside_quoted_text_is_asked_again_and_not_shown(reply, size):
    streamed, turn = _read(reply, size)
    assert streamed == ""
    assert turn.decision == ParseFailure(prompts.TOOL_CALL_UNREADABLE_REACT)


@pytest.mark.parametrize("size", [1, 7, 1000])
@pytest.mark.parametrize(
    "reply",
    [
        "MiniMax writes a call so:\n```xml\n" + BROKEN + "\n```\nThat is all.",
        "MiniMax writes a call so:\n~~~\n" + BROKEN + "\n~~~\nThat is all.",
        "> " + BROKEN.replace("\n", "\n> ") + "\n\nQuoted from the log.",
        'Claude writes `<invoke name="x">` or <invoke name="x"> in its replies.',
        '{"name": "search", "owner": "me"}',
    ],
)
def test_markup_an_answer_shows_stays_the_answer(reply, size):
    streamed, turn = _read(reply, size)
    assert turn.decision == FinalAnswer(reply)
    assert streamed == reply
