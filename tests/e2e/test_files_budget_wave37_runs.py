"""The query's files under the context window, through the real plugin process: a file too large
to fit on its own becomes a mention first, and the other files and memory stay as far as they fit
(``agent_core.file_trim``).

Found by wave 37's blind limits pass: files became mentions strictly oldest first, and only after
memory and old observations were trimmed. A 1.9 MB PDF (about 174,000 estimated tokens) for a
128K window (a prompt budget of about 114,000) can never be sent, yet it made the image sent before
it a mention too, and dropped every memory turn first. Each case runs two rounds (a tool call,
then the answer), so the second round's request is checked as well; the files are served at an
address only the plugin reaches, so it fetches them and sends them as data, as in Dify.
"""

import base64

import pytest

from local_runner.files import FileServer
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean, call_turn, text_of, weather_tool

FEATURES = ["tool-call", "multi-tool-call", "stream-tool-call", "agent-thought", "vision", "document"]
MODEL = {"features": FEATURES, "context_size": 128_000, "completion_params": {"max_tokens": 1024}}
QUERY = "Compare the files."
HUGE_PDF = b"%PDF-1.4\n" + b"\x07" * 1_900_000  # no page objects: one page a 32 KB, about 174,000 tokens
MEMORY = [m for n in range(3) for m in (
    {"role": "user", "content": f"earlier question {n}"}, {"role": "assistant", "content": f"earlier answer {n}"})]


def png(n: int) -> bytes:
    return b"\x89PNG\r\n\x1a\n" + bytes([n]) * 2_000


def small_pdf(pages: int) -> bytes:
    return b"%PDF-1.4\n" + b"<</Type /Page>>" * pages + b"\n%%EOF"


def run_with(run, tmp_path, strategy: str, named: list[tuple[str, bytes]]):
    """Two rounds for ``QUERY`` with the files ``named`` (name, bytes), in that order, and three
    memory turns."""
    with FileServer() as server:
        files = []
        for name, data in named:
            (tmp_path / name).write_bytes(data)
            files.append(server.add(tmp_path / name))
        result = run([call_turn(strategy, "get_weather", {"city": "Paris"}), answer_turn(strategy, "Done.")],
                     query=QUERY, strategy=strategy, files=files, tools=[weather_tool()], history=MEMORY,
                     model=MODEL, timeout=120)
    assert_clean(result, run)
    assert result.text == "Done."
    return result


def query_message(request: dict) -> dict:
    return [m for m in request["prompt_messages"] if m["role"] == "user" and text_of(m["content"]).startswith(QUERY)][-1]


def sent(request: dict) -> list[tuple[str, bytes]]:
    """``(filename, bytes)`` of each file the model is sent as content, in order."""
    content = query_message(request)["content"]
    parts = [p for p in content if p.get("type") in ("image", "document")] if isinstance(content, list) else []
    return [(p["filename"], base64.b64decode(p["base64_data"])) for p in parts]


def mentions(request: dict) -> str:
    return text_of(query_message(request)["content"])


def trimmed(result) -> dict:
    (node,) = [n for n in result.logs.values() if n.label == "CONTEXT TRIMMED"]
    return node.data


def assert_memory_kept(request: dict) -> None:
    text = "\n".join(text_of(m["content"]) for m in request["prompt_messages"])
    assert all(f"earlier question {n}" in text for n in range(3)), "no memory turn is dropped for a file that never fits"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_image_and_a_pdf_too_large_alone_keep_the_image(run, tmp_path, strategy):
    result = run_with(run, tmp_path, strategy, [("cat.png", png(1)), ("big.pdf", HUGE_PDF)])
    for request in result.llm_requests:
        assert sent(request) == [("cat.png", png(1))]
        assert "[Attached document: big.pdf (application/pdf)]" in mentions(request)
        assert "cat.png" not in mentions(request)
        assert_memory_kept(request)
    log = trimmed(result)
    assert (log["images_shown_as_text"], log["documents_shown_as_text"], log["history_turns_dropped"]) == (0, 1, 0)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_two_images_and_a_pdf_too_large_alone_keep_both_images_in_order(run, tmp_path, strategy):
    result = run_with(run, tmp_path, strategy, [("cat.png", png(1)), ("dog.png", png(2)), ("big.pdf", HUGE_PDF)])
    for request in result.llm_requests:
        assert sent(request) == [("cat.png", png(1)), ("dog.png", png(2))]
        assert "big.pdf" in mentions(request)
        assert_memory_kept(request)
    log = trimmed(result)
    assert (log["images_shown_as_text"], log["documents_shown_as_text"]) == (0, 1)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_huge_file_first_then_small_ones_keeps_the_small_ones(run, tmp_path, strategy):
    named = [("big.pdf", HUGE_PDF), ("cat.png", png(1)), ("notes.pdf", small_pdf(2)), ("dog.png", png(2))]
    result = run_with(run, tmp_path, strategy, named)
    for request in result.llm_requests:
        assert sent(request) == [("cat.png", png(1)), ("notes.pdf", small_pdf(2)), ("dog.png", png(2))]
        text = mentions(request)
        assert "[Attached document: big.pdf (application/pdf)]" in text and "notes.pdf" not in text
        assert_memory_kept(request)
    assert trimmed(result)["documents_shown_as_text"] == 1


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_files_that_fit_alone_but_not_together_still_go_oldest_first(run, tmp_path, strategy):
    # two PDFs of 20 pages (60,000 tokens each) and an image for a 114,000-token budget: one PDF
    # must go, the oldest, and no other file (memory, which a question about its files needs
    # less, goes before it, as before)
    named = [("a.pdf", small_pdf(20)), ("b.pdf", small_pdf(20)), ("cat.png", png(1))]
    result = run_with(run, tmp_path, strategy, named)
    request = result.llm_requests[0]
    assert sent(request) == [("b.pdf", small_pdf(20)), ("cat.png", png(1))]
    assert "[Attached document: a.pdf (application/pdf)]" in mentions(request)
    log = trimmed(result)
    assert (log["images_shown_as_text"], log["documents_shown_as_text"]) == (0, 1)
