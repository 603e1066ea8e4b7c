"""Small items wave 38 left, through the real plugin process: a PDF of the query sent to a model
that does not declare ``document`` is told of as text and a ``DOCUMENT AS TEXT`` log entry says
why, as ``IMAGE AS TEXT`` does for images; a Function Calling reply the output limit cut inside a
ReAct-style step's tool name written with a namespace (``Action: functions.look``) is a cut call,
never shown, as the same cut without the namespace is."""

from __future__ import annotations

import pytest

from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean, assert_clean_run, call_turn, prompt_text, tools_ran
from tests.e2e.test_left_items_wave37 import lookup

REPORT = {"dify_model_identity": "__dify__file__", "url": "https://example.com/files/q3.pdf?sign=s9",
          "mime_type": "application/pdf", "filename": "q3.pdf", "extension": ".pdf", "size": 4096,
          "type": "document"}
BASE = ["tool-call", "multi-tool-call", "agent-thought", "stream-tool-call"]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_pdf_for_a_model_without_document_input_is_told_as_text_and_the_log_says_why(run, strategy):
    """A PDF for a model that does not declare ``document`` was a silent mention: the user saw the
    model answer without the file's content and no log entry said why. Now one ``DOCUMENT AS
    TEXT`` entry, in round 1 only, names the file and the missing feature; a model that reads
    documents is not told it lacks the feature (its entry, if any, gives another reason)."""
    turns = [call_turn(strategy, "lookup", {"q": "1"}), answer_turn(strategy, "I cannot read it.")]
    result = run(turns, query="Summarise the report", strategy=strategy, tools=[lookup()], files=[REPORT],
                 model={"features": BASE})
    assert_clean(result, run)
    for request in result.llm_requests:
        assert "q3.pdf" in prompt_text(request) and "sign=s9" not in prompt_text(request)
    (note,) = [n for n in result.logs.values() if n.label == "DOCUMENT AS TEXT"]
    assert "q3.pdf" in note.data["output"] and "document" in note.data["output"]
    assert note.parent_id == next(n.id for n in result.root_logs() if n.label == "ROUND 1")

    reading = {"features": [*BASE, "document"]}
    result = run([answer_turn(strategy, "It says Q3 was good.")], query="Summarise the report", strategy=strategy,
                 files=[REPORT], model=reading)
    notes = [n.data["output"] for n in result.logs.values() if n.label == "DOCUMENT AS TEXT"]
    assert notes and not any("declare" in note for note in notes), notes  # here: not fetched (no network)


@pytest.mark.parametrize("name", ["functions.look", "default_api.lookup", "functions."])
def test_fc_text_step_cut_inside_a_namespaced_tool_name_is_neither_shown_nor_run(run, name):
    """Function Calling with native tools showed ``Let me check.\nAction: functions.look`` as its
    answer's end; ``Action: look`` was already a cut call asked again."""
    turns = [{"text": f"Let me check.\nAction: {name}", "finish_reason": "length"},
             {"tool_calls": [{"id": "c2", "name": "lookup", "arguments": {"q": "Paris"}}]}, {"text": "Found."}]
    result = run(turns, query="Look up Paris.", tools=[lookup()])
    assert_clean_run(result)
    assert result.text.endswith("Found."), result.text
    assert "Action" not in result.text and "functions." not in result.text, result.text
    assert tools_ran(result) == [("lookup", {"q": "Paris"})]
