"""ReAct step labels written with a no-break space (U+00A0) or a narrow no-break space (U+202F)
between their words or before their colon, as French typography writes them (``Action\\u00a0:``,
``Final\\u00a0Answer:``, ``Thought\\u202f:``) and as some models' tokenizers give them back, and
with a plain space before the colon (``Action :``, ``Final Answer :``). Before wave 39 a label
with a no-break space in it was thought text: the tool never ran, and ``Final\\u00a0Answer:`` was
no answer. Read through both strategies' turn readers (the ReAct parser's label table and Function
Calling's readers of ReAct-style steps, ``react.parser.LABEL_SPACES``), whole and in pieces of 1
and 7 characters; an ``Action :`` line of prose inside a final answer stays the answer's text,
as ``Action:`` there does."""

import pytest

from agent_core.function_calling.react_steps import react_step_calls
from agent_core.function_calling.turn import react_final_answer
from agent_core.react.parser import ReactStreamParser, parse_react
from tests.unit.test_real_world_2026 import Case, check_reply, reply_params, tool

SEARCH = tool("search", "query")
STEP = 'Thought{t}: je cherche.\nAction{a}: search\nAction{i}Input{c}: {{"query": "météo Paris"}}'
CALL = [("search", {"query": "météo Paris"})]

CASES = {
    "no-break-space-before-each-colon": Case(
        (SEARCH,), STEP.format(t="\u00a0", a="\u00a0", i=" ", c="\u00a0"), calls=CALL, hidden=("Action",)
    ),
    "no-break-space-between-words": Case(
        (SEARCH,), STEP.format(t="", a="", i="\u00a0", c=""), calls=CALL, hidden=("Action",)
    ),
    "narrow-no-break-spaces": Case(
        (SEARCH,), STEP.format(t="\u202f", a="\u202f", i="\u202f", c="\u202f"), calls=CALL, hidden=("Action",)
    ),
    "plain-space-before-each-colon": Case(
        (SEARCH,), STEP.format(t=" ", a=" ", i=" ", c=" "), calls=CALL, hidden=("Action",)
    ),
    "final-no-break-answer": Case(
        (SEARCH,), "Thought: je sais.\nFinal\u00a0Answer: Il fait beau.", answer="Il fait beau.",
        hidden=("Thought", "Final"),
    ),
    "final-answer-no-break-space-before-colon": Case(
        (SEARCH,), "Thought\u202f: je sais.\nFinal Answer\u00a0: Il fait beau.", answer="Il fait beau.",
        hidden=("Thought", "Final"),
    ),
    "final-no-break-answer-no-break-colon": Case(
        (SEARCH,), "Thought\u00a0: je sais.\nFinal\u00a0Answer\u00a0: Il fait beau.", answer="Il fait beau.",
        hidden=("Thought", "Final"),
    ),
    "final-answer-plain-space-before-colon": Case(
        (SEARCH,), "Thought : je sais.\nFinal Answer : Il fait beau.", answer="Il fait beau.",
        hidden=("Thought", "Final"),
    ),
    "french-prose-with-no-break-spaces-is-prose": Case(
        (SEARCH,), "Bonjour\u00a0! Voici la réponse\u00a0: il fait beau.",
        answer="Bonjour\u00a0! Voici la réponse\u00a0: il fait beau.",
    ),
}


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize(("name", "strategy"), list(reply_params(CASES, {})))
def test_label_with_a_no_break_space(name, strategy, size):
    check_reply(CASES, name, strategy, size)


@pytest.mark.parametrize("space", [":", " :", "\u00a0:", "\u202f:"])
def test_an_action_line_of_prose_in_a_final_answer_stays_text_as_action_colon_does(space):
    """``Action :`` (French) inside a final answer's text, as the answer's own line: the answer
    keeps it whole, as it keeps ``Action:`` there; followed by ``Action Input``, it is the format
    written on past the answer, cut as ``Action:`` is."""
    prose = f"Final Answer: Voici le plan.\nAction{space} le film sort vendredi."
    assert parse_react(prose).final_answer == f"Voici le plan.\nAction{space} le film sort vendredi."
    assert parse_react(prose).actions == ()
    run_on = f"Final Answer: Voici.\nAction{space} search\nAction Input{space} x"
    assert parse_react(run_on).final_answer == "Voici."


@pytest.mark.parametrize("space", ["\u00a0", "\u202f"])
def test_a_no_break_space_inside_a_word_is_no_label(space):
    """A no-break space is read between a label's words, never inside one: ``Act\u00a0ion:`` is
    thought text and runs nothing."""
    turn = parse_react(f"Thought: a\nAct{space}ion: search")
    assert turn.actions == ()
    assert turn.thought == f"a\nAct{space}ion: search"


def test_a_label_split_at_its_no_break_space_waits_for_the_rest():
    parser = ReactStreamParser()
    out = parser.feed("Thought: a\nFinal\u00a0")
    out += parser.feed("Answer\u00a0")
    out += parser.feed(": 42")
    parser.finish()
    assert parser.result().final_answer == "42"
    assert "Final" not in "".join(getattr(delta, "text", "") for delta in out)


@pytest.mark.parametrize("reply", [
    "Thought: ok\nFinal\u00a0Answer\u00a0: Paris",
    "Thought\u202f: ok\nFinal\u202fAnswer: Paris",
    "Thought : ok\nFinal Answer : Paris",
])
def test_function_calling_reads_a_final_step_with_no_break_spaces(reply):
    assert react_final_answer(reply) == "Paris"


@pytest.mark.parametrize("reply", [
    'Thought\u00a0: ok\nAction\u00a0: search\nAction\u00a0Input\u00a0: {"query": "q"}',
    'Action\u202f: search\nAction\u202fInput: {"query": "q"}',
    'Action : search\nAction Input : {"query": "q"}',
])
def test_function_calling_reads_a_react_step_with_no_break_spaces(reply):
    found = react_step_calls(reply, 0, {"search": None})
    assert isinstance(found, tuple), found
    calls = found[0]
    assert [(call.name, call.arguments) for call in calls] == [("search", {"query": "q"})]
