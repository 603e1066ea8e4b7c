"""Encoded secrets are hidden with the whole encoding units that carry their bits
(agent_core.redaction).

A key in base64 starts at one of three places of a four-character group: the characters of its
first and last groups that are not made of its bits alone still hold some of them (``pRPQ==``
after the key's core held its last two characters). So is a key in base64 of base64, a level
deeper. What is left beside ``[REDACTED]`` must carry no bit of the key, and the groups that
carry none (the text before and after it) must be left as written.

The properties below encode ``before + key + after`` whole, in each form a tool writes, redact
it, and check which characters were kept against the bits each character of the encoding
carries.
"""

import base64

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_core import redaction
from agent_core.outbound import TextHold
from agent_core.redaction import REDACTED, redactor

KEY_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
AROUND_CHARS = " \n.,;:!?\"'()[]{}<>/=+*&%$#@~|^`äöüßéЖжπ中文😀"
"""Text around a key, sharing no character with it: a place where the key stands is not also
spelt by the text beside it."""

keys = st.text(KEY_CHARS, min_size=8, max_size=40).filter(lambda key: len(set(key)) >= 6)
"""Keys of 8 to 40 letters, digits, ``-`` and ``_``, of 6 different characters at least: a key
made of a few characters repeated (``00000000``) is also spelt by a form of another alignment,
whose groups end elsewhere (see docs/architecture.md, Secrets)."""
around = st.text(AROUND_CHARS, max_size=10)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _b64(data: bytes, url: bool, pad: bool) -> str:
    text = (base64.urlsafe_b64encode if url else base64.b64encode)(data).decode()
    return text if pad else text.rstrip("=")


def _kept(secret: str, encoded: str) -> tuple[int, int]:
    """``(p, q)``: the redacted text is ``encoded[:p] + [REDACTED] + encoded[q:]`` (one marker,
    the text outside the encoding as it was)."""
    redacted = redactor([secret])(f"<< {encoded} >>")
    assert redacted.startswith("<< ") and redacted.endswith(" >>") and redacted.count(REDACTED) == 1, redacted
    head, tail = redacted[3:-3].split(REDACTED)
    assert encoded.startswith(head) and encoded.endswith(tail)
    return len(head), len(encoded) - len(tail)


def _check_base64(p: int, q: int, encoded: str, first_bit: int, end_bit: int) -> None:
    """No character kept carries a bit of ``[first_bit, end_bit)`` (6 bits a character), and
    only the groups that do were hidden."""
    assert 6 * p <= first_bit, "a character before [REDACTED] holds a bit of the key"
    assert 6 * q >= end_bit, "a character after [REDACTED] holds a bit of the key"
    assert p >= 4 * (first_bit // 24), "text before the key's first group was hidden"
    assert q <= 4 * -(-end_bit // 24), "text after the key's last group was hidden"
    # what is left decodes to the text around the key alone: whole groups, no part of one
    assert p % 4 == 0 and (q % 4 == 0 or q == len(encoded))


@SETTINGS
@given(keys, around, around, st.booleans(), st.booleans())
def test_base64_leaves_no_bit_of_the_key_beside_the_marker(key, before, after, url, pad):
    prefix, data = before.encode(), (before + key + after).encode()
    encoded = _b64(data, url, pad)
    p, q = _kept(key, encoded)
    _check_base64(p, q, encoded, 8 * len(prefix), 8 * (len(prefix) + len(key)))
    assert base64.urlsafe_b64decode(encoded[:p].replace("+", "-").replace("/", "_")) == data[: 3 * p // 4]
    assert data[: 3 * p // 4] == prefix[: 3 * p // 4] and key.encode()[:2] not in data[: 3 * p // 4]


@SETTINGS
@given(keys, around, around, st.booleans(), st.booleans())
def test_base64_of_utf16_leaves_no_bit_of_the_key_beside_the_marker(key, before, after, url, pad):
    prefix = before.encode("utf-16-le")
    encoded = _b64((before + key + after).encode("utf-16-le"), url, pad)
    p, q = _kept(key, encoded)
    _check_base64(p, q, encoded, 8 * len(prefix), 8 * (len(prefix) + 2 * len(key)))


@SETTINGS
@given(keys, around, around, st.text(AROUND_CHARS, max_size=4), st.text(AROUND_CHARS, max_size=4),
       st.booleans(), st.booleans(), st.booleans())
def test_base64_of_base64_leaves_no_bit_of_the_key_beside_the_marker(key, before, after, outer_before, outer_after,
                                                                     inner_url, outer_url, pad):
    """The outer characters kept carry no bit of an inner character that carries one of the key's."""
    inner_prefix = before.encode()
    inner = _b64(inner_prefix + key.encode() + after.encode(), inner_url, pad)
    outer_prefix = outer_before.encode()
    encoded = _b64(outer_prefix + inner.encode() + outer_after.encode(), outer_url, pad)
    p, q = _kept(key, encoded)
    # the inner characters that carry a bit of the key, as bytes of the outer level
    first_char, end_char = 8 * len(inner_prefix) // 6, -(-8 * (len(inner_prefix) + len(key)) // 6)
    _check_base64(p, q, encoded, 8 * (len(outer_prefix) + first_char), 8 * (len(outer_prefix) + end_char))


@SETTINGS
@given(keys, around, around, st.sampled_from(["{:02x}", "{:02X}", "{:02x}:", "0x{:02x}, ", "%{:02X}", "\\x{:02x}"]))
def test_hex_and_escaped_bytes_are_hidden_byte_for_byte(key, before, after, unit):
    """Forms whose units are whole bytes: what is kept is exactly the text around the key's bytes."""
    def written(text: str) -> str:
        return "".join(unit.format(byte) for byte in text.encode())

    encoded = written(before + key + after)
    separator = {"{:02x}:": 1, "0x{:02x}, ": 2}.get(unit, 0)  # after each byte: not part of the key's form
    p, q = _kept(key, encoded)
    assert (p, len(encoded) - q) == (len(written(before)), len(written(after)) + separator)


@given(st.sampled_from(["", "u", "us"]), st.sampled_from(["", "!", "!x"]))
def test_the_reported_leftover_of_base64_of_base64_is_hidden(inner_prefix, tail):
    """``pRPQ==`` was left after ``[REDACTED]``: the end of the last outer group, holding the last
    characters of the key."""
    secret = "sk-CANARY-7f3a91b2c4"
    encoded = base64.b64encode(base64.b64encode(f"{inner_prefix}{secret}{tail}".encode())).decode()
    redacted = redactor([secret])(f"data: {encoded}\n")
    assert redacted.startswith("data: ") and redacted.endswith("\n")
    left = redacted[len("data: ") : -1].split(REDACTED)
    for piece in left:
        decoded = base64.b64decode(piece + "=" * (-len(piece) % 4)) if piece else b""
        inner = base64.b64decode(decoded + b"=" * (-len(decoded) % 4)) if len(decoded) >= 4 else b""
        assert not any(secret[n : n + 2].encode() in inner or secret[n : n + 2].encode() in decoded
                       for n in range(len(secret) - 1))


def test_words_beside_a_base64_key_are_kept():
    """A base64 token ends at a space or a quote: the words around it are not part of a group."""
    secret = "sk-CANARY-7f3a91b2c4"
    for encoded in (base64.b64encode(b"us" + secret.encode()).decode().rstrip("="),
                    base64.b64encode(b"u" + secret.encode()).decode()):
        assert redactor([secret])(f'token "{encoded}" and more') == 'token "[REDACTED]" and more'
        assert redactor([secret])(f"Basic {encoded}\nnext line") == "Basic [REDACTED]\nnext line"


@given(st.sampled_from(["", "u", "us"]), st.sampled_from(["", "!", "!x"]), st.integers(1, 9))
def test_a_streamed_base64_of_base64_key_is_hidden_as_in_the_whole_text(inner_prefix, tail, size):
    """The model writes the encoded key a few characters a piece: the characters of its first
    and last groups are held back with it (``pending_start``, ``open_end``) and hidden as they
    are in the whole text, not written before or after the marker."""
    secret = "sk-CANARY-7f3a91b2c4"
    encoded = base64.b64encode(base64.b64encode(f"{inner_prefix}{secret}{tail}".encode())).decode()
    text = f"Your key is {encoded} as the vault said."
    hold = TextHold(redaction.secret_forms([secret]))
    written = "".join(hold.add(text[n : n + size]) for n in range(0, len(text), size)) + hold.flush()
    assert written == redactor([secret])(text)
    assert written.startswith("Your key is [REDACTED]")
