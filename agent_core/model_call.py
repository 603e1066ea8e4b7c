"""One backwards LLM call, as a stream of normalized chunks.

Streamed and blocking calls share one path: the daemon answers both with a
stream of ``LLMResultChunk`` lines (docs/protocol-notes.md §1.5); a blocking call is just
one whose model plugin sends everything in one chunk. The chunks are read as
raw dicts rather than through the SDK's ``AssistantPromptMessage.ToolCall``,
because that model drops the ``index`` of streamed tool-call deltas, which is
what tells parallel calls apart when a provider omits ids.
"""

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from dify_plugin.core.entities.invocation import InvokeType
from dify_plugin.core.runtime import BackwardsInvocation, Session
from dify_plugin.entities.model.llm import LLMModelConfig, LLMUsage
from dify_plugin.entities.model.message import PromptMessage, PromptMessageTool

from agent_core import prompts
from agent_core.cut_errors import cut_error_reason
from agent_core.errors import error_text
from agent_core.fairness import give_way, paced
from agent_core.line_budget import encoded_size
from agent_core.memo import per_object
from agent_core.output_limit import cut_by_usage, google_reason, is_cut_reason, output_limit, reply_end
from agent_core.tool_calls import LENGTH_BY_USAGE, ToolCallDelta
from agent_core.unvalidated import checks_nothing
from agent_core.usage import call_usage, read_usage
from agent_core.waiting import daemon_events, each_within


@dataclass(frozen=True)
class ModelRequest:
    """What one round sends to the model.

    ``stop`` are the strategy's own stop words (ReAct's ``Observation``); the user's stop
    sequences from the model-selector's ``completion_params`` are put before them when the
    request is sent (``build_llm_payload``). ``stream`` asks the model plugin to stream
    (chosen from the model's ``stream-tool-call`` feature). With ``structured_output_schema``
    (a JSON schema) the call goes through Dify's ``llm_structured_output`` invocation, which
    constrains the reply to it (agent_core/react/json_step.py).
    """

    prompt_messages: list[PromptMessage]
    tools: list[PromptMessageTool] = field(default_factory=list)
    stop: list[str] = field(default_factory=list)
    stream: bool = True
    structured_output_schema: dict[str, Any] | None = None
    schema_redactor: Callable[[Any, Callable[[str], str]], Any] | None = None
    """``(schema, redact) -> schema``: how ``structured_output_schema`` is redacted of the node's
    secrets, its own grammar kept (``react.json_step.redacted_step_schema``); None: every text
    but JSON Schema's type names (``tool_schema.redacted_schema``)."""
    completion_params: dict[str, Any] = field(default_factory=dict)
    """Completion parameters set for this request over the node's: a ``max_tokens`` lowered
    so that the prompt and the reply fit the context window (``budget.reply_limit``)."""
    without_params: tuple[str, ...] = ()
    """Completion parameters of the node not sent with this request: the user's structured output
    on a ReAct step (``answer_schema.STRUCTURED_OUTPUT_PARAMS``)."""
    send_stop: bool = True
    """False once the model plugin refused ``stop`` in this run (``refuses_stop``): neither the
    strategy's stop words nor the user's stop sequences are sent."""


@dataclass(slots=True)
class ModelChunk:
    """One normalized chunk: ``text`` (the content's text, reasoning blocks included),
    separately sent ``reasoning`` (``reasoning_content``), tool-call deltas, ``usage`` if
    reported, the ``finish_reason`` (``stop``, ``tool_calls``, ``length``…) if given.

    ``usage_problem`` names usage fields that could not be read. ``parts`` holds the content parts as sent when the content was a list (their own
    ``opaque_body`` included) and ``opaque_body`` the message's ``opaque_body``: both go back
    to the model plugin with the assistant message (see ``AssistantReply``).

    Not changed once built (not frozen only because a frozen dataclass costs some 1.5 µs more
    to build, paid for every streamed chunk)."""

    text: str = ""
    reasoning: str = ""
    tool_calls: tuple[ToolCallDelta, ...] = ()
    usage: LLMUsage | None = None
    finish_reason: str | None = None
    parts: tuple[Mapping[str, Any], ...] = ()
    opaque_body: Any = None
    usage_problem: str | None = None
    structured_output: Any = None
    call_usage: LLMUsage | None = None
    """Set only on the chunk ``invoke_model`` ends a reply with when it summed the call's usage
    reports itself (an output limit was set: see ``invoke_model``): the call's usage,
    ``usage.call_usage`` of every report before it. A reader takes it in place of those reports
    (the call's one report: ``note_usage``) rather than summing them again."""


def note_usage(chunk: ModelChunk, reports: list[LLMUsage]) -> None:
    """Keep the usage ``chunk`` reports in ``reports`` (a call's, in order): its ``usage`` added;
    its ``call_usage`` (the sum of the reports before it) in their place, as the call's one
    report, so that ``usage.call_usage`` does not sum them again."""
    if chunk.call_usage is not None:
        reports[:] = (chunk.call_usage,)
    elif chunk.usage is not None:
        reports.append(chunk.usage)


class AssistantReply:
    """The model's message of one call, gathered chunk by chunk as the model plugin sent it,
    to be sent back unchanged within the run (docs/model-round-trip.md).

    Text is concatenated as received (``<think>`` blocks included: DeepSeek's plugin recovers
    ``reasoning_content`` from exactly that block). Content sent as a list of parts is kept as
    parts, text pieces around them becoming text parts. ``opaque_body`` may come on any chunk
    (MiniMax: the last; DeepSeek and Moonshot blocking: the only one): dicts are merged in
    order, a later key winning; any other value replaces what came before.
    """

    def __init__(self) -> None:
        self._pieces: list[str | Mapping[str, Any]] = []
        self._has_parts = False
        self.opaque_body: Any = None

    def add(self, chunk: ModelChunk) -> None:
        """Record one chunk's content and ``opaque_body``."""
        if chunk.parts:
            self._has_parts = True
            self._pieces.extend(chunk.parts)
        elif chunk.text:
            self._pieces.append(chunk.text)
        if chunk.opaque_body is not None:
            if isinstance(chunk.opaque_body, dict) and isinstance(self.opaque_body, dict):
                self.opaque_body = {**self.opaque_body, **chunk.opaque_body}
            else:
                self.opaque_body = chunk.opaque_body

    @property
    def content(self) -> str | list[dict[str, Any]]:
        """The message content as produced: a string, or a list of content-part dicts.

        Neighbouring plain text parts (no ``opaque_body`` of their own) are joined into one, as
        a model plugin that streams text would have it: Gemini's plugin streams ``<think>``, the
        thoughts and ``</think>`` as three parts but removes a reasoning block on the way back
        only when one part holds all of it (``_build_text_parts`` in
        ``models/gemini/models/llm/llm.py``). Every other part is kept as sent, in order.
        """
        if not self._has_parts:  # every piece is a chunk's text (``add``): a str
            return "".join(self._pieces)
        parts: list[dict[str, Any]] = []
        joinable = False  # whether the last part in ``parts`` is a plain text part
        for piece in self._pieces:
            text = _plain_text(piece)
            if text is None:
                parts.append(dict(piece))
                joinable = False
            elif joinable:
                parts[-1]["data"] += text
            else:
                parts.append({"type": "text", "data": text})
                joinable = True
        return parts


CLOSABLE_TAGS = frozenset({"</think>", "</thinking>", "</reasoning>", "</thought>", "</seed:think>"})
"""Closing tags of the reasoning blocks ``with_block_closed`` closes: the XML-like ones, written
in lower case as models write them (Magistral's ``[/THINK]``, Kimi's ``◁/think▷`` and an HTML
``</details>`` are left as they came)."""


def with_block_closed(content: str | list[dict[str, Any]], closing: str | None) -> str | list[dict[str, Any]]:
    """``content`` (an ``AssistantReply.content``) with the reasoning block it ended inside
    closed by a line break and ``closing``, for a reply that went on to native tool calls. ``closing``:
    the open block's closing tag (``ThinkSplitter.closing_tag``); None, or a tag not in
    ``CLOSABLE_TAGS``, leaves the content as it is; so does a list whose last text part is not
    plain (it has an ``opaque_body`` of its own, a signature that covers it: the block ends in it,
    and a tag in a plain part before it would close nothing, the block opening after it).

    Why: model plugins that strip a reasoning block from the assistant text they send back find
    only a closed one (Gemini's ``re.sub`` of a leading ``<think>...</think>`` in
    ``_build_text_parts``, the OpenAI-compatible plugin's ``_drop_analyze_channel``; DeepSeek's,
    Moonshot's and Volcengine's ``reasoning_content`` extraction; GLM's chat template, which
    splits a history message at ``</think>``), and some leave the block open when a tool call
    follows the reasoning straight away (Gemini's blocking reply of thoughts and a function call,
    Zhipu's and OpenRouter's streams, Ollama's): the reasoning would go back as text the model
    said. The closing tag goes at the end of the text (string, or the last plain text part,
    where ``AssistantReply.content`` joined the block)."""
    if closing not in CLOSABLE_TAGS:
        return content
    if isinstance(content, str):
        return content + "\n" + closing
    for position in range(len(content) - 1, -1, -1):
        part = content[position]
        if _plain_text(part) is not None:
            return [*content[:position], {**part, "data": part["data"] + "\n" + closing}, *content[position + 1 :]]
        if part.get("type") == "text":
            return content  # the text ends in a part with its own opaque_body: not to be changed
    return content


def _plain_text(piece: str | Mapping[str, Any]) -> str | None:
    """The text of a piece that is only text (a string, or a text part without data of its
    own), else None."""
    if isinstance(piece, str):
        return piece
    if piece.get("type") == "text" and isinstance(piece.get("data"), str) and piece.keys() <= {"type", "data", "opaque_body"}:
        return piece["data"] if piece.get("opaque_body") is None else None
    return None


def _content_text(content: Any) -> str:
    """Text of a message ``content``: a string, a list of content parts, or None."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("data") or part.get("text") or "")
            for part in content
            if isinstance(part, Mapping) and part.get("type", "text") == "text"
        )
    return ""


_PLAIN_MESSAGE_KEYS = frozenset({"role", "content", "name", "tool_calls", "tool_call_id"})
_PLAIN_DELTA_KEYS = frozenset({"index", "message", "usage", "finish_reason"})


def normalize_chunk(raw: Mapping[str, Any]) -> ModelChunk:
    """Turn one ``LLMResultChunk`` JSON dict into a ``ModelChunk``; never raises on odd shapes."""
    delta = raw.get("delta")
    message = delta.get("message") if type(delta) is dict else None
    if (  # the usual streamed chunk: a piece of text and nothing else
        type(message) is dict
        and type(message.get("content")) is str
        and not message.get("tool_calls")
        and message.keys() <= _PLAIN_MESSAGE_KEYS
        and delta.keys() <= _PLAIN_DELTA_KEYS
        and delta.get("usage") is None
        and delta.get("finish_reason") is None
        and raw.get("structured_output") is None
    ):
        return ModelChunk(text=message["content"])
    return _normalize_any(raw)


def _normalize_any(raw: Mapping[str, Any]) -> ModelChunk:
    delta = raw.get("delta")
    delta = delta if type(delta) is dict or isinstance(delta, Mapping) else {}  # a dict: no look at the ABC
    message = delta.get("message")
    message = message if type(message) is dict or isinstance(message, Mapping) else {}
    raw_calls = message.get("tool_calls") or []
    calls = tuple(ToolCallDelta.from_raw(call) for call in paced(raw_calls) if isinstance(call, Mapping))
    reasoning = message.get("reasoning_content") or delta.get("reasoning_content") or ""
    usage, usage_problem = read_usage(delta.get("usage"))
    content = message.get("content")
    parts = tuple(part for part in content if isinstance(part, Mapping)) if isinstance(content, list) else ()
    return ModelChunk(
        text=_content_text(content),
        reasoning=reasoning if isinstance(reasoning, str) else "",
        tool_calls=calls,
        usage=usage,
        finish_reason=_finish_reason(delta.get("finish_reason")),
        parts=parts,
        opaque_body=message.get("opaque_body"),
        usage_problem=usage_problem,
        structured_output=raw.get("structured_output"),
    )


def _finish_reason(value: Any) -> str | None:
    """The ``finish_reason`` as text (a plugin may send a number or a list), None when absent.

    An enum member's name as Python prints it (``FinishReason.MAX_TOKENS``: ``str()`` of a
    Google enum under Python 3.10 and older; from 3.11 on the Vertex AI plugin's is the number,
    read in ``invoke_model``: ``output_limit.google_reason``) is its value
    (``MAX_TOKENS``), so a cut reply is still known as cut; whitespace around it is dropped (a
    plugin that builds it from text may keep a space or a line break); ``"null"`` and ``"None"``
    are none (``_NO_REASON``)."""
    if value is None or value == "" or value == []:
        return None
    if isinstance(value, list | tuple):
        return _finish_reason(value[0])
    text = (value if isinstance(value, str) else str(value)).strip()  # " length", "length\n"
    if not text or text.lower() in _NO_REASON:
        return None
    return text.rpartition(".")[2] if _ENUM_MEMBER.fullmatch(text) else text


_NO_REASON = frozenset({"null", "none"})
"""``finish_reason`` texts that mean none came: DashScope's native stream writes ``"null"`` (a
string) on every packet while it generates, and a plugin that prints ``str()`` of a missing reason
writes ``"None"``; read as a reason, either would hide a ``length`` an earlier chunk gave."""

_ENUM_MEMBER = re.compile(r"[A-Z][A-Za-z]*\.[A-Za-z_][A-Za-z0-9_]*")


@per_object
def message_dump(message: PromptMessage) -> dict[str, Any]:
    """``message.model_dump()``, once per message object (a round's prompt reuses the
    messages of the round before; ``agent_core.memo``). The dict is shared: not to be changed.

    The SDK sends ``model_dump()``: the same JSON (the prompt message models have no serializer
    of their own), but with the role and content types as enum members, which the line's encoder
    (pydantic-core, by inference) encodes through Python, about 1.5 µs each, for every message
    of the prompt in every round's request line."""
    return message.model_dump(mode="json")


@per_object
def tool_dump(tool: PromptMessageTool) -> dict[str, Any]:
    """``tool.model_dump(mode="json")`` (the JSON of the SDK's ``model_dump()``), once per tool
    object (``ToolRegistry.prompt_tools`` keeps them for the run). The dict is shared: not to
    be changed."""
    return tool.model_dump(mode="json")


def merged_stop(user_stop: Any, own: Sequence[str] = ()) -> list[str]:
    """The ``stop`` list of one request: the user's stop sequences, in their order, then the
    strategy's ``own`` stop words, each once.

    ``user_stop`` is ``completion_params["stop"]`` of the Agent node's model-selector (Dify's
    parameter rule ``stop`` is a tag list: ``["###"]``); the official langgenius/agent
    strategies pass ``completion_params.get("stop", [])`` as the invoke's ``stop`` and ReAct
    appends ``Observation`` to it. A lone string counts as one sequence; anything else that is
    not a non-empty string (None, numbers, objects, ``""``) is left out."""
    given = [user_stop] if isinstance(user_stop, str) else user_stop if isinstance(user_stop, list | tuple) else []
    words = [word for word in (*given, *own) if isinstance(word, str) and word]
    return list(dict.fromkeys(words))


_LLM_TYPE = LLMModelConfig.model_fields["model_type"].default
_PLAIN_CONFIG = list(LLMModelConfig.model_fields) == ["provider", "model", "model_type", "mode", "completion_params"] and (
    checks_nothing(LLMModelConfig, tuple(LLMModelConfig.model_fields))
    and not any(info.metadata for info in LLMModelConfig.model_fields.values())
    and LLMModelConfig.model_fields["completion_params"].annotation is dict
    and not LLMModelConfig.__pydantic_decorators__.field_serializers
    and not LLMModelConfig.__pydantic_decorators__.model_serializers
)
"""Whether the request's model config is written as the dict of its fields, without building
the SDK's ``LLMModelConfig`` only to dump it (dify_plugin 0.10.2's: five fields, no validators
or serializers, ``model_type`` left at its default ``llm``)."""


def build_llm_payload(
    model: LLMModelConfig, request: ModelRequest, dumps: Callable[[Sequence[PromptMessage]], list[dict[str, Any]]] | None = None
) -> dict[str, Any]:
    """The backwards ``llm`` request body, as the SDK's ``LLMInvocation.invoke`` builds it (and
    ``LLMStructuredOutputInvocation.invoke``, with ``structured_output_schema``, when the request
    has a schema).

    The user's ``stop`` leaves ``completion_params`` for the request's own ``stop``
    (``merged_stop``), as in the official strategies: model plugins pass ``stop`` on as its own
    argument and would otherwise overwrite it with the request's, or send it twice.
    ``dumps``: a run's ``memo.PrefixMap(message_dump)``, which dumps a round's prompt by the
    messages it adds (else each message's dump is looked up)."""
    completion_params, stop = _settings(model, request)
    if _PLAIN_CONFIG and type(model.provider) is str and type(model.model) is str and type(model.mode) is str:
        config = {"provider": model.provider, "model": model.model, "model_type": _LLM_TYPE, "mode": model.mode,
                  "completion_params": completion_params}  # what the validated config dumps (to the same JSON)
    else:
        config = LLMModelConfig(
            provider=model.provider,
            model=model.model,
            mode=model.mode,
            completion_params=completion_params,
        ).model_dump()
    payload = {
        **config,
        "prompt_messages": dumps(request.prompt_messages) if dumps is not None else [message_dump(message) for message in request.prompt_messages],
        "tools": [tool_dump(tool) for tool in request.tools] or None,
        "stop": stop or None,
        "stream": request.stream,
    }
    if request.structured_output_schema is not None:
        payload["structured_output_schema"] = request.structured_output_schema
    return payload


def settings_bytes(model: LLMModelConfig, request: ModelRequest) -> int:
    """Bytes the request line carries besides its prompt, tools and schema, as JSON: the
    model's provider, name, mode and completion parameters and the merged ``stop`` list
    (``build_llm_payload``). They come from the node's model-selector, whatever their size: the
    line must fit the daemon with them (``line_budget.REQUEST_LINE_MAX_BYTES``)."""
    completion_params, stop = _settings(model, request)
    return encoded_size([model.provider, model.model, model.mode, completion_params, stop])


def _settings(model: LLMModelConfig, request: ModelRequest) -> tuple[dict[str, Any], list[str]]:
    """The request's completion parameters (the node's less ``request.without_params``, then the
    request's own) without ``stop``, and its ``stop`` list (``merged_stop``)."""
    completion_params = {**(model.completion_params or {}), **request.completion_params}
    for name in request.without_params:
        completion_params.pop(name, None)
    stop = merged_stop(completion_params.pop("stop", None), request.stop)
    return completion_params, stop if request.send_stop else []


def sent_stop(model: LLMModelConfig, request: ModelRequest) -> list[str]:
    """The ``stop`` list ``request`` sends to ``model`` (empty when ``send_stop`` is False)."""
    return _settings(model, request)[1]


_STOP_REFUSED = re.compile(
    r"""(?:unexpected keyword argument|unsupported parameter|unknown parameter|unrecognized (?:request )?argument"""
    r"""|extra (?:inputs|fields) are not permitted)[^'"]{0,40}['"]stop['"]"""
    r"""|['"]stop['"][^.\n]{0,40}(?:is not supported|not supported with this model|is not allowed)"""
    r"""|(?:argument not supported on this model|does not support (?:the )?parameter):? ['"]?stop(?![\w-])""",
    re.I,
)


def refuses_stop(message: str) -> bool:
    """Whether a model call failed because ``stop`` cannot be sent on its route: the OpenAI SDK's
    ``TypeError`` for an argument ``responses.create`` does not take ("create() got an unexpected
    keyword argument 'stop'": the OpenAI-API-compatible plugin on its Responses route passes
    ``stop`` on), OpenAI's 400 for reasoning models ("Unsupported parameter: 'stop' is not
    supported with this model."), xAI's for its reasoning models, which name the parameter
    unquoted ("Argument not supported on this model: stop", "Model grok-4.6 does not support
    parameter stop.": the xAI plugin drops ``stop`` only for the models it lists, and its newest,
    ``grok-4.6``, is not among them) and the like. An unquoted name is ``stop`` only where it ends
    (no letter, digit, ``_`` or ``-`` after it: ``stop_sequences``, ``stopSequences`` and
    ``stop-sequences`` are other parameters). ``message`` is the error's text as the daemon
    reported it."""
    return bool(_STOP_REFUSED.search(message))


_TOOLS_REFUSED = re.compile(
    r"""does not support tools|tool choice requires --enable-auto-tool-choice"""
    r"""|tools param requires --jinja|function calling is not enabled for models?/"""
    r"""|no endpoints found that support tool use|tool call requires at least two tools|cannot specify both message and tool_results""",
    re.I,
)


def refuses_tools(message: str) -> bool:
    """Whether a model call failed because the model's server takes no native tools: Ollama's 400
    for a model whose template has none ("registry.ollama.ai/library/qwen:7b does not support
    tools": langgenius/dify#13538, langgenius/dify#12655), vLLM's 400 when it was started without
    its tool parser ('"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser
    to be set'), llama.cpp's server without ``--jinja`` ("tools param requires --jinja flag"),
    Gemini's for models without function calling ("Function calling is not enabled for
    models/gemma-3-27b-it"), OpenRouter's "No endpoints found that support tool use" and the
    Cohere plugin's own refusal of a request with exactly one tool ("Cohere tool call requires at
    least two tools to be specified.": ``models/cohere/models/llm/llm.py`` in
    langgenius/dify-official-plugins, commit 2027214) and Cohere's refusal of every tool result that
    plugin sends ("cannot specify both message and tool_results in multistep mode": it sends the
    user's message beside them; langgenius/dify#5441), which comes on the request after the first
    native call: the run then goes on with ReAct's steps, that call and its result in the
    scratchpad. Only
    these explicit texts count: a bare 400 is as often a malformed request or a long context.
    ``message`` is the error's text as the daemon reported it."""
    return bool(_TOOLS_REFUSED.search(message))


UNREADABLE_REPLY = (
    "the daemon's reply to the model call could not be read: an item of event {event} with {data} "
    "(a reply is 'response' items of chunk objects, then 'end', or 'error')"
)
"""The model call's error for a reply item ``_ModelStream`` cannot read."""


def unreadable_reply(event: Any, data: Any) -> str:
    """``UNREADABLE_REPLY`` for an item of event ``event`` (its repr, at most 40 characters) whose
    ``data`` is ``data``: named by its type, never shown (it is the model's text, megabytes maybe).
    (The SDK's reader quoted the item's first 200 characters.)"""
    shown = repr(event)
    if len(shown) > 40:
        shown = shown[:37] + "..."
    kind = "no data" if data is None else f"data of type {type(data).__name__}"
    return UNREADABLE_REPLY.format(event=shown, data=kind)


class _ModelStream(BackwardsInvocation[dict]):
    """The SDK's backwards call for a model (what ``session.model.llm`` makes), each item read as
    the SDK's reader reads it (``BackwardsInvocation._line_converter_wrapper``, dify_plugin
    0.10.2): ``end`` or a null ``data`` ends the stream, ``error`` raises the daemon's message, an
    item whose ``data`` is not an object or whose event is unknown fails the call; an object is
    yielded as it came. The SDK's reader builds a pydantic event and a copy of the chunk's dict
    for every streamed chunk to do the same."""

    def _line_converter_wrapper(self, generator: Iterator[Any], data_type: type) -> Iterator[dict[str, Any]]:
        for event in daemon_events(generator, self.session):
            kind = event.get("event")
            if kind == "end":
                return
            if kind == "error":
                raise Exception(str(event.get("message")))
            data = event.get("data")
            if kind != "response" or (data is not None and type(data) is not dict):
                raise Exception(unreadable_reply(kind, data))
            if data is None:
                return
            yield data


class ModelTimeoutError(Exception):
    """The model sent nothing for longer than the allowed silence."""


class PastDeadlineError(Exception):
    """The run's deadline came while the model was still replying."""


def _cut_by_error(error: Exception, cut_errors: list[str] | None) -> str:
    """The finish reason to end a reply with when ``error``, raised by its model call, says the
    output limit cut the reply (``cut_errors.cut_error_reason``), its text then appended to
    ``cut_errors`` when given. Raises ``error`` itself when it is any other error, the run's own
    silence and deadline errors included."""
    if isinstance(error, (ModelTimeoutError, PastDeadlineError)):
        raise error
    if (cut := cut_error_reason(text := error_text(error))) is None:
        raise error
    if cut_errors is not None:
        cut_errors.append(text)
    return cut


def invoke_model(
    session: Session,
    model: LLMModelConfig,
    request: ModelRequest,
    *,
    silence_timeout: float | None = None,
    deadline: float | None = None,
    dumps: Callable[[Sequence[PromptMessage]], list[dict[str, Any]]] | None = None,
    reported: list[LLMUsage] | None = None,
    problems: list[str] | None = None,
    cut_errors: list[str] | None = None,
) -> Iterator[ModelChunk]:
    """Call the model through the daemon and yield normalized chunks.

    ``silence_timeout`` (seconds) bounds the wait for each chunk. Raises
    ``ModelTimeoutError`` past it, ``PastDeadlineError`` once ``deadline`` (a
    ``time.monotonic()`` value: the run's) has come and the reply has not ended, and
    whatever the SDK raises when the daemon reports an error (``Exception`` with the
    daemon's message).

    A reply that ended without a finish reason saying it was cut (none, or the Ollama plugin's
    ``stop``) while its usage shows it reached the output limit the request set
    (``output_limit.cut_by_usage``) gets one more chunk, empty, whose finish reason is
    ``LENGTH_BY_USAGE``: the strategies read it as cut, as after ``length``. That chunk, and one
    with no finish reason when the limit was not reached but several chunks reported usage, carry
    the call's usage those reports were summed to (``ModelChunk.call_usage``), which the turn
    takes: the reports are summed once. A reply whose finish reason said it was cut on one chunk
    and something else on a later one ends with one more chunk carrying that first cut reason
    (``output_limit.reply_end``: the strategies read the last reason). A Google plugin's enum
    number (Vertex AI's ``"2"``) comes as its name (``MAX_TOKENS``: ``output_limit.google_reason``).

    ``reported`` and ``problems`` (given together), as each chunk is yielded: the usage it
    reports kept as ``note_usage`` keeps it (what a call that fails part-way was billed), and what
    could not be read of that usage (``ModelChunk.usage_problem``) appended; noted here, not by a
    generator around this one (a level fewer for every chunk).

    A model plugin's error that says the output limit cut the reply (``cut_errors.cut_error_reason``:
    the Anthropic plugin's "incomplete tool arguments (stop_reason=max_tokens)", raised after the
    text streamed) ends the chunks instead of failing the call: one more chunk, empty, whose
    finish reason is ``cut_errors.CUT_IN_TOOL_CALL``, read as cut; the error's text is appended to
    ``cut_errors`` (a list the caller logs). Any other error goes on as raised.
    """
    payload = build_llm_payload(model, request, dumps)  # dumps: build_llm_payload's
    # LLMInvocation.invoke would parse chunks into AssistantPromptMessage and lose
    # tool-call ``index``; the same backwards call with ``dict`` keeps them raw.
    kind = InvokeType.LLM if request.structured_output_schema is None else InvokeType.LLMStructuredOutput
    stream = _ModelStream(session)._backwards_invoke(kind, dict, payload)

    def silent() -> ModelTimeoutError:
        return ModelTimeoutError(prompts.MODEL_SILENT.format(seconds=silence_timeout))

    def past_deadline() -> PastDeadlineError:
        return PastDeadlineError(prompts.MODEL_PAST_DEADLINE)

    limit = output_limit(payload["completion_params"])
    provider = model.provider
    reports: list[LLMUsage] = []  # read only when a limit is set
    reason: str | None = None  # the last finish reason sent
    first_cut: str | None = None  # the first that said the reply was cut
    try:
        for raw in each_within(stream, silence_timeout or None, silent, deadline=deadline, past_deadline=past_deadline):
            chunk = normalize_chunk(raw)
            if chunk.finish_reason:  # a plain text chunk has none: nothing more is paid for it
                if (named := google_reason(chunk.finish_reason, provider)) != chunk.finish_reason:
                    chunk = replace(chunk, finish_reason=named)
                reason = chunk.finish_reason
                if first_cut is None and is_cut_reason(reason):
                    first_cut = reason
            if limit is not None and chunk.usage is not None:
                reports.append(chunk.usage)
            if problems is not None and (chunk.usage is not None or chunk.usage_problem):
                _noted(chunk, reported, problems)
            yield chunk
            give_way()  # a reply in 100,000 chunks that are all there already
    except Exception as error:  # caught here, not by a generator around the stream (a level fewer a chunk)
        reason = first_cut = _cut_by_error(error, cut_errors)  # or ``error`` raised again
        yield ModelChunk(finish_reason=reason)
    finally:
        stream.close()
    for added in _after_stream(reason, first_cut, reports, limit) if first_cut or reports else ():
        if problems is not None:
            _noted(added, reported, problems)
        yield added


def _after_stream(reason: str | None, first_cut: str | None, reports: list[LLMUsage], limit: int | None) -> list[ModelChunk]:
    """The chunks ``invoke_model`` adds after the model's own (none, one or two): the first cut
    reason again when a later reason hid it (``output_limit.reply_end``), then, when usage reports
    were kept (an output limit was set), ``LENGTH_BY_USAGE`` with the call's summed usage when that
    usage reached the limit (``output_limit.cut_by_usage``), or the summed usage alone when more
    than one chunk reported."""
    added: list[ModelChunk] = []
    if late := reply_end(reason, first_cut):  # length, then stop: still cut
        reason = late
        added.append(ModelChunk(finish_reason=late))
    if not reports:
        return added
    summed = call_usage(reports)
    if cut_by_usage(reason, summed.completion_tokens, limit):
        added.append(ModelChunk(finish_reason=LENGTH_BY_USAGE, call_usage=summed))
    elif len(reports) > 1:  # one report is the call's usage as it is: nothing to pass on
        added.append(ModelChunk(call_usage=summed))
    return added


def _noted(chunk: ModelChunk, reported: Any, problems: list[str]) -> None:
    """``chunk``'s usage kept in ``reported`` (``note_usage``) and its usage problem in ``problems``."""
    if chunk.usage is not None or chunk.call_usage is not None:
        note_usage(chunk, reported)
    if chunk.usage_problem:
        problems.append(chunk.usage_problem)
