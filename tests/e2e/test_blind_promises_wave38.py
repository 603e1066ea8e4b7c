"""Wave 38 blind pass on the README's promises to Dify users, through the real plugin process.

Cases written from the README, the strategies' YAML and the daemon protocol before reading the
earlier promise tests; those the earlier waves already cover were dropped. Left here: usage summed
exactly (as decimals) over tool rounds, the forced answer, a re-prompted reply and a cut reply's
continuation, with prices in per-thousand and per-million units and a currency other than USD;
parallel calls where one is slow and one fails; one tool called five times in one reply; a tool
result of three images, a file and text; the iteration limit at 1, 2 and 30 with a model that never
stops calling; parallel calls at a limit of 1; a blocking (not streamed) model; tools declaring
``file``/``files`` parameters; memory of several turns in a completion prompt; citations once after
tool rounds.
"""

import base64
import json
import time
from decimal import Decimal

import pytest

from agent_core import prompts
from local_runner import Scenario, ScriptedBackend, ToolBox, run_scenario
from local_runner.tools import LocalTool, ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import (
    STRATEGIES,
    answer_turn,
    assert_clean,
    assert_clean_end,
    call_turn,
    observations,
    prompt_text,
    weather_tool,
)

# --- helpers -----------------------------------------------------------------------------------------

LIMIT_NOTE = prompts.ITERATION_LIMIT_NOTE.split("{rounds}")[1][:60]
"""Words of the note that asks the model for its answer at the iteration limit."""


def usage(prompt: int, completion: int, prompt_price: str, completion_price: str, *, unit: str, currency: str = "RMB",
          latency: float = 0.25) -> dict:
    """A complete ``LLMUsage`` as a model plugin reports it (prices as decimal strings)."""
    total = Decimal(prompt_price) + Decimal(completion_price)
    return {"prompt_tokens": prompt, "prompt_unit_price": "0.002", "prompt_price_unit": unit,
            "prompt_price": prompt_price, "completion_tokens": completion, "completion_unit_price": "0.008",
            "completion_price_unit": unit, "completion_price": completion_price,
            "total_tokens": prompt + completion, "total_price": format(total, "f"), "currency": currency,
            "latency": latency}


def exact(value) -> Decimal:
    """A metadata number read back as Dify does (``Decimal(str(value))``)."""
    return Decimal(str(value))


def labels(result) -> list[str]:
    return [node.label for node in result.logs.values()]


def echo_tool(name: str = "lookup", latency: float = 0.0) -> LocalTool:
    """``name(n)`` answering ``echo:<n>`` after ``latency`` seconds."""

    def handler(params):
        if latency:
            time.sleep(latency)
        return [text_message(f"echo:{params.get('n')}")]

    return LocalTool(name=name, description="Looks up an entry", parameters=[ToolParam("n", description="entry")],
                     handler=handler)


def react_actions(calls: list[tuple[str, dict]]) -> dict:
    """A ReAct reply with one ``Action:``/``Action Input:`` pair per call, in order."""
    steps = "\n".join(f"Action: {name}\nAction Input: {json.dumps(args)}" for name, args in calls)
    return {"text": "Thought: I need all of these.\n" + steps}


def calls_turn(strategy: str, calls: list[tuple[str, dict]], ids: list[str]) -> dict:
    if strategy == "ReAct":
        return react_actions(calls)
    return {"tool_calls": [{"id": i, "name": n, "arguments": a} for i, (n, a) in zip(ids, calls, strict=True)]}


# --- usage -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_usage_over_tool_rounds_and_the_forced_answer_adds_up_exactly_in_its_currency(run, strategy):
    """Three tool rounds up to the limit, then the forced answer: every call's tokens and prices
    count, the prices add up as decimals (0.1 + 0.2 is 0.3, not 0.30000000000000004), whether the
    plugin reported them per thousand or per million tokens, in the currency the model reported."""
    usages = [
        usage(1000, 10, "0.1", "0.2", unit="0.001"),
        usage(2000, 20, "0.2", "0.1", unit="0.000001"),
        usage(3000, 30, "0.0000001", "0.0000002", unit="0.000001"),
        usage(4000, 40, "0.7", "0.0000007", unit="0.001"),
    ]
    turns = [dict(call_turn(strategy, "get_weather", {"city": city}, call_id=f"c{n}"), usage=usages[n])
             for n, city in enumerate(["Oslo", "Rome", "Lima"])]
    turns.append(dict(answer_turn(strategy, "Cold, warm, mild."), usage=usages[3]))
    result = run(turns, query="Weather in three cities?", strategy=strategy, tools=[weather_tool()],
                 maximum_iterations=3)
    assert_clean(result, run)
    assert result.text == "Cold, warm, mild."
    assert "ITERATION LIMIT" in labels(result)
    meta = result.execution_metadata
    assert meta["prompt_tokens"] == 10000 and meta["completion_tokens"] == 100 and meta["total_tokens"] == 10100
    assert exact(meta["prompt_price"]) == Decimal("1.0000001")
    assert exact(meta["completion_price"]) == Decimal("0.3000009")
    assert exact(meta["total_price"]) == Decimal("1.300001")
    assert meta["currency"] == "RMB"
    assert meta["latency"] >= 1.0 - 1e-9


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_cut_answer_and_its_continuation_both_count_in_the_usage(run, strategy):
    """README: a cut answer is continued once; the user sees one whole answer and both calls'
    tokens count."""
    first = "Final Answer: The capital of Norway is" if strategy == "ReAct" else "The capital of Norway is"
    turns = [
        {"text": first, "finish_reason": "length", "usage": usage(100, 50, "0.0001", "0.0004", unit="0.000001")},
        {"text": " Oslo.", "usage": usage(160, 3, "0.00016", "0.000024", unit="0.000001")},
    ]
    result = run(turns, query="Capital of Norway?", strategy=strategy)
    assert_clean(result, run)
    assert result.text == "The capital of Norway is Oslo."
    meta = result.execution_metadata
    assert (meta["prompt_tokens"], meta["completion_tokens"], meta["total_tokens"]) == (260, 53, 313)
    assert exact(meta["total_price"]) == Decimal("0.000684")


def test_a_react_reply_that_is_only_a_thought_is_asked_again_and_both_count(run):
    """README: a ReAct reply that is only a Thought is re-prompted once; the re-prompted call's
    usage is part of the run's."""
    turns = [
        {"text": "Thought: I should think about Oslo.", "usage": usage(80, 8, "0.00008", "0.00006", unit="0.000001")},
        {"text": "Thought: done.\nFinal Answer: Oslo.", "usage": usage(120, 9, "0.00012", "0.00007", unit="0.000001")},
    ]
    result = run(turns, query="Capital of Norway?", strategy="ReAct")
    assert_clean(result, run)
    assert result.text == "Oslo."
    meta = result.execution_metadata
    assert (meta["prompt_tokens"], meta["completion_tokens"]) == (200, 17)
    assert exact(meta["total_price"]) == Decimal("0.00033")


# --- parallel calls ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_slow_a_failing_and_a_fast_call_overlap_and_their_results_come_back_in_call_order(run, strategy):
    slow = ScriptedTool(name="slow_report", description="Slow report", parameters=[ToolParam("q")],
                        responses=[text_message("slow-done")], latency=0.8)
    broken = ScriptedTool(name="broken_db", description="Broken database", parameters=[ToolParam("q")],
                          error="disk full on /var/db")
    fast = ScriptedTool(name="fast_cache", description="Fast cache", parameters=[ToolParam("q")],
                        responses=[text_message("fast-done")])
    calls = [("slow_report", {"q": "a"}), ("broken_db", {"q": "b"}), ("fast_cache", {"q": "c"})]
    turns = [calls_turn(strategy, calls, ["s1", "b1", "f1"]), answer_turn(strategy, "Partly done.")]
    started = time.monotonic()
    result = run(turns, query="Do all three.", strategy=strategy, tools=[slow, broken, fast])
    assert_clean(result, run)
    assert result.text == "Partly done."
    records = run.toolbox.calls
    assert len(records) == 3
    slow_record = next(r for r in records if r.request["tool"] == "slow_report")
    others = [r for r in records if r is not slow_record]
    assert all(r.started < slow_record.finished for r in others), "the calls overlapped"
    assert time.monotonic() - started < 2.5
    seen = observations(result.llm_requests[1])
    assert len(seen) == 3
    assert "slow-done" in seen[0] and "disk full on /var/db" in seen[1] and "fast-done" in seen[2]
    if strategy == "function_calling":
        tool_messages = [m for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "tool"]
        assert [m["tool_call_id"] for m in tool_messages] == ["s1", "b1", "f1"]
    (node,) = [n for n in result.logs.values() if n.label == "CALL broken_db"]
    assert node.status == "error" or node.error, (node.status, node.error)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_one_tool_called_five_times_with_different_arguments_in_one_reply(run, strategy):
    calls = [("lookup", {"n": str(n)}) for n in range(1, 6)]
    turns = [calls_turn(strategy, calls, [f"k{n}" for n in range(1, 6)]), answer_turn(strategy, "Five looked up.")]
    result = run(turns, query="Look up 1 to 5.", strategy=strategy, tools=[echo_tool(latency=0.3)])
    assert_clean(result, run)
    assert sorted(r["tool_parameters"]["n"] for r in result.tool_requests) == ["1", "2", "3", "4", "5"]
    seen = observations(result.llm_requests[1])
    assert [s.strip() for s in seen] == [f"echo:{n}" for n in range(1, 6)]
    records = run.toolbox.calls
    assert max(r.finished for r in records) - min(r.started for r in records) < 1.2, "run in parallel"
    assert labels(result).count("CALL lookup") == 5


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_parallel_calls_at_an_iteration_limit_of_one_all_run(run, strategy):
    """The limit counts rounds, not calls: three calls of the one allowed round all run."""
    calls = [("lookup", {"n": str(n)}) for n in range(3)]
    turns = [calls_turn(strategy, calls, ["p0", "p1", "p2"]), answer_turn(strategy, "All three.")]
    result = run(turns, query="Three lookups.", strategy=strategy, tools=[echo_tool()], maximum_iterations=1)
    assert_clean(result, run)
    assert result.text == "All three."
    assert len(result.tool_requests) == 3
    assert len(observations(result.llm_requests[1])) == 3


# --- tool output -------------------------------------------------------------------------------------------


def image(url: str) -> dict:
    return {"type": "image", "message": {"text": url}, "meta": None}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_three_images_a_file_and_text_of_one_call_reach_the_chat_once_in_order_and_the_model_is_told(run, strategy):
    pdf = b"%PDF-1.4 tiny report"
    responses = [
        text_message("Here are the charts."),
        image("https://cdn.example.com/a.png"),
        image("https://cdn.example.com/b.png"),
        image("https://cdn.example.com/c.png"),
        {"type": "blob", "message": {"blob": base64.b64encode(pdf).decode()},
         "meta": {"filename": "report.pdf", "mime_type": "application/pdf"}},
    ]
    tool = ScriptedTool(name="charts", description="Draws charts", parameters=[], responses=responses)
    turns = [call_turn(strategy, "charts", {}), answer_turn(strategy, "See the charts.")]
    result = run(turns, query="Chart it.", strategy=strategy, tools=[tool])
    assert_clean(result, run)
    assert [(f["type"], f.get("text") or f["meta"].get("filename")) for f in result.files] == [
        ("image", "https://cdn.example.com/a.png"),
        ("image", "https://cdn.example.com/b.png"),
        ("image", "https://cdn.example.com/c.png"),
        ("blob", "report.pdf"),
    ]
    (seen,) = observations(result.llm_requests[1])
    assert seen.startswith("Here are the charts.")
    for name in ("a.png", "b.png", "c.png", "report.pdf"):
        assert seen.count(name) == 1, (name, seen)
    assert base64.b64encode(pdf).decode() not in prompt_text(result.llm_requests[1])
    file_positions = [n for n, m in enumerate(result.messages) if m["type"] in ("image", "blob")]
    answer_position = max(n for n, m in enumerate(result.messages) if m["type"] == "text")
    assert max(file_positions) < answer_position, "the files reach the chat before the answer"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_image_of_the_last_round_before_the_limit_reaches_the_chat(run, strategy):
    tool = ScriptedTool(name="plot", description="Plots", parameters=[ToolParam("q")],
                        responses=[image("https://cdn.example.com/plot.png")])
    turns = [call_turn(strategy, "plot", {"q": "x"}), call_turn(strategy, "plot", {"q": "y"}, call_id="c2"),
             answer_turn(strategy, "Plotted.")]
    result = run(turns, query="Plot.", strategy=strategy, tools=[tool], maximum_iterations=1)
    assert_clean_end(result)
    assert result.text.strip() != ""
    assert [f["text"] for f in result.files] == ["https://cdn.example.com/plot.png"]


# --- the iteration limit -------------------------------------------------------------------------------------


class NeverStops(ScriptedBackend):
    """A model that calls ``lookup`` with a new argument on every request, the forced-answer
    request too; it never writes an answer."""

    def __init__(self, strategy: str) -> None:
        super().__init__([])
        self.strategy = strategy

    def invoke_llm(self, request):
        n = len(self.requests) + 1
        self._turns.append(call_turn(self.strategy, "lookup", {"n": str(n)}, call_id=f"r{n}"))
        return super().invoke_llm(request)


@pytest.mark.parametrize("limit", [1, 2, 30])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_model_that_never_stops_calling_gets_limit_rounds_then_an_answer_or_a_clear_error(plugin, strategy, limit):
    backend = NeverStops(strategy)
    toolbox = ToolBox([echo_tool()])
    scenario = Scenario(query="Keep looking.", tools=["lookup"], strategy=strategy, maximum_iterations=limit)
    result = run_scenario(scenario, backend, toolbox, plugin=plugin, timeout=60)
    assert result.unfinished_logs() == []
    assert len(result.tool_requests) == limit, "exactly the allowed rounds ran"
    assert "ITERATION LIMIT" in labels(result)
    assert LIMIT_NOTE in prompt_text(backend.requests[limit])
    if strategy == "function_calling":
        assert backend.requests[limit]["tools"], "tools stay declared in the forced-answer request"
    assert len(backend.requests) <= limit + 3
    if result.ok:
        assert result.text.strip(), "a run that ends well ends with words"
    else:
        assert result.error_text and len(result.error_text) > 20
    assert result.execution_metadata["total_tokens"] > 0
    assert result.duration < 30


# --- models ------------------------------------------------------------------------------------------------


def test_a_blocking_model_runs_its_calls_and_answers(run):
    """A model without ``stream-tool-call`` is called blocking; its calls run and its answer is shown."""
    turns = [call_turn("function_calling", "lookup", {"n": "7"}), answer_turn("function_calling", "Seven found.")]
    result = run(turns, query="Find 7.", tools=[echo_tool()],
                 model={"features": ["tool-call", "multi-tool-call", "agent-thought"]})
    assert_clean(result, run)
    assert [r["stream"] for r in result.llm_requests] == [False, False]
    assert result.text == "Seven found."
    assert observations(result.llm_requests[1]) == ["echo:7"]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_tools_file_parameters_are_not_asked_of_the_model_and_the_tool_runs(run, strategy):
    """As in Dify's own agent runner, ``file``/``files`` parameters are not offered to the model
    (it cannot produce a file); the tool still runs with the parameters the model gives."""
    tool = ScriptedTool(name="ocr", description="Reads text from a document",
                        parameters=[ToolParam("language", description="language"),
                                    ToolParam("document", type="file", required=False),
                                    ToolParam("pages", type="files", required=False)],
                        responses=[text_message("read: hello")])
    turns = [call_turn(strategy, "ocr", {"language": "en"}), answer_turn(strategy, "It says hello.")]
    result = run(turns, query="Read it.", strategy=strategy, tools=[tool])
    assert_clean(result, run)
    assert result.text == "It says hello."
    first = result.llm_requests[0]
    if strategy == "function_calling":
        (declared,) = first["tools"]
        assert set(declared["parameters"]["properties"]) == {"language"}
    else:
        text = prompt_text(first)
        assert "language" in text and '\\"document\\"' not in text and '\\"pages\\"' not in text
    assert result.tool_requests[0]["tool_parameters"].get("language") == "en"


# --- memory and knowledge ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("strategy", "mode"), [("function_calling", "chat"), ("ReAct", "chat"),
                                                ("ReAct", "completion")])
def test_memory_of_four_turns_reaches_the_model_in_order_in_every_round(run, strategy, mode):
    history = []
    for n in range(1, 5):
        history += [{"role": "user", "content": f"question-{n}"}, {"role": "assistant", "content": f"answer-{n}"}]
    turns = [call_turn(strategy, "lookup", {"n": "1"}), answer_turn(strategy, "Done.")]
    result = run(turns, query="question-5", strategy=strategy, tools=[echo_tool()], history=history,
                 model={"mode": mode})
    assert_clean(result, run)
    for request in result.llm_requests:
        text = prompt_text(request)
        positions = [text.find(f"question-{n}") for n in range(1, 6)] + [text.find(f"answer-{n}") for n in range(1, 5)]
        assert all(p >= 0 for p in positions), text[:500]
        order = [text.find(word) for n in range(1, 5) for word in (f"question-{n}", f"answer-{n}")]
        assert order == sorted(order) and order[-1] < text.find("question-5")


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_citations_come_once_at_the_end_after_tool_rounds(run, strategy):
    context = [{"content": "Oslo has 700,000 people.", "title": "oslo.md",
                "metadata": {"position": 1, "dataset_id": "d1", "dataset_name": "Cities", "document_id": "o",
                             "document_name": "oslo.md", "segment_id": "s1", "score": 0.9}},
               {"content": "Rome has 2.8 million people.", "title": "rome.md",
                "metadata": {"position": 2, "dataset_id": "d1", "dataset_name": "Cities", "document_id": "r",
                             "document_name": "rome.md", "segment_id": "s2", "score": 0.8}}]
    turns = [call_turn(strategy, "lookup", {"n": "1"}), call_turn(strategy, "lookup", {"n": "2"}, call_id="c2"),
             answer_turn(strategy, "Rome is larger [2].")]
    result = run(turns, query="Which is larger?", strategy=strategy, tools=[echo_tool()], context=context)
    assert_clean(result, run)
    for request in result.llm_requests:
        system = request["prompt_messages"][0]["content"]
        assert "700,000" in system and "2.8 million" in system
    cited = [m for m in result.messages if m["type"] == "retriever_resources"]
    assert len(cited) == 1
    assert [r["document_name"] for r in result.retriever_resources] == ["oslo.md", "rome.md"]


# --- more usage, limits and parsing ------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_currency_stays_when_a_free_round_and_an_unreported_forced_answer_follow(run, strategy):
    """A round priced in RMB, a free round reported in USD (a plugin's default currency), then a
    forced answer with no usage at all: the run's price is 0.3 RMB exactly."""
    priced = usage(10, 1, "0.1", "0.2", unit="0.001")
    free = usage(20, 2, "0", "0", unit="0.000001", currency="USD")
    turns = [dict(call_turn(strategy, "lookup", {"n": "1"}), usage=priced),
             dict(call_turn(strategy, "lookup", {"n": "2"}, call_id="c2"), usage=free),
             dict(answer_turn(strategy, "Both found."), usage=None)]
    result = run(turns, query="Find both.", strategy=strategy, tools=[echo_tool()], maximum_iterations=2)
    assert_clean(result, run)
    meta = result.execution_metadata
    assert exact(meta["total_price"]) == Decimal("0.3")
    assert meta["currency"] == "RMB"
    assert meta["total_tokens"] == 33
    assert meta["latency"] > 0


def test_react_requests_always_stream_even_for_a_model_without_streamed_tool_calls(run):
    turns = [call_turn("ReAct", "lookup", {"n": "7"}), answer_turn("ReAct", "Seven.")]
    result = run(turns, query="Find 7.", strategy="ReAct", tools=[echo_tool()],
                 model={"features": ["agent-thought"]})
    assert_clean(result, run)
    assert [r["stream"] for r in result.llm_requests] == [True, True]
    assert result.text == "Seven."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_empty_forced_answer_is_never_a_silent_empty_success(run, strategy):
    turns = [call_turn(strategy, "lookup", {"n": "1"}), {"text": ""}, {"text": ""}, {"text": ""}]
    result = run(turns, query="Find it.", strategy=strategy, tools=[echo_tool()], maximum_iterations=1)
    run.backend.release()
    assert result.unfinished_logs() == []
    if result.ok:
        assert result.text.strip(), "an empty reply at the limit must not end the run with no words"
    else:
        assert result.error_text


def test_react_parallel_actions_with_an_unknown_tool_between_keep_their_order(run):
    calls = [("lookup", {"n": "1"}), ("no_such_tool", {"x": "y"}), ("lookup", {"n": "3"})]
    result = run([react_actions(calls), answer_turn("ReAct", "Two of three.")], query="Go.", strategy="ReAct",
                 tools=[echo_tool()])
    assert_clean(result, run)
    seen = observations(result.llm_requests[1])
    assert len(seen) == 3
    assert "echo:1" in seen[0] and "no_such_tool" in seen[1] and "echo:3" in seen[2]
    assert sorted(r["tool_parameters"]["n"] for r in result.tool_requests) == ["1", "3"]


@pytest.mark.parametrize("mode", ["chat", "completion"])
def test_a_react_answer_that_mentions_action_in_prose_is_shown_whole(run, mode):
    answer = "Rest first. The next Action: drink water, then Thought: about sleep."
    result = run([{"text": f"Thought: simple.\nFinal Answer: {answer}"}], query="Tips?", strategy="ReAct",
                 tools=[echo_tool()], model={"mode": mode})
    assert_clean(result, run)
    assert result.tool_requests == []
    assert result.text == answer


def _log_times(result, label: str) -> list[tuple[float, str]]:
    """``(t, status)`` of each log message the plugin wrote for the node ``label``, in order."""
    found = []
    for entry in result.transcript:
        if entry["dir"] != "from_plugin":
            continue
        text = json.dumps(entry.get("json") or {})
        if f'"label": "{label}"' in text:
            status = "start" if '"status": "start"' in text else "done"
            found.append((entry["t"], status))
    return found


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_fast_failing_calls_log_entry_is_not_held_behind_a_slow_call_before_it(run, strategy):
    """README: a fast call's file waits for the slower calls before it; its log entry does not."""
    slow = ScriptedTool(name="slow_report", description="Slow report", parameters=[ToolParam("q")],
                        responses=[text_message("slow-done")], latency=0.9)
    broken = ScriptedTool(name="broken_db", description="Broken database", parameters=[ToolParam("q")],
                          error="disk full")
    turns = [calls_turn(strategy, [("slow_report", {"q": "a"}), ("broken_db", {"q": "b"})], ["s1", "b1"]),
             answer_turn(strategy, "Partly.")]
    result = run(turns, query="Both.", strategy=strategy, tools=[slow, broken])
    assert_clean(result, run)
    broken_done = [t for t, status in _log_times(result, "CALL broken_db") if status == "done"]
    slow_done = [t for t, status in _log_times(result, "CALL slow_report") if status == "done"]
    assert broken_done and slow_done
    assert min(broken_done) < min(slow_done) - 0.5, (broken_done, slow_done)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_five_identical_calls_in_one_reply_each_get_an_answer(run, strategy):
    """Five calls of one tool with the same arguments in one reply: each call is answered (a
    provider refuses a history with a call left without its result), none is lost."""
    calls = [("lookup", {"n": "9"})] * 5
    turns = [calls_turn(strategy, calls, [f"d{n}" for n in range(5)]), answer_turn(strategy, "Nine.")]
    result = run(turns, query="Nine?", strategy=strategy, tools=[echo_tool()])
    assert_clean(result, run)
    assert result.text == "Nine."
    assert 1 <= len(result.tool_requests) <= 5
    if strategy == "function_calling":
        messages = result.llm_requests[1]["prompt_messages"]
        (assistant,) = [m for m in messages if m["role"] == "assistant"]
        assert [c["id"] for c in assistant["tool_calls"]] == [f"d{n}" for n in range(5)]
        assert [m["tool_call_id"] for m in messages if m["role"] == "tool"] == [f"d{n}" for n in range(5)]
    seen = observations(result.llm_requests[1])
    assert len(seen) == 5 and seen[0].strip() == "echo:9", seen
    assert all(s.strip() == "echo:9" or "lookup" in s for s in seen), "each is the result or says why not run"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_thirty_rounds_of_three_parallel_calls_then_the_forced_answer(plugin, strategy):
    """A limit of 30 with a model that calls three tools every round and answers only when told:
    90 calls run, each round's three results go back, the answer ends the run and the usage
    counts 31 model calls."""
    class ThreeEachRound(ScriptedBackend):
        def __init__(self):
            super().__init__([])

        def invoke_llm(self, request):
            n = len(self.requests) + 1
            if LIMIT_NOTE in prompt_text(request):
                turn = answer_turn(strategy, "Thirty rounds done.")
            else:
                calls = [("lookup", {"n": f"{n}-{k}"}) for k in range(3)]
                turn = calls_turn(strategy, calls, [f"x{n}y{k}" for k in range(3)])
            self._turns.append(dict(turn, usage={"prompt_tokens": 100, "completion_tokens": 10}))
            return super().invoke_llm(request)

    backend = ThreeEachRound()
    scenario = Scenario(query="Go on.", tools=["lookup"], strategy=strategy, maximum_iterations=30)
    result = run_scenario(scenario, backend, ToolBox([echo_tool()]), plugin=plugin, timeout=120)
    assert_clean_end(result)
    assert result.text == "Thirty rounds done."
    assert len(result.tool_requests) == 90
    assert len(backend.requests) == 31
    assert result.execution_metadata["total_tokens"] == 31 * 110
    assert len(observations(backend.requests[30])) == 90


# --- constrained (JSON) steps ------------------------------------------------------------------------------

STRUCTURED = {"features": ["structured-output"]}


def json_step(action: str, action_input) -> dict:
    return {"text": json.dumps({"action": action, "action_input": action_input})}


def test_json_steps_usage_counts_every_step_in_its_currency(run):
    """With constrained steps each step is an ``llm_structured_output`` call; every one's usage
    counts, exactly, in the model's currency."""
    turns = [dict(json_step("lookup", {"n": "1"}), usage=usage(500, 20, "0.1", "0.2", unit="0.001")),
             dict(json_step("lookup", {"n": "2"}), usage=usage(600, 30, "0.2", "0.1", unit="0.001")),
             dict(json_step("final_answer", {"answer": "One and two."}),
                  usage=usage(700, 40, "0.0000001", "0.0000002", unit="0.000001"))]
    result = run(turns, query="Both?", strategy="ReAct", tools=[echo_tool()], model=STRUCTURED)
    assert_clean(result, run)
    assert result.text == "One and two."
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"n": "1"}, {"n": "2"}]
    meta = result.execution_metadata
    assert (meta["prompt_tokens"], meta["completion_tokens"]) == (1800, 90)
    assert exact(meta["total_price"]) == Decimal("0.6000003")
    assert meta["currency"] == "RMB"


@pytest.mark.parametrize("limit", [1, 2])
def test_json_steps_at_the_iteration_limit_end_with_an_answer(run, limit):
    """A model on constrained steps that keeps choosing a tool: after ``limit`` rounds it is asked
    for the answer, and the run ends with words or a clear error, never silently."""
    turns = [json_step("lookup", {"n": str(n)}) for n in range(limit)]
    turns += [json_step("final_answer", {"answer": "Enough looking."})]
    result = run(turns, query="Keep going.", strategy="ReAct", tools=[echo_tool()], model=STRUCTURED,
                 maximum_iterations=limit)
    assert_clean(result, run)
    assert len(result.tool_requests) == limit
    assert "ITERATION LIMIT" in labels(result)
    assert result.text == "Enough looking."


# --- model calls that fail and are made again ---------------------------------------------------------------

ANTHROPIC_CUT = ("Anthropic returned incomplete tool arguments (stop_reason=max_tokens). "
                 "Increase max_tokens and retry.")


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_call_refused_for_its_stop_words_is_made_again_and_its_time_counts(run, strategy):
    """A model plugin that refuses ``stop`` (xAI's grok) is asked again without it; the run answers
    and its latency covers the refused call's time as well as the answer's."""
    turns = [{"delay": 0.4, "error": "Model grok-4.6 does not support parameter stop"},
             dict(answer_turn(strategy, "Hi there."), usage=usage(10, 2, "0.00001", "0.00002", unit="0.000001",
                                                                  currency="USD", latency=0.1))]
    result = run(turns, query="hi", strategy=strategy,
                 model={"model": "grok-4.6", "provider": "langgenius/x/x",
                        "completion_params": {"stop": ["END"], "max_tokens": 512}})
    assert_clean(result, run)
    assert result.text == "Hi there."
    assert not result.llm_requests[1].get("stop")
    meta = result.execution_metadata
    assert meta["total_tokens"] == 12 and exact(meta["total_price"]) == Decimal("0.00003")
    assert meta["latency"] >= 0.4, "the refused call took 0.4 s of the user's time"


def test_a_tool_call_cut_by_the_output_limit_is_asked_again_and_every_call_counts(run):
    turns = [{"text": "Let me look it up. ", "delay": 0.3, "error": ANTHROPIC_CUT},
             dict(call_turn("function_calling", "lookup", {"n": "1"}),
                  usage=usage(100, 10, "0.1", "0.2", unit="0.001", currency="USD")),
             dict(answer_turn("function_calling", "Found it."),
                  usage=usage(200, 20, "0.2", "0.1", unit="0.001", currency="USD"))]
    result = run(turns, query="Look up 1.", tools=[echo_tool()],
                 model={"provider": "langgenius/anthropic/anthropic", "model": "claude-sonnet-4-5"})
    assert_clean(result, run)
    assert result.text.endswith("Found it.")
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"n": "1"}]
    meta = result.execution_metadata
    assert meta["total_tokens"] == 330 and exact(meta["total_price"]) == Decimal("0.6")
    assert meta["latency"] >= 0.3


# --- a round with no tool call and the iteration limit -------------------------------------------------------


@pytest.mark.xfail(strict=True, reason=(
    "Every model round counts toward maximum_iterations (RunState.round_index in loop._note_limits), "
    "also one whose reply was empty or unreadable and ran no tool: with a limit of 1 the reply asked "
    "again is already the forced answer, so the tool is never run and the run ends with the "
    "'stopped after 1 round' notice. Counting only rounds of tool calls changes what the fuzz "
    "invariants (at most maximum_iterations rounds) and the wave 32 cut-at-the-limit cases decided; "
    "left for the lead."))
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_empty_first_reply_does_not_use_up_the_only_round_of_tool_calls(run, strategy):
    """README: ``maximum_iterations`` is the rounds of tool calls before the model must answer. A
    first reply that came back empty is asked again; the one round of tool calls is still the
    model's to use."""
    turns = [{"text": ""}, call_turn(strategy, "lookup", {"n": "1"}), answer_turn(strategy, "It is 1.")]
    result = run(turns, query="Look up 1.", strategy=strategy, tools=[echo_tool()], maximum_iterations=1)
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"n": "1"}]
    assert result.text == "It is 1."


DOCUMENT = {"dify_model_identity": "__dify__file__", "url": "https://example.com/f/doc.pdf?sign=s1",
            "mime_type": "application/pdf", "filename": "doc.pdf", "extension": ".pdf", "size": 10,
            "type": "document", "remote_url": "", "transfer_method": "local_file", "related_id": "abc"}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_file_parameters_the_user_set_in_the_node_reach_the_tool_as_files(run, strategy):
    """``file``/``files`` parameters set in the node's form reach the tool as the file dicts Dify
    sent, beside the model's arguments; the model is neither asked for them nor shown their
    signed addresses."""
    tool = ScriptedTool(name="ocr", description="Reads text from a document",
                        parameters=[ToolParam("language", description="language"),
                                    ToolParam("document", type="file", form="form"),
                                    ToolParam("pages", type="files", form="form")],
                        responses=[text_message("read: hello")],
                        runtime_parameters={"document": DOCUMENT, "pages": [DOCUMENT, DOCUMENT]})
    turns = [call_turn(strategy, "ocr", {"language": "en"}), answer_turn(strategy, "It says hello.")]
    result = run(turns, query="Read it.", strategy=strategy, tools=[tool])
    assert_clean(result, run)
    (sent,) = result.tool_requests
    assert sent["tool_parameters"] == {"language": "en", "document": DOCUMENT, "pages": [DOCUMENT, DOCUMENT]}
    assert all("sign=s1" not in prompt_text(request) for request in result.llm_requests)


# --- query files and the model's vision ----------------------------------------------------------------------

PHOTO = {"dify_model_identity": "__dify__file__", "url": "https://example.com/uploads/cat.png?sign=s2",
         "mime_type": "image/png", "filename": "cat.png", "extension": ".png", "size": 2048, "type": "image"}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_image_for_a_model_without_vision_is_told_as_text_and_the_log_says_why(run, strategy):
    """README: ``IMAGE AS TEXT`` names a query's file the model is only told of, and why. A model
    that does not declare vision reads a mention of the image, never its address, and the log
    says so once (not in later rounds); a vision model sees the image and gets no such note."""
    turns = [call_turn(strategy, "lookup", {"n": "1"}), answer_turn(strategy, "I cannot see it.")]
    result = run(turns, query="What is in the picture?", strategy=strategy, tools=[echo_tool()], files=[PHOTO])
    assert_clean(result, run)
    for request in result.llm_requests:
        assert "[Attached image: cat.png (image/png)]" in prompt_text(request)
        assert "sign=s2" not in prompt_text(request)
    (note,) = [n for n in result.logs.values() if n.label == "IMAGE AS TEXT"]
    assert "cat.png" in note.data["output"] and "vision" in note.data["output"]
    assert note.parent_id == next(n.id for n in result.root_logs() if n.label == "ROUND 1")

    seeing = {"features": ["tool-call", "multi-tool-call", "agent-thought", "stream-tool-call", "vision"]}
    result = run([answer_turn(strategy, "A cat.")], query="What is in the picture?", strategy=strategy,
                 files=[PHOTO], model=seeing)
    assert_clean(result, run)
    assert "IMAGE AS TEXT" not in labels(result)
    assert '"image"' in prompt_text(result.llm_requests[0])
