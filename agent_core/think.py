"""Streaming separation of reasoning blocks (``<think>…</think>``) from visible text.

Reasoning models (DeepSeek-R1, Qwen3, QwQ…) write their reasoning inline in
the content, wrapped in ``<think>`` (some ``<thinking>`` or ``<reasoning>``).
It belongs in the thought log, never in the answer nor the next prompt.
Tags may be split across chunks; an unclosed block runs to the end.
"""

import html
from dataclasses import dataclass

_OPEN_TAGS = ("<think>", "<thinking>", "<reasoning>")

DEEPSEEK_REASONING_MARK = "<!--dify-deepseek-reasoning-->"
"""DeepSeek's model plugin opens its ``<think>`` block with this comment and HTML-escapes the
reasoning inside (``models/deepseek/models/llm/llm.py`` in ``langgenius/dify-official-plugins``),
so that it can recover ``reasoning_content`` from exactly that block when it comes back."""


def clean_reasoning(reasoning: str) -> str:
    """Reasoning as a person should read it in the log: without DeepSeek's marker, its HTML
    escapes undone (only when the marker shows the text was escaped)."""
    if DEEPSEEK_REASONING_MARK not in reasoning:
        return reasoning
    return html.unescape(reasoning.replace(DEEPSEEK_REASONING_MARK, "")).strip("\n")


@dataclass(frozen=True, slots=True)
class Split:
    """Text of one feed, divided: ``visible`` for the user, ``reasoning`` for the log."""

    visible: str = ""
    reasoning: str = ""


def _partial_suffix(text: str, tags: tuple[str, ...]) -> int:
    """Length of the longest suffix of ``text`` that is a proper prefix of a tag."""
    lowered = text.lower()
    best = 0
    for tag in tags:
        for size in range(min(len(tag) - 1, len(text)), best, -1):
            if tag.startswith(lowered[-size:]):
                best = size
                break
    return best


class ThinkSplitter:
    """Feed content pieces; get visible text and reasoning text as soon as they are certain.

    Holds back only a trailing piece that may still become a tag. Linear in
    the input; never raises.
    """

    def __init__(self) -> None:
        self._pending = ""
        self._close_tag: str | None = None  # set while inside a block

    def feed(self, text: str) -> Split:
        """Consume one piece of content."""
        self._pending += text
        visible: list[str] = []
        reasoning: list[str] = []
        while self._pending:
            if not self._step(visible, reasoning):
                break
        return Split("".join(visible), "".join(reasoning))

    def finish(self) -> Split:
        """Flush what was held back (an unclosed block stays reasoning)."""
        rest, self._pending = self._pending, ""
        return Split(reasoning=rest) if self._close_tag else Split(visible=rest)

    def _step(self, visible: list[str], reasoning: list[str]) -> bool:
        """Move one tag's worth forward; False when more input is needed."""
        lowered = self._pending.lower()
        if self._close_tag is None:
            hits = [(lowered.find(tag), tag) for tag in _OPEN_TAGS if tag in lowered]
            if not hits:
                keep = _partial_suffix(self._pending, _OPEN_TAGS)
                visible.append(self._pending[: len(self._pending) - keep])
                self._pending = self._pending[len(self._pending) - keep :]
                return False
            at, tag = min(hits)
            visible.append(self._pending[:at])
            self._pending = self._pending[at + len(tag) :]
            self._close_tag = "</" + tag[1:]
            return True
        at = lowered.find(self._close_tag)
        if at < 0:
            keep = _partial_suffix(self._pending, (self._close_tag,))
            reasoning.append(self._pending[: len(self._pending) - keep])
            self._pending = self._pending[len(self._pending) - keep :]
            return False
        reasoning.append(self._pending[:at])
        self._pending = self._pending[at + len(self._close_tag) :]
        self._close_tag = None
        return True


def visible_text(text: str) -> str:
    """``text`` without its reasoning blocks (what a user, or a prompt that must not carry
    reasoning, may see)."""
    splitter = ThinkSplitter()
    return splitter.feed(text).visible + splitter.finish().visible
