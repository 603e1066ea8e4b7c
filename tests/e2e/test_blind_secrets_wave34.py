"""Secrets, wave 34, through the real plugin process: cases written as an outside harness would,
from the issue and the docs alone, then cut down to what the earlier waves did not try.

A ``secret-input`` canary never comes out of the tool call:

- written with letters from the Letterlike Symbols block (the Fraktur ``ℭ``, script ``ℰ`` and
  double-struck ``ℂ`` that "fancy text" writers use where the mathematical alphabets have a
  hole), with a dash the earlier fold did not know (``˗``, ``⁃``, ``➖``), or with a braille
  blank inside it, by a tool and by the model streaming its answer one character a chunk;
- when two tools' secrets overlap (the end of one is the start of the other);
- in base64 wrapped at a width that is no multiple of four (a group's last characters on the
  next line), of a key of one repeated character, and at the edge of a reply the output limit
  cut: nothing beside ``[REDACTED]`` decodes to a character of the key;
- in a JSON message as a number, nested deeper than a log shows, in a text file's bytes, in the
  model's reasoning, and in a tool's declaration.

Every line the plugin wrote since the run began (protocol lines, log nodes, model requests,
stderr) is searched for each canary once its changes are undone (``plain``); the backwards tool
request carrying the secrets to their tool is the one exception.
"""

from __future__ import annotations

import base64
import json
import re
import unicodedata

import pytest

from local_runner.tools import ScriptedTool, ToolParam, json_message, text_message
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end, observations, plugin_lines
from tests.e2e.test_red_team_wave32_secrets import CANARY, call, vault
from tests.e2e.test_red_team_wave33_secrets_edges import check_line

CORE = "7f3a91d2e4b8"
FIRST, SECOND = "tokenQ7v9X2m4", "Q7v9X2m4wzrk"
"""Two tools' secrets: the end of the first is the start of the second."""
PIN = "4815162342"
"""A numeric secret (an account number, a PIN): a tool may return it as a JSON number."""

_DASHES = dict.fromkeys(map(ord, "\u02d7\u2043\u2796\u2010\u2011\u2012\u2013\u2014\u2212"), "-")
_INVISIBLE = re.compile("[\\s\u00ad\u200b-\u200f\u2060-\u206f\ufeff\u2800\ufff9-\ufffb]")


def plain(text: str) -> str:
    """``text`` with the changes of ``FORMS`` undone: compatibility letters (NFKC), dashes,
    invisible and blank characters, case; ``\\uXXXX`` escapes of a JSON line decoded."""
    text = re.sub(r"\\+u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)
    return _INVISIBLE.sub("", unicodedata.normalize("NFKC", text).translate(_DASHES)).lower()


def assert_no_canary(run, result, cores=(CORE,)) -> None:
    """No line the plugin wrote since ``result``'s run began holds any of ``cores`` once ``plain``
    undid its changes; the backwards tool request carrying the secrets is the one exception."""
    checked = 0
    for entry, _ in plugin_lines(run.plugin, result):
        line = plain(json.dumps(entry, ensure_ascii=False, default=str))
        for core in cores:
            assert core.lower() not in line, f"canary written ({entry['dir']}): {line[:400]}"
        checked += 1
    assert checked > 3


FORMS = {
    "Fraktur and script capitals": CANARY.replace("C", "\u212d").replace("E", "\u2130"),
    "double-struck capitals and the Kelvin sign": "\u2102nry-7F3a91d2E4b8",
    "modifier-letter minus": CANARY.replace("-", "\u02d7"),
    "hyphen bullet": CANARY.replace("-", "\u2043"),
    "heavy minus sign": CANARY.replace("-", "\u2796"),
    "braille blank inside": CANARY[:7] + "\u2800" + CANARY[7:],
    "interlinear annotation marks inside": CANARY[:5] + "\ufff9" + CANARY[5:11] + "\ufffb" + CANARY[11:],
}
"""How the canary is written, by what wrote it so."""


def test_plain_undoes_every_form():
    """The check can fail: each form, undone inside a JSON line, shows the canary."""
    for name, shown in FORMS.items():
        assert CORE in plain(json.dumps({"v": f"x {shown} y"})), name


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("form", list(FORMS))
def test_the_canary_a_tool_writes_in_a_new_form_reaches_no_line(run, strategy, form):
    shown = FORMS[form]
    tool = vault([text_message(f"auth {shown} ok; record r1 is open"),
                  json_message({"token": shown, f"k {shown}": 1})])
    result = run([call(strategy), answer_turn(strategy, "Done.")], tools=[tool], strategy=strategy)
    assert_clean_end(result)
    (seen,) = observations(result.llm_requests[1])
    assert "record r1 is open" in seen and "[REDACTED]" in seen
    assert_no_canary(run, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("form", list(FORMS))
def test_the_canary_the_model_echoes_one_character_a_chunk_is_hidden(run, strategy, form):
    """The model writes the form one character a chunk: the chat keeps the words around it."""
    echoed = {**answer_turn(strategy, f"Your key is {FORMS[form]} as the vault said."), "split": 1}
    result = run([call(strategy), echoed], tools=[vault([text_message("ok")])], strategy=strategy)
    assert_clean_end(result)
    assert result.text == "Your key is [REDACTED] as the vault said."
    assert_no_canary(run, result)


def _pair() -> list[ScriptedTool]:
    def tool(name: str, secret: str, text: str) -> ScriptedTool:
        return ScriptedTool(name=name, description=f"Reads {name}",
                            parameters=[ToolParam("q", description="query"),
                                        ToolParam("token", type="secret-input", form="form", description="token")],
                            runtime_parameters={"token": secret}, responses=[text_message(text)])
    joined = FIRST + SECOND[len("Q7v9X2m4"):]
    return [tool("vault", FIRST, f"session {joined} is open; record r1 is open"), tool("other", SECOND, "ok")]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_two_secrets_that_overlap_are_hidden_whole(run, strategy):
    """``tokenQ7v9X2m4wzrk`` holds both secrets, sharing ``Q7v9X2m4``: the marker covers both,
    the second's last characters (``wzrk``) are not left after it."""
    result = run([call(strategy), answer_turn(strategy, "Done.")], tools=_pair(), strategy=strategy)
    assert_clean_end(result)
    (seen,) = observations(result.llm_requests[1])
    assert "session [REDACTED] is open" in seen
    assert_no_canary(run, result, cores=(FIRST, SECOND, "wzrk"))


def _wrapped(text: str, width: int) -> str:
    return "\n".join(text[i : i + width] for i in range(0, len(text), width))


_BASE64 = {
    f"width {width}, the key at byte {n} of a group": _wrapped(base64.b64encode(b"#%&"[:n] + CANARY.encode() + b"*#").decode(), width)
    for width, n in ((2, 2), (3, 2), (5, 1), (9, 0), (13, 2))
}


def assert_no_bits_beside(text: str) -> None:
    """``text`` with its line breaks removed: the base64 characters beside each marker are whole
    groups and decode to no character of the canary (``check_line``)."""
    assert check_line(json.dumps({"v": text.replace("\n", "")})) >= 1, text


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("shown", list(_BASE64))
def test_base64_wrapped_at_any_width_leaves_no_bit_on_the_next_line(run, strategy, shown):
    """A block wrapped at a width that is no multiple of four puts some of the key's last group
    on the next line: it is hidden with the key, in what the model reads and in the log."""
    tool = vault([text_message(f"cert:\n{_BASE64[shown]}\nend; record r1 is open")])
    result = run([call(strategy), answer_turn(strategy, "Done.")], tools=[tool], strategy=strategy)
    assert_clean_end(result)
    (seen,) = observations(result.llm_requests[1])
    assert "record r1 is open" in seen
    assert_no_bits_beside(seen)
    assert_no_canary(run, result)


REPEATED = "1111111111"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_base64_of_a_key_of_one_repeated_character_leaves_no_character(run, strategy):
    """Base64 of ``1111111111`` is also spelt by forms of other alignments: the one found first
    ended a group early and ``MQ==`` (``1``) was left after the marker."""
    tool = ScriptedTool(name="pins", description="Reads a PIN",
                        parameters=[ToolParam("q"), ToolParam("pin", type="secret-input", form="form")],
                        runtime_parameters={"pin": REPEATED},
                        responses=[text_message(f"auth {base64.b64encode(REPEATED.encode()).decode()} ; record r1 is open")])
    result = run([call(strategy, "pins"), answer_turn(strategy, "Done.")], tools=[tool], strategy=strategy)
    assert_clean_end(result)
    (seen,) = observations(result.llm_requests[1])
    assert "auth [REDACTED] ; record r1 is open" in seen


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_reply_cut_inside_a_base64_key_leaves_no_start_of_its_group(run, strategy):
    """The output limit cuts the model's answer inside the key's base64: the continuation request
    replays the cut reply with the marker, and the characters of the key's first group before it
    (``IyV``, holding its first bits) are hidden too."""
    encoded = base64.b64encode(b"#%" + CANARY.encode()).decode()
    cut = {"text": ("Thought: done.\nFinal Answer: " if strategy == "ReAct" else "") + f"Header: {encoded[:14]}",
           "finish_reason": "length"}
    result = run([call(strategy), cut, answer_turn(strategy, "Done.")], tools=[vault([text_message("ok")])],
                 strategy=strategy)
    assert result.ok, result.error_text
    replay = json.dumps(result.llm_requests[2]["prompt_messages"], ensure_ascii=False)
    assert "Header: [REDACTED]" in replay, replay[-400:]
    assert encoded[:3] not in replay.split("Header: ")[-1][:20]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_numeric_secret_in_a_json_number_reaches_no_line(run, strategy):
    """A tool returns the PIN as a JSON number: the model, the log and the chat see none of it."""
    tool = ScriptedTool(name="bank", description="Reads an account",
                        parameters=[ToolParam("q"), ToolParam("pin", type="secret-input", form="form")],
                        runtime_parameters={"pin": PIN},
                        responses=[json_message({"account": {"pin": int(PIN), "codes": [int(PIN), 7]}, "record": "r1 is open"})])
    result = run([call(strategy, "bank"), answer_turn(strategy, "Done.")], tools=[tool], strategy=strategy)
    assert_clean_end(result)
    (seen,) = observations(result.llm_requests[1])
    assert "r1 is open" in seen
    assert_no_canary(run, result, cores=(PIN,))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_canary_deep_in_a_json_message_reaches_no_line(run, strategy):
    """A JSON message nested 120 levels with the canary at its bottom, as a key and a value."""
    nested: object = {f"key {CANARY}": CANARY}
    for _ in range(120):
        nested = {"n": [nested]}
    tool = vault([text_message("record r1 is open"), json_message({"deep": nested})])
    result = run([call(strategy), answer_turn(strategy, "Done.")], tools=[tool], strategy=strategy)
    assert_clean_end(result)
    assert_no_canary(run, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_text_file_holding_the_canary_is_withheld(run, strategy):
    """A tool's text file whose bytes hold the key (a config export) is not sent to the chat, and
    no line holds its bytes in base64."""
    data = f"[default]\napi_key = {CANARY}\n".encode()
    blob = {"type": "blob", "message": {"blob": base64.b64encode(data).decode()},
            "meta": {"filename": "config.ini", "mime_type": "text/plain"}}
    result = run([call(strategy), answer_turn(strategy, "Done.")], tools=[vault([text_message("record r1 is open"), blob])],
                 strategy=strategy)
    assert_clean_end(result)
    encoded = base64.b64encode(data).decode()
    for entry, _ in plugin_lines(run.plugin, result):
        line = json.dumps(entry, ensure_ascii=False, default=str)
        assert encoded[8:24] not in line, f"file bytes written ({entry['dir']}): {line[:300]}"
    assert_no_canary(run, result)


def test_the_canary_in_the_models_reasoning_reaches_no_line(run):
    """A thinking model reasons about the key it guessed: the Thought log and the chat hide it."""
    strategy = "function_calling"
    reply = {"text": f"<think>The key may be {FORMS['Fraktur and script capitals']}.</think>Done.", "split": 3}
    result = run([call(strategy), reply], tools=[vault([text_message("ok")])], strategy=strategy)
    assert_clean_end(result)
    assert result.text.endswith("Done.")
    assert_no_canary(run, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_tool_declaration_holding_the_canary_is_not_sent_to_the_model(run, strategy):
    """A tool's author pasted the key into a parameter's description and an option: the request
    that declares the tools to the model holds none of it."""
    tool = vault([text_message("ok")])
    tool.parameters[0] = ToolParam("q", description=f"query; use key {CANARY} for admin")
    result = run([answer_turn(strategy, "Hello.")], tools=[tool], strategy=strategy)
    assert_clean_end(result)
    assert_no_canary(run, result)
