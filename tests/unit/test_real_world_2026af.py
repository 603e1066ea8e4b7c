"""A thirty-first set of real-world cases: what small local models (1 to 9 billion parameters:
Llama 3.1 8B and 3.2 1B/3B, Qwen2 and Qwen3 small sizes, Mistral 7B, Granite 3.1/3.3 8B, Hermes 3
8B, SmolLM3 3B, Gemma) wrote when given tools or a ReAct prompt through Ollama, LM Studio,
llama.cpp's server and its forks, vLLM or a local client, as users quoted it in public reports:
a call object in the text, arguments before the name, calls in a list left open, two calls on
one line joined by a semicolon, a call written as Python, a step whose ``Thought:`` line holds the
action, an invented observation, a half-written action input.

They are read through both strategies' turn readers, whole and in pieces of 1 and 7 characters
(as ``test_real_world_2026w``). Each case names its source beside it; docs/real-world-cases.md
lists them with what the user saw and expected. A text is quoted as the report shows it; where
the report shows a format or describes the output and its values were filled in, the comment says
"rebuilt". The tools are declared with string parameters.
"""

import pytest

from agent_core.text_calls import extract_calls_from_text
from agent_core.turn import ParseFailure, ToolCalls
from tests.unit.helpers import gap_param
from tests.unit.test_real_world_2026 import Case, reply_test, tool
from tests.unit.test_real_world_2026d import read

WEATHER = tool("get_weather", "location")
SEARCH = tool("search", "query")

CASES = {
    # ---- Hermes 3 8B ------------------------------------------------------------------------------
    # ollama/ollama#6390: xe/hermes3 (Hermes-3-Llama-3.1-8B) on Ollama; the raw /api/chat content
    # holds the Hermes call tags, which Ollama did not parse (verbatim)
    "ollama6390-hermes3-8b-tool-call-tags-in-content": Case(
        (tool("code_interpreter", "code"),),
        "\n<tool_call>\n{\"name\": \"code_interpreter\", \"arguments\": {\"code\": \"def reverse_list(lst):\\n    return "
        "lst[::-1]\\n\\noriginal = [1, 2, 3, 4, 5]\\nreversed_list = reverse_list(original)\\nprint('Original:', "
        "original)\\nprint('Reversed:', reversed_list)\"}}\n</tool_call>",
        calls=[("code_interpreter", {"code": "def reverse_list(lst):\n    return lst[::-1]\n\noriginal = [1, 2, 3, 4, 5]\n"
                "reversed_list = reverse_list(original)\nprint('Original:', original)\nprint('Reversed:', reversed_list)"})],
        hidden=("<tool_call>", "\"name\""),
    ),
    # NVIDIA/NemoClaw#2733 (and #2731): hermes3:8b on Ollama under an agent's long prompt; every
    # call arrived as text with the arguments before the name (verbatim, the query as quoted)
    "nemoclaw2733-hermes3-8b-arguments-before-name": Case(
        (tool("memory_search", "query"), SEARCH),
        '{"arguments":{"query":"X"},"name":"memory_search"}',
        calls=[("memory_search", {"query": "X"})], hidden=("arguments",),
    ),
    # ---- Qwen2 / Qwen3 small sizes --------------------------------------------------------------
    # sgomez/ollama-ai-provider#26: qwen2:7b answers "what time is it" with a Hermes call of a tool
    # without parameters, shown as the reply (verbatim)
    "ollamaaiprovider26-qwen2-7b-call-without-arguments": Case(
        (tool("getTimeInformation"),),
        '<tool_call>\n{"name": "getTimeInformation", "arguments": {}}\n</tool_call>',
        calls=[("getTimeInformation", {})], hidden=("<tool_call>",),
    ),
    # home-assistant/core#167154: qwen3:8b with thinking on plans the call inside its reasoning and
    # never sends it; Home Assistant answered nothing (rebuilt from the description)
    "hacore167154-qwen3-8b-call-inside-think": Case(
        (tool("HassTurnOn", "name"), tool("HassTurnOff", "name")),
        "<think>\nThe user wants the kitchen light on. I should call HassTurnOn.\n<tool_call>\n"
        '{"name": "HassTurnOn", "arguments": {"name": "kitchen light"}}\n</tool_call>\n</think>',
        calls=[("HassTurnOn", {"name": "kitchen light"})], hidden=("<tool_call>", "I should call"),
    ),
    # gpustack/gpustack#2121: qwen3-4b on llama-box with --jinja; the call stayed in the content
    # after the empty think block Qwen3 writes (rebuilt around the request's get_weather)
    "gpustack2121-qwen3-4b-empty-think-then-call": Case(
        (WEATHER,),
        '<think>\n\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris, France"}}\n</tool_call>',
        calls=[("get_weather", {"location": "Paris, France"})], hidden=("<tool_call>", "think"),
    ),
    # ollama/ollama#7445: qwen2.5:7b given a ReAct prompt with the rule "Do not fake the result
    # returned by any tool" wrote the step and then the tool's data itself (rebuilt from the report)
    "ollama7445-qwen25-7b-react-step-with-faked-observation": Case(
        (tool("findAppCallerInfo", "appId"),),
        "Question: Why did the invocation volume of app 1234 drop?\nThought: I need the callers of app 1234.\n"
        "Action: findAppCallerInfo\nAction Input: {\"appId\": \"1234\"}\nObservation: {\"callers\": [{\"appId\": \"5678\", "
        "\"change\": \"-80%\"}]}\nThought: I now know the final answer\nFinal Answer: App 5678 cut its calls by 80%.",
        calls=[("findAppCallerInfo", {"appId": "1234"})], only=("react",), hidden=("5678", "Final Answer"),
    ),
    # ollama/ollama-python#529 (qwen3:8b and qwen3:0.6b in the thread): with think=False the
    # <think> block still came back inside the content (rebuilt around the thread's question)
    "ollamapython529-qwen3-8b-think-block-in-content-despite-think-false": Case(
        (SEARCH,),
        "<think>\nThe user asks for the capital of the UK. That is London.\n</think>\n\nThe capital of the UK is London.",
        answer="The capital of the UK is London.", hidden=("<think>", "The user asks"),
    ),
    # ---- Llama 3.1 8B / Llama 3.2 1B-3B ----------------------------------------------------------
    # lmstudio-ai/lmstudio-js#277: meta-llama-3.1-8b-instruct in LM Studio writes its calls as
    # `add({"a":1,"b":1})`, with a leading space (verbatim)
    "lmstudiojs277-llama31-8b-name-and-json-in-parentheses": Case(
        (tool("add", "a", "b"), tool("isPrime", "n")),
        ' add({"a":1,"b":1})',
        calls=[("add", {"a": 1, "b": 1})], hidden=("add(",),
    ),
    # gpustack/gpustack#1496: llama 3.1 8B (Q8_0) on llama-box 0.0.125; the Llama 3.1 JSON call came
    # back in the content (rebuilt around the request's get_weather)
    "gpustack1496-llama31-8b-json-call-in-content": Case(
        (WEATHER,),
        '{"name": "get_weather", "parameters": {"location": "Paris, France"}}',
        calls=[("get_weather", {"location": "Paris, France"})], hidden=("parameters",),
    ),
    # meta-llama/llama-models#169: the Llama 3.1 call forms the issue quotes from Meta's prompt
    # format, as an 8B writes them when the server does not parse them: <|python_tag|> JSON ended
    # by <|eom_id|> (verbatim) ...
    "llamamodels169-llama31-python-tag-json-eom": Case(
        (tool("trending_songs", "n", "genre"),),
        '<|python_tag|>{\n    "type": "function",\n    "name": "trending_songs",\n    "parameters": {\n        "n": "10",\n'
        '        "genre": "all"\n    }\n}<|eom_id|>',
        calls=[("trending_songs", {"n": "10", "genre": "all"})], hidden=("python_tag", "eom_id"),
    ),
    # ... and the <function=NAME> form ended by <|eot_id|> (verbatim)
    "llamamodels169-llama31-function-tag-eot": Case(
        (tool("trending_songs", "n", "genre"),),
        '<function=trending_songs>{"n": 10}</function><|eot_id|>',
        calls=[("trending_songs", {"n": 10})], hidden=("<function", "eot_id"),
    ),
    # ollama/ollama#7824 (and meta-llama/llama-models#169): Llama 3.2 1B/3B call in Python list form,
    # which Ollama's JSON-only parser leaves as text (rebuilt from the format the issues quote)
    "ollama7824-llama32-3b-pythonic-list-two-calls": Case(
        (WEATHER, SEARCH),
        '[get_weather(location="Paris"), search(query="Paris events this weekend")]',
        calls=[("get_weather", {"location": "Paris"}), ("search", {"query": "Paris events this weekend"})],
        hidden=("get_weather(",),
    ),
    # timtoole02/Camelid PR #335: Llama 3.2 1B/3B's {"name", "parameters"} call, the PR's parser
    # "tolerates trailing junk": here a sentence after the object (rebuilt)
    "camelid335-llama32-1b-json-call-then-prose": Case(
        (WEATHER,),
        '{"name": "get_weather", "parameters": {"location": "Paris"}}\nThis will return the current weather in Paris.',
        calls=[("get_weather", {"location": "Paris"})], hidden=("parameters",),
    ),
    # gpustack/gpustack#1381: llama3.1 (8B) with tool_choice "required" answers in prose and
    # calls nothing; the answer is shown as written, no call invented (verbatim, its first lines)
    "gpustack1381-llama31-8b-prose-instead-of-a-call": Case(
        (WEATHER,),
        "I'm not able to provide real-time information about the current weather. However, I can suggest some ways "
        "to find out the current weather conditions in Paris:\n\n1.  Check online weather websites: Websites like "
        "AccuWeather, Weather.com, or the National Weather Service (NWS) often provide current weather conditions and "
        "forecasts.",
        answer="I'm not able to provide real-time information about the current weather. However, I can suggest some "
        "ways to find out the current weather conditions in Paris:\n\n1.  Check online weather websites: Websites "
        "like AccuWeather, Weather.com, or the National Weather Service (NWS) often provide current weather "
        "conditions and forecasts.",
    ),
    # ---- Granite 3.x 8B ---------------------------------------------------------------------------
    # gpustack/llama-box#17: granite-3.1-8b-instruct (Q8_0) on llama-box; the call list after
    # <tool_call> was never closed and no call reached the client (verbatim)
    "llamabox17-granite31-8b-call-list-left-open": Case(
        (tool("get_temperature", "location"), WEATHER, tool("get_location")),
        '<tool_call>[{"name": "get_weather", "arguments": {"location": "ShenZhen"}}',
        calls=[("get_weather", {"location": "ShenZhen"})], hidden=("<tool_call>",),
    ),
    # vllm-project/vllm#43104: granite-3.3-8b-instruct on vLLM writes a Python call in the content
    # (verbatim)
    "vllm43104-granite33-8b-python-call": Case(
        (WEATHER,), 'get_weather(location="San Francisco")',
        calls=[("get_weather", {"location": "San Francisco"})], hidden=("get_weather(",),
    ),
    # vllm-project/vllm#43116: the same model, two Python calls on two lines (verbatim)
    "vllm43116-granite33-8b-two-python-calls-on-lines": Case(
        (tool("get_weather", "location", "unit"), tool("search_web", "query")),
        'get_weather(location="San Francisco", unit="celsius")\nsearch_web(query="vLLM release notes")',
        calls=[("get_weather", {"location": "San Francisco", "unit": "celsius"}),
               ("search_web", {"query": "vLLM release notes"})],
        hidden=("get_weather(",),
    ),
    # ---- Mistral 7B -------------------------------------------------------------------------------
    # TheR1D/shell_gpt#677: mistral:7b-instruct on Ollama; the call was printed, not run (verbatim,
    # with the trailing space the issue shows)
    "shellgpt677-mistral7b-json-call-printed": Case(
        (tool("execute_shell_command", "shell_command"), tool("open_url_in_browser", "url")),
        '{"name": "execute_shell_command", "arguments": {"shell_command": "ls -la /home/user1"}} ',
        calls=[("execute_shell_command", {"shell_command": "ls -la /home/user1"})], hidden=("\"name\"",),
    ),
    # the same issue: the second tool (verbatim)
    "shellgpt677-mistral7b-open-url-call-printed": Case(
        (tool("execute_shell_command", "shell_command"), tool("open_url_in_browser", "url")),
        '{"name": "open_url_in_browser", "arguments": {"url": "https://google.com"}} ',
        calls=[("open_url_in_browser", {"url": "https://google.com"})], hidden=("\"name\"",),
    ),
    # ---- SmolLM3 3B -------------------------------------------------------------------------------
    # huggingface/smol-course#259: SmolLM3-3B's own assistant turn, a sentence and then the Hermes
    # call in the content (verbatim from the thread)
    "smolcourse259-smollm3-3b-sentence-then-call": Case(
        (tool("get_weather", "location", "unit"),),
        "I'll check the weather in Paris for you.\n\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": "
        "{\"location\": \"Paris, France\", \"unit\": \"celsius\"}}\n</tool_call>",
        calls=[("get_weather", {"location": "Paris, France", "unit": "celsius"})], hidden=("<tool_call>",),
    ),
    # ---- ReAct steps of small models --------------------------------------------------------------
    # crewAIInc/crewAI#1649: llama3.2 3B on a Mac; the Thought line holds the action, the input is a
    # Python dict, and an observation is made up after it (verbatim)
    "crewai1649-llama32-3b-action-on-thought-line-python-dict": Case(
        (tool("delegate_work", "task", "context", "coworker"),),
        "Thought: Action: delegate_work\nAction Input: {'task': 'Implement scoring system', 'context': 'The score needs "
        "to be displayed during gameplay and a high-score system should be implemented to keep track of the highest "
        "score achieved', 'coworker': 'Software Quality Control Engineer'}\nObservation: The Software Quality Control "
        "Engineer delegates the task of implementing the scoring system to another coworker.",
        calls=[("delegate_work", {"task": "Implement scoring system", "context": "The score needs to be displayed during "
                "gameplay and a high-score system should be implemented to keep track of the highest score achieved",
                "coworker": "Software Quality Control Engineer"})],
        only=("react",), hidden=("delegates the task",),
    ),
    # DenisovAV/flutter_gemma#238: gemma-4-E2B told to use FunctionGemma's markers writes them with
    # no `call:` and the closing marker as an HTML end tag (verbatim)
    "fluttergemma238-gemma4-e2b-function-call-markers-mangled": Case(
        (tool("get_financial_overview"),),
        "<start_function_call>get_financial_overview{}</end_function_call>",
        calls=[("get_financial_overview", {})], hidden=("function_call",),
    ),
}

GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md
    ("crewai1649-llama32-3b-action-on-thought-line-python-dict", "react"): (
        "an Action label on the Thought line (`Thought: Action: NAME`) is read as thought text, so the input "
        "below it has no action and the model is asked again (nothing runs, nothing is shown); reading labels "
        "inside a thought's line would also turn JSON or an `Answer:` written in a thought into steps"
    ),
    **{
        ("fluttergemma238-gemma4-e2b-function-call-markers-mangled", strategy): (
            "FunctionGemma's markers with `call:` left out and the end marker written as `</end_function_call>`: "
            "read as unreadable call markup, so the model is asked again (nothing runs, nothing is shown); "
            "accepting any end tag would let a marker quoted in prose end a call"
        )
        for strategy in ("react", "fc")
    },
}

test_real_world_reply = reply_test(CASES, GAPS, read)

# ---- replies whose right outcome is that nothing of the node's tools runs ---------------------------

DEAD_RECKONING = Case(
    # atwmarshall/dead-reckoning#30: llama3.2:3b wrote two call objects on one line joined by "; ",
    # the first naming "slugify", a word of the question, not a tool (verbatim)
    (tool("hybrid_search", "query"), tool("trace_impact", "symbol")),
    '{"name": "slugify", "parameters": {}}; {"name": "trace_impact", "parameters": {"symbol": "slugify"}}',
)


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("strategy", [
    gap_param("react", gap=None, id="react"),
    gap_param("fc", id="fc", gap=(
        "Function Calling reads call objects in the text only when every one names a node tool, so the line is "
        "shown as the answer; reading it would run `trace_impact` and answer `slugify` as an unknown tool, as "
        "ReAct does, but a text call naming a tool the node lacks is deliberately left as text there"
    )),
])
def test_deadreckoning30_llama32_semicolon_calls_one_invented(strategy, size):
    """The call the model wrote to a node tool runs as written; the invented one is a call of an
    unknown tool (the loop answers it so), never mapped to a node tool, and nothing is shown."""
    streamed, turn = read(strategy, DEAD_RECKONING, size)
    assert isinstance(turn.decision, ToolCalls)
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [
        ("slugify", {}), ("trace_impact", {"symbol": "slugify"}),
    ]
    assert streamed == ""


@pytest.mark.parametrize("size", [None, 1, 7])
def test_crewai562_llama3_8b_action_input_left_open_runs_nothing(size):
    """crewAIInc/crewAI#562: llama3-8b "still failed to close the dictionary" (verbatim). The
    closing quote and brace are not guessed: the call is refused with the reason, so the model
    can write it again, and nothing is shown."""
    case = Case((tool("navigate_to", "url"),), 'Action: navigate_to\nAction Input: {"url": "http://google.com\n')
    streamed, turn = read("react", case, size)
    assert isinstance(turn.decision, ToolCalls) and not turn.decision.calls
    [invalid] = turn.decision.invalid
    assert invalid.name == "navigate_to" and "incomplete" in invalid.error
    assert streamed == ""


@pytest.mark.parametrize("size", [None, 1, 7])
def test_crewai358_llama2_action_written_as_sentence_runs_nothing(size):
    """crewAIInc/crewAI#358: llama2 (7B) wrote its search as a sentence where the tool's name goes
    (the action quoted, the step around it rebuilt). The sentence names no tool: it is not taken
    for the tool whose name it starts with, so the node's tool does not run (the loop answers the
    call as one of an unknown tool, naming the tools there are) and nothing is shown."""
    case = Case(
        (tool("Search the internet", "search_query"),),
        'Thought: I should search for the latest news.\nAction: Search the internet using the query "Latest '
        'Advancements in AI 2024".\nAction Input: {"search_query": "Latest Advancements in AI 2024"}',
    )
    streamed, turn = read("react", case, size)
    assert isinstance(turn.decision, ToolCalls)
    assert "Search the internet" not in [c.name for c in turn.decision.calls]
    assert streamed == ""


# ---- the limits of the fix: calls written as code, one a line --------------------------------------

GRANITE_TOOLS = ["get_weather", "search_web"]


def test_calls_as_code_one_a_line_read_as_calls():
    calls, rest = extract_calls_from_text(
        'get_weather(location="San Francisco")\n\nsearch_web(query="vLLM release notes")\n', GRANITE_TOOLS
    )
    assert [(c.name, c.arguments) for c in calls] == [
        ("get_weather", {"location": "San Francisco"}), ("search_web", {"query": "vLLM release notes"}),
    ]
    assert rest == ""


@pytest.mark.parametrize("text", [
    'get_weather(location="San Francisco")\nThen I will search the web.',  # a line of prose
    'get_weather(location="Paris")\ndeploy(env="prod")',  # a name the node lacks
    'get_weather(location="Paris")\nsearch_web(query=some_variable)',  # an argument that is no literal
    'Call it like this:\nget_weather(location="Paris")\nsearch_web(query="x")',  # prose first
    'get_weather(location="Paris") + search_web(query="x")\nsearch_web(query="y")',  # an expression
])
def test_code_lines_with_anything_else_stay_text(text):
    assert extract_calls_from_text(text, GRANITE_TOOLS) == ((), text)


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_code_lines_in_a_fence_of_an_answer_stay_the_answer(strategy):
    """An answer showing the two calls as code in a fence is the answer as written."""
    text = 'Run these:\n\n```python\nget_weather(location="Paris")\nsearch_web(query="x")\n```'
    case = Case((tool("get_weather", "location"), tool("search_web", "query")), text)
    streamed, turn = read(strategy, case, None)
    assert not isinstance(turn.decision, (ToolCalls, ParseFailure))
    assert turn.decision.text == text
    assert streamed.strip() == text
