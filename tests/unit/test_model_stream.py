"""agent_core.model_call._ModelStream: a model's backwards stream read as the SDK's own reader
reads it (what ends it, what fails it, what it yields), without a pydantic event per chunk."""

from __future__ import annotations

from typing import Any

import pytest
from dify_plugin.core.entities.plugin.io import PluginInStream, PluginInStreamEvent
from dify_plugin.core.runtime import BackwardsInvocation

from agent_core.model_call import _ModelStream

CHUNK = {"model": "m", "delta": {"index": 0, "message": {"role": "assistant", "content": "Hi"}}}


def _line(event: str, data: Any = None, message: str = "") -> PluginInStream:
    body = {"backwards_request_id": "r", "event": event, "message": message, "data": data}
    return PluginInStream(session_id="s", event=PluginInStreamEvent.BackwardInvocationResponse, data=body,
                          reader=None, writer=None)  # type: ignore[arg-type]


def _read(reader: BackwardsInvocation, lines: list[PluginInStream | None]) -> tuple[list[Any], str | None]:
    """What the reader yields from ``lines``, and whether it failed (None: it did not)."""
    items: list[Any] = []
    try:
        for item in reader._line_converter_wrapper(iter(lines), dict):
            items.append(item)
    except Exception as error:  # the SDK raises pydantic's ValidationError or Exception
        return items, type(error).__name__
    return items, None


STREAMS = {
    "chunks then end": [_line("response", CHUNK), _line("response", CHUNK), _line("end"), _line("response", CHUNK)],
    "polls between chunks": [None, _line("response", CHUNK), None, None, _line("end")],
    "an error after a chunk": [_line("response", CHUNK), _line("error", message="model refused"), _line("end")],
    "null data ends it": [_line("response", CHUNK), _line("response", None), _line("response", CHUNK)],
    "data that is not an object": [_line("response", CHUNK), _line("response", ["a"])],
    "an unknown event": [_line("response", CHUNK), _line("progress", CHUNK)],
}


@pytest.mark.parametrize("lines", STREAMS.values(), ids=STREAMS.keys())
def test_a_model_stream_is_read_as_the_sdk_reads_it(lines):
    expected, sdk_failed = _read(BackwardsInvocation(None), lines)
    got, failed = _read(_ModelStream(None), lines)
    assert got == expected
    assert (failed is None) == (sdk_failed is None)


def test_the_daemons_error_message_is_raised():
    with pytest.raises(Exception, match="model refused"):
        list(_ModelStream(None)._line_converter_wrapper(iter([_line("error", message="model refused")]), dict))


def test_a_stream_silent_past_the_invocation_timeout_fails():
    silent = [None] * 250 + [_line("response", CHUNK)]
    with pytest.raises(Exception, match="without response after 250 seconds"):
        list(_ModelStream(None)._line_converter_wrapper(iter(silent), dict))


def test_once_the_daemons_input_ended_a_waiting_call_fails_at_its_next_poll(monkeypatch):
    """stdin closed: no reply can come. The lines already read are handed on, then the call fails
    at the reader's next poll with a clear error instead of waiting minutes (the SDK's limit)."""
    from agent_core import waiting

    monkeypatch.setattr(waiting, "_INPUT_ENDED", [])
    lines = iter([_line("response", CHUNK), None, None, _line("response", CHUNK), None, None, None])
    got = []
    stream = _ModelStream(None)._line_converter_wrapper(lines, dict)
    got.append(next(stream))
    waiting.end_of_input()
    with pytest.raises(ConnectionError, match="closed the plugin's input"):
        got.extend(stream)
    assert got == [CHUNK]
    monkeypatch.setattr(waiting, "_INPUT_ENDED", [])
    assert _read(_ModelStream(None), [None, _line("response", CHUNK), _line("end")]) == ([CHUNK], None)
