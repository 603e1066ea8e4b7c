"""Moonshot / Kimi through Dify's official Moonshot model plugin, a thinking model
(``kimi-k2-thinking``).

Model plugin: ``langgenius/dify-official-plugins`` ``models/moonshot/models/llm/llm.py``
(``MoonshotLargeLanguageModel`` on the SDK's OpenAI-compatible base). The same conversion as
DeepSeek's (``deepseek.DeepSeekContract``), with a bare ``<think>…</think>`` block and no
escaping:

* streamed: ``reasoning_content`` deltas become content opened by ``<think>`` and closed by
  ``</think>`` when content or a tool call comes; tool calls complete in one chunk; usage last.
* blocking: content ``<think>{reasoning}</think>{answer}`` and ``opaque_body =
  {"reasoning_content": ...}``.
* request: an assistant message's ``reasoning_content`` comes from ``opaque_body`` or else from
  its ``<think>`` block (removed from the content); thinking models always send the field.

Provider rule enforced (https://platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model):
with a thinking model, the assistant messages of the current tool-calling turn keep their
``reasoning_content``; tool messages answer the calls right before them.
"""

from __future__ import annotations

import re

from local_runner.contracts.deepseek import DeepSeekContract


class MoonshotContract(DeepSeekContract):
    """Kimi K2 Thinking behind the official Moonshot model plugin."""

    name = "moonshot"
    plugin_source = "langgenius/dify-official-plugins models/moonshot/models/llm/llm.py"
    provider_doc = "https://platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model"
    provider = "langgenius/moonshot/moonshot"
    model = "kimi-k2-thinking"
    think_open = "<think>"
    think_close = "</think>"
    think_pattern = re.compile(r"<think>(.*?)</think>", re.S | re.I)
    escape = False
    thinking_models = ("kimi-k2-thinking", "kimi-k2-thinking-turbo", "kimi-k2.5")
