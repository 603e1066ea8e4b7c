"""The twenty-second real-world pass's fixes through the real plugin (users' reports): Qwen3.5/3.6's
fused ``{"function=NAME","arguments":{...}}`` call runs (tetherto/qvac PR #2677); a DSML call cut
inside its value runs nothing and the model is asked again (JustVugg/colibri PR #948); a native
call whose arguments end with the envelope's ``</tool_call>`` runs (anomalyco/opencode#17750); a
native tool name with a Harmony control token glued after it runs under the tool's name (vLLM PR
#35906)."""

import json

import pytest

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import answer_turn, assert_clean_end, named_tool
from tests.e2e.real_world import Reply, Tool, play_reply, reply_params

CASES = [
    # tetherto/qvac PR #2677: Qwen's fused function= call runs
    Reply("qwens-fused-function-equals-call-runs",
          ('<tool_call>\n{"function=webfetch","arguments":{"url":"https://docs.opencode.ai","format":"markdown"}}\n'
           "</tool_call>"), 7,
          "Read the docs page.", "Fetched.", tools=(Tool("webfetch", ("url", "format")),),
          calls=(("webfetch", {"url": "https://docs.opencode.ai", "format": "markdown"}),), hidden=("function=",)),
]


@pytest.mark.parametrize(("case", "strategy"), reply_params(CASES))
def test_real_world_reply_through_the_plugin(run, case, strategy):
    play_reply(run, strategy, case)


@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
def test_a_dsml_call_cut_inside_its_value_runs_nothing(run, strategy):
    cut = '<｜DSML｜tool_calls>\n<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name="city" string="true">Par'
    whole = ('<｜DSML｜tool_calls>\n<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name="city" string="true">'
             "Paris</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>")
    # city optional: a call without it would run (before, the cut call ran with no arguments)
    weather = ScriptedTool(name="get_weather", description="get_weather tool",
                           parameters=[ToolParam("city", description="city", required=False)],
                           responses=[text_message("done")])
    result = run([{"text": cut, "split": 7}, {"text": whole, "split": 7}, answer_turn(strategy, "Sunny in Paris.")],
                 query="Weather in Paris?", tools=[weather], strategy=strategy)
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    assert result.text.strip().endswith("Sunny in Paris.")
    assert "DSML" not in result.text


def test_native_arguments_ending_with_the_envelopes_closing_tag_run(run):
    arguments = '{"questions": ["Which framework?"], "multiple": true}}\n</tool_call>'
    result = run([{"tool_calls": [{"id": "call_1", "name": "question", "arguments": arguments}]},
                  answer_turn("function_calling", "Asked.")],
                 query="Ask me which framework.", tools=[named_tool("question", "questions", "multiple")],
                 strategy="function_calling")
    assert_clean_end(result)
    [request] = result.tool_requests
    assert json.loads(request["tool_parameters"]["questions"]) == ["Which framework?"]  # a string parameter
    assert request["tool_parameters"]["multiple"] is True
    assert result.text.strip() == "Asked."


def test_a_native_name_with_a_harmony_token_glued_runs_under_the_tools_name(run):
    result = run([{"tool_calls": [{"id": "call_1", "name": "manage_cart<|channel|>commentary",
                                   "arguments": '{"action": "add"}'}]},
                  answer_turn("function_calling", "Added.")],
                 query="Add it to the cart.", tools=[named_tool("manage_cart", "action")], strategy="function_calling")
    assert_clean_end(result)
    assert [(r["tool"], r["tool_parameters"]) for r in result.tool_requests] == [("manage_cart", {"action": "add"})]
    assert result.text.strip() == "Added."
