"""Blind cuts, wave 35 (issue 13, classes 4 and 5), through the real plugin process.

Cases designed first from the issue, the README, PLUGIN_README.md and docs/architecture.md alone,
taking the angles of how each official model plugin reports a reply cut by its output limit (read
in the plugins' own code): then those the earlier suites run (``test_blind_*_wave34.py``,
``test_red_team*.py``, ``test_cut_*.py``, ``test_json_step_cut_wave34.py``, ``test_run_deadline.py``)
were dropped. What is left:

* Azure OpenAI's chat route, which sends ``stop`` whatever the provider said and repeats the
  growing call list (snapshots of the arguments so far) on every chunk: a call of a reply whose
  usage reached ``max_tokens`` is not run, whether its arguments read whole or not;
* the output limit the run itself lowered to fit the context window, reached with ``stop``;
* the spellings ``max_output_tokens`` and mixed case not tried before;
* a ReAct reply cut right after ``Action:`` (no tool, no input, an empty input), and one whose first
  action is whole and whose second is cut;
* prices a model plugin may send that are no finite number (``NaN``, ``1e400``, ``Infinity``,
  ``""``, ``"$0.01"``, ``true``): the answer is kept, the field named, no line carries a
  non-finite number (``NaN`` is no JSON);
* tool stream items of other kinds with null or wrong data (a link, a variable, an image link, a
  log);
* the run's deadline set by ``AGENT_RUN_TIMEOUT`` alone in the plugin's environment, one that is
  no number, and node settings of 0, a negative number and text.
"""

from __future__ import annotations

import json
import math
import time

import pytest

from agent_core import prompts
from agent_core.tool_calls import LENGTH_BY_USAGE
from local_runner import PluginProcess, ScriptedBackend
from local_runner.builtin_tools import default_toolbox
from local_runner.daemon import DEFAULT_PLUGIN_DIR
from local_runner.scenario import ModelSettings, Scenario, run_scenario
from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import (
    STRATEGIES,
    answer_turn,
    assert_clean_end,
    assert_no_traceback,
    plugin_lines,
    prompt_text,
)

LIMIT = 64
AZURE = {"provider": "langgenius/azure_openai/azure_openai", "model": "gpt-4o",
         "completion_params": {"temperature": 0.2, "max_tokens": LIMIT}}


def lookup(name: str = "lookup", latency: float = 0.0, **kwargs) -> ScriptedTool:
    """``lookup(q)`` answering ``<name> found it`` after ``latency`` seconds."""
    return ScriptedTool(name=name, description="Looks a word up", parameters=[ToolParam("q", description="the word")],
                        responses=[text_message(f"{name} found it")], latency=latency, **kwargs)


def react_call(q: str = "a") -> str:
    return f'Thought: look it up.\nAction: lookup\nAction Input: {{"q": "{q}"}}'


def thoughts(result) -> list:
    return [n for n in result.logs.values() if n.label.endswith("Thought")]


def tool_messages(request: dict) -> dict[str, str]:
    return {m.get("tool_call_id"): m["content"] for m in request["prompt_messages"] if m["role"] == "tool"}


# --- Azure OpenAI: `stop` always, the growing call list on every chunk --------------------------------


def azure_call_chunks(pieces: list[str], tokens: int) -> list[dict]:
    """A streamed Azure reply: one chunk per argument piece, each carrying the whole call list as
    it stood (the plugin yields the same growing list), then the plugin's own last chunk: no
    calls, ``stop``, and the API's usage."""
    chunks, so_far = [], ""
    for piece in pieces:
        so_far += piece
        chunks.append({"content": "", "tool_calls": [
            {"id": "call_az1", "type": "function", "function": {"name": "lookup", "arguments": so_far}}]})
    chunks.append({"content": "", "tool_calls": [], "finish_reason": "stop",
                   "usage": {"prompt_tokens": 50, "completion_tokens": tokens}})
    return chunks


@pytest.mark.parametrize("pieces", [['{"q": ', '"Par'], ['{"q": ', '"Paris"}']], ids=["cut-mid-string", "reads-whole"])
def test_azure_call_at_the_limit_with_stop_is_not_run(run, pieces):
    turns = [{"chunks": azure_call_chunks(pieces, LIMIT)},
             {"tool_calls": [{"id": "c2", "name": "lookup", "arguments": {"q": "Paris"}}]},
             {"text": "Found."}]
    result = run(turns, query="Look up Paris.", tools=[lookup()], model=AZURE)
    assert_clean_end(result)
    assert result.text == "Found."
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"q": "Paris"}]  # only the second reply's
    told = tool_messages(result.llm_requests[1])
    assert set(told) == {"call_az1"} and "output limit" in told["call_az1"]
    assert thoughts(result)[0].data.get("finish_reason") == LENGTH_BY_USAGE


def test_azure_call_under_the_limit_with_stop_runs(run):
    turns = [{"chunks": azure_call_chunks(['{"q": ', '"Paris"}'], LIMIT - 1)}, {"text": "Found."}]
    result = run(turns, query="Look up Paris.", tools=[lookup()], model=AZURE)
    assert_clean_end(result)
    assert result.text == "Found."
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"q": "Paris"}]


# --- the limit the run lowered to fit the context window -----------------------------------------------


class AtSentLimit(ScriptedBackend):
    """Each turn reports as many completion tokens as the request's ``max_tokens`` (the limit
    the plugin sent, which it may have lowered), with ``stop``, as the Ollama plugin would."""

    def invoke_llm(self, request):
        sent = (request.get("completion_params") or {}).get("max_tokens")
        with self._lock:
            if self._next < len(self._turns) and self._turns[self._next].get("at_sent_limit") is not False:
                turn = dict(self._turns[self._next])
                turn["usage"] = {"prompt_tokens": 100, "completion_tokens": int(sent)}
                turn["finish_reason"] = "stop"
                self._turns[self._next] = turn
        return super().invoke_llm(request)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_answer_at_a_limit_the_run_lowered_is_continued(plugin, strategy):
    """The node asks for 4,000 tokens in a window of 6,000 with a prompt of about 3,000: the run
    sends a smaller ``max_tokens``; a reply reaching exactly that, said ``stop``, was cut."""
    model = ModelSettings.from_dict({"context_size": 6000, "completion_params": {"max_tokens": 4000}})
    backend = AtSentLimit([answer_turn(strategy, "The list: one, two"), {"text": ", three."}])
    backend._turns[1] = {**backend._turns[1], "at_sent_limit": False}
    query = "List them. " + "word " * 2500
    try:
        result = run_scenario(Scenario(query=query, strategy=strategy, model=model), backend, default_toolbox(),
                              plugin=plugin, timeout=60)
    finally:
        backend.release()
    sent = backend.requests[0]["completion_params"]["max_tokens"]
    assert sent < 4000, "the run was meant to lower the limit"
    assert_clean_end(result)
    assert result.text == "The list: one, two, three."


# --- spellings not tried before -------------------------------------------------------------------------


@pytest.mark.parametrize("reason", ["max_output_tokens", "Max_Tokens", "MAX_LENGTH"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_other_spellings_of_a_cut_are_continued(run, strategy, reason):
    result = run([{**answer_turn(strategy, "The sum is"), "finish_reason": reason}, {"text": " four."}],
                 query="2+2?", strategy=strategy)
    assert_clean_end(result)
    assert result.text == "The sum is four."


# --- ReAct: a cut right after the action label; a whole action then a cut one -------------------------------


@pytest.mark.parametrize("text", [
    "Thought: I will look it up.\nAction:",
    "Thought: I will look it up.\nAction: ",
    "Thought: I will look it up.\nAction: lookup",
    "Thought: I will look it up.\nAction: lookup\nAction Input:",
    "Thought: I will look it up.\nAction: lookup\nAction Input: {",
    "Thought: I will look it up.\n**Action:** `lookup`\n**Action Input:** `{\"q\": ",
])
def test_react_reply_cut_right_after_the_action_label_runs_nothing(run, text):
    turns = [{"text": text, "finish_reason": "length"}, {"text": react_call()}, answer_turn("ReAct", "Found.")]
    result = run(turns, query="Look up a.", tools=[lookup()], strategy="ReAct")
    assert_clean_end(result)
    assert result.text == "Found."
    assert len(result.tool_requests) == 1
    assert "output limit" in prompt_text(result.llm_requests[1])


def test_react_whole_action_then_a_second_one_cut_runs_neither(run):
    first = react_call("a") + '\nThought: and b too.\nAction: lookup\nAction Input: {"q": "b'
    turns = [{"text": first, "finish_reason": "max_tokens"}, {"text": react_call("a")}, answer_turn("ReAct", "Both.")]
    result = run(turns, query="Look up a and b.", tools=[lookup()], strategy="ReAct")
    assert_clean_end(result)
    assert result.text == "Both."
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"q": "a"}]
    assert "output limit" in prompt_text(result.llm_requests[1])


# --- prices that are no finite number -------------------------------------------------------------------


def _finite_numbers(value) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite_numbers(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite_numbers(v) for v in value)
    return True


@pytest.mark.parametrize("price", ["NaN", "1e400", "Infinity", "-inf", "$0.01", "", True],
                         ids=["NaN", "1e400", "Infinity", "-inf", "currency-sign", "empty", "true"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_price_that_is_no_finite_number_is_named_and_the_answer_kept(run, plugin, strategy, price):
    usage = {"prompt_tokens": 10, "completion_tokens": 2, "prompt_price": "0.001", "completion_price": price,
             "currency": "USD"}
    result = run([{**answer_turn(strategy, "Hi."), "usage": usage}], query="Hi", strategy=strategy)
    assert_clean_end(result)
    assert_no_traceback(result)
    assert result.text == "Hi."
    metadata = result.execution_metadata
    assert _finite_numbers(metadata), metadata
    assert metadata["completion_tokens"] == 2
    assert float(metadata["prompt_price"]) == pytest.approx(0.001)
    (thought,) = thoughts(result)
    problem = thought.data.get("usage_error")
    if price == "":
        assert problem is None or "completion_price" in problem  # no price, or named
    else:
        assert problem and "completion_price" in problem, thought.data
    for entry, _ in plugin_lines(plugin, result):  # no NaN or Infinity, which no strict JSON reader takes
        assert _finite_numbers(entry.get("json")), str(entry)[:500]


# --- tool stream items of other kinds with null or wrong data --------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_other_stream_items_with_null_or_wrong_data_are_reported_and_the_rest_kept(run, strategy):
    responses = [
        text_message("first part"),
        {"type": "link", "message": None, "meta": None},
        {"type": "variable", "message": {"variable_name": None, "variable_value": 3, "stream": False}, "meta": None},
        {"type": "image_link", "message": {"text": ["not", "a", "url"]}, "meta": None},
        {"type": "log", "message": "not a log", "meta": None},
        {"type": "text", "message": {"text": {"nested": "object"}}, "meta": None},
        text_message("second part"),
    ]
    tool = ScriptedTool(name="report", description="Reports", parameters=[ToolParam("q", description="q")],
                        responses=responses)
    if strategy == "ReAct":
        first = {"text": 'Thought: report.\nAction: report\nAction Input: {"q": "a"}'}
    else:
        first = {"tool_calls": [{"id": "c1", "name": "report", "arguments": {"q": "a"}}]}
    result = run([first, answer_turn(strategy, "Done.")], query="Report.", tools=[tool], strategy=strategy)
    assert_clean_end(result)
    assert_no_traceback(result)
    assert result.text == "Done."
    seen = prompt_text(result.llm_requests[1])
    assert "first part" in seen and "second part" in seen
    (node,) = [n for n in result.logs.values() if n.label == "CALL report"]
    logged = json.dumps({"data": node.data, "error": node.error, "metadata": node.metadata}, default=str)
    assert "first part" in logged and "second part" in logged
    assert "unreadable" in logged, logged[:2000]


# --- the run's deadline from the environment alone, and odd node settings ----------------------------------

ENV_LIMIT = 12


@pytest.fixture(scope="module")
def env_limited():
    """A process whose environment sets ``AGENT_RUN_TIMEOUT`` (and no daemon limit)."""
    with PluginProcess(DEFAULT_PLUGIN_DIR, env={"AGENT_RUN_TIMEOUT": str(ENV_LIMIT)}) as process:
        yield process


def _play(plugin, turns, tools, strategy, **fields):
    backend = ScriptedBackend(turns)
    toolbox = default_toolbox()
    for tool in tools:
        toolbox.add(tool)
    try:
        return backend, run_scenario(Scenario(query="Look everything up.", tools=[t.name for t in tools],
                                              strategy=strategy, **fields),
                                     backend, toolbox, plugin=plugin, timeout=60)
    finally:
        backend.release()
        toolbox.release()


class CallsUntilTold(ScriptedBackend):
    """A model that calls ``lookup`` every round and answers once the request holds the note that
    time is almost up."""

    def __init__(self, strategy: str) -> None:
        super().__init__([])
        self.strategy = strategy

    def invoke_llm(self, request):
        n = len(self.requests)
        if prompts.TIME_LIMIT_NOTE[:40] in prompt_text(request):
            turn = answer_turn(self.strategy, "What I found.")
        elif self.strategy == "ReAct":
            turn = {"text": react_call(f"w{n}")}
        else:
            turn = {"tool_calls": [{"id": f"c{n}", "name": "lookup", "arguments": {"q": f"w{n}"}}]}
        with self._lock:
            self._turns.append(turn)
        return super().invoke_llm(request)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_agent_run_timeout_in_the_environment_makes_the_model_answer_in_time(env_limited, strategy):
    """Each round takes 1.5 s of tool time and the node sets no limit; ``AGENT_RUN_TIMEOUT=12``
    alone: the model is asked for its answer before a round would pass the limit, and the run
    ends under it with that answer."""
    backend = CallsUntilTold(strategy)
    toolbox = default_toolbox()
    toolbox.add(lookup(latency=1.5))
    started = time.monotonic()
    try:
        result = run_scenario(Scenario(query="Look everything up.", tools=["lookup"], strategy=strategy,
                                       params={"maximum_iterations": 50}),
                              backend, toolbox, plugin=env_limited, timeout=60)
    finally:
        backend.release()
        toolbox.release()
    assert time.monotonic() - started < ENV_LIMIT
    assert_clean_end(result)
    assert result.text == "What I found."
    assert any(n.label == "TIME LIMIT" for n in result.logs.values())
    assert 2 <= len(result.tool_requests) <= 6  # rounds of 1.6 s while 3.2 s are left before the 10 s deadline


@pytest.mark.parametrize("setting", [0, -30, 1e-9])
def test_node_run_timeout_of_zero_or_negative_is_clamped_and_the_run_answers(run, setting):
    """(Text never reaches the plugin: Dify's node converts a number setting first and fails on
    text; ``tests/unit/test_params.py`` checks the plugin's own error naming it.)"""
    result = run([{"text": "Hello."}], query="Hi", params={"run_timeout": setting})
    assert_clean_end(result)
    assert result.text == "Hello."


def test_agent_run_timeout_that_is_no_number_is_ignored():
    with PluginProcess(DEFAULT_PLUGIN_DIR, env={"AGENT_RUN_TIMEOUT": "ten minutes"}) as process:
        _, result = _play(process, [{"text": "Hello."}], [], "function_calling")
    assert_clean_end(result)
    assert result.text == "Hello."
    assert not any("AGENT_RUN_TIMEOUT" in line and "Traceback" in line for line in process.noise)


@pytest.mark.parametrize("env", [{"PLUGIN_MAX_EXECUTION_TIMEOUT": "0"}, {"AGENT_RUN_TIMEOUT": "0"},
                                 {"AGENT_RUN_TIMEOUT": "-5"}], ids=["daemon-0", "agent-0", "agent-negative"])
def test_a_deadline_variable_of_zero_or_less_is_no_ten_second_limit(env):
    """The daemon reads ``PLUGIN_MAX_EXECUTION_TIMEOUT=0`` as unset (its own default applies), and
    a limit of zero or less is no limit a deployment means: neither may shrink every run to the
    node's 10 s minimum. A tool of 6 s runs whole and the model answers with its result."""
    with PluginProcess(DEFAULT_PLUGIN_DIR, env=env) as process:
        turns = [{"tool_calls": [{"id": "c1", "name": "lookup", "arguments": {"q": "a"}}]}, {"text": "Found."}]
        backend, result = _play(process, turns, [lookup(latency=6.0)], "function_calling")
    assert_clean_end(result)
    assert result.text == "Found."
    assert "lookup found it" in prompt_text(backend.requests[1])
    assert not any(n.label == "TIME LIMIT" for n in result.logs.values())


# --- more combinations: a cut answer in the user's schema, a continuation that is a cut call -------------

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def test_a_cut_answer_in_the_users_json_schema_is_never_shown_in_part(run):
    """The user's schema answer cut mid-string: the part is no valid JSON and never the answer;
    the whole one (asked for again or continued) is."""
    model = {"completion_params": {"max_tokens": 1024, "response_format": "json_schema",
                                   "json_schema": json.dumps(SCHEMA)}}
    turns = [{"text": '{"city": "Par', "finish_reason": "length"}, {"text": '{"city": "Paris"}'},
             {"text": '{"city": "Paris"}'}]
    result = run(turns, query="Which city?", model=model)
    assert_clean_end(result)
    assert_no_traceback(result)
    assert '{"city": "Par"' not in result.text and not result.text.startswith('{"city": "Par{')
    shown = json.loads(result.text.split("\n")[0]) if result.text.startswith("{") else None
    assert shown == {"city": "Paris"}, result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_continuation_that_is_only_a_cut_call_runs_nothing_and_keeps_the_start(run, strategy):
    if strategy == "ReAct":
        rest = {"text": 'Action: lookup\nAction Input: {"q": "Par', "finish_reason": "length"}
    else:
        rest = {"tool_calls": [{"id": "c9", "name": "lookup", "arguments": '{"q": "Par'}], "finish_reason": "length"}
    turns = [{**answer_turn(strategy, "Paris is the"), "finish_reason": "length"}, rest]
    result = run(turns, query="Capital of France?", tools=[lookup()], strategy=strategy)
    assert_clean_end(result)
    assert result.tool_requests == []
    assert result.text.startswith("Paris is the")
    assert "output limit" in result.text


def test_react_action_with_an_invented_observation_and_answer_in_a_cut_reply_runs_nothing(run):
    text = react_call("a") + "\nObservation: lookup says 42\nThought: done.\nFinal Answer: It is 4"
    turns = [{"text": text, "finish_reason": "length"}, {"text": react_call("a")}, answer_turn("ReAct", "Found.")]
    result = run(turns, query="Look up a.", tools=[lookup()], strategy="ReAct")
    assert_clean_end(result)
    assert result.text == "Found."
    assert len(result.tool_requests) == 1
    assert "It is 4" not in result.text


@pytest.mark.parametrize("field", ["prompt_unit_price", "completion_unit_price", "total_price", "latency",
                                   "prompt_price_unit"])
@pytest.mark.parametrize("value", ["NaN", "1e400"])
def test_other_usage_fields_that_are_no_finite_number_keep_the_answer_and_every_line_json(run, plugin, field, value):
    usage = {"prompt_tokens": 10, "completion_tokens": 2, "prompt_price": "0.001", "completion_price": "0.001",
             field: value, "currency": "USD"}
    result = run([{"text": "Hi.", "usage": usage}], query="Hi")
    assert_clean_end(result)
    assert result.text == "Hi."
    assert _finite_numbers(result.execution_metadata), result.execution_metadata
    for entry, _ in plugin_lines(plugin, result):
        assert _finite_numbers(entry.get("json")), str(entry)[:500]


@pytest.mark.parametrize("item", [
    {"type": "blob", "message": None, "meta": None},
    {"type": "blob", "message": {"blob": 12}, "meta": None},
    {"type": "blob_chunk", "message": {"id": None, "sequence": "x", "total_length": -1, "blob": None, "end": "no"},
     "meta": None},
    {"type": "file", "message": None, "meta": None},
    {"type": "retriever_resources", "message": "not a list", "meta": None},
    {"type": "unknown_kind", "message": {"text": "x"}, "meta": None},
], ids=["blob-null", "blob-int", "blob-chunk", "file-null", "retriever", "unknown-type"])
def test_one_unreadable_item_among_text_is_reported_and_the_rest_kept(run, item):
    responses = [text_message("first part"), item, text_message("second part")]
    tool = ScriptedTool(name="report", description="Reports", parameters=[ToolParam("q", description="q")],
                        responses=responses)
    turns = [{"tool_calls": [{"id": "c1", "name": "report", "arguments": {"q": "a"}}]}, {"text": "Done."}]
    result = run(turns, query="Report.", tools=[tool])
    assert_clean_end(result)
    assert_no_traceback(result)
    assert result.text == "Done."
    seen = prompt_text(result.llm_requests[1])
    assert "first part" in seen and "second part" in seen
    (node,) = [n for n in result.logs.values() if n.label == "CALL report"]
    logged = json.dumps({"data": node.data, "error": node.error, "metadata": node.metadata}, default=str)
    assert "first part" in logged and "second part" in logged


# --- third pass: cut answers known by usage in JSON steps, an empty cut answer, cut rounds in a row ---------

STRUCTURED = {"features": ["structured-output"], "completion_params": {"max_tokens": LIMIT}}


def json_step(action, action_input) -> str:
    return json.dumps({"action": action, "action_input": action_input})


def test_a_json_step_answer_cut_known_only_by_its_usage_is_continued(run):
    """Ollama's plugin says ``stop`` whatever happened: a JSON step cut inside its answer's string
    whose usage reached ``max_tokens`` is shown so far and its rest asked for."""
    start = json_step("Final Answer", "The three laws are: one, two")[:-2]
    turns = [{"text": start, "finish_reason": "stop", "usage": {"prompt_tokens": 30, "completion_tokens": LIMIT}},
             {"text": ", and three."}]
    result = run(turns, query="List the laws.", tools=[lookup()], strategy="ReAct", model=STRUCTURED)
    assert_clean_end(result)
    assert result.text == "The three laws are: one, two, and three."
    assert result.tool_requests == []


def test_a_json_step_naming_a_tool_cut_known_only_by_its_usage_is_not_run(run):
    cut_call = json_step("lookup", {"q": "Paris"})
    turns = [{"text": cut_call, "finish_reason": "stop", "usage": {"prompt_tokens": 30, "completion_tokens": LIMIT}},
             {"text": json_step("lookup", {"q": "Paris"})}, {"text": json_step("Final Answer", "Found.")}]
    result = run(turns, query="Look up Paris.", tools=[lookup()], strategy="ReAct", model=STRUCTURED)
    assert_clean_end(result)
    assert result.text == "Found."
    assert len(result.tool_requests) == 1


@pytest.mark.parametrize("text", ["Thought: I know it.\nFinal Answer:", "Thought: I know it.\nFinal Answer: \n",
                                  "Final Answer:"])
def test_react_reply_cut_right_after_the_final_answer_label_shows_no_empty_answer(run, text):
    turns = [{"text": text, "finish_reason": "length"}, answer_turn("ReAct", "Paris."), answer_turn("ReAct", "Paris.")]
    result = run(turns, query="Capital of France?", strategy="ReAct")
    assert_clean_end(result)
    assert result.text.strip() == "Paris.", result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_cut_call_round_then_a_cut_answer_runs_nothing_and_keeps_the_answer_start(run, strategy):
    if strategy == "ReAct":
        first = {"text": 'Thought: look.\nAction: lookup\nAction Input: {"q": "Par', "finish_reason": "length"}
    else:
        first = {"tool_calls": [{"id": "c1", "name": "lookup", "arguments": '{"q": "Par'}], "finish_reason": "length"}
    turns = [first, {**answer_turn(strategy, "Paris is the"), "finish_reason": "length"}, {"text": " capital."},
             {"text": "never asked"}]
    result = run(turns, query="Capital of France?", tools=[lookup()], strategy=strategy)
    assert_clean_end(result)
    assert result.tool_requests == []
    assert result.text.startswith("Paris is the")
    assert "never asked" not in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_continuation_cut_inside_its_reasoning_ends_with_the_start_and_the_notice(run, strategy):
    turns = [{**answer_turn(strategy, "Paris is the"), "finish_reason": "length"},
             {"text": "<think>I should continue with capital of", "finish_reason": "length"}, {"text": "never asked"}]
    result = run(turns, query="Capital of France?", strategy=strategy)
    assert_clean_end(result)
    assert result.text.startswith("Paris is the")
    assert "output limit" in result.text and "never asked" not in result.text
    assert "I should continue" not in result.text


def test_azure_two_calls_as_growing_snapshots_under_the_limit_each_run_once(run):
    """Azure's plugin yields its whole call list, arguments so far, on every chunk: two calls so
    streamed run once each with their whole arguments."""
    chunks, a, b = [], "", ""
    for piece_a, piece_b in [('{"q"', ""), (': "a"}', ""), ("", '{"q": '), ("", '"b"}')]:
        a, b = a + piece_a, b + piece_b
        calls = [{"id": "call_a", "type": "function", "function": {"name": "lookup", "arguments": a}}]
        if b:
            calls.append({"id": "call_b", "type": "function", "function": {"name": "lookup", "arguments": b}})
        chunks.append({"content": "", "tool_calls": calls})
    chunks.append({"content": "", "tool_calls": [], "finish_reason": "stop",
                   "usage": {"prompt_tokens": 50, "completion_tokens": 20}})
    result = run([{"chunks": chunks}, {"text": "Both found."}], query="Look up a and b.", tools=[lookup()], model=AZURE)
    assert_clean_end(result)
    assert result.text == "Both found."
    assert sorted(r["tool_parameters"]["q"] for r in result.tool_requests) == ["a", "b"]
