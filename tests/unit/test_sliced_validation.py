"""agent_core.sliced_validation: a tool or a model schema with long lists validated a slice at a
time, giving way between slices, with the result and the error locations of the SDK's own
validation.

Found by the wave-36 blind limits: one tool with a select parameter of 200,000 options held the
process's other sessions 1.4-2.2 s while pydantic validated it in one call, a tool of 30,000
parameters 0.6 s (plus 7 s building its declaration: ``test_tool_schema``), a model schema of
50,000 parameter rules 0.5 s."""


import pytest
from dify_plugin.entities.model import AIModelEntity
from dify_plugin.interfaces.agent import ToolEntity
from pydantic import ValidationError

from agent_core import fairness, sliced_validation
from agent_core.sliced_validation import LIST_SLICE, model_entity, tool_entity
from tests.unit.test_fairness import ticks_during


def _i18n(text: str) -> dict:
    return {"en_US": text}


def _parameter(name: str, **fields) -> dict:
    return {"name": name, "label": _i18n(name), "human_description": _i18n(name), "type": "string",
            "form": "llm", "llm_description": name, "required": True, **fields}


def _tool(parameters: list[dict]) -> dict:
    return {"identity": {"author": "a", "name": "wide", "label": _i18n("Wide"), "provider": "a/b/c"},
            "parameters": parameters, "description": {"human": _i18n("d"), "llm": "d"}, "provider_type": "builtin"}


def _options(count: int) -> list[dict]:
    return [{"value": n if n % 7 == 0 else f"o{n}", "label": {"en_US": f"O{n}", "zh_Hans": f"选{n}"}} for n in range(count)]


def _model(rules: int) -> dict:
    return {"model": "m", "label": _i18n("m"), "model_type": "llm", "fetch_from": "predefined-model",
            "model_properties": {"context_size": 8192}, "features": [],
            "parameter_rules": [{"name": f"r{n}", "type": "float", "help": _i18n("h")} for n in range(rules)]}


@pytest.mark.parametrize(("parameters", "options"), [(3, 3 * LIST_SLICE + 7), (2 * LIST_SLICE + 3, 0),
                                                     (LIST_SLICE + 1, LIST_SLICE + 1)])
def test_a_tool_validated_in_slices_is_the_one_the_sdk_reads(parameters, options):
    raw = _tool([_parameter(f"p{n}", **({"type": "select", "options": _options(options)} if n == 1 and options else {}))
                 for n in range(parameters)])
    assert tool_entity(raw).model_dump() == ToolEntity.model_validate(raw).model_dump()


def test_a_model_schema_validated_in_slices_is_the_one_the_sdk_reads():
    raw = _model(2 * LIST_SLICE + 11)
    assert model_entity(raw).model_dump() == AIModelEntity.model_validate(raw).model_dump()


@pytest.mark.parametrize("where", ["option", "parameter"])
def test_an_error_deep_in_a_long_list_is_located_as_the_sdk_locates_it(where):
    """The reason a dropped tool is named with (``params._drop_reason``) reads the locations."""
    options = _options(2 * LIST_SLICE + 50)
    parameters = [_parameter(f"p{n}") for n in range(LIST_SLICE + 20)]
    parameters[1] = _parameter("p1", type="select", options=options)
    if where == "option":
        options[LIST_SLICE + 30]["label"] = 5  # not a label
    else:
        parameters[LIST_SLICE + 10]["type"] = "no such type"
    raw = _tool(parameters)
    with pytest.raises(ValidationError) as expected:
        ToolEntity.model_validate(raw)
    with pytest.raises(ValidationError) as got:
        tool_entity(raw)
    assert [(e["loc"], e["type"]) for e in got.value.errors()] == [(e["loc"], e["type"]) for e in expected.value.errors()]


def test_a_short_tool_is_validated_as_it_is(monkeypatch):
    calls = []
    monkeypatch.setattr(sliced_validation, "validated_list", lambda *args: calls.append(args))
    raw = _tool([_parameter("q", type="select", options=_options(LIST_SLICE))])
    assert tool_entity(raw) == ToolEntity.model_validate(raw)
    assert calls == []


def test_long_lists_give_way_between_slices(monkeypatch):
    """With no slice at all each offer to give way switches: the other session runs once a slice
    of each long list, not once a validation."""
    monkeypatch.setattr(fairness, "SLICE_SECONDS", 0.0)
    raw = _tool([_parameter("q", type="select", options=_options(10 * LIST_SLICE))])
    assert ticks_during(lambda: tool_entity(raw)) >= 10
    raw = _tool([_parameter(f"p{n}") for n in range(4 * LIST_SLICE)])
    assert ticks_during(lambda: tool_entity(raw)) >= 4
    assert ticks_during(lambda: model_entity(_model(6 * LIST_SLICE))) >= 6


def test_a_model_schema_whose_rule_fails_raises_as_the_sdk_does():
    raw = _model(LIST_SLICE + 5)
    raw["parameter_rules"][LIST_SLICE + 2]["type"] = "no such type"
    with pytest.raises(ValidationError) as got:
        model_entity(raw)
    assert got.value.errors()[0]["loc"][:2] == ("parameter_rules", LIST_SLICE + 2)
