"""A forty-second set of real-world cases: the newest model families' tool-call markup and answer
framing as servers hand it on in 2026. GLM-4.7's calls without arguments and with the name on
its own line, Qwen3-Coder's and Nemotron's calls with the ``<tool_call>`` wrapper lost, broken or
holding prose or JSON, a parameter value that quotes ``</tool_call>``, Devstral 2's ``[ARGS]``
form, DeepSeek V3.2's DSML markup, Kimi K2's call ids in other forms, Seed-OSS's ``seed:`` tags,
ERNIE 4.5's ``<response>`` frame, Hunyuan's ``<tool_calls>`` block, Cohere Command's
``<|START_ACTION|>`` block and gpt-oss's Harmony channels, from public issues and pull requests of
the servers (vLLM, Ollama, oMLX, Rapid-MLX, vllm-mlx, mlx-vlm, exo, Dynamo, smg) and the apps and
tools around them (LlamaFactory, odysseus).

Replies are read through both strategies' turn readers, whole and in pieces of 1 and 7 characters
(``test_real_world_2026.reply_test``). Each case names its source beside it;
docs/real-world-cases.md lists them. A text is quoted as the report shows it (trimmed where the
comment says so); where the report gives the format or describes the output and its values were
filled in, the comment says "rebuilt". The tools are declared with string parameters.
"""

import pytest

from agent_core.turn import ToolCalls
from tests.unit.test_real_world_2026 import Case, reply_test, tool
from tests.unit.test_real_world_2026d import read

WEATHER = tool("get_weather", "city")

CASES = {
    # ---- GLM-4.7 ----------------------------------------------------------------------------------------
    # vllm-project/vllm PR #32097: GLM-4.7 calls a tool that takes no arguments as
    # "<tool_call>get_current_time</tool_call>" (verbatim)
    "vllm32097-glm47-call-without-arguments": Case(
        (tool("get_current_time"),),
        "<tool_call>get_current_time</tool_call>",
        calls=[("get_current_time", {})], hidden=("<tool_call>",),
    ),
    # Blaizzy/mlx-vlm PR #2207: GLM puts the name on its own line after <tool_call>; "zip" is a
    # string in the schema and must stay "10001" (the PR's example; the layout rebuilt from the
    # GLM-4.7 template)
    "mlxvlm2207-glm47-name-on-its-own-line": Case(
        (tool("get_weather", "zip", "days"),),
        "<tool_call>get_weather\n<arg_key>zip</arg_key>\n<arg_value>10001</arg_value>\n<arg_key>days</arg_key>\n"
        "<arg_value>3</arg_value>\n</tool_call>",
        calls=[("get_weather", {"zip": "10001", "days": "3"})], hidden=("<arg_key>",),
    ),
    # ---- Qwen3-Coder / Nemotron: the <tool_call> wrapper lost or broken ------------------------------------
    # ollama/ollama PR #17742: qwen3-coder drops the opening <tool_call> and keeps the orphan
    # closing tag (verbatim)
    "ollama17742-qwen3-coder-bare-function-orphan-close": Case(
        (tool("exec_command", "cmd"),),
        "<function=exec_command>\n<parameter=cmd>\necho LEAK_TEST\n</parameter>\n</function>\n</tool_call>",
        calls=[("exec_command", {"cmd": "echo LEAK_TEST"})], hidden=("<function", "</tool_call>"),
    ),
    # jundot/omlx PR #844 (a comment): Qwen3-Coder-30B through Claude Code, a sentence, then the bare
    # call and the orphan </tool_call> (verbatim)
    "omlx844-qwen3-coder-sentence-then-bare-function": Case(
        (tool("Bash", "command"),),
        "I'll check the model information to confirm I'm running on the local oMLX server.\n\n<function=Bash>\n"
        "<parameter=command>\necho $ANTHROPIC_BASE_URL && echo $ANTHROPIC_DEFAULT_SONNET_MODEL\n</parameter>\n"
        "</function>\n</tool_call>",
        calls=[("Bash", {"command": "echo $ANTHROPIC_BASE_URL && echo $ANTHROPIC_DEFAULT_SONNET_MODEL"})],
        hidden=("<function", "</tool_call>"),
    ),
    # raullenchai/Rapid-MLX PR #1031, variant (a): Nemotron's call with </tool_call> missing
    # (verbatim)
    "rapidmlx1031-nemotron-closing-wrapper-missing": Case(
        (tool("f", "x"),),
        "<tool_call><function=f><parameter=x>1</parameter></function>",
        calls=[("f", {"x": "1"})], hidden=("<function",),
    ),
    # the same PR, variant (d): stray text between </function> and </tool_call> (the PR's
    # "<tool_call><function=f>..</function> ok </tool_call>", the elided parameter filled in)
    "rapidmlx1031-nemotron-stray-text-before-wrapper-end": Case(
        (tool("f", "x"),),
        "<tool_call><function=f><parameter=x>1</parameter></function> ok </tool_call>",
        calls=[("f", {"x": "1"})], hidden=("<function",),
    ),
    # the same PR, variant (e): prose between <tool_call> and <function= (the PR's example, the
    # elided parameter filled in)
    "rapidmlx1031-nemotron-prose-inside-wrapper": Case(
        (tool("f", "x"),),
        "<tool_call>Let me check.<function=f><parameter=x>1</parameter></function></tool_call>",
        calls=[("f", {"x": "1"})], hidden=("<function",),
    ),
    # raullenchai/Rapid-MLX PR #1571 (a review): Nemotron's call with a JSON body instead of
    # <parameter> elements (verbatim)
    "rapidmlx1571-nemotron-json-body-in-function": Case(
        (tool("calculate", "expression"),),
        '<tool_call><function=calculate>{"expression":"2*3"}</function></tool_call>',
        calls=[("calculate", {"expression": "2*3"})], hidden=("<function",),
    ),
    # raullenchai/Rapid-MLX#1515: Qwen3.6 writes a file whose text quotes "</tool_call>"; the value
    # must reach the tool whole (the issue's value verbatim; the call rebuilt in Qwen3-Coder's form)
    "rapidmlx1515-qwen36-parameter-quoting-tool-call-end": Case(
        (tool("write_file", "path", "content"),),
        "<tool_call>\n<function=write_file>\n<parameter=path>\nnotes.md\n</parameter>\n<parameter=content>\n"
        "A tool call block ends with </tool_call> on its own.\n</parameter>\n</function>\n</tool_call>",
        calls=[("write_file", {"path": "notes.md", "content": "A tool call block ends with </tool_call> on its own."})],
    ),
    # ollama/ollama PR #13764: Nemotron 3 Nano calls a tool without closing its thinking, the call
    # in Qwen3-Coder's form (the PR's subject; rebuilt)
    "ollama13764-nemotron-call-without-think-end": Case(
        (WEATHER,),
        "<think>The user wants the weather in Oslo, so I call get_weather.\n<tool_call>\n<function=get_weather>\n"
        "<parameter=city>\nOslo\n</parameter>\n</function>\n</tool_call>",
        calls=[("get_weather", {"city": "Oslo"})], hidden=("<function", "so I call"),
    ),
    # ---- Devstral 2 --------------------------------------------------------------------------------------
    # waybarrios/vllm-mlx PR #631: Devstral Small 2 and Ministral 3 write
    # "[TOOL_CALLS]<name>[ARGS]<json arguments>" (the chat template's form; the values rebuilt)
    "vllmmlx631-devstral2-tool-calls-args-marker": Case(
        (WEATHER,),
        '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}',
        calls=[("get_weather", {"city": "Paris"})], hidden=("[ARGS]", "[TOOL_CALLS]"),
    ),
    # ---- DeepSeek V3.2 DSML -------------------------------------------------------------------------------
    # smg-project/smg PR #895: DeepSeek V3.2's DSML call, string and non-string parameters
    # (verbatim)
    "smg895-deepseek-v32-dsml-function-calls": Case(
        (tool("get_weather", "location", "count"),),
        "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n"
        "<｜DSML｜parameter name=\"location\" string=\"true\">Tokyo</｜DSML｜parameter>\n"
        "<｜DSML｜parameter name=\"count\" string=\"false\">5</｜DSML｜parameter>\n</｜DSML｜invoke>\n"
        "</｜DSML｜function_calls>",
        calls=[("get_weather", {"location": "Tokyo", "count": 5})], hidden=("DSML",),
    ),
    # ---- Kimi K2: call ids in other forms -----------------------------------------------------------------
    # exo-explore/exo#2281: Kimi K2.7 writes the id as functions_<name>_<n> once a client has
    # handed ids back sanitised (the issue's markup; the arguments, elided there, rebuilt)
    "exo2281-kimi-k27-underscore-call-id": Case(
        (WEATHER,),
        "<|tool_calls_section_begin|><|tool_call_begin|>functions_get_weather_1<|tool_call_argument_begin|>"
        '{"city": "Tokyo"}<|tool_call_end|><|tool_calls_section_end|>',
        calls=[("get_weather", {"city": "Tokyo"})], hidden=("<|tool",),
    ),
    # vllm-project/vllm PR #27565: Kimi K2's id without the "functions." prefix, "get_weather:0"
    # (the PR's id; the call rebuilt)
    "vllm27565-kimi-k2-id-without-functions-prefix": Case(
        (WEATHER,),
        "<|tool_calls_section_begin|><|tool_call_begin|>get_weather:0<|tool_call_argument_begin|>"
        '{"city": "Tokyo"}<|tool_call_end|><|tool_calls_section_end|>',
        calls=[("get_weather", {"city": "Tokyo"})], hidden=("<|tool",),
    ),
    # ---- Seed-OSS ----------------------------------------------------------------------------------------
    # vllm-project/vllm PR #23241 (a comment): Seed-OSS-36B's <seed:think> block left in the content
    # (its opening verbatim, trimmed; the block's end and the answer rebuilt)
    "vllm23241-seed-oss-think-block-in-content": Case(
        (WEATHER,),
        "<seed:think>\nGot it, let's see. The user wrote \"Ciallo\". First, I need to figure out what that means."
        "</seed:think>Ciallo! How can I help you today?",
        answer="Ciallo! How can I help you today?", hidden=("seed:think", "figure out"),
    ),
    # vllm-project/vllm PR #47741: Seed-OSS's call is Qwen3-Coder's with a <seed:tool_call> wrapper
    # (the PR's description; rebuilt)
    "vllm47741-seed-oss-seed-tool-call-wrapper": Case(
        (WEATHER,),
        "<seed:tool_call>\n<function=get_weather>\n<parameter=city>\nBerlin\n</parameter>\n</function>\n"
        "</seed:tool_call>",
        calls=[("get_weather", {"city": "Berlin"})], hidden=("seed:tool_call", "<function"),
    ),
    # ---- ERNIE 4.5 thinking --------------------------------------------------------------------------------
    # vllm-project/vllm PR #25027: ERNIE-4.5-21B-A3B-Thinking answers as
    # "abc\n</think>\n\n\n<response>\ndef\n</response>\n" (the PR's format; the texts rebuilt)
    "vllm25027-ernie45-response-frame": Case(
        (WEATHER,),
        "The user greets me; reply briefly.\n</think>\n\n\n<response>\nHello! How can I help?\n</response>\n",
        answer="Hello! How can I help?", hidden=("<response>", "</think>", "reply briefly"),
    ),
    # the same PR: a call as "abc\n</think>\n\n\n<tool_call>\nxyz\n</tool_call>\n" (rebuilt)
    "vllm25027-ernie45-call-after-think-end": Case(
        (tool("get_current_temperature", "location"),),
        "I need the temperature in Beijing.\n</think>\n\n\n<tool_call>\n"
        '{"name": "get_current_temperature", "arguments": {"location": "Beijing"}}\n</tool_call>\n',
        calls=[("get_current_temperature", {"location": "Beijing"})], hidden=("<tool_call>", "I need"),
    ),
    # ---- Hunyuan -----------------------------------------------------------------------------------------
    # hiyouga/LlamaFactory PR #10771: Hunyuan's template asks for <tool_calls>, then per call
    # "<tool_call>function_name\n```json\nfunction_arguments_in_json_format\n```</tool_call>", then
    # </tool_calls> (the template's format; the call rebuilt from the PR's example)
    "llamafactory10771-hunyuan-tool-calls-block": Case(
        (tool("get_current_temperature", "city"),),
        '<tool_calls><tool_call>get_current_temperature\n```json\n{"city": "Paris"}\n```</tool_call></tool_calls>',
        calls=[("get_current_temperature", {"city": "Paris"})], hidden=("<tool_call", "```"),
    ),
    # ---- Cohere Command ------------------------------------------------------------------------------------
    # smg-project/smg#305: Cohere Command's call block, "tool_name" and "parameters" keys
    # (verbatim, the names and value made a declared tool's)
    "smg305-cohere-start-action-block": Case(
        (WEATHER,),
        '<|START_ACTION|>\n{"tool_name": "get_weather", "parameters": {"city": "Toronto"}}\n<|END_ACTION|>',
        calls=[("get_weather", {"city": "Toronto"})], hidden=("START_ACTION",),
    ),
    # ---- gpt-oss Harmony ---------------------------------------------------------------------------------
    # odysseus-dev/odysseus#4522: the commentary channel's call as it reaches a client, the
    # recipient and the body after it (the issue's stream; the arguments rebuilt)
    "odysseus4522-gptoss-commentary-call": Case(
        (tool("web_search", "query"),),
        '<|channel|>commentary to=functions.web_search<|message|>{"query": "harmony format"}<|call|>',
        calls=[("web_search", {"query": "harmony format"})], hidden=("<|channel|>",),
    ),
    # ai-dynamo/dynamo PR #10366: gpt-oss-120b's call in the analysis channel with a bare "code"
    # constraint instead of "<|constrain|>json" (verbatim)
    "dynamo10366-gptoss-analysis-call-code-constraint": Case(
        (tool("grep", "pattern"),),
        '<|channel|>analysis to=functions.grep code<|message|>{"pattern":"foo"}<|call|>',
        calls=[("grep", {"pattern": "foo"})], hidden=("<|channel|>",),
    ),
}

GAPS: dict[tuple[str, str], str] = {}

test_real_world_reply = reply_test(CASES, GAPS, read)


# ---- the fixes' limits ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call_id", "expected"),
    [
        ("functions_get_weather_1", "get_weather"),  # exo-explore/exo#2281
        ("functions_get_weather1", "get_weather"),
        ("functions.get_weather_12", "get_weather"),
        ("functions_get_weather_x", None),  # no index: not read as the tool
        ("functions_get_weather_report_1", None),  # another tool's name
    ],
)
def test_kimi_id_written_with_underscores_names_only_a_declared_tool(call_id, expected):
    """An id in K2.7's ``functions_NAME_IDX`` form runs the declared tool it names; one that names
    no declared tool with an index after it runs nothing (the model is asked again)."""
    text = (f"<|tool_calls_section_begin|><|tool_call_begin|>{call_id}<|tool_call_argument_begin|>"
            '{"city": "Tokyo"}<|tool_call_end|><|tool_calls_section_end|>')
    for strategy in ("react", "fc"):
        _, turn = read(strategy, Case((WEATHER,), text), None)
        ran = [c.name for c in turn.decision.calls] if isinstance(turn.decision, ToolCalls) else []
        assert ran == [expected] if expected else "get_weather" not in ran


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_hunyuan_fence_holding_no_json_object_runs_nothing(strategy):
    """A Hunyuan ``<tool_call>`` whose fence holds no JSON object is not read as that tool's call
    with made-up arguments."""
    case = Case((tool("get_current_temperature", "city"),),
                "<tool_calls><tool_call>get_current_temperature\n```json\nParis, please\n```</tool_call></tool_calls>")
    _, turn = read(strategy, case, None)
    assert not isinstance(turn.decision, ToolCalls) or turn.decision.calls[0].arguments != {}


@pytest.mark.parametrize("strategy", ["react", "fc"])
@pytest.mark.parametrize("size", [None, 1, 7])
def test_a_value_quoting_the_envelope_end_twice_reaches_the_tool_whole(strategy, size):
    value = "First </tool_call>, then </tool_call> again."
    case = Case((tool("write_file", "path", "content"),),
                "<tool_call>\n<function=write_file>\n<parameter=path>\nx.md\n</parameter>\n<parameter=content>\n"
                f"{value}\n</parameter>\n</function>\n</tool_call>")
    _, turn = read(strategy, case, size)
    assert isinstance(turn.decision, ToolCalls)
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [("write_file", {"path": "x.md", "content": value})]


def test_an_envelope_closing_an_open_value_before_another_call_keeps_both_calls():
    """A ``</tool_call>`` after an open ``<parameter=`` and before another call is that call's end
    (vllm-project/vllm#21571's shape), not text of the value: both calls run (Function Calling;
    before, the later call's ``</function>`` kept the first block unread, and only Rome ran)."""
    text = ("<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</tool_call>\n<tool_call>\n"
            "<function=get_weather>\n<parameter=city>\nRome\n</parameter>\n</function>\n</tool_call>")
    _, turn = read("fc", Case((WEATHER,), text), None)
    assert isinstance(turn.decision, ToolCalls)
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [
        ("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Rome"})]
