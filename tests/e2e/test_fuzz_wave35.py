"""The wave-35 fuzz campaign: composed replies (``tests/e2e/fuzz_compose.py``) that mix, in one
turn, reasoning blocks of several tag families (opened by the reply or by the model's template),
calls in several model families' own markup, ReAct labels in four languages and five styles, code
fences, a secret the tool showed echoed by the model in several encodings, and a cut by the output
limit; each streamed in several chunkings (a character a chunk, random 1-40, cuts inside tags and
between an emoji's code points). docs/fuzzing.md has the campaign and what it found.

* In process (``test_composed_replies_read_the_same_however_streamed``): each reply through both
  strategies' turn readers in every chunking. The same calls and answer whatever the chunking; no
  reasoning, call markup nor argument shown; no call the reply did not write whole; calls written
  whole are run, an answer written is the answer.
* Through the real plugin process (``test_composed_runs_keep_the_invariants``): a run of a
  composed call, a tool that shows its secret, then an answer that echoes it encoded (cut or not).
  No line over the daemon's limit, no secret form on any line or on stderr, no log left in
  ``start``, no traceback, no markup or reasoning in the answer, a cut answer continued or marked
  incomplete, the tool's result reaching the model; the same run streamed another way runs the
  same calls and shows the same answer.

``AGENT_FUZZ_EXAMPLES=N`` runs N replies (or runs) per test from a random seed (printed when a
fault is found) instead of the fixed CI set.
"""

from __future__ import annotations

import base64
import json
import os
import random
import re
import urllib.parse

import pytest

from agent_core.function_calling.turn import read_function_calling_turn
from agent_core.model_call import ModelChunk
from agent_core.outbound import HELD_MASK_CHARS
from agent_core.react.turn import read_react_turn
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ParseFailure, ToolCalls
from local_runner import PluginProcess
from local_runner.daemon import DEFAULT_PLUGIN_DIR
from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.fuzz_compose import ARG_MARK, REASONING_MARK, TOOLS, Reply, chunkings, compose, cut, prose
from tests.e2e.helpers import FUZZ_EXAMPLES_ENV, TRACEBACK, plugin_lines
from tests.unit.helpers import drain
from tests.unit.test_real_world_2026 import tool

LONG = int(os.environ.get(FUZZ_EXAMPLES_ENV) or 0)
SEED = random.randrange(1 << 30) if LONG else 35_000
REPLIES = LONG or 600  # per strategy, in process
RUNS = LONG or 6  # per strategy, through the plugin (each played in two chunkings)
SECRET = "SECRET-CANARY-35e7f1"
REGISTRY_TOOLS = [tool(name, *params) for name, params in TOOLS.items()]
MARKUP_SIGNS = ("<tool_call", "</tool_call", "<|", "|>", "<｜", "[TOOL_CALLS]", "[ARGS]", "<invoke", "<function",
                "<arg_key>", "<ifm|", "<lookup>", "<get_weather>", "</think>", "<think>", "◁", "▷")


def known_open(strategy: str, reply: Reply) -> bool:
    """Replies of the classes found and left open (docs/fuzzing.md, wave 35): a cut inside a
    reasoning tag or a special token not yet whole is text."""
    return reply.cut and reply.cut_in_token


def read(strategy: str, reply: Reply, pieces: list[str], probe: bool):
    """The streamed text and the turn of ``reply`` in ``pieces``, read by ``strategy``'s reader."""
    chunks = [ModelChunk(reasoning=reply.reasoning)] if reply.reasoning else []
    chunks += [ModelChunk(text=piece) for piece in pieces]
    chunks.append(ModelChunk(finish_reason="length" if reply.cut else "stop"))
    registry = ToolRegistry(list(REGISTRY_TOOLS))
    if strategy == "ReAct":
        return drain(read_react_turn(iter(chunks), registry, 1, reasoning_opened=reply.opened))
    return drain(read_function_calling_turn(iter(chunks), registry.prompt_tools(), reasoning_opened=reply.opened,
                                            reasoning_probe=probe))


def outcome(streamed: str, turn) -> tuple:
    """What must not depend on the chunking: the decision's calls, answer or problem, and the text shown."""
    decision = turn.decision
    if isinstance(decision, ToolCalls):
        return ("calls", tuple((c.name, tuple(sorted(c.arguments.items()))) for c in decision.calls),
                tuple(c.name for c in decision.invalid), streamed)
    if isinstance(decision, FinalAnswer):
        return ("answer", decision.text, turn.answer_whole, streamed)
    assert isinstance(decision, ParseFailure)
    return ("failure", decision.problem, streamed)


def reply_faults(strategy: str, reply: Reply, rnd: random.Random) -> list[str]:
    """What is wrong with ``strategy``'s reading of ``reply`` in each of its chunkings."""
    faults, seen = [], {}
    probe = rnd.random() < 0.5
    for pieces in chunkings(rnd, reply.text):
        try:
            streamed, turn = read(strategy, reply, pieces, probe)
        except Exception as error:  # a reader never raises on a reply
            faults.append(f"raised {type(error).__name__}: {error}")
            continue
        seen[(len(pieces), pieces[0])] = outcome(streamed, turn)
        if reply.cut:  # the loop decides what of a cut reply shows: its answer, to be continued
            streamed = turn.decision.text if isinstance(turn.decision, FinalAnswer) else ""
        where = f"({len(pieces)} pieces)"
        if REASONING_MARK in streamed:
            faults.append(f"reasoning shown {where}: {streamed!r}")
        if reply.calls and ARG_MARK in streamed:
            faults.append(f"a call's argument shown {where}: {streamed!r}")
        faults += [f"markup {sign!r} shown {where}: {streamed!r}" for sign in MARKUP_SIGNS if sign in streamed][:1]
        if reply.cut:
            continue
        if isinstance(turn.decision, ToolCalls):
            faults += [f"a call not written: {c.name} {c.arguments} {where}"
                       for c in turn.decision.calls if (c.name, c.arguments) not in reply.calls]
        elif reply.calls:
            faults.append(f"written calls not run {where}: {outcome(streamed, turn)[:2]}")
        if reply.answer is not None and isinstance(turn.decision, FinalAnswer) \
                and turn.decision.text.split() != reply.answer.split():
            faults.append(f"answer changed {where}: {turn.decision.text!r}")
    if len(set(seen.values())) > 1:
        faults.append("outcome depends on the chunking: " + repr(seen)[:1500])
    return faults


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
def test_composed_replies_read_the_same_however_streamed(strategy):
    found = []
    for n in range(REPLIES):
        rnd = random.Random(SEED + n)
        reply = compose(rnd, strategy)
        if rnd.random() < 0.3:
            reply = cut(rnd, reply)
        if not known_open(strategy, reply) and (faults := reply_faults(strategy, reply, rnd)):
            found.append(f"seed {SEED + n} {reply.kinds}\n  {reply.text!r}\n  " + "\n  ".join(faults[:3]))
    assert not found, f"{len(found)} of {REPLIES} replies:\n" + "\n".join(found[:5])


# ---------------------------------------------------------------------------------------------
# through the plugin process


def secret_forms(entities: bool = False, every_form: bool = False) -> dict[str, str]:
    """The secret as a model may echo it: encoded forms the redaction covers (``entities``: each
    character escaped too, as HTML references or ``\\uXXXX``: docs/fuzzing.md, wave 35;
    ``every_form``: also upper-cased, in hex (plain and colon-separated), as CSS escapes, its
    base64 wrapped by a line break, and the secret itself split across two lines)."""
    every = {"entities": "".join(f"&#{ord(c)};" for c in SECRET),
             "json_escaped": "".join(f"\\u{ord(c):04x}" for c in SECRET)}
    encoded = base64.b64encode(SECRET.encode()).decode()
    more = {"upper": SECRET.upper(), "hex": SECRET.encode().hex(),
            "hex_colons": ":".join(f"{b:02x}" for b in SECRET.encode()),
            "css": "".join(f"\\{ord(c):x} " for c in SECRET).rstrip(),
            "base64_wrapped": f"{encoded[:12]}\n{encoded[12:]}",
            "split": f"{SECRET[:9]}\n{SECRET[9:]}"}
    return {**(every if entities or every_form else {}), **(more if every_form else {}),
        "plain": SECRET,
        "base64": encoded,
        "percent": "".join(f"%{b:02X}" for b in SECRET.encode()),
        "quoted": urllib.parse.quote(SECRET),
    }


@pytest.fixture(scope="module")
def plugin():
    """A process of the module's own: a line over the limit kills only this module's runs."""
    with PluginProcess(DEFAULT_PLUGIN_DIR) as process:
        yield process


def _tools() -> list[ScriptedTool]:
    return [ScriptedTool(name=name, description=f"The {name} tool",
                         parameters=[*(ToolParam(p, description=p) for p in params),
                                     ToolParam("api_key", type="secret-input", form="form", description="key")],
                         runtime_parameters={"api_key": SECRET},
                         responses=[text_message(f"{name}-result-{n} with key {SECRET} end") for n in range(4)])
            for name, params in TOOLS.items()]


def _chunks(text: str, pieces: list[str], reasoning: str, finish: str) -> dict:
    chunks = [{"message": {"content": "", "reasoning_content": reasoning}}] if reasoning else []
    chunks += [{"content": piece} for piece in pieces]
    chunks.append({"content": "", "finish_reason": finish})
    return {"chunks": chunks}


def plan_run(rnd: random.Random, strategy: str, entities: bool = False, every_form: bool = False,
             deadline: bool = False) -> tuple[list[Reply], list[str], bool]:
    """A composed call reply (whole), then an answer echoing the secret encoded (maybe cut, then
    its rest; with ``every_form``, maybe cut twice in a row), and turns to spare: (replies, the
    answer's words the user must see, cut). ``deadline``: the answer stops inside its echo and
    never ends, so the run's deadline cuts it."""
    while True:
        call = compose(rnd, strategy)
        if call.calls and not known_open(strategy, call) and not call.opened:
            break
    replies = [call]
    # the limit cut the call first, inside its arguments or after (not a Function Calling ReAct
    # step with an invented observation: left open, docs/fuzzing.md wave 35)
    if every_form and rnd.random() < 0.25 and not (strategy != "ReAct" and "invented" in call.kinds):
        at = rnd.randrange(call.text.find(ARG_MARK) + 1, len(call.text))
        head = call.text[:at]
        cut_call = Reply(text=head, calls=call.calls, cut=True,
                         cut_in_token=head.rfind("<") > head.rfind(">") or head.rfind("◁") > head.rfind("▷"))
        if not known_open(strategy, cut_call):  # not inside a special token (``<|plamo:e``)
            replies = [cut_call, call]
    forms = secret_forms(entities, every_form)
    shown = prose(rnd, rnd.randint(2, 6))
    echo = " ".join(forms[k] for k in rnd.sample(sorted(forms), rnd.randint(1, 3)))
    fence = "\n\n```\nkey = 1\n```\n" if rnd.random() < 0.5 else "\n"
    body = f"{shown} {echo}{fence}done"
    text = f"Thought: I have it.\nFinal Answer: {body}" if strategy == "ReAct" else body
    answer = Reply(text=text, answer=body)
    start = len(text) - len(body) + len(shown) + 1
    spare = "Final Answer: spare" if strategy == "ReAct" else "spare"
    if deadline:
        hung = Reply(text=text[: rnd.randrange(start, len(text))], hang=True)
        return [*replies, hung] + [Reply(text=spare)] * 3, shown.split(), True
    is_cut = rnd.random() < 0.4
    if is_cut:
        at = rnd.randrange(start, len(text))
        if every_form and rnd.random() < 0.4 and at + 1 < len(text):  # two cuts in a row
            again = rnd.randrange(at + 1, len(text))
            replies += [Reply(text=text[:at], cut=True), Reply(text=text[at:again], cut=True), Reply(text=text[again:])]
        else:
            replies += [Reply(text=text[:at], cut=True), Reply(text=text[at:])]
    else:
        replies.append(answer)
    return replies + [Reply(text=spare)] * 3, shown.split(), is_cut


def play(run, strategy: str, replies: list[Reply], rnd: random.Random, chunking: int):
    turns = []
    for reply in replies:
        pieces = chunkings(rnd, reply.text)[chunking] if reply.text else []
        turns.append(_chunks(reply.text, pieces, reply.reasoning, "length" if reply.cut else "stop"))
        if reply.hang:
            turns[-1] = {"chunks": turns[-1]["chunks"][:-1], "hang": True}
    params = {"run_timeout": 10} if any(reply.hang for reply in replies) else {}
    return run(turns, tools=_tools(), strategy=strategy, query="Look it up.", params=params)


LEFT_OVER = re.compile(r"&#|\\[0-9a-fA-FuUx]|%[0-9A-Fa-f]{2}|\b[0-9a-fA-F]{4,}\b|[A-Za-z0-9+/]{8,}|[0-9a-f]{2}:[0-9a-f]{2}")
"""What the answers' prose never holds and any encoded form of the secret does: an escape, a run
of hex or base64 characters (the words of ``ANSWER_WORDS`` are shorter), hex pairs apart."""


def answer_left(text: str, is_cut: bool) -> str:
    """``text`` (a run's answer) without its masks and notices; of a cut answer, without a last
    word shorter than ``HELD_MASK_CHARS``: a start of a secret that short is shown at a cut by
    design (``outbound.HELD_MASK_CHARS``: "CANA" may begin "CANADA")."""
    text = text.split("The agent stopped because its time ran out")[0]
    text = re.sub(r"\[[A-Z][^\]]*\]", " ", text)
    words = text.split()
    if is_cut and words and len(words[-1]) < HELD_MASK_CHARS:
        words.pop()
    return " ".join(words)


def check_run(result, plugin, replies: list[Reply], shown: list[str], is_cut: bool) -> None:
    assert plugin.alive, "the plugin was killed (a line over the daemon's limit?)"
    assert result.unfinished_logs() == [], [n.label for n in result.unfinished_logs()]
    assert result.ok, result.error_text
    forms = [*secret_forms(every_form=True).values(), json.dumps(SECRET)[1:-1]]
    compact = {"".join(f.split()) for f in forms}  # a form split across lines, or wrapped
    for entry, _ in plugin_lines(plugin, result):
        line = json.dumps(entry, ensure_ascii=False)
        assert TRACEBACK not in line
        unescaped = line.replace("\\\\", "\\")
        joined = "".join(unescaped.replace("\\n", "").split())
        assert not [f for f in forms if f in line or f in unescaped], line[:400]
        assert not [f for f in compact if f in joined], line[:400]
    stderr = "\n".join(plugin.stderr_tail(200))
    assert not [f for f in forms if f in stderr]
    assert not [f for f in compact if f in "".join(stderr.split())]
    text = result.text
    assert REASONING_MARK not in text and ARG_MARK not in text, text
    assert not [sign for sign in MARKUP_SIGNS if sign in text], text
    assert all(word in text for word in shown), (shown, text)
    assert not LEFT_OVER.findall(answer_left(text, is_cut)), text  # a piece of the secret beside its mask
    if is_cut and not any(reply.hang for reply in replies):  # continued, or marked incomplete (at the deadline: what was shown stays)
        # a cut inside a word is joined with a space ("d one": left open, docs/fuzzing.md wave 35)
        assert "done" in "".join(text.split()) or "[The answer above is incomplete" in text, text
    written = replies[0].calls
    ran = [(r["tool"], {k: v for k, v in r["tool_parameters"].items() if k != "api_key"})
           for r in result.tool_requests]
    assert ran and all(call in written for call in ran), (ran, written)
    requests = [json.dumps(request["prompt_messages"], ensure_ascii=False) for request in result.llm_requests[1:]]
    assert [r for r in requests if "-result-0 with key [REDACTED] end" in r], requests[0][-600:]


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
def test_composed_runs_keep_the_invariants(run, plugin, strategy):
    for n in range(RUNS):
        seed = SEED + 7 * n
        play_twice(run, plugin, strategy, seed, every_form=True, deadline=bool(LONG) and random.Random(seed).random() < 0.03)


@pytest.mark.parametrize(("strategy", "seed"), [
    ("ReAct", 35_000),  # after "weather": "er" and the first character begin a base64 form
    ("ReAct", 35_004),  # the cut inside an HTML reference ("&#45;&" | "#67;")
    ("ReAct", 35_012),  # the cut inside a \\u escape ("\\u004" | "5")
    ("ReAct", 35_024),  # the cut after a backslash ("\\" | "u0041")
    ("function_calling", 35_006),  # the cut inside an HTML reference ("&#82" | ";")
    ("function_calling", 35_015),  # the cut inside a \\u escape
])
def test_an_answer_echoing_the_secret_escaped_per_character_hides_all_of_it(run, plugin, strategy, seed):
    """An answer that echoes the tool's secret with each character escaped (HTML references,
    ``\\uXXXX``), streamed a character a chunk and in random pieces, cut or not: no character of
    it reaches the user or a log line, and both chunkings show the same answer (wave 35 found
    ``[REDACTED];&#67;&#82;...``: a start of a base64 form taken with the escaped one hid its first
    two characters and let the rest through)."""
    play_twice(run, plugin, strategy, seed, entities=True)


def escaped_pieces() -> list[str]:
    """Every three characters of the secret in a row, escaped each as the per-character forms
    write them (``&#69;&#67;&#82;``, ``\\u0045\\u0043\\u0052``): a piece of the secret left
    beside a ``[REDACTED]`` that hid only part of it."""
    return [piece for n in range(len(SECRET) - 2)
            for piece in ("".join(f"&#{ord(c)};" for c in SECRET[n : n + 3]),
                          "".join(f"\\u{ord(c):04x}" for c in SECRET[n : n + 3]))]


def play_twice(run, plugin, strategy: str, seed: int, entities: bool = False, every_form: bool = False,
               deadline: bool = False) -> None:
    """Plan the run of ``seed`` (``plan_run``) and play it in two chunkings: each keeps the
    invariants, and both run the same calls and show the same answer."""
    replies, shown, is_cut = plan_run(random.Random(seed), strategy, entities, every_form, deadline)
    outcomes = []
    for chunking in (1, 2):  # a character a chunk, then random 1-40
        plugin.transcript.clear()
        result = play(run, strategy, replies, random.Random(seed), chunking)
        try:
            check_run(result, plugin, replies, shown, is_cut)
            if entities or every_form:
                lines = [json.dumps(entry, ensure_ascii=False) for entry, _ in plugin_lines(plugin, result)]
                assert not [p for p in escaped_pieces() for line in lines if p in line.replace("\\\\", "\\")], result.text
        except AssertionError as error:
            raise AssertionError(f"seed {seed}, chunking {chunking}: {replies[0].text!r}") from error
        outcomes.append(([(r["tool"], r["tool_parameters"]) for r in result.tool_requests], result.text))
    # whitespace aside: a CSS escape's ending whitespace is hidden with the secret or not, and a
    # space at a cut before a one-character start of a form (``=``, then ``1``) kept or not, by
    # where a piece ended (left open: docs/fuzzing.md, wave 35)
    outcomes = [(calls, "".join(text.split())) for calls, text in outcomes]
    assert outcomes[0] == outcomes[1], (seed, outcomes)

