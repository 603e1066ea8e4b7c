"""A seventeenth set of real-world model outputs: the raw text that inference servers' own
tool-call parser tests feed their parsers (2026 additions and changes), through both strategies'
turn readers (as ``test_real_world_2026p``: the text whole and in pieces of 1 and 7 characters).
That raw text is what reaches the plugin through an OpenAI-compatible endpoint when the server
runs without the family's parser. Sources no earlier pass used: vLLM's MiMo-V2-Flash, Llama 4
pythonic, GigaChat 3.5, Solar Open 2 and MiniCPM5 XML parser tests, and mlx-lm's tool-parsing
test (Qwen3-Coder repairs, Gemma 4 blocks).

Each case names its source beside it; docs/real-world-cases.md lists them with the file and
commit. The text is the test's input verbatim (mlx-lm's Gemma 4 text inside the call tokens its
parser is given it between); the tests' tools are declared here with string parameters, so a
value written as markup text is expected as a string, and a JSON value as the JSON it holds.
"""

import pytest

from tests.unit.test_real_world_2026 import Case, check_answer_shown_whole, reply_test, tool
from tests.unit.test_real_world_2026g import read

BASH = tool("execute_bash", "command")
LLAMA_WEATHER = tool("get_weather", "city", "metric")
REGISTER = tool("register_user", "name", "age", "address", "role", "passed_test", "aliases")
COOL = tool("do_something_cool", "additional_data", "steps")
G_WEATHER = tool("get_weather", "city")
G_TIME = tool("get_time", "timezone")
S_SEARCH = tool("search", "query", "max_results")
M_WEATHER = tool("get_weather", "city", "date")
M_SUM = tool("sum_values", "nums", "exact")
READ = tool("read_file", "path")
GQ = '<|"|>'  # Gemma 4's string delimiter
PY_START, PY_END = "<|python_start|>", "<|python_end|>"


def _gcml(*calls: str) -> str:
    """GigaChat 3.5's call section around ``calls`` (vLLM's ``tool_calls`` helper)."""
    return f"<｜GCML｜tool_calls>{''.join(calls)}</｜GCML｜tool_calls>"


def _gcml_invoke(name: str, *params: tuple[str, str, bool]) -> str:
    """One GigaChat 3.5 call (vLLM's ``invoke`` helper): ``(name, value, is_string)`` each."""
    body = "".join(f'<｜GCML｜parameter name="{k}" string="{str(s).lower()}">{v}</｜GCML｜parameter>'
                   for k, v, s in params)
    return f'<｜GCML｜invoke name="{name}">{body}</｜GCML｜invoke>'


def _solar(name: str, *args: tuple[str, str]) -> str:
    """One Solar Open 2 call as vLLM's fixtures write it."""
    body = "".join(f"<|tool_arg:start|>{k}<|tool_arg:value|>{v}<|tool_arg:end|>\n" for k, v in args)
    return f"<|tool_call:start|>{name}\n{body}<|tool_call:end|>"


SOLAR_SEOUL = _solar("get_weather", ("city", "Seoul"))


CASES = {
    # ---- MiMo-V2-Flash (vLLM tests/tool_parsers/test_mimov2_flash_tool_parser.py) ----------------------
    "vllm-mimov2-basic-after-a-line": Case(
        (BASH,), "Here is the result:\n<tool_call>\n<function=execute_bash>\n<parameter=command>pwd && ls</parameter>\n"
        "</function>\n</tool_call>",
        calls=[("execute_bash", {"command": "pwd && ls"})], hidden=("<function",),
    ),
    "vllm-mimov2-two-parameters": Case(
        (tool("execute_code", "language", "code"),),
        '<tool_call>\n<function=execute_code>\n<parameter=language>python</parameter>\n<parameter=code>print("hello")'
        "</parameter>\n</function>\n</tool_call>",
        calls=[("execute_code", {"language": "python", "code": 'print("hello")'})],
    ),
    "vllm-mimov2-content-before": Case(
        (BASH,), "Let me execute that command for you.\n<tool_call>\n<function=execute_bash>\n"
        "<parameter=command>echo hello</parameter>\n</function>\n</tool_call>",
        calls=[("execute_bash", {"command": "echo hello"})], hidden=("<tool_call>",),
    ),
    "vllm-mimov2-empty-arguments": Case(
        (tool("noop"),), "<tool_call>\n<function=noop>\n</function>\n</tool_call>", calls=[("noop", {})],
    ),
    # a value over three lines, kept exactly
    "vllm-mimov2-multiline-value": Case(
        (tool("example_function_name", "example_parameter_1", "example_parameter_2"),),
        "<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>value_1</parameter>\n"
        "<parameter=example_parameter_2>This is the value for the second parameter\nthat can span\nmultiple lines"
        "</parameter>\n</function>\n</tool_call>",
        calls=[("example_function_name", {"example_parameter_1": "value_1", "example_parameter_2":
                "This is the value for the second parameter\nthat can span\nmultiple lines"})],
    ),
    "vllm-mimov2-word-glued-before": Case(
        (BASH,), "Hello <tool_call>\n<function=execute_bash>\n<parameter=command>ls</parameter>\n</function>\n</tool_call>",
        calls=[("execute_bash", {"command": "ls"})], hidden=("<tool_call>",),
    ),
    # ---- Llama 4 pythonic (vLLM tests/tool_parsers/test_llama4_pythonic_tool_parser.py) ---------------
    "vllm-llama4-escaped-strings": Case(
        (LLAMA_WEATHER,), r"""[get_weather(city='Martha\'s Vineyard', metric='\"cool units\"')]""",
        calls=[("get_weather", {"city": "Martha's Vineyard", "metric": '"cool units"'})],
    ),
    "vllm-llama4-more-types": Case(
        (REGISTER,), "[register_user(name='Doe', age=9, address={'city': 'LA', 'state': 'CA'}, role=None, "
        "passed_test=True, aliases=['John', 'Johnny'])]",
        calls=[("register_user", {"name": "Doe", "age": 9, "address": {"city": "LA", "state": "CA"}, "role": None,
                                  "passed_test": True, "aliases": ["John", "Johnny"]})],
    ),
    "vllm-llama4-empty-dict": Case(
        (COOL,), "[do_something_cool(additional_data={})]", calls=[("do_something_cool", {"additional_data": {}})],
    ),
    "vllm-llama4-parallel-no-spaces": Case(
        (LLAMA_WEATHER, REGISTER), "[get_weather(city='LA',metric='C'),register_user(name='Doe',age=9)]",
        calls=[("get_weather", {"city": "LA", "metric": "C"}), ("register_user", {"name": "Doe", "age": 9})],
    ),
    # the python tokens opened and never closed
    "vllm-llama4-python-start-unclosed": Case(
        (LLAMA_WEATHER, REGISTER), f"{PY_START}[get_weather(city='LA', metric='C'), register_user(name='Doe', age=9)]",
        calls=[("get_weather", {"city": "LA", "metric": "C"}), ("register_user", {"name": "Doe", "age": 9})],
        hidden=("<|",),
    ),
    "vllm-llama4-three-calls-in-tokens": Case(
        (LLAMA_WEATHER, COOL),
        f"{PY_START}[get_weather(city='LA', metric='C'), get_weather(), do_something_cool(steps=[])]{PY_END}",
        calls=[("get_weather", {"city": "LA", "metric": "C"}), ("get_weather", {}), ("do_something_cool", {"steps": []})],
        hidden=("<|",),
    ),
    # ---- GigaChat 3.5 (vLLM tests/tool_parsers/test_gigachat35_tool_parser.py) ------------------------
    "vllm-gigachat35-single": Case(
        (G_WEATHER, G_TIME), _gcml(_gcml_invoke("get_weather", ("city", "Tokyo", True))),
        calls=[("get_weather", {"city": "Tokyo"})], hidden=("GCML",),
    ),
    "vllm-gigachat35-parallel": Case(
        (G_WEATHER, G_TIME),
        _gcml(_gcml_invoke("get_weather", ("city", "Tokyo", True)), _gcml_invoke("get_time", ("timezone", "Asia/Tokyo", True))),
        calls=[("get_weather", {"city": "Tokyo"}), ("get_time", {"timezone": "Asia/Tokyo"})], hidden=("GCML",),
    ),
    # string="false": each value is JSON
    "vllm-gigachat35-typed-values": Case(
        (tool("typed_args", "string_field", "int_field", "float_field", "bool_field", "null_field", "array_field",
              "object_field"),),
        _gcml(_gcml_invoke("typed_args", ("string_field", '"hello"', False), ("int_field", "7", False),
                           ("float_field", "3.5", False), ("bool_field", "true", False), ("null_field", "null", False),
                           ("array_field", "[1, 2, 3]", False), ("object_field", '{"nested": true}', False))),
        calls=[("typed_args", {"string_field": "hello", "int_field": 7, "float_field": 3.5, "bool_field": True,
                               "null_field": None, "array_field": [1, 2, 3], "object_field": {"nested": True}})],
    ),
    "vllm-gigachat35-empty-arguments": Case(
        (tool("empty_args"),), _gcml(_gcml_invoke("empty_args")), calls=[("empty_args", {})], hidden=("GCML",),
    ),
    "vllm-gigachat35-sentence-glued": Case(
        (G_WEATHER, G_TIME), "I will check." + _gcml(_gcml_invoke("get_weather", ("city", "Tokyo", True))),
        calls=[("get_weather", {"city": "Tokyo"})], hidden=("GCML",),
    ),
    # a string value holding a backslash-n and quotes, kept as written
    "vllm-gigachat35-escaped-string": Case(
        (tool("escaped", "text"),), _gcml(_gcml_invoke("escaped", ("text", 'line 1\\n"quoted"', True))),
        calls=[("escaped", {"text": 'line 1\\n"quoted"'})],
    ),
    "vllm-gigachat35-json-object-value": Case(
        (tool("store", "payload"),), _gcml(_gcml_invoke("store", ("payload", '{"a": 1}', False))),
        calls=[("store", {"payload": {"a": 1}})],
    ),
    # ---- Solar Open 2 (vLLM tests/tool_parsers/test_solar_open2_tool_parser.py) -----------------------
    "vllm-solar2-single": Case((M_WEATHER, S_SEARCH), SOLAR_SEOUL, calls=[("get_weather", {"city": "Seoul"})],
                               hidden=("<|",)),
    "vllm-solar2-sentence-glued": Case(
        (M_WEATHER, S_SEARCH), "Let me check the weather." + SOLAR_SEOUL, calls=[("get_weather", {"city": "Seoul"})],
        hidden=("<|",),
    ),
    "vllm-solar2-two-calls": Case(
        (M_WEATHER, S_SEARCH), "I'll check both." + SOLAR_SEOUL + "\n" + _solar("get_weather", ("city", "Tokyo")),
        calls=[("get_weather", {"city": "Seoul"}), ("get_weather", {"city": "Tokyo"})], hidden=("<|",),
    ),
    "vllm-solar2-two-arguments": Case(
        (M_WEATHER, S_SEARCH), _solar("search", ("query", "vLLM tutorial"), ("max_results", "5")),
        calls=[("search", {"query": "vLLM tutorial", "max_results": "5"})],
    ),
    "vllm-solar2-no-arguments": Case(
        (G_TIME,), "<|tool_call:start|>get_time\n<|tool_call:end|>", calls=[("get_time", {})],
    ),
    "vllm-solar2-json-value": Case(
        (tool("process_data", "data"),), _solar("process_data", ("data", '{"key": "value"}')),
        calls=[("process_data", {"data": {"key": "value"}})],
    ),
    # Solar's reasoning tokens, then a sentence and the call
    "vllm-solar2-reasoning-then-call": Case(
        (M_WEATHER, S_SEARCH), "<|think:start|>I should use a tool<|think:end|>Sure, let me help." + SOLAR_SEOUL,
        calls=[("get_weather", {"city": "Seoul"})], hidden=("<|", "I should use a tool"),
    ),
    # no <|tool_call:end|> before the next call
    "vllm-solar2-dropped-call-end": Case(
        (M_WEATHER, S_SEARCH),
        "<|tool_call:start|>search\n<|tool_arg:start|>query<|tool_arg:value|>vLLM<|tool_arg:end|>\n" + SOLAR_SEOUL,
        calls=[("search", {"query": "vLLM"}), ("get_weather", {"city": "Seoul"})], hidden=("<|",),
    ),
    # a value quoting an unfinished token
    "vllm-solar2-token-prefix-in-value": Case(
        (M_WEATHER, S_SEARCH), _solar("search", ("query", "what does <|tool_call: mean")),
        calls=[("search", {"query": "what does <|tool_call: mean"})],
    ),
    "vllm-solar2-text-between-calls": Case(
        (M_WEATHER, S_SEARCH), "pre" + SOLAR_SEOUL + "mid" + SOLAR_SEOUL.replace("Seoul", "Busan") + "post",
        calls=[("get_weather", {"city": "Seoul"}), ("get_weather", {"city": "Busan"})], hidden=("<|",),
    ),
    # ---- MiniCPM5 (vLLM tests/tool_parsers/test_minicpm5xml_tool_parser.py) ---------------------------
    "vllm-minicpm5-text-around": Case(
        (M_WEATHER,), 'Intro before.\n<function name="get_weather"><param name="city">上海</param>'
        '<param name="date">2024-06-27</param></function>\nOutro after.\n',
        calls=[("get_weather", {"city": "上海", "date": "2024-06-27"})], hidden=("<param",),
    ),
    # a value in CDATA over two lines
    "vllm-minicpm5-cdata-value": Case(
        (M_WEATHER,), '<function name="get_weather"><param name="city"><![CDATA[北\n京]]></param>'
        '<param name="date">2024-06-27</param></function>\n',
        calls=[("get_weather", {"city": "北\n京", "date": "2024-06-27"})],
    ),
    "vllm-minicpm5-json-values": Case(
        (M_SUM,), '<function name="sum_values"><param name="nums">[1, 2, 3]</param><param name="exact">true</param>'
        "</function>\n",
        calls=[("sum_values", {"nums": [1, 2, 3], "exact": True})],
    ),
    "vllm-minicpm5-two-calls-between-lines": Case(
        (M_WEATHER, M_SUM), 'Head\n<function name="get_weather"><param name="city">北京</param></function>\nTXT\n'
        '<function name="sum_values"><param name="nums">[7,8,9]</param><param name="exact">false</param></function>\n'
        "Tail\n",
        calls=[("get_weather", {"city": "北京"}), ("sum_values", {"nums": [7, 8, 9], "exact": False})],
        hidden=("<param",),
    ),
    "vllm-minicpm5-no-parameters": Case(
        (tool("noop", "note"),), '<function name="noop"></function>\n', calls=[("noop", {})],
    ),
    # ---- mlx-lm tests/test_tool_parsing.py ------------------------------------------------------------
    # Qwen3-Coder's parameter name with no '>' after it
    "mlxlm-qwen3coder-parameter-name-unclosed": Case(
        (READ,), "<function=read_file>\n<parameter=path\n/etc/hosts\n</parameter>\n</function>",
        calls=[("read_file", {"path": "/etc/hosts"})], hidden=("<parameter",),
    ),
    # Qwen3-Coder's function name with no '>' after it
    "mlxlm-qwen3coder-function-name-unclosed": Case(
        (READ,), "<function=read_file\n<parameter=path>\n/etc/hosts\n</parameter>\n</function>",
        calls=[("read_file", {"path": "/etc/hosts"})], hidden=("<parameter",),
    ),
    # Python-literal values, not JSON
    "mlxlm-qwen3coder-single-quoted-values": Case(
        (tool("search", "filters", "tags"),),
        "<function=search><parameter=filters>{'category': 'books', 'in_stock': True}</parameter>"
        "<parameter=tags>['fiction', 'new']</parameter></function>",
        calls=[("search", {"filters": {"category": "books", "in_stock": True}, "tags": ["fiction", "new"]})],
    ),
    "mlxlm-qwen3coder-iso-date": Case(
        (tool("schedule", "name", "deadline"),),
        "<function=schedule>\n<parameter=name>\ndeploy\n</parameter>\n<parameter=deadline>\n2025-06-15T10:30:00Z\n"
        "</parameter>\n</function>",
        calls=[("schedule", {"name": "deploy", "deadline": "2025-06-15T10:30:00Z"})],
    ),
    "mlxlm-qwen3coder-version-string": Case(
        (tool("log", "msg"),), "<function=log>\n<parameter=msg>\nversion 3.10.5-beta\n</parameter>\n</function>",
        calls=[("log", {"msg": "version 3.10.5-beta"})],
    ),
    # two Gemma 4 calls in one block, nothing between them
    "mlxlm-gemma4-two-calls-one-block": Case(
        (tool("glob", "pattern"),),
        f"<|tool_call>call:glob{{pattern:{GQ}README*.md{GQ}}}call:glob{{pattern:{GQ}CONTRIBUTING.md{GQ}}}<tool_call|>",
        calls=[("glob", {"pattern": "README*.md"}), ("glob", {"pattern": "CONTRIBUTING.md"})], hidden=("<|",),
    ),
    # braces inside a string value
    "mlxlm-gemma4-braces-in-string": Case(
        (tool("skill_manage", "action", "content"),),
        f"<|tool_call>call:skill_manage{{action:{GQ}create{GQ},content:{GQ}use a dict like {{key: value}} in your code"
        f"{GQ}}}<tool_call|>",
        calls=[("skill_manage", {"action": "create", "content": "use a dict like {key: value} in your code"})],
    ),
    "mlxlm-gemma4-hyphenated-name": Case(
        (tool("manim-video", "mode", "prompt"),),
        f"<|tool_call>call:manim-video{{mode:{GQ}plan{GQ},prompt:{GQ}explain KV caching{GQ}}}<tool_call|>",
        calls=[("manim-video", {"mode": "plan", "prompt": "explain KV caching"})],
    ),
}


GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md (none left: the two unclosed Qwen3-Coder names are read since)
}


test_real_world_reply = reply_test(CASES, GAPS, read)


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_new_families_markup_an_answer_shows_in_code_stays_as_written(strategy):
    """GigaChat 3.5's, Solar Open 2's and MiniCPM5's call markup in a code span is the answer's
    text: nothing runs and the answer shows it whole."""
    markup = (_gcml(_gcml_invoke("get_weather", ("city", "Tokyo", True))), SOLAR_SEOUL,
              '<function name="get_weather"><param name="city">Paris</param></function>')
    for shown in markup:
        check_answer_shown_whole(strategy, f"The model writes `{shown}` for a call.", (M_WEATHER, G_TIME), reader=read)


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_minicpm5_parameter_given_twice_runs_nothing(strategy):
    """vLLM's ``minicpm5`` parser refuses a call naming one parameter twice; no call of it runs
    here either (which value the model meant is a guess)."""
    text = '<function name="get_weather"><param name="city">北京</param><param name="city">上海</param></function>\n'
    for size in (None, 1, 7):
        _, turn = read(strategy, Case((M_WEATHER,), text), size)
        assert not getattr(turn.decision, "calls", None)
