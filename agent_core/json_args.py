"""Lenient decoding of tool-call arguments, and splitting of glued JSON objects.

Models and provider bridges send arguments in many shapes (all seen in
docs/real-world-cases.md lists the threads behind the case ids):

* a JSON object as text, ``'{"city": "Paris"}'`` (OpenAI and most providers);
* an already parsed object, ``{"city": "Paris"}`` (ollama8337, smolagents1003);
* JSON text encoding a JSON string, ``'"{\\"city\\": \\"Paris\\"}"'`` (smolagents1003);
* ``''`` for a call without arguments (camel4338);
* almost-JSON: single quotes, trailing commas, ``None``/``True``/``False``,
  invalid escapes such as ``\\_``, code fences, a fence's ``json`` word left without
  the fence (tenstorrent/tt-inference-server#3683), leaked special tokens such as
  ``<|eot_id|>`` (deepseekv3-826);
* several objects glued into one buffer, ``'{..}{..}'`` (hermes25333, hermes62937);
* line comments outside strings, ``# ...`` and ``// ...`` (FoundationAgents/MetaGPT PR #799:
  GLM-4 and gpt-4-1106-preview; jataware/archytas#35), and a line of prose after the line that
  closes the value (run-llama/llama_index#7074): :func:`_uncommented`, :func:`_before_prose`;
* truncated text, ``'{"city": "San Fra'`` (camel4338);
* the final ``}`` dropped by the server, ``'{"city": "Paris"'`` (vllm-project/vllm#32152):
  :func:`only_closers_missing`, for a caller that knows the reply was not cut.

Rules: strict ``json.loads`` first; then invalid escapes fixed; then repair with
``json_repair``, but never on truncated text (executing a tool with a half-written
value is worse than asking again) nor on text it would rescan at each of many levels
(:func:`costly_to_repair`: minutes for a megabyte of ``[{(``), and only when the repair keeps what the model
wrote (``repair_problem``: the one trust rule, for both strategies). Whatever cannot be
recovered raises :class:`ArgumentsError`, whose message is written for the
model (it becomes part of ``prompts.INVALID_ARGUMENTS``). Whatever is decoded must be
writable by the SDK's encoder: half a surrogate pair becomes U+FFFD (``loads``); arguments
nested deeper than ``MAX_DEPTH`` are refused when the call is run (``tool_runner``), whichever
way they were read.
"""

import ast
import itertools
import json
import math
import re
import warnings
from collections.abc import Iterator, Mapping
from typing import Any

import json_repair

from agent_core import repair_strings
from agent_core.fairness import GRAIN, give_way, off_hub, paced
from agent_core.prompts import (
    MSG_NOT_JSON,
    MSG_NOT_OBJECT,
    MSG_SEVERAL_OBJECTS,
    MSG_TRUNCATED,
    REPAIR_CUT_LITERAL,
    REPAIR_INVENTED,
    REPAIR_LOST_WORD,
    REPAIR_MERGED,
    REPAIR_NOT_CONTAINER,
    REPAIR_NOTHING,
    REPAIR_TOO_DEEP,
    REPAIR_WRONG_KIND,
)
from agent_core.quoted import QuotedScan

MAX_NESTED_ENCODING = 3
"""How many times a JSON string holding JSON is unwrapped (double encoding)."""

MAX_DEPTH = 64
"""Deepest nesting of arrays and objects accepted in arguments. JSON nested much deeper breaks
the SDK's own encoder (pydantic-core stops at 255 levels) when it writes the call's log line
or the tool request, which would end the run with an opaque error; no real tool nests so deep."""

MAX_LISTED_CLOSERS = 4
"""Missing closing brackets named in a truncation message; the rest are counted."""

SPECIAL_TOKEN = re.compile(r"<\|[^|<>\s]{1,40}\|>|<｜[^｜<>]{1,40}｜>|\[TOOL_CALLS\]")
"""Leaked chat-template tokens: ``<|eot_id|>``, ``<|im_end|>``, ``<|python_tag|>``,
DeepSeek's full-width ``<｜end▁of▁sentence｜>`` and Mistral's ``[TOOL_CALLS]``."""

_NOISE_OUTSIDE_STRINGS = re.compile(
    r""" ( "[^"\\]*+(?:\\.?+[^"\\]*+)*+(?:"|\Z)                   # a double-quoted string, kept
         | [{\[,:][ \t\r\n]*+'[^'\\]*+(?:\\.?+[^'\\]*+)*+(?:'|\Z) )  # a single-quoted one where a value stands
       | """ + SPECIAL_TOKEN.pattern,
    re.VERBOSE | re.DOTALL,
)
"""A string (group 1: kept as written), else a special token (dropped) outside any. A string is
double-quoted anywhere, or single-quoted (Python-style arguments) right after ``{``, ``[``, ``,``
or ``:`` (an apostrophe in a word opens none). A string never closed runs to the end of the text:
each quote is scanned once (no retry from the next one, which was quadratic on ``"\\"``
repeated), and a token after an unclosed quote stays (that text is refused as cut anyway)."""

_FENCE = re.compile(r"^```[\w+-]*+[ \t]*+\n?(.*?)\n?```$", re.DOTALL)
"""A fenced block's body. The language and the blanks after it are possessive (backticks end
them, so no match is lost): backtracking them under the lazy body was quadratic, a quarter of a
second on 4,000 blanks after the opening backticks."""
_CLOSING_ENVELOPE_TAG = re.compile(r"(?<=[}\]])\s*</tool_call>\Z")
"""``</tool_call>`` right after the closing bracket of a JSON value, ending the text."""
_JSON_WORD = re.compile(r"json\s+(?=\{)", re.IGNORECASE | re.ASCII)
"""A fence's language word leaked ahead of the object, ``json\\n{..}`` (tenstorrent/tt-inference-server#3683)."""
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_VALID_ESCAPES = frozenset("\"\\/bfnrtu'")
_WORD = re.compile(r"[^\W_]+")
_PY_LITERALS = {"True": "true", "False": "false", "None": "null"}
_QUOTED = QuotedScan("(?!)", flags=re.DOTALL)
_LINE_COMMENT = QuotedScan(r"(?P<comment>(?<![^\s,{\[])(?<!:\s)(?:\#|//)[^\n]*+)", flags=re.DOTALL)
"""Outside closed strings, a line comment, ``# ...`` or ``// ...`` to the line's end, that starts
the text or follows a blank, ``,``, ``{`` or ``[`` (not a value's place after ``: ``, where
``#fff`` would be an unquoted value): what models write beside a value (MetaGPT PR #799). Its
text is consumed whole, so an apostrophe in it (``# the user's city``) opens no string."""
"""Closed strings, ``"`` or ``'``, escapes honoured (``"(?:[^"\\\\]|\\\\.)*"``), in linear time."""
_CUT_LITERALS = frozenset(w[:k] for w in ("true", "false", "null") for k in range(2, len(w)))
"""Bare words that are a JSON literal cut short (``tru``, ``fals``, ``nul``): a repair would
make them strings, but the model meant a literal."""


class ArgumentsError(ValueError):
    """Arguments that cannot be turned into a JSON object.

    ``str(error)`` is model-facing: short, says what is wrong and where.
    ``truncated`` is True when the text stops inside a string or before its
    brackets close, so the caller can say "cut by the length limit" when the
    model's ``finish_reason`` was ``length`` (and only then: hermes83229);
    ``detail`` is the bare description (``"unterminated string starting at
    character 9"``) for callers that word the message themselves. ``array`` is the array the
    arguments were, when they were one (``declarations.arguments_refusal`` reads it), else None.
    """

    def __init__(self, message: str, *, truncated: bool = False, detail: str = "", array: list | None = None) -> None:
        super().__init__(message)
        self.truncated = truncated
        self.detail = detail or message
        self.array = array


def strip_noise(text: str) -> str:
    """Remove special tokens outside strings, one surrounding code fence and a leading ``json``
    word; trim whitespace. A token inside a string is the value's text and stays
    (``'{"q": "what does <|im_end|> mean"}<|eot_id|>'`` -> ``'{"q": "what does <|im_end|> mean"}'``:
    ``_NOISE_OUTSIDE_STRINGS``). A ``</tool_call>`` right after the value's closing bracket goes too: the Hermes
    envelope's closing tag a server left in a call's arguments (anomalyco/opencode#17750, Qwen3-8B
    on SiliconFlow: ``'{"a": 1}\n</tool_call>'`` -> ``'{"a": 1}'``).

    ``'```json\\n{"a": 1}\\n```'`` -> ``'{"a": 1}'``; ``'{"a": 1}<|eot_id|>'`` -> ``'{"a": 1}'``;
    ``'json\\n{"a": 1}'`` -> ``'{"a": 1}'`` (the fence's language word without the fence:
    tenstorrent/tt-inference-server#3683). Only the word ``json`` (any case) followed by
    whitespace and ``{``; no other prefix is dropped.
    """
    if SPECIAL_TOKEN.search(text) is not None:  # most text holds none: no second pass
        text = _NOISE_OUTSIDE_STRINGS.sub(r"\1", text)
    text = text.strip().lstrip("\ufeff")
    if text.endswith("</tool_call>"):  # the envelope's closing tag after the value (anomalyco/opencode#17750)
        text = _CLOSING_ENVELOPE_TAG.sub("", text)
    fenced = _FENCE.match(text)
    text = fenced.group(1).strip() if fenced else text
    word = _JSON_WORD.match(text)
    return text[word.end() :] if word else text


_STRUCTURE = QuotedScan(  # after closed strings, escapes honoured (read in linear time)
    r""" (?P<open>["'])                             # a quote that is never closed
       | [{}\[\]] """,
    flags=re.VERBOSE | re.DOTALL,
)


_REPAIR_TOKENS = QuotedScan(  # after closed strings, escapes honoured (read in linear time)
    r""" (?P<costly>\{(?=\s*[{\[(]) | \() | [{\[] | [}\])] """,
    flags=re.VERBOSE | re.DOTALL,
)

REPAIR_WORK_PER_CHAR = 4
REPAIR_WORK_SLACK = 64
"""The bound :func:`costly_to_repair` keeps: how many times, on average, ``json_repair`` may go
over each character of a text again, plus characters over for a short text (``{{{{"a": 1}}}}``)."""


_KEY_WITHOUT_COLON = re.compile(r'\{\s*"[^"\\\n]{0,200}"\s*(?=[^\s:])')
"""An object's first key followed by something other than its colon (``{"name"```json``): where
json_repair 0.64 looks ahead through the rest of the text for the delimiter it expects."""
KEYS_WITHOUT_COLON_MAX = 32
"""More keys without their colon than this makes a text costly to repair: each makes json_repair
scan the rest of the text (a ReAct reply of ```` ```json\n[{"name" ```` repeated with no line
break: 16 KB took 0.8 s, 300 KB four minutes, in one call that no other session could interrupt)."""


_BARE_MEMBERS = QuotedScan(
    r""" :[ \t\r\n]*+(?!true|false|null)[^\s\d"'\u201c\u201d{}\[\]\-,:][^"'\u201c\u201d{}\[\],:]*+
         (?=,[ \t\r\n]*+\w[\w-]*+[ \t\r\n]*+:[ \t\r\n]*+(?!true|false|null)(?P<scan>[^\s\d"'\u201c\u201d{\[\-}])) """,
    flags=re.VERBOSE | re.DOTALL,
)
"""Outside closed quoted strings, an object's value without quotes followed by a comma, a key
without quotes, its colon and the first character of a value json_repair 0.64 cannot tell is one
(``scan``: not a quote, a bracket, a minus, a digit, ``true``, ``false`` or ``null``):
``: one, b: two``. At that comma json_repair scans from ``scan`` to the next quote or ``}`` to
decide whether the comma ends the value, afresh for each value."""
_BARE_MEMBER_SCAN_END = re.compile("[\"'\u201c\u201d}]")
BARE_MEMBER_SCAN_MAX = 2_000_000
"""Characters json_repair may scan for the unquoted members of one text (``_BARE_MEMBERS``, each
to the next quote or ``}``), summed, above which the text is costly to repair. Each scan is a
Python loop of about 50 ns a character: ``{"a": one two, three: one two, three: ...}`` took
0.01 s at 2 KB, 0.13 s at 8 KB, 1.9 s at 32 KB and 8 s at 64 KB; at this bound, about 0.1 s of
scanning. YAML-ish arguments (``{a: 1, b: two}``) scan a few hundred characters."""


def _bare_member_scans_exceed(text: str) -> bool:
    """True when json_repair's scans for the unquoted members of ``text`` (``_BARE_MEMBERS``)
    would read more than ``BARE_MEMBER_SCAN_MAX`` characters, summed. O(len(text)) for the
    members plus the characters summed, stopping once over."""
    work = 0
    for member in _BARE_MEMBERS.finditer(text):
        if member.group()[0] == ":":  # not a closed string
            start = member.start("scan")
            end = _BARE_MEMBER_SCAN_END.search(text, start)
            work += (end.start() if end else len(text)) - start
            if work > BARE_MEMBER_SCAN_MAX:
                return True
    return False


_UNQUOTED_RUNS = QuotedScan(r'([^",:]+)', quotes='"')
"""Closed double-quoted strings (no group) and the runs between them that hold no quote, comma or
colon (group 1): where json_repair 0.64 may read one string a character at a time."""
_NOT_STRING = " \t\r\n0123456789[]{}.+-"
"""What json_repair reads as whitespace, numbers and brackets: a run's string starts after them."""
SLOW_STRING_MAX = 65_536
"""Characters of one string json_repair reads a character at a time (single-quoted, or without
quotes: ``{'a': '...'}``, ``{"a": some words}``, ``{<tool_call>{<tool_call>...``) above which a
text is costly to repair: it grows the string by concatenation, each character copying all
before it (100 KB 0.15 s, 400 KB 1.2 s, 800 KB 6 to 7 s in one call). Under this, the copying
costs less than the reading itself."""


_LONG_VALUE_STRINGS = QuotedScan(
    r""" (?P<at>[{\[,:])[ \t\r\n]*+
         (?: (?P<single>'[^'\\]*+(?:\\.?+[^'\\]*+)*+(?:'|\Z)) | (?P<bare>[^"'\s\d\[\]{}.+\-,:][^"'}]*+) )? """,
    quotes='"',
    flags=re.VERBOSE | re.DOTALL,
)
"""Closed double-quoted strings (no group); after a bracket, comma or colon (``at``), a
single-quoted string opened there (``single``: to its closing quote, escapes honoured, or the
end), or, after a colon, an object's value written without quotes (``bare``: from its first
character json_repair reads as a string to the next quote or ``}``). json_repair 0.64 reads both
a character at a time through their commas and colons (``{'a': 'x,x,...'}``, ``{"a": x, x, ...}``),
which ``_UNQUOTED_RUNS`` splits at. What follows the bracket, comma or colon is optional, so that
each start of a match is a match (``QuotedScan`` reads the text in windows)."""


def _holds_slow_string(text: str) -> bool:
    """True when ``text`` holds a string json_repair would read a character at a time that is
    longer than ``SLOW_STRING_MAX``: a run outside closed double-quoted strings, with no comma or
    colon, from its first character json_repair would read as a string (not whitespace, a digit
    or a bracket) to its end; a single-quoted string where a value or key stands, commas and
    colons included (``"{'a': '" + "x," * 500_000 + "'}"``: 9 s in json_repair); an object's
    value without quotes, to the next quote or ``}``. O(len(text)) (``QuotedScan``), one Python
    step a closed string or run."""
    if len(text) <= SLOW_STRING_MAX:
        return False
    if any(len(run.lstrip(_NOT_STRING)) > SLOW_STRING_MAX for run in (m.group(1) or "" for m in _UNQUOTED_RUNS.finditer(text)) if len(run) > SLOW_STRING_MAX):
        return True
    if "'" not in text and ":" not in text:
        return False
    return any(
        m.end() - m.start() > SLOW_STRING_MAX
        and len(m.group("single") or (m.group("bare") or "").rstrip() if m.group("at") == ":" else m.group("single") or "") > SLOW_STRING_MAX
        for m in _LONG_VALUE_STRINGS.finditer(text)
    )


def costly_to_repair(text: str) -> bool:
    """True when ``json_repair`` would go over ``text`` again once for each of many nested levels:
    an object that opens on no key (``{{``, ``{[``, ``{(``) or a parenthesis, levels that a
    JSON value never has, each make it rescan all it holds (json_repair 0.64: a few
    microseconds per character and level, so ``"[{(" * 300_000`` took minutes). The work is
    the characters each such level spans, summed; more than ``REPAIR_WORK_PER_CHAR`` times
    ``len(text)`` (and ``REPAIR_WORK_SLACK``) is costly. One pass over the brackets outside
    strings, stopping once over. Also costly: more than ``KEYS_WITHOUT_COLON_MAX`` objects whose
    first key has no colon after it (``_KEY_WITHOUT_COLON``), each of which json_repair meets by
    scanning the rest of the text. Also costly: a string json_repair would read a character at a
    time that is longer than ``SLOW_STRING_MAX`` (:func:`_holds_slow_string`): its time grows with
    the square of the string's length. Also costly, in a text over 4096 characters: unquoted values
    each followed by an unquoted member whose scans to the next quote or ``}`` sum to more than
    ``BARE_MEMBER_SCAN_MAX`` characters (:func:`_bare_member_scans_exceed`)."""
    if _holds_slow_string(text):
        return True
    if len(text) > 4096 and sum(1 for _ in itertools.islice(_KEY_WITHOUT_COLON.finditer(text), KEYS_WITHOUT_COLON_MAX + 1)) > KEYS_WITHOUT_COLON_MAX:
        return True
    if len(text) > 4096 and _bare_member_scans_exceed(text):
        return True
    budget = REPAIR_WORK_PER_CHAR * len(text) + REPAIR_WORK_SLACK
    work = 0
    costly: list[int] = []  # where each open costly level starts
    stack: list[bool] = []  # every open level, costly or not
    for token in _REPAIR_TOKENS.finditer(text):
        first = token.group()[0]
        if first in "\"'":
            continue
        if token.group("costly"):
            stack.append(True)
            costly.append(token.start())
        elif first in "{[":
            stack.append(False)
        elif stack and stack.pop():
            work += token.start() - costly.pop()
            if work > budget:
                return True
    return work + sum(len(text) - start for start in costly) > budget


def _scan_brackets(text: str) -> tuple[list[str], int | None] | None:
    """The closers still owed at the end of ``text`` (innermost last) and where a never-closed
    string starts (None if none); None when a closing bracket does not match (malformed)."""
    stack: list[str] = []
    for token in _STRUCTURE.finditer(text):
        value = token.group()
        if token.group("open"):
            return stack, token.start()
        if value in ("{", "["):
            stack.append("}" if value == "{" else "]")
        elif value in ("}", "]") and (not stack or stack.pop() != value):
            return None
    return stack, None


def unclosed(text: str) -> str | None:
    """Why ``text`` looks cut off (an open string or bracket at its end), else None.

    Strings may use ``"`` or ``'`` (Python-style arguments); escapes are honoured.
    A closing bracket that does not match means malformed, not cut off: None.
    ``'{"city": "San Fra'`` -> ``'unterminated string starting at character 9'``.
    """
    scanned = _scan_brackets(text)
    if scanned is None:
        return None
    stack, open_string = scanned
    if open_string is not None:
        return f"unterminated string starting at character {open_string}"
    if not stack:
        return None
    closers = " ".join(repr(c) for c in reversed(stack[-MAX_LISTED_CLOSERS:]))
    more = f" and {len(stack) - MAX_LISTED_CLOSERS} more" if len(stack) > MAX_LISTED_CLOSERS else ""
    return f"missing closing {closers}{more} at the end"


def owed_closers(text: str) -> str | None:
    """What closes everything ``text`` left open, innermost first: the quote of a string still
    open (``"`` or ``'``), then the brackets owed. ``'{"a": {"b": "x'`` -> ``'"}}'``; ``""``
    when nothing is open; None when a closing bracket does not match (malformed)."""
    scanned = _scan_brackets(text)
    if scanned is None:
        return None
    stack, open_string = scanned
    return (text[open_string] if open_string is not None else "") + "".join(reversed(stack))


def with_closers(text: str) -> str:
    """``text`` with the closing brackets it still owes appended, when nothing else is missing
    (no open string); otherwise unchanged. For a JSON value the model itself ended (a closing
    fence or tag right after it): every word is there, only brackets were forgotten."""
    scanned = _scan_brackets(text)
    if scanned is None or scanned[1] is not None or not scanned[0]:
        return text
    return text.rstrip() + "".join(reversed(scanned[0]))


def ends_open(text: str) -> bool:
    """True when ``text`` ends right after ``,``, ``:`` or an opening bracket, where a key or
    value must still follow: ``'{"a": 1,'``, ``'{"a":'``, ``'{"a": ['``."""
    return text.rstrip().endswith((",", ":", "[", "{"))


def only_closers_missing(text: str) -> str | None:
    """``text`` (noise stripped) with the closing brackets it owes appended, when they are all
    it lacks: every string closed, its last value written (it does not :func:`ends_open`) and
    the result strict JSON, so nothing else is repaired (:func:`with_closers` alone); None when
    nothing is owed or more than brackets is missing.

    ``'{"city": "Paris"'`` -> ``'{"city": "Paris"}'``; ``'{"city": "Par'``, ``'{"a": 1,'``,
    ``'{"city" "Paris"'`` -> None. A server may drop a call's final ``}`` (vllm-project/vllm#32152,
    #15274: vLLM's hermes parser under MTP or ``--stream-interval``). Appending is safe only
    when the reply was not cut by the output limit: the caller checks the ``finish_reason``.
    """
    cleaned = strip_noise(text)
    closed = with_closers(cleaned)
    if closed == cleaned or ends_open(cleaned):
        return None
    try:
        loads(closed)
    except (ValueError, RecursionError):
        return None
    return closed


_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def loads(text: str) -> Any:
    """``json.loads`` with no lone surrogate left in any string (key or value): JSON text may
    hold an escape such as ``\\ud800`` that is half of a pair, which Python decodes to a lone
    surrogate that no UTF-8 encoder writes (pydantic-core, which writes every line the plugin
    sends, fails on it and the run would end). Each is replaced by U+FFFD. Raises what
    ``json.loads`` raises."""
    return surrogates_replaced(json.loads(text), text)


def surrogates_replaced(value: Any, text: str) -> Any:
    """``value``, decoded from the JSON ``text`` by ``json.loads`` (or ``raw_decode``), as
    :func:`loads` returns it: with each lone surrogate replaced by U+FFFD."""
    return without_lone_surrogates(value) if _SURROGATE_ESCAPE.search(text) else value


_ARGUMENTS_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False)
_NOT_FINITE = {"inf": "1e400", "-inf": "-1e400", "nan": "null"}
"""How a float that is not finite is written (``dumps_arguments``), by ``str`` of it."""


def dumps_arguments(value: Any) -> str:
    """The JSON text of decoded arguments ``value``, as they go back to the model (a native
    call's ``arguments``, ReAct's action input): ``json.dumps(ensure_ascii=False)``, except
    that a number too large for a float, which ``json.loads`` reads as infinity (``1e400``,
    ``-1E999``), is written ``1e400`` or ``-1e400``, the same value when read again, and NaN
    (which only Python's reader takes) as ``null``. ``json.dumps`` writes ``Infinity``, which
    is no JSON: the model plugin's or the provider's reader refuses the request, or the model
    reads a word it never wrote. Raises ``TypeError`` for a value that is no JSON (as
    ``json.dumps``)."""
    try:
        return _ARGUMENTS_ENCODER.encode(value)
    except ValueError:  # a float that is not finite somewhere (or a value too deep, as before)
        pass
    marks: dict[str, str] = {}
    mark = "\x00number%d\x00"
    while any(mark % 0 in text for text in _strings(value)):
        mark = "\x00" + mark

    def finite(item: Any) -> Any:
        if type(item) is float and not math.isfinite(item):
            key = mark % len(marks)
            marks[key] = _NOT_FINITE[str(item)]
            return key
        if isinstance(item, dict):
            return {key: finite(inner) for key, inner in item.items()}
        if isinstance(item, list):
            return [finite(inner) for inner in item]
        return item

    text = _ARGUMENTS_ENCODER.encode(finite(value))
    for key, written in marks.items():
        text = text.replace(_ARGUMENTS_ENCODER.encode(key), written)
    return text


def _strings(value: Any) -> Iterator[str]:
    """Every string of decoded JSON ``value``, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


PLAIN_SCALARS = frozenset({int, float, bool, type(None)})
"""Types of JSON values that hold no text and nothing nested: walkers of decoded JSON skip them
without a call (a list of a million numbers is a million calls otherwise)."""


_SURROGATE_SHOWN = re.compile(r"\\ud[89a-f]")
"""A lone surrogate as ``repr`` shows it (a surrogate is never printable, so always escaped)."""


def without_lone_surrogates(value: Any) -> Any:
    """``value`` (decoded JSON) with each lone surrogate in its strings replaced by U+FFFD; the
    same object when it holds none. A container is first looked at whole (its ``repr``, in C):
    one holding no surrogate, the usual case, is not walked; a walk gives way between its items
    (``fairness.paced``). Raises ``RecursionError`` for a value nested too deep to walk."""
    if isinstance(value, dict | list):
        try:
            if not _SURROGATE_SHOWN.search(repr(value)):
                return value
        except RecursionError:
            pass  # the walk below raises it as it did
    return _surrogates_walked(value)


def _surrogates_walked(value: Any) -> Any:
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value) if _SURROGATE.search(value) else value
    if isinstance(value, dict):
        give_way()  # hundreds of thousands of small containers
        pairs = [
            (_surrogates_walked(key), item if type(item) in PLAIN_SCALARS else _surrogates_walked(item))
            for key, item in paced(value.items())
        ]
        same = all(new_key is key and new is item for (new_key, new), (key, item) in zip(pairs, value.items(), strict=True))
        return value if same else dict(pairs)
    if isinstance(value, list):
        give_way()
        items = [item if type(item) in PLAIN_SCALARS else _surrogates_walked(item) for item in paced(value)]
        return value if all(new is item for new, item in zip(items, value, strict=True)) else items
    return value


def loads_lenient(text: str) -> Any:
    """Decode JSON ``text``, repairing common model mistakes.

    Strict ``json.loads`` first, then the same after :func:`strip_noise`, then
    ``json_repair`` (single quotes, trailing commas, Python literals, invalid
    escapes, an unquoted word such as hermes83229's ``{"action": listt_windows"}``).
    Objects glued together (``'{..}{..}'``) come back as a list of them.
    Truncated text (camel4338 ``'{"city": "San Fra'``) and text that does not
    start like a JSON object or array are not repaired.

    Raises:
        ArgumentsError: nothing sensible can be recovered; ``truncated`` tells
            whether the text stops early.
    """
    try:
        return loads(text)
    except (ValueError, RecursionError) as error:
        first_error = error.with_traceback(None)  # kept: its traceback would hold this frame (a cycle)
    cleaned = strip_noise(text)
    if not cleaned:
        raise ArgumentsError(MSG_NOT_JSON.format(detail="the text is empty"))
    if cleaned != text:  # else it fails as the text did (a failing decode costs microseconds)
        try:
            return loads(cleaned)
        except (ValueError, RecursionError) as error:
            first_error = error.with_traceback(None)
    if _ends_early(first_error, cleaned):
        raise _truncated(cleaned) from None
    return _repaired(cleaned, first_error)


def _repaired(cleaned: str, first_error: Exception) -> Any:
    """``loads_lenient`` of a noise-stripped ``cleaned`` that failed strict decoding with
    ``first_error`` and does not end early: its value repaired, or ``ArgumentsError``."""
    key_only = _key_only(cleaned, first_error)  # balanced and unescaped: read before the scans below
    if key_only is not None:
        return key_only
    escaped = _ESCAPE.sub(_fix_escape, cleaned)
    if escaped != cleaned:  # an invalid escape such as \_ (markdown habits): dropped, keeping its character
        try:
            return loads(escaped)
        except (ValueError, RecursionError):
            pass
    glued = split_concatenated(cleaned)
    if glued is not None:
        return glued  # json_repair would merge them into one object
    read, value, cleaned = _extras_dropped(cleaned)
    if read:
        return value
    cut = unclosed(cleaned)
    if cut and (not cut.startswith("unterminated") or not cleaned.rstrip().endswith(("}", "]"))):
        raise _truncated(cleaned)  # brackets or a string left open at the end: the rest is missing
    if cleaned[0] not in "{[":
        raise ArgumentsError(MSG_NOT_JSON.format(detail=_describe(first_error)))
    literal = _python_literal(cleaned)
    if literal is not None:
        return literal
    try:
        return _repair(cleaned, first_error)
    except ArgumentsError:
        if cut:  # an odd quote may be a typo (hermes83229); when repair fails it is a cut
            raise _truncated(cleaned) from None
        raise


def _extras_dropped(cleaned: str) -> tuple[bool, Any, str]:
    """``cleaned`` (failed strict decoding) read without what is no part of its value:
    ``(True, value, cleaned)`` when the value before a line of prose after it (``_before_prose``)
    reads, or the text without its line comments (``_uncommented``) reads strictly; else
    ``(False, None, text)``, ``text`` the one to repair: without its comments when its brackets
    and strings still close (a comment's words are no value the repair would lose), else
    ``cleaned`` as it was (a ``#`` that was an unquoted value: ``[#fff]``)."""
    body = _before_prose(cleaned)
    if body is not None:
        try:
            return True, loads_lenient(body), cleaned
        except ArgumentsError:
            pass
    uncommented = _uncommented(cleaned)
    if not uncommented:  # none, or nothing but comments: read as it was
        return False, None, cleaned
    try:
        return True, loads(uncommented), uncommented
    except (ValueError, RecursionError):  # repaired without them, when they took no bracket with them
        return False, None, uncommented if unclosed(uncommented) is None else cleaned


def _uncommented(cleaned: str) -> str | None:
    """``cleaned`` without its line comments outside strings (``_LINE_COMMENT``), or None when
    it holds none. ``'{"city": "Beijing", # the user's city\n "unit": "C" // metric\n}'`` ->
    ``'{"city": "Beijing", \n "unit": "C" \n}'`` (stripped; FoundationAgents/MetaGPT PR #799: GLM-4 and
    gpt-4-1106-preview wrote ``#`` and ``//`` comments in JSON; jataware/archytas#35: a comment
    beside a corrected value). JSON has no comments, so strict decoding has already failed."""
    if "#" not in cleaned and "//" not in cleaned:
        return None
    uncommented = _LINE_COMMENT.sub(lambda match: "" if match.lastgroup == "comment" else match.group(), cleaned).strip()
    return uncommented if uncommented != cleaned else None


def _before_prose(cleaned: str) -> str | None:
    """``cleaned`` up to the line that closes its value, when after that line only prose
    follows (words, no bracket and no double quote); else None. run-llama/llama_index#7074: an
    Action Input over several lines, a nested quote in a string, then ``let's add some garbage
    in here too.`` on its own line; read whole, the text after the value made it look cut
    (``missing closing '}'``). The closing line holds the bracket that matches the opening one
    and nothing else; the value before it is read as any other (repaired under the trust rule,
    or refused)."""
    closer = "}" if cleaned[:1] == "{" else "]" if cleaned[:1] == "[" else ""
    end = max(cleaned.rfind("}"), cleaned.rfind("]"))
    if not closer or end < 1 or cleaned[end] != closer:
        return None
    line_start = cleaned.rfind("\n", 0, end) + 1
    rest = cleaned[end + 1 :]
    if line_start == 0 or cleaned[line_start:end].strip(" \t") or rest.lstrip(" \t")[:1] != "\n":
        return None
    prose = rest.strip()
    if '"' in prose or _WORD.search(prose) is None:
        return None
    return cleaned[: end + 1]


PYTHON_LITERAL_MAX_CHARS = 8192
"""Longest text read as a Python literal (``_python_literal``): ``ast`` parses in the session's
own greenlet and cannot give way (about a microsecond a character)."""


def _python_literal(cleaned: str) -> Any:
    """``cleaned`` read as the Python literal it is, when it holds a single quote and a backslash
    (``{'q': '\\n'}``: a Python dict an agent framework printed), Python knows each of its escapes,
    and it reads as JSON's kinds (dict with string keys, list, string, finite number, bool, None) under the
    trust rule (``repair_problem``); None otherwise (the text then goes the repair's way).

    json_repair 0.64 drops an escaped line break that ends a single-quoted string: ``'\\n'``
    becomes ``''`` (refused as an invented value) and ``'a\\n'`` ``'a'`` (a line break lost
    without a word), where ``ast.literal_eval`` reads both as written."""
    if len(cleaned) > PYTHON_LITERAL_MAX_CHARS or "'" not in cleaned or "\\" not in cleaned:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # an escape Python does not know (``\\_``): the repair's way
            value = ast.literal_eval(cleaned)
    except (ValueError, TypeError, SyntaxError, SyntaxWarning, MemoryError, RecursionError):
        return None
    if not _json_kinds(value, 0) or repair_problem(cleaned, value):
        return None
    return without_lone_surrogates(value)


def _json_kinds(value: Any, depth: int) -> bool:
    """Whether ``value`` holds only JSON's kinds (a tuple, set, bytes or complex is Python's
    own; an infinite float is not JSON), nested at most ``MAX_DEPTH`` deep."""
    if depth > MAX_DEPTH:
        return False
    if isinstance(value, dict):
        return all(isinstance(key, str) and _json_kinds(item, depth + 1) for key, item in value.items())
    if isinstance(value, list):
        return all(_json_kinds(item, depth + 1) for item in value)
    if isinstance(value, float):
        return value == value and value not in (float("inf"), float("-inf"))
    return value is None or isinstance(value, str | int)


def _fix_escape(match: re.Match[str]) -> str:
    return match.group(0) if match.group(1) in _VALID_ESCAPES else match.group(1)


def _ends_early(error: Exception, text: str) -> bool:
    """True when strict decoding failed only because the text ran out."""
    if not isinstance(error, json.JSONDecodeError):
        return False
    return error.msg.startswith("Unterminated string") or error.pos >= len(text)


def _truncated(text: str) -> ArgumentsError:
    detail = unclosed(text) or "the text ends before the JSON value is complete"
    return ArgumentsError(MSG_TRUNCATED.format(detail=detail), truncated=True, detail=detail)


_KEY_ONLY = re.compile(r'(\[\s*)?\{\s*"([^"\\{}\[\]:,\n\u201e\ud800-\udfff]+)"\s*\}(?(1)\s*\])')
"""An object holding one key and no colon or value, alone or as an array's only item:
``{"name"}``, ``[{"name"}]`` (a fence's object cut after its first key, closed by ``with_closers``).
The key holds no line break and no ``„``, which json_repair 0.64 reads otherwise (a line break in
a string ends it, or drops it at its end; ``„`` opens a string of its own): with them the text
goes the repair's way."""


def _key_only(cleaned: str, first_error: Exception) -> Any:
    """What ``json_repair`` under the trust rule makes of a :data:`_KEY_ONLY` text, without
    running it (a reply of thousands of such fences ran it once each: 0.1 ms apiece): json_repair
    0.64 reads ``{"k"}`` as ``["k"]``, refused as another kind than the ``{`` promised, and
    ``[{"k"}]`` as ``[["k"]]``, which the rule keeps unless it reads a word as lost (``True``
    written as a key is not JSON's ``true``). The rule is applied to that value as :func:`_repair`
    applies it. Raises ``ArgumentsError`` as :func:`_repair` does; None when ``cleaned`` is not
    that shape."""
    shape = _KEY_ONLY.fullmatch(cleaned)
    if shape is None:
        return None
    key = shape.group(2)
    value = [key] if shape.group(1) is None else [[key]]
    if shape.group(1) is None:
        problem = REPAIR_WRONG_KIND  # ["k"] where the "{" promised an object
    elif any(word in _PY_LITERALS for word in _WORD.findall(key)):
        problem = repair_problem(cleaned, value)  # "True" as a key: is "true" kept?
    else:  # every word of the text is the key's, kept as written; none stands unquoted
        problem = None
    if problem:
        raise ArgumentsError(MSG_NOT_JSON.format(detail=f"{_describe(first_error)}; {problem}"))
    return value


REPAIR_ON_HUB_CHARS = 8192
"""Longest text ``json_repair`` reads in the session's own greenlet; a longer one is read in a
native thread (``fairness.off_hub``): json_repair 0.64 takes 3-4 microseconds a character and
cannot give way, so 1.8 MB of almost-JSON held every other session 6.5 s."""


def _repair(cleaned: str, first_error: Exception) -> Any:
    """``json_repair`` under the trust rule (``repair_problem``); ``ArgumentsError`` with the
    reason when the repair is not trusted. A text over ``REPAIR_ON_HUB_CHARS`` is repaired and
    checked off the hub (``fairness.off_hub``)."""
    if costly_to_repair(cleaned):  # as if json_repair gave up: reading it would take minutes
        raise ArgumentsError(MSG_NOT_JSON.format(detail=_describe(first_error)))
    cleaned = full_width_colons_read(curly_delimiters_oriented(cleaned))
    try:
        value, problem = _checked_repair(cleaned) if len(cleaned) <= REPAIR_ON_HUB_CHARS else off_hub(_checked_repair, cleaned)
    except Exception as error:  # a third-party parser: any failure means "unrecoverable"
        raise ArgumentsError(MSG_NOT_JSON.format(detail=_describe(first_error))) from error
    if problem:
        raise ArgumentsError(MSG_NOT_JSON.format(detail=f"{_describe(first_error)}; {problem}"))
    return value


_CURLY_OPENED = re.compile(r"\A\s*+[{\[]\s*+[\u201c\u201d]")
_CLOSER_WRITTEN_AS_OPENER = re.compile(r"\u201c(?=[ \t]*+[,:}\]])")
_OPENER_WRITTEN_AS_CLOSER = re.compile(r"(?<=[,:{\[])([ \t]*+)\u201d")


def curly_delimiters_oriented(text: str) -> str:
    """``text`` (JSON that did not parse) with its full-width quotes turned the way their place
    says, when its first key opens with one (``{“id”:``): a ``“`` just before ``,`` ``:`` ``}`` or
    ``]`` closes a string (``”``), a ``”`` just after ``,`` ``:`` ``{`` or ``[`` opens one (``“``).
    Models writing Chinese text sometimes quote the whole object with ``“`` / ``”`` and mix them
    up at a value's end (Graphify-Labs/graphify#2286: ``“...传输）“,”file_type”``), which the
    repair would read as a value ending in ``“`` and a key starting with ``”``. Any other text is
    returned as it is: a ``“`` inside an ASCII-quoted value (``"不仅有“咖啡”"``) is text."""
    if "\u201c" not in text or not _CURLY_OPENED.match(text):
        return text
    return _OPENER_WRITTEN_AS_CLOSER.sub("\\1\u201c", _CLOSER_WRITTEN_AS_OPENER.sub("\u201d", text))


_KEY_COLON_TOKENS = re.compile(
    r'"(?:[^"\\\n]|\\[^\n]?)*+(?:"|(?=\n)|\Z)'  # a string, or its start up to the line's end
    r"|\u201c[^\u201c\u201d\n]*+\u201d?"  # a curly-quoted string, or its start
    r"|[ \t]++|\uff1a|[^\"\u201c\uff1a \t]++|.",
    re.DOTALL,
)
"""The pieces ``full_width_colons_read`` walks: each alternative ends where the next may start, so
the text is read once (a line of escaped quotes, or of ``“``, is not read again from each quote)."""


def full_width_colons_read(text: str) -> str:
    """``text`` (JSON that did not parse) with each full-width colon ``：`` (U+FF1A) right after a
    quoted key read as ``:``: a model writing Chinese or Japanese may type the key's colon in its
    full-width form (``{"city"："北京"}``), which the repair would otherwise read as a key with no
    value. A ``：`` inside a string value is left as text; any text without one is returned as it
    is. Linear in the text's length."""
    if "\uff1a" not in text:
        return text
    out: list[str] = []
    after_string = False  # the last piece but blanks was a closed string: a key, if a colon follows
    for piece in _KEY_COLON_TOKENS.findall(text):
        if piece == "\uff1a" and after_string:
            out.append(":")
            after_string = False
            continue
        if piece[0] in " \t":
            out.append(piece)
            continue
        after_string = len(piece) > 1 and (
            (piece[0] == '"' and piece[-1] == '"') or (piece[0] == "\u201c" and piece[-1] == "\u201d")
        )
        out.append(piece)
    return "".join(out)


def _checked_repair(cleaned: str) -> tuple[Any, str | None]:
    """``json_repair``'s value of ``cleaned`` with lone surrogates replaced, and why the trust rule
    refuses it (None when it does not). Long strings json_repair would read a character at a time
    are read in C (``repair_strings``: the same value). Raises what ``json_repair`` raises."""
    value = repair_strings.repaired(cleaned, json_repair.loads)
    try:
        problem = repair_problem(cleaned, value)
    except RecursionError:
        problem = REPAIR_TOO_DEEP
    return (None, problem) if problem else (without_lone_surrogates(value), None)


def repair_problem(text: str, value: Any) -> str | None:
    """The trust rule for repaired JSON, shared by every reader of arguments: why the repaired
    ``value`` of ``text`` may not be used, or None when it may.

    A repair may add or change quotes, commas, brackets and Python literals
    (``{'a': None,}``, ``{"city": Lima Peru}``); it is refused when it would change what the
    model wrote: a word or number of the text missing from the value
    (``{"expression": 37 * 91}`` -> ``{"expression": 37}``, ``{"a": "b" "c"}`` -> ``{"a": "b"}``),
    a value invented (``{"a": }`` -> ``{"a": ""}``; garbage -> ``{}``), a literal cut short made a
    string (``{"q": tru}``), or anything but an object or array. The rule reads the value, not
    the repair library's log, so it holds across versions of the library.
    """
    if not isinstance(value, dict | list):
        return REPAIR_NOT_CONTAINER
    if not isinstance(value, {"{": dict, "[": list}.get(text.lstrip()[:1], dict | list)):
        return REPAIR_WRONG_KIND
    if not value and re.sub(r"[\s{}\[\],]", "", text):
        return REPAIR_NOTHING
    if _has_empty_string(value) and '""' not in text and "''" not in text:
        return REPAIR_INVENTED
    lost = _lost_word(text, value)
    if lost:
        return REPAIR_LOST_WORD.format(word=lost)
    cut = next((w for w in _WORD.findall(_QUOTED.sub(" ", text)) if w.lower() in _CUT_LITERALS), None)
    if cut:
        return REPAIR_CUT_LITERAL.format(word=cut)
    merged = _merged_object(text, value)
    if merged:
        return REPAIR_MERGED.format(text=merged)
    return None


_OBJECT_OPENING = re.compile(r'\{\s*"([^"\\]{1,200})(?:"\s*:|"?\Z)')
"""The opening of an object, ``{"q":``, as a repaired string may hold it (group 1: the key); in a
repaired key it may end the key (``{"q{"q": 1}`` reads as the key ``q{"q``, ``{'q{"q": 1}`` as
``q{"q"``)."""


def _merged_object(text: str, value: Any) -> str | None:
    """The opening of an object (``{"q":``) that a repaired string of ``value`` holds where the
    repair took two objects for one, the first cut: ``{"q": "rov`` then ``{"q": "battery"}`` read
    as ``q = 'rov{"q": "battery"'``, ``{"q": "a", "n{"q": "b"}`` as the key ``n{"q``. Such a string
    holds the opening of an object of one of ``value``'s keys (any level), or is a key holding one
    of any key; ``text`` held no escaped quote (``\\"``) and did not write the string as a closed
    single-quoted one (``{'code': 'x = {"q": 1}'}`` keeps its quotes as written). None when no string
    holds one; the value is looked at whole first (``json.dumps``, in C), so a value holding no
    ``{"`` costs one dump."""
    if '\\"' in text:
        return None
    dumped = json.dumps(value)
    if '{\\"' not in dumped and '{ \\"' not in dumped:
        return None
    found = list(_keys_and_strings(value))
    keys = {item for item, is_key in found if is_key}
    single_quoted: set[str] | None = None  # the closed single-quoted strings of the text, read once
    for string, is_key in found:
        if "{" not in string:
            continue
        for opening in _OBJECT_OPENING.finditer(string):
            if not is_key and opening.group(1) not in keys:
                continue
            if single_quoted is None:
                single_quoted = {m.group()[1:-1] for m in _QUOTED.finditer(text) if m.lastgroup is None and m.group()[0] == "'"}
            if string not in single_quoted:
                return opening.group()
    return None


def _keys_and_strings(value: Any, depth: int = 0) -> Iterator[tuple[str, bool]]:
    """Every key (``True``) and string value (``False``) of a decoded JSON value."""
    if depth > 20:
        return
    if isinstance(value, str):
        yield value, False
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key), True
            yield from _keys_and_strings(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            yield from _keys_and_strings(item, depth + 1)


def _lost_word(text: str, value: Any) -> str | None:
    """The first word or number of ``text`` that ``value`` lacks (quotes, commas and brackets
    may differ; Python's True/False/None count as JSON's), else None."""
    dumped = json.dumps(value, ensure_ascii=False) + " " + json.dumps(value)  # raw and escaped (\u00e9)
    kept = set(_WORD.findall(dumped)) | set(_WORD.findall(" ".join(_strings(value))))
    return next((w for w in _WORD.findall(text) if _PY_LITERALS.get(w, w) not in kept), None)


def _strings(value: Any, depth: int = 0) -> Iterator[str]:
    """Every key and string value in a decoded JSON value, as written."""
    if depth > 20:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item, depth + 1)


def _has_empty_string(value: Any) -> bool:
    if isinstance(value, str):
        return not value
    if isinstance(value, dict):
        return any(_has_empty_string(item) for item in value.values())
    if isinstance(value, list):
        return any(_has_empty_string(item) for item in value)
    return False


def _describe(error: Exception) -> str:
    """``json.JSONDecodeError`` -> ``"Expecting ':' delimiter at character 4"``."""
    if isinstance(error, json.JSONDecodeError):
        return f"{error.msg} at character {error.pos}"
    if isinstance(error, RecursionError):
        return "nested too deeply"
    return type(error).__name__


_WINDOW = 4096
"""Characters ``raw_decode_at`` decodes at first (doubled until the value or its error is sure)."""
_ERROR_REACH = 64
"""How far past an error the decoder may have wanted to look (a literal, an escape, a number)."""
_DECODER = json.JSONDecoder()


def raw_decode_at(text: str, at: int) -> tuple[Any, int]:
    """``json.JSONDecoder().raw_decode(text, at)``: the JSON value at ``text[at]`` and where it
    ends, in time in proportion to the value, not to ``at``. The standard decoder's error counts
    the lines of ``text`` up to the error (``JSONDecodeError.lineno``), so reading thousands of
    broken values in a long text took time in its square. The value is decoded from windows of
    ``text`` (4 KB, doubled) until it closes inside one or fails where a longer window could
    not change (not an unterminated string, not at the window's end).

    Raises ``ValueError`` (a ``JSONDecodeError`` whose ``pos`` is in ``text``, its line and
    column counted from ``at``) where ``raw_decode`` would, and ``RecursionError``."""
    size = _WINDOW
    while True:
        window = text[at : at + size]
        whole = at + size >= len(text)
        try:
            value, end = _DECODER.raw_decode(window)
        except json.JSONDecodeError as error:
            if whole or (error.pos + _ERROR_REACH < len(window) and not error.msg.startswith("Unterminated string")):
                error.pos, error.doc = at + error.pos, text
                raise error from None
        else:  # a container closed by its bracket ends there in any longer text too
            if whole or (window[:1] in "{[" and window[:1] and end < len(window)):
                return value, at + end
        size *= 2


def split_concatenated(text: str) -> list[Any] | None:
    """Split JSON objects written one after another into a list.

    ``'{"a": 1}{"a": 2}'`` and ``'{"a": 1}\\n {"a": 2}'`` -> ``[{"a": 1}, {"a": 2}]``
    (hermes25333, hermes62937: parallel calls glued into one buffer). Returns
    None unless the whole text is at least two strict JSON objects separated
    only by whitespace: a single object, a truncated tail or anything between
    the objects means "not a clean concatenation".
    """
    objects: list[Any] = []
    position, end = 0, len(text)
    surrogates = _SURROGATE_ESCAPE.search(text) is not None  # else no value can hold one: none is walked
    while True:
        while position < end and text[position].isspace():
            position += 1
        if position == end:
            break
        if text[position] != "{":
            return None
        try:
            value, position = raw_decode_at(text, position)
        except (ValueError, RecursionError):
            return None
        objects.append(without_lone_surrogates(value) if surrogates else value)
    return objects if len(objects) >= 2 else None


def decode_arguments(raw: str | Mapping[str, Any] | None) -> dict[str, Any]:
    """Arguments of one tool call as a dict.

    ``None``, ``''``, ``'null'``, ``'[]'``, a lone special token -> ``{}`` (camel4338: tools without
    parameters); an array holding one object -> that object;
    a mapping -> a dict copy (ollama8337); a JSON object text -> the object;
    a JSON string holding an object (double encoding) -> the object
    (smolagents1003).

    Raises:
        ArgumentsError: not JSON, truncated, or JSON that is not an object
            (glued objects get their own message: use :func:`split_concatenated`
            first to turn them into several calls).
    """
    if raw is None:
        return {}
    if isinstance(raw, Mapping):
        return without_lone_surrogates(dict(raw))
    if isinstance(raw, list):  # an array sent as it is, not as JSON text: the same rule
        return _as_object(without_lone_surrogates(raw), "")
    if not isinstance(raw, str):
        raise ArgumentsError(MSG_NOT_OBJECT.format(kind=_kind(raw)))
    if not strip_noise(raw):
        return {}
    return arguments_object(loads_lenient(raw), raw)


def arguments_object(value: Any, raw: str) -> dict[str, Any]:
    """The arguments object of ``value``, what ``loads_lenient(raw)`` returned for the arguments
    text ``raw``: as :func:`decode_arguments` reads it from there (a JSON string holding JSON
    unwrapped, an array of one object that object, ``null`` or ``[]`` ``{}``). For a caller that
    decoded ``raw`` already (strictly: ``loads``), so that megabytes of arguments are decoded
    once. Raises ``ArgumentsError`` as :func:`decode_arguments` does."""
    for _ in range(MAX_NESTED_ENCODING - 1):
        if not isinstance(value, str):
            break
        value = _unwrap(value)
    return _as_object(value, raw)


def _unwrap(text: str) -> Any:
    """The JSON inside a JSON string (double encoding); a plain string stays one."""
    if not text.strip():
        return None
    try:
        return loads_lenient(text)
    except ArgumentsError as error:
        if error.truncated:
            raise
        return text


def _as_object(value: Any, raw: str) -> dict[str, Any]:
    if value is None or value == []:  # [] for a tool without parameters: nothing is lost
        return {}
    if isinstance(value, dict):
        return value
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], Mapping):
        return dict(value[0])  # [{"city": "Paris"}]: the one object, as written
    pieces = split_concatenated(strip_noise(raw))
    if pieces:
        raise ArgumentsError(MSG_SEVERAL_OBJECTS.format(count=len(pieces)))
    array = value if isinstance(value, list) else None
    raise ArgumentsError(MSG_NOT_OBJECT.format(kind=_kind(value)), array=array)


def too_deep(value: Any, limit: int) -> bool:
    """Whether arrays and objects in ``value`` nest more than ``limit`` levels deep (``{}`` is
    one level). Iterative: safe on any depth; gives way every ``fairness.GRAIN`` items."""
    stack = [(value, 1)]
    walked = 0
    while stack:
        item, depth = stack.pop()
        walked += 1
        if walked == GRAIN:  # hundreds of thousands of items: one clock read a thousand
            walked = 0
            give_way()
        if type(item) is str or type(item) in PLAIN_SCALARS:
            continue
        if type(item) is dict or isinstance(item, Mapping):  # a dict without abc's check (a Python call)
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend(zip(children, itertools.repeat(depth + 1)))  # in C; leaves are skipped as they come
    return False


def _kind(value: Any) -> str:
    """A JSON-ish name for the type of ``value``, with an article."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "an array"
    return f"a {type(value).__name__}"
