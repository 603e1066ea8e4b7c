"""Hiding the secrets of a node's tools: `secret_forms` builds (once a run) what finds and hides
the secret values in every form (``_Secrets``: ``redact`` replaces every occurrence by
``[REDACTED]``, ``holds`` tells whether a text such as a link or a file name contains one,
``in_bytes`` whether a file's content does, ``mask_cut_edge`` hides the start of a secret left at
the end of a text that was cut, ``pending_start`` the start of one a streamed piece ends with);
`redactor` is its ``text -> text``; `redacted_texts` applies one to every text of a value (a
call's parameters, a message's dumped fields). `agent_core.observation` hides the secrets in a
tool's output, `agent_core.outbound` in every message, error and prompt of a run.

Forms a secret is looked for in (docs/architecture.md, "Secrets", gives each rule and why):

- whatever whitespace stands between its words (a tool or an error message may have reflowed
  it), and a line break anywhere in a form of at most `WRAPPED_FORM_MAX_CHARS` (a wrapped token);
- any case: a text is compared folded (``_fold``): lower case, full-width and other look-alike
  letters and digits as ASCII, typographic hyphens, dashes and the minus sign as ``-``,
  characters that show nothing and combining marks as whitespace, and so the markup that
  highlights part of a text (``_MARKUP``: a terminal's colour codes, search engines' ``<em>``,
  ``<b>``, ``<mark>``, ``<strong>``); Cyrillic and Greek letters drawn as Latin ones where a run
  of them touches a Latin letter or digit, and a key written wholly in look-alikes as a whole
  token (``_LookalikeTokens``; inside a longer word from `LOOKALIKE_IN_WORD_MIN` letters on);
- either Unicode normalisation (``_normal_forms``);
- JSON-escaped (``\\/`` and HTML-safe JSON too), URL-encoded (also twice), HTML-escaped, escaped
  in every character (``_escaped_every_character``: ``\\u0043``, ``\\x43``, ``&#67;``, ``%43``...),
  base64 (``_base64_cores``: also of the key upper- or lower-cased, base64 of base64 and of UTF-16;
  hidden with the whole encoding units that carry a bit of it) and hex with separators; a secret
  with only some characters escaped is found in the text with its escapes decoded
  (``_Unescaped``, up to ``_DECODE_LEVELS`` levels).

The forms are looked for in the text without its whitespace, by needle: forms sharing their
first characters are one needle, and a needle holding a character the text lacks is skipped;
with more than ``_FIND_EACH_FORM_MAX`` searches, each position of the text is looked up instead
(``_BlockIndex``).

Not covered: a secret spelled out in words, reversed, with a character between each of its
characters or split in a program's text (``"ab" + "cd"``), a key of under 8 look-alike letters
inside a longer word, beside a letter of another script or written as a word of one script is
(``Текст``), other encodings (base32, base85, uuencode, rot13, decimal character codes, hex of
UTF-16, ``%uXXXX``, gzip, a quoted-printable letter or digit ``=41``), HTML markup inside a key
other than the highlight tags, Markdown emphasis inside a key, two halves of a key in the results
of two different tool calls, and a secret shorter than `MIN_SECRET_LENGTH` characters (hiding it
would garble ordinary text).
"""

from __future__ import annotations

import base64
import bisect
import html
import html.entities
import itertools
import json
import re
import sys
import unicodedata
import urllib.parse
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from typing import Any

from agent_core.fairness import give_way
from agent_core.json_args import PLAIN_SCALARS
from agent_core.prompts import REDACTED

__all__ = ["redacted_texts", "redactor", "secret_forms"]

MIN_SECRET_LENGTH = 4
"""Shorter secret values are not redacted: hiding them would garble ordinary text."""
MIN_SECRET_EDGE = 4
"""The shortest start of a secret hidden at the edge of a cut text (characters)."""
SPLIT_HEAD_CHARS = 300
"""How far into the second of two texts of one result (a tool's error after its output)
``_Secrets.mask_split`` looks for the rest of a secret the first began: past the prefixes the
daemon and the SDK put before a tool's own message (``invoke tool failed: ``, an error object's
``"message": "``)."""
_WORD_START = re.compile(r"(?<![^\s:'\"(\[{=,;])\S")
"""A character that starts a word: after whitespace or a delimiter, or at the text's start."""
WRAPPED_FORM_MAX_CHARS = 512
"""The longest form of a secret also matched broken across lines at any character (a wrapped API
key or token); a longer one (a PEM key, a service account's JSON) is matched with any whitespace
between its words only. Allowing a break at every character of a 3 KB key made the pattern take
3 s to compile, holding every session of the process; such values are multi-line already."""
LOOKALIKE_IN_WORD_MIN = 8
"""The shortest secret written wholly in look-alike letters that is also looked for inside a
longer word of their script (``ключсһеарѕкаtе``): eight letters of a key are a leak (as
``outbound.HELD_MASK_CHARS``), and a Russian or Greek word holds eight given look-alike letters
in a row by chance hardly ever. A shorter one is found as a whole token only (``ΤΟΡΚΑ`` for a key
``topka``, never the middle of a longer word)."""
MIN_BASE64_CORE = 8
"""The shortest base64 form of a secret looked for (characters): a shorter run would turn up by
chance in the base64 data a tool returns."""


def secret_forms(secrets: Collection[str]) -> _Secrets:
    """What finds and hides ``secrets`` in every form `ObservationCollector` hides them in
    (``redact``, ``holds``, ``pending_start``); false when there is none to hide."""
    return _Secrets(secrets)


def redacted_texts(value: Any, redact: Any, *, max_depth: int | None = None, depth: int = 0, keys: bool = True) -> Any:
    """``value`` (text, numbers, and dicts and lists of them: a call's parameters, a message's
    dumped fields) with ``redact`` (``text -> text``) applied to every text in it, plain-text
    keys too unless ``keys`` is False (the plugin's own keys: a run's ``execution_metadata``;
    enum keys such as ``LogMetadata`` are always left as they are); what lies deeper than
    ``max_depth`` levels, when given, is left as it is."""
    if isinstance(value, str):
        return redact(value)
    if max_depth is not None and depth > max_depth:
        return value
    if isinstance(value, Mapping):
        give_way()  # a reply's arguments or a tool's JSON of millions of parts
        return {
            (redact(key) if keys and type(key) is str else key): (
                item if type(item) in PLAIN_SCALARS
                else redacted_texts(item, redact, max_depth=max_depth, depth=depth + 1, keys=keys)
            )
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        give_way()
        # a number, a boolean or null is kept as it is without a call for it (a list of a million
        # numbers took 0.6 s, holding every session of the process)
        return [
            item if type(item) in PLAIN_SCALARS
            else redacted_texts(item, redact, max_depth=max_depth, depth=depth + 1, keys=keys)
            for item in value
        ]
    return value


def redactor(secrets: Collection[str]) -> Any:
    """``text -> text`` with every value of ``secrets`` (and its encoded and reflowed forms)
    replaced by ``[REDACTED]``, as `ObservationCollector` does (for other texts of a tool call,
    e.g. an internal error message)."""
    return _Secrets(secrets).redact


_INVISIBLE = "\x1f"
"""What a character that shows nothing (a zero-width space or joiner, a soft hyphen, a bidi or
tag control, a variation selector) or only marks the letter before it (a combining accent: a key
with one over every letter still reads as the key) is folded to: whitespace to Python (``str.split``), so it is
skipped like a line break a tool put inside a token."""
_INVISIBLE_RANGES = (
    (0x00AD, 0x00AD), (0x0300, 0x036F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xE0000, 0xE007F),
)
_LOOKALIKE_RANGES = ((0x00B2, 0x00B3), (0x00B9, 0x00B9), (0x2070, 0x209F), (0x2460, 0x24FF),
                     (0xFF01, 0xFF5E), (0x1D400, 0x1D7FF), (0x1F130, 0x1F189))
"""Full-width forms (``ＣＡＮＡＲＹ``), mathematical, circled and squared letters, super- and
subscript digits: each is folded to the ASCII character its compatibility form (NFKC) is."""


def _fold_table() -> dict[str, str]:
    table = {chr(c): _INVISIBLE for low, high in _INVISIBLE_RANGES for c in range(low, high + 1)}
    for low, high in _LOOKALIKE_RANGES:
        for code in range(low, high + 1):
            plain = unicodedata.normalize("NFKC", chr(code))
            if len(plain) == 1 and plain.isascii() and not plain.isspace():
                table[chr(code)] = plain
    table["\u0130"] = "i"  # "İ": the one character whose lower case is two (i + a combining dot)
    table.update(dict.fromkeys(_INVISIBLE_MORE, _INVISIBLE))
    table.update((char, unicodedata.normalize("NFKC", char)) for char in _LETTERLIKE)
    return table


_LETTERLIKE = "".join(
    chr(code) for code in range(0x2100, 0x2190)
    if len(plain := unicodedata.normalize("NFKC", chr(code))) == 1 and plain.isascii() and plain.isalnum())
"""Letterlike symbols and number forms whose compatibility form (NFKC) is one ASCII letter: the
letters a "fancy text" writer takes from there where the mathematical alphabets have a hole
(Fraktur ``ℭ``, script ``ℰ``, double-struck ``ℂ``, the Kelvin sign, Roman numerals ``Ⅽ``, ``ⅰ``)."""
_INVISIBLE_MORE = "\u2800\ufff9\ufffa\ufffb" + "".join(map(chr, range(0x1D173, 0x1D17B)))
"""Blank or format characters outside ``_INVISIBLE_RANGES`` that show nothing inside a token: the
braille blank, interlinear annotation marks, musical formatting controls."""


_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\u02d7\u2043\u2796\u058a\u05be\u2e17\u2e3a\u2e3b\ufe31\ufe32"
"""Hyphens, dashes and minus signs a text processor or a "smart punctuation" filter writes for
``-`` (also the modifier-letter, heavy and bullet minus and hyphen, Armenian and Hebrew hyphens,
two- and three-em and vertical dashes): folded to it."""
_FOLD = {**_fold_table(), **dict.fromkeys(_DASHES, "-")}
_FOLDABLE = re.compile("[" + "".join(f"{re.escape(chr(low))}-{re.escape(chr(high))}" for low, high in _INVISIBLE_RANGES + _LOOKALIKE_RANGES)
                       + "\u0130" + _DASHES + _LETTERLIKE + _INVISIBLE_MORE + "]")

_OTHER_SCRIPT_LOOKALIKES = {
    # Cyrillic
    "а": "a", "с": "c", "е": "e", "о": "o", "р": "p", "х": "x", "у": "y", "і": "i", "ј": "j",
    "ѕ": "s", "һ": "h", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ӏ": "l", "к": "k", "м": "m", "т": "t",
    "А": "a", "В": "b", "С": "c",
    "Е": "e", "Н": "h", "І": "i", "Ј": "j", "К": "k", "М": "m", "О": "o", "Р": "p", "Ѕ": "s",
    "Т": "t", "Х": "x", "У": "y", "Ү": "y", "Ԛ": "q", "Ԝ": "w",
    # Greek
    "Α": "a", "Β": "b", "Ε": "e", "Ζ": "z", "Η": "h", "Ι": "i", "Κ": "k", "Μ": "m", "Ν": "n",
    "Ο": "o", "Ρ": "p", "Τ": "t", "Υ": "y", "Χ": "x", "ο": "o", "α": "a", "ι": "i", "κ": "k",
    "ν": "v", "ρ": "p", "υ": "u", "τ": "t", "χ": "x", "γ": "y", "ϲ": "c", "ϳ": "j",
}
"""Cyrillic and Greek letters drawn as a Latin letter (Unicode's confusables, and the small
capitals ``к``, ``м``, ``т``, ``τ`` a key's letters are swapped for too), as the Latin letter (lower
case: ``_fold`` compares lower-cased)."""
_AS_LATIN = str.maketrans(_OTHER_SCRIPT_LOOKALIKES)
_LOOKALIKE_CHARS = "".join(_OTHER_SCRIPT_LOOKALIKES)
_OTHER_SCRIPT = re.compile(f"[{_LOOKALIKE_CHARS}]")
_LOOKALIKE_SET = frozenset(_LOOKALIKE_CHARS)
_LOOKALIKE_RUN = re.compile(f"[{_LOOKALIKE_CHARS}]+")
_BESIDE_LATIN = re.compile(f"[{_LOOKALIKE_CHARS}](?:(?<=[0-9A-Za-z{_INVISIBLE}][{_LOOKALIKE_CHARS}])|(?=[0-9A-Za-z{_INVISIBLE}]))")
"""A look-alike letter of another script that opens a run of them with a Latin letter or digit
(or a character that shows nothing) before it, or closes one with such a character after it:
the runs of a token of mixed scripts, as a key with some of its letters swapped for look-alikes
is written. It opens with a set of characters and looks one character around: the regex engine
skips to those letters in C and never goes back over a run (a run of a million of them costs
what a million letters of English do; a lookahead after the run made it quadratic)."""


def _as_latin(text: str) -> str:
    """``text`` with each run of look-alike letters that touches a Latin letter or digit
    (``_BESIDE_LATIN``) written in the Latin letters it looks like, one for one; runs inside
    Cyrillic or Greek words are left as they are (folding every one would cost a Python call a
    letter of such a text). Each run is read once, forwards or backwards."""
    pieces: list[str] = []
    written = 0
    for match in _BESIDE_LATIN.finditer(text):
        at = match.start()
        if at < written:  # the end of a run already folded from its start
            continue
        start = at
        while start > written and text[start - 1] in _LOOKALIKE_SET:  # a run closed by a Latin letter
            start -= 1
        end = _LOOKALIKE_RUN.match(text, at).end()
        pieces += (text[written:start], text[start:end].translate(_AS_LATIN))
        written = end
    return "".join([*pieces, text[written:]]) if pieces else text


def _folded_in_place(secret: str) -> set[str]:
    """``secret`` folded (``_fold``) as it may be where it stands in a text: a run of look-alike
    letters at its start or its end is folded as Latin when a Latin letter or digit touches it in
    the text, and not otherwise (a Cyrillic secret written right after ``x`` or before ``7``).
    One form for a secret with no such letter."""
    if not _OTHER_SCRIPT.search(secret):
        return {_fold(secret)}
    return {_fold(before + secret + after)[len(before) : len(before) + len(secret)]
            for before in ("", "a") for after in ("", "a")}


_MARKUP = re.compile(r"\x1b\[[0-?]*[ -/]*[mK]|</?(?:b|em|mark|strong)>", re.IGNORECASE)
"""Markup a tool puts inside a value to highlight a part of it, read as characters that show
nothing: a terminal's colour codes (``grep --color`` colours the match, ``\x1b[01;31m``), and
the tags search engines wrap the words of a query in (``<em>`` Elasticsearch and Algolia, ``<b>``
Google and PostgreSQL's ``ts_headline``, ``<strong>``, ``<mark>``). A key a user searched for
part of is written with the tags inside it. Only colour (``m``) and erase-line (``K``) codes
count: a code of any other final letter would take the first letter of a secret written right
after a code cut short (``\x1b[31`` then ``SECRET``: its ``S`` ends a scroll code), and the
secret, whole as written, was no longer found."""


_TAGS_BY_LENGTH = [(re.compile("|".join(tags), re.IGNORECASE), _INVISIBLE * size) for size, tags in itertools.groupby(
    sorted((f"<{end}{name}>" for name in ("b", "em", "mark", "strong") for end in ("", "/")), key=len), key=len)]
"""The highlight tags of ``_MARKUP``, one pattern for each length, each replaced by a constant
(``re.sub`` with a string: no Python call a tag, as a callback made of an HTML page of them)."""
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[mK]")


def _unmarked(text: str) -> str:
    """``text`` with each piece of ``_MARKUP`` in it written as as many invisible characters."""
    if "\x1b" in text:
        text = _ANSI.sub(lambda match: _INVISIBLE * len(match.group()), text)
    if "<" in text:
        for pattern, blank in _TAGS_BY_LENGTH:
            text = pattern.sub(blank, text)
    return text


_PARTIAL_MARKUP = re.compile(r"(?:\x1b(?:\[[0-?]*[ -/]*)?|</?(?:b|e|em|m|ma|mar|mark|s|st|str|stro|stron|strong)?)\Z",
                             re.IGNORECASE)
"""``_MARKUP`` the end of a streamed piece may have cut (the next piece finishes it)."""
_PARTIAL_MARKUP_MAX = 32


def _fold(text: str) -> str:
    """``text`` as secrets are compared with it, one character for each of its characters (so a
    place in it is the same place in ``text``): lower case (a tool's error message may upper-case a
    key: a hex key is the same key, a base64 key loses at most a bit a letter), full-width and
    other look-alike letters and digits as ASCII, dashes as ``-``, Cyrillic and Greek letters drawn as
Latin ones as those where they touch a Latin letter or digit (``_as_latin``), characters
that show nothing as whitespace, and so the markup that highlights part of a text (``_MARKUP``)."""
    if ("<" in text or "\x1b" in text) and _MARKUP.search(text):
        text = _unmarked(text)
    if text.isascii():
        return text.lower()
    if _FOLDABLE.search(text):
        text = _FOLDABLE.sub(lambda match: _FOLD.get(match.group(), match.group()), text)
    if _OTHER_SCRIPT.search(text):
        text = _as_latin(text)
    return text.lower().replace("\u03c2", "\u03c3")  # a final sigma, lower-cased by its place


_QP = "=(?:[01][0-9A-F]|2[1-9A-F]|3[A-F]|40|5[B-F]|60|7[B-F]|[89A-F][0-9A-F])"
"""A quoted-printable byte as encoders write one: not a letter, a digit or a space (printable
ASCII is written as it is; a space inside a secret is matched as whitespace anyway), so
``timeout=30`` or ``c=20`` in code is not read as an escape (and costs no decoding)."""

_ESCAPES = re.compile(
    r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"  # a surrogate pair
    r"|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}|\\u\{0*[0-9a-fA-F]{1,6}\}|\\[\\/\"'tnr]"
    r"|\\x[0-9a-fA-F]{2}(?:\\x[0-9a-fA-F]{2})*|\\[0-3][0-7]{2}(?:\\[0-3][0-7]{2})*"
    r"|%[0-9a-fA-F]{2}(?:%[0-9a-fA-F]{2})*|" + _QP + "(?:" + _QP + r")*|=(?<![\s=!<>]=)(?:\r?\n|(?:\\r)?\\n)"
    r"|&#0*[0-9]{1,7};?|&#[xX]0*[0-9a-fA-F]{1,6};?|&[A-Za-z][A-Za-z0-9]{1,31};"
)
"""One escape a JSON, JavaScript, Python, URL or HTML encoder writes a character in (a run of
percent-encoded bytes as one: a character of several UTF-8 bytes; an HTML character reference by
number, also without the semicolon browsers read it without, or by any HTML5 name: ``&lowbar;``,
``&period;``, ``&sol;``, ``&equals;``; ``\\U0000002d`` and ``\\u{2d}``; a run of ``\\xXX`` or
octal ``\\055`` escapes, or of quoted-printable ``=2D``, as UTF-8 bytes where they are, each a
character where not; a quoted-printable soft line break ``=`` and a line break, as nothing, also
with the line break JSON-escaped, unless the ``=`` ends an operator or follows a space, as in
code: ``!=``, ``x =``).
Every alternative begins with a literal ``\\``, ``%``, ``&`` or ``=``, so the regex engine skips to those characters in C
(a leading group, ``(?:%..)+``, made it try every alternative at every character: 27 ms a
megabyte of prose instead of 4)."""


_ESCAPE_PIECES = re.compile(f"({_ESCAPES.pattern})")
"""``_ESCAPES`` as one group: ``split`` gives the text between escapes and the escapes in turn."""


_HTML5_NAMES = html.entities.html5
"""HTML5's named character references (``"lowbar;" -> "_"``)."""


def _unescape(escape: str) -> str:
    """The text one match of ``_ESCAPES`` stands for."""
    if escape[0] == "%":
        return urllib.parse.unquote(escape)
    if escape[0] == "=":
        return "" if escape[1] in "\r\n\\" else _bytes_text(bytes.fromhex(escape.replace("=", "")))
    if escape[1] in "01234567":
        return _bytes_text(bytes(int(escape[n : n + 3], 8) for n in range(1, len(escape), 4)))
    if escape[0] == "&":  # a name: looked up (an unknown one, 700,000 of them, is itself at once)
        return html.unescape(_unpadded(escape)) if escape[1] == "#" else _HTML5_NAMES.get(escape[1:], escape)
    if escape[1] == "x":
        return _bytes_text(bytes.fromhex(escape.replace("\\x", "")))
    if escape[1] == "U" or escape[1:3] == "u{":
        code = int(escape[2:].strip("{}"), 16)
        return chr(code) if code < 0x110000 else escape
    if escape[1] == "'":
        return "'"
    if escape[1] in "tnr":
        return " "  # whitespace, which a secret is matched across
    return json.loads(f'"{escape}"')  # \uXXXX (a surrogate pair too), \/ \\ \"


def _unpadded(reference: str) -> str:
    """An HTML numeric character reference (``&#x00000053;``, ``&#000000083``) without the zeros
    its number is padded with (``&#x53;``, ``&#83``): HTML allows any number of them, and
    ``html.unescape`` reads a decimal number of more than 4,300 digits as no number (an error)."""
    head = 3 if reference[2] in "xX" else 2
    number = reference[head:].lstrip("0")
    return reference[:head] + (number if number[:1].isalnum() else "0" + number)


def _bytes_text(data: bytes) -> str:
    """A run of escaped bytes as text: UTF-8 where it reads as such (a bytes repr, octal or
    quoted-printable of a non-ASCII character), else each byte the character of that number."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


_CSS_ESCAPE_PIECES = re.compile(r"(\\[0-9a-fA-F]{1,6}(?:\r\n|[ \t\n\r\f])?)")
"""A CSS escape (``\\2d `` or ``\\00002d``: one to six hex digits, a whitespace after them
ending it), as one group. Read apart from ``_ESCAPES``: ``\\101`` is ``A`` in octal, ``ā`` in
CSS."""
_CSS_ESCAPE_MARK = re.compile(r"\\[0-9a-fA-F]")


def _css_unescape(escape: str) -> str:
    """The character a CSS escape stands for (U+FFFD for a number that is none, as CSS reads it)."""
    code = int(escape[1:].rstrip(), 16)
    return chr(code) if 0 < code < 0x110000 and not 0xD800 <= code < 0xE000 else "\ufffd"


_DECODE_LEVELS = 3
"""Times a text's escapes are decoded in turn to find a secret some of whose characters are
escaped: once for a JSON or HTML text, twice for one quoted inside another (a tool's JSON
result holding an API's JSON body), three times for one quoted once more (that result logged
as a JSON string, ``&amp;#45;`` escaped again). Each level costs one more pass only over a
text that still holds escapes after the level before."""


_DECODED_BETWEEN_TURNS = 4096
"""Distinct escapes decoded between two ``give_way`` calls."""

SPLIT_WINDOW = 262_144
"""Characters of a text split at its escapes in one call (``split_at_escapes``): some 15 ms of a
text escaped in every character, so a text of megabytes gives way between windows (5.4 MB of
backslashes and quotes took 0.3 s in one ``re.split``, every other session waiting)."""

SPLIT_MARGIN = 1024
"""Characters at the end of a window whose pieces are split again with the next window: more than
any escape whose length is bounded (a named reference's 34 characters). A run of byte escapes
or a zero-padded reference, unbounded, is never cut: one reaching into the margin starts the
next window."""


def split_at_escapes(pattern: re.Pattern[str], text: str) -> list[str]:
    """``pattern.split(text)`` (``pattern`` one group of escapes: text, escape, text, ...,
    text), split ``SPLIT_WINDOW`` characters at a time, giving way between windows. Each window
    keeps its pieces up to the last one that starts before its margin and not at a ``=`` (a
    quoted-printable soft break is read by the character before it), so every kept piece is the
    one the whole text's split gives, and the next window starts where a piece does."""
    if len(text) <= SPLIT_WINDOW:
        return pattern.split(text)
    pieces: list[str] = [""]
    start, window = 0, SPLIT_WINDOW
    while start + window < len(text):
        part = pattern.split(text[start : start + window])
        cut = len(part) - 1  # the piece the next window starts at, walked back from the last
        begin = window - len(part[cut])  # where it starts in this window
        while cut and (begin > window - SPLIT_MARGIN or (begin and text[start + begin] == "=")):
            cut -= 1
            begin -= len(part[cut])
        if not begin:  # one piece fills the window (a run of byte escapes): a wider one
            window *= 2
            continue
        pieces[-1] += part[0]  # ``pieces`` ends with a text, and so do the window's pieces
        pieces += part[1:cut]
        if cut % 2 == 0:  # the next window starts with a text: the escape kept last is followed by one
            pieces.append("")
        start, window = start + begin, SPLIT_WINDOW
        give_way()
    part = pattern.split(text[start:])
    pieces[-1] += part[0]
    pieces += part[1:]
    return pieces


class _Unescaped:
    """A text with every escape of ``_ESCAPES`` in it decoded (``text``), and the way back from
    a place in it to the text it was read from (``span``, worked out only when asked: a secret
    is seldom found): a secret written with some of its characters escaped and others not
    (``CANARY\u002d7f``, ``CANARY%2D7f``), which no whole form matches.

    The text is split at its escapes and put back together in C (``re.split``, ``map``,
    ``str.join``); only each distinct escape is decoded in Python (a JSON text of a megabyte
    holds tens of thousands of escapes, seldom more than a few dozen different ones), so the
    cost is linear in the text whatever it holds (every character escaped, megabytes of ``%``,
    ``&#`` or backslashes). A text without escapes is ``text`` itself. With ``css``, only the
    CSS escapes of ``_CSS_ESCAPE_PIECES`` are decoded (read apart: see there)."""

    def __init__(self, source: str, *, css: bool = False) -> None:
        # text, escape, text, ..., text; CSS escapes alone when ``css`` (see _CSS_ESCAPE_PIECES)
        pieces = split_at_escapes(_CSS_ESCAPE_PIECES if css else _ESCAPE_PIECES, source)
        unescape = _css_unescape if css else _unescape
        self._source_pieces = pieces
        self._pieces = pieces
        self._map: tuple[list[int], list[int]] | None = None
        self.values: Collection[str] = ()  # what each distinct escape stands for
        if len(pieces) == 1:
            self.text = source
            return
        many = len(pieces) > _DECODED_BETWEEN_TURNS  # each step below is one call in C: 0.1 s on 5 MB of escapes
        if many:
            give_way()
        escapes = pieces[1::2]
        table: dict[str, str] = dict.fromkeys(escapes, "")
        for count, escape in enumerate(table, 1):
            table[escape] = unescape(escape)
            if count % _DECODED_BETWEEN_TURNS == 0:
                give_way()  # a text escaped in every character: hundreds of thousands of kinds
        if many:
            give_way()
        decoded = pieces.copy()
        decoded[1::2] = map(table.__getitem__, escapes)
        if many:
            give_way()
        self._pieces = decoded
        self.text = "".join(decoded)
        self.values = table.values()

    def vanished(self) -> frozenset[int]:
        """The places in ``text`` where an escape that stands for nothing was (a quoted-printable
        soft line break): no encoding unit runs across one."""
        if "" not in self.values:
            return frozenset()  # the usual case: every escape stands for a character
        at = itertools.accumulate(map(len, self._pieces))  # where each piece ends
        return frozenset(place for index, (place, piece) in enumerate(zip(at, self._pieces, strict=True)) if index % 2 and not piece)

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The place in the source of ``text[start:end]`` (every escape it touches whole; a run of
        byte escapes to the byte: ``_inside``)."""
        if self._map is None:  # where each piece starts in the decoded text and in the source
            self._map = ([0, *itertools.accumulate(map(len, self._pieces))],
                         [0, *itertools.accumulate(map(len, self._source_pieces))])
        at, source = self._map
        first = bisect.bisect_right(at, start) - 1
        last = bisect.bisect_right(at, end - 1) - 1
        begin = source[first] + (self._inside(first, start - at[first]) or 0)  # even: text, odd: an escape
        inside = self._inside(last, end - at[last])
        stop = source[last] + inside if inside is not None else source[last + 1]
        return begin, stop

    def _inside(self, index: int, chars: int) -> int | None:
        """Where in piece ``index`` of the source the first ``chars`` characters of its decoding
        end: the same in text; in a run of byte escapes (``%41``, ``=2D``, ``\\x41``, octal)
        decoded as UTF-8, at the escape their bytes end with (a key's bytes at the start of a
        percent-encoded run are hidden without the rest of it); else None (one escape, touched,
        is hidden whole)."""
        if index % 2 == 0:
            return chars
        piece, decoded = self._source_pieces[index], self._pieces[index]
        if len(decoded) < 2:
            return None
        unit, size = (3 if piece[0] in "%=" else 4), len(decoded.encode("utf-8", "surrogatepass"))
        return unit * len(decoded[:chars].encode("utf-8", "surrogatepass")) if len(piece) == unit * size else None


_ESCAPE_MARKS = re.compile(r"[\\%&=]")
_PARTIAL_ESCAPE = re.compile(r"(?:(?<!\\)\\+(?:u[0-9a-fA-F]{0,3}|u\{0*[0-9a-fA-F]{0,6}|U[0-9a-fA-F]{0,7}|x[0-9a-fA-F]?"
                             r"|[0-9a-fA-F]{1,5}|[0-9a-fA-F]{6}\r)?|=(?:[0-9A-F]|\r|\\(?:r\\?)?)?|%[0-9a-fA-F]?|&#?[xX]?0*[0-9a-fA-F]{0,6}|&[A-Za-z][A-Za-z0-9]{0,30})\Z")
"""An escape the end of a text may have cut (the next piece of a stream finishes it)."""
_PARTIAL_ESCAPE_MAX = 64
"""How far back from a text's end (characters) ``_PARTIAL_ESCAPE`` is looked for: its longest
match (a named reference's 32 characters after a run of backslashes) ends inside it."""


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` (start, end) in order, those that overlap joined."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


_WHITESPACE_GONE = dict.fromkeys((code for code in range(0x3001) if chr(code).isspace()), None)
"""Every character ``str.split`` splits at (none is past U+3000), mapped to nothing."""
_SPLIT_BLOCK_CHARS = 1 << 18
"""Characters of a text that is not ASCII made whitespace-free at a time (some 10 ms)."""


def _without_whitespace(text: str) -> str:
    """``text`` without its whitespace (``"".join(text.split())``). ASCII: one ``translate`` (in
    C, 0.4 ms a megabyte; splitting made a string of every word: 30 ms, and 170 ms on 5 MB with no
    other session let run); else split a block of ``_SPLIT_BLOCK_CHARS`` at a time, giving way
    between blocks (``translate`` reads a dictionary for each character there: ten times slower)."""
    if text.isascii():
        return text.translate(_WHITESPACE_GONE)
    if len(text) <= _SPLIT_BLOCK_CHARS:
        return "".join(text.split())
    blocks = []
    for start in range(0, len(text), _SPLIT_BLOCK_CHARS):
        blocks.append("".join(text[start : start + _SPLIT_BLOCK_CHARS].split()))
        give_way()
    return "".join(blocks)


def _has_escape_mark(text: str) -> bool:
    """Whether ``text`` holds a character an escape of ``_ESCAPES`` begins with (``_ESCAPE_MARKS``:
    four ``in`` tests, ``memchr`` in C, cost 0.1 ms a megabyte where the regex's search cost 7)."""
    return "\\" in text or "%" in text or "&" in text or "=" in text


_NON_SPACE = re.compile(r"\S+")


def _compact(text: str) -> tuple[str, Sequence[int]]:
    """``text`` without its whitespace, and for each character kept its index in ``text`` (a
    ``range`` when there is no whitespace; else built from the runs between whitespace, not
    character by character: a stream asks for the same tail at each piece)."""
    compact = _without_whitespace(text)
    if len(compact) == len(text):
        return text, range(len(text))
    return compact, list(itertools.chain.from_iterable(range(*run.span()) for run in _NON_SPACE.finditer(text)))


def _wrappable(word: str) -> str:
    """A pattern for ``word`` that also matches it with whitespace at any character (a token
    wrapped across lines, as PEM and MIME wrap at 64-76 columns; a space, a tab or a character
    that shows nothing, folded to whitespace by ``_fold``, put inside it)."""
    return "\\s*".join(re.escape(char) for char in word)


def _percent_encoded_all(char: str) -> str:
    """``char`` percent-encoded (as UTF-8) unless it is an ASCII letter or digit: encoders that
    also encode the unreserved ``-._~`` (``%2D``) write a secret so."""
    return char if char.isascii() and char.isalnum() else "".join(f"%{byte:02X}" for byte in char.encode("utf-8"))


_PERCENT_QUOTERS = (
    lambda char: urllib.parse.quote(char, safe=""), urllib.parse.quote, urllib.parse.quote_plus, _percent_encoded_all,
)
"""How URL encoders write a character of a secret: every reserved character encoded, ``/`` kept
(``quote``), a space as ``+`` (``quote_plus``, forms), the unreserved ``-._~`` encoded too."""
_UPPER_HEX_ESCAPE = re.compile(r"%[0-9A-F]{2}")


def _url_encoded(secret: str) -> set[str]:
    """``secret`` URL-encoded as each of ``_PERCENT_QUOTERS`` writes it, with upper- and with
    lower-case hex digits (``%2D``, ``%2d``); a character at a time (``_per_character``: the
    encoding of a character does not depend on its neighbours)."""
    forms = set()
    for quoter in _PERCENT_QUOTERS:
        forms.add(_per_character(secret, quoter))
        forms.add(_per_character(secret, lambda char, quoter=quoter: _UPPER_HEX_ESCAPE.sub(
            lambda match: match.group().lower(), quoter(char))))
    return forms


def _per_character(text: str | bytes, write: Any) -> str:
    """``text`` with each character (each byte of ``bytes``) written as ``write(it)`` gives it:
    ``write`` is called once a distinct character, the text joined in C (a secret of a megabyte
    written a character at a time took seconds for each of its escaped forms)."""
    table = {char: write(char) for char in set(text)}
    give_way()  # each form of a secret of a megabyte some 50 ms
    return "".join(map(table.__getitem__, text))


def _utf16_units(char: str) -> list[int]:
    """The UTF-16 code units of ``char`` (two for a character outside the BMP, as ``\\u`` escapes
    write it)."""
    data = char.encode("utf-16-be", "surrogatepass")
    return [int.from_bytes(data[n : n + 2], "big") for n in range(0, len(data), 2)]


def _escaped_every_character(secret: str) -> set[str]:
    """``secret`` with every character escaped, in the notations a tool may write a value in:
    ``\\u0043`` (JSON, JavaScript, Java; hex in either case), ``\\U00000043`` (Python),
    ``\\u{43}`` (JavaScript, Rust, Swift), ``\\x43`` (Python, C, JavaScript; also each UTF-8
    byte, as a bytes repr writes it), ``\\103`` (octal UTF-8 bytes), ``\\43 `` and ``\\000043``
    (CSS), ``=43`` (quoted-printable), ``&#67;`` and ``&#x43;`` (HTML, XML numeric character
    references), ``%43`` (percent-encoding of every byte, URL-safe characters too) and ``43414e``
    (its UTF-8 bytes in hex, also of the secret upper- or lower-cased first)."""
    forms = {_per_character(secret, lambda char: "".join(f"\\u{unit:04x}" for unit in _utf16_units(char)))}
    if max(secret) < "\u0100":  # every character a byte (in C: a secret may be a megabyte)
        forms.add(_per_character(secret, lambda char: f"\\x{ord(char):02x}"))
    forms.add(_per_character(secret, lambda char: f"&#{ord(char)};"))
    forms.add(_per_character(secret, lambda char: f"&#x{ord(char):x};"))
    data = secret.encode("utf-8")
    forms.add(_per_character(data, lambda byte: f"%{byte:02x}"))
    forms.add(_per_character(secret, lambda char: f"\\U{ord(char):08x}"))  # Python's 8-digit escape
    forms.add(_per_character(secret, lambda char: f"\\u{{{ord(char):x}}}"))  # JavaScript (ES6), Rust, Swift
    forms.add(_per_character(data, lambda byte: f"\\x{byte:02x}"))  # a bytes repr: UTF-8 bytes
    forms.add(_per_character(data, lambda byte: f"\\{byte:03o}"))  # octal: C, shells' printf, PHP
    forms.add(_per_character(secret, lambda char: f"\\{ord(char):x} "))  # CSS, a space ending each escape
    forms.add(_per_character(secret, lambda char: f"\\{ord(char):06x}"))  # CSS, six digits need no space
    forms.add(_per_character(data, lambda byte: f"={byte:02X}"))  # quoted-printable
    # a digest-like dump of the bytes, also of the secret upper- or lower-cased before it was dumped
    forms |= {case.encode("utf-8").hex() for case in (secret, secret.lower(), secret.upper())}
    return forms | {form.upper().replace("\\X", "\\x").replace("\\U", "\\u").replace("&#X", "&#x") for form in forms}


_HTML_SAFE_JSON = (
    ("<>&\u2028\u2029", "x", False),  # Go encoding/json Marshal (HTMLEscape)
    ("<>&='\u2028\u2029", "x", False),  # Gson (htmlSafe, its default)
    ("<>&'\"+`", "X", True),  # .NET System.Text.Json (JavaScriptEncoder.Default)
)
"""JSON encoders that write more characters as ``\\u`` escapes than ``json.dumps`` does: the
characters, the hex digits' case (``x`` or ``X``), and whether every non-ASCII character is
escaped too."""


def _json_html_safe(secret: str) -> set[str]:
    """``secret`` inside a JSON string as the HTML-safe encoders of ``_HTML_SAFE_JSON`` write it,
    where that differs from ``json.dumps``: Go's ``encoding/json`` (``Marshal`` writes ``<``,
    ``>``, ``&``, U+2028 and U+2029 as ``\\u003c``... "to keep some browsers from misinterpreting
    JSON output as HTML", encode.go), Gson (``=`` and ``'`` too) and .NET's ``System.Text.Json``
    (upper-case hex, ``'"+`` and the backquote too, every non-ASCII character as well, two
    escapes for one outside the BMP). A tool that returns an API's JSON body as it came passes
    these on. Empty when none differs."""
    plain = json.dumps(secret, ensure_ascii=False)[1:-1]
    forms = set()
    for characters, case, non_ascii in _HTML_SAFE_JSON:
        forms.add(_per_character(secret, lambda char, characters=characters, case=case, non_ascii=non_ascii: (
            "".join(f"\\u{unit:04{case}}" for unit in _utf16_units(char))
            if char in characters or (non_ascii and not char.isascii())
            else json.dumps(char, ensure_ascii=False)[1:-1]
        )))
    return forms - {plain}


_BASE64_UNIT_BITS = 24
"""Bits of one unit of base64: three bytes, written as a group of four characters."""
Edges = tuple[int, int]
"""``(lead, trail)`` of an encoded form: how many characters before and after it (at most) belong
to the encoding units that carry a bit of the secret, and are hidden with it (``_Secrets._found``)."""


def _base64_core(data: bytes, offset: int, carried: tuple[int, int] | None = None) -> tuple[str, Edges]:
    """The characters made of ``data``'s bits alone when base64 writes it at byte ``offset``
    (0-2) of a group, and the ``Edges`` from them to the bounds of the groups that carry a bit of
    ``carried`` (a bit range of the encoded stream, ``data``'s own by default): the character
    before the core and the one after it hold some of its first and last bits, the other
    characters of their groups hold none but are written in the same unit (its padding too)."""
    encoded = base64.b64encode(b"\0" * offset + data).decode("ascii")
    start, end = -(-8 * offset // 6), (8 * offset + 8 * len(data)) // 6
    first_bit, end_bit = carried or (8 * offset, 8 * (offset + len(data)))
    lead = start - 4 * (first_bit // _BASE64_UNIT_BITS)
    trail = 4 * -(-end_bit // _BASE64_UNIT_BITS) - end
    return encoded[start:end], (lead, trail)


def _widen(forms: dict[str, Edges], form: str, edges: Edges) -> None:
    """``form`` into ``forms`` with the widest ``Edges`` any way of writing it gives."""
    lead, trail = forms.get(form, (0, 0))
    forms[form] = (max(lead, edges[0]), max(trail, edges[1]))


def _add_edged(forms: dict[str, Edges], core: str, edges: Edges) -> None:
    """``core`` (standard alphabet) and its URL-safe spelling into ``forms`` (``_widen``)."""
    for form in {core, core.replace("+", "-").replace("/", "_")}:
        _widen(forms, form, edges)


def _base64_cores(secret: str, encoding: str = "utf-8") -> dict[str, Edges]:
    """The characters that stand for ``secret`` in any base64 text that holds it (standard and
    URL-safe alphabets): at each of the three byte offsets it may start at, the output
    characters made of its bits alone (an HTTP Basic ``Authorization`` header holds
    ``base64(user:password)``; a tool may echo it), its bytes in ``encoding``, each with its
    ``Edges`` (``_base64_core``). Cores shorter than ``MIN_BASE64_CORE`` are left out."""
    data = secret.encode(encoding)
    cores: dict[str, Edges] = {}
    for offset in range(3):
        core, edges = _base64_core(data, offset)
        if len(core) >= MIN_BASE64_CORE:
            _add_edged(cores, core, edges)
    return cores


def _base64_twice(secret: str) -> dict[str, Edges]:
    """The characters that stand for ``secret`` in base64 of a base64 text that holds it (a
    token a service encodes again: a Basic ``Authorization`` value inside a base64 config blob, a
    Kubernetes secret's data holding a base64 key), standard and URL-safe alphabets, padded or
    not: the cores of each of its base64 cores (all lengths), at each of the three byte offsets
    the inner text may start at, with the ``Edges`` of the outer groups that carry a bit of an
    inner character that carries one of the secret's (the inner characters just before and
    after an inner core hold some of its bits). The secret as written only (its cases are three
    times the forms). A secret under about 6 characters has no core of ``MIN_BASE64_CORE``."""
    data = secret.encode("utf-8")
    forms: dict[str, Edges] = {}
    for inner_offset in range(3):
        inner = _base64_core(data, inner_offset)[0]
        # the inner characters that carry a bit of the secret: the core, and the one on each side
        # whose six bits the secret's first or last byte shares with its neighbour's
        before, after = (1 if 8 * inner_offset % 6 else 0), (1 if 8 * (inner_offset + len(data)) % 6 else 0)
        for core in {inner, inner.replace("+", "-").replace("/", "_")}:
            for offset in range(3):
                carried = (8 * (offset - before), 8 * (offset + len(core) + after))
                outer, edges = _base64_core(core.encode("ascii"), offset, carried)
                if len(outer) >= MIN_BASE64_CORE:
                    _add_edged(forms, outer, edges)
    return forms


def _base64_utf16(secret: str) -> dict[str, Edges]:
    """``_base64_cores`` of ``secret`` in UTF-16 little-endian: what PowerShell's
    ``-EncodedCommand`` and .NET's ``Encoding.Unicode`` encode a script or a value in (a tool
    that echoes the command it ran echoes the key in it)."""
    return _base64_cores(secret, "utf-16-le")


_HEX_SEPARATED = ((":", ""), ("-", ""), (",", ""), (",", "0x"), ("", "0x"))
"""How a tool lists bytes in hex with a separator: ``73:6b`` (a fingerprint, ``xxd``-like dumps),
``73-6b``, ``73,6b``, ``0x73,0x6b`` (a C or Python byte array; the spaces after the commas are
whitespace, matched anywhere) and ``0x73 0x6b``; ``73 6b`` is the plain hex with whitespace."""


def _hex_separated(secret: str) -> set[str]:
    """``secret``'s UTF-8 bytes in hex, each pair apart (``_HEX_SEPARATED``); compared folded, so
    upper-case digits (``0xDE``, ``DE:AD``) are the same form."""
    pairs = [f"{byte:02x}" for byte in secret.encode("utf-8")]
    return {separator.join(prefix + pair for pair in pairs) for separator, prefix in _HEX_SEPARATED}


def _base64_of_cases(secret: str) -> dict[str, Edges]:
    """``_base64_cores`` of ``secret`` as written, lower-cased and upper-cased: a tool or an API
    that changes a key's case before encoding it (a hex key upper-cased, a header value
    lower-cased) writes other base64 characters, which folding the text cannot undo."""
    forms: dict[str, Edges] = {}
    for case in dict.fromkeys((secret, secret.lower(), secret.upper())):
        for core, edges in _base64_cores(case).items():
            _widen(forms, core, edges)
    return forms


_SCAN_KEY_CHARS = 4
"""Characters of a form's whitespace-free text it is looked up by (at most: its shortest form's)."""
_PLAIN_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
"""Characters of a folded text common enough that a test for one of them skips no form; every
other character of a needle (an escape's ``\\``, ``&``, ``%``, ``=``, ``#``; a hex form's ``:``;
base64's ``+`` and ``/``) is tested for once a text (``in``: ``memchr``, some 50 times cheaper than
a ``find`` of a form) and, where the text lacks it, the needles holding it are skipped."""
_ESCAPE_CHARS = frozenset("\\&%=")
_ESCAPE_NEEDLE_CHARS = 8
"""Characters a needle that holds an escape's character (``_ESCAPE_CHARS``) is made of at
least, where its forms have as many: one escape written all over a JSON, HTML or URL text (``\\u00``
before each accented letter) is found at every one."""
_FIND_EACH_FORM_MAX = 1024
"""Most needles (forms that share their first ``_SCAN_KEY_CHARS`` characters: one for all of
them) searched for one by one (``str.find``: 0.15 to 0.4 ms a megabyte each); with more, each
position of the text is looked up instead (0.25 s a megabyte, whatever the number of forms)."""


_BLOCK_WIDTHS = ((8, "Q"), (4, "I"))
"""Widths (characters) of the blocks a text is cut into when many needles are left
(``_BlockIndex``), with the ``memoryview`` format that reads one block as one int: a form is
indexed at the widest ``width`` it is ``2 * width - 1`` characters long for (every place it may
stand at then holds a whole block), a shorter one keeps its needle."""
_FIND_EACH_NEEDLE_MAX = 24
"""Most needles looked for one by one (``str.find``, 0.15 to 0.4 ms a megabyte each) before the
forms of ``_BLOCK_WIDTHS`` are found by their blocks instead (one pass: 3.5 ms a megabyte for 8
characters, 7 for 4, whatever the number of forms)."""
_BLOCKS_AT_ONCE = 1 << 13
"""Blocks of a text compared at once (in C) by ``_BlockIndex.places``; it gives way between."""
_LOCATE_EACH_HIT_MAX = 32
"""Most distinct blocks found in a text that are each located with ``bytes.find``; with more,
the blocks are read one by one (in Python, 4 ms a megabyte)."""


class _BlockIndex:
    """Forms of a secret found by the blocks of ``width`` characters a text is cut into (at 0,
    ``width``, ``2 * width``...): a form of ``2 * width - 1`` characters or more that stands at
    ``p`` holds the whole block at the first multiple of ``width`` from ``p`` on, which is its
    own text from ``offset`` (below ``width``) on. Each of its ``width`` such pieces is a key (an
    int: the piece's Latin-1 bytes, a character past U+00FF as ``?``); the text's blocks are
    read as ints too (``memoryview.cast``), and one set intersection (in C) tells which blocks
    may be where a form stands, whatever the number of forms. Only there are the forms compared
    (``str.startswith``)."""

    def __init__(self, width: int, code: str, forms: list[_Form], ranks: Iterable[int]) -> None:
        self.width, self._code = width, code
        self._starts: dict[int, list[tuple[int, int]]] = {}  # key -> (rank, offset) of each form
        for rank in ranks:
            text = forms[rank].compact.encode("latin-1", "replace")
            for offset in range(width):
                key = int.from_bytes(text[offset : offset + width], sys.byteorder)
                self._starts.setdefault(key, []).append((rank, offset))
        self._keys = frozenset(self._starts)

    def places(self, compact: str, data: bytes, forms: list[_Form]) -> list[int]:
        """``position * len(forms) + rank`` of each indexed form that stands in ``compact``
        (unordered; ``data``: ``compact`` as Latin-1, ``?`` for what it cannot hold)."""
        width, ranks_count = self.width, len(forms)
        view = memoryview(data)[: len(data) // width * width].cast(self._code)
        hits: set[int] = set()
        for first in range(0, len(view), _BLOCKS_AT_ONCE):
            hits |= self._keys.intersection(view[first : first + _BLOCKS_AT_ONCE])
            give_way()  # 0.2 ms a piece
        found: list[int] = []
        for at, key in self._blocks_of(hits, data, view) if hits else ():
            for rank, offset in self._starts[key]:
                position = at - offset
                if position >= 0 and compact.startswith(forms[rank].compact, position):
                    found.append(position * ranks_count + rank)
        return found

    def _blocks_of(self, hits: set[int], data: bytes, view: memoryview) -> list[tuple[int, int]]:
        """``(index in the text, key)`` of each block of ``view`` (``data`` read as ints) that is
        one of ``hits``: few are each located with ``bytes.find``, more by reading every block."""
        width, blocks = self.width, []
        if len(hits) <= _LOCATE_EACH_HIT_MAX:
            for key in hits:
                piece, at = key.to_bytes(width, sys.byteorder), -1
                while (at := data.find(piece, at + 1)) >= 0:
                    if at % width == 0:
                        blocks.append((at, key))
                    give_way()  # a text of one repeated character holds a block at every place
            return blocks
        for number, key in enumerate(view):
            if key in hits:
                blocks.append((number * width, key))
            if number & 8191 == 8191:
                give_way()
        return blocks


def _block_indexes(forms: list[_Form]) -> tuple[list[_BlockIndex], list[int]]:
    """``forms`` indexed by their blocks (``_BLOCK_WIDTHS``, each form at the widest its length
    allows, a width only for more than ``_FIND_EACH_NEEDLE_MAX`` forms), and the ranks of the
    others."""
    indexes, short = [], list(range(len(forms)))
    for width, code in _BLOCK_WIDTHS:
        indexed = [rank for rank in short if len(forms[rank].compact) >= 2 * width - 1]
        if len(indexed) > _FIND_EACH_NEEDLE_MAX:  # fewer: their needles cost less than a pass
            indexes.append(_BlockIndex(width, code, forms, indexed))
            short = [rank for rank in short if len(forms[rank].compact) < 2 * width - 1]
    return indexes, short


_Needle = tuple[str, frozenset[str], int, dict[str, list[int]]]
"""A needle, the characters of it outside ``_PLAIN_KEY_CHARS``, and its forms by their start
(``_needles``)."""


def _shared_start(texts: list[str]) -> str:
    """The longest start every one of ``texts`` (at least one) begins with."""
    first, last = min(texts), max(texts)  # the two that differ first, in order
    if last.startswith(first):
        return first
    # the longest equal start by halves, each a comparison in C: a secret of a megabyte has forms
    # sharing a start of a megabyte (its cases, folded alike), a loop a character took seconds
    equal, differ = 0, len(first)
    while differ - equal > 1:
        middle = (equal + differ) // 2
        if last.startswith(first[:middle]):
            equal = middle
        else:
            differ = middle
    return first[:equal]


def _needles(forms: list[_Form], groups: Iterable[list[int]]) -> list[_Needle]:
    """What each group of ``forms`` (their ranks; those sharing a key) is looked for with: the
    start they all share (a longer needle skips further: one form's whole text, ``sk-00`` of 50
    keys alike), the characters of it a text may lack (``_PLAIN_KEY_CHARS``), and the group's forms
    by their first ``size`` characters (as many as its shortest has: ``\\u00`` stands before every
    escape of a JSON text, where one look-up tells which of 100 forms may start there)."""
    needles: list[_Needle] = []
    for group in groups:
        start = _shared_start([forms[rank].compact for rank in group])
        if len(group) == 1 or len(start) >= _ESCAPE_NEEDLE_CHARS or _ESCAPE_CHARS.isdisjoint(start):
            needles += _grouped_needles(forms, [group])
            continue
        # an escape's start (``\\u00``, ``&#x``, ``%``) stands all over an escaped text: a
        # longer one, each with its forms (``\\u0073\\u`` and ``\\u0053\\u``: two cases of a key)
        longer: dict[str, list[int]] = {}
        for rank in group:
            longer.setdefault(forms[rank].compact[:_ESCAPE_NEEDLE_CHARS], []).append(rank)
        needles += _grouped_needles(forms, longer.values())
    return needles


def _grouped_needles(forms: list[_Form], groups: Iterable[list[int]]) -> list[_Needle]:
    """Each of ``groups`` (ranks of ``forms``) as a needle (``_needles``)."""
    needles: list[_Needle] = []
    for ranks in groups:
        texts = [forms[rank].compact for rank in ranks]
        needle, size, by_start = _shared_start(texts), min(map(len, texts)), {}
        for rank, form_text in zip(ranks, texts, strict=True):
            by_start.setdefault(form_text[:size], []).append(rank)
        needles.append((needle, frozenset(needle) - _PLAIN_KEY_CHARS, size, by_start))
        give_way()  # a needle of megabytes (a long secret's escaped form) takes some 0.1 s
    return needles


class _Form:
    """One form of a secret (folded: ``_fold``): its text without whitespace, and the pattern it
    is matched with where whitespace stands inside a place it may be at: any whitespace between
    its words, and in a form of at most ``WRAPPED_FORM_MAX_CHARS`` any whitespace at any
    character."""

    def __init__(self, variant: str, edges: Edges = (0, 0)) -> None:
        self.lead, self.trail = edges  # characters of the units it is written in (base64's groups)
        self.words = variant.split()
        self.compact = "".join(self.words)
        self._wrappable = len(variant) <= WRAPPED_FORM_MAX_CHARS
        self._patterns: dict[bool, re.Pattern[str]] = {}

    def matches(self, text: str, start: int, end: int) -> bool:
        """Whether ``text[start:end]``, which holds ``compact`` with whitespace left out, is this
        form (its pattern built on first use: few forms are ever met)."""
        if end - start == len(self.compact):  # no whitespace inside: one word only
            return len(self.words) == 1
        if self._wrappable and len(self.words) == 1:  # any whitespace inside a token
            return True
        pattern = self._patterns.get(self._wrappable)
        if pattern is None:
            pattern = re.compile("\\s+".join(map(_wrappable if self._wrappable else re.escape, self.words)))
            self._patterns[self._wrappable] = pattern
        return pattern.fullmatch(text, start, end) is not None


_UNIT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789+/-_")
"""The characters of a base64 group (either alphabet, as folded: lower case) before its padding."""


def _unit_bounds(text: str, start: int, end: int, form: _Form, written: int,
                 stops: Collection[int] = ()) -> tuple[int, int]:
    """``(start, end)`` of ``form`` found at ``text[start:end]`` (folded), widened to the whole
    encoding units it is written in: up to ``form.lead`` characters of a base64 group before it
    (not before ``written``, the end of the form found before) and ``form.trail`` after it,
    padding included, so no character left beside ``[REDACTED]`` carries a bit of the secret. A
    character that cannot be part of the group (whitespace, a quote: the encoded text ends
    there) ends the widening; a line break does not where the line it leaves is base64 alone
    (``_wrapped``: a block wrapped at a width that is no multiple of four puts a group's last
    characters on the next line). Nor does it cross a place of ``stops`` (in a decoded text, where
    an escape that stands for nothing was: a base64 block's ``=`` padding before a line break,
    read as a quoted-printable soft line break, took the next line's first character)."""
    for _ in range(form.lead):
        if start in stops:
            break
        at = start - 1
        if at > written and text[at] == "\n" and _wrapped(text, start, forward=True):
            at -= 2 if text[at - 1] == "\r" and at - 1 > written else 1
        if at < written or at < 0 or text[at] not in _UNIT_CHARS:
            break
        start = at
    padding = False
    for _ in range(form.trail):
        if end in stops:
            break
        at = end
        if text[at : at + 1] in _BREAKS and _wrapped(text, end, forward=False):
            at += 2 if text[at : at + 2] == "\r\n" else 1
        char = text[at : at + 1]
        if char == "=":
            padding = True
        elif padding or char not in _UNIT_CHARS:
            break
        end = at + 1
    return start, end


_BREAKS = frozenset(("\n", "\r"))
_WRAPPED_LINE_MAX = 256
"""Characters of a line ``_wrapped`` reads (a wrapped base64 block's lines are 64 or 76)."""
_UNIT_LINE = re.compile(r"[a-z0-9+/_-]+=*")


def _wrapped(text: str, at: int, *, forward: bool) -> bool:
    """Whether the line of ``text`` (folded) that holds ``at`` is base64 characters alone, from
    ``at`` to its end (``forward``) or from its start to ``at``: a line of a wrapped block, not
    ``Basic <key>`` before a header on the next line."""
    if forward:
        stop = text.find("\n", at, at + _WRAPPED_LINE_MAX)
        stop = len(text) if stop < 0 and len(text) - at <= _WRAPPED_LINE_MAX else stop
        line = text[at:stop].rstrip("\r") if stop >= 0 else ""
    else:
        begin = text.rfind("\n", max(0, at - _WRAPPED_LINE_MAX), at) + 1
        line = text[begin:at] if begin or at <= _WRAPPED_LINE_MAX else ""
    return _UNIT_LINE.fullmatch(line) is not None


_LAYOUT_BLOCK_CHARS = 1024
"""Characters of a text counted at once (in C) by ``_Layout``; only the blocks where a form was
found are read run by run."""
_NON_SPACE_RUN = re.compile(r"\S+")


class _Layout:
    """Positions in a text's whitespace-free copy mapped back to the text: the non-whitespace
    characters of each block of ``_LAYOUT_BLOCK_CHARS`` counted first, then the runs of the
    blocks asked about (a text of megabytes with one secret in it reads one block)."""

    def __init__(self, text: str, compact: str) -> None:
        self._text = text
        self._same = len(compact) == len(text)  # no whitespace at all
        self._before: list[int] | None = None  # non-whitespace characters before each block
        self._runs: dict[int, tuple[list[int], list[int]]] = {}  # block -> its runs' starts, offsets

    def index(self, position: int) -> int:
        """The index in the text of the compact copy's character ``position`` (which exists)."""
        if self._same:
            return position
        before = self._before
        if before is None:
            before, size = [0], _LAYOUT_BLOCK_CHARS
            for start in range(0, len(self._text), size):
                before.append(before[-1] + len("".join(self._text[start : start + size].split())))
                give_way()
            self._before = before
        block = bisect.bisect_right(before, position) - 1
        runs = self._runs.get(block)
        if runs is None:
            start, offset, starts, offsets = block * _LAYOUT_BLOCK_CHARS, before[block], [], []
            for run in _NON_SPACE_RUN.finditer(self._text, start, start + _LAYOUT_BLOCK_CHARS):
                starts.append(run.start())
                offsets.append(offset)
                offset += run.end() - run.start()
            runs = self._runs[block] = (starts, offsets)
        starts, offsets = runs
        at = bisect.bisect_right(offsets, position) - 1
        return starts[at] + position - offsets[at]


def _normal_forms(secrets: Iterable[object]) -> list[object]:
    """``secrets`` with, after each that is not ASCII, the forms a tool may write it in where
    they differ from it, each a secret with all its forms: its NFC and NFD forms (``é``
    decomposed, as ``e`` and U+0301, or composed); its NFKC form (a ligature ``ﬁ`` or a
    full-width letter pasted into the node, written plainly by the tool); the value without its
    invisible format characters (a zero-width space or soft hyphen pasted inside a key made it two
    words, which the text then needed whitespace between); and the value upper-cased where that
    is not one letter for one (``ß`` is ``SS``: an error message that upper-cases the key). An
    ASCII secret is its own normal form (one test, no copy)."""
    out: list[object] = []
    for secret in secrets:
        out.append(secret)
        if isinstance(secret, str) and not secret.isascii():
            visible = "".join(char for char in secret if unicodedata.category(char) != "Cf")
            upper = secret.upper()
            forms = [unicodedata.normalize(f, text) for text in dict.fromkeys((secret, visible)) for f in _NORMAL]
            if len(upper) != len(secret):
                forms.append(upper)
            out += [n for n in dict.fromkeys([visible, *forms]) if n != secret and n.strip()]
    return out


_NORMAL = ("NFC", "NFD", "NFKC")


_LIGATURES = (("ffi", "\ufb03"), ("ffl", "\ufb04"), ("ff", "\ufb00"), ("fi", "\ufb01"), ("fl", "\ufb02"))
"""Latin ligatures a PDF's text layer writes for letter pairs (U+FB00-FB04), longest first."""


def _ligatured(secret: str) -> set[str]:
    """``secret`` lower-cased with each ``ff``, ``fi``, ``fl``, ``ffi``, ``ffl`` written as its
    ligature (text copied out of a PDF set in a font that joins them), as written and
    JSON-escaped (``\\ufb01``; no encodings of it: no tool encodes a PDF's ligatures); an empty
    set when it has no such pair."""
    lowered = secret.lower()
    if "f" not in lowered:
        return set()
    for pair, ligature in _LIGATURES:
        lowered = lowered.replace(pair, ligature)
    if not any(ligature in lowered for _, ligature in _LIGATURES):
        return set()
    return {lowered, json.dumps(lowered)[1:-1]}


_LATIN_WITH_LOOKALIKES = frozenset(_OTHER_SCRIPT_LOOKALIKES.values())


def _written_as_a_word(token: str) -> bool:
    """Whether ``token`` (look-alike letters and marks) is written as a word of a language is:
    its letters all Cyrillic or all Greek, and all lower case, all upper case, or the first one
    upper case and the rest lower (``текст``, ``Текст``, ``ТЕКСТ``; not ``тЕкСт``, nor Cyrillic
    and Greek mixed). A key under ``LOOKALIKE_IN_WORD_MIN`` letters written so is not read as
    the key: short keys of these letters are spelt by ordinary words (``текст`` by ``tekct``), and
    hiding such a word in Russian or Greek text would garble it and tell a reader the key."""
    letters = "".join(filter(str.isalpha, token))
    if not letters or not (all(char < "\u0400" for char in letters) or all(char >= "\u0400" for char in letters)):
        return False
    return letters.islower() or letters.isupper() or (letters[0].isupper() and letters[1:].islower())


class _LookalikeTokens:
    """A secret written wholly in look-alike letters of another script (``ѕесrеt`` all Cyrillic,
    no Latin letter or digit beside it: ``_fold`` leaves such words as they are, Russian and
    Greek prose among them). A token of the text made only of look-alike letters (and the
    punctuation the secrets hold), as long as a secret, is written in Latin letters when that
    gives the secret (folded); every other token is left as it is. The regex engine finds such
    tokens in C (it skips to a look-alike letter and tests the one before it), so a text costs a
    Python call only for a whole token of look-alikes as long as a secret."""

    def __init__(self, compact_forms: Iterable[str]) -> None:
        # each form's distinct characters tested (a form of a megabyte has a few dozen)
        words = {form for form in compact_forms if len(form) >= MIN_SECRET_LENGTH and form.isascii()
                 and any(char.isalpha() for char in set(form))
                 and all(char in _LATIN_WITH_LOOKALIKES or not char.isalnum() for char in set(form))}
        self._words = words
        self._long = sorted((word for word in words if len(word) >= LOOKALIKE_IN_WORD_MIN), key=len, reverse=True)
        self._patterns: tuple[re.Pattern[str], ...] | None = None
        self._sources: tuple[str, str, str] | None = None
        self._marks = ""
        if not words:
            return
        self._marks = "".join(sorted({char for word in words for char in word if not char.isalnum()}))
        # a token is bounded by what is not a letter or digit ("_" bounds it too: ``x_key``)
        token, edge = f"[{_LOOKALIKE_CHARS}{re.escape(self._marks)}]", "[^\\W_]"
        least, most = min(map(len, words)), max(map(len, words))
        in_word = min(map(len, self._long), default=0)
        # compiled when first needed (a text with look-alike letters: few are); a run inside a
        # word, and one that ends a text after a letter, only for a secret of ``LOOKALIKE_IN_WORD_MIN``
        self._sources = (f"[{_LOOKALIKE_CHARS}](?<!{edge}.){token}{{{least - 1},{most - 1}}}(?!{edge})",
                         f"{'' if in_word else f'(?<!{edge})'}[{_LOOKALIKE_CHARS}]{token}*\\Z",
                         f"[{_LOOKALIKE_CHARS}]{token}{{{in_word - 1},}}" if in_word else "")

    def _compiled(self) -> tuple[re.Pattern[str], ...]:
        if self._patterns is None:
            self._patterns = tuple(map(re.compile, self._sources))
        return self._patterns

    def as_latin(self, text: str) -> str:
        """``text`` with each whole token of look-alike letters that spells a secret written in
        Latin letters, one for one (a place in it is the same place in ``text``)."""
        if self._sources is None or text.isascii() or not _OTHER_SCRIPT.search(text):
            return text
        pieces, written = [], 0
        for match in self._compiled()[0].finditer(text):
            latin = match.group().translate(_AS_LATIN).lower()
            start = match.start()
            if latin not in self._words:  # a mark a secret holds may end a sentence or open a list
                bare = latin.strip(self._marks)
                if bare not in self._words:
                    continue
                start += latin.index(bare)
                latin = bare
            if len(latin) < LOOKALIKE_IN_WORD_MIN and _written_as_a_word(text[start : start + len(latin)]):
                continue
            pieces += (text[written:start], latin)
            written = start + len(latin)
        text = "".join([*pieces, text[written:]]) if pieces else text
        return self._in_words(text) if self._long else text

    def _in_words(self, text: str) -> str:
        """``text`` with each secret of ``LOOKALIKE_IN_WORD_MIN`` characters or more spelt by the
        look-alike letters of a run inside a longer word (``ключсһеарѕкаtе``) written in Latin
        letters, one for one; every other letter as it is."""
        pieces, written = [], 0
        for match in self._compiled()[2].finditer(text):
            latin = match.group().translate(_AS_LATIN).lower()
            at = 0
            while at < len(latin):  # the longest secret at the first place one stands
                places = [(found, word) for word in self._long if (found := latin.find(word, at)) >= 0]
                if not places:
                    break
                found, word = min(places, key=lambda place: (place[0], -len(place[1])))
                pieces += (text[written : match.start() + found], word)
                written = match.start() + found + len(word)
                at = found + len(word)
        return "".join([*pieces, text[written:]]) if pieces else text

    def end_as_latin(self, text: str) -> str:
        """``text`` (the end of a streamed piece) with a token of look-alike letters that ends it
        written in Latin letters: it may be the start of a secret the next piece finishes."""
        if self._sources is None or text.isascii() or not _OTHER_SCRIPT.search(text):
            return text
        match = self._compiled()[1].search(text)  # after a letter too when a secret may stand in a word
        if match is None:
            return text
        return text[: match.start()] + match.group().translate(_AS_LATIN).lower()


def _decodings(text: str, matters: Callable[[Collection[str], bool], bool] | None = None,
               ) -> Iterator[tuple[str, list[_Unescaped]]]:
    """``text`` with its escapes decoded (``_Unescaped``), once and again up to
    ``_DECODE_LEVELS`` times while escapes are left (a JSON text quoted inside another:
    ``\\\\u002d``), and each of those and ``text`` with its CSS escapes decoded (a CSS text in a
    JSON string): each as ``(decoded, levels)``, the decoders to map a place in it back through,
    in order. Nothing for a text without escapes. With ``matters`` (``(the decoded values of a
    level's escapes, whether CSS) -> bool``), a level whose escapes decode to nothing that
    matters is not given (it is still decoded further: a later level may be)."""
    levels: list[_Unescaped] = []
    decoded = text
    while True:
        if _CSS_ESCAPE_MARK.search(decoded):
            css = _Unescaped(decoded, css=True)
            if css.text != decoded and (matters is None or matters(css.values, True)):
                yield css.text, [*levels, css]
        if len(levels) == _DECODE_LEVELS or not _has_escape_mark(decoded):
            return
        level = _Unescaped(decoded)
        if level.text == decoded:
            return
        levels.append(level)
        decoded = level.text
        if matters is None or matters(level.values, False):
            yield decoded, list(levels)


_OPENS_MORE = frozenset("\\%&=#<>\x1b")
"""Characters a decoded escape may stand for that make more of a text read differently: the start
of an escape of the next level (``%252D``, ``&amp;#45;``, ``\\\\u002d``) or of highlighting
markup (``_MARKUP``)."""


class _Secrets:
    """The secret values of a call and what hides them: ``redact`` replaces every occurrence by
    ``[REDACTED]``, whatever whitespace stands between its words (a tool or an error message
    may have reflowed it), a line break anywhere in a form of at most ``WRAPPED_FORM_MAX_CHARS``
    (a wrapped token), and in its
    JSON-escaped (``\\/`` too), URL-encoded (also twice), HTML-escaped, escaped in every
    character (``_escaped_every_character``: ``\\u0043``, ``\\x43``, ``&#67;``, ``%43``) and base64 forms
    (``_base64_cores``, for a value of at most ``WRAPPED_FORM_MAX_CHARS``); ``mask_cut_edge``
    hides the start of a secret left at the end of a text that was cut; ``holds`` tells whether
    a text (a link, a file name) contains one, ``in_bytes`` whether a file's content does."""

    def __init__(self, secrets: Collection[str]) -> None:
        variants: set[str] = set()
        edges: dict[str, Edges] = {}  # a base64 form's characters beside it in the units it is written in
        for secret in _normal_forms(secrets or ()):
            if not isinstance(secret, str) or len(secret.strip()) < MIN_SECRET_LENGTH:
                continue
            quoted = _url_encoded(secret)
            escaped = {json.dumps(secret, ensure_ascii=False)[1:-1], json.dumps(secret)[1:-1]}
            escaped |= {e.replace("/", "\\/") for e in escaped}  # JSON's optional "\/" (PHP's default)
            escaped |= _json_html_safe(secret)  # Go's, Gson's and .NET's encoders: "<" as \u003c
            marked_up = {html.escape(secret), html.escape(secret, quote=False)}
            twice = {urllib.parse.quote(q, safe="") for q in quoted if "%" in q}  # a URL inside a URL's query
            encoded = set()
            if len(secret) <= WRAPPED_FORM_MAX_CHARS:
                for cores in (_base64_of_cases(secret), _base64_twice(secret), _base64_utf16(secret)):
                    for core, core_edges in cores.items():
                        _widen(edges, core, core_edges)
                    encoded |= cores.keys()
                encoded |= _hex_separated(secret)
            variants |= {secret, *escaped, *quoted, *marked_up, *twice, *encoded, *_escaped_every_character(secret)}
            variants |= _ligatured(secret)
            give_way()  # hundreds of secrets
        # a file's bytes are compared lower-cased (ASCII only), as each form is written and folded
        self._encoded = sorted({v.encode("utf-8").lower() for v in variants | {_fold(v) for v in variants} if v.strip()},
                               key=len, reverse=True)
        # compared with folded text (``_fold``)
        variants = {folded for variant in variants for folded in _folded_in_place(variant)}
        folded_edges: dict[str, Edges] = {}
        for variant, variant_edges in edges.items():
            for folded in _folded_in_place(variant):
                _widen(folded_edges, folded, variant_edges)
        # the longest first; of two as long, the one that hides more text, then a fixed order (a
        # set's order changes from one process to the next: what is hidden must not)
        self._variants = sorted(variants, key=lambda v: (-len(v), -len("".join(v.split())), v))
        self._forms: list[_Form] = []
        for variant in self._variants:
            if variant.split():
                self._forms.append(_Form(variant, folded_edges.get(variant, (0, 0))))
                give_way()  # thousands of forms
        # where each form may start: the first characters of its text without whitespace
        self._key_chars = min((len(form.compact) for form in self._forms), default=1)
        self._key_chars = min(self._key_chars, _SCAN_KEY_CHARS)
        self._by_key: dict[str, list[int]] = {}
        for rank, form in enumerate(self._forms):
            self._by_key.setdefault(form.compact[: self._key_chars], []).append(rank)
        self._needles = _needles(self._forms, self._by_key.values())
        self._marks = frozenset().union(*(marks for _, marks, _, _ in self._needles))
        # many needles left (secrets that share no start): the forms long enough found by their
        # blocks, the others (``_short_needles``) by their needles
        self._blocks, short = _block_indexes(self._forms)
        self._short_by_key: dict[str, list[int]] = {}
        for rank in short:
            self._short_by_key.setdefault(self._forms[rank].compact[: self._key_chars], []).append(rank)
        self._short_needles = _needles(self._forms, self._short_by_key.values())
        # each variant without its whitespace (see mask_cut_edge)
        self._compact = sorted({"".join(v.split()) for v in self._variants if v.strip()}, key=len, reverse=True)
        # how far back from a text's end a start of a form may reach: enough for any reflowed form
        self._reach = 4 * len(self._compact[0]) + 16 if self._compact else 0
        self._index_starts()
        self._tokens = _LookalikeTokens(self._compact)
        self._lead = max((form.lead for form in self._forms), default=0)  # a unit's characters before a form
        # every character a form holds (``_escapes_matter``): one written escaped may be part of it
        self._readable = frozenset("".join(self._variants))

    def _index_starts(self) -> None:
        """Where a start of a variant may stand (``_start_at_end``): the variants' first two
        characters (``_heads``), the variants by their first ``_start_key`` characters
        (``_starts_by_key``) and those keys' own shorter starts (``_key_starts``; a first
        character alone: ``_lone_starts``)."""
        self._start_key = min(_SCAN_KEY_CHARS, *map(len, self._compact)) if self._compact else 1
        self._starts_by_key: dict[str, list[str]] = {}
        for variant in self._compact:
            self._starts_by_key.setdefault(variant[: self._start_key], []).append(variant)
        self._lone_starts = frozenset(variant[0] for variant in self._compact if len(variant) > 1)
        self._key_starts = frozenset(key[:size] for key in self._starts_by_key for size in range(1, self._start_key))
        self._first_chars: re.Pattern[str] | None = None  # compiled when first needed (_heads)

    def _heads(self) -> re.Pattern[str]:
        """Where a variant's first two characters stand (a lookahead: overlapping places too),
        compiled on the first call: building the forms compiles nothing (hundreds of secrets)."""
        if self._first_chars is None:
            seconds: dict[str, set[str]] = {}
            for variant in self._compact:
                seconds.setdefault(variant[0], set()).add(variant[1:2])
            heads = [re.escape(first) + (f"[{re.escape(''.join(sorted(after)))}]" if "" not in after else "")
                     for first, after in sorted(seconds.items())]
            self._first_chars = re.compile(f"(?={'|'.join(heads)})" if heads else "(?!)")
        return self._first_chars

    def _escapes_matter(self, values: Collection[str], css: bool) -> bool:
        """Whether escapes that decode to ``values`` may make a text spell a secret it did not:
        one stands for a character of any form of a secret (``_readable``: hex written with
        ``%3A`` for its colons too; look-alike letters read as Latin), for whitespace or nothing
        (a secret wrapped or split by an escaped line break: not in CSS, where ``\\a`` or
        ``\\A0`` inside a key is no writer's form), or for a character that opens more
        (``_OPENS_MORE``). Icon-font CSS (``\\f101``), accented letters and quotes of a JSON text
        do not: that level is not searched (decoding it cost a second search of the text)."""
        if not values:
            return False
        folded = _fold("".join(values).translate(_AS_LATIN))
        if not self._readable.isdisjoint(folded) or not _OPENS_MORE.isdisjoint(folded):
            return True
        return not css and ("" in values or len("".join(folded.split())) != len(folded))

    def __bool__(self) -> bool:
        return bool(self._forms)

    @property
    def reach(self) -> int:
        """How far back from a text's end (characters) ``pending_start`` looks for a start of a
        secret: the end of a text this long decides it."""
        return self._reach

    def redact(self, text: str, keep: Sequence[tuple[int, int]] = ()) -> str:
        """``text`` with every form of a secret replaced by ``[REDACTED]``; one that lies wholly
        inside a span of ``keep`` (``(start, end)`` in order: the plugin's own words,
        ``agent_core.own_text``) is left as written (``_outside``)."""
        if not text or not self._forms:
            return text
        spans = self._spans(text)
        if keep and spans:
            spans = self._outside(text, spans, keep)
        pieces, written = [], 0
        for start, end in spans:
            pieces += (text[written:start], REDACTED)
            written = end
        return "".join([*pieces, text[written:]]) if pieces else text

    def _outside(self, text: str, spans: list[tuple[int, int]],
                 keep: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
        """``spans`` (found in ``text``) less those wholly inside a span of ``keep``. Forms are
        found left to right, a form overlapping the place found before widening it (``_found``),
        so a form of a secret whose end repeats its start (``abcab``) that starts inside a kept
        one and goes on past ``keep`` makes one span with it, hidden whole. As a second guard
        (decoded levels are searched apart), the text from a kept form's second character to
        ``reach`` past its own span is searched again when text not the plugin's follows within
        ``reach``, and a form found there starting inside the kept one is hidden unless it is
        wholly inside ``keep`` too."""
        ends = [end for _, end in keep]
        starts = [start for start, _ in keep]

        def inside(start: int, end: int) -> int | None:
            at = bisect.bisect_right(starts, start) - 1
            return at if at >= 0 and end <= ends[at] else None

        hidden: list[tuple[int, int]] = []
        queue, seen = list(spans), set(spans)
        while queue:
            start, end = queue.pop()
            at = inside(start, end)
            if at is None:
                hidden.append((start, end))
                continue
            window_end = min(len(text), ends[at] + self._reach)
            if window_end <= ends[at] or ends[at] - end >= self._reach:
                continue  # no form starting inside this one reaches past the plugin's text
            # only forms starting inside this one: the scan found those after it
            for a, b in self._spans(text[start + 1 : window_end]):
                if start + 1 + a < end and (found := (start + 1 + a, start + 1 + b)) not in seen:
                    seen.add(found)
                    queue.append(found)
        return _merged(hidden)

    def _spans(self, text: str) -> list[tuple[int, int]]:
        """``(start, end)`` in ``text`` of each form of a secret, in order, none overlapping: as
        written (``_found``) and with its escapes decoded (up to ``_DECODE_LEVELS`` times)."""
        spans = list(self._found(text))
        decoded_any = False
        for decoded, levels in _decodings(text, self._escapes_matter):
            decoded_any = True
            for start, end in self._found(decoded, levels[-1].vanished()):
                for back in reversed(levels):
                    start, end = back.span(start, end)
                spans.append((start, end))
        return _merged(spans) if decoded_any else spans

    def holds(self, text: str) -> bool:
        if not text or not self._forms:
            return False
        if next(self._found(text), None) is not None:
            return True
        return any(next(self._found(decoded), None) is not None for decoded, _ in _decodings(text, self._escapes_matter))

    def _found(self, text: str, stops: Collection[int] = ()) -> Iterator[tuple[int, int]]:
        """``(start, end)`` of each form found in ``text``, left to right, none overlapping the
        one before: at each place the first form of ``_variants`` (the longest first) that
        matches there, as ``re.sub`` with one alternation of every form's pattern would find
        them. That alternation cost its compile (some 3 µs a pattern character: 95 s for 500
        secrets of up to 40 characters, every form with a line break allowed at each character)
        and, on every character of a text, a try of every form (50 µs a character); here each
        form is looked for where its first ``_SCAN_KEY_CHARS`` characters stand in the text
        without whitespace, and its own pattern is tried only there, when whitespace stands
        inside the place (``_Form.matches``). ``text`` is compared folded (``_fold``): upper-cased,
        full-width or with a zero-width character inside, a secret is found all the same."""
        text = _fold(self._tokens.as_latin(text))
        give_way()  # each pass over a text of megabytes takes tens of milliseconds
        compact = _without_whitespace(text)
        give_way()
        candidates = self._candidates(compact)
        if not candidates:
            return
        layout = _Layout(text, compact)
        written = reached = 0  # the end of the place found last, in ``text`` and in ``compact``
        found: tuple[int, int] | None = None  # that place, not yielded while a form may widen it
        for number in candidates:
            give_way()  # tens of thousands of places where a form may stand
            position, rank = divmod(number, len(self._forms))
            form = self._forms[rank]
            if position + len(form.compact) <= reached:  # inside the place found before
                continue
            start = layout.index(position)
            end = layout.index(position + len(form.compact) - 1) + 1
            if not form.matches(text, start, end):
                continue
            if form.lead or form.trail:
                start, end = _unit_bounds(text, start, end, form, written, stops)
            reached = position + len(form.compact)
            if found is not None and start < written:
                # a form that overlaps the place found before widens it: two secrets that share
                # characters, or a key of a repeated character whose base64 of one alignment
                # ended a group early (``MQ==`` of ``1111111111`` was left after the marker)
                found = (found[0], max(written, end))
            else:
                if found is not None:
                    yield found
                found = (start, end)
            written = found[1]
        if found is not None:
            yield found

    def _candidates(self, compact: str) -> list[int]:
        """``position * len(_forms) + rank`` of every form whose whitespace-free text stands at
        ``position`` of ``compact``, in order (by position, then rank). First the needles holding
        a character ``compact`` lacks are left out (one ``in`` a character: ``_marks``). Few
        needles left (``_FIND_EACH_NEEDLE_MAX``): each is found with ``str.find`` (in C) and the
        forms of its group are compared where it stands; more (secrets that share no start): the
        forms long enough are found by the blocks of the text (``_BlockIndex``: one pass whatever
        their number) and only the shorter ones' needles are looked for. One int each, not a
        tuple: tens of thousands of tuples set off the garbage collector's full passes."""
        absent = {mark for mark in self._marks if mark not in compact}
        needles = [entry for entry in self._needles if absent.isdisjoint(entry[1])] if absent else self._needles
        if len(needles) <= _FIND_EACH_NEEDLE_MAX or not self._blocks:
            found = self._needle_places(compact, needles, self._by_key)
        else:
            data = compact.encode("latin-1", "replace")
            found = []
            for index in self._blocks:
                found += index.places(compact, data, self._forms)
            short = self._short_needles
            if absent:
                short = [entry for entry in short if absent.isdisjoint(entry[1])]
            found += self._needle_places(compact, short, self._short_by_key)
        found.sort()
        return found

    def _needle_places(self, compact: str, needles: list[_Needle], by_key: dict[str, list[int]]) -> list[int]:
        """``position * len(_forms) + rank`` of every form of ``needles`` (all of whose forms
        are those of ``by_key``) that stands in ``compact``, unordered: each needle found with
        ``str.find`` (up to ``_FIND_EACH_FORM_MAX`` of them), else every position's first
        characters looked up (one dictionary look-up a character, whatever the number of forms)."""
        found: list[int] = []
        ranks_count = len(self._forms)
        forms = self._forms
        if len(needles) <= _FIND_EACH_FORM_MAX:
            for needle, _, size, by_start in needles:
                give_way()  # each find reads all of ``compact``: 2 ms a needle on 5 MB
                at = compact.find(needle)
                while at >= 0:
                    ranks = by_start.get(compact[at : at + size])
                    if ranks:
                        found += (at * ranks_count + rank for rank in ranks if compact.startswith(forms[rank].compact, at))
                    at = compact.find(needle, at + 1)
                    give_way()  # a text of one repeated character holds a form at every place
        elif needles:
            size, lookup = self._key_chars, by_key.get
            for at in range(len(compact) - size + 1):
                ranks = lookup(compact[at : at + size])
                if ranks:
                    found += (at * ranks_count + rank for rank in ranks if compact.startswith(forms[rank].compact, at))
                if at & 8191 == 8191:
                    give_way()
        return found

    def unit_start(self, text: str, start: int) -> int:
        """``start`` (a place in ``text``), moved back over the characters of an encoding unit a
        form beginning there would take with it (up to the widest lead of a base64 form:
        ``_unit_bounds``): a stream holds them back until the next piece tells whether the form
        follows."""
        floor = max(0, start - self._lead)
        while start > floor and text[start - 1].lower() in _UNIT_CHARS:
            start -= 1
        return start

    def open_end(self, text: str) -> int:
        """Where in ``text`` a form of a secret found at its very end begins, else ``len(text)``:
        a streamed text goes on in the next piece, which may hold the rest of the form's last
        encoding unit (the characters of a base64 group after the key's own: ``_unit_bounds``)
        or of its last escape (the ``;`` after ``&#49``, which the whole text hides with it)."""
        spans = self._spans(text) if text and self._forms else []
        return spans[-1][0] if spans and spans[-1][1] == len(text) else len(text)

    def in_bytes(self, data: bytes) -> bool:
        """Whether ``data`` (a file's content) holds a secret as UTF-8 text (ASCII letters in
        either case)."""
        if not data:
            return False
        lowered = data.lower()
        return any(variant in lowered for variant in self._encoded)

    def pending_start(self, text: str) -> int:
        """Where in ``text`` a start of a secret that ends it begins (one character or more, not
        counting whitespace: a form of a secret may go on in the next piece of a stream), also
        with some of its characters escaped (up to ``_DECODE_LEVELS`` times), or an escape cut at
        the end (``&#4``, ``\\u00``, ``&amp;amp``: the next piece may finish it), else
        ``len(text)``. A start of a secret followed by highlighting markup the end cut
        (``<em``, ``\x1b[01;3``: ``_MARKUP``) counts as ending the text."""
        start = self._start_at_end(text, 1)
        cut = _PARTIAL_MARKUP.search(text, max(0, len(text) - _PARTIAL_MARKUP_MAX))
        if cut and (before := self._start_at_end(text[: cut.start()], 1)) < cut.start():
            start = min(start, before)
        tail_start = max(0, len(text) - self._reach)
        if not self._compact or not _ESCAPE_MARKS.search(text, tail_start):
            return start
        body, levels = text[tail_start:], []  # the tail, then decoded once more each level
        while True:
            partial = _PARTIAL_ESCAPE.search(body)  # a cut escape; decoded, ``&amp;amp`` ends in one too
            head = body[: partial.start()] if partial else body
            at = self._start_at_end(head, 1)  # a start before it, else the cut escape itself
            if _CSS_ESCAPE_MARK.search(head):  # a start with CSS escapes in it
                css = _Unescaped(head, css=True)
                css_at = self._start_at_end(css.text, 1)
                at = min(at, css.span(css_at, css_at + 1)[0]) if css_at < len(css.text) else at
            if at < len(body):
                for back in reversed(levels):
                    at = back.span(at, at + 1)[0]
                start = min(start, tail_start + at)
            if len(levels) == _DECODE_LEVELS or not _ESCAPE_MARKS.search(head):
                return start
            level = _Unescaped(head)
            if level.text == head:
                return start
            levels.append(level)
            body = level.text

    def _start_at_end(self, text: str, least: int) -> int:
        """Where in ``text`` the longest start of a form of a secret that ends it begins, counting
        ``least`` characters or more without whitespace (a start may have been reflowed or wrapped
        across lines), else ``len(text)``."""
        if not text or not self._compact:
            return len(text)
        tail_start = max(0, len(text) - self._reach)
        compact, index = _compact(_fold(self._tokens.end_as_latin(text[tail_start:])))
        # the longest start is the one that begins first: the places where a variant's first
        # character stands are tried in order (found in C), each only against the variants whose
        # first ``_start_key`` characters stand there; the first place a proper start of one
        # fills to the end wins. Trying every length of every variant against the end cost
        # (variants x length) slices and compares a call: 4-20 ms a streamed piece.
        size, key = len(compact), self._start_key
        groups = self._starts_by_key
        for found in self._heads().finditer(compact, max(0, size - len(self._compact[0]) + 1)):
            at = found.start()
            rest = size - at
            if rest < least:
                break
            if rest < key:
                if compact[at:] in self._key_starts:
                    return tail_start + index[at]
                continue
            group = groups.get(compact[at : at + key])
            if group is None:
                continue
            tail = compact[at:]
            for variant in group:
                if len(variant) > rest and variant.startswith(tail):
                    return tail_start + index[at]
        # the last character alone (no second one for ``_first_chars`` to see)
        if least <= 1 <= size and compact[-1] in self._lone_starts:
            return tail_start + index[size - 1]
        return len(text)

    def spaced_after(self, start: str) -> bool:
        """Whether a form of a secret that begins with ``start`` (compared without whitespace: a
        start ``pending_start`` found) has whitespace right after it: ``start`` ends one of its
        words, not the last (a passphrase cut between two words goes on after a space)."""
        head = "".join(_fold(start).split())
        if not head:
            return False
        for form in self._forms:
            if len(form.words) > 1 and form.compact.startswith(head):
                size = 0
                for word in form.words[:-1]:
                    size += len(word)
                    if size >= len(head):
                        break
                if size == len(head):
                    return True
        return False

    def mask_cut_edge(self, text: str, *, suffix: str = "") -> str:
        """``text`` (which was cut, and ends with ``suffix``) with a trailing start of a secret
        of at least ``MIN_SECRET_EDGE`` characters (not counting whitespace) replaced by
        ``[REDACTED]``, whatever whitespace stands in it (the text may have been reflowed, or
        the secret wrapped across lines, before it was cut)."""
        body = text[: len(text) - len(suffix)] if suffix and text.endswith(suffix) else text
        cut = self._start_at_end(body, MIN_SECRET_EDGE)
        if cut == len(body):
            cut = self._escaped_start_at_end(body)
        if cut == len(body):
            return text
        return body[: self._group_start(body, cut)] + REDACTED + text[len(body) :]

    def mask_split(self, previous: str, text: str, *, alone: bool = True) -> tuple[str, str]:
        """``(previous, text)``, two texts of one result written apart (a tool's output, then the
        error it failed with; two of its text messages with a link or JSON between), with a
        secret that ``previous`` begins at its end and ``text`` goes on with at the start of one
        of its words (within its first ``SPLIT_HEAD_CHARS`` characters) hidden in both: the start
        in ``previous`` (with its base64 group's lead) and the rest in ``text`` (as
        ``mask_continued_head`` hides it) each become ``[REDACTED]``. A rest of under
        ``MIN_SECRET_EDGE`` characters is no rest (one letter of a word may finish a key by
        chance). When ``text`` holds no rest and ``alone``, a start of at least
        ``MIN_SECRET_EDGE`` characters ending ``previous`` is hidden still (``mask_cut_edge``:
        the failure cut the output inside it). Costs one search of ``previous``'s tail, and only
        when that ends with a start of a secret one search a word start."""
        if not previous or not text or not self._forms:
            return previous, text
        start = self._start_at_end(previous, 1)
        if start == len(previous):
            return previous, text
        for found in _WORD_START.finditer(text, 0, SPLIT_HEAD_CHARS):
            part = text[found.start() :]
            masked = self.mask_continued_head(previous, part)
            rest = part[: len(part) - len(masked) + len(REDACTED)]
            if masked != part and len("".join(rest.split())) >= MIN_SECRET_EDGE:
                return previous[: self._group_start(previous, start)] + REDACTED, text[: found.start()] + masked
        return (self.mask_cut_edge(previous) if alone else previous), text

    def _escaped_start_at_end(self, text: str) -> int:
        """Where in ``text`` a start of a secret that ends it begins with some of its characters
        escaped in a way no form spells (``&#x0053;&#x0045;``: the zero-padded references are
        found decoded only) of at least ``MIN_SECRET_EDGE`` characters as written (whitespace
        not counted), maybe followed by an escape the end cut (``&#x00``), else ``len(text)``.
        An escape cut at the end with no start before it is no start (``&amp`` ends many a
        text)."""
        if not text or not self._compact or not _ESCAPE_MARKS.search(text, max(0, len(text) - self._reach)):
            return len(text)
        partial = _PARTIAL_ESCAPE.search(text, max(0, len(text) - _PARTIAL_ESCAPE_MAX))
        head = text[: partial.start()] if partial else text
        start = self.pending_start(head)
        if start == len(head) or len("".join(head[start:].split())) < MIN_SECRET_EDGE:
            return len(text)
        return start

    def _group_start(self, text: str, start: int) -> int:
        """``start`` (where a start of a base64 form ends ``text``) moved back over the characters
        before it in its first group (``_Form.lead``, base64 characters only): they hold some of
        the secret's first bits (``I0`` was left before the marker at a cut edge)."""
        head = "".join(_fold(text[start:]).split())
        lead = max((form.lead for form in self._forms if form.lead and form.compact.startswith(head)), default=0)
        for _ in range(lead):
            if start == 0 or text[start - 1].lower() not in _UNIT_CHARS:
                break
            start -= 1
        return start

    def mask_continued_head(self, previous: str, text: str) -> str:
        """``text``, the continuation of ``previous`` (a reply the output limit cut), with its
        start replaced by ``[REDACTED]`` when that start finishes a secret ``previous`` ended
        inside: the rest of a key whose start the cut reply's logs hid (``mask_cut_edge``), also
        when the space between two words of the secret fell at the cut or ``text`` begins with
        whitespace the secret has not there. The whole of ``text``
        is hidden when it only goes on with that start, not finishing it (the limit cut the
        continuation too, inside the same secret), and the start so made has at least
        ``MIN_SECRET_EDGE`` characters, not counting whitespace."""
        if not previous or not text or not self._forms:
            return text
        reach = self._reach
        tail = previous[-reach:]
        # the parts as they came, without the whitespace the continuation begins with (the chat
        # drops it where the parts make a secret: loop._secret_across), and with a space between
        # (the readers drop the whitespace a reply begins or ends with: a passphrase cut between
        # two words lost the space there)
        body = text.lstrip()
        for part in (text, body) if body and body != text else (text,):
            spaced = not tail[-1:].isspace() and not part[:1].isspace()
            for joint in ("", " ") if spaced else ("",):
                for start, end in self._spans(tail + joint + part[:reach]):  # escaped too (``&#x0053;``)
                    if start < len(tail) and end > len(tail) + len(joint):
                        return REDACTED + part[end - len(tail) - len(joint) :]
        if text.strip() and len(text) <= reach:  # all of it may be inside one start
            joined = tail + text
            start = self.pending_start(joined)
            if start < len(tail) and len("".join(joined[start:].split())) >= MIN_SECRET_EDGE:
                return REDACTED
        return text
