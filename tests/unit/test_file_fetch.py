"""Which query images a provider can fetch itself, and fetching the others (dify#40731: the
Agent node's vision model cannot see an image at Dify's internal address)."""

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

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


class _Slow(BaseHTTPRequestHandler):
    """``/hang``: never answers; ``/drip``: a byte every 0.2 s, for ever; ``/endless``: 64 KiB
    pieces without a declared length, for ever (until the client goes)."""

    def do_GET(self):
        if self.path == "/hang":
            time.sleep(30)
            return
        self.send_response(200)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        piece = b"x" if self.path == "/drip" else b"x" * 65536
        try:
            for _ in range(100_000):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.flush()
                if self.path == "/drip":
                    time.sleep(0.2)
        except OSError:
            pass

    def log_message(self, *args):
        pass


@pytest.fixture
def slow_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Slow)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_files_at_addresses_that_hang_or_drip_stop_at_the_deadline_and_are_each_named(slow_server):
    """Before, each fetch waited the SDK's 5 s per read and a dripping address held the run for
    ever: ten of them took the run past its time limit."""
    notes: list[str] = []
    sources = [(f"{slow_server}/{path}", None, f"f{n}.png") for n, path in enumerate(["hang", "drip"] * 5)]
    started = time.monotonic()
    assert fetch_images(sources, left_out=notes, deadline=started + 1.0) == {}
    # wall time, the deadline's own clock: 1.0-1.4 s on a loaded machine; one read waited 5 s before
    assert time.monotonic() - started < 3.0
    assert len(notes) == 10 and all("could not be fetched" in note for note in notes)


def test_a_file_without_a_declared_length_is_read_no_further_than_its_limit(slow_server):
    notes: list[str] = []
    started = time.monotonic()
    assert fetch_images([(f"{slow_server}/endless", None, "big.png")], max_bytes=1_000_000, left_out=notes) == {}
    assert time.monotonic() - started < 3.0
    assert notes and notes[0].startswith("big.png (") and "is larger than 1000000 bytes" in notes[0]
