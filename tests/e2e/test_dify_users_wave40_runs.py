"""Wave 40: users' own reports (2024-2026) from the Chinese- and Japanese-speaking communities
about Dify's Agent node, its strategies and the model plugins behind it (Doubao, MiniMax, Qwen
on Tongyi and Xinference, GLM, DeepSeek on Volcengine, Llama and Qwen3 on Ollama), from
langgenius/dify, langgenius/dify-official-plugins, xorbitsai/inference,
xusenlinzy/api-for-open-llm, antvis/mcp-server-chart and Chinese Q&A and blog pages, none cited
by an earlier wave. Each is replayed through the real plugin process (the runner plays the
daemon) with scripted model turns and tools, or against a model plugin's contract backend, in
both strategies where the report applies, and asserts what the user needed. The table is in
docs/real-world-cases.md, "Users' reports, wave 40".
"""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from local_runner import ModelSettings, Scenario, default_toolbox, run_scenario
from local_runner.contracts import CONTRACTS
from local_runner.contracts.base import TaskBrain
from local_runner.tools import ToolParam, json_message, text_message
from tests.e2e.helpers import (
    STRATEGIES,
    answer_turn,
    assert_clean,
    assert_clean_end,
    call_turn,
    logs_json,
    observations,
    prompt_text,
    text_of,
    tool_named,
    tools_ran,
    weather_tool,
)
from tests.e2e.test_dify_users_wave39_runs import log_nodes, streamed
from tests.e2e.test_mcp_schemas_wave34_runs import mcp_tool

# --- model plugins: the calculator question against each plugin's contract ---------------------------------

CONTRACT_CASES = [
    # (report, contract, model as the user chose it)
    pytest.param("dify7669", "volcengine_maas", "doubao-pro-32k", id="dify7669-doubao"),
    pytest.param("dify4116", "minimax", "abab6.5s-chat", id="dify4116-minimax"),
    pytest.param("inference1644", "xinference", "glm4-chat", id="inference1644-glm4-xinference"),
    pytest.param("dify11010", "xinference", "qwen2-instruct", id="dify11010-qwen2-xinference"),
    pytest.param("plugins1258", "tongyi", "qwen-max-latest", id="plugins1258-qwen-max-latest"),
    pytest.param("api-for-open-llm295", "openai_api_compatible", "chatglm4", id="api-for-open-llm295-chatglm4"),
]


@pytest.mark.parametrize("report, contract, model", CONTRACT_CASES)
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_chinese_model_plugin_runs_the_tool_round(plugin, strategy, report, contract, model):
    """langgenius/dify#7669 (0.7.2, Doubao: "doubao tools call error"), langgenius/dify#4116
    (MiniMax: an error "when some tool is invoked"), xorbitsai/inference#1644 (GLM-4 on
    Xinference in Dify: the call went out, the round after it failed), langgenius/dify#11010
    (0.10.0, qwen2-instruct on Xinference: "Tool response dicts require a 'name' key indicating
    the name of the called function!"), langgenius/dify-official-plugins#1258 (1.5.1, Agent node
    with ``qwen-max-latest``: "[tongyi] ... [models] Error: 'description'") and
    xusenlinzy/api-for-open-llm#295 (chatglm4 behind an OpenAI-compatible server: "the tools
    did not take effect"). The calculator question against each plugin's contract backend:
    nothing is refused, the tool runs once with the model's input, and the node answers with
    its result; in Function Calling the round-2 tool message names the tool it answers."""
    backend, result = model_run(plugin, contract, strategy, model)
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert tools_ran(result) == [("calculator", {"expression": "37 * 91"})], report
    assert "3367" in result.text
    if strategy == "function_calling":
        assert result.llm_requests[0]["tools"], "the tools were not declared to the model"
        (tool_message,) = [m for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "tool"]
        assert tool_message.get("name") == "calculator" and tool_message.get("tool_call_id"), tool_message


def model_run(plugin, contract: str, strategy: str, model: str):
    """``run_contract`` with the user's model and that model's own settings: the contract's
    completion parameters (a thinking switch of its default model) are left out."""
    backend = CONTRACTS[contract](shape="stream")
    settings = CONTRACTS[contract].model_settings(stream=True) | {"model": model, "completion_params": {}}
    scenario = Scenario(query="What is 37 * 91?", tools=["calculator"], strategy=strategy, model=ModelSettings(**settings))
    return backend, run_scenario(scenario, backend, default_toolbox(), plugin=plugin, timeout=60)


UNDESCRIBED = {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
               "required": ["city"]}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_plugins1258_a_tool_without_descriptions_reaches_tongyi(plugin, strategy):
    """langgenius/dify-official-plugins#1258 (1.5.1, an Agent node on ``qwen-max-latest``
    failed with "[models] Error: 'description'"): the Tongyi plugin reads each tool's and each
    parameter's description when it converts the tools. An MCP tool that declares neither,
    against the Tongyi contract: nothing is refused, the declared tool and each of its
    parameters carry a description (text), the tool runs and the node answers."""
    tool = mcp_tool("forecast", "", UNDESCRIBED)
    tool.responses[:] = [text_message("杭州未来三天晴")]
    toolbox = default_toolbox()
    toolbox.add(tool)
    backend = CONTRACTS["tongyi"](shape="stream", brain=TaskBrain(tool="forecast", arguments={"city": "杭州", "days": 3}))
    settings = CONTRACTS["tongyi"].model_settings(stream=True) | {"model": "qwen-max-latest", "completion_params": {}}
    scenario = Scenario(query="杭州天气", tools=["forecast"], strategy=strategy, model=ModelSettings(**settings))
    result = run_scenario(scenario, backend, toolbox, plugin=plugin, timeout=60)
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert tools_ran(result) == [("forecast", {"city": "杭州", "days": 3})]
    if strategy == "function_calling":
        (declared,) = [t for t in result.llm_requests[0]["tools"] if t["name"] == "forecast"]
        assert isinstance(declared.get("description"), str), declared
        properties = declared["parameters"]["properties"]
        assert all(isinstance(p.get("description"), str) for p in properties.values()), properties
    assert "杭州未来三天晴" in result.text


# --- what the tool receives and what the model reads back -------------------------------------------------

COMPANY = "林德气体"
ESCAPED_ARGS = '{"company": "\\u6797\\u5fb7\\u6c14\\u4f53"}'
PROFILE = "已经根据您的喜好调整了推荐模式"


def test_dify8021_unicode_escaped_chinese_arguments_reach_the_tool_as_chinese(run):
    """langgenius/dify#8021 (0.7.0: custom tools with Chinese names and parameters; the model's
    arguments came as ``\\u672c\\u5706...`` escapes and the call's parameters were garbled) and
    langgenius/dify#6913 (qwen2-72B: escaped Chinese in a call's arguments and results confused
    the later rounds). A call whose arguments are JSON with ``\\u`` escapes: the tool receives
    the Chinese text, and its Chinese result reaches the model as Chinese, not escapes."""
    lookup = tool_named("company_lookup", [text_message(PROFILE)], ToolParam("company", description="公司名称"))
    turns = [{"tool_calls": [{"id": "call_1", "name": "company_lookup", "arguments": ESCAPED_ARGS}]},
             {"text": "林德气体的资料已查到。"}]
    result = run(turns, query="查一下林德气体", tools=[lookup])
    assert_clean(result, run)
    assert tools_ran(result) == [("company_lookup", {"company": COMPANY})]
    assert PROFILE in observations(result.llm_requests[1])[0]
    assert "\\u5df2" not in prompt_text(result.llm_requests[1])


def test_dify8021_react_action_input_with_escapes_reaches_the_tool_as_chinese(run):
    """langgenius/dify#8021, ReAct: an action input written with ``\\u`` escapes; the tool
    receives the Chinese text and the observation the model reads is Chinese."""
    text = ('Thought: 查询公司。\nAction:\n```json\n{"action": "company_lookup", "action_input": '
            + ESCAPED_ARGS + "}\n```")
    lookup = tool_named("company_lookup", [text_message(PROFILE)], ToolParam("company", description="公司名称"))
    result = run([{"text": text}, answer_turn("ReAct", "林德气体的资料已查到。")], query="查一下林德气体",
                 strategy="ReAct", tools=[lookup])
    assert_clean(result, run)
    assert tools_ran(result) == [("company_lookup", {"company": COMPANY})]
    assert PROFILE in observations(result.llm_requests[1])[0]


FULL_WIDTH_ARGS = '{"company"："林德气体"}'


def test_a_key_written_with_a_full_width_colon_runs_in_both_strategies(run):
    """The wave's probe (no report of its own): a model writing Chinese types the key's colon
    full-width (``{"company"："林德气体"}``), in a native call's arguments and in a ReAct action
    input; the tool receives the company, where before the call was refused as not JSON."""
    lookup = tool_named("company_lookup", [text_message(PROFILE)], ToolParam("company", description="公司名称"))
    native = [{"tool_calls": [{"id": "call_1", "name": "company_lookup", "arguments": FULL_WIDTH_ARGS}]},
              {"text": "林德气体的资料已查到。"}]
    step = 'Thought: 查询公司。\nAction: company_lookup\nAction Input: ' + FULL_WIDTH_ARGS
    steps = [{"text": step}, answer_turn("ReAct", "林德气体的资料已查到。")]
    for strategy, turns in (("function_calling", native), ("ReAct", steps)):
        result = run(turns, query="查一下林德气体", strategy=strategy, tools=[lookup])
        assert_clean(result, run)
        assert tools_ran(result) == [("company_lookup", {"company": COMPANY})], strategy


NAME_CONTRACTS = ["openai", "tongyi", "deepseek", "zhipuai", "volcengine_maas", "moonshot", "siliconflow", "xinference",
                  "ollama", "gemini", "anthropic"]


@pytest.mark.parametrize("contract", NAME_CONTRACTS)
def test_dify8021_a_tool_named_in_chinese_runs_on_each_model_plugin(plugin, contract):
    """langgenius/dify#8021 (custom tools "with both tool names and parameters in Chinese").
    A tool named ``查询天气`` with the parameter ``城市``, against each model plugin's contract
    in Function Calling: nothing is refused, and the tool runs with the model's Chinese input
    under its own name."""
    tool = tool_named("查询天气", [text_message("晴")], ToolParam("城市", description="城市名"))
    toolbox = default_toolbox()
    toolbox.add(tool)
    backend = CONTRACTS[contract](shape="stream", brain=TaskBrain(tool="查询天气", arguments={"城市": "北京"}))
    scenario = Scenario(query="北京天气", tools=["查询天气"], strategy="function_calling",
                        model=ModelSettings(**CONTRACTS[contract].model_settings(stream=True)))
    result = run_scenario(scenario, backend, toolbox, plugin=plugin, timeout=60)
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert tools_ran(result) == [("查询天气", {"城市": "北京"})]
    assert "晴" in result.text


MANY_TOOLS = [tool_named(f"tool_{n}", [text_message(f"tool {n} done")], ToolParam("q")) for n in range(5)]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_plugins581_chinese_parameters_reach_the_tool_unchanged_with_many_tools(run, strategy):
    """langgenius/dify-official-plugins#581 (1.1.1, Agent node on Xinference: "function call may
    change Chinese parameter content", more often the more tools the node had). With six tools
    declared, a call whose input is a Chinese address with full-width punctuation: the tool
    receives it character for character."""
    address = "上海市浦东新区世纪大道１００号（环球金融中心）７５楼"
    geo = tool_named("geocode", [text_message("31.23,121.50")], ToolParam("address"))
    result = run([call_turn(strategy, "geocode", {"address": address}), answer_turn(strategy, "坐标是 31.23,121.50。")],
                 query=f"{address} 的坐标？", strategy=strategy, tools=[*MANY_TOOLS, geo],
                 model={"provider": "langgenius/xinference/xinference", "model": "qwen2.5-instruct"})
    assert_clean(result, run)
    assert tools_ran(result) == [("geocode", {"address": address})]


PAYLOAD = '{\n  "data": [{"id": "123", "description": "Line1\\nLine2"}, {"id": "456", "description": "Path\\\\to\\\\file"}]\n}'


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify6208_a_json_string_input_reaches_a_workflow_tool_intact(run, strategy):
    """langgenius/dify#6208 (0.6.13: a workflow published as a tool with a paragraph input; a JSON
    string with escaped newlines and backslashes sent by the agent failed). The tool's string
    parameter receives the JSON text exactly as the model wrote it, escapes and all."""
    flow = tool_named("import_records", [text_message("2 records imported")], ToolParam("payload"))
    result = run([call_turn(strategy, "import_records", {"payload": PAYLOAD}), answer_turn(strategy, "Imported 2.")],
                 query="Import these records.", strategy=strategy, tools=[flow])
    assert_clean(result, run)
    assert tools_ran(result) == [("import_records", {"payload": PAYLOAD})]
    assert json.loads(tools_ran(result)[0][1]["payload"])["data"][1]["description"] == "Path\\to\\file"


def test_dify6895_two_calls_in_one_round_reach_qwen_in_order(run):
    """langgenius/dify#6895 (0.6.14, ``qwen-max`` agent: after several tools ran in one answer,
    the next request failed). Two calls in one round on Tongyi's ``qwen-max``: both run, and the
    round-2 request has one assistant message with both calls followed by the two results, each
    with its call's id, in the calls' order."""
    turns = [{"tool_calls": [{"id": "call_a", "name": "get_weather", "arguments": {"city": "北京"}},
                             {"id": "call_b", "name": "get_weather", "arguments": {"city": "上海"}}]},
             {"text": "北京和上海都是晴天。"}]
    result = run(turns, query="北京和上海的天气", tools=[weather_tool()],
                 model={"provider": "langgenius/tongyi/tongyi", "model": "qwen-max"})
    assert_clean(result, run)
    assert [p["city"] for _, p in tools_ran(result)] == ["北京", "上海"]
    messages = result.llm_requests[1]["prompt_messages"]
    (at,) = [i for i, m in enumerate(messages) if m["role"] == "assistant" and m.get("tool_calls")]
    assert [c["id"] for c in messages[at]["tool_calls"]] == ["call_a", "call_b"]
    assert [(m["role"], m.get("tool_call_id")) for m in messages[at + 1:at + 3]] == [("tool", "call_a"), ("tool", "call_b")]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_nacos34_an_object_for_a_json_string_parameter_reaches_the_tool_as_json_text(run, strategy):
    """nacos-group/nacos-mcp-router#34 (2025-07, Qwen3-32B: the router's ``use_tool`` wants its
    ``params`` as a JSON string; the model often wrote an object and the call failed with
    "{'file_surfix': 'png'} is not of type 'string'"). An MCP tool whose ``params`` is a string,
    called with an object there: the tool receives the object as JSON text."""
    schema = {"type": "object", "required": ["mcpServerName", "params"], "properties": {
        "mcpServerName": {"type": "string"}, "params": {"type": "string", "description": "工具参数，JSON 字符串"}}}
    router = mcp_tool("use_tool", "Use a tool of an MCP server", schema)
    result = run([call_turn(strategy, "use_tool", {"mcpServerName": "image", "params": {"file_surfix": "png"}}),
                  answer_turn(strategy, "已转换为 png。")], query="转成 png", strategy=strategy, tools=[router])
    assert_clean(result, run)
    (ran,) = tools_ran(result)
    assert ran[1]["mcpServerName"] == "image" and json.loads(ran[1]["params"]) == {"file_surfix": "png"}, ran


ROWS = [{"id": 1, "name": "张三"}, {"id": 2, "name": "李四"}]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_csdn9266793_a_custom_tools_json_rows_reach_the_model(run, strategy):
    """ask.csdn.net/questions/9266793 (2026-02: a custom database tool ran and its output showed,
    "but the agent did not react to my result, as if it never went back to the LLM"; the tool
    returned a bare JSON array). A tool answering with a JSON list of rows: the model's next
    request holds every row, and the node answers from it."""
    db = tool_named("query_db", [json_message(ROWS)], ToolParam("sql"))
    result = run([call_turn(strategy, "query_db", {"sql": "select id, name from users"}),
                  answer_turn(strategy, "共有两位用户：张三和李四。")], query="有哪些用户？", strategy=strategy, tools=[db])
    assert_clean(result, run)
    seen = observations(result.llm_requests[1])[0]
    assert "张三" in seen and "李四" in seen, seen
    assert result.text == "共有两位用户：张三和李四。"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_chart69_an_mcp_chart_tools_array_input_reaches_it_as_an_array(run, strategy):
    """antvis/mcp-server-chart#69 (2025-06, ReAct with the chart MCP server on Tongyi: the
    call failed with a 400 where a wrong-parameter error was expected). An MCP chart tool whose
    ``data`` is an array of objects: the tool receives the array and its objects as the model
    wrote them (not a string), and the node answers."""
    schema = {"type": "object", "required": ["data"], "properties": {
        "data": {"type": "array", "items": {"type": "object", "properties": {
            "category": {"type": "string"}, "value": {"type": "number"}}}},
        "title": {"type": "string"}}}
    chart = mcp_tool("generate_column_chart", "Generate a column chart", schema)
    data = [{"category": "一月", "value": 120}, {"category": "二月", "value": 95.5}]
    result = run([call_turn(strategy, "generate_column_chart", {"data": data, "title": "月销售额"}),
                  answer_turn(strategy, "图表已生成。")], query="画出一月和二月的销售额柱状图", strategy=strategy,
                 tools=[chart], model={"provider": "langgenius/tongyi/tongyi", "model": "qwen-max"})
    assert_clean(result, run)
    assert tools_ran(result) == [("generate_column_chart", {"data": data, "title": "月销售额"})]


# --- rounds, text calls, the answer ----------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_gitcode4c5451f_a_second_crawl_round_runs_and_the_node_answers(run, strategy):
    """blog.gitcode.com/4c5451f260191b9bd9412fb5e656405a.html (a crawling agent with Firecrawl
    in a workflow: "in the second round it directly output 'I am thinking about how to help
    you'"). Two crawl rounds then an answer: both crawls run, each page reaches the model, and
    the node's text is the answer, never the placeholder."""
    crawl = tool_named("firecrawl_scrape", [text_message("page 1: see /prices"), text_message("page 2: 价格 99 元")],
                       ToolParam("url"))
    turns = [call_turn(strategy, "firecrawl_scrape", {"url": "https://example.com"}, call_id="c1"),
             call_turn(strategy, "firecrawl_scrape", {"url": "https://example.com/prices"}, call_id="c2"),
             answer_turn(strategy, "价格是 99 元。")]
    result = run(turns, query="找到产品价格", strategy=strategy, tools=[crawl])
    assert_clean(result, run)
    assert [p["url"] for _, p in tools_ran(result)] == ["https://example.com", "https://example.com/prices"]
    assert "价格 99 元" in prompt_text(result.llm_requests[2])
    assert result.text == "价格是 99 元。"
    assert "thinking about how to help" not in streamed(result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_gitcode4c5451f_an_empty_round_after_a_crawl_is_not_a_silent_answer(run, strategy):
    """blog.gitcode.com/4c5451f260191b9bd9412fb5e656405a.html, the round after a crawl came back
    with nothing: the node does not end with an empty text or a placeholder; the model is asked
    again, and the user reads its answer."""
    crawl = tool_named("firecrawl_scrape", [text_message("page 1: see /prices")], ToolParam("url"))
    turns = [call_turn(strategy, "firecrawl_scrape", {"url": "https://example.com"}),
             {"text": ""}, answer_turn(strategy, "没有找到价格。")]
    result = run(turns, query="找到产品价格", strategy=strategy, tools=[crawl], maximum_iterations=3)
    assert_clean(result, run)
    assert result.text == "没有找到价格。", result.text
    assert "thinking about how to help" not in streamed(result)


def test_dify6879_llama31_on_ollama_writes_its_call_as_json_and_it_runs(run):
    """langgenius/dify#6879 (0.6.13, ``llama3.1:8b`` on Ollama with the code tool, asked
    "使用python程序计算1000以内除11余5的数的个数": it "just print[ed] code and no action").
    Llama 3.1 served without a tool parser writes the call as a ``{"name", "parameters"}``
    object in its content: the code tool runs with that code, and the chat never shows the
    object."""
    code = "print(len([n for n in range(1000) if n % 11 == 5]))"
    call = json.dumps({"name": "simple_code", "parameters": {"language": "python3", "code": code}})
    tool = tool_named("simple_code", [text_message("91")], ToolParam("language"), ToolParam("code"))
    result = run([{"text": call, "split": 7}, {"text": "1000以内除11余5的数共有 91 个。"}],
                 query="使用python程序计算1000以内除11余5的数的个数", tools=[tool],
                 model={"provider": "langgenius/ollama/ollama", "model": "llama3.1:8b"})
    assert_clean(result, run)
    assert tools_ran(result) == [("simple_code", {"language": "python3", "code": code})]
    assert '"parameters"' not in streamed(result), streamed(result)
    assert result.text == "1000以内除11余5的数共有 91 个。"


GLM4_CALLS = ['get_weather\n{"city": "北京"}', '\nget_weather\n{\n  "city": "北京"\n}\n']


@pytest.mark.parametrize("reply", GLM4_CALLS)
def test_api_for_open_llm295_glm4_9b_chats_own_call_format_runs(run, reply):
    """xusenlinzy/api-for-open-llm#295 (Dify 0.6.12 with ``glm-4-9b-chat`` behind an
    OpenAI-compatible server: "the tools did not take effect"). GLM-4-9B-Chat writes a call as
    the tool's name on one line and its JSON arguments below (how THUDM's own API server reads
    it) when the server passes its text on: the tool runs with those arguments and the chat
    never shows the call."""
    result = run([{"text": reply, "split": 4}, {"text": "北京晴。"}], query="北京天气", tools=[weather_tool()],
                 model={"provider": "langgenius/openai_api_compatible/openai_api_compatible", "model": "glm-4-9b-chat"})
    assert_clean(result, run)
    assert tools_ran(result) == [("get_weather", {"city": "北京"})]
    assert "get_weather" not in streamed(result) and result.text == "北京晴。"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_gitcode38ad4e1_deepseek_v3_on_volcengine_runs_without_its_schema(run, strategy):
    """blog.gitcode.com/38ad4e1dc496a5f062112046ea162e6a.html (an Agent node on
    ``deepseek-v3-250324``: "PluginInvokeError ... FunctionCallingParams model.entity" while the
    same model worked in an agent app). The model comes without its schema (``entity: null``):
    the tool runs and the node answers, in both strategies."""
    model = {"provider": "langgenius/volcengine_maas/volcengine_maas", "model": "deepseek-v3-250324", "entity": False}
    result = run([call_turn(strategy, "get_weather", {"city": "深圳"}), answer_turn(strategy, "深圳晴。")],
                 query="深圳天气", strategy=strategy, tools=[weather_tool()], model=model)
    assert_clean(result, run)
    assert tools_ran(result) == [("get_weather", {"city": "深圳"})]
    assert result.text == "深圳晴。"
    assert "ValidationError" not in json.dumps(result.messages)


def test_plugins1898_qwen3s_thinking_on_ollama_is_kept_out_of_the_answer_and_in_the_log(run):
    """langgenius/dify-official-plugins#1898 (1.9.1, ``qwen3:30b`` on Ollama: the thinking came
    in Ollama's ``thinking`` field, and Dify showed neither it nor ``<think>``). Thinking that
    reaches the strategy inside ``<think>``: the chat and the node's text are the answer
    alone, and the thinking is in the round's log, not lost."""
    reply = {"text": "<think>THINK-1898 用户只是打招呼。</think>你好！有什么可以帮你？", "split": 5}
    result = run([reply], query="你好", tools=[weather_tool()],
                 model={"provider": "langgenius/ollama/ollama", "model": "qwen3:30b"})
    assert_clean(result, run)
    assert result.text == "你好！有什么可以帮你？"
    assert "THINK-1898" not in streamed(result) and "<think>" not in streamed(result)
    assert "THINK-1898" in logs_json(result)


# --- knowledge, usage ------------------------------------------------------------------------------------


KNOWLEDGE = [{"title": "退货政策.md", "content": "KB-19646 商品签收后 7 天内可无理由退货。"}]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify19646_knowledge_given_to_the_agent_node_reaches_the_model(run, strategy):
    """langgenius/dify#19646 (2025-05: "Can LLM or Agent nodes ... support calling the knowledge
    base", the retrieved text had to reach the agent). Knowledge retrieval results given to the
    node as its context: the model's first request holds them, in both strategies, and the
    model may answer from them without a tool."""
    result = run([answer_turn(strategy, "签收后 7 天内可以退货。")], query="多久内可以退货？", strategy=strategy,
                 tools=[weather_tool()], context=KNOWLEDGE)
    assert_clean(result, run)
    assert "KB-19646" in prompt_text(result.llm_requests[0])
    assert result.text == "签收后 7 天内可以退货。"


USAGE = [{"prompt_tokens": 1000, "completion_tokens": 200}, {"prompt_tokens": 1500, "completion_tokens": 100}]
PRICING = {"input": "2", "output": "8", "unit": "0.000001", "currency": "RMB"}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify40498_the_node_reports_its_tokens_and_their_price(run, strategy):
    """langgenius/dify#40498 (2026-08: an agent node's output gave no usage, so the user could
    not bill each run) and langgenius/dify#37428 (1.14.0: "how to statistics token consumption
    of every agent"). Two rounds of 1,200 and 1,600 tokens on a model priced in RMB: the node's
    usage is their sum, with its price in the model's currency."""
    turns = [{**call_turn(strategy, "get_weather", {"city": "成都"}), "usage": USAGE[0]},
             {**answer_turn(strategy, "成都多云。"), "usage": USAGE[1]}]
    result = run(turns, query="成都天气", strategy=strategy, tools=[weather_tool()],
                 model={"pricing": PRICING})
    assert_clean(result, run)
    metadata = result.execution_metadata or {}
    assert metadata.get("total_tokens") == 2800, metadata
    expected = (Decimal(2500) * 2 + Decimal(300) * 8) * Decimal("0.000001")
    assert Decimal(str(metadata.get("total_price"))) == expected, metadata
    assert metadata.get("currency") == "RMB", metadata
    assert [n.status for n in log_nodes(result, "CALL get_weather")] == ["success"]
    assert text_of(result.llm_requests[0]["prompt_messages"][-1]["content"]).endswith("成都天气")
