"""A secret never leaves the tool call: redacted before anything is cut or reflowed, hidden when
a cut splits it, and links or files that carry it are withheld (agent_core.observation)."""

import base64
import bisect
import json
import logging
import random
import re
import time
import unicodedata
import urllib.parse

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_core import prompts
from agent_core.observation import FULL_TEXT_MAX_CHARS, ObservationCollector
from agent_core.params import StrategyParams
from agent_core.redaction import _normal_forms, redactor

SECRET = "sk-CANARY-7f3a91b2c4"


def collect(*messages, error=None, secrets=(SECRET,)):
    collector = ObservationCollector("tool", secrets=secrets)
    forwarded = [m for message in messages for m in collector.add(message)]
    if error is not None:
        collector.fail(error)
    return collector.finish(), forwarded


def text(value):
    return {"type": "text", "message": {"text": value}, "meta": None}


def test_a_secret_cut_by_the_full_text_cap_leaves_no_part_of_it():
    filler = "x" * (FULL_TEXT_MAX_CHARS - 8)
    outcome, _ = collect(text(filler + SECRET))
    assert SECRET[:6] not in outcome.full_text and SECRET[:6] not in outcome.observation


def test_a_secret_in_an_error_cut_to_its_cap_is_hidden():
    outcome, _ = collect(error=RuntimeError("failed: " + "y" * 585 + SECRET))
    assert SECRET[:5] not in outcome.observation and SECRET not in outcome.full_text


def test_a_secret_reflowed_by_whitespace_normalisation_is_still_redacted():
    secret = "pass\tword-for-the-crm"
    outcome, _ = collect(error=RuntimeError("auth with pass word-for-the-crm\nfailed"), secrets=(secret,))
    assert "word-for-the-crm" not in outcome.observation


@pytest.mark.parametrize("written", ["NFC", "NFD"])
@pytest.mark.parametrize("given", ["NFC", "NFD"])
def test_a_non_ascii_secret_is_hidden_in_either_unicode_normalisation(given, written):
    """A tool wrote back a password with "é" decomposed (macOS file names, some JSON encoders),
    the node's value had it composed, or the other way round: it reached the model as written."""
    secret = "Clé-Sécrète-2024"
    output = f"logged in as admin with {unicodedata.normalize(written, secret)}"
    outcome, _ = collect(text(output), text(json.dumps({"password": unicodedata.normalize(written, secret)})),
                         secrets=(unicodedata.normalize(given, secret),))
    assert "Sécrète" not in unicodedata.normalize("NFC", outcome.full_text)
    assert outcome.full_text.count("[REDACTED]") == 2, "as written and JSON-escaped (\\u0301)"
    assert "logged in as admin with" in outcome.observation


def test_an_ascii_secret_has_no_other_unicode_form_to_look_for():
    """Its NFC and NFD forms are itself: the forms looked for, and their cost, are unchanged."""
    assert _normal_forms([SECRET]) == [SECRET]
    composed = "Clé-Sécrète-2024"
    assert _normal_forms([composed]) == [composed, unicodedata.normalize("NFD", composed)]


def test_url_encoded_secret_in_a_link_withholds_the_link():
    link = {"type": "image_link", "message": {"text": "https://cdn.example.com/a.png?key=sk-CANARY-7f3a91b2c4"}, "meta": None}
    outcome, forwarded = collect(link)
    assert forwarded == []
    assert prompts.WITHHELD.format(kind="image link") in outcome.observation
    assert SECRET not in outcome.observation


def test_a_file_named_after_the_secret_is_withheld_an_ordinary_one_is_sent():
    named = {"type": "blob", "message": {"blob": "aGVsbG8="}, "meta": {"filename": f"{SECRET}.csv", "mime_type": "text/csv"}}
    plain = {"type": "blob", "message": {"blob": "aGVsbG8="}, "meta": {"filename": "report.csv", "mime_type": "text/csv"}}
    outcome, forwarded = collect(named, plain)
    assert len(forwarded) == 1 and SECRET not in outcome.observation


def test_retriever_resources_are_forwarded_with_their_text_redacted():
    resource = {"type": "retriever_resources", "meta": None, "message": {
        "retriever_resources": [{"content": f"token {SECRET} inside", "position": 1, "title": "doc"}], "context": ""}}
    outcome, forwarded = collect(resource)
    assert forwarded and SECRET not in forwarded[0].model_dump_json()
    assert SECRET not in outcome.observation


# --- redacted before anything is cut, unwrapped or reflowed --------------------------------------


def test_a_secret_streamed_in_two_pieces_and_cut_by_the_full_text_cap_leaves_no_part_of_it():
    """Neither piece holds the secret whole; the cut falls inside it."""
    head = "x" * (FULL_TEXT_MAX_CHARS - 9) + SECRET[:6]
    outcome, _ = collect(text(head), text(SECRET[6:] + " and more"))
    assert SECRET[:4] not in outcome.full_text and SECRET[:4] not in outcome.observation
    assert "more characters were not kept" in outcome.full_text


def test_a_secret_streamed_in_pieces_is_redacted_where_they_meet():
    outcome, _ = collect(text("key " + SECRET[:5]), text(SECRET[5:12]), text(SECRET[12:] + " ok"))
    assert outcome.observation == "key [REDACTED] ok" and outcome.full_text == "key [REDACTED] ok"


def test_a_json_result_that_repeats_a_text_with_a_secret_is_still_recognised_as_a_repeat():
    """Workflow tools send their output as text and as JSON (dop3542); both are redacted the same."""
    body = {"customer": "Ada", "token": SECRET}
    outcome, _ = collect(text(json.dumps(body)), {"type": "json", "message": {"json_object": body}, "meta": None})
    assert outcome.observation == '{"customer": "Ada", "token": "[REDACTED]"}'


def test_a_json_result_after_a_text_stays_on_its_own_line_when_redacted():
    outcome, _ = collect(text("Found:"), {"type": "json", "message": {"json_object": {SECRET: [SECRET, 1]}}, "meta": None})
    assert outcome.observation == 'Found:\n{"[REDACTED]":["[REDACTED]",1]}'


def test_a_secret_in_an_unwrapped_daemon_error_is_redacted_before_it_is_unwrapped():
    secret = 'quo"te\\back-slash'
    inner = json.dumps({"error_type": "AuthError", "message": f"bad key {secret}"})
    outcome, _ = collect(error=RuntimeError(f"PluginInvokeError: {inner}"), secrets=(secret,))
    assert "AuthError: bad key [REDACTED]" in outcome.observation
    assert "quo" not in outcome.observation and "quo" not in outcome.full_text


def test_a_reflowed_secret_cut_at_the_error_cap_leaves_no_part_of_it():
    """Whitespace is normalised (the tab becomes a space), then the line is cut at 600: the
    secret was redacted on the raw text first, so no start of it is left at the cut."""
    secret = "pass\tword-for-the-crm"
    for padding in range(575, 600):
        outcome, _ = collect(error=RuntimeError("e: " + "y" * padding + secret + " more"), secrets=(secret,))
        assert "pass w" not in outcome.observation and "pass\tw" not in outcome.observation, padding
        assert "word-f" not in outcome.observation and "word-f" not in outcome.full_text, padding


def test_a_reflowed_start_of_a_secret_left_at_the_end_of_an_error_is_hidden():
    """A tool may cut its own message: what is left of the secret, reflowed, is hidden too."""
    secret = "pass\tword-for-the-crm"
    outcome, _ = collect(error=RuntimeError("login failed for pass \n  word-fo"), secrets=(secret,))
    assert "login failed for [REDACTED]" in outcome.observation and "word" not in outcome.observation


def test_a_secret_in_a_variable_cut_at_its_cap_is_hidden():
    variable = {"type": "variable", "meta": None,
                "message": {"variable_name": "dump", "variable_value": "v" * 9_995 + SECRET, "stream": False}}
    outcome, _ = collect(variable)
    assert "[variable dump]" in outcome.full_text and SECRET[:4] not in outcome.full_text


def test_a_secret_in_a_variable_name_is_hidden_in_the_log():
    variable = {"type": "variable", "meta": None,
                "message": {"variable_name": f"key_{SECRET}", "variable_value": "v", "stream": False}}
    outcome, _ = collect(variable)
    assert "[variable key_[REDACTED]]" in outcome.full_text and SECRET not in outcome.full_text


# --- forwarded messages: withheld or redacted ---------------------------------------------------


def blob(data: bytes, meta: dict | None) -> dict:
    return {"type": "blob", "message": {"blob": base64.b64encode(data).decode()}, "meta": meta}


def test_a_file_whose_content_holds_the_secret_is_withheld_and_the_model_told_which():
    outcome, forwarded = collect(blob(f"API_KEY={SECRET}\n".encode(), {"filename": "settings.env", "mime_type": "text/plain"}))
    assert forwarded == []
    assert outcome.observation == prompts.WITHHELD_CONTENT.format(what="settings.env (text/plain, 29 bytes)")


def test_an_inline_image_whose_content_holds_the_secret_is_withheld():
    url = "data:text/plain;base64," + base64.b64encode(f"key {SECRET}".encode()).decode()
    outcome, forwarded = collect({"type": "image", "message": {"text": url}, "meta": None})
    # a data: address is its content: withheld, for its address (base64 form) or its content
    assert forwarded == [] and "contains a secret value" in outcome.observation


def test_a_chunked_file_named_after_the_secret_is_withheld_once_and_no_chunk_sent():
    meta = {"filename": f"{SECRET}.bin"}
    chunks = [{"type": "blob_chunk", "meta": meta if n == 0 else None, "message": {
        "id": "f", "sequence": n, "total_length": 20, "blob": base64.b64encode(b"x" * 10 if n < 2 else b"").decode(),
        "end": n == 2}} for n in range(3)]
    outcome, forwarded = collect(*chunks)
    assert forwarded == []
    assert outcome.observation == prompts.WITHHELD.format(kind="file"), "once, and no 'incomplete file' note"


def test_a_chunked_file_whose_later_chunk_names_the_secret_is_not_sent_at_all():
    chunks = [{"type": "blob_chunk", "meta": {"filename": "a.bin"} if n == 0 else {"filename": f"{SECRET}.bin"},
               "message": {"id": "f", "sequence": n, "total_length": 20, "end": n == 2,
                           "blob": base64.b64encode(b"x" * 10 if n < 2 else b"").decode()}} for n in range(3)]
    outcome, forwarded = collect(*chunks)
    assert forwarded == [] and outcome.observation == prompts.WITHHELD.format(kind="file")


def test_a_chunked_file_whose_content_holds_the_secret_across_two_chunks_is_withheld():
    data = b"x" * 8 + f"key={SECRET};".encode() + b"y" * 8
    cut = 14  # inside the secret
    chunks = [{"type": "blob_chunk", "meta": {"filename": "dump.txt"}, "message": {
        "id": "f", "sequence": n, "total_length": len(data), "end": n == 2, "blob": base64.b64encode(piece).decode()}}
        for n, piece in enumerate([data[:cut], data[cut:], b""])]
    outcome, forwarded = collect(*chunks)
    assert forwarded == [] and "dump.txt" in outcome.observation and "its content contains" in outcome.observation


def test_links_that_carry_the_secret_in_any_encoding_are_withheld():
    secret = "ab/cd+ef=gh&ij"
    quoted = urllib.parse.quote(secret, safe="")
    urls = [
        f"https://x.example.com/a?k={quoted}",
        "https://x.example.com/a?k=" + re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(), quoted),
        f"https://x.example.com/a?k={urllib.parse.quote_plus(secret)}",
        f"https://x.example.com/{urllib.parse.quote(secret)}/file.png",
        f"/files/tools/91ab.png?k={secret}",
    ]
    for url in urls:
        for kind in ("link", "image", "image_link"):
            outcome, forwarded = collect({"type": kind, "message": {"text": url}, "meta": None}, secrets=(secret,))
            assert forwarded == [], (kind, url)
            assert "ab/cd" not in outcome.observation and "ab%2F" not in outcome.observation.upper()


def test_a_file_message_whose_url_holds_the_secret_is_withheld():
    file = {"url": f"https://files.example.com/x.pdf?sig={SECRET}", "filename": "x.pdf", "mime_type": "application/pdf"}
    outcome, forwarded = collect({"type": "file", "message": None, "meta": {"file": file}})
    assert forwarded == [] and outcome.observation == prompts.WITHHELD.format(kind="file")


def test_a_binary_link_that_holds_the_secret_is_withheld():
    outcome, forwarded = collect({"type": "binary_link", "message": {"text": f"/files/tools/1.bin?k={SECRET}"}, "meta": None})
    assert forwarded == [] and outcome.observation == prompts.WITHHELD.format(kind="link")


def test_links_and_files_without_a_secret_are_forwarded_as_before():
    messages = [
        {"type": "image_link", "message": {"text": "https://cdn.example.com/a.png"}, "meta": None},
        {"type": "link", "message": {"text": "/files/tools/7c1e.pdf"}, "meta": {"tool_file_id": "7c1e"}},
        blob(b"plain", {"filename": "a.txt"}),
    ]
    _, forwarded = collect(*messages)
    assert [m.type.value for m in forwarded] == ["image", "link", "blob"]


def test_retriever_resource_metadata_and_context_are_redacted():
    resource = {"type": "retriever_resources", "meta": None, "message": {"context": f"use {SECRET}", "retriever_resources": [
        {"content": "c", "position": 1, "doc_metadata": {"url": f"https://x/?k={SECRET}", SECRET: "key"}}]}}
    outcome, (sent,) = collect(resource)
    dumped = sent.model_dump_json()
    assert SECRET not in dumped and "[REDACTED]" in dumped
    assert outcome.observation == "use [REDACTED]"


def test_without_secrets_nothing_is_withheld_or_rewritten():
    named = blob(b"x", {"filename": f"{SECRET}.csv"})
    outcome, forwarded = collect(named, text(SECRET), secrets=())
    assert len(forwarded) == 1 and SECRET in outcome.observation


def test_redactor_hides_every_form_of_a_secret():
    redact = redactor(["pa ss/word"])
    assert redact("x pa ss/word y") == "x [REDACTED] y"
    assert redact("x pa\n  ss/word y") == "x [REDACTED] y"
    assert redact("x pa%20ss%2Fword y") == "x [REDACTED] y"
    assert redact("x pa+ss%2Fword y") == "x [REDACTED] y"
    assert redactor([])("pa ss/word") == "pa ss/word"


# --- a null or malformed stream message ----------------------------------------------------------


def test_null_and_malformed_messages_are_reported_the_rest_kept_and_their_content_never_shown():
    outcome, _ = collect(
        text("Ada"),
        None,
        {"type": "text", "message": None, "meta": None},
        {"type": "text", "message": {"text": ["key", SECRET]}, "meta": None},
        {"type": "image_link", "message": {"text": 42}, "meta": None},
        "junk " + SECRET,
        [SECRET],
        text(", plan Pro"),
    )
    assert outcome.observation.startswith("Ada, plan Pro\n")
    assert "the tool returned an invalid response: 6 unreadable message(s)" in outcome.observation
    assert SECRET not in outcome.observation and SECRET not in outcome.full_text


# --- a tool whose declaration does not validate (agent_core.params) ------------------------------


MODEL = {"provider": "openai", "model": "gpt-4o", "model_type": "llm", "mode": "chat", "completion_params": {},
         "history_prompt_messages": [], "entity": None}


def tool_entity(name: str, *, secret_type: str = "secret-input", secret: str = SECRET) -> dict:
    label = dict.fromkeys(("en_US", "zh_Hans"), name)
    return {
        "identity": {"author": "me", "name": name, "label": label, "provider": "me/p/p"},
        "parameters": [{"name": "api_key", "label": label, "human_description": label, "type": secret_type,
                        "form": "form", "required": True}],
        "description": {"human": label, "llm": name},
        "runtime_parameters": {"api_key": secret},
        "credential_id": "cred-" + secret,
        "provider_type": "builtin",
    }


def test_a_tool_that_does_not_validate_is_named_with_its_problem_and_never_its_values(caplog):
    caplog.set_level(logging.DEBUG)
    params = StrategyParams.model_validate(
        {"model": MODEL, "tools": [tool_entity("broken", secret_type="password-v2"), tool_entity("crm")]}
    )
    assert [tool.identity.name for tool in params.tools] == ["crm"]
    ((name, reason),) = params.dropped_tools
    assert name == "broken" and reason.startswith("parameters.0.type: Input should be")
    assert SECRET not in reason and SECRET not in caplog.text and "password-v2" not in caplog.text
    assert "broken" in caplog.text


def test_a_tool_declaration_that_is_not_an_object_is_dropped_without_being_printed(caplog):
    params = StrategyParams.model_validate({"model": MODEL, "tools": [f"api_key={SECRET}", None]})
    assert params.tools == [] and [name for name, _ in params.dropped_tools] == ["(unnamed tool)"] * 2
    assert SECRET not in repr(params.dropped_tools) and SECRET not in caplog.text


def test_a_dropped_tool_that_is_not_allowed_anyway_is_not_reported():
    params = StrategyParams.model_validate({"model": MODEL, "allowed_tools": "crm",
                                            "tools": [tool_entity("broken", secret_type="password-v2"), tool_entity("crm")]})
    assert params.dropped_tools == [] and [tool.identity.name for tool in params.tools] == ["crm"]


def test_a_secret_wrapped_across_lines_inside_the_token_is_redacted():
    # PEM and MIME wrap long tokens at 64-76 columns
    secret = "S3cr3t-Tok3n-XYZ-0123456789"
    outcome, _ = collect(text(f"key:\n{secret[:10]}\n{secret[10:20]}\r\n  {secret[20:]}\nend"), secrets=(secret,))
    assert "Tok3n" not in outcome.full_text and "[REDACTED]" in outcome.observation


def test_a_secret_json_escaped_with_slashes_or_html_escaped_is_redacted():
    secret = 'AbC/dEf+gHi=jKl0&"<x>'
    php_json = json.dumps({"k": secret}).replace("/", "\\/")  # PHP's json_encode default
    markup = "<td>AbC/dEf+gHi=jKl0&amp;&quot;&lt;x&gt;</td>"
    for raw in (php_json, markup):
        outcome, _ = collect(text(raw), secrets=(secret,))
        assert "gHi=jKl0" not in outcome.full_text, raw


def test_a_secret_wrapped_across_lines_and_cut_at_the_error_cap_leaves_no_part_of_it():
    secret = "S3cr3t-Tok3n-XYZ-0123456789"
    wrapped = secret[:8] + "\n" + secret[8:]
    outcome, _ = collect(error=RuntimeError("failed: " + "y" * 580 + wrapped), secrets=(secret,))
    assert "S3cr3t" not in outcome.observation and "[REDACTED]" in outcome.observation


@pytest.mark.parametrize("before", ["", "u:", "ab:", "apiuser:"])  # the secret at each byte offset
def test_a_secret_inside_base64_is_redacted(before):
    # a tool echoing the request it made: "Authorization: Basic base64(user:password)"
    encoded = base64.b64encode(f"{before}{SECRET}".encode()).decode()
    for alphabet in (encoded, encoded.replace("+", "-").replace("/", "_")):
        redacted = redactor([SECRET])(f"sent Authorization: Basic {alphabet}")
        middle = alphabet[len(before) * 4 // 3 + 2 : len(alphabet) - 4]  # characters of the secret's bits only
        assert "[REDACTED]" in redacted and middle not in redacted


def test_base64_that_does_not_hold_the_secret_is_left_alone():
    text = "image: " + base64.b64encode(bytes(range(256)) * 40).decode()
    assert redactor([SECRET])(text) == text


def test_a_secret_of_one_repeated_character_is_found_in_one_pass_over_a_text_without_line_breaks():
    """A line break allowed at every character of a form made the engine re-read a run of the
    repeated character at each position: 1.1 s for 1 MB, holding every session of the process."""
    zeros = "0" * 32
    text = ("0" * 31 + "1") * 32_000 + zeros
    started = time.process_time()
    assert redactor([zeros])(text).endswith("1[REDACTED]")
    assert time.process_time() - started < 0.5  # CPU seconds (about 0.01), not stretched by other processes


@pytest.mark.parametrize("text", ["key sk-CANARY-7f3a91b2c4 end", "key sk-CANARY-\n  7f3a91b2c4", "sk-CANARY-7f3a91b2c4", "no secret\nhere", "sk-CANARY-7f3a91"])
def test_a_text_with_or_without_line_breaks_is_redacted_alike(text):
    assert (SECRET in text.replace("\n  ", "")) == ("[REDACTED]" in redactor([SECRET])(text))


EVERY_CHARACTER_ESCAPED = {
    "unicode": lambda c: f"\\u{ord(c):04x}",
    "unicode-upper": lambda c: f"\\u{ord(c):04X}",
    "hex": lambda c: f"\\x{ord(c):02x}",
    "html-decimal": lambda c: f"&#{ord(c)};",
    "html-hex": lambda c: f"&#x{ord(c):X};",
    "percent": lambda c: f"%{ord(c):02X}",
    "bytes-hex": lambda c: f"{ord(c):02X}",
}


@pytest.mark.parametrize("notation", list(EVERY_CHARACTER_ESCAPED))
def test_a_secret_escaped_in_every_character_is_redacted(notation):
    escaped = "".join(map(EVERY_CHARACTER_ESCAPED[notation], SECRET))
    assert redactor([SECRET])(f"key={escaped}; ok") == "key=[REDACTED]; ok"


def test_a_secret_outside_the_bmp_is_redacted_as_json_writes_it():
    secret = "pass-\U0001F600-CANARY"
    assert redactor([secret])(json.dumps({"k": secret})) == '{"k": "[REDACTED]"}'
    data = secret.encode("utf-16-be")
    escaped = "".join(f"\\u{int.from_bytes(data[n:n + 2], 'big'):04x}" for n in range(0, len(data), 2))
    assert redactor([secret])(f"x {escaped} y") == "x [REDACTED] y"


def test_a_secret_percent_encoded_in_every_character_but_letters_and_digits_is_redacted():
    """Some encoders also encode the unreserved ``-._~``: ``sk%2DCANARY%2D...``."""
    encoded = "".join(c if c.isalnum() else f"%{ord(c):02X}" for c in SECRET)
    assert redactor([SECRET])(f"key={encoded}&x={encoded.replace('%2D', '%2d')}") == "key=[REDACTED]&x=[REDACTED]"


def test_a_secret_url_encoded_twice_is_redacted():
    twice = urllib.parse.quote(urllib.parse.quote(SECRET + "/x?", safe=""), safe="")
    assert redactor([SECRET + "/x?"])(f"next={twice}") == "next=[REDACTED]"


def test_a_private_key_is_redacted_whatever_its_line_endings():
    # a service account's key (kilobytes, many lines) given as a secret-input value; a tool may
    # echo it with CRLF line endings or indented
    key = "-----BEGIN PRIVATE KEY-----\n" + "\n".join(
        base64.b64encode(bytes((i + k) % 256 for k in range(48))).decode() for i in range(0, 2400, 48)
    ) + "\n-----END PRIVATE KEY-----"
    redact = redactor([key])
    for echoed in (key, key.replace("\n", "\r\n"), key.replace("\n", "\n    "), json.dumps({"key": key})):
        assert redact(f"config: {echoed} done").count("[REDACTED]") == 1, echoed[:40]


def _alternation(secrets, text):
    """What ``redact`` did before the forms were looked for one by one: ``re.sub`` with one
    alternation of every form's pattern, the longest form first (the reference), each place
    widened by any form that starts at or inside it and ends after it (two secrets that overlap, a
    key of a repeated character: nothing of either is left beside the marker)."""
    from agent_core import redaction

    forms = redaction._Secrets(secrets)._variants  # folded: lower case, as the text is compared
    patterns = [
        "\\s+".join(map(redaction._wrappable if len(v) <= redaction.WRAPPED_FORM_MAX_CHARS else re.escape, v.split()))
        or re.escape(v)
        for v in forms
    ]
    if not forms:
        return text
    each = [re.compile(pattern, re.IGNORECASE) for pattern in patterns]
    alternation = re.compile("|".join(patterns), re.IGNORECASE)
    pieces, written = [], 0
    while (match := alternation.search(text, written)) is not None:
        start, end = match.span()
        at = start  # a form at the same place that goes on further widens it too
        while at < end:
            for pattern in each:
                if (inside := pattern.match(text, at)) is not None and inside.end() > end:
                    end = inside.end()
            at += 1
        pieces += (text[written:start], "[REDACTED]")
        written = end
    return "".join([*pieces, text[written:]])


def _first_pass(forms, text):
    """``redact`` without its second look at the text with its escapes decoded."""
    pieces, written = [], 0
    for start, end in forms._found(text):
        pieces += (text[written:start], "[REDACTED]")
        written = end
    return "".join([*pieces, text[written:]])


_PIECES = st.sampled_from(["ab", "a b", "ba", "b\na", "a\n  b", "%2F", "/", " ", "\n", "\t", "x", "aab", "\\/"])


@pytest.mark.parametrize("one_by_one", [True, False])
@given(
    secrets=st.lists(st.text(alphabet="ab /x-", min_size=4, max_size=9), min_size=1, max_size=4),
    pieces=st.lists(st.one_of(_PIECES, st.text(alphabet="ab /x-\n", max_size=12)), max_size=14),
    picks=st.lists(st.integers(0, 3), max_size=4),
)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_redact_finds_what_one_alternation_of_every_form_finds(one_by_one, secrets, pieces, picks):
    """Property: for any secrets and text (the secrets themselves among its pieces, reflowed),
    the forms ``redact`` finds in the text as it is agree with ``re.sub`` over one alternation of
    every form, longest first, both when each form is found with ``str.find`` and when each
    position is looked up; what it hides besides is a secret the text holds partly escaped."""
    from agent_core import redaction

    pieces = pieces + [secrets[p % len(secrets)].replace(" ", "\n ") for p in picks]
    text = "".join(pieces)
    forms = redaction._Secrets(secrets)
    limit = redaction._FIND_EACH_FORM_MAX
    redaction._FIND_EACH_FORM_MAX = limit if one_by_one else 0
    try:
        assert _first_pass(forms, text) == _alternation(secrets, text)
        if forms.holds(text) != (_alternation(secrets, text) != text):
            assert forms.redact(text) != text and ("%" in text or "\\" in text)
    finally:
        redaction._FIND_EACH_FORM_MAX = limit


def test_hundreds_of_secrets_build_no_pattern_and_a_text_without_them_needs_none(monkeypatch):
    """500 secrets of 3 to 40 characters (some 7,000 forms): the forms are kept as text; only a
    form of several words found with whitespace inside its place is compiled (a one-word form
    matches with any whitespace inside: no pattern at all). One alternation of every form
    took 95 s to compile and 50 µs a character to apply, holding every session of the process."""
    from agent_core import redaction

    rng = random.Random(5)
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    secrets = ["".join(rng.choice(alphabet) for _ in range(rng.randint(3, 40))) for _ in range(500)]
    compiled = []
    real_compile = re.compile
    monkeypatch.setattr(redaction.re, "compile", lambda *a, **k: compiled.append(a[0]) or real_compile(*a, **k))
    forms = redaction._Secrets(secrets)
    assert len(forms._variants) > 4000 and compiled == []
    filler = "plain words, nothing to hide\n" * 2000
    assert forms.redact(filler) == filler and compiled == []
    found = secrets[7] if len(secrets[7]) >= 4 else secrets[8]
    wrapped = found[:2] + "\n  " + found[2:]
    assert forms.redact(f"{filler}key {found} and {wrapped}.") == f"{filler}key [REDACTED] and [REDACTED]."
    assert compiled == []


# --- case, look-alike characters, invisible characters, a secret partly escaped -----------------


@pytest.mark.parametrize("changed", [SECRET.upper(), SECRET.lower(), SECRET.swapcase(), SECRET.title()])
def test_a_secret_whose_case_a_tool_changed_is_redacted(changed):
    """An error message that upper-cases what it quotes: a hex key is the same key in either
    case, and a base64 key upper-cased loses at most a bit a letter."""
    assert redactor([SECRET])(f"INVALID KEY {changed}!") == "INVALID KEY [REDACTED]!"


@pytest.mark.parametrize("shown", [
    "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in SECRET),  # full-width forms
    "\u200b".join(SECRET),  # a zero-width space between every character
    SECRET[:6] + "\u00ad" + SECRET[6:],  # a soft hyphen
    SECRET[:6] + "\u2060\ufeff" + SECRET[6:],  # a word joiner and a byte order mark
    SECRET[:6] + "\u00a0" + SECRET[6:],  # a no-break space inside the token
    SECRET[:6] + "\t" + SECRET[6:],  # a tab inside the token
    SECRET[:6] + chr(0xE0041) + SECRET[6:],  # an invisible tag character ("ASCII smuggling")
])
def test_a_secret_in_look_alike_or_invisible_characters_is_redacted(shown):
    assert redactor([SECRET])(f"key: {shown} ok") == "key: [REDACTED] ok"


def test_folding_changes_nothing_but_what_it_hides():
    """Text around the secret comes back as written: case, the dotted İ, a final sigma, emoji
    joined by a zero-width joiner."""
    around = "İstanbul ΟΔΟΣ 👩\u200d💻 Ａ"
    assert redactor([SECRET])(f"{around} {SECRET.upper()} {around}") == f"{around} [REDACTED] {around}"


@pytest.mark.parametrize("partly", [
    SECRET.replace("-", "\\u002d"),  # JSON/JavaScript: one character escaped
    SECRET.replace("-", "\\u002D", 1),
    SECRET.replace("-", "\\x2d"),
    SECRET.replace("-", "%2D", 1),  # percent-encoding of one character
    SECRET.replace("C", "%43"),
    SECRET.replace("-", "&#45;"),  # an HTML character reference
    SECRET.replace("-", "&#x2d;", 1).upper(),  # ... and upper-cased
    SECRET.replace("-", "\\u002d", 1).replace("7", "\\x37"),  # two notations in one
])
def test_a_secret_with_some_of_its_characters_escaped_is_redacted(partly):
    redacted = redactor([SECRET])(f'{{"id": "call_{partly}", "n": 1}}')
    assert "7f3a91" not in redacted.lower() and "[REDACTED]" in redacted
    assert redacted.startswith('{"id": "call_') and redacted.endswith('", "n": 1}')


def test_escapes_that_hide_no_secret_are_left_as_they_are():
    text = 'path "C:\\\\dir\\/x" 100%25 &amp; caf\\u00e9 %E2%82%AC'
    assert redactor([SECRET])(text) == text


def test_a_file_holding_the_secret_upper_cased_is_withheld():
    outcome, forwarded = collect(blob(SECRET.upper().encode(), {"filename": "dump.txt", "mime_type": "text/plain"}))
    assert forwarded == [] and "[REDACTED]" not in outcome.observation and SECRET.upper() not in outcome.full_text


def test_a_megabyte_of_escapes_is_redacted_in_one_pass():
    """Every character of a JSON text escaped (a tool's dump of binary data): the decoded copy
    is made once, linear in the text."""
    text = '\\"\\u0041%41&amp;' * 60_000 + SECRET.replace("-", "\\u002d")
    started = time.process_time()
    assert redactor([SECRET])(text).endswith("[REDACTED]")
    assert time.process_time() - started < 2.0  # CPU seconds (about 0.1), not stretched by other processes


@pytest.mark.parametrize("inner", ["CNRY\\u002D7F3A91D2E4B8", "cnry-\t7f3a91d2e4b8"])
def test_a_secret_in_a_json_value_dumped_again_is_redacted(inner):
    """A JSON message's value holding an escape or a tab, dumped as JSON: ``\\\\u002D``, ``\\t``."""
    dumped = json.dumps({"debug": {"key": inner}})
    assert "7f3a91" not in redactor(["cnry-7f3a91d2e4b8"])(dumped).lower()


# --- the escape decoding's fast path against the full decode ------------------------------------

_REFERENCE_ESCAPES = re.compile(
    r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
    r"|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}|\\u\{[0-9a-fA-F]{1,6}\}|\\[\\/\"'tnr]"
    r"|(?:\\x[0-9a-fA-F]{2})+|(?:\\[0-3][0-7]{2})+|(?:=(?:[01][0-9A-F]|2[1-9A-F]|3[A-F]|40|5[B-F]|60|7[B-F]|[89A-F][0-9A-F]))+|=(?<![\s=!<>]=)(?:\r?\n|(?:\\r)?\\n)"
    r"|(?:%[0-9a-fA-F]{2})+"
    r"|&#[0-9]{1,7};?|&#[xX][0-9a-fA-F]{1,6};?|&[A-Za-z][A-Za-z0-9]{1,31};"
)


_REFERENCE_CSS_ESCAPES = re.compile(r"\\[0-9a-fA-F]{1,6}(?:\r\n|[ \t\n\r\f])?")


class _ReferenceUnescaped:
    """The full decode (the reference): every escape replaced by ``re.sub`` with a callback, a
    place in the decoded text mapped back through the escapes' matches."""

    def __init__(self, source, *, css=False):
        from agent_core.redaction import _css_unescape, _unescape

        self._source = source
        self._escapes = _REFERENCE_CSS_ESCAPES if css else _REFERENCE_ESCAPES
        self._unescape = _css_unescape if css else _unescape
        self.text = self._escapes.sub(lambda match: self._unescape(match.group()), source)
        self.values = [self._unescape(match.group()) for match in self._escapes.finditer(source)]

    def vanished(self):
        """Where in the decoded text an escape that stands for nothing was."""
        places, size, written = set(), 0, 0
        for match in self._escapes.finditer(self._source):
            size += match.start() - written
            decoded = self._unescape(match.group())
            if not decoded:
                places.add(size)
            size += len(decoded)
            written = match.end()
        return frozenset(places)

    def span(self, start, end):
        _unescape = self._unescape
        at, source, escape_end, size, written = [], [], [], 0, 0
        for match in self._escapes.finditer(self._source):
            if match.start() > written:
                at.append(size), source.append(written), escape_end.append(-1)
                size += match.start() - written
            at.append(size), source.append(match.start()), escape_end.append(match.end())
            size += len(_unescape(match.group()))
            written = match.end()
        at.append(size), source.append(written), escape_end.append(-1)
        first = bisect.bisect_right(at, start) - 1
        last = bisect.bisect_right(at, end - 1) - 1

        def inside(entry, chars):  # a run of byte escapes each a character of its own: to the byte
            if escape_end[entry] < 0:
                return chars
            escape = self._source[source[entry] : escape_end[entry]]
            decoded, unit = _unescape(escape), 3 if escape[0] in "%=" else 4
            if len(decoded) > 1 and len(escape) == unit * len(decoded.encode("utf-8", "surrogatepass")):
                return unit * len(decoded[:chars].encode("utf-8", "surrogatepass"))
            return None

        begin = source[first] + (inside(first, start - at[first]) or 0)
        stop = inside(last, end - at[last])
        stop = escape_end[last] if stop is None else source[last] + stop
        return begin, stop


_SHOWN_AS = [
    lambda c: c, lambda c: c, lambda c: c.upper(),
    lambda c: f"\\u{ord(c):04x}", lambda c: f"\\x{ord(c):02X}", lambda c: f"%{ord(c):02x}",
    lambda c: f"&#{ord(c)};", lambda c: f"&#x{ord(c):x};",
    lambda c: f"\\\\u{ord(c):04X}", lambda c: f"%25{ord(c):02X}", lambda c: f"&amp;#{ord(c)};",  # escaped twice
    lambda c: c + "\\t", lambda c: c + "%20",
    lambda c: f"\\U{ord(c):08x}", lambda c: f"\\u{{{ord(c):x}}}", lambda c: f"\\{ord(c):03o}",
    lambda c: f"\\{ord(c):x} ", lambda c: f"={ord(c):02X}", lambda c: c + "=\n",
]
"""How one character of a secret is written: as it is, escaped in one notation, escaped twice, or
followed by an escaped whitespace."""

_NOISE = st.sampled_from([
    "\\", "\\\\", "\\u00", "\\u00e9", "\\ud83d\\ude00", '\\"', "%", "%2", "%25", "%E2%82%AC", "%C3",
    "&", "&#", "&#4", "&#45;", "&amp;", "&lt;", "\\n", " ", "x", "-", "\\\\u002d",
    "\\0", "\\05", "\\2d", "\\u{", "\\U000", "=", "=4", "=3D", "=\r", "\\101",
])


@given(
    secret=st.text(alphabet="ab-c1", min_size=4, max_size=8),
    layout=st.lists(st.one_of(_NOISE, st.lists(st.integers(0, len(_SHOWN_AS) - 1), min_size=1, max_size=8)),
                    max_size=8),
)
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_fast_decode_finds_what_the_full_decode_finds(secret, layout):
    """Property: texts holding a secret with some characters escaped (one or two levels, several
    notations, escaped whitespace inside) among escapes that hide nothing and escapes cut short:
    ``redact``, ``holds`` and ``pending_start`` give what they give with every escape decoded by
    ``re.sub`` with a callback (the decoding before it went through ``re.split``)."""
    from agent_core import redaction

    parts = []
    for piece in layout:
        if isinstance(piece, str):
            parts.append(piece)
        else:  # the secret, each character written in one of the ways picked, in turn
            parts.append("".join(_SHOWN_AS[piece[n % len(piece)]](c) for n, c in enumerate(secret)))
    text = "".join(parts)
    forms = redaction._Secrets([secret])
    fast = (forms.redact(text), forms.holds(text), [forms.pending_start(text[:n]) for n in range(len(text) + 1)])
    real = redaction._Unescaped
    redaction._Unescaped = _ReferenceUnescaped
    try:
        full = (forms.redact(text), forms.holds(text), [forms.pending_start(text[:n]) for n in range(len(text) + 1)])
    finally:
        redaction._Unescaped = real
    assert fast == full


@pytest.mark.parametrize("text", [
    "%" * 1_000_000, "&#" * 500_000, "\\" * 1_000_000, "\\u0041" * 166_666, "\\\\u0041" * 125_000,
    "%41" * 333_333, "&#65;" * 200_000, "".join(f"&#{n};" for n in range(1, 120_000)),
])
def test_megabytes_of_escapes_are_decoded_in_linear_time(text):
    """Every character escaped, or megabytes of ``%``, ``&#`` or backslashes, with a secret at
    the end: well under a second of CPU (each distinct escape decoded once, the rest in C; about
    0.4 s here). CPU time, not wall time: a loaded machine stretched the wall time to 3.5 s."""
    started = time.process_time()
    assert redactor([SECRET])(text + " " + SECRET.replace("-", "%2D")).endswith(" [REDACTED]")
    assert time.process_time() - started < 1.5


@pytest.mark.parametrize("holder", ["broken", "crm"])
def test_a_dropped_tool_named_with_a_key_is_logged_without_it(caplog, holder):
    """A malformed tool whose name holds its own key, or another tool's key (upper-cased): the
    warning on stderr names it with the key hidden, and still says what was dropped."""
    caplog.set_level(logging.DEBUG)
    other = "crm-key-" + SECRET[::-1]
    shown = (SECRET if holder == "broken" else other).upper()
    broken = tool_entity(f"broken_{shown}_v2", secret_type="password-v2")
    params = StrategyParams.model_validate({"model": MODEL, "tools": [broken, tool_entity("crm", secret=other)]})
    assert [tool.identity.name for tool in params.tools] == ["crm"]
    assert "dropping tool 'broken_[REDACTED]_v2'" in caplog.text
    assert shown not in caplog.text and shown.lower() not in caplog.text.lower()
