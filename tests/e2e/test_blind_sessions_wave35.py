"""Blind sessions, wave 35 (issue 13, classes 1-3), through the real plugin process.

The earlier red-team and blind files try each class on one session at a time, or one heavy
session beside one streaming neighbour, with one canary shared by every run. A harness judging
the plugin as Dify runs it would also put many sessions on one process, each with a secret of
its own, and look for one session's secret, answer, file or log in another's lines; it would
feed the memory a user builds over a long chat (thousands of turns, megabytes, a key the user
typed once, images, calls and reasoning) and files of every size. The cases were designed from
issue 13, the READMEs and docs/architecture.md alone; those the wave-30 to wave-34 files already
try were then dropped (the report of wave 35 lists both).

Every run is audited (``audit``):

* the plugin is alive and wrote only JSON lines, each under the daemon's 5 MiB (the runner
  kills the plugin on a longer one, as the daemon does);
* no secret of any session in any line the plugin wrote (logs, text, files, backwards model
  requests, backwards tool requests) once escapes are undone, nor on stderr; a tool's own
  secret reaches only that tool, in its own parameter;
* no Python traceback on stderr or in anything shown; no log node left in ``start``.
"""

from __future__ import annotations

import base64
import json
import secrets as random_secrets
import threading
import time

import pytest

from local_runner import ScriptedBackend
from local_runner.builtin_tools import default_toolbox
from local_runner.scenario import Scenario, run_scenario
from local_runner.tools import LocalTool, ScriptedTool, ToolParam, text_message
from tests.e2e.conftest import ScriptedRun
from tests.e2e.helpers import (
    STRATEGIES,
    TRACEBACK,
    answer_turn,
    assert_no_traceback,
    observations,
    own_plugin,
    prompt_text,
    text_of,
)
from tests.e2e.pace import Pace, assert_not_held
from tests.e2e.test_red_team_wave30 import Paced, worst_gap
from tests.e2e.test_red_team_wave31 import blob, blob_chunks, call
from tests.e2e.test_secret_channels_wave30 import plain

MB = 1024 * 1024
LINE_MAX = 5 * MB

plugin = own_plugin()


def new_secret(tag: str) -> str:
    """A canary of ``tag`` and 12 hex digits (``w35-<tag>-<hex>``): unlike any word of a test."""
    return f"w35-{tag}-{random_secrets.token_hex(6)}"


def core(secret: str) -> str:
    """The part of ``secret`` no other text of a test holds (its hex digits)."""
    return secret.rsplit("-", 1)[1]


def vault(secret: str, responses: list, name: str = "vault", **kwargs) -> ScriptedTool:
    """``vault(q)`` whose ``api_key`` (a ``secret-input`` set in the node) is ``secret``."""
    return ScriptedTool(
        name=name, description="Reads the vault",
        parameters=[ToolParam("q", description="query"),
                    ToolParam("api_key", type="secret-input", form="form", description="key")],
        runtime_parameters={"api_key": secret}, responses=responses, **kwargs)


def echo(name: str = "echo") -> LocalTool:
    """``echo(q)`` answering ``echo <q>``."""
    return LocalTool(name=name, description="Echoes q", parameters=[ToolParam("q", description="text")],
                     handler=lambda given: [text_message(f"echo {given['q']}")])


# --- the audit ---------------------------------------------------------------------------------------------


def _since(plugin, result):
    transcript = plugin.transcript
    start = next(n for n, entry in enumerate(transcript) if entry is result.transcript[0])
    return transcript[start:]


def audit(plugin, result, secrets=(), *, answer: bool = True, own: dict | None = None) -> None:
    """The invariants of the module docstring for ``result``'s run. ``secrets``: texts no line
    written since the run began may hold (any session, stderr too); ``own``: ``{secret: tool}``,
    the one backwards tool request each secret may ride in (as that tool's ``api_key``; which
    session's tool is checked by each test on ``result.tool_requests``)."""
    own = own or {}
    assert plugin.alive, "the plugin was killed (a line over the daemon's limit?)"
    assert not plugin.noise, plugin.noise[-3:]
    assert result.unfinished_logs() == [], [n.label for n in result.unfinished_logs()]
    assert result.ok or result.error_text
    if answer:
        assert result.ok, result.error_text
    if not result.ok:
        assert result.error and result.error.get("error_type") == "AgentRunError", result.error_text
    assert_no_traceback(result)
    cores = {core(s): s for s in secrets}
    for entry in _since(plugin, result):
        if entry["dir"] == "to_plugin":
            continue
        if entry["dir"] == "stderr":
            assert TRACEBACK not in entry.get("text", ""), entry.get("text", "")[:400]
        line = json.dumps(entry, ensure_ascii=False, default=str)
        if "json" in entry:
            assert len(json.dumps(entry["json"], ensure_ascii=False).encode()) < LINE_MAX
        invocation = ((entry.get("json") or {}).get("data") or {}).get("data") or {}
        if invocation.get("type") == "tool":
            request = invocation.get("request") or {}
            parameters = dict(request.get("tool_parameters") or {})
            key = parameters.pop("api_key", None)
            if key in own:
                assert request.get("tool") == own[key], f"{key!r} sent to {request.get('tool')!r}"
            line = json.dumps({**request, "tool_parameters": parameters}, ensure_ascii=False)
            if key in secrets and entry["json"].get("session_id") == result.session_id:
                assert key in own, f"{key!r} sent to {request.get('tool')!r}"
        if not cores:
            continue
        folded = plain(line)
        for piece, secret in cores.items():
            assert piece not in folded, f"{secret!r} written ({entry['dir']}): {line[:400]}"


def session_lines(result):
    """The JSON lines the plugin wrote for ``result``'s session, as text."""
    return [json.dumps(entry["json"], ensure_ascii=False) for entry in result.transcript
            if entry["dir"] == "from_plugin" and (entry.get("json") or {}).get("session_id") == result.session_id]


def together(jobs: dict) -> dict:
    """Run each ``name -> callable`` in a thread of its own, all at once; their results by name."""
    results: dict = {}

    def one(name, job):
        results[name] = job()

    threads = [threading.Thread(target=one, args=item) for item in jobs.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


# --- (a) many sessions on one process -------------------------------------------------------------------


def test_twenty_sessions_each_with_its_own_secret_tool_and_file_leak_nothing_to_each_other(plugin):
    """20 sessions at once, each with a vault of its own key that answers a record naming its
    session, the key, a file named after the session and one named with the key. Each session
    gets its own answer, its own file (the one named with its key withheld, the model told) and
    its own key hidden; its key went to its own tool only; no session's marker,
    answer, file or key is in another session's lines; a neighbour streaming beside them is
    not held up."""
    sessions = {n: (f"S{n:02d}marker", new_secret(f"s{n:02d}")) for n in range(20)}

    def one(n):
        marker, secret = sessions[n]
        tool = vault(secret, [text_message(f"record of {marker}: key={secret} (base64 "
                                           f"{base64.b64encode(secret.encode()).decode()})"),
                              blob(f"data of {marker}".encode(), f"{marker}.txt"),
                              blob(b"keyed", f"{marker}-{secret}.txt")])  # named with the key: withheld
        turns = [call("function_calling", "vault", "call_1", q=marker), {"text": f"Answer for {marker}."}]
        return ScriptedRun(plugin)(turns, query=f"query of {marker}", tools=[tool], timeout=90)

    def neighbour():
        light = ScriptedRun(plugin)
        light.backend = Paced(ScriptedBackend([{"text": "w " * 300, "split": 2}]), 0.02)
        with pace:
            return run_scenario(Scenario(query="hi"), light.backend, default_toolbox(), plugin=plugin, timeout=90)

    pace = Pace()
    results = together({**{n: (lambda n=n: one(n)) for n in sessions}, "light": neighbour})
    every = [secret for _, secret in sessions.values()]
    for n, (marker, secret) in sessions.items():
        result = results[n]
        audit(plugin, result, every, own=dict.fromkeys(every, "vault"))
        assert result.text == f"Answer for {marker}."
        (seen,) = observations(result.llm_requests[1])
        assert f"record of {marker}: key=[REDACTED]" in seen, seen[:300]
        assert "not sent to the user" in seen, seen[-300:]
        assert [r["tool_parameters"]["api_key"] for r in result.tool_requests] == [secret]
        assert [f["meta"]["filename"] for f in result.files] == [f"{marker}.txt"]
        assert base64.b64decode(result.files[0]["blob"]) == f"data of {marker}".encode()
        mine = "\n".join(session_lines(result))
        others = [m for k, (m, _) in sessions.items() if k != n and m in mine]
        assert not others, f"session {n} wrote the markers of {others}"
    audit(plugin, results["light"], every)
    assert results["light"].text == "w " * 300
    assert_not_held(worst_gap(results["light"]), 2.0, pace)


def test_a_tool_output_holding_another_sessions_secret_is_that_sessions_own_text(plugin):
    """Secrets are the node's: session B's tool writes a value that is session A's key, which B's
    node never set. B reads it as written (no secret of another session leaks into B's rules),
    while A, running at the same time, hides it."""
    key_a = new_secret("a")

    def session_a():
        return ScriptedRun(plugin)([call("function_calling", "vault", q="a"), {"text": "A done."}],
                                   tools=[vault(key_a, [text_message(f"mine: {key_a}")], latency=0.3)], timeout=60)

    def session_b():
        time.sleep(0.1)
        tool = vault(new_secret("b"), [text_message(f"a string: {key_a}")])
        return ScriptedRun(plugin)([call("function_calling", "vault", q="b"), {"text": "B done."}],
                                   tools=[tool], timeout=60)

    results = together({"a": session_a, "b": session_b})
    assert observations(results["a"].llm_requests[1]) == ["mine: [REDACTED]"]
    assert observations(results["b"].llm_requests[1]) == [f"a string: {key_a}"]
    assert results["a"].text == "A done." and results["b"].text == "B done."


def test_hanging_silent_and_failing_sessions_do_not_hold_sixteen_others(plugin):
    """Among 20 sessions started together, one tool hangs, one model never says a word, one model
    plugin fails mid-reply and one tool raises. The 16 others answer within seconds, long before
    the hanging ones reach their time limits; every one of the four ends clearly by its own
    deadline."""
    runs: dict = {}

    def fast(n):
        def job():
            started = time.monotonic()
            runs[n] = ScriptedRun(plugin)
            result = runs[n]([call("function_calling", "echo", q=f"fast {n}"), {"text": f"fast {n} done"}],
                             tools=[echo()], timeout=60)
            return result, time.monotonic() - started
        return job

    def bad(kind):
        params = {"run_timeout": 12, "model_timeout": 10, "tool_timeout": 60}

        def job():
            started = time.monotonic()
            run = runs[kind] = ScriptedRun(plugin)
            if kind == "tool hangs":
                turns, tools = [call("function_calling", "slow", q="x"), {"text": "late"}], [
                    ScriptedTool(name="slow", description="s", parameters=[ToolParam("q")], hang=True)]
            elif kind == "model silent":
                turns, tools = [{"hang": True}], []
            elif kind == "model fails":
                turns, tools = [{"chunks": [{"content": "Half an ans"}], "error": "upstream 502 Bad Gateway"}], []
            else:
                turns, tools = [call("function_calling", "boom", q="x"), {"text": "boom handled"}], [
                    ScriptedTool(name="boom", description="b", parameters=[ToolParam("q")],
                                 error="Traceback (most recent call last):\n  File \"t.py\", line 1\nValueError: boom")]
            result = run(turns, tools=tools, params=params, timeout=40)
            return result, time.monotonic() - started
        return job

    kinds = ["tool hangs", "model silent", "model fails", "tool raises"]
    results = together({**{n: fast(n) for n in range(16)}, **{k: bad(k) for k in kinds}})
    for n in range(16):
        result, took = results[n]
        audit(plugin, result)
        assert result.text == f"fast {n} done"
        assert took < 8, f"session {n} took {took:.1f} s beside the hanging ones"
    for kind in kinds:
        result, took = results[kind]
        audit(plugin, result, answer=kind == "tool raises")
        assert took < 16, f"{kind}: {took:.1f} s"
    assert "Half an ans" in results["model fails"][0].text or "502" in (results["model fails"][0].error_text or "")
    assert results["tool raises"][0].text == "boom handled"


def test_twelve_sessions_each_with_a_malformed_tool_holding_its_own_key(plugin):
    """Each of 12 sessions has a tool declaration that does not validate, its ``runtime_parameters``
    holding a key of the session's own, beside a good vault: the dropped tool is named in each
    session's log, its key on stderr for none of them, and an answer that repeats the key is
    hidden (the secrets of a dropped tool are the node's too)."""

    class Unreadable(ScriptedTool):
        def entity(self):
            entity = super().entity()
            entity["parameters"][0]["type"] = "not-a-type"
            return entity

    keys = {n: new_secret(f"x{n:02d}") for n in range(12)}

    def one(n):
        broken = Unreadable(name="broken", description="x",
                            parameters=[ToolParam("q"), ToolParam("token", type="secret-input", form="form")],
                            runtime_parameters={"token": keys[n]})
        return ScriptedRun(plugin)([{"text": f"Session {n}: your token is {keys[n]}."}],
                                   tools=[broken, vault(new_secret(f"v{n:02d}"), [text_message("v")])], timeout=60)

    results = together({n: (lambda n=n: one(n)) for n in keys})
    for n, result in results.items():
        audit(plugin, result, list(keys.values()))
        assert result.text == f"Session {n}: your token is [REDACTED]."
        assert any(node.label == "TOOL DROPPED broken" for node in result.logs.values()), \
            [node.label for node in result.logs.values()]


def test_thirty_sessions_with_the_same_call_ids_get_their_own_results_in_order(plugin):
    """Every session's model names its four parallel calls ``call_1``..``call_4`` (ids are per
    reply, not per process): each session's tool messages answer its own calls, in order."""

    def one(n):
        calls = [{"id": f"call_{k}", "name": "echo", "arguments": {"q": f"{n}-{k}"}} for k in range(1, 5)]
        return ScriptedRun(plugin)([{"tool_calls": calls}, {"text": f"S{n} ok"}], tools=[echo()], timeout=90)

    results = together({n: (lambda n=n: one(n)) for n in range(30)})
    for n in range(30):
        result = results[n]
        audit(plugin, result)
        assert result.text == f"S{n} ok"
        tools = [(m["tool_call_id"], text_of(m["content"])) for m in result.llm_requests[1]["prompt_messages"]
                 if m["role"] == "tool"]
        assert tools == [(f"call_{k}", f"echo {n}-{k}") for k in range(1, 5)]


# --- (b) memory --------------------------------------------------------------------------------------------


def test_a_memory_tool_result_shortened_to_fit_leaves_no_piece_of_the_key_at_its_edges(run, plugin):
    """A 300 KB tool result of an earlier turn holds the key every few dozen characters, at every
    offset; the window is small, so memory's tool results are shortened (head and tail). Whatever
    edge the cut falls on, no six characters of the key are left beside it."""
    key = new_secret("m")
    filler = "z q " * 3
    result_text = "".join(filler[: n % 13] + key + " " for n in range(9_000))
    history = [{"role": "user", "content": "look it up"},
               {"role": "assistant", "content": "", "tool_calls": [
                   {"id": "h1", "type": "function", "function": {"name": "vault", "arguments": '{"q": "k"}'}}]},
               {"role": "tool", "content": result_text, "tool_call_id": "h1", "name": "vault"},
               {"role": "assistant", "content": "Found it."}]
    result = run([{"text": "Done."}], tools=[vault(key, [text_message("v")])], history=history,
                 model={"context_size": 12_000}, timeout=90)
    audit(plugin, result, [key])
    sent = plain(prompt_text(result.llm_requests[0]))
    hexes = core(key)
    assert not any(hexes[i:i + 6] in sent for i in range(len(hexes) - 5)), "a piece of the key at a cut edge"
    tool_messages = [m for m in result.llm_requests[0]["prompt_messages"] if m["role"] == "tool"]
    assert tool_messages and "[REDACTED]" in text_of(tool_messages[0]["content"])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_key_the_user_typed_earlier_is_hidden_and_the_rest_of_the_memory_kept_as_typed(run, plugin, strategy):
    """What a user expects of memory (README: a secret the user pasted in memory is hidden; a
    value shorter than 4 characters is not): the tool's key typed in an earlier turn reaches the
    model as ``[REDACTED]`` with every other character of that message as typed; the user's own
    password that no tool of the node holds, and a 3-character secret, reach it as typed."""
    key = new_secret("u")
    history = [{"role": "user", "content": f"My vault key is {key}, please remember it. Thanks!"},
               {"role": "assistant", "content": "Noted, I will use it."},
               {"role": "user", "content": "And my wifi password is hunter2-zebra; the PIN is k9q."},
               {"role": "assistant", "content": "OK."}]
    tools = [vault(key, [text_message("v")]),
             ScriptedTool(name="pin", description="p", parameters=[
                 ToolParam("q"), ToolParam("pin", type="secret-input", form="form")], runtime_parameters={"pin": "k9q"})]
    result = run([answer_turn(strategy, "Done.")], tools=tools, history=history, strategy=strategy, timeout=60)
    audit(plugin, result, [key])
    sent = "\n".join(text_of(m["content"]) for m in result.llm_requests[0]["prompt_messages"])
    assert "My vault key is [REDACTED], please remember it. Thanks!" in sent
    assert "And my wifi password is hunter2-zebra; the PIN is k9q." in sent
    assert "Noted, I will use it." in sent


def test_ten_memory_messages_of_a_megabyte_each_holding_the_key(run, plugin):
    """Ten user and assistant messages of 1 MB, each with the key somewhere in it: the requests fit
    the line, the key is in none of them, and the run answers."""
    key = new_secret("t")
    history = []
    for n in range(10):
        body = "p" * (n * 97_000) + f" {key} " + "p" * (MB - n * 97_000)
        history.append({"role": "user" if n % 2 == 0 else "assistant", "content": body})
    result = run([call("function_calling", "vault", q="x"), {"text": "Done."}], tools=[vault(key, [text_message("v")])],
                 history=history, model={"context_size": 2_000_000}, timeout=120)
    audit(plugin, result, [key], own={key: "vault"})
    assert result.text == "Done."
    for request in result.llm_requests:
        assert len(json.dumps(request, ensure_ascii=False).encode()) < LINE_MAX


def test_memory_images_and_documents_whose_address_or_name_holds_the_key(run, plugin):
    """An image the user sent earlier at an address holding the key (a signed URL), and a document
    named with it: neither the address nor the name reaches the model or any line."""
    key = new_secret("i")
    history = [{"role": "user", "content": [
        {"type": "text", "data": "see these"},
        {"type": "image", "data": f"https://img.example.com/a.png?token={key}",
         "url": f"https://img.example.com/a.png?token={key}", "format": "png", "mime_type": "image/png",
         "base64_data": "", "detail": "low"},
        {"type": "document", "data": "", "url": "https://example.com/r.pdf", "format": "pdf",
         "mime_type": "application/pdf", "base64_data": "", "filename": f"report-{key}.pdf"}]},
        {"role": "assistant", "content": "Seen."}]
    result = run([{"text": "Done."}], tools=[vault(key, [text_message("v")])], history=history,
                 model={"features": ["tool-call", "multi-tool-call", "stream-tool-call", "vision", "document"]},
                 timeout=60)
    audit(plugin, result, [key])
    assert result.text == "Done."


def test_a_memory_call_with_megabytes_of_arguments_and_a_megabyte_id(run, plugin):
    """An earlier turn's call carried 3 MB of arguments and an id of 1 MB, and its result: the
    request fits the line, every call it replays has its result, and the run answers."""
    big_id = "i" * MB
    history = [{"role": "user", "content": "go"},
               {"role": "assistant", "content": "", "tool_calls": [{"id": big_id, "type": "function", "function": {
                   "name": "echo", "arguments": json.dumps({"q": "a" * (3 * MB)})}}]},
               {"role": "tool", "content": "echoed", "tool_call_id": big_id, "name": "echo"},
               {"role": "assistant", "content": "did it"}]
    result = run([call("function_calling", "echo", q="b"), {"text": "Done."}], tools=[echo()], history=history,
                 model={"context_size": 4_000_000}, timeout=120)
    audit(plugin, result)
    assert result.text == "Done."
    for request in result.llm_requests:
        ids = {c["id"] for m in request["prompt_messages"] if m["role"] == "assistant" for c in m.get("tool_calls") or []}
        answered = {m.get("tool_call_id") for m in request["prompt_messages"] if m["role"] == "tool"}
        assert ids == answered


def test_sessions_redacting_memory_of_megabytes_do_not_starve_a_streaming_neighbour(plugin):
    """Three sessions start together, each with a memory of three messages of a megabyte that
    hold its key and 3,000 later turns that repeat it: each answers with its key hidden, and a neighbour
    streaming all along is not held up while their memory is read, redacted and trimmed."""
    keys = [new_secret(f"n{n}") for n in range(3)]

    def one(n):
        key = keys[n]
        history = [m for t in range(3) for m in ({"role": "user", "content": "b" * MB + key},
                                                 {"role": "assistant", "content": "ok"})]
        history += [m for t in range(3_000) for m in ({"role": "user", "content": f"turn {t} with {key}"},
                                                      {"role": "assistant", "content": f"noted {t}"})]
        return ScriptedRun(plugin)([{"text": f"S{n} done"}], tools=[vault(key, [text_message("v")])],
                                   history=history, model={"context_size": 1_000_000}, timeout=120)

    def neighbour():
        time.sleep(0.2)
        light = ScriptedRun(plugin)
        light.backend = Paced(ScriptedBackend([{"text": "w " * 300, "split": 2}]), 0.02)
        with pace:
            return run_scenario(Scenario(query="hi"), light.backend, default_toolbox(), plugin=plugin, timeout=120)

    pace = Pace()
    results = together({**{n: (lambda n=n: one(n)) for n in range(3)}, "light": neighbour})
    for n in range(3):
        audit(plugin, results[n], keys)
        assert results[n].text == f"S{n} done"
        assert "turn 2999 with [REDACTED]" in prompt_text(results[n].llm_requests[0])
    audit(plugin, results["light"], keys)
    assert results["light"].text == "w " * 300
    assert_not_held(worst_gap(results["light"]), 1.5, pace)


def test_a_memory_image_sent_inline_as_megabytes_of_base64(run, plugin):
    """An earlier turn's image came inline (4.5 MB of base64, no address), with a tool result
    holding another image whose address holds the key: the request fits one line, the key is in
    none, and the run answers."""
    key = new_secret("j")
    image = {"type": "image", "data": "", "url": "", "format": "png", "mime_type": "image/png",
             "base64_data": base64.b64encode(b"\x89PNG" + b"\x00" * 3_400_000).decode(), "detail": "low"}
    history = [{"role": "user", "content": [{"type": "text", "data": "this one"}, image]},
               {"role": "assistant", "content": "", "tool_calls": [{"id": "h1", "type": "function", "function": {
                   "name": "vault", "arguments": '{"q": "x"}'}}]},
               {"role": "tool", "tool_call_id": "h1", "name": "vault", "content": [
                   {"type": "text", "data": "chart"},
                   {"type": "image", "data": "", "url": f"https://c.example.com/p.png?k={key}", "format": "png",
                    "mime_type": "image/png", "base64_data": "", "detail": "low"}]},
               {"role": "assistant", "content": "Seen."}]
    result = run([{"text": "Done."}], tools=[vault(key, [text_message("v")])], history=history, timeout=90,
                 model={"features": ["tool-call", "multi-tool-call", "stream-tool-call", "vision"]})
    audit(plugin, result, [key])
    assert result.text == "Done."
    assert len(json.dumps(result.llm_requests[0], ensure_ascii=False).encode()) < LINE_MAX


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_memory_answer_after_six_megabytes_of_reasoning_is_kept_without_it(run, plugin, strategy):
    """An earlier answer came after 6 MB of reasoning in a ``<think>`` block: memory keeps the
    answer (the key in it hidden) and drops the reasoning, rather than the whole turn as too
    large."""
    key = new_secret("r")
    history = [{"role": "user", "content": "hi"},
               {"role": "assistant", "content": "<think>" + "r" * (6 * MB) + "</think>answer with " + key}]
    result = run([answer_turn(strategy, "Done.")], tools=[vault(key, [text_message("v")])], history=history,
                 strategy=strategy, timeout=90)
    audit(plugin, result, [key])
    assert "answer with [REDACTED]" in prompt_text(result.llm_requests[0])
    assert "rrrrrrrr" not in prompt_text(result.llm_requests[0])


def mixed_history(turns: int, key: str) -> list[dict]:
    """``turns`` turns of a long chat: questions, calls with their results, reasoning blocks, an
    image now and then, and the key the user typed once near the start."""
    history = []
    for n in range(turns):
        text = f"question {n}" + (f" (key {key})" if n == 3 else "")
        if n % 50 == 7:
            history.append({"role": "user", "content": [{"type": "text", "data": text}, {
                "type": "image", "data": f"https://e.com/{n}.png", "url": f"https://e.com/{n}.png",
                "format": "png", "mime_type": "image/png", "base64_data": "", "detail": "low"}]})
        else:
            history.append({"role": "user", "content": text})
        if n % 3 == 0:
            history += [{"role": "assistant", "content": "", "tool_calls": [{"id": f"h{n}", "type": "function",
                                                                           "function": {"name": "echo",
                                                                                        "arguments": '{"q": "x"}'}}]},
                        {"role": "tool", "content": f"result {n}", "tool_call_id": f"h{n}", "name": "echo"}]
        history.append({"role": "assistant", "content": f"<think>hidden-plan-{n}</think>answer {n}"})
    return history


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_three_thousand_turns_of_calls_reasoning_images_and_a_typed_key(run, plugin, strategy):
    """A chat of 3,000 turns holding calls with results, reasoning blocks, images and the key the
    user typed once: the run answers within seconds, no past reasoning is replayed, the calls it
    replays each have their result, the newest turn is kept, and the key is hidden."""
    key = new_secret("h")
    started = time.monotonic()
    result = run([call(strategy, "echo", q="now"), answer_turn(strategy, "Done.")], strategy=strategy,
                 tools=[echo(), vault(key, [text_message("v")])], history=mixed_history(3_000, key),
                 model={"context_size": 128_000, "features": ["tool-call", "multi-tool-call", "stream-tool-call",
                                                              "vision"]}, timeout=120)
    took = time.monotonic() - started
    audit(plugin, result, [key])
    assert result.text == "Done."
    assert took < 20, f"{took:.1f} s"
    for request in result.llm_requests:
        text = prompt_text(request)
        assert "hidden-plan-" not in text
        assert "answer 2999" in text
        ids = {c["id"] for m in request["prompt_messages"] if m["role"] == "assistant" for c in m.get("tool_calls") or []}
        assert ids == {m.get("tool_call_id") for m in request["prompt_messages"] if m["role"] == "tool"}


def test_a_memory_message_of_ten_thousand_text_parts(run, plugin):
    """A message given as 10,000 text parts (a client that sends one part a line) with the key in
    one of them and split over two others (the model reads the parts as one text): read, hidden
    both times, and answered."""
    key = new_secret("p")
    parts = [{"type": "text", "data": f"line {n}\n"} for n in range(10_000)]
    parts[5_000] = {"type": "text", "data": f"key {key}\n"}
    parts[7_000], parts[7_001] = {"type": "text", "data": f"again {key[:9]}"}, {"type": "text", "data": key[9:]}
    history = [{"role": "user", "content": parts}, {"role": "assistant", "content": "ok"}]
    result = run([{"text": "Done."}], tools=[vault(key, [text_message("v")])], history=history, timeout=60)
    audit(plugin, result, [key])
    assert result.text == "Done."
    assert "line 9999" in prompt_text(result.llm_requests[0])
    (read,) = [text_of(m["content"]) for m in result.llm_requests[0]["prompt_messages"]
               if m["role"] == "user" and "line 9999" in text_of(m["content"])]
    assert core(key) not in read and "again [REDACTED]" in read


# --- (c) files ---------------------------------------------------------------------------------------------


def test_two_hundred_images_with_addresses_of_twenty_kilobytes(run, plugin):
    """200 images in the query, each at an address of 20 KB (4 MB of addresses): the request fits
    the line, the run answers, and every image is sent or named."""
    files = [{"url": f"https://img.example.com/{n}/" + "a" * 20_000 + ".png", "mime_type": "image/png",
              "filename": f"img{n}.png", "type": "image"} for n in range(200)]
    result = run([{"text": "Done."}], files=files, timeout=120,
                 model={"features": ["tool-call", "multi-tool-call", "stream-tool-call", "vision"]})
    audit(plugin, result)
    assert result.text == "Done."
    text = prompt_text(result.llm_requests[0])
    assert all(f"/{n}/" in text or f"img{n}.png" in text for n in range(200)), "an image dropped without a word"


def test_a_query_file_whose_megabyte_address_ends_in_the_key(run, plugin):
    """A signed address of 1 MB whose last parameter is the key: withheld, and the run answers."""
    key = new_secret("f")
    files = [{"url": "https://files.example.com/doc?" + "x=1&" * 250_000 + f"sig={key}",
              "mime_type": "application/pdf", "filename": "doc.pdf", "type": "document"}]
    result = run([{"text": "Done."}], files=files, tools=[vault(key, [text_message("v")])], timeout=60,
                 model={"features": ["tool-call", "multi-tool-call", "stream-tool-call", "document"]})
    audit(plugin, result, [key])
    assert result.text == "Done."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_query_image_at_a_signed_address_holding_the_key_for_a_vision_model(run, plugin, strategy):
    """The image of this turn is at a public address signed with the key: a vision model is not
    sent the address (it is withheld, the model told), the other image is sent, the run answers."""
    key = new_secret("q")
    files = [{"url": f"https://img.example.com/a.png?sig={key}", "mime_type": "image/png", "filename": "a.png",
              "type": "image"},
             {"url": "https://img.example.com/b.png", "mime_type": "image/png", "filename": "b.png", "type": "image"}]
    result = run([answer_turn(strategy, "Done.")], files=files, tools=[vault(key, [text_message("v")])],
                 strategy=strategy, timeout=60,
                 model={"features": ["tool-call", "multi-tool-call", "stream-tool-call", "vision"]})
    audit(plugin, result, [key])
    assert result.text == "Done."
    assert "https://img.example.com/b.png" in prompt_text(result.llm_requests[0])


@pytest.mark.parametrize("size", [3_900_000, 4 * MB])
def test_a_tool_blob_of_four_megabytes_reaches_the_chat(run, plugin, size):
    """A tool's file of about 4 MB (its base64 alone is over or near the daemon's line) reaches
    the chat whole, in lines that fit, and the model is told of it, not given its bytes."""
    data = bytes(range(256)) * (size // 256) + b"e" * (size % 256)
    tool = vault(new_secret("b"), [blob(data, "big.bin", "application/octet-stream"), text_message("kept")])
    result = run([call("function_calling", "vault", q="x"), {"text": "Done."}], tools=[tool], timeout=120)
    audit(plugin, result)
    assert result.text == "Done."
    assert [base64.b64decode(f["blob"]) == data for f in result.files] == [True]
    (seen,) = observations(result.llm_requests[1])
    assert "kept" in seen and len(seen) < 10_000


def test_a_tool_file_of_six_megabytes_in_chunks_reaches_the_chat_whole(run, plugin):
    """The SDK sends a large file as ``blob_chunk`` messages: 6 MB in 96 chunks reach the chat as
    one file of the same bytes."""
    data = (b"0123456789abcdef" * 4096) * 96
    pieces = [data[n:n + 65_536] for n in range(0, len(data), 65_536)]
    tool = vault(new_secret("c"), [*blob_chunks(pieces, "six.bin"), text_message("kept")])
    result = run([call("function_calling", "vault", q="x"), {"text": "Done."}], tools=[tool], timeout=120)
    audit(plugin, result)
    assert result.text == "Done."
    assert [f["size"] if "size" in f else len(base64.b64decode(f["blob"])) for f in result.files] == [len(data)]
    assert base64.b64decode(result.files[0]["blob"]) == data


def test_a_hundred_image_links_and_a_hundred_image_blobs_reach_the_chat_in_order(run, plugin):
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
    messages = []
    for n in range(100):
        messages.append({"type": "image_link", "message": {"text": f"https://img.example.com/{n}.png"}, "meta": None})
        messages.append(blob(png + str(n).encode(), f"pic{n}.png", "image/png"))
    tool = vault(new_secret("g"), messages)
    result = run([call("function_calling", "vault", q="x"), {"text": "Done."}], tools=[tool], timeout=120)
    audit(plugin, result)
    assert result.text == "Done."
    got = [f.get("text") or (f.get("meta") or {}).get("filename") for f in result.files]
    want = [x for n in range(100) for x in (f"https://img.example.com/{n}.png", f"pic{n}.png")]
    assert got == want


# --- (d) what the plugin writes backwards -------------------------------------------------------------------


def test_a_tools_secret_rides_only_in_its_own_request_and_no_other_tools(run, plugin):
    """Two tools called in one round: the vault's request carries its key as its ``api_key`` and
    nowhere else; the echo's request, every model request and every log carry none of it."""
    key = new_secret("d")
    calls = [{"id": "a1", "name": "vault", "arguments": {"q": "one"}},
             {"id": "a2", "name": "echo", "arguments": {"q": "two"}}]
    result = run([{"tool_calls": calls}, {"text": "Done."}], tools=[vault(key, [text_message(f"k={key}")]), echo()])
    audit(plugin, result, [key], own={key: "vault"})
    by_tool = {r["tool"] if "tool" in r else r.get("tool_name"): r for r in result.tool_requests}
    assert key not in json.dumps(by_tool["echo"])
    assert by_tool["vault"]["tool_parameters"] == {"q": "one", "api_key": key}


def test_a_value_set_in_the_node_that_makes_the_tool_request_too_large_is_not_sent(run, plugin):
    """A tool's form parameter set in the node to 6 MB: the backwards tool request would be over
    the line, so the call is not sent (the daemon would kill the plugin) and the model is told
    why; the run answers. At 2 MB the call runs."""
    def tool(size):
        return ScriptedTool(name="tmpl", description="t", parameters=[ToolParam("q"), ToolParam("template", form="form")],
                            runtime_parameters={"template": "x" * size}, responses=[text_message("ran")])

    for size, runs in ((6 * MB, 0), (2 * MB, 1)):
        result = run([call("function_calling", "tmpl", q="a"), {"text": "Done."}], tools=[tool(size)], timeout=90)
        audit(plugin, result)
        assert result.text == "Done."
        assert len(result.tool_requests) == runs
        (seen,) = observations(result.llm_requests[1])
        assert seen == "ran" if runs else "was not run" in seen and "tmpl" in seen, seen


@pytest.mark.parametrize("arguments", ["a" * 4_900_000, "\x01" * 820_000], ids=["4.9 MB", "escapes"])
def test_a_call_with_arguments_of_nearly_a_line(run, plugin, arguments):
    """Arguments of 4.9 MB (or 820,000 control characters, 4.9 MB of JSON escapes): the
    backwards tool request, the Thought and CALL logs and the next model request each fit a line;
    the run answers or ends with a clear error, the process alive."""
    result = run([call("function_calling", "echo", q=arguments), {"text": "Done."}], tools=[echo()], timeout=120)
    audit(plugin, result, answer=False)
