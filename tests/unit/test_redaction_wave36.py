"""Redaction, wave 36: the pure parts of what the blind secrets pass found.

- A secret of a megabyte (a key file pasted in a secret field) took a minute of the plugin's CPU
  to prepare, every session of the process held meanwhile: the longest shared start of its
  forms was found a character at a time, and each escaped form was written a character at a
  time. Its forms are now written a distinct character at a time and joined in C: the Python
  calls do not grow with its length, and the forms are the same.
- A secret that spells a JSON Schema type name (``string``, Swagger UI's placeholder) made every
  tool's declaration ``{"type": "[REDACTED]"}``, a schema providers refuse.
"""

from __future__ import annotations

import json
import random
import re
import sys
import time
import urllib.parse

from dify_plugin.interfaces.agent import ToolEntity

from agent_core import redaction
from agent_core.redaction import _escaped_every_character, _json_html_safe, _per_character, _shared_start, _url_encoded
from agent_core.tool_schema import ToolRegistry, redacted_schema
from local_runner.tools import ScriptedTool, ToolParam


def _shared_start_by_character(texts: list[str]) -> str:
    first, last = min(texts), max(texts)
    size = 0
    while size < len(first) and first[size] == last[size]:
        size += 1
    return first[:size]


def test_the_shared_start_is_the_one_a_character_at_a_time_finds():
    draw = random.Random(36)
    cases = [["abc"], ["abc", "abd"], ["abc", "ab"], ["", "x"], ["same", "same"], ["\\u0073\\u", "\\u0053\\u"]]
    for _ in range(500):
        stem = "".join(draw.choice("ab\\u0") for _ in range(draw.randrange(12)))
        cases.append([stem + "".join(draw.choice("ab") for _ in range(draw.randrange(4))) for _ in range(draw.randrange(1, 4))])
    for texts in cases:
        assert _shared_start(texts) == _shared_start_by_character(texts), texts


def test_the_shared_start_of_megabyte_forms_is_found_in_a_few_comparisons():
    big = "k" * 2_000_000
    started = time.process_time()
    assert _shared_start([big + "a", big + "b", big]) == big
    assert _shared_start([big + "a", big + "b"]) == big
    assert time.process_time() - started < 0.5  # a character at a time: 0.5 s a megabyte


def test_a_form_written_a_distinct_character_at_a_time_is_the_form_written_whole():
    secret = "pässwörd-🔑-秘密 /+~"
    assert _per_character(secret, lambda char: f"&#{ord(char)};") == "".join(f"&#{ord(char)};" for char in secret)
    data = secret.encode()
    assert _per_character(data, lambda byte: f"\\x{byte:02x}") == "".join(f"\\x{byte:02x}" for byte in data)
    assert _per_character("", str.upper) == ""


def test_url_encoded_forms_are_those_the_encoders_write():
    def lower_hex(text: str) -> str:
        return re.sub(r"%[0-9A-F]{2}", lambda match: match.group().lower(), text)

    for secret in ("a/b+c d~e.f_g", "pässwörd-🔑", "Cnry-5Kq8Zt2Wv9Xh"):
        written = {urllib.parse.quote(secret, safe=""), urllib.parse.quote(secret), urllib.parse.quote_plus(secret),
                   "".join(char if char.isascii() and char.isalnum() else urllib.parse.quote(char, safe="-._~").replace(
                       "-", "%2D").replace(".", "%2E").replace("_", "%5F").replace("~", "%7E") for char in secret)}
        assert _url_encoded(secret) == written | {lower_hex(form) for form in written}


def test_the_escaped_forms_of_a_secret_are_what_each_notation_writes():
    secret = 'Kq-é<"🔑'
    forms = _escaped_every_character(secret)
    assert "\\u004b\\u0071\\u002d\\u00e9\\u003c\\u0022\\ud83d\\udd11" in forms
    assert "%4b%71%2d%c3%a9%3c%22%f0%9f%94%91" in forms and "=4B=71=2D=C3=A9=3C=22=F0=9F=94=91" in forms
    assert "&#75;&#113;&#45;&#233;&#60;&#34;&#128273;" in forms
    assert not any(form.startswith("\\x4b\\x71\\x2d\\xe9") for form in forms)  # not every character a byte
    assert "\\x4b\\x71\\x2d\\xe9" in "".join(_escaped_every_character("Kq-é"))
    assert json.dumps(secret, ensure_ascii=False)[1:-1].replace("<", "\\u003c") in _json_html_safe(secret)  # Go


def _python_calls(work) -> int:
    calls = [0]

    def count(frame, event, arg):
        if event == "call":
            calls[0] += 1

    sys.setprofile(count)
    try:
        work()
    finally:
        sys.setprofile(None)
    return calls[0]


def test_preparing_a_long_secret_costs_no_python_call_a_character():
    """The Python calls of preparing a secret's forms do not grow with its length (a megabyte
    took 20 s of CPU, 60 on a busy machine): 4 KB and 256 KB cost about the same calls."""
    def secret(size: int) -> str:
        return "".join(f"{n:08x}" for n in range(size // 8))

    small, large = secret(4096), secret(262_144)
    small, large = (_python_calls(lambda text=text: redaction.secret_forms({text})) for text in (small, large))
    assert large < 2 * small + 1000, (small, large)


def test_a_long_secret_is_found_whole_in_any_case():
    big = "".join(f"{n:08x}" for n in range(16_384))  # 128 KB
    forms = redaction.secret_forms({big})
    assert forms.redact(f"key {big} end") == "key [REDACTED] end"
    assert forms.redact("x" + big.upper().replace("a", "A")) == "x[REDACTED]"


# --- a secret that spells a JSON Schema type name ---------------------------------------------------


def test_a_schemas_type_names_are_kept_and_its_texts_redacted():
    redact = redaction.secret_forms({"string", "object"}).redact
    schema = {"type": "object", "properties": {
        "q": {"type": "string", "description": "a string to look up", "enum": ["string", "other"]},
        "type": {"type": ["string", "null"], "description": "the object type"},
        "items": {"type": "array", "items": {"type": "object", "properties": {"string": {"type": "integer"}}}},
    }, "required": ["q", "type"]}
    shown = redacted_schema(schema, redact)
    assert shown["type"] == "object"
    q = shown["properties"]["q"]
    assert q == {"type": "string", "description": "a [REDACTED] to look up", "enum": ["[REDACTED]", "other"]}
    assert shown["properties"]["type"] == {"type": ["string", "null"], "description": "the [REDACTED] type"}
    inner = shown["properties"]["items"]["items"]
    assert inner == {"type": "object", "properties": {"[REDACTED]": {"type": "integer"}}}
    assert shown["required"] == ["q", "type"]


def test_a_type_keyword_holding_no_type_name_is_redacted_as_text():
    """Only the grammar is kept: a ``type`` whose value is the tool author's own word is redacted."""
    redact = redaction.secret_forms({"Cnry-5Kq8Zt2Wv9Xh"}).redact
    shown = redacted_schema({"type": "Cnry-5Kq8Zt2Wv9Xh", "properties": {"a": {"type": ["string", "Cnry-5Kq8Zt2Wv9Xh"]}}}, redact)
    assert shown == {"type": "[REDACTED]", "properties": {"a": {"type": ["string", "[REDACTED]"]}}}


def test_a_tool_whose_secret_is_string_is_declared_with_its_types():
    tool = ScriptedTool(name="vault", description="Reads a string",
                        parameters=[ToolParam("q", description="a string"),
                                    ToolParam("api_key", type="secret-input", form="form")],
                        runtime_parameters={"api_key": "string"})
    registry = ToolRegistry([ToolEntity.model_validate(tool.entity())])
    (declared,) = registry.prompt_tools()
    assert declared.description == "Reads a [REDACTED]"
    assert declared.parameters["properties"]["q"] == {"type": "string", "description": "a [REDACTED]"}
