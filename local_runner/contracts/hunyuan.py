"""Tencent Hunyuan behind Dify's official Hunyuan model plugin (``hunyuan-turbos-latest``).

Model plugin: ``langgenius/dify-official-plugins`` ``models/hunyuan/models/llm/llm.py`` (commit
a4655df58023174a0021ffedd83cb7552b27d0a3). Not on the SDK's OpenAI-compatible base: it calls
Tencent Cloud's ``ChatCompletions`` through ``tencentcloud-sdk-python``, whose fields are
capitalised (``Role``, ``Content``, ``ToolCalls``, ``ToolCallId``).

Request (``_convert_prompt_messages_to_dicts``):

* an assistant message with tool calls goes as ``{"Role", "Content": " ", "ToolCalls": [{"Id",
  "Type", "Function": {"Name", "Arguments"}}]}``: its **content is replaced by a space**, and
  each call's ``Arguments`` is ``"{}"`` unless they were ``""`` (an inverted condition: the
  arguments the model wrote never go back); ids are kept;
* an assistant message without calls, a system message and a user message with a string content
  go as ``{"Role", "Content"}``; a user message with parts as ``{"Role", "Contents": [...]}``;
* a tool message as ``{"Role": "tool", "Content": json.dumps({"result": <content>}),
  "ToolCallId"}`` (a content that is not JSON-serialisable makes the plugin fail);
* tools as ``{"Type": "function", "Function": {"Name", "Description", "Parameters": <JSON
  text>}}`` with ``ToolChoice: "auto"``; ``Stop`` and ``Stream`` always sent.

Chunks (``_handle_stream_chat_response``, ``_handle_chat_response``):

* streamed: one chunk per Hunyuan event, ``index`` the event's number, ``tool_calls`` empty
  except on the finish event. A call is taken as soon as it has a name and any arguments (a call
  whose arguments come in pieces is cut at its first piece: see the unit test of the thirteenth
  pass); calls collected so far go out on the event whose ``FinishReason`` is ``tool_calls``,
  with usage. Hunyuan sends a call whole in one delta (``Id``, ``Type``, ``Function``), which
  the plugin passes on whole. ``ReasoningContent`` is never read: no reasoning reaches the
  strategy.
* blocking: the content only. **The tool calls of a blocking reply are dropped** (the
  ``LLMResult`` is built without them), so Function Calling cannot run a tool on a blocking
  reply: it asks for one only when the model lacks ``stream-tool-call``.

What must come back: the call ids (each ``tool`` message is paired with the ``ToolCalls`` of the
assistant message before it). The arguments and the content of a tool-call round cannot come
back: the plugin replaces them.

Provider rules enforced (https://cloud.tencent.com/document/api/1729/105701, ``Messages``): a
system message only first; after it user (or tool) and assistant messages alternate, starting
with user and ending with user or tool, tool messages possibly several in a row; ``Content`` not
empty; a tool message answers a ``ToolCalls`` id of the assistant message before it, and every
such id is answered.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from typing import Any, ClassVar

from local_runner.contracts.base import (
    BrainCall,
    ContractBackend,
    PluginFailure,
    Reply,
    check_tool_pairing,
    enum_value,
    pieces,
)

_MAY_FOLLOW: dict[str, tuple[str | None, ...]] = {
    "user": (None, "assistant"),
    "assistant": ("user", "tool"),
    "tool": ("assistant", "tool"),
}
"""The roles each role may come after in Hunyuan's ``Messages`` (None: first after the system)."""


class HunyuanContract(ContractBackend):
    """``hunyuan-turbos-latest`` behind the official Hunyuan model plugin (see the module docstring)."""

    name = "hunyuan"
    plugin_source = "langgenius/dify-official-plugins models/hunyuan/models/llm/llm.py"
    provider_doc = "https://cloud.tencent.com/document/api/1729/105701"
    provider = "langgenius/hunyuan/hunyuan"
    model = "hunyuan-turbos-latest"
    features = ("agent-thought", "tool-call", "multi-tool-call", "stream-tool-call")
    completion_params: ClassVar[dict[str, Any]] = {}
    reasoning = False
    """The plugin never reads ``ReasoningContent``: no reply carries reasoning."""
    blocking_calls = False
    """A blocking reply loses its tool calls in the plugin (see the module docstring)."""

    # -- request ----------------------------------------------------------------------------

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        params = request.get("completion_params") or {}
        body: dict[str, Any] = {
            "Model": request.get("model"),
            "Messages": [self._message(m) for m in request.get("prompt_messages") or []],
            "Stop": request.get("stop"),
            "Stream": bool(request.get("stream", True)),
            "Temperature": params.get("temperature", 0.0),
            "TopP": params.get("top_p", 1.0),
            "EnableEnhancement": params.get("enable_enhance", True),
        }
        if request.get("tools"):
            body["ToolChoice"] = "auto"
            body["Tools"] = [{"Type": "function", "Function": {"Name": t.get("name"), "Description": t.get("description"),
                                                               "Parameters": json.dumps(t.get("parameters"))}}
                             for t in request["tools"]]
        return body

    @staticmethod
    def _message(message: dict[str, Any]) -> dict[str, Any]:
        role, content = enum_value(message.get("role")), message.get("content")
        if role == "assistant" and message.get("tool_calls"):
            calls = []
            for call in message["tool_calls"]:
                function = call.get("function") or {}
                arguments = function.get("arguments")
                calls.append({"Id": call.get("id"), "Type": call.get("type"),
                              "Function": {"Name": function.get("name"), "Arguments": arguments if arguments == "" else "{}"}})
            return {"Role": role, "Content": " ", "ToolCalls": calls}
        if role == "tool":
            try:
                text = json.dumps({"result": content}, ensure_ascii=False)
            except TypeError as error:
                raise PluginFailure(f"[hunyuan] {error}") from None
            return {"Role": role, "Content": text, "ToolCallId": message.get("tool_call_id")}
        if role == "user" and not isinstance(content, str):
            parts = [{"Type": "text", "Text": p.get("data")} if p.get("type") == "text"
                     else {"Type": "image_url", "ImageUrl": {"Url": p.get("data")}}
                     for p in content or [] if p.get("type") in ("text", "image")]
            return {"Role": role, "Contents": parts}
        return {"Role": role, "Content": content}

    # -- provider rules ---------------------------------------------------------------------

    def check(self, body: dict[str, Any]) -> None:
        messages = body["Messages"]
        roles = [m["Role"] for m in messages]
        if "system" in roles[1:]:
            self.reject("InvalidParameter: Messages: system must come first")
        before = None
        for role in (role for role in roles if role != "system"):
            if before not in _MAY_FOLLOW.get(role, ()):
                self.reject(f"InvalidParameter: Messages: {role} after {before or 'the start'}: "
                            "user (tool) and assistant must alternate, starting with user")
            before = role
        if before not in ("user", "tool"):
            self.reject("InvalidParameter: Messages must end with user or tool")
        for message in messages:
            if "Contents" not in message and not message.get("Content"):  # the plugin's " " passes
                self.reject("InvalidParameter: Messages: Content must not be empty")
        view = [{"role": m["Role"], "tool_call_id": m.get("ToolCallId"),
                 "tool_calls": [{"id": c["Id"]} for c in m.get("ToolCalls") or []]} for m in messages]
        check_tool_pairing(self, view)

    # -- chunks -----------------------------------------------------------------------------

    @staticmethod
    def call_id(call: BrainCall) -> str:
        """Hunyuan's id for a tool call (``call_`` and hex digits)."""
        return f"call_{zlib.crc32(call.id.encode()):08x}{zlib.adler32(call.id.encode()):08x}"

    def plugin_stream(self, reply: Reply, request: dict[str, Any]) -> list[dict[str, Any]]:
        """The chunks the plugin yields for Hunyuan's events: a chunk per text event, one for the
        event that brings the calls (their text emptied, no calls yet), and the finish event's
        chunk with every call, usage and ``finish_reason``."""
        texts = pieces(reply.text, 6)
        chunks = [self.chunk(request, index, content=text) for index, text in enumerate(texts)]
        index = len(texts)
        if reply.calls:
            chunks.append(self.chunk(request, index, content=""))
            index += 1
        calls = [self.tool_call_dict(c) | {"id": self.call_id(c)} for c in reply.calls]
        chunks.append(self.chunk(request, index, tool_calls=calls, usage=self.usage(request, reply),
                                 finish_reason=reply.finish_reason))
        return chunks

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        if stream:
            yield from self.plugin_stream(reply, request)
            return
        yield self.chunk(request, 0, content=reply.text, usage=self.usage(request, reply))
