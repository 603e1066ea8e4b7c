"""Conversation memory kept as far as it fits (``agent_core.memory_trim``): a memory turn that
does not fit has its tool results shortened, with a note, before it is dropped; a turn too large
even shortened is dropped without taking the older turns with it; the rest are dropped oldest
first. Pure plans first, then through the loop's fitting of a round's request."""

import itertools
from types import SimpleNamespace

import pytest
from dify_plugin.entities.model.message import (
    AssistantPromptMessage,
    PromptMessage,
    TextPromptMessageContent,
    ToolPromptMessage,
    UserPromptMessage,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_core import loop as loop_module
from agent_core import memory_trim, prompts
from agent_core import run_state as run_state_module
from agent_core.budget import history_turns, message_tokens, messages_bytes, prompt_budget, request_tokens
from agent_core.loop import AgentLoop
from agent_core.memory_trim import SHORTENED_OBSERVATION_TOKENS, plan_memory, shortened_observation, shortened_result
from agent_core.params import StrategyParams
from agent_core.tokens import estimate_tokens
from local_runner.scenario import ModelSettings, history_message
from strategies.function_calling import FunctionCallingSteps
from strategies.react import ReActSteps

BIG = "page text, line %d of the fetched page\n"
STRATEGIES = [pytest.param(FunctionCallingSteps(), id="function_calling"), pytest.param(ReActSteps("text"), id="ReAct")]


def page(lines: int) -> str:
    return "".join(BIG % n for n in range(lines))


def tool_turn(n: int, result: str, *, calls: int = 1) -> list[dict]:
    """A memory turn whose answer came after ``calls`` tool calls, each answered by ``result``."""
    ids = [f"call_{n}_{k}" for k in range(calls)]
    return [
        {"role": "user", "content": f"question {n}"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": i, "name": "fetch", "arguments": {"n": n}} for i in ids]},
        *({"role": "tool", "content": result, "tool_call_id": i, "name": "fetch"} for i in ids),
        {"role": "assistant", "content": f"answer {n}"},
    ]


def text_turn(n: int, question: str = "") -> list[dict]:
    return [{"role": "user", "content": question or f"question {n}"}, {"role": "assistant", "content": f"answer {n}"}]


def fitted(steps, history: list[dict], *, context_size: int = 8192, rounds=()):
    """The loop's state and the request it fits for round ``len(rounds) + 1``."""
    model = ModelSettings(context_size=context_size, completion_params={"max_tokens": 512})
    params = StrategyParams.model_validate(
        {"model": model.selector([history_message(m) for m in history]), "query": "latest?"}
    )
    loop = AgentLoop(SimpleNamespace(session=None), steps, params)
    loop.state.rounds.extend(rounds)
    generator = loop._fitted_request(SimpleNamespace(id="round"))
    try:
        while True:
            next(generator)
    except StopIteration as stop:
        return loop, stop.value


def texts(request) -> list[str]:
    return [m.content if isinstance(m.content, str) else "" for m in request.prompt_messages]


# --- the user's case: one huge tool result in the last turn ----------------------------------------


@pytest.mark.parametrize("steps", STRATEGIES)
def test_a_huge_tool_result_in_the_last_turn_keeps_the_older_turns(steps):
    """A 200 KB tool result in the previous turn, an 8K window: every turn is kept; in Function
    Calling the result is shortened with a note and stays right after its call."""
    big = page(5000)
    history = [*text_turn(0), *text_turn(1), *tool_turn(2, big)]
    loop, request = fitted(steps, history)
    assert request_tokens(request) <= prompt_budget(loop.state.params)
    joined = "\n".join(texts(request))
    for n in range(3):
        assert f"question {n}" in joined and f"answer {n}" in joined
    assert loop.state.history_dropped == 0
    if isinstance(steps, FunctionCallingSteps):
        messages = request.prompt_messages
        (index,) = [i for i, m in enumerate(messages) if isinstance(m, ToolPromptMessage)]
        call, result = messages[index - 1], messages[index]
        assert [c.id for c in call.tool_calls] == [result.tool_call_id] == ["call_2_0"]
        assert result.content == shortened_observation(big) != big
        assert result.content.startswith(big[:200])
        assert prompts.OBSERVATION_SHORTENED.split("{")[0] in result.content
        assert loop.state.memory_trimmed() == (0, 1)
    assert big not in joined


@pytest.mark.parametrize("steps", STRATEGIES)
def test_a_turn_too_large_even_shortened_is_dropped_alone(steps):
    """A 200 KB text the user pasted in the previous turn cannot be shortened (it is the user's
    message): that turn goes, the older turns stay."""
    history = [*text_turn(0), *text_turn(1), *text_turn(2, "summarise this: " + page(5000))]
    loop, request = fitted(steps, history)
    joined = "\n".join(texts(request))
    assert "question 0" in joined and "question 1" in joined and "answer 1" in joined
    assert "summarise this" not in joined and "answer 2" not in joined
    assert loop.state.history_dropped == 1


def test_turns_are_dropped_oldest_first_once_every_tool_result_is_shortened():
    history = [turn for n in range(40) for turn in tool_turn(n, page(400))]
    loop, request = fitted(FunctionCallingSteps(), history)
    kept = sorted(int(t.split()[1]) for t in texts(request) if t.startswith("question "))
    assert kept and kept == list(range(kept[0], 40)) and kept[0] > 0
    dropped, shortened = loop.state.memory_trimmed()
    assert dropped == kept[0] and shortened == len(kept)
    results = [m for m in request.prompt_messages if isinstance(m, ToolPromptMessage)]
    assert all(m.content == shortened_observation(page(400)) for m in results)


# --- the pure plan ------------------------------------------------------------------------------------


def test_a_result_that_fits_is_the_same_object_and_a_long_one_a_copy_with_only_its_text_cut():
    short = ToolPromptMessage(content="sunny", tool_call_id="a", name="w")
    assert shortened_result(short) is short
    long = ToolPromptMessage(content=page(300), tool_call_id="a" * 300, name="w")
    cut = shortened_result(long)
    assert (cut.tool_call_id, cut.name) == (long.tool_call_id, long.name)
    assert cut.content == shortened_observation(long.content)
    assert estimate_tokens(cut.content) <= SHORTENED_OBSERVATION_TOKENS + estimate_tokens(prompts.OBSERVATION_SHORTENED) + 8
    parts = ToolPromptMessage(content=[TextPromptMessageContent(data=page(300))], tool_call_id="b", name="w")
    assert shortened_result(parts).content[0].data == shortened_observation(page(300))
    answer = AssistantPromptMessage(content=page(300))
    assert shortened_result(answer) is answer, "only tool results are shortened"


def test_planning_measures_each_message_once(monkeypatch):
    """Linear in the memory: one measure a message, one shortening a long result."""
    history = [UserPromptMessage(content="q")]
    for n in range(300):
        history += [AssistantPromptMessage(content="", tool_calls=[_call(f"c{n}")]),
                    ToolPromptMessage(content=f"{n} " + page(60), tool_call_id=f"c{n}", name="fetch")]
    history.append(AssistantPromptMessage(content="done"))
    measured = []
    monkeypatch.setattr(memory_trim, "message_tokens", lambda m: measured.append(m) or message_tokens(m))
    plan = plan_memory(history_turns(history), 10**6, 10**9)
    assert len(measured) == len(history)
    assert plan.shortenable == (0,) and plan.steps == 2


def _call(call_id: str) -> AssistantPromptMessage.ToolCall:
    return AssistantPromptMessage.ToolCall(
        id=call_id, type="function", function=AssistantPromptMessage.ToolCall.ToolCallFunction(name="fetch", arguments="{}")
    )


_SIZES = st.sampled_from([0, 1, 30, 400, 3000])  # lines of a text: up to ~100 KB


@st.composite
def memories(draw) -> list[PromptMessage]:
    """Memory as ``clean_history`` leaves it: turns starting at a user message, tool calls each
    answered right after their assistant message, of sizes from a word to ~100 KB."""
    history: list[PromptMessage] = []
    for n in range(draw(st.integers(0, 6))):
        history.append(UserPromptMessage(content=f"q{n} " + page(draw(_SIZES))))
        for r in range(draw(st.integers(0, 2))):
            ids = [f"c{n}.{r}.{k}" + "x" * draw(st.sampled_from([0, 40])) for k in range(draw(st.integers(1, 3)))]
            history.append(AssistantPromptMessage(content=draw(st.sampled_from(["", "let me look"])),
                                                  tool_calls=[_call(i) for i in ids]))
            history += [ToolPromptMessage(content=f"r{i} " + page(draw(_SIZES)), tool_call_id=i, name="fetch") for i in ids]
        history.append(AssistantPromptMessage(content=f"a{n} " + page(draw(st.sampled_from([0, 1, 400])))))
    return history


def assert_pairs_intact(messages: list[PromptMessage]) -> None:
    """Every tool call answered right after its assistant message, every result right after its call."""
    position = 0
    while position < len(messages):
        message = messages[position]
        position += 1
        assert not isinstance(message, ToolPromptMessage), "a tool result without its call"
        if isinstance(message, AssistantPromptMessage) and message.tool_calls:
            answered = []
            while position < len(messages) and isinstance(messages[position], ToolPromptMessage):
                answered.append(messages[position].tool_call_id)
                position += 1
            assert answered == [call.id for call in message.tool_calls], "a call without its result"


def assert_kept_as_given(kept: list[PromptMessage], given_: list[PromptMessage]) -> None:
    """Each kept message is the one memory gave, or a tool result whose text alone is shortened."""
    originals = {id(m): m for m in given_}
    by_call = {m.tool_call_id: m for m in given_ if isinstance(m, ToolPromptMessage)}
    for message in kept:
        if id(message) in originals:
            continue
        assert isinstance(message, ToolPromptMessage)
        original = by_call[message.tool_call_id]
        assert message.name == original.name
        assert message.content == shortened_observation(original.content) != original.content


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(memories(), st.sampled_from([None, 700, 3000]), st.sampled_from([4_000, 40_000, 10**7]))
def test_every_step_keeps_pairs_whole_messages_as_given_and_never_grows(history, tokens, bytes_):
    plan = plan_memory(history_turns(history), tokens, bytes_)
    sizes = []
    for steps in range(plan.steps + 1):
        kept = plan.messages(steps)
        assert_pairs_intact(kept)
        assert_kept_as_given(kept, history)
        assert not kept or isinstance(kept[0], UserPromptMessage)
        sizes.append((sum(message_tokens(m) for m in kept), messages_bytes(kept)))
        dropped, shortened = plan.at(steps)
        assert not dropped & shortened
        if steps >= len(plan.hopeless):
            assert set(plan.hopeless) <= dropped
    assert plan.messages(plan.steps) == []
    assert all(a[0] >= b[0] and a[1] >= b[1] for a, b in itertools.pairwise(sizes)), "a step never adds"
    for index in plan.hopeless:  # what is dropped first could never fit
        turn = plan.shortened[index]
        assert (tokens is not None and sum(map(message_tokens, turn)) > tokens) or messages_bytes(turn) > bytes_


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(memories(), st.sampled_from([None, 60_000]))
@pytest.mark.parametrize("steps", STRATEGIES)
def test_the_fitted_request_keeps_memory_as_far_as_it_fits(steps, monkeypatch, history, request_bytes_limit):
    """Through the loop: the request fits the token budget and the request line's byte budget
    (made small to be reached), the query is last and as the user wrote it, tool pairs are whole
    and kept messages as memory gave them, and one memory step less would not fit."""
    if request_bytes_limit is not None:
        for module in (loop_module, run_state_module):
            monkeypatch.setattr(module, "REQUEST_BYTES", request_bytes_limit)
    loop, request = fitted(steps, [m.model_dump(mode="json") for m in history])
    state = loop.state
    budget = prompt_budget(state.params)
    assert request_tokens(request) <= budget
    assert loop._sent_bytes(request) + loop._settings_bytes(request) <= loop_module.REQUEST_BYTES
    last = request.prompt_messages[-1].content
    assert last == "latest?" or last.endswith("Question: latest?\nThought:")
    memory = state.history()
    assert_pairs_intact(memory)
    assert_kept_as_given(memory, [m for turn in state._memory_turns() for m in turn])
    if isinstance(steps, FunctionCallingSteps):
        sent = request.prompt_messages
        assert_pairs_intact(sent)
        assert all(m in sent for m in memory) or not memory
    if state.memory_steps and not state.rounds_shortened and not state.files_as_text:
        state.memory_steps -= 1
        fewer = steps.build_request(state)
        bigger = request_tokens(fewer) > budget or (
            loop._sent_bytes(fewer) + loop._settings_bytes(fewer) > loop_module.REQUEST_BYTES)
        assert bigger, "memory was trimmed further than the budget needs"
