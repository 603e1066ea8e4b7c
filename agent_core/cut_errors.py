"""Knowing a reply was cut by the output limit from the error a model plugin raised for it.

Most model plugins say a cut with a finish reason (``length``, ``max_tokens``…) on the reply's
last chunk (docs/providers.md, "Replies cut by the output limit"). One official plugin raises
instead, after the reply's text has streamed: the Anthropic plugin from 0.3.33 (commit 1c274cb,
``models/anthropic/models/llm/llm.py``, at ``MessageStopEvent``) raises ``InvokeError("Anthropic
returned incomplete tool arguments (stop_reason=max_tokens). Increase max_tokens and retry.")``
when the limit fell inside a ``tool_use`` block's JSON input. It sends neither the call nor the
last chunk (no usage, no ``opaque_body``): what reached the strategy is the text streamed before.

``model_call.invoke_model`` ends such a reply with one more chunk whose finish reason is
``CUT_IN_TOOL_CALL`` (one of ``tool_calls.LENGTH_FINISH_REASONS``): the reply takes the path a
``length`` cut takes (never run as a call, never shown as a final answer; asked again once,
then the run ends with the output-limit notice), and Function Calling reads it as a cut call,
not as a cut answer to continue (the model was writing a call: ``prompts.REPLY_CUT`` asks it
again, shorter).

The matcher is deliberately narrow: only the exact phrase the plugin writes, with a stop reason
that is a cut (``max_tokens``; ``model_context_window_exceeded``, which the strategies read as a
cut finish reason too). Any other error, one that merely mentions tokens or limits included, is
a model failure as before (the run ends with it).
"""

import re

CUT_IN_TOOL_CALL = "cut_in_tool_call"
"""The finish reason ``invoke_model`` adds after a reply whose model plugin raised an
``OUTPUT_LIMIT_ERRORS`` error: the output limit cut the reply inside a tool call's arguments."""

OUTPUT_LIMIT_ERRORS = (
    # Anthropic plugin 0.3.33 (1c274cb) and later: a tool_use input cut inside its JSON
    re.compile(r"Anthropic returned incomplete tool arguments \(stop_reason=(?:max_tokens|model_context_window_exceeded)\)"),
)
"""The errors, as their model plugins word them, that say the output limit cut the reply (and
nothing else went wrong). Searched in the error's text as the run reads it
(``errors.error_text``: the SDK's error object unwrapped, tracebacks left out), so a message
quoted by the daemon or Dify (``PluginInvokeError: {..."message": "Anthropic returned…"}``) is
found too."""

_SEARCHED_CHARS = 4_000
"""Characters of an error's text searched at each end: the phrase opens the plugin's message,
which the daemon and Dify wrap in a few words; a message of megabytes (a provider that echoes
the request) is not searched whole."""


def cut_error_reason(text: str) -> str | None:
    """``CUT_IN_TOOL_CALL`` when ``text`` (a model call's error, as ``errors.error_text`` reads
    it) is one a model plugin raises because the output limit cut the reply
    (``OUTPUT_LIMIT_ERRORS``), else None. Looks at the first and last ``_SEARCHED_CHARS``
    characters only: constant work on any message."""
    if len(text) > 2 * _SEARCHED_CHARS:
        text = text[:_SEARCHED_CHARS] + "\n" + text[-_SEARCHED_CHARS:]
    if any(pattern.search(text) for pattern in OUTPUT_LIMIT_ERRORS):
        return CUT_IN_TOOL_CALL
    return None
