"""A secret the model echoes with every character escaped (``&#83;``, ``&#x0053;``, ``\\u0053``,
``%53``...), streamed in pieces of any size, is hidden in the chat as the whole text hides it
(``outbound.TextHold``), and at the edge of a cut text and the head of its continuation
(``mask_cut_edge``, ``mask_continued_head``). Wave 35's fuzz campaign found an answer streamed a
character a chunk whose escaped secret showed after its first two characters: a start of a base64
form ("er" of "weather", then the secret's first character) was hidden with the escaped start
after it, and the rest of the secret, no longer a start of any form, went through."""

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_core.loop import _logged_reply, repeated_head, word_tail
from agent_core.outbound import TextHold
from agent_core.redaction import REDACTED, secret_forms
from agent_core.turn import FinalAnswer, ModelTurn
from agent_core.usage import empty_usage

SECRET = "SECRET-CANARY-35e7f1"

WRITERS = {
    "html decimal": lambda c: f"&#{ord(c)};",
    "html decimal, 7 digits": lambda c: f"&#{ord(c):07d};",
    "html hex": lambda c: f"&#x{ord(c):x};",
    "html hex, 4 digits": lambda c: f"&#x{ord(c):04X};",
    "html hex, 6 digits": lambda c: f"&#x{ord(c):06x};",
    "json": lambda c: f"\\u{ord(c):04x}",
    "json upper": lambda c: f"\\u{ord(c):04X}",
    "python 8 digits": lambda c: f"\\U{ord(c):08x}",
    "es6 braces": lambda c: f"\\u{{{ord(c):x}}}",
    "hex byte": lambda c: f"\\x{ord(c):02x}",
    "octal byte": lambda c: f"\\{ord(c):03o}",
    "css, a space after": lambda c: f"\\{ord(c):x} ",
    "css, 6 digits": lambda c: f"\\{ord(c):06x}",
    "quoted-printable": lambda c: f"={ord(c):02X}",
    "percent": lambda c: f"%{ord(c):02X}",
}
"""How a writer escapes one character (the secrets here are ASCII); ``&#x000053;`` is the
longest, 10 characters a character."""


def escaped(secret: str, writer: str) -> str:
    return "".join(WRITERS[writer](c) for c in secret)


def streamed(secrets, text: str, sizes: list[int]) -> tuple[str, int]:
    """``text`` through a ``TextHold`` in pieces of ``sizes`` (repeated), flushed at the end: the
    text written, and the most characters it held at once."""
    hold, out, at, most, n = TextHold(secrets), [], 0, 0, 0
    while at < len(text):
        size = sizes[n % len(sizes)]
        out.append(hold.add(text[at : at + size]))
        most = max(most, len(hold._held))
        at, n = at + size, n + 1
    out.append(hold.flush())
    return "".join(out), most


def pieces_of_three(secret: str, writer: str) -> list[str]:
    """Every three characters of ``secret`` in a row as ``writer`` escapes them: a piece of the
    secret left beside a ``[REDACTED]`` that hid only part of it."""
    return [escaped(secret[n : n + 3], writer) for n in range(len(secret) - 2)]


@pytest.mark.parametrize("writer", sorted(WRITERS))
@pytest.mark.parametrize("before", ["and weather weather ", "the key S ", "key SEC then "])
def test_a_secret_escaped_per_character_streamed_a_character_a_chunk_is_hidden_as_in_the_whole_text(writer, before):
    secrets = secret_forms([SECRET])
    text = f"{before}{escaped(SECRET, writer)} done"
    shown, _ = streamed(secrets, text, [1])
    assert shown == secrets.redact(text)
    assert REDACTED in shown and shown.endswith("done") and shown.startswith(before.rstrip())  # CSS takes the space
    assert not [piece for piece in pieces_of_three(SECRET, writer) if piece in shown], shown


MARKERS = f"(?:{re.escape(REDACTED)})+"
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."


@settings(max_examples=60, deadline=None)
@given(secret=st.text(ALPHABET, min_size=8, max_size=24), writer=st.sampled_from(sorted(WRITERS)),
       before=st.sampled_from(["", "Here it is: ", "and weather weather ", "key=", "the key {} ", "`"]),
       after=st.sampled_from(["", " done.", ";", "1", "\n", "` ok", "0"]),
       sizes=st.one_of(st.sampled_from([[1], [2], [3], [7]]), st.lists(st.integers(1, 12), min_size=1, max_size=30)),
       false_start=st.integers(1, 3))
def test_any_chunking_of_an_escaped_secret_writes_what_the_whole_text_redacted_writes(secret, writer, before, after,
                                                                                     sizes, false_start):
    secrets = secret_forms([secret])
    text = before.format(secret[:false_start]) + escaped(secret, writer) + after
    shown, most = streamed(secrets, text, sizes)
    # markers side by side are one: a secret of one repeated character ("00000000") after a false
    # start of it is hidden whole as one place, streamed as the start held and the rest
    assert re.sub(MARKERS, REDACTED, shown) == re.sub(MARKERS, REDACTED, secrets.redact(text))
    assert not secrets.holds(shown)
    assert not [piece for piece in pieces_of_three(secret, writer) if piece in shown], shown
    assert most <= secrets.reach  # the hold stays bounded: 4 times the longest form, and 16


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_text_cut_inside_an_escaped_secret_hides_its_start_and_the_continuation_its_rest(writer):
    secrets = secret_forms([SECRET])
    form = escaped(SECRET, writer)
    pieces = pieces_of_three(SECRET, writer)
    for at in range(1, len(form)):
        cut, rest = f"the key is {form[:at]}", f"{form[at:]} done"
        edge = secrets.redact(secrets.mask_cut_edge(cut))
        head = secrets.redact(secrets.mask_continued_head(cut, rest))
        assert not [piece for piece in pieces if piece in edge or piece in head], (at, edge, head)
        assert edge.startswith("the key is") and head.endswith("done")  # CSS takes the space


@pytest.mark.parametrize("writer", [*sorted(WRITERS), "hex, colons", "hex, dashes"])
def test_the_rest_of_an_escaped_secret_a_cut_fell_in_is_kept_whole_and_hidden_with_its_start(writer):
    """A continuation that goes on inside an escape the cut fell in (``&#5`` | ``5;&#102;&#49;``)
    keeps its first characters (they are no cut word written again), so the chat, streamed on
    from the cut, hides the whole secret: wave 35's plugin campaign saw ``[REDACTED];&#102;&#49;``,
    the ``5`` taken for the word ``5`` written again, which made ``&#5;`` and left the rest of the
    secret a start of no form (``2d:3`` then ``3:35`` lost its ``3`` too)."""
    secrets = secret_forms([SECRET])
    pairs = {"hex, colons": ":", "hex, dashes": "-"}
    form = pairs[writer].join(f"{b:02x}" for b in SECRET.encode()) if writer in pairs else escaped(SECRET, writer)
    for at in range(1, len(form)):
        cut, rest = f"the key is {form[:at]}", f"{form[at:]} done"
        kept = rest[repeated_head(word_tail(cut), rest) :]
        hold = TextHold(secrets)
        shown = hold.add(cut) + hold.add(kept) + hold.flush()
        assert shown in (f"the key is {REDACTED} done", f"the key is {REDACTED}done"), (at, shown)  # CSS takes the space


@pytest.mark.parametrize("writer", [*sorted(WRITERS), "as written"])
def test_a_reply_cut_twice_inside_a_secret_logs_no_piece_of_it(writer):
    """An answer the output limit cut inside a secret, whose continuation the limit cut again
    before the secret ended: the continuation's log shows nothing of it (wave 35's plugin
    campaign: the edge's mask ran first, hid the end of the middle piece, and the head's mask
    no longer saw a piece of the secret, so ``u0045\\u0054\\u002d…`` was logged)."""
    secrets = secret_forms([SECRET])
    form = SECRET if writer == "as written" else escaped(SECRET, writer)
    pieces = [SECRET[n : n + 4] for n in range(len(SECRET) - 3)] if writer == "as written" \
        else pieces_of_three(SECRET, writer)
    turn = ModelTurn(thought="", decision=FinalAnswer(""), finish_reason="length", usage=empty_usage())
    previous = "the key is "
    for first in range(2, len(form) - 4, 3):
        for second in range(first + 4, len(form), 5):
            logged = secrets.redact(_logged_reply(turn, form[first:second], secrets, previous + form[:first]))
            assert not [piece for piece in pieces if piece in logged], (first, second, logged)


@pytest.mark.parametrize("writer", ["html hex, 4 digits", "html decimal, 7 digits", "html hex, 6 digits"])
def test_a_run_ending_inside_a_secret_escaped_in_a_form_found_decoded_only_hides_what_it_held(writer):
    """Zero-padded references are no form of their own (they are found decoded): the start a
    stream holds is hidden when the run ends there, or when the text goes on without the rest."""
    secrets = secret_forms([SECRET])
    start = escaped(SECRET[:6], writer)
    pieces = pieces_of_three(SECRET[:6], writer)
    for chunk in (1, 5):
        ended, _ = streamed(secrets, f"the key {start}", [chunk])
        assert ended == f"the key {REDACTED}", ended
        left, _ = streamed(secrets, f"the key {start} and no more", [chunk])
        assert left.startswith(f"the key {REDACTED}") and left.endswith("nd no more"), left
        assert not [piece for piece in pieces if piece in left], left


def test_text_with_no_secret_streams_unchanged_and_an_escape_at_a_cut_edge_alone_is_kept():
    secrets = secret_forms([SECRET])
    text = "Tom &amp; Jerry &#169; 2024 \\u00e9t\u00e9 100%25 a=3D b " * 3
    rnd = random.Random(35)
    shown, _ = streamed(secrets, text, [rnd.randint(1, 9) for _ in range(40)])
    assert shown == text
    for end in ("Tom &amp", "Tom &Jerry", "price &#16", "caf&#xE9"):
        assert secrets.mask_cut_edge(end) == end
