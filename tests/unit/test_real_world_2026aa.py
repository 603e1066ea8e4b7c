"""A twenty-sixth set of real-world model outputs: what the model makers' own documentation shows
their models write (the assistant turns their chat templates render, with tool calls and
reasoning, and the example outputs of their tool-calling guides), through both strategies' turn
readers (as ``test_real_world_2026v``: the text whole and in pieces of 1 and 7 characters). That
raw text is what reaches the plugin through an OpenAI-compatible endpoint when the server runs
without the family's parsers. Sources: MiniMax-M2's tool-calling guide, and the chat templates of
EXAONE 4.0, GLM-5.3-Flash, Hy3-preview, Gemma 4 and Qwen3.6 (see docs/real-world-cases.md).

Each case names its source beside it; docs/real-world-cases.md lists them with the file and
commit. A template's assistant turn is rendered with its own tokens (``trim_blocks`` and
``lstrip_blocks`` on, as Transformers renders it); the model writes what follows the template's
generation prompt, so a prompt that opens ``<think>`` leaves the model only its close. The tools
are declared here with string parameters: a value written as markup text is expected as a
string, a JSON value as the JSON it holds.
"""

import pytest

from tests.unit.test_real_world_2026 import Case, reply_test, tool
from tests.unit.test_real_world_2026g import read

WEATHER = tool("get_weather", "city")

# ---- MiniMax-M2 (MiniMax-AI/MiniMax-M2 docs/tool_calling_guide.md) ---------------------------------
SEARCH_WEB = tool("search_web", "query_list", "query_tag")
MM_WEATHER = tool("get_weather", "location", "unit")
MM_TWO_SEARCHES = (
    '<minimax:tool_call>\n<invoke name="search_web">\n<parameter name="query_tag">["technology", "events"]'
    '</parameter>\n<parameter name="query_list">["\\"OpenAI\\" \\"latest\\" \\"release\\""]</parameter>\n'
    '</invoke>\n<invoke name="search_web">\n<parameter name="query_tag">["technology", "events"]</parameter>\n'
    '<parameter name="query_list">["\\"Gemini\\" \\"latest\\" \\"release\\""]</parameter>\n</invoke>\n'
    "</minimax:tool_call>"
)
MM_SF = (
    '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="location">San Francisco</parameter>\n'
    '<parameter name="unit">celsius</parameter>\n</invoke>\n</minimax:tool_call>'
)
MM_SEARCHES = [
    ("search_web", {"query_tag": ["technology", "events"], "query_list": ['"OpenAI" "latest" "release"']}),
    ("search_web", {"query_tag": ["technology", "events"], "query_list": ['"Gemini" "latest" "release"']}),
]
MM_SF_CALL = [("get_weather", {"location": "San Francisco", "unit": "celsius"})]
MM_END = "[e~["  # its end-of-message marker (the guide's "Format Description")

# ---- EXAONE 4.0 (its chat_template.jinja: an empty reasoning block before a non-reasoning turn) ----
EX_EMPTY = "<think>\n\n</think>\n\n"
EX_END = "[|endofturn|]"
EX_SEOUL = '<tool_call>{"name": "get_weather", "arguments": {"city": "Seoul"}}</tool_call>'
EX_BUSAN = '<tool_call>{"name": "get_weather", "arguments": {"city": "Busan"}}</tool_call>'

# ---- GLM-5.3-Flash (its chat_template.jinja: the generation prompt opens <think>) -------------------
GLM_BEIJING = "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>"
GLM_SHANGHAI = GLM_BEIJING.replace("Beijing", "Shanghai")

# ---- Hy3-preview (its chat_template.jinja) ------------------------------------------------------------
HY_EOS = "<｜hy_eos｜>"
HY_BEIJING = "<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n</tool_call>\n"
HY_SHANGHAI = HY_BEIJING.replace("Beijing", "Shanghai")

# ---- Gemma 4 (its chat_template.jinja) -----------------------------------------------------------------
G4_TOKYO = '<|tool_call>call:get_weather{city:<|"|>Tokyo<|"|>}<tool_call|>'

# ---- Qwen3.6 (its chat_template.jinja) -----------------------------------------------------------------
QW_PARIS = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>"

CASES = {
    # ---- MiniMax-M2 (MiniMax-AI/MiniMax-M2 docs/tool_calling_guide.md) ---------------------------------
    # "Model Output Format": two invokes in one section, the values JSON arrays with escaped quotes
    "minimaxm2-guide-two-searches": Case((SEARCH_WEB,), MM_TWO_SEARCHES, calls=MM_SEARCHES,
                                         hidden=("minimax:", "invoke")),
    # "Usage Example": a sentence, then the section on its own lines
    "minimaxm2-guide-sentence-then-call": Case(
        (MM_WEATHER,), "Let me help you query the weather.\n" + MM_SF, calls=MM_SF_CALL, hidden=("minimax:", "invoke"),
    ),
    # the generation prompt ends "]~b]ai\n<think>\n": the model writes its reasoning's close
    "minimaxm2-guide-reasoning-then-call": Case(
        (MM_WEATHER,), "The user wants the weather in San Francisco in celsius.\n</think>\n\n" + MM_SF,
        calls=MM_SF_CALL, hidden=("minimax:", "</think>", "The user wants"),
    ),
    # the turn's end marker left in by a server that keeps special tokens
    "minimaxm2-guide-call-then-end-marker": Case(
        (MM_WEATHER,), MM_SF + MM_END, calls=MM_SF_CALL, hidden=("minimax:", "[e~["),
    ),
    "minimaxm2-guide-answer-then-end-marker": Case(
        (MM_WEATHER,), "<think>\nThe tool said sunny.\n</think>\n\nIt is sunny in San Francisco, 25 °C." + MM_END,
        answer="It is sunny in San Francisco, 25 °C.", hidden=("[e~[", "The tool said"),
    ),
    # ---- EXAONE 4.0 (chat_template.jinja) ----------------------------------------------------------------
    "exaone4-template-one-call": Case((WEATHER,), EX_EMPTY + EX_SEOUL + EX_END, calls=[("get_weather", {"city": "Seoul"})],
                                      hidden=("tool_call", "endofturn", "think")),
    # two calls, one a line
    "exaone4-template-two-calls": Case(
        (WEATHER,), EX_EMPTY + EX_SEOUL + "\n" + EX_BUSAN + EX_END,
        calls=[("get_weather", {"city": "Seoul"}), ("get_weather", {"city": "Busan"})], hidden=("tool_call", "endofturn"),
    ),
    # content, a newline, then the call
    "exaone4-template-text-then-call": Case(
        (WEATHER,), EX_EMPTY + "Let me look up the weather in Seoul.\n" + EX_SEOUL + EX_END,
        calls=[("get_weather", {"city": "Seoul"})], hidden=("tool_call", "endofturn"),
    ),
    "exaone4-template-answer": Case(
        (WEATHER,), EX_EMPTY + "It is 21 °C and clear in Seoul." + EX_END, answer="It is 21 °C and clear in Seoul.",
        hidden=("think", "endofturn"),
    ),
    # reasoning mode: the generation prompt opens "<think>\n"
    "exaone4-template-reasoning-then-answer": Case(
        (WEATHER,), "The tool returned 21 degrees.\n</think>\n\nIt is 21 °C in Seoul." + EX_END,
        answer="It is 21 °C in Seoul.", hidden=("think", "endofturn", "The tool returned"),
    ),
    "exaone4-template-reasoning-then-call": Case(
        (WEATHER,), "I need the weather for Seoul.\n</think>\n\n" + EX_SEOUL + EX_END,
        calls=[("get_weather", {"city": "Seoul"})], hidden=("think", "endofturn", "I need the weather"),
    ),
    # JSON numbers in the Hermes-style object stay numbers
    "exaone4-template-numeric-arguments": Case(
        (tool("add", "a", "b"),), EX_EMPTY + '<tool_call>{"name": "add", "arguments": {"a": 3, "b": 4}}</tool_call>' + EX_END,
        calls=[("add", {"a": 3, "b": 4})], hidden=("tool_call",),
    ),
    # ---- GLM-5.3-Flash (chat_template.jinja) -------------------------------------------------------------
    # the generation prompt opens <think>; content is stripped and the call follows it directly
    "glm53-template-reasoning-then-call": Case(
        (WEATHER,), "The user asks about Beijing.</think>" + GLM_BEIJING, calls=[("get_weather", {"city": "Beijing"})],
        hidden=("arg_key", "tool_call", "The user asks"),
    ),
    "glm53-template-reasoning-text-then-call": Case(
        (WEATHER,), "The user asks about Beijing.</think>Let me check Beijing's weather." + GLM_BEIJING,
        calls=[("get_weather", {"city": "Beijing"})], hidden=("arg_key", "tool_call", "The user asks"),
    ),
    "glm53-template-two-calls": Case(
        (WEATHER,), "Two cities.</think>" + GLM_BEIJING + GLM_SHANGHAI,
        calls=[("get_weather", {"city": "Beijing"}), ("get_weather", {"city": "Shanghai"})],
        hidden=("arg_key", "tool_call", "Two cities"),
    ),
    # values that are no string are written with tojson(ensure_ascii=False); the tool declares
    # strings, so the object is read as JSON and the number stays the text written
    "glm53-template-json-values": Case(
        (tool("search", "query", "filters", "limit"),), "Search.</think><tool_call>search<arg_key>query</arg_key>"
        "<arg_value>天气</arg_value><arg_key>filters</arg_key><arg_value>{\"lang\": \"中文\"}</arg_value>"
        "<arg_key>limit</arg_key><arg_value>5</arg_value></tool_call>",
        calls=[("search", {"query": "天气", "filters": {"lang": "中文"}, "limit": "5"})], hidden=("arg_key", "tool_call"),
    ),
    "glm53-template-reasoning-then-answer": Case(
        (WEATHER,), "The tool said 18 degrees.</think>It is 18 °C in Beijing.", answer="It is 18 °C in Beijing.",
        hidden=("think", "The tool said"),
    ),
    # enable_thinking off: the prompt holds "<think></think>"; the model writes the call alone
    "glm53-template-no-thinking-call": Case((WEATHER,), GLM_BEIJING, calls=[("get_weather", {"city": "Beijing"})],
                                            hidden=("arg_key", "tool_call")),
    # ---- Hy3-preview (chat_template.jinja) ---------------------------------------------------------------
    # no_think (the default effort): the prompt holds "<think></think>"; the calls end at the eos token
    "hy3-template-one-call": Case(
        (WEATHER,), "<tool_calls>\n" + HY_BEIJING + "</tool_calls>" + HY_EOS, calls=[("get_weather", {"city": "Beijing"})],
        hidden=("tool_sep", "arg_key", "hy_eos"),
    ),
    "hy3-template-two-calls": Case(
        (WEATHER,), "<tool_calls>\n" + HY_BEIJING + HY_SHANGHAI + "</tool_calls>" + HY_EOS,
        calls=[("get_weather", {"city": "Beijing"}), ("get_weather", {"city": "Shanghai"})],
        hidden=("tool_sep", "arg_key", "hy_eos"),
    ),
    "hy3-template-text-then-calls": Case(
        (WEATHER,), "I'll check the weather.<tool_calls>\n" + HY_BEIJING + "</tool_calls>" + HY_EOS,
        calls=[("get_weather", {"city": "Beijing"})], hidden=("tool_sep", "arg_key", "hy_eos"),
    ),
    # a number written with tojson; the tool declares a string, so it stays the text written
    "hy3-template-json-value": Case(
        (tool("book", "city", "nights"),), "<tool_calls>\n<tool_call>book<tool_sep>\n<arg_key>city</arg_key>\n"
        "<arg_value>北京</arg_value>\n<arg_key>nights</arg_key>\n<arg_value>2</arg_value>\n</tool_call>\n</tool_calls>"
        + HY_EOS,
        calls=[("book", {"city": "北京", "nights": "2"})], hidden=("tool_sep", "arg_key", "hy_eos"),
    ),
    # effort low or high: the prompt opens <think>
    "hy3-template-reasoning-then-call": Case(
        (WEATHER,), "Need Beijing weather.</think><tool_calls>\n" + HY_BEIJING + "</tool_calls>" + HY_EOS,
        calls=[("get_weather", {"city": "Beijing"})], hidden=("tool_sep", "hy_eos", "Need Beijing"),
    ),
    "hy3-template-answer-then-eos": Case(
        (WEATHER,), "It is 18 °C in Beijing." + HY_EOS, answer="It is 18 °C in Beijing.", hidden=("hy_eos",),
    ),
    "hy3-template-reasoning-then-answer": Case(
        (WEATHER,), "The tool said 18.</think>It is 18 °C in Beijing." + HY_EOS, answer="It is 18 °C in Beijing.",
        hidden=("hy_eos", "The tool said"),
    ),
    # ---- Gemma 4 (chat_template.jinja) -------------------------------------------------------------------
    # the call, then the tool-response token the model opens (its stop token, kept by some servers)
    "gemma4-template-call-then-response-token": Case(
        (WEATHER,), G4_TOKYO + "<|tool_response>", calls=[("get_weather", {"city": "Tokyo"})],
        hidden=("tool_call", "tool_response"),
    ),
    "gemma4-template-nested-arguments": Case(
        (tool("search", "filters", "query"),),
        '<|tool_call>call:search{filters:{lang:<|"|>en<|"|>,max:5},query:<|"|>weather<|"|>}<tool_call|>',
        calls=[("search", {"filters": {"lang": "en", "max": 5}, "query": "weather"})], hidden=("tool_call", '<|"|>'),
    ),
    "gemma4-template-list-and-bool": Case(
        (tool("notify", "channels", "urgent"),),
        '<|tool_call>call:notify{channels:[<|"|>sms<|"|>,<|"|>mail<|"|>],urgent:true}<tool_call|>',
        calls=[("notify", {"channels": ["sms", "mail"], "urgent": True})], hidden=("tool_call", '<|"|>'),
    ),
    "gemma4-template-two-calls": Case(
        (WEATHER,), G4_TOKYO + G4_TOKYO.replace("Tokyo", "Osaka"),
        calls=[("get_weather", {"city": "Tokyo"}), ("get_weather", {"city": "Osaka"})], hidden=("tool_call",),
    ),
    # thinking on: the thought channel, then the answer and the turn's end
    "gemma4-template-thought-then-answer": Case(
        (WEATHER,), "<|channel>thought\nThe tool said sunny.<channel|>It is sunny in Tokyo.<turn|>",
        answer="It is sunny in Tokyo.", hidden=("channel", "The tool said", "turn|"),
    ),
    "gemma4-template-thought-then-call": Case(
        (WEATHER,), "<|channel>thought\nI need the weather.<channel|>" + G4_TOKYO,
        calls=[("get_weather", {"city": "Tokyo"})], hidden=("channel", "I need the weather"),
    ),
    # ---- Qwen3.6 (chat_template.jinja) -------------------------------------------------------------------
    # the generation prompt opens "<think>\n"; content, a blank line, then the call
    "qwen36-template-reasoning-text-then-call": Case(
        (WEATHER,), "The user wants Paris.\n</think>\n\nLet me check.\n\n" + QW_PARIS, calls=[("get_weather", {"city": "Paris"})],
        hidden=("<function", "The user wants"),
    ),
    # two calls, one a line
    "qwen36-template-two-calls": Case(
        (WEATHER,), "Two cities.\n</think>\n\n" + QW_PARIS + "\n" + QW_PARIS.replace("Paris", "Lyon"),
        calls=[("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Lyon"})], hidden=("<function", "Two cities"),
    ),
    # a multi-line value, as its prompt's example shows
    "qwen36-template-multiline-value": Case(
        (tool("write_file", "path", "content"),), "<tool_call>\n<function=write_file>\n<parameter=path>\nnotes.txt\n"
        "</parameter>\n<parameter=content>\nThis is the value for the second parameter\nthat can span\nmultiple lines\n"
        "</parameter>\n</function>\n</tool_call>",
        calls=[("write_file", {"path": "notes.txt",
                               "content": "This is the value for the second parameter\nthat can span\nmultiple lines"})],
        hidden=("<function",),
    ),
}


GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md
}


test_real_world_reply = reply_test(CASES, GAPS, read)


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_end_of_message_tokens_end_the_reply(strategy):
    """Hy3's ``<｜hy_eos｜>`` (either bar) and MiniMax-M2's ``[e~[`` end the reply: the answer
    before them is shown without them, and the turn the model invents after them is dropped; the
    same characters that are no such token stay in the answer."""
    invented = "\n]~b]user\nThanks! And tomorrow?<|im_start|>assistant\nTomorrow rain."
    answer = "It is 18 °C in Beijing."
    for end in ("<｜hy_eos｜>", "<|hy_eos|>", "[e~["):
        content = answer + end + invented
        content = content if strategy == "fc" else "Final Answer: " + content
        for size in (None, 1, 7):
            streamed, turn = read(strategy, Case((WEATHER,), content), size)
            assert turn.decision.text == answer
            assert streamed.strip() == answer
    kept = "Use [e] or ~[ to mark it; hy_eos is a token name."
    for size in (None, 1, 7):
        streamed, turn = read(strategy, Case((WEATHER,), kept if strategy == "fc" else "Final Answer: " + kept), size)
        assert turn.decision.text == kept
