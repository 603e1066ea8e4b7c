"""A sixteenth set of real-world model outputs: the raw text that inference servers' own
tool-call parser tests feed their parsers (2026 additions and changes), through both strategies'
turn readers (as ``test_real_world_2026p``: the text whole and in pieces of 1 and 7 characters).
That raw text is what reaches the plugin through an OpenAI-compatible endpoint when the server
runs without the family's parser. Sources no earlier pass used: vLLM's Qwen3-Coder and Gemma 4
parser tests, SGLang's Qwen3-Coder and Kimi-K2 (K2.5) detector tests, and Ollama's DeepSeek-V3
parser test, including its replies where the model writes a tool's output itself.

Each case names its source beside it; docs/real-world-cases.md lists them with the file and
commit. The text is the test's input verbatim; the tests' tools are declared here with string
parameters, so a value written as markup text is expected as a string, and a JSON value as the
JSON it holds.
"""

import pytest

from tests.unit.test_real_world_2026 import Case, check_answer_shown_whole, reply_test, tool
from tests.unit.test_real_world_2026g import read

WEATHER = tool("get_current_weather", "city", "state", "unit")
AREA = tool("calculate_area", "shape", "dimensions", "precision")
SG_WEATHER = tool("get_current_weather", "location", "unit", "days")
SQL = tool("sql_interpreter", "query", "dry_run")
READ_FILE = tool("ReadFile", "path")
KIMI_WEATHER = tool("get_weather", "city", "unit")
DS_WEATHER = tool("get_weather", "location")
DS_BEGIN, DS_END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
DS_OUT, DS_OUT_END = "<｜tool▁output▁begin｜>", "<｜tool▁output▁end｜>"
GQ = '<|"|>'  # Gemma 4's string delimiter
K_SEC, K_SEC_END = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
K_CALL, K_ARG, K_END = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"


def _qwen(name: str, *params: tuple[str, str]) -> str:
    """One Qwen3-Coder call as vLLM's fixture writes it: each value on its own lines."""
    body = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in params)
    return f"<tool_call>\n<function={name}>\n{body}</function>\n</tool_call>"


DALLAS = _qwen("get_current_weather", ("city", "Dallas"), ("state", "TX"), ("unit", "fahrenheit"))


def _gemma(body: str) -> str:
    """One Gemma 4 call as its template writes it."""
    return f"<|tool_call>call:{body}<tool_call|>"


def _kimi(name: str, index: int, args: str) -> str:
    """One Kimi-K2 call (functions.NAME:INDEX and its JSON arguments)."""
    return f"{K_CALL}functions.{name}:{index}{K_ARG}{args}{K_END}"


def _ds(name: str, args: str) -> str:
    """DeepSeek V3's call tokens around one call (the name right after the call token)."""
    return f"{DS_BEGIN}<｜tool▁call▁begin｜>{name}<｜tool▁sep｜>{args}<｜tool▁call▁end｜>{DS_END}"


CASES = {
    # ---- Qwen3-Coder (vLLM tests/tool_parsers/test_qwen3coder_tool_parser.py) --------------------------
    "vllm-qwen3coder-single": Case((WEATHER, AREA), DALLAS,
                                   calls=[("get_current_weather", {"city": "Dallas", "state": "TX", "unit": "fahrenheit"})],
                                   hidden=("<tool_call>", "<parameter")),
    "vllm-qwen3coder-sentence-glued": Case(
        (WEATHER, AREA), "Sure! Let me check the weather for you." + DALLAS,
        calls=[("get_current_weather", {"city": "Dallas", "state": "TX", "unit": "fahrenheit"})], hidden=("<function",)),
    # a JSON object value written over two lines, and a number
    "vllm-qwen3coder-multiline-json-value": Case(
        (WEATHER, AREA), _qwen("calculate_area", ("shape", "rectangle"), ("dimensions", '{"width": 10, \n "height": 20}'),
                               ("precision", "2")),
        calls=[("calculate_area", {"shape": "rectangle", "dimensions": {"width": 10, "height": 20}, "precision": "2"})],
    ),
    "vllm-qwen3coder-two-calls": Case(
        (WEATHER, AREA),
        DALLAS + "\n" + _qwen("get_current_weather", ("city", "Orlando"), ("state", "FL"), ("unit", "celsius")),
        calls=[("get_current_weather", {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}),
               ("get_current_weather", {"city": "Orlando", "state": "FL", "unit": "celsius"})],
    ),
    "vllm-qwen3coder-sentence-then-json-value": Case(
        (WEATHER, AREA),
        "Let me calculate that area for you."
        + _qwen("calculate_area", ("shape", "circle"), ("dimensions", '{"radius": 15.5}'), ("precision", "3")),
        calls=[("calculate_area", {"shape": "circle", "dimensions": {"radius": 15.5}, "precision": "3"})],
    ),
    # no <tool_call> wrapper at all
    "vllm-qwen3coder-no-tags": Case(
        (WEATHER, AREA),
        "<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n<parameter=state>\nTX\n</parameter>\n"
        "</function>",
        calls=[("get_current_weather", {"city": "Dallas", "state": "TX"})], hidden=("<function",),
    ),
    # the first parameter's </parameter> left out: the next <parameter= ends it
    "vllm-qwen3coder-missing-parameter-close": Case(
        (WEATHER, AREA),
        "Let me check the weather for you:\n<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n"
        "<parameter=state>\nTX\n</parameter>\n<parameter=unit>\nfahrenheit\n</parameter>\n</function>\n</tool_call>",
        calls=[("get_current_weather", {"city": "Dallas", "state": "TX", "unit": "fahrenheit"})], hidden=("<parameter",),
    ),
    # no <tool_call> but its closing tag, after a paragraph
    "vllm-qwen3coder-missing-opening-tag": Case(
        (WEATHER, AREA),
        "I'll check the weather for you.\n\n<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n"
        "<parameter=state>\nTX\n</parameter>\n<parameter=unit>\nfahrenheit\n</parameter>\n</function>\n</tool_call>",
        calls=[("get_current_weather", {"city": "Dallas", "state": "TX", "unit": "fahrenheit"})], hidden=("</tool_call>",),
    ),
    # a broken call (its <function= has no '>') before a good one: only the good one runs
    "vllm-qwen3coder-broken-call-then-good": Case(
        (WEATHER, AREA),
        "<tool_call>\n<function=bad_func_no_gt\n</function>\n</tool_call>\n<tool_call>\n<function=get_current_weather>\n"
        "<parameter=city>Dallas</parameter>\n<parameter=state>TX</parameter>\n</function>\n</tool_call>",
        calls=[("get_current_weather", {"city": "Dallas", "state": "TX"})],
    ),
    # values on the tags' line
    "vllm-qwen3coder-inline-json-object": Case(
        (tool("update_record", "data"),),
        '<tool_call>\n<function=update_record>\n<parameter=data>{"key": "value", "count": 42}</parameter>\n</function>\n'
        "</tool_call>",
        calls=[("update_record", {"data": {"key": "value", "count": 42}})],
    ),
    "vllm-qwen3coder-inline-string": Case(
        (tool("greet", "message"),),
        "<tool_call>\n<function=greet>\n<parameter=message>hello world</parameter>\n</function>\n</tool_call>",
        calls=[("greet", {"message": "hello world"})],
    ),
    # ---- Qwen3-Coder (SGLang test/registered/function_call/test_qwen3_coder_detector/test_cases.py) ----
    "sglang-qwen3coder-sentence-two-bare-functions": Case(
        (SG_WEATHER, SQL),
        "Text prefix + double tool call test\n\n<function=get_current_weather>\n<parameter=location>New York</parameter>\n"
        "</function>\n<function=sql_interpreter>\n<parameter=query>SELECT * FROM users</parameter>\n"
        "<parameter=dry_run>True</parameter>\n</function>\n",
        calls=[("get_current_weather", {"location": "New York"}),
               ("sql_interpreter", {"query": "SELECT * FROM users", "dry_run": "True"})], hidden=("<function",),
    ),
    # no </parameter> at all: each value ends at the next tag
    "sglang-qwen3coder-implicit-parameter-close": Case(
        (SG_WEATHER, SQL),
        "Text prefix + implicit parameter close test\n\n<function=get_current_weather>\n<parameter=location>Paris\n"
        "<parameter=unit>celsius\n<parameter=days>3\n</function>",
        calls=[("get_current_weather", {"location": "Paris", "unit": "celsius", "days": "3"})], hidden=("<parameter",),
    ),
    # a list of objects with one single-quoted string
    "sglang-qwen3coder-todo-single-quote": Case(
        (tool("TodoWrite", "todos"),),
        "Text prefix + complex schema tool call test\n\n<function=TodoWrite>\n<parameter=todos>\n[\n"
        ' {"content": "Buy a new car", "status": \'pending\'},\n {"content": "Buy a new house", "status": "completed"}\n]\n'
        "</parameter>\n</function>\n\n",
        calls=[("TodoWrite", {"todos": [{"content": "Buy a new car", "status": "pending"},
                                        {"content": "Buy a new house", "status": "completed"}]})],
    ),
    # ---- Gemma 4 (vLLM tests/tool_parsers/test_gemma4_tool_parser.py) ---------------------------------
    "vllm-gemma4-two-calls": Case(
        (tool("get_weather", "location"), tool("get_time", "location")),
        _gemma(f"get_weather{{location:{GQ}London{GQ}}}") + _gemma(f"get_time{{location:{GQ}London{GQ}}}"),
        calls=[("get_weather", {"location": "London"}), ("get_time", {"location": "London"})], hidden=("<|",),
    ),
    "vllm-gemma4-nested-object-and-list": Case(
        (tool("complex_function", "nested", "list"),),
        _gemma(f"complex_function{{nested:{{inner:{GQ}value{GQ}}},list:[{GQ}a{GQ},{GQ}b{GQ}]}}"),
        calls=[("complex_function", {"nested": {"inner": "value"}, "list": ["a", "b"]})],
    ),
    "vllm-gemma4-number-and-boolean": Case(
        (tool("set_status", "is_active", "count", "score"),), _gemma("set_status{is_active:true,count:42,score:3.14}"),
        calls=[("set_status", {"is_active": True, "count": 42, "score": 3.14})],
    ),
    "vllm-gemma4-hyphenated-name": Case(
        (tool("get-weather", "location"),), _gemma(f"get-weather{{location:{GQ}London{GQ}}}"),
        calls=[("get-weather", {"location": "London"})],
    ),
    "vllm-gemma4-dotted-name": Case(
        (tool("weather.get", "location"),), _gemma(f"weather.get{{location:{GQ}London{GQ}}}"),
        calls=[("weather.get", {"location": "London"})],
    ),
    "vllm-gemma4-no-arguments": Case((tool("get_status"),), _gemma("get_status{}"), calls=[("get_status", {})]),
    # a dict whose key is a quoted string
    "vllm-gemma4-quoted-dict-key": Case(
        (tool("update", "record_map"),), _gemma(f"update{{record_map:{{{GQ}3{GQ}:{GQ}new text{GQ}}}}}"),
        calls=[("update", {"record_map": {"3": "new text"}})],
    ),
    # an HTML file as a multi-line string
    "vllm-gemma4-html-file-content": Case(
        (tool("write_file", "path", "content"),),
        _gemma(f'write_file{{path:{GQ}index.html{GQ},content:{GQ}<!DOCTYPE html>\n<html lang="zh-CN">\n<head>\n'
               f'    <meta charset="UTF-8">\n    <meta name="viewport" content="width=device-width">\n{GQ}}}'),
        calls=[("write_file", {"path": "index.html", "content": '<!DOCTYPE html>\n<html lang="zh-CN">\n<head>\n'
                               '    <meta charset="UTF-8">\n    <meta name="viewport" content="width=device-width">\n'})],
    ),
    # Claude Code's Edit tool with a bare boolean last
    "vllm-gemma4-edit-replace-all-false": Case(
        (tool("Edit", "file_path", "old_string", "new_string", "replace_all"),),
        _gemma(f"Edit{{file_path:{GQ}src/env.py{GQ},old_string:{GQ}old_val{GQ},new_string:{GQ}new_val{GQ},"
               "replace_all:false}"),
        calls=[("Edit", {"file_path": "src/env.py", "old_string": "old_val", "new_string": "new_val", "replace_all": False})],
    ),
    "vllm-gemma4-nested-boolean": Case(
        (tool("search", "input"),), _gemma("search{input:{all:true}}"), calls=[("search", {"input": {"all": True}})],
    ),
    # ---- Kimi K2 / K2.5 (SGLang test/registered/function_call/test_kimik2_detector.py) ----------------
    # an MCP tool's name with hyphens
    "sglang-kimik2-hyphenated-mcp-name": Case(
        (tool("mcp__portal__search-documents", "path"),),
        K_SEC + _kimi("mcp__portal__search-documents", 0, '{"path": "/docs"}') + K_SEC_END,
        calls=[("mcp__portal__search-documents", {"path": "/docs"})], hidden=("<|",),
    ),
    # the conversation's call counters (:5, :6), not the reply's
    "sglang-kimik2-conversation-counters": Case(
        (READ_FILE, KIMI_WEATHER),
        K_SEC + _kimi("ReadFile", 5, '{"path": "/a.py"}') + _kimi("get_weather", 6, '{"city": "Tokyo"}') + K_SEC_END,
        calls=[("ReadFile", {"path": "/a.py"}), ("get_weather", {"city": "Tokyo"})],
    ),
    # Kimi-K2.5 writes its calls inside <think> without closing it
    "sglang-kimik25-calls-inside-open-think": Case(
        (READ_FILE, KIMI_WEATHER),
        "<think>I need to read the file to understand the code." + K_SEC
        + _kimi("ReadFile", 0, '{"path": "/Users/user/project/file.ts"}') + K_SEC_END,
        calls=[("ReadFile", {"path": "/Users/user/project/file.ts"})], hidden=("understand the code", "<|"),
    ),
    # text after </think> glued to the section
    "sglang-kimik25-think-content-then-call": Case(
        (READ_FILE, KIMI_WEATHER),
        "<think>Thinking about it...</think>This is a content:" + K_SEC + _kimi("get_weather", 0, '{"city": "London"}')
        + K_SEC_END,
        calls=[("get_weather", {"city": "London"})], hidden=("Thinking about it",),
    ),
    # two whole sections back to back
    "sglang-kimik25-two-sections": Case(
        (READ_FILE, KIMI_WEATHER),
        "<think>Thinking about it...</think>This is a content:" + K_SEC + _kimi("get_weather", 0, '{"city": "London"}')
        + K_SEC_END + K_SEC + _kimi("get_weather", 1, '{"city": "Delhi"}') + K_SEC_END,
        calls=[("get_weather", {"city": "London"}), ("get_weather", {"city": "Delhi"})], hidden=("<|",),
    ),
    # a stray section-end token after an answer: the answer shows without it
    "sglang-kimik2-stray-section-end": Case(
        (READ_FILE,), "normal text" + K_SEC_END, answer="normal text", hidden=("<|",),
    ),
    # ---- DeepSeek V3 (Ollama model/parsers/deepseek3_test.go) ------------------------------------------
    "ollama-deepseek3-two-calls": Case(
        (DS_WEATHER,),
        f'Getting weather for both cities.{DS_BEGIN}<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{{"location":"Paris"}}'
        f'<｜tool▁call▁end｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{{"location":"London"}}<｜tool▁call▁end｜>{DS_END}',
        calls=[("get_weather", {"location": "Paris"}), ("get_weather", {"location": "London"})], hidden=("<｜",),
    ),
    "ollama-deepseek3-nested-arguments": Case(
        (tool("process_data", "items", "config"),),
        "Processing data." + _ds("process_data", '{"items":["item1","item2"],"config":{"enabled":true,"threshold":0.95}}'),
        calls=[("process_data", {"items": ["item1", "item2"], "config": {"enabled": True, "threshold": 0.95}})],
    ),
    # text after the call block
    "ollama-deepseek3-text-after-calls": Case(
        (DS_WEATHER,), "I'll help you." + _ds("get_weather", '{"location":"Tokyo"}') + "完成 ✅",
        calls=[("get_weather", {"location": "Tokyo"})], hidden=("<｜",),
    ),
    "ollama-deepseek3-unicode-arguments": Case(
        (tool("search", "query", "language"),),
        "Searching for information." + _ds("search", '{"query":"北京天气","language":"中文"}'),
        calls=[("search", {"query": "北京天气", "language": "中文"})],
    ),
    "ollama-deepseek3-escaped-quotes": Case(
        (tool("execute_command", "command", "path"),),
        "Processing data." + _ds("execute_command", '{"command":"ls && echo \\"done\\"","path":"/home/user"}'),
        calls=[("execute_command", {"command": 'ls && echo "done"', "path": "/home/user"})],
    ),
    "ollama-deepseek3-empty-arguments": Case(
        (tool("ping"),), "Pinging server." + _ds("ping", "{}"), calls=[("ping", {})],
    ),
    "ollama-deepseek3-text-around-empty-call": Case(
        (tool("test"),), "Content before " + _ds("test", "{}") + " after", calls=[("test", {})], hidden=("<｜",),
    ),
    # the model writes a tool's output itself, calling nothing: no call runs, and the answer shows
    # without the tokens (the text between them is the model's own words, as Ollama shows them)
    "ollama-deepseek3-made-up-tool-output": Case(
        (DS_WEATHER,), f"Here's the weather: {DS_OUT}Temperature: 22°C, Sunny{DS_OUT_END} Hope that helps!",
        answer="Here's the weather: Temperature: 22°C, Sunny Hope that helps!", hidden=("<｜",),
    ),
    "ollama-deepseek3-two-made-up-tool-outputs": Case(
        (DS_WEATHER,), f"Results: {DS_OUT}Paris: 22°C{DS_OUT_END} and {DS_OUT}London: 18°C{DS_OUT_END}",
        answer="Results: Paris: 22°C and London: 18°C", hidden=("<｜",),
    ),
    "ollama-deepseek3-made-up-tool-output-unicode": Case(
        (DS_WEATHER,), f"天气信息: {DS_OUT}北京: 25°C, 晴天{DS_OUT_END} 希望对您有帮助!",
        answer="天气信息: 北京: 25°C, 晴天 希望对您有帮助!", hidden=("<｜",),
    ),
    "ollama-deepseek3-empty-made-up-tool-output": Case(
        (DS_WEATHER,), f"Checking status: {DS_OUT}{DS_OUT_END} No output received.",
        answer="Checking status:  No output received.", hidden=("<｜",),
    ),
}


GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md
}


test_real_world_reply = reply_test(CASES, GAPS, read)


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_tool_output_tokens_an_answer_shows_in_code_stay_as_written(strategy):
    """DeepSeek's tool-output tokens in a code span are the answer's text: an answer explaining
    the template shows them; only the bare tokens are dropped."""
    check_answer_shown_whole(strategy, f"DeepSeek wraps a result in `{DS_OUT}` and `{DS_OUT_END}`.", (DS_WEATHER,), reader=read)


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_a_made_up_tool_output_after_a_call_is_no_result_of_it(strategy):
    """A call, then an output the model wrote for it: the call runs (its real result comes from
    the tool), and the made-up output is neither an argument nor a second call, nor shown."""
    text = "Checking." + _ds("get_weather", '{"location":"Paris"}') + f"{DS_OUT}Sunny, 30°C{DS_OUT_END}"
    for size in (None, 1, 7):
        streamed, turn = read(strategy, Case((DS_WEATHER,), text), size)
        assert [(c.name, c.arguments) for c in turn.decision.calls] == [("get_weather", {"location": "Paris"})]
        assert "<｜" not in streamed and "Sunny" not in streamed
