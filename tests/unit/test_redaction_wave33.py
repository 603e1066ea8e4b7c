"""Red-team wave 33: the forms of a secret wave 32 left open (agent_core.redaction).

Base64 of base64 (standard and URL-safe, padded or not, the secret at any offset of either
level) and base64 of UTF-16; hex with separators (``DE:AD``, ``de-ad``, ``0xde, 0xad``); Cyrillic
and Greek small capitals (``к``, ``м``, ``т``, ``τ``) and other look-alikes the table lacked; a key
written in look-alikes inside a longer word; a terminal's colour codes or a search engine's
highlight tags inside a key. Each is hidden where it stands, the text around kept; ordinary texts
that look like them (MAC addresses, UUIDs, byte arrays, base64 of other data, Russian words,
highlighted search results) come back as written. And the cost: a decoded level that cannot
spell a secret is not searched.
"""

import base64
import time

import pytest

from agent_core import redaction
from agent_core.outbound import TextHold
from agent_core.redaction import redactor

SECRET = "sk-CANARY-7f3a91b2c4"
LETTERS = "cheapskates"
"""A secret of Latin letters that all have Cyrillic look-alikes (``k`` and ``t`` small capitals)."""
_CYRILLIC = str.maketrans({"c": "с", "h": "һ", "e": "е", "a": "а", "p": "р", "s": "ѕ", "k": "к", "t": "т"})


def hidden(secret: str, shown: str) -> bool:
    """Whether ``shown`` is replaced whole, the words around it kept."""
    return redactor([secret])(f"before {shown} after") == "before [REDACTED] after"


def _b64(data: bytes, url: bool, pad: bool) -> str:
    text = (base64.urlsafe_b64encode if url else base64.b64encode)(data).decode()
    return text if pad else text.rstrip("=")


# --- base64 of base64, of UTF-16 ------------------------------------------------------------------


@pytest.mark.parametrize("inner_prefix", [b"", b"u", b"us"])
@pytest.mark.parametrize("outer_prefix", [b"", b"c", b"cf"])
@pytest.mark.parametrize(("url", "pad"), [(False, True), (True, False), (True, True), (False, False)])
def test_base64_of_base64_is_redacted_at_every_offset_and_in_either_alphabet(inner_prefix, outer_prefix, url, pad):
    """A Basic credential base64-encoded again (a Kubernetes secret's data, a config blob): the
    secret may start at any of three byte offsets of the inner text, which may start at any of
    three of the outer one."""
    inner = _b64(inner_prefix + SECRET.encode() + b"\xfb", url, pad)
    shown = _b64(outer_prefix + inner.encode() + b"!", url, pad)
    redacted = redactor([SECRET])(f"data: {shown} end")
    assert "[REDACTED]" in redacted and redacted.startswith("data: ") and redacted.endswith(" end")
    middle = shown[len(shown) // 2 - 6 : len(shown) // 2 + 6]
    assert middle not in redacted


@pytest.mark.parametrize("prefix", ["", "$k='", "$env:KEY = '"])
def test_base64_of_utf16_as_powershell_encodes_a_command_is_redacted(prefix):
    shown = base64.b64encode(f"{prefix}{SECRET}'; Invoke-Thing".encode("utf-16-le")).decode()
    redacted = redactor([SECRET])(f"powershell -EncodedCommand {shown}")
    assert redacted.startswith("powershell -EncodedCommand ") and "[REDACTED]" in redacted
    assert shown[len(prefix) * 8 // 3 + 8 : len(prefix) * 8 // 3 + 30] not in redacted


def test_a_short_secret_has_no_base64_of_base64_form():
    """Under about 6 characters the doubly encoded part is shorter than ``MIN_BASE64_CORE``:
    such short runs turn up in any base64 data."""
    assert redaction._base64_twice("abcd") == {}
    assert all(len(core) >= redaction.MIN_BASE64_CORE for core in redaction._base64_twice(SECRET))


# --- hex with separators ----------------------------------------------------------------------------


_BYTES = SECRET.encode()
HEX_FORMS = {
    "colons": ":".join(f"{b:02x}" for b in _BYTES),
    "colons, upper case": ":".join(f"{b:02X}" for b in _BYTES),
    "dashes": "-".join(f"{b:02x}" for b in _BYTES),
    "commas": ",".join(f"{b:02x}" for b in _BYTES),
    "C array": "{" + ", ".join(f"0x{b:02x}" for b in _BYTES) + "}",
    "C array, upper case": ", ".join(f"0x{b:02X}" for b in _BYTES),
    "0x and spaces": " ".join(f"0x{b:02x}" for b in _BYTES),
}


@pytest.mark.parametrize("form", list(HEX_FORMS))
def test_hex_with_separators_is_redacted(form):
    shown = HEX_FORMS[form]
    redacted = redactor([SECRET])(f"bytes: {shown} end")
    assert redacted.startswith("bytes: ") and redacted.endswith(" end") and "[REDACTED]" in redacted
    assert "37:66" not in redacted.lower() and "0x37, 0x66" not in redacted.lower()


def test_hex_with_separators_in_a_url_is_redacted():
    """A URL writes the colons ``%3A``: the escapes stand for a character of a form of the secret,
    so the decoded text is searched (the cost rule of ``_escapes_matter``)."""
    link = "https://example.com/x?k=" + HEX_FORMS["colons, upper case"].replace(":", "%3A")
    assert redactor([SECRET])(link) == "https://example.com/x?k=[REDACTED]"


@pytest.mark.parametrize("text", [
    "MAC 00:1a:2b:3c:4d:5e, fingerprint SHA256 de:ad:be:ef:00:11:22:33, id 550e8400-e29b-41d4-a716-446655440000",
    "static const uint8_t key[] = {0x73, 0x6b, 0x2d, 0x43, 0x41};  // not the whole key",
    "data " + base64.b64encode(base64.b64encode(b"an ordinary config with no key in it")).decode(),
])
def test_texts_that_only_look_like_these_forms_come_back_as_written(text):
    assert redactor([SECRET])(text) == text


# --- look-alike letters -----------------------------------------------------------------------------


@pytest.mark.parametrize("shown", [
    SECRET.replace("k", "к"),  # Cyrillic small capital ka
    "tok-mint-7f3a91b2".replace("t", "т").replace("m", "м"),
    "tok-mint-7f3a91b2".replace("t", "τ"),  # Greek tau
    "box-key-7f3a91b2".replace("x", "χ").replace("y", "γ"),  # Greek chi, gamma
])
def test_a_key_with_letters_swapped_for_small_capitals_of_another_script_is_redacted(shown):
    secret = SECRET if "CANARY" in shown else shown.translate(str.maketrans("кмтτχγ", "kmttxy"))
    assert hidden(secret, shown)


@pytest.mark.parametrize("around", ["ключ{}ами", "ключ{}", "{}ами", "«приключ{}»"])
def test_a_long_look_alike_key_inside_a_longer_word_is_redacted(around):
    shown = LETTERS.translate(_CYRILLIC)
    assert redactor([LETTERS])(f"x {around.format(shown)} y") == f"x {around.format('[REDACTED]')} y"


def test_a_long_look_alike_key_inside_a_word_streamed_a_few_characters_a_piece_is_redacted():
    text = f"ключ{LETTERS.translate(_CYRILLIC)}ами тут"
    for size in (1, 3, 4):
        hold = TextHold(redaction.secret_forms([LETTERS]))
        written = "".join(hold.add(text[n : n + size]) for n in range(0, len(text), size)) + hold.flush()
        assert written == "ключ[REDACTED]ами тут", size


@pytest.mark.parametrize("prose", [
    "Это текст о том, как мама мыла раму; картошка, кот, метро, ТЕКСТ, ТАКТ, СКОРО.",
    "Στο τέλος, τα χρώματα γύρω από τον κόσμο: ΤΑΧΥ, ΚΑΤΩ, γάτα.",
])
@pytest.mark.parametrize("secret", [LETTERS, "kotmama", "cokpaxeo", "metpoxa"])
def test_prose_with_the_new_look_alike_letters_comes_back_as_written(prose, secret):
    assert redactor([secret])(prose) == prose


def test_a_russian_word_that_holds_a_short_look_alike_key_is_a_word():
    """A key under ``LOOKALIKE_IN_WORD_MIN`` letters is a whole token written as no word is, or
    nothing (``текст`` and ``ТЕКСТ`` spell ``tekct`` and are words, ``текстом`` is a word;
    ``тЕкСт`` and ``текcт`` with a Latin ``c`` are not)."""
    assert redactor(["tekct"])("ТЕКСТ, Текст и текстом") == "ТЕКСТ, Текст и текстом"
    assert redactor(["tekct"])("тЕкСт и текcт") == "[REDACTED] и [REDACTED]"


# --- highlighting markup inside a key ----------------------------------------------------------------


@pytest.mark.parametrize("shown", [
    "\x1b[01;31m\x1b[Ksk-CANARY\x1b[m\x1b[K-7f3a91b2c4",  # grep --color=always, the search colored
    "sk-CANARY-\x1b[1;32m7f3a\x1b[0m91b2c4",
    "sk-CANARY-<em>7f3a</em>91b2c4",  # Elasticsearch's highlight
    "<b>sk-CANARY</b>-7f3a91b2c4",  # Google's snippet
    "sk-<MARK>CANARY</MARK>-7f3a91b2c4",
])
def test_a_key_with_highlighting_inside_it_is_redacted(shown):
    redacted = redactor([SECRET])(f"match: {shown} end")
    assert "[REDACTED]" in redacted and "7f3a" not in redacted and redacted.endswith(" end")


@pytest.mark.parametrize("shown", ["sk-CANARY\x1b[m\x1b[K-7f3a91b2c4", "sk-CANARY-<em>7f3a</em>91b2c4"])
def test_a_key_with_highlighting_streamed_a_few_characters_a_piece_is_redacted(shown):
    """A piece may end inside the markup (``<e``, ``\x1b[``): the start of the key before it is
    held until the next piece finishes it."""
    text = f"key {shown} ok"
    for size in (1, 2, 3, 5):
        hold = TextHold(redaction.secret_forms([SECRET]))
        written = "".join(hold.add(text[n : n + size]) for n in range(0, len(text), size)) + hold.flush()
        assert written == "key [REDACTED] ok", size


def test_a_json_escaped_terminal_colour_inside_a_key_is_redacted():
    shown = "sk-CANARY\\u001b[0m-7f3a91b2c4"
    assert "7f3a" not in redactor([SECRET])(f'{{"line": "{shown}"}}')


@pytest.mark.parametrize("text", [
    "if a<b>c: x = <em>word</em> and <b>bold</b>; \x1b[31mred\x1b[0m",
    "<strong>sk-CANARY</strong> alone is not the key",
])
def test_highlighted_text_without_a_key_comes_back_as_written(text):
    assert redactor([SECRET])(text) == text


# --- cost ---------------------------------------------------------------------------------------------------


def test_a_level_of_escapes_that_cannot_spell_a_secret_is_not_searched():
    """Icon-font CSS (``\\f101``, the octal ``\\201`` reads as) decodes to characters no secret
    holds: the text is searched once; a CSS escape of a character of the secret is still read."""
    forms = redaction.secret_forms([SECRET])
    icons = "".join(f'.i{n}:before {{ content: "\\f{n:03x}"; }} ' for n in range(64))
    assert list(redaction._decodings(icons)) != []  # it decodes
    assert list(redaction._decodings(icons, forms._escapes_matter)) == []  # but nothing to search
    assert forms.redact(icons + "k: " + SECRET.replace("-", "\\2d ")) == icons + "k: [REDACTED]"


def test_the_new_forms_keep_redaction_linear():
    """Two megabytes of prose, code, hex dumps and base64 with secrets in the new forms cost
    about four times half a megabyte, and each is hidden."""
    secrets = [f"tok-{n:02d}-cheap7f3a91b2" for n in range(10)]
    redact = redactor(secrets)
    filler = ("Lorem ipsum 00:1a:2b:3c {0x01, 0x02} " + base64.b64encode(bytes(range(60))).decode() + " текст ") * 20

    def text(size: int) -> tuple[str, int]:
        pieces, n = [], 0
        while sum(map(len, pieces)) < size:
            secret = secrets[n % len(secrets)].encode()
            planted = (":".join(f"{b:02X}" for b in secret) if n % 2
                       else base64.b64encode(base64.b64encode(b"u:" + secret)).decode())
            pieces.append(filler + planted + " ")
            n += 1
        return "".join(pieces), n

    times = []
    for size in (500_000, 2_000_000):
        sample, planted = text(size)
        best = float("inf")
        for _ in range(2):  # the better of two CPU timings: a collection may pause one
            started = time.process_time()
            redacted = redact(sample)
            best = min(best, time.process_time() - started)
        times.append(best)
        assert redacted.count("[REDACTED]") == planted
        assert "37:66:33:61" not in redacted
    # four times the text: linear 4x, quadratic 16x
    assert times[1] < 8 * max(times[0], 0.02) and times[1] < 10.0
