"""Properties of the pure parts the later wave-33 changes added, over generated input.

* ``json_pieces.loads`` reads what ``json.loads`` reads, the same value, and raises where it
  raises, whatever the window it reads through; ``compact_dumps`` writes ``json.dumps``' text;
* ``function_calling.react_steps.react_step_calls`` never gives a call to a tool the node does
  not have, nor an argument value the reply does not hold;
* emoji in front of prose (``💭 Thought about it``) never make a step of it;
* ``CallMarkup.stopped`` then ``AnswerGate.stopped`` (a stream that failed) never let go of text
  that holds call markup.
"""

import json
import math

from dify_plugin.entities.model.message import PromptMessageTool
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_core.call_markup import CallMarkup
from agent_core.function_calling.react_steps import UNREADABLE, react_step_calls
from agent_core.function_calling.turn import AnswerGate
from agent_core.json_pieces import compact_dumps, loads
from agent_core.react.parser import parse_react
from agent_core.sdk_speedups import outer_session
from agent_core.text_calls import decode_nested
from agent_core.think import ThinkSplitter

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# --- json_pieces ----------------------------------------------------------------------------------

STRINGS = st.text(st.sampled_from('ab "\\/\n\t\u00e9\u65e5{}[],:0'), max_size=10)
SCALARS = st.none() | st.booleans() | st.integers(-10**20, 10**20) | st.floats(allow_nan=False) | STRINGS
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=5) | st.dictionaries(STRINGS, inner, max_size=5),
                      max_leaves=30)


def _same(a, b) -> bool:
    """Equal values, floats compared by their text (``-0.0``, infinities)."""
    return json.dumps(a, sort_keys=False) == json.dumps(b, sort_keys=False)


@SETTINGS
@given(VALUES, st.sampled_from([None, 0, 1, 2]), st.booleans(), st.integers(2, 40))
def test_loads_reads_what_json_loads_reads(value, indent, ascii_only, window):
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    assert _same(loads(text, window=window), json.loads(text))


def _json_loads(text: str):
    try:
        return True, json.loads(text)
    except ValueError:
        return False, None


@SETTINGS
@given(VALUES, st.data(), st.integers(2, 40))
def test_loads_raises_where_json_loads_raises(value, data, window):
    """The text of a value, cut, with a character changed, added or left out."""
    text = json.dumps(value, indent=data.draw(st.sampled_from([None, 1])))
    at = data.draw(st.integers(0, len(text)))
    edit = data.draw(st.sampled_from(["cut", "insert", "delete", "replace", "pad"]))
    char = data.draw(st.sampled_from([*'{}[]",:0.e-+ \nx\\', "NaN", "1e5", "true", "nul"]))
    text = {"cut": text[:at], "insert": text[:at] + char + text[at:], "delete": text[:at] + text[at + 1 :],
            "replace": text[:at] + char + text[at + 1 :], "pad": " \n" + text + char}[edit]
    ok, expected = _json_loads(text)
    try:
        got = loads(text, window=window)
    except ValueError:
        assert not ok, (text, expected)
    else:
        assert ok, (text, got)
        assert _same(got, expected) or (isinstance(got, float) and math.isnan(got) and math.isnan(expected)), text


@SETTINGS
@given(VALUES | st.lists(VALUES, max_size=40) | st.dictionaries(STRINGS, VALUES, max_size=30), st.integers(1, 30))
def test_compact_dumps_writes_what_json_dumps_writes(value, nodes):
    assert compact_dumps(value, nodes=nodes) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@SETTINGS
@given(st.dictionaries(st.one_of(st.integers(-3, 3), st.booleans(), st.none(), st.floats(-2, 2), STRINGS),
                       st.lists(st.integers(), max_size=4), max_size=12), st.integers(1, 8))
def test_compact_dumps_writes_keys_as_json_dumps_does(value, nodes):
    """Keys that are not text (numbers, ``True``, ``None``) written as ``json.dumps`` writes them,
    whichever piece they fall in."""
    assert compact_dumps(value, nodes=nodes) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# --- ReAct steps written as text in Function Calling ----------------------------------------------

TOOL_NAMES = ["search", "get_weather"]
TOOLS = {
    "search": PromptMessageTool(name="search", description="s", parameters={
        "type": "object", "properties": {"query": {"type": "string"}}}),
    "get_weather": PromptMessageTool(name="get_weather", description="w", parameters={
        "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}),
}
WORDS = st.sampled_from(["Paris", "rover", "two words", "日本", "x"])
MARKS = st.sampled_from(["", "", "💭 ", "🔧 ", "**", "- ", "> ", "1️⃣ ", "### "])


@st.composite
def step_replies(draw) -> str:
    pieces = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["step", "step", "thought", "prose", "observation", "final", "fence"]))
        mark = draw(MARKS)
        if kind == "thought":
            pieces.append(f"{mark}Thought: {draw(WORDS)}\n")
        elif kind == "prose":
            pieces.append(draw(st.sampled_from(["I will take Action: search now.\n", "Action items: none\n",
                                                "The Action Input is empty.\n", "ok\n"])))
        elif kind == "observation":
            pieces.append(f"{mark}Observation: {draw(WORDS)}\n")
        elif kind == "final":
            pieces.append(f"{mark}Final Answer: {draw(WORDS)}\n")
        else:
            name = draw(st.sampled_from([*TOOL_NAMES, "functions.search", "lookup", "Search", ""]))
            key = draw(st.sampled_from(["query", "city", "days", "q"]))
            value = draw(WORDS)
            given_input = draw(st.sampled_from([
                json.dumps({key: value}, ensure_ascii=False), f'{key}="{value}"', value, "",
                json.dumps({key: value})[:-3], f'{{"{key}": "{value}"}} and more']))
            step = f"{mark}Action: {name}\n{draw(MARKS)}Action Input: {given_input}\n"
            pieces.append(f"```\n{step}```\n" if kind == "fence" else step)
    return "".join(pieces).rstrip("\n") + draw(st.sampled_from(["", "\n"]))


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


@SETTINGS
@given(step_replies(), st.lists(st.sampled_from(TOOL_NAMES), min_size=1, unique=True), st.data())
def test_react_steps_call_only_node_tools_with_what_the_reply_holds(text, offered, data):
    tools = {name: TOOLS[name] for name in offered}
    shown = data.draw(st.integers(0, len(text)))
    found = react_step_calls(text, shown, tools)
    if found is None or found == UNREADABLE:  # no step, or one whose input does not read (asked again)
        return
    calls, _thought = found
    assert calls
    for call in calls:
        assert call.name in tools, (text, call)
        for piece in _strings(call.arguments):
            assert piece in text, (text, call)
        assert f"Action: {call.name}" in text or "Action: functions." in text, text


PROSE = st.sampled_from(["Thought about it for a while.", "Action items: none.", "Final answers vary.",
                         "Observation deck is closed.", "Actions speak louder.", "Thinking...", "Answer: maybe"])


@SETTINGS
@given(st.lists(st.sampled_from(["💭", "🔧", "✅", "👉", "1️⃣", "#️⃣", "👨‍💻", "⭐", " ", "**", "- "]), min_size=1,
                max_size=4), PROSE, st.sampled_from(["", "\nMore text.", "\n🔧 Action items: two."]))
def test_emoji_before_prose_make_no_step(marks, prose, tail):
    text = "".join(marks) + " " + prose + tail
    parsed = parse_react(text, allow_multiple_actions=True)
    assert parsed.actions == (), (text, parsed)
    assert react_step_calls(text, 0, TOOLS) is None


# --- a stream that stops while call markup is held ------------------------------------------------

MARKUPS = [
    '<｜GCML｜tool_calls><｜GCML｜invoke name="search"><｜GCML｜parameter name="query" string="true">Paris'
    "</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls>",
    "<|tool_call:start|>search\n<|tool_arg:start|>query<|tool_arg:value|>Paris<|tool_arg:end|>\n<|tool_call:end|>",
    '<function name="search"><param name="query">Paris</param></function>',
    "<ifm|tool_calls><ifm|tool_call>search<ifm|arg_key>query</ifm|arg_key><ifm|arg_value>Paris</ifm|arg_value>"
    "</ifm|tool_call></ifm|tool_calls>",
    "<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>search"
    "<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>"
    '{"query": "Paris"}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|><|plamo:end_tool_requests:plamo|>',
    "<iquestcoder_tool_call>search<arg_key>query</arg_key><arg_value>Paris</arg_value></iquestcoder_tool_call>",
    ']<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name="search">]<]minimax[>[<query>Paris]<]minimax[>[</query>'
    "]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>",
    '<|tool_call>call:search{query:<|"|>Paris<|"|>}call:search{query:<|"|>Rome<|"|>}<tool_call|>',
    "<|tool_calls_section_begin|><|tool_call_begin|>functions.search:0<|tool_call_argument_begin|>"
    '{"query": "Paris"}<|tool_call_end|><|tool_calls_section_end|>',
    '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>search\n```json\n{"query": "Paris"}\n```'
    "<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    '<minimax:tool_call><invoke name="search"><parameter name="query">Paris</parameter></invoke></minimax:tool_call>',
    '<|channel|>commentary to=functions.search <|constrain|>json<|message|>{"query": "Paris"}<|call|>',
    '[TOOL_CALLS]search[ARGS]{"query": "Paris"}',
    "<function=search\n<parameter=query>\nParis\n</parameter>\n</function>",
]


@SETTINGS
@given(st.sampled_from(["", "Let me check. ", "Yes", "Checking\n", "search"]), st.sampled_from(MARKUPS), st.data())
def test_a_stopped_stream_lets_go_of_no_call_markup(prose, markup, data):
    """Whatever has streamed when the stream fails (the prose, then any start of the markup, in
    any pieces), what the user is shown holds nothing of the markup: Function Calling's path, the
    markup reader then the answer gate, and on the failure what each held that is answer text
    (``function_calling.turn._stream_or_stop``)."""
    if markup.startswith("<function name="):  # MiniCPM5's form is a call only where it opens a line
        prose = prose + "\n" if prose and not prose.endswith("\n") else prose
    text = prose + markup
    cut = data.draw(st.integers(len(prose), len(text) - 1))
    rewriter = CallMarkup(tools=TOOLS)
    gate = AnswerGate(list(TOOLS))
    shown = []
    at = 0
    while at < cut:
        step = data.draw(st.integers(1, 12))
        shown.append(gate.feed(rewriter.feed(text[at : min(cut, at + step)])))
        at += step
    shown.append(gate.feed(rewriter.stopped()) + gate.stopped())
    out = "".join(shown)
    assert prose.startswith(out), (text[:cut], out)


# --- a JSON value written with its quotes escaped -------------------------------------------------


@SETTINGS
@given(st.lists(VALUES, min_size=1, max_size=4) | st.dictionaries(STRINGS, VALUES, min_size=1, max_size=4),
       st.sampled_from(["", " ", "\n"]))
def test_a_nested_value_is_read_whole_or_escaped_once(value, pad):
    """A string holding a JSON array or object is decoded to it, and so is one whose quotes were
    escaped once (GLM-4.7's ``[{\\"id\\": \\"1\\"}]``) when its first quote is."""
    text = json.dumps(value, ensure_ascii=False)
    assert _same(decode_nested(pad + text), value)
    escaped = json.dumps(text, ensure_ascii=False)[1:-1]
    if escaped.lstrip("[{").startswith('\\"'):
        assert _same(decode_nested(escaped + pad), value), escaped


@SETTINGS
@given(st.text(st.sampled_from('{}[]"\\:, ab1\n'), max_size=30))
def test_a_nested_value_that_is_no_json_stays_the_text_it_was(text):
    got = decode_nested(text)
    assert got == text or isinstance(got, (dict, list)), (text, got)


# --- the session of a daemon line, read without parsing it ----------------------------------------

IDS = st.text(st.sampled_from('ab-1"\\é,}{: '), max_size=8)


@SETTINGS
@given(IDS, st.dictionaries(st.sampled_from(["event", "data", "x", "session", "session_id "]),
                            VALUES | st.dictionaries(st.sampled_from(["session_id", "a"]), IDS, max_size=2),
                            max_size=3),
       st.sampled_from(["first", "last", "middle", "none"]), st.sampled_from([None, (",", ":"), (", ", ": ")]))
def test_the_session_read_from_a_line_is_its_outer_session(session, members, where, separators):
    """``outer_session`` gives the outer object's ``session_id`` or None; never an inner one, nor
    one read from inside a string."""
    items = list(members.items())
    at = {"first": 0, "last": len(items), "middle": min(1, len(items)), "none": None}[where]
    if at is not None:
        items.insert(at, ("session_id", session))
    line = json.dumps(dict(items), separators=separators, ensure_ascii=False).encode()
    found = outer_session(line)
    assert found is None or found == json.loads(line).get("session_id"), (line, found)
    if where in ("first", "last") and '"' not in session and "\\" not in session:
        assert found == session, line


# --- reasoning tags: PLaMo 3's and MiniMax-M3's ---------------------------------------------------

BLOCKS = [("<|plamo:begin_think:plamo|>", "<|plamo:end_think:plamo|>"), ("<mm:think>", "</mm:think>"),
          ("<think>", "</think>"), ("", "<|plamo:end_think:plamo|>"), ("", "</mm:think>")]


@SETTINGS
@given(st.sampled_from(BLOCKS), st.sampled_from(["", "\n", "Sure. "]), st.booleans(), st.data())
def test_reasoning_in_the_new_tags_is_never_shown(block, answer_before, opened, data):
    """Whatever has streamed when the reply ends or stops (any pieces, cut anywhere), the text
    shown holds none of the reasoning of a PLaMo 3 or MiniMax-M3 block: opened by its tag, or
    by the template (only its end in the reply, ``opened``)."""
    opening, closing = block
    if not opening:
        opened = True
    reasoning = "PRIVATE plan"
    text = ("" if not opening else answer_before) + opening + reasoning + closing + "The answer."
    cut = data.draw(st.integers(0, len(text)))
    splitter = ThinkSplitter(opened=opened)
    visible = []
    at = 0
    while at < cut:
        step = data.draw(st.integers(1, 9))
        visible.append(splitter.feed(text[at : min(cut, at + step)]).visible)
        at += step
    end = splitter.stopped() if data.draw(st.booleans()) or cut < len(text) else splitter.finish()
    shown = "".join(visible) + end.visible
    assert "PRIVATE" not in shown and not any(tag in shown for tag in block if tag), (text[:cut], shown)
    if cut == len(text):
        assert "The answer." in shown
