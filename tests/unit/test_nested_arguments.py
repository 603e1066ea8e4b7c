"""Arguments a model wrapped in the tool's own name (agent_core.tool_schema.nested_arguments;
langgenius/dify#29682: a workflow tool called with ``{"idle_rack": {...}}`` got none of its
values). Only that exact shape is unwrapped; everything else is left as the model wrote it."""

from agent_core.tool_schema import nested_arguments, provider_name
from tests.unit.test_tool_schema import param, tool

RACK = tool("idle_rack", [param("dataCenterId", required=True), param("entireType"), param("plannedU")])
INNER = {"dataCenterId": "48", "entireType": "整租", "plannedU": "10"}


def test_arguments_under_the_tools_name_are_unwrapped():
    assert nested_arguments({"idle_rack": INNER}, RACK) == INNER


def test_arguments_under_the_name_offered_to_providers_are_unwrapped():
    mcp = tool("amap.maps_weather", [param("city", required=True)])
    assert provider_name("amap.maps_weather") != "amap.maps_weather"
    assert nested_arguments({provider_name("amap.maps_weather"): {"city": "Hangzhou"}}, mcp) == {"city": "Hangzhou"}


def test_plain_arguments_are_not_touched():
    assert nested_arguments(INNER, RACK) is None
    assert nested_arguments({"dataCenterId": "48"}, RACK) is None
    assert nested_arguments({}, RACK) is None


def test_a_parameter_named_like_its_tool_keeps_its_value():
    search = tool("search", [param("search", type="object")])
    assert nested_arguments({"search": {"q": "dify"}}, search) is None


def test_an_object_naming_none_of_the_tools_parameters_is_not_unwrapped():
    assert nested_arguments({"idle_rack": {"rack": 1}}, RACK) is None
    assert nested_arguments({"idle_rack": "48"}, RACK) is None
    assert nested_arguments({"other_tool": INNER}, RACK) is None


def test_the_wrapped_object_is_not_the_one_returned():
    wrapped = {"idle_rack": dict(INNER)}
    inner = nested_arguments(wrapped, RACK)
    inner["dataCenterId"] = "49"
    assert wrapped["idle_rack"]["dataCenterId"] == "48"
