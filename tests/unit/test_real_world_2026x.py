"""A twenty-third set of real-world model outputs: the raw text that inference servers' own
tool-call parser tests feed their parsers, through both strategies' turn readers (as
``test_real_world_2026v``: the text whole and in pieces of 1 and 7 characters). That raw text is
what reaches the plugin through an OpenAI-compatible endpoint when the server runs without the
family's parser. Sources: Ollama's parser tests for Laguna (Poolside), Glimmer (ATEM), Kolibri 1,
Bailing (Ling), Qwen 3.8 (its Qwen3.5 parser), Apertus 1.5, Cohere (Command A Reasoning) and
INTELLECT-3, and llama.cpp's LFM2 parser test (see docs/real-world-cases.md).

Each case names its source beside it; docs/real-world-cases.md lists them with the file and
commit. The text is the test's input verbatim (built with the test's own constants where it has
them; where a test streams the reply in chunks, the chunks joined); the tests' tools are declared
here with string parameters, so a value written as markup text is expected as a string, and a
JSON value as the JSON it holds.
"""

import pytest

from agent_core.turn import FinalAnswer, ParseFailure, ToolCalls
from tests.unit.test_real_world_2026 import Case, check_answer_shown_whole, reply_test, tool
from tests.unit.test_real_world_2026g import read

# Ollama's Laguna tools (model/parsers/laguna_test.go)
LAGUNA_WEATHER = tool("get_weather", "location", "days")
READ = tool("read", "path")
BASH = tool("bash", "command")

# Ollama's Glimmer constants (model/parsers/glimmer_test.go, glimmer.go)
GLIMMER_WEATHER = tool("get_weather", "city")
MUSE_BASH = tool("muse.bash", "command")


def atem(name: str, parameters: str) -> str:
    """``glimmerTestATEM``: an ATEM call block invoking ``name``."""
    return f'<atem:function_calls>\n<atem:invoke name="{name}">\n{parameters}</atem:invoke>\n</atem:function_calls>'


# Ollama's Apertus 1.5 tokens (model/parsers/apertus15.go)
INNER_START, INNER_END = "<|inner_prefix|>", "<|inner_suffix|>"
TOOLS_START, TOOLS_END = "<|tools_prefix|>", "<|tools_suffix|>"
ASSISTANT_START, ASSISTANT_END = "<|assistant_start|>", "<|assistant_end|>"

# Ollama's INTELLECT-3 tool (model/parsers/intellect3_test.go)
I3_WEATHER = tool("get_weather", "location", "unit")


def i3_call(location: str, unit: str) -> str:
    return (f"<tool_call><function=get_weather>\n<parameter=location>\n{location}\n</parameter>\n<parameter=unit>\n"
            f"{unit}\n</parameter>\n</function></tool_call>")


# llama.cpp's LFM2 tokens and tools (tests/chat-parsers/test-lfm2.cpp)
LFM_START, LFM_END = "<|tool_call_start|>", "<|tool_call_end|>"
LFM_WEATHER = tool("get_weather", "location")
LFM_PARIS = LFM_START + '[{"name": "get_weather", "arguments": {"location": "Paris"}}]' + LFM_END

CASES = {
    # ---- Laguna / Poolside (Ollama model/parsers/laguna_test.go) ----------------------------------------
    "ollama-laguna-xml-pairs": Case(
        (LAGUNA_WEATHER,), "<tool_call>get_weather\n<arg_key>location</arg_key>\n<arg_value>Paris</arg_value>\n"
        "<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>",
        calls=[("get_weather", {"location": "Paris", "days": "3"})], hidden=("arg_key", "tool_call"),
    ),
    "ollama-laguna-json-in-tool-call": Case(
        (LAGUNA_WEATHER,), '<tool_call>\n{"name":"get_weather","arguments":{"location":"Paris","days":3}}\n</tool_call>',
        calls=[("get_weather", {"location": "Paris", "days": 3})], hidden=("tool_call",),
    ),
    "ollama-laguna-standalone-json": Case(
        (LAGUNA_WEATHER,), '{"name":"get_weather","arguments":{"location":"Paris","days":3}}',
        calls=[("get_weather", {"location": "Paris", "days": 3})], hidden=('"name"',),
    ),
    "ollama-laguna-json-after-a-sentence": Case(
        (LAGUNA_WEATHER,), 'Let me call the weather tool.\n{"name":"get_weather","arguments":{"location":"Paris"}}',
        calls=[("get_weather", {"location": "Paris"})], hidden=('"name"',),
    ),
    "ollama-laguna-streamed-standalone-json": Case(
        (LAGUNA_WEATHER,), '{"name":"get_weather","arguments":{"location":"San Francisco, CA"}}',
        calls=[("get_weather", {"location": "San Francisco, CA"})], hidden=('"name"',),
    ),
    # the name on the <tool_call> line, then its arguments as a JSON object
    "ollama-laguna-name-line-json": Case(
        (LAGUNA_WEATHER,), '<tool_call>get_weather\n{"location":"San Francisco"}</tool_call>',
        calls=[("get_weather", {"location": "San Francisco"})], hidden=("tool_call",),
    ),
    # a call opened twice and closed once: Ollama runs it once
    "ollama-laguna-duplicated-nested-call": Case(
        (tool("skill", "name"),), '<tool_call>skill\n{"name":"git-diff-review"}\n<tool_call>skill\n'
        '{"name":"git-diff-review"}</tool_call>',
        calls=[("skill", {"name": "git-diff-review"})], hidden=("tool_call",),
    ),
    "ollama-laguna-thought-then-call": Case(
        (LAGUNA_WEATHER,), "<thought>Need current weather.</thought>\n<tool_call>get_weather\n<arg_key>location"
        "</arg_key>\n<arg_value>SF</arg_value>\n</tool_call>",
        calls=[("get_weather", {"location": "SF"})], hidden=("tool_call", "Need current weather"),
    ),
    "ollama-laguna-thought-then-answer": Case(
        (LAGUNA_WEATHER,), "<thought>Need to reason.</thought>\nDirect answer.", answer="Direct answer.",
        hidden=("thought", "Need to reason"),
    ),
    # the model wraps its call in <user> (Ollama: "UserTaggedToolAlias")
    "ollama-laguna-user-tagged-call": Case(
        (LAGUNA_WEATHER,), "<user>get_weather\n<arg_key>location</arg_key>\n<arg_value>San Francisco, CA</arg_value>\n"
        "</user>",
        calls=[("get_weather", {"location": "San Francisco, CA"})], hidden=("<user>", "arg_key"),
    ),
    "ollama-laguna-user-tagged-call-after-text": Case(
        (READ,), "I'll read the file for you.\n<user>read\n<arg_key>path</arg_key>\n<arg_value>"
        "/Users/test/code/myproject/go.mod</arg_value>\n</user>",
        calls=[("read", {"path": "/Users/test/code/myproject/go.mod"})], hidden=("<user>", "arg_key"),
    ),
    "ollama-laguna-user-tagged-json-after-text": Case(
        (BASH,), "I'll run git diff for you.<user>\n{\"name\":\"bash\",\"arguments\":{\"command\":\"git diff main\"}}\n"
        "</user>",
        calls=[("bash", {"command": "git diff main"})], hidden=("<user>", '"name"'),
    ),
    "ollama-laguna-user-tag-holding-text": Case(
        (LAGUNA_WEATHER,), "<user>hello</user>", answer="<user>hello</user>",
    ),
    # ---- Glimmer / ATEM (Ollama model/parsers/glimmer_test.go) ------------------------------------------
    "ollama-glimmer-final-answer": Case(
        (GLIMMER_WEATHER,), " to=user<|message|>Hello", answer="Hello", hidden=("to=user", "<|message|>"),
    ),
    "ollama-glimmer-self-then-user": Case(
        (GLIMMER_WEATHER,), " to=self<|message|>Check the facts.<|eom|><|start|>assistant to=user<|message|>Answer<|eot|>",
        answer="Answer", hidden=("Check the facts", "<|", "to=user"),
    ),
    "ollama-glimmer-call": Case(
        (GLIMMER_WEATHER,), " to=get_weather<|message|>"
        + atem("get_weather", '<atem:parameter name="city">SF</atem:parameter>\n') + "<|eot|>",
        calls=[("get_weather", {"city": "SF"})], hidden=("atem:", "<|"),
    ),
    "ollama-glimmer-value-names-control-tokens": Case(
        (tool("echo", "text"),), " to=echo<|message|>" + atem(
            "echo", '<atem:parameter name="text">literal <|eot|> and <|start|>assistant to=user<|message|> text'
            "</atem:parameter>\n") + "<|eot|>",
        calls=[("echo", {"text": "literal <|eot|> and <|start|>assistant to=user<|message|> text"})],
        hidden=("atem:",),
    ),
    "ollama-glimmer-thought-then-two-calls": Case(
        (tool("first", "x"), tool("second")), " to=self<|message|>Think<|eom|><|start|>assistant to=first<|message|>"
        + atem("first", '<atem:parameter name="x">1</atem:parameter>\n') + "<|eom|><|start|>assistant to=second"
        "<|message|>" + atem("second", "") + "<|eot|>",
        calls=[("first", {"x": "1"}), ("second", {})], hidden=("atem:", "Think", "<|"),
    ),
    "ollama-glimmer-missing-recipient": Case(
        (MUSE_BASH,), "<|message|>" + atem("muse.bash", '<atem:parameter name="command">pwd && ls -la'
                                           "</atem:parameter>\n") + "<|eom|>",
        calls=[("muse.bash", {"command": "pwd && ls -la"})], hidden=("atem:", "<|"),
    ),
    "ollama-glimmer-user-recipient-call": Case(
        (MUSE_BASH,), " to=user<|message|>" + atem("muse.bash", '<atem:parameter name="command">pwd && ls -la'
                                                    "</atem:parameter>\n") + "<|eot|>",
        calls=[("muse.bash", {"command": "pwd && ls -la"})], hidden=("atem:", "<|"),
    ),
    # ---- Kolibri 1 (Ollama model/parsers/kolibri1_test.go) ----------------------------------------------
    "ollama-kolibri1-think-then-answer": Case(
        (GLIMMER_WEATHER,), "<think>\nCompute.\n</think>\n\n42.", answer="42.", hidden=("Compute",),
    ),
    "ollama-kolibri1-tool-call": Case(
        (tool("weather", "city"),), '<tool_call>{"name":"weather","arguments":{"city":"Berlin"}}</tool_call>',
        calls=[("weather", {"city": "Berlin"})], hidden=("tool_call",),
    ),
    # ---- Bailing / Ling (Ollama model/parsers/bailing_test.go; the prompt opens <think>) -----------------
    "ollama-bailing-plan-then-call": Case(
        (tool("get_weather", "location"),), "plan</think>I'll check.\n<tool_call>get_weather<arg_key>location"
        "</arg_key>\n<arg_value>Tokyo</arg_value>\n</tool_call>",
        calls=[("get_weather", {"location": "Tokyo"})], hidden=("</think>", "arg_key"),
    ),
    "ollama-bailing-empty-reasoning": Case(
        (GLIMMER_WEATHER,), "</think>Plain answer", answer="Plain answer", hidden=("</think>",),
    ),
    "ollama-bailing-reasoning-then-answer": Case(
        (GLIMMER_WEATHER,), "consider the question</think>Answer here", answer="Answer here",
        hidden=("consider", "</think>"),
    ),
    # ---- Qwen 3.8 (Ollama model/parsers/qwen38_test.go, its qwen3.5 parser) ----------------------------
    "ollama-qwen38-reasoning-text-two-calls": Case(
        (tool("get_weather", "city"), tool("set_uv_threshold", "index")),
        "<think>\nNeed weather and UV for Montréal.\n</think>\n\nI'll check both.\n\n<tool_call>\n<function=get_weather>"
        "\n<parameter=city>\nMontréal\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=set_uv_threshold>"
        "\n<parameter=index>\n5\n</parameter>\n</function>\n</tool_call>",
        calls=[("get_weather", {"city": "Montréal"}), ("set_uv_threshold", {"index": "5"})],
        hidden=("Need weather", "<function"),
    ),
    "ollama-qwen38-control-like-text": Case(
        (GLIMMER_WEATHER,), "Plan</think>ordinary <tool_calling> marker.", answer="ordinary <tool_calling> marker.",
        hidden=("Plan", "</think>"),
    ),
    # a call cut right after its name: Ollama shows the text before it and runs nothing
    "ollama-qwen38-truncated-call": Case(
        (GLIMMER_WEATHER,), "Plan</think>Before<tool_call><function=get_weather>", answer="Before",
        hidden=("Plan", "<function"),
    ),
    # ---- Apertus 1.5 (Ollama model/parsers/apertus15_test.go) ------------------------------------------
    "ollama-apertus15-reasoning-between-text": Case(
        (GLIMMER_WEATHER,), ASSISTANT_START + "Before." + INNER_START + "Reason carefully." + INNER_END + "After."
        + ASSISTANT_END, answer="Before.After.", hidden=("Reason carefully", "<|"),
    ),
    "ollama-apertus15-two-calls-after-text": Case(
        (GLIMMER_WEATHER, tool("get_time", "offset", "dst")), "I will check." + TOOLS_START
        + '[{"get_weather":{"city":"Zurich"}},{"get_time":{"offset":2,"dst":true}}]' + TOOLS_END,
        calls=[("get_weather", {"city": "Zurich"}), ("get_time", {"offset": 2, "dst": True})], hidden=("<|",),
    ),
    "ollama-apertus15-call-inside-reasoning": Case(
        (GLIMMER_WEATHER,), INNER_START + "Need weather." + TOOLS_START + '[{"get_weather":{"city":"Bern"}}]'
        + TOOLS_END, calls=[("get_weather", {"city": "Bern"})], hidden=("<|", "Need weather"),
    ),
    "ollama-apertus15-two-envelopes-between-text": Case(
        (tool("first", "x"), tool("second", "y")), "Before." + TOOLS_START + '[{"first":{"x":1}}]' + TOOLS_END
        + "Between." + TOOLS_START + '[{"second":{"y":2}}]' + TOOLS_END + "After.",
        calls=[("first", {"x": 1}), ("second", {"y": 2})], hidden=("<|",),
    ),
    "ollama-apertus15-whole-turn-with-call": Case(
        (tool("lookup", "id"),), ASSISTANT_START + INNER_START + "Think." + INNER_END + "Answer." + TOOLS_START
        + '[{"lookup":{"id":"42"}}]' + TOOLS_END + ASSISTANT_END,
        calls=[("lookup", {"id": "42"})], hidden=("<|", "Think."),
    ),
    # the prompt opened the inner block (a thinking prefill)
    "ollama-apertus15-opened-reasoning-then-answer": Case(
        (GLIMMER_WEATHER,), " Continued reasoning." + INNER_END + "Answer.", answer="Answer.",
        hidden=("Continued", "<|"),
    ),
    # ---- Cohere / Command A Reasoning (Ollama model/parsers/cohere_test.go; the prompt opens thinking) --
    "ollama-cohere-thinking-then-text": Case(
        (GLIMMER_WEATHER,), "Let me think about this.<|END_THINKING|><|START_TEXT|>Hello world!<|END_TEXT|>",
        answer="Hello world!", hidden=("Let me think", "<|"),
    ),
    "ollama-cohere-two-actions": Case(
        (GLIMMER_WEATHER, tool("get_time")), "plan<|END_THINKING|><|START_ACTION|>[\n"
        '    {"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}},'
        '    {"tool_call_id": "1", "tool_name": "get_time", "parameters": {}}\n]<|END_ACTION|>',
        calls=[("get_weather", {"city": "Paris"}), ("get_time", {})], hidden=("<|", "plan"),
    ),
    "ollama-cohere-bare-content": Case(
        (GLIMMER_WEATHER,), "thought<|END_THINKING|>Just plain text output", answer="Just plain text output",
        hidden=("thought", "<|"),
    ),
    "ollama-cohere-end-of-turn-without-end-text": Case(
        (GLIMMER_WEATHER,), "t<|END_THINKING|><|START_TEXT|>answer<|END_OF_TURN_TOKEN|>", answer="answer",
        hidden=("<|",),
    ),
    "ollama-cohere-legacy-response-markers": Case(
        (GLIMMER_WEATHER,), "plan<|END_THINKING|><|START_RESPONSE|>Hello there<|END_RESPONSE|>", answer="Hello there",
        hidden=("plan", "<|"),
    ),
    "ollama-cohere-two-actions-missing-comma": Case(
        (tool("a"), tool("b", "x")), '<|END_THINKING|><|START_ACTION|>[{"tool_call_id": "0", "tool_name": "a", '
        '"parameters": {}}{"tool_call_id": "1", "tool_name": "b", "parameters": {"x": "{not json}"}}]<|END_ACTION|>',
        calls=[("a", {}), ("b", {"x": "{not json}"})], hidden=("<|",),
    ),
    # ---- INTELLECT-3 (Ollama model/parsers/intellect3_test.go) -----------------------------------------
    "ollama-intellect3-text-then-call": Case(
        (I3_WEATHER,), "Let me check the weather" + i3_call("San Francisco", "celsius"),
        calls=[("get_weather", {"location": "San Francisco", "unit": "celsius"})], hidden=("<function",),
    ),
    "ollama-intellect3-think-text-call-text": Case(
        (I3_WEATHER,), "<think>User wants weather info</think>Checking weather" + i3_call("Tokyo", "celsius") + "Done!",
        calls=[("get_weather", {"location": "Tokyo", "unit": "celsius"})], hidden=("<function", "User wants"),
    ),
    "ollama-intellect3-think-call-word-call": Case(
        (I3_WEATHER,), "<think>Need multiple locations</think>" + i3_call("Boston", "celsius") + "and"
        + i3_call("Berlin", "celsius"),
        calls=[("get_weather", {"location": "Boston", "unit": "celsius"}),
               ("get_weather", {"location": "Berlin", "unit": "celsius"})], hidden=("<function", "Need multiple"),
    ),
    "ollama-intellect3-unicode-reasoning": Case(
        (I3_WEATHER,), "<think>思考中 🤔</think>答案是 42", answer="答案是 42", hidden=("思考中",),
    ),
    "ollama-intellect3-whitespace-after-call": Case(
        (tool("test", "param"),), "<tool_call><function=test>\n<parameter=param>\nvalue\n</parameter>\n</function>"
        "</tool_call>   Text",
        calls=[("test", {"param": "value"})], hidden=("<function",),
    ),
    # ---- LFM2 (llama.cpp tests/chat-parsers/test-lfm2.cpp) ---------------------------------------------
    "llamacpp-lfm2-json-call": Case(
        (tool("special_function", "arg1"),),
        LFM_START + '[{"name": "special_function", "arguments": {"arg1": 1}}]' + LFM_END,
        calls=[("special_function", {"arg1": 1})], hidden=("<|",),
    ),
    "llamacpp-lfm2-multiple-arguments": Case(
        (tool("calculate", "x", "y", "operation"),),
        LFM_START + '[{"name": "calculate", "arguments": {"x": 10, "y": 20, "operation": "add"}}]' + LFM_END,
        calls=[("calculate", {"x": 10, "y": 20, "operation": "add"})], hidden=("<|",),
    ),
    "llamacpp-lfm2-two-calls-one-list": Case(
        (LFM_WEATHER, tool("get_time", "timezone")), LFM_START + '[{"name": "get_weather", "arguments": {"location": '
        '"Paris"}}, {"name": "get_time", "arguments": {"timezone": "UTC"}}]' + LFM_END,
        calls=[("get_weather", {"location": "Paris"}), ("get_time", {"timezone": "UTC"})], hidden=("<|",),
    ),
    "llamacpp-lfm2-text-then-call": Case(
        (LFM_WEATHER,), "Let me check the weather for you." + LFM_PARIS,
        calls=[("get_weather", {"location": "Paris"})], hidden=("<|",),
    ),
    "llamacpp-lfm2-call-then-text": Case(
        (LFM_WEATHER,), LFM_PARIS + "Here's the result.", calls=[("get_weather", {"location": "Paris"})],
        hidden=("<|",),
    ),
    "llamacpp-lfm2-call-over-lines": Case(
        (tool("get_current_time", "location"),), LFM_START + '[{\n    "name": "get_current_time",\n    "arguments": {\n'
        '        "location": "Paris"\n    }\n}]' + LFM_END,
        calls=[("get_current_time", {"location": "Paris"})], hidden=("<|",),
    ),
}


_USER_TAG = ("a call wrapped in <user>, which Ollama's Laguna parser reads as a call alias, is text: <user> is "
             "the next turn's role tag, and a call read inside it would be a guess")
GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md
    **{(f"ollama-laguna-{case}", strategy): _USER_TAG
       for case in ("user-tagged-call", "user-tagged-call-after-text") for strategy in ("react", "fc")},
    ("ollama-laguna-user-tagged-json-after-text", "fc"): _USER_TAG + " (ReAct runs it: its format asks for JSON actions)",
    **{("ollama-qwen38-truncated-call", strategy): (
        "a Qwen3-Coder call cut right after '<function=NAME>' (no parameter, no '</function>') runs NAME with no "
        "arguments")
       for strategy in ("react", "fc")},
}


test_real_world_reply = reply_test(CASES, GAPS, read)


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_apertus_tokens_quoted_in_code_stay_the_answer(strategy):
    """Apertus 1.5's reasoning tokens named in a code span or a fenced block are the answer's own
    text, shown whole (only the model's own tokens outside code open or end its reasoning)."""
    for text in (
        "Apertus opens its reasoning with `<|inner_prefix|>` and ends it with `<|inner_suffix|>`.",
        "The template:\n```\n<|assistant_start|><|inner_prefix|>...<|inner_suffix|>answer\n```\nThat is all.",
    ):
        check_answer_shown_whole(strategy, text, (GLIMMER_WEATHER,), reader=read)


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("strategy", ["react", "fc"])
@pytest.mark.parametrize("text", [
    # the recipient names one tool, the ATEM block another: which was meant would be a guess
    " to=get_weather<|message|>" + atem("muse.bash", '<atem:parameter name="command">ls</atem:parameter>\n')
    + "<|eot|>",
    # the recipient names no node tool, the ATEM block one: which was meant would be a guess too
    " to=weather_tool<|message|>" + atem("get_weather", '<atem:parameter name="city">SF</atem:parameter>\n')
    + "<|eot|>",
    # an ATEM block naming no node tool
    " to=user<|message|>" + atem("rm_all", '<atem:parameter name="path">/</atem:parameter>\n') + "<|eot|>",
    # the call cut inside its ATEM block
    " to=muse.bash<|message|><atem:function_calls>\n<atem:invoke name=\"muse.bash\">\n<atem:parameter name=\"com",
])
def test_glimmer_call_that_does_not_read_runs_no_node_tool(text, strategy, size):
    """A Glimmer message that is no whole ATEM call of the tool it is addressed to runs none of
    the node's tools: nothing is streamed, and the model is asked again or told the tool is unknown."""
    streamed, turn = read(strategy, Case((GLIMMER_WEATHER, MUSE_BASH), text), size)
    assert not isinstance(turn.decision, FinalAnswer), turn.decision
    if isinstance(turn.decision, ToolCalls):
        assert not {call.name for call in turn.decision.calls} & {"get_weather", "muse.bash"}
    assert "atem:" not in streamed and "<|" not in streamed


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_glimmer_tokens_quoted_in_code_stay_the_answer(strategy):
    """Glimmer's header tokens named in a code span or a fenced block, or a reply that merely starts
    with "to", are the answer's own text, shown whole."""
    for text in (
        "Glimmer heads a message with `to=user<|message|>` and ends it with `<|eot|>`.",
        "The header:\n```\n<|start|>assistant to=user<|message|>Hi<|eot|>\n```\nThat is all.",
        "to be honest, I do not know.",
        "tomorrow it rains.",
    ):
        check_answer_shown_whole(strategy, text, (GLIMMER_WEATHER,), reader=read)


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_tool_call_opened_twice_with_two_different_calls_runs_neither(strategy, size):
    """A ``<tool_call>`` opened twice and closed once runs once only when both copies are the same
    call (Ollama's Laguna test); two different calls there run neither: the model is asked again."""
    text = ('<tool_call>skill\n{"name":"git-diff-review"}\n<tool_call>skill\n{"name":"deploy-prod"}'
            "</tool_call>")
    streamed, turn = read(strategy, Case((tool("skill", "name"),), text), size)
    assert isinstance(turn.decision, ParseFailure), turn.decision
    assert streamed == ""
