"""The bound ``tool_runner`` takes before it encodes a backwards tool request: a request whose
text (``str``) is short enough is not measured, so that bound must never be below the bytes
the request takes once encoded, or a call over the daemon's line limit would be sent."""

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_core import tool_runner

_TEXT = st.text(st.characters(codec="utf-8"), max_size=40) | st.sampled_from(["\x00", "\u2028", '"\\', "😀", "é"])
_SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | _TEXT
_JSON = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
                     max_leaves=20)


def _tool(provider: str, name: str, credential_id: str | None):
    return SimpleNamespace(identity=SimpleNamespace(provider=provider, name=name), credential_id=credential_id)


@settings(max_examples=300)
@given(_TEXT, _TEXT, st.none() | _TEXT, st.dictionaries(_TEXT, _JSON, max_size=5))
def test_the_length_bound_is_never_below_the_encoded_request(provider, name, credential_id, parameters):
    tool = _tool(provider, name, credential_id)
    size = tool_runner.request_size(tool, parameters)  # type: ignore[arg-type]
    text = str([provider, name, credential_id, parameters])
    assert size <= len(text) * 6


def test_a_request_over_the_limit_is_never_taken_as_fitting(monkeypatch):
    tool = _tool("langgenius/search/search", "search", None)
    parameters = {"query": "\x01" * 100}  # six bytes a character once encoded, the most there is
    monkeypatch.setattr(tool_runner, "TOOL_REQUEST_BYTES", tool_runner.request_size(tool, parameters) - 1)
    assert not tool_runner._request_surely_fits(tool, parameters)  # type: ignore[arg-type]
    monkeypatch.setattr(tool_runner, "TOOL_REQUEST_BYTES", 10_000)
    assert tool_runner._request_surely_fits(tool, parameters)  # type: ignore[arg-type]
