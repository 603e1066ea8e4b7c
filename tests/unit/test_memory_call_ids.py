"""Memory's tool-call ids made fit for a server that takes only nine letters and digits (Mistral)."""

import pytest
from dify_plugin.entities.model.message import AssistantPromptMessage, ToolPromptMessage, UserPromptMessage
from dify_plugin.interfaces.agent import AgentModelConfig

from agent_core.messages import memory_messages, with_strict_call_ids
from agent_core.params import StrategyParams
from agent_core.tool_calls import is_strict_call_id, wants_strict_call_ids


def call(call_id: str) -> AssistantPromptMessage.ToolCall:
    return AssistantPromptMessage.ToolCall(
        id=call_id, type="function", function=AssistantPromptMessage.ToolCall.ToolCallFunction(name="t", arguments="{}")
    )


def memory(*ids: str) -> list:
    return [
        UserPromptMessage(content="q1"),
        AssistantPromptMessage(content="", tool_calls=[call(i) for i in ids]),
        *[ToolPromptMessage(content=f"result {i}", tool_call_id=i, name="t") for i in ids],
        AssistantPromptMessage(content="answer 1"),
    ]


def pairs(history: list) -> list[tuple[str, str]]:
    calls = [c.id for m in history if isinstance(m, AssistantPromptMessage) for c in m.tool_calls]
    results = [m.tool_call_id for m in history if isinstance(m, ToolPromptMessage)]
    return list(zip(calls, results, strict=True))


@pytest.mark.parametrize(("provider", "model", "expected"), [
    ("langgenius/mistralai/mistralai", "mistral-large-latest", True),
    ("langgenius/mistralai/mistralai", "some-new-model", True),
    ("langgenius/openai_api_compatible/openai_api_compatible", "magistral-small-2509", True),
    ("langgenius/openrouter/openrouter", "mistralai/devstral-small", True),
    ("langgenius/openai_api_compatible/openai_api_compatible", "open-mixtral-8x22b", True),
    ("langgenius/openai/openai", "gpt-4o", False),
    ("langgenius/anthropic/anthropic", "claude-sonnet-4-5", False),
    ("langgenius/openai_api_compatible/openai_api_compatible", "qwen3-mistral-distill", False),
])
def test_which_models_want_strict_ids(provider, model, expected):
    assert wants_strict_call_ids(provider, model) is expected


def test_other_ids_are_renamed_in_both_places_and_strict_ones_kept():
    history = memory("call_Xy12ab34cd56", "abcDEF123", "toolu_01A")
    renamed = with_strict_call_ids(history)
    ids = pairs(renamed)
    assert [a for a, b in ids] == [b for a, b in ids]  # each call still paired with its result
    assert all(is_strict_call_id(a) for a, _ in ids)
    assert ids[1] == ("abcDEF123", "abcDEF123")
    assert len({a for a, _ in ids}) == 3
    assert [m.content for m in renamed if isinstance(m, ToolPromptMessage)] == [
        "result call_Xy12ab34cd56", "result abcDEF123", "result toolu_01A"]
    assert history[1].tool_calls[0].id == "call_Xy12ab34cd56"  # the input is not mutated


def test_a_made_id_never_takes_an_id_memory_already_has():
    history = memory("x", "m00000001", "m00000002")
    ids = [a for a, _ in pairs(with_strict_call_ids(history))]
    assert len(set(ids)) == 3 and ids[1:] == ["m00000001", "m00000002"]


def test_memory_messages_rename_only_for_mistral():
    def params(provider: str, model: str) -> StrategyParams:
        config = AgentModelConfig(provider=provider, model=model, mode="chat", completion_params={},
                                  history_prompt_messages=memory("call_1"))
        return StrategyParams(model=config, tools=[], query="q")

    mistral = memory_messages(params("langgenius/mistralai/mistralai", "mistral-small-latest"))
    openai = memory_messages(params("langgenius/openai/openai", "gpt-4o"))
    assert pairs(openai) == [("call_1", "call_1")]
    (renamed,) = pairs(mistral)
    assert renamed[0] == renamed[1] != "call_1" and is_strict_call_id(renamed[0])
