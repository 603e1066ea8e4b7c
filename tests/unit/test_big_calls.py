"""Native tool calls of megabytes and replies of many calls: each arguments text is decoded once,
and the walks over what was decoded let the other sessions of the process run.

A call whose arguments were 5 MB of JSON (300,000 keys) was decoded five times (glued objects
looked for twice, then the value itself) and walked by five loops that never gave way: another
session streaming on the process waited 1-2 s. A chunk of 100,000 calls held it 3.6 s."""

import json
import time

import pytest
from dify_plugin.entities.model.llm import LLMUsage

from agent_core import fairness
from agent_core.json_args import too_deep, without_lone_surrogates
from agent_core.line_budget import fit
from agent_core.model_call import normalize_chunk
from agent_core.tool_calls import ToolCallAssembler, ToolCallDelta
from agent_core.usage import add_usage, empty_usage, sum_usages


def _offers_during(work) -> int:
    """How many times ``work`` handed over to the other sessions: with no slice (the fixture
    ``every_offer_switches``) each offer to give way hands over, and is counted."""
    before = len(_HANDED)
    work()
    return len(_HANDED) - before


_HANDED: list[int] = []


@pytest.fixture
def every_offer_switches(monkeypatch):
    """No slice at all: each offer to give way hands over (counted in ``_HANDED``)."""
    monkeypatch.setattr(fairness, "SLICE_SECONDS", 0.0)
    monkeypatch.setattr(fairness, "hand_over", lambda: _HANDED.append(1))


@pytest.fixture
def decoded_chars(monkeypatch):
    """Characters of JSON text the standard decoder read (every ``json.loads`` and ``raw_decode``)."""
    seen = []
    original = json.JSONDecoder.raw_decode

    def counting(self, s, idx=0):
        seen.append(len(s) - idx)
        return original(self, s, idx)

    monkeypatch.setattr(json.JSONDecoder, "raw_decode", counting)
    return seen


def _call(number: int, arguments: str, name: str = "search") -> ToolCallDelta:
    return ToolCallDelta.from_raw({"id": f"call_{number}", "type": "function",
                                   "function": {"name": name, "arguments": arguments}})


BIG_VALUE = {f"k{n}": f"v{n}" for n in range(20_000)}
BIG = json.dumps(BIG_VALUE)


def test_arguments_that_are_one_json_object_are_decoded_once(decoded_chars):
    assembler = ToolCallAssembler()
    assembler.add(_call(1, BIG))
    calls = assembler.finish("tool_calls").calls
    assert calls[0].arguments == BIG_VALUE
    assert sum(decoded_chars) <= len(BIG) + 1  # one pass over the text, not one per reader


@pytest.mark.parametrize("finish_reason", ["tool_calls", None])
def test_arguments_decoded_while_routing_are_not_decoded_again(decoded_chars, finish_reason):
    # a second call in the reply makes the assembler decode the first's arguments to see whether
    # they are complete: finish keeps that value, and decodes only the last call's
    assembler = ToolCallAssembler()
    assembler.add(_call(1, BIG))
    assembler.add(_call(2, '{"q": "x"}'))
    decoded_chars.clear()
    calls = assembler.finish(finish_reason).calls
    assert [call.arguments for call in calls] == [BIG_VALUE, {"q": "x"}]
    assert sum(decoded_chars) <= len('{"q": "x"}') + 1


@pytest.mark.parametrize(("arguments", "expected"), [
    ('{"a": 1}{"a": 2}', [{"a": 1}, {"a": 2}]),  # glued: two calls
    ('{"a": 1}<|eot_id|>', [{"a": 1}]),  # noise after the object
    ('{"a": "<|eot_id|>"}', [{"a": "<|eot_id|>"}]),  # noise inside a value is the value's
    ('"{\\"a\\": 1}"', [{"a": 1}]),  # JSON text in a JSON string
    ('[{"a": 1}]', [{"a": 1}]),  # an array of one object
    ("null", [{}]),
    ('{"text": "{\\"a\\": 1}{\\"a\\": 2}"}', [{"a": 1}, {"a": 2}]),  # glued calls in one string key
    ('{"a": "\\ud800"}', [{"a": "\ufffd"}]),  # half a surrogate pair
    ("{'a': 1,}", [{"a": 1}]),  # almost-JSON, repaired
])
def test_arguments_read_strictly_first_still_read_every_other_shape(arguments, expected):
    assembler = ToolCallAssembler()
    assembler.add(_call(1, arguments))
    assert [call.arguments for call in assembler.finish("tool_calls").calls] == expected


def test_a_reply_of_thousands_of_calls_gives_way_while_it_is_read_and_assembled(every_offer_switches):
    raw = [{"id": f"call_{n}", "type": "function", "function": {"name": "search", "arguments": '{"q": "x"}'}}
           for n in range(5_000)]
    chunk = {"delta": {"index": 0, "message": {"role": "assistant", "content": "", "tool_calls": raw}}}
    deltas = []
    assert _offers_during(lambda: deltas.extend(normalize_chunk(chunk).tool_calls)) >= 4
    assembler = ToolCallAssembler()
    for delta in deltas:
        assembler.add(delta)
    found = []
    assert _offers_during(lambda: found.append(assembler.finish("tool_calls"))) >= 4
    assert len(found[0].calls) == 5_000


def test_the_walks_over_a_huge_arguments_object_give_way(every_offer_switches):
    arguments = {f"k{n}": f"v{n}" for n in range(5_000)}
    assert _offers_during(lambda: too_deep(arguments, 64)) >= 4
    # the CALL node's input, far over a log line: measured, then cut to a note
    fitted = []
    assert _offers_during(lambda: fitted.append(fit({"tool_input": arguments}, 1024))) >= 4
    assert set(fitted[0]) == {"note"}
    broken = {**arguments, "k0": "\ud800"}
    cleaned = []
    assert _offers_during(lambda: cleaned.append(without_lone_surrogates(broken))) >= 4
    assert cleaned[0]["k0"] == "\ufffd" and cleaned[0]["k1"] == "v1"


def test_a_value_without_lone_surrogates_is_not_walked():
    value = {f"k{n}": [f"v{n}", {"x": "\\ud800 written as text"}] for n in range(100)}
    assert without_lone_surrogates(value) is value
    assert without_lone_surrogates(["\U0001f600 is no surrogate"]) == ["\U0001f600 is no surrogate"]
    assert without_lone_surrogates([["\udc00"]]) == [["\ufffd"]]


def test_usages_of_thousands_of_chunks_add_up_as_the_fold_did_and_give_way(every_offer_switches):
    usages = [LLMUsage(prompt_tokens=n % 3, prompt_unit_price=n % 2, prompt_price_unit="0.001", prompt_price=n % 5,
                       completion_tokens=1, completion_unit_price=2, completion_price_unit="0.001",
                       completion_price="0.002", total_tokens=1 + n % 3, total_price=n % 4,
                       currency=("USD", "RMB")[n % 2], latency=0.01)
              for n in range(5_000)]
    expected = empty_usage()
    for usage in usages:
        expected = add_usage(expected, usage)
    total = []
    assert _offers_during(lambda: total.append(sum_usages(usages))) >= 4
    assert total[0] == expected


def test_paced_hands_a_small_collection_back_as_it_is():
    items = list(range(fairness.GRAIN))
    assert fairness.paced(items) is items
    assert list(fairness.paced(range(2_500))) == list(range(2_500))


def test_a_long_prompt_is_measured_message_by_message_to_the_byte():
    from dify_plugin.entities.model.message import AssistantPromptMessage, ToolPromptMessage, UserPromptMessage

    from agent_core.budget import request_bytes
    from agent_core.line_budget import encoded_size
    from agent_core.model_call import ModelRequest, message_dump

    call = AssistantPromptMessage.ToolCall(id="c1", type="function", function=AssistantPromptMessage.ToolCall.ToolCallFunction(
        name="search", arguments='{"q": "ü"}'))
    messages = [UserPromptMessage(content="é" * 800_000), AssistantPromptMessage(content="", tool_calls=[call]),
                ToolPromptMessage(content='"quoted"\n', tool_call_id="c1")]
    for prompt in (messages, messages[:1]):
        request = ModelRequest(prompt_messages=prompt, tools=[])
        assert request_bytes(request) == encoded_size([message_dump(message) for message in prompt])


def test_a_message_of_thousands_of_calls_is_measured_to_the_byte_giving_way(every_offer_switches):
    from dify_plugin.entities.model.message import AssistantPromptMessage

    from agent_core.budget import request_bytes
    from agent_core.line_budget import encoded_size
    from agent_core.model_call import ModelRequest, message_dump

    calls = [AssistantPromptMessage.ToolCall(id=f"c{n}", type="function", function=AssistantPromptMessage.ToolCall.ToolCallFunction(
        name="search", arguments='{"q": "é"}')) for n in range(5_000)]
    message = AssistantPromptMessage(content="x" * 2_000_000, tool_calls=calls)
    measured = []
    assert _offers_during(lambda: measured.append(request_bytes(ModelRequest(prompt_messages=[message], tools=[])))) >= 4
    assert measured[0] == encoded_size([message_dump(message)])


def test_a_cache_per_object_sweeps_in_steps_that_give_way_and_a_freed_prompt_runs_no_callbacks(every_offer_switches):
    import sys

    from dify_plugin.entities.model.message import UserPromptMessage

    from agent_core import memo

    @memo.per_object
    def size(message: UserPromptMessage) -> int:
        return len(message.content)

    kept = [UserPromptMessage(content="k" * n) for n in range(10)]
    assert [size(message) for message in kept] == list(range(10))
    prompt = [UserPromptMessage(content="a") for _ in range(8 * fairness.GRAIN)]
    assert _offers_during(lambda: [size(message) for message in prompt]) >= 4  # sweeps of 1,000 entries and more
    called = []
    sys.setprofile(lambda frame, event, arg: called.append(frame.f_code.co_filename) if event == "call" else None)
    try:
        prompt.clear()  # 100,000 messages freed at once ran a callback each, in one stretch
    finally:
        sys.setprofile(None)
    assert memo.__file__ not in called
    assert [size(UserPromptMessage(content="b")) for _ in range(3 * memo.SWEEP_SIZE)] == [1] * 3 * memo.SWEEP_SIZE
    assert [size(message) for message in kept] == list(range(10))


ARGUMENTS_OF_FOUR_MB = json.dumps({"content": "x" * 4_000_000})


def _fragments(shape: str) -> list[ToolCallDelta]:
    """A call's head, then its 4 MB of arguments in 40,000 fragments of 100 characters, in the
    shapes model plugins send them through Dify's daemon (which drops ``index``): bare fragments
    (OpenAI's stream), the name on every fragment (llama.cpp's server, llamacpp13800), a fresh id
    on every fragment (LMDeploy, InternLM/lmdeploy#3412)."""
    text = ARGUMENTS_OF_FOUR_MB
    pieces = [text[n:n + 100] for n in range(0, len(text), 100)]
    head = ToolCallDelta(None, "c1", "write_file", "")
    if shape == "bare":
        rest = [ToolCallDelta(None, "", "", piece) for piece in pieces]
    elif shape == "named":
        rest = [ToolCallDelta(None, "", "write_file", piece) for piece in pieces]
    else:
        rest = [ToolCallDelta(None, f"id{n}", "", piece) for n, piece in enumerate(pieces)]
    return [head, *rest]


@pytest.mark.parametrize("shape", ["bare", "named", "fresh ids"])
def test_arguments_of_megabytes_in_thousands_of_fragments_are_routed_in_linear_time(shape):
    """Found in wave 38: routing each fragment joined every fragment before it (twice: is the
    last call's text started, is it a whole JSON value yet), so 4.8 MB of arguments in 38,000
    fragments cost 11 s of plugin CPU, and a real model's arguments of 1 MB in 4-character tokens
    far more. Before the fix this case took 15-20 s (2 MB: 3.4-5.7 s); now about a tenth of a second."""
    deltas = _fragments(shape)
    assembler = ToolCallAssembler()
    started = time.perf_counter()
    for delta in deltas:
        assembler.add(delta)
    routed = time.perf_counter() - started
    (call,) = assembler.finish("tool_calls").calls
    assert call.name == "write_file" and call.arguments == {"content": "x" * 4_000_000}
    assert routed < 3.0, f"{routed:.2f} s to route 40,000 fragments"
