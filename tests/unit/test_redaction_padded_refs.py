"""A secret written with numeric escapes whose numbers are padded with zeros (``&#x00000053;``,
``&#000000083;``, ``\\u{00000053}``: HTML and JavaScript allow any number of leading zeros) is
hidden whatever the padding, in a whole text and streamed (``outbound.TextHold``), where the
hold stays within ``reach``: a run of more than ``PADDING_KEPT`` zeros is written with that many.
The decoder read at most 6 hex or 7 decimal digits, so ``&#x00000053;`` went through as it was."""

import random
import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_core.outbound import PADDING_KEPT
from agent_core.redaction import REDACTED, secret_forms
from tests.unit.test_redaction_streamed_escapes import streamed

SECRET = "SECRET-CANARY-35e7f1"

WRITERS = {
    "html hex, 8 digits": lambda c, zeros: f"&#x{ord(c):08x};",
    "html decimal, 9 digits": lambda c, zeros: f"&#{ord(c):09d};",
    "html hex, padded": lambda c, zeros: f"&#x{'0' * zeros}{ord(c):X};",
    "html decimal, padded, no semicolon": lambda c, zeros: f"&#{'0' * zeros}{ord(c)}",
    "html hex, padded, HTML-escaped again": lambda c, zeros: f"&amp;#x{'0' * zeros}{ord(c):x};",
    "es6 braces, padded": lambda c, zeros: f"\\u{{{'0' * zeros}{ord(c):x}}}",
    "es6 braces, padded, JSON-escaped again": lambda c, zeros: f"\\\\u{{{'0' * zeros}{ord(c):x}}}",
}
"""How a writer escapes one character with ``zeros`` zeros before its number (the first two pad
to a fixed width, as encoders do)."""

MARKERS = f"(?:{re.escape(REDACTED)})+"


def escaped(secret: str, writer: str, zeros: int) -> str:
    return "".join(WRITERS[writer](c, zeros) for c in secret)


def plain_pieces(secret: str) -> list[str]:
    """Every three characters of ``secret`` in a row: what a decoded leak would show."""
    return [secret[n : n + 3] for n in range(len(secret) - 2)]


def leaked(secrets, shown: str) -> list[str]:
    """Pieces of ``SECRET`` that ``shown`` holds, decoded as a reader would decode them."""
    decoded = _decoded(shown)
    return [piece for piece in plain_pieces(SECRET) if piece in decoded]


def _decoded(text: str) -> str:
    """``text`` with the padded escapes of ``WRITERS`` read as the characters they stand for."""
    text = text.replace("&amp;", "&").replace("\\\\", "\\")
    text = re.sub(r"&#[xX]([0-9a-fA-F]+);?", lambda m: chr(int(m.group(1), 16)), text)
    text = re.sub(r"&#([0-9]+);?", lambda m: chr(int(m.group(1).lstrip("0") or "0")), text)
    return re.sub(r"\\u\{([0-9a-fA-F]+)\}", lambda m: chr(int(m.group(1), 16)), text)


@pytest.mark.parametrize("zeros", [4, 9, 40, 1000, 5000])
@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_secret_in_zero_padded_escapes_is_hidden_in_a_whole_text_whatever_the_padding(writer, zeros):
    secrets = secret_forms([SECRET])
    text = f"the key is {escaped(SECRET, writer, zeros)} done"
    assert secrets.holds(text)
    assert secrets.redact(text) == f"the key is {REDACTED} done"


def test_a_decimal_reference_padded_past_pythons_digit_limit_is_read_not_raised():
    # int() refuses a decimal string of more than 4,300 digits: the zeros are dropped first
    secrets = secret_forms([SECRET])
    text = "a " + "".join(f"&#{'0' * 5000}{ord(c)};" for c in SECRET) + " b &#" + "0" * 9000 + "65; c"
    assert secrets.redact(text) == f"a {REDACTED} b &#{'0' * 9000}65; c"


@pytest.mark.parametrize("zeros", [0, 9, 30, 200])
@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_padded_secret_streamed_a_character_a_chunk_is_hidden_and_the_hold_stays_within_reach(writer, zeros):
    secrets = secret_forms([SECRET])
    text = f"and weather {escaped(SECRET, writer, zeros)} done"
    shown, most = streamed(secrets, text, [1])
    assert re.fullmatch(f"and weather {MARKERS} done", shown), shown[:300]
    assert most <= secrets.reach


def test_a_padded_escape_with_no_secret_streams_with_its_padding_cut_to_padding_kept():
    secrets = secret_forms([SECRET])
    short = "caf&#x000000E9; and &#0000000065; and \\u{00000041} "
    shown, _ = streamed(secrets, short, [1])
    assert shown == short  # padding as encoders write it is left as it is
    long = f"caf&#x{'0' * 300}E9; done"
    shown, most = streamed(secrets, long, [1])
    assert shown == f"caf&#x{'0' * PADDING_KEPT}E9; done"  # the same character
    assert most <= secrets.reach


# Paddings reach 2.5 times PADDING_KEPT: a longer run is written with PADDING_KEPT zeros whatever
# its length, so runs of 17-40 split over pieces of 1-40 characters take every path a run of 80
# took. A run of 80 on each character streamed a character a piece held the stream's start of a
# secret for 1,700 pieces (about 3 s of CPU for that one example, the hold redacted again at
# each piece): 60 such draws would pass CI's 300 s timeout on a loaded runner.
@settings(max_examples=60, deadline=None)
@given(paddings=st.lists(st.integers(0, 40), min_size=len(SECRET), max_size=len(SECRET)),
       hexadecimal=st.booleans(),
       before=st.sampled_from(["", "Here it is: ", "and weather weather ", "the key S ", "`"]),
       after=st.sampled_from(["", " done.", ";", "1", "\n", "0"]),
       sizes=st.one_of(st.sampled_from([[1], [2], [3], [7]]), st.lists(st.integers(1, 40), min_size=1, max_size=30)))
def test_a_secret_with_random_padding_on_each_character_is_hidden_whole_and_streamed(paddings, hexadecimal, before,
                                                                                    after, sizes):
    secrets = secret_forms([SECRET])
    write = (lambda c, z: f"&#x{'0' * z}{ord(c):x};") if hexadecimal else (lambda c, z: f"&#{'0' * z}{ord(c)};")
    text = before + "".join(write(c, z) for c, z in zip(SECRET, paddings, strict=True)) + after
    whole = secrets.redact(text)
    assert REDACTED in whole and not secrets.holds(whole) and not leaked(secrets, whole), whole
    shown, most = streamed(secrets, text, sizes)
    assert REDACTED in shown and not secrets.holds(shown) and not leaked(secrets, shown), shown
    assert most <= secrets.reach


@pytest.mark.parametrize("writer", ["html hex, padded", "html decimal, padded, no semicolon", "es6 braces, padded"])
def test_a_text_cut_inside_a_padded_secret_hides_its_start_and_the_continuation_its_rest(writer):
    secrets = secret_forms([SECRET])
    form = escaped(SECRET, writer, 12)
    for at in range(20, len(form), 7):
        cut, rest = f"the key is {form[:at]}", f"{form[at:]} done"
        edge = secrets.redact(secrets.mask_cut_edge(cut))
        head = secrets.redact(secrets.mask_continued_head(cut, rest))
        assert REDACTED in edge and REDACTED in head, (at, edge, head)
        assert not leaked(secrets, edge) and not leaked(secrets, head), (at, edge, head)


def test_a_dropped_escaped_start_keeps_the_space_after_it():
    """A start of 8 or more characters the stream held and the text did not go on with is hidden;
    the whitespace held after it (a passphrase's next word may have followed) is not."""
    secrets = secret_forms([SECRET])
    for zeros in (0, 4):
        text = f"see {escaped(SECRET[:8], 'html hex, padded', zeros)} but more"
        shown, _ = streamed(secrets, text, [1])
        assert shown == f"see {REDACTED} but more", shown


def test_padded_escapes_are_read_in_linear_time():
    secrets = secret_forms([SECRET])

    def cost(size: int) -> float:
        text = ("&#x" + "0" * size + "53; &#" + "0" * size + "83 \\u{" + "0" * size + "x &#x0") * 4
        best = float("inf")
        for _ in range(3):  # CPU seconds: another process on the machine does not count
            start = time.process_time()
            secrets.redact(text)
            best = min(best, time.process_time() - start)
        return best

    small, big = cost(40_000), cost(160_000)
    assert big < 8 * max(small, 5e-3), (small, big)  # quadratic: 16 times


def test_a_long_padded_start_and_a_padded_secret_after_it_are_hidden_in_any_chunks():
    secrets = secret_forms([SECRET])
    rnd = random.Random(35)
    for _ in range(10):
        start = "".join(f"&#x{'0' * rnd.randint(0, 3000)}{ord(c):x};" for c in SECRET[: rnd.randint(8, 14)])
        whole = "".join(f"&#{'0' * rnd.randint(0, 300)}{ord(c)};" for c in SECRET)
        text = f"see {start} but more {whole} end"
        shown, most = streamed(secrets, text, [rnd.randint(1, 60) for _ in range(50)])
        # the start is hidden as far as it was held (the piece that ends it and goes on is
        # written as it is, as for a start written without padding); the secret is hidden whole
        assert re.fullmatch(f"see {MARKERS}[^ ]* but more {MARKERS} end", shown), shown[:300]
        assert not secrets.holds(shown) and most <= secrets.reach
