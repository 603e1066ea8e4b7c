"""Properties of the readers wave 34 changed, over generated input.

* redaction (``redaction.redactor``): a secret in any form it covers (as written, letterlike
  letters, other dashes and blanks inside, base64 wrapped at any width, two overlapping secrets)
  is hidden with no character of it left beside the marker, and nothing else is hidden: the text
  around it, and a text that holds no secret, stay as they are;
* tool-call assembly (``ToolCallAssembler``): the streams of wave 34 (a second id after the head,
  an id of its own on every named chunk, the arguments whole under a later nameless id) give one
  call per head, with the arguments the stream held (a named whole object under its own id stays
  a call of its own: hermes-agent#8259); whatever the stream, no call has a name or a text value
  the stream did not hold;
* ``schema_echo`` never refuses the values of a tool whose parameters are named ``name``,
  ``type`` or ``description``, whatever the values (other parameters' names, type names);
* reasoning (``ThinkSplitter``) in Apertus 1.5's ``<|inner_prefix|>`` tags splits the same
  however the stream is cut, and none of it is shown;
* native call markup (Qwen3.5's fused ``{"function=NAME","arguments":...}``, Apertus 1.5's turn
  tokens) read from content calls only node tools, with values the text holds.
"""

import base64
import json
import re

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agent_core.call_markup import rewrite_markup
from agent_core.redaction import redactor
from agent_core.text_calls import extract_calls_from_text
from agent_core.tool_calls import ToolCallAssembler, ToolCallDelta
from agent_core.tool_schema import schema_echo
from tests.unit.test_think import split_all

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MARK = "[REDACTED]"

# --- redaction ------------------------------------------------------------------------------------

SECRET_CHARS = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789"
SECRETS = st.builds(
    lambda head, middle, tail: head + middle + tail,
    st.text(st.sampled_from(SECRET_CHARS), min_size=4, max_size=8),
    st.sampled_from(["", "-", "_", "-", ""]),
    st.text(st.sampled_from(SECRET_CHARS), min_size=4, max_size=10),
)
ORDINARY = st.lists(st.sampled_from([*" .,;:!?()\n\t", "日本", "€", "→", "★", "😀", "℃", "№ 5", "™"]),
                    max_size=8).map("".join)
"""Text around a secret that shares no character with it, in no form (no ASCII letter or digit)."""
LETTERLIKE = {"C": "\u212d", "E": "\u2130", "H": "\u210b", "R": "\u211b", "N": "\u2115", "Z": "\u2124",
              "e": "\u212f", "g": "\u210a", "o": "\u2134"}
DASHES = ["\u2010", "\u2011", "\u2013", "\u2014", "\u2212", "\u02d7", "\u2043", "\u2796", "\u058a"]
BLANKS = ["\u200b", "\u200d", "\u2800", "\ufeff", "\u00ad"]


@st.composite
def shown_forms(draw, secret: str) -> str:
    """``secret`` as a tool may show it: as written, letterlike letters for some of its letters,
    another dash for its ``-``, a blank that shows nothing inside it."""
    form = draw(st.sampled_from(["plain", "letterlike", "dash", "blank"]))
    if form == "letterlike":
        return "".join(LETTERLIKE.get(c, c) if draw(st.booleans()) else c for c in secret)
    if form == "dash" and "-" in secret:
        return secret.replace("-", draw(st.sampled_from(DASHES)))
    if form == "blank":
        at = draw(st.integers(1, len(secret) - 1))
        return secret[:at] + draw(st.sampled_from(BLANKS)) + secret[at:]
    return secret


@SETTINGS
@given(SECRETS, ORDINARY, ORDINARY, st.data())
def test_a_secret_in_a_covered_form_is_hidden_and_only_it(secret, before, after, data):
    shown = data.draw(shown_forms(secret))
    redacted = redactor([secret])(before + shown + after)
    assert redacted == before + MARK + after, (shown, redacted)


@SETTINGS
@given(SECRETS, st.text(max_size=40))
def test_a_text_that_holds_no_secret_is_kept(secret, text):
    """Any text, folded as the redaction folds it, that holds no letter or digit of the secret."""
    kept = "".join(c for c in text if not c.isalnum() and c not in "\u212d\u2130")
    assert redactor([secret])(kept) == kept


@SETTINGS
@given(SECRETS, SECRETS, st.integers(3, 8), ORDINARY, ORDINARY)
def test_two_overlapping_secrets_are_one_place(first, second, overlap, before, after):
    """The second secret starts with the end of the first: both together are hidden as one."""
    overlap = min(overlap, len(first) - 1)
    second = first[-overlap:] + second
    redacted = redactor([first, second])(before + first + second[overlap:] + after)
    assert redacted == before + MARK + after, redacted


AROUND = b"#%&*~!"
"""Bytes around the key in its base64 block: none is a character of any key drawn here."""


def _decoded_sides(text: str) -> list[bytes]:
    """What the base64 characters on each side of every marker decode to (line breaks removed)."""
    flat = text.replace("\r", "").replace("\n", "")
    sides = []
    for before, after in re.findall(r"([A-Za-z0-9+/]*)\[REDACTED\]([A-Za-z0-9+/]*=*)", flat):
        assert len(before) % 4 == 0, f"part of a group before the marker: {before!r}"
        for side in (before, after):
            body = side.rstrip("=")
            sides.append(base64.b64decode(body[: len(body) - len(body) % 4]) if body else b"")
    return sides


@SETTINGS
@given(SECRETS, st.binary(max_size=7).map(lambda b: bytes(AROUND[x % len(AROUND)] for x in b)),
       st.binary(max_size=7).map(lambda b: bytes(AROUND[x % len(AROUND)] for x in b)),
       st.integers(2, 80), st.sampled_from(["\n", "\r\n"]))
def test_base64_wrapped_at_any_width_leaves_no_character_of_the_key(secret, head, tail, width, newline):
    encoded = base64.b64encode(head + secret.encode() + tail).decode()
    wrapped = newline.join(encoded[i : i + width] for i in range(0, len(encoded), width))
    redacted = redactor([secret])(f"cert:{newline}{wrapped}{newline}end.")
    assert MARK in redacted, redacted
    assert redacted.startswith("cert:") and redacted.endswith(f"{newline}end."), redacted
    for side in _decoded_sides(redacted):
        assert set(secret.encode()).isdisjoint(side), (redacted, side)


# --- tool-call assembly ---------------------------------------------------------------------------

ARGUMENTS = st.dictionaries(st.sampled_from(["q", "city", "path", "n"]),
                            st.text(st.sampled_from("ab xyz{}[]\",:"), max_size=8) | st.integers(0, 99),
                            min_size=1, max_size=3)


def _cut(text: str, points: list[int]) -> list[str]:
    points = sorted({min(p, len(text)) for p in points} - {0, len(text)})
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]


def _assemble(deltas: list[dict]):
    assembler = ToolCallAssembler()
    for raw in deltas:
        assembler.add(ToolCallDelta.from_raw(raw))
    return assembler.finish("tool_calls")


@SETTINGS
@given(ARGUMENTS, st.lists(st.integers(1, 60), max_size=5),
       st.sampled_from(["second_id", "id_per_chunk", "named_id_per_chunk", "whole_under_second_id"]),
       st.booleans())
@example({"q": '::::::""', "city": ':::::"" '}, [38, 39], "named_id_per_chunk", False)  # a blank piece, named
@example({"q": " {}"}, [7, 10], "second_id", False)  # a piece that is a whole object inside the open string
def test_a_heads_arguments_under_later_ids_make_one_call(arguments, cuts, shape, indexed):
    """Poolside (another id after the head), the SDK base (an id of its own on every named chunk)
    and MiniMax on NIM (a name on every chunk): one call, under the head's id, with the arguments."""
    text = json.dumps(arguments)
    pieces = [text] if shape == "whole_under_second_id" else _cut(text, cuts)
    index = {"index": 0} if indexed else {}
    deltas = [{**index, "id": "head_1", "type": "function", "function": {"name": "lookup", "arguments": ""}}]
    for n, piece in enumerate(pieces):
        call_id = {"second_id": "later_2", "id_per_chunk": f"chunk_{n}", "named_id_per_chunk": f"chunk_{n}",
                   "whole_under_second_id": "later_2"}[shape]
        function = {"arguments": piece, **({"name": "lookup"} if shape == "named_id_per_chunk" else {})}
        deltas.append({**index, "id": call_id, "type": "function", "function": function})
    result = _assemble(deltas)
    if shape == "named_id_per_chunk" and len(pieces) == 1:  # a parallel call of the same tool, whole
        expected = [("head_1", "lookup", {}), ("chunk_0", "lookup", arguments)]  # (hermes-agent#8259)
    else:
        expected = [("head_1", "lookup", arguments)]
    assert [(c.id, c.name, c.arguments) for c in result.calls] == expected, result
    assert not result.invalid


DELTAS = st.fixed_dictionaries(
    {"id": st.sampled_from(["", "", "a1", "b2", "c3"]),
     "function": st.fixed_dictionaries({"name": st.sampled_from(["", "", "lookup", "stats"]),
                                        "arguments": st.sampled_from(['{"q": "rover"}', '{"q": ', '"rover"}', "",
                                                                      '{"q": "Paris"}{"q": "x"}', '{"city": "日本"}',
                                                                      "}", '{"n": 3}'])})},
    optional={"index": st.integers(0, 2)},
)


def _leaves(value) -> list[str]:
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value] if isinstance(value, str) else []


@settings(max_examples=600, deadline=None)
@given(st.lists(DELTAS, min_size=1, max_size=8))
def test_no_call_holds_a_name_or_value_the_stream_did_not(deltas):
    result = _assemble(deltas)
    written = "".join(d["function"]["arguments"] for d in deltas)
    ids = [c.id for c in (*result.calls, *result.invalid)]
    assert len(ids) == len(set(ids)) and set(ids) == set(result.order), result
    for call in result.calls:
        assert re.fullmatch("(?:lookup|stats)+", call.name) and call.name, call  # a name split in pieces joins
        for leaf in _leaves(call.arguments):
            assert json.dumps(leaf)[1:-1] in written or leaf in written, (call, written)


# --- schema echoes --------------------------------------------------------------------------------

NAMED_LIKE_A_DECLARATION = st.sets(st.sampled_from(["name", "type", "description"]), min_size=1).flatmap(
    lambda named: st.sets(st.sampled_from(["q", "city", "label", "required", "in", "schema", "title"]),
                          max_size=3).map(lambda others: named | others))


@SETTINGS
@given(NAMED_LIKE_A_DECLARATION, st.data())
def test_values_of_a_tool_with_declaration_named_parameters_are_never_refused(parameters, data):
    ordered = sorted(parameters)
    value = st.one_of(st.sampled_from([*ordered, "string", "object", "integer", "array", ""]),
                      st.text(max_size=8), st.integers(), st.booleans())
    arguments = data.draw(st.dictionaries(st.sampled_from(ordered), value | st.lists(value, max_size=3), min_size=1))
    scalars = data.draw(st.sets(st.sampled_from(ordered)))
    assert schema_echo(arguments, parameters, scalars) == [], arguments


# --- reasoning ------------------------------------------------------------------------------------

APERTUS = st.lists(st.sampled_from(["a", " ", "\n", "<|inner_prefix|>", "<|inner_suffix|>", "<|assistant_start|>",
                                    "<|assistant_end|>", "<think>", "</think>", "<|", "|>", "<", "|"]),
                   max_size=24).map("".join)


@settings(max_examples=500, deadline=None)
@given(APERTUS, st.lists(st.integers(1, 9), min_size=1, max_size=6), st.booleans())
def test_apertus_reasoning_splits_the_same_however_the_stream_is_cut(text, sizes, opened):
    pieces, i = [], 0
    while i < len(text):
        size = sizes[len(pieces) % len(sizes)]
        pieces.append(text[i : i + size])
        i += size
    assert split_all(pieces, opened) == split_all([text], opened)


@SETTINGS
@given(st.text(st.sampled_from("ab xy"), min_size=1, max_size=10), st.text(st.sampled_from("cd "), max_size=8))
def test_apertus_reasoning_is_never_shown(thought, answer):
    visible, reasoning = split_all(["<|inner_prefix|>" + thought + "<|inner_suffix|>" + answer], False)
    assert visible == answer and reasoning.strip() == thought.strip()


# --- native call markup in content ----------------------------------------------------------------

NODE_TOOLS = ["lookup", "stats"]
NAMES = st.sampled_from(["lookup", "stats", "search_web", "Lookup", "lookup<|call|>", "lookup v2", ""])
VALUES = st.text(st.sampled_from('ab 日"\\{}<>|'), max_size=8)


@st.composite
def fused_calls(draw) -> str:
    name = draw(NAMES)
    arguments = json.dumps({"q": draw(VALUES)}, ensure_ascii=draw(st.booleans()))
    call = draw(st.sampled_from([
        '{{"function={name}","arguments":{arguments}}}', '<tool_call>{{"function={name}", "arguments": {arguments}}}',
        '<tool_call>\n{{"function={name}","arguments":{arguments}}}\n</tool_call>',
        '<|assistant_start|>{{"function={name}","arguments":{arguments}}}<|assistant_end|>',
    ])).format(name=name, arguments=arguments)
    cut = draw(st.sampled_from([None, None, 5, 12, 20, 30]))
    return draw(st.sampled_from(["", "Let me check.\n"])) + (call if cut is None else call[:cut])


@settings(max_examples=500, deadline=None)
@given(fused_calls())
def test_fused_calls_run_only_node_tools_with_written_values(text):
    rewritten = rewrite_markup(text, dict.fromkeys(NODE_TOOLS))
    calls, _ = extract_calls_from_text(rewritten, NODE_TOOLS)
    for call in calls:
        assert call.name in NODE_TOOLS, (text, call)
        for leaf in _leaves(call.arguments):
            assert leaf in text or json.dumps(leaf)[1:-1] in text or json.dumps(leaf, ensure_ascii=False)[1:-1] in text, (
                text, call)



# --- what these properties found (minimal cases) --------------------------------------------------


def test_base64_padding_before_a_line_break_keeps_the_next_line():
    """``=`` then a line break was read as a quoted-printable soft line break, and the group's
    widening in that decoded text took the next line's first character (``-----END`` lost a dash)."""
    encoded = base64.b64encode(b"abcdefgh").decode()  # YWJjZGVmZ2g=
    redact = redactor(["abcdefgh"])
    assert redact(f"cert:\n{encoded}\nend.") == "cert:\n[REDACTED]\nend."
    assert redact(f"cert:\n{encoded}\n\n-----END") == "cert:\n[REDACTED]\n\n-----END"
    assert redactor(["CANARY-7f3a91d2"])("key CANARY-7f3a=\n91d2 ok") == "key [REDACTED] ok"  # QP still read


def test_a_parameters_schema_written_twice_is_refused_as_a_schema_echo():
    """MiniMax-M3's element written twice, each time holding the parameter's schema, gives the
    list of both: it ran the tool with the schema's text as the value."""
    schema = {"type": "string", "description": "What to look for", "maxLength": 80}
    assert schema_echo({"q": [schema, schema], "n": {"type": "number"}}, {"q"}, {"q"}) == [
        "description", "maxLength", "type"]
    assert schema_echo({"q": ["rover", "battery"]}, {"q"}, {"q"}) == []
    assert schema_echo({"q": [schema, "rover"]}, {"q"}, {"q"}) == []


def test_a_blank_piece_under_a_later_id_continues_the_heads_arguments():
    """Poolside's id after the head (or a fresh id on every piece), with a piece that is a space
    alone: it was a call of its own, and both halves were refused as malformed."""
    for later in (["later_2"] * 3, ["p0", "p1", "p2"]):
        pieces = ['{"q": "rover", "city":', " ", '"Paris"}']
        deltas = [{"id": "head_1", "type": "function", "function": {"name": "lookup", "arguments": ""}}]
        deltas += [{"id": i, "type": "function", "function": {"arguments": p}} for i, p in zip(later, pieces, strict=True)]
        result = _assemble(deltas)
        assert [(c.id, c.arguments) for c in result.calls] == [("head_1", {"q": "rover", "city": "Paris"})], result
        assert not result.invalid
