"""Every line the plugin writes fits the daemon's 5 MiB line buffer (the runner kills the plugin
on a longer line, as the daemon does): huge answers, huge and escape-heavy tool outputs,
many parallel results."""

import json

import pytest

from local_runner import PluginProcess
from local_runner.daemon import DEFAULT_PLUGIN_DIR
from local_runner.protocol import MAX_LINE_BYTES
from local_runner.tools import LocalTool, ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end, weather_tool


@pytest.fixture(scope="module")
def plugin():
    """A plugin process of its own: a failure here must not take the shared one down."""
    with PluginProcess(DEFAULT_PLUGIN_DIR) as process:
        yield process


def big_tool(name: str, text: str) -> LocalTool:
    def handler(params):
        yield text_message(text)

    return LocalTool(name=name, description="Returns a lot", parameters=[ToolParam("value")], handler=handler)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_six_megabyte_answer_in_one_chunk_is_streamed_in_pieces(run, plugin, strategy):
    run.plugin = plugin
    answer = "word " * 1_200_000
    result = run([answer_turn(strategy, answer)], query="Write a lot.", strategy=strategy, timeout=240)
    assert_clean_end(result)
    assert result.text.strip() == answer.strip()
    assert plugin.alive


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_six_parallel_megabyte_results_and_control_characters(run, plugin, strategy):
    run.plugin = plugin
    tools = [big_tool(f"big{n}", ("\x01\x02 data " * 130_000) if n == 0 else "x" * 1_000_000) for n in range(6)]
    if strategy == "ReAct":
        actions = "\n".join(
            "Action:\n```json\n" + json.dumps({"action": f"big{n}", "action_input": {"value": "v"}}) + "\n```"
            for n in range(6)
        )
        first = {"text": f"Thought: all of them.\n{actions}"}
    else:
        first = {"tool_calls": [{"id": f"c{n}", "name": f"big{n}", "arguments": {"value": "v"}} for n in range(6)]}
    result = run([first, answer_turn(strategy, "Done.")], tools=tools, strategy=strategy, timeout=240)
    assert_clean_end(result)
    assert result.text == "Done."
    assert plugin.alive
    request = json.dumps(result.llm_requests[1], ensure_ascii=False).encode()
    assert len(request) < MAX_LINE_BYTES


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_call_with_six_megabytes_of_arguments_is_refused_not_sent(run, plugin, strategy):
    """Its tool request line, and the next model request repeating it, would be over the limit."""
    run.plugin = plugin
    value = "z" * (6 * 1024 * 1024)
    if strategy == "ReAct":
        first = {"text": "Thought: x\nAction:\n```json\n" + json.dumps({"action": "big0", "action_input": {"value": value}}) + "\n```"}
    else:
        first = {"tool_calls": [{"id": "c1", "name": "big0", "arguments": json.dumps({"value": value})}]}
    result = run([first, answer_turn(strategy, "Done.")], tools=[big_tool("big0", "never")], strategy=strategy, timeout=240)
    assert plugin.alive
    assert run.toolbox.calls == []
    if strategy == "function_calling":  # the call goes back with {} and the reason; ReAct's reply text is too large to repeat
        assert_clean_end(result)
        assert "more than a tool call may carry" in json.dumps(result.llm_requests[1])
    else:
        assert result.ok or result.error["message"].startswith("The request to the model would be")
        assert result.unfinished_logs() == []


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_value_of_megabytes_set_in_the_node_stops_the_call_not_the_plugin(run, plugin, strategy):
    """A form parameter the user set in the node goes into the tool's request line with the
    model's arguments: 6 MB of it would be a line the daemon refuses, ending every session."""
    run.plugin = plugin
    tool = ScriptedTool(name="big0", description="Uses a large setting",
                        parameters=[ToolParam("value"), ToolParam("setting", form="form")],
                        runtime_parameters={"setting": "s" * (6 * 1024 * 1024)}, responses=[text_message("never")])
    if strategy == "ReAct":
        first = {"text": "Thought: x\nAction:\n```json\n" + json.dumps({"action": "big0", "action_input": {"value": "v"}}) + "\n```"}
    else:
        first = {"tool_calls": [{"id": "c1", "name": "big0", "arguments": {"value": "v"}}]}
    result = run([first, answer_turn(strategy, "Done.")], tools=[tool], strategy=strategy, timeout=240)
    assert plugin.alive
    assert_clean_end(result)
    assert result.text == "Done."
    assert run.toolbox.calls == []
    assert "more than a tool call may carry" in json.dumps(result.llm_requests[1])


def test_a_call_id_of_megabytes_is_not_repeated_in_the_next_request(run, plugin):
    """The next request repeats a call's id twice (the assistant's call, the tool's result)."""
    run.plugin = plugin
    first = {"tool_calls": [{"id": "i" * (6 * 1024 * 1024), "name": "big0", "arguments": {"value": "v"}}]}
    result = run([first, {"text": "Done."}], tools=[big_tool("big0", "ok")], timeout=240)
    assert plugin.alive
    assert_clean_end(result)
    assert result.text == "Done." and len(run.toolbox.calls) == 1
    assert len(json.dumps(result.llm_requests[1])) < 100_000


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("field", ["query", "instruction"])
def test_an_input_too_large_to_send_ends_with_a_clear_error(run, plugin, strategy, field):
    run.plugin = plugin
    fields = {field: "q" * (6 * 1024 * 1024)}
    if field == "instruction":
        fields["query"] = "hi"
    result = run([answer_turn(strategy, "never")], strategy=strategy, timeout=240, **fields)
    assert plugin.alive
    assert not result.ok and result.error["error_type"] == "AgentRunError"
    assert result.error["message"].startswith("The request to the model would be")
    assert result.unfinished_logs() == []


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_tool_name_of_megabytes_is_not_written_whole_in_a_label(run, plugin, strategy):
    run.plugin = plugin
    name = "u" * (6 * 1024 * 1024)
    first = ({"text": f"Thought: x\nAction: {name}\nAction Input: {{}}"} if strategy == "ReAct"
             else {"tool_calls": [{"id": "c1", "name": name, "arguments": "{}"}]})
    result = run([first, answer_turn(strategy, "Done."), answer_turn(strategy, "Done.")], strategy=strategy, timeout=240)
    assert plugin.alive
    assert result.unfinished_logs() == []
    assert result.ok or result.error["error_type"] == "AgentRunError"


def forwarding_tool(message: dict) -> ScriptedTool:
    return ScriptedTool(name="fetch", description="Fetches things", parameters=[], responses=[message])


def fetch_turn(strategy: str) -> dict:
    if strategy == "ReAct":
        return {"text": 'Thought: fetch.\nAction:\n```json\n{"action": "fetch", "action_input": {}}\n```'}
    return {"tool_calls": [{"id": "c1", "name": "fetch", "arguments": "{}"}]}


HUGE = "q" * (6 * 1024 * 1024)
OVERSIZED = {
    "retriever resources": {"type": "retriever_resources", "message": {
        "retriever_resources": [{"position": i, "content": f"segment {i} " + "w " * 60_000} for i in range(50)],
        "context": "fifty long segments"}, "meta": None},
    "tool file link": {"type": "link", "message": {"text": "https://x.io/files/tools/abc.png?" + HUGE},
                       "meta": {"tool_file_id": "abc"}},
    "image link": {"type": "image_link", "message": {"text": "https://x.io/img.png?" + HUGE}, "meta": None},
    "file name": {"type": "blob", "message": {"blob": "eHh4"}, "meta": {"filename": HUGE, "mime_type": "text/plain"}},
}


@pytest.mark.parametrize("kind", list(OVERSIZED))
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_message_for_the_user_of_megabytes_is_cut_or_withheld_not_written_whole(run, plugin, strategy, kind):
    """A knowledge tool's fifty long segments, an address or a file name of megabytes: forwarded
    as they are, each would be one line over the daemon's limit (every session on the process
    would end). Retriever resources are cut to fit; a link or file is withheld and the model told."""
    run.plugin = plugin
    turns = [fetch_turn(strategy), answer_turn(strategy, "Done.")]
    result = run(turns, tools=[forwarding_tool(OVERSIZED[kind])], strategy=strategy, timeout=240)
    assert plugin.alive
    assert_clean_end(result)
    assert result.text == "Done."
    if kind == "retriever resources":
        assert [r["position"] for r in result.retriever_resources][:3] == [0, 1, 2]
    else:
        assert "more than one message to Dify may carry" in json.dumps(result.llm_requests[1], ensure_ascii=False)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_model_error_of_megabytes_is_shortened_in_the_error(run, plugin, strategy):
    """The SDK writes the error's message, and its traceback, in one line."""
    run.plugin = plugin
    result = run([{"error": "E" * 2_000_000}], strategy=strategy, timeout=240)
    assert plugin.alive
    assert result.error["error_type"] == "AgentRunError"
    assert "characters left out" in result.error["message"] and len(result.error["message"]) < 3_000
    assert result.unfinished_logs() == []


def test_a_knowledge_context_of_megabytes_gives_citations_that_fit_one_line(run, plugin):
    """Five retrieved chunks of 840 KB each: the answer comes, and the citations message (one
    line, every chunk's content) is cut to fit instead of ending the process."""
    run.plugin = plugin
    items = [{"content": f"lorem ipsum {n} " * 60_000, "title": f"doc{n}",
              "metadata": {"_source": "knowledge", "dataset_id": "ds", "document_id": f"d{n}", "segment_id": f"s{n}"}}
             for n in range(5)]
    result = run([{"text": "ok"}], query="summarise", context=items, timeout=120)
    assert_clean_end(result)
    assert result.text == "ok"
    assert plugin.alive


def test_tool_declarations_over_the_line_end_the_run_with_a_clear_error(run, plugin):
    """300 tools with 18 KB descriptions (a large MCP server): the request would not fit one
    daemon line; the run says so instead of writing it."""
    run.plugin = plugin
    tools = [ScriptedTool(name=f"t{n}", description="d" * 18_000, parameters=[ToolParam("q")], responses=[])
             for n in range(300)]
    result = run([{"text": "ok"}], tools=tools, timeout=120)
    assert not result.ok
    assert "tool declarations" in result.error_text
    assert result.unfinished_logs() == []
    assert plugin.alive


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_tool_whose_declaration_alone_is_too_large_is_dropped_and_the_run_goes_on(run, plugin, strategy):
    """One tool with a 6 MB description (or enum) would make every request over the daemon's
    line: it is left out at the start, named in the log as a dropped tool; the other tool runs."""
    run.plugin = plugin
    huge = ScriptedTool(name="huge", description="d" * (6 * 1024 * 1024), parameters=[ToolParam("q")], responses=[])
    if strategy == "ReAct":
        first = {"text": 'Thought: x\nAction:\n```json\n{"action": "get_weather", "action_input": {"city": "Oslo"}}\n```'}
    else:
        first = {"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Oslo"}}]}
    result = run([first, answer_turn(strategy, "Sunny.")], tools=[huge, weather_tool()], strategy=strategy, timeout=240)
    assert plugin.alive
    assert_clean_end(result)
    assert result.text == "Sunny."
    assert [call["tool_parameters"] for call in result.tool_requests] == [{"city": "Oslo"}]
    (node,) = [n for n in result.logs.values() if n.label == "TOOL DROPPED huge"]
    assert node.status == "error" and "bytes" in node.error
    for request in result.llm_requests:
        assert len(json.dumps(request, ensure_ascii=False).encode()) < MAX_LINE_BYTES
        assert "huge" not in json.dumps(request)  # not declared, not mentioned


HUGE_SETTINGS = {
    "model name": {"model": "m" * (6 * 1024 * 1024)},
    "provider": {"provider": "p/p/" + "p" * (6 * 1024 * 1024)},
    "completion parameter": {"completion_params": {"temperature": 0.1, "user": "\x01" * 1_000_000}},
    "stop sequences": {"completion_params": {"stop": [f"s{n}" for n in range(700_000)]}},
}


@pytest.mark.parametrize("setting", list(HUGE_SETTINGS))
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_model_settings_of_megabytes_end_with_a_clear_error_not_a_line_over_the_limit(run, plugin, strategy, setting):
    """The model-selector's name, provider and completion parameters go into every request
    line (and the provider into every model log node) whatever their size."""
    run.plugin = plugin
    result = run([answer_turn(strategy, "never")], strategy=strategy, timeout=240, model=HUGE_SETTINGS[setting])
    assert plugin.alive
    assert result.error["error_type"] == "AgentRunError"
    assert result.error["message"].startswith("The request to the model would be") and "model's settings" in result.error["message"]
    assert result.unfinished_logs() == []


@pytest.mark.parametrize("field", ["currency", "total_price"])
def test_a_usage_field_of_megabytes_is_named_not_written_into_every_log_line(run, plugin, field):
    """A currency of megabytes would go into every log node's metadata; a price of a million
    digits overflows decimal's context when added up. Each is named in the log, counted as 0."""
    run.plugin = plugin
    value = "C" * (6 * 1024 * 1024) if field == "currency" else "1e999999"
    result = run([{"text": "ok", "usage": {"prompt_tokens": 10, "completion_tokens": 2, field: value}}], timeout=120)
    assert plugin.alive
    assert_clean_end(result)
    assert result.text == "ok"
    (thought,) = [n for n in result.logs.values() if n.label.endswith(" Thought")]
    assert thought.data["usage_error"].startswith(f"usage field {field!r} cannot be read")


class DeepSchemaTool(ScriptedTool):
    """An MCP-style tool whose object parameter's ``input_schema`` nests 300 levels deep."""

    def entity(self) -> dict:
        entity = super().entity()
        schema: dict = {"type": "string"}
        for _ in range(300):
            schema = {"type": "object", "properties": {"a": schema}}
        entity["parameters"][0].update(type="object", input_schema=schema)
        return entity


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_tool_schema_nested_too_deep_to_send_does_not_end_the_run(run, plugin, strategy):
    """Copying it hit Python's recursion limit (the run ended with a bare RecursionError), and
    pydantic-core refuses to write data nested some 255 levels deep in the request line."""
    run.plugin = plugin
    tool = DeepSchemaTool(name="deep", description="Takes a nested object", parameters=[ToolParam("value")],
                          responses=[text_message("ok")])
    if strategy == "ReAct":
        first = {"text": "Thought: x\nAction:\n```json\n" + json.dumps({"action": "deep", "action_input": {"value": {"a": {}}}}) + "\n```"}
    else:
        first = {"tool_calls": [{"id": "c1", "name": "deep", "arguments": {"value": {"a": {}}}}]}
    result = run([first, answer_turn(strategy, "Done.")], tools=[tool], strategy=strategy, timeout=120)
    assert plugin.alive
    assert_clean_end(result)
    assert result.text == "Done." and len(run.toolbox.calls) == 1


SHORT_KEY = "k3y9"
"""A secret of four characters: ``[REDACTED]`` (ten) makes a text holding it grow 2.5 times."""


def keyed_tool() -> ScriptedTool:
    return ScriptedTool(name="lookup", description="Looks things up",
                        parameters=[ToolParam("q"), ToolParam("api_key", type="secret-input", form="form")],
                        runtime_parameters={"api_key": SHORT_KEY}, responses=[text_message("ok")])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_prompt_that_grows_past_the_line_when_redacted_ends_with_a_clear_error(run, plugin, strategy):
    """A 4 MB query made of the key: measured before it was redacted it fit, and the request
    written was 10 MB (the plugin was killed)."""
    run.plugin = plugin
    result = run([answer_turn(strategy, "never")], query=SHORT_KEY * 1_000_000, tools=[keyed_tool()],
                 strategy=strategy, timeout=240)
    assert plugin.alive
    assert not result.ok and result.error["error_type"] == "AgentRunError"
    assert result.error["message"].startswith("The request to the model would be")
    assert result.unfinished_logs() == []


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_citations_that_grow_past_the_line_when_redacted_are_cut_after_it(run, plugin, strategy):
    """Five retrieved chunks of 800 KB of the key: the citations were cut to fit their line, then
    redacted, and the line written was 6.5 MB (the plugin was killed)."""
    run.plugin = plugin
    items = [{"content": SHORT_KEY * 200_000, "title": f"doc{n}",
              "metadata": {"_source": "knowledge", "dataset_id": "ds", "document_id": f"d{n}", "segment_id": f"s{n}"}}
             for n in range(5)]
    result = run([answer_turn(strategy, "ok")], query="summarise", context=items, tools=[keyed_tool()],
                 strategy=strategy, timeout=240)
    assert plugin.alive
    assert_clean_end(result)
    assert result.text == "ok"
    assert result.retriever_resources and SHORT_KEY not in json.dumps(result.retriever_resources)
