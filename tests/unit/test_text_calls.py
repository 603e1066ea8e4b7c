"""The one reader of calls written as text (``agent_core.text_calls``): JSON values under the
trust rule, action inputs, envelopes, blocks, and Function Calling's content reading."""

import pytest
from dify_plugin.entities.model.message import PromptMessageTool

from agent_core.text_calls import (
    FAIL,
    arguments_for,
    calls_from_block,
    decode_input,
    decode_json,
    described_tool,
    extract_calls_from_text,
    interpret,
    mentions_call_markup,
    name_line_call,
    repair_names,
)
from agent_core.tool_calls import ToolCall

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


def test_a_name_alone_is_a_call_without_arguments_only_beside_a_call_object():
    """qwen2.5-coder via Ollama leaves "arguments" out of a call that has none (hermes-agent PR
    #87900): beside a call object it is a call, alone or beside other records it is not."""
    call = {"name": "read_file", "arguments": {"path": "a"}}
    assert interpret([{"name": "ls"}, call], strict=True, names=("ls", "read_file")) == [("ls", {}), ("read_file", {"path": "a"})]
    assert interpret([{"name": "ls", "id": "1"}, call], strict=True, names=("ls", "read_file")) == [("ls", {}), ("read_file", {"path": "a"})]
    assert interpret([{"name": "ls"}, {"name": "pwd"}], strict=True, names=("ls", "pwd")) == []
    # a name of no node tool beside a call object is kept: the tool runner answers it as unknown
    assert interpret([{"name": "ls"}, call], strict=True, names=("read_file",)) == [("ls", {}), ("read_file", {"path": "a"})]
    assert interpret([{"name": "Alice", "age": 30}, call], strict=True, names=("Alice", "read_file")) == [("read_file", {"path": "a"})]


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


# ---- names a server mangled, and calls written on one line ------------------------------------


@pytest.mark.parametrize(
    ("calls", "repaired"),
    [
        # a Harmony recipient passed on as the name (gpt-oss)
        ([ToolCall("c1", "functions.get_weather", {"city": "Paris"})], [("c1", "get_weather", {"city": "Paris"})]),
        # ggml-org/llama.cpp#15158: the constrain word glued to the name
        ([ToolCall("c1", "get_weatherjson", {"city": "Paris"})], [("c1", "get_weather", {"city": "Paris"})]),
        # vllm-project/vllm#37386 (GLM-4.7): whitespace around the name
        ([ToolCall("c1", "get_weather\n", {"city": "Paris"})], [("c1", "get_weather", {"city": "Paris"})]),
        # zai-org/GLM-5#84: the arguments inside the name
        (
            [ToolCall("c1", "get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value>", {})],
            [("c1", "get_weather", {"city": "Paris"})],
        ),
        ([ToolCall("c1", 'get_weather{"city": "Paris"}', {})], [("c1", "get_weather", {"city": "Paris"})]),
        # continuedev/continue#5849 (Gemini): a name in two pieces, read as two calls
        (
            [ToolCall("c1", "get_wea", {}), ToolCall("c2", "ther", {"city": "Paris"})],
            [("c1", "get_weather", {"city": "Paris"})],
        ),
    ],
)
def test_a_name_a_server_mangled_is_read_as_the_tools_own(calls, repaired):
    assert [(c.id, c.name, c.arguments) for c in repair_names(calls, ["get_weather", "search"])] == repaired


@pytest.mark.parametrize(
    "calls",
    [
        [ToolCall("c1", "weather", {"city": "Paris"})],  # not one of the tools, even in part
        [ToolCall("c1", "search", {}), ToolCall("c2", "search", {})],  # two known calls stay two
        [ToolCall("c1", 'get_weather{"city": "Paris"}', {"units": "C"})],  # arguments of its own: left
        [ToolCall("c1", "functions.weather", {})],
    ],
)
def test_names_that_are_not_a_tools_own_are_left_as_they_came(calls):
    assert repair_names(calls, ["get_weather", "search"]) == tuple(calls)


@pytest.mark.parametrize(
    "text",
    [
        'functools[{"name": "get_weather", "arguments": {"city": "Paris"}}]',  # Phi-4-mini
        'get_weather:0{"city": "Paris"}',  # Kimi K2 with its tokens left out
        'functions.get_weather:0 {"city": "Paris"}',
        'get_weather\n{"city": "Paris"}',  # GLM-4
        'get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_calls_section_end|>',
        'get_weather({"city": "Paris"})',  # Mistral (openai/openai-agents-python#1196)
        "get_weather(city='Paris')",
        'get_weather("Paris")',  # a text input, fitted to the tool's only parameter
    ],
)
def test_a_reply_that_is_one_call_written_on_a_line_is_read(text):
    weather = PromptMessageTool(
        name="get_weather", description="Weather", parameters={"type": "object", "properties": {"city": {"type": "string"}}}
    )
    calls, rest = extract_calls_from_text(text, [weather])
    assert [(c.name, c.arguments) for c in calls] == [("get_weather", {"city": "Paris"})] and rest == ""


def test_a_bold_marker_left_before_an_action_input_is_not_part_of_it():
    # crewAIInc/crewAI agent parser tests: "Action Input: ** {...}"
    assert decode_input('** {"task": "x"}') == {"task": "x"}
    assert decode_input('**{"task": "x"}**') == {"task": "x"}
    assert decode_input("** not an object") == "** not an object"


@pytest.mark.parametrize(
    ("text", "calls"),
    [
        ('<tool_code>get_weather(city="Paris")</tool_code>', [("get_weather", {"city": "Paris"})]),
        ('Checking.\n<tool_code>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_code>', [("get_weather", {"city": "Paris"})]),
        ("<tool_code>\n/tool_code>", []),  # 1CatAI/1Cat-vLLM#26: markup with no call in it
    ],
)
def test_a_tool_code_block_is_read_as_a_tool_call_block(text, calls):
    found, _ = extract_calls_from_text(text, ["get_weather"])
    assert [(c.name, c.arguments) for c in found] == calls
    assert mentions_call_markup(text)  # so a block with no readable call is not an answer


def test_a_glm_key_closed_twice_is_still_the_key():
    # vllm-project/vllm#54971 (GLM-4.7): the tool must not run with a key "path</arg_key>"
    block = "list_dir<arg_key>path</arg_key></arg_key><arg_value>/Users/me/project</arg_value>"
    assert calls_from_block(block) == [("list_dir", {"path": "/Users/me/project"})]


def test_a_glm_key_opened_twice_is_still_the_key():
    # vllm-project/vllm PR #54971 names the mirrored case: "<arg_key><arg_key>path..." -> key "<arg_key>path"
    block = "get_weather<arg_key><arg_key>city</arg_key><arg_value>Paris</arg_value>"
    assert calls_from_block(block) == [("get_weather", {"city": "Paris"})]


@pytest.mark.parametrize(
    "block",
    [
        # GLM-family models in a live session (mrwogu/factory-droid-openai PR #36): the name glued to
        # its JSON arguments; ml-explore/mlx-lm PR #792 (GLM 4.7): "name {json}" without arg keys
        'skill_view{"name":"apple-notes"}',
        'skill_view {"name":"apple-notes"}',
        'skill_view\n{"name":"apple-notes"}',
    ],
)
def test_a_name_with_its_json_arguments_in_a_tool_call_block_is_that_call(block):
    assert calls_from_block(block) == [("skill_view", {"name": "apple-notes"})]
    calls, rest = extract_calls_from_text(f"<tool_call>{block}</tool_call>", ["skill_view"])
    assert [(c.name, c.arguments) for c in calls] == [("skill_view", {"name": "apple-notes"})] and rest == ""


@pytest.mark.parametrize("block", ['skill_view{"name": "apple-no', "skill_view{not json}", 'Result:\n{"a": 1}'])
def test_a_name_above_text_that_is_no_json_object_is_no_call(block):
    assert calls_from_block(block) == []


def test_a_tool_name_written_with_its_signature_or_description_is_that_tool():
    # crewAIInc/crewAI#674 (phi3): the line of the prompt's tool list, copied after "Action:"
    names = ["Internet Search Tool", "search", "search_web"]
    assert described_tool("Internet Search Tool(user_query) - Scrapes the weblinks", names) == "Internet Search Tool"
    assert described_tool("search - find things on the web", names) == "search"
    assert described_tool("search_web", names) is None  # already a tool
    assert described_tool("searching for it", names) is None


def test_glms_own_call_form_without_its_tool_call_tag_is_a_call_to_a_known_tool():
    text = "get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value>"
    calls, rest = extract_calls_from_text(text, ["get_weather"])
    assert [(c.name, c.arguments) for c in calls] == [("get_weather", {"city": "Paris"})] and rest == ""
    assert extract_calls_from_text(text.replace("get_weather", "unknown_tool"), ["get_weather"])[0] == ()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[get_weather(city="Paris")]', True),  # Llama 3.2 / 4 pythonic (vllm-project/vllm#9991)
        ('[get_weather(city="Paris"), get_time(tz="CET")]', True),
        ('<|python_start|>[get_weather(city="Paris")]<|python_end|>', True),
        ('get_weather(city="Paris")', True),
        ('[unknown(city="Paris")]', False),
        ("[see(the docs)]", False),
        ('Use [get_weather(city="Paris")] to look.', False),
    ],
)
def test_a_reply_that_is_only_calls_to_known_tools_as_code_is_seen(text, expected):
    """ReAct reads such a reply as its call (react/turn.py ``_name_line_calls``), as Function
    Calling does."""
    assert name_line_call(text, ["get_weather", "get_time"]) is expected


def test_calls_written_one_a_line_are_each_a_call_never_one_call_of_them_all():
    """OLMo 3 writes its calls as code one per line (vLLM's olmo3 tool parser); read as one call
    to the first tool, its input the rest of the text, they ran the wrong call."""
    block = 'get_weather(city="Paris")\nget_time(tz="CET")'
    assert calls_from_block(block) == [("get_weather", {"city": "Paris"}), ("get_time", {"tz": "CET"})]
    calls, _ = extract_calls_from_text(f"<tool_call>{block}</tool_call>", ["get_weather", "get_time"])
    assert [(c.name, c.arguments) for c in calls] == [("get_weather", {"city": "Paris"}), ("get_time", {"tz": "CET"})]


@pytest.mark.parametrize(
    "text",
    [
        '<tool_call>\n{"name": "write_file", "arguments": {"text": "Close with </tool_call> then stop."}}\n</tool_call>',
        'Saving.\n<tool_call>{"name": "write_file", "arguments": {"text": "Close with </tool_call> then stop."}}',
    ],
)
def test_a_closing_tag_inside_an_argument_string_does_not_end_the_call(text):
    """vllm-project/vllm#45167 (Qwen2.5, kanana-2): a tool writing about tool calls has the tag in
    its JSON string; cut there, the call was unreadable and dropped."""
    calls, rest = extract_calls_from_text(text, ["write_file"])
    assert [(c.name, c.arguments) for c in calls] == [("write_file", {"text": "Close with </tool_call> then stop."})]
    assert "tool_call" not in rest


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "get_weather", "parameters": {"city": "Paris"}}; {"name": "get_time", "parameters": {"tz": "CET"}}',
        '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}};{"name": "get_time", "parameters": {"tz": "CET"}}<|eom_id|>',
    ],
)
def test_llama_calls_joined_by_semicolons_are_each_a_call(text):
    """Llama 3.x writes parallel calls as JSON objects joined by ``;`` (vLLM's llama3_json tool
    parser: "multiple JSONs separated by semicolons"); the second was dropped."""
    calls, rest = extract_calls_from_text(text, ["get_weather", "get_time"])
    assert [(c.name, c.arguments) for c in calls] == [("get_weather", {"city": "Paris"}), ("get_time", {"tz": "CET"})]
    assert rest == ""
    one_unknown = text.replace("get_time", "unknown")
    assert extract_calls_from_text(one_unknown, ["get_weather", "get_time"])[0] == ()


@pytest.mark.parametrize("between", ["\n", "\n\n", " ", ",\n", ";"])
def test_several_json_calls_in_one_tool_call_block_are_each_a_call(between):
    """Hermes-style models may put parallel calls in one ``<tool_call>`` block, one object after
    the other; before, the block was unreadable and the model was asked again."""
    text = (
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}'
        + between
        + '{"name": "get_time", "arguments": {"tz": "CET"}}\n</tool_call>'
    )
    calls, rest = extract_calls_from_text(text, ["get_weather", "get_time"])
    assert [(c.name, c.arguments) for c in calls] == [("get_weather", {"city": "Paris"}), ("get_time", {"tz": "CET"})]
    assert rest == ""


@pytest.mark.parametrize(
    "second",
    [
        '{"name": "get_time", "arguments": {"tz": "CET"}',  # cut short
        'and then {"name": "get_time", "arguments": {"tz": "CET"}}',  # prose between them
        '{"name": "unknown", "arguments": {}}',  # not a tool of the node
        '"get_time"',  # not an object
    ],
)
def test_a_block_of_json_objects_is_calls_only_when_every_one_is_a_whole_call(second):
    text = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n' + second + "\n</tool_call>"
    calls, _ = extract_calls_from_text(text, ["get_weather", "get_time"])
    assert calls == ()


def test_a_raw_line_break_inside_a_python_call_string_is_the_strings():
    """LFM2 writes a multi-line shell command with real line breaks in its quotes (vLLM's lfm2
    parser test): the call is read with them; quotes escaped and triple-quoted strings still read."""
    assert calls_from_block("[exec(command='cat > f.py << EOF\nimport csv\nEOF')]") == [
        ("exec", {"command": "cat > f.py << EOF\nimport csv\nEOF"})
    ]
    assert calls_from_block("[f(a='it\\'s\nhere', b=\"\"\"x\ny\"\"\")]") == [("f", {"a": "it's\nhere", "b": "x\ny"})]
    assert calls_from_block("[f(a='never closed\n)]") == []


@pytest.mark.parametrize(
    "text",
    [
        "To print it: [print(x)]",  # Python code an answer shows: no tool's name
        "Try [get_weather(city='Paris'), delete_all()]",  # one name is not a tool's: not run
        "Call [get_weather(city='Paris')] and then read the result.",  # the list does not end the reply
        "Code: <|python_start|>[print('hi')]<|python_end|>",
    ],
)
def test_a_code_list_after_a_sentence_is_a_call_only_when_every_name_is_a_tool(text):
    assert extract_calls_from_text(text, ["get_weather"]) == ((), text)


def test_a_code_list_after_a_sentence_runs_and_the_sentence_stays():
    calls, rest = extract_calls_from_text("Let me check: [get_weather(city='Paris'), get_weather(city='Rome')]", ["get_weather"])
    assert [(c.name, c.arguments) for c in calls] == [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Rome"})]
    assert rest == "Let me check:"


def test_a_long_key_a_model_wrote_is_read_but_its_form_not_kept_for_the_process_life():
    """The forms of envelope keys are remembered for the process's life (a few thousand): a key
    of a megabyte in one reply must not stay in a process that serves sessions for days."""
    from agent_core import text_calls

    key = "Action Input " + "x" * 1_000_000
    assert interpret({"action": "search", key: {"q": "a"}}, strict=False) is not None
    assert key not in text_calls._KEY_FORMS
    assert "action" in text_calls._KEY_FORMS  # the usual keys still are


def test_schema_properties_of_a_dict_or_another_mapping_alike():
    # a dict is read without abc's Mapping check; any other mapping still is one
    from types import MappingProxyType

    from dify_plugin.entities.model.message import PromptMessageTool

    from agent_core.text_calls import schema_properties

    props = {"q": {"type": "string"}}
    plain = PromptMessageTool(name="t", description="", parameters={"type": "object", "properties": props})
    assert schema_properties(plain) == props
    proxied = plain.model_copy(update={"parameters": MappingProxyType({"properties": MappingProxyType(props)})})
    assert dict(schema_properties(proxied)) == props
    odd = plain.model_copy(update={"parameters": {"properties": ["q"]}})
    assert schema_properties(odd) == {} and schema_properties(None) == {}


def test_an_array_of_calls_in_a_tools_tag_is_read_as_its_calls():
    """vllm-project/vllm PR #33083: Qwen2.5-Coder's parallel calls as a JSON array in ``<tools>``
    (after a sentence too); an array that holds no call stays the answer's text."""
    text = 'Checking.\n<tools>\n[{"name": "search", "arguments": {"q": "a"}}, {"name": "search", "arguments": {"q": "b"}}]\n</tools>'
    calls, rest = extract_calls_from_text(text, [SEARCH])
    assert [(call.name, call.arguments) for call in calls] == [("search", {"q": "a"}), ("search", {"q": "b"})]
    assert rest.strip() == "Checking."
    assert extract_calls_from_text("<tools>\n[1, 2]\n</tools>", [SEARCH])[0] == ()


def test_a_list_of_call_objects_ending_the_text_after_a_sentence_is_read_as_its_calls():
    """ollama/ollama#10981: Phi-4-mini's call list without its ``functools`` marker after a
    sentence. A list with text after it, in a fence, or naming no tool stays the answer's text."""
    text = 'I will check.\n\n[{"name": "search", "arguments": {"q": "a"}}]'
    calls, rest = extract_calls_from_text(text, [SEARCH])
    assert [(call.name, call.arguments) for call in calls] == [("search", {"q": "a"})]
    assert rest == "I will check."
    for kept in (
        'I will check.\n[{"name": "search", "arguments": {"q": "a"}}]\nThat is the list.',
        'An example:\n```\n[{"name": "search", "arguments": {"q": "a"}}]\n```',
        'People:\n[{"name": "Ada", "arguments": {}}]',
    ):
        assert extract_calls_from_text(kept, [SEARCH])[0] == ()
