"""A call's head of blank arguments under an earlier call's id (``tool_calls._blank_head``): ids
made of the tool's name (Tongyi, Ollama) or repeated by a server give two calls of one tool one
id, and the second call's head, its name with ``""`` or ``" "``, joined the first call. Its
nameless fragments then went to the first call too, and the glued objects came apart at the end
after the calls written between them: ``[lookup a, search, lookup b]`` ran as ``[lookup a,
lookup b, search]``. The rule: such a head opens a call of its own when the first call's
arguments are a whole object (not a head's ``{}``) and the stream went on to another call since
(or the head opens a new index); a call so opened that gets no arguments runs nothing. Every
provider shape the assembler reads is read as before (the properties below, and the real streams
of ``test_tool_calls.py`` and ``test_tool_calls_real_streams.py``)."""

import json
from itertools import pairwise

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_core.tool_calls import ToolCallAssembler, ToolCallDelta
from tests.unit.test_tool_calls import STYLES, nonempty_objects, styled_stream

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def assemble(deltas: list[dict], finish_reason: str = "tool_calls"):
    assembler = ToolCallAssembler()
    for raw in deltas:
        assembler.add(ToolCallDelta.from_raw(raw))
    return assembler.finish(finish_reason)


def pieces(text: str, cuts: list[int]) -> list[str]:
    points = sorted({min(cut, len(text)) for cut in cuts})
    return [part for part in (text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)) if part]


def named_id_stream(calls, cuts, blank: str, index: bool = False) -> list[dict]:
    """Each call as a head under the tool's name as its id (``blank`` arguments), then its
    arguments in nameless, id-less fragments cut at ``cuts`` (with ``index``: the call's number)."""
    deltas = []
    for number, (name, arguments) in enumerate(calls):
        at = {"index": number} if index else {}
        deltas.append({**at, "id": name, "type": "function", "function": {"name": name, "arguments": blank}})
        deltas += [{**at, "function": {"arguments": piece}} for piece in pieces(json.dumps(arguments), cuts)]
    return deltas


CALLS = st.lists(st.tuples(st.sampled_from(["lookup", "search"]), nonempty_objects), min_size=1, max_size=5).filter(
    lambda calls: all(a != b for a, b in pairwise(calls)))
"""Calls of two tools; never the same call twice in a row: under one id with nothing between, the
second is read as the first sent again (Ollama's plugin repeats every call so far, DashScope's the
arguments so far), as before."""


@SETTINGS
@given(CALLS, st.lists(st.integers(0, 40), max_size=4), st.sampled_from(["", " ", "\n"]), st.booleans())
def test_calls_under_ids_made_of_their_tools_name_run_in_the_order_written(calls, cuts, blank, index):
    result = assemble(named_id_stream(calls, cuts, blank, index))
    assert not result.invalid
    assert [(call.name, call.arguments) for call in result.calls] == calls
    assert len({call.id for call in result.calls}) == len(calls)


def test_the_order_case_that_failed():
    calls = [("lookup", {"q": "a"}), ("search", {"q": "s"}), ("lookup", {"q": "b"})]
    result = assemble(named_id_stream(calls, [4], " "))
    assert [(call.id, call.name, call.arguments) for call in result.calls] == [
        ("lookup", "lookup", {"q": "a"}), ("search", "search", {"q": "s"}), ("lookup_2", "lookup", {"q": "b"})]


def test_a_second_call_that_does_not_decode_no_longer_takes_the_first_with_it():
    calls = [("lookup", {"q": "a"}), ("search", {"q": "s"})]
    deltas = [*named_id_stream(calls, [], " "), {"id": "lookup", "function": {"name": "lookup", "arguments": " "}},
              {"function": {"arguments": '{"q": "b'}}]
    result = assemble(deltas, "stop")
    assert [(call.name, call.arguments) for call in result.calls] == calls
    assert [call.name for call in result.invalid] == ["lookup"]


def with_blank_pieces(calls, style: str, cuts: list[int], where: list[bool], blank: str) -> list[dict]:
    """``styled_stream(calls, style, cuts)`` with, after a call's last piece (``where``: a flag a
    call, cycled), a delta repeating that piece's id, index and name (where it has them) with
    ``blank`` arguments: a server sending a space or a line break under the call it streamed,
    after its arguments closed (the next call's head follows)."""
    out, before = [], 0
    flags = where or [False]
    for number in range(len(calls)):
        stream = styled_stream(calls[: number + 1], style, cuts)
        own, before = stream[before:], len(stream)
        for position, raw in enumerate(own):
            out.append(raw)
            if flags[number % len(flags)] and position == len(own) - 1:
                function = {"arguments": blank, **({"name": raw["function"]["name"]} if "name" in raw["function"] else {})}
                if "id" in raw["function"]:
                    function["id"] = raw["function"]["id"]
                out.append({**{key: raw[key] for key in ("id", "index") if key in raw}, "function": function})
    return out


@SETTINGS
@given(
    st.lists(st.tuples(st.sampled_from(["search", "fetch"]), nonempty_objects), min_size=1, max_size=4,
             unique_by=lambda c: json.dumps(c[1], sort_keys=True)),
    st.sampled_from(sorted(STYLES)),
    st.lists(st.integers(min_value=0, max_value=60), max_size=5),
    st.lists(st.booleans(), max_size=8),
    st.sampled_from([" ", "", "\n"]),
)
def test_blank_pieces_under_a_calls_own_id_and_name_change_no_provider_style(calls, style, cuts, where, blank):
    """Every provider style of ``test_tool_calls`` (OpenAI's, no index, a constant index,
    llama.cpp's name and id on every delta...), with blank pieces under a call's own id and name
    after its arguments closed: the same calls, in order, none empty."""
    plain = assemble(styled_stream(calls, style, cuts))
    blanked = assemble(with_blank_pieces(calls, style, cuts, where, blank))
    assert [(c.name, c.arguments) for c in blanked.calls] == [(c.name, c.arguments) for c in plain.calls]
    assert [(c.name, c.arguments) for c in plain.calls] == list(calls)
    assert not blanked.invalid


def test_a_blank_piece_after_a_finished_call_and_another_runs_nothing():
    """A blank piece naming an earlier, finished call after another call (the only shape the rule
    reads as a head) with no arguments after it is no call: nothing runs with empty arguments."""
    deltas = [{"id": "X", "function": {"name": "lookup", "arguments": '{"q": "a"}'}},
              {"id": "Y", "function": {"name": "search", "arguments": '{"q": "s"}'}},
              {"id": "X", "function": {"name": "lookup", "arguments": " "}}]
    result = assemble(deltas)
    assert [(c.id, c.name, c.arguments) for c in result.calls] == [("X", "lookup", {"q": "a"}),
                                                                  ("Y", "search", {"q": "s"})]
    assert not result.invalid


def test_a_head_placeholder_and_a_space_between_key_and_value_still_join():
    """``{}`` ahead of the real arguments (litellm#4537) and a server's blank piece between a key
    and its value, its name and id repeated, are the same call's."""
    placeholder = [{"id": "X", "function": {"name": "lookup", "arguments": "{}"}},
                   {"id": "Y", "function": {"name": "search", "arguments": '{"q": "s"}'}},
                   {"id": "X", "function": {"name": "lookup", "arguments": " "}}]
    assert [c.name for c in assemble(placeholder).calls] == ["lookup", "search"]
    spaced = [{"id": "X", "function": {"name": "lookup", "arguments": '{"q":'}},
              {"id": "X", "function": {"name": "lookup", "arguments": " "}},
              {"id": "X", "function": {"name": "lookup", "arguments": '"a"}'}}]
    assert [(c.name, c.arguments) for c in assemble(spaced).calls] == [("lookup", {"q": "a"})]


def test_a_call_repeated_under_its_tools_name_as_id_is_not_taken_for_a_merged_one():
    """Found by the property above after the StepFun merge rule (wave 39): with ids made of the
    tool's name, a second ``lookup`` like the first, then a third, all run; only a glued call under
    an id of its own drops a head that repeats the earlier calls."""
    calls = [("search", {"0": 0}), ("lookup", {"0": ""}), ("search", {"0": 0}), ("lookup", {"0": ""}), ("lookup", {"0": 0})]
    result = assemble(named_id_stream(calls, [], "", False))
    assert [(call.name, call.arguments) for call in result.calls] == calls
