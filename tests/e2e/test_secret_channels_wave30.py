"""Red team: a canary put in a tool's ``secret-input`` parameter, driven out through every channel
of the real plugin process, never comes out of the tool call.

The tool (or the model) writes the canary in a changed form: upper-cased, in full-width
letters, with zero-width characters, a no-break space or a tab inside it, partly JSON-, HTML- or
URL-escaped, in base64; in a text, a JSON, a variable, a log, a link, a file name, citations, an
error with its traceback, the memory; the model echoes it, passes it to another tool, uses it as
two calls' ids, or the output limit cuts its answer inside it. Every line the plugin writes is
searched for the canary after undoing those changes (``plain``), so a form the plugin missed
fails the test whatever channel it took. Last, 500 secrets and megabytes of output stay fast.
"""

import base64
import html
import json
import random
import re
import time
import unicodedata
import urllib.parse

import pytest

from local_runner.tools import ScriptedTool, ToolParam, json_message, text_message
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end, observations

CANARY = "cnry-7f3a91d2e4b8"
CORE = "7f3a91d2e4b8"
"""The part of the canary looked for in every line, once its changes are undone."""


def vault_tool(responses=(), **kwargs) -> ScriptedTool:
    return ScriptedTool(
        name="vault_lookup",
        description="Look up a record in the vault",
        parameters=[ToolParam("record", description="Record name"),
                    ToolParam("api_key", type="secret-input", form="form", description="Vault API key")],
        runtime_parameters={"api_key": CANARY},
        responses=list(responses) or [text_message("record found")],
        **kwargs,
    )


def mail_tool() -> ScriptedTool:
    return ScriptedTool(name="send_mail", description="Send an e-mail",
                        parameters=[ToolParam("to", description="Address"), ToolParam("body", description="Text")],
                        responses=[text_message("sent")])


def call_turn(strategy: str, name: str, call_id: str = "c1", **arguments) -> dict:
    if strategy == "ReAct":
        return {"text": f"Thought: use {name}.\nAction:\n```json\n"
                        + json.dumps({"action": name, "action_input": arguments}) + "\n```"}
    return {"tool_calls": [{"id": call_id, "name": name, "arguments": arguments}]}


_INVISIBLE = re.compile("[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
                        "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e007f\\s]")


def plain(text: str) -> str:
    """``text`` with every change the canary was hidden behind undone: escapes decoded, look-alike
    letters as ASCII, invisible characters and whitespace dropped, lower case."""
    for _ in range(2):
        text = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)
        text = re.sub(r"\\x([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), text).replace("\\/", "/")
        text = html.unescape(urllib.parse.unquote(text))
    return _INVISIBLE.sub("", unicodedata.normalize("NFKC", text)).lower()


def assert_canary_never_written(run, result) -> None:
    """No line the plugin wrote since the run began (protocol lines, logs, stderr) holds the
    canary in any form, base64 included, except the backwards tool invocation carrying it."""
    b64 = {base64.b64encode(f"{pad}{CANARY}".encode()).decode()[4:16] for pad in ("", "u:", "ab:")}
    transcript = run.plugin.transcript
    start = next(n for n, entry in enumerate(transcript) if entry is result.transcript[0])
    for entry in transcript[start:]:
        if entry["dir"] == "to_plugin":
            continue
        invocation = ((entry.get("json") or {}).get("data") or {}).get("data") or {}
        if entry["dir"] == "from_plugin" and invocation.get("type") == "tool" and set(invocation["request"]["tool_parameters"].values()) & {CANARY}:
            continue
        line = json.dumps(entry, ensure_ascii=False, default=str)
        assert CORE not in plain(line), f"canary written by the plugin ({entry['dir']}): {line[:500]}"
        assert not any(piece in line for piece in b64), f"canary in base64 ({entry['dir']}): {line[:500]}"


def run_tool(run, strategy, responses, **kwargs):
    turns = [call_turn(strategy, "vault_lookup", record="r1"), answer_turn(strategy, "Done.")]
    return run(turns, tools=[vault_tool(responses, **kwargs)], strategy=strategy)


# --- the canary in the tool's output, changed -------------------------------------------------------


CHANGED = {
    "upper-cased": CANARY.upper(),
    "full-width": "".join(chr(ord(c) + 0xFEE0) for c in CANARY),
    "zero-width space": "\u200b".join(CANARY),
    "zero-width joiner and soft hyphen": CANARY[:6] + "\u200d" + CANARY[6:10] + "\u00ad" + CANARY[10:],
    "no-break space": CANARY[:5] + "\u00a0" + CANARY[5:],
    "tab": CANARY[:5] + "\t" + CANARY[5:],
    "partly JSON-escaped": CANARY.replace("-", "\\u002d").replace("a", "\\u0061", 1),
    "JSON-escaped upper-cased": CANARY.upper().replace("-", "\\u002D"),
    "partly HTML-escaped": CANARY.replace("-", "&#45;"),
    "partly URL-encoded": CANARY.replace("-", "%2D").replace("7", "%37"),
    "base64": base64.b64encode(f"user:{CANARY}".encode()).decode(),
    "base64 URL-safe": base64.urlsafe_b64encode(f"ab:{CANARY}".encode()).decode(),
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("form", list(CHANGED))
def test_the_canary_the_tool_writes_changed_reaches_no_line(run, strategy, form):
    shown = CHANGED[form]
    responses = [text_message(f"auth {shown} ok; record r1 is open"),
                 json_message({"debug": {"key": shown}, "record": "r1"})]
    result = run_tool(run, strategy, responses)
    assert_clean_end(result)
    (seen,) = observations(result.llm_requests[1])
    assert "record r1 is open" in seen and "[REDACTED]" in seen
    assert_canary_never_written(run, result)


def _variable(name, value, stream=False):
    return {"type": "variable", "message": {"variable_name": name, "variable_value": value, "stream": stream}, "meta": None}


CHANNELS = {
    "variable only": [_variable("out", f"key={CANARY.upper()}")],
    "streamed variable split in the canary": [_variable("out", f"key={CANARY[:7]}", True), _variable("out", CANARY[7:], True)],
    "variable name": [_variable(CANARY, "v")],
    "log message": [text_message("ok"), {"type": "log", "meta": None, "message": {
        "id": "l1", "label": f"auth {CANARY}", "parent_id": None, "error": None, "status": "success",
        "data": {"key": CANARY.upper()}, "metadata": {}}}],
    "link": [{"type": "link", "message": {"text": f"https://example.com/x?k={CANARY.upper()}"}, "meta": None}],
    "image link, escaped": [{"type": "image_link", "message": {"text": "https://cdn.example.com/i.png?k=" + CANARY.replace("-", "%2d")}, "meta": None}],
    "file name": [{"type": "blob", "message": {"blob": base64.b64encode(b"data").decode()},
                   "meta": {"filename": f"{CANARY.upper()}.txt", "mime_type": "text/plain"}}],
    "file content": [{"type": "blob", "message": {"blob": base64.b64encode(f"KEY={CANARY.upper()}".encode()).decode()},
                      "meta": {"filename": "env.txt", "mime_type": "text/plain"}}],
    "file meta": [{"type": "blob", "message": {"blob": base64.b64encode(b"data").decode()},
                   "meta": {"filename": "a.txt", "mime_type": "text/plain", "note": "k\u200b" + CANARY}}],
    "citations": [{"type": "retriever_resources", "meta": None, "message": {
        "context": f"ctx {CANARY.upper()}", "retriever_resources": [
            {"position": 1, "dataset_id": "d", "dataset_name": "n", "document_id": "x", "document_name": CANARY,
             "segment_id": "s", "score": 0.5, "content": "\uff43\uff4e\uff52\uff59-7f3a91d2e4b8"}]}}],
    "text split over two messages": [text_message(f"key {CANARY.upper()[:8]}"), text_message(f"{CANARY.upper()[8:]} ok")],
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("channel", list(CHANNELS))
def test_the_canary_through_every_tool_message_type_reaches_no_line(run, strategy, channel):
    result = run_tool(run, strategy, CHANNELS[channel])
    assert_clean_end(result)
    assert_canary_never_written(run, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_failing_tool_whose_traceback_quotes_the_canary_changed_shows_none_of_it(run, strategy):
    error = ("Traceback (most recent call last):\n  File \"vault.py\", line 3, in call\n"
             f"    auth(key='{CANARY}')\nPermissionError: INVALID KEY {CANARY.upper()} FOR "
             + "\u200b".join(CANARY))
    result = run_tool(run, strategy, [text_message("partial")], error=error)
    assert_clean_end(result)
    (node,) = [n for n in result.logs.values() if n.label == "CALL vault_lookup"]
    assert node.status == "error" and "[REDACTED]" in node.error
    assert_canary_never_written(run, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_tool_entity_that_does_not_validate_names_none_of_its_canary(run, strategy):
    class Unreadable(ScriptedTool):
        def entity(self):
            entity = super().entity()
            entity["parameters"][-1]["type"] = "password-v2"
            entity["parameters"][0]["type"] = f"bad-{CANARY}"  # a value the error would quote
            return entity

    broken = Unreadable(name="broken", description="x",
                        parameters=[ToolParam("q"), ToolParam("token", type="secret-input", form="form")],
                        runtime_parameters={"token": CANARY})
    result = run([answer_turn(strategy, "Hello.")], tools=[broken, mail_tool()], strategy=strategy)
    assert_clean_end(result)
    assert_canary_never_written(run, result)


# --- the canary the model writes -------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_canary_the_model_echoes_changed_in_its_answer_is_hidden(run, strategy):
    answer = {**answer_turn(strategy, f"Your key is {CANARY.upper()} and {CANARY.replace('-', '&#45;')}."), "split": 3}
    result = run([call_turn(strategy, "vault_lookup", record="r1"), answer], tools=[vault_tool()], strategy=strategy)
    assert_clean_end(result)
    assert result.text == "Your key is [REDACTED] and [REDACTED]."
    assert_canary_never_written(run, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("written", [CANARY, CANARY.upper(), base64.b64encode(CANARY.encode()).decode()])
def test_the_canary_the_model_passes_to_another_tool_is_not_sent(run, strategy, written):
    """The model never read the canary (every request is redacted), so one it writes came from a
    guess or a leak; the user gave it to the vault, not to the mail service. The call is not
    run, and the model is told why, without the value."""
    turns = [call_turn(strategy, "send_mail", to="x@example.com", body=f"the key: {written}"),
             answer_turn(strategy, "I cannot send it.")]
    result = run(turns, tools=[vault_tool(), mail_tool()], strategy=strategy)
    assert_clean_end(result)
    assert run.toolbox.requests == []
    (seen,) = observations(result.llm_requests[1])
    assert "was not run" in seen and "'body'" in seen and "secret" in seen
    assert_canary_never_written(run, result)


def test_two_calls_whose_ids_hold_the_canary_stay_paired_with_their_results(run):
    calls = {"tool_calls": [{"id": f"call_{CANARY}", "name": "vault_lookup", "arguments": {"record": "a"}},
                            {"id": f"call_{CANARY.upper()}", "name": "vault_lookup", "arguments": {"record": "b"}}]}
    result = run([calls, {"text": "Done."}], tools=[vault_tool()])
    assert_clean_end(result)
    messages = result.llm_requests[1]["prompt_messages"]
    call_ids = [call["id"] for m in messages for call in m.get("tool_calls") or []]
    assert len(set(call_ids)) == 2 and call_ids == [m["tool_call_id"] for m in messages if m["role"] == "tool"]
    assert_canary_never_written(run, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_canary_in_the_memory_and_the_query_is_hidden_from_the_model(run, strategy):
    history = [{"role": "user", "content": f"my vault key is {CANARY.upper()}"},
               {"role": "assistant", "content": "Noted \u200b" + CANARY}]
    result = run([answer_turn(strategy, "ok")], query=f"use {CANARY.replace('-', '%2D')}", history=history,
                 tools=[vault_tool()], strategy=strategy)
    assert_clean_end(result)
    assert_canary_never_written(run, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("cut_at", [9, 13])
def test_a_continuation_request_after_a_cut_inside_the_canary_sends_no_start_of_it(run, strategy, cut_at):
    """The output limit cut the answer inside the canary: the request that asks the model to go
    on replays the cut reply, and so held its first characters."""
    first = {**answer_turn(strategy, f"Your key is {CANARY[:cut_at]}"), "finish_reason": "length"}
    turns = [first, {"text": f"{CANARY[cut_at:]}, keep it safe."}]
    result = run(turns, tools=[vault_tool()], strategy=strategy, query="Repeat my key.")
    assert_clean_end(result)
    assert result.text == "Your key is [REDACTED], keep it safe."
    assert CANARY[:cut_at] not in json.dumps(result.llm_requests[1], ensure_ascii=False)
    assert_canary_never_written(run, result)


# --- cost ------------------------------------------------------------------------------------------


def test_five_hundred_secrets_and_megabytes_of_output_are_redacted_in_seconds(run):
    rng = random.Random(30)
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
    secrets = ["".join(rng.choice(alphabet) for _ in range(rng.randint(12, 40))) for _ in range(500)]
    secrets[0] = CANARY
    parameters = [ToolParam("record")] + [ToolParam(f"k{n}", type="secret-input", form="form") for n in range(500)]
    filler = "plain words of a large result, nothing secret\n" * 20_000  # ~1 MB
    tool = ScriptedTool(name="vault_lookup", description="x", parameters=parameters,
                        runtime_parameters={f"k{n}": secret for n, secret in enumerate(secrets)},
                        responses=[text_message(filler + CANARY.upper() + " " + secrets[250] + "\n" + filler)])
    started = time.monotonic()
    result = run([call_turn("function_calling", "vault_lookup", record="r"), {"text": "Done."}], tools=[tool])
    elapsed = time.monotonic() - started
    assert_clean_end(result)
    assert elapsed < 20, f"{elapsed:.1f} s"
    assert secrets[250] not in json.dumps(result.llm_requests, ensure_ascii=False)
    assert_canary_never_written(run, result)
