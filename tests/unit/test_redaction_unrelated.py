"""Secrets that share no start (keys of several providers, passwords, tokens): past a few
needles, ``_Secrets._candidates`` finds the forms of 15 characters or more by the blocks of the
text (``_BlockIndex``: one pass whatever the number of forms) instead of one ``str.find`` a
needle. The places found are every place a form stands, whichever path reads the text, and what
``redact`` hides is the same."""

import base64
import json
import random
import string
import urllib.parse

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_core import redaction
from agent_core.redaction import REDACTED, _Secrets

_SECRET_CHARS = string.ascii_letters + string.digits + "!#$%&*+-./:=?@_~" + "éß中"
_FILLER = st.text(alphabet=string.ascii_letters + string.digits + " .,:=&%\\\n\"'éß中тест", max_size=30)


class _CountedText(str):
    """A text that counts the ``find`` calls made on it (each reads the text to its end when the
    needle is not there)."""

    finds = 0

    def find(self, *args):
        type(self).finds += 1
        return super().find(*args)


def _every_place(secrets: _Secrets, compact: str) -> list[int]:
    """The reference: every ``position * len(forms) + rank`` where a form's text stands."""
    count = len(secrets._forms)
    return sorted(
        at * count + rank
        for rank, form in enumerate(secrets._forms)
        for at in range(len(compact))
        if compact.startswith(form.compact, at)
    )


def _written(secret: str, how: int) -> str:
    """``secret`` as a tool may write it: plain, upper case, JSON-escaped, URL-encoded, base64,
    hex, cut short (a start only), or wrapped across lines."""
    forms = [
        secret,
        secret.upper(),
        json.dumps(secret)[1:-1],
        urllib.parse.quote(secret, safe=""),
        base64.b64encode(secret.encode()).decode(),
        secret.encode().hex(),
        secret[: len(secret) // 2],
        secret[:7] + "\n" + secret[7:],
    ]
    return forms[how % len(forms)]


def _with_needles_only(secrets: _Secrets, text: str) -> tuple[list[int], str]:
    """The places of forms in ``text`` (folded, without whitespace) and ``redact`` of it, found
    with one needle a group of forms, whatever their number."""
    compact = "".join(redaction._fold(text).split())
    limit = redaction._FIND_EACH_NEEDLE_MAX
    redaction._FIND_EACH_NEEDLE_MAX = 10**9
    try:
        return secrets._candidates(compact), secrets.redact(text)
    finally:
        redaction._FIND_EACH_NEEDLE_MAX = limit


@given(
    keys=st.lists(st.text(alphabet=_SECRET_CHARS, min_size=4, max_size=40), min_size=1, max_size=12),
    pieces=st.lists(_FILLER, max_size=8),
    picks=st.lists(st.tuples(st.integers(0, 11), st.integers(0, 7), st.integers(0, 8)), max_size=6),
)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_blocks_find_every_place_a_form_stands(keys, pieces, picks):
    """Property: for unrelated secrets (any characters, Latin-1 or not, 4 to 40 of them) and a
    text of filler with the secrets written in random forms at random places, the places found
    (blocks and the short forms' needles) are every place a form stands, as with a needle a
    group, and ``redact`` hides the same."""
    secrets = _Secrets(keys)
    for key, how, where in picks:
        pieces.insert(where % (len(pieces) + 1), _written(keys[key % len(keys)], how))
    text = "".join(pieces)
    compact = "".join(redaction._fold(text).split())
    expected = _every_place(secrets, compact)
    found = secrets._candidates(compact)
    assert found == expected
    needles_found, needles_redacted = _with_needles_only(secrets, text)
    assert needles_found == expected
    assert secrets.redact(text) == needles_redacted


def test_fifty_unrelated_secrets_read_prose_once_not_once_a_needle():
    # 50 secrets of different shapes: some 2,000 forms that share no start, about 900 needles
    # prose does not rule out; each was a ``find`` over the whole text (90 ms a megabyte)
    rng = random.Random(11)
    keys = ["".join(rng.choice(string.ascii_letters + string.digits + "!@#;:,.?") for _ in range(rng.randint(16, 40)))
            for _ in range(50)]
    secrets = _Secrets(keys)
    prose = "Record 7 value abc; the secret is kept elsewhere, ok? " * 2_000
    compact = "".join(redaction._fold(prose).split())
    _CountedText.finds = 0
    assert secrets._candidates(_CountedText(compact)) == []
    assert _CountedText.finds <= redaction._FIND_EACH_NEEDLE_MAX
    assert len(secrets._needles) > 20 * redaction._FIND_EACH_NEEDLE_MAX  # what one by one would have cost
    planted = prose[:50_000] + keys[17] + " and " + base64.b64encode(keys[33].encode()).decode() + prose[50_000:]
    hidden = secrets.redact(planted)
    assert hidden.count(REDACTED) == 2 and keys[17] not in hidden


def test_a_text_of_one_repeated_block_costs_a_look_at_each_block_once():
    # every block of the text is a piece of a form: each is compared where it stands, and the
    # form found at every place it stands, as the needles find it
    keys = ["a" * 30] + ["".join(random.Random(n).choice(string.ascii_letters) for _ in range(24)) for n in range(30)]
    secrets = _Secrets(keys)
    text = "a" * 3_000
    compact = "".join(redaction._fold(text).split())
    assert secrets._candidates(compact) == _with_needles_only(secrets, compact)[0]
    assert secrets.redact(text) == REDACTED
