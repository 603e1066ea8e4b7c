"""What the wave-38 fuzz campaign of the node's own parameters found (docs/fuzzing.md, "Wave 38"),
each fixed in the module that owns it: a tool with a blank name, memory tool calls with a blank
id or arguments that are not a JSON object, an assistant message of memory with ``tool_calls``
null, and image parts of memory given only as ``data``."""

from dify_plugin.entities.model.message import AssistantPromptMessage, ImagePromptMessageContent, UserPromptMessage

from agent_core import prompts
from agent_core.messages import memory_messages
from agent_core.params import StrategyParams
from agent_core.react.prompt import tools_block
from agent_core.tool_schema import ToolRegistry

MODEL = {"provider": "p", "model": "m", "mode": "chat", "completion_params": {}}


def _tool(name: str) -> dict:
    return {"identity": {"author": "t", "name": name, "label": {"en_US": "A tool"}, "provider": "t"},
            "parameters": [], "description": {"human": {"en_US": "Looks up"}, "llm": "Looks a word up"}}


def _params(history: list) -> StrategyParams:
    return StrategyParams.model_validate({"model": {**MODEL, "history_prompt_messages": history}, "query": "q"})


def _call(call_id, arguments) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": "search", "arguments": arguments}}


def test_a_tool_with_a_blank_name_is_offered_under_a_name_a_model_can_write_in_every_strategy():
    tools = StrategyParams.model_validate({"model": MODEL, "tools": [_tool(""), _tool(" "), _tool("search")]}).tools
    for provider_names in (False, True):
        registry = ToolRegistry(tools, provider_names=provider_names)
        assert registry.names() == ["tool", "tool_2", "search"]
        assert registry.get("tool") is tools[0] and registry.get("tool_2") is tools[1]
    block = tools_block(ToolRegistry(tools).prompt_tools())
    assert "\n- : " not in block and "\n-  : " not in block and "\n- tool: Looks a word up;" in block


def test_a_tool_name_that_is_not_blank_stays_as_it_is_in_react():
    tools = StrategyParams.model_validate({"model": MODEL, "tools": [_tool("get weather"), _tool("天気")]}).tools
    assert ToolRegistry(tools).names() == ["get weather", "天気"]


def test_a_memory_call_with_a_blank_id_is_left_out_with_its_result_and_the_turns_around_it_kept():
    history = [{"role": "user", "content": "first"},
               {"role": "assistant", "content": "", "tool_calls": [_call("", "{}"), _call("c2", "{}")]},
               {"role": "tool", "content": "blank", "tool_call_id": ""},
               {"role": "tool", "content": "second", "tool_call_id": "c2"},
               {"role": "assistant", "content": "answer"}]
    sent = memory_messages(_params(history))
    calls = [call.id for message in sent if isinstance(message, AssistantPromptMessage) for call in message.tool_calls]
    assert calls == ["c2"]
    assert [m.content for m in sent if m.role.value == "tool"] == ["second"]
    assert sent[0].content == "first" and sent[-1].content == "answer"


def test_memory_call_arguments_go_back_as_a_json_object_and_readable_ones_as_they_were():
    arguments = ['{"q":  "kept as written"}', "{not json", "", "[1, 2]", "null", None, {"q": "an object"}]
    history = [{"role": "user", "content": "first"},
               {"role": "assistant", "content": "", "tool_calls": [_call(f"c{n}", a) for n, a in enumerate(arguments)]},
               *({"role": "tool", "content": "r", "tool_call_id": f"c{n}"} for n in range(len(arguments))),
               {"role": "assistant", "content": "answer"}]
    params = _params(history)
    assert params.setting_notes == []
    sent = [call.function.arguments for call in params.model.history_prompt_messages[1].tool_calls]
    assert sent == ['{"q":  "kept as written"}', "{}", "{}", "{}", "{}", "{}", '{"q": "an object"}']


def test_an_assistant_message_of_memory_with_tool_calls_null_keeps_its_answer_and_the_question():
    history = [{"role": "user", "content": [{"type": "text", "data": "question"}], "name": None},
               {"role": "assistant", "content": [{"type": "text", "data": "answer"}], "tool_calls": None}]
    params = _params(history)
    assert params.setting_notes == []
    sent = memory_messages(params)
    assert [message.role.value for message in sent] == ["user", "assistant"]


def test_an_image_of_memory_given_only_as_data_keeps_its_bytes_or_address_and_one_of_nothing_is_left_out():
    parts = [{"type": "text", "data": "look"},
             {"type": "image", "data": "data:image/png;base64,iVBORw0KGgo=", "detail": "low"},
             {"type": "image", "data": "https://example.com/cat.jpg", "mime_type": "image/jpeg", "format": "jpg"},
             {"type": "image", "format": "png", "base64_data": "", "url": "", "mime_type": "image/png"}]
    params = _params([{"role": "user", "content": parts}, {"role": "assistant", "content": "seen"}])
    message = params.model.history_prompt_messages[0]
    assert isinstance(message, UserPromptMessage)
    images = [part for part in message.content if isinstance(part, ImagePromptMessageContent)]
    assert [(i.base64_data, i.url, i.mime_type, i.format) for i in images] == [
        ("iVBORw0KGgo=", "", "image/png", "png"), ("", "https://example.com/cat.jpg", "image/jpeg", "jpg")]


def test_an_image_of_memory_as_dify_dumps_it_is_read_as_it_is():
    part = {"type": "image", "format": "png", "base64_data": "iVBORw0KGgo=", "url": "", "mime_type": "image/png",
            "filename": "", "detail": "high"}
    message = _params([{"role": "user", "content": [part]}, {"role": "assistant", "content": "ok"}]).model.history_prompt_messages[0]
    assert message.content[0].base64_data == "iVBORw0KGgo=" and message.content[0].detail.value == "high"


def test_a_model_selector_without_a_mode_takes_the_mode_its_schema_declares_else_chat():
    entity = {"model": "m", "label": {"en_US": "m"}, "model_type": "llm", "features": [], "fetch_from": "predefined-model",
              "model_properties": {"mode": "completion", "context_size": 4096}, "parameter_rules": []}
    for mode in (None, ""):
        assert StrategyParams.model_validate({"model": {**MODEL, "mode": mode}}).model.mode == "chat"
        assert StrategyParams.model_validate({"model": {**MODEL, "mode": mode, "entity": entity}}).model.mode == "completion"
    bare = {key: value for key, value in MODEL.items() if key != "mode"}
    assert StrategyParams.model_validate({"model": bare}).model.mode == "chat"
    assert StrategyParams.model_validate({"model": {**MODEL, "mode": "chat", "entity": entity}}).model.mode == "chat"


def test_a_react_tool_name_with_spaces_around_it_is_offered_without_them_and_mapped_back():
    tools = StrategyParams.model_validate({"model": MODEL, "tools": [_tool(" ó"), _tool("search ")]}).tools
    registry = ToolRegistry(tools)
    assert registry.names() == ["ó", "search"]
    assert registry.get("ó") is tools[0] and registry.get(" ó") is tools[0] and registry.get("search ") is tools[1]


def test_a_tool_with_no_description_label_or_name_is_still_described_to_the_model():
    raw = {**_tool(""), "identity": {"author": "t", "name": "", "label": {"en_US": ""}, "provider": "t"},
           "description": {"human": None, "llm": None}}
    tools = StrategyParams.model_validate({"model": MODEL, "tools": [raw]}).tools
    declared = ToolRegistry(tools, provider_names=True).prompt_tools()
    assert [(tool.name, tool.description) for tool in declared] == [("tool", prompts.TOOL_UNDESCRIBED)]


def test_a_react_tool_name_with_a_line_break_is_offered_on_one_line_and_mapped_back():
    tools = StrategyParams.model_validate({"model": MODEL, "tools": [_tool("two\nlines"), _tool("crlf\r\nname")]}).tools
    registry = ToolRegistry(tools)
    assert registry.names() == ["two lines", "crlf name"]
    assert registry.get("two lines") is tools[0] and registry.get("crlf\r\nname") is tools[1]
    assert "\n- two lines: Looks a word up; arguments: " in tools_block(registry.prompt_tools())
