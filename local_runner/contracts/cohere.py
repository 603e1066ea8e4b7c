"""Command R+ behind Dify's official Cohere model plugin (``command-r-plus-08-2024``, chat mode).

Model plugin: ``langgenius/dify-official-plugins`` ``models/cohere/models/llm/llm.py`` (commit
20272143c79eb1732f9342c71dcdc62ac5df1caa, the version whose ``_convert_tools`` falls back to
``type: "string"``, as ``tests/test_llm_convert_tools.py`` 1e658a7… pins; the newer of the two
stored). Not on the SDK's OpenAI-compatible base: it calls Cohere's v1 chat API through
``cohere.Client`` (``chat_stream`` / ``chat``) and converts both ways itself.

Request (``_chat_generate``, ``_convert_prompt_messages_to_message_and_chat_histories``):

* **one tool is refused by the plugin itself** ("Cohere tool call requires at least two tools to
  be specified.", a ``ValueError`` before any request); two or more become Cohere ``tools``
  (``parameter_definitions`` from the JSON Schema properties);
* system and user messages become ``USER`` entries of ``chat_history``, an assistant message
  *without* tool calls a ``CHATBOT`` entry (none when its content is empty); the **last** entry is
  popped and sent as ``message`` ("Prompt messages is empty" when there is none);
* an assistant message *with* tool calls adds nothing to ``chat_history`` (**its content is
  dropped**): each call becomes a ``tool_results`` item ``{"call": {"name", "parameters":
  json.loads(arguments)}, "outputs": []}``, the items of every such message of the request kept
  in one list;
* a tool message fills the outputs (``[{"result": content}]``) of the **first** item whose call's
  *name* equals its ``tool_call_id`` (filled or not), so ids are read as tool names; items left
  without outputs are dropped before the request. A tool called twice in a run therefore loses a
  result: under one id the second result overwrites the first call's, under ``name_2`` it pairs
  with nothing (``results_lost`` records both);
* ``stop`` as ``stop_sequences``; the node's parameters as they are.

Chunks (``_handle_chat_generate_stream_response``, ``_handle_chat_generate_response``):

* streamed: a chunk per ``text-generation`` event; the ``tool-calls-generation`` event's calls are
  kept and come whole on the ``stream-end`` chunk (content ``""``, Cohere's ``finish_reason``,
  ``COMPLETE`` even after calls, and usage). Each call's id is **the tool's name**.
* blocking: ``response.text`` and the calls (id = name).

Command R+ returns no reasoning; the plugin reads none. No ``opaque_body``.

What must come back: the calls (their names and arguments: Cohere pairs results with calls by
the call itself) and each tool message's id equal to its call's name. Provider rules
(https://docs.cohere.com/v1/reference/chat): ``message`` must not be empty unless ``tool_results``
are given ("message must be at least 1 token long or tool results must be specified."); and, in
the multi-step mode that is the API's default (the plugin never sets ``force_single_step``), not
both a ``message`` and ``tool_results`` ("invalid request: cannot specify both message and
tool_results in multistep mode", reported against this plugin's tool loop in langgenius/dify#5441
and against the v1 API in cohere-ai/cohere-python#525): the plugin always sends the user's message
beside the results, so **every request after a native tool call is refused**. Recorded, not
refused: ``results_lost`` (a tool message whose result did not reach its own call) and
``plugin_failures`` (the plugin's own errors).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, ClassVar

from local_runner.contracts.base import ContractBackend, PluginFailure, Reply, enum_value, pieces, text_of

ONE_TOOL_REFUSAL = "Cohere tool call requires at least two tools to be specified."
"""The plugin's ``ValueError`` for a request with exactly one tool."""
MULTISTEP_REFUSAL = "invalid request: cannot specify both message and tool_results in multistep mode"
"""Cohere's 400 for a request with both a ``message`` and ``tool_results`` (every tool loop of
this plugin: langgenius/dify#5441, cohere-ai/cohere-python#525)."""


class CohereContract(ContractBackend):
    """``command-r-plus-08-2024`` behind the official Cohere model plugin (see the module
    docstring)."""

    name = "cohere"
    plugin_source = "langgenius/dify-official-plugins models/cohere/models/llm/llm.py"
    provider_doc = "https://docs.cohere.com/v1/reference/chat"
    provider = "langgenius/cohere/cohere"
    model = "command-r-plus-08-2024"
    features = ("tool-call", "multi-tool-call", "stream-tool-call", "agent-thought")
    completion_params: ClassVar[dict[str, Any]] = {}
    reasoning = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.results_lost: list[str] = []
        self.plugin_failures: list[str] = []
        self._origins: list[str] = []

    def fail(self, message: str) -> None:
        """The plugin's own error (recorded in ``plugin_failures``)."""
        self.plugin_failures.append(message)
        raise PluginFailure(f"[{self.name}] {message}")

    # -- request ----------------------------------------------------------------------------

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        tools = request.get("tools") or []
        if len(tools) == 1:
            self.fail(ONE_TOOL_REFUSAL)
        history, results = self._convert(request.get("prompt_messages") or [])
        if not history:
            self.fail("Prompt messages is empty")
        body: dict[str, Any] = {
            "model": self.model,
            "message": history.pop()["message"],
            "chat_history": history,
            "stream": bool(request.get("stream", True)),
            **dict(request.get("completion_params") or {}),
        }
        filled = [item for item in results if item["outputs"]]
        if filled:
            body["tool_results"] = filled
        if tools:
            body["tools"] = [self._tool(t) for t in tools]
        if request.get("stop"):
            body["stop_sequences"] = request["stop"]
        return body

    def _convert(self, messages: list[dict[str, Any]]) -> tuple[list[dict[str, str]], list[dict[str, Any]]]:
        """The plugin's ``_convert_prompt_messages_to_message_and_chat_histories`` before the last
        entry is popped: (``chat_history`` entries, ``tool_results`` items, filled or not). Keeps
        the role each entry came from in ``_origins`` (for the brain's view)."""
        history: list[dict[str, str]] = []
        origins: list[str] = []
        results: list[dict[str, Any]] = []
        for message in messages:
            role, content = enum_value(message.get("role")), message.get("content")
            if role == "assistant" and message.get("tool_calls"):
                results += [{"call": self._call(call), "outputs": []} for call in message["tool_calls"]]
            elif role == "tool":
                self._fill(results, message)
            elif role == "assistant" and content:
                if not isinstance(content, str):
                    self.fail("1 validation error for ChatMessage: message: str type expected")
                history.append({"role": "CHATBOT", "message": content})
                origins.append(role)
            elif role in ("user", "system"):
                history.append({"role": "USER", "message": content if isinstance(content, str) else text_of(content)})
                origins.append(role)
        self._origins = origins
        return history, results

    def _call(self, call: dict[str, Any]) -> dict[str, Any]:
        """A replayed tool call as the plugin's ``ToolCall(name, parameters=json.loads(arguments))``."""
        function = call.get("function") or {}
        try:
            parameters = json.loads(function.get("arguments") or "")
        except ValueError as error:
            self.fail(f"Expecting value: {error}")
        return {"name": function.get("name"), "parameters": parameters}

    @staticmethod
    def _tool(tool: dict[str, Any]) -> dict[str, Any]:
        """The plugin's ``_convert_tools``: each property a parameter definition (its description,
        ``enum`` folded in; its type, ``string`` when it has none; whether it is required)."""
        parameters = tool.get("parameters") or {}
        required = parameters.get("required") or []
        definitions = {}
        for key, schema in (parameters.get("properties") or {}).items():
            description = schema.get("description") or ""
            if "enum" in schema:
                description += f"; Only accepts one of the following predefined options: [{', '.join(schema['enum'])}]"
            definitions[key] = {"description": description, "type": schema.get("type", "string"), "required": key in required}
        return {"name": tool.get("name"), "description": tool.get("description"), "parameter_definitions": definitions}

    def _fill(self, results: list[dict[str, Any]], message: dict[str, Any]) -> None:
        """The plugin's pairing: the first call named as the tool message's id gets its output."""
        call_id, content = message.get("tool_call_id"), message.get("content")
        for item in results:
            if item["call"]["name"] == call_id:
                if item["outputs"]:
                    self.results_lost.append(f"{call_id}: overwrote the result of an earlier call")
                item["outputs"] = [{"result": content}]
                return
        self.results_lost.append(f"{call_id}: no call named so")

    # -- provider rules ---------------------------------------------------------------------

    def check(self, body: dict[str, Any]) -> None:
        if not str(body.get("message") or "").strip() and not body.get("tool_results"):
            self.reject("invalid request: message must be at least 1 token long or tool results must be specified.")
        if body.get("tool_results") and body.get("message") and not body.get("force_single_step"):
            self.reject(MULTISTEP_REFUSAL)

    def brain_view(self, request: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        """What Command R+ reads: the history, the message, then each tool result (an entry the
        plugin made of a system message keeps that role here, so that the brain tells the
        instructions from the conversation)."""
        messages = [{"role": origin, "content": m["message"]}
                    for origin, m in zip(self._origins, body["chat_history"], strict=False)]
        messages.append({"role": self._origins[-1] if self._origins[-1] == "system" else "user", "content": body["message"]})
        for item in body.get("tool_results") or []:
            messages.append({"role": "tool", "content": str(item["outputs"][0]["result"])})
        return {**request, "prompt_messages": messages}

    # -- chunks -----------------------------------------------------------------------------

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        calls = [self.tool_call_dict(c) | {"id": c.name} for c in reply.calls]
        usage = self.usage(request, reply)
        if not stream:
            yield self.chunk(request, 0, content=reply.text, tool_calls=calls, usage=usage)
            return
        index = 1
        for text in pieces(reply.text, 9):
            yield self.chunk(request, index, content=text)
            index += 1
        yield self.chunk(request, index, content="", tool_calls=calls, usage=usage, finish_reason="COMPLETE")
