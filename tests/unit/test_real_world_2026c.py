"""A third set of real-world model outputs and stream shapes, quoted from public bug reports,
pull requests and vendor documents, through both strategies' turn readers (``test_real_world_2026``
drives them: the text whole and in pieces of 1 and 7 characters, the reasoning sent first as
``reasoning_content``). Sources the first two passes did not use: ChatGLM3, Qwen-Agent, Doubao
(Volcengine Ark), Xinference, Tongyi through LangChain and Dify's tongyi plugin, hello-agents'
Chinese ReAct runs, n8n, PostHog.

Each case names its source beside it; docs/real-world-cases.md lists them by id. Outputs are
quoted as the source shows them; where a case is shortened or rebuilt from a format the source
documents, its comment says so.
"""

import pytest

from tests.unit.test_real_world_2026 import END, Case, check, check_tool_call_stream, delta, read, reply_params, tool

CASES = {
    # ---- ChatGLM3: the tool's name on a line, then tool_call(...) in a python fence -------------
    # zai-org/ChatGLM3 PR #526: the streamed reply of openai_api_demo, verbatim (the space before
    # the fence included) (fixed: text_calls reads it)
    "chatglm3pr526-name-above-tool-call-fence": Case(
        (tool("get_current_weather", "location", "unit"),),
        "get_current_weather\n ```python\ntool_call(location='Beijing', unit='celsius')\n```",
        calls=[("get_current_weather", {"location": "Beijing", "unit": "celsius"})],
        hidden=("tool_call(",),
    ),
    # zai-org/ChatGLM3#1164: the demo splits a reply on "<|assistant|>", the line after it being the
    # call's name; a server that passes the token on leaves it before the name (rebuilt from the
    # PR #526 reply and #138's arguments) (fixed)
    "chatglm3-1164-assistant-token-before-name": Case(
        (tool("get_current_weather", "location", "unit"),),
        "<|assistant|>get_current_weather\n```python\ntool_call(location='郑州', unit='celsius')\n```",
        calls=[("get_current_weather", {"location": "郑州", "unit": "celsius"})],
        hidden=("tool_call(", "<|assistant|>"),
    ),
    # ---- Qwen-Agent's ✿FUNCTION✿ and Qwen served through it ---------------------------------------
    # QwenLM/Qwen-Agent#133: under a long prompt the model leaves out ✿ARGS✿ and writes
    # "✿FUNCTION✿ name, {'param': xxx}" (the report's placeholders filled with a tool and a value)
    # (fixed: call_markup reads the object after the comma)
    "qwenagent133-function-without-args-mark": Case(
        (tool("get_weather", "location"),),
        "✿FUNCTION✿ get_weather, {'location': '北京'}",
        calls=[("get_weather", {"location": "北京"})],
        hidden=("✿",),
    ),
    # QwenLM/Qwen-Agent#674: DeepSeek R1 behind Qwen-Agent writes a JSON call between DeepSeek's
    # tool tokens (the report's "{...}" filled with one argument)
    "qwenagent674-deepseek-tokens-around-json": Case(
        (tool("function_name", "a"),),
        "<｜tool▁calls▁begin｜>\n<｜tool▁call▁begin｜>\n{\"name\": \"function_name\", \"parameters\": {\"a\": 1}}\n"
        "<｜tool▁call▁end｜>\n<｜tool▁calls▁end｜><｜end▁of▁sentence｜>",
        calls=[("function_name", {"a": 1})],
        hidden=("tool▁",),
    ),
    # QwenLM/Qwen-Agent#734: a <tool_call> never closed, a call without arguments (a parser that
    # cut a fixed length off kept an extra "}")
    "qwenagent734-unclosed-tool-call-empty-arguments": Case(
        (tool("xxx"),),
        '.....<tool_call>\n{"name": "xxx", "arguments": {}}\n',
        calls=[("xxx", {})],
    ),
    # ---- Doubao (Volcengine Ark): <|FunctionCallBegin|>[...]<|FunctionCallEnd|> -------------------
    # Doubao's text form of a call, left in the content when Ark does not read it; the reply is the
    # one a public Go project's test (TestCollectEvents_PseudoToolCallRejected) quotes, with the
    # form's "<|...|>" tokens (fixed: call_markup reads the form after a sentence too)
    "doubao-functioncallbegin-after-plan": Case(
        (tool("search_paper", "query"),),
        '1. 首先需要明确用户所指的"他们"对应的具体论文研究\n2. 调用search_paper检索当前论文中的核心创新点相关内容 '
        '<|FunctionCallBegin|>[{"name":"search_paper","parameters":{"query":"论文核心创新点"}}]<|FunctionCallEnd|>',
        calls=[("search_paper", {"query": "论文核心创新点"})],
        hidden=("FunctionCall", '"parameters"'),
    ),
    # ---- ReAct text in Chinese ----------------------------------------------------------------------
    # xorbitsai/inference PR #1098: Qwen's ReAct step with a Chinese thought, an empty input and an
    # invented observation (cut where the PR's quote is cut)
    "xinference1098-qwen-chinese-thought-empty-input": Case(
        (tool("current_time"),),
        '\nThought: 我需要调用current_time API来获取当前时间\nAction: current_time\nAction Input: {}\n'
        'Observation: {"current_time": "2023-04-0',
        calls=[("current_time", {})],
        only=("react",),
    ),
    # datawhalechina/hello-agents PR #97: gpt-4.1-mini writes the action as code, in Chinese
    "helloagents97-gpt41mini-action-as-code": Case(
        (tool("get_weather", "city"), tool("get_attraction", "city", "weather")),
        "Thought: 用户需要今天北京的天气信息，然后根据天气推荐一个适合的旅游景点。第一步先获取北京的实时天气。\n"
        'Action: get_weather(city="北京")\n',
        calls=[("get_weather", {"city": "北京"})],
        only=("react",),
    ),
    # datawhalechina/hello-agents#170: gpt-5-nano answers with finish(answer=...) in Chinese
    # (the thought and the answer shortened)
    "helloagents170-gpt5nano-finish-in-chinese": Case(
        (tool("Search", "query"),),
        "Thought: 需要提供截至目前我所掌握的信息。以下是简要结论。\n\n"
        'Action: finish(answer="截至我最新的信息，NVIDIA 的最新桌面显卡代是 RTX 40 系列（Ada Lovelace 架构）。")',
        answer="截至我最新的信息，NVIDIA 的最新桌面显卡代是 RTX 40 系列（Ada Lovelace 架构）。",
        only=("react",),
        hidden=("finish(",),
    ),
    # the same report's mixed form Finish[answer="xxxx"], verbatim
    "helloagents170-finish-bracket-with-answer-key": Case(
        (tool("Search", "query"),),
        'Action: Finish[answer="xxxx"]',
        answer="xxxx",
        only=("react",),
    ),
    # run-llama/llama_index#11608: a tool named in Chinese, which an ASCII-only name pattern missed
    # (the step rebuilt around the report's pattern)
    "llamaindex11608-chinese-tool-name": Case(
        (tool("天气查询", "city"),),
        'Thought: 我需要查询天气。\nAction: 天气查询\nAction Input: {"city": "北京"}',
        calls=[("天气查询", {"city": "北京"})],
        only=("react",),
    ),
    # PostHog/posthog PR #25903: the model wrote its plan under "Thought:" and nothing else; the
    # reply is re-prompted, never run nor shown as the answer (the plan shortened)
    "posthog25903-thought-only-plan": Case(
        (tool("retrieve_event_properties", "event_name"),),
        "Thought: \nTo filter out the US from all events, I need to apply the same property filter to each event "
        "in the series.\n\nEvents:\n- $pageview\n    - math operation: total count\n    - property filter:\n"
        "        - entity: event\n        - property name: $geoip_country_code\n        - property type: String\n"
        "        - operator: doesn't equal\n        - property value: US",
        fallback="",
        only=("react",),
    ),
    # ---- answers that are not calls ---------------------------------------------------------------
    # n8n-io/n8n#27726: an answer with JSON in a fence between two sentences stays the answer
    "n8n27726-json-answer-between-sentences": Case(
        (tool("search", "q"),),
        "Here's the analysis:\n\n```json\n{\"key\": \"value\", \"items\": [...]}\n```\n\nLet me know if you need anything else.",
        answer="Here's the analysis:\n\n```json\n{\"key\": \"value\", \"items\": [...]}\n```\n\nLet me know if you need anything else.",
    ),
    # ---- GLM-4.7 fallback forms -------------------------------------------------------------------
    # ml-explore/mlx-lm PR #792: GLM 4.7 Flash writes "name {json}" inside its <tool_call> (rebuilt
    # from the PR's list of forms)
    "mlxlm792-glm47-name-then-json-in-tool-call": Case(
        (tool("get_weather", "city"),),
        '<tool_call>get_weather {"city": "Paris"}</tool_call>',
        calls=[("get_weather", {"city": "Paris"})],
    ),
}


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize(("name", "strategy"), list(reply_params(CASES, {})))
def test_real_world_reply(name, strategy, size):
    case = CASES[name]
    streamed, turn = read(strategy, case, size)
    check(strategy, case, streamed, turn)


# ---- native tool-call streams -------------------------------------------------------------------


def text(content: str, **extra) -> dict:
    """One chunk dict carrying text (and ``extra`` message keys such as ``reasoning_content``)."""
    return {"model": "m", "delta": {"index": 0, "message": {"role": "assistant", "content": content, **extra},
                                    "finish_reason": None}}


STREAMS = {
    # langchain-ai/langchain-community PR #14: qwq-plus through Tongyi, reasoning first, then the
    # call's argument deltas with id "" and type "function" (the report's deltas, the last one
    # completed here); the tool's name carries a UUID prefix
    "langchaincommunity14-qwq-plus-empty-id-continuations": (
        [
            text("", reasoning_content="用户就能通过链接"),
            text("", reasoning_content="直接访问相关功能"),
            delta(index=0, id="call_caac3ec7675140c9b8a9db", type="function",
                  function={"name": "de3613cd-d705-48b1-9a0a-6a412d4b2590_LoginWithAppSimple", "arguments": '{"'}),
            delta(index=0, id="", type="function", function={"arguments": 'appkey": "'}),
            delta(index=0, id="", type="function", function={"arguments": 'appExlink",'}),
            delta(index=0, id="", type="function", function={"arguments": ' "resCode":'}),
            delta(index=0, id="", type="function", function={"arguments": ' "AqWeb'}),
            delta(index=0, id="", type="function", function={"arguments": '"}'}),
            END,
        ],
        "",
        [("de3613cd-d705-48b1-9a0a-6a412d4b2590_LoginWithAppSimple", {"appkey": "appExlink", "resCode": "AqWeb"})],
    ),
    # langgenius/dify-official-plugins#616: tongyi 0.0.14 asks DashScope for non-incremental output
    # with tools, so every chunk repeats the call's name and its arguments so far (rebuilt from the
    # report's description)
    "dop616-tongyi-repeated-name-cumulative-arguments": (
        [
            delta(index=0, id="call_1", type="function", function={"name": "get_current_weather", "arguments": '{"location":'}),
            delta(index=0, id="call_1", type="function",
                  function={"name": "get_current_weather", "arguments": '{"location": "杭州"'}),
            delta(index=0, id="call_1", type="function",
                  function={"name": "get_current_weather", "arguments": '{"location": "杭州"}'}),
            END,
        ],
        "",
        [("get_current_weather", {"location": "杭州"})],
    ),
    # Volcengine Ark's streaming response example for Doubao 1.5 (volcengine.com/docs/82379/1449722):
    # text, then one chunk with a "\n" content, the whole call and finish_reason "tool_calls"
    "volcengine1449722-doubao15-call-with-newline-content": (
        [
            text("从前"),
            {"model": "m", "delta": {"index": 0, "message": {"role": "assistant", "content": "\n", "tool_calls": [
                {"index": 0, "id": "call_leigeybrw25cwlk87byg8l3v", "type": "function",
                 "function": {"name": "AppFinder", "arguments": '{"prompt": "有道词典", "region": "CN"}'}}]},
                "finish_reason": "tool_calls"}},
        ],
        "从前",
        [("AppFinder", {"prompt": "有道词典", "region": "CN"})],
    ),
}


@pytest.mark.parametrize("name", list(STREAMS))
def test_real_world_tool_call_stream(name):
    check_tool_call_stream(*STREAMS[name])
