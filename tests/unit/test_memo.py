"""agent_core.memo: a value per object, computed once while the object lives; and the dumps
the backwards LLM request is built from, which use it."""

import gc

from dify_plugin.entities.model.llm import LLMModelConfig
from dify_plugin.entities.model.message import PromptMessageTool, ToolPromptMessage, UserPromptMessage

from agent_core.memo import per_object
from agent_core.model_call import ModelRequest, build_llm_payload, message_dump, tool_dump


def test_each_object_is_computed_once_and_an_equal_new_object_again() -> None:
    calls: list[str] = []

    @per_object
    def size(message: UserPromptMessage) -> int:
        calls.append(message.content)
        return len(message.content)

    first = UserPromptMessage(content="hello")
    assert size(first) == 5 and size(first) == 5
    twin = UserPromptMessage(content="hello")
    assert size(twin) == 5
    assert calls == ["hello", "hello"]


def test_an_object_that_is_gone_is_forgotten_even_if_its_id_comes_back() -> None:
    @per_object
    def content(message: UserPromptMessage) -> str:
        return message.content

    for n in range(200):  # ids of freed objects are reused; each new object gets its own value
        message = UserPromptMessage(content=f"message {n}")
        assert content(message) == f"message {n}"
        del message
        gc.collect()


def test_the_request_payload_carries_the_same_dumps_as_the_sdk_would_send() -> None:
    messages = [UserPromptMessage(content="What is 2+2?"), ToolPromptMessage(content="4", tool_call_id="c1", name="calc")]
    tools = [PromptMessageTool(name="calc", description="adds", parameters={"type": "object", "properties": {}})]
    model = LLMModelConfig(provider="p", model="m", mode="chat", completion_params={"temperature": 0})
    payload = build_llm_payload(model, ModelRequest(prompt_messages=messages, tools=tools))
    assert payload["prompt_messages"] == [message.model_dump() for message in messages]
    assert payload["tools"] == [tool.model_dump() for tool in tools]
    again = build_llm_payload(model, ModelRequest(prompt_messages=messages, tools=tools))
    assert again == payload
    assert message_dump(messages[0]) is payload["prompt_messages"][0]  # dumped once, reused
    assert tool_dump(tools[0]) is payload["tools"][0]
