"""A forty-seventh set of real-world cases, about text in other scripts: tool calls and answers in
Chinese, Japanese, Korean, Hebrew and German, with emoji and full-width punctuation. Public issues
and pull requests of model families and their servers (Qwen, GLM, Gemini, Llama 3 on vLLM, Kimi
K2), of agent frameworks and clients (Qwen-Agent, LiteLLM, LangChain, elizaOS, Coze Studio,
OpenAI's Agents SDK, Claude Code, graphify, json_repair, NextChat) and of Dify itself quote
replies where the model spelled the arguments' text as ``\\uXXXX`` escapes (one glitching mid-escape
into ``\\`` before a raw Hangul syllable), wrote a JSON object's quotes as the full-width ``“`` /
``”`` of Chinese text, left a Hebrew abbreviation's ASCII quote inside a JSON string, or where the
server resent a non-ASCII call's arguments unescaped after streaming them escaped, split an emoji's
two UTF-16 halves across two deltas, or handed on replacement characters and mojibake.

Replies are read through both strategies' turn readers, whole and in pieces of 1 and 7 characters
(``test_real_world_2026.reply_test``); streams start as SSE text and go through the model plugin's
conversion (``test_real_world_2026ae.plugin_chunks``). Each case names its source beside it;
docs/real-world-cases.md lists them. A text is quoted as the report shows it (trimmed where the
comment says so); where the report describes the output and its values were filled in, the
comment says "rebuilt". The tools are declared with string parameters.
"""

import pytest

from agent_core.json_args import curly_delimiters_oriented, loads_lenient
from agent_core.output_limit import is_broken_stream_reason
from agent_core.turn import FinalAnswer, ToolCalls
from tests.unit.test_real_world_2026 import Case, reply_test, tool
from tests.unit.test_real_world_2026ae import call_triples, ev, fn, plugin_chunks, read_fc, read_react, sse, tc
from tests.unit.test_real_world_2026d import read

ADD_CONTACT = tool("add_contact", "name", "phone_number", "email", "address", "birthday")
TEMPERATURE = tool("get_current_temperature", "location", "unit")
SEARCH = tool("search", "query")
SAVE_NOTE = tool("save_record", "note")
ADD_NODE = tool("add_node", "id", "label", "file_type")
RECORD_SOURCE = tool("record_source", "来源")

# QwenLM/Qwen3#1009: the text Qwen2.5-72B-Instruct wrote before its call (verbatim)
QWEN1009_TEXT = (
    "为了给您提供北京今天的天气信息，我需要先查询当前的温度。请问您需要摄氏度还是华氏度作为温度单位呢？\n"
    "如果没特别需求，默认我将使用摄氏度。\n如果您还需要其他天气信息（如湿度、风速等），也请告诉我。"
    "不过目前我只能提供温度信息，其他信息可能需要后续支持。\n现在，我将先查询北京今天的温度。\n"
)

# ChatGPTNextWeb/NextChat#4785: Gemini's Chinese markdown puts a full-width colon after bold text
# (rebuilt: the report's text is a screenshot)
NEXTCHAT4785_ANSWER = (
    "北京三日游的安排如下：\n\n**第一天**：故宫、景山公园。\n**第二天**：长城（八达岭）。\n"
    "**行动计划**：提前三天在网上预约故宫门票。\n**注意**：周一故宫闭馆。"
)

CASES = {
    # ---- arguments spelled as \uXXXX escapes -------------------------------------------------------
    # QwenLM/Qwen-Agent#358: Qwen wrote the address as escapes (the report's arguments verbatim, the
    # Python repr's doubled backslashes undone; the tool name without its "phone." prefix). The
    # escapes spell 海北市 where the user wrote 深圳市: the call runs with what the model wrote
    "qwenagent358-address-as-unicode-escapes": Case(
        (ADD_CONTACT,),
        "<tool_call>\n{\"name\": \"add_contact\", \"arguments\": {\"name\": \"Erica Zhang\", \"phone_number\": "
        "\"130 6666 8888\", \"email\": \"cnsupport@canva.com\", \"address\": \"\\u6d77\\u5317\\u5e02\\u5357\\u5c71"
        "\\u533a\\u91d1\\u8272\\u5546\\u4e1a\\u8857001\\u53f7\", \"birthday\": \"\"}}\n</tool_call>",
        calls=[("add_contact", {"name": "Erica Zhang", "phone_number": "130 6666 8888", "email": "cnsupport@canva.com",
                                "address": "海北市南山区金色商业街001号", "birthday": ""})],
        hidden=("<tool_call>", "\\u6d77"),
    ),
    # QwenLM/Qwen3#1009: Qwen2.5-72B-Instruct wrote text, then a call whose location is escaped (the
    # text verbatim; the call in Qwen's <tool_call> form, its arguments verbatim)
    "qwen3-1009-text-then-escaped-location": Case(
        (TEMPERATURE,),
        QWEN1009_TEXT + "<tool_call>\n{\"name\": \"get_current_temperature\", \"arguments\": {\"location\": "
        "\"\\u5317\\u4eac, \\u4e2d\\u56fd\", \"unit\": \"celsius\"}}\n</tool_call>",
        calls=[("get_current_temperature", {"location": "北京, 中国", "unit": "celsius"})],
    ),
    # langgenius/dify#6913: Qwen2 in a Dify agent wrote the user's "林德气体" as escapes spelling
    # "本圆气体" (the escapes verbatim; the ReAct step rebuilt around them): decoded, run as written
    "dify6913-qwen2-react-input-as-escapes": Case(
        (SEARCH,),
        "Thought: 我需要查询这家公司的信息。\nAction: search\nAction Input: {\"query\": \"\\u672c\\u5706\\u6c14\\u4f53\"}",
        calls=[("search", {"query": "本圆气体"})],
        only=("react",),
    ),
    # anthropics/claude-code#79339: the model broke off an escape and wrote `\` before the raw Hangul
    # syllable (`\로` for 로): the one invalid escape made the whole input unparsable (the escape
    # verbatim; the message around it rebuilt)
    "claudecode79339-backslash-before-a-raw-hangul-syllable": Case(
        (tool("invoke", "uri", "message"),),
        "<tool_call>\n{\"name\": \"invoke\", \"arguments\": {\"uri\": \"verbs://notes\", \"message\": "
        "\"thesingularity-reader 후속 수정으\\로 정리했습니다\"}}\n</tool_call>",
        calls=[("invoke", {"uri": "verbs://notes", "message": "thesingularity-reader 후속 수정으로 정리했습니다"})],
    ),
    # ---- quotes of other scripts in the JSON ------------------------------------------------------
    # Graphify-Labs/graphify#2286: on a Chinese corpus the model wrote the JSON's own quotes as “ and ”,
    # a value's closing one as “ and the next key's opening one as ” (the report's first 200 characters,
    # trimmed after "file_type" and closed)
    "graphify2286-fullwidth-quotes-as-json-quotes": Case(
        (ADD_NODE,),
        "Thought: 记录这个节点。\nAction: add_node\nAction Input: {“id”:“0024_worker_core_protocol”,“label”:"
        "“ADR 0024: worker–core 协议（含 DynamoDB events-out 传输）“,”file_type”:“document”}",
        calls=[("add_node", {"id": "0024_worker_core_protocol",
                             "label": "ADR 0024: worker–core 协议（含 DynamoDB events-out 传输）",
                             "file_type": "document"})],
        only=("react",),
    ),
    # mangiucugna/json_repair#88: a key in Chinese quotes, a value holding Chinese quotes and 、 (the
    # report's pair verbatim, in braces)
    "jsonrepair88-chinese-quoted-key-and-quotes-in-the-value": Case(
        (RECORD_SOURCE,),
        "Thought: 保存来源。\nAction: record_source\nAction Input: {“来源”:\"不仅有“咖啡、葡萄”还有百年孤独\"}",
        calls=[("record_source", {"来源": "不仅有“咖啡、葡萄”还有百年孤独"})],
        only=("react",),
    ),
    # sgl-project/sglang PR #39809: Hebrew abbreviations write gershayim as an ASCII quote (סה"כ,
    # ש"ח) inside a JSON string (the abbreviations verbatim; the note rebuilt)
    "sglang39809-hebrew-gershayim-quote-inside-a-string": Case(
        (SAVE_NOTE,),
        "<tool_call>\n{\"name\": \"save_record\", \"arguments\": {\"note\": \"סה\"כ 300 ש\"ח\"}}\n</tool_call>",
        calls=[("save_record", {"note": "סה\"כ 300 ש\"ח"})],
    ),
    # ---- answers ------------------------------------------------------------------------------------
    # ChatGPTNextWeb/NextChat#4785: a Chinese answer with a full-width colon after bold words, one of
    # them starting with 行动 (rebuilt): the answer is shown whole, nothing runs
    "nextchat4785-bold-words-and-fullwidth-colons-in-an-answer": Case(
        (SEARCH,), NEXTCHAT4785_ANSWER, answer=NEXTCHAT4785_ANSWER,
    ),
}

GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md
}

test_real_world_reply = reply_test(CASES, GAPS, read)


# ---- tool-call streams through the model plugin, Function Calling ----------------------------------
# name: (SSE body, tools, text shown, [(name, arguments)])

CALL_STREAMS = {
    # vllm-project/vllm PR #30920: GLM-4's two calls through vLLM, the cities escaped (the PR's
    # "main" arguments verbatim)
    "vllm30920-glm4-two-calls-escaped-cities": (
        sse(
            ev(role="assistant", content=None, tool_calls=[
                tc(index=0, id="chatcmpl-tool-a206a0a9cae7c285", type="function",
                   function=fn("get_weather", '{"city": "\\u5317\\u4eac", "date": "2024-06-27"}'))]),
            ev(tool_calls=[tc(index=1, id="chatcmpl-tool-9b1f3dc7e2f41093", type="function",
                              function=fn("get_weather", '{"city": "\\u4e0a\\u6d77", "date": "2024-06-27"}'))]),
            ev("tool_calls"),
        ),
        ["get_weather"], "",
        [("get_weather", {"city": "北京", "date": "2024-06-27"}), ("get_weather", {"city": "上海", "date": "2024-06-27"})],
    ),
    # BerriAI/litellm#16533: Gemini's Japanese arguments through LiteLLM, every character escaped, the
    # full-width ？ too (the reported arguments verbatim; they spell "ことで" where the report's
    # expected text has "ことに": the escapes are read as written)
    "litellm16533-gemini-japanese-arguments-escaped": (
        sse(
            ev(role="assistant", content=None, tool_calls=[tc(index=0, id="call_1", type="function", function=fn(
                "welcome_message",
                '{"action": "iPhone\\u3084iPad\\u306a\\u3069\\u3001Apple\\u88fd\\u54c1\\u306b\\u3064\\u3044\\u3066\\u3069'
                '\\u306e\\u3088\\u3046\\u306a\\u3053\\u3068\\u3067\\u304a\\u56f0\\u308a\\u3067\\u3059\\u304b\\uff1f", '
                '"nudge": "Apple\\u88fd\\u54c1\\u306b\\u3064\\u3044\\u3066\\u3001\\u30c6\\u30af\\u30cb\\u30ab\\u30eb'
                '\\u30b5\\u30dd\\u30fc\\u30c8\\u306b\\u4eca\\u3059\\u3050\\u76f8\\u8ac7\\u53ef\\u80fd\\u3067\\u3059'
                '\\u3002"}'))]),
            ev("tool_calls"),
        ),
        ["welcome_message"], "",
        [("welcome_message", {"action": "iPhoneやiPadなど、Apple製品についてどのようなことでお困りですか？",
                              "nudge": "Apple製品について、テクニカルサポートに今すぐ相談可能です。"})],
    ),
    # langchain-ai/langchain-google PR #1804 (#1789): Korean arguments as escapes (verbatim), here
    # streamed in pieces that cut an escape in two (rebuilt)
    "langchaingoogle1804-korean-escapes-cut-mid-escape": (
        sse(
            ev(role="assistant", content=None, tool_calls=[tc(index=0, id="call_1", type="function",
                                                               function=fn("translate", '{"text": "\\uc548\\ub1'))]),
            ev(tool_calls=[tc(index=0, function=fn(arguments='55\\ud558\\uc1'))]),
            ev(tool_calls=[tc(index=0, function=fn(arguments='38\\uc694"}'))]),
            ev("tool_calls"),
        ),
        ["translate"], "", [("translate", {"text": "안녕하세요"})],
    ),
    # vllm-project/vllm#17703 (and PR #13826): llama3_json streamed a call's arguments escaped, then
    # sent the whole arguments again unescaped when the stream ended (rebuilt from the reports'
    # descriptions; the query verbatim)
    "vllm17703-escaped-arguments-then-the-whole-again-unescaped": (
        sse(
            ev(role="assistant", content=None, tool_calls=[tc(index=0, id="chatcmpl-tool-1", type="function",
                                                               function=fn("get_current_weather", ""))]),
            ev(tool_calls=[tc(index=0, function=fn(arguments='{"city": "M\\u00fcnster", '))]),
            ev(tool_calls=[tc(index=0, function=fn(arguments='"unit": "celsius"}'))]),
            ev(tool_calls=[tc(index=0, function=fn(arguments='{"city": "Münster", "unit": "celsius"}'))]),
            ev("tool_calls"),
        ),
        ["get_current_weather"], "", [("get_current_weather", {"city": "Münster", "unit": "celsius"})],
    ),
    # elizaOS/eliza#30904: a provider spelled an emoji as a JSON escape pair; here the pair is cut
    # between two argument deltas (rebuilt)
    "eliza30904-escaped-emoji-pair-cut-between-deltas": (
        sse(
            ev(role="assistant", content=None, tool_calls=[tc(index=0, id="call_1", type="function",
                                                               function=fn("reply", '{"replyText": "做得好 \\ud83d'))]),
            ev(tool_calls=[tc(index=0, function=fn(arguments='\\ude00 继续加油"}'))]),
            ev("tool_calls"),
        ),
        ["reply"], "", [("reply", {"replyText": "做得好 😀 继续加油"})],
    ),
    # anthropics/claude-code#79339's glitch in a native call: `\` before a raw Hangul syllable (rebuilt)
    "claudecode79339-backslash-before-hangul-native": (
        sse(
            ev(role="assistant", content=None, tool_calls=[tc(index=0, id="call_1", type="function",
                                                               function=fn("invoke", '{"message": "수정으\\'))]),
            ev(tool_calls=[tc(index=0, function=fn(arguments='로 정리"}'))]),
            ev("tool_calls"),
        ),
        ["invoke"], "", [("invoke", {"message": "수정으로 정리"})],
    ),
    # coze-dev/coze-studio#328: Kimi-K2 said it would look the time up, then called the tool (the
    # text verbatim; the call rebuilt): the call runs, the text is shown
    "coze328-kimi-k2-chinese-text-then-call": (
        sse(
            ev(role="assistant", content="我来为您查询当前时间"),
            ev(tool_calls=[tc(index=0, id="get_current_time:0", type="function", function=fn("get_current_time", "{}"))]),
            ev("tool_calls"),
        ),
        ["get_current_time"], "我来为您查询当前时间", [("get_current_time", {})],
    ),
    # kekzl/imp#1554: a server cut the arguments' UTF-8 on byte boundaries and sent U+FFFD for the
    # halves (the reassembled text verbatim, shortened): the call runs with what arrived, nothing
    # else lost
    "imp1554-replacement-characters-in-the-arguments": (
        sse(
            ev(role="assistant", content=None, tool_calls=[tc(index=0, id="call_1", type="function",
                                                               function=fn("note", '{"text": "ueber 48 Byte '))]),
            ev(tool_calls=[tc(index=0, function=fn(arguments='hinausgeht: Ä��Üäöüß"}'))]),
            ev("tool_calls"),
        ),
        ["note"], "", [("note", {"text": "ueber 48 Byte hinausgeht: Ä��Üäöüß"})],
    ),
    # openai/openai-agents-python#315: gpt-4o's argument with a curly apostrophe arrived as mojibake
    # (the report's text verbatim): the call runs with the text as it came, the plugin does not guess
    "openaiagents315-mojibake-apostrophe-kept-as-sent": (
        sse(
            ev(role="assistant", content=None, tool_calls=[tc(index=0, id="call_1", type="function",
                                                               function=fn("write_script", '{"script": "Alright, now '
                                                                           'letÃ¢ÂÂs break it down!"}'))]),
            ev("tool_calls"),
        ),
        ["write_script"], "", [("write_script", {"script": "Alright, now letÃ¢ÂÂs break it down!"})],
    ),
}


@pytest.mark.parametrize("name", list(CALL_STREAMS))
def test_real_world_call_stream_through_the_plugin(name):
    body, tools, shown, expected = CALL_STREAMS[name]
    streamed, turn = read_fc(plugin_chunks(body), tools)
    assert streamed.strip() == shown
    assert [(n, a) for _, n, a in call_triples(turn)] == expected


# sigoden/llm-functions#158: deepseek-chat's arguments went on after the closed object with a fence
# and an Arabic word (the arguments verbatim)
LLMFUNCTIONS158 = sse(
    ev(role="assistant", content=None, tool_calls=[tc(index=0, id="call_0", type="function", function=fn(
        "get_current_weather", '{"location":"Berlin"}\n``` مواليد'))]),
    ev("tool_calls"),
)


def test_llmfunctions158_words_after_the_arguments_object_are_not_dropped_unsaid():
    """A word after the arguments' closed object (``\u0645\u0648\u0627\u0644\u064a\u062f``) would be
    lost if the object alone ran: the call does not run on a guess, and the model is told what
    would be lost (the trust rule of ``json_args.repair_problem``), its raw arguments kept."""
    streamed, turn = read_fc(plugin_chunks(LLMFUNCTIONS158), ["get_current_weather"])
    assert streamed == ""
    assert isinstance(turn.decision, ToolCalls) and not turn.decision.calls
    (bad,) = turn.decision.invalid
    assert bad.name == "get_current_weather" and "مواليد" in bad.error
    assert bad.raw_arguments == '{"location":"Berlin"}\n``` مواليد'


# ---- answer streams through the model plugin, both strategies ---------------------------------------

# elie222/rakazo#416: a delta ended with the high half of an emoji (\ud83d) and the next began with
# the low half (the half verbatim; the text rebuilt)
RAKAZO416 = sse(
    ev(role="assistant", content="好的，已经帮你订好了 "),
    ev(content="\ud83d"),
    ev(content="\ude00 祝旅途愉快！"),
    ev("stop", content=""),
)


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_rakazo416_a_lone_surrogate_ends_the_stream_and_says_so(strategy):
    """elie222/rakazo#416 through the OpenAI-compatible model plugin: pydantic-core refuses the
    event holding the lone high half, and the SDK base ends the stream there with the finish reason
    "Non-JSON encountered." (the rest of the answer never arrives). The text before the break is
    the answer, and the turn carries that reason, so the run can say the answer is incomplete
    (``output_limit.is_broken_stream_reason``; tested through the plugin in
    tests/e2e/test_real_world_2026av_runs.py)."""
    streamed, turn = (read_react if strategy == "react" else read_fc)(plugin_chunks(RAKAZO416), ["search"])
    assert turn.decision == FinalAnswer("好的，已经帮你订好了")
    assert streamed.strip() == "好的，已经帮你订好了"
    assert is_broken_stream_reason(turn.finish_reason)


def test_only_the_sdk_bases_marker_is_a_broken_stream():
    """The reasons that end a reply in the usual way, a cut or a filter are not a broken stream."""
    assert is_broken_stream_reason("Non-JSON encountered.") and is_broken_stream_reason("non-json encountered.")
    for reason in (None, "", "stop", "length", "tool_calls", "content_filter", "Non-JSON"):
        assert not is_broken_stream_reason(reason)


# ---- the fix for graphify#2286: full-width quotes the wrong way round ------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    # a value closed by “ and the next key opened by ” (the report's shape)
    ("{“a”:“x“,”b”:“y”}", "{“a”:“x”,“b”:“y”}"),
    ("{“a”: “x“ , ”b”: “y”}", "{“a”: “x” , “b”: “y”}"),
    ("[“x“, ”y”]", "[“x”, “y”]"),
    # nothing to turn: ASCII-quoted objects keep the quotes of their text, whatever is next to them
    ('{"a": "他说“,”好"}', '{"a": "他说“,”好"}'),
    ('{"来源": "不仅有“咖啡、葡萄”还有"}', '{"来源": "不仅有“咖啡、葡萄”还有"}'),
    # only closers: nothing turned the wrong way
    ("{”a”:”x”}", "{”a”:”x”}"),
])
def test_curly_delimiters_are_turned_only_in_a_curly_quoted_object(text, expected):
    assert curly_delimiters_oriented(text) == expected


def test_a_mixed_up_curly_object_repairs_to_its_keys_and_values():
    """Before the fix the repair read ``“x“,”b”`` as the value ``x“`` and the key ``b”``: the call
    ran without its ``b`` parameter and with a quote in ``a``."""
    assert loads_lenient("{“a”:“协议（含 传输）“,”b”:“document”}") == {"a": "协议（含 传输）", "b": "document"}
