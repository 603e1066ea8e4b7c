"""Blind cuts and steps, wave 38 (issue 13, classes 4 and 5), through the real plugin process.

Cases designed first from the issue, the README and the docs alone (41 of them), then the earlier
suites were read (``test_blind_cuts_wave35.py``, ``test_blind_steps_wave3*.py``,
``test_red_team_wave3*_cut.py``, ``test_red_team_wave33_steps.py``, ``test_model_error_cut_runs.py``)
and what they run was dropped (the finish-reason spellings ``max_tokens``, ``MAX_TOKENS``,
``FinishReason.MAX_TOKENS``, ``model_context_window_exceeded``, a cut right after ``Action:``, a
cut call's deltas, an invented ``Observation:`` then an action or an answer, the per-parameter
schema echo, ``NaN``/``Infinity``/``null``/``"free"``/negative prices, several single odd stream
items). What is left:

* the finish reasons ``model_length`` and ``max_length`` (in the plugin's list, never run
  end to end), and a cut reason arriving only on a last chunk whose content is null;
* a thinking model whose chat template opens ``<think>`` (DeepSeek-R1), cut inside that
  reasoning, which carries no ``<think>`` tag of its own;
* a ReAct or Function Calling answer cut inside a code fence whose rest restarts the fence;
* a ReAct continuation that writes ``Thought:`` and ``Final Answer:`` again before the rest;
* native call deltas whose name came and whose arguments stop at ``{"a": "`` under
  ``MAX_TOKENS`` on the delta itself;
* one reply of three calls or actions: a good one, a schema echo (nested form, also as a Python
  literal and in a fenced JSON blob) and an unknown tool;
* prices that are a signalling NaN, ``-NaN``, ``inf``, ``-Infinity``, with spaces around, in
  exponent form; token counts that are text, negative or fractional; a usage that is no object;
* every tool stream item type with data that is null, a list or a number;
* a node's tool list holding one tool with a broken parameter (type unknown, options null, the
  parameter list null, a parameter that is a string, no name, an unknown form) beside a good one.

A second pass, after the first found little, went after what the user reads around a cut. Faults
found and fixed (each with a unit test beside its module):

* a tool's ``log`` message with ``message: null`` was skipped without a word (``observation``);
* a cut code answer's rest lost its indentation (``def f():`` and ``\n    return 1`` showed
  ``def f():\nreturn 1``; after a cut that fell after the line break, ``def f(): return 1``);
* the notice ending a cut answer, a reply stopped at the deadline, or a run stopped (cut twice, the
  iteration limit) came inside the code block the text left open, so it read as code;
* Function Calling: a ReAct-style step cut at its ``Action:`` label or inside a tool's name showed
  the label and asked for the "rest" as an answer's; one cut before its answer text (a
  ``Thought:`` alone, an empty ``Final Answer`` label) showed the Thought as the answer's start.
"""

from __future__ import annotations

import json
import math

import pytest

from agent_core import prompts
from agent_core.fences import open_block
from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import (
    STRATEGIES,
    answer_turn,
    assert_clean_run,
    logs_json,
    plugin_lines,
    prompt_text,
    tools_ran,
)


def lookup(name: str = "lookup", responses: list[dict] | None = None) -> ScriptedTool:
    """``lookup(q)`` answering ``responses``, by default ``<name> found it``."""
    return ScriptedTool(name=name, description="Looks a word up", parameters=[ToolParam("q", description="the word")],
                        responses=responses or [text_message(f"{name} found it")])


def react_call(q: str = "a", name: str = "lookup") -> str:
    return f'Thought: look it up.\nAction: {name}\nAction Input: {{"q": "{q}"}}'


def call_turn(strategy: str, q: str, call_id: str = "c1") -> dict:
    if strategy == "ReAct":
        return {"text": react_call(q)}
    return {"tool_calls": [{"id": call_id, "name": "lookup", "arguments": {"q": q}}]}


def thoughts(result) -> list:
    return [n for n in result.logs.values() if n.label.endswith("Thought")]


# --- class 4: other cut spellings, and where the reason comes ---------------------------------------------


@pytest.mark.parametrize("reason", ["model_length", "max_length", "Model_Length"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_answer_cut_under_mistral_or_hf_spellings_is_continued(run, strategy, reason):
    """Mistral's API says ``model_length``; servers named after Hugging Face's generation limit
    say ``max_length``: each is a cut, continued once."""
    turns = [{**answer_turn(strategy, "The sum is"), "finish_reason": reason}, {"text": " four."}]
    result = run(turns, query="2+2?", strategy=strategy)
    assert_clean_run(result)
    assert result.text == "The sum is four."
    assert prompts.CONTINUE_CUT_ANSWER in prompt_text(result.llm_requests[1])
    run.backend.assert_complete()


@pytest.mark.parametrize("reason", ["length", "max_tokens"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_cut_reason_only_on_a_last_chunk_whose_content_is_null(run, strategy, reason):
    """Text chunks without a reason, then a chunk with ``content: null``, no calls and the reason:
    the reply is cut, the answer continued."""
    head = "Thought: done.\nFinal Answer: The sum is" if strategy == "ReAct" else "The sum is"
    chunks = [{"content": head[:9]}, {"content": head[9:]},
              {"message": {"role": "assistant", "content": None, "tool_calls": []}, "finish_reason": reason}]
    result = run([{"chunks": chunks}, {"text": " four."}], query="2+2?", strategy=strategy)
    assert_clean_run(result)
    assert result.text == "The sum is four."
    run.backend.assert_complete()


# --- class 4: a cut inside reasoning the chat template opened -------------------------------------------

R1 = {"provider": "langgenius/deepseek/deepseek", "model": "deepseek-r1",
      "completion_params": {"max_tokens": 256}}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_template_opened_reasoning_cut_is_never_shown_and_asked_again(run, strategy):
    """DeepSeek-R1's template opens ``<think>``: its reply begins inside the reasoning with no tag.
    Cut there (no ``</think>`` came), the reply holds no answer: nothing is shown of it, the model
    is asked again shorter, and the next reply's answer is the run's."""
    cut = {"text": "The user wants the weather, so first I should call lookup with", "finish_reason": "length"}
    after = "Short plan.</think>\n\n" + ("Thought: done.\nFinal Answer: Sunny." if strategy == "ReAct" else "Sunny.")
    result = run([cut, {"text": after}], query="Weather?", tools=[lookup()], strategy=strategy, model=R1)
    assert_clean_run(result)
    assert "The user wants" not in result.text and "Short plan" not in result.text
    assert result.text.strip() == "Sunny."
    assert result.tool_requests == []
    assert prompts.REPLY_CUT in prompt_text(result.llm_requests[1])


# --- class 4: cut answers and their rests ---------------------------------------------------------------

CODE_START = "Here it is:\n\n```python\ndef f():\n    return"
CODE_REST_RESTARTED = "Here it is:\n\n```python\ndef f():\n    return 1\n```"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_answer_cut_in_a_fence_whose_rest_restarts_the_fence_shows_the_code_once(run, strategy):
    turns = [{**answer_turn(strategy, CODE_START), "finish_reason": "length"}, {"text": CODE_REST_RESTARTED}]
    result = run(turns, query="Write f.", strategy=strategy)
    assert_clean_run(result)
    assert result.text.count("def f():") == 1, result.text
    assert result.text.count("Here it is") == 1, result.text
    assert result.text.rstrip().endswith("return 1\n```"), result.text


def test_react_rest_that_writes_a_thought_and_the_label_again_shows_only_the_rest(run):
    turns = [{"text": "Thought: I know it.\nFinal Answer: The capital of France is", "finish_reason": "length"},
             {"text": "Thought: I continue my answer.\nFinal Answer: Paris."}]
    result = run(turns, query="Capital of France?", strategy="ReAct")
    assert_clean_run(result)
    assert result.text == "The capital of France is Paris.", result.text
    assert "I continue" not in result.text


def test_fc_call_deltas_with_a_name_and_an_open_string_under_max_tokens_on_the_delta_run_nothing(run):
    chunks = [{"content": "Looking it up."},
              {"tool_calls": [{"index": 0, "id": "call_x", "type": "function",
                               "function": {"name": "lookup", "arguments": ""}}]},
              {"tool_calls": [{"index": 0, "function": {"arguments": '{"a": "'}}], "finish_reason": "MAX_TOKENS"}]
    again = {"tool_calls": [{"id": "c2", "name": "lookup", "arguments": {"q": "a"}}]}
    result = run([{"chunks": chunks}, again, {"text": "Found."}], query="Look up a.", tools=[lookup()])
    assert_clean_run(result)
    assert result.text.endswith("Found.")
    assert result.text.count("Looking it up.") <= 1
    assert tools_ran(result) == [("lookup", {"q": "a"})]
    told = {m["tool_call_id"]: m["content"] for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "tool"}
    assert "output limit" in told["call_x"]


# --- class 5: one reply, a good call, a schema echo and an unknown tool -----------------------------------

NESTED_ECHO = {"q": {"type": "string", "description": "the word"}}


def _mixed_reply(strategy: str, form: str) -> dict:
    if strategy == "function_calling":
        return {"tool_calls": [{"id": "c1", "name": "lookup", "arguments": {"q": "a"}},
                               {"id": "c2", "name": "lookup", "arguments": NESTED_ECHO},
                               {"id": "c3", "name": "lookupp", "arguments": {"q": "c"}}]}
    if form == "fenced":
        blobs = [{"action": "lookup", "action_input": {"q": "a"}}, {"action": "lookup", "action_input": NESTED_ECHO},
                 {"action": "lookupp", "action_input": {"q": "c"}}]
        return {"text": "Thought: three.\n" + "\n".join(f"Action:\n```json\n{json.dumps(b)}\n```" for b in blobs)}
    echo = str(NESTED_ECHO) if form == "python literal" else json.dumps(NESTED_ECHO)
    return {"text": react_call("a") + f"\nAction: lookup\nAction Input: {echo}\n" + 'Action: lookupp\nAction Input: {"q": "c"}'}


@pytest.mark.parametrize(("strategy", "form"), [("function_calling", "native"), ("ReAct", "labelled"),
                                                ("ReAct", "python literal"), ("ReAct", "fenced")])
def test_a_good_call_a_nested_schema_echo_and_an_unknown_tool_in_one_reply(run, strategy, form):
    result = run([_mixed_reply(strategy, form), answer_turn(strategy, "Done.")], query="Look up a, b and c.",
                 tools=[lookup()], strategy=strategy)
    assert_clean_run(result)
    assert result.text == "Done."
    assert tools_ran(result) == [("lookup", {"q": "a"})], tools_ran(result)
    told = prompt_text(result.llm_requests[1])
    assert "lookup found it" in told
    assert "schema" in told, told[-1500:]
    assert "lookupp" in told, told[-1500:]
    run.backend.assert_complete()


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("form", ["python literal", "fenced"])
def test_a_nested_schema_echo_alone_in_other_forms_is_refused_then_values_run(run, strategy, form):
    if strategy == "ReAct" and form == "fenced":
        first = {"text": "Thought: x.\nAction:\n```json\n"
                 + json.dumps({"action": "lookup", "action_input": NESTED_ECHO}) + "\n```"}
    elif strategy == "ReAct":
        first = {"text": f"Thought: x.\nAction: lookup\nAction Input: {NESTED_ECHO!s}"}
    elif form == "fenced":  # a call written as text in the content of a Function Calling reply
        first = {"text": "```json\n" + json.dumps({"name": "lookup", "arguments": NESTED_ECHO}) + "\n```"}
    else:
        first = {"tool_calls": [{"id": "c1", "name": "lookup", "arguments": str(NESTED_ECHO)}]}
    result = run([first, call_turn(strategy, "Paris", "c2"), answer_turn(strategy, "Found.")],
                 query="Look up Paris.", tools=[lookup()], strategy=strategy)
    assert_clean_run(result)
    assert result.text == "Found."
    assert tools_ran(result) == [("lookup", {"q": "Paris"})]
    run.backend.assert_complete()


# --- class 5: usage fields a model plugin may send -------------------------------------------------------

BASE_USAGE = {"prompt_tokens": 10, "completion_tokens": 2, "prompt_price": "0.001", "completion_price": "0.002",
              "total_price": "0.003", "currency": "USD"}


def _finite(value) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    if isinstance(value, str):
        return value.strip().lower().lstrip("+-") not in {"nan", "snan", "inf", "infinity"}
    return True


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("price", ["sNaN", "-NaN", "inf", "-Infinity"])
def test_a_price_that_is_no_finite_number_is_named_and_every_line_stays_finite(run, plugin, strategy, price):
    usage = {**BASE_USAGE, "completion_price": price}
    result = run([{**answer_turn(strategy, "Hi."), "usage": usage}], query="Hi", strategy=strategy)
    assert_clean_run(result)
    assert result.text == "Hi."
    assert _finite(result.execution_metadata), result.execution_metadata
    for entry, _ in plugin_lines(plugin, result):
        assert _finite(entry.get("json")), str(entry)[:500]
    assert "completion_price" in logs_json(result)


@pytest.mark.parametrize("price", [" 0.002 ", "2e-3", "2E-3"])
def test_a_readable_price_in_another_spelling_is_counted(run, price):
    result = run([{"text": "Hi.", "usage": {**BASE_USAGE, "completion_price": price, "total_price": None}}], query="Hi")
    assert_clean_run(result)
    assert float(result.execution_metadata["completion_price"]) == pytest.approx(0.002)
    (thought,) = thoughts(result)
    assert not thought.data.get("usage_error"), thought.data.get("usage_error")


@pytest.mark.parametrize("tokens", [-5, 2.5])  # text ("abc", "NaN") cannot pass the daemon's typed usage
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_odd_token_count_keeps_the_answer_and_the_runs_usage_sane(run, plugin, strategy, tokens):
    usage = {**BASE_USAGE, "completion_tokens": tokens}
    result = run([{**answer_turn(strategy, "Hi."), "usage": usage}], query="Hi", strategy=strategy)
    assert_clean_run(result)
    assert result.text == "Hi."
    metadata = result.execution_metadata or {}
    assert _finite(metadata), metadata
    assert isinstance(metadata.get("completion_tokens"), int) and metadata["completion_tokens"] >= 0, metadata
    assert metadata.get("prompt_tokens") == 10
    for entry, _ in plugin_lines(plugin, result):
        assert _finite(entry.get("json")), str(entry)[:500]


# --- class 5: every tool stream item type with data null, a list or a number -------------------------------

ITEM_TYPES = ["text", "json", "link", "image_link", "image", "blob", "file", "variable", "log",
              "retriever_resources", "blob_chunk"]
BAD_DATA = {"null": None, "list": [1, "two"], "number": 42}


@pytest.mark.parametrize("data", list(BAD_DATA))
@pytest.mark.parametrize("kind", ITEM_TYPES)
def test_an_item_with_no_readable_data_is_reported_in_the_call_node_and_the_rest_kept(run, kind, data):
    item = {"type": kind, "message": BAD_DATA[data], "meta": None}
    tool = lookup("report", responses=[text_message("first part"), item, text_message("second part")])
    turns = [{"tool_calls": [{"id": "c1", "name": "report", "arguments": {"q": "a"}}]}, {"text": "Done."}]
    result = run(turns, query="Report.", tools=[tool])
    assert_clean_run(result)
    assert result.text == "Done."
    seen = prompt_text(result.llm_requests[1])
    assert "first part" in seen and "second part" in seen
    (node,) = [n for n in result.logs.values() if n.label == "CALL report"]
    shown = json.dumps({"data": node.data, "error": node.error, "metadata": node.metadata}, default=str)
    assert "first part" in shown and "second part" in shown
    if kind == "file":  # Dify's file message carries its file in ``meta``: none there is a file without an address
        assert "without an address" in shown, shown[:2000]
    else:
        assert "unreadable" in shown and f"{kind} message" in shown, shown[:2000]


# --- class 5: a node's tool with a broken parameter, beside a good tool ------------------------------------


def _broken(change) -> ScriptedTool:
    tool = ScriptedTool(name="broken", description="A tool Dify sent oddly",
                        parameters=[ToolParam("q", description="the word")], responses=[text_message("broken ran")])
    entity_of = tool.entity

    def entity():
        value = entity_of()
        change(value)
        return value

    object.__setattr__(tool, "entity", entity)
    return tool


def _set(**changes):
    def change(entity):
        entity["parameters"][0].update(changes)
    return change


BROKEN = {
    "type unknown": _set(type="widget"),
    "select with options null": _set(type="select", options=None),
    "parameters null": lambda e: e.update(parameters=None),
    "a parameter that is a string": lambda e: e.update(parameters=["q"]),
    "a parameter without a name": lambda e: e["parameters"][0].pop("name"),
    "form unknown": _set(form="sideways"),
    "form missing": lambda e: e["parameters"][0].pop("form"),
    "required as text": _set(required="yes"),
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", list(BROKEN))
def test_a_tool_with_a_broken_parameter_is_used_or_named_in_the_log_and_the_good_tool_runs(run, strategy, kind):
    result = run([call_turn(strategy, "Paris"), answer_turn(strategy, "Found.")], query="Look up Paris.",
                 tools=[lookup(), _broken(BROKEN[kind])], strategy=strategy)
    assert_clean_run(result)
    assert result.text == "Found."
    assert tools_ran(result) == [("lookup", {"q": "Paris"})]
    offered = prompt_text(result.llm_requests[0]) + json.dumps(result.llm_requests[0].get("tools") or [])
    dropped = [n for n in result.logs.values() if n.label == "TOOL DROPPED broken"]
    if "broken" not in offered:  # left out: said in the log tree, with the field at fault
        assert len(dropped) == 1, logs_json(result)[:2000]
        assert "parameters" in str(dropped[0].error), logs_json(result)[:2000]
    else:
        assert not dropped


# --- second pass ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_prices_whose_sum_over_rounds_passes_a_float_stay_finite(run, plugin, strategy):
    """Each round's price is a finite decimal near the largest float; their sum is not one."""
    usage = {**BASE_USAGE, "prompt_price": "1e308", "completion_price": "1e308", "total_price": "1.7e308"}
    turns = [{**call_turn(strategy, "a"), "usage": usage}, {**answer_turn(strategy, "Found."), "usage": usage}]
    result = run(turns, query="Look up a.", tools=[lookup()], strategy=strategy)
    assert_clean_run(result)
    assert result.text == "Found."
    assert _finite(result.execution_metadata), result.execution_metadata
    for entry, _ in plugin_lines(plugin, result):
        assert _finite(entry.get("json")), str(entry)[:500]


def test_two_node_tools_of_one_name_are_offered_under_names_a_provider_takes(run):
    """Two tools of different providers both named ``lookup`` (Dify lets a node hold both):
    OpenAI refuses a request declaring one function name twice."""
    first, second = lookup(), lookup()
    object.__setattr__(second, "provider", "someone/other_tools/other_tools")
    turns = [{"tool_calls": [{"id": "c1", "name": "lookup", "arguments": {"q": "a"}}]}, {"text": "Found."}]
    result = run(turns, query="Look up a.", tools=[first, second])
    assert_clean_run(result)
    names = [t["name"] for t in result.llm_requests[0].get("tools") or []]
    assert len(names) == len(set(names)), names
    assert result.text == "Found."


BROKEN_MORE = {
    "parameter type null": _set(type=None),
    "select options as plain strings": _set(type="select", options=["a", "b"]),
    "a parameter named twice": lambda e: e["parameters"].append(dict(e["parameters"][0])),
    "number parameter with a text default": _set(type="number", default="abc", required=False),
    "identity name null": lambda e: e["identity"].update(name=None),
    "description null": lambda e: e.update(description=None),
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", list(BROKEN_MORE))
def test_more_broken_declarations_leave_the_good_tool_working(run, strategy, kind):
    result = run([call_turn(strategy, "Paris"), answer_turn(strategy, "Found.")], query="Look up Paris.",
                 tools=[lookup(), _broken(BROKEN_MORE[kind])], strategy=strategy)
    assert_clean_run(result)
    assert result.text == "Found."
    assert tools_ran(result) == [("lookup", {"q": "Paris"})]
    offered = prompt_text(result.llm_requests[0]) + json.dumps(result.llm_requests[0].get("tools") or [])
    dropped = [n for n in result.logs.values() if n.label.startswith("TOOL DROPPED") and "lookup" not in n.label]
    if "broken" not in offered:
        assert len(dropped) == 1, logs_json(result)[:2000]


@pytest.mark.parametrize("arguments", ["null", "[]", '["Paris"]', '"Paris"', "42"])
def test_fc_call_arguments_that_are_no_object_are_answered_not_crashed(run, arguments):
    turns = [{"tool_calls": [{"id": "c1", "name": "lookup", "arguments": arguments}]},
             {"tool_calls": [{"id": "c2", "name": "lookup", "arguments": {"q": "Paris"}}]}, {"text": "Found."}]
    result = run(turns, query="Look up Paris.", tools=[lookup()])
    assert_clean_run(result)
    assert result.text == "Found."
    assert tools_ran(result)[-1] == ("lookup", {"q": "Paris"})
    told = {m["tool_call_id"]: m["content"] for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "tool"}
    assert told.get("c1"), told


@pytest.mark.parametrize("action_input", ['["Paris"]', "null", "42"])
def test_react_action_input_that_is_no_object_is_answered_not_crashed(run, action_input):
    turns = [{"text": f"Thought: x.\nAction: lookup\nAction Input: {action_input}"}, {"text": react_call("Paris")},
             answer_turn("ReAct", "Found.")]
    result = run(turns, query="Look up Paris.", tools=[lookup()], strategy="ReAct")
    assert_clean_run(result)
    assert result.text == "Found."
    assert tools_ran(result)[-1] == ("lookup", {"q": "Paris"})


def test_react_two_invented_observations_with_an_action_between_then_an_answer(run):
    text = (react_call("a") + "\nObservation: a is 1\nThought: now b.\n" + react_call("b")
            + "\nObservation: b is 2\nThought: done.\nFinal Answer: a is 1 and b is 2")
    result = run([{"text": text}, answer_turn("ReAct", "Checked.")], query="Look up a and b.", tools=[lookup()],
                 strategy="ReAct")
    assert_clean_run(result)
    assert result.text == "Checked."
    assert tools_ran(result) == [("lookup", {"q": "a"})]
    told = prompt_text(result.llm_requests[1])
    assert "not run" in told and "b is 2" not in told.split("lookup found it", 1)[-1]


def test_react_cut_answer_whose_rest_comes_as_a_json_blob_shows_only_its_text(run):
    rest = 'Action:\n```json\n{"action": "Final Answer", "action_input": "Paris."}\n```'
    turns = [{"text": "Thought: I know it.\nFinal Answer: The capital of France is", "finish_reason": "length"},
             {"text": rest}]
    result = run(turns, query="Capital of France?", strategy="ReAct")
    assert_clean_run(result)
    assert result.text == "The capital of France is Paris.", result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_cut_reply_ending_in_its_end_of_turn_token_never_shows_it(run, strategy):
    """Qwen's server passed ``<|im_end|>`` on as text, and the limit fell right on it (one
    token): the answer ended there; whatever follows, the token is never shown."""
    turns = [{**answer_turn(strategy, "Paris is the capital.<|im_end|>"), "finish_reason": "length"},
             {"text": " It is in the north.<|im_end|>"}]
    result = run(turns, query="Capital of France?", strategy=strategy)
    assert_clean_run(result)
    assert "<|im_end|>" not in result.text and "im_end" not in result.text, result.text
    assert result.text.startswith("Paris is the capital.")


def test_react_cut_answer_of_a_completion_mode_model_is_continued(run):
    turns = [{"text": "Thought: I know it.\nFinal Answer: The capital of France is", "finish_reason": "length"},
             {"text": " Paris."}]
    result = run(turns, query="Capital of France?", strategy="ReAct", model={"mode": "completion"})
    assert_clean_run(result)
    assert result.text == "The capital of France is Paris."


JSON_STEPS = {"features": ["structured-output"], "completion_params": {"max_tokens": 64}}


def json_step(action: str, action_input) -> str:
    return json.dumps({"action": action, "action_input": action_input})


@pytest.mark.parametrize("price", ["free", "sNaN"])
def test_an_unreadable_price_in_json_steps_is_named_and_the_answer_kept(run, plugin, price):
    usage = {**BASE_USAGE, "prompt_price": price}
    result = run([{"text": json_step("Final Answer", "Hi."), "usage": usage}], query="Hi", strategy="ReAct",
                 model=JSON_STEPS)
    assert_clean_run(result)
    assert result.text == "Hi."
    assert "prompt_price" in logs_json(result)
    assert _finite(result.execution_metadata), result.execution_metadata


@pytest.mark.parametrize("reason", ["model_length", "MAX_TOKENS"])
def test_a_json_step_call_cut_under_other_spellings_is_not_run(run, reason):
    turns = [{"text": json_step("lookup", {"q": "Par"})[:-3], "finish_reason": reason},
             {"text": json_step("lookup", {"q": "Paris"})}, {"text": json_step("Final Answer", "Found.")}]
    result = run(turns, query="Look up Paris.", tools=[lookup()], strategy="ReAct", model=JSON_STEPS)
    assert_clean_run(result)
    assert result.text == "Found."
    assert tools_ran(result) == [("lookup", {"q": "Paris"})]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_unreadable_item_then_the_tool_failing_keeps_both_in_the_call_node(run, strategy):
    tool = ScriptedTool(name="report", description="Reports", parameters=[ToolParam("q", description="q")],
                        responses=[text_message("first part"), {"type": "link", "message": None, "meta": None}],
                        error="disk on fire")
    result = run([{**call_turn(strategy, "a"), **({"tool_calls": [{"id": "c1", "name": "report", "arguments": {"q": "a"}}]}
                                                 if strategy == "function_calling" else
                                                 {"text": react_call("a", name="report")})},
                  answer_turn(strategy, "Done.")], query="Report.", tools=[tool], strategy=strategy)
    assert_clean_run(result)
    assert result.text == "Done."
    (node,) = [n for n in result.logs.values() if n.label == "CALL report"]
    shown = json.dumps({"data": node.data, "error": node.error}, default=str)
    assert "disk on fire" in shown and "first part" in shown
    assert "link message" in shown, shown[:2000]
    told = prompt_text(result.llm_requests[1])
    assert "disk on fire" in told and "first part" in told


def _chunk(sequence: int, data: bytes | None, end: bool = False) -> dict:
    import base64
    message = None if data is None else {"id": "f1", "sequence": sequence, "total_length": 9,
                                         "blob": base64.b64encode(data).decode(), "end": end}
    return {"type": "blob_chunk", "message": message,
            "meta": {"filename": "abc.txt", "mime_type": "text/plain"} if end else None}


def test_a_chunked_file_with_an_unreadable_middle_chunk_is_never_sent_corrupt(run):
    responses = [text_message("made a file"), _chunk(0, b"abc"), _chunk(1, None), _chunk(2, b"ghi", end=True)]
    tool = lookup("report", responses=responses)
    turns = [{"tool_calls": [{"id": "c1", "name": "report", "arguments": {"q": "a"}}]}, {"text": "Done."}]
    result = run(turns, query="Report.", tools=[tool])
    assert_clean_run(result)
    assert result.text == "Done."
    import base64
    for file in result.files:  # a file sent is never the two good chunks glued as if whole
        blob = (file.get("message") or {}).get("blob")
        assert blob is None or base64.b64decode(blob) != b"abcghi", file
    (node,) = [n for n in result.logs.values() if n.label == "CALL report"]
    shown = json.dumps({"data": node.data, "error": node.error}, default=str)
    assert "blob_chunk message" in shown or "incomplete" in shown, shown[:2000]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_call_of_a_dropped_tool_is_answered_and_never_run(run, strategy):
    broken = _broken(_set(type="widget", required="yes", form="sideways"))
    if strategy == "ReAct":
        first = {"text": react_call("a", name="broken")}
    else:
        first = {"tool_calls": [{"id": "c1", "name": "broken", "arguments": {"q": "a"}}]}
    result = run([first, call_turn(strategy, "a", "c2"), answer_turn(strategy, "Found.")], query="Look up a.",
                 tools=[lookup(), broken], strategy=strategy)
    assert_clean_run(result)
    assert result.text == "Found."
    offered = prompt_text(result.llm_requests[0]) + json.dumps(result.llm_requests[0].get("tools") or [])
    if "broken" not in offered:
        assert tools_ran(result) == [("lookup", {"q": "a"})]
        assert "broken" in prompt_text(result.llm_requests[1])


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("rest", [{"text": "\n    return 1", "finish_reason": "length"}, {"text": ""}],
                         ids=["cut again", "no rest"])
def test_the_cut_notice_after_an_answer_cut_inside_a_code_fence_is_outside_the_code(run, strategy, rest):
    """The answer stops inside a fenced block: a notice appended inside it would render as a line
    of code, not as the notice."""
    turns = [{**answer_turn(strategy, "Here:\n\n```python\ndef f():"), "finish_reason": "length"}, rest]
    result = run(turns, query="Write f.", strategy=strategy)
    assert_clean_run(result)
    assert "output limit" in result.text
    before_notice = result.text[: result.text.index("[")] if "[" in result.text else result.text
    assert before_notice.count("```") % 2 == 0, result.text
    if rest["text"]:  # the rest's indentation is the code's meaning
        assert "def f():\n    return 1" in result.text, result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("start", ["def f():", "def f():\n"], ids=["cut at the line's end", "cut after the line break"])
def test_a_code_answer_cut_at_a_line_end_keeps_the_indentation_its_rest_began_with(run, strategy, start):
    turns = [{**answer_turn(strategy, "Here:\n\n```python\n" + start), "finish_reason": "length"},
             {"text": ("\n" if not start.endswith("\n") else "") + "    if x:\n        return 1\n```"}]
    result = run(turns, query="Write f.", strategy=strategy)
    assert_clean_run(result)
    assert "def f():\n    if x:\n        return 1\n```" in result.text, result.text


def test_react_three_fenced_actions_the_second_no_json_none_dropped_silently(run):
    good_a = json.dumps({"action": "lookup", "action_input": {"q": "a"}})
    broken = '{"action": "lookup", "action_input": {"q": "b" "x"}}'  # no JSON, and no repair keeps every word
    good_c = json.dumps({"action": "lookup", "action_input": {"q": "c"}})
    text = "Thought: three.\n" + "\n".join(f"Action:\n```json\n{blob}\n```" for blob in (good_a, broken, good_c))
    result = run([{"text": text}, answer_turn("ReAct", "Done.")], query="Look up a, b and c.", tools=[lookup()],
                 strategy="ReAct")
    assert_clean_run(result)
    assert result.text == "Done."
    params = [p for _, p in tools_ran(result)]
    assert params[0] == {"q": "a"} and not any("b" in str(p) for p in params), params
    told = prompt_text(result.llm_requests[1])
    if {"q": "c"} not in params:
        assert "not run" in told, told[-1500:]


def test_react_one_blob_holding_a_list_of_two_actions_runs_both_or_names_them(run):
    blob = json.dumps([{"action": "lookup", "action_input": {"q": "a"}},
                       {"action": "lookup", "action_input": {"q": "b"}}])
    result = run([{"text": f"Thought: two.\nAction:\n```json\n{blob}\n```"}, answer_turn("ReAct", "Done.")],
                 query="Look up a and b.", tools=[lookup()], strategy="ReAct")
    assert_clean_run(result)
    assert result.text == "Done."
    params = [p for _, p in tools_ran(result)]
    told = prompt_text(result.llm_requests[1])
    assert params == [{"q": "a"}, {"q": "b"}] or (params == [{"q": "a"}] and "not run" in told), (params, told[-1500:])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_usage_of_cut_rounds_counts_in_the_runs_usage(run, strategy):
    """A cut call round, a cut answer and its rest: each reply's tokens and price count."""
    def usage(tokens: int) -> dict:
        return {"prompt_tokens": 100, "completion_tokens": tokens, "prompt_price": "0.001",
                "completion_price": "0.002", "total_price": "0.003", "currency": "USD"}
    cut_call = ({"text": 'Thought: look.\nAction: lookup\nAction Input: {"q": "Par'} if strategy == "ReAct" else
                {"tool_calls": [{"id": "c1", "name": "lookup", "arguments": '{"q": "Par'}]})
    turns = [{**cut_call, "finish_reason": "length", "usage": usage(64)},
             {**answer_turn(strategy, "Paris is the"), "finish_reason": "length", "usage": usage(64)},
             {"text": " capital.", "usage": usage(3)}]
    result = run(turns, query="Capital of France?", tools=[lookup()], strategy=strategy)
    assert_clean_run(result)
    assert result.text == "Paris is the capital."
    metadata = result.execution_metadata
    assert metadata["completion_tokens"] == 131 and metadata["prompt_tokens"] == 300, metadata
    assert float(metadata["total_price"]) == pytest.approx(0.009), metadata


def test_a_cut_code_answer_with_no_time_for_its_rest_closes_its_fence_before_the_notice(run):
    """The first reply took 4.5 s of a 10 s run (deadline at 8 s): a rest as slow would end past
    it, so none is asked for; the notice comes after the block the cut answer left open."""
    turns = [{"text": "Here:\n\n```python\ndef f():", "finish_reason": "length", "delay": 4.5},
             {"text": "never asked"}]
    result = run(turns, query="Write f.", params={"run_timeout": 10})
    assert_clean_run(result)
    assert "never asked" not in result.text
    assert result.text.startswith("Here:\n\n```python\ndef f():\n```\n\n["), result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_reply_stopped_at_the_deadline_inside_a_code_block_closes_it_before_the_notice(run, strategy):
    """The reply streams an open code block, then goes silent; the run's deadline (8 s of a 10 s
    run) stops it: the time-limit notice comes after the fence that closes the block."""
    head = "Thought: I know.\nFinal Answer: " if strategy == "ReAct" else ""
    turns = [{"chunks": [{"content": head + "Here:\n\n```python\ndef f():\n"}], "hang": True}]
    result = run(turns, query="Write f.", strategy=strategy, params={"run_timeout": 10})
    assert_clean_run(result)
    assert "time ran out" in result.text
    shown = result.text[: result.text.index("The agent stopped")]
    assert shown.count("```") == 2 and shown.rstrip().endswith("```"), result.text


@pytest.mark.parametrize("ending", ["cut twice", "iteration limit"])
def test_a_stop_notice_after_a_reply_that_left_a_code_block_open_is_outside_it(run, ending):
    """Function Calling replies whose text opens a code block before their calls: the notice the
    run stops with comes after the fence that closes the block the last reply left open."""
    text = "I will run:\n\n```bash\nls -la\n"
    if ending == "cut twice":
        reply = {"text": text, "tool_calls": [{"id": "c1", "name": "lookup", "arguments": '{"q": "Pa'}],
                 "finish_reason": "length"}
        result = run([reply, dict(reply)], query="Go.", tools=[lookup()])
        notice = "The agent stopped: the model's replies were cut off"
    else:
        replies = [{"text": text, "tool_calls": [{"id": f"c{n}", "name": "lookup", "arguments": {"q": str(n)}}]}
                   for n in (1, 2)]
        result = run(replies, query="Go.", tools=[lookup()], params={"maximum_iterations": 1})
        notice = "The agent stopped after 1 round"
    assert_clean_run(result)
    shown = result.text[: result.text.index(notice)]
    # (the second reply's ```bash stands inside the block the first left open: CommonMark reads
    # it as code, so one closing fence closes that block)
    assert shown.rstrip().endswith("```") and open_block(shown) is None, result.text


@pytest.mark.parametrize("text", ["Let me check.\nAction:", "Let me check.\nAction: lookup\nAction Input: {\"q\": \"Pa",
                                  "Thought: I need it.\nAction: lookup\nAction Input:", "Let me check.\nAction: look",
                                  "Let me check.\n**Action:**\n```json\n"],
                         ids=["label only", "input cut", "input empty", "name cut", "fence opened"])
def test_fc_text_step_cut_after_its_action_label_is_neither_shown_nor_run(run, text):
    """Function Calling with native tools: a ReAct-style step written as text, cut by the limit."""
    turns = [{"text": text, "finish_reason": "length"},
             {"tool_calls": [{"id": "c2", "name": "lookup", "arguments": {"q": "Paris"}}]}, {"text": "Found."}]
    result = run(turns, query="Look up Paris.", tools=[lookup()])
    assert_clean_run(result)
    assert result.text.endswith("Found.")
    assert "Action" not in result.text, result.text
    assert tools_ran(result) == [("lookup", {"q": "Paris"})]


@pytest.mark.parametrize("text", ["Thought: I need to look", "Thought: I know.\n", "### Thought\nI know",
                                  "Thought: I know.\nFinal Answer:", "Let me think.\nFinal Answer:",
                                  "Here it is.\n### Final Answer\n", "Final Answer:"])
def test_fc_reply_cut_before_its_answer_text_shows_no_thought_nor_label(run, text):
    """Function Calling, a ReAct-style Thought (or an empty ``Final Answer`` label) cut by the limit:
    no answer yet, so nothing of it is the answer's start; the model is asked again."""
    turns = [{"text": text, "finish_reason": "length"}, {"text": "Paris."}, {"text": "never asked"}]
    result = run(turns, query="Capital of France?")
    assert_clean_run(result)
    assert result.text.endswith("Paris.") and "never asked" not in result.text
    assert "Thought" not in result.text and "Final Answer" not in result.text, result.text
    assert prompts.REPLY_CUT in prompt_text(result.llm_requests[1])
