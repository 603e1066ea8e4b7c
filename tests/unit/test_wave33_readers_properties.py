"""Properties of the readers wave 33 added, over generated input: none of them guesses.

* a start of a call's arguments glued to the whole object (``tool_calls._resent_after_a_start``)
  gives back only an object decoded strictly from a suffix of the text that the text's start
  repeats, and always finds the object when the text is exactly such a pair;
* MiniMax's calls without their tags' ``<`` (``text_calls._angleless_invokes``) never give a
  call for a name that is not one of the node's tools, nor an argument the text does not hold,
  and read in time linear in the number of parameters; the line test that holds such a line
  back while it streams (``angleless_invoke_head``) never changes its mind once decided;
* a cut said on any chunk marks the reply cut (``output_limit.reply_end``, applied once, is
  settled: applied again it adds nothing), and Google's enum numbers are read only for Google's
  plugins (``google_reason``);
* values are never refused as a schema echo, and the tool's schema printed in any of the forms
  models send always is (``tool_schema.schema_echo``).

Memory trimming's invariants are covered by ``test_memory_trim.py``.
"""

import json
import time

from dify_plugin.entities.model.message import PromptMessageTool
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_core.output_limit import GOOGLE_FINISH_REASONS, google_reason, is_cut_reason, reply_end
from agent_core.text_calls import _TAG_NAME_MAX, _angleless_invokes, angleless_invoke_head
from agent_core.tool_calls import _resent_after_a_start
from agent_core.tool_schema import _SCHEMA_KEYS, schema_echo

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# --- a start of the arguments glued to the whole object -------------------------------------------

KEYS = st.text(st.sampled_from('abqxy_{}[]":, \\'), min_size=1, max_size=6)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 99) | st.text(st.sampled_from('ab {}[]":,\\x'), max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=8,
)
OBJECTS = st.dictionaries(KEYS, VALUES, min_size=1, max_size=4)


def _suffix_objects(text: str) -> list[dict]:
    """Every object ``_resent_after_a_start`` may rightly return for ``text``: a strict decoding
    of ``text[p:]`` (to its end) whose start ``text[:p]`` repeats."""
    text = text.strip()
    found = []
    for p in range(1, len(text)):
        if text[p] == "{" and text.startswith(text[:p], p):
            try:
                value = json.loads(text[p:])
            except ValueError:
                continue
            if isinstance(value, dict):
                found.append(value)
    return found


@SETTINGS
@given(OBJECTS, st.data())
def test_a_glued_resend_is_read_as_the_object_sent_whole(value, data):
    whole = json.dumps(value, ensure_ascii=data.draw(st.booleans()), indent=data.draw(st.sampled_from([None, 1])))
    start = whole[: data.draw(st.integers(1, len(whole) - 1))]
    text = data.draw(st.sampled_from(["", " ", "\n"])) + start + whole + data.draw(st.sampled_from(["", "\n"]))
    found = _resent_after_a_start(text)
    assert found is not None, text
    assert found in _suffix_objects(text)


@SETTINGS
@given(st.one_of(
    st.text(st.sampled_from('{}[]":, ab1\n'), max_size=80),
    st.builds(lambda a, b, tail: json.dumps(a)[:5] + json.dumps(b) + tail, OBJECTS, OBJECTS,
              st.sampled_from(["", "}", " x", "{", ',"a":1}'])),
    st.builds(lambda a, cut, tail: json.dumps(a)[:cut] + json.dumps(a) + tail, OBJECTS, st.integers(1, 30),
              st.sampled_from(["}", " x", "{}", "]", '"'])),
))
def test_a_glued_resend_never_gives_what_the_text_does_not_hold(text):
    """Whatever the text, the object returned is one the text holds whole after a start it repeats:
    no key or value is made up, and nothing follows it."""
    found = _resent_after_a_start(text)
    assert found is None or found in _suffix_objects(text), (text, found)


def _best_of_three(read) -> float:
    """CPU seconds of the fastest of three calls of ``read``: growth is compared between sizes, and
    a loaded machine slows single runs at random (CPU time: other processes do not count)."""
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        assert read() is not False
        best = min(best, time.process_time() - started)
    return best


def test_text_that_repeats_itself_costs_a_few_decodes_only():
    """``{"a":{"a":{"a":...`` (every ``{`` a place the resend could start) stays linear."""
    times = {}
    for n in (20_000, 80_000):
        text = '{"a":' * n + "1" + "}" * (n - 1)
        times[n] = _best_of_three(lambda text=text: _resent_after_a_start(text) is None)
    assert times[80_000] < 8 * times[20_000] + 0.05, times


# --- MiniMax's calls without their "<" ------------------------------------------------------------

TOOL_NAMES = ["get_weather", "search", "read_file"]
TOOLS = {
    name: PromptMessageTool(name=name, description=name, parameters={
        "type": "object", "properties": {"city": {"type": "string"}, "q": {"type": "string"}}})
    for name in TOOL_NAMES
}
NAMES = st.sampled_from([*TOOL_NAMES, "get_weathe", "unknown_tool", "functions.search", "", "get weather"])
PARAMETER_NAMES = st.sampled_from(["city", "q", "days", "x y", ""])
PARAMETER_VALUES = st.sampled_from(["Paris", "", " 3 ", '{"a": 1}', "[1, 2]", "a\nb", "parameter>", "<b>x</b>", '"q"'])


@st.composite
def angleless_texts(draw) -> str:
    """Replies made of prose, fences and MiniMax's angle-less calls, whole or broken."""
    pieces = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["call", "call", "prose", "fence", "angled", "broken"]))
        if kind == "prose":
            pieces.append(draw(st.sampled_from(["Let me check.", "I will call invoke name=\"search\"> now.", "ok"])) + "\n")
        elif kind == "fence":
            pieces.append('```\ninvoke name="search">\nparameter name="q">x</parameter>\ninvoke>\n```\n')
        elif kind == "angled":
            pieces.append('<invoke name="search"><parameter name="q">y</parameter></invoke>\n')
        else:
            params = "".join(
                f'{draw(st.sampled_from(["", " ", "<"]))}parameter name="{draw(PARAMETER_NAMES)}">'
                f'{draw(PARAMETER_VALUES)}{draw(st.sampled_from(["parameter>", "/parameter>", "</parameter>", ""]))}\n'
                for _ in range(draw(st.integers(0, 3)))
            )
            indent = draw(st.sampled_from(["", "  ", "\t", "x "]))
            close = draw(st.sampled_from(["invoke>", "invoke>", "/invoke>", "</invoke>", ""]))
            call = f'{indent}invoke name="{draw(NAMES)}">\n{params}{close}\n'
            pieces.append(call[:-3] if kind == "broken" else call)
    return "".join(pieces) + draw(st.sampled_from(["", "\n", " ", "\nThat is all."]))


@SETTINGS
@given(angleless_texts(), st.lists(st.sampled_from(TOOL_NAMES), min_size=1, unique=True))
def test_angleless_calls_name_only_the_node_tools_and_what_the_text_holds(text, offered):
    known = {name: TOOLS[name] for name in offered}
    calls, before = _angleless_invokes(text, known)
    assert text.startswith(before)
    if not calls:
        assert before == text
        return
    assert text[len(before) :].lstrip(" \t").startswith('invoke name="'), "read only where an invoke opens a line"
    assert before == "" or before.endswith("\n")
    for name, arguments in calls:
        assert name in known, name
        assert f'invoke name="{name}">' in text
        for key in arguments:
            assert f'parameter name="{key}">' in text, key


def test_angleless_calls_read_in_time_linear_in_their_parameters():
    """A call of 80,000 parameters (3 MB) is read in about four times the time of 20,000: the
    body's end was measured again at every parameter (1.5 s at 32,000, 5 s at 64,000)."""
    times = {}
    for n in (20_000, 80_000):
        text = 'invoke name="search">\n' + "".join(f'parameter name="p{i}">v{i}parameter>\n' for i in range(n)) + "invoke>"
        assert [name for name, _ in _angleless_invokes(text, TOOLS)[0]] == ["search"]
        times[n] = _best_of_three(lambda text=text: _angleless_invokes(text, TOOLS))
    assert times[80_000] < 10 * times[20_000] + 0.1, times


@SETTINGS
@given(st.text(st.sampled_from('invoke name="getwarhsc_>\n '), max_size=40) | st.builds(
    lambda name, tail: f'invoke name="{name}{tail}', NAMES, st.sampled_from(['">', '"', '"x', "", '">\nparameter'])),
    st.lists(st.sampled_from([*TOOL_NAMES, "a" * (_TAG_NAME_MAX + 5)]), min_size=1, unique=True))
def test_a_line_held_as_an_angleless_call_is_decided_once(line, names):
    """While a line streams, the verdict on its start goes from None (cannot tell yet) to True or
    False and never changes after: a line shown to the user is never taken back as a call, and a
    line held as one is never let go as text."""
    verdicts = [angleless_invoke_head(line[:n], names) for n in range(1, len(line) + 1)]
    decided = [v for v in verdicts if v is not None]
    assert len(set(decided)) <= 1, verdicts
    if decided:
        assert verdicts[verdicts.index(decided[0]) :] == [decided[0]] * (len(verdicts) - verdicts.index(decided[0]))


# --- finish reasons -------------------------------------------------------------------------------

REASONS = st.sampled_from([None, "stop", "length", "max_tokens", "MAX_TOKENS", "tool_calls", "end_turn", "1", "2",
                           "STOP", "content_filter", "model_length", "3"])
PROVIDERS = st.sampled_from(["langgenius/vertex_ai/vertex_ai", "langgenius/gemini/google", "langgenius/openai/openai",
                             "langgenius/ollama/ollama", "", None, "acme/vertex_ai_proxy/x"])


@SETTINGS
@given(st.lists(REASONS, max_size=6), PROVIDERS)
def test_a_cut_said_on_any_chunk_marks_the_reply_cut_once(sent, provider):
    """``invoke_model``'s reading of a reply's finish reasons: the reason the strategies read last
    says cut exactly when one chunk said so (Google's numbers read for Google's plugins only), and
    the reason added is settled: applied again, ``reply_end`` adds nothing."""
    named = [google_reason(r, provider) if r else r for r in sent]
    reasons = [r for r in named if r]
    last = reasons[-1] if reasons else None
    first_cut = next((r for r in reasons if is_cut_reason(r)), None)
    added = reply_end(last, first_cut)
    final = added or last
    assert is_cut_reason(final) == any(is_cut_reason(r) for r in reasons)
    assert reply_end(final, first_cut) is None
    assert added is None or added == first_cut


@SETTINGS
@given(st.sampled_from(["1", "2", "3", "STOP", "length", " 2", "FinishReason.MAX_TOKENS"]), PROVIDERS)
def test_google_numbers_are_read_for_google_plugins_only(reason, provider):
    named = google_reason(reason, provider)
    assert google_reason(named, provider) == named
    google = bool(provider) and bool({"vertex_ai", "gemini", "google"} & set(provider.split("/")))
    assert named == (GOOGLE_FINISH_REASONS.get(reason, reason) if google else reason)
    assert is_cut_reason(named) == (is_cut_reason(reason) or (google and reason == "2"))


# --- schema echoes --------------------------------------------------------------------------------

PARAMETERS = st.sets(st.sampled_from(["q", "city", "limit", "tags", "type", "description", "name", "format",
                                      "default", "properties", "items", "parameters", "title"]), min_size=1, max_size=5)
PLAIN_VALUES = st.one_of(st.text(max_size=10), st.integers(), st.booleans(), st.none(),
                         st.lists(st.text(max_size=5), max_size=3), st.sampled_from(["string", "object", "integer"]))


@SETTINGS
@given(PARAMETERS, st.data())
def test_values_are_never_refused_as_a_schema_echo(parameters, data):
    """Arguments that give each parameter a value (text, a number, a list, a type's name as text,
    even under names such as ``type``, ``description`` or ``properties``) always run."""
    arguments = data.draw(st.dictionaries(st.sampled_from(sorted(parameters)), PLAIN_VALUES, max_size=5))
    scalars = data.draw(st.sets(st.sampled_from(sorted(parameters))))
    assert schema_echo(arguments, parameters, scalars) == []


SCHEMA_OF = {"q": {"type": "string", "description": "query"}, "city": {"type": "string", "maxLength": 80},
             "limit": {"type": "integer", "minimum": 1, "default": 5}, "tags": {"type": "array", "items": {"type": "string"}}}


@SETTINGS
@given(st.sets(st.sampled_from(sorted(SCHEMA_OF)), min_size=1), st.data())
def test_the_tools_schema_printed_in_any_form_is_refused(parameters, data):
    """The printed schema (with or without its ``type``), the tool's whole declaration, or a
    scalar parameter's own schema in place of its value, is refused, naming the keys it echoed."""
    properties = {name: SCHEMA_OF[name] for name in sorted(parameters)}
    schema = {"type": "object", "properties": properties, "required": sorted(parameters)[:1]}
    form = data.draw(st.sampled_from(["printed", "untyped", "declaration", "parameter"]))
    scalars = {name for name in parameters if name != "tags"}
    if form == "parameter":
        if not scalars:
            return
        name = data.draw(st.sampled_from(sorted(scalars)))
        arguments = {name: SCHEMA_OF[name]}
    else:
        arguments = {"printed": schema, "untyped": {"properties": properties},
                     "declaration": {"name": "search", "description": "Search", "parameters": schema}}[form]
    echoed = schema_echo(arguments, parameters, scalars)
    assert echoed and set(echoed) <= _SCHEMA_KEYS, (arguments, echoed)
