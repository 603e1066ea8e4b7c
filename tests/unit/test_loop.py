"""The loop's pure helpers (agent_core.loop): how a cut answer and its continuation are joined."""

import pytest

from agent_core.loop import _continuation_join, leading_space


@pytest.mark.parametrize(
    ("previous", "raw", "shown", "joined"),
    [
        ("Part one,", " part two.", "part two.", "Part one, part two."),  # the space the model sent
        ("Line one", "\nline two.", "line two.", "Line one\nline two."),  # a new line, not a space
        ("Para one.", "\n\n\n## Next", "## Next", "Para one.\n\n## Next"),  # at most a paragraph
        ("Part one", "part two.", "part two.", "Part one part two."),  # a new turn without its space
        ("3.", "14 is pi", "14 is pi", "3.14 is pi"),  # nothing sent, nothing added
        ("Hello ", " world", "world", "Hello world"),  # the cut answer ends in a space already
        ("Part one,", "Final Answer: part two.", "part two.", "Part one,part two."),  # labels came first
    ],
)
def test_a_continuation_is_joined_with_the_whitespace_the_model_began_it_with(previous, raw, shown, joined):
    assert previous + _continuation_join(previous, shown, leading_space(raw, shown)) + shown == joined


def test_leading_space_is_found_only_when_the_shown_text_follows_it():
    assert leading_space("  \n answer", "answer") == "  \n "
    assert leading_space(" ans", "answer goes on") == " "  # the head is cut shorter than the text
    assert leading_space("\n<think>x</think>answer", "answer") == ""
    assert leading_space("answer", "answer") == ""
    assert leading_space("   ", "answer") == ""
