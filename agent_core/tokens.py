"""Offline token estimate: no tokenizer, no download, linear in the text and fast on megabytes.

Why a heuristic: the plugin must bound tool observations and history without knowing which
model (and so which tokenizer) Dify will call, and `tiktoken` fetches its encodings from the
network at first use, which a plugin cannot rely on. The estimate only has to be good enough
to keep a safe margin; it leans towards over-counting CJK text (where under-counting hurts).

Method (units: tokens, fractional until the final ceiling). The text is split by one regular
expression (`_PIECE`) into bounded pieces, modelled on the pre-tokenizer split of OpenAI's
cl100k_base (`tiktoken_ext/openai_public.py`, `pat_str`): letter runs, digit groups of at most
three, punctuation runs, whitespace runs. Each piece has a cost:

* an ASCII letter run (camel-case humps split, at most 24 letters): 1 token, plus 1 per
  5 letters beyond 7 (most English words are one token; long or rare words are two or three);
* a group of 1-3 ASCII digits: 1 token (cl100k splits numbers into groups of three);
* a CJK character (Han, kana, Hangul, CJK and full-width punctuation): 1.2 tokens each
  (cl100k spends 1.1-1.45 tokens per Chinese character on the samples below; o200k, Qwen
  and DeepSeek tokenizers spend fewer, so this over-counts for them, which is the safe side);
* other letters: 0.45 token per character for Latin-extended, Greek and Cyrillic
  (U+00C0-U+052F), 1 token per character for the other scripts (Arabic, Hebrew, Indic, Thai:
  byte-level BPEs spend about one token per character there);
* a punctuation/symbol run of 1-3 characters (including `_`): 1 token;
* a character outside the Basic Multilingual Plane (emoji, rare Han): 2 tokens;
* whitespace: a single space or tab is free (it merges into the next word); any other
  whitespace run (newlines, indentation) costs 1 token.

`estimate_tokens` returns ``ceil(sum of costs)``, and at least 1 for non-empty text. It never
reads the network, and is additive over pieces, which makes `truncate_to_tokens` exact with
respect to it.

Speed (the plugin serves every session of a process on one gevent hub, so a megabyte of tool
output must not cost seconds): `_PIECE` defines the pieces, but the sum is computed without
visiting them in Python. Each character is mapped to a class letter (`_classes`, C-speed codec
and `translate` calls), and the pieces of each kind are counted on that byte string with
`bytes.count`/`bytes.replace` (`_sum`; the rare shapes a count cannot express, such as a
punctuation run that swallows CJK punctuation or whitespace runs longer than 32, fall back to a
C-level `re.subn` on the class letters). Costs are kept in twentieths of a token, so sums are
exact integers. On a 2-core VM: 55-90 MB/s on English-like prose, JSON and code, 30-55 MB/s on
Chinese or Cyrillic text, about 30 MB/s on the mixed text of `python -m bench tokens_speed`
(3-4 MB/s for the former piece-by-piece walk). Texts over `SLICE_CHARS` are counted slice by slice,
each cut at a boundary between pieces of different kinds, with a `fairness.hand_over()`
between slices (a timer: the event loop polls); the sum is the same as in one pass unless a single run of one kind (letters, digits,
punctuation, whitespace) is longer than `_MAX_PENDING` characters, where a slice is cut inside
it (a difference of at most a token or two per such cut).

Measured error (reference: cl100k_base, `tiktoken` 0.14 with the genuine
`cl100k_base.tiktoken`, sha256 223921b7…, loaded from a local copy outside the plugin; the
samples are the ones embedded in `tests/unit/test_tokens.py`):

=====================  =========  ========  =======
sample                 reference  estimate  error
=====================  =========  ========  =======
English prose 1              74        76     +3 %
English prose 2              77        79     +3 %
English prose 3              63        65     +3 %
English request              29        32    +10 %
Chinese prose 1              98       108    +10 %
Chinese prose 2             133       111    -17 %
Chinese request              53        53      0 %
Chinese prose 3              78        80     +3 %
Python code                  42        46    +10 %
JSON object                  48        48      0 %
numbers/dates                43        38    -12 %
signed file URL              69        73     +6 %
zh/en mixed                  33        33      0 %
Japanese                     59        68    +15 %
Russian                      31        34    +10 %
Markdown table               37        40     +8 %
base64 (PNG)                 53        36    -32 %
=====================  =========  ========  =======

Whole files (same reference): a 40 KB Markdown protocol description 10 539 -> 11 867 (+13 %),
a style-notes Markdown file 2 199 -> 2 227 (+1 %), ``agent_core/loop.py`` 2 406 -> 2 772 (+15 %),
the real-world case list behind docs/real-world-cases.md 9 612 -> 9 935 (+3 %): code and Markdown are over-counted a
little (the safe side); random base64 is under-counted, which is why observations never carry it.

(regenerate the table with the reference tokenizer if the weights change; the tests pin the
English error within ±25 % and the Chinese error within ±35 %). Only cl100k_base was measured;
other models' tokenizers differ (Qwen, DeepSeek and o200k spend fewer tokens per Chinese
character, some newer tokenizers spend more on English), so budgets built on this estimate
should keep a margin.
"""

from __future__ import annotations

import codecs
import math
import re
from functools import lru_cache
from typing import NamedTuple

from agent_core.fairness import hand_over

__all__ = ["DEFAULT_MARKER", "PartCost", "estimate_tokens", "join_cost", "part_cost", "truncate_to_tokens"]

DEFAULT_MARKER = "\n[...]\n"
"""Text put between the kept head and the kept tail by `truncate_to_tokens`."""

_CJK = (
    "\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3100-\u312f\u3130-\u318f"
    "\u31a0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7af\uf900-\ufaff"
    "\ufe30-\ufe4f\uff00-\uffef"
)
_PUNCT_CHAR = r"(?:[^\w\s\U00010000-\U0010ffff]|_)"

# One alternative per piece kind; the group name selects the cost. Runs are bounded so that
# truncation can cut inside long words or long runs of symbols. This is the definition of the
# estimate: `_sum` computes the same sum without visiting the pieces one by one.
_PIECE = re.compile(
    r"(?P<upper>[A-Z]{1,16}(?![a-z]))"
    r"|(?P<word>[A-Z]?[a-z]{1,24})"
    r"|(?P<digits>[0-9]{1,3})"
    rf"|(?P<cjk>[{_CJK}])"
    r"|(?P<astral>[\U00010000-\U0010ffff])"
    r"|(?P<latinx>[\u00c0-\u052f](?<=[^\W\d_]))"
    r"|(?P<letter>[^\W\d_])"
    r"|(?P<space>[ \t])(?!\s)"
    r"|(?P<ws>\s{1,32})"
    rf"|(?P<punct>{_PUNCT_CHAR}{{1,3}})"
    r"|(?P<other>.)",
    re.DOTALL,
)

# Costs in twentieths of a token: every cost is a multiple of 0.05 token, so sums are exact
# integers however long the text.
_UNIT = 20
_PIECE_COST = 20  # a word of up to 7 letters, a digit group, a punctuation or whitespace run, other
_LONG_WORD_COST = 4  # each letter of a word beyond the 7th: 0.2
_CJK_COST = 24  # 1.2
_LATIN_EXTENDED_COST = 9  # 0.45
_OTHER_LETTER_COST = 20  # 1
_ASTRAL_COST = 40  # 2

_FIXED_COSTS = {"cjk": _CJK_COST, "latinx": _LATIN_EXTENDED_COST, "letter": _OTHER_LETTER_COST,
                "astral": _ASTRAL_COST, "space": 0}


def _word_cost(length: int) -> int:
    """Cost of an ASCII letter run of `length` letters (twentieths of a token)."""
    return _PIECE_COST + _LONG_WORD_COST * max(0, length - 7)


def _piece_cost(match: re.Match[str]) -> int:
    """Cost of one `_PIECE` match (twentieths of a token)."""
    kind = match.lastgroup
    if kind == "word" or kind == "upper":
        return _word_cost(match.end() - match.start())
    return _FIXED_COSTS.get(kind, _PIECE_COST)  # type: ignore[arg-type]


def _tokens(cost: int, text: str) -> int:
    """The estimate for a total ``cost`` in twentieths: rounded up, at least 1 unless empty."""
    if not text:
        return 0
    return max(1, -(-cost // _UNIT))


# --- character classes ------------------------------------------------------------------------
#
# The kind of piece a character starts depends on that character alone, so the text is first
# mapped to one class letter per character, and the pieces are then counted on those letters:
#
#   a  A  ASCII lower / upper case letter        0  ASCII digit
#   c     CJK character (1.2)                    C  CJK punctuation (1.2, or inside a punct run)
#   W     U+3000 ideographic space (1.2, or inside a whitespace run)
#   e     character outside the BMP (2)          x  Latin-extended, Greek, Cyrillic letter (0.45)
#   l     other letter (1)                       o  other: non-ASCII digits (1)
#   s     space or tab                           n  other whitespace
#   p     punctuation, symbols, `_`
#
# Pieces never span two "families" (letters aA, digits 0, whitespace snW, punctuation pC; each
# of c e x l o is a piece of its own), so a text can be counted in parts cut where the family
# changes (`_cut_at`).

_CLASSES = b"aA0cCWexlsnpo"


def _bmp_classes() -> bytes:
    """The class letter of every BMP character: painted in the reverse order of `_PIECE`'s
    alternatives (the first one matching a character at the start of a piece wins)."""
    chars = "".join(map(chr, range(0x10000)))
    table = bytearray(b"o") * 0x10000
    for pattern, letter in (
        (_PUNCT_CHAR, b"p"),
        (r"\s", b"n"),
        (r"[ \t]", b"s"),
        (r"[^\W\d_]", b"l"),
        (r"[\u00c0-\u052f](?<=[^\W\d_])", b"x"),
        (f"[{_CJK}]", b"c"),
        (f"(?={_PUNCT_CHAR})[{_CJK}]", b"C"),
        (rf"(?=\s)[{_CJK}]", b"W"),
        (r"[0-9]", b"0"),
        (r"[a-z]", b"a"),
        (r"[A-Z]", b"A"),
    ):
        for match in re.finditer(f"(?:{pattern})+", chars):
            table[match.start() : match.end()] = letter * (match.end() - match.start())
    return bytes(table)


_BMP = _bmp_classes()
_HIGH = {letter: 0x80 + index for index, letter in enumerate(_CLASSES)}
_WIDE = bytes(_HIGH[letter] for letter in _BMP) + bytes([_HIGH[ord("e")]]) * (0x110000 - 0x10000)
"""`str.translate` table (1.1 MB): character -> 0x80 + index of its class letter."""
_ASCII_TABLE = bytes(_BMP[:128]) + bytes(_CLASSES[code - 0x80] if code - 0x80 < len(_CLASSES) else code
                                          for code in range(128, 256))
"""`bytes.translate` table: ASCII byte -> class letter; 0x80 + index -> class letter."""
_ERRORS = "agent_core.tokens.classes"


def _classify_run(error: UnicodeError) -> tuple[bytes, int]:
    """Encoding error handler: the class codes of a run of non-ASCII characters."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    return error.object[error.start : error.end].translate(_WIDE).encode("latin-1"), error.end


codecs.register_error(_ERRORS, _classify_run)

_PART = 2048


def _classes(text: str) -> bytes:
    """One class letter per character of ``text``. ASCII goes through `bytes.translate`;
    parts with a few non-ASCII characters through the ASCII encoder, whose error handler
    classifies each run of them; parts with many through `str.translate` (slower per character,
    but not per run)."""
    if text.isascii():
        return text.encode("ascii").translate(_ASCII_TABLE)
    parts = []
    for start in range(0, len(text), _PART):
        part = text[start : start + _PART]
        if part.isascii():
            parts.append(part.encode("ascii").translate(_ASCII_TABLE))
        elif (len(part.encode("utf-8", "surrogatepass")) - len(part)) * 16 < len(part):
            parts.append(part.encode("ascii", _ERRORS).translate(_ASCII_TABLE))
        else:
            parts.append(part.translate(_WIDE).encode("latin-1").translate(_ASCII_TABLE))
    return b"".join(parts)


# --- counting ---------------------------------------------------------------------------------


def _projection(keep: dict[bytes, bytes]) -> bytes:
    """A `bytes.translate` table keeping some class letters (renamed) and turning all other
    bytes into ``.``."""
    table = bytearray(b".") * 256
    for letter, into in keep.items():
        table[ord(letter)] = ord(into)
    return bytes(table)


_LETTERS_ONLY = _projection({b"a": b"a", b"A": b"a", b".": b"."})
_LONG_LOWER = b"a" * 25
_LONG_UPPER = b"A" * 17
_SPLIT_LOWER = re.compile(re.escape(b"a" * 24) + b"(?=a)")  # a word holds at most 24 lower-case letters
_SPLIT_UPPER = re.compile(re.escape(b"A" * 16) + b"(?=A)")  # an upper-case run at most 16 letters
_WORD_STARTS = [b"." + b"a" * n for n in range(8)]
_PUNCT_RUN = re.compile(rb"p[pC]{0,2}")
_WHITESPACE_RUN = re.compile(rb"(s)(?![snW])|[sn][snW]{0,31}")


def _flags(letters: str) -> bytes:
    """A `bytes.translate` table: the n-th class letter of ``letters`` -> bit n set."""
    table = bytearray(256)
    for bit, letter in enumerate(letters):
        table[ord(letter)] = 1 << bit
    return bytes(table)


_MASKS = bytes(byte | (0x40 if chr(i) in "cCWexlo" else 0) for i, byte in enumerate(_flags("aAsn0p")))
"""Class letter -> bits: 0 ``a``, 1 ``A``, 2 ``s``, 3 ``n``, 4 ``0``, 5 ``p``, 6 any other."""
_ones_cache = [0, 0]  # [bytes covered, the mask]


def _ones(size: int) -> int:
    """An int with the lowest bit of each of at least ``size`` bytes set (a mask for `_sum`;
    ``m & _ones(n)`` costs only the length of ``m``)."""
    if size <= _ones_cache[0]:
        return _ones_cache[1]
    size = max(size, SLICE_CHARS)
    ones = int.from_bytes(b"\x01" * size, "little")
    if size <= 8 * SLICE_CHARS:  # kept for the next texts (a mask for longer ones is not)
        _ones_cache[:] = [size, ones]
    return ones


# Bit-parallel counting: a set of positions is an int with bit 8*i set for position i, so
# ``m << 8`` holds at i what ``m`` holds at i - 1, ``m >> 8`` what it holds at i + 1, and
# ``int.bit_count`` counts the positions; every step is one C loop over the whole text.
# (``a ^ (a & b)`` is "a and not b": ``~b`` would make Python's ints take a slow path.)

_MAX_GROUP_STEPS = 8
"""Runs of digits or punctuation longer than 3 * this are counted by `_runs_of_three`."""


def _groups_of_three(run: int) -> int | None:
    """Positions starting a group when each run of ``run`` is cut into groups of three from
    its start (digit groups, punctuation runs); None when a run is too long for this."""
    before = run << 8
    marks = run ^ (run & before)  # run starts
    third = run & before & (before << 8)  # two of the run before: a group can start here
    frontier = marks
    for _ in range(_MAX_GROUP_STEPS):
        frontier = (frontier << 24) & third
        if not frontier:
            return marks
        marks |= frontier
    return None


def _longer_than_32(run: int) -> bool:
    """Whether a run of ``run`` is longer than 32 (whitespace pieces hold at most 32)."""
    width = 1
    while width < 32:  # positions with 2, 4, 8, 16, 32 of the run up to them
        run &= run << (8 * width)
        if not run:
            return False
        width *= 2
    return bool(run & (run << 8))


def _runs_of_three(k: bytes, letter: bytes, marker: bytes) -> int:
    """Pieces in the runs of ``letter`` cut into groups of three: per run, ceil(length / 3)."""
    grouped = k.replace(letter * 3, marker)  # each run: its full groups, then 0-2 letters left
    return grouped.count(marker) + grouped.count(letter) - grouped.count(letter * 2)


def _long_words(k: bytes) -> int:
    """Cost of the ASCII letter runs when some run has more than 24 lower-case or 16 upper-case
    letters: piece boundaries are marked with ``.``, the pieces counted by length."""
    if k.find(_LONG_LOWER) >= 0:
        k = _SPLIT_LOWER.sub(rb"\g<0>.", k)
    if k.find(b"A") >= 0:
        if k.find(_LONG_UPPER) >= 0:
            k = _SPLIT_UPPER.sub(rb"\g<0>.", k)
        k = k.replace(b"aA", b"a.A").replace(b"AAa", b"A.Aa")
    words = k.translate(_LETTERS_ONLY)  # pieces: runs of "a" between "."
    count = words.count
    # sum over pieces of min(length, 7) = number of pieces with at least n letters, n = 1..7
    first_seven = 0
    for n in range(1, 8):
        first_seven += count(_WORD_STARTS[n]) + words.startswith(_WORD_STARTS[n][1:])
    pieces = count(_WORD_STARTS[1]) + words.startswith(b"a")
    return _PIECE_COST * pieces + _LONG_WORD_COST * (count(b"a") - first_seven)


def _runs(k: bytes, run: int, letter: bytes, marker: bytes) -> tuple[int, int]:
    """(cost, piece starts) of the runs of ``letter`` (positions ``run``) cut into groups of
    three: digit groups, punctuation runs."""
    groups = _groups_of_three(run)
    if groups is None:
        return _PIECE_COST * _runs_of_three(k, letter, marker), 0
    return 0, groups


def _punctuation(k: bytes, punct: int, rare: int) -> tuple[int, int]:
    """(cost, piece starts) of the punctuation runs, and of the CJK punctuation they take in
    (a run starting with ``p`` goes on over ``C``)."""
    if rare and k.find(b"pC") >= 0:
        rest, pieces = _PUNCT_RUN.subn(b"", k)
        return _PIECE_COST * pieces + _CJK_COST * (rest.count(b"C") - k.count(b"C")), 0
    return _runs(k, punct, b"p", b"P")


def _whitespace(k: bytes, spaces: int, others: int, rare: int) -> tuple[int, int]:
    """(cost, piece starts) of the whitespace runs: a lone space or tab is free, other runs
    cost 1 per 32 characters, and take in ideographic spaces (a CJK character otherwise)."""
    runs = spaces | others
    if (rare and k.find(b"W") >= 0) or (runs and _longer_than_32(runs)):
        rest, pieces = _WHITESPACE_RUN.subn(rb"\1", k)  # lone spaces stay as "s", the rest go
        return _PIECE_COST * (pieces - rest.count(b"s")) + _CJK_COST * (rest.count(b"W") - k.count(b"W")), 0
    # every run costs 1 but a lone space or tab: runs that start with "n", or with "s" and go on
    before = runs << 8
    longer = spaces & (runs >> 8)
    return 0, (others ^ (others & before)) | (longer ^ (longer & before))


def _words(k: bytes, lower: int, upper: int) -> tuple[int, int]:
    """(cost, piece starts) of the ASCII letter runs: 1 per piece (counted by the caller from
    the starts), 0.2 per letter beyond a piece's 7th."""
    letters = lower | upper
    starts = letters ^ (letters & (letters << 8))
    if upper:  # camel-case humps and acronyms: fooBar -> foo|Bar, HTTPServer -> HTTP|Server
        starts |= upper & ((lower << 8) | ((upper << 8) & (lower >> 8)))
    inside = letters ^ starts  # letters that continue the piece of the letter before
    two = inside & (inside << 8)  # 2 letters of the piece before
    four = two & (two << 16)
    seven = four & (two << 32) & (inside << 48)  # 7 before: the 8th letter and beyond
    maybe_too_long = seven and seven & (seven << 56) & (two << 112)  # 16 before: a run too long for a piece?
    if maybe_too_long and (k.find(_LONG_LOWER) >= 0 or k.find(_LONG_UPPER) >= 0):
        return _long_words(k), 0
    return _LONG_WORD_COST * seven.bit_count(), starts


def _sum(k: bytes) -> int:
    """Cost (twentieths of a token) of a text given by its class letters ``k``; equal to the
    sum of `_piece_cost` over the `_PIECE` matches of the text."""
    if not k:
        return 0
    x = int.from_bytes(k.translate(_MASKS), "little")
    ones = _ones(len(k))
    total, marks = 0, 0  # marks: positions where a piece of cost 1 starts
    rare = (x >> 6) & ones  # c C W e x l o
    if rare:
        count = k.count
        total += (_CJK_COST * (count(b"c") + count(b"C") + count(b"W")) + _ASTRAL_COST * count(b"e")
                  + _LATIN_EXTENDED_COST * count(b"x") + _OTHER_LETTER_COST * (count(b"l") + count(b"o")))
    parts = [_whitespace(k, (x >> 2) & ones, (x >> 3) & ones, rare)]
    digits = (x >> 4) & ones
    if digits:
        parts.append(_runs(k, digits, b"0", b"D"))
    punct = (x >> 5) & ones
    if punct:
        parts.append(_punctuation(k, punct, rare))
    lower, upper = x & ones, (x >> 1) & ones
    if lower or upper:
        parts.append(_words(k, lower, upper))
    for cost, starts in parts:
        total += cost
        marks |= starts
    return total + _PIECE_COST * marks.bit_count()


def _cost(text: str) -> int:
    """Cost (twentieths of a token) of ``text`` in one go (cheaper than walking the pieces
    even for a few characters)."""
    return _sum(_classes(text))


# --- cutting at piece boundaries --------------------------------------------------------------

_FAMILY = bytes(
    {"a": 1, "A": 1, "0": 2, "s": 3, "n": 3, "W": 3, "p": 4, "C": 4}.get(chr(byte), 0) for byte in range(256)
)
"""Class letter -> family (0: a piece of its own, whatever follows)."""


def _cut_at(k: bytes, i: int) -> bool:
    """Whether a piece boundary falls before ``k[i]`` wherever the text around starts or ends:
    the family changes there (or the character before is a piece on its own)."""
    before = _FAMILY[k[i - 1]]
    return before == 0 or before != _FAMILY[k[i]]


def _first_cut(k: bytes, start: int) -> int:
    """The first boundary ``i >= start`` (``0 < i < len(k)``) found by `_cut_at`, else -1."""
    for i in range(max(start, 1), len(k)):
        if _cut_at(k, i):
            return i
    return -1


def _last_cut(k: bytes, start: int, stop: int = 1) -> int:
    """The last boundary ``stop <= i <= start`` found by `_cut_at`, else -1."""
    for i in range(min(start, len(k) - 1), max(stop, 1) - 1, -1):
        if _cut_at(k, i):
            return i
    return -1


SLICE_CHARS = 32_768
"""Longer texts are counted in slices of about this many characters, and the counting yields
to other greenlets between slices: one session's megabytes of tool output must not stall the
sessions it shares the plugin process with (the SDK serves them all on gevent)."""

_SEARCH = 4096
"""How far back from a slice's end a boundary between pieces is looked for (characters)."""

_MAX_PENDING = 8 * SLICE_CHARS
"""A run of one kind longer than this (no boundary found) is cut where the slice ends."""


TOKENS_PER_CHAR_MAX = 2
"""No text is estimated at more than this many tokens a character (``estimate_tokens(text) <=
TOKENS_PER_CHAR_MAX * len(text)``): the dearest piece, a character outside the BMP or a lone CJK
character, costs 2 once rounded up; every piece of several characters costs less than one token
a character more. A caller may skip the estimate of a text this bound already shows fits."""


def estimate_tokens(text: str) -> int:
    """Estimate how many tokens `text` costs a typical LLM tokenizer.

    Args:
        text: any string (``None`` is treated as empty).

    Returns:
        Estimated tokens (int >= 0); 0 only for the empty string, >= 1 otherwise.
        Accuracy against cl100k_base: see the module docstring. Texts over ``SLICE_CHARS``
        are counted slice by slice, yielding to other greenlets in between.
    """
    if not text:
        return 0
    if len(text) <= SLICE_CHARS:
        return _tokens(_cost(text), text)
    return _estimate_long(text)


@lru_cache(maxsize=8)
def _estimate_long(text: str) -> int:
    """``estimate_tokens`` of a long text, slice by slice; remembered for the few long texts
    in use (a tool result is measured, then cut, then measured again)."""
    return _tokens(_sliced_cost(text), text)


def _sliced_cost(text: str) -> int:
    """Cost of ``text`` counted in slices of ``SLICE_CHARS``, each ending at a boundary between
    pieces, with a ``fairness.hand_over()`` after each."""
    total, pending = 0, b""
    for start in range(0, len(text), SLICE_CHARS):
        k = pending + _classes(text[start : start + SLICE_CHARS])
        if start + SLICE_CHARS >= len(text):
            cut = len(k)
        else:
            cut = _last_cut(k, len(k) - 1, len(k) - _SEARCH)
            if cut < 0:  # inside a long run of one kind: carry it over, up to a limit
                cut = len(k) if len(k) >= _MAX_PENDING else 0
        total += _sum(k[:cut])
        pending = k[cut:]
        hand_over()
    return total


# --- counting a text in parts -----------------------------------------------------------------
#
# A text joined from parts (a prompt rebuilt every round from mostly the same texts) is counted
# from each part's cost and the cost of each join: where the family changes at a join (`_cut_at`)
# the costs add up; where it does not, the last run of the text before and the first run of the
# part are one run in the whole, which may cost more or less than the two apart (two lone spaces
# are a whitespace run; a punctuation run cut anew may start at a CJK punctuation mark).

_RUN_LETTERS = {1: b"aA", 2: b"0", 3: b"snW", 4: b"pC"}
"""Family -> the class letters of a run of it."""

_LAST_PIECES = {
    1: [b"A" * n for n in range(1, 17)] + [b"a" * n for n in range(1, 25)] + [b"A" + b"a" * n for n in range(1, 25)],
    2: [b"0", b"00", b"000"],
    3: [b"s", b"W"] + [b"n" * n for n in range(1, 33)],
    4: [b"p", b"pp", b"ppp", b"C"],
}
"""Family -> the class letters of every piece that can end a run of it (`_PIECE`: an upper-case
run, a word, a digit group, a lone space, an ideographic space at a run's start, a whitespace
run, a punctuation run, a CJK punctuation mark), up to what does not change how the text after
it is cut (a whitespace or punctuation run's other letters)."""

_SHORT_RUN = 4096
"""Runs up to this many characters have their joins remembered by the hundreds; longer ones
by a few (their class letters are held as the key)."""


class PartCost(NamedTuple):
    """A part's cost and what its joins need (`part_cost`)."""

    cost: int
    """Its cost alone (twentieths of a token)."""
    head: bytes
    """Class letters of its first run (b"" when its first character is a piece of its own)."""
    tail: bytes
    """Class letters of its last run (b"" likewise)."""
    one_run: bool
    """The part is one run: the run it ends may have started in the text before it."""


def _edge_run(text: str, first: bool) -> bytes:
    """Class letters of the first (``first``) or last run of ``text`` (not empty), classifying
    growing windows at that end, so a long text is not classified whole here."""
    size = 64
    while True:
        window = _classes(text[:size] if first else text[-size:])
        letters = _RUN_LETTERS.get(_FAMILY[window[0 if first else -1]])
        if letters is None:
            return b""
        rest = window.lstrip(letters) if first else window.rstrip(letters)
        if rest or size >= len(text):
            return window[: len(window) - len(rest)] if first else window[len(rest) :]
        size *= 8


def part_cost(text: str) -> PartCost:
    """What counting ``text`` as a part of a longer text needs (`join_cost`): its cost alone in
    twentieths of a token (``estimate_tokens(text)`` is that rounded up, at least 1) and its first
    and last runs. Texts over ``SLICE_CHARS`` are counted slice by slice, as by `estimate_tokens`."""
    if not text:
        return PartCost(0, b"", b"", False)
    if len(text) <= SLICE_CHARS:
        k = _classes(text)
        first, last = _RUN_LETTERS.get(_FAMILY[k[0]]), _RUN_LETTERS.get(_FAMILY[k[-1]])
        rest = k.lstrip(first) if first else k
        if not rest:
            return PartCost(_sum(k), k, k, True)
        tail = k[len(k.rstrip(last)) :] if last else b""
        return PartCost(_sum(k), k[: len(k) - len(rest)], tail, False)
    head, tail = _edge_run(text, True), _edge_run(text, False)
    return PartCost(_sliced_cost(text), head, tail, len(head) == len(text))


def join_cost(before: PartCost, part: PartCost) -> int:
    """What ``part`` joined after the text ``before`` ends costs more (or less) than the two
    apart, in twentieths of a token: exact when ``before`` holds a cut between pieces (its last
    run starts in it); when ``before`` is one run, which may have started earlier, the most it
    can cost after any run of that family (whatever the text before is, the part's cost plus
    this is never below what it adds to the text). 0 where the family changes at the join."""
    tail, head = before.tail, part.head
    if not tail or not head or _FAMILY[tail[-1]] != _FAMILY[head[0]]:
        return 0
    if before.one_run:
        return _worst_join(head) if len(head) <= _SHORT_RUN else _worst_long_join(head)
    return _join(tail, head) if len(tail) + len(head) <= _SHORT_RUN else _long_join(tail, head)


def _join_uncached(tail: bytes, head: bytes) -> int:
    """Cost of two runs of one family joined, minus their costs apart (twentieths)."""
    return _sum(tail + head) - _sum(tail) - _sum(head)


def _worst_join_uncached(head: bytes) -> int:
    """The most ``_join_uncached(run, head)`` is for any run of ``head``'s family: the text
    after a run's last piece is cut as if that piece began the text (`_PIECE` looks back at
    nothing before the piece), so the last pieces possible (`_LAST_PIECES`) are all the cases."""
    lasts = _LAST_PIECES[_FAMILY[head[0]]]
    return max(_sum(last + head) - _sum(last) for last in lasts) - _sum(head)


_join = lru_cache(maxsize=1024)(_join_uncached)
_long_join = lru_cache(maxsize=4)(_join_uncached)
_worst_join = lru_cache(maxsize=1024)(_worst_join_uncached)
_worst_long_join = lru_cache(maxsize=4)(_worst_join_uncached)


# --- truncation -------------------------------------------------------------------------------

_CHUNKS = (4096, 512)
"""Truncation measures the text in chunks of about these many characters (coarse, then fine)
before it walks the pieces of the last one (walking costs about 0.5 µs a character)."""


def _prefix_end(text: str, budget: int) -> int:
    """The largest piece boundary whose prefix costs at most ``budget`` (twentieths): chunks
    are counted whole while they fit, then the pieces after the last one are walked."""
    start, spent, walked = 0, 0, 0
    for size in _CHUNKS:
        while len(text) - start > 2 * size:
            k = _classes(text[start : start + 2 * size])
            cut = _first_cut(k, size)
            if cut < 0:
                break
            cost = _sum(k[:cut])
            if spent + cost > budget:
                break
            spent += cost
            start += cut
            walked += cut
            if walked >= SLICE_CHARS:
                hand_over()
                walked = 0
    for count, match in enumerate(_PIECE.finditer(text, start), start=1):
        cost = _piece_cost(match)
        if spent + cost > budget:
            return match.start()
        spent += cost
        if count % 8192 == 0:
            hand_over()
    return len(text)


def _suffix_start(text: str, budget: int) -> int:
    """The smallest piece boundary whose suffix costs at most ``budget`` (twentieths): chunks
    are counted whole from the end while they fit, then the pieces of the one before the last
    are walked (cut as the suffix itself would be cut into pieces)."""
    if budget <= 0:
        return len(text)
    end, spent, walked = len(text), 0, 0
    start = 0
    for size in _CHUNKS:
        start = 0
        while end > 2 * size:
            window = end - 2 * size
            k = _classes(text[window:end])
            cut = _last_cut(k, size)
            if cut < 0:  # a long run of one kind: walk the pieces from the window's start
                start = window
                break
            cost = _sum(k[cut:])
            if spent + cost > budget:
                start = window + cut
                break
            spent += cost
            end = window + cut
            walked += len(k) - cut
            if walked >= SLICE_CHARS:
                hand_over()
                walked = 0
    # pieces of text[start:end]: the suffix from a piece start costs the pieces after it
    starts, costs = [], []
    for count, match in enumerate(_PIECE.finditer(text, start, end), start=1):
        starts.append(match.start())
        costs.append(_piece_cost(match))
        if count % 8192 == 0:
            hand_over()
    best = end
    for index in range(len(starts) - 1, -1, -1):
        spent += costs[index]
        if spent > budget:
            break
        best = starts[index]
    return best


def truncate_to_tokens(
    text: str, max_tokens: int, *, marker: str = DEFAULT_MARKER, tail_share: float = 0.2
) -> tuple[str, int]:
    """Cut `text` so that its estimate is at most `max_tokens`, keeping its head and a short tail.

    Args:
        text: the text to bound.
        max_tokens: budget in tokens, as counted by `estimate_tokens` (<= 0 keeps nothing).
        marker: put between head and tail when something was cut (counted in the budget;
            dropped when the budget cannot hold it).
        tail_share: fraction of the budget (after the marker) given to the tail; the tail is
            only kept when the budget is at least 40 tokens.

    Returns:
        ``(result, dropped_tokens)``: `result` is `text` unchanged with ``dropped_tokens == 0``
        when it fits; otherwise ``head + marker + tail`` with ``estimate_tokens(result) <=
        max_tokens`` and `dropped_tokens` = estimated tokens of the removed middle (>= 1).
        Cuts fall on piece boundaries (never inside a surrogate pair or a digit group). Work
        is linear in the text (one `estimate_tokens`) plus the kept part, and yields to other
        greenlets on long texts.
    """
    if not text:
        return "", 0
    full = estimate_tokens(text)
    if full <= max_tokens:
        return text, 0
    if max_tokens <= 0:
        return "", full
    marker_cost = estimate_tokens(marker)
    if max_tokens < marker_cost + 1:
        marker = ""
        marker_cost = 0
    budget = max_tokens - marker_cost
    tail_budget = math.floor(budget * tail_share) if max_tokens >= 40 else 0
    for _ in range(8):  # shrink until the joined text fits (joins may merge pieces)
        head_end = _prefix_end(text, (budget - tail_budget) * _UNIT)
        tail_start = max(head_end, _suffix_start(text, tail_budget * _UNIT))
        head, tail = text[:head_end], text[tail_start:]
        result = head + marker + tail if (head or tail) else ""
        if estimate_tokens(result) <= max_tokens:
            kept = estimate_tokens(head) + estimate_tokens(tail)
            return result, max(1, full - kept)
        budget -= 1
        tail_budget = max(0, tail_budget - 1)
    head = text[: _prefix_end(text, max(0, budget) * _UNIT)]
    while head and estimate_tokens(head) > max_tokens:
        head = head[:-1]
    return head, max(1, full - estimate_tokens(head))
