"""Mistral Large behind Dify's official Mistral AI model plugin (``mistral-large-latest``).

Model plugin: ``langgenius/dify-official-plugins`` ``models/mistralai/models/llm/llm.py`` (commit
631fc5c45ec76aa4ed75d54eb73d670f7feffb78, the only version stored) on the SDK's
OpenAI-compatible base, whose stream handler and conversion it keeps unchanged (see
``sdk_base``). It sets ``stop = []`` for every request (no stop sequence ever reaches Mistral) and
turns Magistral's ``reasoning_mode`` into ``prompt_mode``. A non-Magistral model returns no
reasoning: the replies carry text and tool calls only, calls complete after the text, then a last
chunk with ``finish_reason`` and usage; blocking in one chunk. No ``opaque_body``. (Magistral's
list content fails inside the SDK base before any chunk: docs/providers.md.)

Request: the SDK base's: the content as it is, calls with their ids, tool messages with their
``tool_call_id``; nothing merged.

Provider rules enforced (https://docs.mistral.ai/capabilities/function_calling/; the refusal as
Mistral's API and tokenizer word it): every tool-call id, in an assistant message and in a tool
message, is nine letters and digits ("Tool call id was X but must be a-z, A-Z, 0-9, with a length
of 9."); OpenAI-style tool pairing; an assistant message needs content or calls; the last message
is a user or tool message ("Expected last role User or Tool (or Assistant with prefix True) for
serving but got assistant").
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from local_runner.contracts.base import BrainCall
from local_runner.contracts.sdk_base import ReasoningFreeSDKContract

MISTRAL_ID = re.compile(r"[a-zA-Z0-9]{9}")
_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


class MistralContract(ReasoningFreeSDKContract):
    """``mistral-large-latest`` behind the official Mistral AI model plugin (see the module
    docstring)."""

    name = "mistralai"
    plugin_source = "langgenius/dify-official-plugins models/mistralai/models/llm/llm.py"
    provider_doc = "https://docs.mistral.ai/capabilities/function_calling/"
    provider = "langgenius/mistralai/mistralai"
    model = "mistral-large-latest"
    features = ("agent-thought", "tool-call", "multi-tool-call", "stream-tool-call")

    def check_roles(self, body: dict[str, Any]) -> None:
        """Mistral's rule on the last message (it takes consecutive messages of one role)."""
        if body["messages"] and body["messages"][-1]["role"] not in ("user", "tool"):
            self.reject(f"Expected last role User or Tool (or Assistant with prefix True) for serving but got {body['messages'][-1]['role']}")

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        body = super().to_provider({**request, "stop": []})  # the plugin's `stop = []`
        body.pop("stop", None)
        return body

    def check(self, body: dict[str, Any]) -> None:
        for message in body["messages"]:
            ids = [call.get("id") for call in message.get("tool_calls") or []]
            if message["role"] == "tool":
                ids.append(message.get("tool_call_id"))
            for call_id in ids:
                if not MISTRAL_ID.fullmatch(str(call_id)):
                    self.reject(f"Tool call id was {call_id} but must be a-z, A-Z, 0-9, with a length of 9.")
        super().check(body)

    @staticmethod
    def call_id(call: BrainCall) -> str:
        """Mistral's id for a tool call: nine letters and digits."""
        digest = hashlib.sha256(call.id.encode()).digest()
        return "".join(_ALPHABET[b % len(_ALPHABET)] for b in digest[:9])
