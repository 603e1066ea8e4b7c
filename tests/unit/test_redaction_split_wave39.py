"""A key split between a tool's output and the error it failed with (wave 39): one call's
result, so the start the output ends with and the rest the error goes on with are both hidden
(``_Secrets.mask_split``, used by ``ObservationCollector``)."""

from __future__ import annotations

import base64

import pytest

from agent_core.observation import ObservationCollector
from agent_core.redaction import secret_forms
from tests.unit.test_observation import json_msg, link, run, text

KEY = "Cnry-5Kq8Zt2Wv9Xh"


@pytest.mark.parametrize("cut", [1, 5, 9, 13])
@pytest.mark.parametrize("prefix", ["", "invoke tool failed: ", 'PluginInvokeError: {"message": "', "HTTP 401 ("])
def test_the_start_and_the_rest_of_a_key_are_hidden_in_both_texts(cut, prefix):
    output, error = secret_forms([KEY]).mask_split(f"auth failed for {KEY[:cut]}", f"{prefix}{KEY[cut:]} rejected")
    assert output == "auth failed for [REDACTED]"
    assert error == f"{prefix}[REDACTED] rejected"


def test_a_rest_of_under_four_characters_is_left_and_the_start_hidden():
    """``h`` finishing the key could be the first letter of any word (``HTTP``)."""
    assert secret_forms([KEY]).mask_split(f"for {KEY[:16]}", f"HTTP 401 ({KEY[16:]} rejected") == (
        "for [REDACTED]", f"HTTP 401 ({KEY[16:]} rejected")


def test_texts_that_share_no_key_are_unchanged():
    forms = secret_forms([KEY])
    assert forms.mask_split("auth failed for Cn", "timeout after 30 s") == ("auth failed for Cn", "timeout after 30 s")
    assert forms.mask_split("all fine", f"{KEY[5:]} rejected") == ("all fine", f"{KEY[5:]} rejected")
    assert secret_forms([]).mask_split("a Cnry-5", "Kq8 b") == ("a Cnry-5", "Kq8 b")


def test_a_start_of_four_characters_or_more_is_hidden_when_the_error_holds_no_rest():
    """The failure cut the output inside the key (as a cut edge is hidden)."""
    forms = secret_forms([KEY])
    assert forms.mask_split(f"key {KEY[:6]}", "connection reset") == ("key [REDACTED]", "connection reset")
    assert forms.mask_split(f"key {KEY[:3]}", "connection reset") == (f"key {KEY[:3]}", "connection reset")


def test_a_base64_start_takes_its_groups_lead_and_the_rest_is_hidden():
    encoded = base64.b64encode(f"user:{KEY}".encode()).decode()
    cut = len(encoded) // 2
    output, error = secret_forms([KEY]).mask_split(f"auth {encoded[:cut]}", f"invoke tool failed: {encoded[cut:]} bad")
    assert output == "auth dXNl[REDACTED]"  # the groups of ``user:`` stay as written
    assert error.startswith("invoke tool failed: [REDACTED]")


@pytest.mark.parametrize("cut", [5, 9, 13])
def test_a_tools_output_and_error_holding_a_key_between_them_show_none_of_it(cut):
    outcome, _ = run(text(f"auth failed for {KEY[:cut]}"), secrets=[KEY],
                     error=RuntimeError(f"invoke tool failed: {KEY[cut:]} rejected"))
    for shown in (outcome.observation, outcome.full_text, outcome.error):
        assert KEY[:cut] not in shown and KEY[cut:] not in shown, shown
        assert "rejected" in shown


def test_a_failure_after_output_without_a_key_keeps_both_as_written():
    collector = ObservationCollector("search", secrets=[KEY])
    collector.add(text("partial result: 3 rows"))
    collector.fail(RuntimeError("timeout after 30 s"))
    outcome = collector.finish()
    assert outcome.observation.endswith("partial result: 3 rows")
    assert "timeout after 30 s" in outcome.error


@pytest.mark.parametrize("between", ["json", "link"])
def test_a_key_split_between_two_text_messages_with_an_item_between_is_hidden(between):
    """The texts of one result are one text; a JSON message or a link between them put a line
    between the halves, and the whole body's search no longer saw the key."""
    middle = json_msg({"a": 1}) if between == "json" else link("https://x.example/doc")
    outcome, _ = run(text(f"key {KEY[:8]}"), middle, text(f"{KEY[8:]} ok"), secrets=[KEY])
    assert outcome.observation.startswith("key [REDACTED]\n") and outcome.observation.endswith("\n[REDACTED] ok")
    assert KEY[:8] not in outcome.full_text and KEY[8:] not in outcome.full_text


def test_text_messages_with_an_item_between_and_no_key_across_are_as_written():
    outcome, _ = run(text(f"key {KEY[:6]}"), json_msg({"a": 1}), text("done"), secrets=[KEY])
    assert outcome.observation == f'key {KEY[:6]}\n{{"a":1}}\ndone'
