"""A model's error (``errors.without_tracebacks``, shown to the user) and a tool's error
(``observation._summarize_error``, shown to the model) read the same error type and message from
any text the daemon, Dify and plugins send: the plugin SDK's error objects quoted inside one
another and Python tracebacks, in any nesting."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_core.errors import without_tracebacks
from agent_core.observation import _summarize_error

# no "{", "(" nor '"': a message of these can never open an object, a traceback or a quoted key
WORDS = st.text(st.sampled_from("abcxyzABC019 .,:;'-_[]/"), max_size=40)
ERROR_TYPES = st.from_regex(r"(openai\.)?[A-Z][A-Za-z]{0,8}(Error|Exception)", fullmatch=True).filter(
    lambda name: name not in ("Exception", "BaseException"))  # the generic names tell no type
MESSAGES = st.builds(
    lambda first, rest: first + "".join(f"\n{line}" for line in rest),
    WORDS.filter(lambda words: words.strip() and not words[0].isspace()),
    st.lists(WORDS.filter(lambda words: words[:1].isalnum()), max_size=2),
)
FRAMES = st.lists(st.sampled_from([
    '  File "/app/models/llm/llm.py", line 88, in _invoke',
    "    response = client.chat(**kwargs)",
    "",
    '  File "/usr/lib/python3.12/site-packages/httpx/_transports/default.py", line 72, in map_httpcore_exceptions',
]), max_size=4)


def _traceback(frames: list[str], line: str) -> str:
    return "\n".join(["Traceback (most recent call last):", *frames, line])


@st.composite
def error_texts(draw) -> tuple[str, str, str]:
    """``(text, error type, message)``: an error ``type: message`` written as an SDK error object
    or a traceback's exception line, then wrapped in further objects and tracebacks (the
    message of an outer one, after some words), then after some words (``req_id: 1``)."""
    kind, message = draw(ERROR_TYPES), draw(MESSAGES)
    if draw(st.booleans()):
        args = draw(st.sampled_from([{}, {"traceback": _traceback(["  frame"], f"{kind}: {message}")}]))
        text = json.dumps({"args": args, "error_type": kind, "message": message})
    else:
        text = _traceback(draw(FRAMES), f"{kind}: {message}")
    for _ in range(draw(st.integers(0, 2))):
        outer, words = draw(st.sampled_from(["Exception", "PluginInvokeError", "InvokeServerUnavailableError"])), draw(WORDS)
        if draw(st.booleans()):
            text = json.dumps({"args": {}, "error_type": outer, "message": f"{words} PluginInvokeError: {text}"})
        else:
            text = _traceback(draw(FRAMES), f"{outer}: {words} {text}")
    return f"{draw(WORDS)} PluginInvokeError: {text}", kind, message


def _folded(text: str) -> str:
    return " ".join(text.split())


@settings(max_examples=300, deadline=None)
@given(error_texts())
def test_a_model_error_and_a_tool_error_read_the_same_type_and_message(case):
    text, kind, message = case
    assert _summarize_error(RuntimeError(text)) == (kind, _folded(message))
    assert _folded(without_tracebacks(text)).endswith(_folded(f"{kind}: {message}"))


@settings(max_examples=100, deadline=None)
@given(error_texts(), st.integers(1, 400))
def test_an_error_text_cut_anywhere_never_shows_a_traceback_to_the_model(case, cut):
    """A tool error cut short (a daemon's line limit) is read as far as it goes: never a frame."""
    text = _summarize_error(RuntimeError(case[0][:cut]))[1]
    assert 'File "' not in text and "most recent call" not in text


@st.composite
def quoted_tracebacks(draw) -> tuple[str, str]:
    """``(text, exception line)``: a traceback quoted in a JSON string under a key other than
    ``traceback`` (an OpenAI-compatible server's ``{"error": {"message": "Traceback ..."}}``,
    FastAPI's ``{"detail": ...}``), or written with ``\\r\\n`` line ends, inside a model plugin's
    error object or after a plugin's words, maybe inside a further traceback."""
    kind, message = draw(ERROR_TYPES), draw(WORDS.filter(lambda words: words.strip() and words[:1].isalnum()))
    line = f"{kind}: {message}"
    frames = draw(FRAMES.filter(bool).filter(lambda f: any(frame.strip() for frame in f)))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    traceback = newline.join(["Traceback (most recent call last):", *frames, line])
    body = draw(st.sampled_from([{"error": {"message": traceback, "code": 500}}, {"detail": traceback},
                                 {"message": traceback}, {"error": traceback, "type": "server_error"}]))
    quoted = draw(st.booleans())
    text = json.dumps(body) if quoted else traceback
    outer = draw(st.sampled_from(["object", "words", "traceback"]))
    if outer == "object":
        text = json.dumps({"args": {}, "error_type": "InvokeServerUnavailableError", "message": f"upstream said {text}"})
        text = f"PluginInvokeError: {text}"
    elif outer == "traceback":
        text = _traceback(draw(FRAMES), f"InvokeServerUnavailableError: {text}")
    else:
        text = f"[openai_api_compatible] Error: {text}"
    return text, line


@settings(max_examples=200, deadline=None)
@given(quoted_tracebacks())
def test_a_traceback_quoted_in_json_or_with_crlf_lines_shows_the_user_no_frame(case):
    """A model's error that carries a server's traceback as a JSON string's text (its lines
    escaped) or with ``\\r\\n`` lines reads as its exception line: the frames (file paths, code)
    are never shown to the user."""
    text, line = case
    shown = without_tracebacks(text)
    assert "File \\\"" not in shown and 'File "' not in shown and "most recent call" not in shown, shown
    assert _folded(line) in _folded(shown.replace("\\n", " ").replace("\\r", " ")), shown
