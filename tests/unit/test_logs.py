"""LogNode: start and finish share an id, finish carries every metadata key, once."""

import pytest
from dify_plugin.entities.provider_config import LogMetadata
from pydantic_core import to_json

from agent_core.logs import LogNode, _metadata
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


def test_metadata_is_keyed_by_plain_strings_with_the_json_of_the_enum_keys():
    node = LogNode("CALL search", provider="langgenius/openai/openai")
    start = node.start()
    end = node.finish(usage=coerce_usage({"total_tokens": 9, "total_price": "0.01", "currency": "USD"}))
    for message in (start, end):
        metadata = message.message.metadata
        assert all(type(key) is str for key in metadata)  # pydantic-core encodes an enum key slowly
        as_enum_keys = {LogMetadata(key): value for key, value in metadata.items()}
        assert to_json(message.model_dump()) == to_json(
            message.model_copy(update={"message": message.message.model_copy(update={"metadata": as_enum_keys})}).model_dump()
        )
    assert set(end.message.metadata) == {key.value for key in LogMetadata}


def test_metadata_refuses_a_key_dify_does_not_know():
    with pytest.raises(ValueError, match="not a LogMetadata key"):
        _metadata(started_at=1.0, startedAt=2.0)
