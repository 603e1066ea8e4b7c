"""A thirty-fourth set of real-world cases: replies of the newest model families (Meta's Muse
Glimmer and its ATEM call blocks, Kimi K2 and K3 through OpenRouter and MLX servers, Llama 4,
Hunyuan, ERNIE 4.5, Phi-4-mini, Mistral through LiteLLM, Gemini through a gateway, MiniMax M2.x)
that servers (vLLM, SGLang, Ollama, mlxcel) and agent loops (hermes-agent, OpenClaw, verl,
openai-agents-python, PicoClaw) read wrong, as their public issues and pull requests quote them:
a call block written with no channel header, a call between two channels with no end token, a
call-block opener cut at the reply's end, calls after a sentence, Python-dict arguments, a call
inside reasoning and again after it, an answer in a ``<final>`` frame after reasoning, answer
frames after reasoning that came apart from the content.

Replies are read through both strategies' turn readers, whole and in pieces of 1 and 7 characters
(``test_real_world_2026.reply_test``). Each case names its source beside it;
docs/real-world-cases.md lists them with what the user saw and expected. A text is quoted as the
report shows it; where the report shows a format or describes the output and its values were filled
in, the comment says "rebuilt". The tools are declared with string parameters.
"""

import pytest

from agent_core.function_calling.turn import read_function_calling_turn
from agent_core.model_call import ModelChunk
from agent_core.react.turn import read_react_turn
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ToolCalls
from tests.unit.helpers import drain
from tests.unit.test_real_world_2026 import Case, check_answer_shown_whole, reply_test, tool
from tests.unit.test_real_world_2026d import read

WEATHER = tool("get_weather", "city")
LOCATION = tool("get_weather", "location")
SEARCH = tool("search", "query")

CASES = {
    # ---- Muse Glimmer (Meta): channel headers and ATEM call blocks ---------------------------------
    # sgl-project/sglang PR #34577: "The model answers in prose and appends the call with no
    # <|eom|> and no to=<tool><|message|> header"; the detector handed back the whole body as
    # content (the PR's sentence and opening tags; the parameter rebuilt)
    "sglang34577-glimmer-headerless-atem-block-after-prose": Case(
        (LOCATION,),
        "I'll check the current weather for San Francisco.\n<atem:function_calls>\n"
        '<atem:invoke name="get_weather">\n<atem:parameter name="location">San Francisco</atem:parameter>\n'
        "</atem:invoke>\n</atem:function_calls>",
        calls=[("get_weather", {"location": "San Francisco"})], hidden=("atem:",),
    ),
    # the same, the block alone (rebuilt)
    "sglang34577-glimmer-headerless-atem-block-alone": Case(
        (WEATHER,),
        '<atem:function_calls>\n<atem:invoke name="get_weather">\n<atem:parameter name="city">Paris'
        "</atem:parameter>\n</atem:invoke>\n</atem:function_calls>",
        calls=[("get_weather", {"city": "Paris"})], hidden=("atem:",),
    ),
    # smg-project/smg PR #2270: the turn framed as channels, reasoning to self, the call to the tool
    # (the PR's example; the reasoning's text filled in where the PR writes "…reasoning…")
    "smg2270-glimmer-self-reasoning-then-tool-channel": Case(
        (WEATHER,),
        "<|start|>assistant to=self<|message|>The user wants the weather in Paris.<|eom|>\n"
        "<|start|>assistant to=get_weather<|message|><atem:function_calls>\n"
        '<atem:invoke name="get_weather"><atem:parameter name="city">Paris</atem:parameter></atem:invoke>\n'
        "</atem:function_calls><|eom|>",
        calls=[("get_weather", {"city": "Paris"})], hidden=("atem:", "<|", "wants the weather"),
    ),
    # the same PR: the answer's channel after the reasoning (its `It is sunny.`)
    "smg2270-glimmer-self-reasoning-then-user-answer": Case(
        (WEATHER,),
        "<|start|>assistant to=self<|message|>The tool said sunny; tell the user.<|eom|>\n"
        "<|start|>assistant to=user<|message|>It is sunny.<|eot|>",
        answer="It is sunny.", hidden=("<|", "tell the user"),
    ),
    # osaurus-ai/osaurus#2354: the tool channel's header `to=underwriting_underwriter_daily_summary
    # <|message|` showed at the end of the first think block (the header as quoted, with its `>`;
    # the reasoning and the block rebuilt)
    "osaurus2354-glimmer-tool-recipient-after-first-think-block": Case(
        (tool("underwriting_underwriter_daily_summary", "date"),),
        " to=self<|message|>I need today's underwriting summary.<|eom|>"
        "<|start|>assistant to=underwriting_underwriter_daily_summary<|message|><atem:function_calls>\n"
        '<atem:invoke name="underwriting_underwriter_daily_summary">\n'
        '<atem:parameter name="date">2026-08-11</atem:parameter>\n</atem:invoke>\n</atem:function_calls><|eom|>',
        calls=[("underwriting_underwriter_daily_summary", {"date": "2026-08-11"})],
        hidden=("to=", "<|message|", "underwriting summary"),
    ),
    # FlashML-org/FreeToken PR #4: "The model sometimes leaves `to=self` without `<|eom|>`, writing
    # `to=<tool><|message|>` directly"; the tool channel was absorbed into the reasoning (rebuilt)
    "freetoken4-glimmer-tool-header-without-eom-after-reasoning": Case(
        (WEATHER,),
        " to=self<|message|>The user wants the weather in Paris.to=get_weather<|message|><atem:function_calls>\n"
        '<atem:invoke name="get_weather">\n<atem:parameter name="city">Paris</atem:parameter>\n</atem:invoke>\n'
        "</atem:function_calls><|eom|>",
        calls=[("get_weather", {"city": "Paris"})], hidden=("atem:", "<|", "wants the weather"),
    ),
    # ---- Kimi K2 / K3 -------------------------------------------------------------------------------
    # NousResearch/hermes-agent PR #29735: Kimi K2 through OpenRouter returns
    # `<|tool_calls_section_begin|><|tool_call_begin|>{...}<|tool_call_end|><|tool_calls_section_end|>`
    # in content (the PR's shape; the JSON rebuilt)
    "hermesagent29735-kimi-k2-json-inside-call-tokens": Case(
        (WEATHER,),
        '<|tool_calls_section_begin|><|tool_call_begin|>{"name": "get_weather", "arguments": {"city": "Paris"}}'
        "<|tool_call_end|><|tool_calls_section_end|>",
        calls=[("get_weather", {"city": "Paris"})], hidden=("<|",),
    ),
    # lablup/mlxcel PR #783 (#766): Kimi's section with no per-call wrappers, its arguments in
    # Python-dict spellings (single quotes, True) (rebuilt)
    "mlxcel783-kimi-k2-section-without-wrappers-python-dict": Case(
        (tool("get_weather", "city", "metric"),),
        "<|tool_calls_section_begin|>functions.get_weather:0<|tool_call_argument_begin|>"
        "{'city': 'Paris', 'metric': True}<|tool_calls_section_end|>",
        calls=[("get_weather", {"city": "Paris", "metric": True})], hidden=("<|", "functions."),
    ),
    # openclaw/openclaw PR #60051: the review's preamble before the section, `Alright, let me do that:`
    # (the preamble verbatim; the section rebuilt)
    "openclaw60051-kimi-preamble-then-section": Case(
        (tool("read", "path"),),
        "Alright, let me do that: <|tool_calls_section_begin|><|tool_call_begin|>functions.read:0"
        '<|tool_call_argument_begin|>{"path": "README.md"}<|tool_call_end|><|tool_calls_section_end|>',
        calls=[("read", {"path": "README.md"})], hidden=("<|", "functions."),
    ),
    # vllm-project/vllm PR #38353: content after </think> and before the section marker in the
    # same delta was dropped (rebuilt)
    "vllm38353-kimi-content-between-think-and-section": Case(
        (WEATHER,),
        "The user wants Paris's weather.</think>Let me check.<|tool_calls_section_begin|><|tool_call_begin|>"
        'functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|>'
        "<|tool_calls_section_end|>",
        calls=[("get_weather", {"city": "Paris"})], hidden=("<|", "</think>", "wants Paris"),
    ),
    # getsigit/sigit PR #92: Kimi K3's XTML tools block in content, a non-string argument typed
    # (`task_id` as integer) (rebuilt)
    "sigit92-kimi-k3-xtml-call-typed-argument": Case(
        (tool("task_status", "task_id"),),
        '<|open|>tools<|sep|><|open|>call tool="task_status" index="0"<|sep|>'
        '<|open|>argument key="task_id" type="integer"<|sep|>42<|close|>argument<|sep|>'
        "<|close|>call<|sep|><|close|>tools<|sep|>",
        calls=[("task_status", {"task_id": 42})], hidden=("<|",),
    ),
    # the same PR: the think block dropped, the response block unwrapped (rebuilt)
    "sigit92-kimi-k3-think-then-response-block": Case(
        (SEARCH,),
        "<|open|>think<|sep|>The user greets me.<|close|>think<|sep|><|open|>response<|sep|>Hello there!"
        "<|close|>response<|sep|><|close|>message<|sep|>",
        answer="Hello there!", hidden=("<|", "greets me"),
    ),
    # ---- other families ---------------------------------------------------------------------------
    # vllm-project/vllm#22917: Llama 4's pythonic calls after raw content were not captured (the
    # call list as its deltas spell it; the sentence before it rebuilt)
    "vllm22917-llama4-pythonic-calls-after-prose": Case(
        (tool("get_weather", "location", "date"), tool("get_todays_date")),
        "To determine the weather on April 14, I will look up today's date and the forecast.\n"
        '[get_todays_date(), get_weather(location="Dublin, Ireland", date="2025-04-14")]',
        calls=[("get_todays_date", {}), ("get_weather", {"location": "Dublin, Ireland", "date": "2025-04-14"})],
        hidden=("get_todays_date()",),
    ),
    # sgl-project/sglang PR #7672: Hunyuan's `<answer><tool_calls>[{...}]</tool_calls></answer>`
    # (rebuilt)
    "sglang7672-hunyuan-tool-calls-in-answer": Case(
        (LOCATION,),
        '<answer><tool_calls>[{"name": "get_weather", "arguments": {"location": "Beijing"}}]</tool_calls></answer>',
        calls=[("get_weather", {"location": "Beijing"})], hidden=("tool_calls", "<answer>"),
    ),
    # vllm-project/vllm PR #33083 (#32926): Qwen2.5-Coder's calls in `<tools>` tags, an array for
    # parallel calls (the PR's format; the calls rebuilt)
    "vllm33083-qwen25-coder-tools-tag-array": Case(
        (WEATHER, tool("get_time", "city")),
        '<tools>\n[{"name": "get_weather", "arguments": {"city": "Paris"}}, '
        '{"name": "get_time", "arguments": {"city": "Paris"}}]\n</tools>',
        calls=[("get_weather", {"city": "Paris"}), ("get_time", {"city": "Paris"})], hidden=("<tools>",),
    ),
    # ollama/ollama#10981: phi4-mini's call for "What time is now?" (verbatim)
    "ollama10981-phi4-mini-json-call-no-arguments": Case(
        (tool("get_date_time"),),
        '{"name": "get_date_time", "arguments": {}}',
        calls=[("get_date_time", {})], hidden=('"arguments"',),
    ),
    # the same thread: the message after it, its leaked tokens in front, the list after a sentence
    # (verbatim); Function Calling had asked again (tokens) or shown the list (without them)
    "ollama10981-phi4-mini-tokens-sentence-then-call-list": Case(
        (tool("get_date_time"),),
        "<|/tool_call|><|assistant|>I will now initiate a tool call using an object with specified properties.\n\n"
        '[{"name": "get_date_time", "arguments": {}}]',
        calls=[("get_date_time", {})], hidden=("<|", '"arguments"'),
    ),
    # the same, without the tokens (rebuilt)
    "ollama10981-phi4-mini-sentence-then-call-list": Case(
        (tool("get_date_time"),),
        'I will check the clock.\n\n[{"name": "get_date_time", "arguments": {}}]',
        calls=[("get_date_time", {})], hidden=('"arguments"',),
    ),
    # Gitlawb/openclaude PR #380: Gemma 4's brace call `call:Write{file_path:a.txt,content:hello}`
    # (verbatim from the review)
    "openclaude380-gemma4-brace-call": Case(
        (tool("Write", "file_path", "content"),),
        "call:Write{file_path:a.txt,content:hello}",
        calls=[("Write", {"file_path": "a.txt", "content": "hello"})], hidden=("call:",),
    ),
    # the same review: "a non-streaming gpt-4o response that merely says: `Here is the syntax
    # example: call:Write{file_path:a.txt,content:hello}` gets converted into a real tool_use
    # block" (verbatim): it is the answer's text, nothing runs
    "openclaude380-syntax-example-in-a-sentence-is-text": Case(
        (tool("Write", "file_path", "content"),),
        "Here is the syntax example: call:Write{file_path:a.txt,content:hello}",
        answer="Here is the syntax example: call:Write{file_path:a.txt,content:hello}",
    ),
    # openai/openai-agents-python#1196: mistral-medium through LiteLLM wrote the call as a message
    # (verbatim)
    "openaiagents1196-mistral-call-written-as-message": Case(
        (tool("call_rag_server", "category", "query", "k"),),
        'Tool call\n\ncall_rag_server({"category": "domestic", "query": "dogs", "k": 3})',
        calls=[("call_rag_server", {"category": "domestic", "query": "dogs", "k": 3})],
        hidden=("call_rag_server(",),
    ),
    # NousResearch/hermes-agent#74771: Gemini through LiteLLM wrote its call in its internal
    # `declaration:default_api:NAME{...}` form (the shape verbatim; the report's tool `cet outil`
    # renamed and its values filled in)
    "hermesagent74771-gemini-declaration-default-api-call": Case(
        (tool("route_request", "demandes"),),
        "declaration:default_api:route_request{demandes:[{assistant:billing,demande:refund order 42}]}",
        calls=[("route_request", {"demandes": [{"assistant": "billing", "demande": "refund order 42"}]})],
        hidden=("default_api",),
    ),
    # verl-project/verl#4757: a Hermes call inside the think block and again after it; the parser
    # counted two calls (verbatim, the tool `A` declared)
    "verl4757-hermes-call-in-think-and-after-runs-once": Case(
        (tool("A"),),
        "<think> \nthis is just my reasoning.. let me call tool A \n"
        '<tool_call>{"name": "A", "arguments": {}}</tool_call> \n'
        "it will give me result which i will in my analysis\n</think>\n"
        '<tool_call>{"name": "A", "arguments": {}}</tool_call>',
        calls=[("A", {})], hidden=("tool_call", "my reasoning"),
    ),
    # ---- reasoning and answer frames ----------------------------------------------------------------
    # sipeed/picoclaw#1235: `<think>internal reasoning</think><final>The answer is 2</final>`
    # (verbatim); OpenClaw's reasoning-tag prompts ask for the same `<final>` frame
    "picoclaw1235-think-then-final-frame": Case(
        (SEARCH,), "<think>internal reasoning</think><final>The answer is 2</final>",
        answer="The answer is 2", hidden=("<final>", "</final>", "internal reasoning"),
    ),
    # sipeed/picoclaw PR #1418: "Before fix ... Assistant: </think>The answer is 2" (verbatim)
    "picoclaw1418-stray-close-before-answer": Case(
        (SEARCH,), "</think>The answer is 2", answer="The answer is 2", hidden=("</think>",),
    ),
    # QwenLM/qwen-code#3228: minimaxi.com's MiniMax-M2.7 and M2.5 wrap their reasoning in
    # <thinking></thinking> (rebuilt)
    "qwencode3228-minimax-thinking-tags": Case(
        (SEARCH,),
        "<thinking>The user greets me. A short reply.</thinking>\n\nHello! How can I help you today?",
        answer="Hello! How can I help you today?", hidden=("thinking>", "short reply"),
    ),
    # DeliciousBuding/metapi-go PR #87 (#52): an orphan </think> is MiniMax's common shape, the text
    # before it reasoning (rebuilt)
    "metapigo87-minimax-orphan-think-close": Case(
        (SEARCH,),
        "The user said hi, we should respond warmly.</think>\n\nHi there! What can I do for you?",
        answer="Hi there! What can I do for you?", hidden=("</think>", "respond warmly"),
    ),
    # vllm-project/vllm PR #44310: ERNIE 4.5's answer `<response>hello</response>` (verbatim), its
    # reasoning taken apart by the server's reasoning parser (the reasoning rebuilt)
    "vllm44310-ernie45-response-frame-after-reasoning-apart": Case(
        (SEARCH,), "<response>hello</response>", reasoning="The user greets me; greet back.",
        answer="hello", hidden=("response>",),
    ),
}

GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md. openaiagents1196 (a "Tool call" label line above a call written
    # as code) was one for both strategies until the thirty-fifth pass (text_calls.without_call_label)
}

test_real_world_reply = reply_test(CASES, GAPS, read)


# ---- replies whose right outcome is that nothing runs, or that all of it shows --------------------


def _pieces(strategy: str, case: Case):
    for size in (None, 1, 7):
        yield read(strategy, case, size)


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_openworker112_a_think_tag_in_an_answers_code_is_shown(strategy):
    """andrewyng/openworker PR #112 keeps "a plain gpt-5.5 reply that mentions `<think>` in user
    code" as it is (rebuilt): the tags in code are the answer's text, shown whole."""
    text = "Wrap the model's reasoning like this:\n```xml\n<think>step by step</think>\n```"
    check_answer_shown_whole(strategy, text, (SEARCH,), reader=read)


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_sglang34577_an_atem_block_quoted_in_code_is_the_answers_text(strategy):
    """sgl-project/sglang PR #34577: a quoted ATEM block in a final answer "must stay content"
    (rebuilt, in a fence): nothing runs and the user sees it all."""
    text = ("Muse Glimmer writes its calls like this:\n```xml\n<atem:function_calls>\n"
            '<atem:invoke name="get_weather">\n<atem:parameter name="city">Paris</atem:parameter>\n'
            "</atem:invoke>\n</atem:function_calls>\n```")
    check_answer_shown_whole(strategy, text, (WEATHER,), reader=read)


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_sglang34577_an_atem_block_cut_inside_its_parameter_never_runs(strategy):
    """vllm-project/vllm#55395 and sgl-project/sglang PR #34577: a block cut before its closing
    tags (rebuilt, cut inside the value) is no call to run on what was read, and its markup is
    not shown."""
    case = Case((WEATHER,), '<atem:function_calls>\n<atem:invoke name="get_weather">\n<atem:parameter name="city">Par')
    for streamed, turn in _pieces(strategy, case):
        assert not isinstance(turn.decision, FinalAnswer), turn.decision
        if isinstance(turn.decision, ToolCalls):
            assert not turn.decision.calls
        assert "atem" not in streamed and "Par" not in streamed


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_a_headerless_atem_block_naming_no_node_tool_runs_nothing(strategy):
    """The headerless block is read only as the call it names: a name no node tool has runs
    nothing, and its markup is not shown (rebuilt)."""
    case = Case((WEATHER,), '<atem:function_calls>\n<atem:invoke name="delete_everything">\n'
                            '<atem:parameter name="path">/</atem:parameter>\n</atem:invoke>\n</atem:function_calls>')
    for streamed, turn in _pieces(strategy, case):
        assert not isinstance(turn.decision, FinalAnswer), turn.decision
        if isinstance(turn.decision, ToolCalls):
            assert "get_weather" not in [c.name for c in turn.decision.calls]
        assert "atem" not in streamed


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_vllm55395_an_atem_opener_cut_by_the_output_limit_is_never_the_answer(strategy, size):
    """vllm-project/vllm#55395: generation ended on `<atem:function_calls` without its `>` (the
    fragment verbatim; the answer before it rebuilt), the output limit reached. The fragment is
    never shown, and the cut reply is not the answer (a strict xfail until the thirty-fifth pass:
    ``call_markup.cut_opener``)."""
    text = "It is sunny in Paris today.\n<atem:function_calls"
    pieces = [text] if size is None else [text[i : i + size] for i in range(0, len(text), size)]
    chunks = iter([ModelChunk(text=piece) for piece in pieces] + [ModelChunk(finish_reason="length")])
    if strategy == "react":
        streamed, turn = drain(read_react_turn(chunks, ToolRegistry([WEATHER]), 1))
    else:
        streamed, turn = drain(read_function_calling_turn(chunks, ["get_weather"]))
    assert "atem" not in streamed
    assert not (isinstance(turn.decision, FinalAnswer) and "atem" in turn.decision.text)


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_vllm55395_a_glimmer_answer_cut_at_an_atem_opener_is_never_the_answer(strategy, size):
    """The same cut inside Glimmer's answer channel (its header before the text): the reply is
    asked again, nothing of it shown as the answer."""
    text = "<|start|>assistant to=user<|message|>It is sunny in Paris today.\n<atem:function_calls"
    pieces = [text] if size is None else [text[i : i + size] for i in range(0, len(text), size)]
    chunks = iter([ModelChunk(text=piece) for piece in pieces] + [ModelChunk(finish_reason="length")])
    if strategy == "react":
        streamed, turn = drain(read_react_turn(chunks, ToolRegistry([WEATHER]), 1))
    else:
        streamed, turn = drain(read_function_calling_turn(chunks, ["get_weather"]))
    assert "atem" not in streamed and "<|" not in streamed
    assert not isinstance(turn.decision, (FinalAnswer, ToolCalls)), turn.decision


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_sglang24995_a_valid_invoke_after_one_naming_no_tool_still_runs(strategy):
    """sgl-project/sglang PR #24995: "An invalid tool name dumped the entire buffer into normal
    text, silently swallowing any valid invoke that came after it" (rebuilt: a misspelt name, then
    the right one). The declared tool's call runs with its arguments and no markup is shown; the
    misspelt name runs no node tool (ReAct answers it as an unknown tool)."""
    case = Case((WEATHER,), '<minimax:tool_call>\n<invoke name="get_wether">\n<parameter name="city">Paris</parameter>\n'
                            '</invoke>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n</invoke>\n'
                            "</minimax:tool_call>")
    for streamed, turn in _pieces(strategy, case):
        assert isinstance(turn.decision, ToolCalls), turn.decision
        assert [(c.name, c.arguments) for c in turn.decision.calls if c.name == "get_weather"] == [
            ("get_weather", {"city": "Paris"})]
        assert "invoke" not in streamed and "minimax" not in streamed
