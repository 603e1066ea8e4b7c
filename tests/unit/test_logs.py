"""LogNode: start and finish share an id, finish carries every metadata key, once."""

import os
import uuid

import pytest
from dify_plugin.entities.agent import AgentInvokeMessage
from dify_plugin.entities.invoke_message import InvokeMessage
from dify_plugin.entities.provider_config import LogMetadata
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from pydantic_core import to_json

from agent_core import logs, unvalidated
from agent_core.line_budget import LABEL_CHARS
from agent_core.logs import LogNode
from agent_core.unvalidated import text_message
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


def _validated(message: AgentInvokeMessage) -> AgentInvokeMessage:
    """The same line built through pydantic's validation, as before the unvalidated path."""
    log = message.message
    built = InvokeMessage.LogMessage(
        id=log.id, label=log.label, parent_id=log.parent_id, error=log.error, status=log.status,
        data=log.data, metadata=log.metadata,
    )
    return AgentInvokeMessage(type=InvokeMessage.MessageType.LOG, message=built)


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(
    label=st.text(max_size=30),
    data=st.dictionaries(st.text(max_size=8), _json_values, max_size=4),
    error=st.none() | st.text(max_size=30),
    provider=st.none() | st.text(max_size=10),
    tokens=st.none() | st.integers(min_value=0, max_value=10**6),
)
def test_unvalidated_lines_equal_validated_ones(label, data, error, provider, tokens):
    """A line built without validation is the validated line: equal, the same fields set, the
    same dump and JSON (the daemon's bytes), and its data a copy of the caller's dict."""
    assert logs._UNVALIDATED  # the SDK's models are the ones the unvalidated path was written for
    root = LogNode("ROUND 1")
    node = LogNode(label, parent=root, provider=provider)
    usage = coerce_usage({"total_tokens": tokens, "total_price": "0.5"}) if tokens is not None else None
    for message in (node.start(data), node.finish(data, usage=usage, error=error)):
        validated = _validated(message)
        assert message == validated
        assert message.model_fields_set == validated.model_fields_set
        assert message.message.model_fields_set == validated.message.model_fields_set
        assert message.model_dump() == validated.model_dump()
        assert to_json(message) == to_json(validated)
        assert message.message.data is not data


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=40))
def test_text_lines_built_without_validation_equal_the_strategys_own(text):
    """A piece of the answer built without validation (``unvalidated.text_message``, the loop's
    text lines) is what ``AgentStrategy.create_text_message`` builds: equal, the same fields set,
    the same JSON (the daemon's bytes)."""
    from dify_plugin.interfaces.agent import AgentStrategy

    class Strategy:
        response_type = AgentInvokeMessage

    assert unvalidated._TEXT_UNVALIDATED  # the SDK's models are the ones the unvalidated path was written for
    validated = AgentStrategy.create_text_message(Strategy(), text)  # type: ignore[arg-type]
    made = text_message(text)
    assert made == validated
    assert made.model_fields_set == validated.model_fields_set
    assert made.message.model_fields_set == validated.message.model_fields_set
    assert to_json(made) == to_json(validated)
    assert made.model_dump() == validated.model_dump()


def test_data_the_sdk_would_refuse_is_still_validated():
    """Data keyed by other than strings takes the validated path, and fails as it did."""
    with pytest.raises(ValidationError):
        LogNode("x").start({1: "one"})


def test_ids_are_random_version_4_uuids():
    ids = [LogNode("x").id for _ in range(2000)]
    assert len(set(ids)) == len(ids)
    for text in ids:
        parsed = uuid.UUID(text)
        assert str(parsed) == text and parsed.version == 4 and parsed.variant == uuid.RFC_4122


def test_a_forked_process_does_not_reuse_the_ids_drawn_before_the_fork():
    LogNode("x")  # random bytes drawn for the ids to come
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next id, then out, whatever happens (never back into pytest)
        try:
            os.write(write_end, LogNode("x").id.encode())
        finally:
            os._exit(0)
    os.close(write_end)
    os.waitpid(pid, 0)
    child_id = os.read(read_end, 64).decode()
    os.close(read_end)
    assert uuid.UUID(child_id).version == 4
    assert child_id != LogNode("x").id
