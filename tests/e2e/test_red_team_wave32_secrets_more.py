"""Red-team wave 32, what the first pass left, through the real plugin process: a canary
``secret-input`` value written in the forms the redaction learnt last never comes out of the
tool call.

The forms: hex of the canary lower-cased, ``\\U0000XXXX``, ``\\u{XX}``, octal, CSS and
quoted-printable escapes in some of its characters, a quoted-printable soft line break inside
it, every UTF-8 byte as ``\\xXX``, and a second canary of letters written wholly in Cyrillic
look-alikes. Each goes out through a tool's text, a JSON message's key, a variable, a file's
name, a link's URL, a tool's error, the model's own reply (streamed a few characters a chunk)
and the name of a tool whose declaration does not validate (the warning on stderr). Every line
the plugin writes (protocol lines, log nodes, model requests, stderr) is searched for either
canary once every such change is undone (``plain``); the backwards tool request that carries
the canaries to their tool is the one exception.
"""

from __future__ import annotations

import base64
import json
import re

import pytest

from local_runner.tools import ScriptedTool, ToolParam, json_message, text_message
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end, plugin_lines
from tests.e2e.test_red_team_wave32_secrets import form_tests

CANARY = "Cnry-7F3a91d2E4b8"
CORE = "7f3a91d2e4b8"
"""The part of the canary looked for in every line once its changes are undone (lower case)."""
WORD = "choppyseas"
"""A canary of Latin letters that all have Cyrillic look-alikes."""
_CYRILLIC = str.maketrans({"c": "с", "h": "һ", "o": "о", "p": "р", "y": "у", "s": "ѕ", "e": "е", "a": "а"})


def vault(responses: list, **kwargs) -> ScriptedTool:
    return ScriptedTool(
        name="vault", description="Reads the vault",
        parameters=[ToolParam("q", description="query"),
                    ToolParam("api_key", type="secret-input", form="form", description="key"),
                    ToolParam("pass", type="secret-input", form="form", description="passphrase")],
        runtime_parameters={"api_key": CANARY, "pass": WORD}, responses=responses, **kwargs)


FORMS = {
    "hex of the canary lower-cased": CANARY.lower().encode().hex(),
    "\\U0000XXXX escapes": CANARY.replace("-", "\\U0000002d").replace("a", "\\U00000061"),
    "\\u{XX} escapes": CANARY.replace("F", "\\u{46}").replace("-", "\\u{2d}"),
    "octal escapes": CANARY.replace("-", "\\055").replace("9", "\\071"),
    "CSS escapes": CANARY.replace("-", "\\2d ").replace("1", "\\31 "),
    "quoted-printable": CANARY.replace("-", "=2D"),
    "quoted-printable soft line break": CANARY[:9] + "=\n" + CANARY[9:],
    "UTF-8 bytes as \\xXX": "".join(f"\\x{byte:02x}" for byte in CANARY.encode()),
    "wholly Cyrillic look-alikes": WORD.translate(_CYRILLIC),
}
"""How a canary is written, by what wrote it so."""

_HEX_PIECES = {form.encode().hex()[6:26] for form in (CANARY, CANARY.lower(), CANARY.upper())}
_AS_LATIN = str.maketrans({v: k for k, v in {"c": "с", "h": "һ", "o": "о", "p": "р", "y": "у", "s": "ѕ",
                                             "e": "е", "a": "а"}.items()})


def _bytes(match: re.Match, size: int, base: int) -> str:
    digits = re.findall(r"[0-9a-fA-F]+", match.group().replace("\\x", " ").replace("=", " "))
    return bytes(int(d[:size], base) for d in digits).decode("utf-8", "replace")


def plain(text: str) -> str:
    """``text`` with every change of ``FORMS`` undone (escapes of every kind, three levels deep,
    soft line breaks, look-alike letters, whitespace and case); hex is looked for by its pieces."""
    for _ in range(3):
        text = re.sub(r"\\+U([0-9a-fA-F]{8})", lambda m: chr(int(m.group(1), 16)), text)
        text = re.sub(r"\\+u\{([0-9a-fA-F]{1,6})\}", lambda m: chr(int(m.group(1), 16)), text)
        text = re.sub(r"\\+u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)
        text = re.sub(r"(?:\\+x[0-9a-fA-F]{2})+", lambda m: _bytes(m, 2, 16), text)
        text = re.sub(r"(?:\\+[0-3][0-7]{2})+", lambda m: bytes(
            int(d, 8) for d in re.findall(r"[0-7]{3}", m.group())).decode("utf-8", "replace"), text)
        text = re.sub(r"\\+([0-9a-fA-F]{1,6}) ?", lambda m: chr(int(m.group(1), 16)), text)
        text = re.sub(r"(?:=[0-9A-F]{2})+", lambda m: _bytes(m, 2, 16), text)
        text = re.sub(r"=(?:\r?\n|(?:\\+r)?\\+n)", "", text)
    return re.sub(r"\s", "", text.translate(_AS_LATIN)).lower()


def assert_no_canary(run, result) -> None:
    """No line the plugin wrote since ``result``'s run began (stdout and stderr) holds either
    canary once ``plain`` undid its changes, nor a piece of the canary's hex; the backwards tool
    request carrying them to their tool is the one exception."""
    checked = 0
    for entry, _ in plugin_lines(run.plugin, result):
        line = json.dumps(entry, ensure_ascii=False, default=str)
        undone = plain(line)
        assert CORE not in undone and WORD not in undone, f"canary written ({entry['dir']}): {line[:400]}"
        assert not any(piece in line.lower() for piece in _HEX_PIECES), f"canary in hex ({entry['dir']}): {line[:400]}"
        checked += 1
    assert checked > 3


def test_plain_undoes_every_form():
    """The check can fail: each form, undone inside a JSON line, shows a canary (hex by its pieces)."""
    for name, shown in FORMS.items():
        line = json.dumps({"v": f"x {shown} y"}, ensure_ascii=False)
        if name.startswith("hex"):
            assert any(piece in line for piece in _HEX_PIECES)
        else:
            assert CORE in plain(line) or WORD in plain(line), name


def _variable(name: str, value) -> dict:
    return {"type": "variable", "message": {"variable_name": name, "variable_value": value, "stream": False},
            "meta": None}


def channels(shown: str) -> list[dict]:
    """Tool messages holding ``shown`` in every text a tool writes: its text, a JSON key, a
    variable, a file's name and a link's URL."""
    return [
        text_message(f"auth {shown} ok; record r1 is open"),
        json_message({f"key {shown}": "as a key", "record": "r1"}),
        _variable("out", f"token={shown}"),
        {"type": "blob", "message": {"blob": base64.b64encode(b"data").decode()},
         "meta": {"filename": f"{shown}.txt", "mime_type": "text/plain"}},
        {"type": "link", "message": {"text": f"https://example.com/x?k={shown}"}, "meta": None},
    ]


# the model echoes the form a few characters a chunk: the chat, the memory Dify keeps of the
# answer and the log hold none of it
(
    test_the_canary_a_tool_writes_in_a_new_form_reaches_no_line,
    test_a_tool_error_quoting_the_canary_in_a_new_form_reaches_no_line,
    test_the_canary_the_model_echoes_in_a_new_form_is_hidden_in_its_answer,
) = form_tests(FORMS, vault, channels, assert_no_canary)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("form", list(FORMS))
def test_a_tool_named_with_the_canary_that_does_not_validate_is_logged_without_it(run, strategy, form):
    """A tool of the node whose declaration does not validate is dropped with a warning on stderr
    naming it: its name holds a canary of another tool (the vault's), in a new form."""

    class Unreadable(ScriptedTool):
        def entity(self):
            entity = super().entity()
            entity["identity"]["name"] = f"broken_{FORMS[form]}_v2"
            entity["parameters"][-1]["type"] = "password-v2"
            return entity

    broken = Unreadable(name="broken", description="x",
                        parameters=[ToolParam("q"), ToolParam("token", type="secret-input", form="form")],
                        runtime_parameters={"token": "own-token-1234"})
    result = run([answer_turn(strategy, "Hello.")], tools=[broken, vault([text_message("ok")])], strategy=strategy)
    assert_clean_end(result)
    stderr = [json.dumps(entry, ensure_ascii=False) for entry, _ in plugin_lines(run.plugin, result) if entry["dir"] == "stderr"]
    assert any("dropping tool" in line and "[REDACTED]" in line for line in stderr), stderr
    assert_no_canary(run, result)
