"""The one reader of calls written as text (``agent_core.text_calls``): JSON values under the
trust rule, action inputs, envelopes, blocks, and Function Calling's content reading."""

from dify_plugin.entities.model.message import PromptMessageTool

from agent_core.text_calls import (
    FAIL,
    arguments_for,
    calls_from_block,
    decode_input,
    decode_json,
    extract_calls_from_text,
    interpret,
    mentions_call_markup,
)

SEARCH = PromptMessageTool(
    name="search", description="Search", parameters={"type": "object", "properties": {"q": {"type": "string"}}}
)


def test_decode_json_reads_json_and_python_literals_and_refuses_garbage():
    assert decode_json('{"a": 1}') == {"a": 1}
    assert decode_json("{'a': None}") == {"a": None}
    assert decode_json("hello") is FAIL
    assert decode_json("{garbage") is FAIL
    assert decode_json('{"a": "x\\_y"}') == {"a": "x_y"}


def test_decode_input_keeps_text_and_strips_quotes_and_stop_words():
    assert decode_input("hello") == "hello"
    assert decode_input("garbage {") == "garbage {"
    assert decode_input("{garbage") == "{garbage"
    assert decode_input("'quoted'") == "quoted"
    assert decode_input('"quoted"') == "quoted"
    assert decode_input("None") is None
    assert decode_input("  ") is None
    assert decode_input("[1, 2]") == [1, 2]
    assert decode_input("'x'\nObserv") == "x"


def test_a_repair_that_would_lose_a_word_leaves_the_input_as_written():
    assert decode_input('{"expression": 37 * 91}') == '{"expression": 37 * 91}'
    assert decode_input('{"q": tru}') == '{"q": tru}'
    assert decode_input('{"city": Lima Peru}') == {"city": "Lima Peru"}


def test_envelopes_in_any_key_casing():
    assert interpret({"Action": "search", "Action Input": {"q": "x"}}, strict=True) == [("search", {"q": "x"})]
    assert interpret({"tool_calls": [{"function": {"name": "search", "arguments": '{"q": "x"}'}}]}, strict=True) == [
        ("search", {"q": "x"})
    ]
    assert interpret({"name": "Paris"}, strict=True) == []


def test_xml_parameter_closings_are_optional_but_a_value_cut_at_the_end_is_no_call():
    assert calls_from_block("<function=search><parameter=q>cats") == []
    assert calls_from_block("<function=search><parameter=q>cats</parameter>") == [("search", {"q": "cats"})]
    assert calls_from_block("<function=search><parameter=q>cats<parameter=n>2</function>") == [
        ("search", {"q": "cats", "n": "2"})
    ]


def test_arguments_for_fits_text_to_a_single_parameter():
    assert arguments_for("cats", SEARCH) == {"q": "cats"}
    assert arguments_for({"q": "cats"}, SEARCH) == {"q": "cats"}
    assert arguments_for(None, SEARCH) == {}


def test_content_reading_only_for_known_tools_and_envelope_objects():
    calls, rest = extract_calls_from_text('{"name": "search", "arguments": {"q": "x"}}', [SEARCH])
    assert [(c.name, c.arguments) for c in calls] == [("search", {"q": "x"})] and rest == ""
    assert extract_calls_from_text('{"name": "search", "population": 3}', [SEARCH])[0] == ()
    assert extract_calls_from_text('{"name": "other", "arguments": {}}', [SEARCH])[0] == ()


def test_markup_or_a_named_known_tool_marks_an_unreadable_call():
    assert mentions_call_markup("<tool_call>{oops")
    assert mentions_call_markup('{"name": "search", "arguments": {"q": tru}}', ["search"])
    assert not mentions_call_markup('{"name": "Paris"}', ["search"])
