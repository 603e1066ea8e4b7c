"""Secrets, wave 37, through the real plugin process: "a secret-input value never leaves the tool
call", from angles the earlier waves had not taken. Designed from the issue, the READMEs and
docs/architecture.md, then cut down to what waves 30-36 had not tried.

What is new here:

- where the secret comes from: one value shared by two tools; a value pasted with a zero-width
  character, in full-width letters, decomposed (NFD) or with blank space around it, the tool
  writing it plainly; two hundred tools with a secret each;
- how a tool changes it: case mappings that are not one letter for one (``ß`` upper-cased is
  ``SS``, Greek final sigma, Turkish dotted ``İ``), a typographic ligature (``ﬁ``) as PDF text
  extraction writes it, twenty thousand copies of it;
- what the model does with it: passes it back to the very tool that owns it (in its own field,
  in the secret's field, nested), writes it in a ReAct thought, repeats the key the user typed;
- the user's inputs: a query file named after it, the structured-output JSON schema, a value of a
  form parameter that is no secret (it must reach the model as written), a ``secret-input``
  parameter the model fills (offered, as Dify's own agent offers it: the node holds no value);
- the plugin's own words (issue 13, class 3's last gap): a secret that is a word of the ReAct
  format (``action``, ``answer``, ``Observation``, ``Thought``, ``json``), of the JSON steps, of
  a loop note, of a completion prompt's labels, or a key of the run's usage (``tokens``).

Left out, and why: a tool's provider credentials never reach the plugin (Dify sends a
credential id), so a tool that echoes its credential cannot be helped here; the cases waves 30-36
ran (a secret in memory's tool messages, in the model's reasoning, in tool message fields and
encodings, a regex-shaped or emoji secret) are not repeated.

Every line the plugin wrote since the run began (protocol lines, log nodes, model requests,
stderr) is searched for the secret once its changes are undone (``folded``: escapes, Unicode
compatibility forms, accents, case folded as Unicode folds it, invisible characters); the
backwards tool request carrying a secret to its own tool is the one exception.
"""

from __future__ import annotations

import json
import random
import re
import time
import unicodedata

import pytest

from agent_core import prompts
from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end, observations, plugin_lines, prompt_text
from tests.e2e.test_blind_secrets_wave36 import CANARY, assert_no_canary, call, calls_and_answer, mail, plain, vault

_MARKS = re.compile("[\u0300-\u036f]")


def folded(text: str) -> str:
    """``text`` with a secret's changes undone (``plain``: escapes, compatibility forms,
    invisible characters, case), then its accents dropped and its case folded as Unicode folds
    it (``ß`` and ``SS`` alike, final sigma, dotted ``İ``)."""
    text = unicodedata.normalize("NFKD", plain(text))
    return unicodedata.normalize("NFKC", _MARKS.sub("", text)).casefold()


def assert_never_written(run, result, secrets) -> int:
    """No line the plugin wrote since ``result``'s run began holds any of ``secrets`` once
    ``folded``; the backwards tool requests carrying them to their tools are the one exception.
    Returns the lines checked."""
    cores = [folded(secret) for secret in secrets]
    checked = 0
    for entry, _ in plugin_lines(run.plugin, result):
        line = folded(json.dumps(entry, ensure_ascii=False, default=str))
        for core in cores:
            assert core not in line, f"secret written ({entry['dir']}): {line[:300]}"
        checked += 1
    assert checked > 3
    return checked


def two_rounds(strategy: str, first: dict, second: dict, answer: str = "Done.") -> list[dict]:
    return [first, second, answer_turn(strategy, answer)]


# --- where the secret comes from ------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_one_secret_shared_by_two_tools_is_hidden_in_both_results(run, strategy):
    """Two tools of one provider set to the same key: each result quotes it, in its own case."""
    tools = [vault([text_message(f"vault: auth {CANARY}")]),
             vault([text_message(f"backup: auth {CANARY.lower()}")], name="backup")]
    turns = two_rounds(strategy, call(strategy, "vault"), call(strategy, "backup", call_id="c2"))
    result = run(turns, tools=tools, strategy=strategy)
    assert_clean_end(result)
    assert [r["tool"] for r in result.tool_requests] == ["vault", "backup"]
    assert observations(result.llm_requests[2]) == ["vault: auth [REDACTED]", "backup: auth [REDACTED]"]
    assert_no_canary(run, result)


PASTED = {
    "a zero-width space inside": (CANARY[:6] + "\u200b" + CANARY[6:], CANARY),
    "full-width letters": ("".join(chr(ord(c) + 0xFEE0) for c in CANARY), CANARY),
    "blank space and a Windows line end around it": (f"  {CANARY}\r\n", CANARY),
    "decomposed accents (NFD), written composed": (
        unicodedata.normalize("NFD", "Clé-Kq8Zt2Wv9Xhé"), unicodedata.normalize("NFC", "Clé-Kq8Zt2Wv9Xhé")),
    "a ligature, written as two letters": ("\ufb01ction-Kq8Zt2Wv9X", "fiction-Kq8Zt2Wv9X"),
}
"""A secret as the user pasted it into the node, and as the tool writes it back."""


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("case", list(PASTED))
def test_a_secret_pasted_oddly_is_hidden_where_the_tool_writes_it_plainly(run, strategy, case):
    secret, shown = PASTED[case]
    result = calls_and_answer(run, strategy, [vault([text_message(f"record r1 is open; key {shown}.")], secret=secret)])
    assert_clean_end(result)
    assert observations(result.llm_requests[1]) == ["record r1 is open; key [REDACTED]."]
    assert_never_written(run, result, [shown])


def test_two_hundred_tools_each_with_a_secret_are_all_hidden_in_seconds(run):
    """A node with 200 tools (an MCP server's), each with its own key; one result quotes every
    key, upper-cased, and the model's declarations list every tool."""
    rng = random.Random(37)
    alphabet = "abcdefghijkmnopqrstuvwxyz23456789"
    secrets = ["".join(rng.choice(alphabet) for _ in range(rng.randint(16, 32))) for _ in range(200)]
    dump = "\n".join(f"t{n}: {secret.upper()}" for n, secret in enumerate(secrets))
    tools = [vault([text_message(dump if n == 0 else "ok")], name=f"t{n}", secret=secret)
             for n, secret in enumerate(secrets)]
    started = time.monotonic()
    result = run([call("function_calling", "t0"), {"text": "Done."}], tools=tools)
    elapsed = time.monotonic() - started
    assert_clean_end(result)
    assert len(result.llm_requests[0]["tools"]) == 200
    (seen,) = observations(result.llm_requests[1])
    assert seen.count("[REDACTED]") == 200
    assert elapsed < 30, f"{elapsed:.1f} s"
    assert_never_written(run, result, secrets[:20] + secrets[-20:])


# --- how a tool changes it --------------------------------------------------------------------------

CASE_MAPPED = {
    "sharp s upper-cased to SS": ("Maße-Kq8Zt2Wv9X", "MASSE-KQ8ZT2WV9X"),
    "capital sharp s": ("Maße-Kq8Zt2Wv9X", "MAẞE-KQ8ZT2WV9X"),
    "Greek final sigma upper-cased": ("κλειδιας-Kq8Zt2Wv", "ΚΛΕΙΔΙΑΣ-KQ8ZT2WV"),
    "Turkish dotted capital I": ("istanbul-Kq8Zt2Wv", "İSTANBUL-KQ8ZT2WV"),
    "a ligature in PDF text": ("fiction-Kq8Zt2Wv9X", "\ufb01ction-Kq8Zt2Wv9X"),
}
"""A secret, and the tool's text of it under a case mapping or a typographic form that is not one
character for one."""


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("case", list(CASE_MAPPED))
def test_a_secret_case_mapped_by_the_tool_is_hidden(run, strategy, case):
    secret, shown = CASE_MAPPED[case]
    result = calls_and_answer(run, strategy, [vault([text_message(f"KEY: {shown}; STATUS: OPEN")], secret=secret)])
    assert_clean_end(result)
    assert observations(result.llm_requests[1]) == ["KEY: [REDACTED]; STATUS: OPEN"]
    assert_never_written(run, result, [secret])


def test_twenty_thousand_copies_of_the_secret_are_all_hidden(run):
    body = "".join(f"row {n}: token={CANARY}\n" for n in range(20_000))  # ~0.6 MB
    started = time.monotonic()
    result = calls_and_answer(run, "function_calling", [vault([text_message(body)])])
    elapsed = time.monotonic() - started
    assert_clean_end(result)
    (seen,) = observations(result.llm_requests[1])
    assert "token=[REDACTED]" in seen and "token=C" not in seen
    assert elapsed < 30, f"{elapsed:.1f} s"
    assert_no_canary(run, result)


def test_a_secret_of_regex_characters_hides_itself_only(run):
    """A secret full of regular-expression characters is matched as written: a text the pattern
    would match (``aXbbbcd``) is the tool's own and reaches the model."""
    secret = "a.b*c+d?(e)[f]|^$"
    result = calls_and_answer(run, "function_calling", [vault([text_message(f"aXbbbcdef and {secret}")], secret=secret)])
    assert_clean_end(result)
    assert observations(result.llm_requests[1]) == ["aXbbbcdef and [REDACTED]"]


def test_a_form_parameter_that_is_no_secret_reaches_the_model_as_written(run):
    """Only ``secret-input`` values are hidden: a region set in the node (a text-input form
    parameter) is the tool's ordinary data."""
    tool = ScriptedTool(name="vault", description="Reads the vault",
                        parameters=[ToolParam("q", description="query"),
                                    ToolParam("region", form="form", description="region", required=False),
                                    ToolParam("api_key", type="secret-input", form="form", required=False)],
                        runtime_parameters={"region": "eu-west-Kq8Zt2", "api_key": CANARY},
                        responses=[text_message(f"region eu-west-Kq8Zt2, key {CANARY}")])
    result = calls_and_answer(run, "function_calling", [tool])
    assert_clean_end(result)
    assert observations(result.llm_requests[1]) == ["region eu-west-Kq8Zt2, key [REDACTED]"]
    assert_no_canary(run, result)


# --- what the model does with it --------------------------------------------------------------------

OWN_TOOL_ARGUMENTS = {
    "in the tool's query": {"q": CANARY},
    "in the secret's own field": {"q": "r1", "api_key": CANARY},
    "nested, upper-cased": {"q": "r1", "filter": {"any": [f"key {CANARY.upper()}"]}},
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("where", list(OWN_TOOL_ARGUMENTS))
def test_the_secret_passed_back_to_the_tool_that_owns_it_is_not_sent(run, strategy, where):
    """The model guessed the key and passes it to its own tool: the tool gets its key from the
    node, never from the model (a query field may be logged or forwarded by the tool's service),
    so the call is refused and the model told which argument, never the value."""
    first = call(strategy, "vault", **OWN_TOOL_ARGUMENTS[where])
    result = calls_and_answer(run, strategy, [vault()], first=first)
    assert_clean_end(result)
    assert result.tool_requests == []
    (seen,) = observations(result.llm_requests[1])
    assert "secret" in seen and "[REDACTED]" not in seen
    assert_no_canary(run, result)


def test_the_secret_the_model_writes_in_a_react_thought_reaches_no_line(run):
    """ReAct: the model writes the key it guessed into its next Thought, then calls again; the
    scratchpad replayed to it, the Thought log and the chat hide it."""
    strategy = "ReAct"
    second = {"text": f"Thought: the key must be {CANARY.lower()}, so look again.\nAction:\n```json\n"
                      + json.dumps({"action": "vault", "action_input": {"q": "r2"}}) + "\n```"}
    result = run(two_rounds(strategy, call(strategy), second), tools=[vault([text_message(f"r1 uses {CANARY}")])],
                 strategy=strategy)
    assert_clean_end(result)
    assert "Thought: the key must be [REDACTED], so look again." in prompt_text(result.llm_requests[2])
    assert_no_canary(run, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_key_the_user_typed_is_hidden_when_the_model_repeats_it(run, strategy):
    """The user typed the tool's key into the chat. The model never reads it (it reads
    ``[REDACTED]``: a node's secret is for its tool, not for the model's provider), and an answer
    that repeats it anyway (a guess, a model that kept it from elsewhere) shows ``[REDACTED]``:
    the chat is stored and shown again, so it is no place for the key either."""
    turns = [answer_turn(strategy, f"Your key is {CANARY}.")]
    result = run(turns, query=f"Store my key {CANARY} for later.", tools=[vault()], strategy=strategy)
    assert_clean_end(result)
    assert result.text == "Your key is [REDACTED]."
    assert "Store my key [REDACTED] for later." in prompt_text(result.llm_requests[0])
    assert_no_canary(run, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_key_the_user_typed_passed_to_another_tool_is_not_sent(run, strategy):
    first = call(strategy, "send_mail", to="a@example.com", body=f"the key is {CANARY}")
    result = calls_and_answer(run, strategy, [vault(), mail()], first=first, query=f"Mail my key {CANARY} to Ann.")
    assert_clean_end(result)
    assert result.tool_requests == []
    assert_no_canary(run, result)


# --- the user's inputs ----------------------------------------------------------------------------

VISION = ["tool-call", "multi-tool-call", "stream-tool-call", "agent-thought", "vision", "document"]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_query_file_named_after_the_key_is_withheld_and_the_others_sent(run, strategy):
    files = [{"url": "https://example.com/uploads/cat.png", "mime_type": "image/png", "filename": "cat.png", "size": 10},
             {"url": "https://example.com/uploads/k.png", "mime_type": "image/png", "filename": f"key-{CANARY}.png",
              "size": 10},
             {"url": f"https://example.com/uploads/r.pdf?sig={CANARY}", "mime_type": "application/pdf",
              "filename": "report.pdf", "size": 10}]
    result = run([answer_turn(strategy, "A cat.")], tools=[vault()], strategy=strategy, files=files,
                 model={"features": VISION})
    assert_clean_end(result)
    text = prompt_text(result.llm_requests[0])
    assert "cat.png" in text and "report.pdf" in text  # the PDF is named, its signed address never shown
    assert text.count("not sent: its address or name contains a secret value") >= 1
    assert_no_canary(run, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_key_in_the_answer_json_schema_is_hidden(run, strategy):
    """The node's structured output asks for an answer in a JSON schema whose author pasted the
    key into a description and an enum."""
    schema = {"type": "object", "properties": {"status": {"type": "string", "enum": ["open", CANARY],
                                                          "description": f"auth {CANARY}"}}, "required": ["status"]}
    model = {"completion_params": {"response_format": "json_schema", "json_schema": json.dumps(schema)}}
    result = run([answer_turn(strategy, '{"status": "open"}')], tools=[vault()], strategy=strategy, model=model)
    assert_clean_end(result)
    assert_no_canary(run, result)


# --- the plugin's own words ---------------------------------------------------------------------------


def test_a_secret_that_is_a_json_key_of_the_react_step_leaves_the_scratchpad_readable(run):
    """Secret ``action``: the action replayed in the scratchpad keeps its ``"action"`` key and the
    ``Observation:`` label; the tool's word is hidden."""
    strategy = "ReAct"
    tool = vault([text_message("the next action is ACTION-7")], secret="action")
    result = calls_and_answer(run, strategy, [tool])
    assert_clean_end(result)
    pad = prompt_text(result.llm_requests[1])
    assert '{\\"action\\": \\"vault\\", \\"action_input\\": {\\"q\\": \\"r1\\"}}' in pad
    assert "Observation: the next [REDACTED] is [REDACTED]-7" in pad
    assert "Action:" in pad and "[REDACTED]:" not in pad


def test_a_secret_that_is_the_react_stop_word_leaves_the_format_and_the_stop(run):
    strategy = "ReAct"
    tool = vault([text_message("Observation deck: open")], secret="Observation")
    result = calls_and_answer(run, strategy, [tool])
    assert_clean_end(result)
    assert result.llm_requests[0]["stop"] == ["Observation"]
    assert "Observation: [REDACTED] deck: open" in prompt_text(result.llm_requests[1])
    assert result.text == "Done."


def test_a_completion_model_reads_its_format_whole_when_a_secret_is_one_of_its_words(run):
    tool = vault([text_message("the answer is 42")], secret="answer")
    result = calls_and_answer(run, "ReAct", [tool], model={"mode": "completion", "features": []})
    assert_clean_end(result)
    (message,) = result.llm_requests[1]["prompt_messages"]
    assert "Final Answer: the answer" in message["content"] and message["content"].endswith("Thought:")
    assert "Observation: the [REDACTED] is 42" in message["content"]


def test_json_steps_keep_their_answer_key_when_the_secret_is_answer(run):
    def step(action: str, action_input: dict) -> dict:
        return {"text": json.dumps({"action": action, "action_input": action_input})}

    tool = vault([text_message("the answer is 42")], secret="answer")
    result = run([step("vault", {"q": "r1"}), step("final_answer", {"answer": "42."})], tools=[tool],
                 strategy="ReAct", model={"features": ["structured-output"]}, params={"step_format": "json_schema"})
    assert_clean_end(result)
    assert result.text == "42."
    schema = result.llm_requests[1]["structured_output_schema"]
    assert schema["anyOf"][-1]["properties"]["action_input"]["required"] == ["answer"]
    text = prompt_text(result.llm_requests[1])
    assert '{\\"action\\": \\"final_answer\\", \\"action_input\\": {\\"answer\\": <the answer>}}' in text
    assert "Observation: the [REDACTED] is 42" in text


def test_a_loop_note_keeps_its_words_when_the_secret_is_one_of_them(run):
    """Function Calling at the iteration limit: the note asking for an answer keeps "Do not call
    any more tools." when the key is ``tools``; the result's word is hidden."""
    strategy = "function_calling"
    tool = vault([text_message("all tools are open")], secret="tools")
    result = calls_and_answer(run, strategy, [tool], maximum_iterations=1)
    assert_clean_end(result)
    text = prompt_text(result.llm_requests[1])
    assert prompts.ITERATION_LIMIT_NOTE.format(rounds=prompts.rounds(1)) in json.loads(text)[0]["content"]
    assert "all [REDACTED] are open" in text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_secret_parameter_the_model_fills_is_offered_and_its_value_reaches_the_tool(run, strategy):
    """A ``secret-input`` parameter declared for the model to fill (form ``llm``, no value in the
    node): Dify's own agent offers it as a string (``as_normal_type``), for a value the user gives
    in the chat. It is no secret of the node (the node holds no value of it), so it is offered
    and the value the model passes reaches the tool as written."""
    tool = ScriptedTool(name="vault", description="Reads the vault",
                        parameters=[ToolParam("q", description="query"),
                                    ToolParam("password", type="secret-input", form="llm", description="the password")],
                        responses=[text_message("record r1 is open")])
    first = call(strategy, "vault", q="r1", password="given-in-chat-7")
    result = calls_and_answer(run, strategy, [tool], first=first, query="Open r1, the password is given-in-chat-7.")
    assert_clean_end(result)
    assert [r["tool"] for r in result.tool_requests] == ["vault"]
    assert result.tool_requests[0]["tool_parameters"]["password"] == "given-in-chat-7"


def test_a_previous_runs_call_arguments_in_memory_hide_the_key(run):
    """Dify's memory holds an earlier turn's assistant call whose arguments carried the key (a
    model that passed it then) and the tool's answer quoting it: neither reaches the model."""
    history = [{"role": "user", "content": "Open r1."},
               {"role": "assistant", "content": "", "tool_calls": [
                   {"id": "h1", "type": "function", "function": {"name": "vault", "arguments": json.dumps(
                       {"q": "r1", "token": CANARY})}}]},
               {"role": "tool", "content": f"opened with {CANARY.upper()}", "tool_call_id": "h1", "name": "vault"},
               {"role": "assistant", "content": "Opened."}]
    result = run([{"text": "Done."}], tools=[vault()], history=history)
    assert_clean_end(result)
    assert "opened with [REDACTED]" in prompt_text(result.llm_requests[0])
    assert_no_canary(run, result)


@pytest.mark.parametrize("word", ["Thought", "json", "Final", "tool"])
def test_the_react_format_and_scratchpad_read_whole_when_the_secret_is_one_of_their_words(run, word):
    """ReAct (text steps) with a secret that is a word of its format: the system prompt's format,
    the scratchpad's labels and the closing nudge keep it; the tool's result hides it."""
    tool = vault([text_message(f"{word} 1 is open")], secret=word)
    result = calls_and_answer(run, "ReAct", [tool])
    assert_clean_end(result)
    messages = result.llm_requests[1]["prompt_messages"]
    assert messages[0]["content"].endswith(prompts.REACT_FORMAT.format(names="vault"))
    assert messages[-1]["content"] == prompts.REACT_CONTINUE
    assert messages[-2]["content"].startswith("Thought: use vault.\nAction:\n```json\n{\"action\": \"vault\"")
    assert messages[-2]["content"].endswith("Observation: [REDACTED] 1 is open")


@pytest.mark.parametrize("word", ["tokens", "latency"])
def test_the_runs_usage_keeps_its_keys_when_the_secret_is_one_of_their_words(run, word):
    """The run's ``execution_metadata`` (Dify's usage of the node) is the plugin's own keys and
    numbers: a secret ``tokens`` renamed ``total_tokens`` and Dify lost the run's usage."""
    result = calls_and_answer(run, "function_calling", [vault([text_message(f"{word} 12")], secret=word)])
    assert_clean_end(result)
    metadata = result.execution_metadata
    assert {"total_tokens", "prompt_tokens", "latency", "total_price"} <= set(metadata)
    assert observations(result.llm_requests[1]) == ["[REDACTED] 12"]


def test_a_secret_parameters_default_and_its_node_value_are_both_hidden(run):
    """The node sets the key and the tool declares an older key as the parameter's default: a
    result quoting both (a rotation log) hides both."""
    old = "Olde-9Zt2Wv5Kq8Xh"
    tool = vault([text_message(f"rotated {old} -> {CANARY}")], default=old)
    result = calls_and_answer(run, "function_calling", [tool])
    assert_clean_end(result)
    assert observations(result.llm_requests[1]) == ["rotated [REDACTED] -> [REDACTED]"]
    assert_no_canary(run, result, secrets=(CANARY, old))


def test_a_json_step_answer_repeating_the_users_key_is_hidden_in_the_chat(run):
    def step(action: str, action_input: dict) -> dict:
        return {"text": json.dumps({"action": action, "action_input": action_input}), "split": 4}

    result = run([step("final_answer", {"answer": f"Your key is {CANARY}."})], tools=[vault()], strategy="ReAct",
                 query=f"Remember {CANARY}.", model={"features": ["structured-output"]},
                 params={"step_format": "json_schema"})
    assert_clean_end(result)
    assert result.text == "Your key is [REDACTED]."
    assert_no_canary(run, result)


def test_a_completion_prompt_hides_the_key_in_memory_and_keeps_its_labels(run):
    """A completion model's one text: memory's turns as ``Question:`` / ``Final Answer:`` lines.
    The key in an earlier question is hidden; a second tool's secret ``Question`` leaves the
    labels (the plugin's) and hides the user's word."""
    history = [{"role": "user", "content": f"my key is {CANARY}; Question everything"},
               {"role": "assistant", "content": "Noted."}]
    result = run([{"text": " done.\nFinal Answer: ok"}], tools=[vault(), vault(name="v2", secret="Question")],
                 strategy="ReAct", history=history, model={"mode": "completion", "features": []})
    assert_clean_end(result)
    (message,) = result.llm_requests[0]["prompt_messages"]
    assert "Question: my key is [REDACTED]; [REDACTED] everything\n\nFinal Answer: Noted." in message["content"]
    assert message["content"].endswith("Question: What can you do?\nThought:")
    assert_no_canary(run, result)
