"""A ninth set of real-world model outputs, through both strategies' turn readers (as
``test_real_world_2026g``: the text whole and in pieces of 1 and 7 characters), and provider
streams through Function Calling. Sources the first eight passes did not use: Qwen3-Coder-Next,
Qwen3.5 and Qwen3.6 calls llama-server failed to parse, LFM2.5's call llama.cpp rejected, Qwen's
bare JSON and bracket forms leaked by Ollama and MLX servers, DeepSeek V3's fenced arguments and
V3.2's DSML (minja, SGLang), MiniMax's and GLM's broken markup, Kimi K3's glued channel, Mistral's
closed wrapper, answers that parsers took for calls (llama.cpp, localharness), and streams whose
``index`` or first argument chunk a server got wrong (agno, openai-python, dirac, vLLM).

Each case names its source beside it; docs/real-world-cases.md lists them by id. Outputs are
quoted as the source shows them; where a case is rebuilt from what the source describes, its
comment says so.
"""

import pytest

from agent_core.function_calling.turn import read_function_calling_turn
from agent_core.model_call import normalize_chunk
from agent_core.turn import ToolCalls
from tests.unit.helpers import drain
from tests.unit.test_real_world_2026 import (
    END,
    Case,
    assert_shown_or_runs_nothing,
    check_tool_call_stream,
    delta,
    reply_test,
    tool,
)
from tests.unit.test_real_world_2026d import chunk
from tests.unit.test_real_world_2026g import read

WEATHER = tool("get_weather", "city")
READ = tool("read", "filePath")
DSML = "｜DSML｜"
DS_CALL = "<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_current_weather\n```json\n{}\n```<｜tool▁call▁end｜>"


def _qwen_call(name: str, **params: str) -> str:
    """Qwen3-Coder's call as its template writes it, each value on lines of its own."""
    body = "".join(f"<parameter={key}>\n{value}\n</parameter>\n" for key, value in params.items())
    return f"<tool_call>\n<function={name}>\n{body}</function>\n</tool_call>"


CASES = {
    # ---- Qwen3-Coder / Qwen3.5 / Qwen3.6 calls a server did not parse --------------------------------
    # pwilkin/llama.cpp#9: Qwen3-Coder-Next in opencode, llama-server "Failed to parse input", verbatim
    "pwilkin9-qwen3-coder-next-two-parameters": Case(
        (tool("bash", "command", "description"),),
        "<tool_call>\n<function=bash>\n<parameter=command>\ncd /home/gary/dev/opencode_rs && git status\n</parameter>\n"
        "<parameter=description>\nCheck git status\n</parameter>\n</function>\n</tool_call>",
        calls=[("bash", {"command": "cd /home/gary/dev/opencode_rs && git status", "description": "Check git status"})],
        hidden=("<function",),
    ),
    # the same report: four calls in a row, a value with quotes and shell operators, verbatim
    "pwilkin9-qwen3-coder-next-four-calls": Case(
        (tool("bash", "command", "description"), READ),
        _qwen_call("bash", command='test -d .planning && echo "exists" || echo "missing"',
                   description="Check if planning directory exists")
        + "".join(f"\n{_qwen_call('read', filePath=f'/home/gary/dev/opencode_rs/.planning/{name}.md')}"
                  for name in ("STATE", "ROADMAP", "PROJECT")),
        calls=[
            ("bash", {"command": 'test -d .planning && echo "exists" || echo "missing"',
                      "description": "Check if planning directory exists"}),
            *[("read", {"filePath": f"/home/gary/dev/opencode_rs/.planning/{name}.md"})
              for name in ("STATE", "ROADMAP", "PROJECT")],
        ],
    ),
    # ggml-org/llama.cpp#22878: Qwen3.6-27B in openclaw, two calls after a line break, verbatim
    "llamacpp22878-qwen36-two-reads-after-a-line-break": Case(
        (tool("read", "path"),),
        "\n" + "\n".join(_qwen_call("read", path=f"/home/ps/workspace/docker/aichat/openclaw/.openclaw/workspace/{name}.md")
                         for name in ("USER", "MEMORY")),
        calls=[("read", {"path": f"/home/ps/workspace/docker/aichat/openclaw/.openclaw/workspace/{name}.md"})
               for name in ("USER", "MEMORY")],
    ),
    # ggml-org/llama.cpp#20260: Qwen3.5-35B-A3B writes a sentence before its call (rebuilt from the report)
    "llamacpp20260-qwen35-sentence-before-call": Case(
        (tool("read_file", "path"),),
        "I'll check the config first.\n\n" + _qwen_call("read_file", path="config.yaml"),
        calls=[("read_file", {"path": "config.yaml"})],
        hidden=("<function",),
    ),
    # lablup/mlxcel#204: Qwen3-Coder-30B-A3B's call on one line, as the report gives its format (values rebuilt)
    "mlxcel204-qwen3-coder-call-on-one-line": Case(
        (tool("get_weather", "location"),),
        "<tool_call><function=get_weather><parameter=location>San Francisco</parameter></function></tool_call>",
        calls=[("get_weather", {"location": "San Francisco"})],
    ),
    # lmstudio-ai/lmstudio-bug-tracker#2045: qwen3.6-35b-a3b calls a tool inside its think block
    # (rebuilt from the report: the call in <think>, nothing after it)
    "lmstudio2045-qwen36-call-inside-think": Case(
        (tool("read_file", "path"),),
        "<think>\nI need to read the file first.\n" + _qwen_call("read_file", path="README.md") + "\n</think>",
        calls=[("read_file", {"path": "README.md"})],
        hidden=("I need to read",),
    ),
    # ---- calls as code and bare JSON -----------------------------------------------------------------
    # ggml-org/llama.cpp#23838: LFM2.5-8B-A1B's documented call, single quotes and a number, verbatim
    "llamacpp23838-lfm25-single-quoted-call-list": Case(
        (tool("web_search_exa", "query", "numResults"),),
        "<|tool_call_start|>[web_search_exa(query='current temperature in Mexico City', numResults=5)]<|tool_call_end|>",
        calls=[("web_search_exa", {"query": "current temperature in Mexico City", "numResults": 5})],
        hidden=("<|tool",),
    ),
    # waybarrios/vllm-mlx PR #15: Qwen3's bracket form [Calling tool: NAME({...})] (the format the PR
    # gives, with its test's tool and query)
    "vllmmlx15-qwen3-calling-tool-bracket": Case(
        (tool("searchReddit", "query"),),
        '[Calling tool: searchReddit({"query": "SaaS pricing"})]',
        calls=[("searchReddit", {"query": "SaaS pricing"})],
        hidden=("Calling tool",),
    ),
    # NousResearch/hermes-agent PR #87900: qwen2.5-coder:7b via Ollama's /v1, calls as bare JSON objects
    # a line each with no array around them, "arguments" left out of a call without arguments (rebuilt
    # from the PR's description)
    "hermes87900-bare-json-calls-without-array": Case(
        (tool("list_directory"), tool("read_file", "path")),
        '{"name": "list_directory"}\n{"name": "read_file", "arguments": {"path": "README.md"}}',
        calls=[("list_directory", {}), ("read_file", {"path": "README.md"})],
    ),
    # the same shape as a list, and with the call without arguments after the call with them (rebuilt)
    "hermes87900-bare-name-in-a-list": Case(
        (tool("list_directory"), tool("read_file", "path")),
        '[{"name": "list_directory"}, {"name": "read_file", "arguments": {"path": "README.md"}}]',
        calls=[("list_directory", {}), ("read_file", {"path": "README.md"})],
    ),
    "hermes87900-bare-name-after-a-call": Case(
        (tool("list_directory"), tool("read_file", "path")),
        '{"name": "read_file", "arguments": {"path": "README.md"}}\n{"name": "list_directory"}',
        calls=[("read_file", {"path": "README.md"}), ("list_directory", {})],
    ),
    # {"name": X} of no node tool beside a call object: never dropped in silence; it goes to the tool
    # runner, which answers it as an unknown tool's call, and the call still runs
    "hermes87900-name-of-no-node-tool-beside-a-call": Case(
        (tool("list_directory"), tool("read_file", "path")),
        '[{"name": "list_dir"}, {"name": "read_file", "arguments": {"path": "README.md"}}]',
        calls=[("list_dir", {}), ("read_file", {"path": "README.md"})],
    ),
    "hermes87900-joined-by-a-space": Case(
        (tool("list_directory"), tool("read_file", "path")),
        '{"name": "list_directory"} {"name": "read_file", "arguments": {"path": "README.md"}}',
        calls=[("list_directory", {}), ("read_file", {"path": "README.md"})],
    ),
    # NousResearch/hermes-agent#107125: qwen2.5:32b-instruct behind LiteLLM, a bare JSON call in content
    # (the report's shape; its command, elided there, completed)
    "hermes107125-qwen25-bare-json-call": Case(
        (tool("terminal", "command"),),
        '{"name": "terminal", "arguments": {"command": "echo hello"}}',
        calls=[("terminal", {"command": "echo hello"})],
    ),
    # webbrain-one/webbrain PR #2682: a call object on its own line after a sentence, nested arguments, verbatim
    "webbrain2682-call-line-after-a-sentence": Case(
        (tool("click", "text", "meta"),),
        'I will save it now.\n{"name":"click","arguments":{"text":"Save","meta":{"source":"dialog"}}}',
        calls=[("click", {"text": "Save", "meta": {"source": "dialog"}})],
        hidden=('"name"',),
    ),
    # the same PR: braces inside a quoted value, verbatim
    "webbrain2682-braces-inside-a-string": Case(
        (tool("click", "text", "meta"),),
        '{"name":"click","arguments":{"meta":{"source":"dialog"},"text":"Save {draft}"}}',
        calls=[("click", {"meta": {"source": "dialog"}, "text": "Save {draft}"})],
    ),
    # ---- DeepSeek -----------------------------------------------------------------------------------
    # sgl-project/sglang#4379: DeepSeek-V3's generated text, two calls with fenced JSON arguments
    # (verbatim; the second city, cut in the comment, completed)
    "sglang4379-deepseek-v3-two-fenced-calls": Case(
        (tool("get_current_weather", "location"),),
        "<｜tool▁calls▁begin｜>" + DS_CALL.format('{"location": "Tokyo"}') + "\n"
        + DS_CALL.format('{"location": "Paris"}') + "<｜tool▁calls▁end｜>",
        calls=[("get_current_weather", {"location": "Tokyo"}), ("get_current_weather", {"location": "Paris"})],
        hidden=("｜",),
    ),
    # ochafik/minja PR #11: DeepSeek V3.2's DSML, one call and two calls with typed values, verbatim
    "minja11-dsv32-dsml-one-invoke": Case(
        (tool("get_datetime", "timezone"),),
        f'<{DSML}function_calls>\n<{DSML}invoke name="get_datetime">\n'
        f'<{DSML}parameter name="timezone" string="true">Asia/Shanghai</{DSML}parameter>\n</{DSML}invoke>\n'
        f"</{DSML}function_calls>",
        calls=[("get_datetime", {"timezone": "Asia/Shanghai"})],
        hidden=("DSML",),
    ),
    "minja11-dsv32-dsml-two-invokes": Case(
        (tool("search", "query", "topn", "source"),),
        f"<{DSML}function_calls>\n"
        + "".join(
            f'<{DSML}invoke name="search">\n<{DSML}parameter name="query" string="true">{query}</{DSML}parameter>\n'
            f'<{DSML}parameter name="topn" string="false">10</{DSML}parameter>\n'
            f'<{DSML}parameter name="source" string="true">web</{DSML}parameter>\n</{DSML}invoke>\n'
            for query in ("search agent benchmark 2024", "搜索智能体 基准测试")
        )
        + f"</{DSML}function_calls>",
        calls=[("search", {"query": query, "topn": 10, "source": "web"})
               for query in ("search agent benchmark 2024", "搜索智能体 基准测试")],
        hidden=("DSML",),
    ),
    # sgl-project/sglang#40236: DSML returned as content; a bare invoke with no section, and a
    # section never closed (rebuilt from the report's shapes)
    "sglang40236-dsml-bare-invoke": Case(
        (WEATHER,),
        f'<{DSML}invoke name="get_weather">\n<{DSML}parameter name="city" string="true">Paris</{DSML}parameter>\n'
        f"</{DSML}invoke>",
        calls=[("get_weather", {"city": "Paris"})],
        hidden=("DSML",),
    ),
    "sglang40236-dsml-unterminated-section": Case(
        (WEATHER,),
        f'Let me check.\n\n<{DSML}function_calls>\n<{DSML}invoke name="get_weather">\n'
        f'<{DSML}parameter name="city" string="true">Paris</{DSML}parameter>\n</{DSML}invoke>',
        calls=[("get_weather", {"city": "Paris"})],
        hidden=("DSML",),
    ),
    # ---- MiniMax, GLM, Kimi, Mistral markup --------------------------------------------------------------
    # waybarrios/vllm-mlx PR #231: MiniMax-M2.5 calls a tool without parameters (rebuilt from the PR's
    # test list)
    "vllmmlx231-minimax-invoke-without-parameters": Case(
        (tool("list_files"),),
        '<minimax:tool_call>\n<invoke name="list_files">\n</invoke>\n</minimax:tool_call>',
        calls=[("list_files", {})],
        hidden=("invoke",),
    ),
    # exo-explore/exo#1882: MiniMax M2 drops "<" and "</" before its tags, verbatim
    "exo1882-minimax-tags-without-angle-brackets": Case(
        (tool("get_weather", "location"),),
        'invoke name="get_weather">\nparameter name="location">Parisparameter>\ninvoke>',
        calls=[("get_weather", {"location": "Paris"})],
        hidden=("invoke",),
    ),
    # the same after a sentence, and two calls, one with "/" kept (rebuilt: MiniMax writes a sentence
    # before its call; a server that drops special tokens drops <minimax:tool_call> with them)
    "exo1882-minimax-angleless-after-a-sentence": Case(
        (tool("get_weather", "location"),),
        'Let me check the weather.\n\ninvoke name="get_weather">\nparameter name="location">Paris/parameter>\n'
        'invoke>',
        calls=[("get_weather", {"location": "Paris"})],
        hidden=("invoke",),
    ),
    "exo1882-minimax-angleless-two-calls": Case(
        (tool("get_weather", "location"), tool("get_time", "city")),
        'invoke name="get_weather">\nparameter name="location">Parisparameter>\ninvoke>\n'
        'invoke name="get_time">\nparameter name="city">Romeparameter>\ninvoke>\n',
        calls=[("get_weather", {"location": "Paris"}), ("get_time", {"city": "Rome"})],
        hidden=("invoke",),
    ),
    # the same, the wrapper's tokens intact around it (rebuilt: exo's parser saw the block only after
    # <minimax:tool_call>, a special token); also with "/" kept and on one line, and never closed
    "exo1882-minimax-angleless-tags-in-the-wrapper": Case(
        (tool("get_weather", "location"),),
        '<minimax:tool_call>\ninvoke name="get_weather">\nparameter name="location">Parisparameter>\ninvoke>\n'
        "</minimax:tool_call>",
        calls=[("get_weather", {"location": "Paris"})],
        hidden=("invoke", "minimax"),
    ),
    "exo1882-minimax-angleless-slashed-tags-one-line": Case(
        (tool("get_weather", "location"),),
        '<minimax:tool_call>invoke name="get_weather">parameter name="location">Paris/parameter>/invoke>'
        "</minimax:tool_call>",
        calls=[("get_weather", {"location": "Paris"})],
    ),
    "exo1882-minimax-angleless-wrapper-never-closed": Case(
        (tool("get_weather", "location"),),
        'Let me check.\n<minimax:tool_call>\ninvoke name="get_weather">\nparameter name="location">Parisparameter>\ninvoke>',
        calls=[("get_weather", {"location": "Paris"})],
        hidden=("invoke",),
    ),
    # getsigit/sigit PR #95: GLM writes a second <tool_call> where its first <arg_key> belongs (rebuilt
    # from the PR: the reported command, a tool of the turn)
    "sigit95-glm-tool-call-for-first-arg-key": Case(
        (tool("terminal", "command"),),
        "<tool_call>terminal<tool_call>command</arg_key><arg_value>which memo</arg_value></tool_call>",
        calls=[("terminal", {"command": "which memo"})],
        hidden=("arg_",),
    ),
    # can1357/oh-my-pi#8495: kimi-k3-high through a provider that drops the tokens between tools and
    # call: <|open|>toolscall ... <|close|>toolsmessage<|sep|> (the shape the report gives, filled in)
    "omp8495-kimik3-tools-and-call-glued": Case(
        (tool("StrReplace", "path"),),
        '<|open|>toolscall tool="StrReplace" index="1"<|sep|>\n'
        '<|open|>argument key="path" type="string"<|sep|>src/renderer.ts<|close|>argument<|sep|>\n'
        "<|close|>call<|sep|>\n<|close|>toolsmessage<|sep|>",
        calls=[("StrReplace", {"path": "src/renderer.ts"})],
        hidden=("<|",),
    ),
    # ai-dynamo/frontend-crates PR #60: Mistral's call list closed by [/TOOL_CALLS], and an orphan
    # [/TOOL_CALLS] after an answer, which must not reach the user (both rebuilt from the PR)
    "dynamo60-mistral-closed-call-list": Case(
        (WEATHER,),
        '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}][/TOOL_CALLS]',
        calls=[("get_weather", {"city": "Paris"})],
        hidden=("TOOL_CALLS",),
    ),
    "dynamo60-mistral-orphan-close-after-answer": Case(
        (WEATHER,),
        "The weather in Paris is sunny.[/TOOL_CALLS]",
        answer="The weather in Paris is sunny.",
        hidden=("TOOL_CALLS",),
    ),
    # ---- reasoning, then an answer --------------------------------------------------------------------
    # tenstorrent/tt-inference-server#4386: Qwen3-32B streams the end of its reasoning and a bare
    # </think> in content, then the JSON its response format asked for (the deltas' shape verbatim,
    # the reasoning and the object completed); Function Calling's probe for a bare </think>
    "tenstorrent4386-qwen3-bare-think-close-then-json": Case(
        (tool("get_weather", "location"),),
        'London it is. I will answer in the schema.\n</think>{"location": "London", "temperature": 15, "conditions": "Cloudy"}',
        answer='{"location": "London", "temperature": 15, "conditions": "Cloudy"}',
        only=("fc",),
        hidden=("schema",),
    ),
    # ---- answers a parser took for a call ---------------------------------------------------------------
    # ggml-org/llama.cpp PR #20806: Llama 3.x answers with a C program; its braces are no call
    "llamacpp20806-c-program-with-braces": Case(
        (WEATHER,),
        'Here is a hello world program in C:\n\n```c\n#include <stdio.h>\n\nint main(void) {\n'
        '    printf("Hello, world!\\n");\n    return 0;\n}\n```',
        answer='Here is a hello world program in C:\n\n```c\n#include <stdio.h>\n\nint main(void) {\n'
        '    printf("Hello, world!\\n");\n    return 0;\n}\n```',
    ),
    # ahwurm/localharness#105: a package.json and a list of records in json fences, "name" keys in both, verbatim
    "localharness105-package-json-fence": Case(
        (tool("read_file", "path"),),
        '```json\n{"name": "my-app", "version": "1.0.0"}\n```',
        answer='```json\n{"name": "my-app", "version": "1.0.0"}\n```',
    ),
    "localharness105-records-with-name-keys": Case(
        (tool("read_file", "path"),),
        'The users are:\n\n```json\n[{"name": "alice", "age": 30}]\n```',
        answer='The users are:\n\n```json\n[{"name": "alice", "age": 30}]\n```',
    ),
}


GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md
}


test_real_world_reply = reply_test(CASES, GAPS, read)


# ---- answers showing a call-shaped object: nothing of the node runs ------------------------------

BRACKET = '[Calling tool: searchReddit({"query": "SaaS pricing"})]'
BARE_DSML = (
    f'<{DSML}invoke name="get_weather">\n<{DSML}parameter name="city" string="true">Paris</{DSML}parameter>\n'
    f"</{DSML}invoke>"
)
GLUED_K3 = (
    '<|open|>toolscall tool="get_weather" index="1"<|sep|><|open|>argument key="city" type="string"<|sep|>Paris'
    "<|close|>argument<|sep|><|close|>call<|sep|><|close|>toolsmessage<|sep|>"
)
NOT_CALLS = {
    # ggml-org/llama.cpp#18183: sample code holding a call-shaped dict of a function that is no tool
    # (Qwen3-30B-A3B-Thinking; rebuilt from the report)
    "llamacpp18183-sample-code-call-shape": (
        tool("search", "q"),
        'You can call it like this:\n\n```python\nresult = client.call({"name": "my_function", "arguments": {"x": 1}})\n```',
    ),
    # ahwurm/localharness#105: a JSON document with a "name" key, unfenced
    "localharness105-bare-document-with-name": (tool("read_file", "path"), '{"name": "my-app", "version": "1.0.0"}'),
    # the forms read in this pass, shown as text: in a sentence, a code span, a fence, naming no node tool
    "calling-tool-bracket-in-a-sentence": (tool("searchReddit", "query"), f"The server printed {BRACKET} instead."),
    "calling-tool-bracket-in-a-code-span": (tool("searchReddit", "query"), f"It printed `{BRACKET}` instead."),
    "calling-tool-bracket-in-a-fence": (tool("searchReddit", "query"), f"The raw text:\n\n```\n{BRACKET}\n```"),
    "calling-tool-bracket-no-node-tool": (tool("search", "query"), BRACKET),
    "dsml-bare-invoke-in-a-fence": (WEATHER, f"DeepSeek wrote:\n\n```\n{BARE_DSML}\n```"),
    "dsml-bare-invoke-no-node-tool": (WEATHER, BARE_DSML.replace("get_weather", "get_time")),
    "kimik3-glued-in-a-fence": (WEATHER, f"K3 leaked:\n\n```\n{GLUED_K3}\n```"),
    "kimik3-glued-no-node-tool": (WEATHER, GLUED_K3.replace("get_weather", "get_time")),
    "mistral-close-in-a-code-span": (WEATHER, "Mistral ends its call list with `[/TOOL_CALLS]`."),
    # a {"name": X} alone is a record, not a call, when no call object is beside it (as flat-name-alone
    # in test_real_world_2026d), also one line above an object written in a sentence
    "bare-name-above-a-call-in-a-sentence": (
        tool("list_directory"),
        'The record:\n{"name": "list_directory"}\nand {"name": "list_directory", "arguments": {}} is how it is called.',
    ),
    "minimax-angleless-wrapper-in-a-code-span": (
        tool("get_weather", "location"),
        'It writes `<minimax:tool_call>invoke name="get_weather">parameter name="location">Paris/parameter>/invoke>'
        '</minimax:tool_call>` instead.',
    ),
    "minimax-angleless-wrapper-no-node-tool": (
        tool("get_weather", "location"),
        '<minimax:tool_call>\ninvoke name="get_time">\nparameter name="city">Parisparameter>\ninvoke>\n</minimax:tool_call>',
    ),
    # MiniMax's angle-less tags with no wrapper are read only opening a line outside code, naming a node
    # tool, closed, and ending the reply: in a sentence, a fence, naming another tool, never closed or with
    # text after them they are text
    "minimax-angleless-in-a-sentence": (
        tool("get_weather", "location"),
        'The model printed invoke name="get_weather">\nparameter name="location">Parisparameter>\ninvoke>',
    ),
    "minimax-angleless-in-a-fence": (
        tool("get_weather", "location"),
        'Its output:\n\n```\ninvoke name="get_weather">\nparameter name="location">Parisparameter>\ninvoke>\n```',
    ),
    "minimax-angleless-no-node-tool": (
        tool("get_weather", "location"),
        'invoke name="get_time">\nparameter name="city">Parisparameter>\ninvoke>',
    ),
    "minimax-angleless-never-closed": (
        tool("get_weather", "location"),
        'invoke name="get_weather">\nparameter name="location">Paris',
    ),
    "minimax-angleless-text-after": (
        tool("get_weather", "location"),
        'invoke name="get_weather">\nparameter name="location">Parisparameter>\ninvoke>\nThat is what it printed.',
    ),
    "glm-tool-call-for-arg-key-no-node-tool": (
        tool("terminal", "command"),
        "<tool_call>shell<tool_call>command</arg_key><arg_value>which memo</arg_value></tool_call>",
    ),
}


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("strategy", ["react", "fc"])
@pytest.mark.parametrize("name", list(NOT_CALLS))
def test_the_shape_shown_as_text_runs_nothing(name, strategy, size):
    """No call of the node runs: the text is the answer as written, or (markup naming no node tool)
    asked again with nothing shown."""
    declared, text = NOT_CALLS[name]
    streamed, turn = read(strategy, Case((declared,), text), size)
    assert_shown_or_runs_nothing(declared, text, streamed, turn)


def test_a_bare_name_in_a_thought_goes_with_the_json_example_before_a_labelled_action():
    """ReAct: bare JSON in a thought followed by an ``Action:`` label was an example; a
    ``{"name": X}`` beside it is too, and only the labelled action runs."""
    case = Case(
        (tool("list_directory"), tool("read_file", "path")),
        'Thought: the calls would be\n{"name": "list_directory"}\n{"name": "read_file", "arguments": {"path": "a"}}\n'
        'but one is enough.\nAction: read_file\nAction Input: {"path": "README.md"}',
    )
    for size in (None, 1, 7):
        _, turn = read("react", case, size)
        assert [(c.name, c.arguments) for c in turn.decision.calls] == [("read_file", {"path": "README.md"})]


# ---- provider streams ---------------------------------------------------------------------------------

STREAMS = {
    # agno-agi/agno#8879 (PR #8880): deepseek-v4-flash behind an OpenAI-compatible endpoint; the second
    # call's head comes with index 0, its arguments with index 1 (rebuilt from the PR's description)
    "agno8879-second-call-head-on-index-zero": (
        [
            delta(index=0, id="call_a", type="function", function={"name": "search", "arguments": '{"query": '}),
            delta(index=0, function={"arguments": '"dify"}'}),
            delta(index=0, id="call_b", type="function", function={"name": "read_file", "arguments": ""}),
            delta(index=1, function={"arguments": '{"path": "README.md"}'}),
            END,
        ],
        "",
        [("search", {"query": "dify"}), ("read_file", {"path": "README.md"})],
    ),
    # openai/openai-python#3201: vLLM with speculative decoding sends two tool_calls entries with the
    # same index in one chunk (rebuilt from the report)
    "openaipython3201-same-index-twice-in-one-chunk": (
        [
            chunk(tool_calls=[
                {"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"ci'}},
                {"index": 0, "function": {"arguments": 'ty": "Par'}},
            ]),
            delta(index=0, function={"arguments": 'is"}'}),
            END,
        ],
        "",
        [("get_weather", {"city": "Paris"})],
    ),
    # dirac-run/dirac PR #215: Nebius / Cerebras send argument deltas on another index than the call's,
    # without its id or name (rebuilt from the PR)
    "dirac215-arguments-on-the-next-index": (
        [
            delta(index=0, id="call_r", type="function", function={"name": "read_file", "arguments": ""}),
            delta(index=1, function={"arguments": '{"path": '}),
            delta(index=1, function={"arguments": '"a.txt"}'}),
            END,
        ],
        "",
        [("read_file", {"path": "a.txt"})],
    ),
    # openai/codex#7517: llama.cpp and LM Studio send the id only in a call's first delta (rebuilt)
    "codex7517-id-only-in-the-first-delta": (
        [
            delta(index=0, id="call_1", type="function", function={"name": "shell", "arguments": ""}),
            delta(index=0, function={"arguments": '{"command":'}),
            delta(index=0, function={"arguments": ' ["ls", "-la"]}'}),
            END,
        ],
        "",
        [("shell", {"command": ["ls", "-la"]})],
    ),
    # vllm-project/vllm PR #31438: GLM-4.7's last argument piece comes in the finish chunk without
    # id, type or name (rebuilt from the PR)
    "vllm31438-glm47-rest-of-arguments-in-finish-chunk": (
        [
            delta(index=0, id="chatcmpl-tool-1", type="function", function={"name": "get_weather", "arguments": '{"city": '}),
            chunk(finish_reason="tool_calls", tool_calls=[{"index": 0, "function": {"arguments": '"Paris"}'}}]),
        ],
        "",
        [("get_weather", {"city": "Paris"})],
    ),
}


@pytest.mark.parametrize("name", list(STREAMS))
def test_real_world_tool_call_stream(name):
    check_tool_call_stream(*STREAMS[name])


# ---- a stream that lost a call's first argument piece: told, never guessed -------------------------------

LOST_HEAD = {
    # vllm-project/vllm PR #34887: Ministral-3-14B through vLLM's Anthropic endpoint, whose first
    # argument delta ('{"', sent with the name) was dropped: the rest is 'code": "uptime"}' (the
    # deltas rebuilt from the PR's stream)
    "vllm34887-ministral-first-argument-piece-dropped": (
        "execute_bash_code",
        [
            delta(index=0, id="O4kbyHTo9", type="function", function={"name": "execute_bash_code", "arguments": ""}),
            delta(index=0, function={"arguments": "code"}),
            delta(index=0, function={"arguments": '": "uptime"}'}),
            END,
        ],
        'code": "uptime"}',
    ),
    # vllm-project/vllm PR #42683: Kimi K2.6 on the Responses API, the '{"...' chunk that came with the
    # name discarded by the serializer (rebuilt from the PR: a second key's piece left)
    "vllm42683-kimi-first-argument-chunk-discarded": (
        "read_file",
        [
            delta(index=0, id="functions.read_file:0", type="function", function={"name": "read_file", "arguments": ""}),
            delta(index=0, function={"arguments": '.md", "limit": 50}'}),
            END,
        ],
        '.md", "limit": 50}',
    ),
}


@pytest.mark.parametrize("name", list(LOST_HEAD))
def test_a_call_whose_first_argument_piece_was_lost_is_not_run_and_the_model_is_told(name):
    """No call runs with arguments guessed from the rest; the call is invalid, and the model's
    error says its arguments lost their beginning, quoting what arrived."""
    tool_name, raw, arrived = LOST_HEAD[name]
    _, turn = drain(read_function_calling_turn(iter([normalize_chunk(r) for r in raw]), [tool_name]))
    assert isinstance(turn.decision, ToolCalls) and not turn.decision.calls
    (invalid,) = turn.decision.invalid
    assert invalid.name == tool_name and invalid.raw_arguments == arrived
    assert "without their beginning" in invalid.error and arrived[:10] in invalid.error
