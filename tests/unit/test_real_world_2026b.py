"""A second set of real-world model outputs, quoted from public bug reports, pull requests and
parser tests, through both strategies' turn readers (``test_real_world_2026`` drives them: the text
whole and in pieces of 1 and 7 characters, the reasoning sent first as ``reasoning_content``).

Each case names its source beside it; docs/real-world-cases.md lists them by id. Outputs are
quoted as the source shows them; where a case is shortened or rebuilt from a format the source
documents, its comment says so.
"""

import pytest

from tests.unit.test_real_world_2026 import WEATHER, Case, check, read, reply_params, tool

HUNYUAN_THINK, HUNYUAN_ANSWER, HUNYUAN_END = "<think>\n", "\n</think>\n<answer>\n", "\n</answer>"
"""Hunyuan-A13B's frame: its reasoning in ``<think>``, its reply in ``<answer>`` (vLLM's
``hunyuan_a13b`` reasoning parser and its test, tests/reasoning/test_hunyuan_reasoning_parser.py)."""

CASES = {
    # ---- Hunyuan-A13B (tencent): <think>...</think> then <answer>...</answer> -------------------
    # vllm-project/vllm PR #20625 (tests/reasoning/test_hunyuan_reasoning_parser.py, SIMPLE_REASONING):
    # served without the hunyuan_a13b reasoning parser, the whole frame is in the content
    "vllm20625-hunyuan-think-answer-frame": Case(
        (WEATHER,),
        f"{HUNYUAN_THINK}This is a reasoning section{HUNYUAN_ANSWER}This is the rest{HUNYUAN_END}",
        answer="This is the rest",
        hidden=("answer>", "reasoning section"),
    ),
    # the same test's NO_REASONING_QUICK_THOUGHT: the fast-thinking form, an empty <think> block
    "vllm20625-hunyuan-quick-thought": Case(
        (WEATHER,),
        f"{HUNYUAN_THINK}{HUNYUAN_ANSWER}This is the rest{HUNYUAN_END}",
        answer="This is the rest",
        hidden=("answer>", "think>"),
    ),
    # vllm-project/vllm#58127: streaming under the reasoning parser, the reasoning comes apart and
    # the opening tags are dropped, but the closing "\n</answer>" leaks into the content
    "vllm58127-hunyuan-answer-end-leaks": Case(
        (WEATHER,),
        "This is the rest\n</answer>",
        reasoning="This is a reasoning section",
        answer="This is the rest",
        hidden=("answer>",),
    ),
    # the same leak after a quick thought: no reasoning at all, only the closing tag left
    "vllm58127-hunyuan-quick-thought-answer-end-leaks": Case(
        (WEATHER,),
        "This is the rest\n</answer>",
        answer="This is the rest",
        hidden=("answer>",),
    ),
    # sgl-project/sglang PR #7678: Hunyuan "additionally wraps its final responses in <answer>...
    # </answer>", which a DeepSeek-R1/Qwen3-style reasoning parser leaves in the content after it
    # took the <think> block out (the reply rebuilt from the vLLM test's strings)
    "sglang7678-hunyuan-answer-frame-after-reasoning-content": Case(
        (WEATHER,),
        "<answer>\nThis is the rest\n</answer>",
        reasoning="This is a reasoning section",
        answer="This is the rest",
        hidden=("answer>",),
    ),
    # vLLM's hunyuan_a13b tool parser test (tests/tool_parsers/test_hunyuan_a13b_tool_parser.py,
    # streaming case 3): the call in <tool_calls>, then the frame's end
    "vllm-hunyuan-tool-calls-then-answer-end": Case(
        (WEATHER,),
        '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Boston"}}]</tool_calls>\n</answer>',
        calls=[("get_weather", {"city": "Boston"})],
    ),
    # the same call inside the whole frame, as Hunyuan writes it without a reasoning parser
    "vllm-hunyuan-tool-calls-in-answer-frame": Case(
        (WEATHER,),
        f"{HUNYUAN_THINK}The user wants the weather in Boston.{HUNYUAN_ANSWER}"
        '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Boston"}}]</tool_calls>' + HUNYUAN_END,
        calls=[("get_weather", {"city": "Boston"})],
    ),
    # the tool parser test's "content before tool call" case, with a nested object
    "vllm-hunyuan-content-before-tool-calls": Case(
        (WEATHER,),
        'I will call the tool now. <tool_calls>[{"name": "get_weather", "arguments": {"city": "Boston"}}]</tool_calls>',
        calls=[("get_weather", {"city": "Boston"})],
    ),
    "vllm-hunyuan-two-calls-nested-arguments": Case(
        (tool("get_weather", "city", "metric"), tool("register_user", "name", "age", "address", "role", "passed_test", "aliases")),
        '<tool_calls>[{"name": "get_weather", "arguments": {"city": "San Francisco", "metric": "celsius"}}, '
        '{"name": "register_user", "arguments": {"name": "John Doe", "age": 37, "address": {"city": "San Francisco", '
        '"state": "CA"}, "role": null, "passed_test": true, "aliases": ["John", "Johnny"]}}]</tool_calls>',
        calls=[
            ("get_weather", {"city": "San Francisco", "metric": "celsius"}),
            ("register_user", {"name": "John Doe", "age": 37, "address": {"city": "San Francisco", "state": "CA"},
                               "role": None, "passed_test": True, "aliases": ["John", "Johnny"]}),
        ],
    ),
    # a ReAct step in Hunyuan's frame (its format around the step ReAct asks for)
    "hunyuan-react-step-in-answer-frame": Case(
        (WEATHER,),
        f"{HUNYUAN_THINK}I need the weather.{HUNYUAN_ANSWER}Thought: I need the weather in Boston.\n"
        'Action: get_weather\nAction Input: {"city": "Boston"}' + HUNYUAN_END,
        calls=[("get_weather", {"city": "Boston"})],
        only=("react",),
    ),
    "hunyuan-react-answer-in-answer-frame": Case(
        (WEATHER,),
        f"{HUNYUAN_THINK}Easy.{HUNYUAN_ANSWER}Thought: I know this.\nFinal Answer: 2 + 2 = 4.{HUNYUAN_END}",
        answer="2 + 2 = 4.",
        only=("react",),
        hidden=("answer>", "Easy."),
    ),
    # ---- calls as bare JSON in the content (no tool parser, or one that missed) ----------------
    # ollama/ollama#12174: qwen2.5-coder:14b on ollama 0.20.7, tool_calls null, the call in content
    "ollama12174-qwen25-coder-bare-json": Case(
        (tool("calculator", "expr"),),
        '{"name": "calculator", "arguments": {"expr": "17 * 23"}}',
        calls=[("calculator", {"expr": "17 * 23"})],
    ),
    # mark3labs/mcphost#12: Qwen2.5-Coder-32B-Instruct-AWQ, an MCP tool's server__tool name
    "mcphost12-qwen25-coder-mcp-name": Case(
        (tool("filesystem__list_directory", "path"),),
        '{"name": "filesystem__list_directory", "arguments": {"path": "."}}',
        calls=[("filesystem__list_directory", {"path": "."})],
    ),
    # selfagency/opilot#149: qwen2.5-coder:7b, the call spread over lines without indentation
    "opilot149-qwen25-coder-multiline-json": Case(
        (tool("fetch_file_content", "filePath"),),
        '{\n"name": "fetch_file_content",\n"arguments": {\n"filePath": "/my/code/test-project/AGENTS.md"\n}\n}',
        calls=[("fetch_file_content", {"filePath": "/my/code/test-project/AGENTS.md"})],
    ),
    # openai/codex#2229: qwen2.5-coder:14b via Ollama, a list argument
    "codex2229-qwen25-coder-list-argument": Case(
        (tool("shell", "command"),),
        '{"name": "shell", "arguments": {"command": ["ls"]}}',
        calls=[("shell", {"command": ["ls"]})],
    ),
    # irreg/native_tool_call_adapter#3: a Roo-Code task through a proxy, the finishing call as text
    "nativetoolcalladapter3-multiline-json": Case(
        (tool("attempt_completion", "result"),),
        '{\n"name": "attempt_completion",\n"arguments": {\n"result": "Result text here"\n}\n}',
        calls=[("attempt_completion", {"result": "Result text here"})],
    ),
    # raullenchai/Rapid-MLX#700: Meta-Llama-3.1-8B-Instruct-4bit, Llama 3.1's "parameters" form
    "rapidmlx700-llama31-parameters": Case(
        (tool("web_search", "query"),),
        '{"name": "web_search", "parameters": {"query": "你好"}}',
        calls=[("web_search", {"query": "你好"})],
    ),
    # jundot/omlx PR #1153: Llama-4-Scout-17B-16E-Instruct-4bit, the form its template asks for
    "omlx1153-llama4-scout-parameters": Case(
        (tool("get_weather", "location"),),
        '{"name": "get_weather", "parameters": {"location": "Paris"}}',
        calls=[("get_weather", {"location": "Paris"})],
    ),
    # ollama/ollama#5976: mistral-nemo:12b-instruct-2407, the call as a JSON-RPC request in a fence
    # (fixed: text_calls reads "method"/"params")
    "ollama5976-mistral-nemo-jsonrpc-in-fence": Case(
        (tool("eval", "expression"),),
        '```\n{\n  "jsonrpc": "2.0",\n  "method": "eval",\n  "params": {\n    "expression": "5234 / 6453 * 23456"\n  }\n}\n```',
        calls=[("eval", {"expression": "5234 / 6453 * 23456"})],
    ),
    # sgomez/ollama-ai-provider PR #11: llama3.1 via Ollama, two calls one after the other
    # (fixed for Function Calling: text_calls reads objects joined by whitespace; ReAct runs the
    # first, and the model asks for the second in its next step)
    "ollamaaiprovider11-two-objects-in-a-row": Case(
        (tool("weather", "location"), tool("cityAttractions", "city")),
        '{\n  "name": "weather",\n  "arguments": {\n    "location": "San Francisco"\n  }\n} {\n  "name": "cityAttractions",\n'
        '  "arguments": {\n    "city": "San Francisco"\n  }\n}',
        calls=[("weather", {"location": "San Francisco"}), ("cityAttractions", {"city": "San Francisco"})],
        only=("fc",),
    ),
    # ---- Hermes <tool_call> and family markup ----------------------------------------------------
    # NousResearch/atropos#478: an apostrophe inside a JSON string (a parser that swapped quotes broke it)
    "atropos478-apostrophe-in-hermes-call": Case(
        (tool("web_search", "query"),),
        '<tool_call>{"name": "web_search", "arguments": {"query": "what\'s the weather"}}</tool_call>',
        calls=[("web_search", {"query": "what's the weather"})],
    ),
    # ahwurm/localharness#104: a Hermes call whose arguments are under "parameters"
    "localharness104-hermes-parameters-key": Case(
        (tool("write_file", "path", "content"),),
        '<tool_call>{"name": "write_file", "parameters": {"path": "a.txt", "content": "hello"}}</tool_call>',
        calls=[("write_file", {"path": "a.txt", "content": "hello"})],
    ),
    # lmstudio-ai/lmstudio-bug-tracker#825: qwen/qwen3-4b, an empty <think> then a Hermes call
    "lmstudio825-qwen3-empty-think-then-call": Case(
        (tool("search_products", "query", "category", "max_price"),),
        '<think>\n\n</think>\n\n<tool_call>\n{"name": "search_products", "arguments": {"query": "Dell", "category": '
        '"electronics", "max_price": 50}}\n</tool_call>',
        calls=[("search_products", {"query": "Dell", "category": "electronics", "max_price": 50})],
        hidden=("think>",),
    ),
    # lmstudio-ai/lmstudio-bug-tracker#1528: GLM-4.7-Flash, two parallel <arg_key> calls
    "lmstudio1528-glm47-flash-parallel-calls": Case(
        (tool("get_file_info", "path"),),
        "<tool_call>get_file_info<arg_key>path</arg_key><arg_value>file1.jpg</arg_value></tool_call>\n"
        "<tool_call>get_file_info<arg_key>path</arg_key><arg_value>file2.jpg</arg_value></tool_call>",
        calls=[("get_file_info", {"path": "file1.jpg"}), ("get_file_info", {"path": "file2.jpg"})],
    ),
    # lmstudio-ai/lmstudio-bug-tracker#1979: LiquidAI/LFM2.5-8B-A1B-MLX-4bit, its pythonic call
    "lmstudio1979-lfm25-pythonic-call": Case(
        (tool("list_directory", "path"),),
        '<|tool_call_start|>[list_directory(path="desktop")]<|tool_call_end|>',
        calls=[("list_directory", {"path": "desktop"})],
    ),
    # lmstudio-ai/lmstudio-bug-tracker#942: gpt-oss-20b, a Harmony call with deeply nested arguments
    # and no <|call|> after it
    "lmstudio942-gptoss-nested-arguments": Case(
        (tool("get_ecs_instructions", "data"),),
        "<|start|>assistant<|channel|>commentary to=functions.get_ecs_instructions<|constrain|>json<|message|>"
        '{"data":{"envs":{"sd":{"namespaces":{"main":{"resources":{"requests":{"cpu":"100m","memory":"128Mi"},'
        '"limits":{"cpu":"200m","memory":"256Mi"}}}}},"pr":{"namespaces":{"main":{"resources":{"requests":'
        '{"cpu":"500m","memory":"512Mi"},"limits":{"cpu":"1","memory":"1Gi"}}}}}}}}',
        calls=[("get_ecs_instructions", {"data": {"envs": {
            "sd": {"namespaces": {"main": {"resources": {"requests": {"cpu": "100m", "memory": "128Mi"},
                                                         "limits": {"cpu": "200m", "memory": "256Mi"}}}}},
            "pr": {"namespaces": {"main": {"resources": {"requests": {"cpu": "500m", "memory": "512Mi"},
                                                         "limits": {"cpu": "1", "memory": "1Gi"}}}}}}}})],
    ),
    # lmstudio-ai/lmstudio-bug-tracker#1177: MiniMax-M2 (mlx 5bit) in LM Studio, its [TOOL_CALL] form
    # (fixed: call_markup reads it)
    "lmstudio1177-minimax-bracket-tool-call": Case(
        (tool("write", "filePath", "content"),),
        '[TOOL_CALL] { "tool": "write", "args": { "filePath": "test.html", "content": "<html>...</html>" } } [/TOOL_CALL]',
        calls=[("write", {"filePath": "test.html", "content": "<html>...</html>"})],
        hidden=("TOOL_CALL",),
    ),
    # raullenchai/Rapid-MLX#1071: Devstral-Small-2-24B served with the wrong (hermes) parser
    "rapidmlx1071-devstral-tool-calls-args": Case(
        (tool("web_search", "query"),),
        '[TOOL_CALLS]web_search[ARGS]{"query": "latest AI model releases this month"}',
        calls=[("web_search", {"query": "latest AI model releases this month"})],
        hidden=("TOOL_CALLS",),
    ),
    # ai-dynamo/dynamo PR #10133: DeepSeek V3/V3.1, the outer <｜tool▁calls▁begin｜> missing
    "dynamo10133-deepseek-call-without-outer-wrapper": Case(
        (tool("get_weather", "location"),),
        '<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"location": "NYC"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
        calls=[("get_weather", {"location": "NYC"})],
        hidden=("tool▁",),
    ),
    # CherryHQ/cherry-studio#7312: an old DeepSeek 70B distill asked, in the prompt, for Cherry
    # Studio's <tool_use> form; the report's output is cut after "<tool_use>\n  <nam", completed here
    # with the prompt's own form and the report's question (成都今天天气) (fixed: call_markup reads it)
    "cherry7312-tool-use-name-arguments": Case(
        (tool("MCP_Ora-get_weather", "city_name"),),
        '<tool_use>\n  <name>MCP_Ora-get_weather</name>\n  <arguments>{"city_name": "成都"}</arguments>\n</tool_use>',
        calls=[("MCP_Ora-get_weather", {"city_name": "成都"})],
        hidden=("tool_use",),
    ),
    # ---- ReAct text (LangChain, LlamaIndex) ------------------------------------------------------
    # langchain-ai/langchain#21912: a Hugging Face model writes the whole chain with invented
    # observations (shortened after the second step); only the first action runs
    "langchain21912-invented-observations": Case(
        (tool("Wikipedia Research Tool", "q"), tool("Duck Duck Go Search Results Tool", "q")),
        "Question: Write an academic abstract about Bitcoin\nThought: I need to research the topic to write a good abstract\n"
        "Action: Wikipedia Research Tool\nAction Input: Bitcoin\nObservation: The first result is about the history of "
        "Bitcoin, it seems to be a decentralized digital currency\nThought: I need to know more about the technical "
        "aspects of Bitcoin\nAction: Duck Duck Go Search Results Tool\nAction Input: Bitcoin technical aspects\n"
        "Observation: The first result is about the blockchain technology used by Bitcoin, it seems to be a distributed "
        "ledger technology\nThought: I now know the final answer\nFinal Answer: Bitcoin is a decentralized digital currency",
        calls=[("Wikipedia Research Tool", {"q": "Bitcoin"})],
        only=("react",),
    ),
    # run-llama/LlamaIndexTS#1599: command-r7b via Ollama, the input in parentheses on the Action line
    "llamaindexts1599-action-with-parenthesised-input": Case(
        (tool("san_francisco_budget_tool", "query"),),
        "Thought: I need to use a tool to help me answer the question.\nAction: san_francisco_budget_tool "
        '({"query": "What is the budget of San Francisco in 2023-2024?"})',
        calls=[("san_francisco_budget_tool", {"query": "What is the budget of San Francisco in 2023-2024?"})],
        only=("react",),
    ),
    # run-llama/llama_index#10322: a local model (LM Studio) writes the input as a Python dict
    "llamaindex10322-python-dict-input": Case(
        (tool("look_up_wikipedia", "pages", "query_str"), tool("about_the_user", "q")),
        "Thought: I'll use the information provided by the `about_the_user` tool to narrow down my search for the drink "
        "you enjoy.\nAction: look_up_wikipedia\nAction Input: {'pages': ['Coca-Cola'], 'query_str': ''}",
        calls=[("look_up_wikipedia", {"pages": ["Coca-Cola"], "query_str": ""})],
        only=("react",),
    ),
    # ---- a call written as an element named after its tool (Cline's and Roo-Code's format) --------
    # RooCodeInc/Roo-Code#10464 (https://github.com/RooCodeInc/Roo-Code/issues/10464):
    # Qwen3-Coder-480B-A35B-Instruct asked to read package.json writes the call as XML in its text
    "roocode10464-qwen3-coder-tool-element": Case(
        (tool("read_file", "path"),),
        "<read_file><path>package.json</path></read_file>",
        calls=[("read_file", {"path": "package.json"})],
    ),
    # RooCodeInc/Roo-Code#10358 (https://github.com/RooCodeInc/Roo-Code/issues/10358): a sentence,
    # then Roo's read_file with its <args> wrapper, shown to the user ("The model failed to use any
    # tools"); <args> is no parameter of this node's tool: kept as given, for the argument check
    "roocode10358-tool-element-after-a-sentence": Case(
        (tool("read_file", "path"),),
        "I need to read the existing plan document to understand the current plan and then modify it according to "
        "the user's feedback about in-place tailoring (adding icon buttons next to each section editor) rather than "
        "creating separate tailoring screens.\n\n<read_file>\n<args>\n<file>\n"
        "<path>docs/1-page-resume/ai-prompts-for-resume/08-remaining-phases-plan.md</path>\n</file>\n</args>\n"
        "</read_file>",
        calls=[("read_file", {"args": {"file": {"path": "docs/1-page-resume/ai-prompts-for-resume/08-remaining-phases-plan.md"}}})],
        hidden=("<read_file>", "<args>", "<path>"),
    ),
    # Cline's system prompt (https://github.com/cline/cline, src/core/prompts/system.ts) teaches
    # "<tool_name>\n<parameter1_name>value1</parameter1_name>\n...</tool_name>" with this example,
    # and asks for a <thinking> block before each tool use
    "cline-system-prompt-tool-element": Case(
        (tool("read_file", "path"),),
        "<thinking>I need to look at the entry point first.</thinking>\n\n<read_file>\n<path>src/main.js</path>\n</read_file>",
        calls=[("read_file", {"path": "src/main.js"})],
        hidden=("<read_file>", "thinking"),
    ),
}


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize(("name", "strategy"), list(reply_params(CASES, {})))
def test_real_world_reply(name, strategy, size):
    case = CASES[name]
    streamed, turn = read(strategy, case, size)
    check(strategy, case, streamed, turn)
