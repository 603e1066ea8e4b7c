"""Red-team wave 32: forms of a secret the redaction missed before (agent_core.redaction).

A tool, an API or a model writes the secret base64-encoded after changing its case, escaped three
times, in HTML5 named character references or numeric ones without their semicolon, with a
look-alike letter of another script or a typographic dash inside, or with a combining accent on
every letter. Each is hidden where it stands, the text around it kept as written; text that holds
no secret (Russian and Greek prose among it) comes back unchanged and costs no Python call a
letter.
"""

import base64
import html
import json
import time

import pytest

from agent_core import redaction
from agent_core.outbound import TextHold
from agent_core.redaction import redactor

SECRET = "sk-CANARY-7f3a91b2c4"
LOWER = "tok_ab9.xyz/q+w=k"  # all lower case, with HTML-escapable and URL characters


def hidden(secret: str, shown: str) -> bool:
    """Whether ``shown`` is replaced whole, the words around it kept."""
    return redactor([secret])(f"before {shown} after") == "before [REDACTED] after"


# --- base64 of the secret with its case changed ---------------------------------------------------


@pytest.mark.parametrize("secret", [SECRET, LOWER, "0xDEADBEEFcafe1234"])
@pytest.mark.parametrize("case", [str.upper, str.lower])
@pytest.mark.parametrize("prefix", ["", "user:", "ab:"])
def test_base64_of_the_secret_upper_or_lower_cased_is_redacted(secret, case, prefix):
    """A service that upper-cases a hex key, or lower-cases a header value, before encoding it
    (a Basic auth header echoed in an error): folding the text cannot undo a case changed before
    base64, so those forms are looked for too."""
    encoded = base64.b64encode(f"{prefix}{case(secret)}".encode()).decode()
    redacted = redactor([secret])(f"Authorization: Basic {encoded}")
    assert redacted.startswith("Authorization: Basic ") and "[REDACTED]" in redacted
    middle = encoded[len(prefix) + 4 : len(prefix) + 16]
    assert middle not in redacted


# --- escaped three times ---------------------------------------------------------------------------


def _json_quoted(text: str, times: int) -> str:
    for _ in range(times):
        text = json.dumps(text)[1:-1]
    return text


@pytest.mark.parametrize("times", [1, 2])
def test_a_secret_partly_escaped_then_quoted_in_json_twice_more_is_redacted(times):
    """A JSON body quoted in a tool's JSON result, logged as a JSON string once more:
    ``\\\\\\\\u002d``."""
    shown = _json_quoted(SECRET.replace("-", "\\u002d"), times)
    assert shown.startswith("sk" + "\\" * 2**times + "u002d")
    redacted = redactor([SECRET])(f'{{"log": "before {shown} after"}}')
    assert redacted == '{"log": "before [REDACTED] after"}'


def test_a_secret_html_escaped_three_times_is_redacted():
    shown = html.escape(html.escape(SECRET.replace("-", "&#45;")))
    assert shown.startswith("sk&amp;amp;#45;")
    assert hidden(SECRET, shown)


# --- HTML character references the decoder did not read ------------------------------------------


@pytest.mark.parametrize("shown", [
    LOWER.replace("_", "&lowbar;").replace(".", "&period;").replace("/", "&sol;").replace("+", "&plus;")
    .replace("=", "&equals;"),
    LOWER.replace("/", "&#47").replace("_", "&#95"),  # no semicolon: browsers read it all the same
    LOWER.replace("=", "&#x3d"),
])
def test_a_secret_in_html5_named_or_unterminated_character_references_is_redacted(shown):
    assert hidden(LOWER, shown)


def test_a_reference_without_semicolon_is_read_as_browsers_read_it():
    """``&#457`` is U+01C9, not ``-`` then ``7``: text that a browser shows as something else
    is no secret and stays as it is."""
    text = f"before {SECRET.replace('-7', '&#457')} after"
    assert redactor([SECRET])(text) == text


def test_a_named_reference_cut_at_the_end_of_a_streamed_piece_is_held_until_the_next():
    forms = redaction.secret_forms([LOWER])
    hold = TextHold(forms)
    shown = "key " + LOWER.replace("_", "&lowbar;") + " ok"
    cut = shown.index("&lowbar;") + 4  # "&low"
    written = hold.add(shown[:cut]) + hold.add(shown[cut:]) + hold.flush()
    assert written == "key [REDACTED] ok"


# --- look-alike letters of another script, dashes, combining accents -------------------------------


@pytest.mark.parametrize("shown", [
    SECRET.replace("A", "\u0410").replace("C", "\u0421"),  # Cyrillic А and С
    SECRET.replace("a", "\u0430").replace("c", "\u0441"),  # lower-case Cyrillic а and с
    SECRET.replace("N", "\u039d").replace("Y", "\u03a5"),  # Greek Ν and Υ
    SECRET.replace("k", "\u03ba", 1),  # Greek κ
    "\u0455" + SECRET[1:],  # Cyrillic ѕ first, a Latin letter after it
    SECRET.replace("-", "\u2010").replace("7f", "7\u0066"),  # a hyphen (U+2010)
    SECRET.replace("-", "\u2212", 1),  # a minus sign
    SECRET.replace("-", "\u2013"),  # an en dash
    "\u0301".join(SECRET),  # a combining acute accent after every character
    "".join(c + "\u0336" for c in SECRET),  # struck through (combining long stroke)
])
def test_a_secret_with_look_alike_letters_dashes_or_combining_marks_is_redacted(shown):
    redacted = redactor([SECRET])(f"before {shown} after")
    assert redacted.startswith("before [REDACTED]") and redacted.endswith(" after")
    assert "".join(c for c in redacted if c.isascii()) == "before [REDACTED] after"


def test_a_cyrillic_secret_is_found_where_it_touches_a_latin_letter():
    """A secret of Cyrillic letters: in a text, its look-alike letters next to a Latin one are
    folded as Latin, so the secret is looked for that way too."""
    secret = "сургут-пароль"
    assert redactor([secret])(f"x{secret} y") == "x[REDACTED] y"
    assert redactor([secret])(f"{secret}7 y") == "[REDACTED]7 y"
    assert redactor([secret])(f"x{secret}7 y") == "x[REDACTED]7 y"
    assert redactor([secret])(f"ключ: {secret}.") == "ключ: [REDACTED]."


def test_prose_in_cyrillic_and_greek_around_a_secret_comes_back_as_written():
    around = "Съешь же ещё этих мягких французских булок — ΟΔΟΣ οδός — naïve café"
    text = f"{around} {SECRET.replace('A', 'А')} {around}"
    assert redactor([SECRET])(text) == f"{around} [REDACTED] {around}"
    assert redactor([SECRET])(around * 3) == around * 3


def test_prose_of_one_script_costs_no_python_call_a_letter():
    """Cost: only a run of look-alike letters that touches a Latin letter or digit is folded
    through a Python call; Cyrillic and Greek words written alone are folded by ``str.lower``
    alone, so a megabyte of Russian costs what a megabyte of English does."""
    prose = "Съешь же ещё этих мягких французских булок, да выпей чаю. Καλημέρα κόσμε. " * 200
    assert redaction._BESIDE_LATIN.search(prose) is None
    assert len(redaction._fold(prose)) == len(prose)


def test_folding_keeps_one_character_for_one():
    text = "x\u0430y \u2014 \u0301 Ѕk-7 İ"
    assert len(redaction._fold(text)) == len(text)


@pytest.mark.parametrize("run", ["\u043e" * 200_000 + " ", "\u043e" * 200_000 + "x", "x" + "\u043e" * 200_000])
def test_a_long_run_of_look_alike_letters_is_folded_in_linear_time(run):
    """A tool output of one Cyrillic letter repeated: a pattern that looked past the run for a
    Latin letter went over it again from each of its letters (40,000 took 6.5 s)."""
    started = time.process_time()
    folded = redaction._fold(run)
    assert time.process_time() - started < 1.0
    assert len(folded) == len(run)
    assert ("o" * 1000 in folded) == ("x" in run)


def test_only_the_runs_that_touch_a_latin_letter_are_folded():
    assert redaction._fold("\u0441\u0443\u0440 x\u0441\u0443\u0440 \u0441\u0443\u04407") == "сур xcyp cyp7"


def test_a_megabyte_of_made_up_named_references_is_read_in_linear_time():
    """Every HTML5 name may now be an escape: 140,000 different names no browser knows are looked
    up in a table, not parsed one by one (``html.unescape`` took 4 s for 700,000), and left as
    they are."""
    names = "".join(f"&q{n:x}z;" for n in range(140_000))
    started = time.process_time()
    assert redactor([SECRET])(names + " " + SECRET) == names + " [REDACTED]"
    assert time.process_time() - started < 2.0
