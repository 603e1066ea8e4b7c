"""Wave 37: the promises made to Dify users, checked by an independent harness through the real
plugin process (a black box driven by local_runner as Dify's Agent node drives it), in both
strategies.

49 cases were designed from README.md, PLUGIN_README.md, docs/architecture.md and the strategy
YAMLs alone; the e2e files on promises, memory, files, knowledge, usage, parallel calls, the
iteration limit and offline runs already ran 30 of them (the clamped ``maximum_iterations``, the
forced answer's usage, knowledge in each shape and at ``{{#context#}}``, memory with tool turns,
images and PDFs in every round, files of parallel calls in call order, overlap of parallel calls,
an audited run with no socket opened). What is left runs here: calls interleaved in one
stream (each piece under its id), a ReAct answer followed by an invented observation (chat and completion models), a
``maximum_iterations`` that is no number, a forced answer that still calls a tool or fails, the
instruction's other Dify variables left unrendered, query files of every kind (audio, video, a
custom file, an address as a string, a dict that cannot be read), a run without tools,
``allowed_tools`` as a comma string and as a value that cannot be read, usage that a model never
reports, one run combining memory with tool turns + an image + knowledge + parallel calls (one
failing, one sending an image, a PDF and text) + the iteration limit, and that run again in a
plugin whose every HTTP(S) request leads to a dead proxy (its internal image then told as text),
with ReAct's JSON steps, and on a completion model, models without vision, a blocking model and
Function Calling on a model without tool calling.

Found and fixed: at the iteration limit a ReAct chat prompt's last message still asked for "either
an Action or your Final Answer" against the system prompt's "Do not call any more tools"
(``test_a_forced_answer_that_calls_a_tool_again_still_ends_with_words``).
"""

from __future__ import annotations

import base64
import json

import pytest

from local_runner import PluginProcess
from local_runner import scenario as scenario_module
from local_runner.daemon import DEFAULT_PLUGIN_DIR
from local_runner.files import FileServer
from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.conftest import ScriptedRun
from tests.e2e.helpers import (
    STRATEGIES,
    answer_turn,
    assert_clean_end,
    assert_no_traceback,
    observations,
    prompt_text,
    text_of,
    weather_tool,
)

PRICING = {"input": "2", "output": "8", "unit": "0.000001", "currency": "USD"}
VISION = ["tool-call", "multi-tool-call", "stream-tool-call", "agent-thought", "vision"]
USAGE_FIELDS = {"prompt_tokens", "prompt_unit_price", "prompt_price_unit", "prompt_price", "completion_tokens",
                "completion_unit_price", "completion_price_unit", "completion_price", "total_tokens",
                "total_price", "currency", "latency"}


def step(strategy: str, *calls: tuple[str, dict, str]) -> dict:
    """One model turn calling ``calls`` (name, arguments, id) in the strategy's own format."""
    if strategy == "ReAct":
        return {"text": "Thought: I need tools.\n" + "\n".join(
            f"Action: {name}\nAction Input: {json.dumps(args)}" for name, args, _ in calls)}
    return {"tool_calls": [{"id": cid, "name": name, "arguments": args} for name, args, cid in calls]}


def labelled(result, label: str) -> list:
    return [n for n in result.logs.values() if n.label == label]


def blob(data: bytes, filename: str, mime: str) -> dict:
    return {"type": "blob", "message": {"blob": base64.b64encode(data).decode()},
            "meta": {"filename": filename, "mime_type": mime}}


def user_messages(request: dict) -> list[dict]:
    return [m for m in request["prompt_messages"] if m["role"] == "user"]


def image_parts(request: dict) -> list[dict]:
    return [p for m in request["prompt_messages"] if isinstance(m["content"], list)
            for p in m["content"] if p.get("type") == "image"]


def system_text(request: dict) -> str:
    return "\n".join(text_of(m["content"]) for m in request["prompt_messages"] if m["role"] == "system")


# --- tool calls from any stream / ReAct output from any model ------------------------------------------


def test_calls_interleaved_by_index_split_mid_key_and_one_given_as_an_object_each_run_whole(run):
    """README: tool calls assembled from any provider's stream: the name only in a call's first
    delta, arguments split anywhere (mid-key), two parallel calls' pieces interleaved (each piece
    under its call's id: the daemon drops ``index`` on its way to the plugin), and arguments sent
    as an object."""
    def head(cid):
        return {"tool_calls": [{"id": cid, "type": "function", "function": {"name": "get_weather", "arguments": ""}}]}

    def piece(cid, text):
        return {"tool_calls": [{"id": cid, "function": {"arguments": text}}]}

    chunks = [head("call_A"), piece("call_A", '{"ci'), head("call_B"), piece("call_B", '{"city"'),
              piece("call_A", 'ty": "Pa'), piece("call_B", ': "Tok'), piece("call_A", 'ris"}'), piece("call_B", 'yo"}'),
              {"tool_calls": [{"id": "call_C", "type": "function",
                               "function": {"name": "get_weather", "arguments": {"city": "Lima"}}}]}]
    result = run([{"chunks": chunks, "finish_reason": "tool_calls"}, {"text": "All sunny."}],
                 tools=[weather_tool()])
    assert_clean_end(result)
    assert sorted(r["tool_parameters"]["city"] for r in result.tool_requests) == ["Lima", "Paris", "Tokyo"]
    tool_msgs = [m for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_msgs] == ["call_A", "call_B", "call_C"]
    assert result.text == "All sunny."


@pytest.mark.parametrize("mode", ["chat", "completion"])
def test_react_python_literal_input_runs_and_an_answer_ends_before_an_invented_observation(run, mode):
    """README: Python-literal arguments read; an answer ends where the model writes on into the
    format (an invented ``Observation:``, a next ``Thought:``); completion models work."""
    turns = [{"text": "Thought: weather first.\nAction: get_weather\nAction Input: {'city': 'Oslo'}"},
             {"text": "Thought: I know.\nFinal Answer: Rainy in Oslo.\nObservation: fake\nThought: more"}]
    result = run(turns, query="Oslo?", tools=[weather_tool("Rain, 8 C")], strategy="ReAct",
                 model={"mode": mode})
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Oslo"}]
    assert result.text == "Rainy in Oslo."
    assert "Rain, 8 C" in prompt_text(result.llm_requests[1])


# --- the iteration limit: an answer or a clear error ----------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("value", ["abc", "", [3]], ids=["word", "blank", "list"])
def test_maximum_iterations_that_is_no_number_is_an_error_naming_it(run, monkeypatch, strategy, value):
    """PLUGIN_README/README: a value that is not a number is an error naming the setting (sent as
    the node sends an unresolved variable: Dify's own number coercion skipped)."""
    monkeypatch.setattr(scenario_module, "apply_declaration", lambda params, declaration: params)
    result = run([answer_turn(strategy, "Hi.")], query="hi", strategy=strategy, tools=[weather_tool()],
                 params={"maximum_iterations": value})
    assert_no_traceback(result)
    if value == "":
        assert_clean_end(result)  # blank: the declared default, as Dify fills an empty number
        assert result.text == "Hi."
        return
    assert not result.ok and result.error is not None
    assert "maximum_iterations" in result.error_text or "Maximum iterations" in result.error_text
    assert result.tool_requests == []


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_forced_answer_that_calls_a_tool_again_still_ends_with_words(run, strategy):
    """README: at the iteration limit the model is asked to answer without tools; every run ends
    with a final answer or a clear error, never a silent stop. A model that calls again anyway runs
    nothing more and the user gets text or an error, never an empty success."""
    turns = [step(strategy, ("get_weather", {"city": "Oslo"}, "c1")),
             step(strategy, ("get_weather", {"city": "Bergen"}, "c2")),
             step(strategy, ("get_weather", {"city": "Bergen"}, "c3")),
             answer_turn(strategy, "Rainy.")]
    result = run(turns, query="Oslo?", tools=[weather_tool()], strategy=strategy, maximum_iterations=1)
    assert_no_traceback(result)
    assert [r["tool_parameters"]["city"] for r in result.tool_requests] == ["Oslo"]
    assert labelled(result, "ITERATION LIMIT")
    assert (result.ok and result.text.strip()) or (result.error and result.error.get("message"))
    assert result.unfinished_logs() == []
    if strategy == "ReAct":  # the last message the model reads asks for the answer, as the system note does
        forced = result.llm_requests[1]["prompt_messages"]
        assert "Do not call any more tools" in text_of(forced[0]["content"])
        assert "Action" not in text_of(forced[-1]["content"]) and "Final Answer" in text_of(forced[-1]["content"])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_forced_answer_the_model_fails_is_a_clear_error_with_the_usage_so_far(run, strategy):
    turns = [step(strategy, ("get_weather", {"city": "Oslo"}, "c1")), {"error": "RateLimitError: quota exceeded"}]
    turns[0]["usage"] = {"prompt_tokens": 100, "completion_tokens": 10}
    result = run(turns, query="Oslo?", tools=[weather_tool()], strategy=strategy, maximum_iterations=1,
                 model={"pricing": PRICING})
    assert_no_traceback(result)
    assert not result.ok and "quota exceeded" in result.error_text
    assert result.unfinished_logs() == []


# --- instruction, knowledge, files ------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify_variables_left_unrendered_in_the_instruction_do_not_break_the_run(run, strategy):
    """The instruction is a template Dify renders; a variable it left as written (a node since
    deleted) is text to the plugin: the run goes on, the context still lands at ``{{#context#}}``
    and the query reaches the model."""
    instruction = "Help {{#sys.user_id#}} with {{#1711.text#}} and {{ name }}.\n{{#context#}}\nEnd {{#context"
    context = [{"content": "Oslo has 700,000 people.", "title": "geo", "metadata": {"score": 0.9}}]
    result = run([answer_turn(strategy, "700k.")], query="How big is Oslo?", strategy=strategy,
                 instruction=instruction, context=context)
    assert_clean_end(result)
    assert result.text == "700k."
    seen = prompt_text(result.llm_requests[0])
    assert "Oslo has 700,000 people." in seen and "How big is Oslo?" in seen
    assert "{{#context#}}" not in seen
    assert "{{#1711.text#}}" in seen


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_query_files_of_every_kind_are_told_and_none_is_fatal(run, strategy):
    """PLUGIN_README: images go to vision models as images, other files are described by name and
    type; README: an http(s) address given instead of a file is read as a remote file, a file dict
    that cannot be read is named, not fatal."""
    files = [
        {"dify_model_identity": "__dify__file__", "type": "audio", "mime_type": "audio/mpeg",
         "filename": "voice.mp3", "extension": ".mp3", "url": "https://e.com/voice.mp3", "size": 100},
        {"dify_model_identity": "__dify__file__", "type": "video", "mime_type": "video/mp4",
         "filename": "clip.mp4", "extension": ".mp4", "url": "https://e.com/clip.mp4", "size": 100},
        {"dify_model_identity": "__dify__file__", "type": "custom", "mime_type": "application/octet-stream",
         "filename": "data.bin", "extension": ".bin", "url": "https://e.com/data.bin", "size": 100},
        "https://e.com/photo.png",
        {"dify_model_identity": "__dify__file__", "type": "image", "filename": "broken.png", "size": "huge"},
    ]
    result = run([answer_turn(strategy, "Seen.")], query="What are these?", strategy=strategy,
                 model={"features": VISION}, params={"files": files})
    assert_clean_end(result)
    assert result.text == "Seen."
    request = result.llm_requests[0]
    told = prompt_text(request)
    for name in ("voice.mp3", "clip.mp4", "data.bin", "broken.png"):
        assert name in told, name
    assert [p.get("url") for p in image_parts(request)] == ["https://e.com/photo.png"]


# --- tools: none, allowed_tools ---------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_without_tools_the_agent_answers_as_a_plain_chat_model(run, strategy):
    text = "Paris." if strategy == "function_calling" else "Thought: easy.\nFinal Answer: Paris."
    result = run([{"text": text}], query="Capital of France?", strategy=strategy)
    assert_clean_end(result)
    assert result.text == "Paris."
    assert not result.llm_requests[0].get("tools")


def lookup_tool(name: str) -> ScriptedTool:
    return ScriptedTool(name=name, description=f"{name} tool", parameters=[ToolParam("q", description="q")],
                        responses=[text_message(f"{name} ok")])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_allowed_tools_as_a_comma_string_offers_and_runs_only_those(run, strategy):
    tools = [lookup_tool("alpha"), lookup_tool("beta"), lookup_tool("gamma")]
    turns = [step(strategy, ("alpha", {"q": "1"}, "c1"), ("gamma", {"q": "2"}, "c2")), answer_turn(strategy, "Ok.")]
    result = run(turns, query="go", tools=tools, strategy=strategy, params={"allowed_tools": "alpha, beta"})
    assert_clean_end(result)
    assert [r["tool"] for r in result.tool_requests] == ["alpha"]
    first = result.llm_requests[0]
    offered = [t["name"] for t in first.get("tools") or []]
    if strategy == "function_calling":
        assert sorted(offered) == ["alpha", "beta"]
    assert "gamma" not in system_text(first)
    assert "gamma" in "\n".join(observations(result.llm_requests[1]))


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("value", [5, True, "[\"alpha\"", {"alpha": "maybe", "beta": False}],
                         ids=["number", "bool", "broken-json", "object"])
def test_allowed_tools_that_cannot_be_read_is_an_error_never_all(run, strategy, value):
    """PLUGIN_README: a value that cannot be read is an error, never "all": beta, never named as
    allowed, is neither offered nor run (a value read leniently may still allow alpha)."""
    turns = [step(strategy, ("beta", {"q": "1"}, "c1")), answer_turn(strategy, "Ok.")]
    result = run(turns, query="go", tools=[lookup_tool("alpha"), lookup_tool("beta")], strategy=strategy,
                 params={"allowed_tools": value})
    assert_no_traceback(result)
    assert [r["tool"] for r in result.tool_requests] == []
    if result.ok:
        first = result.llm_requests[0]
        assert "beta" not in [t["name"] for t in first.get("tools") or []] and "beta" not in system_text(first)
    else:
        assert "allowed" in result.error_text.lower()


# --- usage --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("reported", [(False, False), (True, False), (False, True)],
                         ids=["never", "first-only", "last-only"])
def test_usage_a_model_reports_in_some_rounds_only_is_summed_with_every_field_and_the_whole_latency(
        run, strategy, reported):
    """README: the run reports all twelve LLMUsage fields, summed over its model calls; a model
    call with no usage at all counts the time the run measured for it, so the latency covers every
    call (each here waits 0.15 s before its first chunk: a lower bound no load can break)."""
    turns = [step(strategy, ("get_weather", {"city": "Oslo"}, "c1")), answer_turn(strategy, "Rainy.")]
    for turn, has in zip(turns, reported, strict=True):
        turn["usage"] = {"prompt_tokens": 100, "completion_tokens": 10} if has else None
        turn["delay"] = 0.15
    result = run(turns, query="Oslo?", tools=[weather_tool()], strategy=strategy, model={"pricing": PRICING})
    assert_clean_end(result)
    meta = result.execution_metadata
    assert set(meta) >= USAGE_FIELDS, USAGE_FIELDS - set(meta)
    assert meta["total_tokens"] == 110 * sum(reported)
    assert float(meta["total_price"]) == pytest.approx(sum(reported) * (100 * 2e-6 + 10 * 8e-6))
    assert float(meta["latency"]) >= 0.3
    assert meta["currency"] == "USD"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_tool_past_its_timeout_beside_a_quick_one_is_told_and_both_files_reach_the_chat_in_order(run, strategy):
    """PLUGIN_README: a call longer than the tool timeout is abandoned and the model told so; calls
    of one round run in parallel; files reach the chat in call order (the quick call's file waits
    for the slow one's, sent before it hung), and what the slow call sent before its timeout is
    told to the model."""
    slow = ScriptedTool(name="slow_lookup", description="slow", parameters=[ToolParam("q", description="q")],
                        responses=[blob(b"A1", "a.png", "image/png"), text_message("partial a")], hang=True)
    quick = ScriptedTool(name="quick_lookup", description="quick", parameters=[ToolParam("q", description="q")],
                         responses=[blob(b"B1", "b.png", "image/png"), text_message("quick done")])
    turns = [step(strategy, ("slow_lookup", {"q": "a"}, "s1"), ("quick_lookup", {"q": "b"}, "s2")),
             answer_turn(strategy, "Half done.")]
    result = run(turns, query="Both?", tools=[slow, quick], strategy=strategy, tool_timeout=1)
    assert_clean_end(result)
    assert result.text == "Half done."
    assert [base64.b64decode(f["blob"]) for f in result.files] == [b"A1", b"B1"]
    told = observations(result.llm_requests[1])
    assert "quick done" in told[1] and "b.png" in told[1]
    assert "timed out" in told[0].lower() and "a.png" in told[0]
    call = next(n for n in result.logs.values() if n.label == "CALL slow_lookup")
    assert call.status == "error" or call.error


# --- everything at once ----------------------------------------------------------------------------

PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x02" * 24


def combo_tools() -> list[ScriptedTool]:
    charts = ScriptedTool(
        name="make_chart", description="Draws a chart", parameters=[ToolParam("metric", description="metric")],
        responses=[text_message("chart drawn"), blob(PNG, "chart.png", "image/png"),
                   {"type": "binary_link", "message": {"text": "/files/tools/r1.pdf"},
                    "meta": {"filename": "report.pdf", "mime_type": "application/pdf", "tool_file_id": "r1"}}],
        latency=0.3)
    failing = ScriptedTool(name="fetch_sales", description="Sales figures",
                           parameters=[ToolParam("region", description="region")], error="upstream 503", latency=0.05)
    return [charts, failing]


def memory(strategy: str) -> list[dict]:
    return [{"role": "user", "content": "What was Q1 revenue?"},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "m1", "name": "fetch_sales",
                                                                 "arguments": {"region": "EU"}}]},
            {"role": "tool", "content": "Q1 EU revenue 4.2M", "tool_call_id": "m1", "name": "fetch_sales"},
            {"role": "assistant", "content": "Q1 revenue was 4.2M."}]


ANSWER = "Revenue chart attached; US sales unavailable."


def combo_run(run, strategy: str, files: list, *, json_steps: bool = False):
    """The combined run: memory with a tool turn, ``files``, knowledge at ``{{#context#}}``, one
    round of two parallel calls (``make_chart``: text, an image blob and a PDF, 0.3 s;
    ``fetch_sales``: fails), the iteration limit (1), then the answer; usage on both model calls.
    ``json_steps``: ReAct with constrained JSON steps (Dify's structured output)."""
    if json_steps:
        turns = [{"text": json.dumps({"action": "make_chart", "action_input": {"metric": "revenue"}}) + "\n"
                  + json.dumps({"action": "fetch_sales", "action_input": {"region": "US"}})},
                 {"text": json.dumps({"action": "final_answer", "action_input": ANSWER})}]
    else:
        turns = [step(strategy, ("make_chart", {"metric": "revenue"}, "k1"), ("fetch_sales", {"region": "US"}, "k2")),
                 answer_turn(strategy, ANSWER)]
    turns[0]["usage"] = {"prompt_tokens": 1000, "completion_tokens": 50}
    turns[1]["usage"] = {"prompt_tokens": 2000, "completion_tokens": 30}
    context = [{"content": "Revenue is reported in euros.", "title": "policy.md",
                "metadata": {"_source": "knowledge", "position": 1, "dataset_id": "ds1", "dataset_name": "Finance",
                             "document_id": "doc1", "document_name": "policy.md", "segment_id": "seg1",
                             "score": 0.8}}]
    return run(turns, query="Chart Q2 revenue and compare US sales.", tools=combo_tools(), strategy=strategy,
               history=memory(strategy), files=files, context=context, instruction="Be brief.\n{{#context#}}",
               maximum_iterations=1, params={"step_format": "json_schema"} if json_steps else {},
               model={"features": [*VISION, "structured-output"] if json_steps else VISION, "pricing": PRICING})


def check_combo(result, toolbox, strategy: str, *, image_sent: bool) -> None:
    assert_clean_end(result)
    assert_no_traceback(result)
    assert result.text == ANSWER
    # parallel round 1 (the failing call started before the slow one finished), then the limit
    # asks for the answer
    assert sorted(r["tool"] for r in result.tool_requests) == ["fetch_sales", "make_chart"]
    calls = toolbox.calls
    assert max(c.started for c in calls) < min(c.finished for c in calls), "the calls ran one after another"
    assert labelled(result, "ITERATION LIMIT")
    # tool files reach the chat once each, in the tool's order, with their types: the PDF (a
    # binary_link) as a tool file of the node's files output (Dify renders a "link" as text only)
    kinds = [(f["type"], (f.get("meta") or {}).get("mime_type")) for f in result.files]
    assert kinds == [("blob", "image/png"), ("image_link", "application/pdf")], kinds
    assert result.files[1]["meta"].get("tool_file_id") == "r1"
    assert "Link:" not in result.text and "/files/tools/r1" not in result.text
    assert base64.b64decode(result.files[0]["blob"]) == PNG and result.files[0]["meta"]["filename"] == "chart.png"
    # the model learnt of the files (not their bytes) and of the failure, in call order
    told = prompt_text(result.llm_requests[1])
    order = [told.rfind(word) for word in ("chart drawn", "chart.png", "report.pdf", "upstream 503")]
    assert -1 not in order and order == sorted(order), order
    assert base64.b64encode(PNG).decode() not in prompt_text(result.llm_requests[1])
    # memory, knowledge and the image in every request (a ReAct prompt has no native tool turns:
    # memory's calls and results are left out there, its conversation text stays)
    for request in result.llm_requests:
        seen = prompt_text(request)
        assert "What was Q1 revenue?" in seen and "Q1 revenue was 4.2M." in seen
        assert ("Q1 EU revenue 4.2M" in seen) == (strategy == "function_calling")
        assert "Revenue is reported in euros." in system_text(request)
        assert len(image_parts(request)) == (1 if image_sent else 0)
    # log tree: all finished, both CALLs under ROUND 1, the failing one an error
    call_nodes = [n for n in result.logs.values() if n.label.startswith("CALL ")]
    assert len(call_nodes) == 2
    assert {result.logs[n.parent_id].label for n in call_nodes} == {"ROUND 1"}
    failed = next(n for n in call_nodes if "fetch_sales" in n.label)
    assert failed.status == "error" or failed.error, failed.to_dict()
    # usage summed over both model calls, priced, all fields
    meta = result.execution_metadata
    assert set(meta) >= USAGE_FIELDS
    assert meta["prompt_tokens"] == 3000 and meta["completion_tokens"] == 80 and meta["total_tokens"] == 3080
    assert float(meta["total_price"]) == pytest.approx(3000 * 2e-6 + 80 * 8e-6)
    assert meta["currency"] == "USD"
    assert result.retriever_resources and "policy.md" in json.dumps(result.retriever_resources)
    # Dify reads the usage from the last json message: it comes once, after the answer's text
    kinds = [m["type"] for m in result.messages if m["type"] != "log"]
    usage_at = [n for n, m in enumerate(result.messages)
                if m["type"] == "json" and "execution_metadata" in (m["message"].get("json_object") or {})]
    assert len(usage_at) == 1 and kinds[-1] == "json", kinds[-5:]
    assert all(n < usage_at[0] for n, m in enumerate(result.messages) if m["type"] == "text")


@pytest.mark.parametrize(("strategy", "json_steps"), [("function_calling", False), ("ReAct", False), ("ReAct", True)],
                         ids=["function_calling", "ReAct", "ReAct-json-steps"])
def test_memory_files_knowledge_parallel_calls_a_failing_tool_and_the_limit_in_one_run(run, strategy, json_steps):
    image = {"url": "https://example.com/q2.png", "mime_type": "image/png", "filename": "q2.png", "size": 2048}
    result = combo_run(run, strategy, [image], json_steps=json_steps)
    check_combo(result, run.toolbox, strategy, image_sent=True)


DEAD_PROXY = "http://127.0.0.1:9"


@pytest.fixture(scope="module")
def offline_plugin():
    """A plugin process of its own whose every HTTP(S) request goes to a dead proxy."""
    env = {"HTTP_PROXY": DEAD_PROXY, "HTTPS_PROXY": DEAD_PROXY, "http_proxy": DEAD_PROXY,
           "https_proxy": DEAD_PROXY, "ALL_PROXY": DEAD_PROXY, "all_proxy": DEAD_PROXY,
           "NO_PROXY": "", "no_proxy": "", "HF_HUB_OFFLINE": "0", "TIKTOKEN_CACHE_DIR": "/nonexistent-cache"}
    with PluginProcess(DEFAULT_PLUGIN_DIR, env=env) as process:
        yield process


@pytest.mark.parametrize(("strategy", "json_steps"), [("function_calling", False), ("ReAct", False), ("ReAct", True)],
                         ids=["function_calling", "ReAct", "ReAct-json-steps"])
def test_the_whole_run_answers_with_no_network_and_an_unreachable_internal_image_is_told(offline_plugin, strategy,
                                                                                         json_steps, tmp_path):
    """README: works offline; memory, files, knowledge, parallel calls, tool files and usage as
    above with every HTTP(S) request of the plugin's own failing; an image only the plugin could
    fetch (Dify's internal address) cannot be, so the model is told of it as text, and the log
    says why."""
    picture = tmp_path / "q2.png"
    picture.write_bytes(PNG)
    run = ScriptedRun(offline_plugin)
    with FileServer() as server:
        internal = server.add(picture)
        result = combo_run(run, strategy, [internal], json_steps=json_steps)
    check_combo(result, run.toolbox, strategy, image_sent=False)
    assert "q2.png" in prompt_text(result.llm_requests[0])
    assert labelled(result, "IMAGE AS TEXT")



@pytest.mark.parametrize("strategy", STRATEGIES)
def test_with_no_network_a_pdf_for_a_document_model_is_told_as_text_at_once(offline_plugin, strategy):
    """README: PDFs go to a model that reads documents as data, fetched by the plugin; with no
    network the fetch fails at once, the model is told of the file by name, and the log says why
    (``DOCUMENT AS TEXT``); the run answers."""
    pdf = {"url": "https://example.com/r.pdf", "mime_type": "application/pdf", "filename": "r.pdf", "size": 2048}
    result = ScriptedRun(offline_plugin)([answer_turn(strategy, "Read.")], query="Read it.", strategy=strategy,
                                         files=[pdf], model={"features": [*VISION, "document"]})
    assert_clean_end(result)
    assert result.text == "Read."
    assert "r.pdf" in prompt_text(result.llm_requests[0])
    (note,) = labelled(result, "DOCUMENT AS TEXT")
    assert "r.pdf" in json.dumps(note.data)
    assert result.duration < 30  # one fetch step waits 5 s at most; a refused connection, none

MODEL_VARIANTS = {
    "ReAct-completion-model": ("ReAct", "ReAct", {"mode": "completion", "features": []}),
    "ReAct-without-vision": ("ReAct", "ReAct", {"features": []}),
    "FC-blocking": ("function_calling", "function_calling", {"features": ["tool-call", "multi-tool-call", "vision"]}),
    "FC-without-vision": ("function_calling", "function_calling",
                          {"features": ["tool-call", "multi-tool-call", "stream-tool-call"]}),
    "FC-model-without-tool-calling": ("function_calling", "ReAct", {"features": ["vision"]}),
}


@pytest.mark.parametrize("variant", list(MODEL_VARIANTS))
def test_the_combined_run_on_every_kind_of_model(run, variant):
    """The combined run (memory, an image and a PDF of the query, knowledge, two parallel calls of
    which one fails and one sends files, the limit) on a completion model, a model without vision,
    a blocking one, and Function Calling on a model without tool calling (run with ReAct steps):
    the answer, the tool files, the usage and the citations each time; the query's files are
    images only for a vision model, and named otherwise."""
    strategy, steps, model = MODEL_VARIANTS[variant]
    image = {"url": "https://example.com/q2.png", "mime_type": "image/png", "filename": "q2.png", "size": 2048}
    pdf = {"url": "https://example.com/r.pdf", "mime_type": "application/pdf", "filename": "r.pdf", "size": 2048}
    turns = [step(steps, ("make_chart", {"metric": "revenue"}, "k1"), ("fetch_sales", {"region": "US"}, "k2")),
             answer_turn(steps, ANSWER)]
    turns[0]["usage"] = {"prompt_tokens": 1000, "completion_tokens": 50}
    turns[1]["usage"] = {"prompt_tokens": 2000, "completion_tokens": 30}
    context = [{"content": "Revenue is reported in euros.", "title": "policy.md",
                "metadata": {"_source": "knowledge", "document_id": "doc1", "document_name": "policy.md"}}]
    result = run(turns, query="Chart Q2 revenue and compare US sales.", tools=combo_tools(), strategy=strategy,
                 history=memory(strategy), files=[image, pdf], context=context,
                 instruction="Be brief.\n{{#context#}}", maximum_iterations=1, model={**model, "pricing": PRICING})
    assert_clean_end(result)
    assert_no_traceback(result)
    assert result.text == ANSWER
    assert sorted(r["tool"] for r in result.tool_requests) == ["fetch_sales", "make_chart"]
    assert [(f["type"], f["meta"].get("mime_type")) for f in result.files] == [
        ("blob", "image/png"), ("image_link", "application/pdf")]
    assert result.execution_metadata["total_tokens"] == 3080
    assert len(result.retriever_resources) == 1
    vision = "vision" in model["features"]
    for request in result.llm_requests:
        seen = prompt_text(request)
        assert "Revenue is reported in euros." in seen and "Q1 revenue was 4.2M." in seen
        assert "r.pdf" in seen and ("q2.png" in seen)
        assert len(image_parts(request)) == (1 if vision else 0)
    assert "upstream 503" in prompt_text(result.llm_requests[1])
    assert bool(labelled(result, "USING ReAct")) == (strategy != steps)
