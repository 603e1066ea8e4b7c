"""Secrets, wave 39, through the real plugin process: "a secret-input value never leaves the tool
call", from sideways angles. Written from issue 13, the README and docs/architecture.md before
any earlier test was read, then cut down to what waves 30-38 had not tried.

What is new here, and what was decided for the user:

- the secret is also an ordinary word of the user's query and of the tool's description (a
  dictionary-word password): it is hidden there too. The plugin cannot tell the word from the
  key, and the model provider and whoever reads the workspace's logs must not get the key; the
  model still answers with ``[REDACTED]`` in place of the word;
- the same value is a ``secret-input`` of one tool and a plain form value (or a declared
  default) of another: it reaches the second tool's call, as the user set it, and is hidden
  everywhere else (its CALL log, the declarations the model reads);
- the secret outside ``runtime_parameters``: a ``credentials`` object on the tool entity (from a
  client that sends one), a tool's label, a parameter's placeholder, human description and
  ``input_schema``, the output schema, the icon's address, the provider's name; and entities
  that do not validate in six shapes (parameters or identity a string, a parameter a string, an
  unknown secret type with the value nested...), where no declared secret tells the plugin
  which value is one: the warning never quotes a field;
- a tool's result that writes half the key in a text message and the other half in its error
  (a leak found and fixed: the model, the observation and the CALL log read both halves), and
  the model's streamed text and its error split the same way; and two of a tool's text
  messages with a JSON message or a link between them holding the two halves (a leak found and
  fixed: the line between kept the body's search from seeing the key);
- a secret that is part of another tool's name (``get_forecast`` beside a key ``forecast``), its
  own tool's name, or another tool's parameter name (``location``): decided, the tool stays
  callable. Found and fixed: ReAct's tool list shows the name as ``get_[REDACTED]`` and a call
  so named found no tool; a parameter shown as ``[REDACTED]`` was "missing", and written with
  its real name the call was refused as holding a secret (both strategies). Function Calling
  declares a tool by its name as it is (the one place the word stays: how the model addresses
  the tool);
- the answer at every two-piece cut and in pieces of every size up to the key's length;
- an answer longer than a line's 32 K-character piece with the key at the pieces' edge;
- encodings of a structured value: base64 of a JSON object holding the key (at each of the three
  places of a base64 group), hex upper-cased without separators;
- secrets of one to three characters (``ab``, ``0``, ``{``, ``api``): documented as not hidden,
  and then ordinary text, JSON and the call's arguments must stay as written and the call run;
- a secret that is a JSON literal (``true``) in a tool's JSON output;
- ten tools with two hundred secrets each (two thousand, past the per-search threshold);
- usage: a digit secret equal to a token count (the counts are the plugin's own numbers and stay
  numbers: hiding them would lose the node's usage in Dify, and a count is no copy of the key);
  a currency the model plugin sent holding the key is hidden.

Not tested, decided: a key reversed, or split by markup a renderer removes (a Markdown link
inside the key), are among the documented ways a writer who means to hide a key from a filter
has without end (docs/architecture.md, "Not covered").

Every line the plugin wrote since the run began (protocol lines, log nodes, model requests,
stderr) is searched for the canary with ``assert_no_canary`` of wave 36; the backwards tool
request carrying a value to the tool that needs it is the one exception.
"""

from __future__ import annotations

import base64
import json
import time

import pytest

from local_runner.tools import ScriptedTool, ToolParam, json_message, text_message
from tests.e2e.helpers import (
    STRATEGIES,
    answer_turn,
    assert_clean_run,
    logs_json,
    observations,
    plugin_lines,
    prompt_text,
    tools_ran,
)
from tests.e2e.test_blind_secrets_wave36 import CANARY, assert_no_canary, call, calls_and_answer, plain, vault

# --- the secret is an ordinary word ----------------------------------------------------------------

WORD = "lighthouse"
"""A dictionary-word password, also a word of the user's question and of the tool's description."""


def _lighthouse_tool(responses=()) -> ScriptedTool:
    tool = vault(responses or [text_message("record r1 is open")], secret=WORD)
    tool.description = f"Reads the {WORD} keeper's vault"
    return tool


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_secret_that_is_a_word_of_the_query_and_the_description_is_hidden_and_the_run_goes_on(run, strategy):
    result = run([call(strategy), answer_turn(strategy, "The record r1 is open.")], tools=[_lighthouse_tool()],
                 strategy=strategy, query=f"Is the {WORD} record open?")
    assert_clean_run(result)
    first = prompt_text(result.llm_requests[0]) + json.dumps(result.llm_requests[0].get("tools"))
    assert "Is the [REDACTED] record open?" in first, first[-400:]
    assert WORD not in first.lower()
    assert tools_ran(result) == [("vault", {"q": "r1", "api_key": WORD})]
    assert result.text == "The record r1 is open."
    for entry, _ in plugin_lines(run.plugin, result):  # too short for the base64 pieces' check
        assert WORD not in plain(json.dumps(entry, ensure_ascii=False)), str(entry)[:400]


# --- one value, a secret of one tool and a plain value of another ------------------------------------


def _region_tool(*, runtime=None, default=None) -> ScriptedTool:
    return ScriptedTool(name="region_info", description="Facts about a project",
                        parameters=[ToolParam("topic", description="topic"),
                                    ToolParam("project", form="form" if runtime else "llm", description="project",
                                              required=False, default=default)],
                        runtime_parameters=runtime or {}, responses=[text_message("project is healthy")])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_secret_that_is_another_tools_plain_form_value_reaches_that_tool_and_no_line(run, strategy):
    """The user set the same value as a key of ``vault`` and a plain form field of
    ``region_info``: the second tool gets it, as set; its CALL log and the model do not."""
    first = call(strategy, name="region_info", topic="health")
    result = run([first, answer_turn(strategy, "Healthy.")], tools=[vault(), _region_tool(runtime={"project": CANARY})],
                 strategy=strategy)
    assert_clean_run(result)
    assert tools_ran(result) == [("region_info", {"topic": "health", "project": CANARY})]
    assert observations(result.llm_requests[1]) == ["project is healthy"]
    assert "[REDACTED]" in logs_json(result)
    assert_no_canary(run, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_secret_that_is_another_tools_declared_default_is_not_declared(run, strategy):
    result = run([answer_turn(strategy, "Hello.")], tools=[vault(), _region_tool(default=CANARY)], strategy=strategy)
    assert_clean_run(result)
    assert "region_info" in prompt_text(result.llm_requests[0]) + json.dumps(result.llm_requests[0].get("tools"))
    assert_no_canary(run, result)


# --- the secret outside runtime_parameters ---------------------------------------------------------


class _Dressed(ScriptedTool):
    """A vault whose entity carries the canary in fields outside ``runtime_parameters``."""

    extra: dict | None = None

    def entity(self):
        entity = super().entity()
        for path, value in (self.extra or {}).items():
            target = entity
            *parents, last = path.split(".")
            for part in parents:
                target = target[int(part)] if isinstance(target, list) else target[part]
            target[int(last) if isinstance(target, list) else last] = value
        return entity


DRESSED = {
    "a credentials object on the entity": {"credentials": {"api_key": CANARY, "nested": [{"token": CANARY}]}},
    "the tool's label": {"identity.label": {"en_US": f"Vault {CANARY}", "zh_Hans": CANARY}},
    "a parameter's placeholder and human description": {
        "parameters.0.placeholder": {"en_US": f"e.g. {CANARY}"},
        "parameters.0.human_description": {"en_US": f"use {CANARY}"}},
    "a parameter's input schema": {"parameters.0.input_schema": {"type": "string", "description": f"key {CANARY}"}},
    "the human description of the tool": {"description.human": {"en_US": f"vault with key {CANARY}"}},
    "the tool's output schema": {"output_schema": {"type": "object", "properties": {
        "token": {"type": "string", "description": f"echoes {CANARY}"}}}},
    "the tool's icon address": {"identity.icon": f"https://icons.example.com/vault.svg?key={CANARY}"},
    "the provider's name": {"identity.provider": f"acme/vault-{CANARY}/vault"},
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("case", list(DRESSED))
def test_the_canary_in_an_entity_field_outside_runtime_parameters_reaches_no_line(run, strategy, case):
    tool = _Dressed(name="vault", description="Reads the vault",
                    parameters=[ToolParam("q", description="query"),
                                ToolParam("api_key", type="secret-input", form="form", description="key",
                                          required=False)],
                    runtime_parameters={"api_key": CANARY}, responses=[text_message("record r1 is open")])
    tool.extra = DRESSED[case]
    result = calls_and_answer(run, strategy, [tool])
    assert_clean_run(result)
    assert tools_ran(result) == [("vault", {"q": "r1", "api_key": CANARY})]
    assert_no_canary(run, result)


MALFORMED = {
    "credentials, and a parameter of an unknown type": {"credentials": {"api_key": CANARY},
                                                        "parameters.0.type": "password-v2"},
    "parameters that are a string": {"parameters": f"api_key={CANARY}"},
    "an identity that is a string": {"identity": f"vault {CANARY}"},
    "a parameter that is a string": {"parameters.1": f"secret {CANARY}"},
    "an unknown secret type, the value nested": {"parameters.1.type": "secret-v9",
                                                 "runtime_parameters": {"api_key": {"v": [CANARY]}}},
    "a description that is a string": {"description": f"key {CANARY}", "credentials": [CANARY]},
}
"""Tool entities that do not validate, each holding the canary where no declared secret
parameter tells the plugin it is one."""


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("case", list(MALFORMED))
def test_an_entity_that_does_not_validate_is_not_logged(run, strategy, case):
    """A malformed entity's warning on stderr names the tool and the problem, never its fields."""
    tool = _Dressed(name="vault", description="Reads the vault",
                    parameters=[ToolParam("q", description="query"),
                                ToolParam("api_key", type="secret-input", form="form", description="key")],
                    runtime_parameters={"api_key": CANARY})
    tool.extra = MALFORMED[case]
    result = run([answer_turn(strategy, "Hello.")], tools=[tool, vault(name="backup", secret="Mule-3Hd7Pq1Ys6Rb")],
                 strategy=strategy)
    assert_clean_run(result)
    assert result.text == "Hello."
    assert_no_canary(run, result)


# --- a result that splits the key between its text and its error ----------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("cut", [5, 9, 13])
def test_a_key_split_between_a_tools_text_and_its_error_is_hidden(run, strategy, cut):
    """The tool writes the start of the key in a text message, then fails with an error that
    goes on with the rest: one call's result, read as one text."""
    tool = vault([text_message(f"auth failed for {CANARY[:cut]}")])
    tool.error = f"{CANARY[cut:]} rejected by upstream"
    result = calls_and_answer(run, strategy, [tool])
    assert_clean_run(result)
    (seen,) = observations(result.llm_requests[1])
    assert "rejected by upstream" in seen, seen
    for entry, _ in plugin_lines(run.plugin, result):
        line = json.dumps(entry, ensure_ascii=False)
        assert not (CANARY[:cut] in line and CANARY[cut:] in line), line[:400]


# --- encodings of a structured value ---------------------------------------------------------------

FORMS = {
    **{f"base64 of a JSON object holding it, offset {n}": base64.b64encode(
        json.dumps({"k" * (n + 1): CANARY, "region": "eu"}).encode()).decode() for n in range(3)},
    "hex upper-cased, no separators": CANARY.encode().hex().upper(),
    "base64 of a JSON object holding it, URL-safe alphabet": base64.urlsafe_b64encode(
        json.dumps({"auth": {"user": "svc", "key": CANARY}}).encode()).decode().rstrip("="),
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("form", list(FORMS))
def test_the_canary_a_tool_writes_in_a_structured_encoding_reaches_no_line(run, strategy, form):
    result = calls_and_answer(run, strategy, [vault([text_message(f"config: {FORMS[form]} (end)")])])
    assert_clean_run(result)
    (seen,) = observations(result.llm_requests[1])
    assert seen.startswith("config: ") and seen.endswith(" (end)") and "[REDACTED]" in seen, seen
    assert_no_canary(run, result)


# --- secrets too short to hide ---------------------------------------------------------------------

ORDINARY = 'api: {"ok": 0, "tab": "abc", "list": [10, 20]} about the lab'


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("short", ["ab", "0", "{", "api"])
def test_a_secret_of_under_four_characters_leaves_text_and_calls_as_written(run, strategy, short):
    """Documented: a secret under 4 characters is not hidden (it would garble ordinary text).
    So the tool's output, the call holding it in its arguments and the answer are as written."""
    tool = vault([text_message(ORDINARY), json_message({"ok": 0, "tab": "abc"})], secret=short)
    first = call(strategy, q="tab abc {0} api")
    result = run([first, answer_turn(strategy, ORDINARY)], tools=[tool], strategy=strategy)
    assert_clean_run(result)
    assert [name for name, _ in tools_ran(result)] == ["vault"]
    assert tools_ran(result)[0][1]["q"] == "tab abc {0} api"
    assert ORDINARY in observations(result.llm_requests[1])[0]
    assert result.text == ORDINARY
    written = json.dumps([e["json"] for e, _ in plugin_lines(run.plugin, result) if e.get("json") is not None])
    assert "[REDACTED]" not in written.replace('"api_key": "[REDACTED]"', ""), "short text hidden"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_secret_true_in_a_tools_json_output_keeps_the_run_whole(run, strategy):
    tool = vault([json_message({"ok": True, "flags": [True, False], "note": "true story"})], secret="true")
    result = calls_and_answer(run, strategy, [tool])
    assert_clean_run(result)
    (seen,) = observations(result.llm_requests[1])
    assert "false" in seen and "story" in seen, seen
    for entry, _ in plugin_lines(run.plugin, result):
        if entry["dir"] == "from_plugin" and entry.get("json"):
            assert "true story" not in json.dumps(entry["json"], ensure_ascii=False)


# --- many secrets ----------------------------------------------------------------------------------


def _many_secret_tool(n: int, count: int, responses=()) -> ScriptedTool:
    secrets = {f"key_{k}": f"T{n:02d}k{k:03d}-{(n * 7919 + k * 104729) % 10**8:08d}Qz" for k in range(count)}
    params = [ToolParam("q", description="query")] + [
        ToolParam(name, type="secret-input", form="form", description="key", required=False) for name in secrets]
    return ScriptedTool(name=f"svc_{n}", description=f"Service {n}", parameters=params, runtime_parameters=secrets,
                        responses=list(responses) or [text_message("ok")])


def test_ten_tools_with_two_hundred_secrets_each_are_all_hidden_quickly(run):
    tools = [_many_secret_tool(n, 200) for n in range(10)]
    every = [value for tool in tools for value in tool.runtime_parameters.values()]
    shown = [*every[::37], every[-1]]
    tools[0].responses = [text_message("keys: " + ", ".join(shown) + " (end)")]
    started = time.monotonic()
    result = run([call("function_calling", name="svc_0"), answer_turn("function_calling", "Done.")], tools=tools)
    elapsed = time.monotonic() - started
    assert_clean_run(result)
    (seen,) = observations(result.llm_requests[1])
    assert seen == "keys: " + ", ".join("[REDACTED]" for _ in shown) + " (end)", seen[:300]
    assert elapsed < 20, f"{elapsed:.1f} s"
    for entry, _ in plugin_lines(run.plugin, result):
        line = json.dumps(entry, ensure_ascii=False)
        assert not any(value in line for value in shown), line[:300]


# --- the key at every cut of the streamed answer ---------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_canary_at_every_two_piece_cut_of_the_streamed_answer_is_hidden(run, strategy):
    text = answer_turn(strategy, f"Key: {CANARY} end.")["text"]
    start = text.index("Key:")
    failures = []
    for cut in range(max(1, start - 8), len(text)):
        turn = {"chunks": [{"content": text[:cut]}, {"content": text[cut:]}], "finish_reason": "stop"}
        result = run([turn], tools=[vault()], strategy=strategy)
        assert_clean_run(result)
        if result.text != "Key: [REDACTED] end.":
            failures.append((cut, result.text))
            continue
        assert_no_canary(run, result)
    assert failures == []


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_canary_streamed_in_pieces_of_every_size_is_hidden(run, strategy):
    """Pieces of 1 to 18 characters: every way the key falls across three or more pieces."""
    failures = []
    for size in range(1, len(CANARY) + 2):
        answer = {**answer_turn(strategy, f"Key: {CANARY} end."), "split": size}
        result = run([answer], tools=[vault()], strategy=strategy)
        assert_clean_run(result)
        if result.text != "Key: [REDACTED] end.":
            failures.append((size, result.text))
            continue
        assert_no_canary(run, result)
    assert failures == []


# --- usage and price -------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_digit_secret_equal_to_a_token_count_leaves_the_usage_numbers(run, strategy):
    """The counts are the plugin's own numbers: they stay numbers (Dify reads them into the
    node's usage); the tool's text of the key is hidden."""
    secret = "10500"
    usage = {"prompt_tokens": 10000, "completion_tokens": 500, "total_tokens": 10500}
    first = {**call(strategy), "usage": usage}
    result = run([first, {**answer_turn(strategy, "Done."), "usage": usage}],
                 tools=[vault([text_message(f"pin {secret} ok")], secret=secret)], strategy=strategy)
    assert_clean_run(result)
    assert observations(result.llm_requests[1]) == ["pin [REDACTED] ok"]
    metadata = result.execution_metadata
    assert metadata["total_tokens"] == 21000 and metadata["prompt_tokens"] == 20000, metadata
    assert all(isinstance(metadata[key], (int, float)) for key in ("total_tokens", "prompt_tokens", "latency"))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_currency_holding_the_canary_reaches_no_line(run, strategy):
    """A model plugin's usage names its currency: text the plugin did not write, hidden as any."""
    usage = {"currency": f"USD-{CANARY}"}
    result = run([{**call(strategy), "usage": usage}, {**answer_turn(strategy, "Done."), "usage": usage}],
                 tools=[vault()], strategy=strategy)
    assert_clean_run(result)
    assert result.text == "Done."
    assert isinstance(result.execution_metadata["total_price"], (int, float))
    assert_no_canary(run, result)


# --- the key split between the model's text and its error, or at a 32 KB piece edge -----------------


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("cut", [5, 9, 13])
def test_a_key_split_between_the_models_text_and_its_error_is_hidden(run, strategy, cut):
    """The model plugin streams the start of the key, then fails with an error going on with
    the rest: the chat, the logs and the run's error hold no two halves of it."""
    turn = {"chunks": [{"content": f"The key is {CANARY[:cut]}"}], "error": f"{CANARY[cut:]} was refused"}
    result = run([turn], tools=[vault()], strategy=strategy)
    assert not result.ok
    assert "was refused" in (result.error_text or "") + logs_json(result)
    # the halves in two different lines (the chat's text, the error) are the key all the same
    written = "\n".join(json.dumps(entry, ensure_ascii=False) for entry, _ in plugin_lines(run.plugin, result))
    assert not (CANARY[:cut] in written and CANARY[cut:] in written), written[-800:]
    assert result.text == "The key is [REDACTED]", result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("offset", [-9, -1, 0, 3])
def test_the_canary_at_the_edge_of_a_long_answers_line_pieces_is_hidden(run, strategy, offset):
    """An answer longer than a line's piece (32 K characters), sent in one chunk: the plugin
    cuts it into pieces after hiding the key, so no piece holds a part of it."""
    at = 32 * 1024 + offset - (len("Final Answer: ") if strategy == "ReAct" else 0)
    text = "x" * at + CANARY + " tail"
    result = run([answer_turn(strategy, text)], tools=[vault()], strategy=strategy)
    assert_clean_run(result)
    assert result.text.endswith("[REDACTED] tail"), result.text[-60:]
    for entry, _ in plugin_lines(run.plugin, result):
        line = json.dumps(entry, ensure_ascii=False)
        assert CANARY[:5] not in line and CANARY[-5:] not in line, line[-400:]


# --- a secret inside another tool's name -----------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("called", ["get_forecast", "get_[REDACTED]"])
def test_a_secret_that_is_part_of_another_tools_name_leaves_that_tool_callable(run, strategy, called):
    """A weak key ``forecast`` of one tool; another tool is ``get_forecast``. Decided: the tool
    stays usable. Function Calling declares it by its name (how the model addresses it, in the
    characters providers accept for a function name), ReAct's tool list shows it as
    ``get_[REDACTED]`` (documented: the list is redacted text); a call by either name runs it.
    Its description and everything else hide the word."""
    other = ScriptedTool(name="get_forecast", description="Weather forecast",
                         parameters=[ToolParam("city", description="city")], responses=[text_message("sunny")])
    turns = [call(strategy, name=called, city="Paris"), answer_turn(strategy, "Probably sunny.")]
    result = run(turns, tools=[vault(secret="forecast"), other], strategy=strategy)
    assert_clean_run(result)
    assert tools_ran(result) == [("get_forecast", {"city": "Paris"})]
    assert observations(result.llm_requests[1]) == ["sunny"]
    assert result.text == "Probably sunny."
    for entry, _ in plugin_lines(run.plugin, result):
        line = json.dumps(entry, ensure_ascii=False).replace('"name": "get_forecast"', "")  # the FC declaration
        assert "forecast" not in line.lower(), line[:400]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("called", ["vault", "[REDACTED]"])
def test_a_secret_that_is_its_own_tools_name_leaves_the_tool_callable(run, strategy, called):
    """Key ``vault`` of the tool ``vault``: ReAct's list shows the tool as ``[REDACTED]``."""
    result = calls_and_answer(run, strategy, [vault(secret="vault")], first=call(strategy, name=called))
    assert_clean_run(result)
    assert tools_ran(result) == [("vault", {"q": "r1", "api_key": "vault"})]
    assert observations(result.llm_requests[1]) == ["record r1 is open"]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("written", ["location", "[REDACTED]"])
def test_a_secret_that_is_another_tools_parameter_name_leaves_that_tool_callable(run, strategy, written):
    """Key ``location`` of one tool; the weather tool's parameter is ``location``. Its name is
    hidden in the declarations (the model reads ``[REDACTED]``); a call that writes the name
    as shown, or as the tool declares it, runs with the value where the tool reads it."""
    weather = ScriptedTool(name="get_weather", description="Weather for a place",
                           parameters=[ToolParam("location", description="where")], responses=[text_message("sunny")])
    first = call(strategy, name="get_weather", **{written: "Paris"})
    result = calls_and_answer(run, strategy, [vault(secret="location"), weather], first=first)
    assert_clean_run(result)
    assert tools_ran(result) == [("get_weather", {"location": "Paris"})]
    assert observations(result.llm_requests[1]) == ["sunny"]
    for request in result.llm_requests:
        assert "location" not in (prompt_text(request) + json.dumps(request.get("tools"))).lower()


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("between", ["a JSON message", "a link"])
def test_a_key_split_between_two_text_messages_with_an_item_between_reaches_no_line(run, strategy, between):
    """One result's texts are one text: the JSON or the link line between the halves does not
    make them two."""
    middle = (json_message({"rows": 3}) if between == "a JSON message"
              else {"type": "link", "message": {"text": "https://docs.example.com/auth"}, "meta": None})
    tool = vault([text_message(f"key {CANARY[:8]}"), middle, text_message(f"{CANARY[8:]} accepted")])
    result = calls_and_answer(run, strategy, [tool])
    assert_clean_run(result)
    (seen,) = observations(result.llm_requests[1])
    assert seen.startswith("key [REDACTED]") and seen.endswith("[REDACTED] accepted"), seen
    for entry, _ in plugin_lines(run.plugin, result):
        line = json.dumps(entry, ensure_ascii=False)
        assert CANARY[:8] not in line and CANARY[8:] not in line, line[:400]
