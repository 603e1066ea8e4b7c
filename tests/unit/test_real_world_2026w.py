"""A twenty-second set of real-world model outputs: raw replies that users pasted in public bug
reports (late 2025 and 2026) when a tool call or a ReAct step was not parsed, shown raw, or lost,
through both strategies' turn readers (as ``test_real_world_2026v``: the text whole and in pieces
of 1 and 7 characters), and the native tool-call streams of such reports through Function Calling.

Each case names its source beside it; docs/real-world-cases.md lists them with what the user saw.
A text is quoted as the report shows it; where the report shows a format or describes the output
and its values were filled in, the comment says "rebuilt". The tools are declared here with string
parameters, so a value written as markup text is expected as a string, and a JSON value as the
JSON it holds.
"""

import pytest

from agent_core.function_calling.turn import read_function_calling_turn
from agent_core.model_call import ModelChunk, normalize_chunk
from agent_core.turn import ParseFailure, ToolCalls
from tests.unit.helpers import drain
from tests.unit.test_real_world_2026 import (
    END,
    Case,
    check_tool_call_stream,
    delta,
    reply_test,
    tool,
)
from tests.unit.test_real_world_2026d import read

WEATHER = tool("get_weather", "city")
EDIT = tool("edit", "old_string", "new_string")
ADD = tool("add", "a")

DSML_OPEN, DSML_CLOSE = "<｜DSML｜tool_calls>", "</｜DSML｜tool_calls>"


def _dsml(name: str, *parameters: tuple[str, str, str]) -> str:
    """One DSML invoke in its section, as DeepSeek V3.2 / V4 write it: (key, string flag, value)."""
    body = "".join(
        f'<｜DSML｜parameter name="{key}" string="{flag}">{value}</｜DSML｜parameter>\n' for key, flag, value in parameters
    )
    return f'{DSML_OPEN}\n<｜DSML｜invoke name="{name}">\n{body}</｜DSML｜invoke>\n{DSML_CLOSE}'


CASES = {
    # ---- Qwen3.5 / Qwen3.6 ---------------------------------------------------------------------
    # tetherto/qvac PR #2677: Qwen3.5/3.6 fuse their two call templates, <function=NAME> as the
    # first key of the Hermes JSON envelope (verbatim)
    "qvac2677-qwen36-function-equals-key-in-json": Case(
        (tool("webfetch", "url", "format"),),
        '<tool_call>\n{"function=webfetch","arguments":{"url":"https://docs.opencode.ai","format":"markdown"}}\n</tool_call>',
        calls=[("webfetch", {"url": "https://docs.opencode.ai", "format": "markdown"})],
        hidden=("function=", "<tool_call>"),
    ),
    # waybarrios/vllm-mlx PR #281: Qwen3.5 writes <function=...> with no <tool_call> around it (verbatim)
    "vllmmlx281-qwen35-function-block-without-envelope": Case(
        (WEATHER,), "<function=get_weather>\n<parameter=city>\nPrague\n</parameter>\n</function>",
        calls=[("get_weather", {"city": "Prague"})], hidden=("<function", "<parameter"),
    ),
    # mdegans/drama_llama#29: the Qwen3.5/3.6 native shape, as the issue quotes it
    "dramallama29-qwen36-native-xml-call": Case(
        (WEATHER,), "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
        calls=[("get_weather", {"city": "Paris"})], hidden=("<function", "<tool_call>"),
    ),
    # ggml-org/llama.cpp PR #24202: Qwen3.5-9B reasons, then calls with no </think>, its parameters
    # out of the schema's order (rebuilt from the PR's description)
    "llamacpp24202-qwen35-call-in-unclosed-think-params-reordered": Case(
        (EDIT,), "<think>\nThe user wants the file edited. I'll call edit.\n<tool_call>\n<function=edit>\n"
        "<parameter=new_string>\nb\n</parameter>\n<parameter=old_string>\na\n</parameter>\n</function>\n</tool_call>",
        calls=[("edit", {"new_string": "b", "old_string": "a"})], hidden=("<function", "I'll call edit"),
    ),
    # the same PR: reasoning-like text before the call with no think tags at all (rebuilt)
    "llamacpp24202-qwen35-plain-reasoning-then-call": Case(
        (EDIT,), "The user wants the file edited. I'll call edit.\n<tool_call>\n<function=edit>\n<parameter=old_string>\n"
        "a\n</parameter>\n<parameter=new_string>\nb\n</parameter>\n</function>\n</tool_call>",
        calls=[("edit", {"old_string": "a", "new_string": "b"})], hidden=("<function", "<parameter"),
    ),
    # anomalyco/opencode PR #30633 (#24316): Qwen3.6 27B drifts to <function_bash>; the PR never
    # runs it and asks the model again (rebuilt around the quoted tag)
    "opencode30633-qwen36-function-underscore-drift": Case(
        (tool("bash", "command"),), "<tool_call>\n<function_bash>\n<parameter=command>\nls -la\n</parameter>\n</function>\n"
        "</tool_call>",
        fallback="", hidden=("<function", "<parameter"),
    ),
    # QwenLM/Qwen3.8#26: qwen3.5-plus on DashScope, reasoning not sent back: the reasoning and its
    # </think> land in the content (rebuilt from the report)
    "qwen38-26-qwen35plus-think-end-in-content": Case(
        (WEATHER,), "The user is greeting me. I should reply briefly.\n</think>\n\nHello! How can I help?",
        answer="Hello! How can I help?", hidden=("think>", "greeting me"), only=("fc",),
    ),
    # jundot/omlx#2565: a Qwen Coder call as bare JSON in the content (rebuilt: the report's tool)
    "omlx2565-qwen-coder-raw-json-call": Case(
        (tool("read_file", "path"),), '{"name": "read_file", "arguments": {"path": "test.txt"}}',
        calls=[("read_file", {"path": "test.txt"})],
    ),
    # ---- GLM -------------------------------------------------------------------------------------
    # vllm-project/vllm#48095: GLM-5.2 forced call left unparsed in the content (rebuilt: glm47 markup)
    "vllm48095-glm52-forced-call-in-content": Case(
        (WEATHER,), "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Dublin</arg_value>\n</tool_call>",
        calls=[("get_weather", {"city": "Dublin"})], hidden=("arg_key", "<tool_call>"),
    ),
    # ---- DeepSeek V3.2 / V4 (DSML) ---------------------------------------------------------------
    # Kuberwastaken/claurst#395: DeepSeek V4 DSML in the content, a JSON parameter (verbatim)
    "claurst395-dsv4-dsml-json-parameter": Case(
        (tool("question", "questions"),), _dsml("question", ("questions", "false", '[{"q": "..."}]')),
        calls=[("question", {"questions": [{"q": "..."}]})], hidden=("DSML",),
    ),
    # xorbitsai/xagent PR #790: DSML with ASCII pipes (rebuilt)
    "xagent790-dsv4-dsml-ascii-pipes": Case(
        (WEATHER,), '<|DSML|tool_calls>\n<|DSML|invoke name="get_weather">\n<|DSML|parameter name="city" string="true">'
        "Paris</|DSML|parameter>\n</|DSML|invoke>\n</|DSML|tool_calls>",
        calls=[("get_weather", {"city": "Paris"})], hidden=("DSML",),
    ),
    # PyModel/pythinker-code PR #288: typed DSML parameters, a number and a boolean (rebuilt)
    "pythinker288-dsv4-dsml-typed-parameters": Case(
        (tool("read", "path", "count", "verbose"),),
        _dsml("read", ("path", "true", "a.py"), ("count", "false", "3"), ("verbose", "false", "true")),
        calls=[("read", {"path": "a.py", "count": 3, "verbose": True})], hidden=("DSML",),
    ),
    # PrimeIntellect-ai/renderers PR #140: the section after one line break, text before it (rebuilt)
    "renderers140-dsv4-section-after-one-line-break": Case(
        (WEATHER,), "Let me check.\n" + _dsml("get_weather", ("city", "true", "Paris")),
        calls=[("get_weather", {"city": "Paris"})], hidden=("DSML",),
    ),
    # raullenchai/Rapid-MLX PR #1373: DeepSeek V4 0731's DSML call of exec_command (rebuilt)
    "rapidmlx1373-dsv4-0731-exec-command": Case(
        (tool("exec_command", "cmd"),), _dsml("exec_command", ("cmd", "true", "ls -la")),
        calls=[("exec_command", {"cmd": "ls -la"})], hidden=("DSML",),
    ),
    # JustVugg/colibri PR #948: a DSML call cut inside its value (the PR cuts at the marker so no
    # markup leaks): nothing runs, nothing is shown, the model is asked again (rebuilt)
    "colibri948-dsv4-dsml-cut-inside-a-value": Case(
        (WEATHER,), f'{DSML_OPEN}\n<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name="city" string="true">Par',
        fallback="", hidden=("DSML",),
    ),
    # ---- Gemma 4 ---------------------------------------------------------------------------------
    # abetlen/llama-cpp-python#2227: Gemma 4 E4B's call as raw native tokens (rebuilt: the report's tools)
    "llamacpppython2227-gemma4-write-file": Case(
        (tool("write_file", "file_path", "content"), tool("run_command", "command")),
        '<|tool_call>call:write_file{file_path:<|"|>hello.py<|"|>,content:<|"|>print("hi")<|"|>}<tool_call|>',
        calls=[("write_file", {"file_path": "hello.py", "content": 'print("hi")'})], hidden=("tool_call", "call:"),
    ),
    # NousResearch/hermes-agent#6626: Gemma 4's brace syntax with plain double quotes (rebuilt)
    "hermes6626-gemma4-brace-plain-quotes": Case(
        (tool("search", "query"),), '<|tool_call>call:search{query: "blockchain news"}<tool_call|>',
        calls=[("search", {"query": "blockchain news"})], hidden=("tool_call",),
    ),
    # qualcomm/GenieX PR #1345: two Gemma 4 calls in a row (GenieX runs the first; both run here; rebuilt)
    "geniex1345-gemma4-two-calls": Case(
        (WEATHER,), '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|><|tool_call>call:get_weather{city:'
        '<|"|>Tokyo<|"|>}<tool_call|>',
        calls=[("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Tokyo"})], hidden=("tool_call",),
    ),
    # ---- gpt-oss (Harmony) -----------------------------------------------------------------------
    # oobabooga/textgen#7374: gpt-oss through llama-server, its special tokens dropped (verbatim)
    "textgen7374-gptoss-channel-words-without-tokens": Case(
        (WEATHER,), 'analysisUser says "Hello World!" Probably greeting. Should respond politely.assistantfinalHello! 👋 '
        "How can I help you today?",
        answer="Hello! 👋 How can I help you today?", hidden=("analysis", "greeting"),
    ),
    # ml-explore/mlx-lm#875: gpt-oss's analysis then its call, tokens kept (the report's first
    # line verbatim, the call header rebuilt after it)
    "mlxlm875-gptoss-analysis-then-web-search": Case(
        (tool("web_search", "query"),), "<|channel|>analysis<|message|>User wants weather info. Need web_search tool.<|end|>\n"
        '<|start|>assistant<|channel|>commentary to=functions.web_search <|constrain|>json<|message|>{"query": '
        '"weather in Austin right now"}<|call|>',
        calls=[("web_search", {"query": "weather in Austin right now"})], hidden=("channel", "User wants"),
    ),
    # ---- Devstral 2 / Kimi K2.5 ------------------------------------------------------------------
    # ml-explore/mlx-lm#1307: Devstral-Small-2's [TOOL_CALLS]name[ARGS]{json} (rebuilt: a tool)
    "mlxlm1307-devstral2-tool-calls-args": Case(
        (WEATHER,), '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}', calls=[("get_weather", {"city": "Paris"})],
        hidden=("TOOL_CALLS", "[ARGS]"),
    ),
    # cubist38/mlx-openai-server#174: Kimi K2.5's section with a functions.NAME:IDX id (rebuilt)
    "mlxopenai174-kimi-k25-section": Case(
        (WEATHER,), "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>"
        '{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>',
        calls=[("get_weather", {"city": "Paris"})], hidden=("tool_call", "functions."),
    ),
    # ---- ReAct steps -----------------------------------------------------------------------------
    # NVIDIA/NeMo-Agent-Toolkit#1308: the outputs its strict regex failed (the table, verbatim)
    "nat1308-input-label-for-action-input": Case((ADD,), 'Action: add\nInput: {"a": 2}', calls=[("add", {"a": 2})],
                                                 only=("react",)),
    "nat1308-lowercase-action-label": Case((ADD,), 'action: add\nAction Input: {"a": 2}', calls=[("add", {"a": 2})],
                                           only=("react",)),
    "nat1308-well-formed-step": Case((ADD,), 'Action: add\nAction Input: {"a": 2}', calls=[("add", {"a": 2})],
                                     only=("react",)),
    # a blog post on LangChain's ReAct agent with Qwen (docs/real-world-cases.md has its address):
    # after the observation the model answered with no label; LangChain looped on "Missing
    # 'Action:'" (the log's text, verbatim)
    "guoweiwei-qwen-unlabelled-answer-after-observation": Case(
        (tool("list_users", "page"),), "此处省略我的工具输出内容,以上为全部用户列表。部分用户未填写昵称和邮箱信息。",
        answer="此处省略我的工具输出内容,以上为全部用户列表。部分用户未填写昵称和邮箱信息。", only=("react",),
    ),
}


GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md
}


test_real_world_reply = reply_test(CASES, GAPS, read)


# ---- streams as the reports show them ----------------------------------------------------------

# smg-project/smg PR #1030: DeepSeek V4's DSML call streamed as content, in the pieces the PR's
# log shows (verbatim to 'location'; the rest rebuilt for the log's "Weather in London")
SMG1030_PIECES = [
    "\n\n", "<｜DSML｜", "tool", "_c", "alls", ">\n", "<｜DSML｜", "inv", "oke", " name", '="', "get", "_", "weather",
    '">\n', "<｜DSML｜", "parameter", " name", '="', "location", '"', " string", '="', "true", '">', "London",
    "</｜DSML｜", "parameter", ">\n", "</｜DSML｜", "invoke", ">\n", "</｜DSML｜", "tool", "_c", "alls", ">",
]


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_smg1030_dsml_in_the_reports_pieces(strategy):
    tools = (tool("get_weather", "location"),)
    chunks = iter([*(ModelChunk(text=piece) for piece in SMG1030_PIECES), ModelChunk(finish_reason="stop")])
    if strategy == "react":
        from agent_core.react.turn import read_react_turn
        from agent_core.tool_schema import ToolRegistry

        streamed, turn = drain(read_react_turn(chunks, ToolRegistry(list(tools)), 1))
    else:
        streamed, turn = drain(read_function_calling_turn(chunks, ["get_weather"]))
    assert isinstance(turn.decision, ToolCalls)
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [("get_weather", {"location": "London"})]
    assert "DSML" not in streamed


STREAMS = {
    # anomalyco/opencode#17750: Qwen3-8B on SiliconFlow, the envelope's </tool_call> (and its
    # closing brace) left in the native call's arguments (the report's text; "[...]" filled in)
    "opencode17750-qwen3-8b-closing-tag-in-arguments": (
        [
            delta(index=0, id="call_1", type="function", function={"name": "question", "arguments": ""}),
            delta(index=0, function={"arguments": '{"questions": ["Which framework?"], "multiple": true}}\n</tool_call>'}),
            END,
        ],
        [("question", {"questions": ["Which framework?"], "multiple": True})],
    ),
    # vllm-project/vllm PR #35906: gpt-oss leaks a Harmony control token into the native tool name
    # (the PR's name, verbatim; the arguments rebuilt)
    "vllm35906-gptoss-channel-token-in-tool-name": (
        [
            delta(index=0, id="call_1", type="function",
                  function={"name": "manage_cart<|channel|>commentary", "arguments": '{"action": "add"}'}),
            END,
        ],
        [("manage_cart", {"action": "add"})],
    ),
    # openai/harmony PR #114: the same leak before the namespace's recipient ("bash<|channel|>...")
    "harmony114-gptoss-channel-token-after-namespaced-name": (
        [
            delta(index=0, id="call_1", type="function",
                  function={"name": "functions.bash<|channel|>commentary", "arguments": '{"command": "ls"}'}),
            END,
        ],
        [("bash", {"command": "ls"})],
    ),
}


@pytest.mark.parametrize("name", list(STREAMS))
def test_real_world_tool_call_stream(name):
    raw, expected = STREAMS[name]
    check_tool_call_stream(raw, "", expected)


BROKEN_STREAMS = {
    # edison7009/EchoBird#187: GLM-5.1, one call's arguments hold a whole object and the start of a
    # second one (the report's text, its Windows paths shortened)
    "echobird187-glm51-second-object-cut-in-arguments": (
        "shell_command",
        '{"command": "cat \\"D:\\\\Workspace\\\\a.java\\"", "workdir": "D:\\\\Workspace\\\\rule-engine"}{"command": "',
    ),
    # anomalyco/opencode#20650: Kimi K2.5's arguments cut inside a string (verbatim)
    "opencode20650-kimi-k25-unterminated-arguments": ("bash", '{"command":":1.'),
}


@pytest.mark.parametrize("name", list(BROKEN_STREAMS))
def test_broken_arguments_never_run(name):
    """A call whose arguments were cut runs nothing: the model is told why, under the call's id."""
    tool_name, arguments = BROKEN_STREAMS[name]
    raw = [delta(index=0, id="call_1", type="function", function={"name": tool_name, "arguments": arguments}), END]
    streamed, turn = drain(read_function_calling_turn(iter([normalize_chunk(r) for r in raw]), [tool_name]))
    assert isinstance(turn.decision, ToolCalls)
    assert turn.decision.calls == ()
    assert [(c.id, c.name) for c in turn.decision.invalid] == [("call_1", tool_name)]
    assert streamed == ""


# ---- the fixes' limits ---------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_function_equals_key_runs_only_a_whole_envelope_of_a_node_tool(strategy):
    """The fused ``{"function=NAME","arguments":{...}}`` runs NAME only when NAME is a node tool and
    the rest is that envelope's JSON; a sentence that quotes the shape in a code span stays text."""
    fetch = tool("webfetch", "url")
    unknown = '<tool_call>\n{"function=delete_all","arguments":{"url":"x"}}\n</tool_call>'
    extra_key = '<tool_call>\n{"function=webfetch","arguments":{"url":"x"},"also":1}\n</tool_call>'
    for text in (unknown, extra_key):
        for size in (None, 1, 7):
            _, turn = read(strategy, Case((fetch,), text), size)
            assert not [c for c in getattr(turn.decision, "calls", ()) if c.name == "webfetch"]
    shown = 'Qwen sometimes writes `{"function=webfetch","arguments":{}}` instead of a call.'
    content = shown if strategy == "fc" else f"Thought: explain.\nFinal Answer: {shown}"
    for size in (None, 1, 7):
        streamed, turn = read(strategy, Case((fetch,), content), size)
        assert turn.decision.text == shown and streamed.strip() == shown


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_function_equals_key_with_blanks_runs_in_both_strategies(strategy):
    """The fused envelope with blanks or line breaks after its brace (``{ "function=NAME", ...}``,
    as ``text_calls._FUNCTION_EQUALS_KEY`` allows) runs NAME in ReAct as in Function Calling: ReAct
    looked for ``{"function=`` only and asked the model again."""
    fetch = tool("webfetch", "url")
    for text in ('<tool_call>\n{ "function=webfetch", "arguments": {"url": "x"}}\n</tool_call>',
                 '<tool_call>\n{\n  "function=webfetch",\n  "arguments": {"url": "x"}\n}\n</tool_call>'):
        for size in (None, 1, 7):
            streamed, turn = read(strategy, Case((fetch,), text), size)
            assert [(c.name, c.arguments) for c in turn.decision.calls] == [("webfetch", {"url": "x"})], turn.decision
            assert "function=" not in streamed


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_invoke_cut_inside_a_value_runs_nothing(strategy):
    """MiniMax's and DeepSeek's ``<invoke>`` the reply never closed, ended inside a parameter's
    value, runs nothing (before, it ran without that argument); one with its parameters closed
    still runs with them, as does one closed around a parameter left open."""
    cut = '<minimax:tool_call><invoke name="get_weather"><parameter name="city">Par'
    whole_params = '<minimax:tool_call><invoke name="get_weather"><parameter name="city">Paris</parameter>'
    closed_around_open = '<minimax:tool_call><invoke name="get_weather"><parameter name="city">Paris</invoke>'
    for size in (None, 1, 7):
        _, turn = read(strategy, Case((WEATHER,), cut), size)
        assert isinstance(turn.decision, ParseFailure)
        for text in (whole_params, closed_around_open):
            _, turn = read(strategy, Case((WEATHER,), text), size)
            assert [(c.name, c.arguments) for c in turn.decision.calls] == [("get_weather", {"city": "Paris"})]


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_invoke_cut_in_the_tag_of_its_next_parameter_runs_nothing(strategy):
    """An ``<invoke>`` the reply never closed, ended in the opening tag of its next parameter
    (``<parame``, or ``<`` alone), runs nothing: run, it would write a file without its content.
    One ended in a closing tag (``</inv``, the block's ``</minimax:tool_call>``) still runs."""
    write = tool("write_file", "path", "content")
    head = '<minimax:tool_call><invoke name="write_file"><parameter name="path">a.txt</parameter>'
    for size in (None, 1, 7):
        for cut in ("<parame", "\n<", '<parameter name="con'):
            _, turn = read(strategy, Case((write,), head + cut), size)
            assert isinstance(turn.decision, ParseFailure), (cut, turn.decision)
        for end in ("</inv", "\n</minimax:tool_call>"):
            _, turn = read(strategy, Case((write,), head + end), size)
            assert [(c.name, c.arguments) for c in turn.decision.calls] == [("write_file", {"path": "a.txt"})]


def test_closing_tag_inside_a_string_value_is_kept():
    """Only a ``</tool_call>`` after the arguments' closing bracket is the envelope's: one inside a
    string value is the value's own text, and a tag before more text is not dropped."""
    raw = [
        delta(index=0, id="call_1", type="function",
              function={"name": "write", "arguments": '{"text": "ends with </tool_call>"}'}),
        END,
    ]
    check_tool_call_stream(raw, "", [("write", {"text": "ends with </tool_call>"})])
    raw = [
        delta(index=0, id="call_1", type="function", function={"name": "write", "arguments": '{"text": "a"}\n</tool_call> b'}),
        END,
    ]
    _, turn = drain(read_function_calling_turn(iter([normalize_chunk(r) for r in raw]), ["write"]))
    assert turn.decision.calls == () and len(turn.decision.invalid) == 1


def test_control_token_name_of_no_node_tool_is_not_renamed():
    """A leaked control token is cut from a native name only when what stands before it is a node
    tool; any other name stays as it came (the run reports it as an unknown tool)."""
    raw = [
        delta(index=0, id="call_1", type="function", function={"name": "drop_db<|channel|>commentary", "arguments": "{}"}),
        END,
    ]
    _, turn = drain(read_function_calling_turn(iter([normalize_chunk(r) for r in raw]), ["manage_cart"]))
    assert [c.name for c in turn.decision.calls] == ["drop_db<|channel|>commentary"]
