"""params: what the Agent node sends, read leniently where a value can be understood, and a clear
error naming the setting where it cannot (never pydantic's text, an escaped exception or a value)."""

import pytest

from agent_core.errors import AgentRunError
from agent_core.params import StrategyParams, read_params
from agent_core.react.step_format import ReActParams

MODEL = {"provider": "p", "model": "m", "mode": "chat", "completion_params": {}}


@pytest.mark.parametrize(
    ("value", "expected"),
    [("inf", 500), ("1e400", 500), ("-inf", 1), (None, 5), ("", 5), ("3", 3), (2.7, 2), (10**9, 500)],
)
def test_maximum_iterations_reads_any_number_and_clamps(value, expected):
    assert read_params(StrategyParams, {"model": MODEL, "maximum_iterations": value}).maximum_iterations == expected


@pytest.mark.parametrize("field", ["maximum_iterations", "run_timeout", "tool_timeout", "model_timeout"])
@pytest.mark.parametrize("value", ["abc", "nan", [3], {"n": 3}])
def test_a_number_setting_that_is_not_a_number_is_an_error_naming_it(field, value):
    with pytest.raises(AgentRunError, match=field) as caught:
        read_params(StrategyParams, {"model": MODEL, field: value})
    assert "Value error" not in str(caught.value), "pydantic's prefix is not for the user"


@pytest.mark.parametrize("field", ["run_timeout", "tool_timeout", "model_timeout"])
def test_a_timeout_left_unset_is_the_default(field):
    default = getattr(read_params(StrategyParams, {"model": MODEL}), field)
    for value in (None, "", " "):
        assert getattr(read_params(StrategyParams, {"model": MODEL, field: value}), field) == default


@pytest.mark.parametrize(
    ("daemon", "node", "agent_env", "expected"),
    [
        ("12", 60, None, 12.0),  # the node asks for more than the daemon allows: the daemon's
        ("12", None, "900", 12.0),  # the deployment's own default too
        ("4", None, None, 4.0),  # below the node's minimum of 10: the daemon ends the run then anyway
        ("600", 60, None, 60.0),  # a shorter limit of the node's is kept
        ("600", None, None, 600.0),
        ("0", 60, None, 60.0),  # not a limit: ignored
        ("soon", 60, None, 60.0),
        ("nan", None, None, 240.0),
        (None, 60, None, 60.0),
        # the daemon's config reads 0 as unset: its own default holds (no 10 s run, no 3600 s one)
        ("0", None, None, 240.0),
        ("0", 3600, None, 240.0),
        ("-5", None, None, 240.0),  # no limit the plugin can plan by: the default
        # a deployment's limit of zero or less is skipped like text, never clamped to 10 s
        (None, None, "0", 240.0),
        (None, None, "-5", 240.0),
        ("120", None, "0", 120.0),
        ("120", None, "-1e9", 120.0),
    ],
)
def test_a_run_is_never_planned_past_the_daemons_own_limit(monkeypatch, daemon, node, agent_env, expected):
    """The daemon ends a run longer than its PLUGIN_MAX_EXECUTION_TIMEOUT with a bare error: a
    node's run_timeout of 60 under a daemon limit of 12 let a hanging tool run 45 s."""
    for name, value in (("PLUGIN_MAX_EXECUTION_TIMEOUT", daemon), ("AGENT_RUN_TIMEOUT", agent_env)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    assert read_params(StrategyParams, {"model": MODEL, "run_timeout": node}).run_timeout == expected


@pytest.mark.parametrize(
    "model",
    [
        None,
        {},
        "gpt",
        {"provider": "p", "mode": "chat"},
        {**MODEL, "completion_params": ["a"]},
    ],
    ids=repr,
)
@pytest.mark.parametrize("cls", [StrategyParams, ReActParams])
def test_settings_that_cannot_be_read_give_a_clear_error(cls, model):
    secret = "sk-SECRET-in-the-model-settings"
    parameters = {"model": model, "query": "hi"}
    if isinstance(model, dict):
        parameters["model"] = {**model, "credentials": {"api_key": secret}}
    with pytest.raises(AgentRunError) as caught:
        read_params(cls, parameters)
    message = str(caught.value)
    assert message.startswith("The Agent node's settings could not be read (")
    assert "errors.pydantic.dev" not in message and "\n" not in message and secret not in message


@pytest.mark.parametrize(
    ("model", "kept", "note"),
    [
        ({**MODEL, "entity": {}}, 0, "schema"),
        ({**MODEL, "history_prompt_messages": "hi"}, 0, "memory could not be read"),
        ({**MODEL, "history_prompt_messages": None}, 0, None),
        ({**MODEL, "completion_params": None}, 0, None),
        ({**MODEL, "history_prompt_messages": {"role": "user", "content": "hi"}}, 1, None),
        ({**MODEL, "history_prompt_messages": [{"role": "wizard", "content": "x"}, None, "text",
                                               {"role": "tool", "content": "no id"},
                                               {"role": "user", "content": "kept"}]}, 1, "4 message(s)"),
    ],
    ids=["entity", "memory-text", "memory-null", "completion-params-null", "memory-one", "memory-mixed"],
)
def test_a_model_selector_part_that_cannot_be_read_is_left_out_and_noted(model, kept, note):
    params = read_params(StrategyParams, {"model": model, "query": "hi"})
    assert len(params.model.history_prompt_messages) == kept
    assert (note is None and params.setting_notes == []) or any(note in text for text in params.setting_notes)


def test_a_completion_parameter_nested_too_deep_to_send_is_left_out_and_noted():
    """pydantic-core refuses to write the request line ("Maximum serialization depth exceeded")."""
    deep: object = "x"
    for _ in range(300):
        deep = {"a": deep}
    model = {**MODEL, "completion_params": {"temperature": 0.2, "extra": deep}}
    params = read_params(StrategyParams, {"model": model, "query": "hi"})
    assert params.model.completion_params == {"temperature": 0.2}
    assert any("'extra'" in note and "left out" in note for note in params.setting_notes)


def test_a_memory_message_is_mended_where_that_is_safe():
    history = [
        {"role": "user", "content": [{"type": "text", "data": "look"}, {"type": "hologram", "data": "x"}]},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "search", "arguments": {"q": "x"}}}]},
    ]
    params = read_params(StrategyParams, {"model": {**MODEL, "history_prompt_messages": history}, "query": "hi"})
    user, assistant = params.model.history_prompt_messages
    assert [part.data for part in user.content] == ["look"]
    assert assistant.tool_calls[0].function.arguments == '{"q": "x"}'
    assert params.setting_notes == []


@pytest.mark.parametrize(
    ("allowed", "names"),
    [({"a": True, "b": False}, ["a"]), ({"a": "true", "b": "false"}, ["a"]), ('{"b": true}', ["b"]),
     ({"a": False}, []), ("a, b", ["a", "b"]), (None, ["a", "b"])],
)
def test_allowed_tools_in_any_readable_shape(allowed, names):
    tools = [_tool(name) for name in ("a", "b")]
    params = read_params(StrategyParams, {"model": MODEL, "tools": tools, "allowed_tools": allowed})
    assert [tool.identity.name for tool in params.tools] == names


def test_allowed_tools_that_cannot_be_read_is_an_error_not_every_tool():
    with pytest.raises(AgentRunError, match="allowed_tools"):
        read_params(StrategyParams, {"model": MODEL, "tools": [_tool("a")], "allowed_tools": 5})


def test_one_tool_given_alone_is_read_as_a_list_of_one():
    params = read_params(StrategyParams, {"model": MODEL, "tools": _tool("a")})
    assert [tool.identity.name for tool in params.tools] == ["a"]


def _tool(name: str) -> dict:
    return {
        "identity": {"author": "t", "name": name, "label": {"en_US": name}, "provider": "t"},
        "parameters": [],
        "description": {"human": {"en_US": name}, "llm": f"The {name} tool"},
    }


def test_addresses_given_as_the_files_are_read_as_remote_files():
    params = read_params(StrategyParams, {"model": MODEL, "files": ["https://example.com/cat.png", "https://x.io/a.pdf"]})
    assert [(f["type"], f["filename"], f["url"]) for f in params.files] == [
        ("image", "cat.png", "https://example.com/cat.png"), ("document", "a.pdf", "https://x.io/a.pdf")]


def test_a_file_the_sdk_cannot_convert_stays_as_it_came_and_the_rest_are_converted():
    from dify_plugin.file.file import File

    from strategies.function_calling import FunctionCallingAgentStrategy

    good = {"dify_model_identity": "__dify__file__", "url": "https://x.io/a.png", "type": "image", "filename": "a.png"}
    bad = {**good, "url": None}
    converted = FunctionCallingAgentStrategy._convert_parameters({"files": [good, bad], "query": "hi"})
    assert isinstance(converted["files"][0], File) and converted["files"][1] == bad
    assert converted["query"] == "hi"


def test_allowed_tools_naming_a_tool_the_node_lacks_is_noted():
    params = read_params(StrategyParams, {"model": MODEL, "tools": [_tool("search")], "allowed_tools": ["serach"]})
    assert params.tools == []
    assert any("serach" in note for note in params.setting_notes)


def _secret_tool(name: str, secret: str, secret_type: str = "secret-input") -> dict:
    parameter = {"name": "key", "label": {"en_US": "key"}, "type": secret_type, "form": "form", "required": False}
    return {**_tool(name), "parameters": [parameter], "runtime_parameters": {"key": secret, "lang": "English"}}


def test_secrets_of_tools_not_offered_are_kept_to_redact_from_the_others():
    """A tool left out by allowed_tools, and one dropped as malformed (a secret type the SDK
    does not know): neither runs, but their secrets must not reach the model through another
    tool's output either. Other runtime values are not secrets."""
    broken = _secret_tool("vault", "VAULT-SECRET-1", secret_type="password-v2")
    params = read_params(StrategyParams, {
        "model": MODEL, "allowed_tools": ["search"],
        "tools": [_tool("search"), _secret_tool("crm", "CRM-SECRET-2"), broken],
    })
    assert [tool.identity.name for tool in params.tools] == ["search"]
    assert params.other_secrets == {"VAULT-SECRET-1", "CRM-SECRET-2"}
    assert "CRM-SECRET-2" not in repr(params) and "other_secrets" not in params.model_dump()


def test_thousands_of_tools_are_read_giving_way_between_two(monkeypatch):
    """The SDK validates each tool entity on its own (some 0.3 ms a tool): 2,000 tools held every
    other session of the process for 0.6-2 s while the node's parameters were read."""
    from agent_core import params as params_module

    ways = []
    monkeypatch.setattr(params_module, "give_way", lambda: ways.append(1))
    params = read_params(StrategyParams, {"model": MODEL, "tools": [_tool(f"t{n}") for n in range(300)]})
    assert len(params.tools) == 300 and len(ways) >= 300


@pytest.mark.parametrize("params_type", [StrategyParams, ReActParams])
@pytest.mark.parametrize(("sent", "entity_mode", "expected"), [
    ("completion", None, "completion"),  # as sent
    (None, None, "chat"),  # LM Studio's plugin: no mode (langgenius/dify-docs-archived#652)
    ("", None, "chat"),
    ("absent", None, "chat"),
    (None, "completion", "completion"),  # the schema's own mode
    (None, "embedding", "chat"),  # not an LLM mode: chat
])
def test_a_model_selector_without_a_mode_is_read_with_the_schemas_or_chat(params_type, sent, entity_mode, expected):
    model = {k: v for k, v in MODEL.items() if k != "mode"}
    if sent != "absent":
        model["mode"] = sent
    if entity_mode is not None:
        model["entity"] = {"model": "m", "label": {"en_US": "m"}, "model_type": "llm", "fetch_from": "customizable-model",
                           "model_properties": {"mode": entity_mode, "context_size": 4096}, "parameter_rules": []}
    assert read_params(params_type, {"model": model}).model.mode == expected
