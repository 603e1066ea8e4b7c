"""A reasoning block in the middle of the answer (Claude's interleaved thinking as Dify's
Anthropic plugin streams it: ``text<think>\\n...\\n</think>\\n\\nmore``): the text on both sides
joins as the model wrote it, the ``\\n\\n`` the plugin puts after the closing tag dropped, in any
chunking; a block that opens the reply, and any text the model wrote itself, is unchanged."""

import pytest

from agent_core.think import ThinkSplitter, visible_text

FRAMED = "<think>\nfirst\n</think>\n\nThe result is 3367 + 1 = <think>\nsecond\n</think>\n\n3368"


def _fed(text: str, size: int) -> tuple[str, str]:
    splitter = ThinkSplitter()
    visible, reasoning = [], []
    for start in range(0, len(text), size):
        part = splitter.feed(text[start : start + size])
        visible.append(part.visible)
        reasoning.append(part.reasoning)
    tail = splitter.finish()
    return "".join(visible) + tail.visible, "".join(reasoning) + tail.reasoning


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, len(FRAMED)])
def test_mid_answer_block_joins_the_text_around_it_in_any_chunking(size):
    visible, reasoning = _fed(FRAMED, size)
    assert visible.lstrip() == "The result is 3367 + 1 = 3368"
    assert "first" in reasoning and "second" in reasoning


@pytest.mark.parametrize("cut", range(1, len(FRAMED)))
def test_mid_answer_block_cut_at_every_position(cut):
    splitter = ThinkSplitter()
    first, second = splitter.feed(FRAMED[:cut]), splitter.feed(FRAMED[cut:])
    tail = splitter.finish()
    assert (first.visible + second.visible + tail.visible).lstrip() == "The result is 3367 + 1 = 3368"


def test_pieces_and_visible_text_agree():
    splitter = ThinkSplitter()
    pieces = splitter.pieces(FRAMED) + splitter.release_pieces(ended=True)
    assert "".join(text for kind, text in pieces if kind == "visible").lstrip() == "The result is 3367 + 1 = 3368"
    assert visible_text(FRAMED).lstrip() == "The result is 3367 + 1 = 3368"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("Thought: step 1.\n<think>\nr\n</think>\n\nAction: x", "Thought: step 1.\nAction: x"),  # a ReAct step
        ("a <think>r</think>\n\n\nb", "a \nb"),  # a newline of the model's own after the framing
        ("a <think>r</think>\nb", "a \nb"),  # one newline only: the model's, kept
        ("a <think>r</think>\n", "a \n"),  # at the end too
        ("a <think>r</think> b", "a  b"),  # not the framing: kept as written
        ("<think>r</think>\n\nanswer", "\n\nanswer"),  # a leading block: unchanged (callers strip)
        ("\n\n<think>r</think>\n\nanswer", "\n\n\n\nanswer"),  # whitespace only before it: leading
        ("say `<think>` then\n\nmore", "say `<think>` then\n\nmore"),  # a tag shown as code
    ],
)
def test_only_the_framing_after_a_mid_answer_block_is_dropped(text, shown):
    assert visible_text(text) == shown
    assert _fed(text, 1)[0] == shown
