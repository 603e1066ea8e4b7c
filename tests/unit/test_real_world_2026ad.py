"""A twenty-ninth set of real-world model outputs: raw replies that users of agent frameworks and
agent harnesses (Hermes Agent and its web UI, OpenClaude, pi, opencompany/openhuman, StaffDeck,
thane, crustly, bisheng, jarvis) quoted in 2025 and 2026 reports when the loop read a reply
wrong: a call shown as text and never run, markup shown as the answer, a call the harness could
not read. They are read through both strategies' turn readers (as ``test_real_world_2026w``: the
text whole and in pieces of 1 and 7 characters).

Each case names its source beside it; docs/real-world-cases.md lists them with what the user saw
and expected. A text is quoted as the report shows it; where the report shows a format or
describes the output and its values were filled in, the comment says "rebuilt". The tools are
declared here with string parameters.
"""

from agent_core.turn import ParseFailure, ToolCalls
from tests.unit.test_real_world_2026 import Case, assert_shown_or_runs_nothing, reply_test, tool
from tests.unit.test_real_world_2026d import read

TERMINAL = tool("terminal", "command")
READ_FILE = tool("read_file", "path")
DS, DE = "<｜｜DSML｜｜", "</｜｜DSML｜｜"

CASES = {
    # ---- DeepSeek DSML and Claude's invoke written as text -----------------------------------------
    # tinyhumansai/opencompany PR #2093: a chat-v1 model's calls in the message body, DSML with the
    # bars doubled, a sentence before them; neither call ran and the agent reported "no results"
    # for a search it never made (verbatim)
    "opencompany2093-dsml-doubled-bars-two-invokes": Case(
        (tool("workspace_list"), tool("workspace_search", "query")),
        "The two searches returned no results, so there's no team or org chart note in the\nworkspace that I can "
        "find. Let me check whether there's a people or roles note\nunder a different name.\n\n"
        f'{DS}tool_calls>\n{DS}invoke name="workspace_list">\n{DE}invoke>\n{DS}invoke name="workspace_search">\n'
        f'{DS}parameter name="query" string="true">strategy{DE}parameter>\n{DE}invoke>\n{DE}tool_calls>',
        calls=[("workspace_list", {}), ("workspace_search", {"query": "strategy"})], hidden=("DSML", "invoke"),
    ),
    # the same PR: the orchestrator wrote Claude's undecorated <invoke name="query_company"> (rebuilt
    # around the quoted tag)
    "opencompany2093-undecorated-invoke": Case(
        (tool("query_company", "question"),),
        '<invoke name="query_company">\n<parameter name="question">Who owns the strategy note?</parameter>\n</invoke>',
        calls=[("query_company", {"question": "Who owns the strategy note?"})], hidden=("<invoke", "<parameter"),
    ),
    # tinyhumansai/openhuman#6344: a Gemma-style call re-issued as text after a contract error; the
    # orchestrator then told the user it "returned page data" (verbatim)
    "openhuman6344-gemma-notion-fetch-as-text": Case(
        (tool("NOTION_FETCH_DATA", "fetch_type"),), '<|tool_call>call:NOTION_FETCH_DATA{fetch_type:<|"|>pages<|"|>}<tool_call|>',
        calls=[("NOTION_FETCH_DATA", {"fetch_type": "pages"})], hidden=("tool_call", "call:"),
    ),
    # tinyhumansai/openhuman PR #6346: the orchestrator's own final reply in DeepSeek DSML (the PR
    # quotes its opening; the value rebuilt)
    "openhuman6346-dsml-shell-as-final-reply": Case(
        (tool("shell", "command"),), '<｜DSML｜tool_calls><｜DSML｜invoke name="shell"><｜DSML｜parameter name="command" '
        'string="true">ls -la</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜tool_calls>',
        calls=[("shell", {"command": "ls -la"})], hidden=("DSML",),
    ),
    # the same PR: Gemma's third argument form, ``call:{"name": .., "arguments": ..}`` (rebuilt from
    # the form the PR names): fixed here, it was asked again as unreadable markup
    "openhuman6346-gemma-call-json-object": Case(
        (tool("shell", "command"),), '<|tool_call>call:{"name": "shell", "arguments": {"command": "ls -la"}}<tool_call|>',
        calls=[("shell", {"command": "ls -la"})], hidden=("tool_call", "call:"),
    ),
    # ---- Hermes Agent's call line copied into a reply ----------------------------------------------
    # EKKOLearnAI/hermes-studio#942 (in Chinese): MiniMax-M2.7 writes the line Hermes shows for a
    # call; it was shown in the chat and never run (the report's line; its typographic quotes
    # written straight): fixed here, it was shown as the answer
    "hermesstudio942-calling-tool-with-arguments": Case(
        (TERMINAL,), '[Calling tool: terminal with arguments: {"command": "free -h && df -h / && nvidia-smi '
        '--query-gpu=utilization.gpu,utilization.memory,memory.used,memory.total --format=csv,noheader 2>/dev/null '
        "|| echo 'no nvidia'\"}]",
        calls=[("terminal", {"command": "free -h && df -h / && nvidia-smi --query-gpu=utilization.gpu,"
                             "utilization.memory,memory.used,memory.total --format=csv,noheader 2>/dev/null || "
                             "echo 'no nvidia'"})],
        hidden=("Calling tool",),
    ),
    # the same report: the line with no arguments, then MiniMax's parameters with their opening
    # <minimax:tool_call> and <invoke> lost (verbatim, quotes straight)
    "hermesstudio942-minimax-tags-without-openers": Case(
        (tool("search_files", "file_glob", "path", "pattern"),),
        '[Calling tool: search_files]\n<parameter name="file_glob">*.tsx</parameter>\n<parameter name="path">'
        '/home/caoya/hermes-web-ui</parameter>\n<parameter name="pattern">tool_call|ToolCall|tool-call</parameter>\n'
        "</invoke>\n</minimax:tool_call>",
        fallback="", hidden=("<parameter", "minimax:tool_call"),
    ),
    # EKKOLearnAI/hermes-studio#840 (in Chinese): deepseek-chat writes the line with "arguments=";
    # the user saw it and nothing ran (rebuilt: the code): fixed here
    "hermesstudio840-calling-tool-arguments-equals": Case(
        (tool("execute_code", "code"),), '[Calling tool: execute_code with arguments={"code": "print(6 * 7)"}]',
        calls=[("execute_code", {"code": "print(6 * 7)"})], hidden=("Calling tool",),
    ),
    # ---- bare JSON call objects in the content -----------------------------------------------------
    # NousResearch/hermes-agent#107125: qwen2.5:32b-instruct behind LiteLLM and Ollama; Hermes
    # retried, then printed the JSON as the answer (verbatim)
    "hermes107125-qwen25-bare-json-terminal": Case(
        (TERMINAL,), '{"name": "terminal", "arguments": {"command": "echo ..."}}',
        calls=[("terminal", {"command": "echo ..."})],
    ),
    # NousResearch/hermes-agent#107080 (in French and English): Gemma3nTools writes "args", not
    # "arguments", in its Hermes envelope (verbatim)
    "hermes107080-gemma3n-args-key": Case(
        (tool("ha_call_service", "action", "device_id"),),
        '<tool_call>\n{"name": "ha_call_service", "args": {"action": "turn_off", "device_id": "light.salon"}}\n</tool_call>',
        calls=[("ha_call_service", {"action": "turn_off", "device_id": "light.salon"})], hidden=("<tool_call>",),
    ),
    # NousResearch/hermes-agent#63680: llama3.2:3b writes Meta's JSON form, "parameters" beside
    # "type": "function" (the report's keys; the query rebuilt)
    "hermes63680-llama32-type-function-parameters": Case(
        (tool("web_search", "query"),), '{"type": "function", "name": "web_search", "parameters": {"query": "Paris weather"}}',
        calls=[("web_search", {"query": "Paris weather"})],
    ),
    # NousResearch/hermes-agent PR #742: Hermes-4 models' call with its opening tag lost after
    # </think> (the PR's form; the call rebuilt)
    "hermes742-think-close-then-call-missing-open-tag": Case(
        (tool("web_search", "query"),), '</think>{"name": "web_search", "arguments": {"query": "latest news"}}</tool_call>',
        calls=[("web_search", {"query": "latest news"})], hidden=("tool_call", "think>"),
    ),
    # NousResearch/hermes-agent PR #7628 (#7588): qwen3-coder-plus's call in the content, a
    # parameter on one line (verbatim)
    "hermes7628-qwen3coder-one-line-parameter": Case(
        (tool("read_file", "target_file"),),
        "<tool_call>\n<function=read_file>\n<parameter=target_file>main.py</parameter>\n</function>\n</tool_call>",
        calls=[("read_file", {"target_file": "main.py"})], hidden=("<function", "<parameter"),
    ),
    # Gitlawb/openclaude#433: qwen2.5-coder:14b on Ollama returns the call as text (verbatim)
    "openclaude433-qwen25coder-pretty-json-websearch": Case(
        (tool("WebSearch", "query"), tool("Bash", "command")),
        '{\n  "name": "WebSearch",\n  "arguments": {\n    "query": "repository structure"\n  }\n}',
        calls=[("WebSearch", {"query": "repository structure"})],
    ),
    # earendil-works/pi PR #6635: qwen2.5-coder:14b on Ollama's /v1, the call JSON in content and
    # tool_calls empty (the PR's shape; the arguments rebuilt)
    "pi6635-qwen25coder-compact-json-echo": Case(
        (tool("echo", "text"),), '{"name":"echo","arguments":{"text":"hello"}}', calls=[("echo", {"text": "hello"})],
    ),
    # nugget/thane-ai-agent PR #21: granite3.1-dense:8b's call in the content (verbatim, from the
    # response string), and the JSON array form the PR reads too (rebuilt)
    "thane21-granite-bare-json": Case(
        (tool("get_state", "entity_id"),), '{"name": "get_state", "arguments": {"entity_id": "sun.sun"}}',
        calls=[("get_state", {"entity_id": "sun.sun"})],
    ),
    "thane21-granite-json-array": Case(
        (tool("get_state", "entity_id"),), '[{"name": "get_state", "arguments": {"entity_id": "sun.sun"}}]',
        calls=[("get_state", {"entity_id": "sun.sun"})],
    ),
    # jyjeanne/crustly PR #39: Qwen2.5-Coder writes the call object in a ```json fence instead of
    # <tool_call> (the PR's description; the call rebuilt)
    "crustly39-qwen25coder-fenced-call-object": Case(
        (READ_FILE,), '```json\n{"name": "read_file", "arguments": {"path": "src/main.rs"}}\n```',
        calls=[("read_file", {"path": "src/main.rs"})],
    ),
    # OpenBMB/StaffDeck#209: two of the harness's own action objects back to back, no array (the
    # issue's text, verbatim)
    "staffdeck209-consecutive-harness-actions": Case(
        (tool("general_skill.example.create", "operation", "query"), tool("general_skill.example.trace", "operation", "query")),
        '{"action":"tool","tool_name":"general_skill.example.create","arguments":{"operation":"read","query":"..."}}\n'
        '{"action":"tool","tool_name":"general_skill.example.trace","arguments":{"operation":"read","query":"..."}}',
        calls=[("general_skill.example.create", {"operation": "read", "query": "..."}),
               ("general_skill.example.trace", {"operation": "read", "query": "..."})],
    ),
    # izaart95-jpg/GLM-Free-API#44: the model renamed the harness's <<<TOOL_CALL>>> envelope to
    # TOOL_CALL_BLOCK>>> ... <<<END_TOOL_CALL_BLOCK>>>, "the JSON was always perfect" (the
    # maintainer's words; the call rebuilt)
    "glmfree44-renamed-envelope-around-call-json": Case(
        (READ_FILE,), 'TOOL_CALL_BLOCK>>>\n{"name": "read_file", "arguments": {"path": "notes.txt"}}\n<<<END_TOOL_CALL_BLOCK>>>',
        calls=[("read_file", {"path": "notes.txt"})], hidden=("TOOL_CALL_BLOCK",),
    ),
    # ollama/ollama#12776: huihui_ai/kimi-k2 on Ollama, Kimi's call tokens shown as reserved
    # tokens (verbatim)
    "ollama12776-kimi-k2-reserved-token-call": Case(
        (tool("write_file", "filename", "contents"), tool("exec", "command")),
        "First, let me write the C source file:<|reserved_token_163595|><|reserved_token_163597|>functions.write_file:0"
        '<|reserved_token_163598|>{"filename": "test.c", "contents": "#include <stdio.h>\\n\\nint main() {\\n    '
        'printf(\\"Hello, world!\\\\n\\");\\n    return 0;\\n}"}<|reserved_token_163599|><|reserved_token_163596|>',
        calls=[("write_file", {"filename": "test.c", "contents": '#include <stdio.h>\n\nint main() {\n    printf("Hello, '
                               'world!\\n");\n    return 0;\n}'})],
        hidden=("reserved_token", "functions."),
    ),
    # ---- no call written: the answer as written, nothing guessed ------------------------------------
    # NousResearch/hermes-agent#56920: gpt-5.5 through Codex OAuth prints Codex CLI's shell JSON
    # with no tool name (verbatim): no tool is named, so nothing runs; the text is the answer
    "hermes56920-codex-shell-json-names-no-tool": Case(
        (TERMINAL,), "Creating the PowerShell script now.\n{\"cmd\": \"mkdir -p /c/Temp && cat > "
        "/c/Temp/Create-HermesUpdateTask.ps1 <<'EOF'\"}",
        answer="Creating the PowerShell script now.\n{\"cmd\": \"mkdir -p /c/Temp && cat > "
        "/c/Temp/Create-HermesUpdateTask.ps1 <<'EOF'\"}",
    ),
    # isair/jarvis#42: Qwen 2.5 answers as if it had fetched the weather, no call written (the
    # log's first sentences, verbatim): the answer as written, no call invented
    "jarvis42-qwen25-claims-a-fetch-it-never-made": Case(
        (tool("web_search", "query"),), "Sure, fetching the current London weather forecast. It looks like today’s "
        "climate is mild (17-20°C), partly cloudy with light wind.",
        answer="Sure, fetching the current London weather forecast. It looks like today’s climate is mild (17-20°C), "
        "partly cloudy with light wind.",
    ),
    # dataelement/bisheng PR #1526 (in Chinese and English): the ReAct JSON agent's model answers in
    # plain text instead of an action blob and the flow aborted (rebuilt: a Chinese answer)
    "bisheng1526-plain-text-instead-of-action-blob": Case(
        (tool("search", "query"),), "北京今天晴，最高气温 25 度。", answer="北京今天晴，最高气温 25 度。",
    ),
}


GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md
    **{
        ("hermesstudio942-minimax-tags-without-openers", strategy): (
            "MiniMax's parameters and closing tags with their <minimax:tool_call> and <invoke> lost: no "
            "opening marker holds the stream, so the text has streamed before the closing tags come, and "
            "the call line names no arguments; it is shown as written"
        )
        for strategy in ("react", "fc")
    },
    **{
        ("staffdeck209-consecutive-harness-actions", strategy): (
            "StaffDeck's own action object ('action': 'tool' beside 'tool_name'): 'action' names the tool in "
            "the ReAct envelope, so ReAct answers two calls of an unknown tool 'tool' and Function Calling "
            "shows the objects; reading 'tool_name' over 'action' would be a harness's schema guessed"
        )
        for strategy in ("react", "fc")
    },
    ("glmfree44-renamed-envelope-around-call-json", "fc"): (
        "Function Calling reads a bare call object as the whole reply or after prose, not between "
        "markers a model invented; ReAct reads it as its JSON action. The envelope is shown as written"
    ),
    **{
        ("ollama12776-kimi-k2-reserved-token-call", strategy): (
            "Kimi K2's call tokens as <|reserved_token_N|>: reading them needs the GGUF's token numbers "
            "(no server documents them), so the text is shown; ReAct drops the tokens and shows the rest"
        )
        for strategy in ("react", "fc")
    },
}


test_real_world_reply = reply_test(CASES, GAPS, read)


def test_openclaude433_unknown_tool_name_runs_nothing():
    """Gitlawb/openclaude#433: the same model names a tool the node does not have,
    ``repository_structure`` (verbatim, its arguments left empty): nothing of the node's tools runs;
    ReAct tells the model the tool is unknown, Function Calling shows the object as written."""
    web_search = tool("WebSearch", "query")
    text = '{\n  "name": "repository_structure",\n  "arguments": {}\n}'
    for strategy in ("react", "fc"):
        for size in (None, 1, 7):
            streamed, turn = read(strategy, Case((web_search,), text), size)
            assert_shown_or_runs_nothing(web_search, text, streamed, turn)


def test_openclaude1508_kimi_section_with_ids_for_names_runs_nothing():
    """Gitlawb/openclaude#1508: kimi-k2.5-fast writes its call section with ``call_0`` ids where the
    ``functions.NAME:IDX`` ids go, so no call names a tool, and a Windows path unescaped in JSON
    (verbatim, the first two of its four calls): nothing of the node's tools runs and no markup
    is shown."""
    read_tool = tool("Read", "file_path")
    text = (
        '<|tool_calls_section_begin|> <|tool_call_begin|> call_0 <|tool_call_argument_begin|> {"file_path": '
        '"C:\\Users\\admin\\Desktop\\Development\\file.txt"} <|tool_call_end|> <|tool_call_begin|>\ncall_1 '
        '<|tool_call_argument_begin|> {"file_path": "C:\\Users\\admin\\Desktop\\Development\\file.txt} '
        "<|tool_call_end|> <|tool_calls_section_end|>"
    )
    for strategy in ("react", "fc"):
        for size in (None, 1, 7):
            streamed, turn = read(strategy, Case((read_tool,), text), size)
            assert streamed == ""
            assert isinstance(turn.decision, (ToolCalls, ParseFailure))
            assert "Read" not in [call.name for call in getattr(turn.decision, "calls", ())]


def test_hermes_call_line_is_read_only_as_a_call_of_a_node_tool():
    """The fix's limits: Hermes Agent's call line is a call only where it opens a line, names one
    of the node's tools and gives a JSON object; in a sentence, naming another tool, or with no
    arguments it is the answer's text, as written, and nothing runs."""
    shown = (
        'The agent printed [Calling tool: terminal with arguments: {"command": "ls"}] and stopped.',
        '[Calling tool: deploy with arguments: {"env": "prod"}]',
        "[Calling tool: terminal with arguments: ls -la]",
    )
    for strategy in ("react", "fc"):
        for text in shown:
            for size in (None, 1, 7):
                streamed, turn = read(strategy, Case((TERMINAL,), text), size)
                assert_shown_or_runs_nothing(TERMINAL, text, streamed, turn)


def test_gemma_call_json_object_is_read_only_whole_and_naming_a_node_tool():
    """The fix's limits: ``call:`` before a JSON object is a call only when the object names its
    tool and is all that stands in the call; naming another tool, or with text after the object,
    nothing of the node's tools runs and no markup is shown."""
    shell = tool("shell", "command")
    for text in (
        '<|tool_call>call:{"name": "deploy", "arguments": {"env": "prod"}}<tool_call|>',
        '<|tool_call>call:{"name": "shell", "arguments": {"command": "ls"}} and more<tool_call|>',
        '<|tool_call>call:{"command": "ls"}<tool_call|>',
    ):
        for strategy in ("react", "fc"):
            for size in (None, 1, 7):
                streamed, turn = read(strategy, Case((shell,), text), size)
                assert "shell" not in [call.name for call in getattr(turn.decision, "calls", ())]
                assert "tool_call" not in streamed


def test_hermes_call_line_holding_an_array_of_objects_is_read_whole():
    """The fix's limits: a ``}]`` inside the arguments (an array of objects) does not end Hermes
    Agent's call line, and Qwen3's bracketed form still ends at its ``)]``; two lines are two
    calls."""
    batch = tool("batch", "items")
    replies = {
        '[Calling tool: batch with arguments: {"items": [{"a": 1}, {"b": 2}]}]': [("batch", {"items": [{"a": 1}, {"b": 2}]})],
        '[Calling tool: batch({"items": [{"a": 1}]})]': [("batch", {"items": [{"a": 1}]})],
        '[Calling tool: terminal with arguments: {"command": "ls"}]\n[Calling tool: terminal with arguments={"command": '
        '"pwd"}]': [("terminal", {"command": "ls"}), ("terminal", {"command": "pwd"})],
    }
    for strategy in ("react", "fc"):
        for text, expected in replies.items():
            for size in (None, 1, 7):
                streamed, turn = read(strategy, Case((batch, TERMINAL), text), size)
                assert isinstance(turn.decision, ToolCalls), turn.decision
                assert [(c.name, c.arguments) for c in turn.decision.calls] == expected
                assert "Calling tool" not in streamed
