"""Red-team wave 32, through the real plugin process: a canary ``secret-input`` value, written in
forms the earlier waves did not try, never comes out of the tool call.

The forms: base64 of the canary upper- or lower-cased (a service that changes a key's case
before encoding it), partly escaped then quoted in JSON twice more, HTML-escaped three times,
HTML5 named references and numeric ones without a semicolon, Cyrillic or Greek letters drawn
as Latin ones, typographic dashes, a combining accent on every letter. Each goes out through a
tool's text, a JSON message's key, a log label, a variable, a citation, a tool's error and the
model's own reply (streamed a few characters a chunk, as it echoes what it read) and error.
Every line the plugin writes (protocol lines, log nodes, model requests, stderr) is searched
for the canary once every such change is undone (``plain``), and for the form's base64 text;
the backwards tool request that carries the canary to its tool is the one exception.
"""

from __future__ import annotations

import base64
import html
import json
import re
import unicodedata
import urllib.parse

import pytest

from local_runner.tools import ScriptedTool, ToolParam, json_message, text_message
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end, observations, plugin_lines

CANARY = "Cnry-7F3a91d2E4b8"
CORE = "7f3a91d2e4b8"
"""The part of the canary looked for in every line once its changes are undone (lower case)."""


def vault(responses: list, **kwargs) -> ScriptedTool:
    return ScriptedTool(
        name="vault", description="Reads the vault",
        parameters=[ToolParam("q", description="query"),
                    ToolParam("api_key", type="secret-input", form="form", description="key")],
        runtime_parameters={"api_key": CANARY}, responses=responses, **kwargs)


def call(strategy: str, name: str = "vault", **arguments) -> dict:
    arguments = arguments or {"q": "x"}
    if strategy == "ReAct":
        return {"text": f"Thought: use {name}.\nAction:\n```json\n"
                        + json.dumps({"action": name, "action_input": arguments}) + "\n```"}
    return {"tool_calls": [{"id": "c1", "name": name, "arguments": arguments}]}


def _json_quoted(text: str, times: int) -> str:
    for _ in range(times):
        text = json.dumps(text)[1:-1]
    return text


_B64_UPPER = base64.b64encode(f"user:{CANARY.upper()}".encode()).decode()
_B64_LOWER = base64.b64encode(f"ab:{CANARY.lower()}".encode()).decode()

FORMS = {
    "base64 of the canary upper-cased": _B64_UPPER,
    "base64 of the canary lower-cased": _B64_LOWER,
    "partly escaped, then quoted in JSON twice": _json_quoted(CANARY.replace("-", "\\u002d"), 2),
    "HTML-escaped three times": html.escape(html.escape(CANARY.replace("-", "&#45;"))),
    "HTML5 named reference": CANARY.replace("-", "&hyphen;"),
    "reference without semicolon": "&#67" + CANARY[1:].replace("-", "&#x2d;"),
    "Cyrillic look-alikes": CANARY.replace("a", "\u0430").replace("C", "\u0421").replace("E", "\u0415"),
    "Greek look-alikes": CANARY.replace("E", "\u0395").replace("a", "\u03b1"),
    "typographic dash": CANARY.replace("-", "\u2010"),
    "combining accents": "\u0301".join(CANARY),
}
"""How the canary is written, by what wrote it so."""

_CONFUSABLES = str.maketrans({
    "\u0430": "a", "\u0421": "c", "\u0415": "e", "\u0395": "e", "\u03b1": "a", "\u2010": "-",
})
_INVISIBLE = re.compile("[\u0300-\u036f\u00ad\u200b-\u200f\u2060-\u206f\ufeff\\s]")


def plain(text: str) -> str:
    """``text`` with every change of ``FORMS`` undone: three levels of escapes, references,
    look-alike letters and dashes, combining marks and whitespace, case."""
    for _ in range(3):
        text = re.sub(r"\\+u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)
        text = html.unescape(urllib.parse.unquote(text))
    return _INVISIBLE.sub("", unicodedata.normalize("NFKD", text).translate(_CONFUSABLES)).lower()


def assert_no_canary(run, result) -> None:
    """No line the plugin wrote since ``result``'s run began (stdout and stderr) holds the canary
    once ``plain`` undid its changes, nor a piece of either base64 form; the backwards tool request
    carrying it to its tool is the one exception."""
    pieces = {_B64_UPPER[8:20], _B64_LOWER[8:20]}
    checked = 0
    for entry, _ in plugin_lines(run.plugin, result):
        line = json.dumps(entry, ensure_ascii=False, default=str)
        assert CORE not in plain(line), f"canary written ({entry['dir']}): {line[:400]}"
        assert not any(piece in line for piece in pieces), f"canary in base64 ({entry['dir']}): {line[:400]}"
        checked += 1
    assert checked > 3


def test_plain_undoes_every_form():
    """The check can fail: each form, undone, shows the canary (base64 by its own pieces)."""
    for name, shown in FORMS.items():
        if name.startswith("base64"):
            assert shown[8:20] in f"x {shown} y"
        else:
            assert CORE in plain(json.dumps({"v": f"x {shown} y"})), name


def _log(label: str, data: dict) -> dict:
    return {"type": "log", "meta": None, "message": {"id": "l1", "label": label, "parent_id": None, "error": None,
                                                     "status": "success", "data": data, "metadata": {}}}


def _variable(name: str, value) -> dict:
    return {"type": "variable", "message": {"variable_name": name, "variable_value": value, "stream": False},
            "meta": None}


def _citation(content: str) -> dict:
    return {"type": "retriever_resources", "meta": None, "message": {"context": content, "retriever_resources": [
        {"position": 1, "dataset_id": "d", "dataset_name": "n", "document_id": "x", "document_name": content,
         "segment_id": "s", "score": 0.5, "content": content}]}}


def channels(shown: str) -> list[dict]:
    """Tool messages holding ``shown`` in every text a tool writes: its text, a JSON key, a log
    label and data, a variable, a citation's name and content."""
    return [
        text_message(f"auth {shown} ok; record r1 is open"),
        json_message({f"key {shown}": "as a key", "record": "r1"}),
        _log(f"auth {shown}", {"header": shown}),
        _variable("out", f"token={shown}"),
        _citation(f"doc {shown}"),
    ]


def check_tool_channels(run, strategy: str, tool: ScriptedTool, no_canary) -> None:
    """``tool`` (whose streams write the canary in some form, ``channels``) is called once, then
    the model answers: the model reads its text redacted, the user the answer, and ``no_canary``
    finds the canary on no line the plugin wrote."""
    result = run([call(strategy), answer_turn(strategy, "Done.")], tools=[tool], strategy=strategy)
    assert_clean_end(result)
    (seen,) = observations(result.llm_requests[1])
    assert "record r1 is open" in seen and "[REDACTED]" in seen
    assert result.text == "Done."
    no_canary(run, result)


def check_tool_error(run, strategy: str, tool: ScriptedTool, no_canary) -> None:
    """``tool`` fails with an error quoting the canary: the model reads the error redacted, and
    ``no_canary`` finds the canary on no line the plugin wrote."""
    result = run([call(strategy), answer_turn(strategy, "The vault refused.")], tools=[tool], strategy=strategy)
    assert_clean_end(result)
    (seen,) = observations(result.llm_requests[1])
    assert "401 Unauthorized" in seen and "[REDACTED]" in seen
    no_canary(run, result)


def check_echoed_answer(run, strategy: str, tool: ScriptedTool, shown: str, no_canary) -> None:
    """After calling ``tool`` (holding the canary as its secret), the model echoes ``shown`` (the
    canary in some form) a few characters a chunk in its answer: the answer keeps its words with
    the canary hidden, and ``no_canary`` finds the canary on no line the plugin wrote (the chat,
    the memory Dify keeps of the answer, the log)."""
    echoed = {**answer_turn(strategy, f"Your key is {shown} as the vault said."), "split": 5}
    result = run([call(strategy), echoed], tools=[tool], strategy=strategy)
    assert_clean_end(result)
    assert result.text.startswith("Your key is ") and result.text.endswith(" as the vault said.")
    assert "[REDACTED]" in result.text
    no_canary(run, result)


def form_tests(forms: dict[str, str], vault, channels, no_canary, *, echo_error: bool = False) -> tuple:
    """The three tests a table of canary forms gets (``forms``: the form's name, by what wrote it
    so, to the canary written in it), each parametrized over the forms and ``STRATEGIES``:

    * a tool writes the form in every channel (``channels(shown)``, the tool messages);
    * a tool's error quotes it;
    * the model echoes it a few characters a chunk in its answer, and with ``echo_error`` a
      provider error then quotes it again: the run's error hides it too.

    ``vault(responses, **kwargs)`` makes the tool holding the canaries as its secrets;
    ``no_canary(run, result)`` checks every line the plugin wrote. Bind the three to test names in
    the suite's module (pytest collects them under those names, ids ``form-strategy``)."""
    over_forms = pytest.mark.parametrize("form", list(forms))
    over_strategies = pytest.mark.parametrize("strategy", STRATEGIES)

    @over_strategies
    @over_forms
    def tool_writes(run, strategy, form):
        check_tool_channels(run, strategy, vault(channels(forms[form])), no_canary)

    @over_strategies
    @over_forms
    def tool_error(run, strategy, form):
        tool = vault([], error=f"401 Unauthorized: key {forms[form]} is revoked")
        check_tool_error(run, strategy, tool, no_canary)

    @over_strategies
    @over_forms
    def model_echoes(run, strategy, form):
        shown = forms[form]
        check_echoed_answer(run, strategy, vault([text_message("ok")]), shown, no_canary)
        if echo_error:
            failed = run([call(strategy), {"error": f"400 bad request: messages[1] holds {shown}"}],
                         tools=[vault([text_message("ok")])], strategy=strategy)
            assert failed.error is not None and "[REDACTED]" in failed.error["message"]
            no_canary(run, failed)

    return tool_writes, tool_error, model_echoes


# the model echoes what a tool showed it (a form the earlier redaction let through), a few
# characters a chunk, in its answer; then a provider error quotes it again: the chat, the memory
# Dify keeps of the answer, the log and the run's error hold none of it
(
    test_the_canary_a_tool_writes_in_a_new_form_reaches_no_line,
    test_a_tool_error_quoting_the_canary_in_a_new_form_reaches_no_line,
    test_the_canary_the_model_echoes_in_a_new_form_is_hidden_in_the_answer_and_its_error,
) = form_tests(FORMS, vault, channels, assert_no_canary, echo_error=True)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_look_alike_canary_the_model_passes_to_another_tool_is_not_sent(run, strategy):
    """The model writes the canary with Cyrillic letters into another tool's argument: the call is
    not run (it would carry the key to a service the user did not give it to), the model is told."""
    mail = ScriptedTool(name="send_mail", description="Send an e-mail",
                        parameters=[ToolParam("to", description="Address"), ToolParam("body", description="Text")],
                        responses=[text_message("sent")])
    shown = FORMS["Cyrillic look-alikes"]
    turns = [call(strategy, "send_mail", to="a@example.com", body=f"key {shown}"), answer_turn(strategy, "Not sent.")]
    result = run(turns, tools=[vault([text_message("ok")]), mail], strategy=strategy)
    assert_clean_end(result)
    assert [r for r in result.tool_requests if r["tool_name"] == "send_mail"] == []
    assert_no_canary(run, result)
