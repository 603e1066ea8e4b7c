"""Model backends: what answers the plugin's backwards ``llm`` invocations (protocol §1.5).

Interface (duck-typed, see ``LLMBackend``): ``invoke_llm(request) -> Iterator[chunk]`` where
``request`` is the backwards ``llm`` request body ``{provider, model, model_type, mode,
completion_params, prompt_messages, tools, stop, stream}`` and every yielded ``chunk`` is an
``LLMResultChunk`` JSON dict::

    {"model": str, "prompt_messages": [], "system_fingerprint": "",
     "delta": {"index": int,
               "message": {"role": "assistant", "content": str, "name": "",
                           "tool_calls": [...], "tool_call_id": ""},
               "usage": None | <12-field LLMUsage dict, prices as decimal strings>,
               "finish_reason": None | str}}

An exception raised by the backend becomes the daemon's ``error`` event.
"""

from __future__ import annotations

import json
import math
import re
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any, Protocol

import yaml


class LLMBackend(Protocol):
    """Anything that can answer a backwards ``llm`` invocation with a stream of chunks."""

    def invoke_llm(self, request: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """Answer one backwards ``llm`` request with ``LLMResultChunk`` dicts."""
        ...


# ---------------------------------------------------------------------------------------------
# Usage and chunk shapes


@dataclass(frozen=True)
class Pricing:
    """A model's price list, as in ``AIModelEntity.pricing`` (Dify's convention: ``n`` tokens
    cost ``n * price * unit``; input 0.15 with unit 0.000001 = 0.15 USD per million tokens)."""

    input: Decimal = Decimal("0.15")
    output: Decimal = Decimal("0.6")
    unit: Decimal = Decimal("0.000001")
    currency: str = "USD"

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Pricing:
        """Build from an ``AIModelEntity.pricing`` dict (numbers or strings); ``None`` = default."""
        if not data:
            return cls()
        return cls(
            input=Decimal(str(data.get("input", cls.input))),
            output=Decimal(str(data.get("output", cls.output))),
            unit=Decimal(str(data.get("unit", cls.unit))),
            currency=str(data.get("currency", cls.currency)),
        )

    def to_dict(self) -> dict[str, str]:
        """The ``AIModelEntity.pricing`` JSON: ``{input, output, unit, currency}`` as strings."""
        return {
            "input": decimal_str(self.input),
            "output": decimal_str(self.output),
            "unit": decimal_str(self.unit),
            "currency": self.currency,
        }


FREE = Pricing(Decimal(0), Decimal(0), Decimal("0.000001"), "USD")
_PRICE_QUANTUM = Decimal("0.0000001")


def decimal_str(value: Decimal) -> str:
    """A decimal as the Go daemon prints it: plain notation, never exponent (``"0.00000063"``)."""
    return format(value, "f")


def price(tokens: int, unit_price: Decimal, unit: Decimal) -> Decimal:
    """Dify's price of ``tokens`` tokens: ``tokens * unit_price * unit`` rounded half-up to 1e-7."""
    return (Decimal(tokens) * unit_price * unit).quantize(_PRICE_QUANTUM, rounding=ROUND_HALF_UP)


def make_usage(
    prompt_tokens: int,
    completion_tokens: int,
    pricing: Pricing = Pricing(),
    latency: float = 0.0,
) -> dict[str, Any]:
    """A complete ``LLMUsage`` dict (all 12 fields; prices as decimal strings, latency in s)."""
    prompt_price = price(prompt_tokens, pricing.input, pricing.unit)
    completion_price = price(completion_tokens, pricing.output, pricing.unit)
    return {
        "prompt_tokens": prompt_tokens,
        "prompt_unit_price": decimal_str(pricing.input),
        "prompt_price_unit": decimal_str(pricing.unit),
        "prompt_price": decimal_str(prompt_price),
        "completion_tokens": completion_tokens,
        "completion_unit_price": decimal_str(pricing.output),
        "completion_price_unit": decimal_str(pricing.unit),
        "completion_price": decimal_str(completion_price),
        "total_tokens": prompt_tokens + completion_tokens,
        "total_price": decimal_str(prompt_price + completion_price),
        "currency": pricing.currency,
        "latency": round(latency, 3),
    }


def make_chunk(
    model: str,
    index: int,
    *,
    content: str = "",
    tool_calls: list[dict[str, Any]] | None = None,
    usage: dict[str, Any] | None = None,
    finish_reason: str | None = None,
) -> dict[str, Any]:
    """One ``LLMResultChunk`` dict (shape in the module docstring)."""
    return {
        "model": model,
        "prompt_messages": [],
        "system_fingerprint": "",
        "delta": {
            "index": index,
            "message": assistant_message(content=content, tool_calls=tool_calls or []),
            "usage": usage,
            "finish_reason": finish_reason,
        },
    }


def assistant_message(**fields: Any) -> dict[str, Any]:
    """An ``AssistantPromptMessage`` dict with every field present; ``fields`` override."""
    return {"role": "assistant", "content": "", "name": "", "tool_calls": [], "tool_call_id": "", **fields}


def tool_call(call_id: str, name: str, arguments: str | dict[str, Any]) -> dict[str, Any]:
    """A complete tool call as model plugins emit it; dict ``arguments`` are JSON-encoded."""
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


# ---------------------------------------------------------------------------------------------
# Token estimates (when neither script nor server gives usage)


def estimate_tokens(text: str) -> int:
    """Rough token count of ``text``: one token per 4 characters, at least 1 for non-empty text."""
    return math.ceil(len(text) / 4)


def content_text(content: Any) -> str:
    """The text of a prompt message ``content``: a string, or the ``text`` parts of a list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("data", "") for part in content if part.get("type") == "text")
    return ""


def estimate_prompt_tokens(request: dict[str, Any]) -> int:
    """Rough prompt size of a backwards ``llm`` request: its messages, tool calls and tools,
    plus 4 tokens of framing per message."""
    total = 0
    for message in request.get("prompt_messages") or []:
        total += 4 + estimate_tokens(content_text(message.get("content")))
        for call in message.get("tool_calls") or []:
            total += estimate_tokens(json.dumps(call.get("function", {})))
    for tool in request.get("tools") or []:
        total += estimate_tokens(json.dumps(tool))
    return total


def estimate_completion_tokens(chunks: Iterable[dict[str, Any]]) -> int:
    """Rough size of an answer: the content and tool-call JSON of all ``chunks``."""
    total = 0
    for chunk in chunks:
        message = chunk["delta"]["message"]
        total += estimate_tokens(content_text(message.get("content")))
        total += sum(estimate_tokens(json.dumps(call)) for call in message.get("tool_calls") or [])
    return total


# ---------------------------------------------------------------------------------------------
# Scripted backend


class ScriptError(ValueError):
    """A scripted turn is malformed, or the script has no turn left."""


class ScriptedModelError(RuntimeError):
    """Raised on purpose by an ``{"error": ...}`` turn (becomes the daemon's ``error`` event)."""


_SHORTHAND_KEYS = {"text", "tool_calls", "split"}
_COMMON_KEYS = {"usage", "finish_reason", "error", "hang", "delay"}


def validate_turn(turn: Any, number: int) -> dict[str, Any]:
    """Check one scripted turn (format in ``ScriptedBackend``); ``number`` (1-based) names it
    in errors. Returns the turn unchanged."""
    if not isinstance(turn, dict):
        raise ScriptError(f"turn {number}: expected a mapping, got {type(turn).__name__}")
    unknown = set(turn) - _SHORTHAND_KEYS - _COMMON_KEYS - {"chunks"}
    if unknown:
        raise ScriptError(f"turn {number}: unknown keys {sorted(unknown)}")
    if "chunks" in turn and _SHORTHAND_KEYS & set(turn):
        raise ScriptError(f"turn {number}: 'chunks' cannot be combined with {sorted(_SHORTHAND_KEYS & set(turn))}")
    if "chunks" in turn and not isinstance(turn["chunks"], list):
        raise ScriptError(f"turn {number}: 'chunks' must be a list of delta dicts")
    if turn.get("split") is not None and int(turn["split"]) < 1:
        raise ScriptError(f"turn {number}: 'split' must be >= 1")
    return turn


def load_turns(source: str | Path | list[Any] | dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Read a turns script: a list of turns, or ``{"turns": [...], "pricing": {...}}``, given
    inline or as a YAML/JSON file path. Returns ``(turns, pricing dict or None)``."""
    data: Any = source
    if isinstance(source, (str, Path)):
        data = yaml.safe_load(Path(source).read_text(encoding="utf-8"))
    pricing = None
    if isinstance(data, dict):
        pricing = data.get("pricing")
        data = data.get("turns")
    if not isinstance(data, list):
        raise ScriptError(
            f"a turns script must be a list of turns (or a mapping with 'turns'), got {type(data).__name__}"
        )
    return [validate_turn(turn, n) for n, turn in enumerate(data, start=1)], pricing


class ScriptedBackend:
    """Replays recorded model turns, one per backwards ``llm`` invocation, in order.

    A turn is one of:

    * shorthand ``{"text": str, "tool_calls": [{"id", "name", "arguments": str|dict}],
      "split": K}``: text split into chunks of K characters (default: one chunk), then one
      chunk with every complete tool call, then a final empty chunk carrying ``usage`` and
      ``finish_reason`` (default "tool_calls" if there are calls, else "stop");
    * raw ``{"chunks": [delta, ...]}``: each ``delta`` is passed through as given
      (``{"content", "tool_calls", "finish_reason", "usage", "index"}`` or
      ``{"message": {...}}``; tool calls exactly as written: with or without
      index/id, argument fragments...; the daemon then re-serializes them as the Go daemon
      does, see ``protocol.daemon_chunk``); the turn's ``usage``/``finish_reason`` go on the
      last chunk unless it has its own;
    * ``{"error": "message"}``: raise (after any chunks of the turn) -> ``error`` event
      "invoke llm model failed: message";
    * ``{"hang": true}``: never finish (after any chunks), until ``release()``;
    * ``{"delay": seconds}``: wait before the first chunk (combinable with all of the above).

    ``usage``: absent -> estimated from the request and the answer; ``null`` -> no usage at
    all; ``{"prompt_tokens": N, "completion_tokens": M, ...}`` -> completed to all 12 fields
    from ``pricing`` (explicit fields win). ``finish_reason: null`` sends none.

    Every request is recorded in ``requests`` (in arrival order, thread-safe).
    """

    def __init__(self, turns: list[dict[str, Any]], *, pricing: Pricing = Pricing()) -> None:
        self._turns = [validate_turn(turn, n) for n, turn in enumerate(turns, start=1)]
        self._next = 0
        self._lock = threading.Lock()
        self._released = threading.Event()
        self.pricing = pricing
        self.requests: list[dict[str, Any]] = []

    @classmethod
    def from_file(cls, path: str | Path, *, pricing: Pricing | None = None) -> ScriptedBackend:
        """Load turns from a YAML/JSON file (see ``load_turns``); ``pricing`` overrides the file's."""
        turns, file_pricing = load_turns(path)
        return cls(turns, pricing=pricing or Pricing.from_dict(file_pricing))

    @property
    def remaining(self) -> int:
        """Number of turns not yet played."""
        return len(self._turns) - self._next

    def assert_complete(self) -> None:
        """Raise ``AssertionError`` unless every turn was played."""
        if self.remaining:
            raise AssertionError(
                f"scripted model: {self.remaining} of {len(self._turns)} turns were never requested "
                f"(the plugin made {len(self.requests)} LLM calls)"
            )

    def release(self) -> None:
        """Let every hanging turn (``{"hang": true}``) finish without further chunks."""
        self._released.set()

    def invoke_llm(self, request: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """Record ``request`` and return the next turn's chunk stream.

        Raises ``ScriptError`` when the script has no turn left.
        """
        with self._lock:
            self.requests.append(request)
            if self._next >= len(self._turns):
                raise ScriptError(
                    f"scripted model has no turn left: the plugin made LLM call #{len(self.requests)} "
                    f"but the script has only {len(self._turns)} turns"
                )
            turn = self._turns[self._next]
            self._next += 1
        return self._play(turn, request, time.monotonic())

    def _play(self, turn: dict[str, Any], request: dict[str, Any], started: float) -> Iterator[dict[str, Any]]:
        if turn.get("delay"):
            time.sleep(float(turn["delay"]))
        model = str(request.get("model", ""))
        final = "error" not in turn and not turn.get("hang")
        deltas = _raw_deltas(turn, final) if "chunks" in turn else iter(_shorthand_deltas(turn, final))
        latency = time.monotonic() - started
        # each delta is built as it is sent (200,000 chunks built first held the runner, and every
        # session it serves, for seconds); the last is held back to carry the turn's usage
        last, has_calls, completion = None, False, 0
        for delta in deltas:
            if last is not None:
                yield {"model": model, "prompt_messages": [], "system_fingerprint": "", "delta": last}
            last = delta
            if final:
                has_calls = has_calls or bool(delta["message"]["tool_calls"])
                completion += estimate_completion_tokens(({"delta": delta},))
        if last is not None:
            if final:
                self._finish(turn, last, has_calls, completion, request, latency)
            yield {"model": model, "prompt_messages": [], "system_fingerprint": "", "delta": last}
        if "error" in turn:
            raise ScriptedModelError(str(turn["error"]))
        if turn.get("hang"):
            self._released.wait()

    def _finish(
        self, turn: dict[str, Any], last: dict[str, Any], has_calls: bool, completion: int,
        request: dict[str, Any], latency: float,
    ) -> None:
        """Put the turn's usage and finish_reason on its ``last`` delta unless it has its own
        (absent = default/estimate, explicit ``None`` = leave empty). ``has_calls``: whether a
        delta of the turn holds tool calls; ``completion``: the turn's estimated completion
        tokens; ``latency``: seconds from the request to the first chunk."""
        if last["finish_reason"] is None:
            last["finish_reason"] = turn.get("finish_reason", "tool_calls" if has_calls else "stop")
        if last["usage"] is None and not ("usage" in turn and turn["usage"] is None):
            last["usage"] = self._usage(turn.get("usage") or {}, request, completion, latency)

    def _usage(self, given: dict[str, Any], request: dict[str, Any], estimate: int, latency: float) -> dict[str, Any]:
        prompt = int(given.get("prompt_tokens", estimate_prompt_tokens(request)))
        completion = int(given.get("completion_tokens", estimate))
        usage = make_usage(prompt, completion, self.pricing, float(given.get("latency", latency)))
        usage.update({key: value for key, value in given.items() if key in usage})
        return usage


def _split(text: str, size: int | None) -> list[str]:
    if not text:
        return []
    if not size:
        return [text]
    return [text[i : i + size] for i in range(0, len(text), size)]


def _shorthand_deltas(turn: dict[str, Any], final: bool) -> list[dict[str, Any]]:
    """Text pieces, one chunk with all tool calls, then (if ``final``) an empty final delta."""
    messages = [assistant_message(content=piece) for piece in _split(turn.get("text") or "", turn.get("split"))]
    calls = [
        tool_call(str(call.get("id") or f"call_{n:04d}"), call["name"], call.get("arguments", {}))
        for n, call in enumerate(turn.get("tool_calls") or [], start=1)
    ]
    if calls:
        messages.append(assistant_message(tool_calls=calls))
    if final:
        messages.append(assistant_message())
    return [{"index": i, "message": m, "usage": None, "finish_reason": None} for i, m in enumerate(messages)]


def _raw_deltas(turn: dict[str, Any], final: bool) -> Iterator[dict[str, Any]]:
    """Raw deltas completed to the full ``LLMResultChunkDelta`` shape (at least one if
    ``final``, to carry usage), each built when it is asked for."""
    items = turn["chunks"] or ([{}] if final else [])
    for i, item in enumerate(items):
        message = item.get("message")
        if message is None:
            message = {key: item[key] for key in ("content", "tool_calls", "name", "tool_call_id") if key in item}
        yield {
            "index": item.get("index", i),
            "message": assistant_message(**message),
            "usage": item.get("usage"),
            "finish_reason": item.get("finish_reason"),
        }


# ---------------------------------------------------------------------------------------------
# OpenAI-compatible backend


_OPENAI_PARAMS = {"temperature", "top_p", "max_tokens", "presence_penalty", "frequency_penalty", "seed", "n"}


class OpenAICompatibleBackend:
    """Answers with a real model behind an OpenAI-compatible server (``/v1/chat/completions``,
    or ``/v1/completions`` for mode "completion"), streamed.

    ``model`` overrides the model named in the request; ``pricing`` prices the usage;
    ``timeout`` (s) bounds each HTTP request. Every request is recorded in ``requests``.

    A request with a ``structured_output_schema`` (an ``llm_structured_output`` invocation) is
    constrained to it as the server allows (``constrain``): ``"response_format"`` sends OpenAI's
    ``response_format: {"type": "json_schema", ...}`` (OpenAI, vLLM, llama.cpp's ``llama-server``),
    ``"grammar"`` a GBNF grammar converted from the schema by ``llama_cpp.llama_grammar``
    (llama-cpp-python's server, whose ``/v1/completions`` takes ``grammar`` and no response format).
    """

    def __init__(
        self,
        base_url: str,
        api_key: str = "not-needed",
        model: str | None = None,
        *,
        pricing: Pricing = FREE,
        timeout: float = 600.0,
        constrain: str = "response_format",
    ) -> None:
        from openai import OpenAI

        self._client = OpenAI(base_url=base_url, api_key=api_key or "not-needed", timeout=timeout, max_retries=0)
        self.model = model
        self.pricing = pricing
        self.constrain = constrain
        self.requests: list[dict[str, Any]] = []

    def invoke_llm(self, request: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """Record ``request`` and stream the server's answer as ``LLMResultChunk`` dicts: text
        deltas, tool-call deltas as the server sends them, then a final chunk with usage and
        finish_reason."""
        self.requests.append(request)
        model = self.model or str(request["model"])
        schema = request.get("structured_output_schema")
        if request.get("mode") == "completion":
            kwargs = completion_kwargs(request, model)
            raw = self._client.completions.create(**constrained(kwargs, schema, self.constrain))
            return self._relay(request, model, raw, _completion_deltas)
        kwargs = chat_kwargs(request, model)
        raw = self._client.chat.completions.create(**constrained(kwargs, schema, self.constrain))
        return self._relay(request, model, raw, _chat_deltas)

    def _relay(self, request: dict[str, Any], model: str, raw: Iterable[Any], convert: Any) -> Iterator[dict[str, Any]]:
        started = time.monotonic()
        sent: list[dict[str, Any]] = []
        finish_reason, server_usage = "stop", None
        thinking = ThinkWrapper()
        for event in raw:
            server_usage = getattr(event, "usage", None) or server_usage
            for content, calls, reason, reasoning in convert(event):
                finish_reason = reason or finish_reason
                content = thinking.wrap(reasoning, content, bool(calls))
                if content or calls:
                    chunk = make_chunk(model, len(sent), content=content, tool_calls=calls)
                    sent.append(chunk)
                    yield chunk
        if closing := thinking.close():
            chunk = make_chunk(model, len(sent), content=closing)
            sent.append(chunk)
            yield chunk
        prompt, completion = _usage_tokens(server_usage, request, sent)
        usage = make_usage(prompt, completion, self.pricing, time.monotonic() - started)
        yield make_chunk(model, len(sent), usage=usage, finish_reason=finish_reason)


class ThinkWrapper:
    """Streamed reasoning (``reasoning_content``, or ``reasoning`` as Ollama and some vLLM
    versions name it) turned into content as Dify's OpenAI-API-compatible model plugin turns
    it: ``<think>\n`` before the first piece, ``\n</think>`` before the first content or tool
    call after it (``dify_plugin``'s ``OAICompatLargeLanguageModel._wrap_thinking_by_reasoning_content``),
    and at the reply's end if it is still open. Without this the runner dropped the reasoning of
    every thinking model it served, which a Dify user sees in the Agent node."""

    def __init__(self) -> None:
        self.open = False

    def wrap(self, reasoning: str, content: str, calls: bool) -> str:
        """The content to stream for one delta carrying ``reasoning`` and ``content``."""
        if reasoning:
            text = reasoning if self.open else "<think>\n" + reasoning
            self.open = True
        elif not self.open:
            return content
        else:
            text = ""
        if content or calls:
            self.open = False
            return text + "\n</think>" + content
        return text

    def close(self) -> str:
        """``"\n</think>"`` when a reply ended inside its reasoning, else ``""``."""
        if self.open:
            self.open = False
            return "\n</think>"
        return ""


def _usage_tokens(server_usage: Any, request: dict[str, Any], sent: list[dict[str, Any]]) -> tuple[int, int]:
    """``(prompt_tokens, completion_tokens)`` from the server, or estimated when it gave none."""
    if server_usage is not None:
        return int(server_usage.prompt_tokens or 0), int(server_usage.completion_tokens or 0)
    return estimate_prompt_tokens(request), estimate_completion_tokens(sent)


def _chat_deltas(event: Any) -> Iterator[tuple[str, list[dict[str, Any]], str | None, str]]:
    """``(content, tool-call deltas, finish_reason, reasoning)`` of one chat-completion stream
    event; ``reasoning`` is the delta's ``reasoning_content`` or ``reasoning`` (an extra field the
    ``openai`` client keeps as an attribute)."""
    for choice in event.choices[:1]:
        delta = choice.delta
        calls = [_tool_call_delta(call) for call in delta.tool_calls or []]
        reasoning = getattr(delta, "reasoning_content", None) or getattr(delta, "reasoning", None)
        yield delta.content or "", calls, choice.finish_reason, reasoning if isinstance(reasoning, str) else ""


def _completion_deltas(event: Any) -> Iterator[tuple[str, list[dict[str, Any]], str | None, str]]:
    """``(text, [], finish_reason, "")`` of one completion stream event."""
    for choice in event.choices[:1]:
        yield choice.text or "", [], choice.finish_reason, ""


def _tool_call_delta(call: Any) -> dict[str, Any]:
    """A streamed tool-call fragment, unmerged: index/id/type/name/arguments as sent."""
    function = call.function
    return {
        "index": call.index,
        "id": call.id,
        "type": call.type,
        "function": {
            "name": function.name if function else None,
            "arguments": function.arguments if function else None,
        },
    }


def _sampling_kwargs(request: dict[str, Any]) -> dict[str, Any]:
    """Dify ``completion_params`` -> OpenAI keyword arguments; unknown keys go in ``extra_body``."""
    params = dict(request.get("completion_params") or {})
    kwargs = {key: params.pop(key) for key in list(params) if key in _OPENAI_PARAMS}
    if isinstance(params.get("response_format"), str):
        kwargs["response_format"] = {"type": params.pop("response_format")}
    if params:
        kwargs["extra_body"] = params
    if request.get("stop"):
        kwargs["stop"] = list(request["stop"])
    return kwargs


def constrained(kwargs: dict[str, Any], schema: dict[str, Any] | None, how: str) -> dict[str, Any]:
    """``kwargs`` of a chat or completion call constrained to the JSON ``schema`` (unchanged
    without one): ``how`` is ``"grammar"`` (a GBNF ``grammar``, llama-cpp-python's server) or
    ``"response_format"`` (OpenAI's ``json_schema`` response format; in ``extra_body`` for a
    completion call, where the SDK has no such argument)."""
    if schema is None:
        return kwargs
    extra = dict(kwargs.get("extra_body") or {})
    if how == "grammar":
        from llama_cpp.llama_grammar import json_schema_to_gbnf

        extra["grammar"] = json_schema_to_gbnf(json.dumps(schema))
    else:
        response_format = {"type": "json_schema", "json_schema": {"name": "llm_response", "schema": schema}}
        if "messages" in kwargs:
            return {**kwargs, "response_format": response_format}
        extra["response_format"] = response_format
    return {**kwargs, "extra_body": extra}


def chat_kwargs(request: dict[str, Any], model: str) -> dict[str, Any]:
    """Keyword arguments of ``chat.completions.create`` for a backwards ``llm`` request."""
    kwargs = {
        "model": model,
        "messages": to_openai_messages(request.get("prompt_messages") or []),
        "stream": True,
        "stream_options": {"include_usage": True},
        **_sampling_kwargs(request),
    }
    tools = to_openai_tools(request.get("tools"))
    if tools:
        kwargs["tools"] = tools
    return kwargs


def completion_kwargs(request: dict[str, Any], model: str) -> dict[str, Any]:
    """Keyword arguments of ``completions.create``: the prompt is the messages' text joined."""
    prompt = "\n".join(content_text(m.get("content")) for m in request.get("prompt_messages") or [])
    return {
        "model": model,
        "prompt": prompt,
        "stream": True,
        "stream_options": {"include_usage": True},
        **_sampling_kwargs(request),
    }


def to_openai_tools(tools: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """``PromptMessageTool`` dicts -> OpenAI ``tools`` (``{"type": "function", "function": ...}``)."""
    return [
        {
            "type": "function",
            "function": {
                "name": t["name"],
                "description": t.get("description", ""),
                "parameters": t.get("parameters") or {},
            },
        }
        for t in tools or []
    ]


def to_openai_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Dify prompt message dicts -> OpenAI chat messages (roles system/user/assistant/tool;
    "developer" is sent as "system", which every compatible server understands; assistant
    content is always a string, "" rather than null, which llama.cpp's server rejects)."""
    return [_openai_message(message) for message in messages]


_THINK_BLOCK = re.compile(r"\s*<think>.*?</think>\s*", re.S)
"""The reasoning block ``ThinkWrapper`` wrote at a reply's start; left out of the assistant
message when it is sent back, as Dify's OpenAI-API-compatible plugin leaves out a leading block
(the server's chat template decides what earlier reasoning the model sees)."""


def _openai_message(message: dict[str, Any]) -> dict[str, Any]:
    role = message.get("role")
    if role == "assistant":
        calls = [
            tool_call(c.get("id") or "", c["function"]["name"], c["function"].get("arguments") or "")
            for c in message.get("tool_calls") or []
        ]
        content = content_text(message.get("content"))
        if leading := _THINK_BLOCK.match(content):
            content = content[leading.end() :]
        out: dict[str, Any] = {"role": "assistant", "content": content}
        if calls:
            out["tool_calls"] = calls
        return out
    if role == "tool":
        return {
            "role": "tool",
            "tool_call_id": message.get("tool_call_id") or "",
            "content": content_text(message.get("content")),
        }
    if role == "user":
        return {"role": "user", "content": _user_content(message.get("content"))}
    return {"role": "system", "content": content_text(message.get("content"))}


def _user_content(content: Any) -> str | list[dict[str, Any]]:
    """A user message's content: a string, or OpenAI content parts (text and images;
    other media are described in text since chat servers rarely accept them)."""
    if not isinstance(content, list):
        return content or ""
    return [_content_part(part) for part in content]


def _content_part(part: dict[str, Any]) -> dict[str, Any]:
    kind = part.get("type")
    if kind == "text":
        return {"type": "text", "text": part.get("data", "")}
    url = part.get("url") or f"data:{part.get('mime_type')};base64,{part.get('base64_data', '')}"
    if kind == "image":
        return {"type": "image_url", "image_url": {"url": url, "detail": part.get("detail") or "low"}}
    name = part.get("filename") or "unnamed"
    return {"type": "text", "text": f"[{kind} file {name} ({part.get('mime_type')}) not sent to the model]"}
