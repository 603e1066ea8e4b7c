"""Reasoning blocks never leak into visible text, however the stream is split."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_core.think import (
    Split,
    ThinkSplitter,
    closes_unopened_block,
    opens_reasoning_in_prompt,
    thinking_requested,
    visible_text,
)


def split_all(pieces, opened: bool = False, **options):
    """(visible text, reasoning) of ``pieces`` fed in turn to a ``ThinkSplitter(opened=opened,
    **options)`` (``probe``, ``thoughts``...)."""
    splitter = ThinkSplitter(opened=opened, **options)
    visible, reasoning = [], []
    for piece in pieces:
        out = splitter.feed(piece)
        visible.append(out.visible)
        reasoning.append(out.reasoning)
    out = splitter.finish()
    return "".join(visible) + out.visible, "".join(reasoning) + out.reasoning


def test_block_split_across_chunks():
    assert split_all(["Hel", "lo <th", "ink>secret</thi", "nk> world"]) == ("Hello  world", "secret")


def test_unclosed_block_is_reasoning_and_case_is_ignored():
    assert split_all(["<THINKING>still going"]) == ("", "still going")


def test_lone_angle_bracket_is_visible():
    assert split_all(["a < b and <b>bold</b>"]) == ("a < b and <b>bold</b>", "")


texts = st.text(alphabet=st.sampled_from(list("ab <>/thinkg")), max_size=60)


def pieces_of(text, sizes):
    pieces, i = [], 0
    while i < len(text):
        size = sizes[len(pieces) % len(sizes)]
        pieces.append(text[i : i + size])
        i += size
    return pieces


@given(texts, st.lists(st.integers(1, 10), min_size=1, max_size=10), st.booleans())
def test_chunking_does_not_matter(text, sizes, opened):
    """Also for a reply taken as starting inside a block its template opened."""
    split = split_opened if opened else split_all
    assert split(pieces_of(text, sizes)) == split([text])


def test_text_before_a_closing_tag_with_no_block_open_is_not_visible():
    """dify#17660, open-webui#9808: the template opened <think> in the prompt, so the reply holds
    the reasoning, a lone </think>, and the answer; memory must keep the answer only."""
    assert visible_text("The user greets me.\n</think>\n\nHello!") == "\n\nHello!"
    assert visible_text("<think>plan</think>Hello") == "Hello"
    assert visible_text("plain text") == "plain text"


def test_an_old_model_plugins_details_block_is_reasoning_and_other_details_are_the_answers():
    # model plugins built on dify-plugin before 0.0.1b73 wrapped reasoning_content in this block
    opener = (
        '<details style="color:gray;background-color: #f8f8f8;padding: 8px;border-radius: 4px;" open> '
        "<summary> Thinking... </summary>\n"
    )
    text = opener + "Simple greeting.\n</details>\n\nHello! <details><summary>More</summary>x</details>"
    for size in (len(text), 1, 5):
        visible, reasoning = split_all([text[i : i + size] for i in range(0, len(text), size)])
        assert reasoning == "\nSimple greeting.\n"
        assert visible == "\n\nHello! <details><summary>More</summary>x</details>"
    assert visible_text("a</details>b") == "a</details>b"  # a closing </details> alone is HTML


def split_opened(pieces):
    """``split_all`` with the block taken as opened in the prompt."""
    splitter = ThinkSplitter(opened=True)
    outs = [splitter.feed(piece) for piece in pieces] + [splitter.finish()]
    return "".join(o.visible for o in outs), "".join(o.reasoning for o in outs)


def test_a_block_opened_in_the_prompt_is_reasoning_up_to_its_bare_closing_tag():
    # QwQ, DeepSeek-R1, Qwen3 *-Thinking-2507: the template ends the prompt with "<think>\n"
    text = "Okay, 2 + 2 is 4.\n</think>\n\nThe answer is 4."
    for size in (len(text), 1, 3, 7):
        pieces = [text[i : i + size] for i in range(0, len(text), size)]
        assert split_opened(pieces) == ("\n\nThe answer is 4.", "Okay, 2 + 2 is 4.\n")


def test_a_reply_taken_as_opened_that_never_closes_is_read_as_any_reply():
    assert split_opened(["The answer ", "is 4."]) == ("The answer is 4.", "")
    assert split_opened(["<think>plan", "</think>Hi"]) == ("Hi", "plan")  # it opened the block itself
    assert split_opened(["<think>still thinking"]) == ("", "still thinking")


def test_nothing_is_passed_on_while_the_reply_may_still_be_reasoning_and_release_reads_it_as_usual():
    splitter = ThinkSplitter(opened=True)
    assert splitter.feed("The answer") == Split() and splitter.holding
    assert splitter.release() == Split("The answer", "") and not splitter.holding
    assert splitter.feed(" is 4.").visible == " is 4."


@pytest.mark.parametrize("model", ["qwq-32b", "deepseek-r1:14b", "DeepSeek-R1-Distill-Qwen-32B",
                                   "Qwen3-235B-A22B-Thinking-2507", "qwen3-next-80b-a3b-thinking",
                                   "MiniMax-M2", "minimax-m2.5", "ERNIE-4.5-21B-A3B-Thinking",
                                   "ERNIE-X1.1", "ernie-x1-turbo-32k"])
def test_models_whose_template_opens_the_block_are_known_by_name(model):
    assert opens_reasoning_in_prompt(model)


@pytest.mark.parametrize("model", ["qwen3-30b-a3b", "qwen3.5:35b", "deepseek-chat", "deepseek-reasoner", "gpt-4o", "",
                                   "abab6.5s-chat", "ernie-4.5-turbo-128k"])
def test_other_models_are_not_taken_for_them(model):
    assert not opens_reasoning_in_prompt(model)


def test_a_closing_tag_with_no_block_open_is_found():
    assert closes_unopened_block("plan\n</think>\n\nHi")
    assert not closes_unopened_block("<think>plan</think>Hi") and not closes_unopened_block("a </b> c")
    assert not closes_unopened_block("reasoning</thought>Hi")  # only the tag a template opens is learned


@pytest.mark.parametrize(
    ("params", "requested"),
    [({"enable_thinking": True}, True), ({"thinking": "true"}, True), ({"think": True}, True),
     ({"thinking": {"type": "enabled", "budget_tokens": 1024}}, True), ({"enable_thinking": False}, False),
     ({"reasoning_effort": "high"}, False), ({}, False), (None, False)],
)
def test_thinking_turned_on_in_the_completion_parameters_is_seen(params, requested):
    assert thinking_requested(params) is requested


@pytest.mark.parametrize("opened", [False, True])
@pytest.mark.parametrize(
    "text",
    ["The closing tag is `</think>`.", "Models wrap their thoughts in `<think>` ... `</think>` tags.",
     "To end a block, write `</think>` on its own line, then the answer."],
)
def test_a_tag_written_as_code_in_an_answer_is_text(text, opened):
    # a model's real tag never stands between two backticks
    for size in (len(text), 1, 3):
        pieces = [text[i : i + size] for i in range(0, len(text), size)]
        assert (split_opened if opened else split_all)(pieces) == (text, "")


FENCED_TAGS = (
    "Ask Claude to reason inside tags:\n\n```xml\n<thinking>\nList the constraints.\n</thinking>\n<answer>\nOK\n</answer>\n```",
    "Command R7B's template:\n````\n<|START_THINKING|>plan<|END_THINKING|>\n````\nThat is all.",
    "A stray end shown as code:\n```\n</think>\n```\nand more.",
)


@pytest.mark.parametrize("text", FENCED_TAGS)
def test_a_tag_in_a_fenced_block_of_the_answer_is_text(text):
    # a prompt or chat template the answer shows: nothing of it is reasoning, nothing is cut
    for size in (len(text), 1, 7):
        assert split_all([text[i : i + size] for i in range(0, len(text), size)]) == (text, "")


def test_a_block_after_a_closed_fence_is_still_reasoning():
    text = "```\ncode\n```\n<think>secret</think>Done. `x` and <think>more</think>"
    for size in (len(text), 1, 7):
        assert split_all([text[i : i + size] for i in range(0, len(text), size)]) == (
            "```\ncode\n```\nDone. `x` and ", "secretmore"
        )


@pytest.mark.parametrize(("opener", "closer"), [("<thought>", "</thought>"), ("<seed:think>", "</seed:think>")])
def test_exaone_and_seed_oss_reasoning_blocks_are_reasoning(opener, closer):
    assert split_all([opener + "hmm", " more" + closer[:3], closer[3:] + "It is 4."]) == ("It is 4.", "hmm more")


def test_magistral_think_brackets_are_reasoning_in_upper_case_only():
    assert split_all(["[THINK]plan", " more[/TH", "INK]It is 4."]) == ("It is 4.", "plan more")
    assert split_all(["See [Think](https://x.io) and [think] here."]) == ("See [Think](https://x.io) and [think] here.", "")
    assert split_all(["a list [1, 2] then [", "THINK]b[/THINK]c"]) == ("a list [1, 2] then c", "b")


def test_kimi_vl_reasoning_tags_are_reasoning():
    """Kimi-VL-Thinking writes ◁think▷…◁/think▷ (its template's thought_words in LLaMA-Factory;
    vLLM's kimi reasoning parser, https://docs.vllm.ai/en/latest/features/reasoning_outputs.html)."""
    raw = "◁think▷The user wants Paris. Let me answer.◁/think▷It is sunny in Paris."
    expected = ("It is sunny in Paris.", "The user wants Paris. Let me answer.")
    assert split_all([raw]) == expected
    assert split_all(list(raw)) == expected
    assert visible_text("It is sunny.◁/think▷It is sunny.") == "It is sunny."  # a stray end, as </think>


@pytest.mark.parametrize(
    ("raw", "visible"),
    [
        # Granite 3.3: "write your thoughts between <think></think> and write your response
        # between <response></response>" (its chat template; llama.cpp's Granite parser)
        ("<think>The user greets me.</think><response>Hello! How can I help?</response>", "Hello! How can I help?"),
        # ERNIE-X1 (PaddlePaddle/FastDeploy ernie_x1 reasoning parser): a bare </think>, then the frame
        ("The user greets me.\n</think>\n\n<response>\nHello!\n</response>\n", "\n\n\nHello!\n"),
        # the DeepSeek-R1-Zero template (arXiv:2501.12948): <think> ... </think> <answer> ... </answer>
        ("<think>2 + 2 = 4</think> <answer>4</answer>", " 4"),
        ("<think>x</think><RESPONSE>Hi</Response>  \n", "Hi"),
    ],
)
def test_a_response_frame_right_after_the_reasoning_is_not_text(raw, visible):
    assert split_all([raw])[0].endswith(visible)  # (the text before a bare </think> is dropped by the caller)
    assert split_all(list(raw)) == split_all([raw])
    assert visible_text(raw) == visible


@pytest.mark.parametrize(
    "raw",
    [
        "Put the result in tags: <answer>4</answer>",  # no reasoning block before it: asked for
        "<answer>4</answer>",
        "<think>x</think>Sure: <response>Hi</response>",  # text came between
        "<think>x</think>`<response>` is Granite's tag.",  # written as code
    ],
)
def test_response_tags_anywhere_else_are_the_answers_text(raw):
    expected = visible_text(raw.replace("<think>x</think>", ""))
    assert split_all([raw])[0] == expected == raw.replace("<think>x</think>", "")
    assert split_all(list(raw))[0] == expected


def test_a_response_frame_closed_before_more_text_keeps_its_closing_tag():
    raw = "<think>x</think><response>Use it.</response> Then more."
    assert split_all([raw])[0] == split_all(list(raw))[0] == "Use it.</response> Then more."


@given(
    st.lists(
        st.sampled_from(["a", " ", "\n", "<think>", "</think>", "<response>", "</response>", "<answer>", "◁think▷", "◁/think▷", "<", "/", "◁"]),
        max_size=30,
    ).map("".join),
    st.lists(st.integers(1, 6), min_size=1, max_size=6),
)
def test_frames_and_kimi_tags_split_the_same_whatever_the_chunking(text, sizes):
    assert split_all(pieces_of(text, sizes)) == split_all([text])


def split_after_reasoning(pieces):
    """``split_all`` of content whose reasoning came apart (``reasoning_content``) before it."""
    splitter = ThinkSplitter()
    splitter.note_reasoning_apart()
    visible = [splitter.feed(piece).visible for piece in pieces]
    return "".join(visible) + splitter.finish().visible


@pytest.mark.parametrize(
    ("raw", "visible"),
    [
        # vllm-project/vllm#58127: Hunyuan-A13B under its reasoning parser, the frame's end left over
        ("This is the rest\n</answer>", "This is the rest\n"),
        ("Hello!\n</response>\n", "Hello!\n"),
        # closing nothing but followed by text, or the pair of an opening tag read as text: kept
        ("Close it with </answer> then stop.", "Close it with </answer> then stop."),
        ("Tags: <response>x</response>\n", "Tags: <response>x</response>\n"),
    ],
)
def test_a_closing_frame_tag_after_reasoning_that_closes_nothing_is_dropped_only_at_the_end(raw, visible):
    assert split_after_reasoning([raw]) == split_after_reasoning(list(raw)) == visible


@pytest.mark.parametrize(
    "raw", ["Close the block with </response>", "</answer>", "<answer>4</answer>", "Tags: <response>x</response>\n"]
)
def test_a_closing_frame_tag_within_a_line_of_a_reply_with_no_reasoning_is_its_text(raw):
    """No reasoning came and the tag does not stand on a line of its own: the tag is the answer's."""
    assert split_all([raw])[0] == split_all(list(raw))[0] == visible_text(raw) == raw


@pytest.mark.parametrize(("raw", "visible"), [("This is the rest\n</answer>", "This is the rest\n"), ("Hi\n</response>\n", "Hi\n")])
def test_a_frames_end_on_a_line_of_its_own_is_dropped_with_no_reasoning(raw, visible):
    """Hunyuan's quick thought (empty reasoning) under vLLM's parser: only ``\n</answer>`` is left."""
    assert split_all([raw])[0] == split_all(list(raw))[0] == visible_text(raw) == visible


def test_reasoning_apart_makes_the_contents_first_answer_tag_its_frame():
    # sgl-project/sglang PR #7678: Hunyuan's <answer> frame left in the content by a reasoning
    # parser that took only its <think> block out (the reasoning came as reasoning_content)
    splitter = ThinkSplitter()
    splitter.note_reasoning_apart()
    parts = [splitter.feed(piece) for piece in ("<ans", "wer>\nHi there", "\n</answer>")]
    assert "".join(p.visible for p in parts) + splitter.finish().visible == "\nHi there\n"
    late = ThinkSplitter()
    late.feed("Sure: ")
    late.note_reasoning_apart()  # the content had started: its tags are its own
    assert late.feed("<answer>Hi</answer>").visible + late.finish().visible == "<answer>Hi</answer>"


def test_only_a_self_served_models_first_characters_are_held_to_look_for_a_bare_think_close():
    """A model the user serves (Ollama, vLLM, llama.cpp behind the OpenAI-API-compatible plugin)
    may run under a template that opens ``<think>`` in the prompt whatever its name, so Function
    Calling holds its reply's first characters to find a bare ``</think>``; a hosted API's answer
    streams from its first character (holding it broke the text kept when a stream fails)."""
    from agent_core.function_calling.turn import read_function_calling_turn
    from agent_core.model_call import ModelChunk
    from agent_core.think import template_may_open_reasoning

    assert template_may_open_reasoning("langgenius/ollama/ollama")
    assert template_may_open_reasoning("langgenius/openai_api_compatible/openai_api_compatible")
    assert not template_may_open_reasoning("langgenius/openai/openai")
    assert not template_may_open_reasoning("langgenius/anthropic/anthropic") and not template_may_open_reasoning("")

    def first_yield(reply: str, probe: bool) -> str:
        chunks = iter([ModelChunk(text=piece) for piece in reply.split("|")] + [ModelChunk(finish_reason="stop")])
        return next(read_function_calling_turn(chunks, ["search"], reasoning_probe=probe))

    assert first_yield("The warranty |covers two years.", probe=False) == "The warranty "
    assert first_yield("Hmm, the user|\nwants X.</think>\nThe answer.", probe=True).strip() == "The answer."


@pytest.mark.parametrize("sizes", [None, 1, 7])
def test_a_final_frame_after_reasoning_is_dropped_and_one_without_reasoning_is_text(sizes):
    """sipeed/picoclaw#1235: ``<think>...</think><final>ANSWER</final>`` is the answer framed; a
    ``<final>`` tag with no reasoning before it is the answer's own text."""
    def pieces(text):
        return [text] if sizes is None else [text[i : i + sizes] for i in range(0, len(text), sizes)]

    shown, reasoning = split_all(pieces("<think>internal reasoning</think><final>The answer is 2</final>"))
    assert (shown, reasoning) == ("The answer is 2", "internal reasoning")
    assert split_all(pieces("Use <final>x</final> tags."))[0] == "Use <final>x</final> tags."
