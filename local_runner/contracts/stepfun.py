"""Step 3.7 Flash behind Dify's official StepFun model plugin (``step-3.7-flash``, reasoning on).

Model plugin: ``langgenius/dify-official-plugins`` ``models/stepfun/models/llm/llm.py`` (commit
23ce2fa7e3e3e9debac6aa90b8290915c5524965, the version that sends ``reasoning_format:
"deepseek-style"`` for ``step-3.7-flash``, so that the reasoning comes as ``reasoning_content``) on
the SDK's OpenAI-compatible base, with a stream handler of its own.

Request (the plugin's ``_convert_prompt_message_to_dict``): as the SDK base: an assistant message
goes as ``{"role": "assistant", "content": <as received>, "tool_calls": [...]}`` (its ``<think>``
block included; no ``reasoning_content`` is sent), a tool message as ``{"role": "tool", "content",
"tool_call_id"}``; nothing merged. ``user`` cut to 32 characters.

Chunks (``_handle_generate_stream_response``, the SDK's ``_wrap_thinking_by_reasoning_content``):

* streamed: ``reasoning_content`` deltas become content opened by ``<think>\\n``; the first delta
  without reasoning closes the block (``\\n</think>``, and its text). A delta whose content comes
  out empty yields nothing, but **a delta that yields content carries that delta's own tool
  calls**: the first tool-call delta after the reasoning yields the chunk ``\\n</think>`` with the
  call as that delta had it (its id and name; the arguments that delta carried, ``""`` when the
  server streams them after, the whole arguments when it sends a call in one delta). The calls
  are merged **by function name** (a delta without a name extends the last call; a second call
  of the same tool in one reply is glued onto the first: arguments appended, the later id kept)
  and sent again, complete, in one chunk after the stream; then a last chunk with the last
  ``finish_reason`` and usage. A block left open at the end is never closed. No ``opaque_body``.
* blocking: the SDK base's ``_handle_generate_response``: the content and the calls; the
  reasoning dropped.

What must come back: the call ids (StepFun pairs results by id, OpenAI-style). Provider rules
enforced: OpenAI-style tool pairing; an assistant message needs content or calls
(https://platform.stepfun.com/docs/api-reference/chat/chat-completion-create).

``StepFunWholeCallContract``: the same plugin in front of a server that sends each call whole in
its first delta (id, name and all the arguments), so the ``\\n</think>`` chunk already carries the
complete call, which the last chunk repeats.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from local_runner.contracts.base import BrainCall, Reply, pieces
from local_runner.contracts.openai_compatible import _wrap
from local_runner.contracts.sdk_base import SDKBaseContract


class StepFunContract(SDKBaseContract):
    """``step-3.7-flash`` behind the official StepFun model plugin (see the module docstring)."""

    name = "stepfun"
    plugin_source = "langgenius/dify-official-plugins models/stepfun/models/llm/llm.py"
    provider_doc = "https://platform.stepfun.com/docs/api-reference/chat/chat-completion-create"
    provider = "langgenius/stepfun/stepfun"
    model = "step-3.7-flash"
    features = ("agent-thought", "tool-call", "multi-tool-call", "stream-tool-call")
    completion_params: ClassVar[dict[str, Any]] = {}
    whole_calls = False
    """Whether the server sends each call whole in one delta."""

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        body = super().to_provider(request)
        body["reasoning_format"] = "deepseek-style"  # the plugin's, for step-3.7-flash
        return body

    @staticmethod
    def merged(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The plugin merges nothing."""
        return messages

    def check_roles(self, body: dict[str, Any]) -> None:
        """StepFun takes consecutive messages of one role."""

    @staticmethod
    def call_id(call: BrainCall) -> str:
        """StepFun's id for a tool call."""
        return f"call_{call.id}"

    def packets(self, reply: Reply, request: dict[str, Any]) -> list[dict[str, Any]]:
        """StepFun's server-sent events (a call's arguments in pieces after its first delta, or
        whole in it when ``whole_calls``)."""
        if not self.whole_calls:
            return super().packets(reply, request)

        def event(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        out = [event({"reasoning_content": piece}) for piece in pieces(reply.reasoning, 24)]
        out += [event({"content": piece}) for piece in pieces(reply.text, 7)]
        out += [event({"tool_calls": [{"index": index, "id": self.call_id(call), "type": "function",
                                       "function": {"name": call.name, "arguments": json.dumps(call.arguments)}}]})
                for index, call in enumerate(reply.calls)]
        out.append(event({"content": ""}, reply.finish_reason))
        return out

    def plugin_stream(self, reply: Reply, request: dict[str, Any]) -> list[dict[str, Any]]:
        """The chunks the plugin's own stream handler yields for StepFun's events (re-stated)."""
        chunks: list[dict[str, Any]] = []
        index, reasoning, merged, finish = 0, False, [], "Unknown"
        for packet in self.packets(reply, request):
            if not packet["choices"]:
                continue
            choice = packet["choices"][0]
            finish = choice.get("finish_reason")
            index += 1
            delta = choice["delta"]
            text, reasoning = _wrap(delta, reasoning)
            own = [_extracted(raw) for raw in delta.get("tool_calls") or []]
            for call in own:
                _merge_by_name(merged, call)
            if not text:
                continue
            chunks.append(self.chunk(request, index, content=text, tool_calls=own))
            index += 1
        if merged:
            chunks.append(self.chunk(request, index, tool_calls=merged))
        chunks.append(self.chunk(request, index, usage=self.usage(request, reply), finish_reason=finish))
        return chunks


class StepFunWholeCallContract(StepFunContract):
    """The StepFun plugin in front of a server that sends each call whole in one delta (see the
    module docstring)."""

    name = "stepfun_whole_calls"
    whole_calls = True


def _extracted(raw: dict[str, Any]) -> dict[str, Any]:
    """The plugin's ``_extract_response_tool_calls`` for one raw delta (missing fields ``""``)."""
    function = raw.get("function") or {}
    return {"id": raw.get("id") or "", "type": raw.get("type") or "",
            "function": {"name": function.get("name") or "", "arguments": function.get("arguments") or ""}}


def _merge_by_name(calls: list[dict[str, Any]], new: dict[str, Any]) -> None:
    """The plugin's ``increase_tool_call``: a delta's call found by its function name (a nameless
    one extends the last call); its id and type replace, its arguments append."""
    name = new["function"]["name"]
    if not name:
        target = calls[-1]
    else:
        target = next((c for c in calls if c["function"]["name"] == name), None)
        if target is None:
            target = {"id": "", "type": "", "function": {"name": name, "arguments": ""}}
            calls.append(target)
    if new["id"]:
        target["id"] = new["id"]
    if new["type"]:
        target["type"] = new["type"]
    target["function"]["arguments"] += new["function"]["arguments"]
