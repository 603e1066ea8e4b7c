"""A thinking model on Ollama through Dify's official Ollama model plugin (``qwen3:8b`` with
``think``).

Model plugin: ``langgenius/dify-official-plugins`` ``models/ollama/models/llm/llm.py``
(``OllamaLargeLanguageModel``, posting to Ollama's ``/api/chat``).

Request (``_generate``, ``_convert_prompt_message_to_dict``), as the newest version does: its
``llm.py`` is not in the index, but its tests are (``models/ollama/tests/test_llm.py`` at
dee150f32fb937943f96fd6d917b4a2b386e14d2, the commit adding the plugin's ``web_search`` and
``web_fetch`` tools), and they pin the message shapes; b646d2b… (the newest stored ``llm.py``)
sent an assistant message's content as it was and dropped its calls:

* an assistant message's ``<think>…</think>`` block goes as Ollama's ``thinking`` field, the text
  after it as ``content`` (``_split_thinking_from_content``), and its tool calls go back as
  ``{"function": {"name", "arguments": <object>}}`` (``json.loads`` of the arguments);
* a tool message becomes ``{"role": "tool", "content": ..., "tool_name": <tool_call_id>,
  "tool_call_id": ...}``: the plugin takes the call's id for the tool's name (the blocking id is
  the name; a streamed one is a position, ``"0"``);
* a user message with content parts becomes its (last) text plus ``images`` (base64); system
  and assistant contents go **unconverted** (a list of parts stays a list);
* ``think`` is a top-level field; the other parameters go in ``options`` (``stop`` too).

Chunks (``_handle_generate_stream_response``, ``_handle_generate_response``):

* streamed: ``message.thinking`` becomes content opened by ``<think>\\n``; the first content
  is prefixed ``\\n</think>``. When the model calls a tool without writing any content, the
  block is **never closed**. Text is cut in micro-chunks of about 16 characters at whitespace.
  Each packet holding ``tool_calls`` yields a chunk with content ``""``, **every** call merged
  so far (cumulative) and ``finish_reason`` ``tool_calls`` (no usage); Ollama sends no call
  id nor index, so the plugin numbers them: ids ``"0"``, ``"1"``… The ``done`` packet yields a
  last chunk: content ``""``, usage, ``finish_reason`` ``stop`` (even after tool calls).
* blocking: one chunk (``LLMResult``): ``message.content`` only (**the thinking is dropped**),
  tool calls with the function **name as id** and ``json.dumps`` arguments, usage.
* ``num_predict`` (an option) bounds what Ollama generates, thinking included: a reply that
  reaches it stops there with ``done_reason`` ``length`` (here: its thinking and text cut to
  ``num_predict`` estimated tokens, its calls dropped), which the plugin **does not pass on**
  (``stop`` streamed, none blocking); its usage's completion tokens are Ollama's ``eval_count``,
  then ``num_predict``.

What must come back: nothing Ollama checks: it renders the history through the model's template
and never pairs tool messages with calls. The reasoning reaches that template as ``thinking`` only
while the round's ``<think>`` block comes back whole at the start of its content.

The chunks below are b646d2b's (the newest stored stream handler).

Provider rules enforced (https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion):

* every message ``content`` is a string: otherwise ``400 json: cannot unmarshal array into Go
  struct field ChatRequest.messages.content of type string``
  (https://github.com/ollama/ollama/issues/10255, https://github.com/ollama/ollama/issues/6451);
* ``think`` only for models with the thinking capability: ``400 "<model>" does not support
  thinking`` (https://github.com/ollama/ollama/issues/14212).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, ClassVar

from local_runner.backends import estimate_prompt_tokens, estimate_tokens, make_usage
from local_runner.contracts.base import ContractBackend, PluginFailure, Reply, enum_value, pieces

THINKING_FAMILIES = ("qwen3", "deepseek-r1", "qwq", "gpt-oss", "magistral", "deepseek-v3.1")
"""Model families Ollama lists with the ``thinking`` capability (``qwen3-coder`` has none)."""

MICRO_CHUNK = 16

LEADING_THINK = re.compile(r"\s*<think>(.*?)</think>(.*)", re.DOTALL)
"""A content's leading reasoning block and the text after it (the plugin's
``_split_thinking_from_content``: ``<think>\\nr\\n</think>a`` is ``("r", "a")``)."""


def _common_prefix_length(a: str, b: str) -> int:
    """Length of the longest common prefix of ``a`` and ``b`` (characters)."""
    length = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        length += 1
    return length


def thinking_capable(model: str) -> bool:
    """Whether Ollama accepts ``think`` for ``model``."""
    name = model.split("/")[-1]
    return name.startswith(THINKING_FAMILIES) and not name.startswith("qwen3-coder")


def micro_chunks(text: str, size: int = MICRO_CHUNK, min_size: int = 4) -> list[str]:
    """The plugin's text splitting: whitespace-delimited tokens grouped up to about ``size``
    characters, flushed early after a newline once ``max(min_size, size // 2)`` long."""
    parts: list[str] = []
    buffer = ""
    for token in re.split(r"(\s+)", text):
        if not token:
            continue
        if buffer and len(buffer) + len(token) > size:
            parts.append(buffer)
            buffer = token
        else:
            buffer += token
        if "\n" in token and len(buffer) >= max(min_size, size // 2):
            parts.append(buffer)
            buffer = ""
    if buffer:
        parts.append(buffer)
    return parts


class OllamaContract(ContractBackend):
    """``qwen3:8b`` with ``think`` behind the official Ollama model plugin (see the module
    docstring)."""

    name = "ollama"
    plugin_source = "langgenius/dify-official-plugins models/ollama/models/llm/llm.py"
    provider_doc = "https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion"
    provider = "langgenius/ollama/ollama"
    model = "qwen3:8b"
    features = ("tool-call", "multi-tool-call", "stream-tool-call")
    """What the plugin's customizable schema declares with function calling on (stream tool
    calls unless the credential says otherwise)."""
    completion_params: ClassVar[dict[str, Any]] = {"think": True}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.cut_replies: list[Reply] = []
        """The brain's replies Ollama cut at ``num_predict`` (as the brain meant them)."""

    def generated(self, reply: Reply, request: dict[str, Any], think: bool) -> tuple[Reply, int, bool]:
        """``(what Ollama generates of reply, eval_count, whether num_predict cut it)``: the thinking
        (with ``think``), the text and the calls, counted in estimated tokens; past ``num_predict``
        the thinking and text are cut to it and the calls dropped."""
        thinking = reply.reasoning if think else ""
        calls = json.dumps([call.arguments for call in reply.calls]) if reply.calls else ""
        tokens = estimate_tokens(thinking + reply.text + calls)
        limit = (request.get("completion_params") or {}).get("num_predict")
        if type(limit) is not int or limit < 1 or tokens <= limit:
            return reply, tokens, False
        self.cut_replies.append(reply)
        kept = _prefix_within(thinking + reply.text, limit)
        return Reply(reasoning=kept[: len(thinking)], text=kept[len(thinking) :]), limit, True

    # -- request ----------------------------------------------------------------------------

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        options = dict(request.get("completion_params") or {})
        body: dict[str, Any] = {"model": request.get("model"), "stream": bool(request.get("stream", True))}
        for key in ("format", "keep_alive"):
            if key in options:
                body[key] = options.pop(key)
        think = options.pop("think", None)
        if think is not None:
            body["think"] = bool(think)
        if request.get("stop"):
            options["stop"] = request["stop"]
        body["options"] = options
        body["messages"] = [self._message(message) for message in request.get("prompt_messages") or []]
        if request.get("tools"):
            body["tools"] = [{"type": "function", "function": {"name": t.get("name"), "description": t.get("description"),
                                                               "parameters": t.get("parameters")}} for t in request["tools"]]
        return body

    @staticmethod
    def _message(message: dict[str, Any]) -> dict[str, Any]:
        role, content = enum_value(message.get("role")), message.get("content")
        if role == "user" and isinstance(content, list):
            text, images = "", []
            for part in content:
                if enum_value(part.get("type")) == "text":
                    text = part.get("data") or ""
                elif enum_value(part.get("type")) == "image":
                    images.append(re.sub(r"^data:image/[a-zA-Z]+;base64,", "", part.get("data") or ""))
            return {"role": "user", "content": text, "images": images}
        converted: dict[str, Any] = {"role": role, "content": content}
        if role == "tool":
            converted["tool_name"] = message.get("tool_call_id")
            converted["tool_call_id"] = message.get("tool_call_id")
        if role != "assistant":
            return converted
        if isinstance(content, str) and (block := LEADING_THINK.match(content)):
            converted = {"role": role, "content": block.group(2).strip(), "thinking": block.group(1).strip()}
        calls = []
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            try:
                arguments = json.loads(function.get("arguments") or "")
            except ValueError as error:
                raise PluginFailure(f"[ollama] {error}") from error
            calls.append({"function": {"name": function.get("name"), "arguments": arguments}})
        if calls:
            converted["tool_calls"] = calls
        return converted

    # -- provider rules ---------------------------------------------------------------------

    def check(self, body: dict[str, Any]) -> None:
        if body.get("think") and not thinking_capable(str(body.get("model") or "")):
            self.reject(f'"{body.get("model")}" does not support thinking')
        for message in body["messages"]:
            content = message.get("content")
            if content is not None and not isinstance(content, str):
                kind = "array" if isinstance(content, list) else "object"
                self.reject(f"json: cannot unmarshal {kind} into Go struct field ChatRequest.messages.content of type string")

    # -- chunks -----------------------------------------------------------------------------

    def packets(self, reply: Reply, think: bool, done_reason: str = "stop") -> list[dict[str, Any]]:
        """Ollama's NDJSON stream for ``reply``: thinking, content, one packet per tool call
        (arguments as an object), then ``done`` (with ``done_reason``)."""
        out: list[dict[str, Any]] = []
        if think:
            out += [{"message": {"role": "assistant", "content": "", "thinking": p}, "done": False} for p in pieces(reply.reasoning, 20)]
        out += [{"message": {"role": "assistant", "content": p}, "done": False} for p in pieces(reply.text, 9)]
        for call in reply.calls:
            tool_call = {"function": {"name": call.name, "arguments": dict(call.arguments)}}
            out.append({"message": {"role": "assistant", "content": "", "tool_calls": [tool_call]}, "done": False})
        out.append({"message": {"role": "assistant", "content": ""}, "done": True, "done_reason": done_reason})
        return out

    def plugin_stream(self, reply: Reply, request: dict[str, Any], think: bool) -> list[dict[str, Any]]:
        """The chunks the plugin yields for Ollama's packets (its stream handler re-stated)."""
        chunks: list[dict[str, Any]] = []
        index, state, full_text, tool_phase = 0, 0, "", False  # state: 0 no thinking yet, 1 in it, 2 after
        calls: dict[int, dict[str, Any]] = {}
        reply, eval_count, cut = self.generated(reply, request, think)
        for packet in self.packets(reply, think, "length" if cut else "stop"):
            message = packet["message"]
            text = message.get("content") or ""
            thinking = message.get("thinking")
            if thinking and state == 0:
                text, state = "<think>\n" + thinking, 1
            elif thinking and state == 1:
                text = thinking
            elif state == 1 and text:
                text, state = "\n</think>" + text, 2
            if message.get("tool_calls"):
                for call in message["tool_calls"]:
                    position = max(calls) + 1 if calls else 0  # Ollama sends no index
                    function = call.get("function") or {}
                    arguments = function.get("arguments")
                    calls[position] = {"id": call.get("id") or str(position), "type": "function",
                                       "function": {"name": function.get("name") or "",
                                                    "arguments": json.dumps(arguments, ensure_ascii=False)
                                                    if isinstance(arguments, dict | list) else str(arguments or "")}}
                tool_phase = True
                merged = [json.loads(json.dumps(calls[i])) for i in sorted(calls)]
                chunks.append(self.chunk(request, index, tool_calls=merged, finish_reason="tool_calls"))
                index += 1
            if text:
                if tool_phase:  # the plugin then takes text as cumulative: it yields what is new
                    new, full_text = text[_common_prefix_length(full_text, text) :], text
                else:
                    new = text
                    full_text += text
                for piece in micro_chunks(new):
                    chunks.append(self.chunk(request, index, content=piece))
                    index += 1
            if packet["done"]:
                usage = make_usage(estimate_prompt_tokens(request), eval_count, self.pricing)
                chunks.append(self.chunk(request, index, usage=usage, finish_reason="stop"))  # done_reason dropped
                break
        return chunks

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        think = bool((request.get("completion_params") or {}).get("think"))
        if stream:
            yield from self.plugin_stream(reply, request, think)
            return
        reply, eval_count, _ = self.generated(reply, request, think)
        calls = [{"id": c.name, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
                 for c in reply.calls]
        usage = make_usage(estimate_prompt_tokens(request), eval_count, self.pricing)
        yield self.chunk(request, 0, content=reply.text, tool_calls=calls, usage=usage)


def _prefix_within(text: str, tokens: int) -> str:
    """The longest start of ``text`` of at most ``tokens`` estimated tokens."""
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if estimate_tokens(text[:middle]) <= tokens:
            low = middle
        else:
            high = middle - 1
    return text[:low]
