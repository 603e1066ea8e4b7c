"""``tool_schema.schema_echo`` answers a call of plain values at once (every round's usual call):
the answer its full checks give."""

from hypothesis import example, given, settings
from hypothesis import strategies as st

from agent_core import tool_schema

_KEYS = st.sampled_from(["query", "limit", "type", "title", "description", "properties", "name", "items", "x"])
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5) | _KEYS,
    lambda inner: st.dictionaries(_KEYS, inner, max_size=4) | st.lists(inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=400, deadline=None)
@example({"type": 1, "properties": 2}, {"query"})  # a schema printed with values in place of its parts
@example({"name": "query", "type": "string"}, {"query"})  # one parameter's declaration
@given(st.dictionaries(_KEYS, _VALUES, max_size=5), st.sampled_from([{"query", "limit"}, {"query", "name"}, set()]))
def test_the_quick_answer_is_the_full_checks_answer(arguments, parameters):
    scalars = parameters - {"name"}
    quick = tool_schema.schema_echo(arguments, parameters, scalars)
    full_checks = tool_schema._TEXT_OR_SCALAR
    try:
        tool_schema._TEXT_OR_SCALAR = frozenset()  # no argument passes the quick look
        assert quick == tool_schema.schema_echo(arguments, parameters, scalars)
    finally:
        tool_schema._TEXT_OR_SCALAR = full_checks


def test_a_printed_schema_is_still_refused():
    echoed = tool_schema.schema_echo({"type": "object", "properties": {"query": {"type": "string"}}}, {"query"}, {"query"})
    assert echoed == ["properties", "type"]
    assert tool_schema.schema_echo({"query": "Paris", "limit": 3}, {"query", "limit"}, {"query", "limit"}) == []
