"""Tool calls in a model family's own markup, rewritten as ``<tool_call>`` blocks.

A model served without its tool parser (vLLM or SGLang without ``--tool-call-parser``, llama.cpp
or LM Studio with a generic template, Ollama when its parser misses) leaves its native call
markup in the content. Each family has its own; all of them say the same thing, a tool name and
its arguments. ``CallMarkup`` rewrites each known form, as the text streams, into the one form
both strategies read (``<tool_call>{"name": ..., "arguments": ...}</tool_call>``, read by
``agent_core.text_calls``), and drops end-of-turn tokens that are never text:

=====================  ==========================================================================
Family                 Markup (source)
=====================  ==========================================================================
DeepSeek V3 / R1       ``<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME`` and
                       the arguments in a json fence, ``<｜tool▁call▁end｜>``; V3.1 writes
                       ``NAME<｜tool▁sep｜>{...}`` (DeepSeek's chat templates; google/adk-python#5654)
DeepSeek V3.2, V4      ``<｜DSML｜function_calls><｜DSML｜invoke name="N"><｜DSML｜parameter name="K"
                       string="true">V</｜DSML｜parameter>...`` (vllm-project/vllm#48931); V4 wraps
                       it in ``<｜DSML｜tool_calls>`` (sgl-project/sglang#35736), bars ASCII or
                       doubled; ``<｜DSML｜toolcall>NAME`` above a json fence (vllm-ascend#13794);
                       an ``invoke`` with no section around it (sgl-project/sglang#40236)
GigaChat 3.5           the DSML shape under ``GCML`` (``<｜GCML｜tool_calls><｜GCML｜invoke name="N">...``)
Solar Open 2           ``<|tool_call:start|>NAME\n<|tool_arg:start|>K<|tool_arg:value|>V<|tool_arg:end|>
                       <|tool_call:end|>`` (reasoning in ``<|think:start|>``: ``agent_core.think``)
MiniCPM5               ``<function name="N"><param name="K">V</param></function>`` (a line start, a
                       node tool: ``_FUNCTION_NAME_RULE``); these three from vLLM's parser tests
LFM2                   ``<|tool_call_start|>[NAME(k="v")]<|tool_call_end|>`` (ml-explore/mlx-lm#864)
Kimi K2                ``<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0
                       <|tool_call_argument_begin|>{...}<|tool_call_end|>...`` (Kimi-K2
                       tool_call_guidance; vllm-project/vllm#31207)
MiniMax M2, Claude     ``<minimax:tool_call>`` / ``<function_calls>`` around ``<invoke name="N">
                       <parameter name="K">V</parameter></invoke>`` (MiniMax-M2.5#10), or that
                       ``<invoke>`` alone (Claude Opus 4.8, anthropics/claude-code#65635); in
                       the wrapper, the inner tags without ``<`` / ``</`` (exo-explore/exo#1882;
                       with no wrapper: ``text_calls._angleless_invokes``)
MiniMax-M3             ``]<]minimax[>[`` before every tag of a ``<tool_call>`` around ``<invoke name="N">
                       <k>V</k></invoke>`` (arguments as elements, lists as ``<item>``; the token
                       dropped: ml-explore/mlx-lm PR #1416, vllm-project/vllm#51073)
MiniMax M1             ``<tool_calls>`` around one JSON call per line (MiniMax-M2#14)
K2 Horizon, PLaMo 3,   ``<ifm|tool_calls><ifm|tool_call>NAME<ifm|arg_key>k</ifm|arg_key><ifm|arg_value>v
iQuest Coder V2        </ifm|arg_value></ifm|tool_call></ifm|tool_calls>`` (Hy3's under a prefix, or a
                       JSON call); ``<|plamo:begin_tool_requests:plamo|>`` requests of a name and
                       JSON arguments (its ``<|plamo:tag|>`` ends the turn);
                       ``<iquestcoder_tool_call>NAME<arg_key>...</iquestcoder_tool_call>``: vLLM's
                       ``k2_horizon``, ``plamo3`` and ``iquest_coder_v2`` tool parser tests
Hunyuan Hy3, HY4       ``<tool_calls><tool_call>NAME<tool_sep><arg_key>k</arg_key><arg_value>v
                       </arg_value></tool_call></tool_calls>``; HY4's tags carry a suffix
                       (``<tool_calls:opensource>``): vLLM's ``hy_v3`` / ``hy_v4`` parser tests;
Hunyuan-A13B           ``<tool_calls><tool_call>NAME\n```json\n{...}\n```</tool_call></tool_calls>``
                       (its template's system prompt: hiyouga/LlamaFactory PR #10771)
Qwen3-Coder            ``<function=NAME><parameter=K>V</parameter></function>`` without the
                       opening ``<tool_call>`` (ollama/ollama#16686); a name whose ``>`` was left
                       out is read when it is a node tool or its declared parameter (mlx-lm)
Mistral (v11 tokens)   ``[TOOL_CALLS]NAME[ARGS]{...}``, repeated (ml-explore/mlx-lm#1374), ``[ARGS]``
                       left out, or ``[TOOL_CALLS] [{...}]`` after text (pre-v11, xLAM); a
                       ``[/TOOL_CALLS]`` is dropped
Qwen3 (MLX servers)    ``[Calling tool: NAME({...})]`` opening a line (waybarrios/vllm-mlx PR #15);
Hermes Agent's line    ``[Calling tool: NAME with arguments: {...}]`` (or ``arguments={...}``) a
                       model copies from its history (EKKOLearnAI/hermes-studio#942, #840)
Granite, GigaChat,     ``<|tool_call|>[...]`` (Granite 3.0), ``<function_call> {...}`` repeated
Apertus                (granite-20b-fc), ``<|function_call|>{...}`` (GigaChat 3.1),
                       ``<|message_sep|>function call<|role_sep|>{...}`` (GigaChat 3),
                       ``<|tools_prefix|>[{"NAME": {...}}]<|tools_suffix|>`` (Apertus): vLLM's
                       tool parser tests
InternLM2 / 2.5        ``<|action_start|><|plugin|>{"name": N, "parameters": {...}}<|action_end|>``
                       (its chat template; vLLM's ``internlm`` tool parser)
Gemma 4, FunctionGemma ``<|tool_call>call:NAME{key:<|"|>text<|"|>}<tool_call|>`` and
                       ``<start_function_call>call:NAME{key:<escape>text<escape>}
                       <end_function_call>`` (ggml-org/llama.cpp#22786), the arguments also in
                       parentheses (``call:NAME(k: "v")``: NousResearch/hermes-agent#7457), closed by
                       ``<turn|>``, or its token broken into ``<call>`` (vLLM's Gemma 4 parser tests);
                       ``call:`` before a JSON call object (tinyhumansai/openhuman PR #6346)
gpt-oss (Harmony)      ``<|channel|>analysis<|message|>...<|end|>`` (reasoning, rewritten as a
                       ``<think>`` block), ``<|channel|>final<|message|>...`` (text), and
                       ``<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{...}
                       <|call|>`` (a call) (OpenAI's harmony format; lablup/mlxcel#654); the same
                       with its tokens left out, ``analysis...assistantfinal...``
                       (oobabooga/text-generation-webui#7374)
Glimmer                `` to=NAME<|message|>...<|eom|>``, later messages after ``<|start|>assistant``,
                       ``<|eot|>`` ending the turn: ``self`` reasoning, ``user`` text, a tool's
                       ``<atem:function_calls><atem:invoke name=...>`` block a call (Ollama's
                       ``glimmer`` parser and its tests; ``_rewrite_glimmer``); the block with no
                       header, alone or after prose, a call too (sgl-project/sglang PR #34577)
Nemotron, LongCat,     ``<TOOLCALL>[{...}]</TOOLCALL>``, ``<longcat_tool_call>{...}
Seed-OSS, Command R7B  </longcat_tool_call>``, ``<seed:tool_call><function=N>...</seed:tool_call>``,
                       ``<|START_ACTION|>[{"tool_name": N, "parameters": {...}}]<|END_ACTION|>``
                       (``_WRAPPERS``); Cohere's ``<|START_RESPONSE|>`` and ``<|START_TEXT|>``
                       tokens are dropped
Cherry Studio prompts  ``<tool_use><name>N</name><arguments>{...}</arguments></tool_use>``, the form
                       its prompt mode for tools teaches (CherryHQ/cherry-studio#7312; ``_WRAPPERS``)
Cline, Roo-Code        ``<read_file>\n<path>a.py</path>\n</read_file>``: an element named after one of
tool prompts           the node's tools, opening a line outside code, its parameters as elements (their
                       system prompts teach it; RooCodeInc/Roo-Code#10464, #10358): read only when
                       ``CallMarkup`` is given the tools (``_element_rule``)
MiniMax (LM Studio)    ``[TOOL_CALL] {"tool": N, "args": {...}} [/TOOL_CALL]`` (lmstudio-bug-tracker#1177)
Doubao / Seed          ``<|FunctionCallBegin|>[{"name": N, "parameters": {...}}]<|FunctionCallEnd|>``
                       (Volcengine Ark's text form; ``_WRAPPERS``)
GLM-4.5V, GLM-4.6V     ``<|begin_of_box|>answer<|end_of_box|>``: the box tokens are dropped
Functionary v3.2       ``>>>all\ntext>>>NAME\n{...}>>>NAME\n{...}``, the first ``>>>`` left out when
                       the generation prompt held it (meetkai-functionary-medium-v3.2.jinja):
                       a first line ``all`` above text is dropped for a known Functionary model
Step-3                 DeepSeek's tokens around ``<steptml:invoke name="N">`` (vLLM's ``step3``)
OLMo 3                 ``<function_calls>`` around calls as code, one a line (vLLM's ``olmo3``)
Turn ends              ``<end_of_turn>``, ``<eos>``, ``<|eot_id|>``, ``<|im_end|>``, ``<|endoftext|>``,
                       ``<｜end▁of▁sentence｜>``, ``<|end|>``, ``<turn|>``, ``<|END_OF_TURN_TOKEN|>``,
                       and the next turn's ``<|user|>``, ``[INST]`` (``</s>`` only before one, or
                       at the end): the reply ends there; an invented next turn after it is
                       dropped (google/gemma.cpp#276, ollama/ollama#3759)
=====================  ==========================================================================

Markup that cannot be read is passed on as written (``MARKUP_OPENERS`` lets a caller tell it
from an answer). A block is held from its opening marker to its end, so a caller never sees half
of one; a block left open when the text ends is read as it stands. Forms that are already read
where they are met (``<tool_call>`` blocks, ``[TOOL_CALLS] [...]``, ``<|python_tag|>``) pass
through untouched. Linear in the text; never raises.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from agent_core import fences
from agent_core.fairness import give_way
from agent_core.quoted import QuotedScan
from agent_core.text_calls import (
    BARE_NAME,
    FAIL,
    Call,
    after_m3_token,
    call_arguments,
    calls_from_block,
    calls_of_each,
    decode_input,
    decode_json,
    decode_nested,
    element_arguments,
    element_opening,
    element_value,
    envelope_name,
    in_a_string,
    interpret,
    mentions_call_markup,
)

_BARS: Final = ("｜", "|")
_SPACES: Final = ("▁", "_")


def _deepseek(word: str) -> tuple[str, ...]:
    """``<｜tool▁calls▁begin｜>`` as DeepSeek's tokenizer writes it and as servers rewrite it
    (ASCII bar, underscore)."""
    return tuple(f"<{bar}{word.replace(' ', space)}{bar}>" for bar in _BARS for space in _SPACES)


@dataclass(frozen=True)
class _Rule:
    """One form: its opening markers, its end (``None``: the end of the text), and how its
    whole text reads as calls (``[]``: not readable, passed on as written). ``bare``: a call
    that may stand inside a ``<tool_call>`` the model wrote, rewritten there as its JSON alone."""

    openers: tuple[str, ...]
    closer: re.Pattern[str] | None
    read: Callable[..., list[Call]]
    bare: bool = False
    named: bool = False  # a call only to one of the node's tools, when the caller gave them
    declared: bool = False  # ``read`` takes the node's tools too (name -> declaration or None)


def _tool_call(name: str, arguments: Any) -> str:
    """One call as the ``<tool_call>`` block the strategies read."""
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False) + "</tool_call>"


_ARGUMENTS_FENCE = re.compile(r"```[\w-]*+[ \t]*+\n?")


def _arguments(text: str) -> Any:
    """Arguments as written after a separator: JSON (fenced or not) or text.

    A fence's opening line and its closing backticks (with the blanks and the line end before
    them) are left out. They are found without a regex search for the closing fence: one tried
    at every blank of a long run of blanks was quadratic."""
    text = text.strip()
    opening = _ARGUMENTS_FENCE.match(text)
    start, end = (opening.end() if opening else 0), len(text)
    if text.endswith("```") and end - 3 >= start:
        end = start + len(text[start : end - 3].rstrip(" \t"))
        if end > start and text[end - 1] == "\n":
            end -= 1
    text = text[start:end]
    value = decode_input(text)
    return {} if value is None else value


_DS_CALL = re.compile(r"<[|｜]tool[▁_]call[▁_]begin[|｜]>(.*?)(?:<[|｜]tool[▁_]call[▁_]end[|｜]>|\Z)", re.S)
_DS_SEP = re.compile(r"<[|｜]tool[▁_]sep[|｜]>")


_STEP3_INVOKE: Final = "<steptml:invoke"
"""Step-3 writes DeepSeek's call tokens around ``<steptml:invoke name="N"><steptml:parameter
name="K">V</steptml:parameter></steptml:invoke>`` (vLLM's ``step3`` tool parser)."""


def _read_deepseek(block: str) -> list[Call]:
    """DeepSeek's calls (``_DS_CALL``); a block opened by Kimi K2's ``<|tool_call_begin|>`` (the
    ASCII spelling of DeepSeek's token) whose calls have Kimi's argument token is read as Kimi's
    (``_read_kimi``)."""
    if _KIMI_ARGUMENT in block and _DS_SEP.search(block) is None:
        return _read_kimi(block)
    calls: list[Call] = []
    for inner in _DS_CALL.findall(block):
        invoke = inner.find(_STEP3_INVOKE)
        if invoke >= 0 and (_DS_SEP.search(inner, 0, invoke) is None or inner[:invoke].lstrip().startswith("function")):
            # Step-3: the invoke alone in the call tokens, or after "function<｜tool_sep｜>NAME\n"
            invoked = _read_invoke(inner[invoke:].replace("steptml:", ""))
            if len(invoked) != 1:
                return []
            calls.extend(invoked)
            continue
        pieces = _DS_SEP.split(inner, maxsplit=1)
        if len(pieces) != 2:
            return []
        head, rest = pieces[0].strip(), pieces[1]
        if head == "function":  # V3 / R1: the type, then "NAME\n```json ...```"
            name, _, rest = rest.strip().partition("\n")
        else:  # V3.1: "NAME<｜tool▁sep｜>{...}"
            name = head
        if not name.strip():
            return []
        calls.append((name.strip(), _arguments(rest)))
    return calls


_KIMI_CALL = re.compile(
    r"<\|tool_call_begin\|>\s*+((?:[^<\s]++|\s++(?=[^<\s]))*+)\s*+<\|tool_call_argument_begin\|>"
    r"(.*?)(?:<\|tool_call_end\|>|(?=<\|tool_call_begin\|>)|\Z)",
    re.S,
)
"""Kimi K2's call: its id (what stands before the first ``<``, without the whitespace around it)
and its arguments, to its end token, or with none to the next call's begin token (llama.cpp's
Kimi-K2 test: calls written one after the other with no end markers). The id's parts are
possessive: a lazy id between two ``\\s*`` took half a second on a thousand spaces (cubic), now
a single pass."""
_KIMI_ARGUMENT: Final = "<|tool_call_argument_begin|>"
_KIMI_ID = re.compile(r"(?:functions\.)?(.+?)(?::\d+)?")
_KIMI_FENCED_CALL = re.compile(
    r"<\|tool_call_begin\|>[ \t]*([^<\s]+)\s*```(?:json)?[ \t]*\n((?:[^`]|`(?!``))*)```\s*(?:<\|tool_call_end\|>|\Z)"
)
"""Kimi K2.5's call with no ``<|tool_call_argument_begin|>``: the name, then the arguments in a
```` ```json ```` fence (``<|tool_call_begin|>functions.get_weather\n```json\n{...}\n```
<|tool_call_end|>``, as agents' K2.5 markup parsers document the leak). Read only when no call of
the block has the argument token."""


def _read_kimi(block: str, tools: Mapping[str, Any] | None = None) -> list[Call]:
    """Kimi K2's calls (``functions.NAME:IDX<|tool_call_argument_begin|>{...}``), else K2.5's
    fenced form (``_KIMI_FENCED_CALL``); [] when an id reads as no name. With the node's
    ``tools`` (name -> declaration or None), an id that names none of them is read as K2.5 and
    K2 also write it (``_kimi_named``)."""
    calls: list[Call] = []
    for call_id, arguments in _KIMI_CALL.findall(block) or _KIMI_FENCED_CALL.findall(block):
        name = _KIMI_ID.fullmatch(call_id.strip())
        if not name:
            return []
        call = (name.group(1), _arguments(arguments))
        calls.append(_kimi_named(call_id.strip(), *call, tools) if tools and call[0] not in tools else call)
    return calls


def _kimi_unmarked_name(call_id: str, tools: Mapping[str, Any]) -> str | None:
    """The tool of K2.5's id written with the ``.`` and ``:`` of ``functions.NAME:IDX`` left out
    (``functionsexec5``: sgl-project/sglang PR #21377) or written as ``_`` (``functions_NAME_IDX``,
    the id a client that sanitises ids hands back and K2.7 then copies: exo-explore/exo#2281):
    the longest of ``tools`` that follows ``functions`` with only an index (its ``:`` or ``_``
    optional) after it; None when none does. Read by string tests: a lazy name before an optional
    ``:`` and digits was quadratic on a long id."""
    if not call_id.startswith("functions"):
        return None
    rest = call_id[len("functions") :]
    rest = rest[1:] if rest[:1] in (".", "_") else rest
    fits = [n for n in tools if rest.startswith(n) and _kimi_index(rest[len(n) :])]
    return max(fits, key=len, default=None)


def _kimi_index(text: str) -> bool:
    """``text`` is a Kimi call index, its ``:`` (or ``_``) optional: ``:0``, ``_1``, ``5``."""
    return (text[1:] if text[:1] in (":", "_") else text).isdecimal()


def _kimi_named(call_id: str, name: str, arguments: Any, tools: Mapping[str, Any]) -> Call:
    """A Kimi call whose id names none of ``tools``: the tool of an id written without its ``.``
    and ``:`` (``_kimi_unmarked_name``), or, for an OpenAI-style id (``call_abc123def456``), the
    tool the arguments name in ``"name"``, the other keys (or its ``"arguments"`` object) its
    arguments (vllm-project/vllm PR #32146: K2 adapts its ids to OpenAI-style history); else the
    call as read (told to the model as an unknown tool)."""
    unmarked = _kimi_unmarked_name(call_id, tools)
    if unmarked is not None:
        return unmarked, arguments
    named = arguments.get("name") if isinstance(arguments, dict) else None
    if isinstance(named, str) and named in tools:
        rest = {key: value for key, value in arguments.items() if key != "name"}
        inner = rest.get("arguments")
        return named, inner if rest.keys() == {"arguments"} and isinstance(inner, dict) else rest
    return name, arguments


_INVOKE = re.compile(r"<invoke\s+name=\s*[\"']([^\"'>]+)[\"']\s*>(.*?)(</invoke>|\Z)", re.S)
_PARAMETER_OPEN = r"<parameter\s+name=\s*[\"']([^\"'>]+)[\"']((?:\s+[\w-]+=\s*[\"'][^\"']*[\"'])*)\s*>"
_UNCLOSED_PARAMETER = re.compile(_PARAMETER_OPEN + r"(.*)", re.S)
"""A parameter whose ``</parameter>`` the model left out, its value running to the ``</invoke>``
that closes the call (``<parameter name="location">Tokyo</invoke>``: Ollama's MiniMax-M2 parser
test reads it so)."""
_DSML_BARS: Final = "|｜‖"
_DSML = re.compile(rf"(?<=<)[{_DSML_BARS}]+DSML[{_DSML_BARS}]+ ?|(?<=</)[{_DSML_BARS}]+DSML[{_DSML_BARS}]+ ?")
_DSML_WRAPPERS: Final = ("function_calls", "tool_calls", "tool_ccalls", "toolcalls", "calls", "tool_use")
"""DeepSeek V3.2's DSML call wrapper, V4's, and the misspellings V4 writes now and then
(``tool_ccalls``: osaurus-ai/osaurus#1242; ``toolcalls``, closed as ``tool_calls``:
vllm-project/vllm#51914; ``calls``: CommandCodeAI/command-code#909; ``tool_use``:
AgentFlocks/flocks PR #687)."""
_DSML_WRAPPER_END = re.compile(rf"</[{_DSML_BARS}]+DSML[{_DSML_BARS}]+ ?(?:function_calls|tool_c?calls|toolcalls|calls|tool_use)>")


def _dsml(word: str) -> tuple[str, ...]:
    """``<｜DSML｜word>`` with the bars as the tokenizer writes them, as servers rewrite them (ASCII
    bar, U+2016 ``‖``: lsdefine/GenericAgent#804), doubled (AppsGanin/ai-free-vscode#17), and with
    a space before the word (``<｜｜DSML｜｜ calls>``: CommandCodeAI/command-code#909)."""
    return tuple(
        f"<{bar * n}DSML{bar * n}{space}{word}>" for bar in _DSML_BARS for n in (1, 2) for space in ("", " ")
    )


_XTML_TOOLS_OPEN, _XTML_TOOLS_CLOSE = "<|open|>tools<|sep|>", "<|close|>tools<|sep|>"
_XTML_SPACED_OPEN: Final = "<|open|> tools <|sep|>"
"""K3's tools channel as a server that decodes its special tokens with a space either side writes
it (``<|open|> call tool="x" <|sep|>``): read once those spaces are taken out (``_unspaced_xtml``)."""
_XTML_SPACED_CLOSE: Final = re.compile(r"<\|close\|> ?tools ?<\|sep\|>")
_XTML_ATTR = re.compile(r'(?<!\w)(\w++)="([^"]*+)"')
"""An attribute, ``name="value"``. It starts at a word's start: a name tried from inside a long
word not followed by ``="`` was quadratic (a word's later start matches only where its first does)."""


def _xtml_attributes(head: str) -> dict[str, str]:
    """An XTML element's attributes (``call tool="get_weather" index="1"``), unescaped as Kimi K3's
    template escapes them (``&quot;``, ``&amp;``)."""
    return {key: value.replace("&quot;", '"').replace("&amp;", "&") for key, value in _XTML_ATTR.findall(head)}


def _xtml_element(piece: str) -> tuple[str, dict[str, str], str] | None:
    """``KIND attrs<|sep|>VALUE<|close|>KIND<|sep|>`` (what follows an ``<|open|>``) as (kind,
    attributes, value); None when it is not closed, or text other than space follows it."""
    head, found, rest = piece.partition("<|sep|>")
    kind = head.split(" ", 1)[0].strip()
    value, closed, tail = rest.partition(f"<|close|>{kind}<|sep|>")
    if not found or not kind or not closed or tail.strip():
        return None
    return kind, _xtml_attributes(head), value


def _read_kimi_xtml(block: str) -> list[Call]:
    """Kimi K3's tools channel (its XTML, as vLLM's ``kimi_k3`` tool parser reads it)::

        <|open|>tools<|sep|><|open|>call tool="NAME" index="1"<|sep|>
        <|open|>argument key="K" type="string"<|sep|>V<|close|>argument<|sep|>...
        <|close|>call<|sep|><|close|>tools<|sep|>

    A ``string`` argument is its raw text; another type is JSON (its raw text when it is not); a
    call may instead hold one ``<|open|>json type="object"<|sep|>{...}<|close|>json<|sep|>``.
    Read with ``str.partition`` (no pattern that could backtrack); [] when any part is not
    closed, text stands between the parts, or a call names no tool."""
    if block.startswith(_XTML_SPACED_OPEN):
        block = _unspaced_xtml(block)
    body = block.removeprefix(_XTML_TOOLS_OPEN).removesuffix(_XTML_TOOLS_CLOSE)
    first, *parts = body.split("<|open|>call ")
    if first.strip() or not parts:
        return []
    calls: list[Call] = []
    for part in parts:
        head, found, rest = part.partition("<|sep|>")
        inner, closed, tail = rest.partition("<|close|>call<|sep|>")
        name = _xtml_attributes(head).get("tool", "")
        if not found or not closed or tail.strip() or not name:
            return []
        arguments = _xtml_arguments(inner)
        if arguments is None:
            return []
        calls.append((name, arguments))
    return calls


_XTML_GLUED_OPEN: Final = "<|open|>toolscall "
_XTML_GLUED_CLOSE = re.compile(r"<\|close\|>tools(?:message)?<\|sep\|>")
"""K3's tools channel with the tokens between ``tools`` and ``call`` (and between ``tools`` and its
close and ``message``) dropped by a provider: ``<|open|>toolscall tool="N" index="1"<|sep|>...
<|close|>call<|sep|><|close|>toolsmessage<|sep|>`` (kimi-k3-high through cursor:
can1357/oh-my-pi#8495), read as the channel it stands for."""


def _read_glued_xtml(block: str) -> list[Call]:
    """A glued K3 tools channel (``_XTML_GLUED_OPEN``) read as ``_read_kimi_xtml`` reads the
    channel: its opening restored, its closing marker taken off."""
    end = _XTML_GLUED_CLOSE.search(block)
    body = block[len(_XTML_GLUED_OPEN) : end.start() if end else len(block)]
    if end is not None and block[end.end() :].strip():
        return []
    return _read_kimi_xtml(f"{_XTML_TOOLS_OPEN}<|open|>call {body}{_XTML_TOOLS_CLOSE}")


def _unspaced_xtml(block: str) -> str:
    """A spaced K3 tools channel (``_XTML_SPACED_OPEN``) as K3 writes it: the space after
    ``<|open|>`` and ``<|close|>`` and the one before ``<|sep|>`` taken out; a value's own spaces
    (between ``<|sep|>`` and ``<|close|>``) are kept."""
    return block.replace("<|open|> ", "<|open|>").replace("<|close|> ", "<|close|>").replace(" <|sep|>", "<|sep|>")


def _xtml_arguments(inner: str) -> dict[str, Any] | None:
    """A K3 call's arguments (``_read_kimi_xtml``): its ``argument`` elements, or one ``json``
    element holding an object; None when they do not read."""
    first, *pieces = inner.split("<|open|>")
    if first.strip():
        return None
    arguments: dict[str, Any] = {}
    for piece in pieces:
        element = _xtml_element(piece.rstrip())
        if element is None:
            return None
        kind, attributes, value = element
        if kind == "json":
            decoded = decode_input(value)
            if not isinstance(decoded, dict):
                return None
            arguments.update(decoded)
        elif kind == "argument" and "key" in attributes:
            typed = attributes.get("type", "string")
            if typed == "string":
                arguments[attributes["key"]] = value
            else:
                try:
                    arguments[attributes["key"]] = json.loads(value)
                except ValueError:
                    arguments[attributes["key"]] = value
        else:
            return None
    return arguments


_DSML_STRAY_ENDS: Final = tuple(
    f"</{bar * n}DSML{bar * n}{word}>" for word in ("invoke", "parameter") for bar in "|｜" for n in (1, 2)
)
"""A DSML closer with no block open (DeepSeek V4 writes ``</｜DSML｜invoke>`` right after a tool
result, vllm-project/vllm PR #56184): no call and never text, dropped (``_DROPPED``). A stray
wrapper closer is ``_DSML_WRAPPER_END``'s, read where it stands as the end of an empty block."""


def _read_dsml(block: str) -> list[Call]:
    """A DSML wrapper's calls (``_read_invoke``); an empty wrapper
    (``<｜DSML｜tool_calls></｜DSML｜tool_calls>``: DeepSeek V4, vllm-project/vllm PR #56184) holds
    no call and is no text: ``_EMPTY``."""
    if _DSML_WRAPPER_END.sub("", _DSML_OPENER.sub("", block, count=1)).strip() == "":
        return _EMPTY
    return _read_invoke(block)


_DSML_OPENER = re.compile(rf"<[{_DSML_BARS}]+DSML[{_DSML_BARS}]+ ?\w+>")
_EMPTY: Final[list[Call]] = []
"""What a reader returns for a block that holds no call and is dropped, not passed on as
written (compared by identity; never appended to)."""


def _read_dsml_toolcall(block: str) -> list[Call]:
    """``<｜DSML｜toolcall>NAME`` and its arguments in a json fence (DeepSeek V4,
    vllm-project/vllm-ascend#13794); what follows the first fence (an invented result) is not
    the call's."""
    calls: list[Call] = []
    for piece in re.split(rf"<[{_DSML_BARS}]+DSML[{_DSML_BARS}]+ ?toolcall>", block)[1:]:
        name, _, rest = piece.strip().partition("\n")
        fence = re.match(r"\s*```[\w-]*[ \t]*\n(.*?)(?:```|\Z)", rest, re.S)
        if not BARE_NAME.fullmatch(name.strip()) or not fence:
            return []
        calls.append((name.strip(), _arguments(fence.group(1))))
    return calls


_GCML_OPENERS: Final = tuple(f"<{bar}GCML{bar}tool_calls>" for bar in "|｜")
_GCML_END = re.compile(r"</[|｜]GCML[|｜]tool_calls>")
_GCML = re.compile(r"(?<=<)[|｜]GCML[|｜]|(?<=</)[|｜]GCML[|｜]")


def _read_gcml(block: str) -> list[Call]:
    """GigaChat 3.5's ``<｜GCML｜tool_calls><｜GCML｜invoke name="N"><｜GCML｜parameter name="K"
    string="true">V</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls>``: DSML's shape under
    another word, read as DSML is (``_read_invoke``; vLLM's ``gigachat35`` parser tests)."""
    return _read_invoke(_GCML.sub("", block))


_SOLAR_OPEN, _SOLAR_END = "<|tool_call:start|>", "<|tool_call:end|>"
_SOLAR_ARG = re.compile(
    r"<\|tool_arg:start\|>([^<>\n]*?)<\|tool_arg:value\|>(.*?)(?:<\|tool_arg:end\|>|(?=<\|tool_arg:start\|>)|\Z)", re.S
)


def _read_solar(block: str) -> list[Call]:
    """Solar Open 2's ``<|tool_call:start|>NAME\n<|tool_arg:start|>K<|tool_arg:value|>V
    <|tool_arg:end|>\n<|tool_call:end|>`` (vLLM's ``solar_open2`` parser tests), one call or
    several whose ``<|tool_call:end|>`` was left out (each ends at the next start token). A
    value is JSON when it reads as a JSON object or array, else text as written; the first of
    a name given twice counts. A call whose name line holds a token (its name never ended) is
    skipped; ``[]`` when no call reads. The last call must end with ``<|tool_call:end|>``: one
    the reply left open runs nothing, as vLLM's parser leaves it (its value may be cut, or the
    call abandoned in the reasoning: vLLM's ``solar_open2`` reasoning parser test)."""
    calls: list[Call] = []
    pieces = block.removesuffix(_SOLAR_END).split(_SOLAR_OPEN)[1:]
    if not block.endswith(_SOLAR_END):
        pieces = pieces[:-1]
    for piece in pieces:
        name, newline, body = piece.removesuffix(_SOLAR_END).partition("\n")
        if not newline or not BARE_NAME.fullmatch(name.strip()):
            continue
        arguments: dict[str, Any] = {}
        for key, value in _SOLAR_ARG.findall(body):
            decoded = decode_nested(value.strip())
            arguments.setdefault(key.strip(), value if isinstance(decoded, str) else decoded)
        calls.append((name.strip(), arguments))
    return calls


def _read_pythonic(block: str) -> list[Call]:
    """``<|tool_call_start|>[get_weather(location="Paris")]<|tool_call_end|>``: Python calls in
    a list between LFM2's tokens (ml-explore/mlx-lm#864)."""
    return calls_from_block(block.replace("<|tool_call_start|>", "").replace("<|tool_call_end|>", ""))


_MINIMAX_M3_TOKEN: Final = "]<]minimax[>["
"""MiniMax-M3's token before every tag of its call markup (``]<]minimax[>[<tool_call>\n
]<]minimax[>[<invoke name="N">]<]minimax[>[<path>x]<]minimax[>[</path>...``: ml-explore/mlx-lm
PR #1416, MiniMax-AI/MiniMax-M3#31, vllm-project/vllm#51073): never text, dropped; what is left
is a ``<tool_call>`` around an ``<invoke>`` whose arguments are elements (``text_calls.element_value``).
Outside a call the tag after it is still M3's markup (``CallMarkup._m3_token``): a ``</tool_call>``
with no block open is dropped with it (an answer ended by ``]<]minimax[>[</tool_call>``:
anomalyco/opencode#30684), and an argument element with no invoke around it
(``]<]minimax[>[<initial_wait>10...``: github/app#2128) keeps the token, markup not read
(``MARKUP_OPENERS``): the reply is asked again, never shown."""

_M3_ORPHAN_ELEMENT = re.compile(r"</?(?!(?:tool_call|invoke|think|mm:think)\b)[A-Za-z_][\w.:-]*+>")
"""A tag after MiniMax-M3's token outside any call that is none of its call's own (``<tool_call>``,
``<invoke>``) nor a reasoning tag: one of an invoke's argument elements, with no invoke open."""
_M3_LOOK: Final = 64
"""How far after MiniMax-M3's token its tag's ``>`` is waited for (``CallMarkup._m3_token``):
a ``<`` with no ``>`` that near opens no tag."""

_PARAMETER_START = re.compile(_PARAMETER_OPEN)
_PARAMETER_CLOSE: Final = "</parameter>"


def _closed_parameters(inner: str, end: int) -> list[tuple[str, str, str]]:
    """``(key, attributes, value)`` of each ``<parameter name=...>`` in ``inner[:end]`` closed
    before the next one opens. A value runs past a ``</parameter>`` that text other than blanks
    follows before another ``</parameter>`` (``This text contains </parameter> in it</parameter>``:
    SGLang's MiniMax-M2 detector test wants the whole value); a doubled closing tag ends it at
    the first. A parameter with no closing tag before the next one opens is not read (its value
    is not guessed)."""
    starts = list(_PARAMETER_START.finditer(inner, 0, end))
    found: list[tuple[str, str, str]] = []
    for i, start in enumerate(starts):
        limit = starts[i + 1].start() if i + 1 < len(starts) else end
        close = inner.find(_PARAMETER_CLOSE, start.end(), limit)
        if close < 0:
            continue
        while (later := inner.find(_PARAMETER_CLOSE, close + len(_PARAMETER_CLOSE), limit)) >= 0 and inner[
            close + len(_PARAMETER_CLOSE) : later
        ].strip():
            close = later
        found.append((start.group(1), start.group(2), inner[start.end() : close]))
    return found


def _read_invoke(block: str) -> list[Call]:
    """``<invoke name="N"><parameter name="K">V</parameter></invoke>``: a parameter marked
    ``string="true"`` (DeepSeek V3.2) is text as written, one marked ``string="false"`` JSON
    (``false``, ``20``) when it reads as JSON, any other value JSON when it reads as a JSON object
    or array, else text as written, spaces and line breaks at its edges kept (the value sits
    between its tags: vLLM's ``step3`` and ``minimax_m2`` parsers keep them; a number's or a
    boolean's spaces go when the tool's schema converts it). An ``<invoke>`` with no ``<parameter>`` but elements (``<city>Paris
    </city>``: MiniMax-M3) has those as its arguments (``text_calls.element_value``). One
    parameter left open when ``</invoke>`` closes the call runs to it (``_UNCLOSED_PARAMETER``,
    line breaks before the tag dropped); an invoke the reply never closed reads only closed ones,
    and is no call when it ends inside a parameter or in a tag that is no closing one (``<parame``:
    a value cut or not begun; run, it would drop it) or inside an element (``_element_open``)."""
    calls: list[Call] = []
    for name, inner, closed in _INVOKE.findall(_DSML.sub("", block.replace(_MINIMAX_M3_TOKEN, ""))):
        arguments: dict[str, Any] = {}
        if "<parameter" not in inner and isinstance(value := element_value(inner), dict):
            calls.append((name.strip(), value))
            continue
        # no parameter ends past the last </parameter>: one never closed is not read again to the end
        end = inner.rfind("</parameter>")
        end = 0 if end < 0 else end + len("</parameter>")
        parameters = _closed_parameters(inner, end)
        tail = inner[end:]
        if closed and tail.count("<parameter") == 1 and (unclosed := _UNCLOSED_PARAMETER.search(tail)):
            # the call closed with one parameter still open: its value runs to the </invoke>
            key, attributes, value = unclosed.groups()
            parameters.append((key, attributes, value.rstrip("\n")))
        elif not closed and (
            "<parameter" in tail
            or ((at := tail.rfind("<")) > tail.rfind(">") and not tail.startswith("</", at))
            or _element_open(tail)
        ):
            # the reply ended inside a value (JustVugg/colibri PR #948), in a tag that opens one
            # (``<parame``) or inside an element (``_element_open``): run, it would lose it
            continue
        for key, attributes, value in parameters:
            marked = re.search(r"string=\s*[\"'](true|false)[\"']", attributes)
            if marked and marked.group(1) == "true":
                arguments[key] = value
            elif marked and (decoded := decode_json(value.strip())) is not FAIL:
                arguments[key] = decoded
            else:  # text as written: its spaces are the value's ("    if x:" for an exact-match edit)
                decoded = decode_nested(value.strip())
                arguments[key] = value if isinstance(decoded, str) else decoded
        calls.append((name.strip(), arguments))
    return calls


_ELEMENT_TAG = re.compile(r"<(/?)[A-Za-z_][\w.:-]*+[^<>]*+>")


def _element_open(inner: str) -> bool:
    """Whether an invoke's text, the reply having ended before its ``</invoke>``, ends inside an
    element argument (MiniMax-M3's ``<city>Paris</city>``) opened and not closed (``<location>Ro``:
    ai-dynamo/frontend-crates PR #83, "last trunc"). Linear in ``inner``."""
    depth = 0
    for tag in _ELEMENT_TAG.finditer(inner):
        if not tag.group().endswith("/>"):
            depth += -1 if tag.group(1) else 1
    return depth > 0


_ANGLELESS_OPEN = re.compile(r"(?<![<\w/])(invoke|parameter)(?=\s+name=\s*[\"'])")
_ANGLELESS_CLOSE = re.compile(r"(?<!<)/?(invoke|parameter)>")


def _read_minimax(block: str) -> list[Call]:
    """A ``<minimax:tool_call>`` block (``_read_invoke``). MiniMax M2.x also writes its inner tags
    without their ``<`` and ``</`` (``invoke name="N">\nparameter name="K">Vparameter>\ninvoke>``:
    exo-explore/exo#1882, the wrapper's own tokens intact): a block with no ``<invoke`` has them
    put back first. Only inside the wrapper, where the words cannot be prose."""
    if "<invoke" not in block and "invoke" in block:
        block = _ANGLELESS_CLOSE.sub(r"</\1>", _ANGLELESS_OPEN.sub(r"<\1", block))
    return _read_invoke(block)


def _read_json_lines(block: str) -> list[Call]:
    """``<tool_calls>`` holding one JSON call object per line, or a JSON list of them, or Hunyuan
    Hy3's ``<tool_call>`` elements (``_read_hunyuan_calls``)."""
    inner = re.sub(r"</?tool_calls>", "", block).strip()
    if inner.startswith("<tool_call>"):
        return _read_hunyuan_calls(inner)
    values = (
        [decode_json(inner)] if inner[:1] == "[" else [decode_json(line) for line in inner.splitlines() if line.strip()]
    )
    return [] if any(value is FAIL for value in values) else calls_of_each(values)


_HUNYUAN_CALL = re.compile(r"<tool_call>(.*?)</tool_call>\s*", re.S)
_HUNYUAN_FENCED = re.compile(r"([^\W\d][\w.\-]{0,127})[ \t]*+\n```(?:json)?[ \t]*+\n((?:[^`]|`(?!``))*+)```")
"""Hunyuan-A13B's call body: the name, then its arguments as JSON in a ```` ```json ```` fence
(``<tool_call>NAME\n```json\n{...}\n```</tool_call>``: the system prompt Hunyuan's chat template
writes, quoted in hiyouga/LlamaFactory PR #10771)."""


def _read_hunyuan_calls(inner: str) -> list[Call]:
    """Hunyuan Hy3's calls inside its ``<tool_calls>``: ``<tool_call>NAME<tool_sep>`` then GLM's
    ``<arg_key>k</arg_key><arg_value>v</arg_value>`` pairs, or nothing for a call without
    arguments, ``</tool_call>`` (tencent/Hy3-preview: vLLM's ``hy_v3`` tool parser tests), or
    Hunyuan-A13B's name and fenced JSON object (``_HUNYUAN_FENCED``). ``[]`` unless the whole of
    ``inner`` is such calls."""
    calls: list[Call] = []
    at = 0
    for found in _HUNYUAN_CALL.finditer(inner):
        if found.start() != at:
            return []
        body = found.group(1).replace("<tool_sep>", "", 1).strip()
        fenced = _HUNYUAN_FENCED.fullmatch(body)
        if fenced and isinstance(arguments := _arguments(fenced.group(2)), dict):
            read = [(fenced.group(1), arguments)]
        else:
            read = [(body, {})] if BARE_NAME.fullmatch(body) else calls_from_block(body)
        if len(read) != 1:
            return []
        calls.extend(read)
        at = found.end()
    return calls if at == len(inner) else []


_HY4_SUFFIX = re.compile(r"<(/?(?:tool_calls?|arg_key|arg_value|tool_sep)):[\w.\-]{1,40}>")
"""HY4's call tokens carry a suffix its tokenizer gives (``<tool_calls:opensource>``; vLLM's
``hy_v4`` tool parser tests): the same tags as Hy3's without it."""


def _read_hy4(block: str) -> list[Call]:
    """HY4's ``<tool_calls:SUFFIX><tool_call:SUFFIX>NAME<arg_key:SUFFIX>k</arg_key:SUFFIX>
    <arg_value:SUFFIX>v</arg_value:SUFFIX></tool_call:SUFFIX></tool_calls:SUFFIX>``, read as Hy3's
    (``_read_hunyuan_calls``) once the suffixes are dropped."""
    inner = re.sub(r"</?tool_calls>", "", _HY4_SUFFIX.sub(r"<\1>", block)).strip()
    return _read_hunyuan_calls(inner) if inner.startswith("<tool_call>") else []


_IFM_OPEN, _IFM_CLOSE = "<ifm|tool_calls>", "</ifm|tool_calls>"
_IFM_TYPE = re.compile(r"<arg_type>[^<>]{0,40}</arg_type>")


def _read_ifm(block: str) -> list[Call]:
    """K2 Horizon's ``<ifm|tool_calls><ifm|tool_call>NAME<ifm|arg_key>k</ifm|arg_key>
    <ifm|arg_type>T</ifm|arg_type><ifm|arg_value>v</ifm|arg_value></ifm|tool_call>\n...
    </ifm|tool_calls>``, or a JSON call object in each ``<ifm|tool_call>`` (vLLM's ``k2_horizon``
    tool parser tests): Hy3's calls under the ``ifm|`` prefix, read as them
    (``_read_hunyuan_calls``) once the prefix and the type elements are dropped; ``[]`` unless
    every part is a call."""
    inner = block.removeprefix(_IFM_OPEN).removesuffix(_IFM_CLOSE).replace("<ifm|", "<").replace("</ifm|", "</")
    inner = _IFM_TYPE.sub("", inner).strip()
    return _read_hunyuan_calls(inner) if inner.startswith("<tool_call>") else []


_IFM_CALL_OPEN, _IFM_CALL_CLOSE = "<ifm|tool_call>", "</ifm|tool_call>"


def _read_ifm_call(block: str) -> list[Call]:
    """One K2 V3 / K2 Horizon ``<ifm|tool_call>...</ifm|tool_call>`` written with no
    ``<ifm|tool_calls>`` group around it, as SGLang's ``k2_v3`` detector reads it (its tests):
    ``NAME`` alone, ``NAME`` then GLM's ``<ifm|arg_key>``/``<ifm|arg_value>`` pairs (an
    ``<ifm|arg_type>`` between them dropped), or a JSON call object or list of them. ``[]`` for
    a call the reply never closed (its last value may be cut) or anything else."""
    if not block.endswith(_IFM_CALL_CLOSE):
        return []
    body = block[len(_IFM_CALL_OPEN) : -len(_IFM_CALL_CLOSE)].replace("<ifm|", "<").replace("</ifm|", "</")
    body = _IFM_TYPE.sub("", body).strip()
    return [(body, {})] if BARE_NAME.fullmatch(body) else calls_from_block(body)


_IQUEST_OPEN, _IQUEST_CLOSE = "<iquestcoder_tool_call>", "</iquestcoder_tool_call>"


def _read_iquest(block: str) -> list[Call]:
    """iQuest Coder V2's ``<iquestcoder_tool_call>NAME<arg_key>k</arg_key><arg_value>v</arg_value>
    </iquestcoder_tool_call>``, GLM's pairs after the name, or the name alone for a call without
    arguments (vLLM's ``iquest_coder_v2`` tool parser tests); ``[]`` for anything else."""
    inner = block.removeprefix(_IQUEST_OPEN).removesuffix(_IQUEST_CLOSE).strip()
    return [(inner, {})] if BARE_NAME.fullmatch(inner) else _calls_in(inner)


_PLAMO_OPEN, _PLAMO_CLOSE = "<|plamo:begin_tool_requests:plamo|>", "<|plamo:end_tool_requests:plamo|>"
_PLAMO_REQUEST_END: Final = "<|plamo:end_tool_request:plamo|>"
_PLAMO_HEAD: Final = "<|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>"
_PLAMO_NAME_END: Final = "<|plamo:end_tool_name:plamo|>"
_PLAMO_ARGUMENTS: Final = "<|plamo:begin_tool_arguments:plamo|>"
_PLAMO_JSON: Final = "<|plamo:constrain|>json<|plamo:msg|>"
_PLAMO_ARGUMENTS_END: Final = "<|plamo:end_tool_arguments:plamo|>"


def _read_plamo(block: str) -> list[Call]:
    """PLaMo 3's ``<|plamo:begin_tool_requests:plamo|>`` section of requests, each
    ``<|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>NAME<|plamo:end_tool_name
    :plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{...}
    <|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>`` (vLLM's ``plamo3`` tool
    parser and its tests). Only a closed section whose every part is a complete request with a
    JSON object reads, as vLLM's parser reads it; else ``[]``."""
    if not block.endswith(_PLAMO_CLOSE):
        return []
    *requests, rest = block[len(_PLAMO_OPEN) : -len(_PLAMO_CLOSE)].split(_PLAMO_REQUEST_END)
    if rest or not requests:
        return []
    calls: list[Call] = []
    for request in requests:
        name, ended, tail = request.removeprefix(_PLAMO_HEAD).partition(_PLAMO_NAME_END)
        body = tail.removeprefix(_PLAMO_ARGUMENTS).removeprefix(_PLAMO_JSON)
        if not (request.startswith(_PLAMO_HEAD) and ended and BARE_NAME.fullmatch(name)
                and tail.startswith(_PLAMO_ARGUMENTS) and body.endswith(_PLAMO_ARGUMENTS_END)):
            return []
        value = decode_json(body[: -len(_PLAMO_ARGUMENTS_END)].strip())
        if not isinstance(value, dict):
            return []
        calls.append((name, value))
    return calls


def _read_wrapped(opener: str, closer: str) -> Callable[[str], list[Call]]:
    """A reader for calls between ``opener`` and ``closer`` (``_calls_in``)."""

    def read(block: str) -> list[Call]:
        return _calls_in(block.removeprefix(opener).removesuffix(closer))

    return read


def _calls_in(inner: str) -> list[Call]:
    """The calls a family's wrapper holds: a JSON call object or a list of them (one object per
    line too), a call as ``<function=NAME>`` XML or code (``calls_from_block``), or calls as code
    one per line (OLMo 3: vLLM's ``olmo3`` tool parser). ``[]`` when any part is not a call."""
    inner = inner.strip()
    if inner[:1] in ("{", "["):
        value = decode_json(inner)
        if value is not FAIL:
            return interpret(value, strict=True)
        return _read_json_lines(inner)
    return calls_from_block(inner)


def _read_function_calls(block: str) -> list[Call]:
    """``<function_calls>``: Claude's ``<invoke>`` elements, or OLMo 3's calls written as code,
    one per line (``<function_calls>get_weather(city="Paris")</function_calls>``, vLLM's
    ``olmo3`` tool parser)."""
    return _read_invoke(block) or _read_wrapped("<function_calls>", "</function_calls>")(block)


def _read_internlm(block: str) -> list[Call]:
    """InternLM2 / 2.5's ``<|action_start|><|plugin|>\n{"name": N, "parameters": {...}}
    <|action_end|>`` (its chat template's plugin call; vLLM's ``internlm`` tool parser reads the
    same)."""
    inner = block.replace(_INTERNLM_CALL, "").replace("<|action_end|>", "").strip()
    value = decode_json(inner)
    return [] if value is FAIL else interpret(value, strict=True)


_INTERNLM_CALL: Final = "<|action_start|><|plugin|>"


def _read_function(block: str, tools: Mapping[str, Any] | None = None) -> list[Call]:
    """Qwen3-Coder's ``<function=NAME>`` without its ``<tool_call>``: read as inside one, with
    the node's ``tools`` (name -> declaration or None) when known: a name whose ``>`` was left out
    is read only when it names one of them, or one of the called tool's parameters
    (``calls_from_block``)."""
    return calls_from_block(block, tools)


_FUNCTION_NAME: Final = "<function name="
_FUNCTION_NAMED = re.compile(r"""<function name=(["'])([^"'<>\s]+)\1\s*>\s*(\{.*\})\s*</function>""", re.S)


_MINICPM_FUNCTION = re.compile(r"""<function name=(["'])([^"'<>\s]+)\1>((?:\s*+<param name=(["'])[^"'<>\s]+\4>.*?</param>)*+)\s*+</function>""", re.S)
_MINICPM_PARAM = re.compile(r"""<param name=(["'])([^"'<>\s]+)\1>(?:<!\[CDATA\[(.*?)\]\]>|(.*?))</param>""", re.S)


def _read_function_named(block: str) -> list[Call]:
    """``<function name="NAME">{...}</function>``: the tool's name as an attribute and its
    arguments as one JSON object (a form llama.cpp's Hermes 2 Pro parser accepts: its
    ``tests/test-chat.cpp``), or as ``<param name="K">V</param>`` elements (MiniCPM5's XML, a
    value perhaps in ``<![CDATA[...]]>``: vLLM's ``minicpm5`` parser tests), each value JSON when
    it reads as JSON, else text as written; a name given twice is no call. Anything else inside is
    no call (``[]``)."""
    found = _FUNCTION_NAMED.fullmatch(block)
    if found is None:
        return _read_minicpm(block)
    arguments = decode_json(found.group(3))
    return [(found.group(2), arguments)] if isinstance(arguments, dict) else []


def _read_minicpm(block: str) -> list[Call]:
    """MiniCPM5's ``<function name="N"><param name="K">V</param>...</function>`` (see
    ``_read_function_named``); ``[]`` for any other block."""
    found = _MINICPM_FUNCTION.fullmatch(block)
    if found is None:
        return []
    arguments: dict[str, Any] = {}
    for _, key, cdata, value in _MINICPM_PARAM.findall(found.group(3)):
        if key in arguments:
            return []
        if cdata:
            arguments[key] = cdata
        else:
            decoded = decode_json(value.strip())
            arguments[key] = value if decoded is FAIL else decoded
    return [(found.group(2), arguments)]


_GEMMA_CALL = re.compile(r"\s*+:?\s*+call\s*+:\s*+([\w.\-]++(?::[\w.\-]++)*+)\s*+(\{.*\}|\(.*\))\s*+", re.S)
"""Gemma's call whole (``call:NAME{...}`` or ``call:NAME(...)``), the name perhaps under a
colon-separated namespace (``call:google:mcp:text_generation:create-pdf-file{...}``,
jundot/omlx#1830: ``prefixed_tool`` reads its last part). Its blanks and name are possessive:
the blanks around the optional colon were tried at every split (quadratic)."""
_GEMMA_QUOTES: Final = ('<|"|>', "<escape>")
_GEMMA_TOKENS = re.compile(r"(<\|tool_call>|<tool_call\|>|<turn\|>|<start_function_call>|<end_function_call>)")
_GEMMA_STRING = re.compile("|".join(f"{re.escape(q)}(.*?){re.escape(q)}" for q in _GEMMA_QUOTES), re.S)
_BARE_KEY = QuotedScan(r"([{,]\s*)([A-Za-z_][\w\-]*)(\s*:)", quotes='"')
"""A closed double-quoted string (no group), else a bare key with what stands around it."""


def _read_gemma(block: str) -> list[Call]:
    """Gemma 4's ``<|tool_call>call:NAME{key:<|"|>text<|"|>,n:3}<tool_call|>`` and FunctionGemma's
    ``<start_function_call>call:NAME{key:<escape>text<escape>}<end_function_call>``: keys bare,
    text between quote tokens or in JSON quotes, other values JSON (Gemma 4's chat template,
    ggml-org/llama.cpp#22786, jundot/omlx#581). The arguments in parentheses instead of braces
    (``call:search(query: "blockchain news")``: Gemma 4 through an API without its parser,
    NousResearch/hermes-agent#7457) are read the same way, or as keyword arguments
    (``call:search(query="x")``). A stray colon after the opening token (``<|tool_call>:call:...``)
    and ``<turn|>`` closing the call instead of ``<tool_call|>`` change nothing (vLLM's Gemma 4
    parser tests). Several calls back to back in one block (``call:glob{...}call:glob{...}``:
    mlx-lm's ``gemma4`` parser test) are read one by one, cut before each ``call:`` that follows a
    closing brace or parenthesis outside a quoted string; if one of them does not read, none does."""
    text = _GEMMA_TOKENS.sub("", block)
    if calls := _read_gemma_call(text):
        return calls
    masked = _GEMMA_STRING.sub(lambda m: "x" * len(m.group(0)), text)
    cuts = [found.end() for found in _GEMMA_NEXT_CALL.finditer(masked)]
    calls = []
    for start, end in zip([0, *cuts], [*cuts, len(text)], strict=True) if cuts else ():
        if not (one := _read_gemma_call(text[start:end])):
            return []
        calls += one
    return calls


_GEMMA_NEXT_CALL = re.compile(r"[})](?=\s*+call\s*+:)")


_GEMMA_JSON_HEAD = re.compile(r"\s*+:?\s*+call\s*+:\s*+(?=\{)")
"""``call:`` before a JSON call object instead of a name (``_read_gemma_call``)."""


def _read_gemma_call(text: str) -> list[Call]:
    """One Gemma call, its tokens already left out (``_read_gemma``); ``[]`` when it does not read.
    ``call:`` may stand before one JSON call object, ``{"name": N, "arguments": {...}}``, instead
    of ``NAME{...}`` (Gemma models through an agent harness: tinyhumansai/openhuman PR #6346); the
    object must be the whole rest of the text and name its tool itself."""
    call = _GEMMA_CALL.fullmatch(text)
    if not call:
        head = _GEMMA_JSON_HEAD.match(text)
        if head is None:
            return []
        try:
            value, end = json.JSONDecoder().raw_decode(text, head.end())
        except (ValueError, RecursionError):
            return []
        return interpret(value, strict=True) if isinstance(value, dict) and not text[end:].strip() else []
    inside = call.group(2)
    body = inside if inside[0] == "{" else "{" + inside[1:-1] + "}"
    body = _GEMMA_STRING.sub(lambda m: json.dumps(next(g for g in m.groups() if g is not None)), body)
    body = _BARE_KEY.sub(lambda m: m.group(0) if m.group(1) is None else f'{m.group(1)}"{m.group(2)}"{m.group(3)}', body)
    value = decode_json(body)
    if not isinstance(value, dict) and inside[0] == "(":
        value = call_arguments(inside[1:-1]) if inside[1:-1].strip() else {}
    return [(call.group(1), value)] if isinstance(value, dict) else []


_SPACE = re.compile(r"\s*")
_MISTRAL_CALL = re.compile(r"\s*+([\w.\-]++)\s*+(?:\[CALL_ID\]\s*+[\w\-]*+\s*+)?(?:\[ARGS\]|(?=\{))")


def _read_mistral(block: str) -> list[Call]:
    """``[TOOL_CALLS]NAME[ARGS]{...}`` repeated (Mistral's v11 tokenizer; ``[CALL_ID]ID`` before
    ``[ARGS]`` in some, ``[ARGS]`` left out before the object in others:
    ``[TOOL_CALLS]add{"a": 1}[TOOL_CALLS]multiply{"a": 3}``), or the token before a JSON list of
    call objects (``[TOOL_CALLS] [{"name": N, "arguments": {...}}]``: Mistral's pre-v11
    tokenizers, xLAM), also after a sentence. vLLM's ``mistral`` and ``xlam`` tool parser tests."""
    text = block.replace("</s>", "")
    calls: list[Call] = []
    decoder = json.JSONDecoder()
    for piece in text.split("[TOOL_CALLS]")[1:]:
        head = _MISTRAL_CALL.match(piece)
        if not head:
            listed = _json_calls_at(piece)
            if not listed:
                return []
            calls.extend(listed)
            continue
        try:
            value, _ = decoder.raw_decode(piece, _SPACE.match(piece, head.end()).end())
        except (ValueError, RecursionError):
            value = _arguments(piece[head.end() :])
        calls.append((head.group(1), value))
    return calls


def _json_calls_at(text: str) -> list[Call]:
    """The JSON call object, or list of them, that ``text`` opens (after whitespace); what follows
    the value is not the calls'. ``[]`` when no value opens it or it is not calls."""
    start = _SPACE.match(text).end()
    if text[start : start + 1] not in ("{", "["):
        return []
    try:
        value, _ = json.JSONDecoder().raw_decode(text, start)
    except (ValueError, RecursionError):
        return []
    return interpret(value, strict=True)


def _read_after(*tokens: str) -> Callable[[str], list[Call]]:
    """A reader for calls each written as one of ``tokens`` before a JSON call object or a list
    of them, repeated (``_json_calls_at``); every token must open calls, or nothing is read."""
    split = re.compile("|".join(re.escape(token) for token in tokens))

    def read(block: str) -> list[Call]:
        calls: list[Call] = []
        for piece in split.split(block)[1:]:
            found = _json_calls_at(piece)
            if not found:
                return []
            calls.extend(found)
        return calls

    return read


_PYTHON_TAG: Final = "<|python_tag|>"
_CALL_SEPARATOR = re.compile(r"\s*+[;,]?\s*+(?=\{)")


def _read_python_tag(block: str) -> list[Call]:
    """Llama 3.x's ``<|python_tag|>{"name": N, "parameters": {...}}``, after a sentence too, the
    calls joined by ``;`` or written each after its own token (SGLang's ``llama3`` detector tests:
    ``Some intro. <|python_tag|>{...}``, ``<|python_tag|>{...}<|python_tag|>{...}``). A token
    before anything but a call object (code for Llama's built-in interpreter) reads as no call
    (``[]``). Held to the end of the text; for the ReAct parser a token that opens a line is passed
    on (``CallMarkup``'s ``python_tag_lines``). What follows the last object is not the calls':
    ``python_tag_calls`` says where they end."""
    return python_tag_calls(block)[0]


def python_tag_calls(block: str, tokens: list[int] | None = None) -> tuple[list[Call], int]:
    """``(calls, end)``: the calls of ``block`` (which starts with ``<|python_tag|>``:
    ``_read_python_tag``) and the index in ``block`` just past the last call object, or
    ``([], 0)`` when a token is followed by anything but call objects. ``tokens``, when given,
    gets where each token read starts: read from any of them, ``block`` ends the same way."""
    calls: list[Call] = []
    decoder = json.JSONDecoder()
    at = 0
    while block.startswith(_PYTHON_TAG, at):
        if tokens is not None:
            tokens.append(at)
        at = _SPACE.match(block, at + len(_PYTHON_TAG)).end()
        if block[at : at + 1] != "{":
            return [], 0
        while True:
            try:
                value, end = decoder.raw_decode(block, at)
            except (ValueError, RecursionError):
                return [], 0
            found = interpret(value, strict=True) if isinstance(value, dict) else []
            if not found:
                return [], 0
            calls.extend(found)
            more = _CALL_SEPARATOR.match(block, end)
            if more is None:
                break
            at = more.end()
        at = _SPACE.match(block, end).end()
        if not block.startswith(_PYTHON_TAG, at):
            return calls, end
    return calls, at


_GIGACHAT3_HEADER = re.compile(r"<\|message_sep\|>\s*function call\s*<\|role_sep\|>")


def _read_gigachat3(block: str) -> list[Call]:
    """GigaChat 3's ``<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": N, "arguments":
    {...}}`` (the call written as a new message to the ``function call`` role: vLLM's
    ``gigachat3`` tool parser tests); any other message after the separator is no call."""
    header = _GIGACHAT3_HEADER.match(block)
    return _json_calls_at(block[header.end() :]) if header else []


def _read_apertus(block: str) -> list[Call]:
    """Apertus's ``<|tools_prefix|>[{"NAME": {...}}, ...]<|tools_suffix|>``: each call an object
    whose one key is the tool's name and whose value is its arguments (vLLM's ``apertus`` tool
    parser tests; the suffix may be missing)."""
    inner = block.removeprefix("<|tools_prefix|>").removesuffix("<|tools_suffix|>").strip()
    value = decode_json(inner)
    items = value if isinstance(value, list) else [value]
    calls: list[Call] = []
    for item in items:
        if not (isinstance(item, dict) and len(item) == 1):
            return []
        ((name, arguments),) = item.items()
        if not BARE_NAME.fullmatch(name) or not isinstance(arguments, dict):
            return []
        calls.append((name, arguments))
    return calls


_QWEN_AGENT_CALL = re.compile(r"\s*+:?\s*+([^\s✿:,]++)\s*+(?:✿ARGS✿\s*+:?|,(?=\s*+\{))\s*+")
_QWEN_AGENT_MARKS: Final = ("✿RESULT✿", "✿RETURN✿")


def _read_qwen_agent(block: str) -> list[Call]:
    """Qwen-Agent's ``✿FUNCTION✿: NAME\n✿ARGS✿: {...}``, repeated for parallel calls, each
    maybe followed by an invented ``✿RESULT✿``/``✿RETURN✿`` (QwenLM/Qwen-Agent's function-call
    prompt, which Qwen2 and Qwen2.5 were trained on). The arguments are the JSON object after
    ``✿ARGS✿``; what follows it (an invented result, a sentence) is not the call's. A long prompt
    makes the model leave ``✿ARGS✿`` out and write ``✿FUNCTION✿ NAME, {...}`` (QwenLM/Qwen-Agent#133):
    the object after the comma is the arguments."""
    calls: list[Call] = []
    decoder = json.JSONDecoder()
    for piece in block.split(_QWEN_AGENT_OPEN)[1:]:
        for mark in _QWEN_AGENT_MARKS:
            piece = piece.split(mark, 1)[0]
        head = _QWEN_AGENT_CALL.match(piece)
        if not head or not BARE_NAME.fullmatch(head.group(1)):
            return []
        rest = piece[head.end() :]
        try:
            value, _ = decoder.raw_decode(rest)
        except (ValueError, RecursionError):
            value = _arguments(rest.strip().split("\n", 1)[0])
        calls.append((head.group(1), value))
    return calls


_QWEN_AGENT_OPEN: Final = "✿FUNCTION✿"


_HARMONY_HEADER = re.compile(r"<\|channel\|>\s*+(\w++)([^<]*?)(?:<\|constrain\|>\s*+[\w-]++\s*+)?<\|message\|>", re.S)
_RECIPIENT = re.compile(r"\bto=([\w.\-:]+)")
_HARMONY_ENDS: Final = ("<|end|>", "<|call|>", "<|return|>")
_TO_ASSISTANT = re.compile(r"<\|channel\|>\s*+commentary\s++to=assistant\s*+")
"""A Harmony header addressed to the assistant itself with no message after it, before the next
channel (llama.cpp's gpt-oss test: ``<|channel|>commentary to=assistant<|channel|>analysis
<|message|>...``, read as that reasoning and the final answer): no call, no text, dropped."""


def _rewrite_harmony(block: str, recipient: str | None) -> str | None:
    """One Harmony message as text the strategies read, or None when it is not one. A message
    addressed ``to=assistant`` is no call (the assistant is no tool): read by its channel."""
    header = _HARMONY_HEADER.match(block)
    if not header:
        return "" if _TO_ASSISTANT.fullmatch(block) else None
    channel = header.group(1).lower()
    to = _RECIPIENT.search(header.group(2))
    target = to.group(1) if to else recipient
    if target == "assistant":
        target = None
    body = block[header.end() :]
    for end in _HARMONY_ENDS:
        body = body.removesuffix(end)
    if target:
        return _tool_call(target.removeprefix("functions."), _arguments(body))
    if channel == "analysis":
        return f"<think>{body}</think>"
    return body


_GLIMMER_MESSAGE: Final = "<|message|>"
_GLIMMER_ENDS: Final = ("<|eom|>", "<|eot|>")
_ATEM_OPEN: Final = "<atem:function_calls>"
_ATEM_CLOSE: Final = "</atem:function_calls>"
_GLIMMER_HEADER = re.compile(r"assistant(?:[ \t]++to=([\w.\-:]++))?[ \t]*+")
_GLIMMER_OPENING = re.compile(r"(?:to=([\w.\-:]++)[ \t]*+)?<\|message\|>")
_GLIMMER_NAME = re.compile(r"to=[\w.\-:]*+[ \t]*+")
"""Glimmer (ATEM's model, Ollama's ``glimmer`` parser): each message is headed by its recipient,
``<|start|>assistant to=NAME<|message|>``, and ends at ``<|eom|>`` (more messages follow) or
``<|eot|>`` (the turn ends). ``to=self`` is the model's reasoning, ``to=user`` (or no recipient)
the answer, ``to=`` a tool a call, written as Claude's ``<function_calls><invoke><parameter>``
under an ``atem:`` prefix. The reply's first header has its ``<|start|>assistant`` in the prompt,
so the reply opens with `` to=NAME<|message|>`` (``_glimmer_opening``). Unlike
Harmony, no ``<|channel|>`` stands in the header."""


def _glimmer_opening(head: str, final: bool) -> str | None:
    """The reply's first characters (``head``, stripped) given the ``<|start|>assistant`` of a
    Glimmer header (``_GLIMMER_OPENING``) when they open with one; ``""`` while they may still
    become one; None when they cannot."""
    found = _GLIMMER_OPENING.match(head)
    if found is not None:
        to = f" to={found.group(1)}" if found.group(1) else ""
        return f"<|start|>assistant{to}{head[found.end() - len(_GLIMMER_MESSAGE) :]}"
    if final or len(head) > 200:
        return None
    name = _GLIMMER_NAME.match(head)
    rest = head[name.end() :] if name else head
    if name is None and "to=".startswith(head):
        return ""
    return "" if _GLIMMER_MESSAGE.startswith(rest) else None


def _read_atem(body: str) -> list[Call]:
    """A Glimmer message's ATEM block, ``<atem:function_calls><atem:invoke name="N"><atem:parameter
    name="K">V</atem:parameter></atem:invoke></atem:function_calls>`` (its parameters' values as
    ``_read_invoke`` reads Claude's), or ``[]`` when the message (``body``) is not that block alone,
    whole and closed (a call cut short, or text around it, is no call to run)."""
    body = body.strip()
    if not (body.startswith(_ATEM_OPEN) and body.endswith(_ATEM_CLOSE)):
        return []
    inner = body[len(_ATEM_OPEN) : -len(_ATEM_CLOSE)].strip()
    if not (inner.startswith('<atem:invoke name="') and inner.endswith("</atem:invoke>")):
        return []
    for tag in ("invoke", "parameter"):
        inner = inner.replace(f"<atem:{tag} ", f"<{tag} ").replace(f"</atem:{tag}>", f"</{tag}>")
    calls = _read_invoke(inner)
    return [(name.replace(_GLIMMER_MESSAGE, ""), arguments) for name, arguments in calls]


def _rewrite_glimmer(body: str, recipient: str, names: frozenset[str] | None) -> str:
    """One Glimmer message (``body``, addressed to ``recipient``, ``""`` when the header named
    none) as text the strategies read: to ``self``, a ``<think>`` block (reasoning, never shown);
    to a tool (one of ``names``, the node's tools, or any name but ``user`` when None), its ATEM
    block as a ``<tool_call>`` naming that tool; anything else, the answer's text, unless it is
    an ATEM block alone (the model left its recipient out or wrote ``user``), read as the call it
    names (a name no node tool has is answered as an unknown tool: nothing runs). A tool's
    message that does not read so is passed on with its header, as call markup not read; so is
    an ATEM block whose calls name a tool other than the message's recipient, whatever that
    recipient is (which of the two the model meant would be a guess)."""
    if recipient == "self":
        return f"<think>{body}</think>"
    calls = _read_atem(body)
    if recipient not in ("", "user"):
        if calls and all(name == recipient for name, _ in calls):
            return _glimmer_calls(calls)
        if calls or names is None or recipient in names:
            return f"to={recipient}{_GLIMMER_MESSAGE}{body}"
    return _glimmer_calls(calls) if calls else body


def _glimmer_calls(calls: list[Call]) -> str:
    """``calls`` as ``<tool_call>`` blocks, a ``<|`` in a value written ``<\\u007c`` (the same
    JSON): Glimmer's values may name its control tokens as text (Ollama's parser test keeps
    ``literal <|eot|> ...``), which the argument reader drops as leaked tokens when it sees them."""
    return "".join(_tool_call(name, arguments).replace("<|", "<\\u007c") for name, arguments in calls)


def _glimmer_end(text: str, final: bool) -> tuple[int, int] | None:
    """Where the Glimmer message at the start of ``text`` ends: (its body's end, where what
    follows starts), at ``<|eom|>``/``<|eot|>`` (dropped) or before a next ``<|start|>``; in an
    ATEM block only after its ``</atem:function_calls>`` (a value may name those tokens). None
    while it may go on."""
    start = 0
    head = text.lstrip()
    if head.startswith(_ATEM_OPEN) or (not final and _ATEM_OPEN.startswith(head)):
        close = text.find(_ATEM_CLOSE)
        if close < 0:
            return (len(text), len(text)) if final else None
        start = close + len(_ATEM_CLOSE)
    ends = [(at, at + len(end)) for end in _GLIMMER_ENDS if (at := text.find(end, start)) >= 0]
    if (at := text.find("<|start|>", start)) >= 0:
        ends.append((at, at))
    if ends:
        return min(ends)
    return (len(text), len(text)) if final else None


_BARE_ANALYSIS: Final = "analysis"
_BARE_FINAL: Final = "assistantfinal"
_BARE_COMMENTARY = re.compile(r"assistantcommentary\s*to=(functions\.[\w.\-]+)\s*(?:<\|constrain\|>)?\s*(?:json)?\s*")
"""Harmony's channel headers with the special tokens left out (``CallMarkup._bare_harmony``)."""

_THOUGHTS_START = re.compile(r"here(?:'s|’s| is) my thought process:|here are my reasoning steps:", re.IGNORECASE)
_RESPONSE_START = re.compile(r"here(?:'s|’s| is) my response:|\[BEGIN FINAL RESPONSE\]", re.IGNORECASE)
_THOUGHTS_HEADS: Final = (
    "here is my thought process:",
    "here's my thought process:",
    "here’s my thought process:",
    "here are my reasoning steps:",
)
_THOUGHTS_FIRSTS: Final = frozenset({"", *(phrase[:1] for phrase in _THOUGHTS_HEADS)})
"""What ``_THOUGHTS_HEADS`` start with (``""``: an empty head is a prefix of every phrase)."""
_RESPONSE_MAX: Final = len("[BEGIN FINAL RESPONSE]")
"""Granite 3.2's reasoning, written as plain text: its chat template asks the model to "write your
thoughts after 'Here is my thought process:' and write your response after 'Here is my
response:'" (ollama/ollama#8955 shows a reply; vLLM's ``granite`` reasoning parser and IBM's
granite-io read both phrases, also with "Here's"). ServiceNow's Apriel thinkers write the same
frame as "Here are my reasoning steps:" ... ``[BEGIN FINAL RESPONSE]`` ... ``[END FINAL
RESPONSE]`` (their chat template; llama.cpp ends reasoning at ``[BEGIN FINAL RESPONSE]``)."""


def _may_open_thoughts(head: str) -> bool:
    """Whether the reply's first characters may still become Granite's thought-process phrase."""
    lowered = head.lower()
    if lowered[:1] not in _THOUGHTS_FIRSTS:  # the usual reply: no phrase starts so
        return False
    return any(phrase.startswith(lowered) for phrase in _THOUGHTS_HEADS)


_RECIPIENT_MARK: Final = ">>>"
_RECIPIENT_LINE = re.compile(r">>>(all|[A-Za-z_][\w.\-]*)[ \t]*\r?\n\s*(\S)")
"""Functionary v3.2 opens each part of a reply with its recipient: ``>>>all\n`` before text,
``>>>NAME\n{...}`` before a call, the parts written one after the other with nothing between
them (``>>>all\nLet me check.>>>get_weather\n{...}>>>get_time\n{...}``: its chat template,
meetkai-functionary-medium-v3.2.jinja; llama.cpp's functionary_v3_2 format, "Format:
>>>all\ntext>>>fn1\n{...}>>>fn2\n{...}"). ``>>>all\n`` at the start of a reply is dropped (the
text is the answer); a call part wherever it stands is read as a call (``_functionary_part``).
``>>> x`` (a Python prompt) and ``>>>word`` (a nested quote) are no recipient."""


_BARE_ALL_LINE: Final = re.compile(r"all\r?\n\s*(\S)")
"""A text part's recipient line without its ``>>>`` (the generation prompt held it): the exact
line ``all`` as the template writes it (``'>>>' + 'all' + '\\n'``), text after it."""


def _bare_analysis(held: str) -> str:
    """A held Harmony reply that opened with its analysis channel, its tokens left out, given them
    back: the analysis, then the final channel or a commentary call when one came."""
    analysis, found, answer = held.partition(_BARE_FINAL)
    if found:
        return f"<|channel|>analysis<|message|>{analysis}<|end|><|start|>assistant<|channel|>final<|message|>{answer}"
    call = _BARE_COMMENTARY.search(held)
    if call is None:
        return f"<|channel|>analysis<|message|>{held}<|end|>"
    return (
        f"<|channel|>analysis<|message|>{held[: call.start()]}<|end|><|start|>assistant"
        f"<|channel|>commentary to={call.group(1)} <|constrain|>json<|message|>{held[call.end() :]}<|call|>"
    )


def _may_open_call(head: str) -> bool:
    """Whether the reply's start ``head`` (stripped) may still become ``_BARE_CALL_HEADS``."""
    return len(head) < len(_BARE_CALL_HEADS[0]) + 2 and any(
        call.startswith(" ".join(head.split())) for call in _BARE_CALL_HEADS
    )


def _bare_call(held: str) -> str:
    """A whole reply that opened with a bare commentary call, given its Harmony tokens back when
    the rest is one JSON object (``_BARE_CALL_WHOLE``); else the reply as it came."""
    header = _RECIPIENT_BEFORE_CHANNEL.match(held)
    if header is not None:  # the prompt's "<|start|>assistant" wrote the rest of the header
        return f"<|start|>assistant {held.lstrip()}"
    whole = _BARE_CALL_WHOLE.fullmatch(held)
    if whole is None or not _is_json_object(whole.group(2)):
        return held
    return f"<|channel|>commentary to={whole.group(1)} <|constrain|>json<|message|>{whole.group(2)}<|call|>"


def _is_json_object(text: str) -> bool:
    """Whether ``text`` is one JSON object, nothing around it."""
    try:
        return isinstance(json.loads(text), dict)
    except (ValueError, RecursionError):
        return False


def _recipient_prefix(head: str, final: bool, bare_all: bool = False) -> int | None:
    """How much of the reply's start ``head`` is Functionary's recipient marker to drop (0: none);
    None while that cannot be told yet. ``bare_all``: the model is Functionary, its generation
    prompt ends with ``>>>``, so a first line ``all`` above text is the recipient too
    (``_BARE_ALL_LINE``; ``CallMarkup``'s ``recipient_in_prompt``)."""
    if not head.startswith(_RECIPIENT_MARK):
        if bare_all and (line := _BARE_ALL_LINE.match(head)):
            return line.start(1)
        return None if not final and _RECIPIENT_MARK.startswith(head) else 0
    part = _functionary_part(head, final)
    if part is None:
        return None
    found = _RECIPIENT_LINE.match(head) if part == "all" else None
    return found.start(2) if found else 0  # a call part (or no recipient) is read where it stands


_FUNCTIONARY_MODEL: Final = re.compile(r"functionary", re.IGNORECASE)


def recipient_in_prompt(model: str) -> bool:
    """Whether ``model`` (the model's name) is a Functionary model, whose chat template ends the
    generation prompt with ``>>>`` (meetkai-functionary-medium-v3.2.jinja): served without its
    tool parser, a text reply then starts with the recipient line ``all\n`` alone
    (``CallMarkup(recipient_in_prompt=True)``)."""
    return bool(model) and _FUNCTIONARY_MODEL.search(model) is not None


def shows_functionary_parts(text: str) -> bool:
    """Whether ``text`` (a reply as the model wrote it) holds a Functionary part's recipient line
    with its marker (``>>>all\n`` above text, ``>>>NAME\n{`` above a call): a run that met one
    talks to a Functionary model."""
    if _RECIPIENT_MARK not in text:
        return False
    return any(found.group(1) == "all" or found.group(2) == "{" for found in _RECIPIENT_LINE.finditer(text))


_RECIPIENT_ALL: Final = re.compile(r">>>all[ \t]*")
_RECIPIENT_RUN: Final = re.compile(r">{4,}")
"""A ``>>>`` followed by another ``>`` (a line of ``>``: a nested quote, a divider), which no
recipient is: the text is read as it was three characters at a time, the last ``>>>`` of the
run looked at as before (what follows it may name a recipient)."""
"""What of a text part's recipient line met after the reply's start is dropped: the marker, not the
line break after it (the text before it may be a line of its own)."""


def _functionary_part(head: str, final: bool) -> str | None:
    """What a ``>>>`` met in the text (``head``: the text from it on) is: ``"all"`` (a text
    part's recipient line, ``_RECIPIENT_LINE``), ``"call"`` (``>>>NAME`` above a JSON object),
    ``"text"`` (anything else: a Python prompt, a nested quote), or None while that cannot be
    told yet."""
    found = _RECIPIENT_LINE.match(head)
    if found is None:
        partial = re.fullmatch(r">>>(?:[A-Za-z_][\w.\-]*+[ \t]*+\r?\n?\s*+)?", head)
        return None if not final and partial and len(head) < 200 else "text"
    if found.group(1) == "all":
        return "all"
    return "call" if found.group(2) == "{" else "text"


def _read_functionary(block: str) -> list[Call]:
    """``>>>NAME\n{...}``, one Functionary call part (``_RECIPIENT_LINE``): the arguments must be
    one JSON object and nothing else, or the part is no call (``[]``: passed on as written)."""
    found = _RECIPIENT_LINE.match(block)
    if found is None or found.group(2) != "{":
        return []
    try:  # strict: a part cut short is no call to run
        arguments = json.loads(block[found.start(2) :])
    except ValueError:
        return []
    return [(found.group(1), arguments)] if isinstance(arguments, dict) else []


_NAME_ABOVE_JSON = re.compile(r"[A-Za-z_][\w.\-]*\r?\n\s*\{")
_MAY_NAME_ABOVE_JSON = re.compile(r"[A-Za-z_][\w.\-]*(?:\r?\n\s*)?")
"""The template writes the name and a newline (``'>>>' + name + '\\n'``): a first word followed by
a space is no name line, and is passed on at once."""
_PLAIN_OPENING = re.compile(
    r"(?=[^ahH>])(?!commentary\s*(?:t(?:o(?:=|\Z)|\Z)|\Z)|to=)(?:[^A-Za-z_]|[A-Za-z_][\w.\-]*[^\w.\-\r\n])"
)
"""The start of a reply (stripped) that ``CallMarkup._bare_harmony`` passes on as it came: it
opens with no ``analysis`` (``a``), no Granite or Apriel phrase (``h``/``H``: no other character
is one of these in any case), no recipient (``>``), no bare commentary call (``commentary to=``,
``to=``: ``_BARE_CALL_OPENING``) and no name line (``_NAME_ABOVE_JSON``,
``_MAY_NAME_ABOVE_JSON``): no name, or a name with a character after it that is neither part of
a name nor a line end (``Thought:``)."""

_BARE_CALL_OPENING = re.compile(r"(?:(?:assistant)?commentary\s*)?to=functions\.")
"""A reply that opens with gpt-oss's commentary call, its special tokens left out and no analysis
before it (``commentary to=functions.get_weather json{"city":"Paris"}``: raullenchai/Rapid-MLX#480;
``to=functions.terminal {...}``: NousResearch/hermes-agent#84158), also after the role the
skipped ``<|start|>`` introduced (``assistantcommentary to=functions.get_weather json{...}``:
raullenchai/Rapid-MLX#444)."""
_BARE_CALL_HEADS: Final = ("assistantcommentary to=functions.", "commentary to=functions.", "to=functions.")
"""The longest first (``_may_open_call`` measures by it)."""
_RECIPIENT_BEFORE_CHANNEL = re.compile(r"\s*to=functions\.[\w.\-]+[ \t]*<\|channel\|>")
"""A reply that opens with the recipient and then Harmony's channel token: the prompt ended in
``<|start|>assistant``, so the header goes on in the reply (`` to=functions.get_weather<|channel|>
commentary json<|message|>{...}<|call|>``: llama.cpp takes the recipient before the channel; a
Harmony splitter's test shows this reply). Given its ``<|start|>assistant`` back."""
_BARE_CALL_WHOLE = re.compile(r"\s*+(?:(?:assistant)?commentary\s*+)?to=(functions\.[\w.\-]+?)\s*+(?:<\|constrain\|>)?\s*+(?:json)?\s*+(\{.*\})\s*+", re.S)
"""Such a reply whole: the recipient, then its arguments as one JSON object and nothing else."""


_TOOL_OUTPUT_TOKENS: Final = tuple(
    f"<{bar}tool▁output{plural}▁{edge}{bar}>" for bar in _BARS for plural in ("", "s") for edge in ("begin", "end")
)
"""DeepSeek V3's tokens around a tool's output (its template writes them in the tool's turn). A
model that writes them in its own reply made that output up; no call was run. The tokens are
dropped and the words between them stay the model's answer, as Ollama's ``deepseek3`` parser test
shows them: nothing in them is read as a tool's result."""

_DROPPED: Final = (
    "<start_of_turn>",
    "<|START_RESPONSE|>",
    "<|END_RESPONSE|>",
    "<|START_TEXT|>",
    "<|END_TEXT|>",
    _MINIMAX_M3_TOKEN,
    "<|begin_of_box|>",
    "<|end_of_box|>",
    *_DSML_STRAY_ENDS,
    "<|open|>response<|sep|>",
    "<|close|>response<|sep|>",
    "[/TOOL_CALLS]",
    *_TOOL_OUTPUT_TOKENS,
    "<|tool_calls_section_end|>",
    "<|assistant_start|>",
    "<|end_message|>",
)
"""Gemma's turn opener, MiniMax-M3's tag token (``_MINIMAX_M3_TOKEN``), the tokens Command R7B
(``<|START_RESPONSE|>``) and Command A
(``<|START_TEXT|>``) put around the text of a reply (transformers' chat-schema parser tests;
vLLM's ``cohere_command4`` reasoning parser strips the same), and the box GLM-4.5V and GLM-4.6V
put around their final answer (``<|begin_of_box|>42<|end_of_box|>``: Blaizzy/mlx-vlm#2225 strips
it), and Kimi K3's response channel markers around its reply (vLLM's ``kimi_k3`` tool parser
unwraps them), and the ``[/TOOL_CALLS]`` that closes a Mistral call list, also with no list
open, after an answer (ai-dynamo/frontend-crates PR #60), DeepSeek's tool-output tokens
(``_TOOL_OUTPUT_TOKENS``) and a Kimi-K2 section end with no section open (SGLang's ``kimik2``
detector test strips it from the text), and Apertus 1.5's ``<|assistant_start|>`` (Ollama's
``apertus1.5`` parser drops it), and the ``<|end_message|>`` that ends each of Inkling's messages
(SGLang's ``inkling`` detector strips it with the other control tokens): never text. Dropped from what the strategies read and show only; the assistant message goes
back to the model as its plugin sent it (``model_call.AssistantReply``)."""

_CITATION_OPEN: Final = "<co>"
_CITATION = re.compile(r"<co>((?:(?!<co>|</co).){0,2000}?)</co: ?\d+:\[[\d, ]*\](?:, ?\d+:\[[\d, ]*\])*>", re.S)
"""Command A's citation around cited text: ``foo <co>bar</co: 0:[1,2],1:[3,4]>`` (document 0's
results 1 and 2...; vLLM's ``cohere_command`` parser test shows ``foo bar``). The tags are dropped
and the text inside kept, only in that exact shape: a ``<co>`` with no such close is text."""
_CITATION_HOLD: Final = 2100
"""How long a ``<co>`` is held waiting for its close (characters): longer than ``_CITATION``'s text."""

_APRIEL_END: Final = "[END FINAL RESPONSE]"
"""The end of an Apriel thinker's response (``_THOUGHTS_START``): dropped only in a reply whose
``[BEGIN FINAL RESPONSE]`` ended its reasoning steps; elsewhere it is plain text the answer
quotes (it is no special token)."""

_TURN_ENDS: Final = (
    "<end_of_turn>",
    "</end_of_turn>",
    "</start_of_turn>",
    "<eos>",
    "<|eot_id|>",
    "<|eom_id|>",
    "<|im_end|>",
    "<|endoftext|>",
    "<|END_OF_TURN_TOKEN|>",
    "[|endofturn|]",
    *(f"<{bar}end▁of▁sentence{bar}>" for bar in _BARS),
    "<|end|>",
    "<turn|>",
    "<|user|>",
    "[INST]",
    "<|close|>message<|sep|>",
    "<|role_end|>",
    "<|plamo:tag|>",
    "<|assistant_end|>",
    *(f"<{bar}hy_eos{bar}>" for bar in _BARS),
    "[e~[",
    "<|turn_end|>",
)
"""Tokens that end the model's turn (Gemma, also its opener written as a closing tag,
``</start_of_turn>``: kghandour/Ollama-SwiftUI#44; Llama 3, Qwen/ChatML, DeepSeek, Phi-3's ``<|end|>``;
Ling 3.0 / Bailing's ``<|role_end|>``, spelled out as text tokens: llama.cpp's Ling 3.0 test;
Harmony's ``<|end|>`` is read inside its message; Command R's ``<|END_OF_TURN_TOKEN|>``;
EXAONE's ``[|endofturn|]``, its chat template's and llama.cpp's exaone3 template's; Kimi K3's
``<|close|>message<|sep|>``, vLLM's ``kimi_k3`` tool parser test; PLaMo 3's ``<|plamo:tag|>``,
vLLM's ``plamo3`` tool parser test; Apertus 1.5's ``<|assistant_end|>``, Ollama's ``apertus1.5``
parser test; Hy3's ``<｜hy_eos｜>`` and MiniMax-M2's ``[e~[``, their chat template's and tool-calling
guide's end of a message; Megrez's ``<|turn_end|>``, infinigence/Infini-Megrez#2), or open the
user's next one (Phi-3 and Zephyr's ``<|user|>``, Mistral and Llama 2's ``[INST]``). A server that does
not stop on them passes them on, and what follows is a turn the model invented: a role name and
the user's next message, or a new question it answers (ollama/ollama#3759, #6915, #11276;
stanfordnlp/dspy#931). The reply ends at the first one; the rest is dropped."""

_WORD_TOKEN_BEFORE: Final = frozenset({" ", "\t", '"'})
_WORD_TOKEN_AFTER: Final = re.compile(r'[ \t]*+"|[ \t]++\w')
"""What follows a turn-end token the model writes as a word (``CallMarkup._turn_end_as_text``):
a closing quote, or a blank and a word. The ReAct parser keeps a special token in prose by the
same rule (``react.parser._prose_goes_on``)."""
_WORD_TOKEN_AFTER_PARTIAL: Final = re.compile(r"[ \t]*")
_WORD_TOKEN_LOOK: Final = 80
"""Characters after such a token looked at: blanks beyond it are not waited for."""

_EOS: Final = "</s>"
"""Llama 2 and Mistral's end of sequence. Also HTML's strikethrough close, so it ends the reply
only where nothing follows it or a next turn does (``</s>[INST] thanks``)."""

_FUNCTIONARY_NEXT: Final = re.compile(
    r"(?<=.)(?=>>>(?:all|[A-Za-z_][\w.\-]*)[ \t]*\r?\n|"
    + "|".join(re.escape(token) for token in (*_TURN_ENDS, _EOS))
    + ")",
    re.S,
)
"""Where a Functionary call part ends: where the next part's recipient line begins (a JSON
string holds no raw newline, so no recipient line can stand inside the arguments), or a turn-end
token (``_TURN_ENDS``, ``_EOS``: the template ends the turn with ``<|eot_id|>``), which is then
read as it is anywhere else."""
_FUNCTIONARY: Final = _Rule((_RECIPIENT_MARK,), _FUNCTIONARY_NEXT, _read_functionary)
_FUNCTIONARY_FIRST: Final = _Rule((), _FUNCTIONARY_NEXT, lambda block: _read_functionary(">>>" + block.lstrip()))
"""A reply that opens with a name line above a JSON object (``get_weather\n{...}>>>get_time\n
{...}``): Functionary's first part when its chat template's generation prompt, which ends with
``>>>``, held the first marker (llama.cpp's functionary_v3_2 parser: "First tool call without
>>>, subsequent with >>>"). Held until the next recipient line; read as a call only when one
follows it, else passed on as written (a lone name line above JSON is left to
``text_calls._name_line``, which knows the tools' names)."""


_BARE_INVOKE: Final = "<invoke name="
"""Claude's ``<invoke>`` without its wrapper: a call only where it begins a line (Claude Opus 4.8
writes it so, after a stray word's line: anthropics/claude-code#65635); inside a sentence it is
an example the answer gives of the format. Inside a ``<tool_call>`` the model wrote (MiniMax-M3,
``_MINIMAX_M3_TOKEN``; MiniMax-M2's ``<invoke>`` in a Hermes wrapper) it is rewritten as the call's
JSON alone, read where that ``<tool_call>`` ends."""

_WRAPPERS: Final = (
    ("<TOOLCALL>", "</TOOLCALL>"),
    ("<longcat_tool_call>", "</longcat_tool_call>"),
    ("<seed:tool_call>", "</seed:tool_call>"),
    ("<|START_ACTION|>", "<|END_ACTION|>"),
    ("<tool_use>", "</tool_use>"),
    ("[TOOL_CALL]", "[/TOOL_CALL]"),
    ("<|FunctionCallBegin|>", "<|FunctionCallEnd|>"),
)
"""Tags other families put around the calls they write, the calls inside as ``_calls_in`` reads
them: Nemotron's ``<TOOLCALL>[{"name": N, "arguments": {...}}]</TOOLCALL>`` (vLLM's
``nemotron_json`` tool parser), LongCat-Flash's ``<longcat_tool_call>`` around a Hermes JSON call
(vLLM's ``longcat`` tool parser), Seed-OSS's ``<seed:tool_call>`` around ``<function=NAME>`` XML
(vLLM's ``seed_oss`` tool parser and its tests), and Command R7B / Command A's
``<|START_ACTION|>[{"tool_call_id": "0", "tool_name": N, "parameters": {...}}]<|END_ACTION|>``
(transformers' chat-schema parser tests, ``test_cohere_template``); and the
``<tool_use><name>N</name><arguments>{...}</arguments></tool_use>`` that Cherry Studio's prompt
mode for tools teaches (its system prompt, quoted in CherryHQ/cherry-studio#5136 and #7312),
which models that learned it write unasked; and MiniMax's ``[TOOL_CALL] {"tool": N, "args": {...}}
[/TOOL_CALL]`` (MiniMax-M2 in LM Studio: lmstudio-ai/lmstudio-bug-tracker#1177); and Doubao's
(Seed's) ``<|FunctionCallBegin|>[{"name": N, "parameters": {...}}]<|FunctionCallEnd|>``, which
Volcengine's Ark leaves in the content when it does not read it (a model offered no tools, or a
prompt that taught the form; also after a sentence)."""

_BARE_INVOKE_RULE: Final = _Rule((_BARE_INVOKE,), re.compile(r"</invoke>"), _read_invoke, bare=True)
_DSML_BARE_INVOKE: Final = tuple(
    f"<{bar * n}DSML{bar * n}{space}invoke name=" for bar in _DSML_BARS for n in (1, 2) for space in ("", " ")
)
"""DeepSeek V3.2's and V4's ``<｜DSML｜invoke name="N">`` with no ``function_calls`` or ``tool_calls``
section around it (sgl-project/sglang#40236: DSML returned as content, "bare invoke"): a call as
the section's would be; the ``invoke`` is a special token's word, so it is read wherever it stands
outside code, as the section is."""
_DSML_INVOKE_END = re.compile(rf"</[{_DSML_BARS}]+DSML[{_DSML_BARS}]+ ?invoke>")

_CALLING_TOOL: Final = "[Calling tool: "
_CALLING_TOOL_CALL = re.compile(
    r"\[Calling tool:[ \t]*+([\w.\-]++)(?:\((.*)\)|[ \t]++with arguments[ \t]*+[:=][ \t]*+(\{.*\}))\][ \t]*+", re.S
)


def _read_calling_tool(block: str) -> list[Call]:
    """Qwen3's bracketed call ``[Calling tool: NAME({...})]`` (MLX servers' fallback form:
    waybarrios/vllm-mlx PR #15), or the line Hermes Agent shows for a call, which models copy
    from their history into a reply: ``[Calling tool: NAME with arguments: {...}]`` or ``...
    with arguments={...}]`` (EKKOLearnAI/hermes-studio#942, #840); its arguments one JSON
    object; ``[]`` for anything else (``[Calling tool: NAME]`` alone names no arguments)."""
    call = _CALLING_TOOL_CALL.fullmatch(block.rstrip())
    if call is None:
        return []
    arguments = _arguments(call.group(2)) if call.group(3) is None else decode_json(call.group(3))
    return [(call.group(1), arguments)] if isinstance(arguments, dict) else []


_CALLING_TOOL_RULE: Final = _Rule(
    (_CALLING_TOOL,),
    re.compile(r"\)\]|\A\[Calling tool:[ \t]*+[\w.\-]++[ \t]++with arguments.*?\}\][ \t]*+\n", re.S),
    _read_calling_tool,
    named=True,
)
"""Qwen3's bracketed call and Hermes Agent's call line (``_read_calling_tool``): plain text, no
special token, so a call only where it begins a line outside code and names one of the node's
tools; in a sentence, or naming another tool, it is the answer's text, as written. Qwen3's ends
at its first ``)]``; Hermes Agent's at a ``}]`` that ends a line, or at the end of the reply, so
an array of objects inside its arguments (``[{...}]``) does not end it."""
_FUNCTION_NAME_RULE: Final = _Rule(
    (_FUNCTION_NAME,), re.compile(r"</function>|(?<=.)(?=<function name=)", re.S), _read_function_named, named=True
)
"""llama.cpp's ``<function name="NAME">{...}</function>`` (``_read_function_named``): a call only
where it begins a line, outside code, naming one of the node's tools when the tools are known
(``CallMarkup``'s ``tools`` or ``names``); else it is text, as written: an answer explaining the
form, or a function an HTML or XML answer shows. A block is held to its ``</function>`` or the
next such tag at most, so text full of them is read once."""
_ACTION_OPEN: Final = "<action>"
_ACTION_STEP = re.compile(r"<action>[ \t]*([^<>\s]{1,128})[ \t]*</action>\s*<action_input>(.*?)</action_input>", re.S)


def _read_action_step(block: str) -> list[Call]:
    """An XML-tagged ReAct step, ``<action>NAME</action>`` and its ``<action_input>`` element
    (JSON, or text for a tool of one parameter), written as text to a model offered tools
    natively (lamalab-org/corral PR #192's prompt); ``[]`` for any other block."""
    step = _ACTION_STEP.fullmatch(block.rstrip())
    return [] if step is None else [(step.group(1), _arguments(step.group(2)))]


_ACTION_STEP_RULE: Final = _Rule(
    (_ACTION_OPEN,), re.compile(r"</action_input>|</action>(?=\s*[^\s<])"), _read_action_step, named=True
)
"""The XML-tagged step (``_read_action_step``), read only by Function Calling (``CallMarkup``
given the tools: the ReAct parser reads ``<action>`` itself), only where it begins a line outside
code and names one of the node's tools; ``<action>NAME</action>`` with no ``<action_input>``
after it is text. Held to ``</action_input>``, or to a ``</action>`` that text follows."""


_GEMMA_CALL_TAG: Final = "<call>"
_GEMMA_CALL_TAG_RULE: Final = _Rule(
    (_GEMMA_CALL_TAG,), None, lambda block: _read_gemma(block.replace(_GEMMA_CALL_TAG, "call:", 1)), named=True
)
"""Gemma 4's call with its ``<|tool_call>call:`` token broken into ``<call>`` by a multimodal input
(``<call>get_weather{city:<|"|>Paris<|"|>}``: vLLM's Gemma 4 parser tests): a call only where it
begins a line, outside code, is the rest of the reply and names one of the node's tools; else
text, as written."""
_LINE_OPENERS: Final = frozenset({_BARE_INVOKE, _FUNCTION_NAME, _ACTION_OPEN, _GEMMA_CALL_TAG, _CALLING_TOOL})
"""Markers read as a call only where they begin a line: inside a sentence they are examples."""

_FENCED_FUNCTION_CALL: Final = _Rule(
    ("<function_call>",),
    None,
    lambda block: calls if (calls := _read_after("<function_call>")(block)) and _FENCE_END.fullmatch(block, _after_calls(block)) else [],
    named=True,
)
"""granite-20b-fc's ``<function_call> {...}`` in a ```` ```json ```` fence that is the whole reply
(```` ```json\n<function_call> {...} </function_call>\n``` ````: llama.cpp's Hermes 2 Pro parser test):
the reply is the call, not code it shows. Read only when the fence opened the reply and holds
that call object alone, ``</function_call>`` and the fence's end all that follows it, naming a
tool of the node; with text before or after the fence, or another name, it is an example, passed
on as written."""
_FENCE_HEAD = re.compile(r"\s*```(?:json|xml)?[ \t]*\r?\n\s*", re.IGNORECASE)
_FENCE_END = re.compile(r"\s*(?:</function_call>\s*)?```\s*")


def _after_calls(block: str) -> int:
    """Where the call object after ``block``'s ``<function_call>`` ends (0 when none reads)."""
    start = _SPACE.match(block, len("<function_call>")).end()
    try:
        _, end = json.JSONDecoder().raw_decode(block, start)
    except (ValueError, RecursionError):
        return 0
    return end


def _element_rule(name: str, tool: Any) -> _Rule:
    """A call written as an element named after the tool ``name`` (``<read_file>\n<path>a.py
    </path>\n</read_file>``: Cline's and Roo-Code's tool format, which coder models fine-tuned on
    their traces write unasked: RooCodeInc/Roo-Code#10464, #10358), its parameters as child
    elements (``text_calls.element_arguments``, typed by ``tool``, its declaration or None). Held
    to its closing tag; one never closed, or holding anything but elements, is passed on as
    written."""
    opener, closer = f"<{name}>", f"</{name}>"

    def read(block: str) -> list[Call]:
        if not block.endswith(closer):
            return []
        arguments = element_arguments(block[len(opener) : -len(closer)], tool)
        return [] if arguments is None else [(name, arguments)]

    return _Rule((opener,), re.compile(re.escape(closer)), read, bare=True)


_RULES: Final = (
    _Rule(_deepseek("tool calls begin"), re.compile(r"<[|｜]tool[▁_]calls[▁_]end[|｜]>"), _read_deepseek),
    _Rule(_deepseek("tool call begin"), re.compile(r"<[|｜]tool[▁_]call[▁_]end[|｜]>"), _read_deepseek),
    _Rule(("<|tool_calls_section_begin|>",), re.compile(r"<\|tool_calls_section_end\|>"), _read_kimi, declared=True),
    _Rule(("<|tool_call_begin|>",), re.compile(r"<\|tool_call_end\|>"), _read_kimi, declared=True),
    _Rule(
        tuple(opener for word in _DSML_WRAPPERS for opener in _dsml(word)),
        _DSML_WRAPPER_END,
        _read_dsml,
    ),
    _Rule(_dsml("toolcall"), None, _read_dsml_toolcall),
    _Rule((_XTML_TOOLS_OPEN,), re.compile(re.escape(_XTML_TOOLS_CLOSE)), _read_kimi_xtml),
    _Rule((_XTML_SPACED_OPEN,), _XTML_SPACED_CLOSE, _read_kimi_xtml),
    _Rule((_XTML_GLUED_OPEN,), _XTML_GLUED_CLOSE, _read_glued_xtml),
    _Rule(("<|tool_call_start|>",), re.compile(r"<\|tool_call_end\|>"), _read_pythonic),
    _Rule(("<minimax:tool_call>",), re.compile(r"</minimax:tool_call>"), _read_minimax),
    _Rule(("<function_calls>",), re.compile(r"</function_calls>"), _read_function_calls),
    _Rule((_ATEM_OPEN,), re.compile(re.escape(_ATEM_CLOSE)), _read_atem),
    _Rule(_GCML_OPENERS, _GCML_END, _read_gcml),
    _Rule((_SOLAR_OPEN,), re.compile(re.escape(_SOLAR_END)), _read_solar),
    _BARE_INVOKE_RULE,
    _Rule(_DSML_BARE_INVOKE, _DSML_INVOKE_END, _read_invoke),
    _CALLING_TOOL_RULE,
    _FUNCTION_NAME_RULE,
    _ACTION_STEP_RULE,
    _Rule(("<tool_calls>",), re.compile(r"</tool_calls>"), _read_json_lines),
    _Rule(("<tool_calls:",), re.compile(r"</tool_calls:[\w.\-]{1,40}>"), _read_hy4),
    _Rule((_IFM_OPEN,), re.compile(re.escape(_IFM_CLOSE)), _read_ifm),
    _Rule((_IFM_CALL_OPEN,), re.compile(re.escape(_IFM_CALL_CLOSE)), _read_ifm_call),
    _Rule((_PLAMO_OPEN,), re.compile(re.escape(_PLAMO_CLOSE)), _read_plamo),
    _Rule((_IQUEST_OPEN,), re.compile(re.escape(_IQUEST_CLOSE)), _read_iquest),
    *(_Rule((opener,), re.compile(re.escape(closer)), _read_wrapped(opener, closer)) for opener, closer in _WRAPPERS),
    _Rule((_INTERNLM_CALL,), re.compile(r"<\|action_end\|>"), _read_internlm),
    _Rule(("<function=",), re.compile(r"</function>"), _read_function, declared=True),
    _Rule(("[TOOL_CALLS]",), re.compile(r"(?=\[/THINK\])"), _read_mistral),  # in reasoning: ends with it
    _Rule(("<function_call>",), None, _read_after("<function_call>")),
    _Rule(("<|tool_call|>",), None, _read_after("<|tool_call|>")),
    _Rule(("<|function_call|>",), None, _read_after("<|function_call|>")),
    _Rule(("<|message_sep|>",), None, _read_gigachat3),
    _Rule((_PYTHON_TAG,), None, _read_python_tag),
    _Rule(("<|tools_prefix|>",), re.compile(r"<\|tools_suffix\|>"), _read_apertus),
    _Rule((_QWEN_AGENT_OPEN,), None, _read_qwen_agent),
    _Rule(("<|tool_call>",), re.compile(r"<tool_call\|>|<turn\|>"), _read_gemma),
    _GEMMA_CALL_TAG_RULE,
    _Rule(("<start_function_call>",), re.compile(r"<end_function_call>"), _read_gemma),
)

_INKLING_CALL_TOKENS: Final = ("<|message_model|>", "<|content_invoke_tool_json|>")
"""Inkling's call message: ``<|message_model|>NAME<|content_invoke_tool_json|>{"name": NAME,
"args": {...}}<|end_message|>`` (SGLang's ``inkling`` detector); the first call of a reply has no
``<|message_model|>`` (the prompt opened it)."""

MARKUP_OPENERS: Final = (
    *(opener for rule in _RULES if not rule.named for opener in rule.openers),
    "<|channel|>",
    _GLIMMER_MESSAGE,
    *_INKLING_CALL_TOKENS,
    _MINIMAX_M3_TOKEN,
)
"""The markers that open native call markup: text holding one is a call, read or not (MiniMax-M3's
token only where ``CallMarkup`` leaves it, before an argument element no invoke holds; Glimmer's
``<|message|>`` only where a message of its stays unread: ``_rewrite_glimmer``; its ATEM block
is a rule's, read with or without a channel header;
Inkling's call message tokens, whose calls ``text_calls._name_line`` reads; a
``named`` rule's marker left unread is text: it named no tool of the node, or stood where no
call does)."""

_OPENING: Final = tuple((opener, rule) for rule in _RULES for opener in rule.openers)
_WATCHED: Final = tuple(  # longest first: a marker that begins another is tried after it
    sorted(
        {opener for opener, _ in _OPENING}
        | {"<|channel|>", "<|start|>", "<tool_call>", "</tool_call>", _EOS, _APRIEL_END, _RECIPIENT_MARK}
        | {*_DROPPED, *_TURN_ENDS, _CITATION_OPEN},
        key=len,
        reverse=True,
    )
)
_LONGEST: Final = max(len(marker) for marker in _WATCHED)


def _by_start(markers: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """``markers`` by their first two characters (every marker has more), in their order: the few
    a ``<`` or ``[`` in the text can begin, so text full of them costs a lookup each."""
    return {start: tuple(m for m in markers if m[:2] == start) for start in {m[:2] for m in markers}}


_WATCHED_BY_START: Final = _by_start(_WATCHED)
_FIRST_CHARS: Final = frozenset(marker[0] for marker in _WATCHED)
"""The first characters of the markers: a text ending in one may end in a marker's start (tried
against every marker it was 150 calls, at the end of each chunk of a text of ``<``)."""


_TAG_BEFORE = re.compile(r"<[A-Za-z/][\w:.\-/]*")
_TAG_LOOK: Final = 40
"""How far back ``_closes_tag`` looks for the tag's ``<`` (characters)."""

_VALUE_OPENED = re.compile(r"<(?:parameter=[^<>\n]*+|parameter\s++name=\"[^\"<>]*+\"[^<>]*+|arg_value)>\s*+\Z")
"""A parameter's opening tag (Qwen3-Coder's and Seed-OSS's ``<parameter=k>``, MiniMax's
``<parameter name="k">``, GLM's ``<arg_value>``) ending the text passed on, whitespace after it:
an element that opens the next line is that parameter's value (``<html>`` given to a tool named
``html``: llama.cpp's Qwen3-Coder test), never a call of its own. Possessive, so a long run of
tag-like text is tried once."""


def _closes_tag(before: str, text: str, i: int) -> bool:
    """Whether ``text[i]`` is the ``>`` that closes a tag begun just before it (in ``text``, or in
    ``before``: the last characters passed on ahead of ``text``), as in ``</think>`` or ``<b>``:
    no Functionary recipient (``>>>``) starts there, so it is not held back as one that may.
    Held, it would split a ``</think>`` from the chunk it ends, and a reasoning block closed in
    that chunk would no longer be seen closed in it."""
    if text[i] != ">":
        return False
    head = text[max(0, i - _TAG_LOOK) : i] if i >= _TAG_LOOK else before[max(0, len(before) - (_TAG_LOOK - i)) :] + text[:i]
    start = head.rfind("<")
    return start >= 0 and _TAG_BEFORE.fullmatch(head, start) is not None


def _may_mark(text: str) -> bool:
    """Whether a marker may start in ``text`` (every marker starts with ``<``, ``[``, ``✿``,
    Functionary's recipient ``>>>`` or MiniMax-M3's ``]<]``; the same test is written inline in
    ``CallMarkup.feed``, a chunk's path)."""
    return "<" in text or "[" in text or "✿" in text or ">" in text or "]" in text


_ANY_MARK_CHAR = re.compile(r"[<\[✿>]|\](?=<|\Z)")
"""A character a marker may start at, whatever follows it (``rewrite_markup``: a text with none
is its own rewriting): ``<``, ``[``, ``✿``, ``>``, and a ``]`` only before ``<`` or at the text's
end (MiniMax-M3's ``]<]minimax[>[``)."""


def _mark_chars() -> re.Pattern[str]:
    """Where ``CallMarkup._scan`` looks for a marker: a first character of one (``_WATCHED``)
    followed by a second character of one that starts so, or by nothing yet; a ``<`` also before
    a character a tool's element name may hold (``text_calls.element_opening``). Anything else
    is passed over without being looked at: a reply of megabytes of ``]``, ``<``, ``>``, ``<>``
    or ``[[`` (a model looping) was looked at character by character, 50 times slower than prose."""
    seconds: dict[str, set[str]] = {}
    for marker in _WATCHED:
        seconds.setdefault(marker[0], set()).add(marker[1])
    element = r"\w.\-"
    return re.compile(
        "|".join(
            f"{re.escape(first)}(?=[{element if first == '<' else ''}{''.join(map(re.escape, sorted(after)))}]|\\Z)"
            for first, after in sorted(seconds.items())
        )
    )


_MARK_CHARS = _mark_chars()
_END_MAX: Final = 64
"""Longer than any block's end marker (characters)."""
_LONG_BLOCK: Final = 4096
"""A held block longer than this (characters) is gathered piece by piece."""
_FEED_SLICE: Final = 4096
"""A text that may hold a marker and is longer than this (characters; a reply sent whole, or a
held reply let go at once) is read as if it had been streamed in slices of this size: each marker
acted on keeps the text after it pending, a copy a slice bounds (300,000 ``<tool_call>`` sent in
one chunk copied the rest of the reply at each: 19 s, and every other session of the process
waited). A slice may end anywhere, in a run of marker characters too: what is read does not
depend on where a text is cut."""


_TICK_RUNS = re.compile(r"`+|~+")


class CodeQuote:
    """Whether the text read so far leaves a markdown code span (`` `...` ``) or a fenced code
    block open: call markup inside one is an example the answer shows (how Claude or DeepSeek
    writes a call), not a call. Fences follow CommonMark (``agent_core.fences``: backticks or
    tildes, closed only by a line of the same character, at least as long, with nothing but
    spaces after it). A code span ends at the end of its line at the latest, so a stray backtick
    quotes nothing past it. Feed every piece of text in order; linear.

    A line that may still close the open block (``` then only spaces so far) leaves it open until
    the line ends: what is asked about at its end stands on that line, which is then no closing
    fence (```` ```<tool_call> ```` in a block is its text)."""

    __slots__ = ("_closing", "_info", "_lead", "_opening", "_ticks", "blank_line", "fence", "inline")

    def __init__(self) -> None:
        self.fence = 0  # length of the open fence's run, 0 when none
        self.inline = 0  # backticks of the open code span, 0 when none
        self.blank_line = True  # nothing but whitespace on the current line so far
        self._lead = ""  # that whitespace (its first 64 characters): the line's indentation
        self._opening: fences.Opening = ("`", 0, 3)  # the open fence (fences.closes)
        self._closing = False  # the current line may close the open fence: a run, then only spaces
        self._info = False  # the current line opened a backtick fence: a backtick on it undoes it
        self._ticks = ""  # a run of backticks or tildes ending the text so far: it may go on in the next piece

    @property
    def open(self) -> bool:
        """Whether a code span or a fenced block is open at the end of what was fed."""
        if not self._ticks:
            return bool(self.fence or self.inline)
        probe = self._probe()
        return bool(probe.fence or probe.inline)

    @property
    def in_span(self) -> bool:
        """Whether a code span (`` `...` ``, not a fenced block) is open at the end of what was fed."""
        return bool(self._probe().inline if self._ticks else self.inline)

    @property
    def span_ticks(self) -> int:
        """Backticks of the code span open at the end of what was fed (a run as long closes it), 0
        when none is (a fenced block open included)."""
        return self._probe().inline if self._ticks else self.inline

    def drop_span(self) -> None:
        """Read on as if the open code span had never opened: no run as long closed it on its line,
        so its backticks were text (CommonMark). Call where a backtick run that may go on cannot
        (before a tag's ``<``)."""
        if self._ticks:
            ticks, self._ticks = self._ticks, ""
            self._read(ticks)
        self.inline = 0

    @property
    def in_fence(self) -> bool:
        """Whether a fenced code block (not a code span) is open at the end of what was fed."""
        return bool(self._probe().fence if self._ticks else self.fence)

    def _probe(self) -> CodeQuote:
        """A copy with the run the text ends with read as a whole run."""
        probe = self.copy()
        probe._ticks = ""
        probe._read(self._ticks)
        return probe

    def copy(self) -> CodeQuote:
        """A tracker in the same state, to read ahead with."""
        twin = CodeQuote()
        twin.fence, twin.inline, twin.blank_line, twin._ticks = self.fence, self.inline, self.blank_line, self._ticks
        twin._lead, twin._opening, twin._closing, twin._info = self._lead, self._opening, self._closing, self._info
        return twin

    def feed(self, text: str) -> None:
        """Read one more piece of text."""
        if "`" not in text and "~" not in text and not self._ticks and not self._closing:  # the usual piece
            newline = text.rfind("\n")
            if newline >= 0:
                self.inline, self._info, self._lead = 0, False, text[newline + 1 : newline + 65]
                self.blank_line = _blank(self._lead)
            elif self.blank_line:
                self.blank_line = _blank(text)
                self._lead = (self._lead + text[:64])[:64]
            return
        if self._ticks or text.endswith(("`", "~")):
            text = self._ticks + text
            read = text.rstrip(text[-1]) if text[-1:] in ("`", "~") else text  # a held run, then "\n": read whole
            self._ticks = text[len(read) :]
            text = read
        self._read(text)

    def _end_line(self, rest: str) -> None:
        """A line ended, ``rest`` what it held after the last run: a closing fence closes."""
        if self._closing and _blank(rest):
            self.fence = 0
        self.inline, self._closing, self._info = 0, False, False

    def _run(self, char: str, size: int, lead: str | None) -> None:
        """A run of ``size`` × ``char`` (a backtick or a tilde); ``lead``: the whitespace before
        it on its line, None when other text stands there."""
        if self.fence and self._info and char == "`":  # ```js `x`: no fence, code spans
            self.fence, self.inline, self._info = 0, self._opening[1], False
        if self.fence:
            if lead is not None and fences.closes(self._opening, char, size, fences.indent_width(lead)):
                self._closing = True  # closes the block if only spaces follow on its line
        elif self.inline:
            if char == "`" and size == self.inline:
                self.inline = 0
        elif size >= 3 and lead is not None:
            self.fence, self._info = size, char == "`"
            self._opening = (char, size, fences.close_indent(fences.indent_width(lead)))
        elif char == "`":
            self.inline = size

    def _read(self, text: str) -> None:
        """Only the backtick and tilde runs are looked at one by one; lines are found with ``rfind``."""
        prev = 0
        for run in _TICK_RUNS.finditer(text):
            start = run.start()
            newline = text.rfind("\n", prev, start)
            if newline >= 0:  # a code span ends with its line, a fence line may close its block
                self._end_line(text[prev : text.find("\n", prev, start)])
                lead = text[newline + 1 : start]
                line_start = _blank(lead)
            else:
                self._closing = False  # more than spaces after a closing fence: the block's text
                line_start = self.blank_line and _blank(text[prev:start])
                lead = self._lead + text[prev:start] if line_start else ""
            self._run(text[start], run.end() - start, lead if line_start else None)
            self.blank_line, prev = False, run.end()
        newline = text.rfind("\n", prev)
        if newline >= 0:
            self._end_line(text[prev : text.find("\n", prev)])
            self._lead = text[newline + 1 : newline + 65]
            self.blank_line = _blank(self._lead)
        else:
            if self._closing and not _blank(text[prev:]):
                self._closing = False
            if self.blank_line:
                self.blank_line = _blank(text[prev:])
                self._lead = (self._lead + text[prev : prev + 64])[:64]


def _blank(text: str) -> bool:
    return not text or text.isspace()


_QUOTE_LINE = re.compile(r" {0,3}>")
_INDENTED = re.compile(r" {4}|[ ]{0,3}\t")
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
QUOTE_LOOK_BACK: Final = 2048
"""How far back (characters) ``in_quoted_line`` is given the text: an indented block longer than
this is taken to have opened after a blank line."""


def in_quoted_line(text: str) -> bool:
    """Whether the end of ``text`` (the markdown written so far) stands in a line the answer shows
    as quoted or code without a fence (CommonMark): a blockquote line (``> ...``, up to three
    spaces before the ``>``), or an indented code block (lines indented by four spaces or a tab,
    after a blank line or the start of ``text``, not under a list item or an indented line, whose
    indented lines are the item's own text). Reads the last lines only, back to the line the block follows."""
    start = text.rfind("\n") + 1
    line = text[start:]
    if _QUOTE_LINE.match(line):
        return True
    if not _INDENTED.match(line):
        return False
    blank_before = False
    while start > 0:
        above = text.rfind("\n", 0, start - 1) + 1
        previous = text[above : start - 1]
        if _blank(previous):
            blank_before = True
        elif _INDENTED.match(previous):
            blank_before = False  # the block goes on above
        else:
            return blank_before and previous[0] not in " \t" and not _LIST_ITEM.match(previous)
        start = above
    return True


class CallMarkup:
    """Streaming rewriter: ``feed(text) -> text``, then ``finish() -> text``.

    What comes out is what went in, except native call markup (rewritten as ``<tool_call>``
    blocks), Harmony channels (reasoning as a ``<think>`` block, text as text, calls as
    ``<tool_call>`` blocks) and turn-end tokens (the text ends at the first one). Holds back only
    a marker that is still incomplete and a block that is still open.

    ``tools``: the node's tools by the name the model was given, each to its declaration
    (``PromptMessageTool``) or None. An element named after one that opens a line outside code
    (``<read_file>\n<path>a.py</path>\n</read_file>``) is a call (``_element_rule``); any other
    tag, one inside a sentence, in a code span or block, or never closed, is text. Without
    ``tools`` no element is read (ReAct reads them itself, only where an action may stand).

    ``names``: the node's tools' names when ``tools`` is not given (ReAct): a form read only as a
    call to one of them (``_FUNCTION_NAME_RULE``) naming another is text. Neither given: any name.

    ``python_tag_lines``: a ``<|python_tag|>`` that opens a line is passed on as written (the
    ReAct parser reads it where it stands and emits its call as soon as its JSON closes); one
    after text on its line is always held to the end of the text (``_read_python_tag``).

    ``recipient_in_prompt``: the reply comes from a Functionary model (``recipient_in_prompt()``,
    ``shows_functionary_parts``), whose generation prompt ends with ``>>>``: a reply that starts
    with the exact line ``all`` (lowercase, nothing else on it) and text after it has that line
    dropped, as ``>>>all\n`` is. Only then: from another model, or written otherwise (``All``,
    ``all of them``, ``all`` on a later line, ``all`` with no text after it), the line is the
    answer's own. A text part of a model not known as Functionary keeps its bare ``all`` line: the
    reply would have to be held to its end to see whether a ``>>>`` part follows.
    """

    def __init__(
        self,
        *,
        recipient_in_prompt: bool = False,
        tools: Mapping[str, Any] | None = None,
        python_tag_lines: bool = False,
        names: Iterable[str] | None = None,
    ) -> None:
        self._bare_all = recipient_in_prompt  # a reply's first line "all" is Functionary's recipient
        self._own_python_tag = python_tag_lines  # a <|python_tag|> opening a line is the caller's to read
        self._tools = tools or {}  # tool name -> declaration: a line opening <name> may be a call
        # a ``named`` rule's call is read only when it names one of these (None: any name)
        self._names = frozenset(self._tools) if tools is not None else (None if names is None else frozenset(names))
        # the tools a ``declared`` rule's reader is given: their declarations when known
        self._declared = tools if tools is not None else names if isinstance(names, Mapping) else None
        self._rewrote = False  # a block was rewritten: the text passed on is not all the reply so far
        self._pending = ""
        self._rule: _Rule | None = None  # the block being held
        self._harmony = False  # holding a Harmony message (from ``<|channel|>``)
        self._recipient: str | None = None  # ``to=`` given in a Harmony ``<|start|>`` header
        self._glimmer: str | None = None  # the recipient of a Glimmer message held (with ``_harmony``)
        self._in_tool_call = False  # inside a ``<tool_call>`` block the model wrote itself
        self._opened_tool_call = False  # the reply wrote a ``<tool_call>``: a later close may be its
        self._stray_close = False  # a rewritten bare ``<function=`` may be followed by its ``</tool_call>``
        self._ended = False  # a turn-end token came: the rest is an invented turn, dropped
        self._more: list[str] = []  # text of a long held block not joined to ``_pending`` yet
        self._tail = ""  # the last characters of the held block, where its end may begin
        self._blank_opening: list[str] = []  # those first characters while they are all whitespace (``feed``)
        self._opening: str | None = ""  # the reply's first characters, until it is known whether
        # it is Harmony with its tokens left out (``_bare_harmony``); None once known
        self._bare: list[str] | None = None  # such a reply's text, held until its final channel
        self._bare_call = False  # ... that opened with a commentary call: held to its end
        self._thoughts: list[str] | None = None  # Granite's thought process, held until its response
        self._apriel = False  # an Apriel frame's [BEGIN FINAL RESPONSE] came: its end is dropped
        self._quote = CodeQuote()  # the text passed on so far: is a code span or block open?
        self._unread: list[str] = []  # text passed on that _quote has not read yet (_passed)
        self._recent = ""  # the last characters passed on (``_closes_tag``)
        self._in_pieces = False  # feeding a long text slice by slice (``feed``)
        self._no_python_calls: set[int] = set()  # <|python_tag|> read as no call, by its distance to the end

    @property
    def ended(self) -> bool:
        """Whether a turn-end token came (what followed it was dropped)."""
        return self._ended

    def feed(self, text: str) -> str:
        """Consume a piece of text; return what is certain. A piece longer than ``_FEED_SLICE``
        that may hold markers is read ``_FEED_SLICE`` characters at a time (as if it had come so:
        the result is the same), giving way between two (``fairness.give_way``): the text held is
        then never much longer than a block, and each marker found does not copy the rest of a
        text of megabytes (thousands of ``<tool_call>`` blocks sent whole took time in their
        square). The slices are taken twice over, by one loop (``_in_slices``): of the text as it
        came, so that the start of a reply is told apart (``_bare_harmony``) as when it streams;
        and of what a held reply lets go at once (a Harmony analysis at its final channel)."""
        if len(text) > _FEED_SLICE and not self._in_pieces and _may_mark(text):
            self._in_pieces = True
            try:
                return self._in_slices(text, self.feed)
            finally:
                self._in_pieces = False
        if self._ended:
            return ""
        if self._opening == "" and (not text or text.isspace()):  # a reply of whitespace so far: held
            self._blank_opening.append(text)  # as _bare_harmony holds it, without copying it all each chunk
            return ""
        if self._opening is not None or self._bare is not None or self._thoughts is not None:
            text = self._bare_harmony(text, final=False)
        if (not (self._pending or self._rule or self._harmony or self._stray_close)
                and "<" not in text and "[" not in text and "✿" not in text and ">" not in text and "]" not in text):
            # _may_mark and _pass, inline: the usual chunk's path (no Python call a chunk)
            self._unread.append(text)
            self._recent = (self._recent + text[-_TAG_LOOK:])[-_TAG_LOOK:]
            return text  # the usual chunk: no marker can start in it
        if len(text) > _FEED_SLICE:
            return self._in_slices(text, self._feed_slice)
        return self._feed_slice(text)

    def _in_slices(self, text: str, read: Callable[[str], str]) -> str:
        """``read`` of ``text`` ``_FEED_SLICE`` characters at a time (until a turn-end token came),
        giving way between two: tens of thousands of markers take seconds."""
        out = []
        for start in range(0, len(text), _FEED_SLICE):
            if self._ended:
                break
            out.append(read(text[start : start + _FEED_SLICE]))
            give_way()
        return "".join(out)

    def _feed_slice(self, text: str) -> str:
        """``feed`` of at most ``_FEED_SLICE`` characters that may hold a marker."""
        if self._more or ((self._rule is not None or self._harmony) and len(self._pending) > _LONG_BLOCK):
            # A long block is gathered piece by piece and looked at only where its end may be,
            # so a block streamed in many pieces costs time in proportion to its length.
            window = (self._tail if self._more else self._pending[-_END_MAX:]) + text
            if not self._may_end(window):
                self._more.append(text)
                self._tail = window[-_END_MAX:]
                return ""
            text = "".join(self._more) + text
            self._more.clear()
        self._pending += text
        return self._drain(final=False)

    def finish(self) -> str:
        """Flush: a block still open is read as it stands."""
        if self._ended:
            return ""
        if self._opening is not None or self._bare is not None or self._thoughts is not None:
            self._pending += self._bare_harmony("", final=True)
        elif not self._pending and not self._more:
            return ""  # the usual end: nothing held
        self._pending += "".join(self._more)
        self._more.clear()
        return self._drain(final=True)

    @property
    def holds_block(self) -> bool:
        """Whether a block is held open: call markup (a family's call, ``<tool_call>``) or a
        Harmony message whose end has not come."""
        return self._rule is not None or self._harmony or bool(self._more)

    def stopped(self) -> str:
        """The reply stopped short (its stream failed, or the run's deadline came): the text held
        back that is the answer's own, ``""`` if none. That is the reply's start held only while
        it might still become a name above its JSON arguments (``_MAY_NAME_ABOVE_JSON``: a word
        so far, ``Yes``; the caller keeps back a start of a tool's name), never a start that may
        still become Harmony's ``analysis`` channel or Granite's thought-process phrase
        (reasoning), a recipient or a bare commentary call, nor what a held block, a marker not
        yet complete or a held reply of those forms holds (call markup, reasoning). Nothing is
        read after it: the held start is let go as it came."""
        if self._ended or self._opening is None or self._bare is not None or self._thoughts is not None:
            return ""
        if self._blank_opening:
            self._opening, self._blank_opening = "".join(self._blank_opening), []
        head = self._opening.lstrip()
        if (
            not head
            or (len(head) <= len(_BARE_ANALYSIS) and _BARE_ANALYSIS.startswith(head))
            or _may_open_thoughts(head)
            or _recipient_prefix(head, False, self._bare_all) != 0
            or _may_open_call(head)
            or _glimmer_opening(head, False) == ""
            or _MAY_NAME_ABOVE_JSON.fullmatch(head) is None
        ):
            return ""
        text, self._opening = self._opening, None
        return text

    def _bare_harmony(self, text: str, final: bool) -> str:
        """gpt-oss's Harmony with its special tokens left out by the server
        (``analysisWe need…assistantfinalHello!``: oobabooga/text-generation-webui#7374), given
        its tokens back so that it is read as Harmony is: the analysis held until the final
        channel begins, or a commentary call (``assistantcommentary to=functions.x json{…}``) at
        the end. A reply that opens with Granite's "Here is my thought process:" is read the same
        way (``_granite_thoughts``), and Functionary's recipient marker at its start is dropped
        (``_RECIPIENT_LINE``). Any other reply passes as it came."""
        if self._thoughts is not None:
            return self._granite_thoughts(text, final)
        if self._opening is not None:
            if self._blank_opening:  # the whitespace ``feed`` held, joined once
                self._opening, self._blank_opening = "".join(self._blank_opening), []
            head = (self._opening + text).lstrip()
            if (opened := self._plain_or_glimmer(head, text, final)) is not None:
                return opened
            may_be_analysis = len(head) <= len(_BARE_ANALYSIS) and _BARE_ANALYSIS.startswith(head)
            recipient = _recipient_prefix(head, final, self._bare_all)
            first_part = _NAME_ABOVE_JSON.match(head) is not None
            may_be_first = not first_part and len(head) < 200 and _MAY_NAME_ABOVE_JSON.fullmatch(head) is not None
            if not final and (
                may_be_analysis or _may_open_thoughts(head) or recipient is None or may_be_first or _may_open_call(head)
            ):
                self._opening += text
                return ""  # may still be the analysis channel's name, Granite's phrase or a recipient
            text, self._opening = self._opening + text, None
            if recipient:
                return head[recipient:]
            if first_part:
                self._rule = _FUNCTIONARY_FIRST
                return text
            if _THOUGHTS_START.match(head):
                self._thoughts, self._tail = [text], ""
                return self._granite_thoughts("", final)
            start = self._bare_start(head)
            if start is None:
                return text
            text = start
        assert self._bare is not None
        window = self._tail + text
        self._bare.append(text)
        self._tail = window[-len(_BARE_FINAL) :]
        if (self._bare_call or _BARE_FINAL not in window) and not final:
            return ""
        held, self._bare, self._tail = "".join(self._bare), None, ""
        if self._bare_call:
            self._bare_call = False
            return _bare_call(held)
        return _bare_analysis(held)

    def _plain_or_glimmer(self, head: str, text: str, final: bool) -> str | None:
        """The held reply's start (``head``: its first characters, stripped; ``text``: the piece
        just come) when it is the usual reply (``_PLAIN_OPENING``: let go as it came) or opens
        with a Glimmer header (given its ``<|start|>assistant``: ``_glimmer_opening``); ``""``
        while it may still become that header; None for the other forms to tell apart."""
        if head[:1] in ("<", "t") and (glimmer := _glimmer_opening(head, final)) is not None:
            if not glimmer:
                self._opening += text
                return ""  # may still be a Glimmer header
            self._opening = None
            return glimmer
        if _PLAIN_OPENING.match(head):  # the usual reply: none of the forms below can begin so
            text, self._opening = self._opening + text, None
            return text
        return None

    def _bare_start(self, head: str) -> str | None:
        """The start (``head``: the reply's first characters, stripped) of a Harmony reply with its
        tokens left out, from where it is held: after ``analysis`` glued to the channel's first word,
        or the whole reply when it opens with a commentary call (``_BARE_CALL_OPENING``, held to its
        end); None for any other reply."""
        if _BARE_CALL_OPENING.match(head):  # a commentary call with no analysis before it
            self._bare, self._tail, self._bare_call = [], "", True
            return head
        after = head[len(_BARE_ANALYSIS) : len(_BARE_ANALYSIS) + 1]
        if not head.startswith(_BARE_ANALYSIS) or not after.isalpha() or after.islower():
            return None  # the channel's text starts a sentence: "analysisWe need", "analysis用户"
        self._bare, self._tail = [], ""
        return head[len(_BARE_ANALYSIS) :]

    def _granite_thoughts(self, text: str, final: bool) -> str:
        """Granite 3.2's "Here is my thought process: … Here is my response: …" as a ``<think>``
        block and the text after it, once the response phrase came. A reply that ends without it
        passes as it came: no answer text is taken for reasoning on a guess."""
        assert self._thoughts is not None
        window = self._tail + text
        self._thoughts.append(text)
        self._tail = window[-_RESPONSE_MAX:]
        if _RESPONSE_START.search(window) is None and not final:
            return ""
        held, self._thoughts, self._tail = "".join(self._thoughts), None, ""
        start = _THOUGHTS_START.search(held)
        response = _RESPONSE_START.search(held, start.end()) if start else None
        if start is None or response is None:
            return held
        self._apriel = response.group().startswith("[")
        return f"{held[: start.start()]}<think>{held[start.end() : response.start()]}</think>{held[response.end() :]}"

    def _may_end(self, window: str) -> bool:
        """Whether the held block's end may lie in ``window`` (its last characters and new text)."""
        if self._harmony and self._glimmer is not None:
            return any(marker in window for marker in (*_GLIMMER_ENDS, "<|start|>", _ATEM_CLOSE))
        if self._harmony:
            return any(marker in window for marker in (*_HARMONY_ENDS, "<|start|>", "<|channel|>"))
        closer = self._rule.closer if self._rule is not None else None
        return closer is not None and closer.search(window) is not None

    def _drain(self, final: bool) -> str:
        out: list[str] = []
        while self._pending:
            if self._stray_close and not self._drop_stray_close(final):
                break
            if self._rule is not None or self._harmony:
                if not self._close(out, final):
                    break
            elif not self._scan(out, final):
                break
        return "".join(out)

    def _scan(self, out: list[str], final: bool) -> bool:
        """Pass text on up to the next marker; False when more text is needed."""
        text = self._pending
        for found in _MARK_CHARS.finditer(text):
            i = found.start()
            if _closes_tag(self._recent, text, i):
                continue  # "</think>": a tag's own ">", no recipient's start, whatever follows it
            head = text[i : i + _LONGEST]
            candidates = _WATCHED_BY_START.get(head[:2], ()) if len(head) > 1 else ()  # no marker is one character
            marker = next((m for m in candidates if head.startswith(m)), None)
            if marker is None:
                may_become = head in _FIRST_CHARS if len(head) == 1 else any(m.startswith(head) for m in candidates)
                if not final and len(head) < _LONGEST and may_become:
                    self._pass(out, text[:i])
                    self._pending = text[i:]
                    return False  # may still become a marker
                if self._tools and head[0] == "<" and (element := self._element(out, text, i, final)) is not None:
                    return element
                continue
            self._pass(out, text[:i])
            quotable = marker in _QUOTABLE or marker in _TOKENS_SHOWN_IN_CODE or marker == _RECIPIENT_MARK
            quoted = quotable and self._passed().open  # an example: text
            if quoted and marker == "<function_call>" and self._fence_opened_reply():
                self._pending, self._rule = text[i:], _FENCED_FUNCTION_CALL
                return True  # the reply is a fence around the call (read whole, or passed on as written)
            if quoted or (marker in _LINE_OPENERS and not self._passed().blank_line) or (marker == _ACTION_OPEN and not self._tools):
                # an example in code, or a marker inside a sentence; <action> without the tools: ReAct's own
                self._pass(out, marker)
                self._pending = text[i + len(marker) :]
                return True
            if marker == _PYTHON_TAG and self._own_python_tag and self._passed().blank_line:  # the caller reads it
                self._pass(out, marker)
                self._pending = text[i + len(marker) :]
                return True
            self._pending = text[i:]
            return self._open(marker, out, final)
        self._pass(out, text)
        self._pending = ""
        return False

    def _fence_opened_reply(self) -> bool:
        """Whether all the text passed on so far is a fence's opening line (```` ```json ````) and
        whitespace: a marker met now stands first in a fenced block that opened the reply."""
        return len(self._recent) < _TAG_LOOK and not self._rewrote and _FENCE_HEAD.fullmatch(self._recent) is not None

    def _element(self, out: list[str], text: str, i: int, final: bool) -> bool | None:
        """``<`` at ``text[i]``, no family's marker: a call written as an element named after a
        tool when it opens a line outside code (then held as a block: ``_element_rule``); False
        while the tag may still become one; None when it is no such call (text)."""
        if not (text[i - 1] == "\n" if i else self._recent[-1:] in ("", "\n")):
            return None
        if _VALUE_OPENED.search((self._recent + text[max(0, i - _TAG_LOOK) : i])[-_TAG_LOOK:]):
            return None  # the first line of a parameter's value (an HTML tool's <html>): the value's text
        name = element_opening(text, i, self._tools)
        if name is None or (name == "" and final):
            return None
        self._pass(out, text[:i])
        self._pending = text[i:]
        if name == "":
            return False  # may still become a tool's tag
        if self._passed().open:  # shown in a code block: text
            self._pass(out, text[i : i + len(name) + 2])
            self._pending = text[i + len(name) + 2 :]
            return True
        self._rule = _element_rule(name, self._tools.get(name))
        return True

    def _pass(self, out: list[str], text: str) -> None:
        """Pass ``text`` on as it came: kept for ``_quote`` (read late: ``_passed``), and its last
        characters for ``_closes_tag``."""
        self._unread.append(text)
        self._recent = (self._recent + text[-_TAG_LOOK:])[-_TAG_LOOK:]
        out.append(text)

    def _passed(self) -> CodeQuote:
        """``_quote`` once it has read all the text passed on. Read only when a marker asks
        whether it stands in code: a reply with none never pays for it. It reads the same
        pieces in the same order as it would have as they came, so it ends in the same state."""
        for text in self._unread:
            self._quote.feed(text)
        self._unread.clear()
        return self._quote

    def _open(self, marker: str, out: list[str], final: bool) -> bool:
        """Act on a whole marker at the start of the pending text; False when more text is needed."""
        if marker == "<|start|>":
            return self._harmony_start(out, final)
        if marker == _RECIPIENT_MARK:
            return self._functionary(out, final)
        if marker in _TURN_ENDS:
            return self._turn_end(marker, out, final)
        if marker == _EOS:
            return self._eos(out, final)
        if marker == _CITATION_OPEN:
            return self._citation(out, final)
        if marker == _MINIMAX_M3_TOKEN:
            return self._m3_token(out, final)
        if marker in _DROPPED or (marker == _APRIEL_END and self._apriel):
            self._pending = self._pending[len(marker) :]
        elif marker == _APRIEL_END:
            self._pass(out, marker)  # quoted in an answer: text
            self._pending = self._pending[len(marker) :]
        elif marker == "<tool_call>" or marker == "</tool_call>":
            self._tool_call_tag(marker, out)
        elif marker == "<|channel|>":
            self._harmony = True
        else:
            rule = next(rule for opener, rule in _OPENING if opener == marker)
            if rule.read is _read_function and self._in_tool_call:
                out.append(marker)  # Qwen3-Coder's own <tool_call> is open: read where it ends
                self._recent = ""  # no tag of the text passed on is open
                self._pending = self._pending[len(marker) :]
            else:
                self._rule = rule
        return True

    def _tool_call_tag(self, marker: str, out: list[str]) -> None:
        """A Hermes ``<tool_call>`` or ``</tool_call>`` at the start of the pending text, passed on
        for the caller to read; a ``</tool_call>`` in a reply that opened no ``<tool_call>``, outside
        code and not right after a quote, is dropped (after one opened, a close may be an argument's
        text: GLM's ``<arg_value>`` may hold both tags): an orphan close after an answer (Qwen2.5's, which
        Dynamo's ``qwen25`` parser strips: ai-dynamo/frontend-crates PR #61) or after GLM's call
        written without its ``<tool_call>`` (ai-dynamo/dynamo PR #10144), never text."""
        if marker == "<tool_call>" or self._opened_tool_call or self._recent[-1:] == '"' or self._passed().open:
            self._pass(out, marker)
        self._in_tool_call = marker == "<tool_call>"
        self._opened_tool_call = self._opened_tool_call or self._in_tool_call
        self._pending = self._pending[len(marker) :]

    def _turn_end(self, marker: str, out: list[str], final: bool) -> bool:
        """A turn-end token at the start of the pending text: the reply ends there, unless the
        model wrote it as a word (``_turn_end_as_text``: passed on as text); False while that is
        not known yet."""
        as_text = self._turn_end_as_text(marker, final)
        if as_text is None:
            return False
        if as_text:
            self._pass(out, marker)
            self._pending = self._pending[len(marker) :]
        else:
            self._ended = True
            self._pending = ""
        return True

    def _turn_end_as_text(self, marker: str, final: bool) -> bool | None:
        """Whether the turn-end token ``marker`` at the start of the pending text is a word the
        model wrote (``_WORD_TOKEN_AFTER``): after a blank or a double quote on its line and
        followed by a quote or by a blank and a word, as in ``{"query": "what does <|im_end|>
        mean"}`` or a sentence naming the token. A server's token is glued to what ends the turn
        (``...}<|im_end|>``, ``<|eot_id|>assistant``) or ends its line. None while what follows
        it is not known yet."""
        if self._recent[-1:] not in _WORD_TOKEN_BEFORE:
            return False
        after = self._pending[len(marker) : len(marker) + _WORD_TOKEN_LOOK]
        if _WORD_TOKEN_AFTER.match(after) is not None:
            return True
        if not final and len(after) < _WORD_TOKEN_LOOK and _WORD_TOKEN_AFTER_PARTIAL.fullmatch(after) is not None:
            return None
        return False

    def _citation(self, out: list[str], final: bool) -> bool:
        """``<co>`` at the start of the pending text: with its citation close (``_CITATION``) the
        cited text stays, read on, and the tags go; without one (the text ended or went on too
        long) ``<co>`` is text. False while its close may still come."""
        pending = self._pending
        cited = _CITATION.match(pending)
        if cited is not None:
            self._pending = cited.group(1) + pending[cited.end() :]
            return True
        step = len(_CITATION_OPEN)
        run = step  # a <co> right before another can never be a citation (its text holds no <co>)
        while pending.startswith(_CITATION_OPEN, run):
            run += step
        if run == step and not final and len(pending) < _CITATION_HOLD:
            return False
        if run > step:  # all but the run's last passed in one piece: no copy of the rest for each
            run -= step
        self._pass(out, pending[:run])
        self._pending = pending[run:]
        return True

    def _functionary(self, out: list[str], final: bool) -> bool:
        """``>>>`` at the start of the pending text: a Functionary call part is held as a block
        (``_read_functionary``), a text part's ``>>>all`` dropped, anything else passed on as
        text; False while that is not known yet."""
        run = _RECIPIENT_RUN.match(self._pending)
        if run is not None:  # each ">>>" before another ">" is text: passed at once, not three at a time
            cut = len(_RECIPIENT_MARK) * ((run.end() - 1) // len(_RECIPIENT_MARK))
            self._pass(out, self._pending[:cut])
            self._pending = self._pending[cut:]
            return True
        part = _functionary_part(self._pending[:200], final)
        if part is None:
            return False
        if part == "call":
            self._rule = _FUNCTIONARY
        elif part == "all":  # the line break is kept: the lines around it stay apart (``Thought: >>>all\nAction:``)
            self._pending = self._pending[_RECIPIENT_ALL.match(self._pending).end() :]
        else:
            self._pass(out, _RECIPIENT_MARK)
            self._pending = self._pending[len(_RECIPIENT_MARK) :]
        return True

    def _eos(self, out: list[str], final: bool) -> bool:
        """``</s>`` at the start of the pending text: the end of the reply when only whitespace or
        a next turn follows it, else text; False while that is not known yet."""
        after = self._pending[len(_EOS) :].lstrip()
        if not after and not final:
            return False
        if not after or any(after.startswith(end) for end in _TURN_ENDS):
            self._ended = True
            self._pending = ""
            return True
        if not final and any(end.startswith(after) for end in _TURN_ENDS):
            return False
        self._pass(out, _EOS)
        self._pending = self._pending[len(_EOS) :]
        return True

    def _harmony_start(self, out: list[str], final: bool) -> bool:
        """``<|start|>assistant to=functions.x`` before a channel: dropped, the recipient kept."""
        end = self._pending.find("<", 1)
        if end < 0:
            if not final and len(self._pending) < 200:
                return False  # wait for the channel marker
            out.append(self._pending)  # not a header after all
            self._recent = ""  # no tag of the text passed on is open
            self._pending = ""
            return True
        header = self._pending[len("<|start|>") : end]
        glimmer = _GLIMMER_HEADER.fullmatch(header)
        if glimmer is not None and self._pending.startswith(_GLIMMER_MESSAGE, end):  # Glimmer's header
            self._glimmer, self._harmony = glimmer.group(1) or "", True
            self._pending = self._pending[end + len(_GLIMMER_MESSAGE) :]
            return True
        if glimmer is not None and not final and _GLIMMER_MESSAGE.startswith(self._pending[end:]):
            return False  # may still be Glimmer's <|message|>
        to = _RECIPIENT.search(header)
        self._recipient = to.group(1) if to else None
        self._pending = self._pending[end:]
        return True

    def _close(self, out: list[str], final: bool) -> bool:
        """Emit the held block once it ends; False when more text is needed."""
        text = self._pending
        if self._harmony and self._glimmer is not None:
            return self._glimmer_close(out, final)
        if self._harmony:
            end = _harmony_end(text)
            if end is None and not final and _waits_for_harmony_end(text):
                return False
            end = len(text) if end is None else end
            block = text[:end]
            rewritten = _rewrite_harmony(block, self._recipient)
            out.append(block if rewritten is None else rewritten)
            self._recent = ""  # no tag of the text passed on is open
            self._pending = text[end:]
            self._harmony, self._recipient = False, None
            return True
        rule = self._rule
        assert rule is not None
        closer = rule.closer.search(text) if rule.closer is not None else None
        if closer is None and not final:
            return False
        end = closer.end() if closer is not None else len(text)
        if rule.read is _read_python_tag:
            return self._python_tag(out, text)
        block = text[:end]
        first_alone = rule is _FUNCTIONARY_FIRST and not text.startswith(_RECIPIENT_MARK, end)  # no part follows
        calls = [] if first_alone else rule.read(block, self._declared) if rule.declared else rule.read(block)
        if rule.named and (not calls or (self._names is not None and any(n not in self._names for n, _ in calls))):
            # no call, or a call to no tool of the node: its marker is text, and what follows it is
            # read again as any text is (a family's markup after a tag never closed is acted on)
            marker = next(opener for opener in rule.openers if text.startswith(opener))
            self._pass(out, marker)
            self._pending, self._rule = text[len(marker) :], None
            return True
        if not calls and rule in (_FUNCTIONARY, _FUNCTIONARY_FIRST):
            return self._functionary_text(out, text)
        if rule.bare and self._in_tool_call:  # the model's own <tool_call> wraps it
            rewritten = "\n".join(json.dumps({"name": n, "arguments": a}, ensure_ascii=False) for n, a in calls)
        else:
            rewritten = "".join(_tool_call(name, arguments) for name, arguments in calls)
        if calls and closer is None and rule.closer is not None and rule is not _FUNCTIONARY:  # ended inside:
            rewritten = rewritten.removesuffix("</tool_call>")  # left open, as the model left it (a cut reply)
        out.append(rewritten if calls else "" if calls is _EMPTY else block)
        self._recent = ""  # no tag of the text passed on is open
        self._rewrote = self._rewrote or bool(calls)
        self._pending = text[end:]
        self._rule = None
        self._stray_close = bool(calls) and rule.read is _read_function
        return True

    def _glimmer_close(self, out: list[str], final: bool) -> bool:
        """Emit the held Glimmer message once it ends (``_glimmer_end``, ``_rewrite_glimmer``);
        False when more text is needed."""
        assert self._glimmer is not None
        end = _glimmer_end(self._pending, final)
        if end is None:
            return False
        out.append(_rewrite_glimmer(self._pending[: end[0]], self._glimmer, self._names))
        self._recent = ""  # no tag of the text passed on is open
        self._rewrote = True
        self._pending = self._pending[end[1] :]
        self._harmony, self._glimmer = False, None
        return True

    def _python_tag(self, out: list[str], text: str) -> bool:
        """A held ``<|python_tag|>`` block (``text``: the pending text from its token, at the end
        of the text): its calls rewritten as ``<tool_call>`` blocks and what follows the last one
        read again as any text is (a sentence after the call is the answer's, another family's
        markup acted on); no call (Llama's code interpreter, a JSON example): the token passed on
        as text and what follows it read again."""
        # a token read before as part of calls that ended in no call reads so again (the text
        # is held to its end: read from the end, it is the same place), not once for each token
        tokens: list[int] = []
        calls, end = ([], 0) if len(text) in self._no_python_calls else python_tag_calls(text, tokens)
        if not calls:
            self._no_python_calls.update(len(text) - at for at in tokens)
        if calls:
            out.append("".join(_tool_call(name, arguments) for name, arguments in calls))
            self._recent = ""  # no tag of the text passed on is open
            self._pending = text[end:]
        else:
            self._pass(out, _PYTHON_TAG)
            self._pending = text[len(_PYTHON_TAG) :]
        self._rule = None
        self._stray_close = False
        return True

    def _functionary_text(self, out: list[str], text: str) -> bool:
        """A held Functionary part (``text``: the pending text from its start) that is no call:
        its first line (``>>>NAME`` or ``NAME``) is passed on as text, and what follows it is read
        again as any text is, so that a turn-end token or another family's markup held with the
        part (its end was not known) is acted on, not passed on as written."""
        line = text.find("\n") + 1 or len(text)
        self._pass(out, text[:line])
        self._pending = text[line:]
        self._rule = None
        self._stray_close = False
        return True

    def _m3_token(self, out: list[str], final: bool) -> bool:
        """MiniMax-M3's token (``_MINIMAX_M3_TOKEN``) outside a held block, by the tag after it:
        a ``</tool_call>`` with no ``<tool_call>`` open is dropped with the token (a stray close
        after an answer or after a bare invoke read); an argument element (``_M3_ORPHAN_ELEMENT``)
        keeps the token, passed on as markup not read (``MARKUP_OPENERS``: no call runs on a
        guess, the reply is asked again and never shown); before anything else the token alone
        is dropped. False while the tag after it is not known yet."""
        rest = self._pending[len(_MINIMAX_M3_TOKEN) :]
        if not final and rest[:1] in ("", "<") and len(rest) < _M3_LOOK and ">" not in rest:
            return False  # its tag is still coming
        if not self._in_tool_call and rest.startswith("</tool_call>"):
            self._pending = rest[len("</tool_call>") :]
        elif _M3_ORPHAN_ELEMENT.match(rest):
            self._pass(out, _MINIMAX_M3_TOKEN)
            self._pending = rest
        else:
            self._pending = rest
        return True

    def _drop_stray_close(self, final: bool) -> bool:
        """Drop the ``</tool_call>`` that closes a bare ``<function=`` block; False when it may
        still come."""
        text = self._pending
        start = _SPACE.match(text).end()
        if text.startswith("</tool_call>", start):
            self._pending = text[start + len("</tool_call>") :]
        elif not final and "</tool_call>".startswith(text[start:]):
            return False
        self._stray_close = False
        return True


def _harmony_end(text: str) -> int | None:
    """Where the Harmony message at the start of ``text`` ends: after ``<|end|>``/``<|call|>``/
    ``<|return|>``, or before the next ``<|start|>``/``<|channel|>``; None if not yet."""
    ends = [at + len(end) for end in _HARMONY_ENDS if (at := text.find(end)) >= 0]
    ends += [at for start in ("<|start|>", "<|channel|>") if (at := text.find(start, 1)) >= 0]
    return min(ends, default=None)


def _waits_for_harmony_end(text: str) -> bool:
    """Whether a Harmony message may still be going on (always, unless it holds no header at
    all after a generous look)."""
    return "<|message|>" in text or len(text) < 400


def ends_turn(text: str) -> bool:
    """Whether ``text`` holds a token that ends the model's turn (``_TURN_ENDS``): in reasoning,
    the sign that the model never left it, so that it was the reply (DeepSeek V4 on vLLM, whose
    reasoning parser took a reply without thinking for reasoning: vllm-project/vllm#48748)."""
    return "<" in text and any(end in text for end in _TAG_TURN_ENDS)


_TAG_TURN_ENDS: Final = tuple(end for end in _TURN_ENDS if end[0] == "<")


def rewrite_markup(text: str, tools: Mapping[str, Any] | None = None) -> str:
    """``text`` with every native call markup rewritten (``CallMarkup`` over the whole text);
    with ``tools`` (name -> declaration or None), a tool's element too (``_element_rule``)."""
    head = text.lstrip()
    if not _ANY_MARK_CHAR.search(text) and not head.startswith((_BARE_ANALYSIS, _RECIPIENT_MARK)) and not _THOUGHTS_START.match(head):
        return text
    markup = CallMarkup(tools=tools)
    return markup.feed(text) + markup.finish()


CALL_FENCES: Final = ("```tool_code", "```tool_call")
"""Code blocks that announce a call (Gemini's and Gemma's ```tool_code)."""

_CALL_FENCE_LINE = re.compile(r"^[ \t]{0,3}```[ \t]*+tool_(?:code|call)\b[^\n]*+$", re.IGNORECASE | re.MULTILINE)
_FENCE_CLOSE_LINE = re.compile(r"^[ \t]{0,3}```+[ \t]*+$", re.MULTILINE)
_CODE_CALL_HEAD = re.compile(r"\s*+(?:\[\s*+)?(?:print\(\s*+)?(?:default_api\.)?([A-Za-z_][\w.\-]*+)\(")


def open_call_fence(text: str, tool_names: Iterable[str]) -> bool:
    """Whether ``text`` (a reply's visible text) ends inside a code block that announces a call
    (a line opening ``CALL_FENCES``) and names one of ``tool_names`` after that line: a call the
    reply never closed (the output limit cut it, or the model stopped short), not an answer's
    code. An answer that shows such a block closes it. Linear in ``text``."""
    body = _open_block_body(_CALL_FENCE_LINE, text)
    return body is not None and any(name and name in body for name in tool_names)


def _open_block_body(opening: re.Pattern[str], text: str) -> str | None:
    """What follows the last line of ``text`` that ``opening`` matches, when no closing fence
    line follows it (a block ``text`` leaves open); None otherwise. Linear in ``text``."""
    last = None
    for last in opening.finditer(text):  # noqa: B007 (the last one is wanted)
        pass
    if last is None:
        return None
    body = text[last.end() :]
    return body if _FENCE_CLOSE_LINE.search(body) is None else None


def open_code_call(text: str, tool_names: Iterable[str]) -> bool:
    """Whether ``text`` (a reply's visible text) is a call written as code that never closed: it
    opens with one of ``tool_names`` and ``(`` (also as Gemini writes it, ``default_api.NAME(``
    inside a call of Python's ``print``, or first in Llama's list of calls, ``[NAME(``) and has more ``(`` than ``)``. A reply the output
    limit cut so is a cut call, never an answer."""
    head = _CODE_CALL_HEAD.match(text)
    return head is not None and head.group(1) in set(tool_names) and text.count("(") > text.count(")")


_CODE_CALL_SO_FAR = re.compile(r"\s*+(?:\[\s*+)?(?:print\(\s*+)?(?:default_api\.)?([A-Za-z_][\w.\-]*+)?")
"""What a text may be while it still opens as ``_CODE_CALL_HEAD`` would, before its ``(``."""
CODE_CALL_HEAD_MAX: Final = 1000
"""Characters of a text ``code_call_start`` still reads as undecided: whitespace goes no further."""


def code_call_start(text: str, tool_names: Collection[str]) -> bool | None:
    """Whether ``text`` (the start of a reply's visible text, as streamed so far) opens a call of
    one of ``tool_names`` written as code (``open_code_call``'s head: ``lookup(``, ``[lookup(``,
    ``default_api.lookup(`` inside Python's ``print``): True; False when it cannot (a word no tool's name starts
    with, another name before ``(``, ``CODE_CALL_HEAD_MAX`` characters or more undecided); None
    while more text may still make it one (``look``, whitespace, the opening of a ``print``
    call). Linear in ``text``."""
    if len(text) >= CODE_CALL_HEAD_MAX:
        return False
    so_far = _CODE_CALL_SO_FAR.fullmatch(text)
    if so_far is not None:
        word = so_far.group(1) or ""
        if any(name.startswith(word) for name in tool_names) or "print".startswith(word) or "default_api".startswith(word):
            return None
    head = _CODE_CALL_HEAD.match(text)
    return head is not None and head.group(1) in tool_names


PYTHON_FENCES: Final = frozenset({"python", "py"})
"""Code block languages whose block may hold a call of a node tool written as Python
(``lookup(q="a")``: Gemini and Llama write calls so) or ordinary code."""
_PYTHON_FENCE_LINE = re.compile(r"[ \t]{0,3}```[ \t]*+(?:python|py)[ \t]*+\n", re.IGNORECASE)
_PYTHON_FENCE_SO_FAR = re.compile(r"[ \t]{0,3}(?:`{1,3}(?:[ \t]*+(?:p(?:y(?:t(?:h(?:o(?:n)?)?)?)?)?)?[ \t]*+)?)?", re.IGNORECASE)


def python_call_fence_head(line: str, tool_names: Collection[str]) -> bool | None:
    """Whether a line that starts with ``line`` opens a ```` ```python ```` (or ```` ```py ````)
    block whose first content line opens a call of one of ``tool_names`` written as code
    (``code_call_start``: ``lookup(``): True; False when it cannot (another language, ordinary
    code, ``_PYTHON_HEAD_MAX`` characters or more undecided); None while it may still."""
    opening = _PYTHON_FENCE_LINE.match(line)
    if opening is None:
        undecided = len(line) < _PYTHON_HEAD_MAX and _PYTHON_FENCE_SO_FAR.fullmatch(line) is not None
        return None if undecided else False
    start = code_call_start(line[opening.end() :], tool_names)
    return start if start is not None or len(line) < _PYTHON_HEAD_MAX else False


_PYTHON_HEAD_MAX: Final = 240
"""Characters of a line ``python_call_fence_head`` still reads as undecided (a reader passes it
a line's first few hundred characters at most)."""


def open_fenced_call(text: str, tool_names: Collection[str]) -> bool:
    """Whether ``text`` (a reply's visible text, one the output limit cut) ends inside a code
    block that is a cut call: one announcing a call (``CALL_FENCES``) that names one of
    ``tool_names`` (``open_call_fence``) or holds nothing yet, or a ``PYTHON_FENCES`` block whose code is a call of
    one that never closed (``open_code_call``: ``lookup(q='a``). Linear in ``text``."""
    if open_call_fence(text, tool_names) or _EMPTY_CALL_FENCE.search(text) is not None:
        return True
    body = _open_block_body(_PYTHON_FENCE_OPENING, text)
    return body is not None and open_code_call(body, tool_names)


_EMPTY_CALL_FENCE = re.compile(r"^[ \t]{0,3}```[ \t]*+tool_(?:code|call)\b[^\n]*+\s*+\Z", re.IGNORECASE | re.MULTILINE)
"""A block announcing a call (``CALL_FENCES``) that ends the text with nothing in it yet."""
_PYTHON_FENCE_OPENING = re.compile(r"^[ \t]{0,3}```[ \t]*+(?:python|py)[ \t]*+\n", re.IGNORECASE | re.MULTILINE)


_PYTHON_START: Final = "<|python_start|>"
_HELD_FROM: Final = ("<tool_call>", "<tool_code>", *MARKUP_OPENERS, *CALL_FENCES, _PYTHON_START)
"""Where a streamed answer stops: a ``<tool_call>`` (what ``CallMarkup`` writes), markup it
could not read, a block that announces a call, or Llama 4's ``<|python_start|>`` (a list of calls
as code follows it: ``text_calls._code_after_text``)."""
_HOLD_CHARS = re.compile(r"[<\[`✿]")


def markup_start(text: str, quote: CodeQuote | None = None, before: str = "") -> int | None:
    """Index of the first call marker in ``text`` (``<tool_call>`` or ``MARKUP_OPENERS``), or None.
    With ``quote`` (the state of the text before ``text``, ``before`` its last characters), a
    family's markup inside a code span or block is an example the answer shows, skipped, as is
    a ``<tool_call>`` right after MiniMax-M3's token (``text_calls.after_m3_token``) or a double
    quote (``text_calls.in_a_string``)."""
    if quote is None:
        found = [at for marker in _HELD_FROM if (at := text.find(marker)) >= 0]
        return min(found, default=None)
    probe, read = quote.copy(), 0
    for match in _HELD_PATTERN.finditer(text):
        probe.feed(text[read : match.start()])
        read = match.start()
        quoted = (match.group() in _QUOTABLE and probe.open) or probe.in_span  # in a code span: never a call
        quoted = quoted or (
            match.group() == "<tool_call>"
            and (after_m3_token(text, match.start(), before) or in_a_string(text, match.start(), before))
        )
        in_sentence = match.group() == _BARE_INVOKE and not probe.blank_line  # Claude's, as an example
        if not quoted and not in_sentence:
            return match.start()
    return None


_HELD_BY_START: Final = _by_start(_HELD_FROM)
_QUOTABLE: Final = frozenset(
    {*(opener for opener, _ in _OPENING), "<|channel|>", "<|start|>", _PYTHON_START, _GLIMMER_MESSAGE, _ATEM_OPEN,
     *_INKLING_CALL_TOKENS, _MINIMAX_M3_TOKEN}
)
"""Markers that are an example, not a call, inside a code span or block (``CodeQuote``): a
family's own markup. ``<tool_call>`` and call fences are read wherever they stand."""
_TOKENS_SHOWN_IN_CODE: Final = frozenset({*_TURN_ENDS, *_DROPPED, _EOS, _CITATION_OPEN})
"""Special tokens an answer shows as code (a chat template, a tokenizer's output in a code span
or block: ``CodeQuote``) are its text: a server passes a real one on where the turn ends, which
is not inside code the answer opened. Elsewhere they end the turn or are dropped."""
_HELD_PATTERN = re.compile("|".join(re.escape(marker) for marker in sorted(_HELD_FROM, key=len, reverse=True)))


def partial_markup(text: str) -> int:
    """Length of the longest tail of ``text`` that may still grow into a call marker."""
    for found in _HOLD_CHARS.finditer(text, max(0, len(text) - _LONGEST)):
        tail = text[found.start() :]
        candidates = _HELD_BY_START.get(tail[:2], ()) if len(tail) > 1 else _HELD_FROM
        if any(marker.startswith(tail) for marker in candidates):
            return len(tail)
    return 0


CUT_OPENER_MIN: Final = 5
"""How long a cut call marker at a reply's end must be (``cut_opener``): ``<tool`` is one,
``<t`` or ``<a`` is no more than an answer's ``<``, characters."""


def cut_opener(text: str) -> bool:
    """Whether ``text`` (a reply's text) ends, blanks aside, with a call marker cut before it was
    whole: a start of ``<tool_call>``, ``<atem:function_calls>``... (``_HELD_FROM``) of at least
    ``CUT_OPENER_MIN`` characters opening with ``<``, not the whole marker. vllm-project/vllm#55395:
    Muse Glimmer's reply ended on ``<atem:function_calls`` when the output limit came; read at
    the end of a reply that limit cut (a reply that stopped of itself there said what it meant),
    that is a call cut short, never the answer's last words."""
    body = text.rstrip()
    tail = partial_markup(body)
    return tail >= CUT_OPENER_MIN and body[-tail] == "<" and body[-tail:] not in _HELD_FROM


def holds_call_markup(text: str, tool_names: Iterable[str] = ()) -> bool:
    """Whether ``text`` holds a tool call it failed to be read as: call markup of any family
    (``MARKUP_OPENERS``, ``[TOOL_CALLS]``...) outside a code span or block (inside one it is an
    example the answer shows, never read as a call: ``CodeQuote``), ``<tool_call>`` anywhere (it
    is read wherever it stands), or an envelope naming one of ``tool_names``
    (``text_calls.mentions_call_markup``)."""
    outside = _outside_code(text) if "`" in text or "~~~" in text else text
    if _IN_A_STRING in outside:  # a string's text, not a call (text_calls.in_a_string)
        outside = outside.replace(_IN_A_STRING, '"')
    if any(marker in outside for marker in MARKUP_OPENERS) or mentions_call_markup(outside, tool_names):
        return True
    return _read_anywhere(text) or envelope_name(text) in set(tool_names)


_CLOSERS_ONLY = re.compile(r"\s*+(?:(?:</[A-Za-z_][\w:.-]*+>|<\|[\w.]*+\|>|<｜[^｜<>\n]*+｜>)\s*+)++")


def closes_markup_only(text: str) -> bool:
    """Whether ``text`` holds nothing but closing tags and special tokens (``</parameter>``,
    ``</function>``, ``</tool_call>``, ``<|tool_calls_section_end|>``, ``<｜tool▁calls▁end｜>``)
    and whitespace: the content of a reply whose call began in its reasoning, the server having
    ended the reasoning inside that call (a ``</think>`` the model wrote there: ggml-org/llama.cpp
    #27661). Such content is the call's end, never an answer; the reply's calls are read from its
    reasoning and that content together. Time linear in ``len(text)``."""
    return bool(text.strip()) and _CLOSERS_ONLY.fullmatch(text) is not None


_IN_A_STRING: Final = '"<tool_call>'
_BLOCKQUOTE_LINE = re.compile(r"^[ \t]{0,3}>.*$\n?", re.MULTILINE)


def markup_all_quoted(text: str, tool_names: Iterable[str] = ()) -> bool:
    """Whether all the call markup ``text`` holds (``holds_call_markup``) stands in quoted text: a
    fenced code block, a code span or a markdown blockquote (lines opening with ``>``), so that
    with those left out none is left. The answer shows such markup (a tutorial, an MCP tools
    list, a call quoted from a log); a call the model means to make is written outside them.
    False when markup stands outside, or ``text`` holds none. Linear in ``text``."""
    return holds_call_markup(text, tool_names) and not markup_outside_quoted(text, tool_names)


def markup_outside_quoted(text: str, tool_names: Iterable[str] = ()) -> bool:
    """Whether ``text`` holds call markup (``holds_call_markup``) outside quoted text: with its
    fenced blocks, code spans and blockquote lines left out, some is left. That is how a model
    writes a call it means to make, read or not. Linear in ``text``."""
    unquoted = _BLOCKQUOTE_LINE.sub("", text) if ">" in text else text
    return holds_call_markup(_outside_code(unquoted) if "`" in unquoted or "~~~" in unquoted else unquoted, tool_names)


def _read_anywhere(text: str) -> bool:
    """Whether ``text`` holds ``<tool_call>`` (or ``<tool_code>``) outside a code span: in a
    sentence or a fenced block it may be a call, in `` `<tool_call>` `` it is a tag named, as it
    is right after MiniMax-M3's token (kept only in code: ``text_calls.after_m3_token``) or a
    double quote (a string's text: ``text_calls.in_a_string``)."""
    probe, read = CodeQuote(), 0
    for match in _READ_ANYWHERE.finditer(text):
        probe.feed(text[read : match.start()])
        read = match.start()
        if not probe.in_span and not after_m3_token(text, match.start()) and not in_a_string(text, match.start()):
            return True
    return False


_READ_ANYWHERE = re.compile(r"<tool_call>|<tool_code>", re.IGNORECASE)
_CODE_PIECES = re.compile(r"(`+|~+|\n)")


def _outside_code(text: str) -> str:
    """``text`` without its code spans' and fenced blocks' backticks, tildes and contents, as
    ``CodeQuote`` reads them (its line breaks kept)."""
    quote, kept = CodeQuote(), []
    for piece in _CODE_PIECES.split(text):
        if piece == "\n" or (piece and piece[0] != "`" and not quote.open):
            kept.append(piece)
        quote.feed(piece)
    return "".join(kept)
