"""Concurrency: one session chewing megabytes of tool output must not starve another session
streaming on the same plugin process (the SDK serves every session of a process on gevent).

Session B (Function Calling, no tool call) streams an answer of ``chunks`` chunks sent
``interval`` seconds apart. ``lead`` seconds after B started, session A (Function Calling) calls
``tools`` tools at once, each returning ``output_chars`` characters, then answers; B's stream
lasts long enough to cover all of A. Measured on B, from the runner's transcript (the time each
text line was read from the plugin's stdout): the worst gap between two text messages, against
the same stream with no other session (goal: under 100 ms). Also: A's wall time, A's tool phase
(the runner writes the first tool result -> the plugin asks the model again: reading,
measuring and cutting the megabytes), how many of B's text messages arrived during it, and
whether B's stream covered it (if not, the gap would say nothing about it). Medians over
``runs``. ``python -m bench tokens_speed`` measures the token estimate itself.

Two more loads for A, each many small lines rather than a few large ones: one tool call whose
tool streams ``tiny_items`` messages (half one-character texts, half streamed variable pieces),
and one model reply of ``empty_chunks`` empty chunks before its answer. B's stream starts ``lead``
seconds before A and is measured the same way (it may end before A does: the texts it streamed
while A ran are counted).
"""

from __future__ import annotations

import functools
import itertools
import json
import threading
import time
from dataclasses import asdict, dataclass, replace
from typing import Any

from bench.harness import Plugin, answer_turn, fc_tool_turn, make_toolbox, median, ms, timeline
from bench.streaming import PacedBackend
from local_runner import ModelSettings, Scenario, ScriptedBackend, run_scenario
from local_runner.backends import make_usage
from local_runner.result import RunResult
from local_runner.tools import ScriptedTool, ToolBox, ToolParam, json_message, text_message

NAME = "concurrency"
TITLE = "Concurrency (another session's worst gap between streamed chunks)"


@dataclass(frozen=True)
class Params:
    tools: int = 6
    output_chars: int = 1_000_000
    chunks: int = 200
    interval: float = 0.01
    """Seconds between two chunks of session B's stream."""
    lead: float = 0.3
    """Seconds B streams before A starts."""
    runs: int = 3
    tiny_items: int = 20_000
    """Messages of the tool in the "tiny tool items" load."""
    empty_chunks: int = 200_000
    """Empty chunks of the model reply in the "empty model chunks" load."""
    secret_chars: int = 5_000_000
    """Characters of the tool result in the "secrets in a large result" load."""
    secrets: int = 50
    """Secret-input parameters of that tool."""
    almost_json_keys: int = 100_000
    """Keys of the single-quoted ReAct action input in the "almost-JSON action" load."""
    big_call_keys: int = 300_000
    """Keys of the native tool call's arguments in the "huge call arguments" load (about 17
    bytes of JSON each)."""
    chunk_calls: int = 100_000
    """Tool calls of the one model chunk in the "calls in one chunk" load."""
    many_tools: int = 2_000
    """Tools of the node in the "many tools" load."""
    usage_chunks: int = 100_000
    """Chunks of the model reply, each with its usage, in the "usage in every chunk" load."""
    json_records: int = 125_000
    """Records of the tool's JSON message in the "large JSON message" load (some 43 bytes each)."""
    history_messages: int = 60_000
    """Messages of the conversation memory in the "history_60k" load (short texts; every tenth
    turn a tool call and its result, every twentieth user message an image)."""
    history_long_messages: int = 10_000
    """Messages of 500 characters in the "history_long_10k" load."""
    history_big_messages: int = 200
    """Messages of 50 KB in the "history_big_200" load."""


FULL = Params()
SMOKE = Params(tools=2, output_chars=50_000, chunks=40, interval=0.002, lead=0.01, runs=1, tiny_items=200,
               empty_chunks=2_000, secret_chars=20_000, secrets=3, almost_json_keys=1_000, big_call_keys=2_000,
               chunk_calls=200, many_tools=20, usage_chunks=500, json_records=500, history_messages=200,
               history_long_messages=40, history_big_messages=4)


def _text_times(result: RunResult) -> list[float]:
    return [t for t, text in timeline(result).texts if text]


def _worst_gap(result: RunResult) -> float:
    return max((b - a for a, b in itertools.pairwise(_text_times(result))), default=0.0)


def _tool_phase(result: RunResult) -> tuple[float, float]:
    """(start, end) of the heavy run's tool phase in transcript time: the first tool result
    written to the plugin -> the plugin's next model request."""
    line = timeline(result)
    written = [t for call in line.tools for t, _ in call.responses] + [call.end for call in line.tools if call.end]
    return min(written), line.llm[1].invoked


def _stream(plugin: Plugin, params: Params) -> RunResult:
    backend = PacedBackend(ScriptedBackend([answer_turn("function_calling", params.chunks)]), params.interval)
    return plugin.run("function_calling", [], make_toolbox(1), backend=backend)


def _heavy(plugin: Plugin, params: Params) -> tuple[RunResult, float]:
    toolbox = make_toolbox(params.tools, outputs=lambda i: f"record {i}; " * (params.output_chars // 10))
    calls = [(name, {"query": "all"}) for name in toolbox.names]
    turns = [fc_tool_turn(2, calls), answer_turn("function_calling", 4)]
    started = time.monotonic()
    result = plugin.run("function_calling", turns, toolbox)
    return result, time.monotonic() - started


def _tiny_items(plugin: Plugin, params: Params) -> RunResult:
    half = params.tiny_items // 2
    piece = {"type": "variable", "message": {"variable_name": "v", "variable_value": "y", "stream": True},
             "meta": None}
    tool = ScriptedTool(name="vault", description="Reads the vault", parameters=[ToolParam("q", description="query")],
                        responses=[text_message("x") for _ in range(half)] + [piece] * (params.tiny_items - half))
    turns = [fc_tool_turn(2, [("vault", {"q": "x"})]), answer_turn("function_calling", 4)]
    return plugin.run("function_calling", turns, ToolBox([tool]))


def _empty_chunks(plugin: Plugin, params: Params) -> RunResult:
    answer = answer_turn("function_calling", 4)
    turn = {"chunks": [{"content": ""} for _ in range(params.empty_chunks)] + answer["chunks"]}
    return plugin.run("function_calling", [turn], make_toolbox(1))


def _secret_result(plugin: Plugin, params: Params) -> RunResult:
    names = [f"key_{n}" for n in range(params.secrets)]
    tool = ScriptedTool(
        name="vault", description="Reads the vault",
        parameters=[ToolParam("q", description="query"),
                    *(ToolParam(name, type="secret-input", form="form", description="key") for name in names)],
        runtime_parameters={name: f"sk-{n:04d}-secretvalue-{n * 7919:08d}" for n, name in enumerate(names)},
        responses=[text_message(("record 7 value abc; " * (params.secret_chars // 20 + 1))[: params.secret_chars])])
    turns = [fc_tool_turn(2, [("vault", {"q": "x"})]), answer_turn("function_calling", 4)]
    return plugin.run("function_calling", turns, ToolBox([tool]))


def _plain_result(plugin: Plugin, params: Params) -> RunResult:
    return _secret_result(plugin, replace(params, secrets=0))


@functools.cache
def _records(count: int) -> dict[str, Any]:
    """Built once, as ``_big_arguments_turn``."""
    return {"records": [{"id": n, "name": f"item {n}", "v": "abc"} for n in range(count)]}


def _json_result(plugin: Plugin, params: Params) -> RunResult:
    tool = ScriptedTool(name="vault", description="Reads the vault", parameters=[ToolParam("q", description="query")],
                        responses=[json_message(_records(params.json_records))])
    turns = [fc_tool_turn(2, [("vault", {"q": "x"})]), answer_turn("function_calling", 4)]
    return plugin.run("function_calling", turns, ToolBox([tool]))


def _almost_json(plugin: Plugin, params: Params) -> RunResult:
    keys = ", ".join(f"k{n}: 'v{n}'" for n in range(params.almost_json_keys))
    action = '{"action": "tool_000", "action_input": {' + keys + ",}}"
    turn = {"chunks": [{"content": f"Thought: look it up.\nAction:\n```json\n{action}\n```"}]}
    return plugin.run("ReAct", [turn, answer_turn("ReAct", 4)], make_toolbox(1))


@functools.cache
def _big_arguments_turn(keys: int) -> dict[str, Any]:
    """Built once: building it in this process (which also runs the streaming session's runner)
    while the other session streams would count in its gaps."""
    return fc_tool_turn(2, [("tool_000", {f"k{n}": f"v{n}" for n in range(keys)})])


@functools.cache
def _calls(count: int) -> tuple[dict[str, Any], ...]:
    """Built once, as ``_big_arguments_turn``."""
    return tuple({"id": f"call_{n}", "type": "function", "function": {"name": "tool_000", "arguments": '{"query": "x"}'}}
                 for n in range(count))


def _big_call(plugin: Plugin, params: Params) -> RunResult:
    turns = [_big_arguments_turn(params.big_call_keys), answer_turn("function_calling", 4)]
    return plugin.run("function_calling", turns, make_toolbox(1))


def _chunk_calls(plugin: Plugin, params: Params) -> RunResult:
    calls = list(_calls(params.chunk_calls))
    toolbox = make_toolbox(1)
    scenario = Scenario(query="Find the records.", strategy="function_calling", tools=toolbox.names,
                        model=plugin.model or ModelSettings())
    try:  # ends with an error once the 100,000 calls' results would not fit a request: the load is what led there
        return run_scenario(scenario, ScriptedBackend([{"chunks": [{"tool_calls": calls}]}]), toolbox,
                            plugin=plugin.process)
    finally:
        plugin.process.transcript.clear()


def _many_tools(plugin: Plugin, params: Params) -> RunResult:
    return plugin.run("function_calling", [answer_turn("function_calling", 4)], make_toolbox(params.many_tools))


def _usage_chunks(plugin: Plugin, params: Params) -> RunResult:
    first, each = make_usage(100, 1), make_usage(0, 1)  # per-chunk deltas: the reports add up
    answer = answer_turn("function_calling", params.usage_chunks)
    turn = {"chunks": [{**chunk, "usage": each if n else first} for n, chunk in enumerate(answer["chunks"])]}
    return plugin.run("function_calling", [turn], make_toolbox(1))


HISTORY_IMAGE = {"type": "image", "url": "https://files.example.com/cat.png?sign=abc", "format": "png",
                 "mime_type": "image/png", "filename": "cat.png", "base64_data": "", "detail": "low"}


@functools.cache
def _history(messages: int, chars: int) -> tuple[dict[str, Any], ...]:
    """A conversation memory of about ``messages`` messages as Dify sends it (built once, as
    ``_big_arguments_turn``): turns of a user message and an answer, each text about ``chars``
    characters; every tenth turn the answer calls a tool (an assistant call, the tool's result,
    then the answer) and every twentieth user message carries an image."""
    out: list[dict[str, Any]] = []
    turn = 0
    while len(out) < messages:
        text = (f"turn {turn}: " + "lorem ipsum dolor sit amet " * (chars // 27 + 1))[:chars]
        user: Any = [{"type": "text", "data": text}, HISTORY_IMAGE] if turn % 20 == 19 else text
        out.append({"role": "user", "content": user})
        if turn % 10 == 9:
            call_id = f"call_{turn}"
            out.append({"role": "assistant", "content": "",
                        "tool_calls": [{"id": call_id, "name": "tool_000", "arguments": {"query": f"q{turn}"}}]})
            out.append({"role": "tool", "content": text, "tool_call_id": call_id, "name": "tool_000"})
        out.append({"role": "assistant", "content": text})
        turn += 1
    return tuple(out[:messages])


def _with_history(messages: int, chars: int) -> Any:
    def heavy(plugin: Plugin, params: Params) -> RunResult:
        history = list(_history(messages(params), chars))
        return plugin.run("function_calling", [answer_turn("function_calling", 4)], make_toolbox(1), history=history)
    return heavy


LOADS = {
    "tiny tool items": (_tiny_items, lambda p: f"one tool streams {p.tiny_items:,} one-character messages"),
    "empty model chunks": (_empty_chunks, lambda p: f"one model reply of {p.empty_chunks:,} empty chunks"),
    "secrets in a large result": (_secret_result, lambda p: f"a tool result of {p.secret_chars:,} characters, "
                                  f"{p.secrets} secrets to hide"),
    "large result": (_plain_result, lambda p: f"a tool result of {p.secret_chars:,} characters, no secret"),
    "large JSON message": (_json_result, lambda p: f"a tool's JSON message of {p.json_records:,} records "
                           f"({len(json.dumps(_records(p.json_records), separators=(',', ':'))) / 1e6:.1f} MB)"),
    "almost-JSON action": (_almost_json, lambda p: f"a ReAct action input of {p.almost_json_keys:,} single-quoted "
                           "keys (json_repair)"),
    "huge call arguments": (_big_call, lambda p: f"a native tool call whose arguments are a JSON object of "
                            f"{p.big_call_keys:,} keys ({len(json.dumps({f'k{n}': f'v{n}' for n in range(p.big_call_keys)})) / 1e6:.1f} MB)"),
    "calls in one chunk": (_chunk_calls, lambda p: f"one model chunk of {p.chunk_calls:,} tool calls"),
    "many tools": (_many_tools, lambda p: f"a node of {p.many_tools:,} tools (its prompt)"),
    "usage in every chunk": (_usage_chunks, lambda p: f"a model reply of {p.usage_chunks:,} chunks, each with its usage"),
    "history_60k": (_with_history(lambda p: p.history_messages, 40),
                    lambda p: f"a memory of {p.history_messages:,} messages of some 40 characters (tool calls, images)"),
    "history_long_10k": (_with_history(lambda p: p.history_long_messages, 500),
                         lambda p: f"a memory of {p.history_long_messages:,} messages of 500 characters"),
    "history_big_200": (_with_history(lambda p: p.history_big_messages, 50_000),
                        lambda p: f"a memory of {p.history_big_messages:,} messages of 50 KB"),
}
"""The other loads: name -> (run the heavy session, describe it). ``python -m bench.concurrency
NAME...`` runs only the named ones."""


def _beside(plugin: Plugin, params: Params, heavy: Any) -> dict[str, Any]:
    """B's worst gap (medians and worst of ``runs``) while ``heavy(plugin, params)`` runs beside it."""
    gaps, inside, walls, overlaps = [], [], [], []
    for _ in range(params.runs):
        streamed: dict[str, RunResult] = {}
        thread = threading.Thread(target=lambda into=streamed: into.update(result=_stream(plugin, params)))
        thread.start()
        time.sleep(params.lead)
        started = time.monotonic()
        result = heavy(plugin, params)
        walls.append(time.monotonic() - started)
        thread.join()
        gaps.append(_worst_gap(streamed["result"]))
        span = (result.transcript[0]["t"], result.transcript[-1]["t"])
        # gaps that start once the heavy request was written: not the runner's own encoding of it
        # (a memory of 60,000 messages is 6.5 MB of JSON, which holds this process 65 ms)
        times = _text_times(streamed["result"])
        inside.append(max((b - a for a, b in itertools.pairwise(times) if span[0] <= a <= span[1]), default=0.0))
        overlaps.append(sum(1 for t in _text_times(streamed["result"]) if span[0] <= t <= span[1]))
    return {
        "worst_gap_loaded_ms": ms(median(gaps), 1),
        "worst_gap_loaded_max_ms": ms(max(gaps), 1),
        "worst_gap_after_request_ms": ms(median(inside), 1),
        "heavy_session_s": round(median(walls), 2),
        "texts_during_heavy_session": median(overlaps),
        "runs": params.runs,
    }


def run(params: Params, plugin: Plugin) -> dict[str, Any]:
    for messages, chars in ((params.history_messages, 40), (params.history_long_messages, 500),
                            (params.history_big_messages, 50_000)):
        _history(messages, chars)  # built before any stream starts
    alone, loaded, heavy_walls, phases, overlaps, covered = [], [], [], [], [], []
    for _ in range(params.runs):
        alone.append(_worst_gap(_stream(plugin, params)))
        streamed: dict[str, RunResult] = {}
        thread = threading.Thread(target=lambda into=streamed: into.update(result=_stream(plugin, params)))
        thread.start()
        time.sleep(params.lead)  # B is streaming when A's tool results arrive
        heavy, wall = _heavy(plugin, params)
        thread.join()
        loaded.append(_worst_gap(streamed["result"]))
        heavy_walls.append(wall)
        start, end = _tool_phase(heavy)
        times = _text_times(streamed["result"])
        phases.append(end - start)
        overlaps.append(sum(1 for t in times if start <= t <= end))
        covered.append(bool(times) and times[0] < start and times[-1] > end)
    return {
        "params": asdict(params),
        "rows": [{
            "worst_gap_alone_ms": ms(median(alone), 1),
            "worst_gap_loaded_ms": ms(median(loaded), 1),
            "worst_gap_loaded_max_ms": ms(max(loaded), 1),
            "heavy_session_s": round(median(heavy_walls), 2),
            "heavy_tool_phase_ms": ms(median(phases), 1),
            "texts_during_tool_phase": median(overlaps),
            "stream_covered_tool_phase": f"{sum(covered)}/{len(covered)}",
            "runs": params.runs,
        }] + [{"load": name, **_beside(plugin, params, heavy)} for name, (heavy, _) in LOADS.items()],
    }


def table(result: dict[str, Any]) -> str:
    p = result["params"]
    r = result["rows"][0]
    small = [row for row in result["rows"][1:] if row.get("load") in LOADS]
    params = Params(**{key: value for key, value in p.items() if key in Params.__dataclass_fields__})
    many = [
        "\n| the other session's load | **worst gap between streamed chunks ms** (worst run) "
        "| heavy session wall s | streamed texts during it |",
        "|---|---:|---:|---:|",
        *(f"| {LOADS[row['load']][1](params)} | **{row['worst_gap_loaded_ms']}** ({row['worst_gap_loaded_max_ms']}) "
          f"| {row['heavy_session_s']} | {row['texts_during_heavy_session']} |" for row in small),
    ] if small else []
    return "\n".join([
        "| other session | **worst gap between streamed chunks ms** (worst run) | heavy session wall s "
        "| heavy session's tool phase ms | streamed texts during it | runs where the stream covered it |",
        "|---|---:|---:|---:|---:|---:|",
        f"| alone | {r['worst_gap_alone_ms']} | | | | |",
        f"| while another session reads {p['tools']} x {p['output_chars']:,} characters of tool output | "
        f"**{r['worst_gap_loaded_ms']}** ({r.get('worst_gap_loaded_max_ms', '')}) | {r['heavy_session_s']} "
        f"| {r.get('heavy_tool_phase_ms', '')} | {r.get('texts_during_tool_phase', '')} "
        f"| {r.get('stream_covered_tool_phase', '')} |",
        f"\nStream of {p['chunks']} chunks {ms(p['interval'], 0)} ms apart; the heavy session starts "
        f"{ms(p.get('lead', 0), 0)} ms into it; medians of {p['runs']} runs; goal: under 100 ms.",
        *many,
    ])


if __name__ == "__main__":
    import sys

    _big_arguments_turn(FULL.big_call_keys), _calls(FULL.chunk_calls), _records(FULL.json_records)  # built before any stream starts
    _history(FULL.history_messages, 40), _history(FULL.history_long_messages, 500), _history(FULL.history_big_messages, 50_000)
    with Plugin() as started:
        for name in sys.argv[1:]:
            print(f"{name}: {_beside(started, FULL, LOADS[name][0])}", flush=True)
