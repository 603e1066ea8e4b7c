"""A fifteenth set of real-world model outputs: the raw text that inference servers' own
tool-call parser tests feed their parsers (2026 additions and changes), through both strategies'
turn readers (as ``test_real_world_2026g``: the text whole and in pieces of 1 and 7 characters).
That raw text is what reaches the plugin through an OpenAI-compatible endpoint when the server
runs without the family's parser. Sources the earlier passes did not use: vLLM's GLM-4.7 parser
test, SGLang's GLM-4.7, DeepSeek V3.2/V4 DSML and gpt-oss detector tests, Ollama's Go parser
tests for GLM-5.2, Qwen3.5, Gemma 4, MiniMax-M2 and DeepSeek, and mlx-lm's DSML close-tag test
(a shape captured from DeepSeek-V4 quants).

Each case names its source beside it; docs/real-world-cases.md lists them with the file and
commit. The text is the test's input verbatim; the tests' tools are declared here with string
parameters, so a value written as markup text is expected as a string, and a JSON value as the
JSON it holds.
"""

import pytest

from tests.unit.test_real_world_2026 import Case, reply_test, tool
from tests.unit.test_real_world_2026g import read

WEATHER = tool("get_weather", "city", "date")
DATE = tool("get_current_date")
LOCATION = tool("get_weather", "location", "days", "units", "unit")
SEARCH = tool("search", "query", "note")
DS_BEGIN, DS_END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
DSML = "｜DSML｜"
GQ = '<|"|>'  # Gemma 4's string delimiter


def _dsml(wrapper: str, value: str, string: str = "false") -> str:
    """SGLang's DSML fixture (test_deepseekv32_detector.py): one write_note call, its chunks joined."""
    return (
        f'<{DSML}{wrapper}>\n<{DSML}invoke name="write_note">\n'
        f'<{DSML}parameter name="payload" string="{string}">{value}</{DSML}parameter>\n'
        f"</{DSML}invoke>\n</{DSML}{wrapper}>"
    )


def _gemma(body: str) -> str:
    """One Gemma 4 call as its template writes it."""
    return f"<|tool_call>call:{body}<tool_call|>"


def _minimax(body: str) -> str:
    return f"<minimax:tool_call>\n{body}\n</minimax:tool_call>"


TODOS = (
    '[{"id": "1", "task": "Check for hard-coded issues in the backend code", "status": "in_progress"}, '
    '{"id": "2", "task": "Check for hard-coded issues in the frontend code", "status": "pending"}, '
    '{"id": "3", "task": "Check for code violating the Single Responsibility Principle", "status": "pending"}, '
    '{"id": "4", "task": "Generate a rectification proposal report", "status": "pending"}]'
)
TODO_LIST = [
    {"id": "1", "task": "Check for hard-coded issues in the backend code", "status": "in_progress"},
    {"id": "2", "task": "Check for hard-coded issues in the frontend code", "status": "pending"},
    {"id": "3", "task": "Check for code violating the Single Responsibility Principle", "status": "pending"},
    {"id": "4", "task": "Generate a rectification proposal report", "status": "pending"},
]

CASES = {
    # ---- GLM-4.7 (vLLM tests/tool_parsers/test_glm47_moe_tool_parser.py) ------------------------------
    # a call with no arguments, the name alone inside the tags
    "vllm-glm47-zero-arg-inline": Case((DATE, WEATHER), "<tool_call>get_current_date</tool_call>",
                                       calls=[("get_current_date", {})], hidden=("<tool_call>",)),
    # the same with a line break after the name
    "vllm-glm47-zero-arg-newline": Case((DATE, WEATHER), "<tool_call>get_current_date\n</tool_call>",
                                        calls=[("get_current_date", {})]),
    # arguments on the name's line, no line breaks at all
    "vllm-glm47-args-same-line": Case(
        (DATE, WEATHER),
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>",
        calls=[("get_weather", {"city": "Beijing"})],
    ),
    # a sentence glued to the call
    "vllm-glm47-content-before": Case((DATE, WEATHER), "Checking.<tool_call>get_current_date</tool_call>",
                                      calls=[("get_current_date", {})]),
    # two calls back to back, no separator
    "vllm-glm47-two-calls": Case(
        (DATE, WEATHER),
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>"
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Shanghai</arg_value></tool_call>",
        calls=[("get_weather", {"city": "Beijing"}), ("get_weather", {"city": "Shanghai"})],
    ),
    # white space before the call
    "vllm-glm47-whitespace-then-call": Case((DATE, WEATHER), "  \n  <tool_call>get_current_date</tool_call>",
                                            calls=[("get_current_date", {})]),
    # ---- GLM-4.7 (SGLang test/registered/function_call/test_glm47_moe_detector.py) --------------------
    # an array of objects as one argument's JSON value
    "sglang-glm47-todo-array-argument": Case(
        (tool("todo_write", "todos"),),
        f"<tool_call>todo_write<arg_key>todos</arg_key><arg_value>{TODOS}</arg_value>\n</tool_call>",
        calls=[("todo_write", {"todos": TODO_LIST})],
    ),
    # the same JSON with its quotes escaped (the test's raw-string variant)
    "sglang-glm47-todo-array-escaped-quotes": Case(
        (tool("todo_write", "todos"),),
        "<tool_call>todo_write<arg_key>todos</arg_key><arg_value>" + TODOS.replace('"', '\\"')
        + "</arg_value>\n</tool_call>",
        calls=[("todo_write", {"todos": TODO_LIST})],
    ),
    # a Windows path inside the JSON value, its backslashes escaped once
    "sglang-glm47-todo-windows-path": Case(
        (tool("todo_write", "todos"),),
        '<tool_call>todo_write<arg_key>todos</arg_key><arg_value>[{"id": "1", "task": '
        '"Check file at C:\\\\Users\\\\test.txt", "status": "pending"}]</arg_value></tool_call>',
        calls=[("todo_write", {"todos": [{"id": "1", "task": "Check file at C:\\Users\\test.txt", "status": "pending"}]})],
    ),
    # the MTP stream's chunks joined: a sentence, then a call with two string arguments
    "sglang-glm47-mtp-sentence-then-call": Case(
        (tool("create_task", "title", "location"),),
        "I'll create a task.<tool_call>create_task<arg_key>title</arg_key><arg_value>Go to Beijing</arg_value>"
        "<arg_key>location</arg_key><arg_value>San Francisco</arg_value></tool_call>",
        calls=[("create_task", {"title": "Go to Beijing", "location": "San Francisco"})],
    ),
    # ---- GLM-5.2 (Ollama model/parsers/glm52_test.go) --------------------------------------------------
    # the template opens the thinking block: the reply starts inside it, a bare </think>, then text
    # and a call
    "ollama-glm52-open-thinking-text-call": Case(
        (tool("calculate", "count", "enabled"),),
        "plan</think>Answer<tool_call>calculate<arg_key>count</arg_key><arg_value>3</arg_value>"
        "<arg_key>enabled</arg_key><arg_value>true</arg_value></tool_call>",
        calls=[("calculate", {"count": "3", "enabled": "true"})], hidden=("<arg_",),
    ),
    "ollama-glm52-complex-prompt": Case(
        (tool("search", "query"),),
        "deep analysis of the problem</think>Found the answer<tool_call>search<arg_key>query</arg_key>"
        "<arg_value>advanced search query</arg_value></tool_call>",
        calls=[("search", {"query": "advanced search query"})],
    ),
    # an empty thinking block, then the answer
    "ollama-glm52-empty-thinking-answer": Case((tool("search", "query"),), "</think>Plain answer",
                                               answer="Plain answer", hidden=("think>",)),
    # ---- Qwen3.5 (Ollama model/parsers/qwen35_test.go) -------------------------------------------------
    # Qwen3-Coder's XML with no line breaks between the tags
    "ollama-qwen35-xml-call-no-line-breaks": Case(
        (LOCATION,),
        "<tool_call><function=get_weather><parameter=location>\nSan Francisco\n</parameter><parameter=days>\n3\n"
        "</parameter></function></tool_call>",
        calls=[("get_weather", {"location": "San Francisco", "days": "3"})],
    ),
    # thinking opened by the model itself, then the answer
    "ollama-qwen35-explicit-think-then-answer": Case(
        (LOCATION,), "<think>\nLet me think...</think>Answer.", answer="Answer.", hidden=("Let me think",)),
    # the template opened the block; the call comes after the bare </think>
    "ollama-qwen35-call-after-bare-close": Case(
        (LOCATION,),
        "Need weather lookup</think><tool_call><function=get_weather><parameter=location>\nSF\n</parameter>"
        "</function></tool_call>",
        calls=[("get_weather", {"location": "SF"})],
    ),
    # the call written inside the (template-opened) thinking, no </think> at all
    "ollama-qwen35-call-inside-thinking": Case(
        (LOCATION,),
        "Need weather lookup<tool_call><function=get_weather><parameter=location>\nSF\n</parameter>"
        "</function></tool_call>",
        calls=[("get_weather", {"location": "SF"})],
    ),
    "ollama-qwen35-leading-bare-close-answer": Case(
        (LOCATION,), "</think>The final answer.", answer="The final answer.", hidden=("think>",)),
    # ---- Gemma 4 (Ollama model/parsers/gemma4_test.go) -------------------------------------------------
    "ollama-gemma4-two-string-args": Case(
        (LOCATION,), _gemma(f"get_weather{{location:{GQ}Paris{GQ},units:{GQ}metric{GQ}}}"),
        calls=[("get_weather", {"location": "Paris", "units": "metric"})], hidden=("<|",),
    ),
    # double quotes inside a Gemma-quoted string, unescaped
    "ollama-gemma4-unescaped-quotes-in-string": Case(
        (SEARCH,), _gemma(f'search{{query:{GQ}say "hello", then "goodbye"{GQ}}}'),
        calls=[("search", {"query": 'say "hello", then "goodbye"'})],
    ),
    # a shell command holding a quoted URL
    "ollama-gemma4-exec-quoted-url": Case(
        (tool("exec", "command"),), _gemma(f'exec{{command:{GQ}fetch "https://ollama.com/library/gemma4" --extract{GQ}}}'),
        calls=[("exec", {"command": 'fetch "https://ollama.com/library/gemma4" --extract'})],
    ),
    # a Windows path, single backslashes kept as written
    "ollama-gemma4-windows-path": Case(
        (tool("open_file", "path"),), _gemma(f"open_file{{path:{GQ}C:\\users\\bob\\file.txt{GQ}}}"),
        calls=[("open_file", {"path": "C:\\users\\bob\\file.txt"})],
    ),
    # the stream ended before the call's closing token
    "ollama-gemma4-no-closing-token": Case(
        (SEARCH,), f'<|tool_call>call:search{{query:{GQ}say "hello" and "bye"{GQ}}}',
        calls=[("search", {"query": 'say "hello" and "bye"'})], hidden=("<|tool_call>",),
    ),
    # an edit tool's array of objects, multi-line Markdown values with quotes
    "ollama-gemma4-edit-array-multiline-markdown": Case(
        (tool("edit", "edits"),),
        f"<|tool_call>call:edit{{edits:[\n  {{newText:{GQ}# Gemma4 + openclaude speed optimization guide\n\n"
        f'Use "nvfp4" only after validating tool calls.\n{GQ},oldText:{GQ}# Gemma4 + openclaude speed optimization guide\n\n'
        f"Use the default quantization.\n{GQ}}},\n  {{newText:{GQ}## 14. Methods tried but not adopted\n\n"
        f'### 1. Model quantization\nDo not enable "mxfp8" by default.\n{GQ},oldText:{GQ}## 14. Methods tried but not adopted\n'
        f"{GQ}}}\n]}}<tool_call|>",
        calls=[("edit", {"edits": [
            {"newText": '# Gemma4 + openclaude speed optimization guide\n\nUse "nvfp4" only after validating tool calls.\n',
             "oldText": "# Gemma4 + openclaude speed optimization guide\n\nUse the default quantization.\n"},
            {"newText": '## 14. Methods tried but not adopted\n\n### 1. Model quantization\nDo not enable "mxfp8" by default.\n',
             "oldText": "## 14. Methods tried but not adopted\n"},
        ]})],
    ),
    # the thinking channel, then the call
    "ollama-gemma4-thinking-then-call": Case(
        (LOCATION,), f"<|channel>thought\nI need to check the weather<channel|>{_gemma(f'get_weather{{location:{GQ}Paris{GQ}}}')}",
        calls=[("get_weather", {"location": "Paris"})], hidden=("check the weather",),
    ),
    "ollama-gemma4-thinking-then-answer": Case(
        (LOCATION,), "<|channel>thought\nLet me think about this...<channel|>The answer is 42.",
        answer="The answer is 42.", hidden=("Let me think",),
    ),
    # a sentence glued to the call
    "ollama-gemma4-content-then-call": Case(
        (LOCATION,), f"Let me check that for you.{_gemma(f'get_weather{{location:{GQ}Paris{GQ}}}')}",
        calls=[("get_weather", {"location": "Paris"})],
    ),
    # the closing token written twice, text after it
    "ollama-gemma4-extra-close-token": Case(
        (LOCATION,), f"{_gemma(f'get_weather{{location:{GQ}Paris{GQ}}}')}<tool_call|>Done.",
        calls=[("get_weather", {"location": "Paris"})], hidden=("<tool_call|>",),
    ),
    # the model goes on into the tool-response turn after its call
    "ollama-gemma4-tool-response-after-call": Case(
        (LOCATION,), f"{_gemma(f'get_weather{{location:{GQ}Paris{GQ}}}')}<|tool_response>",
        calls=[("get_weather", {"location": "Paris"})], hidden=("<|tool_response>",),
    ),
    # a JSON-quoted value with escaped quotes beside a Gemma-quoted one
    "ollama-gemma4-mixed-json-and-gemma-quotes": Case(
        (SEARCH,), _gemma(f'search{{query:"raw \\"quoted\\"",note:{GQ}gemma "quoted"{GQ}}}'),
        calls=[("search", {"query": 'raw "quoted"', "note": 'gemma "quoted"'})],
    ),
    # ---- MiniMax-M2 (Ollama model/parsers/minimaxm2_test.go) -------------------------------------------
    # recovery: the parameter's closing tag left out
    "ollama-minimaxm2-missing-parameter-close": Case(
        (LOCATION,), _minimax('<invoke name="get_weather">\n<parameter name="location">Tokyo</invoke>'),
        calls=[("get_weather", {"location": "Tokyo"})],
    ),
    # recovery: the invoke's closing tag left out
    "ollama-minimaxm2-missing-invoke-close": Case(
        (LOCATION,), _minimax('<invoke name="get_weather">\n<parameter name="location">Tokyo</parameter>'),
        calls=[("get_weather", {"location": "Tokyo"})],
    ),
    # two call blocks with a sentence between them
    "ollama-minimaxm2-two-blocks-text-between": Case(
        (LOCATION, tool("search_web", "query", "limit")),
        _minimax('<invoke name="get_weather">\n<parameter name="location">Tokyo</parameter>\n</invoke>')
        + "\nSome text.\n"
        + _minimax('<invoke name="search_web">\n<parameter name="query">news</parameter>\n</invoke>'),
        calls=[("get_weather", {"location": "Tokyo"}), ("search_web", {"query": "news"})], hidden=("<invoke",),
    ),
    # text before and after the block
    "ollama-minimaxm2-text-around-block": Case(
        (LOCATION,),
        "Let me check. " + _minimax('<invoke name="get_weather">\n<parameter name="location">Tokyo</parameter>\n</invoke>')
        + "\nDone checking.",
        calls=[("get_weather", {"location": "Tokyo"})], hidden=("<invoke", "minimax"),
    ),
    # ---- DeepSeek (Ollama model/parsers/deepseek_test.go) ----------------------------------------------
    # V3.1's call tokens, the name straight after the call token, after a sentence
    "ollama-deepseek-sentence-then-call": Case(
        (LOCATION,),
        f'I\'ll check the weather.{DS_BEGIN}<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{{"location":"Paris"}}'
        f"<｜tool▁call▁end｜>{DS_END}",
        calls=[("get_weather", {"location": "Paris"})], hidden=("<｜",),
    ),
    # reasoning opened by the template, then text and the call
    "ollama-deepseek-thinking-text-call": Case(
        (LOCATION,),
        f"Let me check the weather...</think>I'll get that for you.{DS_BEGIN}<｜tool▁call▁begin｜>get_weather"
        f'<｜tool▁sep｜>{{"location":"Paris"}}<｜tool▁call▁end｜>{DS_END}',
        calls=[("get_weather", {"location": "Paris"})],
    ),
    # ---- DeepSeek V3.2 / V4 DSML (SGLang test_deepseekv32_detector.py; mlx-lm) --------------------------
    # a string="false" value that is no JSON (Cyrillic prose): read as the text it is
    "sglang-dsv32-non-json-value": Case(
        (tool("write_note", "payload"),), _dsml("function_calls", "Здравствуйте, мир! Это тест"),
        calls=[("write_note", {"payload": "Здравствуйте, мир! Это тест"})], hidden=(DSML,),
    ),
    # the same with V4's tool_calls wrapper
    "sglang-dsv4-non-json-value": Case(
        (tool("write_note", "payload"),), _dsml("tool_calls", "Здравствуйте, мир! Это тест"),
        calls=[("write_note", {"payload": "Здравствуйте, мир! Это тест"})], hidden=(DSML,),
    ),
    # a JSON object value
    "sglang-dsv32-json-object-value": Case(
        (tool("write_note", "payload"),), _dsml("function_calls", '{"city": "San Francisco"}'),
        calls=[("write_note", {"payload": {"city": "San Francisco"}})],
    ),
    # mlx-lm tests/test_deepseek_dsml_close_tag.py: DeepSeek-V4 4/5/6-bit quants write the invoke's
    # closing tag cut short, </｜DSML｜inv>
    "mlxlm-dsv4-truncated-invoke-close": Case(
        (LOCATION,),
        f'<{DSML}tool_calls>\n<{DSML}invoke name="get_weather">\n'
        f'<{DSML}parameter name="location" string="true">Paris, France</{DSML}parameter>\n'
        f"</{DSML}inv>\n</{DSML}tool_calls>",
        calls=[("get_weather", {"location": "Paris, France"})], hidden=(DSML,),
    ),
    # ---- gpt-oss (SGLang test/registered/function_call/test_gpt_oss_detector.py) -----------------------
    # analysis, a call, then a final message the detector drops as coming after the call
    "sglang-gptoss-call-then-final-message": Case(
        (tool("read_file", "files"),),
        "<|channel|>analysis<|message|>Reasoning...<|end|>"
        '<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{\n  "files": []\n}<|call|>'
        "<|start|>assistant<|channel|>final<|message|>This text should be truncated.",
        calls=[("read_file", {"files": []})], hidden=("Reasoning...", "<|"),
    ),
}


GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md
}


test_real_world_reply = reply_test(CASES, GAPS, read)


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_a_parameter_left_open_in_an_invoke_never_closed_is_not_read(strategy):
    """A reply cut off inside a parameter's value (no ``</invoke>``) runs no call with that cut
    value: only a call the model closed has its open parameter read to the close."""
    case = Case((LOCATION,), '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="location">Tok')
    for size in (None, 1, 7):
        _, turn = read(strategy, case, size)
        for call in getattr(turn.decision, "calls", ()):
            assert "Tok" not in call.arguments.values()


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_escaped_quotes_that_hold_no_json_stay_the_text_written(strategy):
    """A value opening like escaped JSON but holding none is the string the model wrote."""
    text = '<tool_call>note<arg_key>text</arg_key><arg_value>{\\"a\\": oops</arg_value></tool_call>'
    _, turn = read(strategy, Case((tool("note", "text"),), text), None)
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [("note", {"text": '{\\"a\\": oops'})]
