"""Wave 34: the promises made to Dify users, checked by an independent harness through the real
plugin process (the plugin a black box driven by local_runner), in both strategies.

The cases were designed from README.md, PLUGIN_README.md, strategies/*.yaml and
docs/architecture.md alone (60 of them); those the e2e suite already runs were dropped. What is
left: a code call written as the content of a Function Calling reply, ReAct's bold and
LangChain-bracketed action labels, ``maximum_iterations`` outside its declared range, the
instruction's ``{{#context#}}`` place for the knowledge context, the forced answer's usage at the
iteration limit, two files of one name, a ReAct reply's actions run in parallel and sixteen calls
run eight at a time, a run that opens no network socket and downloads no tokenizer (an audit hook
in the plugin process records every attempt), an empty query, a tool without parameters, typed
parameters the model writes as strings (a "false" stays false), a user-set (form) parameter the
model tries to set, and a file parameter the model gives as a string.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import textwrap

import pytest

from agent_core import prompts
from local_runner import PluginProcess
from local_runner.daemon import DEFAULT_PLUGIN_DIR
from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.conftest import ScriptedRun
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end, observations, prompt_text, weather_tool

PRICING = {"input": "2", "output": "8", "unit": "0.000001", "currency": "EUR"}


def call_turn(strategy: str, name: str, arguments: dict, call_id: str = "c1") -> dict:
    if strategy == "ReAct":
        return {"text": f"Thought: call {name}.\nAction: {name}\nAction Input: {json.dumps(arguments)}"}
    return {"tool_calls": [{"id": call_id, "name": name, "arguments": arguments}]}


def labelled(result, label: str) -> list:
    return [n for n in result.logs.values() if n.label == label]


def thoughts(result) -> list:
    return [n for n in result.logs.values() if n.label.endswith("Thought")]


def blob(data: bytes, filename: str, mime: str = "image/png") -> dict:
    return {"type": "blob", "message": {"blob": base64.b64encode(data).decode()},
            "meta": {"filename": filename, "mime_type": mime}}


# --- tool calls assembled / ReAct output read -------------------------------------------------------


def test_a_code_call_written_as_the_reply_runs_and_is_not_the_answer(run):
    """README: calls written as code in the content, ``get_weather(city="Paris")``, are read."""
    result = run([{"text": 'get_weather(city="Paris")'}, {"text": "Sunny in Paris."}], query="Paris weather?",
                 tools=[weather_tool()])
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    assert result.text == "Sunny in Paris."


@pytest.mark.parametrize("reply", [
    "**Thought:** look it up\n**Action:** get_weather\n**Action Input:** {\"city\": \"Paris\"}",
    "Thought: look it up\nAction: [get_weather]\nAction Input: {\"city\": \"Paris\"}",
], ids=["bold-labels", "langchain-brackets"])
def test_react_odd_action_labels_run_the_tool(run, reply):
    """README: ``**Action:**`` and ``Action: [Search]`` copied from LangChain's prompt are read."""
    result = run([{"text": reply}, answer_turn("ReAct", "Sunny.")], query="Paris weather?", tools=[weather_tool()],
                 strategy="ReAct")
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    assert result.text == "Sunny."


# --- the iteration limit -------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_maximum_iterations_under_its_range_is_one_round_then_the_answer(run, strategy):
    """README: ``maximum_iterations`` is clamped to 1-500; 0 is one round, not an error or no round."""
    turns = [call_turn(strategy, "get_weather", {"city": "Oslo"}), answer_turn(strategy, "Rainy.")]
    result = run(turns, query="Oslo?", tools=[weather_tool()], strategy=strategy, maximum_iterations=0)
    assert_clean_end(result)
    assert len(result.tool_requests) == 1
    assert result.text == "Rainy."
    assert labelled(result, "ITERATION LIMIT")


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_maximum_iterations_over_its_range_runs(run, strategy):
    turns = [call_turn(strategy, "get_weather", {"city": "Oslo"}), answer_turn(strategy, "Rainy.")]
    result = run(turns, query="Oslo?", tools=[weather_tool()], strategy=strategy, maximum_iterations=501)
    assert_clean_end(result)
    assert result.text == "Rainy." and len(result.tool_requests) == 1


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_forced_answer_at_the_limit_counts_in_the_usage(run, strategy):
    """README: usage summed over every model call, the answer asked for at the limit included;
    the currency and a latency are reported."""
    turns = [call_turn(strategy, "get_weather", {"city": "Oslo"}), answer_turn(strategy, "Rainy.")]
    turns[0]["usage"] = {"prompt_tokens": 100, "completion_tokens": 10}
    turns[1]["usage"] = {"prompt_tokens": 300, "completion_tokens": 30}
    result = run(turns, query="Oslo?", tools=[weather_tool()], strategy=strategy, maximum_iterations=1,
                 model={"pricing": PRICING})
    assert_clean_end(result)
    assert labelled(result, "ITERATION LIMIT") and result.text == "Rainy."
    meta = result.execution_metadata
    assert meta["prompt_tokens"] == 400 and meta["completion_tokens"] == 40 and meta["total_tokens"] == 440
    assert float(meta["total_price"]) == pytest.approx(400 * 2e-6 + 40 * 8e-6)
    assert meta["currency"] == "EUR"
    assert float(meta["latency"]) > 0
    assert sorted(n.metadata.get("total_tokens") for n in thoughts(result)) == [110, 330]


# --- knowledge context ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("strategy", "mode"), [("function_calling", "chat"), ("ReAct", "chat"), ("ReAct", "completion")])
def test_the_knowledge_context_stands_where_the_instruction_puts_it(run, strategy, mode):
    """README: the grounding goes where the instruction's ``{{#context#}}`` stands, as in Dify's
    LLM node (the placeholder itself never reaches the model)."""
    context = [{"content": "The canteen opens at 11:30.", "title": "canteen.md",
                "metadata": {"score": 0.9, "document_name": "canteen.md"}}]
    instruction = "RULES-BEFORE\n{{#context#}}\nRULES-AFTER"
    result = run([answer_turn(strategy, "At 11:30.")], query="When does the canteen open?", strategy=strategy,
                 instruction=instruction, context=context, model={"mode": mode})
    assert_clean_end(result)
    seen = prompt_text(result.llm_requests[0])
    assert "{{#context#}}" not in seen
    before, grounding, after = (seen.find(s) for s in ("RULES-BEFORE", "canteen opens at 11:30", "RULES-AFTER"))
    assert -1 < before < grounding < after, seen[:2000]


# --- query and instruction -----------------------------------------------------------------------------


@pytest.mark.parametrize(("strategy", "mode"), [("function_calling", "chat"), ("ReAct", "chat"), ("ReAct", "completion")])
def test_an_empty_query_is_sent_as_a_note(run, strategy, mode):
    """README: an empty query is sent as a note to follow the instruction."""
    result = run([answer_turn(strategy, "Hello!")], query="", strategy=strategy, instruction="Greet the user.",
                 model={"mode": mode})
    assert_clean_end(result)
    request = result.llm_requests[0]
    assert prompts.EMPTY_QUERY in prompt_text(request)
    assert "Greet the user." in prompt_text(request)
    assert all(m.get("content") not in ("", None, []) for m in request["prompt_messages"] if m["role"] == "user")


# --- tool files ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_two_files_of_one_name_with_different_bytes_both_reach_the_chat(run, strategy):
    """Deduplication is of the same bytes and name; two charts both named chart.png are two files."""
    tool = ScriptedTool(name="plot", description="Plots", parameters=[ToolParam("what")],
                        responses=[blob(b"\x89PNG first", "chart.png"), blob(b"\x89PNG second", "chart.png"),
                                   text_message("two charts")])
    result = run([call_turn(strategy, "plot", {"what": "sales"}), answer_turn(strategy, "Here.")],
                 tools=[tool], strategy=strategy)
    assert_clean_end(result)
    sent = [base64.b64decode(f["blob"]) for f in result.files if f["type"] == "blob"]
    assert sent == [b"\x89PNG first", b"\x89PNG second"]


def test_two_calls_sending_a_file_of_one_name_each_reach_the_chat(run):
    first = ScriptedTool(name="plot_a", description="Plots A", parameters=[ToolParam("what")],
                         responses=[blob(b"A-bytes", "chart.png")], latency=0.3)
    second = ScriptedTool(name="plot_b", description="Plots B", parameters=[ToolParam("what")],
                          responses=[blob(b"B-bytes", "chart.png")])
    turns = [{"tool_calls": [{"id": "a", "name": "plot_a", "arguments": {"what": "x"}},
                             {"id": "b", "name": "plot_b", "arguments": {"what": "y"}}]}, {"text": "Both."}]
    result = run(turns, tools=[first, second])
    assert_clean_end(result)
    assert [base64.b64decode(f["blob"]) for f in result.files] == [b"A-bytes", b"B-bytes"]


# --- parallel calls ---------------------------------------------------------------------------------------


def test_a_react_replys_actions_run_in_parallel(run):
    """README: tools run in parallel, in both strategies; three 0.6 s actions of one ReAct reply
    take about one call's time, and their results come back in the order written."""
    tool = ScriptedTool(name="fetch", description="Fetch", parameters=[ToolParam("n")],
                        responses=[text_message("fetched")], latency=0.6)
    steps = "\n".join(f"Action: fetch\nAction Input: {json.dumps({'n': str(n)})}" for n in range(3))
    result = run([{"text": "Thought: all three.\n" + steps}, answer_turn("ReAct", "All fetched.")],
                 tools=[tool], strategy="ReAct")
    assert_clean_end(result)
    records = run.toolbox.calls
    assert len(records) == 3
    span = max(r.finished for r in records) - min(r.started for r in records)
    assert span < 1.5, f"three 0.6 s calls took {span:.2f} s"
    assert sorted(r["tool_parameters"]["n"] for r in result.tool_requests) == ["0", "1", "2"]
    assert len(observations(result.llm_requests[1])) == 3


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_sixteen_calls_run_eight_at_a_time(run, strategy):
    """README: up to 8 calls at once: sixteen 0.4 s calls take two calls' time, never more than 8
    running together."""
    tool = ScriptedTool(name="fetch", description="Fetch", parameters=[ToolParam("n")],
                        responses=[text_message("fetched")], latency=0.4)
    if strategy == "ReAct":
        first = {"text": "Thought: all.\n" + "\n".join(
            f"Action: fetch\nAction Input: {json.dumps({'n': str(n)})}" for n in range(16))}
    else:
        first = {"tool_calls": [{"id": f"c{n}", "name": "fetch", "arguments": {"n": str(n)}} for n in range(16)]}
    result = run([first, answer_turn(strategy, "ok")], tools=[tool], strategy=strategy)
    assert_clean_end(result)
    records = run.toolbox.calls
    assert len(records) == 16
    span = max(r.finished for r in records) - min(r.started for r in records)
    edges = sorted([(r.started, 1) for r in records] + [(r.finished, -1) for r in records])
    running = peak = 0
    for _, step in edges:
        running += step
        peak = max(peak, running)
    assert span < 1.6 and peak == 8, (span, peak)


# --- tool parameters ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("arguments", ["", "{}", None, "null", "[]", "{ }"],
                         ids=["empty-string", "empty-object", "none", "null-text", "empty-list", "spaced-object"])
def test_a_tool_without_parameters_runs_in_function_calling(run, arguments):
    clock = ScriptedTool(name="now", description="The time", parameters=[], responses=[text_message("12:00")])
    result = run([{"tool_calls": [{"id": "c1", "name": "now", "arguments": arguments}]}, {"text": "Noon."}],
                 tools=[clock])
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{}]
    assert observations(result.llm_requests[1]) == ["12:00"]
    declared = [t for t in result.llm_requests[0]["tools"] if t["name"] == "now"]
    assert declared and declared[0]["parameters"].get("type") == "object"


@pytest.mark.parametrize("step", [
    "Action: now\nAction Input: {}", "Action: now\nAction Input: ", "Action: now\nAction Input: None", "Action: now",
    "Action: now()", '```json\n{"action": "now"}\n```'],
    ids=["empty-object", "nothing", "None", "no-input-line", "code-call", "fenced-without-input"])
def test_a_tool_without_parameters_runs_in_react(run, step):
    clock = ScriptedTool(name="now", description="The time", parameters=[], responses=[text_message("12:00")])
    result = run([{"text": f"Thought: check.\n{step}"},
                  answer_turn("ReAct", "Noon.")], tools=[clock], strategy="ReAct")
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{}]
    assert observations(result.llm_requests[1]) == ["12:00"]


def typed_tool() -> ScriptedTool:
    return ScriptedTool(name="search", description="Searches", parameters=[
        ToolParam("q", description="query"),
        ToolParam("limit", type="number", description="how many"),
        ToolParam("fresh", type="boolean", description="only recent"),
        ToolParam("lang", type="select", description="language", options=("en", "fr")),
    ], responses=[text_message("3 hits")])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_typed_parameters_given_as_strings_still_run(run, strategy):
    """A number, a boolean and a select the model writes as strings are no refused call (Dify casts
    them before the tool runs)."""
    arguments = {"q": "cats", "limit": "5", "fresh": "true", "lang": "fr"}
    result = run([call_turn(strategy, "search", arguments), answer_turn(strategy, "Found 3.")],
                 tools=[typed_tool()], strategy=strategy)
    assert_clean_end(result)
    assert len(result.tool_requests) == 1
    got = result.tool_requests[0]["tool_parameters"]
    assert got["q"] == "cats" and got["lang"] == "fr"
    assert got["limit"] in ("5", 5, 5.0) and got["fresh"] in ("true", True)
    assert observations(result.llm_requests[1]) == ["3 hits"]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize(("limit", "fresh", "expected"), [
    ("5.0", "false", (5.0, False)), (" 7 ", "0", (7, False)), ("1e3", "False", (1000.0, False)), ("-2", "no", (-2, False)),
    (3, "TRUE", (3, True)),
])
def test_a_string_false_never_reaches_the_tool_as_true(run, strategy, limit, fresh, expected):
    """Whatever form a number or a boolean comes in, a false stays false (a non-empty string is truthy)."""
    arguments = {"q": "cats", "limit": limit, "fresh": fresh, "lang": "en"}
    result = run([call_turn(strategy, "search", arguments), answer_turn(strategy, "Found 3.")],
                 tools=[typed_tool()], strategy=strategy)
    assert_clean_end(result)
    got = result.tool_requests[0]["tool_parameters"]
    assert (got["limit"], got["fresh"]) == expected
    assert got["fresh"] is expected[1]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_user_set_parameter_is_not_the_models_to_change(run, strategy):
    """A ``form`` parameter is the user's: the model neither sees it nor overrides it."""
    tool = ScriptedTool(name="forecast", description="Forecast", parameters=[
        ToolParam("city", description="City"), ToolParam("units", form="form", description="Units")],
        responses=[text_message("Sunny")], runtime_parameters={"units": "metric"})
    turns = [call_turn(strategy, "forecast", {"city": "Oslo", "units": "imperial"}), answer_turn(strategy, "Sunny.")]
    result = run(turns, tools=[tool], strategy=strategy)
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Oslo", "units": "metric"}]
    if strategy == "function_calling":
        (declared,) = [t for t in result.llm_requests[0]["tools"] if t["name"] == "forecast"]
        assert "units" not in declared["parameters"].get("properties", {})


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_file_parameter_given_as_a_string_ends_the_run_cleanly(run, strategy):
    """A tool with a ``file`` parameter the model fills with an address: the run goes on (the
    call runs or the model is told why not), never a crash."""
    tool = ScriptedTool(name="summarize", description="Summarizes a document", parameters=[
        ToolParam("doc", type="file", description="the document"), ToolParam("style", description="style")],
        responses=[text_message("a summary")])
    turns = [call_turn(strategy, "summarize", {"doc": "https://e.com/a.pdf", "style": "short"}),
             answer_turn(strategy, "Summary.")]
    result = run(turns, tools=[tool], strategy=strategy)
    assert_clean_end(result)
    assert result.text == "Summary."
    told = observations(result.llm_requests[1])
    assert len(told) == 1 and told[0], told


# --- offline -------------------------------------------------------------------------------------------------

AUDIT_HOOK = textwrap.dedent('''
    import os, sys
    _out = os.environ.get("AGENT_AUDIT_OUT")
    _NET = {"socket.connect", "socket.bind", "socket.getaddrinfo", "socket.gethostbyname", "urllib.Request",
            "http.client.connect", "socket.sendto"}
    def _hook(event, args):
        if not _out:
            return
        if event == "socket.__new__":
            family = args[1]
            if int(family) == 1:  # AF_UNIX: a socketpair of the event loop
                return
        elif event not in _NET:
            return
        if event in ("socket.connect", "socket.bind", "socket.sendto") and isinstance(args[1], (str, bytes)):
            return  # a Unix socket's path
        with open(_out, "a") as handle:
            handle.write(event + " " + repr(args[1:])[:200] + "\\n")
    sys.addaudithook(_hook)
''')


@pytest.fixture(scope="module")
def audited_plugin(tmp_path_factory):
    """A plugin process of its own whose every network attempt (an inet socket, a connect, a
    name look-up, a urllib or http.client request) is written to a file by an audit hook, with
    an empty tiktoken cache and proxies that lead nowhere."""
    root = tmp_path_factory.mktemp("audit")
    (root / "hook").mkdir()
    (root / "hook" / "sitecustomize.py").write_text(AUDIT_HOOK)
    cache = root / "tiktoken_cache"
    cache.mkdir()
    out = root / "net.log"
    env = {"PYTHONPATH": os.pathsep.join([str(root / "hook"), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
           "AGENT_AUDIT_OUT": str(out), "TIKTOKEN_CACHE_DIR": str(cache), "DATA_GYM_CACHE_DIR": str(cache),
           "HF_HUB_OFFLINE": "0", "HTTPS_PROXY": "http://192.0.2.1:9", "HTTP_PROXY": "http://192.0.2.1:9"}
    probe = "import socket; socket.getaddrinfo('localhost', 80)"
    subprocess.run([sys.executable, "-c", probe], env={**os.environ, **env}, check=True, timeout=30)
    assert "socket.getaddrinfo" in out.read_text(), "the audit hook is not loaded: the check would prove nothing"
    out.unlink()
    with PluginProcess(DEFAULT_PLUGIN_DIR, env=env) as process:
        yield process, out, cache


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_run_opens_no_network_socket_and_downloads_no_tokenizer(audited_plugin, strategy):
    """README: works offline, the token estimate downloads no tokenizer. A run with tools, memory,
    a knowledge context and a small window (so the estimate is used to trim) makes no network
    attempt of its own: the only channel is the daemon's stdio."""
    process, out, cache = audited_plugin
    if sys.platform != "linux":
        pytest.skip("audit hook check written for Linux")
    at_start = out.read_text() if out.exists() else ""
    # urllib3's import probes IPv6 support by binding a socket to ::1 (loopback, port 0, closed at once)
    assert all("'::1'" in line or "(10, 1, 0)" in line for line in at_start.splitlines()), at_start
    out.write_text("")
    run = ScriptedRun(process)
    history = [{"role": "user", "content": "old question " * 400}, {"role": "assistant", "content": "old answer"}] * 6
    turns = [call_turn(strategy, "get_weather", {"city": "Oslo"}), answer_turn(strategy, "Rainy.")]
    result = run(turns, query="Oslo?", tools=[weather_tool()], strategy=strategy, history=history,
                 context=[{"content": "Oslo is in Norway.", "title": "geo"}],
                 model={"context_size": 4096, "model": "gpt-4o", "completion_params": {"max_tokens": 256}})
    assert_clean_end(result)
    assert result.text == "Rainy."
    assert labelled(result, "CONTEXT TRIMMED"), "the token estimate was used to trim memory"
    attempts = out.read_text() if out.exists() else ""
    assert attempts == "", attempts
    assert list(cache.iterdir()) == []


@pytest.mark.parametrize(("strategy", "mode"), [("function_calling", "chat"), ("ReAct", "chat"), ("ReAct", "completion")])
@pytest.mark.parametrize("context", [None, [], [{"content": "", "title": "x"}]], ids=["none", "empty", "blank"])
def test_the_context_placeholder_never_reaches_the_model_without_a_context(run, strategy, mode, context):
    result = run([answer_turn(strategy, "Hi.")], query="q?", strategy=strategy, instruction="A\n{{#context#}}\nB",
                 context=context, model={"mode": mode})
    assert_clean_end(result)
    seen = prompt_text(result.llm_requests[0])
    assert "{{#context#}}" not in seen and "A" in seen and "B" in seen


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_every_kind_of_file_of_parallel_calls_reaches_the_chat_in_call_order_when_one_then_fails(run, strategy):
    """An image link, a tool-file link and a blob from a call that then fails (and is the slower
    one), and a blob of the same name from the other call: all four reach the chat, in call order,
    and the model learns both the files and the failure."""
    sent = [{"type": "image_link", "message": {"text": "https://e.com/a.png"}, "meta": None},
            {"type": "link", "message": {"text": "/files/tools/f1.docx"},
             "meta": {"filename": "f1.docx", "mime_type": "application/msword", "tool_file_id": "f1"}},
            blob(b"x1", "chart.png"), text_message("partial")]
    failing = ScriptedTool(name="plot_a", description="A", parameters=[ToolParam("w")], responses=sent, error="boom",
                           latency=0.2)
    other = ScriptedTool(name="plot_b", description="B", parameters=[ToolParam("w")], responses=[blob(b"x2", "chart.png")])
    if strategy == "ReAct":
        first = {"text": "Thought: both\n" + "\n".join(
            f"Action: {name}\nAction Input: {json.dumps({'w': w})}" for name, w in (("plot_a", "1"), ("plot_b", "2")))}
    else:
        first = {"tool_calls": [{"id": "a", "name": "plot_a", "arguments": {"w": "1"}},
                                {"id": "b", "name": "plot_b", "arguments": {"w": "2"}}]}
    result = run([first, answer_turn(strategy, "Done.")], tools=[failing, other], strategy=strategy)
    assert_clean_end(result)
    assert result.text == "Done."
    assert [(f["type"], f.get("text") or base64.b64decode(f["blob"])) for f in result.files] == [
        ("image", "https://e.com/a.png"), ("link", "/files/tools/f1.docx"), ("blob", b"x1"), ("blob", b"x2")]
    told = observations(result.llm_requests[1])
    assert "boom" in told[0] and "chart.png" in told[0] and "partial" in told[0]
    assert "chart.png" in told[1]
