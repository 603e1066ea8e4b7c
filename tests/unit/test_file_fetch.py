"""Which query images a provider can fetch itself, and fetching the others (dify#40731: the
Agent node's vision model cannot see an image at Dify's internal address)."""

import pytest

from agent_core.file_fetch import fetch_images, provider_can_fetch
from local_runner.files import FileServer

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


@pytest.mark.parametrize(
    ("url", "public"),
    [
        ("https://upload.dify.ai/files/abc/file-preview?sign=x", True),
        ("https://example.com/cat.png", True),
        ("http://8.8.8.8/cat.png", True),
        ("http://api:5001/files/abc/file-preview?timestamp=1&sign=x", False),  # docker's INTERNAL_FILES_URL
        ("http://localhost:5001/files/x.png", False),
        ("http://127.0.0.1:8000/x.png", False),
        ("http://10.0.0.5/x.png", False),
        ("http://minio.svc/x.png", False),
        ("/files/abc/file-preview", False),  # FILES_URL unset: a relative address
        ("data:image/png;base64,AAAA", False),
    ],
)
def test_only_a_public_http_address_is_left_to_the_provider(url, public):
    assert provider_can_fetch(url) is public


def test_an_image_only_the_plugin_can_reach_is_fetched_and_a_failing_or_large_one_is_left_out(tmp_path):
    small, big = tmp_path / "cat.png", tmp_path / "big.png"
    small.write_bytes(PNG)
    big.write_bytes(PNG * 100)
    with FileServer() as server:
        cat, large = server.add(small), server.add(big)
        missing = cat["url"].replace("cat.png", "dog.png")
        sources = [
            (cat["url"], cat["size"]),
            (large["url"], None),
            (missing, None),
            ("https://example.com/x.png", None),
        ]
        assert fetch_images(sources, max_bytes=1000) == {cat["url"]: PNG}


def test_an_image_too_large_to_fetch_is_left_out_and_said_why():
    notes: list[str] = []
    fetched = fetch_images([("http://api:5001/files/x/file-preview", 3_000_000, "photo.jpg")], max_bytes=1000, left_out=notes)
    assert fetched == {} and notes and notes[0].startswith("photo.jpg (3000000 bytes) is larger than 1000 bytes")


def test_a_document_is_fetched_at_a_public_address_too_and_a_large_one_is_left_out(tmp_path, monkeypatch):
    """Anthropic's plugin reads only a document's data, so a PDF is always sent as data (an
    image at a public address is left to the provider)."""
    import agent_core.file_fetch as file_fetch
    from agent_core.file_fetch import fetch_documents

    pdf = tmp_path / "a.pdf"
    pdf.write_bytes(b"%PDF-1.4 x")
    monkeypatch.setattr(file_fetch, "provider_can_fetch", lambda url: True)  # the local server counts as public
    with FileServer() as server:
        served = server.add(pdf)
        assert fetch_images([(served["url"], None)]) == {}
        assert fetch_documents([(served["url"], None, "a.pdf")]) == {served["url"]: b"%PDF-1.4 x"}
        notes: list[str] = []
        assert fetch_documents([(served["url"], None, "a.pdf")], max_bytes=4, left_out=notes) == {}
        assert notes and notes[0].startswith("a.pdf (10 bytes) is larger than 4 bytes")
