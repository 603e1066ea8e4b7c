"""ReAct labels written as French typography writes them, through the real plugin process: a
no-break space (U+00A0) or a narrow no-break space (U+202F) before the colon or between a label's
words (``Action\\u00a0:``, ``Final\\u00a0Answer\\u00a0:``, ``Thought\\u202f:``), or a plain space
before the colon (``Final Answer :``). Found in wave 39: a label with a no-break space in it was
thought text, so the tool never ran and the reply was asked for again (``react.parser.LABEL_SPACES``)."""

import pytest

from tests.e2e.helpers import assert_clean, tools_ran, weather_tool

STEP = 'Thought{s}: je cherche la météo.\nAction{s}: get_weather\nAction{s}Input{s}: {{"city": "Paris"}}'


@pytest.mark.parametrize("split", [None, 1])
@pytest.mark.parametrize("space", ["\u00a0", "\u202f", " "], ids=["nbsp", "narrow-nbsp", "space"])
def test_react_labels_with_french_spaces_run_the_action_and_give_the_answer(run, space, split):
    turns = [
        {"text": STEP.format(s=space), "split": split},
        {"text": f"Thought{space}: je sais.\nFinal{space}Answer{space}: Il fait beau à Paris.", "split": split},
    ]
    result = run(turns, query="Quel temps fait-il à Paris ?", strategy="ReAct", tools=[weather_tool("beau, 21 °C")])
    assert_clean(result, run)
    assert tools_ran(result) == [("get_weather", {"city": "Paris"})]
    assert result.text == "Il fait beau à Paris."


@pytest.mark.parametrize("split", [None, 1])
def test_function_calling_reads_a_react_step_written_with_no_break_spaces(run, split):
    """Function Calling with a model that writes its call as a ReAct step in text, French style:
    the call runs and its labels never reach the user."""
    result = run([{"text": STEP.format(s="\u00a0"), "split": split}, {"text": "Il fait beau à Paris."}],
                 query="Quel temps fait-il à Paris ?", tools=[weather_tool("beau, 21 °C")])
    assert_clean(result, run)
    assert tools_ran(result) == [("get_weather", {"city": "Paris"})]
    assert result.text.endswith("Il fait beau à Paris.") and "Action" not in result.text


def test_an_action_line_of_prose_in_a_french_final_answer_stays_the_answers_text(run):
    """``Action\\u00a0:`` as a line of the answer's own prose (an action plan) stays in the answer, as
    ``Action:`` does there: nothing runs."""
    answer = "Voici le plan.\nAction\u00a0: réserver la salle."
    result = run([{"text": f"Thought\u00a0: je sais.\nFinal\u00a0Answer\u00a0: {answer}"}],
                 query="Quel est le plan ?", strategy="ReAct", tools=[weather_tool("beau")])
    assert_clean(result, run)
    assert tools_ran(result) == []
    assert result.text == answer
