"""Red-team wave 31, through the real plugin process: attacks the earlier red-team files
(waves 30 and before, the fuzzers, the security, fault, cut-reply and line-budget suites) did not
try. Every run is checked with wave 30's invariants (``assert_survived``: the plugin alive, no
line over the daemon's 5 MiB, only JSON on stdout, no log left in ``start``, every call served
has its CALL node, an answer or a clear error) and every line the plugin wrote since the run
began is searched for the canary once its changes are undone (``plain``), but the backwards
tool request that carries it to its tool.

The attacks: values nested past what a JSON reader or writer takes, lone surrogates and NUL
characters in every kind of tool message, secrets split across a file's chunks, in a tool's
own declaration, in the model's usage, in a list-shaped reply, with whitespace around them;
tens of thousands of tool stream items or empty model chunks next to a streaming neighbour;
ten thousand parallel calls with long ids; tools and models that never go silent but never
end; a cut reply inside a ReAct answer or a JSON action.
"""

from __future__ import annotations

import base64
import gc
import json
import threading
import time

import pytest

from local_runner import ScriptedBackend
from local_runner.tools import LocalTool, ScriptedTool, ToolParam, json_message, text_message
from tests.e2e.conftest import ScriptedRun
from tests.e2e.helpers import STRATEGIES, answer_turn, observations, own_plugin, plugin_lines
from tests.e2e.pace import Pace, assert_not_held
from tests.e2e.test_red_team_wave30 import Paced, assert_survived, worst_gap
from tests.e2e.test_secret_channels_wave30 import plain

CANARY = "rt31-9c4e7b0a2d61"
CORE = "9c4e7b0a2d61"


plugin = own_plugin()


# --- checks and building blocks ----------------------------------------------------------------------


def assert_no_canary(plugin, result, core: str = CORE) -> None:
    """No line the plugin wrote since ``result``'s run began (any session, stderr too) holds
    ``core`` once escapes, look-alikes and invisible characters are undone, nor in base64; the
    backwards tool request that carries the canary to its tool is the one exception."""
    b64 = {base64.b64encode(f"{pad}{CANARY}".encode()).decode()[4:16] for pad in ("", "u:", "ab:")}
    for entry, _ in plugin_lines(plugin, result):
        line = json.dumps(entry, ensure_ascii=False, default=str)
        assert core not in plain(line), f"canary written ({entry['dir']}): {line[:400]}"
        assert not any(piece in line for piece in b64), f"canary in base64 ({entry['dir']}): {line[:400]}"


def call(strategy: str, name: str, call_id: str = "c1", **arguments) -> dict:
    if strategy == "ReAct":
        blob = json.dumps({"action": name, "action_input": arguments}, ensure_ascii=False)
        return {"text": f"Thought: use {name}.\nAction:\n```json\n{blob}\n```"}
    return {"tool_calls": [{"id": call_id, "name": name, "arguments": arguments}]}


def vault(responses: list, secret: str = CANARY, name: str = "vault", **kwargs) -> ScriptedTool:
    return ScriptedTool(
        name=name, description="Reads the vault",
        parameters=[ToolParam("q", description="query"),
                    ToolParam("api_key", type="secret-input", form="form", description="key")],
        runtime_parameters={"api_key": secret}, responses=responses, **kwargs)


def variable(name, value, stream: bool = False) -> dict:
    return {"type": "variable", "message": {"variable_name": name, "variable_value": value, "stream": stream},
            "meta": None}


def blob(data: bytes, filename: str, mime: str = "text/plain") -> dict:
    return {"type": "blob", "message": {"blob": base64.b64encode(data).decode()},
            "meta": {"filename": filename, "mime_type": mime}}


def blob_chunks(pieces: list[bytes], filename: str, file_id: str = "f1") -> list[dict]:
    """One file sent as ``blob_chunk`` messages (the last one ``end``), as the SDK's
    ``create_blob_message`` of a large file does."""
    total = sum(map(len, pieces))
    messages = [{"type": "blob_chunk", "meta": {"filename": filename, "mime_type": "text/plain"},
                 "message": {"id": file_id, "sequence": n, "total_length": total,
                             "blob": base64.b64encode(piece).decode(), "end": False}}
                for n, piece in enumerate(pieces)]
    messages.append({"type": "blob_chunk", "meta": {"filename": filename, "mime_type": "text/plain"},
                     "message": {"id": file_id, "sequence": len(pieces), "total_length": total, "blob": "",
                                 "end": True}})
    return messages


def log_message(label, data) -> dict:
    return {"type": "log", "meta": None, "message": {"id": "l1", "label": label, "parent_id": None, "error": None,
                                                     "status": "success", "data": data, "metadata": {}}}


def nested(depth: int, leaf="x"):
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


def nested_objects(depth: int, leaf="x"):
    value = leaf
    for _ in range(depth):
        value = {"k": value}
    return value


# --- 1. values nested past what a reader or writer takes ---------------------------------------------

DEEP = {
    "json list 900 deep": json_message(nested(900)),
    "json object 900 deep": json_message(nested_objects(900)),
    "json 300 deep": json_message(nested_objects(300)),
    "variable 300 deep": variable("v", nested_objects(300)),
    "log data 300 deep": log_message("deep", nested_objects(300)),
    "blob meta 300 deep": {**blob(b"data", "a.txt"), "meta": {"filename": "a.txt", "mime_type": "text/plain",
                                                              "extra": nested_objects(300)}},
    "citation metadata 300 deep": {"type": "retriever_resources", "meta": None, "message": {
        "context": "c", "retriever_resources": [{"position": 1, "content": "c", "doc_metadata": nested(300)}]}},
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", list(DEEP))
def test_a_tool_message_nested_past_what_json_takes_is_reported_and_the_rest_kept(run, plugin, strategy, kind):
    responses = [text_message("before"), DEEP[kind], text_message("after")]
    result = run([call(strategy, "vault", q="x"), answer_turn(strategy, "Done.")], tools=[vault(responses)],
                 strategy=strategy, timeout=120)
    assert_survived(plugin, result)
    assert result.text == "Done."
    (seen,) = observations(result.llm_requests[1])
    assert "before" in seen and "after" in seen
    assert_no_canary(plugin, result)


# --- 2. lone surrogates and NUL characters in every kind of tool message ------------------------------

ODD = "a\ud800b\udfffc\x00d"

ODD_MESSAGES = {
    "text": text_message(f"out {ODD} {CANARY}"),
    "json key and value": json_message({ODD: ODD, "k": [ODD, CANARY]}),
    "variable name and value": variable(ODD, f"{ODD} {CANARY}"),
    "streamed variable": variable("s", ODD, stream=True),
    "log label and data": log_message(f"label {ODD}", {ODD: CANARY}),
    "file name": blob(b"data", f"{ODD}.txt"),
    "link": {"type": "link", "message": {"text": f"https://example.com/{ODD}"}, "meta": None},
    "image link": {"type": "image_link", "message": {"text": f"https://example.com/{ODD}.png"}, "meta": None},
    "citation": {"type": "retriever_resources", "meta": None, "message": {
        "context": ODD, "retriever_resources": [{"position": 1, "content": ODD, "document_name": ODD}]}},
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", list(ODD_MESSAGES))
def test_lone_surrogates_and_nul_in_a_tool_message_end_neither_the_run_nor_the_rest(run, plugin, strategy, kind):
    """Sent as ``\\ud800`` escapes (a harness's ``json.dumps``): before, the SDK's reader dropped
    the whole line without a word (pydantic-core refuses a lone surrogate escape)."""
    errors = len(plugin.plugin_errors)
    responses = [ODD_MESSAGES[kind], text_message("kept")]
    result = run([call(strategy, "vault", q="x"), answer_turn(strategy, "Done.")], tools=[vault(responses)],
                 strategy=strategy)
    assert_survived(plugin, result)
    assert result.text == "Done."
    (seen,) = observations(result.llm_requests[1])
    assert "kept" in seen
    if kind in {"text", "json key and value"}:
        assert "a\ufffdb\ufffdc" in seen  # the message arrived, each half character as U+FFFD
    assert len(plugin.plugin_errors) == errors, plugin.plugin_errors[errors:]
    assert_no_canary(plugin, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_lone_surrogates_in_the_model_reasoning_and_call_id(run, plugin, strategy):
    if strategy == "ReAct":
        first = {"text": f"<think>{ODD}</think>Thought: {ODD}\nAction: vault\nAction Input: " + '{"q": "x"}'}
    else:
        first = {"text": f"<think>{ODD}</think>", "tool_calls": [{"id": f"id{ODD}", "name": "vault",
                                                                  "arguments": {"q": "x"}}]}
    result = run([first, answer_turn(strategy, f"Done {ODD}.")], tools=[vault([text_message("ok")])],
                 strategy=strategy)
    assert_survived(plugin, result)
    assert len(result.tool_requests) == 1  # before: the chunk was dropped, the call with it
    assert result.text.startswith("Done a\ufffdb\ufffdc")


# --- 3. secrets in places not tried before -------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("cut", [3, 8, 12])
def test_a_secret_split_across_two_chunks_of_a_file_is_found(run, plugin, strategy, cut):
    text = f"KEY={CANARY}\n".encode()
    at = 4 + cut
    responses = blob_chunks([b"header\n" + text[:at], text[at:] + b"footer\n"], "env.txt")
    responses.append(text_message("listed"))
    result = run([call(strategy, "vault", q="x"), answer_turn(strategy, "Done.")], tools=[vault(responses)],
                 strategy=strategy)
    assert_survived(plugin, result)
    assert result.files == []  # withheld: its content holds the secret
    assert_no_canary(plugin, result)


class DeclaredWithSecret(ScriptedTool):
    """A tool whose own declaration quotes its secret: in its description, another parameter's
    description, label, placeholder and option labels (a careless tool author)."""

    def entity(self):
        entity = super().entity()
        entity["description"]["llm"] = f"Uses key {CANARY} to read the vault"
        query = entity["parameters"][0]
        query["llm_description"] = f"a query (the key {CANARY} is sent with it)"
        query["label"]["en_US"] = CANARY
        query["placeholder"] = {"en_US": CANARY}
        query["type"] = "select"
        query["options"] = [{"value": "a", "label": {"en_US": CANARY}}, {"value": f"b-{CANARY}", "label": {"en_US": "b"}}]
        return entity


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_secret_in_the_tools_own_declaration_reaches_no_line(run, plugin, strategy):
    tool = DeclaredWithSecret(name="vault", description="x",
                              parameters=[ToolParam("q", description="q"),
                                          ToolParam("api_key", type="secret-input", form="form")],
                              runtime_parameters={"api_key": CANARY}, responses=[text_message("ok")])
    result = run([call(strategy, "vault", q="a"), answer_turn(strategy, "Done.")], tools=[tool], strategy=strategy)
    assert_survived(plugin, result, answer=False)
    assert_no_canary(plugin, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("field", ["currency", "total_price", "latency"])
def test_a_secret_in_the_models_usage_reaches_no_line(run, plugin, strategy, field):
    usage = {"prompt_tokens": 5, "completion_tokens": 2, field: f"{CANARY}"}
    turns = [{**call(strategy, "vault", q="x"), "usage": usage}, {**answer_turn(strategy, "Done."), "usage": usage}]
    result = run(turns, tools=[vault([text_message("ok")])], strategy=strategy)
    assert_survived(plugin, result, answer=False)
    assert_no_canary(plugin, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_secret_in_a_reply_given_as_a_list_of_parts_is_hidden(run, plugin, strategy):
    text = answer_turn(strategy, f"Your key: {CANARY}.")["text"]
    chunks = [{"content": [{"type": "text", "data": text[:20]}]}, {"content": [{"type": "text", "data": text[20:]}]}]
    result = run([call(strategy, "vault", q="x"), {"chunks": chunks}], tools=[vault([text_message("ok")])],
                 strategy=strategy)
    assert_survived(plugin, result, answer=False)
    assert_no_canary(plugin, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("padded", [f"  {CANARY}\n", f"\t{CANARY} ", f"Bearer {CANARY}"])
def test_a_secret_set_with_whitespace_or_a_scheme_around_it_is_hidden_as_the_tool_writes_it(run, plugin,
                                                                                              strategy, padded):
    responses = [text_message(f"auth={CANARY};"), json_message({"token": CANARY})]
    result = run([call(strategy, "vault", q="x"), answer_turn(strategy, "Done.")],
                 tools=[vault(responses, secret=padded)], strategy=strategy)
    assert_survived(plugin, result)
    assert_no_canary(plugin, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_secret_in_a_top_level_json_list_and_a_file_variable_is_hidden(run, plugin, strategy):
    responses = [json_message([[{"k": [CANARY]}], CANARY.upper()]),
                 variable("file", {"filename": f"{CANARY}.txt", "url": f"https://x.io/f?k={CANARY}",
                                   "mime_type": "text/plain"}),
                 text_message("ok")]
    result = run([call(strategy, "vault", q="x"), answer_turn(strategy, "Done.")], tools=[vault(responses)],
                 strategy=strategy)
    assert_survived(plugin, result)
    assert_no_canary(plugin, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_secret_streamed_one_character_a_message_is_hidden(run, plugin, strategy):
    """A tool that streams its output one character per text message (a progress-style tool)."""
    responses = [text_message(c) for c in f"the key is {CANARY} ok"]
    result = run([call(strategy, "vault", q="x"), answer_turn(strategy, "Done.")], tools=[vault(responses)],
                 strategy=strategy)
    assert_survived(plugin, result)
    assert_no_canary(plugin, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_secret_streamed_one_character_a_variable_piece_is_hidden(run, plugin, strategy):
    responses = [variable("out", c, stream=True) for c in f"key {CANARY} ok"]
    result = run([call(strategy, "vault", q="x"), answer_turn(strategy, "Done.")], tools=[vault(responses)],
                 strategy=strategy)
    assert_survived(plugin, result)
    assert_no_canary(plugin, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_users_own_password_in_the_query_is_no_tool_secret_and_reaches_the_model(run, plugin, strategy):
    """A value the user typed that is no tool's secret is the user's to give the model."""
    result = run([answer_turn(strategy, "ok")], query="my wifi password is hunter2-plain-77",
                 tools=[vault([text_message("ok")])], strategy=strategy)
    assert_survived(plugin, result)
    assert "hunter2-plain-77" in json.dumps(result.llm_requests[0], ensure_ascii=False)
    assert_no_canary(plugin, result)


# --- 4. volume: many items, many chunks, many calls, next to a neighbour --------------------------------


def _neighbour(plugin, results, turns=None, interval=0.01):
    """A light session on ``plugin`` (the one a heavy session runs on): the model's ``turns``
    (default: 300 characters, two a chunk) paced ``interval`` seconds a chunk; its ``RunResult``
    goes in ``results["light"]``, the machine's ``Pace`` while it ran in ``results["pace"]``."""
    light = ScriptedRun(plugin)
    light.backend = Paced(ScriptedBackend(turns or [{"text": "w " * 300, "split": 2}]), interval)
    from local_runner.builtin_tools import default_toolbox
    from local_runner.scenario import Scenario, run_scenario
    with Pace() as results["pace"]:
        results["light"] = run_scenario(Scenario(query="hi"), light.backend, default_toolbox(), plugin=plugin,
                                        timeout=120)


def _with_neighbour(plugin, heavy_run):
    """Run ``heavy_run`` while a light session streams beside it on the same plugin process.

    The test process's own collector is paused meanwhile: by this point of a full test session
    its heap is large, and a full collection stops the runner's threads, so both sessions' lines,
    for a second or more. That is the harness, not the plugin, whose process is separate."""
    results = {}
    collecting = gc.isenabled()
    gc.disable()
    try:
        thread = threading.Thread(target=_neighbour, args=(plugin, results))
        thread.start()
        time.sleep(0.3)
        results["heavy"] = heavy_run()
        thread.join()
    finally:
        if collecting:
            gc.enable()
    assert_survived(plugin, results["light"])
    assert results["light"].text == "w " * 300
    return results


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_twenty_thousand_tiny_tool_items_do_not_starve_a_neighbour(plugin, strategy):
    """The light session's worst gap was 2-14 s, all of it the runner's: a plain lock let the busy
    sender take it back at once, and Python's full collections over the transcript stalled every
    thread (local_runner.daemon.FairLock, FREEZE_EVERY). The plugin reads both shapes in 0.03-0.2 s
    gaps; 0.75 s leaves room for a loaded 2-core machine and still fails on the old runner."""
    heavy = ScriptedRun(plugin)
    responses = [text_message("x") for _ in range(10_000)] + [variable("v", "y", stream=True) for _ in range(10_000)]
    results = _with_neighbour(plugin, lambda: heavy([call(strategy, "vault", q="x"), answer_turn(strategy, "Done.")],
                                                    tools=[vault(responses)], strategy=strategy, timeout=120))
    assert_survived(plugin, results["heavy"])
    assert_not_held(worst_gap(results["light"]), 0.75, results["pace"])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_two_hundred_thousand_empty_model_chunks_do_not_starve_a_neighbour(plugin, strategy):
    """Both sessions end whole. The worst gap between the light session's chunks is measured by
    ``python -m bench concurrency`` ("empty model chunks": 119-147 ms, 20 s before the fixes of
    bench/README.md), not here: run alone this test saw 0.05-0.18 s, but late in a whole test
    session (a shared plugin process, a large test heap) the harness's own pauses gave 1-2 s."""
    heavy = ScriptedRun(plugin)
    text = answer_turn(strategy, "Done.")["text"]
    chunks = [{"content": ""} for _ in range(200_000)] + [{"content": text}]
    results = _with_neighbour(plugin, lambda: heavy([{"chunks": chunks}], strategy=strategy, timeout=240))
    assert_survived(plugin, results["heavy"])
    assert results["heavy"].text == "Done."


def test_ten_thousand_parallel_calls_with_long_ids_fit_every_line(run, plugin):
    calls = [{"id": f"call_{n:05d}_" + "i" * 500, "name": "vault", "arguments": {"q": f"q{n}"}}
             for n in range(10_000)]
    result = run([{"tool_calls": calls}, {"text": "Done."}, {"text": "Done."}], tools=[vault([text_message("ok")])],
                 timeout=240)
    assert_survived(plugin, result, answer=False)
    assert 0 < len(result.tool_requests) <= 64


# --- 5. never silent, never done -------------------------------------------------------------------------


def chatty_tool() -> LocalTool:
    def handler(params):
        while True:
            time.sleep(0.2)
            yield text_message(".")

    return LocalTool(name="vault", description="Streams forever", parameters=[ToolParam("q")], handler=handler)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_tool_that_streams_forever_is_cut_and_the_run_ends_before_its_deadline(run, plugin, strategy):
    started = time.monotonic()
    result = run([call(strategy, "vault", q="x"), answer_turn(strategy, "Done.")], tools=[chatty_tool()],
                 strategy=strategy, params={"run_timeout": 12, "tool_timeout": 60}, timeout=60)
    assert_survived(plugin, result)
    assert time.monotonic() - started < 14


class Trickle(ScriptedBackend):
    """A model that sends an empty chunk every 50 ms and never finishes."""

    def invoke_llm(self, request):
        self.requests.append(request)

        def chunks():
            for _ in range(10_000):
                time.sleep(0.05)
                yield {"model": "m", "prompt_messages": [], "system_fingerprint": "",
                       "delta": {"index": 0, "message": {"role": "assistant", "content": "", "name": "",
                                                         "tool_calls": [], "tool_call_id": ""},
                                 "usage": None, "finish_reason": None}}
        return chunks()


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_model_that_sends_empty_chunks_forever_ends_before_the_deadline(plugin, strategy):
    from local_runner.builtin_tools import default_toolbox
    from local_runner.scenario import Scenario, run_scenario
    backend = Trickle([])
    started = time.monotonic()
    result = run_scenario(Scenario(query="q", strategy=strategy, params={"run_timeout": 10}), backend,
                          default_toolbox(), plugin=plugin, timeout=60)
    assert time.monotonic() - started < 12
    assert_survived(plugin, result, answer=False)


# --- 6. replies cut by the output limit ------------------------------------------------------------------


def test_a_react_final_answer_cut_then_continued_with_an_action_runs_nothing(run, plugin):
    """The continuation of a cut answer is the answer's rest: an Action in it is not run."""
    first = {"text": "Thought: done.\nFinal Answer: The vault says", "finish_reason": "length"}
    rest = {"text": ' nothing.\nAction: vault\nAction Input: {"q": "x"}'}
    result = run([first, rest, answer_turn("ReAct", "x")], tools=[vault([text_message("ok")])], strategy="ReAct")
    assert_survived(plugin, result)
    assert result.tool_requests == []
    assert result.text.startswith("The vault says nothing.")


@pytest.mark.parametrize("reason", ["LENGTH", "max_output_tokens", "MAX_TOKENS "])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_call_cut_with_an_odd_spelling_of_the_output_limit_is_not_run(run, plugin, strategy, reason):
    first = {**call(strategy, "vault", q="x"), "finish_reason": reason}
    result = run([first, call(strategy, "vault", "c2", q="y"), answer_turn(strategy, "Done.")],
                 tools=[vault([text_message("ok")])], strategy=strategy)
    assert_survived(plugin, result)
    assert [r["tool_parameters"]["q"] for r in result.tool_requests] == ["y"]


def test_a_react_json_action_cut_after_its_closing_brace_is_not_run(run, plugin):
    first = {"text": 'Thought: go.\nAction:\n```json\n{"action": "vault", "action_input": {"q": "x"}}',
             "finish_reason": "length"}
    result = run([first, call("ReAct", "vault", q="y"), answer_turn("ReAct", "Done.")],
                 tools=[vault([text_message("ok")])], strategy="ReAct")
    assert_survived(plugin, result)
    assert [r["tool_parameters"]["q"] for r in result.tool_requests] == ["y"]
