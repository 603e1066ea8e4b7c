"""Reading gaps the seventh pass of real-world cases left (docs/real-world-cases.md), closed, with
the same shapes that must stay what they were, through both strategies' turn readers, the text
whole and in pieces of 1 and 7 characters:

1. a GLM ``<tool_call>`` whose ``<arg_value>`` names ``</tool_call>`` (Ollama's glm47 parser test):
   ReAct's streaming parser ended the block at that tag, inside the value.
"""

import pytest

from agent_core.turn import FinalAnswer, ParseFailure, ToolCalls
from tests.unit.test_real_world_2026 import Case, check, tool
from tests.unit.test_real_world_2026g import read

WRITE = tool("write_file", "path", "content")
WEATHER = tool("get_weather", "city")


def _glm(name: str, *pairs: tuple[str, str]) -> str:
    """GLM's call: ``<tool_call>NAME<arg_key>k</arg_key><arg_value>v</arg_value>...</tool_call>``."""
    body = "".join(f"<arg_key>{key}</arg_key><arg_value>{value}</arg_value>" for key, value in pairs)
    return f"<tool_call>{name}{body}</tool_call>"


TWO_CLOSERS = "Close with </tool_call>, never </tool_call><tool_call> twice."

CALLS = {
    # ---- 1. a GLM value that names the closing tag --------------------------------------------------
    "glm-value-names-closer-twice": (
        (WRITE,),
        _glm("write_file", ("path", "a.md"), ("content", TWO_CLOSERS)),
        [("write_file", {"path": "a.md", "content": TWO_CLOSERS})],
    ),
    "glm-value-names-closer-then-second-call": (
        (WRITE,),
        _glm("write_file", ("path", "a.md"), ("content", "ends at </tool_call>.")) + "\n"
        + _glm("write_file", ("path", "b.md"), ("content", "plain")),
        [("write_file", {"path": "a.md", "content": "ends at </tool_call>."}),
         ("write_file", {"path": "b.md", "content": "plain"})],
    ),
    "glm-value-names-closer-after-thought": (
        (WRITE,),
        "Thought: I will write the file.\n" + _glm("write_file", ("path", "a.md"), ("content", "x </tool_call> y")),
        [("write_file", {"path": "a.md", "content": "x </tool_call> y"})],
    ),
}

REACT_ONLY_CALLS = frozenset({"glm-value-names-closer-after-thought"})

TEXT = {
    # the GLM call shown in a code span: the answer as written (a code span is quoted text)
    "glm-closer-in-value-in-code-span": (
        (WRITE,),
        "GLM writes `" + _glm("write_file", ("path", "a.md"), ("content", "x </tool_call> y")) + "` for a call.",
    ),
}

NO_NODE_TOOL = {
    # a value naming the closer, in a call of a tool the node lacks: no node tool runs
    "glm-closer-in-value-unknown-tool": (
        (WEATHER,), _glm("write_file", ("path", "a.md"), ("content", "x </tool_call> y")),
    ),
}


def _params(table, only=frozenset()):
    for name in table:
        for strategy in ("react", "fc"):
            if name in only and strategy != "react":
                continue
            yield pytest.param(name, strategy, id=f"{name}-{strategy}")


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize(("name", "strategy"), list(_params(CALLS, REACT_ONLY_CALLS)))
def test_the_call_runs_with_its_arguments_whole(name, strategy, size):
    tools, text, calls = CALLS[name]
    streamed, turn = read(strategy, Case(tools, text, calls=calls), size)
    check(strategy, Case(tools, text, calls=calls), streamed, turn)
    assert "<arg_key>" not in streamed


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize(("name", "strategy"), list(_params(TEXT)))
def test_the_shape_shown_as_text_is_the_answer(name, strategy, size):
    tools, text = TEXT[name]
    streamed, turn = read(strategy, Case(tools, text), size)
    assert turn.decision == FinalAnswer(text)
    assert streamed.strip() == text


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize(("name", "strategy"), list(_params(NO_NODE_TOOL)))
def test_a_call_of_no_node_tool_runs_none(name, strategy, size):
    tools, text = NO_NODE_TOOL[name]
    streamed, turn = read(strategy, Case(tools, text), size)
    assert "<arg_value>" not in streamed or isinstance(turn.decision, FinalAnswer)
    if isinstance(turn.decision, ToolCalls):
        assert [call.name for call in turn.decision.calls] == ["write_file"]  # an unknown tool, answered so
    else:
        assert isinstance(turn.decision, (ParseFailure, FinalAnswer))
