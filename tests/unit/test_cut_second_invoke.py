"""A reply whose call markup holds a whole call and then a second one the output limit cut
(MiniMax's two ``<invoke>`` elements, the second cut): both strategies read it the same way. Nothing
runs, and the reply is asked again, shorter (``prompts.REPLY_CUT``), the model's message replayed
as it wrote it: the first call may be half of a plan the cut one completes (write, then delete),
and a reply the limit cut may miss further calls. Function Calling read MiniMax-M2's wrapper as the
first call alone and ReAct every form, the cut call dropped from what the model was told."""

import pytest

from agent_core import prompts
from agent_core.function_calling.turn import read_function_calling_turn
from agent_core.model_call import ModelChunk
from agent_core.react.turn import read_react_turn
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import ParseFailure, ToolCalls
from tests.unit.helpers import drain
from tests.unit.test_real_world_2026 import tool

T = "]<]minimax[>["
M3 = f'Let me look.{T}<tool_call>\n{T}<invoke name="lookup">{T}<q>a{T}</q>{T}</invoke>\n{T}<invoke name="lookup">{T}<q>b'
M2 = ('Let me look.<minimax:tool_call>\n<invoke name="lookup">\n<parameter name="q">a</parameter>\n</invoke>\n'
      '<invoke name="lookup">\n<parameter name="q">b')
HERMES = ('Let me look.<tool_call>\n<invoke name="lookup">\n<parameter name="q">a</parameter>\n</invoke>\n'
          '<invoke name="lookup">\n<parameter name="q">b')
TWO_CUT = {"m3": M3, "m2": M2, "hermes": HERMES}
REGISTRY = ToolRegistry([tool("lookup", "q")])


def chunks(reply: str, size: int | None, finish_reason: str) -> list[ModelChunk]:
    pieces = [reply] if size is None else [reply[i : i + size] for i in range(0, len(reply), size)]
    return [ModelChunk(text=piece) for piece in pieces] + [ModelChunk(finish_reason=finish_reason)]


def both(reply: str, size: int | None = None, finish_reason: str = "length"):
    """(Function Calling's turn, ReAct's turn) of ``reply``."""
    _, fc = drain(read_function_calling_turn(iter(chunks(reply, size, finish_reason)), REGISTRY.prompt_tools()))
    _, react = drain(read_react_turn(iter(chunks(reply, size, finish_reason)), REGISTRY, 1))
    return fc, react


@pytest.mark.parametrize("size", [None, 1, 5])
@pytest.mark.parametrize("reply", TWO_CUT.values(), ids=TWO_CUT.keys())
def test_a_whole_call_then_a_cut_one_is_asked_again_in_both_strategies(reply, size):
    fc, react = both(reply, size)
    assert fc.decision == ParseFailure(prompts.REPLY_CUT)
    assert react.decision == ParseFailure(prompts.REPLY_CUT)
    assert "<invoke" in fc.content and "<invoke" in react.content  # replayed as the model wrote it


@pytest.mark.parametrize("reply", TWO_CUT.values(), ids=TWO_CUT.keys())
def test_the_same_calls_whole_are_read_as_two_calls_by_both(reply):
    """What the cut changes: closed, the block is two calls in either strategy."""
    closing = {M3: f"{T}</q>{T}</invoke>\n{T}</tool_call>", M2: "</parameter>\n</invoke>\n</minimax:tool_call>",
               HERMES: "</parameter>\n</invoke>\n</tool_call>"}[reply]
    fc, react = both(reply + closing, finish_reason="stop")
    for turn in (fc, react):
        assert isinstance(turn.decision, ToolCalls)
        assert [call.arguments for call in turn.decision.calls] == [{"q": "a"}, {"q": "b"}]


def test_a_single_whole_call_in_a_cut_reply_is_still_answered_not_run():
    """A reply cut after its call's markup closed keeps the rule for a cut reply's whole calls: read,
    answered "not run" by the loop (every provider needs an answer per call id)."""
    reply = f'{T}<tool_call>\n{T}<invoke name="lookup">{T}<q>a{T}</q>{T}</invoke>\n{T}</tool_call>'
    fc, react = both(reply)
    assert isinstance(fc.decision, ToolCalls) and isinstance(react.decision, ToolCalls)
    assert fc.cut and react.cut
