"""The shapes of the ``context`` parameter Dify's Agent node sends, read as items that ground
the prompt and become citations (``knowledge.read_context``, ``knowledge.retriever_resources``).

A variable picked for the field arrives as it is (a list of Knowledge Retrieval results); one
written into it as a template arrives as text: the Agent node renders an array of objects with
``str()`` (Python's literal form, single quotes) and reads that back as a JSON string, so the
plugin sees the literal, with ``\\n`` escapes turned into newlines, or (when the literal holds a
double quote) the literal still inside its JSON quotes. Each of those must still be cited."""

import json

import pytest

from agent_core.knowledge import RESULTS_TEXT_MAX_CHARS, context_prompt, read_context, retriever_resources
from agent_core.params import StrategyParams
from local_runner import ModelSettings

ITEM = {
    "content": "The X1 battery lasts 14 hours.\nCharge it with the\tUSB-C cable; it's \"fast\" \\ safe.",
    "title": "battery.md",
    "metadata": {
        "_source": "knowledge",
        "position": 1,
        "dataset_id": "ds-1",
        "document_name": "battery.md",
        "segment_id": "seg-1",
        "score": 0.91,
        "doc_metadata": None,
        "url": "https://docs.example/battery",
    },
}


def as_agent_node_renders_a_template(value) -> object:
    """What Dify's Agent node passes on for ``{{#node.result#}}`` written into the field:
    ``json.loads`` of the JSON-quoted template with the array's ``str()`` in it, or the text
    itself when that is no JSON."""
    rendered = json.dumps("{{#k.result#}}").replace("{{#k.result#}}", str(value))
    try:
        return json.loads(rendered)
    except json.JSONDecodeError:
        return rendered


SHAPES = {
    "list of results": [ITEM],
    "one result": ITEM,
    "JSON text of the list": json.dumps([ITEM], ensure_ascii=False),
    "JSON text of one result": json.dumps(ITEM),
    "str() of the list, left in JSON quotes": as_agent_node_renders_a_template([ITEM]),
    "str() of the list, read as a JSON string": as_agent_node_renders_a_template(
        [{**ITEM, "content": "The X1 battery lasts 14 hours.\nIt charges fast."}]
    ),
}


@pytest.mark.parametrize("shape", SHAPES)
def test_every_shape_of_retrieval_results_is_cited_with_its_metadata(shape):
    items = read_context(SHAPES[shape])
    assert len(items) == 1 and items[0]["metadata"]["segment_id"] == "seg-1"
    (cited,) = retriever_resources(items)
    assert (cited.dataset_id, cited.document_name, cited.segment_id, cited.score) == ("ds-1", "battery.md", "seg-1", 0.91)
    assert cited.content.startswith("The X1 battery lasts 14 hours.\n")
    assert context_prompt(items).count("The X1 battery lasts 14 hours.") == 1
    assert "segment_id" not in context_prompt(items), "the prompt shows the content, not the metadata"


def test_the_literal_form_keeps_the_content_exactly():
    assert as_agent_node_renders_a_template([ITEM]).startswith('"[{'), "this shape keeps its JSON quotes"
    assert read_context(as_agent_node_renders_a_template([ITEM])) == [ITEM]


@pytest.mark.parametrize("empty", [None, "", [], "  ", [None, "", {}]])
def test_nothing_gives_no_items(empty):
    assert read_context(empty) == [] or all(not item["content"].strip() for item in read_context(empty))
    assert retriever_resources(read_context(empty)) == []
    assert context_prompt(read_context(empty)) == ""


@pytest.mark.parametrize(
    "text", ["Store hours: 9 to 5.", "[1] hello [2]", "[not, a literal", '"quoted text"', "{x}"]
)
def test_plain_text_grounds_as_it_is_and_is_not_cited(text):
    assert read_context(text) == [{"content": text}]
    assert retriever_resources(read_context(text)) == []


def test_an_object_without_content_grounds_as_its_json_rather_than_being_dropped():
    items = read_context({"answer": "The store opens at 9.", "n": 2})
    assert "The store opens at 9." in context_prompt(items)
    assert retriever_resources(items) == []
    assert "The store opens at 9." in context_prompt(read_context('{"answer": "The store opens at 9."}'))


def test_text_too_long_or_too_deep_to_read_back_is_plain_text():
    deep = "[" * 5000 + "]" * 5000
    assert read_context(deep) == [{"content": deep}]
    long = json.dumps([{**ITEM, "content": "w" * RESULTS_TEXT_MAX_CHARS}])
    assert read_context(long) == [{"content": long}]


def test_strategy_params_read_the_context_the_same_way():
    selector = ModelSettings(context_size=8192).selector([])
    params = StrategyParams.model_validate({"model": selector, "query": "q", "context": json.dumps([ITEM])})
    assert params.context == [ITEM]
