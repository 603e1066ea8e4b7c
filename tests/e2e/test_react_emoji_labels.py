"""ReAct labels written after an emoji (``💭 Thought:``, ``🔧 Action:``, ``✅ Final Answer:``: a model
copying a prompt that shows them so, juejin7623093 in docs/real-world-cases.md) through the real
plugin: the action runs, the user reads the answer alone, and an emoji inside prose leaves the
reply as the answer it is."""

import pytest

from tests.e2e.helpers import assert_clean_end, weather_tool


@pytest.mark.parametrize("split", [1, 7])
def test_an_emoji_labelled_action_runs_and_its_answer_shows_alone(run, split):
    step = '💭 Thought: I need the weather.\n🔧 Action: get_weather\n📥 Action Input: {"city": "Paris"}'
    answer = "💭 Thought: I know it now.\n✅ Final Answer: Sunny in Paris, 21 C."
    result = run([{"text": step, "split": split}, {"text": answer, "split": split}],
                 query="Weather in Paris?", tools=[weather_tool()], strategy="ReAct")
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    assert result.text == "Sunny in Paris, 21 C."


def test_the_juejin_trace_runs_its_call_and_shows_its_answer_alone(run):
    # the post's two steps: a call written as code after 🔧, then ✅ Answer:
    step = '💭 Thought: 用户需要根据天气做决策。我需要先获取天气信息。\n🔧 Action: get_weather("北京")'
    answer = "💭 Thought: 我找到了答案。\n✅ Answer: 北京今天天气晴朗,温度22℃。"
    result = run([{"text": step, "split": 3}, {"text": answer, "split": 3}],
                 query="北京天气?", tools=[weather_tool("晴朗, 22℃")], strategy="ReAct")
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "北京"}]
    assert result.text == "北京今天天气晴朗,温度22℃。"


def test_keycap_and_zwj_labels_run_the_action(run):
    step = '1️⃣ Thought: look it up.\n👨‍💻 Action: get_weather\n3️⃣ Action Input: {"city": "Oslo"}'
    answer = "2️⃣ Thought: done.\n✔️ Final Answer: Cold in Oslo."
    result = run([{"text": step, "split": 2}, {"text": answer, "split": 2}],
                 query="Weather in Oslo?", tools=[weather_tool("Cold, -3 C")], strategy="ReAct")
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Oslo"}]
    assert result.text == "Cold in Oslo."


def test_function_calling_shows_an_emoji_labelled_final_step_s_answer_alone(run):
    reply = "💭 Thought: no tool is needed.\n✅ Final Answer: Paris is the capital of France."
    result = run([{"text": reply, "split": 5}], query="Capital of France?", tools=[weather_tool()],
                 strategy="function_calling")
    assert_clean_end(result)
    assert result.tool_requests == []
    assert result.text == "Paris is the capital of France."


@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
def test_an_emoji_inside_prose_leaves_the_reply_as_its_answer(run, strategy):
    reply = "Great 👍 Action: get_weather is not needed, it is sunny.\n🎉 Enjoy!"
    result = run([{"text": reply, "split": 1}], query="Is it sunny?", tools=[weather_tool()], strategy=strategy)
    assert_clean_end(result)
    assert result.tool_requests == []
    assert result.text == reply
