"""How ``redact`` finds where the forms of many secrets may stand (``_Secrets._candidates``): one
``str.find`` for each group of forms sharing a start (a needle), none for a needle holding a
character the text lacks (an escape's ``\\``, ``&``, ``%``, ``=`` in prose), and the group's forms
told apart with one look-up where its needle stands. The places found are exactly those where a
form stands, whatever the path; the finds do not grow with secrets alike, nor with an escape
written all over the text."""

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_core import redaction
from agent_core.redaction import REDACTED, _Secrets


class _CountedText(str):
    """A text that counts the ``find`` calls made on it (each one reads the text to its end when
    the needle is not there: the cost of a scan)."""

    finds = 0

    def find(self, *args):
        type(self).finds += 1
        return super().find(*args)


def _finds(secrets: _Secrets, compact: str) -> tuple[int, list[int]]:
    _CountedText.finds = 0
    found = secrets._candidates(_CountedText(compact))
    return _CountedText.finds, found


def _every_place(secrets: _Secrets, compact: str) -> list[int]:
    """The reference: every ``position * len(forms) + rank`` where a form's text stands."""
    count = len(secrets._forms)
    return sorted(
        at * count + rank
        for rank, form in enumerate(secrets._forms)
        for at in range(len(compact))
        if compact.startswith(form.compact, at)
    )


_ESCAPED_PIECES = st.sampled_from(["\\u0061", "\\u0041", "&#97;", "&#x61;", "%61", "=61", "\\x61", "ab", "sk-a", "-", "\\", "&", "%"])


@given(
    tails=st.lists(st.text(alphabet="ab-", min_size=2, max_size=6), min_size=1, max_size=5),
    pieces=st.lists(st.one_of(_ESCAPED_PIECES, st.text(alphabet="ab-k s", max_size=10)), max_size=16),
    picks=st.lists(st.integers(0, 4), max_size=3),
)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_places_found_are_every_place_a_form_stands(tails, pieces, picks):
    """Property: for secrets sharing their start (``sk-a...``: the needles hold several forms) and
    a text of their escaped forms and pieces of escapes (every escape character present, or some
    missing), the places found with needles, and position by position, are every place where a
    form's text stands, no more and no fewer."""
    keys = [f"sk-a{tail}" for tail in tails]
    secrets = _Secrets(keys)
    forms = [form.compact for form in secrets._forms]
    text = "".join(pieces + [forms[(pick * 7) % len(forms)] for pick in picks])
    compact = "".join(redaction._fold(text).split())
    expected = _every_place(secrets, compact)
    assert secrets._candidates(compact) == expected
    limit = redaction._FIND_EACH_FORM_MAX
    redaction._FIND_EACH_FORM_MAX = 0  # every position looked up
    try:
        assert secrets._candidates(compact) == expected
    finally:
        redaction._FIND_EACH_FORM_MAX = limit


def test_prose_costs_no_find_of_an_escaped_form_and_keys_alike_share_their_finds():
    # 50 keys of one provider (``sk-0000-...``): 1,950 forms, some 900 of them escaped (a
    # character each as ``\\u0073``, ``&#115;``, ``%73``); prose holds no escape character, so
    # those are not looked for, and the keys' own forms share their needles
    keys = [f"sk-{n:04d}-secretvalue-{n * 7919:08d}" for n in range(50)]
    prose = "".join(redaction._fold("Record 7 value abc; the secret is kept elsewhere, ok?\n" * 2_000).split())
    one, _ = _finds(_Secrets(keys[:1]), prose)
    many, found = _finds(_Secrets(keys), prose)
    assert found == []
    assert 0 < many <= one + 10  # was a find for each of 1,950 forms, or a dictionary look-up a character
    escaped = [needle for needle, marks, *_ in _Secrets(keys)._needles if marks & set("\\&%=")]
    assert len(escaped) >= 10  # those were left out


def test_an_escape_written_all_over_a_text_is_not_a_place_to_look_at_each_time():
    # a JSON text of accented names: ``\\u00e9`` 20,000 times; the forms of a key written escaped
    # all begin with ``\\u00`` (``\\u0073`` and ``\\u00000073``), but their needles are longer, so the
    # text is read once a needle, not once each escape
    keys = [f"sk-{n:04d}-secretvalue-{n * 7919:08d}" for n in range(20)]
    secrets = _Secrets(keys)
    text = json.dumps([{"name": "café", "n": n} for n in range(20_000)])
    compact = "".join(redaction._fold(text).split())
    finds, found = _finds(secrets, compact)
    assert found == []
    assert finds <= len(secrets._needles) + 10
    hidden = secrets.redact(text[:5_000] + json.dumps("key: " + keys[3])[1:-1].replace("s", "\\u0073") + text[5_000:])
    assert "\\u0073k-0003" not in hidden and REDACTED in hidden
