"""The constant cost of reading one ReAct reply: which Python-level calls a short reply makes.

Timing is left to ``bench/``; these tests count calls (``sys.setprofile``), which do not depend
on the machine, so that work done once per step or per line start cannot creep back."""

import enum
import gc
import json
import json.decoder
import re
import sys
from collections import Counter
from itertools import pairwise

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agent_core import call_markup, text_calls, think
from agent_core.json_args import surrogates_replaced
from agent_core.react import parser
from agent_core.react.parser import ReactStreamParser, parse_react
from agent_core.text_calls import decode_input, decode_json

TOOL_REPLY = (
    "Thought: be was updat\nAction:\n```json\n"
    '{"action": "tool_000", "action_input": {"query": "records for case 3", "limit": 5}}\n```'
)
FINAL_REPLY = "Thought: I know.\nFinal Answer: The answer is 42."


def _pieces(text: str, count: int) -> list[str]:
    size = -(-len(text) // count)
    return [text[i : i + size] for i in range(0, len(text), size)]


def _python_calls(chunks: list[str]) -> Counter[tuple[str, str]]:
    """(file, function name) of every Python-level call made while reading ``chunks``."""
    calls: Counter[tuple[str, str]] = Counter()

    def profile(frame, event, arg):
        if event == "call":
            calls[(frame.f_code.co_filename, frame.f_code.co_name)] += 1

    _read(chunks)  # anything compiled or cached on first use is so now
    parser = ReactStreamParser()
    gc.collect()  # an earlier test's garbage (an unfinished generator's close) is not counted here
    gc.disable()
    sys.setprofile(profile)
    try:
        for chunk in chunks:
            parser.feed(chunk)
        parser.finish()
    finally:
        sys.setprofile(None)
        gc.enable()
    parser.result()
    return calls


def test_no_python_level_hash_or_regex_cache_lookup_per_step():
    # state lookups hash the state enum; a module-level re.sub looks its pattern up each call
    for chunks in ([TOOL_REPLY], _pieces(TOOL_REPLY, 10), [FINAL_REPLY], _pieces(FINAL_REPLY, 10)):
        calls = _python_calls(chunks)
        assert not [call for call in calls if call[0] in (enum.__file__, re.__file__)], calls


def test_a_line_of_prose_tries_no_label():
    # only labels whose first word starts with the line's first letter can match there
    calls = _python_calls(["Paris is the capital.\nBerlin is another.\n- Rome too\n"])
    assert calls[(parser.__file__, "_label_end")] == 0, calls


def _match_label_every(text, i, eof, labels=parser._LABELS, alone=False):
    """``_match_label`` as it read before the first-character index: every label tried."""
    seg = text[i : i + parser._LABEL_MAX].lower()
    cut = len(text) - i > parser._LABEL_MAX
    partial = False
    for kind, words in labels:
        found = parser._label_end(seg, words, alone and kind == "final_answer")
        if isinstance(found, tuple):
            end, open_tail = found
            if open_tail and not eof and not cut:
                return parser._NEED
            return parser._Marker(kind, i + end)
        partial = partial or found is parser._NEED
    if not partial or cut:
        return None
    if not eof:
        return parser._NEED
    word = seg.strip()
    return parser._Marker("stop_partial", len(text)) if len(word) >= 2 and "observation".startswith(word) else None


_LABEL_TEXT = st.lists(
    st.sampled_from(
        ["Thought", "Action", "Action Input", "Final Answer", "Answer", "Observ", "Observation", "input", "Params",
         "args", "Question", "问题", "思考", "行动", "行动输入", "最终答案", "최종 답변", "観察", "İ", "ﬁnal", "ß",
         ":", "：", " ", "\t", "_", "-", "s", "*", "**", "\n", "\r", "\r\n", "2", "x", "T", "a", "F", "o", "最"]
    ),
    max_size=10,
).map("".join)


_ALL_LABEL_WORDS = sorted({words for table in (parser._LABELS, parser._INPUT_LABELS, parser._QUESTION_LABELS) for _, words in table})


@st.composite
def _written_labels(draw) -> str:
    """A label as models write it (any case, separators, plural, numbering, colon or line end),
    cut anywhere, with text after it."""
    words = draw(st.sampled_from(_ALL_LABEL_WORDS))
    joiner = draw(st.sampled_from([" ", "_", "-", "", "  ", " _ ", "\t"]))
    label = joiner.join(words)
    label = draw(st.sampled_from([label, label.title(), label.upper()]))
    tail = draw(st.lists(st.sampled_from(["s", " ", "\t", "*", "**", "_", "2", ":", "：", "\n", "\r\n", "\r", "x", "-"]), max_size=5))
    after = draw(st.sampled_from(["", " search", "\n", "Action: y"]))
    text = label + "".join(tail) + after
    return text[: draw(st.integers(0, len(text)))]


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=st.one_of(_LABEL_TEXT, _written_labels()),
    at=st.integers(0, 3),
    eof=st.booleans(),
    table=st.sampled_from(["react", "input", "question"]),
    alone=st.booleans(),
)
def test_match_label_is_match_label_trying_every_label(text, at, eof, table, alone):
    # the table's pattern and its first-character index give what _label_end gives label by label
    labels = {"react": parser._LABELS, "input": parser._INPUT_LABELS, "question": parser._QUESTION_LABELS}[table]
    at = min(at, len(text))
    assert parser._match_label(text, at, eof, labels, alone) == _match_label_every(text, at, eof, labels, alone)


_LABEL_SUFFIXES = ["", "s", "ss", " ", "\t", "*", "**", "_", "2", " 2", "-", ":", "：", ": ", ":**", ":** ", ":\t", "s:",
                   " *1_ :", "\n", "\r\n", "\r", " \n", "*\n", "s\n", "x", " :x", "x:", ".:", "\r:", "\n:", ":\n"]


def test_match_label_is_match_label_trying_every_label_on_every_written_label():
    # every label of every table, in the shapes around its words that _label_end reads
    tables = (parser._LABELS, parser._INPUT_LABELS, parser._QUESTION_LABELS)
    for table in tables:
        for words in _ALL_LABEL_WORDS:
            for label in {" ".join(words), "_".join(words), " - ".join(words), ".".join(words), "".join(words).upper()}:
                for suffix in _LABEL_SUFFIXES:
                    for after in ("", "x", " y", "\n"):
                        text = "## " + label + suffix + after
                        for eof in (False, True):
                            for alone in (False, True):
                                expected = _match_label_every(text, 3, eof, table, alone)
                                assert parser._match_label(text, 3, eof, table, alone) == expected, (text, eof, alone)


def _read(chunks: list[str]) -> tuple[list, object]:
    parser = ReactStreamParser()
    events = [parser.feed(chunk) for chunk in chunks]
    events.append(parser.finish())
    return events, parser.result()


def _assert_reads_as_the_steps_alone(text: str, cuts: list[int], owner: object, name: str, off: object) -> None:
    """``text`` read whole, a character at a time and cut at ``cuts`` gives the same events and
    turn with the fast path ``owner.name`` as with it switched off (set to ``off``)."""
    bounds = sorted({0, len(text), *(cut for cut in cuts if cut < len(text))})
    for chunks in ([text], list(text), [text[a:b] for a, b in pairwise(bounds)]):
        fast = _read(chunks)
        original = getattr(owner, name)
        setattr(owner, name, off)
        try:
            slow = _read(chunks)
        finally:
            setattr(owner, name, original)
        assert fast == slow, chunks


_JSON_PIECES = st.lists(
    st.sampled_from(
        ['{"', '"}', "{", "}", "[", "]", '"', "'", "\\", '\\"', "\\n", "\\\n", "\n", "<", "</tool_call>", "```", "\n```\n",
         ":", ",", " ", "a", "q", '"x y"', '{"a": 1', '"name"', '"arguments"', '"action"', '"action_input"', "5", "é",
         "Thought: x", "\nAction: y"]
    ),
    max_size=24,
).map("".join)
_JSON_OPENERS = st.sampled_from(
    ["Action: search\nAction Input: ", "Action:\n```json\n", "Thought: look\n", "Action: ", "<tool_call>",
     "Action: search\n", ""]
)


@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow])
@example(opener="Action:\n```json\n", body='{"a": 1\n```\nThought: x', cuts=[])  # a fence ends an unbalanced blob
@example(opener="Action:\n```json\n", body='{"a": "x\\\n```"}\n```', cuts=[24])  # an escaped raw newline: a line start
@example(opener="Thought: look\n", body='{"a": "x\nThought: y"}', cuts=[])  # a raw newline in a string
@given(opener=_JSON_OPENERS, body=_JSON_PIECES, cuts=st.lists(st.integers(1, 200), max_size=6))
def test_the_json_run_reads_as_the_steps_do(opener, body, cuts):
    _assert_reads_as_the_steps_alone(opener + body, cuts, ReactStreamParser, "_json_run", lambda self: False)


def test_a_reply_without_call_markup_never_reads_its_code_quotes():
    # CallMarkup asks whether a marker stands in code only when one comes (CodeQuote read late)
    for chunks in ([TOOL_REPLY], _pieces(TOOL_REPLY, 10)):
        calls = _python_calls(chunks)
        assert calls[(call_markup.__file__, "_read")] == 0, calls
        assert calls[(call_markup.__file__, "feed")] == len(chunks), calls  # CallMarkup.feed, no CodeQuote.feed


def test_the_end_of_a_reply_with_nothing_held_is_read_at_once():
    calls = _python_calls([FINAL_REPLY])
    assert calls[(think.__file__, "release")] == 0, calls  # ThinkSplitter.finish: nothing held
    assert calls[(call_markup.__file__, "_drain")] == 0, calls  # CallMarkup.finish: nothing held
    assert calls[(call_markup.__file__, "<genexpr>")] == 0, calls  # no thought-process phrase starts with "T"


def test_a_whole_json_blob_is_decoded_once():
    calls = _python_calls([TOOL_REPLY])
    assert calls[(json.decoder.__file__, "raw_decode")] == 1, calls


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    value=st.lists(_JSON_VALUES, max_size=4) | st.dictionaries(st.text(max_size=8), _JSON_VALUES, max_size=4),
    ascii_only=st.booleans(),
    indent=st.sampled_from([None, 1]),
)
def test_strict_json_is_what_decode_input_and_decode_json_give(value, ascii_only, indent):
    # _json_done takes the value _whole_json_end decoded instead of decoding the text again
    text = json.dumps(value, ensure_ascii=ascii_only, indent=indent)
    strict = surrogates_replaced(json.loads(text), text)
    assert decode_json(text) == strict
    assert decode_input(text) == strict


def test_a_lone_surrogate_in_a_whole_json_blob_is_replaced():
    for reply in ('Action: search\nAction Input: {"q": "a\\ud800b"}',
                  'Action:\n```json\n{"action": "search", "action_input": {"q": "a\\ud800b"}}\n```'):
        assert parse_react(reply).actions[0].input == {"q": "a\ufffdb"}


def _markup_read(chunks: list[str]) -> tuple[list[str], str]:
    markup = call_markup.CallMarkup()
    return [markup.feed(chunk) for chunk in chunks], markup.finish()


_OPENINGS = st.lists(
    st.sampled_from(
        ["Thought", ":", " ", "\n", "\r\n", "analysis", "We", "assistantfinal", "Here", "here's", " is my thought process:",
         "Here are my reasoning steps:", ">>>", "all", "get_weather", "{", '"a"', "}", "a", "h", "H", ">", "_x", ".", "-",
         "1", "é", "思考", "<tool_call>", "`"]
    ),
    max_size=6,
).map("".join)


@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow])
@example(head=">>>all\nHello", cut=3)  # Functionary's recipient line
@example(head='get_weather\n{"a": 1}', cut=40)  # its first call part
@example(head='get_weather\r\n{"a": 1}', cut=0)
@example(head="analysisWe need", cut=2)  # Harmony without its tokens
@example(head="Here is my thought process: x", cut=40)  # Granite
@given(head=_OPENINGS, cut=st.integers(0, 40))
def test_a_plain_opening_passes_as_the_opening_checks_pass_it(head, cut):
    chunks = [head[:cut], head[cut:]]
    fast = _markup_read(chunks)
    original = call_markup._PLAIN_OPENING
    call_markup._PLAIN_OPENING = re.compile(r"(?!)")  # every check made
    try:
        slow = _markup_read(chunks)
    finally:
        call_markup._PLAIN_OPENING = original
    assert fast == slow


def test_a_line_of_thought_and_its_line_break_are_one_step():
    calls = _python_calls(["Thought: I know.\nIt is late.\nFinal Answer: 42."])
    assert calls[(parser.__file__, "_emit_thought")] == 2, calls


_REPLIES = st.lists(
    st.sampled_from(
        ["Thought: ", "I know", ".", " ", "\n", "\r\n", "F", "Final Answer: ", "Final Answer", " Final Answer: x", "Fine",
         "<", "<think>", "</think>", "<tool_call>", '{"name": "search", "arguments": {}}', "</tool_call>", "<|eot_id|>",
         "Action: search\n", "Action Input: {\"q\": 1}\n", "Observation: y\n", "Answer: 4", "```json\n", "```\n", "{",
         '"a"', "}", "## ", "**", "Question: q\n", "思考：", "x"]
    ),
    max_size=14,
).map("".join)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(text=_REPLIES, cuts=st.lists(st.integers(1, 200), max_size=5))
def test_a_run_of_thought_reads_as_the_steps_do(text, cuts):
    _assert_reads_as_the_steps_alone(text, cuts, parser, "_THOUGHT_RUN", re.compile(r"(?!)"))


def test_the_fence_after_action_is_classified_once():
    calls = _python_calls([TOOL_REPLY])
    assert calls[(parser.__file__, "_classify_fence")] == 1, calls


def test_a_reply_looks_up_its_label_table_and_ends_its_reasoning_split_at_once():
    calls = _python_calls([FINAL_REPLY])
    assert calls[(parser.__file__, "_label_table")] == 0, calls  # the ReAct table is bound once
    assert calls[(think.__file__, "_may_hold_tag")] == 0, calls  # the reply's one piece read inline; nothing at the end


class _Every:
    def __contains__(self, item: object) -> bool:
        return True


@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow])
@given(
    prefix=st.sampled_from(["", " ", "## ", "**", "> ", "- ", "\t", "`", "```json\n", "{", "[", "[TOOL_CALLS]", "functools["]),
    text=st.one_of(_LABEL_TEXT, _written_labels()),
    eof=st.booleans(),
    alone=st.booleans(),
)
def test_classify_line_without_markdown_is_classify_line_looking_at_every_opener(prefix, text, eof, alone):
    line = prefix + text
    fast = parser._classify_line(line, 0, eof, alone)
    original = parser._LINE_OPENERS
    parser._LINE_OPENERS = _Every()  # every line read from its first character on
    try:
        slow = parser._classify_line(line, 0, eof, alone)
    finally:
        parser._LINE_OPENERS = original
    assert fast == slow


_NAMES = st.one_of(
    st.text(max_size=14),
    st.lists(st.sampled_from(["Final", "final", "FINAL", "Answer", "answer", "finish", "Finish", " ", "_", "-", "\t",
                              "ﬁ", "ﬀ", "İ", "F", "f", "x", "action", "Action Input"]), max_size=5).map("".join),
)


@settings(max_examples=500)
@given(name=_NAMES)
def test_final_names_and_key_forms_are_as_the_separator_pattern_reads_them(name):
    # _is_final_name rejects a name with no "f" at once; _key_form remembers the forms it made
    form = re.sub(r"[\s_\-]", "", name.lower())
    assert parser._is_final_name(name) == (form in {"finalanswer", "finish"})
    assert text_calls._key_form(name) == form
    assert text_calls._key_form(name) == form  # again, remembered


def test_a_short_reply_stays_within_its_call_budget():
    # Python-level calls per reply (the fast paths above); 152, 435, 100 and 340 before them,
    # 94, 224, 57 and 193 before a chunk's path read its marker characters and ran the states inline;
    # 88, 175, 51 and 150 before a JSON value in part was no longer decoded, feed drained inline and
    # an envelope's argument key was found in C
    budgets = {
        "tool, whole": ([TOOL_REPLY], 85),
        "tool, 10 pieces": (_pieces(TOOL_REPLY, 10), 158),
        "answer, whole": ([FINAL_REPLY], 50),
        "answer, 10 pieces": (_pieces(FINAL_REPLY, 10), 135),
    }
    for shape, (chunks, budget) in budgets.items():
        calls = _python_calls(chunks)
        assert sum(calls.values()) <= budget, (shape, sum(calls.values()), calls)
    assert _python_calls([TOOL_REPLY])[(parser.__file__, "_take")] <= 7  # a whole JSON value: one take
    assert _python_calls(_pieces(FINAL_REPLY, 10))[(parser.__file__, "_split")] == 1  # feed reads its pieces itself
