"""Replies made of one marker character again and again (``<``, ``>``, ``[``, line breaks, lines
that open a JSON value and never close it) are read at a cost that does not depend on how many
of them come in a row: a model looping on one token sends megabytes of them, and a run's deadline
is only checked between chunks.

Costs are counted (calls of the function that looked at each character) where that can be done,
else compared with prose of the same size read the same way, or with the same reply at a quarter
of the size (growth, never absolute times): this process's CPU time, best of three."""

import pytest

from agent_core import call_markup
from agent_core.call_markup import CallMarkup
from agent_core.react import parser
from agent_core.react.parser import ReactStreamParser
from tests.unit.test_reading_cost_of_repeated_markup import PROSE, _chunked_reading_time, _reading_time


def _chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _react_read(chunks: list[str]) -> tuple[str, str | None]:
    """(the thought, the final answer) of ``chunks`` read by the ReAct parser."""
    reader = ReactStreamParser()
    for chunk in chunks:
        reader.feed(chunk)
    reader.finish()
    turn = reader.result()
    return turn.thought, turn.final_answer


@pytest.mark.parametrize("before", ["", "Thought: ", "Final Answer: "])
def test_a_run_of_opening_angle_brackets_is_looked_at_once_a_chunk_not_once_a_character(before, monkeypatch):
    """Each ``<`` was tried as a tag (``_classify_tag``): 1 MB of them in 20-character chunks took
    seconds. A ``<`` followed by another opens no tag, so a run is passed on in one step."""
    looked = []
    real = parser._classify_tag
    monkeypatch.setattr(parser, "_classify_tag", lambda *args: looked.append(1) or real(*args))
    reply = before + "<" * 20_000
    chunks = _chunks(reply, 20)
    thought, answer = _react_read(chunks)
    assert (answer if before.startswith("Final") else thought).strip().endswith("<" * 20_000)
    assert len(looked) <= 3 * len(chunks), len(looked)  # was one a character: 20 a chunk


@pytest.mark.parametrize("unit", ["<", "<>", "[", "[[[[\n", ">", "> "])
def test_call_markup_passes_over_characters_no_marker_can_start_with_what_follows(unit, monkeypatch):
    """Every ``<``, ``[`` and ``>`` was looked at in Python as a marker's possible start (50 to 100
    times prose for a reply of them sent whole); only one followed by a marker's second character
    (or a tool's name, for ``<``) is, and a run of ``>`` is passed three characters to a ``>>>`` at
    once. The text passes unchanged."""
    looked = []
    real = call_markup._closes_tag
    monkeypatch.setattr(call_markup, "_closes_tag", lambda *args: looked.append(1) or real(*args))
    text = unit * (40_000 // len(unit))
    markup = CallMarkup()
    assert markup.feed(text) + markup.finish() == text
    assert len(looked) <= 3 * (len(text) // call_markup._FEED_SLICE + 1), len(looked)  # was one a character


def test_a_run_of_greater_than_signs_still_lets_a_recipient_after_it_be_read():
    """What passing a run of ``>`` at once must not change: it is read three characters to a
    ``>>>`` from its start, as before, so the last ``>>>`` before a name is a Functionary part or
    not by where the run began."""
    for run in range(3, 10):
        text = "Text.\n" + ">" * run + 'get_weather\n{"city": "Paris"}'
        for size in (1, 7, len(text)):
            markup = CallMarkup(recipient_in_prompt=True)
            out = "".join(markup.feed(piece) for piece in _chunks(text, size)) + markup.finish()
            called = "<tool_call>" in out
            assert called == (run % 3 == 0), (run, size, out)


# a line that opens a JSON value no call can be: each was decoded from a 4 KB window at every line
# (lines of "[" 1,000 to 5,000 times prose on main, "[[[[" about 800, "{" about 150); now 40 to 110
LINES_OF_OPENINGS = {"[": "[\n", "[[[[": "[[[[\n", "{": "{\n"}


@pytest.mark.parametrize("shape", LINES_OF_OPENINGS)
def test_react_reads_lines_that_open_no_call_in_a_small_multiple_of_prose(shape):
    size = 100_000
    prose = _reading_time("react", (PROSE * (size // len(PROSE) + 1))[:size])
    unit = LINES_OF_OPENINGS[shape]
    took = _reading_time("react", (unit * (size // len(unit) + 1))[:size])
    assert took < 300 * max(prose, 2e-4), (shape, took, prose)


def test_a_reply_of_line_breaks_streamed_costs_the_same_a_character_at_any_length():
    """The start of a reply is held while it is only whitespace (it may still open a Harmony or
    Functionary form); it was joined and stripped again whole at each chunk: Function Calling read
    100 KB of line breaks in 20-character chunks at 6 times prose, 400 KB at 21 times."""

    def ratio(size: int) -> float:
        prose = _chunked_reading_time("fc", (PROSE * (size // len(PROSE) + 1))[:size], 20)
        return _chunked_reading_time("fc", "\n" * size, 20) / max(prose, 2e-4)

    small, large = ratio(100_000), ratio(400_000)
    assert large < 2 * max(small, 1.0), (small, large)


def test_a_reply_of_line_breaks_is_still_held_and_shown_whole():
    """What holding the whitespace apart must not change: it is shown with the text after it."""
    text = "\n" * 1_000 + "Hello."
    markup = CallMarkup()
    pieces = [markup.feed(piece) for piece in _chunks(text, 20)]
    assert pieces[0] == "" and "".join(pieces) + markup.finish() == text


def test_reasoning_held_to_its_end_reads_thousands_of_quoted_ends_in_time_linear_in_its_length():
    """A model whose template may open the block in the prompt has its reply held up to a bare
    ``</think>``; each `` `</think>` `` written as code joined all that was held to be judged: a
    reply of them in 20-character chunks took 2.3 s at 1.6 MB, 0.05 s at 200 KB."""
    from agent_core.think import ThinkSplitter
    from tests.unit.test_reading_cost_of_repeated_markup import cpu_time

    def read(size: int) -> tuple[str, str]:
        text = "`</think>` " * (size // 11) + "</think>done"
        splitter = ThinkSplitter(opened=True)
        visible = [splitter.feed(piece).visible for piece in _chunks(text, 20)]
        return "".join(visible) + splitter.finish().visible, splitter.open_block

    assert read(1_100)[0] == "done"
    small, big = cpu_time(lambda: read(200_000)), cpu_time(lambda: read(1_600_000))
    assert big < 16 * max(small, 1e-3), (small, big)  # linear: 8x, quadratic: 64x
