"""Reading gaps the seventh pass of real-world cases left (docs/real-world-cases.md), closed, with
the same shapes that must stay what they were, through both strategies' turn readers, the text
whole and in pieces of 1 and 7 characters:

1. a GLM ``<tool_call>`` whose ``<arg_value>`` names ``</tool_call>`` (Ollama's glm47 parser test):
   ReAct's streaming parser ended the block at that tag, inside the value;
2. Gemini's ``default_api:NAME{...}`` leak, glued to a word (bayesimpact/bayes-platform PR #731):
   read in neither strategy; now a call when NAME is a node tool and the form is the whole rest
   of the reply (or its last line).
"""

import pytest

from agent_core.turn import FinalAnswer, ParseFailure, ToolCalls
from tests.unit.helpers import gap_param
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
    # ---- 2. Gemini's default_api:NAME{...} ------------------------------------------------------
    "gemini-default-api-bare": (
        (WEATHER,), "default_api:get_weather{city:Paris}", [("get_weather", {"city": "Paris"})],
    ),
    "gemini-default-api-glued-list-and-null": (
        (tool("tag", "names", "title"),), "Ok:default_api:tag{names:[\"a\", \"b\"],title:null}",
        [("tag", {"names": ["a", "b"], "title": None})],
    ),
    "gemini-default-api-after-a-sentence": (
        (WEATHER,), "Let me check.\nNote:default_api:get_weather{city:Paris}", [("get_weather", {"city": "Paris"})],
    ),
}

REACT_ONLY_CALLS = frozenset({"glm-value-names-closer-after-thought"})

TEXT = {
    # the GLM call shown in a code span: the answer as written (a code span is quoted text)
    "glm-closer-in-value-in-code-span": (
        (WRITE,),
        "GLM writes `" + _glm("write_file", ("path", "a.md"), ("content", "x </tool_call> y")) + "` for a call.",
    ),
    # Gemini's form in a sentence, in a code span, in a fence, with text after it, naming no node
    # tool, glued to a long run of characters: the answer as written
    "gemini-in-prose": ((WEATHER,), "Gemini wrote default_api:get_weather{city:Paris} instead of a call."),
    "gemini-in-code-span": ((WEATHER,), "Gemini wrote `default_api:get_weather{city:Paris}` instead."),
    "gemini-in-fence": ((WEATHER,), "Gemini wrote:\n\n```\ndefault_api:get_weather{city:Paris}\n```"),
    "gemini-text-after": ((WEATHER,), "default_api:get_weather{city:Paris}\nThat is what it wrote."),
    "gemini-no-node-tool": ((WEATHER,), "default_api:get_time{zone:UTC}"),
    "gemini-glued-to-a-long-run": ((WEATHER,), "https://example.com/path/default_api:get_weather{city:Paris}"),
}

NO_NODE_TOOL = {
    # a value naming the closer, in a call of a tool the node lacks: no node tool runs
    "glm-closer-in-value-unknown-tool": (
        (WEATHER,), _glm("write_file", ("path", "a.md"), ("content", "x </tool_call> y")),
    ),
}


GAPS = {
    # (case, strategy) -> why it fails today: a strict xfail, named in docs/real-world-cases.md
    ("gemini-default-api-after-a-sentence", "fc"): (
        "Function Calling runs the call but streams its line: a line is held only when it opens with "
        "a known call start, and a glued word may be any word"
    ),
}


def _params(table, only=frozenset()):
    for name in table:
        for strategy in ("react", "fc"):
            if name in only and strategy != "react":
                continue
            yield gap_param(name, strategy, gap=GAPS.get((name, strategy)), id=f"{name}-{strategy}")


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize(("name", "strategy"), list(_params(CALLS, REACT_ONLY_CALLS)))
def test_the_call_runs_with_its_arguments_whole(name, strategy, size):
    tools, text, calls = CALLS[name]
    streamed, turn = read(strategy, Case(tools, text, calls=calls), size)
    check(strategy, Case(tools, text, calls=calls), streamed, turn)
    assert "<arg_key>" not in streamed and "default_api" not in streamed


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
