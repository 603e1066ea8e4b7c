"""The Anthropic contract backend's thinking modes: a ``redacted_thinking`` block beside the
signed thinking, and adaptive thinking whose text the API omits. Their replies have the plugin's
shapes, and the backend refuses a tool loop whose thinking blocks came back changed, reordered
or partly lost, as Claude does."""

import copy

import pytest

from local_runner.contracts.anthropic import (
    AnthropicAdaptiveContract,
    AnthropicContract,
    AnthropicRedactedContract,
    redacted_data_for,
    signature_for,
)
from tests.unit.test_contract_anthropic_gemini import assistant, first_round, gathered, refused, with_results


def test_redacted_thinking_streams_nothing_and_is_kept_in_opaque_body():
    backend = AnthropicRedactedContract(shape="stream")
    _, chunks, content, opaque, _calls = first_round(backend)
    blocks = opaque["anthropic_content"]
    assert [b["type"] for b in blocks] == ["thinking", "redacted_thinking", "tool_use"]
    assert blocks[1]["data"] == redacted_data_for(blocks[0]["thinking"])
    assert blocks[1]["data"] not in content and content.startswith("<think>\n")
    assert [c["delta"]["index"] for c in chunks] == [0, 0, 0, 0, 1]  # one close (a0fee42), then the last chunk


@pytest.mark.parametrize("stream", [True, False])
def test_adaptive_omitted_thinking_streams_no_block_and_its_signed_empty_block_goes_back(stream):
    backend = AnthropicAdaptiveContract()
    req, _, content, opaque, calls = first_round(backend, stream=stream)
    blocks = opaque["anthropic_content"]
    assert [b["type"] for b in blocks] == ["thinking", "redacted_thinking", "tool_use"]
    assert blocks[0]["thinking"] == "" and blocks[0]["signature"] and content == ""
    answer = list(backend.invoke_llm(with_results(req, assistant(content, calls, opaque), calls)))
    assert backend.rejections == [] and gathered(answer)[0].endswith("The result is 3367")
    assert backend.provider_requests[-1]["thinking"] == {"type": "adaptive", "display": "omitted"}


@pytest.mark.parametrize("backend_class", [AnthropicRedactedContract, AnthropicAdaptiveContract])
def test_a_changed_redacted_block_is_refused(backend_class):
    backend = backend_class()
    req, _, content, opaque, calls = first_round(backend)
    changed = copy.deepcopy(opaque)
    changed["anthropic_content"][1]["data"] += "A"
    refused(backend, with_results(req, assistant(content, calls, changed), calls), "Invalid `data` in `redacted_thinking` block")


def test_an_omitted_thinking_block_given_text_is_refused():
    backend = AnthropicAdaptiveContract()
    req, _, content, opaque, calls = first_round(backend)
    changed = copy.deepcopy(opaque)
    changed["anthropic_content"][0]["thinking"] = "made up"
    refused(backend, with_results(req, assistant(content, calls, changed), calls), "Invalid `signature` in `thinking` block")


@pytest.mark.parametrize("change", ["reordered", "redacted_lost", "thinking_lost"])
def test_thinking_blocks_reordered_or_partly_lost_are_refused(change):
    backend = AnthropicRedactedContract()
    req, _, content, opaque, calls = first_round(backend)
    changed = copy.deepcopy(opaque)
    blocks = changed["anthropic_content"]
    if change == "reordered":
        blocks[0], blocks[1] = blocks[1], blocks[0]
    else:
        del blocks[1 if change == "redacted_lost" else 0]
    refused(backend, with_results(req, assistant(content, calls, changed), calls), "unmodified and in their order")


def test_a_signed_block_from_another_reply_is_refused_in_the_tool_loop():
    """A valid signature is not enough: the loop's last turn opens with its own reply's blocks."""
    backend = AnthropicContract()
    req, _, content, opaque, calls = first_round(backend)
    changed = copy.deepcopy(opaque)
    other = "(brain-reasoning 9) another reply's thinking"
    changed["anthropic_content"][0] = {"type": "thinking", "thinking": other, "signature": signature_for(other)}
    refused(backend, with_results(req, assistant(content, calls, changed), calls), "unmodified and in their order")
