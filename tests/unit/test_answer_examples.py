"""What an answer shows as an example stays the answer: a JSON-RPC request naming no tool of the
node (an MCP or Ethereum example) is not a call, and a closing ``</answer>`` or ``</response>``
within a line of a reply with no reasoning is the answer's own text. Their counterparts (a request naming a
tool; the frame's end left after reasoning) still run or are dropped. Both strategies, the reply
whole and in pieces."""

import pytest

from agent_core.turn import FinalAnswer, ToolCalls
from tests.unit.test_real_world_2026 import Case, read, tool

SEARCH = tool("search", "query")

ANSWERS = {
    "rpc-example-fenced": 'Here is an example request:\n```json\n{"jsonrpc": "2.0", "method": "eth_getBalance", '
    '"params": ["0x1", "latest"], "id": 1}\n```\nSend it with curl.',
    "mcp-example-bare": '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x", "arguments": {}}}',
    "method-and-params": '{"method": "POST", "params": {"url": "/x"}}',
    "closing-tag-in-prose": "Close the block with </response>",
    "closing-tag-alone": "</answer>",
}


@pytest.mark.parametrize("strategy", ["react", "fc"])
@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("name", list(ANSWERS))
def test_an_example_in_an_answer_stays_the_answer(name, strategy, size):
    text = ANSWERS[name]
    streamed, turn = read(strategy, Case((SEARCH,), text), size)
    assert isinstance(turn.decision, FinalAnswer)
    assert turn.decision.text.strip() == text.strip()
    assert streamed.strip() == text.strip()


@pytest.mark.parametrize("size", [None, 1, 7])
def test_a_json_rpc_request_naming_a_tool_is_a_call(size):
    text = '{"jsonrpc": "2.0", "method": "search", "params": {"query": "x"}, "id": 1}'
    for strategy in ("react", "fc"):
        _, turn = read(strategy, Case((SEARCH,), text), size)
        assert isinstance(turn.decision, ToolCalls)
        assert [(c.name, c.arguments) for c in turn.decision.calls] == [("search", {"query": "x"})]


@pytest.mark.parametrize("size", [None, 1, 7])
def test_the_frames_end_left_after_reasoning_is_dropped(size):
    """vllm-project/vllm#58127: the reasoning parser took the reasoning and ``<answer>`` out and
    left ``\\n</answer>`` at the end of the content."""
    for strategy in ("react", "fc"):
        streamed, turn = read(strategy, Case((SEARCH,), "Paris is sunny.\n</answer>", reasoning="The user asks..."), size)
        assert isinstance(turn.decision, FinalAnswer) and turn.decision.text.strip() == "Paris is sunny."
        assert "</answer>" not in streamed


QUOTED_CALLS = {
    "wrapper-in-an-xml-fence-after-text": 'An example:\n```xml\n<tool>{"name": "search", "arguments": {"query": "x"}}</tool>\n```\nThat is all.',
    "wrapper-in-an-html-fence": 'See:\n```html\n<tool>{"name": "search", "arguments": {"query": "x"}}</tool>\n```',
    "functools-in-backticks": 'Use `functools[{"name": "search", "arguments": {"query": "x"}}]` to call it.',
    "call-object-in-a-fence": 'Format:\n```\n{"name": "search", "arguments": {"query": "x"}}\n```',
}


@pytest.mark.parametrize("size", [None, 3])
@pytest.mark.parametrize("name", list(QUOTED_CALLS))
def test_a_call_the_answer_quotes_as_code_is_not_run(name, size):
    """Function Calling's readers of a call after a sentence (a Hermes wrapper, Phi-4-mini's
    ``functools[...]``, a call object on its own line) skip code the answer shows."""
    text = QUOTED_CALLS[name]
    streamed, turn = read("fc", Case((SEARCH,), text), size)
    assert isinstance(turn.decision, FinalAnswer) and turn.decision.text.strip() == text.strip()
    assert streamed.strip() == text.strip()


@pytest.mark.parametrize(
    "text",
    [
        '```xml\n<response>\n{"name": "search", "arguments": {"query": "x"}}\n</response>\n```',  # llama.cpp's Hermes 2 Pro test
        'Sure. functools[{"name": "search", "arguments": {"query": "x"}}]',
        'Let me search.\n<tool>\n{"name": "search", "arguments": {"query": "x"}}\n</tool>',
    ],
)
def test_the_same_calls_outside_code_run(text):
    _, turn = read("fc", Case((SEARCH,), text), None)
    assert isinstance(turn.decision, ToolCalls)
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [("search", {"query": "x"})]
