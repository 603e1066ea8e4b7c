"""Claude with interleaved thinking through Dify's official Anthropic model plugin.

Model plugin: ``langgenius/dify-official-plugins`` ``models/anthropic/models/llm/llm.py`` at
1c274cbc7d74671e3f80a9adaabe81eae7729475 (``_handle_chat_generate_stream_response``). Provider:
https://docs.claude.com/en/docs/build-with-claude/extended-thinking#interleaved-thinking, where
Claude thinks again between its blocks, after a text block or a tool result.

Each reply here is four blocks: a signed thinking block, a text block, a second signed thinking
block, then the rest of the text or the reply's ``tool_use`` blocks. The brain's text is cut at
:func:`split_text`; a tool-call reply without text gets :data:`CALL_LEAD` as its first text.

* streamed, as the plugin streams it: ``<think>\\n`` and the thinking deltas; ``\\n</think>\\n\\n``
  when the text block starts (the plugin closes a block only when the block *before* was a
  thinking one); the text deltas; ``<think>\\n`` again when the second thinking block starts,
  with no separator after the text; its deltas; ``\\n</think>\\n\\n`` when the next block starts;
  the rest of the text. A ``tool_use`` block's deltas do not change the plugin's block type, so
  the second closing tag comes once more at the end (as in ``AnthropicContract``). The last
  chunk carries every block, in order, as ``opaque_body.anthropic_content``.
* blocking: the text blocks joined with nothing between them, the tool calls and the same
  ``opaque_body``.
* ``chunk_chars = 1`` (``AnthropicInterleavedCharsContract``) streams every piece, tags
  included, one character a chunk, so the second block is cut at every position.

Provider rule added to ``AnthropicContract``'s: the assistant message before the last tool results
must be the turn the API issued, every block unchanged and in its order (with interleaved thinking
the thinking blocks after the first text block are signed into the same turn).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from local_runner.contracts.anthropic import OPAQUE_KEY, THINKING_DOC, AnthropicContract, signature_for
from local_runner.contracts.base import Reply

CALL_LEAD = "Let me work that out with the calculator. "
"""The text block a tool-call reply opens with before its second thinking block."""


def split_text(text: str) -> tuple[str, str]:
    """Where the second thinking block goes in a reply's text: before a line starting
    ``Action`` (a ReAct step: the thought, then the action), else after the last space (so
    the first text block ends with it). Returns (text before, text after); either may be ``""``."""
    at = text.find("\nAction")
    if at >= 0:
        return text[: at + 1], text[at + 1 :]
    at = text.rfind(" ")
    return (text[: at + 1], text[at + 1 :]) if at >= 0 else (text, "")


def second_reasoning(reasoning: str) -> str:
    """The text of the second (interleaved) thinking block of a reply whose first is ``reasoning``."""
    return f"{reasoning} Then again, between blocks."


def _strip_cache(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in block.items() if k != "cache_control"} for block in blocks]


class AnthropicInterleavedContract(AnthropicContract):
    """Claude Opus 4.6, extended thinking with interleaved thinking: a second signed thinking
    block after the first text block, before the rest of the text or the tool calls."""

    name = "anthropic_interleaved"
    closes_think_twice = True
    """Streams as 0.3.33 (1c274cb) does: the closing tag once more at the end after ``tool_use``."""
    chunk_chars = 6
    """Characters a streamed text chunk holds; 1 also splits the plugin's tags and thinking."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.issued_turns: dict[str, list[dict[str, Any]]] = {}
        """A reply's first ``tool_use`` id -> every block of that reply, as the API issued it."""

    def check(self, body: dict[str, Any]) -> None:
        super().check(body)
        for i, message in enumerate(body["messages"]):
            content = message["content"]
            if message["role"] != "assistant" or not isinstance(content, list):
                continue
            uses = [b.get("id") for b in content if b.get("type") == "tool_use"]
            issued = self.issued_turns.get(str(uses[0])) if uses else None
            if issued is not None and _strip_cache(content) != issued:
                self.reject(
                    f"messages.{i}.content: with interleaved thinking, an assistant turn's thinking blocks "
                    "and the blocks between them must be sent back as the original response issued them, "
                    f"unmodified and in their order. Please consult our documentation at {THINKING_DOC}"
                )

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        first, rest = split_text(reply.text) if reply.text else (CALL_LEAD if reply.calls else "", "")
        again = second_reasoning(reply.reasoning)
        blocks: list[dict[str, Any]] = [
            {"type": "thinking", "thinking": reply.reasoning, "signature": signature_for(reply.reasoning)},
            {"type": "text", "text": first},
            {"type": "thinking", "thinking": again, "signature": signature_for(again)},
        ]
        if rest:
            blocks.append({"type": "text", "text": rest})
        blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in reply.calls]
        if reply.calls:
            self.issued_thinking[reply.calls[0].id] = copy.deepcopy(blocks[:1])
            self.issued_turns[reply.calls[0].id] = copy.deepcopy(blocks)
        calls = [self.tool_call_dict(call) for call in reply.calls]
        usage = self.usage(request, reply)
        opaque = {OPAQUE_KEY: blocks}
        stop_reason = "tool_use" if reply.calls else "end_turn"
        if not stream:
            text = "".join(b["text"] for b in blocks if b["type"] == "text")
            yield self.chunk(request, 0, content=text, tool_calls=calls, opaque_body=opaque, usage=usage)
            return
        pieces: list[tuple[int, str]] = [(0, "<think>\n"), (0, reply.reasoning), (0, "\n</think>\n\n"), (1, first)]
        pieces += [(2, "<think>\n"), (2, again), (2, "\n</think>\n\n")]
        if rest:
            pieces.append((3, rest))
        elif reply.calls and self.closes_think_twice:
            pieces.append((2, "\n</think>\n\n"))  # the tool_use deltas leave the block type "thinking"
        last = 0
        for index, piece in pieces:
            text_block = piece not in ("<think>\n", "\n</think>\n\n") and index in (1, 3)
            size = self.chunk_chars if self.chunk_chars == 1 or text_block else max(len(piece), 1)
            for start in range(0, len(piece), size):
                yield self.chunk(request, index, content=piece[start : start + size])
            last = index
        yield self.chunk(request, last + 1, content="", tool_calls=calls, opaque_body=opaque, usage=usage, finish_reason=stop_reason)


class AnthropicInterleavedCharsContract(AnthropicInterleavedContract):
    """The interleaved replies streamed one character a chunk (tags and thinking included)."""

    name = "anthropic_interleaved_chars"
    chunk_chars = 1
