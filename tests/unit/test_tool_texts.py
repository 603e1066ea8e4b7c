"""Tool declarations with missing display texts are mended, not dropped (junjiem/dify-plugin-tools-
mcp_sse#50: a tool without a description failed the whole Agent node), and a tool is never
declared to the model with an empty description (Amazon Bedrock refuses one)."""

from agent_core.params import StrategyParams, read_params
from agent_core.tool_schema import to_prompt_tool
from agent_core.tool_texts import mended_texts

MODEL = {"provider": "p", "model": "m", "mode": "chat", "completion_params": {}}


def _parameter(name: str, **fields) -> dict:
    return {"name": name, "label": {"en_US": name}, "human_description": {"en_US": ""}, "type": "string",
            "form": "llm", "required": True, "llm_description": f"the {name}", **fields}


def _tool(name: str = "describe_table", **fields) -> dict:
    return {"identity": {"author": "t", "name": name, "label": {"en_US": "Describe Table"}, "provider": "t"},
            "parameters": [_parameter("table")], "description": {"human": {"en_US": "Columns"}, "llm": "Columns of a table"},
            **fields}


def test_a_declaration_with_every_text_is_left_as_it_is():
    assert mended_texts(_tool()) is None
    assert mended_texts("not a tool") is None


def test_missing_texts_are_taken_from_another_language_then_the_same_texts_elsewhere_then_the_name():
    raw = _tool(identity={"author": "t", "name": "describe_table", "label": {"en_US": None, "zh_Hans": "表结构"}, "provider": "t"},
                description={"human": {"en_US": None}, "llm": None},
                parameters=[_parameter("table_name", label=None, human_description=None),
                            _parameter("schema", label={"en_US": None}, human_description=None, llm_description=None)])
    mended = mended_texts(raw)
    assert mended["identity"]["label"] == {"zh_Hans": "表结构", "en_US": "表结构"}
    assert mended["description"] == {"llm": "", "human": {"en_US": ""}}
    first, second = mended["parameters"]
    assert first["label"] == {"en_US": "table name"} and first["human_description"] == {"en_US": "the table_name"}
    assert second["label"] == {"en_US": "schema"} and second["human_description"] == {"en_US": ""}
    assert raw["description"] == {"human": {"en_US": None}, "llm": None}, "the raw declaration is not changed"


def test_a_description_given_as_plain_text_serves_both_readers():
    mended = mended_texts(_tool(description="Columns of a table"))
    assert mended["description"] == {"llm": "Columns of a table", "human": {"en_US": "Columns of a table"}}


def test_a_tool_with_null_texts_is_offered_not_dropped():
    raw = _tool(identity={"author": "t", "name": "describe_table", "label": {"en_US": None}, "provider": "t"},
                description={"human": None, "llm": None}, parameters=[_parameter("table", label=None, human_description=None)])
    params = read_params(StrategyParams, {"model": MODEL, "tools": [raw]})
    assert [tool.identity.name for tool in params.tools] == ["describe_table"]
    assert params.dropped_tools == []


def test_a_parameter_of_no_known_type_is_not_guessed_and_its_tool_stays_dropped():
    raw = _tool(parameters=[_parameter("table", type=None, label=None)])
    params = read_params(StrategyParams, {"model": MODEL, "tools": [raw]})
    assert params.tools == []
    assert [name for name, _ in params.dropped_tools] == ["describe_table"]


def test_a_tool_is_never_declared_to_the_model_without_a_description():
    params = read_params(StrategyParams, {"model": MODEL, "tools": [
        _tool("with_label", description={"human": {"en_US": ""}, "llm": ""}),
        _tool("get_table_list", identity={"author": "t", "name": "get_table_list", "label": {"en_US": " "}, "provider": "t"},
              description=None),
        _tool("described")]})
    assert [to_prompt_tool(tool).description for tool in params.tools] == [
        "Describe Table", "get table list", "Columns of a table"]
