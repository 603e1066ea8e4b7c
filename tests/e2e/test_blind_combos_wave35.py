"""Blind combinations, wave 35 (issue 13), through the real plugin process.

Each behaviour the project gained in wave 35 (read off its commit messages, not its tests) crossed
with the classes of issue 13, as an independent harness would: a secret (as written, escaped a
character at a time, URL-encoded, at a cut edge, split over chunks), a line over the daemon's
5 MiB limit, a neighbour session that must keep streaming, a reply cut by the output limit, and
the run's deadline. The behaviours:

* memory redacted before it is trimmed, and a memory file part whose address or name holds a
  secret withheld;
* a cut answer's continuation joined (the cut word written again dropped, one space between
  words), a cut LangChain JSON blob and a cut schema answer continued;
* the content of a template-opened reasoning block held after ``reasoning_content`` for its bare
  ``</think>`` (``think.APART_HOLD``);
* Function Calling reading ReAct steps written with Chinese labels;
* call forms read from text: Hermes Agent's call line, Gemma's ``call:{json}``, Inkling's call
  message, HyperCLOVAX's ``-> tool/function_call`` list, GLM's ``<tool_call>NAME>{json}``;
* a ReAct action input written as a Python literal, and an almost-JSON input holding long strings
  (set aside while the rest is repaired);
* many secrets hidden at once (the text's 8-character blocks), and secrets of one repeated
  character;
* a usage whose token counts are below zero.

Every run is checked with wave 34's ``check``: the plugin alive and every line it wrote within the
limit, no log left in ``start``, no traceback, the canary in no line (escapes undone) nor in the
chat read whole.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.parse

import pytest

from agent_core import prompts
from local_runner.daemon import DEFAULT_PLUGIN_DIR
from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.conftest import ScriptedRun
from tests.e2e.helpers import STRATEGIES, answer_turn, observations, own_plugin, plugin_lines, prompt_text
from tests.e2e.pace import assert_not_held
from tests.e2e.test_blind_combos_wave34 import assert_no_line_holds, check, cut, final, hangs_after
from tests.e2e.test_red_team_wave30 import assert_survived, worst_gap
from tests.e2e.test_red_team_wave31 import CANARY, CORE, _neighbour, call, vault
from tests.e2e.test_secret_channels_wave30 import plain

MB = 1024 * 1024
RUN_TIMEOUT = 8

plugin = own_plugin()


def per_char(secret: str, form: str) -> str:
    """``secret`` escaped a character at a time: HTML decimal, JSON ``\\u`` or URL ``%XX``."""
    if form == "html":
        return "".join(f"&#{ord(c)};" for c in secret)
    if form == "json":
        return "".join(f"\\u{ord(c):04x}" for c in secret)
    return "".join(f"%{ord(c):02X}" for c in secret)


def with_neighbour(plugin, heavy):
    """``heavy()`` while a light session streams 300 characters beside it; both results."""
    results: dict = {}
    thread = threading.Thread(target=_neighbour, args=(plugin, results))
    thread.start()
    time.sleep(0.3)
    results["heavy"] = heavy()
    thread.join()
    assert_survived(plugin, results["light"])
    assert results["light"].text == "w " * 300
    return results


def too_large(plugin, result) -> None:
    """A model reply of 6 MB goes back to the model whole within the run (never cut), so the next
    request cannot fit the daemon's line: the run ends with an error that says so, in lines that fit."""
    check(plugin, result, answer=False)
    assert not result.ok
    assert "more than the plugin daemon accepts in one line" in result.error_text


# --- 1. memory redacted before trimming; memory files withheld -----------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_memory_key_escaped_per_character_at_the_trim_edge_is_hidden(run, plugin, strategy):
    """A memory tool result of megabytes, the key escaped a character at a time all through it, is
    trimmed for a small window: no run of the key's characters reaches the model."""
    body = "".join(f"row {n} {per_char(CANARY, 'html')} " for n in range(6_000))
    history = [{"role": "user", "content": "look it up"},
               {"role": "assistant", "content": "", "tool_calls": [
                   {"id": "h1", "type": "function", "function": {"name": "vault", "arguments": '{"q": "k"}'}}]},
               {"role": "tool", "content": body, "tool_call_id": "h1", "name": "vault"},
               {"role": "assistant", "content": "Found it."}]
    result = run([answer_turn(strategy, "Done.")], tools=[vault([text_message("v")])], history=history,
                 strategy=strategy, model={"context_size": 12_000}, timeout=60)
    check(plugin, result)
    sent = plain(prompt_text(result.llm_requests[0]))
    assert not any(CORE[i:i + 6] in sent for i in range(len(CORE) - 5)), "a piece of the key reached the model"


def test_memory_file_named_with_the_url_encoded_key_is_withheld_beside_a_neighbour(run, plugin):
    """A memory document named with the key URL-encoded, and a memory message of 6 MB: the name never
    reaches the model, the request fits the line, and a neighbour keeps streaming."""
    history = [{"role": "user", "content": [
        {"type": "text", "data": "see this " + "m" * 6 * MB},
        {"type": "document", "data": "", "url": "https://example.com/r.pdf", "format": "pdf",
         "mime_type": "application/pdf", "base64_data": "",
         "filename": f"report-{urllib.parse.quote(CANARY).replace('-', '%2D')}.pdf"}]},
        {"role": "assistant", "content": "Seen."}]
    heavy = ScriptedRun(plugin)
    results = with_neighbour(plugin, lambda: heavy(
        [{"text": "Done."}], tools=[vault([text_message("v")])], history=history,
        model={"features": ["tool-call", "document"], "context_size": 4_000_000}, timeout=90))
    check(plugin, results["heavy"])
    assert results["heavy"].text == "Done."
    assert "%2D9c4e" not in prompt_text(results["heavy"].llm_requests[0])
    assert_not_held(worst_gap(results["light"]), 1.0, results["pace"])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_memory_key_split_over_two_text_parts_at_the_deadline(run, plugin, strategy):
    """The key split over two text parts of one memory message; the model then stalls: the run
    ends before its deadline, and neither half of the key was written."""
    history = [{"role": "user", "content": [{"type": "text", "data": f"my key is {CANARY[:9]}"},
                                            {"type": "text", "data": f"{CANARY[9:]} remember it"}]},
               {"role": "assistant", "content": "Noted."}]
    started = time.monotonic()
    result = run([hangs_after(final(strategy, "Let me think"))], tools=[vault([text_message("v")])],
                 history=history, strategy=strategy, params={"run_timeout": RUN_TIMEOUT, "model_timeout": 900},
                 timeout=60)
    assert time.monotonic() - started < RUN_TIMEOUT + 1
    check(plugin, result, answer=False)
    sent = plain(prompt_text(result.llm_requests[0]))
    assert CANARY[:9] + CANARY[9:] not in sent and "rt31-9c4e" not in sent


# --- 2. a continuation's join --------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("at", [6, 11])
def test_a_rest_that_writes_the_cut_key_again_is_hidden(run, plugin, strategy, at):
    """The answer is cut inside the key; the rest writes the whole key again from its start. Before,
    the held start was written beside ``[REDACTED]`` ("rt31-9c4e7b [REDACTED]": 11 of its 17
    characters): a secret found later in the piece made the hold skip the start it left."""
    turns = [call(strategy, "vault", q="x"), cut(strategy, f"The key is {CANARY[:at]}"),
             {"text": f"{CANARY} and it works."}]
    result = run(turns, tools=[vault([text_message(f"key={CANARY}")])], strategy=strategy)
    check(plugin, result)
    assert result.text.endswith(" and it works."), result.text
    if at >= 8:  # a shorter start may be ordinary text (outbound.HELD_MASK_CHARS)
        assert CANARY[:at] not in result.text
        assert_no_line_holds(plugin, result, CANARY[:at])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_rest_without_its_space_streamed_a_character_a_chunk_with_the_key(run, plugin, strategy):
    """The rest comes without its leading space, a character a chunk, and holds the key: one space
    is put back between the words and the key is hidden."""
    turns = [call(strategy, "vault", q="x"), cut(strategy, "The vault says"),
             {"text": f"key is {CANARY} today.", "split": 1}]
    result = run(turns, tools=[vault([text_message(f"key={CANARY}")])], strategy=strategy)
    check(plugin, result)
    assert result.text.startswith("The vault says key is ")
    assert result.text.endswith(" today.")


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_rest_of_six_megabytes_joined_to_a_cut_word_fits_the_lines(run, plugin, strategy):
    turns = [cut(strategy, "The list: alph"), {"text": "alpha " + "beta " * (6 * MB // 5) + "end."}]
    result = run(turns, strategy=strategy, timeout=120)
    check(plugin, result)
    assert result.text.startswith("The list: alpha beta beta")
    assert result.text.endswith("end.")
    assert "alphalpha" not in result.text[:40]


def test_a_cut_langchain_blob_whose_rest_holds_the_key_per_character(run, plugin):
    head = 'Thought: I know it.\nAction:\n```json\n{"action": "Final Answer", "action_input": "The key is'
    rest = {"text": f' {per_char(CANARY, "json")} as stored."}}\n```', "split": 5}
    result = run([call("ReAct", "vault", q="x"), {"text": head, "finish_reason": "length"}, rest],
                 tools=[vault([text_message(f"key={CANARY}")])], strategy="ReAct")
    check(plugin, result)
    assert result.text.startswith("The key is ")
    assert result.text.endswith(" as stored.")
    assert "```" not in result.text and '"}' not in result.text



@pytest.mark.parametrize("at", [4, 10])
def test_a_cut_langchain_blob_split_inside_the_key(run, plugin, at):
    head = ('Thought: I know it.\nAction:\n```json\n{"action": "Final Answer", "action_input": "The key is '
            + CANARY[:at])
    rest = {"text": f'{CANARY[at:]} as stored."}}\n```', "split": 3}
    result = run([call("ReAct", "vault", q="x"), {"text": head, "finish_reason": "length"}, rest],
                 tools=[vault([text_message(f"key={CANARY}")])], strategy="ReAct")
    check(plugin, result)
    assert result.text.endswith(" as stored.")
    assert CANARY[at:] not in result.text and CANARY[:at] not in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_rest_that_restarts_the_cut_word_inside_the_key(run, plugin, strategy):
    """Cut after 'rt31-9c4e7b0a'; the rest writes the cut word '9c4e7b0a' again and finishes the key:
    the word written again is dropped, and the key, whole across the cut, is hidden."""
    turns = [call(strategy, "vault", q="x"), cut(strategy, f"Key {CANARY[:13]}"),
             {"text": f"{CANARY[5:]} is it.", "split": 2}]
    result = run(turns, tools=[vault([text_message(f"key={CANARY}")])], strategy=strategy)
    check(plugin, result)
    assert result.text.endswith(" is it.")
    assert "2d61" not in result.text and "9c4e7b0a" not in result.text

SCHEMA = {"type": "object", "properties": {"note": {"type": "string"}}, "required": ["note"]}
USER_SCHEMA = {"completion_params": {"response_format": "json_schema",
                                     "json_schema": json.dumps({"name": "note", "schema": SCHEMA})},
               "features": []}


def test_a_cut_schema_answer_split_inside_the_key_is_hidden_when_joined(run, plugin):
    """Before, the cut answer was joined as replayed (its edge hidden: "key [REDACTED]") and the
    rest of the key after the marker reached the user ("[REDACTED]e7b0a2d61")."""
    turns = [call("ReAct", "vault", q="x"),
             {"text": f'Thought: I know it.\nFinal Answer: {{"note": "key {CANARY[:8]}', "finish_reason": "length"},
             {"text": f'{CANARY[8:]} ok"}}'}]
    result = run(turns, tools=[vault([text_message(f"key={CANARY}")])], strategy="ReAct", model=USER_SCHEMA)
    check(plugin, result)
    assert json.loads(result.text) == {"note": "key [REDACTED] ok"}



@pytest.mark.parametrize("form", ["json", "html"])
def test_a_cut_schema_answer_split_inside_a_per_character_escaped_key(run, plugin, form):
    escaped = per_char(CANARY, form).replace("\\", "\\\\") if form == "json" else per_char(CANARY, form)
    at = len(escaped) // 2
    turns = [call("ReAct", "vault", q="x"),
             {"text": f'Thought: I know it.\nFinal Answer: {{"note": "key {escaped[:at]}', "finish_reason": "length"},
             {"text": f'{escaped[at:]} ok"}}', "split": 2}]
    result = run(turns, tools=[vault([text_message(f"key={CANARY}")])], strategy="ReAct", model=USER_SCHEMA)
    check(plugin, result)
    note = json.loads(result.text)["note"]
    assert note.startswith("key ") and note.endswith(" ok")

def test_the_deadline_while_a_cut_schema_answer_is_continued_shows_no_part_as_json(run, plugin):
    turns = [{"text": 'Thought: I know it.\nFinal Answer: {"note": "the first hal', "finish_reason": "length"},
             hangs_after('f and')]
    started = time.monotonic()
    result = run(turns, tools=[vault([text_message("v")])], strategy="ReAct", model=USER_SCHEMA,
                 params={"run_timeout": RUN_TIMEOUT, "model_timeout": 900}, timeout=60)
    assert time.monotonic() - started < RUN_TIMEOUT + 1
    check(plugin, result, answer=False)
    if result.ok:
        with pytest.raises(ValueError):
            json.loads(result.text)


# --- 3. reasoning apart, then a template-opened block's rest held -----------------------------------------

R1 = {"model": "deepseek-r1-distill-qwen-32b", "provider": "langgenius/openai_api_compatible/openai_api_compatible"}


def apart_turn(content: str, *, split: int | None = None, finish: str = "stop", reasoning: str = "Let me see.") -> dict:
    pieces = [content[i:i + split] for i in range(0, len(content), split)] if split else [content]
    chunks = [{"message": {"content": "", "reasoning_content": reasoning}}]
    chunks += [{"content": piece} for piece in pieces]
    chunks.append({"content": "", "finish_reason": finish})
    return {"chunks": chunks}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("form", ["plain", "html"])
def test_the_key_in_a_held_reasoning_tail_is_never_written(run, plugin, strategy, form):
    echo = CANARY if form == "plain" else per_char(CANARY, "html")
    tail = f"The tool gave {echo}, so I answer.\n</think>\n\n"
    turns = [call(strategy, "vault", q="x"), apart_turn(tail + final(strategy, "It is stored."), split=3)]
    result = run(turns, tools=[vault([text_message(f"key={CANARY}")])], strategy=strategy, model=R1)
    check(plugin, result)
    assert result.text == "It is stored."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_held_reasoning_tail_cut_at_the_key_is_asked_again(run, plugin, strategy):
    turns = [call(strategy, "vault", q="x"), apart_turn(f"The tool gave {CANARY[:10]}", split=2, finish="length"),
             apart_turn("ok.\n</think>\n\n" + final(strategy, "It is stored."))]
    result = run(turns, tools=[vault([text_message(f"key={CANARY}")])], strategy=strategy, model=R1)
    check(plugin, result)
    assert result.text == "It is stored."
    assert prompts.REPLY_CUT in prompt_text(result.llm_requests[2])
    assert_no_line_holds(plugin, result, CANARY[:10])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_content_of_six_megabytes_after_reasoning_apart_fits_the_lines_beside_a_neighbour(plugin, strategy):
    heavy = ScriptedRun(plugin)
    body = "word " * (6 * MB // 5)
    results = with_neighbour(plugin, lambda: heavy([apart_turn(final(strategy, body), split=64 * 1024)],
                                                   strategy=strategy, model=R1, timeout=120))
    check(plugin, results["heavy"])
    assert results["heavy"].text.strip() == body.strip()
    assert_not_held(worst_gap(results["light"]), 1.0, results["pace"])


# --- 4. Function Calling reads ReAct steps with Chinese labels -----------------------------------------


def test_a_chinese_react_step_whose_observation_holds_the_key(run, plugin):
    turns = [{"text": '思考：查一下。\n行动：vault\n行动输入：{"q": "x"}', "split": 2},
             {"text": f"思考：好了。\n最终答案：密钥是 {urllib.parse.quote(CANARY)}。", "split": 3}]
    result = run(turns, tools=[vault([text_message(f"key={CANARY}")])])
    check(plugin, result)
    assert [r["tool_parameters"]["q"] for r in result.tool_requests] == ["x"]
    assert result.text.startswith("密钥是 ")
    assert "最终答案" not in result.text


def test_a_chinese_react_step_cut_inside_its_input_is_not_run(run, plugin):
    turns = [{"text": f'思考：查一下。\n行动：vault\n行动输入：{{"q": "{CANARY[:9]}', "finish_reason": "length"},
             call("function_calling", "vault", "c2", q="y"), {"text": "Done."}]
    result = run(turns, tools=[vault([text_message("ok")])])
    check(plugin, result)
    assert [r["tool_parameters"]["q"] for r in result.tool_requests] == ["y"]
    assert result.text == "Done."


def test_a_chinese_final_step_of_six_megabytes_fits_the_lines(run, plugin):
    body = "字" * (6 * MB // 3)
    result = run([{"text": f"思考：好了。\n最终答案：{body}"}], timeout=120)
    check(plugin, result)
    assert result.text == body


# --- 5. call forms written as text ------------------------------------------------------------------------

INK_JSON, INK_END = "<|content_invoke_tool_json|>", "<|end_message|>"
FORMS = {
    "hermes": lambda args: f"[Calling tool: vault with arguments: {args}]",
    "gemma": lambda args: f'<|tool_call>call:{{"name": "vault", "arguments": {args}}}<tool_call|>',
    "inkling": lambda args: f'vault{INK_JSON}{{"name":"vault","args":{args}}}{INK_END}',
    "hyperclovax": lambda args: f' -> tool/function_call\n[{{"name": "vault", "arguments": {args}}}]<|im_end|>',
    "glm": lambda args: f"<tool_call>vault>{args}</tool_call>",
}


@pytest.mark.parametrize("form", list(FORMS))
def test_a_call_form_cut_inside_its_arguments_is_not_run_nor_shown(run, plugin, form):
    whole = FORMS[form]('{"q": "' + CANARY + '"}')
    reply = whole[: whole.index(CANARY) + 9]  # the limit cut inside the key
    turns = [{"text": reply, "split": 4, "finish_reason": "length"}, call("function_calling", "vault", "c2", q="y"),
             {"text": "Done."}]
    result = run(turns, tools=[vault([text_message("ok")])])
    check(plugin, result)
    assert [r["tool_parameters"]["q"] for r in result.tool_requests] == ["y"]
    assert result.text == "Done."
    assert_no_line_holds(plugin, result, CANARY[:9])


@pytest.mark.parametrize("form", list(FORMS))
def test_a_call_form_runs_and_its_result_key_is_hidden_in_the_answer(run, plugin, form):
    turns = [{"text": FORMS[form]('{"q": "x"}'), "split": 1},
             {"text": f"The key is {per_char(CANARY, 'url')}.", "split": 2}]
    result = run(turns, tools=[vault([text_message(f"key={CANARY}")])])
    check(plugin, result)
    assert [r["tool_parameters"]["q"] for r in result.tool_requests] == ["x"]
    assert result.text.startswith("The key is ")


@pytest.mark.parametrize("form", ["hermes", "gemma", "glm"])
def test_a_call_form_with_six_megabytes_of_arguments_ends_clearly(run, plugin, form):
    args = json.dumps({"q": "a" * 6 * MB})
    result = run([{"text": FORMS[form](args)}, {"text": "Done."}], tools=[vault([text_message("ok")])], timeout=120)
    too_large(plugin, result)


# --- 6. Python-literal and almost-JSON action inputs ------------------------------------------------------


def react(tool: str, action_input: str) -> str:
    return f"Thought: go.\nAction: {tool}\nAction Input: {action_input}"


def test_a_python_literal_input_echoing_the_key_is_refused_and_the_log_hides_it(run, plugin):
    """A secret is never passed in a call's arguments (README): read as a Python literal or not."""
    turns = [{"text": react("vault", f"{{'q': '{CANARY}\\n'}}"), "split": 3}, answer_turn("ReAct", "Done.")]
    result = run(turns, tools=[vault([text_message("ok")])], strategy="ReAct")
    check(plugin, result)
    assert result.tool_requests == []
    assert "holds the value of a secret" in prompt_text(result.llm_requests[1])


def test_a_python_literal_input_runs_beside_a_result_holding_the_key(run, plugin):
    turns = [{"text": react("vault", "{'q': 'line\\n'}"), "split": 3},
             {"text": final("ReAct", f"It said {per_char(CANARY, 'html')}."), "split": 2}]
    result = run(turns, tools=[vault([text_message(f"key={CANARY}")])], strategy="ReAct")
    check(plugin, result)
    assert [r["tool_parameters"]["q"] for r in result.tool_requests] == ["line\n"]


def test_a_python_literal_input_cut_by_the_limit_is_not_run(run, plugin):
    turns = [{"text": react("vault", "{'q': 'a\\nb"), "finish_reason": "length"},
             {"text": react("vault", "{'q': 'c\\n'}")}, answer_turn("ReAct", "Done.")]
    result = run(turns, tools=[vault([text_message("ok")])], strategy="ReAct")
    check(plugin, result)
    assert [r["tool_parameters"]["q"] for r in result.tool_requests] == ["c\n"]


def test_a_python_literal_input_of_six_megabytes_ends_clearly_beside_a_neighbour(plugin):
    heavy = ScriptedRun(plugin)
    turns = [{"text": react("vault", "{'q': '" + "a\\n" * (2 * MB) + "'}")}, answer_turn("ReAct", "Done.")]
    results = with_neighbour(plugin, lambda: heavy(turns, tools=[vault([text_message("ok")])], strategy="ReAct",
                                                   timeout=120))
    too_large(plugin, results["heavy"])
    assert_not_held(worst_gap(results["light"]), 1.0, results["pace"])


@pytest.mark.parametrize("with_key", [False, True], ids=["plain", "key-inside"])
def test_an_almost_json_input_with_a_long_string(run, plugin, with_key):
    """A string of 600,000 characters beside a trailing comma: run whole; holding the key, refused."""
    long = "x" * 300_000 + (CANARY if with_key else "") + "y" * 300_000
    turns = [{"text": react("vault", f'{{"q": "{long}",}}'), "split": 50_000}, answer_turn("ReAct", "Done.")]
    result = run(turns, tools=[vault([text_message("ok")])], strategy="ReAct", timeout=60)
    check(plugin, result)
    assert [r["tool_parameters"]["q"] for r in result.tool_requests] == ([] if with_key else [long])


def test_an_almost_json_input_with_a_six_megabyte_string_ends_clearly_beside_a_neighbour(plugin):
    heavy = ScriptedRun(plugin)
    long = "z" * 6 * MB
    turns = [{"text": react("vault", f"{{'q': \"{long}\", 'n': 1,}}")}, answer_turn("ReAct", "Done.")]
    results = with_neighbour(plugin, lambda: heavy(turns, tools=[vault([text_message("ok")])], strategy="ReAct",
                                                   timeout=120))
    too_large(plugin, results["heavy"])
    assert_not_held(worst_gap(results["light"]), 1.0, results["pace"])


def test_an_almost_json_input_cut_inside_a_long_string_is_not_run(run, plugin):
    turns = [{"text": react("vault", '{"q": "' + "x" * 200_000), "finish_reason": "length"},
             {"text": react("vault", '{"q": "y"}')}, answer_turn("ReAct", "Done.")]
    result = run(turns, tools=[vault([text_message("ok")])], strategy="ReAct")
    check(plugin, result)
    assert [r["tool_parameters"]["q"] for r in result.tool_requests] == ["y"]


# --- 7. many secrets at once; secrets of one repeated character -------------------------------------------


def many_secrets_tool(secrets: list[str]) -> ScriptedTool:
    params = [ToolParam("q", description="query")] + [
        ToolParam(f"k{n}", type="secret-input", form="form", description="key") for n in range(len(secrets))]
    return ScriptedTool(name="vault", description="Reads the vault", parameters=params,
                        runtime_parameters={f"k{n}": s for n, s in enumerate(secrets)},
                        responses=[text_message("all: " + " ".join(secrets))])


SECRETS = [CANARY] + [f"sk-w35{n:02d}{n * 7919 % 100000:05d}abcdef" for n in range(1, 30)]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_thirty_secrets_echoed_in_three_forms_a_few_characters_a_chunk(run, plugin, strategy):
    echo = " ".join(s if n % 3 == 0 else per_char(s, "html") if n % 3 == 1 else urllib.parse.quote(s)
                    for n, s in enumerate(SECRETS))
    turns = [call(strategy, "vault", q="x"), {"text": final(strategy, f"Keys: {echo} end."), "split": 7}]
    result = run(turns, tools=[many_secrets_tool(SECRETS)], strategy=strategy)
    check(plugin, result)
    shown = plain(result.text)
    assert not [s for s in SECRETS if s in shown]
    assert result.text.endswith(" end.")
    told = "\n".join(observations(result.llm_requests[1]))
    assert not [s for s in SECRETS if s in told]


def test_thirty_secrets_each_cut_at_the_edge_of_a_cut_answer(run, plugin):
    turns = [call("function_calling", "vault", q="x"), cut("function_calling", f"First: {SECRETS[5][:12]}"),
             {"text": f"{SECRETS[5][12:]} and {SECRETS[6]} done."}]
    result = run(turns, tools=[many_secrets_tool(SECRETS)])
    check(plugin, result)
    assert SECRETS[5][:12] not in result.text and SECRETS[6] not in result.text
    assert result.text.endswith(" done.")


@pytest.mark.parametrize("secret", ["aaaaaaaaaaaaaaaa", "abababababababab", "zzzzzzzz"])
def test_a_secret_of_one_repeated_pattern_after_a_false_start(run, plugin, secret):
    tool = vault([text_message(f"key={secret}")], secret=secret)
    turns = [call("function_calling", "vault", q="x"),
             {"text": f"Key: {secret[:5]}-{secret[:3]}{secret}{secret[-1]} end", "split": 1}]
    result = run(turns, tools=[tool])
    check(plugin, result)
    assert secret not in result.text
    assert result.text.endswith(" end")


# --- 8. the per-character escaped secret held over a cut -------------------------------------------------


@pytest.mark.parametrize("form", ["html", "json", "url"])
def test_a_per_character_escaped_key_split_by_the_cut_and_streamed_a_character_a_chunk(run, plugin, form):
    escaped = per_char(CANARY, form)
    at = len(escaped) // 2 + 1  # inside an escape
    turns = [call("function_calling", "vault", q="x"),
             {"text": f"Key: {escaped[:at]}", "split": 1, "finish_reason": "length"},
             {"text": f"{escaped[at:]} end", "split": 1}]
    result = run(turns, tools=[vault([text_message(f"key={CANARY}")])])
    check(plugin, result)
    assert result.text.endswith(" end")


# --- 9. a usage whose token counts are below zero ---------------------------------------------------------


NEGATIVE = {"prompt_tokens": -10, "completion_tokens": -5, "total_tokens": -15}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_cut_reply_with_negative_usage_is_still_continued(run, plugin, strategy):
    turns = [{**cut(strategy, "Part one"), "usage": NEGATIVE}, {"text": " and two.", "usage": NEGATIVE}]
    result = run(turns, strategy=strategy)
    check(plugin, result)
    assert result.text == "Part one and two."
    metadata = result.execution_metadata or {}
    assert all(metadata.get(f, 0) >= 0 for f in NEGATIVE), metadata


def test_negative_usage_on_a_limit_azure_reports_only_by_usage_does_not_cut_the_call(run, plugin):
    """A plugin that says ``stop`` at its limit is read by usage; a usage of -5 tokens is unreadable,
    never 'at the limit' nor past it: the call runs."""
    model = {"provider": "langgenius/azure_openai/azure_openai", "model": "gpt-4o",
             "completion_params": {"max_tokens": 64}}
    turns = [{"tool_calls": [{"id": "c1", "name": "vault", "arguments": {"q": "x"}}], "usage": NEGATIVE,
              "finish_reason": "stop"}, {"text": "Done."}]
    result = run(turns, tools=[vault([text_message("ok")])], model=model)
    check(plugin, result)
    assert [r["tool_parameters"]["q"] for r in result.tool_requests] == ["x"]


def test_negative_usage_on_a_stalled_answer_at_the_deadline(run, plugin):
    turns = [{"tool_calls": [{"id": "c1", "name": "vault", "arguments": {"q": "x"}}], "usage": NEGATIVE},
             hangs_after("With what I")]
    started = time.monotonic()
    result = run(turns, tools=[vault([text_message(f"key={CANARY}")])],
                 params={"run_timeout": RUN_TIMEOUT, "model_timeout": 900}, timeout=60)
    assert time.monotonic() - started < RUN_TIMEOUT + 1
    check(plugin, result, answer=False)
    assert result.text.startswith("With what I")
    logged = json.dumps([n.metadata for n in result.logs.values()], default=str)
    assert '"total_tokens": -' not in logged



# --- 10. the other transports: TCP's read-aside, serverless' 409 ---------------------------------------


@pytest.fixture(scope="module")
def remote():
    """A plugin of this module's own over TCP (remote debugging)."""
    from local_runner.remote import RemoteDebugServer

    with RemoteDebugServer() as server:
        yield server.launch(DEFAULT_PLUGIN_DIR)


def written(plugin, result) -> str:
    return "\n".join(json.dumps(entry.get("json"), ensure_ascii=False) if "json" in entry else str(entry.get("text", ""))
                     for entry, _ in plugin_lines(plugin, result))


def test_a_five_megabyte_json_result_read_aside_over_tcp_hides_the_key_in_each_form(remote):
    """125,000 records (5.4 MB, read aside by the TCP reader), the key in one record as written, in
    another escaped a character at a time, a third URL-encoded: the model reads none of them, no
    line the plugin wrote holds one, and a neighbour over the same connection is served."""
    records = [{"id": n, "name": f"item {n}", "v": "abc"} for n in range(125_000)]
    records[10]["v"], records[60_000]["v"] = CANARY, per_char(CANARY, "html")
    records[-1]["v"] = urllib.parse.quote(CANARY).replace("-", "%2D")
    tool = vault([{"type": "json", "message": {"json_object": {"records": records}}, "meta": None}])
    results: dict = {}
    thread = threading.Thread(target=_neighbour, args=(remote, results))
    thread.start()
    time.sleep(0.3)
    result = ScriptedRun(remote)([call("function_calling", "vault", q="x"), {"text": "Done."}], tools=[tool],
                                 timeout=90)
    thread.join()
    assert result.ok and result.text == "Done.", result.error_text
    assert results["light"].ok and results["light"].text == "w " * 300
    told = plain("\n".join(observations(result.llm_requests[1])))
    assert CORE not in told
    assert CORE not in plain(written(remote, result))
    assert_not_held(worst_gap(results["light"]), 1.0, results["pace"])


def test_a_second_invoke_while_the_first_streams_is_refused_and_the_first_answers(monkeypatch):
    """Serverless: the daemon sends a session's request again while the first is still running (a
    retry): refused with 409 and a JSON errorType naming why, nothing of the secret echoed; the first
    goes on and answers with its key hidden."""
    import http.client

    from local_runner.serverless import ServerlessPlugin

    sent: list = []
    original = ServerlessPlugin._send_request

    def record(self, line):
        sent.append(json.loads(json.dumps(line)))
        original(self, line)

    monkeypatch.setattr(ServerlessPlugin, "_send_request", record)
    with ServerlessPlugin(DEFAULT_PLUGIN_DIR) as plugin:
        run = ScriptedRun(plugin)
        results: dict = {}
        turns = [call("function_calling", "vault", q="x"), {"text": f"The key is {CANARY}.", "delay": 2.0}]
        thread = threading.Thread(target=lambda: results.update(first=run(
            turns, tools=[vault([text_message(f"key={CANARY}")])], timeout=60)))
        thread.start()
        deadline = time.monotonic() + 20
        while not sent and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.0)  # the first POST is on its way (the line is recorded before it is sent): it runs
        connection = http.client.HTTPConnection(plugin.host, int(plugin.port or 0), timeout=30)
        try:
            connection.request("POST", "/invoke", body=json.dumps(sent[0]).encode(),
                               headers={"Content-Type": "application/json"})
            response = connection.getresponse()
            status, body = response.status, response.read()
        finally:
            connection.close()
        thread.join()
        assert status == 409, (status, body[:300])
        assert "errorType" in json.loads(body)
        assert CORE not in body.decode()
        first = results["first"]
        assert first.ok, first.error_text
        assert first.text == "The key is [REDACTED]."
        assert CORE not in plain(written(plugin, first))


# --- 11. more crossings ---------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_key_across_the_end_of_the_reasoning_hold_is_hidden(run, plugin, strategy):
    """Reasoning came apart; the content has no bare ``</think>`` and the key straddles the end of
    the characters held for one (``think.APART_HOLD``), a character a chunk around it."""
    from agent_core.think import APART_HOLD

    lead = final(strategy, "")
    pad = "p" * (APART_HOLD - len(lead) - 8)
    answer = f"{pad} {CANARY} after."
    turns = [call(strategy, "vault", q="x"), apart_turn(final(strategy, answer), split=1)]
    result = run(turns, tools=[vault([text_message(f"key={CANARY}")])], strategy=strategy, model=R1)
    check(plugin, result)
    assert result.text.endswith(" after.") and result.text.startswith("ppp")


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_deadline_while_a_held_reasoning_tail_stalls_shows_no_reasoning(run, plugin, strategy):
    turns = [call(strategy, "vault", q="x"),
             {**apart_turn("I will answer with TAILMARK", split=4), "hang": True}]
    started = time.monotonic()
    result = run(turns, tools=[vault([text_message(f"key={CANARY}")])], strategy=strategy, model=R1,
                 params={"run_timeout": RUN_TIMEOUT, "model_timeout": 900}, timeout=60)
    assert time.monotonic() - started < RUN_TIMEOUT + 1
    check(plugin, result, answer=False)
    assert "TAILMARK" not in result.text


def test_six_megabytes_holding_thirty_secrets_beside_a_neighbour(plugin):
    """An answer of 6 MB with each of thirty keys every 200 KB (the 8-character blocks search),
    streamed in 64 KB chunks: none shown, the lines fit, and a neighbour keeps streaming."""
    heavy = ScriptedRun(plugin)
    block = "lorem ipsum " * 16_000 + " ".join(SECRETS) + " "
    body = block * 30
    turns = [call("function_calling", "vault", q="x"), {"text": body, "split": 64 * 1024}]
    results = with_neighbour(plugin, lambda: heavy(turns, tools=[many_secrets_tool(SECRETS)], timeout=120))
    check(plugin, results["heavy"])
    shown = results["heavy"].text
    assert not [s for s in SECRETS if s in shown]
    assert shown.count("[REDACTED]") == 30 * len(SECRETS)
    assert_not_held(worst_gap(results["light"]), 1.0, results["pace"])


def test_a_chinese_final_step_cut_inside_the_key_and_continued(run, plugin):
    turns = [call("function_calling", "vault", q="x"),
             {"text": f"思考：好了。\n最终答案：密钥是 {CANARY[:10]}", "split": 3, "finish_reason": "length"},
             {"text": f"{CANARY[10:]}，完成。", "split": 2}]
    result = run(turns, tools=[vault([text_message(f"key={CANARY}")])])
    check(plugin, result)
    assert result.text.startswith("密钥是 ") and result.text.endswith("，完成。")
    assert CANARY[:10] not in result.text and CANARY[10:] not in result.text
