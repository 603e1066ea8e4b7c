"""Model outputs and stream shapes quoted in public bug reports of 2025-2026, through both
strategies' turn readers.

Each case is what a server handed on (content, and ``reasoning_content`` where the report shows
one) and what a user expects of it: the call runs with the right name and arguments, or the
answer shows clean with the reasoning kept out of it. The source of each case is named beside
it; docs/real-world-cases.md lists them by id. Every text is also fed in small pieces: the
outcome must not depend on how the stream was cut.
"""

from dataclasses import dataclass, field

import pytest
from dify_plugin.interfaces.agent import ToolEntity

from agent_core.function_calling.turn import read_function_calling_turn
from agent_core.model_call import ModelChunk, normalize_chunk
from agent_core.react.turn import read_react_turn
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ModelTurn, ParseFailure, ToolCalls
from tests.unit.helpers import drain, gap_param


def tool(name: str, *params: str) -> ToolEntity:
    """A node tool with string parameters ``params``."""
    return ToolEntity.model_validate(
        {
            "identity": {"author": "t", "name": name, "label": {"en_US": name}, "provider": "t"},
            "parameters": [
                {
                    "name": p, "label": {"en_US": p}, "human_description": {"en_US": p}, "type": "string",
                    "form": "llm", "llm_description": p, "required": False,
                }
                for p in params
            ],
            "description": {"human": {"en_US": name}, "llm": f"The {name} tool"},
        }
    )


@dataclass(frozen=True)
class Case:
    tools: tuple[ToolEntity, ...]
    content: str = ""
    reasoning: str = ""  # reasoning_content, sent before the content
    calls: list | None = None  # (name, arguments) the reply must run, in order
    answer: str | None = None  # else the answer the user must see
    fallback: str | None = None  # else: no call nor answer now, this answer once retries run out
    only: tuple[str, ...] = ("react", "fc")  # the strategies the case is about
    hidden: tuple[str, ...] = field(default=())  # text the user must never see


def chunks_of(case: Case, size: int | None) -> list[ModelChunk]:
    """The reply as a stream: the reasoning, then the content (whole, or in ``size`` pieces)."""
    out = [ModelChunk(reasoning=case.reasoning)] if case.reasoning else []
    text = case.content
    pieces = [text] if size is None else [text[i : i + size] for i in range(0, len(text), size)]
    out += [ModelChunk(text=piece) for piece in pieces if piece]
    return [*out, ModelChunk(finish_reason="stop")]


def read(strategy: str, case: Case, size: int | None) -> tuple[str, ModelTurn]:
    chunks = iter(chunks_of(case, size))
    if strategy == "react":
        return drain(read_react_turn(chunks, ToolRegistry(list(case.tools)), 1))
    return drain(read_function_calling_turn(chunks, [t.identity.name for t in case.tools]))


WEATHER = tool("get_weather", "city")

CASES = {
    # ml-explore/mlx-lm PR #1416: MiniMax-M3 puts its token ]<]minimax[>[ before every tag, and
    # writes arguments as elements (<location>Paris</location>), not <parameter name=...>
    "mlxlm1416-minimax-m3-token-tags": Case(
        (tool("get_weather", "location", "days"),),
        "I'll check the time.]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"get_weather\">\n"
        "]<]minimax[>[<location>Paris]<]minimax[>[</location>\n]<]minimax[>[<days>3]<]minimax[>[</days>\n"
        "]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>",
        calls=[("get_weather", {"location": "Paris", "days": "3"})],
        hidden=("minimax", "<invoke"),
    ),
    # MiniMax-AI/MiniMax-M3#31: the same leak in a coding session, tags on one line, a Windows path
    "minimaxm3-31-token-tags-one-line": Case(
        (tool("read_file", "path", "start_line", "end_line"),),
        "Let me read that part to confirm.\nI need to continue with Step 1. Let me read the run_one function."
        "]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"read_file\">]<]minimax[>[<path>C:\\encher\\src\\main.rs"
        "]<]minimax[>[</path>]<]minimax[>[<start_line>130]<]minimax[>[</start_line>]<]minimax[>[<end_line>165"
        "]<]minimax[>[</end_line>]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>",
        calls=[("read_file", {"path": "C:\\encher\\src\\main.rs", "start_line": "130", "end_line": "165"})],
        hidden=("minimax",),
    ),
    # vllm-project/vllm#51073: MiniMax-M3 served with its special tokens skipped, so only the XML is
    # left: a Hermes <tool_call> around an <invoke> with element arguments, nested values included
    "vllm51073-minimax-m3-tokens-skipped-nested": Case(
        (tool("edit", "path", "ops"),),
        "<tool_call>\n<invoke name=\"edit\">\n<path>a.py</path>\n<ops><item><line>3</line><text>x = 1</text></item>"
        "<item><line>9</line><text>y = 2</text></item></ops>\n</invoke>\n</tool_call>",
        calls=[("edit", {"path": "a.py", "ops": [{"line": "3", "text": "x = 1"}, {"line": "9", "text": "y = 2"}]})],
    ),
    # MiniMax-M2's <invoke>/<parameter> put in a Hermes <tool_call> instead of <minimax:tool_call>
    # (the shape can1357/oh-my-pi#2759 describes for the M series under a generic XML dialect)
    "ohmypi2759-invoke-in-hermes-tool-call": Case(
        (WEATHER,),
        "<tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n</invoke>\n</tool_call>",
        calls=[("get_weather", {"city": "Paris"})],
    ),
    # earendil-works/pi#368: MiniMax M2.1 via OpenRouter, two invokes in one wrapper
    "pi368-minimax-m21-two-invokes": Case(
        (tool("bash", "command"),),
        "<minimax:tool_call>\n<invoke name=\"bash\">\n<parameter name=\"command\">mb --help</parameter>\n</invoke>\n"
        "<invoke name=\"bash\">\n<parameter name=\"command\">cm --help</parameter>\n</invoke>\n</minimax:tool_call>",
        calls=[("bash", {"command": "mb --help"}), ("bash", {"command": "cm --help"})],
    ),
    # lmstudio-ai/lmstudio-bug-tracker#1592: qwen/qwen3.5-9b puts three Qwen3-Coder calls in
    # reasoning_content and leaves the content empty
    "lmstudio1592-qwen35-calls-in-reasoning": Case(
        (tool("readWorkspaceFile", "arg0"), tool("getTypeSource", "arg0", "arg1")),
        reasoning="Let me read the configuration.md file and the source files.\n\n<tool_call>\n<function=readWorkspaceFile>\n"
        "<parameter=arg0>\n/doc/docs/setup/configuration.md\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n"
        "<function=getTypeSource>\n<parameter=arg0>\norg.sterl.llmpeon.ai.LlmConfig\n</parameter>\n<parameter=arg1>\n\n"
        "</parameter>\n</function>\n</tool_call>",
        calls=[
            ("readWorkspaceFile", {"arg0": "/doc/docs/setup/configuration.md"}),
            ("getTypeSource", {"arg0": "org.sterl.llmpeon.ai.LlmConfig", "arg1": ""}),
        ],
    ),
    # vybestack/llxprt-code#749: Kimi K2 Thinking writes its call tokens, spaced, in reasoning_content
    "llxprt749-kimi-k2-thinking-call-in-reasoning": Case(
        (tool("list_directory", "path"),),
        reasoning="I'll analyze the codebase. Let me start by exploring the structure. <|tool_calls_section_begin|> "
        "<|tool_call_begin|> functions.list_directory:0 <|tool_call_argument_begin|> {\"path\": \"/Users/me/app\"} "
        "<|tool_call_end|> <|tool_calls_section_end|>",
        calls=[("list_directory", {"path": "/Users/me/app"})],
    ),
    # the same report: a client that puts reasoning_content back as a <think> block in the content
    "llxprt749-kimi-k2-call-inside-think": Case(
        (tool("list_directory", "path"),),
        "<think>I'll analyze the codebase. <|tool_calls_section_begin|> <|tool_call_begin|> functions.list_directory:0 "
        "<|tool_call_argument_begin|> {\"path\": \"/Users/me/app\"} <|tool_call_end|> <|tool_calls_section_end|></think>",
        calls=[("list_directory", {"path": "/Users/me/app"})],
        hidden=("<|tool",),
    ),
    # vllm-project/vllm#19839 (also QuantumNous/new-api#1255): Qwen3 with thinking off under a
    # reasoning parser that waits for </think>: the whole reply lands in reasoning_content
    "vllm19839-react-step-in-reasoning-content": Case(
        (tool("search", "q"),),
        reasoning="Thought: I need the latest release notes.\nAction: search\nAction Input: {\"q\": \"dify 1.11 release notes\"}",
        calls=[("search", {"q": "dify 1.11 release notes"})],
        only=("react",),
    ),
    "vllm19839-react-answer-in-reasoning-content": Case(
        (tool("search", "q"),),
        reasoning="Thought: I can answer directly.\nFinal Answer: 我是Qwen3，阿里巴巴最新推出的通义千问大语言模型。",
        fallback="我是Qwen3，阿里巴巴最新推出的通义千问大语言模型。",
        only=("react",),
    ),
    # NousResearch/hermes-agent#7457: Gemma 4 through an API without its parser, the arguments in
    # parentheses (key: "value") instead of its braces and quote tokens
    "hermes7457-gemma4-call-in-parentheses": Case(
        (tool("search", "query"),),
        '<|tool_call>call:search(query: "blockchain news")<tool_call|>',
        calls=[("search", {"query": "blockchain news"})],
        hidden=("tool_call",),
    ),
    # NousResearch/hermes-agent PR #7449: the same form with a single-quoted value
    "hermes7449-gemma4-parentheses-single-quotes": Case(
        (tool("get_weather", "city", "unit"),),
        "<|tool_call>call:get_weather(city: \"Seoul\", unit: 'celsius')<tool_call|>",
        calls=[("get_weather", {"city": "Seoul", "unit": "celsius"})],
    ),
    # NousResearch/hermes-agent#38376: gemma-4-31b-it on vLLM, its thought channel and its call in
    # the content (ml-explore/mlx-lm PR #1105 gives the brace form with <|"|> quotes)
    "hermes38376-gemma4-thought-channel-then-call": Case(
        (WEATHER,),
        '<|channel>thought\nThe user wants the weather in Paris.<channel|><|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|>',
        calls=[("get_weather", {"city": "Paris"})],
    ),
    "hermes38376-gemma4-thought-channel-then-answer": Case(
        (WEATHER,),
        "<|channel>thought\nSimple arithmetic.<channel|>2 + 2 = 4.",
        answer="2 + 2 = 4.",
        hidden=("channel", "Simple arithmetic"),
    ),
    # alibaba/rtp-llm PR #525: GLM-4.7 calls a tool without arguments as <tool_call>NAME</tool_call>;
    # GLM-4.6's form has <arg_key>/<arg_value> pairs
    "rtpllm525-glm47-call-without-arguments": Case(
        (tool("get_all_func"), WEATHER),
        "<tool_call>get_all_func</tool_call>",
        calls=[("get_all_func", {})],
    ),
    "rtpllm525-glm46-arg-key-value": Case(
        (tool("get_current_weather", "location"),),
        "<tool_call>get_current_weather\n<arg_key>location</arg_key>\n<arg_value>杭州</arg_value>\n</tool_call>",
        calls=[("get_current_weather", {"location": "杭州"})],
    ),
    # ggml-org/llama.cpp PR #17376: Kimi-K2 also writes the section marker in the singular
    "llamacpp17376-kimi-k2-singular-section": Case(
        (WEATHER,),
        "<|tool_call_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>"
        '{"city": "Paris"}<|tool_call_end|><|tool_call_section_end|>',
        calls=[("get_weather", {"city": "Paris"})],
    ),
    # kekzl/imp PR #1719: gpt-oss-20b's analysis, then a commentary call with no <|call|> after it
    "imp1719-gptoss-commentary-call-unterminated": Case(
        (WEATHER,),
        '<|channel|>analysis<|message|>We need to use the get_weather function. Provide city "Berlin".<|end|>\n'
        '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Berlin"}',
        calls=[("get_weather", {"city": "Berlin"})],
        hidden=("We need",),
    ),
    # Augustas11/macprovider#743: gpt-oss-20b on MLX with Harmony's tokens dropped by the server
    "macprovider743-gptoss-bare-harmony": Case(
        (tool("search", "q"),),
        'analysisWe need to answer "What is 2+2? Answer in one word." The answer is "four".\nWe should output only '
        "that word. And nothing else.assistantfinalfour",
        answer="four",
        hidden=("We need",),
    ),
    # langgenius/dify-official-plugins#2621: "FinalAnswer:" written without its space
    "dop2621-finalanswer-without-space": Case(
        (tool("search", "q"),),
        "Thought: I have what I need.\nFinalAnswer: This is the final answer.",
        answer="This is the final answer.",
        only=("react",),
    ),
    # vllm-project/vllm#16214: Llama 4 with the llama3_json parser leaves <|python_start|> JSON in content
    "vllm16214-llama4-python-start": Case(
        (tool("brave_web_search", "query"),),
        '<|python_start|>{"name": "brave_web_search", "parameters": {"query": "latest news"}}<|python_end|>',
        calls=[("brave_web_search", {"query": "latest news"})],
    ),
    # vllm-project/vllm#46863: Llama-4-Scout writes a JSON call with "type" beside its name
    "vllm46863-llama4-json-with-type": Case(
        (tool("Bash", "command", "timeout"),),
        '{"type": "function", "name": "Bash", "parameters": {"command": "echo hello", "timeout": 12000}}',
        calls=[("Bash", {"command": "echo hello", "timeout": 12000})],
    ),
    # NousResearch/hermes-agent PR #35129: Ollama-cloud's attribute-less <function=NAME>{json}</function>
    "hermes35129-function-tag-with-json": Case(
        (WEATHER,),
        '<function=get_weather>{"city": "Paris"}</function>',
        calls=[("get_weather", {"city": "Paris"})],
    ),
    # CherryHQ/cherry-studio PR #9498, murtaza-nasir/maestro#59: Seed-OSS-36B's <seed:think> in content
    "cherry9498-seed-oss-think-tags": Case(
        (tool("search", "q"),),
        "<seed:think>The user asks 2+2. Simple.</seed:think>2 + 2 = 4.",
        answer="2 + 2 = 4.",
        hidden=("seed:think", "Simple."),
    ),
    # anomalyco/opencode#6486: GLM 4.5 Air writes an empty <think></think> before its answer
    "opencode6486-glm45-empty-think": Case(
        (tool("search", "q"),),
        "<think></think>\nThe answer is 4.",
        answer="The answer is 4.",
        hidden=("think",),
    ),
}


def check(strategy: str, case: Case, streamed: str, turn: ModelTurn) -> None:
    decision = turn.decision
    if case.calls is not None:
        assert isinstance(decision, ToolCalls), decision
        assert [(c.name, c.arguments) for c in decision.calls] == case.calls
        assert not decision.invalid
    elif case.answer is not None:
        assert decision == FinalAnswer(case.answer)
        assert streamed.strip() == case.answer
    else:
        assert isinstance(decision, ParseFailure) and decision.fallback == case.fallback
    for text in case.hidden:
        assert text not in streamed and text not in getattr(decision, "text", "")


def reply_params(cases: dict[str, Case], gaps: dict[tuple[str, str], str]):
    """``(name, strategy)`` for each case in each strategy it is for (``Case.only``: both by
    default), a strict xfail where ``gaps`` gives the reason it fails today (the later passes'
    tables). A strategy a case is not for gets no test at all rather than a skipped one."""
    for name, case in cases.items():
        for strategy in ("react", "fc"):
            if strategy in case.only:
                yield gap_param(name, strategy, gap=gaps.get((name, strategy)), id=f"{name}-{strategy}")


def check_reply(cases: dict[str, Case], name: str, strategy: str, size: int | None, reader=None) -> None:
    """Read case ``name`` through ``strategy``'s turn reader in pieces of ``size`` characters
    (None: whole) with ``reader`` (a pass's own ``read``, which may give Function Calling the
    tools' declarations; default ``read``) and ``check`` it. ``strategy`` must be one the case is
    for (parametrize with ``reply_params``); AssertionError otherwise."""
    case = cases[name]
    assert strategy in case.only, f"{name} is not a {strategy} case: parametrize with reply_params"
    streamed, turn = (reader or read)(strategy, case, size)
    check(strategy, case, streamed, turn)


def reply_test(cases: dict[str, Case], gaps: dict[tuple[str, str], str], reader):
    """A real-world file's ``test_real_world_reply``: each case of ``cases`` for each strategy
    (``reply_params``, the ``gaps`` strict xfails) read by ``reader`` whole and in pieces of 1 and
    7 characters (``check_reply``). Bind it in the file as
    ``test_real_world_reply = reply_test(CASES, GAPS, read)``."""

    @pytest.mark.parametrize("size", [None, 1, 7])
    @pytest.mark.parametrize(("name", "strategy"), list(reply_params(cases, gaps)))
    def test_real_world_reply(name, strategy, size):
        check_reply(cases, name, strategy, size, reader=reader)

    return test_real_world_reply


def assert_shown_or_runs_nothing(declared: ToolEntity, text: str, streamed: str, turn: ModelTurn,
                                 shown: str | None = None) -> None:
    """A reply showing a call shape (``text``) runs no call of ``declared``: it is the answer as
    written (``shown``, default ``text``), streamed whole; or, as call markup outside code that
    names no node tool, asked again, or in ReAct answered as a call of an unknown tool, with
    nothing streamed."""
    shown = text if shown is None else shown
    if isinstance(turn.decision, ToolCalls):
        assert declared.identity.name not in [call.name for call in turn.decision.calls]
        assert streamed == ""
    elif isinstance(turn.decision, ParseFailure):
        assert "`" not in text
    else:
        assert turn.decision == FinalAnswer(shown)
        assert streamed.strip() == shown


def check_answer_shown_whole(strategy: str, text: str, tools: tuple[ToolEntity, ...], reader=None) -> None:
    """``text`` (an answer that shows call markup or special tokens in code) is the answer as
    written in ``strategy``, read by ``reader`` (``read`` when None) whole and in pieces of 1 and
    7 characters: nothing runs, and the user sees all of it (ReAct: after a Thought and a
    ``Final Answer:`` label)."""
    content = text if strategy == "fc" else f"Thought: explain.\nFinal Answer: {text}"
    for size in (None, 1, 7):
        streamed, turn = (reader or read)(strategy, Case(tools, content), size)
        assert turn.decision.text == text
        assert streamed.strip() == text


def check_tool_call_stream(raw: list[dict], shown: str, expected: list[tuple[str, dict]]) -> None:
    """A provider's raw tool-call stream (``raw``: the chunks as the model plugin sends them) read
    by Function Calling: its text streamed is ``shown``, and its calls are ``expected`` (name,
    arguments), none invalid."""
    tools = sorted({call for call, _ in expected})
    streamed, turn = drain(read_function_calling_turn(iter([normalize_chunk(r) for r in raw]), tools))
    assert streamed.strip() == shown
    assert isinstance(turn.decision, ToolCalls) and not turn.decision.invalid
    assert [(c.name, c.arguments) for c in turn.decision.calls] == expected


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize(("name", "strategy"), list(reply_params(CASES, {})))
def test_real_world_reply(name, strategy, size):
    check_reply(CASES, name, strategy, size)


# ---- native tool-call streams -------------------------------------------------------------------


def delta(**call):
    """One chunk dict carrying one tool-call delta as the provider sent it (keys it left out stay out)."""
    message = {"role": "assistant", "content": "", "tool_calls": [call]}
    return {"model": "m", "delta": {"index": 0, "message": message, "finish_reason": None}}


END = {"model": "m", "delta": {"index": 0, "message": {"role": "assistant", "content": ""}, "finish_reason": "tool_calls"}}

STREAMS = {
    # anomalyco/opencode#43328: deepseek-v4-flash behind a gateway, continuation deltas with id,
    # type and name sent as null (not left out)
    "opencode43328-null-id-type-name-on-continuations": (
        [
            delta(index=0, id="chatcmpl-tool-b4d3cf2ed9145904", type="function",
                  function={"name": "calculator", "arguments": ""}),
            delta(index=0, id=None, type=None, function={"name": None, "arguments": '{"expression": '}),
            delta(index=0, id=None, type=None, function={"name": None, "arguments": '"2+2"}'}),
            END,
        ],
        [("calculator", {"expression": "2+2"})],
    ),
    # anomalyco/opencode#37841: GLM-5.2 on DashScope, no index, "" for id and name after the first
    # delta (the report's third fragment, cut there, is completed here)
    "opencode37841-glm52-empty-strings-no-index": (
        [
            delta(id="call_8c1f", function={"name": "calculator", "arguments": "{"}),
            delta(id="", function={"name": "", "arguments": '"expression": '}),
            delta(id="", function={"name": "", "arguments": '"2'}),
            delta(id="", function={"name": "", "arguments": '+2"}'}),
            END,
        ],
        [("calculator", {"expression": "2+2"})],
    ),
    # lidge-jun/opencodex#361: every call's whole arguments sent twice, in two chunks after its name
    "opencodex361-arguments-chunk-sent-twice": (
        [
            delta(index=0, id="tool_a", function={"name": "shell", "arguments": ""}),
            delta(index=0, function={"arguments": '{"command":"ls /home/opc"}'}),
            delta(index=0, function={"arguments": '{"command":"ls /home/opc"}'}),
            delta(index=1, id="tool_b", function={"name": "read_file", "arguments": ""}),
            delta(index=1, function={"arguments": '{"path":"/home/opc/README.md"}'}),
            delta(index=1, function={"arguments": '{"path":"/home/opc/README.md"}'}),
            END,
        ],
        [("shell", {"command": "ls /home/opc"}), ("read_file", {"path": "/home/opc/README.md"})],
    ),
    # NousResearch/hermes-agent PR #35718 (#35592): DeepSeek / Baidu Qianfan resend the arguments
    # so far in every chunk
    "hermes35718-cumulative-arguments": (
        [
            delta(index=0, id="c1", type="function", function={"name": "search", "arguments": '{"q'}),
            delta(index=0, function={"arguments": '{"query": "dee'}),
            delta(index=0, function={"arguments": '{"query": "deepseek api"}'}),
            END,
        ],
        [("search", {"query": "deepseek api"})],
    ),
    # elizaOS/eliza PR #16973: gemma-4-31b behind a proxy, argument deltas, then one consolidated
    # chunk repeating the call with its whole arguments
    "eliza16973-deltas-then-consolidated-call": (
        [
            delta(index=0, id="call_1", type="function", function={"name": "shell", "arguments": ""}),
            delta(index=0, function={"arguments": '{"command": '}),
            delta(index=0, function={"arguments": '"ls"}'}),
            delta(index=0, id="call_1", type="function", function={"name": "shell", "arguments": '{"command":"ls"}'}),
            END,
        ],
        [("shell", {"command": "ls"})],
    ),
    # VicBilibily/GCMP PR #194: plain deltas that repeat the text before them ("100" + "00",
    # "-step" + "-step") are not resends: nothing may be dropped
    "gcmp194-repeated-fragments-kept": (
        [
            delta(index=0, id="c1", type="function", function={"name": "shell", "arguments": '{"n": 100'}),
            delta(index=0, function={"arguments": '00, "s": "--fixed-step'}),
            delta(index=0, function={"arguments": '-step"}'}),
            END,
        ],
        [("shell", {"n": 10000, "s": "--fixed-step-step"})],
    ),
    # diegosouzapw/OmniRoute PR #3762: one-character deltas equal to the text before them
    "omniroute3762-equal-neighbour-deltas": (
        [
            delta(index=0, id="c1", type="function", function={"name": "shell", "arguments": '{"cmd":"l'}),
            delta(index=0, function={"arguments": "l -l"}),
            delta(index=0, function={"arguments": '", "a": "x'}),
            delta(index=0, function={"arguments": "x"}),
            delta(index=0, function={"arguments": '"}'}),
            END,
        ],
        [("shell", {"cmd": "ll -l", "a": "xx"})],
    ),
    # jjang-ai/vmlx#219: the standard shape, argument chunks with neither id nor type keys
    "vmlx219-argument-chunk-without-id-or-type": (
        [
            delta(index=0, id="call_xxx", type="function", function={"name": "glob", "arguments": ""}),
            delta(index=0, function={"arguments": '{"path":"/tmp","pattern":"*"}'}),
            END,
        ],
        [("glob", {"path": "/tmp", "pattern": "*"})],
    ),
}


@pytest.mark.parametrize("name", list(STREAMS))
def test_real_world_tool_call_stream(name):
    raw, expected = STREAMS[name]
    tools = sorted({call for call, _ in expected})
    streamed, turn = drain(read_function_calling_turn(iter([normalize_chunk(r) for r in raw]), tools))
    assert streamed == ""
    assert isinstance(turn.decision, ToolCalls) and not turn.decision.invalid
    assert [(c.name, c.arguments) for c in turn.decision.calls] == expected
