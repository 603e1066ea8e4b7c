"""redaction: a terminal code cut short right before a secret does not hide the secret's first
letter from the search (wave 39: a tool's text ``\\x1b[31`` then the key, percent-encoded or plain,
reached the CALL node and the model whole)."""

import pytest

from agent_core.redaction import redactor

SECRET = "SECRET-CANARY-39e7b2"


@pytest.mark.parametrize("written", [SECRET, "SECRET%2DCANARY%2D39e7b2", SECRET.lower()])
@pytest.mark.parametrize("code", ["\x1b[31", "\x1b[", "\x1b[1;"])
def test_a_secret_right_after_a_code_cut_short_is_redacted(code, written):
    text = f"red {code}{written}mred end"
    assert redactor([SECRET])(text) == f"red {code}[REDACTED]mred end"


def test_colour_codes_inside_a_secret_still_hide_it():
    """What ``grep --color`` writes around a match inside a key (``_MARKUP``)."""
    text = "key SEC\x1b[01;31m\x1b[KRET-CANARY-39e7b2\x1b[m\x1b[K done"
    assert SECRET[3:] not in redactor([SECRET])(text)
