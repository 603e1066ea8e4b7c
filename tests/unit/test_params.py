"""params: what the Agent node sends, read leniently where a value can be understood, and a clear
error naming the setting where it cannot (never pydantic's text, an escaped exception or a value)."""

import pytest

from agent_core.errors import AgentRunError
from agent_core.params import StrategyParams, read_params
from agent_core.react.step_format import ReActParams

MODEL = {"provider": "p", "model": "m", "mode": "chat", "completion_params": {}}


@pytest.mark.parametrize(
    ("value", "expected"),
    [("inf", 500), ("1e400", 500), ("-inf", 1), ("nan", 5), ("abc", 5), (None, 5), ("3", 3), (2.7, 2), (10**9, 500)],
)
def test_maximum_iterations_reads_any_number_and_clamps(value, expected):
    assert read_params(StrategyParams, {"model": MODEL, "maximum_iterations": value}).maximum_iterations == expected


@pytest.mark.parametrize("field", ["run_timeout", "tool_timeout", "model_timeout"])
def test_a_timeout_that_is_not_a_number_is_the_default(field):
    default = getattr(read_params(StrategyParams, {"model": MODEL}), field)
    for value in ("nan", "abc", None):
        assert getattr(read_params(StrategyParams, {"model": MODEL, field: value}), field) == default


@pytest.mark.parametrize(
    "model",
    [
        None,
        {},
        "gpt",
        {"provider": "p", "mode": "chat"},
        {**MODEL, "completion_params": ["a"]},
        {**MODEL, "entity": {}},
        {**MODEL, "history_prompt_messages": "hi"},
        {**MODEL, "history_prompt_messages": [{"role": "wizard", "content": "x"}]},
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
