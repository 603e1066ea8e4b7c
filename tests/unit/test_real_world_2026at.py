"""A forty-fifth set of real-world cases, the second about the clean answer: what the user (and the
conversation memory) sees must be the answer only, and all of it. Public issues and pull requests of
chat clients (Cherry Studio, Open WebUI-style apps, Sidekick, Newelle, moltis, Ollama-SwiftUI,
Gradio.Net), servers (Ollama, vLLM, SGLang, llama.cpp's Python bindings), agent frameworks and Dify
itself quote replies where a family's end-of-turn token was shown (Gemma 3's ``</end_of_turn>``
written with a slash, Gemma 2's ``</start_of_turn>``, Qwen's ``<|im_end|>`` with an invented next
turn after it, DeepSeek's full-width ``<｜end▁of▁sentence｜>``), where reasoning of any family reached
the answer (``<think>`` with only its closing tag, an empty ``<think>`` block from a thinking switch
turned off, ``<thinking>``, ``<reasoning>``, Gemma 4's ``<thought>`` inside ``<think>`` and its
empty ``<|channel>thought`` block, Kimi-VL's ``◁think▷`` before an ``<answer>`` frame, gpt-oss's
Harmony channels), where the model wrote on into a next turn it invented (``### Human:``,
``User:`` / ``Assistant:``), and where a client's stripping lost the answer's own text (text before
a ``<think>`` block, a ``</think>`` in code the answer shows, a JSON object or an outer fence the
model chose to answer in).

Replies are read through both strategies' turn readers, whole and in pieces of 1 and 7 characters
(``test_real_world_2026.reply_test``); streams start as SSE text and go through the model plugin's
conversion (``test_real_world_2026ae.plugin_chunks``). Each case names its source beside it;
docs/real-world-cases.md lists them. A text is quoted as the report shows it (trimmed where the
comment says so); where the report describes the output and its values were filled in, the
comment says "rebuilt". The tools are declared with string parameters.
"""

import pytest

from agent_core.turn import FinalAnswer
from tests.unit.test_real_world_2026 import Case, check_answer_shown_whole, reply_test, tool
from tests.unit.test_real_world_2026ae import ev, plugin_chunks, read_fc, read_react, sse
from tests.unit.test_real_world_2026d import read

SEARCH = tool("search", "query")

# feiyun0112/Gradio.Net#14: the DeepSeek-R1 reply the report quotes (its reasoning trimmed to the
# first and last paragraphs; the answer verbatim)
GRADIO14_REASONING = (
    "嗯，今天老师布置了一个问题，让我有点困惑。问题是问1加1等于多少，看起来简单，但作为一个刚开始学习数学的学生，我还是不太确定。\n\n"
    "综上所述，我暂时认为老师的问题可能只是简单的加法问题，即1加1等于2。如果老师有其他更复杂的问题，我可能需要更多的信息来解答。"
    "不过，根据目前的理解，答案应该是2。"
)
GRADIO14_ANSWER = "1加1等于2，即 \\( 1 + 1 = 2 \\)。"

# oobabooga/textgen#1478: the model's answer, then the turns it invented (verbatim, trimmed after
# the second invented question)
TEXTGEN1478_ANSWER = (
    "The largest planet in our solar system is Jupiter, which is the fifth planet from the Sun. It is about "
    "868 million miles (1.39 billion kilometers) away from the Sun and has a mass much larger than all the other "
    "planets combined. Jupiter is known for its distinctive appearance, with a swirling gas giant and numerous "
    "moons orbiting around it."
)

CASES = {
    # ---- end-of-turn tokens ------------------------------------------------------------------------
    # ollama/ollama#11276: Gemma 3 QAT through Ollama ended its reply with a slash-written
    # `</end_of_turn>` (the report's /api/generate response, verbatim)
    "ollama11276-gemma3-qat-slash-end-of-turn": Case(
        (SEARCH,), "Okay, I understand. This is a test.\n</end_of_turn>",
        answer="Okay, I understand. This is a test.", hidden=("end_of_turn",),
    ),
    # kghandour/Ollama-SwiftUI#44: an extra "</start_of_turn>" shown at the end with Gemma 2 (the
    # token verbatim; the answer rebuilt)
    "ollamaswiftui44-gemma2-start-of-turn-at-the-end": Case(
        (SEARCH,), "The Eiffel Tower is 330 metres tall.</start_of_turn>",
        answer="The Eiffel Tower is 330 metres tall.", hidden=("start_of_turn",),
    ),
    # moltis-org/moltis#306: an MLX Qwen2.5-Coder reply as the user saw it (verbatim)
    "moltis306-mlx-qwen-coder-im-end": Case(
        (SEARCH,), "Hello! How can I help you today?<|im_end|>",
        answer="Hello! How can I help you today?", hidden=("im_end",),
    ),
    # elotl/GenAI-infra-stack PR #64: Phi-3's reply went on past <|im_end|> into an <|im_start|> turn
    # with a question it made up (rebuilt from the PR's description)
    "genaiinfra64-phi3-im-end-then-invented-question": Case(
        (SEARCH,),
        "Kubernetes restarts the pod when its liveness probe fails.<|im_end|>\n<|im_start|>user\n"
        "Question: How do I set a readiness probe?<|im_end|>",
        answer="Kubernetes restarts the pod when its liveness probe fails.",
        hidden=("im_end", "im_start", "readiness probe"),
    ),
    # OpenRLHF/OpenRLHF#969: a DeepSeek-R1-Distill-Qwen-7B result through vLLM ended in DeepSeek's
    # full-width end-of-sentence token (verbatim, the first sentence left out)
    "openrlhf969-r1-distill-end-of-sentence": Case(
        (SEARCH,),
        "This specific use case makes the product a substitute for a plastic ball in general, as it fulfills a "
        "similar function but within a specific category (artificial plants) rather than as a standalone item."
        "\n\nFinal Decision: Substitute<｜end▁of▁sentence｜>",
        answer="This specific use case makes the product a substitute for a plastic ball in general, as it fulfills "
        "a similar function but within a specific category (artificial plants) rather than as a standalone item."
        "\n\nFinal Decision: Substitute",
        hidden=("end▁of▁sentence",),
    ),
    # johnbean393/Sidekick#75: gpt-oss-20b through llama-server, the reasoning and the answer in one
    # content as raw Harmony markup (verbatim)
    "sidekick75-gpt-oss-harmony-channels-in-content": Case(
        (SEARCH,),
        "<|channel|>analysis<|message|>User says \"hi\". Likely they want to start conversation. We should reply "
        "politely.<|end|><|start|>assistant<|channel|>final<|message|>Hello Armando! How can I help you today?",
        answer="Hello Armando! How can I help you today?", hidden=("<|channel|>", "reply politely"),
    ),
    # ---- invented next turns -----------------------------------------------------------------------
    # oobabooga/textgen#1478: Vicuna answered, then wrote a `### Human:` turn and answered that too
    # (verbatim, trimmed after the second invented question)
    "textgen1478-vicuna-invented-human-turns": Case(
        (SEARCH,),
        TEXTGEN1478_ANSWER + "\n### Human:\nhow do i make you list numbers from 1 to infinity?\n### Assistant: I'm "
        "sorry, but as an AI language model, I cannot perform tasks that are outside my programming or "
        "functionality.\n### Human:\nhow do i make you generate a random number in a specific range in c",
        answer=TEXTGEN1478_ANSWER, hidden=("### Human", "infinity"),
    ),
    # replicate/cog-llama-template PR #1: "8." then a `User:` turn and its `Assistant:` answer the
    # model invented (the PR's example, verbatim)
    "coglama1-invented-user-and-assistant-turn": Case(
        (SEARCH,), "8.\nUser: What is 3 + 3?\nAssistant: 6",
        answer="8.", hidden=("User:", "3 + 3"),
    ),
    # ---- reasoning in the content ------------------------------------------------------------------
    # langgenius/dify#17660: a DeepSeek model in a Dify agent returned only the closing </think>, so
    # its first line (the thinking) was shown above the answer (the answer verbatim; the thinking
    # line rebuilt)
    "dify17660-deepseek-only-the-closing-think": Case(
        (SEARCH,),
        "用户在打招呼，我应该友好地回应并询问能帮什么忙。\n</think>\n\n"
        "你好！很高兴见到你。有什么我可以帮助你的吗？无论是学习、工作还是生活中的问题，都可以告诉我哦！ 😊",
        answer="你好！很高兴见到你。有什么我可以帮助你的吗？无论是学习、工作还是生活中的问题，都可以告诉我哦！ 😊",
        hidden=("</think>", "友好地回应"),
    ),
    # langgenius/dify-official-plugins#1123: Qwen3 with /no_think through OpenAI-API-compatible gave an
    # empty think block before its answer (rebuilt)
    "dop1123-qwen3-no-think-empty-block": Case(
        (SEARCH,), "<think>\n\n</think>\n\nThe meeting is at 3 pm on Friday.",
        answer="The meeting is at 3 pm on Friday.", hidden=("<think>", "</think>"),
    ),
    # feiyun0112/Gradio.Net#14: DeepSeek-R1's whole reply in content, a <think> block then the answer
    # (trimmed, see GRADIO14_REASONING)
    "gradionet14-deepseek-r1-think-block-then-answer": Case(
        (SEARCH,), f"<think>\n{GRADIO14_REASONING}\n</think>\n\n{GRADIO14_ANSWER}",
        answer=GRADIO14_ANSWER, hidden=("<think>", "老师布置了一个问题"),
    ),
    # nbramia/LifeOS PR #568: a llama.cpp template opened <think> in the prompt, so the model wrote
    # only the closing tag before its JSON answer (the review's input, verbatim)
    "lifeos568-closing-only-think-before-a-json-answer": Case(
        (SEARCH,), "internal reasoning\n</think>{\"sources\":[\"calendar\"],\"reasoning\":\"ok\"}",
        answer="{\"sources\":[\"calendar\"],\"reasoning\":\"ok\"}", hidden=("</think>", "internal reasoning"),
    ),
    # Zoo-Code-Org/Zoo-Code PR #324: Gemma 4's <thought> written inside its <think> block (the PR's
    # two verdicts, verbatim): all of it is reasoning, "final" is the answer
    "zoocode324-gemma4-thought-inside-think": Case(
        (SEARCH,), "<think>outer<thought>inner</thought> middle</think>final",
        answer="final", hidden=("outer", "inner", "middle"),
    ),
    "zoocode324-gemma4-stray-thought-close-inside-think": Case(
        (SEARCH,), "<think>first</thought>second</think>final",
        answer="final", hidden=("first", "second"),
    ),
    # qwersyk/Newelle#427: Gemma 4 through llama.cpp wrote an empty `<|channel>thought` block even with
    # reasoning off (rebuilt)
    "newelle427-gemma4-empty-thought-channel": Case(
        (SEARCH,), "<|channel>thought\n<channel|>Good evening! What would you like to talk about?",
        answer="Good evening! What would you like to talk about?", hidden=("channel",),
    ),
    # CherryHQ/cherry-studio#9107: GPT-5 through a relay wrote its thinking in <thinking> tags the
    # client did not fold (rebuilt)
    "cherrystudio9107-relay-gpt5-thinking-tags": Case(
        (SEARCH,),
        "<thinking>\nThe user asks for Beijing time. UTC+8, so 08:00 UTC is 16:00.\n</thinking>\n\n"
        "It is 16:00 in Beijing.",
        answer="It is 16:00 in Beijing.", hidden=("<thinking>", "UTC+8"),
    ),
    # HCF-STUDIOS/openhermit PR #233: a provider emitted reasoning inline as a <reasoning> block in
    # a normal text block (rebuilt)
    "openhermit233-inline-reasoning-block": Case(
        (SEARCH,), "<reasoning>Two tickets are open; both are low priority.</reasoning>\nYou have two open tickets.",
        answer="You have two open tickets.", hidden=("<reasoning>", "low priority"),
    ),
    # MoonshotAI/Kimi-VL#45: Kimi-VL-A3B-Thinking wrote ◁think▷…◁/think▷ where <think> was asked
    # for, and its answer in the <answer> tags asked for (rebuilt)
    "kimivl45-triangle-think-then-answer-tags": Case(
        (SEARCH,), "◁think▷The picture shows three red apples on a plate.◁/think▷<answer>Three apples.</answer>",
        answer="Three apples.", hidden=("◁think▷", "on a plate", "<answer>"),
    ),
    # ---- over-stripping: the answer's own text stays -------------------------------------------------
    # langchain-ai/langchain-nvidia PR #345: text before <think> was dropped (the PR's example; the
    # block's text rebuilt)
    "langchainnvidia345-text-before-the-think-block": Case(
        (SEARCH,), "Here is my take.<think>Compare both plans on cost.</think>The answer.",
        answer="Here is my take.The answer.", hidden=("<think>", "on cost"),
    ),
    # nbramia/LifeOS PR #568: a literal <think> in an inline code span was corrupted (the review's
    # opening verbatim, the rest rebuilt)
    "lifeos568-think-pair-in-an-inline-code-span": Case(
        (SEARCH,), "Use `<think>draft</think>` as the example tag pair when you document the parser.",
        answer="Use `<think>draft</think>` as the example tag pair when you document the parser.",
    ),
    # CherryHQ/cherry-studio#17197: a reply holding </think> in code (the user was editing a chat
    # template) could not be read (rebuilt)
    "cherrystudio17197-close-think-in-a-template-code-block": Case(
        (SEARCH,),
        "Close the reasoning block in the template like this:\n```jinja\n{{- '</think>\\n\\n' }}\n```\n"
        "Then render the answer.",
        answer="Close the reasoning block in the template like this:\n```jinja\n{{- '</think>\\n\\n' }}\n```\n"
        "Then render the answer.",
    ),
    # vectorize-io/hindsight#2298: the model answered in a JSON envelope it made up (the report's
    # payload, ids shortened): not a call, shown as the model wrote it, nothing lost
    "hindsight2298-answer-in-an-invented-json-envelope": Case(
        (SEARCH,),
        "{\n  \"answer\": \"The deploy failed on the migration step.\",\n  \"directive_compliance\": \"Directive 1: "
        "done\",\n  \"memory_ids\": [\"45ab116d\"],\n  \"mental_model_ids\": [],\n  \"observation_ids\": []\n}",
        answer="{\n  \"answer\": \"The deploy failed on the migration step.\",\n  \"directive_compliance\": "
        "\"Directive 1: done\",\n  \"memory_ids\": [\"45ab116d\"],\n  \"mental_model_ids\": [],\n  "
        "\"observation_ids\": []\n}",
    ),
    # openai/codex#23436: asked for a markdown draft, the model wrapped all of it in an outer
    # ```markdown fence (rebuilt): the user asked for that text; it is shown as written
    "codex23436-draft-in-an-outer-markdown-fence": Case(
        (SEARCH,), "````markdown\n## Steps\n\n```bash\nnpm test\n```\n````",
        answer="````markdown\n## Steps\n\n```bash\nnpm test\n```\n````",
    ),
}

_SAMPLE_DIALOGUE = (
    "an invented turn written with role words (`User:` / `Assistant:`, Vicuna's `### Human:` / `### Assistant:`) "
    "outside code cannot be told from a sample dialogue an answer shows (a chatbot script, a prompt format "
    "explained); cutting there would lose such an answer's text, and no end-of-turn token marks the invented turn"
)

GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md
    **{(name, strategy): _SAMPLE_DIALOGUE
       for name in ("textgen1478-vicuna-invented-human-turns", "coglama1-invented-user-and-assistant-turn")
       for strategy in ("react", "fc")},
}

test_real_world_reply = reply_test(CASES, GAPS, read)


# ---- streams through the model plugin -------------------------------------------------------------

STREAMS = {
    # yangyaofei/dify-vllm-provider#23: Qwen3 with thinking off through vLLM still sent an empty
    # think block in content (rebuilt)
    "difyvllmprovider23-qwen3-empty-think-block-streamed": (
        sse(
            ev(role="assistant", content="<think>\n\n</think>\n\n"),
            ev(content="北京今天晴，"),
            ev(content="最高气温 25 度。"),
            ev("stop", content=""),
        ),
        "北京今天晴，最高气温 25 度。", "</think>",
    ),
    # sgl-project/sglang#10061: gpt-oss-120b with separate_reasoning off streamed Harmony markup in
    # content (rebuilt)
    "sglang10061-gpt-oss-harmony-streamed-without-separation": (
        sse(
            ev(role="assistant", content="<|channel|>analysis<|message|>Need a short greeting."),
            ev(content="<|end|><|start|>assistant<|channel|>final<|message|>"),
            ev(content="Hi there!"),
            ev(content="<|return|>"),
            ev("stop", content=""),
        ),
        "Hi there!", "short greeting",
    ),
    # MoonshotAI/kimi-code#3928: StepFun's endpoint mirrors every reasoning piece into both
    # `reasoning` and `reasoning_content` (the quoted first chunk; the rest rebuilt): the reasoning
    # is read once, the answer shown alone
    "kimicode3928-reasoning-mirrored-into-two-fields": (
        sse(
            ev(role="assistant", content="", reasoning="The", reasoning_content="The"),
            ev(reasoning=" user greets.", reasoning_content=" user greets."),
            ev(content="Hello!"),
            ev("stop", content=""),
        ),
        "Hello!", "greets",
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


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_kimicode3928_mirrored_reasoning_is_kept_once(strategy):
    """MoonshotAI/kimi-code#3928: a server that sends each reasoning piece under both field names
    must not double the reasoning the run keeps (the Thought log, the round trip)."""
    body = STREAMS["kimicode3928-reasoning-mirrored-into-two-fields"][0]
    _, turn = (read_react if strategy == "react" else read_fc)(plugin_chunks(body), ["search"])
    assert turn.reasoning.count("user greets") == 1


@pytest.mark.parametrize("size", [None, 1, 7])
def test_cherrystudio17197_a_close_tag_in_a_fence_of_a_probed_reply_is_its_code(size):
    """CherryHQ/cherry-studio#17197: Function Calling probes the start of any model's reply for a
    bare ``</think>`` (a template may have opened the block). One inside a fenced block the reply
    opened is the answer's code: nothing of the reply is hidden as reasoning (before, the text up
    to the tag was taken for reasoning and the answer began inside the block)."""
    text = "Edit the template:\n```jinja\n{%- if thinking %}</think>{% endif %}\n```\nThen reload the model."
    streamed, turn = read("fc", Case((SEARCH,), text), size)
    assert turn.decision == FinalAnswer(text)
    assert streamed.strip() == text and turn.reasoning == ""


@pytest.mark.parametrize("size", [None, 1, 7])
def test_a_bare_close_after_a_closed_fence_still_ends_probed_reasoning(size):
    """The fix's limit: a fence the reasoning opened and closed says nothing of a ``</think>``
    after it; that tag still ends the reasoning of a probed reply (a template opened the block)."""
    text = "Check the snippet:\n```py\nx = 1\n```\nLooks fine.\n</think>\nThe snippet is correct."
    streamed, turn = read("fc", Case((SEARCH,), text), size)
    assert turn.decision == FinalAnswer("The snippet is correct.")
    assert streamed.strip() == "The snippet is correct." and "Looks fine." in turn.reasoning


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_ollamaswiftui44_start_of_turn_as_a_closing_tag_written_as_code_is_text(strategy):
    """kghandour/Ollama-SwiftUI#44's ``</start_of_turn>`` ends the reply only where it ends the
    turn: in code the answer shows, it is text."""
    check_answer_shown_whole(strategy, "Gemma's chat template never writes `</start_of_turn>`.", (SEARCH,))
