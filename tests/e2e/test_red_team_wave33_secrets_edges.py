"""The edges of an encoded canary, through the real plugin process: what is left beside
``[REDACTED]`` carries no bit of the canary, and Russian words that spell a short secret are words.

A key in base64 starts at one of three places of a four-character group, and the characters of
its first and last groups that are not made of its bits alone still hold some of them (the
``pRPQ==`` once left after a key in base64 of base64). A tool writes the canary in base64 at each
alignment, padded or not, in either alphabet, in base64 of base64 and of UTF-16, between bytes
that share no character with it; the model echoes it a few characters a chunk. On every line the
plugin writes (protocol lines, log nodes, model requests, stderr) the base64 characters just
before and after each ``[REDACTED]`` are whole groups, and decode (once, and again for base64 of
base64) to no character of the canary; the checks of the wave-33 secret file hold too.

And a short secret spelt by an ordinary Russian word (``tekct``, ``текст``): the word comes back as
written to the model, the chat and the log, while the secret written as no word is (cases mixed)
is hidden.
"""

from __future__ import annotations

import base64
import binascii
import json
import re

import pytest

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end, observations, plugin_lines
from tests.e2e.test_red_team_wave32_secrets import call, check_echoed_answer, check_tool_channels
from tests.e2e.test_red_team_wave33_secrets import CANARY, assert_no_canary, channels, vault

AROUND = b"#%&*"
"""Bytes written around the canary: none is a character of it, so a canary character decoded
from what is left beside ``[REDACTED]`` came from the canary's own bits."""


def _b64(data: bytes, *, url: bool = False, pad: bool = True) -> str:
    text = (base64.urlsafe_b64encode if url else base64.b64encode)(data).decode()
    return text if pad else text.rstrip("=")


_KEY = CANARY.encode()
EDGE_FORMS = {
    **{f"base64, the key at byte {n} of a group{', url, unpadded' if url else ''}":
       _b64(AROUND[:n] + _KEY + AROUND[: 1 + n], url=url, pad=not url)
       for n in range(3) for url in (False, True)},
    **{f"base64 of base64, inner offset {inner}, outer offset {outer}":
       _b64(AROUND[:outer] + _b64(AROUND[:inner] + _KEY + AROUND[:2]).encode() + AROUND[:1])
       for inner in range(3) for outer in range(3) if (inner + outer) % 2 == 0},
    "base64 of UTF-16, odd place": _b64((AROUND[:1] + _KEY + AROUND[:1]).decode().encode("utf-16-le")),
}
"""The canary in base64, at each place of a group it may start at, between ``AROUND`` bytes."""

_BESIDE = re.compile(r"([A-Za-z0-9+/_-]*)\[REDACTED\]([A-Za-z0-9+/_-]*=*)")
_QUOTED = {"%2b": "+", "%2f": "/", "%3d": "="}
"""The base64 characters a link percent-encodes."""


def _decoded(text: str) -> bytes:
    """``text`` (base64 characters, either alphabet) decoded, a last group cut short included."""
    text = text.rstrip("=").replace("-", "+").replace("_", "/")
    whole = len(text) - len(text) % 4
    data = base64.b64decode(text[:whole]) if whole else b""
    if len(text) % 4 >= 2:  # a last group of two or three characters still holds one or two bytes
        data += base64.b64decode(text[whole:] + "=" * (-len(text) % 4))
    return data


def _levels(text: str) -> list[bytes]:
    """``text`` decoded once and, where that is base64 again, twice."""
    try:
        once = _decoded(text)
    except (binascii.Error, ValueError):
        return []
    try:
        return [once, _decoded(once.decode("ascii"))]
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return [once]


def check_line(line: str) -> int:
    """The base64 characters beside each ``[REDACTED]`` in ``line``: the ones before it are whole
    groups, and neither side decodes (once or twice) to a character of the canary. Returns how
    many markers were checked; raises AssertionError."""
    markers = 0
    line = re.sub("%2[bf]|%3d", lambda match: _QUOTED[match.group().lower()], line, flags=re.IGNORECASE)
    for before, after in _BESIDE.findall(line):
        markers += 1
        assert len(before) % 4 == 0, f"part of a group before [REDACTED]: {before[-8:]!r}"
        for side in (before, after):
            for data in _levels(side):
                assert set(_KEY).isdisjoint(data), f"canary bits beside [REDACTED]: {side!r}"
    return markers


def assert_edges_carry_nothing(run, result) -> None:
    """``check_line`` on every line the plugin wrote since ``result``'s run began (stdout and
    stderr; the backwards request carrying the canary to its tool aside), the chat's text pieces
    joined (a piece may end inside a group), one marker at least, then ``assert_no_canary``."""
    markers, chat = 0, []
    for entry, invocation in plugin_lines(run.plugin, result):
        if entry["dir"] == "from_plugin" and invocation.get("type") == "text":
            chat.append(invocation["message"]["text"])
            continue
        line = json.dumps(entry, ensure_ascii=False, default=str)
        try:
            markers += check_line(line)
        except AssertionError as error:
            raise AssertionError(f"{error} ({entry['dir']}): {line[:400]}") from None
    markers += check_line("".join(chat))
    assert markers, "no [REDACTED] on any line"
    assert_no_canary(run, result)


def test_the_edge_check_finds_a_leftover():
    """The check can fail: a key's last group left after the marker, or part of its first group
    before it; text around the key in whole groups of its own passes."""
    encoded = _b64(_KEY + AROUND[:1])
    with pytest.raises(AssertionError):
        check_line(json.dumps({"v": f"x [REDACTED]{encoded[-4:]} y"}))  # "b8#"
    with pytest.raises(AssertionError):
        check_line(json.dumps({"v": f"x {_b64(AROUND[:2] + _KEY)[:3]}[REDACTED] y"}))
    assert check_line(json.dumps({"v": f"x {_b64(AROUND[:3])}[REDACTED]{_b64(AROUND[:2])} y"})) == 1


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("form", list(EDGE_FORMS))
def test_a_base64_canary_leaves_no_bit_beside_the_marker_in_any_line(run, strategy, form):
    check_tool_channels(run, strategy, vault(channels(EDGE_FORMS[form])), assert_edges_carry_nothing)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("form", [name for name in EDGE_FORMS if "of base64" in name or "url" in name])
def test_a_base64_canary_the_model_echoes_a_few_characters_a_chunk_leaves_no_bit(run, strategy, form):
    """The model writes the encoded canary in chunks of five characters: the characters of its
    first and last groups are held back with it, not written before or after the marker."""
    shown = EDGE_FORMS[form]
    check_echoed_answer(run, strategy, vault([text_message("ok")]), shown, assert_edges_carry_nothing)


SHORT = "tekct"
"""A short lowercase password whose letters are all Cyrillic look-alikes: ``текст`` spells it."""


def notes(text: str) -> ScriptedTool:
    return ScriptedTool(
        name="notes", description="Reads a note",
        parameters=[ToolParam("q", description="query"),
                    ToolParam("password", type="secret-input", form="form", description="password")],
        runtime_parameters={"password": SHORT}, responses=[text_message(text)])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_russian_words_that_spell_a_short_secret_reach_the_model_and_the_chat_as_written(run, strategy):
    """``текст``, ``Текст`` and ``ТЕКСТ`` are words: the model reads them, and the answer that
    quotes them reaches the chat, as written; ``тЕкСт`` (cases mixed, as no word is written) and
    the Latin key are hidden, and neither is on any line the plugin wrote."""
    note = "Это текст. Текст и ТЕКСТ; пароль тЕкСт, tekct."
    answer = {**answer_turn(strategy, "В заметке текст и ТЕКСТ; пароль тЕкСт."), "split": 3}
    result = run([call(strategy, "notes"), answer], tools=[notes(note)], strategy=strategy)
    assert_clean_end(result)
    (seen,) = observations(result.llm_requests[1])
    assert "Это текст. Текст и ТЕКСТ; пароль [REDACTED], [REDACTED]." in seen
    assert result.text == "В заметке текст и ТЕКСТ; пароль [REDACTED]."
    for entry, _ in plugin_lines(run.plugin, result):
        line = json.dumps(entry, ensure_ascii=False, default=str)
        assert "тЕкСт" not in line and SHORT not in line.lower(), f"secret written ({entry['dir']}): {line[:300]}"
