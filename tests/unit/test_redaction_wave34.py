"""Redaction, wave 34: letterlike letters, more dashes and blanks, overlapping secrets, and the
base64 groups of a wrapped block, a repeated-character key and a cut edge."""

from __future__ import annotations

import base64

import pytest

from agent_core.redaction import redactor, secret_forms

KEY = "Cnry-7F3a91d2E4b8"
AROUND = b"#%&"
"""Bytes around the key: none is a character of it."""


def _decoded_sides(text: str) -> list[bytes]:
    """What the base64 characters on each side of every marker in ``text`` (line breaks removed)
    decode to, a last group cut short included."""
    import re

    flat = text.replace("\r", "").replace("\n", "")
    sides = []
    for before, after in re.findall(r"([A-Za-z0-9+/]*)\[REDACTED\]([A-Za-z0-9+/]*=*)", flat):
        assert len(before) % 4 == 0, f"part of a group before the marker: {before!r}"
        for side in (before, after):
            body = side.rstrip("=")
            body += "=" * (-len(body) % 4) if len(body) % 4 != 1 else ""
            sides.append(base64.b64decode(body[: len(body) - len(body) % 4]) if body else b"")
    assert sides, text
    return sides


@pytest.mark.parametrize("shown", [
    KEY.replace("C", "\u212d"),  # Fraktur C
    KEY.replace("E", "\u2130"),  # script E
    "\u2102" + KEY[1:],  # double-struck C
    KEY.replace("C", "\u216d"),  # Roman numeral one hundred
    KEY.replace("-", "\u02d7"), KEY.replace("-", "\u2043"), KEY.replace("-", "\u2796"), KEY.replace("-", "\u058a"),
    KEY[:6] + "\u2800" + KEY[6:], KEY[:6] + "\ufff9" + KEY[6:11] + "\ufffb" + KEY[11:],
])
def test_letterlike_letters_new_dashes_and_blanks_are_read_as_the_key(shown):
    assert redactor([KEY])(f"key {shown}.") == "key [REDACTED]."


def test_text_with_letterlike_symbols_that_spell_no_key_is_kept():
    text = "25 \u2103, \u2116 5, \u2122, \u2160\u2161 and \u2102 \u2014 all kept"
    assert redactor([KEY])(text) == text


def test_two_secrets_that_overlap_are_hidden_as_one_place():
    redact = redactor(["tokenQ7v9X2m4", "Q7v9X2m4wzrk"])
    assert redact("a tokenQ7v9X2m4wzrk b") == "a [REDACTED] b"
    assert redact("a Q7v9X2m4wzrk and tokenQ7v9X2m4 b") == "a [REDACTED] and [REDACTED] b"


@pytest.mark.parametrize("width", [2, 3, 5, 6, 7, 9, 10, 13, 76])
@pytest.mark.parametrize("before", range(3))
@pytest.mark.parametrize("after", range(1, 4))
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_base64_wrapped_at_any_width_leaves_no_bit_of_the_key(width, before, after, newline):
    encoded = base64.b64encode(AROUND[:before] + KEY.encode() + AROUND[:after]).decode()
    wrapped = newline.join(encoded[i : i + width] for i in range(0, len(encoded), width))
    for data in _decoded_sides(redactor([KEY])(f"cert:\n{wrapped}\nend")):
        assert set(KEY.encode()).isdisjoint(data), data


def test_a_line_after_a_key_in_base64_on_a_line_with_other_text_is_kept():
    """``Basic <key>`` then a header on the next line: the header is not taken into the group."""
    encoded = base64.b64encode(b"u:" + KEY.encode()).decode().rstrip("=")
    redacted = redactor([KEY])(f"Authorization: Basic {encoded}\nContent-Type: text/plain")
    assert redacted.endswith("[REDACTED]\nContent-Type: text/plain"), redacted


@pytest.mark.parametrize("key", ["1111111111", "00000000", "aaaaaaaaaa", "zzzzzzzzzzzz"])
@pytest.mark.parametrize("before", range(3))
def test_base64_of_a_key_of_one_repeated_character_leaves_no_character(key, before):
    encoded = base64.b64encode(AROUND[:before] + key.encode()).decode()
    redacted = redactor([key])(f"auth {encoded} ;")
    assert redacted.endswith("[REDACTED] ;"), redacted
    for data in _decoded_sides(redacted):
        assert key.encode()[:1] not in data, (redacted, data)


@pytest.mark.parametrize("before", range(3))
def test_a_cut_edge_inside_a_base64_key_hides_the_start_of_its_first_group(before):
    """The whole key is found by the redaction itself; a start of it, 6 to 14 of its characters
    at the edge, takes the characters of its first group before it."""
    encoded = base64.b64encode(AROUND[:before] + KEY.encode() + b"!!").decode()
    for cut in range(10, 20):
        masked = secret_forms([KEY]).mask_cut_edge(f"Header: {encoded[:cut]}")
        assert masked == "Header: [REDACTED]", (cut, masked)
