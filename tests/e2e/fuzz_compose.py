"""Composed model replies for the wave-35 fuzz campaign (``tests/e2e/test_fuzz_wave35.py``).

One reply mixes, in one turn, what earlier campaigns drew one at a time: reasoning blocks of
several tag families (opened by the reply, by the model's template, or sent apart as
``reasoning_content``), ReAct labels in several languages and styles (emoji, headings, bold,
full-width colons), calls in several model families' own markup, code fences in the answer, and a
cut by the output limit at a random place. Each reply comes with what a reader must make of it:
the calls it wrote whole (name and arguments), and marker words that belong to its reasoning or
its call markup, which the user must never see.

Everything is drawn from a ``random.Random``: thousands of replies a second, each replayed from
its seed. ``chunkings`` cuts one text the ways a stream may (a character a chunk, random sizes,
inside tags and inside an emoji's code points).
"""

from __future__ import annotations

import itertools
import json
import random
from dataclasses import dataclass, field

from tests.e2e.test_invariants_fuzz import native_markup

TOOLS = {"lookup": ("q",), "get_weather": ("city",)}
"""The node's tools: name -> parameter names (strings)."""

REASONING_MARK = "zqreasoning"
"""A word only reasoning holds: never shown to the user."""

ARG_MARK = "zqarg"
"""The start of every argument value a call writes: never shown as answer text."""

ANSWER_WORDS = ["Paris", "is", "the", "capital", "of", "France", "and", "the", "weather", "is", "mild", "today",
                "résumé", "naïve", "東京", "서울", "ok", "2+2=4"]

REASONING_FAMILIES = [
    ("<think>", "</think>"), ("<thinking>", "</thinking>"), ("<reasoning>", "</reasoning>"), ("<thought>", "</thought>"),
    ("<seed:think>", "</seed:think>"), ("<mm:think>", "</mm:think>"), ("◁think▷", "◁/think▷"),
    ("<|plamo:begin_think:plamo|>", "<|plamo:end_think:plamo|>"), ("<|think:start|>", "<|think:end|>"),
    ("<ifm|think>", "</ifm|think>"), ("<|inner_prefix|>", "<|inner_suffix|>"),
]

# label kind -> its word in each language (English, Chinese, Japanese, Korean)
LABELS = {
    "thought": ["Thought", "思考", "思考", "생각"],
    "action": ["Action", "行动", "行動", "행동"],
    "action_input": ["Action Input", "行动输入", "行動入力", "행동 입력"],
    "final_answer": ["Final Answer", "最终答案", "最終回答", "최종 답변"],
    "observation": ["Observation", "观察", "観察", "관찰"],
}
EMOJI = {"thought": ["💭 ", "🤔 "], "action": ["🔧 ", "👉 ", "1️⃣ "], "action_input": ["📥 ", ""],
         "final_answer": ["✅ ", "🎯 "], "observation": ["👀 ", ""]}
STYLES = ["plain", "plain", "bold", "heading", "emoji", "fullwidth"]

MARKUP_FAMILIES = ["deepseek", "kimi", "mistral", "glm", "minimax", "gcml", "solar", "minicpm", "ifm", "plamo",
                   "iquest", "qwen3_unclosed", "qwen_fused", "tool_call_json", "cline"]

FENCES = ["```python\nprint('hi')\n```", "```\nx = 1\n```", "~~~\nls -la\n~~~", "```json\n{\"a\": 1}\n```"]


@dataclass
class Reply:
    """A composed reply: its ``text``, what a reader must make of it, and how it was drawn."""

    text: str
    reasoning: str = ""
    """Sent apart, as ``reasoning_content`` before the text."""
    calls: list[tuple[str, dict]] = field(default_factory=list)
    """The calls the reply wrote whole, outside its reasoning (name, arguments)."""
    answer: str | None = None
    """The answer prose the reply wrote (None: it wrote no answer)."""
    opened: bool = False
    """The model's template opened the reasoning block: the text starts inside it."""
    cut: bool = False
    """The output limit cut the reply (``finish_reason: length``)."""
    kinds: list[str] = field(default_factory=list)
    """What was drawn (for statistics and failure reports)."""
    language: int = 0
    """The labels' language: 0 English, 1 Chinese, 2 Japanese, 3 Korean."""
    cut_in_token: bool = False
    """The cut fell inside a tag or a special token (a ``<`` or ``◁`` not closed yet)."""
    hang: bool = False
    """The reply stops after its text and never ends: the run's deadline cuts it."""


def label(rnd: random.Random, kind: str, language: int | None = None) -> str:
    """A ReAct label of ``kind`` with its colon and a space, in a drawn language and style."""
    words = LABELS[kind]
    word = words[language if language is not None and language < len(words) else 0]
    style = rnd.choice(STYLES)
    if style == "bold":
        return f"**{word}:** "
    if style == "heading":
        return f"### {word}\n"
    if style == "emoji":
        return f"{rnd.choice(EMOJI[kind])}{word}: "
    if style == "fullwidth":
        return f"{word}： "
    return f"{word}: "


def prose(rnd: random.Random, words: int) -> str:
    return " ".join(rnd.choice(ANSWER_WORDS) for _ in range(words))


def reasoning_text(rnd: random.Random) -> str:
    return f"{REASONING_MARK} {prose(rnd, rnd.randint(1, 6))}"


def reasoning_block(rnd: random.Random) -> tuple[str, str]:
    opening, closing = rnd.choice(REASONING_FAMILIES)
    return f"{opening}{reasoning_text(rnd)}{closing}", opening


def call_args(rnd: random.Random, name: str, n: int) -> dict:
    return {param: f"{ARG_MARK}{n}{rnd.choice(['', ' rover', '-x', ' 東京'])}" for param in TOOLS[name]}


def markup(rnd: random.Random, name: str, arguments: dict, family: str) -> str:
    """One call in ``family``'s own markup (the families of ``native_markup``, a JSON
    ``<tool_call>`` block, Cline's element named after the tool)."""
    if family == "tool_call_json":
        return f"<tool_call>\n{json.dumps({'name': name, 'arguments': arguments}, ensure_ascii=False)}\n</tool_call>"
    if family == "cline":
        params = "".join(f"<{k}>{v}</{k}>\n" for k, v in arguments.items())
        return f"\n<{name}>\n{params}</{name}>"
    return native_markup(name, arguments, family)


def react_action(rnd: random.Random, name: str, arguments: dict, language: int) -> str:
    """An action step: labels and a JSON input, or the ``{"action": ..., "action_input": ...}`` blob."""
    if rnd.random() < 0.3:
        blob = json.dumps({"action": name, "action_input": arguments}, ensure_ascii=False)
        return f"{label(rnd, 'action', language)}\n```json\n{blob}\n```"
    return (f"{label(rnd, 'action', language)}{name}\n"
            f"{label(rnd, 'action_input', language)}{json.dumps(arguments, ensure_ascii=False)}")


def compose(rnd: random.Random, strategy: str) -> Reply:  # noqa: C901 - one draw per part of a reply
    """One composed reply for ``strategy`` (``"ReAct"`` or ``"function_calling"``)."""
    kinds: list[str] = []
    head = ""
    reasoning = ""
    opened = rnd.random() < 0.2
    if opened:  # the template opened <think>: the reply starts inside it, with the bare close
        head = f"{reasoning_text(rnd)}\n</think>\n"
        kinds.append("opened")
    elif rnd.random() < 0.5:
        block, opening = reasoning_block(rnd)
        head = block + rnd.choice(["", "\n", "\n\n"])
        kinds.append(f"block:{opening}")
    if rnd.random() < 0.2:
        reasoning = reasoning_text(rnd)
        kinds.append("reasoning_content")
    language = rnd.randrange(4)
    shape = rnd.choice(["answer", "action", "markup", "markup2"] if strategy == "ReAct"
                       else ["answer", "answer", "markup", "markup2", "action"])
    kinds.append(shape)
    calls: list[tuple[str, dict]] = []
    answer = None
    if shape == "answer":
        answer = prose(rnd, rnd.randint(1, 8))
        if rnd.random() < 0.5:
            answer += "\n\n" + rnd.choice(FENCES) + "\n\n" + prose(rnd, rnd.randint(1, 4))
            kinds.append("fence")
        if strategy == "ReAct":
            thought = label(rnd, "thought", language) + prose(rnd, 3) + "\n" if rnd.random() < 0.8 else ""
            final = label(rnd, "final_answer", language)
            while not thought and final.startswith("#"):  # a heading alone is an answer's own (README)
                final = label(rnd, "final_answer", language)
            body = thought + final + answer
        else:
            body = answer
    elif shape == "action":
        name = rnd.choice(sorted(TOOLS))
        arguments = call_args(rnd, name, 0)
        calls.append((name, arguments))
        thought = label(rnd, "thought", language) + prose(rnd, 3) + "\n"
        body = thought + react_action(rnd, name, arguments, language)
        if rnd.random() < 0.3:  # an invented observation: dropped
            body += "\n" + label(rnd, "observation", language) + "made up"
            kinds.append("invented")
    else:
        families = [rnd.choice(MARKUP_FAMILIES)]
        if shape == "markup2":
            families.append(rnd.choice([f for f in MARKUP_FAMILIES if f not in ("cline", "qwen_fused")]))
        kinds += families
        parts = []
        for n, family in enumerate(families):
            name = rnd.choice(sorted(TOOLS))
            arguments = call_args(rnd, name, n)
            calls.append((name, arguments))
            parts.append(markup(rnd, name, arguments, family))
        lead = ""
        if strategy == "ReAct" or rnd.random() < 0.5:
            lead = label(rnd, "thought", language) + prose(rnd, 3) + "\n" if strategy == "ReAct" else prose(rnd, 4) + "\n\n"
        body = lead + "\n".join(parts)
    text = head + body
    return Reply(text=text, reasoning=reasoning, calls=calls, answer=answer, opened=opened, kinds=kinds,
                 language=language)


def cut(rnd: random.Random, reply: Reply) -> Reply:
    """``reply`` cut by the output limit at a drawn place (never at its very end)."""
    at = rnd.randrange(1, max(2, len(reply.text)))
    head = reply.text[:at]
    in_token = head.rfind("<") > head.rfind(">") or head.rfind("◁") > head.rfind("▷")
    return Reply(text=head, reasoning=reply.reasoning, calls=reply.calls, answer=reply.answer, opened=reply.opened,
                 cut=True, kinds=[*reply.kinds, "cut"], language=reply.language, cut_in_token=in_token)


def chunkings(rnd: random.Random, text: str) -> list[list[str]]:
    """Ways a stream may cut ``text``: whole, a character a chunk, random 1-40 pieces, and cuts put
    just inside each tag or special token (``<``, ``|``, ``▁``) and between an emoji's code points."""
    out = [[text], list(text)]
    sizes, at = [], 0
    while at < len(text):
        size = rnd.randint(1, 40)
        sizes.append(text[at: at + size])
        at += size
    out.append(sizes)
    cuts = sorted({i + 1 for i, ch in enumerate(text) if ch in "<|▁>:：\ufe0f\u20e3*#`"}
                  | {i for i, ch in enumerate(text) if ord(ch) > 0xFFFF or ch in "\ufe0f\u20e3\u200d"})
    cuts = [c for c in cuts if 0 < c < len(text)]
    if cuts:
        chosen = sorted(rnd.sample(cuts, min(len(cuts), rnd.randint(1, 12))))
        bounds = [0, *chosen, len(text)]
        out.append([text[a:b] for a, b in itertools.pairwise(bounds) if b > a])
    return out
