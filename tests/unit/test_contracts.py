"""The provider contract backends have teeth: each accepts round 2 of a tool run when round 1's
assistant message comes back as the model plugin produced it, and refuses it when what the
provider needs was dropped (the bug the contracts exist to catch)."""

import json

import pytest

from agent_core.model_call import AssistantReply, normalize_chunk
from agent_core.think import visible_text
from local_runner.contracts import CONTRACTS, ProviderRejection

TOOLS = [{"name": "calculator", "description": "Evaluate", "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]}}]
"""As the plugin declares a tool (`agent_core.tool_schema`): `required` is always present, which
the Tongyi plugin needs."""
NEEDS_REPLAY = {"deepseek", "moonshot", "minimax", "openai_responses"}
"""Contracts whose provider refuses a tool round whose reasoning or opaque data was lost. Gemini is
not one: its plugin keeps no `opaque_body` and stamps a placeholder thought signature on replay."""
ORPHAN_RESULTS_ACCEPTED = {"cohere", "fireworks", "ollama", "xinference"}
"""Ollama's chat endpoint and Xinference render a tool message through the model's template without
checking that a call precedes it, so they accept a result whose call is missing; the Fireworks
plugin sends results as legacy ``function`` messages, which carry no id to pair; the Cohere plugin
drops a result that pairs with no call before the request (``results_lost`` records it)."""
TWO_TOOLS_NEEDED = {"cohere"}
"""Contracts whose model plugin refuses a request with exactly one tool (Cohere's "requires at
least two tools"): they are given a second one."""
NO_NATIVE_CALLS = {"sagemaker"}
"""Contracts whose model plugin never sends tools nor reads a call back (SageMaker): no native
round to replay; the strategies run ReAct's steps there (tests/e2e/test_provider_contracts_wave39.py)."""
REPLAY_REFUSED = {"cohere"}
"""Contracts whose provider refuses every native tool result the model plugin sends: the Cohere
plugin sends the user's message beside them, which Cohere's multi-step mode refuses
(langgenius/dify#5441); the strategy then goes on with ReAct's steps."""
SECOND_TOOL = {"name": "unit_convert", "description": "Convert", "parameters": {"type": "object", "properties": {"value": {"type": "number"}}, "required": ["value"]}}


def first_round(backend, stream: bool):
    request = {"model": backend.model, "prompt_messages": [{"role": "user", "content": "What is 37 * 91?"}],
               "tools": [*TOOLS, SECOND_TOOL] if backend.name in TWO_TOOLS_NEEDED else TOOLS, "stream": stream,
               "completion_params": {}}
    reply, calls = AssistantReply(), {}
    for raw in backend.invoke_llm(request):
        chunk = normalize_chunk(raw)
        reply.add(chunk)
        for call in raw["delta"]["message"]["tool_calls"]:
            calls[call["id"]] = call  # complete calls; a plugin repeating its list (Ollama, Azure): the last
    return request, reply, list(calls.values())


def second_round(request, content, opaque, calls, *, drop_assistant=False):
    assistant = {"role": "assistant", "content": content, "tool_calls": calls, "opaque_body": opaque}
    results = [{"role": "tool", "content": "3367", "tool_call_id": c["id"], "name": c["function"]["name"]} for c in calls]
    messages = [*request["prompt_messages"], *([] if drop_assistant else [assistant]), *results]
    return {**request, "prompt_messages": messages}


@pytest.mark.parametrize("stream", [True, False])
@pytest.mark.parametrize("name", sorted(set(CONTRACTS) - REPLAY_REFUSED - NO_NATIVE_CALLS))
def test_intact_replay_is_accepted(name, stream):
    backend = CONTRACTS[name](shape="stream" if stream else "blocking")
    request, reply, calls = first_round(backend, stream)
    if not stream and not backend.blocking_calls:
        assert calls == []  # the plugin drops a blocking reply's calls (Hunyuan): nothing to replay
        return
    assert calls, "the brain calls a tool first"
    list(backend.invoke_llm(second_round(request, reply.content, reply.opaque_body, calls)))
    assert backend.rejections == []


@pytest.mark.parametrize("name", sorted(REPLAY_REFUSED))
def test_a_provider_that_refuses_every_native_tool_result_refuses_an_intact_replay(name):
    backend = CONTRACTS[name](shape="stream")
    request, reply, calls = first_round(backend, True)
    with pytest.raises(ProviderRejection):
        list(backend.invoke_llm(second_round(request, reply.content, reply.opaque_body, calls)))


@pytest.mark.parametrize("stream", [True, False])
@pytest.mark.parametrize("name", sorted(NEEDS_REPLAY))
def test_replay_without_reasoning_or_opaque_body_is_refused(name, stream):
    backend = CONTRACTS[name](shape="stream" if stream else "blocking")
    request, reply, calls = first_round(backend, stream)
    stripped = visible_text(reply.content) if isinstance(reply.content, str) else reply.content
    with pytest.raises(ProviderRejection):
        list(backend.invoke_llm(second_round(request, stripped, None, calls)))


@pytest.mark.parametrize("name", sorted(set(CONTRACTS) - ORPHAN_RESULTS_ACCEPTED - NO_NATIVE_CALLS))
def test_tool_results_without_their_call_are_refused(name):
    backend = CONTRACTS[name](shape="stream")
    request, reply, calls = first_round(backend, True)
    with pytest.raises(ProviderRejection):
        list(backend.invoke_llm(second_round(request, reply.content, reply.opaque_body, calls, drop_assistant=True)))


def test_deepseek_blocking_reply_carries_reasoning_twice_as_its_plugin_does():
    backend = CONTRACTS["deepseek"](shape="blocking")
    _, reply, _ = first_round(backend, False)
    assert reply.content.startswith("<think>\n<!--dify-deepseek-reasoning-->")
    assert json.dumps(reply.opaque_body).count("brain-reasoning") == 1


@pytest.mark.parametrize("stream", [True, False])
def test_vertex_ai_refuses_a_call_whose_id_lost_its_thought_signature(stream):
    """The Vertex AI plugin reads Gemini's thought signature back from the call id; an id the
    strategy replaced (as it once did with ids over 256 characters) makes the plugin send the
    placeholder signature, and the model's reasoning is lost."""
    backend = CONTRACTS["vertex_ai"](shape="stream" if stream else "blocking")
    request, reply, calls = first_round(backend, stream)
    assert "::sig::" in calls[0]["id"] and len(calls[0]["id"]) > 1024
    replaced = [{**call, "id": "c00010001"} for call in calls]
    with pytest.raises(ProviderRejection, match="thought signature lost"):
        list(backend.invoke_llm(second_round(request, reply.content, reply.opaque_body, replaced)))
