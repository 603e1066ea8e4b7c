"""An answer the output limit cut and its rest, through ``AgentLoop`` with a scripted model: what
the user reads is what the model wrote, the two joined without loss or duplication (wave 37's
campaign, docs/fuzzing.md)."""

from pathlib import Path

import pytest
from dify_plugin.entities.agent import AgentInvokeMessage

from agent_core import loop as loop_module
from agent_core.model_call import ModelChunk
from agent_core.params import read_params
from agent_core.react.step_format import ReActParams
from agent_core.react.turn import read_react_turn
from agent_core.think import closes_unopened_block, visible_text
from agent_core.tool_schema import ToolRegistry
from local_runner import Scenario
from local_runner.tools import ScriptedTool, ToolBox, ToolParam
from strategies.function_calling import FunctionCallingSteps
from strategies.react import ReActSteps
from tests.unit.helpers import LoopStrategy, drain
from tests.unit.test_real_world_2026 import tool


def shown(strategy: str, replies: list[tuple[list[str], str]], monkeypatch) -> str:
    """The chat text of a run whose model sends ``replies`` in turn: (text pieces, finish reason)."""
    tools = [ScriptedTool(name="lookup", description="d", parameters=[ToolParam("q")], responses=[])]
    scenario = Scenario(strategy=strategy, query="q", tools=["lookup"])
    params = read_params(ReActParams, scenario.run_request(ToolBox(tools), Path("."), None).params)
    queue = list(replies)

    def model(session, model, request, **waits):
        pieces, finish = queue.pop(0)
        for piece in pieces:
            yield ModelChunk(text=piece)
        yield ModelChunk(finish_reason=finish)

    monkeypatch.setattr(loop_module, "invoke_model", model)
    steps = ReActSteps("text") if strategy == "ReAct" else FunctionCallingSteps()
    messages = list(loop_module.AgentLoop(LoopStrategy(), steps, params).run())
    assert not queue
    return "".join(m.message.text for m in messages if m.type == AgentInvokeMessage.MessageType.TEXT)


def _answer(strategy: str, text: str) -> str:
    return f"Thought: I know.\nFinal Answer: {text}" if strategy == "ReAct" else text


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
def test_a_rest_that_begins_as_the_answer_began_is_shown(strategy, monkeypatch):
    """The cut answer "the of ok weather", its rest " the": read as the answer written again
    from its start (a restart shows only what goes past the cut), and lost."""
    text = shown(strategy, [([_answer(strategy, "the of ok weather")], "length"), ([" the"], "stop")], monkeypatch)
    assert text == "the of ok weather the"


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
def test_a_restart_past_the_cut_still_shows_only_what_goes_on(strategy, monkeypatch):
    text = shown(strategy, [([_answer(strategy, "Paris is the")], "length"),
                            (["Paris is the capital."], "stop")], monkeypatch)
    assert text == "Paris is the capital."


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
def test_a_rest_after_a_reasoning_block_is_joined_by_the_models_space(strategy, monkeypatch):
    """The rest opened with a block closed as model plugins close one (``\\n</think>\\n\\n``):
    the line breaks were taken as the rest's own, a paragraph break inside the sentence."""
    rest = ["<think>\nwhere was I\n</think>\n\n", " and mild France"]
    text = shown(strategy, [([_answer(strategy, "mild France 50% 🙂")], "length"), (rest, "stop")], monkeypatch)
    assert text == "mild France 50% 🙂 and mild France"


def test_the_space_a_cut_react_answer_ended_with_joins_its_rest(monkeypatch):
    """ReAct's parser strips the answer's end: ``Final Answer: is `` cut after its space and the rest
    ``«quoted» 🙂`` were shown as "is«quoted» 🙂"."""
    text = shown("ReAct", [(["Thought: x\nFinal Answer: is "], "length"), (["«quoted» 🙂"], "stop")], monkeypatch)
    assert text == "is «quoted» 🙂"


def test_a_cut_react_step_with_a_closing_tag_in_its_input_goes_back_whole():
    """A ReAct step cut inside its input, which held ``</think>`` as a string's text: the reply
    goes back to the model (asked again) as its text, read with the tag as reasoning's end, so
    all of it up to the tag was dropped and only ``","quote`` went back."""
    text = 'Thought: look it up\nAction: lookup\nAction Input: {"q": "a", "extra": ["</think>", "quote'
    chunks = [ModelChunk(text=text), ModelChunk(finish_reason="length")]
    registry = ToolRegistry([tool("lookup", "q", "extra")])
    _, turn = drain(read_react_turn(iter(chunks), registry, 1))
    assert turn.raw == text
    assert visible_text('x {"q": "</think>"} y', json_strings=True) == 'x {"q": "</think>"} y'
    assert visible_text("plan</think>answer", json_strings=True) == "answer"  # a template-opened block's end


@pytest.mark.parametrize(("reply", "closes"), [
    ("<think>\nplan\n</think>\n\n\n</think>\n\n", False),  # Anthropic's plugin 0.3.33 before tool_use
    ("<think>plan</think></think>Hi", False),
    ("<think>plan</think>Hi</think>there", True),  # text between: a block the template opened
    ("plan\n</think>\n\nHi", True),
])
def test_a_block_closed_twice_is_no_block_the_template_opened(reply, closes):
    """Read as one, every later reply of the run was held as reasoning until a ``</think>``: a
    cut answer with none was taken for reasoning and lost (the run ended without an answer)."""
    assert closes_unopened_block(reply) is closes


def test_a_cut_answer_that_begins_as_a_failed_reply_began_is_shown_before_its_rest(monkeypatch):
    """A reply asked again after one whose call markup could not be read starts as that one's
    prose did ("«quoted»"), and the limit cuts it there: it was hidden as the same prose written
    again, and its rest was glued to the failed reply's text ("«quoted» x<y\\n 東京 Paris")."""
    failed = "«quoted» x<y\n<minimax:tool_call>\n<invoke nam='lookup'>y</invoke>\n</minimax:tool_call>"
    text = shown("function_calling", [([failed], "stop"), (["«quoted»"], "length"), ([" 東京 Paris"], "stop")],
                 monkeypatch)
    assert text.endswith("\n\n«quoted» 東京 Paris")


def test_a_reply_asked_again_that_repeats_a_failed_ones_prose_is_not_shown_twice(monkeypatch):
    failed = "Let me look.\n<minimax:tool_call>\n<invoke nam='lookup'>y</invoke>\n</minimax:tool_call>"
    text = shown("function_calling", [([failed], "stop"), (["Let me look.\n\nParis."], "stop")], monkeypatch)
    assert text.count("Let me look.") == 1 and text.endswith("Paris.")
