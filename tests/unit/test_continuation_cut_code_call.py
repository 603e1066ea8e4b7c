"""A ReAct reply that continues an answer the output limit cut and is only a tool's call written as
code, cut again (``lookup(q='a``): no rest of the answer, never shown (as Function Calling hides
it), while any other continuation streams as before. The start is held by the continuation's reader
only (``react.turn._head_held``, ``call_markup.code_call_start``), not by the parser."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_core import prompts
from agent_core.call_markup import CODE_CALL_HEAD_MAX, code_call_start
from agent_core.model_call import ModelChunk
from agent_core.react.turn import read_react_turn
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ParseFailure
from tests.unit.helpers import drain
from tests.unit.test_real_world_2026 import tool

NAMES = {"lookup", "search"}
REGISTRY = ToolRegistry([tool("lookup", "q"), tool("search", "q")])


@pytest.mark.parametrize(("text", "start"), [
    ("", None), ("  \n", None), ("look", None), ("lookup", None), ("p", None), ("print(", None),
    ("print(default_api.look", None), ("[", None), ("de", None),
    ("lookup(", True), ("lookup(q='a", True), (" search(q=", True), ("[lookup(", True),
    ("print(default_api.lookup(", True), ("default_api.search(", True),
    ("lookupx", False), ("the", False), ("Paris", False), ("lookup (", False), ("other(", False),
    ("print(x", False), ("pa", False), (" " * CODE_CALL_HEAD_MAX, False),
])
def test_code_call_start_tells_a_tools_call_from_text_as_early_as_it_can(text, start):
    assert code_call_start(text, NAMES) is start


def read(pieces: list[str], finish_reason: str = "length", continues_answer: bool = True):
    """The reply ``pieces`` (streamed chunks) read as ReAct reads it: (text streamed, turn)."""
    chunks = iter([*(ModelChunk(text=piece) for piece in pieces), ModelChunk(finish_reason=finish_reason)])
    return drain(read_react_turn(chunks, REGISTRY, 2, continues_answer=continues_answer))


def in_pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


CUT_CALLS = ["lookup(q='a", 'lookup(q="par', " search(q='Paris', limit=", "[lookup(q='a'), search(q=",
             "print(default_api.lookup(q='a"]


@pytest.mark.parametrize("size", [1, 3, 1000])
@pytest.mark.parametrize("text", CUT_CALLS)
def test_a_continuation_that_is_only_a_cut_code_call_shows_nothing_and_runs_nothing(text, size):
    """Shown, it joined the cut answer as its rest ("Paris is the lookup(q='a") and the run ended
    there; now the run ends with the cut start and the output-limit notice (``loop``)."""
    streamed, turn = read(in_pieces(text, size))
    assert streamed == ""
    assert turn.decision == ParseFailure(prompts.REPLY_CUT)
    assert turn.cut


@pytest.mark.parametrize("text", ["lookup(q='a') returns the capital.", " lookup(q='a') is what I would call."])
def test_a_continuation_opening_with_a_whole_call_that_was_not_cut_is_shown_whole(text):
    streamed, turn = read(in_pieces(text, 2), finish_reason="stop")
    assert streamed == text.strip()
    assert turn.decision == FinalAnswer(text.strip())


@pytest.mark.parametrize("text", [" capital of France.", "look at the map.", " Paris (the capital", "lookup (q",
                                  " print(x) shows it", "\n\nMore text."])
def test_any_other_continuation_streams_before_the_reply_ends(text):
    """Held only while it could still open a tool's call: the rest of a long answer is not kept
    from the user to the reply's end."""
    chunks = iter([ModelChunk(text=text), ModelChunk(text=" and on.")])  # no end yet
    reader = read_react_turn(chunks, REGISTRY, 2, continues_answer=True)
    assert next(reader).strip()  # text shown before the reply's last chunk was read


@given(st.text(alphabet="lokupsearch( )='aPrint.[\n", max_size=40), st.integers(1, 7), st.booleans())
def test_the_held_start_never_loses_or_reorders_text(text, size, cut):
    """What a continuation shows is what it showed before the start was held, unless it is a cut
    call of a tool (then nothing)."""
    pieces = in_pieces(text, size)
    streamed, turn = read(pieces, "length" if cut else "stop")
    _, fresh = read(pieces, "length" if cut else "stop")  # the reader is deterministic
    assert turn == fresh
    if isinstance(turn.decision, FinalAnswer):
        assert streamed == turn.decision.text
    elif streamed:
        assert streamed.strip() in text


def test_a_fresh_reply_is_read_as_before():
    """Outside a continuation nothing is held: an unlabelled cut call was already asked again."""
    streamed, turn = read(["lookup(q='a"], continues_answer=False)
    assert (streamed, turn.decision) == ("", ParseFailure(prompts.REPLY_CUT))
    streamed, turn = read(["Thought: x\nFinal Answer: lookup is the tool."], finish_reason="stop",
                          continues_answer=False)
    assert streamed == "lookup is the tool."
