"""A conversation memory of tens of thousands of messages (issue 13 class 2): cleaned and planned
without copying or encoding what needs neither, and without holding the other sessions of the
process (the pass that pairs calls with their results gives way)."""

import gevent
from dify_plugin.entities.model.message import AssistantPromptMessage, ToolPromptMessage, UserPromptMessage

from agent_core import budget, fairness
from agent_core.budget import history_turns
from agent_core.memory_trim import plan_memory
from agent_core.messages import clean_history


def _call(call_id: str) -> AssistantPromptMessage.ToolCall:
    return AssistantPromptMessage.ToolCall(
        id=call_id, type="function", function=AssistantPromptMessage.ToolCall.ToolCallFunction(name="fetch", arguments="{}")
    )


def memory(turns: int) -> list:
    history = []
    for n in range(turns):
        history.append(UserPromptMessage(content=f"question {n}"))
        if n % 10 == 9:
            history += [AssistantPromptMessage(content="", tool_calls=[_call(f"c{n}")]),
                        ToolPromptMessage(content=f"result {n}", tool_call_id=f"c{n}", name="fetch")]
        history.append(AssistantPromptMessage(content=f"answer {n}"))
    return history


def test_answers_and_calls_with_nothing_to_drop_are_kept_as_the_same_objects():
    history = memory(50)
    cleaned = clean_history(history)
    assert len(cleaned) == len(history)
    assert all(new is old for new, old in zip(cleaned, history, strict=True))
    thinking = AssistantPromptMessage(content="<think>plan</think>The answer.")
    unanswered = AssistantPromptMessage(content="", tool_calls=[_call("a"), _call("b")])
    result = ToolPromptMessage(content="done", tool_call_id="a", name="fetch")
    cleaned = clean_history([UserPromptMessage(content="q"), thinking, UserPromptMessage(content="q2"), unanswered,
                             result, AssistantPromptMessage(content="ok")])
    assert cleaned[1].content == "The answer." and thinking.content.startswith("<think>"), "a copy, the input kept"
    assert [call.id for call in cleaned[3].tool_calls] == ["a"] and len(unanswered.tool_calls) == 2


def test_planning_a_memory_far_under_the_byte_limit_encodes_no_message(monkeypatch):
    encoded = []
    dump = budget.message_dump
    monkeypatch.setattr(budget, "message_dump", lambda message: encoded.append(message) or dump(message))
    plan = plan_memory(history_turns(memory(200)), None, 4 * 1024 * 1024)
    assert encoded == [] and plan.hopeless == ()
    plan = plan_memory(history_turns(memory(3)), None, 100)  # near the limit: measured exactly
    assert encoded and plan.hopeless == (0, 1, 2)


def test_a_neighbour_runs_while_a_long_memory_is_cleaned(monkeypatch):
    monkeypatch.setattr(fairness, "SLICE_SECONDS", 0.0)  # give way at every chance
    history = memory(2_000)
    ticks = []

    def neighbour():
        while True:
            ticks.append(len(ticks))
            gevent.sleep(1e-6)

    beside = gevent.spawn(neighbour)
    gevent.sleep(0)
    calls = []
    monkeypatch.setattr("agent_core.messages.give_way", lambda: calls.append(len(ticks)) or fairness.give_way())
    cleaned = clean_history(history)
    beside.kill()
    assert len(cleaned) == len(history)
    # it gave way in both passes: once a message while converting, once a message while pairing
    assert len(calls) >= 2 * len(history) - len(history) // 10
    assert ticks and calls[-1] > calls[len(history)], "the neighbour ran during the pairing pass"
