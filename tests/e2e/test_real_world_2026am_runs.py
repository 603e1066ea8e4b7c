"""The thirty-eighth real-world pass (what tools return) through the real plugin, in both
strategies: each tool's stream is played the way Dify hands it on (see
tests/unit/test_real_world_2026am.py for the shapes and sources), and the test checks what the model
read in the next round and what the user got. A workflow tool's JSON written with ``\\uXXXX``
escapes (langgenius/dify#5010) and a web search's (agno-agi/agno#8635) reach the model with their
characters; a tool failing with a proxy's HTML 502 page (letta-ai/letta-code#290) is told to the
model by status and title, and the run goes on; MCP images and audio (CherryHQ/cherry-studio#3360,
agno-agi/agno#10033) reach the user once and are named to the model; structuredContent alone
(seuros/action_mcp#181) is read, and beside the same content (MoonshotAI/kimi-code PR #3234) read
once; an error result with no content (langchain-ai/langchain-mcp-adapters PR #540) is a note."""

import pytest

from local_runner.tools import ScriptedTool, json_message, text_message
from tests.e2e.test_tool_output import (
    STRATEGIES,
    assert_no_base64,
    blob_message,
    call_node,
    call_turns,
    file_bytes,
    observation,
    play,
)
from tests.unit.test_real_world_2026am import CASES, CLOUDFLARE_502, WOLFRAM_GIF, tool_file, variable


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_workflow_tools_escaped_json_reaches_the_model_readable(run, strategy):
    result = play(run, strategy, list(CASES["dify5010-workflow-tool-output-escaped"].messages))
    assert observation(result) == '{"text": "你好，世界！"}'


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_web_searchs_indented_escaped_json_reaches_the_model_readable(run, strategy):
    result = play(run, strategy, list(CASES["agno8635-web-search-json-unicode-escapes"].messages))
    seen = observation(result)
    assert "中文搜索结果" in seen and "\\u4e2d" not in seen and "https://example.cn/a" in seen


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_tool_failing_with_an_html_502_page_is_told_and_the_run_goes_on(run, strategy):
    failing = ScriptedTool(name="fetch", description="Fetches things", parameters=[], error=CLOUDFLARE_502)
    result = run(call_turns(strategy), query="Fetch it.", tools=[failing], strategy=strategy)
    assert result.ok, result.error_text
    assert result.text == "Done." and result.unfinished_logs() == []
    seen = observation(result)
    assert seen.startswith("Error: the tool 'fetch' failed") and "letta.com | 502: Bad gateway" in seen
    assert "<meta" not in seen and "cf-wrapper" not in seen
    assert call_node(result).status == "error"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_mcp_gif_stored_as_a_tool_file_reaches_the_user_once(run, strategy):
    responses = [text_message("plot | x^2"), tool_file("image_link", "5b0e7c1d", ".gif", "image/gif")]
    result = play(run, strategy, responses)
    assert [(f["type"], f["text"]) for f in result.files] == [("image_link", "/files/tools/5b0e7c1d.gif")]
    seen = observation(result)
    assert seen.startswith("plot | x^2") and "An image was sent to the user" in seen and "/files/tools/" not in seen


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_mcp_gif_as_a_raw_blob_reaches_the_user_once_and_never_the_prompt(run, strategy):
    result = play(run, strategy, [text_message("plot | x^2"), blob_message(WOLFRAM_GIF, {"mime_type": "image/gif"})])
    (sent,) = result.files
    assert file_bytes(sent) == WOLFRAM_GIF
    assert "image/gif" in observation(result)
    assert_no_base64(result, WOLFRAM_GIF)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_mcp_audio_stored_as_a_tool_file_reaches_the_user_once(run, strategy):
    result = play(run, strategy, [tool_file("link", "a0d1f2e3", ".wav", "audio/wav")])
    assert [(f["type"], f["text"]) for f in result.files] == [("link", "/files/tools/a0d1f2e3.wav")]
    assert "audio/wav" in observation(result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_structured_content_alone_is_what_the_model_reads(run, strategy):
    result = play(run, strategy, list(CASES["actionmcp181-structured-content-only"].messages))
    seen = observation(result)
    assert "Hello, World!" in seen and "name_length" in seen
    assert result.variables == {}, "a tool's variables never overwrite the agent node's outputs"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_content_and_the_same_structured_content_are_read_once(run, strategy):
    value = {"city": "Lisbon", "forecast": "sunny"}
    result = play(run, strategy, [json_message(value), variable("city", "Lisbon"), variable("forecast", "sunny")])
    assert observation(result) == '{"city":"Lisbon","forecast":"sunny"}'


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_error_result_with_no_content_is_a_note(run, strategy):
    result = play(run, strategy, [])
    assert "returned no output" in observation(result)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize(("provider_type", "joined"), [("mcp", "\n"), ("builtin", "")])
def test_an_mcp_tools_text_blocks_reach_the_model_on_their_own_lines(run, strategy, provider_type, joined):
    """nesquena/hermes-webui#7389: get_file_contents' status block and the file, two text messages."""
    status, body = "successfully downloaded text file (SHA: 3f2a9c1)", "# widgets\n\nA small library."
    fetch = ScriptedTool(name="fetch", description="Fetches things", parameters=[], provider_type=provider_type,
                         responses=[text_message(status), text_message(body)])
    result = run(call_turns(strategy), query="Fetch it.", tools=[fetch], strategy=strategy)
    assert result.ok, result.error_text
    assert result.text == "Done."
    assert observation(result) == status + joined + body
