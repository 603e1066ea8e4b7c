"""LogNode: start and finish share an id, finish carries every metadata key, once."""

import pytest
from dify_plugin.entities.agent import AgentInvokeMessage
from dify_plugin.entities.provider_config import LogMetadata
from pydantic_core import to_json

from agent_core.line_budget import LABEL_CHARS
from agent_core.logs import LogNode
from agent_core.usage import coerce_usage


def test_start_then_finish_share_id_and_parent():
    root = LogNode("ROUND 1")
    child = LogNode("CALL search", parent=root, provider="langgenius/openai/openai")
    start, end = child.start({"x": 1}), child.finish({"y": 2}, usage=coerce_usage({"total_tokens": 9, "total_price": "0.01"}))
    assert start.message.id == end.message.id == child.id
    assert start.message.parent_id == end.message.parent_id == root.id
    assert start.message.status.value == "start" and end.message.status.value == "success"
    metadata = end.message.metadata
    for key in LogMetadata:
        assert key in metadata
    assert metadata[LogMetadata.TOTAL_TOKENS] == 9
    assert metadata[LogMetadata.ELAPSED_TIME] >= 0


def test_error_finish_and_double_finish():
    node = LogNode("ROUND 1")
    node.start()
    end = node.finish(error="boom")
    assert end.message.status.value == "error" and end.message.error == "boom"
    with pytest.raises(RuntimeError):
        node.finish()


def test_messages_equal_what_the_sdk_reads_back():
    """What LogNode builds survives a dump and a validation unchanged (the daemon's view of it)."""
    root = LogNode("ROUND 1")
    node = LogNode("CALL search", parent=root, provider="langgenius/openai/openai")
    messages = [
        root.start(),
        node.start({"tool_name": "search", "tool_input": {"q": "é"}}),
        node.finish({"output": "x" * 300}, usage=coerce_usage({"total_tokens": 9, "total_price": "0.01"}), error="boom"),
        root.finish({"answer": None}),
    ]
    for message in messages:
        validated = AgentInvokeMessage.model_validate(message.model_dump())
        assert validated == message
        assert to_json(validated) == to_json(message)
        assert set(validated.message.model_fields_set) <= set(message.message.model_fields_set)


def test_a_provider_of_megabytes_is_cut_like_a_label():
    """The provider is the node's model setting: any size; each log line carries it."""
    node = LogNode("x", provider="p" * 6_000_000)
    assert len(node.start().message.metadata[LogMetadata.PROVIDER]) <= LABEL_CHARS
