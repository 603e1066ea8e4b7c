"""Secrets, wave 38, through the real plugin process: "a secret-input value never leaves the tool
call", from angles waves 30-37 had not taken. Written from issue 13, the READMEs and
docs/architecture.md before any earlier test was read, then cut down to what those waves had not
tried.

What is new here:

- encodings written in every character: URL form encoding (``+`` for a space) of a pass phrase,
  ``%xx`` of every byte in lower case, ``&#x..;`` of every character in mixed case, ``\\u`` of
  every character with mixed-case hex digits; the same split over a streamed answer's pieces
  inside one escape;
- secrets of odd shapes: exactly four characters, one the prefix of another or inside another,
  ten kilobytes (across the observation's cut, and streamed back by the model), a line break
  inside (the tool writes CRLF), a quote and a backslash, a literal ``\\u0041`` or ``%41``
  inside, one that spells a key of the plugin's own log data (``output``);
- channels: a text message's ``meta``, a JSON message that is a list, a tool stream item of
  an unknown type or with a payload of the wrong type, a citation list's ``context``, a
  ``blob_chunk`` the tool sends itself (its name in ``meta``);
- the model: a call's arguments streamed as fragments with the secret split between them, a
  ``<think>`` block in the content split at its close, an earlier run's memory holding the key
  base64-encoded in a tool message and in a ``<think>`` block;
- faults found and fixed in this wave: a secret with parts a tool writes alone (a JSON key
  file's ``private_key``, an address's password, ``DB_PASSWORD=`` in an environment file,
  ``Password=`` in a connection string, a ``user:password`` pair, a secret value that is a list
  or an object); a secret that spells a JSON Schema keyword (``properties``, ``required``,
  ``description``, ``type``) broke the tools' declarations, ReAct's tool list, the JSON-step
  schema and the answer-schema note; one that spells a JSON literal (``true``, ``null``)
  refused every call with a boolean or null argument.

Every line the plugin wrote since the run began (protocol lines, log nodes, model requests,
stderr) is searched for the secret once its changes are undone (``plain``), and for its base64
and hex; the backwards tool request carrying a secret to its own tool is the one exception.
"""

from __future__ import annotations

import base64
import json
import time
import urllib.parse

import pytest

from local_runner.tools import ScriptedTool, ToolParam, json_message, text_message
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end, observations, plugin_lines, prompt_text
from tests.e2e.test_blind_secrets_wave36 import CANARY, assert_no_canary, call, calls_and_answer, plain, vault


def assert_no_slice(run, result, secret: str, width: int = 24) -> int:
    """No line the plugin wrote since ``result``'s run began holds any ``width``-character slice
    of ``secret`` (once ``plain`` undid its changes): a long secret cut in two leaves neither
    half. Returns the lines checked."""
    core = plain(secret)
    slices = {core[at : at + width] for at in range(0, max(1, len(core) - width + 1), max(1, width // 3))}
    checked = 0
    for entry, _ in plugin_lines(run.plugin, result):
        line = plain(json.dumps(entry, ensure_ascii=False, default=str))
        for piece in slices:
            assert piece not in line, f"a slice of the secret written ({entry['dir']}): {line[:300]}"
        checked += 1
    assert checked > 3
    return checked


def tool_with(secrets: dict[str, str], responses, *, name: str = "vault") -> ScriptedTool:
    """A tool with one ``secret-input`` form parameter per item of ``secrets``."""
    params = [ToolParam("q", description="query")] + [
        ToolParam(key, type="secret-input", form="form", description="key", required=False) for key in secrets]
    return ScriptedTool(name=name, description=f"Reads the {name}", parameters=params,
                        runtime_parameters=dict(secrets), responses=list(responses))


# --- encodings, every character ---------------------------------------------------------------------

PHRASE = "open sesame Kq8Zt2 now"
"""A pass phrase: URL form encoding writes its spaces as ``+``."""

WHOLLY_ESCAPED = {
    "form-encoded pass phrase (+ for space)": (PHRASE, f"https://api.example.com/v1?pw={urllib.parse.quote_plus(PHRASE)}&x=1"),
    "every byte %xx, lower case": (CANARY, "token=" + "".join(f"%{byte:02x}" for byte in CANARY.encode())),
    "every character &#x..; in mixed case": (
        CANARY, "".join(f"&#{'X' if n % 2 else 'x'}{ord(c):x};" for n, c in enumerate(CANARY))),
    "every character \\u with mixed-case hex": (
        CANARY, "".join(f"\\u{ord(c):04X}" if n % 2 else f"\\u{ord(c):04x}" for n, c in enumerate(CANARY))),
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("case", list(WHOLLY_ESCAPED))
def test_a_secret_escaped_in_every_character_reaches_no_line(run, strategy, case):
    secret, shown = WHOLLY_ESCAPED[case]
    result = calls_and_answer(run, strategy, [vault([text_message(f"auth: {shown} ok")], secret=secret)])
    assert_clean_end(result)
    (seen,) = observations(result.llm_requests[1])
    assert "[REDACTED]" in seen and seen.endswith(" ok"), seen
    assert_no_canary(run, result, (secret,))


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("case", ["every character &#x..; in mixed case", "every character \\u with mixed-case hex"])
def test_an_escaped_secret_the_model_streams_cut_inside_an_escape_is_hidden(run, strategy, case):
    """The model's answer writes the key escaped; pieces of 5 characters cut every escape."""
    _, shown = WHOLLY_ESCAPED[case]
    answer = answer_turn(strategy, f"The key is {shown}, done.")
    answer["split"] = 5
    result = run([answer], tools=[vault()], strategy=strategy)
    assert_clean_end(result)
    assert "[REDACTED]" in result.text and result.text.endswith(", done."), result.text
    assert_no_canary(run, result)


# --- secrets of odd shapes --------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_secret_of_exactly_four_characters_is_hidden_in_the_result_and_the_streamed_answer(run, strategy):
    secret = "Zq7!"
    answer = answer_turn(strategy, f"pin was {secret} then")
    answer["split"] = 1
    result = run([call(strategy), answer], tools=[vault([text_message(f"pin {secret}; door open")], secret=secret)],
                 strategy=strategy)
    assert_clean_end(result)
    assert observations(result.llm_requests[1]) == ["pin [REDACTED]; door open"]
    assert result.text.endswith("pin was [REDACTED] then"), result.text
    for entry, _ in plugin_lines(run.plugin, result):
        assert secret not in json.dumps(entry, ensure_ascii=False), str(entry)[:300]


PREFIXED = {
    "the shorter first": ("Kq8Zt2Wv9XhLm3Pr", "Kq8Zt2Wv9XhLm3PrT7yB4nQ"),
    "the longer first": ("Kq8Zt2Wv9XhLm3PrT7yB4nQ", "Kq8Zt2Wv9XhLm3Pr"),
    "one inside the other": ("Zt2Wv9XhLm3PrT7", "Kq8Zt2Wv9XhLm3PrT7yB4nQ"),
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("case", list(PREFIXED))
def test_secrets_that_are_prefixes_of_each_other_leave_no_tail(run, strategy, case):
    """Two tools' secrets, one a prefix of (or inside) the other; the result quotes the longer:
    the shorter hidden alone would leave the longer's tail beside ``[REDACTED]``."""
    first, second = PREFIXED[case]
    longer = max(first, second, key=len)
    tools = [vault([text_message(f"a={longer}; b={first}; c={second}.")], secret=first),
             vault(name="backup", secret=second)]
    result = calls_and_answer(run, strategy, tools)
    assert_clean_end(result)
    assert observations(result.llm_requests[1]) == ["a=[REDACTED]; b=[REDACTED]; c=[REDACTED]."]
    assert_no_canary(run, result, (first, second))


def _long_secret(size: int) -> str:
    alphabet = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
    return "".join(alphabet[(n * 7919 + n // 13) % len(alphabet)] for n in range(size))


LONG = _long_secret(10_240)
"""A 10 KB secret (a key file pasted into the node)."""


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_ten_kilobyte_secret_across_the_observations_cut_leaves_no_half(run, strategy):
    """A 1.2 MB result whose ten-kilobyte key stands across the 1,000,000-character cut."""
    body = "x" * (1_000_000 - 5_000) + " key " + LONG + " tail " + "y" * 200_000
    started = time.monotonic()
    result = calls_and_answer(run, strategy, [vault([text_message(body)], secret=LONG)])
    elapsed = time.monotonic() - started
    assert_clean_end(result)
    assert elapsed < 40, f"{elapsed:.1f} s"
    assert_no_slice(run, result, LONG)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_ten_kilobyte_secret_the_model_streams_is_hidden(run, strategy):
    answer = answer_turn(strategy, f"Here: {LONG} and that is all.")
    answer["split"] = 700
    started = time.monotonic()
    result = run([answer], tools=[vault(secret=LONG)], strategy=strategy)
    elapsed = time.monotonic() - started
    assert_clean_end(result)
    assert result.text.endswith("Here: [REDACTED] and that is all."), result.text[-200:]
    assert elapsed < 20, f"{elapsed:.1f} s"
    assert_no_slice(run, result, LONG)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_ten_kilobyte_secret_leaves_a_three_round_run_fast(run, strategy):
    """The key never shows; the rounds (tool results, the ReAct scratchpad) pay little for it."""
    tools = [vault([text_message("record " + "r1 is open. " * 400)], secret=LONG)]
    turns = [call(strategy), call(strategy, call_id="c2"), call(strategy, call_id="c3"), answer_turn(strategy, "Done.")]
    started = time.monotonic()
    result = run(turns, tools=tools, strategy=strategy)
    elapsed = time.monotonic() - started
    assert_clean_end(result)
    assert elapsed < 15, f"{elapsed:.1f} s"


MULTILINE = "line-one-Kq8Zt2\nline-two-Wv9Xh7"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_secret_with_a_line_break_written_with_crlf_is_hidden(run, strategy):
    shown = MULTILINE.replace("\n", "\r\n")
    result = calls_and_answer(run, strategy, [vault([text_message(f"cert:\r\n{shown}\r\nend")], secret=MULTILINE)])
    assert_clean_end(result)
    (seen,) = observations(result.llm_requests[1])
    assert "[REDACTED]" in seen and "line-one" not in seen and "line-two" not in seen, seen
    assert_no_canary(run, result, ("line-one-Kq8Zt2", "line-two-Wv9Xh7"))


QUOTED = 'p"w\\d-Kq8Zt2Wv'
"""A secret holding a quote and a backslash (both escaped in every JSON line)."""


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_secret_with_a_quote_and_a_backslash_reaches_no_line(run, strategy):
    tool = vault([text_message(f"pw {QUOTED} ok"), json_message({QUOTED: {"v": [QUOTED]}})], secret=QUOTED)
    result = calls_and_answer(run, strategy, [tool])
    assert_clean_end(result)
    assert QUOTED not in prompt_text(result.llm_requests[1])
    for entry, _ in plugin_lines(run.plugin, result):
        line = json.dumps(entry, ensure_ascii=False)
        assert "Kq8Zt2Wv" not in line and json.dumps(QUOTED)[1:-1] not in line, line[:300]


LITERAL_ESCAPES = {
    "a literal \\u0041": "k\\u0041y-Kq8Zt2Wv",
    "a literal %41": "p%41ss-Kq8Zt2Wv",
    "a literal &amp;": "a&amp;b-Kq8Zt2Wv",
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("case", list(LITERAL_ESCAPES))
def test_a_secret_holding_an_escape_literally_is_hidden_as_written(run, strategy, case):
    secret = LITERAL_ESCAPES[case]
    answer = answer_turn(strategy, f"it was {secret}.")
    answer["split"] = 3
    result = run([call(strategy), answer], tools=[vault([text_message(f"pw {secret} ok")], secret=secret)],
                 strategy=strategy)
    assert_clean_end(result)
    assert observations(result.llm_requests[1]) == ["pw [REDACTED] ok"]
    assert result.text.endswith("it was [REDACTED]."), result.text
    for entry, _ in plugin_lines(run.plugin, result):
        assert "Kq8Zt2Wv" not in json.dumps(entry, ensure_ascii=False), str(entry)[:300]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("word", ["output", "success"])
def test_a_secret_that_is_a_word_of_the_log_tree_keeps_the_run_whole(run, strategy, word):
    """A secret that spells a key or a status of the plugin's own log data: the run ends
    cleanly, every log finished, and the tool's text of it hidden."""
    result = calls_and_answer(run, strategy, [vault([text_message(f"mode {word} set")], secret=word)])
    assert_clean_end(result)
    assert observations(result.llm_requests[1]) == ["mode [REDACTED] set"]
    assert result.text.endswith("Done."), result.text


# --- channels ---------------------------------------------------------------------------------------

CHANNELS = {
    "a text message's meta": [{"type": "text", "message": {"text": "record r1 is open"},
                               "meta": {"source": f"https://x.example.com/?k={CANARY}", "nested": {CANARY: 1}}}],
    "a JSON message that is a list": [text_message("record r1 is open"),
                                      json_message([{"a": [{"b": {f"k-{CANARY}": [CANARY.upper()]}}]}])],
    "a citation list's context": [text_message("record r1 is open"), {
        "type": "retriever_resources", "meta": None,
        "message": {"retriever_resources": [], "context": f"doc says key {CANARY}"}}],
    "a blob chunk named after it": [text_message("record r1 is open"), {
        "type": "blob_chunk", "meta": {"filename": f"key-{CANARY}.txt", "mime_type": "text/plain"},
        "message": {"id": "b1", "sequence": 0, "total_length": 4, "blob": base64.b64encode(b"data").decode(),
                    "end": True}}],
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("channel", list(CHANNELS))
def test_the_canary_in_another_tool_message_field_reaches_no_line(run, strategy, channel):
    result = calls_and_answer(run, strategy, [vault(CHANNELS[channel])])
    assert_clean_end(result)
    assert_no_canary(run, result)


MALFORMED = {
    "an unknown type": [text_message("record r1 is open"),
                        {"type": "secret_dump", "message": {"text": f"key {CANARY}"}, "meta": None}],
    "a text message whose text is a list": [text_message("record r1 is open"),
                                            {"type": "text", "message": {"text": [f"key {CANARY}"]}, "meta": None}],
    "a message that is a string": [text_message("record r1 is open"),
                                   {"type": "text", "message": f"key {CANARY}", "meta": None}],
    "a JSON message whose object is a string": [text_message("record r1 is open"),
                                                {"type": "json", "message": {"json_object": f"key {CANARY}"},
                                                 "meta": None}],
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("case", list(MALFORMED))
def test_a_malformed_tool_item_holding_the_canary_is_reported_without_it(run, strategy, case):
    result = calls_and_answer(run, strategy, [vault(MALFORMED[case])])
    assert_clean_end(result)
    assert "record r1 is open" in observations(result.llm_requests[1])[0]
    assert_no_canary(run, result)


# --- the model --------------------------------------------------------------------------------------


def test_the_canary_split_over_a_calls_argument_fragments_is_not_sent(run):
    """The model streams a call's arguments in fragments that cut the key (raw chunks, as a
    provider's stream gives them): the call is refused and the key reaches no line."""
    arguments = json.dumps({"to": "a@example.com", "body": f"key {CANARY}"})
    cut = arguments.index(CANARY) + 6
    pieces = [arguments[:cut], arguments[cut:]]
    chunks = [{"tool_calls": [{"index": 0, "id": "c1", "type": "function",
                               "function": {"name": "send_mail", "arguments": pieces[0]}}]},
              {"tool_calls": [{"index": 0, "function": {"arguments": pieces[1]}}]}]
    mail = ScriptedTool(name="send_mail", description="Send an e-mail",
                        parameters=[ToolParam("to", description="address"), ToolParam("body", description="text")],
                        responses=[text_message("sent")])
    result = run([{"chunks": chunks, "finish_reason": "tool_calls"}, {"text": "Done."}], tools=[vault(), mail])
    assert_clean_end(result)
    assert [r["tool"] for r in result.tool_requests] == []
    assert_no_canary(run, result)


def test_the_canary_in_a_think_block_split_at_its_close_is_hidden(run):
    text = f"<think>the key is {CANARY}</think>The answer is 42."
    cut = text.index("</think>") - 3
    turn = {"chunks": [{"content": text[:cut]}, {"content": text[cut:]}], "finish_reason": "stop"}
    result = run([turn], tools=[vault()])
    assert_clean_end(result)
    assert "42" in result.text
    assert_no_canary(run, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_earlier_runs_memory_holding_the_key_encoded_is_hidden(run, strategy):
    encoded = base64.b64encode(f"user:{CANARY}".encode()).decode()
    history = [{"role": "user", "content": "Open r1."},
               {"role": "assistant", "content": "", "tool_calls": [
                   {"id": "h1", "type": "function", "function": {"name": "vault", "arguments": "{\"q\": \"r1\"}"}}]},
               {"role": "tool", "content": f"Authorization: Basic {encoded}", "tool_call_id": "h1", "name": "vault"},
               {"role": "assistant", "content": f"<think>auth was {CANARY.lower()}</think>Opened."}]
    result = run([answer_turn(strategy, "Done.")], tools=[vault()], strategy=strategy, history=history)
    assert_clean_end(result)
    sent = prompt_text(result.llm_requests[0])
    assert "Opened." in sent, sent[-600:]
    assert_no_canary(run, result)


# --- secrets of a structured value -----------------------------------------------------------------

PEM = ("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7Kq8Zt2Wv9XhLm3Pr\n"
       "T7yB4nQ2cD5eF6gH7iJ8kL9mN0oP1qR2sT3uV4wX5yZ6aB7cD8eF9gH0iJ1kL2mN3oP4\n-----END PRIVATE KEY-----\n")
SERVICE_ACCOUNT = json.dumps({
    "type": "service_account", "project_id": "demo-project-42", "private_key_id": "9f3b2c1d8e7a6f5b4c3d2e1f0a9b8c7d6e5f4a3b",
    "private_key": PEM, "client_email": "bot@demo-project-42.iam.gserviceaccount.com", "client_id": "104729384756102938475",
    "token_uri": "https://oauth2.googleapis.com/token"}, indent=2)
"""A service account's key file, pasted whole into a ``secret-input`` field."""


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_key_file_pasted_into_a_secret_field_hides_its_private_key_written_alone(run, strategy):
    """The tool writes the one field it failed on, not the whole file the node holds."""
    tool = vault([text_message("auth failed: could not parse private key " + json.dumps(PEM)
                               + " (key id 9f3b2c1d8e7a6f5b4c3d2e1f0a9b8c7d6e5f4a3b) for project demo-project-42")],
                 secret=SERVICE_ACCOUNT)
    result = calls_and_answer(run, strategy, [tool])
    assert_clean_end(result)
    (seen,) = observations(result.llm_requests[1])
    assert seen.startswith("auth failed: could not parse private key") and seen.endswith("for project demo-project-42"), seen
    assert_no_slice(run, result, PEM.split("\n")[1][:48])
    assert_no_canary(run, result, ("9f3b2c1d8e7a6f5b4c3d2e1f0a9b8c7d6e5f4a3b",))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_password_of_a_connection_address_written_alone_is_hidden(run, strategy):
    secret = "postgres://app_user:Pw-7Kq8Zt2Wv9X@db.internal:5432/prod"
    tool = vault([text_message("connect failed: password 'Pw-7Kq8Zt2Wv9X' rejected for app_user@db.internal")],
                 secret=secret)
    result = calls_and_answer(run, strategy, [tool])
    assert_clean_end(result)
    assert observations(result.llm_requests[1]) == ["connect failed: password '[REDACTED]' rejected for app_user@db.internal"]
    assert_no_canary(run, result, ("Pw-7Kq8Zt2Wv9X",))


SETTINGS_SECRETS = {
    "an environment file": ("OPENAI_API_KEY=sk-7Kq8Zt2Wv9XhLm3\nexport DB_PASSWORD='Pw-4Rb6Yn1Qc8'\nREGION=eu-west-1",
                            ["sk-7Kq8Zt2Wv9XhLm3", "Pw-4Rb6Yn1Qc8"]),
    "a connection string": ("Server=db.internal;User Id=sa;Password=Pw-4Rb6Yn1Qc8;", ["Pw-4Rb6Yn1Qc8"]),
    "a user and a password": ("svc-reader:Pw-4Rb6Yn1Qc8", ["Pw-4Rb6Yn1Qc8"]),
}
"""A secret field holding several settings, and the credentials a tool may write alone."""


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("case", list(SETTINGS_SECRETS))
def test_a_credential_of_a_secret_of_settings_written_alone_is_hidden(run, strategy, case):
    secret, parts = SETTINGS_SECRETS[case]
    tool = vault([text_message("rejected: " + ", ".join(f"'{part}'" for part in parts) + " (region eu-west-1)")],
                 secret=secret)
    result = calls_and_answer(run, strategy, [tool])
    assert_clean_end(result)
    assert observations(result.llm_requests[1]) == [
        "rejected: " + ", ".join("'[REDACTED]'" for _ in parts) + " (region eu-west-1)"]
    assert_no_canary(run, result, tuple(parts))


STRUCTURED_VALUES = {
    "a node value that is an object": ({"api_key": {"type": "constant", "value": CANARY}}, None),
    "a node value that is a list": ({"api_key": [CANARY]}, None),
    "a declared default that is an object": ({}, {"value": CANARY}),
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("case", list(STRUCTURED_VALUES))
def test_a_secret_value_that_is_no_text_is_hidden_where_the_tool_writes_it(run, strategy, case):
    runtime, default = STRUCTURED_VALUES[case]
    tool = ScriptedTool(name="vault", description="Reads the vault",
                        parameters=[ToolParam("q", description="query"),
                                    ToolParam("api_key", type="secret-input", form="form", description="key",
                                              default=default, required=False)],
                        runtime_parameters=runtime, responses=[text_message(f"key {CANARY} ok")])
    result = calls_and_answer(run, strategy, [tool])
    assert_clean_end(result)
    assert observations(result.llm_requests[1]) == ["key [REDACTED] ok"]
    assert_no_canary(run, result)


# --- secrets that spell the grammar of a schema or of JSON ----------------------------------------


def _keyed(secret: str) -> ScriptedTool:
    return ScriptedTool(name="vault", description="Reads the vault",
                        parameters=[ToolParam("q", description="record id"),
                                    ToolParam("verbose", type="boolean", description="more detail", required=False),
                                    ToolParam("api_key", type="secret-input", form="form", description="key",
                                              required=False)],
                        runtime_parameters={"api_key": secret}, responses=[text_message(f"record r1 is open ({secret})")])


@pytest.mark.parametrize("word", ["properties", "required", "description", "type"])
def test_a_secret_that_is_a_schema_keyword_leaves_the_declarations_whole(run, word):
    """Function Calling sends the tools' schemas: their keywords are grammar, not the author's
    words; the tool's text of the secret is hidden."""
    result = calls_and_answer(run, "function_calling", [_keyed(word)])
    assert_clean_end(result)
    (declared,) = result.llm_requests[0]["tools"]
    assert declared["parameters"] == {
        "type": "object", "properties": {"q": {"type": "string", "description": "record id"},
                                         "verbose": {"type": "boolean", "description": "more detail"}},
        "required": ["q"]}
    assert observations(result.llm_requests[1]) == ["record r1 is open ([REDACTED])"]


@pytest.mark.parametrize("word", ["properties", "required", "description", "object"])
def test_a_secret_that_is_a_schema_keyword_leaves_the_react_tool_list_whole(run, word):
    result = calls_and_answer(run, "ReAct", [_keyed(word)])
    assert_clean_end(result)
    system = result.llm_requests[0]["prompt_messages"][0]["content"]
    assert ('arguments: {"type":"object","properties":{"q":{"type":"string","description":"record id"},'
            '"verbose":{"type":"boolean","description":"more detail"}},"required":["q"]}') in system, system[:600]
    assert observations(result.llm_requests[1]) == ["record r1 is open ([REDACTED])"]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("word", ["true", "null", "false"])
def test_a_secret_that_spells_a_json_literal_leaves_boolean_arguments_alone(run, strategy, word):
    """A call with ``verbose: true`` holds no text of the secret ``true``: it runs."""
    first = call(strategy, q="r1", verbose=True, strict=False, note=None)
    result = calls_and_answer(run, strategy, [_keyed(word)], first=first)
    assert_clean_end(result)
    assert [r["tool"] for r in result.tool_requests] == ["vault"]
    assert observations(result.llm_requests[1]) == ["record r1 is open ([REDACTED])"]


@pytest.mark.parametrize("word", ["properties", "required"])
def test_a_secret_that_is_a_schema_keyword_leaves_the_json_steps_whole(run, word):
    """ReAct with JSON steps: the step schema sent to the model plugin and the tool list in the
    prompt keep the tool's argument schema; the tool's text of the key is hidden."""

    def step(action: str, action_input: dict) -> dict:
        return {"text": json.dumps({"action": action, "action_input": action_input})}

    result = run([step("vault", {"q": "r1"}), step("final_answer", {"answer": "Done."})], tools=[_keyed(word)],
                 strategy="ReAct", model={"features": ["structured-output"]}, params={"step_format": "json_schema"})
    assert_clean_end(result)
    assert result.text == "Done."
    schema = result.llm_requests[0]["structured_output_schema"]
    (branch,) = [b for b in schema["anyOf"] if b["properties"]["action"].get("enum") == ["vault"]
                 or b["properties"]["action"].get("const") == "vault"]
    arguments = branch["properties"]["action_input"]
    assert arguments["properties"]["q"] == {"type": "string", "description": "record id"}
    assert arguments["required"] == ["q"]
    assert '\\"properties\\":{\\"q\\":{\\"type\\":\\"string\\",\\"description\\":\\"record id\\"}' in prompt_text(
        result.llm_requests[0])
    assert "record r1 is open ([REDACTED])" in prompt_text(result.llm_requests[1])


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("word", ["properties", "required"])
def test_a_secret_that_is_a_schema_keyword_leaves_the_answer_schema_whole(run, strategy, word):
    """The node's structured output: the schema sent with the request keeps its keywords, and its
    author's text holding the secret is hidden."""
    schema = {"type": "object", "properties": {"status": {"type": "string", "description": f"one of the {word}"}},
              "required": ["status"]}
    model = {"completion_params": {"response_format": "json_schema", "json_schema": json.dumps(schema)}}
    result = run([answer_turn(strategy, '{"status": "open"}')], tools=[_keyed(word)], strategy=strategy, model=model)
    assert_clean_end(result)
    shown = {"type": "object", "properties": {"status": {"type": "string", "description": "one of the [REDACTED]"}},
             "required": ["status"]}
    if strategy == "ReAct":  # the schema is printed in the prompt's note
        assert json.dumps(json.dumps(shown, separators=(",", ":")))[1:-1] in prompt_text(result.llm_requests[0])
    else:  # sent as a completion parameter
        assert json.loads(result.llm_requests[0]["completion_params"]["json_schema"]) == shown
