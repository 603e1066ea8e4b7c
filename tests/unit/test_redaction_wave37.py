"""Secrets a user pasted oddly or a tool maps by case or typography (wave 37), the answer schema
sent as a completion parameter, and a secret that spells a key of a message the plugin writes:
each found where wave 37's black-box cases leaked it or broke the run."""

from __future__ import annotations

import json
import unicodedata

import pytest
from dify_plugin.entities.agent import AgentInvokeMessage
from dify_plugin.entities.invoke_message import InvokeMessage

from agent_core.answer_schema import redacted_structured_params
from agent_core.outbound import own_keys, redact_message
from agent_core.redaction import _ligatured, _normal_forms, redacted_texts, secret_forms

KEY = "Cnry-5Kq8Zt2Wv9Xh"

PASTED_AND_WRITTEN = {
    "zero-width space pasted inside": (KEY[:6] + "\u200b" + KEY[6:], KEY),
    "soft hyphen pasted inside": (KEY[:4] + "\u00ad" + KEY[4:], KEY),
    "full-width letters pasted": ("".join(chr(ord(c) + 0xFEE0) for c in KEY), KEY),
    "a ligature pasted": ("\ufb01ction-Kq8Zt2Wv9X", "fiction-Kq8Zt2Wv9X"),
    "decomposed accents pasted": (unicodedata.normalize("NFD", "Clé-Kq8Zt2é"), unicodedata.normalize("NFC", "Clé-Kq8Zt2é")),
    "sharp s upper-cased by the tool": ("Maße-Kq8Zt2Wv9X", "MASSE-KQ8ZT2WV9X"),
    "sharp s upper-cased, JSON-escaped": ("Maße-Kq8Zt2Wv9X", json.dumps({"k": "MASSE-KQ8ZT2WV9X"})),
    "a PDF's ligature in the tool's text": ("fiction-Kq8Zt2Wv9X", "\ufb01ction-Kq8Zt2Wv9X"),
    "a PDF's ffi ligature, JSON-escaped": ("office-Kq8Zt2Wv9X", json.dumps("o\ufb03ce-Kq8Zt2Wv9X")),
    "Greek final sigma upper-cased": ("κλειδιας-Kq8Zt2Wv", "ΚΛΕΙΔΙΑΣ-KQ8ZT2WV"),
    "Turkish dotted capital I": ("istanbul-Kq8Zt2Wv", "İSTANBUL-KQ8ZT2WV"),
}


@pytest.mark.parametrize("case", list(PASTED_AND_WRITTEN))
def test_a_secret_is_hidden_however_it_was_pasted_and_written(case):
    secret, shown = PASTED_AND_WRITTEN[case]
    redacted = secret_forms([secret]).redact(f"before {shown} after")
    assert redacted.startswith("before ") and redacted.endswith(" after")
    assert "[REDACTED]" in redacted
    assert "Kq8" not in redacted.replace("[REDACTED]", "") and "KQ8" not in redacted


def test_the_text_around_a_mapped_secret_is_kept_as_written():
    assert secret_forms(["Maße-Kq8Zt2Wv9X"]).redact("Maße: MASSE-KQ8ZT2WV9X, Masse") == "Maße: [REDACTED], Masse"


def test_an_ascii_secret_gets_no_extra_normal_form():
    assert _normal_forms([KEY]) == [KEY]


def test_a_pasted_secrets_normal_forms_are_distinct_and_not_blank():
    forms = _normal_forms(["\u200b\u200b\u00ad\u200b"])
    assert forms == ["\u200b\u200b\u00ad\u200b"]  # nothing visible: no form added (too short to hide anyway)
    forms = _normal_forms(["Maße\u200b-ﬁx"])
    assert len(forms) == len(set(forms))
    assert "Maße-ﬁx" in forms and "MASSE\u200b-FIX" in forms and "Maße-fix" in forms


def test_ligatures_are_written_for_a_secrets_letter_pairs_only():
    assert _ligatured("sk-abc") == set()
    assert _ligatured("FFI-x") == {"\ufb03-x", "\\ufb03-x"}
    assert _ligatured("fox-1") == set()


def test_a_word_with_a_ligature_that_spells_no_secret_is_kept():
    assert secret_forms(["fiction-Kq8Zt2Wv9X"]).redact("a \ufb01ction of the \ufb01eld") == "a \ufb01ction of the \ufb01eld"


SCHEMA = {"type": "object", "properties": {"status": {"type": "string", "enum": ["open", KEY],
                                                      "description": f"auth {KEY}"}}, "required": ["status"]}


def test_the_answer_schema_parameter_is_redacted_with_its_grammar_kept():
    secrets = secret_forms([KEY, "string"])
    params = {"response_format": "json_schema", "json_schema": json.dumps(SCHEMA), "temperature": 0.1}
    out = redacted_structured_params(params, secrets)
    assert list(out) == ["json_schema"]
    assert json.loads(out["json_schema"]) == {
        "type": "object", "properties": {"status": {"type": "string", "enum": ["open", "[REDACTED]"],
                                                    "description": "auth [REDACTED]"}}, "required": ["status"]}


def test_an_answer_schema_given_as_an_object_or_unreadable_text_is_redacted():
    secrets = secret_forms([KEY])
    as_object = redacted_structured_params({"response_format": {"type": "json_schema", "json_schema": SCHEMA}}, secrets)
    assert KEY not in json.dumps(as_object) and as_object["response_format"]["type"] == "json_schema"
    broken = redacted_structured_params({"json_schema": '{"description": "' + KEY}, secrets)
    assert broken == {"json_schema": '{"description": "[REDACTED]'}


def test_parameters_without_a_secret_go_as_set():
    params = {"response_format": "json_schema", "json_schema": json.dumps({"type": "object"})}
    assert redacted_structured_params(params, secret_forms([KEY])) == {}
    assert redacted_structured_params(params, secret_forms([])) == {}
    assert redacted_structured_params(None, secret_forms([KEY])) == {}


def _json(value) -> AgentInvokeMessage:
    return AgentInvokeMessage(type=InvokeMessage.MessageType.JSON, message=InvokeMessage.JsonMessage(json_object=value))


def test_a_secret_that_spells_a_message_field_name_leaves_the_message_valid():
    """Secret ``json``: the message's own field ``json_object`` was renamed and the message no
    longer validated (the run failed at its end); its texts and its data's keys are still hidden."""
    shown = redact_message(_json({"json_key": "a json value"}), secret_forms(["json"]))
    assert shown.message.json_object == {"[REDACTED]_key": "a [REDACTED] value"}


def test_the_plugins_own_keys_are_kept_and_its_values_redacted():
    secrets = secret_forms(["tokens"])
    metadata = {"execution_metadata": {"total_tokens": 12, "currency": "tokens"}}
    shown = redact_message(own_keys(_json(metadata)), secrets)
    assert shown.message.json_object == {"execution_metadata": {"total_tokens": 12, "currency": "[REDACTED]"}}
    other = redact_message(_json(metadata), secrets)  # not noted: a tool's keys are its text
    assert other.message.json_object == {"execution_metadata": {"total_[REDACTED]": 12, "currency": "[REDACTED]"}}


def test_redacted_texts_keeps_keys_only_when_told():
    value = {"key tokens": ["tokens", {"tokens": 1}]}
    redact = secret_forms(["tokens"]).redact
    assert redacted_texts(value, redact) == {"key [REDACTED]": ["[REDACTED]", {"[REDACTED]": 1}]}
    assert redacted_texts(value, redact, keys=False) == {"key tokens": ["[REDACTED]", {"tokens": 1}]}
