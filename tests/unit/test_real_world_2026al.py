"""A thirty-seventh set of real-world cases, about the clean answer: what the user (and the
conversation memory) sees must be the answer only. Public issues and pull requests of servers
(Ollama, LM Studio's and MLX servers, kekzl/imp, lmdeploy), of agent frameworks and of chat
clients quote replies where special tokens (Llama 4's ``<|eot_id|>`` and the turn it invented,
Phi's ``<|end|><|endoftext|>``, Megrez's ``<|turn_end|>``, Harmony's channel markup), reasoning
(an opening tag the server ate, Kimi's and MiniMax's bare closers, Magistral's ``[THINK]``,
``<thinking>``) leaked into the answer, or where a client's stripping lost the answer's own text
(a ``<think>`` in a code span or block, text before a second ``</think>``, another family's tags
written in the answer).

Replies are read through both strategies' turn readers, whole and in pieces of 1 and 7 characters
(``test_real_world_2026.reply_test``); streams start as SSE text and go through the model plugin's
conversion (``test_real_world_2026ae.plugin_chunks``). Each case names its source beside it;
docs/real-world-cases.md lists them. A text is quoted as the report shows it (trimmed where the
comment says so); where the report describes the output and its values were filled in, the
comment says "rebuilt". The tools are declared with string parameters.
"""

import pytest

from agent_core.turn import FinalAnswer, ToolCalls
from tests.unit.test_real_world_2026 import Case, check_answer_shown_whole, reply_test, tool
from tests.unit.test_real_world_2026ae import ev, fn, plugin_chunks, read_fc, read_react, sse, tc
from tests.unit.test_real_world_2026d import read

SEARCH = tool("search", "query")

CASES = {
    # ---- special tokens and invented turns ---------------------------------------------------------
    # langchain-ai/langchain-aws#483: Llama 4 Scout on Bedrock wrote <|eot_id|>, header tokens and
    # an invented next turn after its answer (the report's output, trimmed after the first keyword)
    "langchainaws483-llama4-eot-id-then-invented-turn": Case(
        (SEARCH,),
        "Олександр Васильченко дата народження вік власник заводу Фрунзе Україна<|eot_id|><|start_header_id|>user"
        "<|header_end|><|header_start|>assistant<|header_end|>\n\nAlternative search keywords:\n"
        "1. Олександр Васильченко біографія",
        answer="Олександр Васильченко дата народження вік власник заводу Фрунзе Україна",
        hidden=("<|eot_id|>", "header_end", "Alternative search keywords"),
    ),
    # Vali-98/ChatterUI#66: every reply ended in `<|end|><|endoftext|>` (the tokens verbatim; the
    # answer rebuilt)
    "chatterui66-phi-end-and-endoftext": Case(
        (SEARCH,), "Sure! Water boils at 100 °C at sea level.<|end|><|endoftext|>",
        answer="Sure! Water boils at 100 °C at sea level.", hidden=("<|end|>", "endoftext"),
    ),
    # infinigence/Infini-Megrez#2: every result ended in '<|turn_end|>' (the token verbatim; the
    # answer rebuilt)
    "megrez2-turn-end-token": Case(
        (SEARCH,), "The picture shows a red bicycle leaning on a wall.<|turn_end|>",
        answer="The picture shows a red bicycle leaning on a wall.", hidden=("turn_end",),
    ),
    # kekzl/imp PR #768: gpt-oss's Harmony markup leaked verbatim into content (the PR's shape, the
    # texts rebuilt)
    "imp768-gpt-oss-harmony-markup-in-content": Case(
        (SEARCH,),
        "<|channel|>analysis<|message|>The user asks for 2+2. Simple.<|end|><|start|>assistant<|channel|>final"
        "<|message|>2 + 2 = 4.",
        answer="2 + 2 = 4.", hidden=("<|channel|>", "<|message|>", "Simple."),
    ),
    # InternLM/lmdeploy#3954: gpt-oss's analysis channel mixed into the streamed answer, ended by
    # <|return|> (rebuilt)
    "lmdeploy3954-gpt-oss-analysis-then-final-and-return": Case(
        (SEARCH,),
        "<|channel|>analysis<|message|>User says hello. Greet back.<|end|><|start|>assistant<|channel|>final"
        "<|message|>Hello! How can I help you today?<|return|>",
        answer="Hello! How can I help you today?", hidden=("<|return|>", "Greet back"),
    ),
    # ---- reasoning in the content --------------------------------------------------------------------
    # cubist38/mlx-openai-server#179: MiniMax M2.1's raw response, its opening <think> missing
    # (verbatim)
    "mlxopenaiserver179-minimax-m21-opening-think-missing": Case(
        (SEARCH,),
        "The user has sent a simple greeting \"hi\". I should respond concisely with a greeting and offer to help. "
        "This is a conversational message, not a task request.\n</think>\nHi! How can I help you today?",
        answer="Hi! How can I help you today?", hidden=("</think>", "simple greeting"),
    ),
    # NousResearch/hermes-agent PR #4286 (#4285): Kimi K2.5 on Alibaba's endpoint wrote its reasoning
    # and a closing </think> with no opening (the PR's test input, verbatim)
    "hermesagent4286-kimi-k25-orphan-think-close": Case(
        (SEARCH,), "some reasoning</think>actual answer",
        answer="actual answer", hidden=("</think>", "some reasoning"),
    ),
    # skalesapp/skales#166: a server started Kimi inside its reasoning and sent only the closing
    # tag, so the thoughts bled into the answer (rebuilt)
    "skales166-kimi-reasoning-closed-only": Case(
        (SEARCH,),
        "The user wants a haiku about rain. Five, seven, five syllables.</think>\n\n"
        "Soft rain on the roof\nwhispers to the sleeping town\npuddles hold the sky",
        answer="Soft rain on the roof\nwhispers to the sleeping town\npuddles hold the sky",
        hidden=("</think>", "syllables"),
    ),
    # lmstudio-ai/lmstudio-bug-tracker#1495: GLM 4.7 Flash through LM Studio's API wrote only the
    # closing </think>, so clients could not tell its reasoning from the answer (rebuilt)
    "lmstudio1495-glm47-flash-opening-think-missing": Case(
        (SEARCH,),
        "The user asks what 17 squared is. 17 x 17 = 289.\n</think>\n17 squared is 289.",
        answer="17 squared is 289.", hidden=("</think>", "17 x 17"),
    ),
    # MiniMax-AI/MiniMax-M2#18: M2's OpenAI-compatible content holds its thinking (rebuilt)
    "minimaxm2-18-think-block-in-content": Case(
        (SEARCH,),
        "<think>\nThe user asks for the capital of Australia. It is Canberra, not Sydney.\n</think>\n\n"
        "The capital of Australia is Canberra.",
        answer="The capital of Australia is Canberra.", hidden=("<think>", "not Sydney"),
    ),
    # ollama/ollama#11064: Magistral ignored /set nothink and wrote a <think> block (its opening
    # verbatim; the report cuts it, the close and the answer rebuilt)
    "ollama11064-magistral-nothink-still-thinks": Case(
        (SEARCH,),
        "<think>\nOkay, I need to figure out what the current date is. But wait, I'm a text-based AI model, and my "
        "knowledge cutoff\nis 2023.\n</think>\n\nI can't see today's date; please check your device's clock.",
        answer="I can't see today's date; please check your device's clock.",
        hidden=("<think>", "knowledge cutoff"),
    ),
    # ggml-org/llama.cpp#16158: Magistral Small 2509's [THINK]...[/THINK] was not read as reasoning
    # (rebuilt)
    "llamacpp16158-magistral-think-brackets": Case(
        (SEARCH,),
        "[THINK]The user says hello in French. Answer in French.[/THINK]Bonjour ! Comment puis-je vous aider ?",
        answer="Bonjour ! Comment puis-je vous aider ?", hidden=("[THINK]", "in French"),
    ),
    # spring-ai-alibaba/DataAgent PR #488 (#486): think tags ended up in the extracted SQL; the
    # answer is the fenced query after the block (rebuilt)
    "dataagent488-think-block-before-sql-fence": Case(
        (SEARCH,),
        "<think>\nThe user wants users older than 30.\n</think>\n```sql\nSELECT name FROM users WHERE age > 30;\n```",
        answer="```sql\nSELECT name FROM users WHERE age > 30;\n```", hidden=("<think>", "older than 30"),
    ),
    # deepseek-ai/DeepSeek-LLM#100: a stray `</thinking>` at the end of an answer (the tag
    # verbatim; the answer rebuilt)
    "deepseekllm100-trailing-thinking-close": Case(
        (SEARCH,), "Paris has about 2.1 million inhabitants.</thinking>",
        answer="Paris has about 2.1 million inhabitants.", hidden=("</thinking>",),
    ),
    # aula-id/koma PR #63: on a tool-call continuation the reasoning came in the reasoning field and
    # a bare orphan </think> led the content (rebuilt)
    "koma63-orphan-close-after-reasoning-field": Case(
        (SEARCH,), "</think>\n\nThe build passed on all three runners.",
        reasoning="The tool says the CI run is green. Report it.",
        answer="The build passed on all three runners.", hidden=("</think>", "Report it"),
    ),
    # ---- over-stripping: the answer's own text stays -------------------------------------------------
    # nanobrowser/nanobrowser PR #333 (#330): `<think>reason</think>Here is answer</think>done`
    # (verbatim): a client's second strip wiped "Here is answer"; the stray tag is dropped, the
    # text kept
    "nanobrowser333-stray-close-after-a-closed-block": Case(
        (SEARCH,), "<think>reason</think>Here is answer</think>done",
        answer="Here is answerdone", hidden=("</think>",),
    ),
    # larksuite/openclaw-lark#488: a literal `<think>` in inline code was read as an unclosed block
    # and everything after it was stripped (rebuilt)
    "openclawlark488-think-in-inline-code": Case(
        (SEARCH,),
        "Reasoning models wrap their chain of thought in `<think>` tags; strip everything from `<think>` up to "
        "the closing tag before you show the reply.",
        answer="Reasoning models wrap their chain of thought in `<think>` tags; strip everything from `<think>` "
        "up to the closing tag before you show the reply.",
    ),
    # OpenCoworkAI/open-cowork#285: a code sample holding <think>…</think> lost its inner text
    # (rebuilt around a fenced sample)
    "opencowork285-think-pair-in-a-code-sample": Case(
        (SEARCH,),
        "Ollama models wrap reasoning like this:\n```text\n<think>\nI should check the units first.\n</think>\n"
        "The answer is 12 m.\n```",
        answer="Ollama models wrap reasoning like this:\n```text\n<think>\nI should check the units first.\n"
        "</think>\nThe answer is 12 m.\n```",
    ),
    # open-webui/open-webui PR #11708: a <think> anywhere in the output, code blocks included, was
    # rendered as reasoning (rebuilt)
    "openwebui11708-think-regex-in-code-block": Case(
        (SEARCH,),
        "Here is the filter:\n```python\ntext = re.sub(r'<think>.*?</think>', '', text, flags=re.S)\n```\n"
        "It removes the reasoning block.",
        answer="Here is the filter:\n```python\ntext = re.sub(r'<think>.*?</think>', '', text, flags=re.S)\n```\n"
        "It removes the reasoning block.",
    ),
    # isaiah-harville/Primer#109: "Pairs never cross": a model writing about another family's tags
    # must not end or start a thought (rebuilt: Mistral's tags named in a <think> reply)
    "primer109-another-familys-tags-in-the-answer": Case(
        (SEARCH,),
        "<think>The user asks how Mistral marks reasoning. Explain briefly.</think>"
        "Mistral models wrap their reasoning in [THINK] and [/THINK].",
        answer="Mistral models wrap their reasoning in [THINK] and [/THINK].", hidden=("Explain briefly",),
    ),
}

GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md
}

test_real_world_reply = reply_test(CASES, GAPS, read)


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_nanobrowser333_text_before_a_second_close_is_never_reasoning(strategy):
    """nanobrowser/nanobrowser PR #333: after the reply closed a block of its own, a later stray
    ``</think>`` says nothing of the text before it (no template opened a block): that text is
    the answer's, shown and kept, in pieces too; only the first block is reasoning."""
    for size in (None, 1, 7):
        streamed, turn = read(strategy, Case((SEARCH,), "<think>plan</think>Step one done.\n</think>\nStep two done."), size)
        assert "Step one done." in streamed and "Step two done." in streamed
        assert isinstance(turn.decision, FinalAnswer) and "Step one done." in turn.decision.text
        assert "plan" in turn.reasoning and "Step one" not in turn.reasoning


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_a_closing_tag_right_after_its_block_is_still_the_block_closed_again(strategy):
    """The fix's limit: a second ``</think>`` right after the block (only whitespace between) is
    the block closed twice; the answer after it is shown, nothing of the reasoning."""
    for size in (None, 1, 7):
        streamed, turn = read(strategy, Case((SEARCH,), "<think>plan</think>\n</think>\nThe answer is 4."), size)
        assert turn.decision == FinalAnswer("The answer is 4.")
        assert streamed.strip() == "The answer is 4."


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_primer109_another_familys_block_opening_a_line_is_still_reasoning(strategy, size):
    """The fix's limit (isaiah-harville/Primer#109): another family's tag within a line after a
    closed block is the answer's text; opening a line it still opens its block, kept out of the
    answer."""
    text = "<think>First pass.</think>Draft answer.\n[THINK]Second pass on the units.[/THINK]\nThe answer is 12 m."
    streamed, turn = read(strategy, Case((SEARCH,), text), size)
    assert "Second pass" not in streamed and "[THINK]" not in streamed
    assert "Second pass" in turn.reasoning
    assert isinstance(turn.decision, FinalAnswer) and "The answer is 12 m." in turn.decision.text


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_primer109_the_same_familys_block_mid_line_is_still_reasoning(strategy, size):
    """Only pairs of another family cross: a second ``<think>`` block after answer text on the
    same line is reasoning, as before (kekzl/imp PR #793's re-deliberation, written inline)."""
    text = "<think>The route is 42 km.</think>About 42 km. <think>Wait, in miles: 26.</think>About 26 miles."
    streamed, turn = read(strategy, Case((SEARCH,), text), size)
    assert "Wait, in miles" not in streamed and "<think>" not in streamed
    assert "About 26 miles." in streamed and "Wait, in miles" in turn.reasoning


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_megrez_turn_end_written_as_code_is_the_answers_text(strategy):
    """infinigence/Infini-Megrez#2's token is dropped only where it ends the turn: in code the
    answer shows, it is text."""
    check_answer_shown_whole(strategy, "Megrez ends a turn with `<|turn_end|>`.", (SEARCH,))


# ---- streams through the model plugin -------------------------------------------------------------

STREAMS = {
    # aula-id/koma PR #63: reasoning in `reasoning_content`, then a content that opens with a bare
    # </think> (rebuilt)
    "koma63-reasoning-field-then-orphan-close": (
        sse(
            ev(role="assistant", content="", reasoning_content="The tool says the CI run is green."),
            ev(content="</think>"),
            ev(content="\n\nThe build passed."),
            ev("stop", content=""),
        ),
        "The build passed.", "</think>",
    ),
    # kekzl/imp PR #768: streaming gpt-oss, Harmony markers arrive as their own pieces in content
    # (rebuilt)
    "imp768-gpt-oss-harmony-markers-streamed-in-content": (
        sse(
            ev(role="assistant", content="<|channel|>analysis<|message|>"),
            ev(content="User says hello. Greet back."),
            ev(content="<|end|><|start|>assistant<|channel|>final<|message|>"),
            ev(content="Hello! How can I help?"),
            ev("stop", content=""),
        ),
        "Hello! How can I help?", "Greet back",
    ),
    # langchain-ai/langchain-aws#483 as a stream: the answer, then <|eot_id|> and the invented turn
    # in one delta (rebuilt)
    "langchainaws483-llama4-eot-id-streamed": (
        sse(
            ev(role="assistant", content="Kyiv is the capital of Ukraine."),
            ev(content="<|eot_id|><|start_header_id|>user<|header_end|>"),
            ev(content="<|header_start|>assistant<|header_end|>\n\nAlternative answer: Kiev."),
            ev("stop", content=""),
        ),
        "Kyiv is the capital of Ukraine.", "Alternative answer",
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


def test_vllmmlx161_nemotron_think_block_in_content_beside_a_native_call():
    """waybarrios/vllm-mlx#161: Nemotron 3 Super's reply held its ``<think>`` block in ``content``
    (the report's actual content, verbatim) beside a native ``get_weather`` call. The call runs
    with its arguments; none of the reasoning is shown, and it is kept for the model."""
    body = sse(
        ev(role="assistant", content="<think>The user is asking for the current weather in Paris. "
           "I have access to the get_weather function...</think>"),
        ev(content="", tool_calls=[tc(index=0, id="call_1", type="function",
                                      function=fn(name="get_weather", arguments='{"city": "Paris"}'))]),
        ev("tool_calls", content=""),
    )
    streamed, turn = read_fc(plugin_chunks(body), ["get_weather"])
    assert isinstance(turn.decision, ToolCalls) and not turn.decision.invalid
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [("get_weather", {"city": "Paris"})]
    assert "<think>" not in streamed and "asking for the current weather" not in streamed
    assert "asking for the current weather" in turn.reasoning
