"""Offline token estimate: no tokenizer, no download, one pass over the text.

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

`estimate_tokens` returns ``ceil(sum of costs)``, and at least 1 for non-empty text.
It is O(n) (one `re.finditer` pass), never reads the network, and is additive over pieces,
which makes `truncate_to_tokens` exact with respect to it.

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

import math
import re
from functools import lru_cache

import gevent

__all__ = ["DEFAULT_MARKER", "estimate_tokens", "truncate_to_tokens"]

DEFAULT_MARKER = "\n[...]\n"
"""Text put between the kept head and the kept tail by `truncate_to_tokens`."""

# One alternative per piece kind; the group name selects the cost. Runs are bounded so that
# truncation can cut inside long words or long runs of symbols.
_PIECE = re.compile(
    r"(?P<upper>[A-Z]{1,16}(?![a-z]))"
    r"|(?P<word>[A-Z]?[a-z]{1,24})"
    r"|(?P<digits>[0-9]{1,3})"
    r"|(?P<cjk>[\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3100-\u312f\u3130-\u318f"
    r"\u31a0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7af\uf900-\ufaff"
    r"\ufe30-\ufe4f\uff00-\uffef])"
    r"|(?P<astral>[\U00010000-\U0010ffff])"
    r"|(?P<latinx>[\u00c0-\u052f](?<=[^\W\d_]))"
    r"|(?P<letter>[^\W\d_])"
    r"|(?P<space>[ \t])(?!\s)"
    r"|(?P<ws>\s{1,32})"
    r"|(?P<punct>(?:[^\w\s\U00010000-\U0010ffff]|_){1,3})"
    r"|(?P<other>.)",
    re.DOTALL,
)

_CJK_COST = 1.2
_LATIN_EXTENDED_COST = 0.45
_OTHER_LETTER_COST = 1.0
_ASTRAL_COST = 2.0


def _word_cost(length: int) -> float:
    """Cost of an ASCII letter run of `length` letters (tokens)."""
    return 1.0 + max(0, length - 7) / 5.0


def _piece_cost(match: re.Match[str]) -> float:
    """Cost in tokens of one `_PIECE` match."""
    kind = match.lastgroup
    if kind == "upper" or kind == "word":
        return _word_cost(match.end() - match.start())
    if kind == "cjk":
        return _CJK_COST
    if kind == "latinx":
        return _LATIN_EXTENDED_COST
    if kind == "letter":
        return _OTHER_LETTER_COST
    if kind == "astral":
        return _ASTRAL_COST
    if kind == "space":
        return 0.0
    return 1.0  # digits, ws, punct, other


def _costs(text: str, stop_after: float | None = None) -> tuple[list[int], list[float]]:
    """Piece end offsets (characters) and the running cost (tokens) after each piece; with
    ``stop_after``, the pieces up to the first whose running cost exceeds it. Yields to other
    greenlets every few thousand pieces."""
    ends: list[int] = []
    totals: list[float] = []
    total = 0.0
    for count, match in enumerate(_PIECE.finditer(text), start=1):
        total += _piece_cost(match)
        ends.append(match.end())
        totals.append(total)
        if stop_after is not None and total > stop_after:
            break
        if count % 8192 == 0:
            gevent.sleep(0)
    return ends, totals


def _ceil(total: float, text: str) -> int:
    if not text:
        return 0
    # the epsilon absorbs float noise such as 0.45 * 20 = 9.000000000000002
    return max(1, math.ceil(total - 1e-9))


SLICE_CHARS = 32_768
"""Longer texts are counted in slices of about this many characters, and the counting yields
to other greenlets between slices: one session's megabytes of tool output must not stall the
sessions it shares the plugin process with (the SDK serves them all on gevent)."""


_FIXED_COSTS = {"cjk": _CJK_COST, "latinx": _LATIN_EXTENDED_COST, "letter": _OTHER_LETTER_COST,
                "astral": _ASTRAL_COST, "space": 0.0}


def _sum(text: str) -> float:
    """The summed cost of ``text``'s pieces (``_piece_cost``, inlined: this is the hot loop)."""
    total = 0.0
    fixed = _FIXED_COSTS.get
    for match in _PIECE.finditer(text):
        kind = match.lastgroup
        if kind == "word" or kind == "upper":
            length = match.end() - match.start()
            total += 1.0 if length <= 7 else 1.0 + (length - 7) / 5.0
        else:
            total += fixed(kind, 1.0)
    return total


def _slices(text: str) -> list[str]:
    """``text`` in slices of about ``SLICE_CHARS``, each cut just after a single space where one
    is near (a space before a word costs nothing, so the sum is the same as in one pass)."""
    slices, start = [], 0
    while len(text) - start > SLICE_CHARS:
        cut = text.find(" ", start + SLICE_CHARS, start + SLICE_CHARS + 1024)
        cut = cut + 1 if cut >= 0 else start + SLICE_CHARS
        slices.append(text[start:cut])
        start = cut
    slices.append(text[start:])
    return slices


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
        return _ceil(_sum(text), text)
    return _estimate_long(text)


@lru_cache(maxsize=8)
def _estimate_long(text: str) -> int:
    """``estimate_tokens`` of a long text, slice by slice; remembered for the few long texts
    in use (a tool result is measured, then cut, then measured again)."""
    total = 0.0
    for piece in _slices(text):
        total += _sum(piece)
        gevent.sleep(0)
    return _ceil(total, text)


def _head_end(ends: list[int], totals: list[float], budget: float) -> int:
    """Largest piece boundary (character offset) whose running cost is <= `budget`."""
    lo, hi = 0, len(totals)  # number of pieces kept
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if totals[mid - 1] <= budget + 1e-9:
            lo = mid
        else:
            hi = mid - 1
    return ends[lo - 1] if lo else 0


def _tail_start(text: str, ends: list[int], totals: list[float], budget: float) -> int:
    """Smallest piece boundary (character offset) whose suffix costs <= `budget`."""
    if budget <= 0 or not totals:
        return len(text)
    grand = totals[-1]
    # suffix starting after piece i (0-based) costs grand - totals[i]; find smallest such i.
    lo, hi = 0, len(totals)  # candidate index of the first kept piece
    while lo < hi:
        mid = (lo + hi) // 2
        before = totals[mid - 1] if mid else 0.0
        if grand - before <= budget + 1e-9:
            hi = mid
        else:
            lo = mid + 1
    return ends[lo - 1] if lo else 0


def _window(text: str, max_tokens: int) -> int:
    """How much of the start of ``text`` a head of ``max_tokens`` tokens can span (characters):
    the cheapest piece is a run of 32 whitespace characters for 1 token. A head cut from this
    window is never over budget; in a pathological text it may be a little shorter than
    the budget allows."""
    return min(len(text), max(0, max_tokens) * 32 + 64)


def _suffix_start(text: str, budget: float) -> int:
    """Smallest piece boundary whose suffix costs <= ``budget``, found in a window at the end of
    ``text`` that grows until it holds more than ``budget`` (boundaries are counted from the
    window's first piece)."""
    if budget <= 0:
        return len(text)
    size = int(budget) * 8 + 64
    while True:
        start = max(0, len(text) - size)
        ends, totals = _costs(text[start:])
        if start == 0 or (totals and totals[-1] > budget + 1) or size >= _window(text, int(budget) + 1):
            return start + _tail_start(text[start:], ends, totals, budget)
        size *= 4


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
        Cuts fall on piece boundaries (never inside a surrogate pair or a digit group).
    """
    if not text:
        return "", 0
    full = estimate_tokens(text)
    if full <= max_tokens:
        return text, 0
    if max_tokens <= 0:
        return "", full
    ends, totals = _costs(text, stop_after=max_tokens)
    marker_cost = estimate_tokens(marker)
    if max_tokens < marker_cost + 1:
        marker = ""
        marker_cost = 0
    budget = float(max_tokens - marker_cost)
    tail_budget = math.floor(budget * tail_share) if max_tokens >= 40 else 0
    for _ in range(8):  # shrink until the joined text fits (joins may merge pieces)
        head_end = _head_end(ends, totals, budget - tail_budget)
        tail_start = max(head_end, _suffix_start(text, tail_budget))
        head, tail = text[:head_end], text[tail_start:]
        result = head + marker + tail if (head or tail) else ""
        if estimate_tokens(result) <= max_tokens:
            kept = estimate_tokens(head) + estimate_tokens(tail)
            return result, max(1, full - kept)
        budget -= 1
        tail_budget = max(0, tail_budget - 1)
    head_end = _head_end(ends, totals, max(0.0, budget))
    head = text[:head_end]
    while head and estimate_tokens(head) > max_tokens:
        head = head[:-1]
    return head, max(1, full - estimate_tokens(head))
