"""Through the real plugin, in both strategies: files in conversation memory are sent as content
only to a model whose ``entity.features`` take them (dify#20334: "If open agent memory and not
use VLM, memory will submit image causing error"); otherwise they are the one-line mention the
current query's files get. With no ``entity`` (features unknown) memory is replayed as Dify sent it.
"""

import json

import pytest

from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean, text_of

SIGNED = "http://api:5001/files/tools/9f1c.png?timestamp=1732550000&nonce=ab12&sign=Zm9vYmFy"
IMAGE_PART = {"type": "image", "url": SIGNED, "format": "png", "mime_type": "image/png", "filename": "cat.png",
              "base64_data": "", "detail": "low"}
DOCUMENT_PART = {"type": "document", "url": "https://example.com/a.pdf", "format": "pdf",
                 "mime_type": "application/pdf", "filename": "a.pdf", "base64_data": ""}
HISTORY = [
    {"role": "user", "content": [{"type": "text", "data": "What is in this picture?"}, IMAGE_PART, DOCUMENT_PART]},
    {"role": "assistant", "content": "A cat on a sofa."},
]
NO_VISION = ["tool-call", "multi-tool-call", "stream-tool-call", "agent-thought"]


def memory_user_message(result) -> dict:
    (message,) = [
        m for m in result.llm_requests[0]["prompt_messages"]
        if m["role"] == "user" and text_of(m["content"]).startswith("What is in this picture?")
    ]
    return message


def part_types(message: dict) -> list[str]:
    content = message["content"]
    return [part["type"] for part in content] if isinstance(content, list) else ["string"]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify20334_memory_files_are_mentions_for_a_model_without_the_features(run, strategy):
    result = run(
        [answer_turn(strategy, "Still a cat.")], query="And its colour?", strategy=strategy,
        history=HISTORY, model={"features": NO_VISION},
    )
    assert_clean(result, run)
    message = memory_user_message(result)
    assert message["content"] == (
        "What is in this picture?\n[Attached image: cat.png (image/png)]\n[Attached document: a.pdf (application/pdf)]"
    )
    prompt = json.dumps(result.llm_requests[0]["prompt_messages"])
    assert '"type": "image"' not in prompt and "sign=" not in prompt


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_memory_files_stay_content_for_a_model_with_the_features(run, strategy):
    result = run(
        [answer_turn(strategy, "Still a cat.")], query="And its colour?", strategy=strategy,
        history=HISTORY, model={"features": [*NO_VISION, "vision", "document"]},
    )
    assert_clean(result, run)
    message = memory_user_message(result)
    assert part_types(message) == ["text", "image", "document"]
    assert message["content"][1]["url"] == SIGNED


def test_memory_with_features_unknown_is_replayed_as_dify_sent_it(run):
    result = run([{"text": "Still a cat."}], query="And its colour?", history=HISTORY, model={"entity": False})
    assert_clean(result, run)
    assert part_types(memory_user_message(result)) == ["text", "image", "document"]
