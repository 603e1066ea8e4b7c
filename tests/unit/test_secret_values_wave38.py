"""Wave 38 (issue 13, class 3): the parts of a structured secret a tool writes alone, the
schema grammar a secret may spell, and JSON's literals in a call's arguments."""

from __future__ import annotations

import json

import pytest

from agent_core.own_text import spans_of
from agent_core.redaction import secret_forms
from agent_core.tool_schema import _value_holds, redacted_schema, schema_json, secret_text

PEM = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n"


def test_a_key_file_gives_its_credential_fields_and_not_its_other_fields():
    document = json.dumps({"type": "service_account", "project_id": "demo-project-42", "private_key_id": "9f3b2c1d8e7a",
                           "private_key": PEM, "client_email": "bot@demo.iam.example.com",
                           "nested": {"clientSecret": "cs-12345678", "apiKey": 12345678}})
    texts = secret_text(document)
    assert {document, PEM, "9f3b2c1d8e7a", "cs-12345678", "12345678"} <= texts
    assert not texts & {"service_account", "demo-project-42", "bot@demo.iam.example.com"}


def test_an_address_gives_its_password_and_text_that_reads_as_no_json_nothing_more():
    assert secret_text("postgres://app:Pw-7Kq8Zt@db:5432/prod") == {"postgres://app:Pw-7Kq8Zt@db:5432/prod", "Pw-7Kq8Zt"}
    assert secret_text("{not json: sk-abcdef}") == {"{not json: sk-abcdef}"}
    assert secret_text("sk-abcdef") == {"sk-abcdef"}


def test_a_value_that_is_no_text_gives_its_items_texts_not_its_keys():
    assert secret_text({"type": "constant", "value": "sk-abcdef"}) == {"constant", "sk-abcdef"}
    assert secret_text(["sk-abcdef", 48213377.0, True, None]) == {"sk-abcdef", "48213377", "48213377.0"}
    deep: object = "sk-deep-1234"
    for _ in range(20):
        deep = [deep]
    assert secret_text(deep) == set()  # past SECRET_LEAF_DEPTH levels


SCHEMA = {"type": "object",
          "properties": {"q": {"type": "string", "description": "record id", "enum": ["properties", "a"]},
                         "type": {"type": ["string", "null"], "default": "required"},
                         "items": {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "string"}}}}},
          "required": ["q", "type"], "$defs": {"Thing": {"description": "x"}}}


@pytest.mark.parametrize("word", ["properties", "required", "type", "items", "description", "string"])
def test_redacted_schema_keeps_the_keywords_and_hides_the_authors_texts(word):
    redact = secret_forms({word}).redact
    out = redacted_schema(SCHEMA, redact)
    assert out["type"] == "object" and set(out) == {"type", "properties", "required", "$defs"}
    names = out["properties"]
    if word in ("type", "items"):  # a parameter named after the secret: the author's word
        assert word not in names and "[REDACTED]" in names
    else:
        assert set(names) == {"q", "type", "items"}
        assert names["items"]["items"]["properties"] == {"k": {"type": "string"}}
    if word == "properties":
        assert names["q"]["enum"] == ["[REDACTED]", "a"]
    if word == "required":
        assert names["type"]["default"] == "[REDACTED]"


def test_redacted_schema_still_hides_a_key_that_is_no_keyword():
    redact = secret_forms({"sk-abcdef"}).redact
    assert redacted_schema({"type": "object", "x-sk-abcdef": {"type": "string"}}, redact) == {
        "type": "object", "x-[REDACTED]": {"type": "string"}}


def test_schema_json_is_json_dumps_with_its_grammar_marked():
    text = schema_json(SCHEMA)
    assert text == json.dumps(SCHEMA, ensure_ascii=False, separators=(",", ":"))
    marked = {text[start:end] for start, end in spans_of(text)}
    assert {'"type"', '"object"', '"properties"', '"required"', '"description"', '"enum"', '"default"', '"items"',
            '"$defs"', '["string","null"]', '"array"', '"string"'} == marked
    # the author's words, even where one spells a keyword, are not marked
    owned = "".join(text[start:end] for start, end in spans_of(text))
    assert '"record id"' not in owned and '"q"' not in owned


@pytest.mark.parametrize("odd", [{"a": float("nan")}, {1: "x"}, ["properties", {"type": "string"}], "plain"])
def test_schema_json_of_any_shape_is_the_same_text(odd):
    assert schema_json(odd) == json.dumps(odd, ensure_ascii=False, separators=(",", ":"))


@pytest.mark.parametrize("word", ["true", "false", "null"])
def test_a_json_literal_is_no_secret_text_in_a_value(word):
    forms = secret_forms({word})
    assert not _value_holds(forms, True) and not _value_holds(forms, False) and not _value_holds(forms, None)
    assert not _value_holds(forms, {"a": [True, False, None]})
    assert _value_holds(forms, {"a": [f"is {word}"]}) and _value_holds(forms, {word: 1})


def test_a_number_and_a_nested_text_still_hold_a_secret():
    forms = secret_forms({"48213377", "sk-abcdef"})
    assert _value_holds(forms, 48213377) and _value_holds(forms, [1, {"k": "x sk-abcdef"}])
    assert not _value_holds(forms, {"k": ["sk-abc", "def"]})


# --- settings and pairs in a secret text -----------------------------------------------------------

SETTINGS = {
    "an environment file": ('OPENAI_API_KEY=sk-abc123456\nexport DB_PASSWORD="Pw-99887766"\nREGION=eu-west-1',
                            {"sk-abc123456", "Pw-99887766"}),
    "a connection string": ("Server=db.internal;User Id=sa;Password=Pw-7Kq8Zt2;", {"Pw-7Kq8Zt2"}),
    "a query": ("user=alice&token=tk-12345678&lang=en", {"tk-12345678"}),
    "YAML": ("username: alice\npassword: 'hunter2x'\nhost: db", {"hunter2x"}),
    "a user and a password": ("admin:S3cr3tPass!", {"S3cr3tPass!"}),
}


@pytest.mark.parametrize("case", list(SETTINGS))
def test_a_secret_of_settings_gives_the_values_named_as_credentials(case):
    value, parts = SETTINGS[case]
    assert secret_text(value) == {value, *parts}


@pytest.mark.parametrize("value", ["sk-abcdef123", "a: b: c", "user:short", "key=", "pass phrase with spaces: ok",
                                   "REGION=eu-west-1;NAME=alice"])
def test_a_secret_with_no_named_credential_is_only_itself(value):
    assert secret_text(value) == {value}
