"""Where a start of a secret that ends a text begins (``_Secrets._start_at_end``, which
``pending_start`` and ``mask_cut_edge`` use on every streamed piece): found from the places
where a form's first characters stand, it is the same place the plain definition gives, the
longest proper start of any form (without whitespace) that ends the text."""

from __future__ import annotations

import html

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_core.outbound import TextHold
from agent_core.redaction import REDACTED, _compact, _fold, secret_forms


def plain_start_at_end(secrets, text: str, least: int) -> int:
    """The definition, as ``_start_at_end`` read before it was made fast: every length of every
    form tried against the end."""
    if not text or not secrets._compact:
        return len(text)
    tail_start = max(0, len(text) - secrets._reach)
    compact, index = _compact(_fold(secrets._tokens.end_as_latin(text[tail_start:])))
    longest = 0
    for variant in secrets._compact:
        for size in range(min(len(variant) - 1, len(compact)), max(least, longest + 1) - 1, -1):
            if compact.endswith(variant[:size]):
                longest = size
                break
    return tail_start + index[len(compact) - longest] if longest else len(text)


SECRETS = [["SECRET-CANARY-35e7f1"], ["abcab-abcab-xy", "tok16-abcdefghij"], ["aaaa", "zz zz top"], ["AKIA1234ABCD5678"]]


def pieces_of(secrets: list[str]) -> st.SearchStrategy[str]:
    forms = [s for secret in secrets for s in (secret, html.escape(secret), "".join(f"&#x{ord(c):04x};" for c in secret))]
    starts = st.sampled_from(forms).flatmap(lambda form: st.integers(0, len(form)).map(lambda n: form[:n]))
    return st.lists(st.one_of(starts, st.sampled_from([" ", "\n", "x", "a", "&#", "00", "é", "\t", "Ab"])), max_size=12).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, len(SECRETS) - 1).flatmap(lambda n: st.tuples(st.just(n), pieces_of(SECRETS[n]))), st.integers(1, 5))
def test_the_start_found_is_the_longest_start_of_any_form(case, least):
    n, text = case
    secrets = secret_forms(SECRETS[n])
    assert secrets._start_at_end(text, least) == plain_start_at_end(secrets, text, least)


def test_a_repeated_start_and_a_start_with_whitespace_inside():
    secrets = secret_forms(["abcab-abcab-xy"])
    for text in ["zz abcab-abc", "abcab abcab-", "abcab-abcab-x", "ab\nca", "q a", "abcab-abcab-xy"]:
        for least in (1, 4):
            assert secrets._start_at_end(text, least) == plain_start_at_end(secrets, text, least), (text, least)


def test_a_secret_streamed_a_character_a_piece_is_still_hidden():
    secrets = secret_forms(["SECRET-CANARY-35e7f1"])
    for text in ["Key: SECRET-CANARY-35e7f1 ok", "Key: " + "".join(f"&#x{'0' * 12}{ord(c):x};" for c in "SECRET-CANARY-35e7f1")]:
        hold = TextHold(secrets)
        out = "".join(hold.add(char) for char in text) + hold.flush()
        assert "CANARY" not in out and "&#x" not in out.replace(REDACTED, "") and REDACTED in out, out
