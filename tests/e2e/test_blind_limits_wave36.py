"""Blind limits, wave 36 (issue 13, classes 1 and 2), through the real plugin process.

Cases designed first from the issue, README.md, PLUGIN_README.md and docs/architecture.md alone,
the plugin a black box driven through the daemon protocol by local_runner, as the independent
harness the issue announces would write them: sizes just under and just over the daemon's 5 MiB
once JSON-encoded (four-byte characters, lone surrogates, U+2028, control characters that escape
to six bytes, runs of backslashes and quotes), a large value in each kind of thing the plugin
writes, a model's reasoning, thoughts and calls of megabytes, tool declarations large in the
fields the model never reads, a stream of one-character chunks, the run's deadline reached in
each phase of a round and read from odd spellings of ``PLUGIN_MAX_EXECUTION_TIMEOUT``, and one
session doing much of this at once beside a streaming neighbour. The cases that the earlier
files already run (``test_blind_*_wave34/35.py``, ``test_red_team_wave30-33*.py``,
``test_line_budget.py``, ``test_run_deadline.py``, ``test_tool_output.py``, ``test_faults.py``,
``test_red_team_paths.py``) were then dropped; the wave-36 report lists both.

Every run is checked with wave 30's invariants (``assert_survived``: the plugin alive, so no stdout
line over the daemon's 5 MiB, as the runner kills it for one; only JSON on stdout; no log node
left in ``start``; an answer or a clear ``AgentRunError``), no traceback shown, and, where the
case is about time, an end before the daemon's limit and a neighbour that keeps streaming.
"""

from __future__ import annotations

import json
import time

import pytest

from local_runner import PluginProcess, ScriptedBackend
from local_runner.builtin_tools import default_toolbox
from local_runner.daemon import DEFAULT_PLUGIN_DIR
from local_runner.scenario import Scenario, run_scenario
from local_runner.tools import LocalTool, ScriptedTool, ToolParam, json_message, text_message
from tests.e2e.conftest import ScriptedRun
from tests.e2e.helpers import STRATEGIES, answer_turn, observations, revived_plugin
from tests.e2e.helpers import json_bytes as encoded
from tests.e2e.test_red_team_wave30 import survived_cleanly as check
from tests.e2e.test_red_team_wave30 import worst_gap
from tests.e2e.test_red_team_wave31 import _with_neighbour, blob, call, log_message, variable, vault

MB = 1024 * 1024
LINE = 5 * MB


_process, plugin = revived_plugin()


def tool(name: str = "vault", responses=(), **kwargs) -> ScriptedTool:
    return vault(list(responses), name=name, **kwargs)


def shown(strategy: str, text: str) -> str:
    """The answer the user should read for ``text`` (ReAct strips its answer's ends)."""
    return text.strip() if strategy == "ReAct" else text


# --- 1. answers whose size crosses the limit only once they are JSON ---------------------------------------

MIXES = {  # one chunk each; raw characters well under 5 MiB, their JSON just under or just over it
    "backslashes and quotes (5.4 MB as JSON)": '\\"' * 1_350_000 + "end",
    "ASCII then control characters (just over)": "a" * (2 * MB) + "\x01" * 560_000 + "end",
    "control characters (just under)": "\x01" * (LINE // 6 - 200) + "end",
    "emoji, U+2028, a control and a letter by turns": "\U0001f984\u2028\x01a" * 380_000,
    "lone surrogates and quotes by turns": '\ud800"' * 700_000 + "end",
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", list(MIXES))
def test_an_answer_mixing_escape_costs_around_the_limit_streams_whole(run, plugin, strategy, kind):
    text = MIXES[kind]
    result = run([answer_turn(strategy, text)], strategy=strategy, timeout=120)
    check(plugin, result)
    expected = shown(strategy, text).replace("\ud800", "\ufffd")
    assert len(result.text) == len(expected)
    assert result.text == expected


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_reasoning_block_of_six_megabytes_of_escapes_then_the_answer(run, plugin, strategy):
    """Reasoning streamed in 64 KB pieces, then a short answer: the log keeps a part, the user reads
    the answer alone."""
    text = "<think>" + "\x01\\" * 600_000 + "</think>" + answer_turn(strategy, "Done.")["text"]
    result = run([{"text": text, "split": 64 * 1024}], strategy=strategy, timeout=120)
    check(plugin, result)
    assert result.text == "Done."


def test_a_reply_that_is_only_reasoning_of_megabytes_at_the_end_is_shown_in_lines_that_fit(run, plugin):
    """At the iteration limit a reply holding only reasoning is shown as the answer (README): 6 MB of
    escapes of it must stream in pieces."""
    reasoning = "\x02" * 1_000_000
    result = run([call("function_calling", "vault", q="x"), {"text": f"<think>{reasoning}</think>"}],
                 tools=[tool(responses=[text_message("ok")])], maximum_iterations=1, timeout=120)
    check(plugin, result, answer=False)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_thought_of_megabytes_before_a_call_ends_with_an_answer_or_a_clear_error(run, plugin, strategy):
    """A ReAct ``Thought:`` (or Function Calling content before its call) of 5.4 MB of escapes: the
    tool runs; the next request carries the model's own reply back, so it is either made to fit or
    the run ends saying why, never with a line over the limit."""
    thought = '\\"' * 1_350_000
    if strategy == "ReAct":
        first = {"text": f"Thought: {thought}\nAction: vault\nAction Input: {{\"q\": \"x\"}}"}
    else:
        first = {"text": thought, "tool_calls": [{"id": "c1", "name": "vault", "arguments": {"q": "x"}}]}
    result = run([first, answer_turn(strategy, "Done."), answer_turn(strategy, "Done.")],
                 tools=[tool(responses=[text_message("ok")])], strategy=strategy, timeout=120)
    check(plugin, result, answer=False)
    assert len(result.tool_requests) == 1


# --- 2. a model's calls whose arguments grow once they are JSON --------------------------------------------

PARALLEL = {  # (calls, control characters in each call's argument)
    "8 calls of 900 KB of escapes": (8, 150_000),
    "64 calls of 84 KB of escapes": (64, 14_000),
    "10,000 calls of 600 bytes of escapes": (10_000, 100),
}


@pytest.mark.parametrize("kind", list(PARALLEL))
def test_parallel_calls_whose_arguments_escape_to_megabytes(run, plugin, kind):
    """Each call under the arguments' own bound, together over a daemon line: the log, the tool
    requests and the next request (which replays the reply as the model plugin gave it) all fit,
    or the run ends saying why."""
    count, size = PARALLEL[kind]
    calls = [{"id": f"c{n}", "name": "vault", "arguments": {"q": f"{n}" + "\x01" * size}} for n in range(count)]
    result = run([{"tool_calls": calls}, {"text": "Done."}, {"text": "Done."}],
                 tools=[tool(responses=[text_message("ok")])], timeout=180)
    check(plugin, result, answer=False)
    assert 0 < len(result.tool_requests) <= 64
    if result.ok:
        assert result.text == "Done."
        assert len(observations(result.llm_requests[1])) == count


@pytest.mark.parametrize("over", [False, True], ids=["just under", "just over"])
def test_react_arguments_of_four_byte_characters_around_a_megabyte(run, plugin, over):
    """An action input of emoji, one megabyte of UTF-8 give or take 2 KB: run, or refused with the
    reason; the run answers either way."""
    count = MB // 4 + (500 if over else -500)
    text = json.dumps({"action": "vault", "action_input": {"q": "\U0001f984" * count}}, ensure_ascii=False)
    turns = [{"text": f"Thought: go.\nAction:\n```json\n{text}\n```"}, answer_turn("ReAct", "Done.")]
    result = run(turns, tools=[tool(responses=[text_message("ok")])], strategy="ReAct", timeout=120)
    check(plugin, result)
    assert result.text == "Done."
    if result.tool_requests:
        assert result.tool_requests[0]["tool_parameters"]["q"] == "\U0001f984" * count
    else:
        assert observations(result.llm_requests[1])


# --- 3. tool output of megabytes in the kinds not tried before -------------------------------------------------


def citation(content: str, meta) -> dict:
    return {"type": "retriever_resources", "meta": None, "message": {"context": "c", "retriever_resources": [
        {"position": 1, "content": content, "document_name": "doc", "doc_metadata": meta}]}}


OUTPUTS = {
    "a variable of a million control characters": lambda: [variable("v", "\x01" * 1_000_000)],
    "a JSON key of a million control characters": lambda: [json_message({"\x01" * 1_000_000: 1})],
    "a text of 2.7 M backslashes and quotes": lambda: [text_message('\\"' * 1_350_000)],
    "a citation of 6 MB with metadata of 6 MB": lambda: [citation("\x01" * 1_000_000, {"m": "\x02" * 1_000_000})],
    "a tool log whose error is 6 MB": lambda: [{**log_message("step", {"d": 1}), "message": {
        **log_message("step", {"d": 1})["message"], "status": "error", "error": "\x01" * 1_000_000}}],
    "a tool log whose metadata is 6 MB": lambda: [{**log_message("step", {"d": 1}), "message": {
        **log_message("step", {"d": 1})["message"], "metadata": {"m": "\x01" * 1_000_000}}}],
    "a blob whose mime type is 6 MB": lambda: [{**blob(b"abc", "a.txt"), "meta": {
        "filename": "a.txt", "mime_type": "text/" + "\x01" * 1_000_000}}],
    "an image link of 1.5 M emoji": lambda: [{"type": "image_link", "meta": None,
                                              "message": {"text": "https://e.com/" + "\U0001f984" * 1_500_000}}],
    "1,000 texts of 1,000 control characters": lambda: [text_message("\x03" * 1_000) for _ in range(1_000)],
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", list(OUTPUTS))
def test_tool_output_kinds_of_megabytes_keep_the_run_and_the_rest(run, plugin, strategy, kind):
    responses = [*OUTPUTS[kind](), text_message("kept")]
    result = run([call(strategy, "vault", q="x"), answer_turn(strategy, "Done.")], tools=[tool(responses=responses)],
                 strategy=strategy, timeout=120)
    check(plugin, result)
    assert result.text == "Done."
    (seen,) = observations(result.llm_requests[1])
    assert "kept" in seen or "characters" in seen


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_tool_error_of_six_megabytes_of_escapes_is_an_observation(run, plugin, strategy):
    result = run([call(strategy, "vault", q="x"), answer_turn(strategy, "Done.")],
                 tools=[tool(error="bad: " + "\x01" * 1_000_000)], strategy=strategy, timeout=120)
    check(plugin, result)
    assert result.text == "Done."
    (seen,) = observations(result.llm_requests[1])
    assert "bad" in seen and len(seen.encode()) < MB


# --- 4. declarations of megabytes in the fields the model never reads --------------------------------------------


def odd_tool(**overrides) -> ScriptedTool:
    """``odd(q)``, its entity given ``overrides`` (a dotted path -> value) when Dify sends it."""

    class Odd(ScriptedTool):
        def entity(self):
            entity = super().entity()
            for path, value in overrides.items():
                *parents, leaf = path.split(".")
                target = entity
                for part in parents:
                    target = target[int(part)] if isinstance(target, list) else target[part]
                target[leaf] = value
            return entity

    return Odd(name="odd", description="An odd tool", parameters=[ToolParam("q", description="query")],
               responses=[text_message("odd ok")])


BIG = "\x01" * 1_000_000
DECLARATIONS = {
    "a provider of 6 MB": {"identity.provider": "a/b/" + BIG},
    "an author and a label of 6 MB each": {"identity.author": BIG, "identity.label": {"en_US": BIG}},
    "an icon of 6 MB": {"identity.icon": "data:image/svg+xml;base64," + "A" * (6 * MB)},
    "a human description of 6 MB": {"description.human": {"en_US": BIG, "zh_Hans": BIG}},
    "an output schema of 6 MB": {"output_schema": {"type": "object", "description": BIG}},
    "a credential id of 6 MB": {"credential_id": BIG},
    "a parameter label and placeholder of 6 MB": {"parameters.0.label": {"en_US": BIG},
                                                  "parameters.0.placeholder": {"en_US": BIG}},
    "a select parameter of 200,000 options": {"parameters.0.type": "select", "parameters.0.options": [
        {"value": f"option-{n}", "label": {"en_US": f"o{n}"}} for n in range(200_000)]},
    "a parameter default of 6 MB": {"parameters.0.default": BIG, "parameters.0.required": False},
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", list(DECLARATIONS))
def test_a_declaration_large_where_the_model_never_reads_ends_with_an_answer(run, plugin, strategy, kind):
    """The model calls the odd tool: it runs, or it was left out (named in the log) and the model
    is told; the other tool still runs. No line over the limit either way."""
    turns = [call(strategy, "odd", q="x"), call(strategy, "vault", "c2", q="y"), answer_turn(strategy, "Done."),
             answer_turn(strategy, "Done.")]
    result = run(turns, tools=[odd_tool(**DECLARATIONS[kind]), tool(responses=[text_message("ok")])],
                 strategy=strategy, timeout=120)
    check(plugin, result, answer=False)
    if result.ok:
        assert result.text == "Done."
        assert any(request["tool"] == "vault" for request in result.tool_requests)


# --- 5. node settings that grow once they are JSON ------------------------------------------------------------

SETTINGS = {
    "a knowledge item of a million control characters": {"context": [
        {"content": "\x01" * 1_000_000, "title": "doc", "metadata": {"_source": "knowledge", "document_id": "d1"}}]},
    "a knowledge item of 2.7 M backslashes and quotes": {"context": [
        {"content": '\\"' * 1_350_000, "title": "doc", "metadata": {"_source": "knowledge", "document_id": "d1"}}]},
    "an instruction of 900,000 control characters": {"instruction": "\x01" * 900_000},
    "memory of 40 messages of 150,000 control characters": {"history": [
        {"role": role, "content": f"{n} " + "\x01" * 150_000}
        for n, role in zip(range(40), ["user", "assistant"] * 20, strict=True)]},
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", list(SETTINGS))
def test_node_settings_that_escape_to_megabytes_answer_or_end_clearly(run, plugin, strategy, kind):
    result = run([answer_turn(strategy, "Done."), answer_turn(strategy, "Done.")], strategy=strategy, timeout=120,
                 **SETTINGS[kind])
    check(plugin, result, answer=False)
    if result.ok:
        assert result.text.startswith("Done.")
        assert all(encoded(request) < LINE for request in result.llm_requests)


# --- 6. a neighbour session on the same process ------------------------------------------------------------------


def test_an_answer_of_100000_one_character_chunks_beside_a_neighbour(plugin):
    heavy = ScriptedRun(plugin)
    text = "abcdefghij" * 10_000
    results = _with_neighbour(plugin, lambda: heavy([{"text": text, "split": 1}], timeout=180))
    check(plugin, results["heavy"])
    assert results["heavy"].text == text
    assert worst_gap(results["light"]) < 1.5


def test_one_session_doing_everything_at_once_beside_a_neighbour(plugin):
    """500 tools declared; a reply of 4 MB of escaped reasoning in one chunk and eight parallel
    calls; each call returns 2,000 small messages and a megabyte of control characters; then an
    answer of 600,000 emoji in one chunk."""
    heavy = ScriptedRun(plugin)
    tools = [ScriptedTool(name=f"t{n}", description="x" * 200, parameters=[ToolParam("q")]) for n in range(500)]
    tools.append(tool(responses=[*(text_message("m") for _ in range(2_000)), text_message("\x01" * 1_000_000)]))
    calls = [{"id": f"c{n}", "name": "vault", "arguments": {"q": f"q{n}"}} for n in range(8)]
    answer = "\U0001f984" * 600_000
    turns = [{"text": "<think>" + "\x02" * 700_000 + "</think>", "tool_calls": calls}, {"text": answer},
             {"text": answer}]
    results = _with_neighbour(plugin, lambda: heavy(turns, tools=tools, timeout=180))
    check(plugin, results["heavy"], answer=False)
    assert len(results["heavy"].tool_requests) == 8
    assert worst_gap(results["light"]) < 1.5


LONG_LISTS = {
    "a tool of 30,000 parameters": lambda: {"tools": [ScriptedTool(
        name="wide", description="d", parameters=[ToolParam(f"p{n}", description="x") for n in range(30_000)])]},
    "a select parameter of 200,000 options": lambda: {"tools": [odd_tool(**DECLARATIONS[
        "a select parameter of 200,000 options"])]},
    "a model schema of 50,000 parameter rules": lambda: {"model": {"parameter_rules": [
        {"name": f"r{n}", "label": {"en_US": f"r{n}"}, "type": "float", "help": {"en_US": "h"}}
        for n in range(50_000)]}},
}


@pytest.mark.parametrize("kind", list(LONG_LISTS))
def test_settings_of_long_lists_do_not_starve_a_neighbour(plugin, kind):
    """Found here: a required name looked for in a list made 30,000 parameters hold the process
    7 s, and pydantic validated 200,000 options in one call of 1.4-2.2 s (50,000 model parameter
    rules 0.5 s); now each is declared in linear time and validated a slice at a time."""
    heavy = ScriptedRun(plugin)
    fields = LONG_LISTS[kind]()
    tools = [*fields.pop("tools", []), tool(responses=[text_message("ok")])]
    results = _with_neighbour(plugin, lambda: heavy([{"text": "Done."}, {"text": "Done."}], tools=tools, timeout=180,
                                                    **fields))
    check(plugin, results["heavy"])
    assert results["heavy"].text == "Done."
    assert worst_gap(results["light"]) < 1.5


# --- 7. the daemon's own time limit ------------------------------------------------------------------------------


def limited_process(value: str) -> PluginProcess:
    return PluginProcess(DEFAULT_PLUGIN_DIR, env={"PLUGIN_MAX_EXECUTION_TIMEOUT": value}).start()


@pytest.fixture(scope="module")
def limited():
    """A process whose daemon ends runs at 8 s."""
    process = limited_process("8")
    yield process
    process.close()


def hanging(name: str = "vault") -> ScriptedTool:
    return tool(name=name, hang=True)


@pytest.mark.parametrize("value", [" 8 ", "8.0", "\t8\n"])
def test_a_daemon_limit_written_with_spaces_or_a_fraction_is_kept(value):
    """A hanging tool, the node's tool timeout far past it: the model answers within the limit."""
    process = limited_process(value)
    try:
        started = time.monotonic()
        result = ScriptedRun(process)([call("function_calling", "vault", q="x"), {"text": "Answered without it."}],
                                      tools=[hanging()], params={"tool_timeout": 600}, timeout=60)
        assert time.monotonic() - started < 8
        check(process, result)
        assert result.text == "Answered without it."
    finally:
        process.close()


@pytest.mark.parametrize("value", ["abc", "1e3", "", "-5", "0x10"])
def test_a_daemon_limit_that_is_no_plain_number_leaves_runs_working(value):
    process = limited_process(value)
    try:
        result = ScriptedRun(process)([call("ReAct", "vault", q="x"), answer_turn("ReAct", "Done.")],
                                      tools=[tool(responses=[text_message("ok")])], strategy="ReAct", timeout=60)
        check(process, result)
        assert result.text == "Done."
        assert not process.warnings
    finally:
        process.close()


class Dribble(ScriptedBackend):
    """A model whose every reply is one character every ``interval`` seconds, never finishing."""

    def __init__(self, interval: float, prefix: str = "") -> None:
        super().__init__([])
        self.interval, self.prefix = interval, prefix

    def invoke_llm(self, request):
        self.requests.append(request)

        def chunks():
            yield from self._chunk(self.prefix)
            while not self._released.is_set():
                time.sleep(self.interval)
                yield from self._chunk("a")
        return chunks()

    @staticmethod
    def _chunk(text):
        if text:
            yield {"model": "m", "prompt_messages": [], "system_fingerprint": "",
                   "delta": {"index": 0, "message": {"role": "assistant", "content": text, "name": "",
                                                     "tool_calls": [], "tool_call_id": ""},
                             "usage": None, "finish_reason": None}}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_one_character_chunks_every_five_milliseconds_are_cut_at_the_deadline(limited, strategy):
    backend = Dribble(0.005, "Thought: x\nFinal Answer: " if strategy == "ReAct" else "")
    started = time.monotonic()
    try:
        result = run_scenario(Scenario(query="q", strategy=strategy, params={"model_timeout": 900}), backend,
                              default_toolbox(), plugin=limited, timeout=60)
    finally:
        backend.release()
    assert time.monotonic() - started < 8
    check(limited, result, answer=False)
    assert result.text.startswith("aaa")  # what was shown stays shown


def slow_tool(seconds: float, output: str) -> LocalTool:
    def handler(params):
        time.sleep(seconds)
        yield text_message(output)

    return LocalTool(name="vault", description="Slow", parameters=[ToolParam("q")], handler=handler)


def test_a_result_of_six_megabytes_arriving_near_the_deadline_still_leaves_the_answer_its_time(limited):
    started = time.monotonic()
    result = ScriptedRun(limited)([call("function_calling", "vault", q="x"), {"text": "Answered."},
                                   {"text": "Answered."}],
                                  tools=[slow_tool(4.5, "\x01" * 1_000_000)], params={"tool_timeout": 600}, timeout=60)
    assert time.monotonic() - started < 8
    check(limited, result)
    assert result.text == "Answered."


def test_twenty_parallel_calls_of_three_seconds_under_an_eight_second_limit(limited):
    """Eight at a time: not all twenty fit; those that would not are not run and the model is told,
    in time."""
    calls = [{"id": f"c{n}", "name": "vault", "arguments": {"q": f"q{n}"}} for n in range(20)]
    started = time.monotonic()
    result = ScriptedRun(limited)([{"tool_calls": calls}, {"text": "Answered."}],
                                  tools=[slow_tool(3, "ok")], params={"tool_timeout": 600}, timeout=60)
    assert time.monotonic() - started < 8
    check(limited, result)
    assert result.text == "Answered."
    assert len(observations(result.llm_requests[1])) == 20


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_model_silent_in_the_answer_round_after_a_tool_ends_before_the_limit(limited, strategy):
    started = time.monotonic()
    runner = ScriptedRun(limited)
    result = runner([call(strategy, "vault", q="x"), {"hang": True}], tools=[tool(responses=[text_message("ok")])],
                    strategy=strategy, params={"model_timeout": 900}, timeout=60)
    assert time.monotonic() - started < 8
    check(limited, result, answer=False)


def test_a_session_reaching_the_deadline_beside_a_neighbour(limited):
    """The deadline's session ends in time and the neighbour streams on."""
    heavy = ScriptedRun(limited)
    started = time.monotonic()
    results = _with_neighbour(limited, lambda: heavy(
        [call("function_calling", "vault", q="x"), {"text": "Answered without it."}],
        tools=[hanging()], params={"tool_timeout": 600}, timeout=60))
    assert time.monotonic() - started < 9
    check(limited, results["heavy"])
    assert results["heavy"].text == "Answered without it."
    assert worst_gap(results["light"]) < 1.5

