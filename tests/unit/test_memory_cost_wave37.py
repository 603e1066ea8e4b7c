"""What a long memory costs before round 1 (issue 13, class 2; wave 37's 100,000 messages took
seconds of plugin CPU): plain text messages built without pydantic's per-message validation, the
collector held off while a memory is read and fitted, and a trim search that sums the memory's
tail it measured before instead of looking each message up again. None of it may change a message
or a sum."""

import gc
import random

import pytest
from dify_plugin.entities.model.message import (
    AssistantPromptMessage,
    ToolPromptMessage,
    UserPromptMessage,
    ensure_prompt_message,
)

from agent_core.budget import PrefixSums
from agent_core.fairness import collection_paused
from agent_core.params import StrategyParams, _plain_message, read_params
from local_runner.scenario import ModelSettings


@pytest.mark.parametrize("raw", [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"},
                                 {"role": "assistant", "content": ""}])
def test_a_plain_text_message_is_the_object_validation_builds(raw):
    built, validated = _plain_message(raw), ensure_prompt_message(dict(raw))
    assert type(built) is type(validated) and built == validated
    assert built.model_fields_set == validated.model_fields_set
    assert built.model_dump(mode="json") == validated.model_dump(mode="json")
    assert built.model_dump_json() == validated.model_dump_json()
    assert built.model_copy(update={"content": "x"}).content == "x" and built.content == raw["content"]


def test_two_assistant_messages_built_so_do_not_share_their_tool_calls():
    first = _plain_message({"role": "assistant", "content": "a"})
    second = _plain_message({"role": "assistant", "content": "b"})
    first.tool_calls.append(AssistantPromptMessage.ToolCall(
        id="1", type="function", function=AssistantPromptMessage.ToolCall.ToolCallFunction(name="f", arguments="{}")))
    assert second.tool_calls == []


@pytest.mark.parametrize("raw", [
    {"role": "user", "content": "a", "name": "bob"},  # a name: validated
    {"role": "user", "content": [{"type": "text", "data": "a"}]},
    {"role": "system", "content": "a"},
    {"role": "tool", "content": "a", "tool_call_id": "1"},
    {"role": "assistant", "content": None},
    {"role": "assistant", "content": "a", "tool_calls": []},
    {"role": 1, "content": "a"},
])
def test_any_other_shape_is_left_to_validation(raw):
    assert _plain_message(raw) is None


def test_a_memory_reads_to_the_same_messages_as_the_sdk_validates():
    history = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a", "name": "x"},
               {"role": "assistant", "content": "", "tool_calls": [
                   {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
               {"role": "tool", "content": "r", "tool_call_id": "c"}, {"role": "assistant", "content": "done"}]
    params = read_params(StrategyParams, {"model": ModelSettings().selector(history), "query": "q"})
    read = params.model.history_prompt_messages
    expected = [ensure_prompt_message(dict(raw)) for raw in history]
    assert [type(m) for m in read] == [type(m) for m in expected]
    assert [m.model_dump(mode="json") for m in read] == [m.model_dump(mode="json") for m in expected]
    assert isinstance(read[3], ToolPromptMessage) and isinstance(read[0], UserPromptMessage)


def test_the_collector_is_held_off_inside_nested_stretches_and_runs_again_after():
    assert gc.isenabled()
    with collection_paused():
        assert not gc.isenabled()
        with collection_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ValueError), collection_paused():
        raise ValueError
    assert gc.isenabled()


def test_a_collector_turned_off_before_stays_off():
    gc.disable()
    try:
        with collection_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


class Counted:
    """A value per message that counts its look-ups."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, message) -> int:
        self.calls += 1
        return len(message.content) + 4


def test_a_trim_search_sums_the_memory_tail_it_measured_without_looking_it_up_again():
    memory = [UserPromptMessage(content="m" * (n % 7 + 1)) for n in range(5000)]
    system, query = UserPromptMessage(content="system"), UserPromptMessage(content="query")
    value = Counted()
    sums = PrefixSums(value)

    def prompt(dropped: int) -> list:
        return [system, *memory[dropped:], query]

    assert sums(prompt(0)) == sum(map(value, prompt(0)))
    last = 0
    for dropped in (5000, 2500, 1250, 1875, 1562, 1718, 1640):  # a binary search's builds
        value.calls = 0
        assert sums(prompt(dropped)) == sum(len(m.content) + 4 for m in prompt(dropped))
        # only the turns older than the list measured last are looked up (before: every message)
        assert value.calls == max(last - dropped, 0)
        last = dropped


def test_prefix_sums_equal_a_plain_sum_over_any_lists_of_the_same_messages():
    rng = random.Random(37)
    pool = [UserPromptMessage(content="x" * rng.randint(0, 30)) for _ in range(200)]
    sums = PrefixSums(lambda message: len(message.content) * 3 + 1)
    for _ in range(300):
        start = rng.randint(0, len(pool))
        messages = pool[start : start + rng.randint(0, 120)]
        if rng.random() < 0.5:  # a message added, moved or repeated
            messages.insert(rng.randint(0, len(messages)), rng.choice(pool))
        assert sums(messages) == sum(len(m.content) * 3 + 1 for m in messages)


def _turn(n: int, *, long_result: bool = False, huge: bool = False) -> list:
    call = AssistantPromptMessage.ToolCall(
        id=f"c{n}", type="function", function=AssistantPromptMessage.ToolCall.ToolCallFunction(name="f", arguments="{}"))
    result = "word " * (3000 if long_result else 3)
    return [UserPromptMessage(content=f"question {n} " + ("pasted " * 30_000 if huge else "")),
            AssistantPromptMessage(content="", tool_calls=[call]),
            ToolPromptMessage(content=result, tool_call_id=f"c{n}", name="f"),
            AssistantPromptMessage(content=f"answer {n}")]


@pytest.mark.parametrize("shape", ["plain", "long results", "long results and a turn too large alone"])
def test_the_memory_after_each_step_is_the_same_taken_as_a_slice(shape):
    from agent_core.memory_trim import plan_memory

    turns = [_turn(n, long_result=shape != "plain" and n % 3 == 0, huge=shape.endswith("alone") and n == 4)
             for n in range(12)]
    plan = plan_memory(turns, 20_000, 3 * 1024 * 1024)
    for steps in range(-1, plan.steps + 2):
        dropped, shortened = plan.at(steps)
        expected = [message for index, turn in enumerate(plan.turns) if index not in dropped
                    for message in (plan.shortened[index] if index in shortened else turn)]
        got = plan.messages(steps)
        assert len(got) == len(expected) and all(a is b for a, b in zip(got, expected, strict=True)), steps
