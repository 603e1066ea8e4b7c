"""Tool-call assembly and calls written as text (agent_core.tool_calls).

Case ids name public threads (docs/real-world-cases.md); ``raw`` strings
below are copied from the cases where they have one, otherwise the shape is
built from the case's description.
"""

import ast
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_core.text_calls import extract_calls_from_text, mentions_call_markup
from agent_core.tool_calls import (
    MAX_CALL_ID_CHARS,
    MAX_REPLY_CALL_ID_CHARS,
    AssembledCalls,
    InvalidToolCall,
    ToolCall,
    ToolCallAssembler,
    ToolCallDelta,
    made_call_id,
    round_id_prefix,
)


def assemble(raw_deltas, finish_reason=None) -> AssembledCalls:
    """Feed raw ``delta.message.tool_calls`` elements (flattened over chunks)."""
    assembler = ToolCallAssembler()
    for raw in raw_deltas:
        assembler.add(ToolCallDelta.from_raw(raw))
    return assembler.finish(finish_reason)


def chunks(*per_chunk):
    """Flatten a list of per-chunk ``tool_calls`` lists."""
    return [call for chunk in per_chunk for call in chunk]


def sse_tool_calls(raw: str):
    """``data: {...}`` lines of an OpenAI stream -> tool-call deltas in order."""
    deltas = []
    for line in raw.splitlines():
        if line.startswith("data: ") and line != "data: [DONE]":
            for choice in json.loads(line.removeprefix("data: "))["choices"]:
                deltas.extend(choice["delta"].get("tool_calls") or [])
    return deltas


def fragment(index=None, id=None, name=None, arguments=None, **extra):
    function = {key: value for key, value in (("name", name), ("arguments", arguments)) if value is not None}
    raw = {"index": index, "id": id, "type": "function" if id else None, "function": function, **extra}
    return {key: value for key, value in raw.items() if value is not None}


def pairs(result: AssembledCalls):
    return [(call.name, call.arguments) for call in result.calls]


# --- ToolCallDelta.from_raw ------------------------------------------------------------


def test_from_raw_openai_shape():
    delta = ToolCallDelta.from_raw(
        {"index": 0, "id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    )
    assert delta == ToolCallDelta(index=0, id="call_1", name="f", arguments="{}")


def test_from_raw_llamacpp13800_id_inside_function():
    delta = ToolCallDelta.from_raw({"index": 0, "function": {"id": "abc", "name": "get_weather", "arguments": "{"}})
    assert (delta.id, delta.name, delta.arguments) == ("abc", "get_weather", "{")


def test_from_raw_fragment_without_id_or_name():
    delta = ToolCallDelta.from_raw({"index": 2, "function": {"arguments": '": 1}'}})
    assert delta == ToolCallDelta(index=2, id="", name="", arguments='": 1}')


def test_from_raw_nulls_and_missing_fields():
    delta = ToolCallDelta.from_raw({"id": None, "function": {"name": None, "arguments": None}})
    assert delta == ToolCallDelta(index=None, id="", name="", arguments="")


def test_from_raw_arguments_object_is_kept():
    delta = ToolCallDelta.from_raw({"function": {"name": "f", "arguments": {"q": 1}}})
    assert delta.arguments == {"q": 1}


@settings(deadline=None)
@given(
    st.dictionaries(
        st.text(max_size=10),
        st.recursive(
            st.none() | st.integers() | st.text(),
            lambda x: st.lists(x) | st.dictionaries(st.text(max_size=5), x),
            max_leaves=8,
        ),
    )
)
def test_from_raw_never_raises(raw):
    delta = ToolCallDelta.from_raw(raw)
    assert isinstance(delta.id, str) and isinstance(delta.name, str)


# --- fc_stream cases -------------------------------------------------------------------

LITELLM5231_RAW = (
    'data: {"id":"chatcmpl-redacted","object":"chat.completion.chunk","created":1723736362,"model":"gpt-4o-2024-05-13","system_fingerprint":"fp_redacted","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_9oOUGn7XVM1S9AdJeglwUv1Z","type":"function","function":{"name":"get_current_weather","arguments":""}}]},"logprobs":null,"finish_reason":null}]}\n\n'
    'data: {"id":"chatcmpl-redacted","object":"chat.completion.chunk","created":1723736362,"model":"gpt-4o-2024-05-13","system_fingerprint":"fp_redacted","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"lo"}}]},"logprobs":null,"finish_reason":null}]}\n\n'
    'data: {"id":"chatcmpl-redacted","object":"chat.completion.chunk","created":1723736362,"model":"gpt-4o-2024-05-13","system_fingerprint":"fp_redacted","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"catio"}}]},"logprobs":null,"finish_reason":null}]}\n\n'
    'data: {"id":"chatcmpl-redacted","object":"chat.completion.chunk","created":1723736362,"model":"gpt-4o-2024-05-13","system_fingerprint":"fp_redacted","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"n\\": \\"B"}}]},"logprobs":null,"finish_reason":null}]}'
)


def test_litellm5231_openai_reference_stream():
    """id/type/name in the first delta with arguments "", then index + fragments split mid-token.
    The case's excerpt stops mid-value; the rest of the stream is appended here."""
    deltas = [*sse_tool_calls(LITELLM5231_RAW), fragment(index=0, arguments='oston, MA"}')]
    result = assemble(deltas, "tool_calls")
    assert result.calls == (
        ToolCall("call_9oOUGn7XVM1S9AdJeglwUv1Z", "get_current_weather", {"location": "Boston, MA"}),
    )
    assert result.invalid == ()


def test_litellm5231_excerpt_alone_is_reported_not_raised():
    result = assemble(sse_tool_calls(LITELLM5231_RAW), "tool_calls")
    assert result.calls == ()
    (invalid,) = result.invalid
    assert invalid.id == "call_9oOUGn7XVM1S9AdJeglwUv1Z"
    assert invalid.raw_arguments == '{"location": "B'
    assert "malformed" in invalid.error


def test_ollama7881_no_index_fragments_and_two_calls():
    """Streamed tool_calls without ``index``: ids in the first delta of each call."""
    deltas = [
        fragment(id="call_a", name="get_weather", arguments=""),
        fragment(arguments='{"city": '),
        fragment(arguments='"Paris"}'),
        fragment(id="call_b", name="get_time", arguments='{"tz"'),
        fragment(arguments=': "CET"}'),
    ]
    result = assemble(deltas)
    assert result.calls == (
        ToolCall("call_a", "get_weather", {"city": "Paris"}),
        ToolCall("call_b", "get_time", {"tz": "CET"}),
    )


def test_sglang6310_constant_index_with_distinct_ids():
    """Parallel calls all streamed with index 0: an id change starts a new call."""
    deltas = [
        fragment(index=0, id="call_1", name="search", arguments=""),
        fragment(index=0, arguments='{"q": "a"}'),
        fragment(index=0, id="call_2", name="search", arguments=""),
        fragment(index=0, arguments='{"q": "b"}'),
    ]
    result = assemble(deltas)
    assert result.calls == (ToolCall("call_1", "search", {"q": "a"}), ToolCall("call_2", "search", {"q": "b"}))


def test_hydra957_a_name_split_with_the_arguments_is_joined():
    """The rest of a name, with a fragment that cannot open arguments, goes on the open call."""
    deltas = [
        fragment(index=0, id="call_ab", name="get_wea", arguments='{"ci'),
        fragment(index=0, name="ther", arguments='ty": "Paris"}'),
    ]
    assert assemble(deltas).calls == (ToolCall("call_ab", "get_weather", {"city": "Paris"}),)
    without_index = [{key: value for key, value in raw.items() if key != "index"} for raw in deltas]
    assert assemble(without_index).calls == (ToolCall("call_ab", "get_weather", {"city": "Paris"}),)


@pytest.mark.parametrize(
    "second",
    [
        fragment(index=0, name="get_time", arguments='{"tz": "UTC"}'),  # opens arguments of its own
        fragment(index=0, id="call_cd", name="ther", arguments='ty": "Paris"}'),  # another id
        fragment(index=0, name="get_time", arguments=""),  # a head with no fragment yet
    ],
)
def test_hydra957_another_name_is_not_joined_unless_it_can_only_go_on(second):
    """Another name under the same index stays a call of its own when it could be one: the open
    call is then told as malformed, never run with a joined name."""
    result = assemble([fragment(index=0, id="call_ab", name="get_wea", arguments='{"ci'), second])
    assert "get_weather" not in [call.name for call in result.calls]
    assert "get_wea" in [call.name for call in result.invalid]


def test_sglang6310_index_changing_on_every_fragment():
    """Fragments of one call with a new index each: a bare fragment cannot open a call."""
    deltas = [
        fragment(index=0, id="call_1", name="search", arguments='{"q"'),
        fragment(index=1, arguments=': "a'),
        fragment(index=2, arguments='"}'),
        fragment(index=3, id="call_2", name="lookup", arguments='{"id": 7}'),
    ]
    result = assemble(deltas)
    assert result.calls == (ToolCall("call_1", "search", {"q": "a"}), ToolCall("call_2", "lookup", {"id": 7}))


def test_sglang6310_id_routes_even_when_index_is_wrong():
    deltas = [
        fragment(index=0, id="A", name="f", arguments='{"x"'),
        fragment(index=1, id="B", name="g", arguments='{"y"'),
        fragment(index=5, id="A", arguments=": 1}"),
        fragment(index=6, id="B", arguments=": 2}"),
    ]
    assert pairs(assemble(deltas)) == [("f", {"x": 1}), ("g", {"y": 2})]


LITELLM5025_RAW = """{
  "finish_reason": "tool_calls",
  "index": 0,
  "message": {
    "content": "To answer your question about the number of rows in the 'users' table, I'll need to run a SQL query. Let me do that for you.",
    "role": "assistant",
    "tool_calls": [
      {
        "index": 1,
        "function": {
          "arguments": "{\\"query\\": \\"SELECT COUNT(*) FROM users;\\"}",
          "name": "sql_query"
        },
        "id": "toolu_01PUn6AKXuXwP99hvsMycubH",
        "type": "function"
      }
    ]
  }
}"""


def test_litellm5025_claude_index_1_after_text():
    choice = json.loads(LITELLM5025_RAW)
    result = assemble(choice["message"]["tool_calls"], choice["finish_reason"])
    assert result.calls == (
        ToolCall("toolu_01PUn6AKXuXwP99hvsMycubH", "sql_query", {"query": "SELECT COUNT(*) FROM users;"}),
    )


CLIPROXY5229_RAW = (
    '"tool_calls":[{"index":1,"id":"toolu_01PfK17cHPYe3FT7yMeoCCJp","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\": \\"Paris\\"}"}}]\n'
    '"tool_calls":[{"index":2,"id":"toolu_01VHozdG7zqmG24dkFveqsLq","type":"function","function":{"name":"get_time","arguments":"{\\"city\\": \\"Tokyo\\"}"}}]'
)


def test_cliproxy5229_index_starts_at_1():
    deltas = chunks(*(json.loads("{" + line + "}")["tool_calls"] for line in CLIPROXY5229_RAW.splitlines()))
    result = assemble(deltas, "tool_calls")
    assert result.calls == (
        ToolCall("toolu_01PfK17cHPYe3FT7yMeoCCJp", "get_weather", {"city": "Paris"}),
        ToolCall("toolu_01VHozdG7zqmG24dkFveqsLq", "get_time", {"city": "Tokyo"}),
    )


def test_cliproxy5229_non_stream_without_index():
    deltas = [
        {"id": "t1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
        {"id": "t2", "type": "function", "function": {"name": "get_time", "arguments": '{"city": "Tokyo"}'}},
    ]
    assert pairs(assemble(deltas)) == [("get_weather", {"city": "Paris"}), ("get_time", {"city": "Tokyo"})]


def test_sparse_indices_fragmented():
    deltas = [
        fragment(index=3, id="a", name="f", arguments=""),
        fragment(index=7, id="b", name="g", arguments=""),
        fragment(index=3, arguments='{"x": 1}'),
        fragment(index=7, arguments='{"y": 2}'),
    ]
    assert pairs(assemble(deltas)) == [("f", {"x": 1}), ("g", {"y": 2})]


HERMES25333_RAW = (
    "2026-05-13 21:03:25,108 WARNING run_agent: Unrepairable tool_call arguments for yantrikdb_relate — "
    'replaced with empty object (was: {"entity": "Don Bowman", "relationship": "works_at", "target": "Agilicus"}{"enti)'
)


def test_hermes25333_glued_parallel_calls_become_two_calls():
    logged = HERMES25333_RAW.split("(was: ", 1)[1].removesuffix(")")
    assert logged.endswith('{"enti')  # the log cut the second object; its full form:
    full = logged + 'ty": "Agilicus", "relationship": "located_in", "target": "Vancouver"}'
    result = assemble([fragment(index=0, id="c1", name="yantrikdb_relate", arguments=full)], "tool_calls")
    assert pairs(result) == [
        ("yantrikdb_relate", {"entity": "Don Bowman", "relationship": "works_at", "target": "Agilicus"}),
        ("yantrikdb_relate", {"entity": "Agilicus", "relationship": "located_in", "target": "Vancouver"}),
    ]
    assert [call.id for call in result.calls] == ["c1", "call00001"]


def test_hermes25333_unsplittable_buffer_is_never_run_with_empty_arguments():
    logged = HERMES25333_RAW.split("(was: ", 1)[1].removesuffix(")")
    result = assemble([fragment(index=0, id="c1", name="yantrikdb_relate", arguments=logged)], "tool_calls")
    assert result.calls == ()
    (invalid,) = result.invalid
    assert invalid.raw_arguments == logged and invalid.error


HERMES62937_RAW = '{"date":"2026-06-11",...}{"date":"2026-06-12",...}{"date":"2026-06-12",...}'


def test_hermes62937_gemini_constant_index_three_calls():
    """Google's OpenAI-compatible layer keeps index 0: three calls in one buffer.
    The case elides fields with ``...``; here they are filled in."""
    objects = [
        {"date": "2026-06-11", "city": "Lisbon"},
        {"date": "2026-06-12", "city": "Porto"},
        {"date": "2026-06-12", "city": "Faro"},
    ]
    assert HERMES62937_RAW.count("{") == len(objects)
    deltas = [fragment(index=0, name="get_forecast", arguments=json.dumps(item)) for item in objects]
    result = assemble(deltas, "tool_calls")
    assert pairs(result) == [("get_forecast", item) for item in objects]
    assert len({call.id for call in result.calls}) == 3


def test_hermes62937_one_buffer_streamed_in_fragments():
    text = '{"date":"2026-06-11"}{"date":"2026-06-12"}{"date":"2026-06-13"}'
    deltas = [fragment(index=0, id="x", name="f", arguments="")] + [
        fragment(index=0, arguments=text[i : i + 5]) for i in range(0, len(text), 5)
    ]
    assert [args["date"] for _, args in pairs(assemble(deltas))] == ["2026-06-11", "2026-06-12", "2026-06-13"]


AGNO3826_RAW = """[{'id': 'call_RjbJ2f3LgIbapbxmelK8StX6',
  'type': 'function',
  'function': {'name': 'search_exa',
   'arguments': '{"text": "{\\\\"query\\\\": \\\\"Trump tariffs 2025 sellside reaction\\\\", \\\\"num_results\\\\": 5, \\\\"category\\\\": \\\\"news\\\\"}{\\\\"query\\\\": \\\\"Trump tariffs 2025 latest news\\\\", \\\\"num_results\\\\": 5, \\\\"category\\\\": \\\\"news\\\\"}{\\\\"query\\\\": \\\\"Trump tariffs 2025 sellside research\\\\", \\\\"num_results\\\\": 5, \\\\"category\\\\": \\\\"research paper\\\\"}"}'}}]"""


def test_agno3826_glued_calls_wrapped_in_one_string_key():
    deltas = ast.literal_eval(AGNO3826_RAW)
    result = assemble(deltas, "tool_calls")
    assert pairs(result) == [
        ("search_exa", {"query": "Trump tariffs 2025 sellside reaction", "num_results": 5, "category": "news"}),
        ("search_exa", {"query": "Trump tariffs 2025 latest news", "num_results": 5, "category": "news"}),
        (
            "search_exa",
            {"query": "Trump tariffs 2025 sellside research", "num_results": 5, "category": "research paper"},
        ),
    ]
    assert result.calls[0].id == "call_RjbJ2f3LgIbapbxmelK8StX6"


def test_agno3826_index_dropped_fragments_of_three_calls():
    """Every delta treated as index 0 but each call keeps its own id."""
    deltas = []
    for number in range(3):
        deltas.append(fragment(index=0, id=f"call_{number}", name="search_exa", arguments=""))
        deltas.append(fragment(index=0, arguments=json.dumps({"query": f"q{number}"})))
    assert pairs(assemble(deltas)) == [("search_exa", {"query": f"q{n}"}) for n in range(3)]


def test_dify9775_arguments_parsed_only_at_finish():
    """'Unterminated string starting at char 1' came from parsing each chunk; add() never parses."""
    assembler = ToolCallAssembler()
    for raw in [fragment(index=0, id="c", name="kb", arguments='{"'), fragment(index=0, arguments='query": "x"}')]:
        assembler.add(ToolCallDelta.from_raw(raw))  # no exception on the incomplete '{"'
    assert assembler.finish("tool_calls").calls == (ToolCall("c", "kb", {"query": "x"}),)


def test_dify9775_still_invalid_at_finish_gives_clear_error():
    result = assemble([fragment(index=0, id="c", name="kb", arguments='{"query": "x')], "tool_calls")
    assert result.invalid == (
        InvalidToolCall(
            "c", "kb", '{"query": "x', "its arguments JSON is malformed: unterminated string starting at character 10."
        ),
    )


def test_dify19677_qwen3_stream_equals_blocking():
    """Qwen3 through an OpenAI-compatible server: streamed after reasoning, same calls as non-stream."""
    arguments = '{"query": "知识库 检索", "top_k": 3}'
    streamed = [fragment(index=0, id="chatcmpl-tool-1", name="dataset_retrieval", arguments="")] + [
        fragment(index=0, arguments=arguments[i : i + 3]) for i in range(0, len(arguments), 3)
    ]
    blocking = [fragment(id="chatcmpl-tool-1", name="dataset_retrieval", arguments=arguments)]
    assert assemble(streamed, "tool_calls") == assemble(blocking, "tool_calls")
    assert pairs(assemble(streamed)) == [("dataset_retrieval", {"query": "知识库 检索", "top_k": 3})]


def test_pipecat5023_id_and_name_in_separate_deltas_with_index():
    deltas = [
        fragment(index=0, name="get_weather"),
        fragment(index=0, id="call_late"),
        fragment(index=0, arguments='{"city": "Oslo"}'),
    ]
    assert assemble(deltas).calls == (ToolCall("call_late", "get_weather", {"city": "Oslo"}),)


def test_pipecat5023_id_and_name_in_separate_deltas_without_index():
    deltas = [
        fragment(name="get_weather", arguments='{"city": '),
        fragment(id="call_late", arguments='"Oslo"}'),
    ]
    assert assemble(deltas).calls == (ToolCall("call_late", "get_weather", {"city": "Oslo"}),)


def test_pipecat5023_id_before_name():
    deltas = [fragment(id="call_first"), fragment(name="get_weather", arguments='{"city": "Oslo"}')]
    assert assemble(deltas).calls == (ToolCall("call_first", "get_weather", {"city": "Oslo"}),)


def test_llamacpp13800_name_repeated_and_id_in_function():
    """Name on every delta, id inside function.id, no type, no empty first arguments."""
    parts = ['{"loc', 'ation": ', '"Paris"', "}"]
    deltas = [{"index": 0, "function": {"id": "abc123", "name": "get_weather", "arguments": part}} for part in parts]
    assert assemble(deltas).calls == (ToolCall("abc123", "get_weather", {"location": "Paris"}),)


def test_llamacpp13800_repeated_name_without_index_or_id():
    parts = ['{"loc', 'ation": ', '"Paris"}']
    deltas = [{"function": {"name": "get_weather", "arguments": part}} for part in parts]
    result = assemble(deltas)
    assert pairs(result) == [("get_weather", {"location": "Paris"})]
    assert result.calls[0].id == "call00001"


def test_ollama9092_everything_in_one_chunk():
    deltas = [
        {"id": "call_x", "type": "function", "function": {"name": "a", "arguments": '{"n": 1}'}},
        {"id": "call_y", "type": "function", "function": {"name": "b", "arguments": '{"n": 2}'}},
    ]
    assert pairs(assemble(deltas)) == [("a", {"n": 1}), ("b", {"n": 2})]


OLLAMA8337_RAW = """{
  "created_at": "2025-01-07T15:07:29.9089713Z",
  "done": false,
  "message": {
    "content": "",
    "role": "assistant",
    "tool_calls": [{
      "function": {
        "arguments": {
          "query": "Add a new contact named Charlie with email charlie@example.com, role CFO, company Z"
        },
        "name": "query_contact_manager"
      }
    }]
  },
  "model": "llama3.1"
}"""


def test_ollama8337_arguments_as_object_and_no_id():
    result = assemble(json.loads(OLLAMA8337_RAW)["message"]["tool_calls"])
    assert result.calls == (
        ToolCall(
            "call00001",
            "query_contact_manager",
            {"query": "Add a new contact named Charlie with email charlie@example.com, role CFO, company Z"},
        ),
    )


def test_ollama_several_object_calls_without_index_or_id():
    deltas = [
        {"function": {"name": "search", "arguments": {"q": "a"}}},
        {"function": {"name": "search", "arguments": {"q": "b"}}},
    ]
    result = assemble(deltas)
    assert pairs(result) == [("search", {"q": "a"}), ("search", {"q": "b"})]
    assert [call.id for call in result.calls] == ["call00001", "call00002"]


def test_constant_index_object_calls_are_not_lost():
    deltas = [fragment(index=0, name="f", arguments={"n": 1}), fragment(index=0, name="f", arguments={"n": 2})]
    assert pairs(assemble(deltas)) == [("f", {"n": 1}), ("f", {"n": 2})]


def test_constant_index_different_names_are_different_calls():
    deltas = [fragment(index=0, name="f", arguments='{"n": 1}'), fragment(index=0, name="g", arguments='{"n": 2}')]
    assert pairs(assemble(deltas)) == [("f", {"n": 1}), ("g", {"n": 2})]


def test_cumulative_resend_provider():
    """DeepSeek/Qianfan cumulative mode (hermes-agent#35592): every chunk resends the
    arguments so far; joining them would give {..}{..}{..}."""
    snapshots = ['{"q', '{"query": "a', '{"query": "ab"}', '{"query": "ab"}']
    deltas = [fragment(index=0, id="c", name="search", arguments="")]
    deltas += [fragment(index=0, arguments=snapshot) for snapshot in snapshots]
    assert assemble(deltas).calls == (ToolCall("c", "search", {"query": "ab"}),)


@pytest.mark.parametrize("cities", [["Paris"], ["Paris", "Rome"]])
def test_two_snapshots_the_lenient_repair_could_misread_are_read_as_snapshots(cities):
    """The Azure OpenAI plugin, for a deployment whose deltas carry reasoning_content, yields its
    growing call list with every delta: joined, '{"city": "Pa{"city": "Paris"}' is no JSON but
    repairable into a wrong value; the last snapshot is the arguments."""
    deltas = []
    for number, city in enumerate(cities):
        whole = json.dumps({"city": city})
        deltas += [fragment(index=number, id=f"call_{number}", name="get_weather", arguments=text) for text in ("", whole[:12], whole)]
    assert pairs(assemble(deltas, "stop")) == [("get_weather", {"city": city}) for city in cities]


def test_cumulative_resend_cut_short_reports_the_last_snapshot():
    deltas = [fragment(index=0, id="c", name="search", arguments=text) for text in ['{"q', '{"query": "a']]
    (invalid,) = assemble(deltas, "length").invalid
    assert invalid.raw_arguments == '{"query": "a'
    assert "output length limit" in invalid.error


def test_fragments_then_consolidated_resend():
    """Proxies that stream fragments and then the whole call again (elizaOS#16973, opencodex#361)."""
    deltas = [
        fragment(index=0, id="t", name="shell", arguments=""),
        fragment(index=0, arguments='{"command":'),
        fragment(index=0, arguments='"ls"}'),
        fragment(index=0, arguments='{"command":"ls"}'),
    ]
    assert assemble(deltas).calls == (ToolCall("t", "shell", {"command": "ls"}),)


def test_incremental_fragment_that_looks_cumulative_is_still_incremental():
    deltas = [fragment(index=0, id="c", name="f", arguments='{"'), fragment(index=0, arguments='{": 1}')]
    assert pairs(assemble(deltas)) == [("f", {"{": 1})]


@pytest.mark.parametrize("index", [None, 0])
def test_fresh_id_on_every_fragment(index):
    parts = ['{"city": ', '"Oslo", ', '"days": 3}']
    deltas = [fragment(index=index, id="id0", name="forecast", arguments="")]
    deltas += [fragment(index=index, id=f"id{n + 1}", arguments=part) for n, part in enumerate(parts)]
    deltas += [fragment(index=index, id="id9", name="forecast", arguments='{"city": "Rome"}')]
    result = assemble(deltas)
    assert pairs(result) == [("forecast", {"city": "Oslo", "days": 3}), ("forecast", {"city": "Rome"})]
    assert [call.id for call in result.calls] == ["id0", "id9"]


# --- complete calls under new ids (the SDK's OpenAI-compatible base, MiniMax) -------------


@pytest.mark.parametrize("second", ['{"city": "Rome"}', {"city": "Rome"}, 'json\n{"city": "Rome"}'])
@pytest.mark.parametrize("first", ['{"city": Paris}', '{"city": "Paris"}'])
def test_complete_call_under_a_new_id_is_not_glued_to_the_last_call(first, second):
    """Complete calls in one chunk without index: the second is its own call even while the
    first's arguments are not (yet) JSON; before, call_B was glued to call_A and never ran."""
    deltas = [
        fragment(id="call_A", name="get_weather", arguments=first),
        fragment(id="call_B", name="get_weather", arguments=second),
    ]
    result = assemble(deltas, "tool_calls")
    assert result.calls == (
        ToolCall("call_A", "get_weather", {"city": "Paris"}),
        ToolCall("call_B", "get_weather", {"city": "Rome"}),
    )
    assert result.invalid == ()


def test_malformed_first_call_stays_invalid_under_its_own_id_beside_a_complete_second():
    deltas = [
        fragment(id="call_A", name="get_weather", arguments='{"city": "Paris" "France"}'),
        fragment(id="call_B", name="get_weather", arguments='{"city": "Rome"}'),
    ]
    result = assemble(deltas, "tool_calls")
    assert result.calls == (ToolCall("call_B", "get_weather", {"city": "Rome"}),)
    (invalid,) = result.invalid
    assert (invalid.id, invalid.name, invalid.raw_arguments) == ("call_A", "get_weather", '{"city": "Paris" "France"}')
    assert "'France'" in invalid.error


def test_nameless_complete_object_under_a_new_id_is_a_call_of_its_own():
    """Without a name it is invalid and reported, under its own id, not glued to the last call."""
    deltas = [fragment(id="a", name="f", arguments='{"x": 1 2}'), fragment(id="b", arguments='{"y": 2}')]
    result = assemble(deltas)
    assert [(call.id, call.raw_arguments) for call in result.invalid] == [("a", '{"x": 1 2}'), ("b", '{"y": 2}')]


@pytest.mark.parametrize("index", [None, 0])
def test_fresh_id_fragment_holding_a_nested_object_still_continues_the_call(index):
    parts = ['{"filter": ', '{"tag": "a"}', ', "limit": 2}']
    deltas = [fragment(index=index, id="id0", name="search", arguments="")]
    deltas += [fragment(index=index, id=f"id{n + 1}", arguments=part) for n, part in enumerate(parts)]
    result = assemble(deltas)
    assert result.calls == (ToolCall("id0", "search", {"filter": {"tag": "a"}, "limit": 2}),)


# --- a fence's json word without the fence (tenstorrent/tt-inference-server#3683) ----------


@pytest.mark.parametrize("split", [False, True])
def test_tt3683_json_word_before_the_arguments(split):
    text = 'json\n{"city":"Paris"}'
    parts = ["json", '\n{"city":', '"Paris"}'] if split else [text]
    deltas = [fragment(index=0, id="c", name="get_weather", arguments="")]
    deltas += [fragment(index=0, arguments=part) for part in parts]
    assert assemble(deltas, "tool_calls").calls == (ToolCall("c", "get_weather", {"city": "Paris"}),)


def test_only_the_json_word_is_dropped_before_the_arguments():
    result = assemble([fragment(id="c", name="get_weather", arguments='python\n{"city": "Paris"}')], "tool_calls")
    assert result.calls == () and result.invalid[0].id == "c"


# --- the final brace dropped by the server (vllm-project/vllm#32152, #15274) ---------------


@pytest.mark.parametrize("finish_reason", ["tool_calls", "stop", "STOP", "tool_use", "end_turn"])
@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ('{"city": "Paris"', {"city": "Paris"}),
        ('{"city": "Paris", "days": 3', {"city": "Paris", "days": 3}),
        ('{"filter": {"tags": ["a", "b"]', {"filter": {"tags": ["a", "b"]}}),
        ('{"city": "Paris"<|im_end|>', {"city": "Paris"}),
    ],
)
def test_vllm32152_dropped_closing_brace_is_added_when_the_model_ended_the_reply(finish_reason, arguments, expected):
    deltas = [fragment(index=0, id="c", name="get_weather", arguments="")]
    deltas += [fragment(index=0, arguments=arguments[i : i + 5]) for i in range(0, len(arguments), 5)]
    result = assemble(deltas, finish_reason)
    assert result.calls == (ToolCall("c", "get_weather", expected),)
    assert result.invalid == ()


@pytest.mark.parametrize("finish_reason", ["length", "LENGTH", "max_tokens", "MAX_TOKENS", "max_output_tokens"])
def test_dropped_closing_brace_after_a_length_cut_is_never_run(finish_reason):
    result = assemble([fragment(id="c", name="get_weather", arguments='{"city": "Paris"')], finish_reason)
    assert result.calls == ()
    (invalid,) = result.invalid
    assert invalid.id == "c" and "cut off by the output length limit" in invalid.error


@pytest.mark.parametrize("finish_reason", [None, "", "content_filter"])
def test_dropped_closing_brace_without_a_finish_saying_the_model_ended_is_not_closed(finish_reason):
    result = assemble([fragment(id="c", name="get_weather", arguments='{"city": "Paris"')], finish_reason)
    assert result.calls == ()
    assert "missing closing '}' at the end" in result.invalid[0].error


@pytest.mark.parametrize(
    "arguments",
    [
        '{"city": "Par',  # a string left open: the value may be cut
        '{"city": "Paris",',  # another member was coming
        '{"city":',  # the value is missing
        '{"tags": [',  # a value would be invented
        '{"ok": tru',  # a literal cut short
        '{"city": "Paris", "days"',  # a key without its value
        '{"city" "Paris"',  # a colon missing too (dify17270's shape, cut)
        "{'city': 'Paris'",  # quotes to repair too
        '{"city": Paris',  # a value to quote too
    ],
)
def test_more_than_closing_brackets_missing_is_still_refused(arguments):
    result = assemble([fragment(id="c", name="get_weather", arguments=arguments)], "tool_calls")
    assert result.calls == ()
    (invalid,) = result.invalid
    assert invalid.raw_arguments == arguments and "malformed" in invalid.error


def test_dropped_closing_brace_on_the_last_cumulative_snapshot():
    snapshots = ['{"q', '{"query": "a', '{"query": "ab"']
    deltas = [fragment(index=0, id="c", name="search", arguments=text) for text in snapshots]
    assert assemble(deltas, "tool_calls").calls == (ToolCall("c", "search", {"query": "ab"}),)


# --- fc_blocking cases -----------------------------------------------------------------


def test_dify17270_missing_colon_is_repaired_a_lossy_repair_is_an_invalid_call():
    repaired = assemble([fragment(id="c", name="search", arguments='{"query" "x"}')], "tool_calls")
    assert pairs(repaired) == [("search", {"query": "x"})]
    result = assemble([fragment(id="c", name="calc", arguments='{"expression": 37 * 91}')], "tool_calls")
    assert result.calls == ()
    assert result.invalid[0].error == (
        "its arguments are not valid JSON (Expecting ',' delimiter at character 18; reading it would lose '91')."
    )
    assert result.invalid[0].raw_arguments == '{"expression": 37 * 91}'


HERMES83229_RAW = (
    "22:38:46 API call #1: model=zai-org/GLM-5.2 in=28669 out=189 latency=4.3s\n"
    "22:38:46 computer_use completed (0.38s) → 0x0 empty capture\n"
    '22:38:48 Unrepairable: {"action": listt_windows"}  ← malformed JSON (finish_reason=tool_calls, NOT length)\n'
    '22:38:53 Unrepairable: {"action": listt_apps"}     ← retry\n'
    '22:38:56 Unrepairable: {"action": listt_apps"}     ← retry'
)


def test_hermes83229_malformed_with_tool_calls_finish_is_not_called_truncated():
    arguments = HERMES83229_RAW.splitlines()[2].split("Unrepairable: ")[1].split("  ←")[0]
    result = assemble([fragment(id="c", name="computer_use", arguments=arguments)], "tool_calls")
    # repaired, keeping the typo: validate_arguments then lists the allowed values (test_tool_schema)
    assert pairs(result) == [("computer_use", {"action": "listt_windows"})]


@pytest.mark.parametrize(
    ("finish_reason", "expected"),
    [
        ("length", "cut off by the output length limit"),
        ("LENGTH", "cut off by the output length limit"),
        ("max_tokens", "cut off by the output length limit"),
        ("MAX_TOKENS", "cut off by the output length limit"),
        ("tool_calls", "malformed"),
        ("stop", "malformed"),
        (None, "malformed"),
    ],
)
def test_truncation_blamed_on_length_only_when_finish_reason_says_so(finish_reason, expected):
    result = assemble([fragment(id="c", name="computer_use", arguments='{"action": "list_win')], finish_reason)
    (invalid,) = result.invalid
    assert expected in invalid.error
    if expected == "malformed":
        assert "length" not in invalid.error


CAMEL4338_RAW = (
    "arguments='{}': OK\n"
    "arguments='': RAISED JSONDecodeError: Expecting value: line 1 column 1 (char 0)\n"
    'arguments=\'{"city": "San Fra\': RAISED JSONDecodeError: Unterminated string starting at: line 1 column 10 (char 9)'
)


@pytest.mark.parametrize("streamed", [False, True])
def test_camel4338_empty_and_truncated_same_for_stream_and_blocking(streamed):
    arguments = [line.split("'")[1] for line in CAMEL4338_RAW.splitlines()]
    assert arguments == ["{}", "", '{"city": "San Fra']
    for text, ok in zip(arguments, (True, True, False), strict=True):
        if streamed:
            deltas = [fragment(index=0, id="c", name="weather", arguments="")]
            deltas += [fragment(index=0, arguments=char) for char in text]
        else:
            deltas = [fragment(id="c", name="weather", arguments=text)]
        result = assemble(deltas, "tool_calls")
        if ok:
            assert result.calls == (ToolCall("c", "weather", {}),)
        else:
            assert result.calls == () and "unterminated string" in result.invalid[0].error


# --- ids ------------------------------------------------------------------------------


def test_missing_ids_are_synthesised_without_clashing_with_provided_ones():
    deltas = [
        fragment(index=0, name="f", arguments="{}"),
        fragment(index=1, id="call00001", name="g", arguments="{}"),
        fragment(index=2, name="h", arguments="{}"),
    ]
    assert [call.id for call in assemble(deltas).calls] == ["call00002", "call00001", "call00003"]


def test_duplicate_ids_are_made_unique():
    deltas = [
        fragment(index=0, id="same", name="f", arguments='{"n": 1}'),
        fragment(index=1, id="same", name="g", arguments='{"n": 2}'),
    ]
    result = assemble(deltas)
    assert pairs(result) == [("f", {"n": 1}), ("g", {"n": 2})]
    assert [call.id for call in result.calls] == ["same", "same_2"]


def test_an_overlong_id_is_replaced_by_a_synthesised_one():
    """Every later request repeats a call's id twice: one of megabytes would make a request
    line the daemon refuses. Ids up to ``MAX_CALL_ID_CHARS`` are kept."""
    kept = "k" * MAX_CALL_ID_CHARS
    deltas = [
        fragment(index=0, id="i" * (6 * 1024 * 1024), name="f", arguments="{}"),
        fragment(index=1, id=kept, name="g", arguments="{}"),
    ]
    assert [call.id for call in assemble(deltas).calls] == ["call00001", kept]


def test_the_ids_of_one_reply_are_kept_up_to_a_total_and_the_rest_replaced():
    """65 parallel calls with ids of 64 KiB each put 8 MB of ids into the next request (each id
    twice), and the run ended after its first round with "request would be 8540325 bytes". Ids
    are kept, in order, while the reply's kept ids stay within ``MAX_REPLY_CALL_ID_CHARS``; the
    others get made ids, so the run goes on."""
    size = MAX_CALL_ID_CHARS - 8
    deltas = [fragment(index=n, id=f"{n:07d}-" + "s" * size, name="f", arguments="{}") for n in range(65)]
    ids = [call.id for call in assemble(deltas).calls]
    fit = MAX_REPLY_CALL_ID_CHARS // MAX_CALL_ID_CHARS
    assert [len(i) for i in ids[:fit]] == [size + 8] * fit, "the first ids, a Vertex AI signature among them, kept whole"
    assert all(len(i) == 9 for i in ids[fit:]) and len(set(ids)) == 65
    assert sum(map(len, ids)) <= MAX_REPLY_CALL_ID_CHARS + 9 * 65


def test_a_vertex_ai_id_holding_a_thought_signature_is_kept_whole():
    """The Vertex AI model plugin writes Gemini 3's thought signature into the call id
    (``name::sig::<base64>``) and reads it back from there on the next request: an id of
    kilobytes cut or replaced would send Gemini a placeholder instead of its reasoning."""
    signed = "get_weather::sig::" + "Q2lVQlZLaGM3b0Rm" * 256  # 4 KiB of base64
    deltas = [fragment(index=0, id=signed, name="get_weather", arguments='{"city": "Paris"}')]
    assert [call.id for call in assemble(deltas).calls] == [signed]


def test_vertex_ai_unsigned_calls_of_one_tool_stay_two_calls():
    """Vertex AI streams each call of a parallel batch as a chunk of its own, and a call
    Gemini did not sign has the tool's name as its id: two such calls of one tool share an id
    and arrive whole, not as pieces of one call."""
    deltas = [
        fragment(index=0, id="get_weather", name="get_weather", arguments='{"city": "Paris"}'),
        fragment(index=0, id="get_weather", name="get_weather", arguments='{"city": "Rome"}'),
    ]
    result = assemble(deltas)
    assert pairs(result) == [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Rome"})]
    assert len({call.id for call in result.calls}) == 2


def test_id_prefix_and_finish_is_repeatable():
    assembler = ToolCallAssembler(id_prefix=round_id_prefix(2))
    assembler.add(ToolCallDelta(None, "", "f", "{}"))
    assert assembler.finish() == assembler.finish()
    assert assembler.finish().calls[0].id == "c00020001"


def test_call_without_name_is_invalid():
    result = assemble([fragment(index=0, id="c", arguments='{"a": 1}')])
    assert result.invalid == (InvalidToolCall("c", "", '{"a": 1}', "the tool call has no function name."),)


def test_empty_deltas_make_no_call():
    assert assemble([{}, {"index": 0}, {"function": {}}]) == AssembledCalls((), ())


def test_empty_arguments_are_an_empty_object():
    assert assemble([fragment(index=0, id="c", name="now", arguments="")]).calls == (ToolCall("c", "now", {}),)


def test_arguments_as_json_encoded_string():
    """smolagents1003 inside a stream: arguments text holding a JSON string."""
    raw = json.dumps(json.dumps({"city": "New York"}))
    assert pairs(assemble([fragment(id="c", name="w", arguments=raw)])) == [("w", {"city": "New York"})]


# --- properties -----------------------------------------------------------------------

argument_objects = st.dictionaries(
    st.text(max_size=8),
    st.none() | st.booleans() | st.integers() | st.text(max_size=12) | st.lists(st.integers(), max_size=3),
    max_size=4,
)


@settings(max_examples=300, deadline=None)
@given(
    argument_objects,
    st.lists(st.integers(min_value=0, max_value=400), max_size=8),
    st.sampled_from(["openai", "no_index", "repeat_name", "no_index_repeat_name", "id_everywhere"]),
)
def test_splitting_arguments_anywhere_gives_the_same_call(arguments, cuts, style):
    text = json.dumps(arguments, ensure_ascii=False)
    points = sorted({min(cut, len(text)) for cut in cuts})
    pieces = [text[start:end] for start, end in zip([0, *points], [*points, len(text)], strict=True)]
    index = None if style.startswith("no_index") else 4
    first = fragment(index=index, id="call_z", name="tool", arguments="")
    rest = []
    for piece in pieces:
        extra = {"name": "tool"} if style.endswith("repeat_name") else {}
        raw = fragment(index=index, id="call_z" if style == "id_everywhere" else None, arguments=piece)
        raw.setdefault("function", {}).update(extra)
        rest.append(raw)
    one_chunk = assemble([fragment(index=index, id="call_z", name="tool", arguments=text)])
    assert assemble([first, *rest]) == one_chunk
    assert one_chunk.calls == (ToolCall("call_z", "tool", arguments),)


@settings(max_examples=150, deadline=None)
@given(st.lists(argument_objects, min_size=1, max_size=4), st.integers(min_value=1, max_value=7))
def test_several_indexed_calls_split_anywhere(calls, step):
    deltas = []
    for number, arguments in enumerate(calls):
        text = json.dumps(arguments)
        deltas.append(fragment(index=number, id=f"id{number}", name=f"t{number}", arguments=""))
        deltas += [fragment(index=number, arguments=text[i : i + step]) for i in range(0, len(text), step)]
    assert pairs(assemble(deltas)) == [(f"t{n}", arguments) for n, arguments in enumerate(calls)]


deltas_strategy = st.builds(
    ToolCallDelta,
    index=st.none() | st.integers(min_value=-2, max_value=5),
    id=st.sampled_from(["", "", "a", "b", "call_1", "call_2"]),
    name=st.sampled_from(["", "", "f", "g"]),
    arguments=st.one_of(
        st.sampled_from(["", "{", "}", '"', '{"a": 1}', '"x', ":", "[", "{'a': None}", "<|eot_id|>", "null"]),
        st.text(max_size=6),
        st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    ),
)


@settings(max_examples=500, deadline=None)
@given(st.lists(deltas_strategy, max_size=12), st.sampled_from([None, "stop", "length", "tool_calls"]))
def test_assembler_never_raises_and_ids_are_unique(deltas, finish_reason):
    assembler = ToolCallAssembler()
    for delta in deltas:
        assembler.add(delta)
    result = assembler.finish(finish_reason)
    ids = [call.id for call in (*result.calls, *result.invalid)]
    assert all(ids) and len(ids) == len(set(ids))
    assert all(isinstance(call.arguments, dict) for call in result.calls)
    assert all(call.error for call in result.invalid)


# --- extract_calls_from_text ------------------------------------------------------------

DEEPSEEKV3_826_RAW = """{
  "finish_reason": "stop",
  "index": 0,
  "logprobs": null,
  "message": {
    "content": "{\\"name\\":\\"get_weather\\",\\"parameters\\":{\\"location\\":\\"Hangzhou\\"}}<|eot_id|>",
    "role": "assistant",
    "tool_calls": [],
    "reasoning_content": null
  },
  "stop_reason": null
}"""


def test_deepseekv3_826_json_call_in_content_with_eot():
    content = json.loads(DEEPSEEKV3_826_RAW)["message"]["content"]
    calls, rest = extract_calls_from_text(content, ["get_weather"])
    assert calls == (ToolCall("call00001", "get_weather", {"location": "Hangzhou"}),)
    assert rest == ""


def test_deepseekv3_826_unknown_tool_stays_text():
    content = json.loads(DEEPSEEKV3_826_RAW)["message"]["content"]
    assert extract_calls_from_text(content, ["search"]) == ((), content)


SMOLAGENTS158_RAW = """Qwen2.5-Coder-7B-Instruct content:
Action:
{
  "tool_name": "get_weather",
  "tool_arguments": {"location": "Paris", "celsius": true}
}

Llama-3.1-8B-Instruct content:
Action:
{
  "tool_name": "get_weather",
  "tool_arguments": {
    "location": "Paris",
    "celsius": true
  }
}

This action will get the weather information for Paris, and I will use the result as the final answer."""


def test_smolagents158_action_json_in_content():
    qwen, llama = (part.split(" content:\n", 1)[1] for part in SMOLAGENTS158_RAW.split("\n\nLlama"))
    for content in (qwen, llama):
        calls, _ = extract_calls_from_text(content, ["get_weather"])
        assert calls == (ToolCall("call00001", "get_weather", {"location": "Paris", "celsius": True}),)
    _, rest = extract_calls_from_text(llama, ["get_weather"])
    assert (
        rest == "This action will get the weather information for Paris, and I will use the result as the final answer."
    )


MLXSERVER228_RAW = (
    '"message": {\n  "role": "assistant",\n  "content": "<tool_call>\\n{\\"name\\": \\"web_search\\", \\"arguments\\":'
)


def test_mlxserver228_truncated_tool_call_markup_is_no_call_but_detectable():
    content = MLXSERVER228_RAW.split('"content": "', 1)[1].encode().decode("unicode_escape")
    assert content.startswith("<tool_call>\n{")
    assert extract_calls_from_text(content, ["web_search"]) == ((), content)
    assert mentions_call_markup(content)


def test_mlxserver228_complete_tool_call_in_content():
    content = '<tool_call>\n{"name": "web_search", "arguments": {"query": "mlx"}}\n</tool_call>'
    assert extract_calls_from_text(content, ["web_search"])[0] == (ToolCall("call00001", "web_search", {"query": "mlx"}),)


MLXSWIFT529_RAW = (
    "<tool_call><function=get_weather><parameter=city>Tokyo</parameter></function></tool_call>\n\n"
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Tokyo"}}</tool_call>'
)


@pytest.mark.parametrize("form", MLXSWIFT529_RAW.split("\n\n"))
def test_mlxswift529_xml_and_json_forms(form):
    calls, rest = extract_calls_from_text(f"Checking.\n{form}", ["get_weather"])
    assert calls == (ToolCall("call00001", "get_weather", {"city": "Tokyo"}),)
    assert rest == "Checking."


def test_mlxswift529_both_forms_in_one_reply():
    calls, rest = extract_calls_from_text(MLXSWIFT529_RAW, ["get_weather"])
    assert [(c.name, c.arguments) for c in calls] == [("get_weather", {"city": "Tokyo"})] * 2
    assert [c.id for c in calls] == ["call00001", "call00002"] and rest == ""


@pytest.mark.parametrize(
    "content",
    [
        "<tool_call><function=delete_everything><parameter=x>1</parameter></function></tool_call>",
        '<tool_call>{"name": "delete_everything", "arguments": {}}</tool_call>',
        '<tool_call>{"name": "get_weather", "arguments": "{\\"city\\": "}</tool_call>',
    ],
)
def test_mlxswift529_undeclared_or_garbled_payloads_are_rejected(content):
    assert extract_calls_from_text(content, ["get_weather"]) == ((), content)


def test_a_call_written_as_code_in_tool_call_tags_is_read_as_react_reads_it():
    calls, rest = extract_calls_from_text('<tool_call>get_weather(city="Tokyo")</tool_call>', ["get_weather"])
    assert calls == (ToolCall("call00001", "get_weather", {"city": "Tokyo"}),) and rest == ""


def test_xml_call_cut_off_before_function_closes_is_not_run():
    content = "<tool_call>\n<function=web_search>\n<parameter=query>\nmlx serv"
    assert extract_calls_from_text(content, ["web_search"]) == ((), content)
    assert mentions_call_markup(content)


def test_xml_call_without_closing_tool_call_tag():
    """Servers that use ``</tool_call>`` as a stop word drop it from the content."""
    content = "<tool_call>\n<function=web_search>\n<parameter=query>\nmlx\n</parameter>\n</function>"
    assert extract_calls_from_text(content, ["web_search"])[0] == (ToolCall("call00001", "web_search", {"query": "mlx"}),)


def test_xml_parameters_multiline_and_json_values():
    content = (
        "<tool_call>\n<function=run>\n<parameter=code>\nprint(1)\nprint(2)\n</parameter>\n"
        '<parameter=options>\n{"fast": true}\n</parameter>\n<parameter=count>\n3\n</parameter>\n</function>\n</tool_call>'
    )
    calls, _ = extract_calls_from_text(content, ["run"])
    assert calls[0].arguments == {"code": "print(1)\nprint(2)", "options": {"fast": True}, "count": "3"}


def test_vllm39056_call_written_inside_reasoning():
    """The loop passes the reasoning text when the content is empty."""
    reasoning = (
        'I should look it up.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Rome"}}\n</tool_call>'
    )
    calls, rest = extract_calls_from_text(reasoning, ["get_weather"])
    assert calls == (ToolCall("call00001", "get_weather", {"city": "Rome"}),)
    assert rest == "I should look it up."


@pytest.mark.parametrize(
    "content",
    [
        '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Rome"}}]',
        '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Rome"}}',
        '```json\n{"name": "get_weather", "arguments": {"city": "Rome"}}\n```',
        '{"type": "function", "function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Rome\\"}"}}',
    ],
)
def test_other_whole_content_call_shapes(content):
    calls, rest = extract_calls_from_text(content, ["get_weather"])
    assert calls == (ToolCall("call00001", "get_weather", {"city": "Rome"}),) and rest == ""


@pytest.mark.parametrize(
    "content",
    [
        "The weather in Paris is sunny.",
        '{"name": "get_weather", "temperature": 21}',  # names a tool but is data, not a call
        '{"name": "Alice", "arguments": {"x": 1}}',
        'Here is the JSON: {"name": "get_weather", "arguments": {"city": "Paris"}}',
        "Action: I will now answer.",
        '[{"name": "get_weather", "arguments": {}}, {"name": "unknown", "arguments": {}}]',
        "",
    ],
)
def test_prose_and_non_call_json_are_left_alone(content):
    assert extract_calls_from_text(content, ["get_weather"]) == ((), content)


def test_dify15483_no_tools_no_extraction():
    content = '{"name": "get_weather", "arguments": {}}'
    assert extract_calls_from_text(content, []) == ((), content)


@settings(deadline=None)
@given(st.text(alphabet=st.characters(blacklist_characters="{[<`")))
def test_text_without_markup_never_yields_calls(text):
    assert extract_calls_from_text(text, ["get_weather", "a"]) == ((), text)


@settings(deadline=None)
@given(st.text(max_size=200))
def test_extract_never_raises(text):
    calls, rest = extract_calls_from_text(text, ["get_weather", "f"])
    assert isinstance(rest, str)
    assert all(call.name in ("get_weather", "f") for call in calls)


# --- provider styles, fuzzed ------------------------------------------------------------

STYLES = {
    # name: (index of call n, id placement, name placement)
    "openai": (lambda n: n, "first", "first"),
    "claude_offset": (lambda n: n + 1, "first", "first"),
    "sparse": (lambda n: 3 * n + 2, "first", "first"),
    "no_index": (lambda n: None, "first", "first"),
    "no_index_no_id": (lambda n: None, "none", "first"),
    "no_index_no_id_repeat_name": (lambda n: None, "none", "every"),
    "constant_index": (lambda n: 0, "first", "first"),
    "constant_index_no_id": (lambda n: 0, "none", "first"),
    "llamacpp": (lambda n: n, "function_every", "every"),
    "id_every": (lambda n: n, "every", "first"),
}


def styled_stream(calls, style, cut_points):
    index_of, id_mode, name_mode = STYLES[style]
    deltas = []
    for number, (name, arguments) in enumerate(calls):
        text = json.dumps(arguments)
        cuts = sorted({min(c, len(text)) for c in cut_points})
        pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)] or [""]
        for position, piece in enumerate(pieces):
            raw = {"function": {"arguments": piece}}
            if index_of(number) is not None:
                raw["index"] = index_of(number)
            if name_mode == "every" or position == 0:
                raw["function"]["name"] = name
            if id_mode == "every" or (id_mode == "first" and position == 0):
                raw["id"] = f"id_{number}"
            elif id_mode == "function_every":
                raw["function"]["id"] = f"id_{number}"
            deltas.append(raw)
    return deltas


nonempty_objects = st.dictionaries(
    st.text(min_size=1, max_size=6), st.integers() | st.text(max_size=8), min_size=1, max_size=3
)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["search", "fetch"]), nonempty_objects),
        min_size=1,
        max_size=4,
        unique_by=lambda c: json.dumps(c[1], sort_keys=True),
    ),
    st.sampled_from(sorted(STYLES)),
    st.lists(st.integers(min_value=0, max_value=60), max_size=5),
)
def test_provider_styles_recover_every_call(calls, style, cut_points):
    result = assemble(styled_stream(calls, style, cut_points), "tool_calls")
    assert result.invalid == ()
    assert pairs(result) == [(name, arguments) for name, arguments in calls]
    ids = [call.id for call in result.calls]
    assert len(set(ids)) == len(ids)


def test_special_tokens_inside_an_argument_value_are_kept():
    """Tokens are stripped around the arguments, never out of a value the model wrote (a
    property test found ``{"": "[TOOL_CALLS]"}`` coming back as ``{"": ""}``)."""
    for value in ("[TOOL_CALLS]", "see <|eot_id|> here"):
        text = json.dumps({"note": value})
        deltas = [fragment(index=0, id="id0", name="t0", arguments="")]
        deltas += [fragment(index=0, arguments=text[i : i + 3]) for i in range(0, len(text), 3)]
        assert pairs(assemble(deltas)) == [("t0", {"note": value})]
    around = [fragment(index=0, id="id0", name="t0", arguments='{"note": "x"}<|eot_id|>')]
    assert pairs(assemble(around)) == [("t0", {"note": "x"})]


def test_an_id_already_in_the_conversation_is_made_unique():
    """Tongyi and Ollama use the tool's name (or a per-reply counter) as the id, so a later
    round repeats an earlier round's ids; every id of a request must stay unique."""
    assembler = ToolCallAssembler(id_prefix="r2_call_")
    assembler.add(ToolCallDelta(0, "get_weather", "get_weather", '{"city": "Berlin"}'))
    assembler.add(ToolCallDelta(1, "fresh", "get_time", "{}"))
    calls = assembler.finish("tool_calls", taken={"get_weather", "get_weather_2"}).calls
    assert [call.id for call in calls] == ["get_weather_3", "fresh"]


STRICTEST_ID = re.compile(r"[A-Za-z0-9]{9}")
"""Mistral's rule for a tool-call id sent back (its API and mistral_common: "Tool call id was
call_1 but must be a-z, A-Z, 0-9, with a length of 9."); it fits every other provider's."""


@given(
    rounds=st.integers(1, 9999),
    ids=st.lists(st.sampled_from(["", "", "", "abcdefghi", "get_weather", "0"]), min_size=1, max_size=12),
)
def test_made_ids_are_nine_letters_and_digits_and_unique_across_rounds(rounds, ids):
    """Every id the strategy makes (a call without one) has the strictest provider's shape, and
    an id made unique keeps that shape when the model's had it; no id repeats one taken."""
    taken = {made_call_id(round_id_prefix(rounds - 1), 1), "abcdefghi"} if rounds > 1 else {"abcdefghi"}
    assembler = ToolCallAssembler(id_prefix=round_id_prefix(rounds))
    for number, wanted in enumerate(ids):
        assembler.add(ToolCallDelta(number, wanted, f"f{number}", "{}"))
    made = [call.id for call in assembler.finish("tool_calls", taken=taken).calls]
    assert len(set(made)) == len(made) and not set(made) & taken
    for wanted, got in zip(ids, made, strict=True):
        if not wanted or STRICTEST_ID.fullmatch(wanted):
            assert STRICTEST_ID.fullmatch(got), got


def test_a_call_written_in_the_text_gets_a_made_id_not_taken():
    calls, _ = extract_calls_from_text(
        '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Rome"}}]',
        ["get_weather"],
        id_prefix=round_id_prefix(1),
        taken={"c00010001"},
    )
    assert [call.id for call in calls] == ["c00010002"]
