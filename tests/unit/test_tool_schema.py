"""Tool schemas, lookup, parameter merging and validation (agent_core.tool_schema).

Tools are built as Dify sends them (protocol §5): ToolEntity JSON plus
``runtime_parameters``, ``credential_id`` and ``provider_type``.
"""

import gc
import json
import re
import time

import pytest
from dify_plugin.interfaces.agent import ToolEntity
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_core.json_args import decode_arguments
from agent_core.text_calls import extract_calls_from_text
from agent_core.tool_schema import ToolRegistry, coerce_value, provider_name, to_prompt_tool


def param(name, type="string", form="llm", required=False, **extra):
    return {
        "name": name,
        "label": {"en_US": name},
        "human_description": {"en_US": f"human {name}"},
        "type": type,
        "form": form,
        "llm_description": extra.pop("llm_description", f"the {name}"),
        "required": required,
        **extra,
    }


def options(*values):
    return [{"value": value, "label": {"en_US": value}} for value in values]


def tool(name="current_time", parameters=(), runtime=None, description="A tool for getting the current time."):
    return ToolEntity.model_validate(
        {
            "identity": {
                "author": "langgenius",
                "name": name,
                "label": {"en_US": name},
                "provider": "langgenius/time/time",
            },
            "parameters": list(parameters),
            "description": {"human": {"en_US": "human text"}, "llm": description},
            "output_schema": {},
            "has_runtime_parameters": bool(runtime),
            "runtime_parameters": runtime or {},
            "credential_id": "cred-1",
            "provider_type": "builtin",
        }
    )


# --- to_prompt_tool -----------------------------------------------------------------


def test_protocol_example_current_time():
    """The request in protocol §1.3 becomes the tools entry shown in §1.5."""
    entity = tool(
        parameters=[
            param("timezone", "select", llm_description="Timezone, e.g. UTC", default="UTC", options=options("UTC"))
        ],
        runtime={"format": "%Y-%m-%d %H:%M:%S"},
    )
    assert to_prompt_tool(entity).model_dump() == {
        "name": "current_time",
        "description": "A tool for getting the current time.",
        "parameters": {
            "type": "object",
            "properties": {"timezone": {"type": "string", "description": "Timezone, e.g. UTC", "enum": ["UTC"]}},
            "required": [],
        },
    }


def test_required_parameters_are_listed_in_order_each_once():
    declared = to_prompt_tool(tool(parameters=[param("b", required=True), param("a", required=True),
                                               param("b", required=True), param("c")]))
    assert declared.parameters["required"] == ["b", "a"]


def _per_parameter_seconds(count: int) -> float:
    wide = tool(parameters=[param(f"p{n}", required=True) for n in range(count)])
    best = min(_timed(lambda: to_prompt_tool(wide)) for _ in range(3))
    return best / count


def _timed(work) -> float:
    """Seconds ``work`` takes, the collector paused (its passes over a large heap are no cost of
    the work's own)."""
    gc.disable()
    try:
        started = time.perf_counter()
        work()
        return time.perf_counter() - started
    finally:
        gc.enable()


def test_a_tool_of_thousands_of_required_parameters_is_declared_in_linear_time():
    """Each required name was looked for in the list of those before it: 30,000 parameters took
    7 s of the process (every other session waiting), found by the wave-36 blind limits. Linear:
    a parameter costs a few times as much among 20,000 as among 200 (the caches hold less of
    them: measured 6 times), quadratic 190 times."""
    assert _per_parameter_seconds(20_000) < 30 * _per_parameter_seconds(200)


def test_mcpsse1_parameterless_tool_has_a_valid_empty_schema_and_runs_with_empty_arguments():
    entity = tool(name="list_datasources", parameters=[])
    assert to_prompt_tool(entity).parameters == {"type": "object", "properties": {}, "required": []}
    registry = ToolRegistry([entity])
    assert registry.invocation_parameters(entity, decode_arguments("")) == {}
    assert registry.validate_arguments(entity, {}) is None


def test_only_llm_parameters_and_never_files():
    entity = tool(
        parameters=[
            param("query", required=True),
            param("api_base", form="form", default="https://x"),
            param("mode", form="schema"),
            param("attachment", "file"),
            param("attachments", "files"),
        ]
    )
    schema = to_prompt_tool(entity).parameters
    assert list(schema["properties"]) == ["query"]
    assert schema["required"] == ["query"]


@pytest.mark.parametrize(
    ("dify_type", "json_type"),
    [
        ("string", "string"),
        ("number", "number"),
        ("boolean", "boolean"),
        ("checkbox", "boolean"),
        ("secret-input", "string"),
        ("date", "string"),
        ("any", "string"),
        ("object", "object"),
        ("array", "array"),
    ],
)
def test_types_map_to_json_schema_types(dify_type, json_type):
    schema = to_prompt_tool(tool(parameters=[param("p", dify_type)])).parameters["properties"]["p"]
    assert schema["type"] == json_type
    if json_type == "array":
        assert schema["items"] == {"type": "string"}


def test_select_multiple_is_an_array_of_enum():
    parameter = param("tags", "select", multiple=True, default=["a"], options=options("a", "b"))
    schema = to_prompt_tool(tool(parameters=[parameter])).parameters["properties"]["tags"]
    assert schema == {"type": "array", "description": "the tags", "items": {"type": "string", "enum": ["a", "b"]}}


def test_input_schema_is_used_as_given():
    input_schema = {"type": "object", "properties": {"lat": {"type": "number"}}, "required": ["lat"]}
    entity = tool(parameters=[param("point", "object", required=True, input_schema=input_schema)])
    schema = to_prompt_tool(entity).parameters
    assert schema["properties"]["point"] == {**input_schema, "description": "the point"}
    assert schema["required"] == ["point"]



def test_an_input_schema_nested_too_deep_to_send_is_described_by_the_parameter_type():
    """Some 300 levels ended the run with a bare RecursionError; the tool still runs."""
    deep = {"type": "string"}
    for _ in range(300):
        deep = {"type": "object", "properties": {"a": deep}}
    shallow = {"type": "object", "properties": {"a": {"type": "string"}}}
    entity = tool(parameters=[param("deep", "object", input_schema=deep), param("fine", "object", input_schema=shallow)])
    properties = to_prompt_tool(entity).parameters["properties"]
    assert properties["deep"] == {"type": "object", "description": "the deep"}
    assert properties["fine"] == {**shallow, "description": "the fine"}
    json.dumps(to_prompt_tool(entity).model_dump())

def test_descriptions_fall_back_to_human_text():
    entity = tool(parameters=[param("q", llm_description=None)], description="")
    prompt_tool = to_prompt_tool(entity)
    assert prompt_tool.description == "human text"
    assert prompt_tool.parameters["properties"]["q"]["description"] == "human q"


def test_schema_is_always_json_serialisable():
    entity = tool(parameters=[param("q", required=True), param("n", "number"), param("d", "date-range")])
    json.dumps(to_prompt_tool(entity).model_dump())


# --- ToolRegistry -------------------------------------------------------------------


def test_dify15483_agent_without_tools():
    for tools in ([], None):
        registry = ToolRegistry(tools)
        assert registry.prompt_tools() == [] and registry.names() == [] and registry.secret_values() == set()
        assert registry.get("anything") is None


def test_get_is_exact_name_only():
    registry = ToolRegistry([tool("web_search")])
    assert registry.get("web_search") is not None
    for near in ("Web_Search", "web-search", " web_search", "web_search_2", "search"):
        assert registry.get(near) is None


def test_duplicate_names_are_offered_under_unique_names():
    first, second = tool("search", description="one"), tool("search", description="two")
    registry = ToolRegistry([first, second])
    assert registry.names() == ["search", "search_2"]
    assert [t.name for t in registry.prompt_tools()] == ["search", "search_2"]
    assert registry.get("search") is first and registry.get("search_2") is second


def test_prompt_tools_are_built_once_and_each_call_gets_its_own_list():
    """Every round asks for the tools again: they are converted once per registry."""
    registry = ToolRegistry([tool("search"), tool("search")])
    first, second = registry.prompt_tools(), registry.prompt_tools()
    assert first == second and all(a is b for a, b in zip(first, second, strict=True))
    first.append(first[0])
    assert [t.name for t in registry.prompt_tools()] == ["search", "search_2"]


def test_a_tool_whose_declaration_alone_is_too_large_is_not_offered_and_its_secrets_stay_hidden():
    """An enum of megabytes (a select's options) or a description of megabytes: every request
    would be over the daemon's line, so the tool is left out and named in ``oversized``."""
    limit = 10_000
    huge_enum = tool("lookup", parameters=[param("region", "select", options=options(*(f"r{n}" for n in range(2_000))))])
    keyed = tool("crm", parameters=[param("api_key", "secret-input", form="form")], runtime={"api_key": "K-77"},
                 description="d" * limit)
    registry = ToolRegistry([huge_enum, keyed, tool("search")], declaration_limit=limit)
    assert registry.names() == ["search"] and [t.name for t in registry.prompt_tools()] == ["search"]
    assert [name for name, _ in registry.oversized] == ["lookup", "crm"]
    assert all(size > limit for _, size in registry.oversized)
    assert "K-77" in registry.secret_values()
    assert ToolRegistry([huge_enum, keyed]).oversized == []  # the default limit: a quarter of a daemon line


def test_invocation_runtime_parameters_win_and_defaults_fill_in():
    entity = tool(
        parameters=[
            param("timezone", "select", options=options("UTC", "CET")),
            param("format", form="form"),
            param("locale", form="form", default="en"),
        ],
        runtime={"format": "%H:%M"},
    )
    merged = ToolRegistry([entity]).invocation_parameters(entity, {"timezone": "CET", "format": "%Y"})
    assert merged == {"timezone": "CET", "format": "%H:%M", "locale": "en"}


def test_invocation_keeps_undeclared_keys_but_not_hidden_parameters():
    """Extra keys may be meaningful to MCP/API tools; non-llm parameters were never offered."""
    entity = tool(parameters=[param("q"), param("api_key", "secret-input", form="form")])
    merged = ToolRegistry([entity]).invocation_parameters(entity, {"q": "x", "page": 2, "api_key": "stolen"})
    assert merged == {"q": "x", "page": 2}


@pytest.mark.parametrize(
    ("dify_type", "given_value", "expected"),
    [
        ("number", "3", 3),
        ("number", " -2.5 ", -2.5),
        ("number", "1e3", 1000.0),
        ("number", "three", "three"),
        ("number", True, True),
        ("boolean", "true", True),
        ("boolean", "FALSE", False),
        ("boolean", "yes", True),  # as Dify casts a boolean tool parameter
        ("boolean", " No ", False),
        ("boolean", 1, True),
        ("boolean", 0.0, False),
        ("boolean", 2, 2),  # not a boolean without doubt: the model is told
        ("boolean", "maybe", "maybe"),
        ("checkbox", "true", True),
        ("string", 42, "42"),
        ("string", {"a": "é"}, '{"a": "é"}'),
        ("string", None, None),
        ("object", '{"a": 1}', {"a": 1}),
        ("array", "[1, 2]", [1, 2]),
        ("array", "not json", "not json"),
    ],
)
def test_coercion(dify_type, given_value, expected):
    entity = tool(parameters=[param("p", dify_type)])
    assert coerce_value(entity.parameters[0], given_value) == expected
    assert ToolRegistry([entity]).invocation_parameters(entity, {"p": given_value}) == {"p": expected}


def test_dify18665_non_automatic_number_parameter():
    """A form parameter bound to a number input reaches us as text: sent as a number.
    A raw variable selector (the Dify bug itself) cannot be resolved here and passes unchanged."""
    parameters = [param("email", required=True), param("user_id", "number", form="form", required=True)]
    entity = tool("send_otp_code_to_an_email", parameters, runtime={"user_id": "123455"})
    registry = ToolRegistry([entity])
    merged = registry.invocation_parameters(entity, {"email": "abc_xyz@gmail.com"})
    assert merged == {"email": "abc_xyz@gmail.com", "user_id": 123455}
    assert registry.validate_arguments(entity, {"email": "abc_xyz@gmail.com"}) is None
    selector = tool("send_otp_code_to_an_email", parameters, runtime={"user_id": ["1744858660069", "user_id"]})
    assert registry.invocation_parameters(selector, {})["user_id"] == ["1744858660069", "user_id"]


def test_dify23973_quotes_in_values_survive():
    value = 'He said "hello" and left \\ early'
    entity = tool(parameters=[param("text", form="form"), param("q")], runtime={"text": value})
    merged = ToolRegistry([entity]).invocation_parameters(entity, {"q": 'a "quoted" query'})
    assert merged == {"text": value, "q": 'a "quoted" query'}
    assert json.loads(json.dumps(merged)) == merged


def test_secret_values_from_runtime_secret_inputs():
    entities = [
        tool(
            "a",
            parameters=[param("key", "secret-input", form="form"), param("q")],
            runtime={"key": "sk-123456", "q": "x"},
        ),
        tool("b", parameters=[param("token", "secret-input", form="form")], runtime={"token": ""}),
        tool("c", parameters=[param("plain", form="form")], runtime={"plain": "visible"}),
    ]
    assert ToolRegistry(entities).secret_values() == {"sk-123456"}


@pytest.mark.parametrize("provider_names", [False, True])
def test_a_secret_quoted_in_a_tools_own_declaration_is_not_offered_to_the_model(provider_names):
    """Function Calling sends the declarations as they are: a key its author (or another tool of
    the node) quoted in a description or an option reaches no request; the rest is kept."""
    key = "sk-declared-4d2f"
    quoting = tool("vault", description=f"Reads the vault with key {key}", parameters=[
        param("q", "select", llm_description=f"query; key {key.upper()} is sent", options=options("a", f"b-{key}")),
        param("api_key", "secret-input", form="form")], runtime={"api_key": key})
    other = tool("mail", description=f"Mails; never send {key}", parameters=[param("to")])
    registry = ToolRegistry([quoting, other], provider_names=provider_names)
    declared = json.dumps([t.model_dump() for t in registry.prompt_tools()])
    assert "4d2f" not in declared.lower()
    assert "Reads the vault with key [REDACTED]" in declared and '"a"' in declared and "Mails; never send" in declared
    assert [t.name for t in registry.prompt_tools()] == ["vault", "mail"]


def test_a_registry_without_secrets_offers_its_declarations_unchanged():
    entity = tool(parameters=[param("q", llm_description="sk-declared-4d2f is no secret here")])
    (declared,) = ToolRegistry([entity]).prompt_tools()
    assert declared == to_prompt_tool(entity)


@pytest.mark.parametrize("value", ["Bearer sk-live-77aa21", "  bearer\tsk-live-77aa21\n", "Token sk-live-77aa21"])
def test_a_secret_pasted_with_its_auth_scheme_hides_the_token_alone_too(value):
    """The user pasted a whole header value; the tool writes the token alone (a URL, a log)."""
    entity = tool(parameters=[param("auth", "secret-input", form="form")], runtime={"auth": value})
    registry = ToolRegistry([entity])
    assert "sk-live-77aa21" in registry.secret_values()
    assert registry.secret_forms().redact("GET /x?token=sk-live-77aa21 401") == "GET /x?token=[REDACTED] 401"


def test_a_secret_that_only_starts_like_a_scheme_word_is_kept_whole():
    entity = tool(parameters=[param("auth", "secret-input", form="form")], runtime={"auth": "Bearerless-9911zz"})
    assert ToolRegistry([entity]).secret_values() == {"Bearerless-9911zz"}


def test_the_default_of_a_secret_input_is_a_secret_value_too():
    """The node set no value: the tool gets the parameter's declared default, its key."""
    entity = tool(parameters=[param("key", "secret-input", form="form", default="sk-shipped-9f3e")], runtime={})
    registry = ToolRegistry([entity])
    assert registry.invocation_parameters(entity, {})["key"] == "sk-shipped-9f3e"
    assert registry.secret_values() == {"sk-shipped-9f3e"}


def test_logged_parameters_are_what_the_tool_gets_with_secrets_redacted():
    entity = tool(
        parameters=[
            param("q"),
            param("limit", "number"),
            param("api_key", "secret-input", form="form"),
            param("region", form="form", default="eu"),
            param("pin", "secret-input", form="form"),
        ],
        runtime={"api_key": "sk-123456", "pin": ""},
    )
    logged = ToolRegistry([entity]).logged_parameters(
        entity, ToolRegistry([entity]).invocation_parameters(entity, {"q": "x", "limit": "3", "api_key": "model"})
    )
    assert logged == {"q": "x", "limit": 3, "api_key": "[REDACTED]", "region": "eu", "pin": ""}


def test_logged_parameters_hide_a_secret_held_by_any_other_value():
    # a fixed address or header holding the tool's secret, an object argument holding another
    # tool's secret (one the node has but does not offer): the log shows neither
    entity = tool(
        parameters=[param("api_key", "secret-input", form="form"), param("endpoint", form="form"), param("body", "object")],
        runtime={"api_key": "sk-123456", "endpoint": "https://x.example/?key=sk-123456"},
    )
    registry = ToolRegistry([entity], other_secrets={"tok-987654"})
    logged = registry.logged_parameters(
        entity, registry.invocation_parameters(entity, {"body": {"auth": ["Bearer tok-987654"], "n": 1}})
    )
    assert logged == {
        "body": {"auth": ["Bearer [REDACTED]"], "n": 1},
        "api_key": "[REDACTED]",
        "endpoint": "https://x.example/?key=[REDACTED]",
    }


# --- validate_arguments ---------------------------------------------------------------


def test_missing_required_parameters():
    entity = tool(parameters=[param("city", required=True), param("country", required=True), param("unit")])
    registry = ToolRegistry([entity])
    assert registry.validate_arguments(entity, {}) == "missing required parameter 'city', 'country'."
    assert registry.validate_arguments(entity, {"city": "", "country": None}) == (
        "missing required parameter 'city', 'country'."
    )
    assert registry.validate_arguments(entity, {"city": "Oslo", "country": "NO"}) is None


def test_required_parameter_fixed_by_the_user_is_not_missing():
    entity = tool(parameters=[param("city", required=True)], runtime={"city": "Oslo"})
    assert ToolRegistry([entity]).validate_arguments(entity, {}) is None


def test_a_required_parameter_with_a_declared_default_takes_it_when_the_model_leaves_it_out():
    """The official strategies send such a call as it is and the tool reads its own default;
    refused, the model would be asked for a value the tool already has."""
    entity = tool(parameters=[param("city", required=True), param("days", "number", required=True, default="3"),
                              param("unit", "select", required=True, default="", options=options("C", "F"))])
    registry = ToolRegistry([entity])
    assert registry.validate_arguments(entity, {"city": "Oslo"}) == "missing required parameter 'unit'."
    assert registry.validate_arguments(entity, {"city": "Oslo", "unit": "C"}) is None
    assert registry.invocation_parameters(entity, {"city": "Oslo", "unit": "C"}) == {"city": "Oslo", "unit": "C", "days": 3}
    assert registry.invocation_parameters(entity, {"city": "Oslo", "days": 7})["days"] == 7
    assert registry.invocation_parameters(entity, {"city": "Oslo", "days": ""})["days"] == 3


def test_hermes83229_select_typo_lists_allowed_values():
    """GLM-5.2 retried ``listt_windows``; the error must list the real options."""
    entity = tool(
        "computer_use",
        parameters=[
            param("action", "select", required=True, options=options("list_windows", "list_apps", "screenshot"))
        ],
    )
    message = ToolRegistry([entity]).validate_arguments(entity, {"action": "listt_windows"})
    assert message == (
        "parameter 'action' must be one of 'list_windows', 'list_apps', 'screenshot' (got 'listt_windows')."
    )


def test_select_multiple_checks_each_value():
    parameter = param("tags", "select", multiple=True, default=["a"], options=options("a", "b"))
    entity = tool(parameters=[parameter])
    registry = ToolRegistry([entity])
    assert registry.validate_arguments(entity, {"tags": ["a", "b"]}) is None
    assert "got 'z'" in registry.validate_arguments(entity, {"tags": ["a", "z"]})


def test_number_and_boolean_checks_after_coercion():
    entity = tool(parameters=[param("n", "number"), param("flag", "boolean")])
    registry = ToolRegistry([entity])
    assert registry.validate_arguments(entity, {"n": "5", "flag": "true"}) is None
    assert registry.validate_arguments(entity, {"n": "five", "flag": "maybe"}) == (
        "parameter 'n' must be a number (got 'five'). parameter 'flag' must be true or false (got 'maybe')."
    )


def test_select_with_number_value_matches_string_option():
    entity = tool(parameters=[param("level", "select", options=options("1", "2"))])
    assert ToolRegistry([entity]).validate_arguments(entity, {"level": 2}) is None


def test_fastagent91_model_without_function_calling_can_still_be_read_from_text():
    """deepseek-reasoner rejects ``tools``; choosing ReAct is the strategy's job, but a call
    the model writes in its answer is still understood against the registry's names."""
    registry = ToolRegistry([tool("get_weather", parameters=[param("city", required=True)])])
    calls, _ = extract_calls_from_text('{"name": "get_weather", "arguments": {"city": "Oslo"}}', registry.names())
    entity = registry.get(calls[0].name)
    assert registry.validate_arguments(entity, calls[0].arguments) is None


@settings(deadline=None)
@given(
    st.dictionaries(st.text(max_size=6), st.none() | st.booleans() | st.integers() | st.text(max_size=6), max_size=5)
)
def test_validation_and_merge_never_raise(arguments):
    entity = tool(
        parameters=[
            param("n", "number", required=True),
            param("b", "boolean"),
            param("s", "select", options=options("x")),
            param("o", "object"),
            param("f", form="form", default="d"),
        ],
        runtime={"f": "fixed"},
    )
    registry = ToolRegistry([entity])
    result = registry.validate_arguments(entity, arguments)
    assert result is None or result.endswith(".")
    merged = registry.invocation_parameters(entity, arguments)
    assert merged["f"] == "fixed"


def test_arguments_that_repeat_the_schema_are_refused_with_the_reason():
    entity = tool(parameters=[param("query", required=True)])
    registry = ToolRegistry([entity])
    printed = registry.validate_arguments(entity, {"type": "object", "properties": {"query": {"type": "string"}}})
    assert printed and "repeat the tool's parameter schema" in printed and '{"query": "..."}' in printed
    in_place = registry.validate_arguments(entity, {"query": {"type": "string", "description": "what to look for"}})
    assert in_place and "(description, type)" in in_place
    assert registry.validate_arguments(entity, {"query": {"type": "cat"}}) is not None
    assert registry.validate_arguments(entity, {"query": "cats"}) is None


def test_a_json_schema_given_as_a_value_is_not_taken_for_an_echo_of_the_tools_schema():
    """A validator's ``schema`` parameter (a string: the object goes to the tool as JSON text)
    rightly holds ``type`` and ``properties``; only a schema of the tool's own parameters, or a
    scalar parameter's own schema, is an echo."""
    entity = tool(parameters=[param("schema", required=True), param("data")])
    registry = ToolRegistry([entity])
    value = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    assert registry.validate_arguments(entity, {"schema": value, "data": "{}"}) is None
    assert registry.validate_arguments(entity, {"schema": {"type": "array", "items": {"type": "string"}}}) is None
    assert registry.invocation_parameters(entity, {"schema": value})["schema"] == json.dumps(value)
    printed_under_a_name = {"type": "object", "properties": {"schema": {"type": "string"}, "data": {"type": "string"}}}
    assert "repeat the tool's parameter schema" in registry.validate_arguments(entity, {"schema": printed_under_a_name})
    assert "repeat the tool's parameter schema" in registry.validate_arguments(entity, {"schema": {"type": "string"}})


@pytest.mark.parametrize(
    ("name", "offered"),
    [
        ("get_weather", "get_weather"),
        ("get-weather-2", "get-weather-2"),
        ("github.search_repositories", "github_search_repositories"),  # dify#22867: MCP tool names
        ("Test With Space", "Test_With_Space"),
        ("获取天气", "tool"),
        ("天气 weather!", "weather"),
        ("x" * 70, "x" * 64),
    ],
)
def test_provider_name_keeps_a_name_providers_take_and_mends_one_they_refuse(name, offered):
    assert provider_name(name) == offered


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=80), min_size=1, max_size=6))
def test_function_calling_registry_offers_only_unique_names_every_provider_takes(names):
    registry = ToolRegistry([tool(name) for name in names], provider_names=True)
    offered = registry.names()
    assert len(set(offered)) == len(offered) == len(names)
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name) for name in offered)
    assert [registry.get(name).identity.name for name in offered] == names  # each maps back to its tool


def test_a_tool_offered_under_a_mended_name_is_found_by_its_node_name_when_only_one_has_it():
    """Function Calling offers ``météo`` as ``m_t_o``; a model that read ``météo`` in the
    instruction calls it so and got "no tool named". Two tools of one node name stay apart."""
    registry = ToolRegistry([tool("météo"), tool("github.search"), tool("a.b"), tool("a.b"), tool("x")], provider_names=True)
    assert registry.get("météo") is registry.get("m_t_o") and registry.get("météo").identity.name == "météo"
    assert registry.get("github.search").identity.name == "github.search"
    assert registry.get("a.b") is None and registry.get("nope") is None
    assert registry.get("x").identity.name == "x"


def test_a_tool_keeps_its_own_name_when_a_mended_name_before_it_would_take_it():
    """``search.web`` is offered as ``search_web`` only if no tool of the node is named so: a
    model told to use ``search_web`` must run that tool, not the one listed before it."""
    registry = ToolRegistry([tool("search.web"), tool("search web"), tool("search_web"), tool("search_web")],
                            provider_names=True)
    assert registry.get("search_web").identity.name == "search_web"
    assert [registry.get(name).identity.name for name in registry.names()] == [
        "search.web", "search web", "search_web", "search_web"]
    assert len(set(registry.names())) == 4


def test_react_registry_offers_names_as_the_node_gives_them():
    registry = ToolRegistry([tool("github.search_repositories"), tool("获取天气")])
    assert registry.names() == ["github.search_repositories", "获取天气"]


def test_a_numeric_secret_is_redacted_as_its_text():
    entities = [tool("a", parameters=[param("pin", "secret-input", form="form")], runtime={"pin": 48213377})]
    assert ToolRegistry(entities).secret_values() == {"48213377"}


def test_a_whole_float_secret_is_redacted_in_both_its_forms():
    entities = [tool("a", parameters=[param("pin", "secret-input", form="form")], runtime={"pin": 48213377.0})]
    assert ToolRegistry(entities).secret_values() == {"48213377.0", "48213377"}


def test_a_registry_redacts_the_secrets_of_tools_it_does_not_offer_too():
    assert ToolRegistry([], other_secrets={"NOT-OFFERED-77"}).secret_values() == {"NOT-OFFERED-77"}


def test_a_schema_printed_without_its_type_or_as_the_tools_declaration_is_an_echo():
    """Red-team wave 33: a tool whose parameters are all optional ran these with the schema as
    its arguments; a required parameter's tool refused them as "missing", a wrong reason."""
    entity = tool(parameters=[param("q"), param("limit", "number")])
    registry = ToolRegistry([entity])
    without_type = {"properties": {"q": {"type": "string", "description": "query"}}, "required": ["q"]}
    declaration = {"name": "search", "description": "Searches", "parameters": {"type": "object", "properties": {
        "q": {"type": "string"}, "limit": {"type": "number"}}}}
    for echo in (without_type, declaration, {"input_schema": {"properties": {"q": {"type": "string"}}}}):
        assert "repeat the tool's parameter schema" in registry.validate_arguments(entity, echo), echo
    # a parameter's schema with keywords beyond the basic ones, in place of its value
    for value in ({"type": "string", "maxLength": 100}, {"type": "string", "examples": ["cats"]},
                  {"description": "query", "pattern": "^[a-z]+$"}):
        assert "repeat the tool's parameter schema" in registry.validate_arguments(entity, {"q": value}), value


def test_values_beside_schema_words_still_run():
    """Parameters named like schema keywords, and objects that only look like a schema, are values."""
    issue = tool(parameters=[param("title", required=True), param("description"), param("type"), param("properties")])
    registry = ToolRegistry([issue])
    assert registry.validate_arguments(issue, {"title": "Bug", "description": "It crashes", "type": "bug"}) is None
    assert registry.validate_arguments(issue, {"title": "x", "properties": {"title": "y", "color": "red"}}) is None
    search = tool(parameters=[param("q")])
    registry = ToolRegistry([search])
    assert registry.validate_arguments(search, {"q": "cats", "properties": {"q": "dogs"}}) is None  # a value, no schema
    assert registry.validate_arguments(search, {"q": "cats", "meta": {"properties": {"other": {"type": "string"}}}}) is None


_LOGGED_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=12)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3)),
    max_leaves=6,
)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(st.sampled_from(["q", "limit", "pin", "extra", "sk-42"]), _LOGGED_VALUES, max_size=4),
    st.sampled_from([{}, {"pin": "sk-4242"}, {"pin": ""}]),
    st.booleans(),
)
def test_logged_parameters_copied_whole_only_where_the_walk_changes_nothing(arguments, runtime, secret_param):
    # with no secret in the node and only flat values, the log copies the parameters instead of
    # walking them: what it shows must be what the walk (redacting every text) gives
    from agent_core import redaction, tool_schema

    entity = tool(
        parameters=[param("q"), param("limit", "number"), param("pin", "secret-input" if secret_param else "string", form="form")],
        runtime=runtime,
    )
    registry = ToolRegistry([entity])
    parameters = registry.invocation_parameters(entity, arguments)
    redact = registry.secret_forms().redact
    secret = {"pin"} if secret_param else set()
    walked = {
        key: "[REDACTED]" if key in secret and value not in (None, "") else redaction.redacted_texts(value, redact, max_depth=64)
        for key, value in parameters.items()
    }
    logged = registry.logged_parameters(entity, parameters)
    assert logged == walked and list(logged) == list(walked)
    assert logged is not parameters
    assert tool_schema.json_args.MAX_DEPTH == 64
    if runtime.get("pin") and secret_param:
        assert "sk-4242" not in json.dumps(logged)


# --- a tool's name as a redacted prompt shows it (wave 39) ----------------------------------------


def test_a_tool_whose_name_a_secret_changes_is_found_by_the_name_the_prompt_showed():
    """Key ``forecast`` of ``vault``: ReAct's tool list shows ``get_forecast`` as
    ``get_[REDACTED]``, and a model calls it so."""
    vault = tool("vault", parameters=[param("api_key", "secret-input", form="form")], runtime={"api_key": "forecast"})
    registry = ToolRegistry([vault, tool("get_forecast"), tool("search")])
    assert registry.get("get_[REDACTED]").identity.name == "get_forecast"
    assert registry.get("get_forecast").identity.name == "get_forecast"
    assert registry.get("[REDACTED]") is None and registry.get("search_[REDACTED]") is None


def test_two_tools_that_show_alike_are_not_guessed():
    vault = tool("vault", parameters=[param("api_key", "secret-input", form="form")], runtime={"api_key": "forecast"})
    registry = ToolRegistry([vault, tool("get_forecast"), tool("get_Forecast")])
    assert registry.get("get_[REDACTED]") is None
    assert ToolRegistry([tool("get_forecast")]).get("get_[REDACTED]") is None  # no secret, nothing hidden


def _weather_beside_a_key(key="location"):
    vault = tool("vault", parameters=[param("api_key", "secret-input", form="form")], runtime={"api_key": key})
    weather = tool("get_weather", parameters=[param("location", required=True), param("units")])
    return ToolRegistry([vault, weather]), weather


def test_a_parameter_name_the_declarations_showed_hidden_is_read_as_that_parameter():
    registry, weather = _weather_beside_a_key()
    assert registry.unwrapped_arguments(weather, {"[REDACTED]": "Paris", "units": "C"}) == {"location": "Paris", "units": "C"}
    assert registry.unwrapped_arguments(weather, {"location": "Paris"}) is None  # as written
    both = {"[REDACTED]": "x", "location": "Paris"}
    assert registry.unwrapped_arguments(weather, both) is None  # the model wrote the name too: not guessed


def test_a_tools_own_parameter_name_is_no_secret_in_its_call_but_its_value_is():
    registry, weather = _weather_beside_a_key()
    assert registry.secret_arguments({"location": "Paris"}, weather) == []
    assert registry.secret_arguments({"location": "Paris"}) == ["location"]  # no tool: every name checked
    assert registry.secret_arguments({"units": "location"}, weather) == ["units"]
