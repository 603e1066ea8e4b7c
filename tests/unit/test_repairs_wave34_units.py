"""Two calls joined under one id, the first cut (wave-34 fuzz campaign, docs/fuzzing.md), and the
cost guard for long single-quoted strings (agent_core.json_args, agent_core.tool_calls).

A model (or its plugin) gives two calls of one tool the same id, or none: ``{"q": "rov`` is cut,
``{"q": "battery"}`` is whole. Joined, the lenient decoder read ``q = 'rov{"q": "battery"'``,
a value the model never wrote, and the tool ran with it.
"""

import json

import pytest

from agent_core.json_args import ArgumentsError, costly_to_repair, loads_lenient, repair_problem
from agent_core.tool_calls import ToolCallAssembler, ToolCallDelta

CUT, WHOLE = '{"q": "rov', '{"q": "battery"}'


def assemble(raw_deltas, finish_reason="tool_calls"):
    assembler = ToolCallAssembler()
    for raw in raw_deltas:
        assembler.add(ToolCallDelta.from_raw(raw))
    return assembler.finish(finish_reason)


def call(arguments, *, id="same", name="lookup", **extra):
    return {"id": id, "type": "function", "function": {"name": name, "arguments": arguments}, **extra}


@pytest.mark.parametrize(
    "raw_deltas",
    [
        pytest.param([call(CUT), call(WHOLE)], id="shared-id"),
        pytest.param([call(CUT, id=""), call(WHOLE, id="")], id="no-id"),
        pytest.param([call(CUT, id="lookup"), call(WHOLE, id="lookup")], id="name-as-id"),
        pytest.param([call(CUT, index=0), call(WHOLE, index=0)], id="shared-id-and-index"),
        pytest.param([call(CUT[:5]), call(CUT[5:], name=""), call(WHOLE)], id="cut-call-in-pieces"),
    ],
)
def test_a_whole_call_after_a_cut_one_under_its_id_runs_alone(raw_deltas):
    result = assemble(raw_deltas)
    assert [(c.name, c.arguments) for c in result.calls] == [("lookup", {"q": "battery"})]
    (refused,) = result.invalid
    assert refused.raw_arguments == CUT and "unterminated string" in refused.error
    assert len(set(result.order)) == 2  # each its own id: both answered in the conversation


def test_the_cut_call_is_told_as_cut_by_the_length_limit_when_the_reply_says_so():
    result = assemble([call(CUT), call(WHOLE)], finish_reason="length")
    assert [c.arguments for c in result.calls] == [{"q": "battery"}]
    assert "cut" in result.invalid[0].error.lower() or "limit" in result.invalid[0].error.lower()


@pytest.mark.parametrize(
    ("raw_deltas", "expected"),
    [
        # the arguments sent again from their start (sgl-project/sglang#23071)
        pytest.param([call('{"command": "ls"'), call('{"command": "ls", "description": "List"}')],
                     [{"command": "ls", "description": "List"}], id="resent-after-a-start"),
        # DashScope's growing snapshots (dify-official-plugins#616)
        pytest.param([call('{"city"'), call('{"city": "Paris"'), call('{"city": "Paris", "days": 3}')],
                     [{"city": "Paris", "days": 3}], id="cumulative-snapshots"),
        # a nested object where a value must follow, name repeated on every delta (llamacpp13800)
        pytest.param([call('{"filter": '), call('{"a": 1}'), call("}")], [{"filter": {"a": 1}}], id="nested-value"),
        # whole, then sent again whole (agno2336)
        pytest.param([call(WHOLE), call(WHOLE)], [{"q": "battery"}], id="whole-resent"),
    ],
)
def test_arguments_sent_again_or_continued_stay_one_call(raw_deltas, expected):
    result = assemble(raw_deltas)
    assert [c.arguments for c in result.calls] == expected and not result.invalid


@pytest.mark.parametrize(
    "second", ['{"q": "battery"}', '{"q": "battery", "n": 3}', '{"a": {"q": "battery"}}', '{"q":"battery"}']
)
@pytest.mark.parametrize("first", ['{"q": "rover", "n": 2}', '{"a": {"q": "rover"}}', "{'q': 'rover'}"])
def test_a_cut_object_joined_to_a_whole_one_is_never_read_as_one(first, second):
    # The trust rule's side: an OpenAI-style head with empty arguments, then nameless pieces,
    # cannot be told from the rest of the first call while streaming; the joined text reaches
    # the lenient decoder. At every cut, it is refused or read as the whole object alone.
    for cut in range(1, len(first)):
        try:
            value = loads_lenient(first[:cut] + second)
        except ArgumentsError:
            continue
        assert value == json.loads(second), (first[:cut] + second, value)


def test_fragments_under_one_head_joined_to_a_second_call_do_not_run():
    result = assemble([call(""), call(CUT, id="", name=""), call(""), call('{"q": "batt', id="", name=""),
                       call('ery"}', id="", name="")])
    assert not result.calls and len(result.invalid) == 1


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("""{'code': 'x = {"code": 1}',}""", {"code": 'x = {"code": 1}'}),  # written single-quoted
        ('{"code": "x = {\\"code\\": 1}",}', {"code": 'x = {"code": 1}'}),  # its quotes escaped
        ("""{'city': 'Paris', 'days': 3}""", {"city": "Paris", "days": 3}),
        ('{"q": "a {\\"n\\": 1} b", "n": 2,}', {"q": 'a {"n": 1} b', "n": 2}),
    ],
)
def test_a_value_written_holding_an_object_of_its_keys_is_kept(text, value):
    assert loads_lenient(text) == value


def test_the_trust_rule_names_the_merged_opening():
    problem = repair_problem('{"q": "rov{"q": "battery"}', {"q": 'rov{"q": "battery"'})
    assert problem and '{"q":' in problem


def test_ordinary_python_style_arguments_are_not_costly():
    assert not costly_to_repair("{'city': 'Paris', 'days': 3}")
    assert not costly_to_repair("{'text': '" + "one, two: three " * 3000 + "'}")  # 48 KB, under the bound
    assert loads_lenient("{'text': '" + "a, b: c " * 5000 + "'}") == {"text": "a, b: c " * 5000}
