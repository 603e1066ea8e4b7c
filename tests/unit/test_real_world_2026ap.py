"""A forty-first set of real-world cases: tool calls and reasoning together. Calls written inside
the reasoning (a ``<think>`` block, a ``<thought>`` block, or ``reasoning_content``) instead of
after it, a call in the reasoning and another in the content, a reasoning that repeats the call it
then makes (run once) or drafts a call and then answers (run none), gpt-oss's call in its
analysis channel instead of commentary, Qwen3.5/3.6, GLM-4.5/4.6, Kimi K2 Thinking, MiniMax M2.1
and DeepSeek R1 thinking with tools, and Claude's extended thinking through LiteLLM, from public
issues and pull requests of the servers (vLLM, llama.cpp, ik_llama.cpp, LM Studio, lmdeploy,
Ollama), routers and gateways (LiteLLM, ogx) and apps (Cherry Studio, microclaw).

Replies are read through both strategies' turn readers, whole and in pieces of 1 and 7 characters
(``test_real_world_2026.reply_test``); streams start as SSE text and go through the model plugin's
conversion (``test_real_world_2026ae.plugin_chunks``). Each case names its source beside it;
docs/real-world-cases.md lists them. A text is quoted as the report shows it (trimmed where the
comment says so); where the report describes the output and its values were filled in, the
comment says "rebuilt". The tools are declared with string parameters.
"""

import pytest

from agent_core.call_markup import closes_markup_only
from agent_core.turn import ToolCalls
from tests.unit.test_real_world_2026 import Case, reply_test, tool
from tests.unit.test_real_world_2026ae import ev, fn, plugin_chunks, read_fc, read_react, sse, tc
from tests.unit.test_real_world_2026d import read

WEATHER = tool("get_weather", "city")
BASH = tool("bash", "command")
EDIT = tool("edit", "file_path", "old_string", "new_string")
QWEN_WEATHER_CALL = (
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>"
)

CASES = {
    # ---- calls inside the reasoning ------------------------------------------------------------------------
    # ggml-org/llama.cpp PR #23678: Qwen3.5 writes its XML call inside <think> ... </think>, nothing
    # after (the PR's layout; the call rebuilt)
    "llamacpp23678-qwen35-call-inside-closed-think": Case(
        (WEATHER,),
        f"<think>\nThe user wants the weather in Paris. I'll call the tool.\n\n{QWEN_WEATHER_CALL}\n</think>\n\n",
        calls=[("get_weather", {"city": "Paris"})], hidden=("<function", "I'll call the tool"),
    ),
    # the same PR: the call inside <think>, then the same call again after it (the PR's layout,
    # "<tool_call>...</tool_call>\n</think>\n\n<tool_call>...</tool_call>"; rebuilt): one call runs
    "llamacpp23678-qwen35-call-in-think-repeated-after": Case(
        (WEATHER,),
        f"<think>\nI need the weather.\n\n{QWEN_WEATHER_CALL}\n</think>\n\n{QWEN_WEATHER_CALL}",
        calls=[("get_weather", {"city": "Paris"})], hidden=("<function",),
    ),
    # ggml-org/llama.cpp PR #23773: Qwen3.5 with reasoning on, a call inside <think> whose
    # parameters come in another order than the schema's (new_string before old_string; rebuilt)
    "llamacpp23773-qwen35-think-call-parameters-out-of-order": Case(
        (EDIT,),
        "<think>\nFix the typo in the README.\n\n<tool_call>\n<function=edit>\n<parameter=file_path>\nREADME.md\n"
        "</parameter>\n<parameter=new_string>\nreceive\n</parameter>\n<parameter=old_string>\nrecieve\n</parameter>\n"
        "</function>\n</tool_call>\n</think>",
        calls=[("edit", {"file_path": "README.md", "old_string": "recieve", "new_string": "receive"})],
        hidden=("<parameter",),
    ),
    # InternLM/lmdeploy PR #4580: the tool's open tag inside reasoning_content, the content empty
    # (the PR's subject; the call rebuilt)
    "lmdeploy4580-hermes-call-in-reasoning-content": Case(
        (tool("search", "query"),),
        reasoning='The user asks about the release. I should search.\n<tool_call>\n{"name": "search", "arguments": '
        '{"query": "lmdeploy 0.10 release"}}\n</tool_call>',
        calls=[("search", {"query": "lmdeploy 0.10 release"})],
    ),
    # microclaw/microclaw PR #284: a <thought> block holding <tool_call>, <function=...> and
    # <parameter=...> markup (the PR's tags; the call rebuilt)
    "microclaw284-call-inside-thought-block": Case(
        (BASH,),
        "<thought>I should list the files first.\n<tool_call>\n<function=bash>\n<parameter=command>\nls -la\n"
        "</parameter>\n</function>\n</tool_call>\n</thought>",
        calls=[("bash", {"command": "ls -la"})], hidden=("<thought>", "<function", "list the files first"),
    ),
    # MiniMax-AI/MiniMax-M2.1#10: M2.1 loses </think>, so its call stays inside the reasoning (the
    # issue's report; the call rebuilt in M2's markup)
    "minimaxm21-10-call-inside-unclosed-think": Case(
        (BASH,),
        "<think>The user wants the disk usage. I'll run df.\n<minimax:tool_call>\n<invoke name=\"bash\">\n"
        "<parameter name=\"command\">df -h</parameter>\n</invoke>\n</minimax:tool_call>",
        calls=[("bash", {"command": "df -h"})], hidden=("<invoke", "I'll run df"),
    ),
    # ikawrakow/ik_llama.cpp PR #958 (a comment): Kimi K2 Thinking "does a tool call without ending
    # the thinking block", the call inside reasoning_content (rebuilt)
    "ikllama958-kimi-k2-thinking-call-without-ending-thinking": Case(
        (tool("read_file", "path"),),
        reasoning="Let me look at the entry point first. <|tool_calls_section_begin|><|tool_call_begin|>"
        'functions.read_file:0<|tool_call_argument_begin|>{"path": "src/main.rs"}<|tool_call_end|>'
        "<|tool_calls_section_end|>",
        calls=[("read_file", {"path": "src/main.rs"})],
    ),
    # ---- a call split between the reasoning and the content -----------------------------------------------------
    # ggml-org/llama.cpp#27661: Qwen3.8 wrote "</think>" inside its thinking and the server ended the
    # reasoning there, the rest going to the content; here that falls inside a call, so the call
    # begins in reasoning_content and its end is the content (the split the issue shows; rebuilt)
    "llamacpp27661-qwen-call-split-by-think-end": Case(
        (WEATHER,),
        "\n</function>\n</tool_call>",
        reasoning="I need the weather.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>",
        calls=[("get_weather", {"city": "Paris"})], hidden=("</function>", "</tool_call>"),
    ),
    # the same, the "</think>" inline in the content: a Hermes call's JSON before it, its end tag after
    # (rebuilt)
    "llamacpp27661-hermes-call-split-by-inline-think-end": Case(
        (WEATHER,),
        '<think>Need the weather.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}</think>\n</tool_call>',
        calls=[("get_weather", {"city": "Paris"})], hidden=("</tool_call>", "Need the weather"),
    ),
    # the first case as a model plugin hands it on: reasoning_content wrapped in a <think> block,
    # the block's end inside the call (rebuilt)
    "llamacpp27661-qwen-split-call-as-the-plugin-wraps-it": Case(
        (WEATHER,),
        "<think>\nI need the weather.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
        "</think>\n\n</function>\n</tool_call>",
        calls=[("get_weather", {"city": "Paris"})], hidden=("</function>", "</tool_call>"),
    ),
    # ikawrakow/ik_llama.cpp#942: Kimi K2 Thinking "can emit multiple tool calls during thinking";
    # its section begun in reasoning_content, the section's end token alone in the content (rebuilt)
    "ikllama942-kimi-k2-thinking-section-split-at-its-end": Case(
        (tool("read_file", "path"),),
        "<|tool_calls_section_end|>",
        reasoning="First the manifest. <|tool_calls_section_begin|><|tool_call_begin|>functions.read_file:0"
        '<|tool_call_argument_begin|>{"path": "Cargo.toml"}<|tool_call_end|>',
        calls=[("read_file", {"path": "Cargo.toml"})], hidden=("<|tool",),
    ),
    # vllm-project/vllm#51679: the qwen3_xml parser took "</think>", so the reasoning lands in the
    # content before the call with nothing to mark its end (the report; rebuilt)
    "vllm51679-reasoning-merged-into-content-before-call": Case(
        (WEATHER,),
        f"The user wants the weather in Paris; get_weather takes a city.\n\n{QWEN_WEATHER_CALL}",
        calls=[("get_weather", {"city": "Paris"})], hidden=("<function",),
    ),
    # ---- after the reasoning --------------------------------------------------------------------------------
    # vllm-project/vllm#42021: Qwen3.5-27B with enable_thinking=true: the reasoning apart, the call
    # left as XML in the content (the report; the call rebuilt)
    "vllm42021-qwen35-thinking-call-left-in-content": Case(
        (WEATHER,),
        f"\n\n{QWEN_WEATHER_CALL}",
        reasoning="The user asks for the weather in Paris. I should call get_weather.",
        calls=[("get_weather", {"city": "Paris"})], hidden=("<function",),
    ),
    # ollama/ollama#11563: GLM-4.5 through the Modelfile: <think> then the template's
    # <tool_call> JSON (the template's format; values rebuilt)
    "ollama11563-glm45-think-then-hermes-call": Case(
        (WEATHER,),
        '<think>The user wants the weather in Beijing.</think>\n<tool_call>\n{"name": "get_weather", "arguments": '
        '{"city": "Beijing"}}\n</tool_call>',
        calls=[("get_weather", {"city": "Beijing"})], hidden=("<tool_call>", "wants the weather"),
    ),
    # ogx-ai/ogx#4414: GLM-4.6 after the tool ran: its <think> block left in the content before the
    # answer (verbatim)
    "ogx4414-glm46-think-block-before-the-answer": Case(
        (tool("get_current_time", "timezone"),),
        "<think>The function returned the current time in European/Vienna timezone. It shows:\n"
        "- Date: December 19, 2025\n- Time: 14:30:36 (2:30:36 PM)\n- Timezone: UTC+1 (Central European Time)\n"
        "- Day of week: Friday\n- DST: No (not daylight saving time)\n\nI should present this information in a "
        "clear, user-friendly format.</think>\nThe current time is **2:30:36 PM** (14:30:36) on Friday, December 19, "
        "2025.\n\nThis is in the Vienna time zone (Central European Time, UTC+1). Daylight saving time is not "
        "currently active.",
        answer="The current time is **2:30:36 PM** (14:30:36) on Friday, December 19, 2025.\n\nThis is in the Vienna "
        "time zone (Central European Time, UTC+1). Daylight saving time is not currently active.",
        hidden=("<think>", "user-friendly format"),
    ),
    # ---- gpt-oss: a call in the analysis channel --------------------------------------------------------------
    # vllm-project/vllm PR #28139: gpt-oss writes its call in the analysis channel, the recipient
    # after the channel name (the Harmony shape the PR handles; the call rebuilt)
    "vllm28139-gpt-oss-call-in-analysis-channel": Case(
        (WEATHER,),
        "<|channel|>analysis<|message|>Need the weather in Berlin.<|end|><|start|>assistant<|channel|>analysis "
        'to=functions.get_weather <|constrain|>json<|message|>{"city":"Berlin"}<|call|>',
        calls=[("get_weather", {"city": "Berlin"})], hidden=("<|channel|>", "Need the weather"),
    ),
    # vllm-project/vllm PR #35907: the same, the recipient before the channel token as Harmony
    # renders it back, no constrain token (rebuilt)
    "vllm35907-gpt-oss-analysis-call-recipient-first": Case(
        (tool("search", "query"),),
        "<|channel|>analysis<|message|>I should look this up.<|end|><|start|>assistant to=functions.search"
        '<|channel|>analysis<|message|>{"query": "harmony analysis channel"}<|call|>',
        calls=[("search", {"query": "harmony analysis channel"})], hidden=("<|channel|>", "look this up"),
    ),
    # ---- a drafted call the model decides against -------------------------------------------------------------
    # CherryHQ/cherry-studio#4900: DeepSeek R1 drafts Cherry Studio's <tool_use> call in its
    # reasoning, then answers; the reporter: the reasoning's calls must not run (rebuilt)
    "cherry4900-r1-drafted-call-in-think-then-answer": Case(
        (tool("fetch", "url"),),
        "<think>I could fetch the page: <tool_use>\n  <name>fetch</name>\n  <arguments>{\"url\": "
        "\"https://example.com\"}</arguments>\n</tool_use>\nBut the question is general; no need.</think>\n\n"
        "HTTP 404 means the server could not find the page.",
        answer="HTTP 404 means the server could not find the page.", hidden=("<tool_use>", "no need"),
    ),
    # InternLM/lmdeploy PR #4580 (the maintainer: a call in reasoning_content "belong[s] to the
    # thinking process"): a drafted call in the reasoning, an answer in the content (rebuilt)
    "lmdeploy4580-drafted-call-in-reasoning-then-answer": Case(
        (tool("search", "query"),),
        "2 + 2 = 4.",
        reasoning='Maybe <tool_call>\n{"name": "search", "arguments": {"query": "2+2"}}\n</tool_call>? No, '
        "simple arithmetic.",
        answer="2 + 2 = 4.",
    ),
}

GAPS: dict[tuple[str, str], str] = {}

test_real_world_reply = reply_test(CASES, GAPS, read)


# ---- streams through the model plugin -------------------------------------------------------------------


def _claude_thinking_call_events() -> list[dict]:
    """BerriAI/litellm#15601 / open-webui/open-webui#20464: Claude with extended thinking through
    LiteLLM's /chat/completions: ``reasoning_content`` and ``thinking_blocks`` (with their
    ``signature``) first, then a ``tool_calls`` delta (rebuilt from the issues' shape)."""
    return [
        ev(role="assistant", content="", reasoning_content="The user wants Paris weather.",
           thinking_blocks=[{"type": "thinking", "thinking": "The user wants Paris weather.", "signature": "EqQBCgIYAhIM"}]),
        ev(content="", tool_calls=[tc(index=0, id="toolu_01A09q90qw90lq917835lq9", type="function",
                                      function=fn(name="get_weather", arguments=""))]),
        ev(content=None, tool_calls=[tc(index=0, function=fn(name=None, arguments='{"city": '))]),
        ev(content=None, tool_calls=[tc(index=0, function=fn(name=None, arguments='"Paris"}'))]),
        ev("tool_calls", content=None),
    ]


def test_litellm15601_claude_thinking_then_call_runs_and_keeps_the_reasoning():
    """The call runs under Claude's id; the thinking is kept as reasoning, not shown."""
    streamed, turn = read_fc(plugin_chunks(sse(*_claude_thinking_call_events())), ["get_weather"])
    assert isinstance(turn.decision, ToolCalls) and not turn.decision.invalid
    assert [(c.id, c.name, c.arguments) for c in turn.decision.calls] == [
        ("toolu_01A09q90qw90lq917835lq9", "get_weather", {"city": "Paris"})]
    assert "Paris weather" not in streamed and "Paris weather" in turn.reasoning


def test_vllm42021_qwen35_stream_reasoning_then_xml_call_in_content():
    """vLLM with ``--reasoning-parser qwen3`` and thinking on: the reasoning in ``reasoning_content``
    and the call left as XML in ``content`` (the issue's report; rebuilt). ReAct runs it."""
    events = [ev(role="assistant", content=None, reasoning_content="Need the weather in Paris."),
              ev(content="\n\n<tool_call>\n<function=get_weather>\n<parameter=city>\n"),
              ev(content="Paris\n</parameter>\n</function>\n</tool_call>"), ev("stop", content="")]
    streamed, turn = read_react(plugin_chunks(sse(*events)), ["get_weather"])
    assert isinstance(turn.decision, ToolCalls)
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [("get_weather", {"city": "Paris"})]
    assert "<function" not in streamed and "Need the weather" not in streamed


# ---- the fix's limits ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("\n</function>\n</tool_call>", True),
        ("<|tool_calls_section_end|>", True),
        ("<｜tool▁call▁end｜><｜tool▁calls▁end｜>", True),
        ("   ", False),
        ("</tool_call> Done.", False),
        ("It is sunny.</p>", False),
        ("<b>bold</b>", False),
    ],
)
def test_closes_markup_only(text, expected):
    assert closes_markup_only(text) is expected


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_closing_markup_after_reasoning_without_a_call_runs_nothing(strategy):
    """Closing markup in the content and reasoning that opened no call: nothing runs."""
    case = Case((WEATHER,), "\n</tool_call>", reasoning="The user said hello. I will greet back.")
    _, turn = read(strategy, case, None)
    assert not isinstance(turn.decision, ToolCalls)


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_an_answer_after_a_split_call_end_is_not_read_as_the_split(strategy):
    """Content holding words after the closing tags is not a call's end alone: the reasoning's
    unclosed call is not run from it (the reply is read as before the fix)."""
    case = Case((WEATHER,), "</tool_call>\nIt is sunny in Paris.",
                reasoning='<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}')
    _, turn = read(strategy, case, None)
    assert not isinstance(turn.decision, ToolCalls)
