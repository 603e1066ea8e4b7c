"""Function Calling runs a ReAct step a model wrote as text instead of calling its native tools
(``Thought: ...\\nAction: search\\nAction Input: {...}``), as ReAct reads it, under the text-call
rules: the step names a node tool, opens a line outside code and quotes, its input reads, and
nothing but whitespace (or an invented ``Observation:``, dropped) follows. Each reply is read
whole and in pieces of 1 and 7 characters, through both strategies where they agree, with the
tools' declarations as the strategy gives them."""

import pytest

from agent_core.function_calling.turn import read_function_calling_turn
from agent_core.react.turn import read_react_turn
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ToolCalls
from tests.unit.helpers import drain
from tests.unit.test_real_world_2026 import Case, check_reply, chunks_of, reply_params, tool

SEARCH = tool("search", "query")
WEATHER = tool("get_weather", "city", "unit")
TOOLS = (SEARCH, WEATHER)
STEP = 'Action: search\nAction Input: {"query": "paris"}'
PARIS = [("search", {"query": "paris"})]
HIDDEN = ("Action", "search", "paris")


def read(strategy: str, case: Case, size: int | None):
    """The turn reader of ``strategy`` over ``case`` in pieces of ``size`` (None: whole), Function
    Calling given the tools' declarations (``ToolRegistry.prompt_tools``), its answer gate fed
    each piece as it comes (no reasoning probe holding a short reply's start)."""
    chunks = iter(chunks_of(case, size))
    registry = ToolRegistry(list(case.tools))
    if strategy == "react":
        return drain(read_react_turn(chunks, registry, 1))
    return drain(read_function_calling_turn(chunks, registry.prompt_tools(), reasoning_probe=False))


def shown_as_written(text: str) -> Case:
    """A reply Function Calling must not run: the answer, word for word (the tool is declared)."""
    return Case(TOOLS, text, answer=text, only=("fc",))


CASES = {
    # ---- run: the step is the reply's end ----------------------------------------------------------
    "action-alone": Case(TOOLS, STEP, calls=PARIS, hidden=HIDDEN),
    "thought-then-action": Case(TOOLS, "Thought: I need to look it up.\n" + STEP, calls=PARIS,
                                hidden=(*HIDDEN, "Thought", "look it up")),
    "markdown-thought": Case(TOOLS, "**Thought:** I need to look it up.\n" + STEP, calls=PARIS, hidden=HIDDEN),
    "heading-form": Case(
        TOOLS, '### Thought\nI need to look it up.\n### Action\nsearch\n### Action Input\n{"query": "paris"}',
        calls=PARIS, hidden=(*HIDDEN, "###"),
    ),
    "heading-with-colons": Case(TOOLS, '### Action: search\n### Action Input: {"query": "paris"}', calls=PARIS,
                                hidden=HIDDEN),
    "bold-labels": Case(TOOLS, '**Action:** search\n**Action Input:** {"query": "paris"}', calls=PARIS, hidden=HIDDEN),
    "emoji-label": Case(TOOLS, 'Thought: x\n🔧 Action: search\nAction Input: {"query": "paris"}', calls=PARIS,
                        hidden=HIDDEN),
    "namespaced-name": Case(TOOLS, 'Action: functions.search\nAction Input: {"query": "paris"}', calls=PARIS,
                            hidden=HIDDEN),
    "input-by-name": Case(TOOLS, 'Action: get_weather\nAction Input: city="Paris", unit="C"',
                          calls=[("get_weather", {"city": "Paris", "unit": "C"})], hidden=("Action", "Paris")),
    "text-input-one-parameter": Case(TOOLS, "Action: search\nAction Input: paris", calls=PARIS, hidden=HIDDEN),
    "input-in-a-fence": Case(TOOLS, 'Action: search\nAction Input:\n```json\n{"query": "paris"}\n```', calls=PARIS,
                             hidden=(*HIDDEN, "```")),
    "invented-observation-dropped": Case(
        TOOLS, "Thought: I need it.\n" + STEP + "\nObservation: Paris is large.\nThought: done.\nFinal Answer: large",
        calls=PARIS, hidden=(*HIDDEN, "Observation", "large"),
    ),
    "two-steps-in-order": Case(
        TOOLS, "Thought: both.\n" + STEP + '\nThought: and the weather.\nAction: get_weather\nAction Input: {"city": "Paris"}\n',
        calls=[*PARIS, ("get_weather", {"city": "Paris"})], hidden=(*HIDDEN, "weather"),
    ),
    "trailing-blank-lines": Case(TOOLS, STEP + "\n\n  \n", calls=PARIS, hidden=HIDDEN),
    # ---- not run: shown as written -----------------------------------------------------------------
    "names-no-tool": shown_as_written('Action: lookup\nAction Input: {"query": "paris"}'),
    "in-a-fence": shown_as_written("Write your steps so:\n```\n" + STEP + "\n```"),
    "in-a-tilde-fence": shown_as_written("Write your steps so:\n~~~\n" + STEP + "\n~~~"),
    "in-a-blockquote": shown_as_written('The log said:\n> Action: search\n> Action Input: {"query": "paris"}'),
    "in-the-middle-of-prose": shown_as_written("A step looks like this:\n" + STEP + "\nThe tool's result comes next."),
    "no-input-label": shown_as_written("Action: search"),
    "action-plan-in-an-answer": shown_as_written("Plan:\nAction: call the supplier\nAction: review the contract"),
    "heading-not-a-label": shown_as_written("### Action items\n- search the archive\n- call Paris"),
    # ---- asked again: a step naming a node tool whose input does not read (a call written broken) ---------
    "input-does-not-read": Case(TOOLS, 'Action: search\nAction Input: {"query": 37 * 91}', fallback="", only=("fc",),
                                hidden=HIDDEN),
    "input-never-closed": Case(TOOLS, 'Action: search\nAction Input: {"query": "paris"', fallback="", only=("fc",),
                               hidden=HIDDEN),
    "text-input-two-parameters": Case(TOOLS, "Action: get_weather\nAction Input: Paris in C", fallback="", only=("fc",),
                                      hidden=("Action", "Paris")),
    # a step after a Final Answer stays not run (not_read_after_answer), both strategies
    "step-after-the-answer": Case(TOOLS, "Thought: no tool.\nFinal Answer: Paris.\n" + STEP, answer="Paris."),
}


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize(("name", "strategy"), list(reply_params(CASES, {})))
def test_a_react_step_in_function_calling(name, strategy, size):
    check_reply(CASES, name, strategy, size, reader=read)


@pytest.mark.parametrize("size", [None, 1, 7])
def test_a_sentence_before_the_step_stays_shown_and_the_step_never_streams(size):
    case = Case(TOOLS, "I will look it up.\n" + STEP)
    streamed, turn = read("fc", case, size)
    assert streamed == "I will look it up.\n"
    assert isinstance(turn.decision, ToolCalls)
    assert [(c.name, c.arguments) for c in turn.decision.calls] == PARIS
    assert turn.thought == "I will look it up."


@pytest.mark.parametrize("size", [None, 1, 7])
def test_the_reply_goes_back_intact_and_each_call_gets_a_made_id(size):
    text = "Thought: both.\n" + STEP + "\nObservation: made up\n"
    streamed, turn = read("fc", Case(TOOLS, text + 'Action: get_weather\nAction Input: {"city": "Rome"}'), size)
    assert streamed == ""
    assert isinstance(turn.decision, ToolCalls) and turn.decision.in_text
    (call,) = turn.decision.calls  # the parser stops at the invented observation, as ReAct's
    assert (call.name, call.arguments) == PARIS[0]
    assert len(call.id) == 9 and call.id.isalnum()
    assert turn.content == text + 'Action: get_weather\nAction Input: {"city": "Rome"}'
    assert turn.thought == "both."


def test_an_action_line_in_prose_that_names_no_tool_streams_at_once():
    # only a line naming a node tool (or a heading holding "Action" alone) is held to the end
    fed: list[str] = []
    pieces = ["Plan:\n", "Action: call the supplier\n", "more text"]

    def chunks():
        for chunk in chunks_of(Case(TOOLS, "".join(pieces)), None)[:-1]:
            for piece in pieces:
                fed.append(piece)
                yield type(chunk)(text=piece)
        yield chunks_of(Case(TOOLS, ""), None)[-1]

    reader = read_function_calling_turn(chunks(), ToolRegistry(list(TOOLS)).prompt_tools(), reasoning_probe=False)
    shown = ""
    while "supplier" not in shown:
        shown += next(reader)
    assert fed == pieces[:2]  # shown before the text after it came


def test_a_step_in_the_middle_of_prose_shows_all_of_it_at_the_end():
    text = "First this.\n" + STEP + "\nThen that."
    streamed, turn = read("fc", Case(TOOLS, text), 3)
    assert streamed == text
    assert turn.decision == FinalAnswer(text)
