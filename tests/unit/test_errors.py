"""agent_core.errors: a run's error is one short line for the user, whatever failed."""

import json
import time

import pytest
from pydantic import BaseModel, ValidationError

from agent_core.errors import MESSAGE_MAX_CHARS, AgentRunError, chained, error_text, shortened, without_tracebacks


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


TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/app/storage/cwd/langgenius/deepseek-0.0.20/models/llm/llm.py", line 88, in _invoke\n'
    "    response = client.chat(**kwargs)\n"
    "openai.APIConnectionError: Connection error."
)
SDK_ERROR = json.dumps({"args": {"traceback": TRACEBACK}, "error_type": "InvokeConnectionError",
                        "message": "[deepseek] Connection Error, Connection error."})


def test_a_model_plugins_error_object_reads_as_its_type_and_message_without_its_traceback():
    """As Dify relays a model plugin's failure: ``req_id: ... PluginInvokeError: {"args":
    {"traceback": ...}, "error_type": ..., "message": ...}``."""
    text = f"invoke llm model failed: request failed: [deepseek] Error: req_id: df5e4392f8 PluginInvokeError: {SDK_ERROR}"
    assert without_tracebacks(text) == (
        "invoke llm model failed: request failed: [deepseek] Error: req_id: df5e4392f8 PluginInvokeError: "
        "InvokeConnectionError: [deepseek] Connection Error, Connection error.")
    assert error_text(RuntimeError(text)) == without_tracebacks(text)


def test_error_objects_quoted_inside_one_another_are_each_unwrapped():
    inner = json.dumps({"args": {"description": "[models] Error: 'name'"}, "error_type": "KeyError", "message": "'name'"})
    outer = json.dumps({"args": {}, "error_type": "Exception", "message": f"read llm model failed: PluginInvokeError: {inner}"})
    assert without_tracebacks(f"PluginInvokeError: {outer}") == (
        "PluginInvokeError: Exception: read llm model failed: PluginInvokeError: KeyError: 'name'")


def test_a_plain_traceback_is_its_exception_line_and_a_chained_one_its_exception_lines():
    assert without_tracebacks(f"model failed: {TRACEBACK}") == "model failed: openai.APIConnectionError: Connection error."
    chained_text = f"{TRACEBACK}\n\nDuring handling of the above exception, another exception occurred:\n\n" + \
        TRACEBACK.replace("openai.APIConnectionError: Connection error.", "RuntimeError: gave up")
    assert without_tracebacks(chained_text) == "openai.APIConnectionError: Connection error.\nRuntimeError: gave up"


@pytest.mark.parametrize("cut", [100, 130, 160, 260])
def test_an_error_object_cut_short_keeps_its_text_but_never_its_traceback(cut):
    text = f"req_id: 1 PluginInvokeError: {SDK_ERROR}"[:cut]
    readable = without_tracebacks(text)
    assert "File " not in readable and "most recent call" not in readable
    assert readable.startswith("req_id: 1 PluginInvokeError:")


@pytest.mark.parametrize("text", [
    'HTTP 400: {"message": "temperature must be at most 2", "code": "invalid_value"}',
    "plain words",
    '{"error": {"message": "bad request"}}',
])
def test_another_services_json_and_plain_text_are_left_as_they_are(text):
    assert without_tracebacks(text) == text


def test_megabytes_of_error_objects_or_traceback_frames_cost_little():
    texts = ['{"error_type":' * 200_000, "[" * 100_000 + '{"error_type": "E", "message": "m"}',
             "Traceback (most recent call last):\n" + "  frame\n" * 300_000 + "ValueError: x",
             '"traceback": "' + "\\n" * 300_000]
    started = time.process_time()
    results = [without_tracebacks(text) for text in texts]
    assert time.process_time() - started < 2.0  # CPU seconds (about 0.2): a loaded machine stretched the wall time to 1.8 s
    assert results[2] == "ValueError: x" and "\\n" not in results[3]
