"""An eighth set of real-world model outputs, through both strategies' turn readers (as
``test_real_world_2026h``: the text whole and in pieces of 1 and 7 characters). The source is
llama.cpp's chat-format tests (ggml-org/llama.cpp ``tests/test-chat.cpp``): for each chat-template
family, the raw text a model writes and the message llama.cpp's parser reads from it (its content,
its reasoning, its tool calls). What reaches the plugin when a server runs a model without that
family's parser is this raw text.

Earlier passes took llama.cpp's Hermes 2 Pro wrappers, Functionary v3.2, Kimi-K2's singular section
marker and Apriel 1.5 (docs/real-world-cases.md); this pass takes the families added or changed in
2025-2026. Each case names the template beside it; the text is the test's input verbatim, with the
test's ``special_function`` / ``get_time`` tools (their parameters declared as strings here: a value
written as XML text is read as a string, as the node's tool then coerces it).
"""

import pytest

from agent_core.turn import FinalAnswer, ToolCalls
from tests.unit.test_real_world_2026 import (
    Case,
    assert_shown_or_runs_nothing,
    reply_test,
    tool,
)
from tests.unit.test_real_world_2026g import read

SPECIAL = tool("special_function", "arg1")
SPECIAL_OPT = tool("special_function_with_opt", "arg1", "arg2")
GET_TIME = tool("get_time", "city")
GET_WEATHER = tool("get_weather", "city")
PYTHON = tool("python", "code")
RUN = tool("run_in_terminal", "command")
EDIT = tool("edit", "filename", "oldString", "newString")
CALL_1 = ("special_function", {"arg1": 1})
CALL_1S = ("special_function", {"arg1": "1"})
LFM = "<|tool_call_start|>{}<|tool_call_end|>"
DS = "<｜tool▁calls▁begin｜>{}<｜tool▁calls▁end｜>"
DS_CALL = "<｜tool▁call▁begin｜>{}<｜tool▁sep｜>{}<｜tool▁call▁end｜>"
QWEN_SPECIAL = "<tool_call>\n<function=special_function>\n<parameter=arg1>\n1\n</parameter>\n</function>\n</tool_call>"
QWEN_PWD = "<tool_call>\n<function=run_in_terminal>\n<parameter=command>\npwd\n</parameter>\n</function>\n</tool_call>"
KIMI_SPECIAL = (
    "<|tool_call_begin|>functions.special_function:0<|tool_call_argument_begin|>{\"arg1\": 1}<|tool_call_end|>"
)
KIMI_PYTHON = (
    "<|tool_call_begin|>functions.python:1<|tool_call_argument_begin|>{\"code\": \"print('hey')\"}<|tool_call_end|>"
)
LING_CALL = "<tool_call>get_time\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>"
R7B_ACTION = (
    "<|START_ACTION|>[\n"
    '    {"tool_call_id": "0", "tool_name": "special_function", "parameters": {"arg1": 1}}\n'
    "]<|END_ACTION|>"
)
SEED_SPECIAL = "<seed:tool_call>\n<function=special_function>\n<parameter=arg1>1</parameter>\n</function>\n</seed:tool_call>"
ANSWER = "Hello, world!\nWhat's up?"

CASES = {
    # ---- LFM2 / LFM2.5 (test_lfm2_parser, run on LFM2-8B-A1B, LFM2.5-Instruct, LFM2.5-8B-A1B) ------
    "llamacpp-lfm2-python-true": Case(
        (tool("toggle", "enabled"),), LFM.format("[toggle(enabled=True)]"),
        calls=[("toggle", {"enabled": True})], hidden=("<|tool",),
    ),
    "llamacpp-lfm2-python-none": Case(
        (tool("set_nullable", "value"),), LFM.format("[set_nullable(value=None)]"),
        calls=[("set_nullable", {"value": None})], hidden=("<|tool",),
    ),
    "llamacpp-lfm2-dotted-name-structured-args": Case(
        (tool("Calendar.create_event", "title", "participants", "metadata"),),
        LFM.format('[Calendar.create_event(title="demo", participants=["Alice", "Bob"], '
                   'metadata={"priority": "high", "reminder": true})]'),
        calls=[("Calendar.create_event",
                {"title": "demo", "participants": ["Alice", "Bob"], "metadata": {"priority": "high", "reminder": True}})],
        hidden=("<|tool",),
    ),
    "llamacpp-lfm2-markdown-links-stay-content": Case(
        (GET_TIME,), "Use this format: [link text](url). Example: [Wikipedia](https://www.wikipedia.org).",
        answer="Use this format: [link text](url). Example: [Wikipedia](https://www.wikipedia.org).",
    ),
    "llamacpp-lfm2-escaped-newline-in-code": Case(
        (PYTHON,), LFM.format("[python(code=\"def hello():\\n    print('hey')\")]"),
        calls=[("python", {"code": "def hello():\n    print('hey')"})], hidden=("<|tool",),
    ),
    "llamacpp-lfm2-escaped-quotes-in-code": Case(
        (PYTHON,), LFM.format('[python(code="print(\\"hi\\")")]'),
        calls=[("python", {"code": 'print("hi")'})], hidden=("<|tool",),
    ),
    "llamacpp-lfm2-two-tools-one-list": Case(
        (SPECIAL, SPECIAL_OPT), LFM.format("[special_function(arg1=1), special_function_with_opt(arg1=1, arg2=2)]"),
        calls=[CALL_1, ("special_function_with_opt", {"arg1": 1, "arg2": 2})], hidden=("<|tool",),
    ),
    "llamacpp-lfm2-empty-args": Case(
        (tool("empty_args"),), LFM.format("[empty_args()]"), calls=[("empty_args", {})], hidden=("<|tool",),
    ),
    # LFM2.5-8B-A1B: a call written inside the reasoning is reasoning; the one after it runs
    "llamacpp-lfm25-call-markup-inside-reasoning": Case(
        (SPECIAL,),
        "<think>Let me think about <|tool_call_start|>[special_function(arg1=1)]<|tool_call_end|> hmm</think>"
        + LFM.format("[special_function(arg1=1)]"),
        calls=[CALL_1], hidden=("<|tool", "hmm"),
    ),
    "llamacpp-lfm25-reasoning-content-call": Case(
        (GET_TIME,),
        "<think>I need to call a function</think>Let me check the time." + LFM.format('[get_time(city="Paris")]'),
        calls=[("get_time", {"city": "Paris"})], hidden=("<|tool", "I need to call"),
    ),
    # ---- Qwen3.5 (Qwen3.5-4B.jinja: the prompt opens <think>) -----------------------------------------
    "llamacpp-qwen35-open-reasoning-then-call": Case(
        (SPECIAL,), "I'm\nthinking\n</think>\n\n" + QWEN_SPECIAL, calls=[CALL_1S], hidden=("thinking", "<parameter"),
    ),
    # a parameter value ending in a line break keeps it (the delimiter is "\n</parameter>\n")
    "llamacpp-qwen35-value-ends-in-newline": Case(
        (EDIT,),
        "<tool_call>\n<function=edit>\n<parameter=filename>\nfoo.c\n</parameter>\n<parameter=oldString>\n#iclunde\n"
        "</parameter>\n<parameter=newString>\n#include\n\n</parameter>\n</function>\n</tool_call>",
        calls=[("edit", {"filename": "foo.c", "oldString": "#iclunde", "newString": "#include\n"})],
        hidden=("<parameter",),
    ),
    "llamacpp-qwen35-code-starts-indented": Case(
        (PYTHON,),
        '<tool_call>\n<function=python>\n<parameter=code>\n    print("Hello, world!")\n</parameter>\n</function>\n</tool_call>',
        calls=[("python", {"code": '    print("Hello, world!")'})], hidden=("<parameter",),
    ),
    # the call ends the prefilled reasoning with no </think>: llama.cpp reads the sentence as reasoning
    "llamacpp-qwen35-call-ends-open-reasoning": Case(
        (RUN,), "Need to inspect the current directory.\n" + QWEN_PWD,
        calls=[("run_in_terminal", {"command": "pwd"})], hidden=("<parameter",),
    ),
    "llamacpp-qwen35-empty-reasoning-block-then-call": Case(
        (SPECIAL,), "<think>\n\n</think>\n\n" + QWEN_SPECIAL, calls=[CALL_1S], hidden=("think>", "<parameter"),
    ),
    "llamacpp-qwen35-reasoning-sentence-call": Case(
        (RUN,), "I should inspect the directory.\n</think>\n\nLet me inspect it now.\n" + QWEN_PWD,
        calls=[("run_in_terminal", {"command": "pwd"})], hidden=("I should inspect", "<parameter"),
    ),
    # ---- Ministral 3 Reasoning 2512 (Magistral's [THINK]) --------------------------------------------
    "llamacpp-ministral3-think-then-call": Case(
        (SPECIAL,), '[THINK]I\'m\nthinking[/THINK][TOOL_CALLS]special_function[ARGS]{"arg1":1}',
        calls=[CALL_1], hidden=("THINK]", "thinking", "TOOL_CALLS"),
    ),
    "llamacpp-ministral3-think-then-answer": Case(
        (SPECIAL,), "[THINK]I'm\nthinking[/THINK]" + ANSWER, answer=ANSWER, hidden=("THINK]", "thinking"),
    ),
    "llamacpp-ministral3-call-markup-inside-reasoning": Case(
        (SPECIAL,),
        '[THINK]Let me think about [TOOL_CALLS]special_function[ARGS]{"arg1":1} and more[/THINK]'
        '[TOOL_CALLS]special_function[ARGS]{"arg1": 1}',
        calls=[CALL_1], hidden=("THINK]", "and more"),
    ),
    # ---- NVIDIA Nemotron 3 Nano / Nemotron Nano v2 -----------------------------------------------------
    "llamacpp-nemotron3-reasoning-then-call": Case(
        (SPECIAL,),
        "I'm\nthinking\n</think>\n<tool_call>\n<function=special_function>\n<parameter=arg1>\n1\n</parameter>\n"
        "</function>\n</tool_call>\n",
        calls=[CALL_1S], hidden=("thinking", "<parameter"),
    ),
    "llamacpp-nemotron-nano-v2-reasoning-then-toolcall": Case(
        (SPECIAL,),
        "I'm\nthinking\n</think>\n\n<TOOLCALL>[{\"name\": \"special_function\", \"arguments\": {\"arg1\": 1}}]</TOOLCALL>\n",
        calls=[CALL_1], hidden=("thinking", "TOOLCALL"),
    ),
    # ---- Command R7B and Cohere2 MoE (North Code) ------------------------------------------------------
    "llamacpp-command-r7b-thinking-then-action": Case(
        (SPECIAL,), "<|START_THINKING|>I'm\nthinking<|END_THINKING|>" + R7B_ACTION,
        calls=[CALL_1], hidden=("thinking", "ACTION|>"),
    ),
    "llamacpp-command-r7b-response": Case(
        (SPECIAL,), f"<|START_RESPONSE|>{ANSWER}<|END_RESPONSE|>", answer=ANSWER, hidden=("RESPONSE|>",),
    ),
    # the prompt opens <|START_THINKING|>: the reply starts inside the reasoning
    "llamacpp-cohere2moe-open-reasoning-then-text": Case(
        (SPECIAL,), f"I'm\nthinking<|END_THINKING|><|START_TEXT|>{ANSWER}<|END_TEXT|>",
        answer=ANSWER, hidden=("thinking", "TEXT|>", "THINKING|>"),
    ),
    "llamacpp-cohere2moe-open-reasoning-two-actions": Case(
        (SPECIAL, PYTHON),
        "I'm\nthinking<|END_THINKING|><|START_ACTION|>[\n"
        '    {"tool_call_id": "0", "tool_name": "special_function", "parameters": {"arg1": 1}},\n'
        '    {"tool_call_id": "1", "tool_name": "python", "parameters": {"code": "print(\'hey\')"}}\n'
        "]<|END_ACTION|>",
        calls=[CALL_1, ("python", {"code": "print('hey')"})], hidden=("thinking", "ACTION|>"),
    ),
    # ---- Gemma 4 (google-gemma-4-31B-it.jinja) ----------------------------------------------------------
    "llamacpp-gemma4-thought-channel-then-answer": Case(
        (GET_TIME,), f"<|channel>thought\nI'm\nthinking<channel|>{ANSWER}", answer=ANSWER,
        hidden=("channel", "thinking"),
    ),
    "llamacpp-gemma4-content-then-call": Case(
        (GET_TIME,), ANSWER + '<|tool_call>call:get_time{city:<|"|>Paris<|"|>}<tool_call|>',
        calls=[("get_time", {"city": "Paris"})], hidden=("tool_call", '<|"|>'),
    ),
    "llamacpp-gemma4-two-calls": Case(
        (GET_TIME, GET_WEATHER),
        '<|tool_call>call:get_time{city:<|"|>London<|"|>}<tool_call|>'
        '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|>',
        calls=[("get_time", {"city": "London"}), ("get_weather", {"city": "Paris"})], hidden=("tool_call",),
    ),
    "llamacpp-gemma4-scientific-number": Case(
        (tool("amount", "orig"),), "<|tool_call>call:amount{orig:1.5e10}<tool_call|>",
        calls=[("amount", {"orig": 1.5e10})], hidden=("tool_call",),
    ),
    # an empty thought channel, the answer, a stray closing channel token
    "llamacpp-gemma4-stray-channel-close": Case(
        (GET_TIME,), f"<|channel>thought\n<channel|>{ANSWER}<channel|>", answer=ANSWER, hidden=("channel",),
    ),
    # ---- Seed-OSS (ByteDance-Seed-OSS.jinja) -------------------------------------------------------------
    "llamacpp-seedoss-think-then-answer": Case(
        (SPECIAL,), "<seed:think>I'm thinking about the answer</seed:think>\nHello, world!", answer="Hello, world!",
        hidden=("seed:", "thinking about"),
    ),
    "llamacpp-seedoss-two-calls": Case(
        (SPECIAL, SPECIAL_OPT),
        SEED_SPECIAL + "\n<seed:tool_call>\n<function=special_function_with_opt>\n<parameter=arg1>1</parameter>\n"
        "<parameter=arg2>2</parameter>\n</function>\n</seed:tool_call>",
        calls=[CALL_1S, ("special_function_with_opt", {"arg1": "1", "arg2": "2"})], hidden=("seed:", "<parameter"),
    ),
    "llamacpp-seedoss-edit-with-quotes": Case(
        (EDIT,),
        "<seed:tool_call>\n<function=edit>\n<parameter=filename>foo.cpp</parameter>\n"
        '<parameter=oldString>def foo(arg = "14"):\n    return arg + "bar"\n</parameter>\n'
        '<parameter=newString>def foo(arg = "15"):\n    pass\n</parameter>\n</function>\n</seed:tool_call>',
        calls=[("edit", {"filename": "foo.cpp", "oldString": 'def foo(arg = "14"):\n    return arg + "bar"\n',
                         "newString": 'def foo(arg = "15"):\n    pass\n'})],
        hidden=("seed:", "<parameter"),
    ),
    # ---- Qwen3-Coder (Qwen3-Coder.jinja) ------------------------------------------------------------------
    # "Some models skip the opening <tool_call> and go straight to <function=>"
    "llamacpp-qwen3coder-no-opening-tag": Case(
        (SPECIAL,), "<function=special_function>\n<parameter=arg1>\n1\n</parameter>\n</function>\n</tool_call>",
        calls=[CALL_1S], hidden=("<parameter", "tool_call"),
    ),
    "llamacpp-qwen3coder-sentence-then-no-opening-tag": Case(
        (SPECIAL,),
        "Let me call it.\n<function=special_function>\n<parameter=arg1>\n1\n</parameter>\n</function>\n</tool_call>",
        calls=[CALL_1S], hidden=("<parameter", "tool_call"),
    ),
    "llamacpp-qwen3coder-html-value": Case(
        (tool("html", "markup"),),
        "<tool_call>\n<function=html>\n<parameter=markup>\n<html>\n <head>\n  <title>Hello!</title>\n </head>\n"
        "</html>\n</parameter>\n</function>\n</tool_call>",
        calls=[("html", {"markup": "<html>\n <head>\n  <title>Hello!</title>\n </head>\n</html>"})],
        hidden=("<parameter",),
    ),
    # ---- DeepSeek V3.1 / V3.2 / V4 -------------------------------------------------------------------------
    "llamacpp-deepseek31-reasoning-content-two-calls": Case(
        (GET_TIME, GET_WEATHER),
        "REASONING</think>CONTENT"
        + DS.format(DS_CALL.format("get_time", '{"city": "Paris"}') + DS_CALL.format("get_weather", '{"city": "Paris"}')),
        calls=[("get_time", {"city": "Paris"}), ("get_weather", {"city": "Paris"})],
        hidden=("REASONING", "tool▁"),
    ),
    "llamacpp-deepseek32-reasoning-sentence-dsml": Case(
        (SPECIAL,),
        "Thinking about it</think>Let me call the function.\n\n<｜DSML｜function_calls>\n"
        '<｜DSML｜invoke name="special_function">\n'
        '<｜DSML｜parameter name="arg1" string="false">1</｜DSML｜parameter>\n'
        "</｜DSML｜invoke>\n</｜DSML｜function_calls>",
        calls=[CALL_1], hidden=("Thinking about", "DSML"),
    ),
    # DeepSeek V4: the call block closes the reasoning, no </think> before it
    "llamacpp-deepseek4-call-inside-open-reasoning": Case(
        (GET_TIME,),
        "Let me check the time\n\n<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"get_time\">\n"
        '<｜DSML｜parameter name="city" string="true">Tokyo</｜DSML｜parameter>\n'
        "</｜DSML｜invoke>\n</｜DSML｜tool_calls>",
        calls=[("get_time", {"city": "Tokyo"})], hidden=("DSML",),
    ),
    # ---- GLM-4.7-Flash / Spark2.5 / Ling 3.0 (GLM's <arg_key> form) ---------------------------------------
    # #20650: a tool of no required arguments, called with no argument tags
    "llamacpp-glm47-call-without-arguments": Case(
        (tool("read_file_diff_md", "review_id", "file_id"),),
        "Let me read the diff content.</think><tool_call>read_file_diff_md</tool_call>",
        calls=[("read_file_diff_md", {})], hidden=("Let me read", "tool_call"),
    ),
    "llamacpp-spark25-six-calls-after-a-sentence": Case(
        (tool("magic_int", "ref", "name"), tool("amount", "orig"), tool("toggle", "enabled"),
         tool("set_config", "config"), tool("nested_args", "tags", "entries"), tool("empty_args")),
        "Preparing updates.<tool_call>magic_int<arg_key>ref</arg_key><arg_value>42</arg_value>"
        "<arg_key>name</arg_key><arg_value>上海</arg_value></tool_call>"
        "<tool_call>amount<arg_key>orig</arg_key><arg_value>2.5</arg_value></tool_call>"
        "<tool_call>toggle<arg_key>enabled</arg_key><arg_value>true</arg_value></tool_call>"
        '<tool_call>set_config<arg_key>config</arg_key><arg_value>{"source": "spark", "options": {"strict": true}}'
        "</arg_value></tool_call>"
        '<tool_call>nested_args<arg_key>tags</arg_key><arg_value>["alpha", "测试"]</arg_value>'
        '<arg_key>entries</arg_key><arg_value>[{"id": 1, "label": "first"}, {"id": 2, "label": "第二"}]</arg_value>'
        "</tool_call><tool_call>empty_args</tool_call>",
        calls=[
            ("magic_int", {"ref": "42", "name": "上海"}),
            ("amount", {"orig": "2.5"}),
            ("toggle", {"enabled": "true"}),
            ("set_config", {"config": {"source": "spark", "options": {"strict": True}}}),
            ("nested_args", {"tags": ["alpha", "测试"], "entries": [{"id": 1, "label": "first"}, {"id": 2, "label": "第二"}]}),
            ("empty_args", {}),
        ],
        hidden=("arg_key", "tool_call"),
    ),
    # Ling 3.0: a call before the reasoning is closed ends it
    "llamacpp-ling3-call-ends-open-reasoning": Case(
        (GET_TIME,), "I need to check the time first.\n" + LING_CALL,
        calls=[("get_time", {"city": "Paris"})], hidden=("arg_key",),
    ),
    "llamacpp-ling3-value-names-markers": Case(
        (tool("tool_2req_4opt", "req1", "req2"),),
        "check this\n</think>\n<tool_call>tool_2req_4opt\n<arg_key>req1</arg_key>\n"
        "<arg_value>contains </think> and <tool_call> strings</arg_value>\n"
        "<arg_key>req2</arg_key>\n<arg_value>1</arg_value>\n</tool_call>",
        calls=[("tool_2req_4opt", {"req1": "contains </think> and <tool_call> strings", "req2": "1"})],
        hidden=("check this", "arg_key"),
    ),
    # the end-of-turn token spelled out as text
    "llamacpp-ling3-role-end-spelled-out": Case(
        (GET_TIME,), "Here is the answer.<|role_end|>", answer="Here is the answer.", hidden=("role_end",),
    ),
    # ---- Kimi K3 (XTML) / Kimi-K2-Thinking -------------------------------------------------------------------
    "llamacpp-kimik3-response-section": Case(
        (SPECIAL,), f"<|open|>response<|sep|>{ANSWER}<|close|>response<|sep|><|close|>message<|sep|>",
        answer=ANSWER, hidden=("<|open|>", "<|close|>", "<|sep|>"),
    ),
    "llamacpp-kimik3-open-reasoning-content-call": Case(
        (SPECIAL,),
        "I should call it<|close|>think<|sep|><|open|>response<|sep|>On it.<|close|>response<|sep|>"
        '<|open|>tools<|sep|><|open|>call tool="special_function" index="1"<|sep|>'
        '<|open|>argument key="arg1" type="number"<|sep|>1<|close|>argument<|sep|>'
        "<|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>",
        calls=[("special_function", {"arg1": 1})], hidden=("I should call", "<|open|>", "<|sep|>"),
    ),
    "llamacpp-kimik2-calls-inside-reasoning": Case(
        (SPECIAL, PYTHON),
        "<think>I need to call two functions<|tool_calls_section_begin|>" + KIMI_SPECIAL + KIMI_PYTHON
        + "<|tool_calls_section_end|>",
        calls=[CALL_1, ("python", {"code": "print('hey')"})], hidden=("tool_call", "I need to call"),
    ),
    "llamacpp-kimik2-calls-inside-reasoning-no-end-markers": Case(
        (SPECIAL, PYTHON),
        "<think>I need to call two functions"
        '<|tool_call_begin|>functions.special_function:0<|tool_call_argument_begin|>{"arg1": 1}'
        "<|tool_call_begin|>functions.python:1<|tool_call_argument_begin|>{\"code\": \"print('hey')\"}",
        calls=[CALL_1, ("python", {"code": "print('hey')"})], hidden=("tool_call", "I need to call"),
    ),
    "llamacpp-kimik2-execute-command-no-end-markers": Case(
        (tool("execute_command", "command", "cwd", "timeout"),),
        '<|tool_call_begin|>functions.execute_command:0<|tool_call_argument_begin|>{"command": "ls -lah", '
        '"cwd": "/home/user/development/exllamav3", "timeout": 10}',
        calls=[("execute_command", {"command": "ls -lah", "cwd": "/home/user/development/exllamav3", "timeout": 10})],
        hidden=("tool_call",),
    ),
    # ---- MiniMax-M2 / MiniMax-M3 -------------------------------------------------------------------------------
    "llamacpp-minimaxm2-reasoning-then-empty-invoke": Case(
        (tool("empty_args"),),
        "Let's call a tool:\n</think>\n\n<minimax:tool_call>\n<invoke name=\"empty_args\">\n</invoke>\n</minimax:tool_call>",
        calls=[("empty_args", {})], hidden=("Let's call", "invoke"),
    ),
    "llamacpp-minimaxm3-bare-close-then-answer": Case(
        (SPECIAL,), f"</mm:think>{ANSWER}", answer=ANSWER, hidden=("mm:think",),
    ),
    "llamacpp-minimaxm3-nested-object": Case(
        (tool("imaginary_number", "number"),),
        "<mm:think>Nested object</mm:think>]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"imaginary_number\">"
        "]<]minimax[>[<number>]<]minimax[>[<real>1.5]<]minimax[>[</real>]<]minimax[>[<imaginary>-2.5]<]minimax[>[</imaginary>"
        "]<]minimax[>[</number>]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>",
        calls=[("imaginary_number", {"number": {"real": "1.5", "imaginary": "-2.5"}})],
        hidden=("minimax", "Nested object", "<invoke"),
    ),
    # ---- Command R+ / Mistral Nemo / Mistral Small 3.2 / Devstral / FireFunction --------------------------------
    "llamacpp-command-r-plus-action-json-fence": Case(
        (SPECIAL,), 'Action:\n```json\n[{"tool_name": "special_function", "parameters": {"arg1": 1}}]\n```',
        calls=[CALL_1], hidden=("tool_name",),
    ),
    "llamacpp-mistral-nemo-call-with-id": Case(
        (SPECIAL,), '[TOOL_CALLS][{"name": "special_function", "arguments": {"arg1": 1}, "id": "123456789"}]',
        calls=[CALL_1], hidden=("TOOL_CALLS",),
    ),
    "llamacpp-mistral-small32-call-ids": Case(
        (SPECIAL, SPECIAL_OPT),
        '[TOOL_CALLS]special_function[CALL_ID]000000001[ARGS]{"arg1": 1}'
        '[TOOL_CALLS]special_function_with_opt[CALL_ID]000000002[ARGS]{"arg1": 1, "arg2": 2}',
        calls=[CALL_1, ("special_function_with_opt", {"arg1": 1, "arg2": 2})], hidden=("TOOL_CALLS", "CALL_ID"),
    ),
    "llamacpp-devstral-content-then-call": Case(
        (SPECIAL,), ANSWER + '[TOOL_CALLS]special_function[ARGS]{"arg1": 1}', calls=[CALL_1], hidden=("TOOL_CALLS",),
    ),
    "llamacpp-firefunction-functools": Case(
        (SPECIAL,), ' functools[{"name": "special_function", "arguments": {"arg1": 1}}]', calls=[CALL_1],
        hidden=("functools",),
    ),
    # ---- Functionary v3.1 (meetkai-functionary-medium-v3.1.jinja) -----------------------------------------------
    "llamacpp-functionary31-function-tag": Case(
        (SPECIAL,), '<function=special_function>{"arg1": 1}</function>', calls=[CALL_1], hidden=("function",),
    ),
    # ---- Apriel 1.6 Thinker (the prompt opens its reasoning) -----------------------------------------------------
    "llamacpp-apriel16-reasoning-then-answer": Case(
        (SPECIAL,), f"I'm\nthinking\n[BEGIN FINAL RESPONSE]\n{ANSWER}", answer=ANSWER,
        hidden=("thinking", "FINAL RESPONSE"),
    ),
    "llamacpp-apriel16-reasoning-then-calls": Case(
        (SPECIAL,),
        "I'm\nthinking\n[BEGIN FINAL RESPONSE]\n<tool_calls>[{\"name\": \"special_function\", \"arguments\": "
        "{\"arg1\": 1}}]</tool_calls>",
        calls=[CALL_1], hidden=("thinking", "tool_calls"),
    ),
    # ---- GPT-OSS Harmony and LLM-jp-4.1's spaced dialect ---------------------------------------------------------
    "llamacpp-gptoss-recipient-in-role-header": Case(
        (SPECIAL,), ' to=functions.special_function<|channel|>analysis<|message|>{"arg1": 1}', calls=[CALL_1],
        hidden=("<|", "to=functions"),
    ),
    "llamacpp-gptoss-constrain-in-role-header": Case(
        (SPECIAL,), ' to=functions.special_function<|channel|>analysis <|constrain|>json<|message|>{"arg1": 1}',
        calls=[CALL_1], hidden=("<|", "to=functions"),
    ),
    "llamacpp-gptoss-edit-after-analysis": Case(
        (tool("edit", "oldString", "newString", "replaceAll"),),
        "<|channel|>analysis<|message|>Thinking about edit...<|end|>"
        "<|start|>assistant<|channel|>commentary to=functions.edit <|constrain|>json"
        '<|message|>{"oldString": "if (part < railCount - 1) {", "newString": "if (part < 4) {", "replaceAll": false}',
        calls=[("edit", {"oldString": "if (part < railCount - 1) {", "newString": "if (part < 4) {", "replaceAll": False})],
        hidden=("<|", "Thinking about edit"),
    ),
    "llamacpp-gptoss-commentary-to-assistant-before-reasoning": Case(
        (SPECIAL,),
        "<|channel|>commentary to=assistant<|channel|>analysis<|message|>I'm\nthinking<|end|>"
        f"<|start|>assistant<|channel|>final<|message|>{ANSWER}",
        answer=ANSWER, hidden=("<|", "thinking"),
    ),
    "llamacpp-llmjp41-spaced-final": Case(
        (SPECIAL,), f"<|channel|> final<|message|> {ANSWER}", answer=ANSWER, hidden=("<|",),
    ),
    "llamacpp-llmjp41-spaced-two-calls": Case(
        (SPECIAL,),
        "<|channel|> analysis<|message|> I'm\nthinking<|end|>"
        '<|start|> assistant to=functions.special_function<|channel|> commentary <|constrain|>  json<|message|> {"arg1": 1}<|end|>'
        '<|start|> assistant to=functions.special_function<|channel|> commentary <|constrain|>  json<|message|> {"arg1": 2}',
        calls=[CALL_1, ("special_function", {"arg1": 2})], hidden=("<|", "thinking"),
    ),
    # ---- StepFun 3.5 / Reka Edge / QwQ ---------------------------------------------------------------------------
    "llamacpp-stepfun35-quoted-and-unquoted": Case(
        (tool("quoted_unquoted", "quoted", "unquoted"),),
        "Test simple quoted unquoted\n</think>\n<tool_call>\n<function=quoted_unquoted>\n"
        '<parameter=quoted>\n"foo"\n</parameter>\n<parameter=unquoted>\nfoo\n</parameter>\n</function>\n</tool_call>',
        calls=[("quoted_unquoted", {"quoted": '"foo"', "unquoted": "foo"})], hidden=("Test simple", "<parameter"),
    ),
    "llamacpp-stepfun35-empty-string-value": Case(
        (tool("string_param", "text"),),
        "Call string_param with empty text\n</think>\n<tool_call>\n<function=string_param>\n<parameter=text>\n\n"
        "</parameter>\n</function>\n</tool_call>",
        calls=[("string_param", {"text": ""})], hidden=("Call string_param", "<parameter"),
    ),
    # a call shown in the reasoning is reasoning; the one after </think> runs
    "llamacpp-reka-call-markup-inside-reasoning": Case(
        (SPECIAL,),
        'Let me think about <tool_call>\n{"name": "special_function", "arguments": {"arg1": 2}}</tool_call> hmm\n'
        '</think>\n\n<tool_call>\n{"name": "special_function", "arguments": {"arg1": 1}}</tool_call>',
        calls=[CALL_1], hidden=("hmm", "tool_call"),
    ),
    "llamacpp-qwq-open-reasoning-then-answer": Case(
        (SPECIAL,), "Let me think about this...\n</think>\nThe answer is 42.", answer="The answer is 42.",
        hidden=("Let me think", "think>"),
    ),
}


GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md
}


test_real_world_reply = reply_test(CASES, GAPS, read)


# ---- the same shapes as an answer's text, or only in the reasoning: no call runs -----------------

MISTRAL = '[TOOL_CALLS]special_function[ARGS]{"arg1": 1}'
CALENDAR = tool("Calendar.create_event", "title")
CALENDAR_CALL = '[Calendar.create_event(title="demo")]'
NOT_CALLS = {
    # Magistral's call markup only inside its reasoning, no call after it
    "ministral3-call-only-in-reasoning": (SPECIAL, f"[THINK]I could write {MISTRAL} here[/THINK]No call is needed."),
    # a dotted tool name: in a sentence, in a code span, in a fence, or another namespace's name
    "lfm2-dotted-call-in-a-sentence": (CALENDAR, f"LFM2 writes {CALENDAR_CALL} when it calls."),
    "lfm2-dotted-call-in-a-code-span": (CALENDAR, f"LFM2 writes `{LFM.format(CALENDAR_CALL)}` when it calls."),
    "lfm2-dotted-call-in-a-fence": (CALENDAR, f"The raw text:\n\n```\n{LFM.format(CALENDAR_CALL)}\n```"),
    "lfm2-dotted-call-no-node-tool": (CALENDAR, LFM.format('[Mail.create_event(title="demo")]')),
    # the ends of a block a template opens, and Ling's end of turn, shown in code
    "cohere-end-thinking-in-a-code-span": (SPECIAL, "Cohere's models end their reasoning with `<|END_THINKING|>`."),
    "apriel-final-response-in-a-code-span": (SPECIAL, "Apriel writes `[BEGIN FINAL RESPONSE]` before its answer."),
    "apriel-final-response-in-a-sentence": (SPECIAL, "Apriel writes [BEGIN FINAL RESPONSE] before its answer."),
    "ling-role-end-in-a-code-span": (SPECIAL, "Ling ends its turn with `<|role_end|>`, a special token."),
    # Seed-OSS's call shown in a fence
    "seedoss-call-in-a-fence": (SPECIAL, f"Seed-OSS writes:\n\n```\n{SEED_SPECIAL}\n```"),
    # Gemma 4's channel close (dropped when stray in a reply) shown in code: the answer's text
    "gemma4-channel-close-in-a-code-span": (SPECIAL, "Gemma 4 closes its thought channel with `<channel|>`."),
    "gemma4-channel-close-in-a-fence": (SPECIAL, "The raw reply:\n\n```\n<|channel>thought\n<channel|>Hi<channel|>\n```"),
    # Kimi-K2's calls with no end markers shown in a fence
    "kimik2-calls-no-end-markers-in-a-fence": (
        SPECIAL,
        "Kimi writes:\n\n```\n<|tool_call_begin|>functions.special_function:0<|tool_call_argument_begin|>"
        '{"arg1": 1}<|tool_call_begin|>functions.special_function:1<|tool_call_argument_begin|>{"arg1": 2}\n```',
    ),
}


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("strategy", ["react", "fc"])
@pytest.mark.parametrize("name", list(NOT_CALLS))
def test_the_shape_shown_as_text_runs_nothing(name, strategy, size):
    """No call of the node runs. The text is the answer as written, markup included (reasoning
    left out), except call markup outside code that names no node tool: that is asked again, or
    in ReAct answered as a call of an unknown tool, with nothing shown."""
    declared, text = NOT_CALLS[name]
    streamed, turn = read(strategy, Case((declared,), text), size)
    assert_shown_or_runs_nothing(declared, text, streamed, turn, shown=text.split("[/THINK]")[-1])


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_harmony_commentary_to_the_assistant_is_text_not_a_call(strategy):
    """A Harmony commentary message addressed ``to=assistant`` (the assistant is no tool) is the
    reply's text, never a call of a tool named ``assistant``."""
    assistant = tool("assistant", "arg1")
    text = "<|channel|>commentary to=assistant<|message|>Let me look that up.<|end|>"
    streamed, turn = read(strategy, Case((SPECIAL, assistant), text), None)
    assert not isinstance(turn.decision, ToolCalls)
    assert "Let me look that up." in streamed + str(turn.decision)
    assert "<|" not in streamed


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_a_think_tag_in_a_glm_value_is_the_value(strategy, size):
    """A ``</think>`` inside GLM's ``<arg_value>`` is the argument's text, also in a reply that
    opens with the call (Function Calling's look for a template-opened block at the reply's start
    takes no ``</think>`` after an ``<arg_value>``); an ``<arg_value>`` shown in a code span opens
    no value: a stray ``</think>`` after it still ends the reasoning before it."""
    edit = tool("edit", "path", "text")
    call = (
        "<tool_call>edit\n<arg_key>path</arg_key>\n<arg_value>a.md</arg_value>\n"
        "<arg_key>text</arg_key>\n<arg_value>close with </think> then <think></arg_value>\n</tool_call>"
    )
    streamed, turn = read(strategy, Case((edit,), call), size)
    assert streamed == ""
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [
        ("edit", {"path": "a.md", "text": "close with </think> then <think>"})
    ]
    _, turn = read(strategy, Case((edit,), "GLM writes `<arg_value>` tags.\n</think>\nNo call is needed."), size)
    assert turn.decision == FinalAnswer("No call is needed.")


def test_an_element_opening_a_line_outside_a_value_is_still_a_call():
    """The rule for a parameter's first line touches only that line: an ``<html>`` element of a
    tool named ``html`` that opens a reply is its call (Cline's form)."""
    html = tool("html", "markup")
    for strategy in ("react", "fc"):
        _, turn = read(strategy, Case((html,), "<html>\n<markup>hi</markup>\n</html>"), None)
        assert isinstance(turn.decision, ToolCalls)
        assert [(c.name, c.arguments) for c in turn.decision.calls] == [("html", {"markup": "hi"})]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("\n#include\n\n", "#include\n"),  # Qwen3-Coder: a line break at each edge is the markup's
        ("\nfoo.c\n", "foo.c"),
        ("def f():\n    pass\n", "def f():\n    pass\n"),  # Seed-OSS: no opening break, the last is the value's
        ("foo.c", "foo.c"),
    ],
)
@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_parameter_value_edges(value, expected, strategy):
    text = f"<tool_call>\n<function=edit>\n<parameter=newString>{value}</parameter>\n</function>\n</tool_call>"
    _, turn = read(strategy, Case((tool("edit", "newString"),), text), None)
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [("edit", {"newString": expected})]
