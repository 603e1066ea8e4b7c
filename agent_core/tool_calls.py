"""Tool calls: assembling the streamed ``tool_calls`` deltas of one model turn.

A model's tool calls reach the strategy as raw ``delta.message.tool_calls``
dicts (protocol §1.5), one list per chunk. Providers disagree on almost
every field, so :class:`ToolCallAssembler` keys calls by ``index`` *and*
``id``, never trusts either alone, and parses arguments only in
:meth:`ToolCallAssembler.finish` (habit 4 of the style notes). Observed shapes
(case ids name public threads, listed in docs/real-world-cases.md):

* OpenAI reference: ``id``/``type``/``name`` in the first delta with
  ``arguments: ""``, then ``index`` + argument fragments split anywhere
  (litellm5231).
* Complete calls in one chunk: the SDK's OpenAI-compatible base, Ollama
  (ollama9092), blocking replies.
* ``index`` missing (ollama7881), starting at 1 or sparse (cliproxy5229,
  litellm5025), or constant/wrong for parallel calls (hermes62937,
  sglang6310, agno3826).
* ``id`` only in the first delta, in a different delta from ``name``
  (pipecat5023), inside ``function.id`` (llamacpp13800), missing (ollama8337), or another
  one on every chunk after the head (poolsideai/pool#9).
* ``name`` repeated on every delta (llamacpp13800): replaced, never concatenated; split
  with the arguments (``get_wea`` + ``ther``, ankit373/hydra#957): joined (``_name_piece``).
* ``arguments`` as text fragments, as a complete object (ollama8337) or as
  JSON-encoded JSON (smolagents1003); ``{}`` sent ahead of the real
  arguments (litellm#4537: Anthropic's ``input: {}``); the arguments so far
  resent on every delta (dify-official-plugins#616: DashScope); a fence's
  ``json`` word ahead of the object (tenstorrent/tt-inference-server#3683);
  the final ``}`` dropped by the server (vllm-project/vllm#32152, #15274); a start of the
  arguments glued to the whole object (sgl-project/sglang#23071).
* A call sent whole on one chunk, then again glued to the next call of its
  tool under that call's id: the StepFun plugin merges a reply's calls by
  tool name after the stream (``_without_merged_head``).
* Ids made of the tool name: Dify's ollama plugin, and Dify's
  OpenAI-compatible base, which looks deltas up by name and leaves the rest
  of a call whose name is repeated under the id ``<name>``.

More shapes as Dify passes them on: ``tests/unit/test_tool_calls_real_streams.py``.

Calls a model writes in its content instead are read by ``agent_core.text_calls``.
"""

import json
import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from agent_core.cut_errors import CUT_IN_TOOL_CALL
from agent_core.declarations import arguments_refusal
from agent_core.fairness import paced
from agent_core.json_args import (
    ArgumentsError,
    arguments_object,
    decode_arguments,
    ends_open,
    loads,
    only_closers_missing,
    owed_closers,
    raw_decode_at,
    split_concatenated,
    strip_noise,
    surrogates_replaced,
)
from agent_core.prompts import MSG_CUT_BY_LENGTH, MSG_HEAD_LOST, MSG_MALFORMED, MSG_NO_NAME

LENGTH_BY_USAGE = "length_by_usage"
"""The finish reason of a reply whose usage shows it reached the output limit while no finish
reason said so (``output_limit.cut_by_usage``): ``model_call.invoke_model`` adds it after the
reply's last chunk, and the run's log shows it."""

LENGTH_FINISH_REASONS = frozenset(
    {"length", "max_tokens", "max_output_tokens", "model_length", "model_context_window_exceeded", "max_length",
     LENGTH_BY_USAGE, CUT_IN_TOOL_CALL}
)
"""``finish_reason`` values (compared lower-cased) meaning the output hit the
token limit: OpenAI ``length``, Anthropic ``max_tokens``, Gemini ``MAX_TOKENS``, Mistral's
``model_length`` (its API's finish_reason enum: the reply reached the model's context length)
and Anthropic's ``model_context_window_exceeded`` (a stop_reason: the reply reached the context
window), and ``max_length`` (servers named after Hugging Face's ``max_length`` generation limit,
which OpenAI-compatible adapters otherwise map to ``length``), which model plugins pass on as
the provider spelled them; ``LENGTH_BY_USAGE``, the cut known from the reply's usage; and
``CUT_IN_TOOL_CALL``, the cut known from the error the model plugin raised for it
(``cut_errors``)."""

ENDED_FINISH_REASONS = frozenset({"stop", "tool_calls", "function_call", "tool_use", "end_turn"})
"""``finish_reason`` values (compared lower-cased) meaning the model ended its reply itself:
OpenAI ``stop``/``tool_calls``/``function_call``, Anthropic and Bedrock ``end_turn``/``tool_use``,
Gemini ``STOP``. Only then are closing brackets the server dropped appended (a length cut, a
content filter or a stream without a ``finish_reason`` may have cut the last value too)."""

MAX_CALL_ID_CHARS = 64 * 1024
"""Longest provider call id kept (characters); a longer one is replaced by a synthesised id.
Most providers send ids of some 10-40 characters (OpenAI ``call_...``, Anthropic ``toolu_...``,
Mistral's 9), but the Vertex AI model plugin keeps Gemini 3's thought signature *in* the id
(``name::sig::<base64>``, kilobytes long; ``models/vertex_ai/models/llm/llm.py`` of
``langgenius/dify-official-plugins``), and an id replaced there sends Gemini a placeholder
instead of its reasoning. Every later request repeats the id twice (the assistant's call and
the tool's result), so an id of megabytes would make a request line the daemon refuses; ids
count in the request's byte budget (``budget.request_bytes``).

MAX_REPLY_CALL_ID_CHARS bounds the ids kept of one reply together."""

MAX_REPLY_CALL_ID_CHARS = 256 * 1024
"""Characters of provider call ids one reply keeps in all; an id that would take the reply's ids
past it is replaced by a synthesised one. Gemini 3 signs the first call of a step (a few
kilobytes); a reply of 65 calls of 64 KiB ids each put 8 MB of ids in the next request (each id
twice), and the run ended with "request would be 8540325 bytes" after its first round, where
ids of 256 characters at most had kept it going. Four such ids fit; the ids of one reply take at
most 512 KiB of each later request line (each twice)."""


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """One element of ``delta.message.tool_calls``, normalised.

    ``index`` is None when absent; ``id``/``name`` are ``''`` when absent;
    ``arguments`` is a text fragment or a complete mapping.
    """

    index: int | None
    id: str
    name: str
    arguments: str | Mapping[str, Any]

    @classmethod
    def from_raw(cls, raw: Mapping[str, Any]) -> "ToolCallDelta":
        """Read one raw tool-call dict; never raises.

        Shape: ``{"index"?, "id"?, "type"?, "function": {"name"?, "arguments"?, "id"?}}``;
        ``function.id`` is read when ``id`` is missing (llamacpp13800), and
        top-level ``name``/``arguments`` when there is no ``function``.
        """
        if not isinstance(raw, Mapping):
            return cls(None, "", "", "")
        function = raw.get("function")
        function = function if isinstance(function, Mapping) else raw
        return cls(
            index=_as_index(raw.get("index")),
            id=_as_text(raw.get("id")) or _as_text(function.get("id")),
            name=_as_text(function.get("name")),
            arguments=_as_arguments(function.get("arguments", function.get("parameters"))),
        )


def _as_index(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value)
    return None


def _as_text(value: Any) -> str:
    if value is None or isinstance(value, Mapping | list):
        return ""
    return str(value).strip()


def _as_arguments(value: Any) -> str | Mapping[str, Any]:
    if value is None:
        return ""
    if isinstance(value, str | Mapping):
        return value
    return _dumps(value)


def _dumps(value: Any) -> str:
    """JSON text of ``value``; never raises (odd keys or cycles fall back to ``str``)."""
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        return str(value)


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A call ready to run: ``arguments`` is the decoded JSON object."""

    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class InvalidToolCall:
    """A call that cannot run; ``error`` tells the model why (one sentence)."""

    id: str
    name: str
    raw_arguments: str
    error: str


@dataclass(frozen=True)
class AssembledCalls:
    """Valid and invalid calls of one model turn, each in order of first appearance."""

    calls: tuple[ToolCall, ...]
    invalid: tuple[InvalidToolCall, ...]
    order: tuple[str, ...] = ()
    """Every call's id, valid or not, in order of first appearance."""


_UNKNOWN: Final = object()
"""No value decoded yet (``_Slot.known_value``; ``None`` is JSON's ``null``)."""


@dataclass(slots=True)
class _Slot:
    """One call being assembled: ``text`` holds the argument fragments as
    received, ``mapping`` arguments sent as an object."""

    id: str = ""
    name: str = ""
    text: list[str] = field(default_factory=list)
    mapping: dict[str, Any] | None = None
    blank_head: bool = False
    """Opened by a head with blank arguments under an earlier call's id (``_blank_head``): a call
    only if arguments follow (else the blank piece was that earlier call's, and nothing runs)."""
    decoded: tuple[int, Any] | None = None
    """``(fragments, value)``: the strict JSON value of the first ``fragments`` fragments joined,
    found while routing (``is_complete``) and kept so that ``finish`` does not decode them again."""

    def raw_text(self) -> str:
        if self.mapping is not None:
            return _dumps(self.mapping)
        return "".join(self.text)

    def is_blank(self) -> bool:
        return not self.name and not self.has_arguments()

    def has_arguments(self) -> bool:
        """True when the arguments so far hold more than whitespace: ``raw_text().strip()``
        without joining the fragments, which routing asks for every fragment (a call's
        arguments of megabytes may come in 50,000 of them)."""
        return self.mapping is not None or any(fragment and not fragment.isspace() for fragment in reversed(self.text))

    def is_complete(self) -> bool:
        """True when the arguments so far already form a whole JSON value."""
        if self.mapping is not None:
            return True
        last = next((fragment for fragment in reversed(self.text) if fragment and not fragment.isspace()), "")
        if not last.rstrip().endswith(("}", "]")):
            return False  # cheap, before the fragments are joined: a JSON object or array is closed only by a bracket
        text = "".join(self.text).strip()
        try:
            self.decoded = (len(self.text), json.loads(text))
        except (ValueError, RecursionError):
            return bool(text) and split_concatenated(text) is not None
        return True

    def known_value(self) -> Any:
        """The strict JSON value of the fragments as they are now, when ``is_complete`` decoded
        them already; else ``_UNKNOWN``."""
        if self.decoded is None or self.decoded[0] != len(self.text):
            return _UNKNOWN
        return self.decoded[1]

    def add_arguments(self, arguments: str | Mapping[str, Any]) -> None:
        """Append a fragment; an object replaces empty arguments, else is appended as text."""
        if isinstance(arguments, Mapping):
            if self.mapping is None and not "".join(self.text).strip():
                self.mapping, self.text = dict(arguments), []
                return
            arguments = _dumps(arguments)
        if not arguments:
            return
        if self.mapping is not None:
            self.text, self.mapping = [self.raw_text()], None
        self.text.append(arguments)


class ToolCallAssembler:
    """Collects one turn's tool-call deltas; :meth:`finish` returns the calls.

    Routing of a delta (first match wins):

    1. the call registered under its ``index``, unless that call has a
       different ``id`` or ``name`` (a new call reusing the index: hermes62937,
       sglang6310);
    2. the call registered under its ``id`` under the same condition, unless the delta is another
       call's head of blank arguments (``_blank_head``); either one (or, for a delta with
       neither, the last call) whose name the delta goes on (``_name_piece``);
    3. the last call, when the delta cannot open a call of its own (no id, no
       name: a bare fragment) or, without an ``index``, fills what the last
       call lacks (pipecat5023: name first, id later) or repeats its name
       while its arguments are still incomplete (llamacpp13800);
    4. the last call, for a fragment under a new id that is nameless or
       repeats the last call's name, while the last call's arguments are
       unfinished (a fresh id stamped on every fragment; the id ``<name>``),
       unless the fragment is on its own a whole JSON object: that is a
       complete call of its own (the SDK's OpenAI-compatible base, MiniMax);
    5. otherwise a new call.

    Args:
        id_prefix: prefix of synthesised ids (``made_call_id``: ``call00001``…). Pass a
            per-round prefix (``round_id_prefix``) if ids must be unique across a conversation.
    """

    def __init__(self, *, id_prefix: str = "call") -> None:
        self._id_prefix = id_prefix
        self._slots: list[_Slot] = []
        self._by_index: dict[int, _Slot] = {}
        self._by_id: dict[str, _Slot] = {}
        self._last: _Slot | None = None
        self._blank_head = False  # _route: the delta is a new call's head of blank arguments

    def add(self, delta: ToolCallDelta) -> None:
        """Merge one delta: set ``id``/``name`` when missing, append ``arguments``."""
        slot = self._route(delta)
        if slot is None:
            slot = _Slot(blank_head=self._blank_head)
            self._slots.append(slot)
            self._register(slot, delta, replace=True)
        else:
            self._register(slot, delta, replace=False)
        slot.id = slot.id or delta.id
        if slot.name and delta.name and delta.name != slot.name:
            slot.name += delta.name  # routed here only as the rest of a split name (_name_piece)
        else:
            slot.name = slot.name or delta.name
        slot.add_arguments(delta.arguments)
        self._last = slot

    def _route(self, delta: ToolCallDelta) -> _Slot | None:
        by_index = self._by_index.get(delta.index) if delta.index is not None else None
        by_id = self._by_id.get(delta.id) if delta.id else None
        new_index = delta.index is not None and by_index is None
        self._blank_head = by_id is not None and by_index is None and _blank_head(by_id, delta, self._last, new_index)
        for candidate in (by_index, by_id):
            if candidate is not None and not _conflicts(candidate, delta):
                if self._blank_head or _starts_over(candidate, delta) or _another_call(candidate, delta, self._last):
                    return None
                return candidate
        unplaced = by_index is None and by_id is None and delta.index is None
        for candidate in (by_index, by_id, self._last if unplaced else None):
            if candidate is not None and _name_piece(candidate, delta):
                return candidate
        if by_index is None and by_id is None and self._continues_last(delta):
            return self._last
        if self._last is not None and _stray_id_fragment(self._last, delta, new_index=new_index):
            return self._last
        return None

    def _continues_last(self, delta: ToolCallDelta) -> bool:
        last = self._last
        if last is None or _conflicts(last, delta):
            return False
        if not delta.id and not delta.name:
            return True  # a bare fragment cannot open a call
        if delta.index is not None:
            return False  # an unknown index with an id or name is a new call
        if delta.id and not last.id:  # pipecat5023: the id arrives after the name, unless with a call of its own
            return not _another_call(last, delta, last)
        if delta.name and not last.name:
            return True
        if delta.id or delta.name != last.name:
            return False
        return _is_empty(delta.arguments) or (not last.is_complete() and not _starts_over(last, delta))

    def _register(self, slot: _Slot, delta: ToolCallDelta, *, replace: bool) -> None:
        if delta.index is not None and (replace or delta.index not in self._by_index):
            self._by_index[delta.index] = slot
        if delta.id and (replace or delta.id not in self._by_id):
            self._by_id[delta.id] = slot

    def finish(
        self,
        finish_reason: str | None = None,
        *,
        taken: Collection[str] = (),
        parameters: Mapping[str, Collection[str]] | None = None,
    ) -> AssembledCalls:
        """Parse every call's arguments; may be called more than once.

        Missing ids are synthesised (``call_1``…), duplicates made unique
        (``X``, ``X_2``), also against ``taken`` (ids already in the conversation: providers
        that use the tool's name or a per-reply counter as the id repeat them across rounds,
        Tongyi and Ollama); glued objects in one buffer become several calls of
        the same name (hermes62937, agno3826). Truncated arguments are reported
        as cut by the length limit only when ``finish_reason`` says so
        (hermes83229), otherwise as malformed JSON; arguments lacking only
        their closing brackets are closed when the model ended the reply
        itself (``ENDED_FINISH_REASONS``; vllm-project/vllm#32152). ``parameters``: each
        tool's parameter names by tool name, so that arguments printed as a list of the tool's
        parameter declarations are refused with that reason (``declarations.arguments_refusal``).
        """
        ids = _IdAllocator(self._id_prefix, (slot.id for slot in self._slots), taken)
        calls: list[ToolCall] = []
        invalid: list[InvalidToolCall] = []
        order: list[str] = []
        earlier: dict[str, list[dict[str, Any]]] = {}  # each tool's arguments read so far
        earlier_ids: dict[str, set[str]] = {}  # each tool's call ids as the provider sent them
        for slot in paced(self._slots):  # a reply of 100,000 calls
            if slot.is_blank() or (slot.blank_head and not slot.has_arguments()):
                continue
            try:
                pieces = _decode_finished(slot, finish_reason)
                if len(pieces) > 1 and slot.name and slot.id and slot.id not in earlier_ids.get(slot.name, ()):
                    # a merged call comes under its own, later id (a provider that names every
                    # call by its tool, Tongyi, repeats one id: its glued calls are all new)
                    pieces = _without_merged_head(pieces, earlier.setdefault(slot.name, []))
            except ArgumentsError as error:
                raw = _cumulative_snapshot(slot.text) or slot.raw_text()
                message = _error_message(error, finish_reason, raw, (parameters or {}).get(slot.name, ()))
                invalid.append(InvalidToolCall(ids.take(slot.id), slot.name, raw, message))
                order.append(invalid[-1].id)
                continue
            for number, arguments in enumerate(pieces):
                call_id = ids.take(slot.id if number == 0 else "")
                order.append(call_id)
                if slot.name:
                    calls.append(ToolCall(call_id, slot.name, arguments))
                    earlier.setdefault(slot.name, []).append(arguments)
                    earlier_ids.setdefault(slot.name, set()).add(slot.id)
                else:
                    raw = _dumps(arguments)
                    invalid.append(InvalidToolCall(call_id, "", raw, MSG_NO_NAME))
        return AssembledCalls(tuple(calls), tuple(invalid), tuple(order))


def _stray_id_fragment(last: _Slot, delta: ToolCallDelta, *, new_index: bool) -> bool:
    """An argument fragment under a new id while the last call is unfinished.

    Some bridges stamp every fragment with a fresh id: a new call would
    bring its name, and the previous call's arguments would be complete.
    Dify's OpenAI-compatible base looks deltas up by name, so with a server
    that repeats the name the rest of a call comes under the id ``<name>``:
    a repeated name continues the last call when its arguments are started
    and no new ``index`` says otherwise (parallel heads may interleave).
    Neither brings a whole JSON object on its own (the rest of a call ends
    with the call's ``}``): such a delta is a complete call (:func:`_own_call`),
    unless it brings, without a name, the first arguments of a head that has
    none (:func:`_head_arguments`). A repeated name may also open the arguments
    of a head that has none yet: the SDK base gives every named delta without
    id an id of its own, and MiniMax on NVIDIA NIM names every chunk
    (NousResearch/hermes-agent#8259). A blank fragment (``" "``, a tokenizer's space between
    ``:`` and a value) under a later id, nameless or naming the last call's tool again, continues
    the last call's started arguments (it was a call of its own, which split the call in two and
    ran neither). So does a delta that brings nothing but a later id (no name, arguments ``""``):
    LMDeploy stamps a fresh id on every fragment, empty ones too (InternLM/lmdeploy#3412), and
    through the SDK base such an empty entry stood between the call and its last piece, which was
    then told it had lost its beginning.
    """
    if not delta.id or not last.name or last.is_complete():
        return False
    if _is_empty(delta.arguments):
        same = not delta.name or delta.name == last.name  # the name again: the SDK base's shape
        carries = bool(delta.arguments) or not delta.name  # a blank piece, or nothing but an id
        return carries and same and not new_index and last.has_arguments()
    if _own_call(last, delta) and (new_index or not _head_arguments(last, delta)):
        return False
    if not delta.name:
        return True
    return delta.name == last.name and not new_index and (last.has_arguments() or _opens(delta.arguments))


def _starts_over(slot: _Slot, delta: ToolCallDelta) -> bool:
    """True when ``delta``, a head naming ``slot``'s tool under ``slot``'s id or index (or under
    none), brings a whole JSON object while ``slot``'s arguments stop inside a value: a second call
    of that tool after a first whose arguments were cut, not the rest of the first. Ids made of the
    tool's name (Dify's ollama plugin), a per-reply id or no id at all give both calls one id:
    ``{"q": "rov`` then ``{"q": "battery"}`` were joined, and the repair read the joined text as
    ``q = 'rov{"q": "battery"'``, a value the model never wrote. The cut call is then refused on
    its own (cut arguments) and the whole one runs.

    Not a start over: a nameless fragment (a call's rest); ``slot``'s arguments unstarted, ending
    with a bracket (they may be whole: a resend follows) or where a value must follow
    (``{"filter": ``, a nested object comes next); an object that every fragment of ``slot``
    starts, or that starts with them all (the arguments sent again from their start: DashScope's
    snapshots, dify-official-plugins#616; sgl-project/sglang#23071). Cheap on the usual path:
    only the last fragment is read unless the delta is a whole object after a cut."""
    arguments = delta.arguments
    if not delta.name or slot.mapping is not None or not isinstance(arguments, str):
        return False
    last = next((fragment for fragment in reversed(slot.text) if fragment.strip()), "")
    if not last or last.rstrip().endswith(("}", "]")) or ends_open(last) or not _whole_object(arguments):
        return False
    if _cumulative_snapshot([*slot.text, arguments]) is not None:
        return False
    return not strip_noise(arguments).startswith("".join(slot.text).strip())


def _another_call(slot: _Slot, delta: ToolCallDelta, last: _Slot | None) -> bool:
    """True when ``delta``, a head naming ``slot``'s tool under ``slot``'s id (no ``index``: the
    daemon drops it), brings a whole JSON object other than ``slot``'s arguments, which are whole:
    a second call under the same id, not the first one sent again (Ollama's plugin repeats every
    call so far in each packet) nor its rest. Tongyi's plugin makes the tool's name the id, and
    Gemini's or a server's ids may repeat: ``[lookup, get_weather, lookup]`` under the ids
    ``lookup``, ``get_weather``, ``lookup`` were read as the first call's arguments glued to the
    third's and run as ``[lookup, lookup, get_weather]``, so the calls went back to the model in an
    order it never wrote. Such a call keeps its place (its id is made unique in ``finish``). So
    does a head that opens arguments of its own under that id (``{"city": "Pa``, its rest in
    nameless fragments) when another call came after ``slot`` (``last``: the call read last) or
    ``slot``'s arguments do not begin with it (else they may be sent again from their start:
    sgl-project/sglang#23071). Arguments ``{}`` before it are a head's placeholder, read as
    before (the whole object after them is the call's arguments)."""
    arguments = delta.arguments
    if delta.index is not None or not delta.name or not isinstance(arguments, str) or slot.mapping is not None:
        return False
    if not _opens(arguments) or not slot.is_complete():
        return False
    before = slot.known_value()
    if before is _UNKNOWN or before == {}:  # whole only as glued objects, or ``{}`` a head held: read as before
        return False
    if not _whole_object(arguments):  # the start of a call's arguments, unless the first ones begin again
        return slot is not last or not "".join(slot.text).strip().startswith(arguments.strip())
    for text in (arguments, strip_noise(arguments)):  # as _whole_object read it
        try:
            return json.loads(text) != before
        except (ValueError, RecursionError):
            continue
    return False


def _blank_head(slot: _Slot, delta: ToolCallDelta, last: _Slot | None, new_index: bool) -> bool:
    """True when ``delta``, under ``slot``'s id (and no index of ``slot``'s), is the head of
    another call of ``slot``'s tool: it names the tool again with blank arguments (``""``, ``" "``;
    the rest follows in nameless fragments), ``slot``'s arguments are already a whole JSON object
    other than a head's ``{}`` (or whole objects glued: calls joined before), and the stream went on to another call since ``slot``
    (``last``) or the delta opens a new ``index``. Ids made of the tool's name (Tongyi, Ollama) or
    repeated by a server give both calls one id; joined, ``[lookup a, search, lookup b]`` ran as
    ``[lookup a, lookup b, search]`` (the glued objects split in ``finish``, out of the model's
    order), and a second call that did not decode took the whole first one with it.

    Not a head: the same delta while ``slot`` is the call read last under no new index (a
    server that repeats the name and id on every delta sends the space between a key and its
    value so, and may send one after the arguments closed); nor one with arguments of its own
    (``_another_call``). A call opened so that gets no arguments after its head runs nothing
    (``_Slot.blank_head``): the blank piece was the earlier call's."""
    if not delta.name or not _is_empty(delta.arguments) or (slot is last and not new_index):
        return False
    if delta.name != slot.name or not slot.is_complete():
        return False
    value = slot.mapping if slot.mapping is not None else slot.known_value()
    return value is _UNKNOWN or (isinstance(value, dict) and value != {})  # _UNKNOWN: whole as glued objects


def _head_arguments(last: _Slot, delta: ToolCallDelta) -> bool:
    """True when ``delta``, nameless, brings the first arguments of ``last``, a head with a name
    and no arguments yet: Poolside gives a call one id on its head and another on every later
    chunk (poolsideai/pool#9), so the arguments may come whole under the second id. A new call
    would bring its name; a nameless object under a new ``index`` is not read so."""
    return not delta.name and not last.has_arguments()


def _opens(arguments: str | Mapping[str, Any]) -> bool:
    """True for a text fragment that opens a JSON object or array (``{"path": ``)."""
    return isinstance(arguments, str) and arguments.lstrip()[:1] in ("{", "[")


def _name_piece(slot: _Slot, delta: ToolCallDelta) -> bool:
    """True when ``delta``, under ``slot``'s index or id but another name, is the rest of a name
    the server split as it splits arguments (ankit373/hydra#957: ``get_wea`` with ``{"ci``, then
    ``ther`` with ``ty":"Paris"}``), not a new call reusing the index (hermes62937).

    Only when the delta's id is none or ``slot``'s, ``slot``'s arguments are started but not a whole
    value, and the delta's are a fragment that cannot open arguments of their own (no ``{`` or
    ``[`` first): a new call would open its own, and as a call of its own the fragment would only
    be told to the model as arguments that lost their beginning. The joined name runs only if it
    is a declared tool (else the model is told of an unknown tool)."""
    if not delta.name or (delta.id and slot.id and delta.id != slot.id):
        return False  # a nameless fragment is no piece of a name (and is routed alike without this test)
    arguments = delta.arguments
    if not isinstance(arguments, str) or not arguments.strip() or arguments.lstrip()[:1] in ("{", "["):
        return False
    return slot.has_arguments() and not slot.is_complete()


def _own_call(last: _Slot, delta: ToolCallDelta) -> bool:
    """True when ``delta``'s arguments are a whole JSON object that cannot continue ``last``.

    Plugins send complete calls in one chunk without ``index`` (the SDK's
    OpenAI-compatible base, MiniMax): ``[{id: A, arguments: '{"city": Paris}'},
    {id: B, arguments: '{"city": "Rome"}'}]`` is two calls, not B glued to A's
    malformed arguments. A nameless object where ``last`` awaits a value
    (``'{"filter": '``) may still be a nested value cut out by a bridge that
    stamps every fragment with a fresh id, and one where ``last`` stops inside
    a string (``'{"q": "'`` then ``' {}'``, then ``'"}'``) is that string's text:
    a new call would bring its name.
    """
    if not _whole_object(delta.arguments):
        return False
    if delta.name:
        return True
    text = last.raw_text()
    return not ends_open(text) and (owed_closers(text) or "")[:1] not in ("\"", "'")


def _whole_object(arguments: str | Mapping[str, Any]) -> bool:
    """True for a mapping, or text that is (noise aside: ``strip_noise``) one JSON object."""
    if isinstance(arguments, Mapping):
        return True
    for text in (arguments.strip(), strip_noise(arguments)):
        if text.startswith("{") and text.endswith("}"):
            try:
                return isinstance(json.loads(text), dict)
            except (ValueError, RecursionError):
                continue
    return False


def _is_empty(arguments: str | Mapping[str, Any]) -> bool:
    return isinstance(arguments, str) and not arguments.strip()


def _conflicts(slot: _Slot, delta: ToolCallDelta) -> bool:
    """True when ``delta`` names a different call than ``slot`` (other id or name)."""
    other_id = bool(delta.id and slot.id and delta.id != slot.id)
    return other_id or bool(delta.name and slot.name and delta.name != slot.name)


def _decode_finished(slot: _Slot, finish_reason: str | None) -> list[dict[str, Any]]:
    """:func:`_decode_slot`; when that fails, the arguments with the closing brackets they
    lack appended, if those are all they lack and the model ended its reply itself.

    vLLM's hermes parser drops a call's final ``}`` under MTP or ``--stream-interval``
    (vllm-project/vllm#32152, #15274): ``'{"city": "Paris"'`` with ``tool_calls`` runs as
    ``{"city": "Paris"}``. After a length cut the last value may be cut too: never closed.
    Raises the first ``ArgumentsError`` when the closed text does not decode either (not an object).
    """
    try:
        return _decode_slot(slot)
    except ArgumentsError as error:
        ended = (finish_reason or "").lower() in ENDED_FINISH_REASONS
        closed = only_closers_missing(_cumulative_snapshot(slot.text) or slot.raw_text()) if ended else None
        if closed is None:
            raise
        try:  # within the handler: ``error`` is then dropped from this frame, which its traceback holds
            return _decode_text(closed)
        except ArgumentsError:
            raise error from None


def _decode_slot(slot: _Slot) -> list[dict[str, Any]]:
    """The argument objects of one call: usually one, several when glued.

    Fragments are joined; if that is not JSON but every fragment is a start
    of the last one, the provider resent the whole arguments-so-far each time
    (DeepSeek/Qianfan cumulative mode, hermes-agent#35592; DashScope, which
    may send the complete arguments first, dify-official-plugins#616; the Azure
    OpenAI plugin for reasoning deployments, which yields its growing call list
    with every delta) and the last fragment is the arguments, before any repair.
    """
    if slot.mapping is not None:
        return [dict(slot.mapping)]
    joined = "".join(slot.text)
    snapshot = _cumulative_snapshot(slot.text)
    if snapshot is not None and split_concatenated(joined.strip()) is None:
        # snapshots joined are not JSON, but the lenient repair could still read them as
        # something (``{"city": "Pa{"city": "Paris"}``): the last snapshot is the arguments
        try:
            return _decode_text(snapshot)
        except ArgumentsError:
            pass
    return _decode_text(joined, slot.known_value())


def _resent_after_a_start(text: str) -> dict[str, Any] | None:
    """The object a server sent whole right after a start of it, when ``text`` (arguments that
    did not decode) is exactly that: a piece ``P`` that opens the object, then the object ``O``,
    with ``O`` beginning with ``P`` (sgl-project/sglang#23071: MiniMax-M2's streaming parser
    sent ``{"command": "ls"`` and then ``{"command": "ls", "description": "List"}`` for one call).

    Nothing is guessed: every character of ``P`` is in ``O``, which decodes strictly as a JSON
    object on its own; None for any other text (a start that ``O`` does not repeat, anything
    after ``O``). Read before any repair, which could take ``P`` and ``O`` for one object with a
    wrong value (``{"a": "x{"a": "x", "b": 2}`` gives ``"a"`` the text ``x{"a": "x``); only on the
    path of arguments that are no strict JSON, so it costs nothing to a call that decodes."""
    text = text.strip()
    head = text[:_RESEND_HEAD]
    tries = 0
    position = text.find("{", 1)
    while 0 < position <= len(text) // 2:  # ``P`` is shorter than ``O``
        if text.startswith(text[: min(position, _RESEND_HEAD)], position):  # ``O`` may begin here
            tries += 1
            if tries > _RESEND_TRIES:
                return None  # text that repeats itself: no single resend to find
            try:  # decoded in place, in time in proportion to ``O``
                value, end = raw_decode_at(text, position)
            except (ValueError, RecursionError):
                value, end = None, 0
            if end == len(text) and isinstance(value, dict) and text.startswith(text[:position], position):
                return value
        # past the head's length, ``O`` can only begin where the head comes again (found in C)
        position = text.find("{", position + 1) if position + 1 < _RESEND_HEAD else text.find(head, max(position + 1, 1))
    return None


_RESEND_HEAD: Final = 64
"""How many first characters of a text ``_resent_after_a_start`` looks for where the resent
object may begin."""


_RESEND_TRIES: Final = 8
"""How many places ``_resent_after_a_start`` tries as the start of the resent object: a few in
real arguments (a ``{`` in a value that repeats the first characters is rare); text that repeats
itself (``{"a":{"a":{"a":...``) would otherwise cost a decode at every ``{``."""


def _cumulative_snapshot(fragments: list[str]) -> str | None:
    parts = [fragment for fragment in fragments if fragment.strip()]
    if len(parts) < 2 or not all(parts[-1].startswith(part) for part in parts):
        return None
    return parts[-1]


def _decode_text(text: str, known: Any = _UNKNOWN) -> list[dict[str, Any]]:
    """Arguments as sent, decoded strictly first: special tokens and fences are stripped only
    when the text does not read as it is, so a value holding ``[TOOL_CALLS]`` or ``<|eot_id|>``
    keeps it (``decode_arguments`` reads the same way). A text that is one JSON value (the usual
    case) is decoded once, however large (``known``: its strict value, when routing decoded it
    already); glued objects, noise and repairs are looked for only when it is not."""
    try:
        value = loads(text) if known is _UNKNOWN else surrogates_replaced(known, text)
    except (ValueError, RecursionError):
        pass  # glued objects, noise, almost-JSON: read below
    else:  # one value: neither glued (that fails strictly) nor made so by dropping noise (only in strings)
        arguments = arguments_object(value, text)
        return _wrapped_concatenation(arguments) or [arguments]
    glued = split_concatenated(text.strip())
    if glued is None:
        glued = split_concatenated(strip_noise(text))
    if glued is not None:
        return _collapse_resends(glued)
    resent = _resent_after_a_start(text)
    if resent is not None:
        return [resent]
    arguments = decode_arguments(text)
    return _wrapped_concatenation(arguments) or [arguments]


def _without_merged_head(pieces: list[dict[str, Any]], earlier: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``pieces`` (a call's glued argument objects) less the head that repeats ``earlier`` (the
    arguments of the earlier calls of the same tool in this reply, in order), when they all start it
    and more follows.

    The StepFun model plugin (``models/stepfun/models/llm/llm.py`` 23ce2fa in
    langgenius/dify-official-plugins) merges a reply's streamed calls by tool name, gluing the
    arguments of a second call of a tool to the first's under the later id, and sends that merged
    list after the stream; a delta that closed the reasoning had already carried the first call
    whole on its chunk. ``{"q": "a"}`` (id 1), then ``{"q": "a"}{"q": "b"}`` (id 2) is two calls,
    not three: the first ran twice before. A head that is not every earlier call of the tool, in
    order, is kept (glued parallel calls of a server, hermes62937)."""
    count = len(earlier)
    return pieces[count:] if 0 < count < len(pieces) and pieces[:count] == earlier else pieces


def _collapse_resends(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One buffer holding the same object K times is one call sent again.

    Proxies that stream fragments and then the consolidated call produce
    ``{"command": "ls"}{"command": "ls"}`` (elizaOS#16973, opencodex#361).
    Empty objects before the first non-empty one are placeholders sent ahead
    of the arguments: Anthropic's ``input: {}`` (litellm#4537), Gemini's
    name part with ``args: {}``. Different objects stay separate calls
    (hermes62937).
    """
    start = next((number for number, item in enumerate(objects) if item), 0)
    first = objects[start]
    rest = objects[start + 1 :]
    return [first] if all(item == first for item in rest) else objects[start:]


def _wrapped_concatenation(arguments: dict[str, Any]) -> list[dict[str, Any]] | None:
    """agno3826: ``{"text": "{..}{..}{..}"}``, glued calls wrapped in one string key."""
    if len(arguments) != 1:
        return None
    (value,) = arguments.values()
    return split_concatenated(value) if isinstance(value, str) else None


def _error_message(
    error: ArgumentsError, finish_reason: str | None, raw: str = "", parameters: Collection[str] = ()
) -> str:
    """What the model is told of arguments that did not decode (``error``), given the text
    they were (``raw``), how the reply ended and the tool's parameter names (``parameters``)."""
    if _head_lost(raw):
        return MSG_HEAD_LOST.format(start=raw.strip()[:_HEAD_SHOWN])
    if not error.truncated:
        return arguments_refusal(error, parameters)
    if (finish_reason or "").lower() in LENGTH_FINISH_REASONS:
        return MSG_CUT_BY_LENGTH.format(detail=error.detail)
    return MSG_MALFORMED.format(detail=error.detail)


_HEAD_SHOWN: Final = 40
"""How many characters of arguments that lost their beginning the model is shown (``MSG_HEAD_LOST``)."""


def _head_lost(raw: str) -> bool:
    """Whether ``raw``, arguments that did not decode, is the rest of a JSON object whose first
    piece a server dropped (``code": "uptime"}``, ``, "timeout": 5}``: vLLM's Anthropic endpoint
    and its Responses serializer lost the delta carrying ``{"``, vllm-project/vllm PR #34887,
    #42683): it ends with the object's ``}`` but does not open with ``{`` or ``[``, after
    special tokens and a fence are stripped. The call cannot be rebuilt (the lost piece may have
    held a key and a value), so it is not guessed at."""
    text = raw.strip()
    if not text.endswith("}") or text[:1] in ("{", "["):
        return False
    text = strip_noise(text)
    return text[:1] not in ("{", "[", "") and text.endswith("}")


MADE_ID_LENGTH: Final = 9
"""Length of a call id the strategy makes (``made_call_id``), of letters and digits only: the
strictest rule a provider puts on the ids it is sent back. Mistral's API and its tokenizer
(``mistral_common``, which vLLM and other servers use for Mistral models) refuse any other id
("Tool call id was call_1 but must be a-z, A-Z, 0-9, with a length of 9."); such an id also
fits Anthropic's and Bedrock's ``^[a-zA-Z0-9_-]+$`` and OpenAI's (Azure's) 40 characters."""

_MISTRAL_ID = re.compile(r"[A-Za-z0-9]{9}")
"""An id of the strictest shape (``MADE_ID_LENGTH``): one made unique keeps that shape."""

_MISTRAL_MODEL = re.compile(r"(?:open-)?(?:mistral|mixtral|magistral|devstral|codestral|ministral|pixtral)", re.IGNORECASE)
"""The names Mistral AI gives its models (``mistral-large-latest``, ``open-mixtral-8x22b``,
``magistral-medium``, ``devstral-small``...), at the start of a model name or after its
``vendor/`` (``mistralai/mistral-small``)."""


def wants_strict_call_ids(provider: str, model: str) -> bool:
    """Whether the model-selector's ``provider`` (``langgenius/mistralai/mistralai``) and
    ``model`` reach a server that refuses every tool-call id not of the strictest shape
    (``MADE_ID_LENGTH``): Mistral AI's model plugin, or a Mistral model by name behind another
    (an OpenAI-compatible endpoint in front of Mistral's API or ``mistral_common``). Ids other
    providers made (OpenAI's ``call_...``, Anthropic's ``toolu_...``) reach it only from memory,
    written while the node used another model."""
    parts = provider.split("/")
    if (parts[-2] if len(parts) > 1 else parts[0]) == "mistralai":
        return True
    return bool(_MISTRAL_MODEL.match(model.rsplit("/", 1)[-1]))


def is_strict_call_id(call_id: str) -> bool:
    """Whether ``call_id`` is of the strictest shape (``MADE_ID_LENGTH`` letters and digits)."""
    return _MISTRAL_ID.fullmatch(call_id) is not None


def round_id_prefix(round_index: int) -> str:
    """The prefix of the ids made in round ``round_index`` (1-based): ``c0001``, so that ids of
    different rounds differ (``made_call_id``)."""
    return f"c{round_index:04d}"


def made_call_id(prefix: str, number: int) -> str:
    """The id of the ``number``-th (1-based) call made up under ``prefix``: the prefix, then the
    number zero-padded to fill ``MADE_ID_LENGTH`` characters (``c0001`` and 1 give
    ``c00010001``; longer only when they do not fit). Made of letters and digits when the prefix
    is (every prefix the strategies use for calls sent back as native calls is)."""
    digits = str(number)
    return prefix + digits.rjust(MADE_ID_LENGTH - len(prefix), "0")


def fresh_call_ids(prefix: str, amount: int, taken: Collection[str] = ()) -> list[str]:
    """``amount`` ids made under ``prefix`` (``made_call_id``), none of them in ``taken``
    (the ids already in the conversation)."""
    ids = _IdAllocator(prefix, (), taken)
    return [ids.take("") for _ in range(amount)]


class _IdAllocator:
    """Unique, deterministic call ids: provider ids kept, the rest ``made_call_id``."""

    def __init__(self, prefix: str, provided: Iterable[str], used: Iterable[str] = ()) -> None:
        self._prefix = prefix
        self._taken = {value for value in provided if value}
        self._used: set[str] = set(used)
        self._kept = 0  # characters of the provider ids kept so far (``MAX_REPLY_CALL_ID_CHARS``)
        # wanted id -> the first variant number not known to be taken: ids are only ever added,
        # so the numbers before it stay taken (thousands of calls cost one try each, not all)
        self._next: dict[str, int] = {}

    def take(self, wanted: str) -> str:
        """``wanted`` if still free, else a variant of it (``wanted_2``…; for an id of the
        strictest shape, ``_MISTRAL_ID``, one of that shape: its last characters replaced by the
        number); ``made_call_id`` when empty, longer than ``MAX_CALL_ID_CHARS``, or when it would
        take the ids kept past ``MAX_REPLY_CALL_ID_CHARS``."""
        if len(wanted) > MAX_CALL_ID_CHARS or self._kept + len(wanted) > MAX_REPLY_CALL_ID_CHARS:
            wanted = ""
        self._kept += len(wanted)
        if wanted and wanted not in self._used:
            self._used.add(wanted)
            return wanted
        number = self._next.get(wanted, 2 if wanted else 1)
        while (fresh := _variant(wanted, number, self._prefix)) in self._used or fresh in self._taken:
            number += 1
        self._next[wanted] = number + 1
        self._used.add(fresh)
        return fresh


def _variant(wanted: str, number: int, prefix: str) -> str:
    """The ``number``-th candidate id for a call that wanted ``wanted`` ('' when it came
    without one), as ``_IdAllocator.take`` tries them."""
    if not wanted:
        return made_call_id(prefix, number)
    if _MISTRAL_ID.fullmatch(wanted):
        digits = str(number)
        return wanted[: MADE_ID_LENGTH - len(digits)] + digits
    return f"{wanted}_{number}"
