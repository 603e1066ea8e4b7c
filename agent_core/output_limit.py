"""Knowing a reply was cut by the output limit from its usage, when no finish reason says so.

Two paths bring a cut reply with no ``length`` finish reason (docs/providers.md, "Replies cut
by the output limit"): the Ollama model plugin (always ``stop``; Ollama's ``done_reason`` is not
passed on) and any blocking reply (the SDK's ``LLMResult`` has no finish reason). (A Gemini reply
whose last response has no content parts brings neither a reason nor usage: nothing tells.) The
usage still tells: a reply whose completion
tokens equal the output limit the request set stopped there. ``model_call.invoke_model`` then
ends the reply's chunks with one more, whose finish reason ``LENGTH_BY_USAGE`` is one of
``LENGTH_FINISH_REASONS``: the reply takes the path a ``length`` takes.

Two more ways a cut finish reason used to be missed are read here too (``reply_end``): a stream
that says ``length`` on one chunk and ``stop`` (or another reason) on a later one, whose last
reason used to win; and the Vertex AI plugin's ``str()`` of a protobuf enum, which Python 3.11 and
later print as the member's number (``"2"`` for ``MAX_TOKENS``: ``google_reason``).

The other reply a finish reason tells apart is one the provider's content or safety filter stopped
(``is_filter_reason``): its text, if any, is not the whole answer, and a reply it stopped before
any text is no empty answer of the model's own.
"""

import math
from collections.abc import Mapping
from typing import Any

from agent_core.tool_calls import LENGTH_FINISH_REASONS

OUTPUT_LIMIT_PARAMS = ("max_tokens", "max_completion_tokens", "max_output_tokens", "num_predict")
"""Completion parameters that set the reply's output limit (tokens), as the official model
plugins name them in their parameter rules: ``max_tokens`` (OpenAI, Anthropic, most),
``max_output_tokens`` (Gemini, Vertex AI), ``num_predict`` (Ollama; -1 and -2 mean no limit),
``max_completion_tokens`` (OpenAI's own name for reasoning models, kept by some
OpenAI-API-compatible setups)."""

UNTRUSTED_REASONS = frozenset({"stop"})
"""Finish reasons (compared lower-cased) that do not rule a cut out: the Ollama plugin's ``stop``
is sent whatever Ollama's ``done_reason`` was. Any other reason comes from a plugin that passes
its provider's own reasons on, a cut included (``tool_calls``, ``tool_use``, ``end_turn``,
``content_filter``…): it is believed. A reply with no finish reason at all is read by its usage
too."""


def output_limit(completion_params: Mapping[str, Any] | None) -> int | None:
    """The output limit (tokens) the request's ``completion_params`` set, or None when none is set.

    Read from ``OUTPUT_LIMIT_PARAMS``: a value counts when it is a number (not a bool, not text)
    of at least 1 (``num_predict`` -1 is no limit); a float is truncated (``256.0`` is 256).
    When several are set, the largest: a model plugin reads one of them, and a reply that reached
    only the smaller one may still be well short of the one the plugin sent."""
    if not completion_params:
        return None
    limits = []
    for name in OUTPUT_LIMIT_PARAMS:
        value = completion_params.get(name)
        number = type(value) is int or (type(value) is float and math.isfinite(value))
        if number and (tokens := int(value)) >= 1:
            limits.append(tokens)
    return max(limits) if limits else None


def cut_by_usage(finish_reason: str | None, completion_tokens: int | None, limit: int | None) -> bool:
    """Whether a reply whose last finish reason is ``finish_reason`` and whose usage reports
    ``completion_tokens`` (reasoning tokens included, as providers count them) was cut by the
    output ``limit`` (``output_limit``) although no finish reason says so.

    True only when: a limit is set; the reason is none or one not believed
    (``UNTRUSTED_REASONS``); and the completion tokens equal the limit. A reason that already
    says ``length`` needs no guess (False). Missing or zero usage tells nothing (False). A count
    over the limit is not a count of what the limit bounds (the SDK base's GPT-2 estimate of the
    text when the server sent no usage, or reasoning a provider leaves out of the limit): it
    proves nothing (False)."""
    if limit is None or not completion_tokens:
        return False
    reason = (finish_reason or "").lower()
    if reason and reason not in UNTRUSTED_REASONS:
        return False  # believed, or already a length cut (``LENGTH_FINISH_REASONS``)
    return completion_tokens == limit


GOOGLE_FINISH_REASONS = {"1": "STOP", "2": "MAX_TOKENS", "3": "SAFETY", "4": "RECITATION"}
"""The numbers of Google's protobuf ``Candidate.FinishReason`` enum that are the same in Vertex AI's
and the Gemini API's (``STOP`` 1, ``MAX_TOKENS`` 2, ``SAFETY`` 3, ``RECITATION`` 4; from 6 on the
two enums differ) and their names. The Vertex AI model plugin sends
``str(candidate.finish_reason)``; that enum is a proto-plus ``IntEnum``, and from Python 3.11 on
``str()`` of an ``IntEnum`` member is its number, so under its Python 3.12 runner a reply cut at
``max_output_tokens`` arrives with ``"2"``, one that ended with ``"1"``."""

GOOGLE_PROVIDERS = frozenset({"vertex_ai", "gemini", "google"})
"""Names (any ``/``-separated segment of the model's ``provider``: ``langgenius/vertex_ai/vertex_ai``,
``langgenius/gemini/google``) of the model plugins whose finish reasons may be Google's enum
numbers. Another plugin's number is left as it came: its meaning is that plugin's."""


def google_reason(reason: str, provider: str | None) -> str:
    """``reason`` (a finish reason as ``model_call._finish_reason`` read it), or the name of the
    Google enum member it numbers (``GOOGLE_FINISH_REASONS``: ``"2"`` is ``MAX_TOKENS``) when the
    model's ``provider`` is one of ``GOOGLE_PROVIDERS``."""
    named = GOOGLE_FINISH_REASONS.get(reason)
    if named is None or not provider or GOOGLE_PROVIDERS.isdisjoint(provider.split("/")):
        return reason
    return named


def is_cut_reason(reason: str | None) -> bool:
    """Whether ``reason`` says the output limit stopped the reply (``LENGTH_FINISH_REASONS``,
    compared lower-cased)."""
    return bool(reason) and reason.lower() in LENGTH_FINISH_REASONS


def reply_end(last: str | None, first_cut: str | None) -> str | None:
    """The finish reason to add after a reply's last chunk, or None: ``first_cut`` (the first
    finish reason of the reply that said it was cut) when the ``last`` reason the reply sent does
    not say so.

    A cut said anywhere in the reply marks it cut: a stream that sends ``length`` and then, on a
    later chunk, ``stop`` or ``tool_calls`` (a proxy that sends its own reason at the end, a
    usage-only chunk with a reason of its own) was still cut, and its last reason, which the
    strategies read, would hide it. No official model plugin sends a cut reason and then goes on
    with the same reply: each sends its finish reason once, on its last chunk (docs/providers.md,
    "Replies cut by the output limit")."""
    if first_cut is None or is_cut_reason(last):
        return None
    return first_cut


FILTER_FINISH_REASONS = frozenset({
    "content_filter", "content_filtered", "guardrail_intervened", "refusal",
    "safety", "recitation", "blocklist", "prohibited_content", "spii", "image_safety", "model_armor",
})
"""Finish reasons (compared lower-cased) that say the provider's content or safety filter stopped
the reply, as providers name them: ``content_filter`` (OpenAI's and Azure OpenAI's chat
completions; an Azure stream the filter stopped ends with it, ravendb/ravendb PR #22997),
``content_filtered`` and ``guardrail_intervened`` (Amazon Bedrock's Converse ``stopReason``),
``refusal`` (Anthropic's ``stop_reason`` when its streaming classifiers stop a Claude 4 reply,
after any text it wrote), and Google's ``Candidate.FinishReason`` names (``SAFETY``,
``RECITATION``, ``BLOCKLIST``, ``PROHIBITED_CONTENT``, ``SPII``, ``IMAGE_SAFETY``, ``MODEL_ARMOR``;
Google notes that a streamed candidate the filter blocked has no content)."""


def is_filter_reason(reason: str | None) -> bool:
    """Whether the finish ``reason`` (as ``model_call`` read it: Google's enum numbers already
    named, ``google_reason``) says the provider's content or safety filter stopped the reply
    (``FILTER_FINISH_REASONS``)."""
    return bool(reason) and reason.lower() in FILTER_FINISH_REASONS


BROKEN_STREAM_REASONS = frozenset({"non-json encountered."})
"""Finish reasons (compared lower-cased) that say the model plugin stopped reading the model's
stream part-way, not the model: the Dify plugin SDK's OpenAI-compatible base
(``dify_plugin/interfaces/model/openai_compatible/llm.py``, ``_handle_generate_stream_response``,
which the official ``openai_api_compatible`` plugin and many others inherit) ends the stream with
``"Non-JSON encountered."`` at the first SSE event pydantic cannot read, and drops that event and
all after it. One such event is a delta holding half of an emoji as a lone surrogate escape
(``"\\ud83d"``: elie222/rakazo#416 saw a stream cut there), which pydantic-core refuses."""


def is_broken_stream_reason(reason: str | None) -> bool:
    """Whether the finish ``reason`` says the model plugin stopped reading the stream part-way
    (``BROKEN_STREAM_REASONS``): the reply's rest never arrived."""
    return bool(reason) and reason.lower() in BROKEN_STREAM_REASONS
