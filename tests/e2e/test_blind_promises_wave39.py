"""Wave 39 blind pass on the README's promises to Dify users, through the real plugin process.

Cases written from the README, PLUGIN_README, the docs, the strategies' YAML and the daemon
protocol before reading the earlier promise tests; those earlier waves cover were dropped. Left
here, each a combination the earlier waves did not make:

- what a workflow's downstream node reads of the Agent node (its text, files, json and usage
  outputs, in the order the node stores them), and a tool's ``variable``/``json`` messages never
  overwriting them;
- usage as a running total on every chunk of a round whose call arrives in pieces, on a chunk
  before the finish chunk, on a chunk after it; a reply asked again counted; the round logs agree;
- ``maximum_iterations`` reaching the plugin as text; a model calling the same tool forever under a
  limit of 100 (also with its arguments' keys reordered, or two calls in turn), a clock polled 100
  times with the user still told why the run stopped; a forced answer of
  zero-width spaces or call markup;
- an instruction that holds ReAct's own labels, a thought quoting ``Final Answer:``, an action
  input holding it; stop words of the user's that name ReAct labels;
- one query run twice on one process with a failed run between; two and four runs at once (their
  own answers, files, usage, and eight parallel calls each);
- answers in Chinese, Japanese, Arabic, emoji sequences and combining marks streamed a character at
  a time (also inside ``<think>``, also with the labels in Chinese or Japanese), and megabytes of
  them within the daemon's line; ``\\u`` escapes split inside a call's arguments, and inside a JSON
  step's streamed answer;
- a first-round answer without tools reporting the model's own usage; a call when no tool is
  declared; knowledge without citation data;
- parallel calls yielding every kind of file (image link, blob with its type, tool-file link, a file
  the tool received, and files streamed in chunks under one id);
- a fake ``HOME`` and proxies at a port the test watches (text and JSON steps): no connection,
  nothing written.
"""

import base64
import json
import socket
import threading
from decimal import Decimal

import pytest

from local_runner import PluginProcess, ScriptedBackend
from local_runner import scenario as scenario_module
from local_runner.backends import Pricing, make_usage
from local_runner.daemon import DEFAULT_PLUGIN_DIR
from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.conftest import ScriptedRun
from tests.e2e.helpers import (
    STRATEGIES,
    answer_turn,
    assert_clean,
    assert_clean_end,
    assert_clean_run,
    call_turn,
    observations,
    prompt_text,
    tools_ran,
    weather_tool,
)

USAGE_FIELDS = {"prompt_tokens", "prompt_unit_price", "prompt_price_unit", "prompt_price", "completion_tokens",
                "completion_unit_price", "completion_price_unit", "completion_price", "total_tokens",
                "total_price", "currency", "latency"}

PRICING = Pricing(input=Decimal("2"), output=Decimal("8"), unit=Decimal("0.000001"), currency="USD")


def exact(value) -> Decimal:
    """A metadata number read back as Dify does (``Decimal(str(value))``)."""
    return Decimal(str(value))


def labels(result) -> list[str]:
    return [node.label for node in result.logs.values()]


def rounds(result) -> list:
    return [node for node in result.logs.values() if node.label.startswith("ROUND ")]


def assert_usage_consistent(meta: dict) -> None:
    """Every ``LLMUsage`` field present, tokens and prices adding up as Dify reads them."""
    assert set(meta) >= USAGE_FIELDS, sorted(USAGE_FIELDS - set(meta))
    assert meta["prompt_tokens"] + meta["completion_tokens"] == meta["total_tokens"]
    assert exact(meta["prompt_price"]) + exact(meta["completion_price"]) == exact(meta["total_price"])
    assert meta["currency"] and float(meta["latency"]) > 0


def blob(data: bytes, filename: str, mime: str) -> dict:
    return {"type": "blob", "message": {"blob": base64.b64encode(data).decode()},
            "meta": {"filename": filename, "mime_type": mime}}


# --- what a downstream node reads ---------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_downstream_node_reads_the_answer_alone_its_file_citations_and_one_usage_record(run, strategy):
    """Dify's Agent node appends every ``text`` message to ``outputs.text``, every file to
    ``outputs.files``, every ``json`` message to ``outputs.json`` (popping ``execution_metadata``
    into ``outputs.usage``). A run with a tool round (the tool sends an image), a knowledge context
    and a final answer: the text output is the answer and nothing else (no thought, no label, no
    observation), the file output is the tool's image once, the citations come after the answer,
    and the json output holds one usage record, the last message, whose numbers add up."""
    tool = ScriptedTool(name="chart", description="Draws a chart", parameters=[ToolParam("q", description="q")],
                        responses=[{"type": "image_link", "message": {"text": "https://e.com/c.png"}, "meta": None},
                                   text_message("chart drawn")])
    turns = [dict(call_turn(strategy, "chart", {"q": "sales"}),
                  usage={"prompt_tokens": 120, "completion_tokens": 12}),
             dict(answer_turn(strategy, "Here is the sales chart."), usage={"prompt_tokens": 180, "completion_tokens": 9})]
    result = run(turns, query="Chart sales", strategy=strategy, tools=[tool], model={"pricing": PRICING.to_dict()},
                 context=[{"content": "Sales rose 5%.", "title": "report.pdf",
                           "metadata": {"document_id": "d1", "score": 0.9}}])
    assert_clean(result, run)
    assert result.text == "Here is the sales chart."
    assert [(f["type"], f.get("text")) for f in result.files] == [("image", "https://e.com/c.png")]
    kinds = [m["type"] for m in result.messages if m["type"] != "log"]
    assert kinds[-1] == "json" and kinds.count("json") == 1, kinds
    assert kinds.index("retriever_resources") > max(i for i, k in enumerate(kinds) if k == "text"), kinds
    assert result.variables == {}
    meta = result.execution_metadata
    assert_usage_consistent(meta)
    assert (meta["prompt_tokens"], meta["completion_tokens"]) == (300, 21)
    assert exact(meta["total_price"]) == Decimal(300 * 2 + 21 * 8) * Decimal("0.000001")


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_running_total_usage_on_every_chunk_of_a_split_call_round_and_the_answer_counts_once(run, strategy):
    """A model plugin that reports usage as a running total on every chunk (OpenAI's
    ``include_usage`` relayed per chunk) in a tool-call round whose call arrives in pieces, then
    in the answer round: each round counts its last report, the run adds the rounds, and the
    round logs say the same numbers."""
    pricing = PRICING

    def u(prompt, completion):
        return make_usage(prompt, completion, pricing, 0.2)

    if strategy == "ReAct":
        step = 'Thought: check.\nAction: get_weather\nAction Input: {"city": "Oslo"}'
        first = [{"content": step[:10], "usage": u(40, 3)}, {"content": step[10:40], "usage": u(40, 6)},
                 {"content": step[40:], "usage": u(40, 9), "finish_reason": "stop"}]
        answer = "Final Answer: Rainy in Oslo."
    else:
        first = [{"content": "Checking. ", "usage": u(40, 3)},
                 {"tool_calls": [{"index": 0, "id": "c1", "type": "function",
                                  "function": {"name": "get_weather", "arguments": '{"ci'}}], "usage": u(40, 6)},
                 {"tool_calls": [{"index": 0, "id": "", "type": "function",
                                  "function": {"name": "", "arguments": 'ty": "Oslo"}'}}],
                  "usage": u(40, 9), "finish_reason": "tool_calls"}]
        answer = "Rainy in Oslo."
    second = [{"content": answer[:8], "usage": u(70, 2)}, {"content": answer[8:], "usage": u(70, 5)},
              {"content": "", "usage": u(70, 7), "finish_reason": "stop"}]
    result = run([{"chunks": first}, {"chunks": second}], query="Oslo weather?", strategy=strategy,
                 tools=[weather_tool()], model={"pricing": pricing.to_dict()})
    assert_clean(result, run)
    # Function Calling streams the text beside a round's calls, as Dify's own strategy does
    assert result.text == ("Rainy in Oslo." if strategy == "ReAct" else "Checking. \n\nRainy in Oslo.")
    assert tools_ran(result) == [("get_weather", {"city": "Oslo"})]
    meta = result.execution_metadata
    assert_usage_consistent(meta)
    assert (meta["prompt_tokens"], meta["completion_tokens"], meta["total_tokens"]) == (110, 16, 126)
    assert exact(meta["total_price"]) == Decimal(110 * 2 + 16 * 8) * Decimal("0.000001")
    assert [n.metadata.get("total_tokens") for n in rounds(result)] == [49, 77]


# --- the iteration limit --------------------------------------------------------------------------------


@pytest.fixture
def raw_iterations(monkeypatch):
    """Send ``maximum_iterations`` to the plugin as given (the runner otherwise casts a number
    parameter's text as Dify's ``init_frontend_parameter`` does): text reaches the plugin from a
    caller that does not cast, or a Dify version whose cast changed."""
    original = scenario_module.apply_declaration

    def keep(params, declaration):
        done = original({**params, "maximum_iterations": 1}, declaration)
        done["maximum_iterations"] = params.get("maximum_iterations")
        return done

    monkeypatch.setattr(scenario_module, "apply_declaration", keep)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize(("given", "allowed"), [("2", 2), (" 2 ", 2), ("2.0", 2), (2.0, 2), ("0", 1), ("1e1", 10)],
                         ids=["text", "spaced", "text-float", "float", "text-zero", "exponent"])
def test_maximum_iterations_given_as_text_is_read_as_its_number(run, raw_iterations, strategy, given, allowed):
    """A workflow variable or a templated constant may reach the plugin as text: ``"2"`` is 2
    rounds of tool calls, then the model is asked for the answer; ``"0"`` is clamped to 1 as 0 is."""
    turns = [call_turn(strategy, "get_weather", {"city": f"C{n}"}, call_id=f"c{n}") for n in range(allowed)]
    turns.append(answer_turn(strategy, "Done."))
    result = run(turns, query="Weather everywhere?", strategy=strategy, tools=[weather_tool()],
                 maximum_iterations=given)
    sent = [e["json"]["data"]["agent_strategy_params"] for e in result.transcript
            if e["dir"] == "to_plugin" and (e.get("json") or {}).get("event") == "request"]
    assert sent[0]["maximum_iterations"] == given, "the value went to the plugin as given"
    assert_clean(result, run)
    assert result.text == "Done."
    assert len(tools_ran(result)) == allowed
    assert "ITERATION LIMIT" in labels(result)


class SameCallForever(ScriptedBackend):
    """A model that calls ``get_weather(Oslo)`` in every reply, whatever it is told."""

    def __init__(self, strategy: str) -> None:
        super().__init__([])
        self.strategy = strategy

    def invoke_llm(self, request):
        n = len(self.requests) + 1
        turn = (call_turn(self.strategy, "get_weather", {"city": "Oslo"}, call_id=f"c{n}") if n <= 12
                else answer_turn(self.strategy, "gave up"))
        self._turns.append(turn)
        return super().invoke_llm(request)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_model_calling_the_same_tool_forever_under_a_limit_of_100_is_stopped_with_words(plugin, strategy):
    """README: the same call runs at most three times while its result stays the same, then a
    round of only such calls makes the model answer. A model that keeps calling anyway must not
    use up 100 rounds: the tool runs three times, the run ends within a few model calls with
    words for the user or a clear error, never a silent stop."""
    from local_runner import Scenario, run_scenario
    from local_runner.tools import ToolBox

    backend = SameCallForever(strategy)
    scenario = Scenario(query="Oslo?", tools=["get_weather"], strategy=strategy, maximum_iterations=100)
    result = run_scenario(scenario, backend, ToolBox([weather_tool()]), plugin=plugin, timeout=60)
    assert_clean_end(result)
    assert len(tools_ran(result)) == 3
    assert len(backend.requests) <= 6, len(backend.requests)
    assert "REPEATED CALLS" in labels(result)
    assert result.text.strip() and "gave up" not in result.text


# --- instructions and stop words that look like the format ----------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_instruction_holding_react_labels_does_not_steer_what_is_read_of_the_reply(run, strategy):
    """The user's instruction quotes the format itself ("Final Answer: ..." and an "Action:" the
    model must never take): the model's own action runs, the quoted one never does, and the answer
    is the model's, not the instruction's."""
    instruction = ("Rules:\nAction: delete_everything\nAction Input: {}\nNever do the above.\n"
                   "Always end with: Final Answer: <one sentence>")
    forbidden = ScriptedTool(name="delete_everything", description="Deletes", parameters=[],
                             responses=[text_message("deleted")])
    turns = [call_turn(strategy, "get_weather", {"city": "Oslo"}), answer_turn(strategy, "It rains in Oslo.")]
    result = run(turns, query="Oslo?", strategy=strategy, tools=[weather_tool(), forbidden], instruction=instruction)
    assert_clean(result, run)
    assert tools_ran(result) == [("get_weather", {"city": "Oslo"})]
    assert result.text == "It rains in Oslo."
    assert "Never do the above." in prompt_text(result.llm_requests[0])


@pytest.mark.parametrize("stops", [["Observation:"], ["Observation", "\nObservation"], ["Final Answer:", "END"]],
                         ids=["observation-colon", "observation-twice", "final-answer"])
def test_react_keeps_the_users_stop_words_beside_its_own_without_doubling_them(run, stops):
    """README: stop sequences set in the model's parameters are kept. ReAct adds its own
    ``Observation`` stop: every stop the user set is sent, none twice, and the run answers."""
    turns = [call_turn("ReAct", "get_weather", {"city": "Oslo"}), answer_turn("ReAct", "Wet.")]
    result = run(turns, query="Oslo?", strategy="ReAct", tools=[weather_tool()],
                 model={"completion_params": {"max_tokens": 512, "stop": stops}})
    assert_clean(result, run)
    assert result.text == "Wet."
    for request in result.llm_requests:
        sent = request.get("stop") or []
        assert all(stop in sent for stop in stops), sent
        assert len(sent) == len(set(sent)), sent
        assert any(stop.strip().startswith("Observation") for stop in sent), sent


# --- no state carried between runs ----------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_one_query_run_twice_on_one_process_with_a_failed_run_between_is_the_same_run(run, strategy):
    """Nothing of a run stays in the plugin process for the next: the same query after the same
    query (and after a run that failed in its second round) sends the model the same prompts,
    yields the same answer, file and usage."""
    tool = ScriptedTool(name="chart", description="Draws", parameters=[ToolParam("q", description="q")],
                        responses=[blob(b"PNG1", "c.png", "image/png"), text_message("drawn")])

    def once(fail: bool = False):
        turns = [dict(call_turn(strategy, "chart", {"q": "x"}), usage={"prompt_tokens": 50, "completion_tokens": 5}),
                 {"error": "upstream 503"} if fail else
                 dict(answer_turn(strategy, "Drawn."), usage={"prompt_tokens": 60, "completion_tokens": 3})]
        return run(turns, query="Draw x", strategy=strategy, tools=[tool])

    first = once()
    assert_clean(first, run)
    failed = once(fail=True)
    assert not failed.ok
    second = once()
    assert_clean(second, run)
    assert second.text == first.text == "Drawn."
    assert [base64.b64decode(f["blob"]) for f in first.files] == [b"PNG1"]  # the chart reached the user
    assert [f["blob"] for f in second.files] == [f["blob"] for f in first.files]
    for a, b in zip(first.llm_requests, second.llm_requests, strict=True):
        assert a["prompt_messages"] == b["prompt_messages"]
    keep = ("prompt_tokens", "completion_tokens", "total_tokens", "total_price", "currency")
    assert {k: first.execution_metadata[k] for k in keep} == {k: second.execution_metadata[k] for k in keep}


# --- text that must never break ---------------------------------------------------------------------------


ANSWERS = {
    "zh": "奥斯陆今天下雨，气温十度。请带伞。",
    "ja": "オスロは今日雨です。傘を持って行ってください。",
    "ar": "الطقس في أوسلو ممطر اليوم، خذ مظلة.",
    "emoji": "Rain 🌧️ for 👩‍👩‍👧‍👦, café naïve e\u0301 🇳🇴.",
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("language", sorted(ANSWERS))
def test_an_answer_streamed_one_character_at_a_time_after_a_tool_round_arrives_whole(run, strategy, language):
    """An answer in Chinese, Japanese, Arabic, or of emoji sequences and combining marks, sent one
    code point a chunk (the ReAct label split too): the user reads it exactly, every text message
    whole UTF-8."""
    answer = ANSWERS[language]
    last = dict(answer_turn(strategy, answer), split=1)
    result = run([call_turn(strategy, "get_weather", {"city": "Oslo"}), last], query="オスロ?", strategy=strategy,
                 tools=[weather_tool("雨, 10 C")])
    assert_clean(result, run)
    assert result.text == answer
    for message in result.messages:
        if message["type"] == "text":
            message["message"]["text"].encode("utf-8")
    assert "雨, 10 C" in observations(result.llm_requests[1])[0]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_think_block_in_chinese_split_one_character_a_chunk_never_reaches_the_answer(run, strategy):
    reply = "<think>用户问天气，我直接回答。</think>" + ("Final Answer: " if strategy == "ReAct" else "") + "今天下雨。"
    result = run([{"text": reply, "split": 1}], query="天气?", strategy=strategy)
    assert_clean(result, run)
    assert result.text == "今天下雨。"


# --- a first-round answer ---------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_first_round_answer_with_no_tools_reports_the_models_own_usage(run, strategy):
    """No tools declared, the model answers at once: one model call, no tool declared to it, and
    the node's usage is exactly what the model plugin reported (tokens, prices, currency)."""
    given = make_usage(33, 4, Pricing(input=Decimal("0.5"), output=Decimal("1.5"), unit=Decimal("0.001"),
                                      currency="EUR"), 0.4)
    result = run([dict(answer_turn(strategy, "Hello!"), usage=given)], query="hi", strategy=strategy)
    assert_clean(result, run)
    assert result.text == "Hello!"
    assert len(result.llm_requests) == 1 and not result.llm_requests[0].get("tools")
    meta = result.execution_metadata
    assert_usage_consistent(meta)
    for key in ("prompt_tokens", "completion_tokens", "total_tokens", "currency"):
        assert meta[key] == given[key], key
    for key in ("prompt_price", "completion_price", "total_price"):
        assert exact(meta[key]) == exact(given[key]), key


# --- files of parallel calls ------------------------------------------------------------------------------


RECEIVED = {"dify_model_identity": "__dify__file__", "url": "https://files.example.com/report.pdf",
            "filename": "report.pdf", "mime_type": "application/pdf", "extension": ".pdf", "size": 1200,
            "type": "document"}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_parallel_calls_yielding_every_kind_of_file_each_reach_the_chat_once_and_are_named_to_the_model(
        run, strategy):
    """One call sends an image link and a CSV blob with its type (and is the slower); the other a
    tool-file link and a file it received. Each reaches the chat once, in call order, and the
    model's observations name them."""
    first_tool = ScriptedTool(
        name="plot", description="Plots", parameters=[ToolParam("w", description="w")], latency=0.3,
        responses=[{"type": "image_link", "message": {"text": "https://e.com/p.png"}, "meta": None},
                   blob(b"a,b\n1,2\n", "table.csv", "text/csv")])
    second_tool = ScriptedTool(
        name="fetch", description="Fetches", parameters=[ToolParam("w", description="w")],
        responses=[{"type": "link", "message": {"text": "/files/tools/f9.docx"},
                    "meta": {"filename": "notes.docx", "tool_file_id": "f9",
                             "mime_type": "application/vnd.openxmlformats-officedocument.wordprocessingml.document"}},
                   {"type": "file", "message": {"file_marker": "file_marker"}, "meta": {"file": RECEIVED}}])
    if strategy == "ReAct":
        first = {"text": "Thought: both\nAction: plot\nAction Input: {\"w\": \"1\"}\n"
                         "Action: fetch\nAction Input: {\"w\": \"2\"}"}
    else:
        first = {"tool_calls": [{"id": "a", "name": "plot", "arguments": {"w": "1"}},
                                {"id": "b", "name": "fetch", "arguments": {"w": "2"}}]}
    result = run([first, answer_turn(strategy, "All four.")], query="Get them", strategy=strategy,
                 tools=[first_tool, second_tool])
    assert_clean_run(result)
    assert result.text == "All four."
    shown = [(f["type"], f.get("text") or base64.b64decode(f.get("blob") or "")) for f in result.files]
    assert shown == [("image", "https://e.com/p.png"), ("blob", b"a,b\n1,2\n"), ("link", "/files/tools/f9.docx"),
                     ("link", "https://files.example.com/report.pdf")], shown
    told = observations(result.llm_requests[1])
    assert "table.csv" in told[0] and "p.png" in told[0]
    assert "notes.docx" in told[1] and "report.pdf" in told[1]


# --- offline ----------------------------------------------------------------------------------------------


class WatchedPort:
    """A listening socket on 127.0.0.1 that counts the connections it gets and answers none."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.hits = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.hits += 1
            conn.close()


@pytest.fixture(scope="module")
def offline_plugin(tmp_path_factory):
    """A plugin process with an empty ``HOME`` and every proxy variable at a watched port."""
    home = tmp_path_factory.mktemp("home")
    port = WatchedPort()
    proxy = f"http://127.0.0.1:{port.port}"
    env = {"HOME": str(home), "HTTP_PROXY": proxy, "HTTPS_PROXY": proxy, "http_proxy": proxy,
           "https_proxy": proxy, "ALL_PROXY": proxy, "NO_PROXY": "", "no_proxy": "", "XDG_CACHE_HOME": str(home)}
    with PluginProcess(DEFAULT_PLUGIN_DIR, env=env) as process:
        yield process, port, home
    port.sock.close()


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_with_a_fake_home_and_proxies_at_a_watched_port_the_run_makes_no_connection(offline_plugin, strategy):
    """Works offline: a run with memory to trim (the token estimate), a knowledge context, a tool
    that sends an image link and a query image at a public address never opens a connection
    through the proxies, and writes nothing to the home folder."""
    process, port, home = offline_plugin
    run = ScriptedRun(process)
    history = [{"role": "user", "content": "old question " * 300}, {"role": "assistant", "content": "old answer"}] * 5
    tool = ScriptedTool(name="chart", description="Draws", parameters=[ToolParam("q", description="q")],
                        responses=[{"type": "image_link", "message": {"text": "https://e.com/c.png"}, "meta": None}])
    turns = [call_turn(strategy, "chart", {"q": "x"}), answer_turn(strategy, "Done offline.")]
    result = run(turns, query="Chart?", strategy=strategy, tools=[tool], history=history,
                 context=[{"content": "Charts are nice.", "title": "c"}],
                 files=[{"url": "https://example.com/cat.png", "mime_type": "image/png", "filename": "cat.png",
                         "type": "image"}],
                 model={"context_size": 4096, "features": ["tool-call", "multi-tool-call", "stream-tool-call",
                                                           "vision"]})
    assert_clean_run(result)
    assert result.text == "Done offline."
    assert any(n.label == "CONTEXT TRIMMED" for n in result.logs.values())
    assert port.hits == 0
    assert list(home.iterdir()) == []


# --- sideways: more of the same promises --------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_two_runs_at_once_on_one_process_keep_their_own_answers_files_and_usage(plugin, strategy):
    """Two sessions of one node served at the same time by one plugin process (Dify sends a
    chat's turns from many users to one process): neither run sees the other's tool result,
    file, answer or usage."""
    results = {}

    def one(name: str, city: str, tokens: int) -> None:
        tool = ScriptedTool(name="get_weather", description="Weather", parameters=[ToolParam("city", description="c")],
                            latency=0.3, responses=[blob(city.encode(), f"{city}.png", "image/png"),
                                                    text_message(f"weather of {city}")])
        runner = ScriptedRun(plugin)
        turns = [dict(call_turn(strategy, "get_weather", {"city": city}), usage={"prompt_tokens": tokens,
                                                                                "completion_tokens": 1}),
                 dict(answer_turn(strategy, f"{city} answered."), usage={"prompt_tokens": tokens,
                                                                         "completion_tokens": 2})]
        results[name] = (runner(turns, query=f"{city}?", strategy=strategy, tools=[tool]), runner)

    threads = [threading.Thread(target=one, args=args) for args in (("a", "Oslo", 100), ("b", "Lima", 1000))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    for name, city, tokens in (("a", "Oslo", 100), ("b", "Lima", 1000)):
        result, runner = results[name]
        assert_clean(result, runner)
        assert result.text == f"{city} answered."
        assert [base64.b64decode(f["blob"]) for f in result.files] == [city.encode()]
        told = observations(result.llm_requests[1])
        assert f"weather of {city}" in told[0] and "Lima" not in told[0].replace(city, "") \
            and "Oslo" not in told[0].replace(city, "")
        assert result.execution_metadata["prompt_tokens"] == 2 * tokens


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_tools_variable_and_json_messages_never_overwrite_the_nodes_outputs(run, strategy):
    """A tool that sends a ``variable`` named ``text`` and a ``json`` holding ``execution_metadata``:
    the model reads them, but the node's text output is the answer and its usage the model's."""
    tool = ScriptedTool(name="probe", description="Probe", parameters=[ToolParam("w", description="w")],
                        responses=[{"type": "variable", "message": {"variable_name": "text",
                                                                    "variable_value": "HIJACKED", "stream": False},
                                    "meta": None},
                                   {"type": "json", "message": {"json_object": {
                                       "execution_metadata": {"total_tokens": 999999}, "value": 7}}, "meta": None}])
    turns = [dict(call_turn(strategy, "probe", {"w": "1"}), usage={"prompt_tokens": 10, "completion_tokens": 1}),
             dict(answer_turn(strategy, "Seven."), usage={"prompt_tokens": 20, "completion_tokens": 1})]
    result = run(turns, query="Probe?", strategy=strategy, tools=[tool])
    assert_clean(result, run)
    assert result.text == "Seven."
    assert "text" not in result.variables
    assert result.execution_metadata["total_tokens"] == 32
    # one json message, the plugin's own usage: the tool's json never reaches the node's json output
    assert result.json_messages == [{"execution_metadata": result.execution_metadata}], result.json_messages
    assert "7" in observations(result.llm_requests[1])[0]


def test_react_thought_quoting_the_final_answer_label_still_runs_its_action(run):
    """The instruction asks to end with "Final Answer:", and the model's thought quotes that
    label in a sentence before its action: the action runs; the quote is no answer."""
    step = ('Thought: The rules say I must end with "Final Answer:" once I know. I do not know yet.\n'
            'Action: get_weather\nAction Input: {"city": "Oslo"}')
    result = run([{"text": step, "split": 3}, answer_turn("ReAct", "Rain.")], query="Oslo?", strategy="ReAct",
                 tools=[weather_tool()], instruction='End with "Final Answer:".')
    assert_clean(result, run)
    assert tools_ran(result) == [("get_weather", {"city": "Oslo"})]
    assert result.text == "Rain."


def test_react_action_input_holding_the_final_answer_label_reaches_the_tool(run):
    """An action input whose value is text with "Final Answer:" in it is the tool's input, not
    the run's answer."""
    note = ScriptedTool(name="save_note", description="Saves a note", parameters=[ToolParam("text", description="t")],
                        responses=[text_message("saved")])
    step = 'Thought: save it.\nAction: save_note\nAction Input: {"text": "Draft.\\nFinal Answer: not yet"}'
    result = run([{"text": step, "split": 4}, answer_turn("ReAct", "Saved.")], query="Save", strategy="ReAct",
                 tools=[note])
    assert_clean(result, run)
    assert tools_ran(result) == [("save_note", {"text": "Draft.\nFinal Answer: not yet"})]
    assert result.text == "Saved."


@pytest.mark.parametrize(("reply", "answer"), [
    ("思考：我知道答案。\n最终答案：今天下雨。", "今天下雨。"),
    ("思考：わかりました。\n最終回答：雨です。", "雨です。"),
], ids=["zh", "ja"])
def test_react_labels_in_chinese_or_japanese_one_character_a_chunk(run, reply, answer):
    result = run([{"text": reply, "split": 1}], query="天气?", strategy="ReAct")
    assert_clean(result, run)
    assert result.text == answer


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_usage_reported_before_the_last_chunk_only_counts_once(run, strategy):
    """A model plugin that puts its usage on a chunk before the finish chunk (which carries
    none): the round counts it once, the run's usage is that report."""
    pricing = PRICING
    text = "Final Answer: Hi there." if strategy == "ReAct" else "Hi there."
    chunks = [{"content": text[:5]}, {"content": text[5:], "usage": make_usage(25, 4, pricing, 0.1)},
              {"content": "", "finish_reason": "stop", "usage": None}]
    result = run([{"chunks": chunks, "usage": None}], query="hi", strategy=strategy,
                 model={"pricing": pricing.to_dict()})
    assert_clean(result, run)
    assert result.text == "Hi there."
    meta = result.execution_metadata
    assert_usage_consistent(meta)
    assert (meta["prompt_tokens"], meta["completion_tokens"]) == (25, 4)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_unreadable_call_asked_again_counts_both_replies_usage(run, strategy):
    """README: call markup outside code that cannot be read is asked again, in both strategies.
    The reply asked again cost tokens too: the run's usage counts both replies and the answer."""
    bad = "<minimax:tool_call>\n<invoke nam='get_weather'>Oslo</invoke>\n</minimax:tool_call>"
    turns = [dict({"text": bad}, usage={"prompt_tokens": 100, "completion_tokens": 10}),
             dict(call_turn(strategy, "get_weather", {"city": "Oslo"}),
                  usage={"prompt_tokens": 200, "completion_tokens": 20}),
             dict(answer_turn(strategy, "Rain."), usage={"prompt_tokens": 300, "completion_tokens": 30})]
    result = run(turns, query="Oslo?", strategy=strategy, tools=[weather_tool()])
    assert_clean(result, run)
    assert result.text == "Rain."
    assert tools_ran(result) == [("get_weather", {"city": "Oslo"})]
    meta = result.execution_metadata
    assert_usage_consistent(meta)
    assert (meta["prompt_tokens"], meta["completion_tokens"]) == (600, 60)


def chunk_blob(file_id: str, parts: list[bytes], filename: str) -> list[dict]:
    """A file sent as ``blob_chunk`` messages (as a tool streams a large file)."""
    return [{"type": "blob_chunk",
             "message": {"id": file_id, "sequence": n, "total_length": sum(map(len, parts)),
                         "blob": base64.b64encode(part).decode(), "end": False},
             "meta": {"filename": filename, "mime_type": "application/octet-stream"}}
            for n, part in enumerate(parts)] + [
        {"type": "blob_chunk", "message": {"id": file_id, "sequence": len(parts), "total_length": sum(map(len, parts)),
                                           "blob": "", "end": True},
         "meta": {"filename": filename, "mime_type": "application/octet-stream"}}]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_parallel_calls_streaming_files_under_one_chunk_id_each_reach_the_chat_whole(run, strategy):
    """Two tools of one round each stream a file in ``blob_chunk`` pieces, both under the id
    ``file`` (ids are the tool's own choice): each file reaches the chat whole, its own bytes,
    in call order."""
    slow = ScriptedTool(name="export_a", description="A", parameters=[ToolParam("w", description="w")], latency=0.2,
                        responses=chunk_blob("file", [b"AAAA", b"aaaa"], "a.bin"))
    fast = ScriptedTool(name="export_b", description="B", parameters=[ToolParam("w", description="w")],
                        responses=chunk_blob("file", [b"BBBB", b"bbbb", b"!!"], "b.bin"))
    if strategy == "ReAct":
        first = {"text": "Thought: both\nAction: export_a\nAction Input: {\"w\": \"1\"}\n"
                         "Action: export_b\nAction Input: {\"w\": \"2\"}"}
    else:
        first = {"tool_calls": [{"id": "a", "name": "export_a", "arguments": {"w": "1"}},
                                {"id": "b", "name": "export_b", "arguments": {"w": "2"}}]}
    result = run([first, answer_turn(strategy, "Exported.")], query="Export", strategy=strategy, tools=[slow, fast])
    assert_clean_run(result)
    assert result.text == "Exported."
    assert [base64.b64decode(f["blob"]) for f in result.files] == [b"AAAAaaaa", b"BBBBbbbb!!"]


def test_arguments_with_unicode_escapes_split_inside_an_escape_reach_the_tool_as_text(run):
    """A provider that escapes non-ASCII (``\\u6771\\u4eac``) and splits the arguments' stream
    inside an escape: the tool gets the city's name, not the escape or a broken character."""
    arguments = '{"city": "\\u6771\\u4eac \\ud83c\\uddef\\ud83c\\uddf5"}'
    pieces = [arguments[i:i + 3] for i in range(0, len(arguments), 3)]
    chunks = [{"tool_calls": [{"index": 0, "id": "c1" if n == 0 else "", "type": "function",
                               "function": {"name": "get_weather" if n == 0 else "", "arguments": piece}}]}
              for n, piece in enumerate(pieces)]
    chunks[-1]["finish_reason"] = "tool_calls"
    result = run([{"chunks": chunks}, {"text": "Sunny."}], query="Tokyo?", tools=[weather_tool()])
    assert_clean(result, run)
    assert tools_ran(result) == [("get_weather", {"city": "東京 🇯🇵"})]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_model_calling_a_tool_when_none_is_declared_is_told_and_then_answers(run, strategy):
    """No tools in the node; the model calls one anyway (a habit of its training): nothing runs,
    the model is told, and its next reply is the answer the user reads."""
    turns = [call_turn(strategy, "web_search", {"q": "news"}), answer_turn(strategy, "I cannot search; here is what I know.")]
    result = run(turns, query="News?", strategy=strategy)
    assert_clean(result, run)
    assert tools_ran(result) == []
    assert result.text == "I cannot search; here is what I know."
    assert "web_search" in prompt_text(result.llm_requests[1])


class ReorderedCallForever(ScriptedBackend):
    """A model that calls ``lookup(city=Oslo, unit=c)`` in every reply, its arguments written with
    the keys in turn in either order and with different spacing, whatever it is told."""

    FORMS = ('{"city": "Oslo", "unit": "c"}', '{"unit":"c","city":"Oslo"}', '{ "city" : "Oslo" , "unit" : "c" }')

    def __init__(self, strategy: str) -> None:
        super().__init__([])
        self.strategy = strategy

    def invoke_llm(self, request):
        n = len(self.requests) + 1
        if n > 12:
            turn = answer_turn(self.strategy, "gave up")
        elif self.strategy == "ReAct":
            turn = {"text": f"Thought: again.\nAction: lookup\nAction Input: {self.FORMS[n % 3]}"}
        else:
            turn = {"tool_calls": [{"id": f"c{n}", "name": "lookup", "arguments": self.FORMS[n % 3]}]}
        self._turns.append(turn)
        return super().invoke_llm(request)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_same_call_written_with_its_keys_reordered_each_time_is_still_caught_as_repeated(plugin, strategy):
    """The loop guard compares what the call asks, not how the JSON was spelled: the same
    arguments in another key order or spacing are the same call, so a model repeating it under a
    limit of 100 is stopped after three runs with words or a clear error."""
    from local_runner import Scenario, run_scenario
    from local_runner.tools import ToolBox

    tool = ScriptedTool(name="lookup", description="Looks up", responses=[text_message("Oslo: 7 C")],
                        parameters=[ToolParam("city", description="c"), ToolParam("unit", description="u")])
    backend = ReorderedCallForever(strategy)
    scenario = Scenario(query="Oslo?", tools=["lookup"], strategy=strategy, maximum_iterations=100)
    result = run_scenario(scenario, backend, ToolBox([tool]), plugin=plugin, timeout=60)
    assert_clean_end(result)
    assert len(tools_ran(result)) == 3
    assert len(backend.requests) <= 6, len(backend.requests)
    assert result.text.strip() and "gave up" not in result.text


class AlternatingCallsForever(ScriptedBackend):
    """A model that calls ``get_weather(Oslo)`` and ``get_time(Oslo)`` in turn, forever."""

    def __init__(self, strategy: str) -> None:
        super().__init__([])
        self.strategy = strategy

    def invoke_llm(self, request):
        n = len(self.requests) + 1
        name = "get_weather" if n % 2 else "get_time"
        turn = (call_turn(self.strategy, name, {"city": "Oslo"}, call_id=f"c{n}") if n <= 16
                else answer_turn(self.strategy, "gave up"))
        self._turns.append(turn)
        return super().invoke_llm(request)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_two_calls_repeated_in_turn_forever_are_each_run_three_times_then_the_model_answers(plugin, strategy):
    from local_runner import Scenario, run_scenario
    from local_runner.tools import ToolBox

    clock = ScriptedTool(name="get_time", description="Time", parameters=[ToolParam("city", description="c")],
                         responses=[text_message("12:00")])
    backend = AlternatingCallsForever(strategy)
    scenario = Scenario(query="Oslo?", tools=["get_weather", "get_time"], strategy=strategy, maximum_iterations=100)
    result = run_scenario(scenario, backend, ToolBox([weather_tool(), clock]), plugin=plugin, timeout=60)
    assert_clean_end(result)
    ran = [name for name, _ in tools_ran(result)]
    assert ran.count("get_weather") == 3 and ran.count("get_time") == 3, ran
    assert len(backend.requests) <= 10, len(backend.requests)
    assert result.text.strip() and "gave up" not in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_question_asked_again_in_a_chat_reaches_the_model_twice_in_order(run, strategy):
    """Memory holds the same question the user asks now (asked again): the model reads the
    earlier turn, its answer, then the question of this turn, none dropped as a duplicate."""
    history = [{"role": "user", "content": "What is 2+2?"}, {"role": "assistant", "content": "It is 4."}]
    result = run([answer_turn(strategy, "Still 4.")], query="What is 2+2?", strategy=strategy, history=history)
    assert_clean(result, run)
    seen = prompt_text(result.llm_requests[0])
    first, again = seen.find("What is 2+2?"), seen.rfind("What is 2+2?")
    assert first != again and first < seen.find("It is 4.") < again


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_usage_on_a_chunk_after_the_finish_chunk_of_a_call_round_counts_once(run, strategy):
    """OpenAI's ``include_usage``: the finish chunk carries no usage; one more chunk with no text
    carries it. Both in the call round and the answer round; each counts once."""
    pricing = PRICING
    if strategy == "ReAct":
        first = [{"content": 'Thought: x\nAction: get_weather\nAction Input: {"city": "Oslo"}', "finish_reason": "stop"},
                 {"content": "", "usage": make_usage(30, 6, pricing, 0.1)}]
        answer = "Final Answer: Wet."
    else:
        first = [{"tool_calls": [{"index": 0, "id": "c1", "type": "function",
                                  "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}],
                  "finish_reason": "tool_calls"},
                 {"content": "", "usage": make_usage(30, 6, pricing, 0.1)}]
        answer = "Wet."
    second = [{"content": answer, "finish_reason": "stop"}, {"content": "", "usage": make_usage(50, 2, pricing, 0.1)}]
    result = run([{"chunks": first, "usage": None}, {"chunks": second, "usage": None}], query="Oslo?",
                 strategy=strategy, tools=[weather_tool()], model={"pricing": pricing.to_dict()})
    assert_clean(result, run)
    assert result.text == "Wet."
    assert tools_ran(result) == [("get_weather", {"city": "Oslo"})]
    meta = result.execution_metadata
    assert_usage_consistent(meta)
    assert (meta["prompt_tokens"], meta["completion_tokens"]) == (80, 8)


LINE = 5 * 1024 * 1024
"""The daemon's longest line (``PLUGIN_RUNTIME_MAX_BUFFER_SIZE``)."""


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_answer_of_megabytes_in_cjk_and_emoji_streams_in_whole_characters_within_the_line_limit(
        run, strategy, longest_line):
    """An answer of 2.2 million characters of three- and four-byte UTF-8 (CJK, emoji with their
    joiners) in a few large chunks: the user reads it exactly, every line fits the daemon."""
    unit = "語👩‍👧文"
    answer = unit * 440_000
    text = ("Final Answer: " if strategy == "ReAct" else "") + answer
    result = run([{"text": text, "split": 700_001}], query="long", strategy=strategy, timeout=120)
    assert_clean(result, run)
    assert result.text == answer
    assert 0 < longest_line[0] <= LINE


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("context", ["Oslo has 700k people.", [{"content": "Oslo has 700k people."}]],
                         ids=["text", "no-metadata"])
def test_knowledge_without_citation_data_grounds_the_answer_and_sends_no_citations(run, strategy, context):
    result = run([answer_turn(strategy, "About 700k.")], query="Oslo size?", strategy=strategy, context=context)
    assert_clean(result, run)
    assert result.text == "About 700k."
    assert "Oslo has 700k people." in prompt_text(result.llm_requests[0])
    assert not any(m["type"] == "retriever_resources" for m in result.messages)


def test_four_runs_at_once_each_run_their_eight_calls_in_parallel(plugin):
    """Independent calls run in parallel (up to 8 at once) in every run, also while other runs
    of the process do the same: four runs of eight calls of 0.6 s each take about 0.6 s each,
    not the 4.8 s of calls one after another, nor the 2.4 s of runs taking turns."""
    durations = {}

    def one(k: int) -> None:
        tool = ScriptedTool(name="slow", description="Slow", parameters=[ToolParam("n", description="n")],
                            latency=0.6, responses=[text_message("ok")])
        runner = ScriptedRun(plugin)
        first = {"tool_calls": [{"id": f"c{i}", "name": "slow", "arguments": {"n": str(i)}} for i in range(8)]}
        result = runner([first, {"text": "done"}], query="q", tools=[tool])
        assert_clean(result, runner)
        assert len(result.tool_requests) == 8
        durations[k] = result.duration

    threads = [threading.Thread(target=one, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(durations) == 4, "a run failed (its assertion is in the thread's output)"
    assert all(duration < 2.0 for duration in durations.values()), durations


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("last", ["\u200b\u200b", '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Rome"}}\n</tool_call>'],
                         ids=["zero-width", "call-markup"])
def test_a_forced_answer_of_invisible_text_or_call_markup_is_never_a_blank_success(run, strategy, last):
    """At the iteration limit the model answers with only zero-width spaces, or with a call
    written as text: the user never gets an empty-looking answer nor raw markup, but words."""
    turns = [call_turn(strategy, "get_weather", {"city": "Oslo"}), {"text": last}, {"text": last}, {"text": last}]
    result = run(turns, query="Oslo?", strategy=strategy, tools=[weather_tool()], maximum_iterations=1)
    assert_clean_end(result)
    assert len(result.tool_requests) == 1
    visible = result.text.replace("\u200b", "").strip()
    assert visible and "<tool_call>" not in result.text


class ClockForever(ScriptedBackend):
    """A model that asks ``now(UTC)`` in every reply (the answer changes each time), forever."""

    def __init__(self, strategy: str) -> None:
        super().__init__([])
        self.strategy = strategy

    def invoke_llm(self, request):
        n = len(self.requests) + 1
        turn = (call_turn(self.strategy, "now", {"tz": "UTC"}, call_id=f"c{n}") if n <= 150
                else answer_turn(self.strategy, "gave up"))
        self._turns.append(turn)
        return super().invoke_llm(request)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_clock_polled_forever_under_a_limit_of_100_runs_100_times_then_the_user_gets_words(plugin, strategy):
    """A call whose result changes may be repeated up to the limit: 100 rounds run, then the
    model is asked for its answer; it calls again, and the user still gets words saying why the
    run stopped, with the usage of all 101 model calls."""
    from local_runner import Scenario, run_scenario
    from local_runner.tools import LocalTool, ToolBox

    ticks = iter(range(1000))
    clock = LocalTool(name="now", description="The time", parameters=[ToolParam("tz", description="zone")],
                      handler=lambda params: [text_message(f"12:{next(ticks):04d}")])
    backend = ClockForever(strategy)
    scenario = Scenario(query="Time?", tools=["now"], strategy=strategy, maximum_iterations=100)
    result = run_scenario(scenario, backend, ToolBox([clock]), plugin=plugin, timeout=120)
    assert_clean_end(result)
    assert len(result.tool_requests) == 100 and len(backend.requests) == 101
    assert "ITERATION LIMIT" in labels(result)
    assert "100" in result.text and "gave up" not in result.text
    assert result.execution_metadata["total_tokens"] == sum(u["total_tokens"] for u in result.llm_usages)


STRUCTURED = {"features": ["structured-output"]}
"""A model declaring structured output: ReAct's Auto step format asks for JSON steps."""


@pytest.mark.parametrize("escaped", [True, False], ids=["escaped", "raw"])
@pytest.mark.parametrize("split", [1, 3, 5, 7])
def test_a_json_step_answer_with_escapes_split_anywhere_streams_in_whole_characters(run, escaped, split):
    """With constrained (JSON) steps the answer streams as its JSON string is decoded. Written
    with ``\\\\uXXXX`` escapes (surrogate pairs for the flag) or raw, and split every 1, 3, 5 or 7
    characters: the user reads the answer exactly and no text message holds half a character."""
    answer = '東京は雨 🇯🇵 👩‍👧 é\u0301 "q" \\\\ end'
    step = json.dumps({"action": "final_answer", "action_input": {"answer": answer}}, ensure_ascii=escaped)
    result = run([{"text": step, "split": split}], query="q", strategy="ReAct", tools=[weather_tool()],
                 model=STRUCTURED)
    assert_clean(result, run)
    assert result.llm_requests[0].get("structured_output_schema"), "the step was asked as JSON"
    assert result.text == answer
    for message in result.messages:
        if message["type"] == "text":
            assert not any(0xD800 <= ord(c) <= 0xDFFF for c in message["message"]["text"])


def test_json_steps_with_a_fake_home_and_proxies_at_a_watched_port_make_no_connection(offline_plugin):
    """Constrained steps build a schema from the tools and decode it: nothing of that is fetched
    (no remote ``$ref``, no schema download), nothing written to the home folder."""
    process, port, home = offline_plugin
    run = ScriptedRun(process)
    tool = ScriptedTool(name="lookup", description="Looks up", responses=[text_message("found")],
                        parameters=[ToolParam("q", description="q")])
    steps = [{"text": json.dumps({"action": "lookup", "action_input": {"q": "x"}})},
             {"text": json.dumps({"action": "final_answer", "action_input": {"answer": "Found."}})}]
    result = run(steps, query="Find x", strategy="ReAct", tools=[tool], model=STRUCTURED)
    assert_clean_run(result)
    assert result.llm_requests[0].get("structured_output_schema"), "the step was asked as JSON"
    assert result.text == "Found."
    assert tools_ran(result) == [("lookup", {"q": "x"})]
    assert port.hits == 0
    assert list(home.iterdir()) == []


@pytest.mark.parametrize("split", [None, 1])
def test_react_labels_after_a_right_to_left_mark_run_the_action_and_give_the_answer(run, split):
    """A model writing Arabic puts a right-to-left mark (U+200F) at the start of its label lines:
    its action runs and its final answer is the answer (found in wave 39: the action was read as
    thought text and the answer was asked for again, then lost)."""
    step = 'Thought: أحتاج الطقس.\n\u200fAction: get_weather\n\u200fAction Input: {"city": "الرياض"}'
    turns = [{"text": step, "split": split}, {"text": "Thought: عرفت.\n\u200fFinal Answer: الجو مشمس.", "split": split}]
    result = run(turns, query="ما الطقس في الرياض؟", strategy="ReAct", tools=[weather_tool("مشمس، 30")])
    assert_clean(result, run)
    assert tools_ran(result) == [("get_weather", {"city": "الرياض"})]
    assert result.text == "الجو مشمس."


@pytest.mark.parametrize("split", [None, 1])
@pytest.mark.parametrize("reply", [
    '\u200fThought: أحتاج الطقس.\n\u200fAction: get_weather\n\u200fAction Input: {"city": "الرياض"}',
    'سأتحقق.\n\u200fAction: {"action": "get_weather", "action_input": {"city": "الرياض"}}',
], ids=["react-step", "langchain-action"])
def test_function_calling_reads_a_step_written_as_text_after_right_to_left_marks(run, reply, split):
    """Function Calling with a model that writes its call as text (a ReAct step, or LangChain's
    ``Action:`` JSON after a sentence), each label line opened by a right-to-left mark: the call
    runs and its markup never reaches the user."""
    result = run([{"text": reply, "split": split}, {"text": "الجو مشمس."}], query="ما الطقس في الرياض؟",
                 tools=[weather_tool("مشمس، 30")])
    assert_clean(result, run)
    assert tools_ran(result) == [("get_weather", {"city": "الرياض"})]
    assert result.text.endswith("الجو مشمس.") and "Action" not in result.text


@pytest.mark.parametrize("split", [None, 1])
def test_react_labels_on_lines_indented_with_ideographic_spaces_run_and_answer(run, split):
    """A model writing Chinese indents its step lines with the ideographic space (U+3000): its
    action runs and its answer is the answer (found in wave 39: the lines were thought text)."""
    step = '\u3000Thought: 需要查天气。\n\u3000Action: get_weather\n\u3000Action Input: {"city": "北京"}'
    turns = [{"text": step, "split": split}, {"text": "\u3000Thought: 好。\n\u3000Final Answer: 北京下雨。", "split": split}]
    result = run(turns, query="北京天气？", strategy="ReAct", tools=[weather_tool("雨, 10 C")])
    assert_clean(result, run)
    assert tools_ran(result) == [("get_weather", {"city": "北京"})]
    assert result.text == "北京下雨。"
