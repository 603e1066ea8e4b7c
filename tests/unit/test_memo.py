"""agent_core.memo: a value per object, computed once while the object lives; and the dumps
the backwards LLM request is built from, which use it."""

import enum
import gc
import math
import weakref

from dify_plugin.entities.model.llm import LLMModelConfig
from dify_plugin.entities.model.message import (
    AssistantPromptMessage,
    AudioPromptMessageContent,
    DocumentPromptMessageContent,
    ImagePromptMessageContent,
    PromptMessageTool,
    SystemPromptMessage,
    TextPromptMessageContent,
    ToolPromptMessage,
    UserPromptMessage,
)
from pydantic_core import to_json

from agent_core.memo import forget_gone, per_object, per_text
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

    ids: set[int] = set()
    for n in range(200):  # ids of freed objects are reused; each new object gets its own value
        message = UserPromptMessage(content=f"message {n}")
        assert content(message) == f"message {n}"
        ids.add(id(message))
        gone = weakref.ref(message)
        del message
        if gone() is not None:  # only an object in a reference cycle waits for the collector
            gc.collect()
        assert gone() is None
    assert len(ids) < 200  # some id did come back, so the case above was met


def test_forget_gone_drops_what_runs_that_ended_remembered() -> None:
    """A cache swept itself only as it grew past twice its size: up to 256 values of objects gone
    stayed in each of the dozen caches of a long-lived process (850 after 200 sessions, a message's
    dump among them). A run's start drops them all."""

    class Message:
        pass

    @per_object
    def dump(message: Message) -> str:
        return "x" * 1000

    kept, gone = Message(), [Message() for _ in range(50)]
    for message in [kept, *gone]:
        dump(message)
    del gone, message
    gc.collect()
    assert len(dump.cache) == 51
    forget_gone()
    assert list(dump.cache) == [id(kept)]


def test_per_text_holds_no_more_text_than_its_bound_and_counts_each_text_once_while_held() -> None:
    """A long-lived process runs thousands of sessions through these caches: what they hold is
    bounded in characters, whatever the number or size of the texts met (an lru_cache of 8,192
    entries held 8,192 texts of any size)."""
    calls: list[str] = []

    def compute(text: str) -> int:
        calls.append(text)
        return len(text)

    remembered = per_text(compute, max_chars=1000)
    assert remembered("a" * 100) == 100 and remembered("a" * 100) == 100
    assert len(calls) == 1  # the second time from memory
    for n in range(500):  # the texts of many runs long over
        remembered(f"{n:03d}" + "x" * 97)
        assert sum(map(len, remembered.cache)) <= 1000
    assert remembered("y" * 300) == 300 and "y" * 300 not in remembered.cache  # over a quarter: not kept
    latest = "499" + "x" * 97
    calls.clear()
    assert remembered(latest) == 100 and not calls  # the newest texts are the ones kept


def test_the_request_payload_carries_the_same_dumps_as_the_sdk_would_send() -> None:
    messages = [UserPromptMessage(content="What is 2+2?"), ToolPromptMessage(content="4", tool_call_id="c1", name="calc")]
    tools = [PromptMessageTool(name="calc", description="adds", parameters={"type": "object", "properties": {}})]
    model = LLMModelConfig(provider="p", model="m", mode="chat", completion_params={"temperature": 0})
    payload = build_llm_payload(model, ModelRequest(prompt_messages=messages, tools=tools))
    assert to_json(payload["prompt_messages"]) == to_json([message.model_dump() for message in messages])
    assert to_json(payload["tools"]) == to_json([tool.model_dump() for tool in tools])
    again = build_llm_payload(model, ModelRequest(prompt_messages=messages, tools=tools))
    assert again == payload
    assert message_dump(messages[0]) is payload["prompt_messages"][0]  # dumped once, reused
    assert tool_dump(tools[0]) is payload["tools"][0]


_CALL = AssistantPromptMessage.ToolCall(
    id="c1", type="function", function=AssistantPromptMessage.ToolCall.ToolCallFunction(name="calc", arguments='{"a": 1}')
)
MESSAGES = [
    SystemPromptMessage(content="Be brief. é \u2028 \x00"),
    UserPromptMessage(content=[
        TextPromptMessageContent(data="look", opaque_body={"cache": [1, 2.5, None, True, math.nan]}),
        ImagePromptMessageContent(format="png", base64_data="aGk=", mime_type="image/png",
                                  detail=ImagePromptMessageContent.DETAIL.HIGH),
        DocumentPromptMessageContent(format="pdf", url="https://x/y.pdf", mime_type="application/pdf", filename="y.pdf"),
        AudioPromptMessageContent(format="mp3", base64_data="", mime_type="audio/mpeg"),
    ], name="u"),
    AssistantPromptMessage(content="", tool_calls=[_CALL], opaque_body={"signature": "s", "n": math.inf}),
    AssistantPromptMessage(content=None),
    ToolPromptMessage(content="4", tool_call_id="c1", name="calc"),
]


def _enums(value: object) -> list[enum.Enum]:
    if isinstance(value, enum.Enum):
        return [value]
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return [found for item in items for found in _enums(item)]


def test_each_message_and_tool_is_dumped_to_the_json_the_sdk_writes_for_it() -> None:
    """The payload's dumps are JSON-mode dumps (no enum left to encode through Python): the
    line's JSON, as the SDK's writer encodes a dump (NaN and infinity as null), is unchanged."""
    for message in MESSAGES:
        dumped = message_dump(message)
        assert to_json(dumped, inf_nan_mode="null") == to_json(message.model_dump(), inf_nan_mode="null")
        assert not _enums(dumped)
    tool = PromptMessageTool(name="calc", description="adds", parameters={"type": "object", "properties": {"a": {}}})
    assert to_json(tool_dump(tool)) == to_json(tool.model_dump())


def test_a_runs_payloads_dumped_by_what_each_prompt_adds_are_the_payloads_dumped_whole():
    from agent_core.memo import PrefixMap

    model = LLMModelConfig(provider="p", model="m", mode="chat", completion_params={})
    dumps = PrefixMap(message_dump)
    first, second, third = (UserPromptMessage(content=text) for text in ("a", "b", "c"))
    for messages in ([first], [first, second], [first, second, third], [first, third], [second], []):
        request = ModelRequest(prompt_messages=messages)
        assert build_llm_payload(model, request, dumps) == build_llm_payload(model, request)
    looked_up = []
    growing = PrefixMap(lambda item: looked_up.append(item) or item.content)
    assert growing([first, second]) == ["a", "b"] and growing([first, second, third]) == ["a", "b", "c"]
    assert looked_up == [first, second, third]  # what the list before held is not looked up again
