"""A fourteenth set of real-world model outputs, through both strategies' turn readers (as
``test_real_world_2026j``: the text whole and in pieces of 1 and 7 characters). ReAct steps above
all, from 2025-2026 reports and pages on the small and local models Dify users run (Qwen3-8B/32B,
DeepSeek-R1-Distill, gpt-oss-20b, Qwen3.5-9B, Gemma 4 E4B): several steps in one reply, labels in
bold or after an emoji, ``tool[input]`` and ``finish(answer=...)`` actions, an action wrapped in a
``tool_call`` object, JSON shown inside a thought, the step inside a code fence, a thought with no
action, and ReAct labels inside a ``<think>`` block.

Each case names its source beside it; docs/real-world-cases.md lists them by id. Outputs are
quoted as the source shows them; where a case is rebuilt from what the source describes, its
comment says so.
"""


from tests.unit.test_real_world_2026 import Case, reply_test, tool
from tests.unit.test_real_world_2026g import read

REACT = ("react",)
WEATHER = tool("get_weather", "city")
ATTRACTION = tool("get_attraction", "city", "weather")
SEARCH = tool("search", "query")
WEB_SEARCH = tool("webSearch", "query")

CASES = {
    # ---- hello-agents (Qwen3-8B / Qwen3-32B, the book's ReAct chapters) ---------------------------------
    # datawhalechina/hello-agents#118: Qwen3-32B writes two Thought-Action-Observation rounds in one
    # reply, the first observation made up (rebuilt in the chapter's format from the report)
    "helloagents118-qwen3-32b-two-rounds-in-one-reply": Case(
        (WEATHER, ATTRACTION),
        "Thought: 用户想知道北京的天气和景点，我先查询天气。\nAction: get_weather(city=\"北京\")\n"
        "Observation: 北京当前天气：Sunny，气温14摄氏度\n"
        "Thought: 天气晴朗，接下来查询景点。\nAction: get_attraction(city=\"北京\", weather=\"Sunny\")",
        calls=[("get_weather", {"city": "北京"})],
        only=REACT,
    ),
    # datawhalechina/hello-agents PR #121: the same chapter's finish form after the fix, tested on
    # Qwen3-8B/32B and Qwen2.5 (rebuilt from the prompt's documented finish(answer="...") action)
    "helloagents121-finish-keyword-answer": Case(
        (WEATHER, ATTRACTION),
        "Thought: 我已经获得了天气和景点信息，可以回答用户了。\n"
        "Action: finish(answer=\"北京今天晴，气温14摄氏度，推荐去颐和园。\")",
        answer="北京今天晴，气温14摄氏度，推荐去颐和园。",
        only=REACT,
    ),
    # datawhalechina/hello-agents PR #47: the chapter 7 prompt bolds its labels and the model copies
    # them, the action in the chapter's tool[input] form (rebuilt from the PR's description)
    "helloagents47-bold-labels-bracket-action": Case(
        (SEARCH,),
        "**Thought:** 用户想了解华为最新的手机，我需要搜索。\n**Action:** search[华为最新手机]",
        calls=[("search", {"query": "华为最新手机"})],
        only=REACT,
    ),
    # the same PR: the bold Finish step (rebuilt)
    "helloagents47-bold-finish-step": Case(
        (SEARCH,),
        "**Thought:** 我已经找到答案了。\n**Action:** Finish[华为最新的旗舰手机是 Mate 70 系列。]",
        answer="华为最新的旗舰手机是 Mate 70 系列。",
        only=REACT,
    ),
    # datawhalechina/hello-agents PR #295: after its last thought the model skips "Action: finish" and
    # writes its conclusion as plain text under the Thought (rebuilt from the PR's description). A
    # Thought with no action is no step: asked again with the format reminder, nothing run or shown
    "helloagents295-conclusion-under-thought-no-action": Case(
        (WEATHER, ATTRACTION),
        "Thought: 我已经获得了天气和景点信息，可以给出最终答案了。\n北京今天晴，气温14摄氏度，推荐去颐和园。",
        fallback="",
        only=REACT,
    ),
    # datawhalechina/hello-agents PR #460: Finish in backticks as the chapter 4 prompt shows it
    # (rebuilt from the PR's description: the action string was not read, Finish not recognised)
    "helloagents460-finish-in-backticks": Case(
        (SEARCH,),
        "Thought: 信息已经足够了。\nAction: `Finish[英伟达最新的显卡是 RTX 50 系列。]`",
        answer="英伟达最新的显卡是 RTX 50 系列。",
        only=REACT,
    ),
    # the same PR: a tool action in backticks (rebuilt)
    "helloagents460-tool-action-in-backticks": Case(
        (SEARCH,),
        "Thought: 我需要搜索英伟达最新的显卡。\nAction: `search[英伟达最新显卡]`",
        calls=[("search", {"query": "英伟达最新显卡"})],
        only=REACT,
    ),
    # ---- Dify's own ReAct strategy (dify-official-plugins) ---------------------------------------------
    # langgenius/dify-official-plugins PR #3703: the action wrapped in an outer key, the PR's example
    # (its query rebuilt)
    "difyplugins3703-action-wrapped-in-tool-call": Case(
        (WEB_SEARCH,),
        "Thought: I need to search for the release.\n"
        '{"tool_call": {"action": "webSearch", "action_input": {"query": "Dify 1.9 release notes"}}}',
        calls=[("webSearch", {"query": "Dify 1.9 release notes"})],
        only=REACT,
    ),
    # the same PR: "Action_input: {...}" written inside the Thought's sentence, no Action line
    # (rebuilt). Labels mid-sentence are prose: asked again, never a guessed call
    "difyplugins3703-action-input-inside-thought": Case(
        (WEB_SEARCH,),
        'Thought: I will call webSearch with Action_input: {"query": "Dify 1.9 release notes"} to find it.',
        fallback="",
        only=REACT,
    ),
    # langgenius/dify-official-plugins PR #3864: a JSON example mid-line in the Thought, then the real
    # action (rebuilt from the PR's shapes): the labelled action runs, not the example
    "difyplugins3864-json-example-in-thought-then-action": Case(
        (SEARCH,),
        'Thought: For example {"action": "search", "action_input": {"query": "example"}} would be a call. '
        "I will search for the real thing.\n"
        'Action: search\nAction Input: {"query": "Qwen3 release date"}',
        calls=[("search", {"query": "Qwen3 release date"})],
        only=REACT,
    ),
    # the same PR: the canonical JSON on its own line after the Thought, no Action label (rebuilt)
    "difyplugins3864-json-on-own-line-after-thought": Case(
        (SEARCH,),
        'Thought: I need to search.\n{"action": "search", "action_input": {"query": "Qwen3 release date"}}',
        calls=[("search", {"query": "Qwen3 release date"})],
        only=REACT,
    ),
    # the same PR: JSON after the final answer is the answer's text, never a call (rebuilt)
    "difyplugins3864-json-after-final-answer-is-text": Case(
        (SEARCH,),
        'Thought: I know the answer.\nFinal Answer: The call looks like {"action": "search", "action_input": "x"}.',
        answer='The call looks like {"action": "search", "action_input": "x"}.',
        only=REACT,
    ),
    # langgenius/dify#21362: deepseek-r1 8b on Ollama writes "Thought/Action" inside its thinking and
    # the agent hangs (rebuilt from the report's description): the thinking stays hidden, the step
    # after it runs
    "dify21362-r1-8b-react-words-in-think": Case(
        (tool("dataset_search", "query"),),
        "<think>\nThe user asks about the refund policy. The format says Thought: then Action: then "
        "Action Input:. Action: dataset_search should work.\n</think>\n\n"
        'Thought: I should search the knowledge base.\nAction: dataset_search\nAction Input: {"query": "refund policy"}',
        calls=[("dataset_search", {"query": "refund policy"})],
        hidden=("The user asks",),
        only=REACT,
    ),
    # the same report: the thinking ends in the answer (rebuilt)
    "dify21362-r1-8b-react-words-in-think-then-answer": Case(
        (tool("dataset_search", "query"),),
        "<think>\nThought: I already know. Action: none needed.\n</think>\n\n"
        "Thought: I can answer directly.\nFinal Answer: Refunds are accepted within 30 days.",
        answer="Refunds are accepted within 30 days.",
        hidden=("none needed",),
        only=REACT,
    ),
    # langgenius/dify-official-plugins#1423: gpt-oss:20b on Ollama in a ReAct agent node, its reasoning
    # in reasoning_content and the step in the content (rebuilt from the report's setup)
    "difyplugins1423-gpt-oss-20b-step-after-reasoning": Case(
        (SEARCH,),
        'Thought: I need current data.\nAction: search\nAction Input: {"query": "gpt-oss release"}',
        reasoning="We need to search. Use the search tool.",
        calls=[("search", {"query": "gpt-oss release"})],
        hidden=("Use the search tool",),
        only=REACT,
    ),
    # the same report: the Harmony channels left in the content by a server without their parser
    # (rebuilt)
    "difyplugins1423-gpt-oss-20b-harmony-final-step": Case(
        (SEARCH,),
        "<|channel|>analysis<|message|>User greets. No tool needed.<|end|>"
        "<|start|>assistant<|channel|>final<|message|>Thought: No tool is needed.\nFinal Answer: Hello! How can I help?",
        answer="Hello! How can I help?",
        hidden=("User greets", "<|channel|>"),
        only=REACT,
    ),
    # ---- LlamaIndex, smolagents, from-scratch agents ----------------------------------------------------
    # run-llama/llama_index#19392: the model's reply holds thought, action, action input and answer
    # at once (rebuilt from the report): the action runs, the answer after it was made up
    "llamaindex19392-action-and-answer-in-one-reply": Case(
        (SEARCH,),
        "Thought: I need to look this up.\nAction: search\nAction Input: {\"query\": \"LlamaIndex 0.12.48\"}\n"
        "Observation: LlamaIndex 0.12.48 was released in July 2025.\nThought: I can answer.\n"
        "Answer: It was released in July 2025.",
        calls=[("search", {"query": "LlamaIndex 0.12.48"})],
        hidden=("released in July",),
        only=REACT,
    ),
    # pguso/ai-agents-from-scratch#26: the model answers with an Answer line and no Thought,
    # verbatim
    "aiagentsfromscratch26-answer-line-only": Case(
        (tool("add", "a", "b"), tool("divide", "a", "b"), tool("multiply", "a", "b")),
        "Answer: The average number of items sold per day is **15**, and the total revenue is **$360**.",
        answer="The average number of items sold per day is **15**, and the total revenue is **$360**.",
        only=REACT,
    ),
    # huggingface/smolagents PR #1915: DeepSeek R1 puts its reasoning in <think> before the step
    # (rebuilt from the PR's description)
    "smolagents1915-r1-think-before-final-answer": Case(
        (SEARCH,),
        "<think>\nThe question is simple arithmetic; 17 * 3 = 51.\n</think>\nThought: I can answer.\nFinal Answer: 51",
        answer="51",
        hidden=("simple arithmetic",),
        only=REACT,
    ),
    # the same PR: the reasoning block, then an action (rebuilt)
    "smolagents1915-r1-think-before-action": Case(
        (SEARCH,),
        "<think>\nI don't know the population; search.\n</think>\n"
        'Thought: I need to search.\nAction: search\nAction Input: {"query": "population of Lyon"}',
        calls=[("search", {"query": "population of Lyon"})],
        hidden=("I don't know",),
        only=REACT,
    ),
    # ---- pages: blogs and forum posts -------------------------------------------------------------------
    # https://theaterfi.re/post/3232381 (r/LocalLLaMA, "Notes on what actually breaks when you run a
    # coding agent on small local models"): qwen3.5:9b and gemma4:e4b wrap replies in code fences
    # although told not to (rebuilt: a ReAct step inside a fence)
    "localllama3232381-qwen35-9b-step-in-fence": Case(
        (tool("read_file", "path"),),
        "```\nThought: I need to read the file first.\nAction: read_file\nAction Input: {\"path\": \"src/app.py\"}\n```",
        calls=[("read_file", {"path": "src/app.py"})],
        only=REACT,
    ),
    # the same post: the JSON action in a ```json fence (rebuilt)
    "localllama3232381-gemma4-e4b-json-action-in-fence": Case(
        (tool("read_file", "path"),),
        'Thought: I need to read the file first.\n```json\n{"action": "read_file", "action_input": {"path": "src/app.py"}}\n```',
        calls=[("read_file", {"path": "src/app.py"})],
        only=REACT,
    ),
    # https://shifengbin.github.io/posts/ai/agent-react (a from-scratch ReAct agent whose parser maps
    # a plain Action Input to the tool's one parameter): a calculator step with a bare expression
    # (rebuilt)
    "shifengbin-bare-input-for-one-parameter-tool": Case(
        (tool("calculator", "expression"),),
        "Thought: I need to compute it.\nAction: calculator\nAction Input: 15 * 23 + 45",
        calls=[("calculator", {"expression": "15 * 23 + 45"})],
        only=REACT,
    ),
    # https://deepwiki.com/junjiem/dify-plugin-agent-mcp_sse/3.3-output-parsing (a Dify ReAct plugin's
    # parser reads actions from code blocks): the action as a fenced JSON block after the Thought
    # (rebuilt)
    "mcpsse-deepwiki-action-json-code-block": Case(
        (tool("get_current_time", "timezone"),),
        'Thought: I need the time.\nAction:\n```\n{"action": "get_current_time", "action_input": {"timezone": "Asia/Shanghai"}}\n```',
        calls=[("get_current_time", {"timezone": "Asia/Shanghai"})],
        only=REACT,
    ),
    # https://blog.gitcode.com/aa02aba6ea666aa2052e5d3f1200850d.html (DeepSeek-R1-Distill via Ollama
    # in Dify's ReAct agent does not work): the distilled model's </think> with no opening tag (its
    # template opens it), then the step (rebuilt)
    "gitcode-r1-distill-bare-close-think-then-step": Case(
        (SEARCH,),
        "The user wants today's news; I should search.\n</think>\n\n"
        'Thought: I need to search.\nAction: search\nAction Input: {"query": "today news"}',
        calls=[("search", {"query": "today news"})],
        hidden=("The user wants",),
        only=REACT,
    ),
    # https://juejin.cn/post/7566626899579944987 (a ReAct walk-through in Chinese): the Chinese labels
    # with full-width colons (rebuilt from the post's label names 思考/行动/观察)
    "juejin7566626-chinese-labels-fullwidth-colons": Case(
        (WEATHER,),
        "思考：用户想知道上海的天气，我需要调用天气工具。\n行动：get_weather\n行动输入：{\"city\": \"上海\"}",
        calls=[("get_weather", {"city": "上海"})],
        only=REACT,
    ),
    # the same post: the Chinese final answer (rebuilt)
    "juejin7566626-chinese-final-answer": Case(
        (WEATHER,),
        "思考：我已经知道答案了。\n最终答案：上海今天多云，气温22摄氏度。",
        answer="上海今天多云，气温22摄氏度。",
        only=REACT,
    ),
    # https://itniuma.com/course/prompt-engineering/chapter14/14.2.html (a prompt course's ReAct
    # template: "Action: 工具名称" / "Action Input: 工具参数"): the step with a YAML-like input, one
    # key a line (rebuilt)
    "itniuma-action-input-key-per-line": Case(
        (tool("sql_query", "database", "sql"),),
        "Thought: 需要查询订单数量。\nAction: sql_query\nAction Input:\ndatabase: shop\nsql: SELECT COUNT(*) FROM orders",
        calls=[("sql_query", {"database": "shop", "sql": "SELECT COUNT(*) FROM orders"})],
        only=REACT,
    ),
    # https://hey99.cn/shot/JUE_JIN_7623093725145841679 (a juejin post on the ReAct pattern, 2026):
    # labels written after an emoji, as models copy a prompt that shows them so (the post's trace)
    "juejin7623093-emoji-before-labels-action": Case(
        (WEATHER,),
        "💭 Thought: 用户需要根据天气做决策。我需要先获取天气信息。\n🔧 Action: get_weather(\"北京\")",
        calls=[("get_weather", {"city": "北京"})],
        only=REACT,
    ),
    # the same post: the emoji-marked answer step (the post's trace, shortened)
    "juejin7623093-emoji-before-labels-answer": Case(
        (WEATHER,),
        "💭 Thought: 我找到了3个适合拍照的公园。可以推荐给用户了。\n✅ Answer: 北京今天天气晴朗,温度22℃。",
        answer="北京今天天气晴朗,温度22℃。",
        only=REACT,
    ),
}


GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md
}


test_real_world_reply = reply_test(CASES, GAPS, read)
