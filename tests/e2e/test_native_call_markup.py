"""Through the real plugin process: a model served without its tool parser writes its family's
own call markup in the content (DeepSeek tokens, Kimi sections, GLM arg keys, Qwen3-Coder XML
without its opener, gpt-oss Harmony). The call runs, the user never sees the markup, and the
model reads the result on the next round."""

import pytest

from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean, observations, weather_tool

MARKUP = {
    "deepseek": '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"city": "Oslo"}\n```'
    "<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    "kimi": '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Oslo"}'
    "<|tool_call_end|><|tool_calls_section_end|>",
    "glm": "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n</tool_call>",
    "qwen3-coder": "<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function>\n</tool_call>",
    "harmony": "<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant<|channel|>commentary "
    'to=functions.get_weather <|constrain|>json<|message|>{"city": "Oslo"}<|call|>',
    "minimax": '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Oslo</parameter>\n</invoke>\n'
    "</minimax:tool_call>",
    "mistral": '[TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}',
    "internlm": '<|action_start|><|plugin|>\n{"name": "get_weather", "parameters": {"city": "Oslo"}}<|action_end|>',
    # Functionary v3.2: a call part right after the text part, nothing between them
    # (meetkai-functionary-medium-v3.2.jinja; llama.cpp's functionary_v3_2 format)
    "functionary": '>>>get_weather\n{"city": "Oslo"}',
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("family", sorted(MARKUP))
def test_a_call_in_the_familys_own_markup_runs_and_never_reaches_the_user(run, strategy, family):
    prose = "I'll check the weather.\n\n" if strategy == "function_calling" else "Thought: I need the weather.\n"
    turns = [{"text": prose + MARKUP[family], "split": 7}, answer_turn(strategy, "It is sunny in Oslo.")]
    result = run(turns, query="Weather in Oslo?", tools=[weather_tool()], strategy=strategy)
    assert_clean(result, run)
    assert [request["tool_parameters"] for request in result.tool_requests] == [{"city": "Oslo"}]
    assert observations(result.llm_requests[1]) == ["Sunny, 21 C"]
    assert result.text.endswith("It is sunny in Oslo.")
    for marker in ("<", "[TOOL_CALLS]", "get_weather", 'Oslo"', "Need the weather"):
        assert marker not in result.text, result.text


def test_function_calling_streams_the_prose_before_a_call_and_holds_the_call(run):
    text = 'Let me look.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>'
    turns = [{"text": text, "split": 3}, answer_turn("function_calling", "Sunny.")]
    result = run(turns, query="Weather in Oslo?", tools=[weather_tool()])
    assert_clean(result, run)
    assert result.text.startswith("Let me look.") and result.text.endswith("Sunny.")
    assert "tool_call" not in result.text and "Oslo" not in result.text
    assert [request["tool_parameters"] for request in result.tool_requests] == [{"city": "Oslo"}]


def test_function_calling_retries_markup_it_cannot_read_instead_of_showing_it(run):
    unreadable = "Checking.\n<minimax:tool_call>\n<invoke nam='get_weather'>Oslo</invoke>\n</minimax:tool_call>"
    turns = [{"text": unreadable}, answer_turn("function_calling", "Sunny.")]
    result = run(turns, query="Weather in Oslo?", tools=[weather_tool()])
    assert_clean(result, run)
    assert "minimax" not in result.text
    assert result.text.endswith("Sunny.")
    assert len(result.llm_requests) == 2


def test_an_answer_that_shows_call_markup_naming_no_tool_is_the_answer(run):
    """A user asking how models format tool calls gets the answer, markup and all."""
    text = 'Hermes models write calls like this:\n<tool_call>\n{"name": "search", "arguments": {}}\n</tool_call>'
    result = run([{"text": text, "split": 5}], query="How do Hermes models write tool calls?", tools=[weather_tool()])
    assert_clean(result, run)
    assert result.text == text
    assert len(result.llm_requests) == 1


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_tools_name_above_its_json_arguments_is_a_call(run, strategy):
    """zai-org/GLM-4#36, ml-explore/mlx-swift-lm#491: GLM-4 without a tool parser writes the
    tool's name on a line and its arguments below."""
    turns = [{"text": 'get_weather\n{"city": "Oslo"}', "split": 4}, answer_turn(strategy, "Sunny.")]
    result = run(turns, query="Weather in Oslo?", tools=[weather_tool()], strategy=strategy)
    assert_clean(result, run)
    assert [request["tool_parameters"] for request in result.tool_requests] == [{"city": "Oslo"}]
    assert result.text == "Sunny."


def test_a_reply_whose_first_word_is_a_tool_name_is_still_an_answer(run):
    turns = [{"text": "get_weather is the tool I would use, but I know it: sunny.", "split": 3}]
    result = run(turns, query="Weather in Oslo?", tools=[weather_tool()])
    assert_clean(result, run)
    assert result.text == "get_weather is the tool I would use, but I know it: sunny."
    assert result.tool_requests == []


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize(
    "text",
    ['[get_weather(city="Oslo")]', '<|python_start|>[get_weather(city="Oslo")]<|python_end|>'],
)
def test_a_pythonic_list_of_calls_is_a_call(run, strategy, text):
    """Llama 3.2 (1B/3B) and Llama 4's pythonic form (meta-llama/llama-models llama3_2
    text_prompt_format.md; vllm-project/vllm#9991), written in ReAct's place too."""
    turns = [{"text": text, "split": 4}, answer_turn(strategy, "Sunny.")]
    result = run(turns, query="Weather in Oslo?", tools=[weather_tool()], strategy=strategy)
    assert_clean(result, run)
    assert [request["tool_parameters"] for request in result.tool_requests] == [{"city": "Oslo"}]
    assert result.text == "Sunny."


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize(
    "text",
    [
        # ollama/ollama#8955 (granite-3.2 thinking preview)
        "Here is my thought process:\n\nThe user asks for Oslo. Easy.\n\nHere is my response:\n\n{answer}",
        "◁think▷The user asks for Oslo.◁/think▷{answer}",  # Kimi-VL-Thinking
        "<think>The user asks for Oslo.</think><response>{answer}</response>",  # Granite 3.3
    ],
)
def test_a_familys_own_reasoning_form_never_reaches_the_user(run, strategy, text):
    answer = "Final Answer: It is sunny in Oslo." if strategy == "ReAct" else "It is sunny in Oslo."
    turns = [{"text": text.format(answer=answer), "split": 5}]
    result = run(turns, query="Weather in Oslo?", tools=[weather_tool()], strategy=strategy)
    assert_clean(result, run)
    assert result.text == "It is sunny in Oslo."


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize(
    "text",
    [
        '>>>all\nLet me look.>>>get_weather\n{"city": "Oslo"}>>>get_weather\n{"city": "Bergen"}',
        # the generation prompt ends with ">>>": the first part comes without it
        'get_weather\n{"city": "Oslo"}>>>get_weather\n{"city": "Bergen"}',
    ],
)
def test_functionarys_call_parts_each_run(run, strategy, text):
    """Functionary v3.2 writes ``>>>all\ntext>>>fn1\n{...}>>>fn2\n{...}`` (its chat template,
    meetkai-functionary-medium-v3.2.jinja; llama.cpp's functionary_v3_2 parser)."""
    turns = [{"text": text, "split": 5}, answer_turn(strategy, "Sunny in both.")]
    result = run(turns, query="Weather in Oslo and Bergen?", tools=[weather_tool()], strategy=strategy)
    assert_clean(result, run)
    assert [request["tool_parameters"] for request in result.tool_requests] == [{"city": "Oslo"}, {"city": "Bergen"}]
    assert result.text.endswith("Sunny in both.")
    assert ">>>" not in result.text and "get_weather" not in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_functionary_call_part_the_turn_end_follows_runs_and_the_invented_turn_is_dropped(run, strategy):
    """A server that passes Functionary's ``<|eot_id|>`` on (its template ends the turn so): the
    call part before it runs, and the turn the model invented after it reaches no one."""
    text = '>>>get_weather\n{"city": "Oslo"}<|eot_id|>\nuser: thanks! And Bergen?'
    turns = [{"text": text, "split": 5}, answer_turn(strategy, "Sunny in Oslo.")]
    result = run(turns, query="Weather in Oslo?", tools=[weather_tool()], strategy=strategy)
    assert_clean(result, run)
    assert [request["tool_parameters"] for request in result.tool_requests] == [{"city": "Oslo"}]
    assert result.text.endswith("Sunny in Oslo.")
    assert "Bergen" not in result.text and "eot_id" not in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_glm_vision_models_box_tokens_never_reach_the_user_and_go_back_to_the_model_intact(run, strategy):
    """GLM-4.5V and GLM-4.6V (zai-org) frame their final answer in ``<|begin_of_box|>`` ...
    ``<|end_of_box|>`` (Blaizzy/mlx-vlm#2225). Streamed three characters a chunk, a token is split
    over chunks; the user sees the answer alone, and Function Calling replays the round's message
    as the model plugin sent it."""
    boxed = "<|begin_of_box|>Checking.<|end_of_box|>"
    if strategy == "ReAct":
        first = {"text": 'Thought: I need the weather.\nAction: {"action": "get_weather", "action_input": {"city": "Oslo"}}'}
        answer = "<think>The tool said sunny.</think>Thought: done.\nFinal Answer: <|begin_of_box|>It is sunny in Oslo.<|end_of_box|>"
    else:
        first = {"text": boxed, "tool_calls": [{"id": "c1", "name": "get_weather", "arguments": '{"city": "Oslo"}'}]}
        answer = "<think>The tool said sunny.</think><|begin_of_box|>It is sunny in Oslo.<|end_of_box|>"
    result = run([first, {"text": answer, "split": 3}], query="Weather in Oslo?", tools=[weather_tool()], strategy=strategy)
    assert_clean(result, run)
    assert [request["tool_parameters"] for request in result.tool_requests] == [{"city": "Oslo"}]
    assert result.text.endswith("It is sunny in Oslo."), result.text
    assert "box" not in result.text and "<|" not in result.text
    if strategy == "function_calling":
        assert result.text == "Checking.\n\nIt is sunny in Oslo."
        replayed = [m["content"] for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "assistant"]
        assert replayed == [boxed]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_functionary_models_bare_all_line_never_reaches_the_user(run, strategy):
    """Functionary v3.2's generation prompt ends with ``>>>`` (meetkai-functionary-medium-v3.2.jinja),
    so served without its tool parser a text reply starts with the recipient line ``all``."""
    text = "all\nThought: done.\nFinal Answer: It is sunny in Oslo." if strategy == "ReAct" else "all\nIt is sunny in Oslo."
    model = {"model": "meetkai/functionary-small-v3.2"}
    result = run([{"text": text, "split": 2}], query="Weather in Oslo?", tools=[weather_tool()], strategy=strategy, model=model)
    assert_clean(result, run)
    assert result.text == "It is sunny in Oslo."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_run_that_met_functionary_parts_drops_the_bare_all_line_of_a_later_reply(run, strategy):
    """A Functionary model served under another name: its call parts show what it is."""
    calls = 'get_weather\n{"city": "Oslo"}>>>get_weather\n{"city": "Bergen"}'
    answer = "all\nThought: done.\nFinal Answer: Sunny in both." if strategy == "ReAct" else "all\nSunny in both."
    turns = [{"text": calls, "split": 5}, {"text": answer, "split": 3}]
    result = run(turns, query="Weather in Oslo and Bergen?", tools=[weather_tool()], strategy=strategy, model={"model": "my-agent"})
    assert_clean(result, run)
    assert len(result.tool_requests) == 2
    assert result.text == "Sunny in both."


def test_another_models_answer_starting_with_the_line_all_keeps_it(run):
    result = run([{"text": "all\nitems are ready", "split": 2}], query="Status?", tools=[weather_tool()])
    assert_clean(result, run)
    assert result.text == "all\nitems are ready"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_call_written_as_an_element_named_after_the_tool_runs(run, strategy):
    """RooCodeInc/Roo-Code#10464, #10358: a coder model trained on Cline's and Roo-Code's traces
    writes its call as ``<tool_name><param>value</param></tool_name>`` in the text, after a
    sentence: the sentence is what the user sees (Function Calling), the call runs, the element
    never reaches the user."""
    prose = "I'll check the weather first.\n\n" if strategy == "function_calling" else "Thought: I need the weather.\n"
    call = "<get_weather>\n<city>Oslo</city>\n</get_weather>"
    turns = [{"text": prose + call, "split": 3}, answer_turn(strategy, "It is sunny in Oslo.")]
    result = run(turns, query="Weather in Oslo?", tools=[weather_tool()], strategy=strategy)
    assert_clean(result, run)
    assert [request["tool_parameters"] for request in result.tool_requests] == [{"city": "Oslo"}]
    assert observations(result.llm_requests[1]) == ["Sunny, 21 C"]
    assert result.text.endswith("It is sunny in Oslo.")
    assert "get_weather" not in result.text and "<city>" not in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_answer_showing_a_tools_element_in_a_code_block_is_the_answer(run, strategy):
    text = "Call it like this:\n```xml\n<get_weather>\n<city>Oslo</city>\n</get_weather>\n```"
    result = run([{"text": text, "split": 4}], query="How do I call get_weather?", tools=[weather_tool()], strategy=strategy)
    assert_clean(result, run)
    assert result.text == text
    assert result.tool_requests == [] and len(result.llm_requests) == 1
