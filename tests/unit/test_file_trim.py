"""The query's files as the prompt shrinks (``agent_core.file_trim``, ``RunState.plan_files``): a
file too large to fit on its own becomes a mention first, before memory and before the files
older than it; the others become mentions oldest first, only as far as needed.

Before, files went strictly oldest first and after memory: a 1.9 MB PDF (about 170,000 tokens)
for a 128K window made every image before it a mention, images that fit included, and every
memory turn was dropped for it first."""

from types import SimpleNamespace

import pytest
from dify_plugin.entities.model.message import DocumentPromptMessageContent, ImagePromptMessageContent

from agent_core.budget import IMAGE_TOKENS, prompt_budget, request_tokens
from agent_core.file_trim import file_cost, mention_order, too_large_alone
from agent_core.loop import AgentLoop
from agent_core.params import StrategyParams
from local_runner.scenario import ModelSettings
from strategies.function_calling import FunctionCallingSteps
from strategies.react import ReActSteps

FEATURES = ["tool-call", "multi-tool-call", "stream-tool-call", "agent-thought", "vision", "document"]
STEPS = [FunctionCallingSteps(), ReActSteps("text")]
STEP_IDS = ["function_calling", "ReAct"]


def image(name: str) -> dict:
    return {"type": "image", "url": f"https://example.com/{name}.png", "filename": f"{name}.png",
            "mime_type": "image/png", "extension": ".png"}


def pdf(name: str) -> dict:
    return {"type": "document", "url": f"http://api:5001/files/{name}/file-preview", "filename": f"{name}.pdf",
            "mime_type": "application/pdf", "extension": ".pdf"}


def pdf_bytes(pages: int) -> bytes:
    return b"%PDF-1.4\n" + b"<</Type /Page>>" * pages + b"\n%%EOF"


HUGE = pdf_bytes(60)  # 60 pages of 3,000 tokens: 180,000 tokens, over a 128K window alone
SMALL = pdf_bytes(2)  # 6,000 tokens


def memory(turns: int) -> list[dict]:
    return [m for n in range(turns) for m in (
        {"role": "user", "content": f"question {n}"}, {"role": "assistant", "content": f"answer {n}"})]


def fitted(steps, files: list[dict], blobs: dict[str, bytes], *, context: int = 128_000, turns: int = 3):
    """A loop's first round fitted to ``context`` tokens, the plugin's fetched PDFs given as
    ``blobs``: ``(loop, request, logs)``."""
    model = ModelSettings(context_size=context, features=FEATURES, completion_params={"max_tokens": 1024})
    params = StrategyParams.model_validate({"model": model.selector(memory(turns)), "query": "Compare them.",
                                            "files": files})
    loop = AgentLoop(SimpleNamespace(session=None), steps, params)
    loop.state.rendered["file_blobs"] = blobs  # as ``file_fetch`` would have fetched them
    generator = loop._fitted_request(SimpleNamespace(id="round"))
    logs = []
    try:
        while True:
            logs.append(next(generator))
    except StopIteration as stop:
        return loop, stop.value, logs


def sent_files(request) -> list[str]:
    """The filenames the model is sent as content, in order."""
    (query,) = [m for m in request.prompt_messages if isinstance(m.content, list)] or [None]
    if query is None:
        return []
    return [p.filename for p in query.content if isinstance(p, ImagePromptMessageContent | DocumentPromptMessageContent)]


def query_text(request) -> str:
    query = [m for m in request.prompt_messages if m.role.value == "user"][-1]
    content = query.content
    return content if isinstance(content, str) else "\n".join(p.data for p in content if p.type.value == "text")


def trimmed_log(logs) -> dict:
    (node,) = [m.message for m in logs if getattr(m.message, "label", "") == "CONTEXT TRIMMED"
               and m.message.status.value == "success"]
    return node.data


# --- pure -------------------------------------------------------------------------------------------------------


def test_a_file_over_the_room_left_in_tokens_or_bytes_is_too_large_alone():
    costs = [(765, 2_000), (180_000, 3_000), (765, 4_000_000), (100, 100)]
    assert too_large_alone(costs, 114_000, 3_000_000) == [False, True, True, False]
    assert too_large_alone(costs, None, 3_000_000) == [False, False, True, False]  # window unknown: bytes decide
    assert too_large_alone(costs, -5, 3_000_000) == [True, True, True, True]  # nothing fits: every one


def test_mention_order_puts_the_files_too_large_alone_first_then_the_others_oldest_first():
    assert mention_order((), [False, True, False]) == ((1, 0, 2), 1)
    assert mention_order((), [True, False, False]) == ((0, 1, 2), 1)
    assert mention_order((), [False, False]) == ((0, 1), 0)
    assert mention_order((), [False, True, False, True]) == ((1, 3, 0, 2), 2)


def test_files_already_mentions_stay_first_so_trimming_never_brings_one_back():
    # a round before made file 0 a mention; now file 2 turns out too large alone
    assert mention_order((0,), [False, False, True]) == ((0, 2, 1), 2)
    assert mention_order((2, 0), [False, False, False, False]) == ((2, 0, 1, 3), 2)


def test_file_cost_counts_an_image_as_image_tokens_and_a_pdf_by_its_pages_and_bytes():
    import base64

    picture = ImagePromptMessageContent(url="https://example.com/a.png", format="png", mime_type="image/png")
    assert file_cost(picture)[0] == IMAGE_TOKENS
    document = DocumentPromptMessageContent(base64_data=base64.b64encode(HUGE).decode(), format="pdf",
                                            mime_type="application/pdf")
    tokens, size = file_cost(document)
    assert tokens == 180_000 and size > len(document.base64_data)


# --- through the loop's fitting ----------------------------------------------------------------------------------


@pytest.mark.parametrize("steps", STEPS, ids=STEP_IDS)
def test_an_image_and_a_pdf_too_large_alone_keep_the_image_and_mention_the_pdf(steps):
    loop, request, logs = fitted(steps, [image("cat"), pdf("big")], {pdf("big")["url"]: HUGE})
    assert sent_files(request) == ["cat.png"]
    assert "[Attached document: big.pdf (application/pdf)]" in query_text(request)
    assert request_tokens(request) <= prompt_budget(loop.state.params)
    assert loop.state.history_dropped == 0, "memory is not dropped for a file that can never fit"
    log = trimmed_log(logs)
    assert (log["images_shown_as_text"], log["documents_shown_as_text"], log["history_turns_dropped"]) == (0, 1, 0)


@pytest.mark.parametrize("steps", STEPS, ids=STEP_IDS)
def test_two_images_and_a_pdf_too_large_alone_keep_both_images_in_order(steps):
    files = [image("cat"), image("dog"), pdf("big")]
    _, request, logs = fitted(steps, files, {pdf("big")["url"]: HUGE})
    assert sent_files(request) == ["cat.png", "dog.png"]
    assert "big.pdf" in query_text(request) and "cat.png" not in query_text(request)
    assert trimmed_log(logs)["documents_shown_as_text"] == 1


@pytest.mark.parametrize("steps", STEPS, ids=STEP_IDS)
def test_a_huge_pdf_first_then_small_files_keeps_the_small_ones(steps):
    files = [pdf("big"), image("cat"), pdf("notes"), image("dog")]
    loop, request, logs = fitted(steps, files, {pdf("big")["url"]: HUGE, pdf("notes")["url"]: SMALL})
    assert sent_files(request) == ["cat.png", "notes.pdf", "dog.png"]
    assert loop.state.history_dropped == 0
    log = trimmed_log(logs)
    assert (log["images_shown_as_text"], log["documents_shown_as_text"]) == (0, 1)


@pytest.mark.parametrize("steps", STEPS, ids=STEP_IDS)
def test_files_that_each_fit_but_not_together_still_go_oldest_first_only_as_far_as_needed(steps):
    # a 16K window: 14,000 tokens of budget; two 4-page PDFs (12,000 tokens each) fit one at a time
    files = [pdf("a"), pdf("b"), image("cat")]
    _, request, logs = fitted(steps, files, {pdf("a")["url"]: pdf_bytes(4), pdf("b")["url"]: pdf_bytes(4)},
                              context=16_000, turns=0)
    assert sent_files(request) == ["b.pdf", "cat.png"]
    assert "[Attached document: a.pdf (application/pdf)]" in query_text(request)
    assert trimmed_log(logs)["documents_shown_as_text"] == 1


@pytest.mark.parametrize("steps", STEPS, ids=STEP_IDS)
def test_a_later_round_keeps_the_files_already_mentions_and_the_model_reads_them_in_order(steps):
    files = [image("cat"), pdf("big"), image("dog")]
    loop, request, _ = fitted(steps, files, {pdf("big")["url"]: HUGE})
    assert sent_files(request) == ["cat.png", "dog.png"]
    text = query_text(request)
    assert text.index("Compare them.") < text.index("big.pdf")
    state = loop.state
    assert state.file_order[: state.files_as_text] == (1,)
    state.trim_to(state.trimmed, 0)  # a later round starts where this one ended
    assert sent_files(loop._steps.build_request(state)) == ["cat.png", "dog.png"]


@pytest.mark.parametrize("count", [1, 12])
def test_a_model_without_vision_notes_once_why_the_querys_images_are_told_as_text(count):
    """An ``IMAGE AS TEXT`` note (``RunState.image_notes``) names the query's images a model that
    does not declare vision only reads of, once for them all (ten names, then how many more); a
    vision model gets none, and no other file is named."""
    files = [image(f"p{n}") for n in range(count)] + [pdf("report")]
    without = ModelSettings(features=["tool-call", "stream-tool-call"], completion_params={})
    params = StrategyParams.model_validate({"model": without.selector([]), "query": "q", "files": files})
    state = AgentLoop(SimpleNamespace(session=None), FunctionCallingSteps(), params).state
    assert state.file_blobs() == {}
    (note,) = state.image_notes
    assert note.startswith("p0.png") and "does not declare vision" in note and "report.pdf" not in note
    assert ("p11.png" not in note and "and 2 more" in note) if count == 12 else note.startswith("p0.png: ")
    state.file_blobs()
    assert len(state.image_notes) == 1, "noted once per run"
    seeing = ModelSettings(features=["vision"], completion_params={})
    params = StrategyParams.model_validate({"model": seeing.selector([]), "query": "q", "files": [image("a")]})
    state = AgentLoop(SimpleNamespace(session=None), FunctionCallingSteps(), params).state
    assert state.file_blobs() == {}, "a public address: the provider fetches it"
    assert state.image_notes == []


@pytest.mark.parametrize("count", [1, 12])
def test_a_model_without_document_input_notes_once_why_the_querys_pdfs_are_told_as_text(count):
    """A ``DOCUMENT AS TEXT`` note (``RunState.document_notes``) names the query's PDFs a model
    that does not declare ``document`` only reads of, once for them all (ten names, then how
    many more), as ``IMAGE AS TEXT`` does for images; images and other files are not named in
    it (a Word file is told of by name for every model), and a model that reads documents
    gets no such note."""
    word = {"type": "document", "url": "http://api:5001/files/w/file-preview", "filename": "memo.docx",
            "mime_type": "application/vnd.openxmlformats-officedocument.wordprocessingml.document"}
    files = [pdf(f"r{n}") for n in range(count)] + [image("p"), word]
    without = ModelSettings(features=["tool-call", "stream-tool-call", "vision"], completion_params={})
    params = StrategyParams.model_validate({"model": without.selector([]), "query": "q", "files": files})
    state = AgentLoop(SimpleNamespace(session=None), FunctionCallingSteps(), params).state
    assert state.file_blobs() == {}, "nothing fetched for a model that cannot read it"
    (note,) = state.document_notes
    assert note.startswith("r0.pdf") and "does not declare document" in note
    assert "p.png" not in note and "memo.docx" not in note
    assert ("r11.pdf" not in note and "and 2 more" in note) if count == 12 else note.startswith("r0.pdf: ")
    assert state.image_notes == [], "a vision model: the image is no concern of this note"
    state.file_blobs()
    assert len(state.document_notes) == 1, "noted once per run"
    only_word = StrategyParams.model_validate({"model": without.selector([]), "query": "q", "files": [word]})
    state = AgentLoop(SimpleNamespace(session=None), FunctionCallingSteps(), only_word).state
    state.file_blobs()
    assert state.document_notes == []
