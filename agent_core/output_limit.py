"""Knowing a reply was cut by the output limit from its usage, when no finish reason says so.

Three paths bring a cut reply with no ``length`` finish reason (docs/providers.md, "Replies cut
by the output limit"): the Ollama model plugin (always ``stop``; Ollama's ``done_reason`` is not
passed on), any blocking reply (the SDK's ``LLMResult`` has no finish reason) and a Gemini reply
whose last response has no content parts (none). The usage still tells: a reply whose completion
tokens equal the output limit the request set stopped there. ``model_call.invoke_model`` then
ends the reply's chunks with one more, whose finish reason ``LENGTH_BY_USAGE`` is one of
``LENGTH_FINISH_REASONS``: the reply takes the path a ``length`` takes.
"""

import math
from collections.abc import Mapping
from typing import Any

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

