"""Red-team wave 33, through the real plugin process: a canary ``secret-input`` value never
comes out of the tool call, in the forms wave 32 left open and in channels it did not try.

The forms: base64 of base64 (standard and URL-safe, padded or not), base64 of UTF-16 (what
PowerShell's ``-EncodedCommand`` carries), hex with separators (``DE:AD``, ``0xde, 0xad``,
``de-ad``), a key with Latin letters swapped for Cyrillic small capitals (``к``, ``т``), a key
written in Cyrillic look-alikes inside a longer Russian word, and a key with a terminal's colour
codes or a search engine's highlight tags inside it. Each goes out through a tool's text,
a variable, a link, a tool's error and the model's own reply (streamed a few characters a chunk).
The channels: a canary split over two text messages of a tool, or over the chunks of a streamed
variable; in a variable's name, a file's MIME type, a citation's metadata (URL, title), a log's
error and metadata, a tool error quoting it through ``repr`` twice, a URL that percent-encodes it
twice, a host name. Every line the plugin writes (protocol lines, log nodes, model requests,
stderr) is searched for either canary once every such change is undone (``plain``), and for
pieces of its encoded forms; the backwards tool request that carries the canaries to their tool
is the one exception.
"""

from __future__ import annotations

import base64
import html
import json
import re
import urllib.parse

import pytest

from local_runner.tools import ScriptedTool, ToolParam, json_message, text_message
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end, observations, plugin_lines
from tests.e2e.test_red_team_wave32_secrets import call, check_tool_error, form_tests

CANARY = "Cnry-7F3a91d2E4b8"
CORE = "7f3a91d2e4b8"
"""The part of the canary looked for in every line once its changes are undone (lower case)."""
WORD = "cheapskates"
"""A canary of Latin letters that all have Cyrillic look-alikes (``k`` and ``t`` small capitals)."""
_CYRILLIC = {"c": "с", "h": "һ", "e": "е", "a": "а", "p": "р", "s": "ѕ", "k": "к", "t": "т"}


def vault(responses: list, **kwargs) -> ScriptedTool:
    return ScriptedTool(
        name="vault", description="Reads the vault",
        parameters=[ToolParam("q", description="query"),
                    ToolParam("api_key", type="secret-input", form="form", description="key"),
                    ToolParam("pass", type="secret-input", form="form", description="passphrase")],
        runtime_parameters={"api_key": CANARY, "pass": WORD}, responses=responses, **kwargs)


def _b64(data: bytes, *, url: bool = False, pad: bool = True) -> str:
    text = (base64.urlsafe_b64encode if url else base64.b64encode)(data).decode()
    return text if pad else text.rstrip("=")


_BYTES = CANARY.encode()
ENCODED = {
    "base64 of base64": _b64(b"cfg:" + _b64(b"user:" + _BYTES).encode()),
    "base64url of base64url, unpadded": _b64(b"k=" + _b64(b"ab" + _BYTES + b"!", url=True, pad=False).encode(),
                                             url=True, pad=False),
    "base64 of UTF-16 (PowerShell)": _b64(f"$k = '{CANARY}'".encode("utf-16-le")),
}
"""Encoded forms, each looked for in a line by pieces of its middle."""
FORMS = {
    **ENCODED,
    "hex, colons, upper case": ":".join(f"{byte:02X}" for byte in _BYTES),
    "hex as a C array": "{" + ", ".join(f"0x{byte:02x}" for byte in _BYTES) + "}",
    "hex with dashes": "-".join(f"{byte:02x}" for byte in _BYTES),
    "Cyrillic small capitals in a Latin key": WORD.replace("k", "к").replace("t", "т"),
    "Cyrillic look-alikes inside a longer word": "ключ" + WORD.translate(str.maketrans(_CYRILLIC)) + "ами",
    "terminal colours inside the key (grep --color)": f"\x1b[01;31m\x1b[K{CANARY[:7]}\x1b[m\x1b[K{CANARY[7:]}",
    "search highlight tags inside the key": f"{CANARY[:5]}<em>{CANARY[5:11]}</em>{CANARY[11:]}",
}
"""How a canary is written, by what wrote it so."""

_PIECES = {shown[len(shown) // 2 - 6 : len(shown) // 2 + 6] for shown in ENCODED.values()}
_HEX = _BYTES.hex()[8:28]
_AS_LATIN = str.maketrans({v: k for k, v in _CYRILLIC.items()})


def plain(text: str) -> str:
    """``text`` with every change of ``FORMS`` but encoding undone (three levels of escapes and
    references, hex separators, look-alike letters, colour codes and highlight tags, whitespace
    and case)."""
    for _ in range(3):
        text = re.sub(r"\\+u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)
        text = html.unescape(urllib.parse.unquote(text))
    text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]|</?em>", "", text)
    return re.sub(r"\s|0x|[:,{}\-]", "", text.translate(_AS_LATIN)).lower()


def assert_no_canary(run, result) -> None:
    """No line the plugin wrote since ``result``'s run began (stdout and stderr) holds either
    canary once ``plain`` undid its changes, its hex, nor a piece of an encoded form; the
    backwards tool request carrying them to their tool is the one exception."""
    checked = 0
    for entry, _ in plugin_lines(run.plugin, result):
        line = json.dumps(entry, ensure_ascii=False, default=str)
        undone = plain(line)
        assert CORE not in undone and WORD not in undone, f"canary written ({entry['dir']}): {line[:400]}"
        assert _HEX not in undone, f"canary in hex ({entry['dir']}): {line[:400]}"
        assert not any(piece in line for piece in _PIECES), f"canary encoded ({entry['dir']}): {line[:400]}"
        checked += 1
    assert checked > 3


def test_the_check_finds_every_form():
    """The check can fail: each form, inside a JSON line, shows a canary, its hex or a piece."""
    for name, shown in FORMS.items():
        line = json.dumps({"v": f"x {shown} y"}, ensure_ascii=False)
        if name in ENCODED:
            assert any(piece in line for piece in _PIECES), name
        else:
            undone = plain(line)
            assert CORE in undone or WORD in undone or _HEX in undone, name


def _variable(name: str, value, stream: bool = False) -> dict:
    return {"type": "variable", "message": {"variable_name": name, "variable_value": value, "stream": stream},
            "meta": None}


def channels(shown: str) -> list[dict]:
    """Tool messages holding ``shown``: its text, a variable, a link."""
    return [
        text_message(f"auth {shown} ok; record r1 is open"),
        _variable("out", f"token={shown}"),
        {"type": "link", "message": {"text": f"https://example.com/x?k={urllib.parse.quote(shown)}"}, "meta": None},
    ]


# the model echoes the form a few characters a chunk: the chat, the memory Dify keeps of the
# answer and the log hold none of it
(
    test_the_canary_a_tool_writes_in_a_new_form_reaches_no_line,
    test_a_tool_error_quoting_the_canary_in_a_new_form_reaches_no_line,
    test_the_canary_the_model_echoes_in_a_new_form_is_hidden_in_its_answer,
) = form_tests(FORMS, vault, channels, assert_no_canary)


def _citation(metadata: dict, dataset: str = "kb") -> dict:
    return {"type": "retriever_resources", "meta": None, "message": {"context": "doc r1", "retriever_resources": [
        {"position": 1, "dataset_id": "d", "dataset_name": dataset, "document_id": "x", "document_name": "n",
         "segment_id": "s", "score": 0.5, "content": "c", "doc_metadata": metadata}]}}


def _log(error: str, metadata: dict) -> dict:
    return {"type": "log", "meta": None, "message": {"id": "l1", "label": "auth", "parent_id": None, "error": error,
                                                     "status": "error", "data": {}, "metadata": metadata}}


CHANNELS = {
    "split over two text messages": [text_message(f"auth {CANARY[:8]}"), text_message(f"{CANARY[8:]} ok; record r1 is open")],
    "split over a streamed variable's chunks": [
        text_message("record r1 is open"), _variable("token", f"k={CANARY[:6]}", True),
        _variable("token", CANARY[6:12], True), _variable("token", f"{CANARY[12:]};", True)],
    "a variable's name": [text_message("record r1 is open"), _variable(f"key_{CANARY}", "set")],
    "a file's MIME type": [text_message("record r1 is open"),
                           {"type": "blob", "message": {"blob": base64.b64encode(b"data").decode()},
                            "meta": {"filename": "a.txt", "mime_type": f"text/x-{CANARY}"}}],
    "a citation's URL, title and dataset": [text_message("record r1 is open"), _citation(
        {"url": f"https://kb.example.com/doc?token={CANARY}", "title": f"Keys: {WORD}"}, dataset=f"kb-{CANARY}")],
    "a log's error and metadata": [text_message("record r1 is open"),
                                   _log(f"auth failed for {CANARY}", {"key": WORD, "provider": "x"})],
    "a JSON key holding the canary twice URL-encoded": [text_message("record r1 is open"), json_message(
        {f"https://x.example/?k={urllib.parse.quote(urllib.parse.quote(CANARY.replace('-', '%2D')))}": 1})],
    "a link's host": [text_message("record r1 is open"),
                      {"type": "link", "message": {"text": f"https://{CANARY.lower()}.example.com/"}, "meta": None}],
}
"""Tool messages that carry the canary as written, by where it stands."""


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("channel", list(CHANNELS))
def test_the_canary_in_a_new_channel_of_a_tool_reaches_no_line(run, strategy, channel):
    result = run([call(strategy), answer_turn(strategy, "Done.")], tools=[vault(CHANNELS[channel])], strategy=strategy)
    assert_clean_end(result)
    (seen,) = observations(result.llm_requests[1])
    assert "record r1 is open" in seen
    assert result.text == "Done."
    assert_no_canary(run, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_tool_error_quoting_the_canary_through_repr_twice_reaches_no_line(run, strategy):
    """An exception whose text is ``repr`` of a ``repr``: the canary between quotes, the quotes
    escaped, a line break in it escaped twice."""
    quoted = repr(repr({"api_key": CANARY[:9] + "\n" + CANARY[9:], "pass": WORD}))
    check_tool_error(run, strategy, vault([], error=f"401 Unauthorized: KeyError({quoted})"), assert_no_canary)
