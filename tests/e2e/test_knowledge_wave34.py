"""Knowledge context through the real plugin process, in both strategies: every shape Dify's
Agent node can send for ``context`` (a picked variable arrives as it is; one written into the
field as a template arrives as text: the ``str()`` of the array, read back as a JSON string),
with and without ``{{#context#}}`` in the instruction, chat and completion models. Each run:
the context reaches the model once, where it belongs; the citations come back in one
``retriever_resources`` message (what Dify's Agent node turns into its retriever-resource
event) with their metadata; no tool secret in anything the plugin writes but the tool call;
every line within the daemon's limit."""

import json

import pytest

from local_runner import protocol
from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean, plugin_lines, text_of
from tests.unit.test_knowledge_context_shapes import as_agent_node_renders_a_template as templated

SECRET = "sk-kn0wledge-7Qz4Vb9"


def item(n: int, content: str) -> dict:
    """A result as Dify's Knowledge Retrieval node outputs it."""
    return {"content": content, "title": f"doc{n}.md", "metadata": {
        "_source": "knowledge", "position": n, "dataset_id": f"ds-{n}", "dataset_name": "Docs",
        "document_id": f"doc-{n}", "document_name": f"doc{n}.md", "segment_id": f"seg-{n}", "score": 0.9 - n / 10,
        "url": f"https://docs.example/{n}", "doc_metadata": None}}


RESULTS = [item(1, "The X1 battery lasts 14 hours.\nIt charges in 2 hours."), item(2, "The warranty is two years.")]


SHAPES = {
    "list": RESULTS,
    "json text": json.dumps(RESULTS),
    "str() read as JSON": templated(RESULTS),
    "str() in JSON quotes": templated([{**r, "content": r["content"] + ' "quoted"'} for r in RESULTS]),
}



def keyed_tool() -> ScriptedTool:
    return ScriptedTool(name="lookup", description="Looks things up",
                        parameters=[ToolParam("q"), ToolParam("api_key", type="secret-input", form="form")],
                        runtime_parameters={"api_key": SECRET}, responses=[text_message("ok")])


def prompt(request: dict) -> str:
    return "\n".join(text_of(m["content"]) for m in request["prompt_messages"])


def assert_cited(result, expected: list[dict]) -> None:
    """One retriever_resources message, just before the usage, holding each result once."""
    kinds = [m["type"] for m in result.messages if m["type"] != "log"]
    assert kinds.count("retriever_resources") == 1 and kinds[-2:] == ["retriever_resources", "json"]
    cited = result.retriever_resources
    assert [(r["dataset_id"], r["document_name"], r["segment_id"], r["score"]) for r in cited] == [
        (e["metadata"]["dataset_id"], e["metadata"]["document_name"], e["metadata"]["segment_id"], e["metadata"]["score"])
        for e in expected]
    assert [r["content"] for r in cited] == [e["content"] for e in expected]
    message = next(m for m in result.messages if m["type"] == "retriever_resources")
    assert all(e["content"] in message["message"]["context"] for e in expected)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_each_shape_grounds_the_system_prompt_once_and_is_cited(run, strategy, shape, longest_line):
    result = run([answer_turn(strategy, "14 hours [1].")], query="Battery?", strategy=strategy,
                 instruction="You are the X1 bot.", params={"context": SHAPES[shape]})
    assert_clean(result, run)
    assert result.text == "14 hours [1]."
    system = result.llm_requests[0]["prompt_messages"][0]
    assert system["role"] == "system" and system["content"].startswith("You are the X1 bot.")
    text = prompt(result.llm_requests[0])
    assert text.count("The X1 battery lasts 14 hours.\nIt charges in 2 hours.") == 1
    assert text.count("The warranty is two years.") == 1
    assert "seg-1" not in text and "dataset_id" not in text, "the model reads content, not metadata"
    expected = json.loads(json.dumps(RESULTS)) if shape != "str() in JSON quotes" else [
        {**r, "content": r["content"] + ' "quoted"'} for r in RESULTS]
    assert_cited(result, expected)
    assert 0 < longest_line[0] <= protocol.MAX_LINE_BYTES


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_placeholder_puts_the_context_where_it_stands_and_only_there(run, strategy):
    result = run([answer_turn(strategy, "ok")], query="Battery?", strategy=strategy, context=RESULTS,
                 instruction="Answer only from this:\n{{#context#}}\nIf unsure, say so.")
    assert_clean(result, run)
    system = result.llm_requests[0]["prompt_messages"][0]["content"]
    assert "{{#context#}}" not in system
    assert system.index("Answer only from this:") < system.index("14 hours") < system.index("If unsure, say so.")
    assert prompt(result.llm_requests[0]).count("The warranty is two years.") == 1
    assert_cited(result, RESULTS)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_completion_model_reads_the_context_once(run, strategy):
    turn = {"text": " I know.\nFinal Answer: 14 hours."} if strategy == "ReAct" else {"text": "14 hours."}
    result = run([turn], query="Battery?", strategy=strategy, context=RESULTS, model={"mode": "completion"},
                 instruction="Be brief. {{#context#}}")
    assert_clean(result, run)
    assert "14 hours" in result.text
    assert prompt(result.llm_requests[0]).count("The warranty is two years.") == 1
    assert_cited(result, RESULTS)


@pytest.mark.parametrize("value", [[], None, "", {}], ids=["empty list", "null", "empty text", "empty dict"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_no_context_gives_no_knowledge_block_and_no_citations(run, strategy, value):
    result = run([answer_turn(strategy, "Hi.")], query="hi", strategy=strategy, params={"context": value})
    assert_clean(result, run)
    assert "knowledge" not in prompt(result.llm_requests[0]).lower()
    assert not any(m["type"] == "retriever_resources" for m in result.messages)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_one_result_as_a_dict_and_an_object_from_another_node(run, strategy):
    result = run([answer_turn(strategy, "ok")], query="q", strategy=strategy, params={"context": RESULTS[0]})
    assert_clean(result, run)
    assert_cited(result, RESULTS[:1])
    other = run([answer_turn(strategy, "ok")], query="q", strategy=strategy,
                params={"context": {"answer": "Open 9 to 5."}})
    assert_clean(other, run)
    assert "Open 9 to 5." in prompt(other.llm_requests[0]), "an object without content still grounds"
    assert other.retriever_resources == []


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_200_kb_of_results_arrive_whole_and_cited_in_lines_that_fit(run, strategy, longest_line):
    big = [item(n, f"Fact {n}: " + "lorem ipsum " * 1700) for n in range(1, 11)]  # ~20 KB each
    assert len(json.dumps(big)) > 200_000
    result = run([answer_turn(strategy, "ok")], query="Summarise.", strategy=strategy, params={"context": big},
                 timeout=120)
    assert_clean(result, run)
    text = prompt(result.llm_requests[0])
    assert all(text.count(r["content"].strip()) == 1 for r in big)
    assert_cited(result, big)
    assert 0 < longest_line[0] <= protocol.MAX_LINE_BYTES


@pytest.mark.parametrize("shape", ["list", "str() read as JSON"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_tool_secret_in_the_results_leaves_the_plugin_only_in_the_tool_call(run, plugin, strategy, shape):
    run.plugin = plugin
    leaky = [item(1, f"Use the key {SECRET} to call the API."), item(2, "The warranty is two years.")]
    context = leaky if shape == "list" else templated(leaky)
    result = run([answer_turn(strategy, "Done.")], query="How do I call the API?", strategy=strategy,
                 tools=[keyed_tool()], params={"context": context})
    assert_clean(result, run)
    cited = result.retriever_resources
    assert [r["segment_id"] for r in cited] == ["seg-1", "seg-2"], "redacted, still cited"
    assert "[REDACTED]" in cited[0]["content"] and "two years" in cited[1]["content"]
    for entry, _ in plugin_lines(plugin, result):
        assert SECRET not in json.dumps(entry, ensure_ascii=False)
