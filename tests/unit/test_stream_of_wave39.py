"""agent_core.sdk_speedups._stream_of (every daemon line the stdio and TCP readers hand on) reads
lines as it did before wave 39, when it parsed each line through the readers' ``TypeAdapter``,
asked ``PluginInStreamEvent.value_of`` for the event and built ``PluginInStream`` through its
``__init__``: the same stream (every field), or the same error event, for random lines of every
shape (objects of odd members, lines cut or with bytes changed, lines that are no JSON object,
lone surrogates, bytes that are not UTF-8, nesting past pydantic-core's limit)."""

from __future__ import annotations

import dataclasses
import json
import random
import types
from typing import Any

import pytest
from dify_plugin.core.entities.plugin.io import PluginInStream, PluginInStreamEvent
from dify_plugin.core.server.stdio.response_writer import StdioResponseWriter

from agent_core import sdk_speedups
from agent_core.sdk_speedups import (
    DATA_NO_OBJECT,
    DUPLICATE_REQUEST,
    UNREADABLE_LINE,
    FirstRequests,
    _DataNoObject,
    _reason,
    shared_type_adapter,
)


def _stream_of_before(reader: Any, line: bytes, writer: Any = None) -> Any:
    """``_stream_of`` as it was before wave 39 (arrival stamps left out: they do not change)."""
    if writer is None:
        writer = StdioResponseWriter()
    try:
        data = shared_type_adapter(dict[str, Any]).validate_json(line)
        if data.get("event") == "backwards_response" and not isinstance(data.get("data"), dict):
            raise _DataNoObject(DATA_NO_OBJECT)
        stream = PluginInStream(
            session_id=data["session_id"],
            conversation_id=data.get("conversation_id"),
            message_id=data.get("message_id"),
            app_id=data.get("app_id"),
            endpoint_id=data.get("endpoint_id"),
            event=PluginInStreamEvent.value_of(data["event"]),
            data=data["data"],
            context=data.get("context"),
            reader=reader,
            writer=writer,
        )
    except Exception as e:
        writer.error(data={"error": UNREADABLE_LINE.format(size=len(line), reason=_reason(e))})
        return None
    if stream.event is PluginInStreamEvent.Request and not sdk_speedups._FIRST_REQUESTS.first(stream.session_id):
        writer.error(data={"error": DUPLICATE_REQUEST.format(session=stream.session_id)})
        return None
    return stream


def _value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(9 if depth < 3 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, -1, 7, 2**70, -(2**64)])
    if kind == 3:
        return rng.choice([0.5, -0.0, 1e300, 3.25])
    if kind in (4, 5):
        return "".join(rng.choice("ab \n\"\\/é😀\x00\t{}[]") for _ in range(rng.randrange(12)))
    if kind == 6:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {f"k{n}": _value(rng, depth + 1) for n in range(rng.randrange(4))}


_EVENTS = ["request", "backwards_response", "backwards_response", "Request", "end", "", 3, None, ["request"]]
_OPTIONAL = ["conversation_id", "message_id", "app_id", "endpoint_id", "context"]


def _line(rng: random.Random, n: int) -> bytes:
    envelope: dict[str, Any] = {}
    if rng.random() < 0.95:
        envelope["session_id"] = rng.choice([f"s-{n}", f"s-{n}", 12, None])
    if rng.random() < 0.95:
        envelope["event"] = rng.choice(_EVENTS)
    if rng.random() < 0.95:
        envelope["data"] = rng.choice([{"backwards_request_id": "b" * 32, "data": _value(rng)}, _value(rng), {}])
    for name in _OPTIONAL:
        if rng.random() < 0.4:
            envelope[name] = _value(rng, 2)
    items = list(envelope.items())
    rng.shuffle(items)
    text = json.dumps(dict(items), ensure_ascii=rng.random() < 0.5)
    if rng.random() < 0.1:  # a member twice: the last one counts
        text = text[:-1] + (', "event": "request"}' if len(text) > 2 else '"event": "request"}')
    return _changed(rng, text.encode())


def _changed(rng: random.Random, line: bytes) -> bytes:
    """``line``, sometimes cut, with a byte changed, made no JSON object or nested too deep."""
    change = rng.random()
    if change < 0.08 and line:
        line = line[: rng.randrange(len(line))]
    elif change < 0.16 and line:
        at = rng.randrange(len(line))
        line = line[:at] + bytes([rng.randrange(256)]) + line[at + 1 :]
    elif change < 0.20:
        line = line.replace(b'"s-', b'"\\ud800s-', 1)  # a lone surrogate
    elif change < 0.24:
        line = line.replace(b'"s-', b'"\xff\xfes-', 1)  # bytes that are not UTF-8
    elif change < 0.27:
        line = rng.choice([b"[1, 2]", b'"text"', b"null", b"", b"{", b"NaN", b'{"a": 1} x'])
    elif change < 0.30:
        depth = rng.choice([200, 300])
        line = line[:-1] + b', "deep": ' + b"[" * depth + b"]" * depth + b"}"
    return line


def _fields(stream: Any, writer: Any) -> Any:
    """Every field's value (the writer: whether it is the one given)."""
    if stream is None:
        return None
    return [(field.name, getattr(stream, field.name) if field.name != "writer" else stream.writer is writer)
            for field in dataclasses.fields(stream)]


def _both(line: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    results = []
    for read in (_stream_of_before, sdk_speedups._stream_of):
        monkeypatch.setattr(sdk_speedups, "_FIRST_REQUESTS", FirstRequests())  # each sees the line first
        errors: list[Any] = []
        writer = types.SimpleNamespace(error=lambda data, errors=errors: errors.append(data))
        stream = read("the reader", line, writer)
        results.append((type(stream), _fields(stream, writer), errors))
    return results[0], results[1]


@pytest.mark.parametrize("seed", range(4))
def test_random_lines_read_as_before(seed, monkeypatch):
    rng = random.Random(seed)
    read = 0
    for n in range(400):
        line = _line(rng, n)
        before, now = _both(line, monkeypatch)
        assert now == before, line[:200]
        read += before[1] is not None
    assert 60 < read < 400  # both kinds were met: lines read and lines refused


def test_the_constructor_is_used_when_the_sdks_class_is_not_the_one_expected(monkeypatch):
    """A ``PluginInStream`` of other fields (another SDK version) is built through its own
    ``__init__``, with the same result."""
    classes = sdk_speedups._StreamClasses()
    assert classes.slots is not None  # dify_plugin 0.10.2: built slot by slot
    classes.slots = None
    monkeypatch.setattr(sdk_speedups, "_stream_classes", lambda: classes)
    rng = random.Random(7)
    for n in range(200):
        line = _line(rng, n)
        before, now = _both(line, monkeypatch)
        assert now == before


def test_a_dataclass_of_other_fields_or_with_post_init_is_not_built_slot_by_slot():
    @dataclasses.dataclass(frozen=True, slots=True)
    class Other:
        session_id: str
        event: Any

    @dataclasses.dataclass
    class WithPostInit:
        session_id: str

        def __post_init__(self) -> None:
            pass

    assert sdk_speedups._stream_slots(Other) is None
    assert sdk_speedups._stream_slots(WithPostInit) is None
    assert sdk_speedups._stream_slots(PluginInStream) is not None


def test_a_line_without_a_writer_gets_the_stdio_writer():
    line = json.dumps({"session_id": "s-w", "event": "backwards_response", "data": {"n": 1}}).encode()
    stream = sdk_speedups._stream_of("the reader", line)
    assert type(stream) is PluginInStream and type(stream.writer) is StdioResponseWriter
    assert stream.event is PluginInStreamEvent.BackwardInvocationResponse and stream.data == {"n": 1}
