"""Inline ``data:`` URIs in a tool's result, shortened for the model.

A tool (often an MCP server) may return a picture inside its text or JSON as
``data:image/png;base64,iVBORw0...``: hundreds of kilobytes the model cannot read as text and
could not write back whole within its output limit. The observation keeps the URI's type and
replaces its payload with a note of its size; the agent log keeps the result as it came.
"""

from __future__ import annotations

import re

MIN_PAYLOAD_CHARS = 1024
"""A payload of fewer base64 characters (a small icon) is left as it is."""

NOTE = "[{size} of base64 data not shown to the model]"
"""What replaces a long payload; ``size`` as ``format_size`` gives it."""

_DATA_URI = re.compile(
    r"(data:[\w.+-]*+(?:/[\w.+-]*+)?(?:;[\w.+-]++=[\w.+\"-]++)*+;base64,)"
    rf"([A-Za-z0-9+/_-]{{{MIN_PAYLOAD_CHARS},}}={{0,2}})"
)


def format_size(chars: int) -> str:
    """The decoded size of ``chars`` base64 characters, as ``"812 bytes"``, ``"146 KB"`` or
    ``"3.1 MB"`` (1 KB = 1024 bytes)."""
    size = chars * 3 // 4
    if size < 1024:
        return f"{size} bytes"
    if size < 1024 * 1024:
        return f"{size // 1024} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def shorten(text: str) -> str:
    """``text`` with the payload of every base64 ``data:`` URI of at least
    ``MIN_PAYLOAD_CHARS`` characters replaced by ``NOTE`` (the ``data:<type>;base64,`` prefix
    stays, so the model still knows what it was). Text without such a URI comes back as it is
    (the same object). Never raises."""
    if "base64," not in text:
        return text
    return _DATA_URI.sub(lambda match: match.group(1) + NOTE.format(size=format_size(len(match.group(2)))), text)
