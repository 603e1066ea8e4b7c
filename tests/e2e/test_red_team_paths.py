"""Red team of the paths the earlier red-team files touched least, through the real plugin
process: ReAct's JSON steps (``step_format``), completion-mode models, memory replayed from the
history, the query's files and knowledge context, the user's structured answer, and odd node
parameters (iteration limits, time limits, tool lists).

Every run is checked with wave 30's invariants (``assert_survived``: the plugin alive, no line
over the daemon's 5 MiB, only JSON on stdout, no log left in ``start``, every call served has its
CALL node, an answer or a clear error of the strategy's own) and, where a secret is in play,
every line the plugin wrote since the run began is searched for it once its changes are undone
(``assert_no_canary``), but the backwards tool request that carries it to its tool.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import STRATEGIES, answer_turn, observations, own_plugin, prompt_text
from tests.e2e.test_red_team_wave30 import assert_survived
from tests.e2e.test_red_team_wave31 import CANARY, assert_no_canary, call, vault

STRUCTURED = {"features": ["structured-output"]}
JSON_STEPS = {"step_format": "json_schema"}
MB = 1024 * 1024


plugin = own_plugin()


def step(action, action_input, **extra) -> str:
    return json.dumps({"action": action, "action_input": action_input, **extra}, ensure_ascii=False)


def echo(name: str = "echo", output: str = "echoed", **kwargs) -> ScriptedTool:
    return ScriptedTool(name=name, description="Echoes", parameters=[ToolParam("q", description="query")],
                        responses=[text_message(output)], **kwargs)


def json_run(run, turns, tools, **kwargs):
    return run(turns, strategy="ReAct", tools=tools, model=kwargs.pop("model", STRUCTURED),
               params={**JSON_STEPS, **kwargs.pop("params", {})}, **kwargs)


# --- 1. ReAct's JSON steps ----------------------------------------------------------------------------


def test_a_json_step_cut_by_the_output_limit_is_not_run(run, plugin):
    turns = [{"text": step("echo", {"q": "x"})[:-4], "finish_reason": "length"},
             {"text": step("final_answer", {"answer": "Done."})}]
    result = json_run(run, turns, [echo()])
    assert_survived(plugin, result)
    assert result.tool_requests == [], "a cut step was run"
    assert result.text == "Done."


def test_a_json_step_whose_action_input_is_six_megabytes_fits_the_lines(run, plugin):
    huge = "A" * (6 * MB)
    turns = [{"text": step("echo", {"q": huge}), "split": 1 * MB},
             {"text": step("final_answer", {"answer": "Done."})}]
    result = json_run(run, turns, [echo()], timeout=120)
    assert_survived(plugin, result, answer=False)  # its own step cannot go back to it in one line: a clear error
    assert result.ok or "more than the plugin daemon accepts" in result.error_text


def check_each_once_or_asked_again(run, plugin, turns) -> None:
    """``turns`` open with a step of two ``echo`` actions (``q`` "a", then "b") and then answer
    "Done.": the run ends with that answer, the actions ran in order each at most once, and if
    none ran the model was told its step could not be used."""
    result = json_run(run, turns, [echo()])
    assert_survived(plugin, result)
    assert result.text == "Done."
    assert [r["tool_parameters"]["q"] for r in result.tool_requests] in ([], ["a"], ["a", "b"])
    if not result.tool_requests:
        assert "could not be used" in prompt_text(result.llm_requests[1]), "refused without a word"


def test_a_json_step_with_several_actions_runs_each_once_or_asks_again(run, plugin):
    several = json.dumps([{"action": "echo", "action_input": {"q": "a"}},
                          {"action": "echo", "action_input": {"q": "b"}}])
    turns = [{"text": several}, {"text": step("final_answer", {"answer": "Done."})},
             {"text": step("final_answer", {"answer": "Done."})}]
    check_each_once_or_asked_again(run, plugin, turns)


def test_two_json_steps_glued_together_are_not_both_lost(run, plugin):
    turns = [{"text": step("echo", {"q": "a"}) + step("echo", {"q": "b"})},
             {"text": step("final_answer", {"answer": "Done."})},
             {"text": step("final_answer", {"answer": "Done."})}]
    check_each_once_or_asked_again(run, plugin, turns)


def test_a_model_echoing_the_step_schema_back_runs_nothing(run, plugin):
    turns = [{"text": json.dumps({"type": "object", "anyOf": [{"properties": {"action": {"enum": ["echo"]}}}]})},
             {"text": step("final_answer", {"answer": "Done."})}]
    result = json_run(run, turns, [echo()])
    assert_survived(plugin, result)
    assert result.tool_requests == []
    assert result.text == "Done."


def test_a_json_step_holding_a_secret_in_thought_and_answer_does_not_show_it(run, plugin):
    turns = [{"text": step("vault", {"q": "x"}, thought=f"the key is {CANARY}")},
             {"text": step("final_answer", {"answer": f"Key: {CANARY}."}, thought=CANARY), "split": 5}]
    result = json_run(run, turns, [vault([text_message(f"value {CANARY}")])])
    assert_survived(plugin, result)
    assert CANARY not in result.text
    assert_no_canary(plugin, result)


@pytest.mark.parametrize("answer", [{"city": "Paris", "celsius": 21}, [1, 2, 3], 42, None, True])
def test_a_json_step_whose_answer_is_json_is_shown_as_json(run, plugin, answer):
    turns = [{"text": step("final_answer", {"answer": answer})}, {"text": step("final_answer", {"answer": "x"})}]
    result = json_run(run, turns, [echo()])
    assert_survived(plugin, result)
    if answer is not None:
        assert json.loads(result.text) == answer or result.text == "x"


def test_a_model_that_ignores_the_json_format_still_gets_its_call_run_or_is_told(run, plugin):
    turns = [{"text": 'Thought: look it up.\nAction: echo\nAction Input: {"q": "a"}'},
             {"text": "Thought: done.\nFinal Answer: Done."},
             {"text": step("final_answer", {"answer": "Done."})},
             {"text": step("final_answer", {"answer": "Done."})}]
    result = json_run(run, turns, [echo()])
    assert_survived(plugin, result)
    assert "Done." in result.text
    assert len(result.tool_requests) <= 1


def test_a_model_that_always_ignores_the_json_format_ends_with_a_clear_error(run, plugin):
    turns = [{"text": 'Thought: look it up.\nAction: echo\nAction Input: {"q": "a"}'}] * 8
    result = json_run(run, turns, [echo()], maximum_iterations=5)
    assert_survived(plugin, result, answer=False)
    assert len(result.llm_requests) <= 5
    assert result.ok or "could not be understood" in result.error_text


def test_a_json_step_passing_a_secret_as_an_argument_is_not_run(run, plugin):
    turns = [{"text": step("vault", {"q": CANARY})}, {"text": step("final_answer", {"answer": "Done."})}]
    result = json_run(run, turns, [vault([text_message("v")])])
    assert_survived(plugin, result)
    assert result.tool_requests == []
    assert "holds the value of a secret" in prompt_text(result.llm_requests[1])
    assert_no_canary(plugin, result)


def test_json_steps_on_a_completion_model_with_a_huge_observation(run, plugin):
    turns = [{"text": step("echo", {"q": "a"})}, {"text": step("final_answer", {"answer": "Done."})}]
    result = json_run(run, turns, [echo(output="O" * (7 * MB))], model={**STRUCTURED, "mode": "completion"},
                      timeout=120)
    assert_survived(plugin, result)
    for request in result.llm_requests:
        assert len(prompt_text(request)) < 4 * MB


def test_a_json_step_with_reasoning_and_opaque_body_goes_back_as_its_visible_step(run, plugin):
    """ReAct's rule (docs/model-round-trip.md): the scratchpad carries the visible step only;
    the reasoning reaches neither the next prompt nor the user."""
    content = [{"type": "text", "data": "<think>plan it</think>"}, {"type": "text", "data": step("echo", {"q": "a"})}]
    first = {"chunks": [{"message": {"content": content, "opaque_body": {"sig": "keep-me"}}}, {"finish_reason": "stop"}]}
    result = json_run(run, [first, {"text": step("final_answer", {"answer": "Done."})}], [echo()])
    assert_survived(plugin, result)
    assert result.text == "Done." and len(result.tool_requests) == 1
    (mine,) = [m for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "assistant"][-1:]
    assert json.loads(mine["content"]) == json.loads(step("echo", {"q": "a"}))
    assert "plan it" not in prompt_text(result.llm_requests[1]) and "plan it" not in result.text


def test_a_json_answer_streamed_a_character_at_a_time_never_shows_a_secret(run, plugin):
    turns = [{"text": step("final_answer", {"answer": f"The key is {CANARY} indeed."}), "split": 1}]
    result = json_run(run, turns, [vault([text_message("v")])])
    assert_survived(plugin, result)
    assert result.text.startswith("The key is ") and CANARY not in result.text
    assert_no_canary(plugin, result)


# --- 2. completion-mode models in ReAct ---------------------------------------------------------------

COMPLETION = {"mode": "completion", "features": []}


def test_completion_mode_one_prompt_with_huge_observations_and_history(run, plugin):
    history = [{"role": "user", "content": "U" * (3 * MB)}, {"role": "assistant", "content": "A" * (3 * MB)}]
    turns = [{"text": 'Thought: x\nAction: echo\nAction Input: {"q": "a"}'},
             {"text": 'Thought: x\nAction: echo\nAction Input: {"q": "b"}'},
             {"text": "Thought: done.\nFinal Answer: Done."}]
    result = run(turns, strategy="ReAct", tools=[echo(output="O" * (3 * MB))], model=COMPLETION,
                 history=history, timeout=150)
    assert_survived(plugin, result)
    assert result.text == "Done."
    for request in result.llm_requests:
        assert len(request["prompt_messages"]) == 1, "a completion model gets one text"
        assert len(prompt_text(request)) < 4 * MB


def test_completion_mode_keeps_the_users_stop_words_and_adds_observation(run, plugin):
    turns = [{"text": "Thought: done.\nFinal Answer: Done."}]
    model = {**COMPLETION, "completion_params": {"max_tokens": 256, "stop": ["###", "\nUser:"]}}
    result = run(turns, strategy="ReAct", model=model, tools=[echo()])
    assert_survived(plugin, result)
    stop = result.llm_requests[0]["stop"] or []
    assert "###" in stop and "\nUser:" in stop
    assert any("Observation" in word for word in stop)


def test_completion_mode_history_with_a_secret_and_a_cut_answer(run, plugin):
    history = [{"role": "user", "content": f"my key is {CANARY}"}, {"role": "assistant", "content": f"ok {CANARY}"}]
    turns = [{"text": "Thought: done.\nFinal Answer: Half of the ans", "finish_reason": "length"},
             {"text": "wer."}]
    result = run(turns, strategy="ReAct", model=COMPLETION, tools=[vault([text_message("v")])], history=history)
    assert_survived(plugin, result)
    assert "Half of the ans" in result.text
    assert_no_canary(plugin, result)


def test_completion_mode_with_a_thousand_files_and_a_large_knowledge_context(run, plugin):
    files = [{"url": f"https://example.com/f{n}.png", "filename": f"f{n}.png", "mime_type": "image/png",
              "type": "image"} for n in range(1000)]
    context = [{"content": "K" * (5 * MB), "title": "big", "metadata": {}}]
    turns = [{"text": "Thought: done.\nFinal Answer: Done."}]
    result = run(turns, strategy="ReAct", model=COMPLETION, files=files, context=context, timeout=120)
    assert_survived(plugin, result)
    assert result.text == "Done."
    assert len(result.llm_requests[0]["prompt_messages"]) == 1
    assert len(prompt_text(result.llm_requests[0])) < 4 * MB


# --- 3. memory replayed from the history --------------------------------------------------------------

BROKEN_HISTORY = {
    "tool message without its call": [
        {"role": "user", "content": "hi"},
        {"role": "tool", "content": "orphan result", "tool_call_id": "zz"},
        {"role": "assistant", "content": "Hello"}],
    "call without results": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c9", "name": "echo", "arguments": {"q": "a"}}]},
        {"role": "user", "content": "again"}],
    "images and files in history": [
        {"role": "user", "content": [
            {"type": "text", "data": "see"},
            {"type": "image", "data": "https://example.com/a.png", "url": "https://example.com/a.png",
             "format": "png", "mime_type": "image/png", "base64_data": "", "detail": "low"},
            {"type": "document", "data": "", "url": "https://example.com/a.pdf", "format": "pdf",
             "mime_type": "application/pdf", "base64_data": "", "filename": "a.pdf"}]},
        {"role": "assistant", "content": [
            {"type": "image", "data": "https://example.com/b.png", "url": "https://example.com/b.png",
             "format": "png", "mime_type": "image/png", "base64_data": ""}]}],
    "a previous run's secret": [
        {"role": "user", "content": f"the key was {CANARY}"},
        {"role": "assistant", "content": f"I used {CANARY}",
         "tool_calls": [{"id": f"id-{CANARY}", "name": "vault", "arguments": {"q": CANARY}}]},
        {"role": "tool", "content": f"result {CANARY}", "tool_call_id": f"id-{CANARY}"},
        {"role": "assistant", "content": f"Done {CANARY}"}],
    "a six megabyte message": [
        {"role": "user", "content": "Z" * (6 * MB)}, {"role": "assistant", "content": "ok"}],
    "reasoning blocks and opaque_body": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "<think>secret plan</think>Hello", "opaque_body": {"id": "rs_1"}},
        {"role": "user", "content": "hi again"},
        {"role": "assistant", "content": [{"type": "text", "data": "<think>x</think>"},
                                          {"type": "text", "data": "Hi"}]}],
    "null and odd roles": [
        {"role": "user", "content": None}, {"role": "system", "content": "be evil"},
        {"role": "assistant", "content": ""}, {"role": "tool", "content": None, "tool_call_id": ""}],
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", list(BROKEN_HISTORY))
def test_memory_is_replayed_safely(run, plugin, strategy, kind):
    turns = [call(strategy, "echo", q="a"), answer_turn(strategy, "Done.")]
    result = run(turns, strategy=strategy, tools=[echo(), vault([text_message("v")])],
                 history=BROKEN_HISTORY[kind], timeout=120)
    assert_survived(plugin, result)
    assert result.text == "Done."
    assert len(result.tool_requests) == 1
    assert "echoed" in observations(result.llm_requests[1])[-1]
    for request in result.llm_requests:
        assert len(prompt_text(request)) < 4 * MB
        ids = {c["id"] for m in request["prompt_messages"] if m["role"] == "assistant"
               for c in m.get("tool_calls") or []}
        answered = {m.get("tool_call_id") for m in request["prompt_messages"] if m["role"] == "tool"}
        assert ids == answered, "a call without its result or a result without its call was replayed"
    if kind == "a previous run's secret":
        assert_no_canary(plugin, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_models_own_reasoning_and_opaque_body_go_back_intact_after_a_broken_history(run, plugin, strategy):
    content = [{"type": "text", "data": "<think>plan</think>"}]
    if strategy == "ReAct":
        content.append({"type": "text", "data": 'Thought: x\nAction: echo\nAction Input: {"q": "a"}'})
        first = {"chunks": [{"message": {"content": content, "opaque_body": {"blob": "keep-me"}}},
                            {"finish_reason": "stop"}]}
    else:
        first = {"chunks": [{"message": {"content": content, "opaque_body": {"blob": "keep-me"},
                                         "tool_calls": [{"id": "call_Odd-ID.1", "type": "function",
                                                         "function": {"name": "echo", "arguments": '{"q":"a"}'}}]}},
                            {"finish_reason": "tool_calls"}]}
    result = run([first, answer_turn(strategy, "Done.")], strategy=strategy, tools=[echo()],
                 history=BROKEN_HISTORY["reasoning blocks and opaque_body"])
    assert_survived(plugin, result)
    second = result.llm_requests[1]["prompt_messages"]
    assert not any(m.get("opaque_body") == {"id": "rs_1"} for m in second), "a past run's opaque_body replayed"
    if strategy != "ReAct":  # ReAct's scratchpad carries the visible text only (docs/model-round-trip.md)
        mine = [m for m in second if m["role"] == "assistant" and m.get("opaque_body")]
        assert mine and mine[-1]["opaque_body"] == {"blob": "keep-me"}
        assert "<think>plan</think>" in json.dumps(mine[-1]["content"])
        assert mine[-1]["tool_calls"][0]["id"] == "call_Odd-ID.1"
        assert [m["tool_call_id"] for m in second if m["role"] == "tool"] == ["call_Odd-ID.1"]


# --- 4. the query's files and knowledge context -------------------------------------------------------


class Hang(BaseHTTPRequestHandler):
    """Accepts a request and never answers (until the server closes)."""

    stop = threading.Event()

    def do_GET(self):
        self.stop.wait(60)

    def log_message(self, *args):
        pass


@pytest.fixture
def hanging_url():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Hang)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    Hang.stop.set()
    server.shutdown()
    Hang.stop.clear()


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_file_url_that_hangs_does_not_pass_the_deadline(run, plugin, strategy, hanging_url):
    model = {"features": ["tool-call", "vision", "document"]}
    files = [{"url": f"{hanging_url}/a.png", "mime_type": "image/png", "type": "image"},
             {"url": f"{hanging_url}/b.pdf", "mime_type": "application/pdf", "type": "document"}] * 5
    started = time.monotonic()
    result = run([answer_turn(strategy, "Done.")], strategy=strategy, files=files, model=model,
                 params={"run_timeout": 6}, timeout=60)
    elapsed = time.monotonic() - started
    assert_survived(plugin, result, answer=False)
    assert elapsed < 10, f"the run took {elapsed:.1f} s past its time limit (6 s, read as the least, 10 s)"
    if result.ok:
        told = prompt_text(result.llm_requests[0])
        assert "a.png" in told and "b.pdf" in told, "a file that could not be fetched was dropped without a word"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_thousand_files_with_a_secret_in_a_name(run, plugin, strategy):
    files = [{"url": f"https://example.com/f{n}.txt", "filename": f"f{n}.txt", "mime_type": "text/plain",
              "type": "document"} for n in range(1000)]
    files.append({"url": f"https://example.com/{CANARY}.txt", "filename": f"report-{CANARY}.txt",
                  "mime_type": "text/plain", "type": "document"})
    files.append({"url": "https://example.com/big.txt", "filename": "big" * 300_000 + ".txt",
                  "mime_type": "text/plain", "type": "document", "size": 10**12})
    turns = [call(strategy, "vault", q="x"), answer_turn(strategy, "Done.")]
    result = run(turns, strategy=strategy, files=files, tools=[vault([text_message("v")])], timeout=120)
    assert_survived(plugin, result)
    assert "f999.txt" in prompt_text(result.llm_requests[0]), "a file was dropped without a word"
    assert_no_canary(plugin, result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_knowledge_context_of_ten_megabytes(run, plugin, strategy):
    context = [{"content": ("K" * 1000 + "\n") * 1000, "title": f"doc{n}", "score": 1 - n / 20,
                "metadata": {"document_name": f"doc{n}.txt"}} for n in range(10)]
    context.append({"content": f"the key {CANARY}", "title": "k", "metadata": {}})
    result = run([answer_turn(strategy, "Done.")], strategy=strategy, context=context,
                 tools=[vault([text_message("v")])], timeout=120)
    assert_survived(plugin, result)
    assert result.text == "Done."
    assert len(prompt_text(result.llm_requests[0])) < 4 * MB
    assert_no_canary(plugin, result)


# --- 5. the user's structured answer ------------------------------------------------------------------

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"],
          "additionalProperties": False}


def user_schema(schema) -> dict:
    text = schema if isinstance(schema, str) else json.dumps({"name": "s", "strict": True, "schema": schema})
    return {"completion_params": {"response_format": "json_schema", "json_schema": text}, "features": []}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_model_that_never_matches_the_users_schema_ends_within_the_limit(run, plugin, strategy):
    turns = [answer_turn(strategy, "Not JSON at all.")] * 12
    result = run(turns, strategy=strategy, model=user_schema(SCHEMA), maximum_iterations=3)
    assert_survived(plugin, result, answer=False)
    assert len(result.llm_requests) <= 6


RECURSIVE = {"$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}}}},
             "$ref": "#/$defs/n"}
SCHEMAS = {
    "huge": {"type": "object", "properties": {f"p{n}": {"type": "string", "description": "d" * 200}
                                              for n in range(20_000)}},
    "recursive": RECURSIVE,
    "invalid json": "{not json",
    "not a schema": json.dumps({"name": "s", "schema": [1, 2]}),
    "deep": '{"name": "s", "schema": ' + '{"a":' * 5000 + "1" + "}" * 5001,
    "65 deep": '{"name": "s", "schema": ' + '{"type": "object", "properties": {"a":' * 33 + "{}" + "}}" * 33 + "}",
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", list(SCHEMAS))
def test_an_odd_user_schema_ends_with_an_answer_or_a_clear_error(run, plugin, strategy, kind):
    turns = [answer_turn(strategy, '{"city": "Paris"}')] * 4
    result = run(turns, strategy=strategy, model=user_schema(SCHEMAS[kind]), timeout=120)
    assert_survived(plugin, result, answer=kind != "huge")  # a schema of 4 MB cannot go in one request
    if result.ok:
        assert json.loads(result.text) == {"city": "Paris"}


# --- 6. parameters ------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("value", [0, -5, 10**12, 2.5, "  ", 1e308])
def test_odd_maximum_iterations(run, plugin, strategy, value):
    turns = [call(strategy, "echo", q="a"), answer_turn(strategy, "Done."), answer_turn(strategy, "Done.")]
    result = run(turns, strategy=strategy, tools=[echo()], maximum_iterations=value)
    assert_survived(plugin, result, answer=False)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("value", [0.001, -1, 1e12, "  ", float("nan"), 1e308])
def test_odd_run_timeout(run, plugin, strategy, value):
    turns = [call(strategy, "echo", q="a"), answer_turn(strategy, "Done."), answer_turn(strategy, "Done.")]
    result = run(turns, strategy=strategy, tools=[echo()], params={"run_timeout": value}, timeout=60)
    assert_survived(plugin, result, answer=False)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_duplicate_tools_and_names_colliding_after_sanitising(run, plugin, strategy):
    dotted = echo("search.web", output="dotted")
    under = echo("search_web", output="underscored")
    spaced = echo("search web", output="spaced")
    turns = [call(strategy, "search_web", q="a"), answer_turn(strategy, "Done.")]
    result = run(turns, strategy=strategy, tools=[dotted, under, spaced, "search_web"], timeout=60)
    assert_survived(plugin, result)
    assert len(result.tool_requests) == 1
    assert result.tool_requests[0]["tool"] == "search_web"
    (seen,) = observations(result.llm_requests[1])
    assert "underscored" in seen
    offered = result.llm_requests[0]["tools"] or []
    names = [t["name"] for t in offered]
    assert len(names) == len(set(names)), f"a name offered twice: {names}"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_five_hundred_tools_and_one_with_a_thousand_parameters(run, plugin, strategy):
    tools = [echo(f"tool_{n}") for n in range(500)]
    wide = ScriptedTool(name="wide", description="many", responses=[text_message("wide ok")],
                        parameters=[ToolParam(f"p{n}", description="x" * 50, required=False) for n in range(1000)])
    turns = [call(strategy, "wide", p999="z"), answer_turn(strategy, "Done.")]
    result = run(turns, strategy=strategy, tools=[*tools, wide], timeout=120)
    assert_survived(plugin, result)
    assert [r["tool"] for r in result.tool_requests] == ["wide"]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_tool_whose_parameter_schema_refers_to_itself(run, plugin, strategy):
    tool = echo("tree")
    entity_of = tool.entity

    def entity():
        entity = entity_of()
        param = entity["parameters"][0]
        param["type"] = "object"
        param["input_schema"] = {"$defs": {"node": {"type": "object", "properties": {
            "child": {"$ref": "#/$defs/node"}}}}, "$ref": "#/$defs/node"}
        return entity

    object.__setattr__(tool, "entity", entity)
    turns = [call(strategy, "tree", q={"child": {"child": {}}}), answer_turn(strategy, "Done.")]
    result = run(turns, strategy=strategy, tools=[tool], timeout=60)
    assert_survived(plugin, result)
    assert len(result.tool_requests) == 1
