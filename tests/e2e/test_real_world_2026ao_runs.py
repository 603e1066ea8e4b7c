"""The fortieth real-world pass (small local models, prompt-based tool calling) through the real
plugin. A chatty Llama's two call objects with sentences around them (vercel/ai#3521) run both
tools in both strategies (Function Calling ran only the last one and lost the first); Llama 3.x's
call objects joined by semicolons (abetlen/llama-cpp-python#1856) run each; Granite 3's
``<function_call>`` (ollama/ollama#7544) runs its call while its ``bash`` fence stays the answer;
and Hermes 2 Pro's call whose closing tag a stop word ate (mudler/LocalAI#2223) runs."""

import pytest

from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end, named_tool

CHATTY = (
    'Sure! Let me do that for you?\n\n{"name": "get_weather", "parameters": {"city": "Paris"}}\n\n'
    "and I'll check this too\n\n"
    '{"name": "get_time", "parameters": {"city": "Paris"}}'
)


def _ran(result) -> list[tuple[str, dict]]:
    return [(r["tool"], r["tool_parameters"]) for r in result.tool_requests]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_chatty_llama_runs_both_calls_between_its_sentences(run, strategy):
    tools = [named_tool("get_weather", "city", outputs=("Sunny, 21 C",)),
             named_tool("get_time", "city", outputs=("14:05",))]
    result = run([{"text": CHATTY, "split": 7}, answer_turn(strategy, "Paris: sunny, 21 C, and it is 14:05.")],
                 query="Weather and time in Paris?", tools=tools, strategy=strategy)
    assert_clean_end(result)
    assert sorted(_ran(result)) == [("get_time", {"city": "Paris"}), ("get_weather", {"city": "Paris"})]
    assert result.text.strip().endswith("it is 14:05.")
    assert '"parameters"' not in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_call_objects_joined_by_semicolons_each_run(run, strategy):
    text = ('{"name": "get_current_weather", "parameters": {"location": "San Francisco, CA", "unit": "fahrenheit"}}; '
            '{"name": "get_current_weather", "parameters": {"location": "Tokyo, JP", "unit": "celsius"}}')
    tool = named_tool("get_current_weather", "location", "unit", outputs=("64 F", "18 C"))
    result = run([{"text": text, "split": 5}, answer_turn(strategy, "64 F in San Francisco, 18 C in Tokyo.")],
                 query="Weather in San Francisco and Tokyo?", tools=[tool], strategy=strategy)
    assert_clean_end(result)
    assert _ran(result) == [
        ("get_current_weather", {"location": "San Francisco, CA", "unit": "fahrenheit"}),
        ("get_current_weather", {"location": "Tokyo, JP", "unit": "celsius"}),
    ]
    assert result.text.strip() == "64 F in San Francisco, 18 C in Tokyo."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_granite_function_call_tag_runs_and_its_bash_fence_is_the_answer(run, strategy):
    bash = named_tool("bash", "command", outputs=("README.md\nsrc",))
    called = run([{"text": '<function_call> {"name": "bash", "arguments": {"command": "ls"}}', "split": 7},
                  answer_turn(strategy, "The folder holds README.md and src.")],
                 query="List the files here.", tools=[bash], strategy=strategy)
    assert_clean_end(called)
    assert _ran(called) == [("bash", {"command": "ls"})]
    assert "function_call" not in called.text
    fenced = run([{"text": "```bash\nls\n```", "split": 3}], query="List the files here.",
                 tools=[named_tool("bash", "command")], strategy=strategy)
    assert_clean_end(fenced)
    assert fenced.tool_requests == []
    assert fenced.text.strip() == "```bash\nls\n```"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_hermes_call_left_open_by_a_stop_word_runs(run, strategy):
    weather = named_tool("get_weather", "location", outputs=("Rome: 24 C",))
    result = run([{"text": '<tool_call>\n{"arguments": {"location": "Rome"}, "name": "get_weather"}', "split": 7},
                  answer_turn(strategy, "It is 24 C in Rome.")],
                 query="Weather in Rome?", tools=[weather], strategy=strategy)
    assert_clean_end(result)
    assert _ran(result) == [("get_weather", {"location": "Rome"})]
    assert result.text.strip() == "It is 24 C in Rome."
