"""Streaming separation of reasoning blocks (``<think>…</think>``) from visible text.

Reasoning models (DeepSeek-R1, Qwen3, QwQ…) write their reasoning inline in
the content, wrapped in ``<think>`` (some ``<thinking>`` or ``<reasoning>``; EXAONE Deep in
``<thought>``, Seed-OSS in ``<seed:think>``, MiniMax-M3 in ``<mm:think>``, Magistral in ``[THINK]``, Kimi-VL in ``◁think▷``,
PLaMo 3 in ``<|plamo:begin_think:plamo|>``, Solar Open 2 in ``<|think:start|>``, K2 Horizon in ``<ifm|think>``,
Apertus 1.5 in ``<|inner_prefix|>``;
Gemma 4 in its thought channel; old model plugins in an HTML ``<details>`` block, ``DETAILS_OPEN``).
It belongs in the thought log, never in the answer nor the next prompt.
Tags may be split across chunks; an unclosed block runs to the end. A ``<response>`` or
``<answer>`` wrapper right after a reasoning block, closed at the end of the reply, is the reply's
frame, not its text (``RESPONSE_WRAPPERS``).
"""

import functools
import html
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from agent_core.call_markup import CodeQuote

_THINK_TAGS = ("<think>", "<thinking>", "<reasoning>", "<thought>", "<seed:think>", "<mm:think>")

DETAILS_OPEN = (
    '<details style="color:gray;background-color: #f8f8f8;padding: 8px;border-radius: 4px;" open> '
    "<summary> Thinking... </summary>"
)
"""How model plugins built on dify-plugin before 0.0.1b73 wrapped ``reasoning_content`` in the
content (an HTML block, closed by ``</details>``); plugins that old are still installed. Only
this exact opener starts a reasoning block: any other ``<details>`` is the answer's own HTML."""

_KIMI_OPEN, _KIMI_CLOSE = "◁think▷", "◁/think▷"
"""Kimi-VL-Thinking's reasoning tags (the ``thought_words`` of its template in LLaMA-Factory;
vLLM's ``kimi`` reasoning parser reads the same, and so do Dynamo's and others)."""

_K3_OPEN, _K3_CLOSE = "<|open|>think<|sep|>", "<|close|>think<|sep|>"
"""Kimi K3's reasoning channel (its XTML: vLLM's ``kimi_k3`` tool parser; the opener is often
the prompt's, so the reply may hold only the close)."""

_PLAMO_OPEN, _PLAMO_CLOSE = "<|plamo:begin_think:plamo|>", "<|plamo:end_think:plamo|>"
"""PLaMo 3's reasoning tags (vLLM's ``plamo3`` reasoning parser; its template may open the block in
the prompt, so the reply may hold only the end)."""

_SOLAR_OPEN, _SOLAR_CLOSE = "<|think:start|>", "<|think:end|>"
"""Solar Open 2's reasoning tokens (vLLM's ``solar_open2`` reasoning parser: its template opens the
block in the prompt at medium and high effort, so the reply holds only the end)."""

_IFM_BLOCKS: Final = {"<ifm|think>": "</ifm|think>", "<ifm|think_fast>": "</ifm|think_fast>",
                      "<ifm|think_faster>": "</ifm|think_faster>"}
"""K2 Horizon's reasoning tags, one pair per reasoning effort (high, medium, low: vLLM's
``k2_horizon`` reasoning parser; the template opens the block, so the reply may hold only its end)."""

_APERTUS_OPEN, _APERTUS_CLOSE = "<|inner_prefix|>", "<|inner_suffix|>"
"""Apertus 1.5's reasoning tokens (Ollama's ``apertus1.5`` parser and its tests: a prompt that
continues the model's reasoning leaves the block open, so the reply may hold only its end)."""

_SEED_BUDGET_OPEN, _SEED_BUDGET_CLOSE = "<seed:cot_budget_reflect>", "</seed:cot_budget_reflect>"
"""Seed-OSS's note on its thinking budget (``Token usage: 45/1000\nI should continue thinking...``:
its model card; llama.cpp's Seed-OSS parser test has one right after ``</seed:think>``): the
model's reasoning about its reasoning, never the answer's text."""

_SIGNED_THINK: Final = "<think signature="
"""A ``<think>`` with a signature attribute: the form some clients replay a Gemini turn's reasoning
in (``<think signature="reasoning-details://...">``), which Gemini through OpenRouter may copy
back into its own answer (UKGovernmentBEIS/inspect_ai PR #4979). A block opener like
``<think>``; the attribute's rest (up to the tag's ``>``) is read with the reasoning."""

_BLOCKS = {
    **{tag: "</" + tag[1:] for tag in _THINK_TAGS},
    _SIGNED_THINK: "</think>",
    _SEED_BUDGET_OPEN: _SEED_BUDGET_CLOSE,
    DETAILS_OPEN.lower(): "</details>",
    "<|channel>thought": "<channel|>",
    "[think]": "[/think]",
    _KIMI_OPEN: _KIMI_CLOSE,
    _K3_OPEN: _K3_CLOSE,
    "<|start_thinking|>": "<|end_thinking|>",
    _SOLAR_OPEN: _SOLAR_CLOSE,
    _PLAMO_OPEN: _PLAMO_CLOSE,
    _APERTUS_OPEN: _APERTUS_CLOSE,
    **_IFM_BLOCKS,
}
"""Opening tag (lower case) -> its closing tag; Gemma 4's thought channel
(``<|channel>thought\n...<channel|>``, NousResearch/hermes-agent#48412), and Magistral's
``[THINK]...[/THINK]`` (vLLM's ``mistral`` reasoning parser reads the same), taken only in
upper case: ``[Think]`` may be a markdown link's text; Command R7B and Command A's
``<|START_THINKING|>...<|END_THINKING|>`` (transformers' chat-schema parser tests,
``test_cohere_template``)."""

RESPONSE_WRAPPERS = {
    "<response>": "</response>", "<answer>": "</answer>", "<final_answer>": "</final_answer>", "<final>": "</final>",
}
"""Tags some templates put around the reply after its reasoning: Granite 3.3 (its chat template:
"write your thoughts between <think></think> and write your response between
<response></response>"; llama.cpp's Granite chat parser), ERNIE-X1 (``...</think>\n\n<response>
\n...\n</response>``: PaddlePaddle/FastDeploy's ``ernie_x1`` reasoning parser), and the
DeepSeek-R1-Zero template ("<think> reasoning process here </think> <answer> answer here
</answer>", arXiv:2501.12948) that RL-tuned models keep, and Hunyuan-A13B (``<think>\n...\n</think>
\n<answer>\n...\n</answer>``: vLLM's ``hunyuan_a13b`` reasoning parser), and the XML-tagged ReAct
step's ``<thought>...</thought>\n<final_answer>...</final_answer>`` (lamalab-org/corral PR #192), and the
``<think>...</think><final>...</final>`` that agent gateways' reasoning-tag prompts ask for and
providers return in the content (sipeed/picoclaw#1235, after OpenClaw's). Only a wrapper that opens
right after a reasoning block (a closed block, or reasoning that came apart from the content:
``ThinkSplitter.note_reasoning_apart``) is dropped, and a closing tag only where nothing but
whitespace follows it to the end of the reply: its frame's, or one that closes nothing after
reasoning or on a line of its own while no such tag was read as text (a server that took the reasoning and the opening tag out but left
the end: vllm-project/vllm#58127). Anywhere else they are the answer's own text (a reply asked
to use such tags keeps them)."""
_STEP_ANSWER: Final = "<final_answer>"
"""The XML-tagged ReAct step's answer element: a frame at the reply's start too, with no reasoning
before it (a reply that is only ``<final_answer>...</final_answer>``); ``<answer>`` and
``<response>`` are a frame only after reasoning (a reply asked to use those tags keeps them)."""
_TAG_CHARS = "<[◁"
_OPEN_TAGS = tuple(_BLOCKS)

DEEPSEEK_REASONING_MARK = "<!--dify-deepseek-reasoning-->"
"""DeepSeek's model plugin opens its ``<think>`` block with this comment and HTML-escapes the
reasoning inside (``models/deepseek/models/llm/llm.py`` in ``langgenius/dify-official-plugins``),
so that it can recover ``reasoning_content`` from exactly that block when it comes back."""


_OPENED_IN_PROMPT = re.compile(
    r"qwq|deepseek[-_ ]?r1|r1[-_ ]distill|qwen3[-\w.]*?[-_ ]thinking|thinking[-_ ]?2507|minimax[-_ ]?m2"
    r"|ernie[-\w.]*?[-_ ]thinking|ernie[-_ ]?x1",
    re.IGNORECASE,
)


def opens_reasoning_in_prompt(model: str) -> bool:
    """Whether ``model``'s chat template opens its reasoning block in the prompt, so that a reply
    served without a reasoning parser holds only the closing ``</think>``: QwQ, DeepSeek-R1 and
    its distills (the template ends with ``<think>\\n``), Qwen3's thinking-only models
    (``Qwen3-235B-A22B-Thinking-2507``, ``Qwen3-Next-80B-A3B-Thinking``, whose model cards say
    the output may hold only ``</think>``), MiniMax-M2, ERNIE-4.5's thinking models and ERNIE-X1
    (served without a reasoning parser their replies start inside the block: FastDeploy's
    ``ernie_x1`` reasoning parser reads the text before ``</think>`` as the reasoning). A hybrid
    model (Qwen3, Qwen3.5) may run with thinking off, so its name alone does not say it; a run
    learns it from a first such reply."""
    return bool(model) and _OPENED_IN_PROMPT.search(model) is not None


_SELF_SERVED: Final = frozenset(
    {
        "ollama", "openai_api_compatible", "lm_studio", "lmstudio", "xinference", "localai", "gpustack",
        "vllm", "llamacpp", "llama_cpp", "openllm", "huggingface_tgi", "triton_inference_server", "oaicompat",
    }
)
"""Model plugins whose replies come from a server the user runs, rendered through the chat
template the user's server holds (Ollama, vLLM, llama.cpp, LM Studio, Xinference, LocalAI,
GPUStack and the OpenAI-API-compatible plugin in front of any of them)."""


def template_may_open_reasoning(provider: str) -> bool:
    """Whether a reply from ``provider``'s model (the model-selector's ``provider``, as
    ``langgenius/ollama/ollama`` or ``ollama``) may start inside a reasoning block the server's
    chat template opened, whatever the model's name says: a self-served model (``_SELF_SERVED``)
    under a name of the user's choosing (a QwQ or DeepSeek-R1 distill served by llama.cpp as
    ``local-model``). A hosted API sends reasoning apart or in a block it opens itself."""
    name = (provider or "").rstrip("/").rsplit("/", 1)[-1].lower()
    return name in _SELF_SERVED


_THINKING_SWITCHES = ("enable_thinking", "thinking", "think")
"""Completion parameters with which a user turns a model's thinking on (Qwen3 and vLLM's
``enable_thinking``, Anthropic's ``thinking``, Ollama's ``think``)."""


def thinking_requested(completion_params: Mapping[str, Any] | None) -> bool:
    """Whether the model-selector's completion parameters turn thinking on (``true``,
    ``"true"``, ``{"type": "enabled"}``). A thinking model whose server has no reasoning parser
    then writes its reasoning in the reply, and its template may have opened the block."""
    for key in _THINKING_SWITCHES:
        value = (completion_params or {}).get(key)
        if isinstance(value, Mapping):
            value = value.get("type") in ("enabled", "adaptive")
        if value is True or (isinstance(value, str) and value.strip().lower() in ("true", "enabled", "on")):
            return True
    return False


def closes_unopened_block(text: str) -> bool:
    """Whether ``text`` (a reply as the model wrote it) has a bare ``</think>`` with no block
    open: the end of a block its chat template opened in the prompt (the one such templates
    open; a later reply is then held until it, ``ThinkSplitter(opened=True)``). A closing tag
    right after a block the reply closed (only whitespace between) is that block closed again,
    as Anthropic's plugin 0.3.33 closes a thinking block before ``tool_use`` twice
    (``local_runner/contracts/anthropic.py``): no template opened a block there (wave 37's
    campaign: every later reply of the run was held as reasoning, and a cut answer was lost)."""
    lowered = text.lower()
    if not _OPENED_CLOSES_FOUND(lowered):  # one scan of the reply for them all, not one a tag
        return False
    splitter = ThinkSplitter()
    shown: list[str] = []
    closed = False  # a block of the reply ended, and nothing but whitespace came after it
    for kind, piece in splitter.pieces(text) + splitter.release_pieces(ended=True):
        if kind == VISIBLE:
            shown.append(piece)
            closed = closed and not piece.strip()
        elif kind == BLOCK_END:
            closed = True
        elif kind == STRAY_END and not closed and not _in_json_string("".join(shown)):
            return True
    return False


_UNESCAPED_QUOTE: Final = re.compile(r'(?<!\\)"')


def _in_json_string(before: str) -> bool:
    """Whether a tag after ``before`` (the visible text up to it) stands inside a JSON string of
    its line: the line holds a ``{`` and an odd number of unescaped quotes after it (a ReAct
    action's input ``{"q": "</think>"}``: the argument's text, not the end of reasoning a
    template opened; read so, every later reply of the run was held for a ``</think>``)."""
    line = before.rpartition("\n")[2]
    brace = line.find("{")
    return brace >= 0 and len(_UNESCAPED_QUOTE.findall(line, brace)) % 2 == 1


_SIGNATURE_REST: Final = re.compile(r'\s*"[^"\n<>]*"\s*>')
"""The rest of a ``<think signature="...">`` opener (``_SIGNED_THINK``), read at the start of its
block's reasoning."""


def clean_reasoning(reasoning: str) -> str:
    """Reasoning as a person should read it in the log: without DeepSeek's marker, its HTML
    escapes undone (only when the marker shows the text was escaped), and without the signature
    of a ``<think signature="...">`` opener (``_SIGNED_THINK``) it starts with."""
    if reasoning.startswith('"') and (rest := _SIGNATURE_REST.match(reasoning)):
        reasoning = reasoning[rest.end() :].lstrip("\n")
    if DEEPSEEK_REASONING_MARK not in reasoning:
        return reasoning
    return html.unescape(reasoning.replace(DEEPSEEK_REASONING_MARK, "")).strip("\n")


@dataclass(frozen=True, slots=True)
class Split:
    """Text of one feed, divided: ``visible`` for the user, ``reasoning`` for the log."""

    visible: str = ""
    reasoning: str = ""


_NOTHING: Final = Split()


def _partial_suffix(text: str, tags: tuple[str, ...]) -> int:
    """Length of the longest suffix of ``text`` that is a proper prefix of a tag (every tag
    starts with one of ``_TAG_CHARS``, so only the suffixes from one of those are tried)."""
    longest, prefix_at_end = _tag_prefixes(tags)
    window = text[-(longest - 1) :]
    if not _may_hold_tag(window):
        return 0  # the usual case: no tag can be starting
    found = prefix_at_end.search(window.lower())  # the leftmost start: the longest suffix
    return len(found.group()) if found else 0


@functools.cache
def _tag_prefixes(tags: tuple[str, ...]) -> tuple[int, re.Pattern[str]]:
    """The longest of ``tags`` (characters), and a pattern of every prefix of each (the tag itself
    too) at the end of a text: the tags' characters as a tree, read in one search (a text of ``<``
    or ``[`` only tried each of its suffixes in Python, at the end of every chunk)."""
    return max(len(tag) for tag in tags), re.compile(f"(?:{_prefix_tree(set(tags))})\\Z")


def _prefix_tree(words: set[str]) -> str:
    """A pattern matching every non-empty prefix of ``words`` (a tree of optional groups)."""
    rests: dict[str, set[str]] = {}
    for word in words:
        rests.setdefault(word[0], set()).add(word[1:])
    branches = []
    for first, after in sorted(rests.items()):
        below = {rest for rest in after if rest}
        branches.append(re.escape(first) + (f"(?:{_prefix_tree(below)})?" if below else ""))
    return "|".join(branches)




def _may_hold_tag(text: str) -> bool:
    """Whether a tag may start in ``text`` (every tag starts with one of ``_TAG_CHARS``; the same
    test is written inline in ``ThinkSplitter.feed`` and ``pieces``, a chunk's path)."""
    return "<" in text or "[" in text or "◁" in text


_CLOSE_TAGS = (*("</" + tag[1:] for tag in _THINK_TAGS), _KIMI_CLOSE, _K3_CLOSE, "<|end_thinking|>", _PLAMO_CLOSE,
               _SOLAR_CLOSE, _APERTUS_CLOSE, *_IFM_BLOCKS.values())  # alone, a stray end (not </details>)
_CHANNEL_END: Final = "<channel|>"
_SILENT_ENDS: Final = (_CHANNEL_END,)
"""Closing tokens that, with no block open, are dropped without a word: Gemma 4's ``<channel|>``
after its answer (llama.cpp's Gemma 4 test: ``<|channel>thought\n<channel|>Hello<channel|>`` reads
``Hello``). A special token, never text; at the reply's end, or after a block closed, it says
nothing of the text before it (that was the answer). Before any block or stray end and with text after
it, it ends the thought channel Gemma 4's template opened in the prompt (after a tool's result:
jundot/omlx PR #2533), as a stray ``</think>`` does: the text before it was reasoning
(``ThinkSplitter._channel_end``)."""
_CHANNEL_LOOK: Final = 64
"""How much whitespace after a held ``<channel|>`` is waited through for the text that makes it
the end of a template-opened thought (``ThinkSplitter._close_from``); past it, it is the answer's end."""
_APRIEL_END = "[begin final response]"
_ALL_TAGS = _OPEN_TAGS + _CLOSE_TAGS + _SILENT_ENDS + (_APRIEL_END,)
_WRAPPER_ENDS = tuple(RESPONSE_WRAPPERS.values())
_WRAPPER_TAGS = (*RESPONSE_WRAPPERS, *_WRAPPER_ENDS)
_VALUE_OPEN, _VALUE_CLOSE = "<arg_value>", "</arg_value>"
_VALUE_TAGS: Final = (_VALUE_OPEN, _VALUE_CLOSE)
_VALUE_END: Final = (_VALUE_CLOSE,)
"""GLM's (and Ling's, Hunyuan's) argument value tags: between them is a tool's argument as the
model wrote it, a ``</think>`` in it included (llama.cpp's Ling 3.0 test: ``<arg_value>contains
</think> and <tool_call> strings</arg_value>``), never a reasoning tag. Text, both kept."""
_SCANNED = _ALL_TAGS + _WRAPPER_TAGS + _VALUE_TAGS
_GLM_VALUE = re.compile(r"</arg_key>\s*+<arg_value>")
"""A GLM call's value opening after its key: a ``</think>`` after it at a reply's start may be the
value's text, so it does not show where a template-opened block ended."""
_OPENED_CLOSE = "</think>"
"""The end of the block a chat template opens in the prompt (most such templates open a
``<think>``)."""
_OPENED_CLOSES = (_OPENED_CLOSE, "<|end_thinking|>", _K3_CLOSE, _APRIEL_END, _PLAMO_CLOSE, "</mm:think>", _SOLAR_CLOSE,
                  *_IFM_BLOCKS.values(), "</seed:think>", _APERTUS_CLOSE, _CHANNEL_END)
"""The ends a reply may hold of a block its chat template opened: ``</think>``, and the three
families whose generation prompt opens their own (llama.cpp's tests: Cohere2 MoE's prompt ends in
``<|START_THINKING|>``, Kimi K3's leaves ``<|open|>think<|sep|>`` open, Apriel 1.6 Thinker's ends
in "Here are my reasoning steps:", closed by ``[BEGIN FINAL RESPONSE]``; PLaMo 3's and MiniMax-M3's,
whose templates open theirs when thinking is on: vLLM's ``plamo3`` and ``minimax_m3`` reasoning
parser tests; Solar Open 2's and K2 Horizon's, whose templates open theirs at the efforts that
reason: vLLM's ``solar_open2`` and ``k2_horizon`` reasoning parser tests; Seed-OSS's, whose
replies typically hold only ``</seed:think>``: vLLM's ``seed_oss`` reasoning parser test; Apertus 1.5's,
when the prompt continues its reasoning: Ollama's ``apertus1.5`` parser test; Gemma 4's thought channel,
opened in the prompt after a tool's result, only with text after its ``<channel|>``: ``_SILENT_ENDS``). Apriel's end is plain
words in brackets, no special token: it ends the reasoning only where it opens a line; inside a
sentence it is the answer's text. Opening a line in any reply it is a stray end, as a bare
``</think>`` is (ReAct holds a reply only for a model known to open its block)."""
_OPENED_LONGEST = max(len(tag) for tag in _OPENED_CLOSES)

_OPENED_CLOSES_FOUND = re.compile("|".join(map(re.escape, _OPENED_CLOSES))).search
"""Finds any of ``_OPENED_CLOSES`` in a text as written (``tag in text`` for each)."""


@functools.cache
def _tags_pattern(tags: tuple[str, ...]) -> re.Pattern[str]:
    """``tags`` as one case-insensitive pattern, each in a group of its own (``lastindex`` names
    the tag found). Searched in the text itself, so that a character whose lower case is longer
    ("İ") cannot move what is found. The tags' first characters (``<``, ``[``, ``◁``: no other
    character matches one in any case) are looked for first: the alternatives were tried at every
    character of a text, 0.17 s a megabyte, ten times the lookahead's cost), with the second
    characters each can have (a run of ``<`` tried every tag at each: 16 µs a 20-character chunk)."""
    seconds: dict[str, set[str]] = {}
    for tag in tags:
        seconds.setdefault(tag[0], set()).add(tag[1:2])
    starts = "|".join(f"{re.escape(first)}[{re.escape(''.join(sorted(after)))}]" for first, after in sorted(seconds.items()))
    alternatives = "|".join(f"({re.escape(tag)})" for tag in tags)
    return re.compile(f"(?={starts})(?:{alternatives})", re.IGNORECASE)


def _quoted(text: str, at: int, size: int, before: str, ended: bool = False) -> bool | None:
    """Whether the tag at ``text[at:at + size]`` is written as code (`` `</think>` ``: a
    backtick on each side, which a model's real tag never has); None while the character after
    it has not come yet (False once the reply ``ended``: none comes). ``before``: the character
    before ``text``."""
    if (text[at - 1] if at else before) != "`":
        return False
    if at + size >= len(text):
        return False if ended else None
    return text[at + size] == "`"


APART_HOLD: Final = 512
"""How many characters of a reply's content are held, once its reasoning came apart
(``reasoning_content``), for a model whose template may open the reasoning block in the prompt
(``ThinkSplitter(opened=True)``), to see whether a bare ``</think>`` ends reasoning there. A server
may send part of the reasoning apart and the rest in the content: vLLM's reasoning parsers, when a
request's stop sequences make the detokenizer hold text back while the token ids go on, see the
end token before its text and route the reasoning's tail and the ``</think>`` to the content
(vllm-project/vllm#51641 for Qwen3; #39044: DeepSeek-R1's, ERNIE-4.5's, Seed-OSS's parsers too;
#36830). Such a tail is short (the characters a stop buffer held); the content of a reply whose
reasoning came apart whole is its answer, which streams once this many characters came with no
``</think>`` (a few seconds of tokens), or at its end."""

SPAN_LOOK_LIMIT: Final = 4096
"""How far (characters) the splitter reads past a tag met in an open code span for the run that
closes the span or the line's end, holding what follows the tag meanwhile. Past it the tag is read
as it was before the splitter looked ahead: in the answer, text; in reasoning held for a block the
template opened, the block's end."""

_TICKS: Final = re.compile(r"`+")
_TICKS_OR_LINE: Final = re.compile(r"`+|\n")


class _SpanEnd:
    """Where a code span that was open at a tag ends, read after the tag piece by piece. CommonMark
    makes a backtick run open a span only when a run exactly as long closes it; the project reads a
    span as ending with its line at the latest (``CodeQuote``). So the tag is code when such a run
    comes before the line's end, and the opening run was text when the line ends first. Linear:
    each character is read once, a run cut between pieces counted, not kept."""

    __slots__ = ("run", "seen", "size")

    def __init__(self, size: int) -> None:
        self.size = size  # backticks of the span's opening run
        self.run = 0  # backticks ending what was read: a run the next piece may go on
        self.seen = 0  # characters read so far

    def read(self, text: str, start: int = 0) -> int | None:
        """Read ``text[start:]``: the index in ``text`` just past the run that closes the span,
        -1 when the line ends first, None when neither came yet."""
        begin = start
        if self.run:
            more = _TICKS.match(text, start)
            end = more.end() if more else start
            if end == len(text):
                self.run += end - start
                self.seen += end - start
                return None
            closed, self.run = self.run + end - start == self.size, 0
            if closed:
                return end
            start = end
        for found in _TICKS_OR_LINE.finditer(text, start):
            if text[found.start()] == "\n":
                return -1
            if found.end() == len(text):
                self.run = found.end() - found.start()
                break
            if found.end() - found.start() == self.size:
                return found.end()
        self.seen += len(text) - begin
        return None


def _tail_if_quoted(window: str, found: re.Match[str], before: str) -> str | None:
    """``ThinkSplitter._until_close``'s reading of the held text's tail then a new piece
    (``window``), when the closing tag ``found`` and every one after it are text, each told by
    the characters around it there (Apriel's end inside a line, or a tag between backticks): the
    tail to keep, as that reading keeps it (longer when the last tag waits for the character
    after it; ``before``: the character before the window). None when one is no text, or waits
    for a character the window cannot keep: the held text is read whole. A reply of thousands
    of `` `</think>` `` joined all it held at each."""
    while found is not None:
        at, end = found.span()
        prev = window[at - 1] if at else before
        if prev == "\n" or window[at:end].lower() != _APRIEL_END:
            if prev != "`":
                return None
            if end >= len(window):  # the character after it is still to come
                return window[-(_OPENED_LONGEST + 1) :] if len(window) > _OPENED_LONGEST else None
            if window[end] != "`":
                return None
        found = _tags_pattern(_OPENED_CLOSES).search(window, end)
    return window[-(_OPENED_LONGEST - 1) :]


def _opens_before(text: str, at: int) -> bool:
    """Whether ``text[:at]`` (a probed reply's start, held) opens a reasoning block or a GLM
    call's value: a closing tag at ``at`` then ends no block the template opened, and probing
    stops there (the reply is read as any reply, the closing tag as that reading takes it)."""
    return bool(_tags_pattern(_OPEN_TAGS).search(text, 0, at) or _GLM_VALUE.search(text, 0, at))


def _char_back(pieces: list[str], back: int) -> str:
    """The character ``back`` (1 or more) characters from the end of ``pieces`` joined, ``""``
    when they hold fewer; read from the last pieces only."""
    for piece in reversed(pieces):
        if back <= len(piece):
            return piece[-back]
        back -= len(piece)
    return ""


def _without_open_tag(reasoning: str) -> str:
    """Reasoning held from the start of a reply, without a ``<think>`` the model wrote again."""
    opener = reasoning.lstrip().lower()
    for tag in (*_THINK_TAGS, _KIMI_OPEN, _K3_OPEN, _PLAMO_OPEN, _SOLAR_OPEN, *_IFM_BLOCKS):
        if opener.startswith(tag):
            return reasoning.lstrip()[len(tag) :]
    return reasoning

VISIBLE, REASONING, BLOCK_END, STRAY_END = "visible", "reasoning", "block_end", "stray_end"
"""Kinds of the pieces ``ThinkSplitter.pieces`` returns (``STRAY_END``: a closing tag with no
block open, dropped: the model's template opened the block in the prompt, so what came before
it was reasoning)."""
THOUGHT: Final = "thought"
"""The kind of a ``<thought>`` block's text with ``ThinkSplitter(thoughts=True)``: the XML-tagged
ReAct step's thought (lamalab-org/corral PR #192), the turn's thought rather than reasoning."""
_THOUGHT_CLOSE: Final = "</thought>"
_NO_SPAN: Final = ""
"""Put among the visible text ``ThinkSplitter._code`` is still to read where the code span open
there turned out to be none (the line ended before a run closed it): never a piece of text (an
empty one is not kept)."""


class ThinkSplitter:
    """Feed content pieces; get visible text and reasoning text as soon as they are certain.

    The one reasoning splitter of the project: Function Calling's turn reader uses ``feed``,
    the ReAct parser ``pieces`` (it needs to know where a block ended: a label may follow).
    Holds back only a trailing piece that may still become a tag; a closing tag with no
    block open (a model whose template opened the block in the prompt) is dropped; a tag
    written between backticks (`` `</think>` ``) is text. Tags are found case-insensitively.
    Linear in the input; never raises.

    ``opened=True``: the model's chat template may have opened the block in the prompt
    (``opens_reasoning_in_prompt``), so the reply may be reasoning up to a bare ``</think>``.
    Everything is then held until that tag (what came before it is reasoning, a leading
    ``<think>`` dropped) or ``release``/``finish`` (it was not: it is read as any reply).

    ``thoughts``: a ``<thought>`` block's text comes as ``THOUGHT`` pieces, not ``REASONING``
    (``pieces`` only; ``feed`` and ``finish`` count it as reasoning).

    ``probe`` (characters, with ``opened=False``): any model's template may have opened the block
    without its name saying so (llama.cpp's forced-open thinking: ``I'm\nthinking</think>\n
    <tool_call>...``). The reply's first ``probe`` characters are held as with ``opened``: a bare
    ``</think>`` among them, with no opening tag before it, makes what came before it reasoning;
    past them, or at an opening tag, the held text is read as any reply (a ``</think>`` after
    that is the usual stray end).
    """

    def __init__(self, *, opened: bool = False, probe: int = 0, thoughts: bool = False) -> None:
        self._thoughts = thoughts  # a <thought> block's text is a THOUGHT piece (ReAct's XML step)
        self._pending = ""
        self._close_tag: str | None = None  # set while inside a block
        self._closed: str | None = None  # the closing tag of the last block the reply opened and closed
        self._opened = opened or probe > 0  # holding: the block may have been opened in the prompt
        self._probe = 0 if opened else probe  # holding only this many characters (0: to the tag)
        self._probed = 0  # characters held so far while probing
        self._held: list[str] = []  # while holding: the reply so far
        self._tail = ""  # while holding: its end, where a closing tag may be starting
        self._prev = ""  # the last character read before the pending text
        self._block: list[str] = []  # the reasoning of the block open now (or last open)
        self._after_block = False  # a reasoning block ended and only whitespace came after it
        self._mid = False  # the block open now opened after visible text other than whitespace
        self._frame = False  # a mid-answer block just closed: a "\n\n" right after it is framing
        self._wrapper: str | None = None  # the closing tag of a RESPONSE_WRAPPERS frame dropped
        self._wrapper_text = False  # a RESPONSE_WRAPPERS opening tag was read as the answer's text
        self._reasoned = False  # reasoning ended in this reply (a block, a stray end) or came apart
        self._code = CodeQuote()  # the visible text read so far: is a code span or fenced block open?
        self._shown: list[str] = []  # visible text _code has not read yet (read only at a tag: _in_code)
        self._started = False  # _code has read visible text other than whitespace
        self._value = False  # inside a GLM <arg_value>: only its end is looked for (_VALUE_TAGS)
        self._look: _SpanEnd | None = None  # a tag in an open code span of the answer waits for its end
        self._look_from = 0  # the pending text _look has read (the tag opens it)
        self._span_close = -1  # in the pending text: where the code span a tag was met in closes
        self._unspan = False  # the code span open at the tag just read was none (its line ended first)
        self._ending = False  # the reply ended: a tag waiting for its code span's end, or for the character after it, is no code
        self._held_code: CodeQuote | None = None  # while holding: the held text's code spans
        self._held_fed = 0  # the held text _held_code has read
        self._held_close = -1  # in the held text: where the code span a closing tag was met in closes
        self._held_look: _SpanEnd | None = None  # while holding: a closing tag in a code span waits
        self._wait = (0, 0)  # that tag's place in the held text and its length
        self._apart = False  # holding a template-opened block's rest after reasoning came apart
        self._block_code: tuple[list[str], CodeQuote, int] | None = None  # the block, its code reader, the pieces it read
        self._channel_end = ""  # a <channel|> read before any block or stray end: a stray end if text follows
        self._ended = False  # a reasoning block closed, or a stray end was read, in this reply
        self.stray_written = ""
        """The last closing tag with no block open, as written (a ``STRAY_END`` piece's tag: a
        reader to whom it is text, such as ReAct's inside an action's input, puts it back)."""
        self.strays_written: list[str] = []
        """Each such tag, in order (``visible_text`` reads a whole text's pieces at once)."""

    @property
    def open_block(self) -> str:
        """The reasoning of the block still open, ``""`` when none is: what a reply that stopped
        inside its reasoning wrote there (closed blocks and earlier text not included)."""
        return "".join(self._block) if self._close_tag is not None else ""

    @property
    def closing_tag(self) -> str | None:
        """The tag that would close the reasoning block still open (``</think>``), None when none
        is open. A reply that ended inside its block ends before it (``with_block_closed``)."""
        return self._close_tag

    @property
    def holding(self) -> bool:
        """Whether the reply is held because its block may have been opened in the prompt."""
        return self._opened

    def release(self, *, as_reasoning: bool = False) -> Split:
        """Stop holding (the reply's reasoning came apart from it, or it ended): the held text
        is read as any reply and returned split; ``as_reasoning`` (the reply was cut by the
        output limit before its ``</think>``): it is reasoning, and the block stays open."""
        if as_reasoning and self._opened and (not self._probe or self._apart):
            held = self._forget_held()
            self._close_tag, self._block = _OPENED_CLOSE, [_without_open_tag(held)]
            return Split(reasoning=self._block[0])
        return _joined(self.release_pieces())

    def release_pieces(self, *, ended: bool = False) -> list[tuple[str, str]]:
        """``release()`` as the ``(kind, text)`` pieces of ``pieces()`` ([] when not holding and
        nothing waits). ``ended``: the reply ended, and with it its last line: a tag that waited
        for the end of the code span it stood in is no code (the span never closed), in the held
        text (it ends the block) and in the answer's; so is a tag after a backtick that waited for
        the character after it (Kimi's plugin sends the bare ``</think>`` closing reasoning that
        ends in a code span as the last text before the calls)."""
        out: list[tuple[str, str]] = []
        if self._opened:
            if ended and self._held_look is not None:
                rest = self._after_wait("", out, ended=True)
                out += self.pieces(rest) if not self._opened else self.release_pieces()
            else:
                out += self.pieces(self._forget_held())
        if ended and (self._look is not None or self._pending):
            self._ending = True
            self._scan(out)
            self._ending = False
        return [(kind, piece) for kind, piece in out if piece or kind in (BLOCK_END, STRAY_END)]

    def note_reasoning_apart(self) -> None:
        """The reply's reasoning came apart from its content (``reasoning_content``): content
        that has not started yet starts right after reasoning, so a ``RESPONSE_WRAPPERS`` tag it
        opens with is the reply's frame (a server that took only ``<think>...</think>`` out of a
        Hunyuan-A13B or ERNIE-X1 reply). Call before the content that follows is fed.

        A reply held because its template may have opened the block (``opened``) is then held
        only for its first ``APART_HOLD`` characters: a server may send part of the reasoning
        apart and the rest in the content up to a bare ``</think>`` (``APART_HOLD``); past them,
        or at the reply's end, the held text is read as any reply. Cut by the output limit, or
        stopped, while held, it is reasoning, as a held reply is (``release(as_reasoning=True)``,
        ``stopped``). A probed start (``probe``) goes on being probed."""
        self._reasoned = True
        if not self._prev and not self._held and not self._pending:
            self._after_block = True
        if self._opened and not self._probe:
            self._probe, self._apart = APART_HOLD, True
            self._probed = sum(map(len, self._held))

    @property
    def inside(self) -> bool:
        """Whether a reasoning block is open."""
        return self._close_tag is not None

    def feed(self, text: str) -> Split:
        """Consume one piece of content."""
        if (not self._pending and self._close_tag is None and not self._opened and not self._frame
                and "<" not in text and "[" not in text and "◁" not in text):  # _may_hold_tag, inline: once a chunk
            if text:
                self._prev = text[-1]
                self._after_block = self._after_block and text.isspace()
                self._shown.append(text)
            return Split(text, "")  # the usual chunk: no tag can start in it
        return _joined(self.pieces(text))

    def pieces(self, text: str) -> list[tuple[str, str]]:
        """Consume one piece of content; return ``(kind, text)`` pieces in order: ``VISIBLE``
        and ``REASONING`` text, and ``BLOCK_END`` (text "") where a reasoning block closed."""
        if not text and not self._opened and not self._pending:
            return []  # nothing to read, nothing held
        if (not self._opened and not self._pending and self._close_tag is None and not self._frame
                and not self._channel_end
                and "<" not in text and "[" not in text and "◁" not in text):  # _may_hold_tag, inline: once a chunk
            self._prev = text[-1]  # the usual chunk: no tag can start in it
            self._after_block = self._after_block and text.isspace()
            self._shown.append(text)
            return [(VISIBLE, text)]
        out: list[tuple[str, str]] = []
        if self._opened:
            text = self._until_close(text, out)
        if not self._pending and self._close_tag is None and not self._frame and not self._channel_end and not _may_hold_tag(text):
            out.append((VISIBLE, text))  # the usual chunk: no tag can start in it
            if text:
                self._prev = text[-1]
                self._after_block = self._after_block and text.isspace()
                self._shown.append(text)
        else:
            self._pending += text
            self._scan(out)
        return [(kind, piece) for kind, piece in out if piece or kind in (BLOCK_END, STRAY_END)]

    def finish(self) -> Split:
        """Flush what was held back (an unclosed block stays reasoning)."""
        if not self._opened and not self._pending and self._close_tag is None:
            return _NOTHING  # the usual end: nothing held, no block open
        released = _joined(self.release_pieces(ended=True))
        rest, self._pending = self._pending, ""
        if self._close_tag is None and self._ends_frame(rest.strip().lower()):
            rest = ""  # the closing tag of the reply's frame, at its end
        if self._close_tag:
            self._block.append(rest)
            return Split(released.visible, released.reasoning + rest)
        return Split(released.visible + rest, released.reasoning)

    def stopped(self) -> Split:
        """The reply stopped short (its stream failed, or the run's deadline came): ``finish``
        for a reply that may go on no further, keeping back what may be reasoning. A reply held
        because the block may have been opened in the prompt (``opened``) is all reasoning as far
        as anyone can tell (its ``</think>`` never came): nothing of it is visible. A probed
        start (``probe``) is the answer's, unless it holds a ``</think>`` (what came before it
        may be reasoning: none of it is visible)."""
        if self._opened and (not self._probe or self._apart or _tags_pattern(_OPENED_CLOSES).search("".join(self._held))):
            self._forget_held()
            self._pending = ""
            return _NOTHING
        return self.finish()

    def _emit(self, out: list[tuple[str, str]], kind: str, text: str) -> None:
        if self._channel_end and kind == VISIBLE and text and not text.isspace():
            self._end_channel(out)
        out.append((kind, text))
        if text:
            self._prev = text[-1]
            if kind != VISIBLE:  # REASONING, or a THOUGHT block's
                self._block.append(text)
                return
            self._shown.append(text)
            if not text.isspace():
                self._after_block = False

    def _emit_before(self, out: list[tuple[str, str]], kind: str, text: str) -> None:
        """``_emit`` the text before a tag that is used; when the code span open there was none
        (``_in_span``), the visible text after it is read without that span."""
        self._emit(out, kind, text)
        if self._unspan:
            self._shown.append(_NO_SPAN)
            self._unspan = False

    def _until_close(self, text: str, out: list[tuple[str, str]]) -> str:
        """While holding: keep ``text`` until a closing tag; then the held text before it is
        reasoning (in ``out``) and what follows it is returned, to be read as usual."""
        if self._held_look is not None:
            return self._after_wait(text, out)
        window = self._tail + text
        found = _tags_pattern(_OPENED_CLOSES).search(window)  # the template opened a block: only its end
        at = found.start() if found else -1
        if self._probe:
            self._probed += len(text)
            if at < 0 and self._probe_over(window):
                return self._end_probe(text)  # no </think> in the reply's start: read as any reply
        before = _char_back(self._held, len(self._tail) + 1) if at == 0 else ""  # before the window
        kept = None if at < 0 or self._probe else _tail_if_quoted(window, found, before)
        if at < 0 or kept is not None:
            self._held.append(text)  # no tag, or each written as code (`</think>`): not joined
            self._tail = window[-(_OPENED_LONGEST - 1) :] if kept is None else kept
            return ""
        whole = "".join(self._held) + text
        at += len(whole) - len(window)
        if self._probe and _opens_before(whole, at):
            return self._end_probe(text)  # a block opened in the reply (its end?), or a GLM value (its text)
        return self._close_from(whole, at, found.end() - found.start(), out)

    def _close_from(self, whole: str, at: int, size: int, out: list[tuple[str, str]], verdict: bool | None = None) -> str:
        """``_until_close`` over the held text ``whole`` from the closing tag at ``whole[at:at +
        size]`` on: the first that is no text ends the block (the text after it returned);
        ``verdict``: whether that first one is text, when already known."""
        while at >= 0:
            apriel_in_a_line = whole[at - 1 : at] != "\n" and whole[at : at + size].lower() == _APRIEL_END
            quoted = True if apriel_in_a_line else _quoted(whole, at, size, "") if verdict is None else verdict
            decided, verdict = verdict is not None, None
            if quoted is None:  # the character after it is still to come
                self._held, self._tail = [whole], whole[-(_OPENED_LONGEST + 1) :]
                return ""
            if self._probe and at >= self._probe:
                break  # past the reply's start
            if quoted is False and not decided:
                quoted = self._held_in_span(whole, at, at + size)
                if quoted is None:  # in a code span that may close later on its line: wait
                    self._held, self._tail, self._wait = [whole], "", (at, size)
                    return ""
            if not quoted and whole[at : at + size].lower() == _CHANNEL_END and not whole[at + size :].strip():
                if len(whole) - at - size <= _CHANNEL_LOOK:  # the answer's end, unless text follows it
                    self._held, self._tail = [whole], whole[at:]
                    return ""
                quoted = True  # only whitespace after it: the answer's end (_SILENT_ENDS)
            if not quoted:
                out += [(REASONING, _without_open_tag(whole[:at])), (BLOCK_END, "")]
                self._ended = True
                self._forget_held()
                self._after_block = True
                self._probe, self._apart = 0, False
                self._reasoned = True
                self._prev = ">"
                return whole[at + size :]
            found = _tags_pattern(_OPENED_CLOSES).search(whole, at + size)
            at, size = (found.start(), found.end() - found.start()) if found else (-1, 0)
            if self._probe and at >= 0 and _opens_before(whole, at):
                self._held = []  # as _until_close ends it at this tag when it comes in a later piece
                return self._end_probe(whole)
        if self._probe and (at >= self._probe or self._probe_over(whole)):
            self._held = []
            return self._end_probe(whole)
        self._held, self._tail = [whole], whole[-(_OPENED_LONGEST - 1) :]
        return ""

    def _held_in_span(self, whole: str, at: int, end: int) -> bool | None:
        """Whether the closing tag at ``whole[at:end]`` (the held text) stands in a code span of
        it (`` `a </think> b` ``, "`</think>` ends it"): a run as long as the span's opening one
        comes before the line ends. None while neither came (``_after_wait`` reads on), up to
        ``SPAN_LOOK_LIMIT`` characters (then it is no code, as it was read before looking ahead).
        Only code spans, in a reply whose template may have opened the block: a fenced block the
        reasoning never closed would hide the whole reply. A probed reply's start (``probe``: no
        template is known to open one) shows a tag in an open fenced block as its code
        (CherryHQ/cherry-studio#17197: a chat template's ``{{- '</think>' }}`` in a ```` ```jinja ````
        block hid the reply's start as reasoning); if it was reasoning after all, it is shown, as
        a probed reply with no such tag is."""
        if at < self._held_close:
            return True  # the span a tag before it was met in closes after it
        if self._held_code is None:
            self._held_code = CodeQuote()
        self._held_code.feed(whole[self._held_fed : at])
        self._held_fed = at
        if self._probe and not self._apart and self._held_code.in_fence:
            return True  # a probed reply (no template known to open a block) shows it in its code
        ticks = self._held_code.span_ticks
        if not ticks:
            return False
        look = _SpanEnd(ticks)
        found = look.read(whole, end)
        if found is None:
            if look.seen > SPAN_LOOK_LIMIT:
                return False
            self._held_look = look
            return None
        if found < 0:
            return False
        self._held_close = found
        return True

    def _after_wait(self, text: str, out: list[tuple[str, str]], *, ended: bool = False) -> str:
        """``_until_close`` while a closing tag waits for the end of the code span it stands in:
        ``text`` is read for it (only ``text``: the held text is joined once, when it is known);
        ``ended``: the reply ended, and with it the line (the tag is no code)."""
        look = self._held_look
        assert look is not None
        self._held.append(text)
        if self._probe:
            self._probed += len(text)
        found = -1 if ended else look.read(text)
        if found is None and look.seen <= SPAN_LOOK_LIMIT:
            return ""
        self._held_look = None
        whole = "".join(self._held)
        at, size = self._wait
        if found is not None and found >= 0:  # the span closed: the tag was its text
            self._held_close = len(whole) - len(text) + found
            return self._close_from(whole, at, size, out, verdict=True)
        return self._close_from(whole, at, size, out, verdict=False)

    def _forget_held(self) -> str:
        """Stop holding: the held text, joined; how its code spans were read forgotten."""
        held = "".join(self._held)
        self._opened, self._held, self._tail = False, [], ""
        self._held_code, self._held_fed, self._held_close, self._held_look = None, 0, -1, None
        return held

    def _probe_over(self, held: str) -> bool:
        """Whether probing found no ``</think>`` in the reply's start: more than ``probe``
        characters are held (``held`` ends them) and no closing tag that may still be coming at
        their end starts among the first ``probe`` (one cut by the stream there is waited for, as
        the whole text read at once would find it)."""
        return self._probed > self._probe and self._probed - _partial_suffix(held, _OPENED_CLOSES) >= self._probe

    def _end_probe(self, text: str) -> str:
        """Stop probing (``probe``): the held text and ``text`` are returned, to be read as any
        reply is."""
        held = self._forget_held() + text
        self._probe, self._apart = 0, False
        return held

    def _scan(self, out: list[tuple[str, str]]) -> None:
        """Read the pending text tag by tag, in one pass (each tag's next place is looked up
        once, not again for every tag met), and keep only a tail that may still become a tag."""
        text = self._pending
        pos = self._past_frame(text, 0, True) if self._frame else 0
        while pos < len(text) and not self._frame:  # (framing: its second newline may come next)
            inside = self._close_tag is not None
            kind = (THOUGHT if self._thoughts and self._close_tag == _THOUGHT_CLOSE else REASONING) if inside else VISIBLE
            tags = (self._close_tag,) if inside else _VALUE_END if self._value else _SCANNED
            found = _tags_pattern(tags).search(text, pos)  # case-insensitive, at its place in text
            if found is None:
                end = len(text) - min(_partial_suffix(text, tags), len(text) - pos)
                self._emit(out, kind, text[pos:end])
                pos = end
                break
            at, tag = found.start(), tags[found.lastindex - 1]
            quoted = _quoted(text, at, len(tag), self._prev, self._ending)
            quoted = quoted if not inside or quoted is False else self._block_quotes(quoted, text[pos:at])
            if tag[0] == "[" and text[at : at + len(tag)] != tag.upper():
                quoted = True  # "[Think]": a markdown link's text, not Magistral's tag
            if not inside:  # in a code span or fenced block the answer shows, or a GLM value: text
                quoted = self._as_text(tag, text[pos:at], quoted, text, at)
            if quoted is None:  # a backtick before it: the character after it tells
                self._emit(out, kind, text[pos:at])
                pos = at
                break
            if not inside and tag in _WRAPPER_TAGS:
                self._emit(out, kind, text[pos:at])  # the text before it decides too
                pos = at
                wrapper = self._wrapper_tag(tag, text, at, quoted)
                if wrapper is None:  # the end may be the reply's: wait for what follows
                    break
                quoted = not wrapper
            if quoted:  # `</think>`: the tag written as code, not used
                self._wrapper_text = self._wrapper_text or tag in RESPONSE_WRAPPERS
                self._emit(out, kind, text[pos : at + len(tag)])
                pos = at + len(tag)
                continue
            self._emit_before(out, kind, text[pos:at])
            pos, self._prev = at + len(tag), tag[-1]
            if inside:
                self._closed, self._close_tag = self._close_tag, None
                self._after_block = self._reasoned = self._ended = True
                pos, self._mid = self._past_frame(text, pos, self._mid), False
                out.append((BLOCK_END, ""))
            elif tag in RESPONSE_WRAPPERS:  # the reply's frame: dropped, its end looked for
                self._wrapper, self._after_block = RESPONSE_WRAPPERS[tag], False
            elif tag in _BLOCKS:
                self._close_tag = _BLOCKS[tag]
                self._block = []
                self._code_at("")  # reads the visible text so far: has anything but whitespace come?
                self._mid = self._started
            else:
                self._stray(out, tag, text[at:pos])
        self._pending = text[pos:]
        self._span_close -= pos

    def _crosses(self, tag: str, before: str) -> bool:
        """Whether ``tag`` (an opening or stray closing tag, lower case, met outside a block after
        the pending visible text ``before``) is another family's than the block the reply already
        opened and closed, met within a line of answer text written since that block. Pairs never
        cross, so it is the answer's text: a model writing about another family's tags
        (isaiah-harville/Primer#109: a ``<think>`` reply that names Mistral's ``[THINK]`` and
        ``[/THINK]`` lost them and the words between). A tag opening a line still opens its
        block, and one right after the block (Seed-OSS's budget note) is still read as before."""
        if self._closed is None or (self._after_block and not before.strip()):
            return False
        if (before[-1:] or self._prev) in ("", "\n"):
            return False
        if tag in _BLOCKS:
            return _BLOCKS[tag] != self._closed
        return tag in _CLOSE_TAGS and tag != self._closed

    def _past_frame(self, text: str, pos: int, framed: bool) -> int:
        """Where the visible text after a reasoning block goes on in ``text`` (from ``pos``, just
        after the block's closing tag or after text that came then): for a mid-answer block
        (``framed``), past the ``"\\n\\n"`` Dify's Anthropic plugin sends after each ``</think>``
        (its blocking reply joins the text blocks with nothing between them). ``_frame`` stays
        set while that may still come (nothing or only its first newline yet)."""
        if framed and text.startswith("\n\n", pos):
            self._frame = False
            return pos + 2
        self._frame = framed and text[pos:] in ("", "\n")
        return pos

    def _as_text(self, tag: str, before: str, quoted: bool | None, text: str, at: int) -> bool | None:
        """Whether ``tag``, met at ``text[at:]`` outside a block after the visible text ``before``,
        is text: written as code (``quoted``), in a code span or fenced code block the answer shows
        (a tag it documents), another family's tag than the reply's closed block (``_crosses``), or one of GLM's ``_VALUE_TAGS`` (an ``<arg_value>`` outside code
        opens a value, in which only its ``</arg_value>`` is looked for); None while the character
        after it, or the end of the code span it may stand in, is still to come (``_in_span``)."""
        if tag == _APRIEL_END and (before[-1:] or self._prev) != "\n":
            return True  # within a line: the answer's words, not Apriel's end of reasoning
        if tag in _VALUE_TAGS:
            if quoted is False:
                self._value = tag == _VALUE_OPEN and not self._in_code(before)
            return quoted is not None or None
        if quoted is not False or tag in _WRAPPER_TAGS:
            return True if quoted is False and self._in_code(before) else quoted
        code = self._code_at(before)
        if not code.open:
            return self._crosses(tag, before)
        ticks = code.span_ticks
        return self._in_span(ticks, text, at, at + len(tag)) if ticks else True  # else a fenced block

    def _in_span(self, ticks: int, text: str, at: int, end: int) -> bool | None:
        """Whether the tag at ``text[at:end]``, met while the visible text leaves a code span of
        ``ticks`` backticks open, stands in that span: a run as long closes it before the line
        ends (a stray backtick earlier on the line, "it`s", opens none: the tag is used). None while
        neither came: the tag and what follows are held, up to ``SPAN_LOOK_LIMIT`` characters
        (then it is code, as it was read before looking ahead); at the reply's end it is no code."""
        if at < self._span_close:
            return True  # the span a tag before it was met in closes after it
        look = self._look
        if look is not None and at == 0:
            found = look.read(text, self._look_from)  # the tag waited: read only what came since
        else:
            look = _SpanEnd(ticks)
            found = look.read(text, end)
        self._look = None
        if found is None:
            if self._ending:
                found = -1
            elif look.seen > SPAN_LOOK_LIMIT:
                return True
            else:
                self._look, self._look_from = look, len(text) - at
                return None
        if found < 0:
            self._unspan = True
            return False
        self._span_close = found
        return True

    def _block_quotes(self, quoted: bool | None, before: str) -> bool | None:
        """``quoted`` (a backtick stands before the block's closing tag, `` `</think>` ``) unless
        that backtick closed a code span of the reasoning's line (reasoning
        that ends in `` `a.py` `` then ``</think>`` glued to an answer that starts with a code
        span, as Kimi's plugin glues them): then the tag is no code. ``before``: the block's text
        from the pending text's start to the tag. The block's text is read once in all
        (``_block_code`` keeps the reader), however many such tags it holds."""
        if self._block_code is None or self._block_code[0] is not self._block:
            self._block_code = (self._block, CodeQuote(), 0)  # a new block: read from its start
        block, code, fed = self._block_code
        for piece in block[fed:]:  # only what the block gained since the last tag read so
            code.feed(piece)
        self._block_code = (block, code, len(block))
        probe = code.copy()
        probe.feed(before)
        return quoted if probe.open else False  # in a span, or in a fenced block: code

    def _stray(self, out: list[tuple[str, str]], tag: str, written: str) -> None:
        """A closing ``tag`` with no block open: dropped, and said (``STRAY_END``: what came
        before it was reasoning a template opened); one of ``_SILENT_ENDS`` is only dropped.
        ``written``: the tag as the text has it (``stray_written``)."""
        if tag not in _SILENT_ENDS:
            self._after_block = self._reasoned = self._ended = True
            self.stray_written = written
            self.strays_written.append(written)
            out.append((STRAY_END, ""))
        elif not self._ended:
            self._channel_end = written  # a stray end once text follows it (_end_channel)

    def _end_channel(self, out: list[tuple[str, str]]) -> None:
        """Text after a ``<channel|>`` read before any reasoning ended: the tag ended the thought
        channel Gemma 4's template opened in the prompt (``_SILENT_ENDS``), said as a stray end is
        (``STRAY_END``) before that text."""
        self._after_block = self._reasoned = self._ended = True
        self.stray_written, self._channel_end = self._channel_end, ""
        out.append((STRAY_END, ""))

    def _code_at(self, before: str) -> CodeQuote:
        """``_in_code``'s reader after the visible text so far, then ``before`` (a copy when
        ``before`` is not empty)."""
        for piece in self._shown:
            if not piece:  # _NO_SPAN
                self._code.drop_span()
                continue
            self._code.feed(piece)
            if not self._started and not piece.isspace():
                self._started = True
        self._shown.clear()
        if not before:
            return self._code
        probe = self._code.copy()
        probe.feed(before)
        return probe

    def _in_code(self, before: str) -> bool:
        """Whether the visible text so far, then ``before``, leaves a fenced code block or a code
        span open (``CodeQuote``: a span ends with its line): a tag inside one is code the answer
        shows (a prompt that teaches ``<thinking>`` tags, a chat template, "wraps its reasoning in
        `` `<think>plan</think>` ``"), never a reasoning block, its end or a reply's frame. The
        visible text is read only here, at a tag: a reply with none never pays for it."""
        return self._code_at(before).open

    def _wrapper_tag(self, tag: str, text: str, at: int, quoted: bool | None) -> bool | None:
        """Whether the ``RESPONSE_WRAPPERS`` tag at ``text[at:]`` frames the reply (dropped) or
        is text (False); None while that is not known yet (a closing tag followed by whitespace
        only so far: it ends the frame if the reply ends there)."""
        if quoted:
            return False
        if tag in RESPONSE_WRAPPERS:
            if tag == _STEP_ANSWER and not self._after_block and self._wrapper is None:
                self._in_code("")  # reads the visible text so far: has anything but whitespace come?
                return not self._started
            return self._after_block and self._wrapper is None
        if not self._ends_frame(tag):
            return False
        rest = text[at + len(tag) :]
        return None if not rest or rest.isspace() else False

    def _ends_frame(self, tag: str) -> bool:
        """Whether ``tag`` (lower case), with only whitespace after it to the reply's end, closes
        the reply's frame: the open frame's closing tag, or with none open, a closing
        ``RESPONSE_WRAPPERS`` tag while none of their opening tags was read as text, after
        reasoning or on a line of its own (the frame's opening tag went with the reasoning: a
        reasoning parser took both out, vllm-project/vllm#58127, also of a quick thought whose
        reasoning was empty). Within a line of a reply with no reasoning, or as the whole reply,
        such a tag is the answer's own text ("close it with </answer>")."""
        if self._wrapper is not None:
            return tag == self._wrapper
        if self._wrapper_text or tag not in _WRAPPER_ENDS:
            return False
        return self._reasoned or self._prev == "\n"


def _joined(pieces: list[tuple[str, str]]) -> Split:
    visible: list[str] = []
    reasoning: list[str] = []
    for kind, piece in pieces:
        (visible if kind == VISIBLE else reasoning).append(piece)  # a THOUGHT block's too: not shown
    return Split("".join(visible), "".join(reasoning))


def visible_text(text: str, *, json_strings: bool = False) -> str:
    """``text`` without its reasoning blocks (what a user, or a prompt that must not carry
    reasoning, may see). Text before a closing tag with no block open is reasoning too: the
    model's template opened the block in the prompt (DeepSeek-R1 distills, QwQ, dify#17660).
    With ``json_strings``, such a tag inside a JSON string of its line (``_in_json_string``: a
    ReAct action's input ``{"q": "</think>"}``) is the string's text, kept as written, as the
    ReAct parser reads it (wave 37's campaign: a cut step replayed to the model lost all its
    text up to that tag)."""
    if not _may_hold_tag(text):  # no tag can start in it: all of it is visible (as the splitter reads it)
        return text
    splitter = ThinkSplitter()
    visible: list[str] = []
    pieces = splitter.pieces(text) + splitter.release_pieces(ended=True)  # (a tag waiting at the end)
    strays = iter(splitter.strays_written)
    for kind, piece in pieces:
        if kind == STRAY_END:
            written = next(strays, "")
            if json_strings and _in_json_string("".join(visible)):
                visible.append(written)
            else:
                visible.clear()
        elif kind == VISIBLE:
            visible.append(piece)
    return "".join(visible) + splitter.finish().visible
