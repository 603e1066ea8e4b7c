"""Red-team wave 32, the promises users hold an agent strategy to, through the real plugin process.

Variants the earlier suites did not try: usage reports a model plugin sends in shapes that broke
the run's total (a blank report beside running totals, a report without its totals), and a tool
that yields the same file more than once (it reaches the chat once, the model is told once).
"""

from __future__ import annotations

import base64
import json

import pytest

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end, observations, weather_tool


def answer_text(strategy: str, text: str) -> str:
    return f"Thought: done.\nFinal Answer: {text}" if strategy == "ReAct" else text


def rounds(result) -> list:
    return [n for n in result.root_logs() if n.label.startswith("ROUND")]


# --- usage ---------------------------------------------------------------------------------------

BLANK = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0, "prompt_price": "0",
         "completion_price": "0", "total_price": "0", "currency": "USD"}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("where", ["first", "middle"])
def test_a_blank_usage_report_beside_running_totals_does_not_count_the_prompt_twice(run, strategy, where):
    """A plugin that puts an empty usage on some chunks and a running total on the others (no
    ``total_tokens`` in them): the call used 100 + 10 tokens, not 200 + 15, and its total is not 0."""
    running = [{"prompt_tokens": 100, "completion_tokens": 5, "prompt_price": "0.0002", "completion_price": "0.00004"},
               {"prompt_tokens": 100, "completion_tokens": 10, "prompt_price": "0.0002", "completion_price": "0.00008"}]
    reports = [BLANK, *running] if where == "first" else [running[0], BLANK, running[1]]
    text = answer_text(strategy, "Fourteen hours.")
    pieces = [text[:6], text[6:12], text[12:]]
    chunks = [{"content": piece, "usage": report} for piece, report in zip(pieces, reports, strict=True)]
    chunks[-1]["finish_reason"] = "stop"
    result = run([{"chunks": chunks}], query="Battery?", strategy=strategy)
    assert_clean_end(result)
    metadata = result.execution_metadata
    assert (metadata["prompt_tokens"], metadata["completion_tokens"], metadata["total_tokens"]) == (100, 10, 110)
    assert metadata["total_price"] == pytest.approx(0.00028)
    (round_,) = rounds(result)
    assert round_.metadata["total_tokens"] == 110 and round_.metadata["total_price"] == pytest.approx(0.00028)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_usage_without_totals_adds_up_over_rounds_and_the_log_tree_matches(run, strategy):
    """Each call reports prompt and completion tokens and prices, no totals: the run's total is
    their sum, and the rounds' totals in the log add up to it."""
    reports = [{"prompt_tokens": 40, "completion_tokens": 4, "prompt_price": "0.00004", "completion_price": "0.000016"},
               {"prompt_tokens": 60, "completion_tokens": 6, "prompt_price": "0.00006", "completion_price": "0.000024"}]
    if strategy == "ReAct":
        action = json.dumps({"action": "get_weather", "action_input": {"city": "Paris"}})
        call = {"content": f"Thought: look.\nAction:\n```json\n{action}\n```", "finish_reason": "stop"}
    else:
        call = {"tool_calls": [{"id": "c1", "type": "function",
                                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}],
                "finish_reason": "tool_calls"}
    turns = [
        {"chunks": [{**call, "usage": reports[0]}]},
        {"chunks": [{"content": answer_text(strategy, "Sunny."), "usage": reports[1], "finish_reason": "stop"}]},
    ]
    result = run(turns, query="Weather?", strategy=strategy, tools=[weather_tool()])
    assert_clean_end(result)
    assert result.text == "Sunny." and len(result.tool_requests) == 1
    metadata = result.execution_metadata
    assert (metadata["prompt_tokens"], metadata["completion_tokens"], metadata["total_tokens"]) == (100, 10, 110)
    assert metadata["total_price"] == pytest.approx(0.00014)
    assert [n.metadata["total_tokens"] for n in rounds(result)] == [44, 66]
    assert sum(n.metadata["total_price"] for n in rounds(result)) == pytest.approx(metadata["total_price"])


# --- files ----------------------------------------------------------------------------------------


def image(url: str) -> dict:
    return {"type": "image", "message": {"text": url}, "meta": None}


def tool_file_link(file_id: str) -> dict:
    return {"type": "link", "message": {"text": f"/files/tools/{file_id}.docx"},
            "meta": {"tool_file_id": file_id, "mime_type": "application/octet-stream"}}


def blob(data: bytes, name: str) -> dict:
    return {"type": "blob", "message": {"blob": base64.b64encode(data).decode()},
            "meta": {"filename": name, "mime_type": "text/csv"}}


def call_turn(strategy: str, tool: str = "report") -> dict:
    if strategy == "ReAct":
        action = json.dumps({"action": tool, "action_input": {"city": "Paris"}})
        return {"text": f"Thought: look.\nAction:\n```json\n{action}\n```"}
    return {"tool_calls": [{"id": "c1", "name": tool, "arguments": {"city": "Paris"}}]}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("fails", [False, True], ids=["ok", "fails-after"])
def test_a_file_the_tool_yields_twice_reaches_the_chat_once_and_the_model_reads_of_it_once(run, strategy, fails):
    """A tool that yields its image, its CSV and its tool-file link twice (a plugin that sends the
    file and then its final result again), also one that fails after: each file reaches the chat
    once, in the order it first came, and the model is told of each once."""
    data = b"day,temp\nmon,21\n"
    responses = [image("https://e.com/chart.png"), blob(data, "temps.csv"), tool_file_link("f1"),
                 text_message("3 files made"),
                 image("https://e.com/chart.png"), blob(data, "temps.csv"), tool_file_link("f1")]
    tool = ScriptedTool(name="report", parameters=[ToolParam("city")], responses=responses,
                        error="quota exceeded" if fails else None)
    result = run([call_turn(strategy), answer_turn(strategy, "Done.")], query="Report.", tools=[tool], strategy=strategy)
    assert_clean_end(result)
    assert result.text == "Done."
    assert [(f["type"], f.get("text"), (f.get("meta") or {}).get("filename")) for f in result.files] == [
        ("image", "https://e.com/chart.png", None),
        ("blob", None, "temps.csv"),
        ("link", "/files/tools/f1.docx", None),
    ]
    (seen,) = observations(result.llm_requests[1])
    assert seen.count("chart.png") == 1 and seen.count("temps.csv") == 1 and seen.count("f1.docx") == 1
    assert "3 files made" in seen
    assert ("quota exceeded" in seen) is fails


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_files_of_calls_run_at_once_reach_the_chat_in_call_order_and_logs_are_not_held(run, strategy):
    """Four calls of one round, each making a chart, the first the slowest: they run at once
    (about 1.2 s, not 2.1 s), the charts reach the chat in call order (the order the model reads
    the results in and writes its answer by; it was the order the calls finished in), and the
    fast calls' CALL nodes finish before the slow one does."""
    latencies = {"A": 1.2, "B": 0.1, "C": 0.6, "D": 0.2}
    tools = [ScriptedTool(name=f"chart_{name}", parameters=[ToolParam("city")], latency=latency,
                          responses=[image(f"https://e.com/{name}.png"), text_message(f"chart {name} made")])
             for name, latency in latencies.items()]
    if strategy == "ReAct":
        actions = "\n".join(
            "Action:\n```json\n" + json.dumps({"action": f"chart_{name}", "action_input": {"city": "Paris"}}) + "\n```"
            for name in latencies
        )
        first = {"text": f"Thought: all four at once.\n{actions}"}
    else:
        first = {"tool_calls": [{"id": f"c{name}", "name": f"chart_{name}", "arguments": {"city": "Paris"}}
                                for name in latencies]}
    result = run([first, answer_turn(strategy, "Four charts.")], query="Charts.", tools=tools, strategy=strategy)
    assert_clean_end(result)
    assert [f["text"] for f in result.files] == [f"https://e.com/{name}.png" for name in latencies]
    seen = "\n".join(observations(result.llm_requests[1]))
    assert [seen.index(f"chart {name} made") for name in latencies] == sorted(seen.index(f"chart {name} made") for name in latencies)
    finished = [h["label"] for h in result.log_history if h.get("label", "").startswith("CALL") and h.get("status") != "start"]
    assert finished == ["CALL chart_B", "CALL chart_D", "CALL chart_C", "CALL chart_A"]
    (round_,) = [n for n in rounds(result) if n.label == "ROUND 1"]
    assert round_.elapsed < 1.9, round_.elapsed
