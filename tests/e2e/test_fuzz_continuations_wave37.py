"""The wave-37 fuzz campaign: the two rules above all (docs/model-round-trip.md) on the paths the
earlier campaigns left out, through the real plugin process: the requests the plugin writes
beyond one request a model turn.

A run draws one model plugin's way of streaming (``test_fuzz_roundtrip_wave36.STYLES``, Gemini's
one-call-a-message replay left to that campaign) and 2-5 model turns mixing:

* tool-call rounds as that plugin streams them (reasoning blocks, ``opaque_body`` spread over
  chunks, odd call ids, arguments of every JSON shape: ``draw_turn``);
* a call reply cut by the output limit (its calls answered "not run", the model asked again);
* a reply refused and asked again: Function Calling, a call to a tool the node lacks or call
  markup of a node tool that cannot be read; ReAct, an unknown tool, the tool's schema echoed as
  the action input, a reply that is only a Thought; both, a reply of only reasoning; and
  Function Calling's call written in the text (sent back as a native call, or as it was);
* the answer cut by the output limit (at a word boundary; by its finish reason, or by its usage
  for a blocking reply) and its rest in the next reply: alone, after ReAct's label, the whole
  answer written again, or cut again (the run ends with a notice);
* the iteration limit, four identical calls, or the run's deadline, so the last request asks for
  the answer without tools;
* conversation memory (tool calls with their results, reasoning in the content and in
  ``opaque_body``, a user message with an image), and a small context window with large tool
  results and memory, so memory and old observations are trimmed; ReAct on a completion model.

Checked on every request (first rule): each earlier model turn of this run goes back as the model
plugin sent it, or is left out whole (a reply with no visible text): Function Calling, its content
as the SDK dumps it, its ``opaque_body``, its calls' ids, names and arguments, each answered by one
tool message in call order, and no text the plugin wrote joined to it; ReAct, its thought, action
and input, its refused text or its cut answer, in order, with no reasoning. Memory turns go back
whole or not at all, without reasoning, calls paired with their results. Second rule: the plugin
lives (no line over the daemon's limit), every log node is finished, the user sees no reasoning or
markup, and the answer shown ends with exactly what the model wrote as its answer, a cut answer and
its rest joined without loss or duplication.

``AGENT_FUZZ_EXAMPLES=N`` plays N runs per strategy from a random seed (printed with each fault)
instead of the fixed CI set (``RUNS``).
"""

from __future__ import annotations

import json
import os
import random
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from agent_core import prompts
from agent_core.loop import deadline_margin
from local_runner import ModelSettings, PluginProcess, Scenario, ScriptedBackend, default_toolbox, run_scenario
from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import FUZZ_EXAMPLES_ENV, own_plugin, text_of
from tests.e2e.test_fuzz_roundtrip_wave36 import (
    PROVIDERS,
    REASONING_MARK,
    Call,
    Turn,
    _actions,
    _content,
    _finite,
    _json,
    complete,
    draw_turn,
    reasoning,
    split,
)

LONG = int(os.environ.get(FUZZ_EXAMPLES_ENV) or 0)
SEED = random.randrange(1 << 30) if LONG else 37_000
RUNS = LONG or 12  # per strategy
MEMORY_MARK = "zqmemory"
"""A word only the memory's reasoning holds: never sent to the model nor shown."""
STYLES = sorted(style for style in PROVIDERS if style != "gemini")
QUERY = "Look these up."
ANSWER_WORDS = ["Paris", "is", "mild", "today", "résumé", "東京", "ok", "2+2=4", "«quoted»", "x<y", "50%", "and",
                "the", "capital", "of", "France", "weather", "🙂"]
SHORTENED = "[shortened to save context:"
BROKEN_MARKUP = "<minimax:tool_call>\n<invoke nam='lookup'>y</invoke>\n</minimax:tool_call>"
"""MiniMax's call markup with a broken attribute (``tests/e2e/test_unreadable_markup_answers.py``)."""
SCHEMA_ECHO = {"type": "object", "properties": {"q": {"type": "string", "description": "the word"}}}


# --- drawing a run ----------------------------------------------------------------------------


@dataclass
class Step:
    """One model turn of the run and what must go back of it.

    ``kind``: ``calls`` (a tool-call round), ``cut_calls``, ``unknown``, ``markup``, ``echo``,
    ``thought_only``, ``answer``, ``cut_answer`` (the cut start of the answer), ``rest``.
    ``turn``: the chunks and the expected message (``Turn``). ``replay``: what a ReAct scratchpad
    must hold of it, in order."""

    kind: str
    turn: Turn
    replay: list[str] = field(default_factory=list)
    delay: float = 0.0
    extra: dict = field(default_factory=dict)
    """More of the scripted turn (``ScriptedBackend``): a blocking reply's usage, no finish reason."""


@dataclass
class Plan:
    strategy: str
    style: str
    steps: list[Step]
    memory: list[dict]
    answer: str
    """What the user must read at the end of the answer (a cut one joined with its rest)."""
    joint: str = ""
    """The whitespace the model put between a cut answer's start and its rest ('' when not cut)."""
    notice: str = ""
    """The notice the run ends with after the answer (the limit cut its rest too)."""
    completion: bool = False
    """ReAct on a completion model: the whole prompt is one text."""
    maximum_iterations: int = 10
    run_timeout: int | None = None
    small_window: bool = False
    big_results: bool = False
    modes: list[str] = field(default_factory=list)


def words(rnd: random.Random, low: int, high: int) -> list[str]:
    return [rnd.choice(ANSWER_WORDS) for _ in range(rnd.randint(low, high))]


def text_turn(rnd: random.Random, style: str, text: str, *, finish: str | None = "stop", think: bool | None = None,
              calls: list[Call] | None = None, opaque: Any = None, blocking: bool = False) -> Turn:
    """A turn streamed as most plugins stream a text reply: a ``<think>`` block first (maybe),
    the text in random pieces, the calls whole on the last chunk, ``opaque`` on a random chunk
    (or a signature of its own on some text parts, for Vertex AI's plugin, ``signed_parts``);
    ``blocking``: all of it in one chunk."""
    think = rnd.random() < 0.5 if think is None else think
    pieces: list[Any] = []
    if think:
        pieces += ["<think>\n", *split(rnd, reasoning(rnd), 10), "\n</think>\n\n"]
    pieces += split(rnd, text, 20)
    if style == "signed_parts":  # content parts, some signed
        pieces = [{"type": "text", "data": piece, "opaque_body": {"thought_signature": f"s{n}"} if rnd.random() < 0.3 else None}
                  for n, piece in enumerate(pieces)]
    if blocking:
        whole = pieces if style == "signed_parts" else "".join(pieces)
        chunks = [{"message": {"content": whole, "tool_calls": [complete(c) for c in calls or []]}}]
    else:
        chunks = [{"message": {"content": [piece] if style == "signed_parts" else piece}} for piece in pieces]
        chunks.append({"message": {"content": [] if style == "signed_parts" else "", "tool_calls": [complete(c) for c in calls or []]}})
    if opaque is not None:
        chunks[rnd.randrange(len(chunks))]["message"]["opaque_body"] = opaque
    if finish is not None:
        chunks[-1]["finish_reason"] = finish
    content = _content(pieces, None) if style == "signed_parts" else "".join(pieces)
    return Turn(style=style, chunks=chunks, content=content, opaque=opaque, calls=list(calls or []), text=text,
                blocking=blocking)


def opaque_body(rnd: random.Random, style: str) -> Any:
    """A message's ``opaque_body`` as ``style``'s plugin may send it with a text reply (or none)."""
    if rnd.random() < 0.5:
        return None
    if style == "anthropic":
        return {"anthropic_content": [{"type": "thinking", "thinking": f"{REASONING_MARK} a", "signature": "sig"}]}
    if style == "responses":
        return {"responses_output": [{"type": "reasoning", "id": "rs_9", "encrypted_content": "ZW5j"}]}
    return {"signature": f"sig{rnd.randrange(1000)}", "k": [1, {"x": None}]}


def cut_answer_steps(rnd: random.Random, plan: Plan) -> list[Step]:
    """An answer the output limit cut at a word boundary, then its rest (the rest alone, the rest
    after ReAct's label, the whole answer written again, or a rest the limit cut too, which ends
    the run with a notice); sets the plan's answer."""
    said = words(rnd, 3, 9)
    at = rnd.randrange(1, len(said))
    while said[at - 1] == said[at]:  # "is" then "is ...": read as the cut word written again (loop.repeated_head)
        said[at] = rnd.choice([w for w in ANSWER_WORDS if w != said[at - 1]])
    head, rest = " ".join(said[:at]), " ".join(said[at:])
    if rest.startswith(head):  # a rest that writes the cut answer again is a restart (docs/architecture.md)
        rest = "ok " + rest if not head.startswith("ok") else "and " + rest
    how = rnd.choice(["alone", "alone", "label", "restart", "cut_again"])
    if how == "label" and plan.strategy != "ReAct":
        how = "alone"
    if how == "cut_again" and head.startswith(rest.split()[0]):
        # a rest cut again while it reads as the answer written again from its start is taken for a
        # restart the limit cut (nothing new: not shown); a real limit cuts a restart past the cut
        rest = ("ok " if not head.startswith("ok") else "and ") + rest
    space = "head" if how == "label" else rnd.choice(["head", "rest", "rest"])  # where the model's space stands
    head_text, rest_text = (head + " ", rest) if space == "head" else (head, " " + rest)
    if how == "label":
        rest_text = f"Final Answer: {rest}"
    elif how == "restart":  # the model writes its answer again from the start, then goes on
        rest_text = head + " " + rest
    plan.answer, plan.joint = head + " " + rest, " "
    plan.modes.append(how)
    react = plan.strategy == "ReAct"
    thought = " ".join(words(rnd, 1, 3))
    blocking = not plan.small_window and rnd.random() < 0.2  # cut known from its usage: the output limit's 1024 tokens
    first = text_turn(rnd, plan.style, f"Thought: {thought}\nFinal Answer: {head_text}" if react else head_text,
                      finish=None if blocking else rnd.choice(["length", "length", "max_tokens"]),
                      opaque=opaque_body(rnd, plan.style), blocking=blocking)
    cut_step = Step("cut_answer", first, [f"Final Answer: {head}"] if react else [],
                    extra={"finish_reason": None, "usage": {"completion_tokens": 1024}} if blocking else {})
    if how == "cut_again":
        plan.notice = prompts.ANSWER_CUT_OFF
        return [cut_step, Step("rest", text_turn(rnd, plan.style, rest_text, finish="length"))]
    return [cut_step, Step("rest", text_turn(rnd, plan.style, rest_text, opaque=opaque_body(rnd, plan.style)))]


def tool_step(rnd: random.Random, plan: Plan, number: int, earlier: list[str], kind: str) -> Step:  # noqa: C901 - one draw a kind
    react = plan.strategy == "ReAct"
    if kind in ("calls", "cut_calls"):
        turn = draw_turn(rnd, plan.style, plan.strategy, number, earlier, answer=False)
        if kind == "cut_calls":  # the limit cut the reply: every chunk of it as sent, the last saying so
            if react:  # a step cut inside its input: asked again, never run
                start = turn.text.index("Action Input:") + 15
                text = turn.text[: rnd.randrange(start, len(turn.text))] if start < len(turn.text) else turn.text[:-1]
                turn = text_turn(rnd, plan.style, text, finish="length")
                return Step(kind, turn, [text.strip()])
            turn.chunks[-1]["finish_reason"] = "length"
        if react:
            return Step(kind, turn, [f"Thought: {turn.thought}"])
        return Step(kind, turn)
    if kind == "unknown":
        if react:
            thought = " ".join(words(rnd, 1, 4))
            text = f"Thought: {thought}\nAction: nosuch_tool\nAction Input: {{\"q\": \"x{number}\"}}"
            action = "Action: nosuch_tool" if plan.completion else '"action": "nosuch_tool"'
            return Step(kind, text_turn(rnd, plan.style, text), [f"Thought: {thought}", action])
        call = Call(f"call_unknown_{number}", "nosuch_tool", json.dumps({"q": f"x{number}"}), {"q": f"x{number}"})
        return Step(kind, text_turn(rnd, plan.style, rnd.choice(["", " ".join(words(rnd, 1, 4))]), calls=[call]))
    if kind == "text_call":  # a node tool's call written in the text: goes back as a native call with a made id,
        # or, from a plugin that rebuilds the message from its opaque_body, as it was with the results after it
        value = {"q": " ".join(words(rnd, 1, 2)), "tag": f"t{number}x0"}
        block = json.dumps({"name": "lookup", "arguments": value}, ensure_ascii=False)
        text = rnd.choice(["", " ".join(words(rnd, 1, 4)) + "\n"]) + f"<tool_call>\n{block}\n</tool_call>"
        opaque = opaque_body(rnd, plan.style)
        turn = text_turn(rnd, plan.style, text, opaque=opaque)
        turn.calls = [] if opaque is not None else [Call("", "lookup", json.dumps(value), value)]
        return Step(kind, turn)
    if kind == "markup":  # call markup naming a node tool that cannot be read, in the text: asked again
        text = rnd.choice(["", " ".join(words(rnd, 1, 4)) + "\n"]) + BROKEN_MARKUP
        return Step(kind, text_turn(rnd, plan.style, text))
    if kind == "echo":  # the tool's schema as the action input: refused, asked again
        thought = " ".join(words(rnd, 1, 4))
        text = f"Thought: {thought}\nAction: lookup\nAction Input: {json.dumps(SCHEMA_ECHO)}"
        return Step(kind, text_turn(rnd, plan.style, text), [f"Thought: {thought}"])
    if kind == "same_call":  # the same call every round: the fourth is refused, then the answer is asked for
        value = {"q": "again", "tag": "same"}
        if react:
            thought = " ".join(words(rnd, 1, 3))
            text = f"Thought: {thought}\nAction: lookup\nAction Input: {json.dumps(value)}"
            turn = text_turn(rnd, plan.style, text)
            turn.calls, turn.thought = [Call("", "lookup", json.dumps(value), value)], thought
            return Step(kind, turn, [f"Thought: {thought}"])
        call = Call(f"call_same_{number}", "lookup", json.dumps(value), value)
        return Step(kind, text_turn(rnd, plan.style, "", calls=[call], opaque=opaque_body(rnd, plan.style)))
    if kind == "reasoning_only":  # only reasoning, no text: asked again; nothing of it goes back (no visible text)
        return Step(kind, text_turn(rnd, plan.style, "", think=True))
    assert kind == "thought_only"
    thought = " ".join(words(rnd, 2, 6))
    return Step(kind, text_turn(rnd, plan.style, f"Thought: {thought}"), [f"Thought: {thought}"])


def draw_plan(rnd: random.Random, strategy: str) -> Plan:
    style = rnd.choice(STYLES)
    plan = Plan(strategy, style, [], [], "")
    react = strategy == "ReAct"
    plan.completion = react and rnd.random() < 0.25
    plan.small_window = rnd.random() < 0.3
    plan.big_results = plan.small_window and rnd.random() < 0.7
    kinds = ["calls", "calls", "cut_calls", "unknown", "reasoning_only"] + (
        ["echo", "thought_only"] if react else ["markup", "text_call"])
    failing = {"reasoning_only", "thought_only", "markup"} | ({"cut_calls"} if react else set())
    ending = rnd.choice(["answer", "answer", "cut_answer", "limit", "limit_cut", "deadline", "repeat"])
    plan.modes.append(ending)
    if ending == "deadline":
        prefix = ["calls"]
    elif ending == "repeat":  # three identical calls run, the fourth is refused: the model is looping
        prefix = ["same_call"] * 4
    else:
        prefix = []
        for _ in range(rnd.randint(1, 3)):
            kind = rnd.choice(kinds)
            # a second cut or Thought-only reply in a row ends the run, three unreadable ones fail it: not drawn
            while (prefix and kind == prefix[-1] and kind in ("cut_calls", "thought_only")) or \
                    (kind in failing and prefix[-2:] and all(k in failing for k in prefix[-2:]) and len(prefix) >= 2):
                kind = rnd.choice(kinds)
            prefix.append(kind)
    earlier: list[str] = []
    for number, kind in enumerate(prefix, start=1):
        step = tool_step(rnd, plan, number, earlier, kind)
        earlier += [c.id for c in step.turn.calls]
        plan.steps.append(step)
    if ending.startswith("limit"):
        plan.maximum_iterations = len(prefix)
    if ending == "deadline":
        plan.run_timeout = 10
        # a first round slower than half the time left after it: no time for another round
        plan.steps[0].delay = (plan.run_timeout - deadline_margin(plan.run_timeout)) / 2 + 0.8
    if ending in ("cut_answer", "limit_cut") or (ending == "repeat" and rnd.random() < 0.3):
        plan.steps += cut_answer_steps(rnd, plan)
    else:
        turn = draw_turn(rnd, style, strategy, len(prefix) + 1, earlier, answer=True)
        plan.answer = turn.answer
        plan.steps.append(Step("answer", turn))
    plan.memory = draw_memory(rnd, plan.small_window)
    plan.modes += (["small_window"] if plan.small_window else []) + (["completion"] if plan.completion else [])
    return plan


def draw_memory(rnd: random.Random, big: bool) -> list[dict]:
    """Memory as Dify's node sends it (``PromptMessage`` dumps): questions with or without an
    image, answers with reasoning, tool turns with reasoning in ``opaque_body``."""
    memory: list[dict] = []
    for n in range(rnd.choice([0, 1, 2, 3])):
        kind = rnd.choice(["plain", "tools", "image"] + (["big"] if big else []))
        if kind == "image":
            memory.append({"role": "user", "content": [
                {"type": "text", "data": f"memory question {n}"},
                {"type": "image", "url": f"https://example.com/m{n}.png", "base64_data": "", "format": "png",
                 "mime_type": "image/png", "filename": f"m{n}.png", "detail": "low", "data": ""}]})
        else:
            memory.append({"role": "user", "content": f"memory question {n}"})
        if kind in ("tools", "big"):
            call_id = f"mem_call_{n}"
            result = f"memory result {n} " + ("lorem ipsum dolor " * 4000 if kind == "big" else "short")
            memory += [
                {"role": "assistant", "content": rnd.choice(["", f"checking {n}"]), "opaque_body": {"reasoning_content": f"{MEMORY_MARK} {n}"},
                 "tool_calls": [{"id": call_id, "type": "function",
                                 "function": {"name": "lookup", "arguments": json.dumps({"q": f"m{n}"})}}]},
                {"role": "tool", "content": result, "tool_call_id": call_id, "name": "lookup"},
            ]
        memory.append({"role": "assistant", "content": rnd.choice([f"<think>{MEMORY_MARK} old {n}</think>memory answer {n}",
                                                                    f"memory answer {n}"])})
    return memory


# --- playing it -------------------------------------------------------------------------------


class EchoTool(ScriptedTool):
    """Answers each call with its own ``tag`` argument (``big``: and 30 KB after it)."""

    big: bool = False

    def run(self, parameters: dict[str, Any], released: threading.Event) -> Iterator[dict[str, Any]]:
        filler = " filler words of a long page" * 1000 if self.big else ""
        yield text_message(f"result of {parameters.get('tag')} done{filler}")


def tools(big: bool) -> list[ScriptedTool]:
    made = [EchoTool(name="lookup", description="Look a word up",
                     parameters=[ToolParam("q", required=False, description="the word")]),
            EchoTool(name="get_weather", description="Weather of a city",
                     parameters=[ToolParam("city", required=False, description="the city")])]
    for tool in made:
        tool.big = big
    return made


def scripted(step: Step) -> dict:
    out: dict[str, Any] = {"chunks": [json.loads(json.dumps(c)) for c in step.turn.chunks]}
    if not step.turn.usage:
        out["usage"] = None
    if step.turn.blocking and not step.turn.chunks[-1].get("finish_reason"):
        out["finish_reason"] = None
    if step.delay:
        out["delay"] = step.delay
    return {**out, **step.extra}


def play(plugin: PluginProcess, plan: Plan):
    toolbox = default_toolbox()
    for tool in tools(plan.big_results):
        toolbox.add(tool)
    backend = ScriptedBackend([scripted(s) for s in plan.steps] + [{"text": "spare"}] * 2)
    window = {"context_size": 8192, "completion_params": {"max_tokens": 512}} if plan.small_window else {}
    model = ModelSettings(provider=PROVIDERS[plan.style], model="gpt-4o-mini", mode="completion" if plan.completion else "chat",
                          features=["tool-call", "multi-tool-call", "stream-tool-call", "vision"], **window)
    params: dict[str, Any] = {"model": model.selector(plan.memory)}  # memory as given: opaque_body and all
    if plan.run_timeout:
        params["run_timeout"] = plan.run_timeout
    scenario = Scenario(query=QUERY, tools=["lookup", "get_weather"], strategy=plan.strategy, model=model,
                        maximum_iterations=plan.maximum_iterations, params=params)
    try:
        return backend, run_scenario(scenario, backend, toolbox, plugin=plugin, timeout=90)
    finally:
        backend.release()
        toolbox.release()


# --- the checks -------------------------------------------------------------------------------


def fc_request_faults(plan: Plan, number: int, request: dict) -> list[str]:  # noqa: C901 - one check a clause of the rule
    """What request ``number`` (1-based) of a Function Calling run got wrong about the turns before it."""
    faults: list[str] = []
    messages = request["prompt_messages"]
    # the query (a re-prompt after a reply with no text is joined to it: roles must alternate)
    at = max((i for i, m in enumerate(messages) if m["role"] == "user" and text_of(m.get("content")).startswith(QUERY)),
             default=None)
    if at is None:
        return [f"request {number}: the query is missing"]
    faults += memory_faults(plan, messages[:at], number)
    after = messages[at + 1:]
    position = 0
    taken: set[str] = set()
    for index, step in enumerate(plan.steps[: number - 1]):
        where = f"request {number}, turn {index + 1} ({step.kind})"
        turn = step.turn
        while position < len(after) and after[position]["role"] == "user":
            position += 1  # the plugin's notes and re-prompts: messages of their own
        if not turn.text.strip() and step.kind in ("markup", "reasoning_only") and (
                position >= len(after) or after[position].get("content") != turn.content):
            continue  # no visible text: left out whole
        if position >= len(after) or after[position]["role"] != "assistant":
            faults.append(f"{where}: no assistant message: {json.dumps(after)[:500]}")
            break
        message = after[position]
        position += 1
        if message.get("content") != turn.content:
            faults.append(f"{where}: content {message.get('content')!r:.300} != {turn.content!r:.300}")
        if message.get("opaque_body") != turn.opaque:
            faults.append(f"{where}: opaque_body {json.dumps(message.get('opaque_body'))[:200]} != {json.dumps(turn.opaque)[:200]}")
        calls = message.get("tool_calls") or []
        if [c["function"]["name"] for c in calls] != [c.name for c in turn.calls]:
            faults.append(f"{where}: calls {[c['function']['name'] for c in calls]} != {[c.name for c in turn.calls]}")
            continue
        before: set[str] = set()
        for call, sent in zip(turn.calls, calls, strict=True):
            keep = call.id and len(call.id) <= 65_536 and call.id not in taken and call.id not in before \
                and [c.id for c in turn.calls].count(call.id) == 1
            if keep and sent["id"] != call.id:
                faults.append(f"{where}: id {call.id[:60]!r} went back as {sent['id'][:60]!r}")
            before |= {call.id, sent["id"]}
            valid, value = _json(sent["function"]["arguments"])
            if not valid or (value != call.value and value != _finite(call.value)):
                faults.append(f"{where}: arguments {sent['function']['arguments'][:200]!r} != {call.text[:200]!r}")
        taken |= before
        results = []
        while position < len(after) and after[position]["role"] == "tool":
            results.append(after[position])
            position += 1
        if [m.get("tool_call_id") for m in results] != [c["id"] for c in calls]:
            faults.append(f"{where}: tool messages {[m.get('tool_call_id', '')[:30] for m in results]} for {[c['id'][:30] for c in calls]}")
            continue
        for call, result in zip(turn.calls, results, strict=True):
            content = str(result.get("content"))
            tag = call.value.get("tag") if isinstance(call.value, dict) else None
            if step.kind == "cut_calls":
                if prompts.CALLS_CUT.format(name=call.name) not in content:
                    faults.append(f"{where}: a cut call answered {content[:200]!r}")
            elif step.kind == "same_call" and index == 3:
                if not content.startswith("Error: the call to 'lookup' was not run again"):
                    faults.append(f"{where}: a fourth identical call answered {content[:200]!r}")
            elif tag and not content.startswith(f"result of {tag} done"):
                faults.append(f"{where}: call {tag} answered {content[:200]!r}")
    for message in after[position:]:
        if message["role"] != "user":
            faults.append(f"request {number}: a message after the run's turns: {json.dumps(message)[:300]}")
    return faults


def memory_faults(plan: Plan, head: list[dict], number: int) -> list[str]:
    """Memory in a request (the messages before the query): each turn whole or not at all,
    without reasoning; a tool call followed by its own result."""
    faults: list[str] = []
    sent = [m for m in head if m["role"] != "system"]
    turns = _memory_turns(plan.memory)
    given = _memory_turns(sent)
    if plan.strategy == "ReAct":
        return _react_memory_faults(plan, sent, number)
    remaining = list(turns)
    for turn in given:
        question = text_of(turn[0].get("content"))
        while remaining and text_of(remaining[0][0].get("content")) != question:
            remaining.pop(0)  # dropped whole
        if not remaining:
            faults.append(f"request {number}: a memory turn out of order or unknown: {json.dumps(turn)[:300]}")
            break
        original = remaining.pop(0)
        expected = [m for m in original if m["role"] != "user"]
        got = turn[1:]
        if len(got) != len(expected):
            faults.append(f"request {number}: memory turn {question!r} half kept: {json.dumps(got)[:300]}")
            continue
        for want, have in zip(expected, got, strict=True):
            if want["role"] != have["role"]:
                faults.append(f"request {number}: memory turn {question!r}: {have['role']} for {want['role']}")
            elif want["role"] == "tool":
                content, whole = str(have.get("content")), want["content"]
                if have.get("tool_call_id") != want["tool_call_id"] or not (
                        content == whole or (content.startswith(whole[:40]) and SHORTENED in content)):
                    faults.append(f"request {number}: memory result {want['tool_call_id']} sent as {content[:120]!r}")
            else:
                calls = [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in have.get("tool_calls") or []]
                wanted = [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in want.get("tool_calls") or []]
                visible = want["content"].split("</think>")[-1].strip()
                if calls != wanted or (text_of(have.get("content")) != visible) or have.get("opaque_body") is not None:
                    faults.append(f"request {number}: memory answer {json.dumps(have)[:300]} for {json.dumps(want)[:300]}")
    return faults


def _react_memory_faults(plan: Plan, sent: list[dict], number: int) -> list[str]:
    """ReAct replays memory's questions and answers only: no tool turn, each answer its visible
    text, the answers of one turn in a row (a tool round's text, then the answer) as one message,
    a blank line apart."""
    faults = []
    if any(m["role"] == "tool" or m.get("tool_calls") for m in sent):
        faults.append(f"request {number}: a tool turn of memory in ReAct's prompt")
    answers: set[str] = set()
    run: list[str] = []  # the visible answers since the last user message
    for m in [*plan.memory, {"role": "user"}]:
        if m["role"] == "user":
            answers |= {"\n\n".join(run[i:j]) for i in range(len(run)) for j in range(i + 1, len(run) + 1)}
            run = []
        elif m["role"] == "assistant" and isinstance(m["content"], str) and m["content"].split("</think>")[-1].strip():
            run.append(m["content"].split("</think>")[-1].strip())
    for message in sent:
        if message["role"] == "assistant" and text_of(message.get("content")) not in answers:
            faults.append(f"request {number}: a memory answer sent as {text_of(message.get('content'))[:200]!r}")
    return faults


def _memory_turns(messages: list[dict]) -> list[list[dict]]:
    turns: list[list[dict]] = []
    for message in messages:
        if message["role"] == "user" or not turns:
            turns.append([])
        turns[-1].append(message)
    return turns


def react_request_faults(plan: Plan, number: int, request: dict) -> list[str]:
    messages = request["prompt_messages"]
    at = max((i for i, m in enumerate(messages) if m["role"] == "user" and QUERY in text_of(m.get("content"))), default=0)
    faults = memory_faults(plan, messages[:at], number)
    if plan.completion:  # one text: the scratchpad follows the question
        scratch = text_of(messages[at].get("content")).split(f"Question: {QUERY}", 1)[-1]
    else:
        scratch = "\n".join(str(m.get("content")) for m in messages[at:] if m["role"] == "assistant")
    at = 0
    for index, step in enumerate(plan.steps[: number - 1]):
        for piece in step.replay:
            found = scratch.find(piece, at)
            if found < 0:
                faults.append(f"request {number}, turn {index + 1} ({step.kind}): {piece!r:.200} not in order in {scratch!r:.800}")
                return faults
            at = found + len(piece)
    calls = [s for s in plan.steps[: number - 1] if s.kind in ("calls", "same_call")]
    actions = _completion_actions(scratch) if plan.completion else _actions(scratch)
    found = [a for a in actions if isinstance(a[1], dict) and "tag" in a[1]]  # not the refused ones
    if len(found) != len(calls):
        faults.append(f"request {number}: {len(found)} actions for {len(calls)} calls: {scratch!r:.600}")
    for step, (name, value, observation) in zip(calls, found, strict=False):
        call = step.turn.calls[0]
        if name != call.name or (value != call.value and value != _finite(call.value)):
            faults.append(f"request {number}: action {name} {json.dumps(value)[:200]} != {call.name} {call.text[:200]}")
        if f"result of {call.value['tag']} done" not in observation[:200] and \
                "was not run again" not in observation[:200]:
            faults.append(f"request {number}: observation {observation[:200]!r} for {call.value['tag']}")
    for message in request["prompt_messages"]:
        if message["role"] == "assistant" and message.get("opaque_body") is not None:
            faults.append(f"request {number}: an opaque_body in ReAct's prompt")
    return faults


def _completion_actions(scratch: str) -> list[tuple[str, Any, str]]:
    """(name, input, observation) of each ``Action:`` / ``Action Input:`` pair of a completion prompt."""
    out = []
    for block in scratch.split("\nAction: ")[1:]:
        name, _, rest = block.partition("\nAction Input: ")
        blob, _, observation = rest.partition("\nObservation: ")
        valid, decoded = _json(blob)
        out.append((name, decoded if valid else blob, "Observation: " + observation))
    return out


def run_faults(plan: Plan, backend: ScriptedBackend, result, plugin: PluginProcess) -> list[str]:  # noqa: C901 - one check a rule
    faults = []
    if not plugin.alive:
        return ["the plugin was killed (a line over the daemon's limit?)"]
    if not result.ok:
        faults.append(f"run failed: {result.error_text[:300]}")
    if result.unfinished_logs():
        faults.append(f"logs left unfinished: {[n.label for n in result.unfinished_logs()]}")
    requests = backend.requests
    if len(requests) != len(plan.steps):
        faults.append(f"{len(requests)} requests for {len(plan.steps)} turns")
    check = react_request_faults if plan.strategy == "ReAct" else fc_request_faults
    for number, request in enumerate(requests[: len(plan.steps)], start=1):
        faults += check(plan, number, request)
        text = json.dumps(request["prompt_messages"], ensure_ascii=False)
        if MEMORY_MARK in text:
            faults.append(f"request {number}: the memory's reasoning went back")
        if plan.strategy == "ReAct" and REASONING_MARK in text:
            faults.append(f"request {number}: reasoning in ReAct's prompt")
    limits = {"deadline": [prompts.TIME_LIMIT_NOTE], "limit": [prompts.ITERATION_LIMIT_NOTE.split("{")[0]],
              "limit_cut": [prompts.ITERATION_LIMIT_NOTE.split("{")[0]],
              "repeat": [prompts.REPEATED_CALLS_NOTE.split("{")[0]]}.get(plan.modes[0], [])
    for note in limits:
        asked = [r for r in requests if note in json.dumps(r["prompt_messages"], ensure_ascii=False)]
        if not asked:
            faults.append(f"no request asked for the answer at the limit ({note[:40]!r})")
    shown = result.text or ""
    if plan.notice:
        if not shown.endswith(plan.notice):
            faults.append(f"the run did not end with the notice {plan.notice[:40]!r}: {shown[-300:]!r}")
        shown = shown.removesuffix(plan.notice).rstrip()
    if result.ok and not shown.endswith(plan.answer):
        faults.append(f"the answer {plan.answer!r} is not what the user read last: {shown[-300:]!r}")
    elif result.ok and plan.joint and shown.count(plan.answer) != 1:
        faults.append(f"the answer shown {shown.count(plan.answer)} times: {shown[-300:]!r}")
    for sign in (REASONING_MARK, MEMORY_MARK, "<think", "</think>", "<tool_call"):
        if sign in shown:
            faults.append(f"the user sees {sign!r}: {shown[:300]!r}")
    return faults


def campaign(plugin: PluginProcess, strategy: str, runs: int, seed: int) -> list[str]:
    found = []
    for n in range(runs):
        rnd = random.Random(seed + n)
        plan = draw_plan(rnd, strategy)
        plugin.transcript.clear()
        backend, result = play(plugin, plan)
        if faults := run_faults(plan, backend, result, plugin):
            kinds = [s.kind for s in plan.steps]
            found.append(f"seed {seed + n} ({plan.style}, {kinds}, {plan.modes}): " + "\n    ".join(faults[:4]))
    return found


plugin = own_plugin()


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
def test_every_request_carries_the_runs_turns_as_the_model_sent_them(plugin, strategy):
    found = campaign(plugin, strategy, RUNS, SEED)
    assert not found, f"{len(found)} of {RUNS} runs:\n" + "\n".join(found[:6])


# --- the faults the campaign found, pinned (docs/fuzzing.md, wave 37) ----------------------------


def _pinned(plugin: PluginProcess, plan: Plan) -> list[str]:
    backend, result = play(plugin, plan)
    return run_faults(plan, backend, result, plugin)


def _turn(text: str, finish: str = "stop", calls: list[Call] | None = None) -> Turn:
    chunks = [{"message": {"content": text}},
              {"message": {"content": "", "tool_calls": [complete(c) for c in calls or []]}, "finish_reason": finish}]
    return Turn(style="openai", chunks=chunks, content=text, calls=list(calls or []), text=text)


def test_pinned_a_block_closed_twice_then_an_answer_cut_at_the_limit(plugin):
    """Anthropic's plugin closes a thinking block before ``tool_use`` twice; the second tag was
    read as the end of a block the template opened, so the cut answer of the limit round was held
    as reasoning and the run ended without an answer."""
    call = Call("toolu_1", "lookup", '{"q": "a", "tag": "t1x0"}', {"q": "a", "tag": "t1x0"})
    first = _turn("<think>\nzqthink plan\n</think>\n\n\n</think>\n\n", "tool_use", [call])
    head, rest = _turn("50% résumé", "length"), _turn(" x<y")
    plan = Plan("function_calling", "anthropic", [Step("calls", first), Step("cut_answer", head), Step("rest", rest)],
                [], "50% résumé x<y", " ", maximum_iterations=1, modes=["limit_cut"])
    assert _pinned(plugin, plan) == []


def test_pinned_a_cut_react_step_with_a_closing_tag_in_its_input_goes_back_whole(plugin):
    cut = 'Thought: look\nAction: lookup\nAction Input: {"q": "a", "extra0": ["</think>", "quote'
    answer = _turn("Thought: ok\nFinal Answer: done")
    plan = Plan("ReAct", "openai", [Step("cut_calls", _turn(cut, "length"), [cut]), Step("answer", answer)], [], "done",
                modes=["answer"])
    assert _pinned(plugin, plan) == []


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
def test_pinned_a_rest_after_a_reasoning_block_or_beginning_as_the_answer_did(plugin, strategy):
    """The rest of a cut answer joined by the line breaks that closed its reasoning block, and a
    rest that begins as the answer did ("the") taken for the answer written again and lost."""
    label = "Thought: x\nFinal Answer: " if strategy == "ReAct" else ""
    for head, rest, answer in [(f"{label}mild France", "<think>\nzqthink where\n</think>\n\n and mild", "mild France and mild"),
                               (f"{label}the of ok weather", " the", "the of ok weather the")]:
        plan = Plan(strategy, "openai", [Step("cut_answer", _turn(head, "length")), Step("rest", _turn(rest))], [],
                    answer, " ", modes=["cut_answer"])
        assert _pinned(plugin, plan) == []
