"""Minimal runs of what the wave-33 fuzz campaign found, through the real plugin, both strategies.

A model plugin's error that carries a server's Python traceback quoted in a JSON error body (an
OpenAI-compatible server's ``{"error": {"message": "Traceback ..."}}``), or written with ``\\r\\n``
line ends, showed the user the traceback's frames (file paths and code): only its head was taken
out. The user now reads the error's type and the server's exception line.
"""

import json

import pytest

from tests.e2e.helpers import STRATEGIES

SERVER_TRACEBACK = ('Traceback (most recent call last):\n  File "/srv/vllm/entrypoints/openai/api_server.py", '
                    'line 412, in create_chat_completion\n    generator = await handler(request)\n'
                    "KeyError: 'tool_choice'")
QUOTED = "PluginInvokeError: " + json.dumps({
    "args": {}, "error_type": "InvokeServerUnavailableError",
    "message": "[openai_api_compatible] Error: " + json.dumps({"error": {"message": SERVER_TRACEBACK, "code": 500}}),
})
CRLF = ('Traceback (most recent call last):\r\n  File "/app/models/llm.py", line 88, in _invoke\r\n'
        "    raise ex\r\n\r\nTimeoutError: read timed out")


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("error", [QUOTED, CRLF], ids=["quoted-in-json", "crlf-lines"])
def test_a_model_error_with_a_servers_traceback_shows_no_frame(run, strategy, error):
    result = run([{"chunks": [], "error": error}], strategy=strategy)
    assert not result.ok and result.unfinished_logs() == []
    shown = result.error_text or ""
    assert "File " not in shown and "most recent call" not in shown and "api_server.py" not in shown, shown
    if error is QUOTED:
        assert "InvokeServerUnavailableError" in shown and "KeyError: 'tool_choice'" in shown, shown
    else:
        assert "TimeoutError: read timed out" in shown, shown
    (thought,) = [n for n in result.logs.values() if n.label.endswith(" Thought")]
    assert thought.status == "error" and "most recent call" not in (thought.error or "")
