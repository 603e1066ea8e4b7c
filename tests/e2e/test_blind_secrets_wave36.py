"""Secrets, wave 36, through the real plugin process: the cases an outside harness would write
for "a secret-input value never leaves the tool call", designed from the issue and the docs
alone, then cut down to what the earlier waves had not tried.

What is new here:

- tool messages and fields no earlier case filled: an ``image`` message, a ``file`` message's
  name and extra fields, a ``binary_link``, a link whose path holds the key's base64, an inline
  ``data:`` address of a text holding the key (shortened for the model, kept in the log), a
  variable whose value is an object, a PNG whose bytes hold the key, a citation's ids, a tool
  log's id and nested data;
- what the model writes: a call naming a tool after the key, an argument named after it,
  arguments that are not JSON holding it, the key's base64 passed to another tool, the key's
  ``data:`` address in the answer;
- errors: the key across the error's cut, an HTTP error quoting the request's address;
- odd secrets: a secret parameter's default, the secret of a tool the node does not offer, a
  secret of a megabyte, one that is a word of the ReAct format (``answer``, ``action``), empty
  ones, a pass phrase wrapped over lines, a key with accents written decomposed, the marker's own
  word, and two tools whose results hold each other's key;
- what the user wrote: the key in the instruction and in the knowledge context.

Every line the plugin wrote since the run began (protocol lines, log nodes, model requests,
stderr) is searched for the canary once its changes are undone (``plain``), for its base64 and
its hex; the backwards tool request carrying the secret to its tool is the one exception.
"""

from __future__ import annotations

import base64
import html
import json
import re
import time
import unicodedata
import urllib.parse

import pytest

from local_runner.tools import ScriptedTool, ToolParam, json_message, text_message
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end, observations, plugin_lines, prompt_text

CANARY = "Cnry-5Kq8Zt2Wv9Xh"
CORE = "5kq8zt2wv9xh"
"""The part of the canary looked for, lower case, once a line's changes are undone."""
OTHER = "Mule-3Hd7Pq1Ys6Rb"
"""The secret of a second tool."""

_INVISIBLE = re.compile("[\\s\u00ad\u034f\u200b-\u200f\u2060-\u206f\ufeff]")


def plain(text: str) -> str:
    """``text`` with the canary's changes undone: three levels of ``\\uXXXX``, ``\\xXX``, URL and
    HTML escapes, compatibility letters (NFKC), invisible characters and whitespace, case."""
    for _ in range(3):
        text = re.sub(r"\\+u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)
        text = re.sub(r"\\+x([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), text)
        text = html.unescape(urllib.parse.unquote(text))
    return _INVISIBLE.sub("", unicodedata.normalize("NFKC", text)).lower()


def encoded_pieces(secret: str) -> set[str]:
    """Ten-character pieces of the middle of the secret's base64 (each alignment, either
    alphabet, the secret as written, upper- and lower-cased) and of its hex."""
    pieces = set()
    for shown in {secret, secret.upper(), secret.lower()}:
        for pad in (b"", b"a", b"ab"):
            for encode in (base64.b64encode, base64.urlsafe_b64encode):
                core = encode(pad + shown.encode()).decode()[4:-4]
                pieces.add(core[len(core) // 2 - 5 : len(core) // 2 + 5])
        pieces.add(shown.encode().hex()[6:26])
    return pieces


def assert_no_canary(run, result, secrets=(CANARY,)) -> int:
    """No line the plugin wrote since ``result``'s run began (stdout of the session and stderr)
    holds a secret of ``secrets`` once ``plain`` undid its changes, nor a piece of its base64 or
    hex; the backwards tool requests carrying the secrets are the one exception. Returns the
    number of lines checked."""
    cores = [plain(secret) for secret in secrets]
    pieces = set().union(*(encoded_pieces(secret) for secret in secrets))
    checked = 0
    for entry, _ in plugin_lines(run.plugin, result):
        line = json.dumps(entry, ensure_ascii=False, default=str)
        undone = plain(line)
        for core in cores:
            assert core not in undone, f"secret written ({entry['dir']}): {line[:400]}"
        squeezed = re.sub(r"\s|\\n", "", line).lower()
        assert not any(piece.lower() in squeezed for piece in pieces), f"secret encoded ({entry['dir']}): {line[:400]}"
        checked += 1
    assert checked > 3
    return checked


def vault(responses=(), *, secret=CANARY, name="vault", default=None, runtime=True, **kwargs) -> ScriptedTool:
    """A tool whose ``api_key`` is a ``secret-input`` form parameter set to ``secret``."""
    return ScriptedTool(
        name=name, description=f"Reads the {name}",
        parameters=[ToolParam("q", description="query"),
                    ToolParam("api_key", type="secret-input", form="form", description="key", default=default,
                              required=False)],
        runtime_parameters={"api_key": secret} if runtime else {},
        responses=list(responses) or [text_message("record r1 is open")], **kwargs)


def mail() -> ScriptedTool:
    return ScriptedTool(name="send_mail", description="Send an e-mail",
                        parameters=[ToolParam("to", description="address"), ToolParam("body", description="text")],
                        responses=[text_message("sent")])


def call(strategy: str, name: str = "vault", call_id: str = "c1", **arguments) -> dict:
    arguments = arguments or {"q": "r1"}
    if strategy == "ReAct":
        return {"text": f"Thought: use {name}.\nAction:\n```json\n"
                        + json.dumps({"action": name, "action_input": arguments}) + "\n```"}
    return {"tool_calls": [{"id": call_id, "name": name, "arguments": arguments}]}


def calls_and_answer(run, strategy, tools, *, first=None, answer="Done.", **fields):
    turns = [first or call(strategy), answer_turn(strategy, answer)]
    return run(turns, tools=tools, strategy=strategy, **fields)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _variable(name: str, value, stream: bool = False) -> dict:
    return {"type": "variable", "message": {"variable_name": name, "variable_value": value, "stream": stream},
            "meta": None}


def _png_with_text(text: str) -> bytes:
    """A PNG signature and a tEXt chunk holding ``text`` (what an image's metadata carries)."""
    body = b"Comment\x00" + text.encode()
    return b"\x89PNG\r\n\x1a\n" + len(body).to_bytes(4, "big") + b"tEXt" + body + b"\x00\x00\x00\x00"


def test_the_check_finds_the_canary_in_each_form_it_undoes():
    """The check can fail: the canary escaped, encoded, in base64 and hex is found in a JSON line."""
    forms = [CANARY, CANARY.upper(), urllib.parse.quote(urllib.parse.quote(CANARY)), CANARY.replace("-", "&#45;"),
             json.dumps(CANARY.replace("5", "\\u0035")), "\u200b".join(CANARY)]
    for shown in forms:
        assert CORE in plain(json.dumps({"v": f"x {shown} y"}, ensure_ascii=False)), shown
    for pad in ("", "u:", "ab:"):
        line = json.dumps({"v": _b64(f"{pad}{CANARY}".encode())}).lower()
        assert any(piece.lower() in line for piece in encoded_pieces(CANARY)), pad
    assert any(piece in CANARY.encode().hex() for piece in encoded_pieces(CANARY))


# --- tool messages and fields ----------------------------------------------------------------------

CHANNELS = {
    "an image message's address": [text_message("record r1 is open"),
                                   {"type": "image", "message": {"text": f"https://cdn.example.com/a.png?sig={CANARY}"},
                                    "meta": None}],
    "a file message's name and extra fields": [text_message("record r1 is open"), {
        "type": "file", "message": None, "meta": {"file": {
            "url": "https://files.example.com/report.pdf", "filename": f"report-{CANARY}.pdf",
            "mime_type": "application/pdf", "extension": ".pdf", "related_id": f"id-{CANARY.lower()}"}}}],
    "a binary link": [text_message("record r1 is open"),
                      {"type": "binary_link", "message": {"text": f"/files/tools/1.bin?k={CANARY}"}, "meta": None}],
    "a link whose path holds the key's base64": [text_message("record r1 is open"), {
        "type": "link", "message": {"text": "https://api.example.com/auth/" + _b64(f"user:{CANARY}".encode())},
        "meta": None}],
    "an inline data address of a text holding the key": [text_message(
        "record r1 is open; export: data:text/plain;base64,"
        + _b64((f"Authorization: Bearer {CANARY}\n" * 40).encode()))],
    "a variable whose value is an object": [text_message("record r1 is open"), _variable(
        "config", {"profiles": [{"name": "prod", "auth": {CANARY: True, "token": CANARY.upper()}}]})],
    "a PNG whose bytes hold the key": [text_message("record r1 is open"), {
        "type": "blob", "message": {"blob": _b64(_png_with_text(f"api_key={CANARY}"))},
        "meta": {"filename": "chart.png", "mime_type": "image/png"}}],
    "a citation's ids": [text_message("record r1 is open"), {
        "type": "retriever_resources", "meta": None, "message": {"context": "doc r1", "retriever_resources": [{
            "position": 1, "dataset_id": f"ds-{CANARY}", "dataset_name": "kb", "document_id": "d",
            "document_name": "n", "segment_id": CANARY.lower(), "index_node_hash": CANARY, "score": 0.5,
            "retriever_from": f"api:{CANARY}", "data_source_type": "upload", "content": "c",
            "doc_metadata": {"_source": "knowledge", "tags": [["a", {"k": CANARY}]]}}]}}],
    "a tool log's id, parent and nested data": [text_message("record r1 is open"), {
        "type": "log", "meta": None, "message": {
            "id": f"log-{CANARY}", "label": "auth", "parent_id": None, "error": None, "status": "success",
            "data": {"steps": [{"headers": [["Authorization", f"Bearer {CANARY}"]]}]}, "metadata": {}}}],
}
"""Tool messages carrying the canary, by where it stands."""


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("channel", list(CHANNELS))
def test_the_canary_in_a_tool_message_field_reaches_no_line(run, strategy, channel):
    result = calls_and_answer(run, strategy, [vault(CHANNELS[channel])])
    assert_clean_end(result)
    (seen,) = observations(result.llm_requests[1])
    assert "record r1 is open" in seen
    assert result.text == "Done."
    assert_no_canary(run, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_links_and_files_holding_the_key_are_withheld_and_the_model_told(run, strategy):
    """An image, a file, a binary link and a link holding the key's base64 reach no chat message;
    the model reads that each was withheld; a clean link of the same call is forwarded."""
    responses = [*CHANNELS["an image message's address"][1:], *CHANNELS["a file message's name and extra fields"][1:],
                 *CHANNELS["a binary link"][1:], *CHANNELS["a link whose path holds the key's base64"][1:],
                 {"type": "link", "message": {"text": "https://example.com/clean"}, "meta": None}]
    result = calls_and_answer(run, strategy, [vault(responses)])
    assert_clean_end(result)
    (seen,) = observations(result.llm_requests[1])
    assert seen.count("contains a secret value") >= 4, seen
    forwarded = json.dumps(result.messages)
    assert "https://example.com/clean" in forwarded
    assert "cdn.example.com" not in forwarded and "api.example.com/auth" not in forwarded
    assert_no_canary(run, result)


# --- what the model writes -------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_call_to_a_tool_named_after_the_key_reaches_no_line(run, strategy):
    """The model calls a tool whose name is the key: an unknown tool, answered as one, and neither
    the observation, the log nor the next request names it."""
    result = run([call(strategy, name=CANARY), answer_turn(strategy, "Done.")], tools=[vault()], strategy=strategy)
    assert_clean_end(result)
    assert result.tool_requests == []
    assert result.text == "Done."
    assert_no_canary(run, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_argument_named_after_the_key_is_not_sent(run, strategy):
    first = call(strategy, "send_mail", to="a@example.com", body="hi", **{CANARY: "x"})
    result = run([first, answer_turn(strategy, "Done.")], tools=[vault(), mail()], strategy=strategy)
    assert_clean_end(result)
    assert result.tool_requests == []
    assert_no_canary(run, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_keys_base64_passed_to_another_tool_is_not_sent(run, strategy):
    """The model writes ``Basic <base64 of user:key>`` into an e-mail: not run, the model told."""
    first = call(strategy, "send_mail", to="a@example.com", body="Authorization: Basic " + _b64(f"user:{CANARY}".encode()))
    result = run([first, answer_turn(strategy, "Done.")], tools=[vault(), mail()], strategy=strategy)
    assert_clean_end(result)
    assert result.tool_requests == []
    (seen,) = observations(result.llm_requests[1])
    assert "body" in seen
    assert_no_canary(run, result)


def test_arguments_that_are_not_json_holding_the_key_reach_no_line(run):
    """Function Calling: the arguments are cut JSON holding the key; the error the model reads
    and the log quote none of it."""
    first = {"tool_calls": [{"id": "c1", "name": "send_mail", "arguments": '{"to": "a@b.c", "body": "key ' + CANARY + ' ,,}'}]}
    result = run([first, {"text": "Done."}], tools=[vault(), mail()])
    assert_clean_end(result)
    assert result.tool_requests == []
    assert_no_canary(run, result)


def test_a_react_action_input_that_does_not_read_holding_the_key_reaches_no_line(run):
    first = {"text": f"Thought: mail it.\nAction: send_mail\nAction Input: {{to: a@b.c, body: <<{CANARY}>> ]]"}
    result = run([first, answer_turn("ReAct", "Done.")], tools=[vault(), mail()], strategy="ReAct")
    assert_clean_end(result)
    assert result.tool_requests == []
    assert_no_canary(run, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_answer_holding_a_data_address_of_the_key_is_hidden(run, strategy):
    """The model answers with a ``data:`` address whose text holds the key, a few characters a chunk."""
    address = "data:text/plain;base64," + _b64(f"API_KEY={CANARY}\n".encode())
    echoed = {**answer_turn(strategy, f"Download: {address} (done)"), "split": 7}
    result = run([call(strategy), echoed], tools=[vault()], strategy=strategy)
    assert_clean_end(result)
    assert result.text.startswith("Download: data:text/plain;base64,") and result.text.endswith("(done)")
    assert_no_canary(run, result)


# --- errors ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("at", [590, 596, 600, 604])
def test_a_tool_error_with_the_key_across_its_cut(run, strategy, at):
    error = "E" * at + f" {CANARY} " + "tail " * 200
    result = calls_and_answer(run, strategy, [vault([text_message("partial")], error=error)])
    assert_clean_end(result)
    assert_no_canary(run, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_http_error_quoting_the_address_with_the_key(run, strategy):
    """``requests``' HTTPError quotes the address it called, the key in its query, URL-encoded."""
    error = ("401 Client Error: Unauthorized for url: https://api.example.com/v1/search?q=r1&api_key="
             + urllib.parse.quote(CANARY.replace("-", "+"), safe="").replace("%2B", "%2D"))
    result = calls_and_answer(run, strategy, [vault([], error=error)])
    assert_clean_end(result)
    (seen,) = observations(result.llm_requests[1])
    assert "Unauthorized" in seen
    assert_no_canary(run, result)


# --- odd secrets -----------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_secret_parameters_default_is_hidden(run, strategy):
    """No runtime value: the tool uses the declared default, which is a secret too."""
    tool = vault([text_message(f"record r1 is open with {CANARY}")], default=CANARY, runtime=False)
    result = calls_and_answer(run, strategy, [tool])
    assert_clean_end(result)
    assert_no_canary(run, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_secret_of_a_tool_the_node_does_not_offer_is_hidden(run, strategy):
    """``allowed_tools`` leaves the vault out; the search tool's result quotes the vault's key."""
    search = vault([text_message(f"record r1 is open; leaked {CANARY}")], name="search", secret="unrelated-zzzz-1")
    result = calls_and_answer(run, strategy, [vault(), search], first=call(strategy, "search"),
                              params={"allowed_tools": ["search"]})
    assert_clean_end(result)
    assert [r["tool"] for r in result.tool_requests] == ["search"]
    assert_no_canary(run, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_two_tools_whose_results_hold_each_others_key(run, strategy):
    tools = [vault([text_message(f"record r1 is open; peer {OTHER}")]),
             vault([text_message(f"record r2 is open; peer {CANARY.lower()}")], name="ledger", secret=OTHER)]
    if strategy == "ReAct":
        first = {"text": "Thought: both.\nAction:\n```json\n"
                         + json.dumps([{"action": "vault", "action_input": {"q": "r1"}},
                                       {"action": "ledger", "action_input": {"q": "r2"}}]) + "\n```"}
    else:
        first = {"tool_calls": [{"id": "c1", "name": "vault", "arguments": {"q": "r1"}},
                                {"id": "c2", "name": "ledger", "arguments": {"q": "r2"}}]}
    result = calls_and_answer(run, strategy, tools, first=first)
    assert_clean_end(result)
    assert sorted(r["tool"] for r in result.tool_requests) == ["ledger", "vault"]
    for request in result.tool_requests:  # each tool gets its own key only
        own = CANARY if request["tool"] == "vault" else OTHER
        assert request["tool_parameters"].get("api_key") in (own, None)
        assert (OTHER if own == CANARY else CANARY) not in json.dumps(request)
    assert_no_canary(run, result, secrets=(CANARY, OTHER))


def test_a_secret_of_a_megabyte(run):
    """A secret of a megabyte (a key file pasted in a secret field), echoed whole by the tool: no
    40-character piece of it on any line, and the run takes seconds (it took a minute: its forms
    were prepared a character at a time, the process's other sessions held meanwhile)."""
    big = "".join(f"{n:08x}" for n in range(131_072))  # 1 MiB, no 40 characters repeated
    pieces = [big[n : n + 40] for n in (0, 300_017, 524_288, 1_048_536)]
    tool = vault([text_message(f"record r1 is open; key {big} end"), text_message(big[200_000:200_100])], secret=big)
    started = time.monotonic()
    result = calls_and_answer(run, "function_calling", [tool], timeout=90)
    elapsed = time.monotonic() - started
    assert_clean_end(result)
    (seen,) = observations(result.llm_requests[1])
    assert "record r1 is open; key [REDACTED] end" in seen
    for entry, _ in plugin_lines(run.plugin, result):
        line = json.dumps(entry, default=str)
        assert not any(piece in line for piece in pieces), f"a piece of the secret ({entry['dir']}): {line[:300]}"
    assert elapsed < 30, elapsed


def test_a_secret_that_spells_a_schema_type_leaves_the_tools_declared_with_their_types(run):
    """The secret is ``string`` (what Swagger UI fills a field with): the tool's result hides
    it, and the declarations keep ``"type": "string"`` (``"[REDACTED]"`` there is a schema
    providers refuse, so no call could run)."""
    tool = vault([text_message("record r1 is open; a string of digits")], secret="string")
    result = calls_and_answer(run, "function_calling", [tool])
    assert_clean_end(result)
    (declared,) = result.llm_requests[0]["tools"]
    assert declared["parameters"]["properties"]["q"]["type"] == "string"
    assert "[REDACTED]" not in json.dumps(declared)
    (seen,) = observations(result.llm_requests[1])
    assert seen == "record r1 is open; a [REDACTED] of digits"


def _json_steps(run, secret: str):
    """ReAct with JSON steps (a model with structured output): one call of the vault, then the answer."""
    def step(action: str, action_input: dict) -> dict:
        return {"text": json.dumps({"action": action, "action_input": action_input})}

    tool = vault([text_message(f"record r1 is open; the {secret} is set")], secret=secret)
    return run([step("vault", {"q": "r1"}), step("final_answer", {"answer": "Done."})], tools=[tool], strategy="ReAct",
               model={"features": ["structured-output"]}, params={"step_format": "json_schema"})


def test_a_secret_that_spells_a_schema_type_leaves_the_step_schema_with_its_types(run):
    """JSON steps: the step schema (constrained decoding) keeps ``"type": "string"`` when the
    secret is ``string``; the tool's result hides the word."""
    result = _json_steps(run, "string")
    assert_clean_end(result)
    schema = json.dumps(result.llm_requests[0]["structured_output_schema"])
    assert '"type": "string"' in schema and "[REDACTED]" not in schema
    assert "the [REDACTED] is set" in prompt_text(result.llm_requests[1])


def test_a_secret_that_is_a_step_key_leaves_the_step_schema_readable(run):
    """JSON steps, secret ``action``: the step schema keeps its ``action`` key (the plugin's own
    grammar), the constrained step runs the tool, and the tool's word is hidden."""
    result = _json_steps(run, "action")
    assert_clean_end(result)
    assert "[REDACTED]" not in json.dumps(result.llm_requests[0]["structured_output_schema"])
    assert [r["tool"] for r in result.tool_requests] == ["vault"]
    assert "the [REDACTED] is set" in prompt_text(result.llm_requests[1])


@pytest.mark.parametrize("word", ["answer", "action"])
def test_a_secret_that_is_a_word_of_the_react_format_is_hidden_in_the_tools_result(run, word):
    """The secret is an ordinary word the ReAct format is written in: the tool's result hides it,
    the model's ``Action:`` and ``Final Answer:`` steps still read, and the run answers."""
    tool = vault([text_message(f"record r1 is open; the {word} is {word.upper()}")], secret=word)
    first = {"text": "Thought: look it up.\nAction: vault\nAction Input: {\"q\": \"r1\"}"}
    result = run([first, {"text": "Thought: done.\nFinal Answer: The record is open."}], tools=[tool], strategy="ReAct")
    assert_clean_end(result)
    assert [r["tool"] for r in result.tool_requests] == ["vault"]
    assert result.text == "The record is open."
    (seen,) = observations(result.llm_requests[1])
    assert seen == "record r1 is open; the [REDACTED] is [REDACTED]"


def test_the_react_format_text_keeps_a_word_that_is_a_secret(run):
    """Secret ``answer``: the format the system prompt teaches still reads ``Final Answer:``."""
    tool = vault([text_message("record r1 is open")], secret="answer")
    result = run([{"text": "Thought: done.\nFinal Answer: Hello."}], tools=[tool], strategy="ReAct")
    assert_clean_end(result)
    assert "Final Answer:" in prompt_text(result.llm_requests[0])


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("empty", ["", " ", "\n\t", None])
def test_an_empty_secret_hides_nothing(run, strategy, empty):
    """A secret field left empty (or blank) is no secret: the tool's words reach the model as written."""
    tool = vault([text_message("record r1 is open: a b c, 1 2 3.")], secret=empty)
    result = calls_and_answer(run, strategy, [tool], answer="The record r1 is open.")
    assert_clean_end(result)
    (seen,) = observations(result.llm_requests[1])
    assert "record r1 is open: a b c, 1 2 3." in seen and "[REDACTED]" not in seen
    assert result.text == "The record r1 is open."


PHRASE = "correct horse battery staple"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_pass_phrase_wrapped_over_lines_is_hidden(run, strategy):
    shown = "Correct  horse\nbattery\u00a0STAPLE"
    tool = vault([text_message(f"record r1 is open; phrase: {shown}."),
                  json_message({"phrase": PHRASE.replace(" ", "\n")})], secret=PHRASE)
    result = calls_and_answer(run, strategy, [tool])
    assert_clean_end(result)
    for entry, _ in plugin_lines(run.plugin, result):
        line = re.sub(r"\\[nt]|\\u00a0|\s", "", json.dumps(entry, ensure_ascii=False, default=str)).lower()
        assert "correcthorsebatterystaple" not in line, line[:300]


ACCENTED = "Pässwörd-Ünïcode-9"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_accented_key_written_decomposed_is_hidden(run, strategy):
    """A tool on macOS writes the key in NFD: ``a`` then U+0308."""
    decomposed = unicodedata.normalize("NFD", ACCENTED)
    tool = vault([text_message(f"record r1 is open; key {decomposed}"), json_message({"k": decomposed})],
                 secret=ACCENTED)
    result = calls_and_answer(run, strategy, [tool])
    assert_clean_end(result)
    for entry, _ in plugin_lines(run.plugin, result):
        line = unicodedata.normalize("NFC", json.loads(json.dumps(json.dumps(entry, ensure_ascii=False, default=str))))
        line = re.sub(r"\\+u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), line)
        assert "wörd-ünïcode" not in unicodedata.normalize("NFC", line).lower(), line[:300]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_secret_that_is_the_markers_own_word_ends_the_run(run, strategy):
    """The secret is ``REDACTED``: hiding it writes the marker, which holds it again. The run must
    still end, with the tool's other words read."""
    tool = vault([text_message("record r1 is open; key REDACTED")], secret="REDACTED")
    result = calls_and_answer(run, strategy, [tool], timeout=30)
    assert_clean_end(result)
    (seen,) = observations(result.llm_requests[1])
    assert "record r1 is open" in seen


# --- what the user wrote ---------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_key_in_the_instruction_is_hidden_from_the_model(run, strategy):
    """The user pasted the tool's key into the instruction ("use key X"): the model reads the rest."""
    result = calls_and_answer(run, strategy, [vault()], instruction=f"You are a clerk. The vault key is {CANARY}; never share it.")
    assert_clean_end(result)
    assert "You are a clerk." in prompt_text(result.llm_requests[0])
    assert_no_canary(run, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_key_in_the_knowledge_context_is_hidden_from_the_model_and_the_citations(run, strategy):
    context = [{"content": f"Runbook: rotate {CANARY} monthly.", "title": "runbook", "_source": "knowledge",
                "dataset_id": "ds", "document_id": "d", "segment_id": "s",
                "metadata": {"document_name": f"keys-{CANARY}.md", "url": f"https://kb/?k={CANARY}"}}]
    result = calls_and_answer(run, strategy, [vault()], context=context)
    assert_clean_end(result)
    assert "Runbook: rotate" in prompt_text(result.llm_requests[0])
    assert_no_canary(run, result)
