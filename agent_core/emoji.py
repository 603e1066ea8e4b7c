"""Emoji (and marks nobody sees) a model writes in front of a step label (``💭 Thought:``, ``🔧 Action:``, ``1️⃣ Thought:``),
as regular-expression pieces that the label readers build their patterns from.

A prompt that shows its labels with emoji is copied by the model (a juejin post's ReAct trace:
``💭 Thought:`` / ``🔧 Action:`` / ``✅ Answer:``). Only the characters are listed, by Unicode
block, not the emoji sequences themselves: a run of them at a line start is skipped as markdown
is, so the check stays a character-class test inside patterns the readers already run.
"""

from typing import Final

PICTOGRAPHS: Final = (
    "\u00a9\u00ae\u203c\u2049\u2122\u2139"  # © ® ‼ ⁉ ™ ℹ
    "\u2190-\u21ff"  # arrows (↔ ↩)
    "\u2300-\u23ff"  # miscellaneous technical (⌚ ⏰ ⏩)
    "\u24c2"  # Ⓜ
    "\u25a0-\u27bf"  # geometric shapes, miscellaneous symbols, dingbats (▶ ☀ ✅ ✔ ❓ ➡)
    "\u2900-\u297f"  # supplemental arrows-B (⤴)
    "\u2b00-\u2bff"  # miscellaneous symbols and arrows (⬆ ⭐)
    "\u3030\u303d\u3297\u3299"  # 〰 〽 ㊗ ㊙
    "\U0001f000-\U0001faff"  # mahjong tiles to symbols and pictographs extended-A (💭 🔧 👉 🤔), flags
)
"""The characters emoji are written with, as the body of a regex character class: the blocks of
Unicode's emoji and the few loose symbols with an emoji presentation."""

JOINERS: Final = "\ufe0e\ufe0f\u200d\u20e3\U000e0020-\U000e007f"
"""What joins or modifies the characters of one emoji, as the body of a character class:
variation selectors (text, emoji), the zero-width joiner of ZWJ sequences (👨‍💻), the keycap
mark (1️⃣), the tag characters of subdivision flags."""

EMOJI_CHAR: Final = rf"[{PICTOGRAPHS}{JOINERS}]|[0-9#*](?=[\ufe0f\u20e3]|\Z)"
"""One character of an emoji, as a regex alternative: a pictograph, a joiner, or a keycap's
digit, ``#`` or ``*`` when a variation selector or the keycap mark follows it (``1️⃣``) or the
text ends after it (the rest may still come). ``3 apples`` and ``2024`` start with no emoji."""

SYMBOLS_FROM: Final = "\u00a9"
SYMBOLS_TO: Final = "\u2c00"
PICTOGRAPHS_FROM: Final = "\U0001f000"
"""Bounds a hot path compares a line's first character with: below ``SYMBOLS_FROM`` or from
``SYMBOLS_TO`` up to ``PICTOGRAPHS_FROM`` it is no pictograph but a digit or one of
``CJK_PICTOGRAPHS``; otherwise it may be one (``PICTOGRAPHS``)."""

CJK_PICTOGRAPHS: Final = "\u3030\u303d\u3297\u3299"
"""The pictographs between ``SYMBOLS_TO`` and ``PICTOGRAPHS_FROM``."""

INVISIBLE_MARKS: Final = (
    "\u061c\u200b\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2060\u2066\u2067\u2068\u2069\ufeff"
    "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"
)
"""Characters a line may open with before its label, skipped there as markdown is: those nobody
sees (the bidirectional marks, embeddings and isolates of Unicode's UAX #9: ALM, LRM, RLM,
LRE..RLO, LRI..PDI, which a model writing Arabic or Hebrew around its labels puts at a line
start; ZERO WIDTH SPACE, WORD JOINER, the byte order mark) and the spaces other than `` `` and
``\\t`` (a no-break space, the ideographic space a model writing Chinese or Japanese indents
with, the em and thin spaces: Unicode's ``Zs`` category). The ReAct parser's ``LINE_PREFIX`` and
``line_marks`` skip them, so every reader of step labels does."""

MARKS_AFTER_EMOJI: Final = 24
"""How many characters of markdown and emoji ``line_marks`` reads after a line's first emoji: as
many as the ReAct parser reads before a label. A line start a reader holds while it may still
become a label is re-read as it grows, so its length is bounded."""


def line_marks(marks: str) -> str:
    """What a label may come after at a line start, as a regex piece: any run of ``marks`` (the
    body of a character class: ``" \\t#*>"``) and ``INVISIBLE_MARKS``, then an emoji and at most ``MARKS_AFTER_EMOJI``
    more characters of marks and emoji (``✅ Final Answer:``, ``- 💭 Thought:``, ``👉 **Action:**``).
    Every run is possessive: no label starts with one of those characters, so none is given back,
    and a line of them fails in time linear in its length."""
    marks = INVISIBLE_MARKS + marks  # before them: a '-' ending ``marks`` stays a literal one
    return rf"[{marks}]*+(?:(?:{EMOJI_CHAR})(?:[{marks}]|{EMOJI_CHAR}){{0,{MARKS_AFTER_EMOJI}}}+)?+"
