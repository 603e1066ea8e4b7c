"""The wave-36 fuzz campaign on the first rule (docs/model-round-trip.md): what a model plugin
returned goes back to it intact within the run, through the real plugin process.

Each run draws a model plugin's way of streaming (``STYLES``: how the official OpenAI, Anthropic,
DeepSeek, Gemini, Tongyi, Ollama, OpenAI-compatible, Moonshot, MiniMax and OpenAI Responses plugins
put a reply into ``LLMResultChunk`` deltas, as ``local_runner/contracts/`` re-states them), then
2-4 rounds: tool-call rounds (text and/or several calls, reasoning blocks in the content, content
parts with their own ``opaque_body``, an image part, the message's ``opaque_body`` spread over
chunks; odd call ids: empty, repeated within the reply or from an earlier round, very long,
unicode; arguments with unicode escapes, huge numbers, nested JSON, split anywhere), then an
answer; memory from an earlier conversation whose answer held reasoning.

Checked on every request the plugin writes after a round (``round_faults``):

* Function Calling: the round's assistant message carries the content as the plugin streamed it
  (the SDK's dump of it: neighbouring plain text parts joined, a block the reply ended inside
  closed before its calls: the documented exceptions), its ``opaque_body`` (dicts of several chunks
  merged), each call's id as the model sent it (an empty, repeated or over-long id replaced by one
  unique in the conversation), its name, and its arguments equal as JSON values to what the model
  sent, the arguments text being JSON; each call answered by one tool message with its id and its
  own result, in call order; a Gemini plugin gets one call a message, content with the first.
* ReAct: the scratchpad holds each round's thought as written and its action (name, and input
  equal as JSON values) with that call's own result; no reasoning and no ``opaque_body`` goes back.
* The memory's reasoning never reaches a request; the user sees no reasoning and no markup; every
  log node is finished.

``AGENT_FUZZ_EXAMPLES=N`` plays N runs per strategy from a random seed (printed with each fault)
instead of the fixed CI set (``RUNS``).
"""

from __future__ import annotations

import base64
import json
import math
import os
import random
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from dify_plugin.entities.model.message import AssistantPromptMessage

from local_runner import ModelSettings, PluginProcess, Scenario, ScriptedBackend, default_toolbox, run_scenario
from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import FUZZ_EXAMPLES_ENV, own_plugin

LONG = int(os.environ.get(FUZZ_EXAMPLES_ENV) or 0)
SEED = random.randrange(1 << 30) if LONG else 36_000
RUNS = LONG or 20  # per strategy
REASONING_MARK = "zqthink"
"""A word only reasoning holds (content blocks, reasoning parts, opaque bodies): never shown."""
MEMORY_MARK = "zqmemory"
"""A word only the memory's reasoning holds: never sent to the model."""
TOOLS = ("lookup", "get_weather")
PROVIDERS = {"gemini": "langgenius/gemini/google", "tongyi": "langgenius/tongyi/tongyi",
             "ollama": "langgenius/ollama/ollama", "deepseek": "langgenius/deepseek/deepseek",
             "moonshot": "langgenius/moonshot/moonshot", "anthropic": "langgenius/anthropic/anthropic",
             "minimax": "langgenius/minimax/minimax", "responses": "langgenius/openai/openai",
             "openai": "langgenius/openai/openai", "compat": "langgenius/openai_api_compatible/openai_api_compatible",
             "fragments": "langgenius/openai_api_compatible/openai_api_compatible",
             "signed_parts": "langgenius/vertex_ai/vertex_ai"}
STYLES = sorted(PROVIDERS)
FINISH_REASONS = {"gemini": ["STOP", "FinishReason.STOP"], "signed_parts": ["STOP", "1"], "ollama": ["stop"],
                  "tongyi": ["tool_calls", "stop", "null"], "responses": ["completed", "stop"]}
"""Finish reasons as each plugin writes them on a reply's last chunk (else ``tool_calls`` / ``stop``)."""
WORDS = ["Paris", "is", "mild", "today", "résumé", "naïve", "東京", "서울", "ok", "2+2=4", "🙂", "«quoted»", "a\tb",
         "line\nbreak", "`code`", "x<y", "50%"]


# --- drawing a model turn --------------------------------------------------------------------


@dataclass
class Call:
    """One call as the model sent it: ``id``, ``name``, the arguments text and its JSON value."""

    id: str
    name: str
    text: str
    value: Any


@dataclass
class Turn:
    """A drawn model turn: its chunk deltas (``ScriptedBackend`` raw chunks), what must go back
    (``content`` as the SDK dumps it, ``opaque``), its calls, its visible text."""

    style: str
    chunks: list[dict] = field(default_factory=list)
    content: Any = ""
    opaque: Any = None
    calls: list[Call] = field(default_factory=list)
    text: str = ""
    thought: str = ""
    usage: bool = True
    blocking: bool = False
    interleaved: str = ""
    """A second reasoning block inside the text (Claude's interleaved thinking)."""
    answer: str = ""
    """The answer's text (the last turn): the user sees it."""


def prose(rnd: random.Random, low: int = 1, high: int = 6) -> str:
    return " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(low, high)))


def reasoning(rnd: random.Random) -> str:
    return f"{REASONING_MARK} {prose(rnd)}"


def json_value(rnd: random.Random, depth: int = 0) -> Any:
    """A JSON value of the kinds models send: unicode text, huge and exponent numbers, nesting."""
    kind = rnd.randrange(10 if depth < 3 else 6)
    if kind == 0:
        return rnd.choice([0, -1, 2**63, 10**30, -(10**40), 123456789012345678901234567890])
    if kind == 1:
        return rnd.choice([0.1, 1e-300, 1.5e300, -2.5, 1e22, 6.02e23])
    if kind == 2:
        return rnd.choice([True, False, None])
    if kind in (3, 4, 5):
        return rnd.choice(["", " ", prose(rnd), "é\u0301", "\u2028\u2029", "😀👍🏽", "\\u0041 literal", 'quote " back \\ slash',
                           "</think>", "<tool_call>", "\x00\x1f", "\ufeffbom", "زمان", "a" * rnd.randint(1, 300)])
    if kind in (6, 7):
        return [json_value(rnd, depth + 1) for _ in range(rnd.randint(0, 3))]
    return {rnd.choice(["k", "ключ", "🔑", "", "a b", "$ref", "type"]) + str(n): json_value(rnd, depth + 1)
            for n in range(rnd.randint(0, 3))}


NUMBER_LITERALS = ["1e400", "-1E999", "1.0e+5", "12345678901234567890123456789.5", "0.1000000000000000055511151231257827",
                   "-0", "1E-400", "-0.0", "9007199254740993"]
"""Numbers as models write them that Python reads as another spelling (or not finite)."""
PLACEHOLDER = "@@number@@"


def arguments_text(rnd: random.Random, value: dict) -> str:
    """``value`` written as a model may: compact or spaced, escaped to ASCII or not, numbers as
    exponents where that is the same number."""
    literal = rnd.choice(NUMBER_LITERALS) if rnd.random() < 0.2 else None
    if literal:
        value["num"] = PLACEHOLDER
    text = json.dumps(value, ensure_ascii=rnd.random() < 0.4, separators=rnd.choice([(",", ":"), (", ", ": ")]))
    if literal:
        text = text.replace(json.dumps(PLACEHOLDER), literal)
        value["num"] = json.loads(literal)
    if rnd.random() < 0.2:
        text = " " + text + "\n"
    return text


def draw_id(rnd: random.Random, style: str, name: str, n: int, round_no: int, earlier: list[str]) -> str:
    """A call id as ``style``'s plugin makes it, or an odd one."""
    if style == "ollama":
        return str(n)  # the plugin numbers the calls of each reply: no id of the model's
    odd = rnd.random()
    if odd < 0.06:
        return ""
    if odd < 0.12 and earlier:
        return rnd.choice(earlier)  # repeated: within the reply or from an earlier round
    if odd < 0.16:
        return rnd.choice(["呼叫-1", "call 🙂", 'id"quote', "id\\back", "\u00e9t\u00e9"]) + str(n)
    if odd < 0.19:
        return "sig::" + base64.b64encode(rnd.randbytes(rnd.choice([300, 3000, 50_000]))).decode()
    if odd < 0.2:
        return "x" * 70_000  # past the longest id kept
    if style == "tongyi":
        return name
    if style == "ollama":
        return str(n)
    if style == "gemini":
        return f"gemini_call_{name}_{rnd.randrange(10**15)}"
    if style == "signed_parts":
        return f"{name}::sig::{base64.b64encode(rnd.randbytes(48)).decode()}"
    if style == "anthropic" or style == "minimax":
        return "toolu_" + "".join(rnd.choices("ABCDEFGHabcdefgh0123456789", k=24))
    return "call_" + "".join(rnd.choices("ABCDEFabcdef0123456789", k=rnd.choice([9, 24])))


def draw_calls(rnd: random.Random, style: str, round_no: int, earlier: list[str]) -> list[Call]:
    calls = []
    for n in range(rnd.choice([1, 1, 2, 3, 4])):
        name = rnd.choice(TOOLS)
        value = {"q" if name == "lookup" else "city": prose(rnd, 1, 3), "tag": f"t{round_no}x{n}"}
        for extra in range(rnd.choice([0, 0, 1, 2])):
            value[f"extra{extra}"] = json_value(rnd)
        ids = [*earlier, *(c.id for c in calls)]
        calls.append(Call(draw_id(rnd, style, name, n, round_no, ids), name, arguments_text(rnd, value), value))
    return calls


def split(rnd: random.Random, text: str, most: int = 40) -> list[str]:
    """``text`` in random pieces of 1..``most`` characters."""
    pieces, at = [], 0
    while at < len(text):
        size = rnd.randint(1, most)
        pieces.append(text[at: at + size])
        at += size
    return pieces


def complete(call: Call) -> dict:
    return {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.text}}


def draw_turn(rnd: random.Random, style: str, strategy: str, round_no: int, earlier: list[str], answer: bool) -> Turn:  # noqa: C901 - one branch a plugin
    """One model turn as ``style``'s plugin streams it: tool calls (Function Calling) or a ReAct
    step, or (``answer``) the final answer."""
    turn = Turn(style=style, usage=rnd.random() < 0.8)
    think = reasoning(rnd) if rnd.random() < 0.7 else ""
    if strategy == "ReAct":
        calls = [] if answer else draw_calls(rnd, style, round_no, earlier)[:1]
        thought = prose(rnd).replace("\n", " ").strip() or "ok"
        turn.thought = thought
        if answer:
            turn.answer = prose(rnd)
            turn.text = f"Thought: {thought}\nFinal Answer: {turn.answer}"
        else:
            call = calls[0]
            turn.text = f"Thought: {thought}\nAction: {call.name}\nAction Input: {call.text.strip()}"
        turn.calls = calls
    else:
        turn.calls = [] if answer else draw_calls(rnd, style, round_no, earlier)
        turn.text = prose(rnd) if answer or rnd.random() < 0.5 else rnd.choice(["", "", "", "\n\n", " "])
        turn.answer = turn.text if answer else ""
    text = turn.text
    calls = turn.calls if strategy != "ReAct" else []  # ReAct declares no tools: its calls are text
    chunks: list[dict] = []
    pieces: list[Any] = []  # what AssistantReply gathers: strings, or content-part dicts
    opaque: Any = None
    open_block = False

    def say(content: Any, **more: Any) -> None:
        message = {"content": content, **more}
        chunks.append({"message": message})
        if isinstance(content, list):
            pieces.extend(content)
        elif content:
            pieces.append(content)

    def merge(body: Any) -> None:
        nonlocal opaque
        opaque = {**opaque, **body} if isinstance(opaque, dict) and isinstance(body, dict) else body

    blocking = rnd.random() < 0.2 and style not in ("fragments", "ollama")
    turn.blocking = blocking
    if style in ("openai", "responses", "fragments"):
        for piece in split(rnd, text):
            say(piece)
        if style == "fragments":  # raw deltas: the id and name on the head, arguments in pieces
            for call in calls:
                heads = split(rnd, call.text, 12) or [""]
                while len(heads) > 1 and not heads[0].strip():  # a head of blank arguments: left open (docs/fuzzing.md)
                    heads[:2] = [heads[0] + heads[1]]
                chunks.append({"message": {"content": "", "tool_calls": [
                    {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": heads[0]}}]}})
                for piece in heads[1:]:
                    chunks.append({"message": {"content": "", "tool_calls": [
                        {"id": "", "type": "function", "function": {"name": "", "arguments": piece}}]}})
            calls_chunk = []
        else:
            calls_chunk = [complete(c) for c in calls]
        body = None
        if style == "responses":
            items = [{"type": "reasoning", "id": f"rs_{round_no}", "encrypted_content": base64.b64encode(think.encode()).decode(),
                      "summary": [{"type": "summary_text", "text": think}]}] if think else []
            if text:
                items.append({"type": "message", "id": f"msg_{round_no}", "phase": "commentary" if calls else "final_answer",
                              "content": [{"type": "output_text", "text": text}]})
            items += [{"type": "function_call", "call_id": c.id, "name": c.name, "arguments": c.text} for c in calls]
            body = {"responses_output": items}
        chunks.append({"message": {"content": "", "tool_calls": calls_chunk, **({"opaque_body": body} if body else {})}})
        if body:
            merge(body)
    elif style in ("compat", "deepseek", "tongyi", "moonshot", "minimax", "anthropic", "ollama"):
        opening = {"deepseek": "<think>\n<!--dify-deepseek-reasoning-->", "moonshot": "<think>"}.get(style, "<think>\n")
        closing = {"moonshot": "</think>", "minimax": "\n</think>\n", "anthropic": "\n</think>\n\n"}.get(style, "\n</think>")
        if think:
            say(opening)
            for piece in split(rnd, think, 10):
                say(piece)
            if text and style in ("compat", "deepseek", "tongyi", "moonshot", "ollama"):
                text_pieces = split(rnd, text, 16 if style == "ollama" else 30)
                say(closing + text_pieces[0])
                for piece in text_pieces[1:]:
                    say(piece)
            elif style == "ollama":
                open_block = bool(calls)  # a call without text: Ollama's plugin never closes the block
                if not calls:
                    say(closing)
            else:
                say(closing)
                if style == "anthropic" and calls and not text and rnd.random() < 0.5:
                    say(closing)  # 0.3.33 closes a thinking block before tool_use twice
                middle = rnd.randrange(len(text) + 1) if style == "anthropic" and text and rnd.random() < 0.4 else -1
                for piece in split(rnd, text[:middle] if middle >= 0 else text, 6 if style == "anthropic" else 30):
                    say(piece)
                if middle >= 0:  # interleaved thinking: a second signed block inside the text
                    say(opening)
                    second = reasoning(rnd)
                    for piece in split(rnd, second, 10):
                        say(piece)
                    say(closing)
                    for piece in split(rnd, text[middle:], 6):
                        say(piece)
                    turn.interleaved = second
        else:
            for piece in split(rnd, text, 16 if style == "ollama" else 30):
                say(piece)
        if style == "ollama" and calls:  # every packet with calls repeats the calls so far
            for upto in range(1, len(calls) + 1):
                chunks.append({"message": {"content": "", "tool_calls": [complete(c) for c in calls[:upto]]},
                               "finish_reason": "tool_calls"})
            chunks.append({"message": {"content": ""}})
        else:
            body = None
            if style in ("anthropic", "minimax"):
                blocks = ([{"type": "thinking", "thinking": think, "signature": base64.b64encode(rnd.randbytes(64)).decode()}]
                          if think else [])
                if style == "anthropic" and think and rnd.random() < 0.3:
                    blocks.append({"type": "redacted_thinking", "data": base64.b64encode(rnd.randbytes(90)).decode()})
                if turn.interleaved:
                    blocks += [{"type": "text", "text": text[:middle]},
                               {"type": "thinking", "thinking": turn.interleaved, "signature": "sig2"},
                               {"type": "text", "text": text[middle:]}]
                else:
                    blocks += [{"type": "text", "text": text}] if text else []
                blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": _finite(c.value)} for c in calls]
                body = {"anthropic_content" if style == "anthropic" else "minimax_anthropic_content": blocks}
            if style in ("deepseek", "moonshot") and think and rnd.random() < 0.5:
                body = {"reasoning_content": think}
            chunks.append({"message": {"content": "", "tool_calls": [complete(c) for c in calls],
                                       **({"opaque_body": body} if body else {})}})
            if body:
                merge(body)
    elif style in ("gemini", "signed_parts"):
        def part(data: str, signed: bool = False) -> dict:
            own = {"thought_signature": base64.b64encode(rnd.randbytes(32)).decode()} if signed else None
            return {"type": "text", "data": data, "opaque_body": own}

        signed = style == "signed_parts"
        if think:
            thoughts = split(rnd, think, 12)
            say([part("<think>\n\n")])
            for piece in thoughts:
                say([part(piece)])
            if text:
                say([part("\n\n</think>" + text[:8], signed and rnd.random() < 0.5)])
                for piece in split(rnd, text[8:]):
                    say([part(piece, signed and rnd.random() < 0.3)])
            elif not (blocking and calls):
                say([part("\n\n</think>")])
            else:
                open_block = True  # a blocking reply of thoughts and a call leaves <think> open
        else:
            for piece in split(rnd, text):
                say([part(piece, signed and rnd.random() < 0.3)])
        if signed and rnd.random() < 0.3:  # an image the model drew
            say([{"type": "image", "format": "png", "mime_type": "image/png",
                  "base64_data": base64.b64encode(rnd.randbytes(24)).decode(), "url": "", "filename": "", "detail": "low",
                  "opaque_body": {"thought_signature": "img"}}])
        chunks.append({"message": {"content": [], "tool_calls": [complete(c) for c in calls]}})
    # the message's opaque_body, sometimes spread over chunks
    if rnd.random() < 0.25:
        for n in range(rnd.randint(1, 3)):
            extra = {f"k{n}": json_value(rnd), "signature": base64.b64encode(rnd.randbytes(16)).decode()} \
                if rnd.random() < 0.9 else [REASONING_MARK, n]
            at = rnd.randrange(len(chunks))
            chunks[at]["message"]["opaque_body"] = (
                {**chunks[at]["message"]["opaque_body"], **extra}
                if isinstance(chunks[at]["message"].get("opaque_body"), dict) and isinstance(extra, dict) else extra)
        opaque = None
        for chunk in chunks:
            if chunk["message"].get("opaque_body") is not None:
                merge(chunk["message"]["opaque_body"])
    if blocking:
        chunks = [_blocked(chunks)]
        open_block = open_block or (style == "ollama")
    else:
        if chunks and chunks[-1].get("finish_reason") is None and rnd.random() < 0.6:
            chunks[-1]["finish_reason"] = rnd.choice(FINISH_REASONS.get(style, ["tool_calls" if calls else "stop"]))
            if style in ("anthropic",):
                chunks[-1]["finish_reason"] = "tool_use" if calls else "end_turn"
        for chunk in chunks:  # a plugin's empty content may come as null
            if chunk["message"].get("content") == "" and rnd.random() < 0.2:
                chunk["message"]["content"] = None
    turn.chunks = chunks
    turn.opaque = opaque
    turn.content = _content(pieces, "</think>" if open_block and calls and strategy != "ReAct" else None)
    return turn


def _blocked(chunks: list[dict]) -> dict:
    """A blocking reply: one chunk with the whole content, every call, the merged opaque_body."""
    contents = [c["message"]["content"] for c in chunks]
    if any(isinstance(c, list) for c in contents):
        content: Any = [p for c in contents for p in (c if isinstance(c, list) else [{"type": "text", "data": c}] if c else [])]
    else:
        content = "".join(contents)
    calls, seen = [], set()
    for chunk in chunks:
        for call in chunk["message"].get("tool_calls") or []:
            key = json.dumps(call)
            if key not in seen:  # Ollama's repeated packets
                seen.add(key)
                calls.append(call)
    opaque: Any = None
    for chunk in chunks:
        body = chunk["message"].get("opaque_body")
        if body is not None:
            opaque = {**opaque, **body} if isinstance(opaque, dict) and isinstance(body, dict) else body
    message = {"content": content, "tool_calls": calls}
    if opaque is not None:
        message["opaque_body"] = opaque
    return {"message": message}


def _content(pieces: list[Any], closing: str | None) -> Any:
    """What must go back as the message's content: the pieces as gathered (neighbouring plain
    text parts joined), the open block closed, as the SDK dumps it."""
    if not any(isinstance(p, dict) for p in pieces):
        content: Any = "".join(pieces) + ("\n" + closing if closing else "")
    else:
        content = []
        for piece in pieces:
            plain = isinstance(piece, str) or (piece.get("type") == "text" and piece.get("opaque_body") is None)
            data = piece if isinstance(piece, str) else piece.get("data")
            if plain and content and content[-1].get("_plain"):
                content[-1]["data"] += data
            elif plain:
                content.append({"type": "text", "data": data, "_plain": True})
            else:
                content.append(dict(piece))
        if closing:
            for part in reversed(content):
                if part.get("type") == "text":
                    if part.get("_plain"):
                        part["data"] += "\n" + closing
                    break
        for part in content:
            part.pop("_plain", None)
    return AssistantPromptMessage(content=content).model_dump(mode="json")["content"]


# --- a run ------------------------------------------------------------------------------------


class EchoTool(ScriptedTool):
    """Answers each call with its own ``tag`` argument, so that each result names its call."""

    def run(self, parameters: dict[str, Any], released: threading.Event) -> Iterator[dict[str, Any]]:
        yield text_message(f"result of {parameters.get('tag')} done")


def tools() -> list[ScriptedTool]:
    return [EchoTool(name="lookup", description="Look a word up",
                     parameters=[ToolParam("q", required=False, description="the word")]),
            EchoTool(name="get_weather", description="Weather of a city",
                     parameters=[ToolParam("city", required=False, description="the city")])]


@dataclass
class Plan:
    strategy: str
    style: str
    turns: list[Turn]
    memory: list[dict]


def draw_plan(rnd: random.Random, strategy: str) -> Plan:
    style = rnd.choice(STYLES)
    rounds = rnd.randint(2, 4)
    turns: list[Turn] = []
    earlier: list[str] = []
    for number in range(1, rounds + 1):
        turn = draw_turn(rnd, style, strategy, number, earlier, answer=number == rounds)
        earlier += [c.id for c in turn.calls]
        turns.append(turn)
    memory = []
    for n in range(rnd.choice([0, 1, 2])):
        memory += [{"role": "user", "content": f"earlier question {n}"},
                   {"role": "assistant", "content": f"<think>{MEMORY_MARK} old</think>earlier answer {n}"}]
    return Plan(strategy, style, turns, memory)


def scripted(turn: Turn) -> dict:
    out: dict[str, Any] = {"chunks": [dict(c) for c in turn.chunks]}
    if not turn.usage:
        out["usage"] = None
    if turn.blocking:
        out["finish_reason"] = None
    return out


def play(plugin: PluginProcess, plan: Plan):
    toolbox = default_toolbox()
    for tool in tools():
        toolbox.add(tool)
    backend = ScriptedBackend([scripted(t) for t in plan.turns])
    model = ModelSettings(provider=PROVIDERS[plan.style], model="gpt-4o-mini")
    scenario = Scenario(query="Look these up.", tools=list(TOOLS), strategy=plan.strategy, model=model,
                        history=plan.memory, maximum_iterations=6)
    try:
        return backend, run_scenario(scenario, backend, toolbox, plugin=plugin, timeout=60)
    finally:
        backend.release()
        toolbox.release()


# --- the checks -------------------------------------------------------------------------------


def _finite(value: Any) -> Any:
    """``value`` with every float that is not finite as Python's JSON reader takes ``1e400``."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def _json(text: str) -> tuple[bool, Any]:
    """(whether ``text`` is JSON as every provider reads it, its value)."""
    def refuse(constant: str) -> Any:
        raise ValueError(constant)
    try:
        return True, json.loads(text, parse_constant=refuse)
    except ValueError:
        return False, None


def fc_round_faults(plan: Plan, requests: list[dict]) -> list[str]:  # noqa: C901 - one check a clause of the rule
    faults: list[str] = []
    split_calls = PROVIDERS[plan.style].split("/")[-2] in ("gemini", "xinference")
    if len(requests) != len(plan.turns):
        return [f"{len(requests)} requests for {len(plan.turns)} turns"]
    sent_ids: list[list[str]] = []
    for number, request in enumerate(requests[1:], start=1):
        messages = request["prompt_messages"]
        query = max(i for i, m in enumerate(messages) if m["role"] == "user" and m.get("content") == "Look these up.")
        after = messages[query + 1:]
        rounds = _group(after, plan.turns[:number], split_calls)
        if len(rounds) != number:
            faults.append(f"request {number + 1}: {len(rounds)} rounds for {number}: {json.dumps(after)[:600]}")
            continue
        taken: set[str] = set()
        for index, (turn, messages_of_round) in enumerate(zip(plan.turns[:number], rounds, strict=True)):
            where = f"request {number + 1}, round {index + 1}"
            assistants = [m for m in messages_of_round if m["role"] == "assistant"]
            tool_messages = [m for m in messages_of_round if m["role"] == "tool"]
            first = assistants[0]
            if first.get("content") != turn.content:
                faults.append(f"{where}: content {first.get('content')!r:.400} != {turn.content!r:.400}")
            if first.get("opaque_body") != turn.opaque:
                faults.append(f"{where}: opaque_body {json.dumps(first.get('opaque_body'))[:300]} != {json.dumps(turn.opaque)[:300]}")
            calls = [c for m in assistants for c in m.get("tool_calls") or []]
            if [c["function"]["name"] for c in calls] != [c.name for c in turn.calls]:
                faults.append(f"{where}: names {[c['function']['name'] for c in calls]} != {[c.name for c in turn.calls]}")
                continue
            ids = [c["id"] for c in calls]
            if number > index + 1 and len(sent_ids) > index and sent_ids[index] != ids:
                faults.append(f"{where}: ids changed between requests {sent_ids[index]} -> {ids}")
            if len(sent_ids) <= index:
                sent_ids.append(ids)
            before: set[str] = set()
            for call, sent in zip(turn.calls, calls, strict=True):
                keep = call.id and len(call.id) <= 65_536 and call.id not in taken and call.id not in before \
                    and [c.id for c in turn.calls].count(call.id) == 1
                if keep and sent["id"] != call.id:
                    faults.append(f"{where}: id {call.id[:80]!r} went back as {sent['id'][:80]!r}")
                if not sent["id"] or sent["id"] in taken or sent["id"] in before:
                    faults.append(f"{where}: id {sent['id'][:80]!r} not unique (model's {call.id[:80]!r})")
                before.add(call.id)
                before.add(sent["id"])
                valid, value = _json(sent["function"]["arguments"])
                if not valid:
                    faults.append(f"{where}: arguments not JSON: {sent['function']['arguments'][:300]!r} (model's {call.text[:300]!r})")
                elif value != _finite(call.value) and value != call.value:
                    faults.append(f"{where}: arguments {sent['function']['arguments'][:300]!r} != {call.text[:300]!r}")
            taken |= before
            if [m.get("tool_call_id") for m in tool_messages] != [c["id"] for c in calls]:
                faults.append(f"{where}: tool messages answer {[m.get('tool_call_id', '')[:40] for m in tool_messages]}, "
                              f"calls {[c['id'][:40] for c in calls]}")
            for call, message in zip(turn.calls, tool_messages, strict=False):
                if f"result of {call.value['tag']} done" not in str(message.get("content")):
                    faults.append(f"{where}: call {call.value['tag']} answered by {str(message.get('content'))[:200]!r}")
    return faults


def _group(after: list[dict], turns: list[Turn], split_calls: bool) -> list[list[dict]]:
    """The messages after the query, one list a round: an assistant message and what follows it
    (for a plugin that takes one call a message, as many assistant messages as the round has calls)."""
    rounds: list[list[dict]] = []
    owed = 0  # calls of the current round still to come in later messages
    for message in after:
        if message["role"] == "assistant" and owed > 0 and rounds:
            rounds[-1].append(message)
            owed -= len(message.get("tool_calls") or [])
        elif message["role"] == "assistant":
            rounds.append([message])
            index = len(rounds) - 1
            if split_calls and index < len(turns):
                owed = len(turns[index].calls) - len(message.get("tool_calls") or [])
        elif rounds:
            rounds[-1].append(message)
    return rounds


def react_round_faults(plan: Plan, requests: list[dict]) -> list[str]:
    faults: list[str] = []
    if len(requests) != len(plan.turns):
        return [f"{len(requests)} requests for {len(plan.turns)} turns"]
    for number, request in enumerate(requests[1:], start=1):
        scratch = "\n".join(str(m.get("content")) for m in request["prompt_messages"] if m["role"] == "assistant")
        for index, turn in enumerate(plan.turns[:number]):
            where = f"request {number + 1}, round {index + 1}"
            if f"Thought: {turn.thought}" not in scratch:
                faults.append(f"{where}: thought {turn.thought!r} not in the scratchpad {scratch[:500]!r}")
            call = turn.calls[0]
            found = _actions(scratch)
            if index >= len(found):
                faults.append(f"{where}: no action {index + 1} in {scratch[:600]!r}")
                continue
            name, value, observation = found[index]
            if name != call.name or (value != call.value and value != _finite(call.value)):
                faults.append(f"{where}: action {name} {json.dumps(value)[:300]} != {call.name} {call.text[:300]}")
            if f"result of {call.value['tag']} done" not in observation:
                faults.append(f"{where}: observation {observation[:200]!r} for {call.value['tag']}")
        for message in request["prompt_messages"]:
            if message["role"] == "assistant" and message.get("opaque_body") is not None:
                faults.append(f"request {number + 1}: an opaque_body in ReAct's scratchpad")
    return faults


def _actions(scratch: str) -> list[tuple[str, Any, str]]:
    """(name, input, observation) of each ``Action:`` JSON blob in a ReAct scratchpad."""
    out = []
    for block in scratch.split("Action:\n```json\n")[1:]:
        blob, _, rest = block.partition("\n```\n")
        valid, decoded = _json(blob)
        if not valid or not isinstance(decoded, dict):
            out.append(("?", blob, rest))
            continue
        out.append((decoded.get("action"), decoded.get("action_input"), rest.split("\nThought:")[0]))
    return out


def run_faults(plan: Plan, backend: ScriptedBackend, result) -> list[str]:
    faults = []
    if not result.ok:
        faults.append(f"run failed: {result.error_text[:300]}")
    if result.unfinished_logs():
        faults.append(f"logs left unfinished: {[n.label for n in result.unfinished_logs()]}")
    requests = backend.requests
    faults += (react_round_faults if plan.strategy == "ReAct" else fc_round_faults)(plan, requests)
    for number, request in enumerate(requests, start=1):
        text = json.dumps(request["prompt_messages"], ensure_ascii=False)
        if MEMORY_MARK in text:
            faults.append(f"request {number}: the memory's reasoning went back")
        if plan.strategy == "ReAct" and REASONING_MARK in text:
            faults.append(f"request {number}: reasoning in ReAct's prompt")
    shown = result.text or ""
    answer = plan.turns[-1].answer
    if result.ok and "".join(answer.split()) not in "".join(shown.split()):
        faults.append(f"the answer {answer!r} is not shown: {shown[-300:]!r}")
    for sign in (REASONING_MARK, MEMORY_MARK, "<think", "</think>", "<!--dify"):
        if sign in shown:
            faults.append(f"the user sees {sign!r}: {shown[:300]!r}")
    return faults


def campaign(plugin: PluginProcess, strategy: str, runs: int, seed: int) -> list[str]:
    found = []
    for n in range(runs):
        rnd = random.Random(seed + n)
        plan = draw_plan(rnd, strategy)
        backend, result = play(plugin, plan)
        if faults := run_faults(plan, backend, result):
            found.append(f"seed {seed + n} ({plan.style}, {len(plan.turns)} turns): " + "\n    ".join(faults[:4]))
    return found


plugin = own_plugin()


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
def test_each_round_goes_back_as_the_model_plugin_returned_it(plugin, strategy):
    found = campaign(plugin, strategy, RUNS, SEED)
    assert not found, f"{len(found)} of {RUNS} runs:\n" + "\n".join(found[:6])


# --- the faults the campaign found, pinned (docs/fuzzing.md, wave 36) ----------------------------


def _pinned(plugin: PluginProcess, strategy: str, style: str, turns: list[Turn]) -> list[str]:
    plan = Plan(strategy, style, turns, [])
    backend, result = play(plugin, plan)
    return run_faults(plan, backend, result)


def _calls_turn(style: str, calls: list[Call], text_chunks: list[str]) -> Turn:
    chunks = [{"message": {"content": piece}} for piece in text_chunks]
    chunks.append({"message": {"content": "", "tool_calls": [complete(c) for c in calls]}, "finish_reason": "tool_calls"})
    return Turn(style=style, chunks=chunks, content="".join(text_chunks), calls=calls)


def _answer_turn(style: str, text: str) -> Turn:
    return Turn(style=style, chunks=[{"message": {"content": text}}], content=text, text=text, answer=text)


def _tagged(call_id: str, name: str, tag: str, text: str = "") -> Call:
    text = text or json.dumps({"q": "x", "tag": tag})
    return Call(call_id, name, text, json.loads(text))


def test_pinned_calls_of_one_id_keep_their_order_and_huge_numbers_go_back_as_json(plugin):
    """Tongyi's ids are the tools' names; a number past a float's range was sent back as Infinity;
    Kimi's bare </think> after reasoning that ends in a code span got a second </think>."""
    calls = [_tagged("lookup", "lookup", "t1x0", '{"q": "a", "tag": "t1x0", "n": -1E999}'),
             _tagged("get_weather", "get_weather", "t1x1"), _tagged("lookup", "lookup", "t1x2")]
    first = _calls_turn("tongyi", calls, ["<think>", "zqthink read `a.py`", "</think>"])
    assert _pinned(plugin, "function_calling", "tongyi", [first, _answer_turn("tongyi", "done")]) == []


def test_pinned_a_closing_tag_in_a_react_action_input_reaches_the_tool(plugin):
    call = _tagged("", "lookup", "t1x0", '{"q": "</think>", "tag": "t1x0"}')
    step = Turn(style="openai", chunks=[{"message": {"content": f"Thought: look.\nAction: lookup\nAction Input: {call.text}"}}],
                calls=[call], thought="look.")
    answer = _answer_turn("openai", "Thought: ok\nFinal Answer: done")
    answer.answer = "done"
    assert _pinned(plugin, "ReAct", "openai", [step, answer]) == []
