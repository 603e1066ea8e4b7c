"""agent_core.errors: a run's error is one short line for the user, whatever failed."""

import pytest
from pydantic import BaseModel, ValidationError

from agent_core.errors import MESSAGE_MAX_CHARS, AgentRunError, chained, error_text, shortened


def test_a_long_message_keeps_its_start_and_end_and_says_how_much_was_left_out():
    text = "start " + "x" * 10_000 + " end"
    short = shortened(text)
    assert len(short) <= MESSAGE_MAX_CHARS and short.startswith("start ") and short.endswith(" end")
    assert "characters left out" in short and shortened("brief") == "brief"
    assert len(str(AgentRunError(text))) <= MESSAGE_MAX_CHARS


def test_an_error_too_long_to_repeat_in_a_traceback_is_not_chained():
    small, huge = RuntimeError("503"), RuntimeError("E" * 2_000_000)
    assert chained(small) is small and chained(huge) is None


def test_a_reply_of_a_shape_the_sdk_does_not_know_is_named_by_its_fields_not_dumped():
    class Event(BaseModel):
        event: int

    with pytest.raises(ValidationError) as caught:
        Event.model_validate({"event": "progress"})
    text = error_text(caught.value)
    assert text.startswith("a reply the plugin could not read (Event: event:")
    assert "\n" not in text and "errors.pydantic.dev" not in text
    assert error_text(RuntimeError("upstream 503")) == "upstream 503"
