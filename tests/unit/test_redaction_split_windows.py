"""agent_core.redaction.split_at_escapes: a text of megabytes split at its escapes a window at a
time, giving way between windows, into exactly the pieces one ``re.split`` gives.

Found by the wave-36 blind limits: a tool result of 2.7 million backslashes and quotes (5.4 MB
as the JSON text the redactor reads) was split in one ``re.split`` of 0.3 s, and its decoding
steps took as much again, every other session of the process waiting."""

import json
import random

import gevent
import pytest

from agent_core import fairness, redaction
from agent_core.redaction import _CSS_ESCAPE_PIECES, _ESCAPE_PIECES, redactor, split_at_escapes

PIECES = [*"\\%&=#;{}uUxXabcdefABCDEF0123456789 \r\n\"'/tnrz.",
    "\\u00", "%2", "&amp;", "&#x", "&#", "\\x4", "=2D", "=\n", "=\r\n", "\\u{00", "\\ud83d\\ude00", " =", "!=",
    "&lowbar;", "\\\\", "\\\"", "\\2d ", "\\0000", "=C3=A9", "%C3%A9", "\\303\\251"]


@pytest.fixture
def small_windows(monkeypatch):
    """Windows of 45-90 characters, a margin of 40: more than any escape of bounded length."""
    monkeypatch.setattr(redaction, "SPLIT_MARGIN", 40)

    def window(size: int) -> None:
        monkeypatch.setattr(redaction, "SPLIT_WINDOW", size)

    return window


@pytest.mark.parametrize("seed", range(6))
def test_windows_give_the_pieces_of_one_split(small_windows, seed):
    draw = random.Random(seed)
    for _ in range(400):
        text = "".join(draw.choice(PIECES) for _ in range(draw.randint(0, 300)))
        small_windows(draw.randint(45, 90))
        for pattern in (_ESCAPE_PIECES, _CSS_ESCAPE_PIECES):
            assert split_at_escapes(pattern, text) == pattern.split(text), repr(text)


@pytest.mark.parametrize("text", [
    "%01" * 3_000,  # one run of byte escapes, many windows long
    "a" + "%41" * 1_000 + "b" * 100 + "\\x41" * 500 + "\\101" * 500,
    "\\u{" + "0" * 2_000 + "41}" + "&#" + "0" * 500 + "65;" * 40,  # zero-padded references
    "=\n" * 2_000,  # soft breaks, read by the character before each
    " =\n" * 1_000 + "x=\n" * 1_000,
    '\\"' * 5_000,
])
def test_escapes_longer_than_a_window_are_never_cut(small_windows, text):
    small_windows(64)
    assert split_at_escapes(_ESCAPE_PIECES, text) == _ESCAPE_PIECES.split(text)


def test_a_secret_escaped_across_every_window_edge_is_hidden_as_before(small_windows, monkeypatch):
    secret = "sk-live-4f9Qz81"
    escaped = "".join(f"\\u{ord(c):04x}" for c in secret)
    text = json.dumps(("ab\\\"" * 37 + escaped + "%2D" * 5) * 40)
    monkeypatch.setattr(redaction, "SPLIT_WINDOW", 10**9)
    expected = redactor([secret])(text)
    assert expected.count(redaction.REDACTED) == 40
    small_windows(128)
    assert redactor([secret])(text) == expected


def test_a_text_of_megabytes_of_escapes_gives_way_between_windows(monkeypatch):
    """With no slice at all each offer to give way switches: the other session runs at least
    once a window."""
    monkeypatch.setattr(fairness, "SLICE_SECONDS", 0.0)
    text = json.dumps('\\"' * 400_000)  # 1.6 MB of backslashes and quotes
    ticks = []

    def other_session() -> None:
        while True:
            ticks.append(1)
            gevent.sleep(0)

    other = gevent.spawn(other_session)
    gevent.sleep(0)
    ticks.clear()
    try:
        redactor(["sk-live-4f9Qz81"])(text)
    finally:
        other.kill()
    assert len(ticks) >= len(text) // redaction.SPLIT_WINDOW
