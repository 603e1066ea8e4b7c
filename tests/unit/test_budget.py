"""Prompt budget arithmetic and the memoized token count."""

import math
import re

from dify_plugin.entities.model.message import AssistantPromptMessage, ToolPromptMessage, UserPromptMessage
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_core.budget import (
    MESSAGE_OVERHEAD,
    SEGMENT_CHARS,
    count_tokens,
    history_turns,
    in_pieces,
    message_tokens,
    pieces_tokens,
)
from agent_core.tokens import estimate_tokens


@settings(max_examples=50)
@given(st.lists(st.text(max_size=300), min_size=1, max_size=80))
def test_segmented_count_stays_close_to_the_full_estimate(lines):
    text = "\n".join(lines) * 10
    segments = len(text) // SEGMENT_CHARS + 1
    assert abs(count_tokens(text) - estimate_tokens(text)) <= segments


_PIECE_TEXT = st.text(st.sampled_from(list("abcdefXYZ0123 \t\n\u3000.,:_{}\"()中文。éж😀")), max_size=40)


_RUNS = {"space": re.compile(r"\s*"), "punct": re.compile(r"(?:[^\w\s\U00010000-\U0010ffff]|_)*")}


def _over_allowed(pieces):
    """How far ``pieces_tokens`` may count above the whole text's estimate: 2 tokens a piece,
    and 1.2 for each ideographic space or CJK punctuation mark in the run of whitespace or
    punctuation a piece starts with after a piece that is one such run alone (where that run
    began is not known from the piece before: after a full whitespace or punctuation piece each
    such mark is a CJK character of its own)."""
    allowed, before = 0.0, ""
    for piece in filter(None, pieces):
        allowed += 2
        for run in _RUNS.values():
            if before and run.fullmatch(before):
                head = run.match(piece).group()
                allowed += 1.2 * sum(1 for char in head if char == "\u3000" or "\u3000" < char <= "\u303f")
        before = piece
    return math.floor(allowed)


@settings(max_examples=600, deadline=None)
@given(st.lists(_PIECE_TEXT, max_size=12))
def test_a_text_counted_in_pieces_is_never_under_its_whole_estimate(pieces):
    """A prompt counted piece by piece (a scratchpad's rounds) never looks smaller than it is,
    wherever the pieces are cut (inside a word, a digit group, a whitespace or punctuation run),
    and is over by at most 2 tokens a piece (and 1.2 a CJK space or punctuation mark, ``_over_allowed``)."""
    whole = estimate_tokens("".join(pieces))
    counted = pieces_tokens(pieces)
    assert whole <= counted <= whole + _over_allowed(pieces)


def test_a_join_that_cuts_a_punctuation_run_anew_is_counted_as_the_whole():
    """Joined, ``_)`` starts a punctuation run that ends before ``。``, which then costs a CJK
    character (1.2) where, inside ``)。,`` alone, it cost nothing: the pieces counted 6 for a
    text of 7."""
    pieces = ["}_1,_", ")\u3002,\td"]
    assert pieces_tokens(pieces) >= estimate_tokens("".join(pieces)) == 7


def test_ideographic_spaces_inside_a_whitespace_run_cost_no_more_than_the_run_allows():
    """An ideographic space costs 1.2 at a piece's start and nothing inside a whitespace run:
    each piece counted 4 (1.2 + a line break, rounded up, + 1 for the join) for a whole of 1."""
    pieces = [" "] + ["\u3000\n"] * 4
    whole = estimate_tokens("".join(pieces))
    assert whole == 1
    assert whole <= pieces_tokens(pieces) <= whole + _over_allowed(pieces)
    worded = ["x "] + ["\u3000\nx "] * 4  # each run starts in the piece before: every join exact
    whole = estimate_tokens("".join(worded))
    assert whole <= pieces_tokens(worded) <= whole + len(worded) - 1  # the rounding alone


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECE_TEXT, max_size=8), st.lists(_PIECE_TEXT, max_size=8))
def test_pieces_added_to_a_counted_text_are_counted_as_the_whole(first, added):
    """A text that only grows (a ReAct scratchpad) is counted by its new pieces, after the last
    piece of what was counted: the same count as all its pieces counted anew."""
    last = next((piece for piece in reversed(first) if piece), "")
    assert pieces_tokens(first) + pieces_tokens(added, after=last) == pieces_tokens(first + added)


def test_long_pieces_a_line_apart_count_about_as_the_whole():
    rounds = [f"Thought: step {n}\nObservation: " + "word, 12 ünïcode 中文 " * (40 * n) for n in range(1, 30)]
    pieces = [piece for n, text in enumerate(rounds) for piece in (["\n"] if n else []) + [text]]
    whole = estimate_tokens("".join(pieces))
    assert whole <= pieces_tokens(pieces) <= whole + len(pieces)


def test_a_message_in_pieces_is_measured_by_its_pieces_and_wrong_pieces_are_ignored():
    pieces = ["Thought: a\nObservation: " + "x" * 5000, "\n", "Thought: b"]
    message = in_pieces(AssistantPromptMessage(content="".join(pieces)), pieces)
    assert message_tokens(message) == MESSAGE_OVERHEAD + pieces_tokens(pieces)
    kept = in_pieces(AssistantPromptMessage(content="".join(pieces)), pieces, tokens=123)  # the caller's count
    assert message_tokens(kept) == MESSAGE_OVERHEAD + 123
    wrong = in_pieces(AssistantPromptMessage(content="short"), pieces)  # not its text: counted whole
    assert message_tokens(wrong) == MESSAGE_OVERHEAD + count_tokens("short")


def test_history_turns_start_at_user_messages_and_keep_tool_results_with_their_calls():
    history = [
        UserPromptMessage(content="q1"),
        AssistantPromptMessage(content="", tool_calls=[]),
        ToolPromptMessage(content="r", tool_call_id="a"),
        UserPromptMessage(content="q2"),
    ]
    assert [len(turn) for turn in history_turns(history)] == [3, 1]


def _params(context_size, completion_params, rules=()):
    from agent_core.params import StrategyParams
    from local_runner.scenario import ModelSettings

    selector = ModelSettings(context_size=context_size, completion_params=completion_params).selector([])
    for rule in rules:
        selector["entity"]["parameter_rules"].append(rule)
    return StrategyParams.model_validate({"model": selector, "query": "q"})


def test_a_max_tokens_as_large_as_the_window_leaves_the_prompt_half_of_it():
    from agent_core.budget import SAFETY_MARGIN, prompt_budget

    assert prompt_budget(_params(8192, {"max_tokens": 8192})) == int(4096 * (1 - SAFETY_MARGIN))
    assert prompt_budget(_params(8192, {"max_tokens": 1024})) == int(7168 * (1 - SAFETY_MARGIN))


def test_the_reply_limit_is_lowered_only_when_prompt_and_max_tokens_would_not_fit():
    from agent_core.budget import LEAST_REPLY_TOKENS, SAFETY_MARGIN, reply_limit

    params = _params(8192, {"max_tokens": 8192})
    assert reply_limit(params, 3000) == {"max_tokens": 8192 - math.ceil(3000 * (1 + SAFETY_MARGIN))}
    assert reply_limit(params, 9000) == {}  # no room worth asking for: the provider says the prompt is too long
    assert reply_limit(params, int((8192 - LEAST_REPLY_TOKENS) / (1 + SAFETY_MARGIN))) == {"max_tokens": LEAST_REPLY_TOKENS}
    assert reply_limit(_params(8192, {"max_tokens": 1024}), 3000) == {}
    assert reply_limit(_params(8192, {}), 3000) == {}  # not set: the model plugin's default
    assert reply_limit(_params(None, {"max_tokens": 8192}), 3000) == {}  # window unknown


def test_the_reply_limit_uses_the_name_the_model_gives_max_tokens():
    from agent_core.budget import reply_limit

    rule = {"name": "max_output_tokens", "use_template": "max_tokens", "type": "int", "label": {"en_US": "Max"}}
    params = _params(32768, {"max_output_tokens": "32768"}, [rule])
    assert list(reply_limit(params, 10000)) == ["max_output_tokens"]


def test_a_pdf_costs_tokens_for_each_of_its_pages():
    """A document part counts ``DOCUMENT_PAGE_TOKENS`` a page (not one image's cost: a 40-page
    report would otherwise pass as 765 tokens and overrun the window)."""
    import base64

    from dify_plugin.entities.model.message import DocumentPromptMessageContent

    from agent_core.budget import DOCUMENT_PAGE_BYTES, DOCUMENT_PAGE_TOKENS, message_tokens, pdf_pages

    pages = b"%PDF-1.4 1 0 obj<</Type /Pages /Count 40>>endobj" + b"".join(b"<</Type /Page>>" for _ in range(40))
    assert pdf_pages(pages) == 40
    assert pdf_pages(b"%PDF-1.5 <</Type/ObjStm>> <</Count 7>>") == 7  # page objects compressed: the page tree's count
    assert pdf_pages(b"\x00" * (3 * DOCUMENT_PAGE_BYTES)) == 3  # nothing readable: by size
    part = DocumentPromptMessageContent(base64_data=base64.b64encode(pages).decode(), format="pdf", mime_type="application/pdf")
    assert message_tokens(UserPromptMessage(content=[part])) >= 40 * DOCUMENT_PAGE_TOKENS
    by_address = DocumentPromptMessageContent(url="https://example.com/a.pdf", format="pdf", mime_type="application/pdf")
    assert message_tokens(UserPromptMessage(content=[by_address])) >= DOCUMENT_PAGE_TOKENS


def test_measuring_the_bytes_of_thousands_of_messages_gives_way_between_two(monkeypatch):
    """5,000 messages of memory measured in a row (``request_bytes``, every build of a prompt)
    took some 60 ms without letting another session run."""
    from agent_core import budget
    from agent_core.model_call import ModelRequest

    ways = []
    monkeypatch.setattr(budget, "give_way", lambda: ways.append(1))
    messages = [UserPromptMessage(content=f"question {n}") for n in range(500)]
    assert budget.request_bytes(ModelRequest(prompt_messages=messages)) > 0
    assert len(ways) >= 500


def test_call_ids_count_in_the_request_bytes():
    """The Vertex AI plugin keeps Gemini's thought signature in the call id (kilobytes): a
    request's byte bound must count the id twice (the call and its result), or a run of many
    calls could send a request line past the daemon's limit."""
    from agent_core.budget import request_bytes
    from agent_core.model_call import ModelRequest

    def request(call_id):
        call = AssistantPromptMessage.ToolCall(
            id=call_id, type="function",
            function=AssistantPromptMessage.ToolCall.ToolCallFunction(name="f", arguments="{}"),
        )
        return ModelRequest(prompt_messages=[
            AssistantPromptMessage(content="", tool_calls=[call]),
            ToolPromptMessage(content="r", tool_call_id=call_id, name="f"),
        ])

    short, signed = request_bytes(request("f")), request_bytes(request("f::sig::" + "A" * 40_000))
    assert signed - short >= 2 * 40_000


def test_pieces_of_gives_the_pieces_a_message_was_noted_in_with_or_without_their_count():
    """The ReAct scratchpad is redacted piece by piece from ``pieces_of``; with the count kept
    beside the pieces, it returned the (pieces, count) pair and every run with a secret failed."""
    from dify_plugin.entities.model.message import UserPromptMessage

    from agent_core.budget import in_pieces, pieces_of, pieces_tokens

    pieces = ["Thought: a\n", "Observation: b\n"]
    counted = in_pieces(UserPromptMessage(content="".join(pieces)), pieces, pieces_tokens(pieces))
    plain = in_pieces(UserPromptMessage(content="".join(pieces)), pieces)
    assert pieces_of(counted) == pieces_of(plain) == tuple(pieces)
    assert pieces_of(UserPromptMessage(content="x")) is None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 7), max_size=12), min_size=1, max_size=8))
def test_prefix_sums_are_the_sums_of_every_list_measured_in_turn(picks):
    """A run's prompts, each made of message objects the ones before may share (or not, after
    a trim), measured in turn: each sum is the whole list's, whatever was measured before."""
    from agent_core.budget import PrefixSums, message_tokens

    pool = [UserPromptMessage(content="word " * n) for n in range(1, 9)]
    summed = PrefixSums(message_tokens)
    for pick in picks:
        messages = [pool[i] for i in pick]
        assert summed(messages) == sum(message_tokens(message) for message in messages)


def test_a_run_measures_each_message_of_its_growing_prompt_once():
    from agent_core.budget import PrefixSums

    seen = []
    summed = PrefixSums(lambda message: seen.append(message) or len(message.content))
    prompt = [UserPromptMessage(content="question")]
    for round_ in range(1, 6):
        prompt = [*prompt, AssistantPromptMessage(content=f"call {round_}"), ToolPromptMessage(content="result", tool_call_id=str(round_))]
        assert summed(prompt) == sum(len(message.content) for message in prompt)
    assert len(seen) == len(prompt)  # each message looked up once in the five rounds
