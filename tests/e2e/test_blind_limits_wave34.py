"""Blind limits, wave 34 (issue 13, classes 1 and 2), through the real plugin process.

Cases written first from the issue, the README and docs/architecture.md alone, the plugin a
black box driven through the daemon protocol, as the independent harness the issue announces
would write them; then the ones the red-team files (waves 30-33, paths) and the two fuzz files
already try were dropped. Each run here crosses a limit with sizes kept modest (the file takes
well under 90 s of CPU) and is checked with wave 30's invariants (``assert_survived``: the plugin
alive, so no stdout line over the daemon's 5 MiB, only JSON on stdout, no log left in ``start``,
an answer or a clear error), and:

* no Python traceback in anything the user or the log tree is shown (``assert_no_traceback``);
* a run ends before the daemon's ``PLUGIN_MAX_EXECUTION_TIMEOUT``;
* a neighbour session streaming on the same process is never held up for long.
"""

from __future__ import annotations

import json
import time

import pytest

from agent_core import prompts
from local_runner import PluginProcess, ScriptedBackend
from local_runner.builtin_tools import default_toolbox
from local_runner.daemon import DEFAULT_PLUGIN_DIR
from local_runner.scenario import Scenario, run_scenario
from local_runner.tools import ScriptedTool, ToolParam, json_message, text_message
from tests.e2e.conftest import ScriptedRun
from tests.e2e.helpers import (
    STRATEGIES,
    TRACEBACK,
    answer_turn,
    observations,
    own_plugin,
    prompt_text,
)
from tests.e2e.pace import assert_not_held
from tests.e2e.test_red_team_wave30 import survived_cleanly as check
from tests.e2e.test_red_team_wave30 import worst_gap
from tests.e2e.test_red_team_wave31 import _with_neighbour, blob, call, vault

MB = 1024 * 1024


plugin = own_plugin()



def tool(name: str = "vault", responses=(), **kwargs) -> ScriptedTool:
    return vault(list(responses), name=name, **kwargs)


# --- 1. a model's answer that grows when it is written as JSON ------------------------------------------

ANSWERS = {  # one chunk; each character written as 12 or 6 bytes of JSON escapes
    "600,000 four-byte emoji": "\U0001f984" * 600_000,
    "500,000 U+2028 between letters": "a\u2028" * 500_000,
    "1,000,000 lone surrogates": "\ud800" * 1_000_000,
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", list(ANSWERS))
def test_an_answer_that_escapes_to_megabytes_streams_in_lines_that_fit(run, plugin, strategy, kind):
    text = ANSWERS[kind]
    result = run([answer_turn(strategy, text)], strategy=strategy, timeout=120)
    check(plugin, result)
    # whole (a lone surrogate may come out as U+FFFD; ReAct strips the answer's last whitespace)
    assert len(result.text) == len(text.rstrip() if strategy == "ReAct" else text)


# --- 2. declarations of megabytes and in thousands ------------------------------------------------------

DECLARATIONS = {
    "a tool name of 1 MB": lambda: [ScriptedTool(name="t" * MB, description="d", parameters=[ToolParam("q")])],
    "a parameter name of 1 MB": lambda: [ScriptedTool(name="wide", description="d",
                                                      parameters=[ToolParam("p" * MB)])],
    "a parameter description of 3 MB": lambda: [ScriptedTool(name="wordy", description="d",
                                                             parameters=[ToolParam("q", description="w" * 3 * MB)])],
    "2,000 tools of 3 KB each": lambda: [ScriptedTool(name=f"tool_{n}", description="x" * 3_000,
                                                      parameters=[ToolParam("q", description="q")])
                                         for n in range(2_000)],
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", list(DECLARATIONS))
def test_declarations_of_megabytes_run_without_them_or_end_clearly(run, plugin, strategy, kind):
    """An answer with the tools left out (named in the log) or a clear error; never a line over."""
    tools = [*DECLARATIONS[kind](), tool(responses=[text_message("ok")])]
    turns = [call(strategy, "vault", q="x"), answer_turn(strategy, "Done."), answer_turn(strategy, "Done.")]
    result = run(turns, tools=tools, strategy=strategy, timeout=120)
    check(plugin, result, answer=False)
    if result.ok:
        assert result.text == "Done."


# --- 3. a model's call fields of megabytes ---------------------------------------------------------------


def _ids(request) -> tuple[list[str], list[str]]:
    """The call ids of ``request``'s assistant messages, and the ids its tool messages answer."""
    calls = [c["id"] for m in request["prompt_messages"] for c in (m.get("tool_calls") or [])]
    answered = [m.get("tool_call_id") for m in request["prompt_messages"] if m["role"] == "tool"]
    return calls, answered


def test_six_calls_with_ids_of_a_megabyte_each_pair_with_their_results(run, plugin):
    """Ids over the documented 64 K characters are replaced by made ones (docs/model-round-trip.md),
    each call still paired with its own result."""
    calls = [{"id": f"c{n}" + "i" * MB, "name": "vault", "arguments": {"q": f"q{n}"}} for n in range(6)]
    result = run([{"tool_calls": calls}, {"text": "Done."}], tools=[tool(responses=[text_message("ok")])],
                 timeout=120)
    check(plugin, result)
    made, answered = _ids(result.llm_requests[1])
    assert made == answered and len(set(made)) == 6 and max(map(len, made)) < 100


def test_a_call_id_just_under_the_limit_goes_back_intact(run, plugin):
    call_id = "id-" + "k" * 60_000
    result = run([{"tool_calls": [{"id": call_id, "name": "vault", "arguments": {"q": "x"}}]}, {"text": "Done."}],
                 tools=[tool(responses=[text_message("ok")])], timeout=120)
    check(plugin, result)
    assert _ids(result.llm_requests[1]) == ([call_id], [call_id])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_call_to_an_unknown_tool_named_with_a_megabyte(run, plugin, strategy):
    name = "n" * MB
    first = ({"text": f"Thought: x\nAction: {name}\nAction Input: {{\"q\": \"x\"}}"} if strategy == "ReAct"
             else {"tool_calls": [{"id": "c1", "name": name, "arguments": {"q": "x"}}]})
    result = run([first, answer_turn(strategy, "Done."), answer_turn(strategy, "Done.")],
                 tools=[tool(responses=[text_message("ok")])], strategy=strategy, timeout=120)
    check(plugin, result, answer=False)
    assert result.tool_requests == []


def test_arguments_streamed_one_character_a_chunk(run, plugin):
    arguments = json.dumps({"q": "a" * 20_000})
    chunks = [{"tool_calls": [{"index": 0, "id": "c1", "type": "function",
                               "function": {"name": "vault", "arguments": ""}}]}]
    chunks += [{"tool_calls": [{"index": 0, "function": {"arguments": ch}}]} for ch in arguments]
    result = run([{"chunks": chunks}, {"text": "Done."}], tools=[tool(responses=[text_message("ok")])], timeout=120)
    check(plugin, result)
    assert [r["tool_parameters"]["q"] for r in result.tool_requests] == ["a" * 20_000]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_answer_streamed_one_character_a_chunk(run, plugin, strategy):
    text = answer_turn(strategy, "abcdefghij" * 2_000)["text"]
    result = run([{"text": text, "split": 1}], strategy=strategy, timeout=120)
    check(plugin, result)
    assert result.text == "abcdefghij" * 2_000


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_usage_of_numbers_past_any_integer_type(run, plugin, strategy):
    usage = {"prompt_tokens": 10**30, "completion_tokens": 2**70, "total_price": "1e400", "latency": 1e308}
    result = run([{**call(strategy, "vault", q="x"), "usage": usage}, {**answer_turn(strategy, "Done."), "usage": usage}],
                 tools=[tool(responses=[text_message("ok")])], strategy=strategy)
    check(plugin, result, answer=False)


# --- 4. tool output that no single line holds ------------------------------------------------------------

OUTPUTS = {
    "a blob of 8 MB": lambda: [blob(b"b" * (8 * MB), "big.bin", "application/octet-stream")],
    "a blob named with a megabyte": lambda: [blob(b"a,b\n", "f" * MB + ".csv", "text/csv")],
    "3,000 small files": lambda: [blob(f"{n}\n".encode(), f"f{n}.txt") for n in range(3_000)],
    "an image link of 6 MB": lambda: [{"type": "image_link", "message": {"text": "https://e.com/" + "u" * (6 * MB)},
                                       "meta": None}],
    "a link of 6 MB": lambda: [{"type": "link", "message": {"text": "https://e.com/?q=" + "%22" * (2 * MB)},
                                "meta": None}],
    "a JSON list of a million numbers": lambda: [json_message(list(range(1_000_000)))],
    "a variable named with 6 MB": lambda: [{"type": "variable", "meta": None, "message": {
        "variable_name": "v" * (6 * MB), "variable_value": "x", "stream": False}}],
    "a JSON object of 200,000 keys": lambda: [json_message({f"key-{n}": "\x01" for n in range(200_000)})],
    "10,000 citations of 500 bytes": lambda: [{"type": "retriever_resources", "meta": None, "message": {
        "context": "c", "retriever_resources": [{"position": n, "content": "r" * 500, "document_name": f"d{n}"}
                                                for n in range(10_000)]}}],
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", list(OUTPUTS))
def test_tool_output_no_line_holds_keeps_the_run(run, plugin, strategy, kind):
    responses = [*OUTPUTS[kind](), text_message("kept")]
    result = run([call(strategy, "vault", q="x"), answer_turn(strategy, "Done.")], tools=[tool(responses=responses)],
                 strategy=strategy, timeout=120)
    check(plugin, result)
    assert result.text == "Done."
    (seen,) = observations(result.llm_requests[1])
    assert "kept" in seen or "characters" in seen


def test_sixty_four_parallel_results_of_100_kb_fit_the_round_log(run, plugin):
    calls = [{"id": f"c{n}", "name": "vault", "arguments": {"q": f"q{n}"}} for n in range(64)]
    result = run([{"tool_calls": calls}, {"text": "Done."}],
                 tools=[tool(responses=[text_message("\x01" * 100_000)])], timeout=120)
    check(plugin, result)
    assert len(result.tool_requests) == 64


# --- 5. node settings of megabytes ------------------------------------------------------------------------

SETTINGS = {
    "an instruction of 6 MB": {"instruction": "i" * (6 * MB)},
    "memory of 5,000 turns": {"history": [m for n in range(5_000) for m in (
        {"role": "user", "content": f"question {n} " + "u" * 200}, {"role": "assistant", "content": f"answer {n}"})]},
    "memory of 2,000 tool rounds": {"history": [m for n in range(2_000) for m in (
        {"role": "user", "content": f"question {n}"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": f"h{n}", "type": "function", "function": {
            "name": "vault", "arguments": json.dumps({"q": "x" * 300})}}]},
        {"role": "tool", "content": "r" * 300, "tool_call_id": f"h{n}", "name": "vault"},
        {"role": "assistant", "content": f"answer {n}"})]},
    "a stop list of 6 MB": {"model": {"completion_params": {"max_tokens": 100, "stop": ["s" * 1_000] * 6_000}}},
    "a model name of 6 MB": {"model": {"model": "m" * (6 * MB)}},
    "a knowledge item titled with 6 MB": {"context": [{"content": "fact", "title": "t" * (6 * MB), "metadata": {}}]},
    "a query file whose address is 6 MB": {"files": [{"url": "https://e.com/" + "a" * (6 * MB) + ".png",
                                                      "mime_type": "image/png"}]},
    "3,000 knowledge items with 2 KB of metadata": {"context": [
        {"content": f"fact {n}", "title": f"doc{n}", "metadata": {"note": "m" * 2_000, "position": n}}
        for n in range(3_000)]},
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", list(SETTINGS))
def test_node_settings_of_megabytes_answer_or_end_clearly(run, plugin, strategy, kind):
    result = run([answer_turn(strategy, "Done."), answer_turn(strategy, "Done.")], strategy=strategy, timeout=120,
                 **SETTINGS[kind])
    check(plugin, result, answer=False)
    if result.ok:
        assert result.text.startswith("Done.")


# --- 5b. answers of megabytes at the end of a run -------------------------------------------------------

WEATHER = {"type": "object", "properties": {"city": {"type": "string"}, "notes": {"type": "string"}},
           "required": ["city"]}
USER_SCHEMA = {"max_tokens": 100_000, "response_format": "json_schema",
               "json_schema": json.dumps({"name": "weather", "strict": True, "schema": WEATHER})}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_answer_in_the_users_schema_of_megabytes_streams_in_lines_that_fit(run, plugin, strategy):
    """Shown as compact JSON once it is complete: 1 M control characters are 6 MB of escapes."""
    answer = json.dumps({"city": "Paris", "notes": "\x01" * 1_000_000})
    result = run([answer_turn(strategy, answer)], strategy=strategy, timeout=120,
                 model={"completion_params": USER_SCHEMA})
    check(plugin, result)
    assert json.loads(result.text) == json.loads(answer)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_escape_heavy_answer_at_the_iteration_limit_fits(run, plugin, strategy):
    text = "\x02" * 1_000_000
    result = run([call(strategy, "vault", q="x"), answer_turn(strategy, text)], strategy=strategy,
                 tools=[tool(responses=[text_message("ok")])], maximum_iterations=1, timeout=120)
    check(plugin, result)
    assert result.text == text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_escape_heavy_answer_cut_and_continued_fits(run, plugin, strategy):
    """2.4 MB of escapes cut, then as much again (other characters, so no overlap with the start is
    read): the rest is asked for and joined."""
    first = {**answer_turn(strategy, "\x03" * 400_000), "finish_reason": "length"}
    result = run([first, {"text": "\x04" * 400_000 + " end."}], strategy=strategy, timeout=120)
    check(plugin, result)
    assert result.text == "\x03" * 400_000 + "\x04" * 400_000 + " end."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_cut_answer_too_large_to_send_back_ends_with_it_and_a_notice(run, plugin, strategy):
    """4.8 MB of escapes cut by the output limit: the request for its rest, which carries it back,
    is over a daemon line. Before: the run ended with an error after the answer had streamed;
    now the answer shown stays, with a notice saying why it has no rest."""
    first = {**answer_turn(strategy, "\x03" * 800_000), "finish_reason": "length"}
    result = run([first, {"text": "never asked"}], strategy=strategy, timeout=120)
    check(plugin, result)
    assert result.text == "\x03" * 800_000 + "\n\n" + prompts.ANSWER_CUT_TOO_LARGE
    assert len(result.llm_requests) == 1


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_rounds_of_large_results_without_a_model_entity_stay_in_bytes(run, plugin, strategy):
    """No model entity, so no context size known: 20 rounds of 400 KB results (8 MB) still give
    requests a daemon line holds."""
    turns = [call(strategy, "vault", f"c{n}", q=f"q{n}") for n in range(20)] + [answer_turn(strategy, "Done.")] * 2
    result = run(turns, strategy=strategy, tools=[tool(responses=[text_message("r" * 400_000)])],
                 maximum_iterations=30, model={"entity": False}, timeout=200)
    check(plugin, result)
    assert result.text == "Done." and len(result.tool_requests) == 20
    assert max(len(prompt_text(request).encode()) for request in result.llm_requests) < 5 * MB


# --- 6. a neighbour session on the same process ------------------------------------------------------------


def _heavy(plugin, strategy, turns, tools=(), **fields):
    heavy = ScriptedRun(plugin)
    return lambda: heavy(turns, tools=list(tools), strategy=strategy, timeout=120, **fields)


NEIGHBOURS = {
    "a JSON tool message of 4 MB": lambda plugin, s: _heavy(
        plugin, s, [call(s, "vault", q="x"), answer_turn(s, "Done.")],
        [tool(responses=[json_message({"rows": [{"k": n, "v": "x" * 30} for n in range(80_000)]})])]),
    "a knowledge context of 6 MB": lambda plugin, s: _heavy(
        plugin, s, [answer_turn(s, "Done.")],
        context=[{"content": "k" * 20_000, "title": f"d{n}", "metadata": {}} for n in range(300)]),
    "memory of 5,000 turns": lambda plugin, s: _heavy(
        plugin, s, [answer_turn(s, "Done.")], history=SETTINGS["memory of 5,000 turns"]["history"]),
    "2,000 tools": lambda plugin, s: _heavy(
        plugin, s, [answer_turn(s, "Done."), answer_turn(s, "Done.")],
        [ScriptedTool(name=f"tool_{n}", description="x" * 300, parameters=[ToolParam("q")]) for n in range(2_000)]),
}


@pytest.mark.parametrize("kind", list(NEIGHBOURS))
def test_a_heavy_session_does_not_starve_a_streaming_neighbour(plugin, kind):
    strategy = "function_calling" if "tools" in kind else "ReAct"
    results = _with_neighbour(plugin, NEIGHBOURS[kind](plugin, strategy))
    check(plugin, results["heavy"], answer=False)
    # quiet: well under 0.3 s; 1.5 s leaves room for a loaded 2-core machine and still fails a
    # session that holds the process for seconds
    assert_not_held(worst_gap(results["light"]), 1.5, results["pace"])


def test_a_hanging_tool_neither_starves_a_neighbour_nor_outlives_its_limit(plugin):
    heavy = ScriptedRun(plugin)
    started = time.monotonic()
    results = _with_neighbour(plugin, lambda: heavy(
        [call("function_calling", "vault", q="x"), {"text": "Answered without it."}],
        tools=[tool(hang=True)], params={"tool_timeout": 3}, timeout=60))
    check(plugin, results["heavy"])
    assert results["heavy"].text == "Answered without it."
    assert time.monotonic() - started < 20
    assert_not_held(worst_gap(results["light"]), 1.5, results["pace"])


# --- 7. the daemon's own time limit --------------------------------------------------------------------------

DAEMON_LIMIT = 12


@pytest.fixture(scope="module")
def limited():
    """A process whose daemon ends runs at 12 s (``PLUGIN_MAX_EXECUTION_TIMEOUT``)."""
    with PluginProcess(DEFAULT_PLUGIN_DIR, env={"PLUGIN_MAX_EXECUTION_TIMEOUT": str(DAEMON_LIMIT)}) as process:
        yield process


class Forever(ScriptedBackend):
    """A model whose every reply is ``piece`` every ``interval`` seconds, never finishing; with
    ``piece`` None it says nothing at all."""

    def __init__(self, piece: str | None, interval: float = 0.2) -> None:
        super().__init__([])
        self.piece, self.interval = piece, interval

    def invoke_llm(self, request):
        self.requests.append(request)

        def chunks():
            while not self._released.is_set():
                time.sleep(self.interval)
                if self.piece is not None:
                    yield {"model": "m", "prompt_messages": [], "system_fingerprint": "",
                           "delta": {"index": 0, "message": {"role": "assistant", "content": self.piece, "name": "",
                                                             "tool_calls": [], "tool_call_id": ""},
                                     "usage": None, "finish_reason": None}}
        return chunks()


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("piece", [None, "word "], ids=["silent", "streaming"])
def test_a_model_that_never_finishes_ends_before_the_daemons_limit(limited, strategy, piece):
    backend = Forever(piece)
    started = time.monotonic()
    try:
        result = run_scenario(Scenario(query="q", strategy=strategy, params={"model_timeout": 900}), backend,
                              default_toolbox(), plugin=limited, timeout=60)
    finally:
        backend.release()
    assert time.monotonic() - started < DAEMON_LIMIT
    check(limited, result, answer=False)


def test_an_always_calling_model_under_a_short_daemon_limit_still_answers(limited):
    """maximum_iterations far past what the time allows (clamped to 500), a model that calls every
    round, a tool of 0.2 s: the run stops calling in time and the model answers."""
    turns = [{"tool_calls": [{"id": f"c{n}", "name": "vault", "arguments": {"q": f"q{n}"}}]} for n in range(80)]
    runner = ScriptedRun(limited)
    started = time.monotonic()
    backend_turns = [*turns, {"text": "Answered in time."}]

    class AnswersWhenToldTo(ScriptedBackend):
        """Calls until a request tells it to call no more tools, then answers."""

        def invoke_llm(self, request):
            if self._next >= len(self._turns) - 1 or "Do not call any more tools" in prompt_text(request):
                with self._lock:
                    self._next = len(self._turns) - 1
            return super().invoke_llm(request)

    runner.backend = AnswersWhenToldTo(backend_turns)
    scenario = Scenario(query="q", tools=["vault"], params={"maximum_iterations": 10_000, "run_timeout": 3600})
    box = default_toolbox().add(tool(responses=[text_message("ok")], latency=0.2))
    try:
        result = run_scenario(scenario, runner.backend, box, plugin=limited, timeout=60)
    finally:
        runner.backend.release()
        box.release()
    assert time.monotonic() - started < DAEMON_LIMIT
    check(limited, result)
    assert result.text == "Answered in time."


# --- 8. no traceback shown ---------------------------------------------------------------------------------

TOOL_TRACEBACK = ('Traceback (most recent call last):\n  File "/app/tool.py", line 12, in _invoke\n'
                  '    raise ValueError("bad city")\nValueError: bad city')


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_tool_failing_with_a_traceback_shows_its_error_not_the_traceback(run, plugin, strategy):
    result = run([call(strategy, "vault", q="x"), answer_turn(strategy, "Done.")],
                 tools=[tool(error=TOOL_TRACEBACK)], strategy=strategy)
    check(plugin, result)
    (seen,) = observations(result.llm_requests[1])
    assert "bad city" in seen and TRACEBACK not in seen
