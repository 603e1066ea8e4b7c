"""The SDK's models of a node's settings validated a slice at a time.

pydantic validates a model in one call, which cannot give way to the process's other sessions,
and the SDK's ``I18nObject`` (every label and description) runs a Python validator of its own.
So one tool with a select parameter of 200,000 options held the gevent hub 1.4-2.2 s (every
other session's stream and the heartbeat waited), a tool of 30,000 parameters 0.6 s, a model
schema of 50,000 parameter rules 0.5 s. Here the long lists inside them are validated
``LIST_SLICE`` items at a time, giving way between slices, and handed to the model's own
validation as instances, which pydantic takes as they are (``revalidate_instances`` is
``never`` in the SDK's models). The result, and the location of a validation error, are the ones
the model's own validation gives.
"""

import contextlib
from typing import Any

from dify_plugin.entities.model import AIModelEntity
from dify_plugin.entities.model.schema import ParameterRule
from dify_plugin.entities.tool import ToolParameter, ToolParameterOption
from dify_plugin.interfaces.agent import ToolEntity
from pydantic import TypeAdapter, ValidationError

from agent_core.fairness import give_way

LIST_SLICE = 500
"""Items of one list validated between two offers to give way: some 5 ms of work (a labelled
option takes about 10 us, a tool parameter about 20 us)."""

_OPTIONS: TypeAdapter[list[ToolParameterOption]] = TypeAdapter(list[ToolParameterOption])
_PARAMETERS: TypeAdapter[list[ToolParameter]] = TypeAdapter(list[ToolParameter])
_RULES: TypeAdapter[list[ParameterRule]] = TypeAdapter(list[ParameterRule])


class _NotMoved(Exception):
    """A slice's validation error that cannot be given the location of the whole (an error type
    pydantic cannot build again): the caller validates the whole value instead."""


def validated_list(adapter: TypeAdapter[list[Any]], items: list[Any], where: tuple[str | int, ...] = ()) -> list[Any]:
    """``items`` validated by ``adapter`` (a ``TypeAdapter`` of a list), ``LIST_SLICE`` at a time,
    giving way before each slice. Raises ``ValidationError`` located as if the list stood at
    ``where`` in a larger value (an item's index counted in the whole list), or ``_NotMoved``."""
    values: list[Any] = []
    for start in range(0, len(items), LIST_SLICE):
        give_way()
        try:
            values += adapter.validate_python(items[start : start + LIST_SLICE])
        except ValidationError as error:
            raise _moved(error, where, start) from None
    return values


def _moved(error: ValidationError, where: tuple[str | int, ...], offset: int) -> ValidationError:
    """``error`` of a slice starting at ``offset``, its locations under ``where``."""
    details: list[Any] = []
    for item in error.errors(include_url=False):
        index, *rest = item["loc"] or (0,)
        detail = {"type": item["type"], "input": item.get("input"),
                  "loc": (*where, index + offset if isinstance(index, int) else index, *rest)}
        if "ctx" in item:
            detail["ctx"] = item["ctx"]
        details.append(detail)
    try:
        return ValidationError.from_exception_data(error.title, details)
    except Exception as failure:  # a custom error type pydantic cannot build from its name
        raise _NotMoved from failure


def _long(items: Any) -> bool:
    return isinstance(items, list) and len(items) > LIST_SLICE


def tool_entity(raw: Any) -> ToolEntity:
    """``ToolEntity.model_validate(raw)``, a long list of parameters, or of one parameter's
    options, validated in slices first. Raises what that raises (``ValidationError``, located
    in the whole entity)."""
    parameters = raw.get("parameters") if isinstance(raw, dict) else None
    if isinstance(parameters, list) and (_long(parameters) or any(
            isinstance(p, dict) and _long(p.get("options")) for p in parameters)):
        with contextlib.suppress(_NotMoved):  # the whole entity, validated at once, says what is wrong where
            prepared = [
                {**parameter, "options": validated_list(_OPTIONS, parameter["options"], ("parameters", n, "options"))}
                if isinstance(parameter, dict) and _long(parameter.get("options")) else parameter
                for n, parameter in enumerate(parameters)
            ]
            raw = {**raw, "parameters": validated_list(_PARAMETERS, prepared, ("parameters",))
                   if _long(prepared) else prepared}
    return ToolEntity.model_validate(raw)


def model_entity(raw: Any) -> AIModelEntity:
    """``AIModelEntity.model_validate(raw)``, a long list of parameter rules validated in slices
    first. Raises what that raises (the SDK's validators raise more than ``ValidationError``)."""
    rules = raw.get("parameter_rules") if isinstance(raw, dict) else None
    if _long(rules):
        with contextlib.suppress(_NotMoved):  # the whole entity, validated at once, fails as it would
            raw = {**raw, "parameter_rules": validated_list(_RULES, rules, ("parameter_rules",))}
    return AIModelEntity.model_validate(raw)
