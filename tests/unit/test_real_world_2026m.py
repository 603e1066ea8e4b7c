"""A twelfth set of real-world model outputs, through both strategies' turn readers (as
``test_real_world_2026j``: the text whole and in pieces of 1 and 7 characters). Sources the first
eleven passes did not use, from 2025-2026 reports on the models Dify users pick: Qwen3 and
Qwen3-Coder calls left in the content by Ollama, TabbyAPI and oMLX; GLM-4.7/5.x markup leaked by
vLLM-MLX, SGLang and vLLM-Ascend; DeepSeek V3.2/V4 DSML; Kimi K2.6's section tokens via OpenRouter
and in the reasoning; gpt-oss Harmony through ``transformers serve``; Gemma 4 calls that Ollama and
oMLX could not read; Llama 4 Scout's JSON call; Doubao Seed's and MiniMax's XML; and ReAct steps
from hello-agents (Qwen3-30B-A3B, ``Finish[...]``) and LlamaIndex (an ``Answer:`` with no Thought).

Each case names its source beside it; docs/real-world-cases.md lists them by id. Outputs are
quoted as the source shows them; where a case is rebuilt from what the source describes, its
comment says so.
"""


from tests.unit.test_real_world_2026 import Case, reply_test, tool
from tests.unit.test_real_world_2026g import read

REACT = ("react",)
DSML = "｜DSML｜"
GQ = '<|"|>'  # Gemma 4's string quote token
WEATHER = tool("get_weather", "city")
SEARCH = tool("web_search", "query")


def _kimi(name: str, arguments: str, index: int = 0) -> str:
    """Kimi K2's call section as its chat template writes it."""
    return (
        "<|tool_calls_section_begin|><|tool_call_begin|>"
        f"functions.{name}:{index}<|tool_call_argument_begin|>{arguments}<|tool_call_end|>"
        "<|tool_calls_section_end|>"
    )


CASES = {
    # ---- Qwen3 / Qwen3-Coder / Qwen3.6 calls left in the content ----------------------------------------
    # ollama/ollama#11662: qwen3:32b via Ollama 0.10.1, the call as the message content, verbatim
    "ollama11662-qwen3-32b-call-as-content": Case(
        (tool("repeat_string", "string"),),
        '{"name": "repeat_string", "arguments": {"string": "bar"}}',
        calls=[("repeat_string", {"string": "bar"})],
    ),
    # theroyallab/tabbyAPI PR #378 (comment): Qwen Coder writes its call's tokens as text, verbatim
    "tabbyapi378-qwen-coder-read-call-as-text": Case(
        (tool("read", "file_path"),),
        "<tool_call>\n<function=read>\n<parameter=file_path>\nREADME.md\n</parameter>\n</function>\n</tool_call>",
        calls=[("read", {"file_path": "README.md"})],
        hidden=("<function",),
    ),
    # continuedev/continue#6621: qwen3:8b via Ollama streams its <think> block in the content, then the
    # call (the thought's opening verbatim; its rest and the call rebuilt)
    "continue6621-qwen3-8b-think-then-call": Case(
        (WEATHER,),
        "<think>\nOkay, the user is asking about the weather in Paris. I should call get_weather.\n</think>\n\n"
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
        calls=[("get_weather", {"city": "Paris"})],
        hidden=("Okay, the user",),
    ),
    # jundot/omlx#3153: Qwen3.6-35B-A3B's call envelope left unclosed, returned as content with
    # finish_reason stop (rebuilt: the function block closed, the envelope not)
    "omlx3153-qwen36-envelope-left-open": Case(
        (tool("web-browsing", "query"),),
        "<tool_call>\n<function=web-browsing>\n<parameter=query>\nlatest AI news\n</parameter>\n</function>",
        calls=[("web-browsing", {"query": "latest AI news"})],
        hidden=("<function",),
    ),
    # yigit353/langchain-qwq#21: qwen3:32b via Ollama thinks although thinking is off; the thought
    # verbatim, the answer after it rebuilt
    "langchainqwq21-qwen3-32b-think-when-disabled": Case(
        (SEARCH,),
        "<think>\nOkay, the user just said \"Hello\". I need to respond appropriately. Let's see, a simple greeting. "
        "I should keep it friendly and open-ended. Maybe ask how I can assist them.\n</think>\n\n"
        "Hello! How can I assist you today?",
        answer="Hello! How can I assist you today?",
        hidden=("Okay, the user",),
    ),
    # NousResearch/hermes-agent PR #19645: Qwen3 via Ollama puts its thinking inline in the content
    # after a tool result, then answers (rebuilt from the PR's description)
    "hermes19645-qwen3-inline-thinking-after-tool": Case(
        (SEARCH,),
        "<think>\nThe search returned the release date. I can answer now.\n</think>\n\nQwen3 was released on 29 April 2025.",
        answer="Qwen3 was released on 29 April 2025.",
        hidden=("The search returned",),
    ),
    # ---- GLM-4.7 / GLM-5.x ---------------------------------------------------------------------------
    # waybarrios/vllm-mlx PR #797: GLM-4.7's call leaks into the content under the auto parser (the
    # call's head verbatim, its value rebuilt)
    "vllmmlx797-glm47-bash-call-in-content": Case(
        (tool("Bash", "command"),),
        "<tool_call>Bash\n<arg_key>command</arg_key>\n<arg_value>ls -la</arg_value>\n</tool_call>",
        calls=[("Bash", {"command": "ls -la"})],
        hidden=("arg_key",),
    ),
    # sgl-project/sglang#30925: GLM-5.2 with tool_choice "none" still writes its call markup in the
    # content (rebuilt with the report's tool and city)
    "sglang30925-glm52-call-markup-in-content": Case(
        (WEATHER,),
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Dublin</arg_value>\n</tool_call>",
        calls=[("get_weather", {"city": "Dublin"})],
        hidden=("arg_key",),
    ),
    # vllm-project/vllm-ascend#12398: GLM-5.1's </think> leaks into the content right before its call
    # (rebuilt from the report's categories)
    "vllmascend12398-glm51-think-tag-before-call": Case(
        (SEARCH,),
        "</think><tool_call>web_search\n<arg_key>query</arg_key>\n<arg_value>GLM-5.1 release</arg_value>\n</tool_call>",
        calls=[("web_search", {"query": "GLM-5.1 release"})],
        hidden=("think>", "arg_key"),
    ),
    # local-inference-lab/vllm PR #639: GLM-4.7/5.3 writes a literal </tool_call> inside an argument
    # value while editing parser code (rebuilt from the PR's description)
    "localvllm639-glm-closing-tag-inside-a-value": Case(
        (tool("write_file", "path", "content"),),
        "<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>parser.py</arg_value>\n"
        "<arg_key>content</arg_key>\n<arg_value>END = \"</tool_call>\"</arg_value>\n</tool_call>",
        calls=[("write_file", {"path": "parser.py", "content": 'END = "</tool_call>"'})],
    ),
    # ---- DeepSeek V3.2 / V4 DSML ----------------------------------------------------------------------
    # XNet-NGO/aiope#119: DeepSeek 3.2 emits raw <｜DSML｜function_calls as text (rebuilt: a whole block)
    "aiope119-dsv32-dsml-as-text": Case(
        (SEARCH,),
        f'<{DSML}function_calls>\n<{DSML}invoke name="web_search">\n'
        f'<{DSML}parameter name="query" string="true">DeepSeek V3.2</{DSML}parameter>\n</{DSML}invoke>\n'
        f"</{DSML}function_calls>",
        calls=[("web_search", {"query": "DeepSeek V3.2"})],
        hidden=("DSML",),
    ),
    # vllm-project/vllm-ascend#10182: DeepSeek V4 with a forced tool_choice leaks its DSML call (the
    # report's tool and query; the markup rebuilt)
    "vllmascend10182-dsv4-forced-run-sql-dsml": Case(
        (tool("run_sql", "sql"),),
        f'<{DSML}tool_calls>\n<{DSML}invoke name="run_sql">\n<{DSML}parameter name="sql" string="true">'
        "SELECT log_id, employee_id, file_name, time FROM t ORDER BY time DESC LIMIT 10"
        f"</{DSML}parameter>\n</{DSML}invoke>\n</{DSML}tool_calls>",
        calls=[("run_sql", {"sql": "SELECT log_id, employee_id, file_name, time FROM t ORDER BY time DESC LIMIT 10"})],
        hidden=("DSML",),
    ),
    # ---- Kimi K2 ------------------------------------------------------------------------------------
    # NousResearch/hermes-agent#24534: kimi-k2.6 via OpenRouter with one or two tools writes its call
    # section as content (the report's format, its web_search tool; the query rebuilt)
    "hermes24534-kimi-k26-section-as-content": Case(
        (SEARCH, tool("web_extract", "url")),
        _kimi("web_search", '{"query": "Dify 1.11 release notes"}'),
        calls=[("web_search", {"query": "Dify 1.11 release notes"})],
        hidden=("tool_call",),
    ),
    # vybestack/llxprt-code PR #750: Kimi K2 writes its call section in reasoning_content, nothing in
    # the content (the PR's format; tool and arguments rebuilt)
    "llxprt750-kimi-k2-call-in-reasoning": Case(
        (tool("read_file", "path"),),
        "",
        reasoning="I need to look at the file first.\n" + _kimi("read_file", '{"path": "src/main.ts"}'),
        calls=[("read_file", {"path": "src/main.ts"})],
    ),
    # ---- gpt-oss ----------------------------------------------------------------------------------------
    # huggingface/transformers#40620: gpt-oss-20b through `transformers serve` with its channel filter
    # off: the analysis, then the commentary call (the analysis' opening verbatim; the rest rebuilt)
    "transformers40620-gptoss-analysis-then-call": Case(
        (WEATHER,),
        "<|channel|>analysis<|message|>Need to call get_weather for Paris.<|end|>"
        "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>"
        '{"city":"Paris"}<|call|>',
        calls=[("get_weather", {"city": "Paris"})],
        hidden=("Need to call", "<|"),
    ),
    # ---- Gemma 4 ------------------------------------------------------------------------------------
    # ollama/ollama#15315: gemma4:e4b's call that Ollama 0.20.1 failed to read: its last value opened
    # with a single quote and closed with a quote token after one (verbatim from the log, the call
    # tokens around it rebuilt): the pattern is what stands between the quotes
    "ollama15315-gemma4-grep-mixed-quotes": Case(
        (tool("grep", "include", "output_mode", "path", "pattern"),),
        f"<|tool_call>call:grep{{include:{GQ}*.py{GQ},output_mode:{GQ}content{GQ},"
        f"path:{GQ}/data/robotics/experiment1{GQ},pattern:':\\s*\\w+'{GQ}}}<tool_call|>",
        calls=[("grep", {"include": "*.py", "output_mode": "content", "path": "/data/robotics/experiment1",
                         "pattern": ":\\s*\\w+"})],
        hidden=("tool_call",),
    ),
    # waybarrios/vllm-mlx PR #267: Gemma 4's call with its keys quoted too (the PR's format; tool rebuilt)
    "vllmmlx267-gemma4-quoted-keys": Case(
        (WEATHER,),
        f"<|tool_call>call:get_weather{{{GQ}city{GQ}:{GQ}Paris{GQ}}}<tool_call|>",
        calls=[("get_weather", {"city": "Paris"})],
        hidden=("tool_call",),
    ),
    # jundot/omlx#1830 (fix PR #1854): Gemma 4 under AnythingLLM names its tool with a namespace,
    # call:google:mcp:text_generation:create-pdf-file, single-quoted values (rebuilt from the fix's
    # description)
    "omlx1830-gemma4-namespaced-tool-name": Case(
        (tool("create-pdf-file", "filename", "content"),),
        "<|tool_call>call:google:mcp:text_generation:create-pdf-file{filename:'report.pdf',"
        "content:'Q3 results: revenue up, costs flat'}<tool_call|>",
        calls=[("create-pdf-file", {"filename": "report.pdf", "content": "Q3 results: revenue up, costs flat"})],
        hidden=("tool_call",),
    ),
    # mattn/tensai PR #217: a small Gemma 4 writes the call body without its <|tool_call>call: marker
    # (rebuilt from the PR's description): a declared tool's name and its brace opening the reply
    "tensai217-gemma4-call-without-marker": Case(
        (WEATHER,),
        f"get_weather{{city:{GQ}Paris{GQ}}}",
        calls=[("get_weather", {"city": "Paris"})],
    ),
    # jundot/omlx PR #550 (#534): Gemma 4's raw envelopes oMLX passed through; a call without
    # arguments and two calls in a row (rebuilt from the PR's test list)
    "omlx550-gemma4-call-without-arguments": Case(
        (tool("list_files"),),
        "<|tool_call>call:list_files{}<tool_call|>",
        calls=[("list_files", {})],
        hidden=("tool_call",),
    ),
    "omlx550-gemma4-two-envelopes": Case(
        (WEATHER,),
        f"<|tool_call>call:get_weather{{city:{GQ}Paris{GQ}}}<tool_call|>"
        f"<|tool_call>call:get_weather{{city:{GQ}Rome{GQ}}}<tool_call|>",
        calls=[("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Rome"})],
        hidden=("tool_call",),
    ),
    # waybarrios/vllm-mlx PR #254: a hyphenated tool name after Gemma 4's <think> block (rebuilt from
    # the PR's test list)
    "vllmmlx254-gemma4-hyphenated-name-after-think": Case(
        (tool("web-search", "query"),),
        f"<think>\nI should search.\n</think>\n<|tool_call>call:web-search{{query:{GQ}gemma 4 release{GQ}}}<tool_call|>",
        calls=[("web-search", {"query": "gemma 4 release"})],
        hidden=("tool_call", "I should search"),
    ),
    # ---- Llama 4, Mistral, Seed, MiniMax --------------------------------------------------------------
    # lmstudio-ai/lmstudio-bug-tracker#1794: Llama 4 Scout (MLX) returns its call as JSON text in the
    # content, finish_reason stop (rebuilt in Llama's call shape with the report's bash tool)
    "lmstudio1794-llama4-scout-json-call": Case(
        (tool("bash", "command"),),
        '{"name": "bash", "parameters": {"command": "ls -la"}}',
        calls=[("bash", {"command": "ls -la"})],
    ),
    # sipeed/picoclaw#3153 / PR #3154: Volcengine's Doubao Seed embeds <seed:tool_call> XML in the
    # content in long tool-heavy conversations (rebuilt in Seed-OSS' format)
    "picoclaw3154-doubao-seed-call-in-content": Case(
        (WEATHER,),
        "<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n</function>\n</seed:tool_call>",
        calls=[("get_weather", {"city": "Paris"})],
        hidden=("seed:",),
    ),
    # ollama/ollama PR #13582: MiniMax-M2/M2.1 through Ollama without a parser for its XML (the PR's
    # format; tool rebuilt)
    "ollama13582-minimax-m21-xml-call": Case(
        (tool("read", "filePath"),),
        '<minimax:tool_call>\n<invoke name="read">\n<parameter name="filePath">/tmp/notes.md</parameter>\n'
        "</invoke>\n</minimax:tool_call>",
        calls=[("read", {"filePath": "/tmp/notes.md"})],
        hidden=("invoke",),
    ),
    # ---- ReAct steps -------------------------------------------------------------------------------
    # run-llama/llama_index PR #22564: an Answer step with no Thought before it, verbatim
    "llamaindex22564-answer-without-thought": Case(
        (tool("add", "a", "b"),),
        "Answer: The sum is 8",
        answer="The sum is 8",
        only=REACT,
    ),
    # the same PR: a sentence, then the Answer, verbatim
    "llamaindex22564-sentence-then-answer": Case(
        (tool("add", "a", "b"),),
        "I worked it out.\nAnswer: The sum is 8",
        answer="The sum is 8",
        only=REACT,
    ),
    # NVIDIA/NeMo-Agent-Toolkit PR #1667: a reasoning model answers a ReAct prompt directly after
    # its <think> block, with no label (rebuilt from the PR's description)
    "nat1667-reasoning-model-plain-answer-after-think": Case(
        (SEARCH,),
        "<think>\nThis is a simple fact; no tool is needed.\n</think>\n\nThe capital of France is Paris.",
        answer="The capital of France is Paris.",
        hidden=("simple fact",),
        only=REACT,
    ),
    # datawhalechina/hello-agents#760: the Finish action after a space the parser did not expect
    # (rebuilt from the report)
    "helloagents760-finish-after-a-space": Case(
        (WEATHER,),
        "Thought: 我已经知道北京的天气和推荐的景点了。\nAction:  Finish[北京今天晴，适合去颐和园。]",
        answer="北京今天晴，适合去颐和园。",
        only=REACT,
    ),
    # datawhalechina/hello-agents#311: qwen3-30b-a3b-instruct-2507 on DashScope opens its reply with
    # Finish (rebuilt from the report)
    "helloagents311-qwen3-reply-opens-with-finish": Case(
        (WEATHER, tool("get_attraction", "city", "weather")),
        "Finish[北京今天晴，气温 14 摄氏度，推荐去八达岭长城。]",
        answer="北京今天晴，气温 14 摄氏度，推荐去八达岭长城。",
        only=REACT,
    ),
    # datawhalechina/hello-agents#311 prompt form: an action written as a call with a keyword argument
    # (the chapter's documented form; city rebuilt)
    "helloagents311-action-as-keyword-call": Case(
        (WEATHER, tool("get_attraction", "city", "weather")),
        "Thought: 先查询北京的天气。\nAction: get_weather(city=\"北京\")",
        calls=[("get_weather", {"city": "北京"})],
        only=REACT,
    ),
}


GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md
}


test_real_world_reply = reply_test(CASES, GAPS, read)
