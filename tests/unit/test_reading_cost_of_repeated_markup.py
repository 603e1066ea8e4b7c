"""A reply of thousands of calls or markup openings, valid or broken, is read in time in
proportion to its length, by both strategies' turn readers: a run's deadline is only checked
between chunks, so a reply that takes minutes to read runs past it.

Times are compared with prose of the same size read the same way (never absolute). They are the
process's CPU time (the readers run in this process, so another process on a loaded machine does
not count), the best of three readings."""

import time
from collections.abc import Callable

import pytest

from agent_core.function_calling.turn import read_function_calling_turn
from agent_core.model_call import ModelChunk
from agent_core.react.parser import parse_react
from agent_core.react.turn import read_react_turn
from agent_core.tool_calls import fresh_call_ids
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ToolCalls
from tests.unit.helpers import drain
from tests.unit.test_real_world_2026 import tool

SIZE = 300_000
TOOLS = (tool("get_weather", "city"), tool("read_file", "path"))
CALL = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
PROSE = "Some reasoning about the weather in Paris, and what the user asked for next.\n"


def _reply(unit: str, before: str = "") -> str:
    return (before + unit * (SIZE // len(unit) + 1))[:SIZE]


def _read(strategy: str, reply: str):
    chunks = iter([ModelChunk(text=reply), ModelChunk(finish_reason="stop")])
    if strategy == "react":
        return drain(read_react_turn(chunks, ToolRegistry(list(TOOLS)), 1))[1]
    return drain(read_function_calling_turn(chunks, [t.identity.name for t in TOOLS]))[1]


def cpu_time(work: Callable[[], object], repeats: int = 3) -> float:
    """Seconds of this process's CPU time ``work()`` takes, best of ``repeats`` calls."""
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best


def _reading_time(strategy: str, reply: str) -> float:
    return cpu_time(lambda: _read(strategy, reply))


# each took 2 to 100 s at this size (120 to over 5,000 times prose; past 60 s at 1 MB); now 2 to 40 times
SHAPES = {
    # 4,000 calls in <tool_call> blocks: each made-up call id tried every number before it, and
    # each block copied the rest of the text
    "tool_call": (f"<tool_call>{CALL}</tool_call>\n", ""),
    # Qwen3-Coder's bare <function=...> blocks sent whole
    "function=": ("<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n", ""),
    # Claude's <invoke> with a parameter never closed: each one read again to the text's end
    "invoke never closed": ('<invoke name="get_weather"><parameter name="city">Paris\n', ""),
    # Llama's <|python_tag|> calls cut at the end: read again from each token
    "python_tag": ('<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}\n', ""),
    # call objects a line each after a sentence, cut at the end: read again from each line
    "json after text": (CALL + "\n", "Let me check.\n"),
}


@pytest.mark.parametrize("strategy", ["react", "fc"])
@pytest.mark.parametrize("shape", SHAPES)
def test_a_reply_of_repeated_call_markup_is_read_within_a_small_multiple_of_prose(shape, strategy):
    prose = _reading_time(strategy, _reply(PROSE))
    took = _reading_time(strategy, _reply(*SHAPES[shape]))
    assert took < 100 * max(prose, 2e-4), (shape, strategy, took, prose)


def test_thousands_of_text_calls_keep_their_order_and_get_unique_ids():
    """What the faster id lookup must not change: every call written is kept, in order, with ids
    made one after the other."""
    turn = _read("fc", _reply(f"<tool_call>{CALL}</tool_call>\n"))
    assert isinstance(turn.decision, ToolCalls)
    ids = [call.id for call in turn.decision.calls]
    assert len(ids) == SIZE // len(f"<tool_call>{CALL}</tool_call>\n") and len(set(ids)) == len(ids)
    assert ids[:2] == ["c00010001", "c00010002"] and ids[-1] == f"c0001{len(ids):04d}"


def test_made_call_ids_cost_the_same_each_however_many_came_before():
    """Each made id tried every number from 1 on: 20,000 ids took 400 times as long as 2,000."""
    def timed(amount):
        return cpu_time(lambda: fresh_call_ids("c0001", amount, taken={"c00010002"}), repeats=5)

    few, many = timed(2_000), timed(20_000)
    assert many < 30 * max(few, 1e-4), (few, many)
    assert fresh_call_ids("c0001", 3, taken={"c00010002"}) == ["c00010001", "c00010003", "c00010004"]


# a JSON value that does not decode at a point far into a long text: the decoder's error counted
# every line before it, so thousands of them took time in the square of the text (3 to 9 s at 1 MB;
# at this size 70 to 140 times prose on main, now 5 to 30 times)
BROKEN_AFTER_LONG_TEXT = {
    # call objects cut at the end of each line, read as calls after a sentence (text_calls)
    "call objects cut": ("fc", '{"name": "get_weather", "arguments": {"city": "Par\n'),
    # a [TOOL_CALL] object never closed, again and again (the ReAct parser's strict JSON path)
    "[TOOL_CALL] never closed": ("react", '[TOOL_CALL] {"tool": "get_weather", \n'),
}


@pytest.mark.parametrize("shape", BROKEN_AFTER_LONG_TEXT)
def test_json_that_fails_to_decode_far_into_a_reply_costs_no_more_there(shape):
    strategy, unit = BROKEN_AFTER_LONG_TEXT[shape]
    size = 1_000_000
    prose = _reading_time(strategy, (PROSE * (size // len(PROSE) + 1))[:size])
    took = _reading_time(strategy, (unit * (size // len(unit) + 1))[:size])
    assert took < 40 * max(prose, 2e-4), (shape, strategy, took, prose)


# one value left open at the end of a reply sent whole, closed by its missing brackets and
# repaired: json_repair read "<tool_call>{" lines as one string a character at a time, copying
# what it had read at each (2 s at 400 KB: 130 times prose at 100 KB, over 200 at 400 KB; now
# about 20 at both, the text refused unrepaired: json_args.SLOW_STRING_MAX); objects cut after
# their name and value are repaired as before, in time linear in the reply (about 15 times prose)
OPEN_AT_THE_END = {"<tool_call>{ lines": "<tool_call>{\n", "objects after their name": '{"name": "get_weather"\n'}


@pytest.mark.parametrize("strategy", ["react", "fc"])
@pytest.mark.parametrize("shape", OPEN_AT_THE_END)
def test_a_value_left_open_at_the_end_costs_the_same_a_character_at_any_length(shape, strategy):
    unit = OPEN_AT_THE_END[shape]

    def ratio(size: int) -> float:
        reply = unit * (size // len(unit))  # whole lines: the value is cut at the same place in each
        prose = (PROSE * (len(reply) // len(PROSE) + 1))[: len(reply)]
        took = cpu_time(lambda: _read(strategy, reply), repeats=5)
        return took / max(cpu_time(lambda: _read(strategy, prose), repeats=5), 2e-4)

    # four times the text: a cost in its square would be four times the ratio; a linear one keeps
    # it (on a quiet machine 21 and 24 times prose at 100 KB and 400 KB). The smaller size is 100 KB,
    # not less: at 50 KB prose reads in 3 ms and one slow reading of it moved the ratio by half
    small, large = ratio(100_000), ratio(400_000)
    assert large < 2 * max(small, 1.0), (small, large)


def _chunked_reading_time(strategy: str, reply: str, size: int) -> float:
    """CPU time of reading ``reply`` sent in chunks of ``size`` characters, best of three."""
    chunks = [ModelChunk(text=reply[i : i + size]) for i in range(0, len(reply), size)]
    chunks.append(ModelChunk(finish_reason="stop"))

    def read():
        if strategy == "react":
            drain(read_react_turn(iter(chunks), ToolRegistry(list(TOOLS)), 1))
        else:
            drain(read_function_calling_turn(iter(chunks), [t.identity.name for t in TOOLS]))

    return cpu_time(read)


# Function Calling, a reply of reasoning tags only: what is left visible is thousands of newlines,
# which a fence search tried again from each one, and which the start of the reply stripped again
# at each chunk while it was whitespace only (10 s at 1 MB of </think>: 80 to 130 times prose on
# main, now about 10 to 25); a line of ">" that may still open "> Action:" was read again whole at
# each chunk (over 40 s at 1 MB in 20-character chunks: 110 times prose at 300 KB, now about 10)
REPEATED_TAGS = {
    "<think> blocks": ("<think>hmm</think>\n", None, 1_000_000),
    "</think> alone": ("</think>\n", None, SIZE),
    "</think> alone, in chunks": ("</think>\n", 4096, SIZE),
    "> in small chunks": (">", 20, SIZE),
}


@pytest.mark.parametrize("shape", REPEATED_TAGS)
def test_function_calling_reads_repeated_reasoning_tags_and_quote_marks_in_linear_time(shape):
    unit, chunk, size = REPEATED_TAGS[shape]
    prose_reply, reply = ((u * (size // len(u) + 1))[:size] for u in (PROSE, unit))
    if chunk is None:
        prose, took = _reading_time("fc", prose_reply), _reading_time("fc", reply)
    else:
        prose, took = _chunked_reading_time("fc", prose_reply, chunk), _chunked_reading_time("fc", reply, chunk)
    assert took < 50 * max(prose, 2e-4), (shape, took, prose)


def test_a_line_of_quote_marks_held_in_chunks_is_shown_whole_once_it_is_text():
    """What the faster hold must not change: the ">" line is held while it may open "> Action:",
    then shown whole, as it came."""
    reply = "Note:\n" + ">" * 500 + " a quote"
    chunks = [ModelChunk(text=reply[i : i + 20]) for i in range(0, len(reply), 20)]
    streamed, turn = drain(read_function_calling_turn(iter([*chunks, ModelChunk(finish_reason="stop")]), ["get_weather"]))
    assert streamed == reply
    assert isinstance(turn.decision, FinalAnswer) and turn.decision.text == reply


def test_react_reads_fences_of_objects_cut_after_their_first_key_in_a_small_multiple_of_prose():
    """A fence opening a list whose object stops after its first key, again and again: each
    block's ``[{"name"}]`` went through json_repair and the trust rule (0.1 ms a block: 8 to 13 s
    at 1 MB; at this size about 200 times prose on main, now about 70)."""
    prose = _reading_time("react", _reply(PROSE))
    took = _reading_time("react", _reply('```json\n[{"name"\n'))
    assert took < 120 * max(prose, 2e-4), (took, prose)


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_objects_whose_first_key_has_no_colon_run_together_are_read_in_a_small_multiple_of_prose(strategy):
    """The same fences with no line break between them (```` ```json\\n[{"name"```json\\n[{"name"... ````)
    reached json_repair as one value whose thousands of keys have no colon: it scanned the rest of
    the text for each (16 KB 0.8 s, 300 KB four minutes in one call no other session could
    interrupt). Such a value is now refused unrepaired (``json_args.costly_to_repair``)."""
    prose = _reading_time(strategy, _reply(PROSE))
    took = _reading_time(strategy, _reply('```json\n[{"name"'))
    assert took < 120 * max(prose, 2e-4), (took, prose)


# an action input that opens `key=` (or `key:`) and never becomes a list of arguments: the
# argument patterns backtracked over the whitespace, 5,000 spaces took about three minutes
ARGUMENT_SHAPES = {
    "spaces then a stray quote": ("query=", " ", '"x'),
    "quoted values then a stray quote": ("query=", "'a'  ", '"'),
    "a key line with long gaps": ("query: a", " b ", "\nlimit:"),
}


@pytest.mark.parametrize("shape", ARGUMENT_SHAPES, ids=list(ARGUMENT_SHAPES))
def test_an_input_that_only_looks_like_keyword_arguments_is_read_in_linear_time(shape):
    from agent_core.text_calls import call_arguments, keyword_arguments

    head, unit, tail = ARGUMENT_SHAPES[shape]
    properties = {"query": {"type": "string"}, "limit": {"type": "integer"}}

    def cost(text: str) -> float:
        return cpu_time(lambda: (keyword_arguments(text, properties), call_arguments(text)))

    size = 20_000
    shaped = head + unit * (size // len(unit)) + tail
    plain = head + "a" * len(shaped)
    assert cost(shaped) < 50 * cost(plain) + 0.01


def _answer_reading_time(count: int) -> float:
    """CPU time of reading a final answer that shows a code block of ``count`` lines, each with a
    stray closing tag the answer keeps as its text, best of three."""
    reply = "Thought: I know.\nFinal Answer: The template:\n```\n" + "x </tool_call>\n" * count + "```\nDone."
    answer = parse_react(reply).final_answer
    assert answer is not None and answer.count("</tool_call>") == count  # shown, not dropped
    return cpu_time(lambda: parse_react(reply))


def test_tags_an_answer_shows_in_code_are_read_in_time_linear_in_the_answer():
    """Whether the answer leaves code open was read again from its start at each such tag: 8 times
    the tags took 15 times as long at 8,000 (21 s), 64 times at this ratio; now about 8."""
    few, many = _answer_reading_time(500), _answer_reading_time(4_000)
    assert many < 24 * max(few, 1e-3), (few, many)
