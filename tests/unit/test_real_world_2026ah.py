"""A thirty-third set of real-world cases: replies of the newest models (released or updated from
August to November 2026: GLM-5.2/5.3 through Ollama Cloud, Qwen3.5/3.6 on NPU and MLX servers,
Granite 4.2, Ministral 3 Reasoning, MiniMax-M3 through vLLM, Gemma 4 after a tool turn, Nemotron
through Dynamo, LFM through Rapid-MLX) that agent loops read wrong, as public issues and pull
requests of servers (vLLM, Dynamo and its parser crates, MLX servers, FastFlowLM, imp) and agent
frameworks and clients quote them: new reasoning delimiters or only their closing half, orphan
call closers, name-only calls, transcript-style call lines, two call dialects in one reply, a call
in a JSON fence, a ReAct Action Input in a fence, reasoning under ``reasoning`` that uses up the
whole budget.

Replies are read through both strategies' turn readers, whole and in pieces of 1 and 7 characters
(``test_real_world_2026.reply_test``); streams start as SSE text and go through the model plugin's
conversion (``test_real_world_2026ae.plugin_chunks``). Each case names its source beside it;
docs/real-world-cases.md lists them with what the user saw and expected. A text is quoted as the
report shows it; where the report shows a format or describes the output and its values were filled
in, the comment says "rebuilt". The tools are declared with string parameters.
"""

import pytest

from agent_core.turn import FinalAnswer, ToolCalls
from tests.unit.test_real_world_2026 import Case, reply_test, tool
from tests.unit.test_real_world_2026ae import ev, plugin_chunks, read_fc, read_react, sse
from tests.unit.test_real_world_2026d import read

WEATHER = tool("get_weather", "city")
LOCATION = tool("get_weather", "location")
SEARCH = tool("search", "query")

CASES = {
    # ---- orphan or name-only call markup (Dynamo's parser crates) ----------------------------------
    # ai-dynamo/dynamo PR #10115: nemotron_deci wrote the call array and the closer with no opening
    # <TOOLCALL>; the parser returned no tool_calls and the markup as content (the PR's input, verbatim)
    "dynamo10115-nemotron-deci-orphan-toolcall-close": Case(
        (LOCATION,),
        '[{"name": "get_weather", "arguments": {"location": "NYC"}}]</TOOLCALL>',
        calls=[("get_weather", {"location": "NYC"})], hidden=("TOOLCALL",),
    ),
    # ai-dynamo/frontend-crates PR #61: qwen25's name-only call shape `{"name":"f"}`, no arguments
    # key, inside the Hermes wrapper (rebuilt around a tool with no parameters)
    "frontendcrates61-qwen25-name-only-call": Case(
        (tool("get_time"),),
        '<tool_call>\n{"name": "get_time"}\n</tool_call>',
        calls=[("get_time", {})], hidden=("<tool_call>",),
    ),
    # the same PR: an orphan </tool_call> end marker with no opener, after the answer (rebuilt)
    "frontendcrates61-qwen25-orphan-tool-call-close-after-answer": Case(
        (SEARCH,), "The build is green on all three platforms.</tool_call>",
        answer="The build is green on all three platforms.", hidden=("</tool_call>",),
    ),
    # ---- call dialects in content -----------------------------------------------------------------
    # raullenchai/Rapid-MLX PR #1592: LFM imitated its own transcript line `[Calling tool:
    # name({args})]` (the call quoted from the bubble; its leading characters restored)
    "rapidmlx1592-lfm-calling-tool-transcript-line": Case(
        (tool("browse", "url"),),
        '[Calling tool: browse({"url": "https://www.iana.org/help/example-domains"})]',
        calls=[("browse", {"url": "https://www.iana.org/help/example-domains"})], hidden=("Calling tool",),
    ),
    # waybarrios/vllm-mlx PR #583: Qwen3.6 wrote a Hermes JSON call and then a Qwen3-Coder
    # `<function=...>` call in one reply; only the first was read, the second left in content (rebuilt
    # around the PR's convert_currency tool)
    "vllmmlx583-qwen36-json-call-then-function-call": Case(
        (WEATHER, tool("convert_currency", "amount", "from_currency", "to_currency")),
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n<tool_call>\n'
        "<function=convert_currency>\n<parameter=amount>100</parameter>\n<parameter=from_currency>USD</parameter>\n"
        "<parameter=to_currency>EUR</parameter>\n</function>\n</tool_call>",
        calls=[("get_weather", {"city": "Paris"}),
               ("convert_currency", {"amount": "100", "from_currency": "USD", "to_currency": "EUR"})],
        hidden=("<function", "<tool_call>"),
    ),
    # ai-dynamo/dynamo PR #10144: GLM-4.7's "bare" call, the function name straight before
    # <arg_key> with no <tool_call> (rebuilt from the review's get_weather example)
    "dynamo10144-glm47-bare-call-without-open": Case(
        (LOCATION,),
        "get_weather<arg_key>location</arg_key><arg_value>Paris</arg_value></tool_call>",
        calls=[("get_weather", {"location": "Paris"})], hidden=("arg_key",),
    ),
    # vllm-project/vllm PR #55957: Granite 4.2 (Nemotron V3's wire format) closes its reasoning with
    # `\n</think>\n` and calls in Qwen3-Coder XML; a server without the parser passes both on (rebuilt)
    "vllm55957-granite42-reasoning-then-xml-call": Case(
        (WEATHER,),
        "<think>\nThe user wants the weather in Paris; get_weather takes a city.\n</think>\n"
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
        calls=[("get_weather", {"city": "Paris"})], hidden=("</think>", "takes a city"),
    ),
    # Zoo-Code-Org/Zoo-Code PR #1188: its probe found every genuine call a model emitted through the
    # VS Code LM API wrapped in <function_calls> (rebuilt with a weather invoke)
    "zoocode1188-function-calls-wrapped-invoke": Case(
        (WEATHER,),
        '<function_calls>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n</invoke>\n'
        "</function_calls>",
        calls=[("get_weather", {"city": "Paris"})], hidden=("<invoke", "function_calls"),
    ),
    # ardanlabs/kronk PR #950: Qwen2.5-Coder sometimes writes its call as a JSON fence instead of
    # <tool_call> tags (the fence's body verbatim); the declared tool's name makes it the call
    "kronk950-qwen25-coder-call-in-json-fence": Case(
        (LOCATION,),
        '```json\n{"name":"get_weather","arguments":{"location":"Paris"}}\n```',
        calls=[("get_weather", {"location": "Paris"})], hidden=('"arguments"',),
    ),
    # agents-flex/agents-flex PR #64 (#61): a ReAct Action Input wrapped in a ```json fence
    # (rebuilt around a search tool)
    "agentsflex64-react-action-input-in-json-fence": Case(
        (SEARCH,),
        'Thought: I should look this up.\nAction: search\nAction Input: ```json\n{"query": "dify 1.12 release date"}\n```',
        calls=[("search", {"query": "dify 1.12 release date"})], only=("react",),
    ),
    # ---- reasoning delimiters ---------------------------------------------------------------------
    # vllm-project/vllm#45687 (PR #45718, #46042): MiniMax-M3's reasoning parser sent the
    # <mm:think> block in content while streaming (rebuilt)
    "vllm45687-minimax-m3-mm-think-block-in-content": Case(
        (SEARCH,),
        "<mm:think>The user says hi. A short greeting back is enough.</mm:think>Hi! How can I help?",
        answer="Hi! How can I help?", hidden=("mm:think", "greeting back"),
    ),
    # vllm-project/vllm PR #50594: with thinking on, the M3 prompt opens the block, so the generated
    # text holds the reasoning and only </mm:think> (rebuilt)
    "vllm50594-minimax-m3-prompt-opened-reasoning-bare-close": Case(
        (SEARCH,),
        "The user asks for the capital of Japan. Tokyo.</mm:think>\n\nThe capital of Japan is Tokyo.",
        answer="The capital of Japan is Tokyo.", hidden=("mm:think", "asks for the capital"),
    ),
    # waybarrios/vllm-mlx PR #599: Ministral-3-3B-Reasoning wraps its reasoning in [THINK]...[/THINK]
    # (the PR's reasoning opening and the answer `391`; the rest of the reasoning rebuilt)
    "vllmmlx599-ministral3-think-brackets": Case(
        (SEARCH,),
        "[THINK]Okay, I need to calculate 17×23. 17×20 = 340 and 17×3 = 51, so 391.[/THINK]391",
        answer="391", hidden=("[THINK]", "calculate 17"),
    ),
    # vllm-project/vllm PR #44552: Seed-OSS starts in reasoning, so a stream may omit <seed:think>
    # and hold only the closer (rebuilt)
    "vllm44552-seed-oss-reasoning-without-open": Case(
        (SEARCH,),
        "The user wants a one-word answer about the sky's colour.</seed:think>Blue.",
        answer="Blue.", hidden=("seed:think", "one-word"),
    ),
    # jundot/omlx PR #2533: after a tool turn Gemma 4's template opens <|channel>thought in the
    # prompt; the reply is the thought body, <channel|> and the answer (rebuilt)
    "omlx2533-gemma4-prompt-opened-thought-then-answer": Case(
        (WEATHER,),
        "The tool returned 18 °C and light rain for Paris. Summarise it in one line.<channel|>"
        "Paris: 18 °C with light rain.",
        answer="Paris: 18 °C with light rain.", hidden=("channel", "Summarise it"),
    ),
    # ROCm/FastFlowLM#739: qwen3.5's non-streaming path put the think block in content (the opening
    # `<think>\nThinking Process:\n\n1.  **Ana` quoted; the rest and the answer rebuilt from the
    # report's 5 + 6 prompt)
    "fastflowlm739-qwen35-think-block-in-content": Case(
        (SEARCH,),
        "<think>\nThinking Process:\n\n1.  **Analyze the request:** 5 plus 6, briefly.\n2.  **Compute:** 11.\n"
        "</think>\n\n5 plus 6 is 11.",
        answer="5 plus 6 is 11.", hidden=("<think>", "Thinking Process"),
    ),
    # kekzl/imp PR #793: Qwen3.6 re-deliberated after its first block; the second pass leaked into
    # content while streaming (rebuilt)
    "imp793-qwen36-second-think-block-after-the-first": Case(
        (SEARCH,),
        "<think>\nThe route is 42 km.\n</think>\n\n<think>\nWait, the question asks in miles: about 26.\n</think>\n\n"
        "The route is about 26 miles (42 km).",
        answer="The route is about 26 miles (42 km).", hidden=("<think>", "Wait, the question"),
    ),
    # ai-dynamo/dynamo PR #14991 / vLLM's reasoning parsers: a model that writes no <think> but the
    # closer after its reasoning, with a tool call after it (rebuilt)
    "dynamo14991-bare-close-then-hermes-call": Case(
        (WEATHER,),
        "The user wants Paris's weather; I will call the tool.\n</think>\n\n"
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
        calls=[("get_weather", {"city": "Paris"})], hidden=("</think>", "I will call"),
    ),
}

GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md
}

test_real_world_reply = reply_test(CASES, GAPS, read)


# ---- replies whose right outcome is that nothing runs and no markup shows ---------------------------


def _pieces(strategy: str, case: Case):
    for size in (None, 1, 7):
        yield read(strategy, case, size)


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_dynamo10115_toolcall_wrapper_around_no_json_runs_nothing_and_shows_no_markup(strategy):
    """ai-dynamo/dynamo PR #10115: `<TOOLCALL>not a json array</TOOLCALL>` (verbatim) "leaked the
    raw" text. No call can be read from it: nothing runs, neither the wrapper nor its body is
    shown, and the model is asked again."""
    case = Case((LOCATION,), "<TOOLCALL>not a json array</TOOLCALL>")
    for streamed, turn in _pieces(strategy, case):
        assert not isinstance(turn.decision, FinalAnswer), turn.decision
        if isinstance(turn.decision, ToolCalls):
            assert not turn.decision.calls
        assert "TOOLCALL" not in streamed and "json array" not in streamed


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_dynamo10115_toolcall_cut_inside_its_arguments_never_runs(strategy):
    """ai-dynamo/dynamo PR #10115: the truncated `<TOOLCALL>[{"name":...{"loc` (rebuilt with the
    PR's weather call): the call is cut inside its arguments, so it never runs on what was read,
    and its markup is not shown."""
    case = Case((LOCATION,), '<TOOLCALL>[{"name": "get_weather", "arguments": {"loc')
    for streamed, turn in _pieces(strategy, case):
        assert not isinstance(turn.decision, FinalAnswer), turn.decision
        if isinstance(turn.decision, ToolCalls):
            assert not turn.decision.calls
        assert "TOOLCALL" not in streamed and "get_weather" not in streamed


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_vllmmlx583_qwen36_coder_call_cut_at_max_tokens_never_runs(strategy):
    """waybarrios/vllm-mlx PR #583: generation hit max_tokens inside a Qwen3.6 call and
    `<tool_call>\\n<function=...` was left in content (rebuilt, cut inside the second value). The
    call lost its last arguments: it never runs, and none of it is shown."""
    case = Case(
        (tool("convert_currency", "amount", "from_currency", "to_currency"),),
        "<tool_call>\n<function=convert_currency>\n<parameter=amount>100</parameter>\n<parameter=from_currency>US",
    )
    for streamed, turn in _pieces(strategy, case):
        assert not isinstance(turn.decision, FinalAnswer), turn.decision
        if isinstance(turn.decision, ToolCalls):
            assert "convert_currency" not in [c.name for c in turn.decision.calls]
        assert "<function" not in streamed and "convert_currency" not in streamed


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_fastflowlm739_thought_cut_mid_block_is_never_the_answer(strategy):
    """ROCm/FastFlowLM#739: "When generation is truncated mid-thought, the partial thought becomes
    the entire answer" (the quoted opening, cut where the report cuts it). The reasoning is kept
    for the model, never shown as the answer."""
    case = Case((SEARCH,), "<think>\nThinking Process:\n\n1.  **Ana")
    for streamed, turn in _pieces(strategy, case):
        assert "Thinking Process" not in streamed and "<think>" not in streamed
        assert not (isinstance(turn.decision, FinalAnswer) and "Thinking Process" in turn.decision.text)
        assert "Thinking Process" in turn.reasoning


# ---- streams through the model plugin -------------------------------------------------------------

STREAMS = {
    # leookun/cursor-byok PR #363: Ollama Cloud's glm-5.2 streams its thinking as `delta.reasoning`,
    # never `reasoning_content` (the field as the PR describes it; the texts rebuilt)
    "cursorbyok363-ollama-cloud-glm52-reasoning-field": (
        sse(
            ev(role="assistant", content="", reasoning="The user asks for 15% of 80."),
            ev(content="", reasoning=" That is 12."),
            ev(content="15% of 80 is 12."),
            ev("stop", content=""),
        ),
        "15% of 80 is 12.", "15% of 80.",
    ),
    # QwenLM/qwen-code PR #6033: DashScope's glm-5.2 streamed a stray </think> in the visible content
    # beside empty `reasoning_content` / `reasoning` deltas (the shape as described; texts rebuilt)
    "qwencode6033-dashscope-glm52-stray-close-in-content": (
        sse(
            ev(role="assistant", content="", reasoning_content="", reasoning=""),
            ev(content="</think>", reasoning_content="", reasoning=""),
            ev(content="\n\nAll checks passed."),
            ev("stop", content=""),
        ),
        "All checks passed.", "</think>",
    ),
    # infiniflow/ragflow PR #14817: Upstage's solar-pro3 with reasoning_effort high returns a
    # `reasoning` field beside the answer (the PR's texts, verbatim, as a stream)
    "ragflow14817-upstage-solar-pro3-reasoning-field": (
        sse(
            ev(role="assistant", content="", reasoning="We need to answer: \"What is 15% of 80?\" Provide answer in "
               "one short sentence. So answer: \"15% of 80 is 12.\" That's a short sentence."),
            ev(content="15% of 80 equals 12."),
            ev("stop", content=""),
        ),
        "15% of 80 equals 12.", "short sentence",
    ),
}


@pytest.mark.parametrize("strategy", ["react", "fc"])
@pytest.mark.parametrize("name", list(STREAMS))
def test_real_world_stream_through_the_plugin(name, strategy):
    body, answer, hidden = STREAMS[name]
    streamed, turn = (read_react if strategy == "react" else read_fc)(plugin_chunks(body), ["search"])
    assert turn.decision == FinalAnswer(answer)
    assert streamed.strip() == answer
    assert hidden not in streamed
    if hidden != "</think>":
        assert hidden in turn.reasoning


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_stcli60_glm53_flash_reasoning_uses_the_whole_budget_is_no_answer(strategy):
    """its-a-unixsystem/STcli#60: glm-5.3-flash with a small max_tokens spent the budget on
    `delta.reasoning` and wrote no content (rebuilt stream, finish `length`). The reasoning is kept
    for the model and never shown as the answer; there is no answer to show."""
    body = sse(
        ev(role="assistant", content="", reasoning="Let me think about the smoke test. The user wants"),
        ev(content="", reasoning=" a one-line status, so I should"),
        ev("length", content=""),
    )
    streamed, turn = (read_react if strategy == "react" else read_fc)(plugin_chunks(body), ["search"])
    assert "smoke test" not in streamed
    assert not (isinstance(turn.decision, FinalAnswer) and "smoke test" in turn.decision.text)
    assert "smoke test" in turn.reasoning


# ---- the limits of the fixes ------------------------------------------------------------------------


_CLOSES_AS_TEXT = (
    "Close the block with `</tool_call>` after the JSON.",  # in a code span
    "The closing tag:\n```xml\n</tool_call>\n```",  # in a fenced block
)


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize(("strategy", "text"), [
    *((strategy, text) for strategy in ("react", "fc") for text in _CLOSES_AS_TEXT),
    # right after a quote (ReAct drops a bare </tool_call> wherever it stands outside code, as before)
    ("fc", 'The tag is written "</tool_call>" in the template.'),
])
def test_a_tool_call_close_in_code_or_a_string_is_the_answers_text(strategy, text, size):
    """An orphan ``</tool_call>`` is dropped only where it is markup: in code, or (Function
    Calling) after a quote, it is the answer's own text and is shown."""
    content = text if strategy == "fc" else f"Thought: explain.\nFinal Answer: {text}"
    streamed, turn = read(strategy, Case((SEARCH,), content), size)
    assert turn.decision == FinalAnswer(text)
    assert streamed.strip() == text


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_a_hermes_call_closed_by_its_own_tag_still_runs(strategy, size):
    """The ``</tool_call>`` of a ``<tool_call>`` the model opened is the block's, not an orphan."""
    case = Case((WEATHER,), 'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>')
    streamed, turn = read(strategy, case, size)
    assert isinstance(turn.decision, ToolCalls), turn.decision
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [("get_weather", {"city": "Paris"})]
    assert "tool_call" not in streamed


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("text", [
    "Hello! How can I help?<channel|>",  # the answer's end (llama.cpp's Gemma 4 test has one)
    "Hello! How can I help?<channel|>\n\n  ",  # whitespace after it
    "Hello! How can I help?<channel|>" + " " * 80 + "\n",  # more whitespace than is waited through
])
@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_gemma4_channel_end_with_nothing_after_it_keeps_the_answer(strategy, text, size):
    """A ``<channel|>`` with only whitespace after it ends the answer, not a thought: the text
    before it is the answer, shown, the tag never."""
    streamed, turn = read(strategy, Case((SEARCH,), text), size)
    assert turn.decision == FinalAnswer("Hello! How can I help?")
    assert streamed.strip() == "Hello! How can I help?"


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_gemma4_channel_end_after_a_closed_thought_says_nothing_of_the_answer(strategy, size):
    """After a thought channel the reply opened and closed, a later ``<channel|>`` ends no
    thought: the answer before it stays the answer, the text after it is shown too."""
    text = "<|channel>thought\nShort question.<channel|>The answer is 4.<channel|> Anything else?"
    streamed, turn = read(strategy, Case((SEARCH,), text), size)
    assert turn.decision == FinalAnswer("The answer is 4. Anything else?")
    assert "Short question" not in streamed and "channel" not in streamed


@pytest.mark.parametrize("size", [None, 1, 7])
def test_gemma4_prompt_opened_thought_through_the_splitter(size):
    """``ThinkSplitter`` as ReAct reads it (``pieces``): the text after a first ``<channel|>``
    is preceded by a stray end, so the text before it is reasoning; with nothing after it, no
    stray end is said."""
    from agent_core.think import STRAY_END, ThinkSplitter, visible_text

    def kinds(text: str) -> list[str]:
        splitter = ThinkSplitter()
        pieces = [text] if size is None else [text[i : i + size] for i in range(0, len(text), size)]
        out = [kind for piece in pieces for kind, _ in splitter.pieces(piece)]
        return out + [kind for kind, _ in splitter.release_pieces(ended=True)]

    assert STRAY_END in kinds("Summarise it.<channel|>Paris: 18 °C.")
    assert STRAY_END not in kinds("Paris: 18 °C.<channel|>")
    assert STRAY_END not in kinds("Paris: 18 °C.<channel|>  \n")
    assert visible_text("Summarise it.<channel|>Paris: 18 °C.") == "Paris: 18 °C."
    assert visible_text("Paris: 18 °C.<channel|>") == "Paris: 18 °C."
