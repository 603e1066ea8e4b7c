"""Dify file addresses never reach the model (agent_core.observation).

Dify gives tool files internal, signed addresses that expire within minutes
(``http://api:5001/files/tools/<id>.png?timestamp=..&nonce=..&sign=..``, or relative
``/files/tools/<id>.png``: Dify ``core/tools/signature.py`` ``sign_tool_file``). A model told
"An image was sent to the user: <that address>" repeats it in its answer as a broken image or
link. A forwarded file at such an address is named, and the model is told it is shown with the
answer; an external link keeps its URL. What is forwarded to the user does not change.
"""

import pytest
from dify_plugin.entities.tool import ToolInvokeMessage

from agent_core.observation import ObservationCollector

T = ToolInvokeMessage
M = ToolInvokeMessage.MessageType

SIGNED = "http://api:5001/files/tools/3f9a2c7e.png?timestamp=1732550000&nonce=ab12&sign=Zm9vYmFy"


def run(*messages) -> tuple[str, list]:
    collector = ObservationCollector("draw")
    forwarded = [out for message in messages for out in collector.add(message)]
    return collector.finish().observation, forwarded


def msg(kind, url: str, meta: dict | None = None) -> T:
    return T(type=kind, message=T.TextMessage(text=url), meta=meta)


def assert_named_not_addressed(seen: str, name: str) -> None:
    assert f"sent to the user: {name}" in seen
    assert "shown with your answer" in seen and "do not write a link" in seen
    for fragment in ("/files/", "http", "sign=", "timestamp=", "api:5001"):
        assert fragment not in seen, fragment


@pytest.mark.parametrize(
    ("kind", "url", "meta", "name"),
    [
        (M.IMAGE_LINK, SIGNED, None, "3f9a2c7e.png"),
        (M.IMAGE_LINK, SIGNED, {"tool_file_id": "3f9a2c7e", "filename": "chart.png"}, "chart.png"),
        (M.IMAGE, "/files/tools/3f9a2c7e.png", None, "3f9a2c7e.png"),
        (M.IMAGE, "https://cdn.example.com/out/plot.png?sign=abc", None, "plot.png"),
        (M.IMAGE_LINK, "https://cdn.example.com/a/b/render.webp", {"tool_file_id": "77"}, "render.webp"),
    ],
)
def test_a_forwarded_image_at_a_dify_address_is_named_without_its_address(kind, url, meta, name):
    seen, forwarded = run(msg(kind, url, meta))
    assert_named_not_addressed(seen, name)
    assert seen.startswith("An image was sent to the user")
    assert [m.message.text for m in forwarded] == [url], "the user still gets the address"


@pytest.mark.parametrize(
    ("url", "meta", "name"),
    [
        ("/files/tools/file-1.docx", {"tool_file_id": "file-1", "mime_type": "application/msword"},
         "file-1.docx (application/msword)"),
        ("http://api:5001/files/tools/ab12.csv?timestamp=1&nonce=2&sign=3", None, "ab12.csv"),
        ("http://api:5001/files/tools/ab12.csv?sign=3", {"filename": "sales.csv"}, "sales.csv"),
    ],
)
def test_a_forwarded_link_to_a_dify_file_is_named_without_its_address(url, meta, name):
    seen, forwarded = run(msg(M.LINK, url, meta))
    assert_named_not_addressed(seen, name)
    assert "result link" not in seen
    assert [(m.type, m.message.text, m.meta) for m in forwarded] == [(M.LINK, url, meta)]


def test_a_binary_link_to_a_dify_file_is_named_without_its_address():
    collector = ObservationCollector("wf")
    raw = {"type": "binary_link", "message": {"text": SIGNED.replace(".png", ".bin")}, "meta": {"tool_file_id": "x"}}
    assert len(collector.add(raw)) == 1
    assert_named_not_addressed(collector.finish().observation, "3f9a2c7e.bin")


def test_a_file_message_at_a_dify_address_is_named_without_its_address():
    file = {"filename": "invoice.pdf", "mime_type": "application/pdf", "size": 2048,
            "url": "http://api:5001/files/abc/file-preview?timestamp=1&nonce=2&sign=3"}
    seen, (sent,) = run(T(type=M.FILE, message=None, meta={"file": file}))
    assert_named_not_addressed(seen, "invoice.pdf (application/pdf, 2048 bytes)")
    assert sent.message.text == file["url"]


def test_an_unnamed_file_message_is_named_by_the_last_segment_of_its_path():
    file = {"mime_type": "image/png", "type": "image", "url": "/files/tools/c4t.png?timestamp=1&sign=x"}
    seen, (sent,) = run(T(type=M.FILE, message=None, meta={"file": file}))
    assert_named_not_addressed(seen, "c4t.png (image/png)")
    assert sent.type == M.IMAGE_LINK and sent.message.text == file["url"]


def test_external_addresses_keep_their_url():
    seen, forwarded = run(
        msg(M.LINK, "https://docs.example.com/guide?page=2"),
        msg(M.IMAGE, "https://img.example.com/cat.png"),
    )
    assert "result link: https://docs.example.com/guide?page=2." in seen
    assert "An image was sent to the user: https://img.example.com/cat.png." in seen
    assert "shown with your answer" not in seen
    assert [m.message.text for m in forwarded] == ["https://img.example.com/cat.png"]


def test_a_plain_link_with_a_sign_parameter_is_not_forwarded_and_keeps_its_url():
    """Not forwarded (not a tool file), so the model is the only way the user gets it."""
    seen, forwarded = run(msg(M.LINK, "https://example.com/share?sign=abc"))
    assert forwarded == [] and "result link: https://example.com/share?sign=abc." in seen
