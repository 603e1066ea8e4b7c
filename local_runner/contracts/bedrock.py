"""Amazon Nova Pro on Bedrock through Dify's official Bedrock model plugin (Converse API).

Model plugin: ``langgenius/dify-official-plugins`` ``models/bedrock/models/llm/llm.py`` (commit
034376c54b5db89ac0c688a813431d0e4a76d289, re-read at 65396bc81bb52ddc4d7c8b2d51915d16cacfc899:
``_generate_with_converse``,
``_handle_converse_stream_response``, ``_handle_converse_response``, ``_extract_tool_use``,
``_convert_prompt_message_to_dict``). Provider: the Converse API,
https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html and
https://docs.aws.amazon.com/nova/latest/userguide/tool-use-invocation.html (Nova writes its
chain of thought in ``<thinking>`` tags in the text of a tool-use turn).

Chunks (what a strategy receives):

* streamed: a text delta is a chunk of its own (index = content block + 1); a Claude
  ``reasoningContent`` delta is content too, the first opened by ``<think>\\n``, a signature
  delta an empty chunk, and the reasoning block's ``contentBlockStop`` adds ``\\n</think>`` (no
  line break after: the text follows straight on). ``toolUse`` input is gathered silently; the
  last chunk (Bedrock's ``metadata`` event) carries content ``""``, every call complete, the raw
  ``stopReason`` (``tool_use``, ``end_turn``, ``max_tokens``) as ``finish_reason`` and usage. No
  ``opaque_body``.
* blocking: one chunk; with ``stopReason == "tool_use"`` the content is the *last* text block and
  only the *last* ``toolUse`` is kept; otherwise the content is the first block's text. Claude's
  ``reasoningContent`` blocks are folded in front of it as ``<think>\\n…\\n</think>\\n``
  (``_fold_reasoning_content``, newest version, commit 65396bc81bb52ddc4d7c8b2d51915d16cacfc899,
  the one naming GPT-5.6 and Claude 5; earlier versions failed on them: "Got unknown item"); their
  signature is dropped.

Request: system messages become ``system`` (stripped); a tool message becomes a user message of
one ``toolResult`` (``{"json": {"text": content}}``); an assistant message with calls becomes its
``toolUse`` blocks *only* (text and reasoning dropped, ``input`` = ``json.loads(arguments)``),
one without calls one text block of its content as it is (``<think>`` included); consecutive
messages of one role are merged. ``toolConfig`` lists the tools, or a placeholder tool when none
are declared but the history holds tool calls.

Provider rules enforced (``ValidationException``): the conversation starts with a user message;
no blank text block; a ``toolUse`` is answered by ``toolResult`` blocks in the next message and a
``toolResult`` answers a ``toolUse`` of the message before; ``toolUseId`` matches
``[a-zA-Z0-9_-]+`` (1-64 characters); ``toolUse.input`` is an object; a ``toolSpec``'s ``description`` (the plugin sends the tool's
description as it is, ``_convert_converse_tool_config``) is not empty (``ToolSpecification``:
minimum length 1, https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolSpecification.html). With ``reasoning_type`` on
(Claude's extended thinking) the final assistant message before the last tool results must start
with a reasoning block, which this plugin never sends back (docs/providers.md, what the strategy
cannot fix): ``claude_reasoning`` turns that model on for a unit test, not for the matrix.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, ClassVar

from local_runner.contracts.base import ContractBackend, PluginFailure, Reply, enum_value, pieces, text_of

TOOL_USE_ID = re.compile(r"[a-zA-Z0-9_-]{1,64}")


class BedrockContract(ContractBackend):
    """Nova Pro (or, with ``claude_reasoning``, Claude with ``reasoning_type``) behind the official
    Bedrock model plugin (see the module docstring)."""

    name = "bedrock"
    plugin_source = "langgenius/dify-official-plugins models/bedrock/models/llm/llm.py"
    provider_doc = "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html"
    provider = "langgenius/bedrock/bedrock"
    model = "amazon.nova-pro-v1:0"
    completion_params: ClassVar[dict[str, Any]] = {}
    claude_reasoning = False
    """Reason as Claude does with ``reasoning_type`` on (``reasoningContent`` blocks)."""

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        system, messages = [], []
        for message in request.get("prompt_messages") or []:
            role, content = enum_value(message.get("role")), message.get("content")
            if role == "system":
                system.append({"text": text_of(content).strip()})
                continue
            converted = self._convert(role, content, message)
            if messages and messages[-1]["role"] == converted["role"]:
                messages[-1]["content"].extend(converted["content"])
            else:
                messages.append(converted)
        body: dict[str, Any] = {"modelId": request.get("model"), "system": system, "messages": messages}
        if request.get("tools"):
            body["toolConfig"] = {"tools": [{"toolSpec": {"name": t.get("name"), "description": t.get("description")}}
                                            for t in request["tools"]]}
        elif any("toolUse" in b or "toolResult" in b for m in messages for b in m["content"]):
            body["toolConfig"] = {"tools": [{"toolSpec": {"name": "__no_more_tools_available__",
                                                          "description": "This is a placeholder tool."}}]}
        if self.claude_reasoning:
            body["additionalModelRequestFields"] = {"reasoning_config": {"type": "enabled", "budget_tokens": 1024}}
        return body

    def _convert(self, role: str, content: Any, message: dict[str, Any]) -> dict[str, Any]:
        if role == "tool":
            result = {"toolUseId": message.get("tool_call_id"), "content": [{"json": {"text": content}}]}
            return {"role": "user", "content": [{"toolResult": result}]}
        if role == "user":
            if isinstance(content, str):
                return {"role": "user", "content": [{"text": content}]}
            return {"role": "user", "content": [{"text": p.get("data", "")} for p in content or [] if p.get("type") == "text"]}
        calls = message.get("tool_calls") or []
        if not calls:
            if not isinstance(content, str):
                raise PluginFailure(f"[bedrock] Parameter validation failed: Invalid type for parameter text, value: {content!r}")
            return {"role": "assistant", "content": [{"text": content}]}
        blocks = []
        for call in calls:
            function = call.get("function") or {}
            try:
                arguments = json.loads(function.get("arguments") or "")
            except ValueError as error:
                raise PluginFailure(f"[bedrock] Error: {error}") from error
            blocks.append({"toolUse": {"toolUseId": call.get("id"), "name": function.get("name"), "input": arguments}})
        return {"role": "assistant", "content": blocks}

    def _check_tools(self, body: dict[str, Any]) -> None:
        """Every ``toolSpec`` has a description that is not empty (``ToolSpecification``)."""
        for n, tool in enumerate((body.get("toolConfig") or {}).get("tools") or []):
            if not tool["toolSpec"].get("description"):
                self.reject(f"Value '' at 'toolConfig.tools.{n + 1}.member.toolSpec.description' failed to satisfy "
                            "constraint: Member must have length greater than or equal to 1")

    def check(self, body: dict[str, Any]) -> None:
        self._check_tools(body)
        messages = body["messages"]
        if not messages or messages[0]["role"] != "user":
            self.reject("A conversation must start with a user message. Try again with a conversation that starts with a user message.")
        for i, message in enumerate(messages):
            for k, block in enumerate(message["content"]):
                if "text" in block and not str(block["text"]).strip():
                    self.reject(f"The text field in the ContentBlock object at messages.{i}.content.{k} is blank. Add text to the text field, and try again.")
                use = block.get("toolUse")
                if use and not TOOL_USE_ID.fullmatch(str(use.get("toolUseId"))):
                    self.reject(f"Value at 'messages.{i}.member.content.{k}.member.toolUse.toolUseId' failed to satisfy constraint: "
                                "Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+")
                if use and not isinstance(use.get("input"), dict):
                    self.reject(f"The value at messages.{i}.content.{k}.toolUse.input is not a JSON object.")
            uses = [b["toolUse"]["toolUseId"] for b in message["content"] if "toolUse" in b]
            answered = [b["toolResult"]["toolUseId"] for b in messages[i + 1]["content"] if "toolResult" in b] if i + 1 < len(messages) else []
            if uses and i + 1 < len(messages) and sorted(uses) != sorted(answered):
                self.reject(f"Expected toolResult blocks at messages.{i + 1}.content for the following Ids: {', '.join(uses)}")
            results = [b["toolResult"]["toolUseId"] for b in message["content"] if "toolResult" in b]
            before = [b["toolUse"]["toolUseId"] for b in messages[i - 1]["content"] if "toolUse" in b] if i else []
            if results and sorted(results) != sorted(before):
                self.reject(f"The number of toolResult blocks at messages.{i}.content exceeds the number of toolUse blocks of previous turn.")
        if self.claude_reasoning and len(messages) > 1 and any("toolResult" in b for b in messages[-1]["content"]):
            first = messages[-2]["content"][0] if messages[-2]["content"] else {}
            if "reasoningContent" not in first:
                self.reject(f"messages.{len(messages) - 2}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
                            f"`{next(iter(first), None)}`. When `thinking` is enabled, a final `assistant` message must start with a thinking block.")

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        usage = self.usage(request, reply)
        text = reply.text if self.claude_reasoning else f"<thinking>{reply.reasoning}</thinking>\n{reply.text}"
        calls = [self.tool_call_dict(call) for call in reply.calls]
        stop_reason = "tool_use" if calls else "end_turn"
        if not stream:
            folded = f"<think>\n{reply.reasoning}\n</think>\n" if self.claude_reasoning and reply.reasoning else ""
            yield self.chunk(request, 0, content=folded + text, tool_calls=calls[-1:], usage=usage)
            return
        block = 0
        if self.claude_reasoning:
            for n, piece in enumerate(pieces(reply.reasoning, 20)):
                yield self.chunk(request, block + 1, content=("<think>\n" if n == 0 else "") + piece)
            yield self.chunk(request, block + 1, content="")  # the signature delta
            yield self.chunk(request, block + 2, content="\n</think>")
            block += 1
        for piece in pieces(text, 7):
            yield self.chunk(request, block + 1, content=piece)
        yield self.chunk(request, block + 1 + len(calls), tool_calls=calls, usage=usage, finish_reason=stop_reason)
