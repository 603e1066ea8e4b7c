"""``QuotedScan`` finds what the plain pattern ``"(?:[^"\\]|\\.)*"|REST`` finds, match for match,
without its quadratic retries at quotes never closed."""

import re

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agent_core import call_markup, json_args, text_calls
from agent_core.quoted import QuotedScan

STRINGS = {'"': r'"(?:[^"\\]|\\.)*"', "'": r"'(?:[^'\\]|\\.)*'"}
"""The closed strings as the plugin wrote them before ``QuotedScan``."""

USED = {
    # name: (scan, rest, quotes, flags): the scans the plugin uses and the pattern each replaced
    "json_args._QUOTED": (json_args._QUOTED, "(?!)", "\"'", re.DOTALL),
    "json_args._STRUCTURE": (json_args._STRUCTURE, r"""(?P<open>["'])|[{}\[\]]""", "\"'", re.DOTALL),
    "json_args._REPAIR_TOKENS": (json_args._REPAIR_TOKENS, r"(?P<costly>\{(?=\s*[{\[(])|\()|[{\[]|[}\])]", "\"'", re.DOTALL),
    "json_args._UNQUOTED_RUNS": (json_args._UNQUOTED_RUNS, r'([^",:]+)', '"', 0),
    "json_args._LONG_VALUE_STRINGS": (
        json_args._LONG_VALUE_STRINGS,
        r"""(?P<at>[{\[,:])[ \t\r\n]*+(?:(?P<single>'[^'\\]*+(?:\\.?+[^'\\]*+)*+(?:'|\Z))|(?P<bare>[^"'\s\d\[\]{}.+\-,:][^"'}]*+))?""",
        '"',
        re.DOTALL,
    ),
    "text_calls._GEMMA_KEYED": (text_calls._GEMMA_KEYED, r"([{,]\s*)([A-Za-z_][\w\-]*)(\s*:)", '"', 0),
    "call_markup._BARE_KEY": (call_markup._BARE_KEY, r"([{,]\s*)([A-Za-z_][\w\-]*)(\s*:)", '"', 0),
}

TEXTS = st.text(alphabet="\"'\\\n{}[](,: ak", max_size=60)


def _plain(rest: str, quotes: str, flags: int) -> re.Pattern[str]:
    return re.compile("|".join([*(STRINGS[q] for q in quotes), f"(?:{rest})"]), flags)


def _found(matches) -> list:
    return [(m.span(), m.groups()[: m.re.groups - len(m.re.groupindex.keys() & {"_open_double", "_open_single"})]) for m in matches]


@pytest.mark.parametrize("name", USED, ids=list(USED))
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS)
@example(text="{'a': '\\',\\',\\'}")
@example(text='{"a": "\\"\\"\\\n"k: 1, "x"}')
@example(text='"\\\n"a\\"b"\\')
@example(text="{ a: '\\")
def test_a_scan_finds_the_matches_of_the_plain_pattern(name, text):
    scan, rest, quotes, flags = USED[name]
    plain = _plain(rest, quotes, flags)
    assert _found(scan.finditer(text)) == _found(plain.finditer(text))
    assert scan.sub(lambda m: "<" + m.group() + ">", text) == plain.sub(lambda m: "<" + m.group() + ">", text)


def test_a_replacement_text_is_put_in_as_written():
    assert QuotedScan("(?!)").sub(r"\1", "a 'b' \"c\" d") == r"a \1 \1 d"

