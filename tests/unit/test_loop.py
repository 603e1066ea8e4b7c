"""The loop's pure helpers (agent_core.loop): how a cut answer and its continuation are joined."""

import time

import pytest

from agent_core import prompts
from agent_core.loop import (
    _continuation_join,
    _secret_across,
    _turn_log_data,
    continued_head_masked,
    cut_space,
    deadline_margin,
    leading_space,
    no_rest_notice,
    repeated_head,
    word_tail,
)
from agent_core.redaction import secret_forms
from agent_core.tool_calls import ToolCall
from agent_core.turn import FinalAnswer, ModelTurn, ParseFailure, ToolCalls
from agent_core.usage import empty_usage


@pytest.mark.parametrize(
    ("previous", "raw", "shown", "joined"),
    [
        ("Part one,", " part two.", "part two.", "Part one, part two."),  # the space the model sent
        ("Line one", "\nline two.", "line two.", "Line one\nline two."),  # a new line, not a space
        ("Para one.", "\n\n\n## Next", "## Next", "Para one.\n\n## Next"),  # at most a paragraph
        ("Part one", "part two.", "part two.", "Part one part two."),  # a new reply without its space
        ("Part one", " part two.", "part two.", "Part one part two."),  # the next word's token and its space
        # a cut inside a word whose rest came alone: the rarer shape, a space too (a word the rest
        # writes again is dropped instead: repeated_head)
        ("Paris is the capi", "tal.", "tal.", "Paris is the capi tal."),
        ('The river is', ' \\"la Seine\\"', '"la Seine"', 'The river is "la Seine"'),  # a JSON step's escape
        ("Line one", "\\nline two", "\nline two", "Line one\nline two"),  # an escaped line break
        ("3.", "14 is pi", "14 is pi", "3.14 is pi"),  # nothing sent, nothing added
        ("Hello ", " world", "world", "Hello world"),  # the cut answer ends in a space already
        ("Part one,", "Final Answer: part two.", "part two.", "Part one,part two."),  # labels came first
        # wave 38: a code answer cut at a line's end keeps its rest's indentation (Python's meaning)
        ("def f():", "\n    return 1", "return 1", "def f():\n    return 1"),
        ("def f():\n", "    return 1", "return 1", "def f():\n    return 1"),  # the break shown, then the indent
        ("a = 1", "\r\n\treturn", "return", "a = 1\n\treturn"),  # a Windows line end, a tab
        ("one ", "    two", "two", "one two"),  # mid-line: no indentation to keep
    ],
)
def test_a_continuation_is_joined_with_the_whitespace_the_model_began_it_with(previous, raw, shown, joined):
    assert previous + _continuation_join(previous, shown, leading_space(raw, shown)) + shown == joined


@pytest.mark.parametrize(("previous", "rest", "shown"), [
    ("Paris is the capi", "capital of France.", "tal of France."),  # the cut word restarted
    ("Paris is the", "the capital.", " capital."),  # the last word written again (its space after)
    ("It is a", "a good idea.", " good idea."),
    ("It is a", "aardvark.", "aardvark."),  # one letter: only a whole word is a repeat
    ("Rate: 3", "3.5%", ".5%"),
    ("Paris is the capi", "tal.", "tal."),  # no repeat
    ("The end.", "The next part.", "The next part."),  # the answer ended in no word
    ("x" * 50, "x" * 60, "x" * 60),  # a run without spaces is no word
    ("Key: &#83;&#5", "5;&#49;", "5;&#49;"),  # the digits of an escape the cut fell in: no word
    ("Key: %53%4", "4%45", "4%45"),
    ("Key: \\x53\\x4", "4\\x45", "4\\x45"),
    ("Key: 53:45:2d:3", "3:35:65", "3:35:65"),  # a hex pair the cut fell in: one character is no word
    ("Key: 53-2d-3", "3-35", "3-35"),
])
def test_a_rest_that_writes_the_cut_word_again_shows_only_what_goes_on(previous, rest, shown):
    assert rest[repeated_head(word_tail(previous), rest):] == shown


def test_leading_space_is_found_only_when_the_shown_text_follows_it():
    assert leading_space("  \n answer", "answer") == "  \n "
    assert leading_space(" ans", "answer goes on") == " "  # the head is cut shorter than the text
    assert leading_space("\n<think>x</think>answer", "answer") == ""
    assert leading_space("<think>Where did I stop?</think> four.", "four.") == " "  # after the block
    assert leading_space("answer", "answer") == ""
    assert leading_space("   ", "answer") == ""
    assert leading_space(" \\u00e9t\u00e9", "\u00e9t\u00e9") == " "
    assert leading_space(" \\q", "q") == ""  # no JSON escape


def test_the_line_breaks_that_close_a_reasoning_block_are_no_paragraph_of_the_rest():
    """Wave 37's campaign: a cut answer's rest that opened with a reasoning block, closed as the
    model plugins close one (``\\n</think>\\n\\n``), was joined by a paragraph break inside a
    sentence ("mild France 50% 🙂\\n\\nand mild France"); the space the model wrote is the joint."""
    rest = "<think>\nWhere was I?\n</think>\n\n and mild France"
    assert leading_space(rest, "and mild France") == " "
    previous = "mild France 50% 🙂"
    joint = _continuation_join(previous, "and mild France", leading_space(rest, "and mild France"))
    assert previous + joint + "and mild France" == "mild France 50% 🙂 and mild France"
    assert leading_space("<think>x</think>\n\nThe end", "The end") == ""  # no whitespace of the text's own
    assert leading_space("<think>x</think>\n\n\n## Next", "## Next") == ""


def test_the_line_break_a_cut_reply_ended_with_and_the_rests_indentation_both_join():
    """Wave 38: ReAct's ``Final Answer: ...def f():\n`` cut after its line break (the parser strips
    it: ``cut_space``), the rest ``    if x:``: the two whitespaces together are the joint, where
    the rest's alone made ``def f(): if x:``."""
    lead = cut_space("Final Answer: def f():\n", "def f():") + leading_space("    if x:", "if x:")
    assert "def f():" + _continuation_join("def f():", "if x:", lead) + "if x:" == "def f():\n    if x:"
    lead = cut_space("Final Answer: is ", "is") + leading_space(" Paris", "Paris")
    assert "is" + _continuation_join("is", "Paris", lead) + "Paris" == "is Paris"


def test_the_space_a_cut_reply_ended_with_joins_its_rest():
    """Wave 37's campaign: ReAct's ``Final Answer: is `` cut after its space, the rest
    ``«quoted» 🙂`` with none: the parser strips the answer's end, and the two were joined with
    nothing ("is«quoted»"). The space the cut reply ended with is the joint."""
    assert cut_space("Thought: x\nFinal Answer: is ", "is") == " "
    assert cut_space("Final Answer: one\n", "one") == "\n"
    assert cut_space("Final Answer: is", "is") == ""
    assert cut_space("is ", "is ") == ""  # the answer kept it: the join sees it there
    assert "is" + _continuation_join("is", "«quoted»", cut_space("Final Answer: is ", "is")) + "«quoted»" == "is «quoted»"


def test_no_space_is_put_inside_a_secret_the_cut_fell_in():
    """The cut fell inside a secret the model was writing: its two parts are joined as they came,
    so the guard sees (and hides) the whole secret rather than a start and a rest apart."""
    secrets = secret_forms({"SECRET-CANARY-93c1d7"})
    assert _secret_across("Key: SECRET-CANA", " ", "RY-93c1d7 done", secrets) == ""
    assert _secret_across("Key: SECRET-CANA", " ", "Rome is far", secrets) == " "  # not the secret after all
    assert _secret_across("Part one", " ", "part two", secrets) == " "
    assert _secret_across("Key: SECRET-CANA", " ", "RY-93c1d7", secret_forms(set())) == " "


@pytest.mark.parametrize("cut", ["The key", "Ask the vault", "the door", "Key: rt"])
def test_the_space_stays_when_the_rest_holds_a_whole_secret_of_its_own(cut):
    """A cut answer ending in a letter some form of a secret starts with ("y" of "key") and a rest
    that writes the whole secret after a word: the secret is the rest's own, not one the cut fell
    in, so the space stays ("The keyis [REDACTED]" before). The guard hides the secret either way."""
    secrets = secret_forms({"rt31-9c4e7b0a2d61"})
    assert _secret_across(cut, " ", "is rt31-9c4e7b0a2d61 ok", secrets) == " "
    assert _secret_across("Key: rt31-9c4e", " ", "7b0a2d61 then rt31-9c4e7b0a2d61", secrets) == ""


@pytest.mark.parametrize("size", [1, 2, 4, 8])
def test_no_space_is_put_inside_a_secret_whose_rest_streams_in_pieces(size):
    """The continuation's first streamed piece goes on with the secret without completing it
    (a stream of a few characters a chunk): a space put there let the guard hide the start
    and show the last piece ("[REDACTED]8")."""
    secrets = secret_forms({"SECRET-CANARY-93c1d7"})
    rest = "RY-93c1d7 done"
    assert _secret_across("Key: SECRET-CANA", " ", rest[:size], secrets) == ""
    assert _secret_across("Key: SECRET-CANA", " ", "R", secrets) == ""
    assert _secret_across("Key: SECRET-CANA", " ", "Ro", secrets) == " "  # not the secret's next characters
    assert _secret_across("Key: SECRET-CANA", " ", "", secrets) == " "


def test_the_space_between_two_words_of_a_passphrase_the_cut_fell_on_is_kept():
    """A passphrase cut between two words goes on after a space: dropped, the two parts made no
    form of it (its words stand apart), and the guard showed its last piece."""
    secrets = secret_forms({"alpha bravo7 charlie9"})
    assert _secret_across("Key: alpha", " ", "br", secrets) == " "
    assert _secret_across("Key: alpha bravo7", "\n", "ch", secrets) == "\n"
    assert _secret_across("Key: alpha bra", " ", "vo", secrets) == ""  # inside a word


def test_the_log_of_a_cut_reply_hides_a_start_of_a_secret_it_ends_with():
    """The limit cut the model's reasoning in the middle of a key: the Thought node showed its
    first characters (the chat hides such a start; the guard hides only whole secrets)."""
    secrets = secret_forms({"SECRET-CANARY-93c1d7"})
    usage = empty_usage()
    cut = ModelTurn(thought="Key: SECRET-CAN", decision=ParseFailure("cut"), usage=usage,
                    reasoning="the key is SECRET-CANAR", finish_reason="length", raw="Key: SECRET-CAN")
    data = _turn_log_data(cut, secrets)
    assert (data["output"], data["reasoning"], data["raw"]) == ("Key: [REDACTED]", "the key is [REDACTED]", "Key: [REDACTED]")
    whole = ModelTurn(thought="Key: SECRET-CAN", decision=FinalAnswer("Key: SECRET-CAN"), usage=usage, finish_reason="stop")
    assert _turn_log_data(whole, secrets)["output"] == "Key: SECRET-CAN"  # not cut: what it says is all it says


def test_the_thought_log_lists_the_calls_the_round_runs_and_counts_the_rest():
    """A reply of 50,000 actions listed every one in the Thought node's ``tool_input`` (megabytes,
    cut by the log cap); it lists the calls the round runs, in the model's order (an invalid call
    where the model wrote it), and counts the others."""
    from agent_core.round_cap import MAX_CALLS_PER_ROUND
    from agent_core.tool_calls import InvalidToolCall, ToolCall
    from agent_core.turn import ToolCalls

    calls = tuple(ToolCall(id=f"c{n}", name="get_weather", arguments={"city": f"C{n}"}) for n in range(1, 50_000))
    invalid = (InvalidToolCall(id="c0", name="get_weather", raw_arguments="{bad", error="not JSON"),)
    order = tuple(f"c{n}" for n in range(50_000))
    turn = ModelTurn(thought="", decision=ToolCalls(calls, invalid, order=order), usage=empty_usage())
    data = _turn_log_data(turn)
    assert len(data["tool_input"]) == MAX_CALLS_PER_ROUND
    assert data["tool_input"][0] == {"name": "get_weather", "args": "{bad"}
    assert data["tool_input"][1] == {"name": "get_weather", "args": {"city": "C1"}}
    assert data["tool_calls_not_listed"] == 50_000 - MAX_CALLS_PER_ROUND
    assert data["tool_name"].count("get_weather") == MAX_CALLS_PER_ROUND


def test_the_thought_log_of_a_round_within_the_cap_lists_every_call_and_no_count():
    from agent_core.tool_calls import ToolCall
    from agent_core.turn import ToolCalls

    calls = tuple(ToolCall(id=f"c{n}", name="t", arguments={}) for n in range(3))
    data = _turn_log_data(ModelTurn(thought="", decision=ToolCalls(calls), usage=empty_usage()))
    assert len(data["tool_input"]) == 3 and "tool_calls_not_listed" not in data


@pytest.mark.parametrize(("limit", "margin"), [(4, 2.0), (1, 0.5), (10, 2.0), (12, 2.0), (15, 2.0), (30, 3.0),
                                             (100, 10.0), (240, 24.0), (3600, 30.0)])
def test_the_time_kept_for_the_answer_leaves_a_short_run_time_to_run(limit, margin):
    """A daemon limit of 4 s with the usual 5 s margin left a run no time at all; one of 10 s left
    a tool call 3.5 s (a 5 s margin, then the answer's share)."""
    assert deadline_margin(limit) == margin
    assert deadline_margin(limit) < limit


def test_a_runs_time_counts_from_its_requests_arrival():
    """The daemon's clock started when it handed the request over: the parse and the parameters'
    reading before the loop count against the run (0.3-2.3 s for memory of megabytes)."""
    from agent_core import arrivals
    from agent_core.loop import run_start

    before = time.monotonic()
    arrivals.note("s-arrival", before - 3.0)
    assert run_start("s-arrival") == before - 3.0
    arrivals.note("s-arrival", before)  # a request sent again keeps the first arrival
    assert run_start("s-arrival") == before - 3.0
    assert before <= run_start("s-unknown") <= time.monotonic()
    assert before <= run_start(None) <= time.monotonic()


def test_arrivals_keep_a_bounded_number_of_sessions(monkeypatch):
    from agent_core import arrivals

    monkeypatch.setattr(arrivals, "REMEMBERED", 3)
    monkeypatch.setattr(arrivals, "_arrivals", type(arrivals._arrivals)())
    for n in range(5):
        arrivals.note(f"s{n}", float(n))
    assert [arrivals.arrived(f"s{n}") for n in range(5)] == [None, None, 2.0, 3.0, 4.0]


def _answered_then_stepped(after, calls=("search",), **kw):
    return ModelTurn(thought="I know it.", decision=FinalAnswer("Paris."), usage=empty_usage(),
                     after_answer=after, calls_after_answer=calls, **kw)


def test_the_thought_log_shows_the_step_written_after_the_answer_and_names_its_tool():
    """The Thought node held only output/answer/finish_reason: a user could not see that the
    model had asked for a tool after answering, nor why it did not run."""
    data = _turn_log_data(_answered_then_stepped('Action: search\nAction Input: {"q": "Lyon"}', ("search", "search", "calc")))
    assert data["not_read_after_answer"] == 'Action: search\nAction Input: {"q": "Lyon"}'
    assert data["calls_not_run_after_answer"] == "3: search, calc"
    assert "calls_not_run_after_answer" not in _turn_log_data(_answered_then_stepped("Observation: ok", ()))
    plain = _turn_log_data(ModelTurn(thought="", decision=FinalAnswer("Paris."), usage=empty_usage()))
    assert "not_read_after_answer" not in plain and "calls_not_run_after_answer" not in plain


def test_a_long_text_after_the_answer_is_cut_for_the_log_with_a_start_of_a_secret_at_the_cut_hidden():
    from agent_core.loop import AFTER_ANSWER_LOG_CHARS

    secrets = secret_forms({"SECRET-CANARY-93c1d7"})
    after = "Observation: " + "x" * (AFTER_ANSWER_LOG_CHARS - 13 - 10) + "SECRET-CANARY-93c1d7" + "y" * 500_000
    logged = _turn_log_data(_answered_then_stepped(after, ()), secrets)["not_read_after_answer"]
    assert len(logged) < AFTER_ANSWER_LOG_CHARS + 100 and "SECRET-CA" not in logged and "[REDACTED]" in logged
    assert logged.endswith(f"[... {len(after) - AFTER_ANSWER_LOG_CHARS} more characters not shown]")


CALL = ToolCalls((ToolCall("c9", "lookup", {"q": "Par"}),))


@pytest.mark.parametrize(("decision", "cut", "notice"), [
    # a continuation that is only a call the limit cut gave no rest: the run ends (no third request,
    # which would show a second answer under the cut one); wave 35 found Function Calling asking again
    (CALL, True, prompts.ANSWER_CUT_OFF),
    (ParseFailure("unreadable"), True, prompts.ANSWER_CUT_OFF),
    (ParseFailure("unreadable"), False, prompts.ANSWER_REST_MISSING),
    (CALL, False, ""),  # a whole call the limit did not cut runs
    (FinalAnswer("the rest"), True, ""),  # an answer's text is the rest: read by the loop
    (FinalAnswer("the rest"), False, ""),
])
def test_a_continuation_that_gave_no_rest_ends_with_its_notice(decision, cut, notice):
    assert no_rest_notice(decision, cut) == notice


KEY = "rt31-9c4e7b0a2d61"


@pytest.mark.parametrize("rest", ["9c4e7b0a2d61 is it.", " 9c4e7b0a2d61 is it.", "2d61 is it."])
def test_a_continuations_log_hides_the_keys_rest_also_after_the_cut_word_written_again(rest):
    """Cut after 'rt31-9c4e7b0a'; the rest writes the cut word again ('9c4e7b0a') and finishes the
    key: the log showed '9c4e7b0a2d61 is it.' (12 of the key's 17 characters)."""
    forms = secret_forms({KEY})
    assert continued_head_masked("Key " + KEY[:13], rest, forms) == "[REDACTED] is it."


def test_a_continuation_that_restarts_an_ordinary_word_is_logged_as_written():
    forms = secret_forms({KEY})
    assert continued_head_masked("The capital is Par", "Paris, of course.", forms) == "Paris, of course."
    assert continued_head_masked("Key " + KEY[:2], "rt is it.", forms) == "rt is it.", "two characters are no start"


def test_the_cut_word_written_again_inside_a_hidden_start_is_hidden_whatever_follows():
    forms = secret_forms({KEY})
    assert continued_head_masked("Key " + KEY[:13], "9c4e7b0a is not it.", forms) == "[REDACTED] is not it."
