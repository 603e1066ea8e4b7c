"""Reasoning blocks never leak into visible text, however the stream is split."""

from hypothesis import given
from hypothesis import strategies as st

from agent_core.think import ThinkSplitter, visible_text


def split_all(pieces):
    splitter = ThinkSplitter()
    visible, reasoning = [], []
    for piece in pieces:
        out = splitter.feed(piece)
        visible.append(out.visible)
        reasoning.append(out.reasoning)
    out = splitter.finish()
    return "".join(visible) + out.visible, "".join(reasoning) + out.reasoning


def test_block_split_across_chunks():
    assert split_all(["Hel", "lo <th", "ink>secret</thi", "nk> world"]) == ("Hello  world", "secret")


def test_unclosed_block_is_reasoning_and_case_is_ignored():
    assert split_all(["<THINKING>still going"]) == ("", "still going")


def test_lone_angle_bracket_is_visible():
    assert split_all(["a < b and <b>bold</b>"]) == ("a < b and <b>bold</b>", "")


texts = st.text(alphabet=st.sampled_from(list("ab <>/thinkg")), max_size=60)


@given(texts, st.lists(st.integers(1, 10), min_size=1, max_size=10))
def test_chunking_does_not_matter(text, sizes):
    pieces, i = [], 0
    while i < len(text):
        size = sizes[len(pieces) % len(sizes)]
        pieces.append(text[i : i + size])
        i += size
    assert split_all(pieces) == split_all([text])


def test_text_before_a_closing_tag_with_no_block_open_is_not_visible():
    """dify#17660, open-webui#9808: the template opened <think> in the prompt, so the reply holds
    the reasoning, a lone </think>, and the answer; memory must keep the answer only."""
    assert visible_text("The user greets me.\n</think>\n\nHello!") == "\n\nHello!"
    assert visible_text("<think>plan</think>Hello") == "Hello"
    assert visible_text("plain text") == "plain text"


def test_an_old_model_plugins_details_block_is_reasoning_and_other_details_are_the_answers():
    # model plugins built on dify-plugin before 0.0.1b73 wrapped reasoning_content in this block
    opener = (
        '<details style="color:gray;background-color: #f8f8f8;padding: 8px;border-radius: 4px;" open> '
        "<summary> Thinking... </summary>\n"
    )
    text = opener + "Simple greeting.\n</details>\n\nHello! <details><summary>More</summary>x</details>"
    for size in (len(text), 1, 5):
        visible, reasoning = split_all([text[i : i + size] for i in range(0, len(text), size)])
        assert reasoning == "\nSimple greeting.\n"
        assert visible == "\n\nHello! <details><summary>More</summary>x</details>"
    assert visible_text("a</details>b") == "a</details>b"  # a closing </details> alone is HTML
