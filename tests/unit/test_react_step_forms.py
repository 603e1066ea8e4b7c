"""Four step forms real models write that the readers got wrong, and the same shapes that must stay
what they were (text, an answer, or a call read as before), through both strategies' turn readers,
the text whole and in pieces of 1 and 7 characters:

1. the XML-tagged step (``<thought>`` / ``<action>`` / ``<action_input>`` / ``<final_answer>``,
   lamalab-org/corral PR #192): the ``<action_input>`` element is the action's input; before, ReAct
   ran the tool with no arguments;
2. ``Action: functions.search`` (OpenAI's ``functions.`` namespace): the node's ``search``;
3. ``Action Input: query="Paris"``: the tool's arguments by name, when every key is a declared
   parameter; any other text with ``=`` or ``:`` stays the input as written;
4. steps under markdown headings (``### Thought`` / ``**Action**`` / ``## Action Input``): labels,
   when the heading holds the label alone.
"""

import pytest

from agent_core.turn import FinalAnswer, ParseFailure, ToolCalls
from tests.unit.test_real_world_2026 import Case, check, tool
from tests.unit.test_real_world_2026d import read

TOOLS = (tool("search", "query"), tool("lookup", "query", "limit"), tool("run_python", "code"))

CALLS = {
    # ---- 1. XML-tagged steps ------------------------------------------------------------------
    "xml-text-input": (
        "<thought>I need to search.</thought>\n<action>search</action>\n<action_input>Paris weather</action_input>",
        [("search", {"query": "Paris weather"})],
        ("react", "fc"),
    ),
    "xml-json-input-two-parameters": (
        '<thought>Look it up.</thought>\n<action>lookup</action>\n<action_input>\n{"query": "Paris", "limit": 3}\n'
        "</action_input>",
        [("lookup", {"query": "Paris", "limit": 3})],
        ("react", "fc"),
    ),
    "xml-no-thought": (
        '<action>search</action>\n<action_input>{"query": "Paris"}</action_input>',
        [("search", {"query": "Paris"})],
        ("react", "fc"),
    ),
    "xml-functions-prefix": (
        '<thought>x</thought>\n<action>functions.search</action>\n<action_input>{"query": "Paris"}</action_input>',
        [("search", {"query": "Paris"})],
        ("react",),
    ),
    # ---- 2. the functions. namespace ------------------------------------------------------------
    "functions-prefix": (
        'Thought: I should search.\nAction: functions.search\nAction Input: {"query": "Paris"}',
        [("search", {"query": "Paris"})],
        ("react",),
    ),
    "functions-prefix-unknown-rest": (  # the rest is no node tool: the name as written (an unknown tool)
        'Thought: I should search.\nAction: functions.browse\nAction Input: {"query": "Paris"}',
        [("functions.browse", {"query": "Paris"})],
        ("react",),
    ),
    # ---- 3. arguments by name -------------------------------------------------------------------
    "kwarg-one": ('Thought: x\nAction: search\nAction Input: query="Paris"', [("search", {"query": "Paris"})], ("react",)),
    "kwarg-two-single-quotes": (
        "Thought: x\nAction: lookup\nAction Input: query='Paris', limit=5",
        [("lookup", {"query": "Paris", "limit": 5})],
        ("react",),
    ),
    "kwarg-colon-lines": (
        "Thought: x\nAction: lookup\nAction Input: query: Paris weather\nlimit: 5",
        [("lookup", {"query": "Paris weather", "limit": 5})],
        ("react",),
    ),
    # the same shapes that are text: the input as written
    "kwarg-code-assignment": (
        "Thought: x\nAction: run_python\nAction Input: x = 1",
        [("run_python", {"code": "x = 1"})],
        ("react",),
    ),
    "kwarg-url-query-string": (
        "Thought: x\nAction: search\nAction Input: https://example.com/?q=paris&limit=5",
        [("search", {"query": "https://example.com/?q=paris&limit=5"})],
        ("react",),
    ),
    "kwarg-undeclared-key": (
        "Thought: x\nAction: lookup\nAction Input: q=Paris, limit=5",
        [("lookup", {"input": "q=Paris, limit=5"})],
        ("react",),
    ),
    "kwarg-sentence-with-colon": (
        "Thought: x\nAction: search\nAction Input: Note: Paris weather",
        [("search", {"query": "Note: Paris weather"})],
        ("react",),
    ),
    # ---- 4. headings ----------------------------------------------------------------------------
    "heading-hashes": (
        '### Thought\nI need to search.\n### Action\nsearch\n### Action Input\n{"query": "Paris"}',
        [("search", {"query": "Paris"})],
        ("react",),
    ),
    "heading-bold": (
        "**Thought**\nI need to search.\n**Action**\nsearch\n**Action Input**\nParis weather",
        [("search", {"query": "Paris weather"})],
        ("react",),
    ),
    "heading-with-colons-any-case": (
        '## THOUGHT:\nI need to search.\n## action:\nsearch\n## Action Input:\n{"query": "Paris"}\n## Observation\nsunny',
        [("search", {"query": "Paris"})],
        ("react",),
    ),
}

ANSWERS = {
    "xml-final-answer": ("<thought>I know it.</thought>\n<final_answer>Paris is sunny.</final_answer>", "Paris is sunny."),
    "xml-answer": ("<thought>I know it.</thought>\n<answer>Paris is sunny.</answer>", "Paris is sunny."),
    "heading-final-answer": ("### Thought\nI know it.\n### Final Answer\nParis is sunny.", "Paris is sunny."),
}

TEXT = {
    # the XML step shown in prose, in a code span, in a fence, or naming no node tool: the answer
    "xml-in-prose": 'Write <action>search</action> then <action_input>{"query": "x"}</action_input> to search.',
    "xml-in-code-span": 'Write `<action>search</action>` then `<action_input>{"query": "x"}</action_input>`.',
    "xml-in-fence": '```xml\n<action>search</action>\n<action_input>{"query": "x"}</action_input>\n```',
    "xml-no-node-tool": '<action>browse</action>\n<action_input>{"query": "x"}</action_input>',
    "xml-sentence-in-action": '<action>I will search now</action>\n<action_input>{"query": "x"}</action_input>',
    # headings with other words, or a heading other than Thought before any label: prose
    "heading-other-words": "## Thought process\nI considered it.\n## Actions taken\nNone yet.",
    "heading-action-in-prose": "## Action\nCall the supplier on Monday.\n## Answer\nThe order ships Friday.",
    "heading-plural": "### Thoughts\nGood idea.\n### Action items\n- search the archive",
}


ASKED_AGAIN_IN_REACT = frozenset({"xml-sentence-in-action"})
"""Shapes ReAct asks again, as before: an ``<action>`` block holding no name nor call object is a
call that could not be read (the model is told), not an answer."""


def _call_params():
    for name, (_, _, strategies) in CALLS.items():
        for strategy in strategies:
            yield pytest.param(name, strategy, id=f"{name}-{strategy}")


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize(("name", "strategy"), list(_call_params()))
def test_step_form_runs_its_call(name, strategy, size):
    text, calls, _ = CALLS[name]
    case = Case(TOOLS, text, calls=calls)
    streamed, turn = read(strategy, case, size)
    check(strategy, case, streamed, turn)
    assert streamed == ""  # nothing of the step reaches the user


def _answer_params():
    """``(name, strategy)`` for each ANSWERS form in both strategies, but a heading form in ReAct
    only: Function Calling reads no ReAct labels."""
    for name in ANSWERS:
        for strategy in ("react", "fc"):
            if not (name.startswith("heading") and strategy == "fc"):
                yield pytest.param(name, strategy, id=f"{name}-{strategy}")


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize(("name", "strategy"), list(_answer_params()))
def test_step_form_answer_is_shown_clean(name, strategy, size):
    text, answer = ANSWERS[name]
    case = Case(TOOLS, text, answer=answer)
    streamed, turn = read(strategy, case, size)
    check(strategy, case, streamed, turn)


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("strategy", ["react", "fc"])
@pytest.mark.parametrize("name", list(TEXT))
def test_same_shape_shown_as_text_is_the_answer(name, strategy, size):
    text = TEXT[name]
    _, turn = read(strategy, Case(TOOLS, text), size)
    assert not isinstance(turn.decision, ToolCalls), turn.decision
    if strategy == "react" and name in ASKED_AGAIN_IN_REACT:
        assert isinstance(turn.decision, ParseFailure), turn.decision
        return
    assert isinstance(turn.decision, FinalAnswer), turn.decision
    assert turn.decision.text == text


def test_xml_step_cut_by_the_output_limit_runs_nothing():
    """A reply the output limit cut inside its ``<action_input>`` is asked again, never run with
    part of its input."""
    from agent_core.model_call import ModelChunk
    from agent_core.react.turn import read_react_turn
    from agent_core.tool_schema import ToolRegistry
    from tests.unit.helpers import drain

    chunks = [ModelChunk(text='<action>search</action>\n<action_input>{"query": "Par'), ModelChunk(finish_reason="length")]
    _, turn = drain(read_react_turn(iter(chunks), ToolRegistry(list(TOOLS)), 1))
    assert isinstance(turn.decision, ParseFailure), turn.decision
